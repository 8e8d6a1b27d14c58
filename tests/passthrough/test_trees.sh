#!/bin/bash
# iogap passthrough check on the constructed host trees (trees/, made by
# mktrees.sh): each reports exactly its expected findings, nothing else, with
# the right exit status, in text and JSON alike; broken trees (a file
# missing or malformed) give a clear message and never a crash.
. "$(dirname "$0")/../tap.sh"
IOGAP=${IOGAP_BUILD:?}/host-tools/iogap
TREES=$(dirname "$0")/trees
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# codes ARGS...: "LEVEL code" of each finding, in order, into $got; exit status in $rc
codes() {
	"$IOGAP" passthrough check "$@" > "$WORK/out" 2> "$WORK/err"
	rc=$?
	got=$(sed -n 's/^\(INFO\|WARNING\|ERROR\) \([a-z0-9-]*\):.*/\1 \2/p' "$WORK/out" | paste -sd, -)
}
# expect TREE STATUS "LEVEL code,..." [ARGS...]
expect() {
	local tree=$1 status=$2 want=$3
	shift 3
	codes --root "$TREES/$tree" "$@"
	[ "$got" = "$want" ] && [ $rc = "$status" ]
	ok $? "$tree ${*:-}: exit $rc (want $status), findings: $got"
	[ "$got" = "$want" ] || echo "#   want: $want"
}

good="INFO iommu-mode,INFO interrupts,INFO numa,INFO msix,INFO hugepages"
echo "1..37"
expect good 0 "$good" --domain nvme-guest
expect group-shared 1 "WARNING iommu-group-shared,${good}" --domain nvme-guest
expect no-intremap 1 "INFO iommu-mode,WARNING no-interrupt-remapping,INFO numa,INFO msix,INFO hugepages" --domain nvme-guest
expect numa-remote 1 "INFO iommu-mode,INFO interrupts,WARNING numa-remote,WARNING numa-memory-remote,INFO msix,INFO hugepages" --domain nvme-guest
expect no-hugepages 1 "INFO iommu-mode,INFO interrupts,INFO numa,INFO msix,WARNING no-hugepages" --domain nvme-guest

# the shared group names the other endpoint, not the switch port (a bridge)
codes --root "$TREES/group-shared" --domain nvme-guest
grep -q 'with 1 other device: 0000:5f:00.0 \[8086:0a54\] driver nvme$' "$WORK/out"
ok $? "group-shared names 0000:5f:00.0 and its host driver, not the bridge 0000:5d:00.0"
codes --root "$TREES/no-intremap" --domain nvme-guest
grep -q 'intremap=off.*PCI-MSI chip, not IR-PCI-MSI.*allow_unsafe_interrupts=Y' "$WORK/out" &&
	grep -q '4061725 host interrupts, taken on CPUs 2$' "$WORK/out"
ok $? "no-intremap gives its evidence: command line, chip, allow_unsafe_interrupts, host interrupts"
codes --root "$TREES/numa-remote" --domain nvme-guest
grep -q 'CPU 0/KVM 4250 (CPUs 10)' "$WORK/out" && grep -q '0% of QEMU pid 4242.*bind:1' "$WORK/out"
ok $? "numa-remote names the vCPU threads and the memory's node"

# the same process by pid; the device from QEMU's command line, from --device
# (short form), or from vfio-pci's bindings without a process
expect good 0 "$good" --qemu-pid 4242
expect good 0 "$good" --qemu-pid 4242 --device 5e:00.0
expect good 0 "INFO iommu-mode,INFO interrupts,INFO msix,INFO no-qemu"
# JSON: the same findings and the verdict
"$IOGAP" passthrough check --root "$TREES/numa-remote" --domain nvme-guest --json > "$WORK/j"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
got = ",".join(f["level"] + " " + f["code"] for f in d["findings"])
assert d["pass"] == 0 and d["verdict"].startswith("fail"), d["verdict"]
assert got == sys.argv[2], got
assert all(f["why"] and f["do"] and f["message"] for f in d["findings"])
' "$WORK/j" "INFO iommu-mode,INFO interrupts,WARNING numa-remote,WARNING numa-memory-remote,INFO msix,INFO hugepages"
ok $? "--json: the same findings, each with message, why and do; pass 0"

# ---- variants made here: a copy of good with one thing changed ---------
fresh() { rm -rf "$WORK/t"; cp -a "$TREES/good" "$WORK/t"; }
D=sys/bus/pci/devices/0000:5e:00.0
# variant NAME STATUS "LEVEL code,..." PATTERN: after the change, with --domain
variant() {
	codes --root "$WORK/t" --domain nvme-guest
	[ "$got" = "$3" ] && [ $rc = "$2" ] && grep -q -- "$4" "$WORK/out"
	ok $? "$1: exit $rc (want $2), findings: $got"
	[ "$got" = "$3" ] || echo "#   want: $3"
}
fresh; echo N > "$WORK/t/sys/module/kvm_intel/parameters/enable_apicv"
variant "enable_apicv=N" 1 "INFO iommu-mode,WARNING no-posted-interrupts,INFO numa,INFO msix,INFO hugepages" \
	"no-posted-interrupts: 0000:5e:00.0: kvm_intel enable_apicv=N$"
