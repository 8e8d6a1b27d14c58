#!/usr/bin/env python3
"""Write a blktrace capture (blkparse -d's binary records, blktrace_api.h's
struct blk_io_trace) from lines on stdin: TIME_NS EVENT SECTOR BYTES [DEV].
EVENT is Q (queued), M (back merge), C (completed), I (issued) followed by
r, w, d (discard) or f (flush), or N for a process notify (with a payload).
Usage: blktrace_gen.py OUT [big]   (big: big-endian records)."""
import struct
import sys

MAGIC = 0x65617400 | 7           # BLK_IO_TRACE_MAGIC | version 7
WHAT = {'Q': 1, 'M': 2, 'I': 7, 'C': 8}
CATEGORY = {'r': 1 << 0, 'w': 1 << 1, 'f': 1 << 2, 'd': 1 << 13}
NOTIFY = 1 << 10


def record(seq, time_ns, event, sector, nbytes, dev, endian):
    pdu = b''
    if event == 'N':
        action, pdu = NOTIFY << 16, b'replay\0'
    else:
        action = WHAT[event[0]] | (CATEGORY[event[1]] | (1 << 4)) << 16
    return struct.pack(endian + 'IIQQIIIIIHH', MAGIC, seq, time_ns, sector, nbytes,
                       action, 4242, dev, 0, 0, len(pdu)) + pdu


def main():
    endian = '>' if len(sys.argv) > 2 and sys.argv[2] == 'big' else '<'
    out = b''
    for seq, line in enumerate(l for l in sys.stdin if l.strip()):
        f = line.split()
        dev = int(f[4]) if len(f) > 4 else (8 << 20)    # 8:0 by default
        out += record(seq, int(f[0]), f[1], int(f[2]), int(f[3]), dev, endian)
    with open(sys.argv[1], 'wb') as o:
        o.write(out)


main()
