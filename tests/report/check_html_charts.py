#!/usr/bin/env python3
"""check_html_charts.py DOM.html REPORT.json [--legend]: the charts of an iogap report
page show the data of its JSON report (tests/report/test_html.sh); prints every number.
--legend: only the stage chart's legend (runs whose stages are not the five checked)."""
import json, math, sys
from html.parser import HTMLParser

STAGES = ("G->Q", "Q.fmt", "B", "Q.ret", "Q->G")
VM_COLOR, BARE_COLOR = "#d62728", "#1f77b4"

class Charts(HTMLParser):
    """the SVG charts of the page: per chart its class, the h2 above it, its
    axis labels (x, text), rects (attrs + title) and polylines (attrs)"""
    def __init__(self):
        super().__init__()
        self.charts, self.h2, self.svg, self.text_at, self.text = [], "", None, None, None
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "h2":
            self.text = ""
        elif tag == "svg":
            self.svg = {"class": a.get("class", ""), "h2": self.h2, "ticks": [], "labels": [],
                        "rects": [], "lines": [], "legend": [],
                        "width": float(a.get("viewbox", "0 0 0 0").split()[2])}   # the parser lowercases names
            self.charts.append(self.svg)
        elif self.svg is None:
            return
        elif tag == "rect":
            self.svg["rects"].append(a)
        elif tag == "polyline":
            self.svg["lines"].append(a)
        elif tag in ("text", "title"):
            self.text_at, self.text = (tag, a), ""
    def handle_data(self, data):
        if self.text is not None:
            self.text += data
    def handle_endtag(self, tag):
        if tag == "h2":
            self.h2, self.text = self.text, None
        elif tag == "svg":
            self.svg = None
        elif self.svg is not None and tag in ("text", "title") and self.text_at:
            kind, a = self.text_at
            if kind == "title" and self.svg["rects"] and "title" not in self.svg["rects"][-1]:
                self.svg["rects"][-1]["title"] = self.text
            elif kind == "text" and a.get("class") == "ax" and self.text.endswith(" µs"):
                self.svg["ticks"].append((float(a["x"]), float(self.text[:-3])))
            elif kind == "text" and a.get("class") == "lg" and self.svg["rects"]:
                swatch = self.svg["rects"][-1].get("fill")   # the rect drawn before the name
                self.svg["legend"].append((float(a["x"]), self.text, swatch))
            elif kind == "text" and a.get("class") == "lb":
                self.svg["labels"].append((len(self.svg["rects"]), self.text))
            self.text_at, self.text = None, None

def check_stages(svg, jobs, bad):
    """bar widths proportional to the JSON means, on the axis' own scale"""
    (x0, v0), (x1, v1) = svg["ticks"][0], svg["ticks"][-1]
    px_per_ns = (x1 - x0) / ((v1 - v0) * 1e3)
    rows = svg["labels"] + [(len(svg["rects"]), None)]
    seen = 0
    for (first, label), (end, _) in zip(rows, rows[1:]):
        name, dr = label.rsplit(" ", 1)
        x = jobs[name][dr]
        bars = svg["rects"][first:end]
        want = [(s, x["stages"][s]["mean_ns"]) for s in STAGES] + [("bare metal", x["bare"]["lat"]["mean_ns"])]
        if [b["title"].split(":")[0] for b in bars] != [w[0] for w in want]:
            bad.append(f"stages chart, {label}: bars {[b.get('title') for b in bars]}"); continue
        edge = x0
        for b, (s, mean) in zip(bars, want):
            w = float(b["width"])
            print(f"# stages chart, {label}, {s}: bar {w:.1f} px, JSON mean {mean/1e3:.2f} us = {mean * px_per_ns:.2f} px")
            if abs(w - mean * px_per_ns) > 0.1:
                bad.append(f"stages chart, {label}, {s}: {w} px for {mean} ns")
            if s != "bare metal" and abs(float(b["x"]) - edge) > 0.11:   # both printed to 0.1 px
                bad.append(f"stages chart, {label}, {s}: starts at {b['x']}, previous bar ends at {edge}")
            edge = float(b["x"]) + w
        seen += 1
    return seen

