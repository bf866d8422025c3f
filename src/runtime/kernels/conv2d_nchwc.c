/* Direct 2-D convolution over NCHW16c activations and packed weights (nn_kernels.h).
 *
 * The work is a grid of register tiles: RW consecutive output pixels of one row × V output
 * channel blocks of 16, i.e. V*RW accumulators of 16 floats (at most 28 of the 32 zmm
 * registers), each step of the reduction loading V weight vectors and broadcasting RW input
 * values. Tile sizes, pixel stride and channels per input block are compile-time constants
 * of each tile instance (conv_tile is inlined into every instance), so every address is a
 * base register plus a displacement.
 *
 * Padding is not materialized for the whole input (except where weights dominate, below): for each output row the rows of input
 * it reads are copied, with zero columns and zero rows where the window leaves the image,
 * into a small per-thread scratch (KH rows × the padded row width × all input channels —
 * tens of KB), and the tiles read the scratch without bounds checks. The copy costs one
 * read of the input per output row and is amortized over every output channel. Convolutions
 * with no padding, unit stride and a 1×1 window skip the copy and treat the whole plane as
 * one row (a plain GEMM over pixels).
 *
 * The epilogue (bias, residual, clip/relu) is applied to the accumulators before the one
 * store. Threads: the kernels' pool (nn_pool.c), over (batch, row, channel-group) work items.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
  const char* pf; /* lines to prefetch into L2 while computing (the next work item's weights), or NULL */
  int64_t pf_per; /* lines per (icb, kh, kw) step */
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
  const char* pf = t->pf;
  for (int64_t icb = 0; icb < t->n_icb; icb++)
    for (int64_t kh = 0; kh < t->n_kh; kh++)
      for (int64_t kw = 0; kw < t->n_kw; kw++) {
        const float* s = t->src + icb * t->s_icb + kh * t->s_kh + kw * t->s_kw;
        if (pf)
          for (int64_t q = 0; q < t->pf_per; q++, pf += 64) __builtin_prefetch(pf, 0, 2);
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

/* Prefetch rate of a tile: `lines` cache lines spread over `calls` tile calls of `steps`
 * (icb, kh, kw) steps each, as lines per step (tile_t.pf_per). */
static int64_t pf_rate(int64_t lines, int64_t calls, int64_t steps) {
  const int64_t per_call = (lines + calls - 1) / calls;
  return (per_call + steps - 1) / steps;
}

typedef void (*tile_fn_t)(const tile_t* t);

/* Instances: tile_<V>_<RW>_<kind>, kind s1 (stride-1 blocked input), s2 (stride-2 blocked),
 * p2 (stride-2 plain NCHW input: a network's first layer), g (anything: run-time pixel
 * stride and channels per block). */
#define TILE3(V, RW)                                                                   \
  static void tile_##V##_##RW##_s1(const tile_t* t) { conv_tile(t, V, RW, 16, 16); } \
  static void tile_##V##_##RW##_s2(const tile_t* t) { conv_tile(t, V, RW, 32, 16); } \
  static void tile_##V##_##RW##_p2(const tile_t* t) { conv_tile(t, V, RW, 2, 1); }   \
  static void tile_##V##_##RW##_g(const tile_t* t) { conv_tile(t, V, RW, 0, 0); }
#define TILES7(V) TILE3(V, 1) TILE3(V, 2) TILE3(V, 3) TILE3(V, 4) TILE3(V, 5) TILE3(V, 6) TILE3(V, 7)
TILES7(1)
TILES7(2)
TILES7(3)
TILE3(1, 8) TILE3(1, 9) TILE3(1, 10) TILE3(1, 11) TILE3(1, 12) TILE3(1, 13) TILE3(1, 14)
TILE3(2, 8) TILE3(2, 9) TILE3(2, 10) TILE3(2, 11) TILE3(2, 12) TILE3(2, 13) TILE3(2, 14)
TILE3(3, 8) TILE3(3, 9)

enum { MAX_RW = 14 };
#define ROW3(V, RW) {tile_##V##_##RW##_s1, tile_##V##_##RW##_s2, tile_##V##_##RW##_p2, tile_##V##_##RW##_g}
#define NO3 {NULL, NULL, NULL, NULL}
/* [V - 1][RW - 1][kind] */
static const tile_fn_t tiles[3][MAX_RW][4] = {
    {ROW3(1, 1), ROW3(1, 2), ROW3(1, 3), ROW3(1, 4), ROW3(1, 5), ROW3(1, 6), ROW3(1, 7), ROW3(1, 8), ROW3(1, 9),
     ROW3(1, 10), ROW3(1, 11), ROW3(1, 12), ROW3(1, 13), ROW3(1, 14)},
    {ROW3(2, 1), ROW3(2, 2), ROW3(2, 3), ROW3(2, 4), ROW3(2, 5), ROW3(2, 6), ROW3(2, 7), ROW3(2, 8), ROW3(2, 9),
     ROW3(2, 10), ROW3(2, 11), ROW3(2, 12), ROW3(2, 13), ROW3(2, 14)},
    {ROW3(3, 1), ROW3(3, 2), ROW3(3, 3), ROW3(3, 4), ROW3(3, 5), ROW3(3, 6), ROW3(3, 7), ROW3(3, 8), ROW3(3, 9), NO3,
     NO3, NO3, NO3, NO3},
};

static int max_rw(int64_t v) { return v <= 2 ? 14 : 9; }

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
  if (p->cbi == 16 && spx == 16) return 0;
  if (p->cbi == 16 && spx == 32) return 1;
  if (p->cbi == 1 && spx == 2) return 2;
  return 3;
}

