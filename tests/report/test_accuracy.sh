#!/bin/bash
# Accuracy of the attribution, end to end under TCG (suite vm): null-co's
# latency-ns=L at the backend and the bottom filter's delay-ns=D (iogap run
# --inject-delay-ns) between top and bottom are known delays.  Each must show
# up in its own stage: B for L, Q.fmt for D; D must not move B; B must follow
# L; the stages must sum to the total.  Prints every number.
#
# QEMU's coroutine sleep (null-co's and the filter's) wakes late under TCG on
# this kind of host: measured 36-46 us at the median and 40-90 us on average
# (a long tail: p99 ~ 320-380 us; more on a loaded host), more than the
# 5 us / 5% the issue asks for, and it is real time spent in that stage.  So
# the test asserts what holds exactly — every request's B >= L and Q.fmt >= D,
# the overshoot bounded (median 200 us, mean 300 us: a D of 400 us in the
# wrong stage fails), no Q.fmt without D, B medians following L differences
# within 5% (or 40 us) — instead of B == L (docs/reports.md, "Accuracy").
. "$(dirname "$0")/lib.sh"

cat >"$WORK/job.fio" <<JOB
[global]
ioengine=libaio
direct=1
bs=4k
iodepth=1
size=32m
runtime=2
time_based=1

[rr]
rw=randread

[rw]
rw=randwrite
stonewall
JOB

runs="100000:0 400000:0 1600000:0 100000:400000"
for r in $runs; do
	L=${r%:*} D=${r#*:}
	extra=()
	[ "$D" != 0 ] && extra=(--inject-delay-ns "$D")
	"$IOGAP" run --vm-only --accel tcg --iothread --dir "$WORK/$L-$D" \
		--target "null:1G,latency-ns=$L" "${extra[@]}" "$WORK/job.fio" >"$WORK/$L-$D.log" 2>&1
	ok $? "TCG run: null-co latency-ns=$L, injected top->bottom delay $D ns" "$WORK/$L-$D.log"
	"$IOGAP" report "$WORK/$L-$D" --json "$WORK/$L-$D.json" >"$WORK/$L-$D.txt" 2>&1
	ok $? "report of it" "$WORK/$L-$D.txt"
done

python3 - "$WORK" $runs >"$WORK/acc" 2>&1 <<'PY'
import json, sys
work, runs = sys.argv[1], sys.argv[2:]
OVER_MAX = 200e3      # ns: bound on QEMU's sleep overshoot under TCG (median; measured 36-46 us)
MEAN_MAX = 300e3      # ns: the same for the mean (long tail: p99 ~ 320-380 us)
res, bad = {}, []
print("# run (L/D us)  dir      n    G->Q   Q.fmt       B   Q.ret    Q->G   total | B-L mean p50 | Q.fmt-D mean p50 | clock+- | sum err")
for r in runs:
    L, D = map(int, r.split(":"))
    d = json.load(open(f"{work}/{L}-{D}.json"))
    if d["null_latency_ns"] != L or d["inject_delay_ns"] != D:
        bad.append(f"{r}: report says L={d['null_latency_ns']} D={d['inject_delay_ns']}")
    for job in d["jobs"]:
        for dr in ("read", "write"):
            if dr not in job or "stages" not in job[dr]:
                continue
            x = job[dr]; st = x["stages"]
            m = {k: st[k]["mean_ns"] for k in ("G->Q", "Q.fmt", "B", "Q.ret", "Q->G", "total")}
            p = {k: st[k]["p50_ns"] for k in ("Q.fmt", "B")}
            res[(L, D, dr)] = (m, p)
            print(f"# {L/1e3:5.0f}/{D/1e3:<5.0f} {dr:5} {st['B']['n']:5} " +
                  " ".join(f"{m[k]/1e3:7.1f}" for k in ("G->Q", "Q.fmt", "B", "Q.ret", "Q->G", "total")) +
                  f" | {(m['B']-L)/1e3:5.1f} {(p['B']-L)/1e3:5.1f} | {(m['Q.fmt']-D)/1e3:7.1f} {(p['Q.fmt']-D)/1e3:7.1f}"
                  f" | {st['G->Q']['error_ns']/1e3:5.1f} | {x['stage_sum_error_pct']:+.4f}%")
            tag = f"L={L} D={D} {dr}"
            if st["B"]["min_ns"] < L: bad.append(f"{tag}: a request's B {st['B']['min_ns']} < L")
            if not (0 <= p["B"] - L <= OVER_MAX): bad.append(f"{tag}: B p50 - L = {p['B']-L:.0f} ns")
            if not (0 <= m["B"] - L <= MEAN_MAX): bad.append(f"{tag}: B mean - L = {m['B']-L:.0f} ns")
            if D:
                if st["Q.fmt"]["min_ns"] < D: bad.append(f"{tag}: a request's Q.fmt < D")
                if not (0 <= p["Q.fmt"] - D <= OVER_MAX): bad.append(f"{tag}: Q.fmt p50 - D = {p['Q.fmt']-D:.0f}")
                if not (0 <= m["Q.fmt"] - D <= MEAN_MAX): bad.append(f"{tag}: Q.fmt mean - D = {m['Q.fmt']-D:.0f}")
            elif p["Q.fmt"] > 5000:
                bad.append(f"{tag}: Q.fmt p50 {p['Q.fmt']:.0f} ns without an injected delay")
            if abs(x["stage_sum_error_pct"]) > 1: bad.append(f"{tag}: stages do not sum to the total")
for dr in ("read", "write"):
    # B follows L (medians: the overshoot's tail cancels)
    for a, b in ((100000, 400000), (100000, 1600000), (400000, 1600000)):
        dB = res[(b, 0, dr)][1]["B"] - res[(a, 0, dr)][1]["B"]
        tol = max(0.05 * (b - a), 40e3)
        print(f"# {dr}: B p50 (L={b/1e3:.0f}us) - B p50 (L={a/1e3:.0f}us) = {dB/1e3:.1f} us for an L difference of {(b-a)/1e3:.0f} us (tolerance {tol/1e3:.0f})")
        if abs(dB - (b - a)) > tol:
            bad.append(f"{dr}: B difference {dB:.0f} for L difference {b-a}")
    # D lands in Q.fmt, B stays L + overshoot
    (m0, p0), (m1, p1) = res[(100000, 0, dr)], res[(100000, 400000, dr)]
    print(f"# {dr}: D=400us added: Q.fmt p50 {p0['Q.fmt']/1e3:.1f} -> {p1['Q.fmt']/1e3:.1f} us, B p50 {p0['B']/1e3:.1f} -> {p1['B']/1e3:.1f} us")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
st=$?
grep '^#' "$WORK/acc"
ok $st "attribution: L in B, D in Q.fmt (not in B), B follows L within 5% (or 40 us), stages sum to the total" "$WORK/acc"
finish
