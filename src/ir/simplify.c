/* Arithmetic analysis: variable ranges, interval bounds, canonical integer sums, the
 * simplifier and the prover.
 *
 * Integer scalar expressions built from + - * and constants are put in a canonical form: a
 * constant plus a sum of terms coeff × (product of atoms), where an atom is a variable or any
 * other simplified non-linear sub-term (floordiv, floormod, min, max, load, cast ...). Atoms in
 * a product are sorted by a fixed total order (expr_cmp), so n*m and m*n are the same; equal
 * products are merged, so x*4 + y - x*4 is y. The sum is rebuilt with the terms ordered by
 * degree, then |coefficient|, both descending (i*16 + j*4 + k), positive terms added and
 * negative ones subtracted, the constant last.
 *
 * Ranges: an interval [lo, hi] (int64, with INT64_MIN / INT64_MAX meaning unbounded) of every
 * integer expression, from the analyzer's bindings through + - * / % floordiv floormod min max
 * select cast. For proofs about a difference of sums the symbolic bounds of bound variables are
 * substituted first (i in [0, n) makes i - n <= -1), then intervals finish the job.
 *
 * Semantics are never changed: floordiv/floormod use floor semantics; DIV/MOD on integers are
 * C truncation and are only simplified when the operands are provably non-negative; floats are
 * only constant-folded (never reassociated).
 *
 * All memory (bindings, temporary sums) comes from the context arena.
 */
#include <stdlib.h>
#include <string.h>

#include "structural_internal.h"

#define NEG_INF INT64_MIN
#define POS_INF INT64_MAX
#define MAX_EXPAND 64 /* largest product of term counts expanded when multiplying sums */

typedef struct {
  int64_t lo, hi;
} ival_t;

typedef struct {
  rlx_expr_t* min;    /* NULL when unknown */
  rlx_expr_t* extent; /* NULL = no upper bound */
  ival_t iv;          /* constant bounds */
} binding_t;

typedef struct {
  const void** keys;
  binding_t** vals;
  size_t cap, len;
} amap_t;

struct rlx_analyzer {
  rlx_ctx_t* ctx;
  amap_t vars; /* rlx_var_t* → binding_t* (NULL value = unbound) */
};

/* ------------------------------------------------------------------ arena hash map */
static size_t amap_slot(const void* k, size_t cap) {
  uint64_t h = (uint64_t)(uintptr_t)k * 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 17) & (cap - 1);
}

static binding_t* amap_get(const amap_t* m, const void* k) {
  if (!m->cap) return NULL;
  size_t s = amap_slot(k, m->cap);
  while (m->keys[s]) {
    if (m->keys[s] == k) return m->vals[s];
    s = (s + 1) & (m->cap - 1);
  }
  return NULL;
}

static void amap_put(rlx_ctx_t* ctx, amap_t* m, const void* k, binding_t* v) {
  if ((m->len + 1) * 2 > m->cap) {
    size_t nc = m->cap ? m->cap * 2 : 16;
    const void** nk = RLX_NEW_ARRAY(ctx, const void*, nc);
    binding_t** nv = RLX_NEW_ARRAY(ctx, binding_t*, nc);
    for (size_t i = 0; i < m->cap; i++) {
      if (!m->keys[i]) continue;
      size_t s = amap_slot(m->keys[i], nc);
      while (nk[s]) s = (s + 1) & (nc - 1);
      nk[s] = m->keys[i];
      nv[s] = m->vals[i];
    }
    m->keys = nk;
    m->vals = nv;
    m->cap = nc;
  }
  size_t s = amap_slot(k, m->cap);
  while (m->keys[s] && m->keys[s] != k) s = (s + 1) & (m->cap - 1);
  if (!m->keys[s]) m->len++;
  m->keys[s] = k;
  m->vals[s] = v;
}

/* ------------------------------------------------------------------ small helpers */
static bool is_iscalar(rlx_dtype_t t) { return rlx_dtype_is_int(t) && t.lanes == 1; }

static int64_t ivalue(const rlx_expr_t* e) { return RLX_AS(const rlx_int_imm_t, e)->value; }

static int64_t fdiv64(int64_t a, int64_t b) {
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
static int64_t fmod64(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
static int64_t gcd64(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}
static int64_t abs64(int64_t a) { return a < 0 ? -a : a; }

/* Children of e into buf (n <= cap) or an arena array. */
static int kids_of(rlx_ctx_t* ctx, const rlx_expr_t* e, rlx_expr_t** buf, int cap, rlx_expr_t*** out) {
  int n = rlx_expr_children(e, buf, cap);
  *out = buf;
  if (n > cap) {
    *out = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
    rlx_expr_children(e, *out, n);
  }
  return n;
}

/* ------------------------------------------------------------------ total order on exprs */
static int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }
static int cmp_ptr(const void* a, const void* b) { return (uintptr_t)a < (uintptr_t)b ? -1 : (uintptr_t)a > (uintptr_t)b; }

/* A total order consistent with structural identity (0 iff the same tree, free variables by
 * identity). Variables order by name, then by address. */
static int expr_cmp(const rlx_expr_t* a, const rlx_expr_t* b) {
  if (a == b) return 0;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->dtype.code != b->dtype.code) return a->dtype.code < b->dtype.code ? -1 : 1;
  if (a->dtype.bits != b->dtype.bits) return a->dtype.bits < b->dtype.bits ? -1 : 1;
  if (a->dtype.lanes != b->dtype.lanes) return a->dtype.lanes < b->dtype.lanes ? -1 : 1;
  int c = 0;
  switch (a->kind) {
    case RLX_EXPR_INT_IMM: return cmp_i64(ivalue(a), ivalue(b));
    case RLX_EXPR_FLOAT_IMM: {
      double x = RLX_AS(const rlx_float_imm_t, a)->value, y = RLX_AS(const rlx_float_imm_t, b)->value;
      if (x == y) return 0;
      if (x != x || y != y) return memcmp(&x, &y, sizeof(x)) < 0 ? -1 : (memcmp(&x, &y, sizeof(x)) > 0);
      return x < y ? -1 : 1;
    }
    case RLX_EXPR_STRING_IMM:
      c = strcmp(RLX_AS(const rlx_string_imm_t, a)->value, RLX_AS(const rlx_string_imm_t, b)->value);
      return c < 0 ? -1 : c > 0;
    case RLX_EXPR_VAR:
      c = strcmp(RLX_AS(const rlx_var_t, a)->name, RLX_AS(const rlx_var_t, b)->name);
      if (c) return c < 0 ? -1 : 1;
      return cmp_ptr(a, b);
    case RLX_EXPR_BUFFER_LOAD:
      c = cmp_ptr(RLX_AS(const rlx_buffer_load_t, a)->buffer, RLX_AS(const rlx_buffer_load_t, b)->buffer);
      if (c) return c;
      break;
    case RLX_EXPR_CALL:
      c = strcmp(RLX_AS(const rlx_call_t, a)->op, RLX_AS(const rlx_call_t, b)->op);
      if (c) return c < 0 ? -1 : 1;
      break;
    case RLX_EXPR_LET:
      c = cmp_ptr(RLX_AS(const rlx_let_t, a)->var, RLX_AS(const rlx_let_t, b)->var);
      if (c) return c;
      break;
    case RLX_EXPR_REDUCE: {
      const rlx_reduce_t* x = RLX_AS(const rlx_reduce_t, a);
      const rlx_reduce_t* y = RLX_AS(const rlx_reduce_t, b);
      if (x->combiner != y->combiner) return x->combiner < y->combiner ? -1 : 1;
      if (x->n_axis != y->n_axis) return x->n_axis < y->n_axis ? -1 : 1;
      for (int i = 0; i < x->n_axis; i++)
        if ((c = cmp_ptr(x->axis[i], y->axis[i])) != 0) return c;
      if (!x->condition != !y->condition) return x->condition ? 1 : -1;
      break;
    }
    case RLX_EXPR_RAMP:
      c = cmp_i64(RLX_AS(const rlx_ramp_t, a)->lanes, RLX_AS(const rlx_ramp_t, b)->lanes);
      if (c) return c;
      break;
    case RLX_EXPR_BROADCAST:
      c = cmp_i64(RLX_AS(const rlx_broadcast_t, a)->lanes, RLX_AS(const rlx_broadcast_t, b)->lanes);
      if (c) return c;
      break;
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
    case RLX_EXPR_NOT:
    case RLX_EXPR_SELECT:
    case RLX_EXPR_CAST:
    case RLX_EXPR_KIND_COUNT: break;
  }
  rlx_expr_t* ka[8];
  rlx_expr_t* kb[8];
  int na = rlx_expr_children(a, ka, 8), nb = rlx_expr_children(b, kb, 8);
  if (na != nb) return na < nb ? -1 : 1;
  if (na > 8) {
    /* Rare (loads/calls with many operands): compare through heap copies. */
    rlx_expr_t** xa = malloc(sizeof(*xa) * (size_t)na);
    rlx_expr_t** xb = malloc(sizeof(*xb) * (size_t)nb);
    if (!xa || !xb) {
      free(xa);
      free(xb);
      return cmp_ptr(a, b);
    }
    rlx_expr_children(a, xa, na);
    rlx_expr_children(b, xb, nb);
    for (int i = 0; i < na && !c; i++) c = expr_cmp(xa[i], xb[i]);
    free(xa);
    free(xb);
    return c;
  }
  for (int i = 0; i < na; i++)
    if ((c = expr_cmp(ka[i], kb[i])) != 0) return c;
  return 0;
}

