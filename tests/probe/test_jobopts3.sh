#!/bin/bash
# Job options beside fio 3.33 (3): unified_rw_reporting, stats, disk_util,
# bwavgtime/iopsavgtime, log_compression/log_store_compressed with
# --inflate-log, log_unix_epoch/log_alternate_epoch, log_entries,
# zero_buffers and scramble_buffers.
. "$(dirname "$0")/lib.sh"
echo "1..21"
FIO=${FIO:-fio}
cd "$WORK" || exit 1
head -c 256k /dev/urandom > s.dat
keys() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]
print(" ".join(k for k in ("read","write","trim","mixed") if k in j), " ".join(sorted(j.get("mixed",{}))))' "$1"; }
rw=(--filename=s.dat --size=128k --rw=randrw --output-format=json)

# unified_rw_reporting: fio's sections and keys; mixed sums the directions
"$PROBE" --name=u "${rw[@]}" --unified_rw_reporting=mixed > m.json && "$FIO" --name=u "${rw[@]}" --unified_rw_reporting=mixed > fm.json &&
	[ "$(keys m.json)" = "$(keys fm.json)" ] && keys m.json | grep -q '^mixed bw bw_agg '  &&
	python3 -c 'import json; m=json.load(open("m.json"))["jobs"][0]["mixed"]; assert m["total_ios"]==32 and m["io_bytes"]==131072'
ok $? "unified_rw_reporting=mixed: only \"mixed\", fio's keys, the directions summed (32 ios)"
"$PROBE" --name=u "${rw[@]}" --unified_rw_reporting=2 > b.json && "$FIO" --name=u "${rw[@]}" --unified_rw_reporting=both > fb.json &&
	[ "$(keys b.json)" = "$(keys fb.json)" ] && [ "$(keys b.json | cut -d' ' -f1-4)" = "read write trim mixed" ] &&
	python3 -c 'import json; j=json.load(open("b.json"))["jobs"][0]; assert j["mixed"]["total_ios"]==j["read"]["total_ios"]+j["write"]["total_ios"]==32' &&
	"$PROBE" --name=u "${rw[@]}" --unified_rw_reporting=none > n.json && [ "$(keys n.json)" = "read write trim " ]
ok $? "unified_rw_reporting=both (2): read, write, trim, then mixed as fio; none: no mixed"
"$PROBE" --name=u --filename=s.dat --size=128k --rw=randrw --unified_rw_reporting=mixed > m.txt && grep -q '^  mixed: IOPS=' m.txt &&
	! grep -q '^  read: IOPS=' m.txt && "$PROBE" --name=u --filename=s.dat --size=128k --rw=randrw --unified_rw_reporting=mixed --minimal > m.terse &&
	"$FIO" --name=u --filename=s.dat --size=128k --rw=randrw --unified_rw_reporting=mixed --minimal > fm.terse &&
	[ "$(awk -F';' '{print NF}' m.terse)" = "$(awk -F';' '{print NF}' fm.terse)" ]
ok $? "unified_rw_reporting=mixed in the normal (\"mixed:\") and terse output (fio's $(awk -F';' '{print NF}' fm.terse) fields)"

# stats=0: the job is left out of the report, as fio (whose JSON ends
# with a nameless all-zero entry in its place, not copied)
njobs() { python3 -c 'import json,sys; print(" ".join(j["jobname"] for j in json.load(open(sys.argv[1]))["jobs"] if "jobname" in j))' "$1"; }
two=(--filename=s.dat --size=64k --output-format=json --name=a --name=b --stats=0 --name=c)
"$PROBE" "${two[@]}" > s.json && "$FIO" "${two[@]}" > fs.json && [ "$(njobs s.json)" = "a c" ] && [ "$(njobs fs.json)" = "a c" ]
ok $? "stats=0: the job is not reported (jobs: $(njobs s.json); fio: $(njobs fs.json))"

# bwavgtime / iopsavgtime: the sample windows of the report's bw/iops stats
"$PROBE" --name=t --ioengine=null --size=1g --time_based --runtime=2 --bwavgtime=200 --iopsavgtime=1000 --output-format=json > w.json &&
	python3 -c 'import json; r=json.load(open("w.json"))["jobs"][0]["read"]; assert r["bw_samples"]>=7 and r["iops_samples"]<=2, r'
