/* topi nn directly (without Relax): the errors each builder reports for bad shapes, pad,
 * matmul with out_dtype (int8 x int8 → int32) and a symbolic-spatial conv2d, run through
 * create_prim_func and the TIR interpreter against plain C loops. */
#include <stdlib.h>

#include "test.h"
#include "tir/interp.h"
#include "topi/nn.h"

static rlx_ctx_t* C;

static rlx_te_tensor_t* ph(const char* name, int ndim, const int64_t* dims, rlx_dtype_t dt) {
  rlx_expr_t* s[8];
  for (int i = 0; i < ndim; i++) s[i] = rlx_ir_i64(C, dims[i]);
  return rlx_te_placeholder(C, ndim, s, dt, name);
}

static DLTensor dl(void* data, int ndim, int64_t* shape, uint8_t code, uint8_t bits) {
  DLTensor t;
  memset(&t, 0, sizeof(t));
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = ndim;
  t.dtype.code = code;
  t.dtype.bits = bits;
  t.dtype.lanes = 1;
  t.shape = shape;
  return t;
}

/* Checks that the builder (called with `out` as its output) returned an error containing
 * needle and left the output alone. */
#define CHECK_TOPI_ERR(call, needle)                                                                          \
  do {                                                                                                        \
    rlx_te_tensor_t* t_ = NULL;                                                                               \
    rlx_te_tensor_t** out = &t_;                                                                              \
    rlx_status_t* st = (call);                                                                                \
    CHECK_MSG(!t_ && st && strstr(rlx_status_message(st), (needle)), "expected error '%s', got %s", (needle), \
              st ? rlx_status_message(st) : "no error");                                                      \
    rlx_status_free(st);                                                                                      \
  } while (0)

