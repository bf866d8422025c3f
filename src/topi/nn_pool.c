/* topi: pool2d (max / avg, padding, dilation, ceil_mode, count_include_pad) and
 * adaptive_pool2d over NCHW. See nn.h. */
#include "nn_internal.h"

typedef struct {
  rlx_te_tensor_t *x, *pad, *sum;
  rlx_topi_pool_kind_t kind;
  int64_t kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  bool include_pad;
  rlx_iter_var_t *ry, *rx;
} pool_t;

static rlx_expr_t* I(rlx_ctx_t* ctx, int64_t v) { return rlx_ir_i64(ctx, v); }

static rlx_expr_t* pool_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  pool_t* p = user;
  rlx_expr_t* iy = rlx_ir_add(ctx, rlx_ir_mul(ctx, nn_v(idx[2]), I(ctx, p->sh)), rlx_ir_mul(ctx, nn_v(p->ry->var), I(ctx, p->dh)));
  rlx_expr_t* ix = rlx_ir_add(ctx, rlx_ir_mul(ctx, nn_v(idx[3]), I(ctx, p->sw)), rlx_ir_mul(ctx, nn_v(p->rx->var), I(ctx, p->dw)));
  rlx_expr_t* id[4] = {nn_v(idx[0]), nn_v(idx[1]), iy, ix};
  rlx_iter_var_t* axes[2] = {p->ry, p->rx};
  rlx_expr_t* v = rlx_te_load(ctx, p->pad, 4, id);
  return p->kind == RLX_TOPI_POOL_MAX ? rlx_te_max(ctx, v, 2, axes) : rlx_te_sum(ctx, v, 2, axes);
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
  rlx_expr_t *h = nn_i64(ctx, p->x->buffer->shape[2]), *w = nn_i64(ctx, p->x->buffer->shape[3]);
  rlx_expr_t *loh, *hih, *low, *hiw;
  if (p->include_pad) {
    loh = I(ctx, -p->pt);
    hih = rlx_ir_add(ctx, h, I(ctx, p->pb - 1));
    low = I(ctx, -p->pl);
    hiw = rlx_ir_add(ctx, w, I(ctx, p->pr - 1));
  } else {
    loh = low = I(ctx, 0);
    hih = rlx_ir_sub(ctx, h, I(ctx, 1));
    hiw = rlx_ir_sub(ctx, w, I(ctx, 1));
  }
  rlx_expr_t* ch = taps(ctx, nn_v(idx[2]), p->sh, p->pt, p->kh, p->dh, loh, hih);
  rlx_expr_t* cw = taps(ctx, nn_v(idx[3]), p->sw, p->pl, p->kw, p->dw, low, hiw);
  rlx_expr_t* cnt = rlx_ir_max(ctx, rlx_ir_mul(ctx, ch, cw), I(ctx, 1));
  rlx_expr_t* id[4] = {nn_v(idx[0]), nn_v(idx[1]), nn_v(idx[2]), nn_v(idx[3])};
  rlx_dtype_t dt = p->sum->buffer->dtype;
  return rlx_ir_div(ctx, rlx_te_load(ctx, p->sum, 4, id), rlx_ir_cast(ctx, dt, cnt));
}

