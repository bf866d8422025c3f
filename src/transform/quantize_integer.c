/* Pass quantize_integer: quantized (QDQ) graphs onto the int8 kernels (TVM's
 * FakeQuantizationToInteger).
 *
 * Requires: a well-formed module before layout_nchwc and legalize_ops (R.quantize /
 * R.dequantize and the high-level ops still present; ONNX's QuantizeLinear / DequantizeLinear
 * import to them; QLinearConv / ConvInteger import to int32 convolutions this pass does not
 * match).
 * Produces: the same module where, inside dataflow blocks, each region of the form
 *
 *     DQ(q1, s1, z1) [, DQ(q2, ...)] -> float op(s) -> Q(., s, z)
 *
 * whose ops have an integer kernel becomes one call of that kernel on uint8 NCHWc tensors
 * (the target's channel block), so activations stay uint8 and blocked from the network's
 * first QuantizeLinear to the DequantizeLinears it leaves by. The regions:
 *   conv2d (groups 1 or depthwise; constant weights that are int8 values times a scale per
 *     output channel) [+ per-channel constant bias] [relu / maximum / minimum / clip]
 *       -> rlx.nn.qconv2d_nchwc / qdwconv2d_nchwc: int32 accumulation, weights packed and
 *          the zero-point compensation -x_zp * sum(w) folded into the int32 bias here, at
 *          compile time; requantization by x_scale * w_scale[c] / y_scale with round half to
 *          even; the activation folded into the output's clamp (Q is monotone, so
 *          Q(clip(v, lo, hi)) = clamp(Q(v), Q(lo), Q(hi)));
 *   add of two dequantized tensors [relu / clip]        -> rlx.nn.qadd_nchwc;
 *   max_pool2d                                          -> rlx.nn.qmax_pool2d_nchwc (max on
 *          the integers, then a 256-entry table to the output's parameters);
 *   mean over H, W (GlobalAveragePool)                  -> rlx.nn.qmean_hw_nchwc;
 *   concat over channels (every part a multiple of the block) -> rlx.nn.qconcat_nchwc: the
 *          parts' channel blocks copied, each through a table to the output's parameters;
 *   Q of any other float NCHW tensor                    -> rlx.nn.quantize_nchwc;
 *   matmul of DQ(x) flattened from [N, C, 1, 1] (a Reshape of 1x1 planes is a view of the
 *     blocked bytes) and the transpose of a [O, C] weight (ONNX's Gemm), [+ bias]
 *       -> rlx.nn.qconv2d_nchwc as a 1x1 convolution.
 *
 * A var of the original program that anything else reads is recomputed where it is first
 * needed from the integer result (a uint8 Q var: rlx.nn.qnchwc_to_nchw of its blocked form)
 * or by its own binding; every non-dataflow var of the block is, at the block's end. What is
 * not matched keeps its float semantics (layout_nchwc then takes its convolutions).
 *
 * Weights arrive as R.dequantize(constant int8, scale, 0) (taken as they are), or as float
 * constants (the importer folds small constant subgraphs): the pass takes those back as int8
 * values with a scale per output channel (max |w| / 127, else the tensor's), and matches only
 * when every weight is within 1e-3 of an integer in [-127, 127] times that scale. The bias is
 * taken as the int32 round(b / (x_scale * w_scale)), as QDQ graphs quantize it. Weights must
 * be symmetric (zero point 0) and never -128 (the AVX2 product step, qconv_nchwc.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/ir.h"
#include "../relax/op_nn_internal.h"
#include "../runtime/kernels/nn_kernels.h"
#include "pass.h"
#include "pass_util.h"

/* A uint8 NCHWc value with its per-tensor parameters. */
typedef struct {
  rlx_relax_expr_t* blk;
  float s;
  int32_t z;
  int64_t n, c, h, w;
  int64_t cbi; /* channels per block: the target's NB, or 4 (a first convolution's input) */
} qt_t;

typedef enum { CH_CONV, CH_ADD, CH_POOL, CH_MEAN, CH_CONCAT } ch_kind_t;

/* Float ops on dequantized inputs, not emitted until a Q gives their output's parameters. */
typedef struct {
  ch_kind_t kind;
  const qt_t* in[8];
  int n_in;
  bool depthwise;
  const int8_t* wq; /* conv: OIHW int8 values */
  const float* ws; /* conv: scale per output channel */
  const float* bias; /* conv: float per output channel, or NULL */
  int64_t kh, kw, g[8]; /* conv: sh, sw, pt, pl, dh, dw; pool: kh, kw, sh, sw, pt, pl, dh, dw */
  float lo, hi;       /* folded activation; -inf / +inf: none */
  int64_t n, c, h, w; /* output */
} chain_t;

/* What the pass knows of a var of the original program. */
typedef struct {
  rlx_relax_binding_t* deferred; /* its binding, not emitted yet (NULL: emitted or none) */
  qt_t* q;                       /* a uint8 Q var: its blocked form */
  const qt_t* dq;                /* a DQ var: the quantized tensor it dequantizes */
  chain_t* ch;                   /* a float result still open to a Q */
  const int8_t* wq;              /* a DQ of a constant int8 OIHW weight: its values */
  const float* ws;               /* and its scale per output channel */
  const float* fc;               /* a float constant computed from constants (a bias): values */
  int64_t fc_n;
  const rlx_relax_expr_t* perm;  /* permute_dims(perm) of a 2-D weight (a Gemm's [O, K]) */
} vinfo_t;

typedef struct {
  rlx_ctx_t* ctx;
  rlx_bb_t* bb;
  rlx_ptrmap_t info; /* var → vinfo_t* */
  rlx_ptrmap_t uses; /* var → use count (intptr) */
  int64_t nb;
} qi_t;

