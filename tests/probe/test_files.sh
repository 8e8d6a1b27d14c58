#!/bin/bash
# Several files per job, beside fio 3.33: the files created (names, sizes)
# for nrfiles, filename=a:b, directory=d1:d2, filename_format, filesize;
# and the file and offset of every I/O, from fio's write_iolog and the
# probe's trace (file.N.K info lines, file= in the dump), for each
# file_service_type, openfiles, io_size beyond size and loops.  Random
# choices use other generators than fio's: there the test compares what
# fio guarantees (files in turn, each block once; the hottest file).
. "$(dirname "$0")/lib.sh"
FIO=${FIO:-fio}
command -v "$FIO" > /dev/null || skip_all "fio is not installed"
echo "1..38"
cd "$WORK" || exit 1
files() { (cd "$1" && find . -type f ! -name '*.log' ! -name '*.tr' -printf '%p:%s\n' | sort | tr '\n' ' '); }

# the I/O sequence "file op offset length" of fio (its iolog) ...
fio_seq() {
	(cd f && "$FIO" --name=j "$@" --write_iolog=io.log > /dev/null 2>&1 &&
		awk 'NF == 5 && ($3 == "write" || $3 == "read") { n = split($2, a, "/"); print a[n], $3, $4, $5 }' io.log)
}
# ... and of the probe (its trace: file index from the offset's high bits)
probe_seq() {
	(cd p && "$PROBE" --name=j "$@" --trace=t.tr > /dev/null && "$PROBE" --dump-trace t.tr) |
		awk '/^info: file\.0\./ { split($2, kv, "="); split(kv[1], k, "."); n = split(kv[2], a, "/"); name[k[3]] = a[n] }
		     /^info: job\.0=/ { n = split($0, a, "filename="); m = split(a[2], b, "/"); if (!(0 in name)) name[0] = b[m] }
		     /^record / && ($4 == "op=write" || $4 == "op=read") {
			f = 0; o = $5
			if ($5 ~ /^file=/) { f = substr($5, 6); o = $6 }
			l = $0; sub(/.* length=/, "", l); sub(/ .*/, "", l)
			print name[f], substr($4, 4), substr(o, 8), l }'
}
fresh() { rm -rf f p && mkdir -p f/d1 f/d2 p/d1 p/d2; }
hottest() { cut -d' ' -f1 | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }'; }

while read -r args; do
	fresh
	# shellcheck disable=SC2086
	(cd p && "$PROBE" --name=c --rw=write $args > /dev/null) &&
		(cd f && "$FIO" --name=c --rw=write $args > /dev/null 2>&1)
	[ "$(files p)" = "$(files f)" ] && [ -n "$(files f)" ]
	ok $? "$args: fio's files: $(files f)"
done <<'ARGS'
--nrfiles=3 --size=13k --bs=1k
--nrfiles=3 --numjobs=3 --size=12k --directory=d1:d2
--filename=a:b\:c::d --size=8k
--directory=d1:d2 --filename=a:b --numjobs=2 --size=8k
--nrfiles=2 --numjobs=2 --filename_format=x.$filenum --size=8k
--nrfiles=2 --filesize=3k --bs=1k
--filename=fs --filesize=64k --offset=16k
--nrfiles=2 --numjobs=2 --size=8k --offset_increment=4k
--nrfiles=2 --size=8k --create_only=1 --create_fsync=0 --create_serialize=0 --fallocate=posix
ARGS

# the same files and offsets, in the same order, as fio
while read -r args; do
	fresh
	# shellcheck disable=SC2086
	fio_seq $args > f.seq
	# shellcheck disable=SC2086
	probe_seq $args > p.seq
	cmp -s f.seq p.seq && [ -s f.seq ]
	ok $? "$args: fio's $(wc -l < f.seq) I/Os, file by file$(cmp -s f.seq p.seq || diff f.seq p.seq | head -4 | tr '\n' ' ')"
