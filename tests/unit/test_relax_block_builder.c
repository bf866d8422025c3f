/* BlockBuilder: the MLC-course example (emit_te matmul + relu in a dataflow block), symbolic
 * shapes through emit_te, tir_vars, match_cast, params given at begin or at the end, and the
 * builder's own errors. */
#include "relax_test_util.h"
#include "test.h"

static const char* S(rlx_ctx_t* ctx, const rlx_sinfo_t* s) { return rlx_sinfo_str(ctx, s); }

static rlx_relax_call_t* binding_call(rlx_relax_func_t* f, int block, int k) {
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
  rlx_relax_expr_t* v = seq->blocks[block]->bindings[k]->value;
  return v->kind == RLX_RELAX_CALL ? (rlx_relax_call_t*)v : NULL;
}

/* with bb.function("main"):
 *   with bb.dataflow():
 *     lv0 = bb.emit_te(te_matmul, A, B); lv1 = bb.emit_te(te_relu, lv0); gv = bb.emit_output(lv1)
 *   bb.emit_func_output(gv, params=[A, B]) */
static void test_mlc_example(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  int64_t dims[2] = {128, 128};
  rlx_relax_var_t* A = rlx_relax_var(ctx, "A", rlx_sinfo_tensor_const(ctx, 2, dims, f32));
  rlx_relax_var_t* B = rlx_relax_var(ctx, "B", rlx_sinfo_tensor_const(ctx, 2, dims, f32));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *lv0 = NULL, *lv1 = NULL, *gv = NULL;
  rlx_relax_expr_t* main_gv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 0, NULL));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  CHECK_OK(rlx_bb_emit_te(bb, te_matmul, NULL, 2, (rlx_relax_expr_t*[]){&A->hdr, &B->hdr}, NULL, NULL, &lv0));
  CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&lv0->hdr}, NULL, NULL, &lv1));
  CHECK_OK(rlx_bb_emit_output(bb, &lv1->hdr, NULL, &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, 2, (rlx_relax_var_t*[]){A, B}));
  CHECK_OK(rlx_bb_function_end(bb, &main_gv));
  rlx_module_t* m = rlx_bb_get(bb);

  CHECK(m->n_funcs == 3);
  rlx_module_entry_t* mm = rlx_module_find(m, "matmul");
  rlx_module_entry_t* relu = rlx_module_find(m, "relu");
  rlx_module_entry_t* mainf = rlx_module_find(m, "main");
  CHECK(mm && mm->kind == RLX_FUNC_TIR);
  CHECK(relu && relu->kind == RLX_FUNC_TIR);
  CHECK(mainf && mainf->kind == RLX_FUNC_RELAX);
  if (!mm || !relu || !mainf) return;

  /* PrimFuncs: matmul(A, B, matmul), relu(lv, relu), 128x128 float32 buffers, private */
  rlx_tir_func_t* pm = mm->func;
  CHECK_STREQ(pm->name, "matmul");
  CHECK(pm->is_private);
  CHECK(pm->n_params == 3);
  for (int i = 0; i < pm->n_params && i < 3; i++) {
    rlx_tir_buffer_t* b = pm->buffer_map[i];
    int64_t d0 = 0, d1 = 0;
    CHECK(b && b->ndim == 2 && rlx_dtype_eq(b->dtype, f32));
    CHECK(b && rlx_expr_is_const_int(b->shape[0], &d0) && d0 == 128);
    CHECK(b && rlx_expr_is_const_int(b->shape[1], &d1) && d1 == 128);
  }
  CHECK_STREQ(pm->buffer_map[0]->name, "A");
  CHECK_STREQ(pm->buffer_map[1]->name, "B");
  CHECK_STREQ(pm->buffer_map[2]->name, "matmul");
  CHECK(rlx_tir_find_block(pm->body, "matmul") != NULL);
  rlx_tir_func_t* pr = relu->func;
  CHECK(pr->n_params == 2);
  CHECK_STREQ(pr->buffer_map[1]->name, "relu");

  /* main: def main(A, B): with R.dataflow(): lv = call_tir(matmul, (A, B)); lv1 = call_tir(relu, (lv,));
   * gv = lv1; R.output(gv); return gv */
  rlx_relax_func_t* f = mainf->func;
  CHECK(f->n_params == 2 && f->params[0] == A && f->params[1] == B);
  CHECK(f->is_pure);
  const rlx_attr_t* gs = rlx_attrs_get(&f->attrs, "global_symbol");
  CHECK(gs && gs->kind == RLX_ATTR_STR && strcmp(gs->u.s, "main") == 0);
  CHECK(f->body->kind == RLX_RELAX_SEQ);
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
  CHECK(seq->n_blocks == 1 && seq->blocks[0]->is_dataflow && seq->blocks[0]->n_bindings == 3);
  CHECK(seq->body == &gv->hdr);
  CHECK(lv0->hdr.kind == RLX_RELAX_DATAFLOW_VAR && lv1->hdr.kind == RLX_RELAX_DATAFLOW_VAR);
  CHECK(gv->hdr.kind == RLX_RELAX_VAR);
  const char* t128 = "R.Tensor((128, 128), dtype=\"float32\")";
  CHECK_STREQ(S(ctx, lv0->hdr.sinfo), t128);
  CHECK_STREQ(S(ctx, gv->hdr.sinfo), t128);
  CHECK_STREQ(S(ctx, f->ret_sinfo), t128);
  CHECK_STREQ(S(ctx, f->hdr.sinfo),
              "R.Callable((R.Tensor((128, 128), dtype=\"float32\"), R.Tensor((128, 128), dtype=\"float32\")), "
              "R.Tensor((128, 128), dtype=\"float32\"), True)");
  rlx_relax_call_t* c0 = binding_call(f, 0, 0);
  CHECK(c0 && rlx_relax_is_op(c0->op, RLX_OP_CALL_TIR));
  if (c0) {
    CHECK(c0->n_args == 2 && c0->args[0]->kind == RLX_RELAX_GLOBAL_VAR);
    CHECK_STREQ(((rlx_relax_global_var_t*)c0->args[0])->name, "matmul");
    CHECK(c0->args[1]->kind == RLX_RELAX_TUPLE);
    rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)c0->args[1];
    CHECK(t->n_fields == 2 && t->fields[0] == &A->hdr && t->fields[1] == &B->hdr);
    CHECK(c0->n_sinfo_args == 1);
    CHECK_STREQ(S(ctx, c0->sinfo_args[0]), t128);
    CHECK_STREQ(S(ctx, c0->hdr.sinfo), t128);
    CHECK(rlx_relax_call_is_pure(c0));
  }
  rlx_relax_call_t* c1 = binding_call(f, 0, 1);
  CHECK(c1 && c1->n_args == 2 && strcmp(((rlx_relax_global_var_t*)c1->args[0])->name, "relu") == 0);
  CHECK(seq->blocks[0]->bindings[2]->value == &lv1->hdr);
  CHECK(main_gv && main_gv->kind == RLX_RELAX_GLOBAL_VAR);
  CHECK_OK(rlx_relax_well_formed(ctx, m));
  rlx_ctx_free(ctx);
}

