/* ONNX converters of the "math" family (table in ops_math.c): reductions (Reduce*: axes as an
 * attribute in old opsets, as an optional input since opset 13 for ReduceSum and 18 for the
 * others; keepdims; noop_with_empty_axes), ArgMax/ArgMin (select_last_index), Softmax /
 * LogSoftmax / Hardmax (before opset 13 over the input coerced to 2-D at axis, after along
 * axis), CumSum (exclusive, reverse; a run-time axis selects among the sums along every
 * axis), Einsum (one TE reduction).
 *
 * The log reductions and L1/L2/SumSquare are compositions of Relax ops; LogSumExp subtracts
 * the (finite) maximum first so that it does not overflow. Hardmax (argmax, then a one-hot
 * compare) and ArgMax/ArgMin with select_last_index are TE functions.
 */
#include <string.h>

#include "../../topi/basic.h"
#include "ops_math_internal.h"

/* ------------------------------------------------------------------ reductions */
typedef enum { R_SUM, R_MEAN, R_MAX, R_MIN, R_PROD, R_L1, R_L2, R_LOG_SUM, R_LOG_SUM_EXP, R_SUM_SQUARE } reduce_t;

static const struct {
  const char* onnx;
  reduce_t kind;
} reduce_ops[] = {
    {"ReduceSum", R_SUM},       {"ReduceMean", R_MEAN},          {"ReduceMax", R_MAX},
    {"ReduceMin", R_MIN},       {"ReduceProd", R_PROD},          {"ReduceL1", R_L1},
    {"ReduceL2", R_L2},         {"ReduceLogSum", R_LOG_SUM},     {"ReduceLogSumExp", R_LOG_SUM_EXP},
    {"ReduceSumSquare", R_SUM_SQUARE},
};

/* relax reduction name(x) over axes (n_axes < 0 = all) with keepdims. */
static RLX_MUST_USE rlx_status_t* reduce_op(rlx_onnx_importer_t* im, rlx_op_id_t name, rlx_relax_expr_t* x, int n_axes,
                               int64_t* axes, bool keepdims, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_attrs_t a = n_axes >= 0 ? om_attrs(ctx, "axis", rlx_attr_ints(n_axes, axes), "keepdims", rlx_attr_bool(keepdims))
                              : om_attrs(ctx, "keepdims", rlx_attr_bool(keepdims), NULL, rlx_attr_int(0));
  return om_op(im, name, 1, &x, a, out);
}

