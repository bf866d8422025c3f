/* Basic Relax ops, elementwise part: every unary op and every binary op — struct info
 * (static, symbolic, unknown rank, errors naming the op and shapes), legalization to
 * R.call_tir of a TE PrimFunc, and the PrimFunc run in the TIR interpreter on random inputs
 * against C loops (float32: |err| <= 1e-5 + 1e-5 * |ref|; ints and bools exact). Also
 * where, astype, clip. */
#include "test_op_basic_util.h"

static const rlx_dtype_t F32 = {RLX_DT_FLOAT, 32, 1};
static const rlx_dtype_t I32 = {RLX_DT_INT, 32, 1};
static const rlx_dtype_t BOOL = {RLX_DT_UINT, 1, 1};

/* ------------------------------------------------------------------ unary */
static double sigm(double x) { return 1 / (1 + exp(-x)); }
static double relu_d(double x) { return x > 0 ? x : 0; }
static double gelu_d(double x) { return 0.5 * x * (1 + erf(x / sqrt(2.0))); }
static double gelu_tanh_d(double x) { return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x))); }
static double silu_d(double x) { return x * sigm(x); }
static double rsqrt_d(double x) { return 1 / sqrt(x); }
static double neg_d(double x) { return -x; }
static double sign_d(double x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }
static double square_d(double x) { return x * x; }
static double lnot_d(double x) { return x == 0; }
static double isnan_d(double x) { return isnan(x) ? 1 : 0; }
static double isinf_d(double x) { return isinf(x) ? 1 : 0; }
static double isfinite_d(double x) { return isfinite(x) ? 1 : 0; }

typedef struct {
  const char* op;
  double (*f)(double);
  double lo, hi;
  bool bool_out;
} unary_case_t;

static const unary_case_t unary_cases[] = {
    {"relax.nn.relu", relu_d, -3, 3, false},
    {"relax.nn.gelu", gelu_d, -3, 3, false},
    {"relax.nn.gelu_tanh", gelu_tanh_d, -3, 3, false},
    {"relax.nn.silu", silu_d, -3, 3, false},
    {"relax.sigmoid", sigm, -5, 5, false},
    {"relax.tanh", tanh, -3, 3, false},
    {"relax.exp", exp, -3, 3, false},
    {"relax.log", log, 0.05, 5, false},
    {"relax.sqrt", sqrt, 0, 5, false},
    {"relax.rsqrt", rsqrt_d, 0.1, 5, false},
    {"relax.erf", erf, -2, 2, false},
    {"relax.abs", fabs, -3, 3, false},
    {"relax.negative", neg_d, -3, 3, false},
    {"relax.sin", sin, -4, 4, false},
    {"relax.cos", cos, -4, 4, false},
    {"relax.floor", floor, -3, 3, false},
    {"relax.ceil", ceil, -3, 3, false},
    {"relax.round", nearbyint, -3, 3, false},
    {"relax.sign", sign_d, -3, 3, false},
    {"relax.square", square_d, -3, 3, false},
    {"relax.logical_not", lnot_d, -1, 1, true},
    {"relax.isnan", isnan_d, -1, 1, true},
    {"relax.isinf", isinf_d, -1, 1, true},
    {"relax.isfinite", isfinite_d, -1, 1, true},
    {"relax.trunc", trunc, -3, 3, false},
    {"relax.tan", tan, -1.2, 1.2, false},
    {"relax.sinh", sinh, -2, 2, false},
    {"relax.cosh", cosh, -2, 2, false},
    {"relax.asin", asin, -0.95, 0.95, false},
    {"relax.acos", acos, -0.95, 0.95, false},
    {"relax.atan", atan, -3, 3, false},
    {"relax.asinh", asinh, -3, 3, false},
    {"relax.acosh", acosh, 1.05, 4, false},
    {"relax.atanh", atanh, -0.9, 0.9, false},
};

static void test_unary_numbers(void) {
  for (size_t k = 0; k < sizeof(unary_cases) / sizeof(unary_cases[0]); k++) {
    const unary_case_t* uc = &unary_cases[k];
    rlx_ctx_t* ctx = rlx_ctx_create();
    int64_t dims[2] = {3, 5};
    rlx_relax_var_t* x = tvar(ctx, "x", 2, dims, F32);
    tens_t in, out;
    tens_init(&in, F32, 2, dims);
    tens_init(&out, uc->bool_out ? BOOL : F32, 2, dims);
    tens_rand(&in, uc->lo, uc->hi);
    if (strcmp(uc->op, "relax.logical_not") == 0) tens_set(&in, 2, 0.0);
    if (strcmp(uc->op, "relax.isnan") == 0 || strcmp(uc->op, "relax.isfinite") == 0) tens_set(&in, 3, NAN);
    if (strcmp(uc->op, "relax.isinf") == 0 || strcmp(uc->op, "relax.isfinite") == 0) tens_set(&in, 5, -INFINITY);
    if (strcmp(uc->op, "relax.sign") == 0) tens_set(&in, 4, 0.0);
    if (strcmp(uc->op, "relax.round") == 0) /* halves round to even */
      for (int i = 0; i < 6; i++) tens_set(&in, i, -2.5 + i);
    const char* fname = NULL;
    CHECK_OK(op_run(ctx, uc->op, 1, (rlx_relax_expr_t*[]){&x->hdr}, attrs0(), 1, &in, 1, &out, &fname));
    double ref[15], err = 0;
    for (int i = 0; i < 15; i++) ref[i] = uc->f(tens_get(&in, i));
    CHECK_MSG(tens_close(&out, ref, 1e-5, 1e-5, &err), "%s: max abs error %g", uc->op, err);
    /* PrimFunc named as TVM's legalization: "relu", "exp", ... */
    const char* want = strrchr(uc->op, '.') + 1;
    CHECK_MSG(fname && strcmp(fname, want) == 0, "%s: PrimFunc %s", uc->op, fname ? fname : "(none)");
    tens_free(&in);
    tens_free(&out);
    rlx_ctx_free(ctx);
  }
}