static void test_errors(void) {
  rlx_dtype_t f32 = rlx_dt_float32();
  int64_t s23[2] = {2, 3}, s45[2] = {4, 5}, s234[3] = {2, 3, 4}, s542[3] = {5, 4, 2}, s3[1] = {3}, s4[1] = {4};
  int64_t x4[4] = {1, 4, 8, 8}, w3[4] = {6, 3, 3, 3};
  rlx_te_tensor_t *a = ph("a", 2, s23, f32), *b = ph("b", 2, s45, f32);
  CHECK_TOPI_ERR(rlx_topi_matmul(C, a, b, rlx_dt_float32(), out),
                 "matmul: contraction dims differ: 3 vs 4 (shapes (2, 3) and (4, 5))");
  CHECK_TOPI_ERR(rlx_topi_matmul(C, ph("a", 3, s234, f32), ph("b", 3, s542, f32), f32, out),
                 "matmul: batch dims cannot broadcast: 2 vs 5");
  CHECK_TOPI_ERR(rlx_topi_matmul(C, a, ph("b", 2, s45, rlx_dt_int32()), rlx_dtype(RLX_DT_HANDLE, 0, 1), out),
                 "matmul: operand dtypes differ: float32 vs int32");
  CHECK_TOPI_ERR(rlx_topi_nn_dense(C, a, ph("w", 1, s3, f32), NULL, f32, out),
                 "nn.dense: data must have rank >= 1 and weight rank 2");
  CHECK_TOPI_ERR(rlx_topi_nn_dense(C, a, ph("w", 2, s23, f32), ph("bias", 1, s4, f32), f32, out),
                 "nn.dense: bias (4,) does not broadcast to the output (2, 2)");
  CHECK_TOPI_ERR(rlx_topi_nn_softmax(C, a, 2, out), "nn.softmax: axis 2 is out of range for shape (2, 3)");
  CHECK_TOPI_ERR(rlx_topi_nn_log_softmax(C, ph("i", 2, s23, rlx_dt_int32()), -1, out),
                 "nn.log_softmax: input dtype must be float");
  CHECK_TOPI_ERR(rlx_topi_nn_layer_norm(C, a, NULL, NULL, 2, (int[]){1, -1}, 1e-5, out),
                 "nn.layer_norm: axis -1 is out of range or repeated");
  CHECK_TOPI_ERR(rlx_topi_nn_layer_norm(C, a, ph("g", 1, s4, f32), NULL, 1, (int[]){1}, 1e-5, out),
                 "nn.layer_norm: gamma (4,) / beta None must have the normalized dims of (2, 3)");
  CHECK_TOPI_ERR(rlx_topi_nn_batch_norm(C, a, NULL, NULL, ph("m", 1, s4, f32), ph("v", 1, s3, f32), 1, 1e-5, out),
                 "nn.batch_norm: parameter (4,) must be 1-D of extent 3");
  CHECK_TOPI_ERR(rlx_topi_nn_rms_norm(C, ph("i", 2, s23, rlx_dt_int32()), NULL, 1, (int[]){-1}, 1e-5, out),
                 "nn.rms_norm: input dtype must be float, got int32");
  CHECK_TOPI_ERR(rlx_topi_nn_group_norm(C, ph("x", 3, s234, f32), NULL, NULL, 3, 1, 1, (int[]){1}, 1e-5, out),
                 "nn.group_norm: axis 1 is out of range, repeated or the channel axis");
  CHECK_TOPI_ERR(rlx_topi_nn_group_norm(C, ph("x", 3, s234, f32), NULL, NULL, 2, 1, 1, (int[]){2}, 1e-5, out),
                 "nn.group_norm: 3 channels are not divisible into 2 groups");
  int64_t st1[2] = {1, 1}, pad0[4] = {0, 0, 0, 0}, k3[2] = {3, 3};
  CHECK_TOPI_ERR(rlx_topi_nn_conv2d_nchw(C, ph("x", 4, x4, f32), ph("w", 4, w3, f32), st1, pad0, st1, 1, f32, out),
                 "nn.conv2d: data channels 4 != kernel in-channels 3 * groups 1");
  CHECK_TOPI_ERR(rlx_topi_nn_conv2d_nchw(C, a, ph("w", 4, w3, f32), st1, pad0, st1, 1, f32, out),
                 "nn.conv2d: data and kernel must be 4-D (NCHW, OIHW), got (2, 3) and (6, 3, 3, 3)");
  CHECK_TOPI_ERR(rlx_topi_nn_pool2d(C, ph("x", 3, s234, f32), RLX_TOPI_POOL_MAX, k3, st1, st1, pad0, false, false, out),
                 "nn.max_pool2d: input must be 4-D (NCHW), got (2, 3, 4)");
  int64_t x22[4] = {1, 1, 2, 2};
  CHECK_TOPI_ERR(rlx_topi_nn_pool2d(C, ph("x", 4, x22, f32), RLX_TOPI_POOL_AVG, k3, st1, st1, pad0, false, false, out),
                 "nn.avg_pool2d: window larger than the padded input (1, 1, 2, 2)");
  rlx_expr_t* sym[4] = {rlx_ir_i64(C, 1), rlx_ir_i64(C, 2), &rlx_ir_var(C, "h", rlx_dt_int64())->hdr, rlx_ir_i64(C, 4)};
  CHECK_TOPI_ERR(rlx_topi_nn_adaptive_pool2d(C, rlx_te_placeholder(C, 4, sym, f32, "x"), RLX_TOPI_POOL_AVG, 2, 2, out),
                 "nn.adaptive_avg_pool2d: a symbolic input size (1, 2, h, 4) needs output size 1");
}

/* pad returns its input when nothing is padded; otherwise x framed by the value. */
static void test_pad(void) {
  int64_t s[2] = {2, 3};
  rlx_te_tensor_t* x = ph("x", 2, s, rlx_dt_float32());
  int64_t z[2] = {0, 0}, before[2] = {1, 0}, after[2] = {0, 2};
  CHECK(rlx_topi_nn_pad(C, x, z, z, rlx_ir_float(C, rlx_dt_float32(), 0), NULL) == x);
  rlx_te_tensor_t* p = rlx_topi_nn_pad(C, x, before, after, rlx_ir_float(C, rlx_dt_float32(), 7.5), NULL);
  CHECK(p && strcmp(p->name, "pad_temp") == 0);
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(C, 2, (rlx_te_tensor_t*[]){x, p}, "pad", &f));
  if (!f) return;
  float xd[6] = {1, 2, 3, 4, 5, 6}, out[15];
  int64_t so[2] = {3, 5};
  DLTensor tx = dl(xd, 2, s, kDLFloat, 32), to = dl(out, 2, so, kDLFloat, 32);
  CHECK_OK(rlx_tir_interpret(f, (DLTensor*[]){&tx, &to}, 2));
  float want[15] = {7.5, 7.5, 7.5, 7.5, 7.5, 1, 2, 3, 7.5, 7.5, 4, 5, 6, 7.5, 7.5};
  CHECK(memcmp(out, want, sizeof(want)) == 0);
}

