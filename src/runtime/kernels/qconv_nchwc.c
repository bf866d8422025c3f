/* int8 convolutions over NCHWc (nn_kernels.h, "Integer kernels"), one variant (nn_vec.h):
 * uint8 activations, int8 weights, int32 accumulators, requantized to uint8 in the epilogue.
 *
 * The product step is u8 x s8 -> s32 over four input channels at a time (a "quad"): the
 * weights are packed [OCb][ICb][KH][KW][NB/4][NB][4], so one output block's weights for a
 * quad are NB*4 bytes, one native vector on AVX2 (NB 8) and AVX-512 (NB 16), and one input
 * pixel's quad is a 32-bit word broadcast to every lane. Per ISA:
 *   AVX-512 VNNI   vpdpbusd: 64 multiply-adds per instruction (a function built with
 *                  target("avx512vnni"), taken when the CPU has it: rlx_nn_qconv_t.vnni);
 *   AVX-512BW, AVX2  vpmaddubsw + vpmaddwd. vpmaddubsw sums two u8 x s8 products into an
 *                  int16 with saturation, which 255*127*2 would overflow: the input bytes
 *                  are split into their low 7 bits and their top bit (x = lo + 128*hi), each
 *                  part's pair sums fit in int16 (127*127*2, 128*127*2), so the result is
 *                  exact for any int8 weight but -128 (the pass quantizes weights to
 *                  [-127, 127], as symmetric quantization does; a -128 weight is refused);
 *   others         plain C over int32 (GCC vectorizes what it can; NEON's sdot/udot need
 *                  unsigned x signed products, usdot, which is i8mm: not done yet).
 *
 * acc = sum x*w over the window; the zero points are handled at compile time: the bias
 * passed in is qbias - x_zp * sum(w) per output channel, and padding reads x_zp (so a padded
 * tap contributes x_zp*w, which the compensation cancels). Epilogue per channel c:
 * y = clamp(round_half_even(acc * mult[c]) + y_zp, y_lo, y_hi), mult = x_scale * w_scale[c] /
 * y_scale, and y_lo / y_hi carry a folded Relu / Clip. Work items: (image, output row, group
 * of output blocks); each copies the input rows of its window, padded with x_zp, into its
 * scratch. */
#include <math.h>
#include <string.h>

#include "nn_variant.h"

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

typedef int32_t qv __attribute__((vector_size(NB * 4)));
typedef float qf __attribute__((vector_size(NB * 4)));

/* Register tiles: QV output blocks x QRW pixels of one row (AVX-512: 2 x 8 = 16 zmm
 * accumulators of 32; 4 x 6 = 24 measured the same on ResNet-18, within the noise; AVX2:
 * 2 x 4 = 8 of 16 ymm, leaving room for the split product step's temporaries; plain C: 1 x 4).
 * Q_CASES supports QV 1, 2, 4 and QRW 4, 6, 8. */
#if NB == 16 && defined(__AVX512BW__)
#define QV 2
#define QRW 8
#elif NB == 8 && defined(__AVX2__)
#define QV 2
#define QRW 4
#else
#define QV 1
#define QRW 4
#endif

typedef struct {
  const rlx_nn_qconv_t* p;
  const uint8_t* x;
  const int8_t* w;
  const int32_t* bias;
  const float* mult;
  uint8_t* y;
  int64_t icb, ocb, cbi, wp, og_per, og_chunks;
} qjob_t;

/* NB bytes widened to int32 lanes, and int32 lanes in [0, 255] narrowed to NB bytes (GCC 12
 * lowers __builtin_convertvector between byte and int vectors lane by lane, through general
 * registers: the intrinsics where the ISA has the instruction). */
static inline void widen_u8(qv* out, const uint8_t* p) {
#if NB == 16 && defined(__AVX512F__)
  *out = (qv)_mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i*)(const void*)p));
#elif NB == 8 && defined(__AVX2__)
  *out = (qv)_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i*)(const void*)p));
#else
  for (int k = 0; k < NB; k++) (*out)[k] = p[k];
#endif
}