/* ------------------------------------------------------------------ interval arithmetic */
static ival_t iv_make(int64_t lo, int64_t hi) {
  ival_t r = {lo, hi};
  return r;
}
static ival_t iv_all(void) { return iv_make(NEG_INF, POS_INF); }
static bool iv_is_const(ival_t a) { return a.lo == a.hi && a.lo != NEG_INF && a.hi != POS_INF; }

static int64_t add_lo(int64_t a, int64_t b) {
  if (a == NEG_INF || b == NEG_INF) return NEG_INF;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return a < 0 ? NEG_INF : POS_INF;
  return r;
}
static int64_t add_hi(int64_t a, int64_t b) {
  if (a == POS_INF || b == POS_INF) return POS_INF;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return a < 0 ? NEG_INF : POS_INF;
  return r;
}
static int64_t neg_ext(int64_t a) {
  if (a == NEG_INF) return POS_INF;
  if (a == POS_INF) return NEG_INF;
  return -a;
}
/* Product of two extended values (the sentinels are infinities). */
static int64_t mul_ext(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  bool neg = (a < 0) != (b < 0);
  if (a == NEG_INF || a == POS_INF || b == NEG_INF || b == POS_INF) return neg ? NEG_INF : POS_INF;
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return neg ? NEG_INF : POS_INF;
  return r;
}
static ival_t iv_add(ival_t a, ival_t b) { return iv_make(add_lo(a.lo, b.lo), add_hi(a.hi, b.hi)); }
static ival_t iv_neg(ival_t a) { return iv_make(neg_ext(a.hi), neg_ext(a.lo)); }
static ival_t iv_sub(ival_t a, ival_t b) { return iv_add(a, iv_neg(b)); }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static ival_t iv_mul(ival_t a, ival_t b) {
  int64_t p[4] = {mul_ext(a.lo, b.lo), mul_ext(a.lo, b.hi), mul_ext(a.hi, b.lo), mul_ext(a.hi, b.hi)};
  ival_t r = {p[0], p[0]};
  for (int i = 1; i < 4; i++) {
    r.lo = min64(r.lo, p[i]);
    r.hi = max64(r.hi, p[i]);
  }
  return r;
}
static ival_t iv_scale(ival_t a, int64_t c) { return iv_mul(a, iv_make(c, c)); }
static ival_t iv_union(ival_t a, ival_t b) { return iv_make(min64(a.lo, b.lo), max64(a.hi, b.hi)); }
static ival_t iv_intersect(ival_t a, ival_t b) { return iv_make(max64(a.lo, b.lo), min64(a.hi, b.hi)); }

/* floordiv of an extended value by d >= 1 (d may be +inf). */
static int64_t fdiv_ext(int64_t x, int64_t d) {
  if (x == NEG_INF || x == POS_INF) return x;
  if (d == POS_INF) return x >= 0 ? 0 : -1;
  return fdiv64(x, d);
}
/* floordiv of intervals when the divisor is >= 1: monotone in each argument. */
static ival_t iv_floordiv(ival_t a, ival_t d) {
  int64_t p[4] = {fdiv_ext(a.lo, d.lo), fdiv_ext(a.lo, d.hi), fdiv_ext(a.hi, d.lo), fdiv_ext(a.hi, d.hi)};
  ival_t r = {p[0], p[0]};
  for (int i = 1; i < 4; i++) {
    r.lo = min64(r.lo, p[i]);
    r.hi = max64(r.hi, p[i]);
  }
  return r;
}
/* floormod of intervals when the divisor is >= 1. */
static ival_t iv_floormod(ival_t a, ival_t d) {
  if (iv_is_const(d) && a.lo != NEG_INF && a.hi != POS_INF) {
    int64_t k = fdiv64(a.lo, d.lo);
    if (fdiv64(a.hi, d.lo) == k) return iv_make(a.lo - k * d.lo, a.hi - k * d.lo);
  }
  ival_t r = iv_make(0, d.hi == POS_INF ? POS_INF : d.hi - 1);
  if (a.lo >= 0) r.hi = min64(r.hi, a.hi);
  return r;
}

static ival_t dtype_range(rlx_dtype_t t) {
  if (rlx_dtype_is_bool(t)) return iv_make(0, 1);
  if (t.code == RLX_DT_INT && t.bits < 64 && t.bits > 0)
    return iv_make(-((int64_t)1 << (t.bits - 1)), ((int64_t)1 << (t.bits - 1)) - 1);
  if (t.code == RLX_DT_UINT && t.bits < 64 && t.bits > 0) return iv_make(0, ((int64_t)1 << t.bits) - 1);
  if (t.code == RLX_DT_UINT) return iv_make(0, POS_INF);
  return iv_all();
}

static ival_t bound(rlx_analyzer_t* an, const rlx_expr_t* e);

static ival_t bound_var(rlx_analyzer_t* an, const rlx_expr_t* e) {
  binding_t* b = amap_get(&an->vars, e);
  ival_t r = dtype_range(e->dtype);
  return b ? iv_intersect(r, b->iv) : r;
}

static ival_t bound_binary(rlx_analyzer_t* an, const rlx_expr_t* e) {
  const rlx_binary_t* x = RLX_AS(const rlx_binary_t, e);
  ival_t a = bound(an, x->a), b = bound(an, x->b);
  switch (e->kind) {
    case RLX_EXPR_ADD: return iv_add(a, b);
    case RLX_EXPR_SUB: return iv_sub(a, b);
    case RLX_EXPR_MUL: return iv_mul(a, b);
    case RLX_EXPR_FLOOR_DIV:
      if (b.lo >= 1) return iv_floordiv(a, b);
      if (b.hi <= -1) return iv_neg(iv_floordiv(iv_neg(a), iv_neg(b))); /* floor(a/b) = floor(-a/-b) */
      return iv_all();
    case RLX_EXPR_FLOOR_MOD:
      if (b.lo >= 1) return iv_floormod(a, b);
      return iv_all();
    case RLX_EXPR_DIV:
      if (b.lo >= 1 && a.lo >= 0) return iv_floordiv(a, b);
      if (iv_is_const(b) && b.lo >= 1) {
        /* truncation is monotone in the numerator */
        int64_t lo = a.lo == NEG_INF ? NEG_INF : a.lo / b.lo;
        int64_t hi = a.hi == POS_INF ? POS_INF : a.hi / b.lo;
        return iv_make(lo, hi);
      }
      return iv_all();
    case RLX_EXPR_MOD:
      if (b.lo >= 1) {
        int64_t m = b.hi == POS_INF ? POS_INF : b.hi - 1;
        if (a.lo >= 0) return iv_make(0, min64(m, a.hi));
        if (a.hi <= 0) return iv_make(max64(neg_ext(m), a.lo), 0);
        return iv_make(neg_ext(m), m);
      }
      return iv_all();
    case RLX_EXPR_MIN: return iv_make(min64(a.lo, b.lo), min64(a.hi, b.hi));
    case RLX_EXPR_MAX: return iv_make(max64(a.lo, b.lo), max64(a.hi, b.hi));
    case RLX_EXPR_EQ:
    case RLX_EXPR_NE:
    case RLX_EXPR_LT:
    case RLX_EXPR_LE:
    case RLX_EXPR_GT:
    case RLX_EXPR_GE:
    case RLX_EXPR_AND:
    case RLX_EXPR_OR: return iv_make(0, 1);
    default: return iv_all();
  }
}

/* Interval of an integer scalar expression under the analyzer's bindings. */
static ival_t bound(rlx_analyzer_t* an, const rlx_expr_t* e) {
  if (!is_iscalar(e->dtype) && !rlx_dtype_is_bool(e->dtype)) return iv_all();
  if (e->dtype.lanes != 1) return iv_all();
  ival_t r = dtype_range(e->dtype);
  switch (e->kind) {
    case RLX_EXPR_INT_IMM: return iv_make(ivalue(e), ivalue(e));
    case RLX_EXPR_VAR: return bound_var(an, e);
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
    case RLX_EXPR_OR: {
      ival_t b = bound_binary(an, e);
      /* A result outside the dtype's range means the arithmetic may wrap: give up. */
      if (b.lo < r.lo || b.hi > r.hi) return r;
      return b;
    }
    case RLX_EXPR_NOT: return iv_make(0, 1);
    case RLX_EXPR_SELECT: {
      const rlx_select_t* s = RLX_AS(const rlx_select_t, e);
      return iv_intersect(r, iv_union(bound(an, s->t), bound(an, s->f)));
    }
    case RLX_EXPR_CAST: {
      const rlx_expr_t* v = RLX_AS(const rlx_cast_t, e)->value;
      if (!rlx_dtype_is_int(v->dtype) && !rlx_dtype_is_bool(v->dtype)) return r;
      ival_t c = bound(an, v);
      if (c.lo >= r.lo && c.hi <= r.hi) return c;
      return r;
    }
    case RLX_EXPR_LET: {
      const rlx_let_t* l = RLX_AS(const rlx_let_t, e);
      binding_t* old = amap_get(&an->vars, l->var);
      binding_t* nb = RLX_NEW(an->ctx, binding_t);
      nb->iv = bound(an, l->value);
      amap_put(an->ctx, &an->vars, l->var, nb);
      ival_t b = bound(an, l->body);
      amap_put(an->ctx, &an->vars, l->var, old);
      return b;
    }
    case RLX_EXPR_FLOAT_IMM:
    case RLX_EXPR_STRING_IMM:
    case RLX_EXPR_BUFFER_LOAD:
    case RLX_EXPR_CALL:
    case RLX_EXPR_REDUCE:
    case RLX_EXPR_RAMP:
    case RLX_EXPR_BROADCAST:
    case RLX_EXPR_KIND_COUNT: break;
  }
  return r;
}

