#!/bin/bash
# Engine options beside fio 3.33: nowait (pvsync2, libaio, io_uring),
# uncached (pvsync2, io_uring), force_async (io_uring), userspace_reap
# (libaio), thp (mmap).  The same job gives the same error (or none) under
# the probe and fio; an option given to an engine without it is refused.
# nowait: the job's one read comes right after the file's cache is dropped
# (invalidate=1), so it would block: EAGAIN under both (later reads race
# with the readahead the first one started).
. "$(dirname "$0")/lib.sh"
FIO=${FIO:-fio}
command -v "$FIO" > /dev/null || skip_all "fio is not installed"
cases=(
	"--ioengine=pvsync2 --nowait=1 --number_ios=1"
	"--ioengine=libaio --nowait=1 --number_ios=1"
	"--ioengine=io_uring --nowait=1 --number_ios=1"
	"--ioengine=pvsync2 --uncached=1"
	"--ioengine=io_uring --uncached=1"
	"--ioengine=io_uring --force_async=2"
	"--ioengine=libaio --userspace_reap=1"
	"--ioengine=mmap --thp=1"
)
echo "1..$(( ${#cases[@]} + 3 ))"
cd "$WORK" || exit 1
job=(--name=x --filename=f.dat --size=256k --rw=randread --minimal)
"$FIO" "${job[@]}" --ioengine=psync > /dev/null && sync f.dat   # laid out and clean: droppable
for c in "${cases[@]}"; do
	# shellcheck disable=SC2086
	{ "$PROBE" "${job[@]}" $c > p.txt 2> /dev/null; probe_rc=$?; }
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
