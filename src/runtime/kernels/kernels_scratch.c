/* Scratch bounds of the runtime kernels (kernels_scratch.h). Each bound mirrors the sizes
 * conv2d_nchwc.c asks rlx_nn_thread_buffer and rlx_nn_parallel for; a kernel change that
 * needs more makes the standalone pool refuse the call (the kernel returns -1), which the
 * MLF model tests catch. */
#include "kernels_scratch.h"

#include <string.h>

#include "nn_kernels.h"
#include "rlx/runtime.h"

static int64_t round64(int64_t b) { return (b + 63) / 64 * 64; }

static const DLTensor* tensor(const rlx_value_t* a, const int* codes, int n, int i) {
  if (i < 0 || i >= n || (codes[i] != RLX_ARG_DLTENSOR && codes[i] != RLX_ARG_NDARRAY)) return NULL;
  return a[i].v_handle;
}

static int64_t int_arg(const rlx_value_t* a, const int* codes, int n, int i) {
  return i >= 0 && i < n && codes[i] == RLX_ARG_INT ? a[i].v_int64 : -1;
}

/* Direct convolution: the padded image (weights-dominated layers) or, per participant, the
 * input rows one output row reads; 1x1 stride-1 layers need neither (bounded anyway). */
static int64_t direct_bytes(int64_t n, int64_t cbi, int64_t icb, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                            int64_t dh, int64_t dw, int64_t oh, int64_t ow, int threads) {
  if (sh < 1 || sw < 1 || dh < 1 || dw < 1) return -1;
  const int64_t wp = (ow - 1) * sw + (kw - 1) * dw + 1, hp = (oh - 1) * sh + (kh - 1) * dh + 1;
  const int64_t pad = round64(n * icb * hp * wp * cbi * 4);
  const int64_t rows = threads * round64(icb * kh * wp * cbi * 4);
  return pad > rows ? pad : rows;
}

/* Winograd F(m x m, 3x3): per participant, the transformed inputs and the GEMM results of a
 * chunk of tiles (rlx_nn_winograd_chunk). */
static int64_t winograd_bytes(const rlx_nn_tiles_t* tl, int64_t nb, int64_t m, int64_t v, int64_t icb, int64_t ocb,
                              int64_t oh, int64_t ow, int threads) {
  /* the staged form (one shared buffer, rlx_nn_thread_buffer) or the chunked one (per
   * participant); which runs depends on the L2 size of the machine that runs it */
  const int64_t np = (m + 2) * (m + 2), tiles = ((oh + m - 1) / m) * ((ow + m - 1) / m);
  const int64_t staged = round64(np * (icb + ocb) * tiles * nb * 4);
  int64_t tcm = rlx_nn_winograd_chunk(tl, v);
  if (tiles < tcm) tcm = tiles;
  const int64_t chunked = threads * round64((np * icb * tcm * nb + np * ocb * tcm * nb) * 4);
  return staged > chunked ? staged : chunked;
}

