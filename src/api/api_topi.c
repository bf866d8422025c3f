/* topi by name for language bindings (include/rlx/rlx.h, "topi by name"): one table of the
 * C topi functions under TVM's names and parameter names, from which python/rlx generates
 * rlx.topi. Unary and binary elementwise ops come from topi's own X-macro lists; the rest are
 * adapters that read TVM's parameters (tensors by position, the others from an attribute
 * list keyed by parameter name) and call the C function.
 *
 * Parameter kinds in the `params` strings: t tensor, t? optional tensor, te tensor or scalar
 * PrimExpr (attribute of the same name), ts tuple of tensors (all the tensors given), int,
 * ints (list of int64; one int is also accepted, and split tells the two apart), bool, float,
 * str, expr (a scalar PrimExpr), dtype; a trailing ? marks an optional parameter.
 *
 * Functions that return several tensors (TVM returns a list: split) have a multi adapter and
 * are called through rlx_topi_call_multi. */
#include <pthread.h>
#include <string.h>

#include "api_topi.h"

/* ------------------------------------------------------------------ adapters */
static RLX_MUST_USE rlx_status_t* a_unary(const targs_t* x, rlx_te_tensor_t** out) {
  return rlx_topi_unary(x->ctx, (rlx_topi_unary_t)x->code, x->t[0], out);
}

static RLX_MUST_USE rlx_status_t* a_binary(const targs_t* x, rlx_te_tensor_t** out) {
  rlx_topi_binary_t op = (rlx_topi_binary_t)x->code;
  const rlx_attr_t* lhs = attr(x, "lhs");
  const rlx_attr_t* rhs = attr(x, "rhs");
  if (x->t[0] && x->t[1]) return rlx_topi_binary(x->ctx, op, x->t[0], x->t[1], out);
  if (x->t[0] && rhs && rhs->kind == RLX_ATTR_EXPR)
    return rlx_topi_binary_scalar(x->ctx, op, x->t[0], rhs->u.expr, false, out);
  if (x->t[1] && lhs && lhs->kind == RLX_ATTR_EXPR)
    return rlx_topi_binary_scalar(x->ctx, op, x->t[1], lhs->u.expr, true, out);
  return fail("topi.%s: expected a tensor and a tensor or scalar", rlx_topi_binary_name(op));
}

static RLX_MUST_USE rlx_status_t* a_reduce(const targs_t* x, rlx_te_tensor_t** out) {
  int n;
  const int64_t* axes = get_ints(x, "axis", &n);
  return rlx_topi_reduce(x->ctx, (rlx_topi_reduce_t)x->code, x->t[0], n < 0 ? 0 : n, axes,
                         get_bool(x, "keepdims", false), out);
}

static RLX_MUST_USE rlx_status_t* a_cast(const targs_t* x, rlx_te_tensor_t** out) {
  rlx_dtype_t t = get_dtype(x, "dtype");
  if (rlx_dtype_is_void(t)) return fail("topi.%s: dtype is required", "cast");
  return rlx_topi_cast(x->ctx, x->t[0], t, out);
}

static RLX_MUST_USE rlx_status_t* a_clip(const targs_t* x, rlx_te_tensor_t** out) {
  return rlx_topi_clip(x->ctx, x->t[0], get_float(x, "a_min", 0), get_float(x, "a_max", 0), out);
}

static RLX_MUST_USE rlx_status_t* a_where(const targs_t* x, rlx_te_tensor_t** out) {
  return rlx_topi_where(x->ctx, x->t[0], x->t[1], x->t[2], out);
}

static rlx_expr_t** int64_exprs(rlx_ctx_t* ctx, int n, const int64_t* v) {
  rlx_expr_t** e = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int i = 0; i < n; i++) e[i] = rlx_ir_i64(ctx, v[i]);
  return e;
}

static RLX_MUST_USE rlx_status_t* a_broadcast_to(const targs_t* x, rlx_te_tensor_t** out) {
  int n;
  const int64_t* s = get_ints(x, "shape", &n);
  if (n < 0) return fail("topi.%s: shape is required", "broadcast_to");
  return rlx_topi_broadcast_to(x->ctx, x->t[0], n, int64_exprs(x->ctx, n, s), out);
}

static RLX_MUST_USE rlx_status_t* a_reshape(const targs_t* x, rlx_te_tensor_t** out) {
  int n;
  const int64_t* s = get_ints(x, "newshape", &n);
  if (n < 0) return fail("topi.%s: newshape is required", "reshape");
  return rlx_topi_reshape(x->ctx, x->t[0], n, int64_exprs(x->ctx, n, s), out);
}

