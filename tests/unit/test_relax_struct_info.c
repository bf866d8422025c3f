/* Struct info: printing, equality with the prover (n*m == m*n), base-of, LCA, erasure, and
 * inference for the generic nodes and the bridge calls. */
#include "relax_test_util.h"
#include "test.h"

static const char* S(rlx_ctx_t* ctx, const rlx_sinfo_t* s) { return rlx_sinfo_str(ctx, s); }
static rlx_attrs_t no_attrs(void) { return (rlx_attrs_t){0, NULL}; }

static void test_print(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_expr_t *n = sym(ctx, "n"), *m = sym(ctx, "m");
  rlx_expr_t* four = rlx_ir_i32(ctx, 4); /* converted to int64 */
  CHECK_STREQ(S(ctx, t2(ctx, n, four, f32)), "R.Tensor((n, 4), dtype=\"float32\")");
  CHECK_STREQ(S(ctx, rlx_sinfo_tensor(ctx, 1, &n, f32)), "R.Tensor((n,), dtype=\"float32\")");
  CHECK_STREQ(S(ctx, rlx_sinfo_tensor(ctx, 0, NULL, f32)), "R.Tensor(dtype=\"float32\", ndim=0)");
  CHECK_STREQ(S(ctx, rlx_sinfo_tensor(ctx, 0, (rlx_expr_t*[]){NULL}, f32)), "R.Tensor((), dtype=\"float32\")");
  CHECK_STREQ(S(ctx, rlx_sinfo_tensor(ctx, 2, NULL, f32)), "R.Tensor(dtype=\"float32\", ndim=2)");
  CHECK_STREQ(S(ctx, rlx_sinfo_tensor(ctx, 2, NULL, rlx_dt_void())), "R.Tensor(ndim=2)");
  CHECK_STREQ(S(ctx, rlx_sinfo_tensor(ctx, -1, NULL, rlx_dt_void())), "R.Tensor");
  CHECK_STREQ(S(ctx, rlx_sinfo_shape(ctx, 2, (rlx_expr_t*[]){n, four})), "R.Shape([n, 4])");
  CHECK_STREQ(S(ctx, rlx_sinfo_shape(ctx, 3, NULL)), "R.Shape(ndim=3)");
  CHECK_STREQ(S(ctx, rlx_sinfo_shape(ctx, -1, NULL)), "R.Shape(ndim=-1)");
  CHECK_STREQ(S(ctx, rlx_sinfo_prim(ctx, rlx_dt_int64(), NULL)), "R.Prim(\"int64\")");
  CHECK_STREQ(S(ctx, rlx_sinfo_prim(ctx, rlx_dt_int64(), n)), "R.Prim(value=n)");
  CHECK_STREQ(S(ctx, rlx_sinfo_object(ctx)), "R.Object");
  rlx_sinfo_t* fields[2] = {rlx_sinfo_tensor(ctx, 1, &n, f32), rlx_sinfo_object(ctx)};
  CHECK_STREQ(S(ctx, rlx_sinfo_tuple(ctx, 2, fields)), "R.Tuple(R.Tensor((n,), dtype=\"float32\"), R.Object)");
  CHECK_STREQ(S(ctx, rlx_sinfo_tuple(ctx, 0, NULL)), "R.Tuple");
  /* composite dims */
  rlx_expr_t* e = rlx_ir_mul(ctx, rlx_ir_add(ctx, n, rlx_ir_i64(ctx, 1)), m);
  CHECK_STREQ(S(ctx, rlx_sinfo_tensor(ctx, 1, &e, f32)), "R.Tensor(((n + 1) * m,), dtype=\"float32\")");
  rlx_expr_t* e2 = rlx_ir_sub(ctx, n, rlx_ir_sub(ctx, m, rlx_ir_floordiv(ctx, n, rlx_ir_i64(ctx, 2))));
  CHECK_STREQ(S(ctx, rlx_sinfo_tensor(ctx, 1, &e2, f32)), "R.Tensor((n - (m - n // 2),), dtype=\"float32\")");
  rlx_expr_t* e3 = rlx_ir_max(ctx, n, m);
  CHECK_STREQ(S(ctx, rlx_sinfo_shape(ctx, 1, &e3)), "R.Shape([T.max(n, m)])");
  CHECK_STREQ(S(ctx, rlx_sinfo_func(ctx, 1, fields, fields[0], true)),
              "R.Callable((R.Tensor((n,), dtype=\"float32\"),), R.Tensor((n,), dtype=\"float32\"), True)");
  CHECK_STREQ(S(ctx, rlx_sinfo_func_opaque(ctx, rlx_sinfo_object(ctx), false)), "R.Callable");
  CHECK_STREQ(S(ctx, rlx_sinfo_func_opaque(ctx, rlx_sinfo_object(ctx), true)), "R.Callable(purity=True)");
  CHECK_STREQ(S(ctx, rlx_sinfo_func_opaque(ctx, fields[0], true)),
              "R.Callable(ret=R.Tensor((n,), dtype=\"float32\"), purity=True)");
  CHECK_STREQ(S(ctx, rlx_sinfo_func_opaque(ctx, fields[0], false)), "R.Callable(ret=R.Tensor((n,), dtype=\"float32\"))");
  CHECK_STREQ(S(ctx, NULL), "<none>");
  rlx_ctx_free(ctx);
}

