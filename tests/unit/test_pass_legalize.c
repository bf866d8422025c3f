/* legalize_ops: high-level op calls (written as TVMScript) become call_tirs of TE PrimFuncs,
 * binding by binding with the vars kept; an MLP (permute_dims, matmul, add, relu, matmul,
 * add) after legalize_ops + fuse_ops computes what plain C loops compute (fixed and symbolic
 * batch); call_tir / call_pure_packed and builtins stay; unknown ops are errors naming the op
 * and the binding. */
#include <stdlib.h>

#include "driver/driver.h"
#include "pass_test_util.h"
#include "relax/op.h"
#include "script/script.h"
#include "test.h"
#include "transform/fuse.h"
#include "transform/pass.h"

static const char* MLP =
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\", 16), dtype=\"float32\"), w1: R.Tensor((32, 16), dtype=\"float32\"),\n"
    "             b1: R.Tensor((32,), dtype=\"float32\"), w2: R.Tensor((10, 32), dtype=\"float32\"),\n"
    "             b2: R.Tensor((10,), dtype=\"float32\")) -> R.Tensor((\"n\", 10), dtype=\"float32\"):\n"
    "        n = T.int64()\n"
    "        with R.dataflow():\n"
    "            lv0: R.Tensor((16, 32), dtype=\"float32\") = R.permute_dims(w1, axes=None)\n"
    "            lv1: R.Tensor((n, 32), dtype=\"float32\") = R.matmul(x, lv0, out_dtype=\"void\")\n"
    "            lv2: R.Tensor((n, 32), dtype=\"float32\") = R.add(lv1, b1)\n"
    "            lv3: R.Tensor((n, 32), dtype=\"float32\") = R.nn.relu(lv2)\n"
    "            lv4: R.Tensor((32, 10), dtype=\"float32\") = R.permute_dims(w2)\n"
    "            lv5: R.Tensor((n, 10), dtype=\"float32\") = R.matmul(lv3, lv4, out_dtype=\"void\")\n"
    "            gv: R.Tensor((n, 10), dtype=\"float32\") = R.add(lv5, b2)\n"
    "            R.output(gv)\n"
    "        return gv\n";

static rlx_module_t* parse(rlx_ctx_t* ctx, const char* text) {
  rlx_module_t* m = NULL;
  CHECK_OK(rlx_script_parse(ctx, text, "test.py", &m));
  return m;
}

static const char* binding_callee(rlx_relax_binding_t* b) {
  if (b->value->kind != RLX_RELAX_CALL) return NULL;
  rlx_relax_call_t* c = (rlx_relax_call_t*)b->value;
  if (!rlx_relax_is_op(c->op, RLX_OP_CALL_TIR)) return NULL;
  return ((rlx_relax_global_var_t*)c->args[0])->name;
}

/* relu(x @ w1^T + b1) @ w2^T + b2 in plain C; x (n, 16), w1 (32, 16), w2 (10, 32). */
static void ref_mlp(const float* x, const float* w1, const float* b1, const float* w2, const float* b2, int n,
                    float* out) {
  float h[32];
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < 32; j++) {
      float acc = 0;
      for (int k = 0; k < 16; k++) acc += x[i * 16 + k] * w1[j * 16 + k];
      acc += b1[j];
      h[j] = acc > 0 ? acc : 0;
    }
    for (int j = 0; j < 10; j++) {
      float acc = 0;
      for (int k = 0; k < 32; k++) acc += h[k] * w2[j * 32 + k];
      out[i * 10 + j] = acc + b2[j];
    }
  }
}

