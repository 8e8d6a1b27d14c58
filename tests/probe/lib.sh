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

# nowait_eagain JSON BINARY [OPTION...]: a pvsync2 nowait=1 read of 1 MiB just
# written with O_DIRECT (so not cached), its JSON in JSON; 0 once a run meets
# EAGAIN (error 11) before the file's end.  Whether a read finds its page
# missing depends on readahead still in flight (fio itself sometimes reads
# all 256 blocks), so each call gets three fresh files.
nowait_eagain() {
	local json=$1 bin=$2 _
	shift 2
	for _ in 1 2 3; do
		dd if=/dev/urandom of=nw.dat bs=1M count=1 oflag=direct conv=fsync status=none 2> /dev/null ||
			dd if=/dev/urandom of=nw.dat bs=1M count=1 conv=fsync status=none
		"$bin" --name=h --ioengine=pvsync2 --nowait=1 --rw=read --size=1m --filename=nw.dat \
			--output-format=json "$@" 2> /dev/null | sed -n '/^{/,$p' > "$json"
		python3 -c 'import json,sys; j = json.load(open(sys.argv[1]))["jobs"][0]
sys.exit(not (j["error"] == 11 and j["read"]["total_ios"] < 256))' "$json" && return 0
	done
	return 1
}
