/* PrimExpr constructors (with light constant folding), children access, rebuild and
 * post-order transform. */
#include <math.h>
#include <string.h>

#include "ir.h"

static const char* const expr_names[] = {
#define X(E, S) S,
#include "expr.def"
#undef X
};
_Static_assert(sizeof(expr_names) / sizeof(expr_names[0]) == RLX_EXPR_KIND_COUNT, "expr.def table");

const char* rlx_expr_kind_name(rlx_expr_kind_t k) {
  return (unsigned)k < RLX_EXPR_KIND_COUNT ? expr_names[k] : "?";
}

#define NEW_EXPR(T, K, DT) new_expr(ctx, sizeof(T), (K), (DT))
static void* new_expr(rlx_ctx_t* ctx, size_t size, rlx_expr_kind_t k, rlx_dtype_t t) {
  rlx_expr_t* e = rlx_ctx_alloc(ctx, size);
  e->kind = k;
  e->dtype = t;
  return e;
}

/* Wraps an int64 value to the width of t (two's complement, as C would). */
static int64_t wrap_int(rlx_dtype_t t, int64_t v) {
  if (t.bits >= 64 || t.bits == 0) return v;
  if (t.bits == 1) return v != 0;
  uint64_t m = (1ull << t.bits) - 1;
  uint64_t u = (uint64_t)v & m;
  if (t.code == RLX_DT_INT && (u >> (t.bits - 1))) u |= ~m;
  return (int64_t)u;
}

rlx_expr_t* rlx_ir_int(rlx_ctx_t* ctx, rlx_dtype_t t, int64_t v) {
  rlx_int_imm_t* e = NEW_EXPR(rlx_int_imm_t, RLX_EXPR_INT_IMM, t);
  e->value = wrap_int(t, v);
  return &e->hdr;
}
rlx_expr_t* rlx_ir_i64(rlx_ctx_t* ctx, int64_t v) { return rlx_ir_int(ctx, rlx_dt_int64(), v); }
rlx_expr_t* rlx_ir_i32(rlx_ctx_t* ctx, int64_t v) { return rlx_ir_int(ctx, rlx_dt_int32(), v); }
rlx_expr_t* rlx_ir_bool(rlx_ctx_t* ctx, bool v) { return rlx_ir_int(ctx, rlx_dt_bool(), v); }

rlx_expr_t* rlx_ir_float(rlx_ctx_t* ctx, rlx_dtype_t t, double v) {
  rlx_float_imm_t* e = NEW_EXPR(rlx_float_imm_t, RLX_EXPR_FLOAT_IMM, t);
  e->value = v; /* kept at double precision, as TVM does, even for float32 */
  return &e->hdr;
}

rlx_expr_t* rlx_ir_string(rlx_ctx_t* ctx, const char* s) {
  rlx_string_imm_t* e = NEW_EXPR(rlx_string_imm_t, RLX_EXPR_STRING_IMM, rlx_dt_handle());
  e->value = rlx_ctx_strdup(ctx, s);
  return &e->hdr;
}

rlx_var_t* rlx_ir_var(rlx_ctx_t* ctx, const char* name, rlx_dtype_t t) {
  rlx_var_t* v = NEW_EXPR(rlx_var_t, RLX_EXPR_VAR, t);
  v->name = rlx_ctx_strdup(ctx, name);
  return v;
}

static bool is_const(const rlx_expr_t* e) { return e->kind == RLX_EXPR_INT_IMM || e->kind == RLX_EXPR_FLOAT_IMM; }
static double fval(const rlx_expr_t* e) {
  return e->kind == RLX_EXPR_INT_IMM ? (double)RLX_AS(const rlx_int_imm_t, e)->value
                                     : RLX_AS(const rlx_float_imm_t, e)->value;
}
static int64_t ival(const rlx_expr_t* e) { return RLX_AS(const rlx_int_imm_t, e)->value; }

/* Makes the dtypes of a and b agree: a constant adopts the other side's type. */
static void unify(rlx_ctx_t* ctx, rlx_expr_t** a, rlx_expr_t** b) {
  if (rlx_dtype_eq((*a)->dtype, (*b)->dtype)) return;
  if (is_const(*a) && !is_const(*b)) {
    *a = rlx_ir_cast(ctx, (*b)->dtype, *a);
  } else if (is_const(*b) && !is_const(*a)) {
    *b = rlx_ir_cast(ctx, (*a)->dtype, *b);
  } else if ((*a)->dtype.bits >= (*b)->dtype.bits || rlx_dtype_is_float((*a)->dtype)) {
    *b = rlx_ir_cast(ctx, (*a)->dtype, *b);
  } else {
    *a = rlx_ir_cast(ctx, (*b)->dtype, *a);
  }
}

