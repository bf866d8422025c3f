/* ONNX converters, family "random": RandomUniform, RandomUniformLike, RandomNormal,
 * RandomNormalLike, Bernoulli, and Dropout in training mode (rlx_onnx_dropout_training,
 * called by the core family's Dropout when training_mode is not a constant false).
 *
 * The numbers are a counter-based stream: element i (its flat index) of a node with seed s
 * draws u = mix(2i + k) / P in [0, 1) (k = 0, 1: two draws per element for Box-Muller),
 * where mix is a few rounds of arithmetic modulo the prime P = 2^31 - 1 with constants
 * drawn from s (see uniform01; no xor or shift: the C backend has neither). Every
 * element is computed independently, so a kernel needs no state and the TIR interpreter
 * (constant folding) and the compiled code give the same numbers. The `seed` attribute
 * picks the stream; without one the stream of seed 0 is used, so a model gives the same
 * numbers on every run (ONNX leaves an unseeded generator's numbers to the runtime).
 */
#include <string.h>

#include "onnx_internal.h"

/* The generator works modulo the prime P = 2^31 - 1 in int64 arithmetic that never
 * overflows (every product stays below 2^62): the simplifier rewrites integer expressions
 * assuming exact arithmetic, so a wrap-around hash (uint64 multiply) would not survive it. */
static const int64_t P31 = 2147483647;

/* Four stream constants in [0, P) from seed s (a float attribute), mixed on the host. */
static void seed_mix(double s, int64_t out[4]) {
  uint64_t z = 0;
  memcpy(&z, &s, sizeof(z));
  for (int k = 0; k < 4; k++) {
    z += 0x9E3779B97F4A7C15ull;
    uint64_t m = z;
    m = (m ^ (m >> 30)) * 0xBF58476D1CE4E5B9ull;
    m = (m ^ (m >> 27)) * 0x94D049BB133111EBull;
    m ^= m >> 31;
    out[k] = (int64_t)(m % (uint64_t)P31);
  }
}

static rlx_expr_t* modp(rlx_ctx_t* ctx, rlx_expr_t* e) { return rlx_ir_floormod(ctx, e, rlx_ir_i64(ctx, P31)); }
static rlx_expr_t* i64c(rlx_ctx_t* ctx, int64_t v) { return rlx_ir_i64(ctx, v); }

/* u in [0, 1) (float64, 31 bits) for draw k of element `flat` (int64): a counter in [0, P)
 * through four rounds mixing multiplication by constants, squaring (nonlinear: neighbours
 * are not correlated) and the high bits folded into the low ones. */
static rlx_expr_t* uniform01(rlx_ctx_t* ctx, rlx_expr_t* flat, const int64_t* seed, int k) {
  rlx_expr_t* z = modp(ctx, rlx_ir_add(ctx, rlx_ir_mul(ctx, flat, i64c(ctx, 2)), i64c(ctx, k + seed[0])));
  z = modp(ctx, rlx_ir_add(ctx, rlx_ir_mul(ctx, z, i64c(ctx, 48271)), i64c(ctx, seed[1])));
  z = modp(ctx, rlx_ir_add(ctx, rlx_ir_mul(ctx, z, z), i64c(ctx, seed[2])));
  z = modp(ctx, rlx_ir_add(ctx, rlx_ir_add(ctx, rlx_ir_mul(ctx, z, i64c(ctx, 69621)),
                                           rlx_ir_floordiv(ctx, z, i64c(ctx, 65536))),
                           i64c(ctx, seed[3])));
  z = modp(ctx, rlx_ir_add(ctx, rlx_ir_mul(ctx, z, z), rlx_ir_floordiv(ctx, z, i64c(ctx, 32768))));
  z = modp(ctx, rlx_ir_add(ctx, rlx_ir_mul(ctx, z, i64c(ctx, 16807)), i64c(ctx, seed[1] ^ seed[3])));
  return rlx_ir_div(ctx, rlx_ir_cast(ctx, rlx_dt_float64(), z), rlx_ir_float(ctx, rlx_dt_float64(), (double)P31));
}

