#!/bin/bash
# fio's process, file and pacing options (engines/jobproc.c,
# guest-probe/procopts.c): each runs a short job and checks what it does,
# beside fio 3.33 where fio's behaviour can be compared.
. "$(dirname "$0")/lib.sh"
echo "1..37"
FIO=${FIO:-fio}
cd "$WORK" || exit 1
chmod 755 "$WORK"   # uid= jobs below open files in it
J() { python3 -c 'import json,sys; t=open(sys.argv[1]).read(); j=json.loads(t[t.index("{"):])["jobs"][0]; print(eval(sys.argv[2]))' "$@"; }
# the worker thread of a running probe (the task that is not the main one)
worker_task() { for t in /proc/"$1"/task/*; do [ "${t##*/}" != "$1" ] && echo "$t" && return; done; }
# wait (up to 5 s) until the command holds: a running job's state, however slow the start
await() { for _ in $(seq 50); do "$@" 2> /dev/null && return; sleep 0.1; done; }
head -c 1m /dev/urandom > d.dat

# bad values: file:line errors naming the option
printf '[a]\nnice=20\n' > b1.fio; printf '[a]\nsize=4k\nfadvise_hint=noreuse\n' > b2.fio
printf '[a]\nmem=cudamalloc\n' > b3.fio; printf '[a]\ncgroup=x\ncgroup_weight=50\n' > b4.fio
printf '[a]\nprofile=\n' > b5.fio; printf '[a]\nioengine=null\nsize=64k\nprofile=act\nprofile=nope\n' > g5.fio
! "$PROBE" --parse-only b1.fio 2> e1 && grep -q "b1.fio:2: option 'nice': bad value '20'" e1 &&
	! "$PROBE" --parse-only b2.fio 2> e2 && grep -q "b2.fio:3: option 'fadvise_hint'" e2 &&
	! "$PROBE" --parse-only b3.fio 2> e3 && grep -q "b3.fio:2: option 'mem'.*cudamalloc" e3 &&
	! "$PROBE" --parse-only b4.fio 2> e4 && grep -q "b4.fio:3: option 'cgroup_weight'.*100 to 1000" e4
ok $? "bad values name file:line and the option ($(cat e1); $(cat e2))"
! "$PROBE" --parse-only b5.fio 2> e5 && grep -q "b5.fio:2: option 'profile'.*name is needed" e5 &&
	"$PROBE" --parse-only g5.fio && "$FIO" --parse-only g5.fio
ok $? "profile= takes any name (without effect, as in fio), not none: $(cat e5)"
"$PROBE" --parse-only --name=a --rate_cycle=500 --unique_filename=0 --write_barrier=4 --overwrite=1 \
	--blockalign=8k --iomem=mmapshared --hugepage-size=2m --gtod_reduce=0
ok $? "rate_cycle (ratecycle's name in fio), unique_filename, write_barrier, overwrite, blockalign, iomem, hugepage-size accepted"

# fsync_on_close: the files synced after the I/O, outside the statistics as fio
if command -v strace > /dev/null; then
	strace -f -e trace=pwrite64,fsync -o fc.st "$PROBE" --name=f --filename=fc.dat --rw=write --size=64k \
		--fsync_on_close=1 --output-format=json > fc.json
	"$FIO" --name=f --filename=ff.dat --rw=write --size=64k --fsync_on_close=1 --output-format=json > ffc.json
	[ "$(grep -E 'pwrite64|fsync' fc.st | tail -1 | grep -c fsync)" = 1 ] &&
		[ "$(J fc.json 'j["sync"]["total_ios"]')" = "$(J ffc.json 'j["sync"]["total_ios"]')" ] &&
		[ "$(J fc.json 'j["sync"]["total_ios"]')" = 0 ]
	ok $? "fsync_on_close: fsync after the last write; sync total_ios $(J fc.json 'j["sync"]["total_ios"]') as fio"
else
	skip "fsync_on_close" "strace is not installed"
fi
"$PROBE" --name=f --filename=fe.dat --rw=write --size=64k --fsync=4 --end_fsync=1 --output-format=json > fe.json
"$FIO" --name=f --filename=ffe.dat --rw=write --size=64k --fsync=4 --end_fsync=1 --output-format=json > ffe.json
[ "$(J fe.json 'j["sync"]["total_ios"]')" = "$(J ffe.json 'j["sync"]["total_ios"]')" ]
ok $? "fsync=4 end_fsync=1: $(J fe.json 'j["sync"]["total_ios"]') syncs counted, as fio (the end one is not)"

