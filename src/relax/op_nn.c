/* Relax ops, family "nn" (see op.h): matmul, linear, softmax, log_softmax, layer_norm,
 * attention, rms_norm, group_norm, instance_norm, batch_norm, dropout here; conv1d/2d/3d and
 * their _transpose forms, max/avg_pool1d/2d/3d and adaptive_avg_pool1d/2d/3d in
 * op_nn_conv.c; shared helpers in op_nn_util.c.
 *
 * Each op has TVM's name, positional args and attrs (read by key; an absent attr takes
 * TVM's default):
 *   relax.matmul(x1, x2)                         out_dtype (dtype, void = inputs')
 *   relax.linear(x, w[, b])  = x @ wᵀ + b         out_dtype
 *   relax.nn.softmax(x), relax.nn.log_softmax(x) axis (int, -1)
 *   relax.nn.layer_norm(x, gamma, beta)          axes (ints), epsilon (1e-5), center (T), scale (T)
 *   relax.nn.attention(q, k, v[, bias])          scale (float; absent = 1/sqrt(head dim)),
 *                                                causal_mask ("TopLeft" / "BottomRight"; absent =
 *                                                none); q (B, S, H, D), k (B, Skv, H, D), v (B, Skv,
 *                                                H, Dv) → (B, S, H, Dv); relax.nn.attention_bias:
 *                                                the same with the bias required (TVM's name)
 *   relax.nn.rms_norm(x, weight)                 axes (ints, [-1]), epsilon (1e-5)
 *   relax.nn.group_norm(x, gamma, beta)          num_groups, channel_axis, axes, epsilon (1e-5),
 *                                                center (T), scale (T)
 *   relax.nn.instance_norm(x, gamma, beta)       channel_axis, axes, epsilon, center, scale
 *                                                (group_norm with one group per channel)
 *   relax.nn.leakyrelu(x)                        alpha (0.01): x if x > 0 else x * alpha
 *   relax.nn.prelu(x, alpha)                     axis (1): alpha per channel of that axis
 *   relax.nn.dropout(x)                          rate (0.5) → R.Tuple(out, mask); inference:
 *                                                out = x, mask = ones
 *   relax.nn.batch_norm(x, gamma, beta, mean, var) axis (1), epsilon (1e-5), center, scale,
 *                                                momentum (0.1), training (False when absent:
 *                                                inference) → R.Tuple(out, mean, var); with
 *                                                training the batch's statistics are used and
 *                                                the moving ones updated (population variance)
 *   relax.nn.conv2d(data, weight)                strides (1,1), padding (0,0), dilation (1,1),
 *                                                groups (1), data_layout "NCHW", kernel_layout
 *                                                "OIHW", out_layout (= data_layout), out_dtype
 *   relax.nn.max_pool2d / avg_pool2d(data)       pool_size, strides, dilation, padding,
 *                                                ceil_mode (F), count_include_pad (F), layout
 *                                                "NCHW", out_layout
 *   relax.nn.adaptive_avg_pool2d(data)           output_size (ints; absent = input's), layout,
 *                                                out_layout
 *   (1-D and 3-D variants: the same attrs with layouts NCW / OIW and NCDHW / OIDHW)
 *   relax.nn.conv2d_transpose(data, weight)      strides, padding, output_padding (0), dilation,
 *                                                groups, data_layout "NCHW", kernel_layout "IOHW"
 *                                                (weight [C, O / groups, KH, KW]), out_layout,
 *                                                out_dtype; also conv1d_transpose, conv3d_transpose
 * Ints lists: strides / dilation / pool_size / output_size take 1 or k values (k spatial
 * dims), padding 1, k (symmetric) or 2k (all before, then all after: [top, left, bottom,
 * right] in 2-D) values. Only channels-first layouts are supported.
 *
 * Inference follows TVM: symbolic dims pass through (batch n through conv, pool, matmul);
 * shapes that are provably wrong are errors naming the op and the shapes; a batch broadcast
 * of two symbolic dims that cannot be proved equal gives a result of known rank and unknown
 * shape. Legalization makes one TE PrimFunc per call through topi (src/topi/nn.h) with
 * rlx_bb_call_te; a call whose operands lack a known shape or dtype is left as it is.
 */
#include <string.h>

#include "op_nn_internal.h"

