/* The int8 kernels that are not worth a build per ISA (nn_kernels.h, "Integer kernels"):
 * memory-bound passes over uint8 NCHWc tensors — quantizing a float NCHW input, the layout
 * back to NCHW, max pool, channel mean, add, and requantization through a 256-entry table.
 * Built once for the baseline; the rows or chunks run on the kernels' pool.
 *
 * Rounding and saturation are ONNX QuantizeLinear's: round half to even (nearbyintf in the
 * default rounding mode), then the zero point, then the clamp; the float arithmetic before
 * it is done in the order the QDQ graph's float ops do it, so these kernels give what
 * DequantizeLinear -> op -> QuantizeLinear gives. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "nn_kernels.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

/* m[0..nb) = max(m, x) bytewise (nb 8 or 16). */
static inline void max_bytes(uint8_t* m, const uint8_t* x, int64_t nb) {
#if defined(__SSE2__)
  if (nb == 16) {
    _mm_storeu_si128((__m128i*)(void*)m, _mm_max_epu8(_mm_loadu_si128((const __m128i*)(const void*)m),
                                                      _mm_loadu_si128((const __m128i*)(const void*)x)));
    return;
  }
#elif defined(__aarch64__)
  if (nb == 16) {
    vst1q_u8(m, vmaxq_u8(vld1q_u8(m), vld1q_u8(x)));
    return;
  }
#endif
  for (int64_t k = 0; k < nb; k++) m[k] = x[k] > m[k] ? x[k] : m[k];
}

/* Round half to even, zero point, clamp. The rounding adds and subtracts 1.5 * 2^23 (exact
 * for |v| < 2^22, and v is clamped first: the result saturates anyway), which vectorizes and
 * needs no libm call (nearbyintf is one on SSE2, saving and restoring the FP environment). */
static inline uint8_t sat(float v, int32_t zp, int32_t lo, int32_t hi) {
  v = v < -4.0e6f ? -4.0e6f : v > 4.0e6f ? 4.0e6f : v;
  int32_t q = (int32_t)((v + 12582912.0f) - 12582912.0f) + zp;
  return (uint8_t)(q < lo ? lo : q > hi ? hi : q);
}

typedef struct {
  const rlx_nn_kernels_t* k;
  const float* x;
  float scale;
  int32_t zp;
  uint8_t* y;
  int64_t c, hw, nb, cb;
} quant_job_t;

enum { QUANT_PX = 4096 }; /* pixels per work item */

static void quant_item(void* ctx, int64_t item, void* scratch) {
  (void)scratch;
  const quant_job_t* j = ctx;
  const int64_t chunks = (j->hw + QUANT_PX - 1) / QUANT_PX, p0 = item % chunks * QUANT_PX, ib = item / chunks;
  const int64_t p1 = p0 + QUANT_PX < j->hw ? p0 + QUANT_PX : j->hw, nb = j->nb, b = ib % j->cb, i = ib / j->cb;
  uint8_t* yb = j->y + ib * j->hw * nb;
  for (int64_t k = 0; k < nb; k++) {
    const int64_t ch = b * nb + k;
    if (ch >= j->c) {
      for (int64_t p = p0; p < p1; p++) yb[p * nb + k] = (uint8_t)j->zp;
      continue;
    }
    j->k->quantize_span(j->x + (i * j->c + ch) * j->hw + p0, p1 - p0, j->scale, j->zp, yb + p0 * nb + k, nb);
  }
}

void rlx_nn_quantize_nchwc(const rlx_nn_kernels_t* k, int64_t n, int64_t c, int64_t hw, int64_t nb, const float* x,
                           float scale, int32_t zp, uint8_t* y) {
  quant_job_t j = {k, x, scale, zp, y, c, hw, nb, (c + nb - 1) / nb};
  (void)rlx_nn_parallel(n * j.cb * ((hw + QUANT_PX - 1) / QUANT_PX), 0, quant_item, &j); /* no scratch: cannot fail */
}

void rlx_nn_qnchwc_to_nchw(int64_t n, int64_t c, int64_t hw, int64_t nb, const uint8_t* x, uint8_t* y) {
  const int64_t cb = (c + nb - 1) / nb;
  for (int64_t i = 0; i < n; i++)
    for (int64_t ch = 0; ch < c; ch++) {
      const uint8_t* xb = x + (i * cb + ch / nb) * hw * nb + ch % nb;
      uint8_t* yc = y + (i * c + ch) * hw;
      for (int64_t p = 0; p < hw; p++) yc[p] = xb[p * nb];
    }
}

/* ------------------------------------------------------------------ max pool */
typedef struct {
  const rlx_nn_conv_t* p;
  const uint8_t* x;
  const uint8_t* lut;
  uint8_t* y;
  int64_t cb;
  bool identity; /* no lut, or an identity one */
} qpool_job_t;

static void qpool_item(void* ctx, int64_t item, void* scratch) {
  (void)scratch;
  const qpool_job_t* j = ctx;
  const rlx_nn_conv_t* p = j->p;
  const int64_t nb = p->nb, oh = item % p->oh, b = item / p->oh;
  const uint8_t* xb = j->x + b * p->h * p->w * nb;
  uint8_t* yr = j->y + (b * p->oh + oh) * p->ow * nb;
  for (int64_t ow = 0; ow < p->ow; ow++) {
    uint8_t m[16] = {0};
    for (int64_t kh = 0; kh < p->kh; kh++) {
      const int64_t ih = oh * p->sh - p->pt + kh * p->dh;
      if (ih < 0 || ih >= p->h) continue;
      for (int64_t kw = 0; kw < p->kw; kw++) {
        const int64_t iw = ow * p->sw - p->pl + kw * p->dw;
        if (iw < 0 || iw >= p->w) continue;
        max_bytes(m, xb + (ih * p->w + iw) * nb, nb);
      }
    }
    if (j->identity)
      memcpy(yr + ow * nb, m, (size_t)nb);
    else
      for (int64_t k = 0; k < nb; k++) yr[ow * nb + k] = j->lut[m[k]];
  }
}

