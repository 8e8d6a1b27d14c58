#!/bin/bash
# fio 3.33's ignore_error/error_dump, fill_device, dedupe and compression of
# written buffers, prio/prioclass and cmdprio (per-priority latencies), and
# numa_cpu_nodes/numa_mem_policy: short jobs, checked for their effect and
# against fio where fio runs the same job here.
. "$(dirname "$0")/lib.sh"
echo "1..17"
FIO=${FIO:-fio}
cd "$WORK" || exit 1
J() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][int(sys.argv[3]) if len(sys.argv) > 3 else 0]; print(eval(sys.argv[2]))' "$@"; }

# ignore_error: writes past RLIMIT_FSIZE fail with EFBIG (SIGXFSZ ignored);
# listed for writes, they are counted and the job writes on to its end
efbig() {
	rm -f "$2" && truncate -s 2m "$2" &&
		(trap '' XFSZ; ulimit -f 1024; "$1" --name=e --rw=write --bs=4k --size=2m --filename="$2" \
			--output-format=json "${@:3}" 2> "$2.err" | sed -n '/^{/,$p' > "$2.json")
}
q='(j["error"], j["total_err"], j["first_error"], j["write"]["total_ios"])'
efbig "$PROBE" i.dat --ignore_error=,EFBIG && efbig "$FIO" if.dat --ignore_error=,EFBIG
[ "$(J i.dat.json "$q")" = "(27, 256, 27, 512)" ] && [ "$(J i.dat.json "$q")" = "$(J if.dat.json "$q")" ] &&
	[ ! -s i.dat.err ]
ok $? "ignore_error=,EFBIG: 256 writes fail, counted, the job goes to its end (fio's error: the first one): $(J i.dat.json "$q"), fio $(J if.dat.json "$q")"
efbig "$PROBE" n.dat --ignore_error=,27:ENOSPC --error_dump=1 && efbig "$PROBE" s.dat
[ "$(J n.dat.json "$q")" = "(27, 256, 27, 512)" ] && [ "$(grep -c 'fio: io_u error on file n.dat: File too large: write offset=' n.dat.err)" = 256 ] &&
	[ "$(J s.dat.json 'j["error"]')" = 27 ] && [ "$(J s.dat.json 'j["write"]["total_ios"]')" -le 260 ] &&
	grep -q 'fio: io_u error on file s.dat: File too large: write offset=1048576, buflen=4096' s.dat.err
ok $? "ignore_error by number with error_dump=1: each error printed; without ignore_error the first EFBIG ends the job (error $(J s.dat.json 'j["error"]'))"
printf '[e]\nignore_error=,EFROB\n' > bad1.fio && printf '[e]\nignore_error=1,2,3,4\n' > bad2.fio
! "$PROBE" --parse-only bad1.fio 2> e1 && grep -q "bad1.fio:2: option 'ignore_error': bad value ',EFROB' (unknown error EFROB" e1 &&
	! "$PROBE" --parse-only bad2.fio 2> e2 && grep -q "bad2.fio:2: option 'ignore_error'" e2
ok $? "ignore_error with an unknown name or a fourth class: file:line errors ($(cat e1))"

