/* Packed-ABI wrappers of the NCHWc kernels and their static table (nn_kernels.h). Each
 * wrapper checks argument count, type codes, dtypes and shapes and reports a mismatch
 * through RLXAPISetLastError, so a malformed call is an error of the run, never a crash.
 * The channel block NB (8 or 16) is the blocked tensors' last dimension; it picks the
 * variant of the vector kernels (rlx_nn_kernels), and a block this CPU has no kernels for
 * (16 without AVX-512) is an error naming the missing feature.
 *
 * Calling conventions (DPS: the output comes last):
 *   rlx.nn.conv2d_nchwc   (x, w, bias, [res,] sh, sw, pt, pl, dh, dw, act, lo, hi, y)
 *   rlx.nn.dwconv2d_nchwc (x, w, bias, [res,] sh, sw, pt, pl, dh, dw, act, lo, hi, y)
 *   rlx.nn.conv2d_winograd_nchwc (x, u, bias, [res,] pt, pl, act, lo, hi, y)   3x3, stride 1
 *   rlx.nn.conv2d_concat_nchwc (x, {w, bias, alg, sh, sw, pt, pl, dh, dw, act, lo, hi} * k, y)
 *       k convolutions of x written side by side into y's channel blocks (concat in place);
 *       alg 0: direct (w packed 6-D), 1: Winograd (w 5-D, stride/dilation must be 1)
 *   rlx.nn.conv2d_dw_nchwc (x, w, bias, act, lo, hi, wd, bd, sh, sw, pt, pl, act, lo, hi, y)
 *       a 1x1 stride-1 convolution (w packed 6-D) and the 3x3 depthwise convolution of its
 *       result (wd [Cb, 3, 3, NB], stride sh = sw of 1 or 2), the intermediate never stored
 *   rlx.nn.dwconv_conv_nchwc (x, wd, bd, sh, sw, pt, pl, act, lo, hi, w, bias, [res,] act, lo, hi, y)
 *       a 3x3 depthwise convolution (wd [Cb, 3, 3, NB], stride 1 or 2) and the 1x1 stride-1
 *       convolution of its result (w packed 6-D), the intermediate never stored
 *   rlx.nn.max_pool2d_nchwc (x, kh, kw, sh, sw, pt, pl, dh, dw, y)
 *   rlx.nn.mean_hw_nchwc  (x, y)          y [N, Cb, 1, 1, NB]
 *   rlx.nn.nchw_to_nchwc  (x, y)          x [N, C, H, W] → y [N, ceil(C/NB), H, W, NB]
 *   rlx.nn.nchwc_to_nchw  (x, y)          the inverse; y's C says how many channels are real
 * x of conv2d is NCHWc (5-D) or plain NCHW (4-D, a network's first layer); w is packed
 * (6-D for conv2d: [OG, ICb, KH, KW, cbi, V*NB]; 4-D for depthwise: [Cb, KH, KW, NB]; 5-D
 * for Winograd: [16 or 36, OG, ICb, NB, V*NB], F(2x2) or F(4x4) by the first dim).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "nn_kernels.h"
#include "rlx/runtime.h"

static int fail(const char* who, const char* what) {
  char buf[256];
  snprintf(buf, sizeof(buf), "%s: %s", who, what);
  RLXAPISetLastError(buf);
  return -1;
}

static const DLTensor* tensor(rlx_value_t* a, int* codes, int i) {
  if (codes[i] != RLX_ARG_DLTENSOR && codes[i] != RLX_ARG_NDARRAY) return NULL;
  const DLTensor* t = a[i].v_handle;
  if (!t || t->dtype.code != kDLFloat || t->dtype.bits != 32 || t->dtype.lanes != 1) return NULL;
  return t;
}

static bool ints(rlx_value_t* a, int* codes, int i, int n, int64_t* out) {
  for (int k = 0; k < n; k++) {
    if (codes[i + k] != RLX_ARG_INT) return false;
    out[k] = a[i + k].v_int64;
  }
  return true;
}

static bool is_float(int code) { return code == RLX_ARG_FLOAT; }

/* An NCHWc tensor: 5-D with a last dimension of 8 or 16. */
static bool blocked(const DLTensor* t) { return t && t->ndim == 5 && (t->shape[4] == 8 || t->shape[4] == 16); }

/* The kernels for channel block nb on this CPU, or NULL with the error set. */
static const rlx_nn_kernels_t* kernels_for(const char* who, int64_t nb) {
  const char* why = NULL;
  const rlx_nn_kernels_t* k = rlx_nn_kernels(nb, &why);
  if (!k) fail(who, why ? why : "no kernels for this channel block");
  return k;
}

/* A packed weight's groups og and last dimension lanes = V*nb (V in 1..3) for ocb output
 * blocks: og = ceil(ocb / V) (the last group may be padded). */
