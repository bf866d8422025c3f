/* Basic Relax ops, shape and index ops: permute_dims, reshape (-1 inference, symbolic),
 * flatten, expand_dims, squeeze, concat, split (sections and indices; one PrimFunc with
 * several outputs), strided_slice (attrs and tuple args, negative indices and strides,
 * clamping), take (axis, flattened, clip and wrap modes), nn.pad, broadcast_to, zeros / ones /
 * full. Struct info (static, symbolic, errors) and numbers from the TIR interpreter against C
 * index arithmetic (all exact: these ops only move values). */
#include "test_op_basic_util.h"

static const rlx_dtype_t F32 = {RLX_DT_FLOAT, 32, 1};
static const rlx_dtype_t I32 = {RLX_DT_INT, 32, 1};
static const rlx_dtype_t I64 = {RLX_DT_INT, 64, 1};

#define ARGS(...) ((rlx_relax_expr_t*[]){__VA_ARGS__})
#define NARGS(...) (int)(sizeof(ARGS(__VA_ARGS__)) / sizeof(rlx_relax_expr_t*))

/* x = 0, 1, 2, ... */
static void iota(tens_t* t) {
  for (int64_t i = 0; i < t->n; i++) tens_set(t, i, (double)i);
}

static void test_permute_dims(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t sx[3] = {2, 3, 4};
  rlx_relax_var_t* x = tvar(ctx, "x", 3, sx, F32);
  const int64_t ax[3] = {1, 0, 2};
  rlx_attrs_t at = attr1(ctx, attrs0(), "axes", ints_attr(ctx, 3, ax));
  CHECK_STREQ(op_sinfo(ctx, "relax.permute_dims", 1, ARGS(&x->hdr), at), "R.Tensor((3, 2, 4), dtype=\"float32\")");
  CHECK_STREQ(op_sinfo(ctx, "relax.permute_dims", 1, ARGS(&x->hdr), attrs0()),
              "R.Tensor((4, 3, 2), dtype=\"float32\")");
  for (int form = 0; form < 2; form++) {
    int64_t so[3] = {3, 2, 4}, sr[3] = {4, 3, 2};
    tens_t tx, to;
    tens_init(&tx, F32, 3, sx);
    tens_init(&to, F32, 3, form ? sr : so);
    iota(&tx);
    const char* fname = NULL;
    CHECK_OK(op_run(ctx, "relax.permute_dims", 1, ARGS(&x->hdr), form ? attrs0() : at, 1, &tx, 1, &to, &fname));
    CHECK_STREQ(fname, "transpose");
    double ref[24];
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 3; j++)
        for (int k = 0; k < 4; k++) {
          int src = i * 12 + j * 4 + k;
          if (form == 0)
            ref[j * 8 + i * 4 + k] = src;
          else
            ref[k * 6 + j * 2 + i] = src;
        }
    CHECK(tens_close(&to, ref, 0, 0, NULL));
    tens_free(&tx);
    tens_free(&to);
  }
  const int64_t bad[3] = {0, 0, 1};
  rlx_relax_call_t* c = NULL;
  CHECK_ERR(
      op_call(ctx, "relax.permute_dims", 1, ARGS(&x->hdr), attr1(ctx, attrs0(), "axes", ints_attr(ctx, 3, bad)), &c),
      "relax.permute_dims: axes are not a permutation");
  rlx_ctx_free(ctx);
}

