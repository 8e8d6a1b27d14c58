#!/bin/bash
# report and compare never overstate, never hang, on synthetic run directories
# (mkrun): a FIFO or a device where a run's file should be is refused at once;
# a phase a killed iogap left running or pending is incomplete data (exit 3);
# a run_id that is no run id is refused; compare refuses an interrupted run and
# another run's traces; no per-layer verdict over too few pairs or a buffered
# job, whose lint warning comes first.
. "$(dirname "$0")/lib.sh"

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }
# report DIR: text to DIR.txt, JSON to DIR.json, status in $rc; a reader
# that waits on a FIFO is stopped after a generous limit (status 124)
report() {
	timeout 300 "$IOGAP" report --full "$1" --json "$1.json" >"$1.txt" 2>"$1.err"
	rc=$?
}
compare() { # compare NAME RUN...: output to $WORK/NAME.cmp, status in $rc
	local name=$1
	shift
	timeout 300 "$IOGAP" compare "$@" >"$WORK/$name.cmp" 2>&1
	rc=$?
}
mkrun() { "$MKRUN" --vm 20000 --bare-seconds 1 --bare-iops 50000 "$@" >/dev/null 2>&1; }

mkrun --dir "$WORK/base"
mkrun --dir "$WORK/base2" --seed 2

# --- files that are no files -------------------------------------------------
cp -r "$WORK/base" "$WORK/fifo-manifest" && rm "$WORK/fifo-manifest/manifest.json" &&
	mkfifo "$WORK/fifo-manifest/manifest.json"
report "$WORK/fifo-manifest"
[ $rc = 1 ] && grep -q "manifest.json: not a regular file (a FIFO)" "$WORK/fifo-manifest.err"
ok $? "report: manifest.json a FIFO: refused at once (exit 1), named" "$WORK/fifo-manifest.err"
compare fifo-manifest "$WORK/base" "$WORK/fifo-manifest"
[ $rc = 1 ] && grep -q "manifest.json: not a regular file (a FIFO)" "$WORK/fifo-manifest.cmp"
ok $? "compare: manifest.json a FIFO: refused at once (exit 1), named" "$WORK/fifo-manifest.cmp"

for f in vm/top.trace bare/probe.trace vm/sync-after.txt; do
	d="$WORK/fifo-${f//\//-}"
	cp -r "$WORK/base" "$d" && rm "$d/$f" && mkfifo "$d/$f"
	report "$d"
	[ $rc = 1 ] && grep -q "$f: not a regular file (a FIFO)" "$d.err"
	ok $? "report: $f a FIFO: refused at once (exit 1), named" "$d.err"
done

cp -r "$WORK/base" "$WORK/zero" && rm "$WORK/zero/manifest.json" &&
	ln -s /dev/zero "$WORK/zero/manifest.json"
report "$WORK/zero"
[ $rc = 1 ] && grep -q "manifest.json: not a regular file (a character device)" "$WORK/zero.err"
ok $? "report: manifest.json -> /dev/zero: refused, not read without end" "$WORK/zero.err"
compare zero "$WORK/base" "$WORK/zero"
[ $rc = 1 ] && grep -q "not a regular file (a character device)" "$WORK/zero.cmp"
ok $? "compare: manifest.json -> /dev/zero: refused" "$WORK/zero.cmp"

# larger than any manifest (a sparse file: nothing is written or read)
cp -r "$WORK/base" "$WORK/huge" && truncate -s 300M "$WORK/huge/manifest.json"
report "$WORK/huge"
[ $rc = 3 ] && head -1 "$WORK/huge.txt" | grep -q "INCOMPLETE DATA.*no readable manifest.json (314572800 bytes, more than the limit of 256 MiB)"
ok $? "report: a 300 MB manifest.json: not read (its size said), incomplete data" "$WORK/huge.txt"

# --- a run iogap did not finish (kill -9) ------------------------------------
mkrun --dir "$WORK/running" --phase bare=ok --phase vm=running --phase bare_matched=pending
report "$WORK/running"
[ $rc = 3 ] && head -1 "$WORK/running.txt" | grep -q "INCOMPLETE DATA.*the vm phase still running" &&
	head -1 "$WORK/running.txt" | grep -q "the bare_matched phase still pending" &&
	json "$WORK/running.json" 'd["complete"] == 0 and len(d["incomplete"]) == 2' &&
	! grep -q "firm" "$WORK/running.txt"
