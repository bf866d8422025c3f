/* ONNX converters, family "training": Gradient (below) and the optimizers of domain
 * ai.onnx.preview.training (opset 1), each an update of n tensors given as groups of inputs after R (learning rate,
 * float scalar) and T (step count, int64 scalar):
 *
 *   Adagrad(R, T, X.., G.., H..)       -> X_new.., H_new..
 *     r = R / (1 + T * decay_factor); g = norm_coefficient * X + G; H_new = H + g * g;
 *     X_new = X - r * g / (sqrt(H_new) + epsilon)
 *   Momentum(R, T, X.., G.., V..)      -> X_new.., V_new..
 *     g = norm_coefficient * X + G; V_new = alpha * V + (T > 0 ? beta : 1) * g;
 *     X_new = X - R * V_new   (mode "nesterov": X - R * (g + alpha * V_new))
 *   Adam(R, T, X.., G.., V.., H..)     -> X_new.., V_new.., H_new..
 *     g = norm_coefficient * X + G; V_new = alpha * V + (1 - alpha) * g;
 *     H_new = beta * H + (1 - beta) * g * g;
 *     r = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R;
 *     X_new = (1 - norm_coefficient_post) * (X - r * V_new / (sqrt(H_new) + epsilon))
 *
 * Each output is one elementwise TE function over (R, T, X, G, state...) computed in float64
 * (the reference mixes float32 tensors with float64 Python scalars) and cast back.
 */
#include <string.h>

#include "onnx_internal.h"
#include "ops_tensor_internal.h"

typedef enum { OPT_ADAGRAD, OPT_MOMENTUM, OPT_ADAM } opt_kind_t;

typedef struct {
  opt_kind_t kind;
  int out; /* 0: X_new, 1: first state (H or V), 2: Adam's H_new */
  bool nesterov;
  double decay, eps, norm, norm_post, alpha, beta;
  rlx_te_tensor_t* const* in; /* R, T, X, G, states */
} opt_user_t;

static rlx_expr_t* f64(rlx_ctx_t* ctx, double v) { return rlx_ir_float(ctx, rlx_dt_float64(), v); }
static rlx_expr_t* call1(rlx_ctx_t* ctx, const char* f, rlx_expr_t* x) { return rlx_ir_call(ctx, x->dtype, f, 1, &x); }

