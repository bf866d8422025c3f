/* Structural equality and hashing: PrimExprs (Let/Reduce vars mapped, free vars by identity,
 * dtypes, floats, NaN) and PrimFuncs (definitions mapped by position, names ignored, shape
 * vars mapped on first occurrence). */
#include <math.h>

#include "test.h"
#include "test_tir_interp_builders.h"

static void test_expr(void) {
  rlx_ctx_t* c = rlx_ctx_create();
  rlx_dtype_t i64 = rlx_dt_int64();
  rlx_var_t* x = rlx_ir_var(c, "x", i64);
  rlx_var_t* y = rlx_ir_var(c, "y", i64);
  rlx_var_t* x2 = rlx_ir_var(c, "x", i64); /* same name, other variable */
  rlx_expr_t* a = rlx_ir_add(c, rlx_ir_mul(c, &x->hdr, rlx_ir_i64(c, 4)), &y->hdr);
  rlx_expr_t* b = rlx_ir_add(c, rlx_ir_mul(c, &x->hdr, rlx_ir_i64(c, 4)), &y->hdr);
  CHECK(rlx_expr_equal(a, b));
  CHECK(rlx_expr_hash(a) == rlx_expr_hash(b));
  CHECK(!rlx_expr_equal(a, rlx_ir_add(c, rlx_ir_mul(c, &x2->hdr, rlx_ir_i64(c, 4)), &y->hdr)));
  CHECK(!rlx_expr_equal(a, rlx_ir_add(c, rlx_ir_mul(c, &x->hdr, rlx_ir_i64(c, 5)), &y->hdr)));
  CHECK(!rlx_expr_equal(a, rlx_ir_sub(c, rlx_ir_mul(c, &x->hdr, rlx_ir_i64(c, 4)), &y->hdr)));
  /* dtype-aware */
  CHECK(!rlx_expr_equal(rlx_ir_i64(c, 1), rlx_ir_i32(c, 1)));
  CHECK(rlx_expr_equal(rlx_ir_i32(c, 1), rlx_ir_i32(c, 1)));
  CHECK(!rlx_expr_equal(rlx_ir_float(c, rlx_dt_float32(), 1.0), rlx_ir_float(c, rlx_dt_float64(), 1.0)));
  /* floats exact; NaN equals NaN; -0 equals 0 */
  rlx_dtype_t f32 = rlx_dt_float32();
  CHECK(!rlx_expr_equal(rlx_ir_float(c, f32, 0.5), rlx_ir_float(c, f32, 0.25)));
  rlx_expr_t* n1 = rlx_ir_float(c, f32, NAN);
  rlx_expr_t* n2 = rlx_ir_float(c, f32, NAN);
  CHECK(rlx_expr_equal(n1, n2) && rlx_expr_hash(n1) == rlx_expr_hash(n2));
  CHECK(rlx_expr_equal(rlx_ir_float(c, f32, -0.0), rlx_ir_float(c, f32, 0.0)));
  CHECK(rlx_expr_hash(rlx_ir_float(c, f32, -0.0)) == rlx_expr_hash(rlx_ir_float(c, f32, 0.0)));
  /* Let vars map by definition: let t = x in t + 1 == let u = x in u + 1 */
  rlx_var_t* t = rlx_ir_var(c, "t", i64);
  rlx_var_t* u = rlx_ir_var(c, "u", i64);
  rlx_expr_t* lt = rlx_ir_let(c, t, &x->hdr, rlx_ir_add(c, &t->hdr, rlx_ir_i64(c, 1)));
  rlx_expr_t* lu = rlx_ir_let(c, u, &x->hdr, rlx_ir_add(c, &u->hdr, rlx_ir_i64(c, 1)));
  CHECK(rlx_expr_equal(lt, lu));
  CHECK(rlx_expr_hash(lt) == rlx_expr_hash(lu));
  rlx_expr_t* lw = rlx_ir_let(c, u, &x->hdr, rlx_ir_add(c, &x->hdr, rlx_ir_i64(c, 1)));
  CHECK(!rlx_expr_equal(lt, lw));
  /* free vars: t outside its let is not u */
  CHECK(!rlx_expr_equal(&t->hdr, &u->hdr));
  /* Reduce axes map by definition */
  rlx_var_t* k1 = rlx_ir_var(c, "k", i64);
  rlx_var_t* k2 = rlx_ir_var(c, "r", i64);
  rlx_iter_var_t* ax1 = rlx_tir_iter_var(c, k1, rlx_ir_i64(c, 0), rlx_ir_i64(c, 8), RLX_ITER_REDUCE);
  rlx_iter_var_t* ax2 = rlx_tir_iter_var(c, k2, rlx_ir_i64(c, 0), rlx_ir_i64(c, 8), RLX_ITER_REDUCE);
  rlx_iter_var_t* ax3 = rlx_tir_iter_var(c, k2, rlx_ir_i64(c, 0), rlx_ir_i64(c, 9), RLX_ITER_REDUCE);
  rlx_expr_t* r1 = rlx_ir_reduce(c, RLX_REDUCE_SUM, rlx_ir_cast(c, f32, &k1->hdr), 1, &ax1, NULL);
  rlx_expr_t* r2 = rlx_ir_reduce(c, RLX_REDUCE_SUM, rlx_ir_cast(c, f32, &k2->hdr), 1, &ax2, NULL);
  rlx_expr_t* r3 = rlx_ir_reduce(c, RLX_REDUCE_SUM, rlx_ir_cast(c, f32, &k2->hdr), 1, &ax3, NULL);
  rlx_expr_t* r4 = rlx_ir_reduce(c, RLX_REDUCE_MAX, rlx_ir_cast(c, f32, &k2->hdr), 1, &ax2, NULL);
  CHECK(rlx_expr_equal(r1, r2) && rlx_expr_hash(r1) == rlx_expr_hash(r2));
  CHECK(!rlx_expr_equal(r1, r3));
  CHECK(!rlx_expr_equal(r1, r4));
  /* calls by op name */
  rlx_expr_t* e1 = rlx_ir_call(c, f32, "exp", 1, &n1);
  rlx_expr_t* e2 = rlx_ir_call(c, f32, "exp", 1, &n2);
  rlx_expr_t* e3 = rlx_ir_call(c, f32, "log", 1, &n2);
  CHECK(rlx_expr_equal(e1, e2) && !rlx_expr_equal(e1, e3));
  rlx_ctx_free(c);
}

