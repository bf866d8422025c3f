/* fuse_ops (FuseOps + FuseTIR): pattern classification, grouping (matmul + bias + relu,
 * reductions absorbing elementwise ops, injective chains, diamonds, multi-use producers),
 * fused PrimFunc params and names, symbolic batch dims unified across members, and numbers:
 * the fused module computes what the unfused chain and a plain C reference compute. */
#include "pass_test_util.h"
#include "script/script.h"
#include "test.h"
#include "transform/fuse.h"
#include "transform/pass.h"

static rlx_dtype_t F32(void) { return rlx_dt_float32(); }

/* C reference of relu(x @ w + b) for x (n, k), w (k, m). */
static void ref_dense(const float* x, const float* w, const float* b, int n, int k, int m, bool relu, float* out) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      float acc = 0;
      for (int q = 0; q < k; q++) acc += x[i * k + q] * w[q * m + j];
      acc += b[j];
      out[i * m + j] = relu && acc < 0 ? 0 : acc;
    }
}

/* main(x, w1, b1, w2, b2) = (relu(x @ w1 + b1)) @ w2 + b2, emitted with emit_te; n NULL =
 * batch 8, else the symbolic batch var. */
static rlx_module_t* build_mlp(rlx_ctx_t* ctx, rlx_expr_t* n) {
  rlx_expr_t* batch = n ? n : rlx_ir_i64(ctx, 8);
  rlx_expr_t *c16 = rlx_ir_i64(ctx, 16), *c32 = rlx_ir_i64(ctx, 32), *c10 = rlx_ir_i64(ctx, 10);
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t2(ctx, batch, c16, F32()));
  rlx_relax_var_t* w1 = rlx_relax_var(ctx, "w1", t2(ctx, c16, c32, F32()));
  rlx_relax_var_t* b1 = rlx_relax_var(ctx, "b1", rlx_sinfo_tensor(ctx, 1, &c32, F32()));
  rlx_relax_var_t* w2 = rlx_relax_var(ctx, "w2", t2(ctx, c32, c10, F32()));
  rlx_relax_var_t* b2 = rlx_relax_var(ctx, "b2", rlx_sinfo_tensor(ctx, 1, &c10, F32()));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *lv0, *lv1, *lv2, *lv3, *lv4, *gv;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 5, (rlx_relax_var_t*[]){x, w1, b1, w2, b2}));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  CHECK_OK(rlx_bb_emit_te(bb, te_matmul, NULL, 2, (rlx_relax_expr_t*[]){&x->hdr, &w1->hdr}, NULL, "lv0", &lv0));
  CHECK_OK(rlx_bb_emit_te(bb, te_bias_add, NULL, 2, (rlx_relax_expr_t*[]){&lv0->hdr, &b1->hdr}, NULL, "lv1", &lv1));
  CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&lv1->hdr}, NULL, "lv2", &lv2));
  CHECK_OK(rlx_bb_emit_te(bb, te_matmul, NULL, 2, (rlx_relax_expr_t*[]){&lv2->hdr, &w2->hdr}, NULL, "lv3", &lv3));
  CHECK_OK(rlx_bb_emit_te(bb, te_bias_add, NULL, 2, (rlx_relax_expr_t*[]){&lv3->hdr, &b2->hdr}, NULL, "lv4", &lv4));
  CHECK_OK(rlx_bb_emit_output(bb, &lv4->hdr, "gv", &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, -1, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  return rlx_bb_get(bb);
}

static void test_patterns(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = build_mlp(ctx, NULL);
  rlx_module_entry_t* mm = rlx_module_find(m, "matmul");
  rlx_module_entry_t* add = rlx_module_find(m, "add");
  rlx_module_entry_t* relu = rlx_module_find(m, "relu");
  CHECK(mm && add && relu);
  if (!mm || !add || !relu) return;
  CHECK(rlx_tir_func_pattern(mm->func) == RLX_PATTERN_OUT_EWISE_FUSABLE);
  CHECK(rlx_tir_func_pattern(add->func) == RLX_PATTERN_BROADCAST);
  CHECK(rlx_tir_func_pattern(relu->func) == RLX_PATTERN_ELEMWISE);
  CHECK_STREQ(rlx_op_pattern_name(rlx_tir_func_pattern(mm->func)), "out_ewise_fusable");
  /* transpose: injective; row sum: reduction; an op_pattern attribute wins */
  rlx_relax_var_t* a = rlx_relax_var(ctx, "a", rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){4, 6}, F32()));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_expr_t *ct = NULL, *cs = NULL;
  CHECK_OK(rlx_bb_call_te(bb, te_transpose, NULL, 1, (rlx_relax_expr_t*[]){&a->hdr}, NULL, &ct));
  CHECK_OK(rlx_bb_call_te(bb, te_rowsum, NULL, 1, (rlx_relax_expr_t*[]){&a->hdr}, NULL, &cs));
  rlx_tir_func_t* tr = rlx_module_find(rlx_bb_get(bb), "transpose")->func;
  rlx_tir_func_t* sm = rlx_module_find(rlx_bb_get(bb), "sum")->func;
  CHECK(rlx_tir_func_pattern(tr) == RLX_PATTERN_INJECTIVE);
  CHECK(rlx_tir_func_pattern(sm) == RLX_PATTERN_COMM_REDUCE);
  CHECK(rlx_tir_func_pattern(rlx_tir_func_with_attr(ctx, sm, "op_pattern", rlx_ir_i64(ctx, 8))) == RLX_PATTERN_OPAQUE);
  CHECK(rlx_tir_func_pattern(rlx_tir_func_with_attr(ctx, sm, "tir.is_scheduled", rlx_ir_bool(ctx, true))) ==
        RLX_PATTERN_OPAQUE);
  rlx_ctx_free(ctx);
}

