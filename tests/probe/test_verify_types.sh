#!/bin/bash
# verify= with fio 3.33's SHA family and its patterns: each file fio
# writes the probe verifies and each the probe writes fio verifies; a
# changed byte fails both with fio's message; verify_pattern (0x hex,
# "string", %o: the block's offset) with verify=pattern (the pattern
# alone), alone (fio's header, then the pattern) and beside a checksum;
# with write tags (--trace) the tags stay where the filter reads them.
. "$(dirname "$0")/lib.sh"
echo "1..37"
FIO=${FIO:-fio}
cd "$WORK" || exit 1
J() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]; print(eval(sys.argv[2]))' "$@"; }
# fio's first failure line, without its ", flags=N)" tail
first_fail() { grep -m1 'verify failed at' "$1" | sed 's/ (requested block.*//'; }
NS=--verify_state_save=0

for v in sha1 sha256 sha512 sha3-224 sha3-256 sha3-384 sha3-512; do
	"$FIO" --name=w --filename=f.$v --size=256k --bs=8k --rw=randwrite --verify=$v --do_verify=0 \
		$NS > /dev/null 2>&1 &&
	"$PROBE" --output-format=json --name=r --filename=f.$v --bs=8k --rw=read --verify=$v > r.json
	[ $? = 0 ] && [ "$(J r.json 'j["read"]["io_bytes"]')" = 262144 ]
	ok $? "verify=$v: the probe verifies all 256k fio wrote"
	"$PROBE" --name=w --filename=p.$v --size=256k --bs=8k --rw=randwrite --verify=$v --do_verify=0 \
		$NS > /dev/null &&
	"$FIO" --output-format=json --name=r --filename=p.$v --bs=8k --rw=read --verify=$v > rf.json 2>&1
	[ $? = 0 ] && [ "$(J rf.json '(j["error"], j["read"]["io_bytes"])')" = "(0, 262144)" ]
	ok $? "verify=$v: fio verifies all 256k the probe wrote"
	# byte 268: data after the largest header (sha512's 168 bytes), among
	# the bytes fio's sha512 keeps (data[88..128) of 8024: sha.h)
	printf 'X' | dd of=f.$v bs=1 seek=$((16384 + 268)) conv=notrunc status=none
	"$PROBE" --name=r --filename=f.$v --bs=8k --rw=read --verify=$v > /dev/null 2> c.err
	rc=$?
	"$FIO" --name=r --filename=f.$v --bs=8k --rw=read --verify=$v > cf.err 2>&1
	frc=$?
	want="$v: verify failed at file f.$v offset 16384, length 8192"
	[ $rc = 1 ] && [ $frc = 1 ] && [ "$(first_fail c.err)" = "$want" ] && [ "$(first_fail cf.err)" = "$want" ]
	ok $? "verify=$v: a changed byte fails both, fio's message: $(first_fail c.err)"
done
# fio's sha512 keeps the data's first and last bytes, no digest (sha.h):
# a change in the middle of a block passes both
"$FIO" --name=w --filename=m.dat --size=64k --bs=8k --rw=write --verify=sha512 --do_verify=0 $NS \
	> /dev/null 2>&1
printf 'X' | dd of=m.dat bs=1 seek=4000 conv=notrunc status=none
"$PROBE" --name=r --filename=m.dat --bs=8k --rw=read --verify=sha512 > /dev/null 2>&1 &&
	"$FIO" --name=r --filename=m.dat --bs=8k --rw=read --verify=sha512 > /dev/null 2>&1
ok $? "verify=sha512: a byte changed mid-block passes fio and the probe alike (fio stores no digest)"

