#!/bin/sh
# null-co latency-ns=L is the truth: every request recorded through the filter
# lasts at least L (serial and with 8 requests in flight), at both positions.
. "$(dirname "$0")/lib.sh"
require_filter
plan 12

L=2000000
for pos in top bottom; do
	for mode in serial aio; do
		ring=$work/$pos-$mode.ring
		node=$(j_$pos "$ring" "$(j_null 16777216 $L)")
		set --
		i=0
		while [ $i -lt 8 ]; do
			if [ $mode = serial ]; then
				set -- "$@" -c "read -q $((i * 4096)) 4096" -c "write -q -P 3 $((i * 4096 + 65536)) 4096"
			else
				set -- "$@" -c "aio_read -q $((i * 4096)) 4096" -c "aio_write -q -P 3 $((i * 4096 + 65536)) 4096"
			fi
			i=$((i + 1))
		done
		[ $mode = aio ] && set -- "$@" -c aio_flush
		qio "$@" "json:$node" >"$work/out" 2>&1
		ok $? "$pos/$mode: qemu-io over null-co latency-ns=$L" "$work/out"
		"$dump" "$ring" >"$work/d"
		awk -v L=$L 'NR > 1 && ($1 == "read" || $1 == "write") { n++; if ($5 - $4 < L) { print "short: " $0; bad = 1 } }
			END { if (n != 16) { print n " records, expected 16"; bad = 1 } exit bad }' "$work/d" >"$work/why"
		ok $? "$pos/$mode: all 16 requests recorded, each lasting >= $L ns" "$work/why"
		if [ $mode = aio ]; then
			# in flight together: some request starts before another one ends
			awk 'NR > 1 && ($1 == "read" || $1 == "write") { s[n] = $4; e[n] = $5; n++ }
			     END { for (i = 0; i < n; i++) for (j = 0; j < n; j++)
					if (i != j && s[j] >= s[i] && s[j] < e[i]) exit 0
				   exit 1 }' "$work/d"
			ok $? "$pos/$mode: requests overlapped in time (concurrency seen by the filter)" "$work/d"
		else
			check "$pos/$mode: records sane" sane "$ring"
		fi
	done
done
finish
