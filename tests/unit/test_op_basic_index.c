/* Basic Relax ops, index ops: tile (fewer and more repeats than dims), flip, cumsum (axis,
 * exclusive, flattened, int64 accumulation), gather_elements (negative indices), arange
 * (int, float, symbolic end), tril / triu, one_hot, scatter_elements (the ONNX examples,
 * duplicates under each reduction): struct info
 * (static, symbolic, errors) and numbers from the TIR interpreter against C loops (float32
 * sums: |err| <= 1e-5 + 1e-5 |ref|; moved values exact). */
#include "test_op_basic_util.h"

static const rlx_dtype_t F32 = {RLX_DT_FLOAT, 32, 1};
static const rlx_dtype_t I32 = {RLX_DT_INT, 32, 1};
static const rlx_dtype_t I64 = {RLX_DT_INT, 64, 1};

#define ARGS(...) ((rlx_relax_expr_t*[]){__VA_ARGS__})

static void iota(tens_t* t) {
  for (int64_t i = 0; i < t->n; i++) tens_set(t, i, (double)i);
}

static void test_tile(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t sx[2] = {2, 3};
  rlx_relax_var_t* x = tvar(ctx, "x", 2, sx, F32);
  const int64_t r1[1] = {2}, r3[3] = {2, 1, 2};
  rlx_attrs_t a1 = attr1(ctx, attrs0(), "repeats", ints_attr(ctx, 1, r1));
  rlx_attrs_t a3 = attr1(ctx, attrs0(), "repeats", ints_attr(ctx, 3, r3));
  CHECK_STREQ(op_sinfo(ctx, "relax.tile", 1, ARGS(&x->hdr), a1), "R.Tensor((2, 6), dtype=\"float32\")");
  CHECK_STREQ(op_sinfo(ctx, "relax.tile", 1, ARGS(&x->hdr), a3), "R.Tensor((2, 2, 6), dtype=\"float32\")");
  tens_t tx, to;
  tens_init(&tx, F32, 2, sx);
  iota(&tx);
  int64_t so[3] = {2, 2, 6};
  tens_init(&to, F32, 3, so);
  const char* fname = NULL;
  CHECK_OK(op_run(ctx, "relax.tile", 1, ARGS(&x->hdr), a3, 1, &tx, 1, &to, &fname));
  CHECK_STREQ(fname, "tile");
  double ref[24];
  for (int a = 0; a < 2; a++)
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 6; j++) ref[a * 12 + i * 6 + j] = i * 3 + j % 3;
  CHECK(tens_close(&to, ref, 0, 0, NULL));
  tens_free(&to);
  tens_free(&tx);
  rlx_expr_t* n = symv(ctx, "n");
  rlx_relax_var_t* xs = tvar_sym(ctx, "xs", 1, (rlx_expr_t*[]){n}, F32);
  CHECK_STREQ(op_sinfo(ctx, "relax.tile", 1, ARGS(&xs->hdr), a1), "R.Tensor((n * 2,), dtype=\"float32\")");
  const int64_t neg[1] = {-1};
  rlx_relax_call_t* c = NULL;
  CHECK_ERR(op_call(ctx, "relax.tile", 1, ARGS(&x->hdr), attr1(ctx, attrs0(), "repeats", ints_attr(ctx, 1, neg)), &c),
            "relax.tile: negative repeat count -1");
  rlx_ctx_free(ctx);
}

static void test_flip(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t sx[2] = {2, 3};
  rlx_relax_var_t* x = tvar(ctx, "x", 2, sx, F32);
  rlx_attrs_t at = attr1(ctx, attrs0(), "axis", rlx_attr_int(-1));
  CHECK_STREQ(op_sinfo(ctx, "relax.flip", 1, ARGS(&x->hdr), at), "R.Tensor((2, 3), dtype=\"float32\")");
  tens_t tx, to;
  tens_init(&tx, F32, 2, sx);
  iota(&tx);
  tens_init(&to, F32, 2, sx);
  CHECK_OK(op_run(ctx, "relax.flip", 1, ARGS(&x->hdr), at, 1, &tx, 1, &to, NULL));
  double ref[6] = {2, 1, 0, 5, 4, 3};
  CHECK(tens_close(&to, ref, 0, 0, NULL));
  tens_free(&to);
  tens_free(&tx);
  rlx_relax_call_t* c = NULL;
  CHECK_ERR(op_call(ctx, "relax.flip", 1, ARGS(&x->hdr), attr1(ctx, attrs0(), "axis", rlx_attr_int(2)), &c),
            "relax.flip: axis 2 is out of range for rank 2");
  CHECK_ERR(op_call(ctx, "relax.flip", 1, ARGS(&x->hdr), attrs0(), &c), "relax.flip: needs the axis attribute");
  rlx_ctx_free(ctx);
}

