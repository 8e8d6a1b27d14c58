# Shared helpers for the iogap run tests (TCG guests).
# shellcheck shell=bash
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
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
