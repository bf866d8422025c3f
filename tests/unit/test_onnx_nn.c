/* ONNX "nn" converters end to end: models written as protobuf bytes (test_onnx_nn_util.h) →
 * rlx_onnx_import_bytes → rlx_vm_compile → VM, against plain C references (double
 * accumulation; tolerance rtol 1e-4, atol 1e-5): Conv (groups, strides, dilations,
 * asymmetric pads, auto_pad SAME_LOWER, 1-D, bias), Gemm (transA, transB, alpha, beta,
 * broadcast C; opset 6 with the legacy broadcast attribute), MatMul (1-D operand, batch
 * broadcasting), BatchNormalization, LayerNormalization with its Mean / InvStdDev outputs,
 * MaxPool with ceil_mode (the dropped last window) and Indices, AveragePool (SAME_UPPER,
 * count_include_pad, ceil_mode), the global pools (float and uint8), GroupNormalization,
 * LpPool, LRN, MeanVarianceNormalization, LpNormalization, MaxUnpool, RoiAlign; and the
 * errors for bad or unsupported nodes. */
#include "test_onnx_nn_util.h"

#define RT 1e-4
#define AT 1e-5

/* 2-D convolution NCHW / OIHW, pads (top, left, bottom, right); 1-D is H = 1. */
static void conv_ref(const float* x, int64_t N, int64_t C, int64_t H, int64_t W, const float* w, int64_t O, int64_t KH,
                     int64_t KW, int64_t G, const int64_t s[2], const int64_t d[2], const int64_t p[4], const float* b,
                     int64_t OH, int64_t OW, double* out) {
  int64_t cg = C / G, og = O / G;
  for (int64_t n = 0; n < N; n++)
    for (int64_t o = 0; o < O; o++)
      for (int64_t oh = 0; oh < OH; oh++)
        for (int64_t ow = 0; ow < OW; ow++) {
          double acc = b ? b[o] : 0;
          int64_t g = o / og;
          for (int64_t c = 0; c < cg; c++)
            for (int64_t kh = 0; kh < KH; kh++)
              for (int64_t kw = 0; kw < KW; kw++) {
                int64_t h = oh * s[0] - p[0] + kh * d[0], ww = ow * s[1] - p[1] + kw * d[1];
                if (h < 0 || h >= H || ww < 0 || ww >= W) continue;
                acc += (double)x[((n * C + g * cg + c) * H + h) * W + ww] * w[((o * cg + c) * KH + kh) * KW + kw];
              }
          out[((n * O + o) * OH + oh) * OW + ow] = acc;
        }
}

static void test_conv(void) {
  pb_t g = {0};
  int64_t sx[4] = {1, 4, 7, 6}, sw1[4] = {6, 2, 3, 3}, sb1[1] = {6}, sw2[4] = {3, 4, 2, 2};
  int64_t sx1[3] = {2, 3, 9}, sw3[3] = {4, 3, 3};
  float w1[108], b1[6], w2[48], w3[36];
  fill(w1, 108, 11);
  fill(b1, 6, 12);
  fill(w2, 48, 13);
  fill(w3, 36, 14);
  value_info(&g, 11, "x", 4, sx);
  value_info(&g, 11, "x1", 3, sx1);
  initializer(&g, "w1", 4, sw1, w1);
  initializer(&g, "b1", 1, sb1, b1);
  initializer(&g, "w2", 4, sw2, w2);
  initializer(&g, "w3", 3, sw3, w3);
  pb_t n = node_begin("Conv", "c1", "x w1 b1", "y1");
  attr_int(&n, "group", 2);
  attr_ints(&n, "strides", 2, (int64_t[]){2, 1});
  attr_ints(&n, "dilations", 2, (int64_t[]){1, 2});
  attr_ints(&n, "pads", 4, (int64_t[]){1, 0, 2, 1});
  pb_msg(&g, 1, &n);
  n = node_begin("Conv", "c2", "x w2", "y2");
  attr_str(&n, "auto_pad", "SAME_LOWER");
  attr_ints(&n, "kernel_shape", 2, (int64_t[]){2, 2});
  attr_ints(&n, "strides", 2, (int64_t[]){2, 2});
  pb_msg(&g, 1, &n);
  n = node_begin("Conv", "c3", "x1 w3", "y3");
  attr_ints(&n, "pads", 2, (int64_t[]){2, 1});
  attr_ints(&n, "strides", 1, (int64_t[]){2});
  pb_msg(&g, 1, &n);
  int64_t sy1[4] = {1, 6, 4, 3}, sy2[4] = {1, 3, 4, 3}, sy3[3] = {2, 4, 5};
  value_info(&g, 12, "y1", 4, sy1);
  value_info(&g, 12, "y2", 4, sy2);
  value_info(&g, 12, "y3", 3, sy3);
  pb_t m = model(&g, 11);
  rlx_ndarray_t* in[2] = {tensor(4, sx, 1), tensor(3, sx1, 2)};
  rlx_ndarray_t** outs = run_model(&m, "conv.onnx", 2, in, 3);
  if (outs) {
    double r1[72], r2[36], r3[40];
    conv_ref(in[0]->dl.data, 1, 4, 7, 6, w1, 6, 3, 3, 2, (int64_t[]){2, 1}, (int64_t[]){1, 2}, (int64_t[]){1, 0, 2, 1},
             b1, 4, 3, r1);
    /* SAME_LOWER, in 7 stride 2 kernel 2: out 4, total pad 1 at the top; width 6: no pad */
    conv_ref(in[0]->dl.data, 1, 4, 7, 6, w2, 3, 2, 2, 1, (int64_t[]){2, 2}, (int64_t[]){1, 1}, (int64_t[]){1, 0, 0, 0},
             NULL, 4, 3, r2);
    conv_ref(in[1]->dl.data, 2, 3, 1, 9, w3, 4, 1, 3, 1, (int64_t[]){1, 2}, (int64_t[]){1, 1}, (int64_t[]){0, 2, 0, 1},
             NULL, 1, 5, r3);
    check_close("Conv group/stride/dilation/pads", outs[0], 4, sy1, r1, RT, AT);
    check_close("Conv auto_pad SAME_LOWER", outs[1], 4, sy2, r2, RT, AT);
    check_close("Conv 1-D", outs[2], 3, sy3, r3, RT, AT);
    for (int i = 0; i < 3; i++) rlx_ndarray_release(outs[i]);
    free(outs);
  }
  for (int i = 0; i < 2; i++) rlx_ndarray_release(in[i]);
}

