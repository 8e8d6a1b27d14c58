#!/bin/sh
# Loading and guards: silent when good, inert outside QEMU (even with
# LD_BIND_NOW), one clear refusal line for a wrong stamp, a wrong layout or
# missing symbols, and QEMU keeps working.  Also: qemu-img, qemu-system-x86_64
# and the opt-in -blockdev alias (its default ring: followed live, run id from
# IOGAP_RUN_ID, removed when QEMU quits).
. "$(dirname "$0")/lib.sh"
require_filter
plan 23

img=$work/disk.img
qemu-img create -q -f raw "$img" 4M
ring=$work/g.ring
node=$(j_top "$ring" "$(j_file "$img")")

# 1. the good object: silent
LD_PRELOAD=$so qemu-io -c 'write -q -P 1 0 4k' "json:$node" >"$work/out" 2>"$work/err"
ok $? "good build: qemu-io through the filter works" "$work/err"
[ ! -s "$work/err" ]
ok $? "good build: nothing on stderr" "$work/err"

# 2. inert outside QEMU
out=$(LD_PRELOAD=$so sh -c 'echo hi' 2>"$work/err")
[ "$out" = hi ] && [ ! -s "$work/err" ]
ok $? "inert in sh (no output, no error)" "$work/err"
out=$(LD_BIND_NOW=1 LD_PRELOAD=$so python3 -c 'print("hi")' 2>"$work/err")
[ "$out" = hi ] && [ ! -s "$work/err" ]
ok $? "inert in python3 with LD_BIND_NOW=1 (no unresolved QEMU symbols)" "$work/err"
IOGAP_FILTER_DEBUG=1 LD_PRELOAD=$so cat /dev/null 2>"$work/err"
[ "$(wc -l <"$work/err")" = 1 ] && grep -q 'inert in cat' "$work/err"
ok $? "IOGAP_FILTER_DEBUG=1: one debug line when inert" "$work/err"

# 3. refusals: one line, QEMU continues
for variant in badstamp badlayout; do
	if [ $variant = badstamp ]; then
		vso=${IOGAP_FILTER_BADSTAMP_SO:-}
		want='stamp mismatch'
	else
		vso=${IOGAP_FILTER_BADLAYOUT_SO:-}
		want='layout self-check failed'
	fi
	LD_PRELOAD=$vso qemu-io -f raw -c 'read -q -P 1 0 4k' "$img" >"$work/out" 2>"$work/err"
	ok $? "$variant: qemu-io keeps working (plain raw image)" "$work/err"
	[ "$(wc -l <"$work/err")" = 1 ] &&
		grep -q "^iogap-filter: not registered in qemu-io: $want.*QEMU continues without it" "$work/err"
	ok $? "$variant: exactly one clear line: $want" "$work/err"
	LD_PRELOAD=$vso qemu-io -c 'read -q 0 4k' "json:$node" >"$work/out" 2>&1
	rc=$?
	[ $rc = 1 ] && grep -q "Unknown driver 'iogap'" "$work/out"
	ok $? "$variant: the driver is absent, qemu-io fails cleanly (rc $rc)" "$work/out"
done

# missing symbols: a binary named like QEMU that is not QEMU
cp /bin/true "$work/qemu-img"
LD_PRELOAD=$so "$work/qemu-img" 2>"$work/err"
ok $? "missing symbols: the process still runs" "$work/err"
[ "$(wc -l <"$work/err")" = 1 ] && grep -q 'not registered in qemu-img: symbol .* not found' "$work/err"
ok $? "missing symbols: exactly one clear line" "$work/err"

# 4. qemu-img through the filter
rm -f "$ring"   # the filter only ever creates a new ring
LD_PRELOAD=$so qemu-img info "json:$node" >"$work/out" 2>&1 && grep -q 'virtual size: 4 MiB' "$work/out"
ok $? "qemu-img info through the filter" "$work/out"
rm -f "$ring"
LD_PRELOAD=$so qemu-img convert -O raw "json:$node" "$work/copy.img" >"$work/out" 2>&1 &&
	cmp -s "$img" "$work/copy.img"
ok $? "qemu-img convert reads identical data through the filter" "$work/out"

