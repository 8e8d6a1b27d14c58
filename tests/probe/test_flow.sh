#!/bin/bash
# fio 3.33's flow control (flow, flow_id, flow_sleep, flow_watermark) and
# io_submit_mode=offload: the ratio of the I/O of jobs sharing a flow, the
# options' checks, and offloaded submission keeping a rate that inline
# submission cannot keep behind a slow device (the null engine with a known
# injected latency).  Ratios and rates get wide margins: TCG and a loaded
# machine are slow and noisy.
. "$(dirname "$0")/lib.sh"
echo "1..15"
FIO=${FIO:-fio}
cd "$WORK" || exit 1
J() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
ios() { J "$1" "d['jobs'][$2]['read']['total_ios']"; }
# ratio FILE A B LOW HIGH: jobs[B]'s I/O count over jobs[A]'s is in [LOW, HIGH]
ratio() { J "$1" "$4 <= d['jobs'][$3]['read']['total_ios'] / max(d['jobs'][$2]['read']['total_ios'], 1) <= $5" | grep -qx True; }

flow_job() { # flow_job SLEEP: two null jobs of one flow, weights 1 and 3
	printf '[global]\nioengine=null\nsize=100g\ntime_based\nruntime=2\nflow_id=7\nthread\n%s\n' "$1"
	printf '[light]\nflow=1\n[heavy]\nflow=3\n'
}
flow_job "" > f0.fio && "$PROBE" --output-format=json f0.fio > f0.json
ratio f0.json 0 1 2 4 && [ "$(ios f0.json 0)" -gt 100 ]
ok $? "flow=1 and flow=3 in one flow_id: 1:3 ($(ios f0.json 0) and $(ios f0.json 1) I/Os)"
flow_job "flow_sleep=100" > f1.fio && "$PROBE" --output-format=json f1.fio > f1.json
ratio f1.json 0 1 2 4
ok $? "with flow_sleep=100 (µs) too: $(ios f1.json 0) and $(ios f1.json 1) I/Os"

# one share per request issued: a job at iodepth=8, whose turns often find its queue
# full, keeps 3:1 against a synchronous one (fio takes one share per I/O unit)
printf '[global]\nioengine=null\nsize=100g\ntime_based\nruntime=2\nflow_id=7\nthread\n[light]\nflow=1\n[deep]\nflow=3\niodepth=8\n' > fq.fio &&
	"$PROBE" --output-format=json fq.fio > fq.json
ratio fq.json 0 1 2.5 3.5
ok $? "flow=1 at iodepth=1 beside flow=3 at iodepth=8: 1:3 ($(ios fq.json 0) and $(ios fq.json 1) I/Os)"

# three jobs, 1:2:4, and the default flow_id (0), by command line
"$PROBE" --output-format=json --ioengine=null --size=100g --time_based --runtime=2 --thread \
	--name=a --flow=1 --name=b --flow=2 --name=c --flow=4 > f2.json
ratio f2.json 0 1 1.4 2.8 && ratio f2.json 0 2 2.8 5.6
ok $? "flow=1, 2, 4 (flow_id 0, options on the command line): $(ios f2.json 0), $(ios f2.json 1), $(ios f2.json 2) I/Os"

# a job whose weight leaves when it ends: the others go on alone (fio's flow_exit_job)
printf '[global]\nioengine=null\nsize=100g\nthread\nflow=1\n[short]\nio_size=40k\n[long]\nio_size=4m\n' > f3.fio
timeout 120 "$PROBE" --output-format=json f3.fio > f3.json && [ "$(ios f3.json 0)" = 10 ] && [ "$(ios f3.json 1)" = 1024 ]
ok $? "a job of the flow that ended no longer holds the others back: $(ios f3.json 0) and $(ios f3.json 1) I/Os"