static void test_gemm_matmul(void) {
  pb_t g = {0};
  int64_t sa[2] = {4, 3}, sb[2] = {5, 4}, sc[1] = {5}, sv[1] = {3}, sm[3] = {2, 3, 4}, sp[4] = {2, 1, 3, 4},
          sq[3] = {5, 4, 2};
  float b[20], c[5], mm[24], q[40];
  fill(b, 20, 21);
  fill(c, 5, 22);
  fill(mm, 24, 23);
  fill(q, 40, 24);
  value_info(&g, 11, "a", 2, sa);
  value_info(&g, 11, "v", 1, sv);
  value_info(&g, 11, "p", 4, sp);
  initializer(&g, "b", 2, sb, b);
  initializer(&g, "c", 1, sc, c);
  initializer(&g, "m", 3, sm, mm);
  initializer(&g, "q", 3, sq, q);
  pb_t n = node_begin("Gemm", "g1", "a b c", "y1");
  attr_int(&n, "transA", 1);
  attr_int(&n, "transB", 1);
  attr_float(&n, "alpha", 0.5f);
  attr_float(&n, "beta", 2.0f);
  pb_msg(&g, 1, &n);
  n = node_begin("MatMul", "m1", "v m", "y2");
  pb_msg(&g, 1, &n);
  n = node_begin("MatMul", "m2", "p q", "y3");
  pb_msg(&g, 1, &n);
  int64_t sy1[2] = {3, 5}, sy2[2] = {2, 4}, sy3[4] = {2, 5, 3, 2};
  value_info(&g, 12, "y1", 2, sy1);
  value_info(&g, 12, "y2", 2, sy2);
  value_info(&g, 12, "y3", 4, sy3);
  pb_t m = model(&g, 13);
  rlx_ndarray_t* in[3] = {tensor(2, sa, 3), tensor(1, sv, 4), tensor(4, sp, 5)};
  rlx_ndarray_t** outs = run_model(&m, "gemm.onnx", 3, in, 3);
  if (outs) {
    const float *a = in[0]->dl.data, *v = in[1]->dl.data, *p = in[2]->dl.data;
    double r1[15], r2[8], r3[60];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 5; j++) {
        double acc = 0;
        for (int k = 0; k < 4; k++) acc += (double)a[k * 3 + i] * b[j * 4 + k];
        r1[i * 5 + j] = 0.5 * acc + 2.0 * c[j];
      }
    for (int bt = 0; bt < 2; bt++)
      for (int j = 0; j < 4; j++) {
        double acc = 0;
        for (int k = 0; k < 3; k++) acc += (double)v[k] * mm[(bt * 3 + k) * 4 + j];
        r2[bt * 4 + j] = acc;
      }
    for (int i0 = 0; i0 < 2; i0++)
      for (int i1 = 0; i1 < 5; i1++)
        for (int r = 0; r < 3; r++)
          for (int s = 0; s < 2; s++) {
            double acc = 0;
            for (int k = 0; k < 4; k++) acc += (double)p[(i0 * 3 + r) * 4 + k] * q[(i1 * 4 + k) * 2 + s];
            r3[((i0 * 5 + i1) * 3 + r) * 2 + s] = acc;
          }
    check_close("Gemm transA transB alpha beta", outs[0], 2, sy1, r1, RT, AT);
    check_close("MatMul 1-D x batched", outs[1], 2, sy2, r2, RT, AT);
    check_close("MatMul batch broadcast", outs[2], 4, sy3, r3, RT, AT);
    for (int i = 0; i < 3; i++) rlx_ndarray_release(outs[i]);
    free(outs);
  }
  for (int i = 0; i < 3; i++) rlx_ndarray_release(in[i]);
}

