#!/bin/bash
# fio semantics the comparisons rely on, checked on the trace and JSON:
# seeded repeatability, random map coverage, rw mix, bssplit, io_size,
# numjobs/group_reporting, rate_iops, write_lat_log.
. "$(dirname "$0")/lib.sh"
echo "1..17"
P() { "$PROBE" --eta=never --output-format=json "$@"; }
dump() { "$PROBE" --dump-trace "$1"; }
py() { python3 - "$@"; }

P --name=a --ioengine=null --rw=randread --size=64m --io_size=4m --trace="$WORK/a1" > /dev/null &&
P --name=a --ioengine=null --rw=randread --size=64m --io_size=4m --trace="$WORK/a2" > /dev/null &&
P --name=a --ioengine=null --rw=randread --size=64m --io_size=4m --randrepeat=0 --trace="$WORK/a3" > /dev/null
ok $? "three seeded runs"
offs() { dump "$1" | sed -n 's/^record [0-9]*: .* offset=\([0-9]*\) .*/\1/p'; }
cmp -s <(offs "$WORK/a1") <(offs "$WORK/a2"); ok $? "same job, same seed: identical offset sequence"
! cmp -s <(offs "$WORK/a1") <(offs "$WORK/a3"); ok $? "randrepeat=0: a different sequence"

P --name=m --ioengine=null --rw=randread --size=4m --trace="$WORK/map" > /dev/null
[ "$(offs "$WORK/map" | sort -n | uniq | wc -l)" = 1024 ] && [ "$(offs "$WORK/map" | wc -l)" = 1024 ]
ok $? "random map: 4m of 4k randread touches each of the 1024 blocks exactly once"

P --name=mix --ioengine=null --rw=randrw --rwmixread=70 --norandommap --size=1g --io_size=400m > "$WORK/mix.json"
py "$WORK/mix.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
r, w = j["read"]["total_ios"], j["write"]["total_ios"]
frac = r / (r + w)
sys.exit(0 if 0.68 < frac < 0.72 and r + w == 102400 else 1)
PY
ok $? "rwmixread=70: 68-72% reads over 102400 I/Os"

P --name=bs --ioengine=null --rw=randread --norandommap --bssplit=4k/25:64k/75 --size=1g \
	--io_size=256m --trace="$WORK/bs" > /dev/null
dump "$WORK/bs" | sed -n 's/.* length=\([0-9]*\) .*/\1/p' | sort | uniq -c > "$WORK/bs.txt"
py "$WORK/bs.txt" <<'PY'
import sys
c = {int(l.split()[1]): int(l.split()[0]) for l in open(sys.argv[1])}
n = sum(c.values())
sys.exit(0 if set(c) == {4096, 65536} and 0.22 < c[4096] / n < 0.28 else 1)
PY
ok $? "bssplit=4k/25:64k/75: only those sizes, ~25% of requests 4k ($(tr '\n' ' ' < "$WORK/bs.txt"))"

P --name=io --ioengine=psync --rw=read --size=1m --io_size=5m --filename="$WORK/f" > "$WORK/io.json"
py "$WORK/io.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
sys.exit(0 if j["read"]["io_bytes"] == 5 << 20 else 1)
PY
ok $? "io_size=5m over a 1m file: reads 5m (wrapping)"

P --name=n --ioengine=null --rw=read --size=1m --numjobs=3 > "$WORK/n1.json" &&
P --name=n --ioengine=null --rw=read --size=1m --numjobs=3 --group_reporting > "$WORK/n2.json"
py "$WORK/n1.json" "$WORK/n2.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["jobs"]
b = json.load(open(sys.argv[2]))["jobs"]
ok = len(a) == 3 and len(b) == 1 and b[0]["read"]["total_ios"] == 3 * 256
sys.exit(0 if ok else 1)
PY
ok $? "numjobs=3: three entries, one with group_reporting summing 768 I/Os"

P --name=r --ioengine=null --rw=randread --norandommap --size=1g --rate_iops=200 --runtime=2 \
	--time_based > "$WORK/rate.json"
