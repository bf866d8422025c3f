/* ONNX converters, family "tensor": Resize (opsets 10, 11, 13, 18) and Upsample (7, 9).
 *
 * One TE function for every mode, following the ONNX reference implementation: each output
 * coordinate is mapped to an input coordinate x by coordinate_transformation_mode (with
 * the float output width scale * in_width, as the reference does), then interpolated from
 * taps around floor(x) on every resized axis: nearest (1 tap, nearest_mode rounding),
 * linear (2) or cubic (4, coefficient cubic_coeff_a, exclude_outside). Taps outside the
 * input read the edge element. Arithmetic is float64, cast to the input's dtype at the end.
 * The input shape must be static. Scales, sizes and roi may arrive at run time: the output
 * dims are then symbolic vars bound by rlx_onnx_runtime_dims, and the kernel reads the
 * scales and roi from their tensors (a scale from sizes is out / in).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ops_tensor_internal.h"

typedef enum { RS_NEAREST, RS_LINEAR, RS_CUBIC } rs_method_t;
typedef enum {
  RS_HALF_PIXEL,
  RS_PYTORCH_HALF_PIXEL,
  RS_ALIGN_CORNERS,
  RS_ASYMMETRIC,
  RS_TF_HALF_PIXEL_FOR_NN,
  RS_TF_CROP_AND_RESIZE
} rs_coord_t;
typedef enum { RS_ROUND_PREFER_FLOOR, RS_ROUND_PREFER_CEIL, RS_FLOOR, RS_CEIL } rs_nearest_t;

typedef struct {
  int r;
  rs_method_t method;
  rs_coord_t coord;
  rs_nearest_t nearest;
  double cubic_a;
  bool exclude_outside;
  double extrapolation;
  double* scales;
  double* roi; /* 2r values (starts, then ends) or NULL */
  int64_t *in, *out;
  rlx_te_tensor_t* x;
  /* run-time geometry: out_e the output dims (vars where computed at run time); per dim,
   * the position of its value in the run-time scales / roi input (-1: static), the kernel
   * argument holding that input (0: none), the number of axes described (roi's stride) */
  rlx_expr_t** out_e;
  int* at;
  int scales_arg, roi_arg, sizes_rt, n_axes;
  /* per dim, set by te_resize: the scale, the float output width, roi start and end */
  rlx_expr_t **s_e, **ow_e, **b_e, **e_e;
} rs_user_t;

static rlx_expr_t* f64(rlx_ctx_t* ctx, double v) { return rlx_ir_float(ctx, rlx_dt_float64(), v); }

/* select(ow == 1, one, other), decided now when ow is a constant. */
static rlx_expr_t* if_width1(rlx_ctx_t* ctx, rlx_expr_t* ow, rlx_expr_t* one, rlx_expr_t* other) {
  if (ow->kind == RLX_EXPR_FLOAT_IMM) return ((rlx_float_imm_t*)ow)->value == 1 ? one : other;
  return rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_EQ, ow, f64(ctx, 1)), one, other);
}

/* The input coordinate of output index i on dim d (float64). */
static rlx_expr_t* source_coord(rlx_ctx_t* ctx, rs_user_t* u, int d, rlx_expr_t* i) {
  rlx_expr_t* x = rlx_ir_cast(ctx, rlx_dt_float64(), i);
  rlx_expr_t *s = u->s_e[d], *ow = u->ow_e[d], *in1 = f64(ctx, (double)u->in[d] - 1);
  rlx_expr_t* ow1 = rlx_ir_sub(ctx, ow, f64(ctx, 1));
  switch (u->coord) {
    case RS_HALF_PIXEL: return rlx_ir_sub(ctx, rlx_ir_div(ctx, rlx_ir_add(ctx, x, f64(ctx, 0.5)), s), f64(ctx, 0.5));
    case RS_PYTORCH_HALF_PIXEL:
      return if_width1(ctx, ow, f64(ctx, -0.5),
                       rlx_ir_sub(ctx, rlx_ir_div(ctx, rlx_ir_add(ctx, x, f64(ctx, 0.5)), s), f64(ctx, 0.5)));
    case RS_ALIGN_CORNERS: return if_width1(ctx, ow, f64(ctx, 0), rlx_ir_div(ctx, rlx_ir_mul(ctx, x, in1), ow1));
    case RS_ASYMMETRIC: return rlx_ir_div(ctx, x, s);
    case RS_TF_HALF_PIXEL_FOR_NN: return rlx_ir_div(ctx, rlx_ir_add(ctx, x, f64(ctx, 0.5)), s);
    case RS_TF_CROP_AND_RESIZE: {
      rlx_expr_t* span = rlx_ir_mul(ctx, rlx_ir_sub(ctx, u->e_e[d], u->b_e[d]), in1);
      rlx_expr_t* start = rlx_ir_mul(ctx, u->b_e[d], in1);
      return if_width1(ctx, ow, rlx_ir_add(ctx, rlx_ir_div(ctx, span, f64(ctx, 2)), start),
                       rlx_ir_add(ctx, rlx_ir_div(ctx, rlx_ir_mul(ctx, x, span), ow1), start));
    }
  }
  return x;
}