/* Opset 6: Gemm with the legacy broadcast attribute and a 1-element C. */
static void test_gemm_opset6(void) {
  pb_t g = {0};
  int64_t sa[2] = {2, 3}, sb[2] = {3, 4}, sc[1] = {1};
  float b[12], c[1] = {0.75f};
  fill(b, 12, 31);
  value_info(&g, 11, "a", 2, sa);
  initializer(&g, "b", 2, sb, b);
  initializer(&g, "c", 1, sc, c);
  pb_t n = node_begin("Gemm", "g6", "a b c", "y");
  attr_int(&n, "broadcast", 1);
  attr_float(&n, "beta", 0.5f);
  pb_msg(&g, 1, &n);
  int64_t sy[2] = {2, 4};
  value_info(&g, 12, "y", 2, sy);
  pb_t m = model(&g, 6);
  rlx_ndarray_t* in[1] = {tensor(2, sa, 6)};
  rlx_ndarray_t** outs = run_model(&m, "gemm6.onnx", 1, in, 1);
  if (outs) {
    const float* a = in[0]->dl.data;
    double r[8];
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 4; j++) {
        double acc = 0;
        for (int k = 0; k < 3; k++) acc += (double)a[i * 3 + k] * b[k * 4 + j];
        r[i * 4 + j] = acc + 0.5 * 0.75;
      }
    check_close("Gemm opset 6 broadcast", outs[0], 2, sy, r, RT, AT);
    rlx_ndarray_release(outs[0]);
    free(outs);
  }
  rlx_ndarray_release(in[0]);
}

static void test_norms(void) {
  pb_t g = {0};
  int64_t sx[3] = {2, 3, 4}, s3[1] = {3}, s34[2] = {3, 4};
  float sc[3], bi[3], mean[3], var[3], lw[12], lb[12];
  fill(sc, 3, 41);
  fill(bi, 3, 42);
  fill(mean, 3, 43);
  fill(var, 3, 44);
  for (int i = 0; i < 3; i++) var[i] = fabsf(var[i]) + 0.25f;
  fill(lw, 12, 45);
  fill(lb, 12, 46);
  value_info(&g, 11, "x", 3, sx);
  initializer(&g, "s", 1, s3, sc);
  initializer(&g, "bi", 1, s3, bi);
  initializer(&g, "mean", 1, s3, mean);
  initializer(&g, "var", 1, s3, var);
  initializer(&g, "lw", 2, s34, lw);
  initializer(&g, "lb", 2, s34, lb);
  pb_t n = node_begin("BatchNormalization", "bn", "x s bi mean var", "y1");
  attr_float(&n, "epsilon", 1e-3f);
  pb_msg(&g, 1, &n);
  n = node_begin("LayerNormalization", "ln", "x lw lb", "y2 m2 r2");
  attr_int(&n, "axis", -2);
  attr_float(&n, "epsilon", 1e-2f);
  pb_msg(&g, 1, &n);
  int64_t sm[3] = {2, 1, 1};
  value_info(&g, 12, "y1", 3, sx);
  value_info(&g, 12, "y2", 3, sx);
  value_info(&g, 12, "m2", 3, sm);
  value_info(&g, 12, "r2", 3, sm);
  pb_t m = model(&g, 17);
  rlx_ndarray_t* in[1] = {tensor(3, sx, 7)};
  rlx_ndarray_t** outs = run_model(&m, "norms.onnx", 1, in, 4);
  if (outs) {
    const float* x = in[0]->dl.data;
    double r1[24], r2[24], rm[2], rr[2];
    for (int i = 0; i < 24; i++) {
      int c = (i / 4) % 3;
      r1[i] = (x[i] - mean[c]) / sqrt((double)var[c] + (double)1e-3f) * sc[c] + bi[c];
    }
    for (int b = 0; b < 2; b++) {
      double mu = 0, v = 0;
      for (int i = 0; i < 12; i++) mu += x[b * 12 + i];
      mu /= 12;
      for (int i = 0; i < 12; i++) v += (x[b * 12 + i] - mu) * (x[b * 12 + i] - mu);
      v /= 12;
      rm[b] = mu;
      rr[b] = 1 / sqrt(v + (double)1e-2f);
      for (int i = 0; i < 12; i++) r2[b * 12 + i] = (x[b * 12 + i] - mu) * rr[b] * lw[i] + lb[i];
    }
    check_close("BatchNormalization", outs[0], 3, sx, r1, RT, AT);
    check_close("LayerNormalization Y", outs[1], 3, sx, r2, RT, AT);
    check_close("LayerNormalization Mean", outs[2], 3, sm, rm, RT, AT);
    check_close("LayerNormalization InvStdDev", outs[3], 3, sm, rr, RT, AT);
    for (int i = 0; i < 4; i++) rlx_ndarray_release(outs[i]);
    free(outs);
  }
  rlx_ndarray_release(in[0]);
}

/* Max or average over the window rows [oh*s - pt, + k) clipped to the input; avg divides by
 * the valid count, or with count_pad by the positions inside [-pt, H + pb). */
static void pool_ref(bool is_max, const float* x, int64_t NC, int64_t H, int64_t W, const int64_t k[2],
                     const int64_t s[2], const int64_t p[4], bool count_pad, int64_t OH, int64_t OW, double* out) {
  for (int64_t nc = 0; nc < NC; nc++)
    for (int64_t oh = 0; oh < OH; oh++)
      for (int64_t ow = 0; ow < OW; ow++) {
        double acc = is_max ? -INFINITY : 0;
        int64_t cnt = 0, padded = 0;
        for (int64_t kh = 0; kh < k[0]; kh++)
          for (int64_t kw = 0; kw < k[1]; kw++) {
            int64_t h = oh * s[0] - p[0] + kh, w = ow * s[1] - p[1] + kw;
            if (h >= -p[0] && h < H + p[2] && w >= -p[1] && w < W + p[3]) padded++;
            if (h < 0 || h >= H || w < 0 || w >= W) continue;
            double v = x[(nc * H + h) * W + w];
            acc = is_max ? (v > acc ? v : acc) : acc + v;
            cnt++;
          }
        out[(nc * OH + oh) * OW + ow] = is_max ? acc : acc / (double)(count_pad ? padded : cnt);
      }
}

