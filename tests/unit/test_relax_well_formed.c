/* Well-formedness checker: each rule broken once, with the message naming the function and
 * the binding; and the fixed variant accepted. */
#include "relax_test_util.h"
#include "test.h"

static rlx_attrs_t no_attrs(void) { return (rlx_attrs_t){0, NULL}; }

/* A module with one function "main" built from explicit blocks (normalized). */
static rlx_status_t* add_main(rlx_ctx_t* ctx, rlx_module_t* m, int np, rlx_relax_var_t** params, int nb,
                              rlx_relax_block_t** blocks, rlx_relax_expr_t* body, bool pure, rlx_relax_func_t** out) {
  rlx_relax_func_t* f = rlx_relax_func(ctx, np, params, rlx_relax_seq(ctx, nb, blocks, body), NULL, no_attrs(), pure);
  RLX_RETURN_IF_ERROR(rlx_relax_normalize(ctx, m, &f->hdr));
  rlx_module_set(m, "main", RLX_FUNC_RELAX, f);
  if (out) *out = f;
  return NULL;
}

static void test_impure_in_dataflow(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = rlx_module_create(ctx);
  int64_t d4 = 4;
  rlx_sinfo_t* t4 = rlx_sinfo_tensor_const(ctx, 1, &d4, rlx_dt_float32());
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t4);
  rlx_relax_var_t* lv = rlx_relax_dataflow_var(ctx, "lv", t4);
  rlx_relax_var_t* gv = rlx_relax_var(ctx, "gv", t4);
  rlx_relax_expr_t* call = rlx_relax_call_packed(ctx, "ext_print", 1, (rlx_relax_expr_t*[]){&x->hdr}, 1, &t4);
  rlx_relax_binding_t* bs[2] = {rlx_relax_var_binding(ctx, lv, call), rlx_relax_var_binding(ctx, gv, &lv->hdr)};
  rlx_relax_block_t* blk = rlx_relax_block(ctx, true, 2, bs);
  CHECK_OK(add_main(ctx, m, 1, &x, 1, &blk, &gv->hdr, false, NULL));
  CHECK(!rlx_relax_call_is_pure((rlx_relax_call_t*)call));
  rlx_status_t* st = rlx_relax_well_formed(ctx, m);
  CHECK_STREQ(rlx_status_message(st),
              "well-formed: function 'main': binding lv: impure call Call(R.call_packed \"ext_print\") occurs within "
              "a dataflow block");
  rlx_status_free(st);

  /* the same call outside the dataflow block: fine in an impure function ... */
  rlx_relax_block_t* plain = rlx_relax_block(ctx, false, 1, (rlx_relax_binding_t*[]){rlx_relax_var_binding(
                                                                 ctx, rlx_relax_var(ctx, "v", NULL), call)});
  rlx_relax_func_t* f = NULL;
  CHECK_OK(add_main(ctx, m, 1, &x, 1, &plain, &x->hdr, false, &f));
  CHECK_OK(rlx_relax_well_formed(ctx, m));
  /* ... an error in a pure one, unless relax.force_pure */
  CHECK_OK(add_main(ctx, m, 1, &x, 1, &plain, &x->hdr, true, &f));
  CHECK_ERR(rlx_relax_well_formed(ctx, m), "binding v: impure call Call(R.call_packed \"ext_print\") in a function annotated as pure");
  f->attrs = rlx_attrs_set(ctx, f->attrs, "relax.force_pure", rlx_attr_bool(true));
  CHECK_OK(rlx_relax_well_formed(ctx, m));
  /* call_pure_packed is pure: fine inside a dataflow block */
  rlx_relax_var_t* lv2 = rlx_relax_dataflow_var(ctx, "lv2", NULL);
  rlx_relax_var_t* gv2 = rlx_relax_var(ctx, "gv2", NULL);
  rlx_relax_expr_t* pcall = rlx_relax_call_pure_packed(ctx, "ext_exp", 1, (rlx_relax_expr_t*[]){&x->hdr}, 1, &t4);
  rlx_relax_binding_t* bs2[2] = {rlx_relax_var_binding(ctx, lv2, pcall), rlx_relax_var_binding(ctx, gv2, &lv2->hdr)};
  rlx_relax_block_t* blk2 = rlx_relax_block(ctx, true, 2, bs2);
  CHECK_OK(add_main(ctx, m, 1, &x, 1, &blk2, &gv2->hdr, true, NULL));
  CHECK_OK(rlx_relax_well_formed(ctx, m));
  rlx_ctx_free(ctx);
}

