/* Relax ops, family "nn" (see op.h): matmul, linear, softmax, log_softmax, layer_norm,
 * rms_norm, group_norm, batch_norm, dropout, conv2d, max_pool2d, avg_pool2d,
 * adaptive_avg_pool2d.
 *
 * Each op has TVM's name, positional args and attrs (read by key; an absent attr takes
 * TVM's default):
 *   relax.matmul(x1, x2)                         out_dtype (dtype, void = inputs')
 *   relax.linear(x, w[, b])  = x @ wᵀ + b         out_dtype
 *   relax.nn.softmax(x), relax.nn.log_softmax(x) axis (int, -1)
 *   relax.nn.layer_norm(x, gamma, beta)          axes (ints), epsilon (1e-5), center (T), scale (T)
 *   relax.nn.rms_norm(x, weight)                 axes (ints, [-1]), epsilon (1e-5)
 *   relax.nn.group_norm(x, gamma, beta)          num_groups, channel_axis, axes, epsilon (1e-5),
 *                                                center (T), scale (T)
 *   relax.nn.dropout(x)                          rate (0.5) → R.Tuple(out, mask); inference:
 *                                                out = x, mask = ones
 *   relax.nn.batch_norm(x, gamma, beta, mean, var) axis (1), epsilon (1e-5), center, scale,
 *                                                momentum (0.1, unused in inference)
 *                                                → R.Tuple(out, mean, var)
 *   relax.nn.conv2d(data, weight)                strides (1,1), padding (0,0), dilation (1,1),
 *                                                groups (1), data_layout "NCHW", kernel_layout
 *                                                "OIHW", out_layout (= data_layout), out_dtype
 *   relax.nn.max_pool2d / avg_pool2d(data)       pool_size, strides, dilation, padding,
 *                                                ceil_mode (F), count_include_pad (F), layout
 *                                                "NCHW", out_layout
 *   relax.nn.adaptive_avg_pool2d(data)           output_size (ints; absent = input's), layout,
 *                                                out_layout
 * Ints lists: strides / dilation / pool_size / output_size take 1 or 2 values, padding 1, 2
 * ([h, w]) or 4 ([top, left, bottom, right]) values. Only NCHW / OIHW layouts are supported.
 *
 * Inference follows TVM: symbolic dims pass through (batch n through conv, pool, matmul);
 * shapes that are provably wrong are errors naming the op and the shapes; a batch broadcast
 * of two symbolic dims that cannot be proved equal gives a result of known rank and unknown
 * shape. Legalization makes one TE PrimFunc per call through topi (src/topi/nn.h) with
 * rlx_bb_call_te; a call whose operands lack a known shape or dtype is left as it is.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../topi/nn.h"
#include "op.h"

/* ---------------------------------------------------------------- helpers */
static rlx_status_t* fail(const char* op, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static rlx_status_t* fail(const char* op, const char* fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: %s", op, msg);
}

static const char* op_name(const rlx_relax_call_t* c) { return ((const rlx_relax_op_t*)c->op)->name; }

/* "(n, 3, 224, 224)" / "(ndim=4)" / "(?)" for messages. */
static const char* shape_str(rlx_ctx_t* ctx, const rlx_sinfo_tensor_t* t) {
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

static const char* dim_str(rlx_ctx_t* ctx, rlx_expr_t* e) {
  rlx_strbuf_t sb = {0};
  rlx_relax_prim_print(e, &sb);
  const char* s = rlx_ctx_strdup(ctx, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return s;
}

static const char* dt_str(rlx_ctx_t* ctx, rlx_dtype_t t) {
  char buf[32];
  return rlx_ctx_strdup(ctx, rlx_dtype_str(t, buf));
}

static rlx_status_t* check_arity(const rlx_relax_call_t* c, int lo, int hi) {
  if (c->n_args < lo || c->n_args > hi) {
    if (lo == hi) return fail(op_name(c), "expects %d arguments, got %d", lo, c->n_args);
    return fail(op_name(c), "expects %d to %d arguments, got %d", lo, hi, c->n_args);
  }
  return NULL;
}

/* Argument i as Tensor struct info. */
static rlx_status_t* tensor_arg(rlx_ctx_t* ctx, const rlx_relax_call_t* c, int i, rlx_sinfo_tensor_t** out) {
  rlx_relax_expr_t* a = c->args[i];
  if (!a || !a->sinfo || a->sinfo->kind != RLX_SINFO_TENSOR)
    return fail(op_name(c), "argument %d must be a Tensor, got %s", i, a ? rlx_sinfo_str(ctx, a->sinfo) : "NULL");
  *out = (rlx_sinfo_tensor_t*)a->sinfo;
  return NULL;
}

static bool provably_ne(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) {
  int64_t x, y;
  if (rlx_expr_is_const_int(a, &x) && rlx_expr_is_const_int(b, &y)) return x != y;
  rlx_analyzer_t* an = rlx_analyzer_create(ctx);
  return rlx_analyzer_can_prove(an, rlx_ir_cmp(ctx, RLX_EXPR_NE, a, b));
}

static bool is_one(const rlx_expr_t* e) {
  int64_t v;
  return rlx_expr_is_const_int(e, &v) && v == 1;
}

/* Common dtype of two operands (void when unknown); error when both known and different. */
static rlx_status_t* same_dtype(rlx_ctx_t* ctx, const char* op, rlx_dtype_t a, rlx_dtype_t b, rlx_dtype_t* out) {
  if (!rlx_dtype_is_void(a) && !rlx_dtype_is_void(b) && !rlx_dtype_eq(a, b))
    return fail(op, "dtypes differ: %s vs %s", dt_str(ctx, a), dt_str(ctx, b));
  *out = rlx_dtype_is_void(a) ? b : a;
  return NULL;
}

/* ---- attrs (absent = default) */
static int64_t attr_int(const rlx_relax_call_t* c, const char* key, int64_t def) {
  const rlx_attr_t* a = rlx_attrs_get(&c->attrs, key);
  if (a && a->kind == RLX_ATTR_INT) return a->u.i;
  if (a && a->kind == RLX_ATTR_EXPR) rlx_expr_is_const_int(a->u.expr, &def);
  return def;
}

static double attr_float(const rlx_relax_call_t* c, const char* key, double def) {
  const rlx_attr_t* a = rlx_attrs_get(&c->attrs, key);
  if (a && a->kind == RLX_ATTR_FLOAT) return a->u.f;
  if (a && a->kind == RLX_ATTR_INT) return (double)a->u.i;
  return def;
}

static bool attr_bool(const rlx_relax_call_t* c, const char* key, bool def) {
  const rlx_attr_t* a = rlx_attrs_get(&c->attrs, key);
  if (a && a->kind == RLX_ATTR_BOOL) return a->u.b;
  if (a && a->kind == RLX_ATTR_INT) return a->u.i != 0;
  return def;
}

static const char* attr_str(const rlx_relax_call_t* c, const char* key, const char* def) {
  const rlx_attr_t* a = rlx_attrs_get(&c->attrs, key);
  return a && a->kind == RLX_ATTR_STR && a->u.s ? a->u.s : def;
}

/* out_dtype: a dtype, or a string ("" / "void" = void). */
static rlx_status_t* attr_out_dtype(const rlx_relax_call_t* c, rlx_dtype_t* out) {
  *out = rlx_dt_void();
  const rlx_attr_t* a = rlx_attrs_get(&c->attrs, "out_dtype");
  if (!a) return NULL;
  if (a->kind == RLX_ATTR_DTYPE) *out = a->u.dtype;
  else if (a->kind == RLX_ATTR_STR) {
    if (a->u.s && a->u.s[0] && !rlx_dtype_parse(a->u.s, out))
      return fail(op_name(c), "unknown out_dtype \"%s\"", a->u.s);
  } else return fail(op_name(c), "out_dtype must be a dtype");
  return NULL;
}

/* An ints attr expanded to want values: 1 value → all; for want 4 (padding), 2 values
 * [h, w] → [h, w, h, w]. */
static rlx_status_t* attr_ints(const rlx_relax_call_t* c, const char* key, int want, int64_t def, int64_t* out) {
  for (int i = 0; i < want; i++) out[i] = def;
  const rlx_attr_t* a = rlx_attrs_get(&c->attrs, key);
  if (!a) return NULL;
  if (a->kind == RLX_ATTR_INT) {
    for (int i = 0; i < want; i++) out[i] = a->u.i;
    return NULL;
  }
  if (a->kind != RLX_ATTR_INTS) return fail(op_name(c), "%s must be a list of ints", key);
  int n = a->u.ints.n;
  if (n == 1)
    for (int i = 0; i < want; i++) out[i] = a->u.ints.v[0];
  else if (n == want)
    for (int i = 0; i < want; i++) out[i] = a->u.ints.v[i];
  else if (want == 4 && n == 2)
    for (int i = 0; i < 4; i++) out[i] = a->u.ints.v[i % 2];
  else return fail(op_name(c), "%s takes 1%s or %d values, got %d", key, want == 4 ? ", 2" : "", want, n);
  return NULL;
}

static rlx_sinfo_t* tensor_like(rlx_ctx_t* ctx, int ndim, rlx_expr_t** shape, rlx_dtype_t dt) {
  return rlx_sinfo_tensor(ctx, ndim, shape, dt);
}

/* ---- legalization through TE */
typedef rlx_te_tensor_t* (*nn_te_fn_t)(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, const rlx_relax_call_t* c,
                                       rlx_status_t** st);
typedef struct {
  const rlx_relax_call_t* call;
  nn_te_fn_t fn;
  rlx_status_t* st;
} te_user_t;

static rlx_te_tensor_t* te_trampoline(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user) {
  te_user_t* u = user;
  return u->fn(ctx, in, n, u->call, &u->st);
}

static bool known_tensor(const rlx_relax_expr_t* e) {
  if (!e || !e->sinfo || e->sinfo->kind != RLX_SINFO_TENSOR) return false;
  const rlx_sinfo_tensor_t* t = (const rlx_sinfo_tensor_t*)e->sinfo;
  return t->shape && !rlx_dtype_is_void(t->dtype);
}

/* R.call_tir of the TE function fn over args; the call itself when an operand's shape or
 * dtype is unknown (as TVM, which leaves such calls alone). */
static rlx_status_t* legalize_te(rlx_bb_t* bb, const rlx_relax_call_t* c, nn_te_fn_t fn, int n_args,
                                 rlx_relax_expr_t* const* args, const char* name, rlx_relax_expr_t** out) {
  for (int i = 0; i < n_args; i++)
    if (!known_tensor(args[i])) {
      *out = (rlx_relax_expr_t*)&c->hdr;
      return NULL;
    }
  te_user_t u = {c, fn, NULL};
  rlx_status_t* st = rlx_bb_call_te(bb, te_trampoline, &u, n_args, args, name, out);
  if (u.st) {
    rlx_status_free(st);
    return rlx_status_annotate(u.st, "%s", op_name(c));
  }
  return st;
}

/* ---------------------------------------------------------------- matmul */
/* numpy matmul struct info: see rlx_topi_matmul for the rules. */
static rlx_status_t* infer_matmul_shapes(rlx_ctx_t* ctx, const char* op, rlx_sinfo_tensor_t* a, rlx_sinfo_tensor_t* b,
                                         rlx_dtype_t dt, rlx_sinfo_t** out) {
  if (a->ndim < 0 || b->ndim < 0) return *out = rlx_sinfo_tensor(ctx, -1, NULL, dt), NULL;
  if (a->ndim == 0 || b->ndim == 0)
    return fail(op, "operands must have rank >= 1, got shapes %s and %s", shape_str(ctx, a), shape_str(ctx, b));
  bool av = a->ndim == 1, bv = b->ndim == 1;
  int ab = av ? 0 : a->ndim - 2, bb = bv ? 0 : b->ndim - 2;
  int nb = ab > bb ? ab : bb;
  int nd = nb + (av ? 0 : 1) + (bv ? 0 : 1);
  if (!a->shape || !b->shape) return *out = rlx_sinfo_tensor(ctx, nd, NULL, dt), NULL;
  rlx_expr_t* ka = a->shape[a->ndim - 1];
  rlx_expr_t* kb = bv ? b->shape[0] : b->shape[b->ndim - 2];
  if (provably_ne(ctx, ka, kb))
    return fail(op, "contraction dims differ: %s vs %s (shapes %s and %s)", dim_str(ctx, ka), dim_str(ctx, kb),
                shape_str(ctx, a), shape_str(ctx, b));
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, nd);
  bool unknown = false;
  for (int d = 0; d < nb; d++) {
    int da = d - (nb - ab), db = d - (nb - bb);
    rlx_expr_t* x = da >= 0 ? a->shape[da] : NULL;
    rlx_expr_t* y = db >= 0 ? b->shape[db] : NULL;
    if (!x || !y || is_one(y)) shape[d] = x ? x : y;
    else if (is_one(x)) shape[d] = y;
    else if (rlx_ir_prove_equal(ctx, x, y)) shape[d] = x;
    else if (provably_ne(ctx, x, y))
      return fail(op, "batch dims cannot broadcast: %s vs %s (shapes %s and %s)", dim_str(ctx, x), dim_str(ctx, y),
                  shape_str(ctx, a), shape_str(ctx, b));
    else unknown = true;
  }
  int o = nb;
  if (!av) shape[o++] = a->shape[a->ndim - 2];
  if (!bv) shape[o++] = b->shape[b->ndim - 1];
  *out = rlx_sinfo_tensor(ctx, nd, unknown ? NULL : shape, dt);
  return NULL;
}

static rlx_status_t* infer_matmul(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(check_arity(c, 2, 2));
  rlx_sinfo_tensor_t *a, *b;
  RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 0, &a));
  RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 1, &b));
  rlx_dtype_t dt, od;
  RLX_RETURN_IF_ERROR(attr_out_dtype(c, &od));
  if (rlx_dtype_is_void(od)) RLX_RETURN_IF_ERROR(same_dtype(ctx, op_name(c), a->dtype, b->dtype, &dt));
  else dt = od; /* operands may differ (int8 x uint8 → int32) */
  return infer_matmul_shapes(ctx, op_name(c), a, b, dt, out);
}