ok $? "bwavgtime=200, iopsavgtime=1000 over 2 s: $(python3 -c 'import json; r=json.load(open("w.json"))["jobs"][0]["read"]; print(r["bw_samples"], "bw and", r["iops_samples"], "iops samples")')"

# log_compression: the same lines as without; stored compressed, fio's
# --inflate-log and ours print the same text
lg=(--filename=s.dat --size=128k --rw=randwrite --log_offset=1 --output=/dev/null)
"$PROBE" --name=l "${lg[@]}" --write_lat_log=plain --write_iops_log=plain &&
	"$PROBE" --name=l "${lg[@]}" --write_lat_log=gz --write_iops_log=gz --log_compression=1k &&
	"$PROBE" --name=l "${lg[@]}" --write_lat_log=st --write_iops_log=st --log_compression=1k --log_store_compressed=1 &&
	[ "$(cut -d, -f3- plain_clat.1.log)" = "$(cut -d, -f3- gz_clat.1.log)" ] && [ "$(wc -l < gz_clat.1.log)" = 32 ] &&
	[ ! -e st_clat.1.log ] && "$PROBE" --inflate-log=st_clat.1.log.fz > p.txt && "$FIO" --inflate-log=st_clat.1.log.fz > f.txt &&
	cmp -s p.txt f.txt && [ "$(cut -d, -f3- p.txt)" = "$(cut -d, -f3- plain_clat.1.log)" ] &&
	"$FIO" --inflate-log=st_iops.1.log.fz | cut -d, -f2- | cmp -s - <(cut -d, -f2- plain_iops.1.log)
ok $? "log_compression=1k: 32 lines as uncompressed; log_store_compressed: .fz that fio --inflate-log reads as ours does"
! "$PROBE" --inflate-log=s.dat > /dev/null 2> e0 && grep -q "not a compressed fio log" e0
ok $? "--inflate-log of a file that is not a compressed log: an error ($(cat e0))"

# log_unix_epoch / log_alternate_epoch: the log's times from that clock
t0=$(date +%s%3N)
"$PROBE" --name=e "${lg[@]}" --write_iops_log=ep --log_unix_epoch=1 && t1=$(date +%s%3N) &&
	up0=$(awk '{printf "%d", $1*1000}' /proc/uptime) &&
	"$PROBE" --name=e "${lg[@]}" --write_iops_log=mo --log_alternate_epoch=1 --log_alternate_epoch_clock_id=1 &&
	up1=$(awk '{printf "%d", $1*1000 + 1}' /proc/uptime) &&
	awk -F, -v a="$t0" -v b="$t1" '$1 < a || $1 > b {bad=1} END {exit bad || NR != 32}' ep_iops.1.log &&
	awk -F, -v a="$up0" -v b="$up1" '$1 < a - 10 || $1 > b + 10 {bad=1} END {exit bad || NR != 32}' mo_iops.1.log
ok $? "log_unix_epoch: times in the run's Unix ms ($(head -c 13 ep_iops.1.log)); log_alternate_epoch with clock 1: CLOCK_MONOTONIC's"

# zero_buffers: zeros written (scrambling off unless asked, as fio)
"$PROBE" --name=z --rw=write --size=64k --filename=z.dat --zero_buffers > /dev/null &&
	cmp -s z.dat <(head -c 64k /dev/zero) && "$PROBE" --name=z --rw=write --size=64k --filename=z2.dat --zero_buffers --scramble_buffers=1 > /dev/null &&
	! cmp -s z2.dat <(head -c 64k /dev/zero)
ok $? "zero_buffers: the file is zeros; with scramble_buffers=1 given, scrambled"

# scramble_buffers (fio default 1): each 512-byte block gets its offset and
# the time, so reused buffers differ in a few bytes
"$PROBE" --name=w --rw=write --bs=4k --size=16k --filename=c1.dat > /dev/null &&
	"$PROBE" --name=w --rw=write --bs=4k --size=16k --filename=c0.dat --scramble_buffers=0 > /dev/null