rlx_status_t* om_convert_reduce(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                rlx_relax_expr_t** outputs) {
  int kind = -1;
  for (size_t i = 0; i < sizeof reduce_ops / sizeof reduce_ops[0]; i++)
    if (strcmp(reduce_ops[i].onnx, node->op_type) == 0) kind = (int)reduce_ops[i].kind;
  if (kind < 0) return rlx_onnx_error(node, "not a reduction");
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(om_tensor(node, inputs, 0, &x));
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  bool keepdims = rlx_onnx_attr_int(node, "keepdims", 1) != 0;
  bool noop = rlx_onnx_attr_int(node, "noop_with_empty_axes", 0) != 0;
  int n_axes = 0;
  int64_t* axes = NULL;
  rlx_sinfo_tensor_t* at = NULL;
  int64_t n0 = -1;
  if (node->n_inputs >= 2 && inputs[1]) RLX_RETURN_IF_ERROR(om_tensor(node, inputs, 1, &at));
  if (at && at->ndim == 1 && at->shape && rlx_expr_is_const_int(at->shape[0], &n0) && n0 == 0) {
    /* an empty axes tensor: its values are not needed even when it is a graph input */
  } else if (at) {
    rlx_onnx_tensor_t k;
    if (!rlx_onnx_const(im, inputs[1], &k) && strcmp(node->op_type, "ReduceSum") == 0)
      return rlx_onnx_reduce_sum_runtime(im, node, inputs, keepdims, &outputs[0]);
    RLX_RETURN_IF_ERROR(rlx_onnx_const_ints(im, node, 1, inputs[1], &axes, &n_axes));
  } else {
    const int64_t* a = NULL;
    int n = rlx_onnx_attr_ints(node, "axes", &a);
    if (n > 0) {
      axes = RLX_NEW_ARRAY(ctx, int64_t, n);
      memcpy(axes, a, sizeof(int64_t) * (size_t)n);
      n_axes = n;
    }
  }
  for (int i = 0; i < n_axes; i++) {
    RLX_RETURN_IF_ERROR(om_axis(node, axes[i], x->ndim, &axes[i]));
    for (int j = 0; j < i; j++)
      if (axes[j] == axes[i]) return rlx_onnx_error(node, "axis %lld is repeated", (long long)axes[i]);
  }
  bool reduce = !(n_axes == 0 && noop); /* no axes: all of them, or none with noop */
  int na = n_axes == 0 ? -1 : n_axes;
  rlx_relax_expr_t* v = inputs[0];
  rlx_op_id_t name = kind == R_MEAN ? RLX_OP_MEAN : kind == R_MAX ? RLX_OP_MAX : kind == R_MIN ? RLX_OP_MIN
                     : kind == R_PROD ? RLX_OP_PROD : RLX_OP_SUM;
  /* the square root and logarithms of int tensors are taken in float64 and cast back */
  bool via_f64 = !rlx_dtype_is_float(x->dtype) && (kind == R_L2 || kind == R_LOG_SUM || kind == R_LOG_SUM_EXP);
  if (via_f64) RLX_RETURN_IF_ERROR(om_astype(im, v, rlx_dt_float64(), &v));
  switch ((reduce_t)kind) {
    case R_SUM:
    case R_MEAN:
    case R_MAX:
    case R_MIN:
    case R_PROD:
      if (reduce) RLX_RETURN_IF_ERROR(reduce_op(im, name, v, na, axes, keepdims, &v));
      break;
    case R_L1:
      RLX_RETURN_IF_ERROR(om_op1(im, RLX_OP_ABS, v, &v));
      if (reduce) RLX_RETURN_IF_ERROR(reduce_op(im, name, v, na, axes, keepdims, &v));
      break;
    case R_L2:
    case R_SUM_SQUARE:
      RLX_RETURN_IF_ERROR(om_op2(im, RLX_OP_MULTIPLY, v, v, &v));
      if (reduce) RLX_RETURN_IF_ERROR(reduce_op(im, name, v, na, axes, keepdims, &v));
      if (kind == R_L2) RLX_RETURN_IF_ERROR(om_op1(im, RLX_OP_SQRT, v, &v));
      break;
    case R_LOG_SUM:
      if (reduce) RLX_RETURN_IF_ERROR(reduce_op(im, name, v, na, axes, keepdims, &v));
      RLX_RETURN_IF_ERROR(om_op1(im, RLX_OP_LOG, v, &v));
      break;
    case R_LOG_SUM_EXP: { /* m + log(sum(exp(x - m))), m = max(x) where finite, else 0 */
      if (!reduce) break;
      rlx_relax_expr_t *m, *fin, *zero, *s;
      RLX_RETURN_IF_ERROR(reduce_op(im, RLX_OP_MAX, v, na, axes, true, &m));
      RLX_RETURN_IF_ERROR(om_op1(im, RLX_OP_ISFINITE, m, &fin));
      RLX_RETURN_IF_ERROR(om_scalar(im, via_f64 ? rlx_dt_float64() : x->dtype, 0.0, &zero));
      rlx_relax_expr_t* wargs[3] = {fin, m, zero};
      rlx_attrs_t none = {0};
      RLX_RETURN_IF_ERROR(om_op(im, RLX_OP_WHERE, 3, wargs, none, &m));
      RLX_RETURN_IF_ERROR(om_op2(im, RLX_OP_SUBTRACT, v, m, &s));
      RLX_RETURN_IF_ERROR(om_op1(im, RLX_OP_EXP, s, &s));
      RLX_RETURN_IF_ERROR(reduce_op(im, RLX_OP_SUM, s, na, axes, keepdims, &s));
      RLX_RETURN_IF_ERROR(om_op1(im, RLX_OP_LOG, s, &s));
      if (!keepdims) {
        rlx_ctx_t* c = rlx_onnx_ctx(im);
        rlx_attrs_t sq = na < 0 ? (rlx_attrs_t){0}
                                : om_attrs(c, "axis", rlx_attr_ints(n_axes, axes), NULL, rlx_attr_int(0));
        RLX_RETURN_IF_ERROR(om_op(im, RLX_OP_SQUEEZE, 1, &m, sq, &m));
      }
      RLX_RETURN_IF_ERROR(om_op2(im, RLX_OP_ADD, s, m, &v));
      break;
    }
  }
  if (via_f64) RLX_RETURN_IF_ERROR(om_astype(im, v, x->dtype, &v));
  outputs[0] = v;
  return NULL;
}

