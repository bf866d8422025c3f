/* Pass call_tir_rewrite: before → pass → expected structure (one line per binding), for a
 * matmul + relu dataflow block, symbolic shapes with tir_vars, tuple outputs,
 * call_dps_packed, call_tir inside If branches, and outputs without a known shape. The
 * module is checked well-formed after the pass and the input module is left as it was. */
#include "test_pass_plan_memory_util.h"

static const char* S(rlx_ctx_t* ctx, const rlx_sinfo_t* s) { return rlx_sinfo_str(ctx, s); }

static bool has_force_pure(const rlx_relax_func_t* f) {
  const rlx_attr_t* a = rlx_attrs_get(&f->attrs, "relax.force_pure");
  return a && a->kind == RLX_ATTR_BOOL && a->u.b;
}

/* main(x: (4, 16), w: (16, 8)) { dataflow { lv = matmul(x, w); lv1 = relu(lv); gv = lv1 } return gv } */
static void test_matmul_relu(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){4, 16}, f32));
  rlx_relax_var_t* w = rlx_relax_var(ctx, "w", rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){16, 8}, f32));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *lv = NULL, *lv1 = NULL, *gv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 2, (rlx_relax_var_t*[]){x, w}));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  CHECK_OK(rlx_bb_emit_te(bb, te_matmul, NULL, 2, (rlx_relax_expr_t*[]){&x->hdr, &w->hdr}, NULL, NULL, &lv));
  CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&lv->hdr}, NULL, NULL, &lv1));
  CHECK_OK(rlx_bb_emit_output(bb, &lv1->hdr, "gv", &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* m = rlx_bb_get(bb);
  CHECK_OK(rlx_relax_well_formed(ctx, m));
  rlx_relax_func_t* before = mem_func(m, "main");

  rlx_module_t* out = NULL;
  CHECK_OK(rlx_pass_call_tir_rewrite(ctx, m, &out));
  if (!out) return;
  CHECK_OK(rlx_relax_well_formed(ctx, out));
  rlx_relax_func_t* f = mem_func(out, "main");
  CHECK_STREQ(mem_summary(ctx, f),
              "block:\n"
              "  alloc = R.builtin.alloc_tensor(R.shape([4, 8]), float32, 0)\n"
              "  _ = @matmul(x, w, alloc)\n"
              "  alloc1 = R.builtin.alloc_tensor(R.shape([4, 8]), float32, 0)\n"
              "  _1 = @relu(alloc, alloc1)\n"
              "  gv = alloc1\n"
              "return gv");
  /* struct info and purity of the new bindings; gv keeps its identity */
  const rlx_relax_seq_t* s = (const rlx_relax_seq_t*)f->body;
  CHECK(s->n_blocks == 1 && !s->blocks[0]->is_dataflow && s->blocks[0]->n_bindings == 5);
  if (s->n_blocks == 1 && s->blocks[0]->n_bindings == 5) {
    rlx_relax_binding_t** b = s->blocks[0]->bindings;
    CHECK_STREQ(S(ctx, b[0]->var->hdr.sinfo), "R.Tensor((4, 8), dtype=\"float32\")");
    CHECK_STREQ(S(ctx, b[0]->value->sinfo), "R.Tensor((4, 8), dtype=\"float32\")");
    CHECK(rlx_relax_call_is_pure((rlx_relax_call_t*)b[0]->value));
    CHECK_STREQ(S(ctx, b[1]->var->hdr.sinfo), "R.Tuple");
    CHECK_STREQ(S(ctx, b[1]->value->sinfo), "R.Tuple");
    CHECK(b[1]->var->hdr.kind == RLX_RELAX_VAR && b[2]->var->hdr.kind == RLX_RELAX_VAR);
    CHECK(b[4]->var == gv);
    CHECK(s->body == &gv->hdr);
  }
  CHECK(has_force_pure(f) && f->is_pure);
  CHECK_STREQ(S(ctx, f->ret_sinfo), "R.Tensor((4, 8), dtype=\"float32\")");
  /* the input is untouched, PrimFuncs are shared */
  CHECK(mem_func(m, "main") == before && mem_has_dataflow(before) && !has_force_pure(before));
  CHECK(mem_count(before, "relax.call_tir") == 2 && mem_count(f, "relax.call_tir") == 0);
  CHECK(rlx_module_find(out, "matmul")->func == rlx_module_find(m, "matmul")->func);
  /* running the pass again changes nothing structurally: no call_tir is left */
  rlx_module_t* again = NULL;
  CHECK_OK(rlx_pass_call_tir_rewrite(ctx, out, &again));
  if (again) CHECK(rlx_relax_func_equal(mem_func(again, "main"), f));
  rlx_ctx_free(ctx);
}

/* fill(x) with the output length m * 2 passes m as tir_vars: the shape goes last. */
static void test_symbolic_tir_vars(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_expr_t *n = sym(ctx, "n"), *mm = sym(ctx, "m");
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", rlx_sinfo_tensor(ctx, 1, &n, f32));
  rlx_relax_var_t* sh = rlx_relax_var(ctx, "s", rlx_sinfo_shape(ctx, 1, &mm));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *lv = NULL, *lv1 = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 2, (rlx_relax_var_t*[]){x, sh}));
  rlx_expr_t* m2 = rlx_ir_mul(ctx, mm, rlx_ir_i64(ctx, 2));
  CHECK_OK(rlx_bb_emit_te(bb, te_fill, m2, 1, (rlx_relax_expr_t*[]){&x->hdr}, NULL, NULL, &lv));
  CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&x->hdr}, NULL, NULL, &lv1));
  CHECK_OK(rlx_bb_emit_func_output(bb, rlx_relax_tuple(ctx, 2, (rlx_relax_expr_t*[]){&lv->hdr, &lv1->hdr}), 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* m = rlx_bb_get(bb);
  rlx_module_t* out = NULL;
  CHECK_OK(rlx_pass_call_tir_rewrite(ctx, m, &out));
  if (!out) return;
  CHECK_OK(rlx_relax_well_formed(ctx, out));
  CHECK_STREQ(mem_summary(ctx, mem_func(out, "main")),
              "block:\n"
              "  alloc = R.builtin.alloc_tensor(R.shape([m * 2]), float32, 0)\n"
              "  _ = @fill(x, alloc, R.shape([m]))\n"
              "  alloc1 = R.builtin.alloc_tensor(R.shape([n]), float32, 0)\n"
              "  _1 = @relu(x, alloc1)\n"
              "return (alloc, alloc1)");
  CHECK_STREQ(S(ctx, mem_func(out, "main")->ret_sinfo),
              "R.Tuple(R.Tensor((m * 2,), dtype=\"float32\"), R.Tensor((n,), dtype=\"float32\"))");
  rlx_ctx_free(ctx);
}

/* A call_tir with two outputs: one alloc each, and lv = (alloc, alloc1) stays bound. */
static void test_tuple_output(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_sinfo_t* t48 = rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){4, 8}, f32);
  rlx_sinfo_t* t22 = rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){2, 2}, rlx_dt_int32());
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t48);
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *lv0 = NULL, *lv = NULL, *a = NULL, *b = NULL, *gv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&x->hdr}, NULL, NULL, &lv0));
  rlx_relax_expr_t* relu_gv = rlx_relax_global_var(ctx, "relu", NULL);
  rlx_sinfo_t* two = rlx_sinfo_tuple(ctx, 2, (rlx_sinfo_t*[]){t48, t22});
  CHECK_OK(rlx_bb_emit(bb, rlx_relax_call_tir(ctx, relu_gv, 1, (rlx_relax_expr_t*[]){&lv0->hdr}, two, NULL), "lv", &lv));
  CHECK_OK(rlx_bb_emit(bb, rlx_relax_tuple_get_item(ctx, &lv->hdr, 0), "a", &a));
  CHECK_OK(rlx_bb_emit(bb, rlx_relax_tuple_get_item(ctx, &lv->hdr, 1), "b", &b));
  CHECK_OK(rlx_bb_emit_output(bb, rlx_relax_tuple(ctx, 2, (rlx_relax_expr_t*[]){&a->hdr, &b->hdr}), "gv", &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* m = rlx_bb_get(bb);
  CHECK_OK(rlx_relax_well_formed(ctx, m));
  rlx_module_t* out = NULL;
  CHECK_OK(rlx_pass_call_tir_rewrite(ctx, m, &out));
  if (!out) return;
  CHECK_OK(rlx_relax_well_formed(ctx, out));
  rlx_relax_func_t* f = mem_func(out, "main");
  CHECK_STREQ(mem_summary(ctx, f),
              "block:\n"
              "  alloc = R.builtin.alloc_tensor(R.shape([4, 8]), float32, 0)\n"
              "  _ = @relu(x, alloc)\n"
              "  alloc1 = R.builtin.alloc_tensor(R.shape([4, 8]), float32, 0)\n"
              "  alloc2 = R.builtin.alloc_tensor(R.shape([2, 2]), int32, 0)\n"
              "  _1 = @relu(alloc, alloc1, alloc2)\n"
              "  lv1 = (alloc1, alloc2)\n"
              "  a = lv1[0]\n"
              "  b = lv1[1]\n"
              "  gv = (a, b)\n"
              "return gv");
  rlx_ctx_free(ctx);
}

/* call_dps_packed becomes a call of the ExternFunc with the output appended. */
static void test_dps_packed(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_expr_t* n = sym(ctx, "n");
  rlx_sinfo_t* tn = t2(ctx, n, rlx_ir_i64(ctx, 3), f32);
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", tn);
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *lv = NULL, *gv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  CHECK_OK(rlx_bb_emit(bb, rlx_relax_call_dps_packed(ctx, "my_ext", 1, (rlx_relax_expr_t*[]){&x->hdr}, tn), NULL, &lv));
  CHECK_OK(rlx_bb_emit_output(bb, &lv->hdr, "gv", &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* m = rlx_bb_get(bb);
  rlx_module_t* out = NULL;
  CHECK_OK(rlx_pass_call_tir_rewrite(ctx, m, &out));
  if (!out) return;
  CHECK_OK(rlx_relax_well_formed(ctx, out));
  rlx_relax_func_t* f = mem_func(out, "main");
  CHECK_STREQ(mem_summary(ctx, f),
              "block:\n"
              "  alloc = R.builtin.alloc_tensor(R.shape([n, 3]), float32, 0)\n"
              "  _ = ExternFunc(\"my_ext\")(x, alloc)\n"
              "  gv = alloc\n"
              "return gv");
  const rlx_relax_binding_t* call = ((rlx_relax_seq_t*)f->body)->blocks[0]->bindings[1];
  CHECK_STREQ(S(ctx, call->value->sinfo), "R.Tuple");
  rlx_ctx_free(ctx);
}

/* main(x, c) { y = If(c, { lv = call_tir(relu, (x,)); lv }, x); return y }: the allocation
 * stays inside the branch. */
static void test_if_branch(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_sinfo_t* t48 = rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){4, 8}, f32);
  rlx_relax_var_t* x0 = rlx_relax_var(ctx, "x", t48);
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t* r = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "helper", 1, &x0));
  CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&x0->hdr}, NULL, NULL, &r));
  CHECK_OK(rlx_bb_emit_func_output(bb, &r->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* m = rlx_bb_get(bb);
  rlx_relax_expr_t* relu_gv = rlx_relax_global_var(ctx, "relu", NULL);

  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t48);
  rlx_relax_var_t* c = rlx_relax_var(ctx, "c", rlx_sinfo_prim(ctx, rlx_dt_bool(), NULL));
  rlx_relax_var_t* lv = rlx_relax_var(ctx, "lv", NULL);
  rlx_relax_binding_t* b0 =
      rlx_relax_var_binding(ctx, lv, rlx_relax_call_tir(ctx, relu_gv, 1, (rlx_relax_expr_t*[]){&x->hdr}, t48, NULL));
  rlx_relax_block_t* blk0 = rlx_relax_block(ctx, false, 1, &b0);
  rlx_relax_expr_t* then_b = rlx_relax_seq(ctx, 1, &blk0, &lv->hdr);
  rlx_relax_expr_t* else_b = rlx_relax_seq(ctx, 0, NULL, &x->hdr);
  rlx_relax_var_t* y = rlx_relax_var(ctx, "y", NULL);
  rlx_relax_binding_t* b1 = rlx_relax_var_binding(ctx, y, rlx_relax_if(ctx, &c->hdr, then_b, else_b));
  rlx_relax_block_t* blk1 = rlx_relax_block(ctx, false, 1, &b1);
  rlx_relax_func_t* f0 = rlx_relax_func(ctx, 2, (rlx_relax_var_t*[]){x, c}, rlx_relax_seq(ctx, 1, &blk1, &y->hdr),
                                        NULL, (rlx_attrs_t){0}, true);
  rlx_module_set(m, "main", RLX_FUNC_RELAX, f0);
  CHECK_OK(rlx_relax_normalize(ctx, m, &f0->hdr));
  CHECK_OK(rlx_relax_well_formed(ctx, m));
  rlx_module_t* out = NULL;
  CHECK_OK(rlx_pass_call_tir_rewrite(ctx, m, &out));
  if (!out) return;
  CHECK_OK(rlx_relax_well_formed(ctx, out));
  rlx_relax_func_t* f = mem_func(out, "main");
  const rlx_relax_seq_t* s = (const rlx_relax_seq_t*)f->body;
  CHECK(s->n_blocks == 1 && s->blocks[0]->n_bindings == 1);
  const rlx_relax_if_t* iff = (const rlx_relax_if_t*)s->blocks[0]->bindings[0]->value;
  CHECK(iff->hdr.kind == RLX_RELAX_IF);
  if (iff->hdr.kind == RLX_RELAX_IF) {
    const rlx_relax_seq_t* ts = (const rlx_relax_seq_t*)iff->then_branch;
    CHECK(ts->hdr.kind == RLX_RELAX_SEQ && ts->n_blocks == 1 && ts->blocks[0]->n_bindings == 2);
    if (ts->n_blocks == 1 && ts->blocks[0]->n_bindings == 2) {
      CHECK(mem_call_of(ts->blocks[0]->bindings[0], "relax.builtin.alloc_tensor") != NULL);
      CHECK(ts->body == &ts->blocks[0]->bindings[0]->var->hdr);
    }
    CHECK(iff->else_branch == else_b);
    CHECK_STREQ(S(ctx, iff->hdr.sinfo), "R.Tensor((4, 8), dtype=\"float32\")");
  }
  CHECK(mem_count(f, "relax.builtin.alloc_tensor") == 1 && mem_count(f, "relax.call_tir") == 0);
  /* helper had a call_tir outside any dataflow block: rewritten too */
  CHECK(mem_count(mem_func(out, "helper"), "relax.builtin.alloc_tensor") == 1);
  rlx_ctx_free(ctx);
}

