#!/bin/bash
# bash completion (completion/iogap.bash): `complete -p iogap` names it;
# _iogap offers the subcommands, each subcommand's --help options, job
# files for run and run directories (with manifest.json) for report;
# passthrough run: its own and iogap run's options.
. "$(dirname "$0")/../tap.sh"
IOGAP=${IOGAP_BUILD:?}/host-tools/iogap
. "${IOGAP_SRC:?}/completion/iogap.bash"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# offered WORD...: what _iogap offers for the command line WORD... (the last
# word is the one being completed), sorted, space-separated
offered() {
	COMP_WORDS=(iogap "$@")
	COMP_CWORD=$#
	COMPREPLY=()
	_iogap
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}
options() { grep -o -- '--[a-z][a-z0-9_-]*' | sort -u | tr '\n' ' '; }

echo "1..12"
[[ $(complete -p iogap) == *"-F _iogap"* ]]
ok $? "complete -p iogap: $(complete -p iogap)"
[ "$(offered '')" = "--help --version compare demo import libvirt lint passthrough report run " ]
ok $? "the subcommands: $(offered '')"
[ "$(offered re)" = "report " ]
ok $? "'re' completes to report"
for c in run demo report compare import lint; do
	want="$({ "$IOGAP" "$c" --help; echo --help; } | options)"
	[ "$(offered "$c" --)" = "$want" ]
	ok $? "iogap $c --<Tab>: its --help options ($(offered "$c" --))"
done
want="$({ "$IOGAP" passthrough run --help; "$IOGAP" run --help; echo --help; } | options)"
[ "$(offered passthrough run --)" = "$want" ]
ok $? "iogap passthrough run --<Tab>: its --help options and iogap run's ($(offered passthrough run --))"
mkdir -p "$W/run1" "$W/other" && echo '{}' > "$W/run1/manifest.json"
touch "$W/a.fio" "$W/b.txt"
(cd "$W" && [ "$(offered run --target file:x '')" = "a.fio other/ run1/ " ])
ok $? "run: job files and directories ($(cd "$W" && offered run --target file:x ''))"
(cd "$W" && [ "$(offered report '')" = "other/ run1 " ])
ok $? "report: run directories, and directories to descend into ($(cd "$W" && offered report ''))"
finish
