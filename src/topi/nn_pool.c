/* topi: pool2d (max / avg, padding, dilation, ceil_mode, count_include_pad) and
 * adaptive_pool2d over NCHW. See nn.h. */
#include "nn_internal.h"

typedef struct {
  rlx_te_tensor_t *x, *pad, *sum;
  rlx_topi_pool_kind_t kind;
  int nsp;
  int64_t k[3], s[3], d[3], pb[3], pa[3]; /* pads before / after (without the ceil extra) */
  bool include_pad;
  rlx_iter_var_t* r[3];
} pool_t;

static rlx_expr_t* I(rlx_ctx_t* ctx, int64_t v) { return rlx_ir_i64(ctx, v); }

static rlx_expr_t* pool_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  pool_t* p = user;
  rlx_expr_t* id[5] = {nn_v(idx[0]), nn_v(idx[1])};
  for (int k = 0; k < p->nsp; k++)
    id[2 + k] = rlx_ir_add(ctx, rlx_ir_mul(ctx, nn_i64(ctx, nn_v(idx[2 + k])), I(ctx, p->s[k])),
                           rlx_ir_mul(ctx, nn_v(p->r[k]->var), I(ctx, p->d[k])));
  rlx_expr_t* v = rlx_te_load(ctx, p->pad, p->nsp + 2, id);
  return p->kind == RLX_TOPI_POOL_MAX ? rlx_te_max(ctx, v, p->nsp, p->r) : rlx_te_sum(ctx, v, p->nsp, p->r);
}

/* Number of taps r in [0, k) with lo <= start + r * d <= hi (start = o * s - pad_head). */
static rlx_expr_t* taps(rlx_ctx_t* ctx, rlx_expr_t* o, int64_t s, int64_t pad_head, int64_t k, int64_t d,
                        rlx_expr_t* lo, rlx_expr_t* hi) {
  rlx_expr_t* start = rlx_ir_sub(ctx, rlx_ir_mul(ctx, o, I(ctx, s)), I(ctx, pad_head));
  /* first tap: ceil((lo - start) / d), at least 0; last: floor((hi - start) / d), at most k-1 */
  rlx_expr_t* first = rlx_ir_floordiv(ctx, rlx_ir_add(ctx, rlx_ir_sub(ctx, lo, start), I(ctx, d - 1)), I(ctx, d));
  first = rlx_ir_max(ctx, first, I(ctx, 0));
  rlx_expr_t* last = rlx_ir_min(ctx, rlx_ir_floordiv(ctx, rlx_ir_sub(ctx, hi, start), I(ctx, d)), I(ctx, k - 1));
  return rlx_ir_max(ctx, rlx_ir_add(ctx, rlx_ir_sub(ctx, last, first), I(ctx, 1)), I(ctx, 0));
}

static rlx_expr_t* avg_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  pool_t* p = user;
  rlx_expr_t* cnt = I(ctx, 1);
  for (int k = 0; k < p->nsp; k++) {
    rlx_expr_t* h = nn_i64(ctx, p->x->buffer->shape[2 + k]);
    rlx_expr_t *lo, *hi;
    if (p->include_pad) {
      lo = I(ctx, -p->pb[k]);
      hi = rlx_ir_add(ctx, h, I(ctx, p->pa[k] - 1));
    } else {
      lo = I(ctx, 0);
      hi = rlx_ir_sub(ctx, h, I(ctx, 1));
    }
    cnt = rlx_ir_mul(ctx, cnt, taps(ctx, nn_i64(ctx, nn_v(idx[2 + k])), p->s[k], p->pb[k], p->k[k], p->d[k], lo, hi));
  }
  cnt = rlx_ir_max(ctx, cnt, I(ctx, 1));
  rlx_expr_t* id[5];
  for (int d = 0; d < p->nsp + 2; d++) id[d] = nn_v(idx[d]);
  rlx_dtype_t dt = p->sum->buffer->dtype;
  return rlx_ir_div(ctx, rlx_te_load(ctx, p->sum, p->nsp + 2, id), rlx_ir_cast(ctx, dt, cnt));
}