/* ------------------------------------------------------------------ canonical sums */
typedef struct {
  int64_t c;
  int n;
  rlx_expr_t** a; /* sorted by expr_cmp; repeats allowed (x*x) */
} term_t;

typedef struct {
  rlx_dtype_t dt;
  int64_t cst;
  int n, cap;
  term_t* t;
  bool opaque; /* too large to expand: `e` is kept as a single atom */
} sum_t;

static int64_t wrap(rlx_dtype_t t, int64_t v) {
  if (t.bits >= 64 || t.bits == 0) return v;
  uint64_t m = (1ull << t.bits) - 1;
  uint64_t u = (uint64_t)v & m;
  if (t.code == RLX_DT_INT && (u >> (t.bits - 1))) u |= ~m;
  return (int64_t)u;
}
static int64_t wmul(rlx_dtype_t t, int64_t a, int64_t b) { return wrap(t, (int64_t)((uint64_t)a * (uint64_t)b)); }
static int64_t wadd(rlx_dtype_t t, int64_t a, int64_t b) { return wrap(t, (int64_t)((uint64_t)a + (uint64_t)b)); }

static sum_t* sum_new(rlx_ctx_t* ctx, rlx_dtype_t dt, int cap) {
  sum_t* s = RLX_NEW(ctx, sum_t);
  s->dt = dt;
  s->cap = cap > 0 ? cap : 4;
  s->t = RLX_NEW_ARRAY(ctx, term_t, s->cap);
  return s;
}

static void sum_push(rlx_ctx_t* ctx, sum_t* s, int64_t c, int n, rlx_expr_t** atoms) {
  if (c == 0) return;
  if (n == 0) {
    s->cst = wadd(s->dt, s->cst, c);
    return;
  }
  if (s->n == s->cap) {
    term_t* nt = RLX_NEW_ARRAY(ctx, term_t, s->cap * 2);
    memcpy(nt, s->t, sizeof(term_t) * (size_t)s->n);
    s->t = nt;
    s->cap *= 2;
  }
  term_t* t = &s->t[s->n++];
  t->c = c;
  t->n = n;
  t->a = atoms;
}

static int mono_cmp(const term_t* x, const term_t* y) {
  int n = x->n < y->n ? x->n : y->n;
  for (int i = 0; i < n; i++) {
    int c = expr_cmp(x->a[i], y->a[i]);
    if (c) return c;
  }
  return x->n < y->n ? -1 : x->n > y->n;
}
static int mono_qcmp(const void* a, const void* b) { return mono_cmp(a, b); }

/* Sorts terms, merges equal products and drops zero coefficients. */
static void sum_normalize(sum_t* s) {
  if (s->n > 1) qsort(s->t, (size_t)s->n, sizeof(term_t), mono_qcmp);
  int w = 0;
  for (int i = 0; i < s->n; i++) {
    if (w > 0 && mono_cmp(&s->t[w - 1], &s->t[i]) == 0) {
      s->t[w - 1].c = wadd(s->dt, s->t[w - 1].c, s->t[i].c);
      continue;
    }
    s->t[w++] = s->t[i];
  }
  int k = 0;
  for (int i = 0; i < w; i++)
    if (s->t[i].c != 0) s->t[k++] = s->t[i];
  s->n = k;
}

static void sum_add(rlx_ctx_t* ctx, sum_t* s, const sum_t* x, int64_t scale) {
  s->cst = wadd(s->dt, s->cst, wmul(s->dt, x->cst, scale));
  for (int i = 0; i < x->n; i++) sum_push(ctx, s, wmul(s->dt, x->t[i].c, scale), x->t[i].n, x->t[i].a);
}

static rlx_expr_t** atoms_merge(rlx_ctx_t* ctx, const rlx_expr_t* const* a, int na, const rlx_expr_t* const* b, int nb) {
  rlx_expr_t** r = RLX_NEW_ARRAY(ctx, rlx_expr_t*, na + nb);
  int i = 0, j = 0, k = 0;
  while (i < na && j < nb) r[k++] = (rlx_expr_t*)(expr_cmp(a[i], b[j]) <= 0 ? a[i++] : b[j++]);
  while (i < na) r[k++] = (rlx_expr_t*)a[i++];
  while (j < nb) r[k++] = (rlx_expr_t*)b[j++];
  return r;
}

static sum_t* sum_atom(rlx_ctx_t* ctx, rlx_expr_t* e) {
  sum_t* s = sum_new(ctx, e->dtype, 1);
  rlx_expr_t** a = RLX_NEW_ARRAY(ctx, rlx_expr_t*, 1);
  a[0] = e;
  sum_push(ctx, s, 1, 1, a);
  return s;
}

/* x * y expanded; NULL when the expansion would be too large. */
static sum_t* sum_mul(rlx_ctx_t* ctx, const sum_t* x, const sum_t* y) {
  if ((x->n + 1) * (y->n + 1) > MAX_EXPAND) return NULL;
  sum_t* s = sum_new(ctx, x->dt, (x->n + 1) * (y->n + 1));
  rlx_dtype_t t = x->dt;
  s->cst = wmul(t, x->cst, y->cst);
  for (int i = 0; i < y->n; i++) sum_push(ctx, s, wmul(t, x->cst, y->t[i].c), y->t[i].n, y->t[i].a);
  for (int i = 0; i < x->n; i++) sum_push(ctx, s, wmul(t, y->cst, x->t[i].c), x->t[i].n, x->t[i].a);
  for (int i = 0; i < x->n; i++)
    for (int j = 0; j < y->n; j++)
      sum_push(ctx, s, wmul(t, x->t[i].c, y->t[j].c), x->t[i].n + y->t[j].n,
               atoms_merge(ctx, (const rlx_expr_t* const*)x->t[i].a, x->t[i].n,
                           (const rlx_expr_t* const*)y->t[j].a, y->t[j].n));
  sum_normalize(s);
  return s;
}

/* Reads an already simplified integer expression as a sum (no simplification of atoms). */
static sum_t* sum_of(rlx_ctx_t* ctx, rlx_expr_t* e) {
  switch (e->kind) {
    case RLX_EXPR_INT_IMM: {
      sum_t* s = sum_new(ctx, e->dtype, 1);
      s->cst = ivalue(e);
      return s;
    }
    case RLX_EXPR_ADD:
    case RLX_EXPR_SUB: {
      const rlx_binary_t* b = RLX_AS(const rlx_binary_t, e);
      sum_t* x = sum_of(ctx, b->a);
      sum_t* y = sum_of(ctx, b->b);
      sum_t* s = sum_new(ctx, e->dtype, x->n + y->n);
      sum_add(ctx, s, x, 1);
      sum_add(ctx, s, y, e->kind == RLX_EXPR_ADD ? 1 : -1);
      sum_normalize(s);
      return s;
    }
    case RLX_EXPR_MUL: {
      const rlx_binary_t* b = RLX_AS(const rlx_binary_t, e);
      sum_t* s = sum_mul(ctx, sum_of(ctx, b->a), sum_of(ctx, b->b));
      if (s) return s;
      return sum_atom(ctx, e);
    }
    default: return sum_atom(ctx, e);
  }
}

static int term_out_cmp(const void* pa, const void* pb) {
  const term_t* a = pa;
  const term_t* b = pb;
  if (a->n != b->n) return a->n > b->n ? -1 : 1;
  if (abs64(a->c) != abs64(b->c)) return abs64(a->c) > abs64(b->c) ? -1 : 1;
  int c = mono_cmp(a, b);
  if (c) return c;
  return (a->c < 0) - (b->c < 0);
}

static rlx_expr_t* term_expr(rlx_ctx_t* ctx, rlx_dtype_t dt, const term_t* t, int64_t c) {
  rlx_expr_t* e = t->a[0];
  for (int i = 1; i < t->n; i++) e = rlx_ir_mul(ctx, e, t->a[i]);
  if (c != 1) e = rlx_ir_mul(ctx, e, rlx_ir_int(ctx, dt, c));
  return e;
}

