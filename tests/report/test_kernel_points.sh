#!/bin/bash
# iogap report with kernel points (docs/kernel-points.md), on synthetic runs
# (mkrun --kernel-points): every kernel request issued a known time after
# its request's start and completing a known time before its end, except
# every 10th request (none) and every 50th (recorded twice: ambiguous); the
# host kernel under QEMU likewise for the bottom filter's requests.  The
# matching counts each outcome exactly; the kernel-fed stages (G.kern, G.ret
# on the VM, K.ret on bare metal) are the known times exactly; the stages of
# both sides sum to their totals; the matching holds a window, not the run
# (bare metal open loop: its trace is out of completion order); with the
# host kernel, B splits and the gap table subtracts kernel from kernel and
# device from device; text, JSON
# and HTML show them; a side without kernel points is named with the reason,
# one whose trace matched fewer than half its requests is left out (with
# its counts),
# and a run without them says nothing about them (test_golden.sh: not a byte).
. "$(dirname "$0")/lib.sh"

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }
jval() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

"$MKRUN" --dir "$WORK/k" --vm 3000 --bare-seconds 0.3 --bare-iops 20000 \
	--kernel-points vm,bare > "$WORK/k.mkrun" 2>&1
ok $? "mkrun --kernel-points vm,bare" "$WORK/k.mkrun"
N=$(awk '/^bare records/ { print $3 }' "$WORK/k.mkrun")
"$IOGAP" report --full "$WORK/k" --json "$WORK/k.json" --html "$WORK/k.html" > "$WORK/k.txt" 2>&1
ok $? "report succeeds" "$WORK/k.txt"

json "$WORK/k.json" '[d["kernel_points"]["vm"][k] for k in ("recorded", "matched", "none", "ambiguous", "split", "merged", "unmapped")] == [1, 2640, 300, 60, 0, 0, 0]'
ok $? "VM: 3000 requests: matched 2640, none 300 (every 10th), ambiguous 60 (every 50th): $(jval "$WORK/k.json" 'd["kernel_points"]["vm"]')"
json "$WORK/k.json" "[d['kernel_points']['bare'][k] for k in ('matched', 'none', 'ambiguous', 'split', 'merged', 'unmapped')] == [$N - ($N + 1) // 10 - ($N + 49) // 50, ($N + 1) // 10, ($N + 49) // 50, 0, 0, 0]"
ok $? "bare metal ($N requests, open loop: out of completion order): every outcome counted exactly: $(jval "$WORK/k.json" 'd["kernel_points"]["bare"]')"
json "$WORK/k.json" 'd["kernel_points"]["vm"]["window_max"] < 300 and d["kernel_points"]["bare"]["window_max"] < 300'
ok $? "the matching holds a window, not the run (most held: VM $(jval "$WORK/k.json" 'd["kernel_points"]["vm"]["window_max"]'), bare $(jval "$WORK/k.json" 'd["kernel_points"]["bare"]["window_max"]'))"

json "$WORK/k.json" 'all(j[dr]["stages"][k]["min_ns"] == j[dr]["stages"][k]["max_ns"] == v and j[dr]["stages"][k]["n"] > 1000
	for j in d["jobs"] for dr in ("read", "write") for k, v in (("G.kern", 3000), ("G.ret", 4000)))'
ok $? "VM: G.kern is 3000 ns and G.ret 4000 ns for every request (the guest clock's own stamps)"
json "$WORK/k.json" 'all(j[dr]["bare_stages"]["K.ret"]["min_ns"] == j[dr]["bare_stages"]["K.ret"]["max_ns"] == 5000 and
	j[dr]["bare_stages"]["D"]["n"] > 100 for j in d["jobs"] for dr in ("read", "write"))'