/* bb: with dataflow: lv = relu(x); then outside: call using lv. */
static void test_dataflow_var_outside(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t d4 = 4;
  rlx_sinfo_t* t4 = rlx_sinfo_tensor_const(ctx, 1, &d4, rlx_dt_float32());
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t4);
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *lv = NULL, *v = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&x->hdr}, NULL, "lv", &lv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&lv->hdr}, NULL, "v", &v));
  CHECK_OK(rlx_bb_emit_func_output(bb, &v->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  CHECK_ERR(rlx_relax_well_formed(ctx, rlx_bb_get(bb)),
            "well-formed: function 'main': binding v: DataflowVar lv is used outside its dataflow block");
  rlx_ctx_free(ctx);
}

static void test_var_rules(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = rlx_module_create(ctx);
  int64_t d4 = 4;
  rlx_sinfo_t* t4 = rlx_sinfo_tensor_const(ctx, 1, &d4, rlx_dt_float32());
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t4);
  rlx_relax_var_t* y = rlx_relax_var(ctx, "y", t4);
  rlx_relax_var_t* z = rlx_relax_var(ctx, "z", t4);

  /* undefined var */
  rlx_relax_block_t* b1 =
      rlx_relax_block(ctx, false, 1, (rlx_relax_binding_t*[]){rlx_relax_var_binding(ctx, z, &y->hdr)});
  CHECK_OK(add_main(ctx, m, 1, &x, 1, &b1, &z->hdr, true, NULL));
  CHECK_ERR(rlx_relax_well_formed(ctx, m), "function 'main': binding z: variable y is used before it is defined");

  /* defined twice */
  rlx_relax_block_t* b2 = rlx_relax_block(
      ctx, false, 2, (rlx_relax_binding_t*[]){rlx_relax_var_binding(ctx, y, &x->hdr), rlx_relax_var_binding(ctx, y, &x->hdr)});
  CHECK_OK(add_main(ctx, m, 1, &x, 1, &b2, &y->hdr, true, NULL));
  CHECK_ERR(rlx_relax_well_formed(ctx, m), "variable y is defined more than once");

  /* a DataflowVar bound outside a dataflow block; and returned from the function */
  rlx_relax_var_t* dv = rlx_relax_dataflow_var(ctx, "dv", t4);
  rlx_relax_block_t* b3 =
      rlx_relax_block(ctx, false, 1, (rlx_relax_binding_t*[]){rlx_relax_var_binding(ctx, dv, &x->hdr)});
  CHECK_OK(add_main(ctx, m, 1, &x, 1, &b3, &x->hdr, true, NULL));
  CHECK_ERR(rlx_relax_well_formed(ctx, m), "DataflowVar dv is bound outside a dataflow block");
  rlx_relax_var_t* dv2 = rlx_relax_dataflow_var(ctx, "dv2", t4);
  rlx_relax_block_t* b4 =
      rlx_relax_block(ctx, true, 1, (rlx_relax_binding_t*[]){rlx_relax_var_binding(ctx, dv2, &x->hdr)});
  CHECK_OK(add_main(ctx, m, 1, &x, 1, &b4, &dv2->hdr, true, NULL));
  CHECK_ERR(rlx_relax_well_formed(ctx, m), "DataflowVar dv2 is used outside its dataflow block");

  /* an expression without struct info (not normalized) */
  rlx_relax_func_t* raw = rlx_relax_func(ctx, 1, &x, rlx_relax_seq(ctx, 0, NULL, rlx_relax_tuple(ctx, 1, (rlx_relax_expr_t*[]){&x->hdr})),
                                         t4, no_attrs(), true);
  CHECK_ERR(rlx_relax_func_well_formed(ctx, m, "raw", raw), "function 'raw': the function body has no struct info");
  CHECK_OK(rlx_relax_normalize(ctx, m, &raw->hdr));
  CHECK_OK(rlx_relax_func_well_formed(ctx, m, "raw", raw));

  /* a body that is not a SeqExpr */
  rlx_relax_func_t* noseq = rlx_relax_func(ctx, 1, &x, &x->hdr, t4, no_attrs(), true);
  CHECK_ERR(rlx_relax_func_well_formed(ctx, m, "noseq", noseq), "must be a SeqExpr");
  rlx_ctx_free(ctx);
}

