/* A register-tiled matmul micro-kernel written by hand in lowered TIR -- the target form the
 * default schedule must produce -- compiled through unroll + vectorize + C codegen:
 *
 *   allocate Bp global float32[N/32 * K * 32]              # B packed into panels [N/32][K][32]
 *   for jo in range(N/32): for k in range(K): for ji in vectorized(32):
 *       Bp[(jo*K + k)*32 + ji] = B[k*N + jo*32 + ji]
 *   for io in parallel(M/8):
 *     for jo in range(N/32):
 *       allocate C_local local float32[8*32]               # the register tile
 *       for ii in unrolled(8): for jio in unrolled(2): for jii in vectorized(16):
 *           C_local[ii*32 + jio*16 + jii] = 0
 *       for k in range(K):
 *         for ii in unrolled(8): for jio in unrolled(2): for jii in vectorized(16):
 *           C_local[ii*32 + jio*16 + jii] += A[(io*8 + ii)*K + k] * Bp[(jo*K + k)*32 + jio*16 + jii]
 *       for ii in unrolled(8): for jio in unrolled(2): for jii in vectorized(16):
 *           C[(io*8 + ii)*N + jo*32 + jio*16 + jii] = C_local[ii*32 + jio*16 + jii]
 *
 * At each x86-64 level this CPU runs (the vectorizer cuts the 16-lane loops to the target's
 * width): checks correctness on 1024^3 (sampled entries against a double-precision dot
 * product, tolerance 1e-3 relative) and on a small size fully; prints single-thread GFLOPS
 * (not asserted). */
#include "codegen_test_util.h"

static rlx_tir_func_t* matmul_func(int64_t M, int64_t N, int64_t K) {
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_expr_t* sa[2] = {I32(M), I32(K)};
  rlx_expr_t* sb[2] = {I32(K), I32(N)};
  rlx_expr_t* sc[2] = {I32(M), I32(N)};
  rlx_tir_buffer_t* A = param_buf("A", f32, 2, sa);
  rlx_tir_buffer_t* B = param_buf("B", f32, 2, sb);
  rlx_tir_buffer_t* C = param_buf("C", f32, 2, sc);
  rlx_tir_buffer_t *Af = flat_of(A), *Bf = flat_of(B), *Cf = flat_of(C);
  rlx_expr_t* bp_size = I32(N / 32 * K * 32);
  rlx_tir_buffer_t* Bp = rlx_tir_buffer_create(ctx_, "Bp", f32, 1, &bp_size, "global");
  rlx_expr_t* cl_size = I32(8 * 32);
  rlx_tir_buffer_t* CL = rlx_tir_buffer_create(ctx_, "C_local", f32, 1, &cl_size, "local");

  /* packing */
  rlx_var_t *jo = VAR("jo"), *k = VAR("k"), *ji = VAR("ji");
  rlx_tir_stmt_t* pack =
      FOR(jo, I32(N / 32), RLX_FOR_SERIAL,
          FOR(k, I32(K), RLX_FOR_SERIAL,
              FOR(ji, I32(32), RLX_FOR_VECTORIZED,
                  ST(Bp, ADD(MUL(ADD(MUL(E(jo), I32(K)), E(k)), I32(32)), E(ji)),
                     LD(Bf, ADD(ADD(MUL(E(k), I32(N)), MUL(E(jo), I32(32))), E(ji)))))));

  rlx_var_t *io = VAR("io"), *jo2 = VAR("jo"), *kk = VAR("k");
  /* init */
  rlx_var_t *ii0 = VAR("ii"), *jio0 = VAR("jio"), *jii0 = VAR("jii");
  rlx_expr_t* cl0 = ADD(ADD(MUL(E(ii0), I32(32)), MUL(E(jio0), I32(16))), E(jii0));
  rlx_tir_stmt_t* init =
      FOR(ii0, I32(8), RLX_FOR_UNROLLED,
          FOR(jio0, I32(2), RLX_FOR_UNROLLED,
              FOR(jii0, I32(16), RLX_FOR_VECTORIZED, ST(CL, cl0, rlx_ir_float(ctx_, f32, 0.0)))));
  /* update */
  rlx_var_t *ii1 = VAR("ii"), *jio1 = VAR("jio"), *jii1 = VAR("jii");
  rlx_expr_t* cl1 = ADD(ADD(MUL(E(ii1), I32(32)), MUL(E(jio1), I32(16))), E(jii1));
  rlx_expr_t* a = LD(Af, ADD(MUL(ADD(MUL(E(io), I32(8)), E(ii1)), I32(K)), E(kk)));
  rlx_expr_t* b = LD(Bp, ADD(ADD(MUL(ADD(MUL(E(jo2), I32(K)), E(kk)), I32(32)), MUL(E(jio1), I32(16))), E(jii1)));
  rlx_tir_stmt_t* update =
      FOR(kk, I32(K), RLX_FOR_SERIAL,
          FOR(ii1, I32(8), RLX_FOR_UNROLLED,
              FOR(jio1, I32(2), RLX_FOR_UNROLLED,
                  FOR(jii1, I32(16), RLX_FOR_VECTORIZED, ST(CL, cl1, ADD(LD(CL, cl1), MUL(a, b)))))));
  /* write back */
  rlx_var_t *ii2 = VAR("ii"), *jio2 = VAR("jio"), *jii2 = VAR("jii");
  rlx_expr_t* cl2 = ADD(ADD(MUL(E(ii2), I32(32)), MUL(E(jio2), I32(16))), E(jii2));
  rlx_expr_t* cidx =
      ADD(ADD(ADD(MUL(ADD(MUL(E(io), I32(8)), E(ii2)), I32(N)), MUL(E(jo2), I32(32))), MUL(E(jio2), I32(16))), E(jii2));
  rlx_tir_stmt_t* wb = FOR(ii2, I32(8), RLX_FOR_UNROLLED,
                           FOR(jio2, I32(2), RLX_FOR_UNROLLED, FOR(jii2, I32(16), RLX_FOR_VECTORIZED, ST(Cf, cidx, LD(CL, cl2)))));
  rlx_tir_stmt_t* tile[3] = {init, update, wb};
  rlx_tir_stmt_t* compute =
      FOR(io, I32(M / 8), RLX_FOR_PARALLEL,
          FOR(jo2, I32(N / 32), RLX_FOR_SERIAL, rlx_tir_allocate(ctx_, CL, rlx_tir_seq(ctx_, 3, tile))));
  rlx_tir_stmt_t* body = rlx_tir_allocate(ctx_, Bp, SEQ2(pack, compute));
  rlx_tir_buffer_t* bufs[3] = {A, B, C};
  return make_func("matmul", 3, bufs, body);
}

