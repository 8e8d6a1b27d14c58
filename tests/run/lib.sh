# Shared helpers for the iogap run tests (TCG guests).
# shellcheck shell=bash
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
# iogap, through tests/run/iogap-tcg: a run whose guest lost an I/O completion
# under TCG runs once more (the evidence on stderr)
export IOGAP_BIN=${IOGAP_BUILD:?}/host-tools/iogap
IOGAP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../run" && pwd)/iogap-tcg
WORK=$(mktemp -d "$IOGAP_BUILD/run-test-XXXXXX")
# a probe stopped at its limit in any run of the test says where it waited
trap 'for d in "$WORK"/*/; do show_stuck "$d"; done; rm -rf "$WORK"' EXIT
# manifest DIR PYTHON-EXPR: evaluate EXPR with m = the manifest; exit 0 if true
manifest() {
	python3 -c "import json,sys; m=json.load(open('$1/manifest.json')); sys.exit(0 if ($2) else 1)"
}
# limited SECS CMD...: CMD, stopped (status 124) when it runs longer than
# SECS, after where it and its children waited is printed as TAP comments
# (fd 3, the test's own stdout): a hang in CI says where it was.
exec 3>&1
limited() {
	local secs=$1 pid tenths=0
	shift
	"$@" &
	pid=$!
	while kill -0 "$pid" 2> /dev/null; do
		if [ $tenths -ge $((secs * 10)) ]; then
			echo "# $* ran longer than $secs s; where it waited:" >&3
			where_waiting "$pid" | sed 's/^/# /' >&3
			kill -TERM $(pgrep -P "$pid") "$pid"; sleep 5
			kill -KILL $(pgrep -P "$pid") "$pid" 2> /dev/null
			wait "$pid"
			return 124
		fi
		sleep 0.1
		tenths=$((tenths + 1))
	done
	wait "$pid"
}
# where_waiting PID: each thread of PID and its descendants: name, state,
# kernel stack; user stacks too when gdb is installed
where_waiting() {
	local p t
	for p in $1 $(pgrep -P "$1"); do
		[ "$p" = "$1" ] || { where_waiting "$p"; continue; }
		echo "process $p: $(tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null | cut -c1-200)"
		for t in /proc/"$p"/task/*; do
			echo " thread ${t##*/} $(cat "$t/comm" 2> /dev/null)" \
				"$(grep '^State' "$t/status" 2> /dev/null)"
			sed 's/^/   /' "$t/stack" 2> /dev/null
		done
		command -v gdb > /dev/null &&
			timeout 30 gdb -p "$p" -batch -ex "thread apply all bt" 2> /dev/null | grep '^#\|^Thread'
	done
}
# show_stuck DIR: a probe of run DIR stopped at its limit: where its threads
# waited (SIDE/probe.stuck.txt) and the guest's last kernel messages
show_stuck() {
	local f
	for f in "$1"/*/probe.stuck.txt; do
		[ -f "$f" ] || continue
		echo "# ${f#"$1"/}:"; sed 's/^/#   /' "$f"
	done
	[ -f "$1/vm/probe.stuck.txt" ] && [ -f "$1/vm/dmesg.txt" ] &&
		{ echo "# vm/dmesg.txt:"; tail -n 30 "$1/vm/dmesg.txt" | sed 's/^/#   /'; }
	return 0
}
mval() { python3 -c "import json; m=json.load(open('$1/manifest.json')); print($2)"; }
# a short read phase and a write phase, as in the seed profile
job() { # job ENGINE
	cat <<JOB
[global]
ioengine=$1
direct=1
bs=4k
iodepth=4
size=32m
runtime=2
time_based=1

[rr]
rw=randread

[rw]
rw=randwrite
stonewall
JOB
}
