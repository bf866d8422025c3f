/* Arithmetic analysis, first half: variable bindings, a total order on expressions, interval
 * bounds and canonical sums (see simplify.c for the form and arith_internal.h for the split).
 */
#include <stdlib.h>
#include <string.h>

#include "arith_internal.h"

/* ------------------------------------------------------------------ arena hash map */
static size_t amap_slot(const void* k, size_t cap) {
  uint64_t h = (uint64_t)(uintptr_t)k * 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 17) & (cap - 1);
}

binding_t* rlx_arith_amap_get(const amap_t* m, const void* k) {
  if (!m->cap) return NULL;
  size_t s = amap_slot(k, m->cap);
  while (m->keys[s]) {
    if (m->keys[s] == k) return m->vals[s];
    s = (s + 1) & (m->cap - 1);
  }
  return NULL;
}

void rlx_arith_amap_put(rlx_ctx_t* ctx, amap_t* m, const void* k, binding_t* v) {
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




/* ------------------------------------------------------------------ total order on exprs */
static int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }
static int cmp_ptr(const void* a, const void* b) { return (uintptr_t)a < (uintptr_t)b ? -1 : (uintptr_t)a > (uintptr_t)b; }

/* A total order consistent with structural identity (0 iff the same tree, free variables by
 * identity). Variables order by name, then by address. */
int rlx_arith_expr_cmp(const rlx_expr_t* a, const rlx_expr_t* b) {
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
      if (!x->init != !y->init) return x->init ? 1 : -1;
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
    for (int i = 0; i < na && !c; i++) c = rlx_arith_expr_cmp(xa[i], xb[i]);
    free(xa);
    free(xb);
    return c;
  }
  for (int i = 0; i < na; i++)
    if ((c = rlx_arith_expr_cmp(ka[i], kb[i])) != 0) return c;
  return 0;
}

/* ------------------------------------------------------------------ interval arithmetic */

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

ival_t rlx_arith_dtype_range(rlx_dtype_t t) {
  if (rlx_dtype_is_bool(t)) return iv_make(0, 1);
  if (t.code == RLX_DT_INT && t.bits < 64 && t.bits > 0)
    return iv_make(-((int64_t)1 << (t.bits - 1)), ((int64_t)1 << (t.bits - 1)) - 1);
  if (t.code == RLX_DT_UINT && t.bits < 64 && t.bits > 0) return iv_make(0, ((int64_t)1 << t.bits) - 1);
  if (t.code == RLX_DT_UINT) return iv_make(0, POS_INF);
  return iv_all();
}

static ival_t bound_var(rlx_analyzer_t* an, const rlx_expr_t* e) {
  binding_t* b = rlx_arith_amap_get(&an->vars, e);
  ival_t r = rlx_arith_dtype_range(e->dtype);
  return b ? iv_intersect(r, b->iv) : r;
}

