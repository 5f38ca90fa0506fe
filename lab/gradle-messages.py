#!/usr/bin/env python3
"""Prints each module's message generator arguments, read from a Kafka
build.gradle: one line per processMessages task, `<module dir>\t<args...>`."""
import re
import sys

text = open(sys.argv[1]).read()
for chunk in re.split(r"\nproject\('", text)[1:]:
    module = chunk.split("'", 1)[0].lstrip(":").replace(":", "/")
    for m in re.finditer(r"task processMessages\(type:\s*JavaExec\)\s*\{(.*?)\n  \}", chunk, re.S):
        args = re.search(r"args\s*=\s*\[(.*?)\]", m.group(1), re.S)
        if args:
            words = re.findall(r'"([^"]*)"', args.group(1))
            print(module + "\t" + "\t".join(words))