static rlx_te_tensor_t* te_matmul(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, const rlx_relax_call_t* c,
                                  rlx_status_t** st) {
  rlx_dtype_t od;
  if ((*st = attr_out_dtype(c, &od))) return NULL;
  return rlx_topi_matmul(ctx, in[0], in[1], od, st);
}

static rlx_status_t* legalize_matmul(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  return legalize_te(bb, c, te_matmul, 2, c->args, "matmul", out);
}

/* ---------------------------------------------------------------- linear */
static rlx_status_t* infer_linear(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  const char* op = op_name(c);
  RLX_RETURN_IF_ERROR(check_arity(c, 2, 3));
  rlx_sinfo_tensor_t *x, *w, *b = NULL;
  RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 0, &x));
  RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 1, &w));
  if (c->n_args == 3) RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 2, &b));
  rlx_dtype_t dt, od;
  RLX_RETURN_IF_ERROR(attr_out_dtype(c, &od));
  if (rlx_dtype_is_void(od)) RLX_RETURN_IF_ERROR(same_dtype(ctx, op, x->dtype, w->dtype, &dt));
  else dt = od;
  if (w->ndim >= 0 && w->ndim != 2) return fail(op, "weight must be 2-D [out, in], got %s", shape_str(ctx, w));
  if (x->ndim == 0) return fail(op, "data must have rank >= 1, got %s", shape_str(ctx, x));
  if (x->ndim < 0) return *out = rlx_sinfo_tensor(ctx, -1, NULL, dt), NULL;
  if (!x->shape || !w->shape) return *out = rlx_sinfo_tensor(ctx, x->ndim, NULL, dt), NULL;
  rlx_expr_t *kx = x->shape[x->ndim - 1], *kw = w->shape[1];
  if (provably_ne(ctx, kx, kw))
    return fail(op, "contraction dims differ: %s vs %s (shapes %s and %s)", dim_str(ctx, kx), dim_str(ctx, kw),
                shape_str(ctx, x), shape_str(ctx, w));
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, x->ndim);
  for (int d = 0; d < x->ndim - 1; d++) shape[d] = x->shape[d];
  shape[x->ndim - 1] = w->shape[0];
  if (b && b->shape) {
    if (b->ndim > x->ndim) return fail(op, "bias %s has a higher rank than the output", shape_str(ctx, b));
    for (int d = 0; d < b->ndim; d++) {
      rlx_expr_t* od_ = shape[x->ndim - b->ndim + d];
      if (!is_one(b->shape[d]) && provably_ne(ctx, b->shape[d], od_))
        return fail(op, "bias %s does not broadcast to the output (%s along its last dims)", shape_str(ctx, b),
                    dim_str(ctx, od_));
    }
  }
  *out = rlx_sinfo_tensor(ctx, x->ndim, shape, dt);
  return NULL;
}

