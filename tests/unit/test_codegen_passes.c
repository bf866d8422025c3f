/* unroll_loops and vectorize_loops: the IR forms they produce and the loops they must leave
 * alone; plus the pragmas codegen emits for loops left over. */
#include "codegen_test_util.h"

static rlx_tir_buffer_t *A_, *B_, *C_;

static rlx_tir_func_t* func_of(rlx_tir_stmt_t* body) {
  rlx_tir_buffer_t* bufs[3] = {A_, B_, C_};
  return make_func("f", 3, bufs, body);
}

static rlx_tir_stmt_t* unrolled(rlx_tir_stmt_t* body) {
  rlx_tir_func_t* out = NULL;
  CHECK_OK(rlx_tir_unroll_loops(ctx_, func_of(body), &out));
  return out ? out->body : NULL;
}

static rlx_tir_stmt_t* vectorized(rlx_tir_stmt_t* body) {
  rlx_tir_func_t* out = NULL;
  CHECK_OK(rlx_tir_vectorize_loops(ctx_, func_of(body), &out));
  return out ? out->body : NULL;
}

static bool store_at_const(const rlx_tir_stmt_t* s, int64_t want) {
  int64_t v;
  if (!s || s->kind != RLX_STMT_BUFFER_STORE) return false;
  rlx_expr_t* i = rlx_ir_simplify(ctx_, RLX_AS(const rlx_tir_store_t, s)->indices[0]);
  return rlx_expr_is_const_int(i, &v) && v == want;
}

static void test_unroll(void) {
  rlx_var_t* i = VAR("i");
  /* for i unrolled(4): B[i*2 + 1] = A[i] → four stores at 1, 3, 5, 7 */
  rlx_tir_stmt_t* s = unrolled(FOR(i, I32(4), RLX_FOR_UNROLLED, ST(B_, ADD(MUL(E(i), I32(2)), I32(1)), LD(A_, E(i)))));
  CHECK(s && s->kind == RLX_STMT_SEQ && RLX_AS(rlx_tir_seq_t, s)->n == 4);
  if (s && s->kind == RLX_STMT_SEQ)
    for (int k = 0; k < 4; k++) CHECK(store_at_const(RLX_AS(rlx_tir_seq_t, s)->stmts[k], 2 * k + 1));
  /* nested 8 x 2 → 16 stores, inner loops expanded first */
  rlx_var_t *a = VAR("a"), *b = VAR("b");
  s = unrolled(FOR(a, I32(8), RLX_FOR_UNROLLED, FOR(b, I32(2), RLX_FOR_UNROLLED, ST(B_, ADD(MUL(E(a), I32(2)), E(b)), I32(0)))));
  CHECK(s && s->kind == RLX_STMT_SEQ && RLX_AS(rlx_tir_seq_t, s)->n == 16);
  if (s && s->kind == RLX_STMT_SEQ) CHECK(store_at_const(RLX_AS(rlx_tir_seq_t, s)->stmts[15], 15));
  /* over the limit, or symbolic: left as UNROLLED loops */
  rlx_var_t* c = VAR("c");
  s = unrolled(FOR(c, I32(100000), RLX_FOR_UNROLLED, ST(B_, E(c), I32(0))));
  CHECK(s && s->kind == RLX_STMT_FOR && RLX_AS(rlx_tir_for_t, s)->for_kind == RLX_FOR_UNROLLED);
  rlx_var_t *d = VAR("d"), *n = VAR("n");
  s = unrolled(FOR(d, E(n), RLX_FOR_UNROLLED, ST(B_, E(d), I32(0))));
  CHECK(s && s->kind == RLX_STMT_FOR);
}

