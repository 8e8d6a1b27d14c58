#!/bin/bash
# The probe's rbd engine on a real one-OSD Ceph cluster (tests/ceph/fixture):
# random writes land where the trace says (write tags in `rbd export`),
# random reads, trims, flushes and busy_poll work; data the probe writes is
# verified by fio's rbd engine and data fio's rbd engine writes is read by
# the probe; a missing image or pool is a clear error; an image holding
# ext4 is refused for writes without --allow-destroy-data.
. "$(dirname "$0")/lib.sh"
echo "1..19"
CHECK_TAGS="$IOGAP_BUILD/tests/probe/check_tags"

start_fixture; rc=$?
ok $rc "fixture started in ${FIXTURE_SECS}s: $CEPH_CONF"
[ $rc = 0 ] || { echo "Bail out! no Ceph cluster"; exit 1; }
"$FIXTURE" status "$CEPH_DIR"; ok $? "fixture status: osd.0 up"

probe() { timeout 120 "$PROBE" --eta=never --name=j --ioengine=rbd --pool=rbd "$@"; }

# 1. random writes over a whole image: every block once, every write tagged
rbd create --size 64M rbd/w
probe --rbdname=w --rw=randwrite --bs=4k --iodepth=32 --direct=1 --trace="$WORK/w.trace" \
	--output-format=json --output="$WORK/w.json" 2> "$WORK/e"; rc=$?
[ $rc = 0 ] && [ "$(json_get "$WORK/w.json" 'd["jobs"][0]["write"]["total_ios"]')" = 16384 ]
ok $? "randwrite QD32 over a 64 MiB image: 16384 writes, exit 0 $(head -c 300 "$WORK/e")"
rbd export rbd/w "$WORK/w.img" > /dev/null 2>&1
out=$("$CHECK_TAGS" "$WORK/w.trace" "$WORK/w.img" 2>&1); rc=$?
ok $rc "every traced write is in 'rbd export' at its offset with its tag: $out"

# 2. random reads, trims, flushes, busy polling
probe --rbdname=w --rw=randread --bs=4k --iodepth=32 --runtime=2 --time_based \
	--output-format=json --output="$WORK/r.json" 2> "$WORK/e"; rc=$?
v=$(json_get "$WORK/r.json" 'd["jobs"][0]["read"]["total_ios"]' 2> /dev/null)
[ $rc = 0 ] && [ "${v:-0}" -gt 100 ]; ok $? "randread QD32 for 2 s: $v reads $(head -c 300 "$WORK/e")"
probe --rbdname=w --rw=randread --bs=4k --iodepth=4 --runtime=1 --time_based --busy_poll=1 \
	--output-format=json --output="$WORK/bp.json" 2> "$WORK/e"; rc=$?
v=$(json_get "$WORK/bp.json" 'd["jobs"][0]["read"]["total_ios"]' 2> /dev/null)
[ $rc = 0 ] && [ "${v:-0}" -gt 10 ]; ok $? "busy_poll=1: $v reads $(head -c 300 "$WORK/e")"
probe --rbdname=w --rw=randwrite --bs=4k --iodepth=8 --size=4m --fsync=16 --end_fsync=1 \
	--output-format=json --output="$WORK/f.json" 2> "$WORK/e"; rc=$?
v=$(json_get "$WORK/f.json" 'd["jobs"][0]["sync"]["total_ios"]' 2> /dev/null)
[ $rc = 0 ] && [ "${v:-0}" -ge 60 ]; ok $? "fsync=16 flushes through rbd_flush: $v syncs $(head -c 300 "$WORK/e")"
probe --rbdname=w --rw=randtrim --bs=64k --iodepth=8 --size=8m \
	--output-format=json --output="$WORK/t.json" 2> "$WORK/e"; rc=$?
v=$(json_get "$WORK/t.json" 'd["jobs"][0]["trim"]["total_ios"]' 2> /dev/null)
[ $rc = 0 ] && [ "${v:-0}" = 128 ]; ok $? "randtrim through rbd_aio_discard: $v trims $(head -c 300 "$WORK/e")"

# 3. the probe writes, fio's rbd engine reads and verifies every block
rbd create --size 16M rbd/p2f
probe --rbdname=p2f --rw=randwrite --bs=4k --iodepth=32 --direct=1 --no-tag-writes \
	--buffer_pattern=0x5aa5c33c0ff0e11e > /dev/null 2> "$WORK/e"; rc=$?