static RLX_MUST_USE rlx_status_t* a_transpose(const targs_t* x, rlx_te_tensor_t** out) {
  int n;
  const int64_t* axes = get_ints(x, "axes", &n);
  if (n >= 0 && n != rlx_te_tensor_ndim(x->t[0])) return fail("topi.%s: axes must name every dimension", "transpose");
  return rlx_topi_transpose(x->ctx, x->t[0], n < 0 ? NULL : axes, out);
}

static RLX_MUST_USE rlx_status_t* a_expand_dims(const targs_t* x, rlx_te_tensor_t** out) {
  int64_t axis = get_int(x, "axis", 0);
  int64_t k = get_int(x, "num_newaxis", 1);
  if (k < 1 || k > 16) return fail("topi.%s: num_newaxis must be 1..16", "expand_dims");
  int64_t axes[16];
  int out_ndim = rlx_te_tensor_ndim(x->t[0]) + (int)k;
  int64_t first = axis < 0 ? axis + out_ndim - k + 1 : axis;
  for (int64_t i = 0; i < k; i++) axes[i] = first + i;
  return rlx_topi_expand_dims(x->ctx, x->t[0], (int)k, axes, out);
}

static RLX_MUST_USE rlx_status_t* a_squeeze(const targs_t* x, rlx_te_tensor_t** out) {
  int n;
  const int64_t* axes = get_ints(x, "axis", &n);
  return rlx_topi_squeeze(x->ctx, x->t[0], n < 0 ? 0 : n, n < 0 ? NULL : axes, out);
}

static RLX_MUST_USE rlx_status_t* a_concatenate(const targs_t* x, rlx_te_tensor_t** out) {
  return rlx_topi_concat(x->ctx, x->n, x->t, get_int(x, "axis", 0), out);
}

static RLX_MUST_USE rlx_status_t* a_dense(const targs_t* x, rlx_te_tensor_t** out) {
  return rlx_topi_nn_dense(x->ctx, x->t[0], x->t[1], x->t[2], get_dtype(x, "out_dtype"), out);
}

static RLX_MUST_USE rlx_status_t* a_softmax(const targs_t* x, rlx_te_tensor_t** out) {
  return rlx_topi_nn_softmax(x->ctx, x->t[0], (int)get_int(x, "axis", -1), out);
}

static RLX_MUST_USE rlx_status_t* a_log_softmax(const targs_t* x, rlx_te_tensor_t** out) {
  return rlx_topi_nn_log_softmax(x->ctx, x->t[0], (int)get_int(x, "axis", -1), out);
}

/* TVM's split: an int is a number of sections, a list the indices to split at. */
static RLX_MUST_USE rlx_status_t* a_split(const targs_t* x, int* out_n, rlx_te_tensor_t*** out) {
  const rlx_attr_t* a = attr(x, "indices_or_sections");
  int64_t axis = get_int(x, "axis", 0);
  if (a && a->kind == RLX_ATTR_INT) {
    int64_t extent = 0;
    int nd = rlx_te_tensor_ndim(x->t[0]);
    bool known = axis >= -nd && axis < nd && rlx_expr_is_const_int(x->t[0]->buffer->shape[axis < 0 ? axis + nd : axis], &extent);
    if (a->u.i < 1 || a->u.i > (known ? (extent > 1 ? extent : 1) : 65536))
      return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.split: %lld sections (must be 1 to %lld)", (long long)a->u.i,
                               (long long)(known ? (extent > 1 ? extent : 1) : 65536));
    return rlx_topi_split(x->ctx, x->t[0], a->u.i, 0, NULL, axis, out_n, out);
  }
  if (a && a->kind == RLX_ATTR_INTS)
    return rlx_topi_split(x->ctx, x->t[0], 0, a->u.ints.n, a->u.ints.v, axis, out_n, out);
  return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.split: indices_or_sections must be an int or a list of ints");
}

/* TVM's strided_slice: begin/end/strides over axes (default: the first len(begin) dims);
 * missing ends run to the end of the dim, missing strides are 1. slice_mode "size": end holds
 * sizes (-1 = the rest) and strides are ignored. assume_inbound only tells TVM's codegen that
 * indices are in range; the slice here is clamped either way. */
