/* C codegen on hand-built lowered TIR: vectorized elementwise, reductions, parallel loops,
 * symbolic shapes, every dtype, floor division on negatives, intrinsics/select/min/max/casts,
 * stack and heap allocations, argument checking messages, compile errors. Each result is
 * compared with a plain C reference (tolerance stated per test). */
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codegen_test_util.h"

static const DLDataType F32 = {kDLFloat, 32, 1};

/* ------------------------------------------------------------------ elementwise add */
/* C[i] = A[i] + B[i], i split as (io, ii) with ii vectorized over `lanes`. */
static rlx_tir_func_t* vadd_func(const char* name, int64_t n, int lanes) {
  rlx_expr_t* s = I32(n);
  rlx_tir_buffer_t* A = param_buf("A", rlx_dt_float32(), 1, &s);
  rlx_tir_buffer_t* B = param_buf("B", rlx_dt_float32(), 1, &s);
  rlx_tir_buffer_t* C = param_buf("C", rlx_dt_float32(), 1, &s);
  rlx_var_t *io = VAR("io"), *ii = VAR("ii");
  rlx_expr_t* i = ADD(MUL(E(io), I32(lanes)), E(ii));
  rlx_tir_stmt_t* body = FOR(io, I32(n / lanes), RLX_FOR_SERIAL,
                             FOR(ii, I32(lanes), RLX_FOR_VECTORIZED, ST(C, i, ADD(LD(A, i), LD(B, i)))));
  rlx_tir_buffer_t* bufs[3] = {A, B, C};
  return make_func(name, 3, bufs, body);
}

/* At each x86-64 level this CPU runs: vectors of the target's width (no wider: 16 float32
 * lanes at v4, 8 at v3, 4 at v2), the 128-lane loop cut into native chunks, exact sums. */
static void test_vadd(void) {
  for (int lv = 0; lv < TEST_N_X86_LEVELS; lv++) {
    if (!test_use_target(test_x86_levels[lv], "vadd")) continue;
    rlx_tir_func_t* fs[2] = {unroll_vectorize(vadd_func("vadd", 1024, 16)), unroll_vectorize(vadd_func("vadd128", 1024, 128))};
    char* src = NULL;
    rlx_library_t* lib = build_lib(2, fs, &src);
    if (!lib) return;
    char want[64], wider[64];
    snprintf(want, sizeof(want), "(*(const rlx_f32x%d*)(A + ", test_f32_lanes());
    snprintf(wider, sizeof(wider), "rlx_f32x%d ", 2 * test_f32_lanes());
    CHECK_MSG(strstr(src, want) != NULL, "%s: no %s", test_x86_levels[lv], want); /* contiguous vector loads */
    CHECK_MSG(strstr(src, wider) == NULL, "%s: a vector wider than the target's", test_x86_levels[lv]);
    free(src);
    const char* names[2] = {"vadd", "vadd128"};
    for (int v = 0; v < 2; v++) {
      rlx_packed_fn_t fn = get_fn(lib, names[v]);
      int64_t n = 1024;
      rlx_ndarray_t* a[3] = {new_array(1, &n, F32, 1), new_array(1, &n, F32, 2), new_array(1, &n, F32, 3)};
      CHECK_OK(call_arrays(fn, a, 3));
      const float *x = a[0]->dl.data, *y = a[1]->dl.data, *z = a[2]->dl.data;
      double err = 0;
      for (int i = 0; i < n; i++) err = fmax(err, fabs((double)z[i] - ((double)x[i] + y[i])));
      CHECK_MSG(err == 0, "%s at %s: max abs error %g (tolerance 0)", names[v], test_x86_levels[lv], err);
      for (int i = 0; i < 3; i++) rlx_ndarray_release(a[i]);
    }
    rlx_library_free(lib);
  }
  CHECK_OK(rlx_ctx_set_target_str(ctx_, NULL));
}

/* ------------------------------------------------------------------ strided access */
/* B (32, 16) = transpose(A (16, 32)), vectorized along B's rows (strided loads) and along
 * A's rows (strided stores). */
static void test_transpose(void) {
  rlx_expr_t* sa[2] = {I32(16), I32(32)};
  rlx_expr_t* sb[2] = {I32(32), I32(16)};
  rlx_tir_func_t* fs[2];
  for (int v = 0; v < 2; v++) {
    rlx_tir_buffer_t* A = param_buf("A", rlx_dt_float32(), 2, sa);
    rlx_tir_buffer_t* B = param_buf("B", rlx_dt_float32(), 2, sb);
    rlx_tir_buffer_t *Af = flat_of(A), *Bf = flat_of(B);
    rlx_var_t *i = VAR("i"), *j = VAR("j");
    rlx_tir_stmt_t* st = ST(Bf, ADD(MUL(E(i), I32(16)), E(j)), LD(Af, ADD(MUL(E(j), I32(32)), E(i))));
    rlx_tir_stmt_t* body = v == 0 ? FOR(i, I32(32), RLX_FOR_SERIAL, FOR(j, I32(16), RLX_FOR_VECTORIZED, st))
                                  : FOR(j, I32(16), RLX_FOR_SERIAL, FOR(i, I32(32), RLX_FOR_VECTORIZED, st));
    rlx_tir_buffer_t* bufs[2] = {A, B};
    fs[v] = unroll_vectorize(make_func(v ? "transpose_st" : "transpose_ld", 2, bufs, body));
  }
  rlx_library_t* lib = build_lib(2, fs, NULL);
  if (!lib) return;
  for (int v = 0; v < 2; v++) {
    int64_t a_shape[2] = {16, 32}, b_shape[2] = {32, 16};
    rlx_ndarray_t* a[2] = {new_array(2, a_shape, F32, 50), new_array(2, b_shape, F32, 51)};
    CHECK_OK(call_arrays(get_fn(lib, fs[v]->name), a, 2));
    const float *x = a[0]->dl.data, *y = a[1]->dl.data;
    int bad = 0;
    for (int r = 0; r < 32; r++)
      for (int c = 0; c < 16; c++) bad += y[r * 16 + c] != x[c * 32 + r];
    CHECK_MSG(bad == 0, "%s: %d wrong", fs[v]->name, bad);
    rlx_ndarray_release(a[0]);
    rlx_ndarray_release(a[1]);
  }
  rlx_library_free(lib);
}

