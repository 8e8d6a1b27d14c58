#!/bin/bash
# iogap report (and lint) telling the truth about their data, on synthetic run
# directories (mkrun): incomplete data named on the first line and in JSON
# (exit 3, no firm verdict); traces from another run refused, by name (exit
# 1); each side's load printed and a comparison at different loads flagged
# (backend not compared), a bare-matched/ side used as the reference; a
# saturated host CPU flagged with the share of requests (a busy vCPU alone is
# not); the backend advice per backend kind.
. "$(dirname "$0")/lib.sh"

# json FILE EXPR: evaluate a Python expression over the report's JSON (d)
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }
report() { # report DIR: text to DIR.txt, JSON to DIR.json, status in $rc
	"$IOGAP" report --full "$1" --json "$1.json" >"$1.txt" 2>"$1.err"
	rc=$?
}

# --- a whole run at equal load (bare open loop at the VM's ~50k IOPS) ----
"$MKRUN" --dir "$WORK/equal" --vm 100000 --bare-seconds 2 --bare-iops 50000 >/dev/null 2>&1
report "$WORK/equal"
[ $rc = 0 ] && json "$WORK/equal.json" 'd["complete"] == 1 and d["incomplete"] == []' &&
	head -1 "$WORK/equal.txt" | grep -qv INCOMPLETE
ok $? "a complete run: exit 0, JSON complete 1, no INCOMPLETE line" "$WORK/equal.txt"
json "$WORK/equal.json" 'd["jobs"][0]["load"]["differs"] == 0 and
	abs(d["jobs"][0]["load"]["vm"]["iops"] / d["jobs"][0]["load"]["bare"]["iops"] - 1) < 0.1 and
	d["jobs"][0]["load"]["vm"]["in_flight"] > 0' &&
	grep -q "^load (both directions.*VM [0-9]* IOPS, [0-9.]* in flight; bare metal [0-9]* IOPS" "$WORK/equal.txt" &&
	! grep -q "LOADS DIFFER\|not at equal load" "$WORK/equal.txt"
ok $? "equal loads: both loads printed (IOPS, in flight), no flag" "$WORK/equal.txt"

# --- incomplete data ------------------------------------------------------
"$MKRUN" --dir "$WORK/open" --vm 100000 --bare-seconds 2 --bare-iops 50000 --open vm/top.trace >/dev/null 2>&1
report "$WORK/open"
[ $rc = 3 ] && head -1 "$WORK/open.txt" | grep -q "INCOMPLETE DATA.*vm/top.trace was not closed by its writer" &&
	json "$WORK/open.json" 'd["complete"] == 0 and any("vm/top.trace" in r for r in d["incomplete"])'
ok $? "a trace without COMPLETE: exit 3, named on the first line and in JSON incomplete[]" "$WORK/open.txt"
# the same data complete gives a firm G->Q verdict; incomplete must not
grep -q "firm" "$WORK/equal.txt" && ! grep -q "firm" "$WORK/open.txt" &&
	json "$WORK/open.json" 'all(d["jobs"][0][x]["verdict"].startswith("PROVISIONAL") for x in ("read", "write"))'
ok $? "over incomplete data no verdict is firm, each says PROVISIONAL" "$WORK/open.txt"

"$MKRUN" --dir "$WORK/bopen" --vm 100000 --bare-seconds 2 --bare-iops 50000 --open bare/probe.trace >/dev/null 2>&1
report "$WORK/bopen"
[ $rc = 3 ] && head -1 "$WORK/bopen.txt" | grep -q "INCOMPLETE DATA.*bare/probe.trace was not closed by its writer" &&
	json "$WORK/bopen.json" 'd["complete"] == 0 and len(d["incomplete"]) == 1'
ok $? "a bare-metal trace without COMPLETE: exit 3, named" "$WORK/bopen.txt"

