/* Reference interpreter: matmul+relu with blocks against a plain C loop, symbolic shapes on
 * two sizes, lowered form with Ramp/Broadcast/ALLOCATE, dtypes and intrinsics, and errors that
 * name the parameter. */
#include <math.h>
#include <stdlib.h>

#include "test.h"
#include "test_tir_interp_builders.h"
#include "tir/interp.h"

typedef struct {
  DLTensor t;
  int64_t shape[4];
} tensor_t;

static void tensor_init(tensor_t* x, void* data, DLDataType dt, int ndim, const int64_t* shape) {
  memset(x, 0, sizeof(*x));
  x->t.data = data;
  x->t.device.device_type = kDLCPU;
  x->t.ndim = ndim;
  x->t.dtype = dt;
  for (int i = 0; i < ndim; i++) x->shape[i] = shape[i];
  x->t.shape = x->shape;
}
static DLDataType dl_f32(void) {
  DLDataType d = {kDLFloat, 32, 1};
  return d;
}

static uint32_t rng = 12345;
static float frand(void) {
  rng = rng * 1664525u + 1013904223u;
  return (float)((rng >> 8) & 0xffff) / 32768.0f - 1.0f;
}

/* Runs matmul_relu on M x K x N inputs and compares with a C loop (float32). */
static void run_matmul(const rlx_tir_func_t* f, int M, int N, int K) {
  float* a = malloc(sizeof(float) * (size_t)(M * K));
  float* b = malloc(sizeof(float) * (size_t)(K * N));
  float* d = malloc(sizeof(float) * (size_t)(M * N));
  for (int i = 0; i < M * K; i++) a[i] = frand();
  for (int i = 0; i < K * N; i++) b[i] = frand();
  for (int i = 0; i < M * N; i++) d[i] = 1234.0f;
  tensor_t ta, tb, td;
  int64_t sa[2] = {M, K}, sb[2] = {K, N}, sd[2] = {M, N};
  tensor_init(&ta, a, dl_f32(), 2, sa);
  tensor_init(&tb, b, dl_f32(), 2, sb);
  tensor_init(&td, d, dl_f32(), 2, sd);
  DLTensor* args[3] = {&ta.t, &tb.t, &td.t};
  CHECK_OK(rlx_tir_interpret(f, args, 3));
  double max_err = 0;
  int negatives = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float acc = 0.0f;
      for (int k = 0; k < K; k++) acc = acc + a[i * K + k] * b[k * N + j];
      float want = acc > 0.0f ? acc : 0.0f;
      if (acc < 0) negatives++;
      double e = fabs((double)want - (double)d[i * N + j]);
      if (e > max_err) max_err = e;
    }
  CHECK_MSG(max_err <= 1e-6, "matmul %dx%dx%d: max abs error %g", M, N, K, max_err);
  CHECK(negatives > 0); /* relu was exercised */
  free(a);
  free(b);
  free(d);
}

static void test_matmul(void) {
  rlx_ctx_t* c = rlx_ctx_create();
  rlx_tir_func_t* f = tb_matmul_relu(c, tb_i(c, 8), tb_i(c, 6), tb_i(c, 5), 0.0);
  run_matmul(f, 8, 6, 5);
  /* symbolic M, N, K: two sizes */
  rlx_var_t* M = rlx_ir_var(c, "M", rlx_dt_int64());
  rlx_var_t* N = rlx_ir_var(c, "N", rlx_dt_int64());
  rlx_var_t* K = rlx_ir_var(c, "K", rlx_dt_int64());
  rlx_tir_func_t* g = tb_matmul_relu(c, tb_v(M), tb_v(N), tb_v(K), 0.0);
  run_matmul(g, 4, 3, 2);
  run_matmul(g, 7, 9, 13);
  /* errors: wrong shape names the parameter and buffer; inconsistent K; dtype; ndim */
  float buf[64 * 64];
  tensor_t ta, tb, td;
  int64_t s85[2] = {8, 5}, s56[2] = {5, 6}, s86[2] = {8, 6}, s76[2] = {7, 6}, s46[2] = {4, 6};
  tensor_init(&ta, buf, dl_f32(), 2, s85);
  tensor_init(&tb, buf, dl_f32(), 2, s56);
  tensor_init(&td, buf, dl_f32(), 2, s76);
  DLTensor* args[3] = {&ta.t, &tb.t, &td.t};
  CHECK_ERR(rlx_tir_interpret(f, args, 3), "parameter 'pd' (buffer 'D'): expected shape[0] = 8, got 7");
  tensor_init(&td, buf, dl_f32(), 2, s86);
  tensor_init(&tb, buf, dl_f32(), 2, s46);
  CHECK_ERR(rlx_tir_interpret(g, args, 3), "parameter 'pb' (buffer 'B'): expected shape[0] = 5, got 4");
  tensor_init(&tb, buf, dl_f32(), 2, s56);
  DLDataType i32 = {kDLInt, 32, 1};
  ta.t.dtype = i32;
  CHECK_ERR(rlx_tir_interpret(f, args, 3), "parameter 'pa' (buffer 'A'): expected dtype float32, got int32");
  ta.t.dtype = dl_f32();
  ta.t.ndim = 1;
  CHECK_ERR(rlx_tir_interpret(f, args, 3), "parameter 'pa' (buffer 'A'): expected 2 dimensions, got 1");
  ta.t.ndim = 2;
  CHECK_ERR(rlx_tir_interpret(f, args, 2), "expected 3 arguments, got 2");
  CHECK_OK(rlx_tir_interpret(f, args, 3));
  rlx_ctx_free(c);
}