static bool v_groups(int64_t og, int64_t lanes, int64_t nb, int64_t ocb) {
  return lanes % nb == 0 && lanes >= nb && lanes <= 3 * nb && ocb >= 1 && og == (ocb + lanes / nb - 1) / (lanes / nb);
}

/* Shared by conv2d and dwconv2d: reads the tensors and the geometry. */
static int conv_args(const char* who, bool depthwise, rlx_value_t* a, int* codes, int n, rlx_nn_conv_t* p,
                     const float** x, const float** w, const float** bias, const float** res, float** y) {
  if (n != 13 && n != 14) return fail(who, "expected 13 or 14 arguments");
  bool has_res = n == 14;
  const DLTensor* tx = tensor(a, codes, 0);
  const DLTensor* tw = tensor(a, codes, 1);
  const DLTensor* tb = tensor(a, codes, 2);
  const DLTensor* tr = has_res ? tensor(a, codes, 3) : NULL;
  const DLTensor* ty = tensor(a, codes, n - 1);
  int k = has_res ? 4 : 3;
  int64_t g[7];
  if (!tx || !tw || !tb || !ty || (has_res && !tr)) return fail(who, "tensors must be float32");
  if (!ints(a, codes, k, 7, g) || !is_float(codes[k + 7]) || !is_float(codes[k + 8]))
    return fail(who, "expected sh, sw, pt, pl, dh, dw, act as ints and lo, hi as floats");
  memset(p, 0, sizeof(*p));
  if (!blocked(ty)) return fail(who, "output must be NCHWc (NCHW8c or NCHW16c)");
  const int64_t nb = ty->shape[4];
  p->nb = nb;
  p->n = ty->shape[0];
  p->oc = ty->shape[1] * nb;
  p->oh = ty->shape[2];
  p->ow = ty->shape[3];
  if (tx->ndim == 5 && tx->shape[4] == nb) {
    p->cbi = nb;
    p->ic = tx->shape[1] * nb;
  } else if (tx->ndim == 4 && !depthwise) {
    p->cbi = 1;
    p->ic = tx->shape[1];
  } else {
    return fail(who, "input must be NCHWc with the output's block (or NCHW for conv2d)");
  }
  if (tx->shape[0] != p->n) return fail(who, "input and output batch differ");
  p->h = tx->shape[2];
  p->w = tx->shape[3];
  if (depthwise) {
    if (tw->ndim != 4 || tw->shape[3] != nb || tw->shape[0] * nb != p->ic || p->ic != p->oc)
      return fail(who, "weight must be [Cb, KH, KW, NB] with Cb the input's and output's channel blocks");
    p->kh = tw->shape[1];
    p->kw = tw->shape[2];
  } else {
    if (tw->ndim != 6 || tw->shape[4] != p->cbi || tw->shape[1] * p->cbi != p->ic)
      return fail(who, "weight must be packed [OG, ICb, KH, KW, cbi, V*NB] for this input");
    if (!v_groups(tw->shape[0], tw->shape[5], nb, p->oc / nb))
      return fail(who, "weight groups do not cover the output channels (OG = ceil(OCb / V), V 1..3)");
    p->v = tw->shape[5] / nb;
    p->kh = tw->shape[2];
    p->kw = tw->shape[3];
  }
  if (tb->ndim != 1 || tb->shape[0] != p->oc) return fail(who, "bias must be [OCb*NB]");
  if (tr && (tr->ndim != 5 || memcmp(tr->shape, ty->shape, 5 * sizeof(int64_t)) != 0))
    return fail(who, "residual must have the output's shape");
  p->sh = g[0], p->sw = g[1], p->pt = g[2], p->pl = g[3], p->dh = g[4], p->dw = g[5];
  p->act = (int)g[6];
  p->lo = (float)a[k + 7].v_float64;
  p->hi = (float)a[k + 8].v_float64;
  if (p->sh < 1 || p->sw < 1 || p->dh < 1 || p->dw < 1 || p->pt < 0 || p->pl < 0 || p->kh < 1 || p->kw < 1)
    return fail(who, "strides and dilations must be >= 1, paddings >= 0");
  if (p->act != RLX_NN_ACT_NONE && p->act != RLX_NN_ACT_CLIP) return fail(who, "unknown activation");
  /* every window start lies within the padded image: rows/columns past it read zeros */
  if ((p->oh - 1) * p->sh - p->pt >= p->h || (p->ow - 1) * p->sw - p->pl >= p->w)
    return fail(who, "output is larger than the padded input allows");
  *x = tx->data, *w = tw->data, *bias = tb->data, *res = tr ? tr->data : NULL, *y = ty->data;
  return 0;
}