# exec_prerun / exec_postrun: before and after the job's I/O, output in NAME.prerun.txt
# (the sleeps: file times come from the kernel's coarse clock, a tick behind date's)
"$PROBE" --name=x --filename=x.dat --rw=write --size=64k --exec_prerun='date +%s.%N > pre.mark; sleep 0.1; echo hello' \
	--exec_postrun='sleep 0.1; date +%s.%N > post.mark; true' > /dev/null 2> x.err
m=$(stat -c %.9Y x.dat)
python3 -c "import sys; a,m,b=map(float,sys.argv[1:]); sys.exit(not a<m<b)" "$(cat pre.mark)" "$m" "$(cat post.mark)" &&
	[ "$(cat x.prerun.txt)" = hello ] && grep -q "x : Saving output of prerun in x.prerun.txt" x.err
ok $? "exec_prerun before the writes, exec_postrun after them ($(cat pre.mark) < $m < $(cat post.mark))"
"$PROBE" --name=y --filename=x.dat --size=64k --exec_prerun='exit 3' --output-format=json > y.json 2> /dev/null
[ "$(J y.json 'j["read"]["io_bytes"]')" = 0 ] && [ "$(J y.json 'j["error"]')" != 0 ]
ok $? "a failing exec_prerun: the job does no I/O (error $(J y.json 'j["error"]'))"

# pre_read: the region in the page cache before the job (fincore)
if command -v fincore > /dev/null; then
	head -c 8m /dev/urandom > pr.dat && sync pr.dat   # (dirty pages stay cached)
	"$PROBE" --name=p --filename=pr.dat --rw=read --number_ios=1 > /dev/null && a=$(fincore -bno RES pr.dat)
	"$PROBE" --name=p --filename=pr.dat --rw=read --number_ios=1 --pre_read=1 > /dev/null && b=$(fincore -bno RES pr.dat)
	[ "$b" = 8388608 ] && [ "$a" -lt 8388608 ]
	ok $? "pre_read: $b bytes cached after one read ($a without; invalidate cleared as fio)"
else
	skip "pre_read" "fincore (util-linux) is not installed"
fi

# unlink_each_loop: before each later loop the file goes (fio's order) — for a
# file that was there before the run only with --allow-destroy-data (the probe
# removes only what a job created, docs/iogap-probe.md "Data safety")
"$PROBE" --name=u --filename=ul.dat --rw=write --size=64k > /dev/null && i0=$(stat -c %i ul.dat)
"$PROBE" --name=u --filename=ul.dat --rw=write --size=64k --loops=2 --unlink_each_loop=1 --allow-destroy-data \
	--output-format=json > ul.json
[ "$(J ul.json 'j["write"]["io_bytes"]')" = 131072 ] && [ "$(stat -c %i ul.dat)" != "$i0" ] && [ "$(stat -c %a ul.dat)" = 600 ]
ok $? "unlink_each_loop, writing: a new file for loop 2 (inode $i0 -> $(stat -c %i ul.dat), mode 600 as fio's)"
"$PROBE" --name=u --filename=ul.dat --rw=read --size=64k --loops=2 --unlink_each_loop=1 --allow-destroy-data \
	--output-format=json > ur.json 2> /dev/null
"$FIO" --name=u --filename=fl.dat --rw=read --size=64k --loops=2 --unlink_each_loop=1 --output-format=json > fr.json 2> /dev/null
[ "$(J ur.json 'j["error"]')" = 2 ] && [ "$(J fr.json 'j["error"]')" = 2 ] && [ ! -e ul.dat ] &&
	[ "$(J ur.json 'j["read"]["io_bytes"]')" = "$(J fr.json 'j["read"]["io_bytes"]')" ]
ok $? "unlink_each_loop, reading: loop 2 fails with ENOENT after $(J ur.json 'j["read"]["io_bytes"]') bytes, as fio"

