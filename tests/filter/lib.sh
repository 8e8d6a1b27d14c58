# Shared helpers for the filter tests (POSIX sh, TAP output).  Sourced.
. "$(dirname "$0")/../tap.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/iogap-filter-test.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
dump=${IOGAP_RING_DUMP:-}
so=${IOGAP_FILTER_SO:-}
# Another QEMU than the system's (tests/filter/meson.build registers the suite once per
# QEMU): its qemu-io, qemu-img and qemu-system-x86_64 first in PATH, its own block modules.
if [ -n "${IOGAP_TEST_QEMU_BINDIR:-}" ]; then
	PATH=$IOGAP_TEST_QEMU_BINDIR:$PATH
	QEMU_MODULE_DIR=$(ls -d "$IOGAP_TEST_QEMU_BINDIR"/../lib/*/qemu | head -n 1)
	export PATH QEMU_MODULE_DIR
fi

# Fail (not skip) when the filter is not built: CI must have it.
require_filter() {
	if [ -z "$so" ] || [ ! -f "$so" ] || [ -z "$dump" ] || [ ! -x "$dump" ]; then
		echo "1..1"
		echo "not ok 1 - iogap-filter.so not built: ${IOGAP_FILTER_MISSING:-IOGAP_FILTER_SO unset}"
		exit 1
	fi
}

plan() { echo "1..$1"; }

# check DESCRIPTION CMD...: ok if CMD succeeds (its output goes to the diagnostics)
check() {
	desc=$1
	shift
	if "$@" >"$work/check.out" 2>&1; then
		ok 0 "$desc"
	else
		ok 1 "$desc" "$work/check.out"
	fi
}

qio() { LD_PRELOAD=$so qemu-io "$@"; }

# JSON node descriptions
j_file() { printf '{"driver":"file","filename":"%s"}' "$1"; }
j_null() { printf '{"driver":"null-co","size":%s,"read-zeroes":true%s}' "$1" "${2:+,\"latency-ns\":$2}"; }
j_raw() { printf '{"driver":"raw","file":%s}' "$1"; }
j_filter() { printf '{"driver":"iogap","layer":"%s","ring":"%s"%s,"file":%s}' "$1" "$2" "${4:+,$4}" "$3"; }
# top: filter -> raw -> protocol;  bottom: raw -> filter -> protocol
j_top() { j_filter top "$1" "$(j_raw "$2")" "${3:-}"; }
j_bottom() { j_raw "$(j_filter bottom "$1" "$2" "${3:-}")"; }

# records OP RING: "offset length" of every OP record, sorted
records() { "$dump" "$2" | awk -v op="$1" '$1 == op { print $2, $3 }' | sort; }

# sane RING: every record has end >= start within [header start, end], a thread,
# result = length (success) or a negative errno; header complete, no drops.
sane() {
	"$dump" "$1" | awk '
		NR == 1 {
			for (i = 2; i <= NF; i++) { split($i, kv, "="); h[kv[1]] = kv[2] }
			if (h["complete"] != 1) { print "ring not complete"; bad = 1 }
			if (h["dropped"] != 0) { print "dropped " h["dropped"]; bad = 1 }
			if (h["producer"] != 3 || h["clock"] != 1) { print "producer/clock"; bad = 1 }
			next
		}
		{
			n++
			if ($5 < $4) { print "end < start: " $0; bad = 1 }
			if ($4 < h["start_ns"] || $5 > h["end_ns"]) { print "outside header window: " $0; bad = 1 }
			if ($5 - $4 > 30000000000) { print "duration > 30 s: " $0; bad = 1 }
			if ($7 <= 0) { print "no thread: " $0; bad = 1 }
			if ($6 >= 0 && $6 != $3) { print "result != length: " $0; bad = 1 }
		}
		END { if (n == 0) { print "no records"; bad = 1 } exit bad }'
}
