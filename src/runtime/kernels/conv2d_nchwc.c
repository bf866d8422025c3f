/* Direct 2-D convolution over NCHWc activations and packed weights (nn_kernels.h), one
 * variant (nn_vec.h): the register tiles (nn_variant.h) and the three forms of the work.
 *
 * Padding is not materialized for the whole input (except where weights dominate, below): for
 * each output row the rows of input it reads are copied, with zero columns and zero rows
 * where the window leaves the image, into a small per-thread scratch (KH rows x the padded
 * row width x all input channels — tens of KB), and the tiles read the scratch without
 * bounds checks. The copy costs one read of the input per output row and is amortized over
 * every output channel. Convolutions with no padding, unit stride and a 1x1 window skip the
 * copy and treat the whole plane as one row (a plain GEMM over pixels).
 *
 * The epilogue (bias, residual, clip/relu) is applied to the accumulators before the one
 * store. Threads: the kernels' pool (nn_pool.c), over (batch, row, channel-group) work items.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nn_variant.h"

/* One register tile. V, RW: the tile; SPX: input floats between tile pixels (0: t->s_px);
 * CBI: channels per input block (0: t->cbi). Accumulator vector v of pixel j is output block
 * v / KNBV, lanes (v % KNBV) * VL.. of it; the V blocks of a weight group are V * NB
 * consecutive floats, so weight vector v is at v * VL. */
static inline __attribute__((always_inline)) void conv_tile(const tile_t* t, const int V, const int RW, const int SPX,
                                                            const int CBI) {
  const int NV = V * KNBV;
  vf acc[3 * KNBV][KRW_MAX];
#pragma GCC unroll 12
  for (int v = 0; v < NV; v++)
#pragma GCC unroll 14
    for (int j = 0; j < RW; j++) acc[v][j] = (vf){0};
  const int64_t spx = SPX ? SPX : t->s_px;
  const int64_t cbi = CBI ? CBI : t->cbi;
  const float* wp = t->w;
  const char* pf = t->pf;
  for (int64_t icb = 0; icb < t->n_icb; icb++)
    for (int64_t kh = 0; kh < t->n_kh; kh++)
      for (int64_t kw = 0; kw < t->n_kw; kw++) {
        const float* s = t->src + icb * t->s_icb + kh * t->s_kh + kw * t->s_kw;
        if (t->pfx)
          for (int64_t q = 0; q < t->pfx_lines; q++)
            __builtin_prefetch(t->pfx + (icb * t->s_icb + (kh * t->s_kh + kw * t->s_kw)) * 4 + q * 64, 0, 3);
        if (pf)
          for (int64_t q = 0; q < t->pf_per; q++, pf += 64) __builtin_prefetch(pf, 0, 2);
#pragma GCC unroll 2
        for (int64_t ci = 0; ci < cbi; ci++, wp += t->w_step) {
          vf wv[3 * KNBV];
#pragma GCC unroll 12
          for (int v = 0; v < NV; v++) wv[v] = LD(wp + VL * v);
#pragma GCC unroll 14
          for (int j = 0; j < RW; j++) {
            const float xs = s[j * spx + ci];
#pragma GCC unroll 12
            for (int v = 0; v < NV; v++) acc[v][j] += wv[v] * xs;
          }
        }
      }
#pragma GCC unroll 12
  for (int v = 0; v < NV; v++) {
    const int64_t off = v / KNBV * t->s_blk + v % KNBV * VL;
    const vf b = t->bias ? LD(t->bias + VL * v) : (vf){0};
    float* y = t->y + off;
    const float* r = t->res ? t->res + off : NULL;
#pragma GCC unroll 14
    for (int j = 0; j < RW; j++) {
      vf o = acc[v][j] + b;
      if (r) o += LD(r + NB * j);
      if (t->act == RLX_NN_ACT_CLIP) o = vclip(o, t->lo, t->hi);
      ST(y + NB * j, o);
    }
  }
}

/* Instances: tile_<V>_<RW>_<kind>, kind s1 (stride-1 blocked input), s2 (stride-2 blocked),
 * p2 (stride-2 plain NCHW input: a network's first layer), g (anything: run-time pixel
 * stride and channels per block); each variant instantiates the widths its row of
 * nn_tiles.h allows for each V. */
#define TILE4(V, RW)                                                                      \
  static void tile_##V##_##RW##_s1(const tile_t* t) { conv_tile(t, V, RW, NB, NB); }     \
  static void tile_##V##_##RW##_s2(const tile_t* t) { conv_tile(t, V, RW, 2 * NB, NB); } \
  static void tile_##V##_##RW##_p2(const tile_t* t) { conv_tile(t, V, RW, 2, 1); }       \
  static void tile_##V##_##RW##_g(const tile_t* t) { conv_tile(t, V, RW, 0, 0); }
