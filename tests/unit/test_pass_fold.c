/* fold_constants: a constant subgraph (add of two constants, then relu) folds into one
 * Constant with the right values; calls with a non-constant input stay; PrimFuncs nothing
 * calls any more leave the module; over-large outputs are not folded. */
#include "pass_test_util.h"
#include "script/script.h"
#include "test.h"
#include "transform/pass.h"

static rlx_status_t* te_add1(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user, rlx_te_tensor_t** out);

static rlx_expr_t* add1_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rlx_te_tensor_t** in = user;
  rlx_expr_t* i = &idx[0]->hdr;
  return rlx_ir_add(ctx, rlx_te_load(ctx, in[0], 1, &i), rlx_te_load(ctx, in[1], 1, &i));
}

static rlx_status_t* te_add1(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user, rlx_te_tensor_t** out) {
  (void)user;
  if (n != 2) return NULL;
  rlx_te_tensor_t** u = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, 2);
  u[0] = in[0];
  u[1] = in[1];
  return *out = rlx_te_compute(ctx, 1, in[0]->buffer->shape, add1_body, u, "add", "elemwise"), NULL;
}

static void test_fold_chain(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  int64_t four = 4;
  float a[4] = {1, -2, 3, -4}, b[4] = {0.5f, 1, -5, 2};
  rlx_relax_expr_t* c0 = rlx_relax_constant(ctx, f32, 1, &four, a, sizeof a);
  rlx_relax_expr_t* c1 = rlx_relax_constant(ctx, f32, 1, &four, b, sizeof b);
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", rlx_sinfo_tensor_const(ctx, 1, &four, f32));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *lv0, *lv1, *lv2, *gv;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  CHECK_OK(rlx_bb_emit_te(bb, te_add1, NULL, 2, (rlx_relax_expr_t*[]){c0, c1}, NULL, "lv0", &lv0));
  CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&lv0->hdr}, NULL, "lv1", &lv1));
  CHECK_OK(rlx_bb_emit_te(bb, te_add1, NULL, 2, (rlx_relax_expr_t*[]){&x->hdr, &lv1->hdr}, NULL, "lv2", &lv2));
  CHECK_OK(rlx_bb_emit_output(bb, &lv2->hdr, "gv", &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, -1, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* m = rlx_bb_get(bb);
  CHECK(count_tir_funcs(m) == 2); /* add (shared by both adds), relu */
  rlx_module_t* out = NULL;
  CHECK_OK(rlx_pass_fold_constants(ctx, m, &out));
  if (!out) return;
  CHECK_OK(rlx_relax_well_formed(ctx, out));
  CHECK(count_tir_funcs(m) == 2 && main_of(m) != main_of(out)); /* input untouched */
  CHECK(count_tir_funcs(out) == 1 && rlx_module_find(out, "add") && !rlx_module_find(out, "relu"));
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)main_of(out)->body;
  CHECK(seq->n_blocks == 1 && seq->blocks[0]->n_bindings == 3); /* lv1 = const, lv2 = add, gv */
  rlx_relax_binding_t* b1 = seq->blocks[0]->bindings[0];
  CHECK(b1->var == lv1 && b1->value->kind == RLX_RELAX_CONSTANT);
  if (b1->value->kind == RLX_RELAX_CONSTANT) {
    rlx_relax_constant_t* k = (rlx_relax_constant_t*)b1->value;
    float want[4] = {1.5f, 0, 0, 0};
    CHECK(k->ndim == 1 && k->shape[0] == 4 && k->nbytes == 16 && rlx_dtype_eq(k->dtype, f32));
    for (int i = 0; i < 4; i++)
      CHECK_MSG(((float*)k->data)[i] == want[i], "lv1[%d] = %g, expected %g", i, ((float*)k->data)[i], want[i]);
    CHECK_STREQ(rlx_sinfo_str(ctx, k->hdr.sinfo), "R.Tensor((4,), dtype=\"float32\")");
  }
  rlx_relax_binding_t* b2 = seq->blocks[0]->bindings[1];
  CHECK(b2->var == lv2 && b2->value->kind == RLX_RELAX_CALL);
  /* numbers: the folded module computes what the original does */
  ht_t* in = ht_new(ctx, f32, 1, &four);
  ht_fill(in, 1);
  ht_t* y0 = relax_eval(ctx, m, "main", &in);
  ht_t* y1 = relax_eval(ctx, out, "main", &in);
  CHECK(y0 && y1);
  if (y0 && y1) CHECK(ht_max_abs_diff(y1, ht_f32(y0)) == 0);
  /* nothing left to fold: a second run is the identity on the function */
  rlx_module_t* again = NULL;
  CHECK_OK(rlx_pass_fold_constants(ctx, out, &again));
  CHECK(again && main_of(again) == main_of(out) && count_tir_funcs(again) == 1);
  rlx_ctx_free(ctx);
}

