/* Compiler + VM: Relax modules built with the BlockBuilder (emit_te matmul + relu), taken
 * through lower_shapes and the VM codegen into one model .so, loaded and run against plain
 * C references (max abs error reported, tolerance 1e-4 relative). Symbolic (n, k) x (k, m)
 * with call_tir + call_packed + call_dps_packed into an extern library compiled at test time,
 * run on two sizes; wrong input shapes; external names missing at compile and load time;
 * composite output shapes (n * 2); the disassembler on a compiled model. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/vm_build.h"
#include "relax/op.h"
#include "relax_test_util.h"
#include "rlx/vm.h"
#include "test.h"
#include "transform/pass.h"

static char tmpdir[64];

static const char* extern_src =
    "#include \"rlx/extern.h\"\n"
    "#include \"rlx/runtime.h\"\n"
    "static int relu(DLTensor* a, DLTensor* out) {\n"
    "  long n = 1; for (int i = 0; i < a->ndim; i++) n *= a->shape[i];\n"
    "  const float* x = (const float*)a->data; float* y = (float*)out->data;\n"
    "  for (long i = 0; i < n; i++) y[i] = x[i] > 0 ? x[i] : 0;\n"
    "  return 0;\n"
    "}\n"
    "RLX_EXPORT_DPS_2(ext_relu, relu)\n"
    "RLX_DLL_EXPORT int ext_scale2(rlx_value_t* args, int* codes, int n, rlx_value_t* ret, int* ret_code, void* r) {\n"
    "  if (n != 1 || codes[0] != RLX_ARG_DLTENSOR) { RLXAPISetLastError(\"ext_scale2: want one tensor\"); return -1; }\n"
    "  DLTensor* a = (DLTensor*)args[0].v_handle;\n"
    "  rlx_ndarray_t* o = 0;\n"
    "  rlx_status_t* st = rlx_ndarray_create(a->ndim, a->shape, a->dtype, 0, &o);\n"
    "  if (st) { rlx_status_free(st); return -1; }\n"
    "  long m = rlx_ndarray_numel(a);\n"
    "  for (long i = 0; i < m; i++) ((float*)o->dl.data)[i] = 2 * ((const float*)a->data)[i];\n"
    "  ret->v_handle = o; *ret_code = RLX_ARG_NDARRAY; return 0;\n"
    "}\n";

static char ext_so[256], ext_o[256];

static void include_dir(char* out, size_t n) {
  const char* suffix = "tests/unit/test_vm_compile.c";
  const char* file = __FILE__;
  size_t len = strlen(file), slen = strlen(suffix);
  if (file[0] == '/' && len > slen && strcmp(file + len - slen, suffix) == 0)
    snprintf(out, n, "%.*sinclude", (int)(len - slen), file);
  else
    snprintf(out, n, "include");
}

static bool build_extern_lib(void) {
  char inc[1024], src[256], cmd[2048];
  include_dir(inc, sizeof(inc));
  snprintf(src, sizeof(src), "%s/ext.c", tmpdir);
  snprintf(ext_so, sizeof(ext_so), "%s/libext.so", tmpdir);
  FILE* f = fopen(src, "w");
  if (!f) return false;
  fputs(extern_src, f);
  fclose(f);
  const char* cc = getenv("CC");
  if (!cc || !*cc) cc = "cc";
  /* rlx_ndarray_create & co. resolve against the librlx_runtime of the loading process */
  snprintf(cmd, sizeof(cmd), "%s -shared -fPIC -O1 -I %s -o %s %s", cc, inc, ext_so, src);
  if (system(cmd) != 0) return false;
  snprintf(ext_o, sizeof(ext_o), "%s/ext.o", tmpdir);
  snprintf(cmd, sizeof(cmd), "%s -c -fPIC -O1 -I %s -o %s %s", cc, inc, ext_o, src);
  return system(cmd) == 0;
}

static rlx_ndarray_t* rand_tensor(int64_t r, int64_t c, uint64_t seed) {
  int64_t s[2] = {r, c};
  rlx_ndarray_t* a = NULL;
  rlx_status_free(rlx_ndarray_create(2, s, rlx_dldtype(kDLFloat, 32, 1), NULL, &a));
  rlx_status_free(rlx_ndarray_fill_random(&a->dl, seed));
  return a;
}