static void check_mlp(rlx_ctx_t* ctx, rlx_module_t* m, const char* stage, int n) {
  rlx_dtype_t f32 = rlx_dt_float32();
  int64_t sx[2] = {n, 16}, sw1[2] = {32, 16}, sb1[1] = {32}, sw2[2] = {10, 32}, sb2[1] = {10};
  ht_t* in[5] = {ht_new(ctx, f32, 2, sx), ht_new(ctx, f32, 2, sw1), ht_new(ctx, f32, 1, sb1), ht_new(ctx, f32, 2, sw2),
                 ht_new(ctx, f32, 1, sb2)};
  for (int i = 0; i < 5; i++) ht_fill(in[i], (unsigned)(11 * i + n));
  float* ref = calloc((size_t)n * 10, sizeof(float));
  ref_mlp(ht_f32(in[0]), ht_f32(in[1]), ht_f32(in[2]), ht_f32(in[3]), ht_f32(in[4]), n, ref);
  ht_t* y = relax_eval(ctx, m, "main", in);
  CHECK_MSG(y != NULL, "%s: evaluation failed", stage);
  if (y) {
    CHECK(y->dl.ndim == 2 && y->shape[0] == n && y->shape[1] == 10);
    double e = ht_max_abs_diff(y, ref);
    CHECK_MSG(e < 1e-4, "%s, n=%d: max abs err %g vs C (tol 1e-4)", stage, n, e);
  }
  free(ref);
}

static void test_mlp(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = parse(ctx, MLP);
  if (!m) return;
  CHECK_OK(rlx_relax_well_formed(ctx, m));
  rlx_module_t* lg = NULL;
  CHECK_OK(rlx_pass_legalize_ops(ctx, m, &lg));
  if (!lg) return;
  CHECK_OK(rlx_relax_well_formed(ctx, lg));
  CHECK(count_tir_funcs(m) == 0 && m->n_funcs == 1); /* input untouched */
  /* binding by binding: same vars, each now a call_tir with the same struct info */
  rlx_relax_seq_t* s0 = (rlx_relax_seq_t*)main_of(m)->body;
  rlx_relax_seq_t* s1 = (rlx_relax_seq_t*)main_of(lg)->body;
  CHECK(s1->n_blocks == 1 && s1->blocks[0]->is_dataflow && s1->blocks[0]->n_bindings == 7);
  const char* want[7] = {"transpose", "matmul", "add", "relu", "transpose1", "matmul1", "add1"};
  for (int k = 0; k < 7 && k < s1->blocks[0]->n_bindings; k++) {
    rlx_relax_binding_t* b = s1->blocks[0]->bindings[k];
    CHECK(b->var == s0->blocks[0]->bindings[k]->var);
    const char* callee = binding_callee(b);
    CHECK_MSG(callee && strcmp(callee, want[k]) == 0, "binding %d calls %s, expected %s", k, callee ? callee : "-",
              want[k]);
    CHECK(rlx_sinfo_struct_equal(b->value->sinfo, b->var->hdr.sinfo));
    rlx_module_entry_t* e = callee ? rlx_module_find(lg, callee) : NULL;
    CHECK(e && e->kind == RLX_FUNC_TIR && ((rlx_tir_func_t*)e->func)->is_private);
  }
  CHECK(count_tir_funcs(lg) == 7);
  CHECK(rlx_sinfo_struct_equal(main_of(lg)->ret_sinfo, main_of(m)->ret_sinfo));
  check_mlp(ctx, lg, "legalized", 3);

  /* + fuse_ops: transpose | matmul+add+relu | transpose | matmul+add */
  rlx_module_t* fz = NULL;
  CHECK_OK(pass_fuse(ctx, lg, &fz));
  if (!fz) return;
  CHECK_OK(rlx_relax_well_formed(ctx, fz));
  const char* names[8];
  int n = call_tir_names(fz, names, 8);
  CHECK(n == 4);
  const char* wantf[4] = {"transpose", "fused_matmul_add_relu", "transpose1", "fused_matmul1_add1"};
  for (int i = 0; i < n && i < 4; i++) CHECK_STREQ(names[i], wantf[i]);
  CHECK(count_tir_funcs(fz) == 4);
  rlx_module_entry_t* fe = rlx_module_find(fz, "fused_matmul_add_relu");
  if (fe) {
    rlx_tir_func_t* f = fe->func;
    CHECK(f->n_params == 4);
    CHECK(f->buffer_map[0]->shape[0]->kind == RLX_EXPR_VAR && f->buffer_map[0]->shape[0] == f->buffer_map[3]->shape[0]);
  }
  check_mlp(ctx, fz, "legalized+fused", 3);
  check_mlp(ctx, fz, "legalized+fused", 1);

  /* + default_schedule: still the same numbers */
  rlx_module_t* sc = NULL;
  CHECK_OK(rlx_pass_default_schedule(ctx, fz, &sc));
  if (sc) {
    CHECK_OK(rlx_relax_well_formed(ctx, sc));
    check_mlp(ctx, sc, "legalized+fused+scheduled", 5);
  }
  rlx_ctx_free(ctx);
}

