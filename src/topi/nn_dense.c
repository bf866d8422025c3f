/* topi: matmul (numpy semantics) and nn.dense (x · wᵀ + bias). See nn.h. */
#include "nn_internal.h"

/* Output dim of broadcasting a (may be NULL = absent) with b; NULL when incompatible. */
static rlx_expr_t* bcast_dim(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) {
  if (!a) return b;
  if (!b) return a;
  if (nn_is_const(a, 1)) return b;
  if (nn_is_const(b, 1)) return a;
  if (rlx_ir_prove_equal(ctx, nn_i64(ctx, a), nn_i64(ctx, b))) return a;
  return NULL;
}

/* Index into an operand's batch dim `dim` for output batch index `ix`: 0 where the operand
 * broadcasts (its dim is 1 and the output's is not), else the output index itself (which
 * keeps the contraction recognizable by the default schedule). */
static rlx_expr_t* bcast_index(rlx_ctx_t* ctx, rlx_expr_t* dim, rlx_expr_t* out_dim, rlx_expr_t* ix) {
  if (nn_is_const(dim, 1) && !nn_is_const(out_dim, 1)) return rlx_ir_i64(ctx, 0);
  return ix;
}

typedef struct {
  rlx_te_tensor_t *a, *b;
  rlx_iter_var_t* k;
  rlx_expr_t** out_shape;
  int n_batch; /* output batch dims */
  bool a_vec, b_vec;
  rlx_dtype_t dt;
} mm_t;

static rlx_expr_t* mm_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  mm_t* m = user;
  int an = m->a->buffer->ndim, bn = m->b->buffer->ndim;
  rlx_expr_t** ia = RLX_NEW_ARRAY(ctx, rlx_expr_t*, an);
  rlx_expr_t** ib = RLX_NEW_ARRAY(ctx, rlx_expr_t*, bn);
  rlx_expr_t* k = nn_v(m->k->var);
  int nb = m->n_batch;
  if (m->a_vec) ia[0] = k;
  else {
    int ab = an - 2;
    for (int d = 0; d < ab; d++) {
      int od = nb - ab + d;
      ia[d] = bcast_index(ctx, m->a->buffer->shape[d], m->out_shape[od], nn_v(idx[od]));
    }
    ia[an - 2] = nn_v(idx[nb]);
    ia[an - 1] = k;
  }
  if (m->b_vec) ib[0] = k;
  else {
    int bb = bn - 2;
    for (int d = 0; d < bb; d++) {
      int od = nb - bb + d;
      ib[d] = bcast_index(ctx, m->b->buffer->shape[d], m->out_shape[od], nn_v(idx[od]));
    }
    ib[bn - 2] = k;
    ib[bn - 1] = nn_v(idx[nb + (m->a_vec ? 0 : 1)]);
  }
  rlx_expr_t* x = rlx_ir_cast(ctx, m->dt, rlx_te_load(ctx, m->a, an, ia));
  rlx_expr_t* y = rlx_ir_cast(ctx, m->dt, rlx_te_load(ctx, m->b, bn, ib));
  return rlx_te_sum(ctx, rlx_ir_mul(ctx, x, y), 1, &m->k);
}

/* Checks that two contraction extents may be equal; the error names both shapes. */
static bool contraction_ok(rlx_ctx_t* ctx, rlx_expr_t* ka, rlx_expr_t* kb) {
  rlx_analyzer_t* an = rlx_analyzer_create(ctx);
  return !rlx_analyzer_can_prove(an, rlx_ir_cmp(ctx, RLX_EXPR_NE, nn_i64(ctx, ka), nn_i64(ctx, kb)));
}

