# Fuzz targets (tests/fuzz/fuzz_*.c), included from the top-level CMakeLists.txt.
#
# RLX_FUZZ=ON (clang, e.g. CC=clang-14): the whole build is instrumented for libFuzzer with
# ASan + UBSan, each target links libFuzzer (bin/fuzz_NAME), and ctest case fuzz_NAME runs
# it for RLX_FUZZ_SECONDS (label "fuzz") through scripts/fuzz.sh, from the committed corpus.
# Other builds: fuzz_replay_NAME links tests/fuzz/replay.c instead of libFuzzer and runs the
# target once on every input of tests/fuzz/corpus/NAME/ (seeds and the regression inputs
# of crashes found and fixed), so the release and GCC sanitizer builds check them too.
# In an RLX_FUZZ build only the fuzz targets and their cases are meant to be built and run
# (cmake --build --target rlx_fuzz; ctest -L fuzz).
set(RLX_FUZZ_SECONDS 20 CACHE STRING "Seconds each fuzz_NAME ctest case fuzzes for (RLX_FUZZ builds)")
add_custom_target(rlx_fuzz)
file(GLOB RLX_FUZZ_TARGETS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_*.c)
foreach(t ${RLX_FUZZ_TARGETS})
  get_filename_component(name ${t} NAME_WE)
  string(REGEX REPLACE "^fuzz_" "" target ${name})
  if(RLX_FUZZ)
    set(exe ${name})
    add_executable(${exe} ${t})
    target_link_options(${exe} PRIVATE -fsanitize=fuzzer)
    add_test(NAME ${name} COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/fuzz.sh ${target} ${RLX_FUZZ_SECONDS}
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
