/* topi elementwise ops: unary math, cast, clip, full (see basic.h). */
#include <math.h>

#include "basic.h"

static const char* const unary_names[] = {
#define RLX_TOPI_UNARY(E, N, F, RN, RP) N,
#include "unary.def"
};
static const bool unary_float_only[] = {
#define RLX_TOPI_UNARY(E, N, F, RN, RP) F,
#include "unary.def"
};
_Static_assert(sizeof(unary_names) / sizeof(unary_names[0]) == RLX_TOPI_UNARY_COUNT, "unary table");
_Static_assert(sizeof(unary_float_only) / sizeof(unary_float_only[0]) == RLX_TOPI_UNARY_COUNT, "unary table");

const char* rlx_topi_unary_name(rlx_topi_unary_t op) {
  return (unsigned)op < RLX_TOPI_UNARY_COUNT ? unary_names[op] : "?";
}
bool rlx_topi_unary_float_only(rlx_topi_unary_t op) {
  return (unsigned)op < RLX_TOPI_UNARY_COUNT && unary_float_only[op];
}

/* All output indices of x as a load index list. */
static rlx_expr_t* load_all(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_var_t* const* idx) {
  int n = x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int i = 0; i < n; i++) ix[i] = &idx[i]->hdr;
  return rlx_te_load(ctx, x, n, ix);
}

typedef struct {
  rlx_topi_unary_t op;
  rlx_te_tensor_t* x;
} unary_user_t;

static rlx_expr_t* call1(rlx_ctx_t* ctx, const char* f, rlx_expr_t* v) { return rlx_ir_call(ctx, v->dtype, f, 1, &v); }

static rlx_expr_t* unary_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  unary_user_t* u = user;
  rlx_expr_t* v = load_all(ctx, u->x, idx);
  rlx_dtype_t t = v->dtype;
  bool fl = rlx_dtype_is_float(t);
  rlx_expr_t* zero = fl ? rlx_ir_float(ctx, t, 0.0) : rlx_ir_int(ctx, t, 0);
#define F(c) rlx_ir_float(ctx, t, (c))
  switch (u->op) {
    case RLX_TOPI_RELU:
      return rlx_ir_max(ctx, v, zero);
    case RLX_TOPI_GELU: /* x * (0.5 + erf(x / sqrt(2)) * 0.5), as TVM */
      return rlx_ir_mul(
          ctx, v,
          rlx_ir_add(ctx, F(0.5), rlx_ir_mul(ctx, call1(ctx, "erf", rlx_ir_mul(ctx, v, F(M_SQRT1_2))), F(0.5))));
    case RLX_TOPI_GELU_TANH: { /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
      rlx_expr_t* x3 = rlx_ir_mul(ctx, rlx_ir_mul(ctx, v, v), v);
      rlx_expr_t* inner = rlx_ir_mul(ctx, F(0.7978845608028654), rlx_ir_add(ctx, v, rlx_ir_mul(ctx, F(0.044715), x3)));
      return rlx_ir_mul(ctx, rlx_ir_mul(ctx, F(0.5), v), rlx_ir_add(ctx, F(1.0), call1(ctx, "tanh", inner)));
    }
    case RLX_TOPI_SILU:
      return rlx_ir_mul(ctx, v, call1(ctx, "sigmoid", v));
    case RLX_TOPI_SIGMOID:
      return call1(ctx, "sigmoid", v);
    case RLX_TOPI_TANH:
      return call1(ctx, "tanh", v);
    case RLX_TOPI_EXP:
      return call1(ctx, "exp", v);
    case RLX_TOPI_LOG:
      return call1(ctx, "log", v);
    case RLX_TOPI_SQRT:
      return call1(ctx, "sqrt", v);
    case RLX_TOPI_RSQRT:
      return call1(ctx, "rsqrt", v);
    case RLX_TOPI_ERF:
      return call1(ctx, "erf", v);
    case RLX_TOPI_SIN:
      return call1(ctx, "sin", v);
    case RLX_TOPI_COS:
      return call1(ctx, "cos", v);
    case RLX_TOPI_ABS:
      if (fl) return call1(ctx, "fabs", v);
      if (t.code == RLX_DT_UINT) return v;
      return rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, v, zero), rlx_ir_sub(ctx, zero, v), v);
    case RLX_TOPI_NEGATIVE:
      return rlx_ir_sub(ctx, zero, v);
    case RLX_TOPI_FLOOR:
      return fl ? call1(ctx, "floor", v) : v;
    case RLX_TOPI_CEIL:
      return fl ? call1(ctx, "ceil", v) : v;
    /* half to even, as numpy and TVM's LLVM lowering of round (llvm.nearbyint); the
     * interpreter's "round" rounds half away from zero */
    case RLX_TOPI_ROUND:
      return fl ? call1(ctx, "nearbyint", v) : v;
    case RLX_TOPI_SIGN: {
      rlx_expr_t* one = fl ? F(1.0) : rlx_ir_int(ctx, t, 1);
      rlx_expr_t* neg = fl ? F(-1.0) : rlx_ir_int(ctx, t, -1);
      return rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_GT, v, zero), one,
                           rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, v, zero), neg, zero));
    }
    case RLX_TOPI_SQUARE:
      return rlx_ir_mul(ctx, v, v);
    case RLX_TOPI_LOGICAL_NOT:
      if (rlx_dtype_is_bool(t)) return rlx_ir_not(ctx, v);
      return rlx_ir_cmp(ctx, RLX_EXPR_EQ, v, zero);
    case RLX_TOPI_ISNAN:
    case RLX_TOPI_ISINF:
      if (fl) return rlx_ir_call(ctx, rlx_dt_bool(), u->op == RLX_TOPI_ISNAN ? "isnan" : "isinf", 1, &v);
      return rlx_ir_bool(ctx, false);
    case RLX_TOPI_ISFINITE:
      if (fl) return rlx_ir_call(ctx, rlx_dt_bool(), "isfinite", 1, &v);
      return rlx_ir_bool(ctx, true);
    case RLX_TOPI_TRUNC:
      return fl ? call1(ctx, "trunc", v) : v;
    case RLX_TOPI_BITWISE_NOT:
      return rlx_dtype_is_bool(t) ? rlx_ir_not(ctx, v) : call1(ctx, "bitwise_not", v);
    case RLX_TOPI_TAN:
      return call1(ctx, "tan", v);
    case RLX_TOPI_SINH:
      return call1(ctx, "sinh", v);
    case RLX_TOPI_COSH:
      return call1(ctx, "cosh", v);
    case RLX_TOPI_ASIN:
      return call1(ctx, "asin", v);
    case RLX_TOPI_ACOS:
      return call1(ctx, "acos", v);
    case RLX_TOPI_ATAN:
      return call1(ctx, "atan", v);
    case RLX_TOPI_ASINH:
      return call1(ctx, "asinh", v);
    case RLX_TOPI_ACOSH:
      return call1(ctx, "acosh", v);
    case RLX_TOPI_ATANH:
      return call1(ctx, "atanh", v);
    case RLX_TOPI_UNARY_COUNT:
      break;
  }