static rlx_expr_t* opt_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  opt_user_t* u = user;
  rlx_dtype_t d = rlx_dt_float64();
  int r = u->in[2]->buffer->ndim;
  rlx_expr_t** p = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r > 0 ? r : 1);
  for (int i = 0; i < r; i++) p[i] = &idx[i]->hdr;
  rlx_expr_t* R = rlx_ir_cast(ctx, d, rlx_te_load(ctx, u->in[0], 0, NULL));
  rlx_expr_t* T = rlx_ir_cast(ctx, d, rlx_te_load(ctx, u->in[1], 0, NULL));
  rlx_expr_t* x = rlx_ir_cast(ctx, d, rlx_te_load(ctx, u->in[2], r, p));
  rlx_expr_t* g = rlx_ir_add(ctx, rlx_ir_mul(ctx, f64(ctx, u->norm), x), rlx_ir_cast(ctx, d, rlx_te_load(ctx, u->in[3], r, p)));
  rlx_expr_t* s1 = rlx_ir_cast(ctx, d, rlx_te_load(ctx, u->in[4], r, p));
  rlx_expr_t* t_pos = rlx_ir_cmp(ctx, RLX_EXPR_GT, T, f64(ctx, 0));
  rlx_expr_t* y = NULL;
  switch (u->kind) {
    case OPT_ADAGRAD: {
      rlx_expr_t* h = rlx_ir_add(ctx, s1, rlx_ir_mul(ctx, g, g));
      if (u->out == 1) {
        y = h;
        break;
      }
      rlx_expr_t* rr = rlx_ir_div(ctx, R, rlx_ir_add(ctx, f64(ctx, 1), rlx_ir_mul(ctx, T, f64(ctx, u->decay))));
      rlx_expr_t* den = rlx_ir_add(ctx, call1(ctx, "sqrt", h), f64(ctx, u->eps));
      y = rlx_ir_sub(ctx, x, rlx_ir_div(ctx, rlx_ir_mul(ctx, rr, g), den));
      break;
    }
    case OPT_MOMENTUM: {
      rlx_expr_t* b = rlx_ir_select(ctx, t_pos, f64(ctx, u->beta), f64(ctx, 1));
      rlx_expr_t* v = rlx_ir_add(ctx, rlx_ir_mul(ctx, f64(ctx, u->alpha), s1), rlx_ir_mul(ctx, b, g));
      if (u->out == 1) {
        y = v;
        break;
      }
      rlx_expr_t* step = u->nesterov ? rlx_ir_add(ctx, g, rlx_ir_mul(ctx, f64(ctx, u->alpha), v)) : v;
      y = rlx_ir_sub(ctx, x, rlx_ir_mul(ctx, R, step));
      break;
    }
    case OPT_ADAM: {
      rlx_expr_t* v = rlx_ir_add(ctx, rlx_ir_mul(ctx, f64(ctx, u->alpha), s1), rlx_ir_mul(ctx, f64(ctx, 1 - u->alpha), g));
      rlx_expr_t* h0 = rlx_ir_cast(ctx, d, rlx_te_load(ctx, u->in[5], r, p));
      rlx_expr_t* h = rlx_ir_add(ctx, rlx_ir_mul(ctx, f64(ctx, u->beta), h0),
                                 rlx_ir_mul(ctx, f64(ctx, 1 - u->beta), rlx_ir_mul(ctx, g, g)));
      if (u->out == 1) {
        y = v;
        break;
      }
      if (u->out == 2) {
        y = h;
        break;
      }
      rlx_expr_t* pa[2] = {f64(ctx, u->alpha), T};
      rlx_expr_t* pb[2] = {f64(ctx, u->beta), T};
      rlx_expr_t* corr = rlx_ir_div(ctx, call1(ctx, "sqrt", rlx_ir_sub(ctx, f64(ctx, 1), rlx_ir_call(ctx, d, "pow", 2, pb))),
                                    rlx_ir_sub(ctx, f64(ctx, 1), rlx_ir_call(ctx, d, "pow", 2, pa)));
      rlx_expr_t* rr = rlx_ir_select(ctx, t_pos, rlx_ir_mul(ctx, R, corr), R);
      rlx_expr_t* den = rlx_ir_add(ctx, call1(ctx, "sqrt", h), f64(ctx, u->eps));
      rlx_expr_t* xn = rlx_ir_sub(ctx, x, rlx_ir_mul(ctx, rr, rlx_ir_div(ctx, v, den)));
      y = rlx_ir_mul(ctx, f64(ctx, 1 - u->norm_post), xn);
      break;
    }
  }
  return rlx_ir_cast(ctx, u->in[2]->buffer->dtype, y);
}

static RLX_MUST_USE rlx_status_t* te_opt(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                         rlx_te_tensor_t** out) {
  (void)n;
  opt_user_t* u = user;
  u->in = in;
  *out = rlx_te_compute(ctx, in[2]->buffer->ndim, in[2]->buffer->shape, opt_body, u, "T_optimizer", "elemwise");
  return NULL;
}