static void test_pools(void) {
  pb_t g = {0};
  int64_t sx[4] = {1, 2, 4, 5}, sx2[4] = {1, 2, 5, 5};
  value_info(&g, 11, "x", 4, sx);
  value_info(&g, 11, "x2", 4, sx2);
  pb_t n = node_begin("MaxPool", "mp", "x", "y1 i1");
  attr_ints(&n, "kernel_shape", 2, (int64_t[]){2, 2});
  attr_ints(&n, "strides", 2, (int64_t[]){2, 2});
  attr_ints(&n, "pads", 4, (int64_t[]){0, 0, 1, 0});
  attr_int(&n, "ceil_mode", 1);
  pb_msg(&g, 1, &n);
  n = node_begin("AveragePool", "ap1", "x2", "y2");
  attr_ints(&n, "kernel_shape", 2, (int64_t[]){3, 3});
  attr_ints(&n, "strides", 2, (int64_t[]){2, 2});
  attr_str(&n, "auto_pad", "SAME_UPPER");
  pb_msg(&g, 1, &n);
  n = node_begin("AveragePool", "ap2", "x2", "y3");
  attr_ints(&n, "kernel_shape", 2, (int64_t[]){3, 3});
  attr_ints(&n, "pads", 4, (int64_t[]){1, 1, 0, 0});
  attr_int(&n, "count_include_pad", 1);
  pb_msg(&g, 1, &n);
  n = node_begin("AveragePool", "ap3", "x2", "y6");
  attr_ints(&n, "kernel_shape", 2, (int64_t[]){2, 2});
  attr_ints(&n, "strides", 2, (int64_t[]){2, 2});
  attr_ints(&n, "pads", 4, (int64_t[]){1, 0, 1, 0});
  attr_int(&n, "ceil_mode", 1);
  attr_int(&n, "count_include_pad", 1);
  pb_msg(&g, 1, &n);
  n = node_begin("GlobalAveragePool", "gap", "x2", "y4");
  pb_msg(&g, 1, &n);
  n = node_begin("GlobalMaxPool", "gmp", "x2", "y5");
  pb_msg(&g, 1, &n);
  /* H: 4 + 1 pad, k 2, s 2 rounds up to 3 windows but the third starts in the padding
   * (dropped: 2); W: 5 rounds up to 3 and the third starts inside (kept) */
  int64_t sy1[4] = {1, 2, 2, 3}, sy2[4] = {1, 2, 3, 3}, sy3[4] = {1, 2, 4, 4}, sg[4] = {1, 2, 1, 1};
  value_info(&g, 12, "y1", 4, sy1);
  value_info(&g, 12, "y2", 4, sy2);
  value_info(&g, 12, "y3", 4, sy3);
  value_info(&g, 12, "y4", 4, sg);
  value_info(&g, 12, "y5", 4, sg);
  value_info_typed(&g, 12, "i1", 4, sy1, 7 /* INT64 */);
  /* H: 5 + 1 + 1, k 2, s 2: the fourth window starts in the end padding (dropped); W: 5 rounds
   * up to 3 (kept); the divisor counts padding but not the ceil extra (PyTorch's rule) */
  int64_t sy6[4] = {1, 2, 3, 3};
  value_info(&g, 12, "y6", 4, sy6);
  pb_t m = model(&g, 12);
  rlx_ndarray_t* in[2] = {tensor(4, sx, 8), tensor(4, sx2, 9)};
  rlx_ndarray_t** outs = run_model(&m, "pools.onnx", 2, in, 7);
  if (outs) {
    const float* x2 = in[1]->dl.data;
    double r1[12], r2[18], r3[32], r4[2], r5[2];
    pool_ref(true, in[0]->dl.data, 2, 4, 5, (int64_t[]){2, 2}, (int64_t[]){2, 2}, (int64_t[]){0, 0, 1, 0}, false, 2, 3,
             r1);
    pool_ref(false, x2, 2, 5, 5, (int64_t[]){3, 3}, (int64_t[]){2, 2}, (int64_t[]){1, 1, 1, 1}, false, 3, 3, r2);
    pool_ref(false, x2, 2, 5, 5, (int64_t[]){3, 3}, (int64_t[]){1, 1}, (int64_t[]){1, 1, 0, 0}, true, 4, 4, r3);
    for (int c = 0; c < 2; c++) {
      double s = 0, mx = -INFINITY;
      for (int i = 0; i < 25; i++) {
        s += x2[c * 25 + i];
        if (x2[c * 25 + i] > mx) mx = x2[c * 25 + i];
      }
      r4[c] = s / 25;
      r5[c] = mx;
    }
    check_close("MaxPool ceil_mode", outs[0], 4, sy1, r1, RT, AT);
    check_close("AveragePool SAME_UPPER", outs[1], 4, sy2, r2, RT, AT);
    check_close("AveragePool count_include_pad", outs[2], 4, sy3, r3, RT, AT);
    check_close("GlobalAveragePool", outs[3], 4, sg, r4, RT, AT);
    check_close("GlobalMaxPool", outs[4], 4, sg, r5, RT, AT);
    /* Indices: the flat index of the max (the data has no ties) */
    const float* x = in[0]->dl.data;
    int64_t ok = 0;
    bool typed = outs[5]->dl.dtype.code == kDLInt && outs[5]->dl.dtype.bits == 64 && outs[5]->dl.ndim == 4;
    for (int64_t i = 0; typed && i < 12; i++) {
      int64_t k = ((const int64_t*)outs[5]->dl.data)[i];
      ok += k >= 0 && k < 40 && x[k] == (float)r1[i] && k / 20 == i / 6;
    }
    CHECK_MSG(typed && ok == 12, "MaxPool Indices: %lld of 12 right", (long long)ok);
    double r6[18];
    pool_ref(false, x2, 2, 5, 5, (int64_t[]){2, 2}, (int64_t[]){2, 2}, (int64_t[]){1, 0, 1, 0}, true, 3, 3, r6);
    check_close("AveragePool ceil count_include_pad", outs[6], 4, sy6, r6, RT, AT);
    for (int i = 0; i < 7; i++) rlx_ndarray_release(outs[i]);
    free(outs);
  }
  for (int i = 0; i < 2; i++) rlx_ndarray_release(in[i]);
}

