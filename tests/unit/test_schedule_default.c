/* The default CPU schedule: numbers against the unscheduled function (interpreter) for
 * matmuls (square, non-divisible, +relu, batched, shared-weight batched, transposed B,
 * symbolic M, small), broadcasting add, row and column sums; the structure of the matmul
 * kernel; attributes. Every case runs for explicit targets (x86-64-v4, x86-64-v3, and a
 * subset for x86-64-v2 and aarch64), so the expected IR never depends on the CPU the tests
 * run on; compiled code runs where the CPU can (else it is only compiled: a cross compiler
 * for aarch64), and no vector in it is wider than the target's. With RLX_SCHED_BENCH=1 it
 * also compiles a 1024^3 matmul through rlx_build_module and prints GFLOPS for 1 and 2
 * threads. */
#include <time.h>

#include "build/build.h"
#include "codegen/codegen.h"
#include "driver/driver.h"
#include "script/script.h"
#include "test_schedule_util.h"
#include "topi/nn.h"

static double compare_compiled(rlx_ctx_t* ctx, rlx_tir_func_t* f, int n, tshape_t* shapes, int n_in);

/* The target the cases schedule for (main runs them for each). */
static const char* target_ = "c -mcpu=x86-64-v4";

/* A context for target_. */
static rlx_ctx_t* tctx(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  CHECK_OK(rlx_ctx_set_target_str(ctx, target_));
  return ctx;
}

static rlx_tir_func_t* sched(rlx_ctx_t* ctx, const rlx_tir_func_t* f) {
  rlx_tir_func_t* g = NULL;
  CHECK_OK(rlx_tir_default_schedule(ctx, f, &g));
  if (getenv("RLX_SCHED_DUMP") && g) dump_func(g);
  return g;
}

static bool scheduled_attr(const rlx_tir_func_t* g) {
  rlx_expr_t* v = rlx_tir_func_get_attr(g, "tir.is_scheduled");
  int64_t x;
  return v && rlx_expr_is_const_int(v, &x) && x == 1;
}

static void check_mm(int64_t m, int64_t n, int64_t k, int batch, bool trans_b, bool b_batched, bool relu,
                     bool expect_kernel) {
  rlx_ctx_t* ctx = tctx();
  rlx_tir_func_t* f = make_matmul(ctx, c64(ctx, m), n, k, batch, trans_b, b_batched, relu);
  rlx_tir_func_t* g = sched(ctx, f);
  CHECK(g && scheduled_attr(g));
  bool kernel = rlx_tir_find_block(g->body, "C_update") != NULL;
  CHECK_MSG(kernel == expect_kernel, "%lldx%lldx%lld: kernel=%d", (long long)m, (long long)n, (long long)k, kernel);
  if (relu && kernel) CHECK(rlx_tir_find_block(g->body, "R") == NULL); /* folded into C_store */
  tshape_t sh[3];
  int nb = batch ? 1 : 0;
  sh[0].ndim = 2 + nb;
  sh[1].ndim = 2 + (nb && b_batched);
  sh[2].ndim = 2 + nb;
  if (nb) sh[0].shape[0] = sh[2].shape[0] = batch;
  if (nb && b_batched) sh[1].shape[0] = batch;
  sh[0].shape[nb] = m;
  sh[0].shape[nb + 1] = k;
  sh[1].shape[sh[1].ndim - 2] = trans_b ? n : k;
  sh[1].shape[sh[1].ndim - 1] = trans_b ? k : n;
  sh[2].shape[nb] = m;
  sh[2].shape[nb + 1] = n;
  double d = compare_funcs(f, g, 3, sh, 2);
  CHECK_MSG(d >= 0 && d < 1e-4, "%lldx%lldx%lld batch=%d trans=%d relu=%d: diff %g", (long long)m, (long long)n,
            (long long)k, batch, trans_b, relu, d);
  rlx_ctx_free(ctx);
}

static void test_matmuls(void) {
  check_mm(64, 64, 64, 0, false, false, false, true);
  check_mm(100, 70, 90, 0, false, false, false, true);
  check_mm(128, 96, 80, 0, false, false, true, true);
  check_mm(200, 64, 72, 0, false, false, true, true); /* row blocks of 64 with a tail */
  check_mm(67, 64, 64, 2, false, true, false, true);
  check_mm(64, 80, 64, 3, false, false, true, true);
  check_mm(72, 100, 64, 0, true, false, false, true);
  /* any size: masked tails, row tiles of M when M < 8, 16-wide panels when N <= 16 */
  check_mm(8, 8, 8, 0, false, false, false, true);
  check_mm(64, 16, 64, 0, false, false, true, true);
  check_mm(1, 40, 33, 0, false, false, true, true);
  check_mm(3, 5, 7, 2, false, true, false, true);
  check_mm(13, 200, 24, 0, true, false, false, true);
  /* B >= 128 KB: the next panel is prefetched (the interpreter skips the hint) */
  check_mm(72, 256, 160, 0, false, false, true, true);
  check_mm(100, 200, 200, 0, true, false, false, true);
}

/* The scheduled f's text has the prefetch of the next panel of B (the element expression
 * `want`, NULL: any) or none. Printed and parsed back, the text is the same. */
static void check_prefetch(rlx_ctx_t* ctx, const rlx_tir_func_t* g, bool expect, const char* want) {
  char* text = rlx_script_print_tir_func(g);
  CHECK(text);
  const char* pf = strstr(text, "T.prefetch(T.address_of(");
  CHECK_MSG((pf != NULL) == expect, "%s: prefetch %s expected", g->name, expect ? "" : "not");
  if (pf && want) CHECK_MSG(strstr(pf, want) == pf + strlen("T.prefetch(T.address_of("), "got %.300s", pf);
  if (pf) CHECK(strstr(pf, "), 0, 2, 1)") != NULL);
  rlx_module_t* m = NULL;
  rlx_status_t* st = rlx_script_parse(ctx, text, "prefetch.py", &m);
  CHECK_MSG(!st, "parse back: %s", st ? rlx_status_message(st) : "");
  rlx_status_free(st);
  if (m) {
    rlx_tir_func_t* h = rlx_module_get_prim_func(m, g->name);
    char* again = h ? rlx_script_print_tir_func(h) : NULL;
    CHECK(again && strcmp(again, text) == 0);
    free(again);
  }
  free(text);
}

