#!/bin/sh
# iogap-ring --follow: started before QEMU, it waits for the ring, prints
# every record as it is published (consuming, so a small ring loses
# nothing) and exits by itself when QEMU closes the ring.
. "$(dirname "$0")/lib.sh"
require_filter
plan 4

img=$work/disk.img
qemu-img create -q -f raw "$img" 4M
ring=$work/follow.ring
"$dump" --follow --timeout 60 "$ring" >"$work/f" 2>"$work/ferr" &
follower=$!
set --
i=0
while [ $i -lt 200 ]; do set -- "$@" -c "write -q -P 7 $((i * 4096 % 4194304)) 4096"; i=$((i + 1)); done
qio "$@" "json:$(j_top "$ring" "$(j_file "$img")" '"ring-size":256')" >"$work/out" 2>&1
ok $? "qemu-io: 200 writes (400 records with flushes) through a 256-record ring" "$work/out"
wait $follower
ok $? "the follower exits by itself when the ring is complete" "$work/ferr"
[ "$(awk '$1 == "write"' "$work/f" | wc -l)" = 200 ]
ok $? "it printed all 200 writes (consuming, nothing dropped)" "$work/f"
"$dump" "$ring" | head -n 1 | grep -q ' dropped=0 '
ok $? "the ring counted no drops" "$work/f"
finish
