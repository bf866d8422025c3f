/* Helpers for the Relax pass tests: a tiny evaluator for Relax functions made of call_tir,
 * constants, vars and match_cast (each PrimFunc runs in the TIR reference interpreter), TE
 * functions for emit_te (bias add, exp, row sum, transpose), and float comparison. */
#ifndef RLX_PASS_TEST_UTIL_H
#define RLX_PASS_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relax/relax.h"
#include "relax_test_util.h"
#include "tir/interp.h"
#include "transform/pass.h"
#include "transform/tir/transform.h"

/* fuse_ops then fuse_tir (TVM's FuseOps + FuseTIR): each group one fused PrimFunc. */
static inline RLX_MUST_USE rlx_status_t* pass_fuse(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out) {
  rlx_module_t* grouped = NULL;
  RLX_RETURN_IF_ERROR(rlx_pass_fuse_ops(ctx, in, &grouped));
  return rlx_pass_fuse_tir(ctx, grouped, out);
}

/* ---------------------------------------------------------------- host tensors */
typedef struct {
  DLTensor dl;
  int64_t shape[8];
} ht_t;

static inline ht_t* ht_new(rlx_ctx_t* ctx, rlx_dtype_t dt, int ndim, const int64_t* shape) {
  ht_t* t = RLX_NEW(ctx, ht_t);
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) {
    t->shape[i] = shape[i];
    n *= shape[i];
  }
  t->dl.data = rlx_ctx_alloc(ctx, (size_t)(n ? n : 1) * (size_t)rlx_dtype_bytes(dt));
  t->dl.device.device_type = kDLCPU;
  t->dl.ndim = ndim;
  t->dl.dtype.code = dt.code;
  t->dl.dtype.bits = dt.bits;
  t->dl.dtype.lanes = dt.lanes;
  t->dl.shape = t->shape;
  return t;
}

static inline int64_t ht_numel(const ht_t* t) {
  int64_t n = 1;
  for (int i = 0; i < t->dl.ndim; i++) n *= t->shape[i];
  return n;
}

static inline float* ht_f32(ht_t* t) { return (float*)t->dl.data; }

/* Deterministic pseudo-random floats in [-1, 1). */
static inline void ht_fill(ht_t* t, unsigned seed) {
  float* p = ht_f32(t);
  unsigned s = seed * 2654435761u + 1;
  for (int64_t i = 0; i < ht_numel(t); i++) {
    s = s * 1103515245u + 12345u;
    p[i] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
  }
}

static inline double ht_max_abs_diff(ht_t* a, const float* b) {
  double m = 0;
  for (int64_t i = 0; i < ht_numel(a); i++) m = fmax(m, fabs((double)ht_f32(a)[i] - (double)b[i]));
  return m;
}

/* ---------------------------------------------------------------- evaluator */
typedef struct {
  rlx_ctx_t* ctx;
  rlx_module_t* m;
  rlx_ptrmap_t vals; /* Relax var → ht_t* */
  rlx_int_env_t env; /* symbolic shape vars */
  char err[512];
} ev_t;

static inline bool ev_bind_shape(ev_t* ev, const rlx_sinfo_t* s, const ht_t* t) {
  if (!s || s->kind != RLX_SINFO_TENSOR) return true;
  const rlx_sinfo_tensor_t* ts = (const rlx_sinfo_tensor_t*)s;
  if (!ts->shape) return true;
  if (ts->ndim != t->dl.ndim) return false;
  for (int d = 0; d < ts->ndim; d++) {
    int64_t have = 0;
    if (ts->shape[d]->kind == RLX_EXPR_VAR && !rlx_int_env_get(&ev->env, (rlx_var_t*)ts->shape[d], &have))
      rlx_int_env_set(&ev->env, (rlx_var_t*)ts->shape[d], t->shape[d]);
    else if (rlx_ir_eval_int(ts->shape[d], &ev->env, &have) || have != t->shape[d])
      return false;
  }
  return true;
}

static inline ht_t* ev_value(ev_t* ev, rlx_relax_expr_t* e) {
  if (rlx_relax_is_var(e)) return rlx_ptrmap_get(&ev->vals, e);
  if (e->kind == RLX_RELAX_CONSTANT) {
    rlx_relax_constant_t* c = (rlx_relax_constant_t*)e;
    ht_t* t = ht_new(ev->ctx, c->dtype, c->ndim, c->shape);
    memcpy(t->dl.data, c->data, c->nbytes);
    return t;
  }
  return NULL;
}

