#!/bin/bash
# Traces: one record per request; --dump-trace round-trips; truncated and
# corrupted traces give clear errors; written blocks carry valid tags.
. "$(dirname "$0")/lib.sh"
echo "1..9"
"$PROBE" --eta=never --name=t --ioengine=null --rw=randread --norandommap --size=1g \
	--io_size=400m --trace="$WORK/t.trace" --output-format=json > "$WORK/t.json"
ok $? "100k-request null run with a trace"
python3 -c "import json,sys; d=json.load(open('$WORK/t.json')); sys.exit(d['jobs'][0]['read']['total_ios'] != 102400)"
ok $? "JSON says 102400 reads"
"$PROBE" --dump-trace "$WORK/t.trace" > "$WORK/dump.txt"
ok $? "--dump-trace reads it"
recs=$(grep -c '^record [0-9]*: .* op=read ' "$WORK/dump.txt")
[ "$recs" = 102400 ]; ok $? "dump lists 102400 read records ($recs)"

size=$(stat -c %s "$WORK/t.trace")
head -c $((size - 30)) "$WORK/t.trace" > "$WORK/cut.trace"
"$PROBE" --dump-trace "$WORK/cut.trace" > /dev/null 2> "$WORK/cut.err"
[ $? != 0 ] && grep -q "truncated" "$WORK/cut.err"; ok $? "truncated trace: $(cat "$WORK/cut.err")"
printf 'garbage!' | dd of="$WORK/t.trace" conv=notrunc status=none
"$PROBE" --dump-trace "$WORK/t.trace" > /dev/null 2> "$WORK/bad.err"
[ $? != 0 ] && grep -q "not an iogap trace" "$WORK/bad.err"; ok $? "foreign file: $(cat "$WORK/bad.err")"

# tags: random writes over the whole file, each block once (random map)
"$PROBE" --eta=never --name=w --ioengine=libaio --iodepth=8 --direct=1 --rw=randwrite \
	--bsrange=4k-64k --size=16m --filename="$WORK/tagged.img" --trace="$WORK/w.trace" \
	--output-format=json > /dev/null
ok $? "tagged randwrite run"
"$IOGAP_BUILD/tests/probe/check_tags" "$WORK/w.trace" "$WORK/tagged.img" > "$WORK/tags.txt" 2>&1
ok $? "every written 4k stride carries its request's tag: $(cat "$WORK/tags.txt")"
"$PROBE" --eta=never --name=w --ioengine=psync --rw=write --size=1m --filename="$WORK/untagged.img" \
	--output-format=json > /dev/null && ! "$IOGAP_BUILD/tests/probe/check_tags" "$WORK/w.trace" "$WORK/untagged.img" > /dev/null 2>&1
ok $? "check_tags fails on a file without tags"
finish