static void test_vector_add_symbolic(void) {
  rlx_ctx_t* c = rlx_ctx_create();
  rlx_tir_func_t* f = tb_vector_add(c, false);
  for (int n = 1; n <= 33; n += 32) {
    float a[40], b[40], out[40];
    for (int i = 0; i < n; i++) {
      a[i] = frand();
      b[i] = frand();
      out[i] = 0;
    }
    tensor_t ta, tb, tc;
    int64_t s[1] = {n};
    tensor_init(&ta, a, dl_f32(), 1, s);
    tensor_init(&tb, b, dl_f32(), 1, s);
    tensor_init(&tc, out, dl_f32(), 1, s);
    DLTensor* args[3] = {&ta.t, &tb.t, &tc.t};
    CHECK_OK(rlx_tir_interpret(f, args, 3));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += out[i] != a[i] + b[i];
    CHECK_MSG(bad == 0, "n=%d: %d wrong elements", n, bad);
  }
  /* n bound by A, then B disagrees */
  float a[8] = {0}, b[8] = {0}, o[8] = {0};
  tensor_t ta, tb, tc;
  int64_t s8[1] = {8}, s7[1] = {7};
  tensor_init(&ta, a, dl_f32(), 1, s8);
  tensor_init(&tb, b, dl_f32(), 1, s7);
  tensor_init(&tc, o, dl_f32(), 1, s8);
  DLTensor* args[3] = {&ta.t, &tb.t, &tc.t};
  CHECK_ERR(rlx_tir_interpret(f, args, 3), "parameter 'b' (buffer 'B'): expected shape[0] = 8, got 7");
  rlx_ctx_free(c);
}

static void test_lowered(void) {
  rlx_ctx_t* c = rlx_ctx_create();
  rlx_tir_func_t* f = tb_lowered_vec(c);
  float x[32], y[32];
  for (int i = 0; i < 32; i++) {
    x[i] = frand();
    y[i] = -1;
  }
  tensor_t tx, ty;
  int64_t s[2] = {4, 8};
  tensor_init(&tx, x, dl_f32(), 2, s);
  tensor_init(&ty, y, dl_f32(), 2, s);
  DLTensor* args[2] = {&tx.t, &ty.t};
  CHECK_OK(rlx_tir_interpret(f, args, 2));
  int bad = 0;
  for (int i = 0; i < 32; i++) bad += y[i] != (x[i] + 1.0f) * 2.0f;
  CHECK_MSG(bad == 0, "%d wrong elements", bad);
  rlx_ctx_free(c);
}