/* out = relu(scale * (x @ w)) in double, compared with got. */
static void check_matmul(const rlx_ndarray_t* got, const rlx_ndarray_t* x, const rlx_ndarray_t* w, double scale,
                         const char* what) {
  int64_t n = x->dl.shape[0], k = x->dl.shape[1], m = w->dl.shape[1];
  CHECK_MSG(got->dl.ndim == 2 && got->dl.shape[0] == n && got->dl.shape[1] == m, "%s: output shape", what);
  if (got->dl.ndim != 2 || got->dl.shape[0] != n || got->dl.shape[1] != m) return;
  const float *xp = x->dl.data, *wp = w->dl.data, *gp = got->dl.data;
  double max_abs = 0, max_rel = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < m; j++) {
      double acc = 0;
      for (int64_t q = 0; q < k; q++) acc += (double)xp[i * k + q] * wp[q * m + j];
      acc *= scale;
      if (acc < 0) acc = 0;
      double d = fabs(gp[i * m + j] - acc);
      if (d > max_abs) max_abs = d;
      if (d / (fabs(acc) + 1e-6) > max_rel && fabs(acc) > 1e-3) max_rel = d / fabs(acc);
    }
  printf("%s: (%lld, %lld) x (%lld, %lld): max abs err %.3g, max rel err %.3g\n", what, (long long)n, (long long)k,
         (long long)k, (long long)m, max_abs, max_rel);
  CHECK_MSG(max_abs <= 1e-4 * (double)k, "%s: max abs err %g", what, max_abs);
}

static rlx_vm_compile_options_t opts_lower(void) {
  rlx_vm_compile_options_t o = {0};
  o.passes = "lower_shapes";
  o.check_well_formed = true;
  return o;
}