"$MKRUN" --dir "$WORK/intr" --vm 100000 --bare-seconds 2 --bare-iops 50000 --phase bare=ok --phase vm=interrupted >/dev/null 2>&1
report "$WORK/intr"
[ $rc = 3 ] && head -1 "$WORK/intr.txt" | grep -q "the vm phase interrupted" &&
	json "$WORK/intr.json" 'd["complete"] == 0 and len(d["incomplete"]) == 1'
ok $? "a phase recorded as interrupted in manifest.json: exit 3, named" "$WORK/intr.txt"

"$MKRUN" --dir "$WORK/failed" --vm 100000 --phase bare=ok --phase vm=failed >/dev/null 2>&1
report "$WORK/failed"
[ $rc = 3 ] && head -1 "$WORK/failed.txt" | grep -q "the vm phase failed" &&
	head -1 "$WORK/failed.txt" | grep -q "bare phase is ok in manifest.json but bare/probe.trace is missing"
ok $? "a failed phase and a missing side the manifest calls ok: both named" "$WORK/failed.txt"

# one request 50 ms longer (a stall) among ~100 us ones, in a run paired in
# windows (more guest requests than one holds, 256 k): the pairing horizon
# allows for the short ones; only the requests within reach of the stall
# are named as possibly paired differently (a few thousand of 300000)
"$MKRUN" --dir "$WORK/stall" --vm 300000 --bare-seconds 2 --bare-iops 50000 --stall 50000000 >/dev/null 2>&1
report "$WORK/stall"
near=$(head -1 "$WORK/stall.txt" | sed -n 's/.* \([0-9]*\) requests and [0-9]* filter records lie within [0-9.]* ms of a record longer than the pairing horizon allows for ([0-9.]* ms; 1 such records).*/\1/p')
[ $rc = 3 ] && [ -n "$near" ] && [ "$near" -gt 0 ] && [ "$near" -lt 10000 ] &&
	! grep -q "cut to the memory budget" "$WORK/stall.txt" &&
	json "$WORK/stall.json" 'd["complete"] == 0 and any("longer than the pairing horizon" in r for r in d["incomplete"])'
ok $? "a 50 ms stall: exit 3, the $near requests within reach of it named, no window cut" "$WORK/stall.txt"

# the same stall in a run one window holds (100000 requests): paired whole,
# so nothing is near it and the report is complete
"$MKRUN" --dir "$WORK/stall1" --vm 100000 --bare-seconds 2 --bare-iops 50000 --stall 50000000 >/dev/null 2>&1
report "$WORK/stall1"
[ $rc = 0 ] && json "$WORK/stall1.json" 'd["complete"] == 1 and d["incomplete"] == []'
ok $? "a 50 ms stall in a run paired in one window: exit 0, complete" "$WORK/stall1.txt"

# --- traces from another run ---------------------------------------------
for f in bare/probe.trace vm/probe.trace vm/top.trace vm/bottom.trace; do
	d="$WORK/foreign-${f//\//-}"
	"$MKRUN" --dir "$d" --vm 20000 --bare-seconds 1 --foreign "$f" >/dev/null 2>&1
	report "$d"
	[ $rc = 1 ] && grep -q "traces from another run.*$f (run id 00000000bad0bad0)" "$d.err" &&
		[ ! -s "$d.txt" ]
	ok $? "a foreign $f: refused (exit 1), named with its run id, no report" "$d.err"
done

# --- loads that differ ---------------------------------------------------
"$MKRUN" --dir "$WORK/qd" --vm 100000 --bare-seconds 2 >/dev/null 2>&1
report "$WORK/qd"
[ $rc = 0 ] && grep -q "^LOADS DIFFER by more than 10%" "$WORK/qd.txt" &&
	grep -q "backend (B - bare).*not comparable: the loads differ" "$WORK/qd.txt" &&
	json "$WORK/qd.json" 'd["jobs"][0]["load"]["differs"] == 1 and
		all(d["jobs"][0][x]["gap"]["largest"] != "backend" for x in ("read", "write"))'
