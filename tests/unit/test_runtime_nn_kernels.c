/* The NCHWc kernels (src/runtime/kernels) against direct NCHW references, called through
 * the registry and the packed ABI as the VM calls them: convolutions of every tile shape
 * (V = 1..3, rows shorter and longer than a tile, strides 1/2/3, padding, dilation, a plain
 * NCHW first layer, the padded-image path for large weights), Winograd F(2x2) and F(4x4),
 * depthwise, max pool, channel means, layout transforms, the epilogue (bias, residual, relu,
 * clip), concat in place, a depthwise convolution and its 1x1 reader in one call, and
 * malformed calls. Tolerance: 1e-4 relative to the output's scale (float32 sums of up to a
 * few thousand products); fused and concatenated calls against their parts 1e-5 / 1e-6.
 *
 * Every case runs for both channel blocks: 8 (the x86-64-v3 or v2 variant, NEON, portable)
 * and 16 (x86-64-v4; "skipped: no avx512f" on a CPU without it, where a block-16 call must
 * fail naming avx512f). The variant the packed ABI picks depends on the CPU's level after
 * RLX_MAX_ISA, which a process reads once: so on x86-64 the test runs itself again under
 * each lower cap the CPU allows (RLX_MAX_ISA=x86-64-v3, x86-64-v2), and every variant the
 * CPU can run is checked. */
#include <stdlib.h>

#include "rlx/runtime.h"
#include "runtime/kernels/nn_kernels.h"
#include "support/target.h"
#include "test.h"
#include "unit/kernel_test_util.h"

static float frand(uint64_t* s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((*s >> 40) & 0xffff) / 32768.0f - 1.0f;
}

static float* rand_buf(int64_t n, uint64_t seed) {
  float* p = malloc((size_t)n * sizeof(float));
  for (int64_t i = 0; i < n; i++) p[i] = frand(&seed);
  return p;
}

static DLTensor dlt(float* data, int ndim, int64_t* shape) {
  DLTensor t;
  memset(&t, 0, sizeof(t));
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = ndim;
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = shape;
  return t;
}

/* Calls a kernel by name: tensors first (NULL-terminated list of DLTensor*), then ints and
 * floats as given by a format string ('i' / 'f'), then the output. Returns the packed
 * function's return code. */
static int call(const char* name, DLTensor** ts, int nt, const char* fmt, const double* vals, DLTensor* out) {
  rlx_packed_fn_t fn = NULL;
  rlx_status_t* st = rlx_registry_get(name, &fn, NULL);
  if (st) {
    rlx_status_free(st);
    return -100;
  }
  rlx_value_t a[32];
  int c[32], n = 0;
  for (int i = 0; i < nt; i++) a[n].v_handle = ts[i], c[n++] = RLX_ARG_DLTENSOR;
  for (int i = 0; fmt[i]; i++) {
    if (fmt[i] == 'i') a[n].v_int64 = (int64_t)vals[i], c[n++] = RLX_ARG_INT;
    else a[n].v_float64 = vals[i], c[n++] = RLX_ARG_FLOAT;
  }
  a[n].v_handle = out, c[n++] = RLX_ARG_DLTENSOR;
  rlx_value_t ret;
  int rc = RLX_ARG_NULLPTR;
  return fn(a, c, n, &ret, &rc, NULL);
}

static float* to_blocked(const float* x, int64_t n, int64_t c, int64_t hw, int64_t nb) {
  int64_t cb = (c + nb - 1) / nb;
  float* y = malloc((size_t)(n * cb * hw * nb) * sizeof(float));
  int64_t s1[4] = {n, c, hw, 1}, s2[5] = {n, cb, hw, 1, nb};
  DLTensor tx = dlt((float*)x, 4, s1), ty = dlt(y, 5, s2);
  DLTensor* ts[1] = {&tx};
  CHECK(call("rlx.nn.nchw_to_nchwc", ts, 1, "", NULL, &ty) == 0);
  return y;
}

