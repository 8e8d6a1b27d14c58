# Shared helpers for the probe's shell TAP tests.
# shellcheck shell=bash
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
PROBE=${IOGAP_PROBE:?IOGAP_PROBE not set}
# O_DIRECT needs a real filesystem: work under the build dir, not /tmp (tmpfs)
WORK=$(mktemp -d "${IOGAP_BUILD:?}/test-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# bad_values_ok VALUE...: each "key=value" alone in a null job is refused by
# --parse-only with "bad.fio:4: option 'key'"; one TAP check for them all
bad_values_ok() {
	local good=0 b
	for b in "$@"; do
		printf '[j]\nioengine=null\nsize=1m\n%s\n' "$b" > bad.fio
		if ! "$PROBE" --parse-only bad.fio 2> e.txt && grep -q "bad.fio:4: option '${b%%=*}'" e.txt; then
			good=$((good + 1))
		else
			echo "# $b: $(cat e.txt)"
		fi
	done
	[ "$good" = $# ]
	ok $? "bad values refused with file:line and the option ($good of $#; e.g. $(cat e.txt))"
}