/* Runs a one-loop function `for i in n: O[i] = value(I[i])` on int/float buffers. */
static rlx_tir_func_t* unary_loop(rlx_ctx_t* c, rlx_dtype_t in_t, rlx_dtype_t out_t, int n,
                                  rlx_expr_t* (*value)(rlx_ctx_t*, rlx_expr_t*)) {
  rlx_expr_t* s[1] = {tb_i(c, n)};
  rlx_tir_buffer_t* I = rlx_tir_buffer_create(c, "I", in_t, 1, s, NULL);
  rlx_tir_buffer_t* O = rlx_tir_buffer_create(c, "O", out_t, 1, s, NULL);
  rlx_var_t* i = rlx_ir_var(c, "i", rlx_dt_int64());
  rlx_expr_t* ix[1] = {tb_v(i)};
  rlx_tir_stmt_t* st = rlx_tir_store(c, O, value(c, rlx_ir_load(c, I, 1, ix)), 1, ix);
  rlx_tir_stmt_t* body = rlx_tir_for(c, i, tb_i(c, 0), tb_i(c, n), RLX_FOR_SERIAL, st);
  rlx_var_t* params[2] = {rlx_ir_var(c, "in", rlx_dt_handle()), rlx_ir_var(c, "out", rlx_dt_handle())};
  rlx_tir_buffer_t* bm[2] = {I, O};
  return rlx_tir_func_create(c, "unary", 2, params, bm, body);
}

static rlx_expr_t* v_sigmoid(rlx_ctx_t* c, rlx_expr_t* x) { return rlx_ir_call(c, x->dtype, "sigmoid", 1, &x); }
static rlx_expr_t* v_exp_tanh(rlx_ctx_t* c, rlx_expr_t* x) {
  rlx_expr_t* e = rlx_ir_call(c, x->dtype, "exp", 1, &x);
  return rlx_ir_add(c, e, rlx_ir_call(c, x->dtype, "tanh", 1, &x));
}
static rlx_expr_t* v_unknown(rlx_ctx_t* c, rlx_expr_t* x) { return rlx_ir_call(c, x->dtype, "frobnicate", 1, &x); }
static rlx_expr_t* v_int8_double(rlx_ctx_t* c, rlx_expr_t* x) { return rlx_ir_add(c, x, x); }
static rlx_expr_t* v_cast_f32(rlx_ctx_t* c, rlx_expr_t* x) {
  return rlx_ir_mul(c, rlx_ir_cast(c, rlx_dt_float32(), x), rlx_ir_float(c, rlx_dt_float32(), 0.5));
}
static rlx_expr_t* v_isnan_sel(rlx_ctx_t* c, rlx_expr_t* x) {
  rlx_expr_t* isn = rlx_ir_call(c, rlx_dt_bool(), "isnan", 1, &x);
  rlx_expr_t* args[3] = {isn, rlx_ir_float(c, x->dtype, 0.0), x};
  return rlx_ir_call(c, x->dtype, "if_then_else", 3, args);
}
static rlx_expr_t* v_floordiv_mod(rlx_ctx_t* c, rlx_expr_t* x) {
  /* floordiv(x, 4) * 10 + floormod(x, 4) and truncated x / 4: on int32 */
  rlx_expr_t* fd = rlx_ir_floordiv(c, x, rlx_ir_i32(c, 4));
  rlx_expr_t* fm = rlx_ir_floormod(c, x, rlx_ir_i32(c, 4));
  rlx_expr_t* td = rlx_ir_div(c, x, rlx_ir_i32(c, 4));
  return rlx_ir_add(c, rlx_ir_add(c, rlx_ir_mul(c, fd, rlx_ir_i32(c, 100)), rlx_ir_mul(c, fm, rlx_ir_i32(c, 10))),
                    rlx_ir_mul(c, td, rlx_ir_i32(c, 1000)));
}
static rlx_expr_t* v_bool(rlx_ctx_t* c, rlx_expr_t* x) {
  return rlx_ir_and(c, rlx_ir_cmp(c, RLX_EXPR_GT, x, rlx_ir_float(c, x->dtype, 0.0)),
                    rlx_ir_cmp(c, RLX_EXPR_LT, x, rlx_ir_float(c, x->dtype, 0.5)));
}

static rlx_status_t* run_unary(rlx_tir_func_t* f, void* in, DLDataType it, void* out, DLDataType ot, int n) {
  tensor_t ti, to;
  int64_t s[1] = {n};
  tensor_init(&ti, in, it, 1, s);
  tensor_init(&to, out, ot, 1, s);
  DLTensor* args[2] = {&ti.t, &to.t};
  return rlx_tir_interpret(f, args, 2);
}