/* ------------------------------------------------------------------ ArgMax, ArgMin */
/* select_last_index: the first extreme of x flipped along axis, counted from the end. */
typedef struct {
  int64_t axis;
  bool keepdims, is_min;
  const rlx_onnx_node_t* node; /* for messages */
  rlx_expr_t* last;            /* extent - 1, int64 */
  rlx_te_tensor_t* am;
} arg_last_t;

static rlx_expr_t* arg_last_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  arg_last_t* u = user;
  int nd = u->am->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, nd);
  for (int d = 0; d < nd; d++) ix[d] = &idx[d]->hdr;
  return rlx_ir_sub(ctx, u->last, rlx_ir_cast(ctx, rlx_dt_int64(), rlx_te_load(ctx, u->am, nd, ix)));
}

static RLX_MUST_USE rlx_status_t* te_arg_last(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                              rlx_te_tensor_t** out) {
  arg_last_t* u = user;
  rlx_te_tensor_t* f = NULL;
  rlx_status_t* st = rlx_topi_flip(ctx, in[0], u->axis, &f);
  if (!st)
    st = rlx_topi_reduce(ctx, u->is_min ? RLX_TOPI_REDUCE_ARGMIN : RLX_TOPI_REDUCE_ARGMAX, f, 1, &u->axis, u->keepdims,
                         &u->am);
  if (st) return rlx_status_annotate(st, "node '%s' (%s)", u->node->name, u->node->op_type);
  u->last = rlx_ir_sub(ctx, rlx_ir_cast(ctx, rlx_dt_int64(), in[0]->buffer->shape[u->axis]), rlx_ir_i64(ctx, 1));
  *out = rlx_te_compute(ctx, u->am->buffer->ndim, u->am->buffer->shape, arg_last_body, u, "T_arg_last", "injective");
  return NULL;
}

rlx_status_t* om_convert_arg(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                             rlx_relax_expr_t** outputs) {
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(om_tensor(node, inputs, 0, &x));
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  int64_t axis;
  RLX_RETURN_IF_ERROR(om_axis(node, rlx_onnx_attr_int(node, "axis", 0), x->ndim, &axis));
  bool keepdims = rlx_onnx_attr_int(node, "keepdims", 1) != 0;
  bool is_min = strcmp(node->op_type, "ArgMin") == 0;
  if (rlx_onnx_attr_int(node, "select_last_index", 0) != 0) {
    arg_last_t u = {axis, keepdims, is_min, node, NULL, NULL};
    return rlx_onnx_emit_te(im, te_arg_last, &u, 1, inputs, is_min ? "argmin_last" : "argmax_last", &outputs[0]);
  }
  rlx_relax_expr_t* v = inputs[0];
  return om_op(im, is_min ? RLX_OP_ARGMIN : RLX_OP_ARGMAX, 1, &v,
               om_attrs(ctx, "axis", rlx_attr_int(axis), "keepdims", rlx_attr_bool(keepdims)), &outputs[0]);
}

/* ------------------------------------------------------------------ Softmax, LogSoftmax, Hardmax */
typedef struct {
  int64_t axis;
  const rlx_onnx_node_t* node; /* for messages */
  rlx_te_tensor_t* x;
  rlx_te_tensor_t* am;
} hardmax_t;

static rlx_expr_t* hardmax_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  hardmax_t* u = user;
  int nd = u->x->buffer->ndim;
  rlx_expr_t** ai = RLX_NEW_ARRAY(ctx, rlx_expr_t*, nd);
  for (int d = 0; d < nd; d++) ai[d] = d == u->axis ? rlx_ir_int(ctx, idx[d]->hdr.dtype, 0) : &idx[d]->hdr;
  rlx_expr_t* m = rlx_ir_cast(ctx, rlx_dt_int64(), rlx_te_load(ctx, u->am, nd, ai));
  rlx_expr_t* i = rlx_ir_cast(ctx, rlx_dt_int64(), &idx[u->axis]->hdr);
  rlx_dtype_t t = u->x->buffer->dtype, f = rlx_dt_float64();
  return rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_EQ, i, m), rlx_ir_cast(ctx, t, rlx_ir_float(ctx, f, 1)),
                       rlx_ir_cast(ctx, t, rlx_ir_float(ctx, f, 0)));
}

