# Shared helpers for the rbd suite: TAP counters (tests/probe/lib.sh) and a
# private Ceph fixture (tests/ceph/fixture) that is stopped on exit.
# shellcheck shell=bash
. "${IOGAP_SRC:?IOGAP_SRC not set}/tests/probe/lib.sh"
FIXTURE="$IOGAP_SRC/tests/ceph/fixture"

# No skipping when Ceph is installed: `make check` installs it
# (scripts/debian-packages.txt).  Without it the suite says why.
for t in ceph-mon ceph-osd ceph rbd fio; do
	command -v $t > /dev/null || { echo "Bail out! $t not installed (scripts/install-deps installs it)"; exit 1; }
done

# Unix socket paths are short: keep the cluster under /tmp, data and all
# (BlueStore's block file is sparse).
CEPH_DIR=$(mktemp -d /tmp/iogap-ceph-XXXXXX)
trap '"$FIXTURE" stop "$CEPH_DIR"; rm -rf "$CEPH_DIR" "$WORK"' EXIT

start_fixture() {
	local t0=$SECONDS
	CEPH_CONF=$("$FIXTURE" start "$CEPH_DIR")
	local rc=$?
	export CEPH_CONF
	FIXTURE_SECS=$((SECONDS - t0))
	return $rc
}

# Small client timeouts for every librados user in the tests (the probe,
# fio's rbd engine honours only ceph.conf, the rbd CLI): a fault ends in
# seconds, never in a hang.
export CEPH_ARGS="--rados-osd-op-timeout=5 --rados-mon-op-timeout=5 --client-mount-timeout=5"

# json_get FILE PYTHON-EXPR-ON-d: a value from a JSON report
json_get() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
