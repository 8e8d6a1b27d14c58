#!/bin/bash
# The man pages and --help agree: every option a command's --help lists is
# in its man page section, and every option the section names is in --help.
# iogap(1) has one section (.SS "iogap CMD ...") per subcommand.
. "$(dirname "$0")/../tap.sh"
B=${IOGAP_BUILD:?}
IOGAP=$B/host-tools/iogap
PROBE=$B/guest-probe/iogap-probe
MAN=$B/docs

# options: the --long-option names in stdin, sorted, one a line
options() { sed 's/\\-/-/g; s/\\f[BIRP]//g' | grep -o -- '--[a-z][a-z0-9_-]*' | sort -u; }
# section CMD: the lines of iogap.1's section for CMD (up to the next .SS/.SH)
section() { awk -v cmd="$1" '/^\.S[HS] /{on = ($1 == ".SS" && $2 == "iogap" && $3 == cmd); next} on' "$MAN/iogap.1"; }
# differ A B: the lines of A not in B, on one line
differ() { comm -23 <(echo "$1") <(echo "$2") | tr '\n' ' '; }
# agree WHAT HELP-OPTIONS MAN-OPTIONS
agree() {
	local only_help only_man
	only_help=$(differ "$2" "$3")
	only_man=$(differ "$3" "$2")
	[ -z "$only_help$only_man" ]
	ok $? "$1: --help and the man page list the same options${only_help:+; only in --help: $only_help}${only_man:+; only in the man page: $only_man}"
}

cmds=$("$IOGAP" --help | sed -n 's/^\(usage:\)\{0,1\} *iogap \([a-z]\+\) .*/\2/p')
echo "1..$(( $(echo "$cmds" | wc -w) * 2 + 3 ))"
[ "$(echo "$cmds" | sort | tr '\n' ' ')" = "compare demo import libvirt lint passthrough report run " ]
ok $? "iogap --help lists the eight subcommands (${cmds//$'\n'/ })"
for c in $cmds; do
	[ -n "$(section "$c")" ]
	ok $? "iogap.1 has a section for iogap $c"
	agree "iogap $c" "$("$IOGAP" "$c" --help | options)" "$(section "$c" | options)"
done
# the probe's page without its EXAMPLE (fio job options there are not the probe's own)
probe_man=$(awk '/^\.SH /{on = ($2 != "EXAMPLE")} on' "$MAN/iogap-probe.1" | options)
agree "iogap-probe" "$("$PROBE" --help | options)" "$probe_man"
# the comparison sees a dropped option: run's man options without --quiet
run_help=$("$IOGAP" run --help | options)
[ "$(differ "$run_help" "$(section run | options | grep -vx -- --quiet)")" = "--quiet " ]
ok $? "an option missing from the man page is reported (run without --quiet)"
finish
