/* PrimFunc builders shared by the TIR interpreter, verifier and structural-equality tests.
 * Everything is written with the tir.h constructors, the way TE's create_prim_func and the
 * lowering passes write it. */
#ifndef RLX_TEST_TIR_BUILDERS_H
#define RLX_TEST_TIR_BUILDERS_H

#include "tir/tir.h"

static inline rlx_expr_t* tb_i(rlx_ctx_t* c, int64_t v) { return rlx_ir_i64(c, v); }
static inline rlx_expr_t* tb_v(rlx_var_t* v) { return &v->hdr; }
static inline rlx_expr_t* tb_f(rlx_ctx_t* c, double v) { return rlx_ir_float(c, rlx_dt_float32(), v); }

static inline rlx_expr_t* tb_load2(rlx_ctx_t* c, rlx_tir_buffer_t* b, rlx_expr_t* i, rlx_expr_t* j) {
  rlx_expr_t* idx[2] = {i, j};
  return rlx_ir_load(c, b, 2, idx);
}
static inline rlx_tir_stmt_t* tb_store2(rlx_ctx_t* c, rlx_tir_buffer_t* b, rlx_expr_t* v, rlx_expr_t* i, rlx_expr_t* j) {
  rlx_expr_t* idx[2] = {i, j};
  return rlx_tir_store(c, b, v, 2, idx);
}

/* A point region b[i, j]. */
static inline rlx_buffer_region_t tb_region2(rlx_ctx_t* c, rlx_tir_buffer_t* b, rlx_expr_t* i, rlx_expr_t* j) {
  rlx_buffer_region_t r;
  r.buffer = b;
  r.ndim = 2;
  r.region = RLX_NEW_ARRAY(c, rlx_range_t, 2);
  r.region[0].min = i;
  r.region[0].extent = tb_i(c, 1);
  r.region[1].min = j;
  r.region[1].extent = tb_i(c, 1);
  return r;
}

static inline rlx_tir_block_t* tb_block(rlx_ctx_t* c, const char* name, int n_iv, rlx_iter_var_t** ivs, int n_reads,
                                        const rlx_buffer_region_t* reads, int n_writes, const rlx_buffer_region_t* writes,
                                        rlx_tir_stmt_t* init, rlx_tir_stmt_t* body) {
  rlx_tir_block_t* b = RLX_NEW(c, rlx_tir_block_t);
  b->name = rlx_ctx_strdup(c, name);
  b->n_iter_vars = n_iv;
  b->iter_vars = RLX_NEW_ARRAY(c, rlx_iter_var_t*, n_iv);
  for (int i = 0; i < n_iv; i++) b->iter_vars[i] = ivs[i];
  b->n_reads = n_reads;
  b->reads = RLX_NEW_ARRAY(c, rlx_buffer_region_t, n_reads);
  for (int i = 0; i < n_reads; i++) b->reads[i] = reads[i];
  b->n_writes = n_writes;
  b->writes = RLX_NEW_ARRAY(c, rlx_buffer_region_t, n_writes);
  for (int i = 0; i < n_writes; i++) b->writes[i] = writes[i];
  b->init = init;
  b->body = body;
  return b;
}

/* D = relu(A @ B) with an intermediate C allocated by the root block:
 *   for i, j, k: block "C" (S, S, R): init C = 0; C += A[vi, vk] * B[vk, vj]
 *   for i, j:    block "D" (S, S):    D = max(C, 0)
 * relu_floor is the constant of the max (0 for relu; tests change it to get a different
 * function). */
