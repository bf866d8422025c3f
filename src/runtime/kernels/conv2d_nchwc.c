/* Direct 2-D convolution over NCHW16c activations and packed weights (nn_kernels.h).
 *
 * The work is a grid of register tiles: RW consecutive output pixels of one row × V output
 * channel blocks of 16, i.e. V*RW accumulators of 16 floats (at most 28 of the 32 zmm
 * registers), each step of the reduction loading V weight vectors and broadcasting RW input
 * values. Tile sizes, pixel stride and channels per input block are compile-time constants
 * of each tile instance (conv_tile is inlined into every instance), so every address is a
 * base register plus a displacement.
 *
 * Padding is never materialized for the whole input: for each output row the rows of input
 * it reads are copied, with zero columns and zero rows where the window leaves the image,
 * into a small per-thread scratch (KH rows × the padded row width × all input channels —
 * tens of KB), and the tiles read the scratch without bounds checks. The copy costs one
 * read of the input per output row and is amortized over every output channel. Convolutions
 * with no padding, unit stride and a 1×1 window skip the copy and treat the whole plane as
 * one row (a plain GEMM over pixels).
 *
 * The epilogue (bias, residual, clip/relu) is applied to the accumulators before the one
 * store. Threads: one OpenMP parallel loop over (batch, row, channel-group) work items.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nn_kernels.h"
#include "nn_vec.h"

typedef struct {
  const float* src;                /* input of tile pixel 0 at icb 0, kh 0, kw 0, ci 0 */
  int64_t s_icb, s_kh, s_kw, s_px; /* strides in floats (s_px only used when not constant) */
  int64_t n_icb, n_kh, n_kw, cbi;  /* cbi only used when not constant */
  const float* w;                  /* this group's weights [n_icb][n_kh][n_kw][cbi][V*16] */
  float* y;                        /* output of tile pixel 0, first block; pixel stride 16 */
  const float* res;                /* residual at the same place as y, or NULL */
  int64_t s_blk;                   /* floats between output blocks (one plane) */
  const float* bias;               /* V*16 values or NULL */
  int act;
  float lo, hi;
} tile_t;

/* One register tile. V, RW: the tile; SPX: input floats between tile pixels (0: t->s_px);
 * CBI: channels per input block (0: t->cbi). */
static inline __attribute__((always_inline)) void conv_tile(const tile_t* t, const int V, const int RW, const int SPX,
                                                            const int CBI) {
  v16 acc[4][14];
#pragma GCC unroll 4
  for (int v = 0; v < V; v++)
#pragma GCC unroll 14
    for (int j = 0; j < RW; j++) acc[v][j] = (v16){0};
  const int64_t spx = SPX ? SPX : t->s_px;
  const int64_t cbi = CBI ? CBI : t->cbi;
  const float* wp = t->w;
  for (int64_t icb = 0; icb < t->n_icb; icb++)
    for (int64_t kh = 0; kh < t->n_kh; kh++)
      for (int64_t kw = 0; kw < t->n_kw; kw++) {
        const float* s = t->src + icb * t->s_icb + kh * t->s_kh + kw * t->s_kw;
#pragma GCC unroll 2
        for (int64_t ci = 0; ci < cbi; ci++, wp += V * 16) {
          v16 wv[4];
#pragma GCC unroll 4
          for (int v = 0; v < V; v++) wv[v] = LD(wp + 16 * v);
#pragma GCC unroll 14
          for (int j = 0; j < RW; j++) {
            const float xs = s[j * spx + ci];
#pragma GCC unroll 4
            for (int v = 0; v < V; v++) acc[v][j] += wv[v] * xs;
          }
        }
      }
#pragma GCC unroll 4
  for (int v = 0; v < V; v++) {
    const v16 b = t->bias ? LD(t->bias + 16 * v) : (v16){0};
    float* y = t->y + v * t->s_blk;
    const float* r = t->res ? t->res + v * t->s_blk : NULL;
#pragma GCC unroll 14
    for (int j = 0; j < RW; j++) {
      v16 o = acc[v][j] + b;
      if (r) o += LD(r + 16 * j);
      if (t->act == RLX_NN_ACT_CLIP) o = vclip(o, t->lo, t->hi);
      ST(y + 16 * j, o);
    }
  }
}

typedef void (*tile_fn_t)(const tile_t* t);

/* Instances: tile_<V>_<RW>_<kind>, kind s1 (stride-1 blocked input), s2 (stride-2 blocked),
 * g (anything: run-time pixel stride and channels per block). */
#define TILE3(V, RW)                                                           \
  static void tile_##V##_##RW##_s1(const tile_t* t) { conv_tile(t, V, RW, 16, 16); } \
  static void tile_##V##_##RW##_s2(const tile_t* t) { conv_tile(t, V, RW, 32, 16); } \
  static void tile_##V##_##RW##_g(const tile_t* t) { conv_tile(t, V, RW, 0, 0); }
