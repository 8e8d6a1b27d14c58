#!/bin/bash
# iogap demo (what `make demo` runs): the seed profile, bare metal, VM and bare
# metal at the VM's IOPS (--match-load), then the report: it must finish; the
# summary is the first thing after the run's lines and fits 24 lines with the
# demo's own line; every verdict compares at equal load; the report without
# --full stays within 60 lines; --full prints every phase with its verdict.
. "$(dirname "$0")/lib.sh"
echo "1..7"
"$IOGAP" demo --accel tcg --dir "$WORK/demo" > "$WORK/out" 2>&1
st=$?
ok $st "iogap demo finishes ($(grep -m1 'clock sanity' "$WORK/out"))"
# what made it fail, for the log: the run's messages and the report's first lines
[ $st = 0 ] || { echo "# exit $st"; grep -v '^ ' "$WORK/out" | head -40 | sed 's/^/# /'; }
manifest "$WORK/demo" 'all(m["phases"][p]["status"] == "ok" for p in ("bare", "vm", "bare_matched"))'
ok $? "the three phases ok (bare metal, VM, bare metal at the VM's IOPS)"
# the report's lines: from its first line to the end of the output
sed -n '/^iogap report: /,$p' "$WORK/out" >"$WORK/first"
lines=$(wc -l <"$WORK/first")
sed -n 2p "$WORK/first" | grep -q '^summary (' && [ "$lines" -le 24 ] &&
	tail -n1 "$WORK/first" | grep -q '^demo: seed profile (6 jobs) on file:.*, VM under tcg; on your own disk: iogap run --match-load'
ok $? "the summary follows the run's lines, with the demo's line: $lines lines" "$WORK/first"
! grep -q 'loads differ' "$WORK/first"
ok $? "no finding of different loads" "$WORK/first"
"$IOGAP" report --full "$WORK/demo" >"$WORK/full" 2>&1
sections=$(grep -c '^== ' "$WORK/full"); verdicts=$(grep -c '^verdict: ' "$WORK/full")
[ "$sections" -ge 6 ] && [ "$verdicts" = "$sections" ]
ok $? "--full covers every job and direction of the six phases, each with a verdict ($sections)"
[ "$verdicts" -ge 6 ] && ! grep -q 'not at equal load' "$WORK/full"
ok $? "no verdict says 'not at equal load'" "$WORK/full"
"$IOGAP" report "$WORK/demo" >"$WORK/short" 2>&1
grep -Eq '^  (G->Q|GK->Q) ' "$WORK/full" && grep -q '^the gap: VM ' "$WORK/full" &&
	[ "$(wc -l <"$WORK/short")" -le 60 ]
ok $? "stage tables and the gap with --full; $(wc -l <"$WORK/short") lines without" "$WORK/short"
finish
