#!/bin/bash
# The static iogap-probe runs in the guest: a 1 MiB O_DIRECT randread of the
# virtio disk with each engine prints fio-schema JSON on the console.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
engines="psync libaio io_uring"
echo "1..4"
truncate -s 16M "$WORK/disk.img"
head -c 4M /dev/urandom | dd of="$WORK/disk.img" conv=notrunc status=none
{
	echo 'file /bin/iogap-probe'
	for e in $engines; do
		echo "echo IOGAP-JSON-BEGIN-$e"
		echo "iogap-probe --eta=never --name=t --ioengine=$e --filename=/dev/vda --rw=randread --size=1m --direct=1 --output-format=json"
		echo "echo IOGAP-JSON-END-$e"
	done
} > "$WORK/cmd.sh"
boot "$WORK/log" --mode shell-cmd --cmd-file "$WORK/cmd.sh" --disk "$WORK/disk.img" --timeout 120
ok $? "guest ran the probe and powered off"
for e in $engines; do
	between "$WORK/log" "IOGAP-JSON-BEGIN-$e" "IOGAP-JSON-END-$e" > "$WORK/$e.json"
	python3 - "$WORK/$e.json" "$e" > "$WORK/$e.check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
j = d["jobs"][0]
assert j["error"] == 0, j["error"]
assert j["job options"]["ioengine"] == sys.argv[2], j["job options"]
assert j["read"]["io_bytes"] == 1 << 20, j["read"]["io_bytes"]
assert j["read"]["total_ios"] == 256, j["read"]["total_ios"]
print(f'{j["read"]["iops"]:.0f} IOPS')
PY
	ok $? "$e: valid JSON, 256 x 4k read, no error ($(tail -n 1 "$WORK/$e.check"))"
done
[ $failed = 0 ] || diag "$WORK/log"
finish