static void test_cumsum(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t sx[2] = {3, 4};
  rlx_relax_var_t* x = tvar(ctx, "x", 2, sx, F32);
  rlx_relax_var_t* xi = tvar(ctx, "xi", 2, sx, I32);
  rlx_attrs_t a1 = attr1(ctx, attrs0(), "axis", rlx_attr_int(1));
  CHECK_STREQ(op_sinfo(ctx, "relax.cumsum", 1, ARGS(&x->hdr), a1), "R.Tensor((3, 4), dtype=\"float32\")");
  CHECK_STREQ(op_sinfo(ctx, "relax.cumsum", 1, ARGS(&x->hdr), attrs0()), "R.Tensor((12,), dtype=\"float32\")");
  rlx_attrs_t ai = attr1(ctx, attr1(ctx, a1, "dtype", rlx_attr_dtype(I64)), "exclusive", rlx_attr_bool(true));
  CHECK_STREQ(op_sinfo(ctx, "relax.cumsum", 1, ARGS(&xi->hdr), ai), "R.Tensor((3, 4), dtype=\"int64\")");
  tens_t tx, to;
  tens_init(&tx, F32, 2, sx);
  tens_rand(&tx, -1, 1);
  tens_init(&to, F32, 2, sx);
  const char* fname = NULL;
  CHECK_OK(op_run(ctx, "relax.cumsum", 1, ARGS(&x->hdr), a1, 1, &tx, 1, &to, &fname));
  CHECK_STREQ(fname, "cumsum");
  double ref[12], acc = 0;
  for (int i = 0; i < 12; i++) {
    acc = (i % 4 ? acc : 0) + tens_get(&tx, i);
    ref[i] = acc;
  }
  CHECK(tens_close(&to, ref, 1e-5, 1e-5, NULL));
  tens_free(&to);
  /* flattened (axis absent) */
  int64_t s12[1] = {12};
  tens_init(&to, F32, 1, s12);
  CHECK_OK(op_run(ctx, "relax.cumsum", 1, ARGS(&x->hdr), attrs0(), 1, &tx, 1, &to, NULL));
  acc = 0;
  for (int i = 0; i < 12; i++) ref[i] = acc += tens_get(&tx, i);
  CHECK(tens_close(&to, ref, 1e-5, 1e-5, NULL));
  tens_free(&to);
  tens_free(&tx);
  /* int32 input, int64 exclusive sums along axis 1 */
  tens_init(&tx, I32, 2, sx);
  iota(&tx);
  tens_init(&to, I64, 2, sx);
  CHECK_OK(op_run(ctx, "relax.cumsum", 1, ARGS(&xi->hdr), ai, 1, &tx, 1, &to, NULL));
  for (int r = 0; r < 3; r++) {
    double s = 0;
    for (int j = 0; j < 4; j++) {
      ref[r * 4 + j] = s;
      s += r * 4 + j;
    }
  }
  CHECK(tens_close(&to, ref, 0, 0, NULL));
  tens_free(&to);
  tens_free(&tx);
  rlx_relax_call_t* c = NULL;
  CHECK_ERR(op_call(ctx, "relax.cumsum", 1, ARGS(&x->hdr), attr1(ctx, attrs0(), "axis", rlx_attr_int(-3)), &c),
            "relax.cumsum: axis -3 is out of range for rank 2");
  CHECK_ERR(
      op_call(ctx, "relax.cumsum", 1, ARGS(&x->hdr), attr1(ctx, attrs0(), "dtype", rlx_attr_dtype(rlx_dt_bool())), &c),
      "relax.cumsum: needs a numeric dtype");
  rlx_ctx_free(ctx);
}

