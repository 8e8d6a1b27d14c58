#!/bin/bash
# Steady state beside fio 3.33: ss=, ss_dur=, ss_ramp= end a job once its
# IOPS or bandwidth holds steady over ss_dur, and the output carries fio's
# "steadystate" object and line.  Structure only: no timing is asserted
# beyond "ended before its runtime" (the null engine at a fixed rate).
. "$(dirname "$0")/lib.sh"
echo "1..12"
FIO=${FIO:-fio}
cd "$WORK" || exit 1
example=$(dirname "$0")/fio-examples/steadystate.fio
# KEY of job N of a JSON output file
jq_() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
# every key path of the steadystate objects, sorted
ss_keys() {
	python3 -c '
import json, sys
def walk(o, p):
    if isinstance(o, dict):
        for k, v in o.items():
            print(p + "/" + k)
            walk(v, p + "/" + k)
for j in json.load(open(sys.argv[1]))["jobs"]:
    walk(j.get("steadystate", {}), "steadystate")' "$1" | sort
}

# a stable workload: the null engine at a fixed rate
cat > stable.fio <<'EOF'
[stable]
ioengine=null
size=1g
time_based
runtime=60s
rate_iops=1000
ss=iops:20%
ss_dur=2s
EOF
"$PROBE" --output-format=json stable.fio > p.json 2> p.err
[ "$(jq_ p.json 'd["jobs"][0]["steadystate"]["attained"]')" = 1 ] &&
	[ "$(jq_ p.json 'd["jobs"][0]["job_runtime"] < 60000')" = True ] &&
	[ "$(jq_ p.json 'len(d["jobs"][0]["steadystate"]["data"]["iops"])')" = 2 ]
ok $? "ss=iops:20% ss_dur=2s: attained, the 60 s time_based job ended early ($(jq_ p.json 'd["jobs"][0]["job_runtime"]') ms), 2 samples $(cat p.err)"

"$FIO" --output-format=json stable.fio > f.json 2> /dev/null
[ -s f.json ] && [ -n "$(ss_keys f.json)" ] && [ "$(ss_keys p.json)" = "$(ss_keys f.json)" ]
ok $? "the JSON steadystate object has fio's keys ($(ss_keys p.json | tr '\n' ' '))"

"$PROBE" stable.fio > p.txt 2>&1
"$FIO" stable.fio > f.txt 2>&1
shape() { grep '^  steadystate  :' "$1" | sed -E 's/[0-9]+(\.[0-9]+)?/N/g'; }
[ -n "$(shape p.txt)" ] && [ "$(shape p.txt)" = "$(shape f.txt)" ]
ok $? "the normal output's line as fio's: $(grep steadystate p.txt)"

# the criterion and limit as fio writes them back, per form of ss=
forms=("ss=bw:1m" "ss=iops_slope:50" "steadystate=bw_slope:2.5%" "ss=iops:10%")
good=0
for f in "${forms[@]}"; do
	args=(--name=s --ioengine=null --size=64k "--$f" --ss_dur=3 --output-format=json)
	p=$("$PROBE" "${args[@]}" 2>&1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["steadystate"]["ss"])')
	q=$("$FIO" "${args[@]}" 2>&1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["steadystate"]["ss"])')
	[ -n "$p" ] && [ "$p" = "$q" ] && good=$((good + 1))
