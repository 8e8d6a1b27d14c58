#!/bin/bash
# iogap run on a second QEMU (--qemu, e.g. bookworm-backports' 10.0 unpacked by
# scripts/qemu-private and built for with -Dextra_qemu) and on the system's:
# each a complete run with the filter built for its binary, the manifest naming
# both builds, `iogap compare` of the two; a filter of another build refused
# before anything runs.  Usage: test_run_qemu.sh QEMU (meson gives the first
# -Dextra_qemu binary).
. "$(dirname "$0")/lib.sh"
echo "1..13"
Q=${1:?usage: test_run_qemu.sh QEMU}
job libaio > "$WORK/job.fio"
dd if=/dev/urandom of="$WORK/disk.img" bs=1M count=64 status=none
stamp_of() { grep -aoE 'qemu_stamp_[0-9a-f]{40}' "$1" | head -1 | cut -c12-; }

"$IOGAP" run --accel tcg --qemu "$Q" --dir "$WORK/q" --target "file:$WORK/disk.img" \
	"$WORK/job.fio" > "$WORK/q.out" 2>&1
ok $? "--qemu $Q: run succeeds ($(tail -1 "$WORK/q.out"))"
check_pairs() { # check_pairs DIR LABEL
	manifest "$1" 'm["phases"]["bare"]["status"] == "ok" and m["phases"]["vm"]["status"] == "ok"'
	ok $? "$2: both phases ok"
	manifest "$1" 'm["pairing"]["exact"]["write"] == m["pairing"]["guest"]["write"] > 100 and m["pairing"]["paired_top"]["read"] >= 0.99 * m["pairing"]["guest"]["read"] > 0'
	ok $? "$2: writes 100% paired by tag, >= 99% of reads: $(mval "$1" 'm["pairing"]["exact"]["write"], "of", m["pairing"]["guest"]["write"], "writes;", m["pairing"]["paired_top"]["read"], "of", m["pairing"]["guest"]["read"], "reads"')"
}
check_pairs "$WORK/q" "--qemu"
[ "$(mval "$WORK/q" 'm["vm"]["qemu"]')" = "$(realpath "$Q")" ] &&
	[ "$(mval "$WORK/q" 'm["vm"]["qemu_version"]')" = "$("$Q" --version | head -1)" ] &&
	[ "$(mval "$WORK/q" 'm["vm"]["qemu_stamp"]')" = "$(stamp_of "$Q")" ]
ok $? "manifest: vm.qemu, qemu_version, qemu_stamp are the given binary's ($(mval "$WORK/q" 'm["vm"]["qemu_version"]'))"
filter=$(mval "$WORK/q" 'm["vm"]["filter"]')
[ "$(stamp_of "$filter")" = "$(stamp_of "$Q")" ] &&
	[ "$(mval "$WORK/q" 'm["vm"]["filter_stamp"]')" = "$(stamp_of "$Q")" ] &&
	head -1 "$WORK/q/vm/qemu.cmdline" | grep -qF "LD_PRELOAD=$filter"
ok $? "the filter preloaded is the one built for that binary: ${filter##*/}"
"$IOGAP" report --full "$WORK/q" > "$WORK/q.report" 2>&1 && grep -q 'Q.fmt' "$WORK/q.report"
ok $? "iogap report of the --qemu run" "$WORK/q.report"

"$IOGAP" run --accel tcg --dir "$WORK/sys" --target "file:$WORK/disk.img" "$WORK/job.fio" \
	> "$WORK/sys.out" 2>&1
ok $? "the system's QEMU: run succeeds ($(tail -1 "$WORK/sys.out"))"
check_pairs "$WORK/sys" "system QEMU"
sysq=$(realpath "$(command -v qemu-system-x86_64)")
[ "$(mval "$WORK/sys" 'm["vm"]["qemu"]')" = "$sysq" ] &&
	[ "$(mval "$WORK/sys" 'm["vm"]["filter_stamp"]')" = "$(stamp_of "$sysq")" ] &&
	[ "$(stamp_of "$sysq")" != "$(stamp_of "$Q")" ]
ok $? "default: the system's QEMU ($sysq) with its own filter, another build than --qemu's"

"$IOGAP" compare "$WORK/sys" "$WORK/q" > "$WORK/cmp.out" 2>&1 &&
	grep -q "A: 1 run, .*qemu_version=$("$sysq" --version | head -1)" "$WORK/cmp.out" &&
	grep -q "B1: 1 run, .*qemu_version=$("$Q" --version | head -1)" "$WORK/cmp.out" &&
	grep -q '^vm / rw / write' "$WORK/cmp.out"
ok $? "iogap compare: the two QEMUs are two configurations, compared job by job" "$WORK/cmp.out"

# a filter of the other build: refused before bare metal, naming both builds
sysfilter=$(mval "$WORK/sys" 'm["vm"]["filter"]')
IOGAP_FILTER_SO=$sysfilter "$IOGAP" run --accel tcg --qemu "$Q" --dir "$WORK/bad" \
	--target "file:$WORK/disk.img" "$WORK/job.fio" > "$WORK/bad.out" 2>&1
[ $? = 1 ] && grep -qF "no iogap filter built for QEMU" "$WORK/bad.out" &&
	grep -qF "stamp $(stamp_of "$Q")" "$WORK/bad.out" &&
	grep -qF "stamp $(stamp_of "$sysq")" "$WORK/bad.out" && grep -qF -- "-Dextra_qemu=$(realpath "$Q")" "$WORK/bad.out"
ok $? "a filter built for another QEMU is refused, both stamps and the build command named: $(head -1 "$WORK/bad.out")"
manifest "$WORK/bad" 'm["phases"]["bare"]["status"] == "failed" and "not started" in m["phases"]["bare"]["message"]' &&
	[ ! -e "$WORK/bad/vm" ] && [ ! -e "$WORK/bad/bare/probe.json" ]
ok $? "nothing ran: no bare-metal results, no VM directory"
finish