static inline ht_t* ev_call_tir(ev_t* ev, rlx_relax_call_t* c) {
  rlx_module_entry_t* e = rlx_module_find(ev->m, ((rlx_relax_global_var_t*)c->args[0])->name);
  if (!e || e->kind != RLX_FUNC_TIR) return snprintf(ev->err, sizeof ev->err, "no PrimFunc"), NULL;
  rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)c->args[1];
  rlx_sinfo_tensor_t* os = (rlx_sinfo_tensor_t*)c->sinfo_args[0];
  int64_t shape[8];
  for (int d = 0; d < os->ndim; d++)
    if (rlx_ir_eval_int(os->shape[d], &ev->env, &shape[d])) return snprintf(ev->err, sizeof ev->err, "shape"), NULL;
  ht_t* out = ht_new(ev->ctx, os->dtype, os->ndim, shape);
  int n_tv = c->n_args == 3 ? ((rlx_relax_shape_expr_t*)c->args[2])->ndim : 0;
  int n = t->n_fields + 1 + n_tv;
  DLTensor** args = RLX_NEW_ARRAY(ev->ctx, DLTensor*, n);
  for (int i = 0; i < t->n_fields; i++) {
    ht_t* a = ev_value(ev, t->fields[i]);
    if (!a) return snprintf(ev->err, sizeof ev->err, "arg %d", i), NULL;
    args[i] = &a->dl;
  }
  args[t->n_fields] = &out->dl;
  for (int i = 0; i < n_tv; i++) {
    ht_t* s = ht_new(ev->ctx, rlx_dt_int64(), 0, NULL);
    if (rlx_ir_eval_int(((rlx_relax_shape_expr_t*)c->args[2])->values[i], &ev->env, (int64_t*)s->dl.data)) return NULL;
    args[t->n_fields + 1 + i] = &s->dl;
  }
  rlx_status_t* st = rlx_tir_interpret(e->func, args, n);
  if (st) {
    snprintf(ev->err, sizeof ev->err, "%s: %s", e->name, rlx_status_message(st));
    rlx_status_free(st);
    return NULL;
  }
  return out;
}

/* Runs Relax function fname of m on inputs; NULL on failure (message in stderr). */
static inline ht_t* relax_eval(rlx_ctx_t* ctx, rlx_module_t* m, const char* fname, ht_t* const* inputs) {
  ev_t ev;
  memset(&ev, 0, sizeof(ev));
  ev.ctx = ctx;
  ev.m = m;
  rlx_module_entry_t* fe = rlx_module_find(m, fname);
  ht_t* result = NULL;
  if (!fe || fe->kind != RLX_FUNC_RELAX) goto done;
  rlx_relax_func_t* f = fe->func;
  for (int i = 0; i < f->n_params; i++) {
    if (!ev_bind_shape(&ev, f->params[i]->hdr.sinfo, inputs[i])) {
      snprintf(ev.err, sizeof ev.err, "param %d shape", i);
      goto done;
    }
    rlx_ptrmap_put(&ev.vals, f->params[i], inputs[i]);
  }
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
  for (int b = 0; b < seq->n_blocks; b++)
    for (int k = 0; k < seq->blocks[b]->n_bindings; k++) {
      rlx_relax_binding_t* bd = seq->blocks[b]->bindings[k];
      ht_t* v = NULL;
      if (bd->value->kind == RLX_RELAX_CALL && rlx_relax_is_op(((rlx_relax_call_t*)bd->value)->op, RLX_OP_CALL_TIR))
        v = ev_call_tir(&ev, (rlx_relax_call_t*)bd->value);
      else
        v = ev_value(&ev, bd->value);
      if (!v) {
        fprintf(stderr, "relax_eval: binding %s: %s\n", bd->var->name, ev.err);
        goto done;
      }
      if (bd->kind == RLX_BINDING_MATCH_CAST && !ev_bind_shape(&ev, bd->sinfo, v)) goto done;
      rlx_ptrmap_put(&ev.vals, bd->var, v);
    }
  result = ev_value(&ev, seq->body);
done:
  if (!result && ev.err[0]) fprintf(stderr, "relax_eval: %s\n", ev.err);
  rlx_ptrmap_free(&ev.vals);
  rlx_int_env_free(&ev.env);
  return result;
}

