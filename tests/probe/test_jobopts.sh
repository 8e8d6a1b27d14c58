#!/bin/bash
# Job options beside fio 3.33: include files, significant_figures,
# refill_buffers, exitall_on_error, rate_min / rate_iops_min, the rate
# cross-checks and rate_process=poisson.
. "$(dirname "$0")/lib.sh"
echo "1..14"
FIO=${FIO:-fio}
cd "$WORK" || exit 1
head -c 256k /dev/urandom > s.dat
untimed() { cut -d' ' -f2- "$1"; }

# include: options of another file in the section, found beside the job
# file (run from elsewhere), as fio does
mkdir -p jobs/inc && cd jobs || exit 1
printf 'rw=write\nbs=8k\ninclude inc/more.fio\n' > common.fio
printf 'size=64k\nfsync=2\n' > inc/more.fio
printf '[w]\nfilename=%s/../s.dat\ninclude common.fio\nwrite_iolog=%s/LOG\n' "$PWD" "$PWD" > job.fio
cd .. || exit 1
"$PROBE" jobs/job.fio > /dev/null && mv jobs/LOG p.log && "$FIO" jobs/job.fio > /dev/null 2>&1 && mv jobs/LOG f.log
[ "$(untimed p.log)" = "$(untimed f.log)" ] && [ "$(grep -c ' write ' p.log)" = 8 ] && [ "$(grep -c ' sync ' p.log)" = 3 ]
ok $? "include (nested, relative to the including file): the job fio runs (write_iolog line for line)"
printf '[w]\ninclude sect.fio\n' > jobs/bad.fio && printf 'size=4k\n[other]\n' > jobs/sect.fio
! "$PROBE" --parse-only jobs/bad.fio 2> e1 && grep -q "jobs/sect.fio:2: no new sections in included files" e1
ok $? "a section in an included file: $(cat e1)"
printf '[w]\ninclude nothere.fio\n' > jobs/miss.fio && printf '[w]\ninclude loop.fio\n' > jobs/loop0.fio &&
	printf 'include loop.fio\n' > jobs/loop.fio
! "$PROBE" --parse-only jobs/miss.fio 2> e2 && grep -q "jobs/miss.fio:2: include jobs/nothere.fio: No such file" e2 &&
	! "$PROBE" --parse-only jobs/loop0.fio 2> e3 && grep -q "jobs/loop.fio:1: include loop.fio: includes nested more than 16 deep" e3
ok $? "a missing include and an include loop: file:line errors ($(cat e2); $(cut -c1-80 e3))"
printf '[w]\ninclude bad-opt.fio\n' > jobs/opt.fio && printf 'size=4k\nfrobnicate=1\n' > jobs/bad-opt.fio
! "$PROBE" --parse-only jobs/opt.fio 2> e4 && grep -q "jobs/bad-opt.fio:2: option 'frobnicate'" e4
ok $? "an error inside an included file names that file and line: $(cat e4)"

# significant_figures: the numbers of the job line, banner and group line as fio's
sf() { "$1" --name=s --filename=s.dat --size=64k --bs=4k --significant_figures="$2" 2>&1 |
	grep -oE "bs=\(R\) [^,]*|read: \([^/]*|io=[^,]*"; }
[ "$(sf "$PROBE" 2)" = "$(sf "$FIO" 2)" ] && [ "$(sf "$PROBE" 6)" = "$(sf "$FIO" 6)" ] &&
	[ "$(sf "$PROBE" 2)" != "$(sf "$PROBE" 6)" ]
ok $? "significant_figures=2 and 6: fio's figures ($(sf "$PROBE" 6 | tr '\n' ' '))"
! "$PROBE" --parse-only --name=s --significant_figures=11 2> /dev/null && ! "$PROBE" --parse-only --name=s --significant_figures=0 2> /dev/null
ok $? "significant_figures outside 1..10 refused (fio's range)"

# refill_buffers: every write its own random data (without, and without
# scramble_buffers, one buffer is reused at depth 1)
"$PROBE" --name=w --rw=write --bs=4k --size=16k --filename=r0.dat --scramble_buffers=0 > /dev/null &&
	"$PROBE" --name=w --rw=write --bs=4k --size=16k --filename=r1.dat --refill_buffers > /dev/null
diffb() { cmp -l <(head -c 4096 "$1") <(tail -c +4097 "$1" | head -c 4096) | wc -l; }
[ "$(diffb r0.dat)" = 0 ] && [ "$(diffb r1.dat)" -gt 4000 ]
ok $? "refill_buffers: consecutive blocks differ ($(diffb r1.dat) of 4096 bytes; $(diffb r0.dat) without)"

# rate_iops_min: after fio's 2 s settle and one ratecycle the job ends with EIO, as fio
slow=(--name=m --ioengine=null --size=1g --thinktime=10ms --rate_iops_min=500 --time_based --runtime=20
      --output-format=json)
