/* The public C API alone (rlx/rlx.h + rlx/runtime.h): build a TE matmul + relu, check it
 * prints as TVM prints it, build it, run it on numbers against a plain C reference; and a
 * symbolic-shape function built once and run on two sizes. */
#include <math.h>
#include <stdlib.h>

#include "rlx/rlx.h"
#include "test.h"

typedef struct {
  rlx_te_tensor_t *a, *b, *c;
  rlx_iter_var_t* k;
} mm_t;

static rlx_expr_t* matmul_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  mm_t* m = user;
  rlx_expr_t* ia[2] = {rlx_ir_var_expr(idx[0]), rlx_te_axis_expr(m->k)};
  rlx_expr_t* ib[2] = {rlx_te_axis_expr(m->k), rlx_ir_var_expr(idx[1])};
  rlx_expr_t* prod = rlx_ir_mul(ctx, rlx_te_load(ctx, m->a, 2, ia), rlx_te_load(ctx, m->b, 2, ib));
  return rlx_te_sum(ctx, prod, 1, &m->k);
}

static rlx_expr_t* relu_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  mm_t* m = user;
  rlx_expr_t* i[2] = {rlx_ir_var_expr(idx[0]), rlx_ir_var_expr(idx[1])};
  return rlx_ir_max(ctx, rlx_te_load(ctx, m->c, 2, i), rlx_ir_float(ctx, RLX_FLOAT32, 0.0));
}

static const char expected[] =
    "# from tvm.script import tir as T\n"
    "\n"
    "@T.prim_func\n"
    "def main(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128, 128), \"float32\"), compute: "
    "T.Buffer((128, 128), \"float32\")):\n"
    "    T.func_attr({\"tir.noalias\": T.bool(True)})\n"
    "    # with T.block(\"root\"):\n"
    "    C = T.alloc_buffer((128, 128))\n"
    "    for i, j, k in T.grid(128, 128, 128):\n"
    "        with T.block(\"C\"):\n"
    "            v_i, v_j, v_k = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            T.reads(A[v_i, v_k], B[v_k, v_j])\n"
    "            T.writes(C[v_i, v_j])\n"
    "            with T.init():\n"
    "                C[v_i, v_j] = T.float32(0.0)\n"
    "            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]\n"
    "    for i, j in T.grid(128, 128):\n"
    "        with T.block(\"compute\"):\n"
    "            v_i, v_j = T.axis.remap(\"SS\", [i, j])\n"
    "            T.reads(C[v_i, v_j])\n"
    "            T.writes(compute[v_i, v_j])\n"
    "            compute[v_i, v_j] = T.max(C[v_i, v_j], T.float32(0.0))\n";

static void test_matmul_relu(void) {
  enum { N = 128 };
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* shape[2] = {rlx_ir_i32(ctx, N), rlx_ir_i32(ctx, N)};
  mm_t m = {0};
  m.a = rlx_te_placeholder(ctx, 2, shape, RLX_FLOAT32, "A");
  m.b = rlx_te_placeholder(ctx, 2, shape, RLX_FLOAT32, "B");
  m.k = rlx_te_reduce_axis(ctx, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, N), "k");
  m.c = rlx_te_compute(ctx, 2, shape, matmul_body, &m, "C", "");
  rlx_te_tensor_t* d = rlx_te_compute(ctx, 2, shape, relu_body, &m, "compute", "elemwise");
  rlx_te_tensor_t* args[3] = {m.a, m.b, d};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 3, args, "main", &f));
  if (!f) return;
  char* text = rlx_script_print_tir_func(f);
  CHECK_STREQ(text, expected);
  free(text);

  rlx_module_t* mod = rlx_module_create(ctx);
  rlx_module_add_prim_func(mod, f);
  rlx_library_t* lib = NULL;
  rlx_packed_fn_t fn = NULL;
  CHECK_OK(rlx_build(ctx, mod, &lib));
  if (lib) CHECK_OK(rlx_library_get_function(lib, rlx_codegen_symbol(ctx, "main"), &fn));
  if (fn) {
    int64_t sh[2] = {N, N};
    rlx_ndarray_t *a, *b, *out;
    DLDataType f32 = {kDLFloat, 32, 1};
    CHECK_OK(rlx_ndarray_create(2, sh, f32, NULL, &a));
    CHECK_OK(rlx_ndarray_create(2, sh, f32, NULL, &b));
    CHECK_OK(rlx_ndarray_create(2, sh, f32, NULL, &out));
    CHECK_OK(rlx_ndarray_fill_random(&a->dl, 1));
    CHECK_OK(rlx_ndarray_fill_random(&b->dl, 2));
    DLTensor* ts[3] = {&a->dl, &b->dl, &out->dl};
    CHECK_OK(rlx_packed_call_tensors(fn, NULL, ts, 3));
    const float *pa = a->dl.data, *pb = b->dl.data, *po = out->dl.data;
    double max_err = 0;
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int k = 0; k < N; k++) s += (double)pa[i * N + k] * pb[k * N + j];
        s = s > 0 ? s : 0;
        max_err = fmax(max_err, fabs(s - po[i * N + j]));
      }
    printf("public API matmul+relu: max abs error %.3g (tolerance 1e-3)\n", max_err);
    CHECK(max_err < 1e-3);
    rlx_ndarray_release(a);
    rlx_ndarray_release(b);
    rlx_ndarray_release(out);
  }
  if (lib) rlx_library_free(lib);
  rlx_ctx_free(ctx);
}

