/* Convolutions fused with a 3x3 depthwise neighbour (MobileNet's inverted residual blocks)
 * over NCHWc activations (nn_kernels.h), one variant (nn_vec.h): the intermediate tensor is
 * never written to memory. Both reuse the direct convolution's tiles (nn_variant.h) and the
 * depthwise row (pool_dw_nchwc.c). */
#include <string.h>

#include "nn_variant.h"

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
  const float *wd, *bd;   /* its packed weight [OCb, 3, 3, NB] and bias [OCb*NB] or NULL */
  float* y;               /* [N, OCb, q->oh, q->ow, NB] */
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
  const int64_t row_f = p->ow * NB, plane = 3 * row_f; /* ring: [OCb][3][ow][NB] */
  tile_t t = c->base;
  t.s_blk = plane;
  int64_t next = 0; /* rows of the first convolution below this are done or not needed */
  for (int64_t orow = r0; orow < r1; orow++) {
    const int64_t a = orow * q->sh - q->pt; /* the window's first row */
    const int64_t k0 = a < 0 ? -a : 0, k1 = a + 3 > p->oh ? p->oh - a : 3;
    if (next < a + k0) next = a + k0;
    for (; next < a + k1; next++) conv_row(c, t, n, next, 0, c->og_n, s, ring + next % 3 * row_f, NULL);
    float* yr = j->y + (n * c->ocb * q->oh + orow) * q->ow * NB;
    for (int64_t cb = 0; cb < c->ocb; cb++, yr += q->oh * q->ow * NB) {
      const float* xr[3];
      for (int64_t k = 0; k < 3; k++) xr[k] = k >= k0 && k < k1 ? ring + cb * plane + (a + k) % 3 * row_f : NULL;
      dw3_row_fn(q, xr, j->wd + cb * 9 * NB, j->bd ? j->bd + cb * NB : NULL, yr);
    }
  }
}

int KSYM(rlx_nn_conv2d_dw_nchwc)(const rlx_nn_conv_t* p, const rlx_nn_conv_t* q, const float* x, const float* w,
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
  size_t scratch = (j.fill_floats + (size_t)(j.c.ocb * 3 * p->ow * NB)) * sizeof(float);
  return rlx_nn_parallel(p->n * j.items_per_img, scratch, conv_dw_item, &j);
}

/* ------------------------------------------------------------------ depthwise + 1x1
 *
 * MobileNet's projection: a 3x3 depthwise convolution q whose only reader is a 1x1 stride-1
 * convolution p. A work item is a group of output rows of one image, at least one register
 * tile row of pixels: their depthwise rows for every channel block go to the
 * participant's scratch ([Cb][pixels][NB], tens of KB) and the 1x1 convolution reads them
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
  float* d = scratch; /* [Cb][len][NB] */
  for (int64_t r = r0; r < r1; r++) {
    const int64_t a = r * q->sh - q->pt; /* the window's first input row */
    for (int64_t cb = 0; cb < c->icb_n; cb++) {
      const float* xb = j->x + (n * c->icb_n + cb) * q->h * q->w * NB;
      const float* xr[3];
      for (int64_t k = 0; k < 3; k++) xr[k] = a + k >= 0 && a + k < q->h ? xb + (a + k) * q->w * NB : NULL;
      dw3_row_fn(q, xr, j->wd + cb * 9 * NB, j->bd ? j->bd + cb * NB : NULL, d + (cb * len + (r - r0) * q->ow) * NB);
    }
  }
  tile_t t = c->base;
  t.s_icb = len * NB;
  const int64_t nt = n_tiles(c->V, len);
  for (int64_t og = 0; og < c->og_n; og++) {
    t.w = c->w + og * c->wgroup;
    t.bias = c->bias ? c->bias + og * c->V * NB : NULL;
    for (int64_t k = 0; k < nt; k++) {
      const int64_t p0 = tile_at(k, nt, len), m = tile_at(k + 1, nt, len) - p0;
      const int64_t yo = (n * c->ycb + og * c->V) * c->out_plane + (r0 * q->ow + p0) * NB;
      t.src = d + p0 * NB;
      t.y = c->y + yo;
      t.res = c->res ? c->res + yo : NULL;
      conv_tiles[group_v(c, og) - 1][m - 1][0](&t);
    }
  }
}

int KSYM(rlx_nn_dwconv_conv_nchwc)(const rlx_nn_conv_t* q, const rlx_nn_conv_t* p, const float* x, const float* wd,
                                   const float* bd, const float* w, const float* bias, const float* res, float* y) {
  dc_job_t j;
  conv_setup(&j.c, p, NULL, w, bias, res, y);
  j.c.base.s_px = NB;
  j.q = q, j.x = x, j.wd = wd, j.bd = bd;
  j.rows = (max_rw(j.c.V) + q->ow - 1) / q->ow;
  /* Each item reads all of the 1x1 weights: where they are large (MobileNet's 7x7 layers,
   * 0.6-1.2 MB), one item per thread reads them once per thread instead of once per row. */
  if (j.c.og_n * j.c.wgroup * (int64_t)sizeof(float) > (256 << 10)) {
    const int64_t threads = rlx_nn_num_threads(), r = (q->oh + threads - 1) / threads;
    j.rows = r > j.rows ? r : j.rows;
  }
  j.groups = (q->oh + j.rows - 1) / j.rows;
  const size_t scratch = (size_t)(j.c.icb_n * j.rows * q->ow * NB) * sizeof(float);
  return rlx_nn_parallel(q->n * j.groups, scratch, dw_conv_item, &j);
}
