/* topi: softmax, log_softmax, layer_norm, batch_norm. See nn.h. */
#include "nn_internal.h"

static rlx_expr_t* call1(rlx_ctx_t* ctx, const char* op, rlx_expr_t* a) {
  return rlx_ir_call(ctx, a->dtype, op, 1, &a);
}

/* ---------------------------------------------------------------- softmax family */
typedef struct {
  rlx_te_tensor_t *x, *max, *exp, *sum;
  int axis;
  rlx_iter_var_t* k;
} sm_t;

/* The index of x for reduced index idx (rank n-1) with k at axis. */
static rlx_expr_t** with_axis(rlx_ctx_t* ctx, rlx_var_t* const* idx, int n, int axis, rlx_expr_t* k) {
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0, o = 0; d < n; d++) ix[d] = d == axis ? k : nn_v(idx[o++]);
  return ix;
}

/* The reduced index (rank n-1) of full index idx (axis dropped). */
static rlx_expr_t** without_axis(rlx_ctx_t* ctx, rlx_var_t* const* idx, int n, int axis) {
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0, o = 0; d < n; d++)
    if (d != axis) ix[o++] = nn_v(idx[d]);
  return ix;
}

static rlx_expr_t** all_of(rlx_ctx_t* ctx, rlx_var_t* const* idx, int n) {
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) ix[d] = nn_v(idx[d]);
  return ix;
}

static rlx_expr_t* sm_max_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  sm_t* s = user;
  int n = s->x->buffer->ndim;
  return rlx_te_max(ctx, rlx_te_load(ctx, s->x, n, with_axis(ctx, idx, n, s->axis, nn_v(s->k->var))), 1, &s->k);
}

/* x[idx] - max[idx without axis] at a full index. */
static rlx_expr_t* shifted(rlx_ctx_t* ctx, sm_t* s, rlx_expr_t** full, rlx_expr_t** red) {
  int n = s->x->buffer->ndim;
  return rlx_ir_sub(ctx, rlx_te_load(ctx, s->x, n, full), rlx_te_load(ctx, s->max, n - 1, red));
}

static rlx_expr_t* sm_exp_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  sm_t* s = user;
  int n = s->x->buffer->ndim;
  return call1(ctx, "exp", shifted(ctx, s, all_of(ctx, idx, n), without_axis(ctx, idx, n, s->axis)));
}

static rlx_expr_t* sm_expsum_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  sm_t* s = user;
  int n = s->x->buffer->ndim;
  return rlx_te_sum(ctx, rlx_te_load(ctx, s->exp, n, with_axis(ctx, idx, n, s->axis, nn_v(s->k->var))), 1, &s->k);
}

static rlx_expr_t* sm_norm_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  sm_t* s = user;
  int n = s->x->buffer->ndim;
  return rlx_ir_div(ctx, rlx_te_load(ctx, s->exp, n, all_of(ctx, idx, n)),
                    rlx_te_load(ctx, s->sum, n - 1, without_axis(ctx, idx, n, s->axis)));
}

/* log-softmax: sum of exp(x - max) directly from x. */
static rlx_expr_t* lsm_expsum_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  sm_t* s = user;
  int n = s->x->buffer->ndim;
  rlx_expr_t** full = with_axis(ctx, idx, n, s->axis, nn_v(s->k->var));
  return rlx_te_sum(ctx, call1(ctx, "exp", shifted(ctx, s, full, all_of(ctx, idx, n - 1))), 1, &s->k);
}

static rlx_expr_t* lsm_norm_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  sm_t* s = user;
  int n = s->x->buffer->ndim;
  rlx_expr_t** red = without_axis(ctx, idx, n, s->axis);
  return rlx_ir_sub(ctx, shifted(ctx, s, all_of(ctx, idx, n), red),
                    call1(ctx, "log", rlx_te_load(ctx, s->sum, n - 1, red)));
}