# nice, uid, gid: on the job's thread while it runs
"$PROBE" --name=n --ioengine=null --size=1m --time_based --runtime=6 --nice=7 --uid=65534 --gid=65534 > /dev/null & pid=$!
niced() { t=$(worker_task $pid) && [ "$(awk '{print $19}' "$t/stat")" = 7 ]; }
await niced; t=$(worker_task $pid)
nice=$(awk '{print $19}' "$t/stat"); uid=$(awk '/^Uid/{print $2}' "$t/status"); gid=$(awk '/^Gid/{print $2}' "$t/status")
muid=$(awk '/^Uid/{print $2}' /proc/$pid/status); wait $pid
[ "$nice" = 7 ] && [ "$uid" = 65534 ] && [ "$gid" = 65534 ] && [ "$muid" = 0 ]
ok $? "nice=7 uid=gid=65534 on the job's thread (nice $nice, uid $uid, gid $gid; the main thread stays uid $muid)"
cp d.dat own.dat && chmod 644 own.dat
"$PROBE" --name=o --filename=own.dat --rw=read --size=64k --uid=65534 --output-format=json > o1.json
"$PROBE" --name=o --filename=own.dat --rw=write --size=64k --uid=65534 --output-format=json > o2.json 2> /dev/null
"$FIO" --name=o --filename=own.dat --rw=write --size=64k --uid=65534 --output-format=json > o3.json 2> /dev/null
[ "$(J o1.json 'j["read"]["io_bytes"]')" = 65536 ] && [ "$(J o2.json 'j["error"]')" = 13 ] && [ "$(J o3.json 'j["error"]')" = 13 ]
ok $? "uid=65534: reads root's 0644 file, writing it fails with EACCES as fio"

# mem=, lockmem: the buffers where mem= says, memory locked
"$PROBE" --name=m --ioengine=null --size=1m --time_based --runtime=6 --mem=shm --lockmem=1m > /dev/null & pid=$!
locked() { grep -q SYSV /proc/$pid/maps && [ "$(awk '/VmLck/{print $2}' /proc/$pid/status)" -gt 0 ]; }
await locked; shm=$(grep -c SYSV /proc/$pid/maps); lck=$(awk '/VmLck/{print $2}' /proc/$pid/status); wait $pid
[ "$shm" = 1 ] && [ "$lck" -ge 1024 ]
ok $? "mem=shm: a SysV segment mapped ($shm); lockmem=1m: VmLck ${lck} kB"
"$PROBE" --name=m --ioengine=null --size=1m --time_based --runtime=6 --mem=mmap:"$WORK/buf" --iodepth=2 --bs=8k > /dev/null & pid=$!
await grep -q "$WORK/buf" /proc/$pid/maps; sz=$(stat -c %s buf); mapped=$(grep -c "$WORK/buf" /proc/$pid/maps); wait $pid
[ "$sz" = 16384 ] && [ "$mapped" = 1 ] && [ ! -e buf ]
ok $? "mem=mmap:FILE: the buffers ($sz bytes) in the file while running, the file removed after (fio's)"
free=$(awk '/HugePages_Free/{print $2}' /proc/meminfo)
"$PROBE" --name=h --ioengine=null --size=1m --mem=mmaphuge --output-format=json > h.json 2> h.err
if [ "${free:-0}" -gt 0 ]; then
	[ "$(J h.json 'j["error"]')" = 0 ]; ok $? "mem=mmaphuge with $free huge pages free"
else
	[ "$(J h.json 'j["error"]')" = 12 ] && grep -q "mmap (huge pages)" h.err
	ok $? "mem=mmaphuge without huge pages: $(tail -1 h.err)"
fi

