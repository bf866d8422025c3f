/* Minimal unit-test harness: CHECK(...) records a failure and continues; TEST_MAIN prints
 * "N passed, N failed" and exits non-zero on failure. Each check is one count. */
#ifndef RLX_TEST_H
#define RLX_TEST_H
#include <math.h>
#include <stdio.h>
#include <string.h>

static int test_passed_, test_failed_;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) test_passed_++;                                                  \
    else {                                                                     \
      test_failed_++;                                                          \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

#define CHECK_MSG(cond, ...)                                          \
  do {                                                                \
    if (cond) test_passed_++;                                         \
    else {                                                            \
      test_failed_++;                                                 \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                   \
      fprintf(stderr, "\n");                                          \
    }                                                                 \
  } while (0)

/* Asserts a status is NULL (ok); prints and frees it otherwise. */
#define CHECK_OK(expr)                                                                   \
  do {                                                                                   \
    rlx_status_t* st_ = (expr);                                                          \
    if (!st_) test_passed_++;                                                            \
    else {                                                                               \
      test_failed_++;                                                                    \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr, rlx_status_message(st_)); \
      rlx_status_free(st_);                                                              \
    }                                                                                    \
  } while (0)

/* Asserts a status is an error whose message contains `needle`. */
#define CHECK_ERR(expr, needle)                                                           \
  do {                                                                                    \
    rlx_status_t* st_ = (expr);                                                           \
    if (st_ && strstr(rlx_status_message(st_), (needle))) test_passed_++;                 \
    else {                                                                                \
      test_failed_++;                                                                     \
      fprintf(stderr, "%s:%d: expected error containing '%s', got: %s\n", __FILE__, __LINE__, \
              (needle), st_ ? rlx_status_message(st_) : "ok");                            \
    }                                                                                     \
    rlx_status_free(st_);                                                                 \
  } while (0)

#define CHECK_STREQ(a, b)                                                                \
  do {                                                                                   \
    const char* a_ = (a);                                                                \
    const char* b_ = (b);                                                                \
    if (a_ && b_ && strcmp(a_, b_) == 0) test_passed_++;                                 \
    else {                                                                               \
      test_failed_++;                                                                    \
      fprintf(stderr, "%s:%d: strings differ:\n--- got\n%s\n--- expected\n%s\n", __FILE__, \
              __LINE__, a_ ? a_ : "(null)", b_ ? b_ : "(null)");                         \
    }                                                                                    \
  } while (0)

#define TEST_MAIN_END()                                                 \
  do {                                                                  \
    printf("%d passed, %d failed\n", test_passed_, test_failed_);       \
    return test_failed_ ? 1 : 0;                                        \
  } while (0)

#endif
