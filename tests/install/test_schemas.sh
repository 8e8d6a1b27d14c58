#!/bin/bash
# docs/schemas/: the report, compare and manifest documents iogap writes
# validate against their JSON Schemas (2020-12, python3-jsonschema): synthetic
# runs (mkrun, with and without kernel points) with report --json and compare --json, their manifests, an
# imported run's, and the manifest of a real (bare-metal, null target) run.
# A document broken on purpose must fail, so the schemas do constrain.
. "$(dirname "$0")/../tap.sh"
B=${IOGAP_BUILD:?}
S=${IOGAP_SRC:?}
IOGAP=$B/host-tools/iogap
MKRUN=$B/tests/report/mkrun
SCHEMAS=$S/docs/schemas
VALIDATE=$S/tests/install/validate.py
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# valid SCHEMA DESCRIPTION FILE...
valid() {
	local schema=$1 what=$2
	shift 2
	"$VALIDATE" "$SCHEMAS/$schema" "$@" > "$W/errors" 2>&1
	ok $? "$what validate against $schema$( [ -s "$W/errors" ] && echo ": $(head -n 3 "$W/errors" | tr '\n' ' ')")"
}
# invalid SCHEMA DESCRIPTION PYTHON-EDIT FILE: FILE edited by PYTHON-EDIT (on d) must fail
invalid() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $3; json.dump(d, open(sys.argv[2], 'w'))" \
		"$4" "$W/broken.json"
	! "$VALIDATE" "$SCHEMAS/$1" "$W/broken.json" > /dev/null 2>&1
	ok $? "$2 fails to validate"
}

runs=(
	"plain:--vm 100000 --bare-seconds 2"
	"matched:--vm 100000 --bare-seconds 2 --matched-iops 50000"
	"cpu-hog:--vm 100000 --bare-seconds 2 --bare-iops 50000 --cpu hog"
	"incomplete:--vm 100000 --bare-seconds 2 --bare-iops 50000 --open vm/top.trace"
	"vm-only:--vm 100000 --phase bare=ok --phase vm=failed"
	"bare-only:--bare-seconds 3 --mean-ns 50000"
	"kernel:--vm 100000 --bare-seconds 2 --kernel-points vm,bare,vm_host"
	"kernel-vm:--vm 100000 --bare-seconds 2 --kernel-points vm"
)
echo "1..12"
cd "$W" || exit 1
for r in "${runs[@]}"; do
	name=${r%%:*}
	# shellcheck disable=SC2086
	"$MKRUN" --dir "$name" ${r#*:} > /dev/null 2>&1 || echo "# mkrun $name failed"
	# exit 1 for incomplete data, by design: test 7 checks the document exists
	"$IOGAP" report "$name" --json "$name.report.json" > /dev/null 2>&1
	# compare refuses a run with a failed phase (vm-only's VM): no document
	"$IOGAP" compare plain "$name" --json "$name.compare.json" > /dev/null 2>&1 || echo "# compare $name refused"
done
"$IOGAP" import --dir imported --label vm "$S/tests/import/data/fio333-multi.json" \
	--label bare "$S/tests/import/data/fio216-randrw-libaio.txt" > /dev/null 2>&1
"$IOGAP" compare imported/vm imported/bare --json imported.compare.json > /dev/null 2>&1
printf '[r]\nrw=randread\nbs=4k\nioengine=null\nsize=16m\nruntime=1\ntime_based=1\n' > job.fio
"$IOGAP" run --bare-only --dir real --target null:16m job.fio > /dev/null 2>&1
ok $? "a real bare-metal run (null target) for its manifest"

valid report-1.schema.json "report --json of ${#runs[@]} synthetic runs" ./*.report.json
valid compare-1.schema.json "compare --json of synthetic and imported runs" ./*.compare.json
valid manifest-1.schema.json "mkrun's manifests" ./{plain,matched,cpu-hog,incomplete,vm-only,bare-only,kernel,kernel-vm}/manifest.json
valid manifest-1.schema.json "an imported run's manifest" imported/manifest.json
valid manifest-1.schema.json "iogap run's manifest" real/manifest.json
reports=(./*.report.json) compares=(./*.compare.json)
[ "${#reports[@]}" = "${#runs[@]}" ] && [ "${#compares[@]}" = "${#runs[@]}" ] && [ ! -e vm-only.compare.json ]
ok $? "every report and compare document was written (none for the failed vm-only run)"

invalid report-1.schema.json "a report without jobs" 'del d["jobs"]' plain.report.json
invalid report-1.schema.json "a report whose stage has no error bar" \
	'del d["jobs"][0]["read"]["stages"]["B"]["error_ns"]' plain.report.json
invalid compare-1.schema.json "a compare verdict not in the list" \
	'next(iter(d["comparisons"][0]["metrics"].values()))["verdict"] = "better"' plain.compare.json
invalid manifest-1.schema.json "an iogap run manifest without the VM's configuration" \
	'del d["vm"]["cache"]' real/manifest.json
invalid manifest-1.schema.json "a manifest phase status not in the list" \
	'd["phases"]["bare"]["status"] = "done"' real/manifest.json
finish
