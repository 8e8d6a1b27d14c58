#!/bin/bash
# The report's numbers do not change when its internals do: `iogap report`
# (terminal with --full, --json and --html) and `iogap compare --json` on synthetic runs (mkrun,
# fixed seeds) against outputs recorded in golden/ before the analysis core
# was rewritten.  Only the run directory's name differs between runs.
# Regenerate (only when a change of numbers is intended and explained in the
# commit): IOGAP_GOLDEN_WRITE=1 tests/report/test_golden.sh
. "$(dirname "$0")/lib.sh"
GOLDEN=$(cd "$(dirname "$0")" && pwd)/golden

# name: mkrun options
runs=(
	"plain:--vm 100000 --bare-seconds 2"
	"truth:--vm 200000 --bare-seconds 5 --seed 7"
	"open-loop:--vm 100000 --bare-seconds 2 --bare-iops 50000 --mean-ns 1000"
	"matched:--vm 100000 --bare-seconds 2 --matched-iops 50000"
	"cpu-hog:--vm 100000 --bare-seconds 2 --bare-iops 50000 --cpu hog"
	"cpu-quiet:--vm 100000 --bare-seconds 2 --bare-iops 50000 --cpu quiet"
	"incomplete:--vm 100000 --bare-seconds 2 --bare-iops 50000 --open vm/top.trace"
	"vm-only:--vm 100000 --phase bare=ok --phase vm=failed"
	"bare-only:--bare-seconds 3 --mean-ns 50000"
)

# the run directory's name is the one thing that may differ
normalize() { sed "s#$WORK/##g"; }

check() { # name file
	if [ -n "${IOGAP_GOLDEN_WRITE:-}" ]; then
		cp "$2" "$GOLDEN/$1"
		ok 0 "golden/$1 written"
	elif cmp -s "$GOLDEN/$1" "$2"; then
		ok 0 "$1 as recorded"
	else
		diff -u "$GOLDEN/$1" "$2" | head -40 >"$WORK/$1.diff"
		ok 1 "$1 as recorded" "$WORK/$1.diff"
	fi
}

for r in "${runs[@]}"; do
	name=${r%%:*}
	# shellcheck disable=SC2086
	"$MKRUN" --dir "$WORK/$name" ${r#*:} >/dev/null 2>&1 || echo "# mkrun $name failed"
	(cd "$WORK" && "$IOGAP" report "$name" --full --json "$name.json" --html "$name.html" >"$name.txt" 2>&1)
	for f in txt json html; do
		normalize <"$WORK/$name.$f" >"$WORK/$name.report.$f"
		check "$name.report.$f" "$WORK/$name.report.$f"
	done
	(cd "$WORK" && "$IOGAP" compare plain "$name" --json "$name.cmp.json" >"$name.cmp.txt" 2>&1)
	if [ "$name" = vm-only ]; then
		# its VM phase failed: incomplete data, which compare does not pool
		grep -q "the vm phase failed" "$WORK/$name.cmp.txt"
		ok $? "compare refuses $name (a failed phase)" "$WORK/$name.cmp.txt"
		continue
	fi
	normalize <"$WORK/$name.cmp.json" >"$WORK/$name.compare.json"
	check "$name.compare.json" "$WORK/$name.compare.json"
done
(cd "$WORK" && "$IOGAP" compare plain truth matched >"$WORK/multi.txt" 2>&1)
normalize <"$WORK/multi.txt" >"$WORK/compare-multi.txt"
check compare-multi.txt "$WORK/compare-multi.txt"
finish