/* ---------------------------------------------------------------- matmul */
/* numpy matmul struct info: see rlx_topi_matmul for the rules. */
static RLX_MUST_USE rlx_status_t* infer_matmul_shapes(rlx_ctx_t* ctx, const char* op, rlx_sinfo_tensor_t* a, rlx_sinfo_tensor_t* b,
                                         rlx_dtype_t dt, rlx_sinfo_t** out) {
  if (a->ndim < 0 || b->ndim < 0) return *out = rlx_sinfo_tensor(ctx, -1, NULL, dt), NULL;
  if (a->ndim == 0 || b->ndim == 0)
    return onn_fail(op, "operands must have rank >= 1, got shapes %s and %s", onn_shape_str(ctx, a),
                    onn_shape_str(ctx, b));
  bool av = a->ndim == 1, bv = b->ndim == 1;
  int ab = av ? 0 : a->ndim - 2, bb = bv ? 0 : b->ndim - 2;
  int nb = ab > bb ? ab : bb;
  int nd = nb + (av ? 0 : 1) + (bv ? 0 : 1);
  if (!a->shape || !b->shape) return *out = rlx_sinfo_tensor(ctx, nd, NULL, dt), NULL;
  rlx_expr_t* ka = a->shape[a->ndim - 1];
  rlx_expr_t* kb = bv ? b->shape[0] : b->shape[b->ndim - 2];
  if (onn_provably_ne(ctx, ka, kb))
    return onn_fail(op, "contraction dims differ: %s vs %s (shapes %s and %s)", onn_dim_str(ctx, ka),
                    onn_dim_str(ctx, kb), onn_shape_str(ctx, a), onn_shape_str(ctx, b));
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, nd);
  bool unknown = false;
  for (int d = 0; d < nb; d++) {
    int da = d - (nb - ab), db = d - (nb - bb);
    rlx_expr_t* x = da >= 0 ? a->shape[da] : NULL;
    rlx_expr_t* y = db >= 0 ? b->shape[db] : NULL;
    if (!x || !y || onn_is_one(y)) shape[d] = x ? x : y;
    else if (onn_is_one(x)) shape[d] = y;
    else if (rlx_ir_prove_equal(ctx, x, y)) shape[d] = x;
    else if (onn_provably_ne(ctx, x, y))
      return onn_fail(op, "batch dims cannot broadcast: %s vs %s (shapes %s and %s)", onn_dim_str(ctx, x),
                      onn_dim_str(ctx, y), onn_shape_str(ctx, a), onn_shape_str(ctx, b));
    else unknown = true;
  }
  int o = nb;
  if (!av) shape[o++] = a->shape[a->ndim - 2];
  if (!bv) shape[o++] = b->shape[b->ndim - 1];
  *out = rlx_sinfo_tensor(ctx, nd, unknown ? NULL : shape, dt);
  return NULL;
}

rlx_status_t* onn_infer_matmul(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(onn_check_arity(c, 2, 2));
  rlx_sinfo_tensor_t *a, *b;
  RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, 0, &a));
  RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, 1, &b));
  rlx_dtype_t dt, od;
  RLX_RETURN_IF_ERROR(onn_attr_out_dtype(c, &od));
  if (rlx_dtype_is_void(od)) RLX_RETURN_IF_ERROR(onn_same_dtype(ctx, onn_op_name(c), a->dtype, b->dtype, &dt));
  else dt = od; /* operands may differ (int8 x uint8 → int32) */
  return infer_matmul_shapes(ctx, onn_op_name(c), a, b, dt, out);
}

static RLX_MUST_USE rlx_status_t* te_matmul(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n,
                                            const rlx_relax_call_t* c, rlx_te_tensor_t** out) {
  rlx_dtype_t od;
  RLX_RETURN_IF_ERROR(onn_attr_out_dtype(c, &od));
  return rlx_topi_matmul(ctx, in[0], in[1], od, out);
}

rlx_status_t* onn_legalize_matmul(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  return onn_legalize_te(bb, c, te_matmul, 2, c->args, "matmul", out);
}

/* ---------------------------------------------------------------- linear */
rlx_status_t* onn_infer_linear(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  const char* op = onn_op_name(c);
  RLX_RETURN_IF_ERROR(onn_check_arity(c, 2, 3));
  rlx_sinfo_tensor_t *x, *w, *b = NULL;
  RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, 0, &x));
  RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, 1, &w));
  if (c->n_args == 3) RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, 2, &b));
  rlx_dtype_t dt, od;
  RLX_RETURN_IF_ERROR(onn_attr_out_dtype(c, &od));
  if (rlx_dtype_is_void(od)) RLX_RETURN_IF_ERROR(onn_same_dtype(ctx, op, x->dtype, w->dtype, &dt));
  else dt = od;
  if (w->ndim >= 0 && w->ndim != 2) return onn_fail(op, "weight must be 2-D [out, in], got %s", onn_shape_str(ctx, w));
  if (x->ndim == 0) return onn_fail(op, "data must have rank >= 1, got %s", onn_shape_str(ctx, x));
  if (x->ndim < 0) return *out = rlx_sinfo_tensor(ctx, -1, NULL, dt), NULL;
  if (!x->shape || !w->shape) return *out = rlx_sinfo_tensor(ctx, x->ndim, NULL, dt), NULL;
  rlx_expr_t *kx = x->shape[x->ndim - 1], *kw = w->shape[1];
  if (onn_provably_ne(ctx, kx, kw))
    return onn_fail(op, "contraction dims differ: %s vs %s (shapes %s and %s)", onn_dim_str(ctx, kx),
                    onn_dim_str(ctx, kw), onn_shape_str(ctx, x), onn_shape_str(ctx, w));
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, x->ndim);
  for (int d = 0; d < x->ndim - 1; d++) shape[d] = x->shape[d];
  shape[x->ndim - 1] = w->shape[0];
  if (b && b->shape) {
    if (b->ndim > x->ndim) return onn_fail(op, "bias %s has a higher rank than the output", onn_shape_str(ctx, b));
    for (int d = 0; d < b->ndim; d++) {
      rlx_expr_t* od_ = shape[x->ndim - b->ndim + d];
      if (!onn_is_one(b->shape[d]) && onn_provably_ne(ctx, b->shape[d], od_))
        return onn_fail(op, "bias %s does not broadcast to the output (%s along its last dims)", onn_shape_str(ctx, b),
                        onn_dim_str(ctx, od_));
    }
  }
  *out = rlx_sinfo_tensor(ctx, x->ndim, shape, dt);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_linear(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n,
                                            const rlx_relax_call_t* c, rlx_te_tensor_t** out) {
  rlx_dtype_t od;
  RLX_RETURN_IF_ERROR(onn_attr_out_dtype(c, &od));
  return rlx_topi_nn_dense(ctx, in[0], in[1], n > 2 ? in[2] : NULL, od, out);
}