static void test_reshape(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t sx[3] = {2, 3, 4};
  rlx_relax_var_t* x = tvar(ctx, "x", 3, sx, F32);
  rlx_relax_expr_t* shp = rlx_relax_shape_expr(ctx, 2, (rlx_expr_t*[]){c64(ctx, 4), c64(ctx, -1)});
  CHECK_STREQ(op_sinfo(ctx, "relax.reshape", 2, ARGS(&x->hdr, shp), attrs0()), "R.Tensor((4, 6), dtype=\"float32\")");
  int64_t so[2] = {4, 6};
  tens_t tx, to;
  tens_init(&tx, F32, 3, sx);
  tens_init(&to, F32, 2, so);
  iota(&tx);
  const char* fname = NULL;
  CHECK_OK(op_run(ctx, "relax.reshape", 2, ARGS(&x->hdr, shp), attrs0(), 1, &tx, 1, &to, &fname));
  CHECK_STREQ(fname, "reshape");
  double ref[24];
  for (int i = 0; i < 24; i++) ref[i] = i;
  CHECK(tens_close(&to, ref, 0, 0, NULL));
  tens_free(&to);
  /* flatten */
  int64_t s24[1] = {24};
  tens_init(&to, F32, 1, s24);
  CHECK_STREQ(op_sinfo(ctx, "relax.flatten", 1, ARGS(&x->hdr), attrs0()), "R.Tensor((24,), dtype=\"float32\")");
  CHECK_OK(op_run(ctx, "relax.flatten", 1, ARGS(&x->hdr), attrs0(), 1, &tx, 1, &to, NULL));
  CHECK(tens_close(&to, ref, 0, 0, NULL));
  tens_free(&to);
  tens_free(&tx);
  /* errors */
  rlx_relax_call_t* c = NULL;
  rlx_relax_expr_t* bad = rlx_relax_shape_expr(ctx, 2, (rlx_expr_t*[]){c64(ctx, 5), c64(ctx, 5)});
  CHECK_ERR(op_call(ctx, "relax.reshape", 2, ARGS(&x->hdr, bad), attrs0(), &c),
            "relax.reshape: cannot reshape (2, 3, 4) to (5, 5): the element counts differ");
  rlx_relax_expr_t* bad2 = rlx_relax_shape_expr(ctx, 2, (rlx_expr_t*[]){c64(ctx, 5), c64(ctx, -1)});
  CHECK_ERR(op_call(ctx, "relax.reshape", 2, ARGS(&x->hdr, bad2), attrs0(), &c), "relax.reshape: cannot reshape");
  /* symbolic: (n, 4) → (-1,) = (n * 4,), and (n, 4) → (2, n * 2); run with n = 3 */
  rlx_expr_t* n = symv(ctx, "n");
  rlx_relax_var_t* xs = tvar_sym(ctx, "xs", 2, (rlx_expr_t*[]){n, c64(ctx, 4)}, F32);
  rlx_relax_expr_t* flat = rlx_relax_shape_expr(ctx, 1, (rlx_expr_t*[]){c64(ctx, -1)});
  CHECK_STREQ(op_sinfo(ctx, "relax.reshape", 2, ARGS(&xs->hdr, flat), attrs0()),
              "R.Tensor((n * 4,), dtype=\"float32\")");
  rlx_relax_expr_t* two = rlx_relax_shape_expr(ctx, 2, (rlx_expr_t*[]){c64(ctx, 2), rlx_ir_mul(ctx, n, c64(ctx, 2))});
  CHECK_STREQ(op_sinfo(ctx, "relax.reshape", 2, ARGS(&xs->hdr, two), attrs0()),
              "R.Tensor((2, n * 2), dtype=\"float32\")");
  int64_t s34[2] = {3, 4}, s26[2] = {2, 6};
  tens_init(&tx, F32, 2, s34);
  tens_init(&to, F32, 2, s26);
  iota(&tx);
  CHECK_OK(op_run(ctx, "relax.reshape", 2, ARGS(&xs->hdr, two), attrs0(), 1, &tx, 1, &to, NULL));
  CHECK(tens_close(&to, ref, 0, 0, NULL));
  tens_free(&tx);
  tens_free(&to);
  /* (n * 4,) → (n, 4): n is not a whole dim of the input; the PrimFunc binds it from the output */
  rlx_relax_var_t* xf = tvar_sym(ctx, "xf", 1, (rlx_expr_t*[]){rlx_ir_mul(ctx, n, c64(ctx, 4))}, F32);
  rlx_relax_expr_t* n4 = rlx_relax_shape_expr(ctx, 2, (rlx_expr_t*[]){n, c64(ctx, 4)});
  CHECK_STREQ(op_sinfo(ctx, "relax.reshape", 2, ARGS(&xf->hdr, n4), attrs0()), "R.Tensor((n, 4), dtype=\"float32\")");
  int64_t s12[1] = {12};
  tens_init(&tx, F32, 1, s12);
  tens_init(&to, F32, 2, s34);
  iota(&tx);
  CHECK_OK(op_run(ctx, "relax.reshape", 2, ARGS(&xf->hdr, n4), attrs0(), 1, &tx, 1, &to, NULL));
  CHECK(tens_close(&to, ref, 0, 0, NULL));
  tens_free(&tx);
  tens_free(&to);
  rlx_relax_expr_t* bad3 = rlx_relax_shape_expr(ctx, 1, (rlx_expr_t*[]){rlx_ir_mul(ctx, n, c64(ctx, 3))});
  CHECK_ERR(op_call(ctx, "relax.reshape", 2, ARGS(&xs->hdr, bad3), attrs0(), &c),
            "relax.reshape: cannot reshape (n, 4) to (n * 3,)");
  rlx_ctx_free(ctx);
}

static void test_expand_squeeze(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t sx[2] = {2, 3};
  rlx_relax_var_t* x = tvar(ctx, "x", 2, sx, F32);
  const int64_t ax[2] = {0, -1};
  rlx_attrs_t at = attr1(ctx, attrs0(), "axis", ints_attr(ctx, 2, ax));
  CHECK_STREQ(op_sinfo(ctx, "relax.expand_dims", 1, ARGS(&x->hdr), at), "R.Tensor((1, 2, 3, 1), dtype=\"float32\")");
  int64_t so[4] = {1, 2, 3, 1};
  tens_t tx, to;
  tens_init(&tx, F32, 2, sx);
  tens_init(&to, F32, 4, so);
  iota(&tx);
  CHECK_OK(op_run(ctx, "relax.expand_dims", 1, ARGS(&x->hdr), at, 1, &tx, 1, &to, NULL));
  double ref[6] = {0, 1, 2, 3, 4, 5};
  CHECK(tens_close(&to, ref, 0, 0, NULL));
  tens_free(&tx);
  tens_free(&to);
  /* squeeze (1, 3, 1): all → (3,), axis [0] → (3, 1); axis 1 is an error */
  int64_t sq[3] = {1, 3, 1};
  rlx_relax_var_t* y = tvar(ctx, "y", 3, sq, F32);
  CHECK_STREQ(op_sinfo(ctx, "relax.squeeze", 1, ARGS(&y->hdr), attrs0()), "R.Tensor((3,), dtype=\"float32\")");
  const int64_t a0[1] = {0}, a1[1] = {1};
  rlx_attrs_t s0 = attr1(ctx, attrs0(), "axis", ints_attr(ctx, 1, a0));
  CHECK_STREQ(op_sinfo(ctx, "relax.squeeze", 1, ARGS(&y->hdr), s0), "R.Tensor((3, 1), dtype=\"float32\")");
  rlx_relax_call_t* c = NULL;
  CHECK_ERR(op_call(ctx, "relax.squeeze", 1, ARGS(&y->hdr), attr1(ctx, attrs0(), "axis", ints_attr(ctx, 1, a1)), &c),
            "relax.squeeze: cannot squeeze axis 1 of (1, 3, 1)");
  int64_t s3[1] = {3}, s31[2] = {3, 1};
  tens_init(&tx, F32, 3, sq);
  iota(&tx);
  tens_init(&to, F32, 1, s3);
  CHECK_OK(op_run(ctx, "relax.squeeze", 1, ARGS(&y->hdr), attrs0(), 1, &tx, 1, &to, NULL));
  CHECK(tens_close(&to, ref, 0, 0, NULL));
  tens_free(&to);
  tens_init(&to, F32, 2, s31);
  CHECK_OK(op_run(ctx, "relax.squeeze", 1, ARGS(&y->hdr), s0, 1, &tx, 1, &to, NULL));
  CHECK(tens_close(&to, ref, 0, 0, NULL));
  tens_free(&to);
  tens_free(&tx);
  rlx_ctx_free(ctx);
}

