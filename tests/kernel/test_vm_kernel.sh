#!/bin/bash
# Guest kernel points, differential: in a TCG guest,
# two null_blk devices whose completion takes a known time (irqmode=2, a
# timer: completion_nsec 100 us and 1100 us); the probe reads each at QD1
# with --kernel-trace, in three interleaved rounds (TCG's speed drifts with
# the host's load).  Every request matches one guest kernel request; with
# the median over rounds of each round's median: the "device" stage (kernel
# issue -> completion) grows by more than half the 1 ms step and by more
# than the submit and return paths move together: the step lands in the
# device stage.  Not asserted: "within 5%" and "others < 10%":
# under TCG the null_blk timer's overshoot differs between the two sleeps
# (the device step measured 0.98-1.07 of the step here) and the return path
# after a longer idle moves by up to 20% of it (docs/kernel-points.md).
# The traces come back to the host in a tar written on the guest's disk.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/../vm/lib.sh"
KF="$BUILD/tests/kernel/kmatch_files"
STEP=1000000
echo "1..11"

cat > "$WORK/kp.sh" <<'SH'
mount -t configfs none /sys/kernel/config 2> /dev/null
# mk NAME NSEC: a 256 MiB null_blk completing by a timer NSEC after issue
mk() {
	d=/sys/kernel/config/nullb/$1
	mkdir "$d" && echo 2 > "$d/irqmode" && echo "$2" > "$d/completion_nsec" &&
		echo 256 > "$d/size" && echo 1 > "$d/power" || return 1
	if [ -b "/dev/$1" ]; then echo "/dev/$1"; else echo "/dev/nullb$(cat "$d/index")"; fi
}
fast=$(mk fast 100000) && slow=$(mk slow 1100000) || echo "IOGAP-T-RC nodev"
for n in fast1 slow1 fast2 slow2 fast3 slow3; do
	eval dev=\$${n%?}
	iogap-probe --eta=never --name=k --filename="$dev" --ioengine=psync --direct=1 \
		--rw=randread --bs=4k --io_size=400k --trace="/tmp/$n.p" \
		--kernel-trace="/tmp/$n.k" --output-format=terse > /dev/null 2> "/tmp/$n.err"
	echo "IOGAP-T-RC $n $? $(cat "/tmp/$n.err")"
	ls /sys/kernel/tracing/instances/ | grep -q iogap- && echo "IOGAP-T-LEFT $n"
done
cd /tmp && tar cf /dev/vda fast?.[pk] slow?.[pk] && sync
SH
truncate -s 16m "$WORK/disk.img"
boot "$WORK/kp.log" --mode shell-cmd --cmd-file "$WORK/kp.sh" --timeout 280 \
	--disk "$WORK/disk.img" --append "null_blk.nr_devices=0"
ok $? "guest ran the null_blk jobs with --kernel-trace and powered off"
ROUNDS="fast1 slow1 fast2 slow2 fast3 slow3"
for d in $ROUNDS; do
	grep -q "^IOGAP-T-RC $d 0 *\$" "$WORK/kp.log"
	ok $? "$d: probe exit 0 ($(grep "^IOGAP-T-RC $d" "$WORK/kp.log" | tr -d '\r'))"
done
! grep -q "^IOGAP-T-LEFT" "$WORK/kp.log"; ok $? "no iogap instance left in the guest"
mkdir -p "$WORK/out" && tar xf "$WORK/disk.img" -C "$WORK/out" 2> /dev/null
matched=0
for d in $ROUNDS; do
	"$KF" "$WORK/out/$d.p" "$WORK/out/$d.k" - > "$WORK/$d.m" 2>&1
	grep -q '^requests=100 .* matched=100 none=0 ambiguous=0 ' "$WORK/$d.m" &&
		matched=$((matched + 1))
	diag "$WORK/$d.m"
done
[ $matched = 6 ]; ok $? "each round: all 100 requests matched one kernel request ($matched of 6 rounds)"
# med STAGE SIDE: the median over the side's rounds of the round medians
med() { for r in 1 2 3; do sed -n "s/.* $1_p50_ns=\\(-\\{0,1\\}[0-9]*\\).*/\\1/p" "$WORK/$2$r.m"; done |
	sort -n | sed -n 2p; }
dd=$(( $(med device slow) - $(med device fast) ))
ds=$(( $(med submit slow) - $(med submit fast) ))
dr=$(( $(med return slow) - $(med return fast) ))
[ "$dd" -gt $((STEP / 2)) ]
ok $? "device stage grew by $dd ns for a $STEP ns step (more than half of it)"
[ "$dd" -gt $(( ${ds#-} + ${dr#-} )) ]
ok $? "the step lands in the device stage: submit path moved by $ds ns, return path by $dr ns"
finish
