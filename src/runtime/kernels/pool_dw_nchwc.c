/* Depthwise convolution, max pool and channel means over NCHWc (nn_kernels.h), one variant
 * (nn_vec.h). Channels never mix, so each works on one vector of a channel block at a time
 * (KNBV passes over the same rows where a block is several vectors: the register pressure of
 * one vector, the rows stay in L1 between the passes). Depthwise and pooling work items are
 * rows (batch, channel block, output row) on the kernels' pool; means are memory-bound and
 * run on the caller. Layout transforms and weight packing are plain C (kernels_pack.c). */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "nn_variant.h"

/* Output columns [*ow0, *ow1) whose whole window lies inside the image's columns. */
static void interior_cols(const rlx_nn_conv_t* p, int64_t* ow0, int64_t* ow1) {
  int64_t a = p->pl > 0 ? (p->pl + p->sw - 1) / p->sw : 0;
  int64_t b = p->w - 1 - (p->kw - 1) * p->dw + p->pl;
  b = b < 0 ? 0 : b / p->sw + 1;
  if (b > p->ow) b = p->ow;
  if (a > b) a = b;
  *ow0 = a, *ow1 = b;
}

/* In the functions below x, w, y and res point at one vector (lanes s*VL..) of a block:
 * pixels and weight taps are NB floats apart. */

/* One output pixel with bounds checks (window partly outside the image). */
static vf dw_pixel(const rlx_nn_conv_t* p, const float* xp, const float* wb, int64_t oh, int64_t ow) {
  vf acc = (vf){0};
  for (int64_t kh = 0; kh < p->kh; kh++) {
    int64_t ih = oh * p->sh - p->pt + kh * p->dh;
    if (ih < 0 || ih >= p->h) continue;
    for (int64_t kw = 0; kw < p->kw; kw++) {
      int64_t iw = ow * p->sw - p->pl + kw * p->dw;
      if (iw < 0 || iw >= p->w) continue;
      acc += LD(wb + (kh * p->kw + kw) * NB) * LD(xp + (ih * p->w + iw) * NB);
    }
  }
  return acc;
}

enum { DW_RW = KDW_RW };

static inline void dw_store(const rlx_nn_conv_t* p, float* yr, const float* rr, int64_t ow, vf o) {
  if (rr) o += LD(rr + ow * NB);
  if (p->act == RLX_NN_ACT_CLIP) o = vclip(o, p->lo, p->hi);
  ST(yr + ow * NB, o);
}

/* One window row of a 3-wide window (dilation 1) for DW_RW pixels, SW the stride: the
 * three weights stay in registers, inputs come from L1. */
static inline __attribute__((always_inline)) void dw_row3(vf* acc, const float* xk, const float* wk, const int SW) {
  const vf w0 = LD(wk), w1 = LD(wk + NB), w2 = LD(wk + 2 * NB);
#pragma GCC unroll 16
  for (int j = 0; j < DW_RW; j++) {
    acc[j] += w0 * LD(xk + (j * SW) * NB);
    acc[j] += w1 * LD(xk + (j * SW + 1) * NB);
    acc[j] += w2 * LD(xk + (j * SW + 2) * NB);
  }
}

/* DW_RW pixels: base is the first tap (window row kh0, column 0) of pixel 0, kstride the
 * floats from one window row to the next, pixels sw*NB floats apart; nkh window rows from
 * kh0. Stores the first nst pixels from output column ow. */
