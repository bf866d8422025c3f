/* Pass plan_memory (after call_tir_rewrite): an MLP-like chain of 5 call_tirs (golden
 * structure and byte counts), best-fit reuse with growing storages, symbolic sizes (equal
 * sizes share, different ones do not, upper bounds make them constant), function outputs and
 * aliases left unplanned, tuple outputs, call_packed / call_dps_packed arguments living to
 * the end of the block, tensors escaping their block. Every planned function is checked by
 * an independent oracle (mem_check_plan: no two tensors of one storage overlap in time, each
 * fits, kills after the last use) and for well-formedness after each pass. */
#include "script/script.h"
#include "test_pass_plan_memory_util.h"

/* call_tir_rewrite then plan_memory, checking well-formedness after each. */
static rlx_module_t* plan(rlx_ctx_t* ctx, rlx_module_t* m, rlx_module_t** out_rewritten) {
  rlx_module_t *rw = NULL, *planned = NULL;
  CHECK_OK(rlx_relax_well_formed(ctx, m));
  CHECK_OK(rlx_pass_call_tir_rewrite(ctx, m, &rw));
  if (!rw) return NULL;
  CHECK_OK(rlx_relax_well_formed(ctx, rw));
  CHECK_OK(rlx_pass_plan_memory(ctx, rw, &planned));
  if (!planned) return NULL;
  CHECK_OK(rlx_relax_well_formed(ctx, planned));
  if (out_rewritten) *out_rewritten = rw;
  return planned;
}

static rlx_memory_stats_t stats(rlx_ctx_t* ctx, rlx_module_t* before, rlx_module_t* after) {
  rlx_memory_stats_t st;
  memset(&st, 0, sizeof(st));
  CHECK_OK(rlx_memory_stats(ctx, before, after, "main", &st));
  return st;
}

static rlx_relax_var_t* te1(rlx_bb_t* bb, rlx_bb_te_fn_t f, void* user, rlx_relax_var_t* a, const char* name) {
  rlx_relax_var_t* v = NULL;
  CHECK_OK(rlx_bb_emit_te(bb, f, user, 1, (rlx_relax_expr_t*[]){&a->hdr}, NULL, name, &v));
  return v;
}
static rlx_relax_var_t* te2(rlx_bb_t* bb, rlx_bb_te_fn_t f, void* user, rlx_relax_var_t* a, rlx_relax_var_t* b,
                            const char* name) {
  rlx_relax_var_t* v = NULL;
  CHECK_OK(rlx_bb_emit_te(bb, f, user, 2, (rlx_relax_expr_t*[]){&a->hdr, &b->hdr}, NULL, name, &v));
  return v;
}

/* Storage var of the tensor bound to var name in f (NULL when not planned). */
static const rlx_relax_expr_t* storage_of(const rlx_relax_func_t* f, const rlx_relax_var_t* t) {
  const rlx_relax_binding_t* b = mem_binding_of(f, &t->hdr);
  const rlx_relax_call_t* c = b ? mem_call_of(b, "relax.memory.alloc_tensor") : NULL;
  return c ? c->args[0] : NULL;
}

/* The tensor var that replaced a call_tir result: the var bound to it by call_tir_rewrite. */
static const rlx_relax_var_t* nth_alloc(const rlx_relax_func_t* f, int n) {
  const rlx_relax_seq_t* s = (const rlx_relax_seq_t*)f->body;
  int k = 0;
  for (int b = 0; b < s->n_blocks; b++)
    for (int i = 0; i < s->blocks[b]->n_bindings; i++) {
      const rlx_relax_binding_t* bd = s->blocks[b]->bindings[i];
      if ((mem_call_of(bd, "relax.memory.alloc_tensor") || mem_call_of(bd, "relax.builtin.alloc_tensor")) && k++ == n)
        return bd->var;
    }
  return NULL;
}

static int64_t storage_bytes(const rlx_relax_func_t* f, const rlx_relax_expr_t* sv) {
  const rlx_relax_binding_t* b = sv ? mem_binding_of(f, sv) : NULL;
  const rlx_relax_call_t* c = b ? mem_call_of(b, "relax.memory.alloc_storage") : NULL;
  int64_t v = -1;
  if (c) rlx_expr_is_const_int(((rlx_relax_shape_expr_t*)c->args[0])->values[0], &v);
  return v;
}