rlx_status_t* onn_legalize_linear(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  return onn_legalize_te(bb, c, te_linear, c->n_args, c->args, "linear", out);
}

/* ---------------------------------------------------------------- softmax, log_softmax */
rlx_status_t* onn_infer_softmax(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(onn_check_arity(c, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, 0, &x));
  if (!rlx_dtype_is_void(x->dtype) && !rlx_dtype_is_float(x->dtype))
    return onn_fail(onn_op_name(c), "input dtype must be float, got %s", onn_dt_str(ctx, x->dtype));
  int64_t axis = onn_attr_int(c, "axis", -1);
  if (x->ndim >= 0 && (axis < -x->ndim || axis >= x->ndim))
    return onn_fail(onn_op_name(c), "axis %lld is out of range for shape %s", (long long)axis, onn_shape_str(ctx, x));
  *out = &x->hdr;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_softmax(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n,
                                             const rlx_relax_call_t* c, rlx_te_tensor_t** out) {
  int axis = (int)onn_attr_int(c, "axis", -1);
  if (rlx_relax_call_op_id(c) == RLX_OP_LOG_SOFTMAX) return rlx_topi_nn_log_softmax(ctx, in[0], axis, out);
  return rlx_topi_nn_softmax(ctx, in[0], axis, out);
}

rlx_status_t* onn_legalize_softmax(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  const char* name = rlx_relax_call_op_id(c) == RLX_OP_LOG_SOFTMAX ? "log_softmax" : "softmax";
  return onn_legalize_te(bb, c, te_softmax, 1, c->args, name, out);
}

/* ---------------------------------------------------------------- layer_norm */
/* The normalized axes (non-negative, x's order kept as given) into axes[0..*n). */
static RLX_MUST_USE rlx_status_t* ln_axes(rlx_ctx_t* ctx, const rlx_relax_call_t* c, int ndim, int* axes, int* n) {
  const rlx_attr_t* a = rlx_attrs_get(&c->attrs, "axes");
  *n = 0;
  if (!a) {
    axes[(*n)++] = -1;
  } else if (a->kind == RLX_ATTR_INT) {
    axes[(*n)++] = (int)a->u.i;
  } else if (a->kind == RLX_ATTR_INTS) {
    if (a->u.ints.n < 1 || a->u.ints.n > 16) return onn_fail(onn_op_name(c), "axes must have 1 to 16 entries");
    for (int i = 0; i < a->u.ints.n; i++) axes[(*n)++] = (int)a->u.ints.v[i];
  } else return onn_fail(onn_op_name(c), "axes must be a list of ints");
  if (ndim < 0) return NULL;
  for (int i = 0; i < *n; i++) {
    if (axes[i] < -ndim || axes[i] >= ndim)
      return onn_fail(onn_op_name(c), "axis %d is out of range for rank %d", axes[i], ndim);
    if (axes[i] < 0) axes[i] += ndim;
    for (int j = 0; j < i; j++)
      if (axes[j] == axes[i]) return onn_fail(onn_op_name(c), "axis %d is repeated", axes[i]);
  }
  (void)ctx;
  return NULL;
}

/* The args of layer_norm and group_norm: data (float), gamma and beta, of one dtype (*dt). */
static RLX_MUST_USE rlx_status_t* norm_args(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_tensor_t** x,
                                            rlx_sinfo_tensor_t** g, rlx_sinfo_tensor_t** b, rlx_dtype_t* dt) {
  const char* op = onn_op_name(c);
  RLX_RETURN_IF_ERROR(onn_check_arity(c, 3, 3));
  RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, 0, x));
  RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, 1, g));
  RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, 2, b));
  if (!rlx_dtype_is_void((*x)->dtype) && !rlx_dtype_is_float((*x)->dtype))
    return onn_fail(op, "input dtype must be float, got %s", onn_dt_str(ctx, (*x)->dtype));
  RLX_RETURN_IF_ERROR(onn_same_dtype(ctx, op, (*x)->dtype, (*g)->dtype, dt));
  return onn_same_dtype(ctx, op, (*x)->dtype, (*b)->dtype, dt);
}