static void test_dtypes_intrinsics(void) {
  rlx_ctx_t* c = rlx_ctx_create();
  DLDataType f32 = dl_f32(), f64 = {kDLFloat, 64, 1}, i8 = {kDLInt, 8, 1}, i32 = {kDLInt, 32, 1}, u8 = {kDLUInt, 8, 1},
             bl = {kDLUInt, 1, 1}, f16 = {kDLFloat, 16, 1};
  float x[8] = {-2.5f, -1, -0.25f, 0, 0.25f, 1, 2.5f, 7};
  float y[8];
  CHECK_OK(run_unary(unary_loop(c, rlx_dt_float32(), rlx_dt_float32(), 8, v_sigmoid), x, f32, y, f32, 8));
  int bad = 0;
  for (int i = 0; i < 8; i++) bad += y[i] != 1.0f / (1.0f + expf(-x[i]));
  CHECK_MSG(bad == 0, "sigmoid float32: %d wrong", bad);
  CHECK_OK(run_unary(unary_loop(c, rlx_dt_float32(), rlx_dt_float32(), 8, v_exp_tanh), x, f32, y, f32, 8));
  bad = 0;
  for (int i = 0; i < 8; i++) bad += y[i] != expf(x[i]) + tanhf(x[i]);
  CHECK_MSG(bad == 0, "exp+tanh float32: %d wrong", bad);
  double xd[8], yd[8];
  for (int i = 0; i < 8; i++) xd[i] = x[i] / 3.0;
  CHECK_OK(run_unary(unary_loop(c, rlx_dt_float64(), rlx_dt_float64(), 8, v_exp_tanh), xd, f64, yd, f64, 8));
  bad = 0;
  for (int i = 0; i < 8; i++) bad += yd[i] != exp(xd[i]) + tanh(xd[i]);
  CHECK_MSG(bad == 0, "exp+tanh float64: %d wrong", bad);
  CHECK_ERR(run_unary(unary_loop(c, rlx_dt_float32(), rlx_dt_float32(), 8, v_unknown), x, f32, y, f32, 8),
            "unknown intrinsic 'frobnicate'");
  /* int8 wraps: 100 + 100 = -56 */
  int8_t a8[4] = {100, -100, 3, -128}, b8[4];
  CHECK_OK(run_unary(unary_loop(c, rlx_dtype(RLX_DT_INT, 8, 1), rlx_dtype(RLX_DT_INT, 8, 1), 4, v_int8_double), a8, i8,
                     b8, i8, 4));
  CHECK(b8[0] == -56 && b8[1] == 56 && b8[2] == 6 && b8[3] == 0);
  /* uint8 → float32 cast */
  uint8_t u[4] = {0, 1, 255, 128};
  CHECK_OK(run_unary(unary_loop(c, rlx_dtype(RLX_DT_UINT, 8, 1), rlx_dt_float32(), 4, v_cast_f32), u, u8, y, f32, 4));
  CHECK(y[0] == 0 && y[1] == 0.5f && y[2] == 127.5f && y[3] == 64.0f);
  /* floor vs truncated division on negative int32 */
  int32_t iv[4] = {-7, 7, -8, 0}, ov[4];
  CHECK_OK(run_unary(unary_loop(c, rlx_dt_int32(), rlx_dt_int32(), 4, v_floordiv_mod), iv, i32, ov, i32, 4));
  /* -7: floordiv -2, floormod 1, trunc -1 → -200 + 10 - 1000 */
  CHECK_MSG(ov[0] == -1190 && ov[1] == 1000 + 100 + 30 && ov[2] == -200 - 2000 + 0 && ov[3] == 0, "%d %d %d %d", ov[0],
            ov[1], ov[2], ov[3]);
  /* isnan + if_then_else */
  float nx[3] = {NAN, 1.5f, -2};
  CHECK_OK(run_unary(unary_loop(c, rlx_dt_float32(), rlx_dt_float32(), 3, v_isnan_sel), nx, f32, y, f32, 3));
  CHECK(y[0] == 0 && y[1] == 1.5f && y[2] == -2);
  /* bool output */
  uint8_t bo[8];
  CHECK_OK(run_unary(unary_loop(c, rlx_dt_float32(), rlx_dt_bool(), 8, v_bool), x, f32, bo, bl, 8));
  CHECK(bo[0] == 0 && bo[3] == 0 && bo[4] == 1 && bo[5] == 0);
  /* float16 is unsupported, with an error */
  uint16_t h[2] = {0, 0};
  CHECK_ERR(run_unary(unary_loop(c, rlx_dtype(RLX_DT_FLOAT, 16, 1), rlx_dtype(RLX_DT_FLOAT, 16, 1), 2, v_int8_double),
                      h, f16, h, f16, 2),
            "float16");
  rlx_ctx_free(c);
}

