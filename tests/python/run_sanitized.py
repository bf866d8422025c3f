"""Runs tests/python against a sanitizer build (ASan + UBSan): the ctest case
py_rlx_package of the RLX_SANITIZE build.

usage: run_sanitized.py LIB_DIR [pytest args...]

The system Python is not instrumented, so libasan is preloaded (conftest.py drops
LD_PRELOAD again so that cc, as and ld, which rlx runs, start without it). LSan then also
reports the interpreter's, numpy's and torch's own never-freed memory at exit, which is
not ours: leak reports go to log files, and the run fails only on a leak allocated by
librlx (a frame in LIB_DIR's libraries or in the source tree), listing each one. ASan and
UBSan errors fail the run as they happen."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ours(report, lib_dir):
    """True when librlx made the allocation: walking out from malloc, a frame of librlx (or of
    the source tree) comes before any frame of the interpreter, ctypes or libffi. Python objects
    that a callback from rlx (emit_te's TE function) allocates, and the interpreter never frees
    at exit, have rlx frames further out; they are the interpreter's."""
    frames = re.findall(r"#\d+ 0x[0-9a-f]+\s+(?:in (\S+) )?\(?(\S+?)(?:\+0x[0-9a-f]+\))?$", report, re.M)
    for _, loc in frames:
        if lib_dir in loc or loc.startswith(os.path.join(ROOT, "src")):
            return True
        if "python3" in loc or "_ctypes" in loc or "libffi" in loc:
            return False
    return False


def main():
    lib_dir = os.path.abspath(sys.argv[1])
    asan = subprocess.check_output(["gcc", "-print-file-name=libasan.so"], text=True).strip()
    logs = tempfile.mkdtemp(prefix="rlx-lsan-")
    env = dict(os.environ)
    # the end-to-end scripts are ctest cases of their own (py_<name>), as in the release build
    env.update(LD_PRELOAD=asan, RLX_LIBRARY_PATH=lib_dir, RLX_PYTEST_SKIP_SCRIPTS="1",
               ASAN_OPTIONS="detect_leaks=1:log_path=%s/lsan:fast_unwind_on_malloc=0:halt_on_error=1" % logs,
               LSAN_OPTIONS="exitcode=0", UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", os.path.join(ROOT, "tests", "python"),
           "--ignore=" + os.path.join(ROOT, "tests", "python", "test_leak.py")] + sys.argv[2:]
    rc = subprocess.call(cmd, env=env, cwd=ROOT)
    leaks = []
    errors = []
    for path in glob.glob(os.path.join(logs, "lsan.*")):
        text = open(path, errors="replace").read()
        if "ERROR: AddressSanitizer" in text or "runtime error:" in text:
            errors.append(text)
        for rep in re.split(r"\n(?=(?:Direct|Indirect) leak)", text):
            if rep.startswith(("Direct", "Indirect")) and ours(rep, lib_dir):
                leaks.append(rep.strip())
    shutil.rmtree(logs, ignore_errors=True)
    for e in errors:
        print(e)
    for rep in leaks:
        print(rep + "\n")
    print("sanitized pytest: exit %d, %d sanitizer error log(s), %d leak(s) from librlx" % (rc, len(errors), len(leaks)))
    return 1 if rc or errors or leaks else 0


if __name__ == "__main__":
    sys.exit(main())
