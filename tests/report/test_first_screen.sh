#!/bin/bash
# The report's first screen (docs/reports.md, "The summary"): on synthetic runs
# (mkrun) its rows and findings are the JSON's summary, rounded as printed; the
# gap and the largest stage are the jobs' own gap and verdict stage; without
# --full it is the whole text (no table, no verdict) and at most 24 lines; with
# --full the tables follow under one heading and each verdict is printed once;
# the findings name the fix (--match-load for different loads, direct=1 for
# buffered I/O).
. "$(dirname "$0")/lib.sh"

# name: mkrun options
runs=(
	"plain:--vm 50000 --bare-seconds 2"
	"open-loop:--vm 50000 --bare-seconds 2 --bare-iops 50000 --mean-ns 1000"
	"matched:--vm 50000 --bare-seconds 2 --matched-iops 50000"
	"cpu-hog:--vm 50000 --bare-seconds 2 --bare-iops 50000 --cpu hog"
	"incomplete:--vm 50000 --bare-seconds 2 --bare-iops 50000 --open vm/top.trace"
	"vm-only:--vm 50000 --phase bare=ok --phase vm=failed"
	"bare-only:--bare-seconds 2 --mean-ns 50000"
	"buffered:--vm 50000 --bare-seconds 2 --buffered"
)
for r in "${runs[@]}"; do
	name=${r%%:*}
	# shellcheck disable=SC2086
	"$MKRUN" --dir "$WORK/$name" ${r#*:} >"$WORK/$name.mkrun" 2>&1
	"$IOGAP" report "$WORK/$name" --json "$WORK/$name.json" >"$WORK/$name.txt" 2>&1
	[ $? -le 3 ] && [ -s "$WORK/$name.json" ]
	ok $? "$name: iogap report --json" "$WORK/$name.txt"
	python3 - "$WORK/$name.txt" "$WORK/$name.json" >"$WORK/$name.why" 2>&1 <<'PY'
import json, re, sys
text = open(sys.argv[1]).read().splitlines()
rep = json.load(open(sys.argv[2]))
summ, bad = rep["summary"], []
def pair(row, key, fmt, scale=1.0):
    return "/".join(fmt % (s[key] / scale) if s else "-" for s in (row.get("vm"), row.get("bare")))
start = next(i for i, l in enumerate(text) if l.startswith("summary ("))
rows = [l for l in text[start + 2:] if l.startswith("  ")]
finds = [l[2:] for l in text if l.startswith("! ")]
if len(rows) != len(summ["rows"]):
    bad.append(f"{len(rows)} rows printed, {len(summ['rows'])} in JSON")
for line, summ_row in zip(rows, summ["rows"]):
    f = line.split(None, 6)
    want = [summ_row["job"], summ_row["dir"], pair(summ_row, "iops", "%.0f"),
            pair(summ_row, "p50_ns", "%.1f", 1e3), pair(summ_row, "p99_ns", "%.1f", 1e3),
            "%+.1f" % (summ_row["gap_ns"] / 1e3) if "gap_ns" in summ_row else "-"]
    print(f"# printed {f[:6]}, JSON {want}")
    if f[:6] != want:
        bad.append(f"row {f[:6]} is not the JSON's {want}")
    for st in summ_row["largest_stages"]:
        words = "%s %.0f%%" % (st["stage"], st["share_pct"])
        if words not in line:
            bad.append(f"'{words}' missing from {line!r}")
    job = next(j for j in rep["jobs"] if j["name"] == summ_row["job"])[summ_row["dir"]]
    gap = job.get("gap")
    if gap and abs(gap["gap_ns"] - summ_row["gap_ns"]) > 1e-6 * abs(gap["gap_ns"]):
        bad.append(f"gap {summ_row['gap_ns']} is not the job's {gap['gap_ns']}")
    if gap and gap["largest"] and summ_row["largest_stages"] and summ_row["loads_comparable"]:
        top = summ_row["largest_stages"][0]["stage"]
        if top != gap["largest"] and not top.startswith("across"):
            bad.append(f"largest stage {top}, the verdict's {gap['largest']}")
want_f = [f"{x['what']}: {x['fix']}" for x in summ["findings"]]
print(f"# findings {finds}")
if finds != want_f:
    bad.append(f"findings {finds} are not the JSON's {want_f}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
	ok $? "$name: the summary's rows and findings are the JSON's numbers" "$WORK/$name.why"
	lines=$(wc -l <"$WORK/$name.txt")
	[ "$lines" -le 24 ] && ! grep -Eq '^(==|verdict:)' "$WORK/$name.txt" &&
		grep -q -- "--full$" "$WORK/$name.txt"
	ok $? "$name: without --full the summary alone ($lines lines), pointing at --full" \
		"$WORK/$name.txt"
	"$IOGAP" report --full "$WORK/$name" >"$WORK/$name.full" 2>&1
	sections=$(grep -c '^== ' "$WORK/$name.full"); verdicts=$(grep -c '^verdict: ' "$WORK/$name.full")
	# the same summary, its pointer to --full replaced by the details
	head -n $((lines - 1)) "$WORK/$name.full" | cmp -s - <(head -n $((lines - 1)) "$WORK/$name.txt") &&
		[ "$(grep -c '^==== details' "$WORK/$name.full")" = 1 ] &&
		{ [ "$verdicts" = "$sections" ] || [ "$name$verdicts" = bare-only0 ]; } &&
		[ -z "$(grep '^verdict: ' "$WORK/$name.full" | sort | uniq -d)" ]
	ok $? "$name: --full adds the tables under one heading, each verdict once ($verdicts)" \
		"$WORK/$name.full"
done
grep -q '^! loads differ by over 10% (every job).*iogap run --match-load' \
	"$WORK/plain.txt" && ! grep -q '^! loads differ' "$WORK/matched.txt"
ok $? "different loads: one finding with --match-load; none at the matched load" \
	"$WORK/plain.txt"
grep -q '^! buffered I/O (every job).*add direct=1' "$WORK/buffered.txt"
ok $? "buffered I/O: the finding says direct=1" "$WORK/buffered.txt"
grep -q '^! data incomplete' "$WORK/incomplete.txt" && grep -q '^! host CPU saturated' \
	"$WORK/cpu-hog.txt"
ok $? "incomplete data and a saturated CPU are findings" "$WORK/cpu-hog.txt"
finish
