#!/bin/bash
# The report's fio-style summary against the probe's own fio JSON for one
# real probe run (null engine with a known latency, randrw, QD4, bare-metal
# side only): counts, bytes, slat/clat/lat min and max equal, means equal to
# fio's printed precision (1e-6), clat p50/p99 equal (the same histogram),
# IOPS = requests / the span of the requests, a span within the probe's
# runtime — docs/reports.md, "Throughput and the fio-style summary".
. "$(dirname "$0")/lib.sh"

mkdir -p "$WORK/run/bare"
"$IOGAP_BUILD/guest-probe/iogap-probe" --name=mix --ioengine=null --null-latency-ns=20000 \
	--size=64m --rw=randrw --bs=4k --iodepth=4 --runtime=1 --time_based --eta=never \
	--producer=bare --trace="$WORK/run/bare/probe.trace" --output-format=json+ \
	--output="$WORK/run/bare/probe.json" >"$WORK/probe.out" 2>&1
ok $? "probe run: null engine, latency 20 us, randrw, QD4, traced" "$WORK/probe.out"
# a probe run alone has no manifest: the report says so (exit 3) and still reports
"$IOGAP" report "$WORK/run" --json "$WORK/r.json" >"$WORK/r.txt" 2>&1
[ $? = 3 ] && grep -q 'no readable manifest.json' "$WORK/r.txt"
ok $? "iogap report of its run directory (incomplete: no manifest)" "$WORK/r.txt"
python3 - "$WORK/run/bare/probe.json" "$WORK/r.json" >"$WORK/why" 2>&1 <<'PY'
import json, sys
probe = json.load(open(sys.argv[1]))["jobs"][0]
rep = json.load(open(sys.argv[2]))["jobs"][0]
bad = []
def same(what, a, b, rel=0.0):
    good = abs(a - b) <= rel * abs(a)
    print(f"# {what}: probe {a}, report {b}" + ("" if good else "   <-- differs"))
    if not good: bad.append(what)
for dr in ("read", "write"):
    p, r = probe[dr], rep[dr]["bare"]
    same(f"{dr} requests", p["total_ios"], r["n"])
    same(f"{dr} bytes", p["io_bytes"], r["io_bytes"])
    for k in ("slat", "clat", "lat"):
        same(f"{dr} {k} min", p[k + "_ns"]["min"], r[k]["min_ns"])
        same(f"{dr} {k} max", p[k + "_ns"]["max"], r[k]["max_ns"])
        same(f"{dr} {k} mean", p[k + "_ns"]["mean"], r[k]["mean_ns"], 1e-6)
    for q, key in (("50.000000", "p50_ns"), ("99.000000", "p99_ns")):
        same(f"{dr} clat p{q[:2]}", p["clat_ns"]["percentile"][q], r["clat"][key])
    # IOPS: the report divides by the span of the job's requests, which lies
    # within the probe's runtime (fio's, in whole ms: + < 1 ms); fio by that runtime
    print(f"# {dr}: report IOPS {r['iops']}, its requests / its runtime {r['n'] / r['runtime_s']}")
    if abs(r["iops"] - r["n"] / r["runtime_s"]) > 1e-6 * r["iops"]: bad.append(f"{dr} IOPS")
    span_ok = r["runtime_s"] <= probe["job_runtime"] / 1e3 + 1e-3
    print(f"# {dr} runtime: probe {probe['job_runtime']} ms, report's span {r['runtime_s'] * 1e3:.3f} ms; "
          f"IOPS probe {p['iops']:.1f}, report {r['iops']:.1f}" + ("" if span_ok else "   <-- longer"))
    if not span_ok: bad.append(f"{dr} span")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
st=$?
grep '^#' "$WORK/why"
ok $st "fio-style summary = the probe's JSON: counts, bytes, min/max, means (1e-6), clat p50/p99, IOPS over a span within fio's runtime" "$WORK/why"
finish
