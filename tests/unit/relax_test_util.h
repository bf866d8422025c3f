/* Helpers shared by the Relax unit tests: TE functions for emit_te (matmul, relu, a
 * doubling op whose output shape is given by the caller) and struct-info shorthands. */
#ifndef RLX_RELAX_TEST_UTIL_H
#define RLX_RELAX_TEST_UTIL_H

#include "relax/relax.h"
#include "tir/te.h"

typedef struct {
  rlx_te_tensor_t* a;
  rlx_te_tensor_t* b;
  rlx_iter_var_t* k;
} mm_user_t;

static inline rlx_expr_t* mm_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  mm_user_t* u = user;
  rlx_expr_t* ia[2] = {&idx[0]->hdr, &u->k->var->hdr};
  rlx_expr_t* ib[2] = {&u->k->var->hdr, &idx[1]->hdr};
  rlx_expr_t* prod = rlx_ir_mul(ctx, rlx_te_load(ctx, u->a, 2, ia), rlx_te_load(ctx, u->b, 2, ib));
  return rlx_te_sum(ctx, prod, 1, &u->k);
}

/* te_matmul(A, B): matmul[i, j] = sum_k A[i, k] * B[k, j]. */
static inline rlx_status_t* te_matmul(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                      rlx_te_tensor_t** out) {
  (void)user;
  if (n != 2) return NULL;
  mm_user_t* u = RLX_NEW(ctx, mm_user_t);
  u->a = in[0];
  u->b = in[1];
  u->k = rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), in[0]->buffer->shape[1], "k");
  rlx_expr_t* shape[2] = {in[0]->buffer->shape[0], in[1]->buffer->shape[1]};
  return *out = rlx_te_compute(ctx, 2, shape, mm_body, u, "matmul", ""), NULL;
}

static inline rlx_expr_t* relu_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rlx_te_tensor_t* a = user;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, a->buffer->ndim);
  for (int i = 0; i < a->buffer->ndim; i++) ix[i] = &idx[i]->hdr;
  return rlx_ir_max(ctx, rlx_te_load(ctx, a, a->buffer->ndim, ix), rlx_ir_float(ctx, a->buffer->dtype, 0.0));
}

/* te_relu(A): relu[...] = max(A[...], 0). */
static inline rlx_status_t* te_relu(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                    rlx_te_tensor_t** out) {
  (void)user;
  if (n != 1) return NULL;
  *out = rlx_te_compute(ctx, in[0]->buffer->ndim, in[0]->buffer->shape, relu_body, in[0], "relu", "elemwise");
  return NULL;
}

typedef struct {
  rlx_te_tensor_t* a;
} fill_user_t;

static inline rlx_expr_t* fill_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rlx_te_tensor_t* a = user;
  rlx_expr_t* zero = rlx_ir_i64(ctx, 0);
  return rlx_te_load(ctx, a, 1, &zero);
}

/* te_fill(A) with the 1-d output shape user (an rlx_expr_t*): out[i] = A[0]. */
static inline rlx_status_t* te_fill(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                    rlx_te_tensor_t** out) {
  if (n != 1) return NULL;
  rlx_expr_t* len = user;
  return *out = rlx_te_compute(ctx, 1, &len, fill_body, in[0], "fill", ""), NULL;
}

static inline rlx_sinfo_t* t2(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b, rlx_dtype_t dt) {
  rlx_expr_t* s[2] = {a, b};
  return rlx_sinfo_tensor(ctx, 2, s, dt);
}

static inline rlx_expr_t* sym(rlx_ctx_t* ctx, const char* name) { return &rlx_ir_var(ctx, name, rlx_dt_int64())->hdr; }

#endif
