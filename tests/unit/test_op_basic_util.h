/* Helpers of the basic-op tests: host tensors, Relax op calls with inferred struct info,
 * legalization of one call through a BlockBuilder and running the resulting PrimFunc in the
 * TIR interpreter, broadcasting index arithmetic for C oracles. */
#ifndef RLX_TEST_OP_BASIC_UTIL_H
#define RLX_TEST_OP_BASIC_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "relax/op.h"
#include "test.h"
#include "tir/interp.h"
#include "topi/basic.h"

/* ------------------------------------------------------------------ host tensors */
typedef struct {
  DLTensor t;
  int64_t shape[8];
  rlx_dtype_t dt;
  int64_t n;
  void* data;
} tens_t;

static inline void tens_init(tens_t* x, rlx_dtype_t dt, int ndim, const int64_t* shape) {
  memset(x, 0, sizeof(*x));
  x->dt = dt;
  x->n = 1;
  for (int i = 0; i < ndim; i++) {
    x->shape[i] = shape[i];
    x->n *= shape[i];
  }
  x->data = calloc((size_t)(x->n > 0 ? x->n : 1), (size_t)rlx_dtype_bytes(dt));
  x->t.data = x->data;
  x->t.device.device_type = kDLCPU;
  x->t.ndim = ndim;
  x->t.dtype.code = dt.code;
  x->t.dtype.bits = dt.bits;
  x->t.dtype.lanes = dt.lanes;
  x->t.shape = x->shape;
}
static inline void tens_free(tens_t* x) { free(x->data); }

static inline double tens_get(const tens_t* x, int64_t i) {
  rlx_dtype_t t = x->dt;
  if (t.code == RLX_DT_FLOAT) return t.bits == 32 ? ((float*)x->data)[i] : ((double*)x->data)[i];
  if (t.bits == 1 || (t.code == RLX_DT_UINT && t.bits == 8)) return ((uint8_t*)x->data)[i];
  if (t.bits == 32) return ((int32_t*)x->data)[i];
  return (double)((int64_t*)x->data)[i];
}
static inline void tens_set(tens_t* x, int64_t i, double v) {
  rlx_dtype_t t = x->dt;
  if (t.code == RLX_DT_FLOAT) {
    if (t.bits == 32)
      ((float*)x->data)[i] = (float)v;
    else
      ((double*)x->data)[i] = v;
  } else if (t.bits == 1 || (t.code == RLX_DT_UINT && t.bits == 8))
    ((uint8_t*)x->data)[i] = (uint8_t)(v != 0);
  else if (t.bits == 32)
    ((int32_t*)x->data)[i] = (int32_t)v;
  else
    ((int64_t*)x->data)[i] = (int64_t)v;
}

static uint32_t ob_rng_ = 2463534242u;
/* Uniform in [lo, hi). */
static inline double urand(double lo, double hi) {
  ob_rng_ ^= ob_rng_ << 13;
  ob_rng_ ^= ob_rng_ >> 17;
  ob_rng_ ^= ob_rng_ << 5;
  return lo + (hi - lo) * ((double)(ob_rng_ & 0xffffff) / 16777216.0);
}
/* Fills x with uniform values in [lo, hi) (ints: whole numbers). */
static inline void tens_rand(tens_t* x, double lo, double hi) {
  for (int64_t i = 0; i < x->n; i++) {
    double v = urand(lo, hi);
    tens_set(x, i, rlx_dtype_is_float(x->dt) ? v : floor(v));
  }
}

/* Flat index into a (right-aligned, broadcast) input of rank in_n and shape in_s for the
 * output flat index o of an output of rank out_n and shape out_s. */
static inline int64_t bcast_index(int out_n, const int64_t* out_s, int64_t o, int in_n, const int64_t* in_s) {
  int64_t idx[8];
  for (int d = out_n - 1; d >= 0; d--) {
    idx[d] = o % out_s[d];
    o /= out_s[d];
  }
  int64_t r = 0;
  for (int d = 0; d < in_n; d++) {
    int od = d + out_n - in_n;
    r = r * in_s[d] + (in_s[d] == 1 ? 0 : idx[od]);
  }
  return r;
}

