#!/usr/bin/env bash
# Runs the whole test suite and proves every code path on whatever CPU it lands on:
#   release     the normal build, through ctest, at this CPU's level;
#   capped      the same tests again with RLX_MAX_ISA one level down (x86-64-v4 -> v3, v3 -> v2),
#               so the lower kernels and schedules run on a newer CPU (slow or machine-free
#               cases left out: the leak loop, the allocation sweeps, the fuzz replays);
#   sanitizer   the ASan + UBSan build, through ctest;
#   fuzz        every libFuzzer target in a clang build (build-fuzz) for a fixed number of
#               executions with a fixed seed (tests/fuzz/fuzz.cmake; RLX_FUZZ_RUNS_PERCENT,
#               default 100, scales them);
#   x86-64-v2   (x86-64 hosts) models compiled for -mcpu=x86-64-v2, the runtime's tests and
#               rlx-run under qemu-x86_64 -cpu Nehalem, which faults on any AVX instruction;
#   aarch64     the runtime cross-built with aarch64-linux-gnu-gcc (build-aarch64), its tests,
#               real models and a sample of the ONNX suite compiled for aarch64 and run under
#               qemu-aarch64, Model Library Format archives built into static programs.
# Ends with one "N passed, N failed" line over all of them.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --test || exit 1
jobs=$(nproc)
total_pass=0
total_fail=0
py=/usr/bin/python3
add_counts() { # log file holding ctest's or our "N passed, N failed" line
  local log=$1 line p f
  line=$(grep -E "tests passed, [0-9]+ tests failed out of" "$log" | tail -1)
  if [[ -n "$line" ]]; then
    f=$(echo "$line" | sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1/')
    p=$(($(echo "$line" | sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\2/') - f))
  else
    line=$(grep -E "^[0-9]+ passed, [0-9]+ failed" "$log" | tail -1)
    if [[ -z "$line" ]]; then p=0; f=1; else
      p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
      f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
    fi
  fi
  total_pass=$((total_pass + p))
  total_fail=$((total_fail + f))
}
build() { # name, build dir, cmake flags...; $only: build just that target
  local name=$1 dir=$2
  shift 2
  echo "== $name build"
  mkdir -p "$dir"
  if ! cmake -S . -B "$dir" "$@" >/dev/null || ! cmake --build "$dir" -j"$jobs" ${only:+--target "$only"} >/dev/null 2>"$dir/build.log"; then
    tail -40 "$dir/build.log" 2>/dev/null
    echo "$name build failed"
    total_fail=$((total_fail + 1))
    return 1
  fi
}
run_ctest() { # name, build dir ($ctest_args, $ctest_jobs)
  local name=$1 dir=$2 log="$2/ctest-$1.log"
  echo "== $name tests"
  (cd "$dir" && ctest --output-on-failure -j"${ctest_jobs:-$jobs}" --timeout 900 ${ctest_args:-}) 2>&1 | tee "$log"
  add_counts "$log"
}
run_step() { # name, log, command...: a script that ends with "N passed, N failed"
  local name=$1 log=$2
  shift 2
  echo "== $name"
  "$@" 2>&1 | tee "$log"
  add_counts "$log"
}

if build release build -DCMAKE_BUILD_TYPE=RelWithDebInfo; then
  run_ctest release build
  isa=$(build/bin/rlx config --isa)
  below=""
  case "$isa" in x86-64-v4) below=x86-64-v3 ;; x86-64-v3) below=x86-64-v2 ;; esac
  if [[ -n "$below" ]]; then
    echo "== this CPU runs $isa; again capped at $below"
    RLX_MAX_ISA=$below ctest_args="-E (py_rlx_leak|alloc_fail_sweep|fuzz_|public_boundary)" run_ctest capped-$below build
  else
    echo "== this CPU runs $isa: no lower level to cap at"
  fi
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export RLX_SANITIZE_RUN=1
build sanitizer build-asan -DCMAKE_BUILD_TYPE=Debug -DRLX_SANITIZE=ON && run_ctest sanitizer build-asan
unset RLX_SANITIZE_RUN ASAN_OPTIONS UBSAN_OPTIONS
# libFuzzer targets (tests/fuzz), one at a time: fuzz_NAME fuzzes from the committed corpus.
CC=clang-14 only=rlx_fuzz build fuzz build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRLX_FUZZ=ON \
  -DRLX_FUZZ_RUNS_PERCENT="${RLX_FUZZ_RUNS_PERCENT:-100}" && ctest_args="-L fuzz" ctest_jobs=1 run_ctest fuzz build-fuzz

# Other CPUs under emulation, time-bounded: the runtime's tests, real models (runner and MLF),
# and every 8th case of the ONNX suite's passing list.
conformance_sample() { # name, target, runner
  run_step "$1 ONNX sample" "build/conformance-$1.log" $py tests/onnx/run_conformance.py build/bin/rlx --passing-only \
    --sample 8 --quiet --timeout 300 --target "$2" --runner "$3"
}
if [[ -x build/bin/rlx && $(uname -m) == x86_64 ]] && command -v qemu-x86_64 >/dev/null; then
  emu="qemu-x86_64 -cpu Nehalem"
  echo "== x86-64-v2: the runtime's tests under $emu"
  for t in build/bin/test_runtime_*; do
    run_step "$(basename "$t") (Nehalem)" "build/nehalem-$(basename "$t").log" $emu "$t"
  done
  run_step "x86-64-v2 models" build/cross-v2.log $py tests/python/cross_models.py build/bin/rlx --target "c -mcpu=x86-64-v2" \
    --runner "$emu build/bin/rlx-run" --cc cc --emulator "$emu"
  conformance_sample x86-64-v2 "c -mcpu=x86-64-v2" "$emu build/bin/rlx-run"
fi
if [[ -x build/bin/rlx ]] && command -v qemu-aarch64 >/dev/null && command -v aarch64-linux-gnu-gcc >/dev/null; then
  emu="qemu-aarch64 -L /usr/aarch64-linux-gnu"
  if build aarch64 build-aarch64 -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
    -DRLX_RUNTIME_ONLY=ON; then
    CC=aarch64-linux-gnu-gcc run_ctest aarch64 build-aarch64
    run_step "aarch64 models" build/cross-aarch64.log $py tests/python/cross_models.py build/bin/rlx \
      --target "c -mtriple=aarch64-linux-gnu" --runner "$emu build-aarch64/bin/rlx-run" --cc aarch64-linux-gnu-gcc \
      --emulator "$emu"
    conformance_sample aarch64 "c -mtriple=aarch64-linux-gnu" "$emu build-aarch64/bin/rlx-run"
  fi
fi
echo "$total_pass passed, $total_fail failed"
[[ $total_fail -eq 0 ]]
