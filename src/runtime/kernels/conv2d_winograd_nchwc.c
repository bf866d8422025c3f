/* Winograd convolutions over NCHWc activations (nn_kernels.h), one variant (nn_vec.h). The
 * transforms work one vector of a channel block at a time; the batched GEMMs run on the
 * direct convolution's register tiles (nn_variant.h). Weight transforms and buffer sizes are
 * plain C (kernels_pack.c). */
#include <string.h>

#include "nn_variant.h"


/* ------------------------------------------------------------------ Winograd
 *
 * F(m x m, 3x3) for m = 2 (alpha = 4, 16 positions) and m = 4 (alpha = 6, 36 positions).
 * Per work item, a chunk of up to wg_chunk(V) output tiles (m x m pixels each, row-major over
 * the tile grid) of one image: (1) the input transform V = B^T d B of every tile's
 * alpha x alpha patch, for all input channel blocks, into a per-thread buffer
 * [P][ICb][chunk][NB]; (2) for each of the P positions a GEMM over input channels on the
 * register tiles of the direct kernel (the tiles are the "pixels": stride NB, a 1x1 window),
 * into [P][OCb][chunk][NB]; (3) the output transform Y = A^T M A with bias, residual and
 * clip, stored to the pixels inside the output.
 * F(2x2): B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], G = [1 0 0; .5 .5 .5; .5 -.5 .5;
 *   0 0 1], A^T = [1 1 1 0; 0 1 -1 -1].
 * F(4x4) (points 0, +-1, +-2, inf): B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0;
 *   0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1], G = [1/4 0 0; -1/6 -1/6 -1/6;
 *   -1/6 1/6 -1/6; 1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1], A^T = [1 1 1 1 1 0;
 *   0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]. */

/* In place on 4 or 6 vectors: x = B^T x. */
static inline __attribute__((always_inline)) void wg_bt(const int m, vf* d, int s) {
  if (m == 2) {
    vf d0 = d[0], d1 = d[s], d2 = d[2 * s], d3 = d[3 * s];
    d[0] = d0 - d2, d[s] = d1 + d2, d[2 * s] = d2 - d1, d[3 * s] = d1 - d3;
    return;
  }
  vf d0 = d[0], d1 = d[s], d2 = d[2 * s], d3 = d[3 * s], d4 = d[4 * s], d5 = d[5 * s];
  d[0] = 4.0f * d0 - 5.0f * d2 + d4;
  d[s] = d3 + d4 - 4.0f * (d1 + d2);
  d[2 * s] = 4.0f * (d1 - d2) + d4 - d3;
  d[3 * s] = 2.0f * (d3 - d1) + d4 - d2;
  d[4 * s] = 2.0f * (d1 - d3) + d4 - d2;
  d[5 * s] = 4.0f * d1 - 5.0f * d3 + d5;
}

/* V = B^T d B for one tile and one vector of a channel block: d from x (zero outside the
 * image; pixels NB floats apart). */
static inline __attribute__((always_inline)) void wg_input(const rlx_nn_conv_t* p, const int m, const float* xb,
                                                           int64_t r0, int64_t c0, float* vb, int64_t xi_stride) {
  const int a = m + 2;
  vf d[6 * 6];
  for (int i = 0; i < a; i++) {
    int64_t r = r0 + i;
    for (int j = 0; j < a; j++) {
      int64_t c = c0 + j;
      d[i * a + j] = (r >= 0 && r < p->h && c >= 0 && c < p->w) ? LD(xb + (r * p->w + c) * NB) : (vf){0};
    }
  }
  for (int j = 0; j < a; j++) wg_bt(m, d + j, a); /* columns */
  for (int i = 0; i < a; i++) wg_bt(m, d + i * a, 1); /* rows */
  for (int k = 0; k < a * a; k++) ST(vb + k * xi_stride, d[k]);
}

