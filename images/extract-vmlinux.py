#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Extract the uncompressed ELF vmlinux from a Debian vmlinuz (bzImage).

Debian's amd64 kernel is xz-compressed: the payload starts at the xz magic
FD 37 7A 58 5A 00.  The uncompressed ELF boots directly through PVH
(qemu -kernel vmlinux), which under TCG is several seconds faster than
letting the bzImage decompress itself.

usage: extract-vmlinux.py VMLINUZ OUT
"""
import lzma
import os
import sys

XZ_MAGIC = b"\xfd7zXZ\x00"


def extract(data):
    pos = data.find(XZ_MAGIC)
    while pos >= 0:
        try:
            # the stream is followed by padding/trailer: decompress one stream only
            d = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
            out = d.decompress(data[pos:])
            if out[:4] == b"\x7fELF":
                return out
        except lzma.LZMAError:
            pass
        pos = data.find(XZ_MAGIC, pos + 1)
    return None


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip())
    src, dst = sys.argv[1:]
    with open(src, "rb") as f:
        data = f.read()
    out = extract(data)
    if out is None:
        sys.exit(f"extract-vmlinux: no xz-compressed ELF kernel found in {src}")
    # ELF64, little endian, x86-64
    if out[4] != 2 or out[5] != 1 or int.from_bytes(out[18:20], "little") != 62:
        sys.exit(f"extract-vmlinux: {src}: payload is not an x86-64 ELF64 kernel")
    tmp = dst + ".tmp"
    with open(tmp, "wb") as f:
        f.write(out)
    os.replace(tmp, dst)


if __name__ == "__main__":
    main()
