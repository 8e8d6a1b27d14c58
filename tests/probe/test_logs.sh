#!/bin/bash
# fio's per-job logs beside fio 3.33: write_lat_log, write_bw_log,
# write_iops_log, write_hist_log, per_job_logs, log_offset, log_prio,
# log_avg_msec, log_max_value, log_hist_msec, log_hist_coarseness — the
# same file names and line formats as fio's; averages checked against the
# probe's own trace (values vary run to run, the structure does not).
. "$(dirname "$0")/lib.sh"
echo "1..11"
FIO=${FIO:-fio}
cd "$WORK" || exit 1
head -c 256k /dev/urandom > s.dat
cols() { cut -d, -f3- "$1"; }   # everything but the time and the value

mkdir p f
all=(--name=j --filename="$PWD/s.dat" --size=32k --bs=4k --write_lat_log=L --write_bw_log=B
     --write_iops_log=I --write_hist_log=H --log_offset=1)
(cd p && "$PROBE" "${all[@]}" > /dev/null) && (cd f && "$FIO" "${all[@]}" > /dev/null)
[ "$(ls p)" = "$(ls f)" ] && [ "$(ls p | wc -l)" = 6 ]
ok $? "the files of fio: $(ls p | tr '\n' ' ')"
same=1
for log in L_clat.1.log L_lat.1.log B_bw.1.log I_iops.1.log L_slat.1.log; do
	[ "$(cols "p/$log")" = "$(cols "f/$log")" ] || { same=0; echo "# $log differs"; }
done
[ $same = 1 ] && [ "$(wc -l < p/L_clat.1.log)" = 8 ] && [ ! -s p/L_slat.1.log ]
ok $? "every request: ddir, bs, offset, prio as fio's, line for line (psync: an empty slat log, as fio)"
paste -d, p/B_bw.1.log p/L_clat.1.log p/I_iops.1.log |
	awk -F', *' '{ok = ok && $2 == int($4 * 1000000 / $8) && $14 == 1} BEGIN {ok = 1} END {exit !ok}'
ok $? "bw = bytes * 10^6 / clat ns, iops = 1 per request (fio's per-request values)"

aio=(--name=a --filename="$PWD/s.dat" --size=32k --bs=8k --ioengine=libaio --iodepth=2
     --write_lat_log=A --log_prio=1)
rm -rf p/* f/*
(cd p && "$PROBE" "${aio[@]}" > /dev/null) && (cd f && "$FIO" "${aio[@]}" > /dev/null)
[ "$(cols p/A_slat.1.log)" = "$(cols f/A_slat.1.log)" ] && [ "$(wc -l < p/A_slat.1.log)" = 4 ] &&
	[ "$(cut -d, -f5 p/A_lat.1.log | sort -u)" = " 0x0000" ]
ok $? "libaio: slat logged; log_prio=1: the priority as 0x0000, as fio"

printf '[global]\nfilename=%s\nsize=16k\nbs=4k\nper_job_logs=0\nwrite_bw_log\n[one]\n[two]\nwrite_iops_log=T\n' \
	"$PWD/s.dat" > shared.fio
rm -rf p/* f/*
(cd p && "$PROBE" ../shared.fio > /dev/null) && (cd f && "$FIO" ../shared.fio > /dev/null)
[ "$(ls p)" = "$(ls f)" ] && [ "$(wc -l < p/one_bw.log)" = 4 ] && [ "$(wc -l < p/two_bw.log)" = 4 ] &&
	[ "$(cols p/T_iops.log)" = "$(cols f/T_iops.log)" ]
ok $? "per_job_logs=0, bare write_bw_log: fio's names ($(ls p | tr '\n' ' '))"
(cd p && "$PROBE" ../shared.fio > /dev/null)
[ "$(wc -l < p/one_bw.log)" = 8 ]
ok $? "per_job_logs=0: appended to, as fio"

rm -rf p/* f/*
(cd p && "$PROBE" --name=d --filename="$PWD/../s.dat" --size=16k --write_lat_log=D --disable_slat=1 > /dev/null &&
	"$PROBE" --name=g --filename="$PWD/../s.dat" --size=16k --write_lat_log=G --gtod_reduce=1 > /dev/null)
(cd f && "$FIO" --name=d --filename="$PWD/../s.dat" --size=16k --write_lat_log=D --disable_slat=1 > /dev/null &&
	"$FIO" --name=g --filename="$PWD/../s.dat" --size=16k --write_lat_log=G --gtod_reduce=1 > /dev/null)
[ "$(ls p)" = "$(ls f)" ] && [ "$(ls p)" = "$(printf 'D_clat.1.log\nD_lat.1.log')" ]
ok $? "disable_slat / gtod_reduce: only the latency logs still measured, as fio ($(ls p | tr '\n' ' '))"

# log_avg_msec longer than the job: one window, logged at the end, per
# direction: the mean (rounded) or with log_max_value the largest clat of
# the requests in the trace
rm -rf p/*
avg=(--name=w --filename="$PWD/s.dat" --rw=randrw --size=64k --bs=4k --log_avg_msec=100000)
(cd p && "$PROBE" "${avg[@]}" --write_lat_log=M --trace=m.tr > /dev/null &&
	"$PROBE" "${avg[@]}" --write_lat_log=X --log_max_value=1 --trace=x.tr > /dev/null)
clats() { "$PROBE" --dump-trace "$1" | sed -n 's/^record [0-9]*: .* op=\(read\|write\) .* clat_ns=\([0-9]*\) .*/\1 \2/p'; }
want_mean=$(clats p/m.tr | awk '{n[$1]++; s[$1] += $2} END {printf "0:%d 1:%d", s["read"] / n["read"] + 0.5, s["write"] / n["write"] + 0.5}')
want_max=$(clats p/x.tr | awk '$2 > m[$1] {m[$1] = $2} END {printf "0:%d 1:%d", m["read"], m["write"]}')
got() { sort -t, -k3 "$1" | awk -F', *' '{printf "%s%s:%s", (NR > 1 ? " " : ""), $3, $2} END {if (NR != 2) print " lines=" NR}'; }
[ "$(got p/M_clat.1.log)" = "$want_mean" ] && [ "$(got p/X_clat.1.log)" = "$want_max" ] &&
	[ "$(cut -d, -f4- p/M_clat.1.log | sort -u)" = " 0, 0" ]