static void test_unary_sinfo(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* n = symv(ctx, "n");
  rlx_relax_var_t* xs = tvar_sym(ctx, "x", 2, (rlx_expr_t*[]){n, c64(ctx, 4)}, F32);
  CHECK_STREQ(op_sinfo(ctx, "relax.exp", 1, (rlx_relax_expr_t*[]){&xs->hdr}, attrs0()),
              "R.Tensor((n, 4), dtype=\"float32\")");
  CHECK_STREQ(op_sinfo(ctx, "relax.isnan", 1, (rlx_relax_expr_t*[]){&xs->hdr}, attrs0()),
              "R.Tensor((n, 4), dtype=\"bool\")");
  rlx_relax_var_t* xu = rlx_relax_var(ctx, "xu", rlx_sinfo_tensor(ctx, -1, NULL, F32));
  CHECK_STREQ(op_sinfo(ctx, "relax.nn.relu", 1, (rlx_relax_expr_t*[]){&xu->hdr}, attrs0()),
              rlx_sinfo_str(ctx, rlx_sinfo_tensor(ctx, -1, NULL, F32)));
  rlx_relax_var_t* x3 = rlx_relax_var(ctx, "x3", rlx_sinfo_tensor(ctx, 3, NULL, F32));
  CHECK_STREQ(op_sinfo(ctx, "relax.tanh", 1, (rlx_relax_expr_t*[]){&x3->hdr}, attrs0()),
              "R.Tensor(dtype=\"float32\", ndim=3)");
  /* float-only ops reject ints; int-friendly ops accept them */
  int64_t d2[2] = {2, 2};
  rlx_relax_var_t* xi = tvar(ctx, "xi", 2, d2, I32);
  rlx_relax_call_t* c = NULL;
  CHECK_ERR(op_call(ctx, "relax.exp", 1, (rlx_relax_expr_t*[]){&xi->hdr}, attrs0(), &c),
            "relax.exp: needs a float tensor");
  CHECK_ERR(op_call(ctx, "relax.nn.gelu", 1, (rlx_relax_expr_t*[]){&xi->hdr}, attrs0(), &c),
            "relax.nn.gelu: needs a float");
  CHECK_STREQ(op_sinfo(ctx, "relax.abs", 1, (rlx_relax_expr_t*[]){&xi->hdr}, attrs0()),
              "R.Tensor((2, 2), dtype=\"int32\")");
  /* wrong arity and non-tensor argument */
  CHECK_ERR(op_call(ctx, "relax.exp", 2, (rlx_relax_expr_t*[]){&xs->hdr, &xs->hdr}, attrs0(), &c),
            "relax.exp: takes 1 argument, got 2");
  rlx_relax_expr_t* sh = rlx_relax_shape_expr(ctx, 1, (rlx_expr_t*[]){c64(ctx, 3)});
  CHECK_ERR(op_call(ctx, "relax.exp", 1, &sh, attrs0(), &c), "relax.exp: argument 0 must be a tensor");
  rlx_ctx_free(ctx);
}

/* Ints through int-friendly unary ops: abs, negative, sign, square, relu (exact). */
static void test_unary_ints(void) {
  const char* ops[5] = {"relax.abs", "relax.negative", "relax.sign", "relax.square", "relax.nn.relu"};
  double (*fs[5])(double) = {fabs, neg_d, sign_d, square_d, relu_d};
  for (int k = 0; k < 5; k++) {
    rlx_ctx_t* ctx = rlx_ctx_create();
    int64_t dims[1] = {9};
    rlx_relax_var_t* x = tvar(ctx, "x", 1, dims, I32);
    tens_t in, out;
    tens_init(&in, I32, 1, dims);
    tens_init(&out, I32, 1, dims);
    for (int i = 0; i < 9; i++) tens_set(&in, i, i - 4);
    CHECK_OK(op_run(ctx, ops[k], 1, (rlx_relax_expr_t*[]){&x->hdr}, attrs0(), 1, &in, 1, &out, NULL));
    double ref[9];
    for (int i = 0; i < 9; i++) ref[i] = fs[k](i - 4);
    CHECK_MSG(tens_close(&out, ref, 0, 0, NULL), "%s on int32", ops[k]);
    tens_free(&in);
    tens_free(&out);
    rlx_ctx_free(ctx);
  }
}