/* main(A: (8, 16), B: (16, 8)) = relu(A @ B) in a dataflow block. */
static void test_static_matmul_relu(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  int64_t da[2] = {8, 16}, db[2] = {16, 8};
  rlx_relax_var_t* A = rlx_relax_var(ctx, "A", rlx_sinfo_tensor_const(ctx, 2, da, f32));
  rlx_relax_var_t* B = rlx_relax_var(ctx, "B", rlx_sinfo_tensor_const(ctx, 2, db, f32));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *lv0 = NULL, *lv1 = NULL, *gv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 2, (rlx_relax_var_t*[]){A, B}));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  CHECK_OK(rlx_bb_emit_te(bb, te_matmul, NULL, 2, (rlx_relax_expr_t*[]){&A->hdr, &B->hdr}, NULL, NULL, &lv0));
  CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&lv0->hdr}, NULL, NULL, &lv1));
  CHECK_OK(rlx_bb_emit_output(bb, &lv1->hdr, "gv", &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* mod = rlx_bb_get(bb);

  /* lower_shapes output: checks first, no dataflow block, force_pure */
  rlx_module_t* low = NULL;
  CHECK_OK(rlx_pass_lower_shapes(ctx, mod, &low));
  if (low) {
    CHECK_OK(rlx_relax_well_formed(ctx, low));
    rlx_relax_func_t* f = rlx_module_find(low, "main")->func;
    rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
    CHECK(seq->n_blocks == 1 && !seq->blocks[0]->is_dataflow);
    const rlx_attr_t* fp = rlx_attrs_get(&f->attrs, "relax.force_pure");
    CHECK(fp && fp->u.b);
    rlx_relax_call_t* c0 = (rlx_relax_call_t*)seq->blocks[0]->bindings[0]->value;
    CHECK(c0->hdr.kind == RLX_RELAX_CALL && c0->op->kind == RLX_RELAX_EXTERN_FUNC &&
          strcmp(((rlx_relax_extern_func_t*)c0->op)->global_symbol, "vm.builtin.alloc_shape_heap") == 0);
    rlx_relax_call_t* c2 = (rlx_relax_call_t*)seq->blocks[0]->bindings[2]->value;
    CHECK(c2->op->kind == RLX_RELAX_EXTERN_FUNC &&
          strcmp(((rlx_relax_extern_func_t*)c2->op)->global_symbol, "vm.builtin.match_shape") == 0 && c2->n_args == 9);
  }

  char so[256];
  snprintf(so, sizeof(so), "%s/static.so", tmpdir);
  rlx_vm_compile_options_t o = opts_lower();
  /* the compiled executable prints as text that assembles back into the same bytes */
  char* ksrc = NULL;
  void* exec = NULL;
  size_t nexec = 0;
  CHECK_OK(rlx_vm_build_parts(ctx, mod, &o, &ksrc, &exec, &nexec));
  if (exec) {
    char* t = NULL;
    void* back = NULL;
    size_t nback = 0;
    CHECK_OK(rlx_vm_disassemble(exec, nexec, &t));
    if (t) CHECK_OK(rlx_vm_assemble(t, &back, &nback));
    CHECK(back && nback == nexec && memcmp(back, exec, nexec) == 0);
    free(t);
    free(back);
  }
  CHECK(ksrc && strstr(ksrc, "rlx_fn_matmul") != NULL);
  free(ksrc);
  free(exec);
  CHECK_OK(rlx_vm_compile(ctx, mod, &o, so));
  char* text = NULL;
  CHECK_OK(rlx_vm_disassemble_model(so, &text));
  if (text) {
    CHECK_MSG(strstr(text, "function main(A: float32 ndim=2 \"(8, 16)\", B: float32 ndim=2 \"(16, 8)\") registers=") != NULL,
              "%s", text);
    CHECK_MSG(strstr(text, "= call vm.builtin.match_shape(%0, %2, i2, i0, i8, i0, i16, c[") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "= call matmul(%0, %1, %") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "; symbol rlx_fn_matmul") != NULL, "%s", text);
  }
  free(text);
  rlx_vm_t* vm = NULL;
  CHECK_OK(rlx_vm_load(so, 0, NULL, &vm));
  if (vm) {
    rlx_vm_set_num_threads(vm, 1);
    rlx_ndarray_t* a = rand_tensor(8, 16, 1);
    rlx_ndarray_t* b = rand_tensor(16, 8, 2);
    int n_out = 0;
    rlx_ndarray_t** outs = NULL;
    CHECK_OK(rlx_vm_invoke(vm, "main", 2, (DLTensor*[]){&a->dl, &b->dl}, &n_out, &outs));
    CHECK(n_out == 1);
    if (n_out == 1) check_matmul(outs[0], a, b, 1.0, "static matmul+relu");
    for (int i = 0; i < n_out; i++) rlx_ndarray_release(outs[i]);
    free(outs);
    /* a relative name is a file in the working directory, not a loader search */
    char cwd[1024];
    if (getcwd(cwd, sizeof(cwd)) && chdir(tmpdir) == 0) {
      rlx_vm_t* vm2 = NULL;
      CHECK_OK(rlx_vm_load("static.so", 0, NULL, &vm2));
      rlx_vm_free(vm2);
      CHECK(chdir(cwd) == 0);
    }
    /* a wrong constant dim */
    CHECK_ERR(rlx_vm_invoke(vm, "main", 2, (DLTensor*[]){&b->dl, &b->dl}, &n_out, &outs),
              "main: parameter A: expected shape (8, 16), got (16, 8)");
    rlx_ndarray_release(a);
    rlx_ndarray_release(b);
    rlx_vm_free(vm);
  }
  unlink(so);
  rlx_ctx_free(ctx);
}

/* main(x: (n, k), w: (k, m)): lv0 = call_tir(matmul); lv1 = call_packed("ext_scale2", lv0);
 * lv2 = call_dps_packed("ext_relu", (lv1,)); also dbl(x: (n, k)) with output (n * 2,) made by
 * te_fill (a composite shape). */