/* Ops the ONNX suite of this system does not cover: GroupNormalization (opset 18, scale and
 * bias per group), LpPool with padding, LRN with an even size (window c-1 .. c+2). */
static void test_uncovered(void) {
  pb_t g = {0};
  int64_t sx[4] = {2, 6, 2, 3}, s3[1] = {3}, sp[4] = {1, 2, 3, 3};
  float gs[3], gb[3];
  fill(gs, 3, 51);
  fill(gb, 3, 52);
  value_info(&g, 11, "x", 4, sx);
  value_info(&g, 11, "xp", 4, sp);
  initializer(&g, "gs", 1, s3, gs);
  initializer(&g, "gb", 1, s3, gb);
  pb_t n = node_begin("GroupNormalization", "gn", "x gs gb", "y1");
  attr_int(&n, "num_groups", 3);
  attr_float(&n, "epsilon", 1e-3f);
  pb_msg(&g, 1, &n);
  n = node_begin("LpPool", "lp", "xp", "y2");
  attr_ints(&n, "kernel_shape", 2, (int64_t[]){2, 2});
  attr_ints(&n, "pads", 4, (int64_t[]){1, 0, 0, 1});
  attr_int(&n, "p", 2);
  pb_msg(&g, 1, &n);
  n = node_begin("LRN", "lrn", "x", "y3");
  attr_int(&n, "size", 4);
  attr_float(&n, "alpha", 0.5f);
  attr_float(&n, "beta", 0.6f);
  attr_float(&n, "bias", 1.5f);
  pb_msg(&g, 1, &n);
  value_info(&g, 12, "y1", 4, sx);
  value_info(&g, 12, "y2", 4, sp);
  value_info(&g, 12, "y3", 4, sx);
  pb_t m = model(&g, 18);
  rlx_ndarray_t* in[2] = {tensor(4, sx, 53), tensor(4, sp, 54)};
  rlx_ndarray_t** outs = run_model(&m, "uncovered.onnx", 2, in, 3);
  if (outs) {
    const float *x = in[0]->dl.data, *xp = in[1]->dl.data;
    double r1[72], r2[18], r3[72];
    for (int b = 0; b < 2; b++)
      for (int gr = 0; gr < 3; gr++) {
        const float* base = x + (b * 6 + gr * 2) * 6;
        double mu = 0, v = 0;
        for (int i = 0; i < 12; i++) mu += base[i];
        mu /= 12;
        for (int i = 0; i < 12; i++) v += (base[i] - mu) * (base[i] - mu);
        v /= 12;
        for (int i = 0; i < 12; i++)
          r1[(b * 6 + gr * 2) * 6 + i] = (base[i] - mu) / sqrt(v + (double)1e-3f) * gs[gr] + gb[gr];
      }
    for (int c = 0; c < 2; c++)
      for (int oh = 0; oh < 3; oh++)
        for (int ow = 0; ow < 3; ow++) {
          double acc = 0;
          for (int kh = 0; kh < 2; kh++)
            for (int kw = 0; kw < 2; kw++) {
              int h = oh - 1 + kh, w = ow + kw;
              if (h >= 0 && h < 3 && w < 3) acc += (double)xp[(c * 3 + h) * 3 + w] * xp[(c * 3 + h) * 3 + w];
            }
          r2[(c * 3 + oh) * 3 + ow] = sqrt(acc);
        }
    for (int b = 0; b < 2; b++)
      for (int c = 0; c < 6; c++)
        for (int i = 0; i < 6; i++) {
          double sq = 0;
          for (int cc = c - 1; cc <= c + 2; cc++)
            if (cc >= 0 && cc < 6) sq += (double)x[(b * 6 + cc) * 6 + i] * x[(b * 6 + cc) * 6 + i];
          r3[(b * 6 + c) * 6 + i] = x[(b * 6 + c) * 6 + i] / pow(1.5 + 0.5 / 4 * sq, (double)0.6f);
        }
    check_close("GroupNormalization (opset 18)", outs[0], 4, sx, r1, RT, AT);
    check_close("LpPool p=2 pads", outs[1], 4, sp, r2, RT, AT);
    check_close("LRN size 4", outs[2], 4, sx, r3, RT, AT);
    for (int i = 0; i < 3; i++) rlx_ndarray_release(outs[i]);
    free(outs);
  }
  for (int i = 0; i < 2; i++) rlx_ndarray_release(in[i]);
}