/* Rebuilds a normalized sum as an expression. */
static rlx_expr_t* sum_expr(rlx_ctx_t* ctx, const sum_t* s) {
  if (s->n == 0) return rlx_ir_int(ctx, s->dt, s->cst);
  term_t* t = RLX_NEW_ARRAY(ctx, term_t, s->n);
  memcpy(t, s->t, sizeof(term_t) * (size_t)s->n);
  qsort(t, (size_t)s->n, sizeof(term_t), term_out_cmp);
  /* Start with the first positive term when there is one. */
  int first = -1;
  for (int i = 0; i < s->n && first < 0; i++)
    if (t[i].c > 0) first = i;
  rlx_expr_t* acc = NULL;
  bool cst_done = false;
  if (first >= 0) {
    acc = term_expr(ctx, s->dt, &t[first], t[first].c);
  } else if (s->cst > 0) {
    acc = rlx_ir_int(ctx, s->dt, s->cst);
    cst_done = true;
  } else {
    first = 0;
    acc = term_expr(ctx, s->dt, &t[0], t[0].c);
  }
  for (int i = 0; i < s->n; i++) {
    if (i == first) continue;
    if (t[i].c > 0) acc = rlx_ir_add(ctx, acc, term_expr(ctx, s->dt, &t[i], t[i].c));
    else if (t[i].c != NEG_INF) acc = rlx_ir_sub(ctx, acc, term_expr(ctx, s->dt, &t[i], -t[i].c));
    else acc = rlx_ir_add(ctx, acc, term_expr(ctx, s->dt, &t[i], t[i].c));
  }
  if (!cst_done && s->cst != 0) {
    if (s->cst > 0 || s->cst == NEG_INF) acc = rlx_ir_add(ctx, acc, rlx_ir_int(ctx, s->dt, s->cst));
    else acc = rlx_ir_sub(ctx, acc, rlx_ir_int(ctx, s->dt, -s->cst));
  }
  return acc;
}

static sum_t* sum_diff(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) {
  sum_t* x = sum_of(ctx, a);
  sum_t* y = sum_of(ctx, b);
  sum_t* s = sum_new(ctx, a->dtype, x->n + y->n);
  sum_add(ctx, s, x, 1);
  sum_add(ctx, s, y, -1);
  sum_normalize(s);
  return s;
}

/* Interval of a sum: coefficients times products of atom intervals. */
static ival_t sum_interval(rlx_analyzer_t* an, const sum_t* s) {
  ival_t r = iv_make(s->cst, s->cst);
  for (int i = 0; i < s->n; i++) {
    ival_t m = iv_make(1, 1);
    for (int k = 0; k < s->t[i].n; k++) m = iv_mul(m, bound(an, s->t[i].a[k]));
    r = iv_add(r, iv_scale(m, s->t[i].c));
  }
  return r;
}

/* The symbolic bound (dir > 0: upper, dir < 0: lower) of atom x, or NULL. For min (upper)
 * and max (lower) either operand is a bound: the one matching want_sym is preferred. */
static rlx_expr_t* atom_sym_bound(rlx_analyzer_t* an, rlx_expr_t* x, int dir, bool want_sym) {
  if (x->kind == RLX_EXPR_VAR) {
    binding_t* b = amap_get(&an->vars, x);
    if (!b || !b->min) return NULL;
    if (dir < 0) return b->min;
    if (!b->extent) return NULL;
    return rlx_ir_sub(an->ctx, rlx_ir_add(an->ctx, b->min, b->extent), rlx_ir_int(an->ctx, x->dtype, 1));
  }
  if (x->kind == RLX_EXPR_FLOOR_MOD) {
    rlx_expr_t* d = RLX_AS(rlx_binary_t, x)->b;
    if (bound(an, d).lo < 0) return NULL;
    if (dir < 0) return rlx_ir_int(an->ctx, x->dtype, 0);
    return rlx_ir_sub(an->ctx, d, rlx_ir_int(an->ctx, x->dtype, 1));
  }
  if ((x->kind == RLX_EXPR_MIN && dir > 0) || (x->kind == RLX_EXPR_MAX && dir < 0)) {
    rlx_binary_t* m = RLX_AS(rlx_binary_t, x);
    bool a_sym = m->a->kind != RLX_EXPR_INT_IMM;
    return a_sym == want_sym ? m->a : m->b;
  }
  return NULL;
}

/* One substitution round: every term c*x*rest (rest >= 0) whose atom x has a bound of the
 * wanted kind (symbolic when want_sym, constant otherwise) in the direction that bounds the
 * sum from above (dir > 0) or below gets x replaced by that bound. NULL when nothing changed. */
static sum_t* sum_subst_bounds(rlx_analyzer_t* an, const sum_t* s, int dir, bool want_sym) {
  rlx_ctx_t* ctx = an->ctx;
  sum_t* r = sum_new(ctx, s->dt, s->n + 4);
  r->cst = s->cst;
  bool changed = false;
  for (int i = 0; i < s->n; i++) {
    const term_t* t = &s->t[i];
    int done = 0;
    for (int k = 0; k < t->n && !done; k++) {
      int d = t->c > 0 ? dir : -dir;
      int64_t coef = t->c, dc;
      rlx_expr_t* at = t->a[k];
      rlx_expr_t* repl;
      if (want_sym && at->kind == RLX_EXPR_FLOOR_DIV && rlx_expr_is_const_int(RLX_AS(rlx_binary_t, at)->b, &dc) &&
          dc > 0 && t->c % dc == 0) {
        /* X - (c-1) <= c*floordiv(X, c) <= X */
        rlx_expr_t* x = RLX_AS(rlx_binary_t, at)->a;
        coef = t->c / dc;
        repl = d > 0 ? x : rlx_ir_sub(ctx, x, rlx_ir_int(ctx, x->dtype, dc - 1));
      } else {
        repl = atom_sym_bound(an, at, d, want_sym);
        if (!repl) continue;
        if ((repl->kind == RLX_EXPR_INT_IMM) == want_sym) continue;
      }
      /* the rest of the product must be non-negative for the bound to carry over */
      ival_t rest = iv_make(1, 1);
      rlx_expr_t** ra = RLX_NEW_ARRAY(ctx, rlx_expr_t*, t->n);
      int rn = 0;
      for (int j = 0; j < t->n; j++) {
        if (j == k) continue;
        ra[rn++] = t->a[j];
        rest = iv_mul(rest, bound(an, t->a[j]));
      }
      if (rest.lo < 0) continue;
      sum_t* rs = sum_new(ctx, s->dt, 1);
      sum_push(ctx, rs, coef, rn, ra); /* rn == 0 makes it the constant */
      sum_t* p = sum_mul(ctx, rs, sum_of(ctx, repl));
      if (!p) continue;
      sum_add(ctx, r, p, 1);
      done = 1;
    }
    if (done) changed = true;
    else sum_push(ctx, r, t->c, t->n, t->a);
  }
  if (!changed) return NULL;
  sum_normalize(r);
  return r;
}

/* Best constant bound of a sum, using symbolic substitution and intervals. */
static ival_t sum_bound(rlx_analyzer_t* an, const sum_t* s) {
  ival_t r = sum_interval(an, s);
  if (iv_is_const(r)) return r;
  for (int dir = 1; dir >= -1; dir -= 2) {
    const sum_t* cur = s;
    for (int round = 0; round < 6; round++) {
      sum_t* nx = sum_subst_bounds(an, cur, dir, true);
      if (!nx) nx = sum_subst_bounds(an, cur, dir, false);
      if (!nx) break;
      cur = nx;
      ival_t b = sum_interval(an, cur);
      if (dir > 0) r.hi = min64(r.hi, b.hi);
      else r.lo = max64(r.lo, b.lo);
    }
  }
  return r;
}

/* ------------------------------------------------------------------ simplifier */
static rlx_expr_t* simp(rlx_analyzer_t* an, rlx_expr_t* e);

static bool same(const rlx_expr_t* a, const rlx_expr_t* b) { return expr_cmp(a, b) == 0; }

/* Bound of a - b (integer scalars). */
static ival_t diff_bound(rlx_analyzer_t* an, rlx_expr_t* a, rlx_expr_t* b) {
  return sum_bound(an, sum_diff(an->ctx, a, b));
}

/* Folds floordiv(X, c)*c*k + floormod(X, c)*k into X*k (also with a symbolic single-atom
 * divisor, and floordiv(floormod(X, c2), c)*c + floormod(X, c) with c | c2 into
 * floormod(X, c2)). Returns true when it changed s. */
