/* ONNX converters, family "signal": DFT, STFT, MelWeightMatrix (opset 17) and Det.
 *
 * DFT and STFT are direct transforms, one TE reduction per output element (O(n^2) per
 * signal, fine for the frame sizes these ops see; an FFT kernel is the next step for long
 * signals), accumulated in float64 with the angle reduced exactly as 2*pi*((k*n) mod N)/N and
 * cast back to the input's dtype. Real input is [..., N, 1], complex [..., N, 2]; the output
 * is complex [..., M, 2]. DFT: axis, inverse (scaled by 1/N), onesided (M = N/2 + 1), and a
 * constant dft_length (zero padding or truncation). STFT: frame_step and frame_length may
 * arrive at run time: the frame count (and a run-time frame length) become symbolic dims
 * (rlx_onnx_runtime_dims) and the kernel reads the step from its tensor.
 *
 * Det: the Leibniz expansion over the permutations of a static n <= 5 (n! products per
 * matrix, exact in the input's dtype); larger matrices are refused.
 */
#include <string.h>

#include "ops_tensor_internal.h"

static const double TWO_PI = 6.283185307179586476925286766559;

/* The complex term x_n * exp(-+ i*2*pi*k*n/N) (component c: 0 real, 1 imaginary), float64. */
static rlx_expr_t* dft_term(rlx_ctx_t* ctx, rlx_expr_t* xr, rlx_expr_t* xi, rlx_expr_t* k, rlx_expr_t* n,
                            rlx_expr_t* N, rlx_expr_t* c, bool inverse) {
  rlx_dtype_t d = rlx_dt_float64();
  rlx_expr_t* kn = rlx_ir_floormod(ctx, rlx_ir_mul(ctx, k, n), N);
  rlx_expr_t* th = rlx_ir_div(ctx, rlx_ir_mul(ctx, rlx_ir_float(ctx, d, TWO_PI), rlx_ir_cast(ctx, d, kn)),
                              rlx_ir_cast(ctx, d, N));
  rlx_expr_t* co = rlx_ir_call(ctx, d, "cos", 1, &th);
  rlx_expr_t* si = rlx_ir_call(ctx, d, "sin", 1, &th);
  rlx_expr_t *re, *im;
  if (!inverse) {
    re = rlx_ir_add(ctx, rlx_ir_mul(ctx, xr, co), rlx_ir_mul(ctx, xi, si));
    im = rlx_ir_sub(ctx, rlx_ir_mul(ctx, xi, co), rlx_ir_mul(ctx, xr, si));
  } else {
    re = rlx_ir_sub(ctx, rlx_ir_mul(ctx, xr, co), rlx_ir_mul(ctx, xi, si));
    im = rlx_ir_add(ctx, rlx_ir_mul(ctx, xi, co), rlx_ir_mul(ctx, xr, si));
  }
  return rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_EQ, c, rlx_ir_i64(ctx, 0)), re, im);
}

/* ------------------------------------------------------------------ DFT */
typedef struct {
  int axis;
  int64_t L, M; /* transform length, output bins */
  bool inverse;
  rlx_te_tensor_t* x;
} dft_user_t;

static rlx_expr_t* dft_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  dft_user_t* u = user;
  rlx_dtype_t d = rlx_dt_float64(), i64 = rlx_dt_int64();
  int r = u->x->buffer->ndim;
  rlx_expr_t* N = rlx_ir_cast(ctx, i64, u->x->buffer->shape[u->axis]);
  int64_t C = 1;
  rlx_expr_is_const_int(u->x->buffer->shape[r - 1], &C);
  rlx_iter_var_t* rv = rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), rlx_ir_i64(ctx, u->L), "n");
  rlx_expr_t* n = &rv->var->hdr;
  rlx_expr_t* in = rlx_ir_cmp(ctx, RLX_EXPR_LT, n, N);
  rlx_expr_t* nc = rlx_ir_max(ctx, rlx_ir_min(ctx, n, rlx_ir_sub(ctx, N, rlx_ir_i64(ctx, 1))), rlx_ir_i64(ctx, 0));
  rlx_expr_t** p = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r);
  for (int j = 0; j < r; j++) p[j] = j == u->axis ? nc : &idx[j]->hdr;
  p[r - 1] = rlx_ir_i64(ctx, 0);
  rlx_expr_t* zero = rlx_ir_float(ctx, d, 0);
  rlx_expr_t* xr = rlx_ir_select(ctx, in, rlx_ir_cast(ctx, d, rlx_te_load(ctx, u->x, r, p)), zero);
  rlx_expr_t* xi = zero;
  if (C == 2) {
    rlx_expr_t** q = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r);
    memcpy(q, p, sizeof(*q) * (size_t)r);
    q[r - 1] = rlx_ir_i64(ctx, 1);
    xi = rlx_ir_select(ctx, in, rlx_ir_cast(ctx, d, rlx_te_load(ctx, u->x, r, q)), zero);
  }
  rlx_expr_t* t = dft_term(ctx, xr, xi, rlx_ir_cast(ctx, i64, &idx[u->axis]->hdr), n, rlx_ir_i64(ctx, u->L),
                           rlx_ir_cast(ctx, i64, &idx[r - 1]->hdr), u->inverse);
  if (u->inverse) t = rlx_ir_div(ctx, t, rlx_ir_float(ctx, d, (double)u->L));
  return rlx_te_sum(ctx, t, 1, &rv);
}

