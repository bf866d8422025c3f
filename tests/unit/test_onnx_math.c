/* ONNX "math" converters (src/frontend/onnx/ops_math*.c), end to end through the importer:
 * each test writes a one-node ModelProto (a small protobuf encoder below) whose inputs are
 * initializers, imports it with rlx_onnx_import_bytes — a node whose inputs are all
 * constants folds into a Constant at import time (legalize + TIR interpreter) — and compares
 * the constant with a C oracle (|out - ref| <= 1e-5 + 1e-5 |ref|; ints exact). The semantics
 * checked are the ones that differ between opsets or are easy to get wrong: legacy
 * broadcast with axis, Pow with mixed dtypes, Mod's fmod, Round half to even, the
 * activations' attributes, Clip before and after opset 11, Softmax before opset 13 (coerced
 * to 2-D) and after, Hardmax, reductions with axes as attribute / input / empty with noop,
 * LogSumExp, ArgMax's select_last_index, CumSum exclusive+reverse, IsInf, BitShift, Cast,
 * Einsum (batch matmul, diagonal under an ellipsis, implicit output), Max/Min of uint8;
 * and errors that name the node. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/onnx/onnx_import.h"
#include "test.h"

/* ------------------------------------------------------------------ protobuf writer */
typedef struct {
  uint8_t* p;
  size_t n, cap;
} pb_t;

static void pb_put(pb_t* b, const void* d, size_t n) {
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2 + 64;
    b->p = realloc(b->p, b->cap);
  }
  memcpy(b->p + b->n, d, n);
  b->n += n;
}
static void pb_varint(pb_t* b, uint64_t v) {
  do {
    uint8_t c = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (v) c |= 0x80;
    pb_put(b, &c, 1);
  } while (v);
}
static void pb_tag(pb_t* b, int field, int wt) { pb_varint(b, (uint64_t)field << 3 | (uint64_t)wt); }
static void pb_int(pb_t* b, int field, int64_t v) {
  pb_tag(b, field, 0);
  pb_varint(b, (uint64_t)v);
}
static void pb_bytes(pb_t* b, int field, const void* d, size_t n) {
  pb_tag(b, field, 2);
  pb_varint(b, n);
  pb_put(b, d, n);
}
static void pb_str(pb_t* b, int field, const char* s) { pb_bytes(b, field, s, strlen(s)); }
static void pb_msg(pb_t* b, int field, pb_t* m) {
  pb_bytes(b, field, m->p, m->n);
  free(m->p);
  memset(m, 0, sizeof *m);
}
static void pb_float(pb_t* b, int field, float f) {
  pb_tag(b, field, 5);
  pb_put(b, &f, 4);
}

/* ONNX element types used here. */
enum { T_FLOAT = 1, T_UINT8 = 2, T_INT32 = 6, T_INT64 = 7, T_STRING = 8, T_BOOL = 9, T_DOUBLE = 11 };

static size_t elem_size(int t) {
  return t == T_FLOAT || t == T_INT32 ? 4 : t == T_UINT8 || t == T_BOOL ? 1 : 8;
}

typedef struct {
  int elem;
  int ndim;
  int64_t dims[4];
  const void* data; /* NULL = omitted optional input */
} tin_t;

typedef struct {
  const char* name;
  char kind; /* 'i' int, 'f' float, 's' string, 'I' ints */
  int64_t i;
  float f;
  const char* s;
  int n;
  const int64_t* ints;
} tattr_t;

/* A ModelProto with one node op (opset) over initializers in[0..n_in) and n_out outputs. */
static pb_t make_model_x(int opset, const char* op, int n_attr, const tattr_t* attrs, int n_in, const tin_t* in,
                         int n_out, const char* x_dims);
static pb_t make_model(int opset, const char* op, int n_attr, const tattr_t* attrs, int n_in, const tin_t* in,
                       int n_out) {
  return make_model_x(opset, op, n_attr, attrs, n_in, in, n_out, NULL);
}

/* With x_dims ("N,3,4": dim_params and dim_values) the node's first input is a float graph
 * input "x" of that shape, followed by the initializers in[]. */
static pb_t make_model_x(int opset, const char* op, int n_attr, const tattr_t* attrs, int n_in, const tin_t* in,
                         int n_out, const char* x_dims) {
  pb_t node = {0}, graph = {0}, model = {0}, m = {0};
  if (x_dims) pb_str(&node, 1, "x");
  for (int i = 0; i < n_in; i++) {
    char name[16];
    snprintf(name, sizeof name, "in%d", i);
    pb_str(&node, 1, in[i].data ? name : "");
  }
  for (int i = 0; i < n_out; i++) {
    char name[16];
    snprintf(name, sizeof name, "out%d", i);
    pb_str(&node, 2, name);
  }
  pb_str(&node, 3, "n0");
  pb_str(&node, 4, op);
  for (int a = 0; a < n_attr; a++) {
    const tattr_t* t = &attrs[a];
    pb_str(&m, 1, t->name);
    if (t->kind == 'i') pb_int(&m, 3, t->i), pb_int(&m, 20, 2);
    if (t->kind == 'f') pb_float(&m, 2, t->f), pb_int(&m, 20, 1);
    if (t->kind == 's') pb_str(&m, 4, t->s), pb_int(&m, 20, 3);
    if (t->kind == 'I') {
      for (int k = 0; k < t->n; k++) pb_int(&m, 8, t->ints[k]);
      pb_int(&m, 20, 7);
    }
    pb_msg(&node, 5, &m);
  }
  pb_msg(&graph, 1, &node);
  pb_str(&graph, 2, "g");
  for (int i = 0; i < n_in; i++) {
    if (!in[i].data) continue;
    size_t count = 1;
    for (int d = 0; d < in[i].ndim; d++) pb_int(&m, 1, in[i].dims[d]), count *= (size_t)in[i].dims[d];
    pb_int(&m, 2, in[i].elem);
    char name[16];
    snprintf(name, sizeof name, "in%d", i);
    pb_str(&m, 8, name);
    pb_bytes(&m, 9, in[i].data, count * elem_size(in[i].elem));
    pb_msg(&graph, 5, &m);
  }
  if (x_dims) { /* ValueInfo{name, type: TypeProto{tensor_type{elem_type, shape{dim...}}}} */
    pb_t shape = {0}, tt = {0}, type = {0}, dim = {0};
    for (const char* p = x_dims; *p;) {
      const char* e = strchr(p, ',');
      size_t n = e ? (size_t)(e - p) : strlen(p);
      if (*p >= '0' && *p <= '9') pb_int(&dim, 1, atoll(p));
      else pb_bytes(&dim, 2, p, n);
      pb_msg(&shape, 1, &dim);
      p += n + (e ? 1 : 0);
    }
    pb_int(&tt, 1, T_FLOAT);
    pb_msg(&tt, 2, &shape);
    pb_msg(&type, 1, &tt);
    pb_str(&m, 1, "x");
    pb_msg(&m, 2, &type);
    pb_msg(&graph, 11, &m);
  }
  for (int i = 0; i < n_out; i++) {
    char name[16];
    snprintf(name, sizeof name, "out%d", i);
    pb_str(&m, 1, name);
    pb_msg(&graph, 12, &m);
  }
  pb_int(&model, 1, 8);
  pb_str(&m, 1, "");
  pb_int(&m, 2, opset);
  pb_msg(&model, 8, &m);
  pb_msg(&model, 7, &graph);
  return model;
}