static float* from_blocked(const float* x, int64_t n, int64_t c, int64_t hw, int64_t nb) {
  int64_t cb = (c + nb - 1) / nb;
  float* y = malloc((size_t)(n * c * hw) * sizeof(float));
  int64_t s1[5] = {n, cb, hw, 1, nb}, s2[4] = {n, c, hw, 1};
  DLTensor tx = dlt((float*)x, 5, s1), ty = dlt(y, 4, s2);
  DLTensor* ts[1] = {&tx};
  CHECK(call("rlx.nn.nchwc_to_nchw", ts, 1, "", NULL, &ty) == 0);
  return y;
}

typedef struct {
  int64_t n, ic, h, w, oc, kh, kw, sh, sw, pt, pl, pb, pr, dh, dw;
  int groups; /* 1 or ic (depthwise) */
  int res, act;
  float lo, hi;
  int plain_input; /* pass x as NCHW (cbi 1) */
  int v;
  int winograd; /* 3x3 stride 1: rlx.nn.conv2d_winograd_nchwc with F(winograd x winograd) */
} conv_case_t;

static double max_err(const float* a, const float* b, int64_t n) {
  double e = 0, s = 1e-6;
  for (int64_t i = 0; i < n; i++) {
    double d = fabs((double)a[i] - b[i]);
    e = d > e ? d : e;
    s = fabs((double)b[i]) > s ? fabs((double)b[i]) : s;
  }
  return e / (s > 1 ? s : 1);
}

