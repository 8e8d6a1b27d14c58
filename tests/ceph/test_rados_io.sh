#!/bin/bash
# The probe's rados engine on a real one-OSD Ceph cluster (tests/ceph/fixture):
# each of a job's files is an object named as fio names files; written data
# reads back and verifies; while the job runs `rados ls/stat` show its objects
# at their size, and when it ends they are gone (fio removes them);
# touch_objects, trims, busy_poll, clientname/conf; a missing pool or object
# is a clear error; an object that exists before the run is refused.
. "$(dirname "$0")/lib.sh"
echo "1..19"

start_fixture; rc=$?
ok $rc "fixture started in ${FIXTURE_SECS}s: $CEPH_CONF"
[ $rc = 0 ] || { echo "Bail out! no Ceph cluster"; exit 1; }
timeout 60 ceph osd pool create rados 8 8 > "$WORK/e" 2>&1
ok $? "pool 'rados' created $(head -c 300 "$WORK/e" | tr "\n" " ")"

probe() { timeout 300 "$PROBE" --eta=never --ioengine=rados --pool=rados "$@"; }
objects() { timeout 30 rados -p rados ls 2> /dev/null | sort | tr '\n' ' '; }
obj_size() { timeout 30 rados -p rados stat "$1" 2> /dev/null | sed -n 's/.*, size \([0-9]*\)$/\1/p'; }

# 1. write 4 objects of 1 MiB, read them back, verify every block
probe --name=wv --rw=write --bs=64k --size=4m --nrfiles=4 --iodepth=8 --verify=crc32c \
	--output-format=json --output="$WORK/wv.json" 2> "$WORK/e"; rc=$?
w=$(json_get "$WORK/wv.json" 'd["jobs"][0]["write"]["total_ios"]' 2> /dev/null)
r=$(json_get "$WORK/wv.json" 'd["jobs"][0]["read"]["total_ios"]' 2> /dev/null)
[ $rc = 0 ] && [ "$w" = 64 ] && [ "$r" = 64 ]
ok $? "write 4 x 1 MiB then verify: $w writes, $r verified reads, exit $rc $(head -c 300 "$WORK/e" | tr "\n" " ")"
[ -z "$(objects)" ]; ok $? "the job's objects are removed when it ends, as fio: '$(objects)'"

# 2. the objects while a job runs: its read-back is paced at 1 read/s from
#    the job's start (fio's rate_iops=1,), so for the seconds the writes
#    left `rados` sees the written objects before the job removes them
probe --name=sz --rw=write --bs=128k --size=3m --nrfiles=2 --iodepth=4 --verify=crc32c \
	--rate_iops=1, --output-format=json --output="$WORK/sz.json" 2> "$WORK/sz.e" &
pid=$!
seen=""
while kill -0 $pid 2> /dev/null; do
	now="$(objects)$(obj_size sz.0.0) $(obj_size sz.0.1)"
	[ "$now" = "sz.0.0 sz.0.1 1572864 1572864" ] && break
	sleep 0.2
done
wait $pid; rc=$?
[ "$now" = "sz.0.0 sz.0.1 1572864 1572864" ]
ok $? "rados ls/stat while verifying: objects sz.0.0 and sz.0.1 of 1.5 MiB each (last seen: $now)"
r=$(json_get "$WORK/sz.json" 'd["jobs"][0]["read"]["total_ios"]' 2> /dev/null)
[ $rc = 0 ] && [ "$r" = 24 ]; ok $? "and all 24 blocks verified, exit $rc $(head -c 300 "$WORK/sz.e" | tr "\n" " ")"
[ -z "$(objects)" ]; ok $? "then removed: '$(objects)'"

# 3. named objects (filename=), and clones with objects of their own
probe --name=nm --filename=alpha:beta --rw=randwrite --bs=4k --size=256k --iodepth=16 \
	--verify=md5 --output-format=json --output="$WORK/nm.json" 2> "$WORK/e"; rc=$?
r=$(json_get "$WORK/nm.json" 'd["jobs"][0]["read"]["total_ios"]' 2> /dev/null)
[ $rc = 0 ] && [ "$r" = 64 ]; ok $? "filename=alpha:beta: $r blocks verified, exit $rc $(head -c 300 "$WORK/e" | tr "\n" " ")"
probe --name=cl --numjobs=2 --group_reporting --rw=randwrite --bs=4k --size=256k --iodepth=16 \
	--verify=md5 --output-format=json --output="$WORK/cl.json" 2> "$WORK/e"; rc=$?
