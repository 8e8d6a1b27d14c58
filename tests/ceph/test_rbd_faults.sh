#!/bin/bash
# Faults end in a clear error within the client timeouts, never a hang, and
# keep what was measured: the OSD killed in the middle of a run (the JSON
# report and the trace up to then survive), then the whole cluster down.
# Client timeouts are 5 s here (CEPH_ARGS, lib.sh); the fixture's ceph.conf
# has "rados osd op timeout = 30" for clients that ignore CEPH_ARGS.
. "$(dirname "$0")/lib.sh"
echo "1..6"

start_fixture; rc=$?
ok $rc "fixture started in ${FIXTURE_SECS}s"
[ $rc = 0 ] || { echo "Bail out! no Ceph cluster"; exit 1; }
cp "$CEPH_CONF" "$WORK/ceph.conf"
rbd create --size 1G rbd/k

# the OSD dies 2 s into a 60 s run
( sleep 2; "$FIXTURE" kill-osd "$CEPH_DIR" ) &
killer=$!
t0=$SECONDS
timeout 120 "$PROBE" --eta=never --name=k --ioengine=rbd --pool=rbd --rbdname=k --rw=randwrite \
	--bs=4k --iodepth=32 --direct=1 --runtime=60 --time_based --trace="$WORK/k.trace" \
	--output-format=json --output="$WORK/k.json" 2> "$WORK/e"; rc=$?
took=$((SECONDS - t0))
wait $killer
[ $rc = 1 ] && [ $took -lt 45 ]
ok $? "OSD killed mid-run: the probe ends with exit 1 after ${took}s (run was 60 s)"
err=$(json_get "$WORK/k.json" 'd["jobs"][0]["error"]' 2> /dev/null)
v=$(json_get "$WORK/k.json" 'd["jobs"][0]["write"]["total_ios"]' 2> /dev/null)
[ "${err:-0}" = 110 ] && [ "${v:-0}" -gt 0 ]
ok $? "the JSON report is kept: error=$err (ETIMEDOUT), $v writes measured"
"$PROBE" --dump-trace="$WORK/k.trace" > "$WORK/k.txt" 2>&1; rc=$?
recs=$(grep -c '^record' "$WORK/k.txt")
[ $rc = 0 ] && [ "$recs" -gt 0 ] && grep -q 'result=-110' "$WORK/k.txt"
ok $? "the trace is kept and valid: $recs records, the failed writes with result=-110"

# now the monitor too: nobody answers
"$FIXTURE" stop "$CEPH_DIR"
t0=$SECONDS
timeout 60 "$PROBE" --eta=never --name=d --ioengine=rbd --pool=rbd --rbdname=k \
	--ceph_conf="$WORK/ceph.conf" --rw=randread --runtime=1 > /dev/null 2> "$WORK/e"; rc=$?
took=$((SECONDS - t0))
[ $rc = 1 ] && grep -q "cannot connect to the Ceph cluster" "$WORK/e" && [ $took -lt 20 ]
ok $? "cluster down: a clear error after ${took}s: $(cat "$WORK/e")"
t0=$SECONDS
CEPH_CONF="$WORK/ceph.conf" timeout 60 "$PROBE" --eta=never --name=d --ioengine=rbd --pool=rbd \
	--rbdname=k --rw=randwrite --runtime=1 > /dev/null 2> "$WORK/e"; rc=$?
took=$((SECONDS - t0))
[ $rc = 1 ] && grep -q "cannot connect to the Ceph cluster" "$WORK/e" && [ $took -lt 20 ]
ok $? "cluster down, CEPH_CONF and a write job: a clear error after ${took}s"
finish