/* The kernel's structure for AVX-512 (8 x 32 tiles, 16 lanes, 1 MB L2 of x86-64-v4). */
static void test_matmul_structure(void) {
  rlx_ctx_t* ctx = tctx();
  rlx_tir_func_t* f = make_matmul(ctx, c64(ctx, 64), 64, 64, 0, false, false, false);
  rlx_tir_func_t* g = sched(ctx, f);
  census_t c = census(g);
  CHECK(c.n_for[RLX_FOR_PARALLEL] == 0);   /* 64^3: too small for threads */
  CHECK(c.n_for[RLX_FOR_VECTORIZED] == 3); /* init, update, store: B (16 KB) is read in place */
  CHECK(c.n_for[RLX_FOR_UNROLLED] == 6);
  CHECK(c.n_pred == 0); /* divisible: no tails */
  rlx_tir_block_realize_t* tile = rlx_tir_find_block(g->body, "C_tile");
  CHECK(tile && tile->block->n_alloc_buffers == 1 && strcmp(tile->block->alloc_buffers[0]->scope, "local") == 0);
  rlx_tir_block_t* root = RLX_AS(rlx_tir_block_realize_t, g->body)->block;
  CHECK(root->n_alloc_buffers == 0);
  /* already scheduled: unchanged */
  rlx_tir_func_t* h = NULL;
  CHECK_OK(rlx_tir_default_schedule(ctx, g, &h));
  CHECK(h == g);
  rlx_tir_func_t* f2 = rlx_tir_func_with_attr(ctx, f, "rlx.no_default_schedule", rlx_ir_bool(ctx, true));
  CHECK_OK(rlx_tir_default_schedule(ctx, f2, &h));
  CHECK(h == f2);
  /* 256 x 128 x 64: row blocks in parallel, the 8K-element pack serial */
  f = make_matmul(ctx, c64(ctx, 256), 128, 64, 0, false, false, false);
  g = sched(ctx, f);
  CHECK(census(g).n_for[RLX_FOR_PARALLEL] == 1);
  check_prefetch(ctx, g, false, NULL); /* B of 32 KB stays in L2 */
  /* 256 x 512 x 256: B (512 KB) read in place, one parallel loop over row blocks x panels;
   * every k step prefetches one line of the next tile's panel (16 panels, 8 row tiles per
   * block: element (ib*256 + k) * 32 // 8 of it, row-major in B) */
  f = make_matmul(ctx, c64(ctx, 256), 512, 256, 0, false, false, false);
  g = sched(ctx, f);
  CHECK(census(g).n_for[RLX_FOR_PARALLEL] == 1 && !rlx_tir_find_block(g->body, "B_pack"));
  check_prefetch(ctx, g, true, "B[(ib * T.int64(256) + k) * T.int64(32) // T.int64(8) // T.int64(32), (tile % T.int64(16) + "
                 "T.int64(1)) % T.int64(16) * T.int64(32) + (ib * T.int64(256) + k) * T.int64(32) // T.int64(8) % "
                 "T.int64(32)]");
  /* M = 8 (one row tile per panel) and one panel (N = 32): nothing to prefetch ahead */
  check_prefetch(ctx, sched(ctx, make_matmul(ctx, c64(ctx, 8), 512, 256, 0, false, false, false)), false, NULL);
  check_prefetch(ctx, sched(ctx, make_matmul(ctx, c64(ctx, 256), 32, 2048, 0, false, false, false)), false, NULL);
  /* 256 x 1024 x 1024: B (4 MB) packed, in parallel too */
  f = make_matmul(ctx, c64(ctx, 256), 1024, 1024, 0, false, false, false);
  g = sched(ctx, f);
  CHECK(census(g).n_for[RLX_FOR_PARALLEL] == 2 && rlx_tir_find_block(g->body, "B_pack"));
  root = RLX_AS(rlx_tir_block_realize_t, g->body)->block;
  CHECK(root->n_alloc_buffers == 1 && strcmp(root->alloc_buffers[0]->name, "B_packed") == 0);
  check_prefetch(ctx, g, true, "B_packed[");
  rlx_ctx_free(ctx);
}

/* The register tile of target_: C_local is MR x NR, the tile's vectorized loops have the
 * target's lanes. */
static void check_tile(int64_t m, int64_t n, int64_t k, int want_mr, int want_nr, int want_lanes) {
  rlx_ctx_t* ctx = tctx();
  rlx_tir_func_t* g = sched(ctx, make_matmul(ctx, c64(ctx, m), n, k, 0, false, false, false));
  rlx_tir_block_realize_t* tile = rlx_tir_find_block(g->body, "C_tile");
  int64_t mr = -1, nr = -1, lanes = -1;
  if (tile && tile->block->n_alloc_buffers == 1 && tile->block->alloc_buffers[0]->ndim == 2) {
    rlx_expr_is_const_int(tile->block->alloc_buffers[0]->shape[0], &mr);
    rlx_expr_is_const_int(tile->block->alloc_buffers[0]->shape[1], &nr);
  }
  rlx_tir_stmt_t* st = tile ? tile->block->body : NULL;
  while (st && st->kind == RLX_STMT_SEQ) st = RLX_AS(rlx_tir_seq_t, st)->stmts[0];
  while (st && st->kind == RLX_STMT_FOR && RLX_AS(rlx_tir_for_t, st)->for_kind != RLX_FOR_VECTORIZED)
    st = RLX_AS(rlx_tir_for_t, st)->body;
  if (st && st->kind == RLX_STMT_FOR) rlx_expr_is_const_int(RLX_AS(rlx_tir_for_t, st)->extent, &lanes);
  CHECK_MSG(mr == want_mr && nr == want_nr && lanes == want_lanes,
            "%s %lldx%lldx%lld: tile %lldx%lld of %lld lanes, expected %dx%d of %d", target_, (long long)m, (long long)n,
            (long long)k, (long long)mr, (long long)nr, (long long)lanes, want_mr, want_nr, want_lanes);
  rlx_ctx_free(ctx);
}

/* The tile tables (machine.c) per ISA; with AVX2 the tile that pads least. */
static void test_matmul_tiles(void) {
  const char* saved = target_;
  target_ = "c -mcpu=x86-64-v4";
  check_tile(64, 64, 64, 8, 32, 16);
  check_tile(5, 16, 64, 5, 16, 16); /* fewer rows and columns than the tile */
  check_tile(1, 128, 784, 1, 128, 16); /* a GEMV: the 16 accumulators in one row */
  target_ = "c -mcpu=znver3";      /* AVX2 + FMA */
  check_tile(64, 64, 64, 6, 16, 8);
  check_tile(1024, 1024, 1024, 6, 16, 8);
  check_tile(16, 1024, 784, 4, 24, 8); /* 16 rows: 4 tiles of 4, not 3 of 6 */
  check_tile(128, 768, 256, 6, 16, 8); /* 2 padded rows cost less than 4x24's speed */
  check_tile(1, 128, 784, 1, 64, 8);   /* a GEMV: 8 of the 12 accumulators (12 would pad N) */
  check_tile(2, 128, 784, 2, 32, 8);   /* 2 rows x 4 vectors (5 fit the registers, but pad N) */
  target_ = "c -mcpu=x86-64-v2";      /* SSE, no FMA */
  check_tile(64, 64, 64, 4, 8, 4);
  target_ = "c -mtriple=aarch64-linux-gnu"; /* NEON */
  check_tile(64, 96, 64, 8, 12, 4);
  target_ = "c -mcpu=x86-64-v3";
  /* 256 x 512 x 256 at v3 (L2 512 KB): B (512 KB) read in place, every k step prefetches one
   * line of the next tile's panel (32 panels of 16, 8 row tiles of 6 per block) */
  rlx_ctx_t* ctx = tctx();
  rlx_tir_func_t* g = sched(ctx, make_matmul(ctx, c64(ctx, 256), 512, 256, 0, false, false, false));
  CHECK(census(g).n_for[RLX_FOR_PARALLEL] == 1 && !rlx_tir_find_block(g->body, "B_pack"));
  check_prefetch(ctx, g, true, "B[(ib * T.int64(256) + k) * T.int64(16) // T.int64(8) // T.int64(16), (tile % T.int64(32) + "
                 "T.int64(1)) % T.int64(32) * T.int64(16) + (ib * T.int64(256) + k) * T.int64(16) // T.int64(8) % "
                 "T.int64(16)]");
  /* 256 x 1024 x 1024: B (4 MB, more than twice L2) packed */
  g = sched(ctx, make_matmul(ctx, c64(ctx, 256), 1024, 1024, 0, false, false, false));
  CHECK(rlx_tir_find_block(g->body, "B_pack") != NULL);
  rlx_ctx_free(ctx);
  target_ = saved;
}