/* ------------------------------------------------------------------ running a model */
/* The constant that expression e is (following var bindings of f's body). */
static rlx_relax_constant_t* const_of(const rlx_relax_func_t* f, rlx_relax_expr_t* e) {
  const rlx_relax_seq_t* seq = f->body->kind == RLX_RELAX_SEQ ? (const rlx_relax_seq_t*)f->body : NULL;
  for (int guard = 0; guard < 64 && e; guard++) {
    if (e->kind == RLX_RELAX_CONSTANT) return (rlx_relax_constant_t*)e;
    if (!rlx_relax_is_var(e) || !seq) return NULL;
    rlx_relax_expr_t* next = NULL;
    for (int b = 0; b < seq->n_blocks && !next; b++)
      for (int k = 0; k < seq->blocks[b]->n_bindings; k++)
        if (&seq->blocks[b]->bindings[k]->var->hdr == e) next = seq->blocks[b]->bindings[k]->value;
    e = next;
  }
  return NULL;
}

/* Output k of the imported model as doubles (*out_n values, dtype and shape into *out_c);
 * NULL status when it folded into a constant. */
static rlx_status_t* run(int opset, const char* op, int n_attr, const tattr_t* attrs, int n_in, const tin_t* in,
                         int n_out, int k, rlx_relax_constant_t** out_c) {
  pb_t model = make_model(opset, op, n_attr, attrs, n_in, in, n_out);
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  rlx_status_t* st = rlx_onnx_import_bytes(ctx, model.p, model.n, "test.onnx", &m);
  free(model.p);
  if (st) {
    rlx_ctx_free(ctx);
    return st;
  }
  rlx_module_entry_t* e = rlx_module_find(m, "main");
  const rlx_relax_func_t* f = e ? (const rlx_relax_func_t*)e->func : NULL;
  rlx_relax_expr_t* body = f && f->body->kind == RLX_RELAX_SEQ ? ((rlx_relax_seq_t*)f->body)->body : NULL;
  if (body && rlx_relax_is_var(body) && n_out > 1) {
    /* a tuple of outputs: find the Tuple the var is bound to */
    const rlx_relax_seq_t* seq = (const rlx_relax_seq_t*)f->body;
    for (int b = 0; b < seq->n_blocks; b++)
      for (int j = 0; j < seq->blocks[b]->n_bindings; j++)
        if (&seq->blocks[b]->bindings[j]->var->hdr == body) body = seq->blocks[b]->bindings[j]->value;
  }
  if (body && body->kind == RLX_RELAX_TUPLE) body = ((rlx_relax_tuple_t*)body)->fields[k];
  rlx_relax_constant_t* c = body ? const_of(f, body) : NULL;
  if (!c) {
    rlx_ctx_free(ctx);
    return rlx_status_create(RLX_INTERNAL, "%s: the result did not fold into a constant", op);
  }
  /* copy out of the arena */
  rlx_relax_constant_t* r = malloc(sizeof *r);
  *r = *c;
  r->shape = malloc(sizeof(int64_t) * (size_t)(c->ndim > 0 ? c->ndim : 1));
  memcpy(r->shape, c->shape, sizeof(int64_t) * (size_t)c->ndim);
  r->data = malloc(c->nbytes ? c->nbytes : 1);
  memcpy(r->data, c->data, c->nbytes);
  rlx_ctx_free(ctx);
  *out_c = r;
  return NULL;
}

static double value_at(const rlx_relax_constant_t* c, size_t i) {
  rlx_dtype_t t = c->dtype;
  const void* d = c->data;
  switch (t.code) {
    case RLX_DT_FLOAT: return t.bits == 64 ? ((const double*)d)[i] : ((const float*)d)[i];
    case RLX_DT_INT:
      return t.bits == 8 ? ((const int8_t*)d)[i] : t.bits == 16 ? ((const int16_t*)d)[i]
             : t.bits == 32 ? ((const int32_t*)d)[i] : (double)((const int64_t*)d)[i];
    case RLX_DT_UINT:
      return t.bits <= 8 ? ((const uint8_t*)d)[i] : t.bits == 16 ? ((const uint16_t*)d)[i]
             : t.bits == 32 ? ((const uint32_t*)d)[i] : (double)((const uint64_t*)d)[i];
    default: return NAN;
  }
}

