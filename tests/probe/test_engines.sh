#!/bin/bash
# The sync-family engines and posixaio beside fio 3.33: the same number of
# I/Os, fio's slat rule (none for engines that complete inline), fio's
# depth for queued engines, pvsync2's flags, the data mmap writes, and
# splice's pipe moving data both ways (verified, with fio's checksums).
. "$(dirname "$0")/lib.sh"
echo "1..16"
FIO=${FIO:-fio}
cd "$WORK" || exit 1
head -c 4m /dev/urandom > e.dat
# job JSON field: jq-like access with python
field() { python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))["jobs"][0]
v = j
for k in sys.argv[2].split("."):
    v = v[k]
print(v)' "$@"; }

for e in sync psync vsync pvsync pvsync2 posixaio mmap splice; do
	"$PROBE" --output-format=json --name=x --ioengine=$e --rw=randread --size=4m --iodepth=4 \
		--filename=e.dat > p-$e.json 2> p-$e.err &&
	"$FIO" --output-format=json --name=x --ioengine=$e --rw=randread --size=4m --iodepth=4 \
		--filename=e.dat 2> /dev/null | sed -n '/^{/,$p' > f-$e.json
	got="$(field p-$e.json read.total_ios) $(field p-$e.json read.slat_ns.N) $(field p-$e.json latency_depth)"
	want="$(field f-$e.json read.total_ios) $(field f-$e.json read.slat_ns.N) $(field f-$e.json latency_depth)"
	[ "$got" = "$want" ] && [ "$(field p-$e.json error)" = 0 ]
	ok $? "ioengine=$e: I/Os, slat samples and depth as fio's ($got; fio: $want)"
done

grep -q "queue depth will be capped at 1" p-sync.err && grep -q capped p-vsync.err &&
	! grep -q capped p-posixaio.err
ok $? "iodepth=4 on a synchronous engine (vsync too, as fio): fio's note"

depth4() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["iodepth_level"]["4"])' "$1"; }
python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > 99)' "$(depth4 p-posixaio.json)"
ok $? "posixaio keeps 4 requests in flight: $(depth4 p-posixaio.json)% of submissions at depth 4 (fio: $(depth4 f-posixaio.json)%)"

nowait_eagain nw-p.json "$PROBE" --hipri=1 && nowait_eagain nw-f.json "$FIO" --hipri=1
ok $? "pvsync2 nowait=1 on a file just dropped from the cache: EAGAIN ($(field nw-p.json read.total_ios) reads before it, fio $(field nw-f.json read.total_ios)), as fio"
cat e.dat > /dev/null &&
	"$PROBE" --name=h --ioengine=pvsync2 --hipri=1 --nowait=1 --invalidate=0 --rw=read --size=1m \
	--filename=e.dat --output-format=json > h.json && [ "$(field h.json error)" = 0 ] &&
	! "$PROBE" --name=h --ioengine=psync --hipri=1 --size=1m --filename=e.dat 2> h.err &&
	grep -q "hipri is an option of ioengine=pvsync2" h.err
ok $? "pvsync2 hipri+nowait on cached data completes; psync refuses hipri"

"$PROBE" --name=w --ioengine=mmap --rw=write --bs=8k --size=1m --buffer_pattern=0xdeadbeef \
	--filename=m.dat --output-format=json > m.json && [ "$(field m.json write.io_bytes)" = 1048576 ] &&
	[ "$(od -An -tx1 -v m.dat | tr -d ' \n' | fold -w 8 | sort -u)" = deadbeef ]
ok $? "mmap writes land in the file: 1 MiB of the pattern"

# splice: blocks of 4 KiB to 320 KiB (several 64 KiB pipe loads) written
# through the pipe, read back through it, each verified
"$PROBE" --name=s --ioengine=splice --rw=randwrite --bsrange=4k-320k --size=8m --verify=crc32c \
	--filename=s.dat --output-format=json > s.json 2> s.err &&
	[ "$(field s.json error)" = 0 ] && [ "$(field s.json write.total_ios)" -gt 0 ] &&
	[ "$(field s.json read.total_ios)" = "$(field s.json write.total_ios)" ]
ok $? "splice randwrite 4k-320k then verify: $(field s.json write.total_ios) written, $(field s.json read.total_ios) verified $(head -c 300 s.err)"
"$PROBE" --name=s --ioengine=splice --rw=write --bs=96k --size=960k --buffer_pattern=0x5aa5c33c \
	--filename=sp.dat --output-format=json > sp.json 2> s.err &&
	[ "$(od -An -tx1 -v sp.dat | tr -d ' \n' | fold -w 8 | sort -u)" = 5aa5c33c ]
ok $? "splice writes land in the file: 960 KiB of the pattern $(head -c 300 s.err)"
"$FIO" --name=f --ioengine=psync --rw=randwrite --bs=128k --size=4m --filename=sf.dat --verify=md5 \
	--do_verify=0 --verify_state_save=0 > /dev/null 2>&1 &&
	"$PROBE" --name=f --ioengine=splice --rw=randwrite --bs=128k --size=4m --filename=sf.dat \
	--verify=md5 --verify_only=1 --output-format=json > sf.json 2> s.err &&
	[ "$(field sf.json error)" = 0 ] && [ "$(field sf.json read.total_ios)" = 32 ]
ok $? "splice reads what fio wrote: all 32 of fio's md5 blocks verify $(head -c 300 s.err)"
finish