done <<'ARGS'
--nrfiles=3 --size=13k --bs=1k --rw=write
--nrfiles=3 --size=13k --bs=1k --rw=read
--nrfiles=3 --size=12k --bs=1k --rw=write --file_service_type=sequential
--nrfiles=3 --size=12k --bs=1k --rw=write --file_service_type=roundrobin:2
--nrfiles=4 --openfiles=2 --size=8k --bs=1k --rw=write
--nrfiles=3 --openfiles=2 --size=12k --bs=1k --rw=write --file_service_type=roundrobin:3
--nrfiles=3 --openfiles=1 --size=12k --bs=1k --rw=write --file_service_type=sequential:2
--filename=a:b\:c --size=8k --bs=2k --rw=write
--nrfiles=2 --size=8k --io_size=16k --bs=1k --rw=write
--nrfiles=2 --size=8k --bs=1k --rw=write --loops=2
--nrfiles=2 --filesize=3k --bs=1k --rw=write
--filesize=64k --offset=16k --rw=write
--nrfiles=3 --size=12k --bs=1k --rw=write --ioengine=libaio --iodepth=4
--nrfiles=2 --size=16k --bs=1k --rw=write --ioengine=vsync --iodepth=4 --file_service_type=roundrobin:4
--nrfiles=3 --size=12k --bs=1k --rw=read --ioengine=mmap
ARGS

# random offsets: the files in fio's turn, each block of each file once
fresh
fio_seq --nrfiles=3 --size=12k --bs=1k --rw=randwrite > f.seq
probe_seq --nrfiles=3 --size=12k --bs=1k --rw=randwrite > p.seq
cmp -s <(cut -d' ' -f1 f.seq) <(cut -d' ' -f1 p.seq) && cmp -s <(sort f.seq) <(sort p.seq) && [ -s f.seq ]
ok $? "randwrite over 3 files: fio's file order, every block of each file once"
# random file choice (4 I/Os per pick): each file done once, as fio
fresh
fio_seq --nrfiles=4 --size=16k --bs=1k --rw=write --file_service_type=random:4 > f.seq
probe_seq --nrfiles=4 --size=16k --bs=1k --rw=write --file_service_type=random:4 > p.seq
cmp -s <(sort f.seq) <(sort p.seq) && [ -s f.seq ] &&
	[ "$(uniq -c < <(cut -d' ' -f1 p.seq) | awk '$1 % 4' | wc -l)" = 0 ]
ok $? "file_service_type=random:4: every block of every file once, 4 I/Os per pick"
# skewed choices with a center: the hottest file is fio's
for t in zipf:1.2:0 pareto:0.3:0.5 normal:10:0.125; do
	fresh
	hf=$(fio_seq --nrfiles=4 --size=64k --bs=1k --rw=write --file_service_type=$t | hottest)
	hp=$(probe_seq --nrfiles=4 --size=64k --bs=1k --rw=write --file_service_type=$t | hottest)
	[ -n "$hf" ] && [ "$hf" = "$hp" ]
	ok $? "file_service_type=$t: the hottest file is fio's ($hf, probe $hp)"
done

# verify reads back each file; a corrupted block is reported in its file
cd p || exit 1
"$PROBE" --output-format=json --name=v --nrfiles=3 --size=24k --rw=randwrite --verify=crc32c \
	> v.json 2> v.err
python3 -c 'import json,sys; j=json.load(open("v.json"))["jobs"][0]; sys.exit(not (j["error"] == 0 and j["read"]["io_bytes"] == j["write"]["io_bytes"] == 24576))' &&
	[ ! -s v.err ]
ok $? "verify=crc32c over 3 files: every write read back and checked"
"$PROBE" --name=v --nrfiles=3 --size=24k --rw=write --verify=crc32c --do_verify=0 > /dev/null &&
	printf 'XXXX' | dd of=v.0.1 bs=1 seek=5000 conv=notrunc status=none
! "$PROBE" --name=v --nrfiles=3 --size=24k --rw=read --verify=crc32c --verify_dump=1 > /dev/null 2> r.err &&
	grep -q 'v.0.1' r.err && ! grep -q 'v.0.0\|v.0.2' r.err &&
	cmp -s v.0.1.4096.received <(dd if=v.0.1 bs=4096 skip=1 count=1 status=none)
ok $? "a corrupted block of v.0.1 fails verify, naming that file; verify_dump=1 writes it to v.0.1.4096.received: $(head -1 r.err)"
"$PROBE" --name=e --nrfiles=2 --size=64k --rw=randwrite --loops=2 --do_verify=1 --verify=md5 \
	--experimental_verify=1 --output-format=json > e.json 2> e.err