/* A transpose of a constant weight folds after legalization (TVM's usual pattern). */
static void test_fold_constant_weight(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  const char* text =
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 2), dtype=\"float32\"):\n"
      "        with R.dataflow():\n"
      "            lv0: R.Tensor((3, 2), dtype=\"float32\") = R.permute_dims(R.const([[1, 2, 3], [4, 5, 6]], "
      "\"float32\"))\n"
      "            gv: R.Tensor((2, 2), dtype=\"float32\") = R.matmul(x, lv0, out_dtype=\"void\")\n"
      "            R.output(gv)\n"
      "        return gv\n";
  rlx_module_t* m = parse(ctx, text);
  if (!m) return;
  rlx_module_t *lg = NULL, *fc = NULL;
  CHECK_OK(rlx_pass_legalize_ops(ctx, m, &lg));
  if (lg) CHECK_OK(rlx_pass_fold_constants(ctx, lg, &fc));
  if (!fc) return;
  CHECK_OK(rlx_relax_well_formed(ctx, fc));
  const char* names[4];
  CHECK(call_tir_names(fc, names, 4) == 1 && strcmp(names[0], "matmul") == 0);
  CHECK(!rlx_module_find(fc, "transpose") && count_tir_funcs(fc) == 1);
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)main_of(fc)->body;
  rlx_relax_binding_t* b = seq->blocks[0]->bindings[0];
  CHECK(b->value->kind == RLX_RELAX_CONSTANT);
  if (b->value->kind == RLX_RELAX_CONSTANT) {
    float* d = ((rlx_relax_constant_t*)b->value)->data;
    float want[6] = {1, 4, 2, 5, 3, 6};
    for (int i = 0; i < 6; i++) CHECK(d[i] == want[i]);
  }
  ht_t* x = ht_new(ctx, rlx_dt_float32(), 2, (int64_t[]){2, 3});
  for (int i = 0; i < 6; i++) ht_f32(x)[i] = (float)(i + 1);
  ht_t* y = relax_eval(ctx, fc, "main", &x);
  float ref[4] = {14, 32, 32, 77}; /* x @ w^T with x = w = [[1,2,3],[4,5,6]] */
  CHECK(y && ht_max_abs_diff(y, ref) == 0);
  rlx_ctx_free(ctx);
}

/* call_tir, call_pure_packed and ops without a legalize function stay; an unknown op is an
 * error naming the op and the binding. */
