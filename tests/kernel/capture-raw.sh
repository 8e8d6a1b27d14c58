#!/bin/sh
# capture-raw.sh OUT FILE: record the fixture of the raw-page decoder test
# (test_kmatch.c, tests/kernel/raw-*/) on the running kernel, as root.
#
# A private tracefs instance with a small buffer (so that it overruns)
# records block_rq_issue/complete while 2000 O_DIRECT 4 KiB reads of FILE
# run, then OUT gets what the decoder reads, in tracefs's layout:
# events/header_page, events/block/block_rq_{issue,complete}/format; and,
# for the CPU with the most events, cpu.raw (the first page its
# trace_pipe_raw gives), cpu.stats (its stats: the overrun) and cpu.expect
# (its events as the kernel prints them in text, read before the raw page:
# "issue|complete SECONDS.MICROSECONDS MAJOR,MINOR RWBS SECTOR NR_SECTOR ERROR").
# Plain POSIX sh with awk and dd: runs in the guest's busybox too.
set -e
out=$1 file=$2
T=${IOGAP_TRACEFS:-/sys/kernel/tracing}
I=$T/instances/capture-$$
mkdir -p "$out/events/block/block_rq_issue" "$out/events/block/block_rq_complete"
mkdir "$I"
trap 'echo 0 > "$I/events/block/enable"; rmdir "$I"' EXIT
echo mono > "$I/trace_clock"
echo 8 > "$I/buffer_size_kb"
echo 1 > "$I/events/block/block_rq_issue/enable"
echo 1 > "$I/events/block/block_rq_complete/enable"
dd if="$file" of=/dev/null iflag=direct bs=4k count=2000 2> /dev/null
echo 0 > "$I/tracing_on"
cpu=$(for c in "$I"/per_cpu/cpu*; do
	echo "$(sed -n 's/^entries: //p' "$c/stats") ${c##*/}"; done | sort -n | tail -n 1 | cut -d' ' -f2)
cp "$I/events/header_page" "$out/events/"
for e in block_rq_issue block_rq_complete; do
	cp "$I/events/block/$e/format" "$out/events/block/$e/"
done
cp "$I/per_cpu/$cpu/stats" "$out/cpu.stats"
awk '{
	for (i = 2; i <= NF; i++) if ($i ~ /^block_rq_(issue|complete):$/) break
	if (i > NF) next
	for (j = i; j <= NF && $j != "+"; j++) ;
	err = $i == "block_rq_complete:" ? $NF : 0
	gsub(/[][]/, "", err)
	kind = $i; sub(/^block_rq_/, "", kind); sub(/:$/, "", kind)
	stamp = $(i - 1); sub(/:$/, "", stamp)
	print kind, stamp, $(i + 1), $(i + 2), $(j - 1), $(j + 1), err
}' "$I/per_cpu/$cpu/trace" > "$out/cpu.expect"
dd if="$I/per_cpu/$cpu/trace_pipe_raw" of="$out/cpu.raw" bs=4096 count=1 2> /dev/null
