#!/bin/bash
# iogap compare on real probe runs (issue: "honest about what one run can
# say"): 3 s runs of one O_DIRECT psync job on a file, labelled A and B
# alternately (A B A B A B, so a drift of the machine hits both).  One run a
# side never yields a bare "significant"; pasted 3 + 3 runs are compared
# between runs, with an interval at least as wide as the spread of the run
# IOPS; a real difference (B rate-limited to 80% of A's rate) is significant.
# The verdicts on noise are printed, not asserted: they are statistics.
. "$(dirname "$0")/lib.sh"
PROBE=${IOGAP_PROBE:?}
F=$WORK/data
# fio's job file, the same for every run (rate_iops added for the limited ones)
job() { # LABEL OUTDIR [RATE]
	mkdir -p "$2/$1"
	"$PROBE" --name=j --filename="$F" --rw=randread --bs=4k --size=32M --direct=1 \
		--ioengine=psync --runtime=3 --time_based ${3:+--rate_iops=$3} \
		--output-format=normal --output="$2/$1.txt" --output-json="$2/$1/probe.json" \
		--trace="$2/$1/probe.trace" >/dev/null 2>"$2/$1.err"
}
paste_runs() { # OUT LABEL FILE [LABEL FILE]...: a name line, then fio's output, again
	local out=$1
	shift
	while [ $# -ge 2 ]; do
		echo "$1"
		cat "$2"
		shift 2
	done >"$out"
}

good=0
for i in 1 2 3; do
	job A "$WORK/r$i" && job B "$WORK/s$i" || good=1
done
ok $good "six 3 s runs of one job on a file (A B A B A B)" "$WORK/r1/A.err"

"$IOGAP" compare "$WORK/r1/A" "$WORK/s1/B" --json "$WORK/one.json" >"$WORK/one.txt" 2>&1
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
v = [m['verdict'] for c in d['comparisons'] for m in c['metrics'].values()]
s = [m['scope'] for c in d['comparisons'] for m in c['metrics'].values() if m['verdict'] != 'no interval']
print('# one run a side:', sorted(set(v)))
sys.exit(0 if v and 'significant' not in v and set(s) == {'within-run'} else 1)" "$WORK/one.json"
ok $? "one run a side (with traces): no verdict reads \"significant\"; every interval is within-run" "$WORK/one.txt"

paste_runs "$WORK/same.txt" A "$WORK/r1/A.txt" B "$WORK/s1/B.txt" A "$WORK/r2/A.txt" \
	B "$WORK/s2/B.txt" A "$WORK/r3/A.txt" B "$WORK/s3/B.txt"
"$IOGAP" compare "$WORK/same.txt" --json "$WORK/same.json" >"$WORK/same.out" 2>&1
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
g, m = d['groups'], d['comparisons'][0]['metrics']['iops']
runs = [json.load(open(p))['jobs'][0]['read']['iops'] for p in sys.argv[2:]]
spread = max(runs) - min(runs)
print('# same job, 3 + 3 runs: IOPS', ' '.join('%.0f' % r for r in runs), '-> diff %.0f, interval [%.0f, %.0f], %s' % (m['diff'], m['ci_lo'], m['ci_hi'], m['verdict']))
sys.exit(0 if len(g) == 2 and len(g[0]['runs']) == 3 and m['scope'] == 'between-runs' and
         m['ci_hi'] - m['ci_lo'] >= spread else 1)" "$WORK/same.json" "$WORK"/r?/A/probe.json "$WORK"/s?/B/probe.json
ok $? "a paste of A B A B A B (same job): pooled 3 + 3, between runs, interval spans the run IOPS' spread" "$WORK/same.out"

# a real difference: both sides rate-limited well below what the disk does,
# B at 80% of A's rate
good=0
for i in 1 2 3; do
	job A "$WORK/la$i" 1000 && job B "$WORK/lb$i" 800 || good=1
done
ok $good "six rate-limited runs: A at 1000 IOPS, B at 800" "$WORK/la1/A.err"
paste_runs "$WORK/limited.txt" A "$WORK/la1/A.txt" B "$WORK/lb1/B.txt" A "$WORK/la2/A.txt" \
	B "$WORK/lb2/B.txt" A "$WORK/la3/A.txt" B "$WORK/lb3/B.txt"
"$IOGAP" compare "$WORK/limited.txt" --json "$WORK/lim.json" >"$WORK/lim.out" 2>&1
python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))['comparisons'][0]['metrics']['iops']
print('# rate-limited: diff %.1f%%, interval [%.0f, %.0f], %s' % (m['diff_pct'], m['ci_lo'], m['ci_hi'], m['verdict']))
sys.exit(0 if m['verdict'] == 'significant' and m['ci_hi'] < 0 else 1)" "$WORK/lim.json"
ok $? "B rate-limited to 80% of A (3 + 3 runs): IOPS significant, B worse" "$WORK/lim.out"
finish