static rlx_te_tensor_t* te_linear(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, const rlx_relax_call_t* c,
                                  rlx_status_t** st) {
  rlx_dtype_t od;
  if ((*st = attr_out_dtype(c, &od))) return NULL;
  return rlx_topi_nn_dense(ctx, in[0], in[1], n > 2 ? in[2] : NULL, od, st);
}

static rlx_status_t* legalize_linear(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  return legalize_te(bb, c, te_linear, c->n_args, c->args, "linear", out);
}

/* ---------------------------------------------------------------- softmax, log_softmax */
static rlx_status_t* infer_softmax(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(check_arity(c, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 0, &x));
  if (!rlx_dtype_is_void(x->dtype) && !rlx_dtype_is_float(x->dtype))
    return fail(op_name(c), "input dtype must be float, got %s", dt_str(ctx, x->dtype));
  int64_t axis = attr_int(c, "axis", -1);
  if (x->ndim >= 0 && (axis < -x->ndim || axis >= x->ndim))
    return fail(op_name(c), "axis %lld is out of range for shape %s", (long long)axis, shape_str(ctx, x));
  *out = &x->hdr;
  return NULL;
}

static rlx_te_tensor_t* te_softmax(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, const rlx_relax_call_t* c,
                                   rlx_status_t** st) {
  int axis = (int)attr_int(c, "axis", -1);
  if (strcmp(op_name(c), "relax.nn.log_softmax") == 0) return rlx_topi_nn_log_softmax(ctx, in[0], axis, st);
  return rlx_topi_nn_softmax(ctx, in[0], axis, st);
}

