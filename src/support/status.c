/* Status objects: heap-allocated code + message; NULL is success. */
#include "rlx/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rlx_status {
  rlx_status_code_t code;
  char* message;
};

/* Returned when allocating a status itself fails; never freed. */
static struct rlx_status oom_status = {RLX_OUT_OF_MEMORY, "out of memory"};

RLX_MUST_USE rlx_status_t* rlx_status_createv(rlx_status_code_t code, const char* fmt, va_list ap) {
  rlx_status_t* st = malloc(sizeof(*st));
  if (!st) return &oom_status;
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  st->message = malloc((size_t)(n < 0 ? 1 : n + 1));
  if (!st->message) {
    free(st);
    va_end(ap2);
    return &oom_status;
  }
  if (n < 0) st->message[0] = 0;
  else vsnprintf(st->message, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  st->code = code == RLX_OK ? RLX_INTERNAL : code;
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_status_create(rlx_status_code_t code, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rlx_status_t* st = rlx_status_createv(code, fmt, ap);
  va_end(ap);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_status_annotate(rlx_status_t* st, const char* fmt, ...) {
  if (!st || st == &oom_status) return st;
  char prefix[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof(prefix), fmt, ap);
  va_end(ap);
  size_t n = strlen(prefix) + strlen(st->message) + 3;
  char* m = malloc(n);
  if (!m) return st;
  snprintf(m, n, "%s: %s", prefix, st->message);
  free(st->message);
  st->message = m;
  return st;
}

rlx_status_code_t rlx_status_code(const rlx_status_t* st) { return st ? st->code : RLX_OK; }

const char* rlx_status_message(const rlx_status_t* st) { return st ? st->message : "ok"; }

const char* rlx_status_code_name(rlx_status_code_t code) {
  switch (code) {
    case RLX_OK: return "ok";
    case RLX_INVALID_ARGUMENT: return "invalid argument";
    case RLX_PARSE_ERROR: return "parse error";
    case RLX_NOT_FOUND: return "not found";
    case RLX_UNSUPPORTED: return "unsupported";
    case RLX_IO_ERROR: return "i/o error";
    case RLX_OUT_OF_MEMORY: return "out of memory";
    case RLX_INTERNAL: return "internal error";
    case RLX_TYPE_MISMATCH: return "type mismatch";
  }
  return "unknown";
}

void rlx_status_free(rlx_status_t* st) {
  if (!st || st == &oom_status) return;
  free(st->message);
  free(st);
}