ok $? "loads 5x apart: flagged, the backend row not comparable, never the largest term" "$WORK/qd.txt"
json "$WORK/qd.json" 'all("not at equal load" in d["jobs"][0][x]["verdict"] and
	"B is not compared with bare metal" in d["jobs"][0][x]["verdict"] and
	"--match-load" in d["jobs"][0][x]["verdict"] for x in ("read", "write"))'
ok $? "loads apart: the verdict says so, names both loads' IOPS and --match-load" "$WORK/qd.json"

"$IOGAP" report --full "$WORK/qd" --html "$WORK/qd.html" >/dev/null 2>&1 &&
	grep -q "not comparable: the loads differ" "$WORK/qd.html" &&
	grep -q "loads differ by more than 10%" "$WORK/qd.html"
ok $? "HTML: the load line and the backend row flagged" "$WORK/qd.html"
"$IOGAP" report --full "$WORK/open" --html "$WORK/open.html" >/dev/null 2>&1
[ $? = 3 ] && grep -q "Incomplete data, verdicts provisional:.*vm/top.trace" "$WORK/open.html"
ok $? "HTML: incomplete data said before the verdicts" "$WORK/open.html"

"$MKRUN" --dir "$WORK/matched" --vm 100000 --bare-seconds 2 --matched-iops 50000 >/dev/null 2>&1
report "$WORK/matched"
[ $rc = 0 ] && grep -q "^sides: .*bare metal at the VM's IOPS" "$WORK/matched.txt" &&
	json "$WORK/matched.json" '(l := d["jobs"][0]["load"])["reference"] == "bare_matched" and
		l["differs"] == 0 and "bare" in l and "bare_matched" in l and
		"bare_matched" in d["jobs"][0]["read"]' &&
	grep -q "the gap: VM .* - bare metal at the VM's IOPS" "$WORK/matched.txt" &&
	! grep -q "not at equal load" "$WORK/matched.txt"
ok $? "with bare-matched/: both bare-metal runs shown, the gap against the matched one, no flag" "$WORK/matched.txt"

# --match-load's job files: the VM's IOPS per clone after each job's header
printf '[global]\nbs=4k\n\n[mixed]\nrw=randrw\nnumjobs=2\n\n[other]\nrw=read\n' >"$WORK/rate.fio"
"$MKRUN" --dir "$WORK/rate" --vm 100000 --rate-jobs "$WORK/rate.fio" >"$WORK/rate.out" 2>&1
python3 - "$WORK/rate/vm/probe.json" "$WORK/rate/job0.fio" >"$WORK/why" 2>&1 <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
text = open(sys.argv[2]).read()
m = re.search(r"\[mixed\]\nrate_iops=(\d+),(\d+)\n", text)
print(f"# VM read {j['read']['iops']:.0f} write {j['write']['iops']:.0f} IOPS; job file:\n" +
      "".join("#   " + l + "\n" for l in text.splitlines()))
ok = m and all(abs(2 * int(m.group(i + 1)) / j[d]["iops"] - 1) < 0.01 for i, d in enumerate(("read", "write")))
sys.exit(0 if ok and text.count("rate_iops") == 1 and "numjobs=2" in text else 1)
PY
st=$?
[ $st = 0 ] && grep -q "^note job 'other' had no VM requests: not rate limited" "$WORK/rate.out"
ok $? "--match-load job file: rate_iops = the VM's IOPS per clone (numjobs=2), a job without VM requests named" "$WORK/why"

# --- host CPU saturation ---------------------------------------------------
"$MKRUN" --dir "$WORK/hog" --vm 100000 --bare-seconds 2 --bare-iops 50000 --cpu hog >/dev/null 2>&1
report "$WORK/hog"
[ $rc = 0 ] && json "$WORK/hog.json" '(c := d["cpu"]["vm"])["host_saturated_s"] == c["seconds"] > 0 and
	abs(c["others_mean_pct"] - 80) < 0.01 and
	d["jobs"][0]["load"]["vm"]["cpu_saturated_pct"] == 100' &&
	grep -q "^VM CPU: .*all cores busy (>= 95%) in [1-9]" "$WORK/hog.txt" &&
	grep -q "^verdict: mixed read: .*host CPU was saturated (all cores busy) while 100% of the VM requests" "$WORK/hog.txt"
