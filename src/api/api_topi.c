/* topi by name for language bindings (include/rlx/rlx.h, "topi by name"): one table of the
 * C topi functions under TVM's names and parameter names, from which python/rlx generates
 * rlx.topi. Unary and binary elementwise ops come from topi's own X-macro lists; the rest are
 * adapters that read TVM's parameters (tensors by position, the others from an attribute
 * list keyed by parameter name) and call the C function.
 *
 * Parameter kinds in the `params` strings: t tensor, t? optional tensor, te tensor or scalar
 * PrimExpr (attribute of the same name), ts tuple of tensors (all the tensors given), int,
 * ints (list of int64), bool, float, dtype; a trailing ? marks an optional parameter. */
#include <pthread.h>
#include <string.h>

#include "../topi/basic.h"
#include "../topi/nn.h"
#include "attr_list.h"
#include "rlx/rlx.h"

typedef struct {
  rlx_ctx_t* ctx;
  int n;                          /* tensors given */
  rlx_te_tensor_t* const* t;      /* one slot per tensor parameter (ts: all of them) */
  const rlx_attrs_t* a;
  int code;                       /* the unary / binary / reduce op of generic entries */
} targs_t;

typedef rlx_te_tensor_t* (*adapter_t)(const targs_t* x, rlx_status_t** st);

typedef struct {
  const char* name;
  const char* params;
  adapter_t fn;
  int code;
} topi_entry_t;

/* ------------------------------------------------------------------ argument readers */
static const rlx_attr_t* attr(const targs_t* x, const char* key) { return x->a ? rlx_attrs_get(x->a, key) : NULL; }

static int64_t get_int(const targs_t* x, const char* key, int64_t dflt) {
  const rlx_attr_t* a = attr(x, key);
  return a && a->kind == RLX_ATTR_INT ? a->u.i : a && a->kind == RLX_ATTR_BOOL ? a->u.b : dflt;
}

static bool get_bool(const targs_t* x, const char* key, bool dflt) { return get_int(x, key, dflt) != 0; }

static double get_float(const targs_t* x, const char* key, double dflt) {
  const rlx_attr_t* a = attr(x, key);
  if (!a) return dflt;
  return a->kind == RLX_ATTR_FLOAT ? a->u.f : a->kind == RLX_ATTR_INT ? (double)a->u.i : dflt;
}

static rlx_dtype_t get_dtype(const targs_t* x, const char* key) {
  const rlx_attr_t* a = attr(x, key);
  return a && a->kind == RLX_ATTR_DTYPE ? a->u.dtype : rlx_dt_void();
}

/* ints attribute: *n (-1 when absent) and the values. */
static const int64_t* get_ints(const targs_t* x, const char* key, int* n) {
  const rlx_attr_t* a = attr(x, key);
  if (a && a->kind == RLX_ATTR_INTS) {
    *n = a->u.ints.n;
    return a->u.ints.v;
  }
  if (a && a->kind == RLX_ATTR_INT) {
    *n = 1;
    return &a->u.i;
  }
  *n = -1;
  return NULL;
}

static rlx_te_tensor_t* fail(rlx_status_t** st, const char* fmt, const char* what) {
  *st = rlx_status_create(RLX_INVALID_ARGUMENT, fmt, what);
  return NULL;
}

/* ------------------------------------------------------------------ adapters */
static rlx_te_tensor_t* a_unary(const targs_t* x, rlx_status_t** st) {
  return rlx_topi_unary(x->ctx, (rlx_topi_unary_t)x->code, x->t[0], st);
}

static rlx_te_tensor_t* a_binary(const targs_t* x, rlx_status_t** st) {
  rlx_topi_binary_t op = (rlx_topi_binary_t)x->code;
  if (x->t[0] && x->t[1]) return rlx_topi_binary(x->ctx, op, x->t[0], x->t[1], st);
  const rlx_attr_t* lhs = attr(x, "lhs");
  const rlx_attr_t* rhs = attr(x, "rhs");
  if (x->t[0] && rhs && rhs->kind == RLX_ATTR_EXPR) return rlx_topi_binary_scalar(x->ctx, op, x->t[0], rhs->u.expr, false, st);
  if (x->t[1] && lhs && lhs->kind == RLX_ATTR_EXPR) return rlx_topi_binary_scalar(x->ctx, op, x->t[1], lhs->u.expr, true, st);
  return fail(st, "topi.%s: expected a tensor and a tensor or scalar", rlx_topi_binary_name(op));
}

static rlx_te_tensor_t* a_reduce(const targs_t* x, rlx_status_t** st) {
  int n;
  const int64_t* axes = get_ints(x, "axis", &n);
  return rlx_topi_reduce(x->ctx, (rlx_topi_reduce_t)x->code, x->t[0], n < 0 ? 0 : n, axes,
                         get_bool(x, "keepdims", false), st);
}

static rlx_te_tensor_t* a_cast(const targs_t* x, rlx_status_t** st) {
  rlx_dtype_t t = get_dtype(x, "dtype");
  if (rlx_dtype_is_void(t)) return fail(st, "topi.%s: dtype is required", "cast");
  return rlx_topi_cast(x->ctx, x->t[0], t, st);
}

