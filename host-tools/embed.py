#!/usr/bin/env python3
"""embed.py SRC OUT NAME [SED_FROM SED_TO]: a C header with SRC as a string."""
import sys

src, out, name = sys.argv[1:4]
text = open(src).read()
if len(sys.argv) == 6:
    text = text.replace(sys.argv[4], sys.argv[5])
with open(out, "w") as f:
    f.write("/* generated from %s by embed.py */\n" % src.split("/")[-1])
    f.write("static const char %s[] =\n" % name)
    for line in text.splitlines(True):
        f.write('\t"%s"\n' % line.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n"))
    f.write(";\n")