/* ------------------------------------------------------------------ Relax side */
static inline rlx_relax_var_t* tvar(rlx_ctx_t* ctx, const char* name, int ndim, const int64_t* dims, rlx_dtype_t t) {
  return rlx_relax_var(ctx, name, rlx_sinfo_tensor_const(ctx, ndim, dims, t));
}
static inline rlx_relax_var_t* tvar_sym(rlx_ctx_t* ctx, const char* name, int ndim, rlx_expr_t* const* dims,
                                        rlx_dtype_t t) {
  return rlx_relax_var(ctx, name, rlx_sinfo_tensor(ctx, ndim, dims, t));
}
static inline rlx_expr_t* symv(rlx_ctx_t* ctx, const char* name) { return &rlx_ir_var(ctx, name, rlx_dt_int64())->hdr; }
static inline rlx_expr_t* c64(rlx_ctx_t* ctx, int64_t v) { return rlx_ir_i64(ctx, v); }

/* Builds op(args, attrs) and normalizes it; on success *out is the call. */
static inline rlx_status_t* op_call(rlx_ctx_t* ctx, const char* op, int n, rlx_relax_expr_t* const* args,
                                    rlx_attrs_t attrs, rlx_relax_call_t** out) {
  rlx_relax_expr_t* c = rlx_relax_op_call_named(ctx, op, n, args, attrs);
  *out = NULL;
  RLX_RETURN_IF_ERROR(rlx_relax_normalize(ctx, NULL, c));
  *out = (rlx_relax_call_t*)c;
  return NULL;
}

/* The inferred struct info of op(args, attrs) as text, or "error: <message>". */
static inline const char* op_sinfo(rlx_ctx_t* ctx, const char* op, int n, rlx_relax_expr_t* const* args,
                                   rlx_attrs_t attrs) {
  rlx_relax_call_t* c = NULL;
  rlx_status_t* st = op_call(ctx, op, n, args, attrs, &c);
  if (st) {
    const char* m = rlx_ctx_sprintf(ctx, "error: %s", rlx_status_message(st));
    rlx_status_free(st);
    return m;
  }
  return rlx_sinfo_str(ctx, c->hdr.sinfo);
}

/* Legalizes call in a fresh module; *out_expr gets the replacement, *out_mod the module. */
static inline rlx_status_t* op_legalize(rlx_ctx_t* ctx, rlx_relax_call_t* call, rlx_relax_expr_t** out_expr,
                                        rlx_module_t** out_mod) {
  const rlx_op_def_t* def = rlx_op_lookup(((rlx_relax_op_t*)call->op)->name);
  if (!def || !def->legalize) return rlx_status_create(RLX_NOT_FOUND, "no legalization");
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  RLX_RETURN_IF_ERROR(def->legalize(bb, call, out_expr));
  *out_mod = rlx_bb_get(bb);
  return NULL;
}

/* The PrimFunc called by a call_tir expression e of module m (NULL when e is not one). */
static inline rlx_tir_func_t* call_tir_func(rlx_module_t* m, rlx_relax_expr_t* e) {
  if (!e || e->kind != RLX_RELAX_CALL) return NULL;
  rlx_relax_call_t* c = (rlx_relax_call_t*)e;
  if (!rlx_relax_is_op(c->op, RLX_OP_CALL_TIR) || c->n_args < 2 || c->args[0]->kind != RLX_RELAX_GLOBAL_VAR)
    return NULL;
  rlx_module_entry_t* me = rlx_module_find(m, ((rlx_relax_global_var_t*)c->args[0])->name);
  return me && me->kind == RLX_FUNC_TIR ? me->func : NULL;
}

/* Legalizes op(args, attrs), checks the call_tir form and struct info agree with the
 * inference, and runs the PrimFunc on ins (one per tensor argument, in order) writing outs;
 * tir_vars (scalar params after the outputs) take the values tv[0..n_tv). *out_fname gets the
 * PrimFunc's module name (may be NULL). */