# fadvise_hint, write_hint, atomic: the calls fio makes on open
if command -v strace > /dev/null; then
	adv() { strace -f -e trace=fadvise64 -o a.st "$@" > /dev/null 2>&1; grep -oE "FADV_(RANDOM|SEQUENTIAL)" a.st | sort -u | tr '\n' ' '; }
	pr=$(adv "$PROBE" --name=a --filename=d.dat --rw=randread --size=64k); fr=$(adv "$FIO" --name=a --filename=d.dat --rw=randread --size=64k)
	ps=$(adv "$PROBE" --name=a --filename=d.dat --rw=read --size=64k); p0=$(adv "$PROBE" --name=a --filename=d.dat --size=64k --fadvise_hint=0)
	pf=$(adv "$PROBE" --name=a --filename=d.dat --size=64k --fadvise_hint=random)
	[ "$pr" = "FADV_RANDOM " ] && [ "$pr" = "$fr" ] && [ "$ps" = "FADV_SEQUENTIAL " ] && [ -z "$p0" ] && [ "$pf" = "FADV_RANDOM " ]
	ok $? "fadvise_hint: 1 (default) by rw as fio ($pr/$ps), 0 none, random forced"
	strace -f -e trace=fcntl -o wh.st "$PROBE" --name=w --filename=d.dat --size=64k --write_hint=short > /dev/null
	grep -qE "fcntl\([0-9]+, (F_SET_RW_HINT|0x40c).*= 0" wh.st
	ok $? "write_hint=short: F_SET_RW_HINT on the file"
	strace -f -e trace=openat -o at.st "$PROBE" --name=a --filename=d.dat --size=64k --atomic=1 > /dev/null
	grep -qE 'd.dat", O_RDONLY(\|O_NONBLOCK)?\|O_DIRECT' at.st
	ok $? "atomic=1 opens O_DIRECT, as fio 3.33 (its O_ATOMIC bit means nothing to Linux)"
else
	skip "fadvise_hint" "strace is not installed"; skip "write_hint" "strace is not installed"
	skip "atomic" "strace is not installed"
fi
"$PROBE" --name=w --filename=d.dat --size=64k --write_hint=short --direct=1 --output-format=json > wd.json 2> /dev/null
"$FIO" --name=w --filename=d.dat --size=64k --write_hint=short --direct=1 --output-format=json > fwd.json 2> /dev/null
[ "$(J wd.json 'j["error"]')" = "$(J fwd.json 'j["error"]')" ]
ok $? "write_hint with direct=1: fio's F_SET_FILE_RW_HINT, the same outcome (error $(J wd.json 'j["error"]'))"

# max_latency: a request over it ends the job with ETIMEDOUT
"$PROBE" --null-latency-ns=20000000 --name=m --ioengine=null --size=1m --max_latency=5ms --output-format=json > ml.json 2> ml.err
"$FIO" --name=m --filename=d.dat --size=1m --max_latency=1 --output-format=json > fml.json 2> /dev/null
[ "$(J ml.json 'j["error"]')" = 110 ] && [ "$(J ml.json 'j["read"]["total_ios"]')" = 1 ] &&
	[ "$(J fml.json 'j["error"]')" = 110 ] && grep -q "fio: latency of .* nsec exceeds specified max (5000000 nsec): m.0.0 read 0 4096" ml.err
ok $? "max_latency=5ms, 20 ms requests: error 110 after one I/O, as fio ($(head -1 ml.err))"
"$PROBE" --null-latency-ns=1000000 --name=m --ioengine=null --size=40k --max_latency=1s --output-format=json > ml2.json
[ "$(J ml2.json 'j["error"]')" = 0 ]
ok $? "max_latency above every request: no error"

# ba (blockalign): random offsets on its multiples, the random map off
"$PROBE" --name=b --filename=d.dat --rw=randread --size=1m --bs=4k --ba=512 --number_ios=200 --write_iolog=b.log > /dev/null 2> b.err
[ "$(awk '$3=="read" && $4 % 512' b.log | wc -l)" = 0 ] && [ "$(awk '$3=="read" && $4 % 4096' b.log | wc -l)" -gt 50 ] &&
	[ "$(awk '$3=="read" && $4 + $5 > 1048576' b.log | wc -l)" = 0 ] && grep -q "blockalign= turns off randommap" b.err
ok $? "ba=512 with bs=4k: offsets on 512, $(awk '$3=="read" && $4 % 4096' b.log | wc -l) of 200 off 4k, as fio's"

# offset_align: offset=N% rounded up to it (else to the block size), as fio
first() { awk '$3=="read"{print $4; exit}' "$1"; }
for a in "" --offset_align=64k; do
	rm -f op.log of.log   # (write_iolog appends, as fio's)
	"$PROBE" --name=o --filename=d.dat --offset=10% --size=64k $a --write_iolog=op.log > /dev/null
	"$FIO" --name=o --filename=d.dat --offset=10% --size=64k $a --write_iolog=of.log > /dev/null
	[ "$(first op.log)" = "$(first of.log)" ] || break
	echo "$(first op.log)" >> offs
