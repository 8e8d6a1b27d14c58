#!/bin/bash
# Host-side accuracy of kernel points, judged by differences: a
# file target on this host's disk under a TCG guest, the bottom filter's
# delay-ns (iogap run --inject-delay-ns, between top and bottom: stage Q.fmt)
# at a base of 100 us and stepped by S, in interleaved rounds (TCG guests
# drift with idle time; the base sleeps too, so QEMU's late wake-ups
# cancel).  The median over rounds of each stage's p50 difference must show
# S in Q.fmt (within 5%) and move the host kernel and device stages (HK.sub,
# D, HK.ret) and the guest kernel's (G.kern, G.ret) by less than 10% of S;
# the guest/host crossings (GK->Q, Q->GK) by less than 10% of S plus the two
# runs' clock error bars.  Every run's kernel points are whole: no event
# lost, the report complete, 90% of the requests matched in both kernels.
# shellcheck source=tests/run/lib.sh
. "$(dirname "$0")/../run/lib.sh"
[ -e /sys/kernel/tracing/events/block/block_rq_issue ] || mount -t tracefs nodev /sys/kernel/tracing 2> /dev/null
[ -e /sys/kernel/tracing/events/block/block_rq_issue ] && [ -w /sys/kernel/tracing/instances ] ||
	skip_all "no tracefs with block events and writable instances on this host"

BASE=100000     # ns
STEP=2000000    # ns: S, large against TCG's noise
ROUNDS=2
echo "1..$((2 * ROUNDS + 2))"
dd if=/dev/urandom of="$WORK/disk.img" bs=1M count=32 status=none
cat > "$WORK/j.fio" <<JOB
[global]
ioengine=libaio
direct=1
bs=4k
iodepth=1
size=32m
runtime=3
time_based=1

[rr]
rw=randread
JOB
runs=()
for r in $(seq "$ROUNDS"); do
	for c in base step; do
		D=$BASE
		[ $c = step ] && D=$((BASE + STEP))
		d=$WORK/$c.$r
		limited 150 "$IOGAP" run --vm-only --accel tcg --iothread --dir "$d" \
			--target "file:$WORK/disk.img" --inject-delay-ns "$D" "$WORK/j.fio" > "$d.log" 2>&1 &&
			limited 60 "$IOGAP" report "$d" --json "$d.json" > "$d.txt" 2>> "$d.log"
		ok $? "round $r, $c: TCG run on a file target with kernel points (filter delay-ns=$D) and its report" "$d.log"
		runs+=("$c.$r")
	done
done

python3 - "$WORK" > "$WORK/whole" 2>&1 "${runs[@]}" <<'PY'
import json, sys
work, runs, bad = sys.argv[1], sys.argv[2:], 0
for name in runs:
    d = json.load(open(f"{work}/{name}.json"))
    for side in ("vm", "vm_host"):
        c = d["kernel_points"][side]
        n = sum(c[k] for k in ("matched", "none", "ambiguous", "split", "merged", "unmapped"))
        print(name, side, "matched", c["matched"], "of", n)
        bad |= not (c["recorded"] and c["matched"] >= 0.9 * n and n > 0)
    print(name, "complete", d["complete"], d["incomplete"])
    bad |= not d["complete"]
sys.exit(bad)
PY
ok $? "every run: report complete (no kernel event lost), >= 90% of the requests matched in the guest and host kernels" "$WORK/whole"

python3 - "$WORK" "$STEP" "$ROUNDS" > "$WORK/acc" 2>&1 <<'PY'
import json, statistics, sys
work, step, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
STAGES = ("G.kern", "GK->Q", "Q.fmt", "HK.sub", "D", "HK.ret", "Q.ret", "Q->GK", "G.ret")
CROSSINGS = ("GK->Q", "Q->GK")
QEMU = ("Q.fmt", "Q.ret")
p50, err, bad = {}, {}, []
for c in ("base", "step"):
    for r in range(1, rounds + 1):
        st = json.load(open(f"{work}/{c}.{r}.json"))["jobs"][0]["read"]["stages"]
        p50[(c, r)] = {s: st[s]["p50_ns"] for s in STAGES}
        err[(c, r)] = st["GK->Q"]["error_ns"]
        print(f"# {c}.{r} p50 us: " + " ".join(f"{s} {p50[(c, r)][s] / 1e3:.1f}" for s in STAGES))
for s in STAGES:
    delta = statistics.median(p50[("step", r)][s] - p50[("base", r)][s] for r in range(1, rounds + 1))
    if s == "Q.fmt":
        want, tol = step, 0.05 * step
    else:
        want, tol = 0, 0.10 * step
        if s in CROSSINGS:
            tol += max(err[("step", r)] + err[("base", r)] for r in range(1, rounds + 1))
    flag = "" if abs(delta - want) <= tol else "   <-- FAIL"
    print(f"# step of {step / 1e3:.0f} us in the filter: {s:6} p50 moved {delta / 1e3:+8.1f} us "
          f"(expected {want / 1e3:.0f} +- {tol / 1e3:.1f}){flag}")
    if flag:
        bad.append(s)
sys.exit(1 if bad else 0)
PY
st=$?
grep '^#' "$WORK/acc"
ok $st "a ${STEP}-ns filter delay moves Q.fmt by the step (5%), the host kernel, device and guest kernel stages by < 10% of it" "$WORK/acc"
finish
