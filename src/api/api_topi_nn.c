/* topi by name, second part (api_topi.h): TVM's topi.nn convolutions, transposed convolutions,
 * pools, norms, matmuls, flatten and mirror_pad, and the top-level index / creation functions
 * gather, arange, trilu, one_hot, scatter_elements, full, full_like and matmul, each under
 * TVM's name and parameters. Messages leave out the function name: rlx_topi_call_multi puts
 * "topi.<name>: " in front.
 *
 * TVM's argument forms accepted here: a stride / dilation / kernel / output size is one int
 * or one per spatial dim; a padding is one int, one per spatial dim (both sides), all the
 * "before" values then all the "after" values (2-D: top, left, bottom, right), or "VALID" /
 * "SAME" for convolutions (SAME: dilated kernel - 1 split with the larger half after). Layouts
 * other than the channel-first ones (NCW, NCHW, NCDHW; kernels OIW, OIHW, OIDHW) are errors:
 * the C library has only those. */
#include <stdarg.h>

#include "api_topi.h"

static RLX_MUST_USE rlx_status_t* bad(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
static RLX_MUST_USE rlx_status_t* bad(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rlx_status_t* st = rlx_status_createv(RLX_INVALID_ARGUMENT, fmt, ap);
  va_end(ap);
  return st;
}

/* ------------------------------------------------------------------ argument forms */
/* One int or nsp ints under key (or alt) into out; absent: dflt (an error when dflt < 0: the
 * parameter is required, which Python enforces). */
static RLX_MUST_USE rlx_status_t* spatial(const targs_t* x, const char* key, const char* alt, int nsp, int64_t dflt,
                                          int64_t* out) {
  int n;
  const int64_t* v = get_ints(x, key, &n);
  if (n < 0 && alt) v = get_ints(x, alt, &n);
  if (n < 0 && dflt >= 0) {
    for (int i = 0; i < nsp; i++) out[i] = dflt;
    return NULL;
  }
  if (n != 1 && n != nsp) return bad("%s must be one int or %d ints", key, nsp);
  for (int i = 0; i < nsp; i++) {
    out[i] = v[n == 1 ? 0 : i];
    if (!in_limit(out[i])) return bad("%s value %lld is out of range", key, (long long)out[i]);
  }
  return NULL;
}

/* TVM's padding forms (see the file comment) into out[2 * nsp] (befores, then afters). kernel
 * and dilation serve "SAME" (kernel NULL: strings are refused, as for pools). */
static RLX_MUST_USE rlx_status_t* padding(const targs_t* x, int nsp, rlx_te_tensor_t* kernel, const int64_t* dilation,
                                          const char* dflt, int64_t* out) {
  const rlx_attr_t* a = attr(x, "padding");
  const char* s = a && a->kind == RLX_ATTR_STR ? a->u.s : !a ? dflt : NULL;
  if (s && kernel && (!strcmp(s, "VALID") || !strcmp(s, "SAME"))) {
    for (int i = 0; i < nsp; i++) {
      int64_t k = 0;
      if (!strcmp(s, "VALID")) {
        out[i] = out[nsp + i] = 0;
        continue;
      }
      if (!rlx_expr_is_const_int(kernel->buffer->shape[2 + i], &k) || !in_limit(k))
        return bad("padding \"SAME\" needs a constant kernel size");
      int64_t total = (k - 1) * dilation[i];
      out[i] = total / 2;
      out[nsp + i] = total - total / 2;
    }
    return NULL;
  }
  if (s) return bad("padding \"%s\" is not %s", s, kernel ? "\"VALID\", \"SAME\" or a list of ints" : "a list of ints");
  int n;
  const int64_t* v = get_ints(x, "padding", &n);
  if (n != 1 && n != nsp && n != 2 * nsp) return bad("padding must be one int, %d or %d ints", nsp, 2 * nsp);
  for (int i = 0; i < nsp; i++) {
    out[i] = n == 2 * nsp ? v[i] : v[n == 1 ? 0 : i];
    out[nsp + i] = n == 2 * nsp ? v[nsp + i] : out[i];
    if (!in_limit(out[i]) || !in_limit(out[nsp + i]))
      return bad("padding value %lld is out of range", (long long)(in_limit(out[i]) ? out[nsp + i] : out[i]));
  }
  return NULL;
}

static const char* const data_layouts[4] = {"", "NCW", "NCHW", "NCDHW"};
static const char* const kernel_layouts[4] = {"", "OIW", "OIHW", "OIDHW"};

static RLX_MUST_USE rlx_status_t* layout_ok(const targs_t* x, const char* key, int nsp, bool kernel) {
  const char* want = kernel ? kernel_layouts[nsp] : data_layouts[nsp];
  const char* l = get_str(x, key, want);
  if (!strcmp(l, want) || (kernel && !*l)) return NULL;
  return bad("%s \"%s\" is not supported (only %s)", key, l, want);
}

/* ------------------------------------------------------------------ convolutions */
enum { F_NSP = 3, F_DEPTHWISE = 4, F_TRANSPOSE = 8, F_LAYOUTS = 16 };

/* conv1d_ncw, conv2d, conv2d_nchw, group_conv2d_nchw, depthwise_conv2d_nchw, conv3d_ncdhw and the
 * transposed ones; code = spatial dims | flags. Depthwise: TVM's filter is (C, multiplier,
 * k...), which read row-major is the grouped (C * multiplier, 1, k...) filter with C groups. */
static RLX_MUST_USE rlx_status_t* a_conv(const targs_t* x, rlx_te_tensor_t** out) {
  int nsp = x->code & F_NSP;
  rlx_te_tensor_t *data = x->t[0], *kernel = x->t[1];
  if (rlx_te_tensor_ndim(data) != nsp + 2 || rlx_te_tensor_ndim(kernel) != nsp + 2)
    return bad("data and kernel must be %d-D (%s, %s)", nsp + 2, data_layouts[nsp], kernel_layouts[nsp]);
  if (x->code & F_LAYOUTS) {
    RLX_RETURN_IF_ERROR(layout_ok(x, "data_layout", nsp, false));
    RLX_RETURN_IF_ERROR(layout_ok(x, "kernel_layout", nsp, true));
  }
  int64_t strides[3], dilation[3], pad[6], out_pad[3];
  RLX_RETURN_IF_ERROR(spatial(x, "strides", "stride", nsp, 1, strides));
  RLX_RETURN_IF_ERROR(spatial(x, "dilation", NULL, nsp, 1, dilation));
  RLX_RETURN_IF_ERROR(padding(x, nsp, kernel, dilation, "VALID", pad));
  int64_t groups = get_int(x, "groups", 1);
  if (!in_limit(groups)) return bad("groups %lld is out of range", (long long)groups);
  rlx_dtype_t out_dtype = get_dtype(x, "out_dtype");
  if (x->code & F_TRANSPOSE) {
    RLX_RETURN_IF_ERROR(spatial(x, "output_padding", NULL, nsp, 0, out_pad));
    return rlx_topi_nn_conv_transpose(x->ctx, data, kernel, nsp, strides, pad, out_pad, dilation, groups, out_dtype,
                                      out);
  }
  if (x->code & F_DEPTHWISE) {
    int64_t c, m;
    if (!rlx_expr_is_const_int(kernel->buffer->shape[0], &c) || !rlx_expr_is_const_int(kernel->buffer->shape[1], &m) ||
        c < 1 || m < 1 || !in_limit(c) || !in_limit(m))
      return bad("the filter's channel and multiplier dims must be constants from 1 to 2^31");
    rlx_expr_t* shape[5] = {rlx_ir_int(x->ctx, kernel->buffer->shape[0]->dtype, c * m),
                            rlx_ir_int(x->ctx, kernel->buffer->shape[1]->dtype, 1)};
    for (int i = 0; i < nsp; i++) shape[2 + i] = kernel->buffer->shape[2 + i];
    RLX_RETURN_IF_ERROR(rlx_topi_reshape(x->ctx, kernel, nsp + 2, shape, &kernel));
    groups = c;
  }
  return rlx_topi_nn_conv(x->ctx, data, kernel, nsp, strides, pad, dilation, groups, out_dtype, out);
}

/* ------------------------------------------------------------------ pools */
static RLX_MUST_USE rlx_status_t* pool_kind(const targs_t* x, rlx_topi_pool_kind_t* kind) {
  const char* t = get_str(x, "pool_type", "");
  if (!strcmp(t, "max") || !strcmp(t, "avg")) {
    *kind = !strcmp(t, "max") ? RLX_TOPI_POOL_MAX : RLX_TOPI_POOL_AVG;
    return NULL;
  }
  return bad("pool_type \"%s\" is not \"max\" or \"avg\"", t);
}

static RLX_MUST_USE rlx_status_t* a_pool(const targs_t* x, rlx_te_tensor_t** out) {
  int nsp = x->code & F_NSP;
  rlx_topi_pool_kind_t kind = RLX_TOPI_POOL_MAX; /* set by pool_kind (GCC -O3 cannot tell) */
  int64_t size[3], strides[3], dilation[3], pad[6];
  RLX_RETURN_IF_ERROR(pool_kind(x, &kind));
  RLX_RETURN_IF_ERROR(layout_ok(x, "layout", nsp, false));
  RLX_RETURN_IF_ERROR(spatial(x, "kernel", NULL, nsp, -1, size));
  RLX_RETURN_IF_ERROR(spatial(x, "stride", NULL, nsp, -1, strides));
  RLX_RETURN_IF_ERROR(spatial(x, "dilation", NULL, nsp, -1, dilation));
  RLX_RETURN_IF_ERROR(padding(x, nsp, NULL, NULL, NULL, pad));
  return rlx_topi_nn_pool(x->ctx, x->t[0], kind, nsp, size, strides, dilation, pad, get_bool(x, "ceil_mode", false),
                          get_bool(x, "count_include_pad", true), out);
}

/* adaptive_pool1d / adaptive_pool / adaptive_pool3d; global_pool is the 1 x 1 case. */
static RLX_MUST_USE rlx_status_t* a_adaptive_pool(const targs_t* x, rlx_te_tensor_t** out) {
  int nsp = x->code & F_NSP;
  rlx_topi_pool_kind_t kind = RLX_TOPI_POOL_MAX; /* set by pool_kind (GCC -O3 cannot tell) */
  int64_t size[3] = {1, 1, 1};
  bool global = attr(x, "output_size") == NULL;
  RLX_RETURN_IF_ERROR(pool_kind(x, &kind));
  RLX_RETURN_IF_ERROR(layout_ok(x, "layout", nsp, false));
  if (!global) RLX_RETURN_IF_ERROR(spatial(x, "output_size", NULL, nsp, -1, size));
  return rlx_topi_nn_adaptive_pool(x->ctx, x->t[0], kind, nsp, size, out);
}

/* ------------------------------------------------------------------ norms */
/* The axes of key as ints (n of them, at most 8). */
static RLX_MUST_USE rlx_status_t* int_axes(const targs_t* x, const char* key, int* n, int* out) {
  const int64_t* v = get_ints(x, key, n);
  if (*n < 1 || *n > 8) return bad("%s must be 1 to 8 axes", key);
  for (int i = 0; i < *n; i++) {
    if (!in_limit(v[i])) return bad("%s %lld is out of range", key, (long long)v[i]);
    out[i] = (int)v[i];
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* a_layer_norm(const targs_t* x, rlx_te_tensor_t** out) {
  int n, axes[8];
  RLX_RETURN_IF_ERROR(int_axes(x, "axis", &n, axes));
  return rlx_topi_nn_layer_norm(x->ctx, x->t[0], x->t[1], x->t[2], n, axes, get_float(x, "epsilon", 1e-5), out);
}

static RLX_MUST_USE rlx_status_t* a_rms_norm(const targs_t* x, rlx_te_tensor_t** out) {
  int n, axes[8];
  RLX_RETURN_IF_ERROR(int_axes(x, "axis", &n, axes));
  return rlx_topi_nn_rms_norm(x->ctx, x->t[0], x->t[1], n, axes, get_float(x, "epsilon", 1e-5), out);
}

static RLX_MUST_USE rlx_status_t* a_group_norm(const targs_t* x, rlx_te_tensor_t** out) {
  int n, axes[8];
  RLX_RETURN_IF_ERROR(int_axes(x, "axes", &n, axes));
  if (!in_limit(get_int(x, "channel_axis", 1))) return bad("channel_axis is out of range");
  return rlx_topi_nn_group_norm(x->ctx, x->t[0], x->t[1], x->t[2], get_int(x, "num_groups", 0),
                                (int)get_int(x, "channel_axis", 1), n, axes, get_float(x, "epsilon", 1e-5), out);
}

/* TVM's batch_norm returns [out, moving_mean, moving_var]: with training the updated moving
 * statistics; without, TVM hands back its inputs, here copies of them (an output must be a
 * computed tensor). */
static RLX_MUST_USE rlx_status_t* a_batch_norm(const targs_t* x, int* out_n, rlx_te_tensor_t*** out) {
  if (!in_limit(get_int(x, "axis", 1))) return bad("axis %lld is out of range", (long long)get_int(x, "axis", 1));
  int axis = (int)get_int(x, "axis", 1);
  double eps = get_float(x, "epsilon", 1e-5);
  rlx_te_tensor_t* gamma = get_bool(x, "scale", true) ? x->t[1] : NULL;
  rlx_te_tensor_t* beta = get_bool(x, "center", true) ? x->t[2] : NULL;
  rlx_te_tensor_t** ts = RLX_NEW_ARRAY(x->ctx, rlx_te_tensor_t*, 3);
  if (get_bool(x, "training", false)) {
    for (int which = 0; which < 3; which++)
      RLX_RETURN_IF_ERROR(rlx_topi_nn_batch_norm_train(x->ctx, x->t[0], gamma, beta, x->t[3], x->t[4], axis, eps,
                                                       get_float(x, "momentum", 0.1), which, &ts[which]));
  } else {
    RLX_RETURN_IF_ERROR(rlx_topi_nn_batch_norm(x->ctx, x->t[0], gamma, beta, x->t[3], x->t[4], axis, eps, &ts[0]));
    ts[1] = rlx_te_compute(x->ctx, rlx_te_tensor_ndim(x->t[3]), x->t[3]->buffer->shape, copy_body, x->t[3],
                           "T_moving_mean", "injective");
    ts[2] = rlx_te_compute(x->ctx, rlx_te_tensor_ndim(x->t[4]), x->t[4]->buffer->shape, copy_body, x->t[4],
                           "T_moving_var", "injective");
  }
  *out_n = 3;
  *out = ts;
  return NULL;
}

/* ------------------------------------------------------------------ matmuls, flatten, mirror_pad */
/* t with its last two dims swapped (rank >= 2). */
static RLX_MUST_USE rlx_status_t* swap_last(rlx_ctx_t* ctx, rlx_te_tensor_t* t, rlx_te_tensor_t** out) {
  int nd = rlx_te_tensor_ndim(t);
  if (nd < 2) return bad("a transposed operand must have rank >= 2, got %d", nd);
  int64_t* perm = RLX_NEW_ARRAY(ctx, int64_t, nd);
  for (int i = 0; i < nd; i++) perm[i] = i;
  perm[nd - 2] = nd - 1;
  perm[nd - 1] = nd - 2;
  return rlx_topi_transpose(ctx, t, perm, out);
}

/* matmul (a, b, transp_a, transp_b), nn.matmul (tensor_a, tensor_b, bias, out_dtype,
 * transpose_a, transpose_b) and nn.batch_matmul (3-D operands, transpose_b defaults to True). */
static RLX_MUST_USE rlx_status_t* a_matmul(const targs_t* x, rlx_te_tensor_t** out) {
  bool batch = x->code == 1;
  rlx_te_tensor_t *a = x->t[0], *b = x->t[1];
  if (batch && (rlx_te_tensor_ndim(a) != 3 || rlx_te_tensor_ndim(b) != 3))
    return bad("tensor_a and tensor_b must be 3-D, got ranks %d and %d", rlx_te_tensor_ndim(a), rlx_te_tensor_ndim(b));
  if (batch && attr(x, "oshape")) return bad("oshape is not supported (the output shape is inferred)");
  bool ta = get_bool(x, "transp_a", false) || get_bool(x, "transpose_a", false);
  bool tb = get_bool(x, "transp_b", false) || get_bool(x, "transpose_b", batch);
  if (ta) RLX_RETURN_IF_ERROR(swap_last(x->ctx, a, &a));
  if (tb) RLX_RETURN_IF_ERROR(swap_last(x->ctx, b, &b));
  if (x->n <= 2 || !x->t[2]) return rlx_topi_matmul(x->ctx, a, b, get_dtype(x, "out_dtype"), out);
  rlx_te_tensor_t* mm;
  RLX_RETURN_IF_ERROR(rlx_topi_matmul(x->ctx, a, b, get_dtype(x, "out_dtype"), &mm));
  return rlx_topi_binary(x->ctx, RLX_TOPI_ADD, mm, x->t[2], out);
}

/* nn.flatten: (N, everything else). */
static RLX_MUST_USE rlx_status_t* a_flatten(const targs_t* x, rlx_te_tensor_t** out) {
  rlx_te_tensor_t* t = x->t[0];
  int nd = rlx_te_tensor_ndim(t);
  if (nd < 1) return bad("data must have rank >= 1");
  rlx_expr_t* rest = rlx_ir_int(x->ctx, t->buffer->shape[0]->dtype, 1);
  for (int d = 1; d < nd; d++) rest = rlx_ir_mul(x->ctx, rest, t->buffer->shape[d]);
  rlx_expr_t* shape[2] = {t->buffer->shape[0], rlx_topi_simplify_dim(x->ctx, rest)};
  return rlx_topi_reshape(x->ctx, t, 2, shape, out);
}

/* nn.mirror_pad: mode "REFLECT" (numpy's reflect); TVM's default "SYMMETRIC" (the edge
 * repeated) is not in the C library. */
static RLX_MUST_USE rlx_status_t* a_mirror_pad(const targs_t* x, rlx_te_tensor_t** out) {
  const char* mode = get_str(x, "mode", "SYMMETRIC");
  if (strcmp(mode, "REFLECT") != 0) return bad("mode \"%s\" is not supported (only \"REFLECT\")", mode);
  int nb, na, nd = rlx_te_tensor_ndim(x->t[0]);
  const int64_t* before = get_ints(x, "pad_before", &nb);
  const int64_t* after = get_ints(x, "pad_after", &na);
  if (na < 0) {
    after = before;
    na = nb;
  }
  if (nb != nd || na != nd) return bad("pad_before and pad_after must have one entry per dimension of data");
  int64_t* width = RLX_NEW_ARRAY(x->ctx, int64_t, 2 * nd);
  for (int d = 0; d < nd; d++) {
    if (!in_limit(before[d]) || !in_limit(after[d])) return bad("padding on axis %d is out of range", d);
    width[2 * d] = before[d];
    width[2 * d + 1] = after[d];
  }
  return rlx_topi_pad_mode(x->ctx, x->t[0], width, "reflect", out);
}

/* ------------------------------------------------------------------ index and creation */
static RLX_MUST_USE rlx_status_t* a_gather(const targs_t* x, rlx_te_tensor_t** out) {
  return rlx_topi_gather_elements(x->ctx, x->t[0], x->t[1], get_int(x, "axis", 0), out);
}

static bool const_number(const rlx_attr_t* a, double* v) {
  int64_t i;
  if (!a) return false;
  if (a->kind == RLX_ATTR_EXPR && rlx_expr_is_const_int(a->u.expr, &i)) {
    *v = (double)i;
    return true;
  }
  if (a->kind == RLX_ATTR_EXPR && a->u.expr->kind == RLX_EXPR_FLOAT_IMM) {
    *v = ((const rlx_float_imm_t*)a->u.expr)->value;
    return true;
  }
  return false;
}

/* arange(start, stop=None, step=1, dtype="float32"): one argument is the stop. The length is
 * ceil((stop - start) / step) for constants; with symbolic integer bounds the step must be a
 * positive integer constant. */
static RLX_MUST_USE rlx_status_t* a_arange(const targs_t* x, rlx_te_tensor_t** out) {
  rlx_dtype_t dt = get_dtype(x, "dtype");
  if (rlx_dtype_is_void(dt)) dt = rlx_dt_float32();
  const rlx_attr_t* start = attr(x, "start");
  const rlx_attr_t* stop = attr(x, "stop");
  if (!stop) {
    stop = start;
    start = NULL;
  }
  double s0 = 0, s1 = 0, step = 1;
  const rlx_attr_t* step_a = attr(x, "step");
  if (step_a && !const_number(step_a, &step)) return bad("step must be a constant");
  if (step == 0) return bad("step must not be 0");
  rlx_expr_t* length;
  if ((!start || const_number(start, &s0)) && const_number(stop, &s1)) {
    double n = (s1 - s0) / step;
    if (!(n <= (double)RLX_API_TOPI_LIMIT)) return bad("the length (stop - start) / step = %g is out of range", n);
    int64_t len = n <= 0 ? 0 : (int64_t)n + ((double)(int64_t)n < n);
    length = rlx_ir_i64(x->ctx, len);
  } else {
    const rlx_attr_t* sym[2] = {start, stop};
    for (int i = 0; i < 2; i++)
      if (sym[i] && (sym[i]->kind != RLX_ATTR_EXPR || !rlx_dtype_is_int(sym[i]->u.expr->dtype)))
        return bad("symbolic start and stop must be integer PrimExprs");
    if (step < 1 || step > (double)RLX_API_TOPI_LIMIT || step != (double)(int64_t)step)
      return bad("with symbolic bounds step must be a positive int");
    rlx_expr_t* e_stop = rlx_ir_cast(x->ctx, rlx_dt_int64(), stop->u.expr);
    rlx_expr_t* e_start = start ? rlx_ir_cast(x->ctx, rlx_dt_int64(), start->u.expr) : rlx_ir_i64(x->ctx, 0);
    rlx_expr_t* span = rlx_ir_add(x->ctx, rlx_ir_sub(x->ctx, e_stop, e_start), rlx_ir_i64(x->ctx, (int64_t)step - 1));
    length = rlx_ir_max(x->ctx, rlx_ir_floordiv(x->ctx, span, rlx_ir_i64(x->ctx, (int64_t)step)), rlx_ir_i64(x->ctx, 0));
  }
  return rlx_topi_arange(x->ctx, scalar_as(x->ctx, start, dt, 0), scalar_as(x->ctx, step_a, dt, 1), length, dt, out);
}

static RLX_MUST_USE rlx_status_t* a_trilu(const targs_t* x, rlx_te_tensor_t** out) {
  return rlx_topi_trilu(x->ctx, x->t[0], get_int(x, "k", 0), get_bool(x, "upper", false), out);
}

static RLX_MUST_USE rlx_status_t* a_one_hot(const targs_t* x, rlx_te_tensor_t** out) {
  rlx_dtype_t dt = get_dtype(x, "dtype");
  if (rlx_dtype_is_void(dt)) return bad("dtype is required");
  if (!in_limit(get_int(x, "depth", 0))) return bad("depth %lld is out of range", (long long)get_int(x, "depth", 0));
  return rlx_topi_one_hot(x->ctx, x->t[0], scalar_as(x->ctx, attr(x, "on_value"), dt, 1),
                          scalar_as(x->ctx, attr(x, "off_value"), dt, 0), get_int(x, "depth", 0),
                          get_int(x, "axis", -1), out);
}

static RLX_MUST_USE rlx_status_t* a_scatter_elements(const targs_t* x, rlx_te_tensor_t** out) {
  return rlx_topi_scatter_elements(x->ctx, x->t[0], x->t[1], x->t[2], get_int(x, "axis", 0),
                                   get_str(x, "reduction", "update"), out);
}

/* full(shape, dtype, fill_value) and full_like(x, fill_value). */
static RLX_MUST_USE rlx_status_t* a_full(const targs_t* x, rlx_te_tensor_t** out) {
  double v = get_float(x, "fill_value", 0);
  if (x->n == 1) {
    rlx_te_tensor_t* t = x->t[0];
    return rlx_topi_full(x->ctx, rlx_te_tensor_ndim(t), t->buffer->shape, t->buffer->dtype, &v, NULL, out);
  }
  int n;
  const int64_t* s = get_ints(x, "shape", &n);
  rlx_dtype_t dt = get_dtype(x, "dtype");
  if (n < 0 || rlx_dtype_is_void(dt)) return bad("shape and dtype are required");
  rlx_expr_t** shape = RLX_NEW_ARRAY(x->ctx, rlx_expr_t*, n);
  for (int i = 0; i < n; i++) {
    if (s[i] < 0 || !in_limit(s[i])) return bad("shape dim %d is out of range (%lld)", i, (long long)s[i]);
    shape[i] = rlx_ir_i64(x->ctx, s[i]);
  }
  return rlx_topi_full(x->ctx, n, shape, dt, &v, NULL, out);
}

/* ------------------------------------------------------------------ the entries */
#define CONV_COMMON "padding:ints dilation:ints"
const topi_entry_t rlx_api_topi_nn_entries[] = {
    {"matmul", "a:t b:t transp_a:bool? transp_b:bool?", a_matmul, 0, NULL},
    {"nn.matmul", "tensor_a:t tensor_b:t bias:t? out_dtype:dtype? transpose_a:bool? transpose_b:bool?", a_matmul, 0, NULL},
    {"nn.batch_matmul", "tensor_a:t tensor_b:t oshape:ints? out_dtype:dtype? transpose_a:bool? transpose_b:bool?",
     a_matmul, 1, NULL},
    {"nn.flatten", "data:t", a_flatten, 0, NULL},
    {"nn.conv1d_ncw", "data:t kernel:t strides:ints? padding:ints? dilation:ints? out_dtype:dtype?", a_conv, 1, NULL},
    {"nn.conv2d", "input:t filter:t strides:ints " CONV_COMMON " data_layout:str? kernel_layout:str? out_dtype:dtype?",
     a_conv, 2 | F_LAYOUTS, NULL},
    {"nn.conv2d_nchw", "Input:t Filter:t stride:ints " CONV_COMMON " out_dtype:dtype?", a_conv, 2, NULL},
    {"nn.group_conv2d_nchw", "Input:t Filter:t stride:ints " CONV_COMMON " groups:int out_dtype:dtype?", a_conv, 2, NULL},
    {"nn.depthwise_conv2d_nchw", "Input:t Filter:t stride:ints " CONV_COMMON " out_dtype:dtype?", a_conv,
     2 | F_DEPTHWISE, NULL},
    {"nn.conv3d_ncdhw", "Input:t Filter:t stride:ints " CONV_COMMON " groups:int out_dtype:dtype?", a_conv, 3, NULL},
    {"nn.conv1d_transpose_ncw", "data:t kernel:t stride:ints padding:ints out_dtype:dtype output_padding:ints", a_conv,
     1 | F_TRANSPOSE, NULL},
    {"nn.conv2d_transpose_nchw", "Input:t Filter:t strides:ints padding:ints out_dtype:dtype output_padding:ints",
     a_conv, 2 | F_TRANSPOSE, NULL},
    {"nn.group_conv2d_transpose_nchw",
     "data:t kernel:t stride:ints padding:ints out_dtype:dtype output_padding:ints groups:int", a_conv,
     2 | F_TRANSPOSE, NULL},
    {"nn.conv3d_transpose_ncdhw", "Input:t Filter:t strides:ints padding:ints out_dtype:dtype output_padding:ints",
     a_conv, 3 | F_TRANSPOSE, NULL},
    {"nn.pool1d",
     "data:t kernel:ints stride:ints dilation:ints padding:ints pool_type:str ceil_mode:bool? layout:str? "
     "count_include_pad:bool?",
     a_pool, 1, NULL},
    {"nn.pool2d",
     "data:t kernel:ints stride:ints dilation:ints padding:ints pool_type:str ceil_mode:bool? layout:str? "
     "count_include_pad:bool?",
     a_pool, 2, NULL},
    {"nn.pool3d",
     "data:t kernel:ints stride:ints dilation:ints padding:ints pool_type:str ceil_mode:bool? layout:str? "
     "count_include_pad:bool?",
     a_pool, 3, NULL},
    {"nn.adaptive_pool1d", "data:t output_size:ints pool_type:str layout:str?", a_adaptive_pool, 1, NULL},
    {"nn.adaptive_pool", "data:t output_size:ints pool_type:str layout:str?", a_adaptive_pool, 2, NULL},
    {"nn.adaptive_pool3d", "data:t output_size:ints pool_type:str layout:str?", a_adaptive_pool, 3, NULL},
    {"nn.global_pool", "data:t pool_type:str layout:str?", a_adaptive_pool, 2, NULL},
    {"nn.layer_norm", "data:t gamma:t? beta:t? axis:ints epsilon:float?", a_layer_norm, 0, NULL},
    {"nn.rms_norm", "data:t weight:t? axis:ints epsilon:float?", a_rms_norm, 0, NULL},
    {"nn.group_norm", "data:t gamma:t? beta:t? num_groups:int channel_axis:int axes:ints epsilon:float?", a_group_norm,
     0, NULL},
    {"nn.batch_norm",
     "data:t gamma:t beta:t moving_mean:t moving_var:t axis:int? epsilon:float? center:bool? scale:bool? "
     "training:bool? momentum:float?",
     NULL, 0, a_batch_norm},
    {"nn.mirror_pad", "data:t pad_before:ints pad_after:ints? mode:str?", a_mirror_pad, 0, NULL},
    {"gather", "data:t axis:int indices:t", a_gather, 0, NULL},
    {"arange", "start:expr stop:expr? step:expr? dtype:dtype?", a_arange, 0, NULL},
    {"trilu", "data:t k:int upper:bool", a_trilu, 0, NULL},
    {"one_hot", "indices:t on_value:expr off_value:expr depth:int axis:int dtype:dtype", a_one_hot, 0, NULL},
    {"scatter_elements", "data:t indices:t updates:t axis:int? reduction:str?", a_scatter_elements, 0, NULL},
    {"full", "shape:ints dtype:dtype fill_value:float", a_full, 0, NULL},
    {"full_like", "x:t fill_value:float", a_full, 0, NULL},
};
const int rlx_api_topi_nn_count = (int)(sizeof(rlx_api_topi_nn_entries) / sizeof(rlx_api_topi_nn_entries[0]));
_Static_assert(sizeof(rlx_api_topi_nn_entries) / sizeof(rlx_api_topi_nn_entries[0]) == RLX_API_TOPI_NN_COUNT,
               "RLX_API_TOPI_NN_COUNT (api_topi.h) must match the entries");
