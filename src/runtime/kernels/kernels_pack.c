/* The scalar side of the blocked-layout kernels (nn_kernels.h), for any channel block nb:
 * weight packing and the Winograd weight transform (run by the compiler's layout pass),
 * layout transforms (memory-bound copies; run on the caller) and buffer sizes. Built once,
 * for the baseline ISA. */
#include <string.h>
#include <unistd.h>

#include "nn_kernels.h"

/* Output channels of a packed weight: whole groups of v blocks (the last group padded with
 * zero blocks when v does not divide the blocks). */
static int64_t groups_oc(int64_t oc, int64_t v, int64_t nb) { return ((oc + nb - 1) / nb + v - 1) / v * v * nb; }

int64_t rlx_nn_conv_packed_numel(int64_t oc, int64_t ic, int64_t kh, int64_t kw, int64_t cbi, int64_t v, int64_t nb) {
  int64_t icp = (ic + cbi - 1) / cbi * cbi;
  return groups_oc(oc, v, nb) * icp * kh * kw;
}

void rlx_nn_conv_pack_weight(const float* w, int64_t oc, int64_t ic, int64_t kh, int64_t kw, int64_t cbi, int64_t v,
                             int64_t nb, float* dst) {
  int64_t og_n = groups_oc(oc, v, nb) / (v * nb), icb_n = (ic + cbi - 1) / cbi, lanes = v * nb;
  int64_t k = 0;
  for (int64_t og = 0; og < og_n; og++)
    for (int64_t icb = 0; icb < icb_n; icb++)
      for (int64_t y = 0; y < kh; y++)
        for (int64_t x = 0; x < kw; x++)
          for (int64_t ci = 0; ci < cbi; ci++)
            for (int64_t l = 0; l < lanes; l++) {
              int64_t o = og * lanes + l, i = icb * cbi + ci;
              dst[k++] = o < oc && i < ic ? w[((o * ic + i) * kh + y) * kw + x] : 0.0f;
            }
}

void rlx_nn_dw_pack_weight(const float* w, int64_t c, int64_t kh, int64_t kw, int64_t nb, float* dst) {
  int64_t cb = (c + nb - 1) / nb;
  for (int64_t b = 0; b < cb; b++)
    for (int64_t y = 0; y < kh; y++)
      for (int64_t x = 0; x < kw; x++)
        for (int64_t l = 0; l < nb; l++) {
          int64_t ch = b * nb + l;
          dst[((b * kh + y) * kw + x) * nb + l] = ch < c ? w[(ch * kh + y) * kw + x] : 0.0f;
        }
}

/* ------------------------------------------------------------------ Winograd weights */

int64_t rlx_nn_winograd_packed_numel(int64_t oc, int64_t ic, int m, int64_t v, int64_t nb) {
  int64_t a = m + 2;
  return a * a * groups_oc(oc, v, nb) * ((ic + nb - 1) / nb * nb);
}

/* t = G g for one column of 3 (m = 2: 4 rows, m = 4: 6 rows); G in conv2d_winograd_nchwc.c. */
static void wg_g(int m, const double* g, int stride, double* t) {
  double g0 = g[0], g1 = g[stride], g2 = g[2 * stride];
  if (m == 2) {
    t[0] = g0, t[1] = 0.5 * (g0 + g1 + g2), t[2] = 0.5 * (g0 - g1 + g2), t[3] = g2;
    return;
  }
  t[0] = g0 / 4;
  t[1] = -(g0 + g1 + g2) / 6;
  t[2] = -(g0 - g1 + g2) / 6;
  t[3] = g0 / 24 + g1 / 12 + g2 / 6;
  t[4] = g0 / 24 - g1 / 12 + g2 / 6;
  t[5] = g2;
}

void rlx_nn_winograd_pack_weight(const float* w, int64_t oc, int64_t ic, int64_t v, int m, int64_t nb, float* dst) {
  const int a = m + 2, np = a * a;
  const int64_t og_n = groups_oc(oc, v, nb) / (v * nb), icb_n = (ic + nb - 1) / nb, lanes = v * nb;
  const int64_t per_xi = og_n * icb_n * nb * lanes;
  memset(dst, 0, (size_t)(np * per_xi) * sizeof(float));
  for (int64_t o = 0; o < oc; o++)
    for (int64_t i = 0; i < ic; i++) {
      double g[9], t[6][3], u[6][6]; /* t = G g (rows), u = t G^T */
      for (int k = 0; k < 9; k++) g[k] = w[(o * ic + i) * 9 + k];
      for (int c = 0; c < 3; c++) {
        double col[6];
        wg_g(m, g + c, 3, col);
        for (int r = 0; r < a; r++) t[r][c] = col[r];
      }
      for (int r = 0; r < a; r++) wg_g(m, t[r], 1, u[r]);
      int64_t og = o / lanes, l = o % lanes, icb = i / nb, ci = i % nb;
      for (int xi = 0; xi < np; xi++)
        dst[xi * per_xi + ((og * icb_n + icb) * nb + ci) * lanes + l] = (float)u[xi / a][xi % a];
    }
}

