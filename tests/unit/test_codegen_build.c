/* rlx_build_module end to end: TE → create_prim_func → (default schedule) → lowering → C →
 * shared object → packed calls, checked against plain C references. Prints the matmul
 * GFLOPS reached through the default schedule (informational, not asserted). */
#include "codegen_test_util.h"
#include "tir/te.h"

static const DLDataType F32 = {kDLFloat, 32, 1};

typedef struct {
  rlx_te_tensor_t *a, *b;
  rlx_iter_var_t* k;
} mm_t;

static rlx_expr_t* add_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  mm_t* u = user;
  rlx_expr_t* i[1] = {&idx[0]->hdr};
  return rlx_ir_add(ctx, rlx_te_load(ctx, u->a, 1, i), rlx_te_load(ctx, u->b, 1, i));
}

static rlx_expr_t* mm_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  mm_t* u = user;
  rlx_expr_t* ia[2] = {&idx[0]->hdr, &u->k->var->hdr};
  rlx_expr_t* ib[2] = {&u->k->var->hdr, &idx[1]->hdr};
  rlx_expr_t* p = rlx_ir_mul(ctx, rlx_te_load(ctx, u->a, 2, ia), rlx_te_load(ctx, u->b, 2, ib));
  return rlx_te_sum(ctx, p, 1, &u->k);
}

static rlx_expr_t* rowmax_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  mm_t* u = user;
  rlx_expr_t* ia[2] = {&idx[0]->hdr, &u->k->var->hdr};
  return rlx_te_max(ctx, rlx_te_load(ctx, u->a, 2, ia), 1, &u->k);
}

static rlx_tir_func_t* te_add(void) {
  rlx_expr_t* n = &rlx_ir_var(ctx_, "n", rlx_dt_int64())->hdr;
  mm_t u = {rlx_te_placeholder(ctx_, 1, &n, rlx_dt_float32(), "A"), rlx_te_placeholder(ctx_, 1, &n, rlx_dt_float32(), "B"), NULL};
  rlx_te_tensor_t* c = rlx_te_compute(ctx_, 1, &n, add_body, &u, "C", "elemwise");
  rlx_te_tensor_t* args[3] = {u.a, u.b, c};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx_, 3, args, "add", &f));
  return f;
}

static rlx_tir_func_t* te_matmul(int64_t M, int64_t N, int64_t K) {
  rlx_expr_t* sa[2] = {I32(M), I32(K)};
  rlx_expr_t* sb[2] = {I32(K), I32(N)};
  rlx_expr_t* sc[2] = {I32(M), I32(N)};
  mm_t u = {rlx_te_placeholder(ctx_, 2, sa, rlx_dt_float32(), "A"), rlx_te_placeholder(ctx_, 2, sb, rlx_dt_float32(), "B"),
            rlx_te_reduce_axis(ctx_, I32(0), I32(K), "k")};
  rlx_te_tensor_t* c = rlx_te_compute(ctx_, 2, sc, mm_body, &u, "C", "matmul");
  rlx_te_tensor_t* args[3] = {u.a, u.b, c};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx_, 3, args, "matmul", &f));
  return f;
}

static rlx_tir_func_t* te_rowmax(int64_t M, int64_t K) {
  rlx_expr_t* sa[2] = {I32(M), I32(K)};
  rlx_expr_t* sc[1] = {I32(M)};
  mm_t u = {rlx_te_placeholder(ctx_, 2, sa, rlx_dt_float32(), "A"), NULL, rlx_te_reduce_axis(ctx_, I32(0), I32(K), "k")};
  rlx_te_tensor_t* c = rlx_te_compute(ctx_, 1, sc, rowmax_body, &u, "R", "reduce");
  rlx_te_tensor_t* args[2] = {u.a, c};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx_, 2, args, "rowmax", &f));
  return f;
}