rlx_status_t* onn_infer_layer_norm(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  const char* op = onn_op_name(c);
  rlx_sinfo_tensor_t *x, *g, *b;
  rlx_dtype_t dt;
  RLX_RETURN_IF_ERROR(norm_args(ctx, c, &x, &g, &b, &dt));
  int axes[16], n;
  RLX_RETURN_IF_ERROR(ln_axes(ctx, c, x->ndim, axes, &n));
  rlx_sinfo_tensor_t* ps[2] = {g, b};
  for (int p = 0; p < 2; p++) {
    if (ps[p]->ndim >= 0 && ps[p]->ndim != n)
      return onn_fail(op, "%s %s must have one dim per normalized axis (%d)", p ? "beta" : "gamma",
                      onn_shape_str(ctx, ps[p]), n);
    if (!ps[p]->shape || !x->shape) continue;
    for (int i = 0; i < n; i++)
      if (onn_provably_ne(ctx, ps[p]->shape[i], x->shape[axes[i]]))
        return onn_fail(op, "%s %s does not match the normalized dims of %s", p ? "beta" : "gamma",
                        onn_shape_str(ctx, ps[p]), onn_shape_str(ctx, x));
  }
  *out = &x->hdr;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_layer_norm(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n,
                                                const rlx_relax_call_t* c, rlx_te_tensor_t** out) {
  int axes[16], na;
  RLX_RETURN_IF_ERROR(ln_axes(ctx, c, in[0]->buffer->ndim, axes, &na));
  double eps = onn_attr_float(c, "epsilon", 1e-5);
  rlx_te_tensor_t* g = onn_attr_bool(c, "scale", true) ? in[1] : NULL;
  rlx_te_tensor_t* b = onn_attr_bool(c, "center", true) ? in[2] : NULL;
  /* topi wants gamma's dims in x's order: with unsorted axes, the legalization keeps the
   * order given, which topi accepts only when sorted. */
  for (int i = 1; i < na; i++)
    if (axes[i] < axes[i - 1])
      return rlx_status_create(RLX_UNSUPPORTED, "axes must be increasing for legalization");
  return rlx_topi_nn_layer_norm(ctx, in[0], g, b, na, axes, eps, out);
}

rlx_status_t* onn_legalize_layer_norm(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  return onn_legalize_te(bb, c, te_layer_norm, 3, c->args, "layer_norm", out);
}

/* ---------------------------------------------------------------- attention */
rlx_status_t* onn_infer_attention(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  const char* op = onn_op_name(c);
  bool with_bias = rlx_relax_call_op_id(c) == RLX_OP_ATTENTION_BIAS; /* TVM's name when a bias is given */
  RLX_RETURN_IF_ERROR(onn_check_arity(c, with_bias ? 4 : 3, 4));
  rlx_sinfo_tensor_t* t[4] = {NULL, NULL, NULL, NULL};
  for (int i = 0; i < c->n_args; i++) RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, i, &t[i]));
  rlx_sinfo_tensor_t *q = t[0], *k = t[1], *v = t[2], *b = t[3];
  rlx_dtype_t dt;
  RLX_RETURN_IF_ERROR(onn_same_dtype(ctx, op, q->dtype, k->dtype, &dt));
  RLX_RETURN_IF_ERROR(onn_same_dtype(ctx, op, dt, v->dtype, &dt));
  if (!rlx_dtype_is_void(dt) && !rlx_dtype_is_float(dt))
    return onn_fail(op, "input dtype must be float, got %s", onn_dt_str(ctx, dt));
  static const char* const names[3] = {"query", "key", "value"};
  for (int i = 0; i < 3; i++)
    if (t[i]->ndim >= 0 && t[i]->ndim != 4)
      return onn_fail(op, "%s must be 4-D (batch, seq, heads, dim), got %s", names[i], onn_shape_str(ctx, t[i]));
  const char* cm = onn_attr_str(c, "causal_mask", NULL);
  if (cm && strcmp(cm, "TopLeft") != 0 && strcmp(cm, "BottomRight") != 0)
    return onn_fail(op, "causal_mask \"%s\" is not TopLeft or BottomRight", cm);
  if (rlx_attrs_get(&c->attrs, "window_size")) return onn_fail(op, "window_size is not supported");
  if (!q->shape || !k->shape || !v->shape) return *out = rlx_sinfo_tensor(ctx, 4, NULL, dt), NULL;
  struct {
    rlx_expr_t *a, *b;
    const char* what;
  } eq[6] = {{q->shape[0], k->shape[0], "batch"},         {q->shape[0], v->shape[0], "batch"},
             {q->shape[2], k->shape[2], "heads"},         {q->shape[2], v->shape[2], "heads"},
             {q->shape[3], k->shape[3], "query/key dim"}, {k->shape[1], v->shape[1], "key/value seq"}};
  for (int i = 0; i < 6; i++)
    if (onn_provably_ne(ctx, eq[i].a, eq[i].b))
      return onn_fail(op, "%s differs: %s vs %s (shapes %s, %s, %s)", eq[i].what, onn_dim_str(ctx, eq[i].a),
                      onn_dim_str(ctx, eq[i].b), onn_shape_str(ctx, q), onn_shape_str(ctx, k), onn_shape_str(ctx, v));
  if (b && b->shape) {
    rlx_expr_t* full[4] = {q->shape[0], q->shape[2], q->shape[1], k->shape[1]};
    if (b->ndim > 4) return onn_fail(op, "bias %s has more than 4 dims", onn_shape_str(ctx, b));
    for (int i = 0; i < b->ndim; i++)
      if (!onn_is_one(b->shape[i]) && onn_provably_ne(ctx, b->shape[i], full[4 - b->ndim + i]))
        return onn_fail(op, "bias %s does not broadcast to (batch, heads, seq, seq_kv)", onn_shape_str(ctx, b));
  }
  rlx_expr_t* shape[4] = {q->shape[0], q->shape[1], q->shape[2], v->shape[3]};
  *out = rlx_sinfo_tensor(ctx, 4, shape, dt);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_attention(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n,
                                               const rlx_relax_call_t* c, rlx_te_tensor_t** out) {
  return rlx_topi_nn_attention(ctx, in[0], in[1], in[2], n > 3 ? in[3] : NULL, onn_attr_float(c, "scale", 0.0),
                               onn_attr_str(c, "causal_mask", NULL), out);
}

