#!/bin/bash
# Job options real job files use most, beside fio 3.33 where its behaviour
# is defined on a file: offset modifiers (holes, backwards, fio's quirks
# included), number_ios, offset_increment, trimwrite, randtrimwrite,
# gtod_reduce / disable_*, percentage_random, file_append, unlink,
# continue_on_error, cpumask, clocksource, sizes in zones, sync_file_range,
# buffer_pattern's full syntax, rate, thinktime, exitall/exit_what.
. "$(dirname "$0")/lib.sh"
echo "1..24"
FIO=${FIO:-fio}
cd "$WORK" || exit 1
head -c 64k /dev/urandom > s.dat
offs() { "$PROBE" --dump-trace "$1" | sed -n 's/^record [0-9]*: .* offset=\([0-9]*\) .*/\1/p' | tr '\n' ' '; }
ops() { "$PROBE" --dump-trace "$1" | sed -n 's/^record [0-9]*: .* op=\([a-z]*\) offset=\([0-9]*\) length=\([0-9]*\).*/\1:\2:\3/p'; }
J() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]; print(eval(sys.argv[2]))' "$@"; }

# offset modifiers: the same offsets, in the same order, as fio's write_iolog
while read -r args; do
	# shellcheck disable=SC2086
	"$PROBE" --name=b $args --filename=s.dat --trace=m.tr > /dev/null &&
	"$FIO" --name=b $args --filename=s.dat --write_iolog=m.log > /dev/null 2>&1
	fio_offs=$(awk '$3 == "read" || $3 == "write" {printf "%s ", $4}' m.log)
	[ "$(offs m.tr)" = "$fio_offs" ] && [ -n "$fio_offs" ]
	ok $? "rw with an offset modifier, $args: fio's offsets ($fio_offs)"
	rm -f m.log
done <<'ARGS'
--rw=read:-8k --size=64k --bs=4k
--rw=read:-8k --offset=8k --size=32k --bs=4k
--rw=read:4k --offset=8k --size=32k --bs=4k
--rw=read:8k --size=64k --bs=4k
--rw=read:12k --offset=4k --bs=8k
ARGS

"$PROBE" --output-format=json --name=n --size=64k --filename=s.dat --number_ios=10 > n.json &&
	"$FIO" --output-format=json --name=n --size=64k --filename=s.dat --number_ios=10 > nf.json
[ "$(J n.json 'j["read"]["total_ios"]')" = 10 ] && [ "$(J nf.json 'j["read"]["total_ios"]')" = 10 ]
ok $? "number_ios=10 stops after 10 I/Os, as fio"

"$PROBE" --name=o --ioengine=null --size=64k --offset_increment=1m --numjobs=3 --trace=o.tr > /dev/null
[ "$(offs o.tr | tr ' ' '\n' | grep . | sort -n | uniq | awk '$1 % 1048576 < 65536 {print int($1 / 1048576)}' |
	uniq -c | awk '{printf "%s:%s ", $2, $1}')" = "0:16 1:16 2:16 " ]
ok $? "offset_increment=1m, numjobs=3: clone N works on [N MiB, N MiB + 64k)"

"$PROBE" --output-format=json --name=t --rw=trimwrite --size=32k --filename=t.dat --trace=t.tr > t.json
ops t.tr | awk -F: 'NR % 2 == 1 {t = $2 ":" $3; ok = ok && $1 == "trim"} NR % 2 == 0 {ok = ok && $1 == "write" && $2 ":" $3 == t} BEGIN {ok = 1} END {exit !(ok && NR == 16)}' &&
	[ "$(J t.json '(j["write"]["total_ios"], j["trim"]["total_ios"])')" = "(8, 8)" ]
ok $? "trimwrite: trim a block, then write the same block; size counts the writes (8 + 8)"
"$PROBE" --name=t --rw=randtrimwrite --size=32k --filename=t.dat --trace=rt.tr > /dev/null
ops rt.tr | awk -F: 'NR % 2 == 1 {t = $2 ":" $3; ok = ok && $1 == "trim"; if (NR > 1 && $2 != prev + 4096) rnd = 1; prev = $2}
	NR % 2 == 0 {ok = ok && $1 == "write" && $2 ":" $3 == t} BEGIN {ok = 1} END {exit !(ok && rnd && NR == 16)}'
ok $? "randtrimwrite: random trims, each followed by a write of the same block"

"$PROBE" --output-format=json --name=g --gtod_reduce=1 --size=64k --filename=s.dat > g.json &&
	"$FIO" --output-format=json --name=g --gtod_reduce=1 --size=64k --filename=s.dat > gf.json