ok $rc "probe wrote a pattern to rbd/p2f $(head -c 300 "$WORK/e")"
timeout 120 fio --name=v --ioengine=rbd --pool=rbd --rbdname=p2f --rw=read --bs=4k --iodepth=16 \
	--verify=pattern --verify_pattern=0x5aa5c33c0ff0e11e --output-format=json \
	--output="$WORK/v.json" > /dev/null 2>&1; rc=$?
v=$(json_get "$WORK/v.json" 'd["jobs"][0]["read"]["total_ios"]' 2> /dev/null)
[ $rc = 0 ] && [ "${v:-0}" = 4096 ]
ok $? "fio's rbd engine read and verified all $v blocks the probe wrote"

# 4. fio's rbd engine writes (checksummed blocks), the probe reads it all;
#    the blocks verify, so the probe read an image fio had written intact
rbd create --size 16M rbd/f2p
timeout 120 fio --name=f --ioengine=rbd --pool=rbd --rbdname=f2p --rw=randwrite --bs=4k \
	--iodepth=16 --verify=crc32c --do_verify=0 --verify_state_save=0 --output-format=json \
	--output="$WORK/fw.json" > /dev/null 2>&1; ok $? "fio's rbd engine wrote rbd/f2p"
probe --rbdname=f2p --rw=read --bs=4k --iodepth=32 --output-format=json \
	--output="$WORK/pr.json" 2> "$WORK/e"; rc=$?
v=$(json_get "$WORK/pr.json" 'd["jobs"][0]["read"]["io_bytes"]' 2> /dev/null)
[ $rc = 0 ] && [ "${v:-0}" = $((16 << 20)) ]; ok $? "the probe read all of rbd/f2p: $v bytes"
rbd export rbd/f2p "$WORK/f2p.img" > /dev/null 2>&1
timeout 60 fio --name=f --filename="$WORK/f2p.img" --rw=randwrite --bs=4k --verify=crc32c \
	--verify_only=1 --verify_state_save=0 --output-format=json --output="$WORK/fv.json" > /dev/null 2>&1
ok $? "and fio's checksums verify on the exported image"

# 5. errors that stop a run before it starts
t0=$SECONDS
probe --rbdname=missing --rw=randread --runtime=1 > /dev/null 2> "$WORK/e"; rc=$?
[ $rc = 1 ] && grep -q "image 'rbd/missing': does not exist" "$WORK/e" && [ $((SECONDS - t0)) -lt 20 ]
ok $? "a missing image: $(cat "$WORK/e")"
timeout 60 "$PROBE" --eta=never --name=j --ioengine=rbd --pool=nopool --rbdname=w --rw=read \
	> /dev/null 2> "$WORK/e"; rc=$?
[ $rc = 1 ] && grep -q "pool 'nopool': does not exist" "$WORK/e"; ok $? "a missing pool: $(cat "$WORK/e")"
"$PROBE" --eta=never --name=j --ioengine=rbd --rbdname=w > /dev/null 2> "$WORK/e"; rc=$?
[ $rc = 1 ] && grep -q "needs pool= and rbdname=" "$WORK/e"; ok $? "rbd without a pool: $(cat "$WORK/e")"

# 6. data safety: an image with ext4 on it
truncate -s 64M "$WORK/ext4.img" && mkfs.ext4 -q -F -L precious "$WORK/ext4.img"
rbd import "$WORK/ext4.img" rbd/fs > /dev/null 2>&1
probe --rbdname=fs --rw=randwrite --runtime=1 --time_based > /dev/null 2> "$WORK/e"; rc=$?
[ $rc = 1 ] && grep -q "refusing to write.*ext4 filesystem.*precious" "$WORK/e"
ok $? "writing to an image holding ext4 is refused: $(cat "$WORK/e")"
probe --rbdname=fs --rw=randread --runtime=1 --time_based > /dev/null 2> "$WORK/e"
ok $? "reading it is allowed $(head -c 300 "$WORK/e")"
probe --rbdname=fs --rw=write --size=1m --allow-destroy-data > /dev/null 2> "$WORK/e"
ok $? "--allow-destroy-data overrides $(head -c 300 "$WORK/e")"
finish