python3 -c 'import json,sys; j=json.load(open("e.json"))["jobs"][0]; sys.exit(not (j["error"] == 0 and j["read"]["io_bytes"] == j["write"]["io_bytes"] == 131072))' &&
	[ ! -s e.err ]
ok $? "experimental_verify=1 (fio's t0026): each loop's writes read back over 2 files"

# layout: refused before writing when the files do not fit
! "$PROBE" --name=big --nrfiles=4 --filesize=1000t --rw=write > /dev/null 2> err.big &&
	grep -q "does not fit" err.big && [ -z "$(ls big.* 2> /dev/null)" ]
ok $? "4 files of 1000 TiB: refused before any is created ($(head -c 160 err.big))"
third=$(( $(df --output=avail -B1 . | tail -1) / 3 / 4096 * 4096 ))
! "$PROBE" --name=sum --nrfiles=4 --filesize="$third" --rw=write > /dev/null 2> err.sum &&
	grep -q "does not fit" err.sum && [ -z "$(ls sum.* 2> /dev/null)" ]
ok $? "4 files of a third of the free space each: their total is refused, none created"
"$PROBE" --name=u --nrfiles=3 --size=12k --rw=write --unlink=1 > /dev/null
[ -z "$(ls u.* 2> /dev/null)" ]
ok $? "unlink=1 removes each of the job's files"

# open flags as fio's (generic_open_file): a device with O_NOATIME, a regular file without
noatime() { # TARGET TOOL...: "1" if the tool's open TARGET has O_NOATIME while its job runs
	local target=$1 flags="" fd
	shift
	"$@" --name=o --filename="$target" --rw=read --bs=4k --size=1m --time_based --runtime=2 \
		> /dev/null 2>&1 &
	for _ in $(seq 30); do
		sleep 0.1
		fd=$(find /proc/[0-9]*/task/*/fd -lname "$target" -print -quit 2> /dev/null)
		[ -n "$fd" ] && flags=$(awk '/^flags:/ { print $2 }' "${fd%/fd/*}/fdinfo/${fd##*/}")
		[ -n "$flags" ] && break
	done
	wait
	[ -n "$flags" ] && echo $(( (8#$flags & 8#1000000) != 0 ))
}
head -c 1m /dev/zero > "$WORK/reg"
if mknod "$WORK/cdev" c 1 5 2> /dev/null; then   # /dev/zero's numbers, a path of the test's own
	dev_p=$(noatime "$WORK/cdev" "$PROBE") dev_f=$(noatime "$WORK/cdev" "$FIO")
	[ "$dev_p" = 1 ] && [ "$dev_f" = 1 ]
	ok $? "a character device opens with O_NOATIME, as in fio (probe ${dev_p:-not seen}, fio ${dev_f:-not seen})"
else
	skip "a character device opens with O_NOATIME" "mknod is not permitted here (not root)"
fi
reg_p=$(noatime "$WORK/reg" "$PROBE") reg_f=$(noatime "$WORK/reg" "$FIO")
[ "$reg_p" = 0 ] && [ "$reg_f" = 0 ]
ok $? "a regular file opens without O_NOATIME, as in fio (probe ${reg_p:-not seen}, fio ${reg_f:-not seen})"

# zonefs' file-append job (create_on_open=0 allow_file_create=0 file_append=1):
# each run writes past the current end of a regular file, as fio does; only a
# device has a hard end
append_size() { # append_size TOOL: the file's size after two appending runs
	rm -f app.dat && head -c 256k /dev/urandom > app.dat &&
	for _ in 1 2; do
		"$1" --name=a --filename=app.dat --ioengine=psync --rw=write --bs=64k --size=128k \
			--create_on_open=0 --allow_file_create=0 --file_append=1 --verify=md5 > /dev/null || return 1
	done && stat -c %s app.dat
}
app_p=$(append_size "$PROBE") app_f=$(append_size "$FIO")
[ "$app_p" = 524288 ] && [ "$app_p" = "$app_f" ]
ok $? "file_append=1 on a regular file grows it by size a run, as fio (probe ${app_p:-failed}, fio ${app_f:-failed})"

finish