static void conv_case(const conv_case_t* k, int64_t nb) {
  int64_t oh = (k->h + k->pt + k->pb - k->dh * (k->kh - 1) - 1) / k->sh + 1;
  int64_t ow = (k->w + k->pl + k->pr - k->dw * (k->kw - 1) - 1) / k->sw + 1;
  int64_t icg = k->groups == 1 ? k->ic : 1;
  float* x = rand_buf(k->n * k->ic * k->h * k->w, 1);
  float* w = rand_buf(k->oc * icg * k->kh * k->kw, 2);
  float* b = rand_buf(k->oc, 3);
  float* r = rand_buf(k->n * k->oc * oh * ow, 4);
  float* ref = malloc((size_t)(k->n * k->oc * oh * ow) * sizeof(float));
  for (int64_t n = 0; n < k->n; n++)
    for (int64_t o = 0; o < k->oc; o++)
      for (int64_t y = 0; y < oh; y++)
        for (int64_t xx = 0; xx < ow; xx++) {
          double s = b[o];
          for (int64_t i = 0; i < icg; i++) {
            int64_t ci = k->groups == 1 ? i : o;
            for (int64_t a = 0; a < k->kh; a++)
              for (int64_t c = 0; c < k->kw; c++) {
                int64_t ih = y * k->sh - k->pt + a * k->dh, iw = xx * k->sw - k->pl + c * k->dw;
                if (ih < 0 || ih >= k->h || iw < 0 || iw >= k->w) continue;
                s += (double)x[((n * k->ic + ci) * k->h + ih) * k->w + iw] * w[((o * icg + i) * k->kh + a) * k->kw + c];
              }
          }
          int64_t idx = ((n * k->oc + o) * oh + y) * ow + xx;
          if (k->res) s += r[idx];
          if (k->act) s = s < k->lo ? k->lo : s > k->hi ? k->hi : s;
          ref[idx] = (float)s;
        }
  int64_t ocb = (k->oc + nb - 1) / nb, icb = (k->ic + nb - 1) / nb, cbi = k->plain_input ? 1 : nb;
  float* xb = k->plain_input ? x : to_blocked(x, k->n, k->ic, k->h * k->w, nb);
  float* rb = to_blocked(r, k->n, k->oc, oh * ow, nb);
  float* bp = calloc((size_t)(ocb * nb), sizeof(float));
  memcpy(bp, b, (size_t)k->oc * sizeof(float));
  float* yb = malloc((size_t)(k->n * ocb * oh * ow * nb) * sizeof(float));
  float* wp;
  int64_t wshape[6], xshape[5] = {k->n, k->plain_input ? k->ic : icb, k->h, k->w, nb};
  int wnd;
  const char* name;
  if (k->winograd) {
    wp = malloc((size_t)rlx_nn_winograd_packed_numel(k->oc, k->ic, k->winograd, k->v, nb) * sizeof(float));
    rlx_nn_winograd_pack_weight(w, k->oc, k->ic, k->v, k->winograd, nb, wp);
    int64_t s[5] = {(k->winograd + 2) * (k->winograd + 2), (ocb + k->v - 1) / k->v, icb, nb, k->v * nb};
    memcpy(wshape, s, sizeof(s));
    wnd = 5;
    name = "rlx.nn.conv2d_winograd_nchwc";
  } else if (k->groups == 1) {
    wp = malloc((size_t)rlx_nn_conv_packed_numel(k->oc, k->ic, k->kh, k->kw, cbi, k->v, nb) * sizeof(float));
    rlx_nn_conv_pack_weight(w, k->oc, k->ic, k->kh, k->kw, cbi, k->v, nb, wp);
    int64_t s[6] = {(ocb + k->v - 1) / k->v, k->plain_input ? k->ic : icb, k->kh, k->kw, cbi, k->v * nb};
    memcpy(wshape, s, sizeof(s));
    wnd = 6;
    name = "rlx.nn.conv2d_nchwc";
  } else {
    wp = malloc((size_t)(ocb * k->kh * k->kw * nb) * sizeof(float));
    rlx_nn_dw_pack_weight(w, k->oc, k->kh, k->kw, nb, wp);
    int64_t s[4] = {ocb, k->kh, k->kw, nb};
    memcpy(wshape, s, sizeof(s));
    wnd = 4;
    name = "rlx.nn.dwconv2d_nchwc";
  }
  int64_t bshape[1] = {ocb * nb}, yshape[5] = {k->n, ocb, oh, ow, nb};
  DLTensor tx = dlt(xb, k->plain_input ? 4 : 5, xshape), tw = dlt(wp, wnd, wshape), tb = dlt(bp, 1, bshape);
  DLTensor tr = dlt(rb, 5, yshape), ty = dlt(yb, 5, yshape);
  DLTensor* ts[4] = {&tx, &tw, &tb, &tr};
  double vals[9] = {(double)k->sh, (double)k->sw, (double)k->pt, (double)k->pl, (double)k->dh, (double)k->dw,
                    k->act ? RLX_NN_ACT_CLIP : RLX_NN_ACT_NONE, k->lo, k->hi};
  double wvals[5] = {(double)k->pt, (double)k->pl, vals[6], vals[7], vals[8]};
  int rc = k->winograd ? call(name, ts, k->res ? 4 : 3, "iiiff", wvals, &ty)
                       : call(name, ts, k->res ? 4 : 3, "iiiiiiiff", vals, &ty);
  CHECK_MSG(rc == 0, "%s failed: %s", name, rlx_last_error());
  float* y = from_blocked(yb, k->n, k->oc, oh * ow, nb);
  double e = max_err(y, ref, k->n * k->oc * oh * ow);
  CHECK_MSG(e < 1e-4, "NCHW%lldc %s n%lld ic%lld %lldx%lld oc%lld k%lldx%lld s%lld p%lld d%lld v%d plain%d: error %g",
            (long long)nb, name,
            (long long)k->n, (long long)k->ic, (long long)k->h, (long long)k->w, (long long)k->oc, (long long)k->kh,
            (long long)k->kw, (long long)k->sh, (long long)k->pt, (long long)k->dh, k->v, k->plain_input, e);
  free(x), free(w), free(b), free(r), free(ref), free(rb), free(bp), free(yb), free(wp), free(y);
  if (!k->plain_input) free(xb);
}

