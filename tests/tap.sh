# TAP for shell tests (bash): ok STATUS DESCRIPTION, skip_all REASON, finish.
# shellcheck shell=bash
set -u
n=0
failed=0
ok() { # ok COND-EXIT-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
finish() { exit $((failed > 0)); }