RLX_MUST_USE rlx_status_t* rlx_topi_nn_pool(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_topi_pool_kind_t kind, int nsp,
                                            const int64_t* pool_size, const int64_t* strides, const int64_t* dilation,
                                            const int64_t* padding, bool ceil_mode, bool count_include_pad,
                                            rlx_te_tensor_t** out) {
  if (nsp < 1 || nsp > 3) return nn_fail("nn.pool: %d spatial dims (1 to 3 supported)", nsp);
  const char* op = rlx_ctx_sprintf(ctx, "nn.%s_pool%dd", kind == RLX_TOPI_POOL_MAX ? "max" : "avg", nsp);
  static const char* const layouts[4] = {"", "NCW", "NCHW", "NCDHW"};
  if (!x) return nn_fail("%s: NULL input", op);
  int nd = nsp + 2;
  if (x->buffer->ndim != nd)
    return nn_fail("%s: input must be %d-D (%s), got %s", op, nd, layouts[nsp], nn_shape_str(ctx, x));
  for (int i = 0; i < nsp; i++)
    if (pool_size[i] < 1 || strides[i] < 1 || dilation[i] < 1)
      return nn_fail("%s: pool_size, strides and dilation must be >= 1", op);
  for (int i = 0; i < 2 * nsp; i++)
    if (padding[i] < 0) return nn_fail("%s: padding must be >= 0", op);
  rlx_dtype_t dt = x->buffer->dtype;
  if (kind == RLX_TOPI_POOL_AVG && !rlx_dtype_is_float(dt))
    return nn_fail("%s: input dtype must be float, got %s", op, nn_dt(ctx, dt));
  pool_t* p = RLX_NEW(ctx, pool_t);
  p->x = x;
  p->kind = kind;
  p->nsp = nsp;
  p->include_pad = count_include_pad;
  int64_t before[5] = {0, 0}, after[5] = {0, 0};
  rlx_expr_t* shape[5] = {nn_i64(ctx, x->buffer->shape[0]), nn_i64(ctx, x->buffer->shape[1])};
  static const char* const rnames[3] = {"rv0", "rv1", "rv2"};
  for (int k = 0; k < nsp; k++) {
    p->k[k] = pool_size[k];
    p->s[k] = strides[k];
    p->d[k] = dilation[k];
    p->pb[k] = padding[k];
    p->pa[k] = padding[nsp + k];
    int64_t extra = ceil_mode ? strides[k] - 1 : 0;
    before[2 + k] = p->pb[k];
    after[2 + k] = p->pa[k] + extra;
    p->r[k] = rlx_te_reduce_axis(ctx, I(ctx, 0), I(ctx, p->k[k]), rnames[k]);
    shape[2 + k] =
        nn_out_dim(ctx, x->buffer->shape[2 + k], I(ctx, p->k[k]), p->pb[k] + p->pa[k], p->d[k], p->s[k], extra);
    int64_t v;
    if (rlx_expr_is_const_int(shape[2 + k], &v) && v < 1)
      return nn_fail("%s: window larger than the padded input %s", op, nn_shape_str(ctx, x));
  }
  rlx_expr_t* pad_value =
      kind == RLX_TOPI_POOL_MAX ? rlx_te_reduce_identity(ctx, RLX_REDUCE_MAX, dt) : rlx_ir_float(ctx, dt, 0.0);
  p->pad = rlx_topi_nn_pad(ctx, x, before, after, pad_value, "pad_temp");
  if (kind == RLX_TOPI_POOL_MAX) {
    *out = rlx_te_compute(ctx, nd, shape, pool_body, p, "pool_max", "pool_max");
    return NULL;
  }
  p->sum = rlx_te_compute(ctx, nd, shape, pool_body, p, "pool_sum", "pool_sum");
  *out = rlx_te_compute(ctx, nd, shape, avg_body, p, "pool_avg", "elemwise");
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_topi_nn_pool2d(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_topi_pool_kind_t kind,
                                              const int64_t pool_size[2], const int64_t strides[2],
                                              const int64_t dilation[2], const int64_t padding[4], bool ceil_mode,
                                              bool count_include_pad, rlx_te_tensor_t** out) {
  return rlx_topi_nn_pool(ctx, x, kind, 2, pool_size, strides, dilation, padding, ceil_mode, count_include_pad, out);
}

/* ---------------------------------------------------------------- adaptive pool */
typedef struct {
  int64_t o;      /* output extent */
  rlx_expr_t* in; /* input extent (int64) */
  int64_t fixed;  /* > 0: every window is [i*fixed, (i+1)*fixed) (or the whole input when o == 1) */
  int64_t kmax;   /* reduce extent when not fixed */
} adim_t;

typedef struct {
  rlx_te_tensor_t *x, *sum;
  rlx_topi_pool_kind_t kind;
  int nsp;
  adim_t a[3];
  rlx_iter_var_t* r[3];
} apool_t;

static rlx_expr_t* a_start(rlx_ctx_t* ctx, const adim_t* a, rlx_expr_t* i) {
  if (a->o == 1) return I(ctx, 0);
  if (a->fixed) return rlx_ir_mul(ctx, i, I(ctx, a->fixed));
  return rlx_ir_floordiv(ctx, rlx_ir_mul(ctx, i, a->in), I(ctx, a->o));
}

static rlx_expr_t* a_end(rlx_ctx_t* ctx, const adim_t* a, rlx_expr_t* i) {
  if (a->o == 1) return a->in;
  if (a->fixed) return rlx_ir_mul(ctx, rlx_ir_add(ctx, i, I(ctx, 1)), I(ctx, a->fixed));
  rlx_expr_t* num = rlx_ir_add(ctx, rlx_ir_mul(ctx, rlx_ir_add(ctx, i, I(ctx, 1)), a->in), I(ctx, a->o - 1));
  return rlx_ir_floordiv(ctx, num, I(ctx, a->o));
}

static rlx_expr_t* apool_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  apool_t* p = user;
  rlx_expr_t* id[5] = {nn_v(idx[0]), nn_v(idx[1])};
  rlx_expr_t* cond = NULL;
  for (int k = 0; k < p->nsp; k++) {
    const adim_t* a = &p->a[k];
    rlx_expr_t* o = nn_i64(ctx, nn_v(idx[2 + k]));
    rlx_expr_t* i = rlx_ir_add(ctx, a_start(ctx, a, o), nn_v(p->r[k]->var));
    if (!a->fixed && a->o != 1) {
      /* a tap beyond the window is clamped into the input and skipped by cond */
      rlx_expr_t* c = rlx_ir_cmp(ctx, RLX_EXPR_LT, i, a_end(ctx, a, o));
      cond = cond ? rlx_ir_and(ctx, cond, c) : c;
      i = rlx_ir_min(ctx, i, rlx_ir_sub(ctx, a->in, I(ctx, 1)));
    }
    id[2 + k] = i;
  }
  return rlx_te_reduce(ctx, p->kind == RLX_TOPI_POOL_MAX ? RLX_REDUCE_MAX : RLX_REDUCE_SUM,
                       rlx_te_load(ctx, p->x, p->nsp + 2, id), p->nsp, p->r, cond);
}

