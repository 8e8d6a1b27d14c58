#!/bin/sh
# ring= never destroys what it names: an existing device node, symlink
# (dangling or not) or file is refused with a message and left as it was; so
# is a directory that another user owns or may write into (not sticky), and a
# symlink another user planted in a shared sticky directory.  qemu-io exits 1
# (the open fails), nothing under the test directory changes and /dev/null is
# still the character device 1,3.  Over QMP the blockdev-add fails and QEMU
# keeps running.  Then: a ring in a sticky shared directory
# and one through the user's own symlinked directory are accepted.
. "$(dirname "$0")/lib.sh"
require_filter
plan 26

img=$work/disk.img
qemu-img create -q -f raw "$img" 4M
t=$work/t
mkdir "$t"
echo "decoy: must survive" >"$t/decoy.txt"
echo "an existing file" >"$t/existing.ring"
mknod "$t/cdev" c 1 3
ln -s decoy.txt "$t/link.ring"
ln -s "$t/notyet" "$t/dangling.ring"
mkdir -m 0777 "$t/open"
mkdir "$t/target" "$t/real"
mkdir -m 1777 "$t/shared"
ln -s "$t/real" "$t/mine"
root=no
[ "$(id -u)" = 0 ] && root=yes
if [ $root = yes ]; then
	mkdir "$t/other"
	chown 65534 "$t/other"
	ln -s "$t/target" "$t/shared/evil"
	chown -h 65534 "$t/shared/evil"   # planted by another user
fi

# everything under the test tree: names, types, sizes, modes, owners, links, contents
snapshot() {
	find "$t" -printf '%p %y %s %m %U %l\n' | sort
	find "$t" -type f -exec md5sum {} + | sort
}

devnull_intact() {
	[ -c /dev/null ] && [ "$(stat -c '%t,%T' /dev/null)" = 1,3 ]
}

# refused DESC RING MESSAGE: qemu-io exits 1 naming the reason; nothing changed
refused() {
	snapshot >"$work/before"
	qio -c 'write -q -P 7 0 4k' "json:$(j_top "$2" "$(j_file "$img")")" >"$work/out" 2>&1
	rc=$?
	[ $rc = 1 ] && grep -q -- "$3" "$work/out"
	ok $? "$1: refused, exit 1 (status $rc): $3" "$work/out"
	snapshot >"$work/after"
	diff "$work/before" "$work/after" >"$work/diff" && devnull_intact
	ok $? "$1: nothing changed (no ring left, nothing rewritten or removed), /dev/null intact" \
		"$work/diff"
}

refused "device node" "$t/cdev" "ring $t/cdev already exists (a character device)"
[ -c "$t/cdev" ] && [ "$(stat -c '%t,%T' "$t/cdev")" = 1,3 ]
ok $? "device node: still the character device 1,3"
refused "symlink to a file" "$t/link.ring" "ring $t/link.ring already exists (a symbolic link)"
[ -L "$t/link.ring" ] && [ "$(cat "$t/decoy.txt")" = "decoy: must survive" ]
ok $? "symlink: still a symlink, the decoy it points at unchanged"
refused "dangling symlink" "$t/dangling.ring" "already exists (a symbolic link)"
[ ! -e "$t/notyet" ]
ok $? "dangling symlink: its target was not created"
refused "existing file" "$t/existing.ring" "ring $t/existing.ring already exists (a regular file)"
grep -q 'never reuses, truncates or removes an existing file' "$work/out"
ok $? "existing file: the message says the filter never reuses an existing file" "$work/out"
refused "directory writable by others, not sticky" "$t/open/x.ring" \
	"ring directory $t/open is writable by other users and not sticky"
refused "missing directory" "$t/nodir/x.ring" "ring directory $t/nodir: No such file or directory"
if [ $root = yes ]; then
	refused "directory of another user" "$t/other/x.ring" \
		"ring directory $t/other belongs to uid 65534, neither to this user (uid 0) nor to root"
	refused "symlink planted in a shared sticky directory" "$t/shared/evil/x.ring" \
		"refusing to follow the symbolic link $t/shared/evil: it belongs to uid 65534, in the shared directory $t/shared"
	[ -z "$(ls -A "$t/target")" ]
	ok $? "planted symlink: nothing created where it points"
else
	for d in "directory of another user: refused" "directory of another user: nothing changed" \
		 "planted symlink: refused" "planted symlink: nothing changed" \
		 "planted symlink: nothing created where it points"; do
		skip "$d" "needs root (chown to another user)"
	done
fi

# the refusals leave the usual places alone too
LD_PRELOAD=$so qemu-io -c 'write -q 0 4k' \
	"json:$(j_top "$t/existing.ring" "$(j_file "$img")" '"ring-keep":false')" >"$work/out" 2>&1
[ $? = 1 ] && [ "$(cat "$t/existing.ring")" = "an existing file" ]
ok $? "ring-keep=false on a refused ring: the existing file is not removed either" "$work/out"

# QMP (the libvirt path): blockdev-add of the alias fails with the reason, QEMU keeps running
printf '%s\n' '{"execute":"qmp_capabilities"}' \
	"{\"execute\":\"blockdev-add\",\"arguments\":{\"driver\":\"file\",\"node-name\":\"f0\",\"filename\":\"$img\"}}" \
	'{"execute":"blockdev-add","arguments":{"driver":"compress","node-name":"top0","file":"f0"}}' \
	'{"execute":"query-status"}' '{"execute":"quit"}' |
	IOGAP_FILTER_ALIAS=compress IOGAP_FILTER_RING_DIR=$t/open LD_PRELOAD=$so timeout 60 \
	qemu-system-x86_64 -machine none -nodefaults -display none -qmp stdio >"$work/out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q '"error".*iogap: ring directory .*/open is writable by other users' "$work/out" &&
	grep -q '"status": "running"' "$work/out" && [ -z "$(ls -A "$t/open")" ]
ok $? "QMP blockdev-add: the error names the reason, QEMU keeps running (status $rc)" "$work/out"

# what is accepted: a ring of one's own in a sticky shared dir, through one's own symlink
qio -c 'write -q -P 7 0 4k' "json:$(j_top "$t/shared/mine.ring" "$(j_file "$img")")" \
	>"$work/out" 2>&1 && "$dump" "$t/shared/mine.ring" | grep -q '^write 0 4096 '
ok $? "a new ring in a sticky shared directory is accepted" "$work/out"
qio -c 'write -q -P 7 0 4k' "json:$(j_top "$t/mine/x.ring" "$(j_file "$img")")" \
	>"$work/out" 2>&1 && [ -f "$t/real/x.ring" ] && [ ! -L "$t/real/x.ring" ]
ok $? "a ring through the user's own symlinked directory is accepted" "$work/out"
(cd "$t/real" && qio -c 'write -q -P 7 0 4k' "json:$(j_top rel.ring "$(j_file "$img")")") \
	>"$work/out" 2>&1 && [ -f "$t/real/rel.ring" ]
ok $? "a relative ring name is created in the current directory" "$work/out"
finish
