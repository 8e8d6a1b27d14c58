#!/bin/bash
# io_uring's options with fio's meaning: each accepted and working (the job
# writes through the engine with the option, reads it back through it with
# verify, and fio checks the file), the registrations and the polling thread
# visible in the ring's fdinfo, hipri as fio does on the same file, and the
# options refused on other engines.  io_uring_cmd on the host (no NVMe
# here; tests/vm/test_uring_cmd.sh runs it on QEMU's): its options parse,
# and anything but an NVMe generic character device is refused up front.
. "$(dirname "$0")/lib.sh"
echo "1..16"
FIO=${FIO:-fio}
cd "$WORK" || exit 1
field() { python3 -c 'import json,sys
v = json.load(open(sys.argv[1]))["jobs"][0]
for k in sys.argv[2].split("."):
    v = v[k]
print(v)' "$@"; }

# write 1 MiB through io_uring with OPTS, read it back with verify (the same
# engine and options), then fio reads the file and checks every block
i=0
for opts in "fixedbufs" "registerfiles" "sqthread_poll" "sqthread_poll sqthread_poll_cpu=0" \
	    "nonvectored=0" "nonvectored=1" "fixedbufs registerfiles direct=1" \
	    "nonvectored=0 direct=1 sqthread_poll"; do
	i=$((i + 1))
	read -ra args <<< "${opts// / --}"
	"$PROBE" --output-format=json --name=w --filename=u.$i --size=1m --bs=4k --rw=randwrite \
		--ioengine=io_uring --iodepth=8 --verify=crc32c "--${args[@]}" > w.$i.json 2> w.$i.err &&
		[ "$(field w.$i.json error)" = 0 ] && [ "$(field w.$i.json write.total_ios)" = 256 ] &&
		[ "$(field w.$i.json read.total_ios)" = 256 ] &&
		"$FIO" --name=r --filename=u.$i --size=1m --bs=4k --rw=read --ioengine=psync \
			--verify=crc32c --output-format=json > r.$i.json 2> r.$i.err &&
		[ "$(field r.$i.json error)" = 0 ] && [ "$(field r.$i.json read.total_ios)" = 256 ]
	ok $? "io_uring $opts: 256 writes, 256 verified reads back, fio verifies the file ($(head -c 200 w.$i.err))"
done

# several files: every one registered, each request on its own file's index
"$PROBE" --output-format=json --name=m --filename=m.0:m.1:m.2 --size=768k --bs=4k \
	--rw=randwrite --ioengine=io_uring --iodepth=8 --registerfiles --verify=crc32c \
	> m.json 2> m.err && [ "$(field m.json error)" = 0 ] && [ "$(field m.json read.total_ios)" = 192 ] &&
	for k in 0 1 2; do
		"$FIO" --name=r --filename=m.$k --size=256k --bs=4k --rw=read --ioengine=psync \
			--verify=crc32c --output-format=json > mr.$k.json 2> /dev/null &&
			[ "$(field mr.$k.json error)" = 0 ] || exit 1
	done
ok $? "registerfiles over three files: 192 verified reads back, fio verifies each file ($(head -c 200 m.err))"

# the ring's fdinfo while a job runs: registered file and buffers, the SQ thread
ring_info() { # ring_info OUT OPTS...: fdinfo of the probe's ring once it has one, and its threads
	"$PROBE" --name=f --filename=u.1 --size=1m --bs=4k --rw=randread --ioengine=io_uring \
		--iodepth=8 --time_based --runtime=4 --output=/dev/null "${@:2}" &
	local pid=$! f tries
	: > "$1"
	for ((tries = 0; tries < 100; tries++)); do
		grep -q "^UserFiles:" "$1" && break   # (the kernel may skip the details at times)
		sleep 0.1
		# the job thread's own table of files (a fio job process's)
		for f in /proc/$pid/task/*/fd/*; do
			[ "$(readlink "$f")" = "anon_inode:[io_uring]" ] &&
				cat "${f%/fd/*}/fdinfo/${f##*/}" > "$1"
		done 2> /dev/null
	done
	sleep 0.2   # the SQ thread starts with the ring; give it a moment to show
	cat /proc/$pid/task/*/comm >> "$1"
	wait $pid
}
ring_info plain.info
ring_info opts.info --fixedbufs --sqthread_poll
grep -qx "UserFiles:	0" plain.info && grep -qx "UserBufs:	0" plain.info && ! grep -q iou-sqp plain.info
ok $? "without the options: no registered file or buffer, no SQ thread ($(grep -E 'User|SqThread:' plain.info | tr '\n\t' '  '))"
grep -qx "UserFiles:	1" opts.info && grep -qx "UserBufs:	8" opts.info && grep -q "^iou-sqp" opts.info
ok $? "fixedbufs + sqthread_poll: 8 buffers and the file registered (as fio, sqthread_poll registers it), a kernel SQ thread ($(grep -E 'User|SqThread:' opts.info | tr '\n\t' '  '))"

# hipri: polled completions need O_DIRECT on a device with poll queues; the
# probe ends like fio on the same file (an error such as EOPNOTSUPP, or success)
hp() { "$1" --name=h --filename=u.1 --size=1m --bs=4k --rw=randread --ioengine=io_uring \
	--iodepth=4 --direct=1 --hipri --output-format=json 2> /dev/null | sed -n '/^{/,$p' > "$2"; }
hp "$PROBE" hp-p.json; hp "$FIO" hp-f.json
[ "$(field hp-p.json error)" = "$(field hp-f.json error)" ] &&
	{ [ "$(field hp-p.json error)" != 0 ] || [ "$(field hp-p.json read.total_ios)" = 256 ]; }
ok $? "io_uring hipri: error $(field hp-p.json error) as fio's $(field hp-f.json error) on the same file"

! "$PROBE" --name=x --filename=u.1 --size=1m --ioengine=psync --fixedbufs 2> x.err &&
	grep -q "options of ioengine=io_uring and io_uring_cmd, not of psync" x.err &&
	! "$PROBE" --name=x --filename=u.1 --size=1m --ioengine=io_uring --nonvectored=x 2> y.err &&
	grep -q "nonvectored" y.err
ok $? "fixedbufs refused on psync, a bad nonvectored named: $(head -n 1 x.err); $(head -n 1 y.err)"

"$PROBE" --parse-only --name=c --filename=/dev/ng9n9 --ioengine=io_uring_cmd --cmd_type=nvme \
	--fixedbufs=1 --registerfiles=1 --sqthread_poll=1 --sqthread_poll_cpu=0 --nonvectored=0 \
	--hipri=1 2> c.err &&
	! "$PROBE" --parse-only --name=c --filename=u.1 --ioengine=io_uring_cmd --cmd_type=scsi 2> d.err &&
	grep -q "option 'cmd_type': bad value 'scsi' (expected nvme)" d.err &&
	! "$PROBE" --parse-only --name=c --filename=u.1 --ioengine=io_uring --cmd_type=nvme 2> e.err &&
	grep -q "cmd_type applies only to ioengine=io_uring_cmd" e.err
ok $? "io_uring_cmd: io_uring's options and cmd_type=nvme parse; $(head -n 1 d.err); $(head -n 1 e.err) $(head -c 200 c.err)"
! "$PROBE" --name=c --filename=u.1 --size=1m --ioengine=io_uring_cmd --rw=randread 2> f.err &&
	grep -q "u.1 is not a character device: the engine only works with NVMe namespace generic character devices" f.err &&
	! "$PROBE" --name=c --filename=/dev/zero --size=1m --ioengine=io_uring_cmd --rw=randread 2> g.err &&
	grep -q "/dev/zero is not an NVMe namespace (NVME_IOCTL_ID: Inappropriate ioctl for device)" g.err
ok $? "io_uring_cmd refuses a regular file and another character device: $(head -n 1 f.err); $(head -n 1 g.err)"
! "$PROBE" --name=c --filename=new.dat --size=1m --ioengine=io_uring_cmd --rw=randwrite 2> h.err &&
	grep -q "new.dat: No such file or directory" h.err && [ ! -e new.dat ]
ok $? "io_uring_cmd lays out no file: a missing one is an error ($(head -n 1 h.err)) and is not created"
finish
