#!/bin/bash
# iogap passthrough run (docs/passthrough.md): a TCG guest with QEMU's
# emulated NVMe on a file (-device nvme, no filter nodes) stands in for an
# assigned device; bare metal is the probe on the host against the same
# file.  Structure only, never timings: the guest's stages (G.kern, D, G.ret)
# and bare metal's (K.sub, D, K.ret) with every request counted, the gap
# row by row, the verdict, a run directory that report, compare, lint and
# check --run read (its manifest and report valid by their schemas); with
# --match-load, bare metal at the VM's IOPS as the reference; a recorded bare run (--bare-run); a buffered job refused
# before anything runs; vfio-pci's command line; usage errors.
# shellcheck source=tests/run/lib.sh
. "$(dirname "$0")/../run/lib.sh"
[ -e /sys/kernel/tracing/events/block/block_rq_issue ] || mount -t tracefs nodev /sys/kernel/tracing 2> /dev/null
[ -e /sys/kernel/tracing/events/block/block_rq_issue ] && [ -w /sys/kernel/tracing/instances ] ||
	skip_all "no tracefs with block events and writable instances on this host (bare metal's kernel points)"
echo "1..18"
# okf STATUS DESCRIPTION FILE: ok, with the end of FILE as a diagnostic when it failed
okf() { ok "$1" "$2"; [ "$1" = 0 ] || tail -40 "$3" | sed 's/^/# /'; }
N=300
dd if=/dev/urandom of="$WORK/disk.img" bs=1M count=16 status=none
cat > "$WORK/j.fio" <<JOB
[qd1]
rw=randread
ioengine=psync
direct=1
bs=4k
size=16m
number_ios=$N
JOB
run() { # run DIR [options...]: iogap passthrough run of j.fio into DIR, output in DIR.out
	local d=$1; shift
	"$IOGAP" passthrough run --device nvme --accel tcg --quiet --dir "$d" "$@" "$WORK/j.fio" \
		> "$d.out" 2>&1
}

run "$WORK/a" --target "file:$WORK/disk.img"
rc=$?
[ $rc -le 1 ] && grep -Eq '^verdict: (pass|fail): ' "$WORK/a.out" &&
	grep -q '^iogap passthrough check --run ' "$WORK/a.out"
okf $? "passthrough run: the run, its report and check's verdict (exit $rc: $(grep '^verdict:' "$WORK/a.out" | tail -1))" "$WORK/a.out"
manifest "$WORK/a" 'm["vm"]["passthrough"] == "nvme" and not m["vm"].get("filter") and m["phases"]["vm"]["status"] == "ok" and m["phases"]["bare"]["status"] == "ok"' &&
	[ ! -e "$WORK/a/vm/top.trace" ] && [ ! -e "$WORK/a/vm/bottom.trace" ] &&
	grep -q "'nvme,drive=d0,serial=iogap0'" "$WORK/a/vm/qemu.cmdline" &&
	! grep -q 'LD_PRELOAD\|iogap-filter\|virtio-blk' "$WORK/a/vm/qemu.cmdline"
ok $? "no filter: the manifest says passthrough nvme, QEMU's NVMe on the drive, no filter traces"

"$IOGAP" report --full "$WORK/a" --json "$WORK/a.json" --html "$WORK/a.html" > "$WORK/a.report" 2>&1
okf $? "iogap report reads the run directory" "$WORK/a.report"
V=${IOGAP_SRC:?}/tests/install/validate.py
"$V" "$IOGAP_SRC/docs/schemas/manifest-1.schema.json" "$WORK/a/manifest.json" > "$WORK/schema.out" 2>&1 &&
	"$V" "$IOGAP_SRC/docs/schemas/report-1.schema.json" "$WORK/a.json" >> "$WORK/schema.out" 2>&1
okf $? "the manifest and the report's JSON validate against their schemas" "$WORK/schema.out"
python3 - "$WORK/a.json" "$N" > "$WORK/stages.txt" 2>&1 <<'PY'
import json, sys
r, n = json.load(open(sys.argv[1])), int(sys.argv[2])
job = r["jobs"][0]["read"]
st, bs = job["stages"], job["bare_stages"]
print("vm", sorted(st), "bare", sorted(bs))
sys.exit(not (all(st[k]["n"] == n for k in ("G.kern", "D", "G.ret")) and
              not any(k in st for k in ("G->Q", "Q.fmt", "B", "Q.ret", "Q->G", "GK->Q", "Q->GK")) and
              all(bs[k]["n"] == n for k in ("K.sub", "D", "K.ret"))))