/* Runs the model and checks output k against ref (n values), its dtype and shape. */
static void expect(int line, int opset, const char* op, int n_attr, const tattr_t* attrs, int n_in, const tin_t* in,
                   rlx_dtype_t dtype, int ndim, const int64_t* shape, const double* ref, size_t n) {
  rlx_relax_constant_t* c = NULL;
  rlx_status_t* st = run(opset, op, n_attr, attrs, n_in, in, 1, 0, &c);
  if (st) {
    CHECK_MSG(false, "line %d: %s (opset %d): %s", line, op, opset, rlx_status_message(st));
    rlx_status_free(st);
    return;
  }
  CHECK_MSG(rlx_dtype_eq(c->dtype, dtype), "line %d: %s: dtype code %d bits %d", line, op, c->dtype.code,
            c->dtype.bits);
  bool shape_ok = c->ndim == ndim;
  for (int d = 0; shape_ok && d < ndim; d++) shape_ok = c->shape[d] == shape[d];
  CHECK_MSG(shape_ok, "line %d: %s: rank %d", line, op, c->ndim);
  double max_err = 0;
  size_t bad = n;
  for (size_t i = 0; shape_ok && i < n; i++) {
    double v = value_at(c, i), err = fabs(v - ref[i]);
    bool ok = rlx_dtype_is_float(dtype) ? (isnan(ref[i]) ? isnan(v) : isinf(ref[i]) ? v == ref[i]
                                                                       : err <= 1e-5 + 1e-5 * fabs(ref[i]))
                                        : v == ref[i];
    if (!ok && bad == n) bad = i;
    if (err > max_err && !isinf(ref[i])) max_err = err;
  }
  CHECK_MSG(shape_ok && bad == n, "line %d: %s (opset %d): element %zu is %g, expected %g (max abs err %g)", line, op,
            opset, bad, bad < n ? value_at(c, bad) : 0.0, bad < n ? ref[bad] : 0.0, max_err);
  free(c->shape);
  free(c->data);
  free(c);
}

#define F32 rlx_dt_float32()
#define EXPECT(opset, op, attrs, ins, dtype, shape, ref)                                                         \
  expect(__LINE__, opset, op, (int)(sizeof attrs / sizeof attrs[0]), attrs, (int)(sizeof ins / sizeof ins[0]), ins, \
         dtype, (int)(sizeof shape / sizeof shape[0]), shape, ref, sizeof ref / sizeof ref[0])
static const tattr_t no_attrs[1] = {{"", 0, 0, 0, NULL, 0, NULL}};
#define EXPECT0(opset, op, ins, dtype, shape, ref)                                                               \
  expect(__LINE__, opset, op, 0, no_attrs, (int)(sizeof ins / sizeof ins[0]), ins, dtype,                       \
         (int)(sizeof shape / sizeof shape[0]), shape, ref, sizeof ref / sizeof ref[0])

static float xs24[24];

/* ------------------------------------------------------------------ tests */
static void test_legacy_broadcast(void) {
  /* opset 6 Add with broadcast=1 axis=1: B (3,) lines up with A's dim 1 of (2, 3, 4) */
  static const float b[3] = {10, 20, 30};
  tin_t in[2] = {{T_FLOAT, 3, {2, 3, 4}, xs24}, {T_FLOAT, 1, {3}, b}};
  tattr_t at[2] = {{"broadcast", 'i', 1, 0, NULL, 0, NULL}, {"axis", 'i', 1, 0, NULL, 0, NULL}};
  double ref[24];
  for (int i = 0; i < 24; i++) ref[i] = xs24[i] + b[(i / 4) % 3];
  int64_t shape[3] = {2, 3, 4};
  EXPECT(6, "Add", at, in, F32, shape, ref);
  /* opset 14 numpy broadcasting: (2, 3, 4) * (4,) */
  static const float c[4] = {1, -1, 2, 0.5f};
  tin_t in2[2] = {{T_FLOAT, 3, {2, 3, 4}, xs24}, {T_FLOAT, 1, {4}, c}};
  for (int i = 0; i < 24; i++) ref[i] = (double)xs24[i] * c[i % 4];
  EXPECT0(14, "Mul", in2, F32, shape, ref);
}

static void test_pow_mod_round(void) {
  static const int32_t xi[4] = {2, 3, -2, 5};
  static const float yf[4] = {3, 2, 3, 0};
  tin_t in[2] = {{T_INT32, 1, {4}, xi}, {T_FLOAT, 1, {4}, yf}};
  double ref[4] = {8, 9, -8, 1};
  int64_t s4[1] = {4};
  EXPECT0(15, "Pow", in, rlx_dt_int32(), s4, ref);
  static const float xf[4] = {2, 4, 9, 0.5f};
  static const int64_t yi[4] = {3, -1, 0, 2};
  tin_t in2[2] = {{T_FLOAT, 1, {4}, xf}, {T_INT64, 1, {4}, yi}};
  double ref2[4] = {8, 0.25, 1, 0.25};
  EXPECT0(15, "Pow", in2, F32, s4, ref2);

  static const int32_t a[4] = {-4, 7, 5, -9}, b[4] = {3, -3, 3, -4};
  tin_t in3[2] = {{T_INT32, 1, {4}, a}, {T_INT32, 1, {4}, b}};
  double ref_floor[4] = {2, -2, 2, -1}; /* Python: -4 % 3 = 2, 7 % -3 = -2 */
  EXPECT0(13, "Mod", in3, rlx_dt_int32(), s4, ref_floor);
  tattr_t fm[1] = {{"fmod", 'i', 1, 0, NULL, 0, NULL}};
  double ref_fmod[4] = {-1, 1, 2, -1};
  EXPECT(13, "Mod", fm, in3, rlx_dt_int32(), s4, ref_fmod);
  static const float af[4] = {-4.5f, 7.25f, 5, -9}, bf[4] = {2, -3, 3, 4};
  tin_t in4[2] = {{T_FLOAT, 1, {4}, af}, {T_FLOAT, 1, {4}, bf}};
  double ref_ff[4] = {fmod(-4.5, 2), fmod(7.25, -3), 2, -1};
  EXPECT(13, "Mod", fm, in4, F32, s4, ref_ff);

  static const float r[8] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4f, -2.6f};
  tin_t in5[1] = {{T_FLOAT, 1, {8}, r}};
  double ref_r[8] = {0, 2, 2, -0.0, -2, -2, 2, -3};
  int64_t s8[1] = {8};
  EXPECT0(11, "Round", in5, F32, s8, ref_r);
}