rlx_status_t* onn_legalize_attention(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  return onn_legalize_te(bb, c, te_attention, c->n_args, c->args, "attention", out);
}

/* ---------------------------------------------------------------- rms_norm */
rlx_status_t* onn_infer_rms_norm(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  const char* op = onn_op_name(c);
  RLX_RETURN_IF_ERROR(onn_check_arity(c, 2, 2));
  rlx_sinfo_tensor_t *x, *w;
  RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, 0, &x));
  RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, 1, &w));
  if (!rlx_dtype_is_void(x->dtype) && !rlx_dtype_is_float(x->dtype))
    return onn_fail(op, "input dtype must be float, got %s", onn_dt_str(ctx, x->dtype));
  rlx_dtype_t dt;
  RLX_RETURN_IF_ERROR(onn_same_dtype(ctx, op, x->dtype, w->dtype, &dt));
  int axes[16], n;
  RLX_RETURN_IF_ERROR(ln_axes(ctx, c, x->ndim, axes, &n));
  if (w->ndim >= 0 && w->ndim != n)
    return onn_fail(op, "weight %s must have one dim per normalized axis (%d)", onn_shape_str(ctx, w), n);
  if (w->shape && x->shape)
    for (int i = 0; i < n; i++)
      if (onn_provably_ne(ctx, w->shape[i], x->shape[axes[i]]))
        return onn_fail(op, "weight %s does not match the normalized dims of %s", onn_shape_str(ctx, w),
                        onn_shape_str(ctx, x));
  *out = &x->hdr;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_rms_norm(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n,
                                              const rlx_relax_call_t* c, rlx_te_tensor_t** out) {
  int axes[16], na;
  RLX_RETURN_IF_ERROR(ln_axes(ctx, c, in[0]->buffer->ndim, axes, &na));
  for (int i = 1; i < na; i++)
    if (axes[i] < axes[i - 1])
      return rlx_status_create(RLX_UNSUPPORTED, "axes must be increasing for legalization");
  return rlx_topi_nn_rms_norm(ctx, in[0], in[1], na, axes, onn_attr_float(c, "epsilon", 1e-5), out);
}

rlx_status_t* onn_legalize_rms_norm(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  return onn_legalize_te(bb, c, te_rms_norm, 2, c->args, "rms_norm", out);
}

/* ---------------------------------------------------------------- group_norm */
typedef struct {
  int64_t groups;
  int ca, n_axes, axes[16];
} gn_attrs_t;

