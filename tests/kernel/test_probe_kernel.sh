#!/bin/bash
# Kernel points on this machine (docs/kernel-points.md): the probe records
# block_rq_issue/complete of the disk under a file through a private tracefs
# instance; every request of an O_DIRECT QD1 read job on a file filled with
# data matches one kernel request (offsets through FIEMAP); the instance is
# removed at exit, a killed probe's stale instance by the next probe; bad
# setups are clear errors.  Skips without tracefs (CI, as root, has it).
. "$(dirname "$0")/../probe/lib.sh"
T=${IOGAP_TRACEFS:-/sys/kernel/tracing}
if [ ! -d "$T/events/block" ] && [ "$(id -u)" = 0 ]; then
	mount -t tracefs nodev "$T" 2>/dev/null
fi
[ -d "$T/events/block" ] || skip_all "no tracefs with block events at $T (not root, or not mountable)"
[ -w "$T/instances" ] || skip_all "$T/instances not writable (private instances need root)"
KF="$IOGAP_BUILD/tests/kernel/kmatch_files"
echo "1..10"

# data, not a sparse or fallocated file (those read without device I/O)
head -c $((16 << 20)) /dev/urandom > "$WORK/data.img" && sync "$WORK/data.img"
pid_max=$(cat /proc/sys/kernel/pid_max)
stale="$T/instances/iogap-$((pid_max + 1))"   # a pid no process can have
mkdir "$stale"
"$PROBE" --eta=never --name=k --ioengine=psync --direct=1 --rw=randread --bs=4k \
	--io_size=2m --filename="$WORK/data.img" --trace="$WORK/p.trace" \
	--kernel-trace="$WORK/k.trace" --output-format=terse > /dev/null 2> "$WORK/err"
ok $? "O_DIRECT randread with --kernel-trace: $(cat "$WORK/err")"
[ ! -d "$stale" ]; ok $? "a stale instance of a pid that is gone was removed"
left=$(for d in "$T"/instances/iogap-*; do
	[ -d "$d" ] && ! kill -0 "${d##*-}" 2>/dev/null && echo "$d"; done)
[ -z "$left" ]; ok $? "no instance of a finished probe is left ($left)"
"$PROBE" --dump-trace "$WORK/k.trace" > "$WORK/k.txt"
grep -q '^layer: bare-kernel$' "$WORK/k.txt" && grep -q '^clock: 1 (host-monotonic)' "$WORK/k.txt"
ok $? "kernel trace: layer bare-kernel, the probe's clock"
"$KF" "$WORK/p.trace" "$WORK/k.trace" "$WORK/data.img" > "$WORK/m.txt"
ok $? "matching runs: $(cat "$WORK/m.txt")"
grep -q '^requests=512 .* matched=512 none=0 ambiguous=0 ' "$WORK/m.txt"
ok $? "each of the 512 requests matched exactly one kernel request"

# a probe killed in the middle leaves its instance; the next one cleans it
"$PROBE" --eta=never --name=k --ioengine=psync --direct=1 --rw=randread --bs=4k \
	--time_based --runtime=60 --filename="$WORK/data.img" --kernel-trace="$WORK/k2.trace" \
	--output-format=terse > /dev/null 2>&1 &
victim=$!
for _ in $(seq 50); do [ -d "$T/instances/iogap-$victim" ] && break; sleep 0.1; done
kill -9 "$victim"; wait "$victim" 2>/dev/null
[ -d "$T/instances/iogap-$victim" ]; ok $? "a killed probe leaves instances/iogap-$victim"
"$PROBE" --eta=never --name=k --ioengine=psync --direct=1 --rw=randread --bs=4k \
	--io_size=64k --filename="$WORK/data.img" --kernel-trace="$WORK/k3.trace" \
	--output-format=terse > /dev/null 2>&1
[ $? = 0 ] && [ ! -d "$T/instances/iogap-$victim" ]
ok $? "the next probe removes it"

"$PROBE" --eta=never --name=n --ioengine=null --size=1m --kernel-trace="$WORK/n.trace" \
	> /dev/null 2> "$WORK/n.err"
[ $? != 0 ] && grep -q "no job has a file or device target" "$WORK/n.err"
ok $? "no disk to follow: $(cat "$WORK/n.err")"
IOGAP_TRACEFS=/nonexistent "$PROBE" --eta=never --name=k --ioengine=psync --size=1m \
	--filename="$WORK/data.img" --kernel-trace="$WORK/x.trace" > /dev/null 2> "$WORK/x.err"
[ $? != 0 ] && grep -q "no block tracepoints under /nonexistent" "$WORK/x.err"
ok $? "no tracefs: $(cat "$WORK/x.err")"
finish