static void test_convs(int64_t nb) {
  const float inf = INFINITY;
  conv_case_t cases[] = {
      /* n ic h w oc kh kw sh sw pt pl pb pr dh dw groups res act lo hi plain v */
      {1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, inf, 0, 2, 0},   /* ResNet block */
      {1, 64, 14, 14, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 6, 0, 2, 0},     /* V 2, rows of 14 */
      {2, 32, 7, 7, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0},       /* V 3, batch 2 */
      {1, 24, 9, 11, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, inf, 0, 1, 0},    /* stride 2, padded channels */
      {1, 64, 28, 28, 128, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 2, 0},    /* 1x1 stride 2 */
      {1, 96, 14, 14, 144, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0},    /* 1x1 flat, V 3 */
      /* V not dividing the output blocks (the last weight group narrower): flat, rows, the
       * padded image, Winograd */
      {1, 32, 9, 9, 40, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 6, 0, 2, 0},
      {1, 24, 10, 11, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0},
      {1, 256, 7, 7, 200, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, inf, 0, 2, 0},
      {1, 32, 14, 14, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, inf, 0, 2, 2},
      {1, 32, 20, 20, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 3, 4},
      {1, 20, 5, 3, 17, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 1, 0, 6, 0, 1, 0},       /* tiny flat, odd channels */
      {1, 3, 32, 32, 64, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1, 0, 1, 0, inf, 1, 2, 0},    /* stem on plain NCHW */
      {1, 16, 12, 12, 32, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, 0, 0, 0, 0, 0, 2, 0},     /* dilation 2 */
      {1, 16, 11, 13, 16, 3, 5, 3, 2, 0, 2, 1, 2, 1, 1, 1, 1, 1, -0.5f, 0.5f, 0, 1, 0}, /* odd window, stride 3 */
      {1, 32, 30, 30, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 32, 0, 1, 0, 6, 0, 1, 0},    /* depthwise */
      {1, 40, 15, 17, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 40, 1, 0, 0, 0, 0, 1, 0},    /* depthwise s2, padded */
      {2, 16, 9, 9, 16, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 16, 0, 1, 0, 6, 0, 1, 0},      /* depthwise 5x5 */
      /* depthwise 3x3 row path: 1x1 image (zero rows, both borders), asymmetric padding at
       * stride 2, a width with a tail after the 8-wide tiles, residual with clip, and a row wider
       * than the zero row (the general path) */
      {1, 16, 1, 1, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16, 0, 1, 0, 6, 0, 1, 0},
      {1, 32, 8, 2, 32, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 32, 1, 0, 0, 0, 0, 1, 0},
      {1, 48, 19, 23, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 48, 1, 1, 0, 6, 0, 1, 0},
      {1, 16, 3, 520, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16, 0, 1, 0, inf, 0, 1, 0},
      /* weights much larger than the image: the padded-image path */
      {1, 256, 7, 7, 256, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, inf, 0, 2, 0},
      {2, 128, 9, 9, 96, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 6, 0, 3, 0},
      /* Winograd F(2x2, 3x3): even and odd sizes, V 1..3, residual, several tile chunks; the
       * staged form (buffers within L2: 13x11 batch 2, 14x14, 28x28) and the chunked one */
      {1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, inf, 0, 2, 2},
      {1, 256, 14, 14, 256, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, inf, 0, 2, 2},
      {2, 32, 13, 11, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 6, 0, 3, 2},
      {1, 20, 7, 7, 24, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 2},
      /* Winograd F(4x4, 3x3): sizes not a multiple of 4, V 1..3 */
      {1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, inf, 0, 2, 4},
      {2, 32, 13, 11, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 6, 0, 3, 4},
      {1, 20, 10, 9, 24, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 4},
      {1, 128, 28, 28, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 2, 4},
  };
  const int before = rlx_nn_num_threads();
  for (int threads = 1; threads <= 2; threads++) { /* items split differently with several threads */
    rlx_nn_set_num_threads(threads);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) conv_case(&cases[i], nb);
  }
  rlx_nn_set_num_threads(before);
}

