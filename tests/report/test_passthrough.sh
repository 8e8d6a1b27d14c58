#!/bin/bash
# iogap report of a VM without filter nodes (iogap run --passthrough,
# docs/passthrough.md), on synthetic runs (mkrun --passthrough): no filter
# traces, the guest kernel's points known (issued 3000 ns after the start,
# completing 4000 ns before the end, except every 10th and 50th request).
# The VM's stages are G.submit, G.kern, D, G.ret, all on the guest's clock
# (no error bar), the kernel-fed ones exactly the known times, summing to
# the total; every request counted (with every point, or left out as not
# paired); the gap compares G.kern with bare K.sub, D with bare D, G.ret
# with bare K.ret; at equal load the verdict names the device, at
# different loads none; without guest kernel points one stage against the
# bare total; text, HTML and JSON (valid by its schema) say passthrough.
. "$(dirname "$0")/lib.sh"

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }
jval() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
DIRS='for j in d["jobs"] for dr in ("read", "write")'

# mkrun_report NAME MKRUN-OPTIONS...: a synthetic passthrough run and its report
mkrun_report() {
	local name=$1; shift
	"$MKRUN" --dir "$WORK/$name" --vm 3000 --bare-seconds 0.3 --passthrough --spec file:/x "$@" \
		> "$WORK/$name.mkrun" 2>&1 &&
		"$IOGAP" report --full "$WORK/$name" --json "$WORK/$name.json" --html "$WORK/$name.html" \
			> "$WORK/$name.txt" 2>&1
}

mkrun_report eq --bare-iops 50000 --kernel-points vm,bare
ok $? "mkrun --passthrough and its report" "$WORK/eq.txt"
[ ! -e "$WORK/eq/vm/top.trace" ] && [ ! -e "$WORK/eq/vm/bottom.trace" ] &&
	json "$WORK/eq.json" 'd["passthrough"] == "nvme"'
ok $? "no filter traces; the report's JSON names the passthrough device"
json "$WORK/eq.json" "all(sorted(j[dr]['stages']) == ['D', 'G.kern', 'G.ret', 'G.submit', 'not_paired', 'total'] $DIRS)"
ok $? "VM stages: G.submit, G.kern, D, G.ret ($(jval "$WORK/eq.json" 'sorted(d["jobs"][0]["read"]["stages"])'))"
json "$WORK/eq.json" "all(j[dr]['stages'][k]['min_ns'] == j[dr]['stages'][k]['max_ns'] == v and
	j[dr]['stages'][k]['error_ns'] == 0 for k, v in (('G.kern', 3000), ('G.ret', 4000)) $DIRS)"
ok $? "G.kern 3000 ns and G.ret 4000 ns for every request, no clock error bar"
json "$WORK/eq.json" "sum(j[dr]['stages']['total']['n'] $DIRS) == d['kernel_points']['vm']['matched'] == 2640 and
	all(j[dr]['stages']['total']['n'] + j[dr]['stages']['not_paired'] == d['pairing'][dr]['guest'] $DIRS) and
	d['pairing']['read']['guest'] + d['pairing']['write']['guest'] == 3000"
ok $? "every request counted: 2640 with every point (matched in the guest kernel), the rest not paired"
json "$WORK/eq.json" "all(abs(j[dr]['stage_sum_error_pct']) < 1e-9 $DIRS)"
ok $? "the stages sum to the total exactly (one clock)"
json "$WORK/eq.json" "all(sorted(j[dr]['gap']['contrib_ns']) == ['G.kern', 'G.ret', 'device', 'other'] and
	not any(j[dr]['gap']['error_ns'].values()) $DIRS)"
ok $? "gap rows G.kern, device, G.ret (against bare K.sub, D, K.ret), no error bar"
json "$WORK/eq.json" "all(j[dr]['gap']['largest'] == 'device' and 'being slower in the VM (D ' in j[dr]['verdict'] and
	'measured on the guest\\'s clock alone' in j[dr]['verdict'] $DIRS)"
ok $? "equal load: the verdict names the device ($(jval "$WORK/eq.json" 'd["jobs"][0]["read"]["verdict"][:120]'))"
grep -q '^passthrough: nvme (no filter nodes' "$WORK/eq.txt" &&
	grep -q '^VM: [0-9]* requests, [0-9]* with every point (passthrough: no filter nodes) and matched in the guest kernel' "$WORK/eq.txt" &&
	grep -q '^  device (D - bare) ' "$WORK/eq.txt" && grep -q 'Passthrough: nvme' "$WORK/eq.html"
ok $? "text and HTML name it" "$WORK/eq.txt"

mkrun_report apart --bare-iops 20000 --kernel-points vm,bare
json "$WORK/apart.json" "all(j[dr]['gap']['largest'] == '' and
	j[dr]['verdict'].endswith('Every VM stage has its bare-metal counterpart: none is named.') $DIRS)"
ok $? "different loads: no stage named"
V=${IOGAP_SRC:?}/tests/install/validate.py
"$V" "$IOGAP_SRC/docs/schemas/report-1.schema.json" "$WORK/eq.json" "$WORK/apart.json" > "$WORK/schema.out" 2>&1
ok $? "both reports' JSON validate against the schema" "$WORK/schema.out"

mkrun_report nokp --bare-iops 50000 --kernel-points bare
json "$WORK/nokp.json" "all(sorted(j[dr]['stages']) == ['G.start->G.reap', 'G.submit', 'not_paired', 'total'] and
	sorted(j[dr]['gap']['contrib_ns']) == ['G.start->G.reap', 'other'] $DIRS)"
ok $? "without guest kernel points: one stage, against the bare total ($(jval "$WORK/nokp.json" 'sorted(d["jobs"][0]["read"]["gap"]["contrib_ns"])'))"
"$IOGAP" compare "$WORK/eq" "$WORK/apart" > "$WORK/cmp.txt" 2>&1 &&
	grep -q 'passthrough=nvme' "$WORK/cmp.txt"
ok $? "compare reads them (passthrough in their configuration)" "$WORK/cmp.txt"
finish
