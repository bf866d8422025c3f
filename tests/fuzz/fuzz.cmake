# Fuzz targets (tests/fuzz/fuzz_*.c), included from the top-level CMakeLists.txt.
#
# RLX_FUZZ=ON (clang, e.g. CC=clang-14): the whole build is instrumented for libFuzzer with
# ASan + UBSan, each target links libFuzzer (bin/fuzz_NAME), and ctest case fuzz_NAME
# (label "fuzz") runs `scripts/fuzz.sh --ci`: a fixed number of executions with a fixed
# seed from the committed corpus, so a given tree always gives the same result (a
# wall-clock budget made the result depend on the machine's speed and load, and a lucky
# find failed an unrelated change). The counts below take about 20 s each on the 2-core
# development machine; RLX_FUZZ_RUNS_PERCENT scales them all. Long random runs:
# scripts/fuzz.sh TARGET SECONDS.
# Other builds: fuzz_replay_NAME links tests/fuzz/replay.c instead of libFuzzer and runs the
# target once on every input of tests/fuzz/corpus/NAME/ (seeds and the regression inputs
# of crashes found and fixed), so the release and GCC sanitizer builds check them too.
# In an RLX_FUZZ build only the fuzz targets and their cases are meant to be built and run
# (cmake --build --target rlx_fuzz; ctest -L fuzz).
set(RLX_FUZZ_RUNS_PERCENT 100 CACHE STRING "Scales the executions of each fuzz_NAME ctest case (RLX_FUZZ builds)")
set(RLX_FUZZ_RUNS_onnx 150000)
set(RLX_FUZZ_RUNS_script 12000)
set(RLX_FUZZ_RUNS_npy 500000)
set(RLX_FUZZ_RUNS_tensor_pb 400000)
set(RLX_FUZZ_RUNS_vm_asm 150000)
set(RLX_FUZZ_RUNS_vm_exec 100000)
add_custom_target(rlx_fuzz)
file(GLOB RLX_FUZZ_TARGETS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_*.c)
foreach(t ${RLX_FUZZ_TARGETS})
  get_filename_component(name ${t} NAME_WE)
  string(REGEX REPLACE "^fuzz_" "" target ${name})
  if(RLX_FUZZ)
    set(exe ${name})
    add_executable(${exe} ${t})
    target_link_options(${exe} PRIVATE -fsanitize=fuzzer)
    if(NOT DEFINED RLX_FUZZ_RUNS_${target})
      message(FATAL_ERROR "tests/fuzz/fuzz.cmake: no RLX_FUZZ_RUNS_${target} for ${t}")
    endif()
    math(EXPR runs "${RLX_FUZZ_RUNS_${target}} * ${RLX_FUZZ_RUNS_PERCENT} / 100")
    add_test(NAME ${name} COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/fuzz.sh --ci ${target} ${runs}
             ${CMAKE_BINARY_DIR} WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(${name} PROPERTIES LABELS fuzz TIMEOUT 600)
  else()
    set(exe fuzz_replay_${target})
    add_executable(${exe} ${t} ${CMAKE_SOURCE_DIR}/tests/fuzz/replay.c)
    set(seeds ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/${target})
    if(target STREQUAL "script")
      list(APPEND seeds ${CMAKE_SOURCE_DIR}/tests/golden) # as scripts/fuzz.sh
    endif()
    add_test(NAME ${exe} COMMAND ${exe} ${seeds} WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(${exe} PROPERTIES LABELS fuzz)
  endif()
  target_include_directories(${exe} PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests ${ONNX_GEN_DIR})
  target_link_libraries(${exe} rlx)
  add_dependencies(rlx_fuzz ${exe})
endforeach()
