#!/bin/sh
# Ring lifetime and the run id.  The default ring (no ring=) exists while QEMU
# runs and is gone after it exits, also in /dev/shm and also when QEMU exits
# without closing its nodes; a live reader still gets every record.  A named
# ring stays (ring-keep= overrides either way).  kill -9 leaves the ring, and
# iogap-ring --clean removes it while a live QEMU's ring and decoys stay.  The
# header's run id comes from run-id=, else from IOGAP_RUN_ID.
. "$(dirname "$0")/lib.sh"
require_filter
plan 24

img=$work/disk.img
qemu-img create -q -f raw "$img" 4M
rd=$work/rd
mkdir "$rd"
file=$(j_file "$img")
# a top filter with the default ring, extra options in $1
j_default() { printf '{"driver":"iogap","layer":"top"%s,"file":%s}' "${1:+,$1}" "$(j_raw "$file")"; }

# wait_for GLOB: until a file matches (10 s); prints it
wait_for() {
	for _ in $(seq 100); do
		for f in $1; do [ -e "$f" ] && { echo "$f"; return 0; }; done
		sleep 0.1
	done
	return 1
}

# 1. the default ring: there while QEMU runs, followed live, gone after exit
set -- -c 'sleep 2000'
for i in $(seq 20); do set -- "$@" -c "write -q -P $i $((i * 4096)) 4k"; done
IOGAP_FILTER_RING_DIR=$rd LD_PRELOAD=$so qemu-io "$@" "json:$(j_default)" >"$work/out" 2>&1 &
qpid=$!
ring=$(wait_for "$rd/iogap-$qpid-*.ring")
ok $? "while qemu-io runs, its default ring is $rd/iogap-PID-NODE.ring ($ring)"
fpid=
if [ -n "$ring" ]; then
	"$dump" --follow --timeout 60 "$ring" >"$work/f" 2>"$work/ferr" &
	fpid=$!
fi
wait $qpid
ok $? "qemu-io with the default ring succeeds" "$work/out"
[ -n "$fpid" ] && wait $fpid && [ "$(grep -c '^write ' "$work/f")" = 20 ]
ok $? "a live reader got all 20 writes although the ring is removed at close" "$work/ferr"
[ -z "$(ls -A "$rd")" ]
ok $? "after exit the default ring is gone"

# the same in the real default place, /dev/shm, for a pid we know
sh -c 'echo $$ >"$1"; exec env LD_PRELOAD="$2" qemu-io -c "sleep 1000" -c "write -q 0 4k" "$3"' \
	sh "$work/pid" "$so" "json:$(j_default)" >"$work/out" 2>&1 &
wpid=$!
for _ in $(seq 100); do [ -s "$work/pid" ] && break; sleep 0.1; done
pid=$(cat "$work/pid")
ring=$(wait_for "/dev/shm/iogap-$pid-*.ring")
ok $? "without IOGAP_FILTER_RING_DIR the ring is /dev/shm/iogap-$pid-NODE.ring while qemu-io runs"
wait $wpid
ok $? "qemu-io succeeds" "$work/out"
[ -z "$(ls /dev/shm/iogap-"$pid"-*.ring 2>/dev/null)" ]
ok $? "after exit no /dev/shm/iogap-$pid-*.ring is left"

# QEMU exiting without closing its block nodes (a device error at startup)
IOGAP_FILTER_RING_DIR=$rd LD_PRELOAD=$so timeout 60 qemu-system-x86_64 -machine none -nodefaults \
	-display none -drive "if=none,id=d0,file=json:$(j_default | sed 's/,/,,/g')" \
	-device virtio-blk-pci,drive=d0 >"$work/out" 2>&1
rc=$?
[ $rc = 1 ] && [ -z "$(ls -A "$rd")" ]
ok $? "qemu-system-x86_64 exiting on a device error (status $rc) leaves no default ring" "$work/out"

# 2. named rings stay; ring-keep= decides either way
qio -c 'write -q 0 4k' "json:$(j_top "$work/named.ring" "$file")" >"$work/out" 2>&1 &&
	"$dump" "$work/named.ring" | head -n 1 | grep -q 'complete=1'
ok $? "a ring named with ring= stays after exit, complete" "$work/out"
qio -c 'write -q 0 4k' "json:$(j_top "$work/gone.ring" "$file" '"ring-keep":false')" \
	>"$work/out" 2>&1 && [ ! -e "$work/gone.ring" ]
ok $? "ring= with ring-keep=false: removed at exit" "$work/out"
IOGAP_FILTER_RING_DIR=$rd qio -c 'write -q 0 4k' "json:$(j_default '"ring-keep":true')" \
	>"$work/out" 2>&1 && [ "$(ls "$rd" | grep -c '^iogap-.*\.ring$')" = 1 ]