static rlx_status_t* legalize_softmax(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  const char* name = strcmp(op_name(c), "relax.nn.log_softmax") == 0 ? "log_softmax" : "softmax";
  return legalize_te(bb, c, te_softmax, 1, c->args, name, out);
}

/* ---------------------------------------------------------------- layer_norm */
/* The normalized axes (non-negative, x's order kept as given) into axes[0..*n). */
static rlx_status_t* ln_axes(rlx_ctx_t* ctx, const rlx_relax_call_t* c, int ndim, int* axes, int* n) {
  const rlx_attr_t* a = rlx_attrs_get(&c->attrs, "axes");
  *n = 0;
  if (!a) {
    axes[(*n)++] = -1;
  } else if (a->kind == RLX_ATTR_INT) {
    axes[(*n)++] = (int)a->u.i;
  } else if (a->kind == RLX_ATTR_INTS) {
    if (a->u.ints.n < 1 || a->u.ints.n > 16) return fail(op_name(c), "axes must have 1 to 16 entries");
    for (int i = 0; i < a->u.ints.n; i++) axes[(*n)++] = (int)a->u.ints.v[i];
  } else return fail(op_name(c), "axes must be a list of ints");
  if (ndim < 0) return NULL;
  for (int i = 0; i < *n; i++) {
    if (axes[i] < -ndim || axes[i] >= ndim) return fail(op_name(c), "axis %d is out of range for rank %d", axes[i], ndim);
    if (axes[i] < 0) axes[i] += ndim;
    for (int j = 0; j < i; j++)
      if (axes[j] == axes[i]) return fail(op_name(c), "axis %d is repeated", axes[i]);
  }
  (void)ctx;
  return NULL;
}

static rlx_status_t* infer_layer_norm(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  const char* op = op_name(c);
  RLX_RETURN_IF_ERROR(check_arity(c, 3, 3));
  rlx_sinfo_tensor_t *x, *g, *b;
  RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 0, &x));
  RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 1, &g));
  RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 2, &b));
  if (!rlx_dtype_is_void(x->dtype) && !rlx_dtype_is_float(x->dtype))
    return fail(op, "input dtype must be float, got %s", dt_str(ctx, x->dtype));
  rlx_dtype_t dt;
  RLX_RETURN_IF_ERROR(same_dtype(ctx, op, x->dtype, g->dtype, &dt));
  RLX_RETURN_IF_ERROR(same_dtype(ctx, op, x->dtype, b->dtype, &dt));
  int axes[16], n;
  RLX_RETURN_IF_ERROR(ln_axes(ctx, c, x->ndim, axes, &n));
  rlx_sinfo_tensor_t* ps[2] = {g, b};
  for (int p = 0; p < 2; p++) {
    if (ps[p]->ndim >= 0 && ps[p]->ndim != n)
      return fail(op, "%s %s must have one dim per normalized axis (%d)", p ? "beta" : "gamma", shape_str(ctx, ps[p]), n);
    if (!ps[p]->shape || !x->shape) continue;
    for (int i = 0; i < n; i++)
      if (provably_ne(ctx, ps[p]->shape[i], x->shape[axes[i]]))
        return fail(op, "%s %s does not match the normalized dims of %s", p ? "beta" : "gamma", shape_str(ctx, ps[p]),
                    shape_str(ctx, x));
  }
  *out = &x->hdr;
  return NULL;
}

static rlx_te_tensor_t* te_layer_norm(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, const rlx_relax_call_t* c,
                                      rlx_status_t** st) {
  int axes[16], na;
  if ((*st = ln_axes(ctx, c, in[0]->buffer->ndim, axes, &na))) return NULL;
  double eps = attr_float(c, "epsilon", 1e-5);
  rlx_te_tensor_t* g = attr_bool(c, "scale", true) ? in[1] : NULL;
  rlx_te_tensor_t* b = attr_bool(c, "center", true) ? in[2] : NULL;
  /* topi wants gamma's dims in x's order: with unsorted axes, the legalization keeps the
   * order given, which topi accepts only when sorted. */
  for (int i = 1; i < na; i++)
    if (axes[i] < axes[i - 1]) {
      *st = rlx_status_create(RLX_UNSUPPORTED, "axes must be increasing for legalization");
      return NULL;
    }
  return rlx_topi_nn_layer_norm(ctx, in[0], g, b, na, axes, eps, st);
}

static rlx_status_t* legalize_layer_norm(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  return legalize_te(bb, c, te_layer_norm, 3, c->args, "layer_norm", out);
}

/* ---------------------------------------------------------------- rms_norm */
static rlx_status_t* infer_rms_norm(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  const char* op = op_name(c);
  RLX_RETURN_IF_ERROR(check_arity(c, 2, 2));
  rlx_sinfo_tensor_t *x, *w;
  RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 0, &x));
  RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 1, &w));
  if (!rlx_dtype_is_void(x->dtype) && !rlx_dtype_is_float(x->dtype))
    return fail(op, "input dtype must be float, got %s", dt_str(ctx, x->dtype));
  rlx_dtype_t dt;
  RLX_RETURN_IF_ERROR(same_dtype(ctx, op, x->dtype, w->dtype, &dt));
  int axes[16], n;
  RLX_RETURN_IF_ERROR(ln_axes(ctx, c, x->ndim, axes, &n));
  if (w->ndim >= 0 && w->ndim != n)
    return fail(op, "weight %s must have one dim per normalized axis (%d)", shape_str(ctx, w), n);
  if (w->shape && x->shape)
    for (int i = 0; i < n; i++)
      if (provably_ne(ctx, w->shape[i], x->shape[axes[i]]))
        return fail(op, "weight %s does not match the normalized dims of %s", shape_str(ctx, w), shape_str(ctx, x));
  *out = &x->hdr;
  return NULL;
}