static void test_symbolic_vars(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = rlx_module_create(ctx);
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_expr_t *n = sym(ctx, "n"), *k = sym(ctx, "k");
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", rlx_sinfo_tensor(ctx, 1, &n, f32));
  rlx_sinfo_t* tk = rlx_sinfo_tensor(ctx, 1, &k, f32);
  /* v = call_dps_packed("f", (x,), out (k,)) with k defined nowhere */
  rlx_relax_var_t* v = rlx_relax_var(ctx, "v", NULL);
  rlx_relax_expr_t* call = rlx_relax_call_dps_packed(ctx, "ext_f", 1, (rlx_relax_expr_t*[]){&x->hdr}, tk);
  rlx_relax_block_t* b = rlx_relax_block(ctx, false, 1, (rlx_relax_binding_t*[]){rlx_relax_var_binding(ctx, v, call)});
  CHECK_OK(add_main(ctx, m, 1, &x, 1, &b, &v->hdr, true, NULL));
  CHECK_ERR(rlx_relax_well_formed(ctx, m),
            "binding v: symbolic variable k is used in the struct info argument R.Tensor((k,), dtype=\"float32\") "
            "before it is defined");
  /* a match_cast defines k first */
  rlx_relax_var_t* y = rlx_relax_var(ctx, "y", NULL);
  rlx_relax_var_t* v2 = rlx_relax_var(ctx, "v2", NULL);
  rlx_relax_binding_t* bs[2] = {rlx_relax_match_cast(ctx, y, &x->hdr, tk),
                                rlx_relax_var_binding(ctx, v2, rlx_relax_call_dps_packed(ctx, "ext_f", 1,
                                                                                         (rlx_relax_expr_t*[]){&y->hdr}, tk))};
  rlx_relax_block_t* b2 = rlx_relax_block(ctx, false, 2, bs);
  rlx_relax_func_t* f = NULL;
  CHECK_OK(add_main(ctx, m, 1, &x, 1, &b2, &v2->hdr, true, &f));
  CHECK_OK(rlx_relax_well_formed(ctx, m));
  CHECK_STREQ(rlx_sinfo_str(ctx, f->ret_sinfo), "R.Tensor(dtype=\"float32\", ndim=1)"); /* k erased */
  /* a match_cast whose var disagrees with its struct info */
  rlx_relax_var_t* w = rlx_relax_var(ctx, "w", rlx_sinfo_tensor(ctx, 1, &n, f32));
  rlx_relax_block_t* b3 =
      rlx_relax_block(ctx, false, 1, (rlx_relax_binding_t*[]){rlx_relax_match_cast(ctx, w, &x->hdr, tk)});
  CHECK_OK(add_main(ctx, m, 1, &x, 1, &b3, &w->hdr, true, NULL));
  CHECK_ERR(rlx_relax_well_formed(ctx, m), "differs from the match_cast struct info");
  /* a shape expression using an undefined var */
  rlx_relax_var_t* s = rlx_relax_var(ctx, "s", NULL);
  rlx_relax_block_t* b4 = rlx_relax_block(
      ctx, false, 1, (rlx_relax_binding_t*[]){rlx_relax_var_binding(ctx, s, rlx_relax_shape_expr(ctx, 1, &k))});
  CHECK_OK(add_main(ctx, m, 1, &x, 1, &b4, &s->hdr, true, NULL));
  CHECK_ERR(rlx_relax_well_formed(ctx, m), "binding s: symbolic variable k is used in a shape expression");
  /* a param whose dim is n * 2 only does not define n */
  rlx_expr_t* n2 = rlx_ir_mul(ctx, n, rlx_ir_i64(ctx, 2));
  rlx_relax_var_t* p = rlx_relax_var(ctx, "p", rlx_sinfo_tensor(ctx, 1, &n2, f32));
  CHECK_OK(add_main(ctx, m, 1, &p, 0, NULL, &p->hdr, true, NULL));
  CHECK_ERR(rlx_relax_well_formed(ctx, m), "symbolic variable n is used in the struct info of a parameter");
  rlx_ctx_free(ctx);
}

static void test_global_vars(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = rlx_module_create(ctx);
  int64_t d4 = 4;
  rlx_sinfo_t* t4 = rlx_sinfo_tensor_const(ctx, 1, &d4, rlx_dt_float32());
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t4);
  /* normalization already rejects a call_tir to a missing function */
  rlx_relax_expr_t* gv = rlx_relax_global_var(ctx, "nope", NULL);
  rlx_relax_expr_t* call = rlx_relax_call_tir(ctx, gv, 1, (rlx_relax_expr_t*[]){&x->hdr}, t4, NULL);
  CHECK_ERR(rlx_relax_normalize(ctx, m, call), "GlobalVar @nope: no such function in the module");
  /* built with struct info given, the checker reports it */
  rlx_relax_expr_t* gv2 = rlx_relax_global_var(ctx, "nope", rlx_sinfo_func_opaque(ctx, rlx_sinfo_object(ctx), false));
  rlx_relax_expr_t* call2 = rlx_relax_call_tir(ctx, gv2, 1, (rlx_relax_expr_t*[]){&x->hdr}, t4, NULL);
  call2->sinfo = t4;
  rlx_relax_var_t* v = rlx_relax_var(ctx, "v", NULL);
  rlx_relax_block_t* b = rlx_relax_block(ctx, false, 1, (rlx_relax_binding_t*[]){rlx_relax_var_binding(ctx, v, call2)});
  CHECK_OK(add_main(ctx, m, 1, &x, 1, &b, &v->hdr, true, NULL));
  CHECK_ERR(rlx_relax_well_formed(ctx, m), "binding v: GlobalVar @nope refers to no function of the module");
  /* call_tir of a Relax function is rejected by inference */
  rlx_relax_expr_t* self = rlx_relax_global_var(ctx, "main", NULL);
  CHECK_ERR(rlx_relax_normalize(ctx, m, rlx_relax_call_tir(ctx, self, 1, (rlx_relax_expr_t*[]){&x->hdr}, t4, NULL)),
            "R.call_tir needs a PrimFunc");
  rlx_ctx_free(ctx);
}

int main(void) {
  test_impure_in_dataflow();
  test_dataflow_var_outside();
  test_var_rules();
  test_symbolic_vars();
  test_global_vars();
  TEST_MAIN_END();
}