/* Common checks and the max compute of softmax / log_softmax. */
static RLX_MUST_USE rlx_status_t* sm_begin(rlx_ctx_t* ctx, const char* op, rlx_te_tensor_t* x, int axis, sm_t** out) {
  if (!x) return nn_fail("%s: NULL input", op);
  int n = x->buffer->ndim;
  if (!rlx_dtype_is_float(x->buffer->dtype))
    return nn_fail("%s: input dtype must be float, got %s", op, nn_dt(ctx, x->buffer->dtype));
  int a = nn_norm_axis(axis, n);
  if (a < 0) return nn_fail("%s: axis %d is out of range for shape %s", op, axis, nn_shape_str(ctx, x));
  sm_t* s = RLX_NEW(ctx, sm_t);
  s->x = x;
  s->axis = a;
  rlx_expr_t* ext = x->buffer->shape[a];
  s->k = rlx_te_reduce_axis(ctx, rlx_ir_int(ctx, ext->dtype, 0), ext, "k");
  rlx_expr_t** red = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0, o = 0; d < n; d++)
    if (d != a) red[o++] = x->buffer->shape[d];
  s->max = rlx_te_compute(ctx, n - 1, red, sm_max_body, s, "T_softmax_maxelem", "");
  *out = s;
  return NULL;
}

static rlx_expr_t** reduced_shape(rlx_ctx_t* ctx, sm_t* s) { return s->max->buffer->shape; }

RLX_MUST_USE rlx_status_t* rlx_topi_nn_softmax(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int axis, rlx_te_tensor_t** out) {
  sm_t* s = NULL;
  RLX_RETURN_IF_ERROR(sm_begin(ctx, "nn.softmax", x, axis, &s));
  int n = x->buffer->ndim;
  s->exp = rlx_te_compute(ctx, n, x->buffer->shape, sm_exp_body, s, "T_softmax_exp", "");
  /* a fresh reduce axis per reduction: each compute owns its iter vars */
  rlx_expr_t* ext = x->buffer->shape[s->axis];
  s->k = rlx_te_reduce_axis(ctx, rlx_ir_int(ctx, ext->dtype, 0), ext, "k");
  s->sum = rlx_te_compute(ctx, n - 1, reduced_shape(ctx, s), sm_expsum_body, s, "T_softmax_expsum", "");
  *out = rlx_te_compute(ctx, n, x->buffer->shape, sm_norm_body, s, "T_softmax_norm", "softmax_output");
  rlx_te_tensor_set_attr(ctx, *out, "axis", rlx_ir_int(ctx, rlx_dt_int32(), s->axis));
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_topi_nn_log_softmax(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int axis,
                                                   rlx_te_tensor_t** out) {
  sm_t* s = NULL;
  RLX_RETURN_IF_ERROR(sm_begin(ctx, "nn.log_softmax", x, axis, &s));
  int n = x->buffer->ndim;
  rlx_expr_t* ext = x->buffer->shape[s->axis];
  s->k = rlx_te_reduce_axis(ctx, rlx_ir_int(ctx, ext->dtype, 0), ext, "k");
  s->sum = rlx_te_compute(ctx, n - 1, reduced_shape(ctx, s), lsm_expsum_body, s, "compute", "");
  *out = rlx_te_compute(ctx, n, x->buffer->shape, lsm_norm_body, s, "compute", "log_softmax_output");
  rlx_te_tensor_set_attr(ctx, *out, "axis", rlx_ir_int(ctx, rlx_dt_int32(), s->axis));
  return NULL;
}

/* ---------------------------------------------------------------- layer_norm */
typedef struct {
  rlx_te_tensor_t *x, *gamma, *beta, *sum, *sqsum;
  bool* is_red; /* per x dim */
  int n_red;
  rlx_iter_var_t** k;
  rlx_expr_t* count; /* product of the reduced extents, in x's dtype */
  double eps;
} ln_t;

/* x's index from the kept index idx and the reduce vars k. */
static rlx_expr_t** ln_full(rlx_ctx_t* ctx, ln_t* l, rlx_var_t* const* idx, rlx_iter_var_t** k) {
  int n = l->x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0, o = 0, r = 0; d < n; d++) ix[d] = l->is_red[d] ? nn_v(k[r++]->var) : nn_v(idx[o++]);
  return ix;
}

