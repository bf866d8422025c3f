#!/usr/bin/env bash
# Runs one libFuzzer target for a number of seconds.
# Usage: scripts/fuzz.sh TARGET SECONDS [BUILD_DIR]
#   TARGET: onnx, script, npy, tensor_pb, vm_exec, vm_asm (tests/fuzz/fuzz_TARGET.c)
#   BUILD_DIR: an RLX_FUZZ build (default build-fuzz, configured with clang-14 and built here
#   when missing or stale).
# Inputs: tests/fuzz/corpus/TARGET (committed seeds + regression inputs, read only; for
# script also tests/golden) and
# BUILD_DIR/fuzz-work/TARGET (what the fuzzer finds, kept across runs); the dictionary
# tests/fuzz/dict/TARGET.dict when there is one. Runs at nice 10 on one core. Ends with
# "fuzz TARGET: N executions in S s (R/s), corpus K" or the crash input and how to
# reproduce it; exits non-zero on a crash, leak, timeout or out-of-memory.
set -uo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh TARGET SECONDS [BUILD_DIR]}
seconds=${2:?usage: scripts/fuzz.sh TARGET SECONDS [BUILD_DIR]}
build=${3:-build-fuzz}
src=tests/fuzz/fuzz_$target.c
[[ -f $src ]] || { echo "fuzz: no target $target ($src)"; exit 2; }
if [[ -z "${3:-}" ]]; then
  if [[ ! -f $build/CMakeCache.txt ]]; then
    CC=${FUZZ_CC:-clang-14} cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRLX_FUZZ=ON >/dev/null || exit 1
  fi
  nice -n 10 cmake --build "$build" -j"$(nproc)" --target "fuzz_$target" >/dev/null || exit 1
fi
exe=$build/bin/fuzz_$target
[[ -x $exe ]] || { echo "fuzz: $exe is missing (build with -DRLX_FUZZ=ON)"; exit 2; }
work=$build/fuzz-work/$target
crashes=$build/fuzz-crashes/$target
mkdir -p "$work" "$crashes"
opts=(-max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 -timeout=25
      -max_len=65536 -artifact_prefix="$crashes/")
[[ -f tests/fuzz/dict/$target.dict ]] && opts+=(-dict="tests/fuzz/dict/$target.dict")
log=$build/fuzz-work/$target.log
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
seeds=("tests/fuzz/corpus/$target")
[[ $target == script ]] && seeds+=(tests/golden) # the golden TVMScript files seed it too
nice -n 10 "$exe" "${opts[@]}" "$work" "${seeds[@]}" >"$log" 2>&1
rc=$?
execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
secs=$(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "$log" | grep -oE 'in [0-9]+' | grep -oE '[0-9]+' | tail -1)
corpus=$(find "$work" -type f | wc -l)
if [[ $rc -ne 0 ]]; then
  grep -E "ERROR|SUMMARY|fuzz check failed|Test unit written|==[0-9]+==" "$log" | head -20
  echo "fuzz $target: FAILED after ${execs:-?} executions (log $log)"
  echo "reproduce: $exe CRASH_FILE; minimize: $exe -minimize_crash=1 -runs=10000 CRASH_FILE"
  exit 1
fi
rate=$(( ${secs:-0} > 0 ? ${execs:-0} / secs : 0 ))
echo "fuzz $target: ${execs:-?} executions in ${secs:-?} s ($rate/s), corpus $corpus"