static void test_control_and_errors(void) {
  rlx_ctx_t* c = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32(), i64 = rlx_dt_int64();
  /* split with predicate: for io in 3, ii in 4: block (vi = io*4 + ii, pred vi < 10): O[vi] = vi * 2
   * plus a Let and an If: if vi % 2 == 0 then O[vi] = let t = vi*2 in t else O[vi] = -1 */
  rlx_expr_t* s10[1] = {tb_i(c, 10)};
  rlx_tir_buffer_t* O = rlx_tir_buffer_create(c, "O", f32, 1, s10, NULL);
  rlx_var_t *io = rlx_ir_var(c, "io", i64), *ii = rlx_ir_var(c, "ii", i64), *vi = rlx_ir_var(c, "vi", i64);
  rlx_var_t* t = rlx_ir_var(c, "t", i64);
  rlx_expr_t* ix[1] = {tb_v(vi)};
  rlx_tir_stmt_t* then_s = rlx_tir_let(c, t, rlx_ir_mul(c, tb_v(vi), tb_i(c, 2)),
                                       rlx_tir_store(c, O, rlx_ir_cast(c, f32, tb_v(t)), 1, ix));
  rlx_tir_stmt_t* else_s = rlx_tir_store(c, O, tb_f(c, -1), 1, ix);
  rlx_expr_t* even = rlx_ir_cmp(c, RLX_EXPR_EQ, rlx_ir_floormod(c, tb_v(vi), tb_i(c, 2)), tb_i(c, 0));
  rlx_iter_var_t* ivs[1] = {rlx_tir_iter_var(c, vi, tb_i(c, 0), tb_i(c, 10), RLX_ITER_SPATIAL)};
  rlx_tir_block_t* blk = tb_block(c, "B", 1, ivs, 0, NULL, 0, NULL, NULL, rlx_tir_if(c, even, then_s, else_s));
  rlx_expr_t* val = rlx_ir_add(c, rlx_ir_mul(c, tb_v(io), tb_i(c, 4)), tb_v(ii));
  rlx_expr_t* pred = rlx_ir_cmp(c, RLX_EXPR_LT, val, tb_i(c, 10));
  rlx_tir_stmt_t* body = rlx_tir_block_realize(c, 1, &val, pred, blk);
  body = rlx_tir_for(c, ii, tb_i(c, 0), tb_i(c, 4), RLX_FOR_VECTORIZED, body);
  body = rlx_tir_for(c, io, tb_i(c, 0), tb_i(c, 3), RLX_FOR_SERIAL, body);
  rlx_var_t* po = rlx_ir_var(c, "o", rlx_dt_handle());
  rlx_tir_func_t* f = rlx_tir_func_create(c, "pred", 1, &po, &O, body);
  float out[10];
  tensor_t to;
  int64_t s[1] = {10};
  tensor_init(&to, out, dl_f32(), 1, s);
  DLTensor* args[1] = {&to.t};
  CHECK_OK(rlx_tir_interpret(f, args, 1));
  int bad = 0;
  for (int i = 0; i < 10; i++) bad += out[i] != (i % 2 == 0 ? (float)(2 * i) : -1.0f);
  CHECK_MSG(bad == 0, "predicated split: %d wrong", bad);
  /* without the predicate the access goes out of bounds: an error, not a crash */
  rlx_tir_stmt_t* body2 = rlx_tir_block_realize(c, 1, &val, NULL, blk);
  body2 = rlx_tir_for(c, ii, tb_i(c, 0), tb_i(c, 4), RLX_FOR_SERIAL, body2);
  body2 = rlx_tir_for(c, io, tb_i(c, 0), tb_i(c, 3), RLX_FOR_SERIAL, body2);
  rlx_tir_func_t* g = rlx_tir_func_create(c, "nopred", 1, &po, &O, body2);
  CHECK_ERR(rlx_tir_interpret(g, args, 1), "out-of-bounds store to buffer 'O': index 10 of dimension 0 outside [0, 10)");
  /* an unbound variable */
  rlx_var_t* free_v = rlx_ir_var(c, "free_v", i64);
  rlx_expr_t* fx[1] = {tb_v(free_v)};
  rlx_tir_func_t* h = rlx_tir_func_create(c, "unbound", 1, &po, &O, rlx_tir_store(c, O, tb_f(c, 1), 1, fx));
  CHECK_ERR(rlx_tir_interpret(h, args, 1), "variable 'free_v' is not bound");
  /* non-CPU tensor */
  to.t.device.device_type = kDLCUDA;
  CHECK_ERR(rlx_tir_interpret(f, args, 1), "parameter 'o' (buffer 'O'): tensor is not on the CPU");
  rlx_ctx_free(c);
}