static void test_symbolic_m(void) {
  rlx_ctx_t* ctx = tctx();
  rlx_var_t* n = rlx_ir_var(ctx, "n", rlx_dt_int64());
  rlx_tir_func_t* f = make_matmul(ctx, &n->hdr, 96, 128, 0, false, false, true);
  rlx_tir_func_t* g = sched(ctx, f);
  CHECK(rlx_tir_find_block(g->body, "C_update") != NULL);
  int64_t ms[4] = {1, 8, 37, 70};
  for (int i = 0; i < 4; i++) {
    tshape_t sh[3] = {{2, {ms[i], 128}}, {2, {128, 96}}, {2, {ms[i], 96}}};
    double d = compare_funcs(f, g, 3, sh, 2);
    CHECK_MSG(d >= 0 && d < 1e-4, "n=%lld diff %g", (long long)ms[i], d);
  }
  rlx_ctx_free(ctx);
}

/* ------------------------------------------------------------------ elementwise / reductions */
static rlx_expr_t* badd_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  rlx_te_tensor_t** t = user;
  rlx_expr_t* i2[2] = {&ix[0]->hdr, &ix[1]->hdr};
  rlx_expr_t* i1[1] = {&ix[1]->hdr};
  return rlx_ir_add(ctx, rlx_te_load(ctx, t[0], 2, i2), rlx_te_load(ctx, t[1], 1, i1));
}

static void check_add(int64_t m, int64_t n, bool expect_parallel, bool expect_vector) {
  rlx_ctx_t* ctx = tctx();
  rlx_expr_t* s2[2] = {c64(ctx, m), c64(ctx, n)};
  rlx_expr_t* s1[1] = {c64(ctx, n)};
  rlx_te_tensor_t* t[2] = {rlx_te_placeholder(ctx, 2, s2, rlx_dt_float32(), "A"),
                           rlx_te_placeholder(ctx, 1, s1, rlx_dt_float32(), "B")};
  rlx_te_tensor_t* c = rlx_te_compute(ctx, 2, s2, badd_body, t, "C", "broadcast");
  rlx_te_tensor_t* args[3] = {t[0], t[1], c};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 3, args, "badd", &f));
  rlx_tir_func_t* g = sched(ctx, f);
  census_t cs = census(g);
  CHECK_MSG((cs.n_for[RLX_FOR_PARALLEL] == 1) == expect_parallel, "%lldx%lld parallel", (long long)m, (long long)n);
  CHECK_MSG((cs.n_for[RLX_FOR_VECTORIZED] == 1) == expect_vector, "%lldx%lld vector", (long long)m, (long long)n);
  tshape_t sh[3] = {{2, {m, n}}, {1, {n}}, {2, {m, n}}};
  CHECK(compare_funcs(f, g, 3, sh, 2) == 0);
  CHECK_MSG(compare_compiled(ctx, f, 3, sh, 2) == 0, "compiled add %lldx%lld", (long long)m, (long long)n);
  rlx_ctx_free(ctx);
}


/* Both dims symbolic: the vectorized inner loop has a tail predicate. */
static void test_add_symbolic(void) {
  rlx_ctx_t* ctx = tctx();
  rlx_var_t* mv = rlx_ir_var(ctx, "m", rlx_dt_int64());
  rlx_var_t* nv = rlx_ir_var(ctx, "n", rlx_dt_int64());
  rlx_expr_t* s2[2] = {&mv->hdr, &nv->hdr};
  rlx_expr_t* s1[1] = {&nv->hdr};
  rlx_te_tensor_t* t[2] = {rlx_te_placeholder(ctx, 2, s2, rlx_dt_float32(), "A"),
                           rlx_te_placeholder(ctx, 1, s1, rlx_dt_float32(), "B")};
  rlx_te_tensor_t* c = rlx_te_compute(ctx, 2, s2, badd_body, t, "C", "broadcast");
  rlx_te_tensor_t* args[3] = {t[0], t[1], c};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 3, args, "badd_sym", &f));
  rlx_tir_func_t* g = sched(ctx, f);
  int64_t dims[3][2] = {{3, 5}, {17, 33}, {1, 64}};
  for (int i = 0; i < 3; i++) {
    tshape_t sh[3] = {{2, {dims[i][0], dims[i][1]}}, {1, {dims[i][1]}}, {2, {dims[i][0], dims[i][1]}}};
    CHECK(compare_funcs(f, g, 3, sh, 2) == 0);
    CHECK_MSG(compare_compiled(ctx, f, 3, sh, 2) == 0, "compiled symbolic add %lldx%lld", (long long)dims[i][0],
              (long long)dims[i][1]);
  }
  rlx_ctx_free(ctx);
}

typedef struct {
  rlx_te_tensor_t* a;
  rlx_iter_var_t* r;
  int axis;
  bool max;
} sum_t;
static rlx_expr_t* sum_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  sum_t* s = user;
  rlx_expr_t* i[2];
  i[s->axis] = &s->r->var->hdr;
  i[1 - s->axis] = &ix[0]->hdr;
  if (s->max) return rlx_te_max(ctx, rlx_te_load(ctx, s->a, 2, i), 1, &s->r);
  return rlx_te_sum(ctx, rlx_te_load(ctx, s->a, 2, i), 1, &s->r);
}

static void check_sum(int64_t m, int64_t n, int axis, bool expect_vector, bool max) {
  rlx_ctx_t* ctx = tctx();
  rlx_expr_t* s2[2] = {c64(ctx, m), c64(ctx, n)};
  sum_t* su = RLX_NEW(ctx, sum_t);
  su->a = rlx_te_placeholder(ctx, 2, s2, rlx_dt_float32(), "A");
  su->axis = axis;
  su->max = max;
  su->r = rlx_te_reduce_axis(ctx, c64(ctx, 0), s2[axis], "r");
  rlx_expr_t* so[1] = {s2[1 - axis]};
  rlx_te_tensor_t* c = rlx_te_compute(ctx, 1, so, sum_body, su, "S", "reduce");
  rlx_te_tensor_t* args[2] = {su->a, c};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 2, args, "sum", &f));
  rlx_tir_func_t* g = sched(ctx, f);
  census_t cs = census(g);
  CHECK_MSG((cs.n_for[RLX_FOR_VECTORIZED] > 0) == expect_vector, "sum axis %d vector", axis);
  tshape_t sh[2] = {{2, {m, n}}, {1, {s2[1 - axis] == s2[0] ? m : n}}};
  double d = compare_funcs(f, g, 2, sh, 1);
  CHECK_MSG(d >= 0 && d < 1e-4, "sum axis %d diff %g", axis, d);
  d = compare_compiled(ctx, f, 2, sh, 1);
  CHECK_MSG(d >= 0 && d < 1e-4, "compiled sum axis %d diff %g", axis, d);
  rlx_ctx_free(ctx);
}

static void test_elementwise_reduction(void) {
  check_add(300, 260, true, true);   /* 260 = 4 x 65: 4 lanes */
  check_add(300, 250, true, false);  /* 250: no lane count >= 4 divides it */
  check_add(300, 256, true, true);
  check_add(20, 48, false, true);
  check_add(7, 3, false, false);
  check_sum(130, 70, 1, false, false); /* row sum, 70 not a multiple of 16: scalar */
  check_sum(130, 128, 1, true, false); /* row sum: 16 partial sums in a vector */
  check_sum(33, 256, 1, true, true);   /* row max */
  check_sum(70, 128, 0, true, false);  /* column sum: vectorized across columns */
}



/* ------------------------------------------------------------------ inlining */
static rlx_expr_t* scale_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  rlx_expr_t* i[2] = {&ix[0]->hdr, &ix[1]->hdr};
  return rlx_ir_mul(ctx, rlx_te_load(ctx, user, 2, i), rlx_ir_float(ctx, rlx_dt_float32(), 2.0));
}
typedef struct {
  rlx_te_tensor_t *a, *b;
  rlx_iter_var_t* k;
} mm2_t;
static rlx_expr_t* mm2_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  mm2_t* m = user;
  rlx_expr_t* ia[2] = {&ix[0]->hdr, &m->k->var->hdr};
  rlx_expr_t* ib[2] = {&m->k->var->hdr, &ix[1]->hdr};
  return rlx_te_sum(ctx, rlx_ir_mul(ctx, rlx_te_load(ctx, m->a, 2, ia), rlx_te_load(ctx, m->b, 2, ib)), 1, &m->k);
}

