#!/bin/bash
# ioengine=io_uring_cmd inside the guest on QEMU's emulated NVMe: namespace 1
# (512-byte LBAs, 64 MiB) and namespace 2 (4 KiB LBAs, 32 MiB) through their
# generic character devices /dev/ng0n1 and /dev/ng0n2.  The namespace's size
# comes from identify; writes verify when read back through passthrough, and
# through the block device /dev/nvme0nY with psync (the commands hit the
# LBAs they name); (requests stay within QEMU's 512 KiB maximum transfer:
# passthrough commands are not split); fixedbufs, registerfiles, sqthread_poll and the
# vectored command (nonvectored=0) work; block sizes below the LBA size, a
# block device and a trim are refused or fail.  Every step runs at iodepth=1:
# QEMU 7.2's NVMe emulation loses a completion now and then at queue depth > 1
# when the host is loaded (the guest's dmesg: "I/O N QID 1 timeout, aborting",
# the command ends with EINTR 30 s later), as its ZNS emulation does
# (tests/vm/test_zoned.sh); the probe's queueing at depth is io_uring's, tested
# on the host (tests/probe).
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
echo "1..13"

cat > "$WORK/cmd.sh" <<'SH'
P="iogap-probe --eta=never --allow-destroy-data"
run() { t=$1; shift; echo "IOGAP-T-BEGIN $t"; $P "$@" 2>&1; echo "IOGAP-T-RC $t $?"; echo "IOGAP-T-END $t"; }
echo "IOGAP-T-BEGIN devs"; ls /dev/ | grep -E '^(ng|nvme)'; echo "IOGAP-T-END devs"
run size --name=size --ioengine=io_uring_cmd --filename=/dev/ng0n1 --rw=read --bs=256k --output-format=json
run wv --name=wv --ioengine=io_uring_cmd --filename=/dev/ng0n1 --rw=randwrite --bs=4k --size=4m --verify=crc32c
run opts --name=opts --ioengine=io_uring_cmd --filename=/dev/ng0n1 --rw=randwrite --bsrange=512-64k --size=4m --offset=8m --verify=md5 --fixedbufs=1 --registerfiles=1
run sqpoll --name=sqpoll --ioengine=io_uring_cmd --filename=/dev/ng0n1 --rw=randwrite --bs=8k --size=2m --offset=16m --verify=crc32c --sqthread_poll=1
run vec --name=vec --ioengine=io_uring_cmd --filename=/dev/ng0n1 --rw=randwrite --bs=16k --size=2m --offset=20m --verify=crc32c --nonvectored=0
run xw --name=x --ioengine=io_uring_cmd --filename=/dev/ng0n2 --rw=randwrite --bs=4k --size=8m --verify=crc32c --do_verify=0
run xr --name=x --ioengine=psync --direct=1 --filename=/dev/nvme0n2 --rw=randwrite --bs=4k --size=8m --verify=crc32c --verify_only=1
run lba --name=lba --ioengine=io_uring_cmd --filename=/dev/ng0n2 --rw=randread --bs=512 --size=1m
run blk --name=blk --ioengine=io_uring_cmd --filename=/dev/nvme0n1 --rw=randread --bs=4k --size=1m
run trim --name=trim --ioengine=io_uring_cmd --filename=/dev/ng0n1 --rw=randtrim --bs=4k --size=64k
echo "IOGAP-T-BEGIN dmesg"; dmesg | grep -i nvme; echo "IOGAP-T-END dmesg"
SH

truncate -s 64M "$WORK/ns1.img"
truncate -s 32M "$WORK/ns2.img"
boot "$WORK/guest.log" --mode shell-cmd --cmd-file "$WORK/cmd.sh" --timeout 280 -- \
	-drive "if=none,id=ns1,file=$WORK/ns1.img,format=raw" \
	-drive "if=none,id=ns2,file=$WORK/ns2.img,format=raw" \
	-device nvme,serial=uc0,id=nvme0 \
	-device nvme-ns,drive=ns1,bus=nvme0,nsid=1 \
	-device nvme-ns,drive=ns2,bus=nvme0,nsid=2,logical_block_size=4096,physical_block_size=4096
ok $? "guest ran the io_uring_cmd steps and powered off"

L=$WORK/guest.log
section() { between "$L" "IOGAP-T-BEGIN $1" "IOGAP-T-END $1"; }
rc() { sed -n "s/^IOGAP-T-RC $1 //p" "$L"; }
# the probe's summary line of a step: "READ: bw=..., io=..." style lines
clean() { [ "$(rc "$1")" = 0 ] && ! section "$1" | grep -Eq 'err= *[1-9]|verify:'; }

[ "$(section devs | grep -c '^ng0n[12]$')" = 2 ]
ok $? "the guest kernel has the generic devices: $(section devs | tr '\n' ' ')"
v=$(section size | sed -n '/^{/,/^}/p' | python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["read"]["io_bytes"])' 2> /dev/null)
[ "$(rc size)" = 0 ] && [ "$v" = $((64 << 20)) ]
ok $? "without size=, the whole namespace from identify: $v bytes read"
clean wv; ok $? "randwrite 4k then verify through passthrough $(section wv | grep -m1 -E 'err|verify' )"
clean opts; ok $? "fixedbufs=1 registerfiles=1, 512 B-64 KiB blocks: verified $(section opts | grep -m1 -E 'err|verify|refus')"
clean sqpoll; ok $? "sqthread_poll=1: verified $(section sqpoll | grep -m1 -E 'err|verify|refus')"
clean vec; ok $? "nonvectored=0 (NVME_URING_CMD_IO_VEC): verified $(section vec | grep -m1 -E 'err|verify|refus')"
clean xw; ok $? "4 KiB-LBA namespace: checksummed blocks written through /dev/ng0n2"
clean xr; ok $? "and all verify when psync reads them from /dev/nvme0n2 $(section xr | grep -m1 -E 'err|verify')"
[ "$(rc lba)" = 1 ] && section lba | grep -q "multiples of the namespace's 4096-byte LBAs"
ok $? "bs=512 on 4 KiB LBAs is refused: $(section lba | head -n 1)"
[ "$(rc blk)" = 1 ] && section blk | grep -q "not a character device"
ok $? "a block device is refused: $(section blk | head -n 1)"
[ "$(rc trim)" != 0 ]
ok $? "trims fail, as in fio (no discard through passthrough): $(section trim | grep -m1 -E 'err|error')"
# the guest's kernel log (the console is quiet: warnings do not reach it)
section dmesg | grep -q 'nvme0: .*queues' &&
	! section dmesg | grep -Eq 'timeout|[Aa]bort|resetting controller|reset'
ok $? "the guest's dmesg shows the controller and no NVMe timeout, abort or reset $(section dmesg | grep -Em2 'timeout|[Aa]bort|reset' | tr '\n' ' ')"
[ $failed = 0 ] || diag "$L"
finish
