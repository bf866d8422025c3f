#!/usr/bin/env bash
# Builds rlx (build/bin/rlx, build/lib/librlx.so, build/lib/librlx_runtime.so) and runs the
# bundled example: a TVMScript matmul + relu exactly as TVM prints it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
echo "== rlx print examples/matmul_relu.py"
build/bin/rlx print examples/matmul_relu.py
echo "== rlx run examples/matmul_relu.py -i examples/A.npy -i examples/B.npy -o out/example"
build/bin/rlx run examples/matmul_relu.py -i examples/A.npy -i examples/B.npy -o out/example
/usr/bin/python3 - <<'PY'
import numpy as np
a = np.load("examples/A.npy"); b = np.load("examples/B.npy")
out = np.load("out/example/output_0.npy")
ref = np.maximum(a @ b, 0)
err = float(np.max(np.abs(out - ref)))
print(f"output_0.npy {out.shape} {out.dtype}; max abs error vs numpy = {err:.3g}")
PY