static void check_mlp_numbers(rlx_ctx_t* ctx, rlx_module_t* before, rlx_module_t* after, int batch) {
  ht_t* in[5];
  int64_t sx[2] = {batch, 16}, sw1[2] = {16, 32}, sb1[1] = {32}, sw2[2] = {32, 10}, sb2[1] = {10};
  in[0] = ht_new(ctx, F32(), 2, sx);
  in[1] = ht_new(ctx, F32(), 2, sw1);
  in[2] = ht_new(ctx, F32(), 1, sb1);
  in[3] = ht_new(ctx, F32(), 2, sw2);
  in[4] = ht_new(ctx, F32(), 1, sb2);
  for (int i = 0; i < 5; i++) ht_fill(in[i], (unsigned)(i + 7 * batch));
  float* h = calloc((size_t)batch * 32, sizeof(float));
  float* ref = calloc((size_t)batch * 10, sizeof(float));
  ref_dense(ht_f32(in[0]), ht_f32(in[1]), ht_f32(in[2]), batch, 16, 32, true, h);
  ref_dense(h, ht_f32(in[3]), ht_f32(in[4]), batch, 32, 10, false, ref);
  ht_t* y0 = relax_eval(ctx, before, "main", in);
  ht_t* y1 = relax_eval(ctx, after, "main", in);
  CHECK(y0 && y1);
  if (y0 && y1) {
    CHECK(y1->dl.ndim == 2 && y1->shape[0] == batch && y1->shape[1] == 10);
    double d0 = ht_max_abs_diff(y0, ref), d1 = ht_max_abs_diff(y1, ref), d01 = ht_max_abs_diff(y1, ht_f32(y0));
    CHECK_MSG(d0 < 1e-4, "unfused vs C: max abs err %g (tol 1e-4)", d0);
    CHECK_MSG(d1 < 1e-4, "fused vs C: max abs err %g (tol 1e-4)", d1);
    CHECK_MSG(d01 == 0, "fused vs unfused: max abs err %g (expected bit-identical)", d01);
  }
  free(h);
  free(ref);
}

