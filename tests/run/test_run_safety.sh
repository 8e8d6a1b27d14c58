#!/bin/bash
# iogap run never harms the host: what the job file or the command line ask
# for never reaches past the run directory and the target.  Each case
# checks its message and exit status; at the end nothing outside the run
# directories changed and nothing of the test is left running.
. "$(dirname "$0")/lib.sh"
# the signals here go to iogap itself, not to iogap-tcg (bash) around it;
# the whole run goes through iogap-tcg (a lost completion under TCG)
TCG=$IOGAP
IOGAP=$IOGAP_BIN
TRACEFS=/sys/kernel/tracing
cleanup() {
	[ -n "${PID:-}" ] && kill -9 "$PID" 2> /dev/null
	# an instance a failed case left: stopped, then removed
	if [ -d "${instance:-}" ]; then echo 0 > "$instance/tracing_on"; rmdir "$instance"; fi
	rm -rf "$WORK"
}
trap cleanup EXIT
export IOGAP_RING_DIR=$WORK/rings
mkdir "$IOGAP_RING_DIR" "$WORK/outside"

job() { # job NAME RW RUNTIME [more options]
	printf '[%s]\nrw=%s\nbs=4k\nsize=1m\nruntime=%s\ntime_based=1\n' "$1" "$2" "$3"
	shift 3
	printf '%s\n' "$@"
}
job short randread 1 > "$WORK/short.fio"
job long randread 600 > "$WORK/long.fio"
job gone randread 1 unlink=1 > "$WORK/unlink.fio"
job loops randread 0 unlink_each_loop=1 loops=2 time_based=0 > "$WORK/loops.fio"
head -c 4194304 /dev/urandom > "$WORK/target.img"
head -c 65536 /dev/urandom > "$WORK/victim"
for f in probe.txt probe.json keep.txt; do head -c 4096 /dev/urandom > "$WORK/outside/$f"; done
cp "$WORK/target.img" "$WORK/inj.img\",\"locking\":\"off"
# everything outside the run directories, checked at the end
KEEP=("$WORK"/*.fio "$WORK"/*.img "$WORK"/victim "$WORK"/outside/* "$WORK"/inj.img*)
sums() { sha256sum "${KEEP[@]}"; }
sums > "$WORK/before.sums"
sha() { sha256sum < "$1"; }
t0=$(sha "$WORK/target.img")
procs() { pgrep -f -- "$1" | grep -cvx "$$"; }
until_ok() {
	local t=$1
	shift
	for _ in $(seq $((t * 10))); do "$@" && return 0; sleep 0.1; done
	return 1
}
status() { mval "$D" "m['phases']['$1']['status']"; }

# ---- unlink never reaches the target ----------------------------------------
for j in unlink loops; do
	D=$WORK/$j
	"$IOGAP" run --dir "$D" --bare-only --target "file:$WORK/target.img" "$WORK/$j.fio" \
		> /dev/null 2> "$D.err"
	RC=$?
	[ $RC = 0 ] && [ -f "$WORK/target.img" ] && [ "$(sha "$WORK/target.img")" = "$t0" ]
	ok $? "a read job with $j: exit $RC, the target is still there, unchanged" "$D.err"
	grep -q "asks for its file to be deleted (unlink): iogap run never deletes the target" "$D.err"
	ok $? "a read job with $j: iogap says it did not pass it on" "$D.err"
	[ -f "$WORK/target.img" ] || cp "$WORK/inj.img\",\"locking\":\"off" "$WORK/target.img"
done

# ---- what reaches QEMU's command line ----------------------------------------
D=$WORK/inject
"$IOGAP" run --accel tcg --vm-only --machine no-such-machine --dir "$D" \
	--target "file:$WORK/inj.img\",\"locking\":\"off" "$WORK/short.fio" > /dev/null 2> "$D.err"
RC=$?
[ $RC = 1 ] && grep -q "unsupported machine type" "$D.err" && ! grep -q "Could not open" "$D.err"
ok $? "a target named with JSON in it is the file of that name for QEMU too: exit $RC" "$D.err"
grep -q '"filename" : ".*/inj.img\\",,\\"locking\\":\\"off"' "$D/vm/qemu.cmdline"
ok $? "the name is a JSON string in -drive (quotes escaped, commas doubled)" "$D/vm/qemu.cmdline"
for opt in "--cache none,file.locking=off" "--aio native,file.locking=off" \
	"--machine pc,accel=kvm"; do
	# shellcheck disable=SC2086 # option and value
	"$IOGAP" run --dir "$WORK/opt" $opt --target "file:$WORK/target.img" "$WORK/short.fio" \
		2> "$WORK/opt.err"
	RC=$?
	[ $RC = 2 ] && [ ! -e "$WORK/opt" ]
	ok $? "$opt: refused before anything, exit $RC: $(cat "$WORK/opt.err")"
done

# fio's region of a job with clones: the last one starts at
# offset + offset_increment x (numjobs-1); past the 4 MiB target it would grow
# the file on bare metal and run off the VM's disk: refused before anything
printf '[clones]\nrw=randwrite\nbs=4k\nsize=1m\nnumjobs=4\noffset_increment=2m\n' > "$WORK/clones.fio"
"$IOGAP" run --dir "$WORK/cl" --target "file:$WORK/target.img" "$WORK/clones.fio" 2> "$WORK/cl.err"
RC=$?
[ $RC = 1 ] && [ "$(sha "$WORK/target.img")" = "$t0" ] &&
	grep -q "offset_increment x (numjobs-1) + size (7340032 bytes) is larger than" "$WORK/cl.err"
ok $? "numjobs=4 offset_increment=2m size=1m on 4 MiB: refused before any I/O, exit $RC" "$WORK/cl.err"
printf '[app]\nrw=write\nbs=4k\nsize=64k\nfile_append=1\n' > "$WORK/append.fio"
"$IOGAP" run --dir "$WORK/ap" --target "file:$WORK/target.img" "$WORK/append.fio" 2> "$WORK/ap.err"
RC=$?
[ $RC = 1 ] && [ "$(sha "$WORK/target.img")" = "$t0" ] && grep -q "file_append=1 writes past the end of a regular file" "$WORK/ap.err"
ok $? "file_append=1 on a target the VM sees as a disk: refused, exit $RC" "$WORK/ap.err"

# ---- the run directory: --force and the lock ---------------------------------
D=$WORK/linked
mkdir "$D" && echo '{}' > "$D/manifest.json" && ln -s "$WORK/outside" "$D/vm"
"$IOGAP" run --force --dir "$D" --bare-only --target null:64m "$WORK/short.fio" > /dev/null 2> "$D.err"
RC=$?
[ $RC = 1 ] && grep -q "$D/vm: .*not a directory iogap made" "$D.err" &&
	[ -f "$WORK/outside/probe.txt" ] && [ -f "$WORK/outside/keep.txt" ]
ok $? "--force with vm/ a link out of the run directory: refused, nothing removed: $(cat "$D.err")"

D=$WORK/stranger
mkdir -p "$D/bare" && echo data > "$D/bare/notes.txt" && echo '{}' > "$D/manifest.json"
"$IOGAP" run --force --dir "$D" --bare-only --target null:64m "$WORK/short.fio" > /dev/null 2> "$D.err"
RC=$?
[ $RC = 1 ] && grep -q "bare/notes.txt was not written by iogap" "$D.err" && [ -f "$D/bare/notes.txt" ]
ok $? "--force with a file iogap does not write in bare/: refused, kept: $(cat "$D.err")"

D=$WORK/here
mkdir "$D" && job job1 randread 1 > "$D/job1.fio" && cp "$D/job1.fio" "$WORK/job1.copy"
(cd "$D" && "$IOGAP" run --force --dir . --bare-only --target null:64m job1.fio) \
	> /dev/null 2> "$D.err"
RC=$?
[ $RC = 1 ] && grep -q "job1.fio is .*/job1.fio, where iogap writes its own file" "$D.err" &&
	cmp -s "$D/job1.fio" "$WORK/job1.copy"
ok $? "--force --dir . with the job file named like iogap's copies: refused, kept: $(cat "$D.err")"
mv "$D/job1.fio" "$D/my.fio"
(cd "$D" && "$IOGAP" run --force --dir . --bare-only --target null:64m my.fio) > /dev/null 2> "$D.err"
RC=$?
[ $RC = 0 ] && cmp -s "$D/my.fio" "$WORK/job1.copy" && [ "$(status bare)" = ok ]
ok $? "--force --dir . with my.fio: exit $RC, the job file kept" "$D.err"

D=$WORK/locklink
mkdir "$D" && ln -s "$WORK/victim" "$D/.iogap-run.lock"
"$IOGAP" run --dir "$D" --bare-only --target null:64m "$WORK/short.fio" > /dev/null 2> "$D.err"
RC=$?
[ $RC = 1 ] && grep -q "symbolic link" "$D.err" && [ "$(stat -c %s "$WORK/victim")" = 65536 ]
ok $? ".iogap-run.lock a symlink: refused, what it points to untouched: $(cat "$D.err")"
D=$WORK/nonempty
mkdir "$D" && echo data > "$D/data.txt"
"$IOGAP" run --dir "$D" --bare-only --target null:64m "$WORK/short.fio" > /dev/null 2> "$D.err"
RC=$?
[ $RC = 1 ] && grep -q "is not empty" "$D.err" && [ ! -e "$D/.iogap-run.lock" ]
ok $? "a refused --dir keeps no lock file: exit $RC" "$D.err"

# ---- one run at a time on a target --------------------------------------------
D=$WORK/first
"$IOGAP" run --dir "$D" --bare-only --target "file:$WORK/target.img" "$WORK/long.fio" \
	> /dev/null 2> "$D.err" &
PID=$!
probe_running() { pgrep -f -- "--output=$WORK/first/bare" > /dev/null; }
until_ok 60 probe_running
"$IOGAP" run --dir "$WORK/second" --bare-only --target "file:$WORK/target.img" "$WORK/short.fio" \
	> /dev/null 2> "$WORK/second.err"
RC=$?
[ $RC = 1 ] && grep -q "target.img is in use by another iogap run" "$WORK/second.err" &&
	[ ! -d "$WORK/second/bare" ]
ok $? "a second run on a target in use: exit $RC, $(grep -m1 -o 'target.img is in use.*' "$WORK/second.err")"
qemu-io -f raw -c 'read 0 4k' "$WORK/target.img" > "$WORK/qemu-io.out" 2>&1
RC=$?
[ $RC != 0 ] && grep -q "Failed to get .* lock" "$WORK/qemu-io.out"
ok $? "another QEMU cannot open the target while bare metal runs: $(head -1 "$WORK/qemu-io.out")"
kill -INT "$PID"
wait "$PID"
PID=

# ---- a whole run: QEMU opens the locked target; --repeat runs twice -----------
D=$WORK/whole
limited 900 "$TCG" run --accel tcg --dir "$D" \
	--target "file:$WORK/target.img" "$WORK/short.fio" > /dev/null 2> "$D.err"
RC=$?
[ $RC = 0 ] && [ "$(status bare)" = ok ] && [ "$(status vm)" = ok ]
ok $? "a run on a file target: exit $RC, bare=$(status bare) vm=$(status vm) (QEMU opened it)" "$D.err"

D=$WORK/repeat
"$IOGAP" run --repeat 2 --accel tcg --vm-only --machine no-such-machine --dir "$D" \
	--target "file:$WORK/target.img" "$WORK/short.fio" > /dev/null 2> "$D.err"
RC=$?
[ "$(grep -c "unsupported machine type" "$D.err")" = 2 ] && ! grep -q "parse the JSON" "$D.err"
ok $? "--repeat 2: the second run gets as far as the first (QEMU's own error both times)" "$D.err"

# ---- a double Ctrl-C ---------------------------------------------------------
D=$WORK/twice
"$IOGAP" run --accel tcg --vm-only --dir "$D" --target "file:$WORK/target.img" --boot-timeout 600 \
	--append 'iogap_mode=shell-cmd iogap_cmd="sleep 600"' "$WORK/short.fio" > "$D.out" 2> "$D.err" &
PID=$!
qemu_running() { pgrep -f -- "file:$D/vm/console.log" > /dev/null; }
until_ok 120 qemu_running
instance=$TRACEFS/instances/iogap-$PID
[ -d "$instance" ]
ok $? "the host's kernel points record while the VM runs ($instance)"
# the second once the first was delivered (two pending SIGINTs are one)
sigint_delivered() {
	local v
	for v in $(awk '/^(SigPnd|ShdPnd):/ { print $2 }' "/proc/$PID/status" 2> /dev/null); do
		[ $((0x$v & 2)) = 0 ] || return 1
	done
}
kill -INT "$PID"
until_ok 10 sigint_delivered
kill -INT "$PID"
until_ok 60 eval '! kill -0 $PID 2> /dev/null'
wait "$PID"
RC=$?
[ $RC = 130 ] && [ "$(status vm)" = interrupted ]
ok $? "two SIGINTs: exit $RC, manifest vm=$(status vm)" "$D.err"
[ ! -e "$instance" ]
ok $? "two SIGINTs: the tracing instance was stopped and removed"
until_ok 10 eval '[ "$(procs "$D")" = 0 ]'
ok $? "two SIGINTs: QEMU stopped and reaped"
PID=

sums | cmp -s - "$WORK/before.sums"
ok $? "no file outside the run directories changed"
[ "$(procs "$WORK")" = 0 ]; ok $? "no process of this test is left"
echo "1..$n"
finish