static void test_inline(void) {
  rlx_ctx_t* ctx = tctx();
  /* A -> S = 2A -> T = 2S (output): S is inlined */
  rlx_expr_t* sh2[2] = {c64(ctx, 64), c64(ctx, 64)};
  rlx_te_tensor_t* a = rlx_te_placeholder(ctx, 2, sh2, rlx_dt_float32(), "A");
  rlx_te_tensor_t* sc = rlx_te_compute(ctx, 2, sh2, scale_body, a, "S", "elemwise");
  rlx_te_tensor_t* t2 = rlx_te_compute(ctx, 2, sh2, scale_body, sc, "T", "elemwise");
  rlx_te_tensor_t* args[2] = {a, t2};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 2, args, "chain", &f));
  rlx_tir_func_t* g = sched(ctx, f);
  CHECK(rlx_tir_find_block(g->body, "S") == NULL && rlx_tir_find_block(g->body, "T") != NULL);
  tshape_t sh[2] = {{2, {64, 64}}, {2, {64, 64}}};
  CHECK(compare_funcs(f, g, 2, sh, 1) == 0);
  /* S = 2A feeding a matmul: kept, so that the matmul kernel still applies */
  mm2_t* m = RLX_NEW(ctx, mm2_t);
  m->a = sc;
  m->b = rlx_te_placeholder(ctx, 2, sh2, rlx_dt_float32(), "B");
  m->k = rlx_te_reduce_axis(ctx, c64(ctx, 0), c64(ctx, 64), "k");
  rlx_te_tensor_t* c = rlx_te_compute(ctx, 2, sh2, mm2_body, m, "C", "matmul");
  rlx_te_tensor_t* args2[3] = {a, m->b, c};
  CHECK_OK(rlx_te_create_prim_func(ctx, 3, args2, "scaled_mm", &f));
  g = sched(ctx, f);
  CHECK(rlx_tir_find_block(g->body, "S") != NULL && rlx_tir_find_block(g->body, "C_update") != NULL);
  tshape_t sh3[3] = {{2, {64, 64}}, {2, {64, 64}}, {2, {64, 64}}};
  double d = compare_funcs(f, g, 3, sh3, 2);
  CHECK_MSG(d >= 0 && d < 1e-4, "scaled mm diff %g", d);
  rlx_ctx_free(ctx);
}


static rlx_expr_t* bias_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  rlx_te_tensor_t** t = user;
  rlx_expr_t* i2[2] = {&ix[0]->hdr, &ix[1]->hdr};
  rlx_expr_t* i1[1] = {&ix[1]->hdr};
  return rlx_ir_add(ctx, rlx_te_load(ctx, t[0], 2, i2), rlx_te_load(ctx, t[1], 1, i1));
}

/* dense + bias + relu: the bias add is inlined into relu, which folds into the matmul tile */
static void test_dense_bias_relu(void) {
  rlx_ctx_t* ctx = tctx();
  rlx_expr_t* sa[2] = {c64(ctx, 96), c64(ctx, 80)};
  rlx_expr_t* sb[2] = {c64(ctx, 80), c64(ctx, 72)};
  rlx_expr_t* sc[2] = {c64(ctx, 96), c64(ctx, 72)};
  rlx_expr_t* sv[1] = {c64(ctx, 72)};
  mm2_t* m = RLX_NEW(ctx, mm2_t);
  m->a = rlx_te_placeholder(ctx, 2, sa, rlx_dt_float32(), "A");
  m->b = rlx_te_placeholder(ctx, 2, sb, rlx_dt_float32(), "B");
  m->k = rlx_te_reduce_axis(ctx, c64(ctx, 0), c64(ctx, 80), "k");
  rlx_te_tensor_t* bias = rlx_te_placeholder(ctx, 1, sv, rlx_dt_float32(), "bias");
  rlx_te_tensor_t* c = rlx_te_compute(ctx, 2, sc, mm2_body, m, "C", "matmul");
  rlx_te_tensor_t** cb = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, 2);
  cb[0] = c;
  cb[1] = bias;
  rlx_te_tensor_t* t = rlx_te_compute(ctx, 2, sc, bias_body, cb, "T", "broadcast");
  rlx_te_tensor_t* r = rlx_te_compute(ctx, 2, sc, relu_body, t, "R", "elemwise");
  rlx_te_tensor_t* args[4] = {m->a, m->b, bias, r};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 4, args, "dense", &f));
  rlx_tir_func_t* g = sched(ctx, f);
  CHECK(rlx_tir_find_block(g->body, "C_store") && !rlx_tir_find_block(g->body, "T") && !rlx_tir_find_block(g->body, "R"));
  /* no intermediate left: at most B_packed (when 72 columns leave a tail of NR: AVX-512's 32,
   * not AVX2's 4 x 24 tile that this shape takes) */
  rlx_tir_block_t* root = RLX_AS(rlx_tir_block_realize_t, g->body)->block;
  CHECK(root->n_alloc_buffers <= 1 && (root->n_alloc_buffers == 0 || strcmp(root->alloc_buffers[0]->name, "B_packed") == 0));
  tshape_t sh[4] = {{2, {96, 80}}, {2, {80, 72}}, {1, {72}}, {2, {96, 72}}};
  double d = compare_funcs(f, g, 4, sh, 3);
  CHECK_MSG(d >= 0 && d < 1e-4, "dense bias relu diff %g", d);
  d = compare_compiled(ctx, f, 4, sh, 3);
  CHECK_MSG(d >= 0 && d < 1e-4, "compiled dense bias relu diff %g", d);
  rlx_ctx_free(ctx);
}


/* int32 shapes (int32 loop and iter vars) */
static void test_int32_shapes(void) {
  rlx_ctx_t* ctx = tctx();
  rlx_expr_t* sa[2] = {rlx_ir_i32(ctx, 70), rlx_ir_i32(ctx, 64)};
  rlx_expr_t* sb[2] = {rlx_ir_i32(ctx, 64), rlx_ir_i32(ctx, 96)};
  rlx_expr_t* sc[2] = {rlx_ir_i32(ctx, 70), rlx_ir_i32(ctx, 96)};
  mm2_t* m = RLX_NEW(ctx, mm2_t);
  m->a = rlx_te_placeholder(ctx, 2, sa, rlx_dt_float32(), "A");
  m->b = rlx_te_placeholder(ctx, 2, sb, rlx_dt_float32(), "B");
  m->k = rlx_te_reduce_axis(ctx, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, 64), "k");
  rlx_te_tensor_t* c = rlx_te_compute(ctx, 2, sc, mm2_body, m, "C", "matmul");
  rlx_te_tensor_t* r = rlx_te_compute(ctx, 2, sc, relu_body, c, "R", "elemwise");
  rlx_te_tensor_t* args[3] = {m->a, m->b, r};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 3, args, "mm32", &f));
  rlx_tir_func_t* g = sched(ctx, f);
  CHECK(rlx_tir_find_block(g->body, "C_update") != NULL);
  tshape_t sh[3] = {{2, {70, 64}}, {2, {64, 96}}, {2, {70, 96}}};
  double d = compare_funcs(f, g, 3, sh, 2);
  CHECK_MSG(d >= 0 && d < 1e-4, "int32 mm diff %g", d);
  d = compare_compiled(ctx, f, 3, sh, 2);
  CHECK_MSG(d >= 0 && d < 1e-4, "compiled int32 mm diff %g", d);
  rlx_ctx_free(ctx);
}