RLX_MUST_USE rlx_status_t* rlx_topi_matmul(rlx_ctx_t* ctx, rlx_te_tensor_t* a, rlx_te_tensor_t* b,
                                           rlx_dtype_t out_dtype, rlx_te_tensor_t** out) {
  if (!a || !b) return nn_fail("matmul: NULL operand");
  int an = a->buffer->ndim, bn = b->buffer->ndim;
  if (an < 1 || bn < 1)
    return nn_fail("matmul: operands must have rank >= 1, got %s and %s", nn_shape_str(ctx, a), nn_shape_str(ctx, b));
  bool void_out = !(rlx_dtype_is_float(out_dtype) || rlx_dtype_is_int(out_dtype));
  if (void_out && !rlx_dtype_eq(a->buffer->dtype, b->buffer->dtype))
    return nn_fail("matmul: operand dtypes differ: %s vs %s", nn_dt(ctx, a->buffer->dtype),
                   nn_dt(ctx, b->buffer->dtype));
  mm_t* m = RLX_NEW(ctx, mm_t);
  m->a = a;
  m->b = b;
  m->a_vec = an == 1;
  m->b_vec = bn == 1;
  m->dt = void_out ? a->buffer->dtype : out_dtype;
  rlx_expr_t* ka = a->buffer->shape[an - 1];
  rlx_expr_t* kb = m->b_vec ? b->buffer->shape[0] : b->buffer->shape[bn - 2];
  if (!contraction_ok(ctx, ka, kb))
    return nn_fail("matmul: contraction dims differ: %s vs %s (shapes %s and %s)", nn_dim_str(ctx, ka),
                   nn_dim_str(ctx, kb), nn_shape_str(ctx, a), nn_shape_str(ctx, b));
  int ab = m->a_vec ? 0 : an - 2, bb = m->b_vec ? 0 : bn - 2;
  int nb = ab > bb ? ab : bb;
  int out_nd = nb + (m->a_vec ? 0 : 1) + (m->b_vec ? 0 : 1);
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, out_nd);
  for (int d = 0; d < nb; d++) {
    int da = d - (nb - ab), db = d - (nb - bb);
    rlx_expr_t* x = da >= 0 ? a->buffer->shape[da] : NULL;
    rlx_expr_t* y = db >= 0 ? b->buffer->shape[db] : NULL;
    shape[d] = bcast_dim(ctx, x, y);
    if (!shape[d])
      return nn_fail("matmul: batch dims cannot broadcast: %s vs %s (shapes %s and %s)", nn_dim_str(ctx, x),
                     nn_dim_str(ctx, y), nn_shape_str(ctx, a), nn_shape_str(ctx, b));
  }
  int o = nb;
  if (!m->a_vec) shape[o++] = a->buffer->shape[an - 2];
  if (!m->b_vec) shape[o++] = b->buffer->shape[bn - 1];
  m->out_shape = shape;
  m->n_batch = nb;
  m->k = rlx_te_reduce_axis(ctx, rlx_ir_int(ctx, ka->dtype, 0), ka, "k");
  *out = rlx_te_compute(ctx, out_nd, shape, mm_body, m, "matmul", "matmul");
  return NULL;
}

/* ---------------------------------------------------------------- dense */
typedef struct {
  rlx_te_tensor_t *x, *w, *bias, *mm;
  rlx_iter_var_t* k;
  rlx_dtype_t dt;
} dense_t;

static rlx_expr_t* dense_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  dense_t* d = user;
  int n = d->x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int i = 0; i < n - 1; i++) ix[i] = nn_v(idx[i]);
  ix[n - 1] = nn_v(d->k->var);
  rlx_expr_t* iw[2] = {nn_v(idx[n - 1]), nn_v(d->k->var)};
  rlx_expr_t* x = rlx_ir_cast(ctx, d->dt, rlx_te_load(ctx, d->x, n, ix));
  rlx_expr_t* y = rlx_ir_cast(ctx, d->dt, rlx_te_load(ctx, d->w, 2, iw));
  return rlx_te_sum(ctx, rlx_ir_mul(ctx, x, y), 1, &d->k);
}