static inline rlx_tir_func_t* tb_matmul_relu(rlx_ctx_t* c, rlx_expr_t* M, rlx_expr_t* N, rlx_expr_t* K, double relu_floor) {
  rlx_dtype_t f32 = rlx_dt_float32(), i64 = rlx_dt_int64();
  rlx_expr_t* sa[2] = {M, K};
  rlx_expr_t* sb[2] = {K, N};
  rlx_expr_t* sd[2] = {M, N};
  rlx_tir_buffer_t* A = rlx_tir_buffer_create(c, "A", f32, 2, sa, NULL);
  rlx_tir_buffer_t* B = rlx_tir_buffer_create(c, "B", f32, 2, sb, NULL);
  rlx_tir_buffer_t* D = rlx_tir_buffer_create(c, "D", f32, 2, sd, NULL);
  rlx_tir_buffer_t* C = rlx_tir_buffer_create(c, "C", f32, 2, sd, NULL);
  /* block C */
  rlx_var_t *i = rlx_ir_var(c, "i", i64), *j = rlx_ir_var(c, "j", i64), *k = rlx_ir_var(c, "k", i64);
  rlx_var_t *vi = rlx_ir_var(c, "vi", i64), *vj = rlx_ir_var(c, "vj", i64), *vk = rlx_ir_var(c, "vk", i64);
  rlx_iter_var_t* ivs[3] = {rlx_tir_iter_var(c, vi, tb_i(c, 0), M, RLX_ITER_SPATIAL),
                            rlx_tir_iter_var(c, vj, tb_i(c, 0), N, RLX_ITER_SPATIAL),
                            rlx_tir_iter_var(c, vk, tb_i(c, 0), K, RLX_ITER_REDUCE)};
  rlx_buffer_region_t reads[3] = {tb_region2(c, C, tb_v(vi), tb_v(vj)), tb_region2(c, A, tb_v(vi), tb_v(vk)),
                                  tb_region2(c, B, tb_v(vk), tb_v(vj))};
  rlx_buffer_region_t writes[1] = {tb_region2(c, C, tb_v(vi), tb_v(vj))};
  rlx_tir_stmt_t* init = tb_store2(c, C, tb_f(c, 0.0), tb_v(vi), tb_v(vj));
  rlx_expr_t* prod = rlx_ir_mul(c, tb_load2(c, A, tb_v(vi), tb_v(vk)), tb_load2(c, B, tb_v(vk), tb_v(vj)));
  rlx_tir_stmt_t* upd = tb_store2(c, C, rlx_ir_add(c, tb_load2(c, C, tb_v(vi), tb_v(vj)), prod), tb_v(vi), tb_v(vj));
  rlx_tir_block_t* bc = tb_block(c, "C", 3, ivs, 3, reads, 1, writes, init, upd);
  rlx_expr_t* vals[3] = {tb_v(i), tb_v(j), tb_v(k)};
  rlx_tir_stmt_t* nest1 = rlx_tir_block_realize(c, 3, vals, NULL, bc);
  nest1 = rlx_tir_for(c, k, tb_i(c, 0), K, RLX_FOR_SERIAL, nest1);
  nest1 = rlx_tir_for(c, j, tb_i(c, 0), N, RLX_FOR_SERIAL, nest1);
  nest1 = rlx_tir_for(c, i, tb_i(c, 0), M, RLX_FOR_SERIAL, nest1);
  /* block D */
  rlx_var_t *i2 = rlx_ir_var(c, "i", i64), *j2 = rlx_ir_var(c, "j", i64);
  rlx_var_t *wi = rlx_ir_var(c, "vi", i64), *wj = rlx_ir_var(c, "vj", i64);
  rlx_iter_var_t* ivs2[2] = {rlx_tir_iter_var(c, wi, tb_i(c, 0), M, RLX_ITER_SPATIAL),
                             rlx_tir_iter_var(c, wj, tb_i(c, 0), N, RLX_ITER_SPATIAL)};
  rlx_buffer_region_t reads2[1] = {tb_region2(c, C, tb_v(wi), tb_v(wj))};
  rlx_buffer_region_t writes2[1] = {tb_region2(c, D, tb_v(wi), tb_v(wj))};
  rlx_tir_stmt_t* relu =
      tb_store2(c, D, rlx_ir_max(c, tb_load2(c, C, tb_v(wi), tb_v(wj)), tb_f(c, relu_floor)), tb_v(wi), tb_v(wj));
  rlx_tir_block_t* bd = tb_block(c, "D", 2, ivs2, 1, reads2, 1, writes2, NULL, relu);
  rlx_expr_t* vals2[2] = {tb_v(i2), tb_v(j2)};
  rlx_tir_stmt_t* nest2 = rlx_tir_block_realize(c, 2, vals2, NULL, bd);
  nest2 = rlx_tir_for(c, j2, tb_i(c, 0), N, RLX_FOR_SERIAL, nest2);
  nest2 = rlx_tir_for(c, i2, tb_i(c, 0), M, RLX_FOR_SERIAL, nest2);
  /* root block */
  rlx_tir_stmt_t* both[2] = {nest1, nest2};
  rlx_tir_block_t* root = tb_block(c, "root", 0, NULL, 0, NULL, 0, NULL, NULL, rlx_tir_seq(c, 2, both));
  root->n_alloc_buffers = 1;
  root->alloc_buffers = RLX_NEW_ARRAY(c, rlx_tir_buffer_t*, 1);
  root->alloc_buffers[0] = C;
  rlx_tir_stmt_t* body = rlx_tir_block_realize(c, 0, NULL, NULL, root);
  rlx_var_t* params[3] = {rlx_ir_var(c, "pa", rlx_dt_handle()), rlx_ir_var(c, "pb", rlx_dt_handle()),
                          rlx_ir_var(c, "pd", rlx_dt_handle())};
  rlx_tir_buffer_t* bm[3] = {A, B, D};
  return rlx_tir_func_create(c, "matmul_relu", 3, params, bm, body);
}

