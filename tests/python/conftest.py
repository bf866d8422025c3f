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