static rlx_module_t* build_symbolic(rlx_ctx_t* ctx, const char* extern_name) {
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_expr_t *n = sym(ctx, "n"), *k = sym(ctx, "k"), *m = sym(ctx, "m");
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t2(ctx, n, k, f32));
  rlx_relax_var_t* w = rlx_relax_var(ctx, "w", t2(ctx, k, m, f32));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *lv0 = NULL, *lv1 = NULL, *lv2 = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 2, (rlx_relax_var_t*[]){x, w}));
  CHECK_OK(rlx_bb_function_set_pure(bb, false));
  CHECK_OK(rlx_bb_emit_te(bb, te_matmul, NULL, 2, (rlx_relax_expr_t*[]){&x->hdr, &w->hdr}, NULL, "lv0", &lv0));
  rlx_sinfo_t* out = t2(ctx, n, m, f32);
  CHECK_OK(rlx_bb_emit(bb, rlx_relax_call_packed(ctx, extern_name, 1, (rlx_relax_expr_t*[]){&lv0->hdr}, 1, &out),
                       "lv1", &lv1));
  CHECK_OK(rlx_bb_emit(bb, rlx_relax_call_dps_packed(ctx, "ext_relu", 1, (rlx_relax_expr_t*[]){&lv1->hdr}, out),
                       "lv2", &lv2));
  CHECK_OK(rlx_bb_emit_func_output(bb, &lv2->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));

  rlx_expr_t* n2 = sym(ctx, "n");
  rlx_relax_var_t* y = rlx_relax_var(ctx, "y", rlx_sinfo_tensor(ctx, 1, &n2, f32));
  rlx_relax_var_t* lv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "dbl", 1, &y));
  CHECK_OK(rlx_bb_emit_te(bb, te_fill, rlx_ir_mul(ctx, n2, rlx_ir_i64(ctx, 2)), 1, (rlx_relax_expr_t*[]){&y->hdr},
                          NULL, NULL, &lv));
  rlx_relax_var_t* tup = NULL;
  CHECK_OK(rlx_bb_emit(bb, rlx_relax_tuple(ctx, 2, (rlx_relax_expr_t*[]){&lv->hdr, &y->hdr}), "tup", &tup));
  CHECK_OK(rlx_bb_emit_func_output(bb, &tup->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  return rlx_bb_get(bb);
}

static void test_symbolic_externs(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* mod = build_symbolic(ctx, "ext_scale2");
  CHECK_OK(rlx_relax_well_formed(ctx, mod));
  char so[256];
  snprintf(so, sizeof(so), "%s/sym.so", tmpdir);
  rlx_vm_compile_options_t o = opts_lower();
  const char* libs[1] = {ext_so};
  o.n_libs = 1;
  o.libs = libs;
  CHECK_OK(rlx_vm_compile(ctx, mod, &o, so));
  rlx_vm_t* vm = NULL;
  /* without the library the externs are missing */
  CHECK_ERR(rlx_vm_load(so, 0, NULL, &vm), "packed function 'ext_scale2' was not found; searched: the model library");
  CHECK_OK(rlx_vm_load(so, 1, libs, &vm));
  if (vm) {
    rlx_vm_function_info_t info;
    CHECK_OK(rlx_vm_function_info(vm, "main", &info));
    CHECK(info.n_params == 2 && strcmp(info.param_shapes[0], "(n, k)") == 0 && strcmp(info.param_shapes[1], "(k, m)") == 0);
    int64_t sizes[2][3] = {{3, 5, 4}, {17, 9, 33}};
    for (int t = 0; t < 2; t++) {
      rlx_ndarray_t* x = rand_tensor(sizes[t][0], sizes[t][1], 10 + (uint64_t)t);
      rlx_ndarray_t* w = rand_tensor(sizes[t][1], sizes[t][2], 20 + (uint64_t)t);
      int n_out = 0;
      rlx_ndarray_t** outs = NULL;
      CHECK_OK(rlx_vm_invoke(vm, "main", 2, (DLTensor*[]){&x->dl, &w->dl}, &n_out, &outs));
      CHECK(n_out == 1);
      if (n_out == 1) check_matmul(outs[0], x, w, 2.0, "symbolic matmul + call_packed + call_dps_packed");
      for (int i = 0; i < n_out; i++) rlx_ndarray_release(outs[i]);
      free(outs);
      rlx_ndarray_release(x);
      rlx_ndarray_release(w);
    }
    rlx_ndarray_t* x = rand_tensor(3, 5, 1);
    rlx_ndarray_t* w = rand_tensor(4, 4, 2);
    int n_out = 0;
    rlx_ndarray_t** outs = NULL;
    CHECK_ERR(rlx_vm_invoke(vm, "main", 2, (DLTensor*[]){&x->dl, &w->dl}, &n_out, &outs),
              "main: parameter w: expected shape (k, m) with k bound to 5, m bound to 4, got (4, 4)");
    /* dbl: output (n * 2,) filled with y[0], and y itself */
    int64_t five = 5;
    rlx_ndarray_t* y = NULL;
    CHECK_OK(rlx_ndarray_create(1, &five, rlx_dldtype(kDLFloat, 32, 1), NULL, &y));
    for (int i = 0; i < 5; i++) ((float*)y->dl.data)[i] = 1.5f + (float)i;
    CHECK_OK(rlx_vm_invoke(vm, "dbl", 1, (DLTensor*[]){&y->dl}, &n_out, &outs));
    CHECK(n_out == 2);
    if (n_out == 2) {
      CHECK(outs[0]->dl.ndim == 1 && outs[0]->dl.shape[0] == 10);
      bool ok = outs[0]->dl.shape[0] == 10;
      for (int i = 0; ok && i < 10; i++) ok = ((float*)outs[0]->dl.data)[i] == 1.5f;
      CHECK(ok);
      CHECK(outs[1]->dl.shape[0] == 5 && ((float*)outs[1]->dl.data)[4] == 5.5f);
      for (int i = 0; i < n_out; i++) rlx_ndarray_release(outs[i]);
    }
    free(outs);
    rlx_ndarray_release(y);
    rlx_ndarray_release(x);
    rlx_ndarray_release(w);
    rlx_vm_free(vm);
  }
  unlink(so);
  rlx_ctx_free(ctx);

  /* the extern object linked into the model: found in the model's own object, no --lib */
  ctx = rlx_ctx_create();
  mod = build_symbolic(ctx, "ext_scale2");
  rlx_vm_compile_options_t o2 = opts_lower();
  const char* objs[1] = {ext_o};
  o2.n_objects = 1;
  o2.objects = objs;
  CHECK_OK(rlx_vm_compile(ctx, mod, &o2, so));
  vm = NULL;
  CHECK_OK(rlx_vm_load(so, 0, NULL, &vm));
  if (vm) {
    rlx_ndarray_t* x = rand_tensor(6, 3, 5);
    rlx_ndarray_t* w = rand_tensor(3, 2, 6);
    int n_out = 0;
    rlx_ndarray_t** outs = NULL;
    CHECK_OK(rlx_vm_invoke(vm, "main", 2, (DLTensor*[]){&x->dl, &w->dl}, &n_out, &outs));
    if (n_out == 1) check_matmul(outs[0], x, w, 2.0, "extern object linked into the model");
    CHECK(n_out == 1);
    for (int i = 0; i < n_out; i++) rlx_ndarray_release(outs[i]);
    free(outs);
    rlx_ndarray_release(x);
    rlx_ndarray_release(w);
    rlx_vm_free(vm);
  }
  unlink(so);
  rlx_ctx_free(ctx);

  /* a name found nowhere: at compile time, with or without libraries */
  ctx = rlx_ctx_create();
  mod = build_symbolic(ctx, "no_such_extern");
  char want[1024];
  snprintf(want, sizeof(want),
           "extern function 'no_such_extern' called by 'main' was not found; searched: the model's externs (none "
           "given with --extern), the --lib libraries ('%s'), the VM builtins, the global registry",
           ext_so);
  CHECK_ERR(rlx_vm_compile(ctx, mod, &o, so), want);
  CHECK(access(so, F_OK) != 0);
  rlx_vm_compile_options_t o3 = opts_lower();
  CHECK_ERR(rlx_vm_compile(ctx, mod, &o3, so), "the --lib libraries (none given)");
  CHECK(access(so, F_OK) != 0);
  /* promised by the loading program */
  const char* defer[1] = {"no_such_extern"};
  o3.n_defer = 1;
  o3.defer = defer;
  CHECK_ERR(rlx_vm_compile(ctx, mod, &o3, so), "extern function 'ext_relu' called by 'main' was not found");
  const char* defer2[2] = {"no_such_extern", "ext_relu"};
  o3.n_defer = 2;
  o3.defer = defer2;
  CHECK_OK(rlx_vm_compile(ctx, mod, &o3, so));
  unlink(so);
  rlx_ctx_free(ctx);
}

/* tir_vars: main(x: (n,), y: (m,)) = fill(x) of shape (m * 2,): m reaches the kernel as an
 * int64 argument (vm.builtin.call_tir_dyn). */
static void test_tir_vars(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_expr_t *n = sym(ctx, "n"), *m = sym(ctx, "m");
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", rlx_sinfo_tensor(ctx, 1, &n, f32));
  rlx_relax_var_t* y = rlx_relax_var(ctx, "y", rlx_sinfo_tensor(ctx, 1, &m, f32));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t* lv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 2, (rlx_relax_var_t*[]){x, y}));
  CHECK_OK(rlx_bb_emit_te(bb, te_fill, rlx_ir_mul(ctx, m, rlx_ir_i64(ctx, 2)), 1, (rlx_relax_expr_t*[]){&x->hdr},
                          NULL, NULL, &lv));
  CHECK_OK(rlx_bb_emit_func_output(bb, &lv->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* mod = rlx_bb_get(bb);
  char so[256];
  snprintf(so, sizeof(so), "%s/tirvars.so", tmpdir);
  rlx_vm_compile_options_t o = opts_lower();
  CHECK_OK(rlx_vm_compile(ctx, mod, &o, so));
  char* text = NULL;
  CHECK_OK(rlx_vm_disassemble_model(so, &text));
  if (text) CHECK_MSG(strstr(text, "= call vm.builtin.call_tir_dyn(f[fill], %0, %") != NULL, "%s", text);
  free(text);
  rlx_vm_t* vm = NULL;
  CHECK_OK(rlx_vm_load(so, 0, NULL, &vm));
  if (vm) {
    int64_t three = 3, seven = 7;
    rlx_ndarray_t *a = NULL, *b = NULL;
    CHECK_OK(rlx_ndarray_create(1, &three, rlx_dldtype(kDLFloat, 32, 1), NULL, &a));
    CHECK_OK(rlx_ndarray_create(1, &seven, rlx_dldtype(kDLFloat, 32, 1), NULL, &b));
    ((float*)a->dl.data)[0] = 4.25f;
    int n_out = 0;
    rlx_ndarray_t** outs = NULL;
    CHECK_OK(rlx_vm_invoke(vm, "main", 2, (DLTensor*[]){&a->dl, &b->dl}, &n_out, &outs));
    CHECK(n_out == 1 && outs[0]->dl.shape[0] == 14);
    if (n_out == 1 && outs[0]->dl.shape[0] == 14) {
      bool ok = true;
      for (int i = 0; i < 14; i++) ok = ok && ((float*)outs[0]->dl.data)[i] == 4.25f;
      CHECK(ok);
    }
    for (int i = 0; i < n_out; i++) rlx_ndarray_release(outs[i]);
    free(outs);
    rlx_ndarray_release(a);
    rlx_ndarray_release(b);
    rlx_vm_free(vm);
  }
  unlink(so);
  rlx_ctx_free(ctx);
}

/* Errors of the compile step: an op left unlowered, a missing extern object. */
static void test_compile_errors(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  int64_t d[1] = {4};
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", rlx_sinfo_tensor_const(ctx, 1, d, f32));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t* lv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 1, &x));
  CHECK_OK(rlx_bb_emit(bb, rlx_relax_op_call(ctx, RLX_OP_ADD, 2, (rlx_relax_expr_t*[]){&x->hdr, &x->hdr}, (rlx_attrs_t){0}),
                       "lv", &lv));
  CHECK_OK(rlx_bb_emit_func_output(bb, &lv->hdr, 0, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  char so[256];
  snprintf(so, sizeof(so), "%s/err.so", tmpdir);
  rlx_vm_compile_options_t o = {0};
  o.passes = "none";
  CHECK_ERR(rlx_vm_compile(ctx, rlx_bb_get(bb), &o, so),
            "vm codegen: function 'main': Call(relax.add): operator not lowered (run the pipeline");
  o.passes = "no_such_pass";
  CHECK_ERR(rlx_vm_compile(ctx, rlx_bb_get(bb), &o, so), "no known pass in 'no_such_pass'");
  o.passes = NULL; /* the whole pipeline legalizes it; a missing extern object fails before anything runs */
  const char* objs[1] = {"/nonexistent/ext.o"};
  o.n_objects = 1;
  o.objects = objs;
  CHECK_ERR(rlx_vm_compile(ctx, rlx_bb_get(bb), &o, so), "--extern '/nonexistent/ext.o': no such file");
  CHECK(access(so, F_OK) != 0);
  o.n_objects = 0;
  CHECK_OK(rlx_vm_compile(ctx, rlx_bb_get(bb), &o, so));
  unlink(so);
  rlx_ctx_free(ctx);
}

int main(void) {
  snprintf(tmpdir, sizeof(tmpdir), "/tmp/rlx_vmc_XXXXXX");
  if (!mkdtemp(tmpdir) || !build_extern_lib()) {
    fprintf(stderr, "cannot build the extern library\n");
    return 1;
  }
  test_static_matmul_relu();
  test_symbolic_externs();
  test_tir_vars();
  test_compile_errors();
  char p[300];
  snprintf(p, sizeof(p), "%s/ext.c", tmpdir);
  unlink(p);
  unlink(ext_so);
  unlink(ext_o);
  rmdir(tmpdir);
  TEST_MAIN_END();
}
