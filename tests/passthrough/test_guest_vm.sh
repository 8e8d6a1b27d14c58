#!/bin/bash
# A TCG guest with QEMU's emulated NVMe stands in for a passthrough guest:
# scripts/passthrough-collect.sh --guest runs in it (busybox sh), its tree
# comes back as a tar written onto the virtio disk, and
# iogap passthrough check --guest on that tree says the NVMe is QEMU's.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/../vm/lib.sh"
IOGAP=$BUILD/host-tools/iogap
echo "1..4"
truncate -s 16M "$WORK/disk.img"
truncate -s 64M "$WORK/nvme.img"
{
	echo "cat > /tmp/collect.sh <<'IOGAP_COLLECT_EOF'"
	cat "$SRC/scripts/passthrough-collect.sh"
	echo "IOGAP_COLLECT_EOF"
	echo 'sh /tmp/collect.sh --guest /tmp/tree && tar cf /dev/vda -C /tmp/tree . && sync'
} > "$WORK/cmd.sh"
boot "$WORK/log" --mode shell-cmd --cmd-file "$WORK/cmd.sh" --disk "$WORK/disk.img" --timeout 240 \
	-- -smp 2 -drive "if=none,id=nv0,file=$WORK/nvme.img,format=raw" -device nvme,serial=iogapnvme,drive=nv0
grep -q '^IOGAP-CMD-EXIT 0$' "$WORK/log"
ok $? "the collector ran in the guest and wrote its tree"
mkdir "$WORK/tree" && tar xf "$WORK/disk.img" -C "$WORK/tree" && [ -f "$WORK/tree/proc/interrupts" ]
ok $? "the tree came back (tar on the virtio disk)"
"$IOGAP" passthrough check --guest --root "$WORK/tree" > "$WORK/out" 2>&1
rc=$?
sed 's/^/# /' "$WORK/out" | grep -v '^#     '
[ $rc = 1 ] && grep -q '^WARNING not-passthrough: [0-9a-f:.]* \[1b36:0010\] subsystem 1af4:1100: emulated device (QEMU NVMe), not passthrough$' "$WORK/out"
ok $? "check --guest: emulated device (QEMU NVMe), not passthrough (exit $rc)"
# the nvme driver gives each of the 2 vCPUs a queue, each with its vector, plus the admin one
grep -q '^INFO nvme-queues: nvme0n1 (nvme0): 2 hardware queues, 3 interrupt vectors .*CPUs online 0-1;' "$WORK/out"
ok $? "2 vCPUs: 2 hardware queues, 3 vectors (admin included)"
[ $failed = 0 ] || diag "$WORK/log"
finish
