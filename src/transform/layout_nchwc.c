/* Pass layout_nchwc: convolutional networks onto the NCHWc kernels.
 *
 * Requires: a well-formed module before legalize_ops (high-level ops still present).
 * Produces: the same module where, inside dataflow blocks, every float32 R.nn.conv2d with
 * static shapes, NCHW/OIHW layouts, a constant weight and groups 1 or depthwise (groups ==
 * in == out channels) becomes `R.call_dps_packed("rlx.nn.conv2d_nchwc" | "rlx.nn.dwconv2d_nchwc",
 * ...)` over activations in NCHWc ([N, C/NB, H, W, NB], see
 * src/runtime/kernels/nn_kernels.h), with its weight packed at compile time (a new
 * constant) and its epilogue folded into the call: a per-channel bias add, one residual
 * add, and relu / maximum / minimum with scalar bounds, when the conv's result has no other
 * use. Activations stay blocked through the ops that have blocked forms — max_pool2d
 * (rlx.nn.max_pool2d_nchwc), the mean over H and W with keepdims (rlx.nn.mean_hw_nchwc),
 * concat over channels when every input has a multiple of NB channels, and add / subtract /
 * multiply / relu / maximum / minimum between blocked tensors, per-channel constants and
 * scalars (still R ops on 5-D tensors: legalize_ops and fuse_ops handle them). A var that
 * something else reads is converted back where it is first needed, under its own name
 * (`v = R.call_dps_packed("rlx.nn.nchwc_to_nchw", (v_blocked,), ...)`), and every
 * non-dataflow var of the block is converted at the block's end, so the function's
 * signature and everything outside the dataflow block are unchanged. The network's input
 * is converted once (the first convolution reads a plain NCHW input of at most 8 channels
 * directly).
 * Ops it cannot convert are left as they are: the pass never changes results, only
 * layouts (padded channels carry finite values and meet zero weights).
 *
 * Machine-specific choices come from the context's target (rlx_ctx_target_of): the channel
 * block NB (16 for AVX-512, else 8: rlx_target_nchwc_block), V, the output blocks each
 * packed weight group holds, and the Winograd chunk from the register tiles of the target's
 * kernel level (rlx_nn_tiles), and the cache thresholds from its L2 size. The output is
 * the same on every machine for a given target.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/ir.h"
#include "../relax/op_nn_internal.h"
#include "../runtime/kernels/nn_kernels.h"
#include "pass.h"
#include "pass_util.h"

/* A convolution whose call is not emitted yet, so that later ops can join its epilogue. */
typedef struct pend pend_t;
struct pend {
  bool depthwise, winograd;
  pend_t* pre;         /* depthwise only: a 1x1 convolution computed inside the same call, or NULL */
  pend_t* dwpre;       /* 1x1 only: the 3x3 depthwise convolution of its input, computed inside the same call */
  rlx_relax_expr_t* x; /* blocked (or plain, cbi 1) input; with pre, pre's input */
  rlx_relax_expr_t* w; /* packed weight constant */
  float* bias;         /* ocb*NB */
  rlx_relax_expr_t* res;
  float lo, hi; /* clip; -inf / +inf: none */
  int64_t g[6]; /* sh, sw, pt, pl, dh, dw */
  int64_t n, oc, oh, ow;
};

/* What the pass knows of a var of the original program. */
typedef struct {
  rlx_relax_expr_t* blk; /* its NCHWc value, or NULL */
  pend_t* pend;          /* or a convolution still open to an epilogue */
  int64_t c;             /* real channels */
  bool plain_missing;    /* the original binding was not emitted */
} vinfo_t;

typedef struct {
  rlx_ctx_t* ctx;
  rlx_bb_t* bb;
  rlx_ptrmap_t info; /* var → vinfo_t* */
  rlx_ptrmap_t uses; /* var → use count (intptr) */
  int64_t nb;        /* the target's channel block */
  const rlx_nn_tiles_t* tiles; /* the register tiles of the target's kernel level */
  int64_t l2;        /* the target's L2 bytes per core */
} lt_t;

static vinfo_t* info_of(lt_t* z, const rlx_relax_expr_t* v) {
  return rlx_relax_is_var(v) ? rlx_ptrmap_get(&z->info, v) : NULL;
}

static vinfo_t* new_info(lt_t* z, rlx_relax_var_t* v, int64_t c) {
  vinfo_t* i = RLX_NEW(z->ctx, vinfo_t);
  memset(i, 0, sizeof(*i));
  i->c = c;
  i->plain_missing = true;
  rlx_ptrmap_put(&z->info, v, i);
  return i;
}

static int64_t uses(lt_t* z, const rlx_relax_expr_t* v) { return (int64_t)(intptr_t)rlx_ptrmap_get(&z->uses, v); }

static void count_use(const rlx_relax_expr_t* e, void* user) {
  lt_t* z = user;
  if (rlx_relax_is_var(e)) rlx_ptrmap_put(&z->uses, e, (void*)(intptr_t)(uses(z, e) + 1));
}

/* Static float32 tensor shape of e (ndim ≤ 6), or false. */
static bool static_f32(const rlx_relax_expr_t* e, int* ndim, int64_t* dims) {
  const rlx_sinfo_t* s = e->sinfo;
  if (!s || s->kind != RLX_SINFO_TENSOR) return false;
  const rlx_sinfo_tensor_t* t = (const rlx_sinfo_tensor_t*)s;
  if (!t->shape || t->ndim < 0 || t->ndim > 6 || !rlx_dtype_eq(t->dtype, rlx_dt_float32())) return false;
  for (int d = 0; d < t->ndim; d++)
    if (!rlx_expr_is_const_int(t->shape[d], &dims[d])) return false;
  *ndim = t->ndim;
  return true;
}

static rlx_relax_constant_t* as_const(const rlx_relax_expr_t* e) {
  return e->kind == RLX_RELAX_CONSTANT ? (rlx_relax_constant_t*)e : NULL;
}