py "$WORK/rate.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["jobs"][0]["read"]
sys.exit(0 if 300 <= r["total_ios"] <= 401 else 1)
PY
ok $? "rate_iops=200 for 2 s: between 300 and 400 I/Os (+1)"

P --name=lp --ioengine=null --rw=randread --size=1m --loops=3 > "$WORK/loops.json"
py "$WORK/loops.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["jobs"][0]["read"]
sys.exit(0 if r["total_ios"] == 3 * 256 else 1)
PY
ok $? "loops=3 over 1m of 4k: 768 reads"

# fio's time stamps: async engines stamp issue when the submit call returned
# (slat > 0), sync engines just before the call (no slat); trims an async
# engine runs synchronously are timed as clat, like fio
P --name=a --ioengine=libaio --iodepth=4 --direct=1 --rw=randread --size=4m \
	--filename="$WORK/sem.img" --trace="$WORK/aio.trace" > "$WORK/aio.json" &&
	P --name=p --ioengine=psync --direct=1 --rw=randread --size=4m --filename="$WORK/sem.img" \
	--trace="$WORK/psync.trace" > "$WORK/psync.json" &&
	P --name=t --ioengine=libaio --iodepth=4 --rw=randtrim --bs=64k --size=4m \
	--filename="$WORK/sem.img" --allow-destroy-data --trace="$WORK/trim.trace" > "$WORK/trim.json"
ok $? "libaio, psync and libaio trim runs with traces"
fields() { dump "$1" | sed -n 's/^record [0-9]*: .* start_ns=\([0-9]*\) issue_ns=\([0-9]*\) complete_ns=\([0-9]*\) .*/\1 \2 \3/p'; }
fields "$WORK/aio.trace" | awk '{ n++; if (!($2 > $1 && $3 >= $2)) bad++ } END { exit !(n == 1024 && !bad) }' &&
	fields "$WORK/psync.trace" | awk '{ n++; if (!($2 == $1 && $3 > $2)) bad++ } END { exit !(n == 1024 && !bad) }'
ok $? "libaio: start < issue <= complete for all 1024; psync: issue == start < complete"
py "$WORK/aio.json" "$WORK/psync.json" "$WORK/trim.json" <<'PY'
import json, sys
a, p, t = (json.load(open(f))["jobs"][0] for f in sys.argv[1:4])
ok = (a["read"]["slat_ns"]["N"] == 1024 and a["read"]["slat_ns"]["mean"] > 0 and
      p["read"]["slat_ns"]["N"] == 0 and p["read"]["clat_ns"]["N"] == 1024 and
      t["trim"]["total_ios"] == 64 and t["trim"]["clat_ns"]["mean"] > 0)
sys.exit(0 if ok else 1)
PY
ok $? "JSON: libaio has slat for every read, psync none; trims on libaio are timed as clat"

dd if=/dev/zero of="$WORK/pct.img" bs=1M count=8 status=none
P --name=pct --ioengine=psync --rw=read --size=50% --offset=25% --filename="$WORK/pct.img" \
	--trace="$WORK/pct.trace" > "$WORK/pct.json" &&
	[ "$(offs "$WORK/pct.trace" | sort -n | head -1)" = 2097152 ] &&
	[ "$(offs "$WORK/pct.trace" | sort -n | tail -1)" = $((6 * 1048576 - 4096)) ]
ok $? "size=50% offset=25% of an 8 MiB file: reads [2 MiB, 6 MiB)"

(cd "$WORK" && P --name=l --ioengine=psync --rw=randwrite --size=1m --filename="$WORK/lf" \
	--write_lat_log=lg --log_offset=1 > /dev/null)
ok $? "write_lat_log run"
[ "$(wc -l < "$WORK/lg_clat.1.log")" = 256 ] && [ "$(wc -l < "$WORK/lg_lat.1.log")" = 256 ]
ok $? "clat and lat logs hold 256 samples"
grep -Eqx '[0-9]+, [0-9]+, 1, 4096, [0-9]+, 0' "$WORK/lg_clat.1.log"
ok $? "log lines in fio's format: msec, nsec, ddir, bs, offset, prio"
finish
