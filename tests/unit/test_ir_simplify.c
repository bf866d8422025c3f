/* Arithmetic simplifier and prover: canonical sums, split/fuse index patterns, ranges, things
 * that must not simplify, floats left alone. */
#include <stdlib.h>

#include "ir/ir.h"
#include "test.h"

/* A small printer, only for failure messages. */
static void pr(rlx_strbuf_t* sb, const rlx_expr_t* e) {
  static const char* ops[] = {[RLX_EXPR_ADD] = "+", [RLX_EXPR_SUB] = "-", [RLX_EXPR_MUL] = "*",
                              [RLX_EXPR_DIV] = "/", [RLX_EXPR_MOD] = "%", [RLX_EXPR_EQ] = "==",
                              [RLX_EXPR_NE] = "!=", [RLX_EXPR_LT] = "<", [RLX_EXPR_LE] = "<=",
                              [RLX_EXPR_GT] = ">", [RLX_EXPR_GE] = ">=", [RLX_EXPR_AND] = "&&",
                              [RLX_EXPR_OR] = "||"};
  switch (e->kind) {
    case RLX_EXPR_INT_IMM: rlx_strbuf_printf(sb, "%lld", (long long)RLX_AS(const rlx_int_imm_t, e)->value); return;
    case RLX_EXPR_FLOAT_IMM: rlx_strbuf_printf(sb, "%gf", RLX_AS(const rlx_float_imm_t, e)->value); return;
    case RLX_EXPR_VAR: rlx_strbuf_append(sb, RLX_AS(const rlx_var_t, e)->name); return;
    default: break;
  }
  if (rlx_expr_is_binary(e->kind) && e->kind != RLX_EXPR_FLOOR_DIV && e->kind != RLX_EXPR_FLOOR_MOD &&
      e->kind != RLX_EXPR_MIN && e->kind != RLX_EXPR_MAX) {
    rlx_strbuf_append(sb, "(");
    pr(sb, RLX_AS(const rlx_binary_t, e)->a);
    rlx_strbuf_printf(sb, " %s ", ops[e->kind]);
    pr(sb, RLX_AS(const rlx_binary_t, e)->b);
    rlx_strbuf_append(sb, ")");
    return;
  }
  rlx_strbuf_printf(sb, "%s(", rlx_expr_kind_name(e->kind));
  rlx_expr_t* k[8];
  int n = rlx_expr_children(e, k, 8);
  for (int i = 0; i < n && i < 8; i++) {
    if (i) rlx_strbuf_append(sb, ", ");
    pr(sb, k[i]);
  }
  rlx_strbuf_append(sb, ")");
}

static char* str(const rlx_expr_t* e) {
  rlx_strbuf_t sb = {0};
  pr(&sb, e);
  return rlx_strbuf_take(&sb);
}

/* Checks that simplify(got) is structurally equal to want. */
#define CHECK_SIMP(an, got, want)                                                        \
  do {                                                                                   \
    rlx_expr_t* g_ = rlx_analyzer_simplify((an), (got));                                 \
    rlx_expr_t* w_ = (want);                                                             \
    char* gs_ = str(g_);                                                                 \
    char* ws_ = str(w_);                                                                 \
    CHECK_MSG(rlx_expr_equal(g_, w_), "got %s, want %s", gs_, ws_);                      \
    free(gs_);                                                                           \
    free(ws_);                                                                           \
  } while (0)

static rlx_ctx_t* C;
static rlx_expr_t* I(int64_t v) { return rlx_ir_i64(C, v); }
static rlx_expr_t* add(rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_add(C, a, b); }
static rlx_expr_t* sub(rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_sub(C, a, b); }
static rlx_expr_t* mul(rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_mul(C, a, b); }
static rlx_expr_t* fdv(rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_floordiv(C, a, b); }
static rlx_expr_t* fmd(rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_floormod(C, a, b); }
static rlx_expr_t* lt(rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_cmp(C, RLX_EXPR_LT, a, b); }
static rlx_expr_t* V(rlx_var_t* v) { return &v->hdr; }

