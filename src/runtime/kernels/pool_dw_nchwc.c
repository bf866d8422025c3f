/* Depthwise convolution, pools, channel means and layout transforms over NCHW16c
 * (nn_kernels.h). All vectorize over the 16 channels of a block; depthwise and pooling
 * work items are rows (batch, channel block, output row) on the kernels' pool; means and
 * layout transforms are memory-bound copies and run on the caller. */
#include <float.h>
#include <stdbool.h>
#include <math.h>
#include <string.h>

#include "nn_kernels.h"
#include "nn_vec.h"

void rlx_nn_dw_pack_weight(const float* w, int64_t c, int64_t kh, int64_t kw, float* dst) {
  int64_t cb = (c + 15) / 16;
  for (int64_t b = 0; b < cb; b++)
    for (int64_t y = 0; y < kh; y++)
      for (int64_t x = 0; x < kw; x++)
        for (int64_t l = 0; l < 16; l++) {
          int64_t ch = b * 16 + l;
          dst[((b * kh + y) * kw + x) * 16 + l] = ch < c ? w[(ch * kh + y) * kw + x] : 0.0f;
        }
}

/* Output columns [*ow0, *ow1) whose whole window lies inside the image's columns. */
static void interior_cols(const rlx_nn_conv_t* p, int64_t* ow0, int64_t* ow1) {
  int64_t a = p->pl > 0 ? (p->pl + p->sw - 1) / p->sw : 0;
  int64_t b = p->w - 1 - (p->kw - 1) * p->dw + p->pl;
  b = b < 0 ? 0 : b / p->sw + 1;
  if (b > p->ow) b = p->ow;
  if (a > b) a = b;
  *ow0 = a, *ow1 = b;
}

/* One output pixel with bounds checks (window partly outside the image). */
static v16 dw_pixel(const rlx_nn_conv_t* p, const float* xp, const float* wb, int64_t oh, int64_t ow) {
  v16 acc = (v16){0};
  for (int64_t kh = 0; kh < p->kh; kh++) {
    int64_t ih = oh * p->sh - p->pt + kh * p->dh;
    if (ih < 0 || ih >= p->h) continue;
    for (int64_t kw = 0; kw < p->kw; kw++) {
      int64_t iw = ow * p->sw - p->pl + kw * p->dw;
      if (iw < 0 || iw >= p->w) continue;
      acc += LD(wb + (kh * p->kw + kw) * 16) * LD(xp + (ih * p->w + iw) * 16);
    }
  }
  return acc;
}

enum { DW_RW = 8 };

static inline void dw_store(const rlx_nn_conv_t* p, float* yr, const float* rr, int64_t ow, v16 o) {
  if (rr) o += LD(rr + ow * 16);
  if (p->act == RLX_NN_ACT_CLIP) o = vclip(o, p->lo, p->hi);
  ST(yr + ow * 16, o);
}

/* One window row of a 3-wide window (dilation 1) for DW_RW pixels, SW the stride: the
 * three weights stay in registers, inputs come from L1. */
static inline __attribute__((always_inline)) void dw_row3(v16* acc, const float* xk, const float* wk, const int SW) {
  const v16 w0 = LD(wk), w1 = LD(wk + 16), w2 = LD(wk + 32);
#pragma GCC unroll 8
  for (int j = 0; j < DW_RW; j++) {
    acc[j] += w0 * LD(xk + (j * SW) * 16);
    acc[j] += w1 * LD(xk + (j * SW + 1) * 16);
    acc[j] += w2 * LD(xk + (j * SW + 2) * 16);
  }
}

/* DW_RW pixels: base is the first tap (window row kh0, column 0) of pixel 0, kstride the
 * floats from one window row to the next, pixels sw*16 floats apart; nkh window rows from
 * kh0. Stores the first nst pixels from output column ow. */
