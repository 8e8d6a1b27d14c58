#!/bin/bash
# Data safety through the CLI: writes to an ext4 image, a partitioned image
# and a qcow2 image are refused naming what was found; reads are allowed;
# --allow-destroy-data overrides.
. "$(dirname "$0")/lib.sh"
echo "1..6"
truncate -s 32m "$WORK/ext4.img" && mkfs.ext4 -q -F "$WORK/ext4.img"
truncate -s 32m "$WORK/gpt.img" && echo 'label: gpt' | sfdisk -q "$WORK/gpt.img" > /dev/null
qemu-img create -q -f qcow2 "$WORK/disk.qcow2" 32m
run() { "$PROBE" --eta=never --name=s --size=1m --output-format=json --filename="$@" > /dev/null 2> "$WORK/e"; }
run "$WORK/ext4.img" --rw=write; rc=$?
[ $rc = 1 ] && grep -q "refusing to write.*ext4" "$WORK/e"; ok $? "ext4 refused: $(cat "$WORK/e")"
run "$WORK/gpt.img" --rw=randwrite; rc=$?
[ $rc = 1 ] && grep -qi "refusing to write.*gpt" "$WORK/e"; ok $? "partition table refused: $(cat "$WORK/e")"
run "$WORK/disk.qcow2" --rw=write --size=64k; rc=$?
[ $rc = 1 ] && grep -qi "refusing to write.*qcow2" "$WORK/e"; ok $? "qcow2 refused: $(cat "$WORK/e")"
run "$WORK/ext4.img" --rw=randread; ok $? "reading the ext4 image is allowed"
run "$WORK/ext4.img" --rw=write --size=32m --allow-destroy-data; ok $? "--allow-destroy-data overrides"
# written in full: not even a backup superblock is left
run "$WORK/ext4.img" --rw=write; ok $? "after being overwritten it holds no filesystem: allowed"
finish