/* Split of a full index into the kept part and the reduced part. */
static void ln_split(rlx_ctx_t* ctx, ln_t* l, rlx_var_t* const* idx, rlx_expr_t*** kept, rlx_expr_t*** red) {
  int n = l->x->buffer->ndim;
  *kept = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  *red = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0, o = 0, r = 0; d < n; d++) {
    if (l->is_red[d]) (*red)[r++] = nn_v(idx[d]);
    else (*kept)[o++] = nn_v(idx[d]);
  }
}

static rlx_iter_var_t** ln_axes(rlx_ctx_t* ctx, ln_t* l) {
  rlx_iter_var_t** k = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, l->n_red);
  int n = l->x->buffer->ndim;
  for (int d = 0, r = 0; d < n; d++)
    if (l->is_red[d]) {
      rlx_expr_t* ext = l->x->buffer->shape[d];
      k[r] = rlx_te_reduce_axis(ctx, rlx_ir_int(ctx, ext->dtype, 0), ext, rlx_ctx_sprintf(ctx, "k%d", r));
      r++;
    }
  return k;
}

static rlx_expr_t* ln_sum_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  ln_t* l = user;
  l->k = ln_axes(ctx, l);
  rlx_expr_t* x = rlx_te_load(ctx, l->x, l->x->buffer->ndim, ln_full(ctx, l, idx, l->k));
  return rlx_te_sum(ctx, x, l->n_red, l->k);
}

static rlx_expr_t* ln_mean(rlx_ctx_t* ctx, ln_t* l, rlx_expr_t** kept) {
  int nk = l->x->buffer->ndim - l->n_red;
  return rlx_ir_div(ctx, rlx_te_load(ctx, l->sum, nk, kept), l->count);
}

static rlx_expr_t* ln_sqsum_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  ln_t* l = user;
  int nk = l->x->buffer->ndim - l->n_red;
  l->k = ln_axes(ctx, l);
  rlx_expr_t* x = rlx_te_load(ctx, l->x, l->x->buffer->ndim, ln_full(ctx, l, idx, l->k));
  rlx_expr_t* dev = rlx_ir_sub(ctx, x, ln_mean(ctx, l, all_of(ctx, idx, nk)));
  return rlx_te_sum(ctx, rlx_ir_mul(ctx, dev, dev), l->n_red, l->k);
}

static rlx_expr_t* ln_out_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  ln_t* l = user;
  int n = l->x->buffer->ndim, nk = n - l->n_red;
  rlx_dtype_t dt = l->x->buffer->dtype;
  rlx_expr_t **kept, **red;
  ln_split(ctx, l, idx, &kept, &red);
  rlx_expr_t* var = rlx_ir_div(ctx, rlx_te_load(ctx, l->sqsum, nk, kept), l->count);
  rlx_expr_t* den = call1(ctx, "sqrt", rlx_ir_add(ctx, var, rlx_ir_float(ctx, dt, l->eps)));
  rlx_expr_t* v =
      rlx_ir_div(ctx, rlx_ir_sub(ctx, rlx_te_load(ctx, l->x, n, all_of(ctx, idx, n)), ln_mean(ctx, l, kept)), den);
  if (l->gamma) v = rlx_ir_mul(ctx, v, rlx_te_load(ctx, l->gamma, l->n_red, red));
  if (l->beta) v = rlx_ir_add(ctx, v, rlx_te_load(ctx, l->beta, l->n_red, red));
  return v;
}

/* gamma / beta must have the reduced dims' shape. */
static bool ln_param_ok(rlx_ctx_t* ctx, ln_t* l, rlx_te_tensor_t* p) {
  if (!p) return true;
  if (p->buffer->ndim != l->n_red || !rlx_dtype_eq(p->buffer->dtype, l->x->buffer->dtype)) return false;
  for (int d = 0, r = 0; d < l->x->buffer->ndim; d++)
    if (l->is_red[d] &&
        !rlx_ir_prove_equal(ctx, nn_i64(ctx, p->buffer->shape[r++]), nn_i64(ctx, l->x->buffer->shape[d])))
      return false;
  return true;
}

