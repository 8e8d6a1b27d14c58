#!/bin/bash
# iogap demo (what `make demo` runs): the seed profile, bare metal and VM,
# then the report: it must finish and print every phase with a verdict.
. "$(dirname "$0")/lib.sh"
echo "1..4"
"$IOGAP" demo --accel tcg --dir "$WORK/demo" > "$WORK/out" 2>&1
st=$?
ok $st "iogap demo finishes ($(grep -m1 'clock sanity' "$WORK/out"))"
# what made it fail, for the log: the run's messages and the report's first lines
[ $st = 0 ] || { echo "# exit $st"; grep -v '^ ' "$WORK/out" | head -40 | sed 's/^/# /'; }
manifest "$WORK/demo" 'm["phases"]["bare"]["status"] == "ok" and m["phases"]["vm"]["status"] == "ok"'
ok $? "both phases ok"
sections=$(grep -c '^== ' "$WORK/out"); verdicts=$(grep -c '^verdict: ' "$WORK/out")
[ "$sections" -ge 6 ] && [ "$verdicts" = "$sections" ]
ok $? "the report covers every job and direction of the six phases, each with a verdict ($sections)"
grep -Eq '^  (G->Q|GK->Q) ' "$WORK/out" && grep -q '^the gap: VM ' "$WORK/out"
ok $? "stage tables and the gap are printed"
finish