/* The cubic coefficient of tap t (0..3, at floor(x) - 1 + t) for the fraction r. */
static rlx_expr_t* cubic_coeff(rlx_ctx_t* ctx, double a, int t, rlx_expr_t* r) {
  /* distance of the tap from x: 1 + r, r, 1 - r, 2 - r */
  rlx_expr_t* one = f64(ctx, 1);
  rlx_expr_t* dist = t == 0 ? rlx_ir_add(ctx, one, r)
                     : t == 1 ? r
                     : t == 2 ? rlx_ir_sub(ctx, one, r)
                              : rlx_ir_sub(ctx, f64(ctx, 2), r);
  if (t == 1 || t == 2) { /* ((a + 2) d - (a + 3)) d^2 + 1 */
    rlx_expr_t* p = rlx_ir_sub(ctx, rlx_ir_mul(ctx, f64(ctx, a + 2), dist), f64(ctx, a + 3));
    return rlx_ir_add(ctx, rlx_ir_mul(ctx, rlx_ir_mul(ctx, p, dist), dist), one);
  }
  /* ((a d - 5a) d + 8a) d - 4a */
  rlx_expr_t* p = rlx_ir_sub(ctx, rlx_ir_mul(ctx, f64(ctx, a), dist), f64(ctx, 5 * a));
  p = rlx_ir_add(ctx, rlx_ir_mul(ctx, p, dist), f64(ctx, 8 * a));
  return rlx_ir_sub(ctx, rlx_ir_mul(ctx, p, dist), f64(ctx, 4 * a));
}

static rlx_expr_t* clamp_index(rlx_ctx_t* ctx, rlx_expr_t* k, int64_t n) {
  return rlx_ir_max(ctx, rlx_ir_min(ctx, k, rlx_ir_i64(ctx, n - 1)), rlx_ir_i64(ctx, 0));
}

static rlx_expr_t* resize_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rs_user_t* u = user;
  int r = u->r;
  /* per dim: taps (index, weight) */
  int* n_taps = RLX_NEW_ARRAY(ctx, int, r);
  rlx_expr_t*** tap_idx = RLX_NEW_ARRAY(ctx, rlx_expr_t**, r);
  rlx_expr_t*** tap_w = RLX_NEW_ARRAY(ctx, rlx_expr_t**, r);
  rlx_expr_t* outside = NULL; /* tf_crop_and_resize: the coordinate falls outside the input */
  /* run-time geometry, cubic: each coordinate is a let-bound var, or every tap weight would
   * repeat the whole coordinate expression (16 combinations, a 1.7 MB kernel) */
  rlx_var_t** let_var = RLX_NEW_ARRAY(ctx, rlx_var_t*, r);
  rlx_expr_t** let_val = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r);
  for (int d = 0; d < r; d++) {
    rlx_expr_t* i = &idx[d]->hdr;
    tap_idx[d] = RLX_NEW_ARRAY(ctx, rlx_expr_t*, 4);
    tap_w[d] = RLX_NEW_ARRAY(ctx, rlx_expr_t*, 4);
    if (!u->out_e && u->scales[d] == 1 && u->in[d] == u->out[d] && u->coord != RS_TF_CROP_AND_RESIZE) {
      n_taps[d] = 1;
      tap_idx[d][0] = i;
      tap_w[d][0] = NULL;
      continue;
    }
    rlx_expr_t* x = source_coord(ctx, u, d, i);
    if (u->out_e && u->method == RS_CUBIC) {
      let_var[d] = rlx_ir_var(ctx, rlx_ctx_sprintf(ctx, "x%d", d), rlx_dt_float64());
      let_val[d] = x;
      x = &let_var[d]->hdr;
    }
    if (u->coord == RS_TF_CROP_AND_RESIZE) {
      rlx_expr_t* o = rlx_ir_or(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, x, f64(ctx, 0)),
                                rlx_ir_cmp(ctx, RLX_EXPR_GT, x, f64(ctx, (double)(u->in[d] - 1))));
      outside = outside ? rlx_ir_or(ctx, outside, o) : o;
    }
    rlx_expr_t* fl = rlx_ir_call(ctx, rlx_dt_float64(), "floor", 1, &x);
    rlx_expr_t* ratio = rlx_ir_sub(ctx, x, fl);
    rlx_expr_t* x0 = rlx_ir_cast(ctx, rlx_dt_int64(), fl);
    switch (u->method) {
      case RS_NEAREST: {
        rlx_expr_t* up = NULL;
        switch (u->nearest) {
          case RS_ROUND_PREFER_FLOOR: up = rlx_ir_cmp(ctx, RLX_EXPR_GT, ratio, f64(ctx, 0.5)); break;
          case RS_ROUND_PREFER_CEIL: up = rlx_ir_cmp(ctx, RLX_EXPR_GE, ratio, f64(ctx, 0.5)); break;
          case RS_FLOOR: up = rlx_ir_bool(ctx, false); break;
          case RS_CEIL: up = rlx_ir_cmp(ctx, RLX_EXPR_GT, ratio, f64(ctx, 0)); break;
        }
        n_taps[d] = 1;
        tap_idx[d][0] = clamp_index(
            ctx, rlx_ir_add(ctx, x0, rlx_ir_select(ctx, up, rlx_ir_i64(ctx, 1), rlx_ir_i64(ctx, 0))), u->in[d]);
        tap_w[d][0] = NULL;
        break;
      }
      case RS_LINEAR:
        n_taps[d] = 2;
        tap_idx[d][0] = clamp_index(ctx, x0, u->in[d]);
        tap_idx[d][1] = clamp_index(ctx, rlx_ir_add(ctx, x0, rlx_ir_i64(ctx, 1)), u->in[d]);
        tap_w[d][0] = rlx_ir_sub(ctx, f64(ctx, 1), ratio);
        tap_w[d][1] = ratio;
        break;
      case RS_CUBIC: {
        n_taps[d] = 4;
        rlx_expr_t* sum = NULL;
        for (int t = 0; t < 4; t++) {
          rlx_expr_t* k = rlx_ir_add(ctx, x0, rlx_ir_i64(ctx, t - 1));
          rlx_expr_t* w = cubic_coeff(ctx, u->cubic_a, t, ratio);
          if (u->exclude_outside) {
            rlx_expr_t* in = rlx_ir_and(ctx, rlx_ir_cmp(ctx, RLX_EXPR_GE, k, rlx_ir_i64(ctx, 0)),
                                        rlx_ir_cmp(ctx, RLX_EXPR_LT, k, rlx_ir_i64(ctx, u->in[d])));
            w = rlx_ir_select(ctx, in, w, f64(ctx, 0));
          }
          sum = sum ? rlx_ir_add(ctx, sum, w) : w;
          tap_idx[d][t] = clamp_index(ctx, k, u->in[d]);
          tap_w[d][t] = w;
        }
        if (u->exclude_outside)
          for (int t = 0; t < 4; t++) tap_w[d][t] = rlx_ir_div(ctx, tap_w[d][t], sum);
        break;
      }
    }
  }
  /* sum over every combination of taps */
  int* pick = RLX_NEW_ARRAY(ctx, int, r);
  rlx_expr_t** li = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r);
  rlx_expr_t* acc = NULL;
  bool weighted = u->method != RS_NEAREST;
  for (;;) {
    rlx_expr_t* w = NULL;
    for (int d = 0; d < r; d++) {
      li[d] = tap_idx[d][pick[d]];
      if (tap_w[d][pick[d]]) w = w ? rlx_ir_mul(ctx, w, tap_w[d][pick[d]]) : tap_w[d][pick[d]];
    }
    rlx_expr_t* v = rlx_te_load(ctx, u->x, r, li);
    if (weighted) {
      v = rlx_ir_cast(ctx, rlx_dt_float64(), v);
      if (w) v = rlx_ir_mul(ctx, v, w);
    }
    acc = acc ? rlx_ir_add(ctx, acc, v) : v;
    int d = r - 1;
    while (d >= 0 && ++pick[d] == n_taps[d]) pick[d--] = 0;
    if (d < 0) break;
  }
  rlx_dtype_t t = u->x->buffer->dtype;
  if (weighted) {
    if (!rlx_dtype_is_float(t)) acc = rlx_ir_call(ctx, rlx_dt_float64(), "nearbyint", 1, &acc);
    acc = rlx_ir_cast(ctx, t, acc);
  }
  if (outside) acc = rlx_ir_select(ctx, outside, ot_scalar_expr(ctx, t, u->extrapolation), acc);
  for (int d = r - 1; d >= 0; d--)
    if (let_var[d]) acc = rlx_ir_let(ctx, let_var[d], let_val[d], acc);
  return acc;
}