static void test_gather_elements(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t sx[2] = {3, 4}, si[2] = {2, 4};
  rlx_relax_var_t* x = tvar(ctx, "x", 2, sx, F32);
  rlx_relax_var_t* ind = tvar(ctx, "ind", 2, si, I64);
  rlx_attrs_t at = attr1(ctx, attrs0(), "axis", rlx_attr_int(0));
  CHECK_STREQ(op_sinfo(ctx, "relax.gather_elements", 2, ARGS(&x->hdr, &ind->hdr), at),
              "R.Tensor((2, 4), dtype=\"float32\")");
  tens_t tx, ti, to;
  tens_init(&tx, F32, 2, sx);
  iota(&tx);
  tens_init(&ti, I64, 2, si);
  const double iv[8] = {0, 2, 1, -1, 2, 0, -3, 1};
  for (int i = 0; i < 8; i++) tens_set(&ti, i, iv[i]);
  tens_init(&to, F32, 2, si);
  const char* fname = NULL;
  CHECK_OK(
      op_run(ctx, "relax.gather_elements", 2, ARGS(&x->hdr, &ind->hdr), at, 2, (tens_t[]){tx, ti}, 1, &to, &fname));
  CHECK_STREQ(fname, "gather_elements");
  double ref[8];
  for (int i = 0; i < 8; i++) {
    int r = (int)iv[i] < 0 ? (int)iv[i] + 3 : (int)iv[i];
    ref[i] = r * 4 + i % 4;
  }
  CHECK(tens_close(&to, ref, 0, 0, NULL));
  tens_free(&to);
  tens_free(&ti);
  tens_free(&tx);
  int64_t s1[1] = {4};
  rlx_relax_var_t* bad = tvar(ctx, "bad", 1, s1, I64);
  rlx_relax_call_t* c = NULL;
  CHECK_ERR(op_call(ctx, "relax.gather_elements", 2, ARGS(&x->hdr, &bad->hdr), at, &c),
            "relax.gather_elements: indices have rank 1, data has rank 2");
  CHECK_ERR(op_call(ctx, "relax.gather_elements", 2, ARGS(&x->hdr, &x->hdr), at, &c),
            "relax.gather_elements: indices must be int32 or int64, got float32");
  rlx_ctx_free(ctx);
}

