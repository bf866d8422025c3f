/* topi reductions: sum, mean, max, min, prod, argmax, argmin (see basic.h). */
#include "basic.h"

RLX_MUST_USE rlx_status_t* rlx_topi_reduce_axes(const char* op, int ndim, int n_axes, const int64_t* axes, bool* mask) {
  for (int d = 0; d < ndim; d++) mask[d] = axes == NULL;
  if (!axes) return NULL;
  for (int i = 0; i < n_axes; i++) {
    int64_t a = axes[i];
    if (a < -ndim || a >= ndim)
      return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: axis %lld is out of range for a tensor of rank %d", op,
                               (long long)a, ndim);
    if (a < 0) a += ndim;
    if (mask[a]) return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: axis %lld is repeated", op, (long long)axes[i]);
    mask[a] = true;
  }
  return NULL;
}

typedef struct {
  rlx_topi_reduce_t op;
  rlx_te_tensor_t* x;
  const bool* mask;
  bool keepdims;
  int n_red;
  rlx_iter_var_t** rv;      /* one per reduced dim, in dim order */
  rlx_te_tensor_t* extreme; /* argmax/argmin: the max/min, shaped like the output */
  rlx_te_tensor_t* sum;     /* mean: the sum */
  rlx_expr_t* count;
} red_user_t;

/* x's index list for output indices idx: kept dims take idx, reduced dims the reduce vars. */
static rlx_expr_t** x_index(rlx_ctx_t* ctx, red_user_t* u, rlx_var_t* const* idx) {
  int n = u->x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  int o = 0, r = 0;
  for (int d = 0; d < n; d++) {
    if (u->mask[d]) {
      ix[d] = &u->rv[r++]->var->hdr;
      if (u->keepdims) o++;
    } else
      ix[d] = &idx[o++]->hdr;
  }
  return ix;
}

static rlx_expr_t* reduce_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  red_user_t* u = user;
  rlx_expr_t* v = rlx_te_load(ctx, u->x, u->x->buffer->ndim, x_index(ctx, u, idx));
  switch (u->op) {
    case RLX_TOPI_REDUCE_SUM:
    case RLX_TOPI_REDUCE_MEAN:
    case RLX_TOPI_REDUCE_ARGMAX: /* the first stage of argmax is a max */
      if (u->op == RLX_TOPI_REDUCE_ARGMAX) return rlx_te_max(ctx, v, u->n_red, u->rv);
      return rlx_te_sum(ctx, v, u->n_red, u->rv);
    case RLX_TOPI_REDUCE_MAX:
      return rlx_te_max(ctx, v, u->n_red, u->rv);
    case RLX_TOPI_REDUCE_MIN:
    case RLX_TOPI_REDUCE_ARGMIN:
      return rlx_te_min(ctx, v, u->n_red, u->rv);
    case RLX_TOPI_REDUCE_PROD:
      return rlx_te_reduce(ctx, RLX_REDUCE_PROD, v, u->n_red, u->rv, NULL);
  }
  return v;
}

/* Second stage of argmax/argmin: the smallest row-major position (over the reduced dims)
 * whose element equals the extreme. */
static rlx_expr_t* arg_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  red_user_t* u = user;
  rlx_expr_t* v = rlx_te_load(ctx, u->x, u->x->buffer->ndim, x_index(ctx, u, idx));
  int on = u->extreme->buffer->ndim;
  rlx_expr_t** oi = RLX_NEW_ARRAY(ctx, rlx_expr_t*, on);
  for (int d = 0; d < on; d++) oi[d] = &idx[d]->hdr;
  rlx_expr_t* m = rlx_te_load(ctx, u->extreme, on, oi);
  rlx_expr_t* pos = rlx_ir_i64(ctx, 0);
  for (int r = 0; r < u->n_red; r++) {
    rlx_expr_t* ext = rlx_ir_cast(ctx, rlx_dt_int64(), u->rv[r]->dom.extent);
    pos = rlx_ir_add(ctx, rlx_ir_mul(ctx, pos, ext), rlx_ir_cast(ctx, rlx_dt_int64(), &u->rv[r]->var->hdr));
  }
  return rlx_te_reduce(ctx, RLX_REDUCE_MIN, pos, u->n_red, u->rv, rlx_ir_cmp(ctx, RLX_EXPR_EQ, v, m));
}

static rlx_expr_t* mean_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  red_user_t* u = user;
  int on = u->sum->buffer->ndim;
  rlx_expr_t** oi = RLX_NEW_ARRAY(ctx, rlx_expr_t*, on);
  for (int d = 0; d < on; d++) oi[d] = &idx[d]->hdr;
  rlx_expr_t* s = rlx_te_load(ctx, u->sum, on, oi);
  return rlx_ir_div(ctx, s, rlx_ir_cast(ctx, s->dtype, u->count));
}

static const char* const reduce_names[] = {"sum", "mean", "max", "min", "prod", "argmax", "argmin"};