/* ------------------------------------------------------------------ binary */
typedef struct {
  const char* op;
  int kind; /* index into the oracle switch */
  bool bool_out;
} bin_case_t;

static const bin_case_t bin_cases[] = {
    {"relax.add", 0, false},          {"relax.subtract", 1, false},      {"relax.multiply", 2, false},
    {"relax.divide", 3, false},       {"relax.floor_divide", 4, false},  {"relax.power", 5, false},
    {"relax.maximum", 6, false},      {"relax.minimum", 7, false},       {"relax.equal", 8, true},
    {"relax.not_equal", 9, true},     {"relax.less", 10, true},          {"relax.less_equal", 11, true},
    {"relax.greater", 12, true},      {"relax.greater_equal", 13, true}, {"relax.logical_and", 14, true},
    {"relax.logical_or", 15, true},   {"relax.logical_xor", 16, true},   {"relax.mod", 17, false},
    {"relax.floor_mod", 18, false},   {"relax.bitwise_and", 19, false},  {"relax.bitwise_or", 20, false},
    {"relax.bitwise_xor", 21, false},
};

static double bin_ref(int kind, double a, double b, bool is_int) {
  switch (kind) {
    case 0:
      return a + b;
    case 1:
      return a - b;
    case 2:
      return a * b;
    case 3:
      return is_int ? trunc(a / b) : a / b;
    case 4:
      return floor(a / b);
    case 5:
      return pow(a, b);
    case 6:
      return a > b ? a : b;
    case 7:
      return a < b ? a : b;
    case 8:
      return a == b;
    case 9:
      return a != b;
    case 10:
      return a < b;
    case 11:
      return a <= b;
    case 12:
      return a > b;
    case 13:
      return a >= b;
    case 14:
      return a != 0 && b != 0;
    case 15:
      return a != 0 || b != 0;
    case 16:
      return (a != 0) != (b != 0);
    case 17:
      return fmod(a, b);
    case 18:
      return a - floor(a / b) * b;
    case 19:
      return (double)((int64_t)a & (int64_t)b);
    case 20:
      return (double)((int64_t)a | (int64_t)b);
    default:
      return (double)((int64_t)a ^ (int64_t)b);
  }
}

/* (2, 3, 4) op (3, 1) → (2, 3, 4), float32 and int32. */
static void test_binary_numbers(void) {
  for (int dt = 0; dt < 2; dt++)
    for (size_t k = 0; k < sizeof(bin_cases) / sizeof(bin_cases[0]); k++) {
      const bin_case_t* bc = &bin_cases[k];
      bool is_int = dt == 1;
      if (is_int && bc->kind == 5) continue;   /* power: float only here */
      if (!is_int && bc->kind >= 19) continue; /* bitwise: ints only (float error below) */
      rlx_dtype_t t = is_int ? I32 : F32;
      rlx_ctx_t* ctx = rlx_ctx_create();
      int64_t sa[3] = {2, 3, 4}, sb[2] = {3, 1};
      rlx_relax_var_t* a = tvar(ctx, "a", 3, sa, t);
      rlx_relax_var_t* b = tvar(ctx, "b", 2, sb, t);
      tens_t ta, tb, to;
      tens_init(&ta, t, 3, sa);
      tens_init(&tb, t, 2, sb);
      tens_init(&to, bc->bool_out ? BOOL : t, 3, sa);
      if (bc->kind == 5) {
        tens_rand(&ta, 0.1, 3);
        tens_rand(&tb, -2, 2);
      } else {
        tens_rand(&ta, -6, 6);
        tens_rand(&tb, -6, 6);
      }
      if (bc->kind == 3 || bc->kind == 4 || bc->kind == 17 || bc->kind == 18) /* no division by zero */
        for (int i = 0; i < 3; i++)
          if (fabs(tens_get(&tb, i)) < 0.5) tens_set(&tb, i, 2.5);
      if (bc->kind >= 8 && bc->kind <= 13) tens_set(&ta, 0, tens_get(&tb, 0)); /* an equal pair */
      if (bc->kind >= 14 && bc->kind <= 16) tens_set(&ta, 1, 0.0);
      const char* fname = NULL;
      CHECK_OK(op_run(ctx, bc->op, 2, (rlx_relax_expr_t*[]){&a->hdr, &b->hdr}, attrs0(), 2, (tens_t[]){ta, tb}, 1, &to,
                      &fname));
      double ref[24], err = 0;
      for (int i = 0; i < 24; i++) {
        double x = tens_get(&ta, bcast_index(3, sa, i, 3, sa)), y = tens_get(&tb, bcast_index(3, sa, i, 2, sb));
        ref[i] = bin_ref(bc->kind, x, y, is_int);
        if (!is_int && !bc->bool_out) ref[i] = (float)ref[i];
      }
      CHECK_MSG(tens_close(&to, ref, is_int ? 0 : 1e-5, is_int ? 0 : 1e-5, &err), "%s (%s): max abs error %g", bc->op,
                is_int ? "int32" : "float32", err);
      CHECK_MSG(fname && strcmp(fname, bc->op + 6) == 0, "%s: PrimFunc %s", bc->op, fname ? fname : "(none)");
      tens_free(&ta);
      tens_free(&tb);
      tens_free(&to);
      rlx_ctx_free(ctx);
    }
}