static vinfo_t* info_of(qi_t* z, const rlx_relax_expr_t* v) {
  return v && rlx_relax_is_var(v) ? rlx_ptrmap_get(&z->info, v) : NULL;
}

static vinfo_t* new_info(qi_t* z, rlx_relax_var_t* v, rlx_relax_binding_t* b) {
  vinfo_t* i = RLX_NEW(z->ctx, vinfo_t);
  memset(i, 0, sizeof(*i));
  i->deferred = b;
  rlx_ptrmap_put(&z->info, v, i);
  return i;
}

static int64_t uses(qi_t* z, const rlx_relax_expr_t* v) { return (int64_t)(intptr_t)rlx_ptrmap_get(&z->uses, v); }

static void count_use(const rlx_relax_expr_t* e, void* user) {
  qi_t* z = user;
  if (rlx_relax_is_var(e)) rlx_ptrmap_put(&z->uses, e, (void*)(intptr_t)(uses(z, e) + 1));
}

static bool is_op(const rlx_relax_call_t* c, rlx_op_id_t id) { return rlx_relax_is_op(c->op, id); }

static rlx_relax_constant_t* as_const(const rlx_relax_expr_t* e) {
  return e && e->kind == RLX_RELAX_CONSTANT ? (rlx_relax_constant_t*)e : NULL;
}

/* Static 4-D tensor of dtype t: its dims. */
static bool static4(const rlx_relax_expr_t* e, rlx_dtype_t t, int64_t* d) {
  const rlx_sinfo_t* s = e->sinfo;
  if (!s || s->kind != RLX_SINFO_TENSOR) return false;
  const rlx_sinfo_tensor_t* ts = (const rlx_sinfo_tensor_t*)s;
  if (!ts->shape || ts->ndim != 4 || !rlx_dtype_eq(ts->dtype, t)) return false;
  for (int k = 0; k < 4; k++)
    if (!rlx_expr_is_const_int(ts->shape[k], &d[k])) return false;
  return true;
}

/* A static tensor of dtype t of rank 4, or of rank 2 ([N, C]: a Gemm's, taken as [N, C, 1, 1]). */
static bool static_nc(const rlx_relax_expr_t* e, rlx_dtype_t t, int64_t* d) {
  if (static4(e, t, d)) return true;
  const rlx_sinfo_t* s = e->sinfo;
  if (!s || s->kind != RLX_SINFO_TENSOR) return false;
  const rlx_sinfo_tensor_t* ts = (const rlx_sinfo_tensor_t*)s;
  if (!ts->shape || ts->ndim != 2 || !rlx_dtype_eq(ts->dtype, t)) return false;
  if (!rlx_expr_is_const_int(ts->shape[0], &d[0]) || !rlx_expr_is_const_int(ts->shape[1], &d[1])) return false;
  d[2] = d[3] = 1;
  return true;
}

/* The first dimension of a static tensor of rank 2 or 4, or -1. */
static int64_t first_dim(const rlx_relax_expr_t* e) {
  const rlx_sinfo_t* s = e->sinfo;
  int64_t d = -1;
  if (!s || s->kind != RLX_SINFO_TENSOR) return -1;
  const rlx_sinfo_tensor_t* ts = (const rlx_sinfo_tensor_t*)s;
  if (!ts->shape || (ts->ndim != 2 && ts->ndim != 4) || !rlx_expr_is_const_int(ts->shape[0], &d)) return -1;
  return d;
}

/* A float32 scalar constant (any rank with one element). */
static bool scalar_f32(const rlx_relax_expr_t* e, float* out) {
  rlx_relax_constant_t* c = as_const(e);
  if (!c || !rlx_dtype_eq(c->dtype, rlx_dt_float32()) || c->nbytes != 4) return false;
  memcpy(out, c->data, 4);
  return true;
}

/* The scale and uint8 zero point of a Q / DQ call (scalar constants). */
static bool q_params(const rlx_relax_call_t* c, float* s, int32_t* zp) {
  rlx_relax_constant_t* z = as_const(c->args[2]);
  if (!scalar_f32(c->args[1], s) || !(*s > 0) || !isfinite(*s) || !z || z->nbytes != 1 ||
      !rlx_dtype_eq(z->dtype, rlx_dtype(RLX_DT_UINT, 8, 1)))
    return false;
  *zp = ((const uint8_t*)z->data)[0];
  return true;
}

/* Q(v) as QuantizeLinear computes it, unclamped. */
static double quant(double v, float s, int32_t zp) { return nearbyint((double)((float)v / s)) + zp; }

static rlx_relax_expr_t* prim_i(qi_t* z, int64_t v) { return rlx_relax_prim_value(z->ctx, rlx_ir_i64(z->ctx, v)); }
static rlx_relax_expr_t* prim_f(qi_t* z, double v) {
  return rlx_relax_prim_value(z->ctx, rlx_ir_float(z->ctx, rlx_dt_float64(), v));
}

static rlx_sinfo_t* blk_sinfo(qi_t* z, int64_t n, int64_t c, int64_t h, int64_t w) {
  int64_t d[5] = {n, (c + z->nb - 1) / z->nb, h, w, z->nb};
  return rlx_sinfo_tensor_const(z->ctx, 5, d, rlx_dtype(RLX_DT_UINT, 8, 1));
}

static RLX_MUST_USE rlx_status_t* emit_packed(qi_t* z, const char* name, int n, rlx_relax_expr_t** args, rlx_sinfo_t* out_sinfo,
                                              rlx_relax_expr_t** out) {
  for (int i = 0; i < n; i++)
    if (!args[i]) return rlx_status_create(RLX_OUT_OF_MEMORY, "quantize_integer: a constant of %s could not be allocated", name);
  rlx_relax_var_t* v = NULL;
  RLX_RETURN_IF_ERROR(rlx_bb_emit(z->bb, rlx_relax_call_dps_packed(z->ctx, name, n, args, out_sinfo), NULL, &v));
  *out = &v->hdr;
  return NULL;
}