static rlx_te_tensor_t* a_clip(const targs_t* x, rlx_status_t** st) {
  return rlx_topi_clip(x->ctx, x->t[0], get_float(x, "a_min", 0), get_float(x, "a_max", 0), st);
}

static rlx_te_tensor_t* a_where(const targs_t* x, rlx_status_t** st) {
  return rlx_topi_where(x->ctx, x->t[0], x->t[1], x->t[2], st);
}

static rlx_expr_t** int64_exprs(rlx_ctx_t* ctx, int n, const int64_t* v) {
  rlx_expr_t** e = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int i = 0; i < n; i++) e[i] = rlx_ir_i64(ctx, v[i]);
  return e;
}

static rlx_te_tensor_t* a_broadcast_to(const targs_t* x, rlx_status_t** st) {
  int n;
  const int64_t* s = get_ints(x, "shape", &n);
  if (n < 0) return fail(st, "topi.%s: shape is required", "broadcast_to");
  return rlx_topi_broadcast_to(x->ctx, x->t[0], n, int64_exprs(x->ctx, n, s), st);
}

static rlx_te_tensor_t* a_reshape(const targs_t* x, rlx_status_t** st) {
  int n;
  const int64_t* s = get_ints(x, "newshape", &n);
  if (n < 0) return fail(st, "topi.%s: newshape is required", "reshape");
  return rlx_topi_reshape(x->ctx, x->t[0], n, int64_exprs(x->ctx, n, s), st);
}

static rlx_te_tensor_t* a_transpose(const targs_t* x, rlx_status_t** st) {
  int n;
  const int64_t* axes = get_ints(x, "axes", &n);
  if (n >= 0 && n != rlx_te_tensor_ndim(x->t[0])) return fail(st, "topi.%s: axes must name every dimension", "transpose");
  return rlx_topi_transpose(x->ctx, x->t[0], n < 0 ? NULL : axes, st);
}

static rlx_te_tensor_t* a_expand_dims(const targs_t* x, rlx_status_t** st) {
  int64_t axis = get_int(x, "axis", 0);
  int64_t k = get_int(x, "num_newaxis", 1);
  if (k < 1 || k > 16) return fail(st, "topi.%s: num_newaxis must be 1..16", "expand_dims");
  int64_t axes[16];
  int out_ndim = rlx_te_tensor_ndim(x->t[0]) + (int)k;
  int64_t first = axis < 0 ? axis + out_ndim - k + 1 : axis;
  for (int64_t i = 0; i < k; i++) axes[i] = first + i;
  return rlx_topi_expand_dims(x->ctx, x->t[0], (int)k, axes, st);
}

static rlx_te_tensor_t* a_squeeze(const targs_t* x, rlx_status_t** st) {
  int n;
  const int64_t* axes = get_ints(x, "axis", &n);
  return rlx_topi_squeeze(x->ctx, x->t[0], n < 0 ? 0 : n, n < 0 ? NULL : axes, st);
}

static rlx_te_tensor_t* a_concatenate(const targs_t* x, rlx_status_t** st) {
  return rlx_topi_concat(x->ctx, x->n, x->t, get_int(x, "axis", 0), st);
}

static rlx_te_tensor_t* a_matmul(const targs_t* x, rlx_status_t** st) {
  return rlx_topi_matmul(x->ctx, x->t[0], x->t[1], get_dtype(x, "out_dtype"), st);
}

static rlx_te_tensor_t* a_dense(const targs_t* x, rlx_status_t** st) {
  return rlx_topi_nn_dense(x->ctx, x->t[0], x->t[1], x->t[2], get_dtype(x, "out_dtype"), st);
}

static rlx_te_tensor_t* a_softmax(const targs_t* x, rlx_status_t** st) {
  return rlx_topi_nn_softmax(x->ctx, x->t[0], (int)get_int(x, "axis", -1), st);
}

static rlx_te_tensor_t* a_log_softmax(const targs_t* x, rlx_status_t** st) {
  return rlx_topi_nn_log_softmax(x->ctx, x->t[0], (int)get_int(x, "axis", -1), st);
}

/* TVM's stride / dilation (one value or two) and padding (one, two or four values). */
static bool pair(const targs_t* x, const char* key, int64_t out[2]) {
  int n;
  const int64_t* v = get_ints(x, key, &n);
  if (n != 1 && n != 2) return false;
  out[0] = v[0];
  out[1] = v[n - 1];
  return true;
}

static rlx_te_tensor_t* a_conv2d_nchw(const targs_t* x, rlx_status_t** st) {
  int64_t stride[2], dilation[2], pad[4];
  if (!pair(x, "stride", stride)) return fail(st, "topi.nn.conv2d_nchw: %s must be 1 or 2 integers", "stride");
  if (!pair(x, "dilation", dilation)) return fail(st, "topi.nn.conv2d_nchw: %s must be 1 or 2 integers", "dilation");
  int n;
  const int64_t* p = get_ints(x, "padding", &n);
  if (n == 1 || n == 2) {
    pad[0] = pad[2] = p[0];
    pad[1] = pad[3] = p[n - 1];
  } else if (n == 4) {
    memcpy(pad, p, sizeof(pad));
  } else {
    return fail(st, "topi.nn.conv2d_nchw: %s must be 1, 2 or 4 integers", "padding");
  }
  return rlx_topi_nn_conv2d_nchw(x->ctx, x->t[0], x->t[1], stride, pad, dilation, 1, get_dtype(x, "out_dtype"), st);
}

