/* ONNX converters, family "rnn": RNN, GRU and LSTM (opsets 7 and 14: layout), forward,
 * reverse and bidirectional.
 *
 * The recurrence is unrolled over the sequence length, which must be static: per direction
 * the weights are sliced per gate and transposed once (W[d, g*H:(g+1)*H, :]^T, [I, H]),
 * then each time step is Relax matmuls and elementwise ops on [batch, hidden] tensors, so
 * the whole network goes through the ordinary pipeline (fusion, memory planning) and a
 * sequence of T steps costs T small kernels per gate. With sequence_lens, a batch row whose
 * sequence has ended keeps its state and gets zeros in Y (a where on t < len). Gate orders
 * as ONNX says: GRU z, r, h; LSTM i, o, f, c (peepholes i, o, f). Activations: Sigmoid,
 * Tanh, Relu (others, clip and input_forget are refused with the node named).
 */
#include <string.h>

#include "ops_tensor_internal.h"

typedef enum { RNN_PLAIN, RNN_GRU, RNN_LSTM } rnn_kind_t;

static RLX_MUST_USE rlx_status_t* op1(rlx_onnx_importer_t* im, rlx_op_id_t name, rlx_relax_expr_t* a, rlx_relax_expr_t** out) {
  return ot_op(im, name, 1, &a, (rlx_attrs_t){0}, out);
}

static RLX_MUST_USE rlx_status_t* op2(rlx_onnx_importer_t* im, rlx_op_id_t name, rlx_relax_expr_t* a, rlx_relax_expr_t* b,
                                      rlx_relax_expr_t** out) {
  rlx_relax_expr_t* args[2] = {a, b};
  return ot_op(im, name, 2, args, (rlx_attrs_t){0}, out);
}

static rlx_attrs_t one_axis(rlx_ctx_t* ctx, const char* key, int64_t axis) {
  return ot_attr(ctx, (rlx_attrs_t){0}, key, rlx_attr_ints(1, ot_copy_ints(ctx, 1, &axis)));
}

/* x[begin:end] along axis. */
static RLX_MUST_USE rlx_status_t* slice(rlx_onnx_importer_t* im, rlx_relax_expr_t* x, int64_t axis, int64_t begin, int64_t end,
                                        rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_attrs_t a = one_axis(ctx, "axes", axis);
  a = ot_attr(ctx, a, "begin", rlx_attr_ints(1, ot_copy_ints(ctx, 1, &begin)));
  a = ot_attr(ctx, a, "end", rlx_attr_ints(1, ot_copy_ints(ctx, 1, &end)));
  return ot_op(im, RLX_OP_STRIDED_SLICE, 1, &x, a, out);
}

/* x[i] (axis 0 removed). */
static RLX_MUST_USE rlx_status_t* at(rlx_onnx_importer_t* im, rlx_relax_expr_t* x, int64_t i, rlx_relax_expr_t** out) {
  RLX_RETURN_IF_ERROR(slice(im, x, 0, i, i + 1, out));
  return ot_op(im, RLX_OP_SQUEEZE, 1, out, one_axis(rlx_onnx_ctx(im), "axis", 0), out);
}

static RLX_MUST_USE rlx_status_t* expand(rlx_onnx_importer_t* im, rlx_relax_expr_t* x, int64_t axis, rlx_relax_expr_t** out) {
  return ot_op(im, RLX_OP_EXPAND_DIMS, 1, &x, one_axis(rlx_onnx_ctx(im), "axis", axis), out);
}

static RLX_MUST_USE rlx_status_t* concat(rlx_onnx_importer_t* im, int n, rlx_relax_expr_t** parts, int64_t axis,
                                         rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  if (n == 1) {
    *out = parts[0];
    return NULL;
  }
  rlx_relax_expr_t* tup = rlx_relax_tuple(ctx, n, parts);
  return ot_op(im, RLX_OP_CONCAT, 1, &tup, ot_attr(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_int(axis)), out);
}

static RLX_MUST_USE rlx_status_t* permute(rlx_onnx_importer_t* im, rlx_relax_expr_t* x, int n, const int64_t* axes,
                                          rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  return ot_op(im, RLX_OP_PERMUTE_DIMS, 1, &x,
               ot_attr(ctx, (rlx_attrs_t){0}, "axes", rlx_attr_ints(n, ot_copy_ints(ctx, n, axes))), out);
}