static int64_t floordiv64(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

/* Folds two constants; NULL when it cannot (division by zero, non-arith kinds). */
static rlx_expr_t* fold(rlx_ctx_t* ctx, rlx_expr_kind_t k, rlx_expr_t* a, rlx_expr_t* b) {
  rlx_dtype_t t = a->dtype;
  if (a->kind == RLX_EXPR_INT_IMM && b->kind == RLX_EXPR_INT_IMM) {
    int64_t x = ival(a), y = ival(b), r;
    if (t.code == RLX_DT_INT && t.bits == 64 && t.lanes == 1 &&
        ((k == RLX_EXPR_ADD && __builtin_add_overflow(x, y, &r)) ||
         (k == RLX_EXPR_SUB && __builtin_sub_overflow(x, y, &r)) ||
         (k == RLX_EXPR_MUL && __builtin_mul_overflow(x, y, &r))))
      return NULL; /* kept: rlx_expr_is_int64_overflow */
    switch (k) {
      case RLX_EXPR_ADD: return rlx_ir_int(ctx, t, (int64_t)((uint64_t)x + (uint64_t)y));
      case RLX_EXPR_SUB: return rlx_ir_int(ctx, t, (int64_t)((uint64_t)x - (uint64_t)y));
      case RLX_EXPR_MUL: return rlx_ir_int(ctx, t, (int64_t)((uint64_t)x * (uint64_t)y));
      case RLX_EXPR_DIV: return y ? rlx_ir_int(ctx, t, x / y) : NULL;
      case RLX_EXPR_MOD: return y ? rlx_ir_int(ctx, t, x % y) : NULL;
      case RLX_EXPR_FLOOR_DIV: return y ? rlx_ir_int(ctx, t, floordiv64(x, y)) : NULL;
      case RLX_EXPR_FLOOR_MOD: return y ? rlx_ir_int(ctx, t, x - floordiv64(x, y) * y) : NULL;
      case RLX_EXPR_MIN: return rlx_ir_int(ctx, t, x < y ? x : y);
      case RLX_EXPR_MAX: return rlx_ir_int(ctx, t, x > y ? x : y);
      case RLX_EXPR_EQ: return rlx_ir_bool(ctx, x == y);
      case RLX_EXPR_NE: return rlx_ir_bool(ctx, x != y);
      case RLX_EXPR_LT: return rlx_ir_bool(ctx, x < y);
      case RLX_EXPR_LE: return rlx_ir_bool(ctx, x <= y);
      case RLX_EXPR_GT: return rlx_ir_bool(ctx, x > y);
      case RLX_EXPR_GE: return rlx_ir_bool(ctx, x >= y);
      case RLX_EXPR_AND: return rlx_ir_bool(ctx, x && y);
      case RLX_EXPR_OR: return rlx_ir_bool(ctx, x || y);
      default: return NULL;
    }
  }
  if (a->kind == RLX_EXPR_FLOAT_IMM && b->kind == RLX_EXPR_FLOAT_IMM) {
    double x = fval(a), y = fval(b);
    if (t.bits == 32) { /* fold as the C code would compute it: in float */
      x = (float)x;
      y = (float)y;
      switch (k) {
        case RLX_EXPR_ADD: return rlx_ir_float(ctx, t, (float)x + (float)y);
        case RLX_EXPR_SUB: return rlx_ir_float(ctx, t, (float)x - (float)y);
        case RLX_EXPR_MUL: return rlx_ir_float(ctx, t, (float)x * (float)y);
        case RLX_EXPR_DIV: return y != 0 ? rlx_ir_float(ctx, t, (float)x / (float)y) : NULL;
        default: break;
      }
    }
    switch (k) {
      case RLX_EXPR_ADD: return rlx_ir_float(ctx, t, x + y);
      case RLX_EXPR_SUB: return rlx_ir_float(ctx, t, x - y);
      case RLX_EXPR_MUL: return rlx_ir_float(ctx, t, x * y);
      case RLX_EXPR_DIV: return y != 0 ? rlx_ir_float(ctx, t, x / y) : NULL;
      case RLX_EXPR_MIN: return rlx_ir_float(ctx, t, fmin(x, y));
      case RLX_EXPR_MAX: return rlx_ir_float(ctx, t, fmax(x, y));
      case RLX_EXPR_EQ: return rlx_ir_bool(ctx, x == y);
      case RLX_EXPR_NE: return rlx_ir_bool(ctx, x != y);
      case RLX_EXPR_LT: return rlx_ir_bool(ctx, x < y);
      case RLX_EXPR_LE: return rlx_ir_bool(ctx, x <= y);
      case RLX_EXPR_GT: return rlx_ir_bool(ctx, x > y);
      case RLX_EXPR_GE: return rlx_ir_bool(ctx, x >= y);
      default: return NULL;
    }
  }
  return NULL;
}

bool rlx_expr_is_int64_overflow(const rlx_expr_t* e) {
  if ((e->kind != RLX_EXPR_ADD && e->kind != RLX_EXPR_SUB && e->kind != RLX_EXPR_MUL) || e->dtype.code != RLX_DT_INT ||
      e->dtype.bits != 64 || e->dtype.lanes != 1)
    return false;
  const rlx_binary_t* x = RLX_AS(const rlx_binary_t, e);
  return (x->a->kind == RLX_EXPR_INT_IMM || rlx_expr_is_int64_overflow(x->a)) &&
         (x->b->kind == RLX_EXPR_INT_IMM || rlx_expr_is_int64_overflow(x->b));
}

static bool is_int_value(const rlx_expr_t* e, int64_t v) { return e->kind == RLX_EXPR_INT_IMM && ival(e) == v; }

rlx_expr_t* rlx_ir_binary(rlx_ctx_t* ctx, rlx_expr_kind_t k, rlx_expr_t* a, rlx_expr_t* b) {
  unify(ctx, &a, &b);
  rlx_expr_t* f = fold(ctx, k, a, b);
  if (f) return f;
  bool is_int = rlx_dtype_is_int(a->dtype);
  if (is_int && a->dtype.lanes == 1) {
    switch (k) {
      case RLX_EXPR_ADD:
        if (is_int_value(b, 0)) return a;
        if (is_int_value(a, 0)) return b;
        break;
      case RLX_EXPR_SUB:
        if (is_int_value(b, 0)) return a;
        break;
      case RLX_EXPR_MUL:
        if (is_int_value(b, 1)) return a;
        if (is_int_value(a, 1)) return b;
        if (is_int_value(a, 0)) return a;
        if (is_int_value(b, 0)) return b;
        break;
      case RLX_EXPR_DIV:
      case RLX_EXPR_FLOOR_DIV:
        if (is_int_value(b, 1)) return a;
        break;
      case RLX_EXPR_MOD:
      case RLX_EXPR_FLOOR_MOD:
        if (is_int_value(b, 1)) return rlx_ir_int(ctx, a->dtype, 0);
        break;
      default: break;
    }
  }
  rlx_dtype_t t = a->dtype;
  if (k >= RLX_EXPR_EQ && k <= RLX_EXPR_OR) t = rlx_dtype_with_lanes(rlx_dt_bool(), a->dtype.lanes);
  rlx_binary_t* e = NEW_EXPR(rlx_binary_t, k, t);
  e->a = a;
  e->b = b;
  return &e->hdr;
}

rlx_expr_t* rlx_ir_add(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_binary(ctx, RLX_EXPR_ADD, a, b); }
rlx_expr_t* rlx_ir_sub(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_binary(ctx, RLX_EXPR_SUB, a, b); }
rlx_expr_t* rlx_ir_mul(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_binary(ctx, RLX_EXPR_MUL, a, b); }
rlx_expr_t* rlx_ir_div(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_binary(ctx, RLX_EXPR_DIV, a, b); }
rlx_expr_t* rlx_ir_floordiv(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) {
  return rlx_ir_binary(ctx, RLX_EXPR_FLOOR_DIV, a, b);
}
rlx_expr_t* rlx_ir_floormod(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) {
  return rlx_ir_binary(ctx, RLX_EXPR_FLOOR_MOD, a, b);
}
rlx_expr_t* rlx_ir_min(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_binary(ctx, RLX_EXPR_MIN, a, b); }
rlx_expr_t* rlx_ir_max(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_binary(ctx, RLX_EXPR_MAX, a, b); }
rlx_expr_t* rlx_ir_cmp(rlx_ctx_t* ctx, rlx_expr_kind_t k, rlx_expr_t* a, rlx_expr_t* b) {
  return rlx_ir_binary(ctx, k, a, b);
}
rlx_expr_t* rlx_ir_and(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) {
  if (is_int_value(a, 1)) return b;
  if (is_int_value(b, 1)) return a;
  return rlx_ir_binary(ctx, RLX_EXPR_AND, a, b);
}
rlx_expr_t* rlx_ir_or(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) {
  if (is_int_value(a, 0)) return b;
  if (is_int_value(b, 0)) return a;
  return rlx_ir_binary(ctx, RLX_EXPR_OR, a, b);
}

rlx_expr_t* rlx_ir_not(rlx_ctx_t* ctx, rlx_expr_t* a) {
  if (a->kind == RLX_EXPR_INT_IMM) return rlx_ir_bool(ctx, !ival(a));
  rlx_not_t* e = NEW_EXPR(rlx_not_t, RLX_EXPR_NOT, a->dtype);
  e->a = a;
  return &e->hdr;
}

rlx_expr_t* rlx_ir_select(rlx_ctx_t* ctx, rlx_expr_t* c, rlx_expr_t* t, rlx_expr_t* f) {
  unify(ctx, &t, &f);
  rlx_select_t* e = NEW_EXPR(rlx_select_t, RLX_EXPR_SELECT, t->dtype);
  e->cond = c;
  e->t = t;
  e->f = f;
  return &e->hdr;
}

rlx_expr_t* rlx_ir_cast(rlx_ctx_t* ctx, rlx_dtype_t t, rlx_expr_t* v) {
  if (rlx_dtype_eq(t, v->dtype)) return v;
  if (t.lanes == 1 && v->kind == RLX_EXPR_INT_IMM) {
    if (rlx_dtype_is_float(t)) return rlx_ir_float(ctx, t, (double)ival(v));
    if (t.code == RLX_DT_INT || t.code == RLX_DT_UINT) return rlx_ir_int(ctx, t, ival(v));
  }
  if (t.lanes == 1 && v->kind == RLX_EXPR_FLOAT_IMM) {
    if (rlx_dtype_is_float(t)) return rlx_ir_float(ctx, t, fval(v));
    double x = fval(v);
    if (rlx_dtype_is_bool(t)) return rlx_ir_bool(ctx, x != 0);
    if ((t.code == RLX_DT_INT || t.code == RLX_DT_UINT) && isfinite(x) && fabs(x) < 9.2e18)
      return rlx_ir_int(ctx, t, (int64_t)x);
  }
  rlx_cast_t* e = NEW_EXPR(rlx_cast_t, RLX_EXPR_CAST, t);
  e->value = v;
  return &e->hdr;
}

rlx_expr_t* rlx_ir_let(rlx_ctx_t* ctx, rlx_var_t* var, rlx_expr_t* value, rlx_expr_t* body) {
  rlx_let_t* e = NEW_EXPR(rlx_let_t, RLX_EXPR_LET, body->dtype);
  e->var = var;
  e->value = value;
  e->body = body;
  return &e->hdr;
}

struct rlx_tir_buffer { /* only the fields this file needs; full definition in tir/tir.h */
  const char* name;
  rlx_var_t* data;
  rlx_dtype_t dtype;
};

rlx_expr_t* rlx_ir_load(rlx_ctx_t* ctx, struct rlx_tir_buffer* buf, int n, rlx_expr_t* const* indices) {
  rlx_dtype_t t = buf->dtype;
  for (int i = 0; i < n; i++)
    if (indices[i]->dtype.lanes > 1) t = rlx_dtype_with_lanes(t, indices[i]->dtype.lanes);
  rlx_buffer_load_t* e = NEW_EXPR(rlx_buffer_load_t, RLX_EXPR_BUFFER_LOAD, t);
  e->buffer = buf;
  e->n_indices = n;
  e->indices = rlx_arena_memdup(&ctx->arena, indices, sizeof(*indices) * (size_t)n);
  return &e->hdr;
}

rlx_expr_t* rlx_ir_call(rlx_ctx_t* ctx, rlx_dtype_t t, const char* op, int n, rlx_expr_t* const* args) {
  rlx_call_t* e = NEW_EXPR(rlx_call_t, RLX_EXPR_CALL, t);
  e->op = rlx_ctx_strdup(ctx, op);
  e->n_args = n;
  e->args = rlx_arena_memdup(&ctx->arena, args, sizeof(*args) * (size_t)n);
  return &e->hdr;
}

rlx_expr_t* rlx_ir_reduce(rlx_ctx_t* ctx, rlx_reduce_kind_t comb, rlx_expr_t* src, int n_axis,
                          struct rlx_iter_var* const* axis, rlx_expr_t* cond) {
  rlx_reduce_t* e = NEW_EXPR(rlx_reduce_t, RLX_EXPR_REDUCE, src->dtype);
  e->combiner = comb;
  e->source = src;
  e->n_axis = n_axis;
  e->axis = rlx_arena_memdup(&ctx->arena, axis, sizeof(*axis) * (size_t)n_axis);
  e->condition = cond;
  return &e->hdr;
}

rlx_expr_t* rlx_ir_ramp(rlx_ctx_t* ctx, rlx_expr_t* base, rlx_expr_t* stride, int lanes) {
  if (!rlx_dtype_eq(base->dtype, stride->dtype)) stride = rlx_ir_cast(ctx, base->dtype, stride);
  rlx_ramp_t* e = NEW_EXPR(rlx_ramp_t, RLX_EXPR_RAMP, rlx_dtype_with_lanes(base->dtype, lanes));
  e->base = base;
  e->stride = stride;
  e->lanes = lanes;
  return &e->hdr;
}

rlx_expr_t* rlx_ir_broadcast(rlx_ctx_t* ctx, rlx_expr_t* v, int lanes) {
  rlx_broadcast_t* e = NEW_EXPR(rlx_broadcast_t, RLX_EXPR_BROADCAST, rlx_dtype_with_lanes(v->dtype, lanes));
  e->value = v;
  e->lanes = lanes;
  return &e->hdr;
}

int rlx_expr_children(const rlx_expr_t* e, rlx_expr_t** out, int max) {
  int n = 0;
#define PUT(x)                     \
  do {                             \
    if (n < max) out[n] = (x);     \
    n++;                           \
  } while (0)
  switch (e->kind) {
    case RLX_EXPR_INT_IMM:
    case RLX_EXPR_FLOAT_IMM:
    case RLX_EXPR_STRING_IMM:
    case RLX_EXPR_VAR: break;
    case RLX_EXPR_ADD:
    case RLX_EXPR_SUB:
    case RLX_EXPR_MUL:
    case RLX_EXPR_DIV:
    case RLX_EXPR_MOD:
    case RLX_EXPR_FLOOR_DIV:
    case RLX_EXPR_FLOOR_MOD:
    case RLX_EXPR_MIN:
    case RLX_EXPR_MAX:
    case RLX_EXPR_EQ:
    case RLX_EXPR_NE:
    case RLX_EXPR_LT:
    case RLX_EXPR_LE:
    case RLX_EXPR_GT:
    case RLX_EXPR_GE:
    case RLX_EXPR_AND:
    case RLX_EXPR_OR:
      PUT(RLX_AS(const rlx_binary_t, e)->a);
      PUT(RLX_AS(const rlx_binary_t, e)->b);
      break;
    case RLX_EXPR_NOT: PUT(RLX_AS(const rlx_not_t, e)->a); break;
    case RLX_EXPR_SELECT:
      PUT(RLX_AS(const rlx_select_t, e)->cond);
      PUT(RLX_AS(const rlx_select_t, e)->t);
      PUT(RLX_AS(const rlx_select_t, e)->f);
      break;
    case RLX_EXPR_CAST: PUT(RLX_AS(const rlx_cast_t, e)->value); break;
    case RLX_EXPR_LET:
      PUT(RLX_AS(const rlx_let_t, e)->value);
      PUT(RLX_AS(const rlx_let_t, e)->body);
      break;
    case RLX_EXPR_BUFFER_LOAD: {
      const rlx_buffer_load_t* l = RLX_AS(const rlx_buffer_load_t, e);
      for (int i = 0; i < l->n_indices; i++) PUT(l->indices[i]);
      break;
    }
    case RLX_EXPR_CALL: {
      const rlx_call_t* c = RLX_AS(const rlx_call_t, e);
      for (int i = 0; i < c->n_args; i++) PUT(c->args[i]);
      break;
    }
    case RLX_EXPR_REDUCE:
      PUT(RLX_AS(const rlx_reduce_t, e)->source);
      if (RLX_AS(const rlx_reduce_t, e)->condition) PUT(RLX_AS(const rlx_reduce_t, e)->condition);
      if (RLX_AS(const rlx_reduce_t, e)->init) PUT(RLX_AS(const rlx_reduce_t, e)->init);
      break;
    case RLX_EXPR_RAMP:
      PUT(RLX_AS(const rlx_ramp_t, e)->base);
      PUT(RLX_AS(const rlx_ramp_t, e)->stride);
      break;
    case RLX_EXPR_BROADCAST: PUT(RLX_AS(const rlx_broadcast_t, e)->value); break;
    case RLX_EXPR_KIND_COUNT: break;
  }
#undef PUT
  return n;
}

rlx_expr_t* rlx_expr_rebuild(rlx_ctx_t* ctx, rlx_expr_t* e, rlx_expr_t* const* kids) {
  rlx_expr_t* old[64];
  int n = rlx_expr_children(e, old, 64);
  bool same = true;
  for (int i = 0; i < n && i < 64; i++) same = same && old[i] == kids[i];
  if (same && n <= 64) return e;
  switch (e->kind) {
    case RLX_EXPR_INT_IMM:
    case RLX_EXPR_FLOAT_IMM:
    case RLX_EXPR_STRING_IMM:
    case RLX_EXPR_VAR: return e;
    case RLX_EXPR_ADD:
    case RLX_EXPR_SUB:
    case RLX_EXPR_MUL:
    case RLX_EXPR_DIV:
    case RLX_EXPR_MOD:
    case RLX_EXPR_FLOOR_DIV:
    case RLX_EXPR_FLOOR_MOD:
    case RLX_EXPR_MIN:
    case RLX_EXPR_MAX:
    case RLX_EXPR_EQ:
    case RLX_EXPR_NE:
    case RLX_EXPR_LT:
    case RLX_EXPR_LE:
    case RLX_EXPR_GT:
    case RLX_EXPR_GE:
    case RLX_EXPR_AND:
    case RLX_EXPR_OR: return rlx_ir_binary(ctx, e->kind, kids[0], kids[1]);
    case RLX_EXPR_NOT: return rlx_ir_not(ctx, kids[0]);
    case RLX_EXPR_SELECT: return rlx_ir_select(ctx, kids[0], kids[1], kids[2]);
    case RLX_EXPR_CAST: return rlx_ir_cast(ctx, e->dtype, kids[0]);
    case RLX_EXPR_LET: return rlx_ir_let(ctx, RLX_AS(rlx_let_t, e)->var, kids[0], kids[1]);
    case RLX_EXPR_BUFFER_LOAD: return rlx_ir_load(ctx, RLX_AS(rlx_buffer_load_t, e)->buffer, n, kids);
    case RLX_EXPR_CALL: return rlx_ir_call(ctx, e->dtype, RLX_AS(rlx_call_t, e)->op, n, kids);
    case RLX_EXPR_REDUCE: {
      rlx_reduce_t* r = RLX_AS(rlx_reduce_t, e);
      rlx_expr_t* out = rlx_ir_reduce(ctx, r->combiner, kids[0], r->n_axis, r->axis, r->condition ? kids[1] : NULL);
      if (r->init) RLX_AS(rlx_reduce_t, out)->init = kids[r->condition ? 2 : 1];
      return out;
    }
    case RLX_EXPR_RAMP: return rlx_ir_ramp(ctx, kids[0], kids[1], RLX_AS(rlx_ramp_t, e)->lanes);
    case RLX_EXPR_BROADCAST: return rlx_ir_broadcast(ctx, kids[0], RLX_AS(rlx_broadcast_t, e)->lanes);
    case RLX_EXPR_KIND_COUNT: break;
  }
  return e;
}

rlx_expr_t* rlx_expr_transform(rlx_ctx_t* ctx, rlx_expr_t* e, rlx_expr_fn_t f, void* user) {
  if (!e) return NULL;
  rlx_expr_t* small[8];
  int n = rlx_expr_children(e, small, 8);
  rlx_expr_t** kids = small;
  if (n > 8) {
    kids = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
    rlx_expr_children(e, kids, n);
  }
  rlx_expr_t* nk_small[8];
  rlx_expr_t** nk = n > 8 ? RLX_NEW_ARRAY(ctx, rlx_expr_t*, n) : nk_small;
  for (int i = 0; i < n; i++) nk[i] = rlx_expr_transform(ctx, kids[i], f, user);
  rlx_expr_t* r = rlx_expr_rebuild(ctx, e, nk);
  return f ? f(ctx, r, user) : r;
}
