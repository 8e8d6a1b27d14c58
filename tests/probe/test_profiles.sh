#!/bin/bash
# fio's built-in profiles (--profile=tiobench, --profile=act) beside fio
# 3.33 itself: the jobs they generate (JSON job names and "job options"),
# what they do (I/O amounts), act's report, and the errors.
. "$(dirname "$0")/lib.sh"
FIO=${FIO:-fio}
command -v "$FIO" > /dev/null || skip_all "fio is not installed"
command -v bc > /dev/null || skip_all "bc is not installed (fio works out its tiobench size with it; scripts/debian-packages.txt)"
echo "1..19"
cd "$WORK" || exit 1

# summary JSON: per reported job, its name, rw and the bytes read and
# written, one line each
summary() {
	python3 -c 'import json,sys
for j in json.load(open(sys.argv[1]))["jobs"]:
    print(j["jobname"], j["job options"].get("rw"), j["read"]["io_bytes"], j["write"]["io_bytes"])' "$1"
}
names() { python3 -c 'import json,sys; print(*(j["jobname"] for j in json.load(open(sys.argv[1]))["jobs"]))' "$1"; }
# fio_parsed FILE KEY...: "fio --opt=value ..." of the options fio's
# --debug=parse output in FILE shows it parsing, those named KEY (given on
# the command line) left out: what the profile generated
fio_parsed() {
	local f=$1 k drop=(-e '^$'); shift
	for k in "$@"; do drop+=(-e "^--$k="); done
	printf 'fio '
	sed -n 's/^parse *[0-9]* *handle_option=\(.*\), ptr=\(.*\)$/--\1=\2 /p' "$f" | sed 's/=(null) $/ /' |
		grep -v "${drop[@]}" | tr -d '\n'
	echo
}

# ---- tiobench: four stonewalled phases over .fio.tio.1-4 in the current
# directory; --filesize (not set by the profile) keeps the files small
mkdir tf tp
TIO=(--profile=tiobench --filesize=256k --output-format=json)
(cd tf && "$FIO" "${TIO[@]}" > ../tf.json 2> ../tf.err)
(cd tp && "$PROBE" --eta=never "${TIO[@]}" > ../tp.json 2> ../tp.err)
ok $? "tiobench runs ($(head -c 300 tp.err))"
# fio's debug output names timeout= by its option, runtime
(cd tf && "$FIO" --debug=parse --profile=tiobench --parse-only > ../tparse.txt 2>&1)
[ "$("$PROBE" --showcmd --profile=tiobench | sed 's/--timeout=/--runtime=/')" = "$(fio_parsed tparse.txt)" ]
ok $? "tiobench generates the options fio parses: $("$PROBE" --showcmd --profile=tiobench)"
[ "$(summary tp.json)" = "$(summary tf.json)" ] && [ "$(summary tp.json | wc -l)" = 4 ]
ok $? "tiobench: fio's jobs and I/O amounts: $(summary tp.json | tr '\n' '|')"
[ "$(cd tp && echo .fio.tio.*)" = "$(cd tf && echo .fio.tio.*)" ] &&
	[ -e tp/.fio.tio.4 ]
ok $? "tiobench: the same four files as fio: $(cd tp && echo .fio.tio.*)"

# fio 3.33 never applies --numruns/--block/--threads/--dir: same jobs, a warning
(cd tp && "$PROBE" --eta=never "${TIO[@]}" --numruns=2 --block=8k > ../tn.json 2> ../tn.err)
[ "$(summary tn.json)" = "$(summary tf.json)" ] && grep -q "warning: fio 3.33's tiobench ignores" tn.err
ok $? "tiobench --numruns/--block: fio's jobs all the same, with a warning: $(cat tn.err)"

# ---- act on regular files: fio's act takes any file it can size (here
# by --size); --test-duration=1 is 1 us, written as runtime=1s
# shellcheck disable=SC2054 # the comma is act's device list
ACT=(--size=1m --profile=act --device-names=a.dat,b.dat --test-duration=1 --threads-per-queue=2)
mkdir af ap
(cd af && "$FIO" --debug=parse "${ACT[@]}" --output-format=terse > ../aparse.txt 2>&1)
[ "$("$PROBE" --showcmd "${ACT[@]}")" = "$(fio_parsed aparse.txt size device-names test-duration threads-per-queue)" ]
ok $? "act generates the options fio parses (two devices): $("$PROBE" --showcmd "${ACT[@]}")"
ACT=(--size=4m --profile=act --device-names=act.dat --test-duration=1 --threads-per-queue=2
     --output-format=json)