# flow=0 (fio's default): no flow, whatever flow_id says
"$PROBE" --output-format=json --ioengine=null --size=100g --io_size=4m --thread --flow_id=3 \
	--name=a --flow=0 --io_size=400k --name=b --flow=1 > f4.json &&
	[ "$(ios f4.json 0)" = 100 ] && [ "$(ios f4.json 1)" = 1024 ]
ok $? "flow=0 beside flow=1: the first is in no flow ($(ios f4.json 0) and $(ios f4.json 1) I/Os)"

# options: fio's ranges and types, errors naming file:line
bad() { # bad OPTION=VALUE EXPECTED: refused at the line with EXPECTED in the message
	printf '[j]\nioengine=null\nsize=1m\n%s\n' "$1" > bad.fio
	! "$PROBE" --parse-only bad.fio 2> bad.err && grep -q "bad.fio:4: .*$2" bad.err
}
bad flow=1001 "flow.*up to 1000" && bad flow=-2147483649 "flow" && bad flow=x "flow" &&
	bad flow_id=1.5 "flow_id" && bad flow_sleep=10ms "flow_sleep" && bad io_submit_mode=later "inline or offload"
ok $? "flow above 1000 (fio's FLOW_MAX_WEIGHT), below an int or not a number, a fractional flow_id, flow_sleep with a unit, io_submit_mode=later: file:line errors ($(cat bad.err))"
printf '[j]\nioengine=null\nsize=1m\nflow=1k\n' > k.fio
! "$PROBE" --parse-only k.fio 2> /dev/null && printf '[j]\nioengine=null\nsize=1m\nflow=1000\nflow_id=-2\nflow_sleep=1k\n' > k.fio &&
	"$PROBE" --parse-only k.fio && "$FIO" --parse-only k.fio > /dev/null 2>&1
ok $? "flow=1k is 1024 (too heavy, as fio's size suffixes); flow=1000, flow_id=-2, flow_sleep=1k accepted, as by fio"
# a negative weight, fio's FIO_OPT_INT kept in an unsigned: flow=-3 is a
# weight of 2^32 - 3, so the flow=1 job beside it is held back nearly
# always (fio 3.33: 1 I/O against 830309 in 2 s); zonedstorage.io's
# read-while-write example uses it
printf '[global]\nioengine=null\nsize=100g\ntime_based\nruntime=2\nflow_id=7\nthread\n[neg]\nflow=-3\n[one]\nflow=1\n' > fneg.fio &&
	"$PROBE" --output-format=json fneg.fio > fneg.json && "$FIO" --parse-only fneg.fio > /dev/null 2>&1 &&
	J fneg.json "d['jobs'][0]['read']['total_ios'] > 1000 * max(d['jobs'][1]['read']['total_ios'], 1)" | grep -qx True
ok $? "flow=-3 accepted as by fio, with its meaning: $(ios fneg.json 0) I/Os against $(ios fneg.json 1)"
printf '[j]\nioengine=null\nsize=64k\nflow_watermark=5\n' > w.fio
"$PROBE" --output-format=json w.fio > w.json 2> w.err && grep -qx "Option flow_watermark is deprecated" w.err &&
	[ "$(ios w.json 0)" = 16 ]
ok $? "flow_watermark: accepted with fio's note, no effect ($(cat w.err))"
printf '[j]\nioengine=io_uring\nsize=1m\nio_submit_mode=offload\n' > u.fio
! "$PROBE" --parse-only u.fio 2> u.err && grep -q "u.fio:1: job 'j': io_uring can't be used with io_submit_mode=offload" u.err &&
	printf '[j]\nioengine=sync\nsize=1m\nio_submit_mode=offload\n' > s.fio && ! "$PROBE" --parse-only s.fio 2> /dev/null
ok $? "io_submit_mode=offload refuses io_uring (fio's refusal) and sync (a shared file position): $(cat u.err)"

# offload: null requests that take 30 ms, 50 IOPS wanted (every 20 ms).
# Inline, the null engine at iodepth=1 is synchronous, as fio's: one
# request at a time, at most 1 / 30 ms.  Offloaded at iodepth=4, four
# submitters overlap them and the rate is kept.
slow=(--output-format=json --null-latency-ns=30000000 --name=r --ioengine=null --size=1g
      --rate_iops=50 --time_based --runtime=3)
