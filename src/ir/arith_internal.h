/* Internal interface between the two halves of the arithmetic analyzer:
 *   canonical.c — variable bindings, a total order on expressions, interval bounds and the
 *                 canonical sum-of-products form with its symbolic bounds;
 *   simplify.c  — the rewrite rules and the public rlx_analyzer_* / rlx_ir_simplify API.
 * All memory comes from the analyzer's context arena.
 */
#ifndef RLX_IR_ARITH_INTERNAL_H
#define RLX_IR_ARITH_INTERNAL_H

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
} sum_t;

/* ---- small helpers */
static inline bool is_iscalar(rlx_dtype_t t) { return rlx_dtype_is_int(t) && t.lanes == 1; }
static inline int64_t ivalue(const rlx_expr_t* e) { return RLX_AS(const rlx_int_imm_t, e)->value; }
static inline int64_t fdiv64(int64_t a, int64_t b) {
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
static inline int64_t fmod64(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
static inline int64_t gcd64(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}
static inline int64_t abs64(int64_t a) { return a < 0 ? -a : a; }
static inline ival_t iv_make(int64_t lo, int64_t hi) {
  ival_t r = {lo, hi};
  return r;
}
static inline ival_t iv_all(void) { return iv_make(NEG_INF, POS_INF); }
static inline bool iv_is_const(ival_t a) { return a.lo == a.hi && a.lo != NEG_INF && a.hi != POS_INF; }
static inline int64_t add_lo(int64_t a, int64_t b) {
  if (a == NEG_INF || b == NEG_INF) return NEG_INF;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return a < 0 ? NEG_INF : POS_INF;
  return r;
}
static inline int64_t add_hi(int64_t a, int64_t b) {
  if (a == POS_INF || b == POS_INF) return POS_INF;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return a < 0 ? NEG_INF : POS_INF;
  return r;
}
static inline int64_t neg_ext(int64_t a) {
  if (a == NEG_INF) return POS_INF;
  if (a == POS_INF) return NEG_INF;
  return -a;
}
static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static inline ival_t iv_intersect(ival_t a, ival_t b) { return iv_make(max64(a.lo, b.lo), min64(a.hi, b.hi)); }
static inline ival_t iv_union(ival_t a, ival_t b) { return iv_make(min64(a.lo, b.lo), max64(a.hi, b.hi)); }
static inline int64_t wrap(rlx_dtype_t t, int64_t v) {
  if (t.bits >= 64 || t.bits == 0) return v;
  uint64_t m = (1ull << t.bits) - 1;
  uint64_t u = (uint64_t)v & m;
  if (t.code == RLX_DT_INT && (u >> (t.bits - 1))) u |= ~m;
  return (int64_t)u;
}
static inline int64_t wmul(rlx_dtype_t t, int64_t a, int64_t b) { return wrap(t, (int64_t)((uint64_t)a * (uint64_t)b)); }
static inline int64_t wadd(rlx_dtype_t t, int64_t a, int64_t b) { return wrap(t, (int64_t)((uint64_t)a + (uint64_t)b)); }

/* ---- canonical.c */
/* Bindings (arena hash map, NULL value = unbound). */
binding_t* rlx_arith_amap_get(const amap_t* m, const void* k);
void rlx_arith_amap_put(rlx_ctx_t* ctx, amap_t* m, const void* k, binding_t* v);
/* A total order consistent with structural identity (free variables by identity). */
int rlx_arith_expr_cmp(const rlx_expr_t* a, const rlx_expr_t* b);
/* Range of a dtype; interval bound of an integer scalar expression under the bindings. */
ival_t rlx_arith_dtype_range(rlx_dtype_t t);
ival_t rlx_arith_bound(rlx_analyzer_t* an, const rlx_expr_t* e);
/* Canonical sums: construction, normalization (sort, merge, drop zeros), arithmetic,
 * reading an already simplified expression, rebuilding, and the best constant bound. */
sum_t* rlx_arith_sum_new(rlx_ctx_t* ctx, rlx_dtype_t dt, int cap);
void rlx_arith_sum_push(rlx_ctx_t* ctx, sum_t* s, int64_t c, int n, rlx_expr_t** atoms);
void rlx_arith_sum_normalize(sum_t* s);
void rlx_arith_sum_add(rlx_ctx_t* ctx, sum_t* s, const sum_t* x, int64_t scale);
sum_t* rlx_arith_sum_mul(rlx_ctx_t* ctx, const sum_t* x, const sum_t* y);
sum_t* rlx_arith_sum_of(rlx_ctx_t* ctx, rlx_expr_t* e);
rlx_expr_t* rlx_arith_sum_expr(rlx_ctx_t* ctx, const sum_t* s);
sum_t* rlx_arith_sum_diff(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);
ival_t rlx_arith_sum_bound(rlx_analyzer_t* an, const sum_t* s);
rlx_expr_t** rlx_arith_atoms_merge(rlx_ctx_t* ctx, const rlx_expr_t* const* a, int na, const rlx_expr_t* const* b, int nb);

#endif
