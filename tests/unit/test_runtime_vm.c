/* The VM on hand-assembled executables (runtime only): a kernel from a tiny C library
 * compiled at test time, constants, storage-backed tensors, tuples, a loop with If/Goto
 * over registry functions, symbolic shape checks with their messages, name resolution
 * failures, and corrupted / truncated executables (clear errors, never a crash). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rlx/target.h"
#include "rlx/vm.h"
#include "runtime/vm_exec.h"
#include "runtime/vm_internal.h"
#include "test.h"

static const char* kernel_src =
    "#include \"rlx/extern.h\"\n"
    "static int vadd(DLTensor* a, DLTensor* b, DLTensor* c) {\n"
    "  long n = 1; for (int i = 0; i < a->ndim; i++) n *= a->shape[i];\n"
    "  const float* x = (const float*)a->data; const float* y = (const float*)b->data;\n"
    "  float* z = (float*)c->data;\n"
    "  for (long i = 0; i < n; i++) z[i] = x[i] + y[i];\n"
    "  return 0;\n"
    "}\n"
    "RLX_EXPORT_DPS_3(rlx_fn_vadd, vadd)\n";

static char tmpdir[64], so_path[256], src_path[256];

static void include_dir(char* out, size_t n) {
  const char* suffix = "tests/unit/test_runtime_vm.c";
  const char* file = __FILE__;
  size_t len = strlen(file), slen = strlen(suffix);
  if (file[0] == '/' && len > slen && strcmp(file + len - slen, suffix) == 0)
    snprintf(out, n, "%.*sinclude", (int)(len - slen), file);
  else
    snprintf(out, n, "include");
}

static bool build_kernels(void) {
  char inc[1024];
  include_dir(inc, sizeof(inc));
  snprintf(src_path, sizeof(src_path), "%s/k.c", tmpdir);
  snprintf(so_path, sizeof(so_path), "%s/libk.so", tmpdir);
  FILE* f = fopen(src_path, "w");
  if (!f) return false;
  fputs(kernel_src, f);
  fclose(f);
  char cmd[2048];
  const char* cc = getenv("CC");
  if (!cc || !*cc) cc = "cc";
  snprintf(cmd, sizeof(cmd), "%s -shared -fPIC -O1 -I %s -o %s %s", cc, inc, so_path, src_path);
  return system(cmd) == 0;
}

static const DLDataType f32 = {kDLFloat, 32, 1};

static rlx_ndarray_t* vec(int64_t n, float start, float step) {
  rlx_ndarray_t* a = NULL;
  rlx_status_free(rlx_ndarray_create(1, &n, f32, NULL, &a));
  for (int64_t i = 0; i < n; i++) ((float*)a->dl.data)[i] = start + step * (float)i;
  return a;
}

static rlx_vm_t* make_vm(rlx_vm_exec_t* e, const char* lib) {
  void* bytes = NULL;
  size_t n = 0;
  rlx_vm_t* vm = NULL;
  CHECK_OK(rlx_vm_exec_serialize(e, &bytes, &n));
  CHECK_OK(rlx_vm_create(bytes, n, lib, 0, NULL, &vm));
  free(bytes);
  return vm;
}

/* main(a, b) = vadd(a, b) + c[0]; also returns (a, sum) as a tuple from "pair". */
static void test_add_kernel(void) {
  rlx_vm_exec_t* e = rlx_vm_exec_create();
  float cdata[4] = {100, 200, 300, 400};
  int64_t four = 4;
  int c0 = rlx_vm_exec_add_tensor(e, f32, 1, &four, cdata, sizeof(cdata));
  int cdt = rlx_vm_exec_add_dtype(e, f32);
  int k = rlx_vm_exec_add_packed(e, "vadd", "rlx_fn_vadd");
  int shape_of = rlx_vm_exec_add_packed(e, "vm.builtin.shape_of", NULL);
  int empty = rlx_vm_exec_add_packed(e, "vm.builtin.empty", NULL);
  int mk = rlx_vm_exec_add_packed(e, "vm.builtin.make_tuple", NULL);
  int kill = rlx_vm_exec_add_packed(e, "vm.builtin.null_value", NULL);
  const char* params[] = {"a", "b"};
  int f = rlx_vm_exec_begin_func(e, "main", 2, params);
  rlx_vm_exec_set_param_info(e, f, 0, f32, 1, "(4,)");
  rlx_vm_exec_set_param_info(e, f, 1, f32, 1, "(4,)");
  rlx_vm_exec_emit_call(e, 2, shape_of, 1, (rlx_vm_arg_t[]){rlx_vm_reg(0)});
  rlx_vm_exec_emit_call(e, 3, empty, 2, (rlx_vm_arg_t[]){rlx_vm_reg(2), rlx_vm_const(cdt)});
  rlx_vm_exec_emit_call(e, 4, k, 3, (rlx_vm_arg_t[]){rlx_vm_reg(0), rlx_vm_reg(1), rlx_vm_reg(3)});
  rlx_vm_exec_emit_call(e, 5, empty, 2, (rlx_vm_arg_t[]){rlx_vm_reg(2), rlx_vm_const(cdt)});
  rlx_vm_exec_emit_call(e, 4, k, 3, (rlx_vm_arg_t[]){rlx_vm_reg(3), rlx_vm_const(c0), rlx_vm_reg(5)});
  rlx_vm_exec_emit_call(e, 3, kill, 0, NULL);
  rlx_vm_exec_emit_ret(e, 5);
  rlx_vm_exec_end_func(e, f, 6);
  int g = rlx_vm_exec_begin_func(e, "pair", 2, params);
  rlx_vm_exec_emit_call(e, 2, f, 2, (rlx_vm_arg_t[]){rlx_vm_reg(0), rlx_vm_reg(1)});
  rlx_vm_exec_emit_call(e, 3, mk, 2, (rlx_vm_arg_t[]){rlx_vm_reg(0), rlx_vm_reg(2)});
  rlx_vm_exec_emit_ret(e, 3);
  rlx_vm_exec_end_func(e, g, 4);

  rlx_vm_t* vm = make_vm(e, so_path);
  rlx_vm_exec_free(e);
  if (!vm) return;
  CHECK(rlx_vm_function_count(vm) == 2);
  CHECK_STREQ(rlx_vm_function_name(vm, 1), "pair");
  rlx_vm_function_info_t info;
  CHECK_OK(rlx_vm_function_info(vm, "main", &info));
  CHECK(info.n_params == 2 && strcmp(info.param_names[1], "b") == 0 && info.param_ndims[0] == 1);
  CHECK_ERR(rlx_vm_function_info(vm, "nope", &info), "no function 'nope' (functions: main, pair)");

  rlx_ndarray_t* a = vec(4, 1, 1);   /* 1 2 3 4 */
  rlx_ndarray_t* b = vec(4, 10, 10); /* 10 20 30 40 */
  DLTensor* in[2] = {&a->dl, &b->dl};
  int n_out = 0;
  rlx_ndarray_t** outs = NULL;
  CHECK_OK(rlx_vm_invoke(vm, "main", 2, in, &n_out, &outs));
  if (n_out == 1) {
    const float* o = outs[0]->dl.data;
    float max_err = 0;
    for (int i = 0; i < 4; i++) {
      float want = (float)(i + 1) + 10.0f * (float)(i + 1) + cdata[i];
      float d = o[i] - want;
      if (d < 0) d = -d;
      if (d > max_err) max_err = d;
    }
    CHECK_MSG(max_err == 0, "max abs error %g", max_err);
  }
  CHECK(n_out == 1);
  for (int i = 0; i < n_out; i++) rlx_ndarray_release(outs[i]);
  free(outs);

  CHECK_OK(rlx_vm_invoke(vm, "pair", 2, in, &n_out, &outs));
  CHECK(n_out == 2);
  if (n_out == 2) {
    CHECK(((float*)outs[0]->dl.data)[2] == 3.0f);
    CHECK(((float*)outs[1]->dl.data)[3] == 4.0f + 40.0f + 400.0f);
    for (int i = 0; i < n_out; i++) rlx_ndarray_release(outs[i]);
  }
  free(outs);

  /* wrong count, dtype, ndim */
  CHECK_ERR(rlx_vm_invoke(vm, "main", 1, in, &n_out, &outs), "main takes 2 inputs, got 1 (parameters: a, b)");
  rlx_ndarray_t* bad = NULL;
  int64_t s22[2] = {2, 2};
  CHECK_OK(rlx_ndarray_create(2, s22, f32, NULL, &bad));
  DLTensor* in2[2] = {&a->dl, &bad->dl};
  CHECK_ERR(rlx_vm_invoke(vm, "main", 2, in2, &n_out, &outs), "main: parameter b: expected shape (4,) (ndim 1), got (2, 2)");
  rlx_ndarray_t* ints = NULL;
  CHECK_OK(rlx_ndarray_create(1, &four, rlx_dldtype(kDLInt, 32, 1), NULL, &ints));
  DLTensor* in3[2] = {&ints->dl, &b->dl};
  CHECK_ERR(rlx_vm_invoke(vm, "main", 2, in3, &n_out, &outs), "main: parameter a: expected dtype float32, got int32");
  CHECK_ERR(rlx_vm_invoke(vm, "nope", 2, in, &n_out, &outs), "no function 'nope'");
  rlx_ndarray_release(ints);
  rlx_ndarray_release(bad);
  rlx_ndarray_release(a);
  rlx_ndarray_release(b);
  rlx_vm_free(vm);
}

