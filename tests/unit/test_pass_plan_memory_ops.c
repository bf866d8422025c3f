/* The memory ops of the registry (op_memory.c): struct info, argument checks with their
 * messages, purity (allocations pure, kills impure, as TVM), no legalization. */
#include "test_pass_plan_memory_util.h"

static const char* S(rlx_ctx_t* ctx, const rlx_sinfo_t* s) { return rlx_sinfo_str(ctx, s); }

static rlx_relax_expr_t* op(rlx_ctx_t* ctx, const char* name, int n, rlx_relax_expr_t* const* args) {
  return rlx_relax_op_call_named(ctx, name, n, args, (rlx_attrs_t){0});
}

static void test_struct_info(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* n = sym(ctx, "n");
  rlx_relax_expr_t* shape = rlx_relax_shape_expr(ctx, 2, (rlx_expr_t*[]){n, rlx_ir_i64(ctx, 4)});
  rlx_relax_expr_t* f32 = rlx_relax_dtype_imm(ctx, rlx_dt_float32());
  rlx_relax_expr_t* zero = rlx_relax_prim_value(ctx, rlx_ir_i64(ctx, 0));
  rlx_relax_expr_t* global = rlx_relax_string_imm(ctx, "global");
  rlx_relax_expr_t* u8 = rlx_relax_dtype_imm(ctx, rlx_dtype(RLX_DT_UINT, 8, 1));

  rlx_relax_expr_t* a = op(ctx, "relax.builtin.alloc_tensor", 3, (rlx_relax_expr_t*[]){shape, f32, zero});
  CHECK_OK(rlx_relax_normalize(ctx, NULL, a));
  CHECK_STREQ(S(ctx, a->sinfo), "R.Tensor((n, 4), dtype=\"float32\")");
  CHECK(rlx_relax_call_is_pure((rlx_relax_call_t*)a));
  /* TVM's 4-argument form with a storage scope */
  rlx_relax_expr_t* a4 = op(ctx, "relax.builtin.alloc_tensor", 4, (rlx_relax_expr_t*[]){shape, f32, zero, global});
  CHECK_OK(rlx_relax_normalize(ctx, NULL, a4));
  CHECK_STREQ(S(ctx, a4->sinfo), "R.Tensor((n, 4), dtype=\"float32\")");
  /* a shape-typed variable instead of a ShapeExpr */
  rlx_relax_var_t* sv = rlx_relax_var(ctx, "s", rlx_sinfo_shape(ctx, 2, (rlx_expr_t*[]){n, n}));
  rlx_relax_expr_t* av = op(ctx, "relax.builtin.alloc_tensor", 3, (rlx_relax_expr_t*[]){&sv->hdr, f32, zero});
  CHECK_OK(rlx_relax_normalize(ctx, NULL, av));
  CHECK_STREQ(S(ctx, av->sinfo), "R.Tensor((n, n), dtype=\"float32\")");

  rlx_relax_expr_t* nbytes = rlx_relax_shape_expr(ctx, 1, (rlx_expr_t*[]){rlx_ir_mul(ctx, n, rlx_ir_i64(ctx, 16))});
  rlx_relax_expr_t* st = op(ctx, "relax.memory.alloc_storage", 4, (rlx_relax_expr_t*[]){nbytes, zero, global, u8});
  CHECK_OK(rlx_relax_normalize(ctx, NULL, st));
  CHECK_STREQ(S(ctx, st->sinfo), "R.Object");
  CHECK(rlx_relax_call_is_pure((rlx_relax_call_t*)st));

  rlx_relax_var_t* storage = rlx_relax_var(ctx, "storage", st->sinfo);
  rlx_relax_expr_t* mt = op(ctx, "relax.memory.alloc_tensor", 4, (rlx_relax_expr_t*[]){&storage->hdr, zero, shape, f32});
  CHECK_OK(rlx_relax_normalize(ctx, NULL, mt));
  CHECK_STREQ(S(ctx, mt->sinfo), "R.Tensor((n, 4), dtype=\"float32\")");
  CHECK(rlx_relax_call_is_pure((rlx_relax_call_t*)mt));

  rlx_relax_var_t* t = rlx_relax_var(ctx, "t", mt->sinfo);
  rlx_relax_expr_t* kt = op(ctx, "relax.memory.kill_tensor", 1, (rlx_relax_expr_t*[]){&t->hdr});
  rlx_relax_expr_t* ks = op(ctx, "relax.memory.kill_storage", 1, (rlx_relax_expr_t*[]){&storage->hdr});
  CHECK_OK(rlx_relax_normalize(ctx, NULL, kt));
  CHECK_OK(rlx_relax_normalize(ctx, NULL, ks));
  CHECK_STREQ(S(ctx, kt->sinfo), "R.Tuple");
  CHECK_STREQ(S(ctx, ks->sinfo), "R.Tuple");
  CHECK(!rlx_relax_call_is_pure((rlx_relax_call_t*)kt) && !rlx_relax_call_is_pure((rlx_relax_call_t*)ks));

  /* registry entries: purity as above, none legalized */
  const char* names[5] = {"relax.builtin.alloc_tensor", "relax.memory.alloc_storage", "relax.memory.alloc_tensor",
                          "relax.memory.kill_storage", "relax.memory.kill_tensor"};
  const bool pure[5] = {true, true, true, false, false};
  for (int i = 0; i < 5; i++) {
    const rlx_op_def_t* d = rlx_op_lookup(names[i]);
    CHECK_MSG(d && d->infer && !d->legalize && d->is_pure == pure[i], "%s", names[i]);
  }
  rlx_ctx_free(ctx);
}