/* The vector width is the target's: x86-64-v4 (16 int32 lanes) unless a case says. */
static void test_vectorize(void) {
  CHECK_OK(rlx_ctx_set_target_str(ctx_, "c -mcpu=x86-64-v4"));
  rlx_var_t* i = VAR("i");
  /* C[i] = A[i] + B[0] → C[Ramp(0,1,16)] = A[Ramp(0,1,16)] + Broadcast(B[0]) */
  rlx_tir_stmt_t* s = vectorized(FOR(i, I32(16), RLX_FOR_VECTORIZED, ST(C_, E(i), ADD(LD(A_, E(i)), LD(B_, I32(0))))));
  CHECK(s && s->kind == RLX_STMT_BUFFER_STORE);
  if (s && s->kind == RLX_STMT_BUFFER_STORE) {
    rlx_tir_store_t* st = RLX_AS(rlx_tir_store_t, s);
    CHECK(st->indices[0]->kind == RLX_EXPR_RAMP && RLX_AS(rlx_ramp_t, st->indices[0])->lanes == 16);
    CHECK(st->value->dtype.lanes == 16 && st->value->kind == RLX_EXPR_ADD);
    CHECK(RLX_AS(rlx_binary_t, st->value)->b->kind == RLX_EXPR_BROADCAST);
  }
  /* i*2 + 3 → Ramp(3, 2, 8) */
  rlx_var_t* j = VAR("j");
  s = vectorized(FOR(j, I32(8), RLX_FOR_VECTORIZED, ST(C_, ADD(MUL(E(j), I32(2)), I32(3)), I32(0))));
  CHECK(s && s->kind == RLX_STMT_BUFFER_STORE);
  if (s && s->kind == RLX_STMT_BUFFER_STORE) {
    rlx_expr_t* idx = RLX_AS(rlx_tir_store_t, s)->indices[0];
    int64_t b = -1, st = -1;
    CHECK(idx->kind == RLX_EXPR_RAMP && rlx_expr_is_const_int(rlx_ir_simplify(ctx_, RLX_AS(rlx_ramp_t, idx)->base), &b) &&
          rlx_expr_is_const_int(rlx_ir_simplify(ctx_, RLX_AS(rlx_ramp_t, idx)->stride), &st) && b == 3 && st == 2);
  }
  /* a store to a location invariant in the loop var (a reduction) keeps the loop */
  rlx_var_t* k = VAR("k");
  s = vectorized(FOR(k, I32(16), RLX_FOR_VECTORIZED, ST(C_, I32(0), ADD(LD(C_, I32(0)), LD(A_, E(k))))));
  CHECK(s && s->kind == RLX_STMT_FOR);
  /* extent 1: the body with the var replaced by min */
  rlx_var_t* u = VAR("u");
  s = vectorized(FOR(u, I32(1), RLX_FOR_VECTORIZED, ST(C_, ADD(E(u), I32(5)), I32(0))));
  CHECK(store_at_const(s, 5));
  /* wider than the target's vector (16 int32 lanes at x86-64-v4): extent 128 is 8 chunks of
   * 16 lanes in sequence (constant offsets), extent 512 a serial loop of 32 chunks */
  rlx_var_t* w = VAR("w");
  s = vectorized(FOR(w, I32(128), RLX_FOR_VECTORIZED, ST(C_, E(w), LD(A_, E(w)))));
  CHECK(s && s->kind == RLX_STMT_SEQ && RLX_AS(rlx_tir_seq_t, s)->n == 8);
  if (s && s->kind == RLX_STMT_SEQ) {
    rlx_tir_stmt_t* last = RLX_AS(rlx_tir_seq_t, s)->stmts[7];
    CHECK(last->kind == RLX_STMT_BUFFER_STORE);
    rlx_expr_t* idx = RLX_AS(rlx_tir_store_t, last)->indices[0];
    int64_t b;
    CHECK(idx->kind == RLX_EXPR_RAMP && RLX_AS(rlx_ramp_t, idx)->lanes == 16 &&
          rlx_expr_is_const_int(rlx_ir_simplify(ctx_, RLX_AS(rlx_ramp_t, idx)->base), &b) && b == 112);
  }
  rlx_var_t* w2 = VAR("w");
  s = vectorized(FOR(w2, I32(512), RLX_FOR_VECTORIZED, ST(C_, E(w2), LD(A_, E(w2)))));
  CHECK(s && s->kind == RLX_STMT_FOR && RLX_AS(rlx_tir_for_t, s)->for_kind == RLX_FOR_SERIAL);
  if (s && s->kind == RLX_STMT_FOR) {
    int64_t e;
    CHECK(rlx_expr_is_const_int(RLX_AS(rlx_tir_for_t, s)->extent, &e) && e == 32);
    CHECK(RLX_AS(rlx_tir_for_t, s)->body->kind == RLX_STMT_BUFFER_STORE);
  }
  /* x86-64-v3 (8 lanes of int32): the 16-lane loop of the first case is two 8-lane stores;
   * a float64 body counts 4 lanes */
  CHECK_OK(rlx_ctx_set_target_str(ctx_, "c -mcpu=x86-64-v3"));
  rlx_var_t* i3 = VAR("i");
  s = vectorized(FOR(i3, I32(16), RLX_FOR_VECTORIZED, ST(C_, E(i3), ADD(LD(A_, E(i3)), LD(B_, I32(0))))));
  CHECK(s && s->kind == RLX_STMT_SEQ && RLX_AS(rlx_tir_seq_t, s)->n == 2);
  if (s && s->kind == RLX_STMT_SEQ)
    for (int c = 0; c < 2; c++) {
      rlx_tir_stmt_t* part = RLX_AS(rlx_tir_seq_t, s)->stmts[c];
      CHECK(part->kind == RLX_STMT_BUFFER_STORE && RLX_AS(rlx_tir_store_t, part)->value->dtype.lanes == 8);
    }
  rlx_expr_t* n64 = I32(64);
  rlx_tir_buffer_t* D = param_buf("D", rlx_dt_float64(), 1, &n64);
  rlx_var_t* i4 = VAR("i");
  s = vectorized(FOR(i4, I32(8), RLX_FOR_VECTORIZED, ST(D, E(i4), rlx_ir_cast(ctx_, rlx_dt_float64(), LD(A_, E(i4))))));
  CHECK(s && s->kind == RLX_STMT_SEQ && RLX_AS(rlx_tir_seq_t, s)->n == 2);
  CHECK_OK(rlx_ctx_set_target_str(ctx_, "c -mcpu=x86-64-v4"));
  /* extent 3 is not a power of two: unchanged */
  rlx_var_t* t = VAR("t");
  s = vectorized(FOR(t, I32(3), RLX_FOR_VECTORIZED, ST(C_, E(t), I32(0))));
  CHECK(s && s->kind == RLX_STMT_FOR && RLX_AS(rlx_tir_for_t, s)->for_kind == RLX_FOR_VECTORIZED);
  /* tail guard: if (o*16 + v < n) → if (first && last lane) vector else loop */
  rlx_var_t *o = VAR("o"), *v = VAR("v"), *n = VAR("n");
  rlx_expr_t* idx = ADD(MUL(E(o), I32(16)), E(v));
  s = vectorized(FOR(v, I32(16), RLX_FOR_VECTORIZED,
                     rlx_tir_if(ctx_, rlx_ir_cmp(ctx_, RLX_EXPR_LT, idx, E(n)), ST(C_, idx, LD(A_, idx)), NULL)));
  CHECK(s && s->kind == RLX_STMT_IF);
  if (s && s->kind == RLX_STMT_IF) {
    CHECK(RLX_AS(rlx_tir_if_t, s)->then_case->kind == RLX_STMT_BUFFER_STORE);
    CHECK(RLX_AS(rlx_tir_if_t, s)->else_case && RLX_AS(rlx_tir_if_t, s)->else_case->kind == RLX_STMT_FOR);
  }
  /* fused index: (o*16 + v) // 64 is uniform over the lanes, (o*16 + v) % 64 a unit Ramp */
  rlx_var_t *o2 = VAR("o2"), *v2 = VAR("v2");
  rlx_expr_t* fused = ADD(MUL(E(o2), I32(16)), E(v2));
  rlx_expr_t* row = rlx_ir_floordiv(ctx_, fused, I32(64));
  rlx_expr_t* col = rlx_ir_floormod(ctx_, fused, I32(64));
  s = vectorized(FOR(v2, I32(16), RLX_FOR_VECTORIZED, ST(C_, fused, ADD(LD(A_, col), LD(B_, row)))));
  CHECK(s && s->kind == RLX_STMT_BUFFER_STORE);
  if (s && s->kind == RLX_STMT_BUFFER_STORE) {
    rlx_binary_t* add = RLX_AS(rlx_binary_t, RLX_AS(rlx_tir_store_t, s)->value);
    CHECK(add->a->kind == RLX_EXPR_BUFFER_LOAD && RLX_AS(rlx_buffer_load_t, add->a)->indices[0]->kind == RLX_EXPR_RAMP);
    CHECK(add->b->kind == RLX_EXPR_BROADCAST);
  }
  /* a non-monotonic condition keeps the loop */
  rlx_var_t* q = VAR("q");
  s = vectorized(FOR(q, I32(16), RLX_FOR_VECTORIZED,
                     rlx_tir_if(ctx_, rlx_ir_cmp(ctx_, RLX_EXPR_EQ, rlx_ir_floormod(ctx_, E(q), I32(2)), I32(0)),
                                ST(C_, E(q), I32(1)), NULL)));
  CHECK(s && s->kind == RLX_STMT_FOR);
}