/* The core's L2 size (glibc's sysconf; 1 MB where it does not say). */
static int64_t l2_bytes(void) {
  static _Atomic int64_t cached = 0;
  int64_t v = cached;
  if (v == 0) {
    long s = -1;
#ifdef _SC_LEVEL2_CACHE_SIZE
    s = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    v = s > 0 ? s : 1 << 20;
    cached = v;
  }
  return v;
}

int64_t rlx_nn_winograd_staged_bytes(int m, int64_t icb, int64_t ocb, int64_t oh, int64_t ow, int threads, int64_t nb,
                                     int64_t chunk) {
  const int64_t np = (m + 2) * (m + 2), tiles = ((oh + m - 1) / m) * ((ow + m - 1) / m);
  const int64_t bytes = np * (icb + ocb) * tiles * nb * 4, weights = np * icb * ocb * nb * nb * 4;
  /* The chunked form reads every transformed weight once per chunk of tiles: from memory,
   * in a network, where the weights are larger than the buffers. Staging pays when there
   * are several chunks and every tile's buffers fit in L2 (measured on a 2 MB L2 with
   * weights cold, as in a network: 14x14x256 F(2x2) 1.9 -> 1.4 ms, 28x28x128 F(4x4)
   * 1.0 -> 0.8-0.9 ms; 56x56x64, whose buffers do not fit, stays chunked). With several
   * threads the staged form's steps hand data between the cores and its smaller weights
   * no longer pay for that: up to 1 MB of weights the chunked form was faster at two
   * threads (SqueezeNet's expands: 27x27 32->128 F(4x4) 0.10-0.13 vs 0.15 ms, 13x13
   * 64->256 F(2x2) 0.13-0.15 vs 0.17 ms) and as fast or slower at one. */
  if (tiles <= chunk || bytes > l2_bytes()) return 0;
  return threads <= 1 || weights > (1 << 20) ? bytes : 0;
}

/* ------------------------------------------------------------------ layout transforms */

void rlx_nn_nchw_to_nchwc(int64_t n, int64_t c, int64_t hw, int64_t nb, const float* x, float* y) {
  const int64_t cb = (c + nb - 1) / nb;
  for (int64_t i = 0; i < n * cb; i++) {
    int64_t b = i % cb, img = i / cb;
    float* yb = y + i * hw * nb;
    for (int64_t l = 0; l < nb; l++) {
      int64_t ch = b * nb + l;
      const float* xc = x + (img * c + ch) * hw;
      if (ch < c)
        for (int64_t k = 0; k < hw; k++) yb[k * nb + l] = xc[k];
      else
        for (int64_t k = 0; k < hw; k++) yb[k * nb + l] = 0.0f;
    }
  }
}

void rlx_nn_nchwc_to_nchw(int64_t n, int64_t c, int64_t hw, int64_t nb, const float* x, float* y) {
  const int64_t cb = (c + nb - 1) / nb;
  for (int64_t i = 0; i < n * cb; i++) {
    int64_t b = i % cb, img = i / cb;
    const float* xb = x + i * hw * nb;
    for (int64_t l = 0; l < nb && b * nb + l < c; l++) {
      float* yc = y + (img * c + b * nb + l) * hw;
      for (int64_t k = 0; k < hw; k++) yc[k] = xb[k * nb + l];
    }
  }
}

/* ------------------------------------------------------------------ int8 weights */

int64_t rlx_nn_qconv_packed_bytes(int64_t oc, int64_t ic, int64_t kh, int64_t kw, int64_t cbi, int64_t nb) {
  return ((oc + nb - 1) / nb) * ((ic + cbi - 1) / cbi) * kh * kw * cbi * nb;
}

void rlx_nn_qconv_pack_weight(const int8_t* w, int64_t oc, int64_t ic, int64_t kh, int64_t kw, int64_t cbi, int64_t nb,
                              int8_t* dst) {
  const int64_t icb = (ic + cbi - 1) / cbi;
  memset(dst, 0, (size_t)rlx_nn_qconv_packed_bytes(oc, ic, kh, kw, cbi, nb));
  for (int64_t o = 0; o < oc; o++)
    for (int64_t i = 0; i < ic; i++)
      for (int64_t h = 0; h < kh; h++)
        for (int64_t x = 0; x < kw; x++) {
          /* [OCb][ICb][KH][KW][cbi/4 quads][nb out][4] */
          const int64_t blk = (((o / nb) * icb + i / cbi) * kh + h) * kw + x;
          const int64_t in = i % cbi;
          dst[blk * cbi * nb + (in / 4) * nb * 4 + (o % nb) * 4 + in % 4] = w[((o * ic + i) * kh + h) * kw + x];
        }
}

void rlx_nn_qdw_pack_weight(const int8_t* w, int64_t c, int64_t kh, int64_t kw, int64_t nb, int32_t* dst) {
  const int64_t cb = (c + nb - 1) / nb;
  memset(dst, 0, (size_t)(cb * kh * kw * nb) * sizeof(int32_t));
  for (int64_t ch = 0; ch < c; ch++)
    for (int64_t t = 0; t < kh * kw; t++) dst[((ch / nb) * kh * kw + t) * nb + ch % nb] = w[ch * kh * kw + t];
}