static RLX_MUST_USE rlx_status_t* get_gn_attrs(rlx_ctx_t* ctx, const rlx_relax_call_t* c, int ndim, gn_attrs_t* a) {
  const char* op = onn_op_name(c);
  a->groups = onn_attr_int(c, "num_groups", 1);
  if (a->groups < 1) return onn_fail(op, "num_groups must be >= 1, got %lld", (long long)a->groups);
  int64_t ca = onn_attr_int(c, "channel_axis", 1);
  if (ndim >= 0 && (ca < -ndim || ca >= ndim))
    return onn_fail(op, "channel_axis %lld is out of range for rank %d", (long long)ca, ndim);
  a->ca = (int)(ca < 0 && ndim >= 0 ? ca + ndim : ca);
  const rlx_attr_t* ax = rlx_attrs_get(&c->attrs, "axes");
  a->n_axes = 0;
  if (ax && ax->kind == RLX_ATTR_INTS) {
    if (ax->u.ints.n > 16) return onn_fail(op, "too many axes");
    for (int i = 0; i < ax->u.ints.n; i++) a->axes[a->n_axes++] = (int)ax->u.ints.v[i];
  } else if (ax && ax->kind == RLX_ATTR_INT) {
    a->axes[a->n_axes++] = (int)ax->u.i;
  } else if (ax) {
    return onn_fail(op, "axes must be a list of ints");
  } else if (ndim >= 0) {
    for (int d = 0; d < ndim; d++) /* TVM's default: every axis after the channel axis */
      if (d > a->ca && a->n_axes < 16) a->axes[a->n_axes++] = d;
  }
  if (ndim < 0) return NULL;
  for (int i = 0; i < a->n_axes; i++) {
    if (a->axes[i] < -ndim || a->axes[i] >= ndim)
      return onn_fail(op, "axis %d is out of range for rank %d", a->axes[i], ndim);
    if (a->axes[i] < 0) a->axes[i] += ndim;
    if (a->axes[i] == a->ca) return onn_fail(op, "axis %d is the channel axis", a->axes[i]);
    for (int j = 0; j < i; j++)
      if (a->axes[j] == a->axes[i]) return onn_fail(op, "axis %d is repeated", a->axes[i]);
  }
  (void)ctx;
  return NULL;
}

rlx_status_t* onn_infer_group_norm(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  const char* op = onn_op_name(c);
  rlx_sinfo_tensor_t *x, *g, *b;
  rlx_dtype_t dt;
  RLX_RETURN_IF_ERROR(norm_args(ctx, c, &x, &g, &b, &dt));
  gn_attrs_t a;
  RLX_RETURN_IF_ERROR(get_gn_attrs(ctx, c, x->ndim, &a));
  int64_t cv;
  if (x->shape && rlx_expr_is_const_int(x->shape[a.ca], &cv) && cv % a.groups != 0)
    return onn_fail(op, "%lld channels are not divisible into %lld groups", (long long)cv, (long long)a.groups);
  rlx_sinfo_tensor_t* ps[2] = {g, b};
  for (int p = 0; p < 2; p++) {
    if (ps[p]->ndim >= 0 && ps[p]->ndim != 1)
      return onn_fail(op, "%s must be 1-D, got %s", p ? "beta" : "gamma", onn_shape_str(ctx, ps[p]));
    if (ps[p]->shape && x->shape && onn_provably_ne(ctx, ps[p]->shape[0], x->shape[a.ca]))
      return onn_fail(op, "%s %s does not match the channel axis of %s", p ? "beta" : "gamma",
                      onn_shape_str(ctx, ps[p]), onn_shape_str(ctx, x));
  }
  *out = &x->hdr;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_group_norm(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n,
                                                const rlx_relax_call_t* c, rlx_te_tensor_t** out) {
  gn_attrs_t a;
  RLX_RETURN_IF_ERROR(get_gn_attrs(ctx, c, in[0]->buffer->ndim, &a));
  if (rlx_relax_call_op_id(c) == RLX_OP_INSTANCE_NORM &&
      !rlx_expr_is_const_int(in[0]->buffer->shape[a.ca], &a.groups)) { /* one group per channel */
    return rlx_status_create(RLX_UNSUPPORTED, "a symbolic channel count is not supported");
  }
  rlx_te_tensor_t* g = onn_attr_bool(c, "scale", true) ? in[1] : NULL;
  rlx_te_tensor_t* b = onn_attr_bool(c, "center", true) ? in[2] : NULL;
  return rlx_topi_nn_group_norm(ctx, in[0], g, b, a.groups, a.ca, a.n_axes, a.axes, onn_attr_float(c, "epsilon", 1e-5),
                                out);
}

rlx_status_t* onn_legalize_group_norm(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  const char* name = rlx_relax_call_op_id(c) == RLX_OP_INSTANCE_NORM ? "instance_norm" : "group_norm";
  return onn_legalize_te(bb, c, te_group_norm, 3, c->args, name, out);
}

/* ---------------------------------------------------------------- dropout */
rlx_status_t* onn_infer_dropout(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(onn_check_arity(c, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, 0, &x));
  double rate = onn_attr_float(c, "rate", 0.5);
  if (!(rate >= 0 && rate < 1)) return onn_fail(onn_op_name(c), "rate must be in [0, 1), got %g", rate);
  rlx_sinfo_t* f[2] = {&x->hdr, &x->hdr};
  *out = rlx_sinfo_tuple(ctx, 2, f);
  return NULL;
}

static rlx_expr_t* ones_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rlx_te_tensor_t* x = user;
  return rlx_dtype_is_float(x->buffer->dtype) ? rlx_ir_float(ctx, x->buffer->dtype, 1.0)
                                              : rlx_ir_int(ctx, x->buffer->dtype, 1);
}