static rlx_relax_expr_t* const1(qi_t* z, rlx_dtype_t t, int64_t n, const void* data) {
  int64_t shape[1] = {n};
  return rlx_relax_constant(z->ctx, t, 1, shape, data, (size_t)n * (size_t)rlx_dtype_bytes(t));
}

/* ------------------------------------------------------------------ materializing */

static RLX_MUST_USE rlx_status_t* materialize_uses(qi_t* z, const rlx_relax_expr_t* e);

/* Emits v's deferred binding (a uint8 Q var from its blocked form), after what it reads. */
static RLX_MUST_USE rlx_status_t* materialize(qi_t* z, rlx_relax_var_t* v) {
  vinfo_t* i = info_of(z, &v->hdr);
  if (!i || !i->deferred) return NULL;
  rlx_relax_binding_t* b = i->deferred;
  i->deferred = NULL;
  if (i->q) {
    rlx_relax_expr_t* args[1] = {i->q->blk};
    rlx_relax_expr_t* call = rlx_relax_call_dps_packed(z->ctx, "rlx.nn.qnchwc_to_nchw", 1, args, v->hdr.sinfo);
    return rlx_bb_emit_binding(z->bb, rlx_relax_var_binding(z->ctx, v, call));
  }
  RLX_RETURN_IF_ERROR(materialize_uses(z, b->value));
  return rlx_bb_emit_binding(z->bb, b);
}

static rlx_status_t* materialize_cb(void* user, rlx_relax_var_t* v) { return materialize(user, v); }

/* Materializes every var that e reads. */
static RLX_MUST_USE rlx_status_t* materialize_uses(qi_t* z, const rlx_relax_expr_t* e) {
  return pass_each_var(e, materialize_cb, z);
}

/* ------------------------------------------------------------------ matching */

/* The int8 values and per-channel scales of a float OIHW weight that is int8 values times a
 * scale per output channel (or one scale), or false. */
static bool int8_weight(qi_t* z, const rlx_relax_constant_t* k, int64_t oc, int8_t** out_w, float** out_s) {
  const int64_t per = (int64_t)(k->nbytes / 4) / oc;
  const float* w = k->data;
  int8_t* q = RLX_NEW_ARRAY(z->ctx, int8_t, oc * per);
  float* s = RLX_NEW_ARRAY(z->ctx, float, oc);
  float all = 0;
  for (int64_t i = 0; i < oc * per; i++) all = fabsf(w[i]) > all ? fabsf(w[i]) : all;
  for (int pass = 0; pass < 2; pass++) { /* a scale per channel, else the tensor's */
    bool ok = true;
    for (int64_t o = 0; o < oc && ok; o++) {
      float m = 0;
      for (int64_t i = 0; i < per; i++) m = fabsf(w[o * per + i]) > m ? fabsf(w[o * per + i]) : m;
      if (pass == 1) m = all;
      s[o] = m > 0 ? m / 127.0f : 1.0f;
      for (int64_t i = 0; i < per && ok; i++) {
        const float r = w[o * per + i] / s[o], n = nearbyintf(r);
        ok = fabsf(r - n) <= 1e-3f && fabsf(n) <= 127;
        q[o * per + i] = (int8_t)n;
      }
    }
    if (ok) return *out_w = q, *out_s = s, true;
  }
  return false;
}

static chain_t* new_chain(qi_t* z, ch_kind_t kind, const int64_t* yd) {
  chain_t* ch = RLX_NEW(z->ctx, chain_t);
  memset(ch, 0, sizeof(*ch));
  ch->kind = kind;
  ch->lo = -INFINITY, ch->hi = INFINITY;
  ch->n = yd[0], ch->c = yd[1], ch->h = yd[2], ch->w = yd[3];
  return ch;
}

/* The quantized tensor a dequantized var stands for, or NULL. */
static const qt_t* dq_of(qi_t* z, const rlx_relax_expr_t* e) {
  vinfo_t* i = info_of(z, e);
  return i && i->dq && i->dq->cbi == z->nb ? i->dq : NULL;
}

/* A chain var open to more ops: only this reader, and its binding not emitted. */
static chain_t* open_chain(qi_t* z, const rlx_relax_expr_t* e) {
  vinfo_t* i = info_of(z, e);
  return i && i->ch && i->deferred && uses(z, e) == 1 ? i->ch : NULL;
}

/* DQ(w, scale, 0) of a constant int8 weight of oc output channels (scale scalar or per
 * channel along axis 0, zero point 0): *out_w, *out_s get its values and per-channel scales. */
static bool dq_weight(qi_t* z, const rlx_relax_call_t* c, int64_t oc, const int8_t** out_w, const float** out_s) {
  rlx_relax_constant_t *w = as_const(c->args[0]), *s = as_const(c->args[1]), *zp = as_const(c->args[2]);
  if (!w || !s || !zp || !rlx_dtype_eq(w->dtype, rlx_dtype(RLX_DT_INT, 8, 1)) || !rlx_dtype_eq(s->dtype, rlx_dt_float32()) ||
      w->ndim < 1 || w->shape[0] != oc)
    return false;
  const int64_t ns = (int64_t)s->nbytes / 4;
  if (ns != 1 && (ns != oc || onn_attr_int(c, "axis", -1) != 0)) return false;
  for (size_t i = 0; i < zp->nbytes; i++)
    if (((const uint8_t*)zp->data)[i]) return false;
  const int8_t* q = w->data;
  for (size_t i = 0; i < w->nbytes; i++)
    if (q[i] == -128) return false; /* the AVX2 / AVX-512BW product step needs weights in [-127, 127] */
  float* sc = RLX_NEW_ARRAY(z->ctx, float, oc);
  for (int64_t o = 0; o < oc; o++) sc[o] = ((const float*)s->data)[ns == 1 ? 0 : o];
  *out_w = q, *out_s = sc;
  return true;
}