static void dw_tile(const rlx_nn_conv_t* p, const float* base, int64_t kstride, const float* wb, int64_t kh0,
                    int64_t nkh, v16 bv, float* yr, const float* rr, int64_t ow, int64_t nst) {
  v16 acc[DW_RW];
#pragma GCC unroll 8
  for (int j = 0; j < DW_RW; j++) acc[j] = bv;
  for (int64_t i = 0; i < nkh; i++) {
    const float* xr = base + i * kstride;
    const float* wk = wb + (kh0 + i) * p->kw * 16;
    if (p->kw == 3 && p->dw == 1 && p->sw == 1) {
      dw_row3(acc, xr, wk, 1);
    } else if (p->kw == 3 && p->dw == 1 && p->sw == 2) {
      dw_row3(acc, xr, wk, 2);
    } else {
      for (int64_t kw = 0; kw < p->kw; kw++) {
        const v16 wv = LD(wk + kw * 16);
        const float* xk = xr + kw * p->dw * 16;
#pragma GCC unroll 8
        for (int j = 0; j < DW_RW; j++) acc[j] += wv * LD(xk + j * p->sw * 16);
      }
    }
  }
  if (nst == DW_RW) {
#pragma GCC unroll 8
    for (int j = 0; j < DW_RW; j++) dw_store(p, yr, rr, ow + j, acc[j]);
  } else { /* through a copy, so that acc is only ever indexed by constants (registers) */
    v16 part[DW_RW];
#pragma GCC unroll 8
    for (int j = 0; j < DW_RW; j++) part[j] = acc[j];
    for (int j = 0; j < nst; j++) dw_store(p, yr, rr, ow + j, part[j]);
  }
}

/* ---- 3x3 depthwise (dilation 1, stride 1 or 2): whole output rows with the nine weights in
 * registers. Window rows above or below the image read a row of zeros, so every interior
 * pixel takes the same unrolled path; only the columns whose window crosses the left or
 * right border are bounds-checked, one pixel at a time. */

enum { DW3_ZERO_COLS = 512 };
static const float dw3_zero_row[DW3_ZERO_COLS * 16] __attribute__((aligned(64)));

/* One border pixel: window columns outside the image are skipped. */
static inline v16 dw3_border(const rlx_nn_conv_t* p, const float* const xr[3], const v16 w[9], v16 bv, int64_t ow) {
  v16 acc = bv;
  for (int kh = 0; kh < 3; kh++)
    for (int kw = 0; kw < 3; kw++) {
      int64_t iw = ow * p->sw - p->pl + kw;
      if (iw >= 0 && iw < p->w) acc += w[kh * 3 + kw] * LD(xr[kh] + iw * 16);
    }
  return acc;
}

static inline __attribute__((always_inline)) void dw3_row(const rlx_nn_conv_t* p, const float* const xr[3],
                                                          const float* wb, v16 bv, float* yr, const float* rr,
                                                          int64_t ow0, int64_t ow1, const int S) {
  v16 w[9];
#pragma GCC unroll 9
  for (int k = 0; k < 9; k++) w[k] = LD(wb + k * 16);
  for (int64_t ow = 0; ow < ow0; ow++) dw_store(p, yr, rr, ow, dw3_border(p, xr, w, bv, ow));
  int64_t ow = ow0;
  for (; ow + DW_RW <= ow1; ow += DW_RW) {
    v16 acc[DW_RW];
#pragma GCC unroll 8
    for (int j = 0; j < DW_RW; j++) acc[j] = bv;
#pragma GCC unroll 3
    for (int kh = 0; kh < 3; kh++) {
      const float* x = xr[kh] + (ow * S - p->pl) * 16;
      if (S == 1) { /* each input vector serves three pixels: load it once */
        v16 v[DW_RW + 2];
#pragma GCC unroll 10
        for (int k = 0; k < DW_RW + 2; k++) v[k] = LD(x + k * 16);
#pragma GCC unroll 8
        for (int j = 0; j < DW_RW; j++) {
          acc[j] += w[kh * 3] * v[j];
          acc[j] += w[kh * 3 + 1] * v[j + 1];
          acc[j] += w[kh * 3 + 2] * v[j + 2];
        }
      } else {
#pragma GCC unroll 8
        for (int j = 0; j < DW_RW; j++) {
          acc[j] += w[kh * 3] * LD(x + (j * S) * 16);
          acc[j] += w[kh * 3 + 1] * LD(x + (j * S + 1) * 16);
          acc[j] += w[kh * 3 + 2] * LD(x + (j * S + 2) * 16);
        }
      }
    }
#pragma GCC unroll 8
    for (int j = 0; j < DW_RW; j++) dw_store(p, yr, rr, ow + j, acc[j]);
  }
  for (; ow < ow1; ow++) {
    v16 acc = bv;
    for (int kh = 0; kh < 3; kh++) {
      const float* x = xr[kh] + (ow * S - p->pl) * 16;
      acc += w[kh * 3] * LD(x);
      acc += w[kh * 3 + 1] * LD(x + 16);
      acc += w[kh * 3 + 2] * LD(x + 32);
    }
    dw_store(p, yr, rr, ow, acc);
  }
  for (ow = ow1 > ow0 ? ow1 : ow0; ow < p->ow; ow++) dw_store(p, yr, rr, ow, dw3_border(p, xr, w, bv, ow));
}