/* Registry functions for the loop test. */
static int add_i64(rlx_value_t* args, int* codes, int n, rlx_value_t* ret, int* ret_code, void* res) {
  if (n != 2 || codes[0] != RLX_ARG_INT || codes[1] != RLX_ARG_INT) return -1;
  ret->v_int64 = args[0].v_int64 + args[1].v_int64;
  *ret_code = RLX_ARG_INT;
  return 0;
}
static int lt_i64(rlx_value_t* args, int* codes, int n, rlx_value_t* ret, int* ret_code, void* res) {
  if (n != 2 || codes[0] != RLX_ARG_INT || codes[1] != RLX_ARG_INT) return -1;
  ret->v_int64 = args[0].v_int64 < args[1].v_int64;
  *ret_code = RLX_ARG_INT;
  return 0;
}

/* loop(b): i = 0; s = 0; x = b; while (i < 10) { s += i; x = x + b; i += 1 }; return (s, x). */
static void test_loop(void) {
  CHECK_OK(rlx_registry_register("test.add_i64", add_i64, NULL, true));
  CHECK_OK(rlx_registry_register("test.lt_i64", lt_i64, NULL, true));
  rlx_vm_exec_t* e = rlx_vm_exec_create();
  int add = rlx_vm_exec_add_packed(e, "test.add_i64", NULL);
  int lt = rlx_vm_exec_add_packed(e, "test.lt_i64", NULL);
  int copy = rlx_vm_exec_add_packed(e, "vm.builtin.copy", NULL);
  int k = rlx_vm_exec_add_packed(e, "vadd", "rlx_fn_vadd");
  int shape_of = rlx_vm_exec_add_packed(e, "vm.builtin.shape_of", NULL);
  int empty = rlx_vm_exec_add_packed(e, "vm.builtin.empty", NULL);
  int mk = rlx_vm_exec_add_packed(e, "vm.builtin.make_tuple", NULL);
  int cdt = rlx_vm_exec_add_dtype(e, f32);
  const char* params[] = {"b"};
  int f = rlx_vm_exec_begin_func(e, "loop", 1, params);
  /* %1 = i, %2 = s, %3 = cond, %4 = x, %5 = shape, %6 = tmp, %7 = result */
  rlx_vm_exec_emit_call(e, 1, copy, 1, (rlx_vm_arg_t[]){rlx_vm_imm(0)});            /* 0 */
  rlx_vm_exec_emit_call(e, 2, copy, 1, (rlx_vm_arg_t[]){rlx_vm_imm(0)});            /* 1 */
  rlx_vm_exec_emit_call(e, 4, copy, 1, (rlx_vm_arg_t[]){rlx_vm_reg(0)});            /* 2 */
  rlx_vm_exec_emit_call(e, 5, shape_of, 1, (rlx_vm_arg_t[]){rlx_vm_reg(0)});        /* 3 */
  rlx_vm_exec_emit_call(e, 3, lt, 2, (rlx_vm_arg_t[]){rlx_vm_reg(1), rlx_vm_imm(10)}); /* 4: head */
  rlx_vm_exec_emit_if(e, 3, 7);                                                       /* 5 → 12 */
  rlx_vm_exec_emit_call(e, 2, add, 2, (rlx_vm_arg_t[]){rlx_vm_reg(2), rlx_vm_reg(1)}); /* 6 */
  rlx_vm_exec_emit_call(e, 6, empty, 2, (rlx_vm_arg_t[]){rlx_vm_reg(5), rlx_vm_const(cdt)}); /* 7 */
  rlx_vm_exec_emit_call(e, 7, k, 3, (rlx_vm_arg_t[]){rlx_vm_reg(4), rlx_vm_reg(0), rlx_vm_reg(6)}); /* 8 */
  rlx_vm_exec_emit_call(e, 4, copy, 1, (rlx_vm_arg_t[]){rlx_vm_reg(6)});            /* 9 */
  rlx_vm_exec_emit_call(e, 1, add, 2, (rlx_vm_arg_t[]){rlx_vm_reg(1), rlx_vm_imm(1)}); /* 10 */
  rlx_vm_exec_emit_goto(e, -7);                                                       /* 11 → 4 */
  rlx_vm_exec_emit_call(e, 7, mk, 2, (rlx_vm_arg_t[]){rlx_vm_reg(2), rlx_vm_reg(4)}); /* 12 */
  rlx_vm_exec_emit_ret(e, 7);
  rlx_vm_exec_end_func(e, f, 8);
  rlx_vm_t* vm = make_vm(e, so_path);
  void* bytes = NULL;
  size_t nb = 0;
  CHECK_OK(rlx_vm_exec_serialize(e, &bytes, &nb));
  char* text = NULL;
  CHECK_OK(rlx_vm_disassemble(bytes, nb, &text));
  if (text) {
    CHECK_MSG(strstr(text, "function loop(b: ? ndim=-1 \"\") registers=8  ; 1 params, instructions [0, 14)\n") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "\npacked vadd symbol rlx_fn_vadd\n") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "     4: %3 = call test.lt_i64(%1, i10)\n") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "     5: if %3 else goto +7  ; to 12\n") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "     8: %7 = call vadd(%4, %0, %6)  ; symbol rlx_fn_vadd\n") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "    11: goto -7  ; to 4\n") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "c[0] = dtype float32") != NULL, "%s", text);
    /* the text assembles back into the same bytes */
    void* back = NULL;
    size_t nback = 0;
    CHECK_OK(rlx_vm_assemble(text, &back, &nback));
    CHECK(back && nback == nb && memcmp(back, bytes, nb) == 0);
    free(back);
  }
  free(text);
  free(bytes);
  rlx_vm_exec_free(e);
  if (!vm) return;
  rlx_ndarray_t* b = vec(3, 1, 1);
  DLTensor* in[1] = {&b->dl};
  int n_out = 0;
  rlx_ndarray_t** outs = NULL;
  CHECK_OK(rlx_vm_invoke(vm, "loop", 1, in, &n_out, &outs));
  CHECK(n_out == 2);
  if (n_out == 2) {
    CHECK(outs[0]->dl.ndim == 0 && outs[0]->dl.dtype.code == kDLInt && *(int64_t*)outs[0]->dl.data == 45);
    const float* x = outs[1]->dl.data;
    CHECK(x[0] == 11.0f && x[1] == 22.0f && x[2] == 33.0f); /* b * 11 */
    for (int i = 0; i < n_out; i++) rlx_ndarray_release(outs[i]);
  }
  free(outs);
  rlx_ndarray_release(b);
  rlx_vm_free(vm);
  rlx_status_free(rlx_registry_remove("test.add_i64"));
  rlx_status_free(rlx_registry_remove("test.lt_i64"));
}

