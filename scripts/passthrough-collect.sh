#!/bin/sh
# SPDX-License-Identifier: MIT
# Copy exactly the sysfs/procfs files `iogap passthrough check` reads into a
# tree OUT_DIR (same paths below it), to check later or elsewhere with
# `iogap passthrough check --root OUT_DIR` (docs/passthrough.md, "Trees").
#
# usage: passthrough-collect.sh [--domain DOMAIN | --qemu-pid PID] [--device BDF]... OUT_DIR
#        passthrough-collect.sh --guest OUT_DIR
#   host (default): the devices given, else those on QEMU's command line,
#     else every device bound to vfio-pci; QEMU's status, cmdline, threads,
#     numa_maps and smaps when a process is given.
#   --guest: inside the guest: every PCI device's IDs, NVMe queues,
#     scheduler and polling settings.  POSIX sh: runs under busybox.
# Files are copied with their contents (cat), the symlinks the check reads
# as names (driver, iommu_group, group members) as symlinks, directories it
# only lists as directories holding a .keep file; a file that cannot be read
# is left out and named on stderr (the check then says so).
set -u

guest=0 domain="" pid="" devices="" out=""
while [ $# -gt 0 ]; do
	case $1 in
	--guest) guest=1 ;;
	--domain) domain=$2; shift ;;
	--qemu-pid) pid=$2; shift ;;
	--device) devices="$devices $2"; shift ;;
	-h | --help) sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "passthrough-collect: unknown option $1" >&2; exit 2 ;;
	*) out=$1 ;;
	esac
	shift
done
[ -n "$out" ] || { echo "passthrough-collect: no OUT_DIR (--help)" >&2; exit 2; }
mkdir -p "$out" || exit 2

copy() { # copy PATH...: regular files, by content
	for f in "$@"; do
		[ -e "$f" ] || continue
		mkdir -p "$out${f%/*}"
		cat "$f" > "$out$f" 2> /dev/null || { rm -f "$out$f"; echo "passthrough-collect: $f unreadable" >&2; }
	done
}
link() { # link PATH...: symlinks, as symlinks
	for f in "$@"; do
		[ -L "$f" ] || continue
		mkdir -p "$out${f%/*}"
		ln -sfn "$(readlink "$f")" "$out$f"
	done
}
# a directory the check lists (mq/N, nvme/nvmeN): with a .keep file, so that
# git keeps it empty of anything else (the check skips names starting with '.')
dir() { for d in "$@"; do [ -d "$d" ] && mkdir -p "$out$d" && : > "$out$d/.keep"; done; }
bdf_of() { # 01:00.0 -> 0000:01:00.0
	case $1 in ????:??:??.?) echo "$1" ;; *) echo "0000:$1" ;; esac
}

pci_ids() { # the IDs of one device
	d=/sys/bus/pci/devices/$1
	copy "$d/vendor" "$d/device" "$d/class" "$d/subsystem_vendor" "$d/subsystem_device"
	link "$d/driver"
}

collect_guest() {
	copy /proc/interrupts /sys/devices/system/cpu/online /sys/module/nvme/parameters/poll_queues
	for d in /sys/bus/pci/devices/*; do
		[ -e "$d" ] || continue
		pci_ids "${d##*/}"
		for c in "$d"/nvme/nvme*; do
			[ -e "$c" ] || continue
			dir "$c"
			for ns in /sys/block/"${c##*/}"n*; do
				[ -e "$ns" ] || continue
				for q in "$ns"/mq/*; do dir "$q"; done
				copy "$ns/queue/scheduler" "$ns/queue/io_poll" "$ns/queue/io_poll_delay"
			done
		done
	done
}

collect_device() {
	d=/sys/bus/pci/devices/$1
	pci_ids "$1"
	copy "$d/numa_node" "$d/local_cpulist"
	link "$d/iommu_group"
	copy "$d"/msi_irqs/*
	g=$(readlink "$d/iommu_group" 2> /dev/null) || return 0
	g=/sys/kernel/iommu_groups/${g##*/}
	copy "$g/type"
	for m in "$g"/devices/*; do
		link "$m"
		pci_ids "${m##*/}"
	done
}

collect_host() {
	if [ -n "$domain" ]; then
		copy "/run/libvirt/qemu/$domain.pid"
		pid=$(cat "/run/libvirt/qemu/$domain.pid" 2> /dev/null) ||
			{ echo "passthrough-collect: no pid file for domain $domain" >&2; exit 2; }
	fi
	copy /proc/cmdline /proc/interrupts /proc/cpuinfo /sys/devices/system/node/online \
		/sys/module/vfio_iommu_type1/parameters/allow_unsafe_interrupts \
		/sys/module/kvm_intel/parameters/enable_apicv /sys/module/kvm_amd/parameters/avic
	for u in /sys/class/iommu/*; do
		[ -e "$u" ] || continue
		dir "$u"
		copy "$u/intel-iommu/cap" "$u/intel-iommu/ecap" "$u/amd-iommu/features"
	done
	for v in /sys/bus/pci/drivers/vfio-pci/*:*; do link "$v"; done
	if [ -n "$pid" ]; then
		p=/proc/$pid
		[ -d "$p" ] || { echo "passthrough-collect: no process $pid" >&2; exit 2; }
		copy "$p/status" "$p/cmdline" "$p/numa_maps" "$p/smaps"
		for t in "$p"/task/*; do copy "$t/comm" "$t/status"; done
		[ -n "$devices" ] || devices=$(tr '\0' '\n' < "$p/cmdline" | grep vfio-pci |
			sed -n 's/.*host[=":]*\([0-9a-fA-F:.]*\).*/\1/p')
	fi
	[ -n "$devices" ] || devices=$(ls /sys/bus/pci/drivers/vfio-pci 2> /dev/null | grep :)
	for b in $devices; do collect_device "$(bdf_of "$b")"; done
}

if [ $guest = 1 ]; then collect_guest; else collect_host; fi
