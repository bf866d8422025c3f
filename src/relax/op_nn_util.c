/* Helpers shared by the Relax nn op files (op_nn.c, op_nn_conv.c): see op_nn_internal.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "op_nn_internal.h"

RLX_MUST_USE rlx_status_t* onn_fail(const char* op, const char* fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: %s", op, msg);
}

const char* onn_op_name(const rlx_relax_call_t* c) { return ((const rlx_relax_op_t*)c->op)->name; }

/* "(n, 3, 224, 224)" / "(ndim=4)" / "(?)" for messages. */
const char* onn_shape_str(rlx_ctx_t* ctx, const rlx_sinfo_tensor_t* t) {
  if (!t->shape) return t->ndim < 0 ? "(?)" : rlx_ctx_sprintf(ctx, "(ndim=%d)", t->ndim);
  rlx_strbuf_t sb = {0};
  rlx_strbuf_append(&sb, "(");
  for (int d = 0; d < t->ndim; d++) {
    if (d) rlx_strbuf_append(&sb, ", ");
    rlx_relax_prim_print(t->shape[d], &sb);
  }
  rlx_strbuf_append(&sb, t->ndim == 1 ? ",)" : ")");
  const char* s = rlx_ctx_strdup(ctx, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return s;
}

const char* onn_dim_str(rlx_ctx_t* ctx, rlx_expr_t* e) {
  rlx_strbuf_t sb = {0};
  rlx_relax_prim_print(e, &sb);
  const char* s = rlx_ctx_strdup(ctx, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return s;
}

const char* onn_dt_str(rlx_ctx_t* ctx, rlx_dtype_t t) {
  char buf[32];
  return rlx_ctx_strdup(ctx, rlx_dtype_str(t, buf));
}

RLX_MUST_USE rlx_status_t* onn_check_arity(const rlx_relax_call_t* c, int lo, int hi) {
  if (c->n_args < lo || c->n_args > hi) {
    if (lo == hi) return onn_fail(onn_op_name(c), "expects %d arguments, got %d", lo, c->n_args);
    return onn_fail(onn_op_name(c), "expects %d to %d arguments, got %d", lo, hi, c->n_args);
  }
  return NULL;
}

/* Argument i as Tensor struct info. */
RLX_MUST_USE rlx_status_t* onn_tensor_arg(rlx_ctx_t* ctx, const rlx_relax_call_t* c, int i, rlx_sinfo_tensor_t** out) {
  rlx_relax_expr_t* a = c->args[i];
  if (!a || !a->sinfo || a->sinfo->kind != RLX_SINFO_TENSOR)
    return onn_fail(onn_op_name(c), "argument %d must be a Tensor, got %s", i,
                    a ? rlx_sinfo_str(ctx, a->sinfo) : "NULL");
  *out = (rlx_sinfo_tensor_t*)a->sinfo;
  return NULL;
}

bool onn_provably_ne(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) {
  int64_t x, y;
  if (rlx_expr_is_const_int(a, &x) && rlx_expr_is_const_int(b, &y)) return x != y;
  rlx_analyzer_t* an = rlx_analyzer_create(ctx);
  return rlx_analyzer_can_prove(an, rlx_ir_cmp(ctx, RLX_EXPR_NE, a, b));
}

bool onn_is_one(const rlx_expr_t* e) {
  int64_t v;
  return rlx_expr_is_const_int(e, &v) && v == 1;
}

/* Common dtype of two operands (void when unknown); error when both known and different. */
RLX_MUST_USE rlx_status_t* onn_same_dtype(rlx_ctx_t* ctx, const char* op, rlx_dtype_t a, rlx_dtype_t b, rlx_dtype_t* out) {
  if (!rlx_dtype_is_void(a) && !rlx_dtype_is_void(b) && !rlx_dtype_eq(a, b))
    return onn_fail(op, "dtypes differ: %s vs %s", onn_dt_str(ctx, a), onn_dt_str(ctx, b));
  *out = rlx_dtype_is_void(a) ? b : a;
  return NULL;
}

/* ---- attrs (absent = default) */
int64_t onn_attr_int(const rlx_relax_call_t* c, const char* key, int64_t def) {
  const rlx_attr_t* a = rlx_attrs_get(&c->attrs, key);
  if (a && a->kind == RLX_ATTR_INT) return a->u.i;
  if (a && a->kind == RLX_ATTR_EXPR) rlx_expr_is_const_int(a->u.expr, &def);
  return def;
}

double onn_attr_float(const rlx_relax_call_t* c, const char* key, double def) {
  const rlx_attr_t* a = rlx_attrs_get(&c->attrs, key);
  if (a && a->kind == RLX_ATTR_FLOAT) return a->u.f;
  if (a && a->kind == RLX_ATTR_INT) return (double)a->u.i;
  return def;
}

bool onn_attr_bool(const rlx_relax_call_t* c, const char* key, bool def) {
  const rlx_attr_t* a = rlx_attrs_get(&c->attrs, key);
  if (a && a->kind == RLX_ATTR_BOOL) return a->u.b;
  if (a && a->kind == RLX_ATTR_INT) return a->u.i != 0;
  return def;
}

const char* onn_attr_str(const rlx_relax_call_t* c, const char* key, const char* def) {
  const rlx_attr_t* a = rlx_attrs_get(&c->attrs, key);
  return a && a->kind == RLX_ATTR_STR && a->u.s ? a->u.s : def;
}

/* out_dtype: a dtype, or a string ("" / "void" = void). */
RLX_MUST_USE rlx_status_t* onn_attr_out_dtype(const rlx_relax_call_t* c, rlx_dtype_t* out) {
  *out = rlx_dt_void();
  const rlx_attr_t* a = rlx_attrs_get(&c->attrs, "out_dtype");
  if (!a) return NULL;
  if (a->kind == RLX_ATTR_DTYPE) *out = a->u.dtype;
  else if (a->kind == RLX_ATTR_STR) {
    if (a->u.s && a->u.s[0] && !rlx_dtype_parse(a->u.s, out))
      return onn_fail(onn_op_name(c), "unknown out_dtype \"%s\"", a->u.s);
  } else return onn_fail(onn_op_name(c), "out_dtype must be a dtype");
  return NULL;
}

RLX_MUST_USE rlx_status_t* onn_attr_ints(const rlx_relax_call_t* c, const char* key, int want, int64_t def, int64_t* out) {
  for (int i = 0; i < want; i++) out[i] = def;
  const rlx_attr_t* a = rlx_attrs_get(&c->attrs, key);
  if (!a) return NULL;
  if (a->kind == RLX_ATTR_INT) {
    for (int i = 0; i < want; i++) out[i] = a->u.i;
    return NULL;
  }
  if (a->kind != RLX_ATTR_INTS) return onn_fail(onn_op_name(c), "%s must be a list of ints", key);
  int n = a->u.ints.n;
  if (n == 1)
    for (int i = 0; i < want; i++) out[i] = a->u.ints.v[0];
  else if (n == want)
    for (int i = 0; i < want; i++) out[i] = a->u.ints.v[i];
  else if (want % 2 == 0 && n == want / 2)
    for (int i = 0; i < want; i++) out[i] = a->u.ints.v[i % n];
  else if (want % 2 == 0 && want > 2)
    return onn_fail(onn_op_name(c), "%s takes 1, %d or %d values, got %d", key, want / 2, want, n);
  else return onn_fail(onn_op_name(c), "%s takes 1 or %d values, got %d", key, want, n);
  return NULL;
}

rlx_sinfo_t* onn_tensor_like(rlx_ctx_t* ctx, int ndim, rlx_expr_t** shape, rlx_dtype_t dt) {
  return rlx_sinfo_tensor(ctx, ndim, shape, dt);
}

static RLX_MUST_USE rlx_status_t* te_trampoline(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                                rlx_te_tensor_t** out) {
  onn_te_user_t* u = user;
  return rlx_status_annotate(u->fn(ctx, in, n, u->call, out), "%s", onn_op_name(u->call));
}

static bool known_tensor(const rlx_relax_expr_t* e) {
  if (!e || !e->sinfo || e->sinfo->kind != RLX_SINFO_TENSOR) return false;
  const rlx_sinfo_tensor_t* t = (const rlx_sinfo_tensor_t*)e->sinfo;
  return t->shape && !rlx_dtype_is_void(t->dtype);
}

/* R.call_tir of the TE function fn over args; the call itself when an operand's shape or
 * dtype is unknown (as TVM, which leaves such calls alone). */
RLX_MUST_USE rlx_status_t* onn_legalize_te(rlx_bb_t* bb, const rlx_relax_call_t* c, onn_te_fn_t fn, int n_args,
                                           rlx_relax_expr_t* const* args, const char* name, rlx_relax_expr_t** out) {
  for (int i = 0; i < n_args; i++)
    if (!known_tensor(args[i])) {
      *out = (rlx_relax_expr_t*)&c->hdr;
      return NULL;
    }
  onn_te_user_t u = {c, fn};
  return rlx_bb_call_te(bb, te_trampoline, &u, n_args, args, name, out);
}
