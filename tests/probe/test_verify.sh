#!/bin/bash
# verify= beside fio 3.33: without write tags the blocks are fio's byte for
# byte (each verifies what the other wrote), a writing job reads back what
# it wrote (fio's do_verify pass, counted as reads), a changed byte fails
# the job with EILSEQ as in fio, continue_on_error=verify and verify_fatal
# as fio; with write tags (--trace) the tags stay where the filter reads
# them and the data still verifies.
. "$(dirname "$0")/lib.sh"
echo "1..35"
FIO=${FIO:-fio}
cd "$WORK" || exit 1
J() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]; print(eval(sys.argv[2]))' "$@"; }

for v in crc32c md5 xxhash crc64 crc32 crc16 crc7 meta; do
	"$FIO" --name=w --filename=f.$v --size=256k --bs=8k --rw=randwrite --verify=$v --do_verify=0 \
		> /dev/null 2>&1 &&
	"$PROBE" --output-format=json --name=r --filename=f.$v --bs=8k --rw=read --verify=$v > r.json
	[ $? = 0 ] && [ "$(J r.json 'j["read"]["io_bytes"]')" = 262144 ]
	ok $? "verify=$v: the probe verifies all 256k fio wrote"
	"$PROBE" --name=w --filename=p.$v --size=256k --bs=8k --rw=randwrite --verify=$v --do_verify=0 \
		> /dev/null &&
	"$FIO" --output-format=json --name=r --filename=p.$v --bs=8k --rw=read --verify=$v > rf.json 2>&1
	[ $? = 0 ] && [ "$(J rf.json '(j["error"], j["read"]["io_bytes"])')" = "(0, 262144)" ]
	ok $? "verify=$v: fio verifies all 256k the probe wrote"
done

"$PROBE" --output-format=json --name=w --filename=wv.dat --size=256k --rw=randwrite --verify=md5 > w.json &&
	"$FIO" --output-format=json --name=w --filename=wvf.dat --size=256k --rw=randwrite --verify=md5 > wf.json
q='(j["error"], j["write"]["io_bytes"], j["read"]["io_bytes"], j["read"]["total_ios"])'
[ "$(J w.json "$q")" = "$(J wf.json "$q")" ] && [ "$(J w.json "$q")" = "(0, 262144, 262144, 64)" ]
ok $? "a writing job reads back all it wrote (fio's do_verify), reported as reads: $(J w.json "$q"), fio $(J wf.json "$q")"
"$PROBE" --output-format=json --name=w --filename=wv.dat --size=256k --rw=write --verify=md5 --do_verify=0 \
	--loops=2 > n.json
[ "$(J n.json '(j["write"]["io_bytes"], j["read"]["io_bytes"])')" = "(524288, 0)" ]
ok $? "do_verify=0: no read-back"
"$PROBE" --output-format=json --name=w --filename=wv.dat --size=256k --rw=write --verify=crc32c --loops=2 \
	--ioengine=libaio --iodepth=8 --direct=1 > l.json
[ "$(J l.json '(j["error"], j["write"]["io_bytes"], j["read"]["io_bytes"])')" = "(0, 524288, 524288)" ]
ok $? "loops=2 at iodepth=8 (libaio): each pass is read back after it"

"$FIO" --name=w --filename=c.dat --size=64k --rw=write --verify=crc32c --do_verify=0 > /dev/null 2>&1
printf 'X' | dd of=c.dat bs=1 seek=1000 conv=notrunc 2> /dev/null
printf 'X' | dd of=c.dat bs=1 seek=30000 conv=notrunc 2> /dev/null
"$PROBE" --output-format=json --name=r --filename=c.dat --rw=read --verify=crc32c > c.json 2> c.err
rc=$?
"$FIO" --name=r --filename=c.dat --rw=read --verify=crc32c > /dev/null 2>&1
frc=$?
[ $rc = 1 ] && [ $frc = 1 ] && [ "$(J c.json '(j["error"], j["read"]["total_ios"])')" = "(84, 1)" ] &&
	grep -q '^crc32c: verify failed at file c.dat offset 0, length 4096 (requested block: offset=0, length=4096)$' c.err
ok $? "a changed byte: the job fails with EILSEQ at the first bad block, as fio ($(head -1 c.err))"
q='(j["total_err"], j["first_error"], j["read"]["total_ios"])'
"$PROBE" --output-format=json --name=r --filename=c.dat --rw=read --verify=crc32c --continue_on_error=verify \
	> c.json 2> /dev/null
rc=$?
"$FIO" --output-format=json --name=r --filename=c.dat --rw=read --verify=crc32c --continue_on_error=verify \
	> cf.json 2> /dev/null
[ $rc = 0 ] && [ "$(J c.json "$q")" = "$(J cf.json "$q")" ] && [ "$(J c.json "$q")" = "(2, 84, 16)" ]
ok $? "continue_on_error=verify: both bad blocks counted, the job goes on, as fio: $(J c.json "$q")"
"$PROBE" --output-format=json --name=r --filename=c.dat --rw=read --verify=crc32c --continue_on_error=verify \
	--verify_fatal=1 > c.json 2> /dev/null
"$FIO" --output-format=json --name=r --filename=c.dat --rw=read --verify=crc32c --continue_on_error=verify \
	--verify_fatal=1 > cf.json 2> /dev/null
[ "$(J c.json "$q")" = "$(J cf.json "$q")" ] && [ "$(J c.json "$q")" = "(1, 84, 1)" ]
ok $? "verify_fatal=1: the job stops at the first bad block, as fio: $(J c.json "$q")"
"$PROBE" --name=r --filename=f.md5 --bs=16k --rw=read --verify=md5 > /dev/null 2> b.err
[ $? = 1 ] && grep -q '^verify: bad header length 8192, wanted 16384 at file f.md5 offset 0' b.err
ok $? "read with another block size: fio's header length message ($(head -1 b.err))"