typedef struct {
  rlx_te_tensor_t *x, *y;
} ew_t;

static rlx_expr_t* exp_add_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  ew_t* e = user;
  rlx_expr_t* i2[2] = {rlx_ir_var_expr(idx[0]), rlx_ir_var_expr(idx[1])};
  rlx_expr_t* i1[1] = {rlx_ir_var_expr(idx[1])};
  rlx_expr_t* xv = rlx_te_load(ctx, e->x, 2, i2);
  return rlx_ir_add(ctx, rlx_ir_call(ctx, RLX_FLOAT32, "exp", 1, &xv), rlx_te_load(ctx, e->y, 1, i1));
}

static void test_symbolic_two_sizes(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_var_t* n = rlx_ir_var(ctx, "n", RLX_INT64);
  rlx_expr_t* shape[2] = {rlx_ir_var_expr(n), rlx_ir_i64(ctx, 16)};
  ew_t e;
  e.x = rlx_te_placeholder(ctx, 2, shape, RLX_FLOAT32, "X");
  e.y = rlx_te_placeholder(ctx, 1, shape + 1, RLX_FLOAT32, "Y");
  rlx_te_tensor_t* z = rlx_te_compute(ctx, 2, shape, exp_add_body, &e, "Z", "elemwise");
  rlx_te_tensor_t* args[3] = {e.x, e.y, z};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 3, args, "main", &f));
  rlx_module_t* mod = rlx_module_create(ctx);
  if (f) rlx_module_add_prim_func(mod, f);
  rlx_library_t* lib = NULL;
  rlx_packed_fn_t fn = NULL;
  if (f) CHECK_OK(rlx_build(ctx, mod, &lib));
  if (lib) CHECK_OK(rlx_library_get_function(lib, rlx_codegen_symbol(ctx, "main"), &fn));
  for (int trial = 0; fn && trial < 2; trial++) {
    int64_t rows = trial ? 1000 : 3;
    int64_t sx[2] = {rows, 16}, sy[1] = {16};
    DLDataType f32 = {kDLFloat, 32, 1};
    rlx_ndarray_t *x, *y, *out;
    CHECK_OK(rlx_ndarray_create(2, sx, f32, NULL, &x));
    CHECK_OK(rlx_ndarray_create(1, sy, f32, NULL, &y));
    CHECK_OK(rlx_ndarray_create(2, sx, f32, NULL, &out));
    CHECK_OK(rlx_ndarray_fill_random(&x->dl, 3));
    CHECK_OK(rlx_ndarray_fill_random(&y->dl, 4));
    DLTensor* ts[3] = {&x->dl, &y->dl, &out->dl};
    CHECK_OK(rlx_packed_call_tensors(fn, NULL, ts, 3));
    const float *px = x->dl.data, *py = y->dl.data, *po = out->dl.data;
    double max_err = 0;
    for (int64_t i = 0; i < rows * 16; i++) max_err = fmax(max_err, fabs(exp((double)px[i]) + py[i % 16] - po[i]));
    printf("symbolic n=%lld: max abs error %.3g (tolerance 1e-5)\n", (long long)rows, max_err);
    CHECK(max_err < 1e-5);
    /* A mismatching second dimension is rejected by the kernel's own argument check. */
    if (trial == 1) {
      int64_t bad[1] = {15};
      rlx_ndarray_t* yb;
      CHECK_OK(rlx_ndarray_create(1, bad, f32, NULL, &yb));
      DLTensor* tb[3] = {&x->dl, &yb->dl, &out->dl};
      CHECK_ERR(rlx_packed_call_tensors(fn, NULL, tb, 3), "Y");
      rlx_ndarray_release(yb);
    }
    rlx_ndarray_release(x);
    rlx_ndarray_release(y);
    rlx_ndarray_release(out);
  }
  if (lib) rlx_library_free(lib);
  rlx_ctx_free(ctx);
}

int main(void) {
  test_matmul_relu();
  test_symbolic_two_sizes();
  TEST_MAIN_END();
}