/* (n, k) x (k, m) through emit_te, params given at begin; the same relu twice is deduplicated. */
static void test_symbolic_matmul(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_expr_t *n = sym(ctx, "n"), *k = sym(ctx, "k"), *m = sym(ctx, "m");
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t2(ctx, n, k, f32));
  rlx_relax_var_t* w = rlx_relax_var(ctx, "w", t2(ctx, k, m, f32));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *lv0 = NULL, *lv1 = NULL, *lv2 = NULL, *gv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 2, (rlx_relax_var_t*[]){x, w}));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  CHECK_OK(rlx_bb_emit_te(bb, te_matmul, NULL, 2, (rlx_relax_expr_t*[]){&x->hdr, &w->hdr}, NULL, "lv0", &lv0));
  CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&lv0->hdr}, NULL, NULL, &lv1));
  CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&lv1->hdr}, NULL, NULL, &lv2));
  CHECK_OK(rlx_bb_emit_output(bb, &lv2->hdr, NULL, &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_ERR(rlx_bb_emit_func_output(bb, &gv->hdr, 2, (rlx_relax_var_t*[]){x, w}), "already given");
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* mod = rlx_bb_get(bb);
  CHECK(mod->n_funcs == 3); /* matmul, relu (shared by both relus), main */
  CHECK_STREQ(S(ctx, lv0->hdr.sinfo), "R.Tensor((n, m), dtype=\"float32\")");
  CHECK_STREQ(S(ctx, gv->hdr.sinfo), "R.Tensor((n, m), dtype=\"float32\")");
  rlx_relax_call_t* c = (rlx_relax_call_t*)((rlx_relax_seq_t*)((rlx_relax_func_t*)rlx_module_find(mod, "main")->func)
                                                ->body)
                            ->blocks[0]
                            ->bindings[2]
                            ->value;
  CHECK_STREQ(((rlx_relax_global_var_t*)c->args[0])->name, "relu");
  CHECK(c->n_args == 2); /* no tir_vars: n and m are dims of the shapes */
  rlx_tir_func_t* pm = rlx_module_find(mod, "matmul")->func;
  /* the PrimFunc has its own symbolic vars (n, k, m), shared by its buffers, not by main */
  rlx_expr_t** sa = pm->buffer_map[0]->shape;
  rlx_expr_t** sb = pm->buffer_map[1]->shape;
  rlx_expr_t** so = pm->buffer_map[2]->shape;
  CHECK(sa[0]->kind == RLX_EXPR_VAR && strcmp(((rlx_var_t*)sa[0])->name, "n") == 0 && sa[0] != n);
  CHECK(sa[1]->kind == RLX_EXPR_VAR && strcmp(((rlx_var_t*)sa[1])->name, "k") == 0 && sa[1] != k);
  CHECK(sb[0] == sa[1] && so[0] == sa[0] && so[1] == sb[1] && sb[1] != m);
  CHECK_STREQ(pm->buffer_map[0]->name, "x");
  CHECK_STREQ(pm->buffer_map[1]->name, "w");
  rlx_relax_func_t* f = rlx_module_find(mod, "main")->func;
  CHECK_STREQ(S(ctx, f->ret_sinfo), "R.Tensor((n, m), dtype=\"float32\")");
  CHECK_OK(rlx_relax_well_formed(ctx, mod));
  rlx_ctx_free(ctx);
}

/* The output shape m * 2 uses m, a dim of no TE shape: it is passed as tir_vars and becomes
 * a scalar param of the PrimFunc. */
static void test_tir_vars(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_expr_t *n = sym(ctx, "n"), *m = sym(ctx, "m");
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", rlx_sinfo_tensor(ctx, 1, &n, f32));
  rlx_relax_var_t* s = rlx_relax_var(ctx, "s", rlx_sinfo_shape(ctx, 1, &m));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t* lv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 2, (rlx_relax_var_t*[]){x, s}));
  rlx_expr_t* m2 = rlx_ir_mul(ctx, m, rlx_ir_i64(ctx, 2));
  CHECK_OK(rlx_bb_emit_te(bb, te_fill, m2, 1, (rlx_relax_expr_t*[]){&x->hdr}, NULL, NULL, &lv));
  /* a symbolic var defined nowhere is an error naming it */
  rlx_relax_var_t* bad = NULL;
  CHECK_ERR(rlx_bb_emit_te(bb, te_fill, sym(ctx, "q"), 1, (rlx_relax_expr_t*[]){&x->hdr}, NULL, NULL, &bad), "q");
  CHECK_OK(rlx_bb_emit_func_output(bb, &lv->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* mod = rlx_bb_get(bb);
  CHECK_STREQ(S(ctx, lv->hdr.sinfo), "R.Tensor((m * 2,), dtype=\"float32\")");
  rlx_tir_func_t* pf = rlx_module_find(mod, "fill")->func;
  CHECK(pf->n_params == 3 && pf->buffer_map[2] == NULL && pf->params[2] == (rlx_var_t*)m);
  rlx_relax_func_t* f = rlx_module_find(mod, "main")->func;
  rlx_relax_call_t* c = binding_call(f, 0, 0);
  CHECK(c && c->n_args == 3 && c->args[2]->kind == RLX_RELAX_SHAPE_EXPR);
  if (c && c->n_args == 3) {
    rlx_relax_shape_expr_t* tv = (rlx_relax_shape_expr_t*)c->args[2];
    CHECK(tv->ndim == 1 && tv->values[0] == m);
  }
  CHECK_OK(rlx_relax_well_formed(ctx, mod));
  rlx_ctx_free(ctx);
}

/* match_cast binds new symbolic vars; emit_te needs known shapes. */
static void test_match_cast(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", rlx_sinfo_tensor(ctx, 2, NULL, f32));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *y = NULL, *lv = NULL, *bad = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
  CHECK_ERR(rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&x->hdr}, NULL, NULL, &bad), "known shape");
  CHECK_ERR(rlx_bb_match_cast(bb, &x->hdr, rlx_sinfo_shape(ctx, 2, NULL), NULL, &bad), "cannot cast");
  rlx_expr_t *a = sym(ctx, "a"), *b = sym(ctx, "b");
  CHECK_OK(rlx_bb_match_cast(bb, &x->hdr, t2(ctx, a, b, f32), "y", &y));
  CHECK_STREQ(S(ctx, y->hdr.sinfo), "R.Tensor((a, b), dtype=\"float32\")");
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&y->hdr}, NULL, NULL, &lv));
  rlx_relax_var_t* out = NULL;
  CHECK_OK(rlx_bb_emit_output(bb, &lv->hdr, NULL, &out));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &out->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* mod = rlx_bb_get(bb);
  rlx_relax_func_t* f = rlx_module_find(mod, "main")->func;
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
  CHECK(seq->n_blocks == 2 && !seq->blocks[0]->is_dataflow && seq->blocks[1]->is_dataflow);
  CHECK(seq->blocks[0]->bindings[0]->kind == RLX_BINDING_MATCH_CAST);
  /* a and b are not defined by the params: the return struct info keeps only the rank */
  CHECK_STREQ(S(ctx, f->ret_sinfo), "R.Tensor(dtype=\"float32\", ndim=2)");
  CHECK_STREQ(S(ctx, out->hdr.sinfo), "R.Tensor((a, b), dtype=\"float32\")");
  CHECK_OK(rlx_relax_well_formed(ctx, mod));
  rlx_ctx_free(ctx);
}