static void test_concat(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t sa[2] = {2, 3}, sb[2] = {2, 1}, sc[2] = {2, 2};
  rlx_relax_var_t* a = tvar(ctx, "a", 2, sa, F32);
  rlx_relax_var_t* b = tvar(ctx, "b", 2, sb, F32);
  rlx_relax_var_t* cc = tvar(ctx, "c", 2, sc, F32);
  rlx_relax_expr_t* tup = rlx_relax_tuple(ctx, 3, ARGS(&a->hdr, &b->hdr, &cc->hdr));
  rlx_attrs_t at = attr1(ctx, attrs0(), "axis", rlx_attr_int(1));
  CHECK_STREQ(op_sinfo(ctx, "relax.concat", 1, ARGS(tup), at), "R.Tensor((2, 6), dtype=\"float32\")");
  int64_t so[2] = {2, 6};
  tens_t ta, tb, tc, to;
  tens_init(&ta, F32, 2, sa);
  tens_init(&tb, F32, 2, sb);
  tens_init(&tc, F32, 2, sc);
  tens_init(&to, F32, 2, so);
  tens_rand(&ta, 0, 1);
  tens_rand(&tb, 1, 2);
  tens_rand(&tc, 2, 3);
  const char* fname = NULL;
  CHECK_OK(op_run(ctx, "relax.concat", 1, ARGS(tup), at, 3, (tens_t[]){ta, tb, tc}, 1, &to, &fname));
  CHECK_STREQ(fname, "concatenate");
  double ref[12];
  for (int r = 0; r < 2; r++)
    for (int j = 0; j < 6; j++)
      ref[r * 6 + j] = j < 3 ? tens_get(&ta, r * 3 + j) : j < 4 ? tens_get(&tb, r) : tens_get(&tc, r * 2 + j - 4);
  CHECK(tens_close(&to, ref, 0, 0, NULL));
  tens_free(&ta);
  tens_free(&tb);
  tens_free(&tc);
  tens_free(&to);
  /* symbolic: (n, 2) ++ (m, 2) on axis 0 → (n + m, 2); errors */
  rlx_expr_t *n = symv(ctx, "n"), *m = symv(ctx, "m");
  rlx_relax_var_t* p = tvar_sym(ctx, "p", 2, (rlx_expr_t*[]){n, c64(ctx, 2)}, F32);
  rlx_relax_var_t* q = tvar_sym(ctx, "q", 2, (rlx_expr_t*[]){m, c64(ctx, 2)}, F32);
  rlx_relax_expr_t* pq = rlx_relax_tuple(ctx, 2, ARGS(&p->hdr, &q->hdr));
  rlx_relax_call_t* c = NULL;
  CHECK_OK(op_call(ctx, "relax.concat", 1, ARGS(pq), attrs0(), &c));
  if (c)
    CHECK(rlx_sinfo_equal(ctx, c->hdr.sinfo,
                          rlx_sinfo_tensor(ctx, 2, (rlx_expr_t*[]){rlx_ir_add(ctx, n, m), c64(ctx, 2)}, F32)));
  CHECK_ERR(op_call(ctx, "relax.concat", 1, ARGS(tup), attrs0(), &c),
            "relax.concat: cannot join (2, 3) and (2, 1) on axis 0");
  rlx_relax_var_t* ai = tvar(ctx, "ai", 2, sa, I32);
  rlx_relax_expr_t* mixed = rlx_relax_tuple(ctx, 2, ARGS(&a->hdr, &ai->hdr));
  CHECK_ERR(op_call(ctx, "relax.concat", 1, ARGS(mixed), attrs0(), &c), "relax.concat: tensors have different dtypes");
  CHECK_ERR(op_call(ctx, "relax.concat", 1, ARGS(&a->hdr), attrs0(), &c), "relax.concat: takes a tuple of tensors");
  rlx_ctx_free(ctx);
}