static ival_t bound_binary(rlx_analyzer_t* an, const rlx_expr_t* e) {
  const rlx_binary_t* x = RLX_AS(const rlx_binary_t, e);
  ival_t a = rlx_arith_bound(an, x->a), b = rlx_arith_bound(an, x->b);
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
ival_t rlx_arith_bound(rlx_analyzer_t* an, const rlx_expr_t* e) {
  if (!is_iscalar(e->dtype) && !rlx_dtype_is_bool(e->dtype)) return iv_all();
  if (e->dtype.lanes != 1) return iv_all();
  ival_t r = rlx_arith_dtype_range(e->dtype);
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
      return iv_intersect(r, iv_union(rlx_arith_bound(an, s->t), rlx_arith_bound(an, s->f)));
    }
    case RLX_EXPR_CAST: {
      const rlx_expr_t* v = RLX_AS(const rlx_cast_t, e)->value;
      if (!rlx_dtype_is_int(v->dtype) && !rlx_dtype_is_bool(v->dtype)) return r;
      ival_t c = rlx_arith_bound(an, v);
      if (c.lo >= r.lo && c.hi <= r.hi) return c;
      return r;
    }
    case RLX_EXPR_LET: {
      const rlx_let_t* l = RLX_AS(const rlx_let_t, e);
      binding_t* old = rlx_arith_amap_get(&an->vars, l->var);
      binding_t* nb = RLX_NEW(an->ctx, binding_t);
      nb->iv = rlx_arith_bound(an, l->value);
      rlx_arith_amap_put(an->ctx, &an->vars, l->var, nb);
      ival_t b = rlx_arith_bound(an, l->body);
      rlx_arith_amap_put(an->ctx, &an->vars, l->var, old);
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


sum_t* rlx_arith_sum_new(rlx_ctx_t* ctx, rlx_dtype_t dt, int cap) {
  sum_t* s = RLX_NEW(ctx, sum_t);
  s->dt = dt;
  s->cap = cap > 0 ? cap : 4;
  s->t = RLX_NEW_ARRAY(ctx, term_t, s->cap);
  return s;
}

void rlx_arith_sum_push(rlx_ctx_t* ctx, sum_t* s, int64_t c, int n, rlx_expr_t** atoms) {
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
    int c = rlx_arith_expr_cmp(x->a[i], y->a[i]);
    if (c) return c;
  }
  return x->n < y->n ? -1 : x->n > y->n;
}
static int mono_qcmp(const void* a, const void* b) { return mono_cmp(a, b); }

/* Sorts terms, merges equal products and drops zero coefficients. */
void rlx_arith_sum_normalize(sum_t* s) {
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

void rlx_arith_sum_add(rlx_ctx_t* ctx, sum_t* s, const sum_t* x, int64_t scale) {
  s->cst = wadd(s->dt, s->cst, wmul(s->dt, x->cst, scale));
  for (int i = 0; i < x->n; i++) rlx_arith_sum_push(ctx, s, wmul(s->dt, x->t[i].c, scale), x->t[i].n, x->t[i].a);
}

rlx_expr_t** rlx_arith_atoms_merge(rlx_ctx_t* ctx, const rlx_expr_t* const* a, int na, const rlx_expr_t* const* b, int nb) {
  rlx_expr_t** r = RLX_NEW_ARRAY(ctx, rlx_expr_t*, na + nb);
  int i = 0, j = 0, k = 0;
  while (i < na && j < nb) r[k++] = (rlx_expr_t*)(rlx_arith_expr_cmp(a[i], b[j]) <= 0 ? a[i++] : b[j++]);
  while (i < na) r[k++] = (rlx_expr_t*)a[i++];
  while (j < nb) r[k++] = (rlx_expr_t*)b[j++];
  return r;
}

static sum_t* sum_atom(rlx_ctx_t* ctx, rlx_expr_t* e) {
  sum_t* s = rlx_arith_sum_new(ctx, e->dtype, 1);
  rlx_expr_t** a = RLX_NEW_ARRAY(ctx, rlx_expr_t*, 1);
  a[0] = e;
  rlx_arith_sum_push(ctx, s, 1, 1, a);
  return s;
}

/* x * y expanded; NULL when the expansion would be too large. */
sum_t* rlx_arith_sum_mul(rlx_ctx_t* ctx, const sum_t* x, const sum_t* y) {
  if ((x->n + 1) * (y->n + 1) > MAX_EXPAND) return NULL;
  sum_t* s = rlx_arith_sum_new(ctx, x->dt, (x->n + 1) * (y->n + 1));
  rlx_dtype_t t = x->dt;
  s->cst = wmul(t, x->cst, y->cst);
  for (int i = 0; i < y->n; i++) rlx_arith_sum_push(ctx, s, wmul(t, x->cst, y->t[i].c), y->t[i].n, y->t[i].a);
  for (int i = 0; i < x->n; i++) rlx_arith_sum_push(ctx, s, wmul(t, y->cst, x->t[i].c), x->t[i].n, x->t[i].a);
  for (int i = 0; i < x->n; i++)
    for (int j = 0; j < y->n; j++)
      rlx_arith_sum_push(ctx, s, wmul(t, x->t[i].c, y->t[j].c), x->t[i].n + y->t[j].n,
               rlx_arith_atoms_merge(ctx, (const rlx_expr_t* const*)x->t[i].a, x->t[i].n,
                           (const rlx_expr_t* const*)y->t[j].a, y->t[j].n));
  rlx_arith_sum_normalize(s);
  return s;
}

/* Reads an already simplified integer expression as a sum (no simplification of atoms). */
sum_t* rlx_arith_sum_of(rlx_ctx_t* ctx, rlx_expr_t* e) {
  switch (e->kind) {
    case RLX_EXPR_INT_IMM: {
      sum_t* s = rlx_arith_sum_new(ctx, e->dtype, 1);
      s->cst = ivalue(e);
      return s;
    }
    case RLX_EXPR_ADD:
    case RLX_EXPR_SUB: {
      const rlx_binary_t* b = RLX_AS(const rlx_binary_t, e);
      sum_t* x = rlx_arith_sum_of(ctx, b->a);
      sum_t* y = rlx_arith_sum_of(ctx, b->b);
      sum_t* s = rlx_arith_sum_new(ctx, e->dtype, x->n + y->n);
      rlx_arith_sum_add(ctx, s, x, 1);
      rlx_arith_sum_add(ctx, s, y, e->kind == RLX_EXPR_ADD ? 1 : -1);
      rlx_arith_sum_normalize(s);
      return s;
    }
    case RLX_EXPR_MUL: {
      const rlx_binary_t* b = RLX_AS(const rlx_binary_t, e);
      sum_t* s = rlx_arith_sum_mul(ctx, rlx_arith_sum_of(ctx, b->a), rlx_arith_sum_of(ctx, b->b));
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
rlx_expr_t* rlx_arith_sum_expr(rlx_ctx_t* ctx, const sum_t* s) {
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

sum_t* rlx_arith_sum_diff(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) {
  sum_t* x = rlx_arith_sum_of(ctx, a);
  sum_t* y = rlx_arith_sum_of(ctx, b);
  sum_t* s = rlx_arith_sum_new(ctx, a->dtype, x->n + y->n);
  rlx_arith_sum_add(ctx, s, x, 1);
  rlx_arith_sum_add(ctx, s, y, -1);
  rlx_arith_sum_normalize(s);
  return s;
}

/* Interval of a sum: coefficients times products of atom intervals. */
static ival_t sum_interval(rlx_analyzer_t* an, const sum_t* s) {
  ival_t r = iv_make(s->cst, s->cst);
  for (int i = 0; i < s->n; i++) {
    ival_t m = iv_make(1, 1);
    for (int k = 0; k < s->t[i].n; k++) m = iv_mul(m, rlx_arith_bound(an, s->t[i].a[k]));
    r = iv_add(r, iv_scale(m, s->t[i].c));
  }
  return r;
}

/* The symbolic bound (dir > 0: upper, dir < 0: lower) of atom x, or NULL. For min (upper)
 * and max (lower) either operand is a bound: the one matching want_sym is preferred. */
static rlx_expr_t* atom_sym_bound(rlx_analyzer_t* an, rlx_expr_t* x, int dir, bool want_sym) {
  if (x->kind == RLX_EXPR_VAR) {
    binding_t* b = rlx_arith_amap_get(&an->vars, x);
    if (!b || !b->min) return NULL;
    if (dir < 0) return b->min;
    if (!b->extent) return NULL;
    return rlx_ir_sub(an->ctx, rlx_ir_add(an->ctx, b->min, b->extent), rlx_ir_int(an->ctx, x->dtype, 1));
  }
  if (x->kind == RLX_EXPR_FLOOR_MOD) {
    rlx_expr_t* d = RLX_AS(rlx_binary_t, x)->b;
    if (rlx_arith_bound(an, d).lo < 0) return NULL;
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
  sum_t* r = rlx_arith_sum_new(ctx, s->dt, s->n + 4);
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
        rest = iv_mul(rest, rlx_arith_bound(an, t->a[j]));
      }
      if (rest.lo < 0) continue;
      sum_t* rs = rlx_arith_sum_new(ctx, s->dt, 1);
      rlx_arith_sum_push(ctx, rs, coef, rn, ra); /* rn == 0 makes it the constant */
      sum_t* p = rlx_arith_sum_mul(ctx, rs, rlx_arith_sum_of(ctx, repl));
      if (!p) continue;
      rlx_arith_sum_add(ctx, r, p, 1);
      done = 1;
    }
    if (done) changed = true;
    else rlx_arith_sum_push(ctx, r, t->c, t->n, t->a);
  }
  if (!changed) return NULL;
  rlx_arith_sum_normalize(r);
  return r;
}

/* Best constant bound of a sum, using symbolic substitution and intervals. */
ival_t rlx_arith_sum_bound(rlx_analyzer_t* an, const sum_t* s) {
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