(cd af && "$FIO" "${ACT[@]}" > ../af.out 2> ../af.err)
(cd ap && "$PROBE" --eta=never "${ACT[@]}" > ../ap.out 2> ../ap.err)
ok $? "act runs on a regular file ($(head -c 300 ap.err))"
# the report comes before the JSON, as fio's
sed -n '/^{/,$p' af.out > af.json; sed -n '/^{/,$p' ap.out > ap.json
[ "$(names ap.json)" = "$(names af.json)" ] && [ -n "$(names ap.json)" ]
ok $? "act: fio's reported job: $(names ap.json)"
report() { sed -n '1,/^{/p' "$1" | grep -v '^{' | sed 's/[0-9]\+\.[0-9][0-9]/N/g; s/PASSED\|FAILED/P/'; }
[ "$(report ap.out)" = "$(report af.out)" ] && grep -q "^act: test complete, device(s): \(PASSED\|FAILED\)$" ap.out
ok $? "act's report has fio's lines (shares and verdict aside): $(report ap.out | tr '\n\t' '| ')"
python3 -c 'import json; j=json.load(open("ap.json"))["jobs"][0]; assert j["read"]["io_bytes"] > 0 and j["write"]["io_bytes"] > 0' &&
	grep -q '^    1	[0-9.]*	' ap.out
ok $? "act read and wrote, and reports slice 1: $(grep '^    1' ap.out)"

# an injected 2 ms per request (null engine): every request is over 1 ms,
# in one bucket each, so the slice's shares add up to 100 and act fails
(cd ap && "$PROBE" --eta=never "${ACT[@]}" --force=ioengine=null --null-latency-ns=2000000 \
	> ../an.out 2> ../an.err)
awk -F'\t' '/^    1\t/ { s = $2 + $3 + $4; ok = s > 99.99 && s < 100.01 && $2 == $5 && $3 == $6 }
	END { exit !ok }' an.out && grep -q "^act: test complete, device(s): FAILED$" an.out
ok $? "act counts each request in one latency bucket, FAILED over the limits: $(grep '^    1' an.out)"

# the report goes where the results go
(cd ap && "$PROBE" --eta=never "${ACT[@]}" --output=../ao.out > ../ao.stdout 2> ../ao.err) &&
	[ "$(report ao.out)" = "$(report ap.out)" ] && [ ! -s ao.stdout ]
ok $? "act's report goes to --output, as fio's log_info"

# --prep: zero fill, then a random 4k overwrite (libaio, depth 64)
# (the report, all zeros then, is printed too, as fio)
(cd af && "$FIO" "${ACT[@]}" --prep > ../pf.out 2> ../pf.err)
(cd ap && "$PROBE" --eta=never "${ACT[@]}" --prep > ../pp.out 2> ../pp.err)
sed -n '/^{/,$p' pf.out > pf.json; sed -n '/^{/,$p' pp.out > pp.json
[ "$(summary pp.json)" = "$(summary pf.json)" ] && [ "$(summary pp.json | wc -l)" = 2 ] &&
	[ "$(report pp.out)" = "$(report pf.out)" ]
ok $? "act --prep: fio's two jobs and I/O amounts: $(summary pp.json | tr '\n' '|') $(head -c 200 pp.err)"

# --parse-only generates and checks the jobs, creates nothing
mkdir po && (cd po && "$PROBE" --parse-only --size=4m --profile=act --device-names=x.dat) &&
	[ -z "$(ls po)" ]
ok $? "--parse-only with a profile: exit 0, nothing created"

# ---- errors, as fio's
! "$PROBE" --profile=nope --parse-only 2> e1 && grep -q "profile 'nope' not found" e1 &&
	! "$FIO" --profile=nope 2> f1 && grep -q "profile 'nope' not found" f1
ok $? "an unknown profile: $(cat e1)"
! "$PROBE" --profile=act --parse-only 2> e2 &&
	grep -q "act: you need to set IO target(s) with the device-names option" e2 &&
	grep -q "profile act prep failed" e2
ok $? "act without --device-names: $(tr '\n' ' ' < e2)"
! "$PROBE" --profile=act --device-names=x --load=lots --parse-only 2> e3 && grep -q -- "--load: bad value 'lots'" e3 &&
	! "$FIO" --profile=act --device-names=x --load=lots --parse-only 2> /dev/null
ok $? "a bad profile option value names the option: $(cat e3)"
! "$PROBE" --profile=act --device-names=x --threads-per-queue=0 --parse-only 2> e4 &&
	grep -q "threads-per-queue" e4
ok $? "act --threads-per-queue=0 (fio divides by it): $(tr '\n' ' ' < e4)"
! "$PROBE" --parse-only --profile 2> e5 && grep -q -- "--profile needs a profile name" e5
ok $? "--profile without a name: $(cat e5)"
finish