static RLX_MUST_USE rlx_status_t* te_dft(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                         rlx_te_tensor_t** out) {
  (void)n;
  dft_user_t* u = user;
  u->x = in[0];
  int r = in[0]->buffer->ndim;
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r);
  for (int j = 0; j < r; j++) shape[j] = in[0]->buffer->shape[j];
  shape[u->axis] = rlx_ir_i64(ctx, u->M);
  shape[r - 1] = rlx_ir_i64(ctx, 2);
  return *out = rlx_te_compute(ctx, r, shape, dft_body, u, "T_dft", "reduction"), NULL;
}

static OT_CONVERTER(cv_dft) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  int64_t C = 0;
  if (x->ndim < 2 || !rlx_expr_is_const_int(x->shape[x->ndim - 1], &C) || (C != 1 && C != 2))
    return rlx_onnx_error(node, "input must be [..., N, 1] (real) or [..., N, 2] (complex)");
  if (x->dtype.code != RLX_DT_FLOAT) return rlx_onnx_error(node, "input must be float");
  int64_t axis = rlx_onnx_attr_int(node, "axis", 1);
  if (axis < 0) axis += x->ndim;
  if (axis < 0 || axis >= x->ndim - 1) return rlx_onnx_error(node, "axis %lld is out of range", (long long)axis);
  dft_user_t u;
  memset(&u, 0, sizeof(u));
  u.axis = (int)axis;
  u.inverse = rlx_onnx_attr_int(node, "inverse", 0) != 0;
  bool onesided = rlx_onnx_attr_int(node, "onesided", 0) != 0;
  if (onesided && (u.inverse || C == 2)) return rlx_onnx_error(node, "onesided needs a real forward transform");
  if (ot_has_input(node, inputs, 1)) {
    double v = 0;
    RLX_RETURN_IF_ERROR(ot_const_scalar(im, node, 1, inputs[1], &v));
    u.L = (int64_t)v;
  } else if (!rlx_expr_is_const_int(x->shape[axis], &u.L)) {
    return rlx_onnx_error(node, "the signal length must be static (or dft_length given)");
  }
  if (u.L < 1) return rlx_onnx_error(node, "dft_length %lld must be positive", (long long)u.L);
  u.M = onesided ? u.L / 2 + 1 : u.L;
  rlx_relax_expr_t* y;
  RLX_RETURN_IF_ERROR(rlx_onnx_emit_te(im, te_dft, &u, 1, inputs, "dft", &y));
  (void)ctx;
  rlx_attrs_t a = ot_attr(rlx_onnx_ctx(im), (rlx_attrs_t){0}, "dtype", rlx_attr_dtype(x->dtype));
  return ot_op(im, RLX_OP_ASTYPE, 1, &y, a, &outputs[0]);
}

/* ------------------------------------------------------------------ STFT */
typedef struct {
  int win_arg, len_arg; /* argument index of the window / frame_length, 0 = none */
  int64_t fl;           /* static frame length, or -1 */
  rlx_expr_t *frames, *flen, *bins;
  rlx_te_tensor_t* const* in; /* signal, frame_step, ... */
} stft_user_t;

/* The frame length as an int64 PrimExpr over the placeholders. */
static rlx_expr_t* stft_len(rlx_ctx_t* ctx, const stft_user_t* u, rlx_te_tensor_t* const* ins) {
  return u->fl >= 0 ? rlx_ir_i64(ctx, u->fl) : rlx_onnx_load_int(ctx, ins[u->len_arg], 0);
}