/* True when the row path above serves the layer. */
static bool dw3_fits(const rlx_nn_conv_t* p) {
  return p->kh == 3 && p->kw == 3 && p->dh == 1 && p->dw == 1 && (p->sw == 1 || p->sw == 2) && p->w <= DW3_ZERO_COLS;
}

/* One output row from the three input rows of its window (NULL: outside the image, zeros). */
static void dw3_run(const rlx_nn_conv_t* p, const float* const xr[3], const float* wb, v16 bv, float* yr,
                    const float* rr, int64_t ow0, int64_t ow1) {
  const float* rows[3];
  for (int k = 0; k < 3; k++) rows[k] = xr[k] ? xr[k] : dw3_zero_row;
  if (p->sw == 1) dw3_row(p, rows, wb, bv, yr, rr, ow0, ow1, 1);
  else dw3_row(p, rows, wb, bv, yr, rr, ow0, ow1, 2);
}

static void dw3_rows(const rlx_nn_conv_t* p, const float* xp, const float* wb, v16 bv, float* yr, const float* rr,
                     int64_t oh, int64_t ow0, int64_t ow1) {
  const float* xr[3];
  for (int kh = 0; kh < 3; kh++) {
    int64_t ih = oh * p->sh - p->pt + kh;
    xr[kh] = ih >= 0 && ih < p->h ? xp + ih * p->w * 16 : NULL;
  }
  dw3_run(p, xr, wb, bv, yr, rr, ow0, ow1);
}

void rlx_nn_dw3_row(const rlx_nn_conv_t* p, const float* const xr[3], const float* wb, const float* bias, float* yr) {
  int64_t ow0, ow1;
  interior_cols(p, &ow0, &ow1);
  dw3_run(p, xr, wb, bias ? LD(bias) : (v16){0}, yr, NULL, ow0, ow1);
}

enum { DW_SCRATCH = 7 * 40 * 16 }; /* window rows x columns x 16: an edge tile's padded input */

typedef struct {
  const rlx_nn_conv_t* p;
  const float *x, *w, *bias, *res;
  float* y;
  int64_t cb, ow0, ow1, rows_per;
  bool dw3; /* the 3x3 row path (dw3_fits) */
} dw_job_t;