static RLX_MUST_USE rlx_status_t* te_ones_like(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n,
                                               const rlx_relax_call_t* c, rlx_te_tensor_t** out) {
  rlx_status_t* st = NULL;
  *out = rlx_te_compute(ctx, in[0]->buffer->ndim, in[0]->buffer->shape, ones_body, in[0], "T_full", "elemwise");
  return st;
}

/* Inference: the data passes through; the mask is all ones (every element kept). */
rlx_status_t* onn_legalize_dropout(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  rlx_relax_expr_t* mask = NULL;
  RLX_RETURN_IF_ERROR(onn_legalize_te(bb, c, te_ones_like, 1, c->args, "ones_like", &mask));
  if (mask == &c->hdr) return *out = mask, NULL;
  rlx_relax_expr_t* f[2] = {c->args[0], mask};
  *out = rlx_relax_tuple(rlx_bb_get(bb)->ctx, 2, f);
  return NULL;
}

/* ---------------------------------------------------------------- leakyrelu, prelu */
/* leakyrelu(x) alpha: a float attr; prelu(x, alpha) alpha: a 1-D tensor of x's dtype whose
 * length is 1 or x's extent at `axis` (default 1). Both: x's struct info. */
rlx_status_t* onn_infer_leakyrelu(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  bool prelu = rlx_relax_call_op_id(c) == RLX_OP_PRELU;
  RLX_RETURN_IF_ERROR(onn_check_arity(c, prelu ? 2 : 1, prelu ? 2 : 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, 0, &x));
  if (!rlx_dtype_is_void(x->dtype) && !rlx_dtype_is_float(x->dtype))
    return onn_fail(onn_op_name(c), "input dtype must be float, got %s", onn_dt_str(ctx, x->dtype));
  if (prelu) {
    rlx_sinfo_tensor_t* a;
    RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, 1, &a));
    int64_t axis = onn_attr_int(c, "axis", 1);
    if (x->ndim >= 0 && (axis < -x->ndim || axis >= x->ndim))
      return onn_fail(onn_op_name(c), "axis %lld is out of range for shape %s", (long long)axis, onn_shape_str(ctx, x));
    if (a->ndim >= 0 && a->ndim != 1)
      return onn_fail(onn_op_name(c), "alpha must be 1-D, got %s", onn_shape_str(ctx, a));
  }
  *out = &x->hdr;
  return NULL;
}

typedef struct {
  rlx_te_tensor_t *x, *alpha;
  double a;
  int axis;
} lrelu_t;

/* TVM's topi: Select(0 < x, x, x * alpha), alpha a constant or alpha[i_axis] (alpha[0] when
 * alpha has one element). */
static rlx_expr_t* lrelu_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  lrelu_t* l = user;
  int n = l->x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) ix[d] = &idx[d]->hdr;
  rlx_expr_t* v = rlx_te_load(ctx, l->x, n, ix);
  rlx_expr_t* slope;
  if (l->alpha) {
    int64_t len = 0;
    bool one = rlx_expr_is_const_int(l->alpha->buffer->shape[0], &len) && len == 1;
    rlx_expr_t* i = one ? rlx_ir_int(ctx, l->alpha->buffer->shape[0]->dtype, 0) : ix[l->axis];
    slope = rlx_te_load(ctx, l->alpha, 1, &i);
  } else {
    slope = rlx_ir_float(ctx, v->dtype, l->a);
  }
  return rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, rlx_ir_float(ctx, v->dtype, 0.0), v), v,
                       rlx_ir_mul(ctx, v, slope));
}

static RLX_MUST_USE rlx_status_t* te_leakyrelu(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n,
                                               const rlx_relax_call_t* c, rlx_te_tensor_t** out) {
  lrelu_t* l = RLX_NEW(ctx, lrelu_t);
  l->x = in[0];
  l->alpha = n > 1 ? in[1] : NULL;
  l->a = onn_attr_float(c, "alpha", 0.01);
  int nd = in[0]->buffer->ndim;
  int64_t axis = onn_attr_int(c, "axis", 1);
  l->axis = (int)(axis < 0 ? axis + nd : axis);
  *out = rlx_te_compute(ctx, nd, in[0]->buffer->shape, lrelu_body, l, "compute", "elemwise");
  return NULL;
}

rlx_status_t* onn_legalize_leakyrelu(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  bool prelu = rlx_relax_call_op_id(c) == RLX_OP_PRELU;
  return onn_legalize_te(bb, c, te_leakyrelu, prelu ? 2 : 1, c->args, prelu ? "prelu" : "leaky_relu", out);
}

