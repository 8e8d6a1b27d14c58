#!/bin/bash
# The Debian package end to end (CI, as root, after make check): build it
# with dpkg-buildpackage from a clean copy of the tracked files, lintian
# without errors, `apt-get install ./iogap_*.deb`, then `iogap demo` and a
# short `iogap run` from /usr/bin in a directory with no build tree, using
# only the installed pieces; man pages, completion, schemas installed; the
# package removed again at the end.
# Environment: IOGAP_QEMU_CACHE (prepared QEMU headers; default: the source
# tree's build/qemu-headers when it exists, else they are prepared anew).
. "$(dirname "$0")/../tap.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (apt-get install)"; exit 0; }
W=$(mktemp -d /var/tmp/iogap-deb-XXXXXX)
installed_here=false
cleanup() {
	$installed_here && apt-get remove --purge -y -qq iogap > /dev/null 2>&1
	rm -rf "$W"
}
trap cleanup EXIT
if [ -z "${IOGAP_QEMU_CACHE:-}" ] && compgen -G "$SRC/build/qemu-headers/*/qemu-headers.env" > /dev/null; then
	export IOGAP_QEMU_CACHE=$SRC/build/qemu-headers
fi
# manifest DIR PYTHON-EXPR: true when EXPR holds for m = DIR/manifest.json
manifest() { python3 -c "import json,sys; m=json.load(open('$1/manifest.json')); sys.exit(0 if ($2) else 1)"; }

echo "1..12"
if dpkg-query -W -f='${Status}' iogap 2> /dev/null | grep -q "install ok installed"; then
	echo "Bail out! iogap is already installed: this test installs and removes its own package"
	exit 1
fi
mkdir -p "$W/src"
(cd "$SRC" && git ls-files -z | xargs -0 tar -cf - --no-recursion) | tar -xf - -C "$W/src"
(cd "$W/src" && dpkg-buildpackage -b -us -uc) > "$W/build.log" 2>&1
rc=$?
ok $rc "dpkg-buildpackage -b -us -uc from a clean copy ($(cd "$W" && echo ./*.deb))"
[ $rc = 0 ] || tail -n 20 "$W/build.log" | sed 's/^/# /'
rm -rf "$W/src"   # no build tree from here on
lintian --fail-on error "$W"/iogap_*_amd64.changes > "$W/lintian.log" 2>&1
ok $? "lintian: no errors ($(grep -c '^[EW]:' "$W/lintian.log") warnings/errors: $(grep '^[EW]:' "$W/lintian.log" | cut -d' ' -f3 | sort -u | tr '\n' ' '))"
dpkg-deb -f "$W"/iogap_*_amd64.deb Depends | grep -q "qemu-system-x86 (= $(dpkg-query -W -f='${Version}' qemu-system-x86))"
ok $? "the package depends on exactly the installed QEMU ($(dpkg-query -W -f='${Version}' qemu-system-x86))"
(cd "$W" && apt-get install -y -qq ./iogap_*_amd64.deb) > "$W/apt.log" 2>&1
rc=$?
[ $rc = 0 ] && installed_here=true
ok $rc "apt-get install ./iogap_*.deb"
[ "$(command -v iogap)" = /usr/bin/iogap ] && [ -x /usr/bin/iogap-probe ] && [ -x /usr/bin/iogap-ring ] &&
	[ -f /usr/lib/x86_64-linux-gnu/iogap/iogap-filter.so ] && [ -f /usr/lib/x86_64-linux-gnu/iogap/vmlinux ]
ok $? "iogap, iogap-probe, iogap-ring in /usr/bin; the filter and the guest in /usr/lib/x86_64-linux-gnu/iogap"
man -w iogap > /dev/null && man -w iogap-probe > /dev/null && man -w 7 iogap-filter > /dev/null &&
	[ -f /usr/share/bash-completion/completions/iogap ] && [ -f /usr/share/doc/iogap/schemas/manifest-1.schema.json ]
ok $? "man pages, bash completion and JSON schemas are installed"

cd "$W" || exit 1
env -u IOGAP_PROBE -u IOGAP_FILTER_SO -u IOGAP_KERNEL -u IOGAP_INITRD \
	iogap demo --accel tcg --dir "$W/demo" > "$W/demo.out" 2>&1
rc=$?
ok $rc "iogap demo from /usr/bin ($(grep -c '^verdict: ' "$W/demo.out") verdicts)"
[ $rc = 0 ] || tail -n 20 "$W/demo.out" | sed 's/^/# /'
manifest "$W/demo" 'm["vm"]["kernel"].startswith("/usr/lib/x86_64-linux-gnu/iogap/") and m["vm"]["filter"].startswith("/usr/lib/x86_64-linux-gnu/iogap/")'
ok $? "the demo booted the installed guest with the installed filter"

# a short run in a pseudo-terminal: every phase's progress line
printf '[r]\nrw=randread\nbs=4k\nioengine=libaio\ndirect=1\niodepth=4\nsize=32m\nruntime=2\ntime_based=1\n' > job.fio
truncate -s 64M disk.img
env -u IOGAP_PROBE -u IOGAP_FILTER_SO -u IOGAP_KERNEL -u IOGAP_INITRD \
	script -q -e -c "iogap run --accel tcg --dir $W/run --target file:$W/disk.img job.fio" "$W/run.tty" > /dev/null
ok $? "a short iogap run from /usr/bin"
missing=""
for p in "bare metal" "VM boot" "VM job" "draining" "analysis"; do
	grep -qE $'\e\\[Kiogap: (phase [0-9]+ of [0-9]+: )?'"$p"' [0-9.]* s' "$W/run.tty" || missing="$missing '$p'"
done
[ -z "$missing" ]
ok $? "its progress lines on the terminal: bare metal, VM boot, VM job, draining, analysis${missing:+; missing:$missing}"
python3 - /usr/share/doc/iogap/schemas/manifest-1.schema.json "$W/run/manifest.json" <<'PY'
import json, sys
import jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])),
                    cls=jsonschema.Draft202012Validator)
PY
ok $? "the run's manifest validates against the installed schema"

apt-get remove --purge -y -qq iogap > "$W/remove.log" 2>&1 && installed_here=false
[ ! -e /usr/bin/iogap ] && [ ! -e /usr/lib/x86_64-linux-gnu/iogap ]
ok $? "apt-get remove --purge iogap leaves nothing behind"
finish