/* The flat (C-order) index of idx in a tensor of the given shape, as int64. */
static rlx_expr_t* flat_index(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_var_t* const* idx) {
  rlx_expr_t* f = rlx_ir_i64(ctx, 0);
  for (int d = 0; d < ndim; d++)
    f = rlx_ir_add(ctx, rlx_ir_mul(ctx, f, rlx_ir_cast(ctx, rlx_dt_int64(), shape[d])),
                   rlx_ir_cast(ctx, rlx_dt_int64(), &idx[d]->hdr));
  return f;
}

typedef enum { RND_UNIFORM, RND_NORMAL, RND_BERNOULLI, RND_DROPOUT, RND_DROPOUT_MASK } rnd_kind_t;

typedef struct {
  rnd_kind_t kind;
  rlx_dtype_t dtype; /* of the result */
  double a, b;       /* uniform: low, high; normal: mean, scale */
  int64_t seed[4];
  int ndim;
  rlx_expr_t** shape;      /* the result's (no input: RandomUniform / RandomNormal) */
  rlx_te_tensor_t* const* in; /* Like / Bernoulli: (x); Dropout: (x, ratio, training_mode) */
  int n_in;
  bool has_ratio; /* Dropout: input 1 given (else 0.5) */
} rnd_t;

static rlx_expr_t* f64(rlx_ctx_t* ctx, double v) { return rlx_ir_float(ctx, rlx_dt_float64(), v); }

static rlx_expr_t* scalar_load(rlx_ctx_t* ctx, rlx_te_tensor_t* t) {
  rlx_expr_t** zeros = RLX_NEW_ARRAY(ctx, rlx_expr_t*, t->buffer->ndim > 0 ? t->buffer->ndim : 1);
  for (int d = 0; d < t->buffer->ndim; d++) zeros[d] = rlx_ir_i64(ctx, 0);
  return rlx_te_load(ctx, t, t->buffer->ndim, zeros);
}

static rlx_expr_t* rnd_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rnd_t* u = user;
  rlx_expr_t* flat = flat_index(ctx, u->ndim, u->shape, idx);
  rlx_expr_t* r = uniform01(ctx, flat, u->seed, 0);
  switch (u->kind) {
    case RND_UNIFORM: /* low + (high - low) * u */
      return rlx_ir_cast(ctx, u->dtype, rlx_ir_add(ctx, f64(ctx, u->a), rlx_ir_mul(ctx, f64(ctx, u->b - u->a), r)));
    case RND_NORMAL: { /* Box-Muller: mean + scale * sqrt(-2 ln(1 - u)) cos(2 pi u') */
      rlx_expr_t* one_minus = rlx_ir_sub(ctx, f64(ctx, 1.0), r); /* in (0, 1] */
      rlx_expr_t* lg = rlx_ir_call(ctx, rlx_dt_float64(), "log", 1, &one_minus);
      rlx_expr_t* rad = rlx_ir_mul(ctx, f64(ctx, -2.0), lg);
      rlx_expr_t* mag = rlx_ir_call(ctx, rlx_dt_float64(), "sqrt", 1, &rad);
      rlx_expr_t* ang = rlx_ir_mul(ctx, f64(ctx, 6.283185307179586), uniform01(ctx, flat, u->seed, 1));
      rlx_expr_t* c = rlx_ir_call(ctx, rlx_dt_float64(), "cos", 1, &ang);
      return rlx_ir_cast(ctx, u->dtype, rlx_ir_add(ctx, f64(ctx, u->a), rlx_ir_mul(ctx, f64(ctx, u->b), rlx_ir_mul(ctx, mag, c))));
    }
    case RND_BERNOULLI: { /* 1 with probability p: u < p */
      rlx_expr_t* p = rlx_ir_cast(ctx, rlx_dt_float64(), rlx_te_load(ctx, u->in[0], u->ndim, (rlx_expr_t* const*)idx));
      return rlx_ir_cast(ctx, u->dtype, rlx_ir_cmp(ctx, RLX_EXPR_LT, r, p));
    }
    case RND_DROPOUT:
    case RND_DROPOUT_MASK: { /* training: keep when u >= ratio, scaled by 1 / (1 - ratio) */
      rlx_expr_t* ratio = u->has_ratio ? rlx_ir_cast(ctx, rlx_dt_float64(), scalar_load(ctx, u->in[1])) : f64(ctx, 0.5);
      rlx_expr_t* training = rlx_ir_cmp(ctx, RLX_EXPR_NE, rlx_ir_cast(ctx, rlx_dt_int64(), scalar_load(ctx, u->in[2])),
                                        rlx_ir_i64(ctx, 0));
      rlx_expr_t* keep = rlx_ir_or(ctx, rlx_ir_not(ctx, training), rlx_ir_cmp(ctx, RLX_EXPR_GE, r, ratio));
      if (u->kind == RND_DROPOUT_MASK) return rlx_ir_cast(ctx, u->dtype, keep);
      rlx_expr_t* x = rlx_ir_cast(ctx, rlx_dt_float64(), rlx_te_load(ctx, u->in[0], u->ndim, (rlx_expr_t* const*)idx));
      rlx_expr_t* scale = rlx_ir_select(ctx, training, rlx_ir_div(ctx, f64(ctx, 1.0), rlx_ir_sub(ctx, f64(ctx, 1.0), ratio)),
                                        f64(ctx, 1.0));
      return rlx_ir_cast(ctx, u->dtype, rlx_ir_select(ctx, keep, rlx_ir_mul(ctx, x, scale), f64(ctx, 0.0)));
    }
  }
  return r;
}

