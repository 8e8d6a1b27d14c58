#!/bin/bash
# zonemode=zbd on zones the probe emulates in a regular file (and
# zonemode=strided): the issue's acceptance checks on the host, verified
# from the traces with check_trace.py, and the bad-input errors.
. "$(dirname "$0")/../probe/lib.sh"
CHECK="python3 $(dirname "$0")/check_trace.py"
FIXTURE=${IOGAP_ZBD_FIXTURE:-$IOGAP_SRC/tests/data/zbd-streams.fio}
echo "1..32"
Z=$((1 << 20))               # 1 MiB zones
img=$WORK/zoned.img
probe() { "$PROBE" --eta=never --allow-destroy-data "$@"; }
dump() { "$PROBE" --dump-trace="$1" > "$1.txt"; }

# 1-5: sequential write over 4 zones, twice: the second pass resets each zone
cat > "$WORK/seq.fio" <<JOB
[global]
filename=$img
zonemode=zbd
zonesize=1m
direct=1
bs=64k
size=4m
[pass1]
rw=write
[pass2]
stonewall
rw=write
JOB
probe --trace="$WORK/seq.trace" "$WORK/seq.fio" > "$WORK/seq.out" 2>&1
ok $? "sequential write over 4 emulated zones, two passes"
grep -A1 '^pass1:' "$WORK/seq.out" | grep -q '(4096KiB/.*; 0 zone resets$'
ok $? "first pass: 4 MiB written, 0 zone resets"
grep -A1 '^pass2:' "$WORK/seq.out" | grep -q '(4096KiB/.*; 4 zone resets$'
ok $? "second pass: 4 zone resets ($(grep -o '[0-9]* zone resets' "$WORK/seq.out" | tr '\n' ' '))"
dump "$WORK/seq.trace"
$CHECK "$WORK/seq.trace.txt" $Z wp resets=4 writes=128 > "$WORK/seq.chk"
ok $? "trace: 128 writes at the write pointers, 4 resets: $(tr '\n' ' ' < "$WORK/seq.chk")"
probe --name=n --filename="$img" --rw=write --bs=64k --size=4m --direct=1 > "$WORK/none.out" 2>&1
ok $? "the same job without zonemode=zbd on a file is plain I/O (a real zoned device fails: tests/vm)"

# 6-9: randwrite numjobs=4 with max_open_zones=2 (psync), then libaio at depth 4
for eng in psync libaio; do
	rm -f "$img"
	probe --name=rw --filename="$img" --zonemode=zbd --zonesize=1m --direct=1 --bs=64k \
		--size=8m --io_size=6m --rw=randwrite --numjobs=4 --max_open_zones=2 --ioengine=$eng \
		--iodepth=4 --trace="$WORK/rw-$eng.trace" > "$WORK/rw-$eng.out" 2>&1
	[ $? = 0 ] && ! grep -q 'err= *[1-9]' "$WORK/rw-$eng.out"
	ok $? "$eng: randwrite numjobs=4 max_open_zones=2 runs without error"
	dump "$WORK/rw-$eng.trace"
	$CHECK "$WORK/rw-$eng.trace.txt" $Z wp maxopen=2 > "$WORK/rw-$eng.chk"
	ok $? "$eng: $(tr '\n' ' ' < "$WORK/rw-$eng.chk")"
done

# 10-12: randread afterwards reads only written sectors (write 2.5 zones first)
rm -f "$img"
cat > "$WORK/rr.fio" <<JOB
[global]
filename=$img
zonemode=zbd
zonesize=1m
direct=1
size=4m
[w]
rw=write
bs=128k
io_size=2560k
[r]
stonewall
rw=randread
bs=16k
numjobs=2
io_size=2m
JOB
probe --trace="$WORK/rr.trace" "$WORK/rr.fio" > "$WORK/rr.out" 2>&1
ok $? "write 2.5 zones, then randread numjobs=2"
dump "$WORK/rr.trace"
$CHECK "$WORK/rr.trace.txt" $Z readwp > "$WORK/rr.chk"
ok $? "$(cat "$WORK/rr.chk")"
awk '/op=read/ { sub(/.*offset=/, ""); split($0, a, " "); if (a[1] >= 2621440) bad++ } END { exit bad > 0 }' "$WORK/rr.trace.txt"
ok $? "no read at or beyond 2.5 MiB (the last write pointer)"

# 13-18: the streams fixture scaled to the file: 4 streams in disjoint ranges
if [ -f "$FIXTURE" ]; then
	S=$((16 << 20))
	awk -v img="$img" -v S=$S '
		/^filename=/ { print "filename=" img; print "zonesize=4m"; next }
		/^offset=/ { print "offset=" (S * k++); next }
		/^size=/ { print "size=" S; next }
		/^io_size=/ { print "io_size=12m"; next }
		{ print }' "$FIXTURE" > "$WORK/streams.fio"
	rm -f "$img"; truncate -s $((4 * S)) "$img"
	probe --trace="$WORK/st.trace" --output-format=json "$WORK/streams.fio" > "$WORK/st.json" 2> "$WORK/st.err"
	ok $? "scaled streams fixture runs ($(grep -c '^\[stream' "$WORK/streams.fio") streams, 512K randwrite:512 sequential)"
	python3 -c "import json,sys; d=json.load(open('$WORK/st.json')); j=d['jobs'][0]; sys.exit(not (j['error']==0 and j['write']['io_bytes']==4*12*2**20))"
	ok $? "group report: 4 x 12 MiB written, no error"
	dump "$WORK/st.trace"
	for k in 0 1 2 3; do
		$CHECK "$WORK/st.trace.txt" $((4 << 20)) "job=$k:$((k * S)):$(((k + 1) * S))" > "$WORK/st$k.chk"
		ok $? "stream $((k + 1)): $(cat "$WORK/st$k.chk")"
	done
