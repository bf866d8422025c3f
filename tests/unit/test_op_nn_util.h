/* Helpers of the nn op tests (test_op_nn*.c): build `main(params) { lv = op(args); return lv }`
 * with the BlockBuilder, legalize the op call through the registry, and run the resulting
 * PrimFunc with the TIR interpreter (or compiled, through rlx_build_module) on host arrays. */
#ifndef RLX_TEST_OP_NN_UTIL_H
#define RLX_TEST_OP_NN_UTIL_H

#include <stdlib.h>

#include "build/build.h"
#include "codegen/codegen.h"
#include "relax/op.h"
#include "rlx/runtime.h"
#include "test.h"
#include "tir/interp.h"
#include "tir/schedule/schedule.h"

static rlx_ctx_t* C_;
static const rlx_dtype_t F32_ = {RLX_DT_FLOAT, 32, 1};

static inline rlx_expr_t* N_(int64_t v) { return rlx_ir_i64(C_, v); }
static inline rlx_expr_t* SYM_(const char* name) { return &rlx_ir_var(C_, name, rlx_dt_int64())->hdr; }

/* A param of Tensor struct info (dims may be symbolic). */
static inline rlx_relax_var_t* tparam(const char* name, int ndim, rlx_expr_t* const* dims, rlx_dtype_t dt) {
  return rlx_relax_var(C_, name, rlx_sinfo_tensor(C_, ndim, dims, dt));
}
static inline rlx_relax_var_t* tparam_c(const char* name, int ndim, const int64_t* dims) {
  return rlx_relax_var(C_, name, rlx_sinfo_tensor_const(C_, ndim, dims, F32_));
}

/* attrs helpers */
static inline rlx_attrs_t at_ints(rlx_attrs_t a, const char* key, int n, const int64_t* v) {
  int64_t* c = RLX_NEW_ARRAY(C_, int64_t, n);
  for (int i = 0; i < n; i++) c[i] = v[i];
  return rlx_attrs_set(C_, a, key, rlx_attr_ints(n, c));
}
static inline rlx_attrs_t at_int(rlx_attrs_t a, const char* key, int64_t v) { return rlx_attrs_set(C_, a, key, rlx_attr_int(v)); }
static inline rlx_attrs_t at_f(rlx_attrs_t a, const char* key, double v) { return rlx_attrs_set(C_, a, key, rlx_attr_float(v)); }
static inline rlx_attrs_t at_b(rlx_attrs_t a, const char* key, bool v) { return rlx_attrs_set(C_, a, key, rlx_attr_bool(v)); }
static inline rlx_attrs_t at_s(rlx_attrs_t a, const char* key, const char* v) { return rlx_attrs_set(C_, a, key, rlx_attr_str(v)); }

typedef struct {
  rlx_bb_t* bb;
  rlx_relax_var_t* lv;     /* the op's binding */
  rlx_relax_call_t* call;  /* its value */
  rlx_relax_expr_t* legal; /* the legalized expression (normalized) */
  rlx_tir_func_t* prim;    /* the PrimFunc it calls */
} opcase_t;

/* Builds main(params) with lv = op(params..., attrs). Returns the BlockBuilder's status (an
 * inference error surfaces here); on error the function stays open and is abandoned. */
static inline rlx_status_t* build_op(const char* op, int n, rlx_relax_var_t* const* params, rlx_attrs_t attrs,
                                     opcase_t* out) {
  memset(out, 0, sizeof(*out));
  out->bb = rlx_bb_create(C_, NULL);
  rlx_relax_expr_t* args[8];
  for (int i = 0; i < n; i++) args[i] = &params[i]->hdr;
  RLX_RETURN_IF_ERROR(rlx_bb_function_begin(out->bb, "main", n, params));
  RLX_RETURN_IF_ERROR(rlx_bb_emit(out->bb, rlx_relax_op_call_named(C_, op, n, args, attrs), "lv", &out->lv));
  RLX_RETURN_IF_ERROR(rlx_bb_emit_func_output(out->bb, &out->lv->hdr, -1, NULL));
  return rlx_bb_function_end(out->bb, NULL);
}

/* The struct info of the op's binding, printed. */
static inline const char* lv_sinfo(const opcase_t* oc) { return oc->lv ? rlx_sinfo_str(C_, oc->lv->hdr.sinfo) : "<none>"; }

/* The call_tir in e (e itself or the first field of a Tuple). */
static inline rlx_relax_call_t* find_call_tir(rlx_relax_expr_t* e) {
  if (e && e->kind == RLX_RELAX_TUPLE) e = ((rlx_relax_tuple_t*)e)->fields[0];
  if (!e || e->kind != RLX_RELAX_CALL || !rlx_relax_is_op(((rlx_relax_call_t*)e)->op, RLX_OP_CALL_TIR)) return NULL;
  return (rlx_relax_call_t*)e;
}