static void test_pool_mean(int64_t nb) {
  int64_t n = 1, c = 20, h = 13, w = 13, kh = 3, kw = 3, s = 2, p = 1;
  int64_t oh = (h + 2 * p - kh + s - 1) / s + 1, ow = oh; /* ceil mode: 7 */
  float* x = rand_buf(n * c * h * w, 7);
  float* xb = to_blocked(x, n, c, h * w, nb);
  int64_t cb = (c + nb - 1) / nb, xs[5] = {n, cb, h, w, nb}, ys[5] = {n, cb, oh, ow, nb};
  float* yb = malloc((size_t)(n * cb * oh * ow * nb) * sizeof(float));
  DLTensor tx = dlt(xb, 5, xs), ty = dlt(yb, 5, ys);
  DLTensor* ts[1] = {&tx};
  double v[8] = {(double)kh, (double)kw, (double)s, (double)s, (double)p, (double)p, 1, 1};
  CHECK(call("rlx.nn.max_pool2d_nchwc", ts, 1, "iiiiiiii", v, &ty) == 0);
  float* y = from_blocked(yb, n, c, oh * ow, nb);
  int bad = 0;
  for (int64_t ch = 0; ch < c; ch++)
    for (int64_t a = 0; a < oh; a++)
      for (int64_t b = 0; b < ow; b++) {
        float m = -INFINITY;
        for (int64_t i = 0; i < kh; i++)
          for (int64_t j = 0; j < kw; j++) {
            int64_t ih = a * s - p + i, iw = b * s - p + j;
            if (ih >= 0 && ih < h && iw >= 0 && iw < w && x[(ch * h + ih) * w + iw] > m) m = x[(ch * h + ih) * w + iw];
          }
        bad += y[(ch * oh + a) * ow + b] != m;
      }
  CHECK_MSG(bad == 0, "max pool: %d wrong", bad);
  int64_t ms[5] = {n, cb, 1, 1, nb};
  float mb[32];
  DLTensor tm = dlt(mb, 5, ms);
  CHECK(call("rlx.nn.mean_hw_nchwc", ts, 1, "", NULL, &tm) == 0);
  double e = 0;
  for (int64_t ch = 0; ch < c; ch++) {
    double sum = 0;
    for (int64_t i = 0; i < h * w; i++) sum += x[ch * h * w + i];
    e = fmax(e, fabs(sum / (double)(h * w) - mb[ch]));
  }
  CHECK_MSG(e < 1e-5, "mean: error %g", e);
  /* the layout keeps every value and zero-pads the last block (20 channels: 4 of the last
   * block real) */
  const int64_t last = (cb - 1) * h * w * nb;
  CHECK(xb[last] == x[(cb - 1) * nb * h * w] && xb[last + 3] == x[((cb - 1) * nb + 3) * h * w] && xb[last + 4] == 0.0f);
  free(x), free(xb), free(yb), free(y);
}

/* Two convolutions of one input (a 1x1 direct and a 3x3 Winograd) written side by side into
 * one output by rlx.nn.conv2d_concat_nchwc, against the two separate calls. */