static void test_bad_arguments(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_relax_expr_t* shape = rlx_relax_shape_expr(ctx, 1, (rlx_expr_t*[]){rlx_ir_i64(ctx, 8)});
  rlx_relax_expr_t* shape2 = rlx_relax_shape_expr(ctx, 2, (rlx_expr_t*[]){rlx_ir_i64(ctx, 8), rlx_ir_i64(ctx, 8)});
  rlx_relax_expr_t* f32 = rlx_relax_dtype_imm(ctx, rlx_dt_float32());
  rlx_relax_expr_t* zero = rlx_relax_prim_value(ctx, rlx_ir_i64(ctx, 0));
  rlx_relax_expr_t* fzero = rlx_relax_prim_value(ctx, rlx_ir_float(ctx, rlx_dt_float32(), 0.0));
  rlx_relax_expr_t* global = rlx_relax_string_imm(ctx, "global");
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", rlx_sinfo_tensor_const(ctx, 1, (int64_t[]){8}, rlx_dt_float32()));

  CHECK_ERR(rlx_relax_normalize(ctx, NULL, op(ctx, "relax.builtin.alloc_tensor", 2, (rlx_relax_expr_t*[]){shape, f32})),
            "relax.builtin.alloc_tensor: expected 3 to 4 arguments, got 2");
  CHECK_ERR(rlx_relax_normalize(ctx, NULL,
                                op(ctx, "relax.builtin.alloc_tensor", 3, (rlx_relax_expr_t*[]){shape, zero, zero})),
            "relax.builtin.alloc_tensor: argument 1 must be a DataTypeImm");
  CHECK_ERR(rlx_relax_normalize(ctx, NULL,
                                op(ctx, "relax.builtin.alloc_tensor", 3, (rlx_relax_expr_t*[]){&x->hdr, f32, zero})),
            "argument 0 must be a shape (R.shape([...])), got Var x");
  CHECK_ERR(rlx_relax_normalize(ctx, NULL,
                                op(ctx, "relax.builtin.alloc_tensor", 3, (rlx_relax_expr_t*[]){shape, f32, fzero})),
            "argument 2 must be an integer PrimValue (runtime_device_index)");
  CHECK_ERR(rlx_relax_normalize(ctx, NULL, op(ctx, "relax.memory.alloc_storage", 4,
                                               (rlx_relax_expr_t*[]){shape2, zero, global, f32})),
            "relax.memory.alloc_storage: argument 0 must be a 1-d shape holding the size in bytes");
  CHECK_ERR(rlx_relax_normalize(ctx, NULL, op(ctx, "relax.memory.alloc_storage", 4,
                                               (rlx_relax_expr_t*[]){shape, zero, f32, f32})),
            "argument 2 must be a StringImm (storage_scope)");
  CHECK_ERR(rlx_relax_normalize(ctx, NULL, op(ctx, "relax.memory.alloc_tensor", 4,
                                               (rlx_relax_expr_t*[]){&x->hdr, zero, shape, f32})),
            "relax.memory.alloc_tensor: argument 0 must be a storage (R.Object), got R.Tensor((8,), dtype=\"float32\")");
  CHECK_ERR(rlx_relax_normalize(ctx, NULL, op(ctx, "relax.memory.kill_tensor", 2,
                                               (rlx_relax_expr_t*[]){&x->hdr, &x->hdr})),
            "relax.memory.kill_tensor: expected 1 arguments, got 2");
  rlx_ctx_free(ctx);
}

/* kill_tensor is impure: not allowed in a dataflow block, nor in a pure function without
 * relax.force_pure (the well-formedness checker and the builder say so). */
static void test_purity_rules(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", rlx_sinfo_tensor_const(ctx, 1, (int64_t[]){8}, rlx_dt_float32()));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t* v = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  CHECK_ERR(rlx_bb_emit(bb, op(ctx, "relax.memory.kill_tensor", 1, (rlx_relax_expr_t*[]){&x->hdr}), NULL, &v),
            "impure");
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit(bb, op(ctx, "relax.memory.kill_tensor", 1, (rlx_relax_expr_t*[]){&x->hdr}), NULL, &v));
  CHECK_OK(rlx_bb_emit_func_output(bb, &x->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  CHECK_ERR(rlx_relax_well_formed(ctx, rlx_bb_get(bb)), "impure call");
  rlx_ctx_free(ctx);
}

int main(void) {
  test_struct_info();
  test_bad_arguments();
  test_purity_rules();
  TEST_MAIN_END();
}