static void test_binary_sinfo(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t *n = symv(ctx, "n"), *m = symv(ctx, "m");
  int64_t s23[2] = {2, 3}, s4[1] = {4};
  rlx_relax_var_t* a = tvar(ctx, "a", 2, s23, F32);
  rlx_relax_var_t* b = tvar(ctx, "b", 1, s4, F32);
  rlx_relax_call_t* c = NULL;
  CHECK_ERR(op_call(ctx, "relax.add", 2, (rlx_relax_expr_t*[]){&a->hdr, &b->hdr}, attrs0(), &c),
            "relax.add: cannot broadcast (2, 3) and (4,)");
  rlx_relax_var_t* n1 = tvar_sym(ctx, "x", 2, (rlx_expr_t*[]){n, c64(ctx, 1)}, F32);
  rlx_relax_var_t* m1 = tvar_sym(ctx, "y", 2, (rlx_expr_t*[]){c64(ctx, 1), m}, F32);
  CHECK_STREQ(op_sinfo(ctx, "relax.multiply", 2, (rlx_relax_expr_t*[]){&n1->hdr, &m1->hdr}, attrs0()),
              "R.Tensor((n, m), dtype=\"float32\")");
  rlx_relax_var_t* nn = tvar_sym(ctx, "p", 1, (rlx_expr_t*[]){n}, F32);
  rlx_relax_var_t* mm = tvar_sym(ctx, "q", 1, (rlx_expr_t*[]){m}, F32);
  CHECK_STREQ(op_sinfo(ctx, "relax.less", 2, (rlx_relax_expr_t*[]){&nn->hdr, &nn->hdr}, attrs0()),
              "R.Tensor((n,), dtype=\"bool\")");
  /* undecidable (n vs m): the rank only, as TVM infers it */
  CHECK_STREQ(op_sinfo(ctx, "relax.add", 2, (rlx_relax_expr_t*[]){&nn->hdr, &mm->hdr}, attrs0()),
              "R.Tensor(dtype=\"float32\", ndim=1)");
  /* provably equal: n*2 vs 2*n */
  rlx_relax_var_t* p2 = tvar_sym(ctx, "p2", 1, (rlx_expr_t*[]){rlx_ir_mul(ctx, n, c64(ctx, 2))}, F32);
  rlx_relax_var_t* q2 = tvar_sym(ctx, "q2", 1, (rlx_expr_t*[]){rlx_ir_mul(ctx, c64(ctx, 2), n)}, F32);
  CHECK_STREQ(op_sinfo(ctx, "relax.subtract", 2, (rlx_relax_expr_t*[]){&p2->hdr, &q2->hdr}, attrs0()),
              "R.Tensor((n * 2,), dtype=\"float32\")");
  /* rank-0 broadcasts with anything */
  rlx_relax_var_t* s0 = tvar(ctx, "s", 0, NULL, F32);
  CHECK_STREQ(op_sinfo(ctx, "relax.divide", 2, (rlx_relax_expr_t*[]){&s0->hdr, &a->hdr}, attrs0()),
              "R.Tensor((2, 3), dtype=\"float32\")");
  /* unknown rank / shape */
  rlx_relax_var_t* u = rlx_relax_var(ctx, "u", rlx_sinfo_tensor(ctx, -1, NULL, F32));
  rlx_relax_var_t* u3 = rlx_relax_var(ctx, "u3", rlx_sinfo_tensor(ctx, 3, NULL, F32));
  CHECK_STREQ(op_sinfo(ctx, "relax.add", 2, (rlx_relax_expr_t*[]){&a->hdr, &u->hdr}, attrs0()),
              rlx_sinfo_str(ctx, rlx_sinfo_tensor(ctx, -1, NULL, F32)));
  CHECK_STREQ(op_sinfo(ctx, "relax.add", 2, (rlx_relax_expr_t*[]){&a->hdr, &u3->hdr}, attrs0()),
              "R.Tensor(dtype=\"float32\", ndim=3)");
  /* dtypes */
  rlx_relax_var_t* ai = tvar(ctx, "ai", 2, s23, I32);
  CHECK_ERR(op_call(ctx, "relax.add", 2, (rlx_relax_expr_t*[]){&a->hdr, &ai->hdr}, attrs0(), &c),
            "relax.add: operand dtypes differ: float32 and int32");
  CHECK_ERR(op_call(ctx, "relax.bitwise_and", 2, (rlx_relax_expr_t*[]){&a->hdr, &a->hdr}, attrs0(), &c),
            "relax.bitwise_and: needs int or bool tensors, got float32 and float32");
  CHECK_STREQ(op_sinfo(ctx, "relax.logical_and", 2, (rlx_relax_expr_t*[]){&a->hdr, &ai->hdr}, attrs0()),
              "R.Tensor((2, 3), dtype=\"bool\")");
  rlx_ctx_free(ctx);
}