#define TILES7(V) TILE3(V, 1) TILE3(V, 2) TILE3(V, 3) TILE3(V, 4) TILE3(V, 5) TILE3(V, 6) TILE3(V, 7)
TILES7(1)
TILES7(2)
TILES7(3)
TILES7(4)
TILE3(1, 8) TILE3(1, 9) TILE3(1, 10) TILE3(1, 11) TILE3(1, 12) TILE3(1, 13) TILE3(1, 14)
TILE3(2, 8) TILE3(2, 9) TILE3(2, 10) TILE3(2, 11) TILE3(2, 12) TILE3(2, 13) TILE3(2, 14)
TILE3(3, 8) TILE3(3, 9)

enum { MAX_RW = 14 };
#define ROW3(V, RW) {tile_##V##_##RW##_s1, tile_##V##_##RW##_s2, tile_##V##_##RW##_g}
#define NO3 {NULL, NULL, NULL}
/* [V - 1][RW - 1][kind] */
static const tile_fn_t tiles[4][MAX_RW][3] = {
    {ROW3(1, 1), ROW3(1, 2), ROW3(1, 3), ROW3(1, 4), ROW3(1, 5), ROW3(1, 6), ROW3(1, 7), ROW3(1, 8), ROW3(1, 9),
     ROW3(1, 10), ROW3(1, 11), ROW3(1, 12), ROW3(1, 13), ROW3(1, 14)},
    {ROW3(2, 1), ROW3(2, 2), ROW3(2, 3), ROW3(2, 4), ROW3(2, 5), ROW3(2, 6), ROW3(2, 7), ROW3(2, 8), ROW3(2, 9),
     ROW3(2, 10), ROW3(2, 11), ROW3(2, 12), ROW3(2, 13), ROW3(2, 14)},
    {ROW3(3, 1), ROW3(3, 2), ROW3(3, 3), ROW3(3, 4), ROW3(3, 5), ROW3(3, 6), ROW3(3, 7), ROW3(3, 8), ROW3(3, 9), NO3,
     NO3, NO3, NO3, NO3},
    {ROW3(4, 1), ROW3(4, 2), ROW3(4, 3), ROW3(4, 4), ROW3(4, 5), ROW3(4, 6), ROW3(4, 7), NO3, NO3, NO3, NO3, NO3, NO3,
     NO3},
};

static int max_rw(int64_t v) { return v <= 2 ? 14 : v == 3 ? 9 : 7; }

/* Tile width for rows of len pixels: the largest allowed, evened out over the row. */
static int64_t pick_rw(int64_t v, int64_t len) {
  int64_t m = max_rw(v);
  if (len <= m) return len < 1 ? 1 : len;
  int64_t n = (len + m - 1) / m;
  return (len + n - 1) / n;
}

int64_t rlx_nn_conv_packed_numel(int64_t oc, int64_t ic, int64_t kh, int64_t kw, int64_t cbi) {
  int64_t ocp = (oc + 15) / 16 * 16;
  int64_t icp = (ic + cbi - 1) / cbi * cbi;
  return ocp * icp * kh * kw;
}

