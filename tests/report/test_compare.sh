#!/bin/bash
# iogap compare on synthetic runs (seeded, deterministic): a known 5%
# latency difference between one run a side "differs within runs" (never a
# bare "significant": run-to-run noise is not measured) and is significant
# between pooled runs; two samples of one distribution are within noise; fio
# JSON alone gives no interval for means (that would assume independent
# requests); the output does not change from run to run.  The intervals'
# calibration: test_compare_calibration.c.
. "$(dirname "$0")/lib.sh"

mk() { "$MKRUN" --dir "$WORK/$1" --bare-seconds 20 --mean-ns 80000 "${@:2}" >/dev/null; }
mk a --seed 1 --spec X && mk b --seed 2 --scale 1.05 --spec Y && mk c --seed 3 --spec X &&
	mk a2 --seed 4 --spec X && mk b2 --seed 5 --scale 1.05 --spec Y
ok $? "mkrun: five synthetic bare-metal runs (QD1, 20 s; b and b2 5% slower)"

# verdicts: DIR METRIC... -> "metric=verdict" lines
verdicts() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["comparisons"]:
    for m, v in c["metrics"].items():
        print(f'{c["dir"]} {m} {v["verdict"]} {v["method"]} {v["diff_pct"]:+.2f}% '
              f'[{100*v.get("ci_lo",float("nan"))/v["a"]:+.2f}%, {100*v.get("ci_hi",float("nan"))/v["a"]:+.2f}%]')
PY
}

"$IOGAP" compare "$WORK/a" "$WORK/b" --json "$WORK/ab.json" >"$WORK/ab.txt" 2>&1
ok $? "compare A B" "$WORK/ab.txt"
verdicts "$WORK/ab.json" >"$WORK/ab.v"
sed 's/^/# /' "$WORK/ab.v"
for m in iops lat_mean_ns clat_mean_ns clat_p50_ns clat_p99_ns; do
	[ "$(grep -c "^[a-z]* $m differs within runs" "$WORK/ab.v")" = 2 ]
	ok $? "5% slower, one run a side: $m differs within runs in both directions" "$WORK/ab.v"
done
! grep -q " significant " "$WORK/ab.v" && grep -q "run-to-run variation is not measured" "$WORK/ab.txt"
ok $? "one run a side: no bare \"significant\"; the note says what is not measured" "$WORK/ab.txt"
grep -q "^read iops differs within runs per-second batch means" "$WORK/ab.v" &&
	grep -q "^read clat_p99_ns differs within runs per-request histogram" "$WORK/ab.v"
ok $? "methods: per-second batch means for IOPS, per-request histogram for percentiles" "$WORK/ab.v"

"$IOGAP" compare "$WORK/a" "$WORK/c" --json "$WORK/ac.json" >"$WORK/ac.txt" 2>&1
verdicts "$WORK/ac.json" >"$WORK/ac.v"
sed 's/^/# /' "$WORK/ac.v"
! grep -v "within noise" "$WORK/ac.v" | grep -q . && [ -s "$WORK/ac.v" ]
ok $? "one distribution, two samples: every metric within noise" "$WORK/ac.v"

"$IOGAP" compare "$WORK/a" "$WORK/b" --json "$WORK/ab2.json" >"$WORK/ab2.txt" 2>&1
cmp -s "$WORK/ab.json" "$WORK/ab2.json" && cmp -s "$WORK/ab.txt" "$WORK/ab2.txt"
ok $? "deterministic: the same output twice (seeded bootstrap)"

"$IOGAP" compare "$WORK/a" "$WORK/b" "$WORK/a2" "$WORK/b2" --json "$WORK/pool.json" >"$WORK/pool.txt" 2>&1
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
g = d['groups']
sys.exit(0 if len(g) == 2 and len(g[0]['runs']) == 2 and len(g[1]['runs']) == 2 else 1)" "$WORK/pool.json"
ok $? "repeated runs of one configuration (manifest target.spec) are pooled: 2 groups of 2" "$WORK/pool.txt"
verdicts "$WORK/pool.json" >"$WORK/pool.v"
grep -q "^read lat_mean_ns significant between runs" "$WORK/pool.v" &&
	grep -q "^write iops significant between runs" "$WORK/pool.v"
ok $? "pooled, 2 + 2 runs: the 5% difference is significant between runs" "$WORK/pool.v"

