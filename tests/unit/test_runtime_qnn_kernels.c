/* The int8 kernels (src/runtime/kernels: qconv_nchwc.c, qnn_nchwc.c) against plain C
 * references on NCHW data, exactly: integer accumulation, then the float requantization
 * (round half to even, zero point, clamp) computed the same way. Convolutions of every tile
 * shape (one and two output blocks, rows shorter and longer than a tile), strides, padding
 * (which reads the input's zero point), dilation, a first layer's NCHW4c input, depthwise
 * 3x3 and 5x5, and through the packed ABI as the VM calls them: quantize, max pool with a
 * requantization table, channel mean, add with a clamp, concat, the layout back to NCHW,
 * and malformed calls.
 *
 * Every case runs for both channel blocks (8; 16 where the CPU has AVX-512, else "skipped: no
 * avx512f"), the AVX-512 convolutions both with and without VNNI ("skipped: no avx512vnni"
 * where the CPU lacks it), and the test runs itself again under each lower RLX_MAX_ISA the CPU
 * allows (x86-64-v3: AVX2's split vpmaddubsw; x86-64-v2: plain C), as the float kernels' test
 * does. */
#include <math.h>
#include <stdlib.h>

#include "rlx/runtime.h"
#include "runtime/kernels/nn_kernels.h"
#include "support/target.h"
#include "test.h"
#include "unit/kernel_test_util.h"