static void test_concat(int64_t nb) {
  int64_t ic = 32, h = 13, w = 13, oa = 32, ob = 48, icb = ic / nb, ocb_a = oa / nb, ocb_b = ob / nb;
  float* x = rand_buf(ic * h * w, 11);
  float* xb = to_blocked(x, 1, ic, h * w, nb);
  float* wa = rand_buf(oa * ic, 12);
  float* wb = rand_buf(ob * ic * 9, 13);
  float* ba = rand_buf(oa, 14);
  float* bb = rand_buf(ob, 15);
  float* pa = malloc((size_t)rlx_nn_conv_packed_numel(oa, ic, 1, 1, nb, 3, nb) * sizeof(float));
  float* pb = malloc((size_t)rlx_nn_winograd_packed_numel(ob, ic, 2, 3, nb) * sizeof(float));
  rlx_nn_conv_pack_weight(wa, oa, ic, 1, 1, nb, 3, nb, pa); /* V 3 of 2 or 4 blocks: a narrower last group */
  rlx_nn_winograd_pack_weight(wb, ob, ic, 3, 2, nb, pb);
  int64_t xs[5] = {1, icb, h, w, nb}, was[6] = {(ocb_a + 2) / 3, icb, 1, 1, nb, 3 * nb};
  int64_t wbs[5] = {16, ocb_b / 3, icb, nb, 3 * nb};
  int64_t bas[1] = {oa}, bbs[1] = {ob}, ys[5] = {1, ocb_a + ocb_b, h, w, nb}, yas[5] = {1, ocb_a, h, w, nb};
  int64_t ybs[5] = {1, ocb_b, h, w, nb};
  float* y = malloc((size_t)((oa + ob) * h * w) * sizeof(float));
  float* ya = malloc((size_t)(oa * h * w) * sizeof(float));
  float* yb = malloc((size_t)(ob * h * w) * sizeof(float));
  DLTensor tx = dlt(xb, 5, xs), twa = dlt(pa, 6, was), twb = dlt(pb, 5, wbs), tba = dlt(ba, 1, bas);
  DLTensor tbb = dlt(bb, 1, bbs), ty = dlt(y, 5, ys), tya = dlt(ya, 5, yas), tyb = dlt(yb, 5, ybs);
  rlx_packed_fn_t fn = NULL;
  rlx_status_t* st = rlx_registry_get("rlx.nn.conv2d_concat_nchwc", &fn, NULL);
  CHECK(st == NULL);
  rlx_status_free(st);
  rlx_value_t a[32];
  int c[32], n = 0;
  a[n].v_handle = &tx, c[n++] = RLX_ARG_DLTENSOR;
  DLTensor* parts[2][2] = {{&twa, &tba}, {&twb, &tbb}};
  int64_t g[2][8] = {{0, 1, 1, 0, 0, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 0}};
  for (int k = 0; k < 2; k++) {
    a[n].v_handle = parts[k][0], c[n++] = RLX_ARG_DLTENSOR;
    a[n].v_handle = parts[k][1], c[n++] = RLX_ARG_DLTENSOR;
    for (int i = 0; i < 8; i++) a[n].v_int64 = g[k][i], c[n++] = RLX_ARG_INT;
    a[n].v_float64 = 0, c[n++] = RLX_ARG_FLOAT;
    a[n].v_float64 = 1e30, c[n++] = RLX_ARG_FLOAT;
  }
  a[n].v_handle = &ty, c[n++] = RLX_ARG_DLTENSOR;
  rlx_value_t ret;
  int rc = 0;
  CHECK_MSG(fn && fn(a, c, n, &ret, &rc, NULL) == 0, "concat call: %s", rlx_last_error());
  DLTensor* ts[3] = {&tx, &twa, &tba};
  double va[9] = {1, 1, 0, 0, 1, 1, RLX_NN_ACT_CLIP, 0, 1e30};
  CHECK(call("rlx.nn.conv2d_nchwc", ts, 3, "iiiiiiiff", va, &tya) == 0);
  DLTensor* tsb[3] = {&tx, &twb, &tbb};
  double vb[5] = {1, 1, RLX_NN_ACT_NONE, 0, 0};
  CHECK(call("rlx.nn.conv2d_winograd_nchwc", tsb, 3, "iiiff", vb, &tyb) == 0);
  CHECK(max_err(y, ya, oa * h * w) < 1e-6 && max_err(y + oa * h * w, yb, ob * h * w) < 1e-6);
  /* parts that do not fill y's channels */
  ys[1]++;
  CHECK(fn && fn(a, c, n, &ret, &rc, NULL) != 0 && strstr(rlx_last_error(), "do not fill y") != NULL);
  free(x), free(xb), free(wa), free(wb), free(ba), free(bb), free(pa), free(pb), free(y), free(ya), free(yb);
}

/* rlx.nn.dwconv_conv_nchwc against its two parts called one after the other (each checked
 * against the NCHW reference above): a 3x3 depthwise convolution (stride 1 or 2, clip) and a
 * 1x1 convolution of its output (bias, residual or not), for rows of 7 (two rows per item),
 * odd widths, a batch of 2, weights over 256 KB (one item per thread) and 1 and 2 threads. */
typedef struct {
  int64_t n, c, h, oc, s, v;
  int res, threads;
} dwc_case_t;