int rlx_nn_packed_conv2d_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh) {
  const char* who = "rlx.nn.conv2d_nchwc";
  rlx_nn_conv_t p;
  const float *x, *w, *b, *r;
  float* y;
  if (conv_args(who, false, a, codes, n, &p, &x, &w, &b, &r, &y)) return -1;
  const rlx_nn_kernels_t* k = kernels_for(who, p.nb);
  if (!k) return -1;
  if (k->conv2d(&p, x, w, b, r, y)) return fail(who, "out of memory for the scratch rows");
  return 0;
}

/* A Winograd weight [16 or 36, OG, ICb, nb, V*nb] for p's input (p->ic) and ocb output
 * blocks: m (2 or 4), p->v and p->oc from it; false when it is not one. */
static bool winograd_weight(const DLTensor* tu, int64_t nb, int64_t ocb, rlx_nn_conv_t* p, int* m) {
  if (tu->ndim != 5 || (tu->shape[0] != 16 && tu->shape[0] != 36) || tu->shape[2] * nb != p->ic ||
      tu->shape[3] != nb || !v_groups(tu->shape[1], tu->shape[4], nb, ocb))
    return false;
  p->v = tu->shape[4] / nb, p->oc = ocb * nb, p->kh = p->kw = 3;
  *m = tu->shape[0] == 16 ? 2 : 4;
  return true;
}

int rlx_nn_packed_conv2d_winograd_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code,
                                         void* rh) {
  const char* who = "rlx.nn.conv2d_winograd_nchwc";
  if (n != 9 && n != 10) return fail(who, "expected 9 or 10 arguments");
  bool has_res = n == 10;
  int k = has_res ? 4 : 3;
  const DLTensor* tx = tensor(a, codes, 0);
  const DLTensor* tu = tensor(a, codes, 1);
  const DLTensor* tb = tensor(a, codes, 2);
  const DLTensor* tr = has_res ? tensor(a, codes, 3) : NULL;
  const DLTensor* ty = tensor(a, codes, n - 1);
  int64_t g[3];
  if (!tx || !tu || !tb || !ty || (has_res && !tr)) return fail(who, "tensors must be float32");
  if (!ints(a, codes, k, 3, g) || !is_float(codes[k + 3]) || !is_float(codes[k + 4]))
    return fail(who, "expected pt, pl, act as ints and lo, hi as floats");
  if (!blocked(tx) || !blocked(ty) || tx->shape[4] != ty->shape[4] || tx->shape[0] != ty->shape[0])
    return fail(who, "input and output must be NCHWc with the same block and batch");
  const int64_t nb = tx->shape[4];
  rlx_nn_conv_t p;
  memset(&p, 0, sizeof(p));
  p.n = tx->shape[0], p.ic = tx->shape[1] * nb, p.h = tx->shape[2], p.w = tx->shape[3];
  p.oh = ty->shape[2], p.ow = ty->shape[3];
  p.sh = p.sw = p.dh = p.dw = 1, p.nb = p.cbi = nb;
  int m = 2;
  if (!winograd_weight(tu, nb, ty->shape[1], &p, &m))
    return fail(who, "weight must be transformed [16 or 36, OG, ICb, NB, V*NB] for this input and output");
  if (tb->ndim != 1 || tb->shape[0] != p.oc) return fail(who, "bias must be [OCb*NB]");
  if (tr && (tr->ndim != 5 || memcmp(tr->shape, ty->shape, 5 * sizeof(int64_t)) != 0))
    return fail(who, "residual must have the output's shape");
  p.pt = g[0], p.pl = g[1], p.act = (int)g[2];
  p.lo = (float)a[k + 3].v_float64, p.hi = (float)a[k + 4].v_float64;
  if (p.pt < 0 || p.pl < 0 || (p.act != RLX_NN_ACT_NONE && p.act != RLX_NN_ACT_CLIP))
    return fail(who, "paddings must be >= 0 and the activation known");
  if (p.oh - 1 - p.pt >= p.h || p.ow - 1 - p.pl >= p.w) return fail(who, "output is larger than the padded input allows");
  const rlx_nn_kernels_t* kn = kernels_for(who, nb);
  if (!kn) return -1;
  if (kn->winograd(&p, m, tx->data, tu->data, tb->data, tr ? tr->data : NULL, ty->data))
    return fail(who, "out of memory for the transform buffers");
  return 0;
}