r=$(json_get "$WORK/cl.json" 'd["jobs"][0]["read"]["total_ios"]' 2> /dev/null)
[ $rc = 0 ] && [ "$r" = 128 ]; ok $? "numjobs=2, each clone its objects: $r blocks verified, exit $rc $(head -c 300 "$WORK/e" | tr "\n" " ")"

# 4. touch_objects: reads of the touched (empty) objects succeed; without
#    touching, a read of a missing object fails
probe --name=t1 --rw=read --bs=4k --size=64k --output-format=json --output="$WORK/t1.json" \
	2> "$WORK/e"; rc=$?
r=$(json_get "$WORK/t1.json" 'd["jobs"][0]["read"]["total_ios"]' 2> /dev/null)
[ $rc = 0 ] && [ "$r" = 16 ]; ok $? "touch_objects=1 (default): $r reads of an empty object $(head -c 300 "$WORK/e" | tr "\n" " ")"
probe --name=t0 --touch_objects=0 --rw=read --bs=4k --size=64k > /dev/null 2> "$WORK/e"; rc=$?
[ $rc != 0 ] && grep -q "No such file or directory" "$WORK/e"
ok $? "touch_objects=0: reading a missing object fails (exit $rc): $(head -c 300 "$WORK/e" | tr "\n" " ")"

# 5. trims zero ranges; busy polling; clientname and conf as fio's example
probe --name=tr --rw=randtrim --bs=64k --size=1m --iodepth=4 --output-format=json \
	--output="$WORK/tr.json" 2> "$WORK/e"; rc=$?
v=$(json_get "$WORK/tr.json" 'd["jobs"][0]["trim"]["total_ios"]' 2> /dev/null)
[ $rc = 0 ] && [ "$v" = 16 ]; ok $? "randtrim through rados_write_op_zero: $v trims $(head -c 300 "$WORK/e" | tr "\n" " ")"
probe --name=bp --busy_poll=1 --clientname=admin --conf="$CEPH_CONF" --rw=randwrite --bs=4k \
	--size=512k --iodepth=4 --verify=crc32c --output-format=json --output="$WORK/bp.json" \
	2> "$WORK/e"; rc=$?
r=$(json_get "$WORK/bp.json" 'd["jobs"][0]["read"]["total_ios"]' 2> /dev/null)
[ $rc = 0 ] && [ "$r" = 128 ]; ok $? "busy_poll=1, clientname=admin, conf=: $r blocks verified $(head -c 300 "$WORK/e" | tr "\n" " ")"

# 6. errors
timeout 60 "$PROBE" --eta=never --name=j --ioengine=rados --pool=nopool --rw=read --size=1m \
	> /dev/null 2> "$WORK/e"; rc=$?
[ $rc = 1 ] && grep -q "rados: pool 'nopool': does not exist" "$WORK/e"; ok $? "a missing pool: $(tr "\n" " " < "$WORK/e")"
"$PROBE" --eta=never --name=j --ioengine=rados --size=1m > /dev/null 2> "$WORK/e"; rc=$?
[ $rc = 1 ] && grep -q "ioengine=rados needs pool=" "$WORK/e"; ok $? "rados without a pool: $(tr "\n" " " < "$WORK/e")"
"$PROBE" --eta=never --name=j --ioengine=psync --touch_objects=0 --size=1m > /dev/null 2> "$WORK/e"; rc=$?
[ $rc = 1 ] && grep -q "touch_objects applies only to ioengine=rados" "$WORK/e"
ok $? "touch_objects on another engine: $(tr "\n" " " < "$WORK/e")"
# 7. data safety: an object that exists is not overwritten (nor removed)
echo precious > "$WORK/keep.txt" && timeout 30 rados -p rados put keep "$WORK/keep.txt"
probe --name=k --filename=keep --rw=read --bs=4k --size=64k > /dev/null 2> "$WORK/e"; rc=$?
[ $rc = 1 ] && grep -q "refusing to write.*object 'keep' exists in pool 'rados' (9 bytes)" "$WORK/e" &&
	[ "$(obj_size keep)" = 9 ]
ok $? "an existing object is refused, even for reads, and left as it was: $(tr "\n" " " < "$WORK/e")"
probe --name=k --filename=keep --rw=write --bs=4k --size=64k --allow-destroy-data > /dev/null 2> "$WORK/e"
ok $? "--allow-destroy-data overrides $(head -c 300 "$WORK/e" | tr "\n" " ")"
[ -z "$(objects)" ]; ok $? "no object left in the pool: '$(objects)'"
finish