ok $? "bare metal: K.ret is 5000 ns for every request, D measured"
json "$WORK/k.json" 'all(abs(j[dr]["stage_sum_error_pct"]) < 0.01 and
	abs(j[dr]["bare_stages"]["stage_sum_ns"] - j[dr]["bare_stages"]["total"]["mean_ns"]) < 1
	for j in d["jobs"] for dr in ("read", "write"))'
ok $? "the stages of both sides sum to their totals"
json "$WORK/k.json" 'all(not any(k in j[dr]["stages"] for k in ("G->Q", "Q->G")) and
	all(k in j[dr]["gap"]["contrib_ns"] for k in ("G.kern", "GK->Q", "Q->GK", "G.ret")) for j in d["jobs"] for dr in ("read", "write"))'
ok $? "VM: G->Q and Q->G split into G.kern, GK->Q and Q->GK, G.ret, in the stages and the gap table"
json "$WORK/k.json" 'all("GK->Q" in j[dr]["verdict"] for j in d["jobs"] for dr in ("read", "write"))'
ok $? "the verdict names the finer stage (GK->Q: virtio kick, VM exit): $(jval "$WORK/k.json" 'd["jobs"][0]["read"]["verdict"][-160:]')"
grep -q "^VM kernel points: requests matched 2640, none 300, ambiguous 60, split 0, merged 0, unmapped 0$" "$WORK/k.txt" &&
	grep -q "^  bare D " "$WORK/k.txt" && grep -q "^  G.ret " "$WORK/k.txt" &&
	grep -q "^  bare stages (bare metal, [0-9]* requests matched in the kernel) sum to" "$WORK/k.txt"
ok $? "text: the matching, the new stages of both sides and their sum" "$WORK/k.txt"
grep -q "<td>bare K.sub</td>" "$WORK/k.html" && grep -q "<td>GK-&gt;Q</td>\|<td>GK->Q</td>" "$WORK/k.html"
ok $? "HTML: the new stages of both sides in the stage table"

# the host kernel under QEMU too: B splits, compared part by part with bare metal
"$MKRUN" --dir "$WORK/h" --vm 3000 --bare-seconds 0.3 --kernel-points vm,bare,vm_host > /dev/null 2>&1 &&
	"$IOGAP" report --full "$WORK/h" --json "$WORK/h.json" > "$WORK/h.txt" 2>&1
ok $? "kernel points of the guest, the host under QEMU and bare metal: report succeeds" "$WORK/h.txt"
json "$WORK/h.json" '[d["kernel_points"]["vm_host"][k] for k in ("recorded", "matched", "none", "ambiguous", "split", "merged", "unmapped")] == [1, 2640, 300, 60, 0, 0, 0]'
ok $? "host kernel under QEMU: 3000 bottom filter requests, each outcome counted exactly: $(jval "$WORK/h.json" 'd["kernel_points"]["vm_host"]')"
json "$WORK/h.json" 'all(j[dr]["stages"][k]["min_ns"] == j[dr]["stages"][k]["max_ns"] == v and "B" not in j[dr]["stages"]
	for j in d["jobs"] for dr in ("read", "write") for k, v in (("HK.sub", 2000), ("HK.ret", 3000)))'
ok $? "VM: B splits into HK.sub (2000 ns), D and HK.ret (3000 ns), every request"
json "$WORK/h.json" 'all(set(("K.sub", "device", "K.ret")) <= set(j[dr]["gap"]["contrib_ns"]) and "backend" not in j[dr]["gap"]["contrib_ns"] and
	abs(j[dr]["gap"]["contrib_ns"]["device"] - (j[dr]["stages"]["D"]["mean_ns"] - j[dr]["bare_stages"]["D"]["mean_ns"])) < 1 and
	abs(j[dr]["gap"]["contrib_ns"]["K.ret"] - (3000 - 5000)) < 1e-6 for j in d["jobs"] for dr in ("read", "write"))'