/* Legalizes the op call of oc through the registry; fills legal and prim. */
static inline rlx_status_t* legalize_op(opcase_t* oc) {
  rlx_relax_func_t* f = rlx_module_find(rlx_bb_get(oc->bb), "main")->func;
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
  oc->call = (rlx_relax_call_t*)seq->blocks[0]->bindings[0]->value;
  const rlx_op_def_t* def = rlx_op_lookup(((rlx_relax_op_t*)oc->call->op)->name);
  if (!def || !def->legalize) return rlx_status_create(RLX_NOT_FOUND, "no legalization");
  RLX_RETURN_IF_ERROR(def->legalize(oc->bb, oc->call, &oc->legal));
  RLX_RETURN_IF_ERROR(rlx_bb_normalize(oc->bb, oc->legal));
  rlx_relax_call_t* ct = find_call_tir(oc->legal);
  if (!ct) return rlx_status_create(RLX_INTERNAL, "legalization did not produce call_tir");
  const char* gv = ((rlx_relax_global_var_t*)ct->args[0])->name;
  rlx_module_entry_t* e = rlx_module_find(rlx_bb_get(oc->bb), gv);
  if (!e || e->kind != RLX_FUNC_TIR) return rlx_status_create(RLX_INTERNAL, "no PrimFunc %s", gv);
  oc->prim = e->func;
  return NULL;
}

/* A float32 host tensor. */
typedef struct {
  DLTensor dl;
  int64_t shape[8];
  float* data;
  int64_t n;
} host_t;

static inline void host_init(host_t* h, int ndim, const int64_t* shape) {
  memset(h, 0, sizeof(*h));
  h->n = 1;
  for (int d = 0; d < ndim; d++) {
    h->shape[d] = shape[d];
    h->n *= shape[d];
  }
  h->data = calloc((size_t)(h->n ? h->n : 1), sizeof(float));
  h->dl.data = h->data;
  h->dl.device.device_type = kDLCPU;
  h->dl.ndim = ndim;
  h->dl.dtype.code = kDLFloat;
  h->dl.dtype.bits = 32;
  h->dl.dtype.lanes = 1;
  h->dl.shape = h->shape;
}

/* Uniform values in [lo, hi). */
static inline void host_rand(host_t* h, unsigned seed, float lo, float hi) {
  unsigned s = seed * 2654435761u + 1;
  for (int64_t i = 0; i < h->n; i++) {
    s = s * 1103515245u + 12345u;
    h->data[i] = lo + (hi - lo) * (float)((s >> 8) & 0xFFFF) / 65536.0f;
  }
}

static inline void host_free(host_t* h) { free(h->data); }

/* Runs prim on the tensors with the TIR interpreter. */
static inline rlx_status_t* run_interp(const rlx_tir_func_t* prim, int n, host_t* const* ts) {
  DLTensor* args[16];
  for (int i = 0; i < n; i++) args[i] = &ts[i]->dl;
  return rlx_tir_interpret(prim, args, n);
}

/* Compiles prim alone (default schedule, lowering, C) and runs it on the tensors. */
static inline rlx_status_t* run_compiled(const rlx_tir_func_t* prim, int n, host_t* const* ts) {
  rlx_module_t* m = rlx_module_create(C_);
  rlx_tir_func_t* f = rlx_tir_func_copy(C_, prim);
  f->name = "kernel";
  f->is_private = false;
  rlx_module_set(m, "kernel", RLX_FUNC_TIR, f);
  rlx_library_t* lib = NULL;
  RLX_RETURN_IF_ERROR(rlx_build_module(C_, m, &lib));
  rlx_packed_fn_t fn = NULL;
  rlx_status_t* gst = rlx_library_get_function(lib, rlx_codegen_symbol(C_, "kernel"), &fn);
  if (gst) {
    rlx_library_free(lib);
    return gst;
  }
  DLTensor* args[16];
  for (int i = 0; i < n; i++) args[i] = &ts[i]->dl;
  rlx_status_t* st = rlx_packed_call_tensors(fn, NULL, args, n);
  rlx_library_free(lib);
  return st;
}

/* max |got - want| over n elements, and max relative error (|d| / max(|want|, 1e-6)). */
static inline double max_abs_err(const float* got, const double* want, int64_t n, double* rel) {
  double e = 0, r = 0;
  for (int64_t i = 0; i < n; i++) {
    double d = fabs((double)got[i] - want[i]);
    if (!(d <= e)) e = d; /* NaN propagates */
    double q = d / fmax(fabs(want[i]), 1e-6);
    if (!(q <= r)) r = q;
  }
  if (rel) *rel = r;
  return e;
}

/* Checks got against want within tol (absolute); prints the errors. */
#define CHECK_CLOSE(what, got, want, n, tol)                                                          \
  do {                                                                                                \
    double rel_;                                                                                      \
    double err_ = max_abs_err((got), (want), (n), &rel_);                                             \
    CHECK_MSG(err_ <= (tol), "%s: max abs error %.3g, max rel %.3g (tolerance %.1g abs)", (what), err_, \
              rel_, (double)(tol));                                                                   \
  } while (0)

#endif
