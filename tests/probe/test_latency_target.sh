#!/bin/bash
# latency_target, latency_window, latency_percentile, latency_run beside
# fio 3.33: the depth search and the line and JSON fields fio prints.
# Structure only: a target the null engine meets by far (1 s), and one it
# cannot (--null-latency-ns=5ms against 1 ms).
. "$(dirname "$0")/lib.sh"
echo "1..9"
FIO=${FIO:-fio}
cd "$WORK" || exit 1
jq_() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
lat_fields='[d["jobs"][0][k] for k in ("latency_depth", "latency_target", "latency_percentile", "latency_window")]'

cat > met.fio <<'EOF'
[met]
ioengine=null
size=1g
time_based
runtime=60s
iodepth=16
latency_target=1s
latency_window=100ms
latency_percentile=99
EOF
"$PROBE" --output-format=json met.fio > p.json 2> p.err
[ "$(jq_ p.json "$lat_fields")" = "[16, 1000000000, 99.0, 100000]" ] &&
	[ "$(jq_ p.json 'd["jobs"][0]["error"]')" = 0 ] &&
	[ "$(jq_ p.json 'd["jobs"][0]["job_runtime"] < 60000')" = True ]
ok $? "a target met at every depth: the search doubles to iodepth=16, then one final window ends the 60 s job ($(jq_ p.json 'd["jobs"][0]["job_runtime"]') ms) $(cat p.err)"

"$FIO" --output-format=json met.fio > f.json 2> /dev/null
[ "$(jq_ f.json "$lat_fields")" = "$(jq_ p.json "$lat_fields")" ]
ok $? "latency_depth, latency_target (ns), latency_percentile, latency_window (us): fio's values"

"$PROBE" met.fio > p.txt 2>&1
"$FIO" met.fio > f.txt 2>&1
line=$(grep '^     latency   :' p.txt)
[ "$line" = "     latency   : target=1000000000, window=100000, percentile=99.00%, depth=16" ] &&
	[ "$line" = "$(grep '^     latency   :' f.txt)" ]
ok $? "the normal output's line as fio's: $line"

sed 's/^runtime=60s/runtime=2s/' met.fio > run.fio && echo latency_run=1 >> run.fio
"$PROBE" --output-format=json run.fio > r.json 2> r.err
[ "$(jq_ r.json 'd["jobs"][0]["job_runtime"] >= 2000')" = True ] &&
	[ "$(jq_ r.json 'd["jobs"][0]["latency_depth"]')" = 16 ] && [ "$(jq_ r.json 'd["jobs"][0]["error"]')" = 0 ]
ok $? "latency_run=1: tuning goes on until the job's runtime, at depth 16 $(cat r.err)"

# the search's end is the job's, loops or not (fio's td->done); the report
# has the final window only
"$PROBE" --name=l --ioengine=null --size=64g --loops=3 --iodepth=8 --latency_target=1s \
	--latency_window=50ms --latency_percentile=99 --output-format=json > l.json 2> l.err
[ "$(jq_ l.json '[d["jobs"][0][k] for k in ("latency_depth", "error")]')" = "[8, 0]" ] &&
	[ "$(jq_ l.json 'd["jobs"][0]["read"]["io_bytes"] < 64 << 30')" = True ]
ok $? "loops=3: the search ends the job, whose report is its final window's ($(jq_ l.json 'd["jobs"][0]["read"]["io_bytes"] >> 20') MiB of 3 x 65536) $(cat l.err)"

# a target the null engine cannot meet: at depth 1 the job fails as fio's
args=(--name=slow --ioengine=null --size=1g --time_based --runtime=30 --iodepth=8 --latency_target=1ms)
"$PROBE" --null-latency-ns=5000000 "${args[@]}" --output-format=json > s.json 2> s.err
rc=$?
[ "$rc" != 0 ] && [ "$(jq_ s.json 'd["jobs"][0]["error"]')" = 110 ] &&
	[ "$(jq_ s.json "$lat_fields")" = "[1, 1000000, 100.0, 0]" ] &&
	grep -qE "^fio: latency of [0-9]+ nsec exceeds specified max \(1000000 nsec\): slow.0.0 read [0-9]+ 4096$" s.err
ok $? "a target missed at depth 1 (percentile 100): error 110 (ETIMEDOUT), exit $rc: $(head -1 s.err)"

"$PROBE" --null-latency-ns=5000000 "${args[@]}" > s.txt 2>&1
grep -q "^slow: (groupid=0, jobs=1): err=110 (max latency exceeded)" s.txt
ok $? "the normal output names it: $(grep -o 'err=110[^:]*' s.txt)"

# below percentile 100 a miss is counted, not fatal: the depth stays at 1
"$PROBE" --null-latency-ns=5000000 "${args[@]/--runtime=30/--runtime=1}" --latency_percentile=50 \
	--latency_window=50ms --output-format=json > h.json 2> h.err
[ "$(jq_ h.json 'd["jobs"][0]["error"]')" = 0 ] && [ "$(jq_ h.json 'd["jobs"][0]["latency_depth"]')" = 1 ] &&
	[ "$(jq_ h.json 'd["jobs"][0]["job_runtime"] >= 1000')" = True ]
ok $? "latency_percentile=50 with every I/O over the target: no error, depth 1, the job runs its runtime $(cat h.err)"

bad=("latency_target=soon" "latency_window=1x" "latency_percentile=101" "latency_percentile=-1"
     "latency_percentile=1:2" "latency_run=maybe")
bad_values_ok "${bad[@]}"
finish
