#!/bin/bash
# iogap report when the clock cannot tell the crossing stages apart: a
# synthetic run (mkrun) whose ping-pong rounds are 3 ms long and whose guest
# clock jumps 2 ms between the two sync sets (so the request bounds cross and
# the clock's error is the ping-pong's, ~1.5 ms): G->Q and Q->G are printed
# as no number, only their sum (the offset cancels in it: it equals the
# tight run's sum); a run with a tight clock prints both.
. "$(dirname "$0")/lib.sh"

"$MKRUN" --dir "$WORK/tight" --vm 100000 --bare-seconds 1 --bare-iops 20000 > /dev/null 2>&1
cp -a "$WORK/tight" "$WORK/wide"
python3 - "$WORK/wide/vm" <<'PY'
import sys
for name, jump in (("sync-before.txt", 0), ("sync-after.txt", 2000000)):
    p = sys.argv[1] + "/" + name
    out = []
    for line in open(p):
        if line.startswith("#"):
            out.append(line)
            continue
        send, guest, recv = map(int, line.split())
        out.append(f"{send - 1500000} {guest + jump} {recv + 1500000}\n")
    open(p, "w").writelines(out)
PY
for r in tight wide; do
	"$IOGAP" report --full "$WORK/$r" > "$WORK/$r.txt" 2> "$WORK/$r.err"
	ok $? "iogap report $r: $(head -1 "$WORK/$r.err")"
done
# the read direction's section: its stage rows, share, gap rows, verdict
section() { sed -n '/read ==$/,/^verdict/p' "$WORK/$1.txt"; }
across() { section "$1" | sed -n 's/^  across  *\([0-9.]*\)  *mean of G->Q + Q->G together.*/\1/p'; }
sum_of() { section "$1" | awk '$1 == "G->Q" || $1 == "Q->G" { s += $4 } END { printf "%.2f", s }'; }

grep -q "^clock: .*INCONSISTENT" "$WORK/wide.txt" &&
	[ "$(section wide | grep -c '^  \(G->Q\|Q->G\)  .*not a number: it crosses the clocks')" = 2 ]
ok $? "wide clock: G->Q and Q->G rows are no number: $(section wide | grep -m1 'G->Q')"
a=$(across wide)
t=$(sum_of tight)
python3 -c "import sys; sys.exit(0 if abs($a - $t) <= 0.05 * $t else 1)" 2> /dev/null
ok $? "wide clock: the 'across' row is their sum, as in the tight run: $a vs $t us"
! section wide | grep -Eq '^  (G->Q|Q->G) +[0-9.]+%' && section wide | grep -q '^  across .*%' &&
	section wide | grep -q '^  across the clocks  *+[0-9.]* us'
ok $? "wide clock: share and gap rows give the sum alone"
section wide | grep '^verdict' | grep -q "G->Q + Q->G are told only together" &&
	! section wide | grep '^verdict' | grep -q "largest is G->Q\|largest is Q->G"
ok $? "wide clock: the verdict names neither alone, says they are told together"
[ "$(section tight | grep -Ec '^  (G->Q|Q->G) +[0-9]+ +[0-9.]+ ')" = 2 ] && [ -z "$(across tight)" ]
ok $? "tight clock: both rows with numbers, no 'across' row"
finish