/* j = 0: the frame count; j = 1: the frame length. */
static rlx_expr_t* stft_dims(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, void* user) {
  stft_user_t* u = user;
  rlx_expr_t* fl = stft_len(ctx, u, ins);
  if (j == 1) return fl;
  rlx_expr_t* ls = rlx_ir_cast(ctx, rlx_dt_int64(), ins[0]->buffer->shape[1]);
  rlx_expr_t* step = rlx_ir_max(ctx, rlx_onnx_load_int(ctx, ins[1], 0), rlx_ir_i64(ctx, 1));
  rlx_expr_t* f = rlx_ir_add(ctx, rlx_ir_floordiv(ctx, rlx_ir_sub(ctx, ls, fl), step), rlx_ir_i64(ctx, 1));
  return rlx_ir_max(ctx, f, rlx_ir_i64(ctx, 0));
}

static rlx_expr_t* stft_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  stft_user_t* u = user;
  rlx_dtype_t d = rlx_dt_float64(), i64 = rlx_dt_int64();
  rlx_te_tensor_t* s = u->in[0];
  int64_t C = 1;
  rlx_expr_is_const_int(s->buffer->shape[2], &C);
  rlx_iter_var_t* rv = rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), u->flen, "n");
  rlx_expr_t* n = &rv->var->hdr;
  rlx_expr_t* step = rlx_onnx_load_int(ctx, u->in[1], 0);
  rlx_expr_t* ls = rlx_ir_cast(ctx, i64, s->buffer->shape[1]);
  rlx_expr_t* pos = rlx_ir_add(ctx, rlx_ir_mul(ctx, rlx_ir_cast(ctx, i64, &idx[1]->hdr), step), n);
  pos = rlx_ir_max(ctx, rlx_ir_min(ctx, pos, rlx_ir_sub(ctx, ls, rlx_ir_i64(ctx, 1))), rlx_ir_i64(ctx, 0));
  rlx_expr_t* p[3] = {&idx[0]->hdr, pos, rlx_ir_i64(ctx, 0)};
  rlx_expr_t* xr = rlx_ir_cast(ctx, d, rlx_te_load(ctx, s, 3, p));
  rlx_expr_t* xi = rlx_ir_float(ctx, d, 0);
  if (C == 2) {
    p[2] = rlx_ir_i64(ctx, 1);
    xi = rlx_ir_cast(ctx, d, rlx_te_load(ctx, s, 3, p));
  }
  rlx_expr_t* t = dft_term(ctx, xr, xi, rlx_ir_cast(ctx, i64, &idx[2]->hdr), n, u->flen,
                           rlx_ir_cast(ctx, i64, &idx[3]->hdr), false);
  if (u->win_arg) t = rlx_ir_mul(ctx, t, rlx_ir_cast(ctx, d, rlx_te_load(ctx, u->in[u->win_arg], 1, &n)));
  return rlx_te_sum(ctx, t, 1, &rv);
}

static RLX_MUST_USE rlx_status_t* te_stft(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                          rlx_te_tensor_t** out) {
  (void)n;
  stft_user_t* u = user;
  u->in = in;
  rlx_expr_t* shape[4] = {in[0]->buffer->shape[0], u->frames, u->bins, rlx_ir_i64(ctx, 2)};
  return *out = rlx_te_compute(ctx, 4, shape, stft_body, u, "T_stft", "reduction"), NULL;
}