static rlx_expr_t* load_f64(rlx_ctx_t* ctx, rlx_te_tensor_t* t, int64_t k) {
  rlx_expr_t* i = rlx_ir_i64(ctx, k);
  return rlx_ir_cast(ctx, rlx_dt_float64(), rlx_te_load(ctx, t, 1, &i));
}

static RLX_MUST_USE rlx_status_t* te_resize(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                            rlx_te_tensor_t** out) {
  rs_user_t* u = user;
  u->x = in[0];
  int r = u->r;
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r);
  u->s_e = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r);
  u->ow_e = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r);
  u->b_e = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r);
  u->e_e = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r);
  for (int d = 0; d < r; d++) {
    int at = u->at ? u->at[d] : -1;
    double in_d = (double)u->in[d];
    shape[d] = u->out_e ? u->out_e[d] : rlx_ir_i64(ctx, u->out[d]);
    u->s_e[d] = f64(ctx, u->scales[d]);
    if (at >= 0 && u->scales_arg) u->s_e[d] = load_f64(ctx, in[u->scales_arg], at);
    if (at >= 0 && u->sizes_rt) u->s_e[d] = rlx_ir_div(ctx, rlx_ir_cast(ctx, rlx_dt_float64(), shape[d]), f64(ctx, in_d));
    u->ow_e[d] = rlx_ir_mul(ctx, u->s_e[d], f64(ctx, in_d));
    if (u->roi_arg && at >= 0) {
      u->b_e[d] = load_f64(ctx, in[u->roi_arg], at);
      u->e_e[d] = load_f64(ctx, in[u->roi_arg], at + u->n_axes);
    } else {
      u->b_e[d] = f64(ctx, u->roi ? u->roi[d] : 0);
      u->e_e[d] = f64(ctx, u->roi ? u->roi[d + r] : 1);
    }
  }
  return *out = rlx_te_compute(ctx, r, shape, resize_body, u, "T_resize", "injective"), NULL;
}