/* int8 x int8 with out_dtype int32: products accumulate in int32 (no int8 overflow). */
static void test_matmul_out_dtype(void) {
  int64_t sa[2] = {3, 5}, sb[2] = {5, 4}, sc[2] = {3, 4};
  rlx_dtype_t i8 = rlx_dtype(RLX_DT_INT, 8, 1);
  rlx_te_tensor_t *a = ph("A", 2, sa, i8), *b = ph("B", 2, sb, i8);
  rlx_te_tensor_t* c = NULL;
  CHECK_OK(rlx_topi_matmul(C, a, b, rlx_dt_int32(), &c));
  if (!c) return;
  CHECK(rlx_dtype_eq(c->buffer->dtype, rlx_dt_int32()));
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(C, 3, (rlx_te_tensor_t*[]){a, b, c}, "mm", &f));
  if (!f) return;
  int8_t ad[15], bd[20];
  int32_t cd[12];
  for (int i = 0; i < 15; i++) ad[i] = (int8_t)(100 - 13 * i);
  for (int i = 0; i < 20; i++) bd[i] = (int8_t)(-90 + 11 * i);
  DLTensor ta = dl(ad, 2, sa, kDLInt, 8), tb = dl(bd, 2, sb, kDLInt, 8), tc = dl(cd, 2, sc, kDLInt, 32);
  CHECK_OK(rlx_tir_interpret(f, (DLTensor*[]){&ta, &tb, &tc}, 3));
  int bad = 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) {
      int32_t s = 0;
      for (int k = 0; k < 5; k++) s += (int32_t)ad[i * 5 + k] * bd[k * 4 + j];
      bad += s != cd[i * 4 + j];
    }
  CHECK_MSG(bad == 0, "%d of 12 int32 results differ (exact match expected)", bad);
}

/* conv2d over symbolic H and W: output (H + 2 - 3) // 2 + 1 evaluated at run time. */
static void test_conv_symbolic_spatial(void) {
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_expr_t* xs[4] = {rlx_ir_i64(C, 1), rlx_ir_i64(C, 2), &rlx_ir_var(C, "h", rlx_dt_int64())->hdr,
                       &rlx_ir_var(C, "w", rlx_dt_int64())->hdr};
  int64_t ws[4] = {3, 2, 3, 3}, st2[2] = {2, 2}, d1[2] = {1, 1}, pad[4] = {1, 1, 1, 1};
  rlx_te_tensor_t* x = rlx_te_placeholder(C, 4, xs, f32, "x");
  rlx_te_tensor_t* w = ph("w", 4, ws, f32);
  rlx_te_tensor_t* y = NULL;
  CHECK_OK(rlx_topi_nn_conv2d_nchw(C, x, w, st2, pad, d1, 1, f32, &y));
  if (!y) return;
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(C, 3, (rlx_te_tensor_t*[]){x, w, y}, "conv", &f));
  if (!f) return;
  int64_t H = 7, W = 6, OH = 4, OW = 3;
  int64_t sx[4] = {1, 2, H, W}, sy[4] = {1, 3, OH, OW};
  float xd[84], wd[54], yd[36];
  for (int i = 0; i < 84; i++) xd[i] = (float)((i * 37) % 19) / 10.0f - 0.9f;
  for (int i = 0; i < 54; i++) wd[i] = (float)((i * 11) % 7) / 5.0f - 0.6f;
  DLTensor tx = dl(xd, 4, sx, kDLFloat, 32), tw = dl(wd, 4, ws, kDLFloat, 32), ty = dl(yd, 4, sy, kDLFloat, 32);
  CHECK_OK(rlx_tir_interpret(f, (DLTensor*[]){&tx, &tw, &ty}, 3));
  double err = 0;
  for (int o = 0; o < 3; o++)
    for (int64_t i = 0; i < OH; i++)
      for (int64_t j = 0; j < OW; j++) {
        double s = 0;
        for (int c = 0; c < 2; c++)
          for (int ry = 0; ry < 3; ry++)
            for (int rx = 0; rx < 3; rx++) {
              int64_t iy = i * 2 - 1 + ry, ix = j * 2 - 1 + rx;
              if (iy >= 0 && iy < H && ix >= 0 && ix < W) s += (double)xd[(c * H + iy) * W + ix] * wd[((o * 2 + c) * 3 + ry) * 3 + rx];
            }
        err = fmax(err, fabs(s - yd[(o * OH + i) * OW + j]));
      }
  CHECK_MSG(err < 1e-5, "symbolic conv2d h=7 w=6: max abs error %.3g (tolerance 1e-5)", err);
}