fresh; for c in "$WORK"/t/proc/4242/task/*/comm; do echo qemu-system-x86 > "$c"; done
variant "threads unnamed" 0 "INFO iommu-mode,INFO interrupts,INFO vcpu-threads-unnamed,INFO numa,INFO msix,INFO hugepages" \
	"8 QEMU threads pinned there"
fresh; echo identity > "$WORK/t/sys/kernel/iommu_groups/38/type"
variant "identity default domain" 0 "$good" "default domain identity (passthrough: host drivers' DMA is not translated)"
fresh; ln -sfn ../../../../bus/pci/drivers/nvme "$WORK/t/$D/driver"
variant "bound to nvme" 1 "ERROR not-vfio,$good" "0000:5e:00.0 is bound to nvme, not vfio-pci"
# AMD: an IOMMU unit whose extended features have GASup (bit 7), kvm_amd avic
amd() {
	fresh; rm -r "$WORK/t/sys/class/iommu/"* "$WORK/t/sys/module/kvm_intel"
	mkdir -p "$WORK/t/sys/class/iommu/ivhd0/amd-iommu" "$WORK/t/sys/module/kvm_amd/parameters"
	echo 58f77ef22294ade > "$WORK/t/sys/class/iommu/ivhd0/amd-iommu/features"
	echo "$1" > "$WORK/t/sys/module/kvm_amd/parameters/avic"
}
amd 1
variant "AMD, avic=1" 0 "$good" "posted (AMD GA, avic=1)"
grep -q "^INFO iommu-mode: IOMMU ivhd0 (AMD-Vi)" "$WORK/out"
ok $? "...the IOMMU named AMD-Vi"
amd 0
variant "AMD, avic=0" 1 "INFO iommu-mode,WARNING no-posted-interrupts,INFO numa,INFO msix,INFO hugepages" \
	"no-posted-interrupts: 0000:5e:00.0: kvm_amd avic is off"
fresh; rm -r "$WORK/t/sys/bus/pci/drivers"
variant "no vfio-pci bindings: the device from QEMU's command line" 0 "$good" "0000:5e:00.0"
fresh; rm -r "$WORK/t/$D/msi_irqs"
variant "no MSI-X vector enabled" 1 "INFO iommu-mode,INFO interrupts,INFO numa,WARNING no-msi,INFO hugepages" \
	"msi_irqs lists no vector"

# ---- broken trees: a copy of good with one thing wrong -----------------
# broken NAME STATUS PATTERN [ARGS]: exit STATUS (never a crash) and PATTERN in the output
broken() {
	local name=$1 status=$2 pat=$3
	shift 3
	"$IOGAP" passthrough check --root "$WORK/t" "$@" > "$WORK/out" 2>&1
	rc=$?
	[ $rc = "$status" ] && grep -q -- "$pat" "$WORK/out"
	ok $? "$name: exit $rc (want $status), says '$pat'"
	[ $rc = "$status" ] || sed 's/^/#   /' "$WORK/out"
}
fresh; echo zzz > "$WORK/t/sys/class/iommu/dmar0/intel-iommu/ecap"
broken "ecap not hexadecimal" 1 "unreadable: /sys/class/iommu/dmar0: neither" --domain nvme-guest
grep -q "^WARNING no-interrupt-remapping: .*dmar0's capability registers are unreadable" "$WORK/out"
ok $? "...and interrupts are then not called remapped"
fresh; echo x > "$WORK/t/$D/numa_node"
broken "numa_node not a number" 1 "unreadable: /$D/numa_node: not a node number" --domain nvme-guest
fresh; echo 0- > "$WORK/t/$D/local_cpulist"
broken "local_cpulist cut short" 1 "unreadable: /$D/local_cpulist: not a CPU list" --domain nvme-guest
fresh; echo 0-99999 > "$WORK/t/sys/devices/system/node/online"
broken "node list beyond any machine" 1 "unreadable: /sys/devices/system/node/online" --domain nvme-guest
fresh; rm "$WORK/t/proc/interrupts"
broken "no /proc/interrupts" 1 "unreadable: /proc/interrupts: no CPU header line" --domain nvme-guest
fresh; head -c 100 "$TREES/good/proc/4242/smaps" > "$WORK/t/proc/4242/smaps"
broken "smaps cut in its first line" 1 "unreadable: /proc/4242/smaps: no mapping with a Size line" --domain nvme-guest
fresh; echo garbage > "$WORK/t/proc/4242/numa_maps"
broken "numa_maps without pages" 1 "unreadable: /proc/4242/numa_maps: no resident pages" --domain nvme-guest
fresh; sed -i '/^Cpus_allowed_list/d' "$WORK/t/proc/4242/task/4250/status"
broken "a vCPU's status without Cpus_allowed_list" 1 "unreadable: /proc/4242/task/4250: no Cpus_allowed_list" --domain nvme-guest
fresh; rm -r "$WORK/t/sys/kernel/iommu_groups/38/devices"
broken "group without its devices" 1 "unreadable: /sys/kernel/iommu_groups/38/devices" --domain nvme-guest
fresh; echo 42abc > "$WORK/t/run/libvirt/qemu/nvme-guest.pid"
broken "pid file not a pid" 2 "nvme-guest.pid: not a pid: '42abc'" --domain nvme-guest
fresh
broken "no such domain" 2 "domain 'other': no pid file" --domain other
broken "no such device" 1 "ERROR no-device: 0000:5e:00.1: no such PCI device" --device 0000:5e:00.1
broken "not a PCI address" 2 "not a PCI address" --device 5e:00
rm -rf "$WORK/t"; mkdir "$WORK/t"
broken "empty tree, a pid" 2 "QEMU pid 1: no such process" --qemu-pid 1
broken "empty tree, nothing given" 2 "no device to check: none given"
finish
