/* Relax traversal helpers: visit, transform/rebuild, var substitution (the original stays
 * unchanged), symbolic substitution in struct info, and re-emitting bindings with the
 * BlockBuilder the way a pass rebuilds a function. */
#include "relax_test_util.h"
#include "test.h"

static rlx_module_t* build_mlc(rlx_ctx_t* ctx, rlx_relax_var_t** out_a, rlx_relax_var_t** out_b) {
  rlx_dtype_t f32 = rlx_dt_float32();
  int64_t dims[2] = {16, 16};
  rlx_relax_var_t* A = rlx_relax_var(ctx, "A", rlx_sinfo_tensor_const(ctx, 2, dims, f32));
  rlx_relax_var_t* B = rlx_relax_var(ctx, "B", rlx_sinfo_tensor_const(ctx, 2, dims, f32));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *lv0 = NULL, *lv1 = NULL, *gv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 0, NULL));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  CHECK_OK(rlx_bb_emit_te(bb, te_matmul, NULL, 2, (rlx_relax_expr_t*[]){&A->hdr, &B->hdr}, NULL, NULL, &lv0));
  CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&lv0->hdr}, NULL, NULL, &lv1));
  CHECK_OK(rlx_bb_emit_output(bb, &lv1->hdr, NULL, &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, 2, (rlx_relax_var_t*[]){A, B}));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  *out_a = A;
  *out_b = B;
  return rlx_bb_get(bb);
}

static void count_calls(const rlx_relax_expr_t* e, void* user) {
  if (e->kind == RLX_RELAX_CALL) ++*(int*)user;
}

static rlx_status_t* rename_ext(rlx_ctx_t* ctx, rlx_relax_expr_t* e, void* user, rlx_relax_expr_t** out) {
  *out = e->kind == RLX_RELAX_EXTERN_FUNC ? rlx_relax_extern_func(ctx, user) : e;
  return NULL;
}

/* Fails on the first Call it sees, counting the nodes it was given. */
static rlx_status_t* fail_on_call(rlx_ctx_t* ctx, rlx_relax_expr_t* e, void* user, rlx_relax_expr_t** out) {
  (void)ctx;
  ++*(int*)user;
  *out = e;
  if (e->kind == RLX_RELAX_CALL) return rlx_status_create(RLX_INVALID_ARGUMENT, "no calls here");
  return NULL;
}

static void test_visit_substitute(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_relax_var_t *A, *B;
  rlx_module_t* m = build_mlc(ctx, &A, &B);
  rlx_relax_func_t* f = rlx_module_find(m, "main")->func;
  int calls = 0;
  rlx_relax_expr_visit(&f->hdr, count_calls, &calls);
  CHECK(calls == 2);
  rlx_relax_expr_t* same = NULL;
  CHECK_OK(rlx_relax_expr_transform(ctx, &f->hdr, NULL, NULL, &same));
  CHECK(same == &f->hdr); /* identity keeps the node */

  rlx_ptrmap_t vmap = {0};
  rlx_ptrmap_put(&vmap, A, &B->hdr);
  rlx_relax_expr_t* g = rlx_relax_expr_substitute(ctx, &f->hdr, &vmap);
  rlx_ptrmap_free(&vmap);
  CHECK(g != &f->hdr && g->kind == RLX_RELAX_FUNCTION);
  CHECK_OK(rlx_relax_normalize(ctx, m, g));
  rlx_relax_func_t* gf = (rlx_relax_func_t*)g;
  rlx_relax_call_t* c_new = (rlx_relax_call_t*)((rlx_relax_seq_t*)gf->body)->blocks[0]->bindings[0]->value;
  rlx_relax_call_t* c_old = (rlx_relax_call_t*)((rlx_relax_seq_t*)f->body)->blocks[0]->bindings[0]->value;
  CHECK(((rlx_relax_tuple_t*)c_new->args[1])->fields[0] == &B->hdr);
  CHECK(((rlx_relax_tuple_t*)c_old->args[1])->fields[0] == &A->hdr); /* the original is untouched */
  CHECK_STREQ(rlx_sinfo_str(ctx, c_new->hdr.sinfo), "R.Tensor((16, 16), dtype=\"float32\")");
  /* the second binding did not change: shared */
  CHECK(((rlx_relax_seq_t*)gf->body)->blocks[0]->bindings[1] == ((rlx_relax_seq_t*)f->body)->blocks[0]->bindings[1]);
  CHECK(!rlx_relax_func_equal(f, gf));
  CHECK_OK(rlx_relax_func_well_formed(ctx, m, "substituted", gf));

  /* transform with a callback: rename an extern function */
  int64_t d4 = 4;
  rlx_sinfo_t* t4 = rlx_sinfo_tensor_const(ctx, 1, &d4, rlx_dt_float32());
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t4);
  rlx_relax_expr_t* xe = &x->hdr;
  rlx_relax_expr_t* call = rlx_relax_call_dps_packed(ctx, "old_name", 1, &xe, t4);
  rlx_relax_expr_t* renamed = NULL;
  CHECK_OK(rlx_relax_expr_transform(ctx, call, rename_ext, (void*)"new_name", &renamed));
  CHECK(renamed != call);
  CHECK_STREQ(rlx_relax_expr_brief(ctx, renamed), "Call(relax.call_dps_packed, ExternFunc \"new_name\")");
  CHECK(renamed->sinfo == NULL);
  CHECK_OK(rlx_relax_normalize(ctx, m, renamed));
  CHECK(renamed->sinfo == t4);

  /* a failing callback stops the walk: its status comes back as it is */
  int seen = 0;
  rlx_relax_expr_t* r = NULL;
  rlx_status_t* st = rlx_relax_expr_transform(ctx, call, fail_on_call, &seen, &r);
  CHECK(st && rlx_status_code(st) == RLX_INVALID_ARGUMENT);
  CHECK_STREQ(rlx_status_message(st), "no calls here");
  CHECK(seen == 5); /* the op, the extern func, the var, the tuple of args, then the call */
  rlx_status_free(st);
  rlx_ctx_free(ctx);
}