/* A constant call whose output has more than 16M elements is not evaluated. */
static void test_size_limit(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  ctx->pass.fold_runner = NULL; /* the interpreter's limits: no compiled folds */
  rlx_dtype_t f32 = rlx_dt_float32();
  int64_t one = 1;
  float v = 2;
  rlx_relax_expr_t* c = rlx_relax_constant(ctx, f32, 1, &one, &v, sizeof v);
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *big, *small, *gv;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 0, (rlx_relax_var_t*[]){NULL}));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  CHECK_OK(rlx_bb_emit_te(bb, te_fill, rlx_ir_i64(ctx, 16 * 1024 * 1024 + 1), 1, &c, "fill_big", "big", &big));
  CHECK_OK(rlx_bb_emit_te(bb, te_fill, rlx_ir_i64(ctx, 3), 1, &c, "fill_small", "small", &small));
  CHECK_OK(rlx_bb_emit_output(bb, rlx_relax_tuple(ctx, 2, (rlx_relax_expr_t*[]){&big->hdr, &small->hdr}), "gv", &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, -1, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* out = NULL;
  CHECK_OK(rlx_pass_fold_constants(ctx, rlx_bb_get(bb), &out));
  if (!out) return;
  CHECK_OK(rlx_relax_well_formed(ctx, out));
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)main_of(out)->body;
  CHECK(seq->blocks[0]->bindings[0]->value->kind == RLX_RELAX_CALL);     /* big: kept */
  CHECK(seq->blocks[0]->bindings[1]->value->kind == RLX_RELAX_CONSTANT); /* small: folded */
  CHECK(rlx_module_find(out, "fill_big") && !rlx_module_find(out, "fill_small"));
  rlx_relax_constant_t* k = (rlx_relax_constant_t*)seq->blocks[0]->bindings[1]->value;
  if (k->hdr.kind == RLX_RELAX_CONSTANT)
    for (int i = 0; i < 3; i++) CHECK(((float*)k->data)[i] == 2.0f);
  rlx_ctx_free(ctx);
}

/* A PrimFunc the interpreter cannot run on the constants (an out-of-bounds read) is left as
 * a call. */
static void test_unrunnable_kept(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  const char* text =
      "@I.ir_module\n"
      "class Module:\n"
      "    @T.prim_func(private=True)\n"
      "    def shift(A: T.Buffer((T.int64(4),), \"float32\"), B: T.Buffer((T.int64(4),), \"float32\")):\n"
      "        for i in range(T.int64(4)):\n"
      "            with T.block(\"B\"):\n"
      "                vi = T.axis.spatial(T.int64(4), i)\n"
      "                B[vi] = A[vi + T.int64(1)]\n"
      "\n"
      "    @R.function\n"
      "    def main() -> R.Tensor((4,), dtype=\"float32\"):\n"
      "        cls = Module\n"
      "        with R.dataflow():\n"
      "            gv = R.call_tir(cls.shift, (R.const([1, 2, 3, 4], \"float32\"),), out_sinfo=R.Tensor((4,), "
      "dtype=\"float32\"))\n"
      "            R.output(gv)\n"
      "        return gv\n";
  rlx_module_t* m = NULL;
  CHECK_OK(rlx_script_parse(ctx, text, "t.py", &m));
  if (!m) return;
  rlx_module_t* out = NULL;
  CHECK_OK(rlx_pass_fold_constants(ctx, m, &out));
  CHECK(out && main_of(out) == main_of(m) && rlx_module_find(out, "shift"));
  rlx_ctx_free(ctx);
}