ok $? "default ring with ring-keep=true: stays" "$work/out"
"$dump" --clean "$rd" >"$work/clean" 2>&1 && [ "$(ls "$rd" | grep -c '^iogap-.*\.ring$')" = 1 ] &&
	grep -q '^0 stale rings removed from ' "$work/clean"
ok $? "iogap-ring --clean keeps it, its QEMU gone: kept rings are the user's" "$work/clean"
rm -f "$rd"/*

# 3. kill -9: the ring stays; iogap-ring --clean removes it, and only it
IOGAP_FILTER_RING_DIR=$rd LD_PRELOAD=$so qemu-io -c 'sleep 60000' "json:$(j_default)" \
	>/dev/null 2>&1 &
dead=$!
IOGAP_FILTER_RING_DIR=$rd LD_PRELOAD=$so qemu-io -c 'sleep 60000' "json:$(j_default)" \
	>/dev/null 2>&1 &
live=$!
dring=$(wait_for "$rd/iogap-$dead-*.ring")
lring=$(wait_for "$rd/iogap-$live-*.ring")
echo "not a ring, named like one" >"$rd/iogap-1-decoy.ring"
echo "notes" >"$rd/notes.txt"
md5sum "$rd/iogap-1-decoy.ring" "$rd/notes.txt" >"$work/decoys.md5"
sleep 0.5    # both rings written completely (the magic comes last)
kill -9 $dead
wait $dead
[ -n "$dring" ] && [ -e "$dring" ]
ok $? "kill -9 of qemu-io leaves its ring ($dring)"
"$dump" --clean "$rd" >"$work/clean" 2>&1
ok $? "iogap-ring --clean $rd succeeds" "$work/clean"
grep -q "^removed stale ring $dring: its QEMU, pid $dead, is gone$" "$work/clean" &&
	grep -q '^1 stale ring removed from ' "$work/clean"
ok $? "it reports the one removal and why" "$work/clean"
[ ! -e "$dring" ]
ok $? "the killed QEMU's ring is gone"
[ -n "$lring" ] && [ -e "$lring" ] && kill -0 $live
ok $? "the live QEMU's ring stays (and that QEMU still runs)"
md5sum -c --quiet "$work/decoys.md5"
ok $? "a file named like a ring and another file stay unchanged"
kill -9 $live
wait $live
"$dump" --clean "$rd" >"$work/clean" 2>&1 && [ ! -e "$lring" ] && md5sum -c --quiet "$work/decoys.md5"
ok $? "after its kill -9, a second --clean removes that ring too; the decoys stay" "$work/clean"
"$dump" --clean "$work/nonexistent" >"$work/clean" 2>&1
[ $? = 2 ] && grep -q "nonexistent" "$work/clean"
ok $? "--clean on a missing directory: exit 2 naming it" "$work/clean"
rm -f "$rd"/*

# 4. the run id: option, else environment; a bad environment value is refused
run_id_of() { "$dump" "$1" | head -n 1 | sed -n 's/.* run_id=\([0-9a-f]*\).*/\1/p'; }
qio -c 'write -q 0 4k' "json:$(j_top "$work/id1.ring" "$file" '"run-id":"0x1122334455667788"')" \
	>"$work/out" 2>&1 && [ "$(run_id_of "$work/id1.ring")" = 1122334455667788 ]
ok $? "run-id= is the header's run id" "$work/out"
IOGAP_RUN_ID=a1b2c3d4e5f60718 qio -c 'write -q 0 4k' "json:$(j_top "$work/id2.ring" "$file")" \
	>"$work/out" 2>&1 && [ "$(run_id_of "$work/id2.ring")" = a1b2c3d4e5f60718 ]
ok $? "without run-id=, IOGAP_RUN_ID (hex) is the header's run id" "$work/out"
IOGAP_RUN_ID=a1b2c3d4e5f60718 qio -c 'write -q 0 4k' \
	"json:$(j_top "$work/id3.ring" "$file" '"run-id":"0x99"')" >"$work/out" 2>&1 &&
	[ "$(run_id_of "$work/id3.ring")" = 0000000000000099 ]
ok $? "run-id= wins over IOGAP_RUN_ID" "$work/out"
IOGAP_RUN_ID=xyz qio -c 'write -q 0 4k' "json:$(j_top "$work/id4.ring" "$file")" >"$work/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'iogap: IOGAP_RUN_ID=xyz is not a non-zero hexadecimal run id' "$work/out" &&
	[ ! -e "$work/id4.ring" ]
ok $? "IOGAP_RUN_ID=xyz: refused with a message (status $rc), no ring" "$work/out"
finish