static inline void narrow_u8(uint8_t* p, const qv* v) {
#if NB == 16 && defined(__AVX512F__)
  _mm_storeu_si128((__m128i*)(void*)p, _mm512_cvtepi32_epi8((__m512i)*v));
#elif NB == 8 && defined(__AVX2__)
  const __m256i w = _mm256_packus_epi32((__m256i)*v, (__m256i)*v); /* lanes 0-3 | 4-7 per 128-bit half */
  const __m128i h = _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
  const uint64_t lo = (uint64_t)(uint32_t)_mm_cvtsi128_si32(h), hi = (uint64_t)(uint32_t)_mm_extract_epi32(h, 2);
  const uint64_t all = lo | hi << 32;
  memcpy(p, &all, 8);
#else
  for (int k = 0; k < NB; k++) p[k] = (uint8_t)(*v)[k];
#endif
}

/* The requantizing store of one output block of one pixel, on vectors: round half to even
 * by the 1.5 * 2^23 trick (exact for |v| < 2^22; v is clamped first, the result saturates to
 * [0, 255] anyway). */
static inline void q_store(const rlx_nn_qconv_t* q, const qv* acc, const int32_t* bias, const float* mult, uint8_t* y) {
  qv b;
  qf m;
  memcpy(&b, bias, sizeof(b));
  memcpy(&m, mult, sizeof(m));
  qf v = __builtin_convertvector(*acc + b, qf) * m;
  const qf lim = (qf){0} + 4.0e6f, magic = (qf){0} + 12582912.0f;
  qv m1 = v < -lim, m2 = v > lim;
  v = (qf)(((qv)v & ~m1) | ((qv)-lim & m1));
  v = (qf)(((qv)v & ~m2) | ((qv)lim & m2));
  v = (v + magic) - magic;
  qv r = __builtin_convertvector(v, qv) + q->y_zp;
  const qv lo = (qv){0} + q->y_lo, hi = (qv){0} + q->y_hi;
  m1 = r < lo, m2 = r > hi;
  r = (r & ~m1) | (lo & m1);
  r = (r & ~m2) | (hi & m2);
  narrow_u8(y, &r);
}

/* Plain C: acc[o] += sum_k x[k] * w[o][k] for one quad. */
__attribute__((unused)) static inline void dot_c(qv* acc, const uint8_t* x, const int8_t* w) {
  qv s;
  for (int o = 0; o < NB; o++) s[o] = x[0] * w[4 * o] + x[1] * w[4 * o + 1] + x[2] * w[4 * o + 2] + x[3] * w[4 * o + 3];
  *acc += s;
}

#if NB == 8 && defined(__AVX2__)
/* u8 x s8 quads with vpmaddubsw, exact: x = lo7 + 128 * top bit (see the file comment). */
static inline void dot_isa(qv* acc, const uint8_t* x, const int8_t* w) {
  uint32_t q;
  memcpy(&q, x, 4);
  const __m256i xb = _mm256_set1_epi32((int)q), wv = _mm256_loadu_si256((const __m256i*)(const void*)w);
  const __m256i lo = _mm256_and_si256(xb, _mm256_set1_epi8(0x7f)), hi = _mm256_and_si256(xb, _mm256_set1_epi8((char)0x80));
  const __m256i one = _mm256_set1_epi16(1);
  __m256i s = _mm256_add_epi32(_mm256_madd_epi16(_mm256_maddubs_epi16(lo, wv), one),
                               _mm256_madd_epi16(_mm256_maddubs_epi16(hi, wv), one));
  *acc += (qv)s;
}
#define HAVE_DOT_ISA 1
#elif NB == 16 && defined(__AVX512BW__)
static inline void dot_isa(qv* acc, const uint8_t* x, const int8_t* w) {
  uint32_t q;
  memcpy(&q, x, 4);
  const __m512i xb = _mm512_set1_epi32((int)q), wv = _mm512_loadu_si512((const void*)w);
  const __m512i lo = _mm512_and_si512(xb, _mm512_set1_epi8(0x7f)), hi = _mm512_and_si512(xb, _mm512_set1_epi8((char)0x80));
  const __m512i one = _mm512_set1_epi16(1);
  __m512i s = _mm512_add_epi32(_mm512_madd_epi16(_mm512_maddubs_epi16(lo, wv), one),
                               _mm512_madd_epi16(_mm512_maddubs_epi16(hi, wv), one));
  *acc += (qv)s;
}
#define HAVE_DOT_ISA 1
#define HAVE_VNNI 1
__attribute__((target("avx512vnni"))) static inline void dot_vnni(qv* acc, const uint8_t* x, const int8_t* w) {
  uint32_t q;
  memcpy(&q, x, 4);
  *acc = (qv)_mm512_dpbusd_epi32((__m512i)*acc, _mm512_set1_epi32((int)q), _mm512_loadu_si512((const void*)w));
}
#endif

