#!/bin/sh
# Two filter nodes in one graph (top: filter -> raw -> filter -> protocol):
# each has its own ring, both hold every request, and the top and bottom
# records of one request nest in time.
. "$(dirname "$0")/lib.sh"
require_filter
plan 10

img=$work/disk.img
qemu-img create -q -f raw "$img" 8M

for backend in file null; do
	rt=$work/$backend-top.ring
	rb=$work/$backend-bottom.ring
	if [ $backend = file ]; then proto=$(j_file "$img"); else proto=$(j_null 8388608 100000); fi
	node=$(j_filter top "$rt" "$(j_raw "$(j_filter bottom "$rb" "$proto")")")
	set --
	i=0
	while [ $i -lt 16 ]; do
		set -- "$@" -c "aio_write -q -P 9 $((i * 65536)) $((4096 * (i % 4 + 1)))" \
			-c "aio_read -q $((i * 65536 + 32768)) 4096"
		i=$((i + 1))
	done
	qio "$@" -c aio_flush -c flush "json:$node" >"$work/out" 2>&1
	ok $? "$backend: qemu-io with a filter at the top and at the bottom" "$work/out"
	check "$backend: top ring valid and sane" sane "$rt"
	check "$backend: bottom ring valid and sane" sane "$rb"
	"$dump" "$rt" | awk 'NR > 1 && ($1 == "read" || $1 == "write") { print $1, $2, $3, $4, $5 }' | sort >"$work/t"
	"$dump" "$rb" | awk 'NR > 1 && ($1 == "read" || $1 == "write") { print $1, $2, $3, $4, $5 }' | sort >"$work/b"
	[ "$(wc -l <"$work/t")" = 32 ] && [ "$(cut -d' ' -f1-3 "$work/t")" = "$(cut -d' ' -f1-3 "$work/b")" ]
	ok $? "$backend: both rings hold all 32 requests, the same ones" "$work/t"
	paste -d' ' "$work/t" "$work/b" | awk '
		{ if (!($4 <= $9 && $10 <= $5)) { print "not nested: " $0; bad = 1 } }
		END { exit bad }' >"$work/why"
	ok $? "$backend: every bottom record nests inside its top record" "$work/why"
done
finish