static RLX_MUST_USE rlx_status_t* te_hardmax(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                             rlx_te_tensor_t** out) {
  hardmax_t* u = user;
  u->x = in[0];
  rlx_status_t* st = rlx_topi_reduce(ctx, RLX_TOPI_REDUCE_ARGMAX, in[0], 1, &u->axis, true, &u->am);
  if (st) return rlx_status_annotate(st, "node '%s' (%s)", u->node->name, u->node->op_type);
  *out = rlx_te_compute(ctx, in[0]->buffer->ndim, in[0]->buffer->shape, hardmax_body, u, "T_hardmax", "injective");
  return NULL;
}

/* The op of node along axis (normalized) of x. */
static RLX_MUST_USE rlx_status_t* softmax_along(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* x,
                                   int64_t axis, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  if (strcmp(node->op_type, "Hardmax") == 0) {
    hardmax_t u = {axis, node, NULL, NULL};
    return rlx_onnx_emit_te(im, te_hardmax, &u, 1, &x, "hardmax", out);
  }
  rlx_op_id_t name = strcmp(node->op_type, "LogSoftmax") == 0 ? RLX_OP_LOG_SOFTMAX : RLX_OP_SOFTMAX;
  return om_op(im, name, 1, &x, om_attrs(ctx, "axis", rlx_attr_int(axis), NULL, rlx_attr_int(0)), out);
}

static RLX_MUST_USE rlx_status_t* need_float(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_sinfo_tensor_t* x) {
  if (rlx_dtype_is_float(x->dtype)) return NULL;
  return rlx_onnx_error(node, "needs a float input, got %s", rlx_sinfo_str(rlx_onnx_ctx(im), &x->hdr));
}

/* Opsets < 13: x coerced to 2-D (dims before axis, dims from axis) and normalized along the
 * second; the result has x's shape. */
rlx_status_t* om_convert_softmax_legacy(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                        rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(om_tensor(node, inputs, 0, &x));
  RLX_RETURN_IF_ERROR(need_float(im, node, x));
  int64_t axis = rlx_onnx_attr_int(node, "axis", 1);
  if (axis < 0) axis += x->ndim;
  if (axis < 0 || axis > x->ndim)
    return rlx_onnx_error(node, "axis %lld is out of range for rank %d", (long long)rlx_onnx_attr_int(node, "axis", 1),
                          x->ndim);
  if (x->ndim == 2 && axis == 1) return softmax_along(im, node, inputs[0], 1, &outputs[0]);
  if (!x->shape) return rlx_onnx_error(node, "needs the input's shape");
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_expr_t* two[2] = {rlx_ir_i64(ctx, 1), rlx_ir_i64(ctx, 1)};
  for (int d = 0; d < x->ndim; d++) two[d < axis ? 0 : 1] = rlx_ir_mul(ctx, two[d < axis ? 0 : 1], x->shape[d]);
  for (int k = 0; k < 2; k++) two[k] = rlx_topi_simplify_dim(ctx, two[k]);
  rlx_relax_expr_t* v;
  RLX_RETURN_IF_ERROR(om_reshape(im, inputs[0], 2, two, &v));
  RLX_RETURN_IF_ERROR(softmax_along(im, node, v, 1, &v));
  return om_reshape(im, v, x->ndim, x->shape, &outputs[0]);
}

/* Opsets >= 13: along axis (default -1). */
rlx_status_t* om_convert_softmax(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                 rlx_relax_expr_t** outputs) {
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(om_tensor(node, inputs, 0, &x));
  RLX_RETURN_IF_ERROR(need_float(im, node, x));
  int64_t axis;
  RLX_RETURN_IF_ERROR(om_axis(node, rlx_onnx_attr_int(node, "axis", -1), x->ndim, &axis));
  return softmax_along(im, node, inputs[0], axis, &outputs[0]);
}

