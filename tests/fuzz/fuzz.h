/* Shared by the fuzz targets (tests/fuzz/fuzz_*.c): each defines LLVMFuzzerTestOneInput.
 * Built with clang -fsanitize=fuzzer (RLX_FUZZ=ON) it is a libFuzzer target; otherwise
 * replay.c supplies main(), which runs every file of the given corpus directories once
 * (the regression check of the normal and sanitizer builds). */
#ifndef RLX_TESTS_FUZZ_H
#define RLX_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlx/status.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/* A property of the code under test that the input broke: report and abort, so libFuzzer
 * (or the replay driver) records the input as a crash. */
#define FUZZ_CHECK(cond, ...)                                      \
  do {                                                             \
    if (!(cond)) {                                                 \
      fprintf(stderr, "fuzz check failed: %s: ", #cond);           \
      fprintf(stderr, __VA_ARGS__);                                \
      fputc('\n', stderr);                                         \
      abort();                                                     \
    }                                                              \
  } while (0)

/* The input as a NUL-terminated heap string (text formats). */
static inline char* fuzz_cstr(const uint8_t* data, size_t size) {
  char* s = malloc(size + 1);
  if (!s) return NULL;
  memcpy(s, data, size);
  s[size] = 0;
  return s;
}

/* Frees a status the target expects some inputs to produce. */
static inline void fuzz_ignore(rlx_status_t* st) { rlx_status_free(st); }

#endif