/* Common setup of layer_norm / rms_norm: axes, count, kept shape. */
static RLX_MUST_USE rlx_status_t* ln_begin(rlx_ctx_t* ctx, const char* op, rlx_te_tensor_t* x, int n_axes,
                                           const int* axes, double eps, rlx_expr_t*** out_kept, ln_t** out) {
  if (!x) return nn_fail("%s: NULL input", op);
  int n = x->buffer->ndim;
  if (!rlx_dtype_is_float(x->buffer->dtype))
    return nn_fail("%s: input dtype must be float, got %s", op, nn_dt(ctx, x->buffer->dtype));
  if (n_axes < 1) return nn_fail("%s: no axes given", op);
  ln_t* l = RLX_NEW(ctx, ln_t);
  l->x = x;
  l->eps = eps;
  l->is_red = RLX_NEW_ARRAY(ctx, bool, n);
  for (int i = 0; i < n_axes; i++) {
    int a = nn_norm_axis(axes[i], n);
    if (a < 0 || l->is_red[a])
      return nn_fail("%s: axis %d is out of range or repeated for shape %s", op, axes[i], nn_shape_str(ctx, x));
    l->is_red[a] = true;
  }
  l->n_red = n_axes;
  rlx_expr_t* cnt = rlx_ir_i64(ctx, 1);
  rlx_expr_t** kept = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0, o = 0; d < n; d++) {
    if (l->is_red[d]) cnt = rlx_ir_mul(ctx, cnt, nn_i64(ctx, x->buffer->shape[d]));
    else kept[o++] = x->buffer->shape[d];
  }
  l->count = rlx_ir_cast(ctx, x->buffer->dtype, rlx_ir_simplify(ctx, cnt));
  *out_kept = kept;
  *out = l;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_topi_nn_layer_norm(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* gamma,
                                                  rlx_te_tensor_t* beta, int n_axes, const int* axes, double epsilon,
                                                  rlx_te_tensor_t** out) {
  rlx_expr_t** kept = NULL;
  ln_t* l;
  RLX_RETURN_IF_ERROR(ln_begin(ctx, "nn.layer_norm", x, n_axes, axes, epsilon, &kept, &l));
  if (!ln_param_ok(ctx, l, gamma) || !ln_param_ok(ctx, l, beta))
    return nn_fail("nn.layer_norm: gamma %s / beta %s must have the normalized dims of %s and its dtype",
                   gamma ? nn_shape_str(ctx, gamma) : "None", beta ? nn_shape_str(ctx, beta) : "None",
                   nn_shape_str(ctx, x));
  l->gamma = gamma;
  l->beta = beta;
  int n = x->buffer->ndim;
  l->sum = rlx_te_compute(ctx, n - n_axes, kept, ln_sum_body, l, "T_layer_norm_sum", "");
  l->sqsum = rlx_te_compute(ctx, n - n_axes, kept, ln_sqsum_body, l, "T_layer_norm_sqsum", "");
  *out = rlx_te_compute(ctx, n, x->buffer->shape, ln_out_body, l, "T_layer_norm", "injective");
  return NULL;
}

/* ---------------------------------------------------------------- batch_norm */
typedef struct {
  rlx_te_tensor_t *x, *gamma, *beta, *mean, *var;
  int axis;
  double eps;
} bn_t;

static rlx_expr_t* bn_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  bn_t* b = user;
  int n = b->x->buffer->ndim;
  rlx_dtype_t dt = b->x->buffer->dtype;
  rlx_expr_t* c = nn_v(idx[b->axis]);
  rlx_expr_t* var = rlx_ir_add(ctx, rlx_te_load(ctx, b->var, 1, &c), rlx_ir_float(ctx, dt, b->eps));
  rlx_expr_t* v = rlx_ir_sub(ctx, rlx_te_load(ctx, b->x, n, all_of(ctx, idx, n)), rlx_te_load(ctx, b->mean, 1, &c));
  v = rlx_ir_div(ctx, v, call1(ctx, "sqrt", var));
  if (b->gamma) v = rlx_ir_mul(ctx, v, rlx_te_load(ctx, b->gamma, 1, &c));
  if (b->beta) v = rlx_ir_add(ctx, v, rlx_te_load(ctx, b->beta, 1, &c));
  return v;
}

