#!/bin/bash
# tests/run/iogap-tcg against a stand-in iogap: `run` once more only when
# the guest's probe was stopped at the jobs' own limit in an I/O wait.
. "$(dirname "$0")/../tap.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
TCG=$(dirname "$0")/iogap-tcg
echo "1..5"
# the stand-in: a run into --dir D fails the first time with STACK in
# D/vm/probe.stuck.txt and MESSAGE in the manifest, then succeeds
cat > "$WORK/iogap" <<'SH'
#!/bin/bash
echo "$*" >> "$WORK/calls"
for ((i = 1; i <= $#; i++)); do [ "${!i}" = --dir ] && { j=$((i + 1)); d=${!j}; }; done
[ -e "$d/done" ] && exit 0
mkdir -p "$d/vm" && touch "$d/done"
printf 'thread 1\n  stack:\n    [<0>] %s\n' "$STACK" > "$d/vm/probe.stuck.txt"
printf '{"phases": {"vm": {"message": "%s"}}}\n' "$MESSAGE" > "$d/manifest.json"
exit 1
SH
chmod +x "$WORK/iogap"
export IOGAP_BIN=$WORK/iogap WORK
limit="the probe did not end within 128 s (twice the jobs' runtime plus 120 s): it was stopped"
try() { # try STACK MESSAGE ARGS...: the wrapper's status; calls in $WORK/calls
	rm -rf "$WORK/d" "$WORK/calls"
	STACK=$1 MESSAGE=$2 "$TCG" run --dir "$WORK/d" "${@:3}" j.fio 2> "$WORK/err"
}
try read_events+0x1 "$limit"
[ $? = 0 ] && [ "$(wc -l < "$WORK/calls")" = 2 ] && grep -q -- "--force" "$WORK/calls" &&
	grep -q "iogap-tcg: .*read_events" "$WORK/err"
ok $? "a guest probe stopped at the jobs' limit in read_events: run again with --force, the stack on stderr" "$WORK/err"
try futex_wait+0x1 "$limit"
[ $? = 1 ] && [ "$(wc -l < "$WORK/calls")" = 1 ]
ok $? "in a futex wait (not I/O): the failure stands"
try io_cqring_wait+0x1 "the probe did not end within 3 s (--timeout)" --timeout 3
[ $? = 1 ] && [ "$(wc -l < "$WORK/calls")" = 1 ]
ok $? "with --timeout: the failure stands"
try io_schedule+0x1 "the guest agent: the guest did not answer in time"
[ $? = 1 ] && [ "$(wc -l < "$WORK/calls")" = 1 ]
ok $? "another failure of the VM phase: it stands"
rm -rf "$WORK/d" "$WORK/calls"
"$TCG" report "$WORK/d" > /dev/null 2>&1
[ "$(cat "$WORK/calls")" = "report $WORK/d" ]
ok $? "other commands pass through unchanged"
finish