/* sym(x: (n, 4), y: (n,)) with a shape heap; storage-backed output of shape (n, 4). */
static void test_shapes(void) {
  rlx_vm_exec_t* e = rlx_vm_exec_create();
  int heap = rlx_vm_exec_add_packed(e, "vm.builtin.alloc_shape_heap", NULL);
  int match = rlx_vm_exec_add_packed(e, "vm.builtin.match_shape", NULL);
  int check = rlx_vm_exec_add_packed(e, "vm.builtin.check_tensor_info", NULL);
  int mks = rlx_vm_exec_add_packed(e, "vm.builtin.make_shape", NULL);
  int comp = rlx_vm_exec_add_packed(e, "vm.builtin.shape_compute", NULL);
  int stor = rlx_vm_exec_add_packed(e, "vm.builtin.alloc_storage", NULL);
  int at = rlx_vm_exec_add_packed(e, "vm.builtin.alloc_tensor", NULL);
  int cx = rlx_vm_exec_add_str(e, "sym: parameter x");
  int cy = rlx_vm_exec_add_str(e, "sym: parameter y");
  int ex = rlx_vm_exec_add_str(e, "(n, 4)");
  int ey = rlx_vm_exec_add_str(e, "(n,)");
  int glob = rlx_vm_exec_add_str(e, "global");
  int u8 = rlx_vm_exec_add_dtype(e, rlx_dldtype(kDLUInt, 8, 1));
  int cdt = rlx_vm_exec_add_dtype(e, f32);
  const char* params[] = {"x", "y"};
  int f = rlx_vm_exec_begin_func(e, "sym", 2, params);
  rlx_vm_exec_emit_call(e, 2, heap, 1, (rlx_vm_arg_t[]){rlx_vm_imm(2)});
  rlx_vm_exec_emit_call(e, 3, check, 4, (rlx_vm_arg_t[]){rlx_vm_reg(0), rlx_vm_imm(2), rlx_vm_const(cdt), rlx_vm_const(cx)});
  rlx_vm_exec_emit_call(e, 3, match, 9,
                        (rlx_vm_arg_t[]){rlx_vm_reg(0), rlx_vm_reg(2), rlx_vm_imm(2), rlx_vm_imm(1), rlx_vm_imm(0),
                                         rlx_vm_imm(0), rlx_vm_imm(4), rlx_vm_const(cx), rlx_vm_const(ex)});
  rlx_vm_exec_emit_call(e, 3, match, 7,
                        (rlx_vm_arg_t[]){rlx_vm_reg(1), rlx_vm_reg(2), rlx_vm_imm(1), rlx_vm_imm(2), rlx_vm_imm(0),
                                         rlx_vm_const(cy), rlx_vm_const(ey)});
  /* slot 1 = n * 4 * 4 bytes */
  rlx_vm_exec_emit_call(e, 3, comp, 8,
                        (rlx_vm_arg_t[]){rlx_vm_reg(2), rlx_vm_imm(1), rlx_vm_imm(1), rlx_vm_imm(0), rlx_vm_imm(0),
                                         rlx_vm_imm(16), rlx_vm_imm(4), rlx_vm_imm(0)});
  rlx_vm_exec_emit_call(e, 4, mks, 4, (rlx_vm_arg_t[]){rlx_vm_reg(2), rlx_vm_imm(1), rlx_vm_imm(1), rlx_vm_imm(1)});
  rlx_vm_exec_emit_call(e, 5, stor, 4, (rlx_vm_arg_t[]){rlx_vm_reg(4), rlx_vm_imm(0), rlx_vm_const(glob), rlx_vm_const(u8)});
  rlx_vm_exec_emit_call(e, 6, mks, 6,
                        (rlx_vm_arg_t[]){rlx_vm_reg(2), rlx_vm_imm(2), rlx_vm_imm(1), rlx_vm_imm(0), rlx_vm_imm(0), rlx_vm_imm(4)});
  rlx_vm_exec_emit_call(e, 7, at, 4, (rlx_vm_arg_t[]){rlx_vm_reg(5), rlx_vm_imm(0), rlx_vm_reg(6), rlx_vm_const(cdt)});
  rlx_vm_exec_emit_ret(e, 7);
  rlx_vm_exec_end_func(e, f, 8);
  rlx_vm_t* vm = make_vm(e, NULL);
  rlx_vm_exec_free(e);
  if (!vm) return;
  int64_t s34[2] = {3, 4}, s35[2] = {3, 5}, s3 = 3, s2 = 2;
  rlx_ndarray_t *x = NULL, *xbad = NULL, *y = NULL, *ybad = NULL;
  CHECK_OK(rlx_ndarray_create(2, s34, f32, NULL, &x));
  CHECK_OK(rlx_ndarray_create(2, s35, f32, NULL, &xbad));
  CHECK_OK(rlx_ndarray_create(1, &s3, f32, NULL, &y));
  CHECK_OK(rlx_ndarray_create(1, &s2, f32, NULL, &ybad));
  int n_out = 0;
  rlx_ndarray_t** outs = NULL;
  CHECK_OK(rlx_vm_invoke(vm, "sym", 2, (DLTensor*[]){&x->dl, &y->dl}, &n_out, &outs));
  CHECK(n_out == 1 && outs[0]->dl.ndim == 2 && outs[0]->dl.shape[0] == 3 && outs[0]->dl.shape[1] == 4);
  for (int i = 0; i < n_out; i++) rlx_ndarray_release(outs[i]);
  free(outs);
  CHECK_ERR(rlx_vm_invoke(vm, "sym", 2, (DLTensor*[]){&xbad->dl, &y->dl}, &n_out, &outs),
            "sym: parameter x: expected shape (n, 4) with n bound to 3, got (3, 5)");
  CHECK_ERR(rlx_vm_invoke(vm, "sym", 2, (DLTensor*[]){&x->dl, &ybad->dl}, &n_out, &outs),
            "sym: parameter y: expected shape (n,) with n bound to 3, got (2,)");
  CHECK_ERR(rlx_vm_invoke(vm, "sym", 2, (DLTensor*[]){&y->dl, &y->dl}, &n_out, &outs),
            "sym: parameter x: expected a tensor of ndim 2, got ndim 1");
  rlx_ndarray_release(x);
  rlx_ndarray_release(xbad);
  rlx_ndarray_release(y);
  rlx_ndarray_release(ybad);
  rlx_vm_free(vm);
}

