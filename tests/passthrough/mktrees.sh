#!/bin/bash
# SPDX-License-Identifier: MIT
# Constructs the host trees under trees/ (committed; rerun only to change
# them): what scripts/passthrough-collect.sh copies from a 2-socket Intel
# host (16 CPUs, nodes 0-1, VT-d with interrupt remapping and posted
# interrupts) running QEMU pid 4242 (libvirt domain nvme-guest, 4 vCPUs,
# 8 GiB) with a Samsung PM1733 NVMe (144d:a824) at 0000:5e:00.0 assigned.
# No machine here has such a device: the files are hand-made in the kernel's
# formats (Linux 6.1: /proc/interrupts chip "IR-PCI-MSI", hwirq
# (bus<<8|devfn)<<11|vector; smaps/numa_maps fields; sysfs symlinks relative).
# Variants change one thing each: group-shared, no-intremap, numa-remote,
# no-hugepages.
set -eu
cd "$(dirname "$0")"
NCPU=16
BDF=0000:5e:00.0
PID=4242

put() { mkdir -p "$(dirname "$T/$1")"; printf '%s\n' "$2" > "$T/$1"; }
lnk() { mkdir -p "$(dirname "$T/$1")"; ln -sfn "$2" "$T/$1"; }

pci_dev() { # pci_dev BDF VENDOR DEVICE CLASS DRIVER SUBVEN SUBDEV PARENT
	local d=sys/bus/pci/devices/$1
	put "$d/vendor" "$2"; put "$d/device" "$3"; put "$d/class" "$4"
	put "$d/subsystem_vendor" "$6"; put "$d/subsystem_device" "$7"
	[ "$5" = - ] || lnk "$d/driver" "../../../../bus/pci/drivers/$5"
}

