#!/bin/bash
# iogap libvirt on a real libvirt domain (TCG, iogap's guest image, a
# file-backed disk vdb): enable/disable leave the definition as it was;
# insert/remove under a guest writer 20 times: every insertion sees the
# guest's I/O in its ring, the graph is as found after each removal, no data
# is lost (checked in the guest and in the image); cleanup removes leftover
# nodes; the failure cases say what to do.  Starts virtlogd/libvirtd itself
# when they do not run, and stops only what it started.
# shellcheck source=tests/libvirt/lib.sh
. "$(dirname "$0")/lib.sh"
RINGTOOL=$BUILD/host-tools/iogap-ring
CYCLES=20
[ -f "$BUILD/images/vmlinux" ] && [ -f "$BUILD/images/initramfs.cpio" ] ||
	bail "guest image not built ($BUILD/images/vmlinux)"

echo 'sleep 600' > "$WORK/cmd.sh"
define_domain "$BUILD/images" "    <channel type='unix'>
      <source mode='bind' path='$WORK/ctl.sock'/>
      <target type='virtio' name='iogap.ctl'/>
    </channel>"
dumpdef() { virsh dumpxml --inactive --security-info "$DOM"; }
dumpdef > "$WORK/orig.xml"

# ring_records RING: write_seq of the ring (empty if unreadable)
ring_records() { "$RINGTOOL" "$1" 2> /dev/null | sed -n '1s/.* write_seq=\([0-9]*\) .*/\1/p'; }

echo "1..17"

# ---- failure cases before the filter is there ---------------------------------
out=$("$IOGAP" libvirt insert "$DOM" --disk vdb 2>&1)
[ $? = 1 ] && [[ $out == *"is not running"* ]]
ok $? "insert on a domain that is not running: $out"

virsh start "$DOM" > /dev/null || bail "virsh start failed"
out=$("$IOGAP" libvirt insert "$DOM" --disk vdb 2>&1)
[ $? = 1 ] && [[ $out == *"not loaded"* ]] && [[ $out == *"iogap libvirt enable $DOM"* ]]
ok $? "insert without the preload names the enable command: $out"
virsh destroy "$DOM" > /dev/null

# ---- enable -------------------------------------------------------------------
out=$("$IOGAP" libvirt enable "$DOM" 2>&1)
[ $? = 0 ] && [[ $out == *"next start"* ]]
ok $? "enable: $out"
dumpdef > "$WORK/enabled.xml"
so=$(readlink -f "$BUILD/qemu-filter/iogap-filter.so")
diff "$WORK/orig.xml" "$WORK/enabled.xml" | grep '^[<>]' > "$WORK/enable.diff"
grep -qx "> *<qemu:env name='LD_PRELOAD' value='$so'/>" "$WORK/enable.diff" &&
	grep -qx "> *<qemu:env name='IOGAP_FILTER_ALIAS' value='compress'/>" "$WORK/enable.diff" &&
	[ "$(grep -c '^<' "$WORK/enable.diff")" = 1 ] && [ "$(grep -c '^>' "$WORK/enable.diff")" = 5 ]
ok $? "enable adds the two qemu:env entries (block and namespace) and changes nothing else"
sed 's/^/# /' "$WORK/enable.diff"

# ---- the writer under 20 insert/remove cycles ------------------------------------
cp "$(dirname "$0")/writer.sh" "$WORK/cmd.sh"
virsh start "$DOM" > /dev/null || bail "virsh start failed"
wait_console '^IOGAP-WRITER-START' 300
ok $? "the guest writer started"
grep '^IOGAP-WRITER-ERROR' "$WORK/console.log" | sed 's/^/# /'

out=$("$IOGAP" libvirt insert "$DOM" --disk vdx 2>&1)
[ $? = 1 ] && [[ $out == *"disk vdx not found"* ]] && [[ $out == *"vdb"* ]]
ok $? "insert on a disk the domain does not have: $out"

"$IOGAP" libvirt graph "$DOM" > "$WORK/graph.before"
grep -q -- '-file-> libvirt-' "$WORK/graph.before"
ok $? "the graph before insertion has the disk's format and storage nodes"
sed 's/^/# /' "$WORK/graph.before"

