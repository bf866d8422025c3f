/* topi: pad and conv2d (NCHW / OIHW, groups, dilation). See nn.h. */
#include <string.h>

#include "nn_internal.h"

typedef struct {
  rlx_te_tensor_t* x;
  const int64_t *before, *after;
  rlx_expr_t* value;
} pad_t;

static rlx_expr_t* pad_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  pad_t* p = user;
  int n = p->x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  rlx_expr_t* cond = NULL;
  for (int d = 0; d < n; d++) {
    rlx_expr_t* i = nn_v(idx[d]);
    rlx_expr_t* b = rlx_ir_int(ctx, i->dtype, p->before[d]);
    ix[d] = rlx_ir_sub(ctx, i, b);
    rlx_expr_t* c = NULL;
    if (p->before[d] > 0) c = rlx_ir_cmp(ctx, RLX_EXPR_GE, i, b);
    if (p->after[d] > 0) {
      rlx_expr_t* hi =
          rlx_ir_cmp(ctx, RLX_EXPR_LT, i, rlx_ir_add(ctx, b, rlx_ir_cast(ctx, i->dtype, p->x->buffer->shape[d])));
      c = c ? rlx_ir_and(ctx, c, hi) : hi;
    }
    if (c) cond = cond ? rlx_ir_and(ctx, cond, c) : c;
  }
  rlx_expr_t* load = rlx_te_load(ctx, p->x, n, ix);
  if (!cond) return load;
  rlx_expr_t* args[3] = {cond, load, p->value};
  return rlx_ir_call(ctx, load->dtype, "if_then_else", 3, args);
}

rlx_te_tensor_t* rlx_topi_nn_pad(rlx_ctx_t* ctx, rlx_te_tensor_t* x, const int64_t* before, const int64_t* after,
                                 rlx_expr_t* pad_value, const char* name) {
  int n = x->buffer->ndim;
  bool any = false;
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) {
    rlx_expr_t* dim = x->buffer->shape[d];
    any = any || before[d] || after[d];
    shape[d] = rlx_ir_simplify(ctx, rlx_ir_add(ctx, dim, rlx_ir_int(ctx, dim->dtype, before[d] + after[d])));
  }
  if (!any) return x;
  pad_t* p = RLX_NEW(ctx, pad_t);
  p->x = x;
  p->before = RLX_NEW_ARRAY(ctx, int64_t, n);
  p->after = RLX_NEW_ARRAY(ctx, int64_t, n);
  memcpy((int64_t*)p->before, before, sizeof(int64_t) * (size_t)n);
  memcpy((int64_t*)p->after, after, sizeof(int64_t) * (size_t)n);
  p->value = pad_value;
  return rlx_te_compute(ctx, n, shape, pad_body, p, name ? name : "pad_temp", "injective,pad");
}

/* ---------------------------------------------------------------- conv (1-D, 2-D, 3-D) */
typedef struct {
  rlx_te_tensor_t *pad, *w;
  int nsp;
  int64_t s[3], d[3], groups;
  rlx_expr_t* out_per_group; /* O / groups */
  rlx_iter_var_t* r[4];      /* rc, then one per spatial dim */
  rlx_dtype_t dt;
} conv_t;