static void test_arange(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_relax_expr_t* p1 = rlx_relax_prim_value(ctx, c64(ctx, 1));
  rlx_relax_expr_t* p10 = rlx_relax_prim_value(ctx, c64(ctx, 10));
  rlx_relax_expr_t* p3 = rlx_relax_prim_value(ctx, c64(ctx, 3));
  CHECK_STREQ(op_sinfo(ctx, "relax.arange", 3, ARGS(p1, p10, p3), attrs0()), "R.Tensor((3,), dtype=\"int64\")");
  CHECK_STREQ(op_sinfo(ctx, "relax.arange", 1, ARGS(p10), attrs0()), "R.Tensor((10,), dtype=\"int64\")");
  int64_t s3[1] = {3};
  tens_t to;
  tens_init(&to, I64, 1, s3);
  const char* fname = NULL;
  CHECK_OK(op_run(ctx, "relax.arange", 3, ARGS(p1, p10, p3), attrs0(), 0, NULL, 1, &to, &fname));
  CHECK_STREQ(fname, "arange");
  double r1[3] = {1, 4, 7};
  CHECK(tens_close(&to, r1, 0, 0, NULL));
  tens_free(&to);
  /* float bounds: float32 by default */
  rlx_relax_expr_t* f0 = rlx_relax_prim_value(ctx, rlx_ir_float(ctx, F32, 0.5));
  rlx_relax_expr_t* f1 = rlx_relax_prim_value(ctx, rlx_ir_float(ctx, F32, 1.5));
  rlx_relax_expr_t* fs = rlx_relax_prim_value(ctx, rlx_ir_float(ctx, F32, 0.25));
  CHECK_STREQ(op_sinfo(ctx, "relax.arange", 3, ARGS(f0, f1, fs), attrs0()), "R.Tensor((4,), dtype=\"float32\")");
  int64_t s4[1] = {4};
  tens_init(&to, F32, 1, s4);
  CHECK_OK(op_run(ctx, "relax.arange", 3, ARGS(f0, f1, fs), attrs0(), 0, NULL, 1, &to, NULL));
  double r2[4] = {0.5, 0.75, 1.0, 1.25};
  CHECK(tens_close(&to, r2, 0, 0, NULL));
  tens_free(&to);
  /* symbolic end: arange(0, n, 2) has (n + 1) // 2 elements; run with n = 5 */
  rlx_expr_t* n = symv(ctx, "n");
  rlx_relax_expr_t* pn = rlx_relax_prim_value(ctx, n);
  rlx_relax_expr_t* p0 = rlx_relax_prim_value(ctx, c64(ctx, 0));
  rlx_relax_expr_t* p2 = rlx_relax_prim_value(ctx, c64(ctx, 2));
  CHECK_STREQ(op_sinfo(ctx, "relax.arange", 3, ARGS(p0, pn, p2), attrs0()),
              "R.Tensor(((n + 1) // 2,), dtype=\"int64\")");
  tens_init(&to, I64, 1, s3);
  const int64_t nval[1] = {5}; /* n is not a whole dim of the output: a tir_var (TVM's rule) */
  CHECK_OK(op_run_tv(ctx, "relax.arange", 3, ARGS(p0, pn, p2), attrs0(), 0, NULL, 1, &to, 1, nval, NULL));
  double r3[3] = {0, 2, 4};
  CHECK(tens_close(&to, r3, 0, 0, NULL));
  tens_free(&to);
  rlx_relax_call_t* c = NULL;
  CHECK_ERR(op_call(ctx, "relax.arange", 3, ARGS(p1, p10, p0), attrs0(), &c), "relax.arange: step must not be 0");
  int64_t s2[1] = {2};
  rlx_relax_var_t* t = tvar(ctx, "t", 1, s2, F32);
  CHECK_ERR(op_call(ctx, "relax.arange", 1, ARGS(&t->hdr), attrs0(), &c), "relax.arange: argument 0 must be a scalar");
  rlx_ctx_free(ctx);
}

static void test_trilu(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t sx[2] = {3, 4};
  rlx_relax_var_t* x = tvar(ctx, "x", 2, sx, F32);
  rlx_relax_expr_t* k1 = rlx_relax_prim_value(ctx, c64(ctx, 1));
  CHECK_STREQ(op_sinfo(ctx, "relax.tril", 1, ARGS(&x->hdr), attrs0()), "R.Tensor((3, 4), dtype=\"float32\")");
  tens_t tx, to;
  tens_init(&tx, F32, 2, sx);
  iota(&tx);
  for (int form = 0; form < 2; form++) {
    tens_init(&to, F32, 2, sx);
    const char* fname = NULL;
    if (form == 0)
      CHECK_OK(op_run(ctx, "relax.tril", 1, ARGS(&x->hdr), attrs0(), 1, &tx, 1, &to, &fname));
    else
      CHECK_OK(op_run(ctx, "relax.triu", 2, ARGS(&x->hdr, k1), attrs0(), 1, &tx, 1, &to, &fname));
    CHECK_STREQ(fname, form ? "triu" : "tril");
    double ref[12];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 4; j++) ref[i * 4 + j] = (form ? j - i >= 1 : j - i <= 0) ? i * 4 + j : 0;
    CHECK_MSG(tens_close(&to, ref, 0, 0, NULL), "%s", form ? "triu k=1" : "tril");
    tens_free(&to);
  }
  tens_free(&tx);
  int64_t s3[1] = {3};
  rlx_relax_var_t* v = tvar(ctx, "v", 1, s3, F32);
  rlx_relax_call_t* c = NULL;
  CHECK_ERR(op_call(ctx, "relax.triu", 1, ARGS(&v->hdr), attrs0(), &c), "relax.triu: needs a tensor of rank >= 2");
  rlx_ctx_free(ctx);
}

