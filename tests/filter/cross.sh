#!/bin/sh
# A filter built for one QEMU preloaded into another (7.2's into 10.0 and 10.0's into
# 7.2): one line naming both builds (versions and stamps), the supported range and
# the command that builds a matching filter; QEMU keeps working without the driver.
. "$(dirname "$0")/lib.sh"
require_filter
other=${IOGAP_FILTER_OTHER_SO:-}
if [ -z "$other" ] || [ ! -f "$other" ]; then
	echo "1..1"
	echo "not ok 1 - no filter of another QEMU (IOGAP_FILTER_OTHER_SO; meson -Dextra_qemu)"
	exit 1
fi
plan 4

img=$work/disk.img
qemu-img create -q -f raw "$img" 1M
stamp_of() { grep -a -o -m1 'qemu_stamp_[0-9a-f]\{40\}' "$1" | head -n 1; }
mine=$(stamp_of "$(command -v qemu-io)")
theirs=$(stamp_of "$other")
version=$(qemu-io --version | sed -n '1s/^qemu-io version \([^ ]*\).*/\1/p')

LD_PRELOAD=$other qemu-io -f raw -c 'write -q -P 3 0 4k' -c 'read -q -P 3 0 4k' "$img" \
	>"$work/out" 2>"$work/err"
ok $? "qemu-io with the other QEMU's filter still reads and writes" "$work/err"
[ "$(wc -l <"$work/err")" = 1 ] && [ -n "$mine" ] && [ "$mine" != "$theirs" ] &&
	grep -q "^iogap-filter: not registered in qemu-io: stamp mismatch: built for QEMU [0-9.]* ($theirs), this is QEMU $version (.*) ($mine); .*QEMU continues without it$" "$work/err"
ok $? "one line naming both builds: ours $theirs, this QEMU $version $mine" "$work/err"
grep -q "supports QEMU 7.2 to 10.x .*-Dextra_qemu=$(command -v qemu-io) " "$work/err"
ok $? "the line names the supported range and the command that builds a matching filter" \
	"$work/err"
LD_PRELOAD=$other qemu-io -c 'read -q 0 4k' \
	"json:$(j_top "$work/r.ring" "$(j_file "$img")")" >"$work/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "Unknown driver 'iogap'" "$work/out" && [ ! -e "$work/r.ring" ]
ok $? "the driver is absent: an iogap node fails cleanly (rc $rc), no ring" "$work/out"
finish