int rlx_nn_packed_conv2d_concat_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh) {
  const char* who = "rlx.nn.conv2d_concat_nchwc";
  if (n < 14 || (n - 2) % 12 != 0) return fail(who, "expected x, 12 arguments per convolution, y");
  const DLTensor* tx = tensor(a, codes, 0);
  const DLTensor* ty = tensor(a, codes, n - 1);
  if (!blocked(tx) || !blocked(ty) || tx->shape[4] != ty->shape[4] || tx->shape[0] != ty->shape[0])
    return fail(who, "x and y must be float32 NCHWc with the same block and batch");
  const int64_t nb = tx->shape[4];
  const rlx_nn_kernels_t* kn = kernels_for(who, nb);
  if (!kn) return -1;
  int64_t off = 0;
  for (int part = 0; part < (n - 2) / 12; part++) {
    int k = 1 + 12 * part;
    const DLTensor* tw = tensor(a, codes, k);
    const DLTensor* tb = tensor(a, codes, k + 1);
    int64_t g[8];
    if (!tw || !tb || !ints(a, codes, k + 2, 8, g) || !is_float(codes[k + 10]) || !is_float(codes[k + 11]))
      return fail(who, "each convolution is w, bias (float32), alg, sh, sw, pt, pl, dh, dw, act (ints), lo, hi");
    rlx_nn_conv_t p;
    memset(&p, 0, sizeof(p));
    p.n = tx->shape[0], p.ic = tx->shape[1] * nb, p.h = tx->shape[2], p.w = tx->shape[3], p.nb = p.cbi = nb;
    p.oh = ty->shape[2], p.ow = ty->shape[3];
    p.sh = g[1], p.sw = g[2], p.pt = g[3], p.pl = g[4], p.dh = g[5], p.dw = g[6], p.act = (int)g[7];
    p.lo = (float)a[k + 10].v_float64, p.hi = (float)a[k + 11].v_float64;
    bool wg = g[0] == 1;
    int m = 2;
    if (g[0] != 0 && !wg) return fail(who, "alg must be 0 (direct) or 1 (Winograd)");
    if (tb->ndim != 1 || tb->shape[0] % nb != 0) return fail(who, "each bias must be [OCb*NB] of its convolution");
    const int64_t ocb = tb->shape[0] / nb; /* the part's output blocks: its bias says */
    if (wg) {
      if (!winograd_weight(tw, nb, ocb, &p, &m) || p.sh != 1 || p.sw != 1 || p.dh != 1 || p.dw != 1)
        return fail(who, "a Winograd weight must be [16 or 36, OG, ICb, NB, V*NB] with stride and dilation 1");
    } else {
      if (tw->ndim != 6 || !v_groups(tw->shape[0], tw->shape[5], nb, ocb) || tw->shape[4] != nb ||
          tw->shape[1] * nb != p.ic)
        return fail(who, "a direct weight must be packed [OG, ICb, KH, KW, NB, V*NB] for this input");
      p.v = tw->shape[5] / nb, p.oc = ocb * nb, p.kh = tw->shape[2], p.kw = tw->shape[3];
    }
    if (p.sh < 1 || p.sw < 1 || p.dh < 1 || p.dw < 1 || p.pt < 0 || p.pl < 0 ||
        (p.act != RLX_NN_ACT_NONE && p.act != RLX_NN_ACT_CLIP))
      return fail(who, "strides and dilations must be >= 1, paddings >= 0, the activation known");
    if ((p.oh - 1) * p.sh - p.pt >= p.h || (p.ow - 1) * p.sw - p.pl >= p.w)
      return fail(who, "output is larger than the padded input allows");
    p.y_cb = ty->shape[1], p.y_off = off;
    off += p.oc / nb;
    if (off > ty->shape[1]) return fail(who, "the convolutions have more channels than y");
    int rc = wg ? kn->winograd(&p, m, tx->data, tw->data, tb->data, NULL, ty->data)
                : kn->conv2d(&p, tx->data, tw->data, tb->data, NULL, ty->data);
    if (rc) return fail(who, "out of memory for the scratch buffers");
  }
  if (off != ty->shape[1]) return fail(who, "the convolutions do not fill y's channels");
  return 0;
}

/* The checks both fused depthwise kernels make of the 3x3 depthwise part q and the other
 * convolution's activation act. */
static int dw3_fused_check(const char* who, const rlx_nn_conv_t* q, int act) {
  if (q->sh != q->sw || (q->sh != 1 && q->sh != 2) || q->pt < 0 || q->pl < 0 || q->w > 512 ||
      (act != RLX_NN_ACT_NONE && act != RLX_NN_ACT_CLIP) || (q->act != RLX_NN_ACT_NONE && q->act != RLX_NN_ACT_CLIP))
    return fail(who, "the depthwise stride must be 1 or 2 both ways, paddings >= 0, width <= 512, activations known");
  if ((q->oh - 1) * q->sh - q->pt >= q->h || (q->ow - 1) * q->sw - q->pl >= q->w || q->oh < 1 || q->ow < 1)
    return fail(who, "output is larger than the padded input allows");
  return 0;
}

/* A 1x1 weight packed [OG, ICb, 1, 1, nb, V*nb] for ic input channels and ocb output blocks:
 * p->v and p->oc from it. */
