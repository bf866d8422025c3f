#!/usr/bin/env python3
"""Ops are named by their op.def identifiers (RLX_OP_ADD), never by string, in C code.

Scans src/ and tools/ (comments stripped) for string literals that look like a Relax op
name ("relax.add", "relax.nn.conv2d" ...; also a "relax.x" that is no op, as a misspelt or
removed one) outside the places that spell names by design: the .def files, and the printers
and parsers (src/script/). Function attribute keys ("relax.force_pure") are not op names.
Exits 1 listing each offending FILE:LINE.

    test_op_literals.py [RLX]   (RLX, the tool's path, is ignored: ctest passes it)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCANNED_DIRS = ("src", "tools")
ALLOWED_DIRS = ("src/script/",)
ATTR_KEYS = {"relax.force_pure"}  # function attributes (TVM's names), not ops


def op_names():
    names = set()
    for rel, pat in (("src/relax/op.def", r'^RLX_OP\w*\(\w+, "([^"]+)"'),
                     ("src/topi/unary.def", r'^RLX_TOPI_UNARY\(\w+, "[^"]*", \w+, "([^"]+)"')):
        with open(os.path.join(ROOT, rel)) as f:
            names.update(m.group(1) for m in (re.match(pat, l) for l in f) if m)
    return names


def strip_comments(text):
    # Keeps newlines (line numbers stay right) and string literals.
    out = re.sub(r'/\*.*?\*/', lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r'//[^\n]*', "", out)


def sources():
    for top in SCANNED_DIRS:
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for fn in sorted(files):
                rel = os.path.relpath(os.path.join(d, fn), ROOT)
                if fn.endswith((".c", ".h")) and not rel.startswith(ALLOWED_DIRS):
                    yield rel


def main():
    names = op_names()
    assert len(names) > 100, "op.def not parsed"
    bad = []
    for rel in sources():
        with open(os.path.join(ROOT, rel), errors="replace") as f:
            text = strip_comments(f.read())
        for no, line in enumerate(text.split("\n"), 1):
            if line.lstrip().startswith("#include"):
                continue
            for m in re.finditer(r'"(relax\.[a-z_][a-z_.0-9]*)"', line):
                if m.group(1) in names or m.group(1) not in ATTR_KEYS:
                    bad.append("%s:%d: %s" % (rel, no, m.group(0)))
    for b in bad:
        print(b)
    print("%d op-name literal(s) outside the .def files and the printers/parsers" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