diffb() { cmp -l <(head -c 4096 "$1") <(tail -c +4097 "$1" | head -c 4096) | wc -l; }
n1=$(diffb c1.dat)
[ "$(diffb c0.dat)" = 0 ] && [ "$n1" -gt 0 ] && [ "$n1" -le 192 ] &&
	[ "$(od -An -tu8 -j $((4096 + 0)) -N 512 c1.dat | tr -s ' ' '\n' | grep -cx 4096)" = 1 ]
ok $? "scramble_buffers: consecutive blocks differ in $n1 bytes (at most 24 per 512), the block's offset in it; =0: identical"

# verify_offset: the header swapped 64 bytes into each block; fio reads
# back the probe's file and the probe fio's, both with the option; without
# it fio finds no header at the block's start
V=(--size=64k --bs=4k --verify=crc32c --verify_offset=64)
"$PROBE" --name=w --rw=write --filename=vp.dat "${V[@]}" > /dev/null && "$FIO" --name=w --rw=write --filename=vf.dat "${V[@]}" --do_verify=0 > /dev/null &&
	"$FIO" --name=r --rw=write --filename=vp.dat "${V[@]}" --verify_only=1 > /dev/null 2>&1 &&
	"$PROBE" --name=r --rw=write --filename=vf.dat "${V[@]}" --verify_only=1 > /dev/null &&
	[ "$(od -An -tx2 -j 64 -N 2 vp.dat | tr -d ' ')" = acca ] &&
	! "$FIO" --name=r --rw=write --filename=vp.dat --size=64k --bs=4k --verify=crc32c --verify_only=1 > /dev/null 2>&1
ok $? "verify_offset=64: the header (magic acca) 64 bytes in; fio verifies the probe's file and the probe fio's"
printf 'x' | dd of=vp.dat bs=1 seek=$((8192 + 70)) conv=notrunc status=none
! "$PROBE" --name=r --rw=write --filename=vp.dat "${V[@]}" --verify_only=1 > /dev/null 2> ve && grep -q "offset 8192" ve
ok $? "verify_offset: a damaged header is found ($(head -n 1 ve | cut -c 1-90))"
printf '[j]\nsize=4k\nverify=md5\nverify_offset=4050\n' > vo.fio
! "$PROBE" --parse-only vo.fio 2> e && grep -q "verify_offset 4050 leaves no room" e
ok $? "verify_offset past the block's room for a header refused: $(cat e)"

# disk_util=0: no disk statistics (skipped where the file's disk has none)
"$PROBE" --name=d --filename=s.dat --size=64k --output-format=json > d1.json && "$PROBE" --name=d --filename=s.dat --size=64k --disk_util=0 --output-format=json > d0.json
if python3 -c 'import json; assert json.load(open("d1.json")).get("disk_util")'; then
	python3 -c 'import json; assert "disk_util" not in json.load(open("d0.json"))'
	ok $? "disk_util=0: the JSON has no disk_util (with it: $(python3 -c 'import json; print(json.load(open("d1.json"))["disk_util"][0]["name"])'))"
else
	skip "disk_util=0" "the work directory's filesystem has no block device statistics"
fi

