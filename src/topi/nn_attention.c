/* topi: multi-head attention in TVM's relax.nn.attention layout (see nn.h). */
#include <math.h>
#include <string.h>

#include "nn_internal.h"

typedef struct {
  rlx_te_tensor_t *q, *k, *v, *bias, *scores, *scaled, *mx, *e, *sum, *p, *pv;
  rlx_iter_var_t* r;
  double scale;
  int causal;         /* 0 none, 1 top-left, 2 bottom-right */
  rlx_expr_t* offset; /* bottom-right: Skv - S */
  rlx_dtype_t dt;
} attn_t;

static rlx_expr_t* I(rlx_ctx_t* ctx, int64_t v) { return rlx_ir_i64(ctx, v); }

/* scores[b, h, i, j] = sum_d q[b, i, h, d] * k[b, j, h, d] */
static rlx_expr_t* scores_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  attn_t* a = user;
  rlx_expr_t* d = nn_v(a->r->var);
  rlx_expr_t* iq[4] = {nn_v(idx[0]), nn_v(idx[2]), nn_v(idx[1]), d};
  rlx_expr_t* ik[4] = {nn_v(idx[0]), nn_v(idx[3]), nn_v(idx[1]), d};
  return rlx_te_sum(ctx, rlx_ir_mul(ctx, rlx_te_load(ctx, a->q, 4, iq), rlx_te_load(ctx, a->k, 4, ik)), 1, &a->r);
}

/* True where (i, j) is masked out by the causal mask. */
static rlx_expr_t* masked(rlx_ctx_t* ctx, attn_t* a, rlx_expr_t* i, rlx_expr_t* j) {
  i = nn_i64(ctx, i);
  j = nn_i64(ctx, j);
  if (a->causal == 1) return rlx_ir_cmp(ctx, RLX_EXPR_GT, j, i);
  return rlx_ir_cmp(ctx, RLX_EXPR_GT, j, rlx_ir_add(ctx, i, a->offset));
}

static rlx_expr_t* scaled_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  attn_t* a = user;
  rlx_expr_t* ix[4] = {nn_v(idx[0]), nn_v(idx[1]), nn_v(idx[2]), nn_v(idx[3])};
  rlx_expr_t* v = rlx_ir_mul(ctx, rlx_te_load(ctx, a->scores, 4, ix), rlx_ir_float(ctx, a->dt, a->scale));
  if (a->bias) {
    int bn = a->bias->buffer->ndim;
    rlx_expr_t* ib[4];
    for (int t = 0; t < bn; t++) {
      int od = 4 - bn + t;
      rlx_expr_t* dim = a->bias->buffer->shape[t];
      ib[t] = nn_is_const(dim, 1) && !nn_is_const(a->scores->buffer->shape[od], 1) ? I(ctx, 0) : ix[od];
    }
    v = rlx_ir_add(ctx, v, rlx_ir_cast(ctx, a->dt, rlx_te_load(ctx, a->bias, bn, ib)));
  }
  return v;
}

static rlx_expr_t* max_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  attn_t* a = user;
  rlx_expr_t* j = nn_v(a->r->var);
  rlx_expr_t* ix[4] = {nn_v(idx[0]), nn_v(idx[1]), nn_v(idx[2]), j};
  rlx_expr_t* cond = a->causal ? rlx_ir_not(ctx, masked(ctx, a, nn_v(idx[2]), j)) : NULL;
  return rlx_te_reduce(ctx, RLX_REDUCE_MAX, rlx_te_load(ctx, a->scaled, 4, ix), 1, &a->r, cond);
}

static rlx_expr_t* exp_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  attn_t* a = user;
  rlx_expr_t* ix[4] = {nn_v(idx[0]), nn_v(idx[1]), nn_v(idx[2]), nn_v(idx[3])};
  rlx_expr_t* diff = rlx_ir_sub(ctx, rlx_te_load(ctx, a->scaled, 4, ix), rlx_te_load(ctx, a->mx, 3, ix));
  rlx_expr_t* e = rlx_ir_call(ctx, a->dt, "exp", 1, &diff);
  if (!a->causal) return e;
  return rlx_ir_select(ctx, masked(ctx, a, ix[2], ix[3]), rlx_ir_float(ctx, a->dt, 0.0), e);
}