/* ------------------------------------------------------------------ CumSum */
/* Running sum of x along axis (flipped around it when reverse). */
static RLX_MUST_USE rlx_status_t* cumsum_along(rlx_onnx_importer_t* im, rlx_relax_expr_t* x, int64_t axis, bool exclusive,
                                  bool reverse, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_attrs_t flip = om_attrs(ctx, "axis", rlx_attr_int(axis), NULL, rlx_attr_int(0));
  rlx_relax_expr_t* v = x;
  if (reverse) RLX_RETURN_IF_ERROR(om_op(im, RLX_OP_FLIP, 1, &v, flip, &v));
  RLX_RETURN_IF_ERROR(
      om_op(im, RLX_OP_CUMSUM, 1, &v, om_attrs(ctx, "axis", rlx_attr_int(axis), "exclusive", rlx_attr_bool(exclusive)),
            &v));
  if (reverse) RLX_RETURN_IF_ERROR(om_op(im, RLX_OP_FLIP, 1, &v, flip, &v));
  *out = v;
  return NULL;
}

/* CumSum; the axis is usually a constant. When it is only known at run time (a graph input),
 * the sum along every axis is computed and the one the axis names is selected. */
rlx_status_t* om_convert_cumsum(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                rlx_relax_expr_t** outputs) {
  rlx_sinfo_tensor_t *x, *a;
  RLX_RETURN_IF_ERROR(om_tensor(node, inputs, 0, &x));
  RLX_RETURN_IF_ERROR(om_tensor(node, inputs, 1, &a));
  if (!rlx_dtype_is_int(a->dtype) || a->ndim > 1) return rlx_onnx_error(node, "input 1 (axis) must be an int scalar");
  if (x->ndim < 1) return rlx_onnx_error(node, "needs an input of rank >= 1");
  bool exclusive = rlx_onnx_attr_int(node, "exclusive", 0) != 0;
  bool reverse = rlx_onnx_attr_int(node, "reverse", 0) != 0;
  rlx_onnx_tensor_t k;
  if (rlx_onnx_const(im, inputs[1], &k)) {
    int64_t* av;
    int n;
    RLX_RETURN_IF_ERROR(rlx_onnx_const_ints(im, node, 1, inputs[1], &av, &n));
    if (n != 1) return rlx_onnx_error(node, "input 1 (axis) must hold one value, got %d", n);
    int64_t axis;
    RLX_RETURN_IF_ERROR(om_axis(node, av[0], x->ndim, &axis));
    return cumsum_along(im, inputs[0], axis, exclusive, reverse, &outputs[0]);
  }
  rlx_relax_expr_t* r = NULL;
  for (int d = x->ndim - 1; d >= 0; d--) {
    rlx_relax_expr_t *cs, *c0, *c1, *e0, *e1, *cond;
    RLX_RETURN_IF_ERROR(cumsum_along(im, inputs[0], d, exclusive, reverse, &cs));
    if (!r) { /* the last axis is the fallback */
      r = cs;
      continue;
    }
    RLX_RETURN_IF_ERROR(om_scalar(im, a->dtype, d, &c0));
    RLX_RETURN_IF_ERROR(om_scalar(im, a->dtype, d - x->ndim, &c1));
    RLX_RETURN_IF_ERROR(om_op2(im, RLX_OP_EQUAL, inputs[1], c0, &e0));
    RLX_RETURN_IF_ERROR(om_op2(im, RLX_OP_EQUAL, inputs[1], c1, &e1));
    RLX_RETURN_IF_ERROR(om_op2(im, RLX_OP_LOGICAL_OR, e0, e1, &cond));
    rlx_relax_expr_t* args[3] = {cond, cs, r};
    rlx_attrs_t none = {0};
    RLX_RETURN_IF_ERROR(om_op(im, RLX_OP_WHERE, 3, args, none, &r));
  }
  outputs[0] = r;
  return NULL;
}

/* ------------------------------------------------------------------ Einsum */
enum { EINSUM_MAX_IN = 8, EINSUM_MAX_DIMS = 16, EINSUM_ELLIPSIS = 128 };