RLX_MUST_USE rlx_status_t* rlx_topi_reduce(rlx_ctx_t* ctx, rlx_topi_reduce_t op, rlx_te_tensor_t* x, int n_axes,
                                           const int64_t* axes, bool keepdims, rlx_te_tensor_t** out) {
  if (!x || (unsigned)op > RLX_TOPI_REDUCE_ARGMIN)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.reduce: bad op or NULL input");
  const char* opname = rlx_ctx_sprintf(ctx, "topi.%s", reduce_names[op]);
  int n = x->buffer->ndim;
  bool* mask = RLX_NEW_ARRAY(ctx, bool, n);
  RLX_RETURN_IF_ERROR(rlx_topi_reduce_axes(opname, n, n_axes, axes, mask));
  if (rlx_dtype_is_bool(x->buffer->dtype) && op != RLX_TOPI_REDUCE_MAX && op != RLX_TOPI_REDUCE_MIN)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: bool tensors are not supported", opname);
  red_user_t* u = RLX_NEW(ctx, red_user_t);
  u->op = op;
  u->x = x;
  u->mask = mask;
  u->keepdims = keepdims;
  u->rv = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, n);
  rlx_expr_t** oshape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  int on = 0;
  rlx_expr_t* count = rlx_ir_i64(ctx, 1);
  for (int d = 0; d < n; d++) {
    rlx_expr_t* dim = x->buffer->shape[d];
    if (mask[d]) {
      const char* nm = u->n_red == 0 ? "k" : rlx_ctx_sprintf(ctx, "k%d", u->n_red);
      u->rv[u->n_red++] = rlx_te_reduce_axis(ctx, rlx_ir_int(ctx, dim->dtype, 0), dim, nm);
      count = rlx_ir_mul(ctx, count, rlx_ir_cast(ctx, rlx_dt_int64(), dim));
      if (keepdims) oshape[on++] = rlx_ir_int(ctx, dim->dtype, 1);
    } else
      oshape[on++] = dim;
  }
  u->count = rlx_topi_simplify_dim(ctx, count);
  switch (op) {
    case RLX_TOPI_REDUCE_SUM:
    case RLX_TOPI_REDUCE_MAX:
    case RLX_TOPI_REDUCE_MIN:
    case RLX_TOPI_REDUCE_PROD:
      *out = rlx_te_compute(ctx, on, oshape, reduce_body, u, rlx_ctx_sprintf(ctx, "%s_red", reduce_names[op]),
                            "comm_reduce");
      return NULL;
    case RLX_TOPI_REDUCE_MEAN:
      u->sum = rlx_te_compute(ctx, on, oshape, reduce_body, u, "sum_red", "comm_reduce");
      *out = rlx_te_compute(ctx, on, oshape, mean_body, u, "T_divide", "elemwise");
      return NULL;
    case RLX_TOPI_REDUCE_ARGMAX:
    case RLX_TOPI_REDUCE_ARGMIN: {
      u->extreme = rlx_te_compute(ctx, on, oshape, reduce_body, u, op == RLX_TOPI_REDUCE_ARGMAX ? "max_red" : "min_red",
                                  "comm_reduce");
      /* fresh reduce vars for the second stage: a reduce var belongs to one compute */
      red_user_t* u2 = RLX_NEW(ctx, red_user_t);
      *u2 = *u;
      u2->rv = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, n);
      for (int r = 0; r < u->n_red; r++)
        u2->rv[r] = rlx_te_reduce_axis(ctx, u->rv[r]->dom.min, u->rv[r]->dom.extent, u->rv[r]->var->name);
      *out = rlx_te_compute(ctx, on, oshape, arg_body, u2, op == RLX_TOPI_REDUCE_ARGMAX ? "T_argmax" : "T_argmin",
                            "comm_reduce");
      return NULL;
    }
  }
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_topi_variance(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int n_axes, const int64_t* axes,
                                             bool keepdims, bool std, rlx_te_tensor_t** out) {
  if (!x || !rlx_dtype_is_float(x->buffer->dtype)) {
    char b[32];
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.%s: needs a float tensor, got %s", std ? "std" : "variance",
                             x ? rlx_dtype_str(x->buffer->dtype, b) : "NULL");
  }
  /* mean((x - mean(x, keepdims))^2), sqrt for std (TVM's topi.variance / std) */
  rlx_te_tensor_t *m, *d, *sq, *v;
  RLX_RETURN_IF_ERROR(rlx_topi_reduce(ctx, RLX_TOPI_REDUCE_MEAN, x, n_axes, axes, true, &m));
  RLX_RETURN_IF_ERROR(rlx_topi_binary(ctx, RLX_TOPI_SUBTRACT, x, m, &d));
  RLX_RETURN_IF_ERROR(rlx_topi_unary(ctx, RLX_TOPI_SQUARE, d, &sq));
  if (!std) return rlx_topi_reduce(ctx, RLX_TOPI_REDUCE_MEAN, sq, n_axes, axes, keepdims, out);
  RLX_RETURN_IF_ERROR(rlx_topi_reduce(ctx, RLX_TOPI_REDUCE_MEAN, sq, n_axes, axes, keepdims, &v));
  return rlx_topi_unary(ctx, RLX_TOPI_SQRT, v, out);
}