static const float act_x[8] = {-3, -1, -0.25f, 0, 0.25f, 0.6f, 1, 4};

static void check_activation(int line, int opset, const char* op, int n_attr, const tattr_t* at,
                             double (*f)(double, const double*), const double* p) {
  tin_t in[1] = {{T_FLOAT, 1, {8}, act_x}};
  double ref[8];
  for (int i = 0; i < 8; i++) ref[i] = (float)f(act_x[i], p);
  int64_t s8[1] = {8};
  expect(line, opset, op, n_attr, n_attr ? at : no_attrs, 1, in, F32, 1, s8, ref, 8);
}

static double f_leaky(double x, const double* p) { return x < 0 ? p[0] * x : x; }
static double f_elu(double x, const double* p) { return x < 0 ? p[0] * (exp(x) - 1) : x; }
static double f_selu(double x, const double* p) { return x <= 0 ? p[1] * (p[0] * exp(x) - p[0]) : p[1] * x; }
static double f_celu(double x, const double* p) { return fmax(0, x) + fmin(0, p[0] * (exp(x / p[0]) - 1)); }
static double f_hsig(double x, const double* p) { return fmax(0, fmin(1, p[0] * x + p[1])); }
static double f_hswish(double x, const double* p) { return x * fmax(0, fmin(1, x / 6 + 0.5)); }
static double f_softplus(double x, const double* p) { return log(exp(x) + 1); }
static double f_softsign(double x, const double* p) { return x / (1 + fabs(x)); }
static double f_thr(double x, const double* p) { return x > p[0] ? x : 0; }
static double f_shrink(double x, const double* p) { return x < -p[0] ? x + p[1] : x > p[0] ? x - p[1] : 0; }
static double f_gelu(double x, const double* p) { return 0.5 * x * (1 + erf(x / sqrt(2))); }
static double f_gelu_tanh(double x, const double* p) {
  return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}
static double f_mish(double x, const double* p) { return x * tanh(log1p(exp(x))); }
static double f_recip(double x, const double* p) { return 1 / x; }

static void test_activations(void) {
  const double d_leaky[1] = {0.01}, alpha[1] = {0.3}, selu[2] = {1.67326319217681884765625, 1.05070102214813232421875};
  const double hs[2] = {0.2, 0.5}, hs2[2] = {0.5, 0.25}, shrink[2] = {0.5, 0.0}, shrink2[2] = {0.3, 0.1};
  tattr_t a_alpha[1] = {{"alpha", 'f', 0, 0.3f, NULL, 0, NULL}};
  tattr_t a_hs[2] = {{"alpha", 'f', 0, 0.5f, NULL, 0, NULL}, {"beta", 'f', 0, 0.25f, NULL, 0, NULL}};
  tattr_t a_shrink[2] = {{"lambd", 'f', 0, 0.3f, NULL, 0, NULL}, {"bias", 'f', 0, 0.1f, NULL, 0, NULL}};
  tattr_t a_tanh[1] = {{"approximate", 's', 0, 0, "tanh", 0, NULL}};
  const double alpha3[1] = {0.3f}, hs2f[2] = {0.5f, 0.25f}, shrink2f[2] = {0.3f, 0.1f};
  (void)alpha;
  (void)hs2;
  (void)shrink2;
  check_activation(__LINE__, 16, "LeakyRelu", 0, NULL, f_leaky, d_leaky);
  check_activation(__LINE__, 16, "LeakyRelu", 1, a_alpha, f_leaky, alpha3);
  check_activation(__LINE__, 6, "Elu", 1, a_alpha, f_elu, alpha3);
  check_activation(__LINE__, 6, "Selu", 0, NULL, f_selu, selu);
  check_activation(__LINE__, 12, "Celu", 1, a_alpha, f_celu, alpha3);
  check_activation(__LINE__, 6, "HardSigmoid", 0, NULL, f_hsig, hs);
  check_activation(__LINE__, 6, "HardSigmoid", 2, a_hs, f_hsig, hs2f);
  check_activation(__LINE__, 14, "HardSwish", 0, NULL, f_hswish, NULL);
  check_activation(__LINE__, 1, "Softplus", 0, NULL, f_softplus, NULL);
  check_activation(__LINE__, 1, "Softsign", 0, NULL, f_softsign, NULL);
  check_activation(__LINE__, 10, "ThresholdedRelu", 1, a_alpha, f_thr, alpha3);
  check_activation(__LINE__, 9, "Shrink", 0, NULL, f_shrink, shrink);
  check_activation(__LINE__, 9, "Shrink", 2, a_shrink, f_shrink, shrink2f);
  check_activation(__LINE__, 20, "Gelu", 0, NULL, f_gelu, NULL);
  check_activation(__LINE__, 20, "Gelu", 1, a_tanh, f_gelu_tanh, NULL);
  check_activation(__LINE__, 18, "Mish", 0, NULL, f_mish, NULL);
  /* PRelu: slope (3,) per channel of (2, 3, 4) in opset 6; numpy (4,) in opset 16 */
  static const float slope3[3] = {0.1f, 0.2f, 0.3f}, slope4[4] = {0.5f, 1, 2, 3};
  tin_t p6[2] = {{T_FLOAT, 3, {2, 3, 4}, xs24}, {T_FLOAT, 1, {3}, slope3}};
  tin_t p16[2] = {{T_FLOAT, 3, {2, 3, 4}, xs24}, {T_FLOAT, 1, {4}, slope4}};
  double r6[24], r16[24];
  for (int i = 0; i < 24; i++) {
    r6[i] = xs24[i] < 0 ? (double)((float)(slope3[(i / 4) % 3] * xs24[i])) : xs24[i];
    r16[i] = xs24[i] < 0 ? (double)((float)(slope4[i % 4] * xs24[i])) : xs24[i];
  }
  int64_t shape[3] = {2, 3, 4};
  EXPECT0(6, "PRelu", p6, F32, shape, r6);
  EXPECT0(16, "PRelu", p16, F32, shape, r16);
  static const float nz[4] = {0.5f, -2, 4, 0.125f};
  tin_t rin[1] = {{T_FLOAT, 1, {4}, nz}};
  double rr[4];
  for (int i = 0; i < 4; i++) rr[i] = f_recip(nz[i], NULL);
  int64_t s4[1] = {4};
  EXPECT0(13, "Reciprocal", rin, F32, s4, rr);
}