/* Builders accept int32 shapes too (as TE placeholders written by hand often have): the
 * result equals the int64-shaped one exactly. */
typedef rlx_status_t* (*build_fn)(rlx_te_tensor_t* const* in, rlx_te_tensor_t** out);

static rlx_status_t* b_conv(rlx_te_tensor_t* const* in, rlx_te_tensor_t** out) {
  int64_t s[2] = {2, 1}, pad[4] = {1, 0, 2, 1}, d[2] = {1, 2};
  return rlx_topi_nn_conv2d_nchw(C, in[0], in[1], s, pad, d, 2, rlx_dt_float32(), out);
}
static rlx_status_t* b_convt(rlx_te_tensor_t* const* in, rlx_te_tensor_t** out) {
  int64_t s[2] = {2, 2}, pad[4] = {1, 1, 0, 0}, op[2] = {1, 0}, d[2] = {1, 1};
  return rlx_topi_nn_conv_transpose(C, in[0], in[2], 2, s, pad, op, d, 1, rlx_dt_float32(), out);
}
static rlx_status_t* b_avg(rlx_te_tensor_t* const* in, rlx_te_tensor_t** out) {
  int64_t k[2] = {3, 3}, s[2] = {2, 2}, d[2] = {1, 1}, pad[4] = {1, 1, 1, 1};
  return rlx_topi_nn_pool2d(C, in[0], RLX_TOPI_POOL_AVG, k, s, d, pad, true, true, out);
}
static rlx_status_t* b_adaptive(rlx_te_tensor_t* const* in, rlx_te_tensor_t** out) {
  return rlx_topi_nn_adaptive_pool2d(C, in[0], RLX_TOPI_POOL_AVG, 3, 2, out);
}
static rlx_status_t* b_attn(rlx_te_tensor_t* const* in, rlx_te_tensor_t** out) {
  return rlx_topi_nn_attention(C, in[3], in[3], in[3], NULL, 0.5, "TopLeft", out);
}
static rlx_status_t* b_gn(rlx_te_tensor_t* const* in, rlx_te_tensor_t** out) {
  return rlx_topi_nn_group_norm(C, in[0], NULL, NULL, 2, 1, 2, (int[]){2, 3}, 1e-5, out);
}