/* matmul + add + relu → fused_matmul_add_relu; matmul + add → fused_matmul1_add1. */
static void test_mlp(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = build_mlp(ctx, NULL);
  CHECK_OK(rlx_relax_well_formed(ctx, m));
  int n_before = m->n_funcs;
  rlx_module_t* out = NULL;
  CHECK_OK(pass_fuse(ctx, m, &out));
  if (!out) return;
  CHECK(m->n_funcs == n_before); /* the input is left as it is */
  CHECK_OK(rlx_relax_well_formed(ctx, out));
  /* fuse_ops' groups are left to fuse_tir: fuse_ops again changes nothing */
  rlx_module_t *grouped = NULL, *regrouped = NULL;
  CHECK_OK(rlx_pass_fuse_ops(ctx, m, &grouped));
  if (grouped) CHECK_OK(rlx_pass_fuse_ops(ctx, grouped, &regrouped));
  CHECK(grouped && regrouped && rlx_module_equal(grouped, regrouped));
  const char* names[8];
  int n = call_tir_names(out, names, 8);
  CHECK(n == 2);
  if (n == 2) {
    CHECK_STREQ(names[0], "fused_matmul_add_relu");
    CHECK_STREQ(names[1], "fused_matmul1_add1");
  }
  CHECK(count_tir_funcs(out) == 2); /* the member PrimFuncs are gone */
  rlx_module_entry_t* fe = rlx_module_find(out, "fused_matmul_add_relu");
  CHECK(fe && fe->kind == RLX_FUNC_TIR);
  if (fe) {
    rlx_tir_func_t* f = fe->func;
    CHECK(f->is_private);
    CHECK(f->n_params == 4); /* x, w1, b1, result */
    int64_t want[4][2] = {{8, 16}, {16, 32}, {32, -1}, {8, 32}};
    for (int p = 0; p < 4 && p < f->n_params; p++) {
      rlx_tir_buffer_t* b = f->buffer_map[p];
      CHECK(b && b->ndim == (want[p][1] < 0 ? 1 : 2));
      for (int d = 0; b && d < b->ndim; d++) {
        int64_t v = -2;
        CHECK(rlx_expr_is_const_int(b->shape[d], &v) && v == want[p][d]);
      }
    }
    /* intermediates are root allocations; block names unique */
    rlx_tir_block_realize_t* root = (rlx_tir_block_realize_t*)f->body;
    CHECK(f->body->kind == RLX_STMT_BLOCK_REALIZE && root->block->n_alloc_buffers == 2);
    CHECK(rlx_tir_find_block(f->body, "matmul") && rlx_tir_find_block(f->body, "add") &&
          rlx_tir_find_block(f->body, "relu"));
    CHECK(rlx_tir_func_pattern(f) == RLX_PATTERN_OUT_EWISE_FUSABLE);
    CHECK_OK(rlx_tir_verify(f));
  }
  /* main: lv4-binding keeps its var, call args are (lv2, w2, b2) */
  rlx_relax_func_t* f = main_of(out);
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
  CHECK(seq->n_blocks == 1 && seq->blocks[0]->n_bindings == 3);
  CHECK_STREQ(seq->blocks[0]->bindings[0]->var->name, "lv2");
  CHECK_STREQ(seq->blocks[0]->bindings[1]->var->name, "lv4");
  rlx_relax_call_t* c = (rlx_relax_call_t*)seq->blocks[0]->bindings[1]->value;
  rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)c->args[1];
  CHECK(t->n_fields == 3 && t->fields[0] == &seq->blocks[0]->bindings[0]->var->hdr);
  CHECK(t->n_fields == 3 && t->fields[1] == &main_of(m)->params[3]->hdr);
  CHECK_STREQ(rlx_sinfo_str(ctx, c->hdr.sinfo), "R.Tensor((8, 10), dtype=\"float32\")");
  check_mlp_numbers(ctx, m, out, 8);
  /* fusing again changes nothing */
  rlx_module_t* again = NULL;
  CHECK_OK(pass_fuse(ctx, out, &again));
  CHECK(again && call_tir_names(again, names, 8) == 2 && count_tir_funcs(again) == 2);
  rlx_ctx_free(ctx);
}