static void test_missing_name(void) {
  rlx_vm_exec_t* e = rlx_vm_exec_create();
  int g = rlx_vm_exec_add_packed(e, "my_missing_fn", NULL);
  int f = rlx_vm_exec_begin_func(e, "main", 0, NULL);
  rlx_vm_exec_emit_call(e, 0, g, 0, NULL);
  rlx_vm_exec_emit_ret(e, 0);
  rlx_vm_exec_end_func(e, f, 1);
  void* bytes = NULL;
  size_t n = 0;
  CHECK_OK(rlx_vm_exec_serialize(e, &bytes, &n));
  rlx_vm_t* vm = NULL;
  const char* libs[1] = {so_path};
  char want[1024];
  snprintf(want, sizeof(want),
           "packed function 'my_missing_fn' was not found; searched: the model library '%s', library '%s', the "
           "global registry, the VM builtins",
           so_path, so_path);
  CHECK_ERR(rlx_vm_create(bytes, n, so_path, 1, libs, &vm), want);
  CHECK_ERR(rlx_vm_create(bytes, n, NULL, 0, NULL, &vm), "searched: no model library, no extra libraries (--lib)");
  const char* nolib[1] = {"/nonexistent/libx.so"};
  CHECK_ERR(rlx_vm_create(bytes, n, NULL, 1, nolib, &vm), "library '/nonexistent/libx.so' does not exist");
  CHECK_ERR(rlx_vm_load("/nonexistent/model.so", 0, NULL, &vm), "does not exist");
  /* a library that is not a model */
  CHECK_ERR(rlx_vm_load(so_path, 0, NULL, &vm), "is not a compiled rlx model");
  free(bytes);
  rlx_vm_exec_free(e);
}

