#!/bin/bash
# zonemode=zbd inside the guest on real zoned devices: zoned null_blk (at
# queue depth 8 with libaio) and QEMU's emulated ZNS namespace (psync, QD1:
# QEMU 7.2 loses ZNS completions at QD > 1).  Per device: sequential write
# over 4 zones; the same job without zonemode=zbd fails with the device's
# I/O error; with zonemode=zbd it succeeds with 4 zone resets; randwrite
# numjobs=4 max_open_zones=2 (trace and blkzone report) then randread below
# the write pointers; the streams fixture scaled to the device; trims that
# reset two zones; bad input.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
CHECK="python3 $SRC/tests/zbd/check_trace.py"
FIXTURE=${IOGAP_ZBD_FIXTURE:-$SRC/tests/data/zbd-streams.fio}
Z=$((8 << 20))
echo "1..40"

# guest_script DEV ENGINE IODEPTH > cmd.sh
guest_script() {
	local dev=$1 eng=$2 qd=$3 S=$((4 * Z))
	cat <<SH
P="iogap-probe --eta=never --allow-destroy-data"
D=$dev
run() { t=\$1; shift; echo "IOGAP-T-BEGIN \$t"; \$P "\$@" 2>&1; echo "IOGAP-T-RC \$t \$?"; echo "IOGAP-T-END \$t"; }
dumptrace() { echo "IOGAP-T-BEGIN trace-\$1"; iogap-probe --dump-trace=/tmp/\$1.trace | grep '^record' | sed 's/tag=[^ ]* //; s/slat_ns=[^ ]* clat_ns=[^ ]* //; s/thread=[^ ]* //; s/ flags=.*//'; echo "IOGAP-T-END trace-\$1"; }
zones() { echo "IOGAP-T-BEGIN zones-\$1"; blkzone report -o \$2 -c \$3 \$D; echo "IOGAP-T-END zones-\$1"; }
SEQ="--name=seq --filename=\$D --rw=write --bs=1m --size=32m --direct=1 --ioengine=$eng --iodepth=$qd"
run seq1 \$SEQ --zonemode=zbd
zones seq1 0 4
run nozbd \$SEQ
run seq2 \$SEQ --zonemode=zbd
cat > /tmp/rw.fio <<JOB
[global]
filename=\$D
zonemode=zbd
direct=1
ioengine=$eng
iodepth=$qd
offset=$S
size=$((2 * S))
[w]
rw=randwrite
bs=1m
numjobs=4
io_size=12m
max_open_zones=2
[r]
stonewall
rw=randread
bs=64k
numjobs=2
io_size=8m
JOB
run rw /tmp/rw.fio --trace=/tmp/rw.trace
dumptrace rw
zones rw $((S >> 9)) 8
# a fresh device for the streams: the zones the rw step left partly written
# count against QEMU ZNS's max_active (8), which fio 3.33's zbd code (and
# the probe's) does not track: the streams' own zones would exceed it
blkzone reset \$D
cat > /tmp/streams.fio <<'JOB'
$(awk -v dev="$dev" -v S=$S -v base=$((3 * S)) '
	/^filename=/ { print "filename=" dev; next }
	/^offset=/ { print "offset=" (base + S * k++); next }
	/^size=/ { print "size=" S; next }
	/^io_size=/ { print "io_size=12m"; next }
	{ print }' "$FIXTURE")
JOB
run streams /tmp/streams.fio --trace=/tmp/st.trace
dumptrace st
# trims reset zones (fio's zbd_do_io_u_trim): fill two zones, then trim them
blkzone reset \$D
run trim --filename=\$D --zonemode=zbd --direct=1 --offset=$((7 * S)) --size=$((2 * Z)) \
	--name=tw --rw=write --bs=1m --ioengine=$eng --iodepth=$qd --name=tt --stonewall --rw=trim --bs=$Z
zones trim $((7 * S >> 9)) 2
B="--name=b --filename=\$D --rw=write --bs=1m --size=32m --zonemode=zbd"
run bad-zonesize \$B --direct=1 --zonesize=4m
run bad-direct \$B
run bad-maxopen \$B --direct=1 --max_open_zones=100
run warn-qd --name=q --filename=\$D --rw=read --bs=4k --size=4k --direct=1 --ioengine=libaio --iodepth=2
SH
}

# section LOG NAME: the output of one guest step
section() { between "$1" "IOGAP-T-BEGIN $2" "IOGAP-T-END $2"; }
rc() { sed -n "s/^IOGAP-T-RC $2 //p" "$1"; }

checks() { # checks LOG LABEL QEMU-HAS-QD-WARNING(0/1)
	local log=$1 l=$2 S=$((4 * Z))
	[ "$(rc "$log" seq1)" = 0 ] && section "$log" seq1 | grep -q '(32.0MiB/.*; 0 zone resets$'
	ok $? "$l: sequential write over 4 zones with zonemode=zbd"
	[ "$(section "$log" zones-seq1 | grep -c 'zcond:14(fu)')" = 4 ]
	ok $? "$l: blkzone report: zones 0-3 full"
	[ "$(rc "$log" nozbd)" = 1 ] && section "$log" nozbd | grep -Eq 'err= *5|Input/output error'
	ok $? "$l: the same job without zonemode=zbd fails with the device's I/O error ($(section "$log" nozbd | grep -o 'err=[^:]*:[^:]*' | head -n 1))"
	section "$log" nozbd | grep -q 'warning: .* is a host-managed zoned device .* zonemode=none'
	ok $? "$l: ... after a warning that the device is host-managed"
	[ "$(rc "$log" seq2)" = 0 ] && section "$log" seq2 | grep -q '; 4 zone resets$'
	ok $? "$l: with zonemode=zbd again: 4 zone resets"
	[ "$(rc "$log" rw)" = 0 ] && ! section "$log" rw | grep -q 'err= *[1-9]'
	ok $? "$l: randwrite numjobs=4 max_open_zones=2, then randread numjobs=2"
	section "$log" trace-rw > "$WORK/$l-rw.txt"
	$CHECK "$WORK/$l-rw.txt" $Z wp maxopen=2 readwp > "$WORK/$l-rw.chk"
	ok $? "$l: trace: $(tr '\n' ' ' < "$WORK/$l-rw.chk")"
	local open
	open=$(section "$log" zones-rw | grep -Ec 'zcond:(2|3)\(')
	[ "$open" -le 2 ]
	ok $? "$l: blkzone report after the run: $open open zones (limit 2)"
	[ "$(rc "$log" streams)" = 0 ]
	ok $? "$l: streams fixture scaled to the device"
	section "$log" trace-st > "$WORK/$l-st.txt"
	for k in 0 1 2 3; do
		$CHECK "$WORK/$l-st.txt" $Z "job=$k:$(((3 + k) * S)):$(((4 + k) * S))" > "$WORK/$l-st$k.chk"
		ok $? "$l: stream $((k + 1)): $(cat "$WORK/$l-st$k.chk")"
	done
	[ "$(rc "$log" trim)" = 0 ] && section "$log" trim | grep -q 'issued rwts: total=0,0,2,0' &&
		section "$log" trim | grep -q '(16.0MiB/.*; 0 zone resets$'
	ok $? "$l: two zones written, then trimmed with zonemode=zbd: 2 trims of a zone each"
	[ "$(section "$log" zones-trim | grep -c 'zcond: *1(em)')" = 2 ]
	ok $? "$l: blkzone report: both zones empty again (reset, not discarded)"
	[ "$(rc "$log" bad-zonesize)" = 1 ] && section "$log" bad-zonesize | grep -q 'zonesize=4194304 does not match the zone size 8388608'
	ok $? "$l: zonesize not matching the device: $(section "$log" bad-zonesize | head -n 1)"
	[ "$(rc "$log" bad-direct)" = 1 ] && section "$log" bad-direct | grep -q 'need direct=1'
	ok $? "$l: writes without direct=1: $(section "$log" bad-direct | head -n 1)"
	[ "$(rc "$log" bad-maxopen)" = 1 ] && section "$log" bad-maxopen | grep -q 'max_open_zones=100 is above the limit'
	ok $? "$l: max_open_zones above the device limit: $(section "$log" bad-maxopen | head -n 1)"
	if [ "$3" = 1 ]; then
		section "$log" warn-qd | grep -q "warning: .*QEMU 7.2's ZNS emulation loses completions"
	else
		! section "$log" warn-qd | grep -q "QEMU 7.2"
	fi
	ok $? "$l: QEMU ZNS at iodepth > 1 warning $([ "$3" = 1 ] && echo given || echo 'not given (not QEMU ZNS)')"
}

[ -f "$FIXTURE" ] || bail "fixture $FIXTURE missing"

# zoned null_blk: 1 GiB, 8 MiB zones, at most 8 open; libaio at depth 8
guest_script /dev/nullb0 libaio 8 > "$WORK/nullb.sh"
boot "$WORK/nullb.log" --mode shell-cmd --cmd-file "$WORK/nullb.sh" --timeout 240 \
	--append "null_blk.zoned=1 null_blk.zone_size=8 null_blk.gb=1 null_blk.zone_max_open=8"
ok $? "null_blk: guest ran the zoned steps and powered off"
checks "$WORK/nullb.log" nullb 0

# QEMU ZNS namespace: 256 MiB, 8 MiB zones, at most 8 open; psync (QD1)
truncate -s 256M "$WORK/zns.img"
guest_script /dev/nvme0n1 psync 1 > "$WORK/zns.sh"
boot "$WORK/zns.log" --mode shell-cmd --cmd-file "$WORK/zns.sh" --timeout 280 -- \
	-drive "if=none,id=zns0,file=$WORK/zns.img,format=raw" \
	-device nvme,serial=zns0,id=nvme0 \
	-device nvme-ns,drive=zns0,bus=nvme0,nsid=1,zoned=true,zoned.zone_size=8M,zoned.max_open=8,zoned.max_active=8
ok $? "ZNS: guest ran the zoned steps and powered off"
checks "$WORK/zns.log" zns 1
grep -Eq 'nvme.*(timeout|[Aa]bort|controller reset)' "$WORK/zns.log" && diag <(grep -E 'nvme.*(timeout|[Aa]bort|reset)' "$WORK/zns.log")
[ $failed = 0 ] || { diag "$WORK/nullb.log"; diag "$WORK/zns.log"; }
finish