/* Vector expressions: O[ramp(i*4, 1, 4)] = select(X[ramp] > bcast(0), exp(X[ramp]), bcast(-1)) and
 * a vector Let, over an 8-element float32 buffer. */
static void test_vector_ops(void) {
  rlx_ctx_t* c = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_expr_t* s8[1] = {tb_i(c, 8)};
  rlx_tir_buffer_t* X = rlx_tir_buffer_create(c, "X", f32, 1, s8, NULL);
  rlx_tir_buffer_t* O = rlx_tir_buffer_create(c, "O", f32, 1, s8, NULL);
  rlx_var_t* i = rlx_ir_var(c, "i", rlx_dt_int64());
  rlx_expr_t* r[1] = {rlx_ir_ramp(c, rlx_ir_mul(c, tb_v(i), tb_i(c, 4)), tb_i(c, 1), 4)};
  rlx_var_t* xv = rlx_ir_var(c, "xv", rlx_dtype_with_lanes(f32, 4));
  rlx_expr_t* xe = tb_v(xv);
  rlx_expr_t* pos = rlx_ir_cmp(c, RLX_EXPR_GT, xe, rlx_ir_broadcast(c, tb_f(c, 0), 4));
  rlx_expr_t* ex = rlx_ir_call(c, xe->dtype, "exp", 1, &xe);
  rlx_expr_t* val = rlx_ir_select(c, pos, ex, rlx_ir_broadcast(c, tb_f(c, -1), 4));
  rlx_tir_stmt_t* st = rlx_tir_let(c, xv, rlx_ir_load(c, X, 1, r), rlx_tir_store(c, O, val, 1, r));
  rlx_tir_stmt_t* body = rlx_tir_for(c, i, tb_i(c, 0), tb_i(c, 2), RLX_FOR_UNROLLED, st);
  rlx_var_t* params[2] = {rlx_ir_var(c, "x", rlx_dt_handle()), rlx_ir_var(c, "o", rlx_dt_handle())};
  rlx_tir_buffer_t* bm[2] = {X, O};
  rlx_tir_func_t* f = rlx_tir_func_create(c, "vec_ops", 2, params, bm, body);
  float x[8] = {-1, 0.5f, 2, -3, 0, 1, -0.5f, 3}, o[8];
  tensor_t tx, to;
  int64_t s[1] = {8};
  tensor_init(&tx, x, dl_f32(), 1, s);
  tensor_init(&to, o, dl_f32(), 1, s);
  DLTensor* args[2] = {&tx.t, &to.t};
  CHECK_OK(rlx_tir_interpret(f, args, 2));
  int bad = 0;
  for (int k = 0; k < 8; k++) bad += o[k] != (x[k] > 0 ? expf(x[k]) : -1.0f);
  CHECK_MSG(bad == 0, "vector select/exp: %d wrong", bad);
  /* a ramp running past the end is caught */
  rlx_expr_t* r2[1] = {rlx_ir_ramp(c, rlx_ir_add(c, rlx_ir_mul(c, tb_v(i), tb_i(c, 4)), tb_i(c, 1)), tb_i(c, 1), 4)};
  rlx_tir_stmt_t* bad_st = rlx_tir_store(c, O, rlx_ir_load(c, X, 1, r2), 1, r);
  rlx_tir_func_t* g = rlx_tir_func_create(c, "vec_oob", 2, params, bm, rlx_tir_for(c, i, tb_i(c, 0), tb_i(c, 2), RLX_FOR_SERIAL, bad_st));
  CHECK_ERR(rlx_tir_interpret(g, args, 2), "out-of-bounds load from buffer 'X': index 8 of dimension 0 outside [0, 8)");
  rlx_ctx_free(c);
}