static void test_equal_base_lca(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_expr_t *n = sym(ctx, "n"), *m = sym(ctx, "m"), *k = sym(ctx, "k");
  rlx_sinfo_t* nm = t2(ctx, rlx_ir_mul(ctx, n, m), k, f32);
  rlx_sinfo_t* mn = t2(ctx, rlx_ir_mul(ctx, m, n), k, f32);
  CHECK(rlx_sinfo_equal(ctx, nm, mn));       /* the prover sees n*m == m*n */
  CHECK(!rlx_sinfo_struct_equal(nm, mn));    /* structurally they differ */
  CHECK(rlx_sinfo_struct_equal(nm, nm));
  rlx_expr_t* np0 = rlx_ir_add(ctx, n, rlx_ir_i64(ctx, 0));
  CHECK(rlx_sinfo_equal(ctx, rlx_sinfo_tensor(ctx, 1, &np0, f32), rlx_sinfo_tensor(ctx, 1, &n, f32)));
  CHECK(!rlx_sinfo_equal(ctx, nm, t2(ctx, rlx_ir_mul(ctx, n, rlx_ir_i64(ctx, 2)), k, f32)));
  CHECK(!rlx_sinfo_equal(ctx, nm, t2(ctx, rlx_ir_mul(ctx, n, m), k, rlx_dt_float64())));
  CHECK(!rlx_sinfo_equal(ctx, nm, rlx_sinfo_tensor(ctx, 2, NULL, f32)));
  CHECK(rlx_sinfo_equal(ctx, rlx_sinfo_tuple(ctx, 1, &nm), rlx_sinfo_tuple(ctx, 1, &mn)));

  rlx_sinfo_t* any2 = rlx_sinfo_tensor(ctx, 2, NULL, rlx_dt_void());
  rlx_sinfo_t* f2 = rlx_sinfo_tensor(ctx, 2, NULL, f32);
  rlx_sinfo_t* anyt = rlx_sinfo_tensor(ctx, -1, NULL, rlx_dt_void());
  CHECK(rlx_sinfo_is_base_of(ctx, rlx_sinfo_object(ctx), nm));
  CHECK(rlx_sinfo_is_base_of(ctx, any2, nm));
  CHECK(rlx_sinfo_is_base_of(ctx, f2, nm));
  CHECK(rlx_sinfo_is_base_of(ctx, anyt, f2));
  CHECK(rlx_sinfo_is_base_of(ctx, nm, mn));
  CHECK(!rlx_sinfo_is_base_of(ctx, nm, f2));
  CHECK(!rlx_sinfo_is_base_of(ctx, nm, rlx_sinfo_object(ctx)));
  CHECK(!rlx_sinfo_is_base_of(ctx, rlx_sinfo_tensor(ctx, 3, NULL, f32), nm));
  CHECK(!rlx_sinfo_is_base_of(ctx, rlx_sinfo_shape(ctx, 2, NULL), nm));
  rlx_sinfo_t* pure_f = rlx_sinfo_func(ctx, 1, &nm, nm, true);
  rlx_sinfo_t* impure_f = rlx_sinfo_func(ctx, 1, &nm, nm, false);
  CHECK(rlx_sinfo_is_base_of(ctx, rlx_sinfo_func_opaque(ctx, rlx_sinfo_object(ctx), false), pure_f));
  CHECK(rlx_sinfo_is_base_of(ctx, impure_f, pure_f));
  CHECK(!rlx_sinfo_is_base_of(ctx, pure_f, impure_f));

  /* LCA */
  rlx_expr_t* four = rlx_ir_i64(ctx, 4);
  CHECK_STREQ(S(ctx, rlx_sinfo_lca(ctx, t2(ctx, n, four, f32), t2(ctx, m, four, f32))), "R.Tensor(dtype=\"float32\", ndim=2)");
  CHECK_STREQ(S(ctx, rlx_sinfo_lca(ctx, t2(ctx, n, four, f32), t2(ctx, n, four, f32))), "R.Tensor((n, 4), dtype=\"float32\")");
  CHECK_STREQ(S(ctx, rlx_sinfo_lca(ctx, t2(ctx, n, four, f32), rlx_sinfo_tensor(ctx, 1, &n, rlx_dt_int32()))), "R.Tensor");
  CHECK_STREQ(S(ctx, rlx_sinfo_lca(ctx, nm, rlx_sinfo_shape(ctx, 1, NULL))), "R.Object");
  CHECK_STREQ(S(ctx, rlx_sinfo_lca(ctx, rlx_sinfo_shape(ctx, 1, &n), rlx_sinfo_shape(ctx, 1, &m))), "R.Shape(ndim=1)");
  rlx_sinfo_t* ta = rlx_sinfo_tuple(ctx, 2, (rlx_sinfo_t*[]){t2(ctx, n, four, f32), rlx_sinfo_prim(ctx, rlx_dt_int64(), n)});
  rlx_sinfo_t* tb = rlx_sinfo_tuple(ctx, 2, (rlx_sinfo_t*[]){t2(ctx, m, four, f32), rlx_sinfo_prim(ctx, rlx_dt_int64(), m)});
  CHECK_STREQ(S(ctx, rlx_sinfo_lca(ctx, ta, tb)), "R.Tuple(R.Tensor(dtype=\"float32\", ndim=2), R.Prim(\"int64\"))");

  /* erasure keeps the rank */
  CHECK_STREQ(S(ctx, rlx_sinfo_erase_undefined(ctx, ta, NULL, NULL)),
              "R.Tuple(R.Tensor(dtype=\"float32\", ndim=2), R.Prim(\"int64\"))");
  rlx_sinfo_t* c44 = t2(ctx, four, four, f32);
  CHECK(rlx_sinfo_erase_undefined(ctx, c44, NULL, NULL) == c44);
  rlx_ctx_free(ctx);
}

