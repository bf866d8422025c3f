"""pytest setup: import rlx from the checkout's python/ (the library from $RLX_LIBRARY_PATH,
which ctest sets to the build tree being tested, else build/lib)."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

# Under the sanitizer run (run_sanitized.py) libasan is preloaded into this interpreter; the
# compilers rlx starts must not inherit it.
if "libasan" in os.environ.get("LD_PRELOAD", ""):
    del os.environ["LD_PRELOAD"]


# ---------------------------------------------------------------- end-to-end scripts
# A test file here with no test functions is an end-to-end script: it drives the rlx tool
# (given as its first argument) and checks results with harness.py's check() / finish(),
# or its own main(), exiting non-zero on any failure. pytest runs each such file whole as one
# test (the tool from $RLX_TOOL, else build/bin/rlx), so one `pytest tests/python` runs every
# Python test; ctest runs each script as its own case (py_<name>) to run them side by side,
# and the package case (py_rlx_package) skips them with RLX_PYTEST_SKIP_SCRIPTS=1.
import re  # noqa: E402
import subprocess  # noqa: E402

import pytest  # noqa: E402


def _is_script(path):
    name = os.path.basename(str(path))
    if not (name.startswith("test_") and name.endswith(".py")):
        return False
    with open(str(path)) as f:
        return not re.search(r"^def test_", f.read(), re.M)


def pytest_ignore_collect(collection_path, config):
    if os.environ.get("RLX_PYTEST_SKIP_SCRIPTS") == "1" and _is_script(collection_path):
        return True
    return None


def pytest_pycollect_makemodule(module_path, parent):
    if _is_script(module_path):
        return ScriptFile.from_parent(parent, path=module_path)
    return None


class ScriptFile(pytest.File):
    def collect(self):
        yield ScriptItem.from_parent(self, name=self.path.stem)


class ScriptFailed(Exception):
    pass


class ScriptItem(pytest.Item):
    def runtest(self):
        tool = os.environ.get("RLX_TOOL") or os.path.join(ROOT, "build", "bin", "rlx")
        r = subprocess.run([sys.executable, str(self.path), tool], cwd=ROOT, capture_output=True, text=True)
        if r.returncode != 0:
            raise ScriptFailed("%s exited with status %d\n--- stdout (last lines)\n%s\n--- stderr\n%s" %
                               (self.path.name, r.returncode, "\n".join(r.stdout.splitlines()[-40:]), r.stderr))

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, ScriptFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, "script %s" % self.name
