#!/usr/bin/env python3
"""Zoned-workload checks over `iogap-probe --dump-trace` output.

usage: check_trace.py DUMP ZONE_SIZE CHECK...
  wp              every write lands at its zone's write pointer (sequential
                  within the zone, in issue order; a write at the zone start
                  of a zone holding data is a reset)
  maxopen=N       at no time more than N zones open (a zone opens with its
                  first write's start, closes with the completion of the
                  write that fills it, as in fio) nor more than N with writes
                  in flight.  A write of a zone that completes after the one
                  that filled it counts only until then: a zoned device has
                  executed it by that time (writes at the pointer run in
                  order), and a file may just report it late.
  readwp          every read ends at or below its zone's write pointer, taking
                  only writes completed before the read started
  trims           every trim is one whole zone at its start, of a zone holding
                  data (a random trim moves to one, as fio's zbd_adjust_block),
                  with no write of the zone in flight: a zone reset (the wp
                  check then expects the zone's next write at its start)
  job=K:LO:HI     every request of job K lies in [LO, HI)
  resets=N        N writes reset a zone holding data
  writes=N        N write records
Prints one line per check; exit status 1 if any failed.
"""
import re
import sys

REC = re.compile(r"^record \d+: (.*)$")
KV = re.compile(r"(\w+)=(\S+)")


def load(path):
    recs = []
    for line in open(path):
        m = REC.match(line.strip())
        if not m:
            continue
        kv = dict(KV.findall(m.group(1)))
        if kv.get("op") in ("read", "write", "trim"):
            recs.append(dict(op=kv["op"], off=int(kv["offset"]), len=int(kv["length"]),
                             start=int(kv["start_ns"]), issue=int(kv["issue_ns"]),
                             done=int(kv["complete_ns"]), res=int(kv["result"]),
                             job=int(kv["job"])))
    return recs


def main():
    recs = load(sys.argv[1])
    zs = int(sys.argv[2])
    failed = 0
    writes = sorted((r for r in recs if r["op"] == "write"), key=lambda r: (r["issue"], r["start"]))
    reads = [r for r in recs if r["op"] == "read"]
    trims = sorted((r for r in recs if r["op"] == "trim"), key=lambda r: r["issue"])

    def report(okay, text):
        nonlocal failed
        print(("ok: " if okay else "FAILED: ") + text)
        failed += not okay

    # replay the writes and trims in issue order (a trim resets its zone)
    wp, resets, bad, bad_trims = {}, 0, [], []
    for r in sorted(writes + trims, key=lambda r: (r["issue"], r["start"])):
        z = r["off"] // zs
        zstart = z * zs
        if r["op"] == "trim":
            if r["off"] != zstart or r["len"] != zs:
                bad_trims.append("trim %d+%d is not zone %d" % (r["off"], r["len"], z))
            elif wp.get(z, zstart) == zstart:
                bad_trims.append("trim of zone %d, which holds no data" % z)
            elif any(w["off"] // zs == z and w["issue"] < r["issue"] < w["done"] for w in writes):
                bad_trims.append("trim of zone %d with a write in flight" % z)
            wp[z] = zstart
            continue
        if (r["off"] + r["len"] - 1) // zs != z:
            bad.append("write %d+%d crosses a zone boundary" % (r["off"], r["len"]))
        cur = wp.get(z, None)
        if r["off"] == zstart and cur not in (None, zstart):
            resets += 1
        elif cur is not None and r["off"] != cur:
            bad.append("write at %d, zone %d write pointer at %d" % (r["off"], z, cur))
        elif cur is None and r["off"] != zstart:
            pass        # zone written before the trace: pointer unknown
        wp[z] = r["off"] + r["len"]
    for check in sys.argv[3:]:
        if check == "wp":
            report(not bad, "%d writes at their zone's write pointer%s" %
                   (len(writes), (": " + "; ".join(bad[:3])) if bad else ""))
        elif check.startswith("resets="):
            n = int(check.split("=")[1])
            report(resets == n, "%d zone resets in the trace (want %d)" % (resets, n))
        elif check.startswith("writes="):
            n = int(check.split("=")[1])
            report(len(writes) == n, "%d write records (want %d)" % (len(writes), n))
        elif check.startswith("maxopen="):
            n = int(check.split("=")[1])
            ev_open, ev_fly = [], []
            opened, epoch, late = {}, {}, 0
            for r in writes:
                z = r["off"] // zs
                if z not in opened:
                    opened[z] = r["start"]
                epoch.setdefault(z, []).append(r)
                end = r["off"] + r["len"]
                if end == (z + 1) * zs:       # fills the zone: closes it
                    closed = r["done"]
                    ev_open += [(opened.pop(z), 1, z), (closed, -1, z)]
                    for w in epoch.pop(z):    # a full zone took them all
                        late += w["done"] > closed
                        ev_fly += [(w["start"], 1, z), (min(w["done"], closed), -1, z)]
            for z, ws in epoch.items():
                ev_fly += [e for w in ws for e in ((w["start"], 1, z), (w["done"], -1, z))]
            for z, t in opened.items():
                ev_open.append((t, 1, z))
            def peak(ev):
                cur = best = 0
                for _, d, _ in sorted(ev, key=lambda e: (e[0], e[1])):
                    cur += d
                    best = max(best, cur)
                return best
            fly_zones = {}
            cur = best_fly = 0
            for t, d, z in sorted(ev_fly, key=lambda e: (e[0], e[1])):
                before = len(fly_zones)
                fly_zones[z] = fly_zones.get(z, 0) + d
                if fly_zones[z] == 0:
                    del fly_zones[z]
                best_fly = max(best_fly, len(fly_zones), before)
            po = peak(ev_open)
            report(po <= n and best_fly <= n,
                   "at most %d zones open (%d) and %d with writes in flight (%d; %d writes completed "
                   "after the one that filled their zone)" % (n, po, n, best_fly, late))
        elif check == "trims":
            report(trims and not bad_trims and all(t["res"] == t["len"] for t in trims),
                   "%d trims, each a whole zone holding data, none beside a write in flight%s" %
                   (len(trims), (": " + "; ".join(bad_trims[:3])) if bad_trims else ""))
        elif check == "readwp":
            done = sorted(writes, key=lambda r: r["done"])
            bad_reads = 0
            for r in reads:
                z = r["off"] // zs
                top = None
                for w in done:
                    if w["done"] > r["start"]:
                        break
                    if w["off"] // zs != z:
                        continue
                    if w["off"] == z * zs:
                        top = w["off"] + w["len"]
                    elif top is not None:
                        top = max(top, w["off"] + w["len"])
                if top is None or r["off"] + r["len"] > top:
                    bad_reads += 1
            report(reads and not bad_reads,
                   "%d reads, %d beyond the write pointer of their zone" % (len(reads), bad_reads))
        elif check.startswith("job="):
            k, lo, hi = (int(x) for x in check.split("=")[1].split(":"))
            mine = [r for r in recs if r["job"] == k]
            out = [r for r in mine if r["off"] < lo or r["off"] + r["len"] > hi]
            report(mine and not out, "job %d: %d requests, %d outside [%d, %d)" %
                   (k, len(mine), len(out), lo, hi))
        else:
            report(False, "unknown check " + check)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