static void test_split(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t sx[2] = {2, 6};
  rlx_relax_var_t* x = tvar(ctx, "x", 2, sx, F32);
  rlx_attrs_t at = attr1(ctx, attr1(ctx, attrs0(), "indices_or_sections", rlx_attr_int(3)), "axis", rlx_attr_int(1));
  CHECK_STREQ(op_sinfo(ctx, "relax.split", 1, ARGS(&x->hdr), at),
              "R.Tuple(R.Tensor((2, 2), dtype=\"float32\"), R.Tensor((2, 2), dtype=\"float32\"), "
              "R.Tensor((2, 2), dtype=\"float32\"))");
  int64_t s22[2] = {2, 2};
  tens_t tx, to[3];
  tens_init(&tx, F32, 2, sx);
  iota(&tx);
  for (int k = 0; k < 3; k++) tens_init(&to[k], F32, 2, s22);
  const char* fname = NULL;
  CHECK_OK(op_run(ctx, "relax.split", 1, ARGS(&x->hdr), at, 1, &tx, 3, to, &fname));
  CHECK_STREQ(fname, "split");
  for (int k = 0; k < 3; k++) {
    double ref[4] = {2 * k, 2 * k + 1, 6 + 2 * k, 7 + 2 * k};
    CHECK_MSG(tens_close(&to[k], ref, 0, 0, NULL), "split piece %d", k);
    tens_free(&to[k]);
  }
  tens_free(&tx);
  /* indices [1, 4] on (5,) → (1,), (3,), (1,) */
  int64_t s5[1] = {5};
  rlx_relax_var_t* y = tvar(ctx, "y", 1, s5, F32);
  const int64_t ind[2] = {1, 4};
  rlx_attrs_t ai = attr1(ctx, attrs0(), "indices_or_sections", ints_attr(ctx, 2, ind));
  CHECK_STREQ(op_sinfo(ctx, "relax.split", 1, ARGS(&y->hdr), ai),
              "R.Tuple(R.Tensor((1,), dtype=\"float32\"), R.Tensor((3,), dtype=\"float32\"), "
              "R.Tensor((1,), dtype=\"float32\"))");
  int64_t s1[1] = {1}, s3[1] = {3};
  tens_init(&tx, F32, 1, s5);
  iota(&tx);
  tens_init(&to[0], F32, 1, s1);
  tens_init(&to[1], F32, 1, s3);
  tens_init(&to[2], F32, 1, s1);
  CHECK_OK(op_run(ctx, "relax.split", 1, ARGS(&y->hdr), ai, 1, &tx, 3, to, NULL));
  double r0[1] = {0}, r1[3] = {1, 2, 3}, r2[1] = {4};
  CHECK(tens_close(&to[0], r0, 0, 0, NULL) && tens_close(&to[1], r1, 0, 0, NULL) && tens_close(&to[2], r2, 0, 0, NULL));
  for (int k = 0; k < 3; k++) tens_free(&to[k]);
  tens_free(&tx);
  /* symbolic: (n,) in 2 sections, run with n = 6 */
  rlx_expr_t* n = symv(ctx, "n");
  rlx_relax_var_t* z = tvar_sym(ctx, "z", 1, (rlx_expr_t*[]){n}, F32);
  rlx_attrs_t a2 = attr1(ctx, attrs0(), "indices_or_sections", rlx_attr_int(2));
  const char* s = op_sinfo(ctx, "relax.split", 1, ARGS(&z->hdr), a2);
  CHECK_MSG(strncmp(s, "R.Tuple(R.Tensor((", 18) == 0, "%s", s);
  int64_t s6[1] = {6};
  tens_init(&tx, F32, 1, s6);
  iota(&tx);
  tens_init(&to[0], F32, 1, s3);
  tens_init(&to[1], F32, 1, s3);
  CHECK_OK(op_run(ctx, "relax.split", 1, ARGS(&z->hdr), a2, 1, &tx, 2, to, NULL));
  double q0[3] = {0, 1, 2}, q1[3] = {3, 4, 5};
  CHECK(tens_close(&to[0], q0, 0, 0, NULL) && tens_close(&to[1], q1, 0, 0, NULL));
  for (int k = 0; k < 2; k++) tens_free(&to[k]);
  tens_free(&tx);
  rlx_relax_call_t* c = NULL;
  CHECK_ERR(op_call(ctx, "relax.split", 1, ARGS(&y->hdr), attrs0(), &c), "relax.split: needs indices_or_sections");
  CHECK_ERR(op_call(ctx, "relax.split", 1, ARGS(&y->hdr), attr1(ctx, a2, "axis", rlx_attr_int(1)), &c),
            "relax.split: axis 1 is out of range for rank 1");
  rlx_ctx_free(ctx);
}

static void test_strided_slice(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t sx[2] = {3, 4};
  rlx_relax_var_t* x = tvar(ctx, "x", 2, sx, F32);
  /* x[1:, -1:0:-1] → (2, 3) */
  const int64_t axes[2] = {0, 1}, begin[2] = {1, -1}, end[2] = {INT64_MAX, 0}, strides[2] = {1, -1};
  rlx_attrs_t at = attrs0();
  at = attr1(ctx, at, "axes", ints_attr(ctx, 2, axes));
  at = attr1(ctx, at, "begin", ints_attr(ctx, 2, begin));
  at = attr1(ctx, at, "end", ints_attr(ctx, 2, end));
  at = attr1(ctx, at, "strides", ints_attr(ctx, 2, strides));
  CHECK_STREQ(op_sinfo(ctx, "relax.strided_slice", 1, ARGS(&x->hdr), at), "R.Tensor((2, 3), dtype=\"float32\")");
  int64_t so[2] = {2, 3};
  tens_t tx, to;
  tens_init(&tx, F32, 2, sx);
  iota(&tx);
  tens_init(&to, F32, 2, so);
  const char* fname = NULL;
  CHECK_OK(op_run(ctx, "relax.strided_slice", 1, ARGS(&x->hdr), at, 1, &tx, 1, &to, &fname));
  CHECK_STREQ(fname, "strided_slice");
  double ref[6] = {7, 6, 5, 11, 10, 9};
  CHECK(tens_close(&to, ref, 0, 0, NULL));
  tens_free(&to);
  /* args form (TVM): R.strided_slice(x, (1,), (-100,), (100,), (2,)) → x[:, ::2] clamped */
  rlx_relax_expr_t* pv[4];
  const int64_t vals[4] = {1, -100, 100, 2};
  for (int i = 0; i < 4; i++) {
    rlx_relax_expr_t* f = rlx_relax_prim_value(ctx, c64(ctx, vals[i]));
    pv[i] = rlx_relax_tuple(ctx, 1, &f);
  }
  CHECK_STREQ(op_sinfo(ctx, "relax.strided_slice", 5, ARGS(&x->hdr, pv[0], pv[1], pv[2], pv[3]), attrs0()),
              "R.Tensor((3, 2), dtype=\"float32\")");
  int64_t s32[2] = {3, 2};
  tens_init(&to, F32, 2, s32);
  CHECK_OK(
      op_run(ctx, "relax.strided_slice", 5, ARGS(&x->hdr, pv[0], pv[1], pv[2], pv[3]), attrs0(), 1, &tx, 1, &to, NULL));
  double ref2[6] = {0, 2, 4, 6, 8, 10};
  CHECK(tens_close(&to, ref2, 0, 0, NULL));
  tens_free(&to);
  tens_free(&tx);
  /* symbolic: (n,)[1:] run with n = 5; empty slice */
  rlx_expr_t* n = symv(ctx, "n");
  rlx_relax_var_t* y = tvar_sym(ctx, "y", 1, (rlx_expr_t*[]){n}, F32);
  const int64_t a0[1] = {0}, b1[1] = {1}, eM[1] = {INT64_MAX}, e0[1] = {0};
  rlx_attrs_t sa =
      attr1(ctx, attr1(ctx, attr1(ctx, attrs0(), "axes", ints_attr(ctx, 1, a0)), "begin", ints_attr(ctx, 1, b1)), "end",
            ints_attr(ctx, 1, eM));
  int64_t s5[1] = {5}, s4[1] = {4};
  tens_init(&tx, F32, 1, s5);
  iota(&tx);
  tens_init(&to, F32, 1, s4);
  CHECK_OK(op_run(ctx, "relax.strided_slice", 1, ARGS(&y->hdr), sa, 1, &tx, 1, &to, NULL));
  double ref3[4] = {1, 2, 3, 4};
  CHECK(tens_close(&to, ref3, 0, 0, NULL));
  tens_free(&to);
  tens_free(&tx);
  rlx_attrs_t empty =
      attr1(ctx, attr1(ctx, attr1(ctx, attrs0(), "axes", ints_attr(ctx, 1, a0)), "begin", ints_attr(ctx, 1, b1)), "end",
            ints_attr(ctx, 1, e0));
  CHECK_STREQ(op_sinfo(ctx, "relax.strided_slice", 1, ARGS(&x->hdr), empty), "R.Tensor((0, 4), dtype=\"float32\")");
  rlx_relax_call_t* c = NULL;
  const int64_t a5[1] = {5};
  CHECK_ERR(op_call(ctx, "relax.strided_slice", 1, ARGS(&x->hdr), attr1(ctx, empty, "axes", ints_attr(ctx, 1, a5)), &c),
            "relax.strided_slice: axes: axis 5 is out of range");
  const int64_t z0[1] = {0};
  CHECK_ERR(
      op_call(ctx, "relax.strided_slice", 1, ARGS(&x->hdr), attr1(ctx, empty, "strides", ints_attr(ctx, 1, z0)), &c),
      "relax.strided_slice: stride 0");
  rlx_ctx_free(ctx);
}

