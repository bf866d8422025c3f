/* Block primitives: compute_inline, reverse_compute_inline, cache_write, cache_read,
 * decompose_reduction, compute_at, reverse_compute_at: structure, numbers against the
 * unscheduled function (interpreter), errors. */
#include "test_schedule_util.h"

/* B = A * 2; C = B + 1 (B intermediate) */
static rlx_expr_t* dbl_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  rlx_expr_t* i[2] = {&ix[0]->hdr, &ix[1]->hdr};
  return rlx_ir_mul(ctx, rlx_te_load(ctx, user, 2, i), rlx_ir_float(ctx, rlx_dt_float32(), 2.0));
}
static rlx_expr_t* inc_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  rlx_expr_t* i[2] = {&ix[0]->hdr, &ix[1]->hdr};
  return rlx_ir_add(ctx, rlx_te_load(ctx, user, 2, i), rlx_ir_float(ctx, rlx_dt_float32(), 1.0));
}

static rlx_tir_func_t* make_chain(rlx_ctx_t* ctx, int64_t m, int64_t n) {
  rlx_expr_t* sh[2] = {c64(ctx, m), c64(ctx, n)};
  rlx_te_tensor_t* a = rlx_te_placeholder(ctx, 2, sh, rlx_dt_float32(), "A");
  rlx_te_tensor_t* b = rlx_te_compute(ctx, 2, sh, dbl_body, a, "B", "elemwise");
  rlx_te_tensor_t* c = rlx_te_compute(ctx, 2, sh, inc_body, b, "C", "elemwise");
  rlx_te_tensor_t* args[2] = {a, c};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 2, args, "chain", &f));
  return f;
}

static void test_compute_inline(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_tir_func_t* f = make_chain(ctx, 9, 7);
  tshape_t sh[2] = {{2, {9, 7}}, {2, {9, 7}}};
  rlx_schedule_t* s = rlx_schedule_create(ctx, f);
  CHECK_OK(rlx_sched_compute_inline(s, "B"));
  CHECK(rlx_tir_find_block(s->func->body, "B") == NULL);
  census_t c = census(s->func);
  CHECK(c.n_blocks == 2); /* root + C */
  rlx_tir_block_t* root = RLX_AS(rlx_tir_block_realize_t, s->func->body)->block;
  CHECK(root->n_alloc_buffers == 0);
  rlx_tir_block_realize_t* cb = rlx_tir_find_block(s->func->body, "C");
  CHECK(cb && cb->block->n_reads == 1 && strcmp(cb->block->reads[0].buffer->name, "A") == 0);
  CHECK(compare_funcs(f, s->func, 2, sh, 1) == 0);
  /* errors */
  CHECK_ERR(rlx_sched_compute_inline(s, "C"), "output buffer 'C'");
  CHECK_ERR(rlx_sched_compute_inline(s, "B"), "no block named 'B'");
  rlx_tir_func_t* mm = make_matmul(ctx, c64(ctx, 8), 8, 8, 0, false, false, true);
  rlx_schedule_t* s2 = rlx_schedule_create(ctx, mm);
  CHECK_ERR(rlx_sched_compute_inline(s2, "C"), "block 'C' is a reduction");
  rlx_ctx_free(ctx);
}

static void test_reverse_compute_inline(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_tir_func_t* f = make_chain(ctx, 5, 11);
  tshape_t sh[2] = {{2, {5, 11}}, {2, {5, 11}}};
  rlx_schedule_t* s = rlx_schedule_create(ctx, f);
  CHECK_OK(rlx_sched_reverse_compute_inline(s, "C"));
  CHECK(rlx_tir_find_block(s->func->body, "C") == NULL);
  rlx_tir_block_realize_t* bb = rlx_tir_find_block(s->func->body, "B");
  CHECK(bb && bb->block->n_writes == 1 && strcmp(bb->block->writes[0].buffer->name, "C") == 0);
  CHECK(compare_funcs(f, s->func, 2, sh, 1) == 0);
  rlx_tir_func_t* mm = make_matmul(ctx, c64(ctx, 8), 8, 8, 0, false, false, true);
  rlx_schedule_t* s2 = rlx_schedule_create(ctx, mm);
  CHECK_ERR(rlx_sched_reverse_compute_inline(s2, "R"), "reduction");
  CHECK_ERR(rlx_sched_reverse_compute_inline(s2, "C"), "block 'C' is a reduction");
  rlx_ctx_free(ctx);
}