#define ROW4(V, RW) \
  [V - 1][RW - 1] = {tile_##V##_##RW##_s1, tile_##V##_##RW##_s2, tile_##V##_##RW##_p2, tile_##V##_##RW##_g},
#define WIDTHS_1(X, V) X(V, 1)
#define WIDTHS_2(X, V) WIDTHS_1(X, V) X(V, 2)
#define WIDTHS_3(X, V) WIDTHS_2(X, V) X(V, 3)
#define WIDTHS_4(X, V) WIDTHS_3(X, V) X(V, 4)
#define WIDTHS_5(X, V) WIDTHS_4(X, V) X(V, 5)
#define WIDTHS_6(X, V) WIDTHS_5(X, V) X(V, 6)
#define WIDTHS_7(X, V) WIDTHS_6(X, V) X(V, 7)
#define WIDTHS_8(X, V) WIDTHS_7(X, V) X(V, 8)
#define WIDTHS_9(X, V) WIDTHS_8(X, V) X(V, 9)
#define WIDTHS_10(X, V) WIDTHS_9(X, V) X(V, 10)
#define WIDTHS_11(X, V) WIDTHS_10(X, V) X(V, 11)
#define WIDTHS_12(X, V) WIDTHS_11(X, V) X(V, 12)
#define WIDTHS_13(X, V) WIDTHS_12(X, V) X(V, 13)
#define WIDTHS_14(X, V) WIDTHS_13(X, V) X(V, 14)
/* X(V, rw) for rw = 1 .. R */
#define WIDTHS(R, X, V) RLX_KSYM_CAT(WIDTHS_, R)(X, V)

WIDTHS(KRW1, TILE4, 1)
WIDTHS(KRW2, TILE4, 2)
WIDTHS(KRW3, TILE4, 3)

const tile_fn_t conv_tiles[3][KRW_MAX][4] = {WIDTHS(KRW1, ROW4, 1) WIDTHS(KRW2, ROW4, 2) WIDTHS(KRW3, ROW4, 3)};

/* Copies input row ih of one channel block (plane xb) into d as scratch columns 0..wp-1,
 * scratch column c being input column c - pl; zero outside the image. */
static void fill_row(const rlx_nn_conv_t* p, const float* xb, int64_t ih, int64_t wp, float* d) {
  const int64_t cbi = p->cbi, row = p->w * cbi;
  if (ih < 0 || ih >= p->h) {
    memset(d, 0, (size_t)(wp * cbi) * sizeof(float));
    return;
  }
  int64_t c0 = p->pl < wp ? p->pl : wp;                /* first column inside the image */
  int64_t c1 = p->pl + p->w < wp ? p->pl + p->w : wp;  /* one past the last */
  if (c0 > 0) memset(d, 0, (size_t)(c0 * cbi) * sizeof(float));
  if (c1 > c0) memcpy(d + c0 * cbi, xb + ih * row + (c0 - p->pl) * cbi, (size_t)((c1 - c0) * cbi) * sizeof(float));
  if (c1 < wp) memset(d + c1 * cbi, 0, (size_t)((wp - (c1 > c0 ? c1 : c0)) * cbi) * sizeof(float));
}

/* Copies the input rows that output row `orow` reads into s: [icb][kh][wp][cbi]. */
static void fill_rows(const rlx_nn_conv_t* p, const float* xn, int64_t icb_n, int64_t orow, int64_t wp, float* s) {
  const int64_t plane = p->h * p->w * p->cbi;
  for (int64_t icb = 0; icb < icb_n; icb++)
    for (int64_t kh = 0; kh < p->kh; kh++)
      fill_row(p, xn + icb * plane, orow * p->sh - p->pt + kh * p->dh, wp, s + (icb * p->kh + kh) * wp * p->cbi);
}

static int kind_of(const rlx_nn_conv_t* p, int64_t spx) {
  if (p->cbi == NB && spx == NB) return 0;
  if (p->cbi == NB && spx == 2 * NB) return 1;
  if (p->cbi == 1 && spx == 2) return 2;
  return 3;
}

/* Flat (1x1, stride 1, no padding): item = (n, og, chunk of `per` tiles over the plane). */
static void conv_flat_item(void* ctx, int64_t it, void* scratch) {
  const conv_job_t* c = ctx;
  int64_t ch, og, n = it / c->chunks / c->og_n;
  if (c->px_major) { /* (n, chunk, og): each thread a range of pixels, all channel groups */
    og = it % c->og_n, ch = it / c->og_n % c->chunks;
  } else {
    ch = it % c->chunks, og = it / c->chunks % c->og_n;
  }
  tile_t t = c->base;
  t.w = c->w + og * c->wgroup;
  t.bias = c->bias ? c->bias + og * c->V * NB : NULL;
  /* Where the weights are larger than the plane (7x7 and 14x14 layers with hundreds of
   * channels), each chunk of a group also prefetches its share of the next group's weights
   * (the next items, whichever thread takes them), so that stream overlaps computation. */
  const int64_t t0 = ch * c->per, t1 = (ch + 1) * c->per < c->flat_tiles ? (ch + 1) * c->per : c->flat_tiles;
  const char* pf = NULL;
  if (c->pf_ahead && og + 1 < c->og_n && t1 > t0) {
    const int64_t lines = c->wgroup * 4 / 64, share = (lines + c->chunks - 1) / c->chunks;
    t.pf_per = pf_rate(share, t1 - t0, c->icb_n);
    pf = (const char*)(c->w + (og + 1) * c->wgroup) + ch * share * 64;
  }
  for (int64_t tt = t0; tt < t1; tt++) {
    const int64_t p0 = tile_at(tt, c->flat_tiles, c->len), m = tile_at(tt + 1, c->flat_tiles, c->len) - p0;
    int64_t yo = (n * c->ycb + og * c->V) * c->out_plane + p0 * NB;
    t.src = c->x + n * c->in_img + p0 * c->p->cbi;
    /* The next tile's pixels, block by block while this tile reads the same blocks: a tile
     * reads a few lines from each of the n_icb planes, too many short streams for the
     * hardware prefetcher where the input comes from beyond L2 (MobileNetV2's projections
     * on AVX2: 48 planes of 192 bytes per tile). Not where the weights dominate: they are
     * the stream then (prefetched ahead above), and lines of input would evict them. */
    if (c->pfx_input && tt + 1 < c->flat_tiles) {
      const int64_t q1 = tile_at(tt + 2, c->flat_tiles, c->len);
      t.pfx = (const char*)(t.src + m * c->p->cbi);
      t.pfx_lines = ((q1 - p0 - m) * c->p->cbi * 4 + 63) / 64;
    } else {
      t.pfx = NULL;
    }
    t.y = c->y + yo;
    t.res = c->res ? c->res + yo : NULL;
    t.pf = pf;
    if (pf) pf += t.pf_per * c->icb_n * 64;
    conv_tiles[group_v(c, og) - 1][m - 1][c->kind](&t);
  }
}

/* (nn_variant.h) */
void conv_row(const conv_job_t* c, tile_t t, int64_t n, int64_t orow, int64_t og0, int64_t og1, float* s, float* y0,
              const float* r0) {
  const rlx_nn_conv_t* p = c->p;
  fill_rows(p, c->x + n * c->in_img, c->icb_n, orow, c->wp, s);
  for (int64_t og = og0; og < og1; og++) {
    t.w = c->w + og * c->wgroup;
    t.bias = c->bias ? c->bias + og * c->V * NB : NULL;
    const int64_t yo = og * c->V * t.s_blk;
    for (int64_t k = 0; k < c->row_tiles; k++) {
      const int64_t ow = tile_at(k, c->row_tiles, p->ow), m = tile_at(k + 1, c->row_tiles, p->ow) - ow;
      t.src = s + ow * p->sw * p->cbi;
      t.y = y0 + yo + ow * NB;
      t.res = r0 ? r0 + yo + ow * NB : NULL;
      conv_tiles[group_v(c, og) - 1][m - 1][c->kind](&t);
    }
  }
}

/* Rows: item = (n, output row, chunk of ogc channel groups); the rows it reads are copied
 * into the participant's scratch first. */
static void conv_row_item(void* ctx, int64_t it, void* scratch) {
  const conv_job_t* c = ctx;
  const rlx_nn_conv_t* p = c->p;
  int64_t oc_ch = it % c->og_chunks, orow = it / c->og_chunks % p->oh, n = it / c->og_chunks / p->oh;
  int64_t og0 = oc_ch * c->ogc, og1 = og0 + c->ogc < c->og_n ? og0 + c->ogc : c->og_n;
  int64_t yo = n * c->ycb * c->out_plane + orow * p->ow * NB;
  conv_row(c, c->base, n, orow, og0, og1, scratch, c->y + yo, c->res ? c->res + yo : NULL);
}

/* Padded image: item = (n, channel group, chunk of output rows) over a padded copy of the
 * whole input made once per call; each item reads its weights once. */
static void conv_pad_item(void* ctx, int64_t it, void* scratch) {
  const conv_job_t* c = ctx;
  const rlx_nn_conv_t* p = c->p;
  int64_t rc = it % c->row_chunks, og = it / c->row_chunks % c->og_n, n = it / c->row_chunks / c->og_n;
  const float* img = c->pad + n * c->icb_n * c->hp * c->wp * p->cbi;
  tile_t t = c->base;
  t.w = c->w + og * c->wgroup;
  t.bias = c->bias ? c->bias + og * c->V * NB : NULL;
  /* The weights are read from memory once per item and then from L2 for each further row:
   * the first row waits on memory while the others compute. So every row also prefetches a
   * share of the weights that this thread will most likely need next (the next group: each
   * thread claims a contiguous range of items first), overlapping that stream with computation. */
  const int64_t r0 = rc * c->rows_per, r1 = r0 + c->rows_per < p->oh ? r0 + c->rows_per : p->oh;
  const int64_t next_og = og + c->pf_ahead, tiles_per_row = c->row_tiles;
  const int64_t lines = c->wgroup * 4 / 64, steps = c->icb_n * p->kh * p->kw;
  /* spread over every row: front-loading it into the first half measured slower */
  if (c->pf_ahead && rc == c->row_chunks - 1 && next_og < c->og_n) t.pf_per = pf_rate(lines, (r1 - r0) * tiles_per_row, steps);
  const char* pf = t.pf_per ? (const char*)(c->w + next_og * c->wgroup) : NULL;
  const char* pf_end = pf ? pf + lines * 64 : NULL;
  for (int64_t orow = r0; orow < r1; orow++) {
    int64_t yo = (n * c->ycb + og * c->V) * c->out_plane + orow * p->ow * NB;
    for (int64_t k = 0; k < c->row_tiles; k++) {
      const int64_t ow = tile_at(k, c->row_tiles, p->ow), m = tile_at(k + 1, c->row_tiles, p->ow) - ow;
      t.src = img + (orow * p->sh * c->wp + ow * p->sw) * p->cbi;
      t.y = c->y + yo + ow * NB;
      t.res = c->res ? c->res + yo + ow * NB : NULL;
      t.pf = pf && pf < pf_end ? pf : NULL; /* the last share may run past the group: harmless */
      if (pf) pf += t.pf_per * steps * 64;
      conv_tiles[group_v(c, og) - 1][m - 1][c->kind](&t);
    }
  }
}

/* (nn_variant.h) */
void conv_setup(conv_job_t* c, const rlx_nn_conv_t* p, const float* x, const float* w, const float* bias,
                const float* res, float* y) {
  memset(c, 0, sizeof(*c));
  c->p = p, c->x = x, c->w = w, c->bias = bias, c->res = res;
  const int64_t cbi = p->cbi;
  c->V = p->v;
  c->ocb = (p->oc + NB - 1) / NB, c->og_n = (c->ocb + c->V - 1) / c->V;
  c->ycb = p->y_cb ? p->y_cb : c->ocb;
  c->y = y ? y + p->y_off * p->oh * p->ow * NB : NULL;
  c->icb_n = (p->ic + cbi - 1) / cbi;
  c->in_img = c->icb_n * p->h * p->w * cbi, c->out_plane = p->oh * p->ow * NB;
  c->wgroup = c->icb_n * p->kh * p->kw * cbi * c->V * NB;
  tile_t* b = &c->base;
  b->n_kh = p->kh, b->n_kw = p->kw, b->n_icb = c->icb_n, b->cbi = cbi, b->w_step = c->V * NB;
  b->s_blk = c->out_plane;
  b->act = p->act, b->lo = p->lo, b->hi = p->hi;
  c->row_tiles = n_tiles(c->V, p->ow);
  c->wp = (p->ow - 1) * p->sw + (p->kw - 1) * p->dw + 1; /* scratch row width, pixels */
  c->hp = (p->oh - 1) * p->sh + (p->kh - 1) * p->dh + 1;
}

/* (nn_variant.h) */
void row_strides(conv_job_t* c) {
  const rlx_nn_conv_t* p = c->p;
  const int64_t cbi = p->cbi;
  c->kind = kind_of(p, p->sw * cbi);
  c->base.s_icb = p->kh * c->wp * cbi, c->base.s_kh = c->wp * cbi, c->base.s_kw = p->dw * cbi;
  c->base.s_px = p->sw * cbi;
}

int KSYM(rlx_nn_conv2d_nchwc)(const rlx_nn_conv_t* p, const float* x, const float* w, const float* bias,
                              const float* res, float* y) {
  conv_job_t c;
  conv_setup(&c, p, x, w, bias, res, y);
  const int64_t cbi = p->cbi;
  tile_t* b = &c.base;
  const int64_t threads = rlx_nn_num_threads();
  const bool flat = p->kh == 1 && p->kw == 1 && p->sh == 1 && p->sw == 1 && p->pt == 0 && p->pl == 0 &&
                    p->oh == p->h && p->ow == p->w;
  if (flat) {
    c.len = p->oh * p->ow, c.flat_tiles = n_tiles(c.V, c.len);
    /* items of about 16K vector FMAs (a few microseconds: claiming one is a contended atomic),
     * fewer tiles per item when that leaves too few items for the threads */
    const int64_t tile_fmas = c.icb_n * cbi * c.V * KNBV * ((c.len + c.flat_tiles - 1) / c.flat_tiles);
    c.per = 16384 / (tile_fmas > 0 ? tile_fmas : 1);
    c.per = c.per < 1 ? 1 : c.per;
    while (c.per > 1 && p->n * c.og_n * ((c.flat_tiles + c.per - 1) / c.per) < 8 * threads) c.per /= 2;
    c.chunks = (c.flat_tiles + c.per - 1) / c.per;
    c.kind = kind_of(p, cbi);
    c.pf_ahead = c.og_n * c.wgroup > 4 * c.in_img; /* weights dominate: prefetch the next group */
    c.pfx_input = c.og_n * c.wgroup < c.in_img;
    /* With several threads and small weights, items go pixels first, so that each thread
     * computes every channel of a range of pixels: the layer before (split the same way)
     * wrote those pixels from the same core, and the layer after reads them there. Channel
     * groups first, each thread read all pixels, half written by the other core. Two threads,
     * alternations of `rlx bench`: SqueezeNet 3.50 -> 3.05 and 3.16 -> 3.04 ms, MobileNetV2
     * 4.10 -> 3.75 ms, ResNet-18 unchanged. Weights above 256 KB keep the channel split:
     * each thread then reads half of them. */
    c.px_major = threads > 1 && !c.pf_ahead && c.og_n * c.wgroup * (int64_t)sizeof(float) <= (256 << 10);
    b->s_icb = p->h * p->w * cbi, b->s_px = cbi;
    return rlx_nn_parallel(p->n * c.og_n * c.chunks, 0, conv_flat_item, &c);
  }
  /* all channel groups per item unless rows are too few to feed the threads */
  c.ogc = c.og_n;
  while (c.ogc > 1 && p->n * p->oh * ((c.og_n + c.ogc - 1) / c.ogc) < 8 * threads) c.ogc = (c.ogc + 1) / 2;
  c.og_chunks = (c.og_n + c.ogc - 1) / c.ogc;
  const int64_t pad_bytes = p->n * c.icb_n * c.hp * c.wp * cbi * (int64_t)sizeof(float);
  const int64_t w_bytes = c.og_n * c.wgroup * (int64_t)sizeof(float);
  if (w_bytes > 4 * pad_bytes) {
    /* weights dominate (small images, many channels): read them once, not once per row */
    float* pad = rlx_nn_thread_buffer((size_t)pad_bytes);
    if (!pad) return -1;
    for (int64_t n = 0; n < p->n; n++)
      for (int64_t icb = 0; icb < c.icb_n; icb++)
        for (int64_t r = 0; r < c.hp; r++)
          fill_row(p, x + n * c.in_img + icb * p->h * p->w * cbi, r - p->pt, c.wp,
                   pad + ((n * c.icb_n + icb) * c.hp + r) * c.wp * cbi);
    c.pad = pad;
    c.kind = kind_of(p, p->sw * cbi);
    c.rows_per = p->oh;
    while (c.rows_per > 1 && p->n * c.og_n * ((p->oh + c.rows_per - 1) / c.rows_per) < 4 * threads)
      c.rows_per = (c.rows_per + 1) / 2;
    c.row_chunks = (p->oh + c.rows_per - 1) / c.rows_per;
    c.pf_ahead = 1;
    b->s_icb = c.hp * c.wp * cbi, b->s_kh = p->dh * c.wp * cbi, b->s_kw = p->dw * cbi, b->s_px = p->sw * cbi;
    return rlx_nn_parallel(p->n * c.og_n * c.row_chunks, 0, conv_pad_item, &c);
  }
  row_strides(&c);
  size_t scratch = (size_t)(c.icb_n * p->kh * c.wp * cbi) * sizeof(float);
  return rlx_nn_parallel(p->n * p->oh * c.og_chunks, scratch, conv_row_item, &c);
}