inserted=0 seen=0 restored=0
for c in $(seq $CYCLES); do
	out=$("$IOGAP" libvirt insert "$DOM" --disk vdb 2>&1) || { echo "# cycle $c: $out"; continue; }
	inserted=$((inserted + 1))
	ring=${out##* ring }
	if [ "$c" = 1 ]; then
		"$IOGAP" libvirt graph "$DOM" > "$WORK/graph.inserted"
		sed 's/^/# inserted: /' "$WORK/graph.inserted"
	fi
	# the guest keeps writing: the filter must see some of it
	for _ in $(seq 300); do
		r=$(ring_records "$ring")
		[ -n "$r" ] && [ "$r" -gt 0 ] && { seen=$((seen + 1)); break; }
		sleep 0.2
	done
	out=$("$IOGAP" libvirt remove "$DOM" --disk vdb 2>&1) || echo "# cycle $c: $out"
	"$IOGAP" libvirt graph "$DOM" | cmp -s - "$WORK/graph.before" && restored=$((restored + 1))
done
[ $inserted = $CYCLES ]
ok $? "$inserted of $CYCLES insertions under the writer succeeded"
[ $seen = $CYCLES ]
ok $? "$seen of $CYCLES insertions recorded guest requests in their ring"
grep -qx 'edge libvirt-[0-9]*-format -file-> iogap-vdb' "$WORK/graph.inserted" &&
	grep -qx 'edge iogap-vdb -file-> libvirt-[0-9]*-storage' "$WORK/graph.inserted"
ok $? "inserted: format -> iogap-vdb -> storage"
[ $restored = $CYCLES ]
ok $? "the graph is as found after $restored of $CYCLES removals"
[ -z "$(ls /dev/shm | grep -- '-iogap-vdb.ring$')" ]
ok $? "no ring left in /dev/shm after the removals"

# ---- a leftover node (iogap killed mid-run) ------------------------------------------
# one node in place, one only added (killed between blockdev-add and reopen)
"$IOGAP" libvirt insert "$DOM" --disk vdb > /dev/null
storage=$(sed -n 's/^edge libvirt-[0-9]*-format -file-> //p' "$WORK/graph.before")
virsh qemu-monitor-command "$DOM" "{\"execute\":\"blockdev-add\",\"arguments\":{\"driver\":\"compress\",\"node-name\":\"iogap-vdc\",\"file\":\"$storage\"}}" > /dev/null
out=$("$IOGAP" libvirt cleanup "$DOM" 2>&1)
[ $? = 0 ] && [[ $out == *"2 iogap filter nodes removed"* ]] &&
	"$IOGAP" libvirt graph "$DOM" | cmp -s - "$WORK/graph.before"
ok $? "cleanup removes leftover filter nodes (inserted, only added), graph as found: $out"

# ---- stop the writer, check every byte -------------------------------------------------
# stay connected until QEMU exits: the guest reads the port in a loop
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"stop\n"); s.settimeout(600); s.recv(1)' \
	"$WORK/ctl.sock" 2> /dev/null &
for _ in $(seq 600); do [ "$(virsh domstate "$DOM")" = "shut off" ] && break; sleep 0.5; done
tr -d '\r' < "$WORK/console.log" > "$WORK/console.txt"
done_line=$(grep '^IOGAP-WRITER-DONE' "$WORK/console.txt")
grep '^IOGAP-WRITER-BAD' "$WORK/console.txt" | sed 's/^/# /'
[[ $done_line == *" bad=0" ]] && grep -qx 'IOGAP-CMD-EXIT 0' "$WORK/console.txt"
ok $? "the guest verified every pass and every slot: $done_line"
mismatch=0 slots=0
while read -r _ slot sum; do
	slots=$((slots + 1))
	got=$(dd if="$WORK/disk.img" bs=1M skip="$slot" count=1 status=none | md5sum | cut -d' ' -f1)
	[ "$got" = "$sum" ] || mismatch=$((mismatch + 1))
done < <(grep '^IOGAP-SLOT ' "$WORK/console.txt")
passes=${done_line#*passes=}; passes=${passes%% *}
[ -n "$passes" ] && [ $slots = $((passes < 16 ? passes : 16)) ] && [ $mismatch = 0 ]
ok $? "the image holds the guest's last pass in all $slots slots written ($mismatch differ)"

# ---- disable ------------------------------------------------------------------------------
out=$("$IOGAP" libvirt disable "$DOM" 2>&1)
[ $? = 0 ] && dumpdef | cmp -s - "$WORK/orig.xml"
ok $? "disable: the definition is byte for byte as before enable ($out)"
out=$("$IOGAP" libvirt disable "$DOM" 2>&1)
[ $? = 0 ] && [[ $out == *"no iogap preload"* ]]
ok $? "disable again: nothing to do ($out)"
[ $failed = 0 ] || sed 's/^/# console: /' "$WORK/console.log" | grep -v '^# console: \[' | tail -40
finish
