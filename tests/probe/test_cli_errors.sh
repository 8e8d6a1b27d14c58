#!/bin/bash
# Bad input on the command line and in job files: a clear message naming
# the place and the option, a non-zero exit, never a crash.
. "$(dirname "$0")/lib.sh"
echo "1..8"
expect_fail() { # expect_fail WANT DESC ARGS...
	local want=$1 desc=$2; shift 2
	"$PROBE" --eta=never "$@" > "$WORK/o" 2> "$WORK/e"
	local rc=$?
	[ $rc = 1 ] && grep -qF -- "$want" "$WORK/e"
	ok $? "$desc: $(head -c 200 "$WORK/e")"
}
printf '[global]\nbs=4k\n[j]\nfilename=%s/f\nsize=1m\nrw=randread\nfancy_option=3\n' "$WORK" > "$WORK/bad.fio"
expect_fail "$WORK/bad.fio:7: option 'fancy_option' is not supported" "unknown option in a job file" "$WORK/bad.fio"
expect_fail "command line: option 'bogus' is not supported" "unknown option on the command line" --name=x --bogus=1
expect_fail "option 'bs': bad value '-4k'" "bad value on the command line" --name=x --bs=-4k
expect_fail "cannot open job file" "missing job file" "$WORK/none.fio"
expect_fail "no --name=JOB" "options without a job" --rw=read
expect_fail "is not normal, terse, json or json+" "unknown output format" --output-format=xml --name=x
expect_fail "does not exist (or is empty) and job 'x' gives no size" "no size and no file" --name=x --filename="$WORK/nothing"
expect_fail "block size 1048576 is larger than" "bs > file size" --name=x --filename="$WORK/f" --size=4k --bs=1m
finish