status() { # status FILE NAME TID CPUS
	cat > "$T/$1" <<EOF
Name:	$2
Umask:	0002
State:	S (sleeping)
Tgid:	$PID
Ngid:	0
Pid:	$3
PPid:	1
TracerPid:	0
Uid:	64055	64055	64055	64055
Gid:	64055	64055	64055	64055
FDSize:	128
Groups:	36 64055
NStgid:	$3
NSpid:	$3
NSpgid:	$PID
NSsid:	$PID
VmPeak:	11873948 kB
VmSize:	11808412 kB
VmLck:	8388608 kB
VmPin:	0 kB
VmHWM:	8562716 kB
VmRSS:	8562716 kB
RssAnon:	8513564 kB
RssFile:	49152 kB
RssShmem:	0 kB
VmData:	8840012 kB
VmStk:	132 kB
VmExe:	6204 kB
VmLib:	31316 kB
VmPTE:	17112 kB
VmSwap:	0 kB
HugetlbPages:	0 kB
CoreDumping:	0
THP_enabled:	1
Threads:	8
SigQ:	0/63379
SigPnd:	0000000000000000
ShdPnd:	0000000000000000
SigBlk:	0000000010002240
SigIgn:	0000000000001000
SigCgt:	0000000100004243
CapInh:	0000000000000000
CapPrm:	0000000000000000
CapEff:	0000000000000000
CapBnd:	0000000000000000
CapAmb:	0000000000000000
NoNewPrivs:	0
Seccomp:	2
Seccomp_filters:	1
Speculation_Store_Bypass:	thread vulnerable
SpeculationIndirectBranch:	conditional enabled
Cpus_allowed:	$(cpumask "$4")
Cpus_allowed_list:	$4
Mems_allowed:	00000000,00000003
Mems_allowed_list:	0-1
voluntary_ctxt_switches:	1532
nonvoluntary_ctxt_switches:	12
EOF
}
cpumask() { # 2-5 -> 003c (16 CPUs)
	local m=0 a b part
	IFS=, read -ra parts <<< "$1"
	for part in "${parts[@]}"; do
		a=${part%-*}; b=${part#*-}
		for ((i = a; i <= b; i++)); do m=$((m | 1 << i)); done
	done
	printf '%04x' "$m"
}

qemu() { # qemu VCPU_CPUS EMU_CPUS
	local p=proc/$PID tid=4250 i
	put "run/libvirt/qemu/nvme-guest.pid" "$PID"
	mkdir -p "$T/$p"
	printf '%s\0' /usr/bin/qemu-system-x86_64 -name guest=nvme-guest,debug-threads=on -S \
		-machine pc-q35-7.2,usb=off,dump-guest-core=off,memory-backend=pc.ram \
		-accel kvm -cpu host,migratable=on -m 8192 \
		-object '{"qom-type":"memory-backend-file","id":"pc.ram","mem-path":"/dev/hugepages/libvirt/qemu/1-nvme-guest","x-use-canonical-path-for-ramblock-id":false,"prealloc":true,"size":8589934592,"host-nodes":[0],"policy":"bind"}' \
		-smp 4,sockets=1,dies=1,cores=4,threads=1 \
		-device '{"driver":"vfio-pci","host":"0000:5e:00.0","id":"hostdev0","bus":"pci.5","addr":"0x0"}' \
		-msg timestamp=on > "$T/$p/cmdline"
	status "$p/status" qemu-system-x86 $PID "$2"
	for n in "qemu-system-x86 $PID $2" "call_rcu 4243 $2" "IO mon_iothread 4249 $2" \
		"CPU 0/KVM 4250 ${1%%,*}" "CPU 1/KVM 4251 $(cut -d, -f2 <<< "$1")" \
		"CPU 2/KVM 4252 $(cut -d, -f3 <<< "$1")" "CPU 3/KVM 4253 $(cut -d, -f4 <<< "$1")" \
		"vfio-irq 4260 $2"; do
		tid=$(awk '{print $(NF-1)}' <<< "$n")
		put "$p/task/$tid/comm" "$(awk '{NF-=2; print}' <<< "$n")"
		status "$p/task/$tid/status" "$(awk '{NF-=2; print}' <<< "$n")" "$tid" "$(awk '{print $NF}' <<< "$n")"
	done
}

# smaps: the QEMU binary, its heap, guest RAM (8 GiB) as given, libc, stack
smaps_block() { # RANGE PERMS OFFSET DEV INODE PATH SIZE KPS RSS ANONHUGE HUGETLB FLAGS
	printf '%-73s %s\n' "$1 $2 $3 $4 $5" "$6"
	local anon=$9; [ "${6:0:1}" = / ] && [ "$6" = "${6#/dev/hugepages}" ] && anon=0
	cat <<EOF
Size:           $(printf '%8d' "$7") kB
KernelPageSize: $(printf '%8d' "$8") kB
MMUPageSize:    $(printf '%8d' "$8") kB
Rss:            $(printf '%8d' "$9") kB
Pss:            $(printf '%8d' "$9") kB
Pss_Dirty:      $(printf '%8d' "$anon") kB
Shared_Clean:          0 kB
Shared_Dirty:          0 kB
Private_Clean:  $(printf '%8d' $(( $9 - anon ))) kB
Private_Dirty:  $(printf '%8d' "$anon") kB
Referenced:     $(printf '%8d' "$9") kB
Anonymous:      $(printf '%8d' "$anon") kB
LazyFree:              0 kB
AnonHugePages:  $(printf '%8d' "${10}") kB
ShmemPmdMapped:        0 kB
FilePmdMapped:         0 kB
Shared_Hugetlb:        0 kB
Private_Hugetlb: $(printf '%7d' "${11}") kB
Swap:                  0 kB
SwapPss:               0 kB
Locked:                0 kB
THPeligible:    $( [ "${10}" != 0 ] && echo 1 || echo 0)
VmFlags: ${12}
EOF
}
smaps() { # smaps hugetlbfs|thp|4k
	local f=$T/proc/$PID/smaps
	{
		smaps_block 55d0c6a00000-55d0c6f0f000 r-xp 00000000 fe:01 1318024 /usr/bin/qemu-system-x86_64 5180 4 4620 0 0 "rd ex mr mw me sd"
		smaps_block 55d0c8104000-55d0c8f7e000 rw-p 00000000 00:00 0 '[heap]' 14824 4 13312 0 0 "rd wr mr mw me ac sd"
		case $1 in
		hugetlbfs) smaps_block 7f1a40000000-7f1c40000000 rw-s 00000000 00:2d 4161284 '/dev/hugepages/libvirt/qemu/1-nvme-guest/qemu_back_mem.pc.ram.Wq2Vxv (deleted)' 8388608 2048 0 0 8388608 "rd wr sh mr mw me ms de ht sd" ;;
		thp) smaps_block 7f1a3fe00000-7f1c3fe00000 rw-p 00000000 00:00 0 '' 8388608 4 8388608 8376320 0 "rd wr mr mw me ac sd hg" ;;
		4k) smaps_block 7f1a3fe00000-7f1c3fe00000 rw-p 00000000 00:00 0 '' 8388608 4 8388608 0 0 "rd wr mr mw me ac sd nh" ;;
		esac
		smaps_block 7f1c41c28000-7f1c41dbd000 r-xp 00026000 fe:01 1312390 /usr/lib/x86_64-linux-gnu/libc.so.6 1620 4 1380 0 0 "rd ex mr mw me sd"
		smaps_block 7ffd1e0a3000-7ffd1e0c4000 rw-p 00000000 00:00 0 '[stack]' 132 4 36 0 0 "rd wr mr mw me gd ac"
	} > "$f"
}
numa_maps() { # numa_maps hugetlbfs|thp|4k NODE
	local n=N$2
	cat > "$T/proc/$PID/numa_maps" <<EOF
55d0c6a00000 default file=/usr/bin/qemu-system-x86_64 mapped=1155 active=0 N0=812 N1=343 kernelpagesize_kB=4
55d0c8104000 default heap anon=3328 dirty=3328 active=0 N0=3001 N1=327 kernelpagesize_kB=4
$(case $1 in
hugetlbfs) echo "7f1a40000000 bind:$2 file=/dev/hugepages/libvirt/qemu/1-nvme-guest/qemu_back_mem.pc.ram.Wq2Vxv\\040(deleted) huge dirty=4096 $n=4096 kernelpagesize_kB=2048" ;;
thp) echo "7f1a3fe00000 bind:$2 anon=2097152 dirty=2097152 active=0 $n=2097152 kernelpagesize_kB=4" ;;
4k) echo "7f1a3fe00000 bind:$2 anon=2097152 dirty=2097152 active=0 $n=2097152 kernelpagesize_kB=4" ;;
esac)
7f1c41c28000 default file=/usr/lib/x86_64-linux-gnu/libc.so.6 mapped=345 mapmax=98 N0=201 N1=144 kernelpagesize_kB=4
7ffd1e0a3000 default stack anon=9 dirty=9 active=0 N0=9 kernelpagesize_kB=4
EOF
}