static OT_CONVERTER(cv_stft) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t *s, *st;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &s));
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, true, &st));
  int64_t C = 0;
  if (s->ndim != 3 || !rlx_expr_is_const_int(s->shape[2], &C) || (C != 1 && C != 2))
    return rlx_onnx_error(node, "signal must be [batch, length, 1] or [batch, length, 2]");
  if (s->dtype.code != RLX_DT_FLOAT) return rlx_onnx_error(node, "signal must be float");
  if (!rlx_dtype_is_int(st->dtype)) return rlx_onnx_error(node, "frame_step must be an integer");
  bool onesided = rlx_onnx_attr_int(node, "onesided", 1) != 0;
  if (onesided && C == 2) return rlx_onnx_error(node, "onesided needs a real signal");
  stft_user_t u;
  memset(&u, 0, sizeof(u));
  u.fl = -1;
  rlx_relax_expr_t* args[4] = {inputs[0], inputs[1], NULL, NULL};
  int n_args = 2;
  if (ot_has_input(node, inputs, 2)) {
    rlx_sinfo_tensor_t* w;
    RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 2, true, &w));
    if (w->ndim != 1 || !rlx_expr_is_const_int(w->shape[0], &u.fl))
      return rlx_onnx_error(node, "window must be 1-d of static length");
    u.win_arg = n_args;
    args[n_args++] = inputs[2];
  }
  if (ot_has_input(node, inputs, 3)) {
    rlx_onnx_tensor_t c;
    if (rlx_onnx_const(im, inputs[3], &c)) {
      int64_t v = ot_elem_i64(&c, 0);
      if (u.fl >= 0 && v != u.fl) return rlx_onnx_error(node, "frame_length %lld differs from the window's", (long long)v);
      u.fl = v;
    } else if (u.fl < 0) {
      u.len_arg = n_args;
      args[n_args++] = inputs[3];
    }
  }
  if (u.fl < 0 && !u.len_arg) return rlx_onnx_error(node, "needs a window or a frame_length");
  if (u.fl == 0) return rlx_onnx_error(node, "frame_length must be positive");
  rlx_expr_t** dims = NULL;
  RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, stft_dims, &u, n_args, args, 2, &dims));
  u.frames = dims[0];
  u.flen = dims[1];
  u.bins = onesided ? rlx_ir_add(ctx, rlx_ir_floordiv(ctx, u.flen, rlx_ir_i64(ctx, 2)), rlx_ir_i64(ctx, 1)) : u.flen;
  rlx_relax_expr_t* y;
  RLX_RETURN_IF_ERROR(rlx_onnx_emit_te(im, te_stft, &u, n_args, args, "stft", &y));
  rlx_attrs_t a = ot_attr(ctx, (rlx_attrs_t){0}, "dtype", rlx_attr_dtype(s->dtype));
  return ot_op(im, RLX_OP_ASTYPE, 1, &y, a, &outputs[0]);
}

/* ------------------------------------------------------------------ Det */
typedef struct {
  int n, n_perm;
  const int* perms; /* n_perm x n */
  const int* signs;
  rlx_te_tensor_t* x;
} det_user_t;

static rlx_expr_t* det_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  det_user_t* u = user;
  int r = u->x->buffer->ndim;
  rlx_expr_t** p = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r);
  for (int j = 0; j < r - 2; j++) p[j] = &idx[j]->hdr;
  rlx_dtype_t t = u->x->buffer->dtype;
  rlx_expr_t* sum = NULL;
  for (int q = 0; q < u->n_perm; q++) {
    rlx_expr_t* prod = NULL;
    for (int i = 0; i < u->n; i++) {
      p[r - 2] = rlx_ir_i64(ctx, i);
      p[r - 1] = rlx_ir_i64(ctx, u->perms[q * u->n + i]);
      rlx_expr_t* v = rlx_te_load(ctx, u->x, r, p);
      prod = prod ? rlx_ir_mul(ctx, prod, v) : v;
    }
    if (!sum) sum = u->signs[q] > 0 ? prod : rlx_ir_sub(ctx, rlx_ir_float(ctx, t, 0), prod);
    else sum = u->signs[q] > 0 ? rlx_ir_add(ctx, sum, prod) : rlx_ir_sub(ctx, sum, prod);
  }
  return sum;
}

static RLX_MUST_USE rlx_status_t* te_det(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                         rlx_te_tensor_t** out) {
  (void)n;
  det_user_t* u = user;
  u->x = in[0];
  *out = rlx_te_compute(ctx, in[0]->buffer->ndim - 2, in[0]->buffer->shape, det_body, u, "T_det", "injective");
  return NULL;
}

/* Appends the permutations of a[k..n) after a[0..k) with their signs (recursive swaps). */
static void permute_all(int* a, int k, int n, int sign, int* perms, int* signs, int* count) {
  if (k == n) {
    memcpy(perms + *count * n, a, sizeof(int) * (size_t)n);
    signs[(*count)++] = sign;
    return;
  }
  for (int i = k; i < n; i++) {
    int t = a[k];
    a[k] = a[i];
    a[i] = t;
    permute_all(a, k + 1, n, i == k ? sign : -sign, perms, signs, count);
    a[i] = a[k];
    a[k] = t;
  }
}

