#!/bin/bash
# Equal-load comparison and CPU saturation, end to end under TCG (suite vm).
# 1. iogap run --match-load: bare-matched/ runs each job at the IOPS the VM
#    achieved (rate_iops), within 5%; the report compares with it (load
#    reference bare_matched, not flagged); without bare-matched/ the same run
#    is flagged exactly when the loads are more than 10% apart.
# 2. A VM run beside two CPU hogs (both cores busy): the report and lint name
#    the host as saturated, with the share of requests.
# Prints every load and backend difference; asserts no absolute timing.
. "$(dirname "$0")/lib.sh"

truncate -s 64M "$WORK/disk.img"
cat >"$WORK/job.fio" <<JOB
[global]
ioengine=libaio
direct=1
bs=4k
iodepth=32
runtime=3
ramp_time=1
time_based=1

[rr]
rw=randread

[rw]
rw=randwrite
stonewall
JOB

"$IOGAP" run --accel tcg --match-load --no-kernel-points --dir "$WORK/run" --target "file:$WORK/disk.img" \
	"$WORK/job.fio" >"$WORK/run.log" 2>&1
ok $? "iogap run --match-load (TCG)" "$WORK/run.log"
python3 - "$WORK/run" >"$WORK/iops" 2>&1 <<'PY'
import json, sys
run = sys.argv[1]
m = json.load(open(f"{run}/manifest.json"))
side = {s: {j["jobname"]: j["read"]["iops"] + j["write"]["iops"]
            for j in json.load(open(f"{run}/{s}/probe.json"))["jobs"]}
        for s in ("vm", "bare", "bare-matched")}
bad = m["phases"]["bare_matched"]["status"] != "ok"
for job, vm in side["vm"].items():
    mt, bare = side["bare-matched"][job], side["bare"][job]
    print(f"# {job}: VM {vm:.0f} IOPS, bare metal {bare:.0f}, bare metal matched {mt:.0f} "
          f"({100 * (mt / vm - 1):+.1f}%)")
    bad = bad or vm <= 0 or abs(mt / vm - 1) > 0.05
sys.exit(1 if bad else 0)
PY
st=$?
grep '^#' "$WORK/iops"
ok $st "bare-matched/ ran every job within 5% of the VM's IOPS" "$WORK/iops"

"$IOGAP" report "$WORK/run" --json "$WORK/run.json" >"$WORK/run.txt" 2>&1
st=$?
[ $st = 0 ] || [ $st = 3 ]   # 3: incomplete data, named on the first line
ok $? "report of it" "$WORK/run.txt"
mkdir "$WORK/unmatched" && cp -r "$WORK/run/bare" "$WORK/run/vm" "$WORK/run/manifest.json" "$WORK/unmatched/"
"$IOGAP" report "$WORK/unmatched" --json "$WORK/unmatched.json" >"$WORK/unmatched.txt" 2>&1
python3 - "$WORK/run.json" "$WORK/unmatched.json" >"$WORK/cmp" 2>&1 <<'PY'
import json, sys
m, u = (json.load(open(p)) for p in sys.argv[1:3])
bad = []
for jm, ju in zip(m["jobs"], u["jobs"]):
    lm, lu = jm["load"], ju["load"]
    ratio = max(lu["vm"]["iops"], lu["bare"]["iops"]) / min(lu["vm"]["iops"], lu["bare"]["iops"])
    print(f"# {jm['name']}: VM {lm['vm']['iops']:.0f} IOPS ({lm['vm']['in_flight']:.1f} in flight), "
          f"bare {lu['bare']['iops']:.0f} ({lu['bare']['in_flight']:.1f}), matched "
          f"{lm['bare_matched']['iops']:.0f} ({lm['bare_matched']['in_flight']:.1f}); unmatched ratio {ratio:.2f}")
    if lm["reference"] != "bare_matched" or lm["differs"] != 0:
        bad.append(f"{jm['name']}: matched run not the equal-load reference")
    if lu["reference"] != "bare" or lu["differs"] != (ratio > 1.1):
        bad.append(f"{jm['name']}: unmatched flag {lu['differs']} for ratio {ratio:.2f}")
    for dr in ("read", "write"):
        if dr not in jm or "gap" not in jm[dr]:
            continue
        gm, gu = jm[dr]["gap"]["contrib_ns"]["backend"], ju[dr]["gap"]["contrib_ns"]["backend"]
        print(f"#   {dr}: B - bare {gu / 1e3:+.1f} us at unequal load, {gm / 1e3:+.1f} us at equal load")
        if lu["differs"] and "not at equal load" not in ju[dr]["verdict"]:
            bad.append(f"{jm['name']} {dr}: flagged but the verdict does not say so")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
st=$?
grep '^#' "$WORK/cmp"
ok $st "matched: equal-load reference, no flag; unmatched: flagged exactly when IOPS differ > 10%" "$WORK/cmp"

# --- two CPU hogs beside QEMU ---------------------------------------------
hogs=()
for _ in 1 2; do sh -c 'while :; do :; done' & hogs+=($!); done
"$IOGAP" run --vm-only --accel tcg --no-kernel-points --dir "$WORK/hog" --target "file:$WORK/disk.img" \
	"$WORK/job.fio" >"$WORK/hog.log" 2>&1
st=$?
kill "${hogs[@]}"
ok $st "a VM run beside two CPU hogs" "$WORK/hog.log"
"$IOGAP" report --full "$WORK/hog" --json "$WORK/hog.json" >"$WORK/hog.txt" 2>&1
grep '^VM CPU' "$WORK/hog.txt" | sed 's/^/# /'
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
c = d['cpu']['vm']
sys.exit(0 if c['host_saturated_s'] > 0 and
         any(j['load']['vm']['cpu_saturated_pct'] > 0 for j in d['jobs']) else 1)" "$WORK/hog.json" &&
	grep -q "host CPU was saturated.*of the VM requests were submitted" "$WORK/hog.txt"
ok $? "report: the host named saturated, with the share of requests" "$WORK/hog.txt"
"$IOGAP" lint "$WORK/hog" >"$WORK/hog.lint" 2>&1
grep -q "^WARNING host-saturated: .*/vm: .*of the requests were submitted in a saturated second" "$WORK/hog.lint"
ok $? "lint: host-saturated" "$WORK/hog.lint"
finish