/* C[i] = A[i] + B[i] over a symbolic n (one shape var shared by all buffers), with blocks. */
static inline rlx_tir_func_t* tb_vector_add(rlx_ctx_t* c, bool separate_shape_vars) {
  rlx_dtype_t f32 = rlx_dt_float32(), i64 = rlx_dt_int64();
  rlx_var_t* n = rlx_ir_var(c, "n", i64);
  rlx_var_t* m = separate_shape_vars ? rlx_ir_var(c, "m", i64) : n;
  rlx_expr_t* sn[1] = {tb_v(n)};
  rlx_expr_t* sm[1] = {tb_v(m)};
  rlx_tir_buffer_t* A = rlx_tir_buffer_create(c, "A", f32, 1, sn, NULL);
  rlx_tir_buffer_t* B = rlx_tir_buffer_create(c, "B", f32, 1, sm, NULL);
  rlx_tir_buffer_t* C = rlx_tir_buffer_create(c, "C", f32, 1, sn, NULL);
  rlx_var_t* i = rlx_ir_var(c, "i", i64);
  rlx_var_t* vi = rlx_ir_var(c, "vi", i64);
  rlx_iter_var_t* ivs[1] = {rlx_tir_iter_var(c, vi, tb_i(c, 0), tb_v(n), RLX_ITER_SPATIAL)};
  rlx_expr_t* ix[1] = {tb_v(vi)};
  rlx_buffer_region_t rd[2], wr[1];
  rlx_buffer_region_t* rs[3] = {&rd[0], &rd[1], &wr[0]};
  rlx_tir_buffer_t* bs[3] = {A, B, C};
  for (int q = 0; q < 3; q++) {
    rs[q]->buffer = bs[q];
    rs[q]->ndim = 1;
    rs[q]->region = RLX_NEW_ARRAY(c, rlx_range_t, 1);
    rs[q]->region[0].min = tb_v(vi);
    rs[q]->region[0].extent = tb_i(c, 1);
  }
  rlx_tir_stmt_t* st = rlx_tir_store(c, C, rlx_ir_add(c, rlx_ir_load(c, A, 1, ix), rlx_ir_load(c, B, 1, ix)), 1, ix);
  rlx_tir_block_t* blk = tb_block(c, "C", 1, ivs, 2, rd, 1, wr, NULL, st);
  rlx_expr_t* vals[1] = {tb_v(i)};
  rlx_tir_stmt_t* body = rlx_tir_for(c, i, tb_i(c, 0), tb_v(n), RLX_FOR_SERIAL, rlx_tir_block_realize(c, 1, vals, NULL, blk));
  rlx_var_t* params[3] = {rlx_ir_var(c, "a", rlx_dt_handle()), rlx_ir_var(c, "b", rlx_dt_handle()),
                          rlx_ir_var(c, "c", rlx_dt_handle())};
  rlx_tir_buffer_t* bm[3] = {A, B, C};
  return rlx_tir_func_create(c, "vector_add", 3, params, bm, body);
}