static rlx_expr_t* conv_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  conv_t* c = user;
  int nd = c->nsp + 2;
  rlx_expr_t *f = nn_i64(ctx, nn_v(idx[1])), *rc = nn_v(c->r[0]->var);
  rlx_expr_t* ch = rc;
  if (c->groups != 1)
    ch = rlx_ir_add(ctx, rlx_ir_mul(ctx, rlx_ir_floordiv(ctx, f, c->out_per_group), c->r[0]->dom.extent), rc);
  rlx_expr_t* id[5] = {nn_v(idx[0]), ch};
  rlx_expr_t* iw[5] = {f, rc};
  for (int k = 0; k < c->nsp; k++) {
    rlx_expr_t *o = nn_i64(ctx, nn_v(idx[2 + k])), *r = nn_v(c->r[1 + k]->var);
    rlx_dtype_t it = o->dtype;
    id[2 + k] = rlx_ir_add(ctx, rlx_ir_mul(ctx, o, rlx_ir_int(ctx, it, c->s[k])),
                           rlx_ir_mul(ctx, r, rlx_ir_int(ctx, it, c->d[k])));
    iw[2 + k] = r;
  }
  rlx_expr_t* a = rlx_ir_cast(ctx, c->dt, rlx_te_load(ctx, c->pad, nd, id));
  rlx_expr_t* b = rlx_ir_cast(ctx, c->dt, rlx_te_load(ctx, c->w, nd, iw));
  return rlx_te_sum(ctx, rlx_ir_mul(ctx, a, b), c->nsp + 1, c->r);
}

/* ---- conv as im2col + matmul (groups == 1, constant channels and kernel, large enough for
 * the default schedule's matmul kernel): col[n, k, p] = pad[n, c, p_sp * s + k_sp * d] with
 * k = (c, k_sp...) and p = the flattened output position; gemm[n, f, p] = sum_k w[f, k] *
 * col[n, k, p]; out[n, f, sp...] = gemm[n, f, flat(sp)]. */
typedef struct {
  conv_t* c;
  rlx_te_tensor_t *col, *wflat, *gemm;
  int64_t kdim[3];    /* kernel extents */
  rlx_expr_t* osp[3]; /* output spatial extents (int64) */
  rlx_iter_var_t* rk;
  bool batched; /* false when N is 1: col and gemm drop the batch dim (unit loops would hide
                   the matmul from the default schedule) */
} gemm_t;

static rlx_expr_t* col_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  gemm_t* g = user;
  conv_t* c = g->c;
  int nsp = c->nsp;
  int b = g->batched ? 1 : 0;
  rlx_expr_t* k = nn_i64(ctx, nn_v(idx[b]));
  rlx_expr_t* p = nn_i64(ctx, nn_v(idx[b + 1]));
  rlx_expr_t* id[5] = {b ? nn_v(idx[0]) : rlx_ir_i64(ctx, 0)};
  /* k = ((c * K0 + k0) * K1 + k1) ...; p = (o0 * O1 + o1) ... */
  for (int t = nsp - 1; t >= 0; t--) {
    rlx_expr_t* kt = rlx_ir_floormod(ctx, k, rlx_ir_i64(ctx, g->kdim[t]));
    k = rlx_ir_floordiv(ctx, k, rlx_ir_i64(ctx, g->kdim[t]));
    rlx_expr_t* ot = t == 0 ? p : rlx_ir_floormod(ctx, p, g->osp[t]);
    if (t) p = rlx_ir_floordiv(ctx, p, g->osp[t]);
    id[2 + t] =
        rlx_ir_add(ctx, rlx_ir_mul(ctx, ot, rlx_ir_i64(ctx, c->s[t])), rlx_ir_mul(ctx, kt, rlx_ir_i64(ctx, c->d[t])));
  }
  id[1] = k;
  return rlx_ir_cast(ctx, c->dt, rlx_te_load(ctx, c->pad, nsp + 2, id));
}

static rlx_expr_t* wflat_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  gemm_t* g = user;
  conv_t* c = g->c;
  int nsp = c->nsp;
  rlx_expr_t* k = nn_i64(ctx, nn_v(idx[1]));
  rlx_expr_t* iw[5] = {nn_v(idx[0])};
  for (int t = nsp - 1; t >= 0; t--) {
    iw[2 + t] = rlx_ir_floormod(ctx, k, rlx_ir_i64(ctx, g->kdim[t]));
    k = rlx_ir_floordiv(ctx, k, rlx_ir_i64(ctx, g->kdim[t]));
  }
  iw[1] = k;
  return rlx_ir_cast(ctx, c->dt, rlx_te_load(ctx, c->w, nsp + 2, iw));
}