/* One register tile: v output blocks (weights wb[0..v)) x rw pixels from xs (the padded
 * rows at the tile's first pixel), accumulated over the input blocks and the window, then
 * stored through the epilogue. Inlined with constant v and rw for the full tile. */
#define Q_TILE(NAME, DOT, ATTR)                                                                                  \
  ATTR static inline __attribute__((always_inline)) void NAME(const qjob_t* j, const uint8_t* xs0,               \
                                                              const int8_t* const* wb, int v, int rw,            \
                                                              const int32_t* bias, const float* mult, uint8_t* y0, \
                                                              int64_t plane) {                                    \
    const rlx_nn_conv_t* p = &j->p->g;                                                                            \
    const int64_t cbi = j->cbi, spx = p->sw * cbi, quads = cbi / 4;                                               \
    qv acc[QV][QRW];                                                                                              \
    memset(acc, 0, sizeof(acc));                                                                                  \
    for (int64_t ic = 0; ic < j->icb; ic++)                                                                       \
      for (int64_t kh = 0; kh < p->kh; kh++)                                                                      \
        for (int64_t kw = 0; kw < p->kw; kw++) {                                                                  \
          const uint8_t* xs = xs0 + ((ic * p->kh + kh) * j->wp + kw * p->dw) * cbi;                               \
          const int64_t wo = ((ic * p->kh + kh) * p->kw + kw) * cbi * NB;                                         \
          for (int64_t q = 0; q < quads; q++)                                                                     \
            for (int r = 0; r < rw; r++)                                                                          \
              for (int b = 0; b < v; b++) DOT(&acc[b][r], xs + r * spx + 4 * q, wb[b] + wo + q * NB * 4);        \
        }                                                                                                         \
    for (int b = 0; b < v; b++)                                                                                   \
      for (int r = 0; r < rw; r++) q_store(j->p, &acc[b][r], bias + b * NB, mult + b * NB, y0 + b * plane + r * NB); \
  }

/* The switch cases of Q_ROW: case (v - 1) * QRW + rw - 1 calls TILE with those constants. */
#define Q_CASE(TILE, V, RW) \
  case (V - 1) * QRW + RW - 1: \
    TILE(j, xs0, wb, V, RW, j->bias + ob * NB, j->mult + ob * NB, y0, plane); \
    break;
#define Q_CASES_4(TILE, V) Q_CASE(TILE, V, 1) Q_CASE(TILE, V, 2) Q_CASE(TILE, V, 3) Q_CASE(TILE, V, 4)
#if QRW == 4
#define Q_CASES_V(TILE, V) Q_CASES_4(TILE, V)
#elif QRW == 6
#define Q_CASES_V(TILE, V) Q_CASES_4(TILE, V) Q_CASE(TILE, V, 5) Q_CASE(TILE, V, 6)
#elif QRW == 8
#define Q_CASES_V(TILE, V) Q_CASES_4(TILE, V) Q_CASE(TILE, V, 5) Q_CASE(TILE, V, 6) Q_CASE(TILE, V, 7) Q_CASE(TILE, V, 8)
#else
#error "QRW must be 4, 6 or 8"
#endif
#if QV == 1
#define Q_CASES(TILE) Q_CASES_V(TILE, 1)
#elif QV == 2
#define Q_CASES(TILE) Q_CASES_V(TILE, 1) Q_CASES_V(TILE, 2)
#elif QV == 4
#define Q_CASES(TILE) Q_CASES_V(TILE, 1) Q_CASES_V(TILE, 2) Q_CASES_V(TILE, 3) Q_CASES_V(TILE, 4)
#else
#error "QV must be 1, 2 or 4"
#endif

/* One row of the output for groups [g0, g1) of output blocks, reading the padded rows s
 * ([icb][kh][wp][cbi]). */
