/* Relax ops, family "nn", part 2 (see op_nn.c for the list and attrs): convolutions and
 * pools over 1, 2 or 3 spatial dims (relax.nn.conv1d / conv2d / conv3d and their _transpose
 * forms (kernels IOW / IOHW / IODHW), max_pool1d..3d,
 * avg_pool1d..3d, adaptive_avg_pool1d..3d), channels-first layouts only (NCW / NCHW / NCDHW,
 * kernels OIW / OIHW / OIDHW). The rank comes from the op's name. */
#include <string.h>

#include "op_nn_internal.h"

static const char* const data_layouts[4] = {"", "NCW", "NCHW", "NCDHW"};
static const char* const kernel_layouts[4] = {"", "OIW", "OIHW", "OIDHW"};

/* Spatial rank of an op called "...1d" / "...2d" / "...3d". */
static int op_nsp(const rlx_relax_call_t* c) {
  const char* n = onn_op_name(c);
  size_t len = strlen(n);
  if (len >= 2 && n[len - 1] == 'd' && n[len - 2] >= '1' && n[len - 2] <= '3') return n[len - 2] - '0';
  return 2;
}

static RLX_MUST_USE rlx_status_t* check_layout(const rlx_relax_call_t* c, const char* key, const char* want) {
  const char* l = onn_attr_str(c, key, want);
  if (strcmp(l, want) != 0) return onn_fail(onn_op_name(c), "%s \"%s\" is not supported (only \"%s\")", key, l, want);
  return NULL;
}

/* floor((in + pad - dil * (k - 1) - 1 + extra) / stride) + 1, simplified. */
static rlx_expr_t* window_out(rlx_ctx_t* ctx, rlx_expr_t* in, rlx_expr_t* k, int64_t pad, int64_t dil, int64_t stride,
                              int64_t extra) {
  rlx_expr_t* eff = rlx_ir_mul(ctx, rlx_ir_i64(ctx, dil), rlx_ir_sub(ctx, k, rlx_ir_i64(ctx, 1)));
  rlx_expr_t* num = rlx_ir_sub(ctx, rlx_ir_add(ctx, in, rlx_ir_i64(ctx, pad + extra - 1)), eff);
  return rlx_ir_simplify(ctx, rlx_ir_add(ctx, rlx_ir_floordiv(ctx, num, rlx_ir_i64(ctx, stride)), rlx_ir_i64(ctx, 1)));
}

static RLX_MUST_USE rlx_status_t* check_positive(rlx_ctx_t* ctx, const char* op, rlx_expr_t* e, rlx_sinfo_tensor_t* x) {
  int64_t v;
  if (rlx_expr_is_const_int(e, &v) && v < 1)
    return onn_fail(op, "the window does not fit the padded input %s (output size %lld)", onn_shape_str(ctx, x),
                    (long long)v);
  return NULL;
}

/* ---------------------------------------------------------------- conv */
typedef struct {
  int nsp;
  int64_t strides[3], padding[6], dilation[3], groups;
  rlx_dtype_t out_dtype;
} conv_attrs_t;

static RLX_MUST_USE rlx_status_t* get_conv_attrs(const rlx_relax_call_t* c, conv_attrs_t* a) {
  int k = a->nsp = op_nsp(c);
  RLX_RETURN_IF_ERROR(onn_attr_ints(c, "strides", k, 1, a->strides));
  RLX_RETURN_IF_ERROR(onn_attr_ints(c, "padding", 2 * k, 0, a->padding));
  RLX_RETURN_IF_ERROR(onn_attr_ints(c, "dilation", k, 1, a->dilation));
  a->groups = onn_attr_int(c, "groups", 1);
  RLX_RETURN_IF_ERROR(onn_attr_out_dtype(c, &a->out_dtype));
  const char* dl = onn_attr_str(c, "data_layout", data_layouts[k]);
  RLX_RETURN_IF_ERROR(check_layout(c, "data_layout", data_layouts[k]));
  RLX_RETURN_IF_ERROR(check_layout(c, "kernel_layout", kernel_layouts[k]));
  RLX_RETURN_IF_ERROR(check_layout(c, "out_layout", dl));
  for (int i = 0; i < k; i++)
    if (a->strides[i] < 1 || a->dilation[i] < 1) return onn_fail(onn_op_name(c), "strides and dilation must be >= 1");
  for (int i = 0; i < 2 * k; i++)
    if (a->padding[i] < 0) return onn_fail(onn_op_name(c), "padding must be >= 0");
  if (a->groups < 1) return onn_fail(onn_op_name(c), "groups must be >= 1, got %lld", (long long)a->groups);
  return NULL;
}