/* A direct convolution split into work items for the pool. */
typedef struct {
  const rlx_nn_conv_t* p;
  const float *x, *w, *bias, *res;
  float* y;
  tile_t base;
  int64_t V, ocb, og_n, icb_n, in_img, out_plane, wgroup;
  int64_t ycb; /* channel blocks per image of y (y already offset by p->y_off blocks) */
  int64_t rw, kind;
  int64_t per, chunks, n_tiles, len; /* flat: tiles per item, items per (n, og) */
  int64_t wp, ogc, og_chunks;        /* rows: scratch row width, groups per item */
  const float* pad;                  /* padded image: [n][icb][hp][wp][cbi] */
  int64_t hp, rows_per, row_chunks;  /* padded image: rows, output rows per item */
  int64_t pf_ahead; /* padded image: prefetch the group this many on (0: none); flat: the next group */
  bool px_major;    /* flat: items ordered pixels first (see rlx_nn_conv2d_nchwc) */
} conv_job_t;

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
  t.bias = c->bias ? c->bias + og * c->V * 16 : NULL;
  /* Where the weights are larger than the plane (7x7 and 14x14 layers with hundreds of
   * channels), each chunk of a group also prefetches its share of the next group's weights
   * (the next items, whichever thread takes them), so that stream overlaps computation. */
  const int64_t t0 = ch * c->per, t1 = (ch + 1) * c->per < c->n_tiles ? (ch + 1) * c->per : c->n_tiles;
  const char* pf = NULL;
  if (c->pf_ahead && og + 1 < c->og_n && t1 > t0) {
    const int64_t lines = c->wgroup * 4 / 64, share = (lines + c->chunks - 1) / c->chunks;
    t.pf_per = pf_rate(share, t1 - t0, c->icb_n);
    pf = (const char*)(c->w + (og + 1) * c->wgroup) + ch * share * 64;
  }
  for (int64_t tt = t0; tt < t1; tt++) {
    int64_t p0 = tt * c->rw, m = c->len - p0 < c->rw ? c->len - p0 : c->rw;
    int64_t yo = (n * c->ycb + og * c->V) * c->out_plane + p0 * 16;
    t.src = c->x + n * c->in_img + p0 * c->p->cbi;
    t.y = c->y + yo;
    t.res = c->res ? c->res + yo : NULL;
    t.pf = pf;
    if (pf) pf += t.pf_per * c->icb_n * 64;
    tiles[c->V - 1][m - 1][c->kind](&t);
  }
}

/* One output row `orow` of image n for channel groups [og0, og1): the input rows it reads are
 * copied into s, then the tiles write y0 (the row's first pixel in the group-0 block; blocks
 * t.s_blk apart) and read the residual r0 at the same places (or none). */