static void test_kept_and_errors(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  const char* text =
      "@I.ir_module\n"
      "class Module:\n"
      "    @T.prim_func(private=True)\n"
      "    def copy(A: T.Buffer((T.int64(4),), \"float32\"), B: T.Buffer((T.int64(4),), \"float32\")):\n"
      "        for i in range(T.int64(4)):\n"
      "            with T.block(\"B\"):\n"
      "                vi = T.axis.spatial(T.int64(4), i)\n"
      "                B[vi] = A[vi]\n"
      "\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), dtype=\"float32\"):\n"
      "        cls = Module\n"
      "        with R.dataflow():\n"
      "            lv0 = R.call_tir(cls.copy, (x,), out_sinfo=R.Tensor((4,), dtype=\"float32\"))\n"
      "            lv1: R.Tensor((4,), dtype=\"float32\") = R.call_pure_packed(\"ext\", lv0, "
      "sinfo_args=(R.Tensor((4,), dtype=\"float32\"),))\n"
      "            gv: R.Tensor((4,), dtype=\"float32\") = R.exp(lv1)\n"
      "            R.output(gv)\n"
      "        return gv\n";
  rlx_module_t* m = parse(ctx, text);
  if (!m) return;
  rlx_module_t* lg = NULL;
  CHECK_OK(rlx_pass_legalize_ops(ctx, m, &lg));
  if (!lg) return;
  CHECK_OK(rlx_relax_well_formed(ctx, lg));
  rlx_relax_seq_t* s0 = (rlx_relax_seq_t*)main_of(m)->body;
  rlx_relax_seq_t* s1 = (rlx_relax_seq_t*)main_of(lg)->body;
  CHECK(s1->blocks[0]->bindings[0]->value == s0->blocks[0]->bindings[0]->value);
  CHECK(s1->blocks[0]->bindings[1]->value == s0->blocks[0]->bindings[1]->value);
  const char* callee = binding_callee(s1->blocks[0]->bindings[2]);
  CHECK(callee && strcmp(callee, "exp") == 0);
  CHECK(count_tir_funcs(lg) == 2);

  /* an op that is not registered: the call is built by hand (no inference exists) */
  rlx_dtype_t f32 = rlx_dt_float32();
  int64_t four = 4;
  rlx_sinfo_t* t4 = rlx_sinfo_tensor_const(ctx, 1, &four, f32);
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t4);
  rlx_relax_expr_t* bogus = rlx_relax_op_call_named(ctx, "relax.bogus", 1, (rlx_relax_expr_t*[]){&x->hdr}, (rlx_attrs_t){0});
  bogus->sinfo = t4;
  rlx_relax_var_t* lv = rlx_relax_var(ctx, "lv_bad", t4);
  rlx_relax_binding_t* b = rlx_relax_var_binding(ctx, lv, bogus);
  rlx_relax_block_t* blk = rlx_relax_block(ctx, false, 1, &b);
  rlx_relax_expr_t* seq = rlx_relax_seq(ctx, 1, &blk, &lv->hdr);
  seq->sinfo = t4;
  rlx_relax_func_t* f = rlx_relax_func(ctx, 1, &x, seq, t4, (rlx_attrs_t){0}, true);
  rlx_module_t* bad = rlx_module_create(ctx);
  rlx_module_set(bad, "main", RLX_FUNC_RELAX, f);
  rlx_module_t* out = NULL;
  rlx_status_t* st = rlx_pass_legalize_ops(ctx, bad, &out);
  CHECK(st != NULL);
  if (st) {
    const char* msg = rlx_status_message(st);
    CHECK_MSG(strstr(msg, "unknown op 'relax.bogus'") && strstr(msg, "'lv_bad'") && strstr(msg, "'main'"), "got: %s",
              msg);
    rlx_status_free(st);
  }
  rlx_ctx_free(ctx);
}

/* Calls inside If branches are legalized in place. */
static void test_if_branches(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  const char* text =
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function\n"
      "    def main(c: R.Tensor((), dtype=\"bool\"), x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), "
      "dtype=\"float32\"):\n"
      "        if c:\n"
      "            y1: R.Tensor((4,), dtype=\"float32\") = R.exp(x)\n"
      "            y: R.Tensor((4,), dtype=\"float32\") = y1\n"
      "        else:\n"
      "            y: R.Tensor((4,), dtype=\"float32\") = R.nn.relu(x)\n"
      "        return y\n";
  rlx_module_t* m = parse(ctx, text);
  if (!m) return;
  rlx_module_t* lg = NULL;
  CHECK_OK(rlx_pass_legalize_ops(ctx, m, &lg));
  if (!lg) return;
  CHECK_OK(rlx_relax_well_formed(ctx, lg));
  CHECK(count_tir_funcs(lg) == 2 && rlx_module_find(lg, "exp") && rlx_module_find(lg, "relu"));
  char* s = rlx_script_print_module(lg);
  CHECK_MSG(s && !strstr(s, "R.exp(") && !strstr(s, "R.nn.relu(") && strstr(s, "R.call_tir(cls.exp") &&
                strstr(s, "R.call_tir(cls.relu"),
            "%s", s ? s : "(null)");
  free(s);
  rlx_ctx_free(ctx);
}

