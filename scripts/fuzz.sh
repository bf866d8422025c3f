#!/usr/bin/env bash
# Runs one libFuzzer target.
# Usage: scripts/fuzz.sh TARGET SECONDS [BUILD_DIR]     a long random run (wall-clock budget)
#        scripts/fuzz.sh --ci TARGET RUNS [BUILD_DIR]   the test suite's run: reproducible
#   TARGET: onnx, script, npy, tensor_pb, vm_exec, vm_asm (tests/fuzz/fuzz_TARGET.c)
#   BUILD_DIR: an RLX_FUZZ build (default build-fuzz, configured with clang-14 and built here
#   when missing or stale).
# Inputs: tests/fuzz/corpus/TARGET (committed seeds + regression inputs, read only; for
# script also tests/golden) and the dictionary tests/fuzz/dict/TARGET.dict when there is
# one. A long run also reads and extends BUILD_DIR/fuzz-work/TARGET (what the fuzzer
# found, kept across runs) and draws a random seed. --ci runs exactly RUNS executions
# with seed RLX_FUZZ_SEED (default 1) from the committed inputs alone (a fresh work
# directory, no timed corpus reload, no address randomization), so a given tree always
# gives the same result: a change can fail it only by what it changes, never by a lucky
# draw. Runs at nice 10 on one core. Ends with
# "fuzz TARGET: N executions in S s (R/s), corpus K" or the crash input and how to
# reproduce it; exits non-zero on a crash, leak, timeout or out-of-memory.
set -uo pipefail
cd "$(dirname "$0")/.."
ci=0
if [[ ${1:-} == --ci ]]; then ci=1; shift; fi
usage="usage: scripts/fuzz.sh TARGET SECONDS [BUILD_DIR] | --ci TARGET RUNS [BUILD_DIR]"
target=${1:?$usage}
budget=${2:?$usage}
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
crashes=$build/fuzz-crashes/$target
mkdir -p "$build/fuzz-work" "$crashes"
opts=(-print_final_stats=1 -rss_limit_mb=2048 -timeout=25 -max_len=65536 -artifact_prefix="$crashes/")
if [[ $ci == 1 ]]; then
  work=$(mktemp -d "$build/fuzz-work/ci-$target.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  # -reload=0: rereading the work directory happens on a timer; setarch -R: without
  # address randomization (runs with it diverged after some 60000 executions)
  opts+=(-runs="$budget" -seed="${RLX_FUZZ_SEED:-1}" -reload=0)
  if setarch "$(uname -m)" -R true 2>/dev/null; then
    norand=(setarch "$(uname -m)" -R)
  else
    norand=()
    echo "fuzz: setarch -R is not available here; the run may differ from one time to the next"
  fi
  log=$build/fuzz-work/ci-$target.log
else
  work=$build/fuzz-work/$target
  mkdir -p "$work"
  norand=()
  opts+=(-max_total_time="$budget")
  log=$build/fuzz-work/$target.log
fi
[[ -f tests/fuzz/dict/$target.dict ]] && opts+=(-dict="tests/fuzz/dict/$target.dict")
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
seeds=("tests/fuzz/corpus/$target")
[[ $target == script ]] && seeds+=(tests/golden) # the golden TVMScript files seed it too
start=$(date +%s)
nice -n 10 "${norand[@]}" "$exe" "${opts[@]}" "$work" "${seeds[@]}" >"$log" 2>&1
rc=$?
secs=$(( $(date +%s) - start ))
execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
corpus=$(find "$work" -type f | wc -l)
if [[ $rc -ne 0 ]]; then
  grep -E "ERROR|SUMMARY|fuzz check failed|Test unit written|==[0-9]+==" "$log" | head -20
  echo "fuzz $target: FAILED after ${execs:-?} executions (log $log)"
  echo "reproduce: $exe CRASH_FILE; minimize: $exe -minimize_crash=1 -runs=10000 CRASH_FILE"
  exit 1
fi
rate=$(( secs > 0 ? ${execs:-0} / secs : 0 ))
echo "fuzz $target: ${execs:-?} executions in $secs s ($rate/s), corpus $corpus"