/* x (16, 32) → matmul w1 (32, 64) → relu → matmul w2 (64, 64) → relu → matmul w3 (64, 10). */
static void test_mlp_chain(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){16, 32}, f32));
  rlx_relax_var_t* w1 = rlx_relax_var(ctx, "w1", rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){32, 64}, f32));
  rlx_relax_var_t* w2 = rlx_relax_var(ctx, "w2", rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){64, 64}, f32));
  rlx_relax_var_t* w3 = rlx_relax_var(ctx, "w3", rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){64, 10}, f32));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t* gv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 4, (rlx_relax_var_t*[]){x, w1, w2, w3}));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  rlx_relax_var_t* h = te2(bb, te_matmul, NULL, x, w1, "lv");
  h = te1(bb, te_relu, NULL, h, "lv");
  h = te2(bb, te_matmul, NULL, h, w2, "lv");
  h = te1(bb, te_relu, NULL, h, "lv");
  h = te2(bb, te_matmul, NULL, h, w3, "lv");
  CHECK_OK(rlx_bb_emit_output(bb, &h->hdr, "gv", &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* m = rlx_bb_get(bb);
  rlx_module_t* rw = NULL;
  rlx_module_t* out = plan(ctx, m, &rw);
  if (!out) return;
  rlx_relax_func_t* f = mem_func(out, "main");
  CHECK_STREQ(mem_summary(ctx, f),
              "block:\n"
              "  storage = R.memory.alloc_storage(R.shape([4096]), 0, \"global\", uint8)\n"
              "  alloc = R.memory.alloc_tensor(storage, 0, R.shape([16, 64]), float32)\n"
              "  _ = @matmul(x, w1, alloc)\n"
              "  storage1 = R.memory.alloc_storage(R.shape([4096]), 0, \"global\", uint8)\n"
              "  alloc1 = R.memory.alloc_tensor(storage1, 0, R.shape([16, 64]), float32)\n"
              "  _1 = @relu(alloc, alloc1)\n"
              "  _2 = R.memory.kill_tensor(alloc)\n"
              "  alloc2 = R.memory.alloc_tensor(storage, 0, R.shape([16, 64]), float32)\n"
              "  _3 = @matmul1(alloc1, w2, alloc2)\n"
              "  _4 = R.memory.kill_tensor(alloc1)\n"
              "  alloc3 = R.memory.alloc_tensor(storage1, 0, R.shape([16, 64]), float32)\n"
              "  _5 = @relu(alloc2, alloc3)\n"
              "  _6 = R.memory.kill_tensor(alloc2)\n"
              "  alloc4 = R.builtin.alloc_tensor(R.shape([16, 10]), float32, 0)\n"
              "  _7 = @matmul2(alloc3, w3, alloc4)\n"
              "  _8 = R.memory.kill_tensor(alloc3)\n"
              "  gv = alloc4\n"
              "  _9 = R.memory.kill_storage(storage)\n"
              "  _10 = R.memory.kill_storage(storage1)\n"
              "return gv");
  CHECK(mem_check_plan(ctx, f) == 0);
  CHECK(mem_count(f, "relax.memory.alloc_storage") == 2 && mem_count(f, "relax.memory.alloc_tensor") == 4 &&
        mem_count(f, "relax.builtin.alloc_tensor") == 1 && mem_count(f, "relax.memory.kill_tensor") == 4 &&
        mem_count(f, "relax.memory.kill_storage") == 2);
  /* the figures: oracle = plain arithmetic over the tensors */
  int64_t hidden = 16 * 64 * 4, outb = 16 * 10 * 4;
  rlx_memory_stats_t st = stats(ctx, rw, out);
  CHECK(st.unplanned.is_static && st.unplanned.bytes == 4 * hidden + outb && st.unplanned.bytes == 17024);
  CHECK(st.planned.is_static && st.planned.bytes == 2 * hidden + outb && st.planned.bytes == 8832);
  CHECK(st.planned.bytes < st.unplanned.bytes);
  CHECK_STREQ(st.planned.str, "8832");
  CHECK(st.n_tensors == 5 && st.n_storages == 2 && st.n_planned_tensors == 4 && st.n_unplanned_tensors == 1);
  /* the input of plan_memory is untouched; planning a planned module plans nothing more */
  CHECK(mem_count(mem_func(rw, "main"), "relax.memory.alloc_storage") == 0);
  rlx_module_t* again = NULL;
  CHECK_OK(rlx_pass_plan_memory(ctx, out, &again));
  if (again) CHECK(rlx_relax_func_equal(mem_func(again, "main"), f));
  /* errors of the statistics */
  rlx_memory_stats_t bad;
  CHECK_ERR(rlx_memory_stats(ctx, rw, out, "nope", &bad), "no Relax function 'nope'");
  CHECK_ERR(rlx_memory_stats(ctx, rw, out, "relu", &bad), "no Relax function 'relu'");
  rlx_ctx_free(ctx);
}

/* fill chain with lengths 100, 50, 200, 60 (float32) then a 10-element output:
 * t0 400 B → S0; t1 200 B → S1; t2 800 B takes the freed S0 (400, within 1/16) grown to
 * 800; t3 240 B takes the freed S1 grown to 240. */
static void test_best_fit_growth(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", rlx_sinfo_tensor_const(ctx, 1, (int64_t[]){8}, f32));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
  const int64_t lens[5] = {100, 50, 200, 60, 10};
  rlx_relax_var_t* h = x;
  for (int i = 0; i < 5; i++) h = te1(bb, te_fill, rlx_ir_i64(ctx, lens[i]), h, "t");
  CHECK_OK(rlx_bb_emit_func_output(bb, &h->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* rw = NULL;
  rlx_module_t* out = plan(ctx, rlx_bb_get(bb), &rw);
  if (!out) return;
  rlx_relax_func_t* f = mem_func(out, "main");
  CHECK(mem_check_plan(ctx, f) == 0);
  const rlx_relax_var_t* t[5];
  for (int i = 0; i < 5; i++) t[i] = nth_alloc(f, i);
  CHECK(storage_of(f, t[0]) && storage_of(f, t[0]) == storage_of(f, t[2]));
  CHECK(storage_of(f, t[1]) && storage_of(f, t[1]) == storage_of(f, t[3]));
  CHECK(storage_of(f, t[0]) != storage_of(f, t[1]));
  CHECK(storage_of(f, t[4]) == NULL); /* the output */
  CHECK(storage_bytes(f, storage_of(f, t[0])) == 800);
  CHECK(storage_bytes(f, storage_of(f, t[1])) == 240);
  rlx_memory_stats_t st = stats(ctx, rw, out);
  int64_t sum = 0;
  for (int i = 0; i < 5; i++) sum += lens[i] * 4;
  CHECK(st.unplanned.is_static && st.unplanned.bytes == sum && sum == 1680);
  CHECK(st.planned.is_static && st.planned.bytes == 800 + 240 + 40);
  CHECK(st.n_storages == 2 && st.n_planned_tensors == 4);
  rlx_ctx_free(ctx);
}

/* a (400 B) and b (1200 B) live together; c = a + b (200 B); d (360 B) takes the smallest
 * fitting free storage (a's, not b's); g (8 B) fits no free storage within a factor 16
 * (1200 and 200 are too large) and gets its own. */
static void test_smallest_fit_and_range(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", rlx_sinfo_tensor_const(ctx, 1, (int64_t[]){8}, f32));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
  rlx_relax_var_t* a = te1(bb, te_fill, rlx_ir_i64(ctx, 100), x, "a");
  rlx_relax_var_t* b = te1(bb, te_fill, rlx_ir_i64(ctx, 300), x, "b");
  rlx_relax_var_t* c = te2(bb, te_add_first, rlx_ir_i64(ctx, 50), a, b, "c");
  rlx_relax_var_t* d = te1(bb, te_fill, rlx_ir_i64(ctx, 90), c, "d");
  rlx_relax_var_t* g = te1(bb, te_fill, rlx_ir_i64(ctx, 2), d, "g");
  rlx_relax_var_t* e = te1(bb, te_fill, rlx_ir_i64(ctx, 8), g, "e");
  CHECK_OK(rlx_bb_emit_func_output(bb, &e->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* rw = NULL;
  rlx_module_t* out = plan(ctx, rlx_bb_get(bb), &rw);
  if (!out) return;
  rlx_relax_func_t* f = mem_func(out, "main");
  CHECK(mem_check_plan(ctx, f) == 0);
  const rlx_relax_var_t *ta = nth_alloc(f, 0), *tb = nth_alloc(f, 1), *tc = nth_alloc(f, 2), *td = nth_alloc(f, 3),
                        *tg = nth_alloc(f, 4);
  CHECK(storage_of(f, td) == storage_of(f, ta));
  CHECK(storage_bytes(f, storage_of(f, ta)) == 400);
  CHECK(storage_bytes(f, storage_of(f, tb)) == 1200);
  CHECK(storage_bytes(f, storage_of(f, tc)) == 200);
  CHECK(storage_bytes(f, storage_of(f, tg)) == 8);
  CHECK(storage_of(f, tg) != storage_of(f, tb) && storage_of(f, tg) != storage_of(f, tc));
  rlx_memory_stats_t st = stats(ctx, rw, out);
  CHECK(st.unplanned.bytes == 400 + 1200 + 200 + 360 + 8 + 32);
  CHECK(st.planned.bytes == 400 + 1200 + 200 + 8 + 32);
  CHECK(st.n_storages == 4 && st.n_planned_tensors == 5 && st.n_unplanned_tensors == 1);
  rlx_ctx_free(ctx);
}

/* ---- symbolic sizes ---- */
typedef struct {
  rlx_te_tensor_t* a;
} half_user_t;
static rlx_expr_t* half_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rlx_te_tensor_t* a = user;
  rlx_expr_t* ix[2] = {&idx[0]->hdr, &idx[1]->hdr};
  return rlx_te_load(ctx, a, 2, ix);
}
/* te_half(A (n, k)) → (n, k / 2): out[i, j] = A[i, j]. */
static rlx_status_t* te_half(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user, rlx_te_tensor_t** out) {
  if (n != 1) return NULL;
  rlx_expr_t* shape[2] = {in[0]->buffer->shape[0],
                          rlx_ir_floordiv(ctx, in[0]->buffer->shape[1], rlx_ir_i64(ctx, 2))};
  return *out = rlx_te_compute(ctx, 2, shape, half_body, in[0], "half", ""), NULL;
}

/* x (n, 128): relu x 4 then an output relu. Equal symbolic sizes (n * 512) share storage. */
static void test_symbolic_chain(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_expr_t* n = sym(ctx, "n");
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t2(ctx, n, rlx_ir_i64(ctx, 128), f32));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t* gv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  rlx_relax_var_t* h = x;
  for (int i = 0; i < 4; i++) h = te1(bb, te_relu, NULL, h, "lv");
  CHECK_OK(rlx_bb_emit_output(bb, &h->hdr, "gv", &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* rw = NULL;
  rlx_module_t* out = plan(ctx, rlx_bb_get(bb), &rw);
  if (!out) return;
  rlx_relax_func_t* f = mem_func(out, "main");
  CHECK(mem_check_plan(ctx, f) == 0);
  CHECK(mem_count(f, "relax.memory.alloc_storage") == 2 && mem_count(f, "relax.memory.alloc_tensor") == 3);
  const rlx_relax_var_t *t0 = nth_alloc(f, 0), *t1 = nth_alloc(f, 1), *t2v = nth_alloc(f, 2);
  CHECK(storage_of(f, t0) && storage_of(f, t0) == storage_of(f, t2v) && storage_of(f, t1) != storage_of(f, t0));
  const rlx_relax_binding_t* sb = mem_binding_of(f, storage_of(f, t0));
  if (sb) {
    rlx_expr_t* size = ((rlx_relax_shape_expr_t*)((rlx_relax_call_t*)sb->value)->args[0])->values[0];
    CHECK(rlx_ir_prove_equal(ctx, size, rlx_ir_mul(ctx, n, rlx_ir_i64(ctx, 512))));
  }
  rlx_memory_stats_t st = stats(ctx, rw, out);
  CHECK(!st.unplanned.is_static && !st.planned.is_static);
  CHECK(rlx_ir_prove_equal(ctx, st.unplanned.expr, rlx_ir_mul(ctx, n, rlx_ir_i64(ctx, 4 * 512))));
  CHECK(rlx_ir_prove_equal(ctx, st.planned.expr, rlx_ir_mul(ctx, n, rlx_ir_i64(ctx, 3 * 512))));
  CHECK_STREQ(st.unplanned.str, "n * 2048");
  CHECK_STREQ(st.planned.str, "n * 1536");
  CHECK(st.n_storages == 2 && st.n_planned_tensors == 3 && st.n_unplanned_tensors == 1);
  rlx_ctx_free(ctx);
}

/* (n, 128) then (n, 64) tensors: sizes n * 512 and n * 256 are not provably equal, so a
 * freed n * 512 storage is not reused for n * 256; with tir_var_upper_bound n <= 64 the
 * sizes are constant (32768 and 16384 bytes) and the larger storage is reused. */
static rlx_module_t* mixed_module(rlx_ctx_t* ctx, const rlx_attr_t* bound) {
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_expr_t* n = sym(ctx, "n");
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t2(ctx, n, rlx_ir_i64(ctx, 128), f32));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
  if (bound) CHECK_OK(rlx_bb_function_set_attr(bb, "tir_var_upper_bound", *bound));
  rlx_relax_var_t* h = te1(bb, te_relu, NULL, x, "t0"); /* (n, 128) */
  h = te1(bb, te_half, NULL, h, "t1");                  /* (n, 64) */
  h = te1(bb, te_relu, NULL, h, "t2");
  h = te1(bb, te_relu, NULL, h, "t3");
  h = te1(bb, te_relu, NULL, h, "t4");
  CHECK_OK(rlx_bb_emit_func_output(bb, &h->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  return rlx_bb_get(bb);
}

static void test_symbolic_mixed_and_bounds(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* rw = NULL;
  rlx_module_t* out = plan(ctx, mixed_module(ctx, NULL), &rw);
  if (out) {
    rlx_relax_func_t* f = mem_func(out, "main");
    CHECK(mem_check_plan(ctx, f) == 0);
    const rlx_relax_var_t *t0 = nth_alloc(f, 0), *t1 = nth_alloc(f, 1), *t2v = nth_alloc(f, 2), *t3 = nth_alloc(f, 3);
    CHECK(mem_count(f, "relax.memory.alloc_storage") == 3);
    CHECK(storage_of(f, t2v) != storage_of(f, t0)); /* n * 256 does not take the n * 512 storage */
    CHECK(storage_of(f, t3) == storage_of(f, t1));  /* equal n * 256 sizes share */
    rlx_memory_stats_t st = stats(ctx, rw, out);
    CHECK(!st.planned.is_static);
    CHECK_STREQ(st.planned.str, "n * 1280"); /* storages 512 n + 2 * 256 n, the output 256 n */
  }
  rlx_attr_t bound = rlx_attr_str("{\"n\": 64}");
  out = plan(ctx, mixed_module(ctx, &bound), &rw);
  if (out) {
    rlx_relax_func_t* f = mem_func(out, "main");
    CHECK(mem_check_plan(ctx, f) == 0);
    const rlx_relax_var_t *t0 = nth_alloc(f, 0), *t1 = nth_alloc(f, 1), *t2v = nth_alloc(f, 2), *t3 = nth_alloc(f, 3);
    CHECK(mem_count(f, "relax.memory.alloc_storage") == 2);
    CHECK(storage_of(f, t2v) == storage_of(f, t0) && storage_of(f, t3) == storage_of(f, t1));
    CHECK(storage_bytes(f, storage_of(f, t0)) == 64 * 128 * 4);
    CHECK(storage_bytes(f, storage_of(f, t1)) == 64 * 64 * 4);
    /* the tensors keep their symbolic shapes */
    const rlx_relax_call_t* at = mem_call_of(mem_binding_of(f, &t0->hdr), "relax.memory.alloc_tensor");
    CHECK(at && !rlx_expr_is_const_int(((rlx_relax_shape_expr_t*)at->args[2])->values[0], NULL));
    rlx_memory_stats_t st = stats(ctx, rw, out);
    CHECK(!st.planned.is_static); /* the output keeps its symbolic size */
    rlx_expr_t* n = ((rlx_sinfo_tensor_t*)mem_func(out, "main")->params[0]->hdr.sinfo)->shape[0];
    CHECK(rlx_ir_prove_equal(ctx, st.planned.expr,
                             rlx_ir_add(ctx, rlx_ir_i64(ctx, 32768 + 16384), rlx_ir_mul(ctx, n, rlx_ir_i64(ctx, 256)))));
  }
  /* a name outside the signature is ignored; a bad value is an error */
  rlx_attr_t other = rlx_attr_str("m=8");
  out = plan(ctx, mixed_module(ctx, &other), NULL);
  if (out) CHECK(mem_count(mem_func(out, "main"), "relax.memory.alloc_storage") == 3);
  rlx_attr_t neg = rlx_attr_str("{\"n\": -3}"), not_str = rlx_attr_int(64);
  rlx_module_t* rw2 = NULL;
  rlx_module_t* dummy = NULL;
  CHECK_OK(rlx_pass_call_tir_rewrite(ctx, mixed_module(ctx, &neg), &rw2));
  if (rw2) CHECK_ERR(rlx_pass_plan_memory(ctx, rw2, &dummy), "'n' needs a positive integer bound");
  rw2 = NULL;
  CHECK_OK(rlx_pass_call_tir_rewrite(ctx, mixed_module(ctx, &not_str), &rw2));
  if (rw2) CHECK_ERR(rlx_pass_plan_memory(ctx, rw2, &dummy), "tir_var_upper_bound must be a string");
  rlx_ctx_free(ctx);
}

/* Returned tensors (in a tuple, or through an alias) keep R.builtin.alloc_tensor. */
static void test_outputs_and_aliases(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){4, 8}, rlx_dt_float32()));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *al = NULL, *gv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  rlx_relax_var_t* l0 = te1(bb, te_relu, NULL, x, "l0");
  rlx_relax_var_t* l1 = te1(bb, te_relu, NULL, l0, "l1");
  rlx_relax_var_t* l2 = te1(bb, te_relu, NULL, l1, "l2");
  rlx_relax_var_t* l3 = te1(bb, te_relu, NULL, l2, "l3");
  rlx_relax_var_t* l4 = te1(bb, te_relu, NULL, l3, "l4");
  CHECK_OK(rlx_bb_emit(bb, &l2->hdr, "al", &al));
  CHECK_OK(rlx_bb_emit_output(bb, rlx_relax_tuple(ctx, 3, (rlx_relax_expr_t*[]){&l1->hdr, &al->hdr, &l4->hdr}), "gv",
                              &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* out = plan(ctx, rlx_bb_get(bb), NULL);
  if (!out) return;
  rlx_relax_func_t* f = mem_func(out, "main");
  CHECK(mem_check_plan(ctx, f) == 0);
  CHECK(mem_count(f, "relax.builtin.alloc_tensor") == 3); /* l1, l2 (via al), l4 */
  CHECK(mem_count(f, "relax.memory.alloc_tensor") == 2);  /* l0, l3 */
  CHECK(mem_count(f, "relax.memory.alloc_storage") == 1); /* l3 reuses l0's storage */
  CHECK(storage_of(f, nth_alloc(f, 0)) && storage_of(f, nth_alloc(f, 0)) == storage_of(f, nth_alloc(f, 3)));
  CHECK(storage_of(f, nth_alloc(f, 2)) == NULL);
  rlx_ctx_free(ctx);
}

/* A call_tir with two outputs consumed through the tuple: both are planned, each freed after
 * the relu that reads it. */
static void test_tuple_outputs(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_sinfo_t* t48 = rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){4, 8}, rlx_dt_float32());
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t48);
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *lv = NULL, *a = NULL, *b = NULL, *gv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  rlx_relax_var_t* r0 = te1(bb, te_relu, NULL, x, "r0");
  rlx_relax_expr_t* relu_gv = rlx_relax_global_var(ctx, "relu", NULL);
  rlx_sinfo_t* two = rlx_sinfo_tuple(ctx, 2, (rlx_sinfo_t*[]){t48, t48});
  CHECK_OK(rlx_bb_emit(bb, rlx_relax_call_tir(ctx, relu_gv, 1, (rlx_relax_expr_t*[]){&r0->hdr}, two, NULL), "lv", &lv));
  CHECK_OK(rlx_bb_emit(bb, rlx_relax_tuple_get_item(ctx, &lv->hdr, 0), "a", &a));
  CHECK_OK(rlx_bb_emit(bb, rlx_relax_tuple_get_item(ctx, &lv->hdr, 1), "b", &b));
  rlx_relax_var_t* c = te1(bb, te_relu, NULL, a, "c");
  rlx_relax_var_t* d = te1(bb, te_relu, NULL, b, "d");
  rlx_relax_var_t* e = te1(bb, te_relu, NULL, c, "e");
  CHECK_OK(rlx_bb_emit_output(bb, rlx_relax_tuple(ctx, 2, (rlx_relax_expr_t*[]){&e->hdr, &d->hdr}), "gv", &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* out = plan(ctx, rlx_bb_get(bb), NULL);
  if (!out) return;
  rlx_relax_func_t* f = mem_func(out, "main");
  CHECK(mem_check_plan(ctx, f) == 0);
  /* r0, the two tuple fields and c are planned; d and e are returned */
  CHECK(mem_count(f, "relax.memory.alloc_tensor") == 4 && mem_count(f, "relax.builtin.alloc_tensor") == 2);
  const rlx_relax_var_t *f0 = nth_alloc(f, 1), *f1 = nth_alloc(f, 2), *tc = nth_alloc(f, 3);
  CHECK(storage_of(f, f0) && storage_of(f, f1) && storage_of(f, f0) != storage_of(f, f1));
  /* r0 is dead once the tuple call ran: c reuses its storage */
  CHECK(storage_of(f, tc) == storage_of(f, nth_alloc(f, 0)));
  CHECK(mem_count(f, "relax.memory.alloc_storage") == 3);
  rlx_ctx_free(ctx);
}

/* A tensor passed to call_packed lives to the end of its block: without the call t2 reuses
 * t0's storage, with it t2 needs another one; t0 is killed at the end of the block. */
static void test_call_packed_lives_to_end(void) {
  for (int with_packed = 0; with_packed < 2; with_packed++) {
    rlx_ctx_t* ctx = rlx_ctx_create();
    rlx_relax_var_t* x = rlx_relax_var(ctx, "x", rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){4, 8}, rlx_dt_float32()));
    rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
    CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
    CHECK_OK(rlx_bb_function_set_pure(bb, false));
    rlx_relax_var_t* t0 = te1(bb, te_relu, NULL, x, "t0");
    if (with_packed) {
      rlx_relax_var_t* v = NULL;
      CHECK_OK(rlx_bb_emit(bb, rlx_relax_call_packed(ctx, "ext_print", 1, (rlx_relax_expr_t*[]){&t0->hdr}, 0, NULL),
                           "_", &v));
    }
    rlx_relax_var_t* t1 = te1(bb, te_relu, NULL, t0, "t1");
    rlx_relax_var_t* t2 = te1(bb, te_relu, NULL, t1, "t2");
    rlx_relax_var_t* t3 = te1(bb, te_relu, NULL, t2, "t3");
    CHECK_OK(rlx_bb_emit_func_output(bb, &t3->hdr, 0, NULL));
    CHECK_OK(rlx_bb_function_end(bb, NULL));
    rlx_module_t* out = plan(ctx, rlx_bb_get(bb), NULL);
    if (!out) continue;
    rlx_relax_func_t* f = mem_func(out, "main");
    CHECK(mem_check_plan(ctx, f) == 0);
    CHECK(rlx_attrs_get(&f->attrs, "relax.force_pure") == NULL && !f->is_pure);
    const rlx_relax_var_t *a0 = nth_alloc(f, 0), *a2 = nth_alloc(f, 2);
    CHECK_MSG(mem_count(f, "relax.memory.alloc_storage") == (with_packed ? 3 : 2), "with_packed=%d", with_packed);
    CHECK_MSG((storage_of(f, a0) == storage_of(f, a2)) == !with_packed, "with_packed=%d", with_packed);
    if (with_packed) { /* kill_tensor(t0) comes after the last call, just before the storages' kills */
      const rlx_relax_block_t* blk = ((const rlx_relax_seq_t*)f->body)->blocks[0];
      int n = blk->n_bindings;
      CHECK(n > 3);
      const rlx_relax_call_t* k = mem_call_of(blk->bindings[n - 4], "relax.memory.kill_tensor");
      CHECK(k && k->args[0] == &a0->hdr);
      CHECK(mem_call_of(blk->bindings[n - 5], "relax.memory.kill_tensor") != NULL); /* t2's, after t3's call */
      CHECK(mem_call_of(blk->bindings[n - 1], "relax.memory.kill_storage") != NULL);
    }
    rlx_ctx_free(ctx);
  }
}

/* call_dps_packed becomes an ExternFunc call: its input and output live to the end, unless
 * the function is a kernel of the runtime's library (rlx.nn.*), which keeps no reference:
 * then t0 dies at the call and t2 takes its storage. */
static void check_dps_packed(const char* fn, int want_storages) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_sinfo_t* t48 = rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){4, 8}, rlx_dt_float32());
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t48);
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *t1 = NULL, *gv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  rlx_relax_var_t* t0 = te1(bb, te_relu, NULL, x, "t0");
  CHECK_OK(rlx_bb_emit(bb, rlx_relax_call_dps_packed(ctx, fn, 1, (rlx_relax_expr_t*[]){&t0->hdr}, t48), "t1", &t1));
  rlx_relax_var_t* t2 = te1(bb, te_relu, NULL, t1, "t2");
  rlx_relax_var_t* t3 = te1(bb, te_relu, NULL, t2, "t3");
  CHECK_OK(rlx_bb_emit_output(bb, &t3->hdr, "gv", &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* out = plan(ctx, rlx_bb_get(bb), NULL);
  if (!out) return;
  rlx_relax_func_t* f = mem_func(out, "main");
  CHECK(mem_check_plan(ctx, f) == 0);
  CHECK_MSG(mem_count(f, "relax.memory.alloc_storage") == want_storages, "%s: %d storages, expected %d", fn,
            mem_count(f, "relax.memory.alloc_storage"), want_storages);
  CHECK(mem_count(f, "relax.memory.kill_tensor") == 3);
  rlx_ctx_free(ctx);
}

static void test_dps_packed(void) {
  check_dps_packed("ext_f", 3);                  /* t0, t1 to the end; t2 */
  check_dps_packed("rlx.nn.max_pool2d_nchwc", 2); /* t0 then t2; t1 */
}

/* A tensor used in a later block escapes its block and is not planned; one used only in its
 * own block is. */
static void test_escape_block(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){4, 8}, rlx_dt_float32()));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *g0 = NULL, *g1 = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  rlx_relax_var_t* a = te1(bb, te_relu, NULL, x, "a");
  rlx_relax_var_t* b = te1(bb, te_relu, NULL, a, "b");
  CHECK_OK(rlx_bb_emit_output(bb, &b->hdr, "g0", &g0));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  rlx_relax_var_t* c = te1(bb, te_relu, NULL, g0, "c");
  CHECK_OK(rlx_bb_emit_output(bb, &c->hdr, "g1", &g1));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &g1->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* out = plan(ctx, rlx_bb_get(bb), NULL);
  if (!out) return;
  rlx_relax_func_t* f = mem_func(out, "main");
  CHECK(mem_check_plan(ctx, f) == 0);
  CHECK(((rlx_relax_seq_t*)f->body)->n_blocks == 2);
  CHECK(storage_of(f, nth_alloc(f, 0)) != NULL);  /* a: used in block 0 only */
  CHECK(storage_of(f, nth_alloc(f, 1)) == NULL);  /* b: read in block 1 */
  CHECK(storage_of(f, nth_alloc(f, 2)) == NULL);  /* c: returned */
  /* the kill_storage is at the end of the last block (the end of the function) */
  const rlx_relax_block_t* last = ((rlx_relax_seq_t*)f->body)->blocks[1];
  CHECK(mem_call_of(last->bindings[last->n_bindings - 1], "relax.memory.kill_storage") != NULL);
  rlx_ctx_free(ctx);
}

