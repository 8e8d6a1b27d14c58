#!/bin/bash
# fio 3.33's informational and diagnostic command-line options:
# --cmdhelp (the probe's option table against its docs; the C test
# probe-jobhelp checks it against the parser and fio's option list),
# --debug, --idle-prof, --crctest, --memcpytest,
# --cpuclock-test, --aux-path; the job options gtod_cpu and
# log_compression_cpus, seen through --debug.
. "$(dirname "$0")/lib.sh"
echo "1..32"
FIO=${FIO:-fio}
DOC=$(cd "$(dirname "$0")/../.." && pwd)/docs/iogap-probe.md
GEN="$(cd "$(dirname "$0")" && pwd)/blktrace_gen.py"
NCPU=$(nproc)
cd "$WORK" || exit 1

# ---- --cmdhelp ----
"$PROBE" --cmdhelp=all > all.txt && "$PROBE" --cmdhelp > bare.txt && cmp -s all.txt bare.txt &&
	grep -Eq '^bs +: Block size' all.txt && [ "$(wc -l < all.txt)" -gt 200 ]
ok $? "--cmdhelp=all (and bare --cmdhelp): one 'name : help' line per option ($(wc -l < all.txt) lines)"
"$PROBE" --cmdhelp=blocksize > bs.txt && "$PROBE" --cmdhelp=bs | cmp -s - bs.txt &&
	grep -Eq '^ +bs: Block size' bs.txt && grep -Eq '^ +alias: blocksize$' bs.txt &&
	grep -Eq '^ +type: string with possible k/m/g postfix' bs.txt
ok $? "--cmdhelp=bs and its alias blocksize: fio's name, alias and type lines: $(tr '\n' '|' < bs.txt)"
! "$PROBE" --cmdhelp=no_such_opt > o.txt 2> e.txt && grep -qx 'No such command: no_such_opt' e.txt &&
	! "$PROBE" --cmdhelp=hostname 2> e2.txt && grep -q 'No such command: hostname' e2.txt
ok $? "--cmdhelp of an unknown name and of a missing engine's option (net's hostname): fio's 'No such command', exit 1"
! "$PROBE" --cmdhelp=bz > z.txt 2> e.txt && [ "$(cat e.txt)" = "No such command: bz" ] &&
	[ "$(head -1 z.txt)" = " - showing closest match" ] && grep -Eq '^ +bs: Block size' z.txt &&
	[ "$(cat o.txt)" = "" ]
ok $? "--cmdhelp=bz: the closest option (bs) shown after the error, as fio; none for a name 3 edits away or more"

# every option of docs/iogap-probe.md's "Supported options" table is in it
# (less the values and kernel names the table also writes in backticks)
not_options='aio_rw_flags|block|low-high|min-max|mixed|rw_flags|states'
awk '/^## Supported options/{on=1; next} /^## /{on=0} on && /^\| /' "$DOC" |
	cut -d'|' -f3 | grep -o '`[a-z][a-z0-9_-]*`' | tr -d '`' | grep -Evx "$not_options" |
	sort -u > documented.txt
"$PROBE" --cmdhelp=all | sed 's/ *:.*//' > names.txt
missing=""
while read -r o; do   # the names listed, else an alias --cmdhelp knows
	grep -qx -- "$o" names.txt || "$PROBE" --cmdhelp="$o" > /dev/null 2>&1 || missing="$missing $o"
done < documented.txt
[ -z "$missing" ] && [ "$(wc -l < documented.txt)" -gt 200 ]
ok $? "each of the $(wc -l < documented.txt) options of the documented table has a --cmdhelp entry${missing:+; missing:$missing}"

# ---- --debug ----
"$PROBE" --debug=help > dh.txt
if command -v "$FIO" > /dev/null; then
	[ "$(head -1 dh.txt)" = "$("$FIO" --debug=help | head -1)" ] &&
		grep -q '^iogap-probe: .*mem,mutex,profile,time,net,helperthread$' dh.txt
	ok $? "--debug=help: fio's line ($(head -1 dh.txt)), then the categories without output"
else
	skip "--debug=help as fio's" "fio is not installed"
fi
! "$PROBE" --debug=io,bogus --name=x --ioengine=null --size=64k 2> e.txt > o.txt &&
	grep -q "no category 'bogus'" e.txt && [ ! -s o.txt ]
ok $? "--debug with an unknown category: an error naming it, nothing run: $(cat e.txt)"
! "$PROBE" --debug=job:1 --name=x --ioengine=null --size=64k 2> e.txt > /dev/null &&
	grep -q "no category 'job:1'" e.txt
