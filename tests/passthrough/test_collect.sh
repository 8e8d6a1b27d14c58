#!/bin/bash
# scripts/passthrough-collect.sh copies what the check reads: on this
# machine, a tree collected for a live process and a PCI device checks
# exactly as the live system does (same findings, same messages).
. "$(dirname "$0")/../tap.sh"
IOGAP=${IOGAP_BUILD:?}/host-tools/iogap
COLLECT=${IOGAP_SRC:?}/scripts/passthrough-collect.sh
WORK=$(mktemp -d)
sleep 300 &
pid=$!
trap 'kill $pid; rm -rf "$WORK"' EXIT
echo "1..4"
dev=$(ls /sys/bus/pci/devices | head -1)
[ -n "$dev" ] || { echo "Bail out! no PCI device on this machine"; exit 1; }
"$COLLECT" --qemu-pid $pid --device "$dev" "$WORK/tree" 2> "$WORK/collect.err"
ok $? "collector: exit 0 for process $pid and device $dev"
"$IOGAP" passthrough check --qemu-pid $pid --device "$dev" > "$WORK/live" 2>&1
live=$?
"$IOGAP" passthrough check --root "$WORK/tree" --qemu-pid $pid --device "$dev" > "$WORK/tree.out" 2>&1
tree=$?
sed 's/^/# live: /' "$WORK/live" | grep -v '^# live:     '
[ $live = $tree ] && cmp -s "$WORK/live" "$WORK/tree.out"
ok $? "the tree checks as the live system (exit $tree, $(grep -cE '^(INFO|WARNING|ERROR) ' "$WORK/tree.out") findings, identical output)"
[ $failed = 0 ] || diff "$WORK/live" "$WORK/tree.out" | sed 's/^/# /'
! grep -q unreadable "$WORK/tree.out"
ok $? "nothing the check needs is missing from the tree"
# the guest side, on this machine's own PCI devices
"$COLLECT" --guest "$WORK/guest" 2> "$WORK/collect.err" &&
	"$IOGAP" passthrough check --guest > "$WORK/live" 2>&1
live=$?
"$IOGAP" passthrough check --guest --root "$WORK/guest" > "$WORK/tree.out" 2>&1
[ $live = $? ] && cmp -s "$WORK/live" "$WORK/tree.out"
ok $? "--guest: the tree checks as the live system (exit $live)"
finish
