/* Arithmetic analysis: the simplifier and the prover (second half; canonical.c holds the
 * bindings, interval bounds and canonical sums they use).
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

#include "arith_internal.h"

/* ------------------------------------------------------------------ simplifier */
static rlx_expr_t* simp(rlx_analyzer_t* an, rlx_expr_t* e);

static bool same(const rlx_expr_t* a, const rlx_expr_t* b) { return rlx_arith_expr_cmp(a, b) == 0; }

/* Bound of a - b (integer scalars). */
static ival_t diff_bound(rlx_analyzer_t* an, rlx_expr_t* a, rlx_expr_t* b) {
  return rlx_arith_sum_bound(an, rlx_arith_sum_diff(an->ctx, a, b));
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
      sum_t* ds = rlx_arith_sum_of(ctx, d);
      if (ds->n == 1 && ds->cst == 0 && ds->t[0].c == 1) {
        rlx_expr_t* fdx = rlx_ir_floordiv(ctx, x, d);
        rlx_expr_t** want = rlx_arith_atoms_merge(ctx, (const rlx_expr_t* const*)&fdx, 1,
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
    sum_t* add = rlx_arith_sum_of(ctx, repl);
    rlx_arith_sum_add(ctx, s, add, coef);
    rlx_arith_sum_normalize(s);
    return true;
  }
  return false;
}

static rlx_expr_t* simp_sum(rlx_analyzer_t* an, sum_t* s) {
  for (int guard = 0; guard < 16 && fold_divmod(an, s); guard++) {
  }
  return rlx_arith_sum_expr(an->ctx, s);
}

/* Splits s into q*div + r where every term of the q part is divisible by the constant
 * div > 0 (the constant goes by floor division). */
static void split_by_const(rlx_ctx_t* ctx, const sum_t* s, int64_t div, sum_t** out_q, sum_t** out_r) {
  sum_t* q = rlx_arith_sum_new(ctx, s->dt, s->n);
  sum_t* r = rlx_arith_sum_new(ctx, s->dt, s->n);
  for (int i = 0; i < s->n; i++) {
    if (s->t[i].c % div == 0) rlx_arith_sum_push(ctx, q, s->t[i].c / div, s->t[i].n, s->t[i].a);
    else rlx_arith_sum_push(ctx, r, s->t[i].c, s->t[i].n, s->t[i].a);
  }
  q->cst = fdiv64(s->cst, div);
  r->cst = fmod64(s->cst, div);
  *out_q = q;
  *out_r = r;
}

/* Splits s into q*d + r where d is the product of atoms of the monomial dm (coefficient 1). */
static void split_by_mono(rlx_ctx_t* ctx, const sum_t* s, const term_t* dm, sum_t** out_q, sum_t** out_r) {
  sum_t* q = rlx_arith_sum_new(ctx, s->dt, s->n);
  sum_t* r = rlx_arith_sum_new(ctx, s->dt, s->n);
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
      else rlx_arith_sum_push(ctx, q, t->c, ri, rest);
    } else {
      rlx_arith_sum_push(ctx, r, t->c, t->n, t->a);
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
    sum_t* s = rlx_arith_sum_of(ctx, a);
    sum_t *q, *r;
    split_by_const(ctx, s, c, &q, &r);
    rlx_arith_sum_normalize(q);
    rlx_arith_sum_normalize(r);
    ival_t rb = rlx_arith_sum_bound(an, r);
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
      return simp_sum(an, rlx_arith_sum_of(ctx, inner));
    }
    sum_t* out = rlx_arith_sum_new(ctx, dt, q->n + 1);
    rlx_arith_sum_add(ctx, out, q, 1);
    rlx_arith_sum_add(ctx, out, rlx_arith_sum_of(ctx, inner), 1);
    rlx_arith_sum_normalize(out);
    return simp_sum(an, out);
  }
  /* Symbolic divisor that is a single product of atoms (n, n*m), known non-negative. */
  sum_t* bs = rlx_arith_sum_of(ctx, b);
  /* (a divisor of 0 is undefined behaviour anyway, so non-negative is enough) */
  if (bs->n == 1 && bs->cst == 0 && bs->t[0].c == 1 && rlx_arith_sum_bound(an, bs).lo >= 0) {
    sum_t* s = rlx_arith_sum_of(ctx, a);
    sum_t *q, *r;
    split_by_mono(ctx, s, &bs->t[0], &q, &r);
    rlx_arith_sum_normalize(q);
    rlx_arith_sum_normalize(r);
    if (q->n || q->cst) {
      bool r_in = rlx_arith_sum_bound(an, r).lo >= 0 && diff_bound(an, rlx_arith_sum_expr(ctx, r), b).hi < 0;
      if (is_mod) {
        if (r_in) return simp_sum(an, r);
        return rlx_ir_floormod(ctx, rlx_arith_sum_expr(ctx, r), b);
      }
      if (r_in) return simp_sum(an, q);
      sum_t* out = rlx_arith_sum_new(ctx, dt, q->n + 1);
      rlx_arith_sum_add(ctx, out, q, 1);
      rlx_arith_sum_add(ctx, out, rlx_arith_sum_of(ctx, rlx_ir_floordiv(ctx, rlx_arith_sum_expr(ctx, r), b)), 1);
      rlx_arith_sum_normalize(out);
      return simp_sum(an, out);
    }
    ival_t ab = rlx_arith_bound(an, a);
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
  if (a->dtype.code == RLX_DT_UINT) {
    /* a - b wraps in an unsigned type: decide only from the operands' own bounds, and never
     * rewrite into a difference compared with 0 */
    ival_t ra = rlx_arith_bound(an, a), rb = rlx_arith_bound(an, b);
    int res = -1;
    switch (k) {
      case RLX_EXPR_LT: res = ra.hi < rb.lo ? 1 : ra.lo >= rb.hi ? 0 : -1; break;
      case RLX_EXPR_LE: res = ra.hi <= rb.lo ? 1 : ra.lo > rb.hi ? 0 : -1; break;
      case RLX_EXPR_GT: res = ra.lo > rb.hi ? 1 : ra.hi <= rb.lo ? 0 : -1; break;
      case RLX_EXPR_GE: res = ra.lo >= rb.hi ? 1 : ra.hi < rb.lo ? 0 : -1; break;
      case RLX_EXPR_EQ: res = (ra.hi < rb.lo || ra.lo > rb.hi) ? 0 : -1; break;
      case RLX_EXPR_NE: res = (ra.hi < rb.lo || ra.lo > rb.hi) ? 1 : -1; break;
      default: break;
    }
    return res >= 0 ? rlx_ir_bool(ctx, res == 1) : rlx_ir_binary(ctx, k, a, b);
  }
  sum_t* d = rlx_arith_sum_diff(ctx, a, b);
  ival_t r = rlx_arith_sum_bound(an, d);
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
  sum_t* l = rlx_arith_sum_new(ctx, a->dtype, d->n);
  sum_t* rr = rlx_arith_sum_new(ctx, a->dtype, d->n);
  for (int i = 0; i < d->n; i++) {
    if (d->t[i].c > 0) rlx_arith_sum_push(ctx, l, d->t[i].c, d->t[i].n, d->t[i].a);
    else rlx_arith_sum_push(ctx, rr, -d->t[i].c, d->t[i].n, d->t[i].a);
  }
  if (d->cst > 0) l->cst = d->cst;
  else rr->cst = -d->cst;
  return rlx_ir_binary(ctx, k, rlx_arith_sum_expr(ctx, l), rlx_arith_sum_expr(ctx, rr));
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
  binding_t* old = rlx_arith_amap_get(&an->vars, v);
  binding_t* nb = RLX_NEW(an->ctx, binding_t);
  if (old) *nb = *old;
  else nb->iv = rlx_arith_dtype_range(v->dtype);
  nb->iv = iv_intersect(nb->iv, f);
  if (nb->iv.lo > nb->iv.hi) return n; /* an unreachable side: learn nothing */
  rlx_arith_amap_put(an->ctx, &an->vars, v, nb);
  sv[n].var = RLX_AS(rlx_var_t, v);
  sv[n].old = old;
  return n + 1;
}