static uint64_t rnd(uint64_t* s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

static DLTensor dlt(void* data, int code, int bits, int ndim, int64_t* shape) {
  DLTensor t;
  memset(&t, 0, sizeof(t));
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = ndim;
  t.dtype.code = (uint8_t)code;
  t.dtype.bits = (uint8_t)bits;
  t.dtype.lanes = 1;
  t.shape = shape;
  return t;
}

/* Calls a kernel by name: nt tensors, then ints / floats by fmt ('i' / 'f'), then out. */
static int call(const char* name, DLTensor** ts, int nt, const char* fmt, const double* vals, DLTensor* out) {
  rlx_packed_fn_t fn = NULL;
  rlx_status_t* st = rlx_registry_get(name, &fn, NULL);
  if (st) {
    rlx_status_free(st);
    return -100;
  }
  rlx_value_t a[40];
  int c[40], n = 0;
  for (int i = 0; i < nt; i++) a[n].v_handle = ts[i], c[n++] = RLX_ARG_DLTENSOR;
  for (int i = 0; fmt[i]; i++) {
    if (fmt[i] == 'i') a[n].v_int64 = (int64_t)vals[i], c[n++] = RLX_ARG_INT;
    else a[n].v_float64 = vals[i], c[n++] = RLX_ARG_FLOAT;
  }
  if (out) a[n].v_handle = out, c[n++] = RLX_ARG_DLTENSOR;
  rlx_value_t ret;
  int rc = RLX_ARG_NULLPTR;
  return fn(a, c, n, &ret, &rc, NULL);
}

/* NCHW uint8 -> blocks of nb (padded channels: pad). */
static uint8_t* to_blocked(const uint8_t* x, int64_t n, int64_t c, int64_t hw, int64_t nb, uint8_t pad) {
  const int64_t cb = (c + nb - 1) / nb;
  uint8_t* y = malloc((size_t)(n * cb * hw * nb));
  for (int64_t i = 0; i < n; i++)
    for (int64_t ch = 0; ch < cb * nb; ch++)
      for (int64_t p = 0; p < hw; p++)
        y[((i * cb + ch / nb) * hw + p) * nb + ch % nb] = ch < c ? x[(i * c + ch) * hw + p] : pad;
  return y;
}

/* The requantization as the kernels define it (nn_kernels.h). */
static uint8_t requant(int64_t acc, float mult, int32_t zp, int32_t lo, int32_t hi) {
  int32_t q = (int32_t)nearbyintf((float)acc * mult) + zp;
  return (uint8_t)(q < lo ? lo : q > hi ? hi : q);
}

typedef struct {
  int64_t n, ic, h, w, oc, kh, kw, s, pad, dil;
  bool dw;
  int64_t cbi; /* 0: the block; 4: NCHW4c input */
  int32_t xz, yz, lo, hi;
} qcase_t;

/* One convolution case: the kernel (packed ABI, and the variant's table with VNNI off and on)
 * against the reference. */
static void run_qconv(const qcase_t* k, int64_t nb, uint64_t seed) {
  const int64_t oh = (k->h + 2 * k->pad - k->dil * (k->kh - 1) - 1) / k->s + 1;
  const int64_t ow = (k->w + 2 * k->pad - k->dil * (k->kw - 1) - 1) / k->s + 1;
  const int64_t icw = k->dw ? 1 : k->ic, cbi = k->cbi ? k->cbi : nb, per = icw * k->kh * k->kw;
  uint8_t* x = malloc((size_t)(k->n * k->ic * k->h * k->w));
  int8_t* w = malloc((size_t)(k->oc * per));
  int32_t* qb = malloc((size_t)k->oc * 4);
  for (int64_t i = 0; i < k->n * k->ic * k->h * k->w; i++) x[i] = (uint8_t)rnd(&seed);
  for (int64_t i = 0; i < k->oc * per; i++) w[i] = (int8_t)((int)(rnd(&seed) % 255) - 127);
  for (int64_t o = 0; o < k->oc; o++) qb[o] = (int32_t)(rnd(&seed) % 20001) - 10000;
  const int64_t ocb = (k->oc + nb - 1) / nb;
  int32_t* bias = calloc((size_t)(ocb * nb), 4);
  float* mult = calloc((size_t)(ocb * nb), 4);
  for (int64_t o = 0; o < k->oc; o++) {
    int64_t sum = 0;
    for (int64_t i = 0; i < per; i++) sum += w[o * per + i];
    bias[o] = (int32_t)(qb[o] - k->xz * sum);
    mult[o] = 0.5f / (float)(per * 64) * (1.0f + (float)(o % 7) / 8.0f);
  }
  /* reference, NCHW */
  uint8_t* want = malloc((size_t)(k->n * k->oc * oh * ow));
  for (int64_t i = 0; i < k->n; i++)
    for (int64_t o = 0; o < k->oc; o++)
      for (int64_t y = 0; y < oh; y++)
        for (int64_t xo = 0; xo < ow; xo++) {
          int64_t acc = qb[o];
          for (int64_t c = 0; c < icw; c++)
            for (int64_t a = 0; a < k->kh; a++)
              for (int64_t b = 0; b < k->kw; b++) {
                const int64_t ih = y * k->s - k->pad + a * k->dil, iw = xo * k->s - k->pad + b * k->dil;
                const int64_t ch = k->dw ? o : c;
                const int32_t v = ih < 0 || ih >= k->h || iw < 0 || iw >= k->w
                                      ? k->xz
                                      : x[((i * k->ic + ch) * k->h + ih) * k->w + iw];
                acc += (int64_t)(v - k->xz) * w[((o * icw + c) * k->kh + a) * k->kw + b];
              }
          want[((i * k->oc + o) * oh + y) * ow + xo] = requant(acc, mult[o], k->yz, k->lo, k->hi);
        }
  /* the kernel */
  uint8_t* xb = to_blocked(x, k->n, k->ic, k->h * k->w, cbi, 7);
  const int64_t icb = (k->ic + cbi - 1) / cbi;
  void* wp;
  int64_t wshape[5];
  int wnd;
  if (k->dw) {
    wp = malloc((size_t)(ocb * k->kh * k->kw * nb) * 4);
    rlx_nn_qdw_pack_weight(w, k->oc, k->kh, k->kw, nb, wp);
    wnd = 4, wshape[0] = ocb, wshape[1] = k->kh, wshape[2] = k->kw, wshape[3] = nb;
  } else {
    wp = malloc((size_t)rlx_nn_qconv_packed_bytes(k->oc, k->ic, k->kh, k->kw, cbi, nb));
    rlx_nn_qconv_pack_weight(w, k->oc, k->ic, k->kh, k->kw, cbi, nb, wp);
    wnd = 5, wshape[0] = ocb, wshape[1] = icb, wshape[2] = k->kh, wshape[3] = k->kw, wshape[4] = cbi * nb;
  }
  const int64_t ysz = k->n * ocb * oh * ow * nb;
  uint8_t* yb = malloc((size_t)ysz);
  int64_t xs[5] = {k->n, icb, k->h, k->w, cbi}, ys[5] = {k->n, ocb, oh, ow, nb}, bs[1] = {ocb * nb};
  DLTensor tx = dlt(xb, kDLUInt, 8, 5, xs), tw = dlt(wp, kDLInt, k->dw ? 32 : 8, wnd, wshape);
  DLTensor tb = dlt(bias, kDLInt, 32, 1, bs), tm = dlt(mult, kDLFloat, 32, 1, bs), ty = dlt(yb, kDLUInt, 8, 5, ys);
  DLTensor* ts[4] = {&tx, &tw, &tb, &tm};
  const double g[10] = {(double)k->s, (double)k->s, (double)k->pad, (double)k->pad, (double)k->dil, (double)k->dil,
                        k->xz, k->yz, k->lo, k->hi};
  const char* name = k->dw ? "rlx.nn.qdwconv2d_nchwc" : "rlx.nn.qconv2d_nchwc";
  const rlx_nn_kernels_t* kern = rlx_nn_kernels(nb, NULL);
  for (int vnni = -1; vnni <= 1; vnni++) { /* -1: the packed ABI's choice; 0, 1: the AVX-512 paths */
    memset(yb, 0xAB, (size_t)ysz);
    if (vnni < 0) {
      CHECK_MSG(call(name, ts, 4, "iiiiiiiiii", g, &ty) == 0, "%s: %s", name, rlx_last_error());
    } else {
      if (nb != 16 || k->dw) break;
      if (vnni == 1 && !rlx_nn_cpu_vnni()) {
        printf("  qconv2d VNNI: skipped: no avx512vnni\n");
        break;
      }
      rlx_nn_qconv_t q;
      memset(&q, 0, sizeof(q));
      rlx_nn_conv_t* p = &q.g;
      p->n = k->n, p->ic = icb * cbi, p->h = k->h, p->w = k->w, p->oc = ocb * nb, p->oh = oh, p->ow = ow;
      p->kh = k->kh, p->kw = k->kw, p->sh = p->sw = k->s, p->dh = p->dw = k->dil, p->pt = p->pl = k->pad;
      p->nb = nb, p->cbi = cbi;
      q.x_zp = k->xz, q.y_zp = k->yz, q.y_lo = k->lo, q.y_hi = k->hi, q.vnni = vnni;
      CHECK(kern->qconv2d(&q, xb, wp, bias, mult, yb) == 0);
    }
    int64_t bad = 0;
    for (int64_t i = 0; i < k->n; i++)
      for (int64_t o = 0; o < k->oc; o++)
        for (int64_t p = 0; p < oh * ow; p++) {
          const uint8_t got = yb[((i * ocb + o / nb) * oh * ow + p) * nb + o % nb];
          if (got != want[(i * k->oc + o) * oh * ow + p] && bad++ < 3)
            printf("  %s ic %lld oc %lld %lldx%lld k%lld s%lld p%lld d%lld: [%lld,%lld,%lld] got %d want %d\n", name,
                   (long long)k->ic, (long long)k->oc, (long long)k->h, (long long)k->w, (long long)k->kh, (long long)k->s,
                   (long long)k->pad, (long long)k->dil, (long long)i, (long long)o, (long long)p, got,
                   want[(i * k->oc + o) * oh * ow + p]);
        }
    CHECK_MSG(bad == 0, "%s (vnni %d): %lld outputs differ from the reference", name, vnni, (long long)bad);
  }
  free(x), free(w), free(qb), free(bias), free(mult), free(want), free(xb), free(wp), free(yb);
}

static void test_convs(int64_t nb) {
  const qcase_t cases[] = {
      /* n ic h w oc kh kw s pad dil dw cbi xz yz lo hi */
      {1, 3, 11, 13, 16, 3, 3, 2, 1, 1, false, 4, 131, 3, 0, 255},     /* a first layer: NCHW4c RGB input */
      {1, 16, 7, 7, 24, 3, 3, 1, 1, 1, false, 0, 0, 128, 0, 255},      /* 7-pixel rows: partial tiles */
      {2, 32, 5, 13, 40, 1, 1, 1, 0, 1, false, 0, 17, 9, 9, 200},      /* odd blocks, 13 = 8 + 5, clamp */
      {1, 24, 9, 9, 16, 3, 3, 1, 2, 2, false, 0, 200, 0, 0, 255},      /* dilation, wide padding */
      {1, 8, 12, 12, 8, 5, 5, 3, 2, 1, false, 0, 255, 255, 0, 255},    /* stride 3, zero points 255 */
      {1, 48, 14, 14, 48, 3, 3, 1, 1, 1, true, 0, 90, 4, 4, 250},      /* depthwise 3x3 */
      {1, 24, 15, 15, 24, 3, 3, 2, 1, 1, true, 0, 0, 0, 0, 255},       /* depthwise stride 2 */
      {1, 16, 9, 10, 16, 5, 5, 1, 2, 1, true, 0, 33, 100, 0, 255},     /* depthwise 5x5 */
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) run_qconv(&cases[i], nb, 1000 + i);
}

/* quantize_nchwc, qnchwc_to_nchw, qmax_pool2d, qmean_hw, qadd, qconcat, qlut. */
static void test_elementwise(int64_t nb) {
  uint64_t seed = 7;
  const int64_t n = 1, c = 2 * nb, h = 9, w = 7, hw = h * w, cb = c / nb, numel = n * cb * hw * nb;
  /* quantize: the float values exactly at half steps round to even */
  float* xf = malloc((size_t)(n * c * hw) * 4);
  for (int64_t i = 0; i < n * c * hw; i++) xf[i] = (float)((int)(rnd(&seed) % 801) - 400) * 0.25f;
  uint8_t* q = malloc((size_t)numel);
  int64_t fs[4] = {n, c, h, w}, bs[5] = {n, cb, h, w, nb};
  DLTensor tf = dlt(xf, kDLFloat, 32, 4, fs), tq = dlt(q, kDLUInt, 8, 5, bs);
  DLTensor* t1[1] = {&tf};
  const double qp[2] = {0.5, 100};
  CHECK(call("rlx.nn.quantize_nchwc", t1, 1, "fi", qp, &tq) == 0);
  int64_t bad = 0;
  for (int64_t ch = 0; ch < c; ch++)
    for (int64_t p = 0; p < hw; p++) {
      int32_t r = (int32_t)nearbyintf(xf[ch * hw + p] / 0.5f) + 100;
      r = r < 0 ? 0 : r > 255 ? 255 : r;
      bad += q[((ch / nb) * hw + p) * nb + ch % nb] != r;
    }
  CHECK_MSG(bad == 0, "quantize_nchwc: %lld values differ", (long long)bad);
  /* back to NCHW */
  uint8_t* plain = malloc((size_t)(n * c * hw));
  DLTensor tp = dlt(plain, kDLUInt, 8, 4, fs);
  DLTensor* tb1[1] = {&tq};
  CHECK(call("rlx.nn.qnchwc_to_nchw", tb1, 1, "", NULL, &tp) == 0);
  bad = 0;
  for (int64_t ch = 0; ch < c; ch++)
    for (int64_t p = 0; p < hw; p++) bad += plain[ch * hw + p] != q[((ch / nb) * hw + p) * nb + ch % nb];
  CHECK_MSG(bad == 0, "qnchwc_to_nchw: %lld values differ", (long long)bad);
  /* max pool 3x3 stride 2 pad 1 with a table that halves */
  uint8_t lut[256];
  for (int v = 0; v < 256; v++) lut[v] = (uint8_t)(v / 2);
  const int64_t ph = (h + 2 - 3) / 2 + 1, pw = (w + 2 - 3) / 2 + 1;
  uint8_t* pool = malloc((size_t)(n * cb * ph * pw * nb));
  int64_t ls[1] = {256}, ps[5] = {n, cb, ph, pw, nb};
  DLTensor tl = dlt(lut, kDLUInt, 8, 1, ls), tpo = dlt(pool, kDLUInt, 8, 5, ps);
  DLTensor* t2[2] = {&tq, &tl};
  const double pg[8] = {3, 3, 2, 2, 1, 1, 1, 1};
  CHECK(call("rlx.nn.qmax_pool2d_nchwc", t2, 2, "iiiiiiii", pg, &tpo) == 0);
  bad = 0;
  for (int64_t ch = 0; ch < c; ch++)
    for (int64_t y = 0; y < ph; y++)
      for (int64_t x = 0; x < pw; x++) {
        int m = 0;
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++) {
            const int64_t ih = y * 2 - 1 + a, iw = x * 2 - 1 + b;
            if (ih >= 0 && ih < h && iw >= 0 && iw < w && plain[(ch * h + ih) * w + iw] > m) m = plain[(ch * h + ih) * w + iw];
          }
        bad += pool[(((ch / nb) * ph + y) * pw + x) * nb + ch % nb] != lut[m];
      }
  CHECK_MSG(bad == 0, "qmax_pool2d_nchwc: %lld values differ", (long long)bad);
  /* mean over H, W */
  uint8_t* mean = malloc((size_t)(n * cb * nb));
  int64_t ms[5] = {n, cb, 1, 1, nb};
  DLTensor tm = dlt(mean, kDLUInt, 8, 5, ms);
  const double mp[4] = {0.5, 100, 0.25, 10};
  CHECK(call("rlx.nn.qmean_hw_nchwc", tb1, 1, "fifi", mp, &tm) == 0);
  bad = 0;
  for (int64_t ch = 0; ch < c; ch++) {
    int32_t s = 0;
    for (int64_t p = 0; p < hw; p++) s += plain[ch * hw + p];
    const float m = ((float)s - 100.0f * (float)hw) * 0.5f / (float)hw;
    int32_t r = (int32_t)nearbyintf(m / 0.25f) + 10;
    bad += mean[ch] != (r < 0 ? 0 : r > 255 ? 255 : r);
  }
  CHECK_MSG(bad == 0, "qmean_hw_nchwc: %lld values differ", (long long)bad);
  /* add with a clamp (a folded relu: lo = the zero point) */
  uint8_t* b = malloc((size_t)numel);
  uint8_t* sum = malloc((size_t)numel);
  for (int64_t i = 0; i < numel; i++) b[i] = (uint8_t)rnd(&seed);
  DLTensor tbb = dlt(b, kDLUInt, 8, 5, bs), ts = dlt(sum, kDLUInt, 8, 5, bs);
  DLTensor* t3[2] = {&tq, &tbb};
  const double ap[8] = {0.5, 100, 0.125, 30, 0.375, 20, 20, 250};
  CHECK(call("rlx.nn.qadd_nchwc", t3, 2, "fififiii", ap, &ts) == 0);
  bad = 0;
  for (int64_t i = 0; i < numel; i++) {
    const float v = (((float)q[i] - 100.0f) * 0.5f + ((float)b[i] - 30.0f) * 0.125f) / 0.375f;
    int32_t r = (int32_t)nearbyintf(v) + 20;
    bad += sum[i] != (r < 20 ? 20 : r > 250 ? 250 : r);
  }
  CHECK_MSG(bad == 0, "qadd_nchwc: %lld values differ", (long long)bad);
  /* concat: q (identity table) then b (halving table) */
  uint8_t ident[256];
  for (int v = 0; v < 256; v++) ident[v] = (uint8_t)v;
  uint8_t* cat = malloc((size_t)(2 * numel));
  int64_t cs[5] = {n, 2 * cb, h, w, nb};
  DLTensor ti = dlt(ident, kDLUInt, 8, 1, ls), tc = dlt(cat, kDLUInt, 8, 5, cs);
  DLTensor* t4[4] = {&tq, &ti, &tbb, &tl};
  CHECK(call("rlx.nn.qconcat_nchwc", t4, 4, "", NULL, &tc) == 0);
  bad = 0;
  for (int64_t i = 0; i < numel; i++) bad += cat[i] != q[i] || cat[numel + i] != lut[b[i]];
  CHECK_MSG(bad == 0, "qconcat_nchwc: %lld values differ", (long long)bad);
  /* malformed calls are errors of the call */
  CHECK(call("rlx.nn.qadd_nchwc", t3, 2, "fifi", ap, &ts) != 0);
  CHECK(strstr(rlx_last_error(), "rlx.nn.qadd_nchwc") != NULL);
  DLTensor* t5[4] = {&tq, &tf, &tf, &tf};
  const double g[10] = {1, 1, 0, 0, 1, 1, 0, 0, 0, 255};
  CHECK(call("rlx.nn.qconv2d_nchwc", t5, 4, "iiiiiiiiii", g, &tc) != 0);
  CHECK(strstr(rlx_last_error(), "rlx.nn.qconv2d_nchwc") != NULL);
  free(xf), free(q), free(plain), free(pool), free(mean), free(b), free(sum), free(cat);
}

int main(int argc, char** argv) {
  for (int64_t nb = 8; nb <= 16; nb += 8) {
    const char* why = NULL;
    const rlx_nn_kernels_t* k = rlx_nn_kernels(nb, &why);
    if (!k) {
      printf("NCHW%lldc int8: skipped: no avx512f (%s)\n", (long long)nb, why);
      CHECK(nb == 16);
      continue;
    }
    printf("NCHW%lldc int8: the %s kernels%s\n", (long long)nb, k->isa, nb == 16 && rlx_nn_cpu_vnni() ? " (VNNI)" : "");
    test_convs(nb);
    test_elementwise(nb);
  }
  run_lower_levels(argc, argv, "the int8 kernels' tests");
  TEST_MAIN_END();
}