static rlx_te_tensor_t* te_rms_norm(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, const rlx_relax_call_t* c,
                                    rlx_status_t** st) {
  int axes[16], na;
  if ((*st = ln_axes(ctx, c, in[0]->buffer->ndim, axes, &na))) return NULL;
  for (int i = 1; i < na; i++)
    if (axes[i] < axes[i - 1]) {
      *st = rlx_status_create(RLX_UNSUPPORTED, "axes must be increasing for legalization");
      return NULL;
    }
  return rlx_topi_nn_rms_norm(ctx, in[0], in[1], na, axes, attr_float(c, "epsilon", 1e-5), st);
}

static rlx_status_t* legalize_rms_norm(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  return legalize_te(bb, c, te_rms_norm, 2, c->args, "rms_norm", out);
}

/* ---------------------------------------------------------------- group_norm */
typedef struct {
  int64_t groups;
  int ca, n_axes, axes[16];
} gn_attrs_t;

static rlx_status_t* get_gn_attrs(rlx_ctx_t* ctx, const rlx_relax_call_t* c, int ndim, gn_attrs_t* a) {
  const char* op = op_name(c);
  a->groups = attr_int(c, "num_groups", 1);
  if (a->groups < 1) return fail(op, "num_groups must be >= 1, got %lld", (long long)a->groups);
  int64_t ca = attr_int(c, "channel_axis", 1);
  if (ndim >= 0 && (ca < -ndim || ca >= ndim)) return fail(op, "channel_axis %lld is out of range for rank %d", (long long)ca, ndim);
  a->ca = (int)(ca < 0 && ndim >= 0 ? ca + ndim : ca);
  const rlx_attr_t* ax = rlx_attrs_get(&c->attrs, "axes");
  a->n_axes = 0;
  if (ax && ax->kind == RLX_ATTR_INTS) {
    if (ax->u.ints.n > 16) return fail(op, "too many axes");
    for (int i = 0; i < ax->u.ints.n; i++) a->axes[a->n_axes++] = (int)ax->u.ints.v[i];
  } else if (ax && ax->kind == RLX_ATTR_INT) {
    a->axes[a->n_axes++] = (int)ax->u.i;
  } else if (ax) {
    return fail(op, "axes must be a list of ints");
  } else if (ndim >= 0) {
    for (int d = 0; d < ndim; d++) /* TVM's default: every axis after the channel axis */
      if (d > a->ca && a->n_axes < 16) a->axes[a->n_axes++] = d;
  }
  if (ndim < 0) return NULL;
  for (int i = 0; i < a->n_axes; i++) {
    if (a->axes[i] < -ndim || a->axes[i] >= ndim) return fail(op, "axis %d is out of range for rank %d", a->axes[i], ndim);
    if (a->axes[i] < 0) a->axes[i] += ndim;
    if (a->axes[i] == a->ca) return fail(op, "axis %d is the channel axis", a->axes[i]);
    for (int j = 0; j < i; j++)
      if (a->axes[j] == a->axes[i]) return fail(op, "axis %d is repeated", a->axes[i]);
  }
  (void)ctx;
  return NULL;
}

static rlx_status_t* infer_group_norm(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  const char* op = op_name(c);
  RLX_RETURN_IF_ERROR(check_arity(c, 3, 3));
  rlx_sinfo_tensor_t *x, *g, *b;
  RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 0, &x));
  RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 1, &g));
  RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 2, &b));
  if (!rlx_dtype_is_void(x->dtype) && !rlx_dtype_is_float(x->dtype))
    return fail(op, "input dtype must be float, got %s", dt_str(ctx, x->dtype));
  rlx_dtype_t dt;
  RLX_RETURN_IF_ERROR(same_dtype(ctx, op, x->dtype, g->dtype, &dt));
  RLX_RETURN_IF_ERROR(same_dtype(ctx, op, x->dtype, b->dtype, &dt));
  gn_attrs_t a;
  RLX_RETURN_IF_ERROR(get_gn_attrs(ctx, c, x->ndim, &a));
  int64_t cv;
  if (x->shape && rlx_expr_is_const_int(x->shape[a.ca], &cv) && cv % a.groups != 0)
    return fail(op, "%lld channels are not divisible into %lld groups", (long long)cv, (long long)a.groups);
  rlx_sinfo_tensor_t* ps[2] = {g, b};
  for (int p = 0; p < 2; p++) {
    if (ps[p]->ndim >= 0 && ps[p]->ndim != 1) return fail(op, "%s must be 1-D, got %s", p ? "beta" : "gamma", shape_str(ctx, ps[p]));
    if (ps[p]->shape && x->shape && provably_ne(ctx, ps[p]->shape[0], x->shape[a.ca]))
      return fail(op, "%s %s does not match the channel axis of %s", p ? "beta" : "gamma", shape_str(ctx, ps[p]),
                  shape_str(ctx, x));
  }
  *out = &x->hdr;
  return NULL;
}

static rlx_te_tensor_t* te_group_norm(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, const rlx_relax_call_t* c,
                                      rlx_status_t** st) {
  gn_attrs_t a;
  if ((*st = get_gn_attrs(ctx, c, in[0]->buffer->ndim, &a))) return NULL;
  rlx_te_tensor_t* g = attr_bool(c, "scale", true) ? in[1] : NULL;
  rlx_te_tensor_t* b = attr_bool(c, "center", true) ? in[2] : NULL;
  return rlx_topi_nn_group_norm(ctx, in[0], g, b, a.groups, a.ca, a.n_axes, a.axes, attr_float(c, "epsilon", 1e-5), st);
}

static rlx_status_t* legalize_group_norm(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  return legalize_te(bb, c, te_group_norm, 3, c->args, "group_norm", out);
}

/* ---------------------------------------------------------------- dropout */
static rlx_status_t* infer_dropout(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(check_arity(c, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 0, &x));
  double rate = attr_float(c, "rate", 0.5);
  if (!(rate >= 0 && rate < 1)) return fail(op_name(c), "rate must be in [0, 1), got %g", rate);
  rlx_sinfo_t* f[2] = {&x->hdr, &x->hdr};
  *out = rlx_sinfo_tuple(ctx, 2, f);
  return NULL;
}