/* ------------------------------------------------------------------ the table */
static const topi_entry_t fixed[] = {
    {"cast", "x:t dtype:dtype", a_cast, 0},
    {"clip", "x:t a_min:float a_max:float", a_clip, 0},
    {"where", "condition:t x:t y:t", a_where, 0},
    {"broadcast_to", "data:t shape:ints", a_broadcast_to, 0},
    {"sum", "data:t axis:ints? keepdims:bool?", a_reduce, RLX_TOPI_REDUCE_SUM},
    {"max", "data:t axis:ints? keepdims:bool?", a_reduce, RLX_TOPI_REDUCE_MAX},
    {"min", "data:t axis:ints? keepdims:bool?", a_reduce, RLX_TOPI_REDUCE_MIN},
    {"prod", "data:t axis:ints? keepdims:bool?", a_reduce, RLX_TOPI_REDUCE_PROD},
    {"argmax", "data:t axis:ints? keepdims:bool?", a_reduce, RLX_TOPI_REDUCE_ARGMAX},
    {"argmin", "data:t axis:ints? keepdims:bool?", a_reduce, RLX_TOPI_REDUCE_ARGMIN},
    {"reshape", "a:t newshape:ints", a_reshape, 0},
    {"transpose", "a:t axes:ints?", a_transpose, 0},
    {"expand_dims", "a:t axis:int num_newaxis:int?", a_expand_dims, 0},
    {"squeeze", "a:t axis:ints?", a_squeeze, 0},
    {"concatenate", "a_tuple:ts axis:int?", a_concatenate, 0},
    {"matmul", "tensor_a:t tensor_b:t out_dtype:dtype?", a_matmul, 0},
    {"nn.dense", "data:t weight:t bias:t? out_dtype:dtype?", a_dense, 0},
    {"nn.relu", "x:t", a_unary, RLX_TOPI_RELU},
    {"nn.softmax", "x:t axis:int?", a_softmax, 0},
    {"nn.log_softmax", "x:t axis:int?", a_log_softmax, 0},
    {"nn.conv2d_nchw", "Input:t Filter:t stride:ints padding:ints dilation:ints out_dtype:dtype?", a_conv2d_nchw, 0},
};

enum { N_FIXED = sizeof(fixed) / sizeof(fixed[0]), N_ALL = N_FIXED + RLX_TOPI_UNARY_COUNT + RLX_TOPI_BINARY_COUNT };
static topi_entry_t table[N_ALL];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void fill(void) {
  int k = 0;
  for (int i = 0; i < N_FIXED; i++) table[k++] = fixed[i];
  for (int i = 0; i < RLX_TOPI_UNARY_COUNT; i++)
    table[k++] = (topi_entry_t){rlx_topi_unary_name((rlx_topi_unary_t)i), "x:t", a_unary, i};
  for (int i = 0; i < RLX_TOPI_BINARY_COUNT; i++)
    table[k++] = (topi_entry_t){rlx_topi_binary_name((rlx_topi_binary_t)i), "lhs:te rhs:te", a_binary, i};
}

int rlx_topi_count(void) {
  pthread_once(&once, fill);
  return N_ALL;
}

const char* rlx_topi_name(int i) { return i >= 0 && i < rlx_topi_count() ? table[i].name : NULL; }

const char* rlx_topi_params(int i) { return i >= 0 && i < rlx_topi_count() ? table[i].params : NULL; }

RLX_MUST_USE rlx_status_t* rlx_topi_call(rlx_ctx_t* ctx, const char* name, int n_tensors, rlx_te_tensor_t* const* tensors,
                                         const rlx_attr_list_t* attrs, rlx_te_tensor_t** out) {
  const topi_entry_t* e = NULL;
  for (int i = 0; i < rlx_topi_count() && !e; i++)
    if (strcmp(table[i].name, name) == 0) e = &table[i];
  if (!e) return rlx_status_create(RLX_NOT_FOUND, "unknown topi function '%s'", name);
  int need = 0;
  for (const char* p = strchr(e->params, ':'); p; p = strchr(p + 1, ':'))
    if (p[1] == 't') need++;
  bool tuple = strstr(e->params, ":ts") != NULL;
  if ((!tuple && n_tensors != need) || (tuple && n_tensors < 1))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.%s(%s): got %d tensor slot(s)", name, e->params, n_tensors);
  targs_t x = {ctx, n_tensors, tensors, attrs ? &attrs->attrs : NULL, e->code};
  rlx_status_t* st = NULL;
  rlx_te_tensor_t* t = e->fn(&x, &st);
  if (st) return rlx_status_annotate(st, "topi.%s", name);
  if (!t) return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.%s: no result", name);
  *out = t;
  return NULL;
}