/* The data and weight of a convolution (two tensor args). */
static RLX_MUST_USE rlx_status_t* conv_operands(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_tensor_t** x,
                                                rlx_sinfo_tensor_t** w) {
  RLX_RETURN_IF_ERROR(onn_check_arity(c, 2, 2));
  RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, 0, x));
  return onn_tensor_arg(ctx, c, 1, w);
}

/* A convolution's result dtype (out_dtype, or the operands' common one when void) and its
 * operands' ranks (k spatial dims + 2; the weight in kernel_layout). */
static RLX_MUST_USE rlx_status_t* conv_dtype_rank(rlx_ctx_t* ctx, const char* op, const rlx_sinfo_tensor_t* x,
                                                  const rlx_sinfo_tensor_t* w, int k, rlx_dtype_t out_dtype,
                                                  const char* kernel_layout, rlx_dtype_t* dt) {
  int nd = k + 2;
  if (rlx_dtype_is_void(out_dtype)) RLX_RETURN_IF_ERROR(onn_same_dtype(ctx, op, x->dtype, w->dtype, dt));
  else *dt = out_dtype;
  if (x->ndim >= 0 && x->ndim != nd)
    return onn_fail(op, "data must be %d-D (%s), got %s", nd, data_layouts[k], onn_shape_str(ctx, x));
  if (w->ndim >= 0 && w->ndim != nd)
    return onn_fail(op, "weight must be %d-D (%s), got %s", nd, kernel_layout, onn_shape_str(ctx, w));
  return NULL;
}