/* x: (n, 16): the fused function's x and result share the batch var n. */
static void test_symbolic_batch(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* n = sym(ctx, "n");
  rlx_module_t* m = build_mlp(ctx, n);
  rlx_module_t* out = NULL;
  CHECK_OK(pass_fuse(ctx, m, &out));
  if (!out) return;
  CHECK_OK(rlx_relax_well_formed(ctx, out));
  const char* names[8];
  CHECK(call_tir_names(out, names, 8) == 2);
  rlx_module_entry_t* fe = rlx_module_find(out, "fused_matmul_add_relu");
  CHECK(fe != NULL);
  if (fe) {
    rlx_tir_func_t* f = fe->func;
    CHECK(f->n_params == 4);
    rlx_expr_t* nx = f->buffer_map[0]->shape[0];
    rlx_expr_t* ny = f->buffer_map[3]->shape[0];
    CHECK(nx->kind == RLX_EXPR_VAR && nx == ny); /* one var for the Relax dim n */
    CHECK(nx != n);                              /* and not the caller's var */
    CHECK_STREQ(((rlx_var_t*)nx)->name, "n");
    rlx_tir_block_realize_t* root = (rlx_tir_block_realize_t*)f->body;
    for (int i = 0; i < root->block->n_alloc_buffers; i++) CHECK(root->block->alloc_buffers[i]->shape[0] == nx);
    CHECK_OK(rlx_tir_verify(f));
  }
  check_mlp_numbers(ctx, m, out, 3);
  check_mlp_numbers(ctx, m, out, 5);
  rlx_ctx_free(ctx);
}

/* Builds main(a (4, 6)) from a list of unary TE ops (each taking the previous value, or a
 * when arg[i] is -1, or value arg[i]); returns the module. The last value is the output. */
typedef rlx_bb_te_fn_t te1_t;
static rlx_module_t* build_chain(rlx_ctx_t* ctx, int n, const te1_t* ops, const int (*args)[2], int* out_nargs) {
  rlx_relax_var_t* a = rlx_relax_var(ctx, "a", rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){4, 6}, F32()));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t* v[16];
  rlx_relax_var_t* gv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &a));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  for (int i = 0; i < n; i++) {
    rlx_relax_expr_t* in[2];
    for (int j = 0; j < out_nargs[i]; j++) in[j] = args[i][j] < 0 ? &a->hdr : &v[args[i][j]]->hdr;
    CHECK_OK(rlx_bb_emit_te(bb, ops[i], NULL, out_nargs[i], in, NULL, rlx_ctx_sprintf(ctx, "lv%d", i), &v[i]));
  }
  CHECK_OK(rlx_bb_emit_output(bb, &v[n - 1]->hdr, "gv", &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, -1, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  return rlx_bb_get(bb);
}

static rlx_expr_t* add2_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rlx_te_tensor_t** in = user;
  rlx_expr_t* ia[2] = {&idx[0]->hdr, &idx[1]->hdr};
  return rlx_ir_add(ctx, rlx_te_load(ctx, in[0], 2, ia), rlx_te_load(ctx, in[1], 2, ia));
}

/* te_add2(A, B) = A + B (same shapes). */
static rlx_status_t* te_add2(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user, rlx_te_tensor_t** out) {
  (void)user;
  if (n != 2) return NULL;
  rlx_te_tensor_t** u = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, 2);
  u[0] = in[0];
  u[1] = in[1];
  return *out = rlx_te_compute(ctx, 2, in[0]->buffer->shape, add2_body, u, "add", "elemwise"), NULL;
}

static void expect_fused(const char* what, rlx_module_t* m, int n_calls, const char* const* want) {
  rlx_ctx_t* ctx = m->ctx;
  rlx_module_t* out = NULL;
  CHECK_OK(pass_fuse(ctx, m, &out));
  if (!out) return;
  CHECK_OK(rlx_relax_well_formed(ctx, out));
  const char* names[16];
  int n = call_tir_names(out, names, 16);
  CHECK_MSG(n == n_calls, "%s: %d call_tirs, expected %d", what, n, n_calls);
  for (int i = 0; i < n && i < n_calls; i++)
    CHECK_MSG(strcmp(names[i], want[i]) == 0, "%s: call %d is %s, expected %s", what, i, names[i], want[i]);
  /* numbers: fused == unfused */
  ht_t* a = ht_new(ctx, F32(), 2, (int64_t[]){4, 6});
  ht_fill(a, 3);
  ht_t* y0 = relax_eval(ctx, m, "main", &a);
  ht_t* y1 = relax_eval(ctx, out, "main", &a);
  CHECK(y0 && y1 && ht_numel(y0) == ht_numel(y1));
  if (y0 && y1) CHECK_MSG(ht_max_abs_diff(y1, ht_f32(y0)) == 0, "%s: fused result differs", what);
}