ok $? "log_avg_msec: per direction the window's mean ($want_mean), log_max_value its maximum ($want_max), bs 0"

# bw and iops averaged every 200 ms, as fio's helper thread samples them
rm -rf p/* f/*
rate=(--name=r --filename="$PWD/s.dat" --rw=randrw --bs=4k --rate_iops=500 --runtime=1 --time_based
      --write_bw_log=R --write_iops_log=R --log_avg_msec=200)
(cd p && "$PROBE" "${rate[@]}" > /dev/null) && (cd f && "$FIO" "${rate[@]}" > /dev/null)
paste -d, p/R_bw.1.log p/R_iops.1.log | awk -F', *' '{ok = ok && $2 == 4 * $7 && $1 == $6 && $1 % 200 == 0 && $4 == 0}
	BEGIN {ok = 1} END {exit !(ok && NR >= 8)}' && [ "$(cut -d, -f3 p/R_bw.1.log | sort -u | tr -d ' \n')" = 01 ] &&
	[ "$(head -2 p/R_bw.1.log | cols /dev/stdin)" = "$(head -2 f/R_bw.1.log | cols /dev/stdin)" ]
ok $? "log_avg_msec=200: bw (KiB/s) = 4 x iops every 200 ms per direction, bs 0, as fio's lines ($(head -1 p/R_iops.1.log); fio $(head -1 f/R_iops.1.log))"

# histograms: fio's 1856 buckets (log_hist_coarseness=N sums 2^N), counts
# since the previous line
hist=(--name=h --filename="$PWD/s.dat" --size=64k --bs=4k --rate_iops=1000 --write_hist_log=H --log_hist_msec=2)
rm -rf p/* f/*
(cd p && "$PROBE" "${hist[@]}" > /dev/null && "$PROBE" "${hist[@]}" --log_hist_coarseness=4 --write_hist_log=C > /dev/null) &&
	(cd f && "$FIO" "${hist[@]}" > /dev/null && "$FIO" "${hist[@]}" --log_hist_coarseness=4 --write_hist_log=C > /dev/null)
fields() { awk -F', ' '{print NF}' "$1" | sort -u; }
[ "$(fields p/H_clat_hist.1.log)" = "$(fields f/H_clat_hist.1.log)" ] && [ "$(fields p/H_clat_hist.1.log)" = 1859 ] &&
	[ "$(fields p/C_clat_hist.1.log)" = "$(fields f/C_clat_hist.1.log)" ]
ok $? "hist log: fio's columns ($(fields p/H_clat_hist.1.log), coarseness 4: $(fields p/C_clat_hist.1.log))"
awk -F', ' '{for (i = 4; i <= NF; i++) n += $i} END {exit !(n >= 1 && n <= 16)}' p/H_clat_hist.1.log &&
	[ "$(cut -d, -f2,3 p/H_clat_hist.1.log | sort -u)" = " 0, 4096" ]
ok $? "hist log: each request counted at most once over the lines, read, bs 4096"
finish