done
[ "$good" = ${#forms[@]} ]
ok $? "ss= limits parsed as fio (bytes/s, IOPS, percentages): $good of ${#forms[@]} equal"

"$PROBE" --name=s --ioengine=null --size=64k --steadystate_duration=4 --output-format=json > d.json 2>&1
[ "$(jq_ d.json 'd["jobs"][0]["steadystate"]["ss"]')" = "iops_slope:0.010000%" ] &&
	[ "$(jq_ d.json 'd["jobs"][0]["steadystate"]["duration"]')" = 4 ]
ok $? "ss_dur alone: fio's default criterion iops_slope:0.01%, duration 4"

# ss_ramp: no sample before it is over (plus fio's one second)
"$PROBE" --name=s --ioengine=null --size=1g --time_based --runtime=2 --rate_iops=100 \
	--ss=iops:50% --ss_dur=2 --ss_ramp=1h --output-format=json > r.json 2>&1
[ "$(jq_ r.json 'd["jobs"][0]["steadystate"]["attained"]')" = 0 ] &&
	[ "$(jq_ r.json 'd["jobs"][0]["steadystate"]["data"]["iops"]')" = "[0, 0]" ] &&
	[ "$(jq_ r.json 'd["jobs"][0]["job_runtime"] >= 2000')" = True ]
ok $? "ss_ramp=1h: no sample taken, not attained, the job ran its runtime"

# group_reporting: the group is judged as one, all its threads end
sed 's/^\[stable\]/[global]\ngroup_reporting\nnumjobs=3\n[grp]/; s/rate_iops=1000/rate_iops=300/' stable.fio > grp.fio
"$PROBE" --output-format=json grp.fio > g.json 2>&1
[ "$(jq_ g.json 'len(d["jobs"])')" = 1 ] && [ "$(jq_ g.json 'd["jobs"][0]["steadystate"]["attained"]')" = 1 ] &&
	[ "$(jq_ g.json 'd["jobs"][0]["steadystate"]["data"]["iops_mean"] > 450')" = True ] &&
	[ "$(jq_ g.json 'd["jobs"][0]["job_runtime"] < 3 * 60000')" = True ]
ok $? "group_reporting, numjobs=3: one verdict on the group's IOPS (mean $(jq_ g.json 'd["jobs"][0]["steadystate"]["data"]["iops_mean"]')), every thread ended early"

# bad values: file:line and the option
bad=("ss=frob:10%" "ss=iops" "ss=iops:many" "ss=bw:fast" "ss_dur=soon" "ss_ramp=-1" "steadystate_ramp_time=x")
bad_values_ok "${bad[@]}"

# fio's rule: a reporting group's threads share their steady-state options
printf '[a]\nioengine=null\nsize=1m\nss=iops:5%%\nss_dur=5\n[b]\nioengine=null\nsize=1m\n' > mixed.fio
! "$PROBE" mixed.fio > /dev/null 2> e.txt &&
	grep -q "mixed.fio:6: job 'b' rejected: steadystate options must be consistent within reporting groups" e.txt &&
	sed 's/^\[b\]/[b]\nnew_group/' mixed.fio > split.fio && "$PROBE" split.fio > /dev/null 2>&1
ok $? "steady-state options differing within a reporting group: refused ($(cat e.txt)); new_group splits them"

printf '[a]\nioengine=null\nsize=1m\nss=bw_slope:5%%\nss_dur=1\n' > one.fio
! "$PROBE" one.fio > /dev/null 2> e.txt && grep -q "one.fio:1: job 'a': ss=bw_slope needs ss_dur of at least 2 seconds" e.txt
ok $? "a slope over a 1 s window (fio never ends such a job): refused ($(cat e.txt))"

# fio's example: accepted, and run (its 5 minutes cut to 3 seconds)
"$PROBE" --parse-only "$example" 2> e.txt
ok $? "fio's examples/steadystate.fio accepted $(cat e.txt)"
sed 's/^runtime=5m/runtime=3s/' "$example" > ex.fio
"$PROBE" --output-format=json ex.fio > ex.json 2> e.txt &&
	[ "$(jq_ ex.json '[(j["jobname"], j["steadystate"]["ss"], j["steadystate"]["duration"], j["error"]) for j in d["jobs"]]')" = \
	  "[('ss-write', 'iops:10.000000%', 30, 0), ('ss-read', 'bw_slope:1.000000%', 10, 0)]" ]
ok $? "steadystate.fio runs: both groups report their steady state $(cat e.txt)"
finish