static void test_take(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t sx[2] = {4, 3}, si[2] = {2, 2};
  rlx_relax_var_t* x = tvar(ctx, "x", 2, sx, F32);
  rlx_relax_var_t* ind = tvar(ctx, "ind", 2, si, I64);
  rlx_attrs_t a0 = attr1(ctx, attrs0(), "axis", rlx_attr_int(0));
  CHECK_STREQ(op_sinfo(ctx, "relax.take", 2, ARGS(&x->hdr, &ind->hdr), a0), "R.Tensor((2, 2, 3), dtype=\"float32\")");
  rlx_attrs_t a1 = attr1(ctx, attrs0(), "axis", rlx_attr_int(-1));
  CHECK_STREQ(op_sinfo(ctx, "relax.take", 2, ARGS(&x->hdr, &ind->hdr), a1), "R.Tensor((4, 2, 2), dtype=\"float32\")");
  CHECK_STREQ(op_sinfo(ctx, "relax.take", 2, ARGS(&x->hdr, &ind->hdr), attrs0()),
              "R.Tensor((2, 2), dtype=\"float32\")");
  tens_t tx, ti, to;
  tens_init(&tx, F32, 2, sx);
  iota(&tx);
  tens_init(&ti, I64, 2, si);
  const double iv[4] = {3, 0, 1, 1};
  for (int i = 0; i < 4; i++) tens_set(&ti, i, iv[i]);
  int64_t so[3] = {2, 2, 3};
  tens_init(&to, F32, 3, so);
  const char* fname = NULL;
  CHECK_OK(op_run(ctx, "relax.take", 2, ARGS(&x->hdr, &ind->hdr), a0, 2, (tens_t[]){tx, ti}, 1, &to, &fname));
  CHECK_STREQ(fname, "take");
  double ref[12];
  for (int k = 0; k < 4; k++)
    for (int j = 0; j < 3; j++) ref[k * 3 + j] = iv[k] * 3 + j;
  CHECK(tens_close(&to, ref, 0, 0, NULL));
  tens_free(&to);
  /* flattened, clip and wrap modes with out-of-range / negative indices */
  const double iv2[4] = {13, -1, 5, -12};
  for (int i = 0; i < 4; i++) tens_set(&ti, i, iv2[i]);
  tens_init(&to, F32, 2, si);
  CHECK_OK(op_run(ctx, "relax.take", 2, ARGS(&x->hdr, &ind->hdr), attr1(ctx, attrs0(), "mode", rlx_attr_str("clip")), 2,
                  (tens_t[]){tx, ti}, 1, &to, NULL));
  double rc[4] = {11, 0, 5, 0};
  CHECK(tens_close(&to, rc, 0, 0, NULL));
  CHECK_OK(op_run(ctx, "relax.take", 2, ARGS(&x->hdr, &ind->hdr), attr1(ctx, attrs0(), "mode", rlx_attr_str("wrap")), 2,
                  (tens_t[]){tx, ti}, 1, &to, NULL));
  double rw[4] = {1, 11, 5, 0};
  CHECK(tens_close(&to, rw, 0, 0, NULL));
  tens_free(&to);
  tens_free(&ti);
  tens_free(&tx);
  rlx_relax_var_t* fi = tvar(ctx, "fi", 2, si, F32);
  rlx_relax_call_t* c = NULL;
  CHECK_ERR(op_call(ctx, "relax.take", 2, ARGS(&x->hdr, &fi->hdr), a0, &c),
            "relax.take: indices must be int32 or int64");
  CHECK_ERR(
      op_call(ctx, "relax.take", 2, ARGS(&x->hdr, &ind->hdr), attr1(ctx, attrs0(), "mode", rlx_attr_str("nan")), &c),
      "relax.take: mode 'nan'");
  rlx_ctx_free(ctx);
}

