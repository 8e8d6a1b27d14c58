#!/bin/bash
# iogap run --domain on a real libvirt domain (TCG, iogap's guest image with
# the real qemu-ga, a file-backed disk vdb): the failure cases say what to
# do and leave the graph as found; a run gives an ordinary run directory
# (bare metal on the disk's image file and the VM, every write paired by
# tag, QEMU's blockstats beside); a run on sda, a disk on a virtio-scsi
# controller beside vdb, finds it in the guest and pairs its requests; a
# read-only job's reads bound the clock; an iogap killed mid-run leaves nodes that
# `iogap libvirt cleanup` or the next run removes.  Starts
# virtlogd/libvirtd itself when they do not run, stops only what it started.
# shellcheck source=tests/libvirt/lib.sh
. "$(dirname "$0")/lib.sh"
IMG=$BUILD/tests/libvirt
[ -f "$IMG/vmlinux" ] && [ -f "$IMG/initramfs.cpio" ] ||
	bail "the guest image with qemu-ga is not built ($IMG/initramfs.cpio: install qemu-guest-agent)"
bg=""
trap '[ -n "$bg" ] && kill -9 "$bg" 2> /dev/null; lv_cleanup' EXIT

echo 'sleep 3000' > "$WORK/cmd.sh"
truncate -s 64M "$WORK/scsi.img"
GUEST_MODULES=virtio_scsi,sd_mod
define_domain "$IMG" "    <channel type='unix'>
      <target type='virtio' name='org.qemu.guest_agent.0'/>
    </channel>
    <controller type='scsi' index='0' model='virtio-scsi'/>
    <disk type='file' device='disk'>
      <driver name='qemu' type='raw' cache='none' io='native'/>
      <source file='$WORK/scsi.img'/>
      <target dev='sda' bus='scsi'/>
      <address type='drive' controller='0' bus='0' target='0' unit='0'/>
    </disk>"

start() {
	rm -f "$WORK/console.log"
	virsh start "$DOM" > /dev/null || bail "virsh start failed"
}
# a few hundred requests: writes (tagged), then reads; the size comes from
# the environment (it travels to the guest probe through guest-exec)
export IOGAP_LV_SIZE=16m
cat > "$WORK/job.fio" <<EOF
[global]
ioengine=libaio
direct=1
bs=4k
iodepth=4
size=\${IOGAP_LV_SIZE}

[w]
rw=randwrite
number_ios=300

[r]
rw=randread
number_ios=200
stonewall
EOF
# long enough to be killed in the middle; in the guest it ends by itself
printf '[w]\nioengine=libaio\ndirect=1\nbs=4k\nsize=16m\nrw=randwrite\nruntime=20\ntime_based=1\n' \
	> "$WORK/long.fio"
run() { # run DIR [args]: iogap run --domain on vdb (or DISK)
	local d=$1
	shift
	"$IOGAP" run --quiet --dir "$WORK/$d" --domain "$DOM" --disk "${DISK:-vdb}" "$@" \
		"$WORK/job.fio" > "$WORK/$d.out" 2>&1
}
mval() { python3 -c "import json; m=json.load(open('$1/manifest.json')); print($2)"; }
manifest() {
	python3 -c "import json,sys; m=json.load(open('$1/manifest.json')); sys.exit(0 if ($2) else 1)"
}
graph() { "$IOGAP" libvirt graph "$DOM"; }

echo "1..23"

# ---- refused before any I/O ---------------------------------------------------------
run notrunning
[ $? = 1 ] && grep -q "is not running" "$WORK/notrunning.out"
ok $? "a domain that is not running: $(tail -2 "$WORK/notrunning.out" | head -1)"

start
run nopreload
[ $? = 1 ] && grep -q "not loaded" "$WORK/nopreload.out" &&
	grep -q "iogap libvirt enable $DOM" "$WORK/nopreload.out"
ok $? "without the preload, the enable command is named: $(head -1 "$WORK/nopreload.out")"
virsh destroy "$DOM" > /dev/null

"$IOGAP" libvirt enable "$DOM" > /dev/null || bail "enable failed"
start
wait_console '^IOGAP-QEMU-GA ' 600
ok $? "the guest started qemu-ga: $(grep -a '^IOGAP-QEMU-GA' "$WORK/console.log" | tr -d '\r')"
# libvirt sees the agent connect a moment later
for _ in $(seq 120); do
	virsh qemu-agent-command "$DOM" '{"execute":"guest-ping"}' > /dev/null 2>&1 && break
	sleep 1