static void test_inference(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* mod = rlx_module_create(ctx);
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_expr_t* n = sym(ctx, "n");
  rlx_sinfo_t* tn = rlx_sinfo_tensor(ctx, 1, &n, f32);
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", tn);
  rlx_relax_expr_t* xe = &x->hdr;

  /* leaves */
  float data[6] = {1, 2, 3, 4, 5, 6};
  rlx_relax_expr_t* c = rlx_relax_constant(ctx, f32, 2, (int64_t[]){2, 3}, data, sizeof(data));
  CHECK(c && ((rlx_relax_constant_t*)c)->nbytes == 24 && ((float*)((rlx_relax_constant_t*)c)->data)[5] == 6.0f);
  CHECK_STREQ(S(ctx, c->sinfo), "R.Tensor((2, 3), dtype=\"float32\")");
  CHECK(rlx_relax_constant(ctx, f32, 2, (int64_t[]){2, 3}, data, 20) == NULL);
  CHECK_STREQ(S(ctx, rlx_relax_shape_expr(ctx, 2, (rlx_expr_t*[]){n, rlx_ir_i32(ctx, 3)})->sinfo), "R.Shape([n, 3])");
  CHECK_STREQ(S(ctx, rlx_relax_prim_value(ctx, n)->sinfo), "R.Prim(value=n)");
  CHECK_STREQ(S(ctx, rlx_relax_string_imm(ctx, "hi")->sinfo), "R.Object");
  CHECK_STREQ(S(ctx, rlx_relax_dtype_imm(ctx, f32)->sinfo), "R.Object");

  /* tuple, tuple get item */
  rlx_relax_expr_t* tup = rlx_relax_tuple(ctx, 2, (rlx_relax_expr_t*[]){xe, c});
  rlx_relax_expr_t* item = rlx_relax_tuple_get_item(ctx, tup, 1);
  CHECK_OK(rlx_relax_normalize(ctx, mod, item));
  CHECK_STREQ(S(ctx, tup->sinfo), "R.Tuple(R.Tensor((n,), dtype=\"float32\"), R.Tensor((2, 3), dtype=\"float32\"))");
  CHECK_STREQ(S(ctx, item->sinfo), "R.Tensor((2, 3), dtype=\"float32\")");
  CHECK_ERR(rlx_relax_normalize(ctx, mod, rlx_relax_tuple_get_item(ctx, tup, 2)), "index 2 out of range");
  CHECK_ERR(rlx_relax_normalize(ctx, mod, rlx_relax_tuple_get_item(ctx, xe, 0)), "not a tuple");

  /* call_dps_packed / call_packed / call_pure_packed */
  rlx_relax_expr_t* dps = rlx_relax_call_dps_packed(ctx, "ext_f", 1, &xe, tn);
  CHECK_OK(rlx_relax_normalize(ctx, mod, dps));
  CHECK(dps->sinfo == tn && rlx_relax_call_is_pure((rlx_relax_call_t*)dps));
  rlx_relax_expr_t* bad_dps = rlx_relax_call_dps_packed(ctx, "ext_f", 1, &xe, rlx_sinfo_object(ctx));
  CHECK_ERR(rlx_relax_normalize(ctx, mod, bad_dps), "out_sinfo must be one R.Tensor or an R.Tuple of R.Tensor");
  rlx_sinfo_t* two[2] = {tn, rlx_sinfo_shape(ctx, 1, NULL)};
  rlx_relax_expr_t* p0 = rlx_relax_call_packed(ctx, "ext_g", 1, &xe, 0, NULL);
  rlx_relax_expr_t* p1 = rlx_relax_call_packed(ctx, "ext_g", 1, &xe, 1, two);
  rlx_relax_expr_t* p2 = rlx_relax_call_packed(ctx, "ext_g", 1, &xe, 2, two);
  CHECK_OK(rlx_relax_normalize(ctx, mod, p0));
  CHECK_OK(rlx_relax_normalize(ctx, mod, p1));
  CHECK_OK(rlx_relax_normalize(ctx, mod, p2));
  CHECK_STREQ(S(ctx, p0->sinfo), "R.Object");
  CHECK(p1->sinfo == tn);
  CHECK_STREQ(S(ctx, p2->sinfo), "R.Tuple(R.Tensor((n,), dtype=\"float32\"), R.Shape(ndim=1))");
  CHECK(!rlx_relax_call_is_pure((rlx_relax_call_t*)p1));
  rlx_relax_expr_t* pp = rlx_relax_call_pure_packed(ctx, "ext_g", 1, &xe, 1, two);
  CHECK_OK(rlx_relax_normalize(ctx, mod, pp));
  CHECK(pp->sinfo == tn && rlx_relax_call_is_pure((rlx_relax_call_t*)pp));
  CHECK_STREQ(rlx_relax_expr_brief(ctx, pp), "Call(relax.call_pure_packed, ExternFunc \"ext_g\")");

  /* call_tir: tuple of tensors as output; errors */
  rlx_tir_func_t* pf = rlx_tir_func_create(ctx, "k", 0, NULL, NULL, rlx_tir_evaluate(ctx, rlx_ir_i32(ctx, 0)));
  rlx_module_set(mod, "k", RLX_FUNC_TIR, pf);
  rlx_sinfo_t* outs = rlx_sinfo_tuple(ctx, 2, (rlx_sinfo_t*[]){tn, tn});
  rlx_relax_expr_t* ct = rlx_relax_call_tir(ctx, rlx_relax_global_var(ctx, "k", NULL), 1, &xe, outs, NULL);
  CHECK_OK(rlx_relax_normalize(ctx, mod, ct));
  CHECK(ct->sinfo == outs);
  CHECK_STREQ(rlx_relax_expr_brief(ctx, ct), "Call(relax.call_tir, GlobalVar @k)");
  rlx_relax_expr_t* ct_bad = rlx_relax_call_tir(ctx, rlx_relax_global_var(ctx, "k", NULL), 1, &xe,
                                                rlx_sinfo_tuple(ctx, 1, (rlx_sinfo_t*[]){rlx_sinfo_object(ctx)}), NULL);
  CHECK_ERR(rlx_relax_normalize(ctx, mod, ct_bad), "out_sinfo must be one R.Tensor");
  rlx_relax_expr_t* ct_tv = rlx_relax_call_tir(ctx, rlx_relax_global_var(ctx, "k", NULL), 1, &xe, tn, xe);
  CHECK_ERR(rlx_relax_normalize(ctx, mod, ct_tv), "tir_vars must be a shape");
  rlx_relax_expr_t* ct_ext = rlx_relax_call(ctx, rlx_relax_op(ctx, RLX_OP_CALL_TIR), 2,
                                            (rlx_relax_expr_t*[]){rlx_relax_extern_func(ctx, "k"), tup}, no_attrs(), 1, &tn);
  CHECK_ERR(rlx_relax_normalize(ctx, mod, ct_ext), "the callee of R.call_tir must be a GlobalVar");

  /* a registered op is inferred by the op registry; an unknown op is an error */
  rlx_relax_expr_t* add = rlx_relax_call(ctx, rlx_relax_op(ctx, RLX_OP_ADD), 2, (rlx_relax_expr_t*[]){xe, xe},
                                         no_attrs(), 0, NULL);
  CHECK_OK(rlx_relax_normalize(ctx, mod, add));
  CHECK(add->sinfo && add->sinfo->kind == RLX_SINFO_TENSOR);
  CHECK(rlx_relax_call_is_pure((rlx_relax_call_t*)add));
  rlx_relax_expr_t* unk = rlx_relax_call(ctx, rlx_relax_op_named(ctx, "relax.no_such_op"), 1, &xe, no_attrs(), 0, NULL);
  rlx_status_t* st = rlx_relax_normalize(ctx, mod, unk);
  CHECK(rlx_status_code(st) == RLX_NOT_FOUND);
  CHECK(st && strstr(rlx_status_message(st), "no inference rule for op 'relax.no_such_op'"));
  rlx_status_free(st);
  rlx_relax_expr_t* pr = rlx_relax_call(ctx, rlx_relax_op(ctx, RLX_OP_PRINT), 1, &xe, no_attrs(), 0, NULL);
  CHECK(!rlx_relax_call_is_pure((rlx_relax_call_t*)pr));

  /* If: LCA of the branches; condition must be bool */
  rlx_expr_t* m = sym(ctx, "m");
  rlx_relax_var_t* y = rlx_relax_var(ctx, "y", rlx_sinfo_tensor(ctx, 1, &m, f32));
  rlx_relax_var_t* cond = rlx_relax_var(ctx, "cond", rlx_sinfo_prim(ctx, rlx_dt_bool(), NULL));
  rlx_relax_expr_t* ife = rlx_relax_if(ctx, &cond->hdr, rlx_relax_seq(ctx, 0, NULL, xe), rlx_relax_seq(ctx, 0, NULL, &y->hdr));
  CHECK_OK(rlx_relax_normalize(ctx, mod, ife));
  CHECK_STREQ(S(ctx, ife->sinfo), "R.Tensor(dtype=\"float32\", ndim=1)");
  CHECK_ERR(rlx_relax_normalize(ctx, mod, rlx_relax_if(ctx, xe, xe, xe)), "the condition must be a bool");

  /* calling a function value: symbolic params bound from the arguments */
  rlx_expr_t* p = sym(ctx, "p");
  rlx_expr_t* p2x = rlx_ir_mul(ctx, p, rlx_ir_i64(ctx, 2));
  rlx_sinfo_t* tp = rlx_sinfo_tensor(ctx, 1, &p, f32);
  rlx_relax_var_t* fv = rlx_relax_var(ctx, "fv", rlx_sinfo_func(ctx, 1, &tp, rlx_sinfo_tensor(ctx, 1, &p2x, f32), true));
  int64_t eight = 8;
  rlx_relax_var_t* a8 = rlx_relax_var(ctx, "a8", rlx_sinfo_tensor_const(ctx, 1, &eight, f32));
  rlx_relax_expr_t* call = rlx_relax_call(ctx, &fv->hdr, 1, (rlx_relax_expr_t*[]){&a8->hdr}, no_attrs(), 0, NULL);
  CHECK_OK(rlx_relax_normalize(ctx, mod, call));
  CHECK_STREQ(S(ctx, call->sinfo), "R.Tensor((16,), dtype=\"float32\")");
  rlx_relax_expr_t* call_n = rlx_relax_call(ctx, &fv->hdr, 1, &xe, no_attrs(), 0, NULL);
  CHECK_OK(rlx_relax_normalize(ctx, mod, call_n));
  CHECK_STREQ(S(ctx, call_n->sinfo), "R.Tensor((n * 2,), dtype=\"float32\")");
  rlx_relax_var_t* sh = rlx_relax_var(ctx, "sh", rlx_sinfo_shape(ctx, 1, NULL));
  CHECK_ERR(rlx_relax_normalize(ctx, mod, rlx_relax_call(ctx, &fv->hdr, 1, (rlx_relax_expr_t*[]){&sh->hdr}, no_attrs(), 0, NULL)),
            "argument 0 has struct info R.Shape(ndim=1), expected R.Tensor((p,), dtype=\"float32\")");
  CHECK_ERR(rlx_relax_normalize(ctx, mod, rlx_relax_call(ctx, xe, 0, NULL, no_attrs(), 0, NULL)), "the callee is not a function");

  /* a function: ret inferred from the body, erased to the params' vars */
  rlx_relax_var_t* lv = rlx_relax_var(ctx, "lv", NULL);
  rlx_relax_block_t* blk = rlx_relax_block(ctx, false, 1, (rlx_relax_binding_t*[]){rlx_relax_var_binding(ctx, lv, dps)});
  rlx_relax_func_t* f = rlx_relax_func(ctx, 1, &x, rlx_relax_seq(ctx, 1, &blk, &lv->hdr), NULL, no_attrs(), true);
  CHECK_OK(rlx_relax_normalize(ctx, mod, &f->hdr));
  CHECK(lv->hdr.sinfo == tn);
  CHECK_STREQ(S(ctx, f->ret_sinfo), "R.Tensor((n,), dtype=\"float32\")");
  CHECK_STREQ(S(ctx, f->hdr.sinfo), "R.Callable((R.Tensor((n,), dtype=\"float32\"),), R.Tensor((n,), dtype=\"float32\"), True)");
  rlx_ctx_free(ctx);
}

int main(void) {
  test_print();
  test_equal_base_lca();
  test_inference();
  TEST_MAIN_END();
}