static void test_canonical(void) {
  rlx_analyzer_t* an = rlx_analyzer_create(C);
  rlx_var_t* n = rlx_ir_var(C, "n", rlx_dt_int64());
  rlx_var_t* m = rlx_ir_var(C, "m", rlx_dt_int64());
  rlx_var_t* x = rlx_ir_var(C, "x", rlx_dt_int64());
  rlx_var_t* y = rlx_ir_var(C, "y", rlx_dt_int64());
  /* n*m and m*n canonicalize to the same expression */
  rlx_expr_t* nm = rlx_analyzer_simplify(an, mul(V(n), V(m)));
  rlx_expr_t* mn = rlx_analyzer_simplify(an, mul(V(m), V(n)));
  CHECK(rlx_expr_equal(nm, mn));
  CHECK(rlx_ir_prove_equal(C, mul(V(n), V(m)), mul(V(m), V(n))));
  CHECK(rlx_ir_prove_equal(C, add(mul(V(n), V(m)), I(0)), mul(V(m), V(n))));
  CHECK(!rlx_ir_prove_equal(C, mul(V(n), V(m)), mul(V(n), V(n))));
  /* (n+1)-1 → n */
  CHECK_SIMP(an, sub(add(V(n), I(1)), I(1)), V(n));
  /* x*4 + y - x*4 → y */
  CHECK_SIMP(an, sub(add(mul(V(x), I(4)), V(y)), mul(V(x), I(4))), V(y));
  /* constants fold: 3*x + 4*x - 7*x + (2+5) → 7 */
  CHECK_SIMP(an, add(sub(add(mul(I(3), V(x)), mul(V(x), I(4))), mul(I(7), V(x))), add(I(2), I(5))), I(7));
  /* distribution: (x + 1) * 4 - 4 → x*4 */
  CHECK_SIMP(an, sub(mul(add(V(x), I(1)), I(4)), I(4)), mul(V(x), I(4)));
  /* ordering: terms by degree then |coefficient|: ii + io*4 → io*4 + ii */
  rlx_var_t* io = rlx_ir_var(C, "io", rlx_dt_int64());
  rlx_var_t* ii = rlx_ir_var(C, "ii", rlx_dt_int64());
  CHECK_SIMP(an, add(V(ii), mul(V(io), I(4))), add(mul(V(io), I(4)), V(ii)));
  /* negative terms subtract: x - y stays x - y; 5 - x stays 5 - x */
  CHECK_SIMP(an, sub(V(x), V(y)), sub(V(x), V(y)));
  CHECK_SIMP(an, sub(I(5), V(x)), sub(I(5), V(x)));
  /* (n*m + n) - n*(m+1) → 0 */
  CHECK_SIMP(an, sub(add(mul(V(n), V(m)), V(n)), mul(V(n), add(V(m), I(1)))), I(0));
  /* idempotent */
  rlx_expr_t* e = rlx_analyzer_simplify(an, add(mul(add(V(x), V(y)), add(V(x), I(2))), V(n)));
  CHECK(rlx_expr_equal(rlx_analyzer_simplify(an, e), e));
  /* int32 stays int32 */
  rlx_var_t* k = rlx_ir_var(C, "k", rlx_dt_int32());
  rlx_expr_t* k1 = rlx_analyzer_simplify(an, sub(add(V(k), rlx_ir_i32(C, 3)), rlx_ir_i32(C, 3)));
  CHECK(k1 == V(k));
}

static void test_split_fuse(void) {
  rlx_analyzer_t* an = rlx_analyzer_create(C);
  rlx_var_t* io = rlx_ir_var(C, "io", rlx_dt_int64());
  rlx_var_t* ii = rlx_ir_var(C, "ii", rlx_dt_int64());
  rlx_analyzer_bind(an, io, I(0), I(8));
  rlx_analyzer_bind(an, ii, I(0), I(4));
  rlx_expr_t* i = add(mul(V(io), I(4)), V(ii));
  CHECK_SIMP(an, fdv(i, I(4)), V(io));
  CHECK_SIMP(an, fmd(i, I(4)), V(ii));
  CHECK_SIMP(an, fdv(add(mul(V(ii), I(8)), V(io)), I(8)), V(ii)); /* io in [0,8) */
  CHECK_SIMP(an, lt(i, I(32)), rlx_ir_bool(C, true));
  CHECK_SIMP(an, lt(i, I(31)), lt(i, I(31)));
  int64_t lo, hi;
  CHECK(rlx_analyzer_const_bound(an, i, &lo, &hi) && lo == 0 && hi == 31);
  /* floordiv(x, c) → 0 and floormod(x, c) → x when 0 <= x < c */
  CHECK_SIMP(an, fdv(V(ii), I(4)), I(0));
  CHECK_SIMP(an, fmd(V(ii), I(4)), V(ii));
  CHECK_SIMP(an, fdv(V(ii), I(2)), fdv(V(ii), I(2)));
  /* fuse: f in [0, 128), i = f / 16, j = f % 16, flattened back: i*16 + j → f */
  rlx_var_t* f = rlx_ir_var(C, "f", rlx_dt_int64());
  rlx_analyzer_bind(an, f, I(0), I(128));
  CHECK_SIMP(an, add(mul(fdv(V(f), I(16)), I(16)), fmd(V(f), I(16))), V(f));
  /* three fused loops [8, 3, 4]: (f/12)*12 + ((f%12)/4)*4 + (f%12)%4 → f */
  rlx_expr_t* a0 = fdv(V(f), I(12));
  rlx_expr_t* a1 = fdv(fmd(V(f), I(12)), I(4));
  rlx_expr_t* a2 = fmd(fmd(V(f), I(12)), I(4));
  CHECK_SIMP(an, add(add(mul(a0, I(12)), mul(a1, I(4))), a2), V(f));
  /* nested: (f % 12) % 4 → f % 4, (f / 4) / 2 → f / 8 */
  CHECK_SIMP(an, fmd(fmd(V(f), I(12)), I(4)), fmd(V(f), I(4)));
  CHECK_SIMP(an, fdv(fdv(V(f), I(4)), I(2)), fdv(V(f), I(8)));
  /* split of a fused loop: f = fo*32 + fi, (f / 16) stays symbolic but canonical */
  rlx_var_t* fo = rlx_ir_var(C, "fo", rlx_dt_int64());
  rlx_var_t* fi = rlx_ir_var(C, "fi", rlx_dt_int64());
  rlx_analyzer_bind(an, fo, I(0), I(4));
  rlx_analyzer_bind(an, fi, I(0), I(32));
  CHECK_SIMP(an, fdv(add(mul(V(fo), I(32)), V(fi)), I(16)), add(mul(V(fo), I(2)), fdv(V(fi), I(16))));
  CHECK_SIMP(an, fmd(add(mul(V(fo), I(32)), V(fi)), I(16)), fmd(V(fi), I(16)));
  /* symbolic: i in [0, m), j in [0, n): floordiv(i*n + j, n) → i, floormod → j */
  rlx_var_t* n = rlx_ir_var(C, "n", rlx_dt_int64());
  rlx_var_t* m = rlx_ir_var(C, "m", rlx_dt_int64());
  rlx_analyzer_bind_nonneg(an, n);
  rlx_analyzer_bind_nonneg(an, m);
  rlx_var_t* si = rlx_ir_var(C, "i", rlx_dt_int64());
  rlx_var_t* sj = rlx_ir_var(C, "j", rlx_dt_int64());
  rlx_analyzer_bind(an, si, I(0), V(m));
  rlx_analyzer_bind(an, sj, I(0), V(n));
  rlx_expr_t* fused = add(mul(V(si), V(n)), V(sj));
  CHECK_SIMP(an, fdv(fused, V(n)), V(si));
  CHECK_SIMP(an, fmd(fused, V(n)), V(sj));
  CHECK(rlx_analyzer_can_prove(an, lt(fused, mul(V(m), V(n)))));
  CHECK(rlx_analyzer_can_prove(an, lt(V(si), V(m))));
  CHECK(!rlx_analyzer_can_prove(an, lt(V(si), V(n))));
  CHECK(!rlx_analyzer_can_prove(an, lt(fused, mul(V(m), V(m)))));
  /* symbolic fuse recovered: floordiv(g, n)*n + floormod(g, n) → g */
  rlx_var_t* g = rlx_ir_var(C, "g", rlx_dt_int64());
  CHECK_SIMP(an, add(mul(fdv(V(g), V(n)), V(n)), fmd(V(g), V(n))), V(g));
}