static void test_pad_broadcast_full(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t sx[2] = {2, 3};
  rlx_relax_var_t* x = tvar(ctx, "x", 2, sx, F32);
  const int64_t pw[4] = {1, 0, 0, 2};
  rlx_attrs_t at = attr1(ctx, attr1(ctx, attrs0(), "pad_width", ints_attr(ctx, 4, pw)), "pad_value", rlx_attr_float(9));
  CHECK_STREQ(op_sinfo(ctx, "relax.nn.pad", 1, ARGS(&x->hdr), at), "R.Tensor((3, 5), dtype=\"float32\")");
  int64_t so[2] = {3, 5};
  tens_t tx, to;
  tens_init(&tx, F32, 2, sx);
  iota(&tx);
  tens_init(&to, F32, 2, so);
  const char* fname = NULL;
  CHECK_OK(op_run(ctx, "relax.nn.pad", 1, ARGS(&x->hdr), at, 1, &tx, 1, &to, &fname));
  CHECK_STREQ(fname, "pad");
  double ref[15] = {9, 9, 9, 9, 9, 0, 1, 2, 9, 9, 3, 4, 5, 9, 9};
  CHECK(tens_close(&to, ref, 0, 0, NULL));
  tens_free(&to);
  /* edge and reflect: rows (1, 0) and cols (0, 2) as numpy.pad */
  const char* modes[2] = {"edge", "reflect"};
  const double want[2][15] = {{0, 1, 2, 2, 2, 0, 1, 2, 2, 2, 3, 4, 5, 5, 5},
                              {3, 4, 5, 4, 3, 0, 1, 2, 1, 0, 3, 4, 5, 4, 3}};
  for (int k = 0; k < 2; k++) {
    tens_init(&to, F32, 2, so);
    CHECK_OK(op_run(ctx, "relax.nn.pad", 1, ARGS(&x->hdr), attr1(ctx, at, "pad_mode", rlx_attr_str(modes[k])), 1, &tx,
                    1, &to, NULL));
    CHECK_MSG(tens_close(&to, want[k], 0, 0, NULL), "pad %s", modes[k]);
    tens_free(&to);
  }
  rlx_relax_call_t* c = NULL;
  const int64_t big[4] = {2, 0, 0, 0};
  CHECK_ERR(op_call(ctx, "relax.nn.pad", 1, ARGS(&x->hdr),
                    attr1(ctx, attr1(ctx, attrs0(), "pad_width", ints_attr(ctx, 4, big)), "pad_mode",
                          rlx_attr_str("reflect")),
                    &c),
            "relax.nn.pad: reflect padding (2, 0) on axis 0 of extent 2");
  CHECK_ERR(op_call(ctx, "relax.nn.pad", 1, ARGS(&x->hdr), attr1(ctx, at, "pad_mode", rlx_attr_str("wrap")), &c),
            "relax.nn.pad: pad_mode 'wrap' is not constant, edge or reflect");
  CHECK_ERR(
      op_call(ctx, "relax.nn.pad", 1, ARGS(&x->hdr), attr1(ctx, attrs0(), "pad_width", ints_attr(ctx, 2, pw)), &c),
      "relax.nn.pad: pad_width has 2 values; a tensor of rank 2 needs 4");
  /* broadcast_to (2, 3) → (2, 2, 3); (3, 1) cannot go to (3, 4)? it can; (2, 3) to (3, 3) cannot */
  rlx_relax_expr_t* tgt = rlx_relax_shape_expr(ctx, 3, (rlx_expr_t*[]){c64(ctx, 2), c64(ctx, 2), c64(ctx, 3)});
  CHECK_STREQ(op_sinfo(ctx, "relax.broadcast_to", 2, ARGS(&x->hdr, tgt), attrs0()),
              "R.Tensor((2, 2, 3), dtype=\"float32\")");
  int64_t s223[3] = {2, 2, 3};
  tens_init(&to, F32, 3, s223);
  CHECK_OK(op_run(ctx, "relax.broadcast_to", 2, ARGS(&x->hdr, tgt), attrs0(), 1, &tx, 1, &to, &fname));
  CHECK_STREQ(fname, "broadcast_to");
  double rb[12];
  for (int i = 0; i < 12; i++) rb[i] = i % 6;
  CHECK(tens_close(&to, rb, 0, 0, NULL));
  tens_free(&to);
  rlx_relax_expr_t* bad = rlx_relax_shape_expr(ctx, 2, (rlx_expr_t*[]){c64(ctx, 3), c64(ctx, 3)});
  CHECK_ERR(op_call(ctx, "relax.broadcast_to", 2, ARGS(&x->hdr, bad), attrs0(), &c),
            "relax.broadcast_to: cannot broadcast (2, 3) to (3, 3)");
  /* symbolic broadcast_to: x (1, 3) → (n, 3), run with n = 2 */
  rlx_expr_t* n = symv(ctx, "n");
  int64_t s13[2] = {1, 3};
  rlx_relax_var_t* y = tvar(ctx, "y", 2, s13, F32);
  rlx_relax_expr_t* tn = rlx_relax_shape_expr(ctx, 2, (rlx_expr_t*[]){n, c64(ctx, 3)});
  CHECK_STREQ(op_sinfo(ctx, "relax.broadcast_to", 2, ARGS(&y->hdr, tn), attrs0()),
              "R.Tensor((n, 3), dtype=\"float32\")");
  tens_free(&tx);
  /* zeros / ones / full */
  rlx_relax_expr_t* s23 = rlx_relax_shape_expr(ctx, 2, (rlx_expr_t*[]){c64(ctx, 2), c64(ctx, 3)});
  rlx_attrs_t di = attr1(ctx, attrs0(), "dtype", rlx_attr_dtype(I32));
  CHECK_STREQ(op_sinfo(ctx, "relax.zeros", 1, ARGS(s23), di), "R.Tensor((2, 3), dtype=\"int32\")");
  CHECK_ERR(op_call(ctx, "relax.ones", 1, ARGS(s23), attrs0(), &c), "relax.ones: needs the dtype attribute");
  for (int k = 0; k < 2; k++) {
    tens_init(&to, I32, 2, sx);
    tens_set(&to, 0, 77);
    CHECK_OK(op_run(ctx, k ? "relax.ones" : "relax.zeros", 1, ARGS(s23), di, 0, NULL, 1, &to, NULL));
    double r[6];
    for (int i = 0; i < 6; i++) r[i] = k;
    CHECK(tens_close(&to, r, 0, 0, NULL));
    tens_free(&to);
  }
  /* symbolic zeros: (n, 3), run with n = 2 */
  rlx_relax_expr_t* sn3 = rlx_relax_shape_expr(ctx, 2, (rlx_expr_t*[]){n, c64(ctx, 3)});
  CHECK_STREQ(op_sinfo(ctx, "relax.zeros", 1, ARGS(sn3), di), "R.Tensor((n, 3), dtype=\"int32\")");
  tens_init(&to, I32, 2, sx);
  for (int i = 0; i < 6; i++) tens_set(&to, i, 5);
  CHECK_OK(op_run(ctx, "relax.zeros", 1, ARGS(sn3), di, 0, NULL, 1, &to, NULL));
  double rz[6] = {0, 0, 0, 0, 0, 0};
  CHECK(tens_close(&to, rz, 0, 0, NULL));
  tens_free(&to);
  rlx_relax_var_t* fv = tvar(ctx, "fv", 0, NULL, F32);
  CHECK_STREQ(op_sinfo(ctx, "relax.full", 2, ARGS(s23, &fv->hdr), attrs0()), "R.Tensor((2, 3), dtype=\"float32\")");
  tens_t tf;
  tens_init(&tf, F32, 0, NULL);
  tens_set(&tf, 0, 2.5);
  tens_init(&to, I32, 2, sx);
  CHECK_OK(op_run(ctx, "relax.full", 2, ARGS(s23, &fv->hdr), di, 1, &tf, 1, &to, NULL));
  double r2[6] = {2, 2, 2, 2, 2, 2};
  CHECK(tens_close(&to, r2, 0, 0, NULL));
  tens_free(&to);
  tens_free(&tf);
  rlx_ctx_free(ctx);
}

