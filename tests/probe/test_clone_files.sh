#!/bin/bash
# Jobs without filename, beside fio 3.33: the files created (names and
# sizes) are fio's — one per numjobs clone when filename_format has $jobnum
# (the default "$jobname.$jobnum.$filenum"), in directory, each sized to its
# clone's region; one shared file otherwise.  Each clone works on its own
# file (verify reads back each), unlink=1 removes them all.
. "$(dirname "$0")/lib.sh"
echo "1..7"
FIO=${FIO:-fio}
cd "$WORK" || exit 1
J() { python3 -c 'import json,sys; jobs=json.load(open(sys.argv[1]))["jobs"]; print(eval(sys.argv[2]))' "$@"; }
files() { (cd "$1" && find . -type f -printf '%p:%s\n' | sort | tr '\n' ' '); }

mkdir p f
while read -r args; do
	mkdir -p p/sub f/sub
	# shellcheck disable=SC2086
	(cd p && "$PROBE" --name=c --size=16k --rw=write $args > /dev/null) &&
		(cd f && "$FIO" --name=c --size=16k --rw=write $args > /dev/null 2>&1)
	[ "$(files p)" = "$(files f)" ] && [ -n "$(files f)" ]
	ok $? "$args: fio's files: $(files f)"
	rm -rf p/* f/*
done <<'ARGS'
--numjobs=3
--numjobs=2 --filename_format=$jobname.$jobnum
--numjobs=3 --filename_format=$jobname.f$filenum
--numjobs=2 --directory=sub --offset_increment=8k
ARGS

"$PROBE" --output-format=json --name=v --size=16k --rw=randwrite --numjobs=2 --verify=crc32c \
	> v.json 2> v.err
[ "$(J v.json '[(j["error"], j["write"]["io_bytes"], j["read"]["io_bytes"]) for j in jobs]')" = \
	"[(0, 16384, 16384), (0, 16384, 16384)]" ] && [ ! -s v.err ] && [ -f v.0.0 ] && [ -f v.1.0 ]
ok $? "numjobs=2 with verify: each clone writes and verifies its own file, no shared-file warning"
"$PROBE" --trace=t.tr --name=t --size=16k --rw=write --numjobs=2 > /dev/null
"$PROBE" --dump-trace t.tr | grep -c ' op=write offset=0 ' | grep -qx 2
ok $? "both clones start at offset 0 of their own file (two writes at offset 0)"
"$PROBE" --name=u --size=16k --rw=write --numjobs=3 --unlink=1 > /dev/null
[ -z "$(ls u.* 2> /dev/null)" ]
ok $? "unlink=1 removes every clone's file"
finish
