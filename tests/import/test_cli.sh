#!/bin/sh
# iogap import and iogap lint end to end (TAP).
IOGAP=${IOGAP:-$IOGAP_BUILD/host-tools/iogap}
D=$IOGAP_SRC/tests/import/data
JOBS=$IOGAP_SRC/tests/data
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
fail=0
t() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
has() { grep -q -- "$1" "$2"; echo $?; }
manifest() { python3 -c "import json,sys; m=json.load(open('$1')); sys.exit(0 if ($2) else 1)"; echo $?; }

echo 1..30

"$IOGAP" import --dir "$T/run" --label bare "$D/nvme-passthrough-baremetal.txt" \
	--label vm "$D/nvme-passthrough-vm.txt" >"$T/out" 2>&1
rc=$?
[ $rc = 0 ] && [ -s "$T/run/bare/probe.json" ] && [ -s "$T/run/vm/probe.json" ] &&
	[ -s "$T/run/manifest.json" ] && [ -s "$T/run/vm/probe.txt" ]
t $? "import both fixtures into one run dir: bare/ and vm/ probe.json, manifest"
t "$(manifest "$T/run/manifest.json" "m['phases']['bare']['status']=='ok' and m['phases']['vm']['imported']['format']=='fio-text-3' and m['imported']['label']=='vm' and m['phases']['bare']['imported']['fio_version']=='fio-3.1'")" \
	"manifest: phases ok, imported source/format/fio_version/label"
t "$(manifest "$T/run/vm/probe.json" "m['jobs'][0]['read']['total_ios']==839283 and m['jobs'][0]['read']['clat_ns']['percentile']['99.000000']==4448 and abs(m['jobs'][0]['read']['slat_ns']['mean']-115270)<1e-6")" \
	"vm/probe.json in fio's schema with the pasted numbers"

"$IOGAP" import --dir "$T/run" --label fio333 "$D/fio333-multi.jsonplus" >"$T/out" 2>&1
t "$(manifest "$T/run/manifest.json" "set(m['phases'])=={'bare','vm','fio333'} and m['phases']['fio333']['imported']['format']=='fio-json+'")" \
	"a third import keeps the others in the manifest (fio-json+)"

"$IOGAP" lint "$D/nvme-passthrough-baremetal.txt" >"$T/lint1" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "^WARNING buffered-async: .*libaio without direct=1: read slat avg 94.72 us" "$T/lint1" &&
	grep -q "^    why: " "$T/lint1" && grep -q "^    do: " "$T/lint1"
t $? "lint bare-metal fixture: buffered libaio (slat 94.72 us >> clat), exit 1, why/do lines"

"$IOGAP" lint "$D/nvme-passthrough-vm.txt" >"$T/lint2" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "^WARNING buffered-async: .*read slat avg 115.27 us" "$T/lint2"
t $? "lint VM fixture: buffered libaio"

"$IOGAP" lint "$JOBS/seed-profile.fio" >"$T/lint3" 2>&1
rc=$?
! grep -q "buffered-async\|cache-" "$T/lint3" && [ $rc = 0 ]
t $? "lint seed-profile.fio (direct=1): no buffered or cache finding, exit 0"

cat >"$T/psync.fio" <<'JOB'
[global]
ioengine=psync
direct=1
[qd8]
rw=randread
iodepth=8
JOB
"$IOGAP" lint "$T/psync.fio" >"$T/lint4" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "^WARNING sync-iodepth: .*job 'qd8': ioengine=psync with iodepth=8" "$T/lint4"
t $? "lint psync job with iodepth=8: sync-iodepth"

cat >"$T/cached.fio" <<'JOB'
[small]
ioengine=io_uring
iodepth=32
size=64M
rw=randread
JOB
"$IOGAP" lint "$T/cached.fio" >"$T/lint5" 2>&1
grep -q "^WARNING buffered-async: .*io_uring without direct=1" "$T/lint5" &&
	grep -q "^WARNING cache-working-set: .*size=64M" "$T/lint5"
t $? "lint io_uring job without direct: buffered-async and cache-working-set"

"$IOGAP" import --dir "$T/fx" --label bare "$D/nvme-passthrough-baremetal.txt" \
	--label vm "$D/nvme-passthrough-vm.txt" >"$T/out" 2>&1
"$IOGAP" lint "$T/fx" >"$T/lint6" 2>&1
rc=$?
[ $rc = 1 ] && grep -q '^WARNING buffered-async (2 findings):' "$T/lint6" &&
	[ "$(grep -c "^    - .*job 'test': ioengine=libaio without direct=1" "$T/lint6")" = 2 ] &&
	! grep -q "sides-differ" "$T/lint6"
t $? "lint the fixtures' run dir: both sides buffered (one finding, two entries), same job parameters"