static rlx_expr_t* sum_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  attn_t* a = user;
  rlx_expr_t* ix[4] = {nn_v(idx[0]), nn_v(idx[1]), nn_v(idx[2]), nn_v(a->r->var)};
  return rlx_te_sum(ctx, rlx_te_load(ctx, a->e, 4, ix), 1, &a->r);
}

static rlx_expr_t* p_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  attn_t* a = user;
  rlx_expr_t* ix[4] = {nn_v(idx[0]), nn_v(idx[1]), nn_v(idx[2]), nn_v(idx[3])};
  return rlx_ir_div(ctx, rlx_te_load(ctx, a->e, 4, ix), rlx_te_load(ctx, a->sum, 3, ix));
}

/* o[b, h, i, e] = sum_j p[b, h, i, j] * v[b, j, h, e]: heads outside (i, e) so that the default
 * schedule sees a batched matmul; out_body then moves the heads back. */
static rlx_expr_t* pv_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  attn_t* a = user;
  rlx_expr_t* j = nn_v(a->r->var);
  rlx_expr_t* ip[4] = {nn_v(idx[0]), nn_v(idx[1]), nn_v(idx[2]), j};
  rlx_expr_t* iv[4] = {nn_v(idx[0]), j, nn_v(idx[1]), nn_v(idx[3])};
  return rlx_te_sum(ctx, rlx_ir_mul(ctx, rlx_te_load(ctx, a->p, 4, ip), rlx_te_load(ctx, a->v, 4, iv)), 1, &a->r);
}

/* out[b, i, h, e] = o[b, h, i, e] */
static rlx_expr_t* out_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  attn_t* a = user;
  rlx_expr_t* io[4] = {nn_v(idx[0]), nn_v(idx[2]), nn_v(idx[1]), nn_v(idx[3])};
  return rlx_te_load(ctx, a->pv, 4, io);
}