ok $? "--debug=job:N (fio's one-job filter) is refused"
"$PROBE" --name=d --ioengine=psync --bs=4k --size=32k --rw=write --filename=d.dat \
	--debug=io,file,process,job,random --output-format=json > d.json 2> d.err
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' d.json &&
	[ "$(grep -Ec '^io       [0-9]+ +queue: io_u 0x[0-9a-f]+: off=0x[0-9a-f]+,len=0x1000,ddir=1,file=d.dat' d.err)" = 8 ] &&
	[ "$(grep -Ec '^io       [0-9]+ +complete: ' d.err)" = 8 ] &&
	grep -Eq '^file     [0-9]+ +fd open d.dat: fd=[0-9]+, region 0\+32768$' d.err &&
	grep -Eq '^process  [0-9]+ +jobs pid=[0-9]+ started \(job d clone 0\)' d.err &&
	grep -Eq '^job      [0-9]+ +job d clone 0: rw=write, ioengine=psync' d.err &&
	grep -Eq '^random   [0-9]+ +job d clone 0: seed [0-9]+' d.err
ok $? "--debug=io,file,process,job,random: fio's 'category pid text' lines on stderr (8 queued, 8 completed writes), the JSON on stdout intact"
"$PROBE" --parse-only --name=p --ioengine=null --size=1m --bs=8k --debug=parse 2> p.err
grep -Eq '^parse    [0-9]+ +handle_option=bs, val=8k \(job p\)' p.err
ok $? "--debug=parse: each option set is logged, also those before --debug"
"$PROBE" --debug=verify,rate --name=v --size=32k --bs=4k --rw=write --verify=crc32c --rate_iops=100 \
	--filename=vr.dat > /dev/null 2> vr.err
[ "$(grep -Ec '^verify   [0-9]+ +verify crc32c: vr.dat off=[0-9]+ len=4096 ok$' vr.err)" = 8 ] &&
	grep -Eq '^rate     [0-9]+ +ddir=1: [0-9]+ usec until the next I/O is due$' vr.err
ok $? "--debug=verify,rate: each of the 8 blocks checked, the waits of rate_iops=100 (10 ms apart)"
printf '1000 Qr 0 4096\n2000 Qr 8 4096\n3000 Cr 0 4096\n' | "$GEN" b.bin &&
	dd if=/dev/zero of=s.dat bs=64k count=1 status=none &&
	"$PROBE" --debug=blktrace --name=r --read_iolog=b.bin --replay_redirect=s.dat > /dev/null 2> b.err
[ "$(grep -E '^blktrace [0-9]+ +record [0-9]+: action 0x[0-9a-f]+, sector [0-9]+, 4096 bytes$' b.err |
	sed 's/.*record \([0-9]*\): action 0x\([0-9a-f]*\), sector \([0-9]*\).*/\1:\2:\3/' | sort -u | tr '\n' ' ')" = \
	"1:110001:0 2:110001:8 3:110008:0 " ]
ok $? "--debug=blktrace: each record of the replayed capture (queue 0, queue 8, complete 0)"
"$PROBE" --name=d --ioengine=psync --size=32k --rw=write --filename=d.dat > /dev/null 2> n.err &&
	[ ! -s n.err ]
ok $? "without --debug no debug line"

# ---- --idle-prof ----
"$PROBE" --idle-prof=percpu --output-json=i.json --name=i --ioengine=null --size=64m \
	--bs=4k > i.out 2> i.err
python3 - i.json i.out "$NCPU" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
idle = doc["cpu_idleness"]
cpus = [k for k in idle if k.startswith("cpu-")]
ok = (list(doc)[-1] == "cpu_idleness" and len(cpus) == int(sys.argv[3]) and
      all(isinstance(idle[k], float) and idle[k] >= 0 for k in idle) and idle["unit_mean"] > 0 and
      abs(idle["system"] - sum(idle[k] for k in cpus) / len(cpus)) < 0.01)
normal = open(sys.argv[2]).read()
block = re.search(r"\nCPU idleness:\n  system: [0-9.]+%\n  percpu: ([0-9.]+%(, )?)+\n"
                  r"  unit work: mean=[0-9.]+us, stddev=[0-9.]+\n$", normal)