static void dwconv_conv_case(const dwc_case_t* k, int64_t nb) {
  const int64_t cb = (k->c + nb - 1) / nb, ocb = (k->oc + nb - 1) / nb, oh = (k->h + 2 - 3) / k->s + 1;
  float* x = rand_buf(k->n * cb * k->h * k->h * nb, 11);
  float* wd0 = rand_buf(k->c * 9, 12);
  float* w0 = rand_buf(k->oc * k->c, 13);
  float* bd = rand_buf(cb * nb, 14);
  float* b = rand_buf(ocb * nb, 15);
  float* r = rand_buf(k->n * ocb * oh * oh * nb, 16);
  float* wd = malloc((size_t)(cb * 9 * nb) * sizeof(float));
  float* w = malloc((size_t)rlx_nn_conv_packed_numel(k->oc, k->c, 1, 1, nb, k->v, nb) * sizeof(float));
  rlx_nn_dw_pack_weight(wd0, k->c, 3, 3, nb, wd);
  rlx_nn_conv_pack_weight(w0, k->oc, k->c, 1, 1, nb, k->v, nb, w);
  float* mid = malloc((size_t)(k->n * cb * oh * oh * nb) * sizeof(float));
  float* ya = malloc((size_t)(k->n * ocb * oh * oh * nb) * sizeof(float));
  float* yb = malloc((size_t)(k->n * ocb * oh * oh * nb) * sizeof(float));
  int64_t xs[5] = {k->n, cb, k->h, k->h, nb}, ms[5] = {k->n, cb, oh, oh, nb}, ys[5] = {k->n, ocb, oh, oh, nb};
  int64_t wds[4] = {cb, 3, 3, nb}, ws[6] = {(ocb + k->v - 1) / k->v, cb, 1, 1, nb, k->v * nb}, bds[1] = {cb * nb};
  int64_t bs[1] = {ocb * nb};
  DLTensor tx = dlt(x, 5, xs), tm = dlt(mid, 5, ms), tya = dlt(ya, 5, ys), tyb = dlt(yb, 5, ys);
  DLTensor twd = dlt(wd, 4, wds), tw = dlt(w, 6, ws), tbd = dlt(bd, 1, bds), tb = dlt(b, 1, bs), tr = dlt(r, 5, ys);
  const int before = rlx_nn_num_threads();
  rlx_nn_set_num_threads(k->threads);
  DLTensor* t1[3] = {&tx, &twd, &tbd};
  double v1[9] = {(double)k->s, (double)k->s, 1, 1, 1, 1, RLX_NN_ACT_CLIP, 0, 6};
  CHECK(call("rlx.nn.dwconv2d_nchwc", t1, 3, "iiiiiiiff", v1, &tm) == 0);
  DLTensor* t2[4] = {&tm, &tw, &tb, &tr};
  double v2[9] = {1, 1, 0, 0, 1, 1, RLX_NN_ACT_NONE, 0, 0};
  CHECK(call("rlx.nn.conv2d_nchwc", t2, k->res ? 4 : 3, "iiiiiiiff", v2, &tya) == 0);
  DLTensor* t3[6] = {&tx, &twd, &tbd, &tw, &tb, &tr};
  double v3[7] = {(double)k->s, (double)k->s, 1, 1, RLX_NN_ACT_CLIP, 0, 6};
  /* x, wd, bd, sh, sw, pt, pl, act, lo, hi, w, bias, [res,] act, lo, hi, y: built by hand */
  rlx_packed_fn_t fn = NULL;
  rlx_status_t* st = rlx_registry_get("rlx.nn.dwconv_conv_nchwc", &fn, NULL);
  CHECK(st == NULL);
  rlx_status_free(st);
  rlx_value_t a[20];
  int c[20], n = 0;
  for (int i = 0; i < 3; i++) a[n].v_handle = t3[i], c[n++] = RLX_ARG_DLTENSOR;
  for (int i = 0; i < 7; i++) {
    if (i < 5) a[n].v_int64 = (int64_t)v3[i], c[n++] = RLX_ARG_INT;
    else a[n].v_float64 = v3[i], c[n++] = RLX_ARG_FLOAT;
  }
  for (int i = 3; i < (k->res ? 6 : 5); i++) a[n].v_handle = t3[i], c[n++] = RLX_ARG_DLTENSOR;
  a[n].v_int64 = RLX_NN_ACT_NONE, c[n++] = RLX_ARG_INT;
  a[n].v_float64 = 0, c[n++] = RLX_ARG_FLOAT;
  a[n].v_float64 = 0, c[n++] = RLX_ARG_FLOAT;
  a[n].v_handle = &tyb, c[n++] = RLX_ARG_DLTENSOR;
  rlx_value_t ret;
  int rc = 0;
  CHECK_MSG(fn && fn(a, c, n, &ret, &rc, NULL) == 0, "dwconv_conv: %s", rlx_last_error());
  double e = max_err(yb, ya, k->n * ocb * oh * oh * nb);
  CHECK_MSG(e < 1e-5, "NCHW%lldc dwconv_conv n%lld c%lld %lldx%lld s%lld oc%lld v%lld res%d threads%d: error %g",
            (long long)nb, (long long)k->n, (long long)k->c, (long long)k->h, (long long)k->h, (long long)k->s,
            (long long)k->oc, (long long)k->v, k->res, k->threads, e);
  if (k->res) { /* one argument short: a clear error */
    CHECK(fn(a, c, n - 4, &ret, &rc, NULL) != 0 && strstr(rlx_last_error(), "expected 16 or 17 arguments") != NULL);
  }
  rlx_nn_set_num_threads(before);
  free(x), free(wd0), free(w0), free(bd), free(b), free(r), free(wd), free(w), free(mid), free(ya), free(yb);
}

