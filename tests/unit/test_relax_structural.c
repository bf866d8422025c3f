/* Structural equality of Relax functions: vars mapped by definition, symbolic vars mapped on
 * first definition, struct info compared. */
#include "relax_test_util.h"
#include "test.h"

static rlx_attrs_t no_attrs(void) { return (rlx_attrs_t){0, NULL}; }

typedef struct {
  bool square;          /* x: (n, n) instead of (n, k) */
  bool use_relu_twice;  /* an extra binding */
  rlx_dtype_t dtype;
  const char* ext;      /* extern name of the dps call */
} variant_t;

/* main(x: (n, k), w: (k, m)) { dataflow { lv = matmul(x, w); lv1 = call_dps_packed(ext, lv) [; lv2 = relu(lv1)];
 * gv = lv1 } y = match_cast(gv, (a, b)); return y } */
static rlx_relax_func_t* build(rlx_ctx_t* ctx, variant_t v) {
  rlx_expr_t *n = sym(ctx, "n"), *k = sym(ctx, "k"), *m = sym(ctx, "m");
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", t2(ctx, n, v.square ? n : k, v.dtype));
  rlx_relax_var_t* w = rlx_relax_var(ctx, "w", t2(ctx, k, m, v.dtype));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *lv = NULL, *lv1 = NULL, *gv = NULL, *y = NULL;
  rlx_status_t* st = NULL;
  st = st ? st : rlx_bb_function_begin(bb, "main", 2, (rlx_relax_var_t*[]){x, w});
  st = st ? st : rlx_bb_dataflow_begin(bb);
  st = st ? st : rlx_bb_emit_te(bb, te_matmul, NULL, 2, (rlx_relax_expr_t*[]){&x->hdr, &w->hdr}, NULL, NULL, &lv);
  if (!st) {
    rlx_relax_expr_t* lve = &lv->hdr;
    st = rlx_bb_emit(bb, rlx_relax_call_dps_packed(ctx, v.ext, 1, &lve, lv->hdr.sinfo), NULL, &lv1);
  }
  if (!st && v.use_relu_twice) {
    rlx_relax_var_t* lv2 = NULL;
    st = rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&lv1->hdr}, NULL, NULL, &lv2);
  }
  st = st ? st : rlx_bb_emit_output(bb, &lv1->hdr, NULL, &gv);
  st = st ? st : rlx_bb_dataflow_end(bb);
  st = st ? st : rlx_bb_match_cast(bb, &gv->hdr, t2(ctx, sym(ctx, "a"), sym(ctx, "b"), v.dtype), "y", &y);
  st = st ? st : rlx_bb_emit_func_output(bb, &y->hdr, 0, NULL);
  st = st ? st : rlx_bb_function_end(bb, NULL);
  if (st) {
    fprintf(stderr, "build: %s\n", rlx_status_message(st));
    rlx_status_free(st);
    return NULL;
  }
  return rlx_module_find(rlx_bb_get(bb), "main")->func;
}

static void test_functions(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  variant_t base = {false, false, rlx_dt_float32(), "ext_f"};
  rlx_relax_func_t* a = build(ctx, base);
  rlx_relax_func_t* b = build(ctx, base); /* new vars, new symbolic vars, same structure */
  CHECK(a && b && a != b);
  if (!a || !b) return;
  CHECK(a->params[0] != b->params[0]);
  CHECK(rlx_relax_func_equal(a, b));
  CHECK(rlx_relax_func_equal(b, a));
  CHECK(rlx_relax_func_hash(a) == rlx_relax_func_hash(b));
  CHECK(rlx_relax_func_equal(a, a));
  variant_t sq = base;
  sq.square = true;
  rlx_relax_func_t* c = build(ctx, sq);
  CHECK(c && !rlx_relax_func_equal(a, c) && !rlx_relax_func_equal(c, a));
  variant_t dt = base;
  dt.dtype = rlx_dt_float64();
  rlx_relax_func_t* d = build(ctx, dt);
  CHECK(d && !rlx_relax_func_equal(a, d));
  variant_t ex = base;
  ex.ext = "ext_g";
  rlx_relax_func_t* e = build(ctx, ex);
  CHECK(e && !rlx_relax_func_equal(a, e));
  variant_t more = base;
  more.use_relu_twice = true;
  rlx_relax_func_t* f = build(ctx, more);
  CHECK(f && !rlx_relax_func_equal(a, f));
  /* different functions hash differently (not guaranteed in general, but expected here) */
  CHECK(c && rlx_relax_func_hash(a) != rlx_relax_func_hash(c));
  CHECK(d && rlx_relax_func_hash(a) != rlx_relax_func_hash(d));
  CHECK(e && rlx_relax_func_hash(a) != rlx_relax_func_hash(e));
  CHECK(f && rlx_relax_func_hash(a) != rlx_relax_func_hash(f));
  rlx_ctx_free(ctx);
}