static void test_one_hot(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t si[1] = {3};
  rlx_relax_var_t* ind = tvar(ctx, "ind", 1, si, I64);
  rlx_relax_expr_t* on = rlx_relax_prim_value(ctx, rlx_ir_float(ctx, F32, 5));
  rlx_relax_expr_t* off = rlx_relax_prim_value(ctx, rlx_ir_float(ctx, F32, -1));
  rlx_attrs_t at = attr1(ctx, attrs0(), "depth", rlx_attr_int(4));
  CHECK_STREQ(op_sinfo(ctx, "relax.one_hot", 3, ARGS(&ind->hdr, on, off), at), "R.Tensor((3, 4), dtype=\"float32\")");
  rlx_attrs_t a0 = attr1(ctx, at, "axis", rlx_attr_int(0));
  CHECK_STREQ(op_sinfo(ctx, "relax.one_hot", 3, ARGS(&ind->hdr, on, off), a0), "R.Tensor((4, 3), dtype=\"float32\")");
  tens_t ti, to;
  tens_init(&ti, I64, 1, si);
  const double iv[3] = {2, -1, 7}; /* -1: the last; 7: out of range, all off */
  for (int i = 0; i < 3; i++) tens_set(&ti, i, iv[i]);
  int64_t so[2] = {4, 3};
  tens_init(&to, F32, 2, so);
  const char* fname = NULL;
  CHECK_OK(op_run(ctx, "relax.one_hot", 3, ARGS(&ind->hdr, on, off), a0, 1, &ti, 1, &to, &fname));
  CHECK_STREQ(fname, "one_hot");
  double ref[12];
  for (int d = 0; d < 4; d++)
    for (int i = 0; i < 3; i++) ref[d * 3 + i] = (i == 0 && d == 2) || (i == 1 && d == 3) ? 5 : -1;
  CHECK(tens_close(&to, ref, 0, 0, NULL));
  tens_free(&to);
  tens_free(&ti);
  rlx_relax_expr_t* offi = rlx_relax_prim_value(ctx, c64(ctx, 0));
  rlx_relax_call_t* c = NULL;
  CHECK_ERR(op_call(ctx, "relax.one_hot", 3, ARGS(&ind->hdr, on, offi), at, &c),
            "relax.one_hot: on_value and off_value dtypes differ: float32 and int64");
  CHECK_ERR(op_call(ctx, "relax.one_hot", 3, ARGS(&ind->hdr, on, off), attrs0(), &c),
            "relax.one_hot: needs a depth attribute");
  CHECK_ERR(op_call(ctx, "relax.one_hot", 3, ARGS(&ind->hdr, on, off), attr1(ctx, at, "axis", rlx_attr_int(2)), &c),
            "relax.one_hot: axis 2 is out of range for rank 2");
  rlx_ctx_free(ctx);
}

/* Runs scatter_elements on host arrays; false on failure. */
static bool run_scatter(rlx_ctx_t* ctx, int64_t r, int64_t c, const double* data, int64_t ir, int64_t ic,
                        const double* ind, const double* upd, int64_t axis, const char* red, double* out) {
  int64_t sx[2] = {r, c}, si[2] = {ir, ic};
  rlx_relax_var_t* x = tvar(ctx, "x", 2, sx, F32);
  rlx_relax_var_t* i = tvar(ctx, "i", 2, si, I64);
  rlx_relax_var_t* u = tvar(ctx, "u", 2, si, F32);
  rlx_attrs_t at = attr1(ctx, attr1(ctx, attrs0(), "axis", rlx_attr_int(axis)), "reduction", rlx_attr_str(red));
  tens_t ts[3], to;
  tens_init(&ts[0], F32, 2, sx);
  tens_init(&ts[1], I64, 2, si);
  tens_init(&ts[2], F32, 2, si);
  tens_init(&to, F32, 2, sx);
  for (int64_t k = 0; k < r * c; k++) tens_set(&ts[0], k, data[k]);
  for (int64_t k = 0; k < ir * ic; k++) tens_set(&ts[1], k, ind[k]), tens_set(&ts[2], k, upd[k]);
  rlx_status_t* st = op_run(ctx, "relax.scatter_elements", 3, ARGS(&x->hdr, &i->hdr, &u->hdr), at, 3, ts, 1, &to, NULL);
  bool ok = st == NULL;
  if (st) fprintf(stderr, "scatter_elements: %s\n", rlx_status_message(st));
  rlx_status_free(st);
  for (int64_t k = 0; k < r * c; k++) out[k] = tens_get(&to, k);
  for (int k = 0; k < 3; k++) tens_free(&ts[k]);
  tens_free(&to);
  return ok;
}