static void test_groupings(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  /* exp -> rowsum -> relu: the reduction takes the elementwise producer and the consumer */
  {
    te1_t ops[] = {te_exp, te_rowsum, te_relu};
    int args[][2] = {{-1, 0}, {0, 0}, {1, 0}}, na[] = {1, 1, 1};
    expect_fused("exp-sum-relu", build_chain(ctx, 3, ops, args, na), 1, (const char*[]){"fused_exp_sum_relu"});
  }
  /* transpose -> relu -> exp: an injective chain */
  {
    te1_t ops[] = {te_transpose, te_relu, te_exp};
    int args[][2] = {{-1, 0}, {0, 0}, {1, 0}}, na[] = {1, 1, 1};
    expect_fused("injective chain", build_chain(ctx, 3, ops, args, na), 1, (const char*[]){"fused_transpose_relu_exp"});
  }
  /* rowsum -> ... a reduction does not take an injective consumer; two reductions never
   * share a group */
  {
    te1_t ops[] = {te_relu, te_transpose, te_rowsum};
    int args[][2] = {{-1, 0}, {0, 0}, {1, 0}}, na[] = {1, 1, 1};
    /* relu+transpose (injective) cannot feed a reduction */
    expect_fused("injective into reduction", build_chain(ctx, 3, ops, args, na), 2,
                 (const char*[]){"fused_relu_transpose", "sum"});
  }
  /* a producer with a use outside the chain stays alone: lv0 = exp(a), lv1 = relu(lv0),
   * lv2 = transpose(lv0) (injective consumer of lv0... fused with lv0 only if all uses
   * are inside), lv3 = add(lv1, lv2^T)-like diamond: exp, relu, add all fuse */
  {
    te1_t ops[] = {te_exp, te_relu, te_add2};
    int args[][2] = {{-1, 0}, {0, 0}, {0, 1}}, na[] = {1, 1, 2};
    expect_fused("diamond", build_chain(ctx, 3, ops, args, na), 1, (const char*[]){"fused_exp_relu_add"});
  }
  {
    /* lv0 = exp(a) is used by relu and by the output-side transpose chain: exp stays */
    te1_t ops[] = {te_exp, te_relu, te_rowsum, te_transpose};
    int args[][2] = {{-1, 0}, {0, 0}, {1, 0}, {0, 0}}, na[] = {1, 1, 1, 1};
    expect_fused("multi-use producer", build_chain(ctx, 4, ops, args, na), 3,
                 (const char*[]){"exp", "fused_relu_sum", "transpose"});
  }
  /* the same PrimFunc twice in a group: copied twice with fresh loop vars and block names */
  {
    te1_t ops[] = {te_relu, te_relu, te_exp};
    int args[][2] = {{-1, 0}, {0, 0}, {1, 0}}, na[] = {1, 1, 1};
    rlx_module_t* m = build_chain(ctx, 3, ops, args, na);
    expect_fused("repeated PrimFunc", m, 1, (const char*[]){"fused_relu_relu_exp"});
    rlx_module_t* out = NULL;
    CHECK_OK(pass_fuse(ctx, m, &out));
    rlx_module_entry_t* fe = out ? rlx_module_find(out, "fused_relu_relu_exp") : NULL;
    CHECK(fe != NULL);
    if (fe) {
      rlx_tir_func_t* f = fe->func;
      CHECK(rlx_tir_find_block(f->body, "relu") && rlx_tir_find_block(f->body, "relu_1") &&
            rlx_tir_find_block(f->body, "exp"));
      CHECK(rlx_tir_find_block(f->body, "relu")->block->iter_vars[0]->var !=
            rlx_tir_find_block(f->body, "relu_1")->block->iter_vars[0]->var);
      CHECK(f->n_params == 2);
      CHECK_OK(rlx_tir_verify(f));
    }
  }
  rlx_ctx_free(ctx);
}