static rlx_expr_t* gemm_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  gemm_t* g = user;
  int b = g->batched ? 1 : 0;
  rlx_expr_t* k = nn_v(g->rk->var);
  rlx_expr_t* iw[2] = {nn_v(idx[b]), k};
  rlx_expr_t* ic[3] = {b ? nn_v(idx[0]) : k, b ? k : nn_v(idx[1]), b ? nn_v(idx[2]) : NULL};
  rlx_expr_t* x = rlx_te_load(ctx, g->col, 2 + b, ic);
  return rlx_te_sum(ctx, rlx_ir_mul(ctx, rlx_te_load(ctx, g->wflat, 2, iw), x), 1, &g->rk);
}

static rlx_expr_t* unflat_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  gemm_t* g = user;
  int nsp = g->c->nsp;
  rlx_expr_t* p = nn_i64(ctx, nn_v(idx[2]));
  for (int t = 1; t < nsp; t++) p = rlx_ir_add(ctx, rlx_ir_mul(ctx, p, g->osp[t]), nn_i64(ctx, nn_v(idx[2 + t])));
  rlx_expr_t* ig[3] = {nn_v(idx[0]), nn_v(idx[1]), p};
  return g->batched ? rlx_te_load(ctx, g->gemm, 3, ig) : rlx_te_load(ctx, g->gemm, 2, ig + 1);
}

/* The im2col form when it pays (see above); NULL to use the direct reduction. */
static rlx_te_tensor_t* conv_as_gemm(rlx_ctx_t* ctx, conv_t* c, rlx_te_tensor_t* data, rlx_expr_t* const* shape,
                                     const char* name) {
  rlx_expr_t** ks = c->w->buffer->shape;
  int nsp = c->nsp;
  int64_t cin, o, kk = 1, p = 1;
  bool p_const = true;
  if (c->groups != 1 || !rlx_expr_is_const_int(ks[1], &cin) || !rlx_expr_is_const_int(ks[0], &o)) return NULL;
  gemm_t* g = RLX_NEW(ctx, gemm_t);
  g->c = c;
  rlx_expr_t* P = rlx_ir_i64(ctx, 1);
  for (int t = 0; t < nsp; t++) {
    int64_t v;
    if (!rlx_expr_is_const_int(ks[2 + t], &g->kdim[t])) return NULL;
    kk *= g->kdim[t];
    g->osp[t] = nn_i64(ctx, shape[2 + t]);
    P = rlx_ir_mul(ctx, P, g->osp[t]);
    if (rlx_expr_is_const_int(shape[2 + t], &v)) p *= v;
    else p_const = false;
  }
  kk *= cin;
  /* the matmul kernel needs M = O, K and a constant N of at least 64 */
  if (o < 64 || kk < 64 || (p_const && p < 64)) return NULL;
  P = rlx_ir_simplify(ctx, P);
  rlx_expr_t* n = nn_i64(ctx, shape[0]);
  g->batched = !nn_is_const(n, 1);
  int b = g->batched ? 1 : 0;
  rlx_expr_t* cshape[3] = {n, rlx_ir_i64(ctx, kk), P};
  g->col = rlx_te_compute(ctx, 2 + b, cshape + 1 - b, col_body, g, "data_col", "injective");
  rlx_expr_t* wshape[2] = {rlx_ir_i64(ctx, o), rlx_ir_i64(ctx, kk)};
  g->wflat = rlx_te_compute(ctx, 2, wshape, wflat_body, g, "kernel_flat", "injective");
  g->rk = rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), rlx_ir_i64(ctx, kk), "rk");
  rlx_expr_t* gshape[3] = {n, rlx_ir_i64(ctx, o), P};
  g->gemm = rlx_te_compute(ctx, 2 + b, gshape + 1 - b, gemm_body, g, rlx_ctx_sprintf(ctx, "%s_gemm", name), "matmul");
  (void)data;
  return rlx_te_compute(ctx, nsp + 2, shape, unflat_body, g, name, "injective");
}