ok $? "gap table: kernel against kernel, device against device (device = VM D - bare D, K.ret = 3000 - 5000 ns): $(jval "$WORK/h.json" 'd["jobs"][0]["read"]["gap"]["contrib_ns"]')"
json "$WORK/h.json" 'all("so HK.sub, D and HK.ret are not compared with bare metal" in j[dr]["verdict"] for j in d["jobs"] for dr in ("read", "write"))'
ok $? "at different loads the verdict names the parts of B it does not compare"
grep -q "^VM host kernel points (under QEMU, bottom filter requests): requests matched 2640," "$WORK/h.txt" &&
	grep -q "^  HK.sub " "$WORK/h.txt" &&
	grep -q "^VM host kernel points (under QEMU, bottom filter requests): none (mkrun: not asked): the backend's kernel and device stages (HK.sub, D, HK.ret) are absent$" "$WORK/k.txt"
ok $? "text: the host kernel's matching, and in a run without it the reason" "$WORK/k.txt"

# one side only: the other is named, with the manifest's reason
"$MKRUN" --dir "$WORK/vmonly" --vm 3000 --bare-seconds 0.3 --kernel-points vm > /dev/null 2>&1 &&
	"$IOGAP" report --full "$WORK/vmonly" --json "$WORK/vmonly.json" > "$WORK/vmonly.txt" 2>&1
ok $? "kernel points on the VM side only: report succeeds"
grep -q "^bare metal kernel points: none (mkrun: not asked): its kernel and device stages are absent$" "$WORK/vmonly.txt" &&
	json "$WORK/vmonly.json" 'd["kernel_points"]["bare"]["recorded"] == 0 and d["kernel_points"]["bare"]["why"] == "mkrun: not asked" and
	all("bare_stages" not in j[dr] and "G.kern" in j[dr]["stages"] for j in d["jobs"] for dr in ("read", "write"))'
ok $? "the side without kernel points: named with its reason (text, JSON), no bare stages" "$WORK/vmonly.txt"
# a kernel trace that matches few requests (another run's requests): left
# out, said with its counts, the side's report as without it
"$MKRUN" --dir "$WORK/other" --seed 2 --bare-seconds 0.3 --kernel-points bare > /dev/null 2>&1 &&
	cp "$WORK/other/bare/kernel.trace" "$WORK/vmonly/bare/kernel.trace" &&
	"$IOGAP" report --full "$WORK/vmonly" --json "$WORK/few.json" > "$WORK/few.txt" 2>&1
ok $? "a kernel trace of other requests: report succeeds" "$WORK/few.txt"
grep -q "^bare metal kernel points: none (bare/kernel.trace matched only [0-9]* of [0-9]* requests (none [0-9]*, .*): left out of the stages)" "$WORK/few.txt" &&
	json "$WORK/few.json" 'd["kernel_points"]["bare"]["recorded"] == 0' &&
	diff <(grep -v "kernel points" "$WORK/few.txt") <(grep -v "kernel points" "$WORK/vmonly.txt") > "$WORK/few.diff"
ok $? "matching fewer than half: left out of the stages with its counts, the report otherwise as without it" "$WORK/few.diff"
rm "$WORK/k/vm/kernel.trace"
"$IOGAP" report --full "$WORK/k" > "$WORK/missing.txt" 2>&1 &&
	grep -q "^VM kernel points: none (vm/kernel.trace is missing" "$WORK/missing.txt" &&
	grep -q "^  Q->G " "$WORK/missing.txt"
ok $? "a kernel trace the manifest names but the run lacks: said so, today's stages" "$WORK/missing.txt"

"$MKRUN" --dir "$WORK/none" --vm 3000 --bare-seconds 0.3 > /dev/null 2>&1 &&
	"$IOGAP" report --full "$WORK/none" --json "$WORK/none.json" > "$WORK/none.txt" 2>&1 &&
	! grep -qi "kernel" "$WORK/none.txt" && json "$WORK/none.json" '"kernel_points" not in d'
ok $? "a run without kernel points: nothing about them"
finish