static void test_cache_and_decompose(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_tir_func_t* f = make_matmul(ctx, c64(ctx, 12), 10, 6, 0, false, false, false);
  tshape_t sh[3] = {{2, {12, 6}}, {2, {6, 10}}, {2, {12, 10}}};
  rlx_schedule_t* s = rlx_schedule_create(ctx, f);
  const char* wb;
  CHECK_OK(rlx_sched_cache_write(s, "C", 0, "local", &wb));
  CHECK(wb && strcmp(wb, "C_local") == 0);
  CHECK(compare_funcs(f, s->func, 3, sh, 2) == 0);
  const char* rb;
  CHECK_OK(rlx_sched_cache_read(s, "C", 0, "global", &rb));
  CHECK(rb && strcmp(rb, "A_global") == 0);
  CHECK(compare_funcs(f, s->func, 3, sh, 2) == 0);
  rlx_var_t** loops;
  int n;
  CHECK_OK(rlx_sched_get_loops(s, "C", &loops, &n));
  CHECK(n == 3);
  const char* ib;
  CHECK_OK(rlx_sched_decompose_reduction(s, "C", loops[2], &ib));
  CHECK(ib && strcmp(ib, "C_init") == 0);
  CHECK(rlx_tir_find_block(s->func->body, "C")->block->init == NULL);
  CHECK(compare_funcs(f, s->func, 3, sh, 2) == 0);
  CHECK_ERR(rlx_sched_decompose_reduction(s, "C", loops[2], NULL), "has no init");
  CHECK_ERR(rlx_sched_cache_write(s, "C", 3, "local", NULL), "out of range");
  /* decompose at the outermost loop: init nest copies i, j */
  rlx_schedule_t* s2 = rlx_schedule_create(ctx, f);
  CHECK_OK(rlx_sched_get_loops(s2, "C", &loops, &n));
  CHECK_OK(rlx_sched_reorder(s2, 2, (rlx_var_t*[]){loops[2], loops[1]})); /* i, k, j */
  CHECK_ERR(rlx_sched_decompose_reduction(s2, "C", loops[1], NULL), "inside reduction loop");
  CHECK_OK(rlx_sched_decompose_reduction(s2, "C", loops[0], &ib));
  rlx_var_t** il;
  CHECK_OK(rlx_sched_get_loops(s2, ib, &il, &n));
  CHECK(n == 2);
  CHECK(compare_funcs(f, s2->func, 3, sh, 2) == 0);
  rlx_ctx_free(ctx);
}

static void test_compute_at(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_tir_func_t* f = make_chain(ctx, 16, 12);
  tshape_t sh[2] = {{2, {16, 12}}, {2, {16, 12}}};
  rlx_schedule_t* s = rlx_schedule_create(ctx, f);
  rlx_var_t** lc;
  int n;
  CHECK_OK(rlx_sched_get_loops(s, "C", &lc, &n));
  int64_t fi[2] = {-1, 4};
  rlx_var_t* li[2];
  CHECK_OK(rlx_sched_split(s, lc[0], 2, fi, li));
  CHECK_OK(rlx_sched_compute_at(s, "B", li[0]));
  rlx_var_t** lb;
  CHECK_OK(rlx_sched_get_loops(s, "B", &lb, &n));
  CHECK_MSG(n == 3 && lb[0] == li[0], "n=%d", n);
  CHECK(compare_funcs(f, s->func, 2, sh, 1) == 0);
  /* error: block already under the loop */
  CHECK_ERR(rlx_sched_compute_at(s, "B", li[0]), "already under loop");
  rlx_ctx_free(ctx);
}

static void test_reverse_compute_at(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_tir_func_t* f = make_matmul(ctx, c64(ctx, 20), 24, 8, 0, false, false, true);
  tshape_t sh[3] = {{2, {20, 8}}, {2, {8, 24}}, {2, {20, 24}}};
  rlx_schedule_t* s = rlx_schedule_create(ctx, f);
  rlx_var_t** lc;
  int n;
  CHECK_OK(rlx_sched_get_loops(s, "C", &lc, &n));
  int64_t fi[2] = {-1, 8};
  rlx_var_t* li[2];
  CHECK_OK(rlx_sched_split(s, lc[0], 2, fi, li)); /* 20 = 3 x 8 with a tail */
  CHECK_OK(rlx_sched_reverse_compute_at(s, "R", li[0]));
  rlx_var_t** lr;
  CHECK_OK(rlx_sched_get_loops(s, "R", &lr, &n));
  CHECK_MSG(n == 3 && lr[0] == li[0], "n=%d", n);
  CHECK(compare_funcs(f, s->func, 3, sh, 2) == 0);
  /* cache_write + reverse_compute_at of the write-back into the tile */
  rlx_schedule_t* s2 = rlx_schedule_create(ctx, f);
  CHECK_OK(rlx_sched_get_loops(s2, "C", &lc, &n));
  const char* wb;
  CHECK_OK(rlx_sched_cache_write(s2, "C", 0, "local", &wb));
  CHECK_OK(rlx_sched_reverse_compute_at(s2, wb, lc[1]));
  CHECK(compare_funcs(f, s2->func, 3, sh, 2) == 0);
  CHECK_ERR(rlx_sched_reverse_compute_at(s2, "R", lc[2]), "not every producer");
  rlx_ctx_free(ctx);
}