static rlx_expr_t* aavg_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  apool_t* p = user;
  rlx_expr_t* cnt = I(ctx, 1);
  rlx_expr_t* id[5] = {nn_v(idx[0]), nn_v(idx[1])};
  for (int k = 0; k < p->nsp; k++) {
    rlx_expr_t* o = nn_i64(ctx, nn_v(idx[2 + k]));
    cnt = rlx_ir_mul(ctx, cnt, rlx_ir_sub(ctx, a_end(ctx, &p->a[k], o), a_start(ctx, &p->a[k], o)));
    id[2 + k] = o;
  }
  rlx_dtype_t dt = p->sum->buffer->dtype;
  return rlx_ir_div(ctx, rlx_te_load(ctx, p->sum, p->nsp + 2, id), rlx_ir_cast(ctx, dt, cnt));
}

/* Window layout of one dim; false when it cannot be built (symbolic input, output > 1). */
static bool adim_init(adim_t* a, rlx_ctx_t* ctx, rlx_expr_t* in, int64_t o) {
  a->o = o;
  a->in = nn_i64(ctx, in);
  a->fixed = 0;
  int64_t n;
  if (o == 1) {
    a->kmax = 0;
    return true;
  }
  if (!rlx_expr_is_const_int(in, &n)) return false;
  if (n % o == 0) {
    a->fixed = n / o;
    return true;
  }
  a->kmax = 1;
  for (int64_t i = 0; i < o; i++) {
    int64_t s = i * n / o, e = ((i + 1) * n + o - 1) / o;
    if (e - s > a->kmax) a->kmax = e - s;
  }
  return true;
}

