# Shared helpers for the guest (VM) TAP tests: boot the guest built by
# images/ through images/boot-smoke (TCG, -machine pc, virtio-blk serial
# iogap0, virtio-serial port iogap.ctl).
# shellcheck shell=bash
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
diag() { sed 's/^/# /' "$@"; }

BUILD=${IOGAP_BUILD:?IOGAP_BUILD not set}
SRC=${IOGAP_SRC:?IOGAP_SRC not set}
BOOT=$SRC/images/boot-smoke
# bail REASON: the test cannot run; that fails it (QEMU is a dependency, the
# guest image is built before the vm tests run)
bail() { echo "Bail out! $1"; exit 1; }
command -v "${QEMU:-qemu-system-x86_64}" > /dev/null ||
	bail "qemu-system-x86_64 not installed (Debian package qemu-system-x86)"
[ -f "$BUILD/images/vmlinux" ] && [ -f "$BUILD/images/initramfs.cpio" ] ||
	bail "guest image not built ($BUILD/images/vmlinux)"
# disk images need O_DIRECT (cache=none): work under the build dir, not /tmp
WORK=$(mktemp -d "$BUILD/test-vm-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# boot LOG [boot-smoke options...]: boots once, console in LOG, status of boot-smoke
boot() {
	local log=$1; shift
	"$BOOT" --build "$BUILD" --quiet --log "$log" "$@" > "$log.summary" 2>&1
	local rc=$?
	sed 's/^/# /' "$log.summary"
	return $rc
}
# between LOG BEGIN END: the console lines between two marker lines
between() { sed -n "/^$2\$/,/^$3\$/{/^$2\$/d;/^$3\$/d;p}" "$1"; }