/* MeanVarianceNormalization (default axes), LpNormalization (p = 1, axis 1), MaxUnpool
 * with a constant output_shape (one larger than the unpooled size). */
static void test_mvn_lpnorm_unpool(void) {
  pb_t g = {0};
  int64_t sx[4] = {2, 3, 2, 2}, su[4] = {1, 1, 2, 2};
  value_info(&g, 11, "x", 4, sx);
  value_info(&g, 11, "xu", 4, su);
  value_info_typed(&g, 11, "iu", 4, su, 7);
  { /* output_shape: an int64 initializer */
    pb_t t = {0};
    pb_int(&t, 1, 4);
    pb_int(&t, 2, 7);
    pb_str(&t, 8, "os");
    int64_t v[4] = {1, 1, 5, 4};
    pb_bytes(&t, 9, v, sizeof(v));
    pb_msg(&g, 5, &t);
  }
  pb_t n = node_begin("MeanVarianceNormalization", "mvn", "x", "y1");
  pb_msg(&g, 1, &n);
  n = node_begin("LpNormalization", "lpn", "x", "y2");
  attr_int(&n, "axis", 1);
  attr_int(&n, "p", 1);
  pb_msg(&g, 1, &n);
  n = node_begin("MaxUnpool", "unpool", "xu iu os", "y3");
  attr_ints(&n, "kernel_shape", 2, (int64_t[]){2, 2});
  attr_ints(&n, "strides", 2, (int64_t[]){2, 2});
  pb_msg(&g, 1, &n);
  int64_t sy3[4] = {1, 1, 5, 4};
  value_info(&g, 12, "y1", 4, sx);
  value_info(&g, 12, "y2", 4, sx);
  value_info(&g, 12, "y3", 4, sy3);
  pb_t m = model(&g, 13);
  rlx_ndarray_t* in[3] = {tensor(4, sx, 61), tensor(4, su, 62), NULL};
  rlx_status_free(rlx_ndarray_create(4, su, rlx_dldtype(kDLInt, 64, 1), NULL, &in[2]));
  if (!in[2]) return;
  static const int64_t idx[4] = {1, 7, 12, 19}; /* windows' picks in the 5 x 4 output */
  memcpy(in[2]->dl.data, idx, sizeof(idx));
  rlx_ndarray_t** outs = run_model(&m, "mvn.onnx", 3, in, 3);
  if (outs) {
    const float *x = in[0]->dl.data, *xu = in[1]->dl.data;
    double r1[24], r2[24], r3[20] = {0};
    for (int c = 0; c < 3; c++) {
      double mu = 0, v = 0;
      for (int b = 0; b < 2; b++)
        for (int i = 0; i < 4; i++) mu += x[(b * 3 + c) * 4 + i];
      mu /= 8;
      for (int b = 0; b < 2; b++)
        for (int i = 0; i < 4; i++) v += (x[(b * 3 + c) * 4 + i] - mu) * (x[(b * 3 + c) * 4 + i] - mu);
      v /= 8;
      for (int b = 0; b < 2; b++)
        for (int i = 0; i < 4; i++) r1[(b * 3 + c) * 4 + i] = (x[(b * 3 + c) * 4 + i] - mu) / (sqrt(v) + 1e-9);
    }
    for (int b = 0; b < 2; b++)
      for (int i = 0; i < 4; i++) {
        double nrm = 0;
        for (int c = 0; c < 3; c++) nrm += fabs(x[(b * 3 + c) * 4 + i]);
        for (int c = 0; c < 3; c++) r2[(b * 3 + c) * 4 + i] = x[(b * 3 + c) * 4 + i] / nrm;
      }
    for (int i = 0; i < 4; i++) r3[idx[i]] = xu[i];
    check_close("MeanVarianceNormalization", outs[0], 4, sx, r1, RT, AT);
    check_close("LpNormalization p=1", outs[1], 4, sx, r2, RT, AT);
    check_close("MaxUnpool output_shape", outs[2], 4, sy3, r3, RT, AT);
    for (int i = 0; i < 3; i++) rlx_ndarray_release(outs[i]);
    free(outs);
  }
  for (int i = 0; i < 3; i++) rlx_ndarray_release(in[i]);
}

/* RoiAlign (avg, half_pixel, spatial_scale 0.5, ROIs partly outside the image, batch index
 * 1) against a C transcription of ONNX Runtime's algorithm. */
static double roi_bilinear(const float* img, int H, int W, double y, double x) {
  if (y < -1 || y > H || x < -1 || x > W) return 0;
  if (y < 0) y = 0;
  if (x < 0) x = 0;
  int yl = (int)floor(y), xl = (int)floor(x), yh, xh;
  if (yl >= H - 1) yh = yl = H - 1, y = yl;
  else yh = yl + 1;
  if (xl >= W - 1) xh = xl = W - 1, x = xl;
  else xh = xl + 1;
  double ly = y - yl, lx = x - xl, hy = 1 - ly, hx = 1 - lx;
  return hy * hx * img[yl * W + xl] + hy * lx * img[yl * W + xh] + ly * hx * img[yh * W + xl] + ly * lx * img[yh * W + xh];
}