def check_legend(svg, bad):
    """every colour drawn has its name in the legend (the name a bar's title gives it),
    each label inside the chart (12 px text: at most 7.5 px a character)"""
    named = {fill: name for _, name, fill in svg["legend"]}
    for x, name, _ in svg["legend"]:
        print(f"# stages legend: {name} at x {x:g}, chart width {svg['width']:g}")
        if x + 7.5 * len(name) > svg["width"]:
            bad.append(f"stages legend: '{name}' at x {x:g} is cut off (width {svg['width']:g})")
    drawn = {}
    for r in svg["rects"]:
        if "title" in r:
            drawn.setdefault(r["fill"], r["title"].split(":")[0])
    for fill, stage in drawn.items():
        want = "bare metal total" if stage == "bare metal" else stage
        if named.get(fill) != want:
            bad.append(f"stages legend: {stage} ({fill}) drawn, legend says {named.get(fill)!r}")
    return len(drawn)

def check_cdf(svg, jobs, bad):
    """the VM and bare-metal curves run from their min (0%) to their max (100%)"""
    name, dr = svg["h2"].split(" — ")
    (x0, v0), (x1, v1) = svg["ticks"][0], svg["ticks"][-1]
    to_ns = lambda x: 1e3 * 10 ** (math.log10(v0) + (x - x0) / (x1 - x0) * (math.log10(v1) - math.log10(v0)))
    plot = svg["rects"][0]
    top, bottom = float(plot["y"]), float(plot["y"]) + float(plot["height"])
    res = 0.05 / (x1 - x0) * math.log(10) * math.log10(v1 / v0)   # x printed to 0.1 px
    for line in svg["lines"]:
        side = {VM_COLOR: "vm", BARE_COLOR: "bare"}[line["stroke"]]
        lat = jobs[name][dr][side]["lat"]
        pts = [tuple(map(float, p.split(","))) for p in line["points"].split()]
        lo, hi = to_ns(pts[1][0]), to_ns(pts[-1][0])
        print(f"# CDF {name} {dr} {side}: starts at {lo/1e3:.2f} us (min {lat['min_ns']/1e3:.2f}), "
              f"ends at {hi/1e3:.2f} us (max {lat['max_ns']/1e3:.2f}) at y {pts[-1][1]} (plot {top:g}..{bottom:g})")
        tol = 1 / 64 + res   # fio's bucket width (docs/reports.md) + the drawing's rounding
        if abs(lo / lat["min_ns"] - 1) > tol or abs(hi / lat["max_ns"] - 1) > tol:
            bad.append(f"CDF {name} {dr} {side}: {lo:.0f}..{hi:.0f} ns vs min/max {lat['min_ns']}..{lat['max_ns']}")
        if pts[0][1] != bottom or abs(pts[-1][1] - top) > 0.05 or pts[0][0] != pts[1][0]:
            bad.append(f"CDF {name} {dr} {side}: does not rise from 0% to 100%: {pts[0]} .. {pts[-1]}")
    return len(svg["lines"])

page = Charts()
page.feed(open(sys.argv[1], encoding="utf-8").read())
report = json.load(open(sys.argv[2]))
jobs = {j["name"]: j for j in report["jobs"]}
bad, bars, curves = [], 0, 0
if sys.argv[3:] == ["--legend"]:
    drawn = sum(check_legend(svg, bad) for svg in page.charts if svg["class"] == "chart stages")
    if not drawn:
        bad.append("no stage chart with bars")
    print("\n".join(bad))
    sys.exit(1 if bad else 0)
for svg in page.charts:
    if svg["class"] == "chart stages":
        bars += check_stages(svg, jobs, bad)
        check_legend(svg, bad)
    elif svg["class"] == "chart cdf":
        curves += check_cdf(svg, jobs, bad)
want_rows = sum(1 for j in report["jobs"] for dr in ("read", "write") if "stages" in j.get(dr, {}))
if bars != want_rows or curves != 2 * want_rows:
    bad.append(f"{bars} stacked bars and {curves} CDF curves for {want_rows} job directions")
print("\n".join(bad))
sys.exit(1 if bad else 0)
