#!/bin/bash
# The probe issues fio 3.33's system calls for the same job: a 4k O_DIRECT
# randread at QD32 of a fixed number of requests, run under strace -f -c by
# fio and by the probe; the submit and reap calls per request must agree.
#
# Tolerance: 0.05 calls per request (about 100 calls in 2048).  fio's
# pattern fixes each count up to the ends of the run (the queue filling to
# 32 with no reap, the last reap of what is in flight: 33 calls at most,
# 0.016 a request) and, for io_uring, the few waits where the completion was
# not posted yet when the queue filled (timing, a handful).  A different
# pattern moves a count by one call per request or more: reaping from the
# ring in user space where fio calls io_getevents takes it from 0.98 to 0.
# fio's polling modes spin on a call until a completion is there: how often
# is timing, so only the floor of one a request is checked there.
. "$(dirname "$0")/lib.sh"
echo "1..11"
FIO=${FIO:-fio}
cd "$WORK" || exit 1
N=2048
dd if=/dev/urandom of=d.dat bs=1M count=16 oflag=direct status=none 2> /dev/null ||
	head -c 16m /dev/urandom > d.dat
JOB=(--name=j --filename=d.dat --size=16m --bs=4k --rw=randread --direct=1 --iodepth=32
     --norandommap --randrepeat=0 "--number_ios=$N")
CALLS=io_submit,io_getevents,io_uring_enter,pread64

# count TOOL OUT OPTION...: TOOL runs the job with OPTIONs under strace; OUT
# gets "call=count" lines of CALLS, and the tool's own output beside it
count() {
	local tool=$1 out=$2
	shift 2
	# LeakSanitizer cannot run under ptrace: off for the ASan build's probe
	if ! ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -c -o "$out.st" -e trace=$CALLS "$tool" "${JOB[@]}" "$@" > "$out.log" 2>&1 ||
		! grep -q "read: IOPS=" "$out.log"; then
		echo "# $tool $*: $(tail -3 "$out.log")"
		return 1
	fi
	# strace -c: "% time seconds usecs/call calls [errors] syscall"
	awk -v calls=",$CALLS," '$1 ~ /^[0-9.]+$/ && index(calls, "," $NF ",") {print $NF "=" $4}' \
		"$out.st" > "$out"
}
# per OUT CALL: CALL's count per request in OUT (0 when not made)
per() { awk -F= -v c="$2" -v n=$N '$1 == c {x = $2} END {printf "%.3f", x / n}' "$1"; }
# agree TAG OPTIONS CALL...: fio and the probe with OPTIONS make each CALL as
# often a request, within 0.05
agree() {
	local tag=$1 opts=$2 c f p o good=0
	msg=""
	shift 2
	read -ra o <<< "$opts"
	count "$FIO" "$tag.fio" "${o[@]}" && count "$PROBE" "$tag.probe" "${o[@]}" &&
		for c in "$@"; do
			f=$(per "$tag.fio" "$c") p=$(per "$tag.probe" "$c")
			msg="$msg $c fio $f probe $p;"
			awk -v f="$f" -v p="$p" 'BEGIN {d = f - p; exit !(d < 0.05 && d > -0.05)}' || good=1
		done && return $good
}

agree libaio "--ioengine=libaio" io_submit io_getevents
ok $? "libaio: a submit and a reap call a request, as fio ($msg)"
[ "$(per libaio.probe io_getevents)" != 0.000 ] &&
	awk -v p="$(per libaio.probe io_getevents)" 'BEGIN {exit !(p > 0.9)}'
ok $? "libaio: io_getevents for nearly every request (fio's iodepth_batch_complete_max=1)"
agree ureap "--ioengine=libaio --userspace_reap=1" io_submit io_getevents
ok $? "libaio userspace_reap=1 alone still calls io_getevents, as fio ($msg)"
agree ureap0 "--ioengine=libaio --userspace_reap=1 --iodepth_batch_complete_min=0" io_submit io_getevents
ok $? "libaio userspace_reap=1 iodepth_batch_complete_min=0: reaped from the ring, as fio ($msg)"
agree bmax "--ioengine=libaio --iodepth_batch_complete_min=0 --iodepth_batch_complete_max=32" io_submit
ok $? "libaio iodepth_batch_complete_min=0 _max=32: submits as fio ($msg)"
agree bsub "--ioengine=libaio --iodepth_batch_submit=8" io_submit io_getevents
ok $? "libaio iodepth_batch_submit=8: as fio ($msg)"
agree poll "--ioengine=libaio --iodepth_batch_complete_min=0 --iodepth_batch_complete_max=0" io_submit &&
	awk -v f="$(per poll.fio io_getevents)" -v p="$(per poll.probe io_getevents)" \
		'BEGIN {exit !(f >= 1 && p >= 1)}'
ok $? "libaio polling (both _min and _max 0): a reap call or more after every request, as fio ($msg \
io_getevents fio $(per poll.fio io_getevents) probe $(per poll.probe io_getevents))"
grep -q "IO depths *: 1=100.0%" poll.fio.log && grep -q "IO depths *: 1=100.0%" poll.probe.log
ok $? "libaio polling: one request in flight, as fio ($(grep -h "IO depths" poll.*.log | tr -s ' '))"
agree uring "--ioengine=io_uring" io_uring_enter
ok $? "io_uring: one io_uring_enter a request, as fio ($msg)"
agree sqpoll "--ioengine=io_uring --sqthread_poll=1" io_uring_enter
ok $? "io_uring sqthread_poll: no io_uring_enter to submit or reap, as fio ($msg)"
# posixaio: glibc's helper thread makes the reads; the job thread's waits on
# it (futexes) follow the helper's timing, in fio as in the probe
agree posixaio "--ioengine=posixaio" pread64
ok $? "posixaio: one pread64 a request, as fio ($msg)"
finish