/* Looks s up in names (n entries); error naming the attribute otherwise. */
static RLX_MUST_USE rlx_status_t* pick(const rlx_onnx_node_t* node, const char* key, const char* s, const char* const* names, int n,
                          int* out) {
  for (int i = 0; i < n; i++)
    if (strcmp(s, names[i]) == 0) return *out = i, NULL;
  return rlx_onnx_error(node, "%s '%s' is not supported", key, s);
}

/* Fills the output sizes and the scales (sizes / in where sizes are given); n_scales /
 * n_sizes < 0 = absent; axes (NULL = all) name the dims they describe. */
static RLX_MUST_USE rlx_status_t* resize_geometry(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rs_user_t* u,
                                     int n_scales, const double* scales, int n_sizes, const int64_t* sizes, int n_axes,
                                     const int64_t* axes) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  int r = u->r;
  u->scales = RLX_NEW_ARRAY(ctx, double, r);
  u->out = RLX_NEW_ARRAY(ctx, int64_t, r);
  int64_t* dim_of = RLX_NEW_ARRAY(ctx, int64_t, r);
  int n = axes ? n_axes : r;
  for (int i = 0; i < n; i++) {
    dim_of[i] = i;
    if (axes) RLX_RETURN_IF_ERROR(ot_axis(node, "axis", axes[i], r, &dim_of[i]));
  }
  for (int d = 0; d < r; d++) {
    u->scales[d] = 1;
    u->out[d] = u->in[d];
  }
  if (n_scales > 0) {
    if (n_scales != n) return rlx_onnx_error(node, "scales has %d values for %d axes", n_scales, n);
    for (int i = 0; i < n; i++) {
      int64_t d = dim_of[i];
      if (!(scales[i] > 0)) return rlx_onnx_error(node, "scale %g is not positive", scales[i]);
      u->scales[d] = scales[i];
      double o = floor(scales[i] * (double)u->in[d]);
      if (!(o < 9223372036854775808.0)) /* 2^63: the cast would be undefined */
        return rlx_onnx_error(node, "the size of axis %lld, %lld scaled by %g, overflows int64", (long long)d,
                              (long long)u->in[d], scales[i]);
      u->out[d] = (int64_t)o;
    }
  } else if (n_sizes > 0) {
    if (n_sizes != n) return rlx_onnx_error(node, "sizes has %d values for %d axes", n_sizes, n);
    for (int i = 0; i < n; i++) {
      int64_t d = dim_of[i];
      if (sizes[i] < 1 || u->in[d] < 1) return rlx_onnx_error(node, "cannot resize extent %lld to %lld",
                                                               (long long)u->in[d], (long long)sizes[i]);
      u->out[d] = sizes[i];
      u->scales[d] = (double)sizes[i] / (double)u->in[d];
    }
  } else {
    return rlx_onnx_error(node, "needs scales or sizes");
  }
  for (int d = 0; d < r; d++)
    if (u->out[d] > 0 && u->in[d] < 1) return rlx_onnx_error(node, "cannot resize an empty axis %d", d);
  return NULL;
}

/* The constant float values of input i (any float or int dtype); n -1 when omitted or empty. */
static RLX_MUST_USE rlx_status_t* const_floats(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                  int i, double** out, int* out_n) {
  *out_n = -1;
  *out = NULL;
  if (!ot_has_input(node, inputs, i)) return NULL;
  rlx_onnx_tensor_t t;
  if (!rlx_onnx_const(im, inputs[i], &t))
    return rlx_onnx_error(node, "input %d (%s) must be a constant", i, node->inputs[i]);
  int64_t n = ot_numel(&t);
  if (n == 0) return NULL;
  double* v = RLX_NEW_ARRAY(rlx_onnx_ctx(im), double, n);
  for (int64_t k = 0; k < n; k++) v[k] = ot_elem_f64(&t, k);
  *out = v;
  *out_n = (int)n;
  return NULL;
}

/* Input i given, not a constant and not empty: read when the model runs. */
static bool runtime_input(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs, int i) {
  rlx_onnx_tensor_t k;
  rlx_sinfo_tensor_t* t;
  if (i < 0 || !ot_has_input(node, inputs, i) || rlx_onnx_const(im, inputs[i], &k)) return false;
  if (ot_tensor(node, inputs, i, true, &t)) return true; /* reported by resize_runtime */
  int64_t n = 0;
  return !(t->ndim == 1 && rlx_expr_is_const_int(t->shape[0], &n) && n == 0);
}

/* Output dim j when scales (ins[0]) or sizes arrive at run time. */
static rlx_expr_t* runtime_out_dim(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, void* user) {
  rs_user_t* u = user;
  if (u->at[j] < 0) return rlx_ir_i64(ctx, u->in[j]);
  if (u->sizes_rt) return rlx_onnx_load_int(ctx, ins[0], u->at[j]);
  rlx_expr_t* v = rlx_ir_mul(ctx, load_f64(ctx, ins[0], u->at[j]), f64(ctx, (double)u->in[j]));
  return rlx_ir_cast(ctx, rlx_dt_int64(), rlx_ir_call(ctx, rlx_dt_float64(), "floor", 1, &v));
}