static RLX_MUST_USE rlx_status_t* te_rnd(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                         rlx_te_tensor_t** out) {
  rnd_t* u = user;
  u->in = in;
  u->n_in = n;
  if (n > 0) { /* the shape of input 0 */
    u->ndim = in[0]->buffer->ndim;
    u->shape = in[0]->buffer->shape;
  }
  return *out = rlx_te_compute(ctx, u->ndim, u->shape, rnd_body, u, "random", "injective"), NULL;
}

/* dtype attribute (an ONNX elem type) or dflt; floats only unless ints_ok. */
static RLX_MUST_USE rlx_status_t* dtype_attr(const rlx_onnx_node_t* node, rlx_dtype_t dflt, bool any, rlx_dtype_t* out) {
  *out = dflt;
  if (!rlx_onnx_has_attr(node, "dtype")) return NULL;
  int64_t e = rlx_onnx_attr_int(node, "dtype", 1);
  if (!rlx_onnx_dtype_from_elem((int32_t)e, out) || (!any && out->code != RLX_DT_FLOAT))
    return rlx_onnx_error(node, "dtype %lld is not supported here", (long long)e);
  return NULL;
}

static rnd_t* rnd_new(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rnd_kind_t kind) {
  rnd_t* u = RLX_NEW(rlx_onnx_ctx(im), rnd_t);
  u->kind = kind;
  seed_mix(rlx_onnx_attr_float(node, "seed", 0.0), u->seed);
  return u;
}

/* The (float) input 0 as a tensor of known rank and dtype. */
static RLX_MUST_USE rlx_status_t* like_input(const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs, rlx_sinfo_tensor_t** out) {
  rlx_relax_expr_t* x = node->n_inputs > 0 ? inputs[0] : NULL;
  rlx_sinfo_tensor_t* t = x && x->sinfo && x->sinfo->kind == RLX_SINFO_TENSOR ? (rlx_sinfo_tensor_t*)x->sinfo : NULL;
  if (!t || t->ndim < 0 || !t->shape || rlx_dtype_is_void(t->dtype))
    return rlx_onnx_error(node, "input 0 must be a tensor of known shape and dtype");
  *out = t;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* cv_random(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                               rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  bool normal = strncmp(node->op_type, "RandomNormal", 12) == 0;
  bool like = strcmp(node->op_type + strlen(node->op_type) - 4, "Like") == 0;
  rnd_t* u = rnd_new(im, node, normal ? RND_NORMAL : RND_UNIFORM);
  u->a = rlx_onnx_attr_float(node, normal ? "mean" : "low", 0.0);
  u->b = rlx_onnx_attr_float(node, normal ? "scale" : "high", 1.0);
  if (like) {
    rlx_sinfo_tensor_t* t = NULL;
    RLX_RETURN_IF_ERROR(like_input(node, inputs, &t));
    RLX_RETURN_IF_ERROR(dtype_attr(node, t->dtype, false, &u->dtype));
    if (u->dtype.code != RLX_DT_FLOAT) return rlx_onnx_error(node, "the result must be a float tensor");
    return rlx_onnx_emit_te(im, te_rnd, u, 1, inputs, "random", &outputs[0]);
  }
  RLX_RETURN_IF_ERROR(dtype_attr(node, rlx_dt_float32(), false, &u->dtype));
  const int64_t* dims = NULL;
  int n = rlx_onnx_attr_ints(node, "shape", &dims);
  if (n < 0) return rlx_onnx_error(node, "needs the shape attribute");
  if (n > 32) return rlx_onnx_error(node, "shape has %d dims", n);
  u->ndim = n;
  u->shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n > 0 ? n : 1);
  for (int d = 0; d < n; d++) {
    if (dims[d] < 0) return rlx_onnx_error(node, "shape[%d] = %lld is negative", d, (long long)dims[d]);
    u->shape[d] = rlx_ir_i64(ctx, dims[d]);
  }
  return rlx_onnx_emit_te(im, te_rnd, u, 0, NULL, "random", &outputs[0]);
}

