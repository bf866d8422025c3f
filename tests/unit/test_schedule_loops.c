/* Loop primitives: split (exact, inferred, non-divisible, symbolic), fuse, reorder, parallel /
 * vectorize / unroll: structure after simplification, numbers against the unscheduled function
 * through the interpreter, and errors for invalid uses. */
#include "test_schedule_util.h"

/* C[i, j] = A[i, j] + B[j] */
static rlx_expr_t* add_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  rlx_te_tensor_t** t = user;
  rlx_expr_t* i2[2] = {&ix[0]->hdr, &ix[1]->hdr};
  rlx_expr_t* i1[1] = {&ix[1]->hdr};
  return rlx_ir_add(ctx, rlx_te_load(ctx, t[0], 2, i2), rlx_te_load(ctx, t[1], 1, i1));
}

static rlx_tir_func_t* make_add(rlx_ctx_t* ctx, rlx_expr_t* m, int64_t n) {
  rlx_expr_t* s2[2] = {m, c64(ctx, n)};
  rlx_expr_t* s1[1] = {c64(ctx, n)};
  rlx_te_tensor_t** t = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, 2);
  t[0] = rlx_te_placeholder(ctx, 2, s2, rlx_dt_float32(), "A");
  t[1] = rlx_te_placeholder(ctx, 1, s1, rlx_dt_float32(), "B");
  rlx_te_tensor_t* c = rlx_te_compute(ctx, 2, s2, add_body, t, "C", "broadcast");
  rlx_te_tensor_t* args[3] = {t[0], t[1], c};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 3, args, "add", &f));
  return f;
}

static rlx_tir_block_realize_t* block(rlx_schedule_t* s, const char* name) {
  return rlx_tir_find_block(s->func->body, name);
}

static void test_split(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_tir_func_t* f = make_add(ctx, c64(ctx, 30), 50);
  tshape_t sh[3] = {{2, {30, 50}}, {1, {50}}, {2, {30, 50}}};
  rlx_schedule_t* s = rlx_schedule_create(ctx, f);
  rlx_var_t** loops;
  int n;
  CHECK_OK(rlx_sched_get_loops(s, "C", &loops, &n));
  CHECK(n == 2);
  /* exact split of i: 30 = 5 x 6, no predicate */
  int64_t fi[2] = {5, 6};
  rlx_var_t* li[2];
  CHECK_OK(rlx_sched_split(s, loops[0], 2, fi, li));
  rlx_tir_block_realize_t* br = block(s, "C");
  CHECK(br && br->predicate == NULL);
  CHECK_MSG(strcmp(expr_str(br->iter_values[0]), "((i_0 * 6) + i_1)") == 0, "%s", expr_str(br->iter_values[0]));
  /* inferred, non-divisible split of j: 50 → (4, 16) with predicate */
  int64_t fj[2] = {-1, 16};
  rlx_var_t* lj[2];
  CHECK_OK(rlx_sched_split(s, loops[1], 2, fj, lj));
  br = block(s, "C");
  CHECK(br && br->predicate != NULL);
  CHECK_MSG(strcmp(expr_str(br->iter_values[1]), "((j_0 * 16) + j_1)") == 0, "%s", expr_str(br->iter_values[1]));
  rlx_var_t** l2;
  CHECK_OK(rlx_sched_get_loops(s, "C", &l2, &n));
  CHECK(n == 4 && l2[0] == li[0] && l2[1] == li[1] && l2[2] == lj[0] && l2[3] == lj[1]);
  CHECK(compare_funcs(f, s->func, 3, sh, 2) == 0);
  /* three-way split */
  int64_t f3[3] = {2, -1, 2};
  CHECK_OK(rlx_sched_split(s, li[1], 3, f3, NULL));
  CHECK(compare_funcs(f, s->func, 3, sh, 2) == 0);
  /* errors */
  rlx_var_t* ghost = rlx_ir_var(ctx, "ghost", rlx_dt_int64());
  CHECK_ERR(rlx_sched_split(s, ghost, 2, fj, NULL), "ghost");
  int64_t bad[2] = {-1, -1};
  CHECK_ERR(rlx_sched_split(s, lj[0], 2, bad, NULL), "at most one");
  int64_t small[2] = {1, 2};
  CHECK_ERR(rlx_sched_split(s, lj[0], 2, small, NULL), "smaller than the extent");
  int64_t zero[2] = {0, 4};
  CHECK_ERR(rlx_sched_split(s, lj[0], 2, zero, NULL), "not positive");
  rlx_ctx_free(ctx);
}

static void test_split_symbolic(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_var_t* m = rlx_ir_var(ctx, "m", rlx_dt_int64());
  rlx_tir_func_t* f = make_add(ctx, &m->hdr, 20);
  rlx_schedule_t* s = rlx_schedule_create(ctx, f);
  rlx_var_t** loops;
  int n;
  CHECK_OK(rlx_sched_get_loops(s, "C", &loops, &n));
  int64_t fi[2] = {-1, 8};
  rlx_var_t* li[2];
  CHECK_OK(rlx_sched_split(s, loops[0], 2, fi, li));
  CHECK(block(s, "C")->predicate != NULL);
  for (int64_t mv = 1; mv <= 17; mv += 8) {
    tshape_t sh[3] = {{2, {mv, 20}}, {1, {20}}, {2, {mv, 20}}};
    CHECK_MSG(compare_funcs(f, s->func, 3, sh, 2) == 0, "m=%lld", (long long)mv);
  }
  rlx_ctx_free(ctx);
}