static void dw_tile(const rlx_nn_conv_t* p, const float* base, int64_t kstride, const float* wb, int64_t kh0,
                    int64_t nkh, vf bv, float* yr, const float* rr, int64_t ow, int64_t nst) {
  vf acc[DW_RW];
#pragma GCC unroll 16
  for (int j = 0; j < DW_RW; j++) acc[j] = bv;
  for (int64_t i = 0; i < nkh; i++) {
    const float* xr = base + i * kstride;
    const float* wk = wb + (kh0 + i) * p->kw * NB;
    if (p->kw == 3 && p->dw == 1 && p->sw == 1) {
      dw_row3(acc, xr, wk, 1);
    } else if (p->kw == 3 && p->dw == 1 && p->sw == 2) {
      dw_row3(acc, xr, wk, 2);
    } else {
      for (int64_t kw = 0; kw < p->kw; kw++) {
        const vf wv = LD(wk + kw * NB);
        const float* xk = xr + kw * p->dw * NB;
#pragma GCC unroll 16
        for (int j = 0; j < DW_RW; j++) acc[j] += wv * LD(xk + j * p->sw * NB);
      }
    }
  }
  if (nst == DW_RW) {
#pragma GCC unroll 16
    for (int j = 0; j < DW_RW; j++) dw_store(p, yr, rr, ow + j, acc[j]);
  } else { /* through a copy, so that acc is only ever indexed by constants (registers) */
    vf part[DW_RW];
#pragma GCC unroll 16
    for (int j = 0; j < DW_RW; j++) part[j] = acc[j];
    for (int j = 0; j < nst; j++) dw_store(p, yr, rr, ow + j, part[j]);
  }
}

/* ---- 3x3 depthwise (dilation 1, stride 1 or 2): whole output rows with the nine weights in
 * registers (where the ISA has the registers: nn_tiles.h). Window rows above or below the
 * image read a row of zeros, so every interior pixel takes the same unrolled path; only the
 * columns whose window crosses the left or right border are bounds-checked, one pixel at a
 * time. */

enum { DW3_ZERO_COLS = 512 };
static const float dw3_zero_row[DW3_ZERO_COLS * NB] __attribute__((aligned(64)));

/* One border pixel: window columns outside the image are skipped. */
static inline vf dw3_border(const rlx_nn_conv_t* p, const float* const xr[3], const vf w[9], vf bv, int64_t ow) {
  vf acc = bv;
  for (int kh = 0; kh < 3; kh++)
    for (int kw = 0; kw < 3; kw++) {
      int64_t iw = ow * p->sw - p->pl + kw;
      if (iw >= 0 && iw < p->w) acc += w[kh * 3 + kw] * LD(xr[kh] + iw * NB);
    }
  return acc;
}

static inline __attribute__((always_inline)) void dw3_row(const rlx_nn_conv_t* p, const float* const xr[3],
                                                          const float* wb, vf bv, float* yr, const float* rr,
                                                          int64_t ow0, int64_t ow1, const int S) {
  vf w[9];
#pragma GCC unroll 9
  for (int k = 0; k < 9; k++) w[k] = LD(wb + k * NB);
  for (int64_t ow = 0; ow < ow0; ow++) dw_store(p, yr, rr, ow, dw3_border(p, xr, w, bv, ow));
  int64_t ow = ow0;
  for (; ow + DW_RW <= ow1; ow += DW_RW) {
    vf acc[DW_RW];
#pragma GCC unroll 16
    for (int j = 0; j < DW_RW; j++) acc[j] = bv;
#pragma GCC unroll 3
    for (int kh = 0; kh < 3; kh++) {
      const float* x = xr[kh] + (ow * S - p->pl) * NB;
      if (S == 1) { /* each input vector serves three pixels: loaded once, used as it comes */
#pragma GCC unroll 18
        for (int k = 0; k < DW_RW + 2; k++) {
          const vf v = LD(x + k * NB);
          if (k < DW_RW) acc[k] += w[kh * 3] * v;
          if (k >= 1 && k <= DW_RW) acc[k - 1] += w[kh * 3 + 1] * v;
          if (k >= 2) acc[k - 2] += w[kh * 3 + 2] * v;
        }
      } else {
#pragma GCC unroll 16
        for (int j = 0; j < DW_RW; j++) {
          acc[j] += w[kh * 3] * LD(x + (j * S) * NB);
          acc[j] += w[kh * 3 + 1] * LD(x + (j * S + 1) * NB);
          acc[j] += w[kh * 3 + 2] * LD(x + (j * S + 2) * NB);
        }
      }
    }
#pragma GCC unroll 16
    for (int j = 0; j < DW_RW; j++) dw_store(p, yr, rr, ow + j, acc[j]);
  }
  for (; ow < ow1; ow++) {
    vf acc = bv;
    for (int kh = 0; kh < 3; kh++) {
      const float* x = xr[kh] + (ow * S - p->pl) * NB;
      acc += w[kh * 3] * LD(x);
      acc += w[kh * 3 + 1] * LD(x + NB);
      acc += w[kh * 3 + 2] * LD(x + 2 * NB);
    }
    dw_store(p, yr, rr, ow, acc);
  }
  for (ow = ow1 > ow0 ? ow1 : ow0; ow < p->ow; ow++) dw_store(p, yr, rr, ow, dw3_border(p, xr, w, bv, ow));
}