#define Q_ROW(NAME, TILE, ATTR)                                                                                 \
  ATTR static void NAME(const qjob_t* j, const uint8_t* s, int64_t g0, int64_t g1, uint8_t* yrow) {             \
    const rlx_nn_conv_t* p = &j->p->g;                                                                          \
    const int64_t wblk = j->icb * p->kh * p->kw * j->cbi * NB, plane = p->oh * p->ow * NB;                      \
    for (int64_t ob = g0; ob < g1; ob += QV) {                                                                  \
      const int v = g1 - ob < QV ? (int)(g1 - ob) : QV;                                                         \
      const int8_t* wb[QV];                                                                                     \
      for (int b = 0; b < QV; b++) wb[b] = j->w + (ob + (b < v ? b : 0)) * wblk;                                \
      for (int64_t x0 = 0; x0 < p->ow; x0 += QRW) {                                                             \
        const int rw = p->ow - x0 < QRW ? (int)(p->ow - x0) : QRW;                                             \
        const uint8_t* xs0 = s + x0 * p->sw * j->cbi;                                                           \
        uint8_t* y0 = yrow + ob * plane + x0 * NB;                                                              \
        /* every (v, rw) an instance with constant bounds: accumulators stay in registers */                   \
        switch ((v - 1) * QRW + rw - 1) {                                                                        \
          Q_CASES(TILE)                                                                                         \
          default:                                                                                              \
            break;                                                                                              \
        }                                                                                                       \
      }                                                                                                         \
    }                                                                                                           \
  }

#if HAVE_VNNI
Q_TILE(tile_vnni, dot_vnni, __attribute__((target("avx512vnni"))))
Q_ROW(row_vnni, tile_vnni, __attribute__((target("avx512vnni"))))
#endif
#if HAVE_DOT_ISA
Q_TILE(tile_isa, dot_isa, )
Q_ROW(row_isa, tile_isa, )
#else
Q_TILE(tile_c, dot_c, )
Q_ROW(row_c, tile_c, )
#endif

/* The input rows output row oh reads, with zero-point borders: s[icb][kh][wp][NB]. */
static void pad_rows(const qjob_t* j, int64_t n, int64_t oh, uint8_t* s) {
  const rlx_nn_conv_t* p = &j->p->g;
  const int zp = j->p->x_zp;
  const int64_t iw0 = -p->pl, cbi = j->cbi, row = j->wp * cbi;
  for (int64_t ic = 0; ic < j->icb; ic++)
    for (int64_t kh = 0; kh < p->kh; kh++) {
      uint8_t* d = s + (ic * p->kh + kh) * row;
      const int64_t ih = oh * p->sh - p->pt + kh * p->dh;
      if (ih < 0 || ih >= p->h) {
        memset(d, zp, (size_t)row);
        continue;
      }
      const uint8_t* src = j->x + (((n * j->icb + ic) * p->h + ih) * p->w) * cbi;
      const int64_t c0 = iw0 < 0 ? -iw0 : 0, c1 = iw0 + j->wp > p->w ? p->w - iw0 : j->wp;
      memset(d, zp, (size_t)(c0 * cbi));
      if (c1 > c0) memcpy(d + c0 * cbi, src + (iw0 + c0) * cbi, (size_t)((c1 - c0) * cbi));
      if (j->wp > c1) memset(d + (c1 > c0 ? c1 : c0) * cbi, zp, (size_t)((j->wp - (c1 > c0 ? c1 : c0)) * cbi));
    }
}

static void qconv_item(void* ctx, int64_t item, void* scratch) {
  const qjob_t* j = ctx;
  const rlx_nn_conv_t* p = &j->p->g;
  const int64_t rows = p->n * p->oh, chunk = item / rows, row = item % rows, n = row / p->oh, oh = row % p->oh;
  const int64_t g0 = chunk * j->og_per, g1 = g0 + j->og_per < j->ocb ? g0 + j->og_per : j->ocb;
  uint8_t* s = scratch;
  pad_rows(j, n, oh, s);
  uint8_t* yrow = j->y + ((n * j->ocb) * p->oh + oh) * p->ow * NB;
  (void)rows;
#if HAVE_VNNI
  if (j->p->vnni) {
    row_vnni(j, s, g0, g1, yrow);
    return;
  }
#endif
#if HAVE_DOT_ISA
  row_isa(j, s, g0, g1, yrow);
#else
  row_c(j, s, g0, g1, yrow);
#endif
}