/* A float32 scalar constant (any rank with one element). */
static bool scalar_const(const rlx_relax_expr_t* e, float* out) {
  rlx_relax_constant_t* c = as_const(e);
  if (!c || !rlx_dtype_eq(c->dtype, rlx_dt_float32()) || c->nbytes != 4) return false;
  memcpy(out, c->data, 4);
  return true;
}

/* A float32 constant of c per-channel values for an NCHW tensor: shape (c,1,1) or (1,c,1,1). */
static const float* channel_const(const rlx_relax_expr_t* e, int64_t c) {
  rlx_relax_constant_t* k = as_const(e);
  if (!k || !rlx_dtype_eq(k->dtype, rlx_dt_float32()) || (int64_t)k->nbytes != 4 * c) return NULL;
  if (k->ndim == 3 && k->shape[0] == c && k->shape[1] == 1 && k->shape[2] == 1) return k->data;
  if (k->ndim == 4 && k->shape[0] == 1 && k->shape[1] == c && k->shape[2] == 1 && k->shape[3] == 1) return k->data;
  return NULL;
}

static rlx_relax_expr_t* prim_i(lt_t* z, int64_t v) { return rlx_relax_prim_value(z->ctx, rlx_ir_i64(z->ctx, v)); }
static rlx_relax_expr_t* prim_f(lt_t* z, double v) {
  return rlx_relax_prim_value(z->ctx, rlx_ir_float(z->ctx, rlx_dt_float64(), v));
}

static rlx_sinfo_t* blk_sinfo(lt_t* z, int64_t n, int64_t c, int64_t h, int64_t w) {
  int64_t d[5] = {n, (c + z->nb - 1) / z->nb, h, w, z->nb};
  return rlx_sinfo_tensor_const(z->ctx, 5, d, rlx_dt_float32());
}

