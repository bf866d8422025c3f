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

static void* bad(rlx_status_t** st, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void* bad(rlx_status_t** st, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  *st = rlx_status_createv(RLX_INVALID_ARGUMENT, fmt, ap);
  va_end(ap);
  return NULL;
}

/* ------------------------------------------------------------------ argument forms */
/* One int or nsp ints under key (or alt) into out; absent: dflt (false when dflt < 0 = the
 * parameter is required, which Python enforces). */
static bool spatial(const targs_t* x, const char* key, const char* alt, int nsp, int64_t dflt, int64_t* out,
                    rlx_status_t** st) {
  int n;
  const int64_t* v = get_ints(x, key, &n);
  if (n < 0 && alt) v = get_ints(x, alt, &n);
  if (n < 0 && dflt >= 0) {
    for (int i = 0; i < nsp; i++) out[i] = dflt;
    return true;
  }
  if (n != 1 && n != nsp) {
    bad(st, "%s must be one int or %d ints", key, nsp);
    return false;
  }
  for (int i = 0; i < nsp; i++) {
    out[i] = v[n == 1 ? 0 : i];
    if (!in_limit(out[i])) {
      bad(st, "%s value %lld is out of range", key, (long long)out[i]);
      return false;
    }
  }
  return true;
}

/* TVM's padding forms (see the file comment) into out[2 * nsp] (befores, then afters). kernel
 * and dilation serve "SAME" (kernel NULL: strings are refused, as for pools). */
static bool padding(const targs_t* x, int nsp, rlx_te_tensor_t* kernel, const int64_t* dilation, const char* dflt,
                    int64_t* out, rlx_status_t** st) {
  const rlx_attr_t* a = attr(x, "padding");
  const char* s = a && a->kind == RLX_ATTR_STR ? a->u.s : !a ? dflt : NULL;
  if (s && kernel && (!strcmp(s, "VALID") || !strcmp(s, "SAME"))) {
    for (int i = 0; i < nsp; i++) {
      int64_t k = 0;
      if (!strcmp(s, "VALID")) {
        out[i] = out[nsp + i] = 0;
        continue;
      }
      if (!rlx_expr_is_const_int(kernel->buffer->shape[2 + i], &k) || !in_limit(k)) {
        bad(st, "padding \"SAME\" needs a constant kernel size");
        return false;
      }
      int64_t total = (k - 1) * dilation[i];
      out[i] = total / 2;
      out[nsp + i] = total - total / 2;
    }
    return true;
  }
  if (s) {
    bad(st, "padding \"%s\" is not %s", s, kernel ? "\"VALID\", \"SAME\" or a list of ints" : "a list of ints");
    return false;
  }
  int n;
  const int64_t* v = get_ints(x, "padding", &n);
  if (n != 1 && n != nsp && n != 2 * nsp) {
    bad(st, "padding must be one int, %d or %d ints", nsp, 2 * nsp);
    return false;
  }
  for (int i = 0; i < nsp; i++) {
    out[i] = n == 2 * nsp ? v[i] : v[n == 1 ? 0 : i];
    out[nsp + i] = n == 2 * nsp ? v[nsp + i] : out[i];
    if (!in_limit(out[i]) || !in_limit(out[nsp + i])) {
      bad(st, "padding value %lld is out of range", (long long)(in_limit(out[i]) ? out[nsp + i] : out[i]));
      return false;
    }
  }
  return true;
}

static const char* const data_layouts[4] = {"", "NCW", "NCHW", "NCDHW"};
static const char* const kernel_layouts[4] = {"", "OIW", "OIHW", "OIDHW"};

static bool layout_ok(const targs_t* x, const char* key, int nsp, bool kernel, rlx_status_t** st) {
  const char* want = kernel ? kernel_layouts[nsp] : data_layouts[nsp];
  const char* l = get_str(x, key, want);
  if (!strcmp(l, want) || (kernel && !*l)) return true;
  bad(st, "%s \"%s\" is not supported (only %s)", key, l, want);
  return false;
}

/* ------------------------------------------------------------------ convolutions */
enum { F_NSP = 3, F_DEPTHWISE = 4, F_TRANSPOSE = 8, F_LAYOUTS = 16 };

/* conv1d_ncw, conv2d, conv2d_nchw, group_conv2d_nchw, depthwise_conv2d_nchw, conv3d_ncdhw and the
 * transposed ones; code = spatial dims | flags. Depthwise: TVM's filter is (C, multiplier,
 * k...), which read row-major is the grouped (C * multiplier, 1, k...) filter with C groups. */
static rlx_te_tensor_t* a_conv(const targs_t* x, rlx_status_t** st) {
  int nsp = x->code & F_NSP;
  rlx_te_tensor_t *data = x->t[0], *kernel = x->t[1];
  if (rlx_te_tensor_ndim(data) != nsp + 2 || rlx_te_tensor_ndim(kernel) != nsp + 2)
    return bad(st, "data and kernel must be %d-D (%s, %s)", nsp + 2, data_layouts[nsp], kernel_layouts[nsp]);
  if ((x->code & F_LAYOUTS) &&
      (!layout_ok(x, "data_layout", nsp, false, st) || !layout_ok(x, "kernel_layout", nsp, true, st)))
    return NULL;
  int64_t strides[3], dilation[3], pad[6], out_pad[3];
  if (!spatial(x, "strides", "stride", nsp, 1, strides, st) || !spatial(x, "dilation", NULL, nsp, 1, dilation, st) ||
      !padding(x, nsp, kernel, dilation, "VALID", pad, st))
    return NULL;
  int64_t groups = get_int(x, "groups", 1);
  if (!in_limit(groups)) return bad(st, "groups %lld is out of range", (long long)groups);
  rlx_dtype_t out_dtype = get_dtype(x, "out_dtype");
  if (x->code & F_TRANSPOSE) {
    if (!spatial(x, "output_padding", NULL, nsp, 0, out_pad, st)) return NULL;
    return rlx_topi_nn_conv_transpose(x->ctx, data, kernel, nsp, strides, pad, out_pad, dilation, groups, out_dtype, st);
  }
  if (x->code & F_DEPTHWISE) {
    int64_t c, m;
    if (!rlx_expr_is_const_int(kernel->buffer->shape[0], &c) || !rlx_expr_is_const_int(kernel->buffer->shape[1], &m) ||
        c < 1 || m < 1 || !in_limit(c) || !in_limit(m))
      return bad(st, "the filter's channel and multiplier dims must be constants from 1 to 2^31");
    rlx_expr_t* shape[5] = {rlx_ir_int(x->ctx, kernel->buffer->shape[0]->dtype, c * m),
                            rlx_ir_int(x->ctx, kernel->buffer->shape[1]->dtype, 1)};
    for (int i = 0; i < nsp; i++) shape[2 + i] = kernel->buffer->shape[2 + i];
    kernel = rlx_topi_reshape(x->ctx, kernel, nsp + 2, shape, st);
    if (!kernel) return NULL;
    groups = c;
  }
  return rlx_topi_nn_conv(x->ctx, data, kernel, nsp, strides, pad, dilation, groups, out_dtype, st);
}

/* ------------------------------------------------------------------ pools */
static bool pool_kind(const targs_t* x, rlx_topi_pool_kind_t* kind, rlx_status_t** st) {
  const char* t = get_str(x, "pool_type", "");
  if (!strcmp(t, "max") || !strcmp(t, "avg")) {
    *kind = !strcmp(t, "max") ? RLX_TOPI_POOL_MAX : RLX_TOPI_POOL_AVG;
    return true;
  }
  bad(st, "pool_type \"%s\" is not \"max\" or \"avg\"", t);
  return false;
}

static rlx_te_tensor_t* a_pool(const targs_t* x, rlx_status_t** st) {
  int nsp = x->code & F_NSP;
  rlx_topi_pool_kind_t kind;
  int64_t size[3], strides[3], dilation[3], pad[6];
  if (!pool_kind(x, &kind, st) || !layout_ok(x, "layout", nsp, false, st) ||
      !spatial(x, "kernel", NULL, nsp, -1, size, st) || !spatial(x, "stride", NULL, nsp, -1, strides, st) ||
      !spatial(x, "dilation", NULL, nsp, -1, dilation, st) || !padding(x, nsp, NULL, NULL, NULL, pad, st))
    return NULL;
  return rlx_topi_nn_pool(x->ctx, x->t[0], kind, nsp, size, strides, dilation, pad, get_bool(x, "ceil_mode", false),
                          get_bool(x, "count_include_pad", true), st);
}

/* adaptive_pool1d / adaptive_pool / adaptive_pool3d; global_pool is the 1 x 1 case. */
static rlx_te_tensor_t* a_adaptive_pool(const targs_t* x, rlx_status_t** st) {
  int nsp = x->code & F_NSP;
  rlx_topi_pool_kind_t kind;
  int64_t size[3] = {1, 1, 1};
  bool global = attr(x, "output_size") == NULL;
  if (!pool_kind(x, &kind, st) || !layout_ok(x, "layout", nsp, false, st) ||
      (!global && !spatial(x, "output_size", NULL, nsp, -1, size, st)))
    return NULL;
  return rlx_topi_nn_adaptive_pool(x->ctx, x->t[0], kind, nsp, size, st);
}

/* ------------------------------------------------------------------ norms */
/* The axes of key as ints (n of them, at most 8). */
static bool int_axes(const targs_t* x, const char* key, int* n, int* out, rlx_status_t** st) {
  const int64_t* v = get_ints(x, key, n);
  if (*n < 1 || *n > 8) {
    bad(st, "%s must be 1 to 8 axes", key);
    return false;
  }
  for (int i = 0; i < *n; i++) {
    if (!in_limit(v[i])) {
      bad(st, "%s %lld is out of range", key, (long long)v[i]);
      return false;
    }
    out[i] = (int)v[i];
  }
  return true;
}

static rlx_te_tensor_t* a_layer_norm(const targs_t* x, rlx_status_t** st) {
  int n, axes[8];
  if (!int_axes(x, "axis", &n, axes, st)) return NULL;
  return rlx_topi_nn_layer_norm(x->ctx, x->t[0], x->t[1], x->t[2], n, axes, get_float(x, "epsilon", 1e-5), st);
}

static rlx_te_tensor_t* a_rms_norm(const targs_t* x, rlx_status_t** st) {
  int n, axes[8];
  if (!int_axes(x, "axis", &n, axes, st)) return NULL;
  return rlx_topi_nn_rms_norm(x->ctx, x->t[0], x->t[1], n, axes, get_float(x, "epsilon", 1e-5), st);
}

static rlx_te_tensor_t* a_group_norm(const targs_t* x, rlx_status_t** st) {
  int n, axes[8];
  if (!int_axes(x, "axes", &n, axes, st)) return NULL;
  if (!in_limit(get_int(x, "channel_axis", 1))) return bad(st, "channel_axis is out of range");
  return rlx_topi_nn_group_norm(x->ctx, x->t[0], x->t[1], x->t[2], get_int(x, "num_groups", 0),
                                (int)get_int(x, "channel_axis", 1), n, axes, get_float(x, "epsilon", 1e-5), st);
}

/* TVM's batch_norm returns [out, moving_mean, moving_var]: with training the updated moving
 * statistics; without, TVM hands back its inputs, here copies of them (an output must be a
 * computed tensor). */
static rlx_te_tensor_t** a_batch_norm(const targs_t* x, int* n, rlx_status_t** st) {
  if (!in_limit(get_int(x, "axis", 1))) return bad(st, "axis %lld is out of range", (long long)get_int(x, "axis", 1));
  int axis = (int)get_int(x, "axis", 1);
  double eps = get_float(x, "epsilon", 1e-5);
  rlx_te_tensor_t* gamma = get_bool(x, "scale", true) ? x->t[1] : NULL;
  rlx_te_tensor_t* beta = get_bool(x, "center", true) ? x->t[2] : NULL;
  rlx_te_tensor_t** out = RLX_NEW_ARRAY(x->ctx, rlx_te_tensor_t*, 3);
  if (get_bool(x, "training", false)) {
    for (int which = 0; which < 3; which++) {
      out[which] = rlx_topi_nn_batch_norm_train(x->ctx, x->t[0], gamma, beta, x->t[3], x->t[4], axis, eps,
                                                get_float(x, "momentum", 0.1), which, st);
      if (!out[which]) return NULL;
    }
  } else {
    out[0] = rlx_topi_nn_batch_norm(x->ctx, x->t[0], gamma, beta, x->t[3], x->t[4], axis, eps, st);
    if (!out[0]) return NULL;
    out[1] = rlx_te_compute(x->ctx, rlx_te_tensor_ndim(x->t[3]), x->t[3]->buffer->shape, copy_body, x->t[3],
                            "T_moving_mean", "injective");
    out[2] = rlx_te_compute(x->ctx, rlx_te_tensor_ndim(x->t[4]), x->t[4]->buffer->shape, copy_body, x->t[4],
                            "T_moving_var", "injective");
  }
  *n = 3;
  return out;
}

/* ------------------------------------------------------------------ matmuls, flatten, mirror_pad */
/* t with its last two dims swapped (rank >= 2). */
static rlx_te_tensor_t* swap_last(rlx_ctx_t* ctx, rlx_te_tensor_t* t, rlx_status_t** st) {
  int nd = rlx_te_tensor_ndim(t);
  if (nd < 2) return bad(st, "a transposed operand must have rank >= 2, got %d", nd);
  int64_t* perm = RLX_NEW_ARRAY(ctx, int64_t, nd);
  for (int i = 0; i < nd; i++) perm[i] = i;
  perm[nd - 2] = nd - 1;
  perm[nd - 1] = nd - 2;
  return rlx_topi_transpose(ctx, t, perm, st);
}

/* matmul (a, b, transp_a, transp_b), nn.matmul (tensor_a, tensor_b, bias, out_dtype,
 * transpose_a, transpose_b) and nn.batch_matmul (3-D operands, transpose_b defaults to True). */
static rlx_te_tensor_t* a_matmul(const targs_t* x, rlx_status_t** st) {
  bool batch = x->code == 1;
  rlx_te_tensor_t *a = x->t[0], *b = x->t[1];
  if (batch && (rlx_te_tensor_ndim(a) != 3 || rlx_te_tensor_ndim(b) != 3))
    return bad(st, "tensor_a and tensor_b must be 3-D, got ranks %d and %d", rlx_te_tensor_ndim(a), rlx_te_tensor_ndim(b));
  if (batch && attr(x, "oshape")) return bad(st, "oshape is not supported (the output shape is inferred)");
  bool ta = get_bool(x, "transp_a", false) || get_bool(x, "transpose_a", false);
  bool tb = get_bool(x, "transp_b", false) || get_bool(x, "transpose_b", batch);
  if (ta && !(a = swap_last(x->ctx, a, st))) return NULL;
  if (tb && !(b = swap_last(x->ctx, b, st))) return NULL;
  rlx_te_tensor_t* out = rlx_topi_matmul(x->ctx, a, b, get_dtype(x, "out_dtype"), st);
  if (out && x->n > 2 && x->t[2]) {
    rlx_te_tensor_t* sum = NULL;
    *st = rlx_topi_binary(x->ctx, RLX_TOPI_ADD, out, x->t[2], &sum);
    out = sum;
  }
  return out;
}

/* nn.flatten: (N, everything else). */
static rlx_te_tensor_t* a_flatten(const targs_t* x, rlx_status_t** st) {
  rlx_te_tensor_t* t = x->t[0];
  int nd = rlx_te_tensor_ndim(t);
  if (nd < 1) return bad(st, "data must have rank >= 1");
  rlx_expr_t* rest = rlx_ir_int(x->ctx, t->buffer->shape[0]->dtype, 1);
  for (int d = 1; d < nd; d++) rest = rlx_ir_mul(x->ctx, rest, t->buffer->shape[d]);
  rlx_expr_t* shape[2] = {t->buffer->shape[0], rlx_topi_simplify_dim(x->ctx, rest)};
  return rlx_topi_reshape(x->ctx, t, 2, shape, st);
}

/* nn.mirror_pad: mode "REFLECT" (numpy's reflect); TVM's default "SYMMETRIC" (the edge
 * repeated) is not in the C library. */
static rlx_te_tensor_t* a_mirror_pad(const targs_t* x, rlx_status_t** st) {
  const char* mode = get_str(x, "mode", "SYMMETRIC");
  if (strcmp(mode, "REFLECT") != 0) return bad(st, "mode \"%s\" is not supported (only \"REFLECT\")", mode);
  int nb, na, nd = rlx_te_tensor_ndim(x->t[0]);
  const int64_t* before = get_ints(x, "pad_before", &nb);
  const int64_t* after = get_ints(x, "pad_after", &na);
  if (na < 0) {
    after = before;
    na = nb;
  }
  if (nb != nd || na != nd) return bad(st, "pad_before and pad_after must have one entry per dimension of data");
  int64_t* width = RLX_NEW_ARRAY(x->ctx, int64_t, 2 * nd);
  for (int d = 0; d < nd; d++) {
    if (!in_limit(before[d]) || !in_limit(after[d])) return bad(st, "padding on axis %d is out of range", d);
    width[2 * d] = before[d];
    width[2 * d + 1] = after[d];
  }
  return rlx_topi_pad_mode(x->ctx, x->t[0], width, "reflect", st);
}

/* ------------------------------------------------------------------ index and creation */
static rlx_te_tensor_t* a_gather(const targs_t* x, rlx_status_t** st) {
  return rlx_topi_gather_elements(x->ctx, x->t[0], x->t[1], get_int(x, "axis", 0), st);
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
static rlx_te_tensor_t* a_arange(const targs_t* x, rlx_status_t** st) {
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
  if (step_a && !const_number(step_a, &step)) return bad(st, "step must be a constant");
  if (step == 0) return bad(st, "step must not be 0");
  rlx_expr_t* length;
  if ((!start || const_number(start, &s0)) && const_number(stop, &s1)) {
    double n = (s1 - s0) / step;
    if (!(n <= (double)RLX_API_TOPI_LIMIT)) return bad(st, "the length (stop - start) / step = %g is out of range", n);
    int64_t len = n <= 0 ? 0 : (int64_t)n + ((double)(int64_t)n < n);
    length = rlx_ir_i64(x->ctx, len);
  } else {
    const rlx_attr_t* sym[2] = {start, stop};
    for (int i = 0; i < 2; i++)
      if (sym[i] && (sym[i]->kind != RLX_ATTR_EXPR || !rlx_dtype_is_int(sym[i]->u.expr->dtype)))
        return bad(st, "symbolic start and stop must be integer PrimExprs");
    if (step < 1 || step > (double)RLX_API_TOPI_LIMIT || step != (double)(int64_t)step)
      return bad(st, "with symbolic bounds step must be a positive int");
    rlx_expr_t* e_stop = rlx_ir_cast(x->ctx, rlx_dt_int64(), stop->u.expr);
    rlx_expr_t* e_start = start ? rlx_ir_cast(x->ctx, rlx_dt_int64(), start->u.expr) : rlx_ir_i64(x->ctx, 0);
    rlx_expr_t* span = rlx_ir_add(x->ctx, rlx_ir_sub(x->ctx, e_stop, e_start), rlx_ir_i64(x->ctx, (int64_t)step - 1));
    length = rlx_ir_max(x->ctx, rlx_ir_floordiv(x->ctx, span, rlx_ir_i64(x->ctx, (int64_t)step)), rlx_ir_i64(x->ctx, 0));
  }
  return rlx_topi_arange(x->ctx, scalar_as(x->ctx, start, dt, 0), scalar_as(x->ctx, step_a, dt, 1), length, dt, st);
}

static rlx_te_tensor_t* a_trilu(const targs_t* x, rlx_status_t** st) {
  return rlx_topi_trilu(x->ctx, x->t[0], get_int(x, "k", 0), get_bool(x, "upper", false), st);
}

static rlx_te_tensor_t* a_one_hot(const targs_t* x, rlx_status_t** st) {
  rlx_dtype_t dt = get_dtype(x, "dtype");
  if (rlx_dtype_is_void(dt)) return bad(st, "dtype is required");
  if (!in_limit(get_int(x, "depth", 0))) return bad(st, "depth %lld is out of range", (long long)get_int(x, "depth", 0));
  return rlx_topi_one_hot(x->ctx, x->t[0], scalar_as(x->ctx, attr(x, "on_value"), dt, 1),
                          scalar_as(x->ctx, attr(x, "off_value"), dt, 0), get_int(x, "depth", 0),
                          get_int(x, "axis", -1), st);
}

static rlx_te_tensor_t* a_scatter_elements(const targs_t* x, rlx_status_t** st) {
  return rlx_topi_scatter_elements(x->ctx, x->t[0], x->t[1], x->t[2], get_int(x, "axis", 0),
                                   get_str(x, "reduction", "update"), st);
}

/* full(shape, dtype, fill_value) and full_like(x, fill_value). */
static rlx_te_tensor_t* a_full(const targs_t* x, rlx_status_t** st) {
  double v = get_float(x, "fill_value", 0);
  if (x->n == 1) {
    rlx_te_tensor_t* t = x->t[0];
    rlx_te_tensor_t* r = NULL;
    *st = rlx_topi_full(x->ctx, rlx_te_tensor_ndim(t), t->buffer->shape, t->buffer->dtype, &v, NULL, &r);
    return r;
  }
  int n;
  const int64_t* s = get_ints(x, "shape", &n);
  rlx_dtype_t dt = get_dtype(x, "dtype");
  if (n < 0 || rlx_dtype_is_void(dt)) return bad(st, "shape and dtype are required");
  rlx_expr_t** shape = RLX_NEW_ARRAY(x->ctx, rlx_expr_t*, n);
  for (int i = 0; i < n; i++) {
    if (s[i] < 0 || !in_limit(s[i])) return bad(st, "shape dim %d is out of range (%lld)", i, (long long)s[i]);
    shape[i] = rlx_ir_i64(x->ctx, s[i]);
  }
  rlx_te_tensor_t* r = NULL;
  *st = rlx_topi_full(x->ctx, n, shape, dt, &v, NULL, &r);
  return r;
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