int KSYM(rlx_nn_qconv2d_nchwc)(const rlx_nn_qconv_t* q, const uint8_t* x, const int8_t* w, const int32_t* bias,
                               const float* mult, uint8_t* y) {
  const rlx_nn_conv_t* p = &q->g;
  /* the input's channels per block: NB, or 4 for a network's first layer (cbi 4: RGB) */
  qjob_t j = {q, x, w, bias, mult, y, (p->ic + p->cbi - 1) / p->cbi, (p->oc + NB - 1) / NB, p->cbi, 0, 0, 0};
  j.wp = (p->ow - 1) * p->sw + (p->kw - 1) * p->dw + 1;
  const int64_t rows = p->n * p->oh, threads = rlx_nn_num_threads();
  /* items: (group of output blocks, output row), groups outermost, so consecutive items
   * (and each thread's contiguous range) reuse one group's weights from L1/L2 over all rows;
   * a group is one register tile of blocks, or more where its weights are small (the rows'
   * copies are then shared by more blocks) */
  const int64_t wgroup = j.icb * p->kh * p->kw * j.cbi * NB; /* bytes of one block's weights */
  j.og_per = QV;
  while (j.og_per < j.ocb && j.og_per * 2 * wgroup <= 64 * 1024 && rows * ((j.ocb + j.og_per * 2 - 1) / (j.og_per * 2)) >= 8 * threads)
    j.og_per *= 2;
  j.og_chunks = (j.ocb + j.og_per - 1) / j.og_per;
  const size_t scratch = (size_t)(j.icb * p->kh * j.wp * j.cbi);
  return rlx_nn_parallel(rows * j.og_chunks, scratch, qconv_item, &j);
}

/* ------------------------------------------------------------------ depthwise */
/* y = requant(sum over the window of x * w + bias) per channel; w is int32 [Cb][KH][KW][NB]
 * (int8 values), bias compensated as for qconv2d. Items: (image, block, output row); each
 * copies the rows of its window, padded with x_zp, into its scratch, so the pixel loop has
 * no bounds checks: per tap, NB bytes widened to int32 lanes times the tap's weights. */
typedef struct {
  const rlx_nn_qconv_t* p;
  const uint8_t* x;
  const int32_t *w, *bias;
  const float* mult;
  uint8_t* y;
  int64_t cb, wp;
} qdw_job_t;

static void qdw_item(void* ctx, int64_t item, void* scratch) {
  const qdw_job_t* j = ctx;
  const rlx_nn_conv_t* p = &j->p->g;
  const int64_t oh = item % p->oh, b = (item / p->oh) % j->cb, n = item / (p->oh * j->cb);
  const uint8_t* xb = j->x + (n * j->cb + b) * p->h * p->w * NB;
  const int32_t* wb = j->w + b * p->kh * p->kw * NB;
  uint8_t* yr = j->y + (((n * j->cb + b) * p->oh + oh) * p->ow) * NB;
  uint8_t* s = scratch;
  const int64_t row = j->wp * NB, c0 = p->pl, c1 = p->pl + p->w < j->wp ? p->pl + p->w : j->wp;
  for (int64_t kh = 0; kh < p->kh; kh++) {
    uint8_t* d = s + kh * row;
    const int64_t ih = oh * p->sh - p->pt + kh * p->dh;
    if (ih < 0 || ih >= p->h) {
      memset(d, j->p->x_zp, (size_t)row);
      continue;
    }
    memset(d, j->p->x_zp, (size_t)(c0 * NB));
    memcpy(d + c0 * NB, xb + ih * p->w * NB, (size_t)((c1 - c0) * NB));
    if (j->wp > c1) memset(d + c1 * NB, j->p->x_zp, (size_t)((j->wp - c1) * NB));
  }
  const int64_t taps = p->kh * p->kw;
  if (taps == 9) { /* 3x3: the nine weight vectors stay in registers */
    qv w[9];
    memcpy(w, wb, sizeof(w));
    for (int64_t ow = 0; ow < p->ow; ow++) {
      qv acc = {0};
      for (int kh = 0; kh < 3; kh++)
        for (int kw = 0; kw < 3; kw++) {
          qv xv;
          widen_u8(&xv, s + kh * row + (ow * p->sw + kw * p->dw) * NB);
          acc += xv * w[kh * 3 + kw];
        }
      q_store(j->p, &acc, j->bias + b * NB, j->mult + b * NB, yr + ow * NB);
    }
    return;
  }
  for (int64_t ow = 0; ow < p->ow; ow++) {
    qv acc = {0};
    for (int64_t kh = 0; kh < p->kh; kh++)
      for (int64_t kw = 0; kw < p->kw; kw++) {
        qv xv, wv;
        widen_u8(&xv, s + kh * row + (ow * p->sw + kw * p->dw) * NB);
        memcpy(&wv, wb + (kh * p->kw + kw) * NB, sizeof(wv));
        acc += xv * wv;
      }
    q_store(j->p, &acc, j->bias + b * NB, j->mult + b * NB, yr + ow * NB);
  }
}