q='(j["read"]["total_ios"], j["read"]["clat_ns"]["N"], j["read"]["lat_ns"]["N"], j["read"]["bw_samples"])'
[ "$(J g.json "$q")" = "$(J gf.json "$q")" ] && [ "$(J g.json "$q")" = "(16, 0, 0, 0)" ]
ok $? "gtod_reduce=1: no latency or bandwidth samples, as fio ($(J gf.json "$q"))"
"$PROBE" --output-format=json --name=d --ioengine=libaio --iodepth=4 --disable_slat=1 --disable_lat=1 \
	--size=64k --filename=s.dat > d.json
[ "$(J d.json '(j["read"]["slat_ns"]["N"], j["read"]["lat_ns"]["N"], j["read"]["clat_ns"]["N"])')" = "(0, 0, 16)" ]
ok $? "disable_slat, disable_lat: those two gone, clat kept"

"$PROBE" --name=p --ioengine=null --rw=randread --percentage_random=50 --size=64m --io_size=8m \
	--trace=p.tr > /dev/null && "$PROBE" --name=p --ioengine=null --rw=randread --size=64m --io_size=8m \
	--trace=p100.tr > /dev/null
follow() { offs "$1" | tr ' ' '\n' | awk 'NF && NR > 1 && $1 == prev + 4096 {n++} NF {prev = $1; t++} END {printf "%d", 100 * n / t}'; }
[ "$(follow p.tr)" -ge 40 ] && [ "$(follow p.tr)" -le 60 ] && [ "$(follow p100.tr)" -le 2 ]
ok $? "percentage_random=50: $(follow p.tr)% of I/Os continue the previous one ($(follow p100.tr)% without it)"

head -c 8k /dev/urandom > a.dat && cp a.dat af.dat &&
	"$PROBE" --name=a --rw=write --file_append=1 --size=16k --filename=a.dat > /dev/null &&
	"$FIO" --name=a --rw=write --file_append=1 --size=16k --filename=af.dat > /dev/null &&
	[ "$(stat -c %s a.dat)" = 24576 ] && [ "$(stat -c %s af.dat)" = 24576 ] && cmp -s -n 8192 a.dat af.dat
ok $? "file_append=1: writes after the existing 8k (file now 24k, first 8k untouched), as fio"
"$PROBE" --name=u --rw=write --unlink=1 --size=16k --filename=u.dat > /dev/null && [ ! -e u.dat ]
ok $? "unlink=1: the job's file is gone afterwards"

# continue_on_error=all on RWF_NOWAIT reads of an uncached file (lib.sh)
nowait_eagain c.json "$PROBE" --continue_on_error=all
nowait_eagain cf.json "$FIO" --continue_on_error=all
q='(j["error"], j["total_err"], j["first_error"])'
[ "$(J c.json "$q")" = "$(J cf.json "$q")" ] && [ "$(J c.json "$q")" = "(11, 1, 11)" ] &&
	[ "$(J c.json 'j["read"]["total_ios"]')" -lt 256 ]
ok $? "continue_on_error=all: EAGAIN is not one it survives (fio's EIO/EILSEQ rule): $(J c.json "$q") after $(J c.json 'j["read"]["total_ios"]') reads, fio $(J cf.json "$q")"

"$PROBE" --name=c --ioengine=null --size=1m --cpumask=0x1 --clocksource=cpu > /dev/null &&
	! "$PROBE" --name=c --ioengine=null --size=1m --cpumask=0 2> /dev/null &&
	! "$PROBE" --name=c --ioengine=null --size=1m --clocksource=sundial 2> /dev/null
ok $? "cpumask=0x1 and clocksource=cpu accepted; cpumask=0 and clocksource=sundial refused"

"$PROBE" --name=z --zonemode=zbd --zonesize=1m --rw=write --bs=64k --offset=2z --size=3z \
	--filename=z.dat --trace=z.tr > /dev/null
[ "$(offs z.tr | tr ' ' '\n' | sort -n | sed -n '1p;$p' | tr '\n' ' ')" = "2097152 5177344 " ] &&
	! "$PROBE" --name=z --size=3z --filename=z.dat 2> z.err && grep -q "need zonemode=zbd" z.err
