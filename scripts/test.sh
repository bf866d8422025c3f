#!/usr/bin/env bash
# Runs the whole test suite: the normal build and the sanitizer (ASan + UBSan) build, each
# through ctest, then every libFuzzer target in a clang build (build-fuzz) for a fixed
# number of executions with a fixed seed (tests/fuzz/fuzz.cmake; RLX_FUZZ_RUNS_PERCENT,
# default 100, scales them); ends with one "N passed, N failed" line over all three.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --test || exit 1
jobs=$(nproc)
total_pass=0
total_fail=0
run_suite() { # name, build dir, cmake flags... ($only: build just that target; $ctest_args, $ctest_jobs)
  local name=$1 dir=$2
  shift 2
  echo "== $name build"
  if ! cmake -S . -B "$dir" "$@" >/dev/null || ! cmake --build "$dir" -j"$jobs" ${only:+--target "$only"} >/dev/null 2>"$dir/build.log"; then
    cat "$dir/build.log" 2>/dev/null | tail -40
    echo "$name build failed"
    total_fail=$((total_fail + 1))
    return
  fi
  local log="$dir/ctest.log"
  (cd "$dir" && ctest --output-on-failure -j"${ctest_jobs:-$jobs}" --timeout 900 ${ctest_args:-}) 2>&1 | tee "$log"
  local line
  line=$(grep -E "tests passed, [0-9]+ tests failed out of" "$log" | tail -1)
  local failed totalc
  failed=$(echo "$line" | sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1/')
  totalc=$(echo "$line" | sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\2/')
  if [[ -z "$line" ]]; then failed=1; totalc=1; fi
  total_pass=$((total_pass + totalc - failed))
  total_fail=$((total_fail + failed))
}
run_suite release build -DCMAKE_BUILD_TYPE=RelWithDebInfo
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export RLX_SANITIZE_RUN=1
run_suite sanitizer build-asan -DCMAKE_BUILD_TYPE=Debug -DRLX_SANITIZE=ON
# libFuzzer targets (tests/fuzz), one at a time: fuzz_NAME fuzzes from the committed corpus.
unset RLX_SANITIZE_RUN
CC=clang-14 only=rlx_fuzz ctest_args="-L fuzz" ctest_jobs=1 run_suite fuzz build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRLX_FUZZ=ON -DRLX_FUZZ_RUNS_PERCENT="${RLX_FUZZ_RUNS_PERCENT:-100}"
echo "$total_pass passed, $total_fail failed"
[[ $total_fail -eq 0 ]]
