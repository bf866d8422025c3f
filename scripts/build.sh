#!/usr/bin/env bash
# Builds rlx (build/bin/rlx, build/lib/librlx.so, build/lib/librlx_runtime.so) and shows the main
# job on the bundled network examples/cnn.onnx (a small CNN classifier, made by
# examples/make_cnn.py, with its input and PyTorch's output): compile it, run it and time it
# with the VM, export it as a Model Library Format archive, build the archive with a plain C
# compiler into a program that needs no rlx library, run that, and check that both agree
# with the reference. No network access and no PyTorch needed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
rlx=build/bin/rlx
out=out/example
rm -rf "$out" && mkdir -p "$out"
echo "== rlx compile examples/cnn.onnx -o $out/cnn.so"
$rlx compile examples/cnn.onnx -o "$out/cnn.so"
echo "== rlx run $out/cnn.so -i examples/cnn_input.npy -o $out/vm --format npy"
$rlx run "$out/cnn.so" -i examples/cnn_input.npy -o "$out/vm" --format npy
echo "== rlx bench $out/cnn.so -i examples/cnn_input.npy --repeat 50"
$rlx bench "$out/cnn.so" -i examples/cnn_input.npy --repeat 50 | tee "$out/bench.txt"
echo "== rlx export-mlf examples/cnn.onnx -o $out/cnn_mlf.tar"
$rlx export-mlf examples/cnn.onnx -o "$out/cnn_mlf.tar"
mkdir -p "$out/mlf" && tar -xf "$out/cnn_mlf.tar" -C "$out/mlf"
echo "   $(tar -tf "$out/cnn_mlf.tar" | wc -l) files: $(tar -tf "$out/cnn_mlf.tar" | grep -v '^runtime/src/.*[.]h$' | tr '\n' ' ')"
shopt -s nullglob
srcs=("$out"/mlf/codegen/host/src/*.c "$out"/mlf/runtime/src/*.c)
# the archive's C flags: its target's (this machine's), as metadata.json and rlx config name them
cflags=$($rlx config --target-cflags)
echo "== cc -std=c11 $cflags -I $out/mlf/codegen/host/include <the archive's ${#srcs[@]} C files> examples/cnn_main.c -lm"
echo "   (plain C11, no rlx library; the convolution kernels take a minute to compile)"
# shellcheck disable=SC2086 # the flags are words
${CC:-cc} -std=c11 $cflags -I "$out/mlf/codegen/host/include" "${srcs[@]}" examples/cnn_main.c -lm -o "$out/cnn_plain" \
  2>"$out/cc.log" || { cat "$out/cc.log"; exit 1; }
echo "== $out/cnn_plain examples/cnn_input.npy"
"$out/cnn_plain" examples/cnn_input.npy "$out/plain_logits.bin"
/usr/bin/python3 - "$out" <<'PY'
import sys
import numpy as np
out = sys.argv[1]
ref = np.load("examples/cnn_output.npy")
vm = np.load(out + "/vm/output_0.npy")
plain = np.fromfile(out + "/plain_logits.bin", dtype=np.float32).reshape(ref.shape)
ms = [l.split("=")[1].strip() for l in open(out + "/bench.txt") if l.startswith("median_ms=")][0]
print("VM logits:     ", " ".join("%.5f" % v for v in vm.ravel()), " class %d" % int(vm.argmax()))
print("VM latency:     %s ms (median of 50)" % ms)
e_vm = float(np.max(np.abs(vm - ref)))
e_plain = float(np.max(np.abs(plain - ref)))
e_both = float(np.max(np.abs(plain - vm)))
print("max abs error vs PyTorch's reference: VM %.3g, plain C %.3g; VM vs plain C %.3g" % (e_vm, e_plain, e_both))
ok = e_vm < 1e-4 and e_plain < 1e-4
print("both agree with the reference" if ok else "MISMATCH")
sys.exit(0 if ok else 1)
PY