/* 1-D convolution out[i, w] = sum_r data[i, w + r] * wt[r]: vectorized over w (unit stride) */
typedef struct {
  rlx_te_tensor_t *d, *w;
  rlx_iter_var_t* r;
} conv_t;
static rlx_expr_t* conv_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  conv_t* c = user;
  rlx_expr_t* id[2] = {&ix[0]->hdr, rlx_ir_add(ctx, &ix[1]->hdr, &c->r->var->hdr)};
  rlx_expr_t* iw[1] = {&c->r->var->hdr};
  return rlx_te_sum(ctx, rlx_ir_mul(ctx, rlx_te_load(ctx, c->d, 2, id), rlx_te_load(ctx, c->w, 1, iw)), 1, &c->r);
}
static void test_conv1d(void) {
  rlx_ctx_t* ctx = tctx();
  conv_t* c = RLX_NEW(ctx, conv_t);
  rlx_expr_t* sd[2] = {c64(ctx, 6), c64(ctx, 66)};
  rlx_expr_t* sw[1] = {c64(ctx, 3)};
  rlx_expr_t* so[2] = {c64(ctx, 6), c64(ctx, 64)};
  c->d = rlx_te_placeholder(ctx, 2, sd, rlx_dt_float32(), "data");
  c->w = rlx_te_placeholder(ctx, 1, sw, rlx_dt_float32(), "wt");
  c->r = rlx_te_reduce_axis(ctx, c64(ctx, 0), c64(ctx, 3), "r");
  rlx_te_tensor_t* o = rlx_te_compute(ctx, 2, so, conv_body, c, "out", "conv");
  rlx_te_tensor_t* args[3] = {c->d, c->w, o};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 3, args, "conv1d", &f));
  rlx_tir_func_t* g = sched(ctx, f);
  CHECK(census(g).n_for[RLX_FOR_VECTORIZED] == 2);
  tshape_t sh[3] = {{2, {6, 66}}, {1, {3}}, {2, {6, 64}}};
  double d = compare_funcs(f, g, 3, sh, 2);
  CHECK_MSG(d >= 0 && d < 1e-5, "conv1d diff %g", d);
  d = compare_compiled(ctx, f, 3, sh, 2);
  CHECK_MSG(d >= 0 && d < 1e-5, "compiled conv1d diff %g", d);
  rlx_ctx_free(ctx);
}


/* A hand-written scan B[i] = B[i-1] + A[i] (i >= 1): iterations depend on each other, so the
 * default schedule must leave it serial. */
static void test_scan_left_alone(void) {
  rlx_ctx_t* ctx = tctx();
  int64_t n = 70000;
  rlx_expr_t* sh[1] = {c64(ctx, n)};
  rlx_tir_buffer_t* a = rlx_tir_buffer_create(ctx, "A", rlx_dt_float32(), 1, sh, NULL);
  rlx_tir_buffer_t* b = rlx_tir_buffer_create(ctx, "B", rlx_dt_float32(), 1, sh, NULL);
  rlx_var_t* i = rlx_ir_var(ctx, "i", rlx_dt_int64());
  rlx_var_t* vi = rlx_ir_var(ctx, "vi", rlx_dt_int64());
  rlx_tir_block_t* blk = RLX_NEW(ctx, rlx_tir_block_t);
  blk->name = "scan";
  blk->n_iter_vars = 1;
  blk->iter_vars = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, 1);
  blk->iter_vars[0] = rlx_tir_iter_var(ctx, vi, c64(ctx, 1), c64(ctx, n - 1), RLX_ITER_SPATIAL);
  rlx_expr_t* prev[1] = {rlx_ir_sub(ctx, &vi->hdr, c64(ctx, 1))};
  rlx_expr_t* cur[1] = {&vi->hdr};
  blk->body = rlx_tir_store(ctx, b, rlx_ir_add(ctx, rlx_ir_load(ctx, b, 1, prev), rlx_ir_load(ctx, a, 1, cur)), 1, cur);
  rlx_expr_t* val[1] = {rlx_ir_add(ctx, &i->hdr, c64(ctx, 1))};
  rlx_tir_stmt_t* body = rlx_tir_block_realize(ctx, 1, val, NULL, blk);
  body = rlx_tir_for(ctx, i, c64(ctx, 0), c64(ctx, n - 1), RLX_FOR_SERIAL, body);
  rlx_tir_block_t* root = RLX_NEW(ctx, rlx_tir_block_t);
  root->name = "root";
  root->body = body;
  rlx_var_t* params[2] = {a->data, b->data};
  rlx_tir_buffer_t* bm[2] = {a, b};
  rlx_tir_func_t* f = rlx_tir_func_create(ctx, "scan", 2, params, bm, rlx_tir_block_realize(ctx, 0, NULL, NULL, root));
  rlx_tir_func_t* g = sched(ctx, f);
  census_t c = census(g);
  CHECK(c.n_for[RLX_FOR_PARALLEL] == 0 && c.n_for[RLX_FOR_VECTORIZED] == 0);
  tshape_t shp[2] = {{1, {n}}, {1, {n}}};
  CHECK(compare_funcs(f, g, 2, shp, 1) == 0);
  rlx_ctx_free(ctx);
}


/* C = A^T B with A stored (k, m) */
static rlx_expr_t* mmta_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  mm2_t* m = user;
  rlx_expr_t* ia[2] = {&m->k->var->hdr, &ix[0]->hdr};
  rlx_expr_t* ib[2] = {&m->k->var->hdr, &ix[1]->hdr};
  return rlx_te_sum(ctx, rlx_ir_mul(ctx, rlx_te_load(ctx, m->a, 2, ia), rlx_te_load(ctx, m->b, 2, ib)), 1, &m->k);
}
static void test_transposed_a(void) {
  rlx_ctx_t* ctx = tctx();
  rlx_expr_t* sa[2] = {c64(ctx, 72), c64(ctx, 90)};
  rlx_expr_t* sb[2] = {c64(ctx, 72), c64(ctx, 100)};
  rlx_expr_t* sc[2] = {c64(ctx, 90), c64(ctx, 100)};
  mm2_t* m = RLX_NEW(ctx, mm2_t);
  m->a = rlx_te_placeholder(ctx, 2, sa, rlx_dt_float32(), "A");
  m->b = rlx_te_placeholder(ctx, 2, sb, rlx_dt_float32(), "B");
  m->k = rlx_te_reduce_axis(ctx, c64(ctx, 0), c64(ctx, 72), "k");
  rlx_te_tensor_t* c = rlx_te_compute(ctx, 2, sc, mmta_body, m, "C", "matmul");
  rlx_te_tensor_t* args[3] = {m->a, m->b, c};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 3, args, "mm_ta", &f));
  rlx_tir_func_t* g = sched(ctx, f);
  CHECK(rlx_tir_find_block(g->body, "C_update") != NULL);
  tshape_t sh[3] = {{2, {72, 90}}, {2, {72, 100}}, {2, {90, 100}}};
  double d = compare_funcs(f, g, 3, sh, 2);
  CHECK_MSG(d >= 0 && d < 1e-4, "A^T B diff %g", d);
  d = compare_compiled(ctx, f, 3, sh, 2);
  CHECK_MSG(d >= 0 && d < 1e-4, "compiled A^T B diff %g", d);
  rlx_ctx_free(ctx);
}

/* ------------------------------------------------------------------ compiled path */
/* The module's C for the context's target (scheduled, lowered) declares no vector type
 * wider than the target's native vectors (codegen names them rlx_<elem>x<lanes>), and it
 * compiles with the target's compiler (the cross compiler for aarch64). mod is changed. */