static RLX_MUST_USE rlx_status_t* a_strided_slice(const targs_t* x, rlx_te_tensor_t** out) {
  int nb, ne, ns, na;
  const int64_t* begin = get_ints(x, "begin", &nb);
  const int64_t* end = get_ints(x, "end", &ne);
  const int64_t* strides = get_ints(x, "strides", &ns);
  const int64_t* axes = get_ints(x, "axes", &na);
  const char* mode = get_str(x, "slice_mode", "end");
  bool size_mode = strcmp(mode, "size") == 0;
  if (!size_mode && strcmp(mode, "end") != 0)
    return fail("topi.strided_slice: slice_mode '%s' is not 'end' or 'size'", mode);
  if (nb < 0 || ne < 0) return fail("topi.strided_slice: %s are required", "begin and end");
  int n = na >= 0 ? na : nb;
  if (nb != n || ne > n || ns > n || (na >= 0 && (ne != n || (ns >= 0 && ns != n))))
    return fail("topi.strided_slice: %s",
                "begin, end, strides and axes must have the same length (end and strides "
                "may be shorter without axes)");
  int64_t* ax = RLX_NEW_ARRAY(x->ctx, int64_t, n);
  int64_t* e = RLX_NEW_ARRAY(x->ctx, int64_t, n);
  int64_t* s = RLX_NEW_ARRAY(x->ctx, int64_t, n);
  for (int i = 0; i < n; i++) {
    ax[i] = axes ? axes[i] : i;
    s[i] = !size_mode && strides && i < ns ? strides[i] : 1;
    if (!in_limit(s[i])) return fail("topi.strided_slice: %s", "a stride is out of range");
    if (i >= ne) {
      e[i] = s[i] > 0 ? INT64_MAX : INT64_MIN;
    } else if (size_mode) {
      if (end[i] < -1) return fail("topi.strided_slice: %s", "a size must be >= 0 or -1 (the rest)");
      e[i] = end[i] == -1 || begin[i] > INT64_MAX - end[i] ? INT64_MAX : begin[i] + end[i];
      if (begin[i] < 0 && e[i] >= 0 && end[i] != -1) e[i] = INT64_MAX; /* a negative begin counts from the end */
    } else {
      e[i] = end[i];
    }
  }
  return rlx_topi_strided_slice(x->ctx, x->t[0], n, ax, begin, e, s, out);
}

static RLX_MUST_USE rlx_status_t* a_take(const targs_t* x, rlx_te_tensor_t** out) {
  if (get_int(x, "batch_dims", 0) != 0) return fail("topi.%s: batch_dims other than 0 is not supported", "take");
  return rlx_topi_take(x->ctx, x->t[0], x->t[1], attr(x, "axis") != NULL, get_int(x, "axis", 0),
                       get_str(x, "mode", "clip"), out);
}