/* Resize with scales, sizes or roi known at run time (indices of those inputs, -1 = the
 * opset has none): every one that is given is a kernel argument, constant or not. */
static RLX_MUST_USE rlx_status_t* resize_runtime(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                    rlx_relax_expr_t* const* inputs, rs_user_t* u, int roi_i, int scales_i, int sizes_i,
                                    int n_axes, const int64_t* axes, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  int r = u->r, n = axes ? n_axes : r;
  u->at = RLX_NEW_ARRAY(ctx, int, r);
  u->scales = RLX_NEW_ARRAY(ctx, double, r);
  u->out = RLX_NEW_ARRAY(ctx, int64_t, r);
  for (int d = 0; d < r; d++) {
    u->at[d] = -1;
    u->scales[d] = 1;
    u->out[d] = u->in[d];
  }
  for (int i = 0; i < n; i++) {
    int64_t d = i;
    if (axes) RLX_RETURN_IF_ERROR(ot_axis(node, "axis", axes[i], r, &d));
    u->at[d] = i;
  }
  rlx_relax_expr_t* args[3] = {inputs[0], NULL, NULL};
  int n_args = 1, geom = -1;
  rlx_onnx_tensor_t k;
  bool has_scales = scales_i >= 0 && ot_has_input(node, inputs, scales_i) &&
                    (runtime_input(im, node, inputs, scales_i) ||
                     (rlx_onnx_const(im, inputs[scales_i], &k) && ot_numel(&k) > 0));
  if (has_scales) {
    geom = scales_i;
    u->scales_arg = n_args;
    args[n_args++] = inputs[scales_i];
  } else if (sizes_i >= 0 && ot_has_input(node, inputs, sizes_i)) {
    geom = sizes_i;
    u->sizes_rt = 1;
  } else {
    return rlx_onnx_error(node, "needs scales or sizes");
  }
  int64_t len = 0;
  rlx_sinfo_tensor_t* g;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, geom, true, &g));
  if (g->ndim != 1 || !rlx_expr_is_const_int(g->shape[0], &len) || len != n)
    return rlx_onnx_error(node, "input %d ('%s') must hold %d values", geom, node->inputs[geom], n);
  if (u->coord == RS_TF_CROP_AND_RESIZE) {
    rlx_sinfo_tensor_t* t;
    if (roi_i < 0 || !ot_has_input(node, inputs, roi_i)) return rlx_onnx_error(node, "tf_crop_and_resize needs roi");
    RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, roi_i, true, &t));
    if (t->ndim != 1 || !rlx_expr_is_const_int(t->shape[0], &len) || len != 2 * n)
      return rlx_onnx_error(node, "tf_crop_and_resize needs a roi of %d values", 2 * n);
    u->roi_arg = n_args;
    u->n_axes = n;
    args[n_args++] = inputs[roi_i];
  }
  RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, runtime_out_dim, u, 1, &inputs[geom], r, &u->out_e));
  return rlx_onnx_emit_te(im, te_resize, u, n_args, args, "resize", out);
}

static RLX_MUST_USE rlx_status_t* resize_input(const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs, rs_user_t* u,
                                  rlx_onnx_importer_t* im) {
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  u->r = x->ndim;
  u->in = RLX_NEW_ARRAY(rlx_onnx_ctx(im), int64_t, x->ndim);
  for (int d = 0; d < x->ndim; d++)
    if (!rlx_expr_is_const_int(x->shape[d], &u->in[d]))
      return rlx_onnx_error(node, "needs an input of constant shape");
  if (x->ndim < 1) return rlx_onnx_error(node, "needs an input of rank >= 1");
  return NULL;
}

static RLX_MUST_USE rlx_status_t* legacy_mode(const rlx_onnx_node_t* node, rs_user_t* u) {
  const char* mode = rlx_onnx_attr_string(node, "mode", "nearest");
  static const char* const modes[] = {"nearest", "linear"};
  int m = 0;
  RLX_RETURN_IF_ERROR(pick(node, "mode", mode, modes, 2, &m));
  u->method = (rs_method_t)m;
  /* the opset < 11 semantics: asymmetric coordinates, nearest rounds down */
  u->coord = RS_ASYMMETRIC;
  u->nearest = RS_FLOOR;
  return NULL;
}

OT_CONVERTER(ot_upsample) {
  rs_user_t u;
  memset(&u, 0, sizeof(u));
  RLX_RETURN_IF_ERROR(resize_input(node, inputs, &u, im));
  RLX_RETURN_IF_ERROR(legacy_mode(node, &u));
  double* scales = NULL;
  int n = -1;
  if (rlx_onnx_opset(im) < 9) {
    const float* f = NULL;
    n = rlx_onnx_attr_floats(node, "scales", &f);
    if (n > 0) {
      scales = RLX_NEW_ARRAY(rlx_onnx_ctx(im), double, n);
      for (int i = 0; i < n; i++) scales[i] = f[i];
    }
  } else {
    if (runtime_input(im, node, inputs, 1))
      return resize_runtime(im, node, inputs, &u, -1, 1, -1, -1, NULL, &outputs[0]);
    RLX_RETURN_IF_ERROR(const_floats(im, node, inputs, 1, &scales, &n));
  }
  RLX_RETURN_IF_ERROR(resize_geometry(im, node, &u, n, scales, -1, NULL, -1, NULL));
  return rlx_onnx_emit_te(im, te_resize, &u, 1, inputs, "resize", &outputs[0]);
}

