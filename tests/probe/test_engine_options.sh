#!/bin/bash
# Engine options beside fio 3.33: nowait (pvsync2, libaio, io_uring),
# uncached (pvsync2, io_uring), force_async (io_uring), userspace_reap
# (libaio), thp (mmap).  The same job gives the same error (or none) under
# the probe and fio; an option given to an engine without it is refused.
# nowait (RWF_NOWAIT): a read of a page not in the cache fails with EAGAIN
# instead of blocking.  Each run reads a file nobody has read since it was
# written and synced, its cache dropped by the job (invalidate=1); whether
# one of its 64 reads finds its page missing still depends on readahead
# timing (fio itself sometimes reads them all), so each tool gets three
# fresh tries and must hit EAGAIN in one: without the flag it never would.
. "$(dirname "$0")/lib.sh"
FIO=${FIO:-fio}
command -v "$FIO" > /dev/null || skip_all "fio is not installed"
nowait_engines=(pvsync2 libaio io_uring)
cases=(
	"--ioengine=pvsync2 --uncached=1"
	"--ioengine=io_uring --uncached=1"
	"--ioengine=io_uring --force_async=2"
	"--ioengine=libaio --userspace_reap=1"
	"--ioengine=mmap --thp=1"
)
echo "1..$(( ${#nowait_engines[@]} + ${#cases[@]} + 3 ))"
cd "$WORK" || exit 1
job=(--name=x --filename=f.dat --size=256k --rw=randread --minimal)
head -c 256k /dev/urandom > base.dat
fresh() { rm -f f.dat && cp base.dat f.dat && sync f.dat; }   # written, clean, unread
eagain() { # eagain BINARY ENGINE: EAGAIN in one of three fresh tries
	for _ in 1 2 3; do
		fresh
		"$1" "${job[@]}" --ioengine="$2" --nowait=1 2> /dev/null | grep '^3;' | cut -d';' -f5 |
			grep -qx 11 && return 0
	done
	return 1
}
for e in "${nowait_engines[@]}"; do
	eagain "$PROBE" "$e" && eagain "$FIO" "$e"
	ok $? "$e nowait=1: a read of an uncached page fails with EAGAIN, as under fio"
done
for c in "${cases[@]}"; do
	fresh
	# shellcheck disable=SC2086
	{ "$PROBE" "${job[@]}" $c > p.txt 2> /dev/null; probe_rc=$?; }
	fresh
	# shellcheck disable=SC2086
	{ "$FIO" "${job[@]}" $c > f.txt 2> /dev/null; fio_rc=$?; }
	p=$(grep '^3;' p.txt | cut -d';' -f5) f=$(grep '^3;' f.txt | cut -d';' -f5)
	[ "$probe_rc" = "$fio_rc" ] && [ -n "$p" ] && [ "$p" = "$f" ]
	ok $? "$c: exit $probe_rc, job error '$p' (fio: exit $fio_rc, error '$f')"
done
# io_uring force_async: the requests all complete, none lost to the flag
"$PROBE" "${job[@]}" --ioengine=io_uring --force_async=1 --iodepth=8 > p.txt
[ "$(cut -d';' -f6 p.txt)" = 256 ]
ok $? "force_async=1 at QD8 reads the whole file (256 KiB)"
! "$PROBE" "${job[@]}" --ioengine=psync --thp=1 2> err.txt && grep -q "thp is an option of ioengine=mmap" err.txt
ok $? "thp with psync is refused naming its engine"
! "$PROBE" "${job[@]}" --ioengine=libaio --uncached=1 2> err.txt && grep -q "uncached is an option" err.txt
ok $? "uncached with libaio is refused naming its engines"
finish
