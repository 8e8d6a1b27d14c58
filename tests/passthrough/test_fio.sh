#!/bin/bash
# iogap passthrough check --bare OUT --vm OUT: lint decides whether the pair
# can be compared (the NVMe passthrough report's two buffered outputs cannot),
# then each job and direction's p50 (and p99 if asked) against the
# thresholds, on real fio 3.33 output with a known delay added to the VM side.
. "$(dirname "$0")/../tap.sh"
IOGAP=${IOGAP_BUILD:?}/host-tools/iogap
DATA=${IOGAP_SRC:?}/tests/import/data
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
run() { "$IOGAP" passthrough check "$@" > "$WORK/out" 2> "$WORK/err"; rc=$?; }
verdict() { sed -n 's/^verdict: //p' "$WORK/out"; }
codes() { sed -n 's/^\(INFO\|WARNING\|ERROR\) \([a-z0-9-]*\):.*/\1 \2/p' "$WORK/out" | sort | uniq -c | awk '{print $2 " " $3 " x" $1}' | paste -sd, -; }
echo "1..20"

# the NVMe passthrough report (fixture): QD1 randrw, libaio, no direct=1
run --bare "$DATA/nvme-passthrough-baremetal.txt" --vm "$DATA/nvme-passthrough-vm.txt"
[ $rc = 1 ] && verdict | grep -q '^comparison invalid: the runs were buffered (direct=0): libaio/io_uring then complete each request inside the submit call, so the device time shows as slat'
ok $? "fixtures: exit $rc, verdict: $(verdict | cut -c1-80)…"
grep -q "^WARNING buffered-async: .*nvme-passthrough-baremetal.txt: job 'test': ioengine=libaio without direct=1" "$WORK/out" &&
	grep -q "^WARNING buffered-async: .*nvme-passthrough-vm.txt: job 'test': ioengine=libaio without direct=1" "$WORK/out"
ok $? "both sides' buffered-async findings, each with why and do"
[ "$(grep -c '^    why: ' "$WORK/out")" = "$(grep -cE '^(INFO|WARNING|ERROR) ' "$WORK/out")" ] &&
	[ "$(grep -c '^    do: ' "$WORK/out")" = "$(grep -cE '^(INFO|WARNING|ERROR) ' "$WORK/out")" ]
ok $? "every finding says why it matters and what to do"
! grep -qE '^(INFO|WARNING) (within|beyond)' "$WORK/out"
ok $? "no latency verdict over invalid runs"
"$IOGAP" passthrough check --json --bare "$DATA/nvme-passthrough-baremetal.txt" --vm "$DATA/nvme-passthrough-vm.txt" |
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["pass"] == 0 and d["verdict"].startswith("comparison invalid: the runs were buffered (direct=0)"), d'
ok $? "--json: the same verdict, pass 0"
run --force --bare "$DATA/nvme-passthrough-baremetal.txt" --vm "$DATA/nvme-passthrough-vm.txt"
[ $rc = 1 ] && verdict | grep -q "^comparison invalid, compared anyway (--force): pass: the VM is within"
ok $? "--force compares, says the comparison is not valid and still fails: $(verdict | cut -c1-60)…"

# the same outputs imported into a run directory (iogap import), checked by --run
"$IOGAP" import --dir "$WORK/run" --label bare "$DATA/nvme-passthrough-baremetal.txt" > /dev/null &&
	"$IOGAP" import --dir "$WORK/run" --label vm "$DATA/nvme-passthrough-vm.txt" > /dev/null &&
	run --run "$WORK/run"
[ $rc = 1 ] && verdict | grep -q '^comparison invalid: the runs were buffered (direct=0)' &&
	grep -q "^WARNING buffered-async: $WORK/run/vm/probe.json: job 'test'" "$WORK/out"
ok $? "imported run directory (--run): the same invalid verdict"

# the mailing-list thread pasted whole: each output after a line naming its side
paste_of() { # paste_of LABEL1 FILE1 LABEL2 FILE2
	printf '%s\n' "$1"; cat "$2"; printf '\n%s\n' "$3"; cat "$4"
}
paste_of "Bare metal:" "$DATA/nvme-passthrough-baremetal.txt" ">From vm:" "$DATA/nvme-passthrough-vm.txt" > "$WORK/thread.txt"
run "$WORK/thread.txt"
[ $rc = 1 ] && verdict | grep -q '^comparison invalid: the runs were buffered (direct=0)' &&
	grep -q "^INFO sides: bare metal: 'Bare-metal'; VM: 'From-vm'" "$WORK/out" &&
	grep -q "^WARNING buffered-async: From-vm: job 'test': ioengine=libaio without direct=1: read slat avg 115.27 us" "$WORK/out"
ok $? "a pasted thread: the sides named from its words, the same verdict in one command"
paste_of "NVMe guest results:" "$DATA/nvme-passthrough-vm.txt" "NVMe host results:" "$DATA/nvme-passthrough-baremetal.txt" > "$WORK/swapped.txt"
run "$WORK/swapped.txt"
[ $rc = 1 ] && grep -q "^INFO sides: bare metal: 'NVMe-host-results'; VM: 'NVMe-guest-results'" "$WORK/out" &&
	grep -q "^WARNING buffered-async: NVMe-guest-results: job 'test': .*read slat avg 115.27 us" "$WORK/out"