/* Every prefix of a valid executable, and every single-byte corruption, is an error or a
 * working VM — never a crash (the sanitizer build checks the "never"). */
static void test_corrupted(void) {
  rlx_vm_exec_t* e = rlx_vm_exec_create();
  float d[2] = {1, 2};
  int64_t two = 2;
  rlx_vm_exec_add_tensor(e, f32, 1, &two, d, sizeof(d));
  rlx_vm_exec_add_str(e, "hello");
  int mk = rlx_vm_exec_add_packed(e, "vm.builtin.make_tuple", NULL);
  int heap = rlx_vm_exec_add_packed(e, "vm.builtin.alloc_shape_heap", NULL);
  int match = rlx_vm_exec_add_packed(e, "vm.builtin.match_shape", NULL);
  int mks = rlx_vm_exec_add_packed(e, "vm.builtin.make_shape", NULL);
  int empty = rlx_vm_exec_add_packed(e, "vm.builtin.empty", NULL);
  int getitem = rlx_vm_exec_add_packed(e, "vm.builtin.tuple_getitem", NULL);
  int cdt = rlx_vm_exec_add_dtype(e, f32);
  const char* params[] = {"a"};
  int f = rlx_vm_exec_begin_func(e, "main", 1, params);
  int copy_f = rlx_vm_exec_add_packed(e, "vm.builtin.copy", NULL);
  rlx_vm_exec_emit_call(e, 1, copy_f, 1, (rlx_vm_arg_t[]){rlx_vm_imm(1)});
  rlx_vm_exec_emit_if(e, 1, 2);
  rlx_vm_exec_emit_goto(e, 1);
  rlx_vm_exec_emit_call(e, 1, mk, 2, (rlx_vm_arg_t[]){rlx_vm_reg(0), rlx_vm_const(0)});
  rlx_vm_exec_emit_call(e, 2, heap, 1, (rlx_vm_arg_t[]){rlx_vm_imm(1)});
  rlx_vm_exec_emit_call(e, 3, match, 7,
                        (rlx_vm_arg_t[]){rlx_vm_reg(0), rlx_vm_reg(2), rlx_vm_imm(1), rlx_vm_imm(1), rlx_vm_imm(0),
                                         rlx_vm_const(1), rlx_vm_const(1)});
  rlx_vm_exec_emit_call(e, 3, mks, 4, (rlx_vm_arg_t[]){rlx_vm_reg(2), rlx_vm_imm(1), rlx_vm_imm(1), rlx_vm_imm(0)});
  rlx_vm_exec_emit_call(e, 4, empty, 2, (rlx_vm_arg_t[]){rlx_vm_reg(3), rlx_vm_const(cdt)});
  rlx_vm_exec_emit_call(e, 4, getitem, 2, (rlx_vm_arg_t[]){rlx_vm_reg(1), rlx_vm_imm(1)});
  rlx_vm_exec_emit_ret(e, 1);
  rlx_vm_exec_end_func(e, f, 5);
  uint8_t* bytes = NULL;
  size_t n = 0;
  CHECK_OK(rlx_vm_exec_serialize(e, (void**)&bytes, &n));
  rlx_vm_exec_free(e);
  rlx_vm_exec_t* back = NULL;
  CHECK_OK(rlx_vm_exec_parse(bytes, n, &back));
  rlx_vm_exec_free(back);

  int prefix_errors = 0;
  for (size_t k = 0; k < n; k++) {
    rlx_status_t* st = rlx_vm_exec_parse(bytes, k, &back);
    if (st && (strstr(rlx_status_message(st), "truncated") || strstr(rlx_status_message(st), "corrupted")))
      prefix_errors++;
    else if (!st) rlx_vm_exec_free(back);
    rlx_status_free(st);
  }
  CHECK_MSG(prefix_errors == (int)n, "%d of %zu prefixes rejected", prefix_errors, n);
  uint8_t* copy = malloc(n);
  rlx_ndarray_t* arg = vec(2, 1, 1);
  {
    rlx_vm_t* vm = NULL;
    CHECK_OK(rlx_vm_create(bytes, n, NULL, 0, NULL, &vm));
    int n_out = 0;
    rlx_ndarray_t** outs = NULL;
    if (vm) CHECK_OK(rlx_vm_invoke(vm, "main", 1, (DLTensor*[]){&arg->dl}, &n_out, &outs));
    CHECK(n_out == 2 && outs[1]->dl.shape[0] == 2 && ((float*)outs[1]->dl.data)[1] == 2.0f);
    for (int i = 0; i < n_out; i++) rlx_ndarray_release(outs[i]);
    free(outs);
    rlx_vm_free(vm);
  }
  for (size_t k = 0; k < n; k++) {
    for (int flip = 0; flip < 3; flip++) {
      memcpy(copy, bytes, n);
      copy[k] ^= (uint8_t)(flip == 0 ? 0x01 : flip == 1 ? 0x80 : 0xff);
      rlx_vm_t* vm = NULL;
      rlx_status_t* st = rlx_vm_create(copy, n, NULL, 0, NULL, &vm);
      if (!st) { /* what verifies must also run without crashing (or fail cleanly) */
        int n_out = 0;
        rlx_ndarray_t** outs = NULL;
        st = rlx_vm_invoke(vm, "main", 1, (DLTensor*[]){&arg->dl}, &n_out, &outs);
        for (int i = 0; !st && i < n_out; i++) rlx_ndarray_release(outs[i]);
        if (!st) free(outs);
      }
      rlx_status_free(st);
      rlx_vm_free(vm);
    }
  }
  free(copy);
  rlx_ndarray_release(arg);
  /* specific errors */
  uint8_t* c2 = malloc(n);
  memcpy(c2, bytes, n);
  c2[0] = 'X';
  CHECK_ERR(rlx_vm_exec_parse(c2, n, &back), "not an rlx executable: bad magic");
  memcpy(c2, bytes, n);
  c2[8] = 7;
  CHECK_ERR(rlx_vm_exec_parse(c2, n, &back), "format version 7 is not supported (this VM reads 1)");
  CHECK_ERR(rlx_vm_exec_parse(bytes, n - 3, &back), "truncated");
  /* the last instruction is "ret %1" = opcode byte then u32 register */
  memcpy(c2, bytes, n);
  c2[n - 4] = 9;
  CHECK_ERR(rlx_vm_exec_parse(c2, n, &back), "function 'main' instruction 9 uses register 9 of 5");
  free(c2);
  char* text = NULL;
  CHECK_ERR(rlx_vm_disassemble(bytes, 10, &text), "truncated");
  CHECK_OK(rlx_vm_disassemble(bytes, n, &text));
  if (text) {
    void* back = NULL;
    size_t nback = 0;
    CHECK_OK(rlx_vm_assemble(text, &back, &nback));
    CHECK(back && nback == n && memcmp(back, bytes, n) == 0);
    free(back);
    /* every prefix of the text, and every one-character change, assembles or fails cleanly */
    size_t tl = strlen(text);
    char* t2 = malloc(tl + 1);
    for (size_t k = 0; k < tl; k++) {
      for (int v = 0; v < 3; v++) {
        memcpy(t2, text, tl + 1);
        if (v == 0) t2[k] = 0;
        else t2[k] = v == 1 ? '9' : '%';
        rlx_status_t* st = rlx_vm_assemble(t2, &back, &nback);
        if (!st) free(back);
        rlx_status_free(st);
      }
    }
    free(t2);
    CHECK_MSG(strstr(text, "c[0] = tensor float32 (2,), 8 bytes 0x0000803f00000040\nc[1] = str \"hello\"\nc[2] = dtype float32\n") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "%3 = call vm.builtin.match_shape(%0, %2, i1, i1, i0, c[1]:\"hello\", c[1]:\"hello\")") != NULL, "%s", text);
  }
  free(text);
  free(bytes);
}