rlx_status_t* onn_infer_conv(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  const char* op = onn_op_name(c);
  rlx_sinfo_tensor_t *x, *w;
  RLX_RETURN_IF_ERROR(conv_operands(ctx, c, &x, &w));
  conv_attrs_t a;
  RLX_RETURN_IF_ERROR(get_conv_attrs(c, &a));
  int k = a.nsp, nd = k + 2;
  rlx_dtype_t dt;
  RLX_RETURN_IF_ERROR(conv_dtype_rank(ctx, op, x, w, k, a.out_dtype, kernel_layouts[k], &dt));
  if (!x->shape || !w->shape) return *out = rlx_sinfo_tensor(ctx, nd, NULL, dt), NULL;
  rlx_expr_t* g = rlx_ir_i64(ctx, a.groups);
  if (onn_provably_ne(ctx, x->shape[1], rlx_ir_simplify(ctx, rlx_ir_mul(ctx, w->shape[1], g))))
    return onn_fail(op, "data channels %s != weight in-channels %s * groups %lld (shapes %s and %s)",
                    onn_dim_str(ctx, x->shape[1]), onn_dim_str(ctx, w->shape[1]), (long long)a.groups,
                    onn_shape_str(ctx, x), onn_shape_str(ctx, w));
  int64_t o;
  if (rlx_expr_is_const_int(w->shape[0], &o) && o % a.groups != 0)
    return onn_fail(op, "out channels %lld are not divisible by groups %lld", (long long)o, (long long)a.groups);
  rlx_expr_t* shape[5] = {x->shape[0], w->shape[0]};
  for (int i = 0; i < k; i++) {
    shape[2 + i] = window_out(ctx, x->shape[2 + i], w->shape[2 + i], a.padding[i] + a.padding[k + i], a.dilation[i],
                              a.strides[i], 0);
    RLX_RETURN_IF_ERROR(check_positive(ctx, op, shape[2 + i], x));
  }
  *out = rlx_sinfo_tensor(ctx, nd, shape, dt);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_conv(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, const rlx_relax_call_t* c,
                                          rlx_te_tensor_t** out) {
  conv_attrs_t a;
  RLX_RETURN_IF_ERROR(get_conv_attrs(c, &a));
  return rlx_topi_nn_conv(ctx, in[0], in[1], a.nsp, a.strides, a.padding, a.dilation, a.groups, a.out_dtype, out);
}

rlx_status_t* onn_legalize_conv(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  static const char* const names[4] = {"", "conv1d", "conv2d", "conv3d"};
  return onn_legalize_te(bb, c, te_conv, 2, c->args, names[op_nsp(c)], out);
}

/* ---------------------------------------------------------------- pools */
typedef struct {
  int nsp;
  int64_t pool_size[3], strides[3], dilation[3], padding[6];
  bool ceil_mode, count_include_pad;
} pool_attrs_t;

static bool is_max_pool(const rlx_relax_call_t* c) { return strstr(onn_op_name(c), "max_pool") != NULL; }

static RLX_MUST_USE rlx_status_t* get_pool_attrs(const rlx_relax_call_t* c, pool_attrs_t* a) {
  int k = a->nsp = op_nsp(c);
  RLX_RETURN_IF_ERROR(onn_attr_ints(c, "pool_size", k, 1, a->pool_size));
  RLX_RETURN_IF_ERROR(onn_attr_ints(c, "strides", k, 1, a->strides));
  RLX_RETURN_IF_ERROR(onn_attr_ints(c, "dilation", k, 1, a->dilation));
  RLX_RETURN_IF_ERROR(onn_attr_ints(c, "padding", 2 * k, 0, a->padding));
  a->ceil_mode = onn_attr_bool(c, "ceil_mode", false);
  a->count_include_pad = onn_attr_bool(c, "count_include_pad", false);
  RLX_RETURN_IF_ERROR(check_layout(c, "layout", data_layouts[k]));
  RLX_RETURN_IF_ERROR(check_layout(c, "out_layout", data_layouts[k]));
  for (int i = 0; i < k; i++)
    if (a->pool_size[i] < 1 || a->strides[i] < 1 || a->dilation[i] < 1)
      return onn_fail(onn_op_name(c), "pool_size, strides and dilation must be >= 1");
  for (int i = 0; i < 2 * k; i++)
    if (a->padding[i] < 0) return onn_fail(onn_op_name(c), "padding must be >= 0");
  return NULL;
}

rlx_status_t* onn_infer_pool(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  const char* op = onn_op_name(c);
  RLX_RETURN_IF_ERROR(onn_check_arity(c, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, 0, &x));
  pool_attrs_t a;
  RLX_RETURN_IF_ERROR(get_pool_attrs(c, &a));
  int k = a.nsp, nd = k + 2;
  if (x->ndim >= 0 && x->ndim != nd)
    return onn_fail(op, "data must be %d-D (%s), got %s", nd, data_layouts[k], onn_shape_str(ctx, x));
  if (!is_max_pool(c) && !rlx_dtype_is_void(x->dtype) && !rlx_dtype_is_float(x->dtype))
    return onn_fail(op, "input dtype must be float, got %s", onn_dt_str(ctx, x->dtype));
  if (!x->shape) return *out = rlx_sinfo_tensor(ctx, nd, NULL, x->dtype), NULL;
  rlx_expr_t* shape[5] = {x->shape[0], x->shape[1]};
  for (int i = 0; i < k; i++) {
    shape[2 + i] = window_out(ctx, x->shape[2 + i], rlx_ir_i64(ctx, a.pool_size[i]), a.padding[i] + a.padding[k + i],
                              a.dilation[i], a.strides[i], a.ceil_mode ? a.strides[i] - 1 : 0);
    RLX_RETURN_IF_ERROR(check_positive(ctx, op, shape[2 + i], x));
  }
  *out = rlx_sinfo_tensor(ctx, nd, shape, x->dtype);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_pool(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, const rlx_relax_call_t* c,
                                          rlx_te_tensor_t** out) {
  pool_attrs_t a;
  RLX_RETURN_IF_ERROR(get_pool_attrs(c, &a));
  return rlx_topi_nn_pool(ctx, in[0], is_max_pool(c) ? RLX_TOPI_POOL_MAX : RLX_TOPI_POOL_AVG, a.nsp, a.pool_size,
                          a.strides, a.dilation, a.padding, a.ceil_mode, a.count_include_pad, out);
}

rlx_status_t* onn_legalize_pool(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  const char* name = strrchr(onn_op_name(c), '.') + 1; /* "max_pool2d" */
  return onn_legalize_te(bb, c, te_pool, 1, c->args, name, out);
}

/* ---------------------------------------------------------------- adaptive pools */
/* output_size into out[nsp]; *given false when absent (= the input's size). */
static RLX_MUST_USE rlx_status_t* get_output_size(const rlx_relax_call_t* c, int nsp, int64_t* out, bool* given) {
  *given = rlx_attrs_get(&c->attrs, "output_size") != NULL;
  RLX_RETURN_IF_ERROR(onn_attr_ints(c, "output_size", nsp, 1, out));
  RLX_RETURN_IF_ERROR(check_layout(c, "layout", data_layouts[nsp]));
  RLX_RETURN_IF_ERROR(check_layout(c, "out_layout", data_layouts[nsp]));
  for (int i = 0; i < nsp; i++)
    if (*given && out[i] < 1) return onn_fail(onn_op_name(c), "output_size must be >= 1");
  return NULL;
}

rlx_status_t* onn_infer_adaptive_pool(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  const char* op = onn_op_name(c);
  RLX_RETURN_IF_ERROR(onn_check_arity(c, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, 0, &x));
  int k = op_nsp(c), nd = k + 2;
  int64_t os[3];
  bool given;
  RLX_RETURN_IF_ERROR(get_output_size(c, k, os, &given));
  if (x->ndim >= 0 && x->ndim != nd)
    return onn_fail(op, "data must be %d-D (%s), got %s", nd, data_layouts[k], onn_shape_str(ctx, x));
  if (!rlx_dtype_is_void(x->dtype) && !rlx_dtype_is_float(x->dtype))
    return onn_fail(op, "input dtype must be float, got %s", onn_dt_str(ctx, x->dtype));
  if (!x->shape) return *out = rlx_sinfo_tensor(ctx, nd, NULL, x->dtype), NULL;
  if (!given) return *out = &x->hdr, NULL;
  rlx_expr_t* shape[5] = {x->shape[0], x->shape[1]};
  for (int i = 0; i < k; i++) shape[2 + i] = rlx_ir_i64(ctx, os[i]);
  *out = rlx_sinfo_tensor(ctx, nd, shape, x->dtype);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_adaptive_pool(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n,
                                                   const rlx_relax_call_t* c, rlx_te_tensor_t** out) {
  int k = op_nsp(c);
  int64_t os[3];
  bool given;
  RLX_RETURN_IF_ERROR(get_output_size(c, k, os, &given));
  for (int i = 0; i < k && !given; i++)
    if (!rlx_expr_is_const_int(in[0]->buffer->shape[2 + i], &os[i]))
      return rlx_status_create(RLX_UNSUPPORTED, "output_size is needed with a symbolic input size");
  return rlx_topi_nn_adaptive_pool(ctx, in[0], RLX_TOPI_POOL_AVG, k, os, out);
}

rlx_status_t* onn_legalize_adaptive_pool(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  const char* name = strrchr(onn_op_name(c), '.') + 1; /* "adaptive_avg_pool2d" */
  return onn_legalize_te(bb, c, te_adaptive_pool, 1, c->args, name, out);
}

/* ---------------------------------------------------------------- transposed conv */
static const char* const tkernel_layouts[4] = {"", "IOW", "IOHW", "IODHW"};

/* conv2d_transpose → 2 */
static int convt_nsp(const rlx_relax_call_t* c) {
  const char* p = strstr(onn_op_name(c), "conv");
  return p && p[4] >= '1' && p[4] <= '3' ? p[4] - '0' : 2;
}

typedef struct {
  int nsp;
  int64_t strides[3], padding[6], output_padding[3], dilation[3], groups;
  rlx_dtype_t out_dtype;
} convt_attrs_t;

static RLX_MUST_USE rlx_status_t* get_convt_attrs(const rlx_relax_call_t* c, convt_attrs_t* a) {
  int k = a->nsp = convt_nsp(c);
  RLX_RETURN_IF_ERROR(onn_attr_ints(c, "strides", k, 1, a->strides));
  RLX_RETURN_IF_ERROR(onn_attr_ints(c, "padding", 2 * k, 0, a->padding));
  RLX_RETURN_IF_ERROR(onn_attr_ints(c, "output_padding", k, 0, a->output_padding));
  RLX_RETURN_IF_ERROR(onn_attr_ints(c, "dilation", k, 1, a->dilation));
  a->groups = onn_attr_int(c, "groups", 1);
  RLX_RETURN_IF_ERROR(onn_attr_out_dtype(c, &a->out_dtype));
  RLX_RETURN_IF_ERROR(check_layout(c, "data_layout", data_layouts[k]));
  RLX_RETURN_IF_ERROR(check_layout(c, "kernel_layout", tkernel_layouts[k]));
  RLX_RETURN_IF_ERROR(check_layout(c, "out_layout", data_layouts[k]));
  const char* op = onn_op_name(c);
  for (int i = 0; i < k; i++) {
    if (a->strides[i] < 1 || a->dilation[i] < 1) return onn_fail(op, "strides and dilation must be >= 1");
    if (a->output_padding[i] < 0 || (a->output_padding[i] >= a->strides[i] && a->output_padding[i] >= a->dilation[i]))
      return onn_fail(op, "output_padding %lld must be >= 0 and smaller than the stride or the dilation",
                      (long long)a->output_padding[i]);
  }
  for (int i = 0; i < 2 * k; i++)
    if (a->padding[i] < 0) return onn_fail(op, "padding must be >= 0");
  if (a->groups < 1) return onn_fail(op, "groups must be >= 1, got %lld", (long long)a->groups);
  return NULL;
}

rlx_status_t* onn_infer_conv_transpose(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  const char* op = onn_op_name(c);
  rlx_sinfo_tensor_t *x, *w;
  RLX_RETURN_IF_ERROR(conv_operands(ctx, c, &x, &w));
  convt_attrs_t a;
  RLX_RETURN_IF_ERROR(get_convt_attrs(c, &a));
  int k = a.nsp, nd = k + 2;
  rlx_dtype_t dt;
  RLX_RETURN_IF_ERROR(conv_dtype_rank(ctx, op, x, w, k, a.out_dtype, tkernel_layouts[k], &dt));
  if (!x->shape || !w->shape) return *out = rlx_sinfo_tensor(ctx, nd, NULL, dt), NULL;
  if (onn_provably_ne(ctx, x->shape[1], w->shape[0]))
    return onn_fail(op, "data channels %s != weight in-channels %s (shapes %s and %s; the weight is %s)",
                    onn_dim_str(ctx, x->shape[1]), onn_dim_str(ctx, w->shape[0]), onn_shape_str(ctx, x),
                    onn_shape_str(ctx, w), tkernel_layouts[k]);
  int64_t ci;
  if (rlx_expr_is_const_int(x->shape[1], &ci) && ci % a.groups != 0)
    return onn_fail(op, "in channels %lld are not divisible by groups %lld", (long long)ci, (long long)a.groups);
  rlx_expr_t* shape[5] = {x->shape[0], rlx_ir_simplify(ctx, rlx_ir_mul(ctx, w->shape[1], rlx_ir_i64(ctx, a.groups)))};
  for (int i = 0; i < k; i++) {
    rlx_expr_t* e =
        rlx_ir_mul(ctx, rlx_ir_sub(ctx, x->shape[2 + i], rlx_ir_i64(ctx, 1)), rlx_ir_i64(ctx, a.strides[i]));
    e = rlx_ir_add(
        ctx, e, rlx_ir_mul(ctx, rlx_ir_i64(ctx, a.dilation[i]), rlx_ir_sub(ctx, w->shape[2 + i], rlx_ir_i64(ctx, 1))));
    e = rlx_ir_add(ctx, e, rlx_ir_i64(ctx, a.output_padding[i] + 1 - a.padding[i] - a.padding[k + i]));
    shape[2 + i] = rlx_ir_simplify(ctx, e);
    RLX_RETURN_IF_ERROR(check_positive(ctx, op, shape[2 + i], x));
  }
  *out = rlx_sinfo_tensor(ctx, nd, shape, dt);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_conv_transpose(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n,
                                                    const rlx_relax_call_t* c, rlx_te_tensor_t** out) {
  convt_attrs_t a;
  RLX_RETURN_IF_ERROR(get_convt_attrs(c, &a));
  return rlx_topi_nn_conv_transpose(ctx, in[0], in[1], a.nsp, a.strides, a.padding, a.output_padding, a.dilation,
                                    a.groups, a.out_dtype, out);
}

rlx_status_t* onn_legalize_conv_transpose(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  const char* name = strrchr(onn_op_name(c), '.') + 1; /* "conv2d_transpose" */
  return onn_legalize_te(bb, c, te_conv_transpose, 2, c->args, name, out);
}