static bool compiled_vectors_native(rlx_ctx_t* ctx, rlx_module_t* mod) {
  const rlx_target_t* t = rlx_ctx_target_of(ctx);
  rlx_driver_options_t o = {false, "codegen_c", "none"};
  rlx_driver_result_t r;
  rlx_status_t* st = rlx_driver_run(ctx, mod, &o, &r);
  if (st) {
    fprintf(stderr, "codegen for %s: %s\n", rlx_target_str(t), rlx_status_message(st));
    rlx_status_free(st);
    return false;
  }
  bool ok = true;
  for (const char* p = strstr(r.c_source, "typedef "); p; p = strstr(p + 1, "typedef ")) {
    int bytes;
    const char* vs = strstr(p, "vector_size(");
    const char* eol = strchr(p, '\n');
    if (!vs || (eol && vs > eol) || sscanf(vs, "vector_size(%d)", &bytes) != 1) continue;
    if (bytes > rlx_target_vector_bytes(t)) {
      fprintf(stderr, "%s: a %d-byte vector type: %.*s\n", rlx_target_str(t), bytes, (int)(eol ? eol - p : 80), p);
      ok = false;
    }
  }
  char* path = NULL;
  rlx_status_t* here = rlx_target_check_host(t);
  if (ok && here) { /* compiled here only when it cannot run here */
    st = rlx_compile_c(ctx, r.c_source, &path);
    if (st) {
      fprintf(stderr, "compiling for %s: %s\n", rlx_target_str(t), rlx_status_message(st));
      rlx_status_free(st);
      ok = false;
    }
  }
  rlx_status_free(here);
  free(path);
  free(r.c_source);
  return ok;
}


/* Builds f through rlx_build_module (default schedule, lowering, C, cc) and compares its
 * outputs with the interpreter running the unscheduled f. Returns the max abs difference. */
static double compare_compiled(rlx_ctx_t* ctx, rlx_tir_func_t* f, int n, tshape_t* shapes, int n_in) {
  rlx_module_t* mod = rlx_module_create(ctx);
  rlx_module_set(mod, f->name, RLX_FUNC_TIR, f);
  if (!compiled_vectors_native(ctx, mod)) return -1;
  rlx_status_t* runs = rlx_target_check_host(rlx_ctx_target_of(ctx));
  if (runs) { /* another target: compiled (and checked above) only */
    rlx_status_free(runs);
    return 0;
  }
  rlx_library_t* lib = NULL;
  rlx_status_t* st = rlx_build_module(ctx, mod, &lib);
  if (st) {
    fprintf(stderr, "build %s: %s\n", f->name, rlx_status_message(st));
    rlx_status_free(st);
    return -1;
  }
  rlx_packed_fn_t fn;
  st = rlx_library_get_function(lib, rlx_codegen_symbol(ctx, f->name), &fn);
  float* bufs[2][8];
  DLTensor ts[2][8];
  DLTensor* ps[2][8];
  unsigned seed = 99;
  for (int i = 0; i < n; i++) {
    int64_t m = numel(&shapes[i]);
    for (int r = 0; r < 2; r++) {
      bufs[r][i] = malloc(sizeof(float) * (size_t)(m ? m : 1));
      ts[r][i] = mk_tensor(bufs[r][i], &shapes[i]);
      ps[r][i] = &ts[r][i];
    }
    for (int64_t e = 0; e < m; e++) bufs[0][i][e] = bufs[1][i][e] = i < n_in ? frand_s(&seed) : 777.0f;
  }
  double diff = -1;
  if (!st) st = interpret_cached(f, ps[0], n, n_in, shapes, 99);
  if (!st) st = rlx_packed_call_tensors(fn, NULL, ps[1], n);
  if (st) {
    fprintf(stderr, "run %s: %s\n", f->name, rlx_status_message(st));
    rlx_status_free(st);
  } else {
    diff = 0;
    for (int i = n_in; i < n; i++)
      for (int64_t e = 0; e < numel(&shapes[i]); e++) {
        double d = fabs((double)bufs[0][i][e] - (double)bufs[1][i][e]);
        if (d > diff || d != d) diff = d != d ? 1e30 : d;
      }
  }
  for (int i = 0; i < n; i++) {
    free(bufs[0][i]);
    free(bufs[1][i]);
  }
  rlx_library_free(lib);
  return diff;
}

static void test_compiled(void) {
  rlx_ctx_t* ctx = tctx();
  {
    rlx_tir_func_t* f = make_matmul(ctx, c64(ctx, 100), 70, 90, 0, false, false, true);
    tshape_t sh[3] = {{2, {100, 90}}, {2, {90, 70}}, {2, {100, 70}}};
    double d = compare_compiled(ctx, f, 3, sh, 2);
    CHECK_MSG(d >= 0 && d < 1e-4, "compiled 100x70x90 relu: %g", d);
  }
  {
    rlx_tir_func_t* f = make_matmul(ctx, c64(ctx, 200), 96, 64, 0, true, false, false);
    tshape_t sh[3] = {{2, {200, 64}}, {2, {96, 64}}, {2, {200, 96}}};
    double d = compare_compiled(ctx, f, 3, sh, 2);
    CHECK_MSG(d >= 0 && d < 1e-4, "compiled 200x96x64 trans_b: %g", d);
  }
  {
    rlx_tir_func_t* f = make_matmul(ctx, c64(ctx, 67), 80, 64, 3, false, true, true);
    tshape_t sh[3] = {{3, {3, 67, 64}}, {3, {3, 64, 80}}, {3, {3, 67, 80}}};
    double d = compare_compiled(ctx, f, 3, sh, 2);
    CHECK_MSG(d >= 0 && d < 1e-4, "compiled batched: %g", d);
  }
  {
    /* prefetching the next panel (B 160 KB): in place with a row tail, packed with a column tail */
    rlx_tir_func_t* f = make_matmul(ctx, c64(ctx, 75), 256, 160, 0, false, false, true);
    tshape_t sh[3] = {{2, {75, 160}}, {2, {160, 256}}, {2, {75, 256}}};
    double d = compare_compiled(ctx, f, 3, sh, 2);
    CHECK_MSG(d >= 0 && d < 1e-4, "compiled 75x256x160 (prefetch): %g", d);
    f = make_matmul(ctx, c64(ctx, 100), 200, 200, 0, false, false, false);
    tshape_t sh2[3] = {{2, {100, 200}}, {2, {200, 200}}, {2, {100, 200}}};
    d = compare_compiled(ctx, f, 3, sh2, 2);
    CHECK_MSG(d >= 0 && d < 1e-4, "compiled 100x200x200 (prefetch, packed): %g", d);
  }
  {
    rlx_var_t* nv = rlx_ir_var(ctx, "n", rlx_dt_int64());
    rlx_tir_func_t* f = make_matmul(ctx, &nv->hdr, 128, 96, 0, false, false, false);
    int64_t ms[3] = {1, 37, 150};
    for (int i = 0; i < 3; i++) {
      tshape_t sh[3] = {{2, {ms[i], 96}}, {2, {96, 128}}, {2, {ms[i], 128}}};
      double d = compare_compiled(ctx, f, 3, sh, 2);
      CHECK_MSG(d >= 0 && d < 1e-4, "compiled symbolic n=%lld: %g", (long long)ms[i], d);
    }
  }
  rlx_ctx_free(ctx);
}