static bool weight_1x1(const DLTensor* tw, int64_t nb, int64_t ic, int64_t ocb, rlx_nn_conv_t* p) {
  if (tw->ndim != 6 || tw->shape[2] != 1 || tw->shape[3] != 1 || tw->shape[4] != nb || tw->shape[1] * nb != ic ||
      !v_groups(tw->shape[0], tw->shape[5], nb, ocb))
    return false;
  p->v = tw->shape[5] / nb, p->oc = ocb * nb;
  return true;
}

int rlx_nn_packed_conv2d_dw_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh) {
  const char* who = "rlx.nn.conv2d_dw_nchwc";
  if (n != 16) return fail(who, "expected 16 arguments");
  const DLTensor* tx = tensor(a, codes, 0);
  const DLTensor* tw = tensor(a, codes, 1);
  const DLTensor* tb = tensor(a, codes, 2);
  const DLTensor* td = tensor(a, codes, 6);
  const DLTensor* tbd = tensor(a, codes, 7);
  const DLTensor* ty = tensor(a, codes, 15);
  int64_t g[5];
  if (!tx || !tw || !tb || !td || !tbd || !ty) return fail(who, "tensors must be float32");
  if (!ints(a, codes, 3, 1, g) || !is_float(codes[4]) || !is_float(codes[5]) || !ints(a, codes, 8, 5, g) ||
      !is_float(codes[13]) || !is_float(codes[14]))
    return fail(who, "expected act, lo, hi, then sh, sw, pt, pl, act, lo, hi (ints and floats)");
  if (!blocked(tx) || !blocked(ty) || tx->shape[4] != ty->shape[4] || tx->shape[0] != ty->shape[0])
    return fail(who, "x and y must be NCHWc with the same block and batch");
  const int64_t nb = tx->shape[4];
  rlx_nn_conv_t p, q;
  memset(&p, 0, sizeof(p));
  p.n = tx->shape[0], p.ic = tx->shape[1] * nb, p.h = p.oh = tx->shape[2], p.w = p.ow = tx->shape[3];
  p.kh = p.kw = p.sh = p.sw = p.dh = p.dw = 1, p.nb = p.cbi = nb;
  if (!weight_1x1(tw, nb, p.ic, ty->shape[1], &p))
    return fail(who, "w must be a 1x1 weight packed [OG, ICb, 1, 1, NB, V*NB] for x and y");
  p.act = (int)a[3].v_int64, p.lo = (float)a[4].v_float64, p.hi = (float)a[5].v_float64;
  q = p;
  q.ic = q.oc = p.oc, q.h = p.oh, q.w = p.ow, q.oh = ty->shape[2], q.ow = ty->shape[3], q.kh = q.kw = 3;
  q.sh = g[0], q.sw = g[1], q.pt = g[2], q.pl = g[3], q.act = (int)g[4], q.v = 0;
  q.lo = (float)a[13].v_float64, q.hi = (float)a[14].v_float64;
  if (ty->shape[1] * nb != p.oc || td->ndim != 4 || td->shape[0] * nb != p.oc || td->shape[1] != 3 ||
      td->shape[2] != 3 || td->shape[3] != nb || tb->ndim != 1 || tb->shape[0] != p.oc || tbd->ndim != 1 ||
      tbd->shape[0] != p.oc)
    return fail(who, "y, wd [Cb, 3, 3, NB] and both biases [OCb*NB] must have w's output channels");
  if (dw3_fused_check(who, &q, p.act)) return -1;
  const rlx_nn_kernels_t* kn = kernels_for(who, nb);
  if (!kn) return -1;
  if (kn->conv2d_dw(&p, &q, tx->data, tw->data, tb->data, td->data, tbd->data, ty->data))
    return fail(who, "out of memory for the scratch rows");
  return 0;
}