static void test_ranges(void) {
  rlx_analyzer_t* an = rlx_analyzer_create(C);
  rlx_var_t* i = rlx_ir_var(C, "i", rlx_dt_int64());
  rlx_var_t* u = rlx_ir_var(C, "u", rlx_dt_int64());
  rlx_analyzer_bind(an, i, I(0), I(16));
  CHECK_SIMP(an, lt(V(i), I(16)), rlx_ir_bool(C, true));
  CHECK_SIMP(an, rlx_ir_cmp(C, RLX_EXPR_GE, V(i), I(0)), rlx_ir_bool(C, true));
  CHECK_SIMP(an, rlx_ir_cmp(C, RLX_EXPR_GE, V(i), I(16)), rlx_ir_bool(C, false));
  CHECK_SIMP(an, rlx_ir_cmp(C, RLX_EXPR_EQ, V(i), I(20)), rlx_ir_bool(C, false));
  CHECK_SIMP(an, lt(V(i), I(8)), lt(V(i), I(8)));
  CHECK_SIMP(an, rlx_ir_min(C, V(i), I(16)), V(i));
  CHECK_SIMP(an, rlx_ir_max(C, V(i), I(0)), V(i));
  CHECK_SIMP(an, rlx_ir_min(C, V(i), I(8)), rlx_ir_min(C, V(i), I(8)));
  CHECK_SIMP(an, rlx_ir_max(C, V(i), I(20)), I(20));
  /* common terms cancel in comparisons: u*4 + i < u*4 + 16 → true; u + 3 < 10 → u < 7 */
  CHECK_SIMP(an, lt(add(mul(V(u), I(4)), V(i)), add(mul(V(u), I(4)), I(16))), rlx_ir_bool(C, true));
  CHECK_SIMP(an, lt(add(V(u), I(3)), I(10)), lt(V(u), I(7)));
  /* coefficients divided by their gcd: u*4 < 16 → u < 4; u*4 + j*8 <= 10 → u + j*2 <= 2 */
  rlx_var_t* jj = rlx_ir_var(C, "jj", rlx_dt_int64());
  CHECK_SIMP(an, lt(mul(V(u), I(4)), I(16)), lt(V(u), I(4)));
  CHECK_SIMP(an, lt(mul(V(u), I(4)), I(14)), lt(V(u), I(4)));
  CHECK_SIMP(an, rlx_ir_cmp(C, RLX_EXPR_LE, add(mul(V(u), I(4)), mul(V(jj), I(8))), I(10)),
             rlx_ir_cmp(C, RLX_EXPR_LE, add(mul(V(jj), I(2)), V(u)), I(2)));
  CHECK_SIMP(an, rlx_ir_cmp(C, RLX_EXPR_EQ, mul(V(u), I(4)), I(10)), rlx_ir_bool(C, false));
  CHECK_SIMP(an, rlx_ir_cmp(C, RLX_EXPR_NE, mul(V(u), I(4)), I(12)), rlx_ir_cmp(C, RLX_EXPR_NE, V(u), I(3)));
  /* unknown ranges: nothing to do */
  CHECK_SIMP(an, fdv(V(u), I(4)), fdv(V(u), I(4)));
  CHECK_SIMP(an, fmd(V(u), I(4)), fmd(V(u), I(4)));
  CHECK_SIMP(an, rlx_ir_min(C, V(u), I(3)), rlx_ir_min(C, V(u), I(3)));
  CHECK(!rlx_analyzer_can_prove(an, lt(V(u), I(100))));
  int64_t lo, hi;
  CHECK(!rlx_analyzer_const_bound(an, V(u), &lo, &hi));
  CHECK(rlx_analyzer_const_bound(an, fmd(V(u), I(8)), &lo, &hi) && lo == 0 && hi == 7);
  CHECK(rlx_analyzer_const_bound(an, rlx_ir_min(C, V(i), I(4)), &lo, &hi) && lo == 0 && hi == 4);
  /* floordiv(u*4 + j, 4) with j unknown: u + floordiv(j, 4), not u */
  rlx_var_t* j = rlx_ir_var(C, "j", rlx_dt_int64());
  CHECK_SIMP(an, fdv(add(mul(V(u), I(4)), V(j)), I(4)), add(V(u), fdv(V(j), I(4))));
  /* truncated DIV/MOD: only with provably non-negative operands */
  CHECK_SIMP(an, rlx_ir_div(C, V(u), I(4)), rlx_ir_div(C, V(u), I(4)));
  CHECK_SIMP(an, rlx_ir_div(C, V(i), I(16)), I(0));
  CHECK_SIMP(an, rlx_ir_binary(C, RLX_EXPR_MOD, V(i), I(16)), V(i));
  rlx_var_t* w = rlx_ir_var(C, "w", rlx_dt_int64());
  rlx_analyzer_bind(an, w, I(-8), I(16)); /* [-8, 8) */
  CHECK_SIMP(an, rlx_ir_div(C, V(w), I(16)), rlx_ir_div(C, V(w), I(16)));
  CHECK_SIMP(an, fdv(V(w), I(16)), fdv(V(w), I(16)));
  CHECK_SIMP(an, fdv(add(V(w), I(8)), I(16)), I(0));
  /* loop of extent 1: the var is its min */
  rlx_var_t* one = rlx_ir_var(C, "one", rlx_dt_int64());
  rlx_analyzer_bind(an, one, I(3), I(1));
  CHECK_SIMP(an, add(V(one), V(u)), add(V(u), I(3)));
  /* i in [0, n): i < n provable, i < n - 1 not */
  rlx_var_t* n = rlx_ir_var(C, "n", rlx_dt_int64());
  rlx_var_t* k = rlx_ir_var(C, "k", rlx_dt_int64());
  rlx_analyzer_bind_nonneg(an, n);
  rlx_analyzer_bind(an, k, I(0), V(n));
  CHECK(rlx_analyzer_can_prove(an, lt(V(k), V(n))));
  CHECK(rlx_analyzer_can_prove(an, rlx_ir_cmp(C, RLX_EXPR_GE, V(n), I(0))));
  CHECK(!rlx_analyzer_can_prove(an, lt(V(k), sub(V(n), I(1)))));
  CHECK(rlx_analyzer_can_prove(an, rlx_ir_and(C, lt(V(k), V(n)), rlx_ir_cmp(C, RLX_EXPR_GE, V(k), I(0)))));
  /* ceil-division padding: floordiv(n + 15, 16) * 16 is in [n, n + 15] */
  rlx_expr_t* padded = mul(fdv(add(V(n), I(15)), I(16)), I(16));
  CHECK(rlx_analyzer_can_prove(an, rlx_ir_cmp(C, RLX_EXPR_GE, padded, V(n))));
  CHECK(rlx_analyzer_can_prove(an, rlx_ir_cmp(C, RLX_EXPR_LE, padded, add(V(n), I(15)))));
  CHECK(!rlx_analyzer_can_prove(an, rlx_ir_cmp(C, RLX_EXPR_LE, padded, add(V(n), I(14)))));
  /* split of a symbolic loop by 16 with io in [0, ceil(n/16)): io*16 + ii < n is not provable,
   * io*16 + ii < n + 15 is */
  rlx_var_t* io = rlx_ir_var(C, "io", rlx_dt_int64());
  rlx_var_t* ii = rlx_ir_var(C, "ii", rlx_dt_int64());
  rlx_analyzer_bind(an, io, I(0), fdv(add(V(n), I(15)), I(16)));
  rlx_analyzer_bind(an, ii, I(0), I(16));
  rlx_expr_t* idx = add(mul(V(io), I(16)), V(ii));
  CHECK(!rlx_analyzer_can_prove(an, lt(idx, V(n))));
  CHECK(rlx_analyzer_can_prove(an, lt(idx, add(V(n), I(15)))));
  /* i in [0, min(n, 16)): i < 16 and i < n */
  rlx_var_t* q = rlx_ir_var(C, "q", rlx_dt_int64());
  rlx_analyzer_bind(an, q, I(0), rlx_ir_min(C, I(16), V(n)));
  CHECK(rlx_analyzer_can_prove(an, lt(V(q), I(16))));
  CHECK(rlx_analyzer_can_prove(an, lt(V(q), V(n))));
}

