# Shared helpers for the report/compare tests (TAP).
# shellcheck shell=bash
set -u
n=0
failed=0
ok() { # ok STATUS DESCRIPTION [diagnostic file]
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else
		echo "not ok $n - $2"; failed=$((failed + 1))
		if [ $# -ge 3 ] && [ -f "$3" ]; then sed 's/^/# /' "$3" | head -n 40; fi
	fi
}
finish() { echo "1..$n"; exit $((failed > 0)); }
IOGAP=${IOGAP_BUILD:?}/host-tools/iogap
MKRUN=$IOGAP_BUILD/tests/report/mkrun
WORK=$(mktemp -d "${TMPDIR:-/tmp}/iogap-report-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