OT_CONVERTER(ot_resize) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rs_user_t u;
  memset(&u, 0, sizeof(u));
  RLX_RETURN_IF_ERROR(resize_input(node, inputs, &u, im));
  double *scales = NULL, *roi = NULL;
  int n_scales = -1, n_roi = -1, n_sizes = -1, n_axes = -1;
  int64_t *sizes = NULL, *axes = NULL;
  if (rlx_onnx_opset(im) < 11) {
    RLX_RETURN_IF_ERROR(legacy_mode(node, &u));
    if (runtime_input(im, node, inputs, 1))
      return resize_runtime(im, node, inputs, &u, -1, 1, -1, -1, NULL, &outputs[0]);
    RLX_RETURN_IF_ERROR(const_floats(im, node, inputs, 1, &scales, &n_scales));
  } else {
    static const char* const modes[] = {"nearest", "linear", "cubic"};
    static const char* const coords[] = {"half_pixel",           "pytorch_half_pixel", "align_corners",
                                         "asymmetric",           "tf_half_pixel_for_nn", "tf_crop_and_resize"};
    static const char* const nearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    int m = 0, c = 0, nm = 0;
    RLX_RETURN_IF_ERROR(pick(node, "mode", rlx_onnx_attr_string(node, "mode", "nearest"), modes, 3, &m));
    RLX_RETURN_IF_ERROR(pick(node, "coordinate_transformation_mode",
                             rlx_onnx_attr_string(node, "coordinate_transformation_mode", "half_pixel"), coords, 6, &c));
    RLX_RETURN_IF_ERROR(
        pick(node, "nearest_mode", rlx_onnx_attr_string(node, "nearest_mode", "round_prefer_floor"), nearest, 4, &nm));
    u.method = (rs_method_t)m;
    u.coord = (rs_coord_t)c;
    u.nearest = (rs_nearest_t)nm;
    u.cubic_a = rlx_onnx_attr_float(node, "cubic_coeff_a", -0.75);
    u.exclude_outside = rlx_onnx_attr_int(node, "exclude_outside", 0) != 0;
    u.extrapolation = rlx_onnx_attr_float(node, "extrapolation_value", 0.0);
    if (rlx_onnx_attr_int(node, "antialias", 0) != 0) return rlx_onnx_error(node, "antialias is not supported");
    const char* policy = rlx_onnx_attr_string(node, "keep_aspect_ratio_policy", "stretch");
    if (strcmp(policy, "stretch") != 0)
      return rlx_onnx_error(node, "keep_aspect_ratio_policy '%s' is not supported", policy);
    int na = -1;
    const int64_t* av = NULL;
    na = rlx_onnx_attr_ints(node, "axes", &av);
    if (na >= 0) {
      n_axes = na;
      axes = ot_copy_ints(ctx, na, av);
    }
    bool crop = u.coord == RS_TF_CROP_AND_RESIZE;
    if ((crop && runtime_input(im, node, inputs, 1)) || runtime_input(im, node, inputs, 2) ||
        runtime_input(im, node, inputs, 3))
      return resize_runtime(im, node, inputs, &u, 1, 2, 3, n_axes, axes, &outputs[0]);
    if (crop) RLX_RETURN_IF_ERROR(const_floats(im, node, inputs, 1, &roi, &n_roi));
    RLX_RETURN_IF_ERROR(const_floats(im, node, inputs, 2, &scales, &n_scales));
    if (ot_has_input(node, inputs, 3)) {
      RLX_RETURN_IF_ERROR(rlx_onnx_const_ints(im, node, 3, inputs[3], &sizes, &n_sizes));
      if (n_sizes == 0) n_sizes = -1;
    }
    if (n_scales > 0 && n_sizes > 0) return rlx_onnx_error(node, "takes scales or sizes, not both");
    if (u.coord == RS_TF_CROP_AND_RESIZE) {
      int n = axes ? n_axes : u.r;
      if (n_roi != 2 * n) return rlx_onnx_error(node, "tf_crop_and_resize needs a constant roi of %d values", 2 * n);
      u.roi = RLX_NEW_ARRAY(ctx, double, 2 * u.r);
      for (int d = 0; d < u.r; d++) {
        u.roi[d] = 0;
        u.roi[d + u.r] = 1;
      }
      for (int i = 0; i < n; i++) {
        int64_t d = i;
        if (axes) RLX_RETURN_IF_ERROR(ot_axis(node, "axis", axes[i], u.r, &d));
        u.roi[d] = roi[i];
        u.roi[d + u.r] = roi[i + n];
      }
    }
  }
  RLX_RETURN_IF_ERROR(resize_geometry(im, node, &u, n_scales, scales, n_sizes, sizes, n_axes, axes));
  return rlx_onnx_emit_te(im, te_resize, &u, 1, inputs, "resize", &outputs[0]);
}

/* ------------------------------------------------------------------ GridSample */
/* GridSample-16 on 4-D input (N, C, H, W) and grid (N, Ho, Wo, 2) holding normalized (x, y)
 * in [-1, 1], as the ONNX reference: the coordinate is denormalized (align_corners), rounded
 * half to even for nearest, clamped (border) or reflected (reflection) into the input, then
 * interpolated from 1, 2x2 or 4x4 pixels; a pixel outside reads 0 (zeros), the edge (border)
 * or its reflection (reflection). */