/* A scalar (R.prim_value) operand acts as a 0-d tensor (TVM); a constant takes the tensor's
 * dtype. */
static void test_binary_scalar(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t s5[1] = {5};
  rlx_relax_var_t* x = tvar(ctx, "x", 1, s5, F32);
  rlx_relax_var_t* xi = tvar(ctx, "xi", 1, s5, I32);
  rlx_relax_expr_t* two = rlx_relax_prim_value(ctx, c64(ctx, 2));
  rlx_relax_expr_t* ten = rlx_relax_prim_value(ctx, rlx_ir_int(ctx, I32, 10));
  CHECK_STREQ(op_sinfo(ctx, "relax.add", 2, (rlx_relax_expr_t*[]){&x->hdr, two}, attrs0()),
              "R.Tensor((5,), dtype=\"float32\")");
  CHECK_STREQ(op_sinfo(ctx, "relax.less", 2, (rlx_relax_expr_t*[]){two, &x->hdr}, attrs0()),
              "R.Tensor((5,), dtype=\"bool\")");
  tens_t tx, ti, to, tb;
  tens_init(&tx, F32, 1, s5);
  tens_init(&ti, I32, 1, s5);
  tens_init(&to, F32, 1, s5);
  tens_init(&tb, BOOL, 1, s5);
  for (int i = 0; i < 5; i++) tens_set(&tx, i, i - 1.5), tens_set(&ti, i, 3 * i);
  CHECK_OK(op_run(ctx, "relax.add", 2, (rlx_relax_expr_t*[]){&x->hdr, two}, attrs0(), 1, &tx, 1, &to, NULL));
  double r1[5], r2[5], r3[5];
  for (int i = 0; i < 5; i++) r1[i] = i - 1.5 + 2, r2[i] = 10 - 3 * i, r3[i] = 2 < i - 1.5;
  CHECK(tens_close(&to, r1, 0, 0, NULL));
  tens_free(&to);
  tens_init(&to, I32, 1, s5);
  CHECK_OK(op_run(ctx, "relax.subtract", 2, (rlx_relax_expr_t*[]){ten, &xi->hdr}, attrs0(), 1, &ti, 1, &to, NULL));
  CHECK(tens_close(&to, r2, 0, 0, NULL));
  CHECK_OK(op_run(ctx, "relax.less", 2, (rlx_relax_expr_t*[]){two, &x->hdr}, attrs0(), 1, &tx, 1, &tb, NULL));
  CHECK(tens_close(&tb, r3, 0, 0, NULL));
  /* a symbolic scalar: legalized as a scalar parameter of the PrimFunc at its argument's
   * position (TVM's); two scalars are an error */
  rlx_relax_var_t* p = rlx_relax_var(ctx, "p", rlx_sinfo_prim(ctx, F32, NULL));
  rlx_relax_call_t* c = NULL;
  CHECK_OK(op_call(ctx, "relax.multiply", 2, (rlx_relax_expr_t*[]){&x->hdr, &p->hdr}, attrs0(), &c));
  rlx_relax_expr_t* e = NULL;
  rlx_module_t* m = NULL;
  if (c) {
    CHECK_OK(op_legalize(ctx, c, &e, &m));
    rlx_tir_func_t* pf = m ? rlx_module_get_prim_func(m, "multiply") : NULL;
    CHECK(pf && rlx_tir_func_param_count(pf) == 3 && rlx_tir_func_param_is_buffer(pf, 0) &&
          !rlx_tir_func_param_is_buffer(pf, 1) && rlx_tir_func_param_is_buffer(pf, 2));
  }
  rlx_relax_var_t* pi = rlx_relax_var(ctx, "pi", rlx_sinfo_prim(ctx, I32, NULL));
  CHECK_ERR(op_call(ctx, "relax.multiply", 2, (rlx_relax_expr_t*[]){&x->hdr, &pi->hdr}, attrs0(), &c),
            "relax.multiply: operand dtypes differ: float32 and int32");
  CHECK_ERR(op_call(ctx, "relax.add", 2, (rlx_relax_expr_t*[]){two, ten}, attrs0(), &c),
            "relax.add: needs at least one tensor operand");
  tens_free(&tx);
  tens_free(&ti);
  tens_free(&to);
  tens_free(&tb);
  rlx_ctx_free(ctx);
}