static chain_t* try_conv(qi_t* z, const rlx_relax_call_t* c, const int64_t* yd) {
  vinfo_t* xi = info_of(z, c->args[0]);
  const qt_t* x = xi ? xi->dq : NULL; /* of any block: a first layer reads NCHW4c */
  rlx_relax_constant_t* wc = as_const(c->args[1]);
  vinfo_t* wi = info_of(z, c->args[1]);
  int64_t xd[4], wd[4];
  if (!x || (!wc && !(wi && wi->wq)) || !static4(c->args[1], rlx_dt_float32(), wd) ||
      !static4(c->args[0], rlx_dt_float32(), xd))
    return NULL;
  if (strcmp(onn_attr_str(c, "data_layout", "NCHW"), "NCHW") || strcmp(onn_attr_str(c, "kernel_layout", "OIHW"), "OIHW"))
    return NULL;
  const char* ol = onn_attr_str(c, "out_layout", "NCHW");
  if (*ol && strcmp(ol, "NCHW")) return NULL;
  int64_t s[2], pad[4], dil[2];
  if (onn_attr_ints(c, "strides", 2, 1, s) || onn_attr_ints(c, "padding", 4, 0, pad) || onn_attr_ints(c, "dilation", 2, 1, dil))
    return NULL;
  const int64_t groups = onn_attr_int(c, "groups", 1);
  const bool dw = groups > 1 && groups == xd[1] && wd[0] == xd[1] && wd[1] == 1;
  if ((groups != 1 && !dw) || (dw && x->cbi != z->nb)) return NULL;
  chain_t* ch = new_chain(z, CH_CONV, yd);
  if (wc && !int8_weight(z, wc, wd[0], (int8_t**)&ch->wq, (float**)&ch->ws)) return NULL;
  if (!wc) ch->wq = wi->wq, ch->ws = wi->ws;
  ch->in[0] = x, ch->n_in = 1, ch->depthwise = dw, ch->kh = wd[2], ch->kw = wd[3];
  int64_t g[6] = {s[0], s[1], pad[0], pad[1], dil[0], dil[1]};
  memcpy(ch->g, g, sizeof(g));
  return ch;
}

/* matmul(DQ(x) viewed as [N, K], W) with W the transpose of a [O, K] int8 weight (DQ of a
 * constant, or a float constant: permute_dims(W) as ONNX's Gemm with transB imports) or a
 * float constant [K, O]: a 1x1 convolution over [N, K, 1, 1]. */
static chain_t* try_gemm(qi_t* z, const rlx_relax_call_t* c, const int64_t* yd) {
  const qt_t* x = dq_of(z, c->args[0]);
  int64_t xd[4];
  if (!x || x->h != 1 || x->w != 1 || !static_nc(c->args[0], rlx_dt_float32(), xd) || xd[1] != x->c) return NULL;
  const int64_t o = yd[1], k = xd[1];
  vinfo_t* wi = info_of(z, c->args[1]);
  chain_t* ch = new_chain(z, CH_CONV, yd);
  if (wi && wi->perm) { /* permute_dims of [O, K] */
    vinfo_t* pi = info_of(z, wi->perm);
    rlx_relax_constant_t* wc = as_const(wi->perm);
    if (pi && pi->wq && first_dim(wi->perm) == o)
      ch->wq = pi->wq, ch->ws = pi->ws;
    else if (!(wc && wc->ndim == 2 && wc->shape[0] == o && wc->shape[1] == k &&
               int8_weight(z, wc, o, (int8_t**)&ch->wq, (float**)&ch->ws)))
      return NULL;
  } else { /* a float constant [K, O] */
    rlx_relax_constant_t* wc = as_const(c->args[1]);
    if (!wc || !rlx_dtype_eq(wc->dtype, rlx_dt_float32()) || wc->ndim != 2 || wc->shape[0] != k || wc->shape[1] != o)
      return NULL;
    float* t = RLX_NEW_ARRAY(z->ctx, float, o * k);
    for (int64_t i = 0; i < k; i++)
      for (int64_t j = 0; j < o; j++) t[j * k + i] = ((const float*)wc->data)[i * o + j];
    int64_t shape[2] = {o, k};
    rlx_relax_constant_t* tc = (rlx_relax_constant_t*)rlx_relax_constant(z->ctx, rlx_dt_float32(), 2, shape, t, (size_t)(o * k) * 4);
    if (!tc || !int8_weight(z, tc, o, (int8_t**)&ch->wq, (float**)&ch->ws)) return NULL;
  }
  ch->in[0] = x, ch->n_in = 1, ch->kh = ch->kw = 1;
  int64_t g[6] = {1, 1, 0, 0, 1, 1};
  memcpy(ch->g, g, sizeof(g));
  return ch;
}

/* The float values of a constant computed from constants, or NULL: a float32 constant, an
 * expand_dims / reshape of one, DQ of a constant int32 (a quantized bias: scale scalar or
 * 1-d, zero point 0). *out_n gets the count. */
static const float* const_values(qi_t* z, const rlx_relax_expr_t* e, int64_t* out_n) {
  rlx_relax_constant_t* k = as_const(e);
  if (k && rlx_dtype_eq(k->dtype, rlx_dt_float32())) return *out_n = (int64_t)k->nbytes / 4, (const float*)k->data;
  vinfo_t* i = info_of(z, e);
  if (i && i->fc) return *out_n = i->fc_n, i->fc;
  return NULL;
}