static rlx_iter_var_t* adim_axis(rlx_ctx_t* ctx, const adim_t* a, const char* name) {
  rlx_expr_t* ext = a->o == 1 ? a->in : I(ctx, a->fixed ? a->fixed : a->kmax);
  return rlx_te_reduce_axis(ctx, I(ctx, 0), ext, name);
}

RLX_MUST_USE rlx_status_t* rlx_topi_nn_adaptive_pool(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_topi_pool_kind_t kind,
                                                     int nsp, const int64_t* out_size, rlx_te_tensor_t** out) {
  if (nsp < 1 || nsp > 3) return nn_fail("nn.adaptive_pool: %d spatial dims (1 to 3 supported)", nsp);
  const char* op = rlx_ctx_sprintf(ctx, "nn.adaptive_%s_pool%dd", kind == RLX_TOPI_POOL_MAX ? "max" : "avg", nsp);
  if (!x) return nn_fail("%s: NULL input", op);
  int nd = nsp + 2;
  if (x->buffer->ndim != nd) return nn_fail("%s: input must be %d-D, got %s", op, nd, nn_shape_str(ctx, x));
  rlx_dtype_t dt = x->buffer->dtype;
  if (kind == RLX_TOPI_POOL_AVG && !rlx_dtype_is_float(dt))
    return nn_fail("%s: input dtype must be float, got %s", op, nn_dt(ctx, dt));
  apool_t* p = RLX_NEW(ctx, apool_t);
  p->x = x;
  p->kind = kind;
  p->nsp = nsp;
  rlx_expr_t* shape[5] = {nn_i64(ctx, x->buffer->shape[0]), nn_i64(ctx, x->buffer->shape[1])};
  static const char* const rnames[3] = {"rv0", "rv1", "rv2"};
  for (int k = 0; k < nsp; k++) {
    if (out_size[k] < 1) return nn_fail("%s: output size must be >= 1", op);
    if (!adim_init(&p->a[k], ctx, x->buffer->shape[2 + k], out_size[k]))
      return nn_fail("%s: a symbolic input size %s needs output size 1 on that dim", op, nn_shape_str(ctx, x));
    p->r[k] = adim_axis(ctx, &p->a[k], rnames[k]);
    shape[2 + k] = I(ctx, out_size[k]);
  }
  if (kind == RLX_TOPI_POOL_MAX) {
    *out = rlx_te_compute(ctx, nd, shape, apool_body, p, "adaptive_pool_max", "adaptive_pool_max");
    return NULL;
  }
  p->sum = rlx_te_compute(ctx, nd, shape, apool_body, p, "adaptive_pool_sum", "adaptive_pool_sum");
  *out = rlx_te_compute(ctx, nd, shape, aavg_body, p, "adaptive_pool_avg", "elemwise");
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_topi_nn_adaptive_pool2d(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_topi_pool_kind_t kind,
                                                       int64_t out_h, int64_t out_w, rlx_te_tensor_t** out) {
  int64_t os[2] = {out_h, out_w};
  return rlx_topi_nn_adaptive_pool(ctx, x, kind, 2, os, out);
}