done
graph > "$WORK/graph.before"

"$IOGAP" run --quiet --dir "$WORK/nodisk" --domain "$DOM" --disk vdx "$WORK/job.fio" \
	> "$WORK/nodisk.out" 2>&1
[ $? = 1 ] && grep -q "disk vdx not found" "$WORK/nodisk.out" && grep -q "vdb" "$WORK/nodisk.out"
ok $? "a disk the domain lacks: $(head -1 "$WORK/nodisk.out")"
graph | cmp -s - "$WORK/graph.before"
ok $? "the graph is as found after the refusals"

# ---- a run ------------------------------------------------------------------------------
run ok
rc=$?
sed 's/^/# /' "$WORK/ok.out"
[ $rc = 0 ] && manifest "$WORK/ok" 'm["phases"]["bare"]["status"] == "ok" == m["phases"]["vm"]["status"]'
ok $? "run --domain: both phases ok (exit $rc)"
manifest "$WORK/ok" 'm["target"]["spec"] == "file:'"$WORK"'/disk.img" and m["vm"]["domain"] == "'"$DOM"'"'
ok $? "bare metal ran on the disk's image file: $(mval "$WORK/ok" 'm["target"]["spec"]')"
manifest "$WORK/ok" 'm["pairing"]["exact"]["write"] == m["pairing"]["guest"]["write"] >= 300'
ok $? "every write paired by tag: $(mval "$WORK/ok" 'm["pairing"]["exact"]["write"], "of", m["pairing"]["guest"]["write"]')"
manifest "$WORK/ok" 'm["pairing"]["paired_bottom"]["write"] == m["pairing"]["guest"]["write"]'
ok $? "every write seen below the format node too"
python3 - "$WORK/ok/vm/blockstats.json" "$(mval "$WORK/ok" 'm["pairing"]["guest"]["write"]')" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))
d = b["delta"]
print("# delta:", d)
# QEMU counts the guest's requests at the device: at least the probe's
ok = d["wr_operations"] >= int(sys.argv[2]) and d["rd_operations"] >= 200 and \
    "wr_latency_histogram" in b["after"]
sys.exit(0 if ok else 1)
EOF
ok $? "vm/blockstats.json: QEMU counted at least the probe's writes and reads, with histograms"
"$(dirname "$0")/../install/validate.py" "$(dirname "$0")/../../docs/schemas/manifest-1.schema.json" \
	"$WORK/ok/manifest.json" > "$WORK/schema.err" 2>&1
ok $? "the manifest validates against manifest-1.schema.json $(head -3 "$WORK/schema.err")"
grep -q "QEMU's blockstats of vdb: reads [0-9]* (mean .* us), writes [0-9]* (mean" "$WORK/ok.out" &&
	grep -Eq "the top filter: +reads [0-9]+ \(mean .* us\), writes [0-9]+ \(mean" "$WORK/ok.out"
ok $? "the summary prints QEMU's numbers beside the top filter's"
"$IOGAP" report "$WORK/ok" > "$WORK/report.txt" 2>&1 && grep -qi "bare" "$WORK/report.txt"
ok $? "iogap report reads the run directory"
sed 's/^/# report: /' "$WORK/report.txt" | head -40
"$IOGAP" lint "$WORK/ok" > "$WORK/lint.txt" 2>&1
rc=$?
[ $rc -le 1 ] && grep -q "ok/vm: job 'w'" "$WORK/lint.txt" && grep -q "ok/bare: job 'w'" "$WORK/lint.txt"
ok $? "iogap lint reads both sides of the run directory (exit $rc: 1 when a finding is a warning)"
sed 's/^/# lint: /' "$WORK/lint.txt" | head -12
graph | cmp -s - "$WORK/graph.before" && [ -z "$(ls /dev/shm | grep -- '-iogap-.*vdb.ring$')" ]
ok $? "after the run the graph is as found, no ring left"

# ---- a disk on the virtio-scsi controller --------------------------------------------------
DISK=sda run scsi
rc=$?
sed 's/^/# scsi: /' "$WORK/scsi.out"
[ $rc = 0 ] && manifest "$WORK/scsi" 'm["phases"]["bare"]["status"] == "ok" == m["phases"]["vm"]["status"]' &&
	manifest "$WORK/scsi" 'm["target"]["spec"] == "file:'"$WORK"'/scsi.img" and m["vm"]["guest_dev"] == "/dev/sda"'