ok $? "report: phases left running/pending: INCOMPLETE DATA first, exit 3, no firm verdict" "$WORK/running.txt"
compare running "$WORK/base" "$WORK/running"
[ $rc = 1 ] && grep -q "running: the vm phase still running.*its data is incomplete" "$WORK/running.cmp"
ok $? "compare: a run left running refused (exit 1), the phase named" "$WORK/running.cmp"

# --- compare: interrupted runs, another run's traces ---------------------------
mkrun --dir "$WORK/intr" --phase bare=ok --phase vm=interrupted
compare intr "$WORK/base" "$WORK/intr"
[ $rc = 1 ] && grep -q "intr: the vm phase interrupted (manifest.json)" "$WORK/intr.cmp"
ok $? "compare: an interrupted run refused (exit 1), the phase named" "$WORK/intr.cmp"
mkrun --dir "$WORK/foreign" --foreign vm/probe.trace
compare foreign "$WORK/base" "$WORK/foreign"
[ $rc = 1 ] && grep -q "traces from another run.*vm/probe.trace (run id 00000000bad0bad0)" "$WORK/foreign.cmp"
ok $? "compare: another run's trace refused (exit 1), named with its id" "$WORK/foreign.cmp"
compare good "$WORK/base" "$WORK/base2"
[ $rc = 0 ]
ok $? "compare: two complete runs of this kind still compared (exit 0)" "$WORK/good.cmp"

# --- a run_id that is no run id ------------------------------------------------
cp -r "$WORK/base" "$WORK/longid" &&
	sed -i 's/"run_id" : "\([0-9a-f]*\)"/"run_id" : "ffff\1"/' "$WORK/longid/manifest.json"
report "$WORK/longid"
[ $rc = 1 ] && grep -q 'run_id "ffff[0-9a-f]\{16\}" is not a run id' "$WORK/longid.err"
ok $? "report: a 20-digit run_id refused (exit 1), not cut to 64 bits" "$WORK/longid.err"
compare longid "$WORK/base" "$WORK/longid"
[ $rc = 1 ] && grep -q 'is not a run id' "$WORK/longid.cmp"
ok $? "compare: a 20-digit run_id refused (exit 1)" "$WORK/longid.cmp"

# --- verdicts only where the pairs support them -----------------------------------
report "$WORK/base"
[ $rc = 0 ] && grep -q "firm" "$WORK/base.txt" && ! grep -q "no per-layer verdict" "$WORK/base.txt"
ok $? "a complete run with every request paired: a firm verdict" "$WORK/base.txt"

# the guest's page cache absorbed 63 of 64 requests: few reach the filters
mkrun --dir "$WORK/few" --filter-every 64
report "$WORK/few"
json "$WORK/few.json" 'all("no per-layer verdict: only" in d["jobs"][0][x]["verdict"] and
	"a verdict needs at least half" in d["jobs"][0][x]["verdict"] for x in ("read", "write"))' &&
	! grep -q "firm" "$WORK/few.txt"
ok $? "about 1 in 64 requests paired: no per-layer verdict, the counts said, nothing firm" "$WORK/few.txt"

mkrun --dir "$WORK/buffered" --buffered
report "$WORK/buffered"
first=$(grep -n "^lint: WARNING buffered-async: .*job 'mixed': ioengine=libaio without direct=1" \
	"$WORK/buffered.txt" | cut -d: -f1)
table=$(grep -n "^== mixed (job 0), read ==" "$WORK/buffered.txt" | cut -d: -f1)
[ -n "$first" ] && [ -n "$table" ] && [ "$first" -lt "$table" ] &&
	json "$WORK/buffered.json" 'all("no per-layer verdict: the job ran without direct=1" in
		d["jobs"][0][x]["verdict"] for x in ("read", "write"))' &&
	! grep -q "firm" "$WORK/buffered.txt"
ok $? "a buffered job: lint's warning before the first table, no per-layer verdict" "$WORK/buffered.txt"
finish
