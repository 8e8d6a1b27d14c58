# The guest side of test_live.sh (iogap_mode=shell-cmd, busybox sh): writes
# 1 MiB passes of fresh random data with O_DIRECT into 16 slots of the disk
# with serial iogap0, reads each pass back at once and compares checksums,
# until the host writes to the control port; then reads every slot again and
# prints the checksum of each one's last pass for the host to check the image.
dev=
for b in /sys/block/*; do
	[ "$(cat "$b/serial" 2> /dev/null)" = iogap0 ] && dev=/dev/${b##*/}
done
[ -n "$dev" ] || { echo "IOGAP-WRITER-ERROR no disk with serial iogap0"; exit 1; }
[ -c "$IOGAP_CTL" ] || { echo "IOGAP-WRITER-ERROR no control port"; exit 1; }
# a read of the port returns end-of-file while the host is not connected:
# try again until the host's stop arrives
(while [ ! -s /tmp/stop ]; do cat "$IOGAP_CTL" >> /tmp/stop; usleep 200000; done) &
bad=0
pass=0
echo "IOGAP-WRITER-START $dev"
while [ ! -s /tmp/stop ]; do
	slot=$((pass % 16))
	dd if=/dev/urandom of=/tmp/p bs=64k count=16 2> /dev/null
	want=$(md5sum < /tmp/p)
	dd if=/tmp/p of="$dev" bs=64k seek=$((slot * 16)) oflag=direct conv=notrunc 2> /dev/null ||
		{ echo "IOGAP-WRITER-BAD write failed, pass $pass"; bad=$((bad + 1)); }
	got=$(dd if="$dev" bs=64k skip=$((slot * 16)) count=16 iflag=direct 2> /dev/null | md5sum)
	[ "$got" = "$want" ] || { echo "IOGAP-WRITER-BAD pass $pass slot $slot read back differs"; bad=$((bad + 1)); }
	echo "$want" > "/tmp/slot$slot"
	pass=$((pass + 1))
done
for slot in $(seq 0 15); do
	[ -f "/tmp/slot$slot" ] || continue
	got=$(dd if="$dev" bs=64k skip=$((slot * 16)) count=16 iflag=direct 2> /dev/null | md5sum)
	[ "$got" = "$(cat "/tmp/slot$slot")" ] || { echo "IOGAP-WRITER-BAD slot $slot differs at the end"; bad=$((bad + 1)); }
	echo "IOGAP-SLOT $slot ${got%% *}"
done
echo "IOGAP-WRITER-DONE passes=$pass bad=$bad"
[ $bad = 0 ]
