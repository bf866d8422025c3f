/* Helpers shared by the codegen tests: building lowered TIR by hand, compiling it, calling it
 * through the packed ABI. Set RLX_TEST_DUMP=1 to print the generated C. */
#ifndef RLX_CODEGEN_TEST_UTIL_H
#define RLX_CODEGEN_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "build/build.h"
#include "codegen/codegen.h"
#include "rlx/runtime.h"
#include "rlx/target.h"
#include "test.h"
#include "tir/tir.h"
#include "transform/tir/transform.h"

static rlx_ctx_t* ctx_;

static inline rlx_expr_t* I32(int64_t v) { return rlx_ir_i32(ctx_, v); }
static inline rlx_var_t* VAR(const char* name) { return rlx_ir_var(ctx_, name, rlx_dt_int32()); }
static inline rlx_expr_t* E(rlx_var_t* v) { return &v->hdr; }
static inline rlx_expr_t* ADD(rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_add(ctx_, a, b); }
static inline rlx_expr_t* MUL(rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_mul(ctx_, a, b); }

/* An N-D parameter buffer whose data var is also the param var. */
static inline rlx_tir_buffer_t* param_buf(const char* name, rlx_dtype_t t, int ndim, rlx_expr_t* const* shape) {
  return rlx_tir_buffer_create(ctx_, name, t, ndim, shape, "global");
}

/* The flat 1-D view of b (same data var), as rlx_tir_flatten_buffers makes it. */
static inline rlx_tir_buffer_t* flat_of(rlx_tir_buffer_t* b) {
  rlx_expr_t* size = b->shape[0];
  for (int d = 1; d < b->ndim; d++) size = rlx_ir_mul(ctx_, size, b->shape[d]);
  rlx_tir_buffer_t* f = rlx_tir_buffer_create(ctx_, b->name, b->dtype, 1, &size, b->scope);
  f->data = b->data;
  return f;
}

static inline rlx_expr_t* LD(rlx_tir_buffer_t* b, rlx_expr_t* i) { return rlx_ir_load(ctx_, b, 1, &i); }
static inline rlx_tir_stmt_t* ST(rlx_tir_buffer_t* b, rlx_expr_t* i, rlx_expr_t* v) { return rlx_tir_store(ctx_, b, v, 1, &i); }
static inline rlx_tir_stmt_t* FOR(rlx_var_t* v, rlx_expr_t* ext, rlx_for_kind_t k, rlx_tir_stmt_t* body) {
  return rlx_tir_for(ctx_, v, rlx_ir_int(ctx_, v->hdr.dtype, 0), ext, k, body);
}
static inline rlx_tir_stmt_t* SEQ2(rlx_tir_stmt_t* a, rlx_tir_stmt_t* b) {
  rlx_tir_stmt_t* s[2] = {a, b};
  return rlx_tir_seq(ctx_, 2, s);
}

static inline rlx_tir_func_t* make_func(const char* name, int n, rlx_tir_buffer_t* const* bufs, rlx_tir_stmt_t* body) {
  rlx_var_t* params[16];
  for (int i = 0; i < n; i++) params[i] = bufs[i]->data;
  return rlx_tir_func_create(ctx_, name, n, params, bufs, body);
}

/* unroll + vectorize, as the lowering pipeline does after flattening */
static inline rlx_tir_func_t* unroll_vectorize(rlx_tir_func_t* f) {
  rlx_tir_func_t *u = NULL, *v = NULL;
  CHECK_OK(rlx_tir_unroll_loops(ctx_, f, &u));
  if (!u) return f;
  CHECK_OK(rlx_tir_vectorize_loops(ctx_, u, &v));
  return v ? v : u;
}

/* Generates, compiles and loads; NULL (after a failed check) on error. *out_src (optional)
 * receives the source (heap). */
static inline rlx_library_t* build_lib(int n, rlx_tir_func_t* const* funcs, char** out_src) {
  char* src = NULL;
  rlx_status_t* st = rlx_codegen_c(ctx_, n, funcs, &src);
  CHECK_OK(st);
  if (!src) return NULL;
  if (getenv("RLX_TEST_DUMP")) fprintf(stderr, "%s\n", src);
  char* path = NULL;
  st = rlx_compile_c(ctx_, src, &path);
  CHECK_OK(st);
  rlx_library_t* lib = NULL;
  if (path) CHECK_OK(rlx_library_load(path, &lib));
  free(path);
  if (out_src) *out_src = src;
  else free(src);
  return lib;
}

static inline rlx_packed_fn_t get_fn(rlx_library_t* lib, const char* name) {
  rlx_packed_fn_t fn = NULL;
  if (lib) CHECK_OK(rlx_library_get_function(lib, rlx_codegen_symbol(ctx_, name), &fn));
  return fn;
}

/* Calls fn on ndarrays (type code NDARRAY); returns the status (caller frees). */
static inline rlx_status_t* call_arrays(rlx_packed_fn_t fn, rlx_ndarray_t* const* arrs, int n) {
  rlx_value_t args[16];
  int codes[16];
  for (int i = 0; i < n; i++) {
    args[i].v_handle = arrs[i];
    codes[i] = RLX_ARG_NDARRAY;
  }
  return rlx_packed_call(fn, NULL, args, codes, n, NULL, NULL);
}

static inline rlx_ndarray_t* new_array(int ndim, const int64_t* shape, DLDataType t, uint64_t seed) {
  rlx_ndarray_t* a = NULL;
  CHECK_OK(rlx_ndarray_create(ndim, shape, t, NULL, &a));
  if (a) CHECK_OK(rlx_ndarray_fill_random(&a->dl, seed));
  return a;
}

/* The x86-64 levels the codegen tests compile for, lowest first. */
static const char* const test_x86_levels[] = {"c -mcpu=x86-64-v2", "c -mcpu=x86-64-v3", "c -mcpu=x86-64-v4"};
enum { TEST_N_X86_LEVELS = 3 };
/* Sets ctx_'s target to `text` when this CPU (capped by RLX_MAX_ISA) runs its code; else
 * prints "<what> at <text>: skipped: no <feature>" (the first it lacks) and returns false. */
static inline bool test_use_target(const char* text, const char* what) {
  rlx_target_t *t = NULL, *host = NULL;
  CHECK_OK(rlx_target_parse(text, &t));
  CHECK_OK(rlx_target_host(&host));
  if (!t || !host) {
    rlx_target_free(t);
    rlx_target_free(host);
    return false;
  }
  bool ok = rlx_target_arch(t) == rlx_target_arch(host);
  char missing[64] = "";
  if (!ok) snprintf(missing, sizeof(missing), "%s CPU", rlx_target_arch(t) == RLX_ARCH_X86_64 ? "x86-64" : "aarch64");
  char feats[512];
  snprintf(feats, sizeof(feats), "%s", rlx_target_features(t));
  char* save = NULL;
  for (char* f = strtok_r(feats, ",", &save); f && ok; f = strtok_r(NULL, ",", &save))
    if (!rlx_target_has_feature(host, f)) {
      ok = false;
      snprintf(missing, sizeof(missing), "%s", f);
    }
  if (ok) CHECK_OK(rlx_ctx_set_target(ctx_, t));
  else printf("%s at %s: skipped: no %s\n", what, text, missing);
  rlx_target_free(t);
  rlx_target_free(host);
  return ok;
}
/* Float32 lanes of a native vector of ctx_'s target. */
static inline int test_f32_lanes(void) { return rlx_target_vector_bytes(rlx_ctx_target(ctx_)) / 4; }
static inline double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