static RLX_MUST_USE rlx_status_t* emit(lt_t* z, rlx_relax_expr_t* e, const char* hint, rlx_relax_expr_t** out) {
  rlx_relax_var_t* v = NULL;
  RLX_RETURN_IF_ERROR(rlx_bb_emit(z->bb, e, hint, &v));
  *out = &v->hdr;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* emit_packed(lt_t* z, const char* name, int n, rlx_relax_expr_t** args, rlx_sinfo_t* out_sinfo,
                                              rlx_relax_expr_t** out) {
  for (int i = 0; i < n; i++) /* a packed weight or bias whose data could not be allocated */
    if (!args[i]) return rlx_status_create(RLX_OUT_OF_MEMORY, "layout_nchwc: a constant of %s could not be allocated", name);
  return emit(z, rlx_relax_call_dps_packed(z->ctx, name, n, args, out_sinfo), NULL, out);
}

/* Appends the kernels' activation arguments (act, lo, hi) of p to a at n; returns the new n. */
static int epilogue_args(lt_t* z, const pend_t* p, rlx_relax_expr_t** a, int n) {
  bool act = p->lo > -INFINITY || p->hi < INFINITY;
  a[n++] = prim_i(z, act ? RLX_NN_ACT_CLIP : RLX_NN_ACT_NONE);
  a[n++] = prim_f(z, p->lo > -INFINITY ? p->lo : -3.0e38);
  a[n++] = prim_f(z, p->hi < INFINITY ? p->hi : 3.0e38);
  return n;
}

/* The bias constant of a pending convolution: [OCb*NB], padded channels zero. */
static rlx_relax_expr_t* bias_const(lt_t* z, const pend_t* p) {
  int64_t shape[1] = {(p->oc + z->nb - 1) / z->nb * z->nb};
  return rlx_relax_constant(z->ctx, rlx_dt_float32(), 1, shape, p->bias, (size_t)shape[0] * 4);
}

/* A 1x1 convolution and the 3x3 depthwise one that is its only reader, as one call
 * (rlx.nn.conv2d_dw_nchwc: x, w, bias, act, lo, hi, wd, bd, sh, sw, pt, pl, act, lo, hi, y). */
static RLX_MUST_USE rlx_status_t* flush_conv_dw(lt_t* z, vinfo_t* i, pend_t* p) {
  const pend_t* e = p->pre;
  rlx_relax_expr_t* a[15];
  int n = 0;
  a[n++] = e->x;
  a[n++] = e->w;
  a[n++] = bias_const(z, e);
  n = epilogue_args(z, e, a, n);
  a[n++] = p->w;
  a[n++] = bias_const(z, p);
  for (int k = 0; k < 4; k++) a[n++] = prim_i(z, p->g[k]);
  n = epilogue_args(z, p, a, n);
  return emit_packed(z, "rlx.nn.conv2d_dw_nchwc", n, a, blk_sinfo(z, p->n, p->oc, p->oh, p->ow), &i->blk);
}

/* A 3x3 depthwise convolution and the 1x1 one that is its only reader, as one call
 * (rlx.nn.dwconv_conv_nchwc: x, wd, bd, sh, sw, pt, pl, act, lo, hi, w, bias, [res,] act, lo, hi, y). */
static RLX_MUST_USE rlx_status_t* flush_dw_conv(lt_t* z, vinfo_t* i, pend_t* p) {
  const pend_t* e = p->dwpre;
  rlx_relax_expr_t* a[16];
  int n = 0;
  a[n++] = e->x;
  a[n++] = e->w;
  a[n++] = bias_const(z, e);
  for (int k = 0; k < 4; k++) a[n++] = prim_i(z, e->g[k]);
  n = epilogue_args(z, e, a, n);
  a[n++] = p->w;
  a[n++] = bias_const(z, p);
  if (p->res) a[n++] = p->res;
  n = epilogue_args(z, p, a, n);
  return emit_packed(z, "rlx.nn.dwconv_conv_nchwc", n, a, blk_sinfo(z, p->n, p->oc, p->oh, p->ow), &i->blk);
}

/* Emits the pending convolution of i; i->blk gets its result. */
static RLX_MUST_USE rlx_status_t* flush(lt_t* z, vinfo_t* i) {
  pend_t* p = i->pend;
  if (!p) return NULL;
  i->pend = NULL;
  if (p->pre) return flush_conv_dw(z, i, p);
  if (p->dwpre) return flush_dw_conv(z, i, p);
  rlx_relax_expr_t* a[14];
  int n = 0;
  a[n++] = p->x;
  a[n++] = p->w;
  a[n++] = bias_const(z, p);
  if (p->res) a[n++] = p->res;
  if (p->winograd) {
    a[n++] = prim_i(z, p->g[2]);
    a[n++] = prim_i(z, p->g[3]);
  } else {
    for (int k = 0; k < 6; k++) a[n++] = prim_i(z, p->g[k]);
  }
  n = epilogue_args(z, p, a, n);
  const char* name = p->depthwise  ? "rlx.nn.dwconv2d_nchwc"
                     : p->winograd ? "rlx.nn.conv2d_winograd_nchwc"
                                   : "rlx.nn.conv2d_nchwc";
  return emit_packed(z, name, n, a, blk_sinfo(z, p->n, p->oc, p->oh, p->ow), &i->blk);
}

/* The blocked value of var-or-expr e (converting a plain tensor of c channels once). */
static RLX_MUST_USE rlx_status_t* blocked(lt_t* z, rlx_relax_expr_t* e, rlx_relax_expr_t** out) {
  vinfo_t* i = info_of(z, e);
  if (i) {
    RLX_RETURN_IF_ERROR(flush(z, i));
    if (i->blk) return *out = i->blk, NULL;
  }
  int nd;
  int64_t d[6];
  if (!static_f32(e, &nd, d) || nd != 4) return rlx_status_create(RLX_INTERNAL, "layout_nchwc: not a 4-D tensor");
  rlx_relax_expr_t* args[1] = {e};
  rlx_relax_expr_t* b = NULL;
  RLX_RETURN_IF_ERROR(emit_packed(z, "rlx.nn.nchw_to_nchwc", 1, args, blk_sinfo(z, d[0], d[1], d[2], d[3]), &b));
  if (rlx_relax_is_var(e)) {
    i = i ? i : new_info(z, (rlx_relax_var_t*)e, d[1]);
    i->plain_missing = false;
    i->blk = b;
  }
  return *out = b, NULL;
}

/* Emits `v = nchwc_to_nchw(blocked)` under v's own name when v's binding was replaced. */
static RLX_MUST_USE rlx_status_t* materialize(lt_t* z, rlx_relax_var_t* v) {
  vinfo_t* i = info_of(z, &v->hdr);
  if (!i || !i->plain_missing || (!i->blk && !i->pend)) return NULL; /* the latter: fused into its only reader */
  RLX_RETURN_IF_ERROR(flush(z, i));
  rlx_relax_expr_t* args[1] = {i->blk};
  rlx_relax_expr_t* call = rlx_relax_call_dps_packed(z->ctx, "rlx.nn.nchwc_to_nchw", 1, args, v->hdr.sinfo);
  i->plain_missing = false;
  return rlx_bb_emit_binding(z->bb, rlx_relax_var_binding(z->ctx, v, call));
}

static rlx_status_t* materialize_cb(void* user, rlx_relax_var_t* v) { return materialize(user, v); }

/* Materializes every var that e reads. */
static RLX_MUST_USE rlx_status_t* materialize_uses(lt_t* z, const rlx_relax_expr_t* e) {
  return pass_each_var(e, materialize_cb, z);
}

static bool is_op(const rlx_relax_call_t* c, rlx_op_id_t id) { return rlx_relax_is_op(c->op, id); }

/* ------------------------------------------------------------------ rewrites */

/* Winograd F(2x2, 3x3) for 3x3 windows with stride and dilation 1 on a blocked input, when
 * the output has enough 2x2 tiles (at least two register tiles' worth): measured 2x faster
 * than the direct kernel from 13x13 outputs up, slower at 7x7 where the transformed weights
 * (16 x IC x OC floats) are streamed for too few tiles. */
static bool use_winograd(const pend_t* p, bool plain, int64_t kh, int64_t kw) {
  int64_t tiles = (p->oh + 1) / 2 * ((p->ow + 1) / 2);
  return !plain && kh == 3 && kw == 3 && p->g[0] == 1 && p->g[1] == 1 && p->g[4] == 1 && p->g[5] == 1 && tiles >= 28;
}

/* F(4x4, 3x3) instead of F(2x2) when its per-thread buffers (36 positions x (ICb + OCb)
 * channel blocks x one chunk of tiles, a chunk being one register tile row) stay within
 * 70 % of L2 and the output has at least 28 4x4 tiles: measured (AVX-512, 1 MB L2) 1.2-1.6x
 * faster than F(2x2) on 56x56x64, 28x28x128 (buffers of 516 KB) and SqueezeNet's 27x27
 * expand layers, slower at 14x14x256 where the buffers (1 MB) spill. F(4x4)'s transformed
 * weights are 2.25x F(2x2)'s, and in a network they come from memory on every call: with
 * few tiles (SqueezeNet's 13x13 layers: 16) that stream dominates (64->256 at 13x13 with
 * cold weights: F(4x4) 0.38-0.45 ms, F(2x2) 0.25-0.31 ms), hence the 28 (two chunks of the
 * AVX-512 tiles; a fixed count, as the weights' cost does not depend on the tiles). */
static bool want_f4(const lt_t* z, const pend_t* p, int64_t ic, int64_t v) {
  const int64_t nb = z->nb, chunk = rlx_nn_winograd_chunk(z->tiles, v), tiles = (p->oh + 3) / 4 * ((p->ow + 3) / 4);
  const int64_t bytes = 36 * ((ic + nb - 1) / nb + (p->oc + nb - 1) / nb) * chunk * nb * 4;
  return bytes * 10 <= z->l2 * 7 && tiles >= 28;
}

/* The accuracy check of F(4x4, 3x3), whose transforms amplify rounding more than F(2x2):
 * this layer's weights on a random input (uniform in [-1, 1], batch 1), F(4x4) against
 * the direct kernel; accepted when the largest difference is within 3e-5 of the output's
 * largest magnitude (measured 4e-6 to 9e-6 on ResNet-18 and SqueezeNet layers; the
 * networks' tests allow 1e-4 end to end), else F(2x2) is used. The kernels run here, in
 * the compiler's process, so with this CPU's channel block and variant, not the target's:
 * accuracy is a property of the weights and the transform, not of the layout, and a
 * target's code need not run where it is compiled. */
static RLX_MUST_USE rlx_status_t* f4_accurate(const pend_t* p, const float* w, int64_t ic, bool* out_ok) {
  *out_ok = false;
  const int64_t nb = rlx_isa_info(rlx_cpu_isa_level())->nchwc_block;
  const rlx_nn_kernels_t* kn = rlx_nn_kernels(nb, NULL);
  if (!kn) return NULL; /* no kernels to check with: F(2x2) */
  rlx_nn_conv_t k;
  memset(&k, 0, sizeof(k));
  k.n = 1, k.ic = ic, k.h = (p->oh - 1) + 3 - 2 * p->g[2], k.w = (p->ow - 1) + 3 - 2 * p->g[3];
  k.oc = p->oc, k.oh = p->oh, k.ow = p->ow, k.kh = k.kw = 3, k.sh = k.sw = k.dh = k.dw = 1;
  k.pt = p->g[2], k.pl = p->g[3], k.nb = k.cbi = nb, k.v = 1;
  if (k.h < 1 || k.w < 1) return NULL;
  int64_t icb = (ic + nb - 1) / nb, ocb = (p->oc + nb - 1) / nb;
  size_t nx = (size_t)(icb * k.h * k.w * nb), ny = (size_t)(ocb * k.oh * k.ow * nb);
  float* x = malloc(nx * 4);
  float* wd = malloc((size_t)rlx_nn_conv_packed_numel(p->oc, ic, 3, 3, nb, 1, nb) * 4);
  float* u = malloc((size_t)rlx_nn_winograd_packed_numel(p->oc, ic, 4, 1, nb) * 4);
  float* y1 = malloc(ny * 4);
  float* y2 = malloc(ny * 4);
  rlx_status_t* st = NULL;
  if (!x || !wd || !u || !y1 || !y2) st = rlx_status_create(RLX_OUT_OF_MEMORY, "layout_nchwc: checking Winograd");
  if (!st) {
    uint64_t r = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < nx; i++) {
      r = r * 6364136223846793005ull + 1442695040888963407ull;
      x[i] = (float)((double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    }
    rlx_nn_conv_pack_weight(w, p->oc, ic, 3, 3, nb, 1, nb, wd);
    rlx_nn_winograd_pack_weight(w, p->oc, ic, 1, 4, nb, u);
    if (kn->conv2d(&k, x, wd, NULL, NULL, y1) || kn->winograd(&k, 4, x, u, NULL, NULL, y2))
      st = rlx_status_create(RLX_OUT_OF_MEMORY, "layout_nchwc: checking Winograd");
  }
  if (!st) {
    double err = 0, scale = 0;
    for (size_t i = 0; i < ny; i++) {
      double d = fabs((double)y1[i] - y2[i]), a = fabs((double)y1[i]);
      err = d > err ? d : err;
      scale = a > scale ? a : scale;
    }
    *out_ok = err <= 3e-5 * scale;
  }
  free(x), free(wd), free(u), free(y1), free(y2);
  return st;
}

static pend_t* open_pend(lt_t* z, const rlx_relax_expr_t* e);

/* The pending 1x1 convolution that var x holds when a 3x3 depthwise convolution p (stride 1
 * or 2) is its only reader and its output is larger than the target's L2: MobileNet's
 * expansion, computed row by row inside the depthwise call (rlx.nn.conv2d_dw_nchwc) instead
 * of being stored and read back from memory. Measured on a 2 MB L2, 16->96 channels at
 * 112x112 (4.8 MB): 0.60 -> 0.49 ms for the pair; no gain at 56x56x144 (1.8 MB, in L2),
 * hence the bound. NULL otherwise. */
static pend_t* fusable_expansion(lt_t* z, const rlx_relax_expr_t* x, const pend_t* p, int64_t kh, int64_t kw) {
  pend_t* e = open_pend(z, x);
  if (!e || e->depthwise || e->winograd || e->pre || e->dwpre || e->res || kh != 3 || kw != 3) return NULL;
  const rlx_relax_constant_t* w = as_const(e->w);
  const int64_t one[6] = {1, 1, 0, 0, 1, 1};
  if (!w || w->ndim != 6 || w->shape[2] != 1 || w->shape[3] != 1 || w->shape[4] != z->nb ||
      memcmp(e->g, one, sizeof(one)) != 0)
    return NULL;
  if (p->g[0] != p->g[1] || (p->g[0] != 1 && p->g[0] != 2) || p->g[4] != 1 || p->g[5] != 1 || e->ow > 512) return NULL;
  return e->n * ((e->oc + z->nb - 1) / z->nb * z->nb) * e->oh * e->ow * 4 > z->l2 ? e : NULL;
}

/* The pending 3x3 depthwise convolution that var x holds when a 1x1 stride-1 convolution p
 * is its only reader: computed inside p's call (rlx.nn.dwconv_conv_nchwc), so that the
 * depthwise output (MobileNet's 6x expanded channels) is never stored and read back.
 * MobileNetV2, 8 alternations of the two builds: 1 thread 6.98 -> 6.23 ms, 2 threads 4.04 ->
 * 3.83 ms (medians); in the kernel alone with the data in cache the pair is 0-18 % faster
 * and never slower. NULL otherwise. */
static pend_t* fusable_depthwise(lt_t* z, const rlx_relax_expr_t* x, const pend_t* p, int64_t kh, int64_t kw) {
  pend_t* e = open_pend(z, x);
  const int64_t one[6] = {1, 1, 0, 0, 1, 1};
  if (!e || !e->depthwise || e->pre || e->res || kh != 1 || kw != 1 || memcmp(p->g, one, sizeof(one)) != 0) return NULL;
  const rlx_relax_constant_t* w = as_const(e->w);
  int nd;
  int64_t xd[6];
  if (!w || w->ndim != 4 || w->shape[1] != 3 || w->shape[2] != 3 || !static_f32(e->x, &nd, xd) || nd != 5 || xd[3] > 512)
    return NULL;
  if (e->g[0] != e->g[1] || (e->g[0] != 1 && e->g[0] != 2) || e->g[4] != 1 || e->g[5] != 1) return NULL;
  return e;
}

/* v = conv2d(x, w): a pending convolution, or false when it does not qualify. */
static RLX_MUST_USE rlx_status_t* try_conv(lt_t* z, rlx_relax_var_t* v, rlx_relax_call_t* c, bool* done) {
  int nx, nw, ny;
  int64_t xd[6], wd[6], yd[6];
  rlx_relax_constant_t* wc = as_const(c->args[1]);
  if (!wc || !static_f32(c->args[0], &nx, xd) || !static_f32(c->args[1], &nw, wd) || !static_f32(&v->hdr, &ny, yd) ||
      nx != 4 || nw != 4 || ny != 4)
    return NULL;
  const char* dl = onn_attr_str(c, "data_layout", "NCHW");
  const char* kl = onn_attr_str(c, "kernel_layout", "OIHW");
  const char* ol = onn_attr_str(c, "out_layout", "NCHW");
  if (strcmp(dl, "NCHW") || strcmp(kl, "OIHW") || (strcmp(ol, "NCHW") && *ol)) return NULL;
  int64_t s[2], pad[4], dil[2];
  if (onn_attr_ints(c, "strides", 2, 1, s) || onn_attr_ints(c, "padding", 4, 0, pad) ||
      onn_attr_ints(c, "dilation", 2, 1, dil))
    return NULL; /* inference already checked these; a failure here means "leave it" */
  int64_t groups = onn_attr_int(c, "groups", 1);
  int64_t ic = xd[1], oc = wd[0], kh = wd[2], kw = wd[3];
  bool dw = groups > 1 && groups == ic && oc == ic && wd[1] == 1;
  if (groups != 1 && !dw) return NULL;
  pend_t* p = RLX_NEW(z->ctx, pend_t);
  memset(p, 0, sizeof(*p));
  p->depthwise = dw;
  p->n = yd[0], p->oc = oc, p->oh = yd[2], p->ow = yd[3];
  p->g[0] = s[0], p->g[1] = s[1], p->g[2] = pad[0], p->g[3] = pad[1], p->g[4] = dil[0], p->g[5] = dil[1];
  p->lo = -INFINITY, p->hi = INFINITY;
  const int64_t nb = z->nb, ocb = (oc + nb - 1) / nb;
  p->bias = RLX_NEW_ARRAY(z->ctx, float, ocb * nb);
  memset(p->bias, 0, (size_t)(ocb * nb) * 4);
  vinfo_t* xi = info_of(z, c->args[0]);
  bool plain = !dw && ic <= 8 && !(xi && (xi->blk || xi->pend));
  pend_t* pre = dw ? fusable_expansion(z, c->args[0], p, kh, kw) : NULL;
  pend_t* dwpre = !dw && !plain ? fusable_depthwise(z, c->args[0], p, kh, kw) : NULL;
  if (plain) {
    p->x = c->args[0];
  } else if (pre) {
    p->pre = pre, p->x = pre->x;
    xi->pend = NULL; /* computed inside this call */
  } else if (dwpre) {
    p->dwpre = dwpre, p->x = dwpre->x;
    xi->pend = NULL; /* computed inside this call */
  } else {
    RLX_RETURN_IF_ERROR(blocked(z, c->args[0], &p->x));
  }
  /* the pixels the register tiles run along: a 1x1 stride-1 unpadded convolution is one
   * GEMM over the plane (also inside a depthwise+1x1 call), Winograd's GEMMs run over its
   * tiles, the rest over output rows */
  const bool flat = kh == 1 && kw == 1 && s[0] == 1 && s[1] == 1 && pad[0] == 0 && pad[1] == 0;
  const bool wino = !dw && use_winograd(p, plain, kh, kw);
  const int64_t run = flat ? p->oh * p->ow : wino ? (p->oh + 1) / 2 * ((p->ow + 1) / 2) : p->ow;
  const int64_t v_blocks = rlx_nn_pick_v(z->tiles, ocb, run), og_n = (ocb + v_blocks - 1) / v_blocks;
  if (dw) {
    int64_t shape[4] = {ocb, kh, kw, nb};
    float* buf = malloc((size_t)(ocb * kh * kw * nb) * 4);
    if (!buf) return rlx_status_create(RLX_OUT_OF_MEMORY, "layout_nchwc: packing a weight");
    rlx_nn_dw_pack_weight(wc->data, oc, kh, kw, nb, buf);
    p->w = rlx_relax_constant(z->ctx, rlx_dt_float32(), 4, shape, buf, (size_t)(ocb * kh * kw * nb) * 4);
    free(buf);
  } else if (wino) {
    int m = 2;
    if (want_f4(z, p, ic, v_blocks)) {
      bool ok = false;
      RLX_RETURN_IF_ERROR(f4_accurate(p, wc->data, ic, &ok));
      m = ok ? 4 : 2;
    }
    int64_t numel = rlx_nn_winograd_packed_numel(oc, ic, m, v_blocks, nb);
    int64_t shape[5] = {(m + 2) * (m + 2), og_n, (ic + nb - 1) / nb, nb, v_blocks * nb};
    float* buf = malloc((size_t)numel * 4);
    if (!buf) return rlx_status_create(RLX_OUT_OF_MEMORY, "layout_nchwc: transforming a weight");
    rlx_nn_winograd_pack_weight(wc->data, oc, ic, v_blocks, m, nb, buf);
    p->w = rlx_relax_constant(z->ctx, rlx_dt_float32(), 5, shape, buf, (size_t)numel * 4);
    p->winograd = true;
    free(buf);
  } else {
    int64_t cbi = plain ? 1 : nb;
    int64_t numel = rlx_nn_conv_packed_numel(oc, ic, kh, kw, cbi, v_blocks, nb);
    int64_t shape[6] = {og_n, plain ? ic : (ic + nb - 1) / nb, kh, kw, cbi, v_blocks * nb};
    float* buf = malloc((size_t)numel * 4);
    if (!buf) return rlx_status_create(RLX_OUT_OF_MEMORY, "layout_nchwc: packing a weight");
    rlx_nn_conv_pack_weight(wc->data, oc, ic, kh, kw, cbi, v_blocks, nb, buf);
    p->w = rlx_relax_constant(z->ctx, rlx_dt_float32(), 6, shape, buf, (size_t)numel * 4);
    free(buf);
  }
  new_info(z, v, oc)->pend = p;
  *done = true;
  return NULL;
}

/* The pending convolution that var e holds and that only this binding reads, or NULL. */
static pend_t* open_pend(lt_t* z, const rlx_relax_expr_t* e) {
  vinfo_t* i = info_of(z, e);
  return i && i->pend && uses(z, e) == 1 ? i->pend : NULL;
}

static void move_pend(lt_t* z, const rlx_relax_expr_t* from, rlx_relax_var_t* to, int64_t c) {
  vinfo_t* i = info_of(z, from);
  pend_t* p = i->pend;
  i->pend = NULL;
  new_info(z, to, c)->pend = p;
}

/* Epilogue ops joining a pending convolution. */
static RLX_MUST_USE rlx_status_t* try_epilogue(lt_t* z, rlx_relax_var_t* v, rlx_relax_call_t* c, bool* done) {
  float s;
  if (is_op(c, RLX_OP_RELU) && c->n_args == 1) {
    pend_t* p = open_pend(z, c->args[0]);
    if (!p || p->hi < INFINITY) return NULL;
    p->lo = p->lo > 0 ? p->lo : 0;
    move_pend(z, c->args[0], v, info_of(z, c->args[0])->c);
    return *done = true, NULL;
  }
  if ((is_op(c, RLX_OP_MAXIMUM) || is_op(c, RLX_OP_MINIMUM)) && c->n_args == 2) {
    bool mx = is_op(c, RLX_OP_MAXIMUM);
    for (int k = 0; k < 2; k++) {
      pend_t* p = open_pend(z, c->args[k]);
      if (!p || !scalar_const(c->args[1 - k], &s)) continue;
      if (mx && p->hi < INFINITY) return NULL;
      if (!mx && p->lo > s) return NULL;
      if (mx) p->lo = p->lo > s ? p->lo : s;
      else p->hi = p->hi < s ? p->hi : s;
      move_pend(z, c->args[k], v, info_of(z, c->args[k])->c);
      return *done = true, NULL;
    }
    return NULL;
  }
  if (is_op(c, RLX_OP_ADD) && c->n_args == 2) {
    for (int k = 0; k < 2; k++) {
      pend_t* p = open_pend(z, c->args[k]);
      if (!p || p->lo > -INFINITY || p->hi < INFINITY) continue;
      const float* b = channel_const(c->args[1 - k], p->oc);
      if (b && !p->res) {
        for (int64_t ch = 0; ch < p->oc; ch++) p->bias[ch] += b[ch];
      } else if (!p->res && !p->pre) {
        int n1, n2;
        int64_t d1[6], d2[6];
        if (!static_f32(c->args[1 - k], &n1, d1) || !static_f32(&v->hdr, &n2, d2) || n1 != 4 || n2 != 4 ||
            memcmp(d1, d2, sizeof(int64_t) * 4) != 0)
          continue;
        RLX_RETURN_IF_ERROR(blocked(z, c->args[1 - k], &p->res));
      } else {
        continue;
      }
      move_pend(z, c->args[k], v, p->oc);
      return *done = true, NULL;
    }
  }
  return NULL;
}

/* A blocked operand for an elementwise op on blocked tensors: the blocked var, a scalar,
 * or a per-channel constant reshaped to (1, Cb, 1, 1, NB). */
static RLX_MUST_USE rlx_status_t* blk_operand(lt_t* z, rlx_relax_expr_t* e, int64_t c, rlx_relax_expr_t** out) {
  *out = NULL;
  float s;
  if (scalar_const(e, &s) && as_const(e)->ndim == 0) return *out = e, NULL;
  const float* k = channel_const(e, c);
  if (k) {
    int64_t cb = (c + z->nb - 1) / z->nb, shape[5] = {1, cb, 1, 1, z->nb};
    float* buf = RLX_NEW_ARRAY(z->ctx, float, cb * z->nb);
    if (!buf) return rlx_status_create(RLX_OUT_OF_MEMORY, "layout_nchwc: blocking a per-channel constant");
    memcpy(buf, k, (size_t)c * 4);
    *out = rlx_relax_constant(z->ctx, rlx_dt_float32(), 5, shape, buf, (size_t)(cb * z->nb) * 4);
    return *out ? NULL : rlx_status_create(RLX_OUT_OF_MEMORY, "layout_nchwc: blocking a per-channel constant");
  }
  vinfo_t* i = info_of(z, e);
  if (i && (i->blk || i->pend) && i->c == c) return blocked(z, e, out);
  return NULL;
}

static const rlx_op_id_t blocked_elementwise[] = {RLX_OP_ADD,     RLX_OP_SUBTRACT, RLX_OP_MULTIPLY,
                                                  RLX_OP_MAXIMUM, RLX_OP_MINIMUM,  RLX_OP_RELU};

/* concat((conv_a(x), conv_b(x), ...), axis=1), every part a convolution of the same blocked
 * x that nothing else reads, with a multiple of NB channels and no residual: one call that
 * writes each part into its channel blocks of the result (the concat costs nothing). */
static RLX_MUST_USE rlx_status_t* try_concat_convs(lt_t* z, rlx_relax_var_t* v, rlx_relax_tuple_t* t, const int64_t* yd, bool* done) {
  if (t->n_fields < 2 || t->n_fields > 8) return NULL;
  pend_t* parts[8];
  for (int k = 0; k < t->n_fields; k++) {
    parts[k] = open_pend(z, t->fields[k]);
    if (!parts[k] || parts[k]->depthwise || parts[k]->dwpre || parts[k]->res || parts[k]->oc % z->nb != 0 ||
        parts[k]->x != parts[0]->x)
      return NULL;
    for (int j = 0; j < k; j++)
      if (t->fields[j] == t->fields[k]) return NULL; /* the same var twice */
  }
  int nd;
  int64_t xd[6];
  if (!parts[0]->x->sinfo || !static_f32(parts[0]->x, &nd, xd) || nd != 5) return NULL; /* a plain NCHW input */
  int n = 0;
  rlx_relax_expr_t** a = RLX_NEW_ARRAY(z->ctx, rlx_relax_expr_t*, 1 + 12 * t->n_fields);
  a[n++] = parts[0]->x;
  for (int k = 0; k < t->n_fields; k++) {
    pend_t* p = parts[k];
    a[n++] = p->w;
    a[n++] = bias_const(z, p);
    a[n++] = prim_i(z, p->winograd ? 1 : 0);
    for (int g = 0; g < 6; g++) a[n++] = prim_i(z, p->g[g]);
    n = epilogue_args(z, p, a, n);
    info_of(z, t->fields[k])->pend = NULL; /* consumed here */
  }
  rlx_relax_expr_t* b = NULL;
  RLX_RETURN_IF_ERROR(emit_packed(z, "rlx.nn.conv2d_concat_nchwc", n, a, blk_sinfo(z, yd[0], yd[1], yd[2], yd[3]), &b));
  new_info(z, v, yd[1])->blk = b;
  *done = true;
  return NULL;
}

/* Elementwise ops, pools, means and concat on blocked inputs. */
static RLX_MUST_USE rlx_status_t* try_blocked_op(lt_t* z, rlx_relax_var_t* v, rlx_relax_call_t* c, bool* done) {
  int ny;
  int64_t yd[6];
  if (!static_f32(&v->hdr, &ny, yd)) return NULL;
  vinfo_t* xi = c->n_args > 0 ? info_of(z, c->args[0]) : NULL;
  bool x_blk = xi && (xi->blk || xi->pend);
  for (size_t k = 0; k < sizeof(blocked_elementwise) / sizeof(blocked_elementwise[0]); k++) {
    if (!is_op(c, blocked_elementwise[k]) || ny != 4) continue;
    rlx_relax_expr_t* ops[2] = {NULL, NULL};
    bool any_blk = false;
    for (int a = 0; a < c->n_args && a < 2; a++) {
      vinfo_t* ai = info_of(z, c->args[a]);
      any_blk = any_blk || (ai && (ai->blk || ai->pend) && ai->c == yd[1]);
    }
    if (!any_blk || c->n_args > 2) return NULL;
    /* both operands must have a blocked form of the output's shape or be constants */
    for (int a = 0; a < c->n_args; a++) {
      int na;
      int64_t ad[6];
      vinfo_t* ai = info_of(z, c->args[a]);
      bool same = static_f32(c->args[a], &na, ad) && na == 4 && memcmp(ad, yd, 4 * sizeof(int64_t)) == 0;
      if (ai && (ai->blk || ai->pend) && !same) return NULL;
      RLX_RETURN_IF_ERROR(blk_operand(z, c->args[a], yd[1], &ops[a]));
      if (!ops[a]) return NULL;
    }
    rlx_relax_expr_t* e = rlx_relax_call(z->ctx, c->op, c->n_args, ops, c->attrs, 0, NULL);
    rlx_relax_expr_t* b = NULL;
    RLX_RETURN_IF_ERROR(emit(z, e, NULL, &b));
    new_info(z, v, yd[1])->blk = b;
    return *done = true, NULL;
  }
  if (is_op(c, RLX_OP_MAX_POOL2D) && x_blk && ny == 4) {
    int64_t ps[2], st[2], dl[2], pad[4];
    const char* lay = onn_attr_str(c, "layout", "NCHW");
    const char* olay = onn_attr_str(c, "out_layout", "NCHW");
    if (strcmp(lay, "NCHW") || (*olay && strcmp(olay, "NCHW")) || onn_attr_ints(c, "pool_size", 2, 1, ps) ||
        onn_attr_ints(c, "strides", 2, 1, st) || onn_attr_ints(c, "dilation", 2, 1, dl) ||
        onn_attr_ints(c, "padding", 4, 0, pad))
      return NULL;
    rlx_relax_expr_t* a[9];
    RLX_RETURN_IF_ERROR(blocked(z, c->args[0], &a[0]));
    int64_t g[8] = {ps[0], ps[1], st[0], st[1], pad[0], pad[1], dl[0], dl[1]};
    for (int k = 0; k < 8; k++) a[1 + k] = prim_i(z, g[k]);
    rlx_relax_expr_t* b = NULL;
    RLX_RETURN_IF_ERROR(emit_packed(z, "rlx.nn.max_pool2d_nchwc", 9, a, blk_sinfo(z, yd[0], yd[1], yd[2], yd[3]), &b));
    new_info(z, v, yd[1])->blk = b;
    return *done = true, NULL;
  }
  if (is_op(c, RLX_OP_MEAN) && x_blk && ny == 4 && yd[2] == 1 && yd[3] == 1) {
    const rlx_attr_t* ax = rlx_attrs_get(&c->attrs, "axis");
    bool keep = onn_attr_bool(c, "keepdims", false);
    if (!keep || !ax || ax->kind != RLX_ATTR_INTS || ax->u.ints.n != 2) return NULL;
    int64_t a0 = ax->u.ints.v[0] < 0 ? ax->u.ints.v[0] + 4 : ax->u.ints.v[0];
    int64_t a1 = ax->u.ints.v[1] < 0 ? ax->u.ints.v[1] + 4 : ax->u.ints.v[1];
    if (!((a0 == 2 && a1 == 3) || (a0 == 3 && a1 == 2))) return NULL;
    rlx_relax_expr_t* a[1];
    RLX_RETURN_IF_ERROR(blocked(z, c->args[0], &a[0]));
    rlx_relax_expr_t* b = NULL;
    RLX_RETURN_IF_ERROR(emit_packed(z, "rlx.nn.mean_hw_nchwc", 1, a, blk_sinfo(z, yd[0], yd[1], 1, 1), &b));
    new_info(z, v, yd[1])->blk = b;
    return *done = true, NULL;
  }
  if (is_op(c, RLX_OP_CONCAT) && ny == 4 && c->n_args == 1 && c->args[0]->kind == RLX_RELAX_TUPLE) {
    int64_t axis = onn_attr_int(c, "axis", 0);
    rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)c->args[0];
    if (axis != 1 && axis != -3) return NULL;
    RLX_RETURN_IF_ERROR(try_concat_convs(z, v, t, yd, done));
    if (*done) return NULL;
    for (int k = 0; k < t->n_fields; k++) {
      vinfo_t* fi = info_of(z, t->fields[k]);
      if (!fi || !(fi->blk || fi->pend) || fi->c % z->nb != 0) return NULL;
    }
    rlx_relax_expr_t** f = RLX_NEW_ARRAY(z->ctx, rlx_relax_expr_t*, t->n_fields);
    for (int k = 0; k < t->n_fields; k++) RLX_RETURN_IF_ERROR(blocked(z, t->fields[k], &f[k]));
    rlx_relax_expr_t* tup = rlx_relax_tuple(z->ctx, t->n_fields, f);
    rlx_relax_expr_t* e = rlx_relax_call(z->ctx, c->op, 1, &tup, c->attrs, 0, NULL);
    rlx_relax_expr_t* b = NULL;
    RLX_RETURN_IF_ERROR(emit(z, e, NULL, &b));
    new_info(z, v, yd[1])->blk = b;
    return *done = true, NULL;
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* rewrite_binding(lt_t* z, rlx_relax_binding_t* b) {
  bool done = false;
  if (b->kind == RLX_BINDING_VAR && b->value->kind == RLX_RELAX_CALL) {
    rlx_relax_call_t* c = (rlx_relax_call_t*)b->value;
    if (is_op(c, RLX_OP_CONV2D)) RLX_RETURN_IF_ERROR(try_conv(z, b->var, c, &done));
    if (!done) RLX_RETURN_IF_ERROR(try_epilogue(z, b->var, c, &done));
    if (!done) RLX_RETURN_IF_ERROR(try_blocked_op(z, b->var, c, &done));
  }
  if (done) return NULL;
  RLX_RETURN_IF_ERROR(materialize_uses(z, b->value));
  return rlx_bb_emit_binding(z->bb, b);
}

static bool wanted(const rlx_relax_expr_t* v) {
  return v->kind == RLX_RELAX_CALL && rlx_relax_is_op(((const rlx_relax_call_t*)v)->op, RLX_OP_CONV2D);
}

static rlx_status_t* binding_cb(void* user, rlx_relax_binding_t* b) { return rewrite_binding(user, b); }
static rlx_status_t* uses_cb(void* user, const rlx_relax_expr_t* e) { return materialize_uses(user, e); }

static RLX_MUST_USE rlx_status_t* rewrite_func(lt_t* z, rlx_module_t* m, const char* name, const rlx_relax_func_t* f,
                                               rlx_relax_func_t** out) {
  static const pass_rewriter_t r = {wanted, binding_cb, uses_cb, materialize_cb};
  rlx_relax_expr_visit(f->body, count_use, z);
  return pass_rewrite_blocks(z->ctx, z->bb, m, name, f, &r, z, out);
}

RLX_MUST_USE rlx_status_t* rlx_pass_layout_nchwc(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out) {
  rlx_module_t* m = pass_module_copy(ctx, in);
  rlx_bb_t* bb = rlx_bb_create(ctx, m);
  rlx_status_t* st = NULL;
  for (int i = 0; !st && i < m->n_funcs; i++) {
    if (m->funcs[i].kind != RLX_FUNC_RELAX) continue;
    const rlx_target_t* t = rlx_ctx_target_of(ctx);
    lt_t z = {ctx, bb, {0}, {0}, rlx_target_nchwc_block(t), rlx_nn_tiles(rlx_target_isa_level(t)),
              rlx_target_cache_bytes(t, 2)};
    if (z.l2 <= 0) z.l2 = 1 << 20; /* a target that names no cache */
    rlx_relax_func_t* nf = NULL;
    st = rlx_status_annotate(rewrite_func(&z, m, m->funcs[i].name, m->funcs[i].func, &nf), "layout_nchwc: function '%s'",
                             m->funcs[i].name);
    if (!st && nf) rlx_module_set(m, m->funcs[i].name, RLX_FUNC_RELAX, nf);
    rlx_ptrmap_free(&z.info);
    rlx_ptrmap_free(&z.uses);
  }
  if (st) return st;
  *out = m;
  return NULL;
}
