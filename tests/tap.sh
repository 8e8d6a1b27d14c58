# TAP for shell tests (bash and POSIX sh): ok STATUS DESCRIPTION [DIAGNOSTIC-FILE],
# skip DESCRIPTION REASON, skip_all REASON, finish.  A failed check shows the end of its diagnostic file.
# shellcheck shell=sh
set -u
n=0
failed=0
ok() { # ok COND-EXIT-STATUS DESCRIPTION [DIAGNOSTIC-FILE]
	# one line, whatever an error message quoted into the description holds
	set -- "$1" "$(printf '%s' "$2" | tr '\n' ' ')" "${3:-}"
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else
		echo "not ok $n - $2"; failed=$((failed + 1))
		if [ -n "$3" ] && [ -f "$3" ]; then tail -n 40 "$3" | sed 's/^/# /'; fi
	fi
}
skip() { # skip DESCRIPTION REASON: a check this machine cannot make, counted as passed
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
finish() { exit $((failed > 0)); }