/* x: (n, 4) + y: (4,) legalized once, run with n = 3 and n = 1. */
static void test_binary_symbolic_run(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* n = symv(ctx, "n");
  int64_t s4[1] = {4};
  rlx_relax_var_t* x = tvar_sym(ctx, "x", 2, (rlx_expr_t*[]){n, c64(ctx, 4)}, F32);
  rlx_relax_var_t* y = tvar(ctx, "y", 1, s4, F32);
  for (int64_t rows = 1; rows <= 3; rows += 2) {
    int64_t sx[2] = {rows, 4};
    tens_t tx, ty, to;
    tens_init(&tx, F32, 2, sx);
    tens_init(&ty, F32, 1, s4);
    tens_init(&to, F32, 2, sx);
    tens_rand(&tx, -1, 1);
    tens_rand(&ty, -1, 1);
    CHECK_OK(op_run(ctx, "relax.add", 2, (rlx_relax_expr_t*[]){&x->hdr, &y->hdr}, attrs0(), 2, (tens_t[]){tx, ty}, 1,
                    &to, NULL));
    double ref[12];
    for (int i = 0; i < rows * 4; i++) ref[i] = (float)(tens_get(&tx, i) + tens_get(&ty, i % 4));
    CHECK(tens_close(&to, ref, 0, 0, NULL));
    tens_free(&tx);
    tens_free(&ty);
    tens_free(&to);
  }
  rlx_ctx_free(ctx);
}

/* The legalized form: R.call_tir(gv, (x, y), out_sinfo=...) with a private PrimFunc whose
 * compute block is tagged broadcast. */
static void test_legalized_form(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t s23[2] = {2, 3};
  rlx_relax_var_t* a = tvar(ctx, "a", 2, s23, F32);
  rlx_relax_var_t* b = tvar(ctx, "b", 2, s23, F32);
  rlx_relax_call_t* c = NULL;
  CHECK_OK(op_call(ctx, "relax.add", 2, (rlx_relax_expr_t*[]){&a->hdr, &b->hdr}, attrs0(), &c));
  rlx_relax_expr_t* e = NULL;
  rlx_module_t* m = NULL;
  CHECK_OK(op_legalize(ctx, c, &e, &m));
  rlx_tir_func_t* f = call_tir_func(m, e);
  CHECK(f != NULL);
  if (f) {
    CHECK(f->is_private);
    CHECK(f->n_params == 3);
    CHECK_STREQ(f->buffer_map[0]->name, "a");
    CHECK_STREQ(f->buffer_map[1]->name, "b");
    CHECK_STREQ(f->buffer_map[2]->name, "T_add");
    CHECK(rlx_tir_find_block(f->body, "T_add") != NULL);
    rlx_relax_call_t* ct = (rlx_relax_call_t*)e;
    CHECK(ct->args[1]->kind == RLX_RELAX_TUPLE && ((rlx_relax_tuple_t*)ct->args[1])->n_fields == 2);
    CHECK_STREQ(rlx_sinfo_str(ctx, e->sinfo), "R.Tensor((2, 3), dtype=\"float32\")");
  }
  /* unknown shapes cannot be legalized */
  rlx_relax_var_t* u = rlx_relax_var(ctx, "u", rlx_sinfo_tensor(ctx, 2, NULL, F32));
  CHECK_OK(op_call(ctx, "relax.exp", 1, (rlx_relax_expr_t*[]){&u->hdr}, attrs0(), &c));
  CHECK_ERR(op_legalize(ctx, c, &e, &m), "relax.exp: legalization needs known shapes and dtypes");
  rlx_ctx_free(ctx);
}

/* ------------------------------------------------------------------ where, astype, clip */
static void test_where(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t sc[2] = {2, 1}, sx[2] = {2, 3}, sy[1] = {3};
  rlx_relax_var_t* c = tvar(ctx, "c", 2, sc, BOOL);
  rlx_relax_var_t* x = tvar(ctx, "x", 2, sx, F32);
  rlx_relax_var_t* y = tvar(ctx, "y", 1, sy, F32);
  CHECK_STREQ(op_sinfo(ctx, "relax.where", 3, (rlx_relax_expr_t*[]){&c->hdr, &x->hdr, &y->hdr}, attrs0()),
              "R.Tensor((2, 3), dtype=\"float32\")");
  tens_t tc, tx, ty, to;
  tens_init(&tc, BOOL, 2, sc);
  tens_init(&tx, F32, 2, sx);
  tens_init(&ty, F32, 1, sy);
  tens_init(&to, F32, 2, sx);
  tens_set(&tc, 0, 1);
  tens_set(&tc, 1, 0);
  tens_rand(&tx, -1, 1);
  tens_rand(&ty, -1, 1);
  CHECK_OK(op_run(ctx, "relax.where", 3, (rlx_relax_expr_t*[]){&c->hdr, &x->hdr, &y->hdr}, attrs0(), 3,
                  (tens_t[]){tc, tx, ty}, 1, &to, NULL));
  double ref[6];
  for (int i = 0; i < 6; i++) ref[i] = i < 3 ? tens_get(&tx, i) : tens_get(&ty, i % 3);
  CHECK(tens_close(&to, ref, 0, 0, NULL));
  rlx_relax_var_t* yi = tvar(ctx, "yi", 1, sy, I32);
  rlx_relax_call_t* call = NULL;
  CHECK_ERR(op_call(ctx, "relax.where", 3, (rlx_relax_expr_t*[]){&c->hdr, &x->hdr, &yi->hdr}, attrs0(), &call),
            "relax.where: x and y dtypes differ: float32 and int32");
  int64_t s4[1] = {4};
  rlx_relax_var_t* c4 = tvar(ctx, "c4", 1, s4, BOOL);
  CHECK_ERR(op_call(ctx, "relax.where", 3, (rlx_relax_expr_t*[]){&c4->hdr, &x->hdr, &y->hdr}, attrs0(), &call),
            "relax.where: cannot broadcast (4,) and (2, 3)");
  tens_free(&tc);
  tens_free(&tx);
  tens_free(&ty);
  tens_free(&to);
  rlx_ctx_free(ctx);
}