static bool fold_const(qi_t* z, const rlx_relax_call_t* c, const float** out, int64_t* out_n) {
  if ((is_op(c, RLX_OP_EXPAND_DIMS) || is_op(c, RLX_OP_RESHAPE)) && c->n_args >= 1)
    return (*out = const_values(z, c->args[0], out_n)) != NULL;
  if (!is_op(c, RLX_OP_DEQUANTIZE) || c->n_args != 3) return false;
  rlx_relax_constant_t *x = as_const(c->args[0]), *s = as_const(c->args[1]), *zp = as_const(c->args[2]);
  if (!x || !s || !zp || !rlx_dtype_eq(x->dtype, rlx_dt_int32()) || !rlx_dtype_eq(s->dtype, rlx_dt_float32()) || x->ndim != 1)
    return false;
  const int64_t n = (int64_t)x->nbytes / 4, ns = (int64_t)s->nbytes / 4;
  if (ns != 1 && ns != n) return false;
  for (size_t b = 0; b < zp->nbytes; b++)
    if (((const uint8_t*)zp->data)[b]) return false;
  float* v = RLX_NEW_ARRAY(z->ctx, float, n);
  for (int64_t k = 0; k < n; k++) /* as DequantizeLinear: (x - 0) * scale in float32 */
    v[k] = (float)((const int32_t*)x->data)[k] * ((const float*)s->data)[ns == 1 ? 0 : k];
  *out = v, *out_n = n;
  return true;
}

/* A per-channel bias of c channels for an NCHW tensor ((c,1,1), (1,c,1,1)) or a Gemm's
 * [N, c] result ((c,), (1,c)). */
static const float* channel_bias(qi_t* z, const rlx_relax_expr_t* e, int64_t c) {
  const rlx_sinfo_t* si = e->sinfo;
  if (!si || si->kind != RLX_SINFO_TENSOR) return NULL;
  const rlx_sinfo_tensor_t* t = (const rlx_sinfo_tensor_t*)si;
  int64_t d[4] = {0, 0, 0, 0};
  if (!t->shape || t->ndim < 1 || t->ndim > 4) return NULL;
  for (int k = 0; k < t->ndim; k++)
    if (!rlx_expr_is_const_int(t->shape[k], &d[k])) return NULL;
  const bool ok = (t->ndim == 1 && d[0] == c) || (t->ndim == 2 && d[0] == 1 && d[1] == c) || /* a Gemm's */
                  (t->ndim == 3 && d[0] == c && d[1] == 1 && d[2] == 1) ||
                  (t->ndim == 4 && d[0] == 1 && d[1] == c && d[2] == 1 && d[3] == 1);
  if (!ok) return NULL;
  int64_t n = 0;
  const float* v = const_values(z, e, &n);
  return v && n == c ? v : NULL;
}

/* An op that extends or starts a chain: the chain of v's value, or NULL. */
static chain_t* match(qi_t* z, const rlx_relax_call_t* c, const int64_t* yd) {
  if (is_op(c, RLX_OP_CONV2D) && c->n_args == 2) return try_conv(z, c, yd);
  chain_t* a = c->n_args >= 1 ? open_chain(z, c->args[0]) : NULL;
  float f;
  if (is_op(c, RLX_OP_ADD) && c->n_args == 2) {
    const float* b = channel_bias(z, c->args[1], yd[1]);
    if (a && a->kind == CH_CONV && !a->bias && isinf(a->lo) && isinf(a->hi) && b) {
      chain_t* ch = RLX_NEW(z->ctx, chain_t);
      *ch = *a;
      ch->bias = b;
      return ch;
    }
    const qt_t *x = dq_of(z, c->args[0]), *y = dq_of(z, c->args[1]);
    int64_t d0[4], d1[4];
    if (x && y && static4(c->args[0], rlx_dt_float32(), d0) && static4(c->args[1], rlx_dt_float32(), d1) &&
        memcmp(d0, yd, sizeof(d0)) == 0 && memcmp(d1, yd, sizeof(d1)) == 0) {
      chain_t* ch = new_chain(z, CH_ADD, yd);
      ch->in[0] = x, ch->in[1] = y, ch->n_in = 2;
      return ch;
    }
    return NULL;
  }
  const bool act = is_op(c, RLX_OP_RELU) || is_op(c, RLX_OP_MAXIMUM) || is_op(c, RLX_OP_MINIMUM) || is_op(c, RLX_OP_CLIP);
  if (act && a && (a->kind == CH_CONV || a->kind == CH_ADD)) {
    chain_t* ch = RLX_NEW(z->ctx, chain_t);
    *ch = *a;
    if (is_op(c, RLX_OP_RELU) && c->n_args == 1) {
      ch->lo = fmaxf(ch->lo, 0.0f);
    } else if (is_op(c, RLX_OP_MAXIMUM) && c->n_args == 2 && scalar_f32(c->args[1], &f)) {
      ch->lo = fmaxf(ch->lo, f);
    } else if (is_op(c, RLX_OP_MINIMUM) && c->n_args == 2 && scalar_f32(c->args[1], &f)) {
      ch->hi = fminf(ch->hi, f);
    } else if (is_op(c, RLX_OP_CLIP) && c->n_args == 1) {
      ch->lo = fmaxf(ch->lo, (float)onn_attr_float(c, "min", -INFINITY));
      ch->hi = fminf(ch->hi, (float)onn_attr_float(c, "max", INFINITY));
    } else {
      return NULL;
    }
    return ch;
  }
  if (is_op(c, RLX_OP_MATMUL) && c->n_args == 2) return try_gemm(z, c, yd);
  if (is_op(c, RLX_OP_MAX_POOL2D) && c->n_args == 1) {
    const qt_t* x = dq_of(z, c->args[0]);
    int64_t ps[2], st[2], dl[2], pad[4];
    if (!x || strcmp(onn_attr_str(c, "layout", "NCHW"), "NCHW") || onn_attr_ints(c, "pool_size", 2, 1, ps) ||
        onn_attr_ints(c, "strides", 2, 1, st) || onn_attr_ints(c, "dilation", 2, 1, dl) ||
        onn_attr_ints(c, "padding", 4, 0, pad))
      return NULL;
    const char* ol = onn_attr_str(c, "out_layout", "NCHW");
    if (*ol && strcmp(ol, "NCHW")) return NULL;
    chain_t* ch = new_chain(z, CH_POOL, yd);
    ch->in[0] = x, ch->n_in = 1;
    int64_t g[8] = {ps[0], ps[1], st[0], st[1], pad[0], pad[1], dl[0], dl[1]};
    memcpy(ch->g, g, sizeof(g));
    return ch;
  }
  if (is_op(c, RLX_OP_MEAN) && c->n_args == 1 && yd[2] == 1 && yd[3] == 1) {
    const qt_t* x = dq_of(z, c->args[0]);
    const rlx_attr_t* ax = rlx_attrs_get(&c->attrs, "axis");
    if (!x || !onn_attr_bool(c, "keepdims", false) || !ax || ax->kind != RLX_ATTR_INTS || ax->u.ints.n != 2) return NULL;
    int64_t a0 = ax->u.ints.v[0] < 0 ? ax->u.ints.v[0] + 4 : ax->u.ints.v[0];
    int64_t a1 = ax->u.ints.v[1] < 0 ? ax->u.ints.v[1] + 4 : ax->u.ints.v[1];
    if (!((a0 == 2 && a1 == 3) || (a0 == 3 && a1 == 2))) return NULL;
    chain_t* ch = new_chain(z, CH_MEAN, yd);
    ch->in[0] = x, ch->n_in = 1;
    return ch;
  }
  if (is_op(c, RLX_OP_CONCAT) && c->n_args == 1 && c->args[0]->kind == RLX_RELAX_TUPLE) {
    const rlx_relax_tuple_t* t = (const rlx_relax_tuple_t*)c->args[0];
    int64_t axis = onn_attr_int(c, "axis", 0);
    if ((axis != 1 && axis != -3) || t->n_fields < 1 || t->n_fields > 8) return NULL;
    chain_t* ch = new_chain(z, CH_CONCAT, yd);
    for (int k = 0; k < t->n_fields; k++) {
      const qt_t* x = dq_of(z, t->fields[k]);
      if (!x || x->c % z->nb != 0) return NULL;
      ch->in[ch->n_in++] = x;
    }
    return ch;
  }
  return NULL;
}