ok $? "the VM pasted first, 'NVMe' in both labels: the sides still told apart"
paste_of "run one:" "$DATA/nvme-passthrough-baremetal.txt" "run two:" "$DATA/nvme-passthrough-vm.txt" > "$WORK/unnamed.txt"
run "$WORK/unnamed.txt"
[ $rc = 2 ] && grep -q "cannot tell bare metal from the VM: 2 outputs labelled 'run-one' (neither), 'run-two' (neither); exactly one must name bare metal (a line 'Bare metal:'" "$WORK/err"
ok $? "labels that name no side: exit $rc, the labels found and how to name them"
paste_of "host:" "$DATA/nvme-passthrough-baremetal.txt" "host again:" "$DATA/nvme-passthrough-vm.txt" > "$WORK/twohosts.txt"
run "$WORK/twohosts.txt"
[ $rc = 2 ] && grep -q "'host' (bare metal), 'host-again' (bare metal)" "$WORK/err"
ok $? "two bare-metal labels and no VM: exit $rc, refused"
"$IOGAP" import --dir "$WORK/imp" "$WORK/thread.txt" > /dev/null && [ -f "$WORK/imp/From-vm/probe.json" ] &&
	run --run "$WORK/imp"
[ $rc = 1 ] && verdict | grep -q '^comparison invalid: the runs were buffered' &&
	grep -q "^INFO sides: bare metal: '$WORK/imp/Bare-metal/probe.json'; VM: '$WORK/imp/From-vm/probe.json'" "$WORK/out"
ok $? "iogap import of the thread, then --run: Bare-metal/ and From-vm/ found by their names"

# valid runs (fio 3.33, psync/libaio with direct=1): one against itself
run --bare "$DATA/fio333-multi.json" --vm "$DATA/fio333-multi.json"
[ $rc = 0 ] && [ "$(codes)" = "INFO few-samples x10,INFO sides x1,INFO within x5" ] && verdict | grep -q '^pass'
ok $? "a run against itself: exit $rc, $(codes): $(verdict)"

# the VM side: every clat percentile 20 us later (a known, injected delay)
python3 - "$DATA/fio333-multi.json" "$WORK/vm.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for j in d["jobs"]:
    for dd in ("read", "write"):
        p = j[dd]["clat_ns"].get("percentile", {})
        for k in p:
            p[k] += 20000
json.dump(d, open(sys.argv[2], "w"), indent=1)
EOF
run --bare "$DATA/fio333-multi.json" --vm "$WORK/vm.json"
[ $rc = 1 ] && [ "$(codes)" = "INFO few-samples x10,INFO sides x1,WARNING beyond x5" ] && verdict | grep -q '^fail'
ok $? "+20 us against 5us,10% (the default): all 5 beyond, exit $rc: $(verdict)"
grep -q "^WARNING beyond: job 'seqread' read: clat p50 36.32 us in the VM, 16.32 us on bare metal (+20.00 us, +122.5%): beyond 5.00 us and 10.0%" "$WORK/out"
ok $? "the beyond finding gives both p50s, the gap and the threshold"
run --bare "$DATA/fio333-multi.json" --vm "$WORK/vm.json" --p50-within 25us
[ $rc = 0 ] && [ "$(codes)" = "INFO few-samples x10,INFO sides x1,INFO within x5" ]
ok $? "+20 us against --p50-within 25us: all within, exit $rc"
# 15%: only trimless-libaio read (173.06 us: +11.6%) is within
run --bare "$DATA/fio333-multi.json" --vm "$WORK/vm.json" --p50-within 15%
[ $rc = 1 ] && [ "$(grep -c '^INFO within' "$WORK/out")" = 1 ] &&
	grep -q "^INFO within: job 'trimless-libaio' read: .*(+20.00 us, +11.6%)" "$WORK/out"
ok $? "+20 us against --p50-within 15%: only the 173 us job is within"
run --bare "$DATA/fio333-multi.json" --vm "$WORK/vm.json" --p99-within 30us,1%
[ $rc = 0 ] && [ "$(codes)" = "INFO few-samples x10,INFO sides x1,INFO within x5" ] && grep -q "clat p99 " "$WORK/out"
ok $? "--p99-within alone judges p99 only: all within 30 us"

# usage and unusable input: exit 2 and a message
run --bare "$DATA/fio333-multi.json" --vm "$WORK/vm.json" --p50-within 5parsecs
[ $rc = 2 ] && grep -q "p50-within 5parsecs: unknown option or bad value" "$WORK/err"
ok $? "bad threshold: exit $rc"
run --bare "$DATA/fio333-multi.json" --vm "$WORK/missing.json"
r1=$rc; grep -q "missing.json" "$WORK/err" && echo '[x]' > "$WORK/job.txt" && run --bare "$WORK/job.txt" --vm "$DATA/fio333-multi.json"
[ $r1 = 2 ] && [ $rc = 2 ] && [ -s "$WORK/err" ] && run --bare "$DATA/fio333-multi.json" && [ $rc = 2 ]
ok $? "missing file, not fio output, --bare without --vm: exit 2 with a message"
finish