typedef struct {
  rnn_kind_t kind;
  int64_t T, B, I, H;
  int G;                 /* gates */
  rlx_op_id_t act[3];    /* f, g, h: Relax ops */
  bool linear_before_reset;
  rlx_relax_expr_t *x;   /* [T, B, I] */
  rlx_relax_expr_t *lens; /* [B] or NULL */
  rlx_dtype_t dt;
} rnn_t;

/* a + b where b may be NULL. */
static RLX_MUST_USE rlx_status_t* add_opt(rlx_onnx_importer_t* im, rlx_relax_expr_t* a, rlx_relax_expr_t* b, rlx_relax_expr_t** out) {
  if (!b) {
    *out = a;
    return NULL;
  }
  return op2(im, RLX_OP_ADD, a, b, out);
}

/* One direction: Y_d [T, B, H], final h (and c). */
static RLX_MUST_USE rlx_status_t* direction(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, const rnn_t* r,
                                            rlx_relax_expr_t* const* inputs, int d, bool reverse, rlx_relax_expr_t** out_y,
                                            rlx_relax_expr_t** out_h, rlx_relax_expr_t** out_c) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  int64_t H = r->H, G = r->G;
  rlx_relax_expr_t *w, *rr, *wt[4], *rt[4], *wb[4] = {0}, *rb[4] = {0}, *p[3] = {0};
  RLX_RETURN_IF_ERROR(at(im, inputs[1], d, &w));
  RLX_RETURN_IF_ERROR(at(im, inputs[2], d, &rr));
  const int64_t tr[2] = {1, 0};
  for (int g = 0; g < G; g++) {
    RLX_RETURN_IF_ERROR(slice(im, w, 0, g * H, (g + 1) * H, &wt[g]));
    RLX_RETURN_IF_ERROR(permute(im, wt[g], 2, tr, &wt[g]));
    RLX_RETURN_IF_ERROR(slice(im, rr, 0, g * H, (g + 1) * H, &rt[g]));
    RLX_RETURN_IF_ERROR(permute(im, rt[g], 2, tr, &rt[g]));
  }
  if (ot_has_input(node, inputs, 3)) {
    rlx_relax_expr_t* b;
    RLX_RETURN_IF_ERROR(at(im, inputs[3], d, &b));
    for (int g = 0; g < G; g++) {
      RLX_RETURN_IF_ERROR(slice(im, b, 0, g * H, (g + 1) * H, &wb[g]));
      RLX_RETURN_IF_ERROR(slice(im, b, 0, (G + g) * H, (G + g + 1) * H, &rb[g]));
    }
  }
  if (r->kind == RNN_LSTM && ot_has_input(node, inputs, 7)) {
    rlx_relax_expr_t* pp;
    RLX_RETURN_IF_ERROR(at(im, inputs[7], d, &pp));
    for (int k = 0; k < 3; k++) RLX_RETURN_IF_ERROR(slice(im, pp, 0, k * H, (k + 1) * H, &p[k]));
  }
  int64_t bh[2] = {r->B, H};
  size_t zbytes = (size_t)(r->B * H) * (size_t)(r->dt.bits / 8);
  void* zeros = rlx_ctx_alloc(ctx, zbytes ? zbytes : 1); /* zeroed */
  if (!zeros) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s: the initial state of %zu bytes", node->op_type, zbytes);
  rlx_relax_expr_t* zero = rlx_onnx_make_const(im, r->dt, 2, bh, zeros);
  if (!zero) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s: the initial state of %zu bytes", node->op_type, zbytes);
  rlx_relax_expr_t *h = zero, *c = zero;
  if (ot_has_input(node, inputs, 5)) RLX_RETURN_IF_ERROR(at(im, inputs[5], d, &h));
  if (r->kind == RNN_LSTM && ot_has_input(node, inputs, 6)) RLX_RETURN_IF_ERROR(at(im, inputs[6], d, &c));
  rlx_relax_expr_t** ys = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, r->T);
  for (int64_t s = 0; s < r->T; s++) {
    int64_t t = reverse ? r->T - 1 - s : s;
    rlx_relax_expr_t *xt, *gx[4], *gh[4];
    RLX_RETURN_IF_ERROR(at(im, r->x, t, &xt));
    for (int g = 0; g < G; g++) {
      RLX_RETURN_IF_ERROR(op2(im, RLX_OP_MATMUL, xt, wt[g], &gx[g]));
      RLX_RETURN_IF_ERROR(add_opt(im, gx[g], wb[g], &gx[g]));
      bool skip_h = r->kind == RNN_GRU && g == 2 && !r->linear_before_reset; /* needs r * h first */
      if (skip_h) continue;
      RLX_RETURN_IF_ERROR(op2(im, RLX_OP_MATMUL, h, rt[g], &gh[g]));
      RLX_RETURN_IF_ERROR(add_opt(im, gh[g], rb[g], &gh[g]));
    }
    rlx_relax_expr_t *hn = NULL, *cn = NULL, *v;
    switch (r->kind) {
      case RNN_PLAIN:
        RLX_RETURN_IF_ERROR(op2(im, RLX_OP_ADD, gx[0], gh[0], &v));
        RLX_RETURN_IF_ERROR(op1(im, r->act[0], v, &hn));
        break;
      case RNN_GRU: {
        rlx_relax_expr_t *z, *rg, *hh, *one_minus;
        RLX_RETURN_IF_ERROR(op2(im, RLX_OP_ADD, gx[0], gh[0], &z));
        RLX_RETURN_IF_ERROR(op1(im, r->act[0], z, &z));
        RLX_RETURN_IF_ERROR(op2(im, RLX_OP_ADD, gx[1], gh[1], &rg));
        RLX_RETURN_IF_ERROR(op1(im, r->act[0], rg, &rg));
        if (r->linear_before_reset) {
          RLX_RETURN_IF_ERROR(op2(im, RLX_OP_MULTIPLY, rg, gh[2], &hh));
        } else {
          RLX_RETURN_IF_ERROR(op2(im, RLX_OP_MULTIPLY, rg, h, &hh));
          RLX_RETURN_IF_ERROR(op2(im, RLX_OP_MATMUL, hh, rt[2], &hh));
          RLX_RETURN_IF_ERROR(add_opt(im, hh, rb[2], &hh));
        }
        RLX_RETURN_IF_ERROR(op2(im, RLX_OP_ADD, gx[2], hh, &hh));
        RLX_RETURN_IF_ERROR(op1(im, r->act[1], hh, &hh));
        /* (1 - z) * hh + z * h */
        RLX_RETURN_IF_ERROR(op2(im, RLX_OP_SUBTRACT, hh, h, &one_minus)); /* hh - h */
        RLX_RETURN_IF_ERROR(op2(im, RLX_OP_MULTIPLY, z, one_minus, &one_minus));
        RLX_RETURN_IF_ERROR(op2(im, RLX_OP_SUBTRACT, hh, one_minus, &hn));
        break;
      }
      case RNN_LSTM: {
        rlx_relax_expr_t *ig, *og, *fg, *cg, *tmp;
        RLX_RETURN_IF_ERROR(op2(im, RLX_OP_ADD, gx[0], gh[0], &ig));
        RLX_RETURN_IF_ERROR(op2(im, RLX_OP_ADD, gx[1], gh[1], &og));
        RLX_RETURN_IF_ERROR(op2(im, RLX_OP_ADD, gx[2], gh[2], &fg));
        RLX_RETURN_IF_ERROR(op2(im, RLX_OP_ADD, gx[3], gh[3], &cg));
        if (p[0]) {
          RLX_RETURN_IF_ERROR(op2(im, RLX_OP_MULTIPLY, p[0], c, &tmp));
          RLX_RETURN_IF_ERROR(op2(im, RLX_OP_ADD, ig, tmp, &ig));
          RLX_RETURN_IF_ERROR(op2(im, RLX_OP_MULTIPLY, p[2], c, &tmp));
          RLX_RETURN_IF_ERROR(op2(im, RLX_OP_ADD, fg, tmp, &fg));
        }
        RLX_RETURN_IF_ERROR(op1(im, r->act[0], ig, &ig));
        RLX_RETURN_IF_ERROR(op1(im, r->act[0], fg, &fg));
        RLX_RETURN_IF_ERROR(op1(im, r->act[1], cg, &cg));
        RLX_RETURN_IF_ERROR(op2(im, RLX_OP_MULTIPLY, fg, c, &cn));
        RLX_RETURN_IF_ERROR(op2(im, RLX_OP_MULTIPLY, ig, cg, &tmp));
        RLX_RETURN_IF_ERROR(op2(im, RLX_OP_ADD, cn, tmp, &cn));
        if (p[1]) {
          RLX_RETURN_IF_ERROR(op2(im, RLX_OP_MULTIPLY, p[1], cn, &tmp));
          RLX_RETURN_IF_ERROR(op2(im, RLX_OP_ADD, og, tmp, &og));
        }
        RLX_RETURN_IF_ERROR(op1(im, r->act[0], og, &og));
        RLX_RETURN_IF_ERROR(op1(im, r->act[2], cn, &tmp));
        RLX_RETURN_IF_ERROR(op2(im, RLX_OP_MULTIPLY, og, tmp, &hn));
        break;
      }
    }
    rlx_relax_expr_t* y = hn;
    if (r->lens) { /* rows whose sequence ended: state kept, output 0 */
      rlx_relax_expr_t *tc, *mask;
      int32_t tv = (int32_t)t;
      int64_t tv64 = t;
      rlx_sinfo_tensor_t* ls = (rlx_sinfo_tensor_t*)r->lens->sinfo;
      tc = ls->dtype.bits == 32 ? rlx_onnx_make_const(im, ls->dtype, 0, NULL, &tv)
                                : rlx_onnx_make_const(im, ls->dtype, 0, NULL, &tv64);
      RLX_RETURN_IF_ERROR(op2(im, RLX_OP_LESS, tc, r->lens, &mask));
      RLX_RETURN_IF_ERROR(expand(im, mask, 1, &mask));
      rlx_relax_expr_t* a3[3] = {mask, hn, h};
      RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_WHERE, 3, a3, (rlx_attrs_t){0}, &hn));
      rlx_relax_expr_t* b3[3] = {mask, y, zero};
      RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_WHERE, 3, b3, (rlx_attrs_t){0}, &y));
      if (cn) {
        rlx_relax_expr_t* c3[3] = {mask, cn, c};
        RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_WHERE, 3, c3, (rlx_attrs_t){0}, &cn));
      }
    }
    h = hn;
    if (cn) c = cn;
    RLX_RETURN_IF_ERROR(expand(im, y, 0, &ys[t]));
  }
  RLX_RETURN_IF_ERROR(concat(im, (int)r->T, ys, 0, out_y));
  *out_h = h;
  *out_c = c;
  return NULL;
}