static rlx_expr_t* bias_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  dense_t* d = user;
  int n = d->mm->buffer->ndim, bn = d->bias->buffer->ndim;
  rlx_expr_t** io = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  rlx_expr_t** ib = RLX_NEW_ARRAY(ctx, rlx_expr_t*, bn);
  for (int i = 0; i < n; i++) io[i] = nn_v(idx[i]);
  for (int i = 0; i < bn; i++) {
    int od = n - bn + i;
    ib[i] = bcast_index(ctx, d->bias->buffer->shape[i], d->mm->buffer->shape[od], nn_v(idx[od]));
  }
  return rlx_ir_add(ctx, rlx_te_load(ctx, d->mm, n, io), rlx_ir_cast(ctx, d->dt, rlx_te_load(ctx, d->bias, bn, ib)));
}

RLX_MUST_USE rlx_status_t* rlx_topi_nn_dense(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* w,
                                             rlx_te_tensor_t* bias, rlx_dtype_t out_dtype, rlx_te_tensor_t** out) {
  if (!x || !w) return nn_fail("nn.dense: NULL operand");
  int n = x->buffer->ndim;
  if (n < 1 || w->buffer->ndim != 2)
    return nn_fail("nn.dense: data must have rank >= 1 and weight rank 2, got %s and %s", nn_shape_str(ctx, x),
                   nn_shape_str(ctx, w));
  bool void_out = !(rlx_dtype_is_float(out_dtype) || rlx_dtype_is_int(out_dtype));
  if (void_out && !rlx_dtype_eq(x->buffer->dtype, w->buffer->dtype))
    return nn_fail("nn.dense: operand dtypes differ: %s vs %s", nn_dt(ctx, x->buffer->dtype),
                   nn_dt(ctx, w->buffer->dtype));
  rlx_expr_t* kx = x->buffer->shape[n - 1];
  rlx_expr_t* kw = w->buffer->shape[1];
  if (!contraction_ok(ctx, kx, kw))
    return nn_fail("nn.dense: contraction dims differ: %s vs %s (shapes %s and %s)", nn_dim_str(ctx, kx),
                   nn_dim_str(ctx, kw), nn_shape_str(ctx, x), nn_shape_str(ctx, w));
  dense_t* d = RLX_NEW(ctx, dense_t);
  d->x = x;
  d->w = w;
  d->bias = bias;
  d->dt = void_out ? x->buffer->dtype : out_dtype;
  d->k = rlx_te_reduce_axis(ctx, rlx_ir_int(ctx, kx->dtype, 0), kx, "k");
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int i = 0; i < n - 1; i++) shape[i] = x->buffer->shape[i];
  shape[n - 1] = w->buffer->shape[0];
  /* TVM's topi.nn.dense: loops i0, i1, ... (a `*indices` lambda) and the weight layout-free */
  d->mm = rlx_te_compute_named(ctx, n, shape, dense_body, d, "T_matmul_NT", "dense", rlx_topi_axis_names(ctx, n, "i"));
  d->mm->n_layout_free = 1;
  d->mm->layout_free = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, 1);
  d->mm->layout_free[0] = w;
  if (!bias) {
    *out = d->mm;
    return NULL;
  }
  int bn = bias->buffer->ndim;
  if (bn > n)
    return nn_fail("nn.dense: bias %s has a higher rank than the output %s", nn_shape_str(ctx, bias),
                   nn_shape_str(ctx, d->mm));
  for (int i = 0; i < bn; i++) {
    rlx_expr_t* bd = bias->buffer->shape[i];
    rlx_expr_t* od = shape[n - bn + i];
    if (!nn_is_const(bd, 1) && !rlx_ir_prove_equal(ctx, nn_i64(ctx, bd), nn_i64(ctx, od)))
      return nn_fail("nn.dense: bias %s does not broadcast to the output %s", nn_shape_str(ctx, bias),
                     nn_shape_str(ctx, d->mm));
  }
  *out = rlx_te_compute(ctx, n, shape, bias_body, d, "T_add", "broadcast");
  return NULL;
}