RLX_MUST_USE rlx_status_t* rlx_topi_nn_batch_norm(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* gamma,
                                                  rlx_te_tensor_t* beta, rlx_te_tensor_t* mean, rlx_te_tensor_t* var,
                                                  int axis, double epsilon, rlx_te_tensor_t** out) {
  if (!x || !mean || !var) return nn_fail("nn.batch_norm: NULL input");
  int n = x->buffer->ndim;
  if (!rlx_dtype_is_float(x->buffer->dtype))
    return nn_fail("nn.batch_norm: input dtype must be float, got %s", nn_dt(ctx, x->buffer->dtype));
  int a = nn_norm_axis(axis, n);
  if (a < 0) return nn_fail("nn.batch_norm: axis %d is out of range for shape %s", axis, nn_shape_str(ctx, x));
  rlx_te_tensor_t* ps[4] = {gamma, beta, mean, var};
  for (int i = 0; i < 4; i++) {
    rlx_te_tensor_t* p = ps[i];
    if (p && (p->buffer->ndim != 1 ||
              !rlx_ir_prove_equal(ctx, nn_i64(ctx, p->buffer->shape[0]), nn_i64(ctx, x->buffer->shape[a])) ||
              !rlx_dtype_eq(p->buffer->dtype, x->buffer->dtype)))
      return nn_fail("nn.batch_norm: parameter %s must be 1-D of extent %s (axis %d of %s) and dtype %s",
                     nn_shape_str(ctx, p), nn_dim_str(ctx, x->buffer->shape[a]), a, nn_shape_str(ctx, x),
                     nn_dt(ctx, x->buffer->dtype));
  }
  bn_t* b = RLX_NEW(ctx, bn_t);
  b->x = x;
  b->gamma = gamma;
  b->beta = beta;
  b->mean = mean;
  b->var = var;
  b->axis = a;
  b->eps = epsilon;
  *out = rlx_te_compute(ctx, n, x->buffer->shape, bn_body, b, "T_batch_norm", "injective");
  return NULL;
}

/* ---------------------------------------------------------------- rms_norm */
static rlx_expr_t* rms_sqsum_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  ln_t* l = user;
  l->k = ln_axes(ctx, l);
  rlx_expr_t* x = rlx_te_load(ctx, l->x, l->x->buffer->ndim, ln_full(ctx, l, idx, l->k));
  return rlx_te_sum(ctx, rlx_ir_mul(ctx, x, x), l->n_red, l->k);
}

static rlx_expr_t* rms_out_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  ln_t* l = user;
  int n = l->x->buffer->ndim, nk = n - l->n_red;
  rlx_dtype_t dt = l->x->buffer->dtype;
  rlx_expr_t **kept, **red;
  ln_split(ctx, l, idx, &kept, &red);
  rlx_expr_t* ms = rlx_ir_div(ctx, rlx_te_load(ctx, l->sqsum, nk, kept), l->count);
  rlx_expr_t* den = call1(ctx, "sqrt", rlx_ir_add(ctx, ms, rlx_ir_float(ctx, dt, l->eps)));
  rlx_expr_t* v = rlx_ir_div(ctx, rlx_te_load(ctx, l->x, n, all_of(ctx, idx, n)), den);
  if (l->gamma) v = rlx_ir_mul(ctx, v, rlx_te_load(ctx, l->gamma, l->n_red, red));
  return v;
}

RLX_MUST_USE rlx_status_t* rlx_topi_nn_rms_norm(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* weight, int n_axes,
                                                const int* axes, double epsilon, rlx_te_tensor_t** out) {
  rlx_expr_t** kept = NULL;
  ln_t* l;
  RLX_RETURN_IF_ERROR(ln_begin(ctx, "nn.rms_norm", x, n_axes, axes, epsilon, &kept, &l));
  if (!ln_param_ok(ctx, l, weight))
    return nn_fail("nn.rms_norm: weight %s must have the normalized dims of %s and its dtype",
                   nn_shape_str(ctx, weight), nn_shape_str(ctx, x));
  l->gamma = weight;
  int n = x->buffer->ndim;
  l->sqsum = rlx_te_compute(ctx, n - n_axes, kept, rms_sqsum_body, l, "T_rms_norm_sqsum", "");
  *out = rlx_te_compute(ctx, n, x->buffer->shape, rms_out_body, l, "T_rms_norm", "injective");
  return NULL;
}

