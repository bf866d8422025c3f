/* ONNX converters, family "loss": NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss
 * (since 12 and 13; same semantics, 13 widens the types).
 *
 * NLL is one TE function over (input, target[, weight]): a per-element loss
 *   loss[n, d..] = t == ignore_index ? 0 : -input[n, t, d..] * w[t]   (t = target[n, d..])
 * then, for "sum", its sum, and for "mean", its sum divided by the sum of w[t] over the
 * elements not ignored (w = 1 without a weight input). Targets read at run time are clamped
 * into [0, C) before the loads, so a bad target gives a wrong value, never an access outside
 * the tensors. SoftmaxCrossEntropyLoss is relax.nn.log_softmax(scores, axis=1) (its optional
 * second output) followed by the same NLL.
 */
#include <string.h>

#include "ops_tensor_internal.h"

typedef enum { LOSS_NONE, LOSS_SUM, LOSS_MEAN } loss_reduction_t;

typedef struct {
  loss_reduction_t reduction;
  bool has_weight;
  bool has_ignore;
  int64_t ignore_index;
  rlx_te_tensor_t *x, *target, *weight, *loss, *wt, *lsum, *wsum;
} nll_user_t;

/* target[idx] as int64, and that value clamped into [0, C). */
static void nll_target(rlx_ctx_t* ctx, nll_user_t* u, int n, rlx_expr_t* const* idx, rlx_expr_t** out_t,
                       rlx_expr_t** out_tc) {
  rlx_expr_t* t = rlx_ir_cast(ctx, rlx_dt_int64(), rlx_te_load(ctx, u->target, n, idx));
  rlx_expr_t* c = rlx_ir_cast(ctx, rlx_dt_int64(), u->x->buffer->shape[1]);
  rlx_expr_t* tc = rlx_ir_max(ctx, rlx_ir_min(ctx, t, rlx_ir_sub(ctx, c, rlx_ir_i64(ctx, 1))), rlx_ir_i64(ctx, 0));
  *out_t = t;
  *out_tc = tc;
}

/* The weight of class tc (1 without a weight input), 0 where t is ignore_index. */
static rlx_expr_t* nll_weight(rlx_ctx_t* ctx, nll_user_t* u, rlx_expr_t* t, rlx_expr_t* tc) {
  rlx_dtype_t dt = u->x->buffer->dtype;
  rlx_expr_t* w = u->has_weight ? rlx_te_load(ctx, u->weight, 1, &tc) : rlx_ir_float(ctx, dt, 1.0);
  if (u->has_ignore)
    w = rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_EQ, t, rlx_ir_i64(ctx, u->ignore_index)), rlx_ir_float(ctx, dt, 0.0),
                      w);
  return w;
}

static rlx_expr_t** nll_idx(rlx_ctx_t* ctx, int n, rlx_var_t* const* idx) {
  rlx_expr_t** e = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) e[d] = &idx[d]->hdr;
  return e;
}

static rlx_expr_t* nll_loss_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  nll_user_t* u = user;
  int q = u->target->buffer->ndim, r = u->x->buffer->ndim;
  rlx_expr_t** ti = nll_idx(ctx, q, idx);
  rlx_expr_t *t, *tc;
  nll_target(ctx, u, q, ti, &t, &tc);
  rlx_expr_t** xi = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r);
  xi[0] = ti[0];
  xi[1] = tc;
  for (int d = 2; d < r; d++) xi[d] = ti[d - 1];
  rlx_expr_t* v = rlx_ir_mul(ctx, rlx_te_load(ctx, u->x, r, xi), nll_weight(ctx, u, t, tc));
  return rlx_ir_sub(ctx, rlx_ir_float(ctx, u->x->buffer->dtype, 0.0), v);
}

static rlx_expr_t* nll_w_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  nll_user_t* u = user;
  int q = u->target->buffer->ndim;
  rlx_expr_t *t, *tc;
  nll_target(ctx, u, q, nll_idx(ctx, q, idx), &t, &tc);
  return nll_weight(ctx, u, t, tc);
}

/* The sum of all elements of src (a 0-d compute). */
static rlx_expr_t* nll_sum(rlx_ctx_t* ctx, rlx_te_tensor_t* src) {
  int q = src->buffer->ndim;
  rlx_iter_var_t** rv = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, q);
  rlx_expr_t** ri = RLX_NEW_ARRAY(ctx, rlx_expr_t*, q);
  static const char* const names[] = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"};
  for (int d = 0; d < q; d++) {
    rlx_expr_t* ext = src->buffer->shape[d];
    rv[d] = rlx_te_reduce_axis(ctx, rlx_ir_int(ctx, ext->dtype, 0), ext, d < 8 ? names[d] : NULL);
    ri[d] = &rv[d]->var->hdr;
  }
  return rlx_te_sum(ctx, rlx_te_load(ctx, src, q, ri), q, rv);
}

static rlx_expr_t* nll_lsum_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  (void)idx;
  return nll_sum(ctx, ((nll_user_t*)user)->loss);
}

static rlx_expr_t* nll_wsum_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  (void)idx;
  return nll_sum(ctx, ((nll_user_t*)user)->wt);
}

static rlx_expr_t* nll_mean_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  (void)idx;
  nll_user_t* u = user;
  return rlx_ir_div(ctx, rlx_te_load(ctx, u->lsum, 0, NULL), rlx_te_load(ctx, u->wsum, 0, NULL));
}