/* A failing kernel: its message, the callee and the instruction are in the error. */
static void test_kernel_error(void) {
  rlx_vm_exec_t* e = rlx_vm_exec_create();
  int k = rlx_vm_exec_add_packed(e, "vadd", "rlx_fn_vadd");
  const char* params[] = {"a"};
  int f = rlx_vm_exec_begin_func(e, "bad", 1, params);
  rlx_vm_exec_emit_call(e, 0, k, 2, (rlx_vm_arg_t[]){rlx_vm_reg(0), rlx_vm_reg(0)});
  rlx_vm_exec_emit_ret(e, 0);
  rlx_vm_exec_end_func(e, f, 1);
  rlx_vm_t* vm = make_vm(e, so_path);
  rlx_vm_exec_free(e);
  if (!vm) return;
  rlx_ndarray_t* a = vec(2, 0, 1);
  int n_out = 0;
  rlx_ndarray_t** outs = NULL;
  CHECK_ERR(rlx_vm_invoke(vm, "bad", 1, (DLTensor*[]){&a->dl}, &n_out, &outs),
            "bad, instruction 0: calling vadd: rlx_fn_vadd: expected 3 tensor arguments, got 2");
  rlx_ndarray_release(a);
  rlx_vm_free(vm);
}

/* Shared objects that pretend to be models: garbage bytes, and a size larger than the data. */
static void test_fake_models(void) {
  char inc[1024], src[256], so[256], cmd[2048];
  include_dir(inc, sizeof(inc));
  const char* cc = getenv("CC");
  if (!cc || !*cc) cc = "cc";
  const char* bodies[2] = {
      "const unsigned char rlx_vm_executable[16] = \"RLXEXEC\\0\\1\\0\\0\\0\\377\\377\\377\";\n"
      "const unsigned long long rlx_vm_executable_size = 16;\n",
      "const unsigned char rlx_vm_executable[16] = \"RLXEXEC\";\n"
      "const unsigned long long rlx_vm_executable_size = 1ull << 40;\n"};
  const char* want[2] = {"executable is corrupted: the constant count is 16777215 (limit 0)",
                         "rlx_vm_executable_size says 1099511627776 bytes, the symbol has 16"};
  for (int i = 0; i < 2; i++) {
    snprintf(src, sizeof(src), "%s/fake%d.c", tmpdir, i);
    snprintf(so, sizeof(so), "%s/fake%d.so", tmpdir, i);
    FILE* f = fopen(src, "w");
    if (!f) continue;
    fputs(bodies[i], f);
    /* the host's target, recorded as a model records it: the loader gets to the executable */
    rlx_target_t* host = NULL;
    CHECK_OK(rlx_target_host(&host));
    fprintf(f, "__attribute__((section(\".rlx_target\"), used)) static const char target[] = \"%s\";\n",
            host ? rlx_target_str(host) : "");
    rlx_target_free(host);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "%s -shared -fPIC -o %s %s", cc, so, src);
    CHECK(system(cmd) == 0);
    rlx_vm_t* vm = NULL;
    CHECK_ERR(rlx_vm_load(so, 0, NULL, &vm), want[i]);
    char* text = NULL;
    CHECK_ERR(rlx_vm_disassemble_model(so, &text), want[i]);
    unlink(src);
    unlink(so);
  }
}