"$IOGAP" import --dir "$T/mis" --label bare "$D/fio333-randrw-libaio-buffered.out" \
	--label vm "$D/fio333-psync-qd8.out" >"$T/out" 2>&1 &&
	"$IOGAP" lint "$T/mis" >"$T/lint7" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "^WARNING sides-differ: job .*rw: randrw vs randread" "$T/lint7" &&
	grep -q "^WARNING engine-differs: .*libaio.*psync" "$T/lint7"
t $? "lint a run dir whose sides ran different jobs: sides-differ, engine-differs"

"$IOGAP" lint "$D/fio216-randrw-libaio.txt" "$D/nvme-passthrough-baremetal.txt" >"$T/lint8" 2>&1
grep -q "^WARNING version-differs: .*fio-2.16.*fio-3.1" "$T/lint8"
t $? "lint two outputs of different fio versions: version-differs"

"$IOGAP" lint "$D/fio333-null.txt" >"$T/lint9" 2>&1
grep -q "^WARNING cpu-saturated: .*usr=99.60%" "$T/lint9"
t $? "lint null-engine output: cpu-saturated"

# the VM fixture's output without its command line, behind other pasted ones
body() { grep -v '^\[centos' "$D/nvme-passthrough-vm.txt"; }
{ printf '%s\n' '# fio --ioengine=libaio --name=test --filename=test --bs=4k \' \
	'    --size=40G --readwrite=randrw --direct=1 \' '    --runtime=120 --time_based'; body; } >"$T/p-direct.txt"
"$IOGAP" lint "$T/p-direct.txt" >"$T/lint10" 2>&1
rc=$?
! grep -q "buffered-async\|cache-" "$T/lint10" && [ $rc = 0 ]
t $? "pasted '# fio … \\' command line continued over lines with --direct=1: no buffered finding"

{ printf '%s\n' '[user@host nvme0]# sudo fio --ioengine=libaio --name=test --bs=4k \' \
	'> --readwrite=randrw 2>&1 | tee out.txt'; body; } >"$T/p-sudo.txt"
"$IOGAP" lint "$T/p-sudo.txt" >"$T/lint11" 2>&1
grep -q "^WARNING buffered-async: .*job 'test': ioengine=libaio without direct=1" "$T/lint11"
t $? "'[user@host dir]# sudo fio …' continued with '> ': direct known absent"

{ echo '$ fio --ioengine=libaio randrw.fio'; body; } >"$T/p-jobfile.txt"
body >"$T/p-none.txt"
"$IOGAP" lint "$T/p-jobfile.txt" >"$T/lint12" 2>&1
"$IOGAP" lint "$T/p-none.txt" >"$T/lint13" 2>&1
grep -q "buffered-async: .*with direct unknown (the output does not show" "$T/lint12" &&
	grep -q "buffered-async: .*with direct unknown" "$T/lint13" &&
	! grep -q "libaio without direct=1" "$T/lint12" "$T/lint13"
t $? "a command line naming a job file, or none: direct is unknown, not absent"

"$IOGAP" lint "$D/fio333-multi.json" >"$T/lint14" 2>&1
[ "$(grep -c '^WARNING few-samples' "$T/lint14")" = 1 ] &&
	grep -q '^WARNING few-samples (5 findings):' "$T/lint14" &&
	[ "$(grep -c "^    - .*job '" "$T/lint14")" = 5 ] && [ "$(grep -c '^    why: ' "$T/lint14")" = 1 ]
t $? "identical findings grouped: one few-samples entry listing its 5 jobs, why/do once"

printf '[global]\ndirect=1\n[job\nrw=read\n' >"$T/badsection.fio"
"$IOGAP" lint "$T/badsection.fio" >"$T/out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "badsection.fio:3: bad section header '\[job'" "$T/out"
t $? "job file read by the probe's lexer: a broken section header is an error with file:line"

printf '[global]\nioengine=libaio  # async\ndirect=${DIRECT}\n[j]\nrw=randread\n' >"$T/var.fio"
"$IOGAP" lint "$T/var.fio" >"$T/lint15" 2>&1
! grep -q "buffered-async" "$T/lint15"
t $? "job file: direct=\${VAR} is unknown (no buffered finding), trailing comment dropped"

{ echo "v17.2.6 (before):"; cat "$D/nvme-passthrough-baremetal.txt"; echo "v18.2.0 (after):"
  cat "$D/nvme-passthrough-vm.txt"; echo "v17.2.6 (before):"; cat "$D/nvme-passthrough-baremetal.txt"
} >"$T/paste.txt"
"$IOGAP" import --dir "$T/pasted" "$T/paste.txt" >"$T/out" 2>&1
rc=$?
[ $rc = 0 ] &&
	[ "$(manifest "$T/pasted/manifest.json" "set(m['phases'])=={'v17.2.6-before','v18.2.0-after','v17.2.6-before-2'}")" = 0 ] &&
	[ "$(manifest "$T/pasted/v18.2.0-after/probe.json" "m['jobs'][0]['read']['total_ios']==839283")" = 0 ] &&
	! grep -q "v18.2.0" "$T/pasted/v17.2.6-before/source.txt"
t $? "a paste of three named fio outputs imports as three runs, labelled from the name lines"

"$IOGAP" lint "$D/paste-two-runs.txt" >"$T/lint16" 2>&1
grep -q "^WARNING buffered-async: .*paste-two-runs.txt\[before-fio-3.1-bare-metal\]: job 'test'" "$T/lint16" &&
	! grep -q "buffered-async.*\[after\]" "$T/lint16" &&
	grep -q "^WARNING sides-differ: .*\[before-fio-3.1-bare-metal\] vs .*\[after\]: .*direct: (unset) vs 1" "$T/lint16"
t $? "lint a paste of two runs: each run checked on its own command line, the two compared"

"$IOGAP" import --dir "$T/pasted2" --label ceph "$T/paste.txt" >"$T/out" 2>&1 &&
	[ -s "$T/pasted2/ceph-v18.2.0-after/probe.json" ]
t $? "--label with a multi-run paste prefixes the runs' labels"

printf 'hello\nworld\n' >"$T/garbage.txt"
"$IOGAP" import --dir "$T/g" "$T/garbage.txt" >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "garbage.txt: no fio results found" "$T/out"
t $? "import garbage: exit 1, names the file"

head -c 1200 "$D/fio333-multi.json" >"$T/cut.json"
"$IOGAP" import --dir "$T/g" "$T/cut.json" >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "cut.json:[0-9]*:[0-9]*: invalid fio JSON" "$T/out"
t $? "import truncated JSON: exit 1, file:line:column"

"$IOGAP" import --dir "$T/g" --label x "$D/fio333-null.txt" "$D/fio333-multi.txt" >"$T/out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "both go to label 'x'" "$T/out"
t $? "two files into one label is refused"

# a finding only where its premise holds: etcd's check is buffered on purpose
# (each write flushed by fdatasync), io_uring_cmd on /dev/ng0n1 never uses
# the page cache; the same etcd job with reads still gets the finding
"$IOGAP" lint --ram 4g "$JOBS/etcd-fdatasync.fio" >"$T/lint-etcd" 2>&1
! grep -q "cache-working-set\|cache-hits" "$T/lint-etcd"
t $? "lint etcd's fdatasync job: no cache-working-set (every write flushed)"
"$IOGAP" lint --ram 4g "$JOBS/blktests-io-uring-cmd.fio" >"$T/lint-ng" 2>&1
! grep -q "cache-working-set\|cache-hits" "$T/lint-ng"
t $? "lint blktests' io_uring_cmd job on /dev/ng0n1: no cache-working-set"
sed 's/^rw=write/rw=randrw/' "$JOBS/etcd-fdatasync.fio" >"$T/etcd-rw.fio"
"$IOGAP" lint --ram 4g "$T/etcd-rw.fio" >"$T/lint-etcd-rw" 2>&1
grep -q "^WARNING cache-working-set: .*job 'mytest': size=22m" "$T/lint-etcd-rw"
t $? "the same job reading too: cache-working-set (reads are served from the cache)"

# memory bounded: a fio JSON+ of 500 jobs (~5 MB) imports within 1.5 GiB of
# peak RSS (measured: ~0.2 GB; before, every JSON string took the rest of the
# document: 3 GB); an input past the limit is refused without being read
python3 - "$D/fio333-multi.jsonplus" "$T/many.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["jobs"] = [dict(d["jobs"][0], jobname="job%d" % i) for i in range(500)]
json.dump(d, open(sys.argv[2], "w"))
PY
python3 - "$IOGAP" "$T" >"$T/rss" 2>&1 <<'PY'
import resource, subprocess, sys
rc = subprocess.run([sys.argv[1], "import", "--dir", sys.argv[2] + "/many", sys.argv[2] + "/many.json"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT).returncode
kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print("# exit %d, peak RSS %d KiB" % (rc, kb))
sys.exit(0 if rc == 0 and kb < 1536 * 1024 else 1)
PY
t $? "import of 500 jobs: peak RSS under 1.5 GiB ($(cat "$T/rss"))"
truncate -s 300M "$T/huge.json"
"$IOGAP" import --dir "$T/g" "$T/huge.json" >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "huge.json: 314572800 bytes, more than the limit of 256 MiB" "$T/out"
t $? "import of a 300 MB input: refused by its size, not read"

exit $fail