static void test_sinfo_substitute(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t *n = sym(ctx, "n"), *m = sym(ctx, "m");
  rlx_sinfo_t* s = t2(ctx, rlx_ir_mul(ctx, n, rlx_ir_i64(ctx, 2)), m, rlx_dt_float32());
  rlx_sinfo_t* tup = rlx_sinfo_tuple(ctx, 2, (rlx_sinfo_t*[]){s, rlx_sinfo_prim(ctx, rlx_dt_int64(), n)});
  rlx_ptrmap_t map = {0};
  rlx_ptrmap_put(&map, n, rlx_ir_i64(ctx, 4));
  CHECK_STREQ(rlx_sinfo_str(ctx, rlx_sinfo_substitute(ctx, tup, &map)),
              "R.Tuple(R.Tensor((8, m), dtype=\"float32\"), R.Prim(value=4))");
  rlx_ptrmap_t other = {0};
  rlx_ptrmap_put(&other, sym(ctx, "q"), rlx_ir_i64(ctx, 1));
  CHECK(rlx_sinfo_substitute(ctx, tup, &other) == tup);
  rlx_ptrmap_free(&map);
  rlx_ptrmap_free(&other);
  rlx_ctx_free(ctx);
}

/* A pass-style rebuild: a new module gets the PrimFuncs, main is re-emitted binding by
 * binding and comes out structurally equal. */
