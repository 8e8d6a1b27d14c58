#!/bin/bash
# write_iolog and read_iolog beside fio 3.33: the probe's log equals fio's
# for the same job (timestamps aside), a log replays exactly its requests
# (the probe's --trace shows them), with fio's replay_* options and the
# recorded delays; a blktrace capture replays the requests fio reads from
# it (fio --debug=blktrace lists them); malformed logs stop with file:line.
. "$(dirname "$0")/lib.sh"
echo "1..33"
FIO=${FIO:-fio}
GEN="$(cd "$(dirname "$0")" && pwd)/blktrace_gen.py"
cd "$WORK" || exit 1
head -c 256k /dev/urandom > s.dat
reqs() { "$PROBE" --dump-trace "$1" |
	sed -n 's/^record [0-9]*: .* op=\([a-z]*\) offset=\([0-9]*\) length=\([0-9]*\).*/\1:\2:\3/p' | tr '\n' ' '; }
starts() { "$PROBE" --dump-trace "$1" | sed -n 's/^record [0-9]*: .* start_ns=\([0-9]*\) .*/\1/p'; }
untimed() { cut -d' ' -f2- "$1"; }

# write_iolog: fio's version 3 log, line for line but the microseconds
while read -r args; do
	rm -f p.log f.log
	# shellcheck disable=SC2086
	"$PROBE" --name=w $args --filename=s.dat --write_iolog=p.log > /dev/null &&
		"$FIO" --name=w $args --filename=s.dat --write_iolog=f.log > /dev/null 2>&1
	[ "$(untimed p.log)" = "$(untimed f.log)" ] && [ "$(wc -l < f.log)" -gt 4 ]
	ok $? "write_iolog, $args: fio's lines ($(wc -l < p.log) lines)"