static void test_clip_variadic(void) {
  int64_t s8[1] = {8};
  tin_t in[1] = {{T_FLOAT, 1, {8}, act_x}};
  tattr_t at[2] = {{"min", 'f', 0, -0.5f, NULL, 0, NULL}, {"max", 'f', 0, 0.7f, NULL, 0, NULL}};
  double ref[8];
  for (int i = 0; i < 8; i++) ref[i] = fmin(fmax(act_x[i], -0.5), (float)0.7);
  EXPECT(6, "Clip", at, in, F32, s8, ref);
  /* opset 13: min as an input, max omitted */
  static const float lo = -0.5f;
  tin_t in2[3] = {{T_FLOAT, 1, {8}, act_x}, {T_FLOAT, 0, {0}, &lo}, {T_FLOAT, 0, {0}, NULL}};
  for (int i = 0; i < 8; i++) ref[i] = fmax(act_x[i], -0.5);
  EXPECT0(13, "Clip", in2, F32, s8, ref);
  /* Mean of three with broadcasting: (2, 3, 4), (4,), () */
  static const float v4[4] = {1, 2, 3, 4}, sc = 10;
  tin_t mi[3] = {{T_FLOAT, 3, {2, 3, 4}, xs24}, {T_FLOAT, 1, {4}, v4}, {T_FLOAT, 0, {0}, &sc}};
  double mr[24];
  for (int i = 0; i < 24; i++) mr[i] = ((double)xs24[i] + v4[i % 4] + 10) / 3;
  int64_t shape[3] = {2, 3, 4};
  EXPECT0(13, "Mean", mi, F32, shape, mr);
  for (int i = 0; i < 24; i++) mr[i] = fmax(fmax(xs24[i], v4[i % 4]), 10);
  EXPECT0(13, "Max", mi, F32, shape, mr);
}

static void test_softmax(void) {
  int64_t shape[3] = {2, 3, 4};
  double ref[24];
  tin_t in[1] = {{T_FLOAT, 3, {2, 3, 4}, xs24}};
  tattr_t ax1[1] = {{"axis", 'i', 1, 0, NULL, 0, NULL}};
  /* opset 11, axis 1: over the 12 values of each batch row */
  for (int b = 0; b < 2; b++) {
    double m = -INFINITY, s = 0;
    for (int i = 0; i < 12; i++) m = fmax(m, xs24[b * 12 + i]);
    for (int i = 0; i < 12; i++) s += exp(xs24[b * 12 + i] - m);
    for (int i = 0; i < 12; i++) ref[b * 12 + i] = exp(xs24[b * 12 + i] - m) / s;
  }
  EXPECT(11, "Softmax", ax1, in, F32, shape, ref);
  for (int i = 0; i < 24; i++) ref[i] = log(ref[i]);
  EXPECT(11, "LogSoftmax", ax1, in, F32, shape, ref);
  /* opset 13, axis 1: over the 3 values of dim 1 */
  for (int b = 0; b < 2; b++)
    for (int k = 0; k < 4; k++) {
      double m = -INFINITY, s = 0;
      for (int j = 0; j < 3; j++) m = fmax(m, xs24[b * 12 + j * 4 + k]);
      for (int j = 0; j < 3; j++) s += exp(xs24[b * 12 + j * 4 + k] - m);
      for (int j = 0; j < 3; j++) ref[b * 12 + j * 4 + k] = exp(xs24[b * 12 + j * 4 + k] - m) / s;
    }
  EXPECT(13, "Softmax", ax1, in, F32, shape, ref);
  /* Hardmax opset 13 along the last axis, ties to the first */
  static const float h[8] = {1, 3, 3, 0, -1, -2, -0.5f, -3};
  tin_t hin[1] = {{T_FLOAT, 2, {2, 4}, h}};
  double href[8] = {0, 1, 0, 0, 0, 0, 1, 0};
  int64_t s24[2] = {2, 4};
  EXPECT0(13, "Hardmax", hin, F32, s24, href);
}

