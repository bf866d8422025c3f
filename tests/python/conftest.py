"""pytest setup: import rlx from the checkout's python/ (the library from $RLX_LIBRARY_PATH,
which ctest sets to the build tree being tested, else build/lib)."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
