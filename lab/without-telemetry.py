#!/usr/bin/env python3
"""Writes a copy of a Kafka source file (argv[1]) to argv[2] without the
methods that name ClientTelemetryReporter and without its import: the
reporter needs OpenTelemetry, which Debian does not package, and nothing
the lab runs uses it. Run by build.sh in its scratch dir; the copy never
enters the repository."""
import os
import sys

text = open(sys.argv[1]).read()
out = []
i = 0
lines = text.split("\n")
while i < len(lines):
    line = lines[i]
    if line.startswith("import ") and "ClientTelemetryReporter" in line:
        i += 1
        continue
    if "ClientTelemetryReporter" in line and "(" in line and line.strip().startswith("public static"):
        depth = 0
        seen = False
        while i < len(lines):
            depth += lines[i].count("{") - lines[i].count("}")
            seen = seen or "{" in lines[i]
            i += 1
            if seen and depth == 0:
                break
        continue
    out.append(line)
    i += 1
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
open(sys.argv[2], "w").write("\n".join(out))