int rlx_nn_qmax_pool2d_nchwc(const rlx_nn_conv_t* p, const uint8_t* lut, const uint8_t* x, uint8_t* y) {
  qpool_job_t j = {p, x, lut, y, (p->ic + p->nb - 1) / p->nb, true};
  for (int v = 0; lut && v < 256 && j.identity; v++) j.identity = lut[v] == v;
  return rlx_nn_parallel(p->n * j.cb * p->oh, 0, qpool_item, &j);
}

/* ------------------------------------------------------------------ mean over H, W */
void rlx_nn_qmean_hw_nchwc(int64_t n, int64_t cb, int64_t hw, int64_t nb, const uint8_t* x, float sx, int32_t zx,
                           float sy, int32_t zy, uint8_t* y) {
  for (int64_t i = 0; i < n * cb; i++) {
    int32_t acc[16] = {0};
    const uint8_t* xb = x + i * hw * nb;
    for (int64_t p = 0; p < hw; p++)
      for (int64_t k = 0; k < nb; k++) acc[k] += xb[p * nb + k];
    for (int64_t k = 0; k < nb; k++) {
      /* the mean of the dequantized values, as the float graph computes it up to summation order */
      float mean = ((float)acc[k] - (float)zx * (float)hw) * sx / (float)hw;
      y[i * nb + k] = sat(mean / sy, zy, 0, 255);
    }
  }
}

/* ------------------------------------------------------------------ elementwise */
typedef struct {
  const rlx_nn_kernels_t* k;
  const uint8_t *a, *b, *lut;
  const rlx_nn_qadd_t* q;
  uint8_t* y;
  int64_t numel, per;
} qew_job_t;

enum { QEW_CHUNK = 16384 };

static void qadd_item(void* ctx, int64_t item, void* scratch) {
  (void)scratch;
  const qew_job_t* j = ctx;
  const int64_t i0 = item * QEW_CHUNK, i1 = i0 + QEW_CHUNK < j->numel ? i0 + QEW_CHUNK : j->numel;
  j->k->qadd_span(j->q, j->a + i0, j->b + i0, j->y + i0, i1 - i0);
}

int rlx_nn_qadd_nchwc(const rlx_nn_kernels_t* k, const rlx_nn_qadd_t* q, int64_t numel, const uint8_t* a, const uint8_t* b,
                      uint8_t* y) {
  qew_job_t j = {k, a, b, NULL, q, y, numel, 0};
  return rlx_nn_parallel((numel + QEW_CHUNK - 1) / QEW_CHUNK, 0, qadd_item, &j);
}

static void qlut_item(void* ctx, int64_t item, void* scratch) {
  (void)scratch;
  const qew_job_t* j = ctx;
  const int64_t i0 = item * QEW_CHUNK, i1 = i0 + QEW_CHUNK < j->numel ? i0 + QEW_CHUNK : j->numel;
  for (int64_t i = i0; i < i1; i++) j->y[i] = j->lut[j->a[i]];
}

int rlx_nn_qlut_nchwc(int64_t numel, const uint8_t* lut, const uint8_t* x, uint8_t* y) {
  qew_job_t j = {NULL, x, NULL, lut, NULL, y, numel, 0};
  return rlx_nn_parallel((numel + QEW_CHUNK - 1) / QEW_CHUNK, 0, qlut_item, &j);
}

/* ------------------------------------------------------------------ concat over channels */
typedef struct {
  int k;
  const uint8_t* const* x;
  const uint8_t* const* lut;
  const int64_t* cb; /* channel blocks per part */
  uint8_t* y;
  int64_t n, ycb, plane; /* plane: bytes of one channel block (H * W * nb) */
} qcat_job_t;

static void qcat_item(void* ctx, int64_t item, void* scratch) {
  (void)scratch;
  const qcat_job_t* j = ctx;
  const int64_t b = item % j->ycb, i = item / j->ycb;
  int64_t part = 0, off = b;
  while (off >= j->cb[part]) off -= j->cb[part++];
  const uint8_t* src = j->x[part] + (i * j->cb[part] + off) * j->plane;
  uint8_t* dst = j->y + (i * j->ycb + b) * j->plane;
  const uint8_t* lut = j->lut[part];
  if (!lut) {
    memcpy(dst, src, (size_t)j->plane);
    return;
  }
  for (int64_t e = 0; e < j->plane; e++) dst[e] = lut[src[e]];
}

int rlx_nn_qconcat_nchwc(int k, const uint8_t* const* x, const uint8_t* const* lut, const int64_t* cb, int64_t n,
                         int64_t plane, uint8_t* y) {
  qcat_job_t j = {k, x, lut, cb, y, n, 0, plane};
  for (int p = 0; p < k; p++) j.ycb += cb[p];
  return rlx_nn_parallel(n * j.ycb, 0, qcat_item, &j);
}