/* A scalar param (TVM's tir_vars) comes as a 0-d tensor: f(a: [n], n: int64): A[i] = i * n. */
static void test_scalar_param(void) {
  rlx_ctx_t* c = rlx_ctx_create();
  rlx_var_t* n = rlx_ir_var(c, "n", rlx_dt_int64());
  rlx_expr_t* sn[1] = {tb_v(n)};
  rlx_tir_buffer_t* A = rlx_tir_buffer_create(c, "A", rlx_dt_float32(), 1, sn, NULL);
  rlx_var_t* i = rlx_ir_var(c, "i", rlx_dt_int64());
  rlx_expr_t* ix[1] = {tb_v(i)};
  rlx_tir_stmt_t* body = rlx_tir_for(c, i, tb_i(c, 0), tb_v(n), RLX_FOR_SERIAL,
                                     rlx_tir_store(c, A, rlx_ir_cast(c, rlx_dt_float32(), rlx_ir_mul(c, tb_v(i), tb_v(n))), 1, ix));
  rlx_var_t* params[2] = {rlx_ir_var(c, "a", rlx_dt_handle()), n};
  rlx_tir_buffer_t* bm[2] = {A, NULL};
  rlx_tir_func_t* f = rlx_tir_func_create(c, "scalar_param", 2, params, bm, body);
  float a[6];
  int64_t nv = 5;
  int32_t nv32 = 5;
  tensor_t ta, tn;
  int64_t s5[1] = {5}, s6[1] = {6};
  DLDataType i64 = {kDLInt, 64, 1}, i32 = {kDLInt, 32, 1};
  tensor_init(&ta, a, dl_f32(), 1, s5);
  tensor_init(&tn, &nv, i64, 0, NULL);
  DLTensor* args[2] = {&ta.t, &tn.t};
  CHECK_OK(rlx_tir_interpret(f, args, 2));
  CHECK(a[0] == 0 && a[1] == 5 && a[4] == 20);
  tensor_init(&tn, &nv32, i32, 0, NULL); /* any integer type converts */
  CHECK_OK(rlx_tir_interpret(f, args, 2));
  tensor_init(&ta, a, dl_f32(), 1, s6);
  CHECK_ERR(rlx_tir_interpret(f, args, 2), "parameter 'a' (buffer 'A'): expected shape[0] = 5, got 6");
  tensor_init(&tn, a, dl_f32(), 0, NULL);
  CHECK_ERR(rlx_tir_interpret(f, args, 2), "scalar parameter 'n': expected a int64 value, got a float32 tensor");
  /* a buffer with a symbolic elem_offset: bound from the tensor's byte_offset */
  rlx_var_t* off = rlx_ir_var(c, "off", rlx_dt_int64());
  rlx_expr_t* s4[1] = {tb_i(c, 4)};
  rlx_tir_buffer_t* X = rlx_tir_buffer_create(c, "X", rlx_dt_float32(), 1, s4, NULL);
  rlx_tir_buffer_t* Y = rlx_tir_buffer_create(c, "Y", rlx_dt_float32(), 1, s4, NULL);
  X->elem_offset = tb_v(off);
  rlx_tir_stmt_t* cp = rlx_tir_for(c, i, tb_i(c, 0), tb_i(c, 4), RLX_FOR_SERIAL, rlx_tir_store(c, Y, rlx_ir_load(c, X, 1, ix), 1, ix));
  rlx_var_t* p2[2] = {rlx_ir_var(c, "x", rlx_dt_handle()), rlx_ir_var(c, "y", rlx_dt_handle())};
  rlx_tir_buffer_t* bm2[2] = {X, Y};
  rlx_tir_func_t* g = rlx_tir_func_create(c, "offset", 2, p2, bm2, cp);
  float xs[6] = {10, 11, 12, 13, 14, 15}, ys[4] = {0};
  tensor_t tx, ty;
  int64_t s4v[1] = {4};
  tensor_init(&tx, xs, dl_f32(), 1, s4v);
  tx.t.byte_offset = 2 * sizeof(float);
  tensor_init(&ty, ys, dl_f32(), 1, s4v);
  DLTensor* args2[2] = {&tx.t, &ty.t};
  CHECK_OK(rlx_tir_interpret(g, args2, 2));
  CHECK(ys[0] == 12 && ys[3] == 15);
  rlx_ctx_free(c);
}

int main(void) {
  test_matmul();
  test_vector_add_symbolic();
  test_lowered();
  test_dtypes_intrinsics();
  test_control_and_errors();
  test_vector_ops();
  test_scalar_param();
  TEST_MAIN_END();
}