irq_row() { # irq_row IRQ "counts (16)" CHIP HWIRQ NAME
	printf '%4s:' "$1"
	for c in $2; do printf ' %10s' "$c"; done
	printf '  %-18s %s  %s\n' "$3" "$4" "$5"
}
interrupts() { # interrupts IR-|"" VFIO_COUNT_ON_CPU2
	local z="0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0" ir=$1 k
	{
		printf '     '; for ((c = 0; c < NCPU; c++)); do printf '%11s' "CPU$c"; done; echo
		irq_row 0 "44 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0" "${ir}IO-APIC" 2-edge timer
		irq_row 8 "$z" "${ir}IO-APIC" 8-edge rtc0
		irq_row 9 "0 4 0 0 0 0 0 0 0 0 0 0 0 0 0 0" "${ir}IO-APIC" 9-fasteoi acpi
		irq_row 24 "$z" DMAR-MSI 0-edge dmar0
		irq_row 25 "$z" DMAR-MSI 1-edge dmar1
		irq_row 26 "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0" "${ir}PCI-MSI" 458752-edge "PCIe PME, pciehp"
		irq_row 41 "0 0 0 0 1795 0 0 0 0 0 0 0 0 0 0 0" "${ir}PCI-MSI" 1572864-edge eno1
		for k in 0 1 2 3 4; do
			irq_row $((150 + k)) "0 0 $2 0 0 0 0 0 0 0 0 0 0 0 0 0" "${ir}PCI-MSI" $((49283072 + k))-edge "vfio-msix[$k]($BDF)"
		done
		printf 'NMI:'; for ((c = 0; c < NCPU; c++)); do printf ' %10s' 31; done; echo '   Non-maskable interrupts'
		printf 'LOC:'; for ((c = 0; c < NCPU; c++)); do printf ' %10s' $((40213 + c * 97)); done; echo '   Local timer interrupts'
		printf 'PIN:'; for ((c = 0; c < NCPU; c++)); do printf ' %10s' 0; done; echo '   Posted-interrupt notification event'
		printf 'NPI:'; for ((c = 0; c < NCPU; c++)); do printf ' %10s' 0; done; echo '   Nested posted-interrupt event'
		printf 'PIW:'; for ((c = 0; c < NCPU; c++)); do printf ' %10s' 0; done; echo '   Posted-interrupt wakeup event'
		printf 'ERR:          0\nMIS:          0\n'
	} > "$T/proc/interrupts"
}

