#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write an uncompressed newc cpio (an initramfs) from a staging directory.

Every entry is owned by 0:0 with mtime 0, whoever runs this (no root
needed), and entries are sorted, so the archive is reproducible.  Device
nodes that an unprivileged build cannot create are added from the command
line:  --node PATH:c|b:MAJOR:MINOR:MODE   (e.g. /dev/console:c:5:1:600)

usage: mkcpio.py STAGING OUT [--node SPEC ...]
"""
import os
import stat
import sys


def header(f, ino, mode, nlink, size, rdevmajor, rdevminor, name):
    nb = name.encode() + b"\0"
    fields = [ino, mode, 0, 0, nlink, 0, size, 0, 0, rdevmajor, rdevminor, len(nb), 0]
    f.write(b"070701" + b"".join(b"%08X" % v for v in fields) + nb)
    pad(f, 110 + len(nb))


def pad(f, n):
    if n % 4:
        f.write(b"\0" * (4 - n % 4))


def main():
    args = sys.argv[1:]
    nodes = []
    while "--node" in args:
        i = args.index("--node")
        nodes.append(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__.strip())
    root, out = args
    entries = []
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            entries.append(os.path.relpath(p, root))
    entries.sort()
    tmp = out + ".tmp"
    ino = 1
    with open(tmp, "wb") as f:
        for rel in entries:
            p = os.path.join(root, rel)
            st = os.lstat(p)
            perm = stat.S_IMODE(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                data = os.readlink(p).encode()
                header(f, ino, stat.S_IFLNK | 0o777, 1, len(data), 0, 0, rel)
                f.write(data)
                pad(f, len(data))
            elif stat.S_ISDIR(st.st_mode):
                header(f, ino, stat.S_IFDIR | perm, 2, 0, 0, 0, rel)
            elif stat.S_ISREG(st.st_mode):
                with open(p, "rb") as src:
                    data = src.read()
                header(f, ino, stat.S_IFREG | perm, 1, len(data), 0, 0, rel)
                f.write(data)
                pad(f, len(data))
            else:
                sys.exit(f"mkcpio: {p}: unsupported file type")
            ino += 1
        for spec in nodes:
            path, kind, major, minor, mode = spec.split(":")
            fmt = stat.S_IFCHR if kind == "c" else stat.S_IFBLK
            header(f, ino, fmt | int(mode, 8), 1, 0, int(major), int(minor), path.lstrip("/"))
            ino += 1
        header(f, 0, 0, 1, 0, 0, 0, "TRAILER!!!")
        pad(f, f.tell())  # not required, but keeps the size a multiple of 4
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