ok $? "all cores busy: saturated seconds counted, others' use (2 x 100% - 100% - 20%), the verdict gives the share of requests" "$WORK/hog.txt"
"$IOGAP" lint "$WORK/hog" >"$WORK/hog.lint" 2>&1
[ $? = 1 ] && grep -q "^WARNING host-saturated: .*/vm: .*100% of the requests were submitted in a saturated second" "$WORK/hog.lint"
ok $? "lint: host-saturated warning with the share of requests" "$WORK/hog.lint"

"$MKRUN" --dir "$WORK/quiet" --vm 100000 --bare-seconds 2 --bare-iops 50000 --cpu quiet >/dev/null 2>&1
report "$WORK/quiet"
[ $rc = 0 ] && json "$WORK/quiet.json" '(c := d["cpu"]["vm"])["host_saturated_s"] == 0 and c["saturated_s"] == 0 and
	[t["role"] for t in c["busy_threads"]] == ["vcpu"] and d["jobs"][0]["load"]["vm"]["cpu_saturated_pct"] == 0' &&
	! grep -q "CPU was saturated" "$WORK/quiet.txt" && grep -q "vcpu thread 'CPU 0/TCG'.*not counted as saturation" "$WORK/quiet.txt"
ok $? "a quiet TCG-like run (vCPU at 100%, host half busy): not saturated, the busy vCPU named as a fact" "$WORK/quiet.txt"
"$IOGAP" lint "$WORK/quiet" >"$WORK/quiet.lint" 2>&1
! grep -q "host-saturated" "$WORK/quiet.lint" && grep -q "^INFO vcpu-busy" "$WORK/quiet.lint"
ok $? "lint on the quiet run: no host-saturated, an INFO vcpu-busy" "$WORK/quiet.lint"

cp -r "$WORK/quiet" "$WORK/badcpu" && echo "s 5 1 50" >>"$WORK/badcpu/vm/cpuload.txt"
report "$WORK/badcpu"
[ $rc = 1 ] && grep -q "vm/cpuload.txt:[0-9]*: not a cpuload line" "$WORK/badcpu.err"
ok $? "a malformed cpuload.txt: exit 1 naming file:line" "$WORK/badcpu.err"

# --- backend advice ---------------------------------------------------------
# bare at the VM's load but fast (mean 1 us): the backend term is the largest
for spec in rbd:pool/img file:/x null:1G,latency-ns=1000; do
	d="$WORK/advice-${spec%%:*}"
	"$MKRUN" --dir "$d" --vm 100000 --bare-seconds 2 --bare-iops 50000 --mean-ns 1000 --spec "$spec" >/dev/null 2>&1
	report "$d"
	case $spec in
	rbd:*) want='librbd.*rbd_cache.*OSD.*aio= does not apply to rbd'; kind=rbd ;;
	file:*) want='cache mode.*aio= .*iothreads'; kind=file ;;
	null:*) want='null-co is a synthetic backend'; kind=null ;;
	esac
	[ $rc = 0 ] && json "$d.json" "d['backend']['kind'] == '$kind' and
		d['jobs'][0]['read']['gap']['largest'] == 'backend'" &&
		grep "^verdict: mixed read: .*backend itself being slower" "$d.txt" | grep -q "$want"
	ok $? "backend advice for $kind: the verdict says '$want'" "$d.txt"
done
! grep -q "aio=" "$WORK/advice-rbd.json" || grep -q "aio= does not apply" "$WORK/advice-rbd.json"
ok $? "rbd advice never recommends aio=" "$WORK/advice-rbd.json"
finish
