/* The language-binding part of the public API (rlx/rlx.h, "Language bindings"), through the
 * public header alone, as python/rlx uses it: struct info, Relax vars, ops by name with
 * attributes, the BlockBuilder with emit_te, passes by name, module inspection and
 * structural equality, and the errors (unknown op, unknown pass). Runs under ASan in the
 * sanitizer suite, where the Python tests do not. */
#include <stdlib.h>
#include <string.h>

#include "rlx/rlx.h"
#include "test.h"

static rlx_expr_t* relu_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rlx_te_tensor_t* a = user;
  rlx_expr_t* ix[2] = {rlx_ir_var_expr(idx[0]), rlx_ir_var_expr(idx[1])};
  return rlx_ir_max(ctx, rlx_te_load(ctx, a, 2, ix), rlx_ir_float(ctx, RLX_FLOAT32, 0.0));
}

static rlx_status_t* te_relu(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user, rlx_te_tensor_t** out) {
  rlx_expr_t* shape[2] = {rlx_te_tensor_dim(in[0], 0), rlx_te_tensor_dim(in[0], 1)};
  return *out = rlx_te_compute(ctx, 2, shape, relu_body, in[0], "relu", ""), NULL;
}

static rlx_status_t* te_fails(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user, rlx_te_tensor_t** out) {
  return NULL; /* no tensor and no error of its own */
}

