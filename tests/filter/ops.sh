#!/bin/sh
# flush, discard, write-zeroes, FUA writes, truncate/length and tagged writes
# through the filter at both positions over a file.
. "$(dirname "$0")/lib.sh"
require_filter
plan 28

# mkpayload FILE SIZE RUN_ID POS:REQ:BLOCK[:bad]...: random bytes with an
# iogap_write_tag at each POS (":bad" = a wrong check, i.e. garbage)
mkpayload() {
	python3 - "$@" <<'PY'
import os, struct, sys
M = (1 << 64) - 1
def check(magic, run, req, block):
    h = magic ^ ((run * 0x9e3779b97f4a7c15) & M) ^ ((req * 0xc2b2ae3d27d4eb4f) & M) ^ block
    h ^= h >> 29
    h = (h * 0xbf58476d1ce4e5b9) & M
    h ^= h >> 32
    return h & 0xffffffff
magic = 0x5441544741474f49
path, size, run = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
buf = bytearray(os.urandom(size))
for stamp in sys.argv[4:]:
    f = stamp.split(":")
    pos, req, blk = int(f[0]), int(f[1]), int(f[2])
    c = check(magic, run, req, blk) + (1 if f[3:] == ["bad"] else 0)
    struct.pack_into("<QQQII", buf, pos, magic, run, req, blk, c & 0xffffffff)
open(path, "wb").write(buf)
PY
}
# 8 KiB: stride 0 garbage, stride 1 a valid tag
mktag() { mkpayload "$1" 8192 "$2" "0:$3:0:bad" "4096:$3:1"; }
# what a guest merge of two requests looks like: 12 KiB, request 501
# (4 KiB, tag at 0) followed by request 502 (8 KiB, tags at 4 and 8 KiB)
mkmerged() { mkpayload "$1" 12288 "$2" 0:501:0 4096:502:0 8192:502:1; }

img=$work/disk.img
mktag "$work/tag-a" 7 4242
mktag "$work/tag-b" 8 4343
mkmerged "$work/merged" 7

for pos in top bottom; do
	qemu-img create -q -f raw "$img" 16M
	ring=$work/$pos.ring
	node=$(j_$pos "$ring" "$(j_file "$img")" '"run-id":7')
	# writeback: under qemu-io's default writethrough, QEMU 10 (whose file driver takes
	# FUA, 7.2's does not) sends every write down as FUA, and -f would not stand out
	qio -t writeback -c 'write -q -P 1 0 64k' -c flush -c 'discard -q 65536 65536' \
	    -c 'write -q -z 131072 65536' -c 'write -q -z -u 196608 65536' \
	    -c 'write -q -f -P 2 262144 4096' \
	    -c "write -q -s $work/tag-a 327680 8192" -c "write -q -s $work/tag-b 344064 8192" \
	    -c "write -q -s $work/merged 393216 12288" \
	    -c 'writev -q -P 5 458752 512 512 1024 7 505 4096 2048 512 512 512 2048 3072 1024' \
	    -c 'truncate 20M' -c length "json:$node" >"$work/out" 2>&1
	ok $? "$pos: qemu-io flush/discard/write-zeroes/truncate through the filter" "$work/out"
	grep -q '^20 MiB' "$work/out"
	ok $? "$pos: truncate and getlength pass through (length 20 MiB)" "$work/out"
	check "$pos: ring valid and records sane" sane "$ring"
	"$dump" "$ring" >"$work/d"
	[ "$(awk '$1 == "flush"' "$work/d" | wc -l)" -ge 1 ]
	ok $? "$pos: flush recorded" "$work/d"
	grep -q '^trim 65536 65536 ' "$work/d"
	ok $? "$pos: discard recorded (trim 65536+65536)" "$work/d"
	grep -q '^wzero 131072 65536 ' "$work/d" && grep -q '^wzero 196608 65536 ' "$work/d"
	ok $? "$pos: write-zeroes recorded (with and without unmap)" "$work/d"
	# FUA reaches a node only when its child supports it: null-co does, the
	# file driver does not (the block layer then sends write + flush). Cache
	# writeback: qemu-io's writethrough default would make every write FUA.
	qio -t writeback -c 'write -q -f -P 2 262144 4096' -c 'write -q -P 2 0 4096' \
	    "json:$(j_$pos "$ring.fua" "$(j_null 16777216)")" >"$work/fua" 2>&1 &&
		"$dump" "$ring.fua" >>"$work/fua" &&
		awk '$1 == "write" && $2 == 262144 && int($9 / 4) % 2 == 1 { fua = 1 }
		     $1 == "write" && $2 == 0 && int($9 / 4) % 2 == 0 { plain = 1 }
		     END { exit !(fua && plain) }' "$work/fua"
	ok $? "$pos: FUA write recorded with the FUA flag (4), a plain write without" "$work/fua"
	awk '$1 == "write" && $2 == 327680 && $8 == 4242 && $9 % 2 == 1 { f = 1 } END { exit !f }' "$work/d"
	ok $? "$pos: tagged write recognised (first valid tag, request id 4242)" "$work/d"
	awk '$1 == "write" && $2 == 344064 && $8 == 0 && $9 % 2 == 0 { f = 1 } END { exit !f }' "$work/d"
	ok $? "$pos: tag of another run (run-id mismatch) not taken" "$work/d"
	awk '$1 == "write" && $2 == 0 && $8 == 0 && $9 % 2 == 0 { f = 1 } END { exit !f }' "$work/d"
	ok $? "$pos: untagged write has tag 0 and no TAGGED flag" "$work/d"
	# flags: TAGGED 1, MERGED 16
	awk '$1 == "write" && $2 == 393216 && $3 == 4096 && $8 == 501 && $9 == 17 { f = 1 } END { exit !f }' "$work/d"
	ok $? "$pos: merged write: first request's part recorded with its tag" "$work/d"
	awk '$1 == "write" && $2 == 397312 && $3 == 8192 && $8 == 502 && $9 == 17 { f = 1 } END { exit !f }' "$work/d"
	ok $? "$pos: merged write: second request's part recorded with its tag" "$work/d"
	# writev: 13 buffers (odd sizes, 16 KiB in all) form one request
	awk '$1 == "write" && $2 == 458752 { n++; if ($3 == 16384 && $8 == 0 && $9 == 0) f = 1 }
	     END { exit !(f && n == 1) }' "$work/d"
	ok $? "$pos: writev of 13 small buffers: one untagged record, 16 KiB" "$work/d"
	qemu-io -f raw -c 'read -q -P 5 458752 16384' "$img" >"$work/rb" 2>&1 && ! grep -qi fail "$work/rb"
	ok $? "$pos: writev data landed" "$work/rb"
done
finish