/* o = A^T x for one column of alpha vectors (stride s), m outputs. */
static inline __attribute__((always_inline)) void wg_at(const int m, const vf* x, int s, vf* o) {
  if (m == 2) {
    o[0] = x[0] + x[s] + x[2 * s];
    o[1] = x[s] - x[2 * s] - x[3 * s];
    return;
  }
  vf x1 = x[s], x2 = x[2 * s], x3 = x[3 * s], x4 = x[4 * s];
  vf p12 = x1 + x2, m12 = x1 - x2, p34 = x3 + x4, m34 = x3 - x4;
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
 * vbuf[xi][icb][t][NB] (tcm tiles per row of the buffer, tile t0 at index 0). */
static inline __attribute__((always_inline)) void wg_inputs(const wg_job_t* c, int64_t n, int64_t icb, int64_t t0,
                                                            int64_t tc, int64_t tcm, float* vbuf, const int m) {
  const rlx_nn_conv_t* p = c->p;
  for (int64_t t = 0; t < tc; t++) {
    int64_t ty = (t0 + t) / c->tw, tx = (t0 + t) % c->tw;
    for (int s = 0; s < KNBV; s++)
      wg_input(p, m, c->x + n * c->in_img + icb * p->h * p->w * NB + s * VL, ty * m - p->pt, tx * m - p->pl,
               vbuf + (icb * tcm + t) * NB + s * VL, c->icb_n * tcm * NB);
  }
}

/* (2) The GEMM of position xi, channel group og, over tiles 0 .. tc-1 of the buffers:
 * mbuf[xi][ocb][t][NB] from vbuf[xi][icb][t][NB], one register tile row at a time. */
static void wg_gemm(const wg_job_t* c, int64_t xi, int64_t og, int64_t tc, int64_t tcm, const float* vbuf,
                    float* mbuf, const float* pf_w) {
  tile_t tt;
  memset(&tt, 0, sizeof(tt));
  tt.n_icb = c->icb_n, tt.n_kh = 1, tt.n_kw = 1, tt.cbi = NB, tt.w_step = c->V * NB;
  const int vg = (int)(og == c->og_n - 1 ? c->ocb - og * c->V : c->V); /* a narrower last group */
  tt.s_icb = tcm * NB, tt.s_px = NB, tt.s_blk = tcm * NB;
  tt.w = c->u + xi * c->u_xi + og * c->u_og;
  const int64_t calls = n_tiles(c->V, tc);
  /* pf_w: weights of the item this thread most likely runs next, prefetched over the calls */
  const char* pf = (const char*)pf_w;
  if (pf) tt.pf_per = pf_rate(c->u_og * 4 / 64, calls, c->icb_n);
  for (int64_t call = 0; call < calls; call++) {
    const int64_t t = tile_at(call, calls, tc), k = tile_at(call + 1, calls, tc) - t;
    tt.src = vbuf + xi * c->icb_n * tcm * NB + t * NB;
    tt.y = mbuf + (xi * c->ocb + og * c->V) * tcm * NB + t * NB;
    tt.pf = pf;
    if (pf) pf += tt.pf_per * c->icb_n * 64;
    conv_tiles[vg - 1][k - 1][0](&tt);
  }
}

/* (3) Output transform + epilogue of output block ob for tiles t0 .. t0+tc-1, one vector of
 * the block at a time. */
static inline __attribute__((always_inline)) void wg_outputs(const wg_job_t* c, int64_t n, int64_t ob, int64_t t0,
                                                             int64_t tc, int64_t tcm, const float* mbuf, const int m) {
  const rlx_nn_conv_t* p = c->p;
  const int a = m + 2, np = a * a;
  const int64_t ocb = c->ocb;
  for (int s = 0; s < KNBV; s++) {
    const vf b = c->bias ? LD(c->bias + ob * NB + s * VL) : (vf){0};
    for (int64_t t = 0; t < tc; t++) {
      vf mm[36], r[4 * 6], o[4];
      for (int k = 0; k < np; k++) mm[k] = LD(mbuf + ((k * ocb + ob) * tcm + t) * NB + s * VL);
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
          int64_t off = (n * c->ycb + ob) * c->out_plane + (oh * p->ow + ow) * NB + s * VL;
          vf v = o[j] + b;
          if (c->res) v += LD(c->res + off);
          if (p->act == RLX_NN_ACT_CLIP) v = vclip(v, p->lo, p->hi);
          ST(c->y + off, v);
        }
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

int KSYM(rlx_nn_conv2d_winograd_nchwc)(const rlx_nn_conv_t* p, int m, const float* x, const float* u,
                                       const float* bias, const float* res, float* y) {
  wg_job_t c;
  c.p = p, c.x = x, c.u = u, c.bias = bias, c.res = res;
  c.m = m, c.a = m + 2, c.np = c.a * c.a;
  c.V = p->v, c.ocb = (p->oc + NB - 1) / NB, c.og_n = (c.ocb + c.V - 1) / c.V, c.icb_n = (p->ic + NB - 1) / NB;
  c.ycb = p->y_cb ? p->y_cb : c.ocb;
  c.y = y + p->y_off * p->oh * p->ow * NB;
  c.tw = (p->ow + m - 1) / m, c.n_tiles = (p->oh + m - 1) / m * c.tw;
  /* tiles per item: at most the variant's chunk (one register tile row), and as many
   * items per thread as each other thread gets (16 tiles on two threads: two items of 8,
   * not 14 + 2) */
  const int64_t threads = rlx_nn_num_threads(), most = wg_chunk(c.V);
  int64_t chunks = (c.n_tiles + most - 1) / most;
  chunks = (chunks + threads - 1) / threads * threads;
  if (chunks > c.n_tiles) chunks = c.n_tiles;
  c.tcm = (c.n_tiles + chunks - 1) / chunks;
  c.chunks = (c.n_tiles + c.tcm - 1) / c.tcm;
  c.in_img = c.icb_n * p->h * p->w * NB, c.out_plane = p->oh * p->ow * NB;
  c.u_xi = c.og_n * c.icb_n * NB * c.V * NB, c.u_og = c.icb_n * NB * c.V * NB;
  const int64_t staged = rlx_nn_winograd_staged_bytes(m, c.icb_n, c.ocb, p->oh, p->ow, (int)threads, NB, most);
  if (staged) {
    c.sbuf = rlx_nn_thread_buffer((size_t)staged);
    if (!c.sbuf) return -1;
    c.vsz = c.np * c.icb_n * c.n_tiles * NB;
    for (c.sn = 0; c.sn < p->n; c.sn++)
      if (rlx_nn_parallel(c.icb_n, 0, m == 2 ? wgs_in2 : wgs_in4, &c) ||
          rlx_nn_parallel(c.np * c.og_n, 0, wgs_gemm, &c) || rlx_nn_parallel(c.ocb, 0, m == 2 ? wgs_out2 : wgs_out4, &c))
        return -1;
    return 0;
  }
  c.vsz = c.np * c.icb_n * c.tcm * NB;
  size_t scratch = (size_t)(c.vsz + c.np * c.ocb * c.tcm * NB) * sizeof(float);
  return rlx_nn_parallel(p->n * c.chunks, scratch, m == 2 ? wg_item2 : wg_item4, &c);
}