static rlx_expr_t* ones_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rlx_te_tensor_t* x = user;
  return rlx_dtype_is_float(x->buffer->dtype) ? rlx_ir_float(ctx, x->buffer->dtype, 1.0) : rlx_ir_int(ctx, x->buffer->dtype, 1);
}

static rlx_te_tensor_t* te_ones_like(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, const rlx_relax_call_t* c,
                                     rlx_status_t** st) {
  return rlx_te_compute(ctx, in[0]->buffer->ndim, in[0]->buffer->shape, ones_body, in[0], "T_full", "elemwise");
}

/* Inference: the data passes through; the mask is all ones (every element kept). */
static rlx_status_t* legalize_dropout(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  rlx_relax_expr_t* mask = NULL;
  RLX_RETURN_IF_ERROR(legalize_te(bb, c, te_ones_like, 1, c->args, "ones_like", &mask));
  if (mask == &c->hdr) return *out = mask, NULL;
  rlx_relax_expr_t* f[2] = {c->args[0], mask};
  *out = rlx_relax_tuple(rlx_bb_get(bb)->ctx, 2, f);
  return NULL;
}

/* ---------------------------------------------------------------- batch_norm */
static rlx_status_t* infer_batch_norm(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  const char* op = op_name(c);
  RLX_RETURN_IF_ERROR(check_arity(c, 5, 5));
  rlx_sinfo_tensor_t* t[5];
  for (int i = 0; i < 5; i++) RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, i, &t[i]));
  rlx_sinfo_tensor_t* x = t[0];
  if (!rlx_dtype_is_void(x->dtype) && !rlx_dtype_is_float(x->dtype))
    return fail(op, "input dtype must be float, got %s", dt_str(ctx, x->dtype));
  int64_t axis = attr_int(c, "axis", 1);
  if (x->ndim >= 0) {
    if (axis < -x->ndim || axis >= x->ndim)
      return fail(op, "axis %lld is out of range for shape %s", (long long)axis, shape_str(ctx, x));
    if (axis < 0) axis += x->ndim;
  }
  static const char* const names[5] = {"data", "gamma", "beta", "moving_mean", "moving_var"};
  for (int i = 1; i < 5; i++) {
    rlx_dtype_t dt;
    RLX_RETURN_IF_ERROR(same_dtype(ctx, op, x->dtype, t[i]->dtype, &dt));
    if (t[i]->ndim >= 0 && t[i]->ndim != 1) return fail(op, "%s must be 1-D, got %s", names[i], shape_str(ctx, t[i]));
    if (t[i]->shape && x->shape && provably_ne(ctx, t[i]->shape[0], x->shape[axis]))
      return fail(op, "%s %s does not match axis %lld of data %s", names[i], shape_str(ctx, t[i]), (long long)axis,
                  shape_str(ctx, x));
  }
  rlx_sinfo_t* f[3] = {&x->hdr, tensor_like(ctx, t[3]->ndim, t[3]->shape, t[3]->dtype),
                       tensor_like(ctx, t[4]->ndim, t[4]->shape, t[4]->dtype)};
  *out = rlx_sinfo_tuple(ctx, 3, f);
  return NULL;
}

static rlx_te_tensor_t* te_batch_norm(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, const rlx_relax_call_t* c,
                                      rlx_status_t** st) {
  rlx_te_tensor_t* g = attr_bool(c, "scale", true) ? in[1] : NULL;
  rlx_te_tensor_t* b = attr_bool(c, "center", true) ? in[2] : NULL;
  return rlx_topi_nn_batch_norm(ctx, in[0], g, b, in[3], in[4], (int)attr_int(c, "axis", 1),
                                attr_float(c, "epsilon", 1e-5), st);
}

/* Inference mode: (normalized data, moving_mean, moving_var) as TVM's topi.nn.batch_norm
 * with training=False returns them. */
static rlx_status_t* legalize_batch_norm(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  rlx_relax_expr_t* y = NULL;
  RLX_RETURN_IF_ERROR(legalize_te(bb, c, te_batch_norm, 5, c->args, "batch_norm", &y));
  if (y == &c->hdr) return *out = y, NULL;
  rlx_relax_expr_t* f[3] = {y, c->args[3], c->args[4]};
  *out = rlx_relax_tuple(rlx_bb_get(bb)->ctx, 3, f);
  return NULL;
}

/* ---------------------------------------------------------------- conv2d */
typedef struct {
  int64_t strides[2], padding[4], dilation[2], groups;
  rlx_dtype_t out_dtype;
} conv_attrs_t;

static rlx_status_t* check_layout(const rlx_relax_call_t* c, const char* key, const char* want) {
  const char* l = attr_str(c, key, want);
  if (strcmp(l, want) != 0) return fail(op_name(c), "%s \"%s\" is not supported (only \"%s\")", key, l, want);
  return NULL;
}

static rlx_status_t* get_conv_attrs(const rlx_relax_call_t* c, conv_attrs_t* a) {
  RLX_RETURN_IF_ERROR(attr_ints(c, "strides", 2, 1, a->strides));
  RLX_RETURN_IF_ERROR(attr_ints(c, "padding", 4, 0, a->padding));
  RLX_RETURN_IF_ERROR(attr_ints(c, "dilation", 2, 1, a->dilation));
  a->groups = attr_int(c, "groups", 1);
  RLX_RETURN_IF_ERROR(attr_out_dtype(c, &a->out_dtype));
  RLX_RETURN_IF_ERROR(check_layout(c, "data_layout", "NCHW"));
  RLX_RETURN_IF_ERROR(check_layout(c, "kernel_layout", "OIHW"));
  RLX_RETURN_IF_ERROR(check_layout(c, "out_layout", "NCHW"));
  for (int i = 0; i < 2; i++)
    if (a->strides[i] < 1 || a->dilation[i] < 1) return fail(op_name(c), "strides and dilation must be >= 1");
  for (int i = 0; i < 4; i++)
    if (a->padding[i] < 0) return fail(op_name(c), "padding must be >= 0");
  if (a->groups < 1) return fail(op_name(c), "groups must be >= 1, got %lld", (long long)a->groups);
  return NULL;
}

