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
      rlx_expr_t* hi = rlx_ir_cmp(ctx, RLX_EXPR_LT, i, rlx_ir_add(ctx, b, rlx_ir_cast(ctx, i->dtype, p->x->buffer->shape[d])));
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

/* ---------------------------------------------------------------- conv2d */
typedef struct {
  rlx_te_tensor_t *pad, *w;
  int64_t sh, sw, dh, dw, groups;
  rlx_expr_t* out_per_group; /* O / groups */
  rlx_expr_t* in_per_group;  /* C / groups */
  rlx_iter_var_t *rc, *ry, *rx;
  rlx_dtype_t dt;
} conv_t;

static rlx_expr_t* conv_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  conv_t* c = user;
  rlx_expr_t *n = nn_v(idx[0]), *f = nn_v(idx[1]), *y = nn_v(idx[2]), *x = nn_v(idx[3]);
  rlx_expr_t *rc = nn_v(c->rc->var), *ry = nn_v(c->ry->var), *rx = nn_v(c->rx->var);
  rlx_expr_t* ch = rc;
  if (c->groups != 1)
    ch = rlx_ir_add(ctx, rlx_ir_mul(ctx, rlx_ir_floordiv(ctx, f, c->out_per_group), c->in_per_group), rc);
  rlx_dtype_t it = y->dtype;
  rlx_expr_t* iy = rlx_ir_add(ctx, rlx_ir_mul(ctx, y, rlx_ir_int(ctx, it, c->sh)), rlx_ir_mul(ctx, ry, rlx_ir_int(ctx, it, c->dh)));
  rlx_expr_t* ix = rlx_ir_add(ctx, rlx_ir_mul(ctx, x, rlx_ir_int(ctx, it, c->sw)), rlx_ir_mul(ctx, rx, rlx_ir_int(ctx, it, c->dw)));
  rlx_expr_t* id[4] = {n, ch, iy, ix};
  rlx_expr_t* iw[4] = {f, rc, ry, rx};
  rlx_expr_t* a = rlx_ir_cast(ctx, c->dt, rlx_te_load(ctx, c->pad, 4, id));
  rlx_expr_t* b = rlx_ir_cast(ctx, c->dt, rlx_te_load(ctx, c->w, 4, iw));
  rlx_iter_var_t* axes[3] = {c->rc, c->ry, c->rx};
  return rlx_te_sum(ctx, rlx_ir_mul(ctx, a, b), 3, axes);
}

rlx_te_tensor_t* rlx_topi_nn_conv2d_nchw(rlx_ctx_t* ctx, rlx_te_tensor_t* data, rlx_te_tensor_t* kernel,
                                         const int64_t strides[2], const int64_t padding[4],
                                         const int64_t dilation[2], int64_t groups, rlx_dtype_t out_dtype,
                                         rlx_status_t** out_st) {
  if (!data || !kernel) return nn_fail(out_st, "nn.conv2d: NULL input");
  if (data->buffer->ndim != 4 || kernel->buffer->ndim != 4)
    return nn_fail(out_st, "nn.conv2d: data and kernel must be 4-D (NCHW, OIHW), got %s and %s",
                   nn_shape_str(ctx, data), nn_shape_str(ctx, kernel));
  for (int i = 0; i < 2; i++)
    if (strides[i] < 1 || dilation[i] < 1)
      return nn_fail(out_st, "nn.conv2d: strides and dilation must be >= 1");
  for (int i = 0; i < 4; i++)
    if (padding[i] < 0) return nn_fail(out_st, "nn.conv2d: padding must be >= 0");
  if (groups < 1) return nn_fail(out_st, "nn.conv2d: groups must be >= 1, got %lld", (long long)groups);
  bool void_out = !(rlx_dtype_is_float(out_dtype) || rlx_dtype_is_int(out_dtype));
  if (void_out && !rlx_dtype_eq(data->buffer->dtype, kernel->buffer->dtype))
    return nn_fail(out_st, "nn.conv2d: data and kernel dtypes differ: %s vs %s", nn_dt(ctx, data->buffer->dtype),
                   nn_dt(ctx, kernel->buffer->dtype));
  rlx_expr_t** ds = data->buffer->shape;
  rlx_expr_t** ks = kernel->buffer->shape;
  rlx_expr_t* g = rlx_ir_i64(ctx, groups);
  rlx_expr_t* cin = nn_i64(ctx, ds[1]);
  if (!rlx_ir_prove_equal(ctx, cin, rlx_ir_mul(ctx, nn_i64(ctx, ks[1]), g)))
    return nn_fail(out_st, "nn.conv2d: data channels %s != kernel in-channels %s * groups %lld (shapes %s and %s)",
                   nn_dim_str(ctx, ds[1]), nn_dim_str(ctx, ks[1]), (long long)groups, nn_shape_str(ctx, data),
                   nn_shape_str(ctx, kernel));
  int64_t o = 0;
  if (rlx_expr_is_const_int(ks[0], &o) && o % groups != 0)
    return nn_fail(out_st, "nn.conv2d: out channels %lld are not divisible by groups %lld", (long long)o,
                   (long long)groups);
  conv_t* c = RLX_NEW(ctx, conv_t);
  c->sh = strides[0];
  c->sw = strides[1];
  c->dh = dilation[0];
  c->dw = dilation[1];
  c->groups = groups;
  c->out_per_group = rlx_ir_simplify(ctx, rlx_ir_floordiv(ctx, nn_i64(ctx, ks[0]), g));
  c->in_per_group = nn_i64(ctx, ks[1]);
  c->w = kernel;
  c->dt = void_out ? data->buffer->dtype : out_dtype;
  int64_t before[4] = {0, 0, padding[0], padding[1]}, after[4] = {0, 0, padding[2], padding[3]};
  rlx_dtype_t dt = data->buffer->dtype;
  rlx_expr_t* zero = rlx_dtype_is_float(dt) ? rlx_ir_float(ctx, dt, 0.0) : rlx_ir_int(ctx, dt, 0);
  c->pad = rlx_topi_nn_pad(ctx, data, before, after, zero, "pad_temp");
  c->rc = rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), nn_i64(ctx, ks[1]), "rc");
  c->ry = rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), nn_i64(ctx, ks[2]), "ry");
  c->rx = rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), nn_i64(ctx, ks[3]), "rx");
  rlx_expr_t* shape[4] = {nn_i64(ctx, ds[0]), nn_i64(ctx, ks[0]),
                          nn_out_dim(ctx, ds[2], ks[2], padding[0] + padding[2], dilation[0], strides[0], 0),
                          nn_out_dim(ctx, ds[3], ks[3], padding[1] + padding[3], dilation[1], strides[1], 0)};
  const char* name = "conv2d_nchw";
  if (groups > 1) name = nn_is_const(ks[1], 1) && rlx_ir_prove_equal(ctx, cin, g) ? "depthwise_conv2d_nchw" : "group_conv2d_nchw";
  static const char* const axis_names[4] = {"nn", "ff", "yy", "xx"};
  return rlx_te_compute_named(ctx, 4, shape, conv_body, c, name, "conv2d_nchw", axis_names);
}
