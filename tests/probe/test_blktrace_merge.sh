#!/bin/bash
# blktrace merging (fio's merge_blktrace_file, merge_blktrace_scalars,
# merge_blktrace_iters, --merge-blktrace-only): read_iolog=a.bin:b.bin is
# merged into one capture, the queued I/O earliest first, times scaled and
# passes repeated as fio's blktrace.c does, then replayed as fio replays
# it.  fio 3.33's own merge is broken (its reader stops at "iolog short
# read" with an empty file, fixed upstream in c55d29ef): the merged records
# are checked against the ones fio's merge writes, worked out here by
# hand, and byte for byte against fio's file when the installed fio merges.
. "$(dirname "$0")/lib.sh"
FIO=${FIO:-fio}
command -v "$FIO" > /dev/null || skip_all "fio is not installed"
command -v python3 > /dev/null || skip_all "python3 is not installed"
echo "1..11"
GEN="$(cd "$(dirname "$0")" && pwd)/blktrace_gen.py"
cd "$WORK" || exit 1
head -c 256k /dev/urandom > s.dat

# records FILE: "TIME SECTOR WHAT+DIR PDU_LEN" per 48-byte record (native order)
records() {
	python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read()
if len(d) % 48:
    print("odd size", len(d))
for i in range(0, len(d) - len(d) % 48, 48):
    _, _, t, sec, _, act, _, _, _, _, pdu = struct.unpack("=IIQQIIIIIHH", d[i:i + 48])
    cat = act >> 16
    rw = "r" if cat & 1 else "w" if cat & 2 else "d" if cat & (1 << 13) else "?"
    what = act & 0xffff
    print(t, sec, ("?QMFxxxIC"[what] if what < 9 else "?") + rw, pdu)
' "$1" | tr '\n' ','
}
# merge NAME OPTIONS...: the probe merges a.bin:b.bin into NAME.bin only
merge() {
	local name=$1
	shift
	"$PROBE" --merge-blktrace-only --name=m --read_iolog=a.bin:b.bin \
		--merge_blktrace_file="$name.bin" "$@" > "$name.out" 2> "$name.err"
}

# a: a read at 1000 ns and a write at 5000, each completed; b: a read at
# 2000, a notify with a payload, a discard at 3000 and its completion
printf '%s\n' "1000 Qr 0 4096" "1500 Cr 0 4096" "5000 Qw 8 4096" "6000 Cw 8 4096" | "$GEN" a.bin
printf '%s\n' "2000 Qr 100 8192" "2500 N 0 0" "3000 Qd 200 4096" "3500 Cd 200 4096" > b.txt
"$GEN" b.bin < b.txt && "$GEN" bbig.bin big < b.txt

merge plain && [ ! -s plain.out ]
ok $? "--merge-blktrace-only: merged, no job run, nothing printed $(head -c 200 plain.err)"
want="1000 0 Qr 0,2000 100 Qr 0,3000 200 Qd 0,5000 8 Qw 0,"
[ "$(records plain.bin)" = "$want" ]
ok $? "the queued I/O of both, earliest first, without payloads: $(records plain.bin)"

# fio: byte for byte where it merges; 3.33 reports its short read and leaves the file empty
rm -f fio.bin
"$FIO" --merge-blktrace-only --name=m --read_iolog=a.bin:b.bin --merge_blktrace_file=fio.bin \
	> fio.out 2>&1
fio_rc=$?
if [ -s fio.bin ]; then
	cmp fio.bin plain.bin
	ok $? "fio's merged file is the probe's, byte for byte ($(stat -c %s fio.bin) bytes)"
else
	[ $fio_rc = 0 ] && [ -e fio.bin ] && grep -q "iolog short read" fio.out
	ok $? "$("$FIO" --version) cannot merge (iolog short read, an empty file): $(head -c 100 fio.out | tr '\n' ' ')"
fi

# scalars: b's times halved; the tie at 1000 goes to a, listed first
merge scaled --merge_blktrace_scalars=100:50 &&
	[ "$(records scaled.bin)" = "1000 0 Qr 0,1000 100 Qr 0,1500 200 Qd 0,5000 8 Qw 0," ]
ok $? "merge_blktrace_scalars=100:50: $(records scaled.bin) $(head -c 200 scaled.err)"

