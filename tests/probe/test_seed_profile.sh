#!/bin/bash
# The operators' 6-phase seed profile runs unchanged (given its variables,
# with a short ramp): five reported entries as fio prints them (the last
# section has no stonewall, so it joins the 80/20 group), fio's layout,
# valid JSON, and json+ that fio's own fio_jsonplus_clat2csv accepts.
. "$(dirname "$0")/lib.sh"
echo "1..14"
sed 's/^ramp_time=30/ramp_time=1/' "$IOGAP_SRC/tests/data/seed-profile.fio" > "$WORK/seed.fio"
export BLKSIZE=4k IODEPTH=4 NUMJOBS=2 RUNTIME=1 DEVICE="$WORK/disk.img"
"$PROBE" --eta=never --size=32m "$WORK/seed.fio" > "$WORK/out.txt" 2> "$WORK/err.txt"
ok $? "seed profile runs ($(head -c 300 "$WORK/err.txt"))"
out="$WORK/out.txt"
ok "$(grep -c '^[a-z0-9_-]*: (groupid=' "$out" | grep -qx 5; echo $?)" "five reported entries"
grep -q '^rand-mix_80r_20w: (groupid=4, jobs=4)' "$out"
ok $? "80/20 and 50/50 reported together under the first name, jobs=4"
ok "$(grep -c '^Run status group [0-4] (all jobs):' "$out" | grep -qx 5; echo $?)" "five run status groups"
grep -q '^seq-write: (g=0): rw=write, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=libaio, iodepth=4' "$out"
ok $? "job line as fio prints it"
grep -Eq '^  write: IOPS=[0-9.]+k?, BW=' "$out"; ok $? "write IOPS/BW line"
grep -Eq '^  read: IOPS=[0-9.]+k?, BW=' "$out"; ok $? "read IOPS/BW line"
grep -Eq '^    slat \((nsec|usec|msec)\): min=' "$out"; ok $? "slat line (libaio is async)"
grep -Eq '^     lat \((nsec|usec|msec)\): min=' "$out"; ok $? "lat line"
grep -q 'clat percentiles' "$out"; ok $? "clat percentiles block"
grep -Eq '^  cpu          : usr=' "$out"; ok $? "cpu line"
grep -Eq '^  IO depths    : 1=' "$out"; ok $? "IO depths line"

# the seed file was written by the phases: JSON and json+ runs on the same
sed -i 's/^time_based=1/time_based=1\nruntime=1/' "$WORK/seed.fio"
"$PROBE" --eta=never --size=32m --output-format=json+ --output="$WORK/out.json" "$WORK/seed.fio" 2>"$WORK/err2.txt"
python3 - "$WORK/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
jobs = d["jobs"]
assert len(jobs) == 5, len(jobs)
for j in jobs:
    for k in ("jobname", "groupid", "read", "write", "trim", "job options", "iodepth_level", "latency_us"):
        assert k in j, k
    for dd in ("read", "write"):
        for lk in ("slat_ns", "clat_ns", "lat_ns"):
            assert "mean" in j[dd][lk], (dd, lk)
assert jobs[4]["jobname"] == "rand-mix_80r_20w"
assert jobs[0]["write"]["total_ios"] > 0
assert "bins" in jobs[0]["write"]["clat_ns"]
PY
ok $? "json+ parses with python: 5 jobs, fio keys, bins"
cd "$WORK" && fio_jsonplus_clat2csv "$WORK/out.json" "$WORK/csv" > /dev/null 2>&1 &&
	[ "$(ls "$WORK"/csv_job* | wc -l)" = 5 ] && grep -q '^nsec, read_slat_ns_count' "$WORK/csv_job0"
ok $? "fio_jsonplus_clat2csv accepts our json+ (one CSV per job)"
finish