/* ---------------------------------------------------------------- group_norm */
typedef struct {
  rlx_te_tensor_t *x, *gamma, *beta, *sum, *sqsum;
  bool* is_red; /* per x dim: one of axes */
  int ca, n_red;
  rlx_expr_t* cg; /* channels per group (int64) */
  rlx_expr_t* count;
  rlx_iter_var_t** k; /* [0] = channel in group, then one per axis */
  double eps;
} gn_t;

static rlx_iter_var_t** gn_axes(rlx_ctx_t* ctx, gn_t* g) {
  rlx_iter_var_t** k = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, g->n_red + 1);
  k[0] = rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), g->cg, "rc");
  for (int d = 0, r = 1; d < g->x->buffer->ndim; d++)
    if (g->is_red[d]) {
      k[r] = rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), nn_i64(ctx, g->x->buffer->shape[d]),
                                rlx_ctx_sprintf(ctx, "k%d", r));
      r++;
    }
  return k;
}

/* x's index from a stats index (the group at the channel position) and the reduce vars. */
static rlx_expr_t** gn_full(rlx_ctx_t* ctx, gn_t* g, rlx_var_t* const* idx) {
  int n = g->x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0, o = 0, r = 1; d < n; d++) {
    if (g->is_red[d]) ix[d] = nn_v(g->k[r++]->var);
    else if (d == g->ca)
      ix[d] = rlx_ir_add(ctx, rlx_ir_mul(ctx, nn_i64(ctx, nn_v(idx[o++])), g->cg), nn_v(g->k[0]->var));
    else ix[d] = nn_v(idx[o++]);
  }
  return ix;
}

/* The stats index of a full index. */
static rlx_expr_t** gn_stats_index(rlx_ctx_t* ctx, gn_t* g, rlx_var_t* const* idx) {
  int n = g->x->buffer->ndim;
  rlx_expr_t** s = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0, o = 0; d < n; d++)
    if (!g->is_red[d]) s[o++] = d == g->ca ? rlx_ir_floordiv(ctx, nn_i64(ctx, nn_v(idx[d])), g->cg) : nn_v(idx[d]);
  return s;
}

static rlx_iter_var_t** gn_all_axes(gn_t* g) { return g->k; }

static rlx_expr_t* gn_sum_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  gn_t* g = user;
  g->k = gn_axes(ctx, g);
  rlx_expr_t* x = rlx_te_load(ctx, g->x, g->x->buffer->ndim, gn_full(ctx, g, idx));
  return rlx_te_sum(ctx, x, g->n_red + 1, gn_all_axes(g));
}

static rlx_expr_t* gn_sqsum_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  gn_t* g = user;
  int ns = g->x->buffer->ndim - g->n_red;
  g->k = gn_axes(ctx, g);
  rlx_expr_t* x = rlx_te_load(ctx, g->x, g->x->buffer->ndim, gn_full(ctx, g, idx));
  rlx_expr_t* mean = rlx_ir_div(ctx, rlx_te_load(ctx, g->sum, ns, all_of(ctx, idx, ns)), g->count);
  rlx_expr_t* dev = rlx_ir_sub(ctx, x, mean);
  return rlx_te_sum(ctx, rlx_ir_mul(ctx, dev, dev), g->n_red + 1, gn_all_axes(g));
}

static rlx_expr_t* gn_out_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  gn_t* g = user;
  int n = g->x->buffer->ndim, ns = n - g->n_red;
  rlx_dtype_t dt = g->x->buffer->dtype;
  rlx_expr_t** si = gn_stats_index(ctx, g, idx);
  rlx_expr_t* mean = rlx_ir_div(ctx, rlx_te_load(ctx, g->sum, ns, si), g->count);
  rlx_expr_t* var = rlx_ir_div(ctx, rlx_te_load(ctx, g->sqsum, ns, si), g->count);
  rlx_expr_t* den = call1(ctx, "sqrt", rlx_ir_add(ctx, var, rlx_ir_float(ctx, dt, g->eps)));
  rlx_expr_t* v = rlx_ir_div(ctx, rlx_ir_sub(ctx, rlx_te_load(ctx, g->x, n, all_of(ctx, idx, n)), mean), den);
  rlx_expr_t* c = nn_v(idx[g->ca]);
  if (g->gamma) v = rlx_ir_mul(ctx, v, rlx_te_load(ctx, g->gamma, 1, &c));
  if (g->beta) v = rlx_ir_add(ctx, v, rlx_te_load(ctx, g->beta, 1, &c));
  return v;
}