static inline rlx_status_t* op_run_tv(rlx_ctx_t* ctx, const char* op, int n, rlx_relax_expr_t* const* args,
                                      rlx_attrs_t attrs, int n_in, tens_t* ins, int n_out, tens_t* outs, int n_tv,
                                      const int64_t* tv, const char** out_fname) {
  rlx_relax_call_t* call = NULL;
  RLX_RETURN_IF_ERROR(op_call(ctx, op, n, args, attrs, &call));
  rlx_relax_expr_t* e = NULL;
  rlx_module_t* m = NULL;
  RLX_RETURN_IF_ERROR(op_legalize(ctx, call, &e, &m));
  rlx_tir_func_t* f = call_tir_func(m, e);
  if (!f) return rlx_status_create(RLX_INTERNAL, "legalized form is not R.call_tir");
  rlx_relax_call_t* ct = (rlx_relax_call_t*)e;
  int have_tv = ct->n_args == 3 ? ((rlx_relax_shape_expr_t*)ct->args[2])->ndim : 0;
  if (have_tv != n_tv) return rlx_status_create(RLX_INTERNAL, "%d tir_vars, expected %d", have_tv, n_tv);
  if (!rlx_sinfo_equal(ctx, e->sinfo, call->hdr.sinfo))
    return rlx_status_create(RLX_INTERNAL, "legalized struct info %s differs from inferred %s",
                             rlx_sinfo_str(ctx, e->sinfo), rlx_sinfo_str(ctx, call->hdr.sinfo));
  if (f->n_params != n_in + n_out + n_tv)
    return rlx_status_create(RLX_INTERNAL, "PrimFunc has %d params, expected %d", f->n_params, n_in + n_out + n_tv);
  DLTensor* dl[16];
  tens_t scalars[4];
  for (int i = 0; i < n_in; i++) dl[i] = &ins[i].t;
  for (int i = 0; i < n_out; i++) dl[n_in + i] = &outs[i].t;
  for (int i = 0; i < n_tv && i < 4; i++) {
    tens_init(&scalars[i], rlx_dt_int64(), 0, NULL);
    tens_set(&scalars[i], 0, (double)tv[i]);
    dl[n_in + n_out + i] = &scalars[i].t;
  }
  if (out_fname) *out_fname = ((rlx_relax_global_var_t*)ct->args[0])->name;
  rlx_status_t* st = rlx_tir_interpret(f, dl, n_in + n_out + n_tv);
  for (int i = 0; i < n_tv && i < 4; i++) tens_free(&scalars[i]);
  return st;
}

/* op_run_tv without tir_vars. */
static inline rlx_status_t* op_run(rlx_ctx_t* ctx, const char* op, int n, rlx_relax_expr_t* const* args,
                                   rlx_attrs_t attrs, int n_in, tens_t* ins, int n_out, tens_t* outs,
                                   const char** out_fname) {
  return op_run_tv(ctx, op, n, args, attrs, n_in, ins, n_out, outs, 0, NULL, out_fname);
}

/* Max abs error of out against the oracle values ref (n values), relative-tolerance check:
 * |got - ref| <= atol + rtol * |ref|; NaNs must match. */
static inline bool tens_close(const tens_t* out, const double* ref, double atol, double rtol, double* out_maxerr) {
  double maxerr = 0;
  bool ok = true;
  for (int64_t i = 0; i < out->n; i++) {
    double g = tens_get(out, i), r = ref[i];
    if (isnan(r) || isnan(g)) {
      ok = ok && isnan(r) && isnan(g);
      continue;
    }
    double e = fabs(g - r);
    if (e > maxerr) maxerr = e;
    if (e > atol + rtol * fabs(r)) ok = false;
  }
  if (out_maxerr) *out_maxerr = maxerr;
  return ok;
}

static inline rlx_attrs_t attrs0(void) {
  rlx_attrs_t a = {0, NULL};
  return a;
}
static inline rlx_attrs_t attr1(rlx_ctx_t* ctx, rlx_attrs_t a, const char* k, rlx_attr_t v) {
  return rlx_attrs_set(ctx, a, k, v);
}
static inline rlx_attr_t ints_attr(rlx_ctx_t* ctx, int n, const int64_t* v) {
  int64_t* c = RLX_NEW_ARRAY(ctx, int64_t, n);
  for (int i = 0; i < n; i++) c[i] = v[i];
  return rlx_attr_ints(n, c);
}

#endif