/* ---------------------------------------------------------------- batch_norm */
rlx_status_t* onn_infer_batch_norm(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out) {
  const char* op = onn_op_name(c);
  RLX_RETURN_IF_ERROR(onn_check_arity(c, 5, 5));
  rlx_sinfo_tensor_t* t[5];
  for (int i = 0; i < 5; i++) RLX_RETURN_IF_ERROR(onn_tensor_arg(ctx, c, i, &t[i]));
  rlx_sinfo_tensor_t* x = t[0];
  if (!rlx_dtype_is_void(x->dtype) && !rlx_dtype_is_float(x->dtype))
    return onn_fail(op, "input dtype must be float, got %s", onn_dt_str(ctx, x->dtype));
  int64_t axis = onn_attr_int(c, "axis", 1);
  if (x->ndim >= 0) {
    if (axis < -x->ndim || axis >= x->ndim)
      return onn_fail(op, "axis %lld is out of range for shape %s", (long long)axis, onn_shape_str(ctx, x));
    if (axis < 0) axis += x->ndim;
  }
  static const char* const names[5] = {"data", "gamma", "beta", "moving_mean", "moving_var"};
  for (int i = 1; i < 5; i++) {
    rlx_dtype_t dt;
    RLX_RETURN_IF_ERROR(onn_same_dtype(ctx, op, x->dtype, t[i]->dtype, &dt));
    if (t[i]->ndim >= 0 && t[i]->ndim != 1)
      return onn_fail(op, "%s must be 1-D, got %s", names[i], onn_shape_str(ctx, t[i]));
    if (t[i]->shape && x->shape && onn_provably_ne(ctx, t[i]->shape[0], x->shape[axis]))
      return onn_fail(op, "%s %s does not match axis %lld of data %s", names[i], onn_shape_str(ctx, t[i]),
                      (long long)axis, onn_shape_str(ctx, x));
  }
  rlx_sinfo_t* f[3] = {&x->hdr, onn_tensor_like(ctx, t[3]->ndim, t[3]->shape, t[3]->dtype),
                       onn_tensor_like(ctx, t[4]->ndim, t[4]->shape, t[4]->dtype)};
  *out = rlx_sinfo_tuple(ctx, 3, f);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_batch_norm(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n,
                                                const rlx_relax_call_t* c, rlx_te_tensor_t** out) {
  rlx_te_tensor_t* g = onn_attr_bool(c, "scale", true) ? in[1] : NULL;
  rlx_te_tensor_t* b = onn_attr_bool(c, "center", true) ? in[2] : NULL;
  return rlx_topi_nn_batch_norm(ctx, in[0], g, b, in[3], in[4], (int)onn_attr_int(c, "axis", 1),
                                onn_attr_float(c, "epsilon", 1e-5), out);
}

/* training=True: the batch's statistics (TVM's topi.nn.batch_norm with training). */
static RLX_MUST_USE rlx_status_t* te_bn_train(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, const rlx_relax_call_t* c,
                                              int which, rlx_te_tensor_t** out) {
  rlx_te_tensor_t* g = onn_attr_bool(c, "scale", true) ? in[1] : NULL;
  rlx_te_tensor_t* b = onn_attr_bool(c, "center", true) ? in[2] : NULL;
  return rlx_topi_nn_batch_norm_train(ctx, in[0], g, b, in[3], in[4], (int)onn_attr_int(c, "axis", 1),
                                      onn_attr_float(c, "epsilon", 1e-5), onn_attr_float(c, "momentum", 0.1), which,
                                      out);
}
static RLX_MUST_USE rlx_status_t* te_bn_train_out(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n,
                                                  const rlx_relax_call_t* c, rlx_te_tensor_t** out) {
  return te_bn_train(ctx, in, c, 0, out);
}
static RLX_MUST_USE rlx_status_t* te_bn_train_mean(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n,
                                                   const rlx_relax_call_t* c, rlx_te_tensor_t** out) {
  return te_bn_train(ctx, in, c, 1, out);
}
static RLX_MUST_USE rlx_status_t* te_bn_train_var(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n,
                                                  const rlx_relax_call_t* c, rlx_te_tensor_t** out) {
  return te_bn_train(ctx, in, c, 2, out);
}

/* Inference (training absent or False): (normalized data, moving_mean, moving_var) as TVM's
 * topi.nn.batch_norm returns them; training=True: three TE functions giving the data
 * normalized with the batch's statistics and the updated moving mean and variance. */
rlx_status_t* onn_legalize_batch_norm(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  rlx_relax_expr_t* f[3] = {NULL, c->args[3], c->args[4]};
  if (!onn_attr_bool(c, "training", false)) {
    RLX_RETURN_IF_ERROR(onn_legalize_te(bb, c, te_batch_norm, 5, c->args, "batch_norm", &f[0]));
  } else {
    RLX_RETURN_IF_ERROR(onn_legalize_te(bb, c, te_bn_train_out, 5, c->args, "batch_norm_train", &f[0]));
    if (f[0] != &c->hdr) {
      RLX_RETURN_IF_ERROR(onn_legalize_te(bb, c, te_bn_train_mean, 5, c->args, "batch_norm_moving_mean", &f[1]));
      RLX_RETURN_IF_ERROR(onn_legalize_te(bb, c, te_bn_train_var, 5, c->args, "batch_norm_moving_var", &f[2]));
    }
  }
  if (f[0] == &c->hdr) return *out = f[0], NULL;
  *out = rlx_relax_tuple(rlx_bb_get(bb)->ctx, 3, f);
  return NULL;
}
