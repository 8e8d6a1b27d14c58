#!/bin/bash
# Kernel points through `iogap run` (docs/kernel-points.md): a file target on
# this host's disk under a TCG guest.  The run directory holds the kernel
# traces (guest kernel, bare-metal probe, host kernel under QEMU) and the
# file's extent maps; the report matches requests with the guest kernel's
# and (through FIEMAP) the host kernel's, shows the kernel and device stages
# of both sides, the gap table subtracts kernel from kernel and device from
# device, and the stages sum to their totals.  With
# --no-kernel-points no side records any, and the manifest and report say so.
# shellcheck source=tests/run/lib.sh
. "$(dirname "$0")/../run/lib.sh"
[ -e /sys/kernel/tracing/events/block/block_rq_issue ] || mount -t tracefs nodev /sys/kernel/tracing 2> /dev/null
[ -e /sys/kernel/tracing/events/block/block_rq_issue ] && [ -w /sys/kernel/tracing/instances ] ||
	skip_all "no tracefs with block events and writable instances on this host"
echo "1..12"
dd if=/dev/urandom of="$WORK/disk.img" bs=1M count=32 status=none
job libaio > "$WORK/j.fio"
limited 420 "$IOGAP" run --accel tcg --dir "$WORK/k" --target "file:$WORK/disk.img" "$WORK/j.fio" \
	> "$WORK/k.out" 2>&1
ok $? "file target: run succeeds ($(tail -1 "$WORK/k.out"))"
[ -s "$WORK/k/vm/kernel.trace" ] && [ -s "$WORK/k/bare/kernel.trace" ] && [ -s "$WORK/k/bare/extents.txt" ] &&
	[ -s "$WORK/k/vm/host-kernel.trace" ] && [ -s "$WORK/k/vm/extents.txt" ] &&
	manifest "$WORK/k" 'm["kernel_points"]["vm"]["trace"] == "vm/kernel.trace" and m["kernel_points"]["bare"]["trace"] == "bare/kernel.trace" and m["kernel_points"]["vm_host"]["trace"] == "vm/host-kernel.trace"'
ok $? "run directory holds vm/kernel.trace, vm/host-kernel.trace, bare/kernel.trace and both extent maps, named in the manifest"
limited 60 "$IOGAP" report --full "$WORK/k" --json "$WORK/k.json" --html "$WORK/k.html" > "$WORK/k.report" 2>&1
ok $? "report succeeds"
# per side: matched > 0 and matched >= 90% of the requests counted
python3 - "$WORK/k.json" > "$WORK/match.txt" 2>&1 <<'PY'
import json, sys
kp = json.load(open(sys.argv[1]))["kernel_points"]
bad = 0
for side in ("vm", "bare", "vm_host"):
    c = kp[side]
    n = sum(c[k] for k in ("matched", "none", "ambiguous", "split", "merged", "unmapped"))
    print(side, c)
    bad |= not (c["recorded"] == 1 and c["matched"] > 0 and c["matched"] >= 0.9 * n)
sys.exit(bad)
PY
ok $? "both sides' requests matched with kernel requests: $(tr '\n' ';' < "$WORK/match.txt")" "$WORK/k.report"
# the VM's stages with kernel points, and bare metal's, in both directions
python3 - "$WORK/k.json" > "$WORK/stages.txt" 2>&1 <<'PY'
import json, sys
bad = 0
for job in json.load(open(sys.argv[1]))["jobs"]:
    for dr in ("read", "write"):
        if dr not in job:
            continue
        st, bs = job[dr].get("stages", {}), job[dr].get("bare_stages", {})
        vm_ok = all(k in st and st[k]["n"] > 0 for k in ("G.kern", "GK->Q", "Q.fmt", "HK.sub", "D", "HK.ret", "Q.ret", "Q->GK", "G.ret"))
        bare_ok = all(k in bs and bs[k]["n"] > 0 for k in ("K.sub", "D", "K.ret"))
        print(job["name"], dr, "vm", vm_ok, "bare", bare_ok)
        bad |= not (vm_ok and bare_ok)
sys.exit(bad)
PY
ok $? "VM stages G.kern GK->Q Q.fmt HK.sub D HK.ret Q.ret Q->GK G.ret and bare K.sub D K.ret present: $(tr '\n' ';' < "$WORK/stages.txt")"
python3 - "$WORK/k.json" > "$WORK/gap.txt" 2>&1 <<'PY'
import json, sys
bad = 0
for job in json.load(open(sys.argv[1]))["jobs"]:
    for dr in ("read", "write"):
        if dr not in job:
            continue
        c = job[dr]["gap"]["contrib_ns"]
        print(job["name"], dr, " ".join("%s %+.1f" % (k, v / 1e3) for k, v in c.items()))
        bad |= not all(k in c for k in ("K.sub", "device", "K.ret")) or "backend" in c
sys.exit(bad)
PY
ok $? "gap table: kernel against kernel, device against device (us): $(tr '\n' ';' < "$WORK/gap.txt")"
python3 - "$WORK/k.json" > "$WORK/sum.txt" 2>&1 <<'PY'
import json, sys
bad = 0
for job in json.load(open(sys.argv[1]))["jobs"]:
    for dr in ("read", "write"):
        if dr not in job:
            continue
        vm_err = job[dr]["stage_sum_error_pct"]
        bs = job[dr]["bare_stages"]
        bare_err = 100 * (bs["stage_sum_ns"] - bs["total"]["mean_ns"]) / bs["total"]["mean_ns"]
        print(job["name"], dr, "vm %+.4f%% bare %+.4f%%" % (vm_err, bare_err))
        bad |= not (abs(vm_err) < 0.1 and abs(bare_err) < 0.001)
sys.exit(bad)
PY
ok $? "stages sum to the total on both sides: $(tr '\n' ';' < "$WORK/sum.txt")"
grep -q "^VM kernel points: requests matched [1-9]" "$WORK/k.report" &&
	grep -q "^bare metal kernel points: requests matched [1-9]" "$WORK/k.report" &&
	grep -q "bare D " "$WORK/k.report" && grep -q "G.ret" "$WORK/k.report"
ok $? "text report: both sides' matching and their kernel/device stages" "$WORK/k.report"
grep -q "bare K.sub" "$WORK/k.html" && grep -q "Q-&gt;GK\|Q->GK" "$WORK/k.html"
ok $? "HTML report: the new stages in the stage table"

limited 90 "$IOGAP" run --bare-only --no-kernel-points --dir "$WORK/off" --target "file:$WORK/disk.img" \
	"$WORK/j.fio" > "$WORK/off.out" 2>&1
ok $? "--no-kernel-points: run succeeds"
[ ! -e "$WORK/off/bare/kernel.trace" ] && [ ! -e "$WORK/off/bare/extents.txt" ] &&
	manifest "$WORK/off" 'm["kernel_points"]["bare"]["why"] == "turned off (--no-kernel-points)"'
ok $? "--no-kernel-points: no kernel trace, the manifest says why"
"$IOGAP" report --full "$WORK/off" > "$WORK/off.report" 2>&1 &&
	grep -q "^bare metal kernel points: none (turned off (--no-kernel-points))" "$WORK/off.report" &&
	! grep -q "bare K.sub" "$WORK/off.report"
ok $? "--no-kernel-points: the report says why the stages are absent" "$WORK/off.report"
finish