/* floor((in + pad - dil * (k - 1) - 1 + extra) / stride) + 1, simplified. */
static rlx_expr_t* window_out(rlx_ctx_t* ctx, rlx_expr_t* in, rlx_expr_t* k, int64_t pad, int64_t dil, int64_t stride,
                              int64_t extra) {
  rlx_expr_t* eff = rlx_ir_mul(ctx, rlx_ir_i64(ctx, dil), rlx_ir_sub(ctx, k, rlx_ir_i64(ctx, 1)));
  rlx_expr_t* num = rlx_ir_sub(ctx, rlx_ir_add(ctx, in, rlx_ir_i64(ctx, pad + extra - 1)), eff);
  return rlx_ir_simplify(ctx, rlx_ir_add(ctx, rlx_ir_floordiv(ctx, num, rlx_ir_i64(ctx, stride)), rlx_ir_i64(ctx, 1)));
}

static rlx_status_t* check_positive(rlx_ctx_t* ctx, const char* op, rlx_expr_t* e, rlx_sinfo_tensor_t* x) {
  int64_t v;
  if (rlx_expr_is_const_int(e, &v) && v < 1)
    return fail(op, "the window does not fit the padded input %s (output size %lld)", shape_str(ctx, x), (long long)v);
  return NULL;
}

static rlx_status_t* infer_conv2d(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  const char* op = op_name(c);
  RLX_RETURN_IF_ERROR(check_arity(c, 2, 2));
  rlx_sinfo_tensor_t *x, *w;
  RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 0, &x));
  RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 1, &w));
  conv_attrs_t a;
  RLX_RETURN_IF_ERROR(get_conv_attrs(c, &a));
  rlx_dtype_t dt;
  if (rlx_dtype_is_void(a.out_dtype)) RLX_RETURN_IF_ERROR(same_dtype(ctx, op, x->dtype, w->dtype, &dt));
  else dt = a.out_dtype;
  if (x->ndim >= 0 && x->ndim != 4) return fail(op, "data must be 4-D (NCHW), got %s", shape_str(ctx, x));
  if (w->ndim >= 0 && w->ndim != 4) return fail(op, "weight must be 4-D (OIHW), got %s", shape_str(ctx, w));
  if (!x->shape || !w->shape) return *out = rlx_sinfo_tensor(ctx, 4, NULL, dt), NULL;
  rlx_expr_t* g = rlx_ir_i64(ctx, a.groups);
  if (provably_ne(ctx, x->shape[1], rlx_ir_simplify(ctx, rlx_ir_mul(ctx, w->shape[1], g))))
    return fail(op, "data channels %s != weight in-channels %s * groups %lld (shapes %s and %s)",
                dim_str(ctx, x->shape[1]), dim_str(ctx, w->shape[1]), (long long)a.groups, shape_str(ctx, x),
                shape_str(ctx, w));
  int64_t o;
  if (rlx_expr_is_const_int(w->shape[0], &o) && o % a.groups != 0)
    return fail(op, "out channels %lld are not divisible by groups %lld", (long long)o, (long long)a.groups);
  rlx_expr_t* shape[4] = {x->shape[0], w->shape[0],
                          window_out(ctx, x->shape[2], w->shape[2], a.padding[0] + a.padding[2], a.dilation[0],
                                     a.strides[0], 0),
                          window_out(ctx, x->shape[3], w->shape[3], a.padding[1] + a.padding[3], a.dilation[1],
                                     a.strides[1], 0)};
  RLX_RETURN_IF_ERROR(check_positive(ctx, op, shape[2], x));
  RLX_RETURN_IF_ERROR(check_positive(ctx, op, shape[3], x));
  *out = rlx_sinfo_tensor(ctx, 4, shape, dt);
  return NULL;
}

static rlx_te_tensor_t* te_conv2d(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, const rlx_relax_call_t* c,
                                  rlx_status_t** st) {
  conv_attrs_t a;
  if ((*st = get_conv_attrs(c, &a))) return NULL;
  return rlx_topi_nn_conv2d_nchw(ctx, in[0], in[1], a.strides, a.padding, a.dilation, a.groups, a.out_dtype, st);
}

static rlx_status_t* legalize_conv2d(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  return legalize_te(bb, c, te_conv2d, 2, c->args, "conv2d", out);
}

/* ---------------------------------------------------------------- pools */
typedef struct {
  int64_t pool_size[2], strides[2], dilation[2], padding[4];
  bool ceil_mode, count_include_pad;
} pool_attrs_t;

static rlx_status_t* get_pool_attrs(const rlx_relax_call_t* c, pool_attrs_t* a) {
  RLX_RETURN_IF_ERROR(attr_ints(c, "pool_size", 2, 1, a->pool_size));
  RLX_RETURN_IF_ERROR(attr_ints(c, "strides", 2, 1, a->strides));
  RLX_RETURN_IF_ERROR(attr_ints(c, "dilation", 2, 1, a->dilation));
  RLX_RETURN_IF_ERROR(attr_ints(c, "padding", 4, 0, a->padding));
  a->ceil_mode = attr_bool(c, "ceil_mode", false);
  a->count_include_pad = attr_bool(c, "count_include_pad", false);
  RLX_RETURN_IF_ERROR(check_layout(c, "layout", "NCHW"));
  RLX_RETURN_IF_ERROR(check_layout(c, "out_layout", "NCHW"));
  for (int i = 0; i < 2; i++)
    if (a->pool_size[i] < 1 || a->strides[i] < 1 || a->dilation[i] < 1)
      return fail(op_name(c), "pool_size, strides and dilation must be >= 1");
  for (int i = 0; i < 4; i++)
    if (a->padding[i] < 0) return fail(op_name(c), "padding must be >= 0");
  return NULL;
}