RLX_MUST_USE rlx_status_t* rlx_topi_nn_group_norm(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* gamma,
                                                  rlx_te_tensor_t* beta, int64_t num_groups, int channel_axis,
                                                  int n_axes, const int* axes, double epsilon, rlx_te_tensor_t** out) {
  if (!x) return nn_fail("nn.group_norm: NULL input");
  int n = x->buffer->ndim;
  rlx_dtype_t dt = x->buffer->dtype;
  if (!rlx_dtype_is_float(dt)) return nn_fail("nn.group_norm: input dtype must be float, got %s", nn_dt(ctx, dt));
  int ca = nn_norm_axis(channel_axis, n);
  if (ca < 0)
    return nn_fail("nn.group_norm: channel_axis %d is out of range for shape %s", channel_axis, nn_shape_str(ctx, x));
  rlx_expr_t* C = nn_i64(ctx, x->buffer->shape[ca]);
  int64_t cv;
  if (num_groups < 1 || (rlx_expr_is_const_int(C, &cv) && cv % num_groups != 0))
    return nn_fail("nn.group_norm: %s channels are not divisible into %lld groups", nn_dim_str(ctx, C),
                   (long long)num_groups);
  gn_t* g = RLX_NEW(ctx, gn_t);
  g->x = x;
  g->ca = ca;
  g->eps = epsilon;
  g->is_red = RLX_NEW_ARRAY(ctx, bool, n);
  for (int i = 0; i < n_axes; i++) {
    int a = nn_norm_axis(axes[i], n);
    if (a < 0 || a == ca || g->is_red[a])
      return nn_fail("nn.group_norm: axis %d is out of range, repeated or the channel axis for shape %s", axes[i],
                     nn_shape_str(ctx, x));
    g->is_red[a] = true;
  }
  g->n_red = n_axes;
  g->cg = rlx_ir_simplify(ctx, rlx_ir_floordiv(ctx, C, rlx_ir_i64(ctx, num_groups)));
  rlx_expr_t* cnt = g->cg;
  rlx_expr_t** ss = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0, o = 0; d < n; d++) {
    if (g->is_red[d]) cnt = rlx_ir_mul(ctx, cnt, nn_i64(ctx, x->buffer->shape[d]));
    else ss[o++] = d == ca ? rlx_ir_i64(ctx, num_groups) : x->buffer->shape[d];
  }
  g->count = rlx_ir_cast(ctx, dt, rlx_ir_simplify(ctx, cnt));
  rlx_te_tensor_t* ps[2] = {gamma, beta};
  for (int i = 0; i < 2; i++)
    if (ps[i] && (ps[i]->buffer->ndim != 1 || !rlx_ir_prove_equal(ctx, nn_i64(ctx, ps[i]->buffer->shape[0]), C) ||
                  !rlx_dtype_eq(ps[i]->buffer->dtype, dt)))
      return nn_fail("nn.group_norm: %s %s must be 1-D of the channel extent %s and dtype %s", i ? "beta" : "gamma",
                     nn_shape_str(ctx, ps[i]), nn_dim_str(ctx, C), nn_dt(ctx, dt));
  g->gamma = gamma;
  g->beta = beta;
  g->sum = rlx_te_compute(ctx, n - n_axes, ss, gn_sum_body, g, "T_group_norm_sum", "");
  g->sqsum = rlx_te_compute(ctx, n - n_axes, ss, gn_sqsum_body, g, "T_group_norm_sqsum", "");
  *out = rlx_te_compute(ctx, n, x->buffer->shape, gn_out_body, g, "T_group_norm", "injective");
  return NULL;
}

/* ---------------------------------------------------------------- batch_norm, training form */
typedef struct {
  ln_t* l; /* statistics over every axis but the channel axis: sum and sqsum are (C,) */
  rlx_te_tensor_t *mean, *var;
  int axis, which;
  double momentum;
} bnt_t;

