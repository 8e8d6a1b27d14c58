#!/bin/bash
# shell-cmd mode: the guest maps the virtio disk's serial, reads what the host
# wrote into the image with O_DIRECT, loads zoned null_blk from options on the
# kernel command line, has tracefs, and reports the command's exit status.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
echo "1..9"
truncate -s 16M "$WORK/disk.img"
head -c 4M /dev/urandom | dd of="$WORK/disk.img" conv=notrunc status=none
want=$(head -c 4M "$WORK/disk.img" | md5sum | cut -d' ' -f1)
cat > "$WORK/cmd.sh" <<'SH'
echo "IOGAP-MD5 $(dd if=/dev/vda bs=1M count=4 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)"
echo "IOGAP-ZONED $(cat /sys/block/nullb0/queue/zoned)"
echo "IOGAP-ZONESECT $(cat /sys/block/nullb0/queue/chunk_sectors)"
if blkzone report /dev/nullb0 > /tmp/z 2>&1; then
	echo "IOGAP-BLKZONE $(grep -c 'start:' /tmp/z)"
else
	echo "IOGAP-BLKZONE failed"; cat /tmp/z
fi
grep -q ' /sys/kernel/tracing tracefs ' /proc/mounts && [ -e /sys/kernel/tracing/events/block/block_rq_issue ] &&
	echo "IOGAP-TRACEFS ok"
[ -n "$IOGAP_CTL" ] && [ -c "$IOGAP_CTL" ] && echo "IOGAP-CTL $IOGAP_CTL"
exit 7
SH
boot "$WORK/log" --mode shell-cmd --cmd-file "$WORK/cmd.sh" --disk "$WORK/disk.img" \
	--append "null_blk.zoned=1 null_blk.zone_size=8 null_blk.gb=1" --timeout 90
grep -q '^IOGAP-DISK vda iogap0$' "$WORK/log"
ok $? "IOGAP-DISK vda iogap0"
grep -q '^IOGAP-PORT iogap.ctl /dev/vport[0-9]*p[0-9]*$' "$WORK/log"
ok $? "IOGAP-PORT iogap.ctl names the control port"
got=$(sed -n 's/^IOGAP-MD5 //p' "$WORK/log")
[ "$got" = "$want" ]
ok $? "guest reads the host's pattern with O_DIRECT (md5 $got, want $want)"
grep -q '^IOGAP-ZONED host-managed$' "$WORK/log"
ok $? "null_blk.zoned=1 from the command line: nullb0 is host-managed"
grep -q '^IOGAP-ZONESECT 16384$' "$WORK/log"
ok $? "null_blk.zone_size=8 (MB) from the command line: 16384-sector zones"
grep -q '^IOGAP-BLKZONE 128$' "$WORK/log"
ok $? "blkzone report lists the 128 zones of a 1 GiB device"
grep -q '^IOGAP-TRACEFS ok$' "$WORK/log"
ok $? "tracefs mounted with block events"
grep -q '^IOGAP-CTL /dev/vport' "$WORK/log"
ok $? "IOGAP_CTL exported to the command"
grep -q '^IOGAP-CMD-EXIT 7$' "$WORK/log" && grep -q 'qemu_exit=0' "$WORK/log.summary"
ok $? "command's exit status reported, QEMU exited by itself"
[ $failed = 0 ] || diag "$WORK/log"
finish