/* True when the row path above serves the layer. */
static bool dw3_fits(const rlx_nn_conv_t* p) {
  return p->kh == 3 && p->kw == 3 && p->dh == 1 && p->dw == 1 && (p->sw == 1 || p->sw == 2) && p->w <= DW3_ZERO_COLS;
}

/* One output row from the three input rows of its window (NULL: outside the image, zeros),
 * every vector of the block: xr, wb, bias (or NULL), yr and rr (or NULL) at the block's
 * lane 0. */
static void dw3_run(const rlx_nn_conv_t* p, const float* const xr[3], const float* wb, const float* bias, float* yr,
                    const float* rr, int64_t ow0, int64_t ow1) {
  for (int s = 0; s < KNBV; s++) {
    const int64_t o = s * VL;
    const float* rows[3];
    for (int k = 0; k < 3; k++) rows[k] = (xr[k] ? xr[k] : dw3_zero_row) + o;
    const vf bv = bias ? LD(bias + o) : (vf){0};
    if (p->sw == 1) dw3_row(p, rows, wb + o, bv, yr + o, rr ? rr + o : NULL, ow0, ow1, 1);
    else dw3_row(p, rows, wb + o, bv, yr + o, rr ? rr + o : NULL, ow0, ow1, 2);
  }
}

/* (nn_variant.h) */
void dw3_row_fn(const rlx_nn_conv_t* p, const float* const xr[3], const float* wb, const float* bias, float* yr) {
  int64_t ow0, ow1;
  interior_cols(p, &ow0, &ow1);
  dw3_run(p, xr, wb, bias, yr, NULL, ow0, ow1);
}

enum { DW_SCRATCH = 7 * 40 * NB }; /* window rows x columns x NB: an edge tile's padded input */

typedef struct {
  const rlx_nn_conv_t* p;
  const float *x, *w, *bias, *res;
  float* y;
  int64_t cb, ow0, ow1, rows_per;
  bool dw3; /* the 3x3 row path (dw3_fits) */
} dw_job_t;

/* The general path for one output row of one block: DW_RW-pixel tiles, those whose window
 * crosses the image's left or right border through an edge copy. */