/* The output dtype: out_dtype when given (float or int), else the data's. */
static rlx_dtype_t conv_out_dtype(const rlx_te_tensor_t* data, rlx_dtype_t out_dtype) {
  return rlx_dtype_is_float(out_dtype) || rlx_dtype_is_int(out_dtype) ? out_dtype : data->buffer->dtype;
}

/* The attribute checks conv and conv_transpose share: strides and dilation >= 1 (and, for
 * a transposed conv, output_padding >= 0 and below the stride or the dilation), padding >= 0,
 * groups >= 1, equal data and kernel dtypes unless out_dtype is given. */
static RLX_MUST_USE rlx_status_t* conv_attr_checks(rlx_ctx_t* ctx, const char* op, const rlx_te_tensor_t* data,
                                                   const rlx_te_tensor_t* kernel, int nsp, const int64_t* strides,
                                                   const int64_t* dilation, const int64_t* output_padding,
                                                   const int64_t* padding, int64_t groups, rlx_dtype_t out_dtype) {
  for (int i = 0; i < nsp; i++) {
    if (strides[i] < 1 || dilation[i] < 1) return nn_fail("%s: strides and dilation must be >= 1", op);
    if (output_padding &&
        (output_padding[i] < 0 || (output_padding[i] >= strides[i] && output_padding[i] >= dilation[i])))
      return nn_fail("%s: output_padding must be >= 0 and smaller than the stride or the dilation", op);
  }
  for (int i = 0; i < 2 * nsp; i++)
    if (padding[i] < 0) return nn_fail("%s: padding must be >= 0", op);
  if (groups < 1) return nn_fail("%s: groups must be >= 1, got %lld", op, (long long)groups);
  bool void_out = !(rlx_dtype_is_float(out_dtype) || rlx_dtype_is_int(out_dtype));
  if (void_out && !rlx_dtype_eq(data->buffer->dtype, kernel->buffer->dtype))
    return nn_fail("%s: data and kernel dtypes differ: %s vs %s", op, nn_dt(ctx, data->buffer->dtype),
                   nn_dt(ctx, kernel->buffer->dtype));
  return NULL;
}

static const char* const conv_layouts[4] = {"", "ncw", "nchw", "ncdhw"};

