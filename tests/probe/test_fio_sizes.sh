#!/bin/bash
# The probe issues the I/O fio 3.33 issues (write_iolog: offset, length,
# direction, in order) where sizes meet their limits: a size that is not a
# multiple of bs (the block past the end of the file is not issued, the one
# straddling the end of the region is while the file goes on), size below
# filesize, an existing file without size, io_size beyond size, filesize
# ranges, loops
# (randrepeat repeats the pass, number_ios counts over them; time_based
# ignores it); and fio's own draws of bsrange and bssplit
# sizes and of rwmixread's direction.  Then rate and rate_iops of a job
# that reads and writes: each direction keeps its own rate (fio's
# rate_ddir turns to the direction that is due).
. "$(dirname "$0")/lib.sh"
FIO=${FIO:-fio}
command -v "$FIO" > /dev/null || skip_all "fio is not installed"
cd "$WORK" || exit 1

# The I/O lines of the logs (file, op, offset, length), each file's in order.
ops() {
	awk 'NF == 5 && $3 ~ /^(read|write|trim)$/ { print $2, $3, $4, $5 }' "$@" | sort -s -k1,1
}

# run TOOL NAME: the job file NAME.fio by TOOL from the same start: no
# files but those $PREP makes; its log's I/O lines into NAME.TOOL.ops
run() {
	rm -f ./*.iolog data*
	eval "${PREP:-true}"
	"$1" "$2.fio" > /dev/null 2> "$2.$3.err" && ops ./*.iolog > "$2.$3.ops"
}

# same NAME JOB-FILE-LINES...: fio's and the probe's logs are the same
same() {
	local name=$1
	shift
	printf '%s\n' "[global]" "ioengine=psync" "filename=data" "write_iolog=x.iolog" \
		"[x]" "$@" > "$name.fio"
	run "$FIO" "$name" fio
	run "$PROBE" "$name" probe
	[ -s "$name.fio.ops" ] && cmp -s "$name.fio.ops" "$name.probe.ops"
	ok $? "$name: the probe's $(wc -l < "$name.probe.ops" 2> /dev/null) I/Os are fio's \
$(wc -l < "$name.fio.ops" 2> /dev/null) $(cat "$name".*.err | head -c 200 | tr '\n' ' ')"
}

# sizes at their limits
PREP=
same size-not-bs-multiple rw=read size=3906k
same size-below-filesize rw=read filesize=1M size=512k offset=256k
same io_size-beyond-size rw=read size=3906k io_size=8m
same write-size-not-bs-multiple rw=write bs=64k size=1000k
same loops-randrepeat rw=randread size=256k loops=2
same loops-randrw rw=randrw size=256k loops=2 bsrange=4k-16k
same loops-norandrepeat rw=randread size=64k loops=2 randrepeat=0 randseed=5
same loops-number_ios rw=read size=64k number_ios=10 loops=3
same io_size-randrw rw=randrw size=64k io_size=300k
same io_size-rand-bsrange rw=randread size=64k io_size=200k bsrange=4k-16k
same size-not-bs-multiple-rand rw=randread size=3906k
PREP="truncate -s 8M data"
same straddles-region-end rw=read size=3906k
PREP="head -c 100k /dev/zero > data"
same existing-file-no-size rw=read bs=64k
same existing-file-io_size rw=read bs=64k io_size=320k
PREP=

# fio's draws of block sizes and directions
same bsrange-seq rw=read bsrange=4k-64k size=1M
same bsrange-rand rw=randread bsrange=4k-64k size=1M
same bsrange-unaligned rw=read bsrange=1k-9k bs_unaligned size=1M
same bssplit-rand rw=randread bssplit=4k/30:16k/50:64k/20 size=1M
same bssplit-missing rw=randwrite bssplit=4k:8k/50:32k size=1M
same bssplit-per-ddir rw=randrw bssplit=4k/50:8k/50,16k/70:64k/30 size=2M
same randrw-70 rw=randrw rwmixread=70 size=1M
same randrw-70-bsrange rw=randrw rwmixread=70 bsrange=4k-32k size=1M
same rw-30-bssplit rw=rw rwmixread=30 bssplit=4k/60:16k/40 size=1M
same randrw-seed rw=randrw randseed=99 bsrange=2k-8k size=512k
same randrw-number_ios rw=randrw number_ios=100 bsrange=4k-16k size=1M
same randrw-two-jobs rw=randrw rwmixread=60 size=512k bsrange=4k-16k write_iolog=a.iolog \
	"[y]" rw=randrw rwmixread=60 size=512k offset=512k bsrange=4k-16k write_iolog=b.iolog
same tausworthe64-bsrange rw=randread random_generator=tausworthe64 bsrange=4k-32k size=1M
same randread-4-per-offset rw=randread:4 size=1M
same randread-4-identical rw=randread:4 rw_sequencer=identical size=256k
same percentage-random rw=randread percentage_random=50 bsrange=4k-16k size=1M

# filesize=low-high: each file's size is fio's draw (per clone and job)
printf '%s\n' "[global]" ioengine=psync rw=write bs=4k nrfiles=3 filesize=64k-1M \
	"[x]" numjobs=2 "[y]" bs=16k randseed=7 > filesizes.fio
for tool in "$FIO" "$PROBE"; do
	mkdir "out.${tool##*/}" && (cd "out.${tool##*/}" && "$tool" ../filesizes.fio > /dev/null &&
		stat -c '%n %s' ./* > "../sizes.${tool##*/}.txt")
done
[ "$(wc -l < "sizes.${FIO##*/}.txt")" = 9 ] && cmp -s "sizes.${FIO##*/}.txt" "sizes.${PROBE##*/}.txt"
ok $? "filesize=64k-1M: the probe's 9 files have fio's sizes ($(tr '\n' ' ' < "sizes.${PROBE##*/}.txt"))"

# time_based ignores number_ios, as fio's do_io
printf '%s\n' "[x]" ioengine=null size=64k rw=randread time_based runtime=1 number_ios=40 \
	write_iolog=x.iolog > tb.fio
for tool in "$FIO" "$PROBE"; do
	rm -f x.iolog
	"$tool" tb.fio > /dev/null 2> tb.err
	[ "$(awk 'NF == 5 && $3 == "read"' x.iolog | wc -l)" -gt 40 ]
	ok $? "time_based number_ios=40: $(basename "$tool") goes on past 40 I/Os $(head -c 200 tb.err)"
done

# rate of each direction of a read/write job: each direction is held to
# its own rate (the probe's runs, fio's; the counts' ratio, not a timing)
rates() { # rates NAME OPTION...: reads and writes in 3 s at 100/s and 200/s
	local name=$1
	shift
	printf '%s\n' "[x]" ioengine=null size=1g rw=randrw time_based runtime=3 \
		write_iolog=x.iolog "$@" > "$name.fio"
	for tool in "$FIO" "$PROBE"; do
		rm -f x.iolog
		"$tool" "$name.fio" > /dev/null 2> rate.err
		awk 'NF == 5 { n[$3]++ } END { r = n["write"] / (n["read"] ? n["read"] : 1);
			printf "%d reads, %d writes: ", n["read"], n["write"]; exit !(r > 1.6 && r < 2.4) }' \
			x.iolog > rate.out
		ok $? "$name: $(basename "$tool") writes at twice the rate it reads ($(cat rate.out)) \
$(head -c 200 rate.err)"
	done
}
rates rate_iops rate_iops=100,200 bs=4k
rates rate rate=400k,800k bs=4k
echo "1..$n"
finish