static void test_emit_binding(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_relax_var_t *A, *B;
  rlx_module_t* m = build_mlc(ctx, &A, &B);
  rlx_relax_func_t* f = rlx_module_find(m, "main")->func;
  rlx_module_t* m2 = rlx_module_create(ctx);
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].kind == RLX_FUNC_TIR) rlx_module_set(m2, m->funcs[i].name, RLX_FUNC_TIR, m->funcs[i].func);
  rlx_bb_t* bb = rlx_bb_create(ctx, m2);
  CHECK_OK(rlx_bb_function_begin(bb, "main", f->n_params, f->params));
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
  for (int b = 0; b < seq->n_blocks; b++) {
    if (seq->blocks[b]->is_dataflow) CHECK_OK(rlx_bb_dataflow_begin(bb));
    for (int k = 0; k < seq->blocks[b]->n_bindings; k++) CHECK_OK(rlx_bb_emit_binding(bb, seq->blocks[b]->bindings[k]));
    if (seq->blocks[b]->is_dataflow) CHECK_OK(rlx_bb_dataflow_end(bb));
  }
  /* a DataflowVar binding outside a dataflow block is refused */
  CHECK_ERR(rlx_bb_emit_binding(bb, seq->blocks[0]->bindings[0]), "outside a dataflow block");
  CHECK_OK(rlx_bb_emit_func_output(bb, seq->body, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_relax_func_t* f2 = rlx_module_find(m2, "main")->func;
  CHECK(f2 != f);
  CHECK(rlx_relax_func_equal(f, f2));
  CHECK_OK(rlx_relax_well_formed(ctx, m2));
  rlx_ctx_free(ctx);
}

/* Legalization-style rewrite: lv = R.nn.relu(x) becomes lv = R.call_tir(relu, (x,), ...) with
 * the same var, through call_te + emit_binding. */
static void test_call_te_legalize(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = rlx_module_create(ctx);
  rlx_expr_t* n = sym(ctx, "n");
  rlx_sinfo_t* tn = rlx_sinfo_tensor(ctx, 1, &n, rlx_dt_float32());
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", tn);
  rlx_relax_expr_t* xe = &x->hdr;
  rlx_relax_expr_t* relu = rlx_relax_call(ctx, rlx_relax_op(ctx, RLX_OP_RELU), 1, &xe, (rlx_attrs_t){0, NULL}, 0, NULL);
  relu->sinfo = tn; /* what the op registry will infer */
  rlx_relax_var_t* lv = rlx_relax_dataflow_var(ctx, "lv", tn);
  rlx_relax_var_t* gv = rlx_relax_var(ctx, "gv", tn);
  rlx_relax_binding_t* bs[2] = {rlx_relax_var_binding(ctx, lv, relu), rlx_relax_var_binding(ctx, gv, &lv->hdr)};
  rlx_relax_block_t* blk = rlx_relax_block(ctx, true, 2, bs);
  rlx_relax_func_t* f = rlx_relax_func(ctx, 1, &x, rlx_relax_seq(ctx, 1, &blk, &gv->hdr), NULL, (rlx_attrs_t){0, NULL}, true);
  CHECK_OK(rlx_relax_normalize(ctx, m, &f->hdr));
  rlx_module_set(m, "main", RLX_FUNC_RELAX, f);
  CHECK_OK(rlx_relax_well_formed(ctx, m));

  rlx_bb_t* bb = rlx_bb_create(ctx, m);
  rlx_relax_expr_t* call = NULL;
  CHECK_OK(rlx_bb_call_te(bb, te_relu, NULL, 1, &xe, NULL, &call)); /* no function open: fine */
  CHECK(call && rlx_relax_is_op(((rlx_relax_call_t*)call)->op, RLX_OP_CALL_TIR) && call->sinfo);
  CHECK_OK(rlx_bb_function_begin(bb, "main", f->n_params, f->params));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  for (int k = 0; k < blk->n_bindings; k++) {
    rlx_relax_binding_t* b = blk->bindings[k];
    if (b->value->kind == RLX_RELAX_CALL && rlx_relax_is_op(((rlx_relax_call_t*)b->value)->op, RLX_OP_RELU)) {
      rlx_relax_call_t* c = (rlx_relax_call_t*)b->value;
      rlx_relax_expr_t* legal = NULL;
      CHECK_OK(rlx_bb_call_te(bb, te_relu, NULL, c->n_args, c->args, NULL, &legal));
      CHECK_OK(rlx_bb_emit_binding(bb, rlx_relax_var_binding(ctx, b->var, legal)));
    } else {
      CHECK_OK(rlx_bb_emit_binding(bb, b));
    }
  }
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, 0, NULL));
  rlx_relax_func_t* nf0 = NULL;
  CHECK_OK(rlx_bb_function_finish(bb, &nf0));
  CHECK_ERR(rlx_bb_update_func(bb, "nope", RLX_FUNC_RELAX, nf0), "no function 'nope'");
  CHECK_OK(rlx_bb_update_func(bb, "main", RLX_FUNC_RELAX, nf0));
  CHECK(m->n_funcs == 2 && rlx_module_find(m, "relu") != NULL); /* main + relu (deduplicated) */
  const rlx_attr_t* gs = rlx_attrs_get(&nf0->attrs, "global_symbol");
  CHECK(gs && strcmp(gs->u.s, "main") == 0);
  rlx_relax_func_t* nf = rlx_module_find(m, "main")->func;
  rlx_relax_call_t* c0 = (rlx_relax_call_t*)((rlx_relax_seq_t*)nf->body)->blocks[0]->bindings[0]->value;
  CHECK(rlx_relax_is_op(c0->op, RLX_OP_CALL_TIR));
  CHECK(((rlx_relax_seq_t*)nf->body)->blocks[0]->bindings[0]->var == lv);
  CHECK_OK(rlx_relax_well_formed(ctx, m));
  rlx_ctx_free(ctx);
}

int main(void) {
  test_call_te_legalize();
  test_visit_substitute();
  test_sinfo_substitute();
  test_emit_binding();
  TEST_MAIN_END();
}