static rlx_expr_t* bnt_out_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  bnt_t* b = user;
  ln_t* l = b->l;
  int n = l->x->buffer->ndim;
  rlx_dtype_t dt = l->x->buffer->dtype;
  rlx_expr_t* c = nn_v(idx[b->axis]);
  rlx_expr_t* mean = rlx_ir_div(ctx, rlx_te_load(ctx, l->sum, 1, &c), l->count);
  rlx_expr_t* var = rlx_ir_div(ctx, rlx_te_load(ctx, l->sqsum, 1, &c), l->count);
  rlx_expr_t* v = rlx_ir_sub(ctx, rlx_te_load(ctx, l->x, n, all_of(ctx, idx, n)), mean);
  v = rlx_ir_div(ctx, v, call1(ctx, "sqrt", rlx_ir_add(ctx, var, rlx_ir_float(ctx, dt, l->eps))));
  if (l->gamma) v = rlx_ir_mul(ctx, v, rlx_te_load(ctx, l->gamma, 1, &c));
  if (l->beta) v = rlx_ir_add(ctx, v, rlx_te_load(ctx, l->beta, 1, &c));
  return v;
}

/* (1 - momentum) * moving + momentum * batch statistic */
static rlx_expr_t* bnt_moving_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  bnt_t* b = user;
  ln_t* l = b->l;
  rlx_dtype_t dt = l->x->buffer->dtype;
  rlx_expr_t* c = nn_v(idx[0]);
  rlx_expr_t* stat = rlx_ir_div(ctx, rlx_te_load(ctx, b->which == 1 ? l->sum : l->sqsum, 1, &c), l->count);
  rlx_expr_t* old = rlx_te_load(ctx, b->which == 1 ? b->mean : b->var, 1, &c);
  return rlx_ir_add(ctx, rlx_ir_mul(ctx, rlx_ir_float(ctx, dt, 1.0 - b->momentum), old),
                    rlx_ir_mul(ctx, rlx_ir_float(ctx, dt, b->momentum), stat));
}

RLX_MUST_USE rlx_status_t* rlx_topi_nn_batch_norm_train(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* gamma,
                                                        rlx_te_tensor_t* beta, rlx_te_tensor_t* mean,
                                                        rlx_te_tensor_t* var, int axis, double epsilon, double momentum,
                                                        int which, rlx_te_tensor_t** out) {
  /* the inference form checks the operands */
  rlx_te_tensor_t* checked;
  RLX_RETURN_IF_ERROR(rlx_topi_nn_batch_norm(ctx, x, gamma, beta, mean, var, axis, epsilon, &checked));
  if (which < 0 || which > 2) return nn_fail("nn.batch_norm: output %d of 3", which);
  int n = x->buffer->ndim, a = nn_norm_axis(axis, n);
  int axes[8], na = 0;
  if (n > 8) return nn_fail("nn.batch_norm: rank %d above 8", n);
  for (int d = 0; d < n; d++)
    if (d != a) axes[na++] = d;
  if (na == 0) return nn_fail("nn.batch_norm: training needs a dim besides the channel axis");
  rlx_expr_t** kept = NULL;
  ln_t* l;
  RLX_RETURN_IF_ERROR(ln_begin(ctx, "nn.batch_norm", x, na, axes, epsilon, &kept, &l));
  l->gamma = gamma;
  l->beta = beta;
  l->sum = rlx_te_compute(ctx, 1, kept, ln_sum_body, l, "T_batch_norm_sum", "");
  l->sqsum = rlx_te_compute(ctx, 1, kept, ln_sqsum_body, l, "T_batch_norm_sqsum", "");
  bnt_t* b = RLX_NEW(ctx, bnt_t);
  b->l = l;
  b->mean = mean;
  b->var = var;
  b->axis = a;
  b->which = which;
  b->momentum = momentum;
  if (which == 0)
    *out = rlx_te_compute(ctx, n, x->buffer->shape, bnt_out_body, b, "T_batch_norm", "injective");
  else
    *out = rlx_te_compute(ctx, 1, kept, bnt_moving_body, b, which == 1 ? "T_moving_mean" : "T_moving_var", "injective");
  return NULL;
}