static void test_fuse_reorder(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_tir_func_t* f = make_add(ctx, c64(ctx, 12), 10);
  tshape_t sh[3] = {{2, {12, 10}}, {1, {10}}, {2, {12, 10}}};
  rlx_schedule_t* s = rlx_schedule_create(ctx, f);
  rlx_var_t** loops;
  int n;
  CHECK_OK(rlx_sched_get_loops(s, "C", &loops, &n));
  rlx_var_t* fused;
  CHECK_OK(rlx_sched_fuse(s, 2, loops, &fused));
  rlx_var_t** l2;
  CHECK_OK(rlx_sched_get_loops(s, "C", &l2, &n));
  CHECK(n == 1 && l2[0] == fused);
  rlx_tir_block_realize_t* br = block(s, "C");
  CHECK_MSG(strcmp(expr_str(br->iter_values[0]), "(i_j_fused // 10)") == 0, "%s", expr_str(br->iter_values[0]));
  CHECK_MSG(strcmp(expr_str(br->iter_values[1]), "(i_j_fused %% 10)") == 0, "%s", expr_str(br->iter_values[1]));
  CHECK(compare_funcs(f, s->func, 3, sh, 2) == 0);
  /* split the fused loop back and fuse with a three-level nest */
  int64_t fa[3] = {3, 4, 10};
  rlx_var_t* la[3];
  CHECK_OK(rlx_sched_split(s, fused, 3, fa, la));
  CHECK_OK(rlx_sched_reorder(s, 3, (rlx_var_t*[]){la[2], la[0], la[1]}));
  CHECK_OK(rlx_sched_get_loops(s, "C", &l2, &n));
  CHECK(n == 3 && l2[0] == la[2] && l2[1] == la[0] && l2[2] == la[1]);
  CHECK(compare_funcs(f, s->func, 3, sh, 2) == 0);
  rlx_var_t* f2;
  CHECK_OK(rlx_sched_fuse(s, 2, (rlx_var_t*[]){la[0], la[1]}, &f2));
  CHECK(compare_funcs(f, s->func, 3, sh, 2) == 0);
  /* errors: not nested / not adjacent */
  CHECK_ERR(rlx_sched_fuse(s, 2, (rlx_var_t*[]){f2, la[2]}, NULL), "perfectly nested");
  CHECK_ERR(rlx_sched_reorder(s, 2, (rlx_var_t*[]){f2, f2}), "twice");
  rlx_ctx_free(ctx);
}

static void test_annotations(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_tir_func_t* f = make_matmul(ctx, c64(ctx, 16), 24, 8, 0, false, false, false);
  tshape_t sh[3] = {{2, {16, 8}}, {2, {8, 24}}, {2, {16, 24}}};
  rlx_schedule_t* s = rlx_schedule_create(ctx, f);
  rlx_var_t** loops;
  int n;
  CHECK_OK(rlx_sched_get_loops(s, "C", &loops, &n));
  CHECK(n == 3);
  CHECK_OK(rlx_sched_parallel(s, loops[0]));
  CHECK_OK(rlx_sched_vectorize(s, loops[1]));
  CHECK_OK(rlx_sched_unroll(s, loops[2]));
  census_t c = census(s->func);
  CHECK(c.n_for[RLX_FOR_PARALLEL] == 1 && c.n_for[RLX_FOR_VECTORIZED] == 1 && c.n_for[RLX_FOR_UNROLLED] == 1);
  CHECK(compare_funcs(f, s->func, 3, sh, 2) == 0);
  CHECK_ERR(rlx_sched_parallel(s, loops[2]), "reduction iter var 'v_k' of block 'C'");
  CHECK_ERR(rlx_sched_vectorize(s, loops[2]), "reduction");
  /* reorder the reduction loop outermost: still the same result */
  rlx_schedule_t* s2 = rlx_schedule_create(ctx, f);
  CHECK_OK(rlx_sched_get_loops(s2, "C", &loops, &n));
  CHECK_OK(rlx_sched_reorder(s2, 2, (rlx_var_t*[]){loops[2], loops[0]}));
  rlx_var_t** l2;
  CHECK_OK(rlx_sched_get_loops(s2, "C", &l2, &n));
  CHECK(l2[0] == loops[2] && l2[1] == loops[1] && l2[2] == loops[0]);
  CHECK(compare_funcs(f, s2->func, 3, sh, 2) < 1e-5);
  rlx_ctx_free(ctx);
}

static void test_errors_across_blocks(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_tir_func_t* f = make_matmul(ctx, c64(ctx, 16), 16, 16, 0, false, false, true);
  rlx_schedule_t* s = rlx_schedule_create(ctx, f);
  rlx_var_t **lc, **lr;
  int nc, nr;
  CHECK_OK(rlx_sched_get_loops(s, "C", &lc, &nc));
  CHECK_OK(rlx_sched_get_loops(s, "R", &lr, &nr));
  CHECK_ERR(rlx_sched_reorder(s, 2, (rlx_var_t*[]){lc[0], lr[0]}), "one chain");
  CHECK_ERR(rlx_sched_fuse(s, 2, (rlx_var_t*[]){lc[0], lc[2]}, NULL), "perfectly nested");
  CHECK_ERR(rlx_sched_get_loops(s, "nope", &lc, &nc), "nope");
  rlx_ctx_free(ctx);
}

int main(void) {
  test_split();
  test_split_symbolic();
  test_fuse_reorder();
  test_annotations();
  test_errors_across_blocks();
  TEST_MAIN_END();
}