/* Builder errors: nothing open, output twice, emit_output outside dataflow, impure call in a
 * dataflow block, DataflowVar as the function output, nested calls flattened. */
static void test_builder_errors(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  int64_t d4 = 4;
  rlx_sinfo_t* t4 = rlx_sinfo_tensor_const(ctx, 1, &d4, f32);
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t4);
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t* v = NULL;
  CHECK_ERR(rlx_bb_emit(bb, &x->hdr, NULL, &v), "no function is open");
  CHECK_ERR(rlx_bb_dataflow_begin(bb), "no function is open");
  CHECK_OK(rlx_bb_function_begin(bb, "f", 1, &x));
  CHECK_ERR(rlx_bb_function_begin(bb, "g", 0, NULL), "still open");
  CHECK_ERR(rlx_bb_emit_output(bb, &x->hdr, NULL, &v), "inside a dataflow block");
  CHECK_ERR(rlx_bb_dataflow_end(bb), "no dataflow block");
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  rlx_relax_expr_t* packed = rlx_relax_call_packed(ctx, "my_print", 1, (rlx_relax_expr_t*[]){&x->hdr}, 1, &t4);
  CHECK_ERR(rlx_bb_emit(bb, packed, NULL, &v), "impure call Call(R.call_packed \"my_print\")");
  rlx_relax_var_t* lv = NULL;
  rlx_relax_expr_t* pure = rlx_relax_call_pure_packed(ctx, "my_exp", 1, (rlx_relax_expr_t*[]){&x->hdr}, 1, &t4);
  CHECK_OK(rlx_bb_emit(bb, pure, NULL, &lv));
  CHECK_ERR(rlx_bb_emit_func_output(bb, &lv->hdr, 0, NULL), "outside a dataflow block");
  /* nested call: the inner call is bound first (ANF) */
  rlx_relax_expr_t* inner = rlx_relax_call_pure_packed(ctx, "my_exp", 1, (rlx_relax_expr_t*[]){&lv->hdr}, 1, &t4);
  rlx_relax_expr_t* outer = rlx_relax_call_dps_packed(ctx, "my_add", 2, (rlx_relax_expr_t*[]){&lv->hdr, inner}, t4);
  rlx_relax_var_t* lv2 = NULL;
  CHECK_OK(rlx_bb_emit(bb, outer, "lv2", &lv2));
  rlx_relax_var_t* gv = NULL;
  CHECK_OK(rlx_bb_emit_output(bb, &lv2->hdr, NULL, &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_ERR(rlx_bb_emit_func_output(bb, &lv->hdr, 0, NULL), "DataflowVar lv");
  CHECK_ERR(rlx_bb_function_end(bb, NULL), "without emit_func_output");
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, 0, NULL));
  CHECK_ERR(rlx_bb_emit_func_output(bb, &gv->hdr, 0, NULL), "called twice");
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* mod = rlx_bb_get(bb);
  rlx_relax_func_t* f = rlx_module_find(mod, "f")->func;
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
  CHECK(seq->n_blocks == 1 && seq->blocks[0]->n_bindings == 4); /* lv, inner, lv2, gv */
  CHECK_STREQ(S(ctx, gv->hdr.sinfo), "R.Tensor((4,), dtype=\"float32\")");
  CHECK_OK(rlx_relax_well_formed(ctx, mod));

  /* impure function: call_packed outside dataflow needs pure=False */
  rlx_relax_var_t* y = rlx_relax_var(ctx, "y", t4);
  CHECK_OK(rlx_bb_function_begin(bb, "g", 1, &y));
  CHECK_OK(rlx_bb_function_set_pure(bb, false));
  CHECK_OK(rlx_bb_emit(bb, rlx_relax_call_packed(ctx, "my_print", 1, (rlx_relax_expr_t*[]){&y->hdr}, 0, NULL), NULL, &v));
  CHECK_STREQ(S(ctx, v->hdr.sinfo), "R.Object");
  CHECK_OK(rlx_bb_emit_func_output(bb, &y->hdr, 0, NULL));
  rlx_relax_expr_t* g = NULL;
  CHECK_OK(rlx_bb_function_end(bb, &g));
  CHECK_STREQ(S(ctx, g->sinfo), "R.Callable((R.Tensor((4,), dtype=\"float32\"),), R.Tensor((4,), dtype=\"float32\"), False)");
  CHECK_OK(rlx_relax_well_formed(ctx, mod));

  /* a second function called f gets a unique name; a call of a Relax function by GlobalVar */
  rlx_relax_var_t* z = rlx_relax_var(ctx, "z", t4);
  CHECK_OK(rlx_bb_function_begin(bb, "f", 1, &z));
  rlx_relax_expr_t* fgv = rlx_relax_global_var(ctx, "f", NULL);
  rlx_relax_var_t* r = NULL;
  CHECK_OK(rlx_bb_emit(bb, rlx_relax_call(ctx, fgv, 1, (rlx_relax_expr_t*[]){&z->hdr}, (rlx_attrs_t){0, NULL}, 0, NULL),
                       "r", &r));
  CHECK_STREQ(S(ctx, r->hdr.sinfo), "R.Tensor((4,), dtype=\"float32\")");
  CHECK_ERR(rlx_bb_emit(bb, rlx_relax_call(ctx, fgv, 0, NULL, (rlx_attrs_t){0, NULL}, 0, NULL), NULL, &v),
            "expected 1 arguments");
  CHECK_OK(rlx_bb_emit_func_output(bb, &r->hdr, 0, NULL));
  rlx_relax_expr_t* f1 = NULL;
  CHECK_OK(rlx_bb_function_end(bb, &f1));
  CHECK_STREQ(((rlx_relax_global_var_t*)f1)->name, "f1");
  CHECK_OK(rlx_relax_well_formed(ctx, mod));
  rlx_ctx_free(ctx);
}