static RLX_MUST_USE rlx_status_t* te_nll(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                         rlx_te_tensor_t** out) {
  nll_user_t* u = user;
  u->x = in[0];
  u->target = in[1];
  u->weight = n > 2 ? in[2] : NULL;
  int q = in[1]->buffer->ndim;
  rlx_expr_t* const* shape = in[1]->buffer->shape;
  u->loss = rlx_te_compute(ctx, q, shape, nll_loss_body, u, "T_nll", "injective");
  switch (u->reduction) {
    case LOSS_NONE:
      return *out = u->loss, NULL;
    case LOSS_SUM:
      return *out = rlx_te_compute(ctx, 0, NULL, nll_lsum_body, u, "T_nll_sum", ""), NULL;
    case LOSS_MEAN:
      u->lsum = rlx_te_compute(ctx, 0, NULL, nll_lsum_body, u, "T_nll_sum", "");
      u->wt = rlx_te_compute(ctx, q, shape, nll_w_body, u, "T_nll_weight", "injective");
      u->wsum = rlx_te_compute(ctx, 0, NULL, nll_wsum_body, u, "T_nll_weight_sum", "");
      return *out = rlx_te_compute(ctx, 0, NULL, nll_mean_body, u, "T_nll_mean", ""), NULL;
  }
  return NULL;
}

/* Checks the inputs of an NLL (x, target[, weight]) and emits it into *out. */
static RLX_MUST_USE rlx_status_t* emit_nll(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* x_e,
                              rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t *x, *t, *w = NULL;
  rlx_relax_expr_t* xin[3] = {x_e, inputs[1], NULL};
  RLX_RETURN_IF_ERROR(ot_tensor(node, xin, 0, true, &x));
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, true, &t));
  bool has_w = ot_has_input(node, inputs, 2);
  if (has_w) RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 2, true, &w));
  char b[32];
  if (!rlx_dtype_is_float(x->dtype))
    return rlx_onnx_error(node, "input 0 must be a float tensor, got %s", rlx_dtype_str(x->dtype, b));
  if (t->dtype.code != RLX_DT_INT || (t->dtype.bits != 32 && t->dtype.bits != 64))
    return rlx_onnx_error(node, "input 1 (target) must be int32 or int64, got %s", rlx_dtype_str(t->dtype, b));
  if (x->ndim < 2) return rlx_onnx_error(node, "input 0 must have rank >= 2 (N, C, ...), got rank %d", x->ndim);
  if (t->ndim != x->ndim - 1)
    return rlx_onnx_error(node, "target must have rank %d (input's rank - 1), got %d", x->ndim - 1, t->ndim);
  if (!rlx_ir_prove_equal(ctx, x->shape[0], t->shape[0]))
    return rlx_onnx_error(node, "target's dim 0 differs from input's (N)");
  for (int d = 2; d < x->ndim; d++)
    if (!rlx_ir_prove_equal(ctx, x->shape[d], t->shape[d - 1]))
      return rlx_onnx_error(node, "target's dim %d differs from input's dim %d", d - 1, d);
  if (has_w) {
    if (w->ndim != 1 || !rlx_ir_prove_equal(ctx, w->shape[0], x->shape[1]))
      return rlx_onnx_error(node, "weight must have shape (C)");
    if (!rlx_dtype_eq(w->dtype, x->dtype)) return rlx_onnx_error(node, "weight's dtype differs from input's");
  }
  nll_user_t u;
  memset(&u, 0, sizeof u);
  const char* red = rlx_onnx_attr_string(node, "reduction", "mean");
  if (strcmp(red, "mean") == 0)
    u.reduction = LOSS_MEAN;
  else if (strcmp(red, "sum") == 0)
    u.reduction = LOSS_SUM;
  else if (strcmp(red, "none") == 0)
    u.reduction = LOSS_NONE;
  else
    return rlx_onnx_error(node, "reduction must be \"mean\", \"sum\" or \"none\", got \"%s\"", red);
  u.has_weight = has_w;
  u.has_ignore = rlx_onnx_has_attr(node, "ignore_index");
  u.ignore_index = rlx_onnx_attr_int(node, "ignore_index", 0);
  rlx_relax_expr_t* args[3] = {x_e, inputs[1], has_w ? inputs[2] : NULL};
  return rlx_onnx_emit_te(im, te_nll, &u, has_w ? 3 : 2, args, "nll_loss", out);
}

static RLX_MUST_USE rlx_status_t* convert_nll(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                 rlx_relax_expr_t** outputs) {
  return emit_nll(im, node, inputs[0], inputs, &outputs[0]);
}

static RLX_MUST_USE rlx_status_t* convert_sce(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                 rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  if (x->ndim < 2) return rlx_onnx_error(node, "scores must have rank >= 2 (N, C, ...), got rank %d", x->ndim);
  rlx_relax_expr_t* lp;
  rlx_attrs_t attrs = ot_attr(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_int(1));
  RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_LOG_SOFTMAX, 1, &inputs[0], attrs, &lp));
  RLX_RETURN_IF_ERROR(emit_nll(im, node, lp, inputs, &outputs[0]));
  if (node->n_outputs > 1) outputs[1] = lp;
  return NULL;
}

const rlx_onnx_converter_t rlx_onnx_ops_loss[] = {
    {"NegativeLogLikelihoodLoss", 12, convert_nll},
    {"NegativeLogLikelihoodLoss", 13, convert_nll},
    {"SoftmaxCrossEntropyLoss", 12, convert_sce},
    {"SoftmaxCrossEntropyLoss", 13, convert_sce},
    {NULL, 0, NULL},
};