done
[ "$(tr '\n' ' ' < offs)" = "106496 131072 " ]
ok $? "offset=10% of 1 MiB: starts at $(tr '\n' ' ' < offs)(bs, offset_align=64k), as fio"

# serialize_overlap: no two overlapping requests in flight at once (trace)
cat > ov.py <<'EOF'
import re, sys
r = [tuple(map(int, m.groups())) for m in (re.search(r'op=write offset=(\d+) length=(\d+) '
     r'start_ns=(\d+) issue_ns=\d+ complete_ns=(\d+)', l) for l in open(sys.argv[1])) if m]
print(sum(1 for i, (o, l, s, c) in enumerate(r) for (o2, l2, s2, c2) in r[i + 1:i + 64]
          if o < o2 + l2 and o2 < o + l and s < c2 and s2 < c))
EOF
for s in 0 1; do
	"$PROBE" --name=s --filename=d.dat --rw=randwrite --ioengine=libaio --iodepth=8 --size=64k --io_size=1600k \
		--norandommap --serialize_overlap=$s --trace=s$s.trace > /dev/null && "$PROBE" --dump-trace s$s.trace > s$s.txt
done
[ "$(python3 ov.py s1.txt)" = 0 ] && [ "$(python3 ov.py s0.txt)" -gt 0 ] && [ "$(grep -c 'op=write' s1.txt)" = 400 ]
ok $? "serialize_overlap=1: 0 overlapping requests in flight together ($(python3 ov.py s0.txt) without)"

# lockfile: exclusive, no two clones' requests at once; readwrite lets readers share
cat > lk.py <<'EOF'
# Each request sleeps 2 ms in the engine's queue, under the lock when there is
# one: another thread's request can then be issued only 2 ms after it at the
# earliest, however the threads are scheduled.  Pairs of two threads issued
# closer: both reads (ro), or at least one write.
import re, sys
r = [(m[1], int(m[2]), int(m[3])) for m in (re.search(r'op=(\w+) .*issue_ns=(\d+) .*thread=(\d+)', l)
     for l in open(sys.argv[1])) if m]
ro = len(sys.argv) > 2
print(sum(1 for a in r for b in r if a[2] != b[2] and a[1] <= b[1] < a[1] + 2000000 and
          (a[0] == b[0] == 'read' if ro else 'write' in (a[0], b[0]))))
EOF
for m in none exclusive readwrite; do
	"$PROBE" --null-latency-ns=2000000 --name=l --ioengine=null --filename=lk --size=160k --numjobs=2 --lockfile=$m --rw=randrw \
		--trace=l$m.trace > /dev/null && "$PROBE" --dump-trace l$m.trace > l$m.txt
done
[ "$(python3 lk.py lexclusive.txt)" = 0 ] && [ "$(python3 lk.py lexclusive.txt ro)" = 0 ] &&
	[ "$(python3 lk.py lnone.txt)" -gt 0 ] && [ "$(python3 lk.py lreadwrite.txt)" = 0 ]
ok $? "lockfile: no write beside another clone's request with exclusive or readwrite ($(python3 lk.py lnone.txt) with none); readers share under readwrite ($(python3 lk.py lreadwrite.txt ro) overlaps, $(python3 lk.py lexclusive.txt ro) with exclusive)"

# thinktime_iotime: a pause after each 300 ms of I/O, not after each I/O
"$PROBE" --name=t --ioengine=null --size=1g --time_based --runtime=2 --thinktime=300ms --thinktime_iotime=300ms --output-format=json > ti.json
"$PROBE" --name=t --ioengine=null --size=1g --time_based --runtime=2 --thinktime=300ms --output-format=json > tn.json
[ "$(J ti.json 'j["read"]["total_ios"]')" -gt 1000 ] && [ "$(J tn.json 'j["read"]["total_ios"]')" -le 10 ]
ok $? "thinktime_iotime=300ms: $(J ti.json 'j["read"]["total_ios"]') I/Os in 2 s ($(J tn.json 'j["read"]["total_ios"]') pausing after each)"