else
	for i in 1 2 3 4 5 6; do ok 1 "fixture $FIXTURE missing (it is in the repository)"; done
fi

# 19: zonemode=strided: 64k from each 1 MiB window
rm -f "$img"
probe --name=s --filename="$img" --zonemode=strided --zonesize=64k --zonerange=1m --size=4m \
	--io_size=256k --rw=read --bs=16k --trace="$WORK/s.trace" > /dev/null 2>&1 && dump "$WORK/s.trace"
awk '/op=read/ { sub(/.*offset=/, ""); split($0, a, " "); n++; if (a[1] % 1048576 >= 65536) bad++; w[int(a[1] / 1048576)] = 1 }
	END { exit !(n == 16 && !bad && length(w) == 4) }' "$WORK/s.trace.txt"
ok $? "strided: 16 reads, 64 KiB at the start of each of 4 windows"

# 20-22: garbage collection by trim, after fio's examples/zbd-rand-write-trim-gc.fio:
# a trim of a sequential zone resets it (fio's zbd_do_io_u_trim), random trims pick
# zones holding data, flow=8 keeps one trim per eight writes (fio's rule lets either job run a share ahead: ±2 trims)
rm -f "$img"; truncate -s 16m "$img"
cat > "$WORK/gc.fio" <<JOB
[global]
filename=$img
zonemode=zbd
zonesize=1m
direct=1
time_based
runtime=2
offset=4z
size=8z
[warmup]
rw=randwrite
bs=128k
runtime=1
[wjob]
wait_for=warmup
rw=randwrite
bs=128k
ioengine=libaio
iodepth=4
flow=8
[trimjob]
wait_for=warmup
rw=randtrim
bs=1m
flow=1
JOB
probe --trace="$WORK/gc.trace" "$WORK/gc.fio" > "$WORK/gc.out" 2>&1
[ $? = 0 ] && ! grep -q 'err= *[1-9]' "$WORK/gc.out" && grep -A1 '^trimjob:' "$WORK/gc.out" | grep -q 'trim: IOPS='
ok $? "trim-gc job: writes and trims of whole zones run without error"
dump "$WORK/gc.trace"
$CHECK "$WORK/gc.trace.txt" $Z wp trims > "$WORK/gc.chk"
ok $? "$(tr '\n' ' ' < "$WORK/gc.chk")"
awk '/op=write/ && / job=1 / { w++ } /op=trim/ { t++ } END { exit !(t > 0 && w >= 8 * (t - 2) && w <= 8 * (t + 2)) }' "$WORK/gc.trace.txt"
ok $? "flow: $(grep -c 'op=trim' "$WORK/gc.trace.txt") trims, $(grep 'op=write' "$WORK/gc.trace.txt" | grep -c ' job=1 ') writes of wjob (8 per trim)"

# 23-32: bad input, each a clear error before anything runs
rm -f "$img"; truncate -s 8m "$img"
bad() { # bad EXPECTED-REGEX DESCRIPTION OPTIONS...
	local want=$1 what=$2; shift 2
	probe --name=b --filename="$img" --rw=write --direct=1 --bs=64k "$@" > "$WORK/bad.out" 2> "$WORK/bad.err"
	local rc=$?
	[ $rc = 1 ] && grep -Eq "$want" "$WORK/bad.err"
	ok $? "$what: $(head -n 1 "$WORK/bad.err")"
}
bad "offset=65536 is not at a zone start" "misaligned offset" --zonemode=zbd --zonesize=1m --offset=64k --size=2m
bad "offset\+size=.* does not end at a zone boundary" "misaligned size" --zonemode=zbd --zonesize=1m --size=1536k
bad "zonesize is required" "zbd on a file without zonesize" --zonemode=zbd --size=2m
bad "smaller than zonesize" "zonesize larger than the file" --zonemode=zbd --zonesize=16m
bad "block size 2097152 is larger than the zone size" "block size above the zone size" --zonemode=zbd --zonesize=1m --bs=2m --size=4m
bad "job_max_open_zones needs a max_open_zones" "job_max_open_zones without a limit" --zonemode=zbd --zonesize=1m --job_max_open_zones=2
bad "max_open_zones.*expected an integer from 0 to 4096" "max_open_zones above fio's 4096" --zonemode=zbd --zonesize=1m --max_open_zones=5000
bad "zonemode=none and zonesize are not compatible" "zonesize with zonemode=none" --zonemode=none --zonesize=1m
bad "trim block size 65536 is not the zone size 1048576" "trim smaller than a zone" --zonemode=zbd --zonesize=1m --rw=randtrim --size=4m
bad "bsrange and bssplit are not allowed for trim" "trim with a block size range" --zonemode=zbd --zonesize=1m --rw=trim --bsrange=1m-2m --size=4m
finish