typedef enum { GS_BILINEAR, GS_NEAREST, GS_BICUBIC } gs_mode_t;
typedef enum { GS_ZEROS, GS_BORDER, GS_REFLECTION } gs_pad_t;

typedef struct {
  gs_mode_t mode;
  gs_pad_t pad;
  bool align;
  rlx_te_tensor_t *x, *grid;
} gs_user_t;

/* x reflected into [lo, hi] (the reference's _gs_reflect). */
static rlx_expr_t* gs_reflect(rlx_ctx_t* ctx, rlx_expr_t* x, double lo, double hi) {
  double rng = hi - lo;
  if (rng <= 0) return f64(ctx, lo);
  rlx_expr_t* below = rlx_ir_sub(ctx, f64(ctx, lo), x); /* distance under lo */
  rlx_expr_t* above = rlx_ir_sub(ctx, x, f64(ctx, hi));
  rlx_expr_t* out[2];
  rlx_expr_t* d[2] = {below, above};
  for (int k = 0; k < 2; k++) {
    rlx_expr_t* q = rlx_ir_div(ctx, d[k], f64(ctx, rng));
    rlx_expr_t* n = rlx_ir_call(ctx, rlx_dt_float64(), "floor", 1, &q);
    rlx_expr_t* r = rlx_ir_sub(ctx, d[k], rlx_ir_mul(ctx, n, f64(ctx, rng)));
    rlx_expr_t* even = rlx_ir_cmp(ctx, RLX_EXPR_EQ, rlx_ir_floormod(ctx, rlx_ir_cast(ctx, rlx_dt_int64(), n), rlx_ir_i64(ctx, 2)),
                                  rlx_ir_i64(ctx, 0));
    rlx_expr_t* from_lo = rlx_ir_add(ctx, f64(ctx, lo), r), *from_hi = rlx_ir_sub(ctx, f64(ctx, hi), r);
    out[k] = k == 0 ? rlx_ir_select(ctx, even, from_lo, from_hi) : rlx_ir_select(ctx, even, from_hi, from_lo);
  }
  return rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, x, f64(ctx, lo)), out[0],
                       rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_GT, x, f64(ctx, hi)), out[1], x));
}

static rlx_expr_t* gs_clamp(rlx_ctx_t* ctx, rlx_expr_t* x, double lo, double hi) {
  return rlx_ir_max(ctx, rlx_ir_min(ctx, x, f64(ctx, hi)), f64(ctx, lo));
}

/* The pixel at integer (float64-valued) row r, column c of image (n, ch), per padding. */
static rlx_expr_t* gs_pixel(rlx_ctx_t* ctx, gs_user_t* u, rlx_expr_t* n, rlx_expr_t* ch, rlx_expr_t* r, rlx_expr_t* c) {
  int64_t h = 1, w = 1;
  rlx_expr_is_const_int(u->x->buffer->shape[2], &h);
  rlx_expr_is_const_int(u->x->buffer->shape[3], &w);
  rlx_expr_t* inside = NULL;
  if (u->pad == GS_ZEROS)
    inside = rlx_ir_and(ctx,
                        rlx_ir_and(ctx, rlx_ir_cmp(ctx, RLX_EXPR_GE, r, f64(ctx, 0)),
                                   rlx_ir_cmp(ctx, RLX_EXPR_LE, r, f64(ctx, (double)(h - 1)))),
                        rlx_ir_and(ctx, rlx_ir_cmp(ctx, RLX_EXPR_GE, c, f64(ctx, 0)),
                                   rlx_ir_cmp(ctx, RLX_EXPR_LE, c, f64(ctx, (double)(w - 1)))));
  if (u->pad == GS_REFLECTION) {
    double lo = u->align ? 0 : -0.5;
    r = gs_reflect(ctx, r, lo, u->align ? (double)(h - 1) : (double)h - 0.5);
    c = gs_reflect(ctx, c, lo, u->align ? (double)(w - 1) : (double)w - 0.5);
    r = rlx_ir_call(ctx, rlx_dt_float64(), "trunc", 1, &r);
    c = rlx_ir_call(ctx, rlx_dt_float64(), "trunc", 1, &c);
  }
  rlx_expr_t* idx[4] = {n, ch, rlx_ir_cast(ctx, rlx_dt_int64(), gs_clamp(ctx, r, 0, (double)(h - 1))),
                        rlx_ir_cast(ctx, rlx_dt_int64(), gs_clamp(ctx, c, 0, (double)(w - 1)))};
  rlx_expr_t* v = rlx_ir_cast(ctx, rlx_dt_float64(), rlx_te_load(ctx, u->x, 4, idx));
  return inside ? rlx_ir_select(ctx, inside, v, f64(ctx, 0)) : v;
}

