#!/bin/bash
# fio's own job-file tests: its t/run-fio-tests.py and t/jobs (fio 3.33,
# copied unchanged in tests/fio-t) run once with fio and once with the probe
# as the binary (-f).  Every test fio passes on this machine must pass with
# the probe; both counts are printed.  A test the probe cannot pass yet for
# want of an option named below is a TAP TODO: reported, with its reason,
# and it turns into a failure (an unexpected pass) once the option lands.
. "$(dirname "$0")/lib.sh"
FIO=${FIO:-/usr/bin/fio}
SRC=$(cd "$(dirname "$0")/../fio-t" && pwd)
command -v python3 > /dev/null || skip_all "python3 is not installed"
[ -x "$FIO" ] || skip_all "fio is not installed ($FIO)"

# the job-file tests (1000 and up run fio's own test programs), but for
# t0010 and t0013: jobs through io_submit_mode=offload that fio 3.33 itself
# does not finish here within the script's 600 s (and whose processes
# outlive the script's timeout)
TESTS="1 2 3 4 5 6 7 8 9 11 12 14 15 16 17 18 19 20 21 22 23 24 25 26"
# what the probe lacks for each test it does not pass yet
declare -A WANTS=(
)

# fio's root as the script expects it: t/ and the configure output it reads
# for CONFIG_LIBAIO (fio's Debian build has libaio when --enghelp lists it)
root=$WORK/root
mkdir -p "$root" && ln -s "$SRC/t" "$root/t"
if "$FIO" --enghelp | grep -qw libaio; then
	echo '#define CONFIG_LIBAIO 1' > "$root/config-host.h"
else
	: > "$root/config-host.h"
fi
run() { # run BINARY NAME: fio's script, its "Test N RESULT" lines in NAME.log
	# in a session of its own, so that nothing it started outlives it
	# shellcheck disable=SC2086
	(cd "$root" && exec setsid python3 t/run-fio-tests.py -r "$root" -f "$1" -a "$WORK/$2" \
		-o $TESTS) > "$WORK/$2.log" 2>&1 &
	local pid=$!
	wait "$pid"
	kill -KILL -- "-$pid" 2> /dev/null
}
result() { sed -n "s/^Test $2 \\([A-Z]*\\).*/\\1/p" "$WORK/$1.log"; }
reason() { sed -n "s/^Test $2 [A-Z]*:* *//p" "$WORK/$1.log" | cut -c1-200; }

run "$FIO" fio
run "$PROBE" probe
fio_pass=0 probe_pass=0 both=0 ran=0
for t in $TESTS; do
	f=$(result fio "$t") p=$(result probe "$t")
	[ "$f" = SKIPPED ] && continue
	ran=$((ran + 1))
	[ "$f" = PASSED ] && fio_pass=$((fio_pass + 1))
	[ "$p" = PASSED ] && probe_pass=$((probe_pass + 1))
	[ "$f" = PASSED ] || continue
	[ "$p" = PASSED ] && both=$((both + 1))
	n=$((n + 1))
	todo=${WANTS[$t]:+ # TODO needs ${WANTS[$t]}}
	if [ "$p" = PASSED ]; then
		echo "ok $n - test $t: fio passes, so does the probe$todo"
	else
		echo "not ok $n - test $t: fio passes, the probe: ${p:-no result} $(reason probe "$t")$todo"
		[ -z "$todo" ] && failed=$((failed + 1))
	fi
done
echo "1..$n"
echo "# fio 3.33 passes $fio_pass of the $ran job-file tests it runs here; the probe passes $probe_pass ($both of fio's $fio_pass)"
[ "$n" -gt 0 ] || { echo "not ok - fio passed no test: $(tail -3 "$WORK/fio.log")"; exit 1; }
finish
