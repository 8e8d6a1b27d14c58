#!/bin/sh
# qemu-io through the filter at the top (filter -> raw -> protocol) and at the
# bottom (raw -> filter -> protocol), over a file and over null-co: every request
# recorded with sane values, data written through the filter reads back identical.
. "$(dirname "$0")/lib.sh"
require_filter
plan 24

img=$work/disk.img
qemu-img create -q -f raw "$img" 16M

# off len pattern: 512 B .. 1 MiB, plus unaligned ones (file only)
aligned="0 512 0x11
1048576 4096 0x22
2097152 65536 0x33
4194304 1048576 0x44
8388608 131072 0x55"
unaligned="10000 3000 0x66
65537 1 0x77
5242881 70001 0x78"

for backend in file null; do
	for pos in top bottom; do
		ring=$work/$backend-$pos.ring
		if [ $backend = file ]; then
			proto=$(j_file "$img")
			set_list="$aligned
$unaligned"
		else
			proto=$(j_null 16777216)
			set_list=$aligned
		fi
		node=$(j_$pos "$ring" "$proto")
		cmds=$work/cmds
		: >"$cmds"
		: >"$work/exp.write"
		: >"$work/exp.read"
		echo "$set_list" | while read -r off len pat; do
			[ -n "$off" ] || continue
			echo "write -q -P $pat $off $len" >>"$cmds"
			echo "$off $len" >>"$work/exp.write"
			[ $backend = file ] && rp=$pat || rp=0
			echo "read -q -P $rp $off $len" >>"$cmds"
			echo "$off $len" >>"$work/exp.read"
		done
		set --
		while read -r c; do set -- "$@" -c "$c"; done <"$cmds"
		qio "$@" "json:$node" >"$work/out" 2>&1
		rc=$?
		ok $rc "$backend/$pos: qemu-io through the filter succeeds" "$work/out"
		! grep -q -i 'fail\|error' "$work/out"
		ok $? "$backend/$pos: patterns read back identical through the filter" "$work/out"
		check "$backend/$pos: ring valid, complete, sane records" sane "$ring"
		sort "$work/exp.write" >"$work/exp.write.s"
		sort "$work/exp.read" >"$work/exp.read.s"
		records write "$ring" >"$work/got.write"
		records read "$ring" >"$work/got.read"
		check "$backend/$pos: exactly one write record per write (offset, length)" \
			diff "$work/exp.write.s" "$work/got.write"
		check "$backend/$pos: exactly one read record per read (offset, length)" \
			diff "$work/exp.read.s" "$work/got.read"
		if [ $backend = file ]; then
			# what the filter wrote is really in the file (read without the filter)
			set --
			echo "$set_list" | while read -r off len pat; do
				[ -n "$off" ] && echo "read -q -P $pat $off $len"
			done >"$cmds"
			while read -r c; do set -- "$@" -c "$c"; done <"$cmds"
			qemu-io -f raw "$@" "$img" >"$work/out2" 2>&1 && ! grep -q -i 'fail' "$work/out2"
			ok $? "$backend/$pos: data landed in the image (read back without the filter)" "$work/out2"
		else
			"$dump" "$ring" | awk 'NR > 1 && $1 == "read" && $6 != $3 { exit 1 }'
			ok $? "$backend/$pos: null-co reads recorded with result = length"
		fi
	done
done
finish
