#!/bin/bash
# A new stamp point takes one table entry plus its producer, nothing else
# (docs/timeline.md): report_extra_point is `iogap report` built with
# extra_point.def, a synthetic point a quarter into the backend.  On the
# same synthetic run as the plain report, its two new stages show in the
# text, JSON and HTML, replace B and sum to it, every other stage and the
# gap are unchanged, and the stages still sum to the total.
. "$(dirname "$0")/lib.sh"
XREPORT=$IOGAP_BUILD/tests/report/report_extra_point
NEW1='Q.bottom.in->T.quarter'
NEW2='T.quarter->Q.bottom.out'

"$MKRUN" --dir "$WORK/run" --vm 40000 --bare-seconds 2 >"$WORK/mkrun" 2>&1
ok $? "mkrun: a synthetic VM + bare-metal run" "$WORK/mkrun"
"$IOGAP" report --full "$WORK/run" --json "$WORK/plain.json" >"$WORK/plain.txt" 2>"$WORK/err"
ok $? "iogap report (the table as built)" "$WORK/err"
"$XREPORT" "$WORK/run" --full --json "$WORK/x.json" --html "$WORK/x.html" >"$WORK/x.txt" 2>"$WORK/err"
ok $? "report with the extra point" "$WORK/err"

python3 - "$WORK/plain.json" "$WORK/x.json" "$NEW1" "$NEW2" >"$WORK/why" 2>&1 <<'PY'
import json, sys
plain, x = (json.load(open(f)) for f in sys.argv[1:3])
new1, new2 = sys.argv[3:5]
bad = []
for dr in ("read", "write"):
    p, q = plain["jobs"][0][dr], x["jobs"][0][dr]
    ps, qs = p["stages"], q["stages"]
    if new1 in ps or new2 in ps:
        bad.append(f"{dr}: the plain build has the extra point's stages")
    want = [k for k in ps if k != "B"]
    want.insert(want.index("Q.fmt") + 1, new1)
    want.insert(want.index(new1) + 1, new2)
    if list(qs) != want:
        bad.append(f"{dr}: stages {list(qs)}, expected {want}")
        continue
    for k in ps:
        if k != "B" and ps[k] != qs[k]:
            bad.append(f"{dr}: stage {k} changed: {ps[k]} vs {qs[k]}")
    b, a1, a2 = ps["B"]["mean_ns"], qs[new1]["mean_ns"], qs[new2]["mean_ns"]
    if abs(a1 + a2 - b) > 1e-6 * b:
        bad.append(f"{dr}: {new1} + {new2} = {a1 + a2}, B = {b}")
    # the producer puts the point a quarter into B, rounded down to the ns
    if not (b / 4 - 1 <= a1 <= b / 4):
        bad.append(f"{dr}: {new1} = {a1}, expected B / 4 = {b / 4}")
    if set(q["share_pct"]) != {k for k in want if k not in ("not_paired", "G.submit", "total")} | {"sum"}:
        bad.append(f"{dr}: share_pct keys {list(q['share_pct'])}")
    if abs(q["share_pct"]["sum"] - 100) > 0.01 or abs(q["stage_sum_error_pct"]) > 0.01:
        bad.append(f"{dr}: stages sum to {q['share_pct']['sum']}% of the total "
                   f"(error {q['stage_sum_error_pct']}%)")
    pg, qg = p["gap"], q["gap"]
    if list(pg["contrib_ns"]) != list(qg["contrib_ns"]):
        bad.append(f"{dr}: gap rows {list(qg['contrib_ns'])} vs {list(pg['contrib_ns'])}")
    for k, v in pg["contrib_ns"].items():
        if abs(qg["contrib_ns"].get(k, 1e99) - v) > 1e-6 * abs(pg["gap_ns"]):
            bad.append(f"{dr}: gap row {k}: {qg['contrib_ns'].get(k)} vs {v}")
    print(f"# {dr}: B {b:.1f} ns = {new1} {a1:.1f} + {new2} {a2:.1f}; "
          f"backend row {qg['contrib_ns']['backend']:.1f} ns")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
ok $? "JSON: the two new stages replace B and sum to it; other stages and the gap unchanged" "$WORK/why"
grep "^# " "$WORK/why"

grep -q "^  $NEW1 *[0-9]" "$WORK/x.txt" && grep -q "^  $NEW2 *[0-9]" "$WORK/x.txt"
ok $? "text: the stage table has both new stages" "$WORK/x.txt"
grep -q "^  $NEW1 *[0-9.]*%" "$WORK/x.txt" && grep -q "^  $NEW2 *[0-9.]*%" "$WORK/x.txt"
ok $? "text: the share table has both new stages" "$WORK/x.txt"
grep -q "^  sum  *100.0%.*stages sum to [-+]0.000% of it" "$WORK/x.txt"
ok $? "text: the stages still sum to the total" "$WORK/x.txt"
grep -q "^  backend (B - bare) " "$WORK/x.txt"
ok $? "text: the gap still compares the backend (B) with bare metal" "$WORK/x.txt"
grep -q "<td>$NEW1</td>" "$WORK/x.html" && grep -q "<td>$NEW2</td>" "$WORK/x.html"
ok $? "HTML: the stage table has both new stages" "$WORK/x.html"
grep -q "class=\"lg\">$NEW1</text>" "$WORK/x.html" && grep -q "<title>$NEW2: " "$WORK/x.html"
ok $? "HTML: the stage chart has them (legend and bars)" "$WORK/x.html"
finish