/* ------------------------------------------------------------------ reductions */
/* B[i] = sum_k A[i, k] with i parallel; S[0] = sum_i A[0, i] with a "vectorized" loop whose
 * store is loop-invariant (must stay a serial loop). */
static void test_reduction(void) {
  const int64_t M = 37, K = 100;
  rlx_expr_t* sa[2] = {I32(M), I32(K)};
  rlx_expr_t* sb = I32(M);
  rlx_expr_t* ss = I32(1);
  rlx_tir_buffer_t* A = param_buf("A", rlx_dt_float32(), 2, sa);
  rlx_tir_buffer_t* B = param_buf("B", rlx_dt_float32(), 1, &sb);
  rlx_tir_buffer_t* S = param_buf("S", rlx_dt_float32(), 1, &ss);
  rlx_tir_buffer_t* Af = flat_of(A);
  rlx_var_t *i = VAR("i"), *k = VAR("k"), *j = VAR("j");
  rlx_tir_stmt_t* rows =
      FOR(i, I32(M), RLX_FOR_PARALLEL,
          SEQ2(ST(B, E(i), rlx_ir_float(ctx_, rlx_dt_float32(), 0)),
               FOR(k, I32(K), RLX_FOR_SERIAL, ST(B, E(i), ADD(LD(B, E(i)), LD(Af, ADD(MUL(E(i), I32(K)), E(k))))))));
  rlx_tir_stmt_t* total = SEQ2(ST(S, I32(0), rlx_ir_float(ctx_, rlx_dt_float32(), 0)),
                               FOR(j, I32(16), RLX_FOR_VECTORIZED, ST(S, I32(0), ADD(LD(S, I32(0)), LD(Af, E(j))))));
  rlx_tir_buffer_t* bufs[3] = {A, B, S};
  rlx_tir_func_t* f = unroll_vectorize(make_func("rowsum", 3, bufs, SEQ2(rows, total)));
  char* src = NULL;
  rlx_library_t* lib = build_lib(1, &f, &src);
  if (!lib) return;
  /* the parallel loop is outlined and run on the runtime's pool */
  CHECK(strstr(src, "static void rlx_kernel_rowsum_par0(void* rlx_vc, int64_t rlx_it, void* rlx_s)") != NULL);
  CHECK(strstr(src, "rlx_nn_parallel(rlx_pc.rlx_m_items, 0, rlx_kernel_rowsum_par0, &rlx_pc)") != NULL);
  CHECK(strstr(src, "#pragma omp") == NULL);
  free(src);
  int64_t shp[2] = {M, K}, m = M, one = 1;
  rlx_ndarray_t* a[3] = {new_array(2, shp, F32, 4), new_array(1, &m, F32, 5), new_array(1, &one, F32, 6)};
  CHECK_OK(call_arrays(get_fn(lib, "rowsum"), a, 3));
  const float *x = a[0]->dl.data, *y = a[1]->dl.data, *s = a[2]->dl.data;
  double err = 0, tot = 0;
  for (int64_t r = 0; r < M; r++) {
    double ref = 0;
    for (int64_t c = 0; c < K; c++) ref += x[r * K + c];
    err = fmax(err, fabs(ref - y[r]));
  }
  for (int c = 0; c < 16; c++) tot += x[c];
  CHECK_MSG(err < 1e-4, "row sums: max abs error %g (tolerance 1e-4)", err);
  CHECK_MSG(fabs(tot - s[0]) < 1e-5, "invariant reduction: %g vs %g (tolerance 1e-5)", s[0], tot);
  for (int q = 0; q < 3; q++) rlx_ndarray_release(a[q]);
  rlx_library_free(lib);
}

