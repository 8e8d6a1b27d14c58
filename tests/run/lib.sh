# Shared helpers for the iogap run tests (TCG guests).
# shellcheck shell=bash
set -u
n=0
failed=0
ok() { # ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
finish() { exit $((failed > 0)); }
IOGAP=${IOGAP_BUILD:?}/host-tools/iogap
WORK=$(mktemp -d "$IOGAP_BUILD/run-test-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# manifest DIR PYTHON-EXPR: evaluate EXPR with m = the manifest; exit 0 if true
manifest() {
	python3 -c "import json,sys; m=json.load(open('$1/manifest.json')); sys.exit(0 if ($2) else 1)"
}
mval() { python3 -c "import json; m=json.load(open('$1/manifest.json')); print($2)"; }
# a short read phase and a write phase, as in the seed profile
job() { # job ENGINE
	cat <<JOB
[global]
ioengine=$1
direct=1
bs=4k
iodepth=4
size=32m
runtime=2
time_based=1

[rr]
rw=randread

[rw]
rw=randwrite
stonewall
JOB
}
