# Shared helpers for the report/compare tests (TAP).
# shellcheck shell=bash
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
# the plan comes last: these tests count their checks as they go
finish() { echo "1..$n"; exit $((failed > 0)); }
# iogap, through tests/run/iogap-tcg: a run whose guest lost an I/O completion
# under TCG runs once more (the evidence on stderr)
export IOGAP_BIN=${IOGAP_BUILD:?}/host-tools/iogap
IOGAP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../run" && pwd)/iogap-tcg
MKRUN=$IOGAP_BUILD/tests/report/mkrun
WORK=$(mktemp -d "${TMPDIR:-/tmp}/iogap-report-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