static void test_logic_float(void) {
  rlx_analyzer_t* an = rlx_analyzer_create(C);
  rlx_var_t* b = rlx_ir_var(C, "b", rlx_dt_bool());
  rlx_var_t* x = rlx_ir_var(C, "x", rlx_dt_int64());
  rlx_var_t* y = rlx_ir_var(C, "y", rlx_dt_int64());
  rlx_expr_t* T = rlx_ir_bool(C, true);
  rlx_expr_t* F = rlx_ir_bool(C, false);
  CHECK_SIMP(an, rlx_ir_binary(C, RLX_EXPR_AND, T, V(b)), V(b));
  CHECK_SIMP(an, rlx_ir_binary(C, RLX_EXPR_AND, V(b), F), F);
  CHECK_SIMP(an, rlx_ir_binary(C, RLX_EXPR_OR, F, V(b)), V(b));
  CHECK_SIMP(an, rlx_ir_binary(C, RLX_EXPR_OR, V(b), T), T);
  CHECK_SIMP(an, rlx_ir_not(C, rlx_ir_not(C, V(b))), V(b));
  CHECK_SIMP(an, rlx_ir_not(C, lt(V(x), V(y))), rlx_ir_cmp(C, RLX_EXPR_GE, V(x), V(y)));
  CHECK_SIMP(an, rlx_ir_select(C, lt(I(1), I(2)), V(x), V(y)), V(x));
  CHECK_SIMP(an, rlx_ir_select(C, V(b), V(x), V(x)), V(x));
  /* the condition's facts hold inside the branches: select(y < 4, min(y, 8), max(y, 3)) → y;
   * with y == 2 the branch sees the constant */
  rlx_expr_t* y4 = lt(V(y), I(4));
  CHECK_SIMP(an, rlx_ir_select(C, y4, rlx_ir_min(C, V(y), I(8)), rlx_ir_max(C, V(y), I(3))), V(y));
  CHECK_SIMP(an, rlx_ir_select(C, y4, rlx_ir_min(C, V(y), I(2)), V(x)), rlx_ir_select(C, y4, rlx_ir_min(C, V(y), I(2)), V(x)));
  rlx_expr_t* y2 = rlx_ir_cmp(C, RLX_EXPR_EQ, V(y), I(2));
  rlx_expr_t* ite[3] = {y2, add(V(y), V(x)), V(x)};
  CHECK_SIMP(an, rlx_ir_call(C, rlx_dt_int64(), "if_then_else", 3, ite),
             rlx_ir_call(C, rlx_dt_int64(), "if_then_else", 3, (rlx_expr_t*[]){y2, add(V(x), I(2)), V(x)}));
  CHECK_SIMP(an, rlx_ir_cmp(C, RLX_EXPR_EQ, sub(V(x), V(y)), sub(V(x), V(y))), T);
  /* casts of constants */
  CHECK_SIMP(an, rlx_ir_cast(C, rlx_dt_float32(), add(I(1), I(2))), rlx_ir_float(C, rlx_dt_float32(), 3.0));
  CHECK_SIMP(an, rlx_ir_cast(C, rlx_dt_int32(), sub(add(V(x), I(2)), V(x))), rlx_ir_i32(C, 2));
  /* floats: constants fold, nothing reassociates */
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_var_t* fx = rlx_ir_var(C, "fx", f32);
  rlx_expr_t* one = rlx_ir_float(C, f32, 1.0);
  rlx_expr_t* e = rlx_ir_sub(C, rlx_ir_add(C, V(fx), one), one);
  rlx_expr_t* s = rlx_ir_simplify(C, e);
  CHECK(s->kind == RLX_EXPR_SUB && rlx_expr_equal(s, e));
  CHECK_SIMP(an, rlx_ir_mul(C, rlx_ir_float(C, f32, 2.0), rlx_ir_float(C, f32, 3.5)), rlx_ir_float(C, f32, 7.0));
  /* float32 folding: as a float32 literal the result is 0.1f + 0.2f (constants may be held at
   * double precision, as TVM does) */
  rlx_expr_t* sf = rlx_ir_simplify(C, rlx_ir_add(C, rlx_ir_float(C, f32, 0.1), rlx_ir_float(C, f32, 0.2)));
  CHECK(sf->kind == RLX_EXPR_FLOAT_IMM && (float)RLX_AS(rlx_float_imm_t, sf)->value == 0.1f + 0.2f);
  /* float comparison not negated (NaN) */
  rlx_expr_t* nf = rlx_ir_simplify(C, rlx_ir_not(C, rlx_ir_cmp(C, RLX_EXPR_LT, V(fx), one)));
  CHECK(nf->kind == RLX_EXPR_NOT);
  /* let with constant value is inlined */
  rlx_var_t* t = rlx_ir_var(C, "t", rlx_dt_int64());
  CHECK_SIMP(an, rlx_ir_let(C, t, I(4), sub(mul(V(x), V(t)), mul(I(4), V(x)))), I(0));
  /* Reduce axes are bound while the source is simplified */
  rlx_var_t* k = rlx_ir_var(C, "k", rlx_dt_int64());
  struct rlx_iter_var* ax[1];
  struct {
    rlx_var_t* var;
    rlx_expr_t* min;
    rlx_expr_t* extent;
    int kind;
  } axis = {k, I(0), I(8), 1}; /* the layout of rlx_iter_var_t (tir/tir.h) */
  ax[0] = (struct rlx_iter_var*)&axis;
  rlx_expr_t* red = rlx_ir_reduce(C, RLX_REDUCE_SUM, rlx_ir_cast(C, rlx_dt_float32(), fmd(V(k), I(8))), 1, ax, NULL);
  rlx_expr_t* rs = rlx_analyzer_simplify(an, red);
  CHECK(rs->kind == RLX_EXPR_REDUCE && RLX_AS(rlx_cast_t, RLX_AS(rlx_reduce_t, rs)->source)->value == V(k));
  CHECK(!rlx_analyzer_const_bound(an, V(k), NULL, NULL)); /* the binding ends with the Reduce */
  /* if_then_else with constant condition */
  rlx_expr_t* args[3] = {T, V(x), V(y)};
  CHECK_SIMP(an, rlx_ir_call(C, rlx_dt_int64(), "if_then_else", 3, args), V(x));
}

