#!/bin/bash
# iogap run's progress lines through a whole run in a pseudo-terminal (TCG
# guest, null target): bare metal, VM boot, VM job, draining, analysis, in
# that order, each ended by a newline and counted as phase 1 or 2 of 2; and
# without a terminal none of them.
. "$(dirname "$0")/../tap.sh"
IOGAP=${IOGAP_BUILD:?}/host-tools/iogap
W=$(mktemp -d "$IOGAP_BUILD/progress-vm-XXXXXX")
trap 'rm -rf "$W"' EXIT
printf '[r]\nrw=randread\nbs=4k\niodepth=4\nioengine=libaio\nsize=16m\nruntime=1\ntime_based=1\n' > "$W/job.fio"

echo "1..4"
script -q -e -c "$(printf '%q ' "$IOGAP" run --accel tcg --dir "$W/tty" --target null:16m "$W/job.fio")" \
	"$W/tty.out" > /dev/null
ok $? "a bare-metal + VM run in a pseudo-terminal"
# the phases whose line ended (last draw, then the newline), in order
order=$(grep -o $'\e\\[Kiogap: [A-Za-z0-9: ]* [0-9.]* s\r$' "$W/tty.out" | sed 's/^.\[Kiogap: \(.*\) [0-9.]* s.*/\1/' | tr '\n' ',')
[ "$order" = "phase 1 of 2: bare metal,phase 2 of 2: VM boot,phase 2 of 2: VM job,phase 2 of 2: draining,phase 2 of 2: analysis," ]
ok $? "one line per phase, in order: $order"
"$IOGAP" run --accel tcg --dir "$W/pipe" --target null:16m "$W/job.fio" > "$W/pipe.out" 2> "$W/pipe.err"
ok $? "the same run on files"
! grep -q -e $'\r' -e $'\e' -e 'iogap: VM boot' -e 'iogap: VM job' "$W/pipe.err" "$W/pipe.out"
ok $? "without a terminal: no progress bytes ($(wc -l < "$W/pipe.err") lines on stderr: $(tr '\n' '|' < "$W/pipe.err"))"
finish
