#!/bin/bash
# verify_state_save / verify_state_load beside fio 3.33: a writing job
# leaves fio's local-NAME-N-verify.state (its layout: each loads the
# other's), and a later verify job with verify_state_load=1 stops where the
# writes that had completed end, instead of failing on blocks never
# written.
. "$(dirname "$0")/lib.sh"
echo "1..9"
FIO=${FIO:-fio}
cd "$WORK" || exit 1
J() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]; print(eval(sys.argv[2]))' "$@"; }
# the state's fields: version, size, then no_comps, depth, nofiles,
# numberio, index, name and the completions (fio's verify-state.h)
fields() {
	python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
ver, size, crc = struct.unpack_from('<QQQ', b, 0)
nc, depth, nf, nio, idx = struct.unpack_from('<QIIQQ', b, 24)
name = b[24 + 88:24 + 152].rstrip(b'\0').decode()
comps = [struct.unpack_from('<QQ', b, 24 + 152 + 16 * i) for i in range(nc)]
print(ver, size, nc, depth, nf, nio, idx, name, comps, len(b) == 24 + size)
PY
}
# 8 of the 16 blocks written (number_ios); the read job has the same name
W=(--name=w --size=64k --bs=4k --rw=write --verify=crc32c --do_verify=0 --number_ios=8)
R=(--name=w --size=64k --bs=4k --rw=read --verify=crc32c --output-format=json)
mkdir p f   # each tool's state in its own directory
(cd p && "$PROBE" "${W[@]}" --filename=../s.dat > /dev/null) &&
	(cd f && "$FIO" "${W[@]}" --filename=../s.dat > /dev/null 2>&1)
[ -f p/local-w-0-verify.state ] && [ "$(fields p/local-w-0-verify.state)" = "$(fields f/local-w-0-verify.state)" ] &&
	[ "$(fields p/local-w-0-verify.state)" = "3 168 1 1 1 8 0 w [(0, 28672)] True" ]
ok $? "the probe's state file has fio's name and fields: $(fields p/local-w-0-verify.state)"
M=(--name=w --filename=../a.dat:../b.dat --size=64k --bs=4k --rw=randwrite --verify=md5 --do_verify=0
   --iodepth=4 --ioengine=libaio)
(cd p && "$PROBE" "${M[@]}" > /dev/null) && (cd f && "$FIO" "${M[@]}" > /dev/null 2>&1)
pf=$(fields p/local-w-0-verify.state | cut -d' ' -f1-8)
[ "$pf" = "$(fields f/local-w-0-verify.state | cut -d' ' -f1-8)" ] && [ "$pf" = "3 280 8 4 2 16 0 w" ]
ok $? "iodepth=4, two files: the same header fields as fio's ($pf)"
S=(--name=w --filename=../r.dat --size=64k --bs=4k --rw=randwrite --verify=md5 --do_verify=0)
(cd p && "$PROBE" "${S[@]}" > /dev/null) && (cd f && "$FIO" "${S[@]}" > /dev/null 2>&1) &&
	cmp -s p/local-w-0-verify.state f/local-w-0-verify.state
ok $? "a random job's state is fio's byte for byte (random state and completions included)"

# without the state the read fails on block 8, never written
"$PROBE" "${W[@]}" --filename=v.dat > /dev/null
! "$PROBE" "${R[@]}" --filename=v.dat > r.json 2> r.err && grep -q 'bad magic header 0' r.err
ok $? "without verify_state_load the read reaches the blocks never written: $(head -1 r.err)"
"$PROBE" "${R[@]}" --filename=v.dat --verify_state_load=1 > r.json
[ $? = 0 ] && [ "$(J r.json '(j["error"], j["read"]["io_bytes"])')" = "(0, 32768)" ]
ok $? "verify_state_load=1: the probe verifies the 8 written blocks and stops: $(J r.json 'j["read"]["io_bytes"]')"
"$FIO" "${R[@]}" --filename=v.dat --verify_state_load=1 > rf.json 2> /dev/null
[ $? = 0 ] && [ "$(J rf.json '(j["error"], j["read"]["io_bytes"])')" = "(0, 32768)" ]
ok $? "fio loads the probe's state and stops at the same block"
rm -f local-w-0-verify.state v.dat
"$FIO" "${W[@]}" --filename=v.dat > /dev/null 2>&1 &&
	"$PROBE" "${R[@]}" --filename=v.dat --verify_state_load=1 > r.json
[ $? = 0 ] && [ "$(J r.json '(j["error"], j["read"]["io_bytes"])')" = "(0, 32768)" ]
ok $? "the probe loads fio's state and stops at the same block"

rm -f local-w-0-verify.state
"$PROBE" "${W[@]}" --filename=v.dat --verify_state_save=0 > /dev/null
[ ! -e local-w-0-verify.state ]
ok $? "verify_state_save=0: no state file"
! "$PROBE" "${R[@]}" --filename=v.dat --verify_state_load=1 > /dev/null 2> e.err &&
	grep -q '^fio: state file: local-w-0-verify.state (for_write=0)' e.err
ok $? "verify_state_load without the file: the job fails with fio's message ($(tr '\n' '|' < e.err | head -c 200))"
finish
