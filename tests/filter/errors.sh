#!/bin/sh
# blkdebug-injected EIO below the filter reaches qemu-io and is recorded with
# its negative result, at both positions, for reads and for writes.
. "$(dirname "$0")/lib.sh"
require_filter
plan 16

img=$work/disk.img
qemu-img create -q -f raw "$img" 4M

# blkdebug EVENT: file below a blkdebug node failing every request after EVENT
j_blkdebug() {
	printf '{"driver":"blkdebug","inject-error":[{"event":"%s","errno":5,"once":false}],"image":%s}' \
		"$1" "$(j_file "$img")"
}

for pos in top bottom; do
	# raw emits read_aio on its child before every read; pwritev is emitted by the
	# generic write path on the node written to (blkdebug)
	for kind in read write; do
		ring=$work/$pos-$kind.ring
		if [ $kind = read ]; then
			ev=read_aio
			cmd='read 4096 4096'
		else
			ev=pwritev
			cmd='write -P 9 4096 4096'
		fi
		node=$(j_$pos "$ring" "$(j_blkdebug $ev)")
		qio -c "$cmd" "json:$node" >"$work/out" 2>&1
		grep -q 'Input/output error' "$work/out"
		ok $? "$pos: injected EIO on $kind reaches qemu-io" "$work/out"
		"$dump" "$ring" >"$work/d" 2>&1
		awk -v k=$kind '$1 == k && $2 == 4096 && $3 == 4096 && $6 == -5 { f = 1 } END { exit !f }' "$work/d"
		ok $? "$pos: the failed $kind is recorded with result -EIO" "$work/d"
		awk -v k=$kind '$1 == k && $6 != -5 { exit 1 }' "$work/d"
		ok $? "$pos: no $kind recorded as successful" "$work/d"
		head -n 1 "$work/d" | grep -q 'complete=1'
		ok $? "$pos: ring complete after the error" "$work/d"
	done
done
finish
