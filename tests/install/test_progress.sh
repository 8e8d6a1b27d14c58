#!/bin/bash
# iogap run's progress line: on a terminal (script -q gives it a pty) one
# line for the phase, with the phase count ("phase 1 of 1"), redrawn in place while it runs; on a pipe or file, and
# with --quiet, not one progress byte.  A 2 s bare-metal job on a null target.
. "$(dirname "$0")/../tap.sh"
IOGAP=${IOGAP_BUILD:?}/host-tools/iogap
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cat > "$W/job.fio" <<JOB
[r]
rw=randread
bs=4k
ioengine=null
size=16m
runtime=2
time_based=1
JOB
run() { # run DIR [OPTION...]: iogap run, bare metal only
	local d=$1
	shift
	"$IOGAP" run --bare-only --dir "$W/$d" --target null:16m "$@" "$W/job.fio"
}
# on_tty DIR [OPTION...]: the run in a pseudo-terminal; its output in $W/DIR.tty
on_tty() {
	local d=$1
	shift
	script -q -e -c "$(printf '%q ' "$IOGAP" run --bare-only --dir "$W/$d" --target null:16m "$@" "$W/job.fio")" \
		"$W/$d.tty" > /dev/null
}

echo "1..7"
on_tty tty
ok $? "the run succeeds in a pseudo-terminal"
draws=$(grep -o $'\r\e\\[Kiogap: phase 1 of 1: bare metal [0-9.]* s' "$W/tty.tty" | wc -l)
[ "$draws" -ge 3 ]
ok $? "the bare metal line, phase 1 of 1, is drawn and redrawn in place ($draws times in 2 s)"
grep -q $'iogap: phase 1 of 1: bare metal [0-9.]* s\r\n' "$W/tty.tty"
ok $? "the phase's line ends with a newline when the phase ends"
run pipe > "$W/pipe.out" 2> "$W/pipe.err"
ok $? "the run succeeds with stdout and stderr on files"
! grep -q -e $'\r' -e $'\e' -e 'bare metal [0-9.]* s' "$W/pipe.err" "$W/pipe.out"
ok $? "without a terminal: no progress bytes ($(wc -c < "$W/pipe.err") bytes on stderr)"
on_tty quiet --quiet
ok $? "--quiet: the run succeeds in a pseudo-terminal"
! grep -q -e $'\e\\[K' -e 'bare metal [0-9.]* s' "$W/quiet.tty"
ok $? "--quiet: no progress line on the terminal"
finish