static void test_reduce(void) {
  /* ReduceSum opset 13: axes input [-1], keepdims 0 */
  static const int64_t axm1 = -1;
  tin_t in[2] = {{T_FLOAT, 3, {2, 3, 4}, xs24}, {T_INT64, 1, {1}, &axm1}};
  tattr_t kd0[1] = {{"keepdims", 'i', 0, 0, NULL, 0, NULL}};
  double ref[24];
  for (int r = 0; r < 6; r++) {
    ref[r] = 0;
    for (int k = 0; k < 4; k++) ref[r] += xs24[r * 4 + k];
  }
  int64_t s23[2] = {2, 3};
  expect(__LINE__, 13, "ReduceSum", 1, kd0, 2, in, F32, 2, s23, ref, 6);
  /* empty axes input with noop_with_empty_axes: the input unchanged */
  tin_t in0[2] = {{T_FLOAT, 3, {2, 3, 4}, xs24}, {T_INT64, 1, {0}, &axm1}};
  tattr_t noop[1] = {{"noop_with_empty_axes", 'i', 1, 0, NULL, 0, NULL}};
  for (int i = 0; i < 24; i++) ref[i] = xs24[i];
  int64_t shape[3] = {2, 3, 4};
  EXPECT(13, "ReduceSum", noop, in0, F32, shape, ref);
  /* ReduceL2 / LogSumExp / SumSquare opset 13: axes attribute [1], keepdims 1 */
  static const int64_t ax1[1] = {1};
  tattr_t at[1] = {{"axes", 'I', 0, 0, NULL, 1, ax1}};
  tin_t x[1] = {{T_FLOAT, 3, {2, 3, 4}, xs24}};
  double l2[8], lse[8], ssq[8], lsum[8];
  for (int b = 0; b < 2; b++)
    for (int k = 0; k < 4; k++) {
      double s2 = 0, se = 0, s = 0;
      for (int j = 0; j < 3; j++) {
        double v = xs24[b * 12 + j * 4 + k];
        s2 += v * v, se += exp(v), s += fabs(v);
      }
      l2[b * 4 + k] = sqrt(s2), lse[b * 4 + k] = log(se), ssq[b * 4 + k] = s2, lsum[b * 4 + k] = log(s);
    }
  int64_t s214[3] = {2, 1, 4};
  EXPECT(13, "ReduceL2", at, x, F32, s214, l2);
  EXPECT(13, "ReduceLogSumExp", at, x, F32, s214, lse);
  EXPECT(13, "ReduceSumSquare", at, x, F32, s214, ssq);
  /* LogSum of |x| through ReduceL1 then Log is not one op: check ReduceL1 alone */
  for (int i = 0; i < 8; i++) lsum[i] = exp(lsum[i]);
  EXPECT(13, "ReduceL1", at, x, F32, s214, lsum);
  /* LogSumExp keeps -inf rows (no NaN from -inf - -inf), keepdims 0; L2 of int32 */
  static const float ninf[4] = {-INFINITY, -INFINITY, 1000, 1000};
  tin_t nin[1] = {{T_FLOAT, 2, {2, 2}, ninf}};
  tattr_t lse_at[2] = {{"axes", 'I', 0, 0, NULL, 1, ax1}, {"keepdims", 'i', 0, 0, NULL, 0, NULL}};
  double rlse[2] = {-INFINITY, 1000 + log(2)};
  int64_t s2[1] = {2};
  EXPECT(13, "ReduceLogSumExp", lse_at, nin, F32, s2, rlse);
  static const int32_t iv[4] = {3, 4, -6, 8};
  tin_t iin[1] = {{T_INT32, 2, {2, 2}, iv}};
  double rl2[2] = {5, 10};
  EXPECT(13, "ReduceL2", lse_at, iin, rlx_dt_int32(), s2, rl2);
  /* no axes, keepdims 0: a scalar */
  double total = 1;
  for (int i = 0; i < 24; i++) total *= 1 + xs24[i] / 10;
  (void)total;
  double mx = -INFINITY;
  for (int i = 0; i < 24; i++) mx = fmax(mx, xs24[i]);
  double mref[1] = {mx};
  int64_t s0[1] = {0};
  expect(__LINE__, 13, "ReduceMax", 1, kd0, 1, x, F32, 0, s0, mref, 1);
}

static void test_arg_cumsum(void) {
  static const float v[8] = {1, 5, 5, 2, 7, 7, 0, 7};
  tin_t in[1] = {{T_FLOAT, 2, {2, 4}, v}};
  tattr_t last[3] = {{"axis", 'i', 1, 0, NULL, 0, NULL}, {"keepdims", 'i', 0, 0, NULL, 0, NULL},
                     {"select_last_index", 'i', 1, 0, NULL, 0, NULL}};
  double r_last[2] = {2, 3}, r_first[2] = {1, 0};
  int64_t s2[1] = {2};
  EXPECT(13, "ArgMax", last, in, rlx_dt_int64(), s2, r_last);
  expect(__LINE__, 13, "ArgMax", 2, last, 1, in, rlx_dt_int64(), 1, s2, r_first, 2);
  double r_min[2] = {0, 2};
  expect(__LINE__, 13, "ArgMin", 3, last, 1, in, rlx_dt_int64(), 1, s2, r_min, 2);
  /* CumSum along axis 1, exclusive and reverse */
  static const int64_t axis = 1;
  tin_t cin[2] = {{T_FLOAT, 2, {2, 4}, v}, {T_INT64, 0, {0}, &axis}};
  tattr_t er[2] = {{"exclusive", 'i', 1, 0, NULL, 0, NULL}, {"reverse", 'i', 1, 0, NULL, 0, NULL}};
  double ref[8];
  for (int r = 0; r < 2; r++)
    for (int j = 0; j < 4; j++) {
      ref[r * 4 + j] = 0;
      for (int k = j + 1; k < 4; k++) ref[r * 4 + j] += v[r * 4 + k];
    }
  int64_t s24[2] = {2, 4};
  EXPECT(14, "CumSum", er, cin, F32, s24, ref);
}

