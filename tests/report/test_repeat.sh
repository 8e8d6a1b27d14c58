#!/bin/bash
# iogap run --repeat N and compare on repeat directories: N whole runs into
# DIR/rep-K listed in DIR/repeat.json; `iogap compare A B` on two repeat
# directories pools each as one group (runs as the unit: between-run
# intervals); an interrupted repeat stops and still lists what ran.
# Bare-metal runs on a file (--bare-only): the VM phase is the same code;
# without kernel points (not the subject here).
. "$(dirname "$0")/lib.sh"
cd "$WORK" || exit 1
truncate -s 64M t.img
job() { # FILE [RATE]
	printf '[j]\nrw=randread\nbs=4k\nsize=32M\nioengine=psync\ndirect=1\nruntime=2\ntime_based=1\n%s' \
		"${2:+rate_iops=$2
}" >"$1"
}
# A and B rate-limited far below what reads of a sparse file reach even on a
# loaded machine: unlimited, A's runs varied 4x under load and hid B's step
job a.fio 20000
"$IOGAP" run --repeat 3 --bare-only --no-kernel-points --target file:t.img --dir A a.fio >a.out 2>&1
ok $? "iogap run --repeat 3: exit 0" a.out
python3 - A <<'PY' >check.out 2>&1
import json, os, sys
d = sys.argv[1]
r = json.load(open(f"{d}/repeat.json"))
assert r["iogap_repeat"] == 1 and r["planned"] == 3, r
assert [x["dir"] for x in r["runs"]] == ["rep-1", "rep-2", "rep-3"], r
assert all(x["exit_status"] == 0 for x in r["runs"]), r
for x in r["runs"]:
    m = json.load(open(f"{d}/{x['dir']}/manifest.json"))
    assert m["phases"]["bare"]["status"] == "ok", m["phases"]
    assert os.path.getsize(f"{d}/{x['dir']}/bare/probe.trace") > 0
ids = {json.load(open(f"{d}/{x['dir']}/manifest.json"))["run_id"] for x in r["runs"]}
assert len(ids) == 3, f"each run has its own id: {ids}"
PY
ok $? "repeat.json lists rep-1..3, each a complete run with its own run id" check.out
grep -q "run 2 of 3" a.out
ok $? "progress names the run (run K of N)" a.out

# B: the same job at half A's rate: a real difference
rate=10000
job b.fio "$rate"
"$IOGAP" run --repeat 3 --bare-only --no-kernel-points --target file:t.img --dir B b.fio >b.out 2>&1
ok $? "a second repeat directory (rate_iops=$rate)" b.out
"$IOGAP" compare A B --json cmp.json >cmp.txt 2>&1
ok $? "iogap compare A B" cmp.txt
python3 - <<'PY' >check.out 2>&1
import json
d = json.load(open("cmp.json"))
g = d["groups"]
assert len(g) == 2 and [len(x["runs"]) for x in g] == [3, 3], g
assert "repeat=A" in g[0]["config"] and "repeat=B" in g[1]["config"], g
m = d["comparisons"][0]["metrics"]["iops"]
assert "between runs" in m["method"], m
assert m["verdict"].startswith("significant"), m
PY
ok $? "two groups of 3 runs, IOPS compared between runs: significant" check.out

# one repeat directory alone: its runs compared with the first
"$IOGAP" compare A >one.txt 2>&1
ok $? "iogap compare on one repeat directory" one.txt
grep -q "A/rep-3" one.txt
ok $? "... lists its three runs" one.txt

# the top directory is claimed like a run directory
"$IOGAP" run --repeat 2 --bare-only --no-kernel-points --target file:t.img --dir A a.fio >busy.out 2>&1
[ $? -ne 0 ] && grep -q "not empty" busy.out
ok $? "a used repeat directory is refused without --force" busy.out
"$IOGAP" run --repeat 2 --bare-only --no-kernel-points --target file:t.img --dir A --force a.fio >force.out 2>&1
[ $? -eq 0 ] && python3 -c "
import json; r = json.load(open('A/repeat.json')); assert r['planned'] == 2 and len(r['runs']) == 2, r"
ok $? "--force reuses it: repeat.json now lists 2 runs" force.out

# bad counts
"$IOGAP" run --repeat 0 --bare-only --no-kernel-points --target file:t.img --dir Z a.fio >bad.out 2>&1
[ $? -eq 2 ] && grep -q "repeat" bad.out
ok $? "--repeat 0 is refused, naming the option" bad.out

# interrupted in its second run: stops, lists what ran, exit 128+SIGINT
job long.fio
sed -i 's/runtime=2/runtime=8/' long.fio
# the signal goes to iogap itself, not to iogap-tcg (bash) around it
"$IOGAP_BIN" run --repeat 3 --bare-only --no-kernel-points --target file:t.img --dir I long.fio >int.out 2>&1 &
pid=$!
for _ in $(seq 1 600); do [ -d I/rep-2/bare ] && break; sleep 0.1; done
sleep 1
kill -INT "$pid"
wait "$pid"
st=$?
[ "$st" = 130 ] && [ ! -d I/rep-3 ]
ok $? "SIGINT in run 2: exit 130, no run 3 (exit $st)" int.out
python3 -c "
import json
r = json.load(open('I/repeat.json'))
assert [x['exit_status'] for x in r['runs']] == [0, 130], r
" >check.out 2>&1
ok $? "repeat.json lists run 1 (0) and run 2 (130)" check.out
finish