static void test_int32_shapes(void) {
  rlx_dtype_t f32 = rlx_dt_float32();
  int64_t xs[4] = {1, 4, 7, 6}, ws[4] = {6, 2, 3, 3}, ts[4] = {4, 3, 2, 2}, qs[4] = {1, 5, 2, 3};
  const int64_t* shapes[4] = {xs, ws, ts, qs};
  build_fn fns[6] = {b_conv, b_convt, b_avg, b_adaptive, b_attn, b_gn};
  const char* names[6] = {"conv2d", "conv2d_transpose", "avg_pool2d", "adaptive_avg_pool2d", "attention", "group_norm"};
  float data[4][168];
  for (int t = 0; t < 4; t++)
    for (int i = 0; i < 168; i++) data[t][i] = (float)(((i + 7 * t) * 37) % 23) / 11.0f - 1.0f;
  for (int f = 0; f < 6; f++) {
    float* out[2] = {NULL, NULL};
    int64_t osh[2][4];
    int64_t n_out = 0;
    for (int w = 0; w < 2; w++) {
      rlx_te_tensor_t* in[4];
      for (int t = 0; t < 4; t++) {
        rlx_expr_t* sh[4];
        for (int d = 0; d < 4; d++) sh[d] = w ? rlx_ir_i64(C, shapes[t][d]) : rlx_ir_i32(C, shapes[t][d]);
        in[t] = rlx_te_placeholder(C, 4, sh, f32, rlx_ctx_sprintf(C, "in%d", t));
      }
      rlx_te_tensor_t* o = NULL;
      rlx_status_t* st = fns[f](in, &o);
      CHECK_MSG(o && !st, "%s (int%d shapes): %s", names[f], w ? 64 : 32, st ? rlx_status_message(st) : "no tensor");
      rlx_status_free(st);
      if (!o) continue;
      rlx_tir_func_t* fn = NULL;
      rlx_te_tensor_t* args[5] = {in[0], in[1], in[2], in[3], o};
      CHECK_OK(rlx_te_create_prim_func(C, 5, args, names[f], &fn));
      if (!fn) continue;
      n_out = 1;
      for (int d = 0; d < 4; d++) {
        int64_t v = 0;
        rlx_expr_is_const_int(o->buffer->shape[d], &v);
        osh[w][d] = v;
        n_out *= v;
      }
      out[w] = calloc((size_t)n_out, sizeof(float));
      DLTensor t[5];
      int64_t sh64[4][4];
      for (int i = 0; i < 4; i++) {
        memcpy(sh64[i], shapes[i], sizeof sh64[i]);
        t[i] = dl(data[i], 4, sh64[i], kDLFloat, 32);
      }
      t[4] = dl(out[w], 4, osh[w], kDLFloat, 32);
      CHECK_OK(rlx_tir_interpret(fn, (DLTensor*[]){&t[0], &t[1], &t[2], &t[3], &t[4]}, 5));
    }
    if (out[0] && out[1])
      CHECK_MSG(memcmp(osh[0], osh[1], sizeof osh[0]) == 0 && memcmp(out[0], out[1], sizeof(float) * (size_t)n_out) == 0,
                "%s: int32- and int64-shaped results differ", names[f]);
    free(out[0]);
    free(out[1]);
  }
}

/* softmax / log_softmax of a 1-D tensor: the reductions have rank 0. */
static void test_softmax_vector(void) {
  int64_t s5[1] = {5};
  for (int lg = 0; lg < 2; lg++) {
    rlx_te_tensor_t* x = ph("x", 1, s5, rlx_dt_float32());
    rlx_te_tensor_t* y = NULL;
    CHECK_OK(lg ? rlx_topi_nn_log_softmax(C, x, 0, &y) : rlx_topi_nn_softmax(C, x, -1, &y));
    rlx_tir_func_t* f = NULL;
    if (y) CHECK_OK(rlx_te_create_prim_func(C, 2, (rlx_te_tensor_t*[]){x, y}, "sm", &f));
    if (!f) continue;
    float xd[5] = {1, -2, 3.5f, 0, 2}, yd[5];
    DLTensor tx = dl(xd, 1, s5, kDLFloat, 32), ty = dl(yd, 1, s5, kDLFloat, 32);
    CHECK_OK(rlx_tir_interpret(f, (DLTensor*[]){&tx, &ty}, 2));
    double sum = 0, err = 0;
    for (int i = 0; i < 5; i++) sum += exp(xd[i] - 3.5);
    for (int i = 0; i < 5; i++) {
      double want = lg ? xd[i] - 3.5 - log(sum) : exp(xd[i] - 3.5) / sum;
      err = fmax(err, fabs(want - yd[i]));
    }
    CHECK_MSG(err < 1e-6, "%s of a vector: max abs error %.3g (tolerance 1e-6)", lg ? "log_softmax" : "softmax", err);
  }
}

int main(void) {
  C = rlx_ctx_create();
  test_errors();
  test_pad();
  test_matmul_out_dtype();
  test_conv_symbolic_spatial();
  test_int32_shapes();
  test_softmax_vector();
  rlx_ctx_free(C);
  TEST_MAIN_END();
}