rlx_te_tensor_t* rlx_topi_nn_pool2d(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_topi_pool_kind_t kind,
                                    const int64_t pool_size[2], const int64_t strides[2],
                                    const int64_t dilation[2], const int64_t padding[4], bool ceil_mode,
                                    bool count_include_pad, rlx_status_t** out_st) {
  const char* op = kind == RLX_TOPI_POOL_MAX ? "nn.max_pool2d" : "nn.avg_pool2d";
  if (!x) return nn_fail(out_st, "%s: NULL input", op);
  if (x->buffer->ndim != 4) return nn_fail(out_st, "%s: input must be 4-D (NCHW), got %s", op, nn_shape_str(ctx, x));
  for (int i = 0; i < 2; i++)
    if (pool_size[i] < 1 || strides[i] < 1 || dilation[i] < 1)
      return nn_fail(out_st, "%s: pool_size, strides and dilation must be >= 1", op);
  for (int i = 0; i < 4; i++)
    if (padding[i] < 0) return nn_fail(out_st, "%s: padding must be >= 0", op);
  rlx_dtype_t dt = x->buffer->dtype;
  if (kind == RLX_TOPI_POOL_AVG && !rlx_dtype_is_float(dt))
    return nn_fail(out_st, "%s: input dtype must be float, got %s", op, nn_dt(ctx, dt));
  pool_t* p = RLX_NEW(ctx, pool_t);
  p->x = x;
  p->kind = kind;
  p->kh = pool_size[0];
  p->kw = pool_size[1];
  p->sh = strides[0];
  p->sw = strides[1];
  p->dh = dilation[0];
  p->dw = dilation[1];
  p->pt = padding[0];
  p->pl = padding[1];
  p->pb = padding[2];
  p->pr = padding[3];
  p->include_pad = count_include_pad;
  int64_t eh = ceil_mode ? p->sh - 1 : 0, ew = ceil_mode ? p->sw - 1 : 0;
  int64_t before[4] = {0, 0, p->pt, p->pl}, after[4] = {0, 0, p->pb + eh, p->pr + ew};
  rlx_expr_t* pad_value = kind == RLX_TOPI_POOL_MAX ? rlx_te_reduce_identity(ctx, RLX_REDUCE_MAX, dt)
                                                    : rlx_ir_float(ctx, dt, 0.0);
  p->pad = rlx_topi_nn_pad(ctx, x, before, after, pad_value, "pad_temp");
  p->ry = rlx_te_reduce_axis(ctx, I(ctx, 0), I(ctx, p->kh), "rv0");
  p->rx = rlx_te_reduce_axis(ctx, I(ctx, 0), I(ctx, p->kw), "rv1");
  rlx_expr_t** xs = x->buffer->shape;
  rlx_expr_t* shape[4] = {nn_i64(ctx, xs[0]), nn_i64(ctx, xs[1]),
                          nn_out_dim(ctx, xs[2], I(ctx, p->kh), p->pt + p->pb, p->dh, p->sh, eh),
                          nn_out_dim(ctx, xs[3], I(ctx, p->kw), p->pl + p->pr, p->dw, p->sw, ew)};
  int64_t oh = 0, ow = 0;
  if ((rlx_expr_is_const_int(shape[2], &oh) && oh < 1) || (rlx_expr_is_const_int(shape[3], &ow) && ow < 1))
    return nn_fail(out_st, "%s: window larger than the padded input %s", op, nn_shape_str(ctx, x));
  if (kind == RLX_TOPI_POOL_MAX) return rlx_te_compute(ctx, 4, shape, pool_body, p, "pool_max", "pool_max");
  p->sum = rlx_te_compute(ctx, 4, shape, pool_body, p, "pool_sum", "pool_sum");
  return rlx_te_compute(ctx, 4, shape, avg_body, p, "pool_avg", "elemwise");
}

/* ---------------------------------------------------------------- adaptive pool */
typedef struct {
  int64_t o;         /* output extent */
  rlx_expr_t* in;    /* input extent (int64) */
  int64_t fixed;     /* > 0: every window is [i*fixed, (i+1)*fixed) (or the whole input when o == 1) */
  int64_t kmax;      /* reduce extent when not fixed */
} adim_t;