RLX_MUST_USE rlx_status_t* rlx_topi_nn_attention(rlx_ctx_t* ctx, rlx_te_tensor_t* q, rlx_te_tensor_t* k,
                                                 rlx_te_tensor_t* v, rlx_te_tensor_t* bias, double scale,
                                                 const char* causal_mask, rlx_te_tensor_t** out) {
  if (!q || !k || !v) return nn_fail("nn.attention: NULL input");
  if (q->buffer->ndim != 4 || k->buffer->ndim != 4 || v->buffer->ndim != 4)
    return nn_fail("nn.attention: query, key and value must be 4-D (batch, seq, heads, dim), got %s, %s, %s",
                   nn_shape_str(ctx, q), nn_shape_str(ctx, k), nn_shape_str(ctx, v));
  rlx_dtype_t dt = q->buffer->dtype;
  if (!rlx_dtype_is_float(dt) || !rlx_dtype_eq(dt, k->buffer->dtype) || !rlx_dtype_eq(dt, v->buffer->dtype))
    return nn_fail("nn.attention: query, key and value must have one float dtype");
  rlx_expr_t **qs = q->buffer->shape, **ks = k->buffer->shape, **vs = v->buffer->shape;
  struct {
    rlx_expr_t *a, *b;
    const char* what;
  } eq[5] = {{qs[0], ks[0], "batch"},
             {qs[0], vs[0], "batch"},
             {qs[2], ks[2], "heads"},
             {qs[2], vs[2], "heads"},
             {qs[3], ks[3], "query/key dim"}};
  for (int t = 0; t < 5; t++)
    if (!rlx_ir_prove_equal(ctx, nn_i64(ctx, eq[t].a), nn_i64(ctx, eq[t].b)))
      return nn_fail("nn.attention: %s differs: %s vs %s (shapes %s, %s, %s)", eq[t].what, nn_dim_str(ctx, eq[t].a),
                     nn_dim_str(ctx, eq[t].b), nn_shape_str(ctx, q), nn_shape_str(ctx, k), nn_shape_str(ctx, v));
  if (!rlx_ir_prove_equal(ctx, nn_i64(ctx, ks[1]), nn_i64(ctx, vs[1])))
    return nn_fail("nn.attention: key and value sequence lengths differ: %s vs %s", nn_dim_str(ctx, ks[1]),
                   nn_dim_str(ctx, vs[1]));
  attn_t* a = RLX_NEW(ctx, attn_t);
  a->q = q;
  a->k = k;
  a->v = v;
  a->dt = dt;
  a->causal = 0;
  if (causal_mask && strcmp(causal_mask, "TopLeft") == 0) a->causal = 1;
  else if (causal_mask && strcmp(causal_mask, "BottomRight") == 0) a->causal = 2;
  else if (causal_mask)
    return nn_fail("nn.attention: causal_mask \"%s\" is not TopLeft or BottomRight", causal_mask);
  a->offset = rlx_ir_simplify(ctx, rlx_ir_sub(ctx, nn_i64(ctx, ks[1]), nn_i64(ctx, qs[1])));
  int64_t hd;
  if (scale > 0) a->scale = scale;
  else if (rlx_expr_is_const_int(qs[3], &hd) && hd > 0) a->scale = 1.0 / sqrt((double)hd);
  else
    return nn_fail("nn.attention: a symbolic head dim %s needs an explicit scale", nn_dim_str(ctx, qs[3]));
  rlx_expr_t* sshape[4] = {nn_i64(ctx, qs[0]), nn_i64(ctx, qs[2]), nn_i64(ctx, qs[1]), nn_i64(ctx, ks[1])};
  if (bias) {
    int bn = bias->buffer->ndim;
    bool ok = bn <= 4;
    for (int t = 0; ok && t < bn; t++) {
      rlx_expr_t* dim = bias->buffer->shape[t];
      ok = nn_is_const(dim, 1) || rlx_ir_prove_equal(ctx, nn_i64(ctx, dim), sshape[4 - bn + t]);
    }
    if (!ok)
      return nn_fail("nn.attention: bias %s does not broadcast to (batch, heads, seq, seq_kv)",
                     nn_shape_str(ctx, bias));
    a->bias = bias;
  }
  rlx_expr_t* hdim = nn_i64(ctx, qs[3]);
  a->r = rlx_te_reduce_axis(ctx, I(ctx, 0), hdim, "d");
  a->scores = rlx_te_compute(ctx, 4, sshape, scores_body, a, "attn_scores", "");
  a->scaled = rlx_te_compute(ctx, 4, sshape, scaled_body, a, "attn_scaled", "elemwise");
  a->r = rlx_te_reduce_axis(ctx, I(ctx, 0), sshape[3], "j");
  a->mx = rlx_te_compute(ctx, 3, sshape, max_body, a, "attn_max", "");
  a->e = rlx_te_compute(ctx, 4, sshape, exp_body, a, "attn_exp", "elemwise");
  a->r = rlx_te_reduce_axis(ctx, I(ctx, 0), sshape[3], "j");
  a->sum = rlx_te_compute(ctx, 3, sshape, sum_body, a, "attn_expsum", "");
  a->p = rlx_te_compute(ctx, 4, sshape, p_body, a, "attn_softmax", "elemwise");
  a->r = rlx_te_reduce_axis(ctx, I(ctx, 0), sshape[3], "j");
  rlx_expr_t* pshape[4] = {nn_i64(ctx, qs[0]), nn_i64(ctx, qs[2]), nn_i64(ctx, qs[1]), nn_i64(ctx, vs[3])};
  a->pv = rlx_te_compute(ctx, 4, pshape, pv_body, a, "attn_pv", "");
  rlx_expr_t* oshape[4] = {nn_i64(ctx, qs[0]), nn_i64(ctx, qs[1]), nn_i64(ctx, qs[2]), nn_i64(ctx, vs[3])};
  *out = rlx_te_compute(ctx, 4, oshape, out_body, a, "attn_out", "injective");
  return NULL;
}