# verify_only: fio's dry run of the writes, then the read-back of all of them
"$FIO" --name=w --filename=vo.dat --size=64k --rw=randwrite --verify=crc32c > /dev/null 2>&1
sum=$(md5sum < vo.dat)
"$PROBE" --trace=vo.tr --output-format=json --name=w --filename=vo.dat --size=64k --rw=randwrite \
	--verify=crc32c --verify_only > vo.json
[ $? = 0 ] && [ "$(J vo.json '(j["read"]["io_bytes"], j["write"]["io_bytes"])')" = "(65536, 0)" ] &&
	[ "$(md5sum < vo.dat)" = "$sum" ] && ! "$PROBE" --dump-trace vo.tr | grep -q ' op=write '
ok $? "verify_only: the 64k fio wrote is read back and checked, nothing written or traced as written"
! "$PROBE" --parse-only --name=w --rw=write --verify=md5 --verify_only --runtime=1 --time_based 2> vt.err &&
	grep -q "verify_only does not support time_based" vt.err
ok $? "verify_only with time_based is refused: $(cat vt.err)"

# verify_backlog: the same writes and read-backs, in the same order, as
# fio's write_iolog (synchronous engine)
for args in "--verify_backlog=4" "--verify_backlog=4 --verify_backlog_batch=2"; do
	# shellcheck disable=SC2086
	"$PROBE" --trace=b.tr --name=w --filename=b.dat --size=64k --rw=randwrite --verify=crc32c $args \
		> /dev/null &&
		"$FIO" --write_iolog=b.log --name=w --filename=bf.dat --size=64k --rw=randwrite \
			--verify=crc32c $args > /dev/null 2>&1
	seq=$("$PROBE" --dump-trace b.tr | sed -n 's/.* op=\([a-z]\).*/\1/p' | tr -d '\n')
	fseq=$(awk '$3 == "read" || $3 == "write" {printf "%s", substr($3, 1, 1)}' b.log)
	[ "$seq" = "$fseq" ] && [ "${#seq}" = 32 ]
	ok $? "$args: fio's order of writes and read-backs ($fseq)"
	rm -f b.log
done

# write tags (on with --trace): every 4 KiB still starts with its tag
for bs in 4k 64k 512; do
	"$PROBE" --trace=t.tr --output-format=json --name=w --filename=t.dat --size=256k --bs=$bs \
		--rw=randwrite --verify=xxhash --ioengine=libaio --iodepth=4 > t.json &&
		"$IOGAP_BUILD/tests/probe/check_tags" t.tr t.dat > tags.txt &&
		"$PROBE" --name=r --filename=t.dat --bs=$bs --rw=randread --verify=xxhash > /dev/null
	[ $? = 0 ] && [ "$(J t.json '(j["error"], j["read"]["io_bytes"])')" = "(0, 262144)" ]
	ok $? "bs=$bs with write tags: $(cat tags.txt), verified by its read-back and by a later read job"
	rm -f t.dat
done

# fio prints them when it sets the job up (not with --parse-only); the probe
# when it checks the options, --parse-only included
"$PROBE" --parse-only --name=w --filename=x --rw=write --verify=md5 --numjobs=2 --runtime=1 --time_based \
	> /dev/null 2> p.err
"$FIO" --name=w --filename=x --size=8k --rw=write --verify=md5 --numjobs=2 --runtime=10ms --time_based \
	2>&1 | grep '^fio: \(multiple\|verification\)' | sort -u > pf.err
[ "$(wc -l < pf.err)" = 2 ] && sort -u p.err | diff pf.err - > /dev/null
ok $? "fio's two verify warnings (several writers, time_based), word for word"
! "$PROBE" --parse-only --name=w --verify=sha384 2> s.err && grep -q "option 'verify': bad value 'sha384'" s.err
ok $? "verify=sha384 (not one of fio's) is refused by name: $(cat s.err)"
# verify_pattern with verify=meta (fio's t0006): the pattern from each
# buffer's start, checked after each header; files interchange with fio's
"$FIO" --name=vf --filename=vpf.dat --size=64k --rw=write --verify=meta --verify_pattern=0xaaa \
	--do_verify=0 > /dev/null 2>&1 &&
	"$PROBE" --name=vf --filename=vpf.dat --size=64k --rw=read --verify=meta --verify_pattern=0xaaa > /dev/null &&
	"$PROBE" --name=vp --filename=vp.dat --size=64k --rw=write --verify=meta --verify_pattern=0xaaa \
		--do_verify=0 > /dev/null &&
	"$FIO" --name=vp --filename=vp.dat --size=64k --rw=read --verify=meta --verify_pattern=0xaaa > /dev/null 2>&1
ok $? "verify=meta verify_pattern=0xaaa: the probe checks fio's file, fio checks the probe's"
printf 'Z' | dd of=vp.dat bs=1 seek=5000 conv=notrunc status=none
! "$PROBE" --name=vp --filename=vp.dat --size=64k --rw=read --verify=meta --verify_pattern=0xaaa \
	> /dev/null 2> vp.err && grep -q "got pattern '5a', wanted '0a'" vp.err
ok $? "a changed byte after the header fails the pattern check: $(head -1 vp.err)"
"$FIO" --name=vf --filename=vpa.dat --size=64k --rw=write --verify_pattern=0xaaa --do_verify=0 \
	--verify_state_save=0 > /dev/null 2>&1 &&
	"$PROBE" --name=vf --filename=vpa.dat --size=64k --rw=read --verify_pattern=0xaaa > /dev/null
ok $? "verify_pattern without verify= (fio's header, then the pattern): the probe checks fio's file"
finish
