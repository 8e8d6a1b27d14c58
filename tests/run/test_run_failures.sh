#!/bin/bash
# iogap run failure paths: each ends in a clear message within its timeout
# and a run directory whose manifest says why; no QEMU is left behind.
. "$(dirname "$0")/lib.sh"
echo "1..9"
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

"$IOGAP" run --accel tcg --dir "$WORK/notarget" --target "file:$WORK/missing.img" "$WORK/j.fio" \
	> /dev/null 2> "$WORK/e4"
[ $? = 1 ] && grep -q "missing.img: No such file" "$WORK/e4" &&
	manifest "$WORK/notarget" '"No such file" in m["phases"]["bare"]["message"]'
ok $? "a target that does not exist: $(head -1 "$WORK/e4")"
finish