static bool fold_divmod(rlx_analyzer_t* an, sum_t* s) {
  rlx_ctx_t* ctx = an->ctx;
  for (int i = 0; i < s->n; i++) {
    term_t* m = &s->t[i];
    if (m->n != 1 || m->a[0]->kind != RLX_EXPR_FLOOR_MOD) continue;
    rlx_binary_t* fm = RLX_AS(rlx_binary_t, m->a[0]);
    rlx_expr_t* x = fm->a;
    rlx_expr_t* d = fm->b;
    int64_t c;
    int j = -1;
    rlx_expr_t* repl = x;
    if (rlx_expr_is_const_int(d, &c) && c > 0) {
      for (int k = 0; k < s->n && j < 0; k++) {
        term_t* q = &s->t[k];
        if (q->n != 1 || q->a[0]->kind != RLX_EXPR_FLOOR_DIV || q->c != wmul(s->dt, m->c, c)) continue;
        rlx_binary_t* fd = RLX_AS(rlx_binary_t, q->a[0]);
        int64_t c2;
        if (!rlx_expr_is_const_int(fd->b, &c2) || c2 != c) continue;
        if (same(fd->a, x)) {
          j = k;
          repl = x;
        } else if (fd->a->kind == RLX_EXPR_FLOOR_MOD) {
          rlx_binary_t* inner = RLX_AS(rlx_binary_t, fd->a);
          int64_t c3;
          if (same(inner->a, x) && rlx_expr_is_const_int(inner->b, &c3) && c3 > 0 && c3 % c == 0) {
            j = k;
            repl = fd->a;
          }
        }
      }
    } else {
      /* floordiv(X, d) * d with d a product of atoms: the term's atoms are those of d plus
       * floordiv(X, d) */
      sum_t* ds = sum_of(ctx, d);
      if (ds->n == 1 && ds->cst == 0 && ds->t[0].c == 1) {
        rlx_expr_t* fdx = rlx_ir_floordiv(ctx, x, d);
        rlx_expr_t** want = atoms_merge(ctx, (const rlx_expr_t* const*)&fdx, 1,
                                        (const rlx_expr_t* const*)ds->t[0].a, ds->t[0].n);
        for (int k = 0; k < s->n && j < 0; k++) {
          term_t* q = &s->t[k];
          if (q->n != ds->t[0].n + 1 || q->c != m->c) continue;
          bool eq = true;
          for (int p = 0; p < q->n && eq; p++) eq = same(q->a[p], want[p]);
          if (eq) j = k;
        }
      }
    }
    if (j < 0) continue;
    int64_t coef = m->c;
    /* remove terms i and j, add coef * repl */
    int w = 0;
    for (int k = 0; k < s->n; k++)
      if (k != i && k != j) s->t[w++] = s->t[k];
    s->n = w;
    sum_t* add = sum_of(ctx, repl);
    sum_add(ctx, s, add, coef);
    sum_normalize(s);
    return true;
  }
  return false;
}

static rlx_expr_t* simp_sum(rlx_analyzer_t* an, sum_t* s) {
  for (int guard = 0; guard < 16 && fold_divmod(an, s); guard++) {
  }
  return sum_expr(an->ctx, s);
}

/* Splits s into q*div + r where every term of the q part is divisible by the constant
 * div > 0 (the constant goes by floor division). */
static void split_by_const(rlx_ctx_t* ctx, const sum_t* s, int64_t div, sum_t** out_q, sum_t** out_r) {
  sum_t* q = sum_new(ctx, s->dt, s->n);
  sum_t* r = sum_new(ctx, s->dt, s->n);
  for (int i = 0; i < s->n; i++) {
    if (s->t[i].c % div == 0) sum_push(ctx, q, s->t[i].c / div, s->t[i].n, s->t[i].a);
    else sum_push(ctx, r, s->t[i].c, s->t[i].n, s->t[i].a);
  }
  q->cst = fdiv64(s->cst, div);
  r->cst = fmod64(s->cst, div);
  *out_q = q;
  *out_r = r;
}

/* Splits s into q*d + r where d is the product of atoms of the monomial dm (coefficient 1). */
static void split_by_mono(rlx_ctx_t* ctx, const sum_t* s, const term_t* dm, sum_t** out_q, sum_t** out_r) {
  sum_t* q = sum_new(ctx, s->dt, s->n);
  sum_t* r = sum_new(ctx, s->dt, s->n);
  r->cst = s->cst;
  for (int i = 0; i < s->n; i++) {
    const term_t* t = &s->t[i];
    /* multiset difference t->a \ dm->a (both sorted) */
    rlx_expr_t** rest = RLX_NEW_ARRAY(ctx, rlx_expr_t*, t->n);
    int ri = 0, j = 0;
    for (int k = 0; k < t->n; k++) {
      if (j < dm->n && same(t->a[k], dm->a[j])) j++;
      else rest[ri++] = t->a[k];
    }
    if (j == dm->n) {
      if (ri == 0) q->cst = wadd(s->dt, q->cst, t->c);
      else sum_push(ctx, q, t->c, ri, rest);
    } else {
      sum_push(ctx, r, t->c, t->n, t->a);
    }
  }
  *out_q = q;
  *out_r = r;
}

/* floordiv (is_mod false) or floormod of simplified integer operands. */
static rlx_expr_t* simp_floordivmod(rlx_analyzer_t* an, bool is_mod, rlx_expr_t* a, rlx_expr_t* b) {
  rlx_ctx_t* ctx = an->ctx;
  rlx_dtype_t dt = a->dtype;
  int64_t c;
  rlx_expr_kind_t kind = is_mod ? RLX_EXPR_FLOOR_MOD : RLX_EXPR_FLOOR_DIV;
  if (rlx_expr_is_const_int(b, &c) && c > 0) {
    if (c == 1) return is_mod ? rlx_ir_int(ctx, dt, 0) : a;
    sum_t* s = sum_of(ctx, a);
    sum_t *q, *r;
    split_by_const(ctx, s, c, &q, &r);
    sum_normalize(q);
    sum_normalize(r);
    ival_t rb = sum_bound(an, r);
    if (rb.lo != NEG_INF && rb.hi != POS_INF && fdiv64(rb.lo, c) == fdiv64(rb.hi, c)) {
      int64_t k = fdiv64(rb.lo, c);
      if (is_mod) {
        r->cst = wadd(dt, r->cst, -k * c);
        return simp_sum(an, r);
      }
      q->cst = wadd(dt, q->cst, k);
      return simp_sum(an, q);
    }
    /* gcd of the remainder's coefficients and c: floordiv(g*R, c) = floordiv(R, c/g),
     * floormod(g*R, c) = g*floormod(R, c/g) */
    int64_t g = c;
    for (int i = 0; i < r->n; i++) g = gcd64(g, r->t[i].c);
    g = gcd64(g, r->cst);
    if (g > 1) {
      for (int i = 0; i < r->n; i++) r->t[i].c /= g;
      r->cst /= g;
      c /= g;
    }
    rlx_expr_t* re = simp_sum(an, r);
    rlx_expr_t* inner = NULL;
    /* nested floordiv(floordiv(X, c1), c) = floordiv(X, c1*c);
     * floormod(floormod(X, c1), c) = floormod(X, c) when c | c1 */
    if (re->kind == kind) {
      rlx_binary_t* in = RLX_AS(rlx_binary_t, re);
      int64_t c1;
      if (rlx_expr_is_const_int(in->b, &c1) && c1 > 0) {
        if (!is_mod && !__builtin_mul_overflow(c1, c, &c1)) inner = rlx_ir_floordiv(ctx, in->a, rlx_ir_int(ctx, dt, c1));
        else if (is_mod && c1 % c == 0) inner = rlx_ir_floormod(ctx, in->a, rlx_ir_int(ctx, dt, c));
      }
    }
    if (!inner) inner = rlx_ir_binary(ctx, kind, re, rlx_ir_int(ctx, dt, c));
    if (is_mod) {
      if (g > 1) inner = rlx_ir_mul(ctx, inner, rlx_ir_int(ctx, dt, g));
      return simp_sum(an, sum_of(ctx, inner));
    }
    sum_t* out = sum_new(ctx, dt, q->n + 1);
    sum_add(ctx, out, q, 1);
    sum_add(ctx, out, sum_of(ctx, inner), 1);
    sum_normalize(out);
    return simp_sum(an, out);
  }
  /* Symbolic divisor that is a single product of atoms (n, n*m), known non-negative. */
  sum_t* bs = sum_of(ctx, b);
  /* (a divisor of 0 is undefined behaviour anyway, so non-negative is enough) */
  if (bs->n == 1 && bs->cst == 0 && bs->t[0].c == 1 && sum_bound(an, bs).lo >= 0) {
    sum_t* s = sum_of(ctx, a);
    sum_t *q, *r;
    split_by_mono(ctx, s, &bs->t[0], &q, &r);
    sum_normalize(q);
    sum_normalize(r);
    if (q->n || q->cst) {
      bool r_in = sum_bound(an, r).lo >= 0 && diff_bound(an, sum_expr(ctx, r), b).hi < 0;
      if (is_mod) {
        if (r_in) return simp_sum(an, r);
        return rlx_ir_floormod(ctx, sum_expr(ctx, r), b);
      }
      if (r_in) return simp_sum(an, q);
      sum_t* out = sum_new(ctx, dt, q->n + 1);
      sum_add(ctx, out, q, 1);
      sum_add(ctx, out, sum_of(ctx, rlx_ir_floordiv(ctx, sum_expr(ctx, r), b)), 1);
      sum_normalize(out);
      return simp_sum(an, out);
    }
    ival_t ab = bound(an, a);
    if (ab.lo >= 0 && diff_bound(an, a, b).hi < 0) return is_mod ? a : rlx_ir_int(ctx, dt, 0);
  }
  return rlx_ir_binary(ctx, kind, a, b);
}