static void pop_facts(rlx_analyzer_t* an, saved_t* sv, int n) {
  for (int i = n - 1; i >= 0; i--) rlx_arith_amap_put(an->ctx, &an->vars, sv[i].var, sv[i].old);
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
  /* int64 constant arithmetic that overflows stays as it is, never wrapped by the sums below
   * (rlx_expr_is_int64_overflow); other constant pairs fold */
  if (rlx_expr_is_int64_overflow(a) || rlx_expr_is_int64_overflow(b) ||
      (a->kind == RLX_EXPR_INT_IMM && b->kind == RLX_EXPR_INT_IMM))
    return rlx_ir_binary(ctx, k, a, b);
  switch (k) {
    case RLX_EXPR_ADD:
    case RLX_EXPR_SUB:
    case RLX_EXPR_MUL: {
      sum_t* sa = rlx_arith_sum_of(ctx, a);
      sum_t* sb = rlx_arith_sum_of(ctx, b);
      sum_t* s;
      if (k == RLX_EXPR_MUL) {
        s = rlx_arith_sum_mul(ctx, sa, sb);
        if (!s) return rlx_ir_mul(ctx, a, b);
      } else {
        s = rlx_arith_sum_new(ctx, dt, sa->n + sb->n);
        rlx_arith_sum_add(ctx, s, sa, 1);
        rlx_arith_sum_add(ctx, s, sb, k == RLX_EXPR_ADD ? 1 : -1);
        rlx_arith_sum_normalize(s);
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
      if (rlx_arith_bound(an, a).lo >= 0 && rlx_arith_bound(an, b).lo >= 1) {
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
      bool is_min = k == RLX_EXPR_MIN;
      if (a->dtype.code == RLX_DT_UINT) {
        /* a - b wraps in an unsigned type: compare the operands' own bounds instead */
        ival_t ra = rlx_arith_bound(an, a), rb = rlx_arith_bound(an, b);
        if (ra.hi <= rb.lo) return is_min ? a : b;
        if (ra.lo >= rb.hi) return is_min ? b : a;
        return rlx_ir_binary(ctx, k, a, b);
      }
      ival_t r = diff_bound(an, a, b);
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
  *out_old = rlx_arith_amap_get(&an->vars, v);
  rlx_analyzer_bind(an, v, min, extent);
}

static rlx_expr_t* simp(rlx_analyzer_t* an, rlx_expr_t* e) {
  rlx_ctx_t* ctx = an->ctx;
  switch (e->kind) {
    case RLX_EXPR_INT_IMM:
    case RLX_EXPR_FLOAT_IMM:
    case RLX_EXPR_STRING_IMM: return e;
    case RLX_EXPR_VAR: {
      binding_t* b = rlx_arith_amap_get(&an->vars, e);
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
      binding_t* old = rlx_arith_amap_get(&an->vars, l->var);
      if (is_iscalar(v->dtype)) {
        binding_t* nb = RLX_NEW(ctx, binding_t);
        nb->iv = rlx_arith_bound(an, v);
        rlx_arith_amap_put(ctx, &an->vars, l->var, nb);
      }
      rlx_expr_t* body = simp(an, l->body);
      rlx_arith_amap_put(ctx, &an->vars, l->var, old);
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
        rlx_arith_amap_put(ctx, &an->vars, ((const rlx_iter_var_view_t*)r->axis[i])->var, old[i]);
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
  ival_t lo = b->min ? rlx_arith_bound(an, b->min) : iv_all();
  ival_t ext = b->extent ? rlx_arith_bound(an, b->extent) : iv_all();
  b->iv.lo = lo.lo;
  b->iv.hi = add_hi(add_hi(lo.hi, ext.hi), -1);
  if (b->iv.hi < b->iv.lo) b->iv.hi = b->iv.lo; /* empty range: keep it sane */
  rlx_arith_amap_put(an->ctx, &an->vars, v, b);
}

void rlx_analyzer_bind_nonneg(rlx_analyzer_t* an, rlx_var_t* v) {
  binding_t* b = RLX_NEW(an->ctx, binding_t);
  b->min = rlx_ir_int(an->ctx, v->hdr.dtype, 0);
  b->iv = iv_make(0, POS_INF);
  rlx_arith_amap_put(an->ctx, &an->vars, v, b);
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
    r = rlx_arith_bound(an, s);
    if (is_iscalar(s->dtype)) r = iv_intersect(r, rlx_arith_sum_bound(an, rlx_arith_sum_of(an->ctx, s)));
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