static void test_roi_align(void) {
  pb_t g = {0};
  int64_t sx[4] = {2, 2, 6, 7}, sr[2] = {3, 4};
  float rois[12] = {1.0f, 2.0f, 9.5f, 8.0f, -4.0f, -1.0f, 3.0f, 20.0f, 5.0f, 5.0f, 5.5f, 6.0f};
  value_info(&g, 11, "x", 4, sx);
  initializer(&g, "r", 2, sr, rois);
  {
    pb_t t = {0};
    pb_int(&t, 1, 3);
    pb_int(&t, 2, 7);
    pb_str(&t, 8, "b");
    int64_t v[3] = {1, 0, 1};
    pb_bytes(&t, 9, v, sizeof(v));
    pb_msg(&g, 5, &t);
  }
  pb_t n = node_begin("RoiAlign", "roi", "x r b", "y");
  attr_int(&n, "output_height", 2);
  attr_int(&n, "output_width", 3);
  attr_int(&n, "sampling_ratio", 2);
  attr_float(&n, "spatial_scale", 0.5f);
  pb_msg(&g, 1, &n);
  int64_t sy[4] = {3, 2, 2, 3};
  value_info(&g, 12, "y", 4, sy);
  pb_t m = model(&g, 16);
  rlx_ndarray_t* in[1] = {tensor(4, sx, 71)};
  rlx_ndarray_t** outs = run_model(&m, "roi.onnx", 1, in, 1);
  if (outs) {
    const float* x = in[0]->dl.data;
    const int bidx[3] = {1, 0, 1};
    double ref[36];
    for (int r = 0; r < 3; r++) {
      double b[4];
      for (int k = 0; k < 4; k++) b[k] = rois[r * 4 + k] * (double)0.5f - 0.5;
      double bh = (b[3] - b[1]) / 2, bw = (b[2] - b[0]) / 3;
      for (int c = 0; c < 2; c++)
        for (int ph = 0; ph < 2; ph++)
          for (int pw = 0; pw < 3; pw++) {
            double acc = 0;
            for (int iy = 0; iy < 2; iy++)
              for (int ix = 0; ix < 2; ix++)
                acc += roi_bilinear(x + (bidx[r] * 2 + c) * 42, 6, 7, b[1] + ph * bh + (iy + 0.5) * bh / 2,
                                    b[0] + pw * bw + (ix + 0.5) * bw / 2);
            ref[((r * 2 + c) * 2 + ph) * 3 + pw] = acc / 4;
          }
    }
    check_close("RoiAlign avg half_pixel", outs[0], 4, sy, ref, RT, AT);
    rlx_ndarray_release(outs[0]);
    free(outs);
  }
  rlx_ndarray_release(in[0]);
}

/* Unsigned pools: MaxPool and GlobalMaxPool over uint8 (values above 127 too). */
static void test_pools_uint8(void) {
  pb_t g = {0};
  int64_t sx[4] = {1, 1, 3, 4}, sy[4] = {1, 1, 2, 3}, sg[4] = {1, 1, 1, 1};
  value_info_typed(&g, 11, "x", 4, sx, 2 /* UINT8 */);
  pb_t n = node_begin("MaxPool", "mp8", "x", "y");
  attr_ints(&n, "kernel_shape", 2, (int64_t[]){2, 2});
  pb_msg(&g, 1, &n);
  n = node_begin("GlobalMaxPool", "gmp8", "x", "z");
  pb_msg(&g, 1, &n);
  value_info_typed(&g, 12, "y", 4, sy, 2);
  value_info_typed(&g, 12, "z", 4, sg, 2);
  pb_t m = model(&g, 12);
  rlx_ndarray_t* x = NULL;
  rlx_status_free(rlx_ndarray_create(4, sx, rlx_dldtype(kDLUInt, 8, 1), NULL, &x));
  if (!x) return;
  uint8_t* xv = x->dl.data;
  static const uint8_t vals[12] = {3, 250, 7, 1, 129, 0, 64, 255, 9, 200, 128, 2};
  memcpy(xv, vals, 12);
  rlx_ndarray_t** outs = run_model(&m, "pools_u8.onnx", 1, &x, 2);
  if (outs) {
    static const uint8_t want[6] = {250, 250, 255, 200, 200, 255};
    int ok = outs[0]->dl.dtype.code == kDLUInt && outs[0]->dl.dtype.bits == 8 && outs[0]->dl.ndim == 4 &&
             memcmp(outs[0]->dl.data, want, 6) == 0;
    CHECK_MSG(ok, "MaxPool uint8: got %u %u %u ...", ((uint8_t*)outs[0]->dl.data)[0], ((uint8_t*)outs[0]->dl.data)[1],
              ((uint8_t*)outs[0]->dl.data)[2]);
    CHECK_MSG(outs[1]->dl.dtype.bits == 8 && ((uint8_t*)outs[1]->dl.data)[0] == 255, "GlobalMaxPool uint8: got %u",
              ((uint8_t*)outs[1]->dl.data)[0]);
    for (int i = 0; i < 2; i++) rlx_ndarray_release(outs[i]);
    free(outs);
  }
  rlx_ndarray_release(x);
}