# iterations: a twice, its second pass moved by its first's last time (its
# completion at 6000), which fio writes once more between the passes
merge iters --merge_blktrace_iters=2:1 &&
	[ "$(records iters.bin)" = "1000 0 Qr 0,2000 100 Qr 0,3000 200 Qd 0,5000 8 Qw 0,6000 8 Cw 0,7000 0 Qr 0,11000 8 Qw 0," ]
ok $? "merge_blktrace_iters=2:1: $(records iters.bin) $(head -c 200 iters.err)"

# a capture in the other byte order merges to the same file
"$PROBE" --merge-blktrace-only --name=m --read_iolog=a.bin:bbig.bin --merge_blktrace_file=big.bin \
	> /dev/null 2> big.err && cmp -s big.bin plain.bin
ok $? "a big-endian capture: the same merged file $(head -c 200 big.err)"

# the job replays the merged file: fio's requests from it (fio --debug=blktrace)
fio_bt=$("$FIO" --debug=blktrace --name=r --read_iolog=iters.bin --replay_redirect="$PWD/s.dat" \
	--ioengine=null 2>&1 |
	sed -n 's/.*store ddir=\([01]\), off=\([0-9]*\), len=\([0-9]*\),.*/\1:\2:\3/p;
		s/.*store discard, off=\([0-9]*\), len=\([0-9]*\),.*/trim:\1:\2/p' |
	sed 's/^0:/read:/; s/^1:/write:/' | tr '\n' ' ')
"$PROBE" --name=r --read_iolog=a.bin:b.bin --merge_blktrace_file=job.bin \
	--merge_blktrace_iters=2:1 --replay_redirect=s.dat --ioengine=null --trace=r.tr > r.out 2> r.err
reqs=$("$PROBE" --dump-trace r.tr |
	sed -n 's/^record [0-9]*: .* op=\([a-z]*\) offset=\([0-9]*\) length=\([0-9]*\).*/\1:\2:\3/p' | tr '\n' ' ')
[ "$reqs" = "$fio_bt" ] && [ "$fio_bt" = "read:0:4096 read:51200:8192 trim:102400:4096 write:4096:4096 read:0:4096 write:4096:4096 " ] &&
	cmp -s job.bin iters.bin
ok $? "the job replays its merged file as fio replays it: $reqs $(head -c 200 r.err)"

# --parse-only merges nothing, as fio
rm -f none.bin
"$PROBE" --parse-only --name=m --read_iolog=a.bin:b.bin --merge_blktrace_file=none.bin 2> p.err &&
	[ ! -e none.bin ]
ok $? "--parse-only: checked, nothing merged $(head -c 200 p.err)"

# refused with the reason: a value per capture, captures only, a list needs the merge
printf '[m]\nread_iolog=a.bin:b.bin\nmerge_blktrace_file=x.bin\nmerge_blktrace_scalars=50\n' > n.fio
! "$PROBE" --parse-only n.fio 2> n.err && grep -q "n.fio:[0-9]*: .*merge_blktrace_scalars(1) != nr_logs(2)" n.err
ok $? "one scalar for two captures: $(head -c 200 n.err)"
printf 'not a capture, but long enough to be read as a first record of one\n' > t.log
! "$PROBE" --merge-blktrace-only --name=m --read_iolog=a.bin:t.log --merge_blktrace_file=t.bin 2> t.err &&
	grep -q "t.log: not a blktrace capture" t.err && [ ! -e t.bin ] &&
	! "$PROBE" --merge-blktrace-only --name=m --read_iolog=a.bin:b.bin --merge_blktrace_file=b.bin 2> o.err &&
	grep -q "is one of the captures" o.err && "$GEN" b2.bin < b.txt && cmp -s b.bin b2.bin
ok $? "not a capture, or the output one of them: refused, nothing left ($(head -c 100 t.err); $(head -c 100 o.err))"
printf '[m]\nread_iolog=a.bin:b.bin\n' > l.fio
! "$PROBE" --parse-only l.fio 2> l.err && grep -q "l.fio:[0-9]*: option 'read_iolog'" l.err
ok $? "a list of logs without merge_blktrace_file: refused ($(head -c 200 l.err))"
finish