/* The ONNX ScatterElements examples, duplicates under update/add/max, negative indices and
 * indices smaller than the data in the non-axis dim. */
static void test_scatter_elements(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  double out[9];
  const double z9[9] = {0};
  const double i1[6] = {1, 0, 2, 0, 2, 1}, u1[6] = {1.0, 1.1, 1.2, 2.0, 2.1, 2.2};
  const double w1[9] = {2.0, 1.1, 0.0, 1.0, 0.0, 2.2, 0.0, 2.1, 1.2};
  CHECK(run_scatter(ctx, 3, 3, z9, 2, 3, i1, u1, 0, "update", out));
  bool ok = true;
  for (int k = 0; k < 9; k++) ok = ok && fabs(out[k] - w1[k]) < 1e-6;
  CHECK_MSG(ok, "ONNX example 1");
  const double d2[5] = {1, 2, 3, 4, 5}, i2[2] = {1, -3}, u2[2] = {1.1, 2.1}, w2[5] = {1, 1.1, 2.1, 4, 5};
  CHECK(run_scatter(ctx, 1, 5, d2, 1, 2, i2, u2, 1, "update", out));
  ok = true;
  for (int k = 0; k < 5; k++) ok = ok && fabs(out[k] - w2[k]) < 1e-6;
  CHECK_MSG(ok, "negative index");
  const double dup[2] = {1, 1};
  const char* reds[4] = {"update", "add", "mul", "max"};
  const double want[4] = {2.1, 2 + 1.1 + 2.1, 2 * 1.1 * 2.1, 2.1};
  for (int r = 0; r < 4; r++) {
    CHECK(run_scatter(ctx, 1, 5, d2, 1, 2, dup, u2, 1, reds[r], out));
    CHECK_MSG(fabs(out[1] - want[r]) < 1e-5 && out[0] == 1 && out[2] == 3, "duplicates under %s: %g", reds[r], out[1]);
  }
  /* indices (2, 1) into (3, 3) on axis 1: rows 0 and 1 get one element, row 2 is kept */
  const double d3[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, i3[2] = {2, 0}, u3[2] = {90, 80};
  const double w3[9] = {1, 2, 90, 80, 5, 6, 7, 8, 9};
  CHECK(run_scatter(ctx, 3, 3, d3, 2, 1, i3, u3, 1, "update", out));
  ok = true;
  for (int k = 0; k < 9; k++) ok = ok && out[k] == w3[k];
  CHECK_MSG(ok, "partial indices");
  /* errors */
  int64_t s23[2] = {2, 3}, s3[1] = {3};
  rlx_relax_var_t* x = tvar(ctx, "x", 2, s23, F32);
  rlx_relax_var_t* i = tvar(ctx, "i", 2, s23, I64);
  rlx_relax_var_t* v = tvar(ctx, "v", 1, s3, F32);
  rlx_relax_call_t* c = NULL;
  CHECK_ERR(op_call(ctx, "relax.scatter_elements", 3, ARGS(&x->hdr, &i->hdr, &v->hdr), attrs0(), &c),
            "relax.scatter_elements: updates have rank 1, data has rank 2");
  CHECK_ERR(op_call(ctx, "relax.scatter_elements", 3, ARGS(&x->hdr, &i->hdr, &x->hdr),
                    attr1(ctx, attrs0(), "reduction", rlx_attr_str("mean")), &c),
            "relax.scatter_elements: reduction 'mean' is not update, add, mul, max or min");
  CHECK_STREQ(op_sinfo(ctx, "relax.scatter_elements", 3, ARGS(&x->hdr, &i->hdr, &x->hdr), attrs0()),
              "R.Tensor((2, 3), dtype=\"float32\")");
  rlx_ctx_free(ctx);
}

int main(void) {
  test_scatter_elements();
  test_one_hot();
  test_arange();
  test_trilu();
  test_tile();
  test_flip();
  test_cumsum();
  test_gather_elements();
  TEST_MAIN_END();
}