static void test_dwconv_conv(int64_t nb) {
  static const dwc_case_t cases[] = {
      {1, 40, 9, 32, 1, 2, 1, 1},  {2, 48, 7, 32, 1, 1, 0, 2},  {1, 32, 15, 48, 2, 3, 0, 1},
      {1, 64, 14, 16, 2, 1, 1, 2}, {1, 512, 7, 160, 1, 2, 1, 2}, {1, 512, 7, 160, 1, 2, 0, 1},
      {1, 32, 14, 40, 1, 2, 1, 1}, /* V 2 of 3 or 5 blocks */
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) dwconv_conv_case(&cases[i], nb);
}

static void test_errors(int64_t nb) {
  float buf[64] = {0};
  int64_t s5[5] = {1, 1, 2, 2, nb}, s4[4] = {1, nb, 2, 2}, s1[1] = {nb};
  DLTensor a = dlt(buf, 5, s5), b = dlt(buf, 4, s4), c = dlt(buf, 1, s1);
  DLTensor* ts[3] = {&a, &b, &c};
  double v[9] = {1, 1, 0, 0, 1, 1, 0, 0, 0};
  CHECK(call("rlx.nn.conv2d_nchwc", ts, 3, "iiiiiiiff", v, &a) != 0);
  CHECK(strstr(rlx_last_error(), "weight must be packed") != NULL);
  CHECK(call("rlx.nn.conv2d_nchwc", ts, 3, "iiiiii", v, &a) != 0);
  CHECK(strstr(rlx_last_error(), "expected 13 or 14 arguments") != NULL);
  DLTensor* one[1] = {&b};
  CHECK(call("rlx.nn.nchwc_to_nchw", one, 1, "", NULL, &b) != 0);
  CHECK(strstr(rlx_last_error(), "rlx.nn.nchwc_to_nchw: expected float32") != NULL);
  DLTensor i32 = a;
  i32.dtype.code = kDLInt;
  DLTensor* bad[1] = {&i32};
  CHECK(call("rlx.nn.mean_hw_nchwc", bad, 1, "", NULL, &a) != 0);
  rlx_packed_fn_t fn = NULL;
  rlx_status_t* st = rlx_registry_get("rlx.nn.no_such_kernel", &fn, NULL);
  CHECK(st != NULL);
  rlx_status_free(st);
}

/* A block-16 call on a CPU without AVX-512: one error naming the feature. */
static void test_block16_missing(void) {
  float buf[64] = {0};
  int64_t s5[5] = {1, 1, 2, 2, 16}, ms[5] = {1, 1, 1, 1, 16};
  DLTensor a = dlt(buf, 5, s5), m = dlt(buf, 5, ms);
  DLTensor* ts[1] = {&a};
  CHECK(call("rlx.nn.mean_hw_nchwc", ts, 1, "", NULL, &m) != 0);
  CHECK_MSG(strstr(rlx_last_error(), "rlx.nn.mean_hw_nchwc: channel block 16 needs avx512f") != NULL, "got: %s",
            rlx_last_error());
}

int main(int argc, char** argv) {
  for (int64_t nb = 8; nb <= 16; nb += 8) {
    const char* why = NULL;
    const rlx_nn_kernels_t* k = rlx_nn_kernels(nb, &why);
    if (!k) {
      printf("NCHW%lldc: skipped: no avx512f (%s; this CPU: %s)\n", (long long)nb, why, rlx_cpu_isa());
      CHECK(nb == 16 && strstr(why, "avx512f") != NULL);
      test_block16_missing();
      continue;
    }
    printf("NCHW%lldc: the %s kernels\n", (long long)nb, k->isa);
    CHECK(k->nb == nb);
    test_convs(nb);
    test_pool_mean(nb);
    test_concat(nb);
    test_dwconv_conv(nb);
    test_errors(nb);
  }
  /* every lower x86-64 level the CPU runs, each in a process of its own */
  run_lower_levels(argc, argv, "the kernels' tests");
  TEST_MAIN_END();
}
