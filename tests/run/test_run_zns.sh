#!/bin/bash
# iogap run with a zns: target: the guest sees QEMU's emulated ZNS namespace
# (/dev/nvme0n1) over a file, with the filter below the device model; bare
# metal runs the same zonemode=zbd job on zones the probe emulates in the
# file.  Both sides write whole zones (a second pass resets them), every
# write pairs by tag, the report covers the zoned path, and a queue depth
# above 1 draws the QEMU 7.2 warning.
. "$(dirname "$0")/lib.sh"
echo "1..7"
truncate -s 64m "$WORK/zns.img"
cat > "$WORK/zns.fio" <<'JOB'
[global]
ioengine=psync
direct=1
[w]
rw=write
bs=64k
size=32m
[w2]
stonewall
rw=write
bs=64k
size=32m
[r]
stonewall
rw=randread
bs=4k
size=32m
io_size=4m
JOB
"$IOGAP" run --accel tcg --dir "$WORK/z" --target "zns:$WORK/zns.img,zone-size=8m" \
	"$WORK/zns.fio" > "$WORK/z.out" 2>&1
ok $? "zns target: run succeeds ($(tail -1 "$WORK/z.out"))"
grep -q "qemu-system.*nvme-ns,drive=d0,bus=nvme0,nsid=1,zoned=true,zoned.zone_size=8388608" <(tr -d "'\\\\\n" < "$WORK/z/vm/qemu.cmdline")
ok $? "the guest disk is a zoned NVMe namespace with 8 MiB zones"
grep -q '^w2: .*err= 0' "$WORK/z/vm/probe.txt" && grep -Eq 'write: .*; 4 zone resets' "$WORK/z/vm/probe.txt"
ok $? "guest: the second pass over 4 full zones resets them: $(grep -Eo '[0-9]+ zone resets' "$WORK/z/vm/probe.txt" | tr '\n' ' ')"
grep -Eq 'write: .*; 4 zone resets' "$WORK/z/bare/probe.txt"
ok $? "bare metal: the same on zones emulated in the file"
manifest "$WORK/z" 'm["pairing"]["exact"]["write"] == m["pairing"]["guest"]["write"] > 0 and m["clock"]["order_violations"] == 0'
ok $? "every write paired by tag: $(mval "$WORK/z" 'm["pairing"]["exact"]["write"], "of", m["pairing"]["guest"]["write"]')"
"$IOGAP" report --full "$WORK/z" > "$WORK/report.txt" 2>&1 && grep -Eq '^  (B|D) +[0-9]+ ' "$WORK/report.txt"
ok $? "iogap report shows the backend stage for the zoned path (B, or with host kernel points its device stage D)"
sed 's/^ioengine=psync/ioengine=libaio\niodepth=4/' "$WORK/zns.fio" > "$WORK/qd4.fio"
"$IOGAP" run --accel tcg --boot-timeout 1 --vm-only --dir "$WORK/q" --target "zns:$WORK/zns.img" \
	"$WORK/qd4.fio" > /dev/null 2> "$WORK/q.err"
grep -q "warning: job 'w' uses iodepth=4 on a ZNS target: QEMU 7.2" "$WORK/q.err" &&
	manifest "$WORK/q" 'any("ZNS" in w for w in m["warnings"])'
ok $? "iodepth > 1 on ZNS: warned and recorded"
finish