# (fio prints its error line into stdout, before the JSON)
"$PROBE" "${slow[@]}" > m.json 2> m.err; "$FIO" "${slow[@]}" 2> mf.err | sed -n '/^{/,$p' > mf.json
J() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]; print(eval(sys.argv[2]))' "$@"; }
[ "$(J m.json 'j["error"]')" = 5 ] && [ "$(J mf.json 'j["error"]')" = 5 ] && grep -q "m: rate_iops_min=500 not met, got" m.err &&
	[ "$(J m.json 'j["read"]["runtime"]')" -lt 10000 ]
ok $? "rate_iops_min=500 at ~100 IOPS: error 5 after $(J m.json 'j["read"]["runtime"]') ms, as fio ($(J mf.json 'j["read"]["runtime"]') ms): $(head -1 m.err)"
"$PROBE" --name=m --ioengine=null --size=1g --rate_min=1k --time_based --runtime=3 --output-format=json > ok.json
[ "$(J ok.json 'j["error"]')" = 0 ]
ok $? "rate_min=1k, easily kept: no error"
! "$PROBE" --parse-only --name=m --rate=1m --rate_iops=10 2> x1 && ! "$PROBE" --parse-only --name=m --rate_iops=10 --rate_iops_min=20 2> x2 &&
	grep -q "mutually exclusive" x1 && grep -q "minimum rate exceeds rate" x2
ok $? "fio's rate checks: $(cut -d: -f3- x1); $(cut -d: -f3- x2)"

# exitall_on_error: a job that fails (its minimum rate) ends the others of
# its group (fio's exit_what), as in fio
ex=(--output-format=json --name=bad --ioengine=null --size=1g --thinktime=10ms --rate_iops_min=500
    --time_based --runtime=20 --exitall_on_error --name=long --ioengine=null --size=1m --time_based --runtime=20)
"$PROBE" "${ex[@]}" > ex.json 2> /dev/null; "$FIO" "${ex[@]}" 2> /dev/null | sed -n '/^{/,$p' > exf.json
longrun() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"]; print(j[0]["error"], j[1]["read"]["runtime"] < 10000)' "$1"; }
[ "$(longrun ex.json)" = "5 True" ] && [ "$(longrun exf.json)" = "5 True" ]
ok $? "exitall_on_error: the 20 s job stops when the other fails ($(longrun ex.json); fio $(longrun exf.json))"

# rate_process=poisson: exponential gaps (mean 5 ms at 200 IOPS): about
# e^-0.2 of them longer than a fifth of the mean and e^-2 longer than
# twice it (linear pacing, shown beside, has such gaps only after stalls)
"$PROBE" --name=p --ioengine=null --size=1g --rate_iops=200 --rate_process=poisson --number_ios=400 --trace=po.tr > /dev/null &&
	"$PROBE" --name=p --ioengine=null --size=1g --rate_iops=200 --number_ios=400 --trace=li.tr > /dev/null
shares() { "$PROBE" --dump-trace "$1" | sed -n 's/^record [0-9]*: .* start_ns=\([0-9]*\) .*/\1/p' |
	awk 'NR > 1 {g = $1 - p; n++; s += (g < 1000000); l += (g > 10000000)} {p = $1} END {printf "%d %d", 100 * s / n, 100 * l / n}'; }
read -r ps pl <<< "$(shares po.tr)"; read -r ls ll <<< "$(shares li.tr)"
[ "$ps" -ge 8 ] && [ "$ps" -le 40 ] && [ "$pl" -ge 5 ] && [ "$pl" -le 30 ]
ok $? "rate_process=poisson: $ps% of gaps under 1 ms, $pl% over 10 ms (linear: $ls%, $ll%)"

# wait_for: the job starts once every clone of the job it names has ended
"$PROBE" --name=w --ioengine=null --size=1m --time_based --runtime=1 --rate_iops=500 --numjobs=2 \
	--name=r --ioengine=null --size=64k --wait_for=w --trace=wf.tr > /dev/null
order=$("$PROBE" --dump-trace wf.tr | grep '^record [0-9]' |
	sed 's/.*start_ns=\([0-9]*\) .*complete_ns=\([0-9]*\) .*job=\([0-9]\).*/\3 \1 \2/' |
	awk '$1 == 0 && $3 > w {w = $3} $1 == 1 && (r == 0 || $2 < r) {r = $2; n++} END {print (r > w && n > 0) ? "after" : "before"}')
[ "$order" = after ]
ok $? "wait_for=w: the reader's first request starts after the last of w's two clones completed"
! "$PROBE" --name=r --ioengine=null --size=4k --wait_for=w --name=w --ioengine=null --size=4k 2> wf1 &&
	! "$PROBE" --name=r --ioengine=null --size=4k --wait_for=r 2> wf2 && grep -q "waitee job w unknown" wf1 &&
	grep -q "cannot wait for itself" wf2
ok $? "wait_for a later job or itself refused, as fio: $(cat wf1); $(cat wf2)"
finish