static rlx_status_t* infer_pool2d(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  const char* op = op_name(c);
  RLX_RETURN_IF_ERROR(check_arity(c, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 0, &x));
  pool_attrs_t a;
  RLX_RETURN_IF_ERROR(get_pool_attrs(c, &a));
  if (x->ndim >= 0 && x->ndim != 4) return fail(op, "data must be 4-D (NCHW), got %s", shape_str(ctx, x));
  if (strcmp(op, "relax.nn.avg_pool2d") == 0 && !rlx_dtype_is_void(x->dtype) && !rlx_dtype_is_float(x->dtype))
    return fail(op, "input dtype must be float, got %s", dt_str(ctx, x->dtype));
  if (!x->shape) return *out = rlx_sinfo_tensor(ctx, 4, NULL, x->dtype), NULL;
  rlx_expr_t* shape[4] = {
      x->shape[0], x->shape[1],
      window_out(ctx, x->shape[2], rlx_ir_i64(ctx, a.pool_size[0]), a.padding[0] + a.padding[2], a.dilation[0],
                 a.strides[0], a.ceil_mode ? a.strides[0] - 1 : 0),
      window_out(ctx, x->shape[3], rlx_ir_i64(ctx, a.pool_size[1]), a.padding[1] + a.padding[3], a.dilation[1],
                 a.strides[1], a.ceil_mode ? a.strides[1] - 1 : 0)};
  RLX_RETURN_IF_ERROR(check_positive(ctx, op, shape[2], x));
  RLX_RETURN_IF_ERROR(check_positive(ctx, op, shape[3], x));
  *out = rlx_sinfo_tensor(ctx, 4, shape, x->dtype);
  return NULL;
}

static rlx_te_tensor_t* te_pool2d(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, const rlx_relax_call_t* c,
                                  rlx_status_t** st) {
  pool_attrs_t a;
  if ((*st = get_pool_attrs(c, &a))) return NULL;
  rlx_topi_pool_kind_t k = strcmp(op_name(c), "relax.nn.max_pool2d") == 0 ? RLX_TOPI_POOL_MAX : RLX_TOPI_POOL_AVG;
  return rlx_topi_nn_pool2d(ctx, in[0], k, a.pool_size, a.strides, a.dilation, a.padding, a.ceil_mode,
                            a.count_include_pad, st);
}

static rlx_status_t* legalize_pool2d(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  const char* name = strcmp(op_name(c), "relax.nn.max_pool2d") == 0 ? "max_pool2d" : "avg_pool2d";
  return legalize_te(bb, c, te_pool2d, 1, c->args, name, out);
}

/* output_size into out[2]; false when absent (= the input's size). */
static rlx_status_t* get_output_size(const rlx_relax_call_t* c, int64_t* out, bool* given) {
  *given = rlx_attrs_get(&c->attrs, "output_size") != NULL;
  RLX_RETURN_IF_ERROR(attr_ints(c, "output_size", 2, 1, out));
  RLX_RETURN_IF_ERROR(check_layout(c, "layout", "NCHW"));
  RLX_RETURN_IF_ERROR(check_layout(c, "out_layout", "NCHW"));
  if (*given && (out[0] < 1 || out[1] < 1)) return fail(op_name(c), "output_size must be >= 1");
  return NULL;
}

static rlx_status_t* infer_adaptive_pool2d(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  const char* op = op_name(c);
  RLX_RETURN_IF_ERROR(check_arity(c, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(tensor_arg(ctx, c, 0, &x));
  int64_t os[2];
  bool given;
  RLX_RETURN_IF_ERROR(get_output_size(c, os, &given));
  if (x->ndim >= 0 && x->ndim != 4) return fail(op, "data must be 4-D (NCHW), got %s", shape_str(ctx, x));
  if (!rlx_dtype_is_void(x->dtype) && !rlx_dtype_is_float(x->dtype))
    return fail(op, "input dtype must be float, got %s", dt_str(ctx, x->dtype));
  if (!x->shape) return *out = rlx_sinfo_tensor(ctx, 4, NULL, x->dtype), NULL;
  if (!given) return *out = &x->hdr, NULL;
  rlx_expr_t* shape[4] = {x->shape[0], x->shape[1], rlx_ir_i64(ctx, os[0]), rlx_ir_i64(ctx, os[1])};
  *out = rlx_sinfo_tensor(ctx, 4, shape, x->dtype);
  return NULL;
}

static rlx_te_tensor_t* te_adaptive_pool2d(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, const rlx_relax_call_t* c,
                                           rlx_status_t** st) {
  int64_t os[2];
  bool given;
  if ((*st = get_output_size(c, os, &given))) return NULL;
  if (!given) {
    if (!rlx_expr_is_const_int(in[0]->buffer->shape[2], &os[0]) || !rlx_expr_is_const_int(in[0]->buffer->shape[3], &os[1])) {
      *st = rlx_status_create(RLX_UNSUPPORTED, "output_size is needed with a symbolic input size");
      return NULL;
    }
  }
  return rlx_topi_nn_adaptive_pool2d(ctx, in[0], RLX_TOPI_POOL_AVG, os[0], os[1], st);
}

static rlx_status_t* legalize_adaptive_pool2d(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  return legalize_te(bb, c, te_adaptive_pool2d, 1, c->args, "adaptive_avg_pool2d", out);
}

/* ---------------------------------------------------------------- table */
const rlx_op_def_t rlx_ops_nn[] = {
    {"relax.matmul", infer_matmul, legalize_matmul, true},
    {"relax.linear", infer_linear, legalize_linear, true},
    {"relax.nn.softmax", infer_softmax, legalize_softmax, true},
    {"relax.nn.log_softmax", infer_softmax, legalize_softmax, true},
    {"relax.nn.layer_norm", infer_layer_norm, legalize_layer_norm, true},
    {"relax.nn.rms_norm", infer_rms_norm, legalize_rms_norm, true},
    {"relax.nn.group_norm", infer_group_norm, legalize_group_norm, true},
    {"relax.nn.batch_norm", infer_batch_norm, legalize_batch_norm, true},
    {"relax.nn.dropout", infer_dropout, legalize_dropout, true},
    {"relax.nn.conv2d", infer_conv2d, legalize_conv2d, true},
    {"relax.nn.max_pool2d", infer_pool2d, legalize_pool2d, true},
    {"relax.nn.avg_pool2d", infer_pool2d, legalize_pool2d, true},
    {"relax.nn.adaptive_avg_pool2d", infer_adaptive_pool2d, legalize_adaptive_pool2d, true},
    {NULL, NULL, NULL, false},
};