static void test_exprs(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  float d1[2] = {1, 2}, d2[2] = {1, 3};
  int64_t s2 = 2;
  rlx_relax_expr_t* c1 = rlx_relax_constant(ctx, f32, 1, &s2, d1, sizeof(d1));
  rlx_relax_expr_t* c1b = rlx_relax_constant(ctx, f32, 1, &s2, d1, sizeof(d1));
  rlx_relax_expr_t* c2 = rlx_relax_constant(ctx, f32, 1, &s2, d2, sizeof(d2));
  CHECK(rlx_relax_expr_equal(c1, c1b));
  CHECK(!rlx_relax_expr_equal(c1, c2));
  /* free vars: equal only when identical */
  rlx_relax_var_t* x = rlx_relax_var(ctx, "x", c1->sinfo);
  rlx_relax_var_t* x2 = rlx_relax_var(ctx, "x", c1->sinfo);
  CHECK(rlx_relax_expr_equal(&x->hdr, &x->hdr));
  CHECK(!rlx_relax_expr_equal(&x->hdr, &x2->hdr));
  rlx_relax_expr_t* t1 = rlx_relax_tuple(ctx, 2, (rlx_relax_expr_t*[]){&x->hdr, c1});
  rlx_relax_expr_t* t2_ = rlx_relax_tuple(ctx, 2, (rlx_relax_expr_t*[]){&x->hdr, c1b});
  CHECK(rlx_relax_expr_equal(t1, t2_));
  CHECK(!rlx_relax_expr_equal(rlx_relax_tuple_get_item(ctx, t1, 0), rlx_relax_tuple_get_item(ctx, t2_, 1)));
  /* calls with attrs */
  rlx_attrs_t at = rlx_attrs_set(ctx, no_attrs(), "axis", rlx_attr_int(1));
  rlx_attrs_t at2 = rlx_attrs_set(ctx, no_attrs(), "axis", rlx_attr_int(2));
  rlx_relax_expr_t* op = rlx_relax_op(ctx, RLX_OP_SUM);
  rlx_relax_expr_t* k1 = rlx_relax_call(ctx, op, 1, (rlx_relax_expr_t*[]){&x->hdr}, at, 0, NULL);
  rlx_relax_expr_t* k2 = rlx_relax_call(ctx, rlx_relax_op(ctx, RLX_OP_SUM), 1, (rlx_relax_expr_t*[]){&x->hdr}, at, 0, NULL);
  rlx_relax_expr_t* k3 = rlx_relax_call(ctx, op, 1, (rlx_relax_expr_t*[]){&x->hdr}, at2, 0, NULL);
  CHECK(rlx_relax_expr_equal(k1, k2));
  CHECK(!rlx_relax_expr_equal(k1, k3));
  /* functions mapping their params: f(p) = p vs g(q) = q; and f(p, q) = p vs g(p, q) = q */
  rlx_relax_var_t* p = rlx_relax_var(ctx, "p", c1->sinfo);
  rlx_relax_var_t* q = rlx_relax_var(ctx, "q", c1->sinfo);
  rlx_relax_func_t* fp = rlx_relax_func(ctx, 1, &p, rlx_relax_seq(ctx, 0, NULL, &p->hdr), c1->sinfo, no_attrs(), true);
  rlx_relax_func_t* fq = rlx_relax_func(ctx, 1, &q, rlx_relax_seq(ctx, 0, NULL, &q->hdr), c1->sinfo, no_attrs(), true);
  CHECK(rlx_relax_func_equal(fp, fq));
  rlx_relax_func_t* first =
      rlx_relax_func(ctx, 2, (rlx_relax_var_t*[]){p, q}, rlx_relax_seq(ctx, 0, NULL, &p->hdr), c1->sinfo, no_attrs(), true);
  rlx_relax_func_t* second =
      rlx_relax_func(ctx, 2, (rlx_relax_var_t*[]){p, q}, rlx_relax_seq(ctx, 0, NULL, &q->hdr), c1->sinfo, no_attrs(), true);
  CHECK(!rlx_relax_func_equal(first, second));
  /* symbolic: f(x: (n,)) -> (n,) vs g(x: (m,)) -> (m,) equal; vs h(x: (m,)) -> (n,) not */
  rlx_expr_t *n = sym(ctx, "n"), *m = sym(ctx, "m");
  rlx_relax_var_t* xn = rlx_relax_var(ctx, "x", rlx_sinfo_tensor(ctx, 1, &n, f32));
  rlx_relax_var_t* xm = rlx_relax_var(ctx, "x", rlx_sinfo_tensor(ctx, 1, &m, f32));
  rlx_relax_func_t* fn = rlx_relax_func(ctx, 1, &xn, rlx_relax_seq(ctx, 0, NULL, &xn->hdr), rlx_sinfo_tensor(ctx, 1, &n, f32),
                                        no_attrs(), true);
  rlx_relax_func_t* fm = rlx_relax_func(ctx, 1, &xm, rlx_relax_seq(ctx, 0, NULL, &xm->hdr), rlx_sinfo_tensor(ctx, 1, &m, f32),
                                        no_attrs(), true);
  rlx_relax_func_t* fmn = rlx_relax_func(ctx, 1, &xm, rlx_relax_seq(ctx, 0, NULL, &xm->hdr),
                                         rlx_sinfo_tensor(ctx, 1, &n, f32), no_attrs(), true);
  CHECK(rlx_relax_func_equal(fn, fm));
  CHECK(rlx_relax_func_hash(fn) == rlx_relax_func_hash(fm));
  CHECK(rlx_relax_func_hash(fn) != rlx_relax_func_hash(fmn));
  CHECK(rlx_relax_func_hash(fp) == rlx_relax_func_hash(fq));
  CHECK(rlx_relax_func_hash(first) != rlx_relax_func_hash(second));
  CHECK(rlx_relax_expr_hash(c1) == rlx_relax_expr_hash(c1b) && rlx_relax_expr_hash(c1) != rlx_relax_expr_hash(c2));
  CHECK(rlx_relax_expr_hash(k1) == rlx_relax_expr_hash(k2) && rlx_relax_expr_hash(k1) != rlx_relax_expr_hash(k3));
  CHECK(!rlx_relax_func_equal(fn, fmn));
  rlx_ctx_free(ctx);
}

int main(void) {
  test_functions();
  test_exprs();
  TEST_MAIN_END();
}