ok $? "offset=2z size=3z with zonesize=1m writes [2 MiB, 5 MiB); zones without zonemode=zbd refused"
# sync_file_range: fio's sync counts (each sync's latency, fsyncs only in total_ios)
q='(j["sync"]["total_ios"], j["sync"]["lat_ns"]["N"])'
for o in --fsync=4 --fdatasync=4 --sync_file_range=write:4; do
	"$PROBE" --output-format=json --name=s --rw=write --size=64k --filename=w.dat $o > sp.json &&
	"$FIO" --output-format=json --name=s --rw=write --size=64k --filename=w.dat $o > sf.json
	printf '%s=%s/%s ' "$o" "$(J sp.json "$q")" "$(J sf.json "$q")"
	[ "$(J sp.json "$q")" = "$(J sf.json "$q")" ] || echo MISMATCH
done > counts.txt
! grep -q MISMATCH counts.txt
ok $? "sync block as fio's: total_ios counts fsyncs only, every sync's latency counted ($(cat counts.txt))"
# buffer_pattern: fio's syntax (hex, "string", decimal, 'file', concatenated);
# the bytes written equal fio's
printf 'from a file' > pat.bin
for pat in "0xdeadface\"abcd\"-12" "0x123'pat.bin'256\"z\"0xff0x14"; do
	rm -f bp.dat bpf.dat
	"$PROBE" --name=p --rw=write --bs=4k --size=8k --filename=bp.dat --buffer_pattern="$pat" > /dev/null &&
		"$FIO" --name=p --rw=write --bs=4k --size=8k --filename=bpf.dat --buffer_pattern="$pat" > /dev/null &&
		cmp -s bp.dat bpf.dat
	ok $? "buffer_pattern=$pat: the file holds fio's bytes ($(od -An -tx1 -N 24 bp.dat | tr -d '\n'))"
done
# rate: a byte rate per direction (the lower bound allows for a slow, shared machine)
"$PROBE" --output-format=json --name=r --ioengine=null --rw=randread --norandommap --size=1g \
	--rate=1m --runtime=2 --time_based > rate.json
b=$(J rate.json 'j["read"]["io_bytes"]')
[ "$b" -ge $((3 << 19)) ] && [ "$b" -le $(( (2 << 20) + 4096 )) ]
ok $? "rate=1m for 2 s: at most 2 MiB (+ the first 4k), at least 1.5 MiB ($b bytes)"
# thinktime: a pause after every 4th I/O, the last included (fio's order);
# the gaps are injected delays: only lower bounds are asserted
"$PROBE" --output-format=json --name=t --ioengine=null --size=64k --thinktime=200ms \
	--thinktime_blocks=4 --trace=tt.tr > tt.json
gaps=$(offs tt.tr > /dev/null; "$PROBE" --dump-trace tt.tr |
	sed -n 's/^record [0-9]*: .* start_ns=\([0-9]*\) .*/\1/p' |
	awk 'NR > 1 && $1 - p >= 200000000 {printf "%d ", NR - 1} {p = $1}')
[ "$gaps" = "4 8 12 " ] && [ "$(J tt.json 'j["read"]["runtime"]')" -ge 800 ]
ok $? "thinktime=200ms, thinktime_blocks=4: pauses after I/Os $gaps and after the 16th (runtime $(J tt.json 'j["read"]["runtime"]') ms)"
# exitall: the short job's end ends the 10 s one of its group (fio does the
# same; its figures are shown, not judged: its start-up varies under load);
# exit_what=all also keeps the next stonewall from starting
ex=(--name=short --exitall --ioengine=null --size=64k --name=long --ioengine=null --size=1m
    --time_based --runtime=10 --name=after --stonewall --ioengine=null --size=64k)
jobs_ios() { python3 -c 'import json,sys
print(" ".join("%s:%d:%d" % (j["jobname"], j["read"]["total_ios"] > 0, j["read"]["runtime"] < 5000)
               for j in json.load(open(sys.argv[1]))["jobs"]))' "$1"; }
"$PROBE" --output-format=json "${ex[@]}" > ex.json && "$FIO" --output-format=json "${ex[@]}" > exf.json
[ "$(jobs_ios ex.json | sed 's/long:[01]/long:x/')" = "short:1:1 long:x:1 after:1:1" ]
ok $? "exitall: the 10 s job of the same group stops when the short one ends; the next stonewall runs ($(jobs_ios ex.json); fio $(jobs_ios exf.json))"
"$PROBE" --output-format=json --exit_what=all "${ex[@]}" > exa.json   # a global: short's too
[ "$(jobs_ios exa.json | cut -d' ' -f3)" = "after:0:1" ]
ok $? "exit_what=all: nothing runs after ($(jobs_ios exa.json))"
finish
