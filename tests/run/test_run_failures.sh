#!/bin/bash
# iogap run failure paths: each ends in a clear message within its timeout
# and a run directory whose manifest says why; no QEMU is left behind.
. "$(dirname "$0")/lib.sh"
echo "1..17"
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
start=$(date +%s)
"$IOGAP" run --bare-only --timeout 3 --dir "$WORK/stuckbare" --target null:64m "$WORK/long.fio" \
	> /dev/null 2> "$WORK/e5"
rc=$?; took=$(( $(date +%s) - start ))
[ $rc = 1 ] && [ $took -le 30 ] &&
	grep -q "the probe did not end within 3 s (--timeout): it was stopped; where its threads waited: bare/probe.stuck.txt" "$WORK/e5"
ok $? "bare metal: a probe past --timeout is stopped after ${took}s: $(grep -m1 'did not end' "$WORK/e5")" "$WORK/e5"
grep -q "^thread [0-9]" "$WORK/stuckbare/bare/probe.stuck.txt" &&
	grep -q "^  comm:" "$WORK/stuckbare/bare/probe.stuck.txt" &&
	grep -q "^  stack:" "$WORK/stuckbare/bare/probe.stuck.txt" &&
	grep -A1 "^  comm:" "$WORK/stuckbare/bare/probe.stuck.txt" | grep -q "iogap-probe"
ok $? "bare metal: probe.stuck.txt names each thread, its comm, wchan, syscall and stack" \
	"$WORK/stuckbare/bare/probe.stuck.txt"
manifest "$WORK/stuckbare" 'm["phases"]["bare"]["status"] == "failed" and "did not end within 3 s" in m["phases"]["bare"]["message"] and m["phases"]["bare"]["limit_s"] == 3'
ok $? "bare metal: the manifest says why, with the limit"
pgrep -f -- "--output=$WORK/stuckbare" > /dev/null; [ $? = 1 ]
ok $? "bare metal: no probe left running"

start=$(date +%s)
"$IOGAP" run --accel tcg --vm-only --timeout 4 --dir "$WORK/stuckvm" --target null:64m \
	"$WORK/long.fio" > /dev/null 2> "$WORK/e6"
rc=$?; took=$(( $(date +%s) - start ))
[ $rc = 1 ] && [ $took -le 120 ] &&
	grep -q "the probe did not end within 4 s (--timeout): it was stopped; where its threads waited: vm/probe.stuck.txt" "$WORK/e6"
ok $? "VM: the guest agent stops a probe past --timeout, after ${took}s: $(grep -m1 'did not end' "$WORK/e6")" "$WORK/e6"
grep -q "^thread [0-9]" "$WORK/stuckvm/vm/probe.stuck.txt" &&
	grep -q "^  wchan:" "$WORK/stuckvm/vm/probe.stuck.txt" &&
	grep -A1 "^  stack:" "$WORK/stuckvm/vm/probe.stuck.txt" | grep -q "\[<"
ok $? "VM: the guest's probe.stuck.txt fetched" "$WORK/stuckvm/vm/probe.stuck.txt"
[ "$(qemus)" = 0 ]; ok $? "VM: no QEMU left running"

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