static RLX_MUST_USE rlx_status_t* convert(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                             rlx_relax_expr_t** outputs, opt_kind_t kind) {
  int groups = kind == OPT_ADAM ? 4 : 3; /* X, G and the states */
  int n_state = groups - 2;
  int n = (node->n_inputs - 2) / groups;
  if (n < 1 || node->n_inputs != 2 + groups * n)
    return rlx_onnx_error(node, "expected R, T and %d groups of equally many tensors, got %d inputs", groups,
                          node->n_inputs);
  if (node->n_outputs > (1 + n_state) * n)
    return rlx_onnx_error(node, "at most %d outputs for %d tensors", (1 + n_state) * n, n);
  for (int i = 0; i < node->n_inputs; i++) {
    rlx_sinfo_tensor_t* t;
    RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, i, true, &t));
    if (i < 2 && t->ndim != 0 && !(t->ndim == 1 && t->shape && rlx_expr_is_const_int(t->shape[0], NULL)))
      return rlx_onnx_error(node, "input %d (%s) must be a scalar", i, i ? "T" : "R");
  }
  opt_user_t u;
  memset(&u, 0, sizeof(u));
  u.kind = kind;
  u.norm = rlx_onnx_attr_float(node, "norm_coefficient", 0.0);
  u.eps = rlx_onnx_attr_float(node, "epsilon", 1e-6);
  u.decay = rlx_onnx_attr_float(node, "decay_factor", 0.0);
  u.norm_post = rlx_onnx_attr_float(node, "norm_coefficient_post", 0.0);
  u.alpha = rlx_onnx_attr_float(node, "alpha", kind == OPT_ADAM ? 0.9 : 0.0);
  u.beta = rlx_onnx_attr_float(node, "beta", kind == OPT_ADAM ? 0.999 : 0.0);
  const char* mode = rlx_onnx_attr_string(node, "mode", "standard");
  if (kind == OPT_MOMENTUM) {
    if (strcmp(mode, "nesterov") == 0) u.nesterov = true;
    else if (strcmp(mode, "standard") != 0) return rlx_onnx_error(node, "unknown mode \"%s\"", mode);
  }
  for (int o = 0; o < node->n_outputs; o++) {
    if (!node->outputs[o][0]) continue;
    int which = o / n, k = o % n;
    rlx_relax_expr_t* args[6] = {inputs[0], inputs[1], inputs[2 + k], inputs[2 + n + k], inputs[2 + 2 * n + k],
                                 kind == OPT_ADAM ? inputs[2 + 3 * n + k] : NULL};
    u.out = which;
    RLX_RETURN_IF_ERROR(rlx_onnx_emit_te(im, te_opt, &u, kind == OPT_ADAM ? 6 : 5, args, "optimizer", &outputs[o]));
  }
  return NULL;
}

static OT_CONVERTER(cv_adagrad) { return convert(im, node, inputs, outputs, OPT_ADAGRAD); }
static OT_CONVERTER(cv_momentum) { return convert(im, node, inputs, outputs, OPT_MOMENTUM); }
static OT_CONVERTER(cv_adam) { return convert(im, node, inputs, outputs, OPT_ADAM); }

/* Keyed "DOMAIN.Op" (see rlx_onnx_find_converter); since_version is the domain's opset. */
/* ---- Gradient(xs...) -> dy/dx...: reverse mode over the nodes before it ----
 * The adjoint of y starts as ones of y's shape; the graph's nodes before the Gradient node
 * are walked backwards and each node whose outputs have an adjoint adds its inputs' shares:
 * Add, Sub, Mul, Div, Neg, Identity (elementwise, operands of the output's shape: no
 * broadcasting). A node of another kind, or a broadcast, on a path from xs to y is an error
 * naming it; an x that y does not depend on gets zeros. Only the main graph's nodes. */
typedef struct {
  rlx_onnx_importer_t* im;
  rlx_onnx_strmap_t adj; /* value name -> adjoint (rlx_relax_expr_t*) */
} grad_t;

static RLX_MUST_USE rlx_status_t* grad_add(grad_t* g, const char* name, rlx_relax_expr_t* share) {
  void* old = NULL;
  if (rlx_onnx_strmap_get(&g->adj, name, &old) && old) {
    rlx_relax_expr_t* a[2] = {old, share};
    RLX_RETURN_IF_ERROR(ot_op(g->im, RLX_OP_ADD, 2, a, (rlx_attrs_t){0}, &share));
  }
  rlx_onnx_strmap_put(&g->adj, name, share);
  return NULL;
}

static rlx_relax_expr_t* value_of(rlx_onnx_importer_t* im, const char* name) {
  rlx_relax_expr_t* v = NULL;
  return name[0] && rlx_onnx_value_get(im, name, &v) ? v : NULL;
}