int KSYM(rlx_nn_qdwconv2d_nchwc)(const rlx_nn_qconv_t* q, const uint8_t* x, const int32_t* w, const int32_t* bias,
                                 const float* mult, uint8_t* y) {
  const rlx_nn_conv_t* p = &q->g;
  qdw_job_t j = {q, x, w, bias, mult, y, (p->oc + NB - 1) / NB, (p->ow - 1) * p->sw + (p->kw - 1) * p->dw + 1};
  if (j.wp < p->pl + p->w) j.wp = p->pl + p->w;
  return rlx_nn_parallel(p->n * j.cb * p->oh, (size_t)(p->kh * j.wp * NB), qdw_item, &j);
}

/* ------------------------------------------------------------------ elementwise spans */
/* Round half to even, zero point, clamp to [lo, hi], on NB lanes (as q_store). The vector
 * comes by pointer: the portable and SSE variants cannot pass NB floats in registers. */
static inline void q_round(const qf* vp, int32_t zp, int32_t lo_q, int32_t hi_q, qv* out) {
  qf v = *vp;
  const qf lim = (qf){0} + 4.0e6f, magic = (qf){0} + 12582912.0f;
  qv m1 = v < -lim, m2 = v > lim;
  v = (qf)(((qv)v & ~m1) | ((qv)-lim & m1));
  v = (qf)(((qv)v & ~m2) | ((qv)lim & m2));
  v = (v + magic) - magic;
  qv r = __builtin_convertvector(v, qv) + zp;
  const qv lo = (qv){0} + lo_q, hi = (qv){0} + hi_q;
  m1 = r < lo, m2 = r > hi;
  *out = (r & ~m1) | (lo & m1);
  *out = (*out & ~m2) | (hi & m2);
}

static inline uint8_t q_scalar(float v, int32_t zp, int32_t lo, int32_t hi) {
  v = v < -4.0e6f ? -4.0e6f : v > 4.0e6f ? 4.0e6f : v;
  int32_t r = (int32_t)((v + 12582912.0f) - 12582912.0f) + zp;
  return (uint8_t)(r < lo ? lo : r > hi ? hi : r);
}

void KSYM(rlx_nn_qadd_span)(const rlx_nn_qadd_t* q, const uint8_t* a, const uint8_t* b, uint8_t* y, int64_t n) {
  int64_t i = 0;
  const qf sa = (qf){0} + q->sa, sb = (qf){0} + q->sb, sy = (qf){0} + q->sy;
  const qf za = (qf){0} + (float)q->za, zb = (qf){0} + (float)q->zb;
  for (; i + NB <= n; i += NB) {
    qv av, bv, r;
    widen_u8(&av, a + i);
    widen_u8(&bv, b + i);
    /* as the QDQ graph: dequantize both in float, add, divide by the output scale */
    const qf v = ((__builtin_convertvector(av, qf) - za) * sa + (__builtin_convertvector(bv, qf) - zb) * sb) / sy;
    q_round(&v, q->zy, q->lo, q->hi, &r);
    narrow_u8(y + i, &r);
  }
  for (; i < n; i++) {
    const float v = (((float)a[i] - (float)q->za) * q->sa + ((float)b[i] - (float)q->zb) * q->sb) / q->sy;
    y[i] = q_scalar(v, q->zy, q->lo, q->hi);
  }
}

void KSYM(rlx_nn_quantize_span)(const float* x, int64_t n, float scale, int32_t zp, uint8_t* y, int64_t stride) {
  int64_t i = 0;
  const qf s = (qf){0} + scale;
  for (; i + NB <= n; i += NB) {
    qf v;
    qv r;
    uint8_t t[NB];
    memcpy(&v, x + i, sizeof(v));
    v = v / s;
    q_round(&v, zp, 0, 255, &r);
    narrow_u8(t, &r);
    for (int k = 0; k < NB; k++) y[(i + k) * stride] = t[k];
  }
  for (; i < n; i++) y[i * stride] = q_scalar(x[i] / scale, zp, 0, 255);
}