/* ---------------------------------------------------------------- TE functions */
static inline rlx_expr_t* bias_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rlx_te_tensor_t** in = user;
  rlx_expr_t* ia[2] = {&idx[0]->hdr, &idx[1]->hdr};
  rlx_expr_t* ib[1] = {&idx[1]->hdr};
  return rlx_ir_add(ctx, rlx_te_load(ctx, in[0], 2, ia), rlx_te_load(ctx, in[1], 1, ib));
}
/* te_bias_add(A (n, m), B (m,)): A[i, j] + B[j] (broadcast). */
static inline rlx_status_t* te_bias_add(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                        rlx_te_tensor_t** out) {
  (void)user;
  if (n != 2) return NULL;
  rlx_te_tensor_t** u = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, 2);
  u[0] = in[0];
  u[1] = in[1];
  return *out = rlx_te_compute(ctx, 2, in[0]->buffer->shape, bias_body, u, "add", "broadcast"), NULL;
}

static inline rlx_expr_t* exp_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rlx_te_tensor_t* a = user;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, a->buffer->ndim);
  for (int i = 0; i < a->buffer->ndim; i++) ix[i] = &idx[i]->hdr;
  rlx_expr_t* l = rlx_te_load(ctx, a, a->buffer->ndim, ix);
  return rlx_ir_call(ctx, l->dtype, "exp", 1, &l);
}
static inline rlx_status_t* te_exp(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                   rlx_te_tensor_t** out) {
  (void)user;
  *out = n == 1 ? rlx_te_compute(ctx, in[0]->buffer->ndim, in[0]->buffer->shape, exp_body, in[0], "exp", "elemwise")
                : NULL;
  return NULL;
}

typedef struct {
  rlx_te_tensor_t* a;
  rlx_iter_var_t* k;
} rowsum_user_t;
static inline rlx_expr_t* rowsum_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rowsum_user_t* u = user;
  rlx_expr_t* ia[2] = {&idx[0]->hdr, &u->k->var->hdr};
  return rlx_te_sum(ctx, rlx_te_load(ctx, u->a, 2, ia), 1, &u->k);
}
/* te_rowsum(A (n, m)) = sum_j A[i, j], shape (n,). */
static inline rlx_status_t* te_rowsum(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                      rlx_te_tensor_t** out) {
  (void)user;
  if (n != 1) return NULL;
  rowsum_user_t* u = RLX_NEW(ctx, rowsum_user_t);
  u->a = in[0];
  u->k = rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), in[0]->buffer->shape[1], "k");
  return *out = rlx_te_compute(ctx, 1, in[0]->buffer->shape, rowsum_body, u, "sum", ""), NULL;
}

static inline rlx_expr_t* transpose_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rlx_expr_t* ia[2] = {&idx[1]->hdr, &idx[0]->hdr};
  return rlx_te_load(ctx, (rlx_te_tensor_t*)user, 2, ia);
}
/* te_transpose(A (n, m)) = A^T. */
static inline rlx_status_t* te_transpose(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                         rlx_te_tensor_t** out) {
  (void)user;
  if (n != 1) return NULL;
  rlx_expr_t* shape[2] = {in[0]->buffer->shape[1], in[0]->buffer->shape[0]};
  return *out = rlx_te_compute(ctx, 2, shape, transpose_body, in[0], "transpose", "injective"), NULL;
}

/* ---------------------------------------------------------------- IR helpers */
static inline rlx_relax_func_t* main_of(rlx_module_t* m) {
  rlx_module_entry_t* e = rlx_module_find(m, "main");
  return e && e->kind == RLX_FUNC_RELAX ? e->func : NULL;
}

static inline int count_tir_funcs(rlx_module_t* m) {
  int n = 0;
  for (int i = 0; i < m->n_funcs; i++) n += m->funcs[i].kind == RLX_FUNC_TIR;
  return n;
}

/* The call_tir bindings of main's first block: their callee names, in order. */
static inline int call_tir_names(rlx_module_t* m, const char** out, int max) {
  rlx_relax_func_t* f = main_of(m);
  if (!f) return -1;
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
  int n = 0;
  for (int b = 0; b < seq->n_blocks; b++)
    for (int k = 0; k < seq->blocks[b]->n_bindings; k++) {
      rlx_relax_expr_t* v = seq->blocks[b]->bindings[k]->value;
      if (v->kind == RLX_RELAX_CALL && rlx_relax_is_op(((rlx_relax_call_t*)v)->op, RLX_OP_CALL_TIR) && n < max)
        out[n++] = ((rlx_relax_global_var_t*)((rlx_relax_call_t*)v)->args[0])->name;
    }
  return n;
}

#endif
