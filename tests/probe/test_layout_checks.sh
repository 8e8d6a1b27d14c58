#!/bin/bash
# Every parameter check before any layout or I/O: a zbd
# job on a regular file without zonesize fails at once and creates nothing
# (as fio); files that do not fit in free space are refused with the sizes
# before a byte is written; nothing is written before a job's offset.
. "$(dirname "$0")/lib.sh"
echo "1..5"
FIO=${FIO:-fio}
cd "$WORK" || exit 1

zbd=(--name=z --zonemode=zbd --offset=128g --size=3g --rw=write --bs=64k --direct=1)
! timeout 20 "$PROBE" "${zbd[@]}" --filename=z.dat 2> z.err && [ ! -e z.dat ] &&
	grep -q "zonesize is required for zonemode=zbd" z.err
ok $? "zonemode=zbd on a regular file without zonesize: fails at once, no file ($(cat z.err))"
! timeout 20 "$FIO" "${zbd[@]}" --filename=zf.dat > /dev/null 2>&1 && [ ! -e zf.dat ]
ok $? "fio 3.33 does the same (fails, creates nothing)"

free=$(( $(stat -f -c '%a * %S' . ) ))
# (other processes change the free space meanwhile: the message gives its own figure)
big=$(( (free / 1048576 + 1024) * 1048576 ))
! timeout 20 "$PROBE" --name=big --rw=write --size=$big --filename=big.dat 2> big.err &&
	[ ! -e big.dat ] && grep -qE "laying out $big bytes .* does not fit in the [0-9]+ bytes free" big.err
ok $? "a file larger than the free space: refused before writing, with the sizes ($(cat big.err))"

"$PROBE" --name=two --rw=write --size=$((free / 1048576 * 6 / 10))m --filename=b1.dat --name=three \
	--size=$((free / 1048576 * 6 / 10))m --filename=b2.dat --parse-only &&
	! timeout 20 "$PROBE" --name=two --rw=write --size=$((free / 1048576 * 6 / 10))m --filename=b1.dat \
	--name=three --rw=write --size=$((free / 1048576 * 6 / 10))m --filename=b2.dat 2> two.err &&
	[ ! -e b1.dat ] && [ ! -e b2.dat ] && grep -q "for all files on that filesystem" two.err
ok $? "two files that fit one by one but not together: refused before either is written"

"$PROBE" --name=off --rw=write --offset=1g --size=1m --filename=off.dat > /dev/null &&
	[ "$(stat -c %s off.dat)" = $(( (1 << 30) + (1 << 20) )) ] &&
	[ "$(( $(stat -c '%b * %B' off.dat) ))" -lt $(( 16 << 20 )) ]
ok $? "offset=1g size=1m: the file ends at 1g+1m with a hole before the offset ($(du -k off.dat | cut -f1) KiB allocated)"
finish