#undef F
  return v;
}

RLX_MUST_USE rlx_status_t* rlx_topi_unary(rlx_ctx_t* ctx, rlx_topi_unary_t op, rlx_te_tensor_t* x,
                                          rlx_te_tensor_t** out) {
  if ((unsigned)op >= RLX_TOPI_UNARY_COUNT || !x)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.unary: bad op or NULL input");
  rlx_dtype_t t = x->buffer->dtype;
  if (unary_float_only[op] && !rlx_dtype_is_float(t)) {
    char b[32];
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.%s: needs a float tensor, got %s", unary_names[op],
                             rlx_dtype_str(t, b));
  }
  if (op == RLX_TOPI_BITWISE_NOT && rlx_dtype_is_float(t)) {
    char b[32];
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.bitwise_not: needs an integer or bool tensor, got %s",
                             rlx_dtype_str(t, b));
  }
  unary_user_t* u = RLX_NEW(ctx, unary_user_t);
  u->op = op;
  u->x = x;
  /* TVM's names: the ops TVM writes in Python (topi/math.py, nn.relu: `lambda *i`) are
   * "compute" over i0, i1, ...; those it writes in C++ (erf, sign, logical_not) are
   * "T_<name>" over ax0, ax1, ... */
  bool cpp = op == RLX_TOPI_ERF || op == RLX_TOPI_SIGN || op == RLX_TOPI_LOGICAL_NOT || op == RLX_TOPI_BITWISE_NOT;
  const char* name = cpp ? rlx_ctx_sprintf(ctx, "T_%s", unary_names[op]) : "compute";
  *out = rlx_te_compute_named(ctx, x->buffer->ndim, x->buffer->shape, unary_body, u, name, "elemwise",
                              rlx_topi_axis_names(ctx, x->buffer->ndim, cpp ? "ax" : "i"));
  return NULL;
}

typedef struct {
  rlx_te_tensor_t* x;
  rlx_dtype_t t;
  double lo, hi;
} cast_user_t;