/* Unknown rank or shape gives unknown results, never an error; attribute kinds are checked. */
static void test_unknown_and_attrs(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_relax_var_t* u = rlx_relax_var(ctx, "u", rlx_sinfo_tensor(ctx, -1, NULL, F32));
  rlx_relax_var_t* u2 = rlx_relax_var(ctx, "u2", rlx_sinfo_tensor(ctx, 2, NULL, F32));
  const char* any = rlx_sinfo_str(ctx, rlx_sinfo_tensor(ctx, -1, NULL, F32));
  const int64_t ax[2] = {1, 0}, pw[4] = {1, 1, 0, 0}, one[1] = {0};
  CHECK_STREQ(op_sinfo(ctx, "relax.permute_dims", 1, ARGS(&u->hdr), attrs0()), any);
  CHECK_STREQ(
      op_sinfo(ctx, "relax.permute_dims", 1, ARGS(&u->hdr), attr1(ctx, attrs0(), "axes", ints_attr(ctx, 2, ax))),
      "R.Tensor(dtype=\"float32\", ndim=2)");
  CHECK_STREQ(op_sinfo(ctx, "relax.flatten", 1, ARGS(&u->hdr), attrs0()), "R.Tensor(dtype=\"float32\", ndim=1)");
  rlx_relax_expr_t* s6 = rlx_relax_shape_expr(ctx, 2, (rlx_expr_t*[]){c64(ctx, 2), c64(ctx, 3)});
  CHECK_STREQ(op_sinfo(ctx, "relax.reshape", 2, ARGS(&u->hdr, s6), attrs0()), "R.Tensor((2, 3), dtype=\"float32\")");
  CHECK_STREQ(
      op_sinfo(ctx, "relax.nn.pad", 1, ARGS(&u2->hdr), attr1(ctx, attrs0(), "pad_width", ints_attr(ctx, 4, pw))),
      "R.Tensor(dtype=\"float32\", ndim=2)");
  CHECK_STREQ(op_sinfo(ctx, "relax.squeeze", 1, ARGS(&u2->hdr), attrs0()), any);
  CHECK_STREQ(
      op_sinfo(ctx, "relax.expand_dims", 1, ARGS(&u2->hdr), attr1(ctx, attrs0(), "axis", ints_attr(ctx, 1, one))),
      "R.Tensor(dtype=\"float32\", ndim=3)");
  rlx_relax_expr_t* tup = rlx_relax_tuple(ctx, 2, ARGS(&u->hdr, &u2->hdr));
  CHECK_STREQ(op_sinfo(ctx, "relax.concat", 1, ARGS(tup), attrs0()), "R.Tensor(dtype=\"float32\", ndim=2)");
  CHECK_STREQ(
      op_sinfo(ctx, "relax.split", 1, ARGS(&u2->hdr), attr1(ctx, attrs0(), "indices_or_sections", rlx_attr_int(2))),
      "R.Tuple(R.Tensor(dtype=\"float32\", ndim=2), R.Tensor(dtype=\"float32\", ndim=2))");
  int64_t s3[1] = {3};
  rlx_relax_var_t* ind = tvar(ctx, "ind", 1, s3, I64);
  CHECK_STREQ(op_sinfo(ctx, "relax.take", 2, ARGS(&u2->hdr, &ind->hdr), attr1(ctx, attrs0(), "axis", rlx_attr_int(0))),
              "R.Tensor(dtype=\"float32\", ndim=2)");
  /* attribute kinds */
  rlx_relax_call_t* c = NULL;
  CHECK_ERR(
      op_call(ctx, "relax.take", 2, ARGS(&u2->hdr, &ind->hdr), attr1(ctx, attrs0(), "axis", rlx_attr_float(0.5)), &c),
      "relax.take: attribute axis must be an int, got a float");
  CHECK_ERR(op_call(ctx, "relax.flatten", 1, ARGS(&u->hdr), attr1(ctx, attrs0(), "axis", rlx_attr_int(0)), &c),
            "relax.flatten: unknown attribute 'axis'");
  CHECK_ERR(op_call(ctx, "relax.astype", 1, ARGS(&u->hdr), attr1(ctx, attrs0(), "dtype", rlx_attr_int(3)), &c),
            "relax.astype: attribute dtype must be a dtype, got an int");
  rlx_ctx_free(ctx);
}

