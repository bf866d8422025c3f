"""Tiny test harness for the Python-driven end-to-end tests: check() records results and
finish() prints 'N passed, N failed' and exits non-zero on failure."""
import os
import subprocess
import sys
import tempfile

_passed = 0
_failed = 0


def check(cond, what):
    global _passed, _failed
    if cond:
        _passed += 1
    else:
        _failed += 1
        print("FAIL:", what, file=sys.stderr)
    return cond


def finish():
    print("%d passed, %d failed" % (_passed, _failed))
    sys.exit(1 if _failed else 0)


class Tool:
    """Runs the rlx binary with a private kernel cache."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.tmp = tempfile.mkdtemp(prefix="rlx-test-")
        self.env = dict(os.environ, RLX_CACHE_DIR=os.path.join(self.tmp, "cache"))

    def run(self, *args, timeout=600):
        r = subprocess.run([self.path] + [str(a) for a in args], capture_output=True, text=True,
                           env=self.env, timeout=timeout)
        return r.returncode, r.stdout, r.stderr

    def file(self, name, text):
        p = os.path.join(self.tmp, name)
        with open(p, "w") as f:
            f.write(text)
        return p