PY
ok $? "stages: the guest's G.kern, D, G.ret and bare metal's K.sub, D, K.ret, each over all $N requests: $(tr '\n' ' ' < "$WORK/stages.txt")"
python3 - "$WORK/a.json" "$N" > "$WORK/count.txt" 2>&1 <<'PY'
import json, sys
r, n = json.load(open(sys.argv[1])), int(sys.argv[2])
kp, pc = r["kernel_points"], r["pairing"]["read"]
print("vm", kp["vm"], "bare", kp["bare"], "pairing", pc)
sys.exit(not (kp["vm"]["matched"] == n and kp["bare"]["matched"] == n and pc["guest"] == n and
              r["passthrough"] == "nvme" and kp["vm_host"]["recorded"] == 0))
PY
ok $? "every request counted and matched in its kernel on both sides: $(tr '\n' ' ' < "$WORK/count.txt")"
python3 - "$WORK/a.json" > "$WORK/gap.txt" 2>&1 <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["jobs"][0]["read"]["gap"]["contrib_ns"]
print(sorted(c))
sys.exit(sorted(c) != ["G.kern", "G.ret", "device", "other"])
PY
ok $? "gap rows: G.kern, device, G.ret against bare metal's stages: $(cat "$WORK/gap.txt")"
grep -q '^passthrough: nvme (no filter nodes' "$WORK/a.report" &&
	grep -q "^VM: $N requests, $N with every point (passthrough: no filter nodes) and matched in the guest kernel" "$WORK/a.report" &&
	grep -q '^  device (D - bare) ' "$WORK/a.report" && grep -q '^verdict: qd1 read: ' "$WORK/a.report" &&
	grep -q 'Passthrough: nvme (no filter nodes' "$WORK/a.html"
okf $? "text and HTML report: passthrough named, the requests with every point, the device row, a verdict" "$WORK/a.report"

"$IOGAP" passthrough check --run "$WORK/a" > "$WORK/check.out" 2>&1
rc=$?
[ $rc -le 1 ] && grep -q '^INFO \(within\|few-samples\)\|^WARNING beyond' "$WORK/check.out" &&
	grep -Eq '^verdict: (pass|fail): ' "$WORK/check.out"
okf $? "check --run judges it (exit $rc)" "$WORK/check.out"
"$IOGAP" lint "$WORK/a" > "$WORK/lint.out" 2>&1
rc=$?
"$IOGAP" compare "$WORK/a" "$WORK/a" > "$WORK/cmp.out" 2>&1 &&
	grep -q 'passthrough=nvme' "$WORK/cmp.out" && [ $rc -le 1 ]
okf $? "lint (exit $rc) and compare read it" "$WORK/cmp.out"

# --match-load (iogap run's): bare metal again at the VM's IOPS, the gap's reference
run "$WORK/m" --match-load --target "file:$WORK/disk.img"
rc=$?
[ $rc -le 1 ] && [ -s "$WORK/m/bare-matched/kernel.trace" ] &&
	"$IOGAP" report "$WORK/m" --json "$WORK/m.json" > /dev/null 2>&1 &&
	python3 -c "import json,sys; j=json.load(open('$WORK/m.json'))['jobs'][0]; r=j['read']
sys.exit(not (j['load']['reference'] == 'bare_matched' and r['bare_stages']['side'] == 'bare_matched' and
              sorted(r['gap']['contrib_ns']) == ['G.kern', 'G.ret', 'device', 'other']))"
okf $? "--match-load: the guest's stages against bare metal's at the VM's IOPS (exit $rc)" "$WORK/m.out"

# a recorded bare-metal run: the VM only, the bare side copied with its run id
run "$WORK/b" --bare-run "$WORK/a"
rc=$?
[ $rc -le 1 ] && grep -Eq '^verdict: (pass|fail): ' "$WORK/b.out" &&
	[ "$(mval "$WORK/a" 'm["run_id"]')" = "$(mval "$WORK/b" 'm["run_id"]')" ] &&
	manifest "$WORK/b" 'm["phases"]["bare"]["message"].startswith("recorded: copied from ") and m["target"]["spec"] == "file:'"$WORK"'/disk.img"' &&
	cmp -s "$WORK/a/bare/probe.trace" "$WORK/b/bare/probe.trace" &&
	"$IOGAP" report "$WORK/b" --json "$WORK/b.json" > /dev/null 2>&1 &&
	python3 -c "import json,sys; j=json.load(open('$WORK/b.json'))['jobs'][0]['read']; sys.exit(not (j['stages']['D']['n'] == $N and j['bare_stages']['D']['n'] == $N))"
okf $? "--bare-run: the recorded bare side, its run id and target, the guest's stages against it (exit $rc)" "$WORK/b.out"
cp -r "$WORK/a" "$WORK/bad" &&
	python3 -c "import json; f='$WORK/bad/manifest.json'; m=json.load(open(f)); m['phases']['bare']['status']='failed'; json.dump(m, open(f, 'w'))"