/* fuse_tir on grouped functions it cannot merge: clear errors, nothing else changes. */
static void test_fuse_tir_errors(void) {
  static const char* not_call_tir =
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function(private=True)\n"
      "    def fused_add(x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), dtype=\"float32\"):\n"
      "        R.func_attr({\"Primitive\": 1})\n"
      "        with R.dataflow():\n"
      "            gv = R.add(x, x)\n"
      "            R.output(gv)\n"
      "        return gv\n"
      "\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), dtype=\"float32\"):\n"
      "        cls = Module\n"
      "        with R.dataflow():\n"
      "            gv = cls.fused_add(x)\n"
      "            R.output(gv)\n"
      "        return gv\n";
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t *m = NULL, *out = NULL;
  CHECK_OK(rlx_script_parse(ctx, not_call_tir, "grouped.py", &m));
  if (m) CHECK_ERR(rlx_pass_fuse_tir(ctx, m, &out), "fuse_tir: grouped function 'fused_add': binding gv is not a call_tir");
  /* without the attribute it is an ordinary function: nothing to merge */
  static const char* plain =
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), dtype=\"float32\"):\n"
      "        return x\n";
  m = NULL;
  CHECK_OK(rlx_script_parse(ctx, plain, "plain.py", &m));
  out = NULL;
  if (m) CHECK_OK(rlx_pass_fuse_tir(ctx, m, &out));
  CHECK(out == m);
  rlx_ctx_free(ctx);
}

/* rlx_fuse_tir on a member whose body loads, or stores into, a buffer that is neither a param
 * nor allocated: the error names the buffer and the member (found before the body is copied). */
static void test_fuse_tir_unknown_buffer(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* c4 = rlx_ir_i64(ctx, 4);
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", rlx_sinfo_tensor(ctx, 1, &c4, F32()));
  rlx_relax_var_t* y = rlx_relax_var(ctx, "y", rlx_sinfo_tensor(ctx, 1, &c4, F32()));
  rlx_tir_buffer_t* a = rlx_tir_buffer_create(ctx, "A", F32(), 1, &c4, "global");
  rlx_tir_buffer_t* b = rlx_tir_buffer_create(ctx, "B", F32(), 1, &c4, "global");
  rlx_tir_buffer_t* stray = rlx_tir_buffer_create(ctx, "C", F32(), 1, &c4, "global");
  for (int store = 0; store < 2; store++) {
    rlx_var_t* i = rlx_ir_var(ctx, "i", rlx_dt_int64());
    rlx_expr_t* idx = &i->hdr;
    rlx_tir_buffer_t* src = store ? a : stray;
    rlx_tir_buffer_t* dst = store ? stray : b;
    rlx_tir_stmt_t* body = rlx_tir_for(ctx, i, rlx_ir_i64(ctx, 0), c4, RLX_FOR_SERIAL,
                                       rlx_tir_store(ctx, dst, rlx_ir_load(ctx, src, 1, &idx), 1, &idx));
    rlx_tir_func_t* f =
        rlx_tir_func_create(ctx, "copy", 2, (rlx_var_t*[]){a->data, b->data}, (rlx_tir_buffer_t*[]){a, b}, body);
    rlx_fuse_member_t mb = {f, 1, (rlx_relax_expr_t*[]){&x->hdr}, y, y->hdr.sinfo, 0, NULL};
    rlx_tir_func_t* out = NULL;
    int n_in = 0, n_tv = 0;
    rlx_relax_expr_t** ins = NULL;
    rlx_expr_t** tv = NULL;
    CHECK_ERR(rlx_fuse_tir(ctx, 1, &mb, "fused", &out, &n_in, &ins, &n_tv, &tv),
              store ? "in PrimFunc 'copy': FuseTIR: access to unknown buffer C"
                    : "in PrimFunc 'copy': FuseTIR: load of unknown buffer C");
    CHECK(out == NULL);
  }
  rlx_ctx_free(ctx);
}

int main(void) {
  test_patterns();
  test_mlp();
  test_symbolic_batch();
  test_groupings();
  test_fuse_tir_errors();
  test_fuse_tir_unknown_buffer();
  TEST_MAIN_END();
}