typedef struct {
  int n_in;
  int ndim[EINSUM_MAX_IN];
  int labels[EINSUM_MAX_IN][EINSUM_MAX_DIMS]; /* letters; ellipsis dims are EINSUM_ELLIPSIS + k */
  int n_out;
  int out[EINSUM_MAX_DIMS];
  int n_red;
  int red[EINSUM_MAX_DIMS];
  rlx_expr_t* extent[256];
  rlx_iter_var_t* raxis[EINSUM_MAX_DIMS];
  rlx_te_tensor_t* const* in;
} einsum_t;

/* Letters in term [s, end) and whether it has an ellipsis. */
static int einsum_letters(const char* s, const char* end, bool* ell) {
  int n = 0;
  *ell = false;
  for (const char* q = s; q < end; q++) {
    n += (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z');
    *ell |= *q == '.';
  }
  return n;
}

/* Parses one term ("bij", "...ii") into labels; its ellipsis covers e dims, right-aligned
 * to the widest ellipsis n_ell. False on a bad character or too many dims. */
static bool einsum_term(const char* s, const char* end, int e, int n_ell, int* labels, int* out_n) {
  int n = 0;
  for (const char* p = s; p < end; p++) {
    if (*p == ' ') continue;
    if (*p == '.') {
      if (end - p < 3 || p[1] != '.' || p[2] != '.' || n + e > EINSUM_MAX_DIMS) return false;
      for (int k = 0; k < e; k++) labels[n++] = EINSUM_ELLIPSIS + (n_ell - e) + k;
      p += 2;
      continue;
    }
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) || n >= EINSUM_MAX_DIMS) return false;
    labels[n++] = *p;
  }
  *out_n = n;
  return true;
}

static rlx_expr_t* einsum_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  einsum_t* u = user;
  rlx_expr_t* where[256] = {0};
  for (int i = 0; i < u->n_out; i++) where[u->out[i]] = &idx[i]->hdr;
  for (int i = 0; i < u->n_red; i++) where[u->red[i]] = &u->raxis[i]->var->hdr;
  rlx_expr_t* prod = NULL;
  for (int t = 0; t < u->n_in; t++) {
    rlx_expr_t* ix[EINSUM_MAX_DIMS];
    for (int d = 0; d < u->ndim[t]; d++) ix[d] = where[u->labels[t][d]];
    rlx_expr_t* v = rlx_te_load(ctx, u->in[t], u->ndim[t], ix);
    prod = prod ? rlx_ir_mul(ctx, prod, v) : v;
  }
  return u->n_red ? rlx_te_sum(ctx, prod, u->n_red, u->raxis) : prod;
}

static RLX_MUST_USE rlx_status_t* te_einsum(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                            rlx_te_tensor_t** out) {
  einsum_t* u = user;
  u->in = in;
  for (int t = 0; t < n; t++)
    for (int d = 0; d < u->ndim[t]; d++)
      if (!u->extent[u->labels[t][d]]) u->extent[u->labels[t][d]] = in[t]->buffer->shape[d];
  rlx_expr_t* shape[EINSUM_MAX_DIMS];
  for (int i = 0; i < u->n_out; i++) shape[i] = u->extent[u->out[i]];
  for (int i = 0; i < u->n_red; i++) {
    rlx_expr_t* e = u->extent[u->red[i]];
    u->raxis[i] = rlx_te_reduce_axis(ctx, rlx_ir_int(ctx, e->dtype, 0), e, rlx_ctx_sprintf(ctx, "k%d", i));
  }
  *out = rlx_te_compute(ctx, u->n_out, shape, einsum_body, u, "T_einsum", u->n_red ? "comm_reduce" : "injective");
  return NULL;
}

/* Einsum: one TE compute over the output labels, summing the product of the inputs over the
 * other labels (a label repeated within a term reads a diagonal). Ellipses line up from the
 * right; dims under an ellipsis must match (no broadcasting of 1s). */