RLX_MUST_USE rlx_status_t* rlx_topi_nn_conv(rlx_ctx_t* ctx, rlx_te_tensor_t* data, rlx_te_tensor_t* kernel, int nsp,
                                            const int64_t* strides, const int64_t* padding, const int64_t* dilation,
                                            int64_t groups, rlx_dtype_t out_dtype, rlx_te_tensor_t** out) {
  if (nsp < 1 || nsp > 3) return nn_fail("nn.conv: %d spatial dims (1 to 3 supported)", nsp);
  const char* op = rlx_ctx_sprintf(ctx, "nn.conv%dd", nsp);
  if (!data || !kernel) return nn_fail("%s: NULL input", op);
  int nd = nsp + 2;
  if (data->buffer->ndim != nd || kernel->buffer->ndim != nd)
    return nn_fail("%s: data and kernel must be %d-D (%s), got %s and %s", op, nd,
                   nsp == 1   ? "NCW, OIW"
                   : nsp == 2 ? "NCHW, OIHW"
                              : "NCDHW, OIDHW",
                   nn_shape_str(ctx, data), nn_shape_str(ctx, kernel));
  RLX_RETURN_IF_ERROR(conv_attr_checks(ctx, op, data, kernel, nsp, strides, dilation, NULL, padding, groups, out_dtype));
  rlx_expr_t** ds = data->buffer->shape;
  rlx_expr_t** ks = kernel->buffer->shape;
  rlx_expr_t* g = rlx_ir_i64(ctx, groups);
  rlx_expr_t* cin = nn_i64(ctx, ds[1]);
  if (!rlx_ir_prove_equal(ctx, cin, rlx_ir_mul(ctx, nn_i64(ctx, ks[1]), g)))
    return nn_fail("%s: data channels %s != kernel in-channels %s * groups %lld (shapes %s and %s)", op,
                   nn_dim_str(ctx, ds[1]), nn_dim_str(ctx, ks[1]), (long long)groups, nn_shape_str(ctx, data),
                   nn_shape_str(ctx, kernel));
  int64_t o = 0;
  if (rlx_expr_is_const_int(ks[0], &o) && o % groups != 0)
    return nn_fail("%s: out channels %lld are not divisible by groups %lld", op, (long long)o, (long long)groups);
  conv_t* c = RLX_NEW(ctx, conv_t);
  c->nsp = nsp;
  c->groups = groups;
  c->out_per_group = rlx_ir_simplify(ctx, rlx_ir_floordiv(ctx, nn_i64(ctx, ks[0]), g));
  c->w = kernel;
  c->dt = conv_out_dtype(data, out_dtype);
  int64_t before[5] = {0, 0}, after[5] = {0, 0};
  rlx_expr_t* shape[5] = {nn_i64(ctx, ds[0]), nn_i64(ctx, ks[0])};
  static const char* const rnames[4][3] = {{0}, {"rx"}, {"ry", "rx"}, {"rz", "ry", "rx"}};
  c->r[0] = rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), nn_i64(ctx, ks[1]), "rc");
  for (int k = 0; k < nsp; k++) {
    c->s[k] = strides[k];
    c->d[k] = dilation[k];
    before[2 + k] = padding[k];
    after[2 + k] = padding[nsp + k];
    c->r[1 + k] = rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), nn_i64(ctx, ks[2 + k]), rnames[nsp][k]);
    shape[2 + k] = nn_out_dim(ctx, ds[2 + k], ks[2 + k], padding[k] + padding[nsp + k], dilation[k], strides[k], 0);
    int64_t v;
    if (rlx_expr_is_const_int(shape[2 + k], &v) && v < 1)
      return nn_fail("%s: the kernel %s does not fit the padded input %s", op, nn_shape_str(ctx, kernel),
                     nn_shape_str(ctx, data));
  }
  rlx_dtype_t dt = data->buffer->dtype;
  rlx_expr_t* zero = rlx_dtype_is_float(dt) ? rlx_ir_float(ctx, dt, 0.0) : rlx_ir_int(ctx, dt, 0);
  c->pad = rlx_topi_nn_pad(ctx, data, before, after, zero, "pad_temp");
  const char* kind = "";
  if (groups > 1) kind = nn_is_const(ks[1], 1) && rlx_ir_prove_equal(ctx, cin, g) ? "depthwise_" : "group_";
  const char* name = rlx_ctx_sprintf(ctx, "%sconv%dd_%s", kind, nsp, conv_layouts[nsp]);
  rlx_te_tensor_t* as_gemm = conv_as_gemm(ctx, c, data, shape, name);
  if (as_gemm) {
    *out = as_gemm;
    return NULL;
  }
  static const char* const axis_names[4][5] = {
      {0}, {"nn", "ff", "xx"}, {"nn", "ff", "yy", "xx"}, {"nn", "ff", "zz", "yy", "xx"}};
  *out = rlx_te_compute_named(ctx, nd, shape, conv_body, c, name,
                              rlx_ctx_sprintf(ctx, "conv%dd_%s", nsp, conv_layouts[nsp]), axis_names[nsp]);
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_topi_nn_conv2d_nchw(rlx_ctx_t* ctx, rlx_te_tensor_t* data, rlx_te_tensor_t* kernel,
                                                   const int64_t strides[2], const int64_t padding[4],
                                                   const int64_t dilation[2], int64_t groups, rlx_dtype_t out_dtype,
                                                   rlx_te_tensor_t** out) {
  return rlx_topi_nn_conv(ctx, data, kernel, 2, strides, padding, dilation, groups, out_dtype, out);
}