"$PROBE" "${slow[@]}" > in.json && "$PROBE" "${slow[@]}" --iodepth=4 --io_submit_mode=offload > off.json
iops() { J "$1" "round(d['jobs'][0]['read']['iops'])"; }
J in.json "d['jobs'][0]['read']['iops'] <= 1000 / 30 + 1" | grep -qx True &&
	J off.json "40 <= d['jobs'][0]['read']['iops'] <= 51" | grep -qx True
ok $? "rate_iops=50 behind 30 ms requests: inline (synchronous) $(iops in.json) IOPS (at most 33), offloaded at iodepth=4 $(iops off.json) (the rate)"
# fio's meanings: start when due, issue by the submitter, a synchronous
# engine records no slat; every request took at least the injected 30 ms
J off.json "(lambda r: r['slat_ns']['max'] == 0 and r['clat_ns']['min'] >= 30e6 and r['lat_ns']['min'] >= r['clat_ns']['min'] and r['lat_ns']['mean'] >= r['clat_ns']['mean'] and r['total_ios'] > 0)(d['jobs'][0]['read'])" | grep -qx True
ok $? "offloaded: clat from the submitter's issue (min $(J off.json "round(d['jobs'][0]['read']['clat_ns']['min'])") ns), lat from when it was due, no slat for a synchronous engine"

# on a file, a cached one (psync and libaio), mixed directions, poisson gaps
head -c 4m /dev/urandom > data
for e in psync libaio; do
	"$PROBE" --output-format=json --name=f --filename=data --size=4m --ioengine=$e --iodepth=8 --rw=randrw \
		--rate_iops=100 --rate_process=poisson --io_submit_mode=offload --time_based --runtime=3 > $e.json || echo "$e failed"
done > run.err
rates() { J "$1" "(lambda j: 50 <= j['read']['iops'] <= 130 and 50 <= j['write']['iops'] <= 130 and j['error'] == 0 and j['read']['lat_ns']['min'] > 0)(d['jobs'][0])" | grep -qx True; }
[ ! -s run.err ] && rates psync.json && rates libaio.json &&
	J libaio.json "d['jobs'][0]['read']['slat_ns']['mean'] > 0 and d['jobs'][0]['job options']['io_submit_mode'] == 'offload'" | grep -qx True
ok $? "offloaded randrw on a file, rate_iops=100 with poisson gaps: psync $(J psync.json "round(d['jobs'][0]['read']['iops']), round(d['jobs'][0]['write']['iops'])"), libaio $(J libaio.json "round(d['jobs'][0]['read']['iops']), round(d['jobs'][0]['write']['iops'])") IOPS; libaio's slat recorded $(cat run.err)"

# fio's examples themselves (libaio, direct=1, offload), on a smaller file
ex=$(dirname "$0")/fio-examples
example() { # example NAME SIZE: the example's one section, with a file of SIZE here
	{ cat "$ex/$1.fio"; printf 'size=%s\nfilename=%s/ex.dat\n' "$2" "$PWD"; } > "$1.fio"
	"$PROBE" --output-format=json "$1.fio" > "$1.json"
}
example fixed-rate-submission 1m && example poisson-rate-submission 256k &&
	J fixed-rate-submission.json "(lambda r: r['total_ios'] == 256 and 500 <= r['iops'] <= 1010)(d['jobs'][0]['read'])" | grep -qx True &&
	J poisson-rate-submission.json "(lambda r: r['total_ios'] == 64 and 20 <= r['iops'] <= 100)(d['jobs'][0]['read'])" | grep -qx True
ok $? "fio's fixed-rate-submission.fio (1000 IOPS) and poisson-rate-submission.fio (50) run: $(iops fixed-rate-submission.json) and $(iops poisson-rate-submission.json) IOPS"
finish
