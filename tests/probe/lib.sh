# Shared helpers for the probe's shell TAP tests.
# shellcheck shell=bash
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
PROBE=${IOGAP_PROBE:?IOGAP_PROBE not set}
# O_DIRECT needs a real filesystem: work under the build dir, not /tmp (tmpfs)
WORK=$(mktemp -d "${IOGAP_BUILD:?}/test-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