static void test_astype(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* n = symv(ctx, "n");
  rlx_relax_var_t* xs = tvar_sym(ctx, "x", 1, (rlx_expr_t*[]){n}, F32);
  rlx_attrs_t at = attr1(ctx, attrs0(), "dtype", rlx_attr_dtype(I32));
  CHECK_STREQ(op_sinfo(ctx, "relax.astype", 1, (rlx_relax_expr_t*[]){&xs->hdr}, at), "R.Tensor((n,), dtype=\"int32\")");
  rlx_relax_call_t* c = NULL;
  CHECK_ERR(op_call(ctx, "relax.astype", 1, (rlx_relax_expr_t*[]){&xs->hdr}, attrs0(), &c),
            "relax.astype: needs a dtype");
  int64_t s6[1] = {6};
  rlx_relax_var_t* x = tvar(ctx, "x", 1, s6, F32);
  const double vals[6] = {-2.7, -0.5, 0, 0.5, 1.9, 3.2};
  rlx_dtype_t targets[2] = {I32, BOOL};
  for (int k = 0; k < 2; k++) {
    tens_t tx, to;
    tens_init(&tx, F32, 1, s6);
    tens_init(&to, targets[k], 1, s6);
    for (int i = 0; i < 6; i++) tens_set(&tx, i, vals[i]);
    const char* fname = NULL;
    CHECK_OK(op_run(ctx, "relax.astype", 1, (rlx_relax_expr_t*[]){&x->hdr},
                    attr1(ctx, attrs0(), "dtype", rlx_attr_dtype(targets[k])), 1, &tx, 1, &to, &fname));
    CHECK_STREQ(fname, "cast");
    double ref[6];
    for (int i = 0; i < 6; i++) ref[i] = k == 0 ? trunc((float)vals[i]) : vals[i] != 0;
    CHECK_MSG(tens_close(&to, ref, 0, 0, NULL), "astype to %s", k == 0 ? "int32" : "bool");
    tens_free(&tx);
    tens_free(&to);
  }
  rlx_ctx_free(ctx);
}

static void test_clip(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t s8[1] = {8};
  rlx_relax_var_t* x = tvar(ctx, "x", 1, s8, F32);
  rlx_relax_expr_t* lo = rlx_relax_prim_value(ctx, rlx_ir_float(ctx, rlx_dt_float64(), -0.5));
  rlx_relax_expr_t* hi = rlx_relax_prim_value(ctx, rlx_ir_float(ctx, rlx_dt_float64(), 0.25));
  CHECK_STREQ(op_sinfo(ctx, "relax.clip", 3, (rlx_relax_expr_t*[]){&x->hdr, lo, hi}, attrs0()),
              "R.Tensor((8,), dtype=\"float32\")");
  rlx_attrs_t at = attr1(ctx, attr1(ctx, attrs0(), "min", rlx_attr_float(-0.5)), "max", rlx_attr_float(0.25));
  for (int form = 0; form < 2; form++) {
    tens_t tx, to;
    tens_init(&tx, F32, 1, s8);
    tens_init(&to, F32, 1, s8);
    tens_rand(&tx, -1, 1);
    if (form == 0)
      CHECK_OK(op_run(ctx, "relax.clip", 3, (rlx_relax_expr_t*[]){&x->hdr, lo, hi}, attrs0(), 1, &tx, 1, &to, NULL));
    else
      CHECK_OK(op_run(ctx, "relax.clip", 1, (rlx_relax_expr_t*[]){&x->hdr}, at, 1, &tx, 1, &to, NULL));
    double ref[8];
    for (int i = 0; i < 8; i++) ref[i] = fmin(fmax(tens_get(&tx, i), -0.5), 0.25);
    CHECK_MSG(tens_close(&to, ref, 0, 0, NULL), "clip form %d", form);
    tens_free(&tx);
    tens_free(&to);
  }
  rlx_relax_call_t* c = NULL;
  CHECK_ERR(op_call(ctx, "relax.clip", 1, (rlx_relax_expr_t*[]){&x->hdr}, attrs0(), &c), "relax.clip: needs min");
  rlx_ctx_free(ctx);
}