rlx_status_t* om_convert_einsum(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                rlx_relax_expr_t** outputs) {
  const char* eq = rlx_onnx_attr_string(node, "equation", NULL);
  if (!eq) return rlx_onnx_error(node, "needs the attribute 'equation'");
  if (node->n_inputs < 1 || node->n_inputs > EINSUM_MAX_IN)
    return rlx_onnx_error(node, "takes 1 to %d inputs, got %d", EINSUM_MAX_IN, node->n_inputs);
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  einsum_t* u = RLX_NEW(ctx, einsum_t);
  u->n_in = node->n_inputs;
  const char* arrow = strstr(eq, "->");
  const char* lhs_end = arrow ? arrow : eq + strlen(eq);
  int n_ell = 0, ell_dims[EINSUM_MAX_IN];
  const char *starts[EINSUM_MAX_IN], *ends[EINSUM_MAX_IN];
  rlx_dtype_t dtype = {0};
  const char* p = eq;
  for (int t = 0; t < u->n_in; t++) {
    rlx_sinfo_tensor_t* x;
    RLX_RETURN_IF_ERROR(om_tensor(node, inputs, t, &x));
    if (t == 0) dtype = x->dtype;
    else if (!rlx_dtype_eq(dtype, x->dtype)) return rlx_onnx_error(node, "inputs have different dtypes");
    if (!x->shape) return rlx_onnx_error(node, "input %d needs a known shape", t);
    const char* end = memchr(p, ',', (size_t)(lhs_end - p));
    if (!end) end = lhs_end;
    if ((t == u->n_in - 1) != (end == lhs_end))
      return rlx_onnx_error(node, "equation \"%s\" does not have one term per input (%d)", eq, u->n_in);
    bool ell;
    int letters = einsum_letters(p, end, &ell);
    ell_dims[t] = ell ? x->ndim - letters : 0;
    if (ell_dims[t] < 0 || (!ell && letters != x->ndim))
      return rlx_onnx_error(node, "term %d of \"%s\" does not fit input %d of rank %d", t, eq, t, x->ndim);
    if (ell_dims[t] > n_ell) n_ell = ell_dims[t];
    u->ndim[t] = x->ndim;
    starts[t] = p, ends[t] = end;
    p = end + 1;
  }
  for (int t = 0; t < u->n_in; t++) {
    int n = 0;
    if (!einsum_term(starts[t], ends[t], ell_dims[t], n_ell, u->labels[t], &n) || n != u->ndim[t])
      return rlx_onnx_error(node, "term %d of \"%s\" is malformed", t, eq);
  }
  int count[256] = {0};
  int64_t ext[256];
  for (int t = 0; t < u->n_in; t++) {
    rlx_sinfo_tensor_t* x = (rlx_sinfo_tensor_t*)inputs[t]->sinfo;
    for (int d = 0; d < u->ndim[t]; d++) {
      int l = u->labels[t][d];
      int64_t e = -1;
      if (!rlx_expr_is_const_int(x->shape[d], &e)) e = -1;
      if (count[l]++ == 0) ext[l] = e;
      else if (e >= 0 && ext[l] >= 0 && e != ext[l])
        return rlx_onnx_error(node, "label '%c' of \"%s\" has extents %lld and %lld (broadcasting is not supported)",
                              l < EINSUM_ELLIPSIS ? l : '.', eq, (long long)ext[l], (long long)e);
    }
  }
  if (arrow) {
    if (!einsum_term(arrow + 2, arrow + strlen(arrow), n_ell, n_ell, u->out, &u->n_out))
      return rlx_onnx_error(node, "bad output term in \"%s\"", eq);
    for (int i = 0; i < u->n_out; i++)
      if (!count[u->out[i]]) return rlx_onnx_error(node, "output label '%c' of \"%s\" is in no input", u->out[i], eq);
  } else { /* implicit: the ellipsis, then the labels used once, alphabetically */
    for (int k = 0; k < n_ell; k++) u->out[u->n_out++] = EINSUM_ELLIPSIS + k;
    for (int c = 'A'; c <= 'z'; c++)
      if (count[c] == 1 && u->n_out < EINSUM_MAX_DIMS) u->out[u->n_out++] = c;
  }
  bool in_out[256] = {0};
  for (int i = 0; i < u->n_out; i++) in_out[u->out[i]] = true;
  for (int c = 0; c < 256; c++)
    if (count[c] && !in_out[c] && u->n_red < EINSUM_MAX_DIMS) u->red[u->n_red++] = c;
  return rlx_onnx_emit_te(im, te_einsum, u, u->n_in, inputs, "einsum", &outputs[0]);
}