static OT_CONVERTER(cv_det) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  int64_t n = 0, m = 0;
  if (x->ndim < 2 || !rlx_expr_is_const_int(x->shape[x->ndim - 1], &n) ||
      !rlx_expr_is_const_int(x->shape[x->ndim - 2], &m) || n != m)
    return rlx_onnx_error(node, "input must be [..., n, n] with a static n");
  if (x->dtype.code != RLX_DT_FLOAT) return rlx_onnx_error(node, "input must be float");
  if (n < 1 || n > 5) return rlx_onnx_error(node, "matrices of size %lld are not supported (1 to 5)", (long long)n);
  int total = 1;
  for (int i = 2; i <= n; i++) total *= i;
  det_user_t u = {(int)n, 0, NULL, NULL, NULL};
  int* perms = RLX_NEW_ARRAY(ctx, int, total * n);
  int* signs = RLX_NEW_ARRAY(ctx, int, total);
  int a[5] = {0, 1, 2, 3, 4};
  permute_all(a, 0, (int)n, 1, perms, signs, &u.n_perm);
  u.perms = perms;
  u.signs = signs;
  return rlx_onnx_emit_te(im, te_det, &u, 1, inputs, "det", &outputs[0]);
}

/* ------------------------------------------------------------------ MelWeightMatrix */
/* Inputs (all scalars, read in the kernel): num_mel_bins M, dft_length D, sample_rate, lower
 * and upper edge (Hz). The result is (D / 2 + 1, M): column i is the triangle of mel band i
 * over the spectrogram bins, between the bins f[i], f[i + 1], f[i + 2] of M + 2 points evenly
 * spaced in mel (2595 log10(1 + hz / 700)) from the lower to the upper edge, each mapped back
 * to hertz and to bin floor((D + 1) * hz / sample_rate). Row j of column i: 1 at j = f[i+1],
 * (j - f[i]) / (f[i+1] - f[i]) rising before it, (f[i+2] - j) / (f[i+2] - f[i+1]) falling
 * after, else 0. The output dims are read at run time (symbolic). */
typedef struct {
  rlx_dtype_t dtype;
  rlx_te_tensor_t* const* in;
} mel_t;

static rlx_expr_t* mel_scalar(rlx_ctx_t* ctx, rlx_te_tensor_t* t) {
  return rlx_ir_cast(ctx, rlx_dt_float64(), rlx_te_load(ctx, t, 0, NULL));
}

static rlx_expr_t* f64c(rlx_ctx_t* ctx, double v) { return rlx_ir_float(ctx, rlx_dt_float64(), v); }

static rlx_expr_t* hz_to_mel(rlx_ctx_t* ctx, rlx_expr_t* hz) {
  rlx_expr_t* a = rlx_ir_add(ctx, f64c(ctx, 1.0), rlx_ir_div(ctx, hz, f64c(ctx, 700.0)));
  return rlx_ir_mul(ctx, f64c(ctx, 2595.0), rlx_ir_call(ctx, rlx_dt_float64(), "log10", 1, &a));
}

/* Bin of mel point k (a float64 expression of k), as float64 holding an integer. */
static rlx_expr_t* mel_bin(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, rlx_expr_t* k) {
  rlx_expr_t *m = mel_scalar(ctx, in[0]), *d = mel_scalar(ctx, in[1]), *sr = mel_scalar(ctx, in[2]);
  rlx_expr_t *lo = hz_to_mel(ctx, mel_scalar(ctx, in[3])), *hi = hz_to_mel(ctx, mel_scalar(ctx, in[4]));
  rlx_expr_t* step = rlx_ir_div(ctx, rlx_ir_sub(ctx, hi, lo), rlx_ir_add(ctx, m, f64c(ctx, 2.0)));
  rlx_expr_t* mel = rlx_ir_add(ctx, rlx_ir_mul(ctx, k, step), lo);
  rlx_expr_t* pw[2] = {f64c(ctx, 10.0), rlx_ir_div(ctx, mel, f64c(ctx, 2595.0))};
  rlx_expr_t* hz = rlx_ir_mul(ctx, f64c(ctx, 700.0), rlx_ir_sub(ctx, rlx_ir_call(ctx, rlx_dt_float64(), "pow", 2, pw), f64c(ctx, 1.0)));
  rlx_expr_t* q = rlx_ir_div(ctx, rlx_ir_mul(ctx, rlx_ir_add(ctx, d, f64c(ctx, 1.0)), hz), sr);
  return rlx_ir_call(ctx, rlx_dt_float64(), "floor", 1, &q);
}