ok = ok and block is not None and block.group(0).count("%, ") == int(sys.argv[3]) - 1
sys.exit(0 if ok else 1)
PY
ok $? "--idle-prof=percpu: JSON's cpu_idleness (system the mean of one cpu-N per CPU, unit_mean) last, the normal output's 'CPU idleness' block at its end"
"$PROBE" --idle-prof=system --name=i --ioengine=null --size=16m > s.out &&
	grep -Eq '^  system: [0-9.]+%$' s.out && ! grep -q percpu s.out
ok $? "--idle-prof=system: the system line, no percpu line"
"$PROBE" --idle-prof=calibrate --name=c --size=64k --filename=c.dat > c.out &&
	[ "$(head -1 c.out)" = "CPU idleness:" ] && grep -Eq '^  unit work: mean=[0-9.]+us, stddev=[0-9.]+$' c.out &&
	[ "$(wc -l < c.out)" = 2 ] && [ ! -e c.dat ]
ok $? "--idle-prof=calibrate: fio's two lines, no job run: $(tr '\n' '|' < c.out)"
! "$PROBE" --idle-prof=sometimes --name=x --ioengine=null --size=64k 2> e.txt && grep -q 'idle-prof' e.txt
ok $? "--idle-prof with another value is an error"

# ---- --crctest, --memcpytest, --cpuclock-test ----
"$PROBE" --crctest=crc32c,sha3-256,md5,xxhash,sha1 > crc.txt
[ "$(sed 's/:.*//' crc.txt | tr '\n' ' ')" = "md5 crc32c sha1 xxhash sha3-256 " ] &&
	[ "$(grep -Ec $'^(md5|crc32c|sha1|xxhash):\t\t|^sha3-256:\t[ 0-9]' crc.txt)" = 5 ] &&
	[ "$(grep -Ec ' *[0-9]+\.[0-9]{2} MiB/sec$' crc.txt)" = 5 ]
ok $? "--crctest=crc32c,sha3-256,md5,xxhash,sha1: fio's order and line shape: $(tr '\t\n' ' |' < crc.txt)"
if command -v "$FIO" > /dev/null; then
	"$FIO" --crctest=md5,crc32c,xxhash,sha1,sha3-256 | sed 's/ *[0-9.]* MiB/N MiB/' > fcrc.txt
	sed 's/ *[0-9.]* MiB/N MiB/' crc.txt | cmp -s - fcrc.txt
	ok $? "--crctest lines are fio's but for the numbers"
else
	skip "--crctest against fio" "fio is not installed"
fi
"$PROBE" --crctest=help > h.txt; r=$?
[ $r = 1 ] && [ "$(tr '\n' ' ' < h.txt)" = "md5 crc64 crc32 crc32c crc16 crc7 sha1 sha256 xxhash sha3-224 sha3-256 sha3-384 sha3-512 " ]
ok $? "--crctest=help lists the probe's checksums and exits 1, as fio"
! "$PROBE" --crctest=murmur3 > u.txt 2> e.txt && grep -q 'unknown hash `murmur3`' e.txt && grep -qx crc7 u.txt
ok $? "--crctest of a checksum the probe lacks (murmur3): fio's 'unknown hash' and the list"
"$PROBE" --memcpytest=memcpy > m.txt
[ "$(head -1 m.txt)" = memcpy ] && [ "$(wc -l < m.txt)" = 12 ] &&
	[ "$(grep -Ec $'^\t''[0-9]+ bytes:'$'\t'' *[0-9]+\.[0-9]{2} MiB/sec$' m.txt)" = 11 ] &&
	grep -q $'^\t524288 bytes:' m.txt
ok $? "--memcpytest=memcpy: the name, then fio's 11 piece sizes from 8 to 524288 bytes"
"$PROBE" --cpuclock-test > cc.txt; r=$?
grep -Eq '^cs: reliable_tsc: (yes|no)$' cc.txt && grep -qx "cs: Testing $NCPU CPUs" cc.txt &&
	[ "$(grep -Ec '^cs: cpu +[0-9]+: [0-9]+ clocks seen, first [0-9]+$' cc.txt)" = "$NCPU" ] &&
	{ { [ $r = 0 ] && [ "$(tail -1 cc.txt)" = "cs: Pass!" ]; } ||
	  { [ $r = 1 ] && grep -Eq '^cs: Failed: [0-9]+$' cc.txt; }; }
ok $? "--cpuclock-test: fio's lines, one per CPU, and an exit status that matches the verdict ($(tail -1 cc.txt))"

# ---- --aux-path ----
mkdir aux
"$PROBE" --name=v --size=16k --rw=write --verify=crc32c --do_verify=0 --filename=v.dat > /dev/null &&
	printf 'XXXX' | dd of=v.dat bs=1 seek=5000 conv=notrunc status=none