ok $? "run --domain on sda (virtio-scsi): both phases ok, the guest's /dev/sda (exit $rc)"
# a wrong guest device would leave the filter on sda without the probe's requests
manifest "$WORK/scsi" 'all(m["pairing"]["paired_top"][d] >= 0.9 * m["pairing"]["guest"][d] > 0 for d in ("read", "write"))'
ok $? "on sda at least 90% of reads and writes paired: $(mval "$WORK/scsi" 'm["pairing"]["paired_top"], "of", m["pairing"]["guest"]')"
"$IOGAP" report "$WORK/scsi" > "$WORK/scsi-report.txt" 2>&1 && ! grep -q "INCOMPLETE" "$WORK/scsi-report.txt" &&
	graph | cmp -s - "$WORK/graph.before"
ok $? "iogap report on the sda run: complete; the graph as found"

# ---- a read-only job: no tags, its reads bound the clock ---------------------------------------
printf '[r]\nioengine=libaio\ndirect=1\nbs=4k\niodepth=4\nsize=16m\nrw=randread\nnumber_ios=300\n' \
	> "$WORK/read.fio"
"$IOGAP" run --quiet --dir "$WORK/ro" --domain "$DOM" --disk vdb --vm-only "$WORK/read.fio" \
	> "$WORK/ro.out" 2>&1
rc=$?
[ $rc = 0 ] && manifest "$WORK/ro" 'm["clock"]["bound_pairs"] >= 0.9 * m["pairing"]["guest"]["read"] > 0'
ok $? "a read-only job's reads bound the clock (exit $rc): $(mval "$WORK/ro" \
	'm["clock"]["bound_pairs"], "pairs, width", m["clock"]["bound_width_ns"]') ns (with writes: \
$(mval "$WORK/ok" 'm["clock"]["bound_width_ns"]') ns)"

# ---- iogap killed mid-run ------------------------------------------------------------------
killed_run() {
	"$IOGAP" run --quiet --dir "$WORK/$1" --domain "$DOM" --disk vdb --vm-only "$WORK/long.fio" \
		> "$WORK/$1.out" 2>&1 &
	bg=$!
	for _ in $(seq 600); do graph | grep -q '^node iogap-top-vdb$' && break; sleep 0.5; done
	kill -9 "$bg"
	wait "$bg" 2> /dev/null
	bg=""
	graph | grep -c '^node iogap-'
}
left=$(killed_run killed1)
out=$("$IOGAP" libvirt cleanup "$DOM" 2>&1)
[ "$left" = 2 ] && [[ $out == *"2 iogap filter nodes removed"* ]] && graph | cmp -s - "$WORK/graph.before"
ok $? "killed mid-run: $left nodes left; cleanup removes them, graph as found: $out"

sleep 30   # the guest's probe of the killed run ends by itself (runtime=20)
left=$(killed_run killed2)
sleep 25   # its probe ends in the guest; its nodes stay
run next --vm-only
rc=$?
[ "$left" = 2 ] && [ $rc = 0 ] && grep -q "removed 2 iogap filter nodes an earlier run left" "$WORK/next.out" &&
	graph | cmp -s - "$WORK/graph.before"
ok $? "killed mid-run again: the next run removes the $left leftover nodes and succeeds (exit $rc)"
"$IOGAP" compare "$WORK/ok" "$WORK/next" > "$WORK/compare.txt" 2>&1 &&
	grep -qF "/ok  [vm+trace bare+trace]" "$WORK/compare.txt" &&
	grep -qF "/next  [vm+trace]" "$WORK/compare.txt"
ok $? "iogap compare reads two of them (the second --vm-only)"
grep -F '  [' "$WORK/compare.txt" | sed 's/^/# compare: /'

# ---- the guest agent gone ----------------------------------------------------------------------
virsh qemu-agent-command "$DOM" '{"execute":"guest-exec","arguments":{"path":"killall","arg":["qemu-ga"]}}' > /dev/null
sleep 5
run noagent
[ $? = 1 ] && grep -q "org.qemu.guest_agent.0" "$WORK/noagent.out" && graph | cmp -s - "$WORK/graph.before"
ok $? "no guest agent: $(head -1 "$WORK/noagent.out" | cut -c1-300)"
[ "$failed" = 0 ] || { tr -d '\r' < "$WORK/console.log" | grep -av '^\[' | tail -30 | sed 's/^/# console: /'; }
finish