/* ------------------------------------------------------------------ symbolic shapes */
static void test_symbolic(void) {
  rlx_var_t* n = rlx_ir_var(ctx_, "n", rlx_dt_int64());
  rlx_expr_t* sn = E(n);
  rlx_tir_buffer_t* A = param_buf("A", rlx_dt_float32(), 1, &sn);
  rlx_tir_buffer_t* B = param_buf("B", rlx_dt_float32(), 1, &sn);
  rlx_var_t* i = rlx_ir_var(ctx_, "i", rlx_dt_int64());
  rlx_expr_t* v = ADD(MUL(LD(A, E(i)), rlx_ir_float(ctx_, rlx_dt_float32(), 2)), rlx_ir_float(ctx_, rlx_dt_float32(), 1));
  rlx_tir_buffer_t* bufs[2] = {A, B};
  rlx_tir_func_t* f1 = make_func("affine", 2, bufs, FOR(i, E(n), RLX_FOR_PARALLEL, ST(B, E(i), v)));
  /* repeat2: C (n*2,) = A[i // 2] */
  rlx_var_t* n2 = rlx_ir_var(ctx_, "n", rlx_dt_int64());
  rlx_expr_t* s2 = E(n2);
  rlx_expr_t* sc = rlx_ir_mul(ctx_, E(n2), rlx_ir_i64(ctx_, 2));
  rlx_tir_buffer_t* A2 = param_buf("A", rlx_dt_float32(), 1, &s2);
  rlx_tir_buffer_t* C2 = param_buf("C", rlx_dt_float32(), 1, &sc);
  rlx_var_t* j = rlx_ir_var(ctx_, "j", rlx_dt_int64());
  rlx_tir_buffer_t* bufs2[2] = {A2, C2};
  rlx_tir_func_t* f2 = make_func("repeat2", 2, bufs2,
                                 FOR(j, sc, RLX_FOR_SERIAL, ST(C2, E(j), LD(A2, rlx_ir_floordiv(ctx_, E(j), rlx_ir_i64(ctx_, 2))))));
  rlx_tir_func_t* fs[2] = {f1, f2};
  rlx_library_t* lib = build_lib(2, fs, NULL);
  if (!lib) return;
  rlx_packed_fn_t fn = get_fn(lib, "affine"), fr = get_fn(lib, "repeat2");
  int64_t sizes[2] = {10, 1000};
  for (int t = 0; t < 2; t++) {
    int64_t sz = sizes[t], sz2 = sizes[t] * 2;
    rlx_ndarray_t* a[2] = {new_array(1, &sz, F32, 7), new_array(1, &sz, F32, 8)};
    CHECK_OK(call_arrays(fn, a, 2));
    const float *x = a[0]->dl.data, *y = a[1]->dl.data;
    double err = 0;
    for (int64_t q = 0; q < sz; q++) err = fmax(err, fabs(y[q] - (x[q] * 2.0f + 1.0f)));
    CHECK_MSG(err < 1e-6, "affine n=%lld: max abs error %g (tolerance 1e-6)", (long long)sz, err);
    rlx_ndarray_t* c = new_array(1, &sz2, F32, 9);
    rlx_ndarray_t* r[2] = {a[0], c};
    CHECK_OK(call_arrays(fr, r, 2));
    const float* z = c->dl.data;
    int bad = 0;
    for (int64_t q = 0; q < sz2; q++) bad += z[q] != x[q / 2];
    CHECK_MSG(bad == 0, "repeat2 n=%lld: %d wrong", (long long)sz, bad);
    /* mismatches: B has another n; C is not 2n */
    int64_t other = sz + 1;
    rlx_ndarray_t* wrong = new_array(1, &other, F32, 10);
    rlx_ndarray_t* w[2] = {a[0], wrong};
    char expect[128];
    snprintf(expect, sizeof(expect), "affine: argument 1 (B): expected shape (n,) = (%lld,), got (%lld,)", (long long)sz,
             (long long)other);
    CHECK_ERR(call_arrays(fn, w, 2), expect);
    snprintf(expect, sizeof(expect), "repeat2: argument 1 (C): expected shape (n * 2,) = (%lld,), got (%lld,)",
             (long long)sz2, (long long)other);
    CHECK_ERR(call_arrays(fr, w, 2), expect);
    rlx_ndarray_release(wrong);
    rlx_ndarray_release(c);
    rlx_ndarray_release(a[0]);
    rlx_ndarray_release(a[1]);
  }
  rlx_library_free(lib);
}

/* ------------------------------------------------------------------ every dtype */
/* C = max(A*B + A, select(A < B, B, A)) (bool: (A && B) || !A), serial and vectorized. */
static double get_d(const DLTensor* t, int64_t i) {
  const void* p = t->data;
  switch (t->dtype.code * 100 + t->dtype.bits) {
    case 8: return ((const int8_t*)p)[i];
    case 16: return ((const int16_t*)p)[i];
    case 32: return ((const int32_t*)p)[i];
    case 64: return (double)((const int64_t*)p)[i];
    case 101: return ((const uint8_t*)p)[i];
    case 108: return ((const uint8_t*)p)[i];
    case 116: return ((const uint16_t*)p)[i];
    case 132: return ((const uint32_t*)p)[i];
    case 164: return (double)((const uint64_t*)p)[i];
    case 216: return (double)((const _Float16*)p)[i];
    case 232: return ((const float*)p)[i];
    case 264: return ((const double*)p)[i];
    case 416: { /* bfloat16: the high half of a float32 */
      uint32_t u = (uint32_t)((const uint16_t*)p)[i] << 16;
      float f;
      memcpy(&f, &u, 4);
      return f;
    }
    default: return NAN;
  }
}