/* An output without a known shape (or dtype) cannot be allocated: error naming the binding. */
static void test_unknown_shape(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_sinfo_t* t48 = rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){4, 8}, f32);
  for (int variant = 0; variant < 2; variant++) {
    rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t48);
    rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
    rlx_relax_var_t *lv = NULL, *lv1 = NULL;
    CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
    CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&x->hdr}, NULL, NULL, &lv));
    rlx_relax_expr_t* relu_gv = rlx_relax_global_var(ctx, "relu", NULL);
    rlx_sinfo_t* bad = variant == 0 ? rlx_sinfo_tensor(ctx, 2, NULL, f32)
                                    : rlx_sinfo_tensor(ctx, 2, ((rlx_sinfo_tensor_t*)t48)->shape, rlx_dt_void());
    CHECK_OK(rlx_bb_emit(bb, rlx_relax_call_tir(ctx, relu_gv, 1, (rlx_relax_expr_t*[]){&lv->hdr}, bad, NULL), "odd",
                         &lv1));
    CHECK_OK(rlx_bb_emit_func_output(bb, &lv1->hdr, 0, NULL));
    CHECK_OK(rlx_bb_function_end(bb, NULL));
    rlx_module_t* out = NULL;
    rlx_status_t* st = rlx_pass_call_tir_rewrite(ctx, rlx_bb_get(bb), &out);
    CHECK(st && strstr(rlx_status_message(st), "a known shape and dtype are needed") &&
          strstr(rlx_status_message(st), "binding odd") && strstr(rlx_status_message(st), "function 'main'"));
    if (st) fprintf(stderr, "(expected) %s\n", rlx_status_message(st));
    rlx_status_free(st);
  }
  rlx_ctx_free(ctx);
}

int main(void) {
  test_matmul_relu();
  test_symbolic_tir_vars();
  test_tuple_output();
  test_dps_packed();
  test_if_branch();
  test_unknown_shape();
  TEST_MAIN_END();
}