static bool same_shape(const rlx_relax_expr_t* a, const rlx_relax_expr_t* b) {
  const rlx_sinfo_tensor_t *x = (const rlx_sinfo_tensor_t*)a->sinfo, *y = (const rlx_sinfo_tensor_t*)b->sinfo;
  if (!x || !y || x->hdr.kind != RLX_SINFO_TENSOR || y->hdr.kind != RLX_SINFO_TENSOR || !x->shape || !y->shape ||
      x->ndim != y->ndim)
    return false;
  for (int d = 0; d < x->ndim; d++)
    if (!rlx_expr_equal(x->shape[d], y->shape[d])) return false;
  return true;
}

/* Adds the shares of node p's inputs given the adjoint gy of its output. */
static RLX_MUST_USE rlx_status_t* grad_node(grad_t* g, const rlx_onnx_node_t* node, const Onnx__NodeProto* p,
                                            rlx_relax_expr_t* gy) {
  rlx_onnx_importer_t* im = g->im;
  const char* op = p->op_type;
  int kind = strcmp(op, "Add") == 0 ? 0 : strcmp(op, "Sub") == 0 ? 1 : strcmp(op, "Mul") == 0 ? 2
           : strcmp(op, "Div") == 0 ? 3 : strcmp(op, "Neg") == 0 ? 4 : strcmp(op, "Identity") == 0 ? 5 : -1;
  int n_in = kind < 4 ? 2 : 1;
  rlx_relax_expr_t* in[2] = {NULL, NULL};
  for (int i = 0; kind >= 0 && i < n_in; i++)
    if ((size_t)i >= p->n_input || !(in[i] = value_of(im, p->input[i]))) kind = -1;
  rlx_relax_expr_t* y = value_of(im, p->output[0]);
  if (kind < 0 || p->n_output != 1 || (p->domain && p->domain[0]) || !y)
    return rlx_onnx_error(node, "cannot differentiate through the %s node producing '%s' (only Add, Sub, Mul, Div, "
                                "Neg and Identity)", op, p->n_output ? p->output[0] : "");
  for (int i = 0; i < n_in; i++)
    if (!same_shape(in[i], y))
      return rlx_onnx_error(node, "cannot differentiate the %s node producing '%s': its input '%s' is broadcast", op,
                            p->output[0], p->input[i]);
  rlx_relax_expr_t *a = in[0], *b = in[1], *share = NULL, *t = NULL;
  rlx_attrs_t none = {0};
  switch (kind) {
    case 0: /* Add */
    case 1: /* Sub */
      RLX_RETURN_IF_ERROR(grad_add(g, p->input[0], gy));
      if (kind == 1) RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_NEGATIVE, 1, &gy, none, &share));
      return grad_add(g, p->input[1], kind == 1 ? share : gy);
    case 2: /* Mul */
      RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_MULTIPLY, 2, (rlx_relax_expr_t*[]){gy, b}, none, &share));
      RLX_RETURN_IF_ERROR(grad_add(g, p->input[0], share));
      RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_MULTIPLY, 2, (rlx_relax_expr_t*[]){gy, a}, none, &share));
      return grad_add(g, p->input[1], share);
    case 3: /* Div: d(a/b) = g / b, -g * y / b */
      RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_DIVIDE, 2, (rlx_relax_expr_t*[]){gy, b}, none, &share));
      RLX_RETURN_IF_ERROR(grad_add(g, p->input[0], share));
      RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_MULTIPLY, 2, (rlx_relax_expr_t*[]){share, y}, none, &t));
      RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_NEGATIVE, 1, &t, none, &share));
      return grad_add(g, p->input[1], share);
    case 4: /* Neg */
      RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_NEGATIVE, 1, &gy, none, &share));
      return grad_add(g, p->input[0], share);
    default: /* Identity */
      return grad_add(g, p->input[0], gy);
  }
}