static void test_vector(void) {
  rlx_analyzer_t* an = rlx_analyzer_create(C);
  rlx_var_t* i = rlx_ir_var(C, "i", rlx_dt_int64());
  rlx_analyzer_bind(an, i, I(0), I(8));
  rlx_expr_t* r = rlx_ir_ramp(C, mul(V(i), I(4)), I(1), 4);
  /* ramp(i*4, 1, 4) / 4 → broadcast(i); % 4 → ramp(0, 1, 4) */
  CHECK_SIMP(an, fdv(r, rlx_ir_broadcast(C, I(4), 4)), rlx_ir_broadcast(C, V(i), 4));
  CHECK_SIMP(an, fmd(r, rlx_ir_broadcast(C, I(4), 4)), rlx_ir_ramp(C, I(0), I(1), 4));
  /* ramp + broadcast → ramp; broadcast*broadcast → broadcast */
  CHECK_SIMP(an, add(r, rlx_ir_broadcast(C, I(16), 4)), rlx_ir_ramp(C, add(mul(V(i), I(4)), I(16)), I(1), 4));
  CHECK_SIMP(an, mul(rlx_ir_broadcast(C, add(V(i), I(1)), 4), rlx_ir_broadcast(C, I(2), 4)),
             rlx_ir_broadcast(C, add(mul(V(i), I(2)), I(2)), 4));
  CHECK_SIMP(an, mul(rlx_ir_ramp(C, V(i), I(1), 4), rlx_ir_broadcast(C, I(3), 4)),
             rlx_ir_ramp(C, mul(V(i), I(3)), I(3), 4));
}