/* Bytecode written as text: a loop summing 1..n over an int register, run; assembler errors. */
static void test_assemble(void) {
  CHECK_OK(rlx_registry_register("test.add_i64", add_i64, NULL, true));
  CHECK_OK(rlx_registry_register("test.lt_i64", lt_i64, NULL, true));
  const char* text =
      "; sum of 0..9 and a tensor passed through\n"
      "c[0] = tensor float32 (2,), 8 bytes 0x0000803f00000040\n"
      "packed vm.builtin.copy\n"
      "packed test.add_i64\n"
      "packed test.lt_i64\n"
      "packed vm.builtin.make_tuple\n"
      "\n"
      "function main(a: float32 ndim=1 \"(n,)\") registers=5\n"
      "  0: %1 = call vm.builtin.copy(i0)   ; i\n"
      "  1: %2 = call vm.builtin.copy(i0)   ; s\n"
      "  2: %3 = call test.lt_i64(%1, i10)\n"
      "  3: if %3 else goto +4\n"
      "  4: %2 = call test.add_i64(%2, %1)\n"
      "  5: %1 = call test.add_i64(%1, i1)\n"
      "  6: goto -4\n"
      "  7: %4 = call vm.builtin.make_tuple(%2, c[0], %0)\n"
      "  8: ret %4\n";
  void* bytes = NULL;
  size_t n = 0;
  CHECK_OK(rlx_vm_assemble(text, &bytes, &n));
  rlx_vm_t* vm = NULL;
  if (bytes) CHECK_OK(rlx_vm_create(bytes, n, NULL, 0, NULL, &vm));
  if (vm) {
    rlx_vm_function_info_t info;
    CHECK_OK(rlx_vm_function_info(vm, "main", &info));
    CHECK(info.n_params == 1 && info.param_ndims[0] == 1 && strcmp(info.param_shapes[0], "(n,)") == 0 &&
          info.param_dtypes[0].code == kDLFloat);
    rlx_ndarray_t* a = vec(3, 7, 1);
    int n_out = 0;
    rlx_ndarray_t** outs = NULL;
    CHECK_OK(rlx_vm_invoke(vm, "main", 1, (DLTensor*[]){&a->dl}, &n_out, &outs));
    CHECK(n_out == 3);
    if (n_out == 3) {
      CHECK(*(int64_t*)outs[0]->dl.data == 45);
      CHECK(((float*)outs[1]->dl.data)[0] == 1.0f && ((float*)outs[1]->dl.data)[1] == 2.0f);
      CHECK(outs[2]->dl.data == a->dl.data); /* the input itself, not a copy */
    }
    for (int i = 0; i < n_out; i++) rlx_ndarray_release(outs[i]);
    free(outs);
    rlx_ndarray_release(a);
    rlx_vm_free(vm);
  }
  free(bytes);
  rlx_status_free(rlx_registry_remove("test.add_i64"));
  rlx_status_free(rlx_registry_remove("test.lt_i64"));
  /* errors name the line */
  CHECK_ERR(rlx_vm_assemble("function f() registers=1\n  0: %0 = call nope()\n  1: ret %0\n", &bytes, &n),
            "bytecode text line 2: unknown function 'nope'");
  CHECK_ERR(rlx_vm_assemble("c[1] = int 3\n", &bytes, &n), "line 1: expected constants numbered in order");
  CHECK_ERR(rlx_vm_assemble("bogus\n", &bytes, &n), "line 1: expected a constant, packed, function or instruction line");
  CHECK_ERR(rlx_vm_assemble("c[0] = tensor float32 (2,), 8 bytes 0x00\n", &bytes, &n),
            "expected as many hex digits as bytes");
  CHECK_ERR(rlx_vm_assemble("function f() registers=1\n  0: ret %3\n", &bytes, &n),
            "assembled bytecode: executable is corrupted: function 'f' instruction 0 uses register 3 of 1");
  CHECK_ERR(rlx_vm_assemble("function f() registers=1\n  0: goto +5\n", &bytes, &n), "jumps by 5, outside the function");
  /* a NaN constant keeps its sign and payload through the text form (fuzz finding) */
  const char* nan_text = "c[0] = float nan bits 0xfff0000000000001\nfunction f() registers=1\n  0: ret %0\n";
  CHECK_OK(rlx_vm_assemble(nan_text, &bytes, &n));
  if (bytes) {
    char* back = NULL;
    CHECK_OK(rlx_vm_disassemble(bytes, n, &back));
    CHECK_MSG(back && strstr(back, "c[0] = float nan bits 0xfff0000000000001\n"), "%s", back ? back : "");
    free(back);
    free(bytes);
  }
  CHECK_ERR(rlx_vm_assemble("c[0] = float nan bits 0x0000000000000001\n", &bytes, &n),
            "line 1: expected the 16 hex digits of a NaN");
}