static rlx_module_t* build_module(rlx_ctx_t* ctx, rlx_relax_var_t** out_x) {
  rlx_var_t* n = rlx_ir_var(ctx, "n", RLX_INT64);
  rlx_expr_t* dims[2] = {rlx_ir_var_expr(n), rlx_ir_i64(ctx, 4)};
  rlx_sinfo_t* s = rlx_sinfo_tensor(ctx, 2, dims, RLX_FLOAT32);
  CHECK(rlx_sinfo_kind_code(s) == RLX_SINFO_KIND_TENSOR && rlx_sinfo_ndim(s) == 2);
  CHECK_STREQ(rlx_sinfo_str(ctx, s), "R.Tensor((n, 4), dtype=\"float32\")");
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", s);
  *out_x = x;
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  rlx_relax_expr_t* xe = rlx_relax_var_expr(x);
  rlx_relax_expr_t* args[2] = {xe, xe};
  rlx_relax_expr_t* add = NULL;
  CHECK_OK(rlx_relax_op_call_by_name(ctx, "relax.add", 2, args, NULL, 0, NULL, &add));
  rlx_relax_var_t* lv = NULL;
  CHECK_OK(rlx_bb_emit(bb, add, NULL, &lv));
  rlx_attr_list_t* attrs = rlx_attr_list_create(ctx);
  int64_t axis = 1;
  rlx_attr_list_set_ints(attrs, "axis", 1, &axis);
  rlx_attr_list_set_bool(attrs, "keepdims", true);
  rlx_relax_expr_t* sum = NULL;
  rlx_relax_expr_t* lve = rlx_relax_var_expr(lv);
  CHECK_OK(rlx_relax_op_call_by_name(ctx, "relax.sum", 1, &lve, attrs, 0, NULL, &sum));
  rlx_relax_var_t* lv1 = NULL;
  CHECK_OK(rlx_bb_emit(bb, sum, NULL, &lv1));
  CHECK_STREQ(rlx_sinfo_str(ctx, rlx_relax_expr_sinfo(rlx_relax_var_expr(lv1))), "R.Tensor((n, 1), dtype=\"float32\")");
  rlx_relax_var_t* lv2 = NULL;
  CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, &lve, NULL, NULL, &lv2));
  CHECK_ERR(rlx_bb_emit_te(bb, te_fails, NULL, 1, &lve, NULL, NULL, &lv2), "returned no tensor");
  rlx_relax_expr_t* fields[2] = {rlx_relax_var_expr(lv1), rlx_relax_var_expr(lv2)};
  rlx_relax_var_t* gv = NULL;
  CHECK_OK(rlx_bb_emit_output(bb, rlx_relax_tuple(ctx, 2, fields), NULL, &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, rlx_relax_var_expr(gv), -1, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  return rlx_bb_get(bb);
}

static void test_build_inspect_transform(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_relax_var_t* x;
  rlx_module_t* m = build_module(ctx, &x);
  CHECK_STREQ(rlx_relax_var_name(x), "x");
  CHECK(rlx_module_func_count(m) == 2);
  int relax_funcs = 0;
  for (int i = 0; i < rlx_module_func_count(m); i++) relax_funcs += rlx_module_func_is_relax(m, i);
  CHECK(relax_funcs == 1);
  rlx_relax_func_t* f = rlx_module_get_relax_func(m, "main");
  CHECK(f != NULL);
  rlx_sinfo_t* ret = rlx_relax_func_ret_sinfo(f);
  CHECK(rlx_sinfo_kind_code(ret) == RLX_SINFO_KIND_TUPLE && rlx_sinfo_n_fields(ret) == 2);
  CHECK_OK(rlx_module_well_formed(ctx, m));

  rlx_relax_var_t* x2;
  rlx_module_t* m2 = build_module(ctx, &x2);
  CHECK(rlx_module_equal(m, m2));
  CHECK(rlx_module_hash(m) == rlx_module_hash(m2));
  rlx_module_t* legal = NULL;
  CHECK_OK(rlx_transform_run(ctx, "legalize_ops", m, &legal));
  CHECK(!rlx_module_equal(m, legal));
  CHECK(rlx_module_func_count(legal) > 2);
  CHECK_ERR(rlx_transform_run(ctx, "no_such_pass", m, &legal), "unknown pass 'no_such_pass' (passes: ");
  bool found = false;
  for (int i = 0; i < rlx_transform_pass_count(); i++) found = found || !strcmp(rlx_transform_pass_name(i), "fuse_ops");
  CHECK(found);
  rlx_module_t* copy = rlx_module_copy(ctx, m);
  CHECK(rlx_module_equal(m, copy));
  char* text = rlx_script_print_relax_func(m, f, "main");
  CHECK(text && strstr(text, "R.sum(lv, axis=[1], keepdims=True)"));
  free(text);
  rlx_ctx_free(ctx);
}

static void test_ops_and_errors(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int n = rlx_relax_op_count();
  CHECK(n > 50);
  bool has_conv = false;
  for (int i = 0; i < n; i++) {
    has_conv = has_conv || !strcmp(rlx_relax_op_name(i), "relax.nn.conv2d");
    CHECK(rlx_relax_op_params(i) != NULL); /* every op records its TVM signature */
    if (!strcmp(rlx_relax_op_name(i), "relax.sum")) CHECK_STREQ(rlx_relax_op_params(i), "x, axis:ints, keepdims:bool");
  }
  CHECK(has_conv);
  CHECK(rlx_relax_op_name(n) == NULL);
  CHECK(rlx_relax_op_params(n) == NULL);
  rlx_relax_expr_t* out = NULL;
  CHECK_ERR(rlx_relax_op_call_by_name(ctx, "relax.nope", 0, NULL, NULL, 0, NULL, &out), "unknown op 'relax.nope'");
  rlx_expr_t* e = rlx_ir_add(ctx, rlx_ir_var_expr(rlx_ir_var(ctx, "n", RLX_INT64)), rlx_ir_i64(ctx, 2));
  char* s = rlx_ir_expr_str(e);
  CHECK_STREQ(s, "n + 2");
  free(s);
  int64_t v = 0;
  CHECK(rlx_ir_expr_int_value(rlx_ir_i32(ctx, 7), &v) && v == 7);
  CHECK(!rlx_ir_expr_int_value(e, &v));
  CHECK(rlx_ir_expr_as_var(e) == NULL);
  rlx_relax_var_t* y = rlx_relax_var(ctx, "y", NULL);
  rlx_relax_func_t* f = NULL;
  CHECK_ERR(rlx_relax_function_create(ctx, 1, &y, rlx_relax_var_expr(y), NULL, true, "f", &f),
            "parameter y has no struct info");
  rlx_ctx_free(ctx);
}

static void test_topi_by_name(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  bool has_dense = false;
  for (int i = 0; i < rlx_topi_count(); i++)
    if (!strcmp(rlx_topi_name(i), "nn.dense")) has_dense = !strcmp(rlx_topi_params(i), "data:t weight:t bias:t? out_dtype:dtype?");
  CHECK(has_dense);
  rlx_expr_t* shape[2] = {rlx_ir_i32(ctx, 4), rlx_ir_i32(ctx, 6)};
  rlx_te_tensor_t* a = rlx_te_placeholder(ctx, 2, shape, RLX_FLOAT32, "A");
  rlx_te_tensor_t* out = NULL;
  CHECK_OK(rlx_topi_call(ctx, "nn.relu", 1, &a, NULL, &out));
  CHECK(out && rlx_te_tensor_ndim(out) == 2);
  rlx_attr_list_t* l = rlx_attr_list_create(ctx);
  int64_t newshape[1] = {24};
  rlx_attr_list_set_ints(l, "newshape", 1, newshape);
  CHECK_OK(rlx_topi_call(ctx, "reshape", 1, &a, l, &out));
  CHECK(rlx_te_tensor_ndim(out) == 1);
  rlx_attr_list_set_ints(l, "axis", 1, newshape);
  CHECK_ERR(rlx_topi_call(ctx, "nn.nope", 1, &a, NULL, &out), "unknown topi function 'nn.nope'");
  CHECK_ERR(rlx_topi_call(ctx, "add", 1, &a, NULL, &out), "tensor slot");
  CHECK_ERR(rlx_topi_call(ctx, "cast", 1, &a, NULL, &out), "dtype is required");
  /* several outputs: split into 2 sections along axis 1 (6 -> 3 + 3), at indices [1, 4] (3 pieces) */
  int n_split = -1;
  bool split_listed = false;
  for (int i = 0; i < rlx_topi_count(); i++)
    if (!strcmp(rlx_topi_name(i), "split")) split_listed = rlx_topi_returns_list(i);
  CHECK(split_listed);
  rlx_attr_list_t* sl = rlx_attr_list_create(ctx);
  rlx_attr_list_set_int(sl, "indices_or_sections", 2);
  rlx_attr_list_set_int(sl, "axis", 1);
  rlx_te_tensor_t** outs = NULL;
  CHECK_OK(rlx_topi_call_multi(ctx, "split", 1, &a, sl, &n_split, &outs));
  CHECK(n_split == 2 && outs[0] != outs[1]);
  int64_t at[2] = {1, 4};
  rlx_attr_list_set_ints(sl, "indices_or_sections", 2, at);
  CHECK_OK(rlx_topi_call_multi(ctx, "split", 1, &a, sl, &n_split, &outs));
  CHECK(n_split == 3);
  CHECK_ERR(rlx_topi_call(ctx, "split", 1, &a, sl, &out), "topi.split returns a list of tensors: call rlx_topi_call_multi");
  /* a one-output function through the multi entry gives one tensor */
  CHECK_OK(rlx_topi_call_multi(ctx, "nn.relu", 1, &a, NULL, &n_split, &outs));
  CHECK(n_split == 1 && rlx_te_tensor_ndim(outs[0]) == 2);
  rlx_te_tensor_t* none = NULL;
  CHECK_ERR(rlx_topi_call_multi(ctx, "nn.relu", 1, &none, NULL, &n_split, &outs), "topi.nn.relu: tensor argument 1 is missing");
  rlx_attr_list_set_int(sl, "axis", 5);
  CHECK_ERR(rlx_topi_call_multi(ctx, "split", 1, &a, sl, &n_split, &outs), "topi.split: axis 5 is out of range for rank 2");
  rlx_ctx_free(ctx);
}

int main(void) {
  test_build_inspect_transform();
  test_ops_and_errors();
  test_topi_by_name();
  TEST_MAIN_END();
}