# fill_device: write until ENOSPC on an 8 MiB tmpfs, then stop without error
if [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null; then
	mkdir -p mnt
	unshare -m sh -c 'mount -t tmpfs -o size=8M none mnt && "$1" --name=f --rw=write --bs=64k \
		--fill_device=1 --filename=mnt/full --output-format=json > f.json 2> f.err;
		stat -c %s mnt/full > f.size; df -B1 --output=avail mnt | tail -1 > f.avail' sh "$PROBE"
	sz=$(cat f.size)
	[ "$(J f.json 'j["error"]')" = 0 ] && [ "$sz" -ge $((7 * 1048576)) ] && [ "$sz" -le $((8 * 1048576)) ] &&
		[ "$(J f.json 'j["write"]["io_bytes"]')" = "$sz" ] && [ "$(tr -d ' ' < f.avail)" -lt 65536 ]
	ok $? "fill_device=1 on an 8M tmpfs: wrote $sz bytes, the filesystem full ($(tr -d ' ' < f.avail) left), no error"
else
	skip "fill_device=1 on an 8M tmpfs" "it needs root and unshare -m"
fi

# dedupe_percentage: that share of the written blocks repeats another
blocks() { python3 -c '
import hashlib, sys
d = open(sys.argv[1], "rb").read(); n = len(d) // 4096
u = {hashlib.sha1(d[i*4096:(i+1)*4096]).digest() for i in range(n)}
print(round(100 * (n - len(u)) / n))' "$1"; }
dd_job=(--rw=write --bs=4k --size=4m --ioengine=psync)
"$PROBE" --name=d --filename=d.dat --dedupe_percentage=50 "${dd_job[@]}" > /dev/null &&
	"$FIO" --name=d --filename=df.dat --dedupe_percentage=50 "${dd_job[@]}" > /dev/null &&
	"$PROBE" --name=d --filename=d0.dat --dedupe_percentage=0 --refill_buffers "${dd_job[@]}" > /dev/null &&
	"$PROBE" --name=d --filename=dw.dat --dedupe_percentage=30 --dedupe_mode=working_set \
		--dedupe_working_set_percentage=10 "${dd_job[@]}" > /dev/null
[ "$(blocks d.dat)" -ge 40 ] && [ "$(blocks d.dat)" -le 60 ] && [ "$(blocks d0.dat)" = 0 ] &&
	[ "$(blocks dw.dat)" -ge 20 ] && [ "$(blocks dw.dat)" -le 40 ]
ok $? "dedupe_percentage=50: $(blocks d.dat)% of 4k blocks duplicate (fio $(blocks df.dat)%); working_set 30%: $(blocks dw.dat)%; none with 0 and refill_buffers: $(blocks d0.dat)%"

# dedupe_global: the jobs' working sets share pages, so the files share blocks
cross() { python3 -c '
import hashlib, sys
h = lambda f: {hashlib.sha1(open(f, "rb").read()[i*4096:(i+1)*4096]).digest() for i in range(256)}
print(len(h(sys.argv[1]) & h(sys.argv[2])))' "$1" "$2"; }
gl() { "$PROBE" --rw=write --bs=4k --size=1m --dedupe_mode=working_set --dedupe_percentage=50 \
	--dedupe_working_set_percentage=50 --dedupe_global="$1" --name=a --filename="a$1.dat" --name=b --filename="b$1.dat" > /dev/null; }
gl 1 && gl 0 && [ "$(cross a1.dat b1.dat)" -gt 10 ] && [ "$(cross a0.dat b0.dat)" = 0 ]
ok $? "dedupe_global=1: two jobs write $(cross a1.dat b1.dat) identical blocks ($(cross a0.dat b0.dat) without)"
printf '[d]\ndedupe_percentage=60\ndedupe_mode=working_set\ndedupe_working_set_percentage=50\nsize=1m\n' > bad3.fio
printf '[d]\ndedupe_mode=pairs\n' > bad4.fio
! "$PROBE" --parse-only bad3.fio 2> e3 && grep -q "bad3.fio:1: job 'd': impossible to reach expected dedupe percentage 60" e3 &&
	! "$PROBE" --parse-only bad4.fio 2> e4 && grep -q "bad4.fio:2: option 'dedupe_mode': bad value 'pairs' (expected repeat or working_set)" e4
ok $? "dedupe checks: fio's working set rule ($(cut -c1-90 e3)), a bad dedupe_mode: file:line"

# buffer_compress_percentage=50: each 512-byte chunk is half random, half zeros
"$PROBE" --name=c --filename=c.dat --buffer_compress_percentage=50 "${dd_job[@]}" > /dev/null &&
	"$FIO" --name=c --filename=cf.dat --buffer_compress_percentage=50 "${dd_job[@]}" > /dev/null
halves() { python3 -c '
import sys
d = open(sys.argv[1], "rb").read(); n = len(d) // 512
z = sum(1 for i in range(n) if d[i*512+256:(i+1)*512] == bytes(256) and d[i*512:i*512+256].count(0) < 128)
print(z, n)' "$1"; }
[ "$(halves c.dat)" = "8192 8192" ] && [ "$(halves c.dat)" = "$(halves cf.dat)" ]
ok $? "buffer_compress_percentage=50: $(halves c.dat) chunks random then zeros, as fio ($(halves cf.dat))"
"$PROBE" --name=c --filename=c2.dat --buffer_compress_percentage=75 --buffer_compress_chunk=1k "${dd_job[@]}" > /dev/null
zero_share() { python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); print(round(100 * d.count(0) / len(d)))' "$1"; }
[ "$(zero_share c2.dat)" -ge 74 ] && [ "$(zero_share c2.dat)" -le 77 ]
ok $? "buffer_compress_percentage=75 with 1k chunks: $(zero_share c2.dat)% zero bytes"

# cmdprio_percentage: latencies per priority, with fio's JSON keys
head -c 4m /dev/urandom > pr.dat && cp pr.dat prf.dat
prio_job=(--name=p --rw=randrw --bs=4k --size=4m --ioengine=libaio --iodepth=4 --prioclass=3
	  --cmdprio_percentage=30 --cmdprio_class=1 --number_ios=600 --output-format=json)
"$PROBE" "${prio_job[@]}" --filename=pr.dat > p.json && "$FIO" "${prio_job[@]}" --filename=prf.dat > pf.json
keys='sorted((d, x["prioclass"], x["prio"], tuple(sorted(x)), tuple(sorted(x["clat_ns"]))) for d in ("read", "write") for x in j[d]["prios"])'
share='round(100 * j["read"]["prios"][1]["clat_ns"]["N"] / j["read"]["clat_ns"]["N"])'
[ "$(J p.json "$keys")" = "$(J pf.json "$keys")" ] && [ "$(J p.json "$share")" -ge 20 ] && [ "$(J p.json "$share")" -le 40 ] &&
	[ "$(J p.json 'sum(x["clat_ns"]["N"] for x in j["write"]["prios"]) == j["write"]["clat_ns"]["N"]')" = True ]
ok $? "cmdprio_percentage=30: read/write \"prios\" entries 3/0 and 1/0 with fio's keys; $(J p.json "$share")% of reads at 1/0 (fio $(J pf.json "$share")%)"
"$PROBE" "${prio_job[@]/--output-format=json/--output-format=normal}" --filename=pr.dat > p.txt
[ "$(grep -cE '^    clat prio (3|1)/0 \((n|u|m)sec\): min=' p.txt)" = 4 ] &&
	[ "$(grep -cE '^    clat prio 1/0 \([0-9.]+% of IOs\) percentiles' p.txt)" = 2 ]
ok $? "normal output: fio's \"clat prio 3/0\" lines and per-priority percentiles"

# log_prio=1: each latency log line ends with the request's priority
mkdir -p lp lpf
(cd lp && "$PROBE" "${prio_job[@]}" --filename=../pr.dat --write_lat_log=l --log_prio=1 > /dev/null) &&
	(cd lpf && "$FIO" "${prio_job[@]}" --filename=../prf.dat --write_lat_log=l --log_prio=1 > /dev/null)
prios() { awk -F', ' '{print $NF}' "$1" | sort -u | tr '\n' ' '; }
[ "$(prios lp/l_clat.1.log)" = "0x2000 0x6000 " ] && [ "$(prios lp/l_clat.1.log)" = "$(prios lpf/l_clat.1.log)" ]
ok $? "log_prio=1: clat log priorities $(prios lp/l_clat.1.log)as fio's ($(prios lpf/l_clat.1.log))"

# cmdprio_bssplit: 64k reads 25% at 1/1, 75% at 3/2; the rest at the job's 2/7
bs_job=(--name=b --filename=pr.dat --rw=randread --ioengine=libaio --iodepth=4 --size=4m --number_ios=400
	--bssplit=64k/40:4k/60 --cmdprio_bssplit=64k/25/1/1:64k/75/3/2:4k/0 --prioclass=2 --prio=7 --output-format=json)
"$PROBE" "${bs_job[@]}" > b.json && "$FIO" "${bs_job[@]/pr.dat/prf.dat}" > bf.json
bk='sorted((x["prioclass"], x["prio"]) for x in j["read"]["prios"])'
[ "$(J b.json "$bk")" = "[(1, 1), (2, 7), (3, 2)]" ] && [ "$(J b.json "$bk")" = "$(J bf.json "$bk")" ]
ok $? "cmdprio_bssplit with per-entry class/level and a job priority: prios $(J b.json "$bk"), as fio"

# prioclass/prio: ioprio_set on the job's thread (ionice shows it)
if command -v ionice > /dev/null; then
	"$PROBE" --name=i --ioengine=null --size=1g --time_based --runtime=3 --prioclass=2 --prio=5 > /dev/null &
	pid=$!; sleep 1.5
	seen=$(for t in /proc/$pid/task/*; do ionice -p "${t##*/}" 2> /dev/null; done | sort -u | tr '\n' ' ')
	wait $pid
	[[ "$seen" == *"best-effort: prio 5"* ]]
	ok $? "prioclass=2 prio=5: a thread of the job runs at best-effort 5 (ionice: $seen)"
else
	skip "prioclass=2 prio=5" "ionice (util-linux) is missing"
fi
printf '[p]\nioengine=psync\ncmdprio_percentage=10\n' > bad5.fio
printf '[p]\nioengine=libaio\ncmdprio_percentage=10\ncmdprio_bssplit=4k/10\n' > bad6.fio
printf '[p]\nprioclass=4\n' > bad7.fio
! "$PROBE" --parse-only bad5.fio 2> e5 && grep -q "bad5.fio:1: job 'p': cmdprio_percentage, cmdprio_class, cmdprio and cmdprio_bssplit are options of ioengine=libaio and io_uring, not of psync" e5 &&
	! "$PROBE" --parse-only bad6.fio 2> e6 && grep -q "mutually exclusive" e6 &&
	! "$PROBE" --parse-only bad7.fio 2> e7 && grep -q "bad7.fio:2: option 'prioclass': bad value '4'" e7
ok $? "cmdprio on psync, cmdprio_percentage with cmdprio_bssplit, prioclass=4: refused ($(cat e7))"

# numa_cpu_nodes / numa_mem_policy: the node's CPUs, a policy the kernel took
node0=$(cat /sys/devices/system/node/node0/cpulist 2> /dev/null)
if [ -n "$node0" ]; then
	"$PROBE" --name=n --ioengine=null --size=1g --time_based --runtime=3 --numa_cpu_nodes=0 \
		--numa_mem_policy=bind:0 > /dev/null 2> n.err &
	pid=$!; sleep 1.5
	aff=$(sed -n 's/^Cpus_allowed_list:\t//p' /proc/$pid/task/*/status 2> /dev/null | sort -u | tr '\n' ' ')
	pol=$(cat /proc/$pid/task/*/numa_maps 2> /dev/null | grep -c ' bind:0 ')
	wait $pid; rc=$?
	[ $rc = 0 ] && [[ " $aff" == *" $node0 "* ]] && [ "$pol" -gt 0 ]
	ok $? "numa_cpu_nodes=0 numa_mem_policy=bind:0: a thread on node 0's CPUs ($node0; seen: $aff), $pol mappings bound to node 0"
	if [ ! -e /sys/devices/system/node/node7 ]; then
		! "$PROBE" --name=n --ioengine=null --size=1m --numa_cpu_nodes=7 > /dev/null 2> n7.err &&
			grep -q "numa_cpu_nodes: node 7 does not exist" n7.err &&
			! "$PROBE" --parse-only --name=n --numa_mem_policy=prefer:0-1 2> np.err && grep -q "one node only for 'prefer'" np.err
		ok $? "a node that does not exist, prefer with two nodes: refused ($(head -c 120 n7.err))"
	else
		skip "a node that does not exist: refused" "node 7 exists here"
	fi
else
	skip "numa_cpu_nodes=0 numa_mem_policy=bind:0" "no /sys/devices/system/node"
	skip "a node that does not exist: refused" "no /sys/devices/system/node"
fi
finish
