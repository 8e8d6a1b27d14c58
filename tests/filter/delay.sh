#!/bin/sh
# delay-ns=D (test only): a node sleeps D ns before it records entry and
# forwards the request, so with the delay on the bottom filter every request
# spends at least D between its top entry and its bottom entry (Q.fmt), and
# the bottom record itself (the backend) does not include it.
. "$(dirname "$0")/lib.sh"
require_filter
plan 6

D=1000000
rt=$work/top.ring
rb=$work/bottom.ring
node=$(j_filter top "$rt" "$(j_raw "$(j_filter bottom "$rb" "$(j_null 8388608)" "\"delay-ns\":$D")")")
set --
i=0
while [ $i -lt 8 ]; do
	set -- "$@" -c "write -q -P 5 $((i * 65536)) 4096" -c "read -q $((i * 65536 + 32768)) 4096"
	i=$((i + 1))
done
qio "$@" "json:$node" >"$work/out" 2>&1
ok $? "qemu-io through top filter -> raw -> bottom filter (delay-ns=$D) -> null-co" "$work/out"
check "bottom ring sane" sane "$rb"
# top_bottom TOP-RING BOTTOM-RING: "op offset length top_entry top_exit op
# offset length bottom_entry bottom_exit" per request
top_bottom() {
	"$dump" "$1" | awk 'NR > 1 && ($1 == "read" || $1 == "write") { print $1, $2, $3, $4, $5 }' | sort >"$work/t"
	"$dump" "$2" | awk 'NR > 1 && ($1 == "read" || $1 == "write") { print $1, $2, $3, $4, $5 }' | sort >"$work/b"
	paste -d' ' "$work/t" "$work/b"
}
top_bottom "$rt" "$rb" | awk -v D=$D '
	{ n++; q = $9 - $4; if (q < D) { print "top->bottom " q " ns < " D ": " $0; bad = 1 }
	  s += q - D; if ($10 - $9 >= D) { print "delay inside the bottom record: " $0; bad = 1 } }
	END { if (n != 16) { print n " pairs, expected 16"; bad = 1 }
	      if (n) printf "# mean top->bottom overshoot over %d ns: %.1f us\n", D, s / n / 1000
	      exit bad }' >"$work/why"
st=$?
grep '^#' "$work/why"
ok $st "each of 16 requests: top entry -> bottom entry >= $D ns, backend record < $D ns" "$work/why"
# without delay-ns nothing waits: the same 16 requests pass from top to bottom
# in far less than D (the median, so one preempted request on a loaded host
# does not decide; with delay-ns every request took >= D above)
node=$(j_filter top "$rt.0" "$(j_raw "$(j_filter bottom "$rb.0" "$(j_null 8388608)")")")
qio "$@" "json:$node" >"$work/out" 2>&1
ok $? "qemu-io without delay-ns" "$work/out"
top_bottom "$rt.0" "$rb.0" | awk '{ print $9 - $4 }' | sort -n | awk -v D=$D '
	{ q[++n] = $1 }
	END { m = q[int((n + 1) / 2)]
	      printf "# without delay-ns: %d requests, median top->bottom %d ns, max %d ns\n", n, m, q[n]
	      exit !(n == 16 && m < D / 2) }' >"$work/why"
st=$?
grep '^#' "$work/why"
ok $st "without delay-ns: median top entry -> bottom entry < $((D / 2)) ns over the same 16 requests" "$work/why"
node=$(j_filter bottom "$rb.bad" "$(j_null 8388608)" '"delay-ns":20000000000')
qio -c "read -q 0 4096" "json:$node" >"$work/out" 2>&1
[ $? != 0 ] && grep -q 'delay-ns must be at most' "$work/out"
ok $? "delay-ns above 10 s is refused with a message" "$work/out"
finish