/* A matmul of constants folds when small (checked against C) and is left when its work
 * (512^3 multiply-adds) is over the limit. */
static void test_work_limit(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_fold_runner_t runner = ctx->pass.fold_runner; /* the build layer's: every public context has it */
  CHECK(runner != NULL);
  ctx->pass.fold_runner = NULL; /* first the interpreter's limits */
  rlx_dtype_t f32 = rlx_dt_float32();
  int sizes[2] = {12, 512};
  rlx_relax_expr_t* c[2][2];
  float* data[2];
  for (int s = 0; s < 2; s++) {
    int n = sizes[s];
    int64_t shape[2] = {n, n};
    data[s] = calloc((size_t)n * n, sizeof(float));
    for (int i = 0; i < n * n; i++) data[s][i] = (float)((i * 7) % 11) - 5.0f;
    for (int k = 0; k < 2; k++)
      c[s][k] = rlx_relax_constant(ctx, f32, 2, shape, data[s], (size_t)n * n * sizeof(float));
  }
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *small, *big, *gv;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 0, (rlx_relax_var_t*[]){NULL}));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  CHECK_OK(rlx_bb_emit_te(bb, te_matmul, NULL, 2, c[0], NULL, "small", &small));
  CHECK_OK(rlx_bb_emit_te(bb, te_matmul, NULL, 2, c[1], NULL, "big", &big));
  CHECK_OK(rlx_bb_emit_output(bb, rlx_relax_tuple(ctx, 2, (rlx_relax_expr_t*[]){&small->hdr, &big->hdr}), "gv", &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, -1, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* out = NULL;
  CHECK_OK(rlx_pass_fold_constants(ctx, rlx_bb_get(bb), &out));
  if (out) {
    CHECK_OK(rlx_relax_well_formed(ctx, out));
    rlx_relax_seq_t* seq = (rlx_relax_seq_t*)main_of(out)->body;
    rlx_relax_expr_t* v0 = seq->blocks[0]->bindings[0]->value;
    CHECK(v0->kind == RLX_RELAX_CONSTANT);
    CHECK(seq->blocks[0]->bindings[1]->value->kind == RLX_RELAX_CALL);
    if (v0->kind == RLX_RELAX_CONSTANT) {
      const float* got = ((rlx_relax_constant_t*)v0)->data;
      int n = sizes[0];
      double err = 0;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          float acc = 0;
          for (int k = 0; k < n; k++) acc += data[0][i * n + k] * data[0][k * n + j];
          err = fmax(err, fabs((double)acc - got[i * n + j]));
        }
      CHECK_MSG(err == 0, "folded matmul: max abs err %g (integers: exact)", err);
    }
  }
  /* with the compiled runner (a public context's default) the large one folds too */
  ctx->pass.fold_runner = runner;
  out = NULL;
  CHECK_OK(rlx_pass_fold_constants(ctx, rlx_bb_get(bb), &out));
  if (out) {
    rlx_relax_seq_t* seq = (rlx_relax_seq_t*)main_of(out)->body;
    CHECK(seq->blocks[0]->bindings[1]->value->kind == RLX_RELAX_CONSTANT);
  }
  free(data[0]);
  free(data[1]);
  rlx_ctx_free(ctx);
}

int main(void) {
  test_work_limit();
  test_unrunnable_kept();
  test_fold_chain();
  test_size_limit();
  TEST_MAIN_END();
}