static void conv_row(const conv_job_t* c, tile_t t, int64_t n, int64_t orow, int64_t og0, int64_t og1, float* s,
                     float* y0, const float* r0) {
  const rlx_nn_conv_t* p = c->p;
  fill_rows(p, c->x + n * c->in_img, c->icb_n, orow, c->wp, s);
  for (int64_t og = og0; og < og1; og++) {
    t.w = c->w + og * c->wgroup;
    t.bias = c->bias ? c->bias + og * c->V * 16 : NULL;
    const int64_t yo = og * c->V * t.s_blk;
    for (int64_t ow = 0; ow < p->ow; ow += c->rw) {
      int64_t m = p->ow - ow < c->rw ? p->ow - ow : c->rw;
      t.src = s + ow * p->sw * p->cbi;
      t.y = y0 + yo + ow * 16;
      t.res = r0 ? r0 + yo + ow * 16 : NULL;
      tiles[c->V - 1][m - 1][c->kind](&t);
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
  int64_t yo = n * c->ycb * c->out_plane + orow * p->ow * 16;
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
  t.bias = c->bias ? c->bias + og * c->V * 16 : NULL;
  /* The weights are read from memory once per item and then from L2 for each further row:
   * the first row waits on memory while the others compute. So every row also prefetches a
   * share of the weights that this thread will most likely need next (the next group: each
   * thread claims a contiguous range of items first), overlapping that stream with computation. */
  const int64_t r0 = rc * c->rows_per, r1 = r0 + c->rows_per < p->oh ? r0 + c->rows_per : p->oh;
  const int64_t next_og = og + c->pf_ahead, tiles_per_row = (p->ow + c->rw - 1) / c->rw;
  const int64_t lines = c->wgroup * 4 / 64, steps = c->icb_n * p->kh * p->kw;
  /* spread over every row: front-loading it into the first half measured slower */
  if (c->pf_ahead && rc == c->row_chunks - 1 && next_og < c->og_n) t.pf_per = pf_rate(lines, (r1 - r0) * tiles_per_row, steps);
  const char* pf = t.pf_per ? (const char*)(c->w + next_og * c->wgroup) : NULL;
  const char* pf_end = pf ? pf + lines * 64 : NULL;
  for (int64_t orow = r0; orow < r1; orow++) {
    int64_t yo = (n * c->ycb + og * c->V) * c->out_plane + orow * p->ow * 16;
    for (int64_t ow = 0; ow < p->ow; ow += c->rw) {
      int64_t m = p->ow - ow < c->rw ? p->ow - ow : c->rw;
      t.src = img + (orow * p->sh * c->wp + ow * p->sw) * p->cbi;
      t.y = c->y + yo + ow * 16;
      t.res = c->res ? c->res + yo + ow * 16 : NULL;
      t.pf = pf && pf < pf_end ? pf : NULL; /* the last share may run past the group: harmless */
      if (pf) pf += t.pf_per * steps * 64;
      tiles[c->V - 1][m - 1][c->kind](&t);
    }
  }
}

/* The fields every form of the direct convolution needs. */
static void conv_setup(conv_job_t* c, const rlx_nn_conv_t* p, const float* x, const float* w, const float* bias,
                       const float* res, float* y) {
  memset(c, 0, sizeof(*c));
  c->p = p, c->x = x, c->w = w, c->bias = bias, c->res = res;
  const int64_t cbi = p->cbi;
  c->V = p->v;
  c->ocb = (p->oc + 15) / 16, c->og_n = c->ocb / c->V;
  c->ycb = p->y_cb ? p->y_cb : c->ocb;
  c->y = y ? y + p->y_off * p->oh * p->ow * 16 : NULL;
  c->icb_n = (p->ic + cbi - 1) / cbi;
  c->in_img = c->icb_n * p->h * p->w * cbi, c->out_plane = p->oh * p->ow * 16;
  c->wgroup = c->icb_n * p->kh * p->kw * cbi * c->V * 16;
  tile_t* b = &c->base;
  b->n_kh = p->kh, b->n_kw = p->kw, b->n_icb = c->icb_n, b->cbi = cbi;
  b->s_blk = c->out_plane;
  b->act = p->act, b->lo = p->lo, b->hi = p->hi;
  c->rw = pick_rw(c->V, p->ow);
  c->wp = (p->ow - 1) * p->sw + (p->kw - 1) * p->dw + 1; /* scratch row width, pixels */
  c->hp = (p->oh - 1) * p->sh + (p->kh - 1) * p->dh + 1;
}

/* The row form: tiles read the input rows of one output row, copied by fill_rows. */
static void row_strides(conv_job_t* c) {
  const rlx_nn_conv_t* p = c->p;
  const int64_t cbi = p->cbi;
  c->kind = kind_of(p, p->sw * cbi);
  c->base.s_icb = p->kh * c->wp * cbi, c->base.s_kh = c->wp * cbi, c->base.s_kw = p->dw * cbi;
  c->base.s_px = p->sw * cbi;
}

int rlx_nn_conv2d_nchwc(const rlx_nn_conv_t* p, const float* x, const float* w, const float* bias,
                        const float* res, float* y) {
  conv_job_t c;
  conv_setup(&c, p, x, w, bias, res, y);
  const int64_t cbi = p->cbi;
  tile_t* b = &c.base;
  const int64_t threads = rlx_nn_num_threads();
  const bool flat = p->kh == 1 && p->kw == 1 && p->sh == 1 && p->sw == 1 && p->pt == 0 && p->pl == 0 &&
                    p->oh == p->h && p->ow == p->w;
  if (flat) {
    c.len = p->oh * p->ow, c.rw = pick_rw(c.V, c.len), c.n_tiles = (c.len + c.rw - 1) / c.rw;
    /* items of about 16K vector FMAs (a few microseconds: claiming one is a contended atomic),
     * fewer tiles per item when that leaves too few items for the threads */
    const int64_t tile_fmas = c.icb_n * cbi * c.V * c.rw;
    c.per = 16384 / (tile_fmas > 0 ? tile_fmas : 1);
    c.per = c.per < 1 ? 1 : c.per;
    while (c.per > 1 && p->n * c.og_n * ((c.n_tiles + c.per - 1) / c.per) < 8 * threads) c.per /= 2;
    c.chunks = (c.n_tiles + c.per - 1) / c.per;
    c.kind = kind_of(p, cbi);
    c.pf_ahead = c.og_n * c.wgroup > 4 * c.in_img; /* weights dominate: prefetch the next group */
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

/* ------------------------------------------------------------------ conv + depthwise
 *
 * MobileNet's expansion: a convolution (1x1, to 6x the channels) whose only reader is a 3x3
 * depthwise convolution. Stored, the expanded tensor (4.8 MB at 112x112x96) leaves L2 and
 * is written to and read back from memory. Here a work item is a range of the depthwise
 * output rows of one image; it computes the rows of the first convolution they read, in
 * order, into a ring of three rows of all channels in its scratch (tens of KB), and runs
 * each depthwise row as soon as its window's rows are there. A row of the first
 * convolution is computed once per item (neighbouring items both compute a shared row). */
typedef struct {
  conv_job_t c;
  const rlx_nn_conv_t* q; /* the depthwise convolution: h, w = the first one's oh, ow */
  const float *wd, *bd;   /* its packed weight [OCb, 3, 3, 16] and bias [OCb*16] or NULL */
  float* y;               /* [N, OCb, q->oh, q->ow, 16] */
  int64_t items_per_img, rows_per;
  size_t fill_floats; /* the fill_rows part of the scratch; the ring follows */
} cd_job_t;

static void conv_dw_item(void* ctx, int64_t it, void* scratch) {
  const cd_job_t* j = ctx;
  const conv_job_t* c = &j->c;
  const rlx_nn_conv_t *p = c->p, *q = j->q;
  const int64_t n = it / j->items_per_img, r0 = it % j->items_per_img * j->rows_per;
  const int64_t r1 = r0 + j->rows_per < q->oh ? r0 + j->rows_per : q->oh;
  float* s = scratch;
  float* ring = s + j->fill_floats;
  const int64_t row_f = p->ow * 16, plane = 3 * row_f; /* ring: [OCb][3][ow][16] */
  tile_t t = c->base;
  t.s_blk = plane;
  int64_t next = 0; /* rows of the first convolution below this are done or not needed */
  for (int64_t orow = r0; orow < r1; orow++) {
    const int64_t a = orow * q->sh - q->pt; /* the window's first row */
    const int64_t k0 = a < 0 ? -a : 0, k1 = a + 3 > p->oh ? p->oh - a : 3;
    if (next < a + k0) next = a + k0;
    for (; next < a + k1; next++) conv_row(c, t, n, next, 0, c->og_n, s, ring + next % 3 * row_f, NULL);
    float* yr = j->y + (n * c->ocb * q->oh + orow) * q->ow * 16;
    for (int64_t cb = 0; cb < c->ocb; cb++, yr += q->oh * q->ow * 16) {
      const float* xr[3];
      for (int64_t k = 0; k < 3; k++) xr[k] = k >= k0 && k < k1 ? ring + cb * plane + (a + k) % 3 * row_f : NULL;
      rlx_nn_dw3_row(q, xr, j->wd + cb * 9 * 16, j->bd ? j->bd + cb * 16 : NULL, yr);
    }
  }
}

int rlx_nn_conv2d_dw_nchwc(const rlx_nn_conv_t* p, const rlx_nn_conv_t* q, const float* x, const float* w,
                           const float* bias, const float* wd, const float* bd, float* y) {
  cd_job_t j;
  conv_setup(&j.c, p, x, w, bias, NULL, NULL);
  row_strides(&j.c);
  j.q = q, j.wd = wd, j.bd = bd, j.y = y;
  /* one item per image on one thread; a few per thread to balance two or more */
  const int64_t threads = rlx_nn_num_threads();
  int64_t items = threads == 1 ? 1 : 3 * threads;
  items = items > q->oh ? q->oh : items;
  j.rows_per = (q->oh + items - 1) / items;
  j.items_per_img = (q->oh + j.rows_per - 1) / j.rows_per;
  j.fill_floats = (size_t)((j.c.icb_n * p->kh * j.c.wp * p->cbi + 15) / 16 * 16);
  size_t scratch = (j.fill_floats + (size_t)(j.c.ocb * 3 * p->ow * 16)) * sizeof(float);
  return rlx_nn_parallel(p->n * j.items_per_img, scratch, conv_dw_item, &j);
}

/* ------------------------------------------------------------------ depthwise + 1x1
 *
 * MobileNet's projection: a 3x3 depthwise convolution q whose only reader is a 1x1 stride-1
 * convolution p. A work item is a group of output rows of one image, at least one register
 * tile row of pixels (14): their depthwise rows for every channel block go to the
 * participant's scratch ([Cb][pixels][16], tens of KB) and the 1x1 convolution reads them
 * from there at once, so the depthwise output (6x the block's channels) is never stored and
 * read back. */
typedef struct {
  conv_job_t c;           /* the 1x1 convolution, over the scratch */
  const rlx_nn_conv_t* q; /* the depthwise one: q->oh, q->ow = p->h, p->w */
  const float *x, *wd, *bd;
  int64_t rows, groups; /* output rows per item, items per image */
} dc_job_t;

static void dw_conv_item(void* ctx, int64_t it, void* scratch) {
  const dc_job_t* j = ctx;
  const conv_job_t* c = &j->c;
  const rlx_nn_conv_t* q = j->q;
  const int64_t n = it / j->groups, r0 = it % j->groups * j->rows;
  const int64_t r1 = r0 + j->rows < q->oh ? r0 + j->rows : q->oh, len = (r1 - r0) * q->ow;
  float* d = scratch; /* [Cb][len][16] */
  for (int64_t r = r0; r < r1; r++) {
    const int64_t a = r * q->sh - q->pt; /* the window's first input row */
    for (int64_t cb = 0; cb < c->icb_n; cb++) {
      const float* xb = j->x + (n * c->icb_n + cb) * q->h * q->w * 16;
      const float* xr[3];
      for (int64_t k = 0; k < 3; k++) xr[k] = a + k >= 0 && a + k < q->h ? xb + (a + k) * q->w * 16 : NULL;
      rlx_nn_dw3_row(q, xr, j->wd + cb * 9 * 16, j->bd ? j->bd + cb * 16 : NULL, d + (cb * len + (r - r0) * q->ow) * 16);
    }
  }
  tile_t t = c->base;
  t.s_icb = len * 16;
  const int64_t rw = pick_rw(c->V, len);
  for (int64_t og = 0; og < c->og_n; og++) {
    t.w = c->w + og * c->wgroup;
    t.bias = c->bias ? c->bias + og * c->V * 16 : NULL;
    for (int64_t p0 = 0; p0 < len; p0 += rw) {
      const int64_t m = len - p0 < rw ? len - p0 : rw;
      const int64_t yo = (n * c->ycb + og * c->V) * c->out_plane + (r0 * q->ow + p0) * 16;
      t.src = d + p0 * 16;
      t.y = c->y + yo;
      t.res = c->res ? c->res + yo : NULL;
      tiles[c->V - 1][m - 1][0](&t);
    }
  }
}

int rlx_nn_dwconv_conv_nchwc(const rlx_nn_conv_t* q, const rlx_nn_conv_t* p, const float* x, const float* wd,
                             const float* bd, const float* w, const float* bias, const float* res, float* y) {
  dc_job_t j;
  conv_setup(&j.c, p, NULL, w, bias, res, y);
  j.c.base.s_px = 16;
  j.q = q, j.x = x, j.wd = wd, j.bd = bd;
  j.rows = (MAX_RW + q->ow - 1) / q->ow;
  /* Each item reads all of the 1x1 weights: where they are large (MobileNet's 7x7 layers,
   * 0.6-1.2 MB), one item per thread reads them once per thread instead of once per row. */
  if (j.c.og_n * j.c.wgroup * (int64_t)sizeof(float) > (256 << 10)) {
    const int64_t threads = rlx_nn_num_threads(), r = (q->oh + threads - 1) / threads;
    j.rows = r > j.rows ? r : j.rows;
  }
  j.groups = (q->oh + j.rows - 1) / j.rows;
  const size_t scratch = (size_t)(j.c.icb_n * j.rows * q->ow * 16) * sizeof(float);
  return rlx_nn_parallel(q->n * j.groups, scratch, dw_conv_item, &j);
}

/* ------------------------------------------------------------------ Winograd
 *
 * F(m x m, 3x3) for m = 2 (alpha = 4, 16 positions) and m = 4 (alpha = 6, 36 positions).
 * Per work item, a chunk of up to max_rw(V) output tiles (m x m pixels each, row-major over
 * the tile grid) of one image: (1) the input transform V = B^T d B of every tile's
 * alpha x alpha patch, for all input channel blocks, into a per-thread buffer
 * [P][ICb][chunk][16]; (2) for each of the P positions a GEMM over input channels on the
 * register tiles of the direct kernel (the tiles are the "pixels": stride 16, a 1x1 window),
 * into [P][OCb][chunk][16]; (3) the output transform Y = A^T M A with bias, residual and
 * clip, stored to the pixels inside the output.
 * F(2x2): B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], G = [1 0 0; .5 .5 .5; .5 -.5 .5;
 *   0 0 1], A^T = [1 1 1 0; 0 1 -1 -1].
 * F(4x4) (points 0, +-1, +-2, inf): B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0;
 *   0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1], G = [1/4 0 0; -1/6 -1/6 -1/6;
 *   -1/6 1/6 -1/6; 1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1], A^T = [1 1 1 1 1 0;
 *   0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]. */

int64_t rlx_nn_winograd_packed_numel(int64_t oc, int64_t ic, int m) {
  int64_t a = m + 2;
  return a * a * ((oc + 15) / 16 * 16) * ((ic + 15) / 16 * 16);
}

/* t = G g for one column of 3 (m = 2: 4 rows, m = 4: 6 rows). */
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

void rlx_nn_winograd_pack_weight(const float* w, int64_t oc, int64_t ic, int64_t v, int m, float* dst) {
  const int a = m + 2, np = a * a;
  const int64_t ocb = (oc + 15) / 16, og_n = ocb / v, icb_n = (ic + 15) / 16, lanes = v * 16;
  const int64_t per_xi = og_n * icb_n * 16 * lanes;
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
      int64_t og = o / lanes, l = o % lanes, icb = i / 16, ci = i % 16;
      for (int xi = 0; xi < np; xi++)
        dst[xi * per_xi + ((og * icb_n + icb) * 16 + ci) * lanes + l] = (float)u[xi / a][xi % a];
    }
}

/* In place on 4 or 6 vectors: x = B^T x. */
static inline __attribute__((always_inline)) void wg_bt(const int m, v16* d, int s) {
  if (m == 2) {
    v16 d0 = d[0], d1 = d[s], d2 = d[2 * s], d3 = d[3 * s];
    d[0] = d0 - d2, d[s] = d1 + d2, d[2 * s] = d2 - d1, d[3 * s] = d1 - d3;
    return;
  }
  v16 d0 = d[0], d1 = d[s], d2 = d[2 * s], d3 = d[3 * s], d4 = d[4 * s], d5 = d[5 * s];
  d[0] = 4.0f * d0 - 5.0f * d2 + d4;
  d[s] = d3 + d4 - 4.0f * (d1 + d2);
  d[2 * s] = 4.0f * (d1 - d2) + d4 - d3;
  d[3 * s] = 2.0f * (d3 - d1) + d4 - d2;
  d[4 * s] = 2.0f * (d1 - d3) + d4 - d2;
  d[5 * s] = 4.0f * d1 - 5.0f * d3 + d5;
}

/* V = B^T d B for one tile and one channel block: d from x (zero outside the image). */
static inline __attribute__((always_inline)) void wg_input(const rlx_nn_conv_t* p, const int m, const float* xb, int64_t r0, int64_t c0, float* vb,
                     int64_t xi_stride) {
  const int a = m + 2;
  v16 d[6 * 6];
  for (int i = 0; i < a; i++) {
    int64_t r = r0 + i;
    for (int j = 0; j < a; j++) {
      int64_t c = c0 + j;
      d[i * a + j] = (r >= 0 && r < p->h && c >= 0 && c < p->w) ? LD(xb + (r * p->w + c) * 16) : (v16){0};
    }
  }
  for (int j = 0; j < a; j++) wg_bt(m, d + j, a); /* columns */
  for (int i = 0; i < a; i++) wg_bt(m, d + i * a, 1); /* rows */
  for (int k = 0; k < a * a; k++) ST(vb + k * xi_stride, d[k]);
}

/* o = A^T x for one column of alpha vectors (stride s), m outputs. */
static inline __attribute__((always_inline)) void wg_at(const int m, const v16* x, int s, v16* o) {
  if (m == 2) {
    o[0] = x[0] + x[s] + x[2 * s];
    o[1] = x[s] - x[2 * s] - x[3 * s];
    return;
  }
  v16 x1 = x[s], x2 = x[2 * s], x3 = x[3 * s], x4 = x[4 * s];
  v16 p12 = x1 + x2, m12 = x1 - x2, p34 = x3 + x4, m34 = x3 - x4;
  o[0] = x[0] + p12 + p34;
  o[1] = m12 + 2.0f * m34;
  o[2] = p12 + 4.0f * p34;
  o[3] = m12 + 8.0f * m34 + x[5 * s];
}

typedef struct {
  const rlx_nn_conv_t* p;
  const float *x, *u, *bias, *res;
  float* y;
  int m, a, np; /* tile size, alpha = m + 2, positions alpha^2 */
  int64_t V, ocb, og_n, icb_n, tcm, tw, n_tiles, chunks, in_img, out_plane, u_xi, u_og, vsz;
  int64_t ycb; /* as conv_job_t */
  float* sbuf; /* staged form: [vbuf | mbuf] for every tile of image sn */
  int64_t sn;
} wg_job_t;

/* (1) Input transform of tiles t0 .. t0+tc-1 of image n, channel block icb, into
 * vbuf[xi][icb][t][16] (tcm tiles per row of the buffer, tile t0 at index 0). */
static inline __attribute__((always_inline)) void wg_inputs(const wg_job_t* c, int64_t n, int64_t icb, int64_t t0,
                                                            int64_t tc, int64_t tcm, float* vbuf, const int m) {
  const rlx_nn_conv_t* p = c->p;
  for (int64_t t = 0; t < tc; t++) {
    int64_t ty = (t0 + t) / c->tw, tx = (t0 + t) % c->tw;
    wg_input(p, m, c->x + n * c->in_img + icb * p->h * p->w * 16, ty * m - p->pt, tx * m - p->pl,
             vbuf + (icb * tcm + t) * 16, c->icb_n * tcm * 16);
  }
}

/* (2) The GEMM of position xi, channel group og, over tiles 0 .. tc-1 of the buffers:
 * mbuf[xi][ocb][t][16] from vbuf[xi][icb][t][16], one register tile row at a time. */
static void wg_gemm(const wg_job_t* c, int64_t xi, int64_t og, int64_t tc, int64_t tcm, const float* vbuf,
                    float* mbuf, const float* pf_w) {
  tile_t tt;
  memset(&tt, 0, sizeof(tt));
  tt.n_icb = c->icb_n, tt.n_kh = 1, tt.n_kw = 1, tt.cbi = 16;
  tt.s_icb = tcm * 16, tt.s_px = 16, tt.s_blk = tcm * 16;
  tt.w = c->u + xi * c->u_xi + og * c->u_og;
  const int64_t rw = pick_rw(c->V, tc), calls = (tc + rw - 1) / rw;
  /* pf_w: weights of the item this thread most likely runs next, prefetched over the calls */
  const char* pf = (const char*)pf_w;
  if (pf) tt.pf_per = pf_rate(c->u_og * 4 / 64, calls, c->icb_n);
  for (int64_t t = 0; t < tc; t += rw) {
    const int64_t k = tc - t < rw ? tc - t : rw;
    tt.src = vbuf + xi * c->icb_n * tcm * 16 + t * 16;
    tt.y = mbuf + (xi * c->ocb + og * c->V) * tcm * 16 + t * 16;
    tt.pf = pf;
    if (pf) pf += tt.pf_per * c->icb_n * 64;
    tiles[c->V - 1][k - 1][0](&tt);
  }
}

/* (3) Output transform + epilogue of output block ob for tiles t0 .. t0+tc-1. */
static inline __attribute__((always_inline)) void wg_outputs(const wg_job_t* c, int64_t n, int64_t ob, int64_t t0,
                                                             int64_t tc, int64_t tcm, const float* mbuf, const int m) {
  const rlx_nn_conv_t* p = c->p;
  const int a = m + 2, np = a * a;
  const int64_t ocb = c->ocb;
  const v16 b = c->bias ? LD(c->bias + ob * 16) : (v16){0};
  for (int64_t t = 0; t < tc; t++) {
    v16 mm[36], r[4 * 6], o[4];
    for (int k = 0; k < np; k++) mm[k] = LD(mbuf + ((k * ocb + ob) * tcm + t) * 16);
    for (int j = 0; j < a; j++) { /* columns: r[i][j] = (A^T M)[i][j] */
      wg_at(m, mm + j, a, o);
      for (int i = 0; i < m; i++) r[i * a + j] = o[i];
    }
    int64_t ty = (t0 + t) / c->tw, tx = (t0 + t) % c->tw;
    for (int i = 0; i < m; i++) {
      int64_t oh = ty * m + i;
      if (oh >= p->oh) break;
      wg_at(m, r + i * a, 1, o);
      for (int j = 0; j < m; j++) {
        int64_t ow = tx * m + j;
        if (ow >= p->ow) break;
        int64_t off = (n * c->ycb + ob) * c->out_plane + (oh * p->ow + ow) * 16;
        v16 v = o[j] + b;
        if (c->res) v += LD(c->res + off);
        if (p->act == RLX_NN_ACT_CLIP) v = vclip(v, p->lo, p->hi);
        ST(c->y + off, v);
      }
    }
  }
}

/* One work item of the chunked form: all three steps for a chunk of tiles, in the
 * participant's scratch; m is a constant in each instance below so the transforms unroll. */
static inline __attribute__((always_inline)) void wg_item(const wg_job_t* c, int64_t it, void* scratch, const int m) {
  const int np = (m + 2) * (m + 2);
  const int64_t tcm = c->tcm;
  float* vbuf = scratch;
  float* mbuf = vbuf + c->vsz;
  const int64_t n = it / c->chunks, t0 = it % c->chunks * tcm;
  const int64_t tc = c->n_tiles - t0 < tcm ? c->n_tiles - t0 : tcm;
  for (int64_t icb = 0; icb < c->icb_n; icb++) wg_inputs(c, n, icb, t0, tc, tcm, vbuf, m);
  for (int64_t xi = 0; xi < np; xi++)
    for (int64_t og = 0; og < c->og_n; og++) wg_gemm(c, xi, og, tc, tcm, vbuf, mbuf, NULL);
  for (int64_t ob = 0; ob < c->ocb; ob++) wg_outputs(c, n, ob, t0, tc, tcm, mbuf, m);
}

static void wg_item2(void* ctx, int64_t it, void* scratch) { wg_item(ctx, it, scratch, 2); }
static void wg_item4(void* ctx, int64_t it, void* scratch) { wg_item(ctx, it, scratch, 4); }

/* The staged form: one step at a time over every tile of the image, the buffers shared by
 * the participants (c->sbuf), items over channel blocks (steps 1 and 3) and over
 * (position, channel group) pairs (step 2), so that every transformed weight is read once
 * per call. */
static void wgs_in2(void* ctx, int64_t icb, void* s) {
  const wg_job_t* c = ctx;
  wg_inputs(c, c->sn, icb, 0, c->n_tiles, c->n_tiles, c->sbuf, 2);
}
static void wgs_in4(void* ctx, int64_t icb, void* s) {
  const wg_job_t* c = ctx;
  wg_inputs(c, c->sn, icb, 0, c->n_tiles, c->n_tiles, c->sbuf, 4);
}
static void wgs_gemm(void* ctx, int64_t it, void* s) {
  const wg_job_t* c = ctx;
  /* items are (position, group) pairs in weight order, each thread's own range claimed in
   * order: the next item's weights are prefetched while this one computes (in a network
   * they come from memory: ResNet-18's 14x14x256 layers stream 4 MB each) */
  const int64_t next = it + 1;
  const float* pf = next < c->np * c->og_n ? c->u + next / c->og_n * c->u_xi + next % c->og_n * c->u_og : NULL;
  wg_gemm(c, it / c->og_n, it % c->og_n, c->n_tiles, c->n_tiles, c->sbuf, c->sbuf + c->vsz, pf);
}
static void wgs_out2(void* ctx, int64_t ob, void* s) {
  const wg_job_t* c = ctx;
  wg_outputs(c, c->sn, ob, 0, c->n_tiles, c->n_tiles, c->sbuf + c->vsz, 2);
}
static void wgs_out4(void* ctx, int64_t ob, void* s) {
  const wg_job_t* c = ctx;
  wg_outputs(c, c->sn, ob, 0, c->n_tiles, c->n_tiles, c->sbuf + c->vsz, 4);
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

int64_t rlx_nn_winograd_staged_bytes(int m, int64_t icb, int64_t ocb, int64_t oh, int64_t ow, int threads) {
  const int64_t np = (m + 2) * (m + 2), tiles = ((oh + m - 1) / m) * ((ow + m - 1) / m);
  const int64_t chunk = 14, bytes = np * (icb + ocb) * tiles * 64, weights = np * icb * ocb * 1024;
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

int rlx_nn_conv2d_winograd_nchwc(const rlx_nn_conv_t* p, int m, const float* x, const float* u, const float* bias,
                                 const float* res, float* y) {
  wg_job_t c;
  c.p = p, c.x = x, c.u = u, c.bias = bias, c.res = res;
  c.m = m, c.a = m + 2, c.np = c.a * c.a;
  c.V = p->v, c.ocb = (p->oc + 15) / 16, c.og_n = c.ocb / c.V, c.icb_n = (p->ic + 15) / 16;
  c.ycb = p->y_cb ? p->y_cb : c.ocb;
  c.y = y + p->y_off * p->oh * p->ow * 16;
  c.tw = (p->ow + m - 1) / m, c.n_tiles = (p->oh + m - 1) / m * c.tw;
  /* tiles per item: at most one register tile row, and as many items per thread as each
   * other thread gets (16 tiles on two threads: two items of 8, not 14 + 2) */
  const int64_t threads = rlx_nn_num_threads(), most = max_rw(c.V);
  int64_t chunks = (c.n_tiles + most - 1) / most;
  chunks = (chunks + threads - 1) / threads * threads;
  if (chunks > c.n_tiles) chunks = c.n_tiles;
  c.tcm = (c.n_tiles + chunks - 1) / chunks;
  c.chunks = (c.n_tiles + c.tcm - 1) / c.tcm;
  c.in_img = c.icb_n * p->h * p->w * 16, c.out_plane = p->oh * p->ow * 16;
  c.u_xi = c.og_n * c.icb_n * 16 * c.V * 16, c.u_og = c.icb_n * 16 * c.V * 16;
  const int64_t staged = rlx_nn_winograd_staged_bytes(m, c.icb_n, c.ocb, p->oh, p->ow, (int)threads);
  if (staged) {
    c.sbuf = rlx_nn_thread_buffer((size_t)staged);
    if (!c.sbuf) return -1;
    c.vsz = c.np * c.icb_n * c.n_tiles * 16;
    for (c.sn = 0; c.sn < p->n; c.sn++)
      if (rlx_nn_parallel(c.icb_n, 0, m == 2 ? wgs_in2 : wgs_in4, &c) ||
          rlx_nn_parallel(c.np * c.og_n, 0, wgs_gemm, &c) || rlx_nn_parallel(c.ocb, 0, m == 2 ? wgs_out2 : wgs_out4, &c))
        return -1;
    return 0;
  }
  c.vsz = c.np * c.icb_n * c.tcm * 16;
  size_t scratch = (size_t)(c.vsz + c.np * c.ocb * c.tcm * 16) * sizeof(float);
  return rlx_nn_parallel(p->n * c.chunks, scratch, m == 2 ? wg_item2 : wg_item4, &c);
}