typedef struct {
  rlx_te_tensor_t *x, *sum;
  rlx_topi_pool_kind_t kind;
  adim_t h, w;
  rlx_iter_var_t *ry, *rx;
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
  rlx_expr_t* sy = a_start(ctx, &p->h, nn_v(idx[2]));
  rlx_expr_t* sx = a_start(ctx, &p->w, nn_v(idx[3]));
  rlx_expr_t* iy = rlx_ir_add(ctx, sy, nn_v(p->ry->var));
  rlx_expr_t* ix = rlx_ir_add(ctx, sx, nn_v(p->rx->var));
  rlx_expr_t* cond = NULL;
  if (!p->h.fixed && p->h.o != 1) cond = rlx_ir_cmp(ctx, RLX_EXPR_LT, iy, a_end(ctx, &p->h, nn_v(idx[2])));
  if (!p->w.fixed && p->w.o != 1) {
    rlx_expr_t* c = rlx_ir_cmp(ctx, RLX_EXPR_LT, ix, a_end(ctx, &p->w, nn_v(idx[3])));
    cond = cond ? rlx_ir_and(ctx, cond, c) : c;
  }
  /* a tap beyond the window is clamped into the input (and skipped by cond) */
  if (cond) {
    iy = rlx_ir_min(ctx, iy, rlx_ir_sub(ctx, p->h.in, I(ctx, 1)));
    ix = rlx_ir_min(ctx, ix, rlx_ir_sub(ctx, p->w.in, I(ctx, 1)));
  }
  rlx_expr_t* id[4] = {nn_v(idx[0]), nn_v(idx[1]), iy, ix};
  rlx_iter_var_t* axes[2] = {p->ry, p->rx};
  return rlx_te_reduce(ctx, p->kind == RLX_TOPI_POOL_MAX ? RLX_REDUCE_MAX : RLX_REDUCE_SUM, rlx_te_load(ctx, p->x, 4, id),
                       2, axes, cond);
}

static rlx_expr_t* aavg_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  apool_t* p = user;
  rlx_expr_t* ch = rlx_ir_sub(ctx, a_end(ctx, &p->h, nn_v(idx[2])), a_start(ctx, &p->h, nn_v(idx[2])));
  rlx_expr_t* cw = rlx_ir_sub(ctx, a_end(ctx, &p->w, nn_v(idx[3])), a_start(ctx, &p->w, nn_v(idx[3])));
  rlx_expr_t* id[4] = {nn_v(idx[0]), nn_v(idx[1]), nn_v(idx[2]), nn_v(idx[3])};
  rlx_dtype_t dt = p->sum->buffer->dtype;
  return rlx_ir_div(ctx, rlx_te_load(ctx, p->sum, 4, id), rlx_ir_cast(ctx, dt, rlx_ir_mul(ctx, ch, cw)));
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

rlx_te_tensor_t* rlx_topi_nn_adaptive_pool2d(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_topi_pool_kind_t kind,
                                             int64_t out_h, int64_t out_w, rlx_status_t** out_st) {
  const char* op = kind == RLX_TOPI_POOL_MAX ? "nn.adaptive_max_pool2d" : "nn.adaptive_avg_pool2d";
  if (!x) return nn_fail(out_st, "%s: NULL input", op);
  if (x->buffer->ndim != 4) return nn_fail(out_st, "%s: input must be 4-D (NCHW), got %s", op, nn_shape_str(ctx, x));
  if (out_h < 1 || out_w < 1) return nn_fail(out_st, "%s: output size must be >= 1", op);
  rlx_dtype_t dt = x->buffer->dtype;
  if (kind == RLX_TOPI_POOL_AVG && !rlx_dtype_is_float(dt))
    return nn_fail(out_st, "%s: input dtype must be float, got %s", op, nn_dt(ctx, dt));
  apool_t* p = RLX_NEW(ctx, apool_t);
  p->x = x;
  p->kind = kind;
  if (!adim_init(&p->h, ctx, x->buffer->shape[2], out_h) || !adim_init(&p->w, ctx, x->buffer->shape[3], out_w))
    return nn_fail(out_st, "%s: a symbolic input size %s needs output size 1 on that dim", op, nn_shape_str(ctx, x));
  p->ry = adim_axis(ctx, &p->h, "rv0");
  p->rx = adim_axis(ctx, &p->w, "rv1");
  rlx_expr_t* shape[4] = {nn_i64(ctx, x->buffer->shape[0]), nn_i64(ctx, x->buffer->shape[1]), I(ctx, out_h),
                          I(ctx, out_w)};
  if (kind == RLX_TOPI_POOL_MAX)
    return rlx_te_compute(ctx, 4, shape, apool_body, p, "adaptive_pool_max", "adaptive_pool_max");
  p->sum = rlx_te_compute(ctx, 4, shape, apool_body, p, "adaptive_pool_sum", "adaptive_pool_sum");
  return rlx_te_compute(ctx, 4, shape, aavg_body, p, "adaptive_pool_avg", "elemwise");
}