/* Vector rules for integer Ramp/Broadcast arithmetic. NULL when none applies. */
static rlx_expr_t* simp_vector(rlx_analyzer_t* an, rlx_expr_kind_t k, rlx_expr_t* a, rlx_expr_t* b) {
  rlx_ctx_t* ctx = an->ctx;
  bool ra = a->kind == RLX_EXPR_RAMP, rb = b->kind == RLX_EXPR_RAMP;
  bool ba = a->kind == RLX_EXPR_BROADCAST, bb = b->kind == RLX_EXPR_BROADCAST;
  int lanes = a->dtype.lanes;
  if (ba && bb) {
    rlx_expr_t* v = simp(an, rlx_ir_binary(ctx, k, RLX_AS(rlx_broadcast_t, a)->value, RLX_AS(rlx_broadcast_t, b)->value));
    return rlx_ir_broadcast(ctx, v, lanes);
  }
  if (!rlx_dtype_is_int(a->dtype)) return NULL;
  if ((k == RLX_EXPR_ADD || k == RLX_EXPR_SUB) && (ra || rb) && (ra || ba) && (rb || bb)) {
    rlx_expr_t* b1 = ra ? RLX_AS(rlx_ramp_t, a)->base : RLX_AS(rlx_broadcast_t, a)->value;
    rlx_expr_t* s1 = ra ? RLX_AS(rlx_ramp_t, a)->stride : rlx_ir_int(ctx, b1->dtype, 0);
    rlx_expr_t* b2 = rb ? RLX_AS(rlx_ramp_t, b)->base : RLX_AS(rlx_broadcast_t, b)->value;
    rlx_expr_t* s2 = rb ? RLX_AS(rlx_ramp_t, b)->stride : rlx_ir_int(ctx, b2->dtype, 0);
    rlx_expr_t* base = simp(an, rlx_ir_binary(ctx, k, b1, b2));
    rlx_expr_t* stride = simp(an, rlx_ir_binary(ctx, k, s1, s2));
    if (rlx_expr_is_const_int(stride, NULL) && ivalue(stride) == 0) return rlx_ir_broadcast(ctx, base, lanes);
    return rlx_ir_ramp(ctx, base, stride, lanes);
  }
  if (k == RLX_EXPR_MUL && ((ra && bb) || (ba && rb))) {
    rlx_ramp_t* r = RLX_AS(rlx_ramp_t, ra ? a : b);
    rlx_expr_t* v = RLX_AS(rlx_broadcast_t, ra ? b : a)->value;
    rlx_expr_t* base = simp(an, rlx_ir_mul(ctx, r->base, v));
    rlx_expr_t* stride = simp(an, rlx_ir_mul(ctx, r->stride, v));
    if (rlx_expr_is_const_int(stride, NULL) && ivalue(stride) == 0) return rlx_ir_broadcast(ctx, base, lanes);
    return rlx_ir_ramp(ctx, base, stride, lanes);
  }
  if ((k == RLX_EXPR_FLOOR_DIV || k == RLX_EXPR_FLOOR_MOD) && ra && bb) {
    rlx_ramp_t* r = RLX_AS(rlx_ramp_t, a);
    rlx_expr_t* d = RLX_AS(rlx_broadcast_t, b)->value;
    int64_t c;
    if (!rlx_expr_is_const_int(d, &c) || c <= 0) return NULL;
    rlx_expr_t* last = rlx_ir_add(ctx, r->base, rlx_ir_mul(ctx, r->stride, rlx_ir_int(ctx, r->base->dtype, r->lanes - 1)));
    rlx_expr_t* q0 = simp_floordivmod(an, false, r->base, d);
    rlx_expr_t* q1 = simp_floordivmod(an, false, simp(an, last), d);
    if (!same(q0, q1)) return NULL;
    if (k == RLX_EXPR_FLOOR_DIV) return rlx_ir_broadcast(ctx, q0, lanes);
    return rlx_ir_ramp(ctx, simp_floordivmod(an, true, r->base, d), r->stride, lanes);
  }
  return NULL;
}

static rlx_expr_t* simp_compare(rlx_analyzer_t* an, rlx_expr_kind_t k, rlx_expr_t* a, rlx_expr_t* b) {
  rlx_ctx_t* ctx = an->ctx;
  if (!is_iscalar(a->dtype) || !rlx_dtype_eq(a->dtype, b->dtype)) return rlx_ir_binary(ctx, k, a, b);
  sum_t* d = sum_diff(ctx, a, b);
  ival_t r = sum_bound(an, d);
  int res = -1;
  switch (k) {
    case RLX_EXPR_LT: res = r.hi < 0 ? 1 : r.lo >= 0 ? 0 : -1; break;
    case RLX_EXPR_LE: res = r.hi <= 0 ? 1 : r.lo > 0 ? 0 : -1; break;
    case RLX_EXPR_GT: res = r.lo > 0 ? 1 : r.hi <= 0 ? 0 : -1; break;
    case RLX_EXPR_GE: res = r.lo >= 0 ? 1 : r.hi < 0 ? 0 : -1; break;
    case RLX_EXPR_EQ: res = (r.lo == 0 && r.hi == 0) ? 1 : (r.lo > 0 || r.hi < 0) ? 0 : -1; break;
    case RLX_EXPR_NE: res = (r.lo == 0 && r.hi == 0) ? 0 : (r.lo > 0 || r.hi < 0) ? 1 : -1; break;
    default: break;
  }
  if (res >= 0) return rlx_ir_bool(ctx, res == 1);
  /* Divide by the gcd g of the coefficients: g*S + c < 0 ⇔ S + floor(c/g) < 0, and so on. */
  int64_t g = 0;
  for (int i = 0; i < d->n; i++) g = gcd64(g, d->t[i].c);
  if (g > 1) {
    int64_t c = d->cst, c2;
    switch (k) {
      case RLX_EXPR_LT:
      case RLX_EXPR_GE: c2 = fdiv64(c, g); break;
      case RLX_EXPR_LE:
      case RLX_EXPR_GT: c2 = c == NEG_INF ? fdiv64(c, g) : -fdiv64(-c, g); break;
      default:
        if (c % g != 0) return rlx_ir_bool(ctx, k == RLX_EXPR_NE);
        c2 = c / g;
        break;
    }
    for (int i = 0; i < d->n; i++) d->t[i].c /= g;
    d->cst = c2;
  }
  /* Cancel common terms: positive terms on the left, negated negative terms on the right;
   * the constant joins the side where it is positive. */
  sum_t* l = sum_new(ctx, a->dtype, d->n);
  sum_t* rr = sum_new(ctx, a->dtype, d->n);
  for (int i = 0; i < d->n; i++) {
    if (d->t[i].c > 0) sum_push(ctx, l, d->t[i].c, d->t[i].n, d->t[i].a);
    else sum_push(ctx, rr, -d->t[i].c, d->t[i].n, d->t[i].a);
  }
  if (d->cst > 0) l->cst = d->cst;
  else rr->cst = -d->cst;
  return rlx_ir_binary(ctx, k, sum_expr(ctx, l), sum_expr(ctx, rr));
}

static bool is_true(const rlx_expr_t* e) { return e->kind == RLX_EXPR_INT_IMM && ivalue(e) != 0; }
static bool is_false(const rlx_expr_t* e) { return e->kind == RLX_EXPR_INT_IMM && ivalue(e) == 0; }

/* ---- facts: while simplifying one side of a select / if_then_else (only the taken side is
 * evaluated, in C and in the interpreter alike), the condition's var-vs-constant comparisons
 * tighten the variables' ranges. */
enum { MAX_FACTS = 8 };
typedef struct {
  rlx_var_t* var;
  binding_t* old;
} saved_t;

static rlx_expr_kind_t flip_cmp(rlx_expr_kind_t k) {
  switch (k) {
    case RLX_EXPR_LT: return RLX_EXPR_GT;
    case RLX_EXPR_LE: return RLX_EXPR_GE;
    case RLX_EXPR_GT: return RLX_EXPR_LT;
    case RLX_EXPR_GE: return RLX_EXPR_LE;
    default: return k;
  }
}

static rlx_expr_kind_t negate_cmp(rlx_expr_kind_t k);