cpuinfo() {
	local c
	for ((c = 0; c < NCPU; c++)); do
		cat <<EOF
processor	: $c
vendor_id	: GenuineIntel
cpu family	: 6
model		: 85
model name	: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz
stepping	: 7
microcode	: 0x5003604
cpu MHz		: 2100.000
cache size	: 28160 KB
physical id	: $((c / 8))
siblings	: 8
core id		: $((c % 8))
cpu cores	: 8
apicid		: $((c / 8 * 64 + c % 8 * 2))
fpu		: yes
fpu_exception	: yes
cpuid level	: 22
wp		: yes
flags		: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon pebs bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf pni pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid dca sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch cpuid_fault epb cat_l3 cdp_l3 invpcid_single intel_ppin ssbd mba ibrs ibpb stibp ibrs_enhanced tpr_shadow vnmi flexpriority ept vpid ept_ad fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms invpcid cqm mpx rdt_a avx512f avx512dq rdseed adx smap clflushopt clwb intel_pt avx512cd avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local dtherm ida arat pln pts pku ospke avx512_vnni md_clear flush_l1d arch_capabilities
vmx flags	: vnmi preemption_timer posted_intr invvpid ept_x_only ept_ad ept_1gb flexpriority apicv tsc_offset vtpr mtf vapic ept vpid unrestricted_guest vapic_reg vid ple shadow_vmcs pml ept_mode_based_exec tsc_scaling
bugs		: spectre_v1 spectre_v2 spec_store_bypass swapgs taa itlb_multihit mmio_stale_data retbleed eibrs_pbrsb gds
bogomips	: 4200.00
clflush size	: 64
cache_alignment	: 64
address sizes	: 46 bits physical, 48 bits virtual
power management:

EOF
	done > "$T/proc/cpuinfo"
}

