#!/bin/bash
# iogap report on a synthetic run with a known truth (tests/align/synth.h:
# known stage latencies, clock offset and drift): --json schema keys, stage
# means against the truth, stages sum to the total, text tables, one-sided
# runs, errors.
. "$(dirname "$0")/lib.sh"

"$MKRUN" --dir "$WORK/run" --vm 200000 --bare-seconds 5 >"$WORK/truth" 2>&1
ok $? "mkrun: a synthetic VM + bare-metal run" "$WORK/truth"
"$IOGAP" report --full "$WORK/run" --json "$WORK/r.json" >"$WORK/r.txt" 2>"$WORK/r.err"
ok $? "iogap report --json" "$WORK/r.err"
python3 - "$WORK/r.json" >"$WORK/why" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
def need(obj, keys, where):
    for k in keys:
        if k not in obj: bad.append(f"{where}: missing {k}")
need(d, ["iogap_report", "run_dir", "have_vm", "have_bare", "accel", "null_latency_ns",
         "inject_delay_ns", "clock", "pairing", "jobs"], "top")
need(d["clock"], ["method", "offset_ns", "drift_ppb", "bound_lo_ns", "bound_hi_ns",
                  "bound_width_ns", "bound_consistent", "sync_uncertainty_ns", "stage_error_ns",
                  "stage_error_source"], "clock")
for dr in ("read", "write"):
    need(d["pairing"][dr], ["guest", "paired_top", "paired_bottom", "exact", "ambiguous",
                            "unpaired", "split", "merged"], "pairing." + dr)
j = d["jobs"][0]
need(j, ["name", "job_indices", "read", "write"], "job")
stat = ["n", "min_ns", "mean_ns", "stddev_ns", "p50_ns", "p90_ns", "p99_ns", "p99.9_ns",
        "max_ns", "negative"]
for dr in ("read", "write"):
    x = j[dr]
    need(x, ["vm", "bare", "stages", "share_pct", "stage_sum_ns", "stage_sum_error_pct", "gap",
             "verdict"], dr)
    for side in ("vm", "bare"):
        need(x[side], ["n", "errors", "io_bytes", "runtime_s", "iops", "bw_bytes", "slat", "clat",
                       "lat", "per_second"], f"{dr}.{side}")
        for k in ("slat", "clat", "lat"):
            need(x[side][k], stat, f"{dr}.{side}.{k}")
        need(x[side]["per_second"][0], ["t", "n", "bytes", "lat_mean_ns", "lat_p99_ns"], "per_second")
    need(x["stages"], ["not_paired", "G.submit", "G->Q", "Q.fmt", "B", "Q.ret", "Q->G", "total"],
         dr + ".stages")
    for s in ("G.submit", "G->Q", "Q.fmt", "B", "Q.ret", "Q->G", "total"):
        need(x["stages"][s], stat + ["error_ns"], f"{dr}.stages.{s}")
    need(x["share_pct"], ["G->Q", "Q.fmt", "B", "Q.ret", "Q->G", "sum"], dr + ".share_pct")
    need(x["gap"], ["vm_total_mean_ns", "bare_total_mean_ns", "gap_ns", "contrib_ns", "error_ns",
                    "largest"], dr + ".gap")
    need(x["gap"]["contrib_ns"], ["G->Q", "Q.fmt", "backend", "Q.ret", "Q->G", "other"], "contrib")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
ok $? "report --json: every key of the documented schema is there" "$WORK/why"

python3 - "$WORK/r.json" "$WORK/truth" >"$WORK/why" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
truth = {l.split()[1]: float(l.split()[2]) for l in open(sys.argv[2]) if l.startswith("truth ")}
bad = 0
for dr in ("read", "write"):
    st = d["jobs"][0][dr]["stages"]
    for s, t in truth.items():
        m, e = st[s]["mean_ns"], st[s]["error_ns"]
        tol = e + 0.02 * t
        print(f"# {dr} {s}: mean {m:.0f} ns, truth {t:.0f} ns, clock error bar {e:.0f}, tolerance {tol:.0f}")
        if abs(m - t) > tol: bad = 1
    tot = st["total"]["mean_ns"]
    ssum = sum(st[s]["mean_ns"] for s in truth)
    print(f"# {dr}: stages sum {ssum:.0f} ns, total {tot:.0f} ns")
    if abs(ssum - tot) > 0.01 * tot: bad = 1
sys.exit(bad)
PY
st=$?
grep '^#' "$WORK/why"
ok $st "synthetic truth: every stage mean within its clock error bar + 2%, stages sum to the total within 1%" "$WORK/why"

grep -q "^== mixed (job 0), read ==" "$WORK/r.txt" && grep -q "share of the VM total" "$WORK/r.txt" &&
	grep -q "^the gap: VM" "$WORK/r.txt" && grep -q "^verdict: " "$WORK/r.txt" &&
	grep -q "bare total" "$WORK/r.txt" && grep -q "IOPS=" "$WORK/r.txt"
ok $? "text: stage table, share table, gap, verdict, throughput" "$WORK/r.txt"

"$IOGAP" report --full "$WORK/run" --json - >"$WORK/stdout.json" 2>"$WORK/r.err" &&
	python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$WORK/stdout.json"
ok $? "--json -: JSON alone on stdout" "$WORK/stdout.json"

mkdir "$WORK/bare-only" && cp -r "$WORK/run/bare" "$WORK/run/manifest.json" "$WORK/bare-only/"
"$IOGAP" report --full "$WORK/bare-only" --json "$WORK/b.json" >"$WORK/b.txt" 2>&1 &&
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['have_vm']==0 and d['jobs'][0]['read']['bare']['n']>0 else 1)" "$WORK/b.json"
ok $? "a bare-metal-only run directory reports" "$WORK/b.txt"

mkdir "$WORK/vm-only" && cp -r "$WORK/run/vm" "$WORK/run/manifest.json" "$WORK/vm-only/"
"$IOGAP" report --full "$WORK/vm-only" >"$WORK/v.txt" 2>&1 && grep -q "no bare-metal run to compare with" "$WORK/v.txt"
ok $? "a VM-only run directory reports, its verdict says there is no bare-metal run" "$WORK/v.txt"

"$IOGAP" report --full "$WORK/nonexistent" >"$WORK/e.txt" 2>&1
[ $? = 1 ] && grep -q "no bare/ or vm/ results" "$WORK/e.txt"
ok $? "a directory without results: exit 1 and why" "$WORK/e.txt"
finish