/* ---------------------------------------------------------------- transposed conv */
typedef struct {
  rlx_te_tensor_t *x, *w;
  int nsp;
  int64_t s[3], d[3], pb[3], groups;
  rlx_expr_t *cg, *og;  /* in / out channels per group */
  rlx_iter_var_t* r[4]; /* rc, then one per spatial dim */
  rlx_dtype_t dt;
} convt_t;

static rlx_expr_t* convt_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  convt_t* c = user;
  int nd = c->nsp + 2;
  rlx_expr_t *f = nn_i64(ctx, nn_v(idx[1])), *rc = nn_v(c->r[0]->var);
  rlx_expr_t* ch = rc;
  rlx_expr_t* fo = f;
  if (c->groups != 1) {
    ch = rlx_ir_add(ctx, rlx_ir_mul(ctx, rlx_ir_floordiv(ctx, f, c->og), c->cg), rc);
    fo = rlx_ir_floormod(ctx, f, c->og);
  }
  rlx_expr_t* ix[5] = {nn_v(idx[0]), ch};
  rlx_expr_t* iw[5] = {ch, fo};
  rlx_expr_t* cond = NULL;
  for (int k = 0; k < c->nsp; k++) {
    /* out position y receives x[i] * w[r] where i * s + r * d = y + pad_before */
    rlx_expr_t* r = nn_v(c->r[1 + k]->var);
    rlx_expr_t* t = rlx_ir_sub(ctx, rlx_ir_add(ctx, nn_i64(ctx, nn_v(idx[2 + k])), rlx_ir_i64(ctx, c->pb[k])),
                               rlx_ir_mul(ctx, r, rlx_ir_i64(ctx, c->d[k])));
    rlx_expr_t* i = rlx_ir_floordiv(ctx, t, rlx_ir_i64(ctx, c->s[k]));
    rlx_expr_t* ok = rlx_ir_and(ctx, rlx_ir_cmp(ctx, RLX_EXPR_GE, t, rlx_ir_i64(ctx, 0)),
                                rlx_ir_cmp(ctx, RLX_EXPR_LT, i, nn_i64(ctx, c->x->buffer->shape[2 + k])));
    if (c->s[k] > 1)
      ok = rlx_ir_and(
          ctx, ok, rlx_ir_cmp(ctx, RLX_EXPR_EQ, rlx_ir_floormod(ctx, t, rlx_ir_i64(ctx, c->s[k])), rlx_ir_i64(ctx, 0)));
    cond = cond ? rlx_ir_and(ctx, cond, ok) : ok;
    ix[2 + k] = i;
    iw[2 + k] = r;
  }
  rlx_expr_t* a = rlx_ir_cast(ctx, c->dt, rlx_te_load(ctx, c->x, nd, ix));
  rlx_expr_t* b = rlx_ir_cast(ctx, c->dt, rlx_te_load(ctx, c->w, nd, iw));
  return rlx_te_reduce(ctx, RLX_REDUCE_SUM, rlx_ir_mul(ctx, a, b), c->nsp + 1, c->r, cond);
}

