/* Compiler context (arena), diagnostics with source spans, and data types. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

rlx_ctx_t* rlx_ctx_new(void) {
  rlx_ctx_t* ctx = calloc(1, sizeof(*ctx));
  if (ctx && !rlx_arena_init(&ctx->arena)) {
    free(ctx);
    return NULL;
  }
  if (!ctx) return NULL;
  rlx_status_t* st = rlx_target_host_into(&ctx->pass.target);
  if (st) { /* a malformed RLX_MAX_ISA: compiling reports it (rlx_ctx_target_check) */
    ctx->pass.target_error = rlx_arena_strdup(&ctx->arena, rlx_status_message(st));
    rlx_status_free(st);
    const char* base = rlx_host_arch() == RLX_ARCH_X86_64    ? "c -mcpu=x86-64"
                       : rlx_host_arch() == RLX_ARCH_AARCH64 ? "c -mcpu=generic"
                                                             : NULL;
    if (!base || rlx_target_parse_into(base, &ctx->pass.target) != NULL) memset(&ctx->pass.target, 0, sizeof(rlx_target_t));
  }
  return ctx;
}

RLX_MUST_USE rlx_status_t* rlx_ctx_target_check(const rlx_ctx_t* ctx) {
  return ctx->pass.target_error ? rlx_status_create(RLX_INVALID_ARGUMENT, "%s", ctx->pass.target_error) : NULL;
}

RLX_MUST_USE rlx_status_t* rlx_ctx_set_target(rlx_ctx_t* ctx, const rlx_target_t* target) {
  if (!target) return rlx_ctx_set_target_str(ctx, NULL);
  ctx->pass.target = *target;
  ctx->pass.target_error = NULL;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_ctx_set_target_str(rlx_ctx_t* ctx, const char* text) {
  rlx_target_t t;
  RLX_RETURN_IF_ERROR(rlx_target_parse_into(text, &t));
  return rlx_ctx_set_target(ctx, &t);
}

const rlx_target_t* rlx_ctx_target(const rlx_ctx_t* ctx) { return &ctx->pass.target; }

void rlx_ctx_set_cc(rlx_ctx_t* ctx, const char* cc) {
  ctx->pass.cc = cc && *cc ? rlx_arena_strdup(&ctx->arena, cc) : NULL;
}

void rlx_ctx_set_cache_dir(rlx_ctx_t* ctx, const char* dir) {
  ctx->pass.cache_dir = dir && *dir ? rlx_arena_strdup(&ctx->arena, dir) : NULL;
}

void rlx_ctx_set_keep_source(rlx_ctx_t* ctx, bool keep) { ctx->pass.keep_source = keep; }

void rlx_ctx_free(rlx_ctx_t* ctx) {
  if (!ctx) return;
  rlx_arena_free(&ctx->arena);
  free(ctx);
}

void* rlx_ctx_alloc(rlx_ctx_t* ctx, size_t size) { return rlx_arena_alloc(&ctx->arena, size); }

bool rlx_ctx_failed(const rlx_ctx_t* ctx) { return ctx->arena.failed; }

RLX_MUST_USE rlx_status_t* rlx_ctx_check(rlx_ctx_t* ctx, uint64_t mark, rlx_status_t* st) {
  if (rlx_alloc_failures() != mark) ctx->arena.failed = true;
  if (!ctx->arena.failed) return st;
  rlx_status_free(st);
  return rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (an allocation of the compiler failed)");
}

const char* rlx_ctx_strdup(rlx_ctx_t* ctx, const char* s) { return rlx_arena_strdup(&ctx->arena, s ? s : ""); }

const char* rlx_ctx_sprintf(rlx_ctx_t* ctx, const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return rlx_ctx_strdup(ctx, buf);
}

RLX_MUST_USE rlx_status_t* rlx_error(rlx_status_code_t code, rlx_span_t span, const char* fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (span.file) return rlx_status_create(code, "%s:%d:%d: %s", span.file, span.line, span.col, msg);
  return rlx_status_create(code, "%s", msg);
}

const char* rlx_dtype_str(rlx_dtype_t t, char buf[32]) {
  const char* base;
  if (t.code == RLX_DT_UINT && t.bits == 1) base = "bool";
  else if (t.code == RLX_DT_HANDLE) base = t.bits == 0 ? "void" : "handle";
  else if (t.code == RLX_DT_INT) base = "int";
  else if (t.code == RLX_DT_UINT) base = "uint";
  else if (t.code == RLX_DT_FLOAT) base = "float";
  else if (t.code == RLX_DT_BFLOAT) base = "bfloat";
  else base = "unknown";
  bool with_bits = t.code != RLX_DT_HANDLE && !(t.code == RLX_DT_UINT && t.bits == 1);
  if (with_bits && t.lanes > 1) snprintf(buf, 32, "%s%dx%d", base, t.bits, t.lanes);
  else if (with_bits) snprintf(buf, 32, "%s%d", base, t.bits);
  else if (t.lanes > 1) snprintf(buf, 32, "%sx%d", base, t.lanes);
  else snprintf(buf, 32, "%s", base);
  return buf;
}

bool rlx_dtype_parse(const char* s, rlx_dtype_t* out) {
  static const struct {
    const char* prefix;
    int code;
  } kinds[] = {{"bfloat", RLX_DT_BFLOAT}, {"float", RLX_DT_FLOAT}, {"uint", RLX_DT_UINT}, {"int", RLX_DT_INT}};
  if (!s) return false;
  int lanes = 1;
  const char* x = strchr(s, 'x');
  size_t n = x ? (size_t)(x - s) : strlen(s);
  if (x) {
    char* end;
    long l = strtol(x + 1, &end, 10);
    if (*end || l < 1 || l > 65535) return false;
    lanes = (int)l;
  }
  if (n == 4 && strncmp(s, "bool", 4) == 0) return *out = rlx_dtype(RLX_DT_UINT, 1, lanes), true;
  if (n == 6 && strncmp(s, "handle", 6) == 0) return *out = rlx_dtype(RLX_DT_HANDLE, 64, lanes), true;
  if (n == 4 && strncmp(s, "void", 4) == 0) return *out = rlx_dtype(RLX_DT_HANDLE, 0, 1), true;
  for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
    size_t pl = strlen(kinds[k].prefix);
    if (n <= pl || strncmp(s, kinds[k].prefix, pl) != 0) continue;
    int bits = 0;
    for (size_t i = pl; i < n; i++) {
      if (s[i] < '0' || s[i] > '9') return false;
      bits = bits * 10 + (s[i] - '0');
      if (bits > 64) return false;
    }
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return false;
    if (kinds[k].code == RLX_DT_FLOAT && bits == 8) return false;
    if (kinds[k].code == RLX_DT_BFLOAT && bits != 16) return false;
    *out = rlx_dtype(kinds[k].code, bits, lanes);
    return true;
  }
  return false;
}

int rlx_dtype_bytes(rlx_dtype_t t) {
  int b = t.bits == 1 ? 8 : t.bits;
  return (b + 7) / 8 * (t.lanes ? t.lanes : 1);
}