/* ------------------------------------------------------------------ emitting */

/* The table y = Q(DQ(x)) from (si, zi) to (so, zo), clamped to [lo, hi]. */
static rlx_relax_expr_t* requant_lut(qi_t* z, float si, int32_t zi, float so, int32_t zo) {
  uint8_t lut[256];
  for (int i = 0; i < 256; i++) {
    double q = quant((double)(((float)i - (float)zi) * si), so, zo);
    lut[i] = (uint8_t)(q < 0 ? 0 : q > 255 ? 255 : q);
  }
  return const1(z, rlx_dtype(RLX_DT_UINT, 8, 1), 256, lut);
}

/* The clamp of the output in the quantized domain: [Q(lo), Q(hi)] within [0, 255]. */
static void out_clamp(const chain_t* ch, float s, int32_t zp, int64_t* lo, int64_t* hi) {
  double l = isinf(ch->lo) ? 0 : quant(ch->lo, s, zp), h = isinf(ch->hi) ? 255 : quant(ch->hi, s, zp);
  *lo = l < 0 ? 0 : l > 255 ? 255 : (int64_t)l;
  *hi = h < 0 ? 0 : h > 255 ? 255 : (int64_t)h;
}

static RLX_MUST_USE rlx_status_t* emit_conv(qi_t* z, const chain_t* ch, float s, int32_t zp, rlx_relax_expr_t** out) {
  const qt_t* x = ch->in[0];
  const int64_t nb = z->nb, oc = ch->c, ocp = (oc + nb - 1) / nb * nb, ic = ch->depthwise ? 1 : x->c;
  const int64_t per = ic * ch->kh * ch->kw;
  int32_t* bias = RLX_NEW_ARRAY(z->ctx, int32_t, ocp);
  float* mult = RLX_NEW_ARRAY(z->ctx, float, ocp);
  memset(bias, 0, (size_t)ocp * 4);
  memset(mult, 0, (size_t)ocp * 4);
  for (int64_t o = 0; o < oc; o++) {
    int64_t sum = 0;
    for (int64_t i = 0; i < per; i++) sum += ch->wq[o * per + i];
    const double acc_scale = (double)x->s * (double)ch->ws[o];
    const int64_t qb = ch->bias ? (int64_t)nearbyint((double)ch->bias[o] / acc_scale) : 0;
    bias[o] = (int32_t)(qb - (int64_t)x->z * sum);
    mult[o] = (float)(acc_scale / (double)s);
  }
  rlx_relax_expr_t* a[14];
  int n = 0;
  a[n++] = x->blk;
  const int64_t cb = ocp / nb;
  if (ch->depthwise) {
    int32_t* w = malloc((size_t)(cb * ch->kh * ch->kw * nb) * 4);
    if (!w) return rlx_status_create(RLX_OUT_OF_MEMORY, "quantize_integer: packing a weight");
    rlx_nn_qdw_pack_weight(ch->wq, oc, ch->kh, ch->kw, nb, w);
    int64_t shape[4] = {cb, ch->kh, ch->kw, nb};
    a[n++] = rlx_relax_constant(z->ctx, rlx_dt_int32(), 4, shape, w, (size_t)(cb * ch->kh * ch->kw * nb) * 4);
    free(w);
  } else {
    const int64_t cbi = x->cbi, bytes = rlx_nn_qconv_packed_bytes(oc, ic, ch->kh, ch->kw, cbi, nb);
    int8_t* w = malloc((size_t)bytes);
    if (!w) return rlx_status_create(RLX_OUT_OF_MEMORY, "quantize_integer: packing a weight");
    rlx_nn_qconv_pack_weight(ch->wq, oc, ic, ch->kh, ch->kw, cbi, nb, w);
    int64_t shape[5] = {cb, (ic + cbi - 1) / cbi, ch->kh, ch->kw, cbi * nb};
    a[n++] = rlx_relax_constant(z->ctx, rlx_dtype(RLX_DT_INT, 8, 1), 5, shape, w, (size_t)bytes);
    free(w);
  }
  a[n++] = const1(z, rlx_dt_int32(), ocp, bias);
  a[n++] = const1(z, rlx_dt_float32(), ocp, mult);
  for (int k = 0; k < 6; k++) a[n++] = prim_i(z, ch->g[k]);
  int64_t lo, hi;
  out_clamp(ch, s, zp, &lo, &hi);
  a[n++] = prim_i(z, x->z);
  a[n++] = prim_i(z, zp);
  a[n++] = prim_i(z, lo);
  a[n++] = prim_i(z, hi);
  return emit_packed(z, ch->depthwise ? "rlx.nn.qdwconv2d_nchwc" : "rlx.nn.qconv2d_nchwc", n, a,
                     blk_sinfo(z, ch->n, ch->c, ch->h, ch->w), out);
}