static rlx_expr_t* cast_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  cast_user_t* u = user;
  rlx_expr_t* v = load_all(ctx, u->x, idx);
  if (rlx_dtype_is_bool(u->t) && !rlx_dtype_is_bool(v->dtype)) {
    rlx_expr_t* zero = rlx_dtype_is_float(v->dtype) ? rlx_ir_float(ctx, v->dtype, 0) : rlx_ir_int(ctx, v->dtype, 0);
    return rlx_ir_cmp(ctx, RLX_EXPR_NE, v, zero);
  }
  return rlx_ir_cast(ctx, u->t, v);
}

RLX_MUST_USE rlx_status_t* rlx_topi_cast(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_dtype_t dtype, rlx_te_tensor_t** out) {
  if (!x || dtype.code == RLX_DT_HANDLE)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.cast: NULL input or bad target dtype");
  cast_user_t* u = RLX_NEW(ctx, cast_user_t);
  u->x = x;
  u->t = dtype;
  *out = rlx_te_compute_named(ctx, x->buffer->ndim, x->buffer->shape, cast_body, u, "T_cast", "elemwise",
                              rlx_topi_axis_names(ctx, x->buffer->ndim, "ax"));
  return NULL;
}

/* A double as a constant of dtype t (ints: truncated toward zero, saturated). */
static rlx_expr_t* const_of(rlx_ctx_t* ctx, rlx_dtype_t t, double v) {
  if (rlx_dtype_is_float(t)) return rlx_ir_float(ctx, t, v);
  if (rlx_dtype_is_bool(t)) return rlx_ir_bool(ctx, v != 0);
  if (isnan(v)) v = 0;
  if (v > 9.2e18) v = 9.2e18;
  if (v < -9.2e18) v = -9.2e18;
  int64_t i = (int64_t)v;
  if (t.code == RLX_DT_UINT && t.bits < 64) {
    int64_t hi = (int64_t)((1ull << t.bits) - 1);
    i = i < 0 ? 0 : i > hi ? hi : i;
  } else if (t.code == RLX_DT_INT && t.bits < 64) {
    int64_t hi = (int64_t)((1ull << (t.bits - 1)) - 1);
    i = i < -hi - 1 ? -hi - 1 : i > hi ? hi : i;
  }
  return rlx_ir_int(ctx, t, i);
}

static rlx_expr_t* clip_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  cast_user_t* u = user;
  rlx_expr_t* v = load_all(ctx, u->x, idx);
  return rlx_ir_min(ctx, rlx_ir_max(ctx, v, const_of(ctx, v->dtype, u->lo)), const_of(ctx, v->dtype, u->hi));
}

RLX_MUST_USE rlx_status_t* rlx_topi_clip(rlx_ctx_t* ctx, rlx_te_tensor_t* x, double lo, double hi,
                                         rlx_te_tensor_t** out) {
  if (!x || rlx_dtype_is_bool(x->buffer->dtype))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.clip: needs a numeric tensor");
  cast_user_t* u = RLX_NEW(ctx, cast_user_t);
  u->x = x;
  u->lo = lo;
  u->hi = hi;
  *out = rlx_te_compute(ctx, x->buffer->ndim, x->buffer->shape, clip_body, u, "compute", "elemwise");
  return NULL;
}

typedef struct {
  rlx_dtype_t t;
  double value;
  rlx_te_tensor_t* fill;
} full_user_t;

static rlx_expr_t* full_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  (void)idx;
  full_user_t* u = user;
  if (!u->fill) return const_of(ctx, u->t, u->value);
  rlx_expr_t* v = rlx_te_load(ctx, u->fill, 0, NULL);
  if (rlx_dtype_is_bool(u->t) && !rlx_dtype_is_bool(v->dtype)) {
    rlx_expr_t* zero = rlx_dtype_is_float(v->dtype) ? rlx_ir_float(ctx, v->dtype, 0) : rlx_ir_int(ctx, v->dtype, 0);
    return rlx_ir_cmp(ctx, RLX_EXPR_NE, v, zero);
  }
  return rlx_ir_cast(ctx, u->t, v);
}

RLX_MUST_USE rlx_status_t* rlx_topi_full(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_dtype_t dtype,
                                         const double* value, rlx_te_tensor_t* fill, rlx_te_tensor_t** out) {
  if (ndim < 0 || (ndim > 0 && !shape) || (!value && !fill) || dtype.code == RLX_DT_HANDLE)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.full: bad shape, dtype or fill value");
  if (fill && fill->buffer->ndim != 0)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.full: the fill value must be a 0-d tensor, got rank %d",
                             fill->buffer->ndim);
  full_user_t* u = RLX_NEW(ctx, full_user_t);
  u->t = dtype;
  u->value = value ? *value : 0;
  u->fill = value ? NULL : fill;
  *out = rlx_te_compute(ctx, ndim, shape, full_body, u, "T_full", "elemwise");
  return NULL;
}