static void test_dtypes(void) {
  static const char* const names[] = {"int8",   "int16",  "int32",   "int64",   "uint8",   "uint16",
                                      "uint32", "uint64", "float16", "float32", "float64", "bool",
                                      "bfloat16"};
  enum { NT = sizeof(names) / sizeof(names[0]) };
  const int64_t N = 64;
  rlx_tir_func_t* fs[2 * NT];
  for (int t = 0; t < NT; t++) {
    rlx_dtype_t dt;
    rlx_dtype_parse(names[t], &dt);
    for (int vec = 0; vec < 2; vec++) {
      rlx_expr_t* s = I32(N);
      rlx_tir_buffer_t* A = param_buf("A", dt, 1, &s);
      rlx_tir_buffer_t* B = param_buf("B", dt, 1, &s);
      rlx_tir_buffer_t* C = param_buf("C", dt, 1, &s);
      rlx_var_t *io = VAR("io"), *ii = VAR("ii");
      rlx_expr_t* i = ADD(MUL(E(io), I32(16)), E(ii));
      rlx_expr_t* val = rlx_dtype_is_bool(dt) ? rlx_ir_or(ctx_, rlx_ir_and(ctx_, LD(A, i), LD(B, i)), rlx_ir_not(ctx_, LD(A, i)))
                                              : rlx_ir_max(ctx_, ADD(MUL(LD(A, i), LD(B, i)), LD(A, i)),
                                                           rlx_ir_select(ctx_, rlx_ir_cmp(ctx_, RLX_EXPR_LT, LD(A, i), LD(B, i)), LD(B, i), LD(A, i)));
      rlx_tir_stmt_t* body = FOR(io, I32(N / 16), RLX_FOR_SERIAL,
                                 FOR(ii, I32(16), vec ? RLX_FOR_VECTORIZED : RLX_FOR_SERIAL, ST(C, i, val)));
      rlx_tir_buffer_t* bufs[3] = {A, B, C};
      fs[2 * t + vec] = unroll_vectorize(make_func(rlx_ctx_sprintf(ctx_, "%s_%s", names[t], vec ? "vec" : "ser"), 3, bufs, body));
    }
  }
  rlx_library_t* lib = build_lib(2 * NT, fs, NULL);
  if (!lib) return;
  for (int t = 0; t < NT; t++) {
    DLDataType dl;
    CHECK_OK(rlx_dldtype_parse(names[t], &dl));
    for (int vec = 0; vec < 2; vec++) {
      rlx_ndarray_t* a[3] = {new_array(1, &N, dl, 11), new_array(1, &N, dl, 12), new_array(1, &N, dl, 13)};
      CHECK_OK(call_arrays(get_fn(lib, fs[2 * t + vec]->name), a, 3));
      double err = 0;
      for (int64_t i = 0; i < N; i++) {
        double x = get_d(&a[0]->dl, i), y = get_d(&a[1]->dl, i), z = get_d(&a[2]->dl, i);
        double ref = dl.code == kDLUInt && dl.bits == 1 ? (double)((x && y) || !x) : fmax(x * y + x, x < y ? y : x);
        double tol = dl.bits == 16 && (dl.code == kDLFloat || dl.code == kDLBfloat) ? 8e-3 * (1 + fabs(ref))
                     : dl.code == kDLFloat                                       ? 1e-6
                                                                                 : 0;
        err = fmax(err, fabs(z - ref) - tol);
      }
      CHECK_MSG(err <= 0, "%s (%s): error beyond tolerance %g", names[t], vec ? "vectorized" : "serial", err);
      for (int q = 0; q < 3; q++) rlx_ndarray_release(a[q]);
    }
  }
  rlx_library_free(lib);
}