static void test_logic_cast(void) {
  static const float v[6] = {INFINITY, -INFINITY, 1, NAN, -2, 0};
  tin_t in[1] = {{T_FLOAT, 1, {6}, v}};
  tattr_t neg[1] = {{"detect_positive", 'i', 0, 0, NULL, 0, NULL}};
  double r[6] = {0, 1, 0, 0, 0, 0};
  int64_t s6[1] = {6};
  EXPECT(10, "IsInf", neg, in, rlx_dt_bool(), s6, r);
  double rn[6] = {0, 0, 0, 1, 0, 0};
  EXPECT0(13, "IsNaN", in, rlx_dt_bool(), s6, rn);
  static const uint8_t a[4] = {16, 4, 1, 255}, b[4] = {1, 2, 3, 1};
  tin_t sh[2] = {{T_UINT8, 1, {4}, a}, {T_UINT8, 1, {4}, b}};
  tattr_t left[1] = {{"direction", 's', 0, 0, "LEFT", 0, NULL}}, right[1] = {{"direction", 's', 0, 0, "RIGHT", 0, NULL}};
  double rl[4] = {32, 16, 8, 254}, rr[4] = {8, 1, 0, 127};
  int64_t s4[1] = {4};
  EXPECT(11, "BitShift", left, sh, rlx_dtype(RLX_DT_UINT, 8, 1), s4, rl);
  EXPECT(11, "BitShift", right, sh, rlx_dtype(RLX_DT_UINT, 8, 1), s4, rr);
  static const float c[4] = {1.7f, -2.7f, 300, 0};
  tin_t cin[1] = {{T_FLOAT, 1, {4}, c}};
  tattr_t to_i32[1] = {{"to", 'i', T_INT32, 0, NULL, 0, NULL}};
  double rc[4] = {1, -2, 300, 0};
  EXPECT(13, "Cast", to_i32, cin, rlx_dt_int32(), s4, rc);
  tattr_t to_i32_s[1] = {{"to", 's', 0, 0, "INT32", 0, NULL}}; /* Cast-1 names the type */
  EXPECT(1, "Cast", to_i32_s, cin, rlx_dt_int32(), s4, rc);
  tattr_t to_bool[1] = {{"to", 'i', T_BOOL, 0, NULL, 0, NULL}};
  double rb[4] = {1, 1, 1, 0};
  EXPECT(13, "Cast", to_bool, cin, rlx_dt_bool(), s4, rb);
  /* Where and comparisons */
  static const uint8_t cond[4] = {1, 0, 1, 0};
  static const float y[4] = {9, 8, 7, 6};
  tin_t win[3] = {{T_BOOL, 1, {4}, cond}, {T_FLOAT, 1, {4}, c}, {T_FLOAT, 1, {4}, y}};
  double rw[4] = {1.7f, 8, 300, 6};
  EXPECT0(16, "Where", win, F32, s4, rw);
  tin_t cmp[2] = {{T_FLOAT, 1, {4}, c}, {T_FLOAT, 1, {4}, y}};
  double rle[4] = {1, 1, 0, 1};
  EXPECT0(16, "LessOrEqual", cmp, rlx_dt_bool(), s4, rle);
}

static void test_einsum_uint(void) {
  /* batch matmul (2, 3, 4) x (2, 4, 2) */
  static float b[16];
  for (int i = 0; i < 16; i++) b[i] = (float)(i % 5) - 2;
  tin_t mm[2] = {{T_FLOAT, 3, {2, 3, 4}, xs24}, {T_FLOAT, 3, {2, 4, 2}, b}};
  tattr_t eq_mm[1] = {{"equation", 's', 0, 0, "bij,bjk->bik", 0, NULL}};
  double r[12];
  for (int n = 0; n < 2; n++)
    for (int i = 0; i < 3; i++)
      for (int k = 0; k < 2; k++) {
        double s = 0;
        for (int j = 0; j < 4; j++) s += (double)xs24[n * 12 + i * 4 + j] * b[n * 8 + j * 2 + k];
        r[n * 6 + i * 2 + k] = s;
      }
  int64_t s322[3] = {2, 3, 2};
  EXPECT(12, "Einsum", eq_mm, mm, F32, s322, r);
  /* diagonal under an ellipsis: (2, 3, 3) "...ii->...i" */
  static float d[18];
  for (int i = 0; i < 18; i++) d[i] = (float)i;
  tin_t din[1] = {{T_FLOAT, 3, {2, 3, 3}, d}};
  tattr_t eq_d[1] = {{"equation", 's', 0, 0, "...ii ->...i", 0, NULL}};
  double rd[6] = {0, 4, 8, 9, 13, 17};
  int64_t s23[2] = {2, 3};
  EXPECT(12, "Einsum", eq_d, din, F32, s23, rd);
  /* implicit output: "ji" of (2, 3) sums nothing and orders i, j: a transpose */
  tin_t tin[1] = {{T_FLOAT, 2, {2, 3}, d}};
  tattr_t eq_t[1] = {{"equation", 's', 0, 0, "ji", 0, NULL}};
  double rt[6] = {0, 3, 1, 4, 2, 5};
  int64_t s32[2] = {3, 2};
  EXPECT(12, "Einsum", eq_t, tin, F32, s32, rt);
  /* inner product to a scalar */
  tin_t ip[2] = {{T_FLOAT, 1, {4}, b}, {T_FLOAT, 1, {4}, d}};
  tattr_t eq_ip[1] = {{"equation", 's', 0, 0, "i,i", 0, NULL}};
  double rip[1] = {-2 * 0 + -1 * 1 + 0 * 2 + 1 * 3};
  int64_t s0[1] = {0};
  expect(__LINE__, 12, "Einsum", 1, eq_ip, 2, ip, F32, 0, s0, rip, 1);
  /* Max / Min of uint8 */
  static const uint8_t u0[3] = {3, 2, 1}, u1[3] = {1, 4, 4};
  tin_t uin[2] = {{T_UINT8, 1, {3}, u0}, {T_UINT8, 1, {3}, u1}};
  double rmax[3] = {3, 4, 4}, rmin[3] = {1, 2, 1};
  int64_t s3[1] = {3};
  EXPECT0(13, "Max", uin, rlx_dtype(RLX_DT_UINT, 8, 1), s3, rmax);
  EXPECT0(13, "Min", uin, rlx_dtype(RLX_DT_UINT, 8, 1), s3, rmin);
}

/* The struct info main returns for a node over x of shape x_dims (symbolic dims stay
 * symbolic through the converters' reshapes and TE functions). */
