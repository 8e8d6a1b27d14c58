#!/bin/bash
# The probe's random offsets are fio's: for the same job file (null engine,
# nothing read or written), fio 3.33 and the probe log the same offsets in
# the same order with write_iolog: fio's Tausworthe generators and seeds
# (randrepeat, randseed, per-job and per-clone), its block draw, its random
# map's next free block, norandommap, random_generator=lfsr and
# tausworthe64, random_distribution=zoned, zoned_abs and normal, blockalign.
. "$(dirname "$0")/lib.sh"
FIO=${FIO:-fio}
command -v "$FIO" > /dev/null || skip_all "fio is not installed"
cd "$WORK" || exit 1

# same NAME JOB-FILE-LINES...: every job's offsets, in order, as fio logs them
same() {
	local name=$1
	shift
	printf '%s\n' "[global]" "ioengine=null" "filesize=1M" "$@" > "$name.fio"
	ops() { # a log's I/O lines (file, op, offset, length), each file's in order
		awk 'NF == 5 && $3 ~ /^(read|write|trim)$/ { print $2, $3, $4, $5 }' "$@" |
			sort -s -k1,1
	}
	rm -f ./*.iolog
	"$FIO" "$name.fio" > /dev/null 2> fio.err && ops ./*.iolog > "$name.fio.ops"
	rm -f ./*.iolog
	"$PROBE" "$name.fio" > /dev/null 2> probe.err && ops ./*.iolog > "$name.probe.ops"
	[ -s "$name.fio.ops" ] && cmp -s "$name.fio.ops" "$name.probe.ops"
	ok $? "$name: the probe's $(wc -l < "$name.probe.ops") I/Os are fio's $(wc -l < "$name.fio.ops") \
$(cat fio.err probe.err | head -c 200 | tr '\n' ' ')"
}

same randread-4k "[x]" rw=randread write_iolog=x.iolog
same randread-8k "[x]" rw=randread bs=8k write_iolog=x.iolog
same randread-512 "[x]" rw=randread bs=512 write_iolog=x.iolog
same randwrite-64k "[x]" rw=randwrite bs=64k write_iolog=x.iolog
same two-jobs "[x]" rw=randread write_iolog=x.iolog "[y]" rw=randwrite bs=16k write_iolog=y.iolog
same clones "[x]" rw=randread numjobs=2 write_iolog=x.iolog
same randseed "[x]" rw=randread randseed=1234 write_iolog=x.iolog
same randseed-norepeat "[x]" rw=randread randseed=1234 randrepeat=0 write_iolog=x.iolog
same norandommap "[x]" rw=randread norandommap write_iolog=x.iolog
same lfsr "[x]" rw=randread random_generator=lfsr write_iolog=x.iolog
same tausworthe64 "[x]" rw=randread random_generator=tausworthe64 write_iolog=x.iolog
same offset "[x]" rw=randread size=768k offset=256k write_iolog=x.iolog
same zoned "[x]" rw=randread norandommap "random_distribution=zoned:50/5:30/15:20/" \
	write_iolog=x.iolog
same zoned_abs "[x]" rw=randread norandommap "random_distribution=zoned_abs:50/64k:50/512k" \
	write_iolog=x.iolog
same blockalign "[x]" rw=randread bs=4k blockalign=8k write_iolog=x.iolog
# normal: fio's gauss.c, seeded from the file's name (no random map: fio turns it off)
same normal "[x]" rw=randread random_distribution=normal write_iolog=x.iolog
same normal-dev "[x]" rw=randread random_distribution=normal:10 write_iolog=x.iolog
same normal-write "[x]" rw=randwrite bs=8k random_distribution=normal:25 write_iolog=x.iolog
same normal-norandommap "[x]" rw=randread norandommap random_distribution=normal:5 \
	write_iolog=x.iolog
same normal-two-jobs "[x]" rw=randread random_distribution=normal write_iolog=x.iolog \
	"[y]" rw=randwrite bs=16k random_distribution=normal:40 write_iolog=y.iolog
same normal-clones "[x]" rw=randread numjobs=2 random_distribution=normal:10 write_iolog=x.iolog
same normal-norepeat "[x]" rw=randread randseed=99 randrepeat=0 random_distribution=normal:10 \
	write_iolog=x.iolog
same zoned-map "[x]" rw=randread "random_distribution=zoned:50/5:30/15:20/" write_iolog=x.iolog

# fio's t0020 check: no run of more than 10 consecutive offsets
awk '{ o = $3 / 4096; run = (o == prev + 1) ? run + 1 : 1; if (run > max) max = run; prev = o }
     END { exit max > 10 }' randread-4k.probe.ops
ok $? "randread-4k: no run of more than 10 consecutive blocks (fio's t0020)"
[ "$(awk '{ print $3 }' randread-4k.probe.ops | sort -u | wc -l)" = 256 ]
ok $? "randread-4k: the random map gives each of the 256 blocks once"

# fio's lenient sizes: bsrange=512/25:1k:25:2k:25:4k/25 is 512-1k (t0023)
printf '%s\n' "[x]" ioengine=null filesize=64k rw=randread write_iolog=x.iolog \
	"bsrange=512/25:1k:25:2k:25:4k/25" > lenient.fio
rm -f ./*.iolog
"$PROBE" lenient.fio > /dev/null 2> probe.err &&
	[ "$(awk 'NF == 5 && $3 == "read" { print $5 }' x.iolog | sort -un | tr '\n' ' ')" = "512 1024 " ]
ok $? "bsrange=512/25:1k:25:2k:25:4k/25 reads 512 and 1k blocks, as fio $(head -c 200 probe.err)"

# refused as fio refuses them, naming file:line and the option
refused() { # refused DESCRIPTION OPTION-LINE
	printf '%s\n' "[x]" rw=randread "$2" > bad.fio
	! "$PROBE" --parse-only bad.fio 2> err.txt && grep -q "bad.fio:3: option '${2%%=*}'" err.txt &&
		! "$FIO" --parse-only bad.fio > /dev/null 2>&1
	ok $? "$1: refused by the probe and by fio ($(head -c 200 err.txt))"
}
refused "zoned access percentages short of 100" "random_distribution=zoned:50/5:30/15"
refused "zoned sizes beyond 100%" "random_distribution=zoned:50/60:50/60"
refused "a per-direction zoned list (fio 3.33's parser)" "random_distribution=zoned:50/5:50/95,100/"
refused "an unknown generator" "random_generator=mersenne"
refused "a normal deviation of 100%" "random_distribution=normal:100"
echo "1..$n"
finish
