/* Declarations inside one kernel variant (nn_vec.h): its kernels, and the direct
 * convolution's register tile and work decomposition that conv2d_nchwc.c,
 * conv2d_fused_nchwc.c and conv2d_winograd_nchwc.c share.
 * Every function declared here is the variant's own (a KSYM name).
 *
 * A tile is RW consecutive output pixels of one row x V output channel blocks, i.e.
 * V * KNBV * RW accumulator vectors; each step of the reduction loads V * KNBV weight vectors
 * and broadcasts RW input values. RW per V comes from the variant's row of nn_tiles.h (what
 * its registers hold). Tile sizes, pixel stride and channels per input block are compile-time
 * constants of each tile instance (conv_tile is inlined into every instance), so every
 * address is a base register plus a displacement. */
#ifndef RLX_RUNTIME_KERNELS_NN_VARIANT_H
#define RLX_RUNTIME_KERNELS_NN_VARIANT_H

#include <stdbool.h>

#include "nn_kernels.h"
#include "nn_vec.h"

#if KRW1 < KRW2 || KRW2 < KRW3 || KRW1 > 14
#error "nn_tiles.h: a row's tile widths must not grow with V and stay within 14"
#endif
#define KRW_MAX KRW1

typedef struct {
  const float* src;                /* input of tile pixel 0 at icb 0, kh 0, kw 0, ci 0 */
  int64_t s_icb, s_kh, s_kw, s_px; /* strides in floats (s_px only used when not constant) */
  int64_t n_icb, n_kh, n_kw, cbi;  /* cbi only used when not constant */
  const float* w;                  /* this group's weights [n_icb][n_kh][n_kw][cbi][w_step] */
  int64_t w_step;                  /* floats per (icb, kh, kw, ci) step of w: the weight's V*NB */
  float* y;                        /* output of tile pixel 0, first block; pixel stride NB */
  const float* res;                /* residual at the same place as y, or NULL */
  int64_t s_blk;                   /* floats between output blocks (one plane) */
  const float* bias;               /* V*NB values or NULL */
  int act;
  float lo, hi;
  const char* pf; /* lines to prefetch into L2 while computing (the next work item's weights), or NULL */
  int64_t pf_per; /* lines per (icb, kh, kw) step */
  const char* pfx;   /* the next tile's input at icb 0 (a 1x1 convolution's next pixels), or NULL; */
  int64_t pfx_lines; /* that many lines of it are prefetched per input block, s_icb apart */
} tile_t;

typedef void (*tile_fn_t)(const tile_t* t);
/* The tile instances, [V - 1][RW - 1][kind]: kind 0 stride-1 blocked input, 1 stride-2
 * blocked, 2 stride-2 plain NCHW input (a network's first layer), 3 anything (run-time pixel
 * stride and channels per block). NULL past the variant's widest tile for V. */
extern const tile_fn_t KSYM(rlx_nn_conv_tiles)[3][KRW_MAX][4];
#define conv_tiles KSYM(rlx_nn_conv_tiles)

/* The widest tile for V output blocks. */
static inline int max_rw(int64_t v) { return v == 1 ? KRW1 : v == 2 ? KRW2 : KRW3; }

/* Tiles per Winograd work item for V: one register tile row. */
static inline int wg_chunk(int64_t v) { return max_rw(v); }

/* Register tiles over a run of len pixels: the fewest of at most max_rw(v) pixels each.
 * Tile k covers pixels [tile_at(k), tile_at(k + 1)): the widths differ by at most one, so
 * no narrow last tile runs at a fraction of the speed (AVX2's 49-pixel 7x7 planes: eight
 * tiles of 6 and one of 1 before, now four of 6 and five of 5). */
static inline int64_t n_tiles(int64_t v, int64_t len) {
  const int64_t m = max_rw(v);
  return len < 1 ? 1 : (len + m - 1) / m;
}
static inline int64_t tile_at(int64_t k, int64_t n, int64_t len) { return k * len / n; }

/* Prefetch rate of a tile: `lines` cache lines spread over `calls` tile calls of `steps`
 * (icb, kh, kw) steps each, as lines per step (tile_t.pf_per). */
static inline int64_t pf_rate(int64_t lines, int64_t calls, int64_t steps) {
  const int64_t per_call = (lines + calls - 1) / calls;
  return (per_call + steps - 1) / steps;
}