static rlx_expr_t* add_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rlx_te_tensor_t* const* in = user;
  rlx_expr_t* i0 = &idx[0]->hdr;
  return rlx_ir_add(ctx, rlx_te_load(ctx, in[0], 1, &i0), rlx_te_load(ctx, in[1], 1, &i0));
}
static rlx_status_t* te_add(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user, rlx_te_tensor_t** out) {
  rlx_te_tensor_t** keep = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, 2);
  keep[0] = in[0];
  keep[1] = in[1];
  return *out = n == 2 ? rlx_te_compute(ctx, 1, in[0]->buffer->shape, add_body, keep, "add", "elemwise") : NULL, NULL;
}

/* Placeholder names: the Relax var's name, made unique (x, x_1); A, B ... for non-vars. */
static void test_emit_te_args(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  int64_t d3 = 3;
  float data[3] = {1, 2, 3};
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", rlx_sinfo_tensor_const(ctx, 1, &d3, f32));
  rlx_relax_expr_t* c = rlx_relax_constant(ctx, f32, 1, &d3, data, sizeof(data));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *a = NULL, *b = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
  CHECK_OK(rlx_bb_emit_te(bb, te_add, NULL, 2, (rlx_relax_expr_t*[]){&x->hdr, &x->hdr}, NULL, "a", &a));
  /* structurally the same PrimFunc: deduplicated (as TVM's BlockBuilder does) */
  CHECK_OK(rlx_bb_emit_te(bb, te_add, NULL, 2, (rlx_relax_expr_t*[]){c, &a->hdr}, "te_add", "b", &b));
  rlx_relax_var_t* r = NULL;
  CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, &c, "te_relu", "r", &r));
  CHECK_OK(rlx_bb_emit_func_output(bb, &r->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* m = rlx_bb_get(bb);
  rlx_tir_func_t* f1 = rlx_module_find(m, "add")->func;
  CHECK(rlx_module_find(m, "te_add") == NULL && m->n_funcs == 3);
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)((rlx_relax_func_t*)rlx_module_find(m, "main")->func)->body;
  CHECK_STREQ(((rlx_relax_global_var_t*)((rlx_relax_call_t*)seq->blocks[0]->bindings[1]->value)->args[0])->name, "add");
  rlx_tir_func_t* f2 = rlx_module_find(m, "te_relu")->func;
  CHECK_STREQ(f1->buffer_map[0]->name, "x");
  CHECK_STREQ(f1->buffer_map[1]->name, "x_1");
  CHECK_STREQ(f2->buffer_map[0]->name, "A");
  CHECK_STREQ(f2->name, "te_relu");
  CHECK_OK(rlx_relax_well_formed(ctx, m));
  rlx_ctx_free(ctx);
}

