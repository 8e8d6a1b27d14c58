#!/bin/bash
# fio's command line beside fio 3.33 itself: --max-jobs (accepted, ignored
# as fio ignores it), --showcmd, --parse-only, terse v2-v5 (--minimal,
# --output-format=terse, --terse-version, --append-terse), --status-interval,
# time_based without a runtime, --section, --readonly, --enghelp,
# --eta-interval/--eta-newline.
. "$(dirname "$0")/lib.sh"
echo "1..30"
FIO=${FIO:-fio}
cd "$WORK" || exit 1
cat > j.fio <<'JOB'
[global]
ioengine=psync
size=1m
[a]
rw=randread
bs=8k
filename=a.dat
[b]
rw=write
stonewall
filename=b.dat
JOB

"$PROBE" --max-jobs=16 --eta=never --name=x --size=64k --filename=m.dat > /dev/null
ok $? "--max-jobs=16 is accepted (run-fio-tests.py passes it on every call)"
! "$PROBE" --max-jobs=lots --name=x --size=64k 2> err.txt && grep -q "max-jobs" err.txt
ok $? "--max-jobs=lots is an error naming the option"

# JSON option lists of a command line: what precedes the first --name is
# "global options", a job's own list starts with its name
opts() { "$1" --ioengine=null --size=64k --name=x --rw=randread --bs=8k --name=y --output-format=json | sed -n '/^{/,$p' |
	python3 -c 'import json,sys; d = json.load(sys.stdin)
print(d.get("global options"), [j["job options"] for j in d["jobs"]])'; }
[ "$(opts "$PROBE")" = "$(opts "$FIO")" ]
ok $? "command-line JSON \"global options\" and \"job options\" equal fio's: $(opts "$PROBE")"

# group_reporting: the group's "job options" are its last job's, as fio's
gopts() { "$1" --ioengine=null --size=64k --group_reporting --name=x --rw=randread --name=y \
	--rw=write --output-format=json | sed -n '/^{/,$p' |
	python3 -c 'import json,sys; print([(j["jobname"], j["job options"]) for j in json.load(sys.stdin)["jobs"]])'; }
[ "$(gopts "$PROBE")" = "$(gopts "$FIO")" ]
ok $? "group_reporting: the group's name and \"job options\" equal fio's: $(gopts "$PROBE")"

[ "$("$PROBE" --showcmd j.fio)" = "$("$FIO" --showcmd j.fio)" ]
ok $? "--showcmd prints what fio prints ($("$FIO" --showcmd j.fio))"

"$PROBE" --parse-only j.fio && [ ! -e a.dat ] && [ ! -e b.dat ]
ok $? "--parse-only: exit 0, no file laid out"
printf '[x]\nrw=sideways\n' > bad.fio
! "$PROBE" --parse-only bad.fio 2> err.txt && grep -q "bad.fio:2" err.txt
ok $? "--parse-only reports a bad option with file:line"

"$PROBE" --minimal --name=t --size=1m --filename=t.dat > probe.terse &&
	"$FIO" --minimal --name=t --size=1m --filename=t.dat > fio.terse
python3 - probe.terse fio.terse <<'PY'
import sys
p = open(sys.argv[1]).read().rstrip("\n").split(";")
f = open(sys.argv[2]).read().rstrip("\n").split(";")
# 3;version;name;groupid;error; read kb, bw, iops, runtime; ...
same = [p[i] == f[i] for i in (0, 2, 3, 4, 5)]
# the same 20 percentile labels in the read block, and the same disk names
labels = lambda l: [x.split("=")[0] for x in l if "%=" in x]
sys.exit(0 if len(p) == len(f) and all(same) and labels(p) == labels(f) else 1)
PY
ok $? "--minimal: terse v3 with fio's field count, fields and percentile labels"
"$PROBE" --output-format=terse --name=t --size=1m --filename=t.dat > probe2.terse
[ "$(wc -l < probe2.terse)" = 1 ] && cut -d';' -f1,3,6 probe2.terse | grep -qx '3;t;1024'
ok $? "--output-format=terse: one line, version 3, 1024 KiB read"

"$PROBE" --minimal --name=g1 --size=64k --filename=t.dat --name=g2 --size=64k --filename=t.dat \
	--stonewall > two.terse
[ "$(cut -d';' -f3,4 two.terse | tr '\n' ' ')" = "g1;0 g2;1 " ]
ok $? "terse: one line per job with its group id"

"$PROBE" --output-format=terse,json --name=t --size=64k --filename=t.dat > both.out
head -1 both.out | grep -q '^3;' && tail -n +2 both.out | python3 -c 'import json,sys; json.load(sys.stdin)'
ok $? "terse,json: the terse line first, then the JSON document"

"$PROBE" --output-format=json --name=tb --time_based --size=256k --filename=tb.dat 2> tb.err > tb.json &&
	grep -q "time_based requires a runtime" tb.err &&
	python3 -c 'import json,sys; sys.exit(json.load(open("tb.json"))["jobs"][0]["read"]["total_ios"] != 64)'
ok $? "time_based without runtime: fio's warning, then one pass (64 I/Os) as fio"
# --status-interval: cumulative results every 500ms while the job runs (a
# rate-limited 2 s job), then the final ones; the count depends on timing
st=(--name=st --ioengine=null --size=1m --rate_iops=2000 --time_based --runtime=2 --status-interval=500ms)
"$PROBE" "${st[@]}" --minimal > st.terse
python3 - st.terse <<'PY'
import sys
kb = [int(l.split(";")[5]) for l in open(sys.argv[1])]
ok = len(kb) >= 3 and kb == sorted(kb) and kb[0] > 0 and kb[-1] == max(kb)
sys.exit(0 if ok else 1)
PY
ok $? "--status-interval=500ms: $(wc -l < st.terse) terse lines, read KiB growing ($(cut -d';' -f6 st.terse | tr '\n' ' '))"
"$PROBE" "${st[@]}" --status-interval=1 --output-format=json > st.json
python3 - st.json <<'PY'
import json, sys
text, docs, dec, i = open(sys.argv[1]).read(), [], json.JSONDecoder(), 0
while i < len(text):
    if text[i].isspace():
        i += 1
        continue
    d, i = dec.raw_decode(text, i)
    docs.append(d)
ios = [d["jobs"][0]["read"]["total_ios"] for d in docs]
sys.exit(0 if len(docs) >= 2 and ios == sorted(ios) and ios[0] < ios[-1] else 1)
PY
ok $? "--status-interval with JSON: one complete JSON document per dump, then the final one"

# --terse-version: each version has fio's field count for the same job
tj=(--name=t --ioengine=null --size=256k --rw=randrw)
for v in 2 3 4 5; do
	p=$("$PROBE" "${tj[@]}" --minimal --terse-version=$v | awk -F';' '{print NF}')
	f=$("$FIO" "${tj[@]}" --minimal --terse-version=$v | awk -F';' '{print NF}')
	[ -n "$p" ] && [ "$p" = "$f" ]
	ok $? "--terse-version=$v: $p fields, fio $f"
done
! "$PROBE" "${tj[@]}" --minimal --terse-version=6 2> err.txt && grep -q "terse-version" err.txt
ok $? "--terse-version=6 is an error naming the option"
out=$("$PROBE" "${tj[@]}" --output-format=json --append-terse)
[ "$(printf '%s\n' "$out" | grep -c '^3;')" = 1 ] && printf '%s\n' "$out" | grep -q '"jobs"'
ok $? "--append-terse adds the terse line to the JSON output"

# --section: only the named job runs; options of the others are not read
cat > s.fio <<'JOB'
[global]
ioengine=null
size=64k
[first]
rw=read
[second]
rw=write
no_such_option=1
JOB
[ "$("$PROBE" --section=first --minimal s.fio | cut -d';' -f3)" = first ]
ok $? "--section=first runs only job 'first', the other section unparsed"
! "$PROBE" --section=third s.fio 2> err.txt && grep -q "section" err.txt
ok $? "--section naming no job is an error"

# --readonly: writers and file layout refused before anything is touched
! "$PROBE" --readonly j.fio 2> err.txt && grep -q "readonly" err.txt && [ ! -e a.dat ]
ok $? "--readonly refuses a job file with a writing job ($(head -c 100 err.txt))"
! "$PROBE" --readonly --section=a j.fio 2> err.txt && grep -q "laid out" err.txt && [ ! -e a.dat ]
ok $? "--readonly refuses to lay out the reading job's file"

"$PROBE" --enghelp > eng.txt && head -1 eng.txt | grep -qx "Available IO engines:" &&
	grep -qx "$(printf '\tio_uring')" eng.txt && grep -qx "$(printf '\tpsync')" eng.txt
ok $? "--enghelp lists the engines as fio does"

# --eta-interval / --eta-newline: lines counted on a 2 s rate-limited job
"$PROBE" --eta=always --eta-interval=250ms --eta-newline=1 --name=e --ioengine=null \
	--size=1g --rate_iops=500 --runtime=2 --time_based > /dev/null 2> eta.txt
lines=$(tr '\r' '\n' < eta.txt | grep -c '^Jobs:')
newlines=$(grep -c 'Jobs:' eta.txt)
[ "$lines" -ge 4 ] && [ "$newlines" -ge 2 ]
ok $? "--eta-interval=250ms gives $lines progress lines in 2 s, --eta-newline=1 keeps $newlines"
! "$PROBE" --eta-interval=10ms --name=x --size=64k 2> err.txt && grep -q "eta-interval" err.txt
ok $? "--eta-interval under 250ms is an error, as in fio"

# triggers: the file (removed when seen) or the time stops a 60 s job, then the command runs
tr=(--name=t --ioengine=null --size=1g --time_based --runtime=60 --minimal)
(sleep 1; touch trig.now) &
"$PROBE" --trigger-file=trig.now --trigger="echo fired > fired.txt" "${tr[@]}" > trig.out
wait
[ "$(cut -d';' -f9 trig.out)" -lt 30000 ] && [ ! -e trig.now ] && grep -qx fired fired.txt
ok $? "--trigger-file stops the job after $(cut -d';' -f9 trig.out) ms, removes the file, runs --trigger"
"$PROBE" --trigger-timeout=1 "${tr[@]}" > trig.out
[ "$(cut -d';' -f9 trig.out)" -lt 30000 ]
ok $? "--trigger-timeout=1 stops the 60 s job (after $(cut -d';' -f9 trig.out) ms)"
! "$PROBE" --trigger-remote=x "${tr[@]}" 2> err.txt && grep -q "client/server" err.txt
ok $? "--trigger-remote is refused: fio's client/server mode"
finish