int rlx_nn_packed_dwconv_conv_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh) {
  const char* who = "rlx.nn.dwconv_conv_nchwc";
  if (n != 16 && n != 17) return fail(who, "expected 16 or 17 arguments");
  const bool has_res = n == 17;
  const int k = has_res ? 13 : 12; /* the 1x1 convolution's act */
  const DLTensor* tx = tensor(a, codes, 0);
  const DLTensor* td = tensor(a, codes, 1);
  const DLTensor* tbd = tensor(a, codes, 2);
  const DLTensor* tw = tensor(a, codes, 10);
  const DLTensor* tb = tensor(a, codes, 11);
  const DLTensor* tr = has_res ? tensor(a, codes, 12) : NULL;
  const DLTensor* ty = tensor(a, codes, n - 1);
  int64_t g[5], pact;
  if (!tx || !td || !tbd || !tw || !tb || !ty || (has_res && !tr)) return fail(who, "tensors must be float32");
  if (!ints(a, codes, 3, 5, g) || !is_float(codes[8]) || !is_float(codes[9]) || !ints(a, codes, k, 1, &pact) ||
      !is_float(codes[k + 1]) || !is_float(codes[k + 2]))
    return fail(who, "expected sh, sw, pt, pl, act, lo, hi, then act, lo, hi (ints and floats)");
  if (!blocked(tx) || !blocked(ty) || tx->shape[4] != ty->shape[4] || tx->shape[0] != ty->shape[0])
    return fail(who, "x and y must be NCHWc with the same block and batch");
  const int64_t nb = tx->shape[4];
  rlx_nn_conv_t q, p;
  memset(&q, 0, sizeof(q));
  q.n = tx->shape[0], q.ic = q.oc = tx->shape[1] * nb, q.h = tx->shape[2], q.w = tx->shape[3];
  q.oh = ty->shape[2], q.ow = ty->shape[3], q.kh = q.kw = 3, q.dh = q.dw = 1, q.nb = q.cbi = nb;
  q.sh = g[0], q.sw = g[1], q.pt = g[2], q.pl = g[3], q.act = (int)g[4];
  q.lo = (float)a[8].v_float64, q.hi = (float)a[9].v_float64;
  if (td->ndim != 4 || td->shape[0] * nb != q.ic || td->shape[1] != 3 || td->shape[2] != 3 || td->shape[3] != nb ||
      tbd->ndim != 1 || tbd->shape[0] != q.ic)
    return fail(who, "wd must be [Cb, 3, 3, NB] and bd [Cb*NB] for x");
  if (dw3_fused_check(who, &q, (int)pact)) return -1;
  memset(&p, 0, sizeof(p));
  p.n = q.n, p.ic = q.oc, p.h = p.oh = q.oh, p.w = p.ow = q.ow, p.kh = p.kw = p.sh = p.sw = p.dh = p.dw = 1;
  p.nb = p.cbi = nb;
  if (!weight_1x1(tw, nb, p.ic, ty->shape[1], &p))
    return fail(who, "w must be a 1x1 weight packed [OG, ICb, 1, 1, NB, V*NB] for the depthwise output and y");
  p.act = (int)pact, p.lo = (float)a[k + 1].v_float64, p.hi = (float)a[k + 2].v_float64;
  if (ty->shape[1] * nb != p.oc || tb->ndim != 1 || tb->shape[0] != p.oc)
    return fail(who, "y and bias [OCb*NB] must have w's output channels");
  if (tr && (tr->ndim != 5 || memcmp(tr->shape, ty->shape, 5 * sizeof(int64_t)) != 0))
    return fail(who, "residual must have the output's shape");
  const rlx_nn_kernels_t* kn = kernels_for(who, nb);
  if (!kn) return -1;
  if (kn->dwconv_conv(&q, &p, tx->data, td->data, tbd->data, tw->data, tb->data, tr ? tr->data : NULL, ty->data))
    return fail(who, "out of memory for the scratch rows");
  return 0;
}

int rlx_nn_packed_dwconv2d_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh) {
  const char* who = "rlx.nn.dwconv2d_nchwc";
  rlx_nn_conv_t p;
  const float *x, *w, *b, *r;
  float* y;
  if (conv_args(who, true, a, codes, n, &p, &x, &w, &b, &r, &y)) return -1;
  const rlx_nn_kernels_t* k = kernels_for(who, p.nb);
  if (!k) return -1;
  k->dwconv2d(&p, x, w, b, r, y);
  return 0;
}

int rlx_nn_packed_max_pool2d_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh) {
  const char* who = "rlx.nn.max_pool2d_nchwc";
  if (n != 10) return fail(who, "expected 10 arguments");
  const DLTensor* tx = tensor(a, codes, 0);
  const DLTensor* ty = tensor(a, codes, 9);
  int64_t g[8];
  if (!blocked(tx) || !blocked(ty) || tx->shape[4] != ty->shape[4] || tx->shape[0] != ty->shape[0] ||
      tx->shape[1] != ty->shape[1])
    return fail(who, "x and y must be float32 NCHWc with the same block, batch and channel blocks");
  if (!ints(a, codes, 1, 8, g)) return fail(who, "expected kh, kw, sh, sw, pt, pl, dh, dw as ints");
  const int64_t nb = tx->shape[4];
  rlx_nn_conv_t p;
  memset(&p, 0, sizeof(p));
  p.n = tx->shape[0], p.ic = tx->shape[1] * nb, p.h = tx->shape[2], p.w = tx->shape[3], p.nb = p.cbi = nb;
  p.oh = ty->shape[2], p.ow = ty->shape[3];
  p.kh = g[0], p.kw = g[1], p.sh = g[2], p.sw = g[3], p.pt = g[4], p.pl = g[5], p.dh = g[6], p.dw = g[7];
  if (p.kh < 1 || p.kw < 1 || p.sh < 1 || p.sw < 1 || p.dh < 1 || p.dw < 1 || p.pt < 0 || p.pl < 0)
    return fail(who, "window, strides and dilations must be >= 1, paddings >= 0");
  const rlx_nn_kernels_t* k = kernels_for(who, nb);
  if (!k) return -1;
  k->max_pool2d(&p, tx->data, ty->data);
  return 0;
}