static void run_matmul(int64_t M, int64_t N, int64_t K, bool full_check, bool bench) {
  rlx_tir_func_t* f = unroll_vectorize(matmul_func(M, N, K));
  char* src = NULL;
  rlx_library_t* lib = build_lib(1, &f, &src);
  if (!lib) return;
  /* the tile must have become vector variables of the target's width (16 of 16 lanes at
   * x86-64-v4, 32 of 8 at v3, 64 of 4 at v2: the 16-lane loops cut into native vectors) */
  char want[64];
  snprintf(want, sizeof(want), "rlx_f32x%d C_local_%d = {0};", test_f32_lanes(), 256 - test_f32_lanes());
  CHECK_MSG(src && strstr(src, want) != NULL, "no %s", want);
  CHECK(src && strstr(src, "rlx_nn_parallel(rlx_pc.rlx_m_items") != NULL); /* the tile loop runs on the pool */
  free(src);
  rlx_packed_fn_t fn = get_fn(lib, "matmul");
  int64_t sa[2] = {M, K}, sb[2] = {K, N}, sc[2] = {M, N};
  DLDataType f32 = rlx_dldtype(kDLFloat, 32, 1);
  rlx_ndarray_t* A = new_array(2, sa, f32, 1);
  rlx_ndarray_t* B = new_array(2, sb, f32, 2);
  rlx_ndarray_t* C = new_array(2, sc, f32, 3);
  rlx_ndarray_t* args[3] = {A, B, C};
  if (fn && A && B && C) {
    const char* th = getenv("RLX_BENCH_THREADS"); /* default: single-threaded */
    int threads = th ? atoi(th) : 1;
    rlx_library_set_num_threads(lib, threads > 0 ? threads : 1);
    CHECK_OK(call_arrays(fn, args, 3));
    const float *a = A->dl.data, *b = B->dl.data, *c = C->dl.data;
    double max_rel = 0;
    int64_t checks = full_check ? M * N : 4096;
    uint64_t s = 12345;
    for (int64_t t = 0; t < checks; t++) {
      int64_t i, j;
      if (full_check) {
        i = t / N;
        j = t % N;
      } else {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        i = (int64_t)((s >> 33) % (uint64_t)M);
        j = (int64_t)((s >> 13) % (uint64_t)N);
      }
      double ref = 0, mag = 0;
      for (int64_t kk = 0; kk < K; kk++) {
        ref += (double)a[i * K + kk] * b[kk * N + j];
        mag += fabs((double)a[i * K + kk] * b[kk * N + j]);
      }
      double rel = fabs(c[i * N + j] - ref) / (mag > 1 ? mag : 1);
      if (rel > max_rel) max_rel = rel;
    }
    printf("matmul %lldx%lldx%lld: max error %.3g relative to sum|a*b| (tolerance 1e-5), %lld entries checked\n",
           (long long)M, (long long)N, (long long)K, max_rel, (long long)checks);
    CHECK(max_rel < 1e-5);
    if (bench) {
      double best = 1e9;
      for (int r = 0; r < 5; r++) {
        double t0 = now_s();
        rlx_status_free(call_arrays(fn, args, 3));
        double t1 = now_s();
        if (t1 - t0 < best) best = t1 - t0;
      }
      printf("matmul %lld^3, %d thread(s): %.1f GFLOPS (best of 5, %.2f ms)\n", (long long)M, threads > 0 ? threads : 1,
             2.0 * (double)M * (double)N * (double)K / best * 1e-9, best * 1e3);
    }
  }
  rlx_ndarray_release(A);
  rlx_ndarray_release(B);
  rlx_ndarray_release(C);
  rlx_library_free(lib);
}

int main(void) {
  ctx_ = rlx_ctx_create();
  for (int lv = 0; lv < TEST_N_X86_LEVELS; lv++) {
    if (!test_use_target(test_x86_levels[lv], "matmul kernel")) continue;
    printf("%s:\n", test_x86_levels[lv]);
    run_matmul(64, 96, 40, true, false);
    run_matmul(1024, 1024, 1024, false, true);
  }
  rlx_ctx_free(ctx_);
  TEST_MAIN_END();
}
