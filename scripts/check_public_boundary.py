#!/usr/bin/env python3
"""The public boundary (issue 13): the rlx tool and the Python package use rlx only through
include/rlx/*.h.

- tools/*.c, tools/*.h include system headers, "rlx/..." public headers and "tool.h" only
  (the build also compiles tools/ with include/ as the only project include path);
- every C function the Python package calls through ctypes (lib.rlx_NAME) is declared in a
  public header;
- no internal header (src/**/*.h) declares again a function or callback type of a public
  header: it includes the public header instead (one declaration to keep in step).

Prints each violation and exits 1; run by ctest as public_boundary."""
import glob
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
bad = []

for path in sorted(glob.glob(os.path.join(root, "tools", "*.[ch]"))):
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
        if m and not (m.group(1).startswith("rlx/") or m.group(1) == "tool.h"):
            bad.append("%s:%d: includes \"%s\" (tools use include/rlx/*.h only)" % (os.path.relpath(path, root), n, m.group(1)))

declared = set()
for path in glob.glob(os.path.join(root, "include", "rlx", "*.h")):
    text = open(path, encoding="utf-8").read()
    declared.update(re.findall(r"\b(rlx_[A-Za-z0-9_]+)\s*\(", text))

called = {}
for path in sorted(glob.glob(os.path.join(root, "python", "rlx", "**", "*.py"), recursive=True)):
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        for name in re.findall(r"\blib\.(rlx_[A-Za-z0-9_]+)", line):
            called.setdefault(name, "%s:%d" % (os.path.relpath(path, root), n))
for name, where in sorted(called.items()):
    if name not in declared:
        bad.append("%s: calls %s, which no header of include/rlx/ declares" % (where, name))

def strip_comments(text):
    return re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)


public_types = set()
for path in glob.glob(os.path.join(root, "include", "rlx", "*.h")):
    public_types.update(re.findall(r"typedef[^;]*?\(\*\s*(rlx_\w+)\)", strip_comments(open(path, encoding="utf-8").read())))
for path in sorted(glob.glob(os.path.join(root, "src", "**", "*.h"), recursive=True)):
    text = strip_comments(open(path, encoding="utf-8").read())
    rel = os.path.relpath(path, root)
    for m in re.finditer(r"^(?!static|typedef|#)[A-Za-z_][^;{}#]*?\b(rlx_[a-z0-9_]+)\s*\([^;{}]*\)\s*;", text, flags=re.M):
        if m.group(1) in declared:
            bad.append("%s:%d: declares %s again (include the public header)" % (rel, text.count("\n", 0, m.start()) + 1, m.group(1)))
    for m in re.finditer(r"typedef[^;]*?\(\*\s*(rlx_\w+)\)", text):
        if m.group(1) in public_types:
            bad.append("%s:%d: defines %s again (include the public header)" % (rel, text.count("\n", 0, m.start()) + 1, m.group(1)))

for b in bad:
    print(b)
print("public boundary: %d tool files, %d C functions called from python/rlx, %d violation(s)"
      % (len(glob.glob(os.path.join(root, "tools", "*.[ch]"))), len(called), len(bad)))
sys.exit(1 if bad else 0)