int rlx_nn_packed_mean_hw_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh) {
  const char* who = "rlx.nn.mean_hw_nchwc";
  if (n != 2) return fail(who, "expected 2 arguments");
  const DLTensor* tx = tensor(a, codes, 0);
  const DLTensor* ty = tensor(a, codes, 1);
  if (!blocked(tx) || !blocked(ty) || tx->shape[4] != ty->shape[4] || tx->shape[0] != ty->shape[0] ||
      tx->shape[1] != ty->shape[1] || ty->shape[2] != 1 || ty->shape[3] != 1)
    return fail(who, "x must be float32 NCHWc and y [N, Cb, 1, 1, NB]");
  const rlx_nn_kernels_t* k = kernels_for(who, tx->shape[4]);
  if (!k) return -1;
  k->global_mean(tx->shape[0], tx->shape[1], tx->shape[2] * tx->shape[3], tx->data, ty->data);
  return 0;
}

/* x [N, C, H, W] and y [N, ceil(C/NB), H, W, NB]; *c gets C, *hw gets H*W. */
static int layout_pair(const char* who, const DLTensor* plain, const DLTensor* blk, int64_t* c, int64_t* hw) {
  if (!plain || !blocked(blk) || plain->ndim != 4 || plain->shape[0] != blk->shape[0] ||
      (plain->shape[1] + blk->shape[4] - 1) / blk->shape[4] != blk->shape[1] || plain->shape[2] != blk->shape[2] ||
      plain->shape[3] != blk->shape[3])
    return fail(who, "expected float32 [N, C, H, W] and [N, ceil(C/NB), H, W, NB] (NB 8 or 16)");
  *c = plain->shape[1];
  *hw = plain->shape[2] * plain->shape[3];
  return 0;
}

int rlx_nn_packed_nchw_to_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh) {
  const char* who = "rlx.nn.nchw_to_nchwc";
  if (n != 2) return fail(who, "expected 2 arguments");
  const DLTensor* tx = tensor(a, codes, 0);
  const DLTensor* ty = tensor(a, codes, 1);
  int64_t c, hw;
  if (layout_pair(who, tx, ty, &c, &hw)) return -1;
  rlx_nn_nchw_to_nchwc(tx->shape[0], c, hw, ty->shape[4], tx->data, ty->data);
  return 0;
}

int rlx_nn_packed_nchwc_to_nchw(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh) {
  const char* who = "rlx.nn.nchwc_to_nchw";
  if (n != 2) return fail(who, "expected 2 arguments");
  const DLTensor* tx = tensor(a, codes, 0);
  const DLTensor* ty = tensor(a, codes, 1);
  int64_t c, hw;
  if (layout_pair(who, ty, tx, &c, &hw)) return -1;
  rlx_nn_nchwc_to_nchw(ty->shape[0], c, hw, tx->shape[4], tx->data, ty->data);
  return 0;
}

static const rlx_kernel_info_t table[] = {
    {"rlx.nn.conv2d_nchwc", "rlx_nn_packed_conv2d_nchwc", "kernels_packed.c", rlx_nn_packed_conv2d_nchwc},
    {"rlx.nn.conv2d_winograd_nchwc", "rlx_nn_packed_conv2d_winograd_nchwc", "kernels_packed.c",
     rlx_nn_packed_conv2d_winograd_nchwc},
    {"rlx.nn.conv2d_concat_nchwc", "rlx_nn_packed_conv2d_concat_nchwc", "kernels_packed.c",
     rlx_nn_packed_conv2d_concat_nchwc},
    {"rlx.nn.conv2d_dw_nchwc", "rlx_nn_packed_conv2d_dw_nchwc", "kernels_packed.c", rlx_nn_packed_conv2d_dw_nchwc},
    {"rlx.nn.dwconv2d_nchwc", "rlx_nn_packed_dwconv2d_nchwc", "kernels_packed.c", rlx_nn_packed_dwconv2d_nchwc},
    {"rlx.nn.dwconv_conv_nchwc", "rlx_nn_packed_dwconv_conv_nchwc", "kernels_packed.c",
     rlx_nn_packed_dwconv_conv_nchwc},
    {"rlx.nn.max_pool2d_nchwc", "rlx_nn_packed_max_pool2d_nchwc", "kernels_packed.c", rlx_nn_packed_max_pool2d_nchwc},
    {"rlx.nn.mean_hw_nchwc", "rlx_nn_packed_mean_hw_nchwc", "kernels_packed.c", rlx_nn_packed_mean_hw_nchwc},
    {"rlx.nn.nchw_to_nchwc", "rlx_nn_packed_nchw_to_nchwc", "kernels_packed.c", rlx_nn_packed_nchw_to_nchwc},
    {"rlx.nn.nchwc_to_nchw", "rlx_nn_packed_nchwc_to_nchw", "kernels_packed.c", rlx_nn_packed_nchwc_to_nchw},
#define Q(name) {"rlx.nn." #name, "rlx_nn_packed_" #name, "kernels_packed_int8.c", rlx_nn_packed_##name}
    Q(quantize_nchwc), Q(qnchwc_to_nchw), Q(qconv2d_nchwc), Q(qdwconv2d_nchwc), Q(qmax_pool2d_nchwc), Q(qmean_hw_nchwc),
    Q(qadd_nchwc), Q(qlut_nchwc), Q(qconcat_nchwc),
#undef Q
};