void rlx_nn_conv_pack_weight(const float* w, int64_t oc, int64_t ic, int64_t kh, int64_t kw, int64_t cbi, int64_t v,
                             float* dst) {
  int64_t ocb = (oc + 15) / 16, og_n = ocb / v, icb_n = (ic + cbi - 1) / cbi, lanes = v * 16;
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

/* Copies the input rows that output row `orow` reads into s: [icb][kh][wp][cbi], zero where
 * the window is outside the image. */
static void fill_rows(const rlx_nn_conv_t* p, const float* xn, int64_t icb_n, int64_t orow, int64_t wp, float* s) {
  const int64_t cbi = p->cbi, row = p->w * cbi, plane = p->h * row;
  for (int64_t icb = 0; icb < icb_n; icb++)
    for (int64_t kh = 0; kh < p->kh; kh++) {
      float* d = s + (icb * p->kh + kh) * wp * cbi;
      int64_t ih = orow * p->sh - p->pt + kh * p->dh;
      if (ih < 0 || ih >= p->h) {
        memset(d, 0, (size_t)(wp * cbi) * sizeof(float));
        continue;
      }
      /* scratch column c is input column c - pl */
      int64_t c0 = p->pl < wp ? p->pl : wp;                 /* first column inside the image */
      int64_t c1 = p->pl + p->w < wp ? p->pl + p->w : wp;   /* one past the last */
      if (c0 > 0) memset(d, 0, (size_t)(c0 * cbi) * sizeof(float));
      if (c1 > c0) memcpy(d + c0 * cbi, xn + icb * plane + ih * row + (c0 - p->pl) * cbi, (size_t)((c1 - c0) * cbi) * sizeof(float));
      if (c1 < wp) memset(d + c1 * cbi, 0, (size_t)((wp - (c1 > c0 ? c1 : c0)) * cbi) * sizeof(float));
    }
}

static int kind_of(const rlx_nn_conv_t* p, int64_t spx) {
  if (p->cbi == 16 && spx == 16) return 0;
  if (p->cbi == 16 && spx == 32) return 1;
  return 2;
}

int rlx_nn_conv2d_nchwc(const rlx_nn_conv_t* p, const float* x, const float* w, const float* bias,
                        const float* res, float* y) {
  const int64_t V = p->v, cbi = p->cbi;
  const int64_t ocb = (p->oc + 15) / 16, og_n = ocb / V;
  const int64_t icb_n = (p->ic + cbi - 1) / cbi;
  const int64_t in_img = icb_n * p->h * p->w * cbi, out_plane = p->oh * p->ow * 16;
  const int64_t wgroup = icb_n * p->kh * p->kw * cbi * V * 16;
  const bool flat = p->kh == 1 && p->kw == 1 && p->sh == 1 && p->sw == 1 && p->pt == 0 && p->pl == 0 &&
                    p->oh == p->h && p->ow == p->w;
  tile_t base;
  memset(&base, 0, sizeof(base));
  base.n_kh = p->kh;
  base.n_kw = p->kw;
  base.n_icb = icb_n;
  base.cbi = cbi;
  base.s_blk = out_plane;
  base.act = p->act;
  base.lo = p->lo;
  base.hi = p->hi;
  if (flat) {
    const int64_t len = p->oh * p->ow, rw = pick_rw(V, len), n_tiles = (len + rw - 1) / rw;
    /* about 4 tiles per item, fewer when that leaves too few items */
    int64_t per = 4;
    while (per > 1 && p->n * og_n * ((n_tiles + per - 1) / per) < 16) per /= 2;
    const int64_t chunks = (n_tiles + per - 1) / per, items = p->n * og_n * chunks;
    const int kind = kind_of(p, cbi);
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t it = 0; it < items; it++) {
      int64_t ch = it % chunks, og = it / chunks % og_n, n = it / chunks / og_n;
      tile_t t = base;
      t.s_icb = p->h * p->w * cbi;
      t.s_px = cbi;
      t.w = w + og * wgroup;
      t.bias = bias ? bias + og * V * 16 : NULL;
      for (int64_t tt = ch * per; tt < (ch + 1) * per && tt < n_tiles; tt++) {
        int64_t p0 = tt * rw, m = len - p0 < rw ? len - p0 : rw;
        t.src = x + n * in_img + p0 * cbi;
        t.y = y + (n * ocb + og * V) * out_plane + p0 * 16;
        t.res = res ? res + (n * ocb + og * V) * out_plane + p0 * 16 : NULL;
        tiles[V - 1][m - 1][kind](&t);
      }
    }
    return 0;
  }
  const int64_t rw = pick_rw(V, p->ow);
  const int64_t wp = (p->ow - 1) * p->sw + (p->kw - 1) * p->dw + 1; /* scratch row width, pixels */
  const int64_t scratch = icb_n * p->kh * wp * cbi;
  int64_t ogc = 1; /* channel groups per work item: all of them unless rows are few */
  while (ogc < og_n && p->n * p->oh * ((og_n + ogc - 1) / ogc) > 64) ogc *= 2;
  ogc = ogc > og_n ? og_n : ogc;
  if (p->n * p->oh >= 16) ogc = og_n;
  const int64_t og_chunks = (og_n + ogc - 1) / ogc, items = p->n * p->oh * og_chunks;
  const int kind = kind_of(p, p->sw * cbi);
  int failed = 0;
#pragma omp parallel
  {
    float* s = aligned_alloc(64, (size_t)((scratch * 4 + 63) / 64 * 64));
    int64_t filled = -1;
#pragma omp for schedule(dynamic, 1)
    for (int64_t it = 0; it < items; it++) {
      if (!s) {
#pragma omp atomic write
        failed = 1;
        continue;
      }
      int64_t oc_ch = it % og_chunks, orow = it / og_chunks % p->oh, n = it / og_chunks / p->oh;
      if (filled != it / og_chunks) {
        fill_rows(p, x + n * in_img, icb_n, orow, wp, s);
        filled = it / og_chunks;
      }
      tile_t t = base;
      t.s_icb = p->kh * wp * cbi;
      t.s_kh = wp * cbi;
      t.s_kw = p->dw * cbi;
      t.s_px = p->sw * cbi;
      for (int64_t og = oc_ch * ogc; og < (oc_ch + 1) * ogc && og < og_n; og++) {
        t.w = w + og * wgroup;
        t.bias = bias ? bias + og * V * 16 : NULL;
        int64_t yo = (n * ocb + og * V) * out_plane + orow * p->ow * 16;
        for (int64_t ow = 0; ow < p->ow; ow += rw) {
          int64_t m = p->ow - ow < rw ? p->ow - ow : rw;
          t.src = s + ow * p->sw * cbi;
          t.y = y + yo + ow * 16;
          t.res = res ? res + yo + ow * 16 : NULL;
          tiles[V - 1][m - 1][kind](&t);
        }
      }
    }
    free(s);
  }
  return failed ? -1 : 0;
}
