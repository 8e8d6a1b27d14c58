# Shared by the libvirt tests: libvirtd started when it does not run (and
# only what was started stopped), a TCG domain from a guest image, the
# console.
# shellcheck shell=bash
# shellcheck source=tests/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
BUILD=${IOGAP_BUILD:?IOGAP_BUILD not set}
IOGAP=$BUILD/host-tools/iogap
export LIBVIRT_DEFAULT_URI=qemu:///system
bail() { echo "Bail out! $1"; exit 1; }
[ "$(id -u)" = 0 ] || bail "needs root (libvirtd for qemu:///system)"
[ -f "$BUILD/qemu-filter/iogap-filter.so" ] || bail "iogap-filter.so not built"
virsh() { command virsh -q "$@"; }

started=()
WORK=$(mktemp -d "$BUILD/test-libvirt-XXXXXX")
DOM=iogap-test-$$
lv_cleanup() {
	virsh destroy "$DOM" > /dev/null 2>&1
	virsh undefine "$DOM" > /dev/null 2>&1
	for pid in "${started[@]}"; do kill "$pid" 2> /dev/null; done
	rm -rf "$WORK"
}
trap lv_cleanup EXIT
# the QEMU user (libvirt-qemu) reads the kernel, the script, the image
chmod 755 "$WORK"

# daemon NAME: start it unless it runs (as root, no systemd: docs/architecture.md)
daemon() {
	local pidfile=/run/$1.pid
	if [ -s "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2> /dev/null; then return 0; fi
	"$1" -d || bail "$1 -d failed"
	for _ in $(seq 50); do [ -s "$pidfile" ] && break; sleep 0.1; done
	started+=("$(cat "$pidfile")")
}
daemon virtlogd
daemon libvirtd
for _ in $(seq 100); do virsh list > /dev/null 2>&1 && break; sleep 0.2; done

# define_domain IMAGE-DIR DEVICES: a TCG domain booting IMAGE-DIR's vmlinux and
# initramfs.cpio in shell-cmd mode ($WORK/cmd.sh through fw_cfg), $WORK/disk.img
# (64 MiB) as vdb, the console in $WORK/console.log, plus DEVICES (XML); the
# guest loads the modules $GUEST_MODULES (a,b) names.
define_domain() {
	truncate -s 64M "$WORK/disk.img"
	cat > "$WORK/dom.xml" <<EOF
<domain type='qemu'>
  <name>$DOM</name>
  <memory unit='MiB'>512</memory>
  <vcpu>1</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>$1/vmlinux</kernel>
    <initrd>$1/initramfs.cpio</initrd>
    <cmdline>console=ttyS0 quiet panic=-1 iogap_mode=shell-cmd iogap_timeout=3000${GUEST_MODULES:+ iogap_modules=$GUEST_MODULES}</cmdline>
  </os>
  <features><acpi/></features>
  <sysinfo type='fwcfg'>
    <entry name='opt/iogap/cmd' file='$WORK/cmd.sh'/>
  </sysinfo>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <disk type='file' device='disk'>
      <driver name='qemu' type='raw' cache='none' io='native' discard='unmap'/>
      <source file='$WORK/disk.img'/>
      <target dev='vdb' bus='virtio'/>
      <serial>iogap0</serial>
    </disk>
    <serial type='file'>
      <source path='$WORK/console.log'/>
      <target port='0'/>
    </serial>
$2
    <memballoon model='none'/>
  </devices>
</domain>
EOF
	virsh define "$WORK/dom.xml" > /dev/null || bail "virsh define failed"
}

# wait_console PATTERN SECONDS
wait_console() {
	for _ in $(seq $(($2 * 5))); do
		grep -q "$1" "$WORK/console.log" 2> /dev/null && return 0
		sleep 0.2
	done
	return 1
}
