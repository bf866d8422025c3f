#!/usr/bin/env python3
"""Ops are named by their op.def identifiers (RLX_OP_ADD), never by string, in C code.

Scans src/ (comments stripped) for string literals that are the name of a Relax op
("relax.add", "relax.nn.conv2d" ...: the names listed in src/relax/op.def and
src/topi/unary.def) outside the places that spell names by design: the .def files, and the
printers and parsers (src/script/, src/api/ - the C API takes names from its callers).
Exits 1 listing each offending FILE:LINE.

    test_op_literals.py [RLX]   (RLX, the tool's path, is ignored: ctest passes it)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ALLOWED_DIRS = ("src/script/", "src/api/")


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


def main():
    names = op_names()
    assert len(names) > 100, "op.def not parsed"
    bad = []
    for d, _, files in os.walk(os.path.join(ROOT, "src")):
        for fn in files:
            if not fn.endswith((".c", ".h")):
                continue
            path = os.path.join(d, fn)
            rel = os.path.relpath(path, ROOT)
            if rel.startswith(ALLOWED_DIRS):
                continue
            with open(path, errors="replace") as f:
                text = strip_comments(f.read())
            for no, line in enumerate(text.split("\n"), 1):
                for m in re.finditer(r'"(relax\.[a-z_][a-z_.0-9]*)"', line):
                    if m.group(1) in names:
                        bad.append("%s:%d: %s" % (rel, no, m.group(0)))
    for b in bad:
        print(b)
    print("%d op-name literal(s) outside the .def files and the printers/parsers" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