/* A direct convolution split into work items for the pool. */
typedef struct {
  const rlx_nn_conv_t* p;
  const float *x, *w, *bias, *res;
  float* y;
  tile_t base;
  int64_t V, ocb, og_n, icb_n, in_img, out_plane, wgroup;
  int64_t ycb; /* channel blocks per image of y (y already offset by p->y_off blocks) */
  int64_t row_tiles, kind;           /* tiles per output row (tile_at over p->ow) */
  int64_t per, chunks, flat_tiles, len; /* flat: tiles per item, items per (n, og), tiles over len */
  int64_t wp, ogc, og_chunks;        /* rows: scratch row width, groups per item */
  const float* pad;                  /* padded image: [n][icb][hp][wp][cbi] */
  int64_t hp, rows_per, row_chunks;  /* padded image: rows, output rows per item */
  int64_t pf_ahead; /* padded image: prefetch the group this many on (0: none); flat: the next group */
  bool pfx_input;    /* flat: prefetch each next tile's input (the input, not the weights, dominates) */
  bool px_major;    /* flat: items ordered pixels first (see conv2d_nchwc.c) */
} conv_job_t;

/* Output blocks of weight group og: V, or fewer in the last group when V does not divide
 * the output blocks (its weights are padded to V blocks with zeros; a narrower tile runs). */
static inline int group_v(const conv_job_t* c, int64_t og) {
  return (int)(og == c->og_n - 1 ? c->ocb - og * c->V : c->V);
}

/* The fields every form of the direct convolution needs. */
void KSYM(rlx_nn_conv_setup)(conv_job_t* c, const rlx_nn_conv_t* p, const float* x, const float* w, const float* bias,
                             const float* res, float* y);
/* The row form: tiles read the input rows of one output row, copied by conv_row. */
void KSYM(rlx_nn_conv_row_strides)(conv_job_t* c);
/* One output row `orow` of image n for channel groups [og0, og1): the input rows it reads are
 * copied into s, then the tiles write y0 (the row's first pixel in the group-0 block; blocks
 * t.s_blk apart) and read the residual r0 at the same places (or none). */
void KSYM(rlx_nn_conv_row)(const conv_job_t* c, tile_t t, int64_t n, int64_t orow, int64_t og0, int64_t og1, float* s,
                           float* y0, const float* r0);
/* One output row of a 3x3 depthwise convolution (dilation 1, stride 1 or 2, q->w <= 512):
 * xr the three input rows of its window (NULL: a row outside the image, read as zeros), wb
 * the block's 9 weight vectors, bias its NB values or NULL (pool_dw_nchwc.c). */
void KSYM(rlx_nn_dw3_row)(const rlx_nn_conv_t* p, const float* const xr[3], const float* wb, const float* bias,
                          float* yr);
#define conv_setup KSYM(rlx_nn_conv_setup)
#define row_strides KSYM(rlx_nn_conv_row_strides)
#define conv_row KSYM(rlx_nn_conv_row)
#define dw3_row_fn KSYM(rlx_nn_dw3_row)

/* The variant's kernels (each file defines its own; nn_variant.c lists them in the table). */
int KSYM(rlx_nn_conv2d_nchwc)(const rlx_nn_conv_t* p, const float* x, const float* w, const float* bias,
                              const float* res, float* y);
int KSYM(rlx_nn_conv2d_dw_nchwc)(const rlx_nn_conv_t* p, const rlx_nn_conv_t* q, const float* x, const float* w,
                                 const float* bias, const float* wd, const float* bd, float* y);
int KSYM(rlx_nn_dwconv_conv_nchwc)(const rlx_nn_conv_t* q, const rlx_nn_conv_t* p, const float* x, const float* wd,
                                   const float* bd, const float* w, const float* bias, const float* res, float* y);
int KSYM(rlx_nn_conv2d_winograd_nchwc)(const rlx_nn_conv_t* p, int m, const float* x, const float* u,
                                       const float* bias, const float* res, float* y);
void KSYM(rlx_nn_dwconv2d_nchwc)(const rlx_nn_conv_t* p, const float* x, const float* w, const float* bias,
                                 const float* res, float* y);
void KSYM(rlx_nn_max_pool2d_nchwc)(const rlx_nn_conv_t* p, const float* x, float* y);
void KSYM(rlx_nn_global_mean_nchwc)(int64_t n, int64_t cb, int64_t hw, const float* x, float* y);
int KSYM(rlx_nn_qconv2d_nchwc)(const rlx_nn_qconv_t* p, const uint8_t* x, const int8_t* w, const int32_t* bias,
                               const float* mult, uint8_t* y);
void KSYM(rlx_nn_qadd_span)(const rlx_nn_qadd_t* q, const uint8_t* a, const uint8_t* b, uint8_t* y, int64_t n);
void KSYM(rlx_nn_quantize_span)(const float* x, int64_t n, float scale, int32_t zp, uint8_t* y, int64_t stride);
int KSYM(rlx_nn_qdwconv2d_nchwc)(const rlx_nn_qconv_t* p, const uint8_t* x, const int32_t* w, const int32_t* bias,
                                 const float* mult, uint8_t* y);

#endif
