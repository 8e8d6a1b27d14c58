# Shared helpers for the report/compare tests (TAP).
# shellcheck shell=bash
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
# the plan comes last: these tests count their checks as they go
finish() { echo "1..$n"; exit $((failed > 0)); }
IOGAP=${IOGAP_BUILD:?}/host-tools/iogap
MKRUN=$IOGAP_BUILD/tests/report/mkrun
WORK=$(mktemp -d "${TMPDIR:-/tmp}/iogap-report-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