done <<'ARGS'
--rw=write --bs=4k --size=64k --fsync=3
--rw=read:4k --bs=4k --size=64k --loops=2
--rw=write --ioengine=libaio --iodepth=4 --bs=16k --size=128k --direct=1
--rw=read --bs=4k,8k --size=32k --offset=8k --fdatasync=2
ARGS
# several files per job: an "add" line each, "open" at a file's first use,
# "close" when it is done and another opens, at the end, between loops
mkdir -p mf
while read -r args; do
	rm -f p.log f.log mf/*
	# shellcheck disable=SC2086
	"$PROBE" --name=m $args --directory=mf --write_iolog=p.log > /dev/null && rm -f mf/* &&
		"$FIO" --name=m $args --directory=mf --write_iolog=f.log > /dev/null 2>&1
	[ "$(untimed p.log)" = "$(untimed f.log)" ] && [ "$(grep -c ' add$' p.log)" -gt 1 ]
	ok $? "write_iolog, $args: fio's lines ($(wc -l < p.log) lines)"
done <<'ARGS'
--nrfiles=3 --filesize=32k --bs=16k --rw=read --openfiles=1
--nrfiles=2 --filesize=32k --bs=16k --rw=read --loops=2
--nrfiles=4 --filesize=32k --bs=8k --rw=write --file_service_type=sequential
--nrfiles=3 --filesize=48k --bs=16k --rw=read --openfiles=2
--nrfiles=3 --filesize=64k --bs=16k --rw=randread
--nrfiles=2 --filesize=32k --bs=16k --rw=write --fsync=1
--nrfiles=2 --filesize=16k --bs=4k --rw=write --fsync=2 --openfiles=1
--nrfiles=3 --filesize=64k --bs=16k --rw=read --io_size=400k
--nrfiles=4 --filesize=32k --bs=4k --rw=read --file_service_type=random
--nrfiles=4 --filesize=16k --bs=4k --rw=write --file_service_type=random:2 --loops=2
--nrfiles=3 --filesize=32k --bs=4k --rw=read --file_service_type=random --randseed=77
--nrfiles=3 --filesize=64k --bs=16k --rw=randread --openfiles=2
--nrfiles=2 --filesize=32k --bs=4k --rw=randwrite --fsync=5 --openfiles=1
--nrfiles=3 --filesize=64k --bs=16k --rw=randread --file_service_type=random --openfiles=2
ARGS
awk 'NR == 1 {ok = $0 == "fio version 3 iolog"} NR > 1 {ok = ok && $1 ~ /^[0-9]+$/ && $1 + 0 >= prev; prev = $1}
	END {exit !ok}' p.log
ok $? "write_iolog: the version 3 header, then non-decreasing microseconds"

# read_iolog replays fio's own log: the same requests, the syncs as flushes
"$FIO" --name=w --rw=write --bs=4k --size=32k --fsync=3 --filename=s.dat --write_iolog=fw.log > /dev/null
want=$(awk '$3 ~ /^(read|write|trim)$/ {printf "%s:%s:%s ", $3, $4, $5} $3 == "sync" {printf "flush:0:0 "}' fw.log)
"$PROBE" --name=r --read_iolog=fw.log --trace=r.tr > /dev/null
[ "$(reqs r.tr)" = "$want" ]
ok $? "read_iolog of fio's log: its requests in order ($want)"

# version 2, replay_scale and replay_align: offsets / 2, rounded down to 4k
printf 'fio version 2 iolog\ns.dat add\ns.dat open\ns.dat read 16384 4096\ns.dat write 12288 8192\ns.dat trim 90000 4096\ns.dat sync 0 0\ns.dat close\n' > v2.log
"$PROBE" --name=r --read_iolog=v2.log --replay_scale=2 --replay_align=4096 --trace=v2.tr > /dev/null
[ "$(reqs v2.tr)" = "read:8192:4096 write:4096:8192 trim:40960:4096 flush:0:0 " ]
ok $? "version 2 log with replay_scale=2, replay_align=4k: $(reqs v2.tr)"

# version 3 timing: the recorded gaps (300 ms) are kept, less the previous
# sleep's overrun (fio's time_offset: 50 ms allowed for a loaded machine);
# replay_time_scale=200 halves them
printf 'fio version 3 iolog\n100 s.dat add\n200 s.dat open\n1000 s.dat read 0 4096\n301000 s.dat read 4096 4096\n601000 s.dat read 8192 4096\n601100 s.dat close\n' > v3.log
gaps() { starts "$1" | awk -v min="$2" 'NR > 1 {n += ($1 - p >= min)} {p = $1} END {print n + 0}'; }
"$PROBE" --name=r --read_iolog=v3.log --trace=v3.tr > /dev/null &&
	"$PROBE" --name=r --read_iolog=v3.log --replay_time_scale=200 --trace=v3s.tr > /dev/null
[ "$(gaps v3.tr 250000000)" = 2 ] && [ "$(gaps v3s.tr 100000000)" = 2 ] && [ "$(reqs v3.tr)" = "read:0:4096 read:4096:4096 read:8192:4096 " ]
ok $? "version 3: 300 ms between the reads as logged, >= 150 ms at replay_time_scale=200"
# replay_no_stall: a log 60 s long replays at once (a stall would hit the timeout)
printf 'fio version 3 iolog\n1 s.dat add\n2 s.dat open\n10 s.dat read 0 4096\n60000010 s.dat read 4096 4096\n' > long.log
timeout 30 "$PROBE" --name=r --read_iolog=long.log --replay_no_stall=1 --trace=ns.tr > /dev/null &&
	[ "$(reqs ns.tr)" = "read:0:4096 read:4096:4096 " ]
ok $? "replay_no_stall=1: a log spanning 60 s replays without its delay"
# version 2 wait: until N ms after the start
printf 'fio version 2 iolog\ns.dat add\ns.dat open\ns.dat read 0 4096\ns.dat wait 400 0\ns.dat read 4096 4096\n' > w2.log
"$PROBE" --name=r --read_iolog=w2.log --trace=w2.tr > /dev/null
[ "$(gaps w2.tr 300000000)" = 1 ] && [ "$(reqs w2.tr)" = "read:0:4096 read:4096:4096 " ]
ok $? "version 2 'wait 400': the next read waits until 400 ms after the start"
# read_iolog of a log with several files: each request to its file (the
# trace's file= is the index among the log's "add" lines)
rm -f mf/*
"$FIO" --name=m --nrfiles=3 --filesize=32k --bs=8k --rw=randwrite --directory=mf \
	--write_iolog=fm.log > /dev/null 2>&1
want=$(awk 'NR > 1 && $3 == "add" {idx[$2] = n++} $3 == "write" {printf "%d:%s:%s ", idx[$2], $4, $5}' fm.log)
got=$("$PROBE" --name=r --read_iolog=fm.log --replay_no_stall=1 --trace=m.tr > /dev/null &&
	"$PROBE" --dump-trace m.tr | sed -n 's/^record [0-9]*: .* op=write \(file=\([0-9]*\) \)\{0,1\}offset=\([0-9]*\) length=\([0-9]*\).*/\2:\3:\4/p' |
	sed 's/^:/0:/' | tr '\n' ' ')
[ -n "$want" ] && [ "$got" = "$want" ]
ok $? "read_iolog of fio's log of 3 files: each request to its file ($(echo "$got" | wc -w) requests)"

# read_iolog with write_iolog: fio replays and writes no log
"$PROBE" --name=r --read_iolog=v3.log --replay_no_stall=1 --write_iolog=none.log > /dev/null && [ ! -e none.log ]
ok $? "read_iolog with write_iolog: no log written, as fio"

# blktrace: queued requests only (merges, issues, completions, notifies
# with a payload skipped), onto replay_redirect; fio lists what it loads
cat > bt.txt <<'EOF'
0 N 0 0
1000000 Qr 8 4096
1100000 Cr 8 4096
3000000 Qw 16 8192
3000100 Qw 32 4096
3000200 Mw 32 4096
5000000 Qf 0 0
6000000 Qd 64 4096
6500000 Iw 40 4096
EOF
"$GEN" bt.bin < bt.txt && "$GEN" btbig.bin big < bt.txt
fio_bt=$("$FIO" --debug=blktrace --name=r --read_iolog=bt.bin --replay_redirect="$PWD/s.dat" 2>&1 |
	sed -n 's/.*store ddir=\([01]\), off=\([0-9]*\), len=\([0-9]*\),.*/\1:\2:\3/p;
		s/.*store flush.*/flush:0:0/p; s/.*store discard, off=\([0-9]*\), len=\([0-9]*\),.*/trim:\1:\2/p' |
	sed 's/^0:/read:/; s/^1:/write:/' | tr '\n' ' ')