/* TVM's nn.pad: pad_after defaults to pad_before; the compute is named name ("PadInput"). */
static RLX_MUST_USE rlx_status_t* a_nn_pad(const targs_t* x, rlx_te_tensor_t** out) {
  int nb, na;
  const int64_t* before = get_ints(x, "pad_before", &nb);
  const int64_t* after = get_ints(x, "pad_after", &na);
  if (na < 0) {
    after = before;
    na = nb;
  }
  int nd = rlx_te_tensor_ndim(x->t[0]);
  if (nb != nd || na != nd)
    return fail("topi.nn.pad: %s must have one entry per dimension of data", "pad_before and pad_after");
  bool any = false;
  for (int d = 0; d < nd; d++) {
    if (before[d] < 0 || after[d] < 0) return fail("topi.nn.pad: %s must be >= 0", "padding");
    if (before[d] > RLX_API_TOPI_LIMIT || after[d] > RLX_API_TOPI_LIMIT ||
        !dim_fits(x->t[0]->buffer->shape[d], 1, before[d] + after[d]))
      return fail("topi.nn.pad: %s is out of range", "padding");
    any = any || before[d] || after[d];
  }
  const char* name = get_str(x, "name", "PadInput");
  if (!any) { /* TVM still makes the (copying) compute */
    *out = rlx_te_compute(x->ctx, nd, x->t[0]->buffer->shape, copy_body, x->t[0], name, "injective,pad");
    return NULL;
  }
  rlx_expr_t* value = scalar_as(x->ctx, attr(x, "pad_value"), x->t[0]->buffer->dtype, 0.0);
  *out = rlx_topi_nn_pad(x->ctx, x->t[0], before, after, value, name);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* a_tile(const targs_t* x, rlx_te_tensor_t** out) {
  int n;
  const int64_t* reps = get_ints(x, "reps", &n);
  if (n < 0) return fail("topi.%s: reps is required", "tile");
  if (n > 32) return fail("topi.%s: more than 32 reps", "tile");
  int nd = rlx_te_tensor_ndim(x->t[0]);
  for (int i = 0; i < n; i++) {
    int d = nd - n + i; /* the dim this rep multiplies (reps are right-aligned) */
    if (reps[i] > 65536 || (d >= 0 && !dim_fits(x->t[0]->buffer->shape[d], reps[i], 0)))
      return fail("topi.%s: a repeat count is out of range (at most 65536, and the result must fit its dim)", "tile");
  }
  return rlx_topi_tile(x->ctx, x->t[0], n, reps, out);
}

static RLX_MUST_USE rlx_status_t* a_flip(const targs_t* x, rlx_te_tensor_t** out) {
  return rlx_topi_flip(x->ctx, x->t[0], get_int(x, "axis", 0), out);
}

/* TVM's cumsum: axis None sums over the flattened data; dtype None keeps data's. */
static RLX_MUST_USE rlx_status_t* a_cumsum(const targs_t* x, rlx_te_tensor_t** out) {
  rlx_te_tensor_t* t = x->t[0];
  if (!attr(x, "axis")) {
    rlx_expr_t* count = NULL;
    for (int d = 0; d < t->buffer->ndim; d++)
      count = count ? rlx_ir_mul(x->ctx, count, t->buffer->shape[d]) : t->buffer->shape[d];
    if (!count) count = rlx_ir_i64(x->ctx, 1);
    count = rlx_topi_simplify_dim(x->ctx, count);
    RLX_RETURN_IF_ERROR(rlx_topi_reshape(x->ctx, t, 1, &count, &t));
  }
  rlx_dtype_t dt = get_dtype(x, "dtype");
  return rlx_topi_cumsum(x->ctx, t, get_int(x, "axis", 0), rlx_dtype_is_void(dt) ? t->buffer->dtype : dt,
                         get_bool(x, "exclusive", false), out);
}

/* ------------------------------------------------------------------ the table */
static const topi_entry_t fixed[] = {
    {"cast", "x:t dtype:dtype", a_cast, 0, NULL},
    {"clip", "x:t a_min:float a_max:float", a_clip, 0, NULL},
    {"where", "condition:t x:t y:t", a_where, 0, NULL},
    {"broadcast_to", "data:t shape:ints", a_broadcast_to, 0, NULL},
    {"sum", "data:t axis:ints? keepdims:bool?", a_reduce, RLX_TOPI_REDUCE_SUM, NULL},
    {"max", "data:t axis:ints? keepdims:bool?", a_reduce, RLX_TOPI_REDUCE_MAX, NULL},
    {"min", "data:t axis:ints? keepdims:bool?", a_reduce, RLX_TOPI_REDUCE_MIN, NULL},
    {"prod", "data:t axis:ints? keepdims:bool?", a_reduce, RLX_TOPI_REDUCE_PROD, NULL},
    {"argmax", "data:t axis:ints? keepdims:bool?", a_reduce, RLX_TOPI_REDUCE_ARGMAX, NULL},
    {"argmin", "data:t axis:ints? keepdims:bool?", a_reduce, RLX_TOPI_REDUCE_ARGMIN, NULL},
    {"reshape", "a:t newshape:ints", a_reshape, 0, NULL},
    {"transpose", "a:t axes:ints?", a_transpose, 0, NULL},
    {"expand_dims", "a:t axis:int num_newaxis:int?", a_expand_dims, 0, NULL},
    {"squeeze", "a:t axis:ints?", a_squeeze, 0, NULL},
    {"concatenate", "a_tuple:ts axis:int?", a_concatenate, 0, NULL},
    {"split", "ary:t indices_or_sections:ints axis:int?", NULL, 0, a_split},
    {"strided_slice", "a:t begin:ints end:ints strides:ints? axes:ints? slice_mode:str? assume_inbound:bool?",
     a_strided_slice, 0, NULL},
    {"take", "a:t indices:t axis:int? batch_dims:int? mode:str?", a_take, 0, NULL},
    {"tile", "a:t reps:ints", a_tile, 0, NULL},
    {"flip", "a:t axis:int?", a_flip, 0, NULL},
    {"cumsum", "data:t axis:int? dtype:dtype? exclusive:bool?", a_cumsum, 0, NULL},
    {"nn.dense", "data:t weight:t bias:t? out_dtype:dtype?", a_dense, 0, NULL},
    {"nn.relu", "x:t", a_unary, RLX_TOPI_RELU, NULL},
    {"nn.softmax", "x:t axis:int?", a_softmax, 0, NULL},
    {"nn.log_softmax", "x:t axis:int?", a_log_softmax, 0, NULL},
    {"nn.pad", "data:t pad_before:ints pad_after:ints? pad_value:expr? name:str?", a_nn_pad, 0, NULL},
};

enum {
  N_FIXED = sizeof(fixed) / sizeof(fixed[0]),
  N_ALL = N_FIXED + RLX_API_TOPI_NN_COUNT + RLX_TOPI_UNARY_COUNT + RLX_TOPI_BINARY_COUNT
};
static topi_entry_t table[N_ALL];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void fill(void) {
  int k = 0;
  for (int i = 0; i < N_FIXED; i++) table[k++] = fixed[i];
  for (int i = 0; i < rlx_api_topi_nn_count; i++) table[k++] = rlx_api_topi_nn_entries[i];
  for (int i = 0; i < RLX_TOPI_UNARY_COUNT; i++)
    table[k++] = (topi_entry_t){rlx_topi_unary_name((rlx_topi_unary_t)i), "x:t", a_unary, i, NULL};
  for (int i = 0; i < RLX_TOPI_BINARY_COUNT; i++)
    table[k++] = (topi_entry_t){rlx_topi_binary_name((rlx_topi_binary_t)i), "lhs:te rhs:te", a_binary, i, NULL};
}

int rlx_topi_count(void) {
  pthread_once(&once, fill);
  return N_ALL;
}

const char* rlx_topi_name(int i) { return i >= 0 && i < rlx_topi_count() ? table[i].name : NULL; }

const char* rlx_topi_params(int i) { return i >= 0 && i < rlx_topi_count() ? table[i].params : NULL; }

bool rlx_topi_returns_list(int i) { return i >= 0 && i < rlx_topi_count() && table[i].multi != NULL; }

RLX_MUST_USE rlx_status_t* rlx_topi_call_multi(rlx_ctx_t* ctx, const char* name, int n_tensors,
                                               rlx_te_tensor_t* const* tensors, const rlx_attr_list_t* attrs,
                                               int* out_n, rlx_te_tensor_t*** out) {
  if (!ctx || !name || !out_n || !out || (n_tensors > 0 && !tensors))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "rlx_topi_call: NULL argument");
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
  /* every required tensor parameter needs its tensor (an optional one may be NULL) */
  int slot = 0;
  for (const char* p = e->params; !tuple && (p = strchr(p, ':')) != NULL; p++) {
    if (p[1] != 't') continue;
    bool required = p[2] == ' ' || p[2] == '\0'; /* "t", not "t?", "te" or "te?" */
    if (required && !tensors[slot]) return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.%s: tensor argument %d is missing", name, slot + 1);
    slot++;
  }
  targs_t x = {ctx, n_tensors, tensors, attrs ? &attrs->attrs : NULL, e->code};
  rlx_status_t* st = NULL;
  rlx_te_tensor_t* one = NULL;
  rlx_te_tensor_t** ts = NULL;
  int n = 0;
  if (e->multi) {
    st = e->multi(&x, &n, &ts);
  } else {
    st = e->fn(&x, &one);
    ts = &one;
    n = one ? 1 : 0;
  }
  if (st) { /* topi's messages mostly name the function already ("topi.split: ...") */
    const char* m = rlx_status_message(st);
    size_t k = strlen(name);
    if (strncmp(m, "topi.", 5) == 0 && strncmp(m + 5, name, k) == 0 && m[5 + k] == ':') return st;
    return rlx_status_annotate(st, "topi.%s", name);
  }
  if (!ts || n < 1) return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.%s: no result", name);
  if (!e->multi) {
    ts = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, 1);
    ts[0] = one;
  }
  *out_n = n;
  *out = ts;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_topi_call(rlx_ctx_t* ctx, const char* name, int n_tensors, rlx_te_tensor_t* const* tensors,
                                         const rlx_attr_list_t* attrs, rlx_te_tensor_t** out) {
  if (!out) return rlx_status_create(RLX_INVALID_ARGUMENT, "rlx_topi_call: NULL argument");
  int n = 0;
  rlx_te_tensor_t** ts = NULL;
  RLX_RETURN_IF_ERROR(rlx_topi_call_multi(ctx, name, n_tensors, tensors, attrs, &n, &ts));
  for (int i = 0; i < rlx_topi_count(); i++)
    if (strcmp(table[i].name, name) == 0 && table[i].multi)
      return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.%s returns a list of tensors: call rlx_topi_call_multi", name);
  *out = ts[0];
  return NULL;
}
