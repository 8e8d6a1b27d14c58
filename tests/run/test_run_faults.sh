#!/bin/bash
# iogap run as an unlucky or hostile user: SIGINT/SIGTERM in every phase,
# kill -9 of QEMU and of iogap, a full run directory, two runs on one
# directory, targets that must be refused before any I/O.  Each case checks
# the message, the exit status, that none of its processes is left (found by
# its unique run directory), that manifest.json is valid JSON with the right
# statuses, and at the end that no file outside the run directories changed.
. "$(dirname "$0")/lib.sh"
# the signals here go to iogap itself, not to iogap-tcg (bash) around it
IOGAP=$IOGAP_BIN
MNT=$WORK/small
cleanup() {
	[ -n "${QEMU_IO:-}" ] && kill "$QEMU_IO" 2> /dev/null
	mountpoint -q "$MNT" && umount "$MNT"
	chattr -i "$WORK"/*.img 2> /dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
# the filter rings of this suite's runs (kill -9 of iogap leaves them) stay in $WORK
export IOGAP_RING_DIR=$WORK/rings
mkdir "$IOGAP_RING_DIR"

job() { # job NAME RW RUNTIME [more options]
	printf '[%s]\nrw=%s\nbs=4k\nsize=1m\nruntime=%s\ntime_based=1\n' "$1" "$2" "$3"
	shift 3
	printf '%s\n' "$@"
}
job long randrw 60 > "$WORK/long.fio"
job short randread 1 > "$WORK/short.fio"
job w randwrite 1 > "$WORK/write.fio"
job big randwrite 1 size=4m > "$WORK/big.fio"
printf '[whole]\nrw=randwrite\nbs=4k\nruntime=1\ntime_based=1\n' > "$WORK/whole.fio"
head -c 1048576 /dev/urandom > "$WORK/decoy.bin"
head -c 1048576 /dev/urandom > "$WORK/target.img"
KEEP=("$WORK"/*.bin "$WORK"/*.img "$WORK"/*.fio)
sums() { sha256sum "${KEEP[@]}"; }
sums > "$WORK/before.sums"

# procs DIR: how many processes have DIR in their command line (iogap, the
# probe, QEMU all do); gone DIR: none within 10 s
procs() { pgrep -f -- "$1" | grep -cvx "$$"; }
gone() {
	for _ in $(seq 50); do [ "$(procs "$1")" = 0 ] && return 0; sleep 0.2; done
	return 1
}
# until_ok SECONDS COMMAND...: poll until the command succeeds
until_ok() {
	local t=$1
	shift
	for _ in $(seq $((t * 10))); do "$@" && return 0; sleep 0.1; done
	return 1
}
# start NAME ARGS...: iogap run in the background, --dir $WORK/NAME
start() {
	D=$WORK/$1
	shift
	"$IOGAP" run --accel tcg --dir "$D" "$@" > "$D.out" 2> "$D.err" &
	PID=$!
}
# reap: wait for iogap (at most 60 s, else kill it: a failure), rc in RC
iogap_done() { ! kill -0 "$PID" 2> /dev/null; }
reap() {
	until_ok 60 iogap_done || kill -9 "$PID"
	wait "$PID"
	RC=$?
}
status() { mval "$D" "m['phases']['$1']['status']"; }
probe_running() { pgrep -f -- "--output=$D/bare" > /dev/null; }
qemu_running() { pgrep -f -- "file:$D/vm/console.log" > /dev/null; }
guest_job_running() { [ -s "$D/vm/sync-before.txt" ]; }
results_fetched() { grep -q "results fetched" "$D.err"; }
# the guest: the agent, then no power-off (iogap must stop QEMU itself)
# shellcheck disable=SC2016 # $IOGAP_CTL is the guest's
LINGER='iogap_mode=shell-cmd iogap_cmd="/bin/iogap-probe --agent=$IOGAP_CTL; sleep 600"'

# ---- signals, phase by phase ----------------------------------------------
for sig in INT TERM; do
	code=$((128 + $(kill -l $sig)))
	start bare-$sig --target null:1g "$WORK/long.fio"
	until_ok 30 probe_running
	kill -$sig $PID
	reap
	[ $RC = $code ] && grep -q "interrupted by SIG$sig" "$D.out"
	ok $? "SIG$sig in the bare-metal phase: exit $RC, $(grep -m1 -o 'bare metal: .*' "$D.out")"
	[ "$(status bare)" = interrupted ] && [ "$(status vm)" = skipped ]
	ok $? "SIG$sig in the bare-metal phase: manifest bare=$(status bare) vm=$(status vm)"
	gone "$D"; ok $? "SIG$sig in the bare-metal phase: the probe was stopped and reaped"

	# the guest agent never answers this one: iogap waits for it
	start boot-$sig --target null:64m --append 'iogap_mode=shell-cmd iogap_cmd="sleep 600"' \
		--boot-timeout 600 "$WORK/short.fio"
	until_ok 60 qemu_running
	kill -$sig $PID
	reap
	[ $RC = $code ] && [ "$(status bare)" = ok ] && [ "$(status vm)" = interrupted ]
	ok $? "SIG$sig while the guest boots: exit $RC, manifest bare=$(status bare) vm=$(status vm)"
	gone "$D"; ok $? "SIG$sig while the guest boots: QEMU stopped and reaped"

	start job-$sig --vm-only --target null:64m "$WORK/long.fio"
	until_ok 120 guest_job_running
	kill -$sig $PID
	reap
	[ $RC = $code ] && [ "$(status vm)" = interrupted ] && [ "$(status bare)" = skipped ]
	ok $? "SIG$sig during the guest's job: exit $RC, manifest vm=$(status vm)"
	mval "$D" "m['phases']['vm']['message']" | grep -q "SIG$sig"
	ok $? "SIG$sig during the guest's job: the message says so"
	gone "$D"; ok $? "SIG$sig during the guest's job: QEMU stopped and reaped"
	! grep -q "readonly=on" "$D/vm/qemu.cmdline"
	ok $? "a job that writes: the drive is writable"

	start fetched-$sig --vm-only --target null:64m --append "$LINGER" "$WORK/short.fio"
	until_ok 120 results_fetched
	kill -$sig $PID
	reap
	[ $RC = 0 ] && [ "$(status vm)" = ok ] && manifest "$D" '"clock" in m and m["pairing"]["guest"]["read"] > 0'
	ok $? "SIG$sig after the results were fetched: exit $RC, the run is complete (vm=$(status vm))"
	grep -q "interrupted after every result was fetched" "$D.err"
	ok $? "SIG$sig after the results were fetched: iogap says it kept the run"
	gone "$D"; ok $? "SIG$sig after the results were fetched: QEMU stopped and reaped"
done

# ---- kill -9 ----------------------------------------------------------------
start kill-qemu --vm-only --target null:64m "$WORK/long.fio"
until_ok 120 guest_job_running
pkill -9 -f -- "file:$D/vm/console.log"
reap
[ $RC = 1 ] && grep -q "VM phase failed: QEMU exited (killed by signal 9" "$D.err"
ok $? "kill -9 of QEMU: exit $RC, QEMU's end comes first: $(grep -m1 -o 'QEMU exited[^:]*' "$D.err")"
msg=$(mval "$D" "m['phases']['vm']['message']")
[ "$(status vm)" = failed ] && [[ $msg == "QEMU exited (killed by signal 9"* ]]
ok $? "kill -9 of QEMU: manifest vm=$(status vm), the message starts with QEMU's end"
gone "$D"; ok $? "kill -9 of QEMU: nothing left running"

start kill-iogap-vm --vm-only --target null:64m "$WORK/long.fio"
until_ok 120 guest_job_running
kill -9 $PID
reap
gone "$D"; ok $? "kill -9 of iogap during the guest's job: QEMU died with it"
[ "$(status vm)" = running ]; ok $? "kill -9 of iogap: manifest.json is valid, vm=$(status vm) (iogap died in it)"

start kill-iogap-bare --target null:1g "$WORK/long.fio"
until_ok 30 probe_running
kill -9 $PID
reap
gone "$D"; ok $? "kill -9 of iogap during the bare-metal phase: the probe died with it"
[ "$(status bare)" = running ] && [ "$(status vm)" = pending ]
ok $? "kill -9 of iogap: manifest bare=$(status bare) vm=$(status vm)"

# ---- the run directory ------------------------------------------------------
mkdir -p "$MNT" && mount -t tmpfs -o size=256k tmpfs "$MNT"
ok $? "a 256 KiB tmpfs for a run directory that fills up"
D=$MNT/run
"$IOGAP" run --dir "$D" --bare-only --target null:1g "$WORK/short.fio" > "$MNT.out" 2> "$MNT.err"
RC=$?
[ $RC = 1 ] && grep -q "the probe failed on bare metal (exit status 1): .*No space left on device" "$MNT.err"
ok $? "full run directory: exit $RC, the probe's reason survives: $(grep -m1 -o 'iogap-probe: [^[]*' "$MNT.err")"
grep -q "cannot write $D/manifest.json: No space left on device" "$MNT.err"
ok $? "full run directory: stderr says the manifest could not be written"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$D/manifest.json"
ok $? "full run directory: manifest.json is still valid JSON (the last complete write)"
gone "$D"; ok $? "full run directory: nothing left running"
umount "$MNT"
mount -t tmpfs -o size=256k tmpfs "$MNT"
D=$MNT/vmrun
"$IOGAP" run --accel tcg --vm-only --dir "$D" --target null:64m "$WORK/short.fio" > /dev/null 2> "$MNT.err"
RC=$?
[ $RC = 1 ] && grep -q "VM phase failed: .*No space left on device" "$MNT.err" &&
	python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$D/manifest.json"
ok $? "full run directory in the VM phase: exit $RC, $(grep -m1 -o 'VM phase failed: .*' "$MNT.err" | cut -c1-120)"
gone "$D"; ok $? "full run directory in the VM phase: QEMU stopped and reaped"
umount "$MNT"

start shared-a --bare-only --target null:1g "$WORK/long.fio"
A=$PID
until_ok 30 probe_running
job other randread 1 > "$WORK/other.fio"
"$IOGAP" run --dir "$D" --bare-only --target null:1g "$WORK/other.fio" 2> "$D.b1"
RC=$?
[ $RC = 1 ] && grep -q "is in use by another iogap run (pid $A)" "$D.b1"
ok $? "a second run on a directory in use: exit $RC, $(cat "$D.b1")"
"$IOGAP" run --force --dir "$D" --bare-only --target null:1g "$WORK/other.fio" 2> "$D.b2"
RC=$?
[ $RC = 1 ] && grep -q "in use by another iogap run" "$D.b2" && cmp -s "$D/job0.fio" "$WORK/long.fio"
ok $? "--force does not take a directory in use; the first run's files are untouched"
kill -INT $A
reap
"$IOGAP" run --dir "$D" --bare-only --target null:1g "$WORK/other.fio" 2> "$D.b3"
RC=$?
[ $RC = 1 ] && grep -q "is not empty" "$D.b3" && cmp -s "$D/job0.fio" "$WORK/long.fio"
ok $? "a finished run's directory is refused: $(cat "$D.b3")"
"$IOGAP" run --force --dir "$D" --bare-only --target null:1g "$WORK/other.fio" > /dev/null 2>&1
RC=$?
[ $RC = 0 ] && cmp -s "$D/job0.fio" "$WORK/other.fio" && [ "$(status bare)" = ok ] &&
	manifest "$D" '"--force" in m["command"]'
ok $? "--force reuses it: exit $RC, the new run's files and manifest"
gone "$D"; ok $? "two runs on one directory: nothing left running"

# ---- targets refused before any I/O -----------------------------------------
refused() { # refused NAME PATTERN TARGET JOB [options]: both phases not started
	local name=$1 pattern=$2
	shift 2
	D=$WORK/$name
	"$IOGAP" run --accel tcg --dir "$D" --target "$@" > /dev/null 2> "$D.err"
	RC=$?
	[ $RC = 1 ] && grep -q -- "$pattern" "$D.err" && [ ! -d "$D/bare" ] && [ ! -d "$D/vm" ] &&
		manifest "$D" 'all(p["status"] == "skipped" or (p["status"] == "failed" and
				   p["message"].startswith("not started")) for p in m["phases"].values())'
}
sha() { sha256sum < "$1"; }
t0=$(sha "$WORK/target.img")
refused oversize "offset+size (4194304 bytes) is larger than $WORK/target.img (1048576 bytes)" \
	"file:$WORK/target.img" "$WORK/big.fio"
ok $? "a job larger than the target: $(head -1 "$D.err")"
[ "$(stat -c %s "$WORK/target.img")" = 1048576 ] && [ "$(sha "$WORK/target.img")" = "$t0" ]
ok $? "a job larger than the target: the target is neither grown nor written"
refused null-oversize "is larger than the null target" null:1m "$WORK/big.fio"
ok $? "a job larger than a null target (the VM would clamp it): refused"

: > "$WORK/zero.img"
refused zero "zero.img is empty (0 bytes)" "file:$WORK/zero.img" "$WORK/write.fio"
ok $? "an empty target: $(head -1 "$D.err")"
[ "$(stat -c %s "$WORK/zero.img")" = 0 ]; ok $? "an empty target: not grown"

truncate -s 8T "$WORK/sparse.img"
refused sparse "sparse.img is sparse: the jobs' writes could allocate up to" \
	"file:$WORK/sparse.img" "$WORK/whole.fio"
ok $? "random writes over an 8 TiB sparse file: $(head -1 "$D.err" | cut -c1-150)"
[ "$(stat -c %b "$WORK/sparse.img")" = 0 ]; ok $? "the sparse file got no block"
rm -f "$WORK/sparse.img"

cp "$WORK/target.img" "$WORK/immutable.img"
chattr +i "$WORK/immutable.img"
ok $? "chattr +i on the test directory's filesystem"
refused immutable "immutable.img cannot be written (Operation not permitted)" \
	"file:$WORK/immutable.img" "$WORK/write.fio"
ok $? "a write job on an immutable target: $(head -1 "$D.err")"
start immutable-read --target "file:$WORK/immutable.img" "$WORK/short.fio"
reap
[ $RC = 0 ] && [ "$(status bare)" = ok ] && [ "$(status vm)" = ok ] &&
	grep -q "readonly=on" "$D/vm/qemu.cmdline"
ok $? "a read job on an immutable target: exit $RC, bare=$(status bare) vm=$(status vm), drive read-only"
cmp -s "$WORK/immutable.img" "$WORK/target.img"; ok $? "the immutable target is unchanged"
gone "$D"; ok $? "read job on an immutable target: nothing left running"

cp "$WORK/target.img" "$WORK/locked.img"
qemu-io -f raw -c "sleep 600000" "$WORK/locked.img" > /dev/null 2>&1 &
QEMU_IO=$!
locked() { grep -q ":$(stat -c %i "$WORK/locked.img") " /proc/locks; }
until_ok 10 locked
refused locked "locked.img is locked by another process" "file:$WORK/locked.img" \
	"$WORK/write.fio" --bare-only
ok $? "a target a running QEMU holds, bare metal only: $(head -1 "$D.err")"
refused locked-vm "locked.img is locked by another process" "file:$WORK/locked.img" \
	"$WORK/write.fio" --vm-only
ok $? "the same target for a VM write job: refused before QEMU starts"
kill "$QEMU_IO"; wait "$QEMU_IO" 2> /dev/null; QEMU_IO=
cmp -s "$WORK/locked.img" "$WORK/target.img"; ok $? "the locked target is unchanged"

# ---- small things -----------------------------------------------------------
# a job the probe cannot run: its reason reaches the message
head -c 8388608 /dev/zero > "$WORK/deep.disk"
job deep randread 1 ioengine=io_uring iodepth=65536 > "$WORK/deep.fio"
D=$WORK/deep
"$IOGAP" run --dir "$D" --bare-only --target "file:$WORK/deep.disk" "$WORK/deep.fio" > /dev/null 2> "$D.err"
RC=$?
[ $RC = 1 ] && grep -q "the probe failed on bare metal (exit status 1): iogap-probe: job 'deep': error 22 (Invalid argument): io_uring" "$D.err"
ok $? "iodepth=65536 on io_uring: exit $RC, $(grep -m1 -o "job 'deep'.*" "$D.err")"
for v in 1e12 abc 0 -5 ""; do
	"$IOGAP" run --dir "$WORK/opt" --ring-size "$v" --target null:1m "$WORK/short.fio" 2> "$WORK/opt.err"
	RC=$?
	[ $RC = 2 ] && grep -q "ring-size '$v': expected a whole number from 2 to 8388608" "$WORK/opt.err" &&
		[ ! -e "$WORK/opt" ]
	ok $? "--ring-size '$v': exit $RC, $(cat "$WORK/opt.err")"
done
"$IOGAP" run --dir "$WORK/opt" --smp 2x --target null:1m "$WORK/short.fio" 2> "$WORK/opt.err"
[ $? = 2 ] && grep -q "smp '2x'" "$WORK/opt.err"; ok $? "--smp 2x: $(cat "$WORK/opt.err")"

start nomachine --vm-only --machine no-such-machine --target null:64m "$WORK/short.fio"
reap
[ $RC = 1 ] && grep -A1 "VM phase failed" "$D.err" | head -1 |
	grep -q "QEMU exited (exit status 1): .*unsupported machine type"
ok $? "QEMU that does not start: its own message first: $(grep -m1 -o 'QEMU exited.*' "$D.err" | cut -c1-120)"

sums | cmp -s - "$WORK/before.sums"
ok $? "no file outside the run directories changed (decoy, targets, job files)"
[ "$(procs "$WORK")" = 0 ]; ok $? "no process of this test is left"
echo "1..$n"   # n: counted by ok (tap.sh)
finish