/* Each op legalized for x: (n, 3) and for x: (2, 3) gives the same numbers on the same input
 * (the static forms are checked against C above): symbolic shapes through legalization. */
static void test_symbolic_matches_static(void) {
  typedef struct {
    const char* op;
    const char* key;
    rlx_attr_t val;
    int extra; /* 0 none, 1 second arg x, 2 second arg int64 indices (2,), 3 tuple (x, x) */
    int64_t out_n;
  } sym_case_t;
  static const int64_t a01[2] = {1, 0}, a1[1] = {1}, a0[1] = {0}, b1[1] = {1}, pw[4] = {1, 0, 0, 2};
  const sym_case_t cases[] = {
      {"relax.permute_dims", "axes", rlx_attr_ints(2, (int64_t*)a01), 0, 6},
      {"relax.flatten", NULL, {0}, 0, 6},
      {"relax.expand_dims", "axis", rlx_attr_ints(1, (int64_t*)a1), 0, 6},
      {"relax.concat", "axis", rlx_attr_int(0), 3, 12},
      {"relax.take", "axis", rlx_attr_int(0), 2, 6},
      {"relax.nn.pad", "pad_width", rlx_attr_ints(4, (int64_t*)pw), 0, 15},
      {"relax.sum", "axis", rlx_attr_ints(1, (int64_t*)a0), 0, 3},
      {"relax.argmin", "axis", rlx_attr_int(0), 0, 3},
      {"relax.exp", NULL, {0}, 0, 6},
      {"relax.maximum", NULL, {0}, 1, 6},
      {"relax.strided_slice", "axes", rlx_attr_ints(1, (int64_t*)a0), 0, 3},
  };
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
    const sym_case_t* sc = &cases[k];
    rlx_ctx_t* ctx = rlx_ctx_create();
    int64_t s23[2] = {2, 3}, s2[1] = {2};
    rlx_relax_var_t* xs = tvar(ctx, "x", 2, s23, F32);
    rlx_relax_var_t* xn = tvar_sym(ctx, "x", 2, (rlx_expr_t*[]){symv(ctx, "n"), c64(ctx, 3)}, F32);
    rlx_relax_var_t* ind = tvar(ctx, "ind", 1, s2, I64);
    rlx_attrs_t at = sc->key ? attr1(ctx, attrs0(), sc->key, sc->val) : attrs0();
    if (strcmp(sc->op, "relax.strided_slice") == 0) {
      const int64_t eM[1] = {INT64_MAX};
      at = attr1(ctx, attr1(ctx, at, "begin", ints_attr(ctx, 1, b1)), "end", ints_attr(ctx, 1, eM));
    }
    tens_t tx, ti, out[2];
    tens_init(&tx, F32, 2, s23);
    tens_rand(&tx, -1, 1);
    tens_init(&ti, I64, 1, s2);
    tens_set(&ti, 0, 1);
    tens_set(&ti, 1, 0);
    bool is_arg = strncmp(sc->op, "relax.arg", 9) == 0;
    for (int form = 0; form < 2; form++) {
      rlx_relax_expr_t* x = form ? &xn->hdr : &xs->hdr;
      rlx_relax_expr_t* args[2] = {x, x};
      int n_args = sc->extra == 0 || sc->extra == 3 ? 1 : 2, n_in = sc->extra ? 2 : 1;
      if (sc->extra == 2) args[1] = &ind->hdr;
      if (sc->extra == 3) args[0] = rlx_relax_tuple(ctx, 2, (rlx_relax_expr_t*[]){x, x});
      rlx_relax_call_t* c = NULL;
      CHECK_OK(op_call(ctx, sc->op, n_args, args, at, &c));
      if (!c) continue;
      const rlx_sinfo_tensor_t* os = (const rlx_sinfo_tensor_t*)c->hdr.sinfo;
      int64_t oshape[4];
      rlx_int_env_t env = {0};
      if (form) rlx_int_env_set(&env, (rlx_var_t*)((rlx_sinfo_tensor_t*)xn->hdr.sinfo)->shape[0], 2);
      for (int d = 0; d < os->ndim; d++) CHECK_OK(rlx_ir_eval_int(os->shape[d], &env, &oshape[d]));
      rlx_int_env_free(&env);
      tens_init(&out[form], is_arg ? I64 : F32, os->ndim, oshape);
      CHECK_MSG(out[form].n == sc->out_n, "%s: %lld elements", sc->op, (long long)out[form].n);
      tens_t ins[2] = {tx, sc->extra == 2 ? ti : tx};
      CHECK_OK(op_run(ctx, sc->op, n_args, args, at, n_in, ins, 1, &out[form], NULL));
    }
    double ref[16];
    for (int64_t i = 0; i < out[0].n && i < 16; i++) ref[i] = tens_get(&out[0], i);
    CHECK_MSG(tens_close(&out[1], ref, 0, 0, NULL), "%s: symbolic differs from static", sc->op);
    tens_free(&out[0]);
    tens_free(&out[1]);
    tens_free(&tx);
    tens_free(&ti);
    rlx_ctx_free(ctx);
  }
}

int main(void) {
  test_symbolic_matches_static();
  test_unknown_and_attrs();
  test_permute_dims();
  test_reshape();
  test_expand_squeeze();
  test_concat();
  test_split();
  test_strided_slice();
  test_take();
  test_pad_broadcast_full();
  TEST_MAIN_END();
}