# rate_ignore_thinktime: no catching up after a pause, as fio
ri() { "$1" --name=r --ioengine=null --size=1g --time_based --runtime=3 --rate_iops=100 --thinktime=500ms \
	--thinktime_blocks=50 --rate_ignore_thinktime="$2" --output-format=json > r.json && J r.json 'j["read"]["total_ios"]'; }
p0=$(ri "$PROBE" 0); p1=$(ri "$PROBE" 1); f0=$(ri "$FIO" 0); f1=$(ri "$FIO" 1)
[ $((p1 * 4)) -lt $((p0 * 3)) ] && [ $((f1 * 4)) -lt $((f0 * 3)) ]
ok $? "rate_ignore_thinktime: $p1 I/Os in 3 s ($p0 catching up); fio: $f1 ($f0)"

# allrandrepeat: every generator repeatable, even with randrepeat=0
offs() { rm -f rr.log; "$PROBE" --name=r --filename=d.dat --rw=randread --size=1m --number_ios=50 --randrepeat=0 "$@" \
	--write_iolog=rr.log > /dev/null && awk '$3=="read"{print $4}' rr.log | md5sum; }
[ "$(offs --allrandrepeat=1)" = "$(offs --allrandrepeat=1)" ] && [ "$(offs)" != "$(offs)" ]
ok $? "allrandrepeat=1 with randrepeat=0: the same offsets twice (different without)"

# cgroup: the job's thread in it while running, removed after unless cgroup_nodelete
mnt=$(awk '($3=="cgroup" && $4 ~ /blkio/) || $3=="cgroup2" {print $2; exit}' /proc/mounts)
if [ -n "$mnt" ] && mkdir "$mnt/iogap-t$$" 2> /dev/null && rmdir "$mnt/iogap-t$$"; then
	"$PROBE" --name=c --ioengine=null --size=1m --time_based --runtime=6 --cgroup=iogap-t$$ > /dev/null & pid=$!
	await grep -q . "$mnt/iogap-t$$/tasks" "$mnt/iogap-t$$/cgroup.procs"; in=$(cat "$mnt/iogap-t$$/tasks" "$mnt/iogap-t$$/cgroup.procs" 2> /dev/null | tr '\n' ' '); wait $pid
	[ -n "$in" ] && [ ! -e "$mnt/iogap-t$$" ] && [ -d "/proc/$$" ]
	r=$?
	"$PROBE" --name=c --ioengine=null --size=1m --cgroup=iogap-t$$ --cgroup_nodelete=1 > /dev/null && [ -d "$mnt/iogap-t$$" ] &&
		rmdir "$mnt/iogap-t$$" && [ $r = 0 ]
	ok $? "cgroup=NAME under $mnt: task $in in it while running; removed after, kept with cgroup_nodelete"
else
	skip "cgroup" "no blkio cgroup v1 or cgroup2 mount where a cgroup can be made"
fi

# ioscheduler: set on the disk under the file (here: its current one), read back
dev=$(stat -c %d d.dat); sched=/sys/dev/block/$((dev >> 8)):$((dev & 255))
[ -e "$sched/partition" ] && sched=$sched/..
if [ -w "$sched/queue/scheduler" ] && grep -q '\[' "$sched/queue/scheduler"; then
	cur=$(grep -oE '\[[^]]*\]' "$sched/queue/scheduler" | tr -d '[]')
	"$PROBE" --name=i --filename=d.dat --size=64k --ioscheduler="$cur" --output-format=json > i1.json &&
		"$PROBE" --name=i --filename=d.dat --size=64k --ioscheduler=bogus --output-format=json > i2.json 2> i2.err
	"$FIO" --name=i --filename=d.dat --size=64k --ioscheduler=bogus --output-format=json > i3.json 2> /dev/null
	[ "$(J i1.json 'j["error"]')" = 0 ] && [ "$(J i2.json 'j["error"]')" = 22 ] && [ "$(J i3.json 'j["error"]')" = 22 ] &&
		grep -q "unable to set io scheduler to bogus" i2.err && grep -q "\[$cur\]" "$sched/queue/scheduler"
	ok $? "ioscheduler=$cur set and read back; bogus: error 22 as fio"
else
	skip "ioscheduler" "the disk under $WORK has no writable scheduler"