/* ------------------------------------------------------------------ floor division */
static int64_t floordiv_ref(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static void test_floordiv(void) {
  const int64_t N = 64;
  DLDataType dts[2] = {{kDLInt, 32, 1}, {kDLInt, 64, 1}};
  rlx_tir_func_t* fs[4];
  for (int t = 0; t < 2; t++) {
    for (int vec = 0; vec < 2; vec++) {
      rlx_dtype_t dt = rlx_dtype(RLX_DT_INT, dts[t].bits, 1);
      rlx_expr_t* s = I32(N);
      rlx_tir_buffer_t* A = param_buf("A", dt, 1, &s);
      rlx_tir_buffer_t* B = param_buf("B", dt, 1, &s);
      rlx_tir_buffer_t* Q = param_buf("Q", dt, 1, &s);
      rlx_tir_buffer_t* R = param_buf("R", dt, 1, &s);
      rlx_var_t *io = VAR("io"), *ii = VAR("ii");
      rlx_expr_t* i = ADD(MUL(E(io), I32(8)), E(ii));
      rlx_tir_stmt_t* body =
          FOR(io, I32(N / 8), RLX_FOR_SERIAL,
              FOR(ii, I32(8), vec ? RLX_FOR_VECTORIZED : RLX_FOR_SERIAL,
                  SEQ2(ST(Q, i, rlx_ir_floordiv(ctx_, LD(A, i), LD(B, i))), ST(R, i, rlx_ir_floormod(ctx_, LD(A, i), LD(B, i))))));
      rlx_tir_buffer_t* bufs[4] = {A, B, Q, R};
      fs[2 * t + vec] = unroll_vectorize(make_func(rlx_ctx_sprintf(ctx_, "fdiv%d_%d", dts[t].bits, vec), 4, bufs, body));
    }
  }
  rlx_library_t* lib = build_lib(4, fs, NULL);
  if (!lib) return;
  for (int f = 0; f < 4; f++) {
    DLDataType dl = dts[f / 2];
    rlx_ndarray_t* a[4] = {new_array(1, &N, dl, 14), new_array(1, &N, dl, 15), new_array(1, &N, dl, 16), new_array(1, &N, dl, 17)};
    for (int64_t i = 0; i < N; i++) { /* divisors in ±[1, 5] */
      int64_t d = (i % 5 + 1) * (i % 2 ? -1 : 1);
      if (dl.bits == 32) ((int32_t*)a[1]->dl.data)[i] = (int32_t)d;
      else ((int64_t*)a[1]->dl.data)[i] = d;
    }
    CHECK_OK(call_arrays(get_fn(lib, fs[f]->name), a, 4));
    int bad = 0;
    for (int64_t i = 0; i < N; i++) {
      int64_t x = (int64_t)get_d(&a[0]->dl, i), y = (int64_t)get_d(&a[1]->dl, i);
      int64_t q = (int64_t)get_d(&a[2]->dl, i), r = (int64_t)get_d(&a[3]->dl, i);
      bad += q != floordiv_ref(x, y) || r != x - floordiv_ref(x, y) * y;
    }
    CHECK_MSG(bad == 0, "%s: %d wrong floordiv/floormod results", fs[f]->name, bad);
    for (int q = 0; q < 4; q++) rlx_ndarray_release(a[q]);
  }
  rlx_library_free(lib);
}

/* ------------------------------------------------------------------ intrinsics etc. */
/* At each x86-64 level this CPU runs, and scalar: the vector math calls glibc's libmvec
 * variant of the level (RLX_MV4 = _ZGVbN4v_ SSE, RLX_MV8 = _ZGVdN8v_ AVX2, RLX_MV16 =
 * _ZGVeN16v_ AVX-512), within 1e-6 of libm. */
static void test_math_at(const char* target) {
  const int64_t N = 64;
  enum { NO = 8 };
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_expr_t* s = I32(N);
  rlx_tir_buffer_t* bufs[1 + NO];
  bufs[0] = param_buf("X", f32, 1, &s);
  for (int o = 0; o < NO; o++) bufs[1 + o] = param_buf(rlx_ctx_sprintf(ctx_, "O%d", o), f32, 1, &s);
  rlx_tir_func_t* fs[2];
  for (int vec = 0; vec < 2; vec++) {
    rlx_var_t *io = VAR("io"), *ii = VAR("ii");
    rlx_expr_t* i = ADD(MUL(E(io), I32(16)), E(ii));
    rlx_expr_t* x = LD(bufs[0], i);
    rlx_expr_t* zero = rlx_ir_float(ctx_, f32, 0);
    rlx_expr_t* vals[NO] = {
        rlx_ir_call(ctx_, f32, "exp", 1, &x),
        rlx_ir_call(ctx_, f32, "sigmoid", 1, &x),
        rlx_ir_max(ctx_, x, zero),
        rlx_ir_select(ctx_, rlx_ir_cmp(ctx_, RLX_EXPR_GT, x, zero), x, MUL(x, rlx_ir_float(ctx_, f32, 0.1))),
        rlx_ir_cast(ctx_, f32, rlx_ir_cast(ctx_, rlx_dt_int32(), MUL(x, rlx_ir_float(ctx_, f32, 10)))),
        NULL,
        rlx_ir_min(ctx_, rlx_ir_call(ctx_, f32, "tanh", 1, &x), rlx_ir_float(ctx_, f32, 0.5)),
        rlx_ir_call(ctx_, f32, "erf", 1, &x),
    };
    rlx_expr_t* ax = rlx_ir_call(ctx_, f32, "fabs", 1, &x);
    vals[5] = rlx_ir_call(ctx_, f32, "sqrt", 1, &ax);
    rlx_tir_stmt_t* sts[NO];
    for (int o = 0; o < NO; o++) sts[o] = ST(bufs[1 + o], i, vals[o]);
    rlx_tir_stmt_t* body =
        FOR(io, I32(N / 16), RLX_FOR_SERIAL, FOR(ii, I32(16), vec ? RLX_FOR_VECTORIZED : RLX_FOR_SERIAL, rlx_tir_seq(ctx_, NO, sts)));
    fs[vec] = unroll_vectorize(make_func(vec ? "math_vec" : "math_ser", 1 + NO, bufs, body));
  }
  char* src = NULL;
  rlx_library_t* lib = build_lib(2, fs, &src);
  if (!lib) return;
  char want[64];
  snprintf(want, sizeof(want), "rlx_vmax_f32x%d", test_f32_lanes());
  CHECK_MSG(strstr(src, want) != NULL, "%s: no %s", target, want);
  snprintf(want, sizeof(want), "RLX_MV%d(erff, ", test_f32_lanes());
  CHECK_MSG(strstr(src, want) != NULL, "%s: no %s", target, want);
  free(src);
  for (int vec = 0; vec < 2; vec++) {
    rlx_ndarray_t* a[1 + NO];
    for (int o = 0; o < 1 + NO; o++) a[o] = new_array(1, &N, F32, 20 + (uint64_t)o);
    CHECK_OK(call_arrays(get_fn(lib, fs[vec]->name), a, 1 + NO));
    const float* x = a[0]->dl.data;
    double err[NO] = {0};
    for (int64_t i = 0; i < N; i++) {
      float v = x[i];
      double ref[NO] = {expf(v), 1.0f / (1.0f + expf(-v)), v > 0 ? v : 0, v > 0 ? v : v * 0.1f, (float)(int32_t)(v * 10.0f),
                        sqrtf(fabsf(v)), fminf(tanhf(v), 0.5f), erff(v)};
      for (int o = 0; o < NO; o++) err[o] = fmax(err[o], fabs(((const float*)a[1 + o]->dl.data)[i] - ref[o]));
    }
    for (int o = 0; o < NO; o++)
      CHECK_MSG(err[o] < 1e-6, "%s at %s output %d: max abs error %g (tolerance 1e-6)", fs[vec]->name, target, o, err[o]);
    for (int o = 0; o < 1 + NO; o++) rlx_ndarray_release(a[o]);
  }
  rlx_library_free(lib);
}

static void test_math(void) {
  for (int lv = 0; lv < TEST_N_X86_LEVELS; lv++)
    if (test_use_target(test_x86_levels[lv], "math")) test_math_at(test_x86_levels[lv]);
  CHECK_OK(rlx_ctx_set_target_str(ctx_, NULL));
}

/* ------------------------------------------------------------------ allocations */
/* B[i] = A[n-1-i] through a local array indexed by a loop var (stack) and a global temp of
 * symbolic size (heap). */
static void test_alloc(void) {
  rlx_var_t* n = rlx_ir_var(ctx_, "n", rlx_dt_int32());
  rlx_expr_t* sn = E(n);
  rlx_tir_buffer_t* A = param_buf("A", rlx_dt_float32(), 1, &sn);
  rlx_tir_buffer_t* B = param_buf("B", rlx_dt_float32(), 1, &sn);
  rlx_tir_buffer_t* T = rlx_tir_buffer_create(ctx_, "T", rlx_dt_float32(), 1, &sn, "global");
  rlx_expr_t* s16 = I32(16);
  rlx_tir_buffer_t* L = rlx_tir_buffer_create(ctx_, "L", rlx_dt_float32(), 1, &s16, "local");
  rlx_var_t *i = VAR("i"), *j = VAR("j"), *k = VAR("k");
  rlx_expr_t* rev = rlx_ir_sub(ctx_, rlx_ir_sub(ctx_, E(n), I32(1)), E(i));
  rlx_tir_stmt_t* fill = FOR(i, E(n), RLX_FOR_SERIAL, ST(T, E(i), LD(A, rev)));
  rlx_tir_stmt_t* local = FOR(j, I32(16), RLX_FOR_SERIAL, ST(L, E(j), LD(T, E(j))));
  rlx_tir_stmt_t* back = FOR(k, E(n), RLX_FOR_SERIAL,
                             ST(B, E(k), rlx_ir_select(ctx_, rlx_ir_cmp(ctx_, RLX_EXPR_LT, E(k), I32(16)), LD(L, E(k)), LD(T, E(k)))));
  rlx_tir_stmt_t* body = rlx_tir_allocate(ctx_, T, SEQ2(fill, rlx_tir_allocate(ctx_, L, SEQ2(local, back))));
  rlx_tir_buffer_t* bufs[2] = {A, B};
  rlx_tir_func_t* f = make_func("rev", 2, bufs, body);
  char* src = NULL;
  rlx_library_t* lib = build_lib(1, &f, &src);
  if (!lib) return;
  CHECK(strstr(src, "rlx_alloc(") != NULL);
  CHECK(strstr(src, "float L[16] __attribute__((aligned(64)));") != NULL);
  free(src);
  int64_t sz = 100;
  rlx_ndarray_t* a[2] = {new_array(1, &sz, F32, 30), new_array(1, &sz, F32, 31)};
  CHECK_OK(call_arrays(get_fn(lib, "rev"), a, 2));
  int bad = 0;
  for (int64_t q = 0; q < sz; q++) bad += ((float*)a[1]->dl.data)[q] != ((float*)a[0]->dl.data)[sz - 1 - q];
  CHECK_MSG(bad == 0, "rev: %d wrong", bad);
  rlx_ndarray_release(a[0]);
  rlx_ndarray_release(a[1]);
  rlx_library_free(lib);

  /* a register tile written with 64 lanes and read with 16 and 1 (at x86-64-v4, or skipped):
   * four 16-lane variables, the scalar read takes one lane */
  if (!test_use_target("c -mcpu=x86-64-v4", "register tile")) return;
  rlx_expr_t* s64 = I32(64);
  rlx_tir_buffer_t* X = param_buf("X", rlx_dt_float32(), 1, &s64);
  rlx_tir_buffer_t* Y = param_buf("Y", rlx_dt_float32(), 1, &s64);
  rlx_tir_buffer_t* R = rlx_tir_buffer_create(ctx_, "R", rlx_dt_float32(), 1, &s64, "local");
  rlx_var_t *v = VAR("v"), *c = VAR("c"), *w = VAR("w");
  rlx_expr_t* cw = ADD(MUL(E(c), I32(16)), E(w));
  rlx_tir_stmt_t* init = FOR(v, I32(64), RLX_FOR_VECTORIZED, ST(R, E(v), ADD(LD(X, E(v)), rlx_ir_float(ctx_, rlx_dt_float32(), 1))));
  rlx_tir_stmt_t* use = FOR(c, I32(4), RLX_FOR_UNROLLED, FOR(w, I32(16), RLX_FOR_VECTORIZED, ST(Y, cw, MUL(LD(R, cw), LD(R, I32(3))))));
  rlx_tir_buffer_t* bufs2[2] = {X, Y};
  rlx_tir_func_t* g = unroll_vectorize(make_func("tile", 2, bufs2, rlx_tir_allocate(ctx_, R, SEQ2(init, use))));
  lib = build_lib(1, &g, &src);
  if (!lib) return;
  CHECK(strstr(src, "rlx_f32x16 R_48 = {0};") != NULL && strstr(src, "R_0[3]") != NULL);
  free(src);
  sz = 64;
  rlx_ndarray_t* t[2] = {new_array(1, &sz, F32, 32), new_array(1, &sz, F32, 33)};
  CHECK_OK(call_arrays(get_fn(lib, "tile"), t, 2));
  const float *x = t[0]->dl.data, *y = t[1]->dl.data;
  bad = 0;
  for (int q = 0; q < 64; q++) bad += y[q] != (x[q] + 1.0f) * (x[3] + 1.0f);
  CHECK_MSG(bad == 0, "tile: %d wrong", bad);
  rlx_ndarray_release(t[0]);
  rlx_ndarray_release(t[1]);
  rlx_library_free(lib);
  CHECK_OK(rlx_ctx_set_target_str(ctx_, NULL));
}

/* ------------------------------------------------------------------ scalar params */
/* B[i] = A[i] * alpha for i < m (alpha float32, m int64 scalar params) */
static void test_scalar_params(void) {
  rlx_expr_t* s = I32(32);
  rlx_tir_buffer_t* A = param_buf("A", rlx_dt_float32(), 1, &s);
  rlx_tir_buffer_t* B = param_buf("B", rlx_dt_float32(), 1, &s);
  rlx_var_t* alpha = rlx_ir_var(ctx_, "alpha", rlx_dt_float32());
  rlx_var_t* m = rlx_ir_var(ctx_, "m", rlx_dt_int64());
  rlx_var_t* i = rlx_ir_var(ctx_, "i", rlx_dt_int64());
  rlx_var_t* params[4] = {A->data, alpha, m, B->data};
  rlx_tir_buffer_t* bmap[4] = {A, NULL, NULL, B};
  rlx_tir_func_t* f =
      rlx_tir_func_create(ctx_, "scale", 4, params, bmap, FOR(i, E(m), RLX_FOR_SERIAL, ST(B, E(i), MUL(LD(A, E(i)), E(alpha)))));
  rlx_library_t* lib = build_lib(1, &f, NULL);
  if (!lib) return;
  rlx_packed_fn_t fn = get_fn(lib, "scale");
  int64_t n = 32;
  rlx_ndarray_t *a = new_array(1, &n, F32, 40), *b = new_array(1, &n, F32, 41);
  float before = ((float*)b->dl.data)[31];
  rlx_value_t args[4];
  int codes[4] = {RLX_ARG_NDARRAY, RLX_ARG_FLOAT, RLX_ARG_INT, RLX_ARG_NDARRAY};
  args[0].v_handle = a;
  args[1].v_float64 = 0.5;
  args[2].v_int64 = 20;
  args[3].v_handle = b;
  CHECK_OK(rlx_packed_call(fn, NULL, args, codes, 4, NULL, NULL));
  int bad = 0;
  for (int q = 0; q < 20; q++) bad += ((float*)b->dl.data)[q] != ((float*)a->dl.data)[q] * 0.5f;
  CHECK_MSG(bad == 0 && ((float*)b->dl.data)[31] == before, "scale: %d wrong", bad);
  codes[2] = RLX_ARG_FLOAT;
  CHECK_ERR(rlx_packed_call(fn, NULL, args, codes, 4, NULL, NULL), "scale: argument 2 (m): expected an integer, got type code 2");
  rlx_ndarray_release(a);
  rlx_ndarray_release(b);
  rlx_library_free(lib);

  /* a loop bound read from memory is evaluated once: for i in range(L[0]): L[0] += 1 */
  rlx_expr_t* one = I32(1);
  rlx_tir_buffer_t* Lb = param_buf("L", rlx_dt_int32(), 1, &one);
  rlx_var_t* q = VAR("q");
  rlx_tir_func_t* h = make_func("grow", 1, &Lb, FOR(q, LD(Lb, I32(0)), RLX_FOR_SERIAL, ST(Lb, I32(0), ADD(LD(Lb, I32(0)), I32(1)))));
  lib = build_lib(1, &h, NULL);
  if (!lib) return;
  int64_t n1 = 1;
  rlx_ndarray_t* l = new_array(1, &n1, rlx_dldtype(kDLInt, 32, 1), 42);
  ((int32_t*)l->dl.data)[0] = 5;
  CHECK_OK(call_arrays(get_fn(lib, "grow"), &l, 1));
  CHECK_MSG(((int32_t*)l->dl.data)[0] == 10, "grow: %d (expected 10)", ((int32_t*)l->dl.data)[0]);
  rlx_ndarray_release(l);
  rlx_library_free(lib);
}

/* ------------------------------------------------------------------ argument errors */
static void test_errors(void) {
  rlx_tir_func_t* f = vadd_func("main", 128, 16);
  rlx_library_t* lib = build_lib(1, &f, NULL);
  if (!lib) return;
  rlx_packed_fn_t fn = get_fn(lib, "main");
  int64_t n = 128, bad_n = 64, two[2] = {128, 1};
  DLDataType i32 = {kDLInt, 32, 1};
  rlx_ndarray_t *a = new_array(1, &n, F32, 1), *b = new_array(1, &n, F32, 2), *c = new_array(1, &n, F32, 3);
  rlx_ndarray_t *short_b = new_array(1, &bad_n, F32, 4), *int_b = new_array(1, &n, i32, 5), *nd2 = new_array(2, two, F32, 6);
  rlx_ndarray_t* ok[3] = {a, b, c};
  CHECK_OK(call_arrays(fn, ok, 3));
  CHECK_ERR(call_arrays(fn, ok, 2), "main: expected 3 arguments, got 2");
  rlx_ndarray_t* w1[3] = {a, short_b, c};
  CHECK_ERR(call_arrays(fn, w1, 3), "main: argument 1 (B): expected shape (128,), got (64,)");
  rlx_ndarray_t* w2[3] = {a, int_b, c};
  CHECK_ERR(call_arrays(fn, w2, 3), "main: argument 1 (B): expected dtype float32, got int32");
  rlx_ndarray_t* w3[3] = {a, b, nd2};
  CHECK_ERR(call_arrays(fn, w3, 3), "main: argument 2 (C): expected ndim 1, got 2");
  /* a scalar where a tensor belongs */
  rlx_value_t args[3];
  int codes[3] = {RLX_ARG_NDARRAY, RLX_ARG_INT, RLX_ARG_NDARRAY};
  args[0].v_handle = a;
  args[1].v_int64 = 3;
  args[2].v_handle = c;
  CHECK_ERR(rlx_packed_call(fn, NULL, args, codes, 3, NULL, NULL), "main: argument 1 (B): expected a tensor, got type code 0");
  /* DLTensor (code 7) accepted; non-compact strides refused */
  DLTensor view = b->dl;
  int64_t stride = 2, shape = 64;
  view.shape = &shape;
  view.strides = &stride;
  codes[1] = RLX_ARG_DLTENSOR;
  args[1].v_handle = &b->dl;
  CHECK_OK(rlx_packed_call(fn, NULL, args, codes, 3, NULL, NULL));
  shape = 128;
  stride = 2;
  args[1].v_handle = &view;
  CHECK_ERR(rlx_packed_call(fn, NULL, args, codes, 3, NULL, NULL), "main: argument 1 (B): expected a compact row-major tensor");
  rlx_ndarray_t* all[6] = {a, b, c, short_b, int_b, nd2};
  for (int i = 0; i < 6; i++) rlx_ndarray_release(all[i]);
  rlx_library_free(lib);
  /* codegen errors */
  char* src = NULL;
  rlx_var_t* u = VAR("undefined_var");
  rlx_expr_t* s = I32(4);
  rlx_tir_buffer_t* X = param_buf("X", rlx_dt_int32(), 1, &s);
  rlx_tir_func_t* g = make_func("bad", 1, &X, ST(X, I32(0), E(u)));
  CHECK_ERR(rlx_codegen_c(ctx_, 1, &g, &src), "bad: variable 'undefined_var' is used but not defined");
  rlx_expr_t* arg = LD(X, I32(0));
  rlx_tir_func_t* h = make_func("bad2", 1, &X, ST(X, I32(0), rlx_ir_call(ctx_, rlx_dt_int32(), "no_such_op", 1, &arg)));
  CHECK_ERR(rlx_codegen_c(ctx_, 1, &h, &src), "intrinsic 'no_such_op'");
  /* T.prefetch needs T.address_of(B[i]) and constant rw / locality */
  rlx_expr_t* pa[4] = {arg, I32(0), I32(2), I32(1)};
  rlx_tir_func_t* p1 = make_func("bad3", 1, &X, rlx_tir_evaluate(ctx_, rlx_ir_call(ctx_, rlx_dt_int32(), "prefetch", 4, pa)));
  CHECK_ERR(rlx_codegen_c(ctx_, 1, &p1, &src), "bad3: T.prefetch takes T.address_of(B[i]) and constant rw (0-1) and locality (0-3)");
  pa[0] = rlx_ir_call(ctx_, rlx_dt_handle(), "address_of", 1, &arg);
  pa[2] = arg;
  rlx_tir_func_t* p2 = make_func("bad4", 1, &X, rlx_tir_evaluate(ctx_, rlx_ir_call(ctx_, rlx_dt_int32(), "prefetch", 4, pa)));
  CHECK_ERR(rlx_codegen_c(ctx_, 1, &p2, &src), "bad4: T.prefetch takes");
  pa[2] = I32(2);
  rlx_tir_func_t* p3 = make_func("pf", 1, &X, rlx_tir_evaluate(ctx_, rlx_ir_call(ctx_, rlx_dt_int32(), "prefetch", 4, pa)));
  CHECK_OK(rlx_codegen_c(ctx_, 1, &p3, &src));
  CHECK(src && strstr(src, "__builtin_prefetch(&X[") != NULL);
  free(src);
  src = NULL;
  /* compiler errors come back with the compiler's output */
  char* path = NULL;
  CHECK_ERR(rlx_compile_c(ctx_, "int f(void) { return undeclared_thing; }\n", &path), "undeclared_thing");
}

/* ------------------------------------------------------------------ compile cache */
static void test_cache(void) {
  char dir[] = "/tmp/rlx-cg-cache-XXXXXX";
  if (!mkdtemp(dir)) return;
  char src[128];
  snprintf(src, sizeof(src), "int rlx_cache_probe(void) { return %d; }\n", (int)(now_s() * 1000) % 100000);
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_ctx_set_cache_dir(ctx, dir);
  rlx_ctx_set_keep_source(ctx, true);
  char *p1 = NULL, *p2 = NULL;
  CHECK_OK(rlx_compile_c(ctx, src, &p1));
  struct stat s1, s2;
  CHECK(p1 && stat(p1, &s1) == 0);
  CHECK_OK(rlx_compile_c(ctx, src, &p2));
  /* a hit: the same object, not compiled again (not replaced: same inode and time) */
  CHECK(p1 && p2 && strcmp(p1, p2) == 0 && strncmp(p1, dir, strlen(dir)) == 0);
  CHECK(p2 && stat(p2, &s2) == 0 && s1.st_ino == s2.st_ino && s1.st_mtim.tv_nsec == s2.st_mtim.tv_nsec &&
        s1.st_mtim.tv_sec == s2.st_mtim.tv_sec);
  if (p1) {
    char c_path[512];
    snprintf(c_path, sizeof(c_path), "%.*s.c", (int)(strlen(p1) - 3), p1);
    CHECK(access(c_path, R_OK) == 0); /* keep_source */
    unlink(c_path);
    unlink(p1);
  }
  /* another target, another object: the cache never serves code built for another target
   * (x86-64-v2, or v3 where the host is v2 itself: under RLX_MAX_ISA=x86-64-v2) */
  char* p3 = NULL;
  const bool host_v2 = strcmp(rlx_target_mcpu(rlx_ctx_target(ctx)), "x86-64-v2") == 0;
  CHECK_OK(rlx_ctx_set_target_str(ctx, host_v2 ? "c -mcpu=x86-64-v3" : "c -mcpu=x86-64-v2"));
  if (rlx_target_arch(rlx_ctx_target(ctx)) == RLX_ARCH_X86_64) {
    CHECK_OK(rlx_compile_c(ctx, src, &p3));
    CHECK(p3 && p1 && strcmp(p3, p1) != 0);
    if (p3) unlink(p3);
  }
  char c3[512];
  if (p3) {
    snprintf(c3, sizeof(c3), "%.*s.c", (int)(strlen(p3) - 3), p3);
    unlink(c3);
  }
  rmdir(dir);
  free(p1);
  free(p2);
  free(p3);
  rlx_ctx_free(ctx);
}

int main(void) {
  ctx_ = rlx_ctx_create();
  test_vadd();
  test_transpose();
  test_reduction();
  test_symbolic();
  test_dtypes();
  test_floordiv();
  test_math();
  test_alloc();
  test_scalar_params();
  test_errors();
  test_cache();
  rlx_ctx_free(ctx_);
  TEST_MAIN_END();
}