/* The integer call for chain ch quantized with (s, zp): its blocked result. */
static RLX_MUST_USE rlx_status_t* emit_chain(qi_t* z, const chain_t* ch, float s, int32_t zp, rlx_relax_expr_t** out) {
  rlx_sinfo_t* ys = blk_sinfo(z, ch->n, ch->c, ch->h, ch->w);
  const qt_t* x = ch->in[0];
  int64_t lo, hi;
  switch (ch->kind) {
    case CH_CONV:
      return emit_conv(z, ch, s, zp, out);
    case CH_ADD: {
      const qt_t* y = ch->in[1];
      out_clamp(ch, s, zp, &lo, &hi);
      rlx_relax_expr_t* a[10] = {x->blk,        y->blk,        prim_f(z, x->s), prim_i(z, x->z), prim_f(z, y->s),
                                 prim_i(z, y->z), prim_f(z, s), prim_i(z, zp),   prim_i(z, lo),  prim_i(z, hi)};
      return emit_packed(z, "rlx.nn.qadd_nchwc", 10, a, ys, out);
    }
    case CH_POOL: {
      rlx_relax_expr_t* a[10];
      a[0] = x->blk;
      a[1] = requant_lut(z, x->s, x->z, s, zp);
      for (int k = 0; k < 8; k++) a[2 + k] = prim_i(z, ch->g[k]);
      return emit_packed(z, "rlx.nn.qmax_pool2d_nchwc", 10, a, ys, out);
    }
    case CH_MEAN: {
      rlx_relax_expr_t* a[5] = {x->blk, prim_f(z, x->s), prim_i(z, x->z), prim_f(z, s), prim_i(z, zp)};
      return emit_packed(z, "rlx.nn.qmean_hw_nchwc", 5, a, ys, out);
    }
    case CH_CONCAT: {
      rlx_relax_expr_t* a[16];
      for (int k = 0; k < ch->n_in; k++) {
        a[2 * k] = ch->in[k]->blk;
        a[2 * k + 1] = requant_lut(z, ch->in[k]->s, ch->in[k]->z, s, zp);
      }
      return emit_packed(z, "rlx.nn.qconcat_nchwc", 2 * ch->n_in, a, ys, out);
    }
  }
  return rlx_status_create(RLX_INTERNAL, "quantize_integer: unknown region kind");
}