static void test_pragmas(void) {
  /* leftover unrolled loop, nested parallel loops, leftover vectorized loop */
  rlx_var_t *a = VAR("a"), *b = VAR("b"), *c = VAR("c"), *d = VAR("d");
  rlx_tir_stmt_t* body =
      SEQ2(FOR(a, I32(4), RLX_FOR_PARALLEL, FOR(b, I32(4), RLX_FOR_PARALLEL, ST(C_, ADD(MUL(E(a), I32(4)), E(b)), I32(1)))),
           SEQ2(FOR(c, I32(1000), RLX_FOR_UNROLLED, ST(B_, E(c), I32(2))), FOR(d, I32(3), RLX_FOR_VECTORIZED, ST(A_, E(d), I32(3)))));
  rlx_tir_func_t* f = unroll_vectorize(func_of(body));
  char* src = NULL;
  CHECK_OK(rlx_codegen_c(ctx_, 1, &f, &src));
  if (!src) return;
  /* a loaded library: the outer parallel loop is outlined onto the pool, the nested one
   * became serial inside it */
  const char* p = strstr(src, "rlx_nn_parallel(rlx_pc.rlx_m_items");
  CHECK(p && !strstr(p + 1, "rlx_nn_parallel(rlx_pc.rlx_m_items") && strstr(src, "_par0(") && !strstr(src, "_par1("));
  CHECK(strstr(src, "#pragma omp") == NULL);
  CHECK(strstr(src, "#pragma GCC unroll 64") != NULL);
  CHECK(strstr(src, "#pragma GCC ivdep") != NULL);
  free(src);
  /* standalone code (Model Library Format) has no runtime: OpenMP, outer loop only */
  rlx_codegen_c_options_t so;
  memset(&so, 0, sizeof(so));
  so.standalone = true;
  src = NULL;
  CHECK_OK(rlx_codegen_c_ex(ctx_, 1, &f, &so, &src));
  if (!src) return;
  p = strstr(src, "#pragma omp parallel for");
  CHECK(p && !strstr(p + 1, "#pragma omp parallel for") && !strstr(src, "rlx_nn_parallel("));
  free(src);
}

int main(void) {
  ctx_ = rlx_ctx_create();
  rlx_expr_t* s = I32(4096);
  A_ = param_buf("A", rlx_dt_int32(), 1, &s);
  B_ = param_buf("B", rlx_dt_int32(), 1, &s);
  C_ = param_buf("C", rlx_dt_int32(), 1, &s);
  test_unroll();
  test_vectorize();
  test_pragmas();
  rlx_ctx_free(ctx_);
  TEST_MAIN_END();
}
