#!/bin/bash
# iogap run on an RBD image under TCG: bare metal through the probe's rbd
# engine, the VM through QEMU's rbd driver below the bottom filter (the
# guest needs no Ceph).  Every write pairs by tag, the bottom stage (librbd
# + Ceph as QEMU sees it) is measured, the manifest records the rbd cache
# settings; a missing image fails the run with a clear message.
. "$(dirname "$0")/lib.sh"
# iogap through tests/run/iogap-tcg (see tests/run/lib.sh)
export IOGAP_BIN=$IOGAP_BUILD/host-tools/iogap
IOGAP=$(cd "$(dirname "$0")/../run" && pwd)/iogap-tcg
echo "1..8"
manifest() { python3 -c "import json,sys; m=json.load(open('$1/manifest.json')); sys.exit(0 if ($2) else 1)"; }
mval() { python3 -c "import json; m=json.load(open('$1/manifest.json')); print($2)"; }

start_fixture; rc=$?
ok $rc "fixture started in ${FIXTURE_SECS}s"
[ $rc = 0 ] || { echo "Bail out! no Ceph cluster"; exit 1; }
rbd create --size 256M rbd/run
# written data: unwritten objects read back zeros without touching BlueStore
rbd bench --io-type write --io-size 4M --io-threads 4 --io-pattern seq --io-total 256M rbd/run \
	> /dev/null 2>&1
# the operators' seed profile, short: 6 phases of 1 s after a 1 s ramp
sed 's/^ramp_time=30/ramp_time=1/' "$IOGAP_SRC/tests/data/seed-profile.fio" > "$WORK/seed.fio"
export BLKSIZE=4k IODEPTH=4 NUMJOBS=1 RUNTIME=1 DEVICE=unused
# the image holds no filesystem, only rbd bench's data: writes are allowed
"$IOGAP" run --accel tcg --dir "$WORK/r" --target "rbd:rbd/run,conf=$CEPH_CONF" \
	"$WORK/seed.fio" > "$WORK/r.out" 2>&1; rc=$?
ok $rc "iogap run --target rbd:rbd/run: $(tail -1 "$WORK/r.out")"
manifest "$WORK/r" 'm["phases"]["bare"]["status"] == "ok" and m["phases"]["vm"]["status"] == "ok"'
ok $? "both phases ok"
manifest "$WORK/r" 'm["pairing"]["exact"]["write"] == m["pairing"]["guest"]["write"] > 100'
ok $? "every write paired by tag: $(mval "$WORK/r" 'm["pairing"]["exact"]["write"], "of", m["pairing"]["guest"]["write"]')"
manifest "$WORK/r" 'm["stage_mean_ns"]["read"]["B"] > 0 and m["stage_mean_ns"]["write"]["B"] > 0'
ok $? "the rbd backend stage (B): read $(mval "$WORK/r" 'round(m["stage_mean_ns"]["read"]["B"])') ns, write $(mval "$WORK/r" 'round(m["stage_mean_ns"]["write"]["B"])') ns"
grep -q 'ioengine=rbd' "$WORK/r/bare/probe.txt" &&
	tr -d ' \n' < "$WORK/r/vm/qemu.cmdline" |
	grep -q '"layer":"bottom",,.*"driver":"rbd",,"pool":"rbd",,"image":"run"' &&
	manifest "$WORK/r" '"rbd_cache=" in m["target"]["rbd_cache_config"] and m["target"]["rbd_cache_vm"].startswith("rbd_cache=false")'
ok $? "bare metal used the probe's rbd engine, QEMU's rbd driver sits below the bottom filter, cache settings recorded"
"$IOGAP" report --full "$WORK/r" > "$WORK/report.txt" 2>&1 &&
	[ "$(grep -c '^== ' "$WORK/report.txt")" -ge 5 ] && grep -Eq '^  B +[0-9]+ ' "$WORK/report.txt"
ok $? "iogap report: every phase of the seed profile with the rbd backend stage ($(grep -c '^== ' "$WORK/report.txt") job/direction tables)"

"$IOGAP" run --accel tcg --dir "$WORK/m" --target "rbd:rbd/missing,conf=$CEPH_CONF" \
	"$WORK/seed.fio" > "$WORK/m.out" 2>&1; rc=$?
# refused before bare metal: QEMU (qemu-img) cannot open it
[ $rc != 0 ] && manifest "$WORK/m" '"missing: No such file or directory" in m["phases"]["bare"]["message"]'
ok $? "a missing image fails the run, the reason in the manifest: $(mval "$WORK/m" 'm["phases"]["bare"]["message"]' 2>&1 | head -c 200)"
finish