# block_error_percentiles: trims per trim-sized block (fio trims only
# devices, so this is the probe alone): every block trimmed 3 times, or
# 4 of 16 blocks once
bp() { python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["jobs"][0]["block"]
print(sorted(set(b["percentiles"].values())), len(b["percentiles"]), b["states"]["trimmed"], b["states"]["unwritten"])' "$1"; }
head -c 64k /dev/urandom > t.dat
"$PROBE" --name=t --filename=t.dat --size=64k --rw=randtrim --loops=3 --block_error_percentiles=1 --output-format=json > bt.json &&
	"$PROBE" --name=t --filename=t.dat --size=64k --rw=trim --io_size=16k --block_error_percentiles=1 --output-format=json > b1.json &&
	[ "$(bp bt.json)" = "[3] 17 16 0" ] && [ "$(bp b1.json)" = "[1] 17 4 12" ] &&
	"$PROBE" --name=t --filename=t.dat --size=64k --rw=randtrim --block_error_percentiles=1 > bt.txt &&
	grep -q '^  block lifetime percentiles :' bt.txt && grep -q '^   | 1.00th=1, 5.00th=1,' bt.txt &&
	grep -q 'states               : unwritten=0, trimmed=16, written=0, trim failure=0, write failure=0' bt.txt
ok $? "block_error_percentiles: randtrim x3 ($(bp bt.json)), 4 of 16 blocks trimmed ($(bp b1.json)); fio's normal lines"
"$PROBE" --name=t --filename=t.dat --size=64k --rw=randtrim --block_error_percentiles=0 --output-format=json > b0.json &&
	python3 -c 'import json; assert "block" not in json.load(open("b0.json"))["jobs"][0]'
ok $? "block_error_percentiles=0 (fio's default): no block section"
! "$PROBE" --parse-only --name=t --nrfiles=2 --size=64k --block_error_percentiles=1 2> e && grep -q "only available with a single file per job, but 2 files" e &&
	! "$PROBE" --name=t --filename=t.dat --size=64k --bs=4 --rw=trim --block_error_percentiles=1 > /dev/null 2> e2 &&
	grep -q "cannot calculate block histogram with 16384 trim blocks, maximum 8192" e2
ok $? "block_error_percentiles with 2 files, or more than 8192 blocks, refused as fio: $(cat e)"

# verify-trim: trim_percentage of the written blocks trimmed every
# trim_backlog writes (fio trims only devices; the probe punches holes in
# files), read back as zeros (trim_verify_zero=1) or not read back
tj() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]; print(j["error"], j["read"]["total_ios"], j["write"]["total_ios"], j["trim"]["total_ios"])' "$1"; }
zeros() { python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); print(sum(d[i:i+4096] == bytes(4096) for i in range(0, len(d), 4096)))' "$1"; }
VT=(--name=t --filename=vt.dat --size=64k --bs=4k --rw=write --verify=crc32c --trim_backlog=4 --output-format=json)
"$PROBE" "${VT[@]}" --trim_percentage=100 --trim_backlog_batch=2 > vt1.json && z1=$(zeros vt.dat) &&
	"$PROBE" "${VT[@]}" --trim_percentage=100 --trim_backlog_batch=2 --trim_verify_zero=0 > vt0.json &&
	[ "$(tj vt1.json)" = "0 16 16 6" ] && [ "$z1" = 6 ] && [ "$(tj vt0.json)" = "0 10 16 6" ]
ok $? "trim_percentage=100, trim_backlog=4, batch 2: 6 blocks trimmed, read back as zeros ($(tj vt1.json)); trim_verify_zero=0: not read back ($(tj vt0.json))"
"$PROBE" "${VT[@]}" --trim_percentage=100 --trim_backlog_batch=2 --write_iolog=vt.log --output=/dev/null &&
	[ "$(grep -oE ' (write|trim|read) ' vt.log | cut -c2 | tr -d '\n')" = wwwwttwwwwttwwwwttwwwwrrrrrrrrrrrrrrrr ]
ok $? "verify-trim order as fio's check_get_trim: $(grep -oE ' (write|trim|read) ' vt.log | cut -c2 | tr -d '\n')"
"$PROBE" "${VT[@]}" --trim_percentage=0 > vtn.json && [ "$(tj vtn.json)" = "0 16 16 0" ] &&
	"$PROBE" "${VT[@]}" --trim_percentage=50 --size=256k > vth.json &&
	python3 -c 'import json; j=json.load(open("vth.json"))["jobs"][0]; t=j["trim"]["total_ios"]; assert j["error"] == 0 and 0 < t < 64, t'
ok $? "trim_percentage=0: no trims; =50: some of 64 blocks ($(tj vth.json))"

# bad values: file:line errors naming the option
bad() { printf '[j]\nsize=4k\n%s\n' "$1" > bad.fio; ! "$PROBE" --parse-only bad.fio 2> e && grep -q "bad.fio:3: option '${1%%=*}'" e; }
bad unified_rw_reporting=sideways && bad stats=maybe && bad disk_util=2 && bad bwavgtime=0 && bad iopsavgtime=x &&
	bad log_entries=10 && bad log_compression=512 && bad log_alternate_epoch_clock_id=-1 && bad log_store_compressed=3 &&
	bad zero_buffers=yes_please && bad scramble_buffers=7 && bad log_unix_epoch=2 && bad verify_offset=39 && bad block_error_percentiles=x &&
	bad trim_percentage=101 && bad trim_verify_zero=z && bad trim_backlog=x && bad trim_backlog_batch=-1
ok $? "bad values name file:line and the option ($(cat e))"
finish