/* Lowered form of Y[i, j] = (X[i, j] + 1) * 2 over a 4x8 float32 X, vectorized by 4 along j:
 *   for i in 4 (parallel): for jo in 2:
 *     allocate T: float32[4] (local)
 *     T_flat[ramp(0, 1, 4)] = X_flat[ramp(i*8 + jo*4, 1, 4)] + broadcast(1, 4)
 *     Y_flat[ramp(i*8 + jo*4, 1, 4)] = T_flat[ramp(0, 1, 4)] * broadcast(2, 4)
 * X_flat and Y_flat are 1-D buffers sharing the data vars of the 2-D params. */
static inline rlx_tir_func_t* tb_lowered_vec(rlx_ctx_t* c) {
  rlx_dtype_t f32 = rlx_dt_float32(), i64 = rlx_dt_int64();
  rlx_expr_t* s2[2] = {tb_i(c, 4), tb_i(c, 8)};
  rlx_expr_t* s1[1] = {tb_i(c, 32)};
  rlx_expr_t* s4[1] = {tb_i(c, 4)};
  rlx_tir_buffer_t* X = rlx_tir_buffer_create(c, "X", f32, 2, s2, NULL);
  rlx_tir_buffer_t* Y = rlx_tir_buffer_create(c, "Y", f32, 2, s2, NULL);
  rlx_tir_buffer_t* Xf = rlx_tir_buffer_create(c, "X_flat", f32, 1, s1, NULL);
  rlx_tir_buffer_t* Yf = rlx_tir_buffer_create(c, "Y_flat", f32, 1, s1, NULL);
  Xf->data = X->data;
  Yf->data = Y->data;
  rlx_tir_buffer_t* T = rlx_tir_buffer_create(c, "T", f32, 1, s4, "local");
  rlx_var_t* i = rlx_ir_var(c, "i", i64);
  rlx_var_t* jo = rlx_ir_var(c, "jo", i64);
  rlx_expr_t* base = rlx_ir_add(c, rlx_ir_mul(c, tb_v(i), tb_i(c, 8)), rlx_ir_mul(c, tb_v(jo), tb_i(c, 4)));
  rlx_expr_t* rx[1] = {rlx_ir_ramp(c, base, tb_i(c, 1), 4)};
  rlx_expr_t* rt[1] = {rlx_ir_ramp(c, tb_i(c, 0), tb_i(c, 1), 4)};
  rlx_tir_stmt_t* s_t = rlx_tir_store(c, T, rlx_ir_add(c, rlx_ir_load(c, Xf, 1, rx), rlx_ir_broadcast(c, tb_f(c, 1.0), 4)), 1, rt);
  rlx_tir_stmt_t* s_y = rlx_tir_store(c, Yf, rlx_ir_mul(c, rlx_ir_load(c, T, 1, rt), rlx_ir_broadcast(c, tb_f(c, 2.0), 4)), 1, rx);
  rlx_tir_stmt_t* two[2] = {s_t, s_y};
  rlx_tir_stmt_t* body = rlx_tir_allocate(c, T, rlx_tir_seq(c, 2, two));
  body = rlx_tir_for(c, jo, tb_i(c, 0), tb_i(c, 2), RLX_FOR_SERIAL, body);
  body = rlx_tir_for(c, i, tb_i(c, 0), tb_i(c, 4), RLX_FOR_PARALLEL, body);
  rlx_var_t* params[2] = {rlx_ir_var(c, "x", rlx_dt_handle()), rlx_ir_var(c, "y", rlx_dt_handle())};
  rlx_tir_buffer_t* bm[2] = {X, Y};
  return rlx_tir_func_create(c, "lowered_vec", 2, params, bm, body);
}

#endif