/* One-node model over a float input x of shape sx (initializers: w of shape sw when given). */
static pb_t one_node(pb_t* n, int opset, int nd, const int64_t* sx, int nw, const int64_t* sw, const char* outs) {
  pb_t g = {0};
  value_info(&g, 11, "x", nd, sx);
  if (nw) {
    int64_t cnt = 1;
    for (int i = 0; i < nw; i++) cnt *= sw[i];
    float* w = calloc((size_t)cnt, sizeof(float));
    initializer(&g, "w", nw, sw, w);
    free(w);
  }
  pb_msg(&g, 1, n);
  char buf[64];
  snprintf(buf, sizeof(buf), "%s", outs);
  for (char* t = strtok(buf, " "); t; t = strtok(NULL, " ")) value_info(&g, 12, t, nd, sx);
  return model(&g, opset);
}

static void test_errors(void) {
  int64_t sx[4] = {1, 1, 5, 5}, sw[4] = {1, 1, 3, 3}, s3[3] = {2, 3, 4}, sw2[2] = {4, 2}, sc[1] = {1};
  pb_t n = node_begin("MaxPool", "mp_so", "x", "y z");
  attr_ints(&n, "kernel_shape", 2, (int64_t[]){2, 2});
  attr_int(&n, "storage_order", 2);
  pb_t m = one_node(&n, 12, 4, sx, 0, NULL, "y z");
  CHECK_ERR(import_only(&m, "e1.onnx"), "node 'mp_so' (MaxPool): storage_order must be 0 or 1, got 2");

  n = node_begin("Conv", "bad_k", "x w", "y");
  attr_ints(&n, "kernel_shape", 2, (int64_t[]){2, 2});
  m = one_node(&n, 11, 4, sx, 4, sw, "y");
  CHECK_ERR(import_only(&m, "e2.onnx"), "kernel_shape[0] = 2 differs from W's dim 3");

  n = node_begin("Conv", "bad_pad", "x w", "y");
  attr_str(&n, "auto_pad", "SAME");
  m = one_node(&n, 11, 4, sx, 4, sw, "y");
  CHECK_ERR(import_only(&m, "e3.onnx"), "auto_pad \"SAME\" is not one of");

  n = node_begin("Conv", "bad_strides", "x w", "y");
  attr_ints(&n, "strides", 3, (int64_t[]){1, 1, 1});
  m = one_node(&n, 11, 4, sx, 4, sw, "y");
  CHECK_ERR(import_only(&m, "e4.onnx"), "strides has 3 values, expected 2");

  n = node_begin("Gemm", "g3d", "x w", "y");
  m = one_node(&n, 13, 3, s3, 2, sw2, "y");
  CHECK_ERR(import_only(&m, "e5.onnx"), "node 'g3d' (Gemm): A and B must be 2-D, got ranks 3 and 2");

  n = node_begin("MatMul", "mm_k", "x w", "y");
  m = one_node(&n, 13, 3, s3, 2, (int64_t[]){3, 2}, "y");
  CHECK_ERR(import_only(&m, "e6.onnx"), "mm_k");

  n = node_begin("BatchNormalization", "bn_saved", "x w w w w", "y m v sm sv");
  m = one_node(&n, 9, 3, (int64_t[]){2, 1, 4}, 1, sc, "y m v sm sv");
  CHECK_ERR(import_only(&m, "e7.onnx"), "node 'bn_saved' (BatchNormalization): output 3 (saved mean / variance)");

  n = node_begin("AveragePool", "ap_nok", "x", "y");
  m = one_node(&n, 11, 4, sx, 0, NULL, "y");
  CHECK_ERR(import_only(&m, "e8.onnx"), "the kernel_shape attribute is required");

  n = node_begin("MaxPool", "mp_sym", "x", "y");
  attr_ints(&n, "kernel_shape", 2, (int64_t[]){1, 1});
  attr_ints(&n, "strides", 2, (int64_t[]){2, 2});
  attr_int(&n, "ceil_mode", 1);
  m = one_node(&n, 12, 4, (int64_t[]){1, 1, -1, 4}, 0, NULL, "y");
  CHECK_ERR(import_only(&m, "e10.onnx"), "node 'mp_sym' (MaxPool): ceil_mode with a symbolic size of spatial dim 0");

  n = node_begin("RoiAlign", "roi0", "x w w", "y");
  m = one_node(&n, 16, 4, sx, 2, (int64_t[]){2, 4}, "y");
  CHECK_ERR(import_only(&m, "e11.onnx"), "node 'roi0' (RoiAlign): batch_indices must be a 1-D integer tensor");

  n = node_begin("MaxPool", "mp_big", "x", "y");
  attr_ints(&n, "kernel_shape", 2, (int64_t[]){7, 7});
  m = one_node(&n, 12, 4, sx, 0, NULL, "y");
  CHECK_ERR(import_only(&m, "e9.onnx"), "mp_big");
}

int main(void) {
  test_conv();
  test_gemm_matmul();
  test_gemm_opset6();
  test_norms();
  test_pools();
  test_pools_uint8();
  test_uncovered();
  test_mvn_lpnorm_unpool();
  test_roi_align();
  test_errors();
  TEST_MAIN_END();
}