"$PROBE" --name=r --read_iolog=bt.bin --replay_redirect=s.dat --trace=bt.tr > /dev/null
[ "$(reqs bt.tr)" = "$fio_bt" ] && [ "$fio_bt" = "read:4096:4096 write:8192:8192 write:16384:4096 flush:0:0 trim:32768:4096 " ]
ok $? "blktrace replay: fio's requests ($fio_bt)"
"$PROBE" --name=r --read_iolog=btbig.bin --replay_redirect=s.dat --trace=btbig.tr > /dev/null
[ "$(reqs btbig.tr)" = "$fio_bt" ] && [ -n "$fio_bt" ]
ok $? "blktrace in the other byte order: the same requests"
"$PROBE" --name=r --read_iolog=bt.bin --replay_redirect=s.dat --replay_skip=write,trim --trace=sk.tr > /dev/null
[ "$(reqs sk.tr)" = "read:4096:4096 flush:0:0 " ]
ok $? "replay_skip=write,trim: $(reqs sk.tr)"
# the capture's queue depth (3 reads queued before a completion) becomes iodepth
printf '1000 Qr 0 4096\n2000 Qr 8 4096\n3000 Qr 16 4096\n4000 Cr 0 4096\n5000 Cr 8 4096\n' | "$GEN" d.bin
"$PROBE" --name=r --read_iolog=d.bin --replay_redirect=s.dat --ioengine=libaio --trace=d.tr > /dev/null &&
	"$PROBE" --name=r --read_iolog=d.bin --replay_redirect=s.dat --ioengine=libaio --iodepth=2 --trace=d2.tr > /dev/null
[ "$("$PROBE" --dump-trace d.tr | grep -o 'iodepth=[0-9]*' | head -1)" = iodepth=3 ] &&
	[ "$("$PROBE" --dump-trace d2.tr | grep -o 'iodepth=[0-9]*' | head -1)" = iodepth=2 ]
ok $? "blktrace: iodepth is the capture's depth (3) unless the job sets it"
# a device the machine does not have: an error naming it, nothing created
printf '1000 Qr 0 4096 %d\n' $(((250 << 20) | 77)) | "$GEN" nodev.bin
! "$PROBE" --name=r --read_iolog=nodev.bin 2> nodev.err && grep -q "nodev.bin: record 1: no block device here has the trace's number 250:77" nodev.err
ok $? "blktrace of a device not here: $(head -1 nodev.err)"

# malformed logs: file:line (blktrace: record N) and the reason, never a crash
bad=0
while IFS='|' read -r name content want; do
	printf '%b' "$content" > "$name"
	"$PROBE" --name=r --read_iolog="$name" --replay_no_stall=1 > /dev/null 2> bad.err
	rc=$?
	if [ $rc != 1 ] || ! grep -q "$want" bad.err; then
		echo "# $name: exit $rc: $(cat bad.err)"
		bad=1
	fi
done <<'CASES'
hdr.log|hello\n|hdr.log:1: not a fio iolog
act.log|fio version 2 iolog\nf add\nf open\nf frobnicate 0 4096\n|act.log:4: bad action: frobnicate
fields.log|fio version 3 iolog\n1 f add\n2 f read 0\n|fields.log:3: expected
num.log|fio version 2 iolog\nf add\nf read 0x10 4096\n|num.log:3: bad offset or length
noadd.log|fio version 2 iolog\nf add\ng read 0 4096\n|noadd.log:3: the log did not add this file: g
wait3.log|fio version 3 iolog\n1 f add\n2 f wait 100 0\n|wait3.log:3: 'wait' is not allowed
zero.log|fio version 2 iolog\nf add\nf read 0 0\n|zero.log:3: an I/O of length 0
big.log|fio version 2 iolog\nf add\nf read 18446744073709551615 4096\n|big.log:3: bad offset or length
empty.log||empty.log: empty log
CASES
[ $bad = 0 ]
ok $? "malformed text logs: file:line and the reason, exit status 1"
head -c 70 bt.bin > trunc.bin
cp bt.bin btver.bin
printf '\x06' | dd of=btver.bin bs=1 seek=55 count=1 conv=notrunc status=none
! "$PROBE" --name=r --read_iolog=trunc.bin --replay_redirect=s.dat 2> t.err && grep -q "trunc.bin: record 2: truncated record" t.err &&
	! "$PROBE" --name=r --read_iolog=btver.bin --replay_redirect=s.dat 2> v.err && grep -q "btver.bin: record 2: bad blktrace version" v.err
ok $? "malformed blktrace: $(head -1 t.err); $(head -1 v.err)"
finish