/* Applies the facts implied by cond == truth; returns the new count of saved bindings. */
static int push_facts(rlx_analyzer_t* an, rlx_expr_t* cond, bool truth, saved_t* sv, int n) {
  if (n >= MAX_FACTS || cond->dtype.lanes != 1) return n;
  if (cond->kind == RLX_EXPR_NOT) return push_facts(an, RLX_AS(rlx_not_t, cond)->a, !truth, sv, n);
  if ((cond->kind == RLX_EXPR_AND && truth) || (cond->kind == RLX_EXPR_OR && !truth)) {
    n = push_facts(an, RLX_AS(rlx_binary_t, cond)->a, truth, sv, n);
    return push_facts(an, RLX_AS(rlx_binary_t, cond)->b, truth, sv, n);
  }
  if (cond->kind < RLX_EXPR_EQ || cond->kind > RLX_EXPR_GE) return n;
  rlx_binary_t* c = RLX_AS(rlx_binary_t, cond);
  rlx_expr_kind_t k = truth ? cond->kind : negate_cmp(cond->kind);
  rlx_expr_t* v = c->a;
  rlx_expr_t* x = c->b;
  if (v->kind != RLX_EXPR_VAR) {
    v = c->b;
    x = c->a;
    k = flip_cmp(k);
  }
  int64_t cv;
  if (v->kind != RLX_EXPR_VAR || !is_iscalar(v->dtype) || !rlx_expr_is_const_int(x, &cv)) return n;
  ival_t f;
  switch (k) {
    case RLX_EXPR_LT: f = iv_make(NEG_INF, cv == NEG_INF ? NEG_INF : cv - 1); break;
    case RLX_EXPR_LE: f = iv_make(NEG_INF, cv); break;
    case RLX_EXPR_GT: f = iv_make(cv == POS_INF ? POS_INF : cv + 1, POS_INF); break;
    case RLX_EXPR_GE: f = iv_make(cv, POS_INF); break;
    case RLX_EXPR_EQ: f = iv_make(cv, cv); break;
    default: return n;
  }
  binding_t* old = amap_get(&an->vars, v);
  binding_t* nb = RLX_NEW(an->ctx, binding_t);
  if (old) *nb = *old;
  else nb->iv = dtype_range(v->dtype);
  nb->iv = iv_intersect(nb->iv, f);
  if (nb->iv.lo > nb->iv.hi) return n; /* an unreachable side: learn nothing */
  amap_put(an->ctx, &an->vars, v, nb);
  sv[n].var = RLX_AS(rlx_var_t, v);
  sv[n].old = old;
  return n + 1;
}

static void pop_facts(rlx_analyzer_t* an, saved_t* sv, int n) {
  for (int i = n - 1; i >= 0; i--) amap_put(an->ctx, &an->vars, sv[i].var, sv[i].old);
}

/* simp(e) knowing cond == truth. */
static rlx_expr_t* simp_under(rlx_analyzer_t* an, rlx_expr_t* cond, bool truth, rlx_expr_t* e) {
  saved_t sv[MAX_FACTS];
  int n = push_facts(an, cond, truth, sv, 0);
  rlx_expr_t* r = simp(an, e);
  pop_facts(an, sv, n);
  return r;
}

static rlx_expr_t* simp_binary(rlx_analyzer_t* an, rlx_expr_t* e) {
  rlx_ctx_t* ctx = an->ctx;
  rlx_binary_t* x = RLX_AS(rlx_binary_t, e);
  rlx_expr_kind_t k = e->kind;
  rlx_expr_t* a = simp(an, x->a);
  /* (no facts from a while simplifying b: And/Or evaluate both sides in the interpreter, and a
   * fact that pins a divisor to 0 would turn a harmless side into a trap) */
  rlx_expr_t* b = simp(an, x->b);
  rlx_dtype_t dt = a->dtype;
  if (k == RLX_EXPR_AND || k == RLX_EXPR_OR) {
    if (dt.lanes == 1) {
      bool is_and = k == RLX_EXPR_AND;
      if (is_false(a) || is_false(b)) return is_and ? rlx_ir_bool(ctx, false) : (is_false(a) ? b : a);
      if (is_true(a) || is_true(b)) return is_and ? (is_true(a) ? b : a) : rlx_ir_bool(ctx, true);
      if (same(a, b)) return a;
    }
    return rlx_ir_binary(ctx, k, a, b);
  }
  if (dt.lanes > 1 || a->dtype.lanes != b->dtype.lanes) {
    rlx_expr_t* v = (a->dtype.lanes == b->dtype.lanes) ? simp_vector(an, k, a, b) : NULL;
    return v ? v : rlx_ir_binary(ctx, k, a, b);
  }
  if (!is_iscalar(dt) || !rlx_dtype_eq(a->dtype, b->dtype)) {
    if (k >= RLX_EXPR_EQ && k <= RLX_EXPR_GE && rlx_dtype_is_bool(dt) && rlx_dtype_eq(dt, b->dtype))
      return simp_compare(an, k, a, b);
    return rlx_ir_binary(ctx, k, a, b); /* floats (and mixed types): constant folding only */
  }
  switch (k) {
    case RLX_EXPR_ADD:
    case RLX_EXPR_SUB:
    case RLX_EXPR_MUL: {
      sum_t* sa = sum_of(ctx, a);
      sum_t* sb = sum_of(ctx, b);
      sum_t* s;
      if (k == RLX_EXPR_MUL) {
        s = sum_mul(ctx, sa, sb);
        if (!s) return rlx_ir_mul(ctx, a, b);
      } else {
        s = sum_new(ctx, dt, sa->n + sb->n);
        sum_add(ctx, s, sa, 1);
        sum_add(ctx, s, sb, k == RLX_EXPR_ADD ? 1 : -1);
        sum_normalize(s);
      }
      return simp_sum(an, s);
    }
    case RLX_EXPR_FLOOR_DIV:
    case RLX_EXPR_FLOOR_MOD: {
      int64_t x1, y1;
      if (rlx_expr_is_const_int(a, &x1) && rlx_expr_is_const_int(b, &y1)) return rlx_ir_binary(ctx, k, a, b);
      return simp_floordivmod(an, k == RLX_EXPR_FLOOR_MOD, a, b);
    }
    case RLX_EXPR_DIV:
    case RLX_EXPR_MOD: {
      int64_t x1, y1;
      if (rlx_expr_is_const_int(a, &x1) && rlx_expr_is_const_int(b, &y1)) return rlx_ir_binary(ctx, k, a, b);
      if (bound(an, a).lo >= 0 && bound(an, b).lo >= 1) {
        rlx_expr_kind_t fk = k == RLX_EXPR_DIV ? RLX_EXPR_FLOOR_DIV : RLX_EXPR_FLOOR_MOD;
        rlx_expr_t* r = simp_floordivmod(an, k == RLX_EXPR_MOD, a, b);
        /* keep the C operator when nothing simplified */
        if (r->kind == fk && same(RLX_AS(rlx_binary_t, r)->a, a) && same(RLX_AS(rlx_binary_t, r)->b, b))
          return rlx_ir_binary(ctx, k, a, b);
        return r;
      }
      return rlx_ir_binary(ctx, k, a, b);
    }
    case RLX_EXPR_MIN:
    case RLX_EXPR_MAX: {
      if (same(a, b)) return a;
      ival_t r = diff_bound(an, a, b);
      bool is_min = k == RLX_EXPR_MIN;
      if (r.hi <= 0) return is_min ? a : b;
      if (r.lo >= 0) return is_min ? b : a;
      return rlx_ir_binary(ctx, k, a, b);
    }
    case RLX_EXPR_EQ:
    case RLX_EXPR_NE:
    case RLX_EXPR_LT:
    case RLX_EXPR_LE:
    case RLX_EXPR_GT:
    case RLX_EXPR_GE: return simp_compare(an, k, a, b);
    default: return rlx_ir_binary(ctx, k, a, b);
  }
}

static rlx_expr_kind_t negate_cmp(rlx_expr_kind_t k) {
  switch (k) {
    case RLX_EXPR_EQ: return RLX_EXPR_NE;
    case RLX_EXPR_NE: return RLX_EXPR_EQ;
    case RLX_EXPR_LT: return RLX_EXPR_GE;
    case RLX_EXPR_LE: return RLX_EXPR_GT;
    case RLX_EXPR_GT: return RLX_EXPR_LE;
    case RLX_EXPR_GE: return RLX_EXPR_LT;
    default: return k;
  }
}

/* Simplifies the children generically and rebuilds e. */
static rlx_expr_t* simp_kids(rlx_analyzer_t* an, rlx_expr_t* e) {
  rlx_expr_t* buf[8];
  rlx_expr_t** kids;
  int n = kids_of(an->ctx, e, buf, 8, &kids);
  rlx_expr_t* nbuf[8];
  rlx_expr_t** nk = n > 8 ? RLX_NEW_ARRAY(an->ctx, rlx_expr_t*, n) : nbuf;
  for (int i = 0; i < n; i++) nk[i] = simp(an, kids[i]);
  return rlx_expr_rebuild(an->ctx, e, nk);
}

static void bind_temp(rlx_analyzer_t* an, rlx_var_t* v, rlx_expr_t* min, rlx_expr_t* extent, binding_t** out_old) {
  *out_old = amap_get(&an->vars, v);
  rlx_analyzer_bind(an, v, min, extent);
}