/* Nested non-leaf operands are bound first: tuple fields, the tuple of a TupleGetItem. */
static void test_anf(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t d4 = 4;
  rlx_sinfo_t* t4 = rlx_sinfo_tensor_const(ctx, 1, &d4, rlx_dt_float32());
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t4);
  rlx_relax_expr_t* xe = &x->hdr;
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *t = NULL, *g = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
  rlx_relax_expr_t* call = rlx_relax_call_pure_packed(ctx, "ext_f", 1, &xe, 1, &t4);
  CHECK_OK(rlx_bb_emit(bb, rlx_relax_tuple(ctx, 2, (rlx_relax_expr_t*[]){call, xe}), "t", &t));
  rlx_sinfo_t* pair = rlx_sinfo_tuple(ctx, 2, (rlx_sinfo_t*[]){t4, t4});
  rlx_relax_expr_t* call2 = rlx_relax_call_pure_packed(ctx, "ext_split", 1, &xe, 1, &pair);
  CHECK_OK(rlx_bb_emit(bb, rlx_relax_tuple_get_item(ctx, call2, 1), "g", &g));
  CHECK_OK(rlx_bb_emit_func_output(bb, &g->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_relax_func_t* f = rlx_module_find(rlx_bb_get(bb), "main")->func;
  rlx_relax_block_t* blk = ((rlx_relax_seq_t*)f->body)->blocks[0];
  CHECK(blk->n_bindings == 4); /* lv = ext_f(x); t = (lv, x); lv1 = ext_split(x); g = lv1[1] */
  CHECK(blk->bindings[1]->value->kind == RLX_RELAX_TUPLE && blk->bindings[1]->var == t);
  CHECK(((rlx_relax_tuple_t*)blk->bindings[1]->value)->fields[0] == &blk->bindings[0]->var->hdr);
  CHECK_STREQ(rlx_sinfo_str(ctx, t->hdr.sinfo),
              "R.Tuple(R.Tensor((4,), dtype=\"float32\"), R.Tensor((4,), dtype=\"float32\"))");
  CHECK(blk->bindings[3]->value->kind == RLX_RELAX_TUPLE_GET_ITEM);
  CHECK(g->hdr.sinfo == t4);
  /* a function output with nested calls: the call is bound first, the tuple is the body */
  rlx_relax_var_t* y = rlx_relax_var(ctx, "y", t4);
  rlx_relax_expr_t* ye = &y->hdr;
  CHECK_OK(rlx_bb_function_begin(bb, "h", 1, &y));
  rlx_relax_expr_t* inner = rlx_relax_call_pure_packed(ctx, "ext_f", 1, &ye, 1, &t4);
  CHECK_OK(rlx_bb_emit_func_output(bb, rlx_relax_tuple(ctx, 2, (rlx_relax_expr_t*[]){inner, ye}), 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_relax_func_t* h = rlx_module_find(rlx_bb_get(bb), "h")->func;
  rlx_relax_seq_t* hs = (rlx_relax_seq_t*)h->body;
  CHECK(hs->n_blocks == 1 && hs->blocks[0]->n_bindings == 1 && hs->body->kind == RLX_RELAX_TUPLE);
  CHECK_STREQ(rlx_sinfo_str(ctx, h->ret_sinfo),
              "R.Tuple(R.Tensor((4,), dtype=\"float32\"), R.Tensor((4,), dtype=\"float32\"))");
  CHECK_OK(rlx_relax_well_formed(ctx, rlx_bb_get(bb)));
  rlx_ctx_free(ctx);
}

int main(void) {
  test_anf();
  test_emit_te_args();
  test_mlc_example();
  test_symbolic_matmul();
  test_tir_vars();
  test_match_cast();
  test_builder_errors();
  TEST_MAIN_END();
}