/* scores = Q K^T per batch with a symbolic sequence length (M = N = n), and a symbolic K */
typedef struct {
  rlx_te_tensor_t *q, *k;
  rlx_iter_var_t* r;
} att_t;
static rlx_expr_t* att_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  att_t* a = user;
  rlx_expr_t* iq[3] = {&ix[0]->hdr, &ix[1]->hdr, &a->r->var->hdr};
  rlx_expr_t* ik[3] = {&ix[0]->hdr, &ix[2]->hdr, &a->r->var->hdr};
  return rlx_te_sum(ctx, rlx_ir_mul(ctx, rlx_te_load(ctx, a->q, 3, iq), rlx_te_load(ctx, a->k, 3, ik)), 1, &a->r);
}
static void test_symbolic_nk(void) {
  rlx_ctx_t* ctx = tctx();
  rlx_var_t* n = rlx_ir_var(ctx, "n", rlx_dt_int64());
  rlx_expr_t* sq[3] = {c64(ctx, 2), &n->hdr, c64(ctx, 64)};
  rlx_expr_t* so[3] = {c64(ctx, 2), &n->hdr, &n->hdr};
  att_t* a = RLX_NEW(ctx, att_t);
  a->q = rlx_te_placeholder(ctx, 3, sq, rlx_dt_float32(), "Q");
  a->k = rlx_te_placeholder(ctx, 3, sq, rlx_dt_float32(), "K");
  a->r = rlx_te_reduce_axis(ctx, c64(ctx, 0), c64(ctx, 64), "d");
  rlx_te_tensor_t* c = rlx_te_compute(ctx, 3, so, att_body, a, "S", "batch_matmul");
  rlx_te_tensor_t* args[3] = {a->q, a->k, c};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 3, args, "scores", &f));
  rlx_tir_func_t* g = sched(ctx, f);
  CHECK(rlx_tir_find_block(g->body, "S_update") != NULL);
  int64_t ns[3] = {5, 40, 77};
  for (int i = 0; i < 3; i++) {
    tshape_t sh[3] = {{3, {2, ns[i], 64}}, {3, {2, ns[i], 64}}, {3, {2, ns[i], ns[i]}}};
    double d = compare_funcs(f, g, 3, sh, 2);
    CHECK_MSG(d >= 0 && d < 1e-4, "scores n=%lld diff %g", (long long)ns[i], d);
    d = compare_compiled(ctx, f, 3, sh, 2);
    CHECK_MSG(d >= 0 && d < 1e-4, "compiled scores n=%lld diff %g", (long long)ns[i], d);
  }
  /* symbolic K */
  rlx_var_t* kv = rlx_ir_var(ctx, "kk", rlx_dt_int64());
  rlx_expr_t* sa[2] = {c64(ctx, 70), &kv->hdr};
  rlx_expr_t* sb[2] = {&kv->hdr, c64(ctx, 96)};
  rlx_expr_t* sc[2] = {c64(ctx, 70), c64(ctx, 96)};
  mm2_t* m = RLX_NEW(ctx, mm2_t);
  m->a = rlx_te_placeholder(ctx, 2, sa, rlx_dt_float32(), "A");
  m->b = rlx_te_placeholder(ctx, 2, sb, rlx_dt_float32(), "B");
  m->k = rlx_te_reduce_axis(ctx, c64(ctx, 0), &kv->hdr, "k");
  rlx_te_tensor_t* cc = rlx_te_compute(ctx, 2, sc, mm2_body, m, "C", "matmul");
  rlx_te_tensor_t* args2[3] = {m->a, m->b, cc};
  CHECK_OK(rlx_te_create_prim_func(ctx, 3, args2, "mm_symk", &f));
  g = sched(ctx, f);
  CHECK(rlx_tir_find_block(g->body, "C_update") != NULL);
  int64_t ks[2] = {3, 100};
  for (int i = 0; i < 2; i++) {
    tshape_t sh[3] = {{2, {70, ks[i]}}, {2, {ks[i], 96}}, {2, {70, 96}}};
    double d = compare_funcs(f, g, 3, sh, 2);
    CHECK_MSG(d >= 0 && d < 1e-4, "symbolic k=%lld diff %g", (long long)ks[i], d);
    d = compare_compiled(ctx, f, 3, sh, 2);
    CHECK_MSG(d >= 0 && d < 1e-4, "compiled symbolic k=%lld diff %g", (long long)ks[i], d);
  }
  rlx_ctx_free(ctx);
}

/* ------------------------------------------------------------------ benchmark */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void bench(bool symbolic) {
  int64_t nn = getenv("RLX_SCHED_BENCH_N") ? atoll(getenv("RLX_SCHED_BENCH_N")) : 1024;
  rlx_ctx_t* ctx = tctx();
  rlx_var_t* mv = rlx_ir_var(ctx, "m", rlx_dt_int64());
  rlx_tir_func_t* f = make_matmul(ctx, symbolic ? &mv->hdr : c64(ctx, nn), nn, nn, 0, false, false, false);
  rlx_module_t* mod = rlx_module_create(ctx);
  rlx_module_set(mod, "mm", RLX_FUNC_TIR, f);
  rlx_ctx_set_keep_source(ctx, true);
  rlx_library_t* lib = NULL;
  double t0 = now();
  rlx_status_t* st = rlx_build_module(ctx, mod, &lib);
  if (st) {
    fprintf(stderr, "bench: build failed: %s\n", rlx_status_message(st));
    rlx_status_free(st);
    rlx_ctx_free(ctx);
    return;
  }
  fprintf(stderr, "bench: build %.2fs, library %s\n", now() - t0, rlx_library_path(lib));
  rlx_packed_fn_t fn;
  CHECK_OK(rlx_library_get_function(lib, rlx_codegen_symbol(ctx, "mm"), &fn));
  size_t sz = (size_t)(nn * nn);
  float* a = malloc(sz * 4);
  float* b = malloc(sz * 4);
  float* c = malloc(sz * 4);
  unsigned seed = 5;
  for (size_t i = 0; i < sz; i++) a[i] = frand_s(&seed), b[i] = frand_s(&seed);
  tshape_t sh = {2, {nn, nn}};
  DLTensor ta = mk_tensor(a, &sh), tb = mk_tensor(b, &sh), tc = mk_tensor(c, &sh);
  DLTensor* ts[3] = {&ta, &tb, &tc};
  for (int threads = 1; threads <= 2; threads++) {
    rlx_library_set_num_threads(lib, threads);
    double best = 1e9;
    for (int r = 0; r < 15; r++) {
      double s0 = now();
      CHECK_OK(rlx_packed_call_tensors(fn, NULL, ts, 3));
      double dt = now() - s0;
      if (dt < best) best = dt;
    }
    printf("matmul %lld^3%s: %d thread(s): %.1f GFLOPS (%.2f ms)\n", (long long)nn, symbolic ? " (symbolic M)" : "", threads,
           2.0 * (double)nn * (double)nn * (double)nn / best * 1e-9, best * 1e3);
  }
  double maxd = 0;
  for (int t = 0; t < 64; t++) {
    int64_t i = (t * 37) % nn, j = (t * 101) % nn;
    double ref = 0;
    for (int64_t k = 0; k < nn; k++) ref += (double)a[i * nn + k] * (double)b[k * nn + j];
    double d = fabs(ref - c[i * nn + j]);
    if (d > maxd) maxd = d;
  }
  CHECK_MSG(maxd < 1e-2, "bench result differs by %g", maxd);
  free(a);
  free(b);
  free(c);
  rlx_library_free(lib);
  rlx_ctx_free(ctx);
}

/* A batch-1 matmul as FuseTIR leaves it after inlining: the unit axis bound to the constant 0
 * (its loop simplified), the consumer reading C at 0 and the bias + GELU chain inlined into
 * one epilogue; the kernel must take it, fold the epilogue into its store, report nothing. */