static void dw_item(void* ctx, int64_t item, void* scratch) {
  const dw_job_t* c = ctx;
  const rlx_nn_conv_t* p = c->p;
  const float *x = c->x, *w = c->w, *bias = c->bias, *res = c->res;
  float* y = c->y;
  const int64_t cb = c->cb, ow0 = c->ow0, ow1 = c->ow1, rows = p->n * cb * p->oh;
  const int64_t cols = (DW_RW - 1) * p->sw + (p->kw - 1) * p->dw + 1; /* input columns of one tile */
  float edge[DW_SCRATCH] __attribute__((aligned(64)));
  for (int64_t r = item * c->rows_per; r < (item + 1) * c->rows_per && r < rows; r++) {
    int64_t oh = r % p->oh, b = r / p->oh % cb, n = r / p->oh / cb;
    const float* xp = x + (n * cb + b) * p->h * p->w * 16;
    const float* wb = w + b * p->kh * p->kw * 16;
    const v16 bv = bias ? LD(bias + b * 16) : (v16){0};
    float* yr = y + ((n * cb + b) * p->oh + oh) * p->ow * 16;
    const float* rr = res ? res + ((n * cb + b) * p->oh + oh) * p->ow * 16 : NULL;
    if (c->dw3) {
      dw3_rows(p, xp, wb, bv, yr, rr, oh, ow0, ow1);
      continue;
    }
    int64_t kh0 = 0, kh1 = p->kh; /* rows of the window inside the image */
    while (kh0 < kh1 && oh * p->sh - p->pt + kh0 * p->dh < 0) kh0++;
    while (kh1 > kh0 && oh * p->sh - p->pt + (kh1 - 1) * p->dh >= p->h) kh1--;
    const int64_t ih0 = oh * p->sh - p->pt + kh0 * p->dh, nkh = kh1 - kh0;
    for (int64_t t = 0; t < p->ow; t += DW_RW) {
      int64_t nst = p->ow - t < DW_RW ? p->ow - t : DW_RW;
      if (t >= ow0 && t + DW_RW <= ow1) { /* every window inside the image's columns */
        dw_tile(p, xp + (ih0 * p->w + t * p->sw - p->pl) * 16, p->dh * p->w * 16, wb, kh0, nkh, bv, yr, rr, t, nst);
        continue;
      }
      if (nkh * cols * 16 > DW_SCRATCH) { /* a window too large for the edge buffer */
        for (int64_t ow = t; ow < t + nst; ow++) dw_store(p, yr, rr, ow, dw_pixel(p, xp, wb, oh, ow) + bv);
        continue;
      }
      /* an edge tile: its input columns copied with zeros outside the image */
      int64_t iw0 = t * p->sw - p->pl;
      for (int64_t i = 0; i < nkh; i++) {
        const float* src = xp + (ih0 + i * p->dh) * p->w * 16;
        for (int64_t k = 0; k < cols; k++) {
          int64_t iw = iw0 + k;
          ST(edge + (i * cols + k) * 16, iw >= 0 && iw < p->w ? LD(src + iw * 16) : (v16){0});
        }
      }
      dw_tile(p, edge, cols * 16, wb, kh0, nkh, bv, yr, rr, t, nst);
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

void rlx_nn_dwconv2d_nchwc(const rlx_nn_conv_t* p, const float* x, const float* w, const float* bias,
                           const float* res, float* y) {
  dw_job_t c = {p, x, w, bias, res, y, (p->ic + 15) / 16, 0, 0, 1, dw3_fits(p)};
  interior_cols(p, &c.ow0, &c.ow1);
  int64_t rows = p->n * c.cb * p->oh;
  c.rows_per = rows_per_item(rows, p->ow * p->kh * p->kw);
  rlx_nn_parallel((rows + c.rows_per - 1) / c.rows_per, 0, dw_item, &c);
}

typedef struct {
  const rlx_nn_conv_t* p;
  const float* x;
  float* y;
  int64_t rows, rows_per;
  int64_t ow0, ow1; /* output columns whose window lies inside the image */
} pool_job_t;

static void max_pool_item(void* ctx, int64_t item, void* scratch) {
  const pool_job_t* c = ctx;
  const rlx_nn_conv_t* p = c->p;
  const float* x = c->x;
  float* y = c->y;
  for (int64_t r = item * c->rows_per; r < (item + 1) * c->rows_per && r < c->rows; r++) {
    int64_t oh = r % p->oh, img = r / p->oh;
    const float* xp = x + img * p->h * p->w * 16;
    float* yr = y + (img * p->oh + oh) * p->ow * 16;
    int64_t kh0 = 0, kh1 = p->kh; /* rows of the window inside the image */
    while (kh0 < kh1 && oh * p->sh - p->pt + kh0 * p->dh < 0) kh0++;
    while (kh1 > kh0 && oh * p->sh - p->pt + (kh1 - 1) * p->dh >= p->h) kh1--;
    for (int64_t ow = 0; ow < p->ow; ow++) {
      v16 m = (v16){0} - INFINITY;
      if (ow >= c->ow0 && ow < c->ow1) { /* the window's columns are all inside */
        const float* xc = xp + (ow * p->sw - p->pl) * 16;
        for (int64_t kh = kh0; kh < kh1; kh++) {
          const float* xr = xc + (oh * p->sh - p->pt + kh * p->dh) * p->w * 16;
          if (p->kw == 3 && p->dw == 1) {
            m = vmax(m, vmax(LD(xr), vmax(LD(xr + 16), LD(xr + 32))));
          } else {
            for (int64_t kw = 0; kw < p->kw; kw++) m = vmax(m, LD(xr + kw * p->dw * 16));
          }
        }
        ST(yr + ow * 16, m);
        continue;
      }
      for (int64_t kh = 0; kh < p->kh; kh++) {
        int64_t ih = oh * p->sh - p->pt + kh * p->dh;
        if (ih < 0 || ih >= p->h) continue;
        for (int64_t kw = 0; kw < p->kw; kw++) {
          int64_t iw = ow * p->sw - p->pl + kw * p->dw;
          if (iw >= 0 && iw < p->w) m = vmax(m, LD(xp + (ih * p->w + iw) * 16));
        }
      }
      ST(yr + ow * 16, m);
    }
  }
}

void rlx_nn_max_pool2d_nchwc(const rlx_nn_conv_t* p, const float* x, float* y) {
  pool_job_t c = {p, x, y, p->n * ((p->ic + 15) / 16) * p->oh, 1, 0, 0};
  interior_cols(p, &c.ow0, &c.ow1);
  c.rows_per = rows_per_item(c.rows, p->ow * p->kh * p->kw);
  rlx_nn_parallel((c.rows + c.rows_per - 1) / c.rows_per, 0, max_pool_item, &c);
}

void rlx_nn_global_mean_nchwc(int64_t n, int64_t cb, int64_t hw, const float* x, float* y) {
  for (int64_t i = 0; i < n * cb; i++) {
    const float* xp = x + i * hw * 16;
    v16 s0 = (v16){0}, s1 = (v16){0};
    int64_t k = 0;
    for (; k + 1 < hw; k += 2) {
      s0 += LD(xp + k * 16);
      s1 += LD(xp + (k + 1) * 16);
    }
    if (k < hw) s0 += LD(xp + k * 16);
    ST(y + i * 16, (s0 + s1) / (float)hw);
  }
}

void rlx_nn_nchw_to_nchwc(int64_t n, int64_t c, int64_t hw, const float* x, float* y) {
  const int64_t cb = (c + 15) / 16;
  for (int64_t i = 0; i < n * cb; i++) {
    int64_t b = i % cb, img = i / cb;
    float* yb = y + i * hw * 16;
    for (int64_t l = 0; l < 16; l++) {
      int64_t ch = b * 16 + l;
      const float* xc = x + (img * c + ch) * hw;
      if (ch < c)
        for (int64_t k = 0; k < hw; k++) yb[k * 16 + l] = xc[k];
      else
        for (int64_t k = 0; k < hw; k++) yb[k * 16 + l] = 0.0f;
    }
  }
}

void rlx_nn_nchwc_to_nchw(int64_t n, int64_t c, int64_t hw, const float* x, float* y) {
  const int64_t cb = (c + 15) / 16;
  for (int64_t i = 0; i < n * cb; i++) {
    int64_t b = i % cb, img = i / cb;
    const float* xb = x + i * hw * 16;
    for (int64_t l = 0; l < 16 && b * 16 + l < c; l++) {
      float* yc = y + (img * c + b * 16 + l) * hw;
      for (int64_t k = 0; k < hw; k++) yc[k] = xb[k * 16 + l];
    }
  }
}
