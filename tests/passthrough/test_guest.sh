#!/bin/bash
# iogap passthrough check --guest on guest trees: guest-qemu-nvme was recorded
# in a TCG guest with QEMU's emulated NVMe and a virtio-blk disk
# (scripts/passthrough-collect.sh --guest); guest-assigned is that tree with
# the NVMe given a real device's IDs and mq-deadline (mktrees.sh).
. "$(dirname "$0")/../tap.sh"
IOGAP=${IOGAP_BUILD:?}/host-tools/iogap
TREES=$(dirname "$0")/trees
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
run() { "$IOGAP" passthrough check --guest "$@" > "$WORK/out" 2>&1; rc=$?; }
codes() { sed -n 's/^\(INFO\|WARNING\|ERROR\) \([a-z0-9-]*\):.*/\1 \2/p' "$WORK/out" | paste -sd, -; }
echo "1..9"

run --root "$TREES/guest-qemu-nvme"
[ $rc = 1 ] && [ "$(codes)" = "WARNING not-passthrough,WARNING not-passthrough,INFO nvme-queues,INFO io-scheduler" ]
ok $? "QEMU NVMe guest: exit $rc, $(codes)"
grep -q '^WARNING not-passthrough: 0000:00:05.0 \[1b36:0010\] subsystem 1af4:1100: emulated device (QEMU NVMe), not passthrough$' "$WORK/out"
ok $? "the NVMe: emulated device (QEMU NVMe), not passthrough"
grep -q '^WARNING not-passthrough: 0000:00:04.0 \[1af4:1001\] .*paravirtual device (virtio), not passthrough$' "$WORK/out"
ok $? "the virtio-blk disk: paravirtual, not passthrough"
grep -q '^INFO nvme-queues: nvme0n1 (nvme0): 2 hardware queues, 3 interrupt vectors (nvme0q\*, admin included, 15 interrupts), CPUs online 0-1; io_poll=0 io_poll_delay=-1 nvme.poll_queues=0$' "$WORK/out"
ok $? "queues (mq/), vectors and their interrupts (/proc/interrupts), polling settings"
grep -q '^INFO io-scheduler: nvme0n1: scheduler none$' "$WORK/out"
ok $? "scheduler: the bracketed one of '[none] mq-deadline'"

run --root "$TREES/guest-assigned" --device 00:05.0
[ $rc = 1 ] && [ "$(codes)" = "INFO device,INFO nvme-queues,WARNING io-scheduler" ] &&
	grep -q '^INFO device: 0000:00:05.0 \[144d:a824\] subsystem 144d:a801 class 0x010802: a real device' "$WORK/out" &&
	grep -q '^WARNING io-scheduler: nvme0n1: scheduler mq-deadline$' "$WORK/out"
ok $? "assigned NVMe (--device): its own IDs; mq-deadline is a warning: $(codes)"

# broken guest trees
rm -rf "$WORK/t"; cp -a "$TREES/guest-qemu-nvme" "$WORK/t"; rm -r "$WORK/t/sys/block/nvme0n1/mq"
echo garbage > "$WORK/t/sys/bus/pci/devices/0000:00:04.0/vendor"
run --root "$WORK/t"
[ $rc = 1 ] && grep -q 'unreadable: /sys/block/nvme0n1/mq: cannot list' "$WORK/out"
ok $? "no mq/: exit $rc, named; a garbage vendor ID is not taken for storage"
run --root "$WORK/t" --device 00:04.0
[ $rc = 1 ] && grep -q 'unreadable: /sys/bus/pci/devices/0000:00:04.0: its vendor, device or class' "$WORK/out"
ok $? "--device with a garbage vendor ID: exit $rc, named"
run --root "$WORK/nothing"
[ $rc = 2 ] && grep -q 'sys/bus/pci/devices: cannot list the PCI devices' "$WORK/out"
ok $? "no tree: exit $rc with a message"
finish