static RLX_MUST_USE rlx_status_t* rewrite_binding(qi_t* z, rlx_relax_binding_t* b) {
  if (b->kind != RLX_BINDING_VAR || b->value->kind != RLX_RELAX_CALL) {
    RLX_RETURN_IF_ERROR(materialize_uses(z, b->value));
    return rlx_bb_emit_binding(z->bb, b);
  }
  rlx_relax_call_t* c = (rlx_relax_call_t*)b->value;
  rlx_relax_var_t* v = b->var;
  int64_t yd[4];
  float s;
  int32_t zp;
  if (is_op(c, RLX_OP_QUANTIZE) && c->n_args == 3 && q_params(c, &s, &zp) &&
      static_nc(&v->hdr, rlx_dtype(RLX_DT_UINT, 8, 1), yd)) {
    qt_t* q = RLX_NEW(z->ctx, qt_t);
    *q = (qt_t){NULL, s, zp, yd[0], yd[1], yd[2], yd[3], z->nb};
    vinfo_t* xi = info_of(z, c->args[0]);
    chain_t* ch = open_chain(z, c->args[0]);
    if (ch) {
      RLX_RETURN_IF_ERROR(emit_chain(z, ch, s, zp, &q->blk));
      xi->ch = NULL; /* consumed: its binding is never emitted */
    } else if (xi && xi->dq && xi->dq->s == s && xi->dq->z == zp) {
      q->blk = xi->dq->blk; /* Q(DQ(q)) with the same parameters is q */
      q->cbi = xi->dq->cbi;
    } else if (!static4(&v->hdr, rlx_dtype(RLX_DT_UINT, 8, 1), yd)) {
      RLX_RETURN_IF_ERROR(materialize_uses(z, b->value)); /* a 2-D tensor of no region: as it is */
      return rlx_bb_emit_binding(z->bb, b);
    } else {
      /* a network's input of at most 4 channels (RGB) in blocks of 4, which only a
       * convolution reads: 4 times less padding than one block of NB */
      RLX_RETURN_IF_ERROR(materialize_uses(z, c->args[0]));
      rlx_relax_expr_t* a[3] = {c->args[0], prim_f(z, s), prim_i(z, zp)};
      q->cbi = yd[1] <= 4 ? 4 : z->nb;
      int64_t d[5] = {yd[0], (yd[1] + q->cbi - 1) / q->cbi, yd[2], yd[3], q->cbi};
      rlx_sinfo_t* si = rlx_sinfo_tensor_const(z->ctx, 5, d, rlx_dtype(RLX_DT_UINT, 8, 1));
      RLX_RETURN_IF_ERROR(emit_packed(z, "rlx.nn.quantize_nchwc", 3, a, si, &q->blk));
    }
    new_info(z, v, b)->q = q;
    return NULL;
  }
  if (is_op(c, RLX_OP_DEQUANTIZE) && c->n_args == 3 && first_dim(&v->hdr) > 0) {
    const int8_t* wq;
    const float* ws;
    if (dq_weight(z, c, first_dim(&v->hdr), &wq, &ws)) {
      vinfo_t* i = new_info(z, v, b);
      i->wq = wq, i->ws = ws;
      return NULL;
    }
  }
  if (is_op(c, RLX_OP_DEQUANTIZE) && c->n_args == 3 && q_params(c, &s, &zp)) {
    vinfo_t* qi = info_of(z, c->args[0]);
    if (qi && qi->q && qi->q->s == s && qi->q->z == zp) {
      new_info(z, v, b)->dq = qi->q;
      return NULL;
    }
  }
  /* Flatten / Reshape of [N, C, 1, 1] to [N, C]: a view of the same blocked bytes */
  vinfo_t* ai = c->n_args >= 1 ? info_of(z, c->args[0]) : NULL;
  int64_t xd[4];
  if (is_op(c, RLX_OP_RESHAPE) && ai && ai->dq && ai->dq->cbi == z->nb && ai->dq->h == 1 && ai->dq->w == 1 &&
      static_nc(&v->hdr, rlx_dt_float32(), yd) && yd[0] == ai->dq->n && yd[1] == ai->dq->c) {
    new_info(z, v, b)->dq = ai->dq;
    return NULL;
  }
  /* permute_dims of a 2-D weight (axes none or [1, 0]: the transpose), for a Gemm */
  const rlx_attr_t* axes = rlx_attrs_get(&c->attrs, "axes");
  const bool transpose = !axes || (axes->kind == RLX_ATTR_INTS && axes->u.ints.n == 2 && axes->u.ints.v[0] == 1 &&
                                   axes->u.ints.v[1] == 0);
  if (is_op(c, RLX_OP_PERMUTE_DIMS) && transpose && c->n_args == 1 && first_dim(c->args[0]) > 0 && static_nc(c->args[0], rlx_dt_float32(), xd) &&
      xd[2] == 1 && !static4(c->args[0], rlx_dt_float32(), xd) && ((ai && ai->wq) || as_const(c->args[0]))) {
    new_info(z, v, b)->perm = c->args[0];
    return NULL;
  }
  const float* fc;
  int64_t fc_n;
  if (fold_const(z, c, &fc, &fc_n)) {
    vinfo_t* i = new_info(z, v, b);
    i->fc = fc, i->fc_n = fc_n;
    return NULL;
  }
  if (static_nc(&v->hdr, rlx_dt_float32(), yd)) {
    chain_t* ch = match(z, c, yd);
    if (ch) {
      if (c->n_args >= 1) {
        vinfo_t* ai = info_of(z, c->args[0]);
        if (ai && ai->ch && open_chain(z, c->args[0])) ai->ch = NULL; /* extended: the new var carries it */
      }
      new_info(z, v, b)->ch = ch;
      return NULL;
    }
  }
  RLX_RETURN_IF_ERROR(materialize_uses(z, b->value));
  return rlx_bb_emit_binding(z->bb, b);
}

static bool wanted(const rlx_relax_expr_t* v) {
  return v->kind == RLX_RELAX_CALL && rlx_relax_is_op(((const rlx_relax_call_t*)v)->op, RLX_OP_DEQUANTIZE);
}

static rlx_status_t* binding_cb(void* user, rlx_relax_binding_t* b) { return rewrite_binding(user, b); }
static rlx_status_t* uses_cb(void* user, const rlx_relax_expr_t* e) { return materialize_uses(user, e); }

static RLX_MUST_USE rlx_status_t* rewrite_func(qi_t* z, rlx_module_t* m, const char* name, const rlx_relax_func_t* f,
                                               rlx_relax_func_t** out) {
  static const pass_rewriter_t r = {wanted, binding_cb, uses_cb, materialize_cb};
  rlx_relax_expr_visit(f->body, count_use, z);
  return pass_rewrite_blocks(z->ctx, z->bb, m, name, f, &r, z, out);
}

RLX_MUST_USE rlx_status_t* rlx_pass_quantize_integer(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out) {
  rlx_module_t* m = pass_module_copy(ctx, in);
  rlx_bb_t* bb = rlx_bb_create(ctx, m);
  rlx_status_t* st = NULL;
  for (int i = 0; !st && i < m->n_funcs; i++) {
    if (m->funcs[i].kind != RLX_FUNC_RELAX) continue;
    qi_t z = {ctx, bb, {0}, {0}, rlx_target_nchwc_block(rlx_ctx_target_of(ctx))};
    rlx_relax_func_t* nf = NULL;
    st = rlx_status_annotate(rewrite_func(&z, m, m->funcs[i].name, m->funcs[i].func, &nf),
                             "quantize_integer: function '%s'", m->funcs[i].name);
    if (!st && nf) rlx_module_set(m, m->funcs[i].name, RLX_FUNC_RELAX, nf);
    rlx_ptrmap_free(&z.info);
    rlx_ptrmap_free(&z.uses);
  }
  if (st) return st;
  *out = m;
  return NULL;
}