rlx_packed_fn_t rlx_kernel_lookup(const char* name) {
  for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
    if (strcmp(table[i].name, name) == 0) return table[i].fn;
  return NULL;
}

const rlx_kernel_info_t* rlx_kernel_table(int* out_n) {
  *out_n = (int)(sizeof(table) / sizeof(table[0]));
  return table;
}

/* ------------------------------------------------------------------ FLOP counts */
/* A convolution part's FLOPs: w its packed weight, oc its output channels (whole blocks: the
 * weight's last group may be padded), y's pixels. */
static double conv_part_flops(const DLTensor* w, double oc, const DLTensor* y) {
  const double pix = (double)(y->shape[0] * y->shape[2] * y->shape[3]);
  if (w->ndim == 6) /* direct: [OG, ICb or IC, KH, KW, cbi, V*NB] */
    return 2.0 * pix * oc * (double)(w->shape[1] * w->shape[4]) * (double)(w->shape[2] * w->shape[3]);
  if (w->ndim == 5) /* Winograd: [P, OG, ICb, NB, V*NB], as the direct 3x3 */
    return 2.0 * pix * oc * (double)(w->shape[2] * w->shape[3]) * 9.0;
  return -1;
}

double rlx_nn_kernel_flops(const char* name, const DLTensor* const* t, int nt) {
  if (!name || nt < 3) return -1;
  const DLTensor* y = t[nt - 1];
  if (y->ndim != 5) return -1;
  const double y_oc = (double)(y->shape[1] * y->shape[4]);
  if (strcmp(name, "rlx.nn.conv2d_nchwc") == 0 || strcmp(name, "rlx.nn.conv2d_winograd_nchwc") == 0)
    return conv_part_flops(t[1], y_oc, y);
  if (strcmp(name, "rlx.nn.dwconv2d_nchwc") == 0 && t[1]->ndim == 4)
    return 2.0 * (double)(y->shape[0] * y->shape[2] * y->shape[3]) * (double)(t[1]->shape[0] * t[1]->shape[3]) *
           (double)(t[1]->shape[1] * t[1]->shape[2]);
  if (strcmp(name, "rlx.nn.conv2d_dw_nchwc") == 0 && nt == 6 && t[3]->ndim == 4) { /* x, w, bias, wd, bd, y */
    const double conv = conv_part_flops(t[1], y_oc, t[0]); /* the 1x1 convolution over x's pixels */
    return conv < 0 ? -1 : conv + 2.0 * (double)(y->shape[0] * y->shape[2] * y->shape[3]) * (double)(y->shape[1] * y->shape[4]) * 9.0;
  }
  if (strcmp(name, "rlx.nn.dwconv_conv_nchwc") == 0 && nt >= 6 && t[1]->ndim == 4) { /* x, wd, bd, w, bias, [res,] y */
    const double conv = conv_part_flops(t[3], y_oc, y);
    return conv < 0 ? -1 : conv + 2.0 * (double)(y->shape[0] * y->shape[2] * y->shape[3]) * (double)(t[1]->shape[0] * t[1]->shape[3]) * 9.0;
  }
  if (strcmp(name, "rlx.nn.conv2d_concat_nchwc") == 0) { /* x, (w, bias) per part, y */
    double f = 0;
    for (int i = 1; i + 1 < nt; i += 2) { /* each part's output channels: its bias [OCb*NB] */
      double part = t[i + 1]->ndim == 1 ? conv_part_flops(t[i], (double)t[i + 1]->shape[0], y) : -1;
      if (part < 0) return -1;
      f += part;
    }
    return f;
  }
  return -1;
}