RLX_MUST_USE rlx_status_t* rlx_topi_nn_conv_transpose(rlx_ctx_t* ctx, rlx_te_tensor_t* data, rlx_te_tensor_t* kernel,
                                                      int nsp, const int64_t* strides, const int64_t* padding,
                                                      const int64_t* output_padding, const int64_t* dilation,
                                                      int64_t groups, rlx_dtype_t out_dtype, rlx_te_tensor_t** out) {
  if (nsp < 1 || nsp > 3) return nn_fail("nn.conv_transpose: %d spatial dims (1 to 3 supported)", nsp);
  const char* op = rlx_ctx_sprintf(ctx, "nn.conv%dd_transpose", nsp);
  if (!data || !kernel) return nn_fail("%s: NULL input", op);
  int nd = nsp + 2;
  if (data->buffer->ndim != nd || kernel->buffer->ndim != nd)
    return nn_fail("%s: data and kernel must be %d-D, got %s and %s", op, nd, nn_shape_str(ctx, data),
                   nn_shape_str(ctx, kernel));
  RLX_RETURN_IF_ERROR(
      conv_attr_checks(ctx, op, data, kernel, nsp, strides, dilation, output_padding, padding, groups, out_dtype));
  rlx_expr_t** ds = data->buffer->shape;
  rlx_expr_t** ks = kernel->buffer->shape;
  rlx_expr_t* g = rlx_ir_i64(ctx, groups);
  if (!rlx_ir_prove_equal(ctx, nn_i64(ctx, ds[1]), nn_i64(ctx, ks[0])))
    return nn_fail("%s: data channels %s != kernel in-channels %s (shapes %s and %s; kernel is IO..)", op,
                   nn_dim_str(ctx, ds[1]), nn_dim_str(ctx, ks[0]), nn_shape_str(ctx, data), nn_shape_str(ctx, kernel));
  int64_t cin;
  if (rlx_expr_is_const_int(ds[1], &cin) && cin % groups != 0)
    return nn_fail("%s: in channels %lld are not divisible by groups %lld", op, (long long)cin, (long long)groups);
  convt_t* c = RLX_NEW(ctx, convt_t);
  c->x = data;
  c->w = kernel;
  c->nsp = nsp;
  c->groups = groups;
  c->cg = rlx_ir_simplify(ctx, rlx_ir_floordiv(ctx, nn_i64(ctx, ds[1]), g));
  c->og = nn_i64(ctx, ks[1]);
  c->dt = conv_out_dtype(data, out_dtype);
  rlx_expr_t* shape[5] = {nn_i64(ctx, ds[0]), rlx_ir_simplify(ctx, rlx_ir_mul(ctx, c->og, g))};
  static const char* const rnames[4][3] = {{0}, {"rx"}, {"ry", "rx"}, {"rz", "ry", "rx"}};
  c->r[0] = rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), c->cg, "rc");
  for (int k = 0; k < nsp; k++) {
    c->s[k] = strides[k];
    c->d[k] = dilation[k];
    c->pb[k] = padding[k];
    c->r[1 + k] = rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), nn_i64(ctx, ks[2 + k]), rnames[nsp][k]);
    /* (in - 1) * s - pad_before - pad_after + d * (k - 1) + output_padding + 1 */
    rlx_expr_t* e =
        rlx_ir_mul(ctx, rlx_ir_sub(ctx, nn_i64(ctx, ds[2 + k]), rlx_ir_i64(ctx, 1)), rlx_ir_i64(ctx, strides[k]));
    e = rlx_ir_add(
        ctx, e,
        rlx_ir_mul(ctx, rlx_ir_i64(ctx, dilation[k]), rlx_ir_sub(ctx, nn_i64(ctx, ks[2 + k]), rlx_ir_i64(ctx, 1))));
    e = rlx_ir_add(ctx, e, rlx_ir_i64(ctx, output_padding[k] + 1 - padding[k] - padding[nsp + k]));
    shape[2 + k] = rlx_ir_simplify(ctx, e);
    int64_t v;
    if (rlx_expr_is_const_int(shape[2 + k], &v) && v < 1)
      return nn_fail("%s: the padding leaves no output for %s", op, nn_shape_str(ctx, data));
  }
  const char* name = rlx_ctx_sprintf(ctx, "%sconv%dd_transpose_%s", groups > 1 ? "group_" : "", nsp, conv_layouts[nsp]);
  *out = rlx_te_compute(ctx, nd, shape, convt_body, c, name, "conv_transpose");
  return NULL;
}