fi
"$PROBE" --name=i --filename=/dev/shm/iogap-t$$ --size=64k --ioscheduler=none --output-format=json > i4.json 2> i4.err
rm -f /dev/shm/iogap-t$$
[ "$(J i4.json 'j["error"]')" = 22 ] && grep -q "is not a block device nor on one" i4.err
ok $? "ioscheduler on tmpfs refused: $(tail -1 i4.err)"

# allow_mounted_write: the job file's way past the safety refusal
truncate -s 4m fs.img && mkfs.ext4 -q fs.img
! "$PROBE" --name=w --filename=fs.img --rw=write --size=64k > /dev/null 2> aw1.err &&
	"$PROBE" --name=w --filename=fs.img --rw=write --size=64k --allow_mounted_write=1 --output-format=json > aw.json 2> aw2.err &&
	[ "$(J aw.json 'j["write"]["io_bytes"]')" = 65536 ] && grep -q "refusing to write" aw1.err &&
	grep -q "allow_mounted_write=1) although it holds data: ext4" aw2.err
ok $? "an ext4 image: refused, written with allow_mounted_write=1 ($(cut -c1-90 aw2.err))"

# overwrite: a write job's new file is not laid out first unless overwrite=1, as fio
if command -v strace > /dev/null; then
	wr() { rm -f ow.dat; strace -f -e trace=pwrite64,write -o ow.st "$@" > /dev/null 2>&1; grep -cE "^[0-9]+ +p?write(64)?\([0-9]+, .*= (4096|65536)$" ow.st; }
	p0=$(wr "$PROBE" --name=o --filename=ow.dat --rw=write --size=64k)
	f0=$(wr "$FIO" --name=o --filename=ow.dat --rw=write --size=64k)
	p1=$(wr "$PROBE" --name=o --filename=ow.dat --rw=write --size=64k --overwrite=1)
	[ "$p0" = 16 ] && [ "$f0" = 16 ] && [ "$p1" -gt 16 ]
	ok $? "overwrite=0 (default): the job's 16 writes only, as fio ($f0); overwrite=1: laid out first ($p1 writes)"
else
	skip "overwrite" "strace is not installed"
fi

# kb_base, unit_base: fio's sizes (4kib is 4000 bytes unless kb_base=1000) and output units
kb() { "$1" --name=k "${@:2}" --ioengine=null --size=40kib --bs=8 --output-format=json | sed -n '/^{/,$p' > k.json && J k.json 'j["read"]["io_bytes"]'; }
[ "$(kb "$PROBE")" = 40000 ] && [ "$(kb "$FIO")" = 40000 ] && [ "$(kb "$PROBE" --kb_base=1000)" = 40960 ] &&
	[ "$(kb "$FIO" --kb_base=1000)" = 40960 ]
ok $? "size=40kib: 40000 bytes, 40960 with kb_base=1000, as fio"
units() { "$1" --name=k "${@:2}" --ioengine=null --size=4m | grep -E "IOPS=|READ:" | grep -oE "[0-9.]+[kKMGTi]*(bit|B)(/s)?" | tr -d '0-9.' | tr '\n' ' '; }
for a in "--kb_base=1000" "--unit_base=1" "--kb_base=1000 --unit_base=1"; do
	[ "$(units "$PROBE" $a)" = "$(units "$FIO" $a)" ] || break
	echo "$a: $(units "$PROBE" $a)" >> units.txt
done
[ "$(wc -l < units.txt)" = 3 ]
ok $? "kb_base=1000, unit_base=1: fio's units in the normal output ($(tail -1 units.txt))"
printf '[a]\nbs=8k\nkb_base=1000\n' > kb.fio
! "$PROBE" --parse-only kb.fio 2> kb.err && grep -q "kb.fio:3: option 'kb_base'.*give kb_base first" kb.err
ok $? "kb_base after a size it would change: $(cat kb.err)"

# opendir: every regular file below the directory is one of the job's files
mkdir -p od/sub && head -c 64k d.dat > od/a && head -c 64k d.dat > od/sub/b && head -c 32k d.dat > od/c
"$PROBE" --name=o --opendir=od --rw=read --output-format=json > od.json
[ "$(J od.json 'j["read"]["io_bytes"]')" = 163840 ]
ok $? "opendir: the three files below it read ($(J od.json 'j["read"]["io_bytes"]') bytes)"
finish