static const char gelu_text[] =
    "@T.prim_func(private=True)\n"
    "def mm_gelu(A: T.Buffer((T.int64(1), T.int64(24), T.int64(40)), \"float32\"), "
    "B: T.Buffer((T.int64(40), T.int64(48)), \"float32\"), bias: T.Buffer((T.int64(48),), \"float32\"), "
    "out: T.Buffer((T.int64(1), T.int64(24), T.int64(48)), \"float32\")):\n"
    "    T.func_attr({\"tir.noalias\": T.bool(True)})\n"
    "    C = T.alloc_buffer((T.int64(1), T.int64(24), T.int64(48)))\n"
    "    for i, j, k, r in T.grid(T.int64(1), T.int64(24), T.int64(48), T.int64(40)):\n"
    "        with T.block(\"C\"):\n"
    "            v_i = T.axis.spatial(T.int64(1), T.int64(0))\n"
    "            v_j, v_k, v_r = T.axis.remap(\"SSR\", [j, k, r])\n"
    "            T.reads(A[v_i, v_j, v_r], B[v_r, v_k])\n"
    "            T.writes(C[v_i, v_j, v_k])\n"
    "            with T.init():\n"
    "                C[v_i, v_j, v_k] = T.float32(0.0)\n"
    "            C[v_i, v_j, v_k] = C[v_i, v_j, v_k] + A[v_i, v_j, v_r] * B[v_r, v_k]\n"
    "    for i, j, k in T.grid(T.int64(1), T.int64(24), T.int64(48)):\n"
    "        with T.block(\"G\"):\n"
    "            v_i = T.axis.spatial(T.int64(1), T.int64(0))\n"
    "            v_j, v_k = T.axis.remap(\"SS\", [j, k])\n"
    "            T.reads(bias[v_k], C[T.int64(0), v_j, v_k])\n"
    "            T.writes(out[v_i, v_j, v_k])\n"
    "            out[v_i, v_j, v_k] = (bias[v_k] + C[T.int64(0), v_j, v_k]) * (T.erf((bias[v_k] + "
    "C[T.int64(0), v_j, v_k]) * T.float32(0.70710678)) + T.float32(1.0)) * T.float32(0.5)\n";

static void test_unit_axis_gelu(void) {
  rlx_ctx_t* ctx = tctx();
  rlx_module_t* m = NULL;
  CHECK_OK(rlx_script_parse(ctx, gelu_text, "gelu.py", &m));
  rlx_tir_func_t* f = m ? rlx_module_find(m, "mm_gelu")->func : NULL;
  rlx_tir_func_t* g = NULL;
  rlx_sched_report_t rep;
  CHECK_OK(rlx_tir_default_schedule_report(ctx, f, &g, &rep));
  CHECK(g && rep.n == 0);
  CHECK(rlx_tir_find_block(g->body, "C_store") && !rlx_tir_find_block(g->body, "G"));
  int64_t fl = 0;
  CHECK(rlx_expr_is_const_int(rlx_tir_func_get_attr(g, "rlx.flops"), &fl) && fl == 2 * 24 * 48 * 40);
  tshape_t sh[4] = {{3, {1, 24, 40}}, {2, {40, 48}}, {1, {48}}, {3, {1, 24, 48}}};
  double d = compare_funcs(f, g, 4, sh, 3);
  CHECK_MSG(d >= 0 && d < 1e-4, "unit-axis gelu diff %g", d);
  rlx_ctx_free(ctx);
}

/* Softmax and LayerNorm rows: one parallel (or serial) row loop for the whole function, every
 * reduction rfactored under it, the same numbers. */
static void check_rows(bool layer_norm, int64_t rows, int64_t len, int expect_parallel) {
  rlx_ctx_t* ctx = tctx();
  rlx_expr_t* sh2[2] = {c64(ctx, rows), c64(ctx, len)};
  rlx_expr_t* sh1[1] = {c64(ctx, len)};
  rlx_te_tensor_t* x = rlx_te_placeholder(ctx, 2, sh2, rlx_dt_float32(), "x");
  rlx_te_tensor_t* g = rlx_te_placeholder(ctx, 1, sh1, rlx_dt_float32(), "g");
  rlx_te_tensor_t* b = rlx_te_placeholder(ctx, 1, sh1, rlx_dt_float32(), "b");
  int axes[1] = {-1};
  rlx_te_tensor_t* y = NULL;
  CHECK_OK(layer_norm ? rlx_topi_nn_layer_norm(ctx, x, g, b, 1, axes, 1e-5, &y) : rlx_topi_nn_softmax(ctx, x, -1, &y));
  rlx_te_tensor_t* args4[4] = {x, g, b, y};
  rlx_te_tensor_t* args2[2] = {x, y};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, layer_norm ? 4 : 2, layer_norm ? args4 : args2, "rows", &f));
  rlx_tir_func_t* s = NULL;
  rlx_sched_report_t rep;
  CHECK_OK(rlx_tir_default_schedule_report(ctx, f, &s, &rep));
  census_t c = census(s);
  for (int i = 0; i < rep.n; i++) fprintf(stderr, "left unscheduled: %s: %s\n", rep.misses[i].block, rep.misses[i].reason);
  if (getenv("RLX_SCHED_DUMP")) dump_func(s);
  CHECK_MSG(rep.n == 0 && c.n_for[RLX_FOR_PARALLEL] == expect_parallel, "%s %lldx%lld: %d misses, %d parallel loops",
            layer_norm ? "layer_norm" : "softmax", (long long)rows, (long long)len, rep.n, c.n_for[RLX_FOR_PARALLEL]);
  CHECK(c.n_for[RLX_FOR_VECTORIZED] >= 4);
  tshape_t ts4[4] = {{2, {rows, len}}, {1, {len}}, {1, {len}}, {2, {rows, len}}};
  tshape_t ts2[2] = {{2, {rows, len}}, {2, {rows, len}}};
  double d = layer_norm ? compare_funcs(f, s, 4, ts4, 3) : compare_funcs(f, s, 2, ts2, 1);
  CHECK_MSG(d >= 0 && d < 1e-4, "rows diff %g", d);
  rlx_ctx_free(ctx);
}

static void test_row_fusion(void) {
  check_rows(false, 512, 128, 1);
  check_rows(false, 8, 64, 0);
  check_rows(true, 600, 256, 1);
  check_rows(true, 3, 32, 0);
}

int main(void) {
  /* everything for AVX-512 and AVX2; the matmul and vector cases for SSE and NEON too */
  static const char* const full[] = {"c -mcpu=x86-64-v4", "c -mcpu=x86-64-v3"};
  static const char* const part[] = {"c -mcpu=x86-64-v2", "c -mtriple=aarch64-linux-gnu"};
  for (int t = 0; t < 2; t++) {
    target_ = full[t];
    printf("target %s\n", target_);
    test_row_fusion();
    test_unit_axis_gelu();
    test_matmuls();
    test_symbolic_m();
    test_elementwise_reduction();
    test_inline();
    test_transposed_a();
    test_scan_left_alone();
    test_conv1d();
    test_int32_shapes();
    test_dense_bias_relu();
    test_compiled();
    test_add_symbolic();
    test_symbolic_nk();
  }
  for (int t = 0; t < 2; t++) {
    target_ = part[t];
    printf("target %s\n", target_);
    test_row_fusion();
    test_matmuls();
    test_elementwise_reduction();
    test_compiled();
  }
  target_ = "c -mcpu=x86-64-v4";
  test_matmul_structure(); /* exact IR: AVX-512's 8 x 32 tile */
  test_matmul_tiles();
  if (getenv("RLX_SCHED_BENCH")) {
    target_ = NULL; /* the host */
    bench(false);
    bench(true);
  }
  ref_cache_free();
  TEST_MAIN_END();
}