static void check_matmul(rlx_packed_fn_t fn, int64_t M, int64_t N, int64_t K, bool bench) {
  int64_t sa[2] = {M, K}, sb[2] = {K, N}, sc[2] = {M, N};
  rlx_ndarray_t* a[3] = {new_array(2, sa, F32, 1), new_array(2, sb, F32, 2), new_array(2, sc, F32, 3)};
  CHECK_OK(call_arrays(fn, a, 3));
  const float *x = a[0]->dl.data, *y = a[1]->dl.data, *z = a[2]->dl.data;
  double err = 0;
  for (int64_t t = 0; t < 2000; t++) {
    int64_t i = (t * 7919) % M, j = (t * 104729) % N;
    double ref = 0;
    for (int64_t k = 0; k < K; k++) ref += (double)x[i * K + k] * y[k * N + j];
    err = fmax(err, fabs(ref - z[i * N + j]));
  }
  printf("matmul %lldx%lldx%lld via build_module: max abs error %.3g (tolerance 1e-3)\n", (long long)M, (long long)N,
         (long long)K, err);
  CHECK(err < 1e-3);
  if (bench) {
    double best = 1e9;
    for (int r = 0; r < 3; r++) {
      double t0 = now_s();
      rlx_status_free(call_arrays(fn, a, 3));
      best = fmin(best, now_s() - t0);
    }
    printf("matmul %lld^3 through the default schedule: %.1f GFLOPS (threads as set)\n", (long long)M,
           2.0 * (double)M * (double)N * (double)K / best * 1e-9);
  }
  for (int q = 0; q < 3; q++) rlx_ndarray_release(a[q]);
}

int main(void) {
  ctx_ = rlx_ctx_create();
  rlx_module_t* m = rlx_module_create(ctx_);
  rlx_tir_func_t* fa = te_add();
  rlx_tir_func_t* fm = te_matmul(128, 96, 64);
  rlx_tir_func_t* fb = te_matmul(1024, 1024, 1024);
  rlx_tir_func_t* fr = te_rowmax(33, 70);
  if (fa) rlx_module_set(m, "add", RLX_FUNC_TIR, fa);
  if (fm) rlx_module_set(m, "matmul_small", RLX_FUNC_TIR, fm);
  if (fb) rlx_module_set(m, "matmul_big", RLX_FUNC_TIR, fb);
  if (fr) rlx_module_set(m, "rowmax", RLX_FUNC_TIR, fr);
  rlx_library_t* lib = NULL;
  rlx_ctx_set_keep_source(ctx_, getenv("RLX_TEST_DUMP") != NULL);
  CHECK_OK(rlx_build_module(ctx_, m, &lib));
  if (lib) {
    rlx_library_set_num_threads(lib, 1);
    /* add, symbolic n, two sizes */
    rlx_packed_fn_t fn = get_fn(lib, "add");
    for (int64_t n = 7; fn && n < 2000; n *= 31) {
      rlx_ndarray_t* a[3] = {new_array(1, &n, F32, 4), new_array(1, &n, F32, 5), new_array(1, &n, F32, 6)};
      CHECK_OK(call_arrays(fn, a, 3));
      double err = 0;
      for (int64_t i = 0; i < n; i++)
        err = fmax(err, fabs(((float*)a[2]->dl.data)[i] - (((float*)a[0]->dl.data)[i] + ((float*)a[1]->dl.data)[i])));
      CHECK_MSG(err == 0, "add n=%lld: max abs error %g (tolerance 0)", (long long)n, err);
      for (int q = 0; q < 3; q++) rlx_ndarray_release(a[q]);
    }
    rlx_packed_fn_t f1 = get_fn(lib, "matmul_small"), f2 = get_fn(lib, "matmul_big");
    if (f1) check_matmul(f1, 128, 96, 64, false);
    if (f2) check_matmul(f2, 1024, 1024, 1024, true);
    rlx_packed_fn_t f3 = get_fn(lib, "rowmax");
    if (f3) {
      int64_t sa[2] = {33, 70}, sr = 33;
      rlx_ndarray_t* a[2] = {new_array(2, sa, F32, 7), new_array(1, &sr, F32, 8)};
      CHECK_OK(call_arrays(f3, a, 2));
      int bad = 0;
      for (int i = 0; i < 33; i++) {
        float mx = -INFINITY;
        for (int k = 0; k < 70; k++) mx = fmaxf(mx, ((float*)a[0]->dl.data)[i * 70 + k]);
        bad += mx != ((float*)a[1]->dl.data)[i];
      }
      CHECK_MSG(bad == 0, "rowmax: %d wrong", bad);
      rlx_ndarray_release(a[0]);
      rlx_ndarray_release(a[1]);
    }
    rlx_library_free(lib);
  }
  rlx_ctx_free(ctx_);
  TEST_MAIN_END();
}