# 5. qemu-system-x86_64: -drive file=json:..., HMP qemu-io, quit
sring=$work/sys.ring
# QemuOpts: commas inside the json: value are doubled
snode=$(j_top "$sring" "$(j_file "$img")" | sed 's/,/,,/g')
printf '%s\n' 'qemu-io d0 "write -P 5 8192 4096"' 'qemu-io d0 "read -P 5 8192 4096"' quit |
	LD_PRELOAD=$so timeout 60 qemu-system-x86_64 -machine none -nodefaults -display none \
		-monitor stdio -drive "if=none,id=d0,file=json:$snode" >"$work/out" 2>&1
ok $? "qemu-system-x86_64 runs with the filter in a -drive" "$work/out"
! grep -q -i 'fail\|error' "$work/out"
ok $? "qemu-system-x86_64: I/O through the filter succeeds" "$work/out"
"$dump" "$sring" >"$work/d" 2>&1 && grep -q '^write 8192 4096 ' "$work/d" &&
	grep -q '^read 8192 4096 ' "$work/d" && head -n 1 "$work/d" | grep -q 'complete=1'
ok $? "qemu-system-x86_64: requests recorded, ring complete after quit" "$work/d"

# 6. the opt-in alias: -blockdev driver=compress becomes the filter.  No
# options through QAPI: the ring is the default one, the run id comes from
# IOGAP_RUN_ID; a live reader follows the ring, which goes when QEMU quits.
mkdir -p "$work/rings"
mkfifo "$work/mon"
IOGAP_RUN_ID=0x00c0ffee12345678 IOGAP_FILTER_ALIAS=compress IOGAP_FILTER_RING_DIR=$work/rings \
	LD_PRELOAD=$so timeout 60 qemu-system-x86_64 -machine none -nodefaults -display none \
	-monitor stdio -blockdev "driver=file,filename=$img,node-name=f0" \
	-blockdev driver=compress,node-name=top0,file=f0 <"$work/mon" >"$work/out" 2>&1 &
qpid=$!
exec 3>"$work/mon"
ar=
for _ in $(seq 300); do
	ar=$(ls "$work"/rings/iogap-*-top0.ring 2>/dev/null | head -n 1)
	[ -n "$ar" ] && break
	sleep 0.1
done
fpid=
if [ -n "$ar" ]; then
	"$dump" --follow --timeout 60 "$ar" >"$work/f" 2>"$work/ferr" &
	fpid=$!
	for _ in $(seq 300); do [ -s "$work/f" ] && break; sleep 0.1; done   # mapped
fi
printf '%s\n' 'qemu-io top0 "write -P 6 0 4096"' 'qemu-io top0 "read -P 6 0 4096"' quit >&3
exec 3>&-
wait $qpid
ok $? "alias: -blockdev driver=compress accepted with IOGAP_FILTER_ALIAS=compress" "$work/out"
! grep -q -i 'fail\|error' "$work/out"
ok $? "alias: plain (uncompressed) writes and reads work" "$work/out"
[ -n "$fpid" ] && wait $fpid && head -n 1 "$work/f" | grep -q 'layer=top0 .*run_id=00c0ffee12345678' &&
	grep -q '^write 0 4096 ' "$work/f"
ok $? "alias: ring iogap-PID-top0.ring, layer = node name, run id from IOGAP_RUN_ID, write followed live" "$work/f"
[ -z "$(ls "$work/rings")" ]
ok $? "alias: the default ring is removed when QEMU quits"
rm -rf "$work/rings"; mkdir -p "$work/rings"
printf '%s\n' quit |
	IOGAP_FILTER_RING_DIR=$work/rings LD_PRELOAD=$so \
	timeout 60 qemu-system-x86_64 -machine none -nodefaults -display none -monitor stdio \
		-blockdev "driver=file,filename=$img,node-name=f0" \
		-blockdev driver=compress,node-name=top0,file=f0 >"$work/out" 2>&1
[ $? != 0 ] && grep -q 'Compression is not supported' "$work/out" && [ -z "$(ls "$work/rings")" ]
ok $? "no alias without IOGAP_FILTER_ALIAS: compress stays the built-in driver" "$work/out"
finish