"$IOGAP" compare "$WORK/a/bare/probe.json" "$WORK/b/bare/probe.json" --json "$WORK/f.json" >"$WORK/f.txt" 2>&1
verdicts "$WORK/f.json" >"$WORK/f.v"
grep -q "^read lat_mean_ns no interval none" "$WORK/f.v" &&
	grep -q "^read clat_mean_ns no interval none" "$WORK/f.v"
ok $? "fio JSON files alone, one run a side: no interval for means (no per-second data)" "$WORK/f.v"

# one paste, several runs: "name line, then fio's output", as in mail threads
FX=$IOGAP_SRC/tests/import/data
{ echo "v17.2.6 (before):"; cat "$FX/nvme-passthrough-baremetal.txt"; echo
  echo "v18.2.0 (after):"; cat "$FX/nvme-passthrough-vm.txt"; } >"$WORK/paste2.txt"
"$IOGAP" compare "$WORK/paste2.txt" --json "$WORK/p2.json" >"$WORK/p2.txt" 2>&1
rc=$?
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
g = d['groups']
c = d['comparisons']
sys.exit(0 if len(g) == 2 and g[0]['runs'][0].endswith('[v17.2.6-before]') and
         g[1]['runs'][0].endswith('[v18.2.0-after]') and c and
         c[0]['side_a'] == 'v17.2.6-before' and
         abs(c[0]['metrics']['iops']['diff_pct'] + 28.67) < 0.01 else 1)" "$WORK/p2.json" &&
	[ $rc = 0 ]
ok $? "a paste of two named fio outputs compares in one command (labels from the name lines)" "$WORK/p2.txt"

{ cat "$FX/nvme-passthrough-baremetal.txt"; cat "$FX/nvme-passthrough-vm.txt"; } >"$WORK/paste-bare.txt"
"$IOGAP" compare "$WORK/paste-bare.txt" >"$WORK/pb.txt" 2>&1 &&
	grep -q "paste-bare.txt\[run1\]" "$WORK/pb.txt" && grep -q "paste-bare.txt\[run2\]" "$WORK/pb.txt"
ok $? "a paste without name lines: runs labelled run1, run2" "$WORK/pb.txt"

# 3 + 3 runs, interleaved A B A B A B, run times differing a little
for i in 1 2 3; do
	echo "A"; sed "s#/120001msec)#/119${i}01msec)#" "$FX/nvme-passthrough-baremetal.txt"
	echo "B"; sed "s#/120001msec)#/119${i}51msec)#" "$FX/nvme-passthrough-baremetal.txt"
done >"$WORK/paste6.txt"
"$IOGAP" compare "$WORK/paste6.txt" --json "$WORK/p6.json" >"$WORK/p6.txt" 2>&1
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
g = d['groups']
m = d['comparisons'][0]['metrics']['iops']
sys.exit(0 if len(g) == 2 and len(g[0]['runs']) == 3 and len(g[1]['runs']) == 3 and
         m['method'].startswith('between runs') and m['scope'] == 'between-runs' and
         m['verdict'] == 'within noise' else 1)" "$WORK/p6.json"
ok $? "a paste of A B A B A B: runs of one name pooled (3 + 3), between-run interval, within noise" "$WORK/p6.txt"

for i in 1 2 3; do
	echo "A"; sed "s#/120001msec)#/119${i}01msec)#" "$FX/nvme-passthrough-baremetal.txt"
	echo "B"; sed "s#/120000msec)#/119${i}51msec)#" "$FX/nvme-passthrough-vm.txt"
done >"$WORK/paste6d.txt"
"$IOGAP" compare "$WORK/paste6d.txt" --json "$WORK/p6d.json" >"$WORK/p6d.txt" 2>&1
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
m = d['comparisons'][0]['metrics']['iops']
sys.exit(0 if m['verdict'] == 'significant' and m['ci_hi'] < 0 else 1)" "$WORK/p6d.json" &&
	grep -q "^  IOPS .*significant (B worse)" "$WORK/p6d.txt"
ok $? "3 + 3 pasted runs with a real 29% IOPS difference: significant (B worse), between runs" "$WORK/p6d.txt"

"$IOGAP" compare "$WORK/a" >"$WORK/u.txt" 2>&1
[ $? = 2 ]
ok $? "one run only: exit 2 with a message" "$WORK/u.txt"
"$IOGAP" compare "$WORK/a" "$WORK/nonexistent" >"$WORK/e.txt" 2>&1
[ $? = 1 ] && grep -q nonexistent "$WORK/e.txt"
ok $? "a missing run: exit 1 and which" "$WORK/e.txt"
finish