# good: the device alone in group 38 on node 0, vCPUs pinned to node 0's
# CPUs 2-5, emulator threads on 0-1, 8 GiB in 2 MiB hugetlbfs pages bound to
# node 0, interrupts remapped and posted (no host interrupts on vfio lines).
base() {
	T=trees/$1
	rm -rf "$T"
	mkdir -p "$T"
	put proc/cmdline "BOOT_IMAGE=/boot/vmlinuz-6.1.0-27-amd64 root=UUID=3f1b0c7e-5a0e-4b8e-9d36-2c7f4c1d9e21 ro quiet intel_iommu=on"
	cpuinfo
	interrupts IR- 0
	put sys/devices/system/node/online 0-1
	put sys/module/vfio_iommu_type1/parameters/allow_unsafe_interrupts N
	put sys/module/kvm_intel/parameters/enable_apicv Y
	for u in dmar0 dmar1; do
		put "sys/class/iommu/$u/intel-iommu/cap" 8d2078c106f0466
		put "sys/class/iommu/$u/intel-iommu/ecap" f020df
	done
	lnk "sys/bus/pci/drivers/vfio-pci/$BDF" "../../../../devices/pci0000:5d/0000:5d:00.0/$BDF"
	pci_dev $BDF 0x144d 0xa824 0x010802 vfio-pci 0x144d 0xa801
	put "sys/bus/pci/devices/$BDF/numa_node" 0
	put "sys/bus/pci/devices/$BDF/local_cpulist" 0-7
	lnk "sys/bus/pci/devices/$BDF/iommu_group" ../../../../kernel/iommu_groups/38
	for k in 0 1 2 3 4; do put "sys/bus/pci/devices/$BDF/msi_irqs/$((150 + k))" msix; done
	put sys/kernel/iommu_groups/38/type DMA-FQ
	lnk "sys/kernel/iommu_groups/38/devices/$BDF" "../../../../devices/pci0000:5d/0000:5d:00.0/$BDF"
	qemu 2,3,4,5 0-1
	smaps hugetlbfs
	numa_maps hugetlbfs 0
}

base good

# group-shared: a PCIe switch without ACS puts a second NVMe (Intel P4510,
# bound to the host's nvme driver) and the switch's port in group 38
base group-shared
for d in 0000:5d:00.0 0000:5f:00.0; do
	lnk "sys/kernel/iommu_groups/38/devices/$d" "../../../../devices/pci0000:5d/$d"
done
pci_dev 0000:5d:00.0 0x10b5 0x8747 0x060400 pcieport 0x10b5 0x8747
pci_dev 0000:5f:00.0 0x8086 0x0a54 0x010802 nvme 0x8086 0x4802

# no-intremap: the kernel runs with intremap=off and VFIO was told to accept
# that; the device's vectors are plain PCI-MSI and every interrupt goes
# through the host (here 812k of them on CPU 2)
base no-intremap
put proc/cmdline "BOOT_IMAGE=/boot/vmlinuz-6.1.0-27-amd64 root=UUID=3f1b0c7e-5a0e-4b8e-9d36-2c7f4c1d9e21 ro quiet intel_iommu=on intremap=off"
put sys/module/vfio_iommu_type1/parameters/allow_unsafe_interrupts Y
interrupts "" 812345

# numa-remote: vCPUs pinned to node 1 (CPUs 10-13) and guest memory bound
# to node 1, the device on node 0
base numa-remote
qemu 10,11,12,13 8-9
numa_maps hugetlbfs 1

# no-hugepages: guest RAM anonymous, 4 KiB pages, THP off for it (nh)
base no-hugepages
smaps 4k
numa_maps 4k 0

# guest-assigned: the guest tree recorded in a TCG guest with QEMU's NVMe
# (trees/guest-qemu-nvme, scripts/passthrough-collect.sh --guest), its NVMe
# given a Samsung PM1733's IDs as an assigned one has, and mq-deadline
T=trees/guest-assigned
rm -rf "$T"
cp -a trees/guest-qemu-nvme "$T"
D=sys/bus/pci/devices/0000:00:05.0
put "$D/vendor" 0x144d; put "$D/device" 0xa824
put "$D/subsystem_vendor" 0x144d; put "$D/subsystem_device" 0xa801
put sys/block/nvme0n1/queue/scheduler "none [mq-deadline] "