! "$PROBE" --aux-path=aux --name=v --size=16k --rw=read --verify=crc32c --verify_dump=1 \
	--filename=v.dat > /dev/null 2> r.err &&
	cmp -s aux/v.dat.4096.received <(dd if=v.dat bs=4096 skip=1 count=1 status=none) &&
	[ ! -e v.dat.4096.received ]
ok $? "--aux-path=aux: verify_dump writes aux/v.dat.4096.received, not into the current directory"
# the verify state goes there too, and is read from there, as fio's
mkdir aux2
"$PROBE" --aux-path=aux2 --name=s --size=64k --rw=write --verify=crc32c --filename=s.dat > /dev/null &&
	[ -s aux2/local-s-0-verify.state ] && [ ! -e local-s-0-verify.state ] &&
	"$PROBE" --aux-path=aux2 --name=s --size=64k --rw=read --verify=crc32c --verify_state_load=1 \
		--filename=s.dat > /dev/null &&
	! "$PROBE" --name=s --size=64k --rw=read --verify=crc32c --verify_state_load=1 \
		--filename=s.dat > /dev/null 2>&1
ok $? "--aux-path=aux2: the verify state is saved to and loaded from aux2/local-s-0-verify.state"
! "$PROBE" --aux-path= --name=x --ioengine=null --size=64k 2> e.txt && grep -q 'aux-path' e.txt
ok $? "--aux-path with no directory is an error"

# ---- log_compression_cpus ----
lgz() { # lgz CPULIST: the CPUs --debug=compress saw, one a line, sorted
	rm -f l_*.log
	"$PROBE" --debug=compress --name=l --ioengine=null --size=8m --bs=4k --write_lat_log=l \
		--log_compression=1k --log_compression_cpus="$1" > /dev/null 2> l.err &&
		grep -E '^compress [0-9]+ +deflate [0-9]+ bytes of samples on cpu [0-9]+$' l.err |
		sed 's/.* cpu //' | sort -u
}
if [ "$NCPU" -ge 2 ]; then
	[ "$(lgz 1)" = 1 ] && [ "$(lgz 0)" = 0 ] && [ "$(grep -c . l.err)" -gt 10 ] &&
		[ "$(wc -l < l_clat.1.log)" = 2048 ]
	ok $? "log_compression_cpus=1, then 0: every chunk deflated on that CPU ($(grep -c . l.err) chunks), the log complete"
else
	skip "log_compression_cpus on CPU 1 then 0" "one CPU only"
fi
! "$PROBE" --name=l --ioengine=null --size=64k --write_lat_log=l --log_compression=1k \
	--log_compression_cpus=1023 > /dev/null 2> e.txt && grep -q 'log_compression_cpus' e.txt
ok $? "log_compression_cpus of a CPU the probe may not use is an error: $(head -1 e.txt)"
printf '[j]\nioengine=null\nsize=1m\nlog_compression_cpus=0-x\n' > bad.fio
! "$PROBE" --parse-only bad.fio 2> e.txt && grep -q "bad.fio:4: option 'log_compression_cpus'" e.txt
ok $? "log_compression_cpus with a malformed list: file:line and the option"

# ---- gtod_cpu ----
if [ "$NCPU" -ge 2 ]; then
	"$PROBE" --debug=process --name=g --ioengine=null --size=64k --cpus_allowed=0-1 --gtod_cpu=1 \
		> /dev/null 2> g.err && grep -Eq 'affinity: 1 CPUs \(gtod_cpu left out\)' g.err &&
		"$PROBE" --debug=process --name=g --ioengine=null --size=64k --cpus_allowed=0-1 \
		> /dev/null 2> g2.err && grep -Eq 'affinity: 2 CPUs$' g2.err
	ok $? "gtod_cpu=1 takes CPU 1 out of cpus_allowed=0-1 (2 CPUs without it)"
else
	skip "gtod_cpu out of cpus_allowed" "one CPU only"
fi
! "$PROBE" --name=g --ioengine=null --size=64k --cpus_allowed=0 --gtod_cpu=0 > /dev/null 2> e.txt &&
	grep -q 'affinity' e.txt
ok $? "gtod_cpu=0 with cpus_allowed=0 leaves the job no CPU: it fails ($(tail -1 e.txt))"
bad_values_ok gtod_cpu=-1 gtod_cpu=4096 gtod_cpu=x
finish