static void expect_sinfo(int line, int opset, const char* op, int n_attr, const tattr_t* attrs, int n_in,
                         const tin_t* in, const char* x_dims, const char* want) {
  pb_t model = make_model_x(opset, op, n_attr, attrs, n_in, in, 1, x_dims);
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  rlx_status_t* st = rlx_onnx_import_bytes(ctx, model.p, model.n, "sym.onnx", &m);
  free(model.p);
  if (st) {
    CHECK_MSG(false, "line %d: %s: %s", line, op, rlx_status_message(st));
    rlx_status_free(st);
  } else {
    rlx_module_entry_t* e = rlx_module_find(m, "main");
    const char* got = e ? rlx_sinfo_str(ctx, ((rlx_relax_func_t*)e->func)->ret_sinfo) : "(no main)";
    CHECK_MSG(strcmp(got, want) == 0, "line %d: %s returns %s, expected %s", line, op, got, want);
    CHECK_OK(rlx_relax_well_formed(ctx, m));
  }
  rlx_ctx_free(ctx);
}

static void test_symbolic(void) {
  const char* f3 = "R.Tensor((N, 3, 4), dtype=\"float32\")";
  tattr_t ax1[1] = {{"axis", 'i', 1, 0, NULL, 0, NULL}};
  expect_sinfo(__LINE__, 11, "Softmax", 1, ax1, 0, NULL, "N,3,4", f3); /* reshape to (N, 12) and back */
  expect_sinfo(__LINE__, 11, "Hardmax", 1, ax1, 0, NULL, "N,3,4", f3);
  expect_sinfo(__LINE__, 13, "Hardmax", 0, no_attrs, 0, NULL, "N,3,4", f3);
  expect_sinfo(__LINE__, 6, "Selu", 0, no_attrs, 0, NULL, "N,3,4", f3);
  static const int64_t ax2[1] = {2};
  tattr_t lse[2] = {{"axes", 'I', 0, 0, NULL, 1, ax2}, {"keepdims", 'i', 0, 0, NULL, 0, NULL}};
  expect_sinfo(__LINE__, 13, "ReduceLogSumExp", 2, lse, 0, NULL, "N,3,4", "R.Tensor((N, 3), dtype=\"float32\")");
  static const float w[4] = {1, 2, 3, 4};
  tin_t win[1] = {{T_FLOAT, 1, {4}, w}};
  tattr_t eq[1] = {{"equation", 's', 0, 0, "nij,j->in", 0, NULL}};
  expect_sinfo(__LINE__, 12, "Einsum", 1, eq, 1, win, "N,3,4", "R.Tensor((3, N), dtype=\"float32\")");
  expect_sinfo(__LINE__, 16, "PRelu", 0, no_attrs, 1, win, "N,3,4", f3);
  static const int64_t axis = 0;
  tin_t ain[1] = {{T_INT64, 0, {0}, &axis}};
  expect_sinfo(__LINE__, 14, "CumSum", 0, no_attrs, 1, ain, "N,3,4", f3);
  tattr_t last[2] = {{"axis", 'i', 0, 0, NULL, 0, NULL}, {"select_last_index", 'i', 1, 0, NULL, 0, NULL}};
  expect_sinfo(__LINE__, 13, "ArgMax", 2, last, 0, NULL, "N,3,4", "R.Tensor((1, 3, 4), dtype=\"int64\")");
}

static void test_errors(void) {
  rlx_relax_constant_t* c = NULL;
  static const float v[2] = {1, 2};
  tin_t in[1] = {{T_FLOAT, 1, {2}, v}};
  tattr_t to_str[1] = {{"to", 'i', T_STRING, 0, NULL, 0, NULL}};
  /* a cast to strings gives a string tensor (an R.Object), which a float graph output is not */
  CHECK_ERR(run(13, "Cast", 1, to_str, 1, in, 1, 0, &c), "graph output 'out0' is not a tensor (R.Object)");
  tin_t in2[2] = {{T_FLOAT, 1, {2}, v}, {T_FLOAT, 1, {2}, v}};
  CHECK_ERR(run(13, "Mod", 0, no_attrs, 2, in2, 1, 0, &c), "fmod");
  tattr_t bad_axis[1] = {{"axis", 'i', 3, 0, NULL, 0, NULL}};
  CHECK_ERR(run(13, "Softmax", 1, bad_axis, 1, in, 1, 0, &c), "axis 3 is out of range");
  tattr_t bad_dir[1] = {{"direction", 's', 0, 0, "UP", 0, NULL}};
  static const uint8_t u[2] = {1, 2};
  tin_t uin[2] = {{T_UINT8, 1, {2}, u}, {T_UINT8, 1, {2}, u}};
  CHECK_ERR(run(11, "BitShift", 1, bad_dir, 2, uin, 1, 0, &c), "direction");
  tattr_t eq_bad[1] = {{"equation", 's', 0, 0, "i,i->", 0, NULL}};
  static const float v3[3] = {1, 2, 3};
  tin_t ein[2] = {{T_FLOAT, 1, {2}, v}, {T_FLOAT, 1, {3}, v3}};
  CHECK_ERR(run(12, "Einsum", 1, eq_bad, 2, ein, 1, 0, &c), "extents 2 and 3");
  tattr_t eq_terms[1] = {{"equation", 's', 0, 0, "i->i", 0, NULL}};
  CHECK_ERR(run(12, "Einsum", 1, eq_terms, 2, ein, 1, 0, &c), "one term per input");
  static const int64_t rep[2] = {0, 0};
  tattr_t dup[1] = {{"axes", 'I', 0, 0, NULL, 2, rep}};
  CHECK_ERR(run(11, "ReduceMean", 1, dup, 1, in, 1, 0, &c), "repeated");
  CHECK_ERR(run(13, "Selu", 0, no_attrs, 1, uin, 1, 0, &c), "float");
}

int main(void) {
  for (int i = 0; i < 24; i++) xs24[i] = (float)((i * 7 % 11) - 5) * 0.5f;
  test_legacy_broadcast();
  test_pow_mod_round();
  test_activations();
  test_clip_variadic();
  test_softmax();
  test_reduce();
  test_arg_cumsum();
  test_logic_cast();
  test_einsum_uint();
  test_symbolic();
  test_errors();
  TEST_MAIN_END();
}