int64_t rlx_nn_scratch_bytes(const char* name, const rlx_value_t* a, const int* codes, int n, int threads,
                             const rlx_nn_tiles_t* tiles) {
  const DLTensor* x = tensor(a, codes, n, 0);
  const DLTensor* y = tensor(a, codes, n, n - 1);
  if (threads < 1) threads = 1;
  if (strcmp(name, "rlx.nn.conv2d_nchwc") == 0) { /* x, w, bias, [res,] sh, sw, pt, pl, dh, dw, ..., y */
    const DLTensor* w = tensor(a, codes, n, 1);
    const int k = n == 14 ? 4 : 3;
    if (!x || !w || !y || w->ndim != 6 || y->ndim != 5) return -1;
    return direct_bytes(y->shape[0], x->ndim == 5 ? x->shape[4] : 1, w->shape[1], w->shape[2], w->shape[3],
                        int_arg(a, codes, n, k), int_arg(a, codes, n, k + 1), int_arg(a, codes, n, k + 4),
                        int_arg(a, codes, n, k + 5), y->shape[2], y->shape[3], threads);
  }
  if (strcmp(name, "rlx.nn.conv2d_winograd_nchwc") == 0) { /* x, u, bias, [res,] pt, pl, ..., y */
    const DLTensor* u = tensor(a, codes, n, 1);
    if (!x || !u || !y || u->ndim != 5 || y->ndim != 5 || u->shape[3] < 1 || u->shape[4] < u->shape[3]) return -1;
    const int64_t nb = u->shape[3];
    return winograd_bytes(tiles, nb, u->shape[0] == 16 ? 2 : 4, u->shape[4] / nb, u->shape[2],
                          u->shape[1] * u->shape[4] / nb, y->shape[2], y->shape[3], threads);
  }
  if (strcmp(name, "rlx.nn.conv2d_concat_nchwc") == 0) { /* x, {w, bias, alg, sh, sw, pt, pl, dh, dw, ...} * k, y */
    if (!x || !y || x->ndim != 5 || y->ndim != 5 || n < 14 || (n - 2) % 12 != 0) return -1;
    int64_t most = 0; /* the parts run one after the other */
    for (int k = 1; k + 12 < n; k += 12) {
      const DLTensor* w = tensor(a, codes, n, k);
      if (!w) return -1;
      int64_t b;
      if (int_arg(a, codes, n, k + 2) == 1 && w->ndim == 5 && w->shape[3] >= 1 && w->shape[4] >= w->shape[3])
        b = winograd_bytes(tiles, w->shape[3], w->shape[0] == 16 ? 2 : 4, w->shape[4] / w->shape[3], w->shape[2],
                           w->shape[1] * w->shape[4] / w->shape[3], y->shape[2], y->shape[3], threads);
      else if (w->ndim == 6)
        b = direct_bytes(y->shape[0], x->shape[4], w->shape[1], w->shape[2], w->shape[3], int_arg(a, codes, n, k + 3),
                         int_arg(a, codes, n, k + 4), int_arg(a, codes, n, k + 7), int_arg(a, codes, n, k + 8),
                         y->shape[2], y->shape[3], threads);
      else
        return -1;
      if (b < 0) return -1;
      if (b > most) most = b;
    }
    return most;
  }
  if (strcmp(name, "rlx.nn.conv2d_dw_nchwc") == 0) { /* x, w, ..., y: per participant an input row and a ring */
    if (!x || !y || x->ndim != 5 || y->ndim != 5) return -1; /* of three rows of the intermediate */
    const int64_t nb = x->shape[4];
    const int64_t row = round64(x->shape[1] * x->shape[3] * nb * 4), ring = y->shape[1] * 3 * x->shape[3] * nb * 4;
    return threads * round64(row + ring);
  }
  if (strcmp(name, "rlx.nn.qconv2d_nchwc") == 0 || strcmp(name, "rlx.nn.qdwconv2d_nchwc") == 0) {
    /* x, w, bias, mult, sh, sw, pt, pl, dh, dw, ..., y: per participant the padded input rows
     * of one output row (qconv_nchwc.c) */
    const DLTensor* w = tensor(a, codes, n, 1);
    if (!x || !w || !y || x->ndim != 5 || y->ndim != 5 || n != 15) return -1;
    const bool dw = strcmp(name, "rlx.nn.qdwconv2d_nchwc") == 0;
    const int64_t kh = w->shape[dw ? 1 : 2], kw = w->shape[dw ? 2 : 3], sw = int_arg(a, codes, n, 5);
    const int64_t dwl = int_arg(a, codes, n, 9), pl = int_arg(a, codes, n, 7);
    if (sw < 1 || dwl < 1 || pl < 0) return -1;
    int64_t wp = (y->shape[3] - 1) * sw + (kw - 1) * dwl + 1;
    if (dw && wp < pl + x->shape[3]) wp = pl + x->shape[3];
    return threads * round64((dw ? 1 : x->shape[1]) * kh * wp * x->shape[4]);
  }
  return 0; /* depthwise, pools, means and layout transforms keep everything in registers */
}