/* The register-tile matmul schedule written with primitives, as one would in TVM. */
static void test_tvm_style_matmul(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_tir_func_t* f = make_matmul(ctx, c64(ctx, 64), 64, 48, 0, false, false, true);
  tshape_t sh[3] = {{2, {64, 48}}, {2, {48, 64}}, {2, {64, 64}}};
  rlx_schedule_t* s = rlx_schedule_create(ctx, f);
  rlx_var_t** l;
  int n;
  CHECK_OK(rlx_sched_get_loops(s, "C", &l, &n));
  rlx_var_t *i = l[0], *j = l[1], *k = l[2];
  rlx_var_t *io_ii[2], *jo_ji[2], *jv_jl[2];
  CHECK_OK(rlx_sched_split(s, i, 2, (int64_t[]){-1, 8}, io_ii));
  CHECK_OK(rlx_sched_split(s, j, 2, (int64_t[]){-1, 32}, jo_ji));
  CHECK_OK(rlx_sched_split(s, jo_ji[1], 2, (int64_t[]){2, 16}, jv_jl));
  CHECK_OK(rlx_sched_reorder(s, 6, (rlx_var_t*[]){io_ii[0], jo_ji[0], k, io_ii[1], jv_jl[0], jv_jl[1]}));
  const char* wb;
  CHECK_OK(rlx_sched_cache_write(s, "C", 0, "local", &wb));
  CHECK_OK(rlx_sched_reverse_compute_at(s, wb, jo_ji[0]));
  CHECK_OK(rlx_sched_reverse_compute_inline(s, "R"));
  CHECK_OK(rlx_sched_unroll(s, io_ii[1]));
  CHECK_OK(rlx_sched_unroll(s, jv_jl[0]));
  CHECK_OK(rlx_sched_vectorize(s, jv_jl[1]));
  const char* ib;
  CHECK_OK(rlx_sched_decompose_reduction(s, "C", k, &ib));
  CHECK_OK(rlx_sched_parallel(s, io_ii[0]));
  rlx_var_t** wl;
  CHECK_OK(rlx_sched_get_loops(s, wb, &wl, &n));
  CHECK(n == 4 && wl[0] == io_ii[0] && wl[1] == jo_ji[0]);
  census_t c = census(s->func);
  CHECK(c.n_for[RLX_FOR_UNROLLED] == 4 && c.n_for[RLX_FOR_VECTORIZED] == 2 && c.n_for[RLX_FOR_PARALLEL] == 1);
  double d = compare_funcs(f, s->func, 3, sh, 2);
  CHECK_MSG(d >= 0 && d < 1e-4, "tvm-style matmul diff %g", d);
  /* shrink the whole-size local cache to the 8 x 32 tile of one jo iteration */
  CHECK_OK(rlx_sched_compact_buffer(s, "C_local"));
  CHECK_OK(rlx_sched_get_loops(s, wb, &wl, &n));
  CHECK_OK(rlx_sched_unroll(s, wl[2]));
  CHECK_OK(rlx_sched_vectorize(s, wl[3]));
  if (getenv("RLX_SCHED_DUMP")) dump_func(s->func);
  CHECK(RLX_AS(rlx_tir_block_realize_t, s->func->body)->block->n_alloc_buffers == 0);
  d = compare_funcs(f, s->func, 3, sh, 2);
  CHECK_MSG(d >= 0 && d < 1e-4, "compacted tvm-style matmul diff %g", d);
  CHECK_ERR(rlx_sched_compact_buffer(s, "C_local"), "no block allocates");
  rlx_ctx_free(ctx);
}


static rlx_expr_t* dbl1_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  rlx_expr_t* i[1] = {&ix[0]->hdr};
  return rlx_ir_mul(ctx, rlx_te_load(ctx, user, 1, i), rlx_ir_float(ctx, rlx_dt_float32(), 2.0));
}

/* Y (5) = X[0:5] + 1 with X (10) = 2A: the consumer reads part of X */
static void test_partial_errors(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* s10[1] = {c64(ctx, 10)};
  rlx_expr_t* s5[1] = {c64(ctx, 5)};
  rlx_te_tensor_t* a = rlx_te_placeholder(ctx, 1, s10, rlx_dt_float32(), "A");
  rlx_te_tensor_t* x = rlx_te_compute(ctx, 1, s10, dbl1_body, a, "X", "elemwise");
  rlx_te_tensor_t* y = rlx_te_compute(ctx, 1, s5, dbl1_body, x, "Y", "elemwise");
  rlx_te_tensor_t* args[2] = {a, y};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 2, args, "slice", &f));
  rlx_schedule_t* s = rlx_schedule_create(ctx, f);
  CHECK_ERR(rlx_sched_reverse_compute_inline(s, "Y"), "must read all of 'X'");
  /* compute_inline is fine: Y reads X at its own index */
  CHECK_OK(rlx_sched_compute_inline(s, "X"));
  tshape_t sh[2] = {{1, {10}}, {1, {5}}};
  CHECK(compare_funcs(f, s->func, 2, sh, 1) == 0);
  rlx_ctx_free(ctx);
}

int main(void) {
  test_compute_inline();
  test_reverse_compute_inline();
  test_cache_and_decompose();
  test_compute_at();
  test_reverse_compute_at();
  test_tvm_style_matmul();
  test_partial_errors();
  TEST_MAIN_END();
}