static void test_func(void) {
  rlx_ctx_t* c = rlx_ctx_create();
  rlx_tir_func_t* m1 = tb_matmul_relu(c, tb_i(c, 16), tb_i(c, 8), tb_i(c, 4), 0.0);
  rlx_tir_func_t* m2 = tb_matmul_relu(c, tb_i(c, 16), tb_i(c, 8), tb_i(c, 4), 0.0);
  CHECK(rlx_tir_func_equal(m1, m2));
  CHECK(rlx_tir_func_hash(m1) == rlx_tir_func_hash(m2));
  CHECK(rlx_tir_stmt_equal(m1->body, m2->body));
  rlx_tir_func_t* m3 = tb_matmul_relu(c, tb_i(c, 16), tb_i(c, 8), tb_i(c, 4), 1.0);
  CHECK(!rlx_tir_func_equal(m1, m3));
  CHECK(rlx_tir_func_hash(m1) != rlx_tir_func_hash(m3));
  rlx_tir_func_t* m4 = tb_matmul_relu(c, tb_i(c, 16), tb_i(c, 8), tb_i(c, 5), 0.0);
  CHECK(!rlx_tir_func_equal(m1, m4));
  /* symbolic shapes: vars first met in the buffer map pair up */
  rlx_var_t *M1 = rlx_ir_var(c, "M", rlx_dt_int64()), *N1 = rlx_ir_var(c, "N", rlx_dt_int64()),
            *K1 = rlx_ir_var(c, "K", rlx_dt_int64());
  rlx_var_t *M2 = rlx_ir_var(c, "m", rlx_dt_int64()), *N2 = rlx_ir_var(c, "n", rlx_dt_int64()),
            *K2 = rlx_ir_var(c, "k", rlx_dt_int64());
  rlx_tir_func_t* s1 = tb_matmul_relu(c, tb_v(M1), tb_v(N1), tb_v(K1), 0.0);
  rlx_tir_func_t* s2 = tb_matmul_relu(c, tb_v(M2), tb_v(N2), tb_v(K2), 0.0);
  CHECK(rlx_tir_func_equal(s1, s2));
  CHECK(rlx_tir_func_hash(s1) == rlx_tir_func_hash(s2));
  /* M and N swapped roles (A: [N, K]) is different: M ≠ N is a different binding pattern */
  rlx_tir_func_t* s3 = tb_matmul_relu(c, tb_v(M2), tb_v(M2), tb_v(K2), 0.0);
  CHECK(!rlx_tir_func_equal(s1, s3));
  CHECK(!rlx_tir_func_equal(s1, m1));
  rlx_tir_func_t* v1 = tb_vector_add(c, false);
  rlx_tir_func_t* v2 = tb_vector_add(c, false);
  rlx_tir_func_t* v3 = tb_vector_add(c, true);
  CHECK(rlx_tir_func_equal(v1, v2) && rlx_tir_func_hash(v1) == rlx_tir_func_hash(v2));
  CHECK(!rlx_tir_func_equal(v1, v3));
  CHECK(rlx_tir_func_hash(v1) != rlx_tir_func_hash(v3));
  /* attributes compare as key/value sets */
  rlx_tir_func_t* a1 = rlx_tir_func_with_attr(c, v1, "tir.noalias", rlx_ir_bool(c, true));
  a1 = rlx_tir_func_with_attr(c, a1, "global_symbol", rlx_ir_string(c, "vadd"));
  rlx_tir_func_t* a2 = rlx_tir_func_with_attr(c, v2, "global_symbol", rlx_ir_string(c, "vadd"));
  a2 = rlx_tir_func_with_attr(c, a2, "tir.noalias", rlx_ir_bool(c, true));
  CHECK(rlx_tir_func_equal(a1, a2) && rlx_tir_func_hash(a1) == rlx_tir_func_hash(a2));
  rlx_tir_func_t* a3 = rlx_tir_func_with_attr(c, a2, "tir.noalias", rlx_ir_bool(c, false));
  CHECK(!rlx_tir_func_equal(a1, a3));
  CHECK(!rlx_tir_func_equal(a1, v1));
  /* lowered form: flat views and ALLOCATE map by definition too */
  rlx_tir_func_t* l1 = tb_lowered_vec(c);
  rlx_tir_func_t* l2 = tb_lowered_vec(c);
  CHECK(rlx_tir_func_equal(l1, l2) && rlx_tir_func_hash(l1) == rlx_tir_func_hash(l2));
  /* swapping the data var of the flat view (Y_flat reads X's data) is a different function */
  rlx_tir_func_t* l3 = tb_lowered_vec(c);
  rlx_tir_for_t* fo = RLX_AS(rlx_tir_for_t, RLX_AS(rlx_tir_for_t, l3->body)->body);
  rlx_tir_allocate_t* al = RLX_AS(rlx_tir_allocate_t, fo->body);
  rlx_tir_seq_t* sq = RLX_AS(rlx_tir_seq_t, al->body);
  rlx_tir_store_t* sy = RLX_AS(rlx_tir_store_t, sq->stmts[1]);
  sy->buffer->data = l3->buffer_map[0]->data;
  CHECK(!rlx_tir_func_equal(l1, l3));
  CHECK(!rlx_tir_func_equal(l1, v1));
  rlx_ctx_free(c);
}

int main(void) {
  test_expr();
  test_func();
  TEST_MAIN_END();
}
