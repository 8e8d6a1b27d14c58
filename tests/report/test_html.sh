#!/bin/bash
# iogap report --html: one self-contained page, every chart present, and
# rendered by headless Chromium (Debian's chromium package): a non-blank
# screenshot, no console errors, and charts that show the data — read from
# the page's DOM, the stacked bars' lengths are the JSON stage means on the
# chart's own axis scale, and each CDF runs from the latency min (0%) to the
# max (100%) within fio's histogram bucket width; the page opens with the
# summary, and the stage chart's legend names every colour it draws.
. "$(dirname "$0")/lib.sh"

"$MKRUN" --dir "$WORK/run" --vm 50000 --bare-seconds 4 >/dev/null 2>&1
ok $? "mkrun: a synthetic VM + bare-metal run"
"$IOGAP" report --full "$WORK/run" --html "$WORK/r.html" --json "$WORK/r.json" >"$WORK/out" 2>&1
ok $? "iogap report --html" "$WORK/out"
for c in stages cdf iops p99; do
	grep -q "<svg class=\"chart $c\"" "$WORK/r.html"
	ok $? "chart '$c' (inline SVG) present"
done
! grep -Eiq '(src|href)="?(https?:)?//|<script[^>]*src|@import|url\(' "$WORK/r.html"
ok $? "self-contained: no external scripts, styles, fonts or images"

if ! command -v chromium >/dev/null; then
	ok 1 "chromium not installed (Debian package chromium, scripts/debian-packages.txt)"
	finish
fi
prof=$(mktemp -d "$WORK/prof.XXXXXX")
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$prof" --enable-logging=stderr --v=0 \
	--screenshot="$WORK/shot.png" --window-size=1400,1000 "file://$WORK/r.html" \
	>"$WORK/chromium.log" 2>&1
[ -s "$WORK/shot.png" ]
ok $? "headless Chromium wrote a screenshot" "$WORK/chromium.log"
python3 - "$WORK/shot.png" >"$WORK/png" 2>&1 <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    ln, typ = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + ln]
    if typ == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif typ == b"IDAT":
        idat += body
    pos += 12 + ln
raw = zlib.decompress(idat)
bpp = {2: 3, 6: 4}[ctype]
stride = w * bpp + 1
# un-filter enough to count colours: filter type 0 rows are raw; count
# distinct byte patterns over the whole (filtered) stream as a proxy too
rows = [raw[i * stride:(i + 1) * stride] for i in range(h)]
colours = set()
prev = bytearray(w * bpp)
for r in rows:
    f, line = r[0], bytearray(r[1:])
    for i in range(len(line)):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    for i in range(0, len(line), bpp * 7):
        colours.add(bytes(line[i:i + 3]))
print(f"{w}x{h}, {len(colours)} colours sampled")
sys.exit(0 if len(colours) > 10 else 1)
PY
ok $? "screenshot is not blank ($(cat "$WORK/png"))" "$WORK/png"
! grep -Eq "Uncaught|ERROR:CONSOLE|Refused to" "$WORK/chromium.log"
ok $? "no console errors" "$WORK/chromium.log"

timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$prof" --dump-dom "file://$WORK/r.html" >"$WORK/dom.html" 2>"$WORK/dom.log"
ok $? "headless Chromium dumped the page's DOM" "$WORK/dom.log"
python3 "$(dirname "$0")/check_html_charts.py" "$WORK/dom.html" "$WORK/r.json" >"$WORK/charts" 2>&1
st=$?
grep '^#' "$WORK/charts"
ok $st "charts show the data: bar lengths = JSON stage means (0.1 px), CDF from min to max" "$WORK/charts"
# the first view is the summary: its heading is the page's first, the stage chart next
sed -n 's/.*<h[23][^>]*>\([^<]*\)<.*/\1/p' "$WORK/dom.html" | head -2 | tr '\n' '|' >"$WORK/heads"
[ "$(cat "$WORK/heads")" = "Summary|Mean time per stage|" ]
ok $? "the first view is the summary, then the stacked bars ($(cat "$WORK/heads"))" "$WORK/heads"

# a run with kernel points on every side draws nine stages: the legend names each colour
"$MKRUN" --dir "$WORK/kp" --vm 20000 --bare-seconds 2 --kernel-points vm,bare,vm_host \
	>/dev/null 2>&1
"$IOGAP" report --full "$WORK/kp" --html "$WORK/kp.html" --json "$WORK/kp.json" >"$WORK/kp.out" 2>&1
ok $? "iogap report --html of a run with kernel points" "$WORK/kp.out"
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$prof" --window-size=1400,1000 --dump-dom "file://$WORK/kp.html" \
	>"$WORK/kp.dom" 2>"$WORK/kp.log"
ok $? "headless Chromium dumped its DOM" "$WORK/kp.log"
python3 "$(dirname "$0")/check_html_charts.py" "$WORK/kp.dom" "$WORK/kp.json" --legend \
	>"$WORK/legend" 2>&1
st=$?
grep '^#' "$WORK/legend"
ok $st "the stage chart's legend names every stage drawn, inside the chart" "$WORK/legend"
finish
