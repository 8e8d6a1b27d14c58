#!/bin/bash
# Marker boot: the guest prints IOGAP-GUEST-READY within 60 s under TCG and
# QEMU exits by itself (reboot -f with -no-reboot).
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
echo "1..3"
boot "$WORK/log" --mode marker --timeout 60
rc=$?
grep -q '^IOGAP-GUEST-READY$' "$WORK/log"
ok $? "marker printed on a line of its own"
ok $rc "QEMU exited by itself with status 0 within 60 s ($(tail -n 1 "$WORK/log.summary"))"
! grep -q '^IOGAP-ERROR' "$WORK/log"
ok $? "no IOGAP-ERROR"
[ $failed = 0 ] || diag "$WORK/log"
finish