static rlx_expr_t* mel_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  mel_t* u = user;
  rlx_expr_t* j = rlx_ir_cast(ctx, rlx_dt_float64(), &idx[0]->hdr);
  rlx_expr_t* i = rlx_ir_cast(ctx, rlx_dt_float64(), &idx[1]->hdr);
  rlx_expr_t* l = mel_bin(ctx, u->in, i);
  rlx_expr_t* c = mel_bin(ctx, u->in, rlx_ir_add(ctx, i, f64c(ctx, 1.0)));
  rlx_expr_t* h = mel_bin(ctx, u->in, rlx_ir_add(ctx, i, f64c(ctx, 2.0)));
  /* divisors of at least 1 where the branch is not taken keep every lane finite */
  rlx_expr_t* up = rlx_ir_div(ctx, rlx_ir_sub(ctx, j, l), rlx_ir_max(ctx, rlx_ir_sub(ctx, c, l), f64c(ctx, 1.0)));
  rlx_expr_t* down = rlx_ir_div(ctx, rlx_ir_sub(ctx, h, j), rlx_ir_max(ctx, rlx_ir_sub(ctx, h, c), f64c(ctx, 1.0)));
  rlx_expr_t* rising = rlx_ir_and(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LE, l, j), rlx_ir_cmp(ctx, RLX_EXPR_LT, j, c));
  rlx_expr_t* falling = rlx_ir_and(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, c, j), rlx_ir_cmp(ctx, RLX_EXPR_LT, j, h));
  rlx_expr_t* v = rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_EQ, j, c), f64c(ctx, 1.0),
                                rlx_ir_select(ctx, rising, up, rlx_ir_select(ctx, falling, down, f64c(ctx, 0.0))));
  return rlx_ir_cast(ctx, u->dtype, v);
}

typedef struct {
  mel_t m;
  rlx_expr_t* dims[2];
} mel_user_t;

static RLX_MUST_USE rlx_status_t* te_mel(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                         rlx_te_tensor_t** out) {
  (void)n;
  mel_user_t* u = user;
  u->m.in = in;
  return *out = rlx_te_compute(ctx, 2, u->dims, mel_body, &u->m, "mel", "injective"), NULL;
}

/* Output dim j: D / 2 + 1 rows, M columns (-1, reported by the VM, when negative). */
static rlx_expr_t* mel_dim(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, void* user) {
  (void)user;
  rlx_expr_t* v = j == 0 ? rlx_ir_add(ctx, rlx_ir_floordiv(ctx, rlx_onnx_load_int(ctx, ins[1], 0), rlx_ir_i64(ctx, 2)),
                                      rlx_ir_i64(ctx, 1))
                         : rlx_onnx_load_int(ctx, ins[0], 0);
  return rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_GE, v, rlx_ir_i64(ctx, 0)), v, rlx_ir_i64(ctx, -1));
}

static OT_CONVERTER(cv_mel_weight_matrix) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  if (node->n_inputs != 5) return rlx_onnx_error(node, "needs 5 inputs");
  for (int i = 0; i < 5; i++) {
    rlx_sinfo_tensor_t* t;
    RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, i, true, &t));
    if (t->ndim != 0 || (i < 3 && !rlx_dtype_is_int(t->dtype)) || (i >= 3 && t->dtype.code != RLX_DT_FLOAT))
      return rlx_onnx_error(node, "input %d must be a scalar %s", i, i < 3 ? "integer" : "float");
  }
  mel_user_t* u = RLX_NEW(ctx, mel_user_t);
  int64_t e = rlx_onnx_attr_int(node, "output_datatype", 1); /* ONNX FLOAT, FLOAT16, DOUBLE */
  if (e == 1) u->m.dtype = rlx_dt_float32();
  else if (e == 10) u->m.dtype = rlx_dtype(RLX_DT_FLOAT, 16, 1);
  else if (e == 11) u->m.dtype = rlx_dt_float64();
  else return rlx_onnx_error(node, "output_datatype %lld is not float, float16 or double", (long long)e);
  rlx_expr_t** dims = NULL;
  RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, mel_dim, NULL, 2, inputs, 2, &dims));
  u->dims[0] = dims[0];
  u->dims[1] = dims[1];
  return rlx_onnx_emit_te(im, te_mel, u, 5, inputs, "mel_weight_matrix", &outputs[0]);
}

const rlx_onnx_converter_t rlx_onnx_ops_signal[] = {
    {"MelWeightMatrix", 17, cv_mel_weight_matrix},
    {"DFT", 17, cv_dft},
    {"STFT", 17, cv_stft},
    {"Det", 11, cv_det},
    {NULL, 0, NULL},
};