/* An If branch is planned on its own: its storages are allocated and killed inside it. A
 * dataflow block (call_tir_rewrite not run) is left unplanned. */
static void test_if_branch_and_dataflow(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_sinfo_t* t48 = rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){4, 8}, f32);
  rlx_relax_var_t* x0 = rlx_relax_var(ctx, "x", t48);
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t* gv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "helper", 1, &x0));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  rlx_relax_var_t* r = te1(bb, te_relu, NULL, x0, "r");
  r = te1(bb, te_relu, NULL, r, "r");
  r = te1(bb, te_relu, NULL, r, "r");
  CHECK_OK(rlx_bb_emit_output(bb, &r->hdr, "gv", &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* m = rlx_bb_get(bb);
  /* plan_memory straight on dataflow blocks: nothing to do */
  rlx_module_t* same = NULL;
  CHECK_OK(rlx_pass_plan_memory(ctx, m, &same));
  if (same) CHECK(mem_func(same, "helper") == mem_func(m, "helper"));

  /* main(x, c) { y = If(c, { a = relu(x); b = relu(a); d = relu(b); d }, x); return y } */
  rlx_relax_expr_t* relu_gv = rlx_relax_global_var(ctx, "relu", NULL);
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t48);
  rlx_relax_var_t* c = rlx_relax_var(ctx, "c", rlx_sinfo_prim(ctx, rlx_dt_bool(), NULL));
  rlx_relax_binding_t* bs[3];
  rlx_relax_var_t* prev = x;
  for (int i = 0; i < 3; i++) {
    rlx_relax_var_t* v = rlx_relax_var(ctx, "v", NULL);
    bs[i] = rlx_relax_var_binding(ctx, v, rlx_relax_call_tir(ctx, relu_gv, 1, (rlx_relax_expr_t*[]){&prev->hdr}, t48, NULL));
    prev = v;
  }
  rlx_relax_block_t* blk0 = rlx_relax_block(ctx, false, 3, bs);
  rlx_relax_expr_t* then_b = rlx_relax_seq(ctx, 1, &blk0, &prev->hdr);
  rlx_relax_expr_t* else_b = rlx_relax_seq(ctx, 0, NULL, &x->hdr);
  rlx_relax_var_t* y = rlx_relax_var(ctx, "y", NULL);
  rlx_relax_binding_t* b1 = rlx_relax_var_binding(ctx, y, rlx_relax_if(ctx, &c->hdr, then_b, else_b));
  rlx_relax_block_t* blk1 = rlx_relax_block(ctx, false, 1, &b1);
  rlx_relax_func_t* f0 = rlx_relax_func(ctx, 2, (rlx_relax_var_t*[]){x, c}, rlx_relax_seq(ctx, 1, &blk1, &y->hdr),
                                        NULL, (rlx_attrs_t){0}, true);
  rlx_module_set(m, "main", RLX_FUNC_RELAX, f0);
  CHECK_OK(rlx_relax_normalize(ctx, m, &f0->hdr));
  rlx_module_t* out = plan(ctx, m, NULL);
  if (!out) return;
  rlx_relax_func_t* f = mem_func(out, "main");
  const rlx_relax_seq_t* s = (const rlx_relax_seq_t*)f->body;
  CHECK(s->n_blocks == 1 && s->blocks[0]->n_bindings == 1); /* nothing planned at the top */
  const rlx_relax_if_t* iff = (const rlx_relax_if_t*)s->blocks[0]->bindings[0]->value;
  if (iff->hdr.kind == RLX_RELAX_IF && iff->then_branch->kind == RLX_RELAX_SEQ) {
    rlx_relax_func_t tmp = *f; /* check the branch with the oracle, as a function body */
    tmp.body = iff->then_branch;
    CHECK(mem_check_plan(ctx, &tmp) == 0);
    const rlx_relax_seq_t* ts = (const rlx_relax_seq_t*)iff->then_branch;
    const rlx_relax_block_t* tb = ts->blocks[ts->n_blocks - 1];
    CHECK(mem_call_of(tb->bindings[tb->n_bindings - 1], "relax.memory.kill_storage") != NULL);
  } else {
    CHECK(!"the If was rewritten away");
  }
  /* a, b planned in the branch (b reuses nothing: a is alive when b is allocated); d returned */
  CHECK(mem_count(f, "relax.memory.alloc_storage") == 2 && mem_count(f, "relax.memory.alloc_tensor") == 2);
  CHECK(mem_count(f, "relax.builtin.alloc_tensor") == 1);
  /* helper: the two intermediates planned */
  CHECK(mem_count(mem_func(out, "helper"), "relax.memory.alloc_tensor") == 2);
  rlx_ctx_free(ctx);
}