/* Every op of the family is registered, pure, with inference and legalization; no name is
 * registered twice across the families (the first would hide the second). */
static void test_registry(void) {
  const rlx_op_def_t* const* defs = NULL;
  int n_defs = 0;
  rlx_op_list(&defs, &n_defs);
  for (int i = 0; i < n_defs; i++)
    for (int j = i + 1; j < n_defs; j++)
      CHECK_MSG(strcmp(defs[i]->name, defs[j]->name) != 0, "op %s registered twice", defs[i]->name);
  int n_basic = 0;
  for (int i = 0; i < n_defs; i++) {
    const rlx_op_def_t* b = defs[i];
    if (b->family != RLX_OP_FAMILY_BASIC) continue;
    n_basic++;
    CHECK_MSG(rlx_op_lookup(b->name) == b && b->infer && b->legalize && b->is_pure, "%s", b->name);
  }
  CHECK(n_basic == 102); /* 94 + zeros_like, ones_like, full_like, bitwise_not, left_shift, right_shift, quantize, dequantize */
  const char* names[] = {
      "relax.nn.relu",       "relax.exp",  "relax.add",    "relax.logical_or",   "relax.where",   "relax.astype",
      "relax.clip",          "relax.sum",  "relax.argmax", "relax.permute_dims", "relax.reshape", "relax.split",
      "relax.strided_slice", "relax.take", "relax.nn.pad", "relax.broadcast_to", "relax.zeros",   "relax.full"};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    const rlx_op_def_t* d = rlx_op_lookup(names[i]);
    CHECK_MSG(d && d->infer && d->legalize && d->is_pure, "%s", names[i]);
  }
}

/* Every op of the basic family on odd inputs (no args, a shape, a tuple, unknown ranks,
 * junk attrs): inference and legalization return a result or an error naming the op, never
 * crash (run under ASan/UBSan). */
static void test_robustness(void) {
  const rlx_op_def_t* const* defs = NULL;
  int n_defs = 0;
  rlx_op_list(&defs, &n_defs);
  int tried = 0;
  for (int d = 0; d < n_defs; d++) {
    const rlx_op_def_t* def = defs[d];
    if (def->family != RLX_OP_FAMILY_BASIC) continue;
    rlx_ctx_t* ctx = rlx_ctx_create();
    int64_t s23[2] = {2, 3};
    rlx_relax_expr_t* t = &tvar(ctx, "t", 2, s23, F32)->hdr;
    rlx_relax_expr_t* u = &rlx_relax_var(ctx, "u", rlx_sinfo_tensor(ctx, -1, NULL, rlx_dt_void()))->hdr;
    rlx_relax_expr_t* sh = rlx_relax_shape_expr(ctx, 2, (rlx_expr_t*[]){c64(ctx, 3), c64(ctx, 2)});
    rlx_relax_expr_t* tup = rlx_relax_tuple(ctx, 2, (rlx_relax_expr_t*[]){t, u});
    rlx_relax_expr_t* pv = rlx_relax_prim_value(ctx, c64(ctx, 1));
    const int64_t big[3] = {INT64_MAX, -1, INT64_MIN};
    rlx_attrs_t junk[4] = {attrs0(), attr1(ctx, attrs0(), "axis", ints_attr(ctx, 3, big)),
                           attr1(ctx, attrs0(), "indices_or_sections", rlx_attr_int(INT64_MAX)),
                           attr1(ctx, attrs0(), "pad_width", ints_attr(ctx, 3, big))};
    rlx_relax_expr_t* arg_sets[6][3] = {{t, t, t}, {u, u, u}, {sh, t, t}, {tup, t, u}, {pv, pv, pv}, {t, sh, pv}};
    for (int a = 0; a < 6; a++)
      for (int n = 0; n <= 3; n++)
        for (int j = 0; j < 4; j++) {
          rlx_relax_call_t* c = NULL;
          rlx_status_t* st = op_call(ctx, def->name, n, arg_sets[a], junk[j], &c);
          tried++;
          if (st) {
            CHECK_MSG(strstr(rlx_status_message(st), def->name) != NULL, "%s: error without the op name: %s", def->name,
                      rlx_status_message(st));
            rlx_status_free(st);
            continue;
          }
          rlx_relax_expr_t* e = NULL;
          rlx_module_t* m = NULL;
          st = op_legalize(ctx, c, &e, &m);
          rlx_status_free(st);
        }
    rlx_ctx_free(ctx);
  }
  CHECK(tried > 1000);
}

int main(void) {
  test_robustness();
  test_registry();
  test_unary_numbers();
  test_unary_sinfo();
  test_unary_ints();
  test_binary_numbers();
  test_binary_sinfo();
  test_binary_symbolic_run();
  test_binary_scalar();
  test_legalized_form();
  test_where();
  test_astype();
  test_clip();
  TEST_MAIN_END();
}