run "$WORK/b2" --bare-run "$WORK/bad"
rc=$?
[ $rc = 1 ] && grep -q "bare-run .*/bad: its bare-metal phase is failed, not ok" "$WORK/b2.out" &&
	[ ! -e "$WORK/b2/vm" ]
okf $? "--bare-run of a run whose bare phase failed: refused before the VM (exit $rc)" "$WORK/b2.out"

# lint first: a buffered job is refused before anything runs
sed 's/direct=1/direct=0/; s/psync/libaio/' "$WORK/j.fio" > "$WORK/buf.fio"
"$IOGAP" passthrough run --device nvme --accel tcg --dir "$WORK/c" --target "file:$WORK/disk.img" \
	"$WORK/buf.fio" > "$WORK/c.out" 2>&1
rc=$?
[ $rc = 1 ] && [ ! -e "$WORK/c" ] && grep -q '^WARNING buffered-async: ' "$WORK/c.out" &&
	grep -q '^verdict: comparison invalid: the runs were buffered (direct=0).*nothing was run; --force runs and compares anyway)$' "$WORK/c.out"
okf $? "a buffered job: lint's findings, refused before any run (exit $rc)" "$WORK/c.out"
"$IOGAP" passthrough run --device nvme --force --accel tcg --quiet --dir "$WORK/f" \
	--target "file:$WORK/disk.img" "$WORK/buf.fio" > "$WORK/f.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q '^lint: the comparison will be invalid; running anyway (--force)$' "$WORK/f.out" &&
	[ -s "$WORK/f/vm/probe.json" ] &&
	grep -q '^verdict: comparison invalid, compared anyway (--force): ' "$WORK/f.out"
okf $? "--force: the buffered job runs, the verdict says the comparison is invalid (exit $rc)" "$WORK/f.out"

# an assigned PCI device: vfio-pci on QEMU's command line, no drive (no such device here)
"$IOGAP" passthrough run --device 0000:ff:1f.7 --accel tcg --quiet --dir "$WORK/v" \
	--bare-run "$WORK/a" "$WORK/j.fio" > "$WORK/v.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "'vfio-pci,host=0000:ff:1f.7'" "$WORK/v/vm/qemu.cmdline" &&
	! grep -q "'-drive'" "$WORK/v/vm/qemu.cmdline" &&
	manifest "$WORK/v" 'm["vm"]["passthrough"] == "vfio-pci,host=0000:ff:1f.7" and m["phases"]["vm"]["status"] == "failed"' &&
	grep -q 'vfio-pci,host=0000:ff:1f.7' "$WORK/v.out"
okf $? "--device BDF: vfio-pci,host=BDF and no drive; QEMU's refusal is the VM phase's failure (exit $rc)" "$WORK/v.out"

"$IOGAP" passthrough run --target "file:$WORK/disk.img" "$WORK/j.fio" > "$WORK/u1.out" 2>&1
rc1=$?
"$IOGAP" passthrough run --device 0000:ff:1f.7 --target "file:$WORK/disk.img" "$WORK/j.fio" \
	> "$WORK/u2.out" 2>&1
rc2=$?
"$IOGAP" passthrough run --device nvme --p50-within 5parsecs --target "file:$WORK/disk.img" \
	"$WORK/j.fio" > "$WORK/u3.out" 2>&1
rc3=$?
"$IOGAP" passthrough run --device nvme --repeat 2 --target "file:$WORK/disk.img" "$WORK/j.fio" \
	> "$WORK/u5.out" 2>&1
rc6=$?
[ $rc6 = 2 ] && grep -q 'no --repeat' "$WORK/u5.out" &&
	[ $rc1 = 2 ] && grep -q -- '--device nvme|BDF is needed' "$WORK/u1.out" &&
	[ $rc2 = 2 ] && grep -q -- '--passthrough BDF needs --bare-run' "$WORK/u2.out" &&
	[ $rc3 = 2 ] && grep -q 'bad threshold' "$WORK/u3.out"
ok $? "usage errors exit 2: no --device ($rc1), a BDF without --bare-run ($rc2), a bad threshold ($rc3), --repeat ($rc6)"
"$IOGAP" run --passthrough nvme --iothread --target "file:$WORK/disk.img" "$WORK/j.fio" \
	> "$WORK/u4.out" 2>&1
rc4=$?
"$IOGAP" run --passthrough nvme --accel tcg --dir "$WORK/z" --target "zns:$WORK/disk.img" \
	"$WORK/j.fio" >> "$WORK/u4.out" 2>&1
rc5=$?
[ $rc4 = 2 ] && grep -q 'no --iothread' "$WORK/u4.out" &&
	[ $rc5 = 1 ] && grep -q 'not with --passthrough' "$WORK/u4.out"
okf $? "iogap run --passthrough refuses filter and virtio-blk options ($rc4) and a zns: target ($rc5)" "$WORK/u4.out"
finish