# verify_pattern: each form, written by one and checked by the other
pat_case() {   # DESCRIPTION SAME|HEADER ARGS...: SAME: the files must be equal
	local what=$1 same=$2
	shift 2
	rm -f pf.dat pp.dat
	"$FIO" --name=w --filename=pf.dat --size=64k --bs=4k --rw=randwrite --do_verify=0 $NS "$@" \
		> /dev/null 2>&1 &&
		"$PROBE" --name=r --filename=pf.dat --size=64k --bs=4k --rw=read "$@" > /dev/null
	ok $? "$what: the probe verifies fio's file"
	"$PROBE" --name=w --filename=pp.dat --size=64k --bs=4k --rw=randwrite --do_verify=0 $NS "$@" \
		> /dev/null &&
		{ [ "$same" = HEADER ] || cmp -s pf.dat pp.dat; } &&
		"$FIO" --name=r --filename=pp.dat --size=64k --bs=4k --rw=read "$@" > /dev/null 2>&1
	ok $? "$what: fio verifies the probe's file$([ "$same" = SAME ] && echo ", equal to its own")"
}
pat_case "verify=pattern 0xdeadbeef" SAME --verify=pattern --verify_pattern=0xdeadbeef
pat_case "verify=pattern \"string\"" SAME --verify=pattern '--verify_pattern="iogap"'
pat_case "verify=pattern 0xaa%o\"z\" (the offset)" SAME --verify=pattern '--verify_pattern=0xaa%o"z"'
pat_case "verify_pattern alone (header, then pattern)" HEADER --verify_pattern=0x5a
pat_case "verify=md5 with verify_pattern %o" HEADER --verify=md5 --verify_pattern=%o
# %o: 0xaa, the block's offset in 8 bytes little-endian, then "z"
"$PROBE" --name=w --filename=o.dat --size=64k --bs=4k --rw=write --do_verify=0 $NS --verify=pattern \
	'--verify_pattern=0xaa%o"z"' > /dev/null
[ "$(od -An -tx1 -j 12288 -N 10 o.dat | tr -d ' \n')" = aa00300000000000007a ]
ok $? "%o: the block at 12288 starts 0xaa, 12288 in 8 bytes little-endian, 'z': $(od -An -tx1 -j 12288 -N 10 o.dat)"

# a changed byte in a pattern block: fio's lines
"$FIO" --name=w --filename=c.dat --size=64k --bs=4k --rw=write --verify=pattern --verify_pattern=0x0f \
	--do_verify=0 $NS > /dev/null 2>&1
printf '\x0e' | dd of=c.dat bs=1 seek=$((8192 + 100)) conv=notrunc status=none
"$PROBE" --name=r --filename=c.dat --bs=4k --rw=read --verify=pattern --verify_pattern=0x0f \
	> /dev/null 2> c.err
rc=$?
"$FIO" --name=r --filename=c.dat --bs=4k --rw=read --verify=pattern --verify_pattern=0x0f > cf.err 2>&1
frc=$?
lines() { grep -m2 '^fio: \(got\|bad\) pattern' "$1"; }
[ $rc = 1 ] && [ $frc = 1 ] && [ "$(lines c.err)" = "$(lines cf.err)" ] &&
	[ "$(lines c.err)" = "fio: got pattern '0e', wanted '0f'. Bad bits 1
fio: bad pattern block offset 100" ] &&
	grep -q '^pattern: verify failed at file c.dat offset 8192, length 4096' c.err
ok $? "verify=pattern: a changed byte fails both with fio's lines: $(tr '\n' '|' < c.err)"
! "$PROBE" --parse-only --name=w --verify=pattern 2> s.err && grep -q "verify=pattern needs verify_pattern" s.err
ok $? "verify=pattern without verify_pattern is refused: $(cat s.err)"

# write tags (--trace): the tag heads each 4 KiB, the sha256 header follows
"$PROBE" --trace=t.tr --output-format=json --name=w --filename=t.dat --size=256k --bs=8k $NS \
	--rw=randwrite --verify=sha256 --ioengine=libaio --iodepth=4 > t.json &&
	"$IOGAP_BUILD/tests/probe/check_tags" t.tr t.dat > tags.txt &&
	"$PROBE" --name=r --filename=t.dat --bs=8k --rw=randread --verify=sha256 > /dev/null
[ $? = 0 ] && [ "$(J t.json '(j["error"], j["read"]["io_bytes"])')" = "(0, 262144)" ]
ok $? "verify=sha256 with write tags: $(cat tags.txt), verified by its read-back and a later read job"
"$PROBE" --trace=tp.tr --name=w --filename=tp.dat --size=64k --bs=8k --rw=randwrite $NS \
	--verify=pattern '--verify_pattern=%o' > /dev/null &&
	"$IOGAP_BUILD/tests/probe/check_tags" tp.tr tp.dat > tags.txt &&
	"$PROBE" --name=r --filename=tp.dat --bs=8k --rw=read --verify=pattern '--verify_pattern=%o' > /dev/null
ok $? "verify=pattern %o with write tags: $(cat tags.txt), the pattern around them verifies"
finish