static rlx_expr_t* simp(rlx_analyzer_t* an, rlx_expr_t* e) {
  rlx_ctx_t* ctx = an->ctx;
  switch (e->kind) {
    case RLX_EXPR_INT_IMM:
    case RLX_EXPR_FLOAT_IMM:
    case RLX_EXPR_STRING_IMM: return e;
    case RLX_EXPR_VAR: {
      binding_t* b = amap_get(&an->vars, e);
      if (b && is_iscalar(e->dtype) && iv_is_const(b->iv)) return rlx_ir_int(ctx, e->dtype, b->iv.lo);
      return e;
    }
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
    case RLX_EXPR_OR: return simp_binary(an, e);
    case RLX_EXPR_NOT: {
      rlx_expr_t* a = simp(an, RLX_AS(rlx_not_t, e)->a);
      if (a->kind == RLX_EXPR_INT_IMM) return rlx_ir_bool(ctx, ivalue(a) == 0);
      if (a->kind == RLX_EXPR_NOT) return RLX_AS(rlx_not_t, a)->a;
      if (a->kind >= RLX_EXPR_EQ && a->kind <= RLX_EXPR_GE) {
        rlx_binary_t* c = RLX_AS(rlx_binary_t, a);
        /* only integers: for floats NaN makes !(a < b) differ from a >= b */
        if (rlx_dtype_is_int(c->a->dtype) || rlx_dtype_is_bool(c->a->dtype))
          return rlx_ir_binary(ctx, negate_cmp(a->kind), c->a, c->b);
      }
      return rlx_ir_not(ctx, a);
    }
    case RLX_EXPR_SELECT: {
      rlx_select_t* s = RLX_AS(rlx_select_t, e);
      rlx_expr_t* c = simp(an, s->cond);
      rlx_expr_t* t = simp_under(an, c, true, s->t);
      rlx_expr_t* f = simp_under(an, c, false, s->f);
      if (c->kind == RLX_EXPR_INT_IMM && c->dtype.lanes == 1) return ivalue(c) ? t : f;
      if (same(t, f)) return t;
      return rlx_ir_select(ctx, c, t, f);
    }
    case RLX_EXPR_CAST: {
      rlx_expr_t* v = simp(an, RLX_AS(rlx_cast_t, e)->value);
      return rlx_ir_cast(ctx, e->dtype, v);
    }
    case RLX_EXPR_LET: {
      rlx_let_t* l = RLX_AS(rlx_let_t, e);
      rlx_expr_t* v = simp(an, l->value);
      if (v->kind == RLX_EXPR_INT_IMM || v->kind == RLX_EXPR_FLOAT_IMM || v->kind == RLX_EXPR_VAR) {
        rlx_ptrmap_t m = {0};
        rlx_ptrmap_put(&m, l->var, v);
        rlx_expr_t* body = rlx_expr_substitute(ctx, l->body, &m);
        rlx_ptrmap_free(&m);
        return simp(an, body);
      }
      binding_t* old = amap_get(&an->vars, l->var);
      if (is_iscalar(v->dtype)) {
        binding_t* nb = RLX_NEW(ctx, binding_t);
        nb->iv = bound(an, v);
        amap_put(ctx, &an->vars, l->var, nb);
      }
      rlx_expr_t* body = simp(an, l->body);
      amap_put(ctx, &an->vars, l->var, old);
      if (!rlx_expr_uses_var(body, l->var)) return body;
      return rlx_ir_let(ctx, l->var, v, body);
    }
    case RLX_EXPR_CALL: {
      rlx_call_t* c0 = RLX_AS(rlx_call_t, e);
      if (strcmp(c0->op, "if_then_else") == 0 && c0->n_args == 3) {
        rlx_expr_t* args[3];
        args[0] = simp(an, c0->args[0]);
        args[1] = simp_under(an, args[0], true, c0->args[1]);
        args[2] = simp_under(an, args[0], false, c0->args[2]);
        if (args[0]->kind == RLX_EXPR_INT_IMM && args[0]->dtype.lanes == 1) return ivalue(args[0]) ? args[1] : args[2];
        return rlx_expr_rebuild(ctx, e, args);
      }
      rlx_expr_t* r = simp_kids(an, e);
      rlx_call_t* c = RLX_AS(rlx_call_t, r);
      if (strcmp(c->op, "if_then_else") == 0 && c->n_args == 3 && c->args[0]->kind == RLX_EXPR_INT_IMM &&
          c->args[0]->dtype.lanes == 1)
        return ivalue(c->args[0]) ? c->args[1] : c->args[2];
      return r;
    }
    case RLX_EXPR_REDUCE: {
      rlx_reduce_t* r = RLX_AS(rlx_reduce_t, e);
      binding_t** old = RLX_NEW_ARRAY(ctx, binding_t*, r->n_axis);
      for (int i = 0; i < r->n_axis; i++) {
        const rlx_iter_var_view_t* iv = (const rlx_iter_var_view_t*)r->axis[i];
        bind_temp(an, iv->var, iv->min, iv->extent, &old[i]);
      }
      rlx_expr_t* out = simp_kids(an, e);
      for (int i = r->n_axis - 1; i >= 0; i--)
        amap_put(ctx, &an->vars, ((const rlx_iter_var_view_t*)r->axis[i])->var, old[i]);
      return out;
    }
    case RLX_EXPR_RAMP: {
      rlx_expr_t* out = simp_kids(an, e);
      rlx_ramp_t* r = RLX_AS(rlx_ramp_t, out);
      if (r->stride->kind == RLX_EXPR_INT_IMM && ivalue(r->stride) == 0) return rlx_ir_broadcast(ctx, r->base, r->lanes);
      return out;
    }
    case RLX_EXPR_BUFFER_LOAD:
    case RLX_EXPR_BROADCAST: return simp_kids(an, e);
    case RLX_EXPR_KIND_COUNT: break;
  }
  return e;
}

/* ------------------------------------------------------------------ public API */
rlx_analyzer_t* rlx_analyzer_create(rlx_ctx_t* ctx) {
  rlx_analyzer_t* an = RLX_NEW(ctx, rlx_analyzer_t);
  an->ctx = ctx;
  return an;
}

void rlx_analyzer_bind(rlx_analyzer_t* an, rlx_var_t* v, rlx_expr_t* min, rlx_expr_t* extent) {
  binding_t* b = RLX_NEW(an->ctx, binding_t);
  rlx_dtype_t t = v->hdr.dtype;
  if (min && !rlx_dtype_eq(min->dtype, t) && rlx_dtype_is_int(min->dtype)) min = rlx_ir_cast(an->ctx, t, min);
  if (extent && !rlx_dtype_eq(extent->dtype, t) && rlx_dtype_is_int(extent->dtype))
    extent = rlx_ir_cast(an->ctx, t, extent);
  b->min = min ? simp(an, min) : NULL;
  b->extent = extent ? simp(an, extent) : NULL;
  ival_t lo = b->min ? bound(an, b->min) : iv_all();
  ival_t ext = b->extent ? bound(an, b->extent) : iv_all();
  b->iv.lo = lo.lo;
  b->iv.hi = add_hi(add_hi(lo.hi, ext.hi), -1);
  if (b->iv.hi < b->iv.lo) b->iv.hi = b->iv.lo; /* empty range: keep it sane */
  amap_put(an->ctx, &an->vars, v, b);
}

void rlx_analyzer_bind_nonneg(rlx_analyzer_t* an, rlx_var_t* v) {
  binding_t* b = RLX_NEW(an->ctx, binding_t);
  b->min = rlx_ir_int(an->ctx, v->hdr.dtype, 0);
  b->iv = iv_make(0, POS_INF);
  amap_put(an->ctx, &an->vars, v, b);
}

rlx_expr_t* rlx_analyzer_simplify(rlx_analyzer_t* an, rlx_expr_t* e) {
  if (!e) return NULL;
  return simp(an, e);
}

bool rlx_analyzer_can_prove(rlx_analyzer_t* an, rlx_expr_t* cond) {
  if (!cond) return false;
  rlx_expr_t* s = simp(an, cond);
  if (s->kind == RLX_EXPR_INT_IMM) return ivalue(s) != 0;
  if (s->kind == RLX_EXPR_AND)
    return rlx_analyzer_can_prove(an, RLX_AS(rlx_binary_t, s)->a) && rlx_analyzer_can_prove(an, RLX_AS(rlx_binary_t, s)->b);
  if (s->kind == RLX_EXPR_OR)
    return rlx_analyzer_can_prove(an, RLX_AS(rlx_binary_t, s)->a) || rlx_analyzer_can_prove(an, RLX_AS(rlx_binary_t, s)->b);
  return false;
}

bool rlx_analyzer_const_bound(rlx_analyzer_t* an, rlx_expr_t* e, int64_t* out_min, int64_t* out_max) {
  ival_t r = iv_all();
  if (e && (is_iscalar(e->dtype) || rlx_dtype_is_bool(e->dtype))) {
    rlx_expr_t* s = simp(an, e);
    r = bound(an, s);
    if (is_iscalar(s->dtype)) r = iv_intersect(r, sum_bound(an, sum_of(an->ctx, s)));
  }
  if (out_min) *out_min = r.lo;
  if (out_max) *out_max = r.hi;
  return r.lo != NEG_INF && r.hi != POS_INF;
}

rlx_expr_t* rlx_ir_simplify(rlx_ctx_t* ctx, rlx_expr_t* e) { return rlx_analyzer_simplify(rlx_analyzer_create(ctx), e); }

bool rlx_ir_prove_equal(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) {
  if (a == b) return true;
  if (!a || !b) return false;
  rlx_analyzer_t* an = rlx_analyzer_create(ctx);
  if (is_iscalar(a->dtype) && is_iscalar(b->dtype)) {
    rlx_expr_t* d = simp(an, rlx_ir_sub(ctx, a, b));
    if (d->kind == RLX_EXPR_INT_IMM) return ivalue(d) == 0;
  }
  return rlx_expr_equal(simp(an, a), simp(an, b));
}