static void dw_row(const dw_job_t* c, const float* xp, const float* wb, const float* bias, float* yr,
                   const float* rr, int64_t oh) {
  const rlx_nn_conv_t* p = c->p;
  const int64_t cols = (DW_RW - 1) * p->sw + (p->kw - 1) * p->dw + 1; /* input columns of one tile */
  float edge[DW_SCRATCH] __attribute__((aligned(64)));
  int64_t kh0 = 0, kh1 = p->kh; /* rows of the window inside the image */
  while (kh0 < kh1 && oh * p->sh - p->pt + kh0 * p->dh < 0) kh0++;
  while (kh1 > kh0 && oh * p->sh - p->pt + (kh1 - 1) * p->dh >= p->h) kh1--;
  const int64_t ih0 = oh * p->sh - p->pt + kh0 * p->dh, nkh = kh1 - kh0;
  for (int64_t t = 0; t < p->ow; t += DW_RW) {
    int64_t nst = p->ow - t < DW_RW ? p->ow - t : DW_RW;
    const float* base = xp + (ih0 * p->w + t * p->sw - p->pl) * NB;
    int64_t kstride = p->dh * p->w * NB;
    if (!(t >= c->ow0 && t + DW_RW <= c->ow1)) { /* some window crosses a border */
      if (nkh * cols * NB > DW_SCRATCH) {       /* a window too large for the edge buffer */
        for (int s = 0; s < KNBV; s++) {
          const int64_t o = s * VL;
          const vf bv = bias ? LD(bias + o) : (vf){0};
          for (int64_t ow = t; ow < t + nst; ow++)
            dw_store(p, yr + o, rr ? rr + o : NULL, ow, dw_pixel(p, xp + o, wb + o, oh, ow) + bv);
        }
        continue;
      }
      /* an edge tile: its input columns copied with zeros outside the image */
      int64_t iw0 = t * p->sw - p->pl;
      for (int64_t i = 0; i < nkh; i++) {
        const float* src = xp + (ih0 + i * p->dh) * p->w * NB;
        for (int64_t k = 0; k < cols; k++) {
          int64_t iw = iw0 + k;
          if (iw >= 0 && iw < p->w) memcpy(edge + (i * cols + k) * NB, src + iw * NB, NB * sizeof(float));
          else memset(edge + (i * cols + k) * NB, 0, NB * sizeof(float));
        }
      }
      base = edge, kstride = cols * NB;
    }
    for (int s = 0; s < KNBV; s++) {
      const int64_t o = s * VL;
      dw_tile(p, base + o, kstride, wb + o, kh0, nkh, bias ? LD(bias + o) : (vf){0}, yr + o, rr ? rr + o : NULL, t,
              nst);
    }
  }
}

static void dw_item(void* ctx, int64_t item, void* scratch) {
  const dw_job_t* c = ctx;
  const rlx_nn_conv_t* p = c->p;
  const int64_t cb = c->cb, rows = p->n * cb * p->oh;
  for (int64_t r = item * c->rows_per; r < (item + 1) * c->rows_per && r < rows; r++) {
    int64_t oh = r % p->oh, b = r / p->oh % cb, n = r / p->oh / cb;
    const float* xp = c->x + (n * cb + b) * p->h * p->w * NB;
    const float* wb = c->w + b * p->kh * p->kw * NB;
    const float* bias = c->bias ? c->bias + b * NB : NULL;
    float* yr = c->y + ((n * cb + b) * p->oh + oh) * p->ow * NB;
    const float* rr = c->res ? c->res + ((n * cb + b) * p->oh + oh) * p->ow * NB : NULL;
    if (c->dw3) {
      const float* xr[3];
      for (int kh = 0; kh < 3; kh++) {
        int64_t ih = oh * p->sh - p->pt + kh;
        xr[kh] = ih >= 0 && ih < p->h ? xp + ih * p->w * NB : NULL;
      }
      dw3_run(p, xr, wb, bias, yr, rr, c->ow0, c->ow1);
    } else {
      dw_row(c, xp, wb, bias, yr, rr, oh);
    }
  }
}

/* Rows per work item: enough work per item to amortize a claim (about 16K multiply-adds). */
static int64_t rows_per_item(int64_t rows, int64_t work_per_row) {
  int64_t per = 16384 / (work_per_row > 0 ? work_per_row : 1);
  per = per < 1 ? 1 : per;
  int64_t items_min = 4 * rlx_nn_num_threads();
  while (per > 1 && (rows + per - 1) / per < items_min) per /= 2;
  return per;
}

void KSYM(rlx_nn_dwconv2d_nchwc)(const rlx_nn_conv_t* p, const float* x, const float* w, const float* bias,
                                 const float* res, float* y) {
  dw_job_t c = {p, x, w, bias, res, y, (p->ic + NB - 1) / NB, 0, 0, 1, dw3_fits(p)};
  interior_cols(p, &c.ow0, &c.ow1);
  int64_t rows = p->n * c.cb * p->oh;
  c.rows_per = rows_per_item(rows, p->ow * p->kh * p->kw * KNBV);
  rlx_nn_parallel((rows + c.rows_per - 1) / c.rows_per, 0, dw_item, &c);
}