/* ---- differential check: random expressions evaluated before and after simplification ---- */
typedef struct {
  rlx_var_t* v[4]; /* x, y, z bound to ranges; n only known non-negative */
  int64_t val[4];
} env_t;

static int64_t fdiv_i(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

/* Evaluates an int64/bool expression; *ok = false on division by zero. */
static int64_t ev(const rlx_expr_t* e, const env_t* env, bool* ok) {
  switch (e->kind) {
    case RLX_EXPR_INT_IMM: return RLX_AS(const rlx_int_imm_t, e)->value;
    case RLX_EXPR_VAR:
      for (int i = 0; i < 4; i++)
        if (e == &env->v[i]->hdr) return env->val[i];
      *ok = false;
      return 0;
    case RLX_EXPR_NOT: return !ev(RLX_AS(const rlx_not_t, e)->a, env, ok);
    case RLX_EXPR_SELECT: {
      const rlx_select_t* s = RLX_AS(const rlx_select_t, e);
      return ev(s->cond, env, ok) ? ev(s->t, env, ok) : ev(s->f, env, ok);
    }
    default: break;
  }
  if (!rlx_expr_is_binary(e->kind)) {
    *ok = false;
    return 0;
  }
  int64_t a = ev(RLX_AS(const rlx_binary_t, e)->a, env, ok), b = ev(RLX_AS(const rlx_binary_t, e)->b, env, ok);
  switch (e->kind) {
    case RLX_EXPR_ADD: return a + b;
    case RLX_EXPR_SUB: return a - b;
    case RLX_EXPR_MUL: return a * b;
    case RLX_EXPR_DIV: if (!b) { *ok = false; return 0; } return a / b;
    case RLX_EXPR_MOD: if (!b) { *ok = false; return 0; } return a % b;
    case RLX_EXPR_FLOOR_DIV: if (!b) { *ok = false; return 0; } return fdiv_i(a, b);
    case RLX_EXPR_FLOOR_MOD: if (!b) { *ok = false; return 0; } return a - fdiv_i(a, b) * b;
    case RLX_EXPR_MIN: return a < b ? a : b;
    case RLX_EXPR_MAX: return a > b ? a : b;
    case RLX_EXPR_EQ: return a == b;
    case RLX_EXPR_NE: return a != b;
    case RLX_EXPR_LT: return a < b;
    case RLX_EXPR_LE: return a <= b;
    case RLX_EXPR_GT: return a > b;
    case RLX_EXPR_GE: return a >= b;
    case RLX_EXPR_AND: return a && b;
    case RLX_EXPR_OR: return a || b;
    default: *ok = false; return 0;
  }
}

static uint32_t seed = 7;
static int rnd(int n) {
  seed = seed * 1103515245u + 12345u;
  return (int)((seed >> 16) % (uint32_t)n);
}

static rlx_expr_t* gen(const env_t* env, int depth);
static rlx_expr_t* gen_cond(const env_t* env, int depth) {
  static const rlx_expr_kind_t cmps[] = {RLX_EXPR_EQ, RLX_EXPR_NE, RLX_EXPR_LT, RLX_EXPR_LE, RLX_EXPR_GT, RLX_EXPR_GE};
  rlx_expr_t* c = rlx_ir_cmp(C, cmps[rnd(6)], gen(env, depth), gen(env, depth));
  if (rnd(4) == 0) c = rlx_ir_binary(C, rnd(2) ? RLX_EXPR_AND : RLX_EXPR_OR, c, gen_cond(env, depth));
  if (rnd(5) == 0) c = rlx_ir_not(C, c);
  return c;
}
static rlx_expr_t* gen(const env_t* env, int depth) {
  if (depth <= 0 || rnd(5) == 0) return rnd(3) ? &env->v[rnd(4)]->hdr : I(rnd(9) - 3);
  rlx_expr_t* a = gen(env, depth - 1);
  rlx_expr_t* b = gen(env, depth - 1);
  rlx_expr_t* c = I(rnd(6) + 1); /* positive constant divisor */
  switch (rnd(17)) {
    case 0: return add(a, b);
    case 1: return sub(a, b);
    case 2: return mul(a, rnd(2) ? b : I(rnd(7) - 3));
    case 3: return fdv(a, c);
    case 4: return fmd(a, c);
    case 5: return rlx_ir_min(C, a, b);
    case 6: return rlx_ir_max(C, a, b);
    case 7: return rlx_ir_select(C, gen_cond(env, depth - 1), a, b);
    case 8: return rlx_ir_div(C, a, c);
    case 9: return rlx_ir_binary(C, RLX_EXPR_MOD, a, c);
    case 10: return fdv(a, add(&env->v[2]->hdr, I(1))); /* v2 + 1 >= 1 */
    case 11: return fmd(a, add(&env->v[2]->hdr, I(1)));
    case 12: return fdv(a, &env->v[3]->hdr); /* n may be 0: such points are skipped */
    case 13: return fmd(add(mul(b, &env->v[3]->hdr), a), &env->v[3]->hdr);
    case 14: return rlx_ir_div(C, a, add(&env->v[2]->hdr, I(1)));
    case 15: return rlx_ir_binary(C, RLX_EXPR_MOD, a, add(&env->v[2]->hdr, I(1)));
    default: return add(mul(a, c), b);
  }
}

/* symbolic: z in [0, x + 1) instead of [0, 3) */
static void test_fuzz(bool symbolic) {
  rlx_analyzer_t* an = rlx_analyzer_create(C);
  env_t env;
  env.v[0] = rlx_ir_var(C, "x", rlx_dt_int64());
  env.v[1] = rlx_ir_var(C, "y", rlx_dt_int64());
  env.v[2] = rlx_ir_var(C, "z", rlx_dt_int64());
  env.v[3] = rlx_ir_var(C, "n", rlx_dt_int64());
  rlx_analyzer_bind_nonneg(an, env.v[3]);
  int64_t lo[3] = {0, -4, 0}, ext[3] = {8, 8, 3};
  for (int i = 0; i < 3; i++) rlx_analyzer_bind(an, env.v[i], I(lo[i]), I(ext[i]));
  if (symbolic) {
    rlx_analyzer_bind(an, env.v[2], I(0), add(&env.v[0]->hdr, I(1)));
    ext[2] = 8;
  }
  int mismatches = 0, simplified = 0, bound_bad = 0;
  for (int n = 0; n < 3000; n++) {
    rlx_expr_t* e = rnd(4) ? gen(&env, 4) : gen_cond(&env, 3);
    rlx_expr_t* s = rlx_analyzer_simplify(an, e);
    if (s != e) simplified++;
    int64_t bmin = 0, bmax = 0;
    bool bounded = rlx_dtype_is_int(e->dtype) && rlx_analyzer_const_bound(an, e, &bmin, &bmax);
    for (env.val[0] = lo[0]; env.val[0] < lo[0] + ext[0]; env.val[0]++)
      for (env.val[1] = lo[1]; env.val[1] < lo[1] + ext[1]; env.val[1]++)
        for (env.val[2] = lo[2]; env.val[2] < lo[2] + ext[2]; env.val[2]++) {
          if (symbolic && env.val[2] > env.val[0]) continue;
          for (env.val[3] = 0; env.val[3] < 5; env.val[3]++) {
          bool ok1 = true, ok2 = true;
          int64_t want = ev(e, &env, &ok1);
          int64_t got = ev(s, &env, &ok2);
          if (ok1 && (!ok2 || want != got)) {
            if (mismatches++ < 3) {
              char* es = str(e);
              char* ss = str(s);
              fprintf(stderr, "unsound: %s\n   → %s\n   at x=%lld y=%lld z=%lld n=%lld: %lld vs %lld\n", es, ss,
                      (long long)env.val[0], (long long)env.val[1], (long long)env.val[2], (long long)env.val[3],
                      (long long)want, (long long)got);
              free(es);
              free(ss);
            }
          }
          if (ok1 && bounded && (want < bmin || want > bmax)) bound_bad++;
          }
        }
  }
  CHECK_MSG(mismatches == 0, "%d unsound simplifications", mismatches);
  CHECK_MSG(bound_bad == 0, "%d values outside const_bound", bound_bad);
  CHECK_MSG(simplified > 1000, "only %d of 3000 changed", simplified);
}

/* Unsigned operands: a - b wraps, so min/max/comparisons are decided only from each
 * operand's own bounds (max(u8 a, u8 b) once folded to a). */
static void test_unsigned(void) {
  rlx_dtype_t u8 = rlx_dtype(RLX_DT_UINT, 8, 1);
  rlx_var_t* a = rlx_ir_var(C, "a", u8);
  rlx_var_t* b = rlx_ir_var(C, "b", u8);
  rlx_expr_t* mx = rlx_ir_simplify(C, rlx_ir_max(C, V(a), V(b)));
  CHECK(mx->kind == RLX_EXPR_MAX);
  rlx_expr_t* mn = rlx_ir_simplify(C, rlx_ir_min(C, V(a), V(b)));
  CHECK(mn->kind == RLX_EXPR_MIN);
  rlx_expr_t* c = rlx_ir_simplify(C, rlx_ir_cmp(C, RLX_EXPR_LT, V(a), V(b)));
  CHECK(c->kind == RLX_EXPR_LT);
  rlx_expr_t* ge0 = rlx_ir_simplify(C, rlx_ir_cmp(C, RLX_EXPR_GE, V(a), rlx_ir_int(C, u8, 0)));
  int64_t v = -1;
  CHECK(rlx_expr_is_const_int(ge0, &v) && v == 1);
  rlx_expr_t* m0 = rlx_ir_simplify(C, rlx_ir_max(C, V(a), rlx_ir_int(C, u8, 0)));
  CHECK(m0 == V(a));
}

/* int64 constant arithmetic that overflows is kept, unfolded and unsimplified, so that shape
 * inference reports it (4 * 2^62 once folded to 0: a Tile of 4 elements by 2^62 had 0);
 * other widths still wrap as C does, and what fits folds. */
static void test_int64_overflow(void) {
  int64_t v = 0;
  rlx_expr_t* big = rlx_ir_mul(C, I(4), I((int64_t)1 << 62));
  CHECK(big->kind == RLX_EXPR_MUL && rlx_expr_is_int64_overflow(big));
  rlx_expr_t* e = rlx_ir_simplify(C, add(big, I(1)));
  CHECK(rlx_expr_is_int64_overflow(e));
  e = rlx_ir_simplify(C, rlx_ir_sub(C, add(I(INT64_MAX), I(1)), I(1)));
  CHECK(rlx_expr_is_int64_overflow(e));
  CHECK(rlx_expr_is_int64_overflow(rlx_ir_sub(C, I(INT64_MIN), I(1))));
  CHECK(rlx_expr_is_const_int(rlx_ir_simplify(C, rlx_ir_mul(C, I((int64_t)1 << 61), I(2))), &v) && v == (int64_t)1 << 62);
  CHECK(rlx_expr_is_const_int(add(I(INT64_MAX), I(0)), &v) && v == INT64_MAX);
  CHECK(rlx_expr_is_const_int(rlx_ir_mul(C, rlx_ir_i32(C, 1 << 30), rlx_ir_i32(C, 4)), &v) && v == 0);
  rlx_var_t* n = rlx_ir_var(C, "n", rlx_dt_int64());
  CHECK(!rlx_expr_is_int64_overflow(rlx_ir_mul(C, V(n), I((int64_t)1 << 62)))); /* symbolic: checked when run */
}

int main(void) {
  C = rlx_ctx_create();
  test_canonical();
  test_unsigned();
  test_int64_overflow();
  test_split_fuse();
  test_ranges();
  test_logic_float();
  test_vector();
  test_fuzz(false);
  test_fuzz(true);
  rlx_ctx_free(C);
  TEST_MAIN_END();
}