/* The VM's storage pool: a freed block is reused for the same size; blocks outlive the VM. */
static void test_pool(void) {
  rlx_vm_pool_t* pool = rlx_vm_pool_create();
  rlx_allocator_t a = rlx_vm_pool_allocator(pool);
  void* p1 = a.alloc(a.self, 1000, 64);
  void* p2 = a.alloc(a.self, 2000, 64);
  CHECK(p1 && p2 && ((uintptr_t)p1 % 64) == 0 && ((uintptr_t)p2 % 64) == 0);
  memset(p1, 1, 1000);
  memset(p2, 2, 2000);
  a.free(a.self, p1);
  void* p3 = a.alloc(a.self, 2000, 64); /* a different size: a new block */
  void* p4 = a.alloc(a.self, 1000, 64); /* the freed block of this size */
  CHECK(p3 != p1 && p4 == p1);
  a.free(a.self, p4);
  a.free(a.self, p3);
  rlx_vm_pool_release(pool); /* p2 is still out: the pool lives on */
  memset(p2, 3, 2000);
  a.free(a.self, p2); /* the last reference: the pool goes (ASan checks) */

  /* outputs of a VM outlive it */
  rlx_vm_exec_t* e = rlx_vm_exec_create();
  int cdt = rlx_vm_exec_add_dtype(e, f32);
  int so = rlx_vm_exec_add_packed(e, "vm.builtin.shape_of", NULL);
  int empty = rlx_vm_exec_add_packed(e, "vm.builtin.empty", NULL);
  const char* params[] = {"a"};
  int f = rlx_vm_exec_begin_func(e, "main", 1, params);
  rlx_vm_exec_emit_call(e, 1, so, 1, (rlx_vm_arg_t[]){rlx_vm_reg(0)});
  rlx_vm_exec_emit_call(e, 2, empty, 2, (rlx_vm_arg_t[]){rlx_vm_reg(1), rlx_vm_const(cdt)});
  rlx_vm_exec_emit_ret(e, 2);
  rlx_vm_exec_end_func(e, f, 3);
  rlx_vm_t* vm = make_vm(e, NULL);
  rlx_vm_exec_free(e);
  if (!vm) return;
  rlx_ndarray_t* x = vec(100, 0, 1);
  int n1 = 0, n2 = 0;
  rlx_ndarray_t **o1 = NULL, **o2 = NULL;
  CHECK_OK(rlx_vm_invoke(vm, "main", 1, (DLTensor*[]){&x->dl}, &n1, &o1));
  void* first = n1 == 1 ? o1[0]->dl.data : NULL;
  for (int i = 0; i < n1; i++) rlx_ndarray_release(o1[i]);
  free(o1);
  CHECK_OK(rlx_vm_invoke(vm, "main", 1, (DLTensor*[]){&x->dl}, &n2, &o2));
  CHECK(n2 == 1 && o2[0]->dl.data == first); /* the second run reuses the first run's block */
  rlx_vm_free(vm);
  if (n2 == 1) memset(o2[0]->dl.data, 0, 400);
  for (int i = 0; i < n2; i++) rlx_ndarray_release(o2[i]);
  free(o2);
  rlx_ndarray_release(x);
}

int main(void) {
  snprintf(tmpdir, sizeof(tmpdir), "/tmp/rlx_vm_XXXXXX");
  if (!mkdtemp(tmpdir) || !build_kernels()) {
    fprintf(stderr, "cannot build the test kernel library\n");
    return 1;
  }
  test_add_kernel();
  test_loop();
  test_shapes();
  test_missing_name();
  test_corrupted();
  test_kernel_error();
  test_fake_models();
  test_assemble();
  test_pool();
  unlink(so_path);
  unlink(src_path);
  rmdir(tmpdir);
  TEST_MAIN_END();
}
