#!/bin/bash
# iogap report --pairs FILE: one line per VM request, written as the pairs
# stream (docs/reports.md "Per-request output"): the header names the
# columns, one line per guest read/write in trace order, each request's
# pairing as the JSON counts it; write errors are reported.
. "$(dirname "$0")/lib.sh"

"$MKRUN" --dir "$WORK/run" --vm 20000 --bare-seconds 1 >"$WORK/mk" 2>&1
ok $? "mkrun: a synthetic VM + bare-metal run" "$WORK/mk"
"$IOGAP" report "$WORK/run" --pairs "$WORK/pairs" --json "$WORK/r.json" >/dev/null 2>"$WORK/err"
ok $? "iogap report --pairs" "$WORK/err"
python3 - "$WORK/pairs" "$WORK/r.json" >"$WORK/why" 2>&1 <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
cols = lines[0].split()
want = ["seq", "job", "op", "offset", "length", "ramp", "how", "g_start", "g_issue",
        "g_complete", "top_entry", "top_exit", "top_parts", "bottom_entry", "bottom_exit",
        "bottom_parts"]
if cols != want:
    sys.exit(f"header {cols}")
rows = [dict(zip(cols, l.split())) for l in lines[1:]]
if [int(r["seq"]) for r in rows] != list(range(len(rows))):
    sys.exit("seq is not 0, 1, 2, ... (trace order)")
p = json.load(open(sys.argv[2]))["pairing"]
for d in ("read", "write"):
    mine = [r for r in rows if r["op"] == d]
    how = lambda *h: sum(r["how"] in h for r in mine)
    got = {"guest": len(mine), "paired_top": how("tag", "key", "merged"), "exact": how("tag"),
           "merged": how("merged"), "ambiguous": how("ambiguous"),
           "paired_bottom": sum(r["bottom_parts"] != "0" for r in mine)}
    for k, v in got.items():
        if p[d][k] != v:
            sys.exit(f"{d} {k}: {v} lines, JSON {p[d][k]}")
for r in rows:
    if r["how"] == "tag" and not (int(r["g_start"]) <= int(r["top_entry"]) <= int(r["top_exit"])
                                 <= int(r["g_complete"])):
        sys.exit(f"times out of order: {r}")
print(f"{len(rows)} lines")
PY
ok $? "header names the columns; one line per guest read/write, in order; as the JSON counts" "$WORK/why"
[ "$(($(wc -l <"$WORK/pairs") - 1))" = 20000 ]
ok $? "20000 requests, 20000 lines"

"$IOGAP" report "$WORK/run" --pairs /dev/full >/dev/null 2>"$WORK/err"
[ $? = 1 ] && grep -q "/dev/full: write error" "$WORK/err"
ok $? "a write error: exit 1, named" "$WORK/err"
"$IOGAP" report "$WORK/run" --pairs "$WORK/no/such/dir/p" >/dev/null 2>"$WORK/err"
[ $? = 1 ] && grep -q "no/such/dir/p: No such file" "$WORK/err"
ok $? "an unwritable path: exit 1, named" "$WORK/err"
finish