/* Ones (or zeros) of e's static-rank shape and dtype. */
static RLX_MUST_USE rlx_status_t* filled_like(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* e,
                                              bool ones, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  const rlx_sinfo_tensor_t* t = (const rlx_sinfo_tensor_t*)e->sinfo;
  if (!t || t->hdr.kind != RLX_SINFO_TENSOR || !t->shape || rlx_dtype_is_void(t->dtype))
    return rlx_onnx_error(node, "y and xs must be tensors of known shape and dtype");
  rlx_relax_expr_t* sh = rlx_relax_shape_expr(ctx, t->ndim, t->shape);
  rlx_attrs_t at = rlx_attrs_set(ctx, (rlx_attrs_t){0}, "dtype", rlx_attr_dtype(t->dtype));
  return ot_op(im, ones ? RLX_OP_ONES : RLX_OP_ZEROS, 1, &sh, at, out);
}

static OT_CONVERTER(cv_gradient) {
  const Onnx__GraphProto* gp = rlx_onnx_model_graph(im);
  size_t at = 0;
  while (gp && at < gp->n_node && gp->node[at] != node->proto) at++;
  if (!gp || at == gp->n_node) return rlx_onnx_error(node, "Gradient is supported in the main graph only");
  const char* yname = rlx_onnx_attr_string(node, "y", NULL);
  int nx = rlx_onnx_attr_strings_count(node, "xs");
  if (!yname || nx < 1 || nx != node->n_outputs) return rlx_onnx_error(node, "needs y and one output per name of xs");
  if (rlx_onnx_has_attr(node, "zs")) return rlx_onnx_error(node, "zs is not supported");
  rlx_relax_expr_t* y = value_of(im, yname);
  if (!y) return rlx_onnx_error(node, "y '%s' is not a value computed before the node", yname);
  grad_t g = {im, {0}};
  rlx_relax_expr_t* seed = NULL;
  rlx_status_t* st = filled_like(im, node, y, true, &seed);
  if (!st) st = grad_add(&g, yname, seed);
  /* which values depend on xs: only their producers must be differentiable */
  rlx_onnx_strmap_t dep = {0};
  for (int i = 0; i < nx; i++) rlx_onnx_strmap_put(&dep, rlx_onnx_attr_string_at(node, "xs", i), (void*)1);
  for (size_t k = 0; k < at; k++) {
    const Onnx__NodeProto* p = gp->node[k];
    bool d = false;
    for (size_t i = 0; i < p->n_input && !d; i++) d = rlx_onnx_strmap_get(&dep, p->input[i], NULL);
    for (size_t o = 0; d && o < p->n_output; o++) rlx_onnx_strmap_put(&dep, p->output[o], (void*)1);
  }
  for (size_t k = at; k-- > 0 && !st;) {
    const Onnx__NodeProto* p = gp->node[k];
    void* gy = NULL;
    bool has = false;
    for (size_t o = 0; o < p->n_output && !has; o++) has = rlx_onnx_strmap_get(&g.adj, p->output[o], &gy);
    if (!has || !p->n_output || !rlx_onnx_strmap_get(&dep, p->output[0], NULL)) continue;
    st = grad_node(&g, node, p, gy);
  }
  for (int i = 0; i < nx && !st; i++) {
    const char* xn = rlx_onnx_attr_string_at(node, "xs", i);
    void* a = NULL;
    if (rlx_onnx_strmap_get(&g.adj, xn, &a) && a) outputs[i] = a;
    else if (i < node->n_inputs && inputs[i]) st = filled_like(im, node, inputs[i], false, &outputs[i]);
    else st = rlx_onnx_error(node, "input %d (x '%s') is missing", i, xn);
  }
  rlx_onnx_strmap_free(&g.adj);
  rlx_onnx_strmap_free(&dep);
  return st;
}

const rlx_onnx_converter_t rlx_onnx_ops_training[] = {
    {"ai.onnx.preview.training.Gradient", 1, cv_gradient},
    {"ai.onnx.preview.training.Adagrad", 1, cv_adagrad},
    {"ai.onnx.preview.training.Momentum", 1, cv_momentum},
    {"ai.onnx.preview.training.Adam", 1, cv_adam},
    {NULL, 0, NULL},
};