typedef struct {
  const rlx_nn_conv_t* p;
  const float* x;
  float* y;
  int64_t rows, rows_per;
  int64_t ow0, ow1; /* output columns whose window lies inside the image */
} pool_job_t;

/* The max over one pixel's window, one vector: xp the plane at the vector's lanes. */
static inline vf pool_pixel(const pool_job_t* c, const float* xp, int64_t oh, int64_t ow, int64_t kh0, int64_t kh1) {
  const rlx_nn_conv_t* p = c->p;
  vf m = (vf){0} - INFINITY;
  if (ow >= c->ow0 && ow < c->ow1) { /* the window's columns are all inside */
    const float* xc = xp + (ow * p->sw - p->pl) * NB;
    for (int64_t kh = kh0; kh < kh1; kh++) {
      const float* xr = xc + (oh * p->sh - p->pt + kh * p->dh) * p->w * NB;
      if (p->kw == 3 && p->dw == 1) {
        m = vmax(m, vmax(LD(xr), vmax(LD(xr + NB), LD(xr + 2 * NB))));
      } else {
        for (int64_t kw = 0; kw < p->kw; kw++) m = vmax(m, LD(xr + kw * p->dw * NB));
      }
    }
    return m;
  }
  for (int64_t kh = kh0; kh < kh1; kh++) {
    int64_t ih = oh * p->sh - p->pt + kh * p->dh;
    for (int64_t kw = 0; kw < p->kw; kw++) {
      int64_t iw = ow * p->sw - p->pl + kw * p->dw;
      if (iw >= 0 && iw < p->w) m = vmax(m, LD(xp + (ih * p->w + iw) * NB));
    }
  }
  return m;
}

static void max_pool_item(void* ctx, int64_t item, void* scratch) {
  const pool_job_t* c = ctx;
  const rlx_nn_conv_t* p = c->p;
  for (int64_t r = item * c->rows_per; r < (item + 1) * c->rows_per && r < c->rows; r++) {
    int64_t oh = r % p->oh, img = r / p->oh;
    const float* xp = c->x + img * p->h * p->w * NB;
    float* yr = c->y + (img * p->oh + oh) * p->ow * NB;
    int64_t kh0 = 0, kh1 = p->kh; /* rows of the window inside the image */
    while (kh0 < kh1 && oh * p->sh - p->pt + kh0 * p->dh < 0) kh0++;
    while (kh1 > kh0 && oh * p->sh - p->pt + (kh1 - 1) * p->dh >= p->h) kh1--;
    for (int64_t ow = 0; ow < p->ow; ow++) {
#pragma GCC unroll 4
      for (int s = 0; s < KNBV; s++) ST(yr + ow * NB + s * VL, pool_pixel(c, xp + s * VL, oh, ow, kh0, kh1));
    }
  }
}

void KSYM(rlx_nn_max_pool2d_nchwc)(const rlx_nn_conv_t* p, const float* x, float* y) {
  pool_job_t c = {p, x, y, p->n * ((p->ic + NB - 1) / NB) * p->oh, 1, 0, 0};
  interior_cols(p, &c.ow0, &c.ow1);
  c.rows_per = rows_per_item(c.rows, p->ow * p->kh * p->kw * KNBV);
  rlx_nn_parallel((c.rows + c.rows_per - 1) / c.rows_per, 0, max_pool_item, &c);
}

void KSYM(rlx_nn_global_mean_nchwc)(int64_t n, int64_t cb, int64_t hw, const float* x, float* y) {
  for (int64_t i = 0; i < n * cb; i++)
    for (int s = 0; s < KNBV; s++) {
      const float* xp = x + i * hw * NB + s * VL;
      vf s0 = (vf){0}, s1 = (vf){0};
      int64_t k = 0;
      for (; k + 1 < hw; k += 2) {
        s0 += LD(xp + k * NB);
        s1 += LD(xp + (k + 1) * NB);
      }
      if (k < hw) s0 += LD(xp + k * NB);
      ST(y + i * NB + s * VL, (s0 + s1) / (float)hw);
    }
}