/* The pipeline up to default_schedule, well-formedness checked after every pass. */
static void test_pipeline(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = parse(ctx, MLP);
  if (!m) return;
  rlx_pipeline_options_t opts = {true, "default_schedule"};
  rlx_module_t* out = NULL;
  CHECK_OK(rlx_pipeline_run(ctx, m, &opts, &out));
  if (!out) return;
  const char* names[8];
  CHECK(call_tir_names(out, names, 8) == 4);
  for (int i = 0; i < out->n_funcs; i++)
    if (out->funcs[i].kind == RLX_FUNC_TIR) {
      int64_t v = 0;
      CHECK(rlx_expr_is_const_int(rlx_tir_func_get_attr(out->funcs[i].func, "tir.is_scheduled"), &v) && v);
    }
  check_mlp(ctx, out, "pipeline to default_schedule", 4);
  rlx_ctx_free(ctx);
}

/* A fused function whose inputs have only compound dims (n * 4) gets n as a scalar param,
 * passed as tir_vars; the members' own tir_vars map onto it. */
static void test_fused_tir_vars(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  const char* text =
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((\"n\", 4), dtype=\"float32\")):\n"
      "        n = T.int64()\n"
      "        with R.dataflow():\n"
      "            lv0: R.Tensor((n * 4,), dtype=\"float32\") = R.reshape(x, R.shape([n * 4]))\n"
      "            lv1: R.Tensor((n * 4,), dtype=\"float32\") = R.nn.relu(lv0)\n"
      "            lv2: R.Tensor((n * 4,), dtype=\"float32\") = R.exp(lv1)\n"
      "            lv3: R.Tensor((), dtype=\"float32\") = R.sum(lv0)\n"
      "            gv: R.Tensor((n * 4,), dtype=\"float32\") = R.add(lv2, lv3)\n"
      "            R.output(gv)\n"
      "        return gv\n";
  rlx_module_t* m = parse(ctx, text);
  if (!m) return;
  rlx_module_t *lg = NULL, *fz = NULL;
  CHECK_OK(rlx_pass_legalize_ops(ctx, m, &lg));
  if (lg) CHECK_OK(pass_fuse(ctx, lg, &fz));
  if (!fz) return;
  CHECK_OK(rlx_relax_well_formed(ctx, fz));
  const char* names[8];
  CHECK(call_tir_names(fz, names, 8) == 2);
  CHECK_STREQ(names[0], "reshape");
  CHECK_STREQ(names[1], "fused_relu_exp_sum_add");
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)main_of(fz)->body;
  rlx_relax_call_t* c = (rlx_relax_call_t*)seq->blocks[0]->bindings[1]->value;
  CHECK(c->n_args == 3 && c->args[2]->kind == RLX_RELAX_SHAPE_EXPR);
  if (c->n_args == 3) {
    rlx_relax_shape_expr_t* tv = (rlx_relax_shape_expr_t*)c->args[2];
    CHECK(tv->ndim == 1 && tv->values[0]->kind == RLX_EXPR_VAR);
  }
  rlx_tir_func_t* f = rlx_module_find(fz, "fused_relu_exp_sum_add")->func;
  CHECK(f->n_params == 3 && f->buffer_map[2] == NULL && f->params[2]->hdr.kind == RLX_EXPR_VAR);
  CHECK_OK(rlx_tir_verify(f));
  for (int n = 1; n <= 3; n += 2) {
    ht_t* x = ht_new(ctx, rlx_dt_float32(), 2, (int64_t[]){n, 4});
    ht_fill(x, (unsigned)n);
    double total = 0;
    for (int i = 0; i < 4 * n; i++) total += ht_f32(x)[i];
    float* ref = calloc((size_t)(4 * n), sizeof(float));
    for (int i = 0; i < 4 * n; i++) ref[i] = expf(fmaxf(ht_f32(x)[i], 0)) + (float)total;
    ht_t* y = relax_eval(ctx, fz, "main", &x);
    CHECK(y && ht_numel(y) == 4 * n);
    if (y) {
      double e = ht_max_abs_diff(y, ref);
      CHECK_MSG(e < 1e-5, "n=%d: max abs err %g vs C (tol 1e-5)", n, e);
    }
    free(ref);
  }
  rlx_ctx_free(ctx);
}

/* An impure function without params: ops outside dataflow blocks, next to call_packed. */
static void test_impure_no_params(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  const char* text =
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function(pure=False)\n"
      "    def main() -> R.Tensor((2,), dtype=\"float32\"):\n"
      "        a: R.Tensor((2,), dtype=\"float32\") = R.call_packed(\"make\", sinfo_args=(R.Tensor((2,), "
      "dtype=\"float32\"),))\n"
      "        b: R.Tensor((2,), dtype=\"float32\") = R.add(a, R.const([1, 2], \"float32\"))\n"
      "        return b\n";
  rlx_module_t* m = parse(ctx, text);
  if (!m) return;
  rlx_module_t* lg = NULL;
  CHECK_OK(rlx_pass_legalize_ops(ctx, m, &lg));
  if (!lg) return;
  CHECK_OK(rlx_relax_well_formed(ctx, lg));
  rlx_relax_func_t* f = main_of(lg);
  CHECK(!f->is_pure && f->n_params == 0);
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
  CHECK(seq->n_blocks == 1 && !seq->blocks[0]->is_dataflow && seq->blocks[0]->n_bindings == 2);
  CHECK(binding_callee(seq->blocks[0]->bindings[1]) && !strcmp(binding_callee(seq->blocks[0]->bindings[1]), "add"));
  rlx_ctx_free(ctx);
}

/* A legalization that fails (unknown shape) is an error naming the op, function and binding. */
static void test_unknown_shape_error(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  const char* text =
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function\n"
      "    def main(x: R.Tensor(dtype=\"float32\", ndim=2)) -> R.Tensor(dtype=\"float32\", ndim=2):\n"
      "        with R.dataflow():\n"
      "            act: R.Tensor(dtype=\"float32\", ndim=2) = R.nn.relu(x)\n"
      "            R.output(act)\n"
      "        return act\n";
  rlx_module_t* m = parse(ctx, text);
  if (!m) return;
  rlx_module_t* lg = NULL;
  rlx_status_t* st = rlx_pass_legalize_ops(ctx, m, &lg);
  CHECK(st != NULL);
  if (st) {
    const char* msg = rlx_status_message(st);
    CHECK_MSG(strstr(msg, "'relax.nn.relu'") && strstr(msg, "binding 'act'") && strstr(msg, "function 'main'"),
              "got: %s", msg);
    rlx_status_free(st);
  }
  rlx_ctx_free(ctx);
}

/* A small CNN (conv2d, relu, pools, reshape, linear, layer_norm, log_softmax): conv2d takes
 * relu; reductions stay apart; the fused module computes exactly what the unfused one does. */
static const char* CNN =
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\", 3, 10, 10), dtype=\"float32\"), w: R.Tensor((8, 3, 3, 3), dtype=\"float32\"),\n"
    "             w2: R.Tensor((5, 8), dtype=\"float32\"), b2: R.Tensor((5,), dtype=\"float32\"),\n"
    "             g: R.Tensor((5,), dtype=\"float32\"), be: R.Tensor((5,), dtype=\"float32\")) -> R.Tensor((\"n\", 5), "
    "dtype=\"float32\"):\n"
    "        n = T.int64()\n"
    "        with R.dataflow():\n"
    "            lv0: R.Tensor((n, 8, 10, 10), dtype=\"float32\") = R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, "
    "1, 1], dilation=[1, 1], groups=1, data_layout=\"NCHW\", kernel_layout=\"OIHW\", out_layout=\"NCHW\", "
    "out_dtype=\"void\")\n"
    "            lv1: R.Tensor((n, 8, 10, 10), dtype=\"float32\") = R.nn.relu(lv0)\n"
    "            lv2: R.Tensor((n, 8, 5, 5), dtype=\"float32\") = R.nn.max_pool2d(lv1, pool_size=[2, 2], strides=[2, "
    "2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout=\"NCHW\", "
    "out_layout=\"NCHW\")\n"
    "            lv3: R.Tensor((n, 8, 1, 1), dtype=\"float32\") = R.nn.adaptive_avg_pool2d(lv2, output_size=[1, 1], "
    "layout=\"NCHW\", out_layout=\"NCHW\")\n"
    "            lv4: R.Tensor((n, 8), dtype=\"float32\") = R.reshape(lv3, R.shape([n, 8]))\n"
    "            lv5: R.Tensor((n, 5), dtype=\"float32\") = R.linear(lv4, w2, b2)\n"
    "            lv6: R.Tensor((n, 5), dtype=\"float32\") = R.nn.layer_norm(lv5, g, be, axes=[-1], "
    "epsilon=1.0000000000000001e-05, center=True, scale=True)\n"
    "            gv: R.Tensor((n, 5), dtype=\"float32\") = R.nn.log_softmax(lv6, axis=-1)\n"
    "            R.output(gv)\n"
    "        return gv\n";

static void test_cnn(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = parse(ctx, CNN);
  if (!m) return;
  rlx_module_t *lg = NULL, *fz = NULL;
  CHECK_OK(rlx_pass_legalize_ops(ctx, m, &lg));
  if (lg) CHECK_OK(pass_fuse(ctx, lg, &fz));
  if (!fz) return;
  CHECK_OK(rlx_relax_well_formed(ctx, fz));
  const char* names[16];
  int n = call_tir_names(fz, names, 16);
  CHECK(n == 7 && strcmp(names[0], "fused_conv2d_relu") == 0);
  rlx_module_entry_t* fe = rlx_module_find(fz, "fused_conv2d_relu");
  CHECK(fe && rlx_tir_func_pattern(fe->func) == RLX_PATTERN_OUT_EWISE_FUSABLE);
  rlx_dtype_t f32 = rlx_dt_float32();
  ht_t* in[6] = {ht_new(ctx, f32, 4, (int64_t[]){2, 3, 10, 10}),
                 ht_new(ctx, f32, 4, (int64_t[]){8, 3, 3, 3}),
                 ht_new(ctx, f32, 2, (int64_t[]){5, 8}),
                 ht_new(ctx, f32, 1, (int64_t[]){5}),
                 ht_new(ctx, f32, 1, (int64_t[]){5}),
                 ht_new(ctx, f32, 1, (int64_t[]){5})};
  for (int i = 0; i < 6; i++) ht_fill(in[i], (unsigned)(i + 3));
  ht_t* y0 = relax_eval(ctx, lg, "main", in);
  ht_t* y1 = relax_eval(ctx, fz, "main", in);
  CHECK(y0 && y1 && ht_numel(y1) == 10);
  if (y0 && y1) CHECK_MSG(ht_max_abs_diff(y1, ht_f32(y0)) == 0, "fused CNN differs from unfused");
  rlx_ctx_free(ctx);
}

int main(void) {
  test_cnn();
  test_unknown_shape_error();
  test_impure_no_params();
  test_fused_tir_vars();
  test_if_branches();
  test_pipeline();
  test_mlp();
  test_fold_constant_weight();
  test_kept_and_errors();
  TEST_MAIN_END();
}
