#!/bin/sh
# The ring file must not cost QEMU its life: a ring that does not fit its
# filesystem (a 64 KiB tmpfs) fails the open with a message, and a ring-size
# whose file would pass 1 GiB is refused naming the option.  Never a signal
# (before posix_fallocate, the memset of a sparse ring on a full tmpfs was a
# SIGBUS).
. "$(dirname "$0")/lib.sh"
require_filter
plan 8

img=$work/disk.img
qemu-img create -q -f raw "$img" 4M

# not_signal STATUS: qemu-io ended by itself (exit < 128), not killed
not_signal() { [ "$1" -ne 0 ] && [ "$1" -lt 128 ]; }

# 1. a 64 KiB tmpfs, in a private mount namespace (root: unshare -m; else try a
# user namespace).  In it: the default ring (14 MB) does not fit, a 16-record
# ring does.
mnt=$work/tiny
mkdir "$mnt"
cat >"$work/in-ns.sh" <<'NS'
set -u
mount -t tmpfs -o size=64k tmpfs "$1" || exit 99
LD_PRELOAD=$2 qemu-io -c 'write -q -P 3 0 4096' "json:$3" >"$5/big.out" 2>&1
echo $? >"$5/big.rc"
ls -la "$1" >"$5/ls.out" 2>&1
LD_PRELOAD=$2 qemu-io -c 'write -q -P 3 0 4096' "json:$4" >"$5/small.out" 2>&1
echo $? >"$5/small.rc"
NS
big=$(j_top "$mnt/big.ring" "$(j_file "$img")")
small=$(j_top "$mnt/small.ring" "$(j_file "$img")" '"ring-size":16')
ns=none
for u in "unshare -m" "unshare -r -m"; do
	$u sh "$work/in-ns.sh" "$mnt" "$so" "$big" "$small" "$work" >"$work/ns.out" 2>&1
	rc=$?
	if [ $rc != 99 ] && [ -f "$work/big.rc" ]; then ns=$u; break; fi
done
if [ "$ns" = none ]; then
	for d in "ring on a full tmpfs: open fails, no signal" "message says no room" \
		 "no ring file left behind" "a ring that fits the same tmpfs works"; do
		skip "$d" "cannot mount a tmpfs here: $(head -n 1 "$work/ns.out")"
	done
else
	echo "# tmpfs size=64k mounted with: $ns"
	not_signal "$(cat "$work/big.rc")"
	ok $? "ring on a full tmpfs: open fails, no signal (status $(cat "$work/big.rc"))" "$work/big.out"
	grep -q "iogap: ring $mnt/big.ring: no room for [0-9]* bytes" "$work/big.out"
	ok $? "message says no room (iogap: ring FILE: no room for N bytes)" "$work/big.out"
	! grep -q 'big.ring' "$work/ls.out"
	ok $? "no ring file left behind on the full tmpfs" "$work/ls.out"
	[ "$(cat "$work/small.rc")" = 0 ]
	ok $? "a 16-record ring on the same tmpfs works" "$work/small.out"
fi

# 2. the 1 GiB cap: 64-byte records, so at most 2^23 records
ring=$work/huge.ring
LD_PRELOAD=$so qemu-io -c 'read -q 0 512' \
	"json:$(j_top "$ring" "$(j_file "$img")" '"ring-size":8388609')" >"$work/out" 2>&1
rc=$?
not_signal $rc
ok $? "ring-size over the 1 GiB cap: open fails, no signal (status $rc)" "$work/out"
grep -q 'iogap: ring-size 8388609 is too large: at most 8388608 records' "$work/out" &&
	grep -q '1 GiB' "$work/out"
ok $? "message names ring-size, the maximum and the 1 GiB limit" "$work/out"
[ ! -e "$ring" ]
ok $? "no ring file created for a refused ring-size"
LD_PRELOAD=$so qemu-io -c 'read -q 0 512' \
	"json:$(j_top "$ring" "$(j_file "$img")" '"ring-size":18446744073709551615')" >"$work/out" 2>&1
rc=$?
not_signal $rc && grep -q 'ring-size .* is too large' "$work/out"
ok $? "ring-size 2^64-1 refused the same way (status $rc)" "$work/out"
finish
