#!/bin/bash
# Data safety on devices that are in use, inside the guest, where null_blk
# (memory_backed=1: what is written stays readable), loop devices and a vfat
# filesystem are always available (the host may have none of them: these
# checks moved here from tests/safety/test_safety.c).  The guest probe must
# refuse to write, with the reason, to: a mounted whole device, a disk with
# a mounted partition and that partition, a disk holding a partition table,
# an active swap device, a mounted loop device and its image file, and the
# device holding "/" (a chroot into a mounted filesystem).  It must accept a
# blank device, a blank partition beside a mounted one, reading a mounted
# device, and writing anything with --allow-destroy-data.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
echo "1..17"

# Every device is 1 GiB of null_blk (memory is only used where written).
cat > "$WORK/cmd.sh" <<'SH'
P="iogap-probe --eta=never"
W="--name=w --rw=write --bs=64k --size=1m"
run() { t=$1; shift; echo "IOGAP-T-BEGIN $t"; "$@" 2>&1; echo "IOGAP-T-RC $t $?"; echo "IOGAP-T-END $t"; }
setup() { "$@" > /tmp/setup.log 2>&1 || { echo "IOGAP-T-SETUP-FAIL $*"; cat /tmp/setup.log; }; }
# two primary partitions: 256 MiB from sector 2048, then the rest
partition() { printf 'o\nn\np\n1\n2048\n+256M\nn\np\n2\n\n\nw\n' | fdisk "$1"; }
wait_node() { n=0; while [ ! -b "$1" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done; [ -b "$1" ]; }
setup modprobe vfat
setup modprobe loop
mkdir -p /mnt/whole /mnt/part /mnt/loop /mnt/root
# nullb0: a filesystem on the whole device, mounted
setup mkdosfs -n WHOLE /dev/nullb0
setup mount -t vfat /dev/nullb0 /mnt/whole
# nullb1: a partition table, its first partition mounted, the second blank
setup partition /dev/nullb1
setup wait_node /dev/nullb1p2
setup mkdosfs -n PART /dev/nullb1p1
setup mount -t vfat /dev/nullb1p1 /mnt/part
# nullb2: a partition table, nothing mounted
setup partition /dev/nullb2
# nullb3: active swap
setup mkswap /dev/nullb3
setup swapon /dev/nullb3
# nullb4: blank
# a vfat image file attached to loop0, mounted
setup dd if=/dev/zero of=/tmp/fs.img bs=1M count=8
setup mkdosfs -n LOOPFS /tmp/fs.img
setup losetup /dev/loop0 /tmp/fs.img
setup mount -t vfat /dev/loop0 /mnt/loop
# nullb5: the filesystem a chroot runs in: its "/"
setup mkdosfs -n ROOTFS /dev/nullb5
setup mount -t vfat /dev/nullb5 /mnt/root
mkdir -p /mnt/root/proc /mnt/root/dev
setup cp /bin/iogap-probe /mnt/root/iogap-probe
setup mount -t proc proc /mnt/root/proc
setup mount -t devtmpfs devtmpfs /mnt/root/dev

run whole $P $W --filename=/dev/nullb0
run read-mounted $P --name=r --rw=read --bs=64k --size=1m --filename=/dev/nullb0
run disk-part-mounted $P $W --filename=/dev/nullb1
run part-mounted $P $W --filename=/dev/nullb1p1
run part-blank $P $W --size=512k --filename=/dev/nullb1p2
run table $P $W --filename=/dev/nullb2
run swap $P $W --filename=/dev/nullb3
run loopdev $P $W --filename=/dev/loop0
run loopfile $P $W --filename=/tmp/fs.img
run root chroot /mnt/root /iogap-probe --eta=never $W --filename=/dev/nullb5
run blank $P $W --filename=/dev/nullb4
run allow $P $W --filename=/dev/nullb2 --allow-destroy-data
run after-allow $P $W --filename=/dev/nullb2
SH

boot "$WORK/guest.log" --mode shell-cmd --cmd-file "$WORK/cmd.sh" --timeout 240 \
	--append "null_blk.nr_devices=6 null_blk.memory_backed=1 null_blk.gb=1"
ok $? "guest made the devices, ran the probe on each and powered off"
log=$WORK/guest.log
setup_failed=$(sed -n 's/^IOGAP-T-SETUP-FAIL //p' "$log" | tr '\n' ';')
[ -z "$setup_failed" ]
ok $? "every device set up${setup_failed:+ (failed: $setup_failed)}"

section() { between "$log" "IOGAP-T-BEGIN $1" "IOGAP-T-END $1"; }
rc() { sed -n "s/^IOGAP-T-RC $1 //p" "$log"; }
uuid='[0-9A-F]{4}-[0-9A-F]{4}'
# refused NAME DEVICE WHAT-REGEX: status 1 and the whole refusal sentence
refused() {
	[ "$(rc "$1")" = 1 ] && section "$1" | grep -Eq "^iogap-probe: $2: refusing to write \(job 'w'\): it holds data: $3\. Use --allow-destroy-data to overwrite it\.$"
	ok $? "$1: $(section "$1" | head -n 1)"
}
# accepted NAME [KIB]: status 0, KIB (default 1024) moved, no refusal
accepted() {
	[ "$(rc "$1")" = 0 ] && section "$1" | grep -Eq "(READ|WRITE): .*io=${2:-1024}KiB" &&
		! section "$1" | grep -q refusing
	ok $? "$1: accepted ($(section "$1" | grep -E '^ *(READ|WRITE):' | sed 's/^ *//'))"
}

refused whole /dev/nullb0 "mounted on /mnt/whole; vfat filesystem \(UUID $uuid, label \"WHOLE\"\)"
accepted read-mounted
refused disk-part-mounted /dev/nullb1 "partition nullb1p1 mounted on /mnt/part; dos partition table"
refused part-mounted /dev/nullb1p1 "mounted on /mnt/part; vfat filesystem \(UUID $uuid, label \"PART\"\)"
accepted part-blank 512   # p2 is under 1 MiB: a 1 MiB job stops after 15 whole blocks, as fio
refused table /dev/nullb2 "dos partition table"
refused swap /dev/nullb3 "active in use as swap; swap signature \(UUID [-0-9a-f]{36}\)"
refused loopdev /dev/loop0 "mounted on /mnt/loop; vfat filesystem \(UUID $uuid, label \"LOOPFS\"\)"
refused loopfile /tmp/fs.img "backing file of /dev/loop0; vfat filesystem \(UUID $uuid, label \"LOOPFS\"\)"
refused root /dev/nullb5 "mounted on /; vfat filesystem \(UUID $uuid, label \"ROOTFS\"\)"
accepted blank
accepted allow
# the write above went over the partition table: nothing left to protect
accepted after-allow
[ "$(rc table)" = 1 ] && [ "$(rc after-allow)" = 0 ]
ok $? "the same device refused before and accepted after --allow-destroy-data overwrote its table"

[ "$(grep -Ec '^IOGAP-DISK nullb[0-5] ' "$log")" = 6 ]
ok $? "six null_blk devices in the guest"
[ $failed = 0 ] || diag "$log"
finish
