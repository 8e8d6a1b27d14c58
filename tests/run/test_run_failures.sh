#!/bin/bash
# iogap run failure paths: each ends in a clear message within its timeout
# and a run directory whose manifest says why; no QEMU is left behind.
. "$(dirname "$0")/lib.sh"
echo "1..20"
job psync > "$WORK/j.fio"
qemus() { pgrep -f "qemu-system-x86_64.*$WORK" | wc -l; }

"$IOGAP" run --accel tcg --dir "$WORK/nokernel" --target null:64m --vm-only \
	--kernel "$WORK/no-such-vmlinux" "$WORK/j.fio" > /dev/null 2> "$WORK/e1"
[ $? = 1 ] && grep -q "no-such-vmlinux" "$WORK/e1"
ok $? "missing kernel: $(head -1 "$WORK/e1")"
manifest "$WORK/nokernel" 'm["phases"]["vm"]["status"] == "failed" and "no-such-vmlinux" in m["phases"]["vm"]["message"]'
ok $? "missing kernel: manifest says why"

head -c 1048576 /dev/urandom > "$WORK/bad-kernel"
start=$(date +%s)
"$IOGAP" run --accel tcg --boot-timeout 20 --dir "$WORK/badkernel" --target null:64m --vm-only \
	--kernel "$WORK/bad-kernel" "$WORK/j.fio" > /dev/null 2> "$WORK/e2"
rc=$?; took=$(( $(date +%s) - start ))
[ $rc = 1 ] && [ $took -le 60 ]
ok $? "a kernel that does not boot fails in ${took}s: $(grep -m1 -E 'QEMU|guest|answer' "$WORK/e2")"
[ "$(qemus)" = 0 ]; ok $? "no QEMU left running"

start=$(date +%s)
"$IOGAP" run --accel tcg --boot-timeout 15 --dir "$WORK/silent" --target null:64m --vm-only \
	--append 'iogap_mode=shell-cmd iogap_cmd="sleep 600"' "$WORK/j.fio" > /dev/null 2> "$WORK/e3"
rc=$?; took=$(( $(date +%s) - start ))
[ $rc = 1 ] && grep -q "did not answer" "$WORK/e3" && [ $took -le 45 ]
ok $? "a guest that never answers: '$(grep -m1 'answer' "$WORK/e3")' after ${took}s"
manifest "$WORK/silent" '"did not answer" in m["phases"]["vm"]["message"]'
ok $? "silent guest: manifest says why"
[ -s "$WORK/silent/vm/console.log" ]; ok $? "silent guest: console log kept"
[ "$(qemus)" = 0 ]; ok $? "no QEMU left running"

# a probe that outlives its limit: stopped, where its threads waited kept
cat > "$WORK/long.fio" <<'JOB'
[long]
ioengine=psync
rw=randread
bs=4k
size=16m
time_based=1
runtime=600
JOB
# stuck SIDE LIMIT MAX-SECONDS RUN-OPTIONS...: iogap run of long.fio stopped
# at --timeout LIMIT within MAX-SECONDS, SIDE/probe.stuck.txt kept (its
# kernel stacks), the manifest saying why; no probe or QEMU left
stuck() {
	local side=$1 limit=$2 max=$3 d=$WORK/stuck-$1 start rc took
	shift 3
	start=$(date +%s)
	"$IOGAP" run --timeout "$limit" --dir "$d" --target null:64m "$@" "$WORK/long.fio" \
		> /dev/null 2> "$d.err"
	rc=$?; took=$(( $(date +%s) - start ))
	[ $rc = 1 ] && [ "$took" -le "$max" ] && grep -q "the probe did not end within $limit s \
(--timeout): it was stopped; where its threads waited: $side/probe.stuck.txt" "$d.err"
	ok $? "$side: a probe past --timeout is stopped after ${took}s: $(grep -m1 'did not end' "$d.err")" \
		"$d.err"
	grep -q "^thread [0-9]" "$d/$side/probe.stuck.txt" && grep -q "^  wchan:" "$d/$side/probe.stuck.txt" &&
		grep -A1 "^  stack:" "$d/$side/probe.stuck.txt" | grep -q "\[<"
	ok $? "$side: probe.stuck.txt names each thread, its comm, wchan, syscall and kernel stack" \
		"$d/$side/probe.stuck.txt"
	manifest "$d" "m['phases']['$side']['status'] == 'failed' and 'did not end within $limit s' in \
m['phases']['$side']['message'] and m['phases']['$side']['limit_s'] == $limit"
	ok $? "$side: the manifest says why, with the limit"
	! pgrep -f -- "$d" > /dev/null
	ok $? "$side: no probe or QEMU left running"
}
stuck bare 3 30 --bare-only
stuck vm 4 120 --accel tcg --vm-only

# a request QEMU holds past the limit (the bottom filter delays each by 10 s):
# the guest's driver has it in flight at the limit, and the run says so
d=$WORK/held
"$IOGAP" run --timeout 4 --inject-delay-ns 10000000000 --accel tcg --boot-timeout 300 --vm-only \
	--dir "$d" --target null:64m "$WORK/long.fio" > /dev/null 2> "$d.err"
[ $? = 1 ] && grep -qx "inflight vda 1 0" "$d/vm/probe.stuck.txt" &&
	grep -q "stuck.txt; in flight at the limit (issued, not completed by the device): vda 1 reads 0 writes" "$d.err"
ok $? "a request held in QEMU past the limit is named: $(grep -m1 -o 'in flight at the limit.*' "$d.err")" \
	"$d.err"
# a loaded host's TCG guest can miss the ticks of the kernel's IO-APIC timer
# check, which then panics: the guest skips it
grep -q "no_timer_check" "$d/vm/qemu.cmdline"
ok $? "the guest kernel is told no_timer_check"

# without --timeout the limit follows the jobs: j.fio's two runtime=2 jobs
# give 2 x (2 + 2) + 120 s
"$IOGAP" run --bare-only --dir "$WORK/limits" --target null:64m "$WORK/j.fio" > /dev/null 2>&1 &&
	manifest "$WORK/limits" 'm["phases"]["bare"]["limit_s"] == 128'
ok $? "the default limit follows the jobs' runtime: $(mval "$WORK/limits" 'm["phases"]["bare"]["limit_s"]') s"

"$IOGAP" run --accel tcg --dir "$WORK/notarget" --target "file:$WORK/missing.img" "$WORK/j.fio" \
	> /dev/null 2> "$WORK/e4"
[ $? = 1 ] && grep -q "missing.img: No such file" "$WORK/e4" &&
	manifest "$WORK/notarget" '"No such file" in m["phases"]["bare"]["message"]'
ok $? "a target that does not exist: $(head -1 "$WORK/e4")"
finish
