#!/bin/sh
# Ring overflow: a tiny ring and no reader drops and counts, and I/O completes;
# a live reader consuming while QEMU runs loses nothing.
. "$(dirname "$0")/lib.sh"
require_filter
plan 9

img=$work/disk.img
qemu-img create -q -f raw "$img" 4M

# 1. no reader: ring-size 4, 64 writes
ring=$work/tiny.ring
node=$(j_top "$ring" "$(j_file "$img")" '"ring-size":4')
set --
i=0
while [ $i -lt 64 ]; do set -- "$@" -c "write -q -P $((i + 1)) $((i * 4096)) 4096"; i=$((i + 1)); done
qio "$@" "json:$node" >"$work/out" 2>&1
ok $? "tiny ring, no reader: all 64 writes complete" "$work/out"
set --
i=0
while [ $i -lt 64 ]; do set -- "$@" -c "read -q -P $((i + 1)) $((i * 4096)) 4096"; i=$((i + 1)); done
qemu-io -f raw "$@" "$img" >"$work/out" 2>&1 && ! grep -q -i fail "$work/out"
ok $? "tiny ring: every write landed (read back without the filter)" "$work/out"
"$dump" "$ring" >"$work/d" 2>&1
head -n 1 "$work/d" | awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); h[kv[1]] = kv[2] } }
	END { exit !(h["write_seq"] == 4 && h["capacity"] == 4 && h["dropped"] >= 60 &&
		     h["header_dropped"] == h["dropped"] && h["complete"] == 1) }'
ok $? "tiny ring: 4 records kept, >= 60 dropped and counted (control and header)" "$work/d"
# qemu-io is writethrough by default: write, flush, write, flush
awk 'NR > 1 { n++ } NR == 2 && !($1 == "write" && $2 == 0) { bad = 1 } END { exit bad || n != 4 }' "$work/d"
ok $? "tiny ring: the kept records are the first 4 (oldest kept, newest dropped)" "$work/d"

# 2. capacity rounds up to a power of two
ring5=$work/five.ring
qio -c 'read -q 0 512' "json:$(j_top "$ring5" "$(j_file "$img")" '"ring-size":5')" >"$work/out" 2>&1
"$dump" "$ring5" | head -n 1 | grep -q ' capacity=8 '
ok $? "ring-size=5 gives a capacity of 8" "$work/out"

# 3. a live reader: ring of 8, 10 rounds of 3 writes, consumed between rounds
lring=$work/live.ring
mkfifo "$work/in"
LD_PRELOAD=$so qemu-io "json:$(j_top "$lring" "$(j_file "$img")" '"ring-size":8')" \
	<"$work/in" >"$work/out" 2>&1 &
qpid=$!
exec 3>"$work/in"
seen=0
round=0
fail=0
# one command at a time: qemu-io reads stdin through stdio buffering and only
# wakes up for new data on the fd
while [ $round -lt 10 ]; do
	for k in 1 2 3; do
		echo "write -q -P 7 $(((round * 3 + k - 1) * 4096)) 4096" >&3
		tries=0
		while :; do
			cnt=$("$dump" "$lring" 2>/dev/null | awk 'NR > 1 && $1 == "write"' | wc -l)
			[ "$cnt" -ge $k ] && break
			tries=$((tries + 1))
			if [ $tries -gt 200 ]; then
				fail=1
				echo "# round $round write $k: timeout"
				"$dump" "$lring" | sed 's/^/# /'
				break
			fi
			sleep 0.02
		done
	done
	seen=$((seen + $("$dump" --consume "$lring" | awk 'NR > 1 && $1 == "write"' | wc -l)))
	round=$((round + 1))
done
echo quit >&3
exec 3>&-
wait $qpid
ok $? "live reader: qemu-io completes" "$work/out"
[ $fail = 0 ] && [ $seen = 30 ]
ok $? "live reader: all 30 writes seen while QEMU ran (seen $seen)"
"$dump" "$lring" >"$work/d"
head -n 1 "$work/d" | grep -q ' dropped=0 .*complete=1'
ok $? "live reader: nothing dropped, ring complete" "$work/d"
head -n 1 "$work/d" | awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); h[kv[1]] = kv[2] } }
	END { exit !(h["write_seq"] >= 30 && h["write_seq"] > h["capacity"]) }'
ok $? "live reader: the ring wrapped (write_seq past capacity)" "$work/d"
finish