/* The statistics stop at the first allocation whose size they cannot read: a storage sized
 * by a shape var, then a tensor whose shape is a var, each named in the error. */
static void test_stats_errors(void) {
  static const char* storage_src =
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function(pure=False)\n"
      "    def main(s: R.Shape([64])) -> R.Object:\n"
      "        storage: R.Object = R.memory.alloc_storage(s, R.prim_value(0), R.str(\"global\"), R.dtype(\"uint8\"))\n"
      "        return storage\n";
  static const char* tensor_src =
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function(pure=False)\n"
      "    def main(s: R.Shape([4, 8])) -> R.Tensor((4, 8), dtype=\"float32\"):\n"
      "        alloc: R.Tensor((4, 8), dtype=\"float32\") = R.builtin.alloc_tensor(s, R.dtype(\"float32\"), R.prim_value(0))\n"
      "        return alloc\n";
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t *ms = NULL, *mt = NULL;
  CHECK_OK(rlx_script_parse(ctx, storage_src, "storage.py", &ms));
  CHECK_OK(rlx_script_parse(ctx, tensor_src, "tensor.py", &mt));
  rlx_memory_stats_t bad;
  if (ms)
    CHECK_ERR(rlx_memory_stats(ctx, ms, ms, "main", &bad),
              "memory stats: Call(relax.memory.alloc_storage) has no known size");
  if (mt)
    CHECK_ERR(rlx_memory_stats(ctx, mt, mt, "main", &bad),
              "memory stats: Call(relax.builtin.alloc_tensor) has no known shape and dtype");
  rlx_ctx_free(ctx);
}

int main(void) {
  test_mlp_chain();
  test_best_fit_growth();
  test_smallest_fit_and_range();
  test_symbolic_chain();
  test_symbolic_mixed_and_bounds();
  test_outputs_and_aliases();
  test_tuple_outputs();
  test_call_packed_lives_to_end();
  test_dps_packed();
  test_escape_block();
  test_if_branch_and_dataflow();
  test_stats_errors();
  TEST_MAIN_END();
}
