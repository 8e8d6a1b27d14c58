#!/bin/bash
# fio 3.33's example job files whose engines and options iogap-probe has
# (copies in fio-examples/, GPL-2.0 as fio): each is accepted by the probe,
# as by fio, with --parse-only (nothing is created or run).
. "$(dirname "$0")/lib.sh"
FIO=${FIO:-fio}
dir=$(dirname "$0")/fio-examples
files=("$dir"/*.fio)
echo "1..$(( ${#files[@]} + 1 ))"
cd "$WORK" || exit 1
for f in "${files[@]}"; do
	"$PROBE" --parse-only "$f" 2> err.txt && "$FIO" --parse-only "$f" > /dev/null 2>&1
	ok $? "$(basename "$f"): accepted by the probe and by fio $(head -c 200 err.txt)"
done
[ -z "$(ls -A "$WORK" | grep -v '^err.txt$')" ]
ok $? "--parse-only created no file for any of them"
finish