static rlx_expr_t* gs_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  gs_user_t* u = user;
  rlx_expr_t *n = &idx[0]->hdr, *ch = &idx[1]->hdr;
  int64_t size[2] = {1, 1}; /* W, H */
  rlx_expr_is_const_int(u->x->buffer->shape[3], &size[0]);
  rlx_expr_is_const_int(u->x->buffer->shape[2], &size[1]);
  rlx_expr_t* coord[2]; /* x, y */
  for (int k = 0; k < 2; k++) {
    rlx_expr_t* gi[4] = {n, &idx[2]->hdr, &idx[3]->hdr, rlx_ir_i64(ctx, k)};
    rlx_expr_t* g = rlx_ir_cast(ctx, rlx_dt_float64(), rlx_te_load(ctx, u->grid, 4, gi));
    double s = (double)size[k];
    /* align_corners: (g + 1) / 2 * (s - 1); else ((g + 1) * s - 1) / 2 */
    rlx_expr_t* v = u->align ? rlx_ir_mul(ctx, rlx_ir_add(ctx, g, f64(ctx, 1)), f64(ctx, (s - 1) / 2))
                             : rlx_ir_div(ctx, rlx_ir_sub(ctx, rlx_ir_mul(ctx, rlx_ir_add(ctx, g, f64(ctx, 1)), f64(ctx, s)),
                                                          f64(ctx, 1)),
                                          f64(ctx, 2));
    if (u->mode == GS_NEAREST) v = rlx_ir_call(ctx, rlx_dt_float64(), "nearbyint", 1, &v);
    if (u->pad == GS_BORDER) v = gs_clamp(ctx, v, 0, s - 1);
    if (u->pad == GS_REFLECTION) v = gs_reflect(ctx, v, u->align ? 0 : -0.5, u->align ? s - 1 : s - 0.5);
    coord[k] = v;
  }
  rlx_expr_t* acc = NULL;
  if (u->mode == GS_NEAREST) {
    acc = gs_pixel(ctx, u, n, ch, coord[1], coord[0]);
  } else {
    int taps = u->mode == GS_BILINEAR ? 2 : 4;
    rlx_expr_t *base[2], *w[2][4];
    for (int k = 0; k < 2; k++) {
      rlx_expr_t* fl = rlx_ir_call(ctx, rlx_dt_float64(), "floor", 1, &coord[k]);
      rlx_expr_t* t = rlx_ir_sub(ctx, coord[k], fl);
      if (taps == 2) {
        base[k] = fl;
        w[k][0] = rlx_ir_sub(ctx, f64(ctx, 1), t);
        w[k][1] = t;
      } else {
        base[k] = rlx_ir_sub(ctx, fl, f64(ctx, 1));
        for (int j = 0; j < 4; j++) w[k][j] = cubic_coeff(ctx, -0.75, j, t);
      }
    }
    for (int i = 0; i < taps; i++)
      for (int j = 0; j < taps; j++) {
        rlx_expr_t* p = gs_pixel(ctx, u, n, ch, rlx_ir_add(ctx, base[1], f64(ctx, i)), rlx_ir_add(ctx, base[0], f64(ctx, j)));
        rlx_expr_t* term = rlx_ir_mul(ctx, rlx_ir_mul(ctx, w[1][i], w[0][j]), p);
        acc = acc ? rlx_ir_add(ctx, acc, term) : term;
      }
  }
  return rlx_ir_cast(ctx, u->x->buffer->dtype, acc);
}

static RLX_MUST_USE rlx_status_t* te_grid_sample(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                                 rlx_te_tensor_t** out) {
  gs_user_t* u = user;
  u->x = in[0];
  u->grid = in[1];
  rlx_expr_t* shape[4] = {in[0]->buffer->shape[0], in[0]->buffer->shape[1], in[1]->buffer->shape[1],
                          in[1]->buffer->shape[2]};
  return *out = rlx_te_compute(ctx, 4, shape, gs_body, u, "T_grid_sample", "injective"), NULL;
}

OT_CONVERTER(ot_grid_sample) {
  rlx_sinfo_tensor_t *x, *g;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, true, &g));
  if (x->ndim != 4 || g->ndim != 4) return rlx_onnx_error(node, "supports 4-D input and grid only");
  int64_t v;
  if (!rlx_expr_is_const_int(g->shape[3], &v) || v != 2) return rlx_onnx_error(node, "the grid's last dim must be 2");
  if (!rlx_expr_is_const_int(x->shape[2], &v) || !rlx_expr_is_const_int(x->shape[3], &v))
    return rlx_onnx_error(node, "needs constant input height and width");
  if (!rlx_dtype_is_float(x->dtype) || !rlx_dtype_is_float(g->dtype))
    return rlx_onnx_error(node, "needs float input and grid");
  gs_user_t u;
  memset(&u, 0, sizeof(u));
  static const char* const modes[] = {"bilinear", "nearest", "bicubic"};
  static const char* const pads[] = {"zeros", "border", "reflection"};
  int m = 0, p = 0;
  RLX_RETURN_IF_ERROR(pick(node, "mode", rlx_onnx_attr_string(node, "mode", "bilinear"), modes, 3, &m));
  RLX_RETURN_IF_ERROR(pick(node, "padding_mode", rlx_onnx_attr_string(node, "padding_mode", "zeros"), pads, 3, &p));
  u.mode = (gs_mode_t)m;
  u.pad = (gs_pad_t)p;
  u.align = rlx_onnx_attr_int(node, "align_corners", 0) != 0;
  return rlx_onnx_emit_te(im, te_grid_sample, &u, 2, inputs, "grid_sample", &outputs[0]);
}