/* The Relax op of an ONNX activation name, or RLX_OP_COUNT. */
static rlx_op_id_t act_op(const char* name) {
  if (strcmp(name, "Sigmoid") == 0) return RLX_OP_SIGMOID;
  if (strcmp(name, "Tanh") == 0) return RLX_OP_TANH;
  if (strcmp(name, "Relu") == 0) return RLX_OP_RELU;
  return RLX_OP_COUNT;
}

static RLX_MUST_USE rlx_status_t* convert(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                          rlx_relax_expr_t** outputs, rnn_kind_t kind) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rnn_t r;
  memset(&r, 0, sizeof(r));
  r.kind = kind;
  r.G = kind == RNN_PLAIN ? 1 : kind == RNN_GRU ? 3 : 4;
  rlx_sinfo_tensor_t *x, *wi, *w;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, true, &wi));
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 2, true, &w));
  if (x->ndim != 3 || wi->ndim != 3 || w->ndim != 3) return rlx_onnx_error(node, "X, W and R must be 3-d");
  if (x->dtype.code != RLX_DT_FLOAT) return rlx_onnx_error(node, "X must be a float tensor");
  r.dt = x->dtype;
  int64_t layout = rlx_onnx_attr_int(node, "layout", 0);
  if (layout != 0 && layout != 1) return rlx_onnx_error(node, "layout %lld is not 0 or 1", (long long)layout);
  int64_t dims[3];
  for (int d = 0; d < 3; d++)
    if (!rlx_expr_is_const_int(x->shape[d], &dims[d]))
      return rlx_onnx_error(node, "X needs a static shape (the recurrence is unrolled over the sequence)");
  r.T = layout ? dims[1] : dims[0];
  r.B = layout ? dims[0] : dims[1];
  r.I = dims[2];
  r.H = rlx_onnx_attr_int(node, "hidden_size", -1);
  int64_t gh = 0, nd = 0;
  if (!rlx_expr_is_const_int(w->shape[1], &gh) || !rlx_expr_is_const_int(w->shape[0], &nd))
    return rlx_onnx_error(node, "R needs a static shape");
  if (r.H < 0) r.H = gh / r.G;
  if (r.H < 1 || gh != r.G * r.H) return rlx_onnx_error(node, "R has %lld rows, expected %d x hidden_size", (long long)gh, r.G);
  const char* dir = rlx_onnx_attr_string(node, "direction", "forward");
  int n_dir = strcmp(dir, "bidirectional") == 0 ? 2 : 1;
  if (n_dir == 1 && strcmp(dir, "forward") != 0 && strcmp(dir, "reverse") != 0)
    return rlx_onnx_error(node, "unknown direction \"%s\"", dir);
  if (nd != n_dir) return rlx_onnx_error(node, "R has %lld directions, \"%s\" needs %d", (long long)nd, dir, n_dir);
  if (rlx_onnx_has_attr(node, "clip")) return rlx_onnx_error(node, "the clip attribute is not supported");
  if (rlx_onnx_attr_int(node, "input_forget", 0) != 0) return rlx_onnx_error(node, "input_forget is not supported");
  r.linear_before_reset = rlx_onnx_attr_int(node, "linear_before_reset", 0) != 0;
  int n_act = kind == RNN_PLAIN ? 1 : kind == RNN_GRU ? 2 : 3;
  static const rlx_op_id_t dflt[3] = {RLX_OP_SIGMOID, RLX_OP_TANH, RLX_OP_TANH};
  for (int k = 0; k < n_act; k++) r.act[k] = kind == RNN_PLAIN ? RLX_OP_TANH : dflt[k];
  int na = rlx_onnx_attr_strings_count(node, "activations");
  if (na > 0) {
    if (na != n_act * n_dir) return rlx_onnx_error(node, "expected %d activations, got %d", n_act * n_dir, na);
    for (int k = 0; k < na; k++) {
      const char* a = rlx_onnx_attr_string_at(node, "activations", k);
      rlx_op_id_t op = a ? act_op(a) : RLX_OP_COUNT;
      if (op == RLX_OP_COUNT)
        return rlx_onnx_error(node, "activation \"%s\" is not supported (Sigmoid, Tanh, Relu)", a ? a : "");
      if (k < n_act) r.act[k] = op;
      else if (op != r.act[k - n_act])
        return rlx_onnx_error(node, "different activations per direction are not supported");
    }
  }
  r.x = inputs[0];
  if (layout) {
    const int64_t p[3] = {1, 0, 2};
    RLX_RETURN_IF_ERROR(permute(im, inputs[0], 3, p, &r.x));
  }
  if (ot_has_input(node, inputs, 4)) {
    rlx_sinfo_tensor_t* l;
    RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 4, false, &l));
    if (l->ndim != 1 || l->dtype.code != RLX_DT_INT || (l->dtype.bits != 32 && l->dtype.bits != 64))
      return rlx_onnx_error(node, "sequence_lens must be a 1-d int32 tensor");
    r.lens = inputs[4];
  }
  rlx_relax_expr_t *ys[2], *hs[2], *cs[2];
  for (int d = 0; d < n_dir; d++) {
    bool reverse = d == 1 || strcmp(dir, "reverse") == 0;
    RLX_RETURN_IF_ERROR(direction(im, node, &r, inputs, d, reverse, &ys[d], &hs[d], &cs[d]));
    RLX_RETURN_IF_ERROR(expand(im, ys[d], 1, &ys[d])); /* [T, 1, B, H] */
    RLX_RETURN_IF_ERROR(expand(im, hs[d], 0, &hs[d])); /* [1, B, H] */
    RLX_RETURN_IF_ERROR(expand(im, cs[d], 0, &cs[d]));
  }
  rlx_relax_expr_t *y, *yh, *yc;
  RLX_RETURN_IF_ERROR(concat(im, n_dir, ys, 1, &y));
  RLX_RETURN_IF_ERROR(concat(im, n_dir, hs, 0, &yh));
  RLX_RETURN_IF_ERROR(concat(im, n_dir, cs, 0, &yc));
  if (layout) {
    const int64_t py[4] = {2, 0, 1, 3}, ph[3] = {1, 0, 2};
    RLX_RETURN_IF_ERROR(permute(im, y, 4, py, &y));
    RLX_RETURN_IF_ERROR(permute(im, yh, 3, ph, &yh));
    RLX_RETURN_IF_ERROR(permute(im, yc, 3, ph, &yc));
  }
  rlx_relax_expr_t* res[3] = {y, yh, yc};
  if (node->n_outputs > (kind == RNN_LSTM ? 3 : 2)) return rlx_onnx_error(node, "too many outputs");
  for (int k = 0; k < node->n_outputs; k++) outputs[k] = node->outputs[k][0] ? res[k] : NULL;
  (void)ctx;
  return NULL;
}

static OT_CONVERTER(cv_rnn) { return convert(im, node, inputs, outputs, RNN_PLAIN); }
static OT_CONVERTER(cv_gru) { return convert(im, node, inputs, outputs, RNN_GRU); }
static OT_CONVERTER(cv_lstm) { return convert(im, node, inputs, outputs, RNN_LSTM); }

const rlx_onnx_converter_t rlx_onnx_ops_rnn[] = {
    {"RNN", 7, cv_rnn}, {"GRU", 7, cv_gru}, {"LSTM", 7, cv_lstm}, {NULL, 0, NULL},
};