static RLX_MUST_USE rlx_status_t* cv_bernoulli(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                  rlx_relax_expr_t** outputs) {
  rlx_sinfo_tensor_t* t = NULL;
  RLX_RETURN_IF_ERROR(like_input(node, inputs, &t));
  if (t->dtype.code != RLX_DT_FLOAT) return rlx_onnx_error(node, "the probabilities must be a float tensor");
  rnd_t* u = rnd_new(im, node, RND_BERNOULLI);
  RLX_RETURN_IF_ERROR(dtype_attr(node, t->dtype, true, &u->dtype));
  return rlx_onnx_emit_te(im, te_rnd, u, 1, inputs, "bernoulli", &outputs[0]);
}

RLX_MUST_USE rlx_status_t* rlx_onnx_dropout_training(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                        rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_sinfo_tensor_t* t = NULL;
  RLX_RETURN_IF_ERROR(like_input(node, inputs, &t));
  if (t->dtype.code != RLX_DT_FLOAT) return rlx_onnx_error(node, "the input must be a float tensor");
  rlx_relax_expr_t* ratio = node->n_inputs > 1 ? inputs[1] : NULL;
  for (int i = 1; i < 3; i++) {
    rlx_relax_expr_t* e = i == 1 ? ratio : inputs[2];
    rlx_sinfo_tensor_t* s = e && e->sinfo && e->sinfo->kind == RLX_SINFO_TENSOR ? (rlx_sinfo_tensor_t*)e->sinfo : NULL;
    if (e && (!s || s->ndim != 0 || rlx_dtype_is_void(s->dtype)))
      return rlx_onnx_error(node, "input %d (%s) must be a scalar", i, i == 1 ? "ratio" : "training_mode");
  }
  /* one kernel per output over (x, ratio, training_mode); a missing ratio is 0.5 (x then
   * stands in for it, unread) */
  rlx_relax_expr_t* args[3] = {inputs[0], ratio ? ratio : inputs[0], inputs[2]};
  rnd_t* y = rnd_new(im, node, RND_DROPOUT);
  y->dtype = t->dtype;
  y->has_ratio = ratio != NULL;
  RLX_RETURN_IF_ERROR(rlx_onnx_emit_te(im, te_rnd, y, 3, args, "dropout", &outputs[0]));
  if (node->n_outputs < 2 || !node->outputs[1][0]) return NULL;
  rnd_t* m = rnd_new(im, node, RND_DROPOUT_MASK);
  m->dtype = rlx_dt_bool();
  m->has_ratio = y->has_ratio;
  return rlx_onnx_emit_te(im, te_rnd, m, 3, args, "dropout_mask", &outputs[1]);
}

const rlx_onnx_converter_t rlx_onnx_ops_random[] = {
    {"RandomUniform", 1, cv_random},
    {"RandomUniformLike", 1, cv_random},
    {"RandomNormal", 1, cv_random},
    {"RandomNormalLike", 1, cv_random},
    {"Bernoulli", 15, cv_bernoulli},
    {NULL, 0, NULL},
};
