/* Relax nn ops, part 1: matmul, linear, softmax, log_softmax, layer_norm, batch_norm,
 * rms_norm, group_norm, instance_norm, dropout, attention.
 * For each op: BlockBuilder call → inferred struct info (constant, symbolic batch, errors) →
 * legalization through the registry → the PrimFunc run by the TIR interpreter (and, for the
 * contractions, compiled through the default schedule) on random inputs against plain C
 * loops in double precision. Tolerances are stated at each check. */
#include "test_op_nn_util.h"

static rlx_attrs_t NOATTRS;

/* ---------------------------------------------------------------- matmul */
/* numpy matmul reference on row-major arrays with batch broadcasting (ranks >= 2). */
static void ref_matmul(const host_t* a, const host_t* b, const host_t* c, double* out) {
  int an = a->dl.ndim, bn = b->dl.ndim, cn = c->dl.ndim;
  int64_t M = a->shape[an - 2], K = a->shape[an - 1], N = b->shape[bn - 1];
  int nb = cn - 2;
  int64_t batches = 1;
  for (int d = 0; d < nb; d++) batches *= c->shape[d];
  for (int64_t bi = 0; bi < batches; bi++) {
    int64_t rem = bi, oa = 0, ob = 0, sa = M * K, sb = K * N;
    for (int d = nb - 1; d >= 0; d--) {
      int64_t ix = rem % c->shape[d];
      rem /= c->shape[d];
      int da = d - (nb - (an - 2)), db = d - (nb - (bn - 2));
      if (da >= 0) {
        oa += (a->shape[da] == 1 ? 0 : ix) * sa;
        sa *= a->shape[da];
      }
      if (db >= 0) {
        ob += (b->shape[db] == 1 ? 0 : ix) * sb;
        sb *= b->shape[db];
      }
    }
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) {
        double s = 0;
        for (int64_t k = 0; k < K; k++) s += (double)a->data[oa + i * K + k] * b->data[ob + k * N + j];
        out[bi * M * N + i * N + j] = s;
      }
  }
}

static void test_matmul_broadcast(void) {
  int64_t sa[4] = {2, 1, 3, 4}, sb[3] = {5, 4, 2}, sc[4] = {2, 5, 3, 2};
  rlx_relax_var_t* p[2] = {tparam_c("x", 4, sa), tparam_c("y", 3, sb)};
  opcase_t oc;
  CHECK_OK(build_op("relax.matmul", 2, p, NOATTRS, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((2, 5, 3, 2), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (!oc.prim) return;
  CHECK_STREQ(rlx_sinfo_str(C_, oc.legal->sinfo), "R.Tensor((2, 5, 3, 2), dtype=\"float32\")");
  CHECK(rlx_tir_find_block(oc.prim->body, "matmul") != NULL);
  host_t a, b, c;
  host_init(&a, 4, sa);
  host_init(&b, 3, sb);
  host_init(&c, 4, sc);
  host_rand(&a, 1, -1, 1);
  host_rand(&b, 2, -1, 1);
  double want[60];
  ref_matmul(&a, &b, &c, want);
  CHECK_OK(run_interp(oc.prim, 3, (host_t*[]){&a, &b, &c}));
  CHECK_CLOSE("matmul (2,1,3,4)x(5,4,2)", c.data, want, c.n, 1e-5);
  host_free(&a);
  host_free(&b);
  host_free(&c);
}

/* 1-D operands: (4,) x (4, 3) → (3,), (2, 3, 4) x (4,) → (2, 3). */
static void test_matmul_vectors(void) {
  int64_t s4[1] = {4}, s43[2] = {4, 3}, s234[3] = {2, 3, 4};
  opcase_t oc;
  CHECK_OK(build_op("relax.matmul", 2, (rlx_relax_var_t*[]){tparam_c("v", 1, s4), tparam_c("w", 2, s43)}, NOATTRS, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((3,), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    host_t v, w, o;
    int64_t s3 = 3;
    host_init(&v, 1, s4);
    host_init(&w, 2, s43);
    host_init(&o, 1, &s3);
    host_rand(&v, 3, -1, 1);
    host_rand(&w, 4, -1, 1);
    double want[3];
    for (int j = 0; j < 3; j++) {
      want[j] = 0;
      for (int k = 0; k < 4; k++) want[j] += (double)v.data[k] * w.data[k * 3 + j];
    }
    CHECK_OK(run_interp(oc.prim, 3, (host_t*[]){&v, &w, &o}));
    CHECK_CLOSE("matmul (4,)x(4,3)", o.data, want, 3, 1e-5);
    host_free(&v);
    host_free(&w);
    host_free(&o);
  }
  CHECK_OK(build_op("relax.matmul", 2, (rlx_relax_var_t*[]){tparam_c("x", 3, s234), tparam_c("v", 1, s4)}, NOATTRS, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((2, 3), dtype=\"float32\")");
  /* vector · vector → a scalar tensor */
  CHECK_OK(build_op("relax.matmul", 2, (rlx_relax_var_t*[]){tparam_c("a", 1, s4), tparam_c("b", 1, s4)}, NOATTRS, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    host_t a, b, o;
    host_init(&a, 1, s4);
    host_init(&b, 1, s4);
    host_init(&o, 0, NULL);
    host_rand(&a, 9, -1, 1);
    host_rand(&b, 10, -1, 1);
    double want = 0;
    for (int k = 0; k < 4; k++) want += (double)a.data[k] * b.data[k];
    CHECK_OK(run_interp(oc.prim, 3, (host_t*[]){&a, &b, &o}));
    CHECK_CLOSE("matmul (4,)x(4,)", o.data, &want, 1, 1e-6);
    host_free(&a);
    host_free(&b);
    host_free(&o);
  }
}

/* Symbolic batch: (n, 3, 4) x (4, 5) → (n, 3, 5); the PrimFunc runs for n = 2. */
static void test_matmul_symbolic(void) {
  rlx_expr_t* n = SYM_("n");
  int64_t sb[2] = {4, 5};
  rlx_relax_var_t* x = tparam("x", 3, (rlx_expr_t*[]){n, N_(3), N_(4)}, F32_);
  opcase_t oc;
  CHECK_OK(build_op("relax.matmul", 2, (rlx_relax_var_t*[]){x, tparam_c("w", 2, sb)}, NOATTRS, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((n, 3, 5), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    rlx_relax_call_t* ct = find_call_tir(oc.legal);
    CHECK(ct && ct->n_args == 2); /* n is a whole dim of x: no tir_vars */
    int64_t sa[3] = {2, 3, 4}, sc[3] = {2, 3, 5};
    host_t a, b, c;
    host_init(&a, 3, sa);
    host_init(&b, 2, sb);
    host_init(&c, 3, sc);
    host_rand(&a, 5, -2, 2);
    host_rand(&b, 6, -2, 2);
    double want[30];
    ref_matmul(&a, &b, &c, want);
    CHECK_OK(run_interp(oc.prim, 3, (host_t*[]){&a, &b, &c}));
    CHECK_CLOSE("matmul (n=2,3,4)x(4,5)", c.data, want, c.n, 1e-5);
    host_free(&a);
    host_free(&b);
    host_free(&c);
  }
  /* two symbolic batch dims that cannot be proved equal: rank known, shape not */
  rlx_relax_var_t* y = tparam("y", 3, (rlx_expr_t*[]){SYM_("m"), N_(4), N_(2)}, F32_);
  rlx_relax_var_t* x2 = tparam("x", 3, (rlx_expr_t*[]){SYM_("n"), N_(3), N_(4)}, F32_);
  CHECK_OK(build_op("relax.matmul", 2, (rlx_relax_var_t*[]){x2, y}, NOATTRS, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor(dtype=\"float32\", ndim=3)");
}

static void test_matmul_errors(void) {
  int64_t s23[2] = {2, 3}, s45[2] = {4, 5}, s234[3] = {2, 3, 4}, s542[3] = {5, 4, 2}, s35[2] = {3, 5};
  opcase_t oc;
  CHECK_ERR(build_op("relax.matmul", 2, (rlx_relax_var_t*[]){tparam_c("x", 2, s23), tparam_c("y", 2, s45)}, NOATTRS, &oc),
            "relax.matmul: contraction dims differ: 3 vs 4");
  CHECK_ERR(build_op("relax.matmul", 2, (rlx_relax_var_t*[]){tparam_c("x", 3, s234), tparam_c("y", 3, s542)}, NOATTRS, &oc),
            "relax.matmul: batch dims cannot broadcast: 2 vs 5");
  rlx_relax_var_t* yi = rlx_relax_var(C_, "y", rlx_sinfo_tensor_const(C_, 2, s35, rlx_dt_int32()));
  CHECK_ERR(build_op("relax.matmul", 2, (rlx_relax_var_t*[]){tparam_c("x", 2, s23), yi}, NOATTRS, &oc),
            "relax.matmul: dtypes differ: float32 vs int32");
  rlx_relax_var_t* sh = rlx_relax_var(C_, "s", rlx_sinfo_shape(C_, 2, NULL));
  CHECK_ERR(build_op("relax.matmul", 2, (rlx_relax_var_t*[]){tparam_c("x", 2, s23), sh}, NOATTRS, &oc),
            "relax.matmul: argument 1 must be a Tensor");
  CHECK_ERR(build_op("relax.matmul", 1, (rlx_relax_var_t*[]){tparam_c("x", 2, s23)}, NOATTRS, &oc),
            "relax.matmul: expects 2 arguments, got 1");
}

/* out_dtype: int8 x int8 → int32 (operand dtypes may differ when it is given). */
static void test_matmul_out_dtype(void) {
  int64_t s35[2] = {3, 5}, s54[2] = {5, 4};
  rlx_dtype_t i8 = rlx_dtype(RLX_DT_INT, 8, 1), u8 = rlx_dtype(RLX_DT_UINT, 8, 1);
  rlx_attrs_t at = rlx_attrs_set(C_, NOATTRS, "out_dtype", rlx_attr_dtype(rlx_dt_int32()));
  rlx_relax_var_t* p[2] = {rlx_relax_var(C_, "x", rlx_sinfo_tensor_const(C_, 2, s35, u8)),
                           rlx_relax_var(C_, "y", rlx_sinfo_tensor_const(C_, 2, s54, i8))};
  opcase_t oc;
  CHECK_OK(build_op("relax.matmul", 2, p, at, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((3, 4), dtype=\"int32\")");
  CHECK_OK(legalize_op(&oc));
  if (!oc.prim) return;
  uint8_t a[15];
  int8_t b[20];
  int32_t c[12];
  for (int i = 0; i < 15; i++) a[i] = (uint8_t)(250 - 17 * i);
  for (int i = 0; i < 20; i++) b[i] = (int8_t)(-100 + 9 * i);
  DLTensor ta = {0}, tb = {0}, tc = {0};
  ta.data = a, ta.ndim = 2, ta.shape = s35, ta.dtype = (DLDataType){kDLUInt, 8, 1};
  tb.data = b, tb.ndim = 2, tb.shape = s54, tb.dtype = (DLDataType){kDLInt, 8, 1};
  int64_t s34[2] = {3, 4};
  tc.data = c, tc.ndim = 2, tc.shape = s34, tc.dtype = (DLDataType){kDLInt, 32, 1};
  ta.device.device_type = tb.device.device_type = tc.device.device_type = kDLCPU;
  CHECK_OK(rlx_tir_interpret(oc.prim, (DLTensor*[]){&ta, &tb, &tc}, 3));
  int bad = 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) {
      int32_t want = 0;
      for (int k = 0; k < 5; k++) want += (int32_t)a[i * 5 + k] * b[k * 4 + j];
      bad += want != c[i * 4 + j];
    }
  CHECK_MSG(bad == 0, "uint8 x int8 → int32 matmul: %d of 12 wrong (exact expected)", bad);
}

/* The 2-D matmul is recognized by the default schedule (register-tiled kernel; it needs
 * every constant extent >= 64) and the compiled kernel matches the reference. */
static void test_matmul_scheduled(void) {
  int64_t sa[2] = {70, 64}, sb[2] = {64, 66}, sc[2] = {70, 66};
  opcase_t oc;
  CHECK_OK(build_op("relax.matmul", 2, (rlx_relax_var_t*[]){tparam_c("a", 2, sa), tparam_c("b", 2, sb)}, NOATTRS, &oc));
  CHECK_OK(legalize_op(&oc));
  if (!oc.prim) return;
  rlx_tir_func_t* s = NULL;
  CHECK_OK(rlx_tir_default_schedule(C_, oc.prim, &s));
  CHECK_MSG(s && rlx_tir_find_block(s->body, "matmul_tile") != NULL, "matmul was not given the matmul kernel");
  host_t a, b, c;
  host_init(&a, 2, sa);
  host_init(&b, 2, sb);
  host_init(&c, 2, sc);
  host_rand(&a, 7, -1, 1);
  host_rand(&b, 8, -1, 1);
  double* want = malloc(sizeof(double) * (size_t)c.n);
  ref_matmul(&a, &b, &c, want);
  CHECK_OK(run_compiled(oc.prim, 3, (host_t*[]){&a, &b, &c}));
  CHECK_CLOSE("compiled matmul 70x64x66", c.data, want, c.n, 1e-4);
  free(want);
  host_free(&a);
  host_free(&b);
  host_free(&c);
}

/* ---------------------------------------------------------------- linear */
static void ref_linear(const host_t* x, const host_t* w, const host_t* b, int64_t rows, double* out) {
  int64_t K = w->shape[1], N = w->shape[0];
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < N; j++) {
      double s = b ? b->data[j] : 0;
      for (int64_t k = 0; k < K; k++) s += (double)x->data[i * K + k] * w->data[j * K + k];
      out[i * N + j] = s;
    }
}

static void test_linear(void) {
  rlx_expr_t* n = SYM_("n");
  int64_t sw[2] = {66, 64}, sbias[1] = {66};
  rlx_relax_var_t* p[3] = {tparam("x", 2, (rlx_expr_t*[]){n, N_(64)}, F32_), tparam_c("w", 2, sw), tparam_c("b", 1, sbias)};
  opcase_t oc;
  CHECK_OK(build_op("relax.linear", 3, p, NOATTRS, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((n, 66), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (!oc.prim) return;
  CHECK(rlx_tir_find_block(oc.prim->body, "T_matmul_NT") != NULL && rlx_tir_find_block(oc.prim->body, "T_add") != NULL);
  /* x · wᵀ with the bias add folded into the kernel's write-back */
  rlx_tir_func_t* s = NULL;
  CHECK_OK(rlx_tir_default_schedule(C_, oc.prim, &s));
  CHECK_MSG(s && rlx_tir_find_block(s->body, "T_matmul_NT_tile") != NULL, "linear was not given the matmul kernel");
  for (int compiled = 0; compiled < 2; compiled++) {
    int64_t rows = compiled ? 37 : 5;
    int64_t sx[2] = {rows, 64}, so[2] = {rows, 66};
    host_t x, w, b, o;
    host_init(&x, 2, sx);
    host_init(&w, 2, sw);
    host_init(&b, 1, sbias);
    host_init(&o, 2, so);
    host_rand(&x, 11, -1, 1);
    host_rand(&w, 12, -1, 1);
    host_rand(&b, 13, -1, 1);
    double* want = malloc(sizeof(double) * (size_t)o.n);
    ref_linear(&x, &w, &b, rows, want);
    host_t* args[4] = {&x, &w, &b, &o};
    CHECK_OK(compiled ? run_compiled(oc.prim, 4, args) : run_interp(oc.prim, 4, args));
    CHECK_CLOSE(compiled ? "linear compiled n=37" : "linear interpreted n=5", o.data, want, o.n, 1e-5);
    free(want);
    host_free(&x);
    host_free(&w);
    host_free(&b);
    host_free(&o);
  }
  /* no bias, 3-D data */
  int64_t sx3[3] = {2, 3, 8}, sw8[2] = {6, 8};
  CHECK_OK(build_op("relax.linear", 2, (rlx_relax_var_t*[]){tparam_c("x", 3, sx3), tparam_c("w", 2, sw8)}, NOATTRS, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((2, 3, 6), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    int64_t so[3] = {2, 3, 6};
    host_t x, w, o;
    host_init(&x, 3, sx3);
    host_init(&w, 2, sw8);
    host_init(&o, 3, so);
    host_rand(&x, 14, -1, 1);
    host_rand(&w, 15, -1, 1);
    double want[36];
    ref_linear(&x, &w, NULL, 6, want);
    CHECK_OK(run_interp(oc.prim, 3, (host_t*[]){&x, &w, &o}));
    CHECK_CLOSE("linear (2,3,8) no bias", o.data, want, o.n, 1e-5);
    host_free(&x);
    host_free(&w);
    host_free(&o);
  }
  int64_t sw7[2] = {6, 7}, sb5[1] = {5}, sb6[1] = {6};
  CHECK_ERR(build_op("relax.linear", 2, (rlx_relax_var_t*[]){tparam_c("x", 3, sx3), tparam_c("w", 2, sw7)}, NOATTRS, &oc),
            "relax.linear: contraction dims differ: 8 vs 7");
  CHECK_ERR(build_op("relax.linear", 3,
                     (rlx_relax_var_t*[]){tparam_c("x", 3, sx3), tparam_c("w", 2, sw8), tparam_c("b", 1, sb5)}, NOATTRS,
                     &oc),
            "relax.linear: bias (5,) does not broadcast");
  CHECK_OK(build_op("relax.linear", 3,
                    (rlx_relax_var_t*[]){tparam_c("x", 3, sx3), tparam_c("w", 2, sw8), tparam_c("b", 1, sb6)}, NOATTRS,
                    &oc));
}

/* ---------------------------------------------------------------- softmax */
/* softmax / log_softmax of a 3-D row-major array along axis, in double. */
static void ref_softmax(const host_t* x, int axis, bool log_, double* out) {
  int64_t outer = 1, len = x->shape[axis], inner = 1;
  for (int d = 0; d < axis; d++) outer *= x->shape[d];
  for (int d = axis + 1; d < x->dl.ndim; d++) inner *= x->shape[d];
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      double mx = -INFINITY, s = 0;
      for (int64_t k = 0; k < len; k++) mx = fmax(mx, x->data[(o * len + k) * inner + i]);
      for (int64_t k = 0; k < len; k++) s += exp(x->data[(o * len + k) * inner + i] - mx);
      for (int64_t k = 0; k < len; k++) {
        double v = x->data[(o * len + k) * inner + i] - mx;
        out[(o * len + k) * inner + i] = log_ ? v - log(s) : exp(v) / s;
      }
    }
}

static void test_softmax(void) {
  int64_t sx[3] = {3, 7, 4};
  for (int lg = 0; lg < 2; lg++) {
    const char* op = lg ? "relax.nn.log_softmax" : "relax.nn.softmax";
    for (int axis = -1; axis <= 1; axis += 2) {
      opcase_t oc;
      CHECK_OK(build_op(op, 1, (rlx_relax_var_t*[]){tparam_c("x", 3, sx)}, at_int(NOATTRS, "axis", axis), &oc));
      CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((3, 7, 4), dtype=\"float32\")");
      CHECK_OK(legalize_op(&oc));
      if (!oc.prim) continue;
      host_t x, o;
      host_init(&x, 3, sx);
      host_init(&o, 3, sx);
      /* values near 100: exp without the max shift overflows float32 */
      host_rand(&x, 20 + (unsigned)axis, 95, 105);
      double want[84];
      int ax = axis < 0 ? axis + 3 : axis;
      ref_softmax(&x, ax, lg, want);
      CHECK_OK(run_interp(oc.prim, 2, (host_t*[]){&x, &o}));
      CHECK_CLOSE(rlx_ctx_sprintf(C_, "%s axis=%d", op, axis), o.data, want, o.n, 1e-5);
      if (!lg) {
        /* each slice along the axis sums to 1 */
        double worst = 0;
        int64_t inner = ax == 1 ? 4 : 1, len = sx[ax], outer = 84 / (inner * len);
        for (int64_t q = 0; q < outer; q++)
          for (int64_t i = 0; i < inner; i++) {
            double s = 0;
            for (int64_t k = 0; k < len; k++) s += o.data[(q * len + k) * inner + i];
            worst = fmax(worst, fabs(s - 1));
          }
        CHECK_MSG(worst < 1e-5, "softmax sums differ from 1 by %.3g (tolerance 1e-5)", worst);
      }
      host_free(&x);
      host_free(&o);
    }
  }
  /* symbolic batch keeps the input's struct info */
  opcase_t oc;
  CHECK_OK(build_op("relax.nn.softmax", 1, (rlx_relax_var_t*[]){tparam("x", 2, (rlx_expr_t*[]){SYM_("n"), N_(10)}, F32_)},
                    NOATTRS, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((n, 10), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  int64_t s2[2] = {2, 3};
  rlx_relax_var_t* xi = rlx_relax_var(C_, "x", rlx_sinfo_tensor_const(C_, 2, s2, rlx_dt_int32()));
  CHECK_ERR(build_op("relax.nn.softmax", 1, &xi, NOATTRS, &oc), "relax.nn.softmax: input dtype must be float, got int32");
  CHECK_ERR(build_op("relax.nn.log_softmax", 1, (rlx_relax_var_t*[]){tparam_c("x", 2, s2)}, at_int(NOATTRS, "axis", 2), &oc),
            "relax.nn.log_softmax: axis 2 is out of range for shape (2, 3)");
}

/* ---------------------------------------------------------------- layer_norm */
static void ref_layer_norm(const host_t* x, int64_t rows, int64_t len, const float* g, const float* b, double eps,
                           double* out) {
  for (int64_t r = 0; r < rows; r++) {
    const float* v = x->data + r * len;
    double mean = 0, var = 0;
    for (int64_t k = 0; k < len; k++) mean += v[k];
    mean /= (double)len;
    for (int64_t k = 0; k < len; k++) var += (v[k] - mean) * (v[k] - mean);
    var /= (double)len;
    for (int64_t k = 0; k < len; k++) out[r * len + k] = (v[k] - mean) / sqrt(var + eps) * (g ? g[k] : 1) + (b ? b[k] : 0);
  }
}

static void test_layer_norm(void) {
  rlx_expr_t* n = SYM_("n");
  int64_t s6[1] = {6}, s46[2] = {4, 6};
  rlx_attrs_t at = at_f(at_ints(NOATTRS, "axes", 1, (int64_t[]){-1}), "epsilon", 1e-5);
  rlx_relax_var_t* p[3] = {tparam("x", 3, (rlx_expr_t*[]){n, N_(4), N_(6)}, F32_), tparam_c("gamma", 1, s6),
                           tparam_c("beta", 1, s6)};
  opcase_t oc;
  CHECK_OK(build_op("relax.nn.layer_norm", 3, p, at, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((n, 4, 6), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    int64_t sx[3] = {3, 4, 6};
    host_t x, g, b, o;
    host_init(&x, 3, sx);
    host_init(&g, 1, s6);
    host_init(&b, 1, s6);
    host_init(&o, 3, sx);
    host_rand(&x, 30, -3, 5);
    host_rand(&g, 31, 0.5f, 1.5f);
    host_rand(&b, 32, -1, 1);
    double want[72];
    ref_layer_norm(&x, 12, 6, g.data, b.data, 1e-5, want);
    CHECK_OK(run_interp(oc.prim, 4, (host_t*[]){&x, &g, &b, &o}));
    CHECK_CLOSE("layer_norm (n=3,4,6) axes=[-1]", o.data, want, o.n, 1e-5);
    host_free(&x);
    host_free(&g);
    host_free(&b);
    host_free(&o);
  }
  /* two axes, no center (beta unused) */
  int64_t sx[3] = {2, 4, 6};
  rlx_attrs_t at2 = at_b(at_f(at_ints(NOATTRS, "axes", 2, (int64_t[]){1, 2}), "epsilon", 1e-3), "center", false);
  CHECK_OK(build_op("relax.nn.layer_norm", 3,
                    (rlx_relax_var_t*[]){tparam_c("x", 3, sx), tparam_c("gamma", 2, s46), tparam_c("beta", 2, s46)}, at2,
                    &oc));
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    host_t x, g, b, o;
    host_init(&x, 3, sx);
    host_init(&g, 2, s46);
    host_init(&b, 2, s46);
    host_init(&o, 3, sx);
    host_rand(&x, 33, -2, 2);
    host_rand(&g, 34, 0.5f, 1.5f);
    host_rand(&b, 35, -1, 1);
    double want[48];
    ref_layer_norm(&x, 2, 24, g.data, NULL, 1e-3, want);
    CHECK_OK(run_interp(oc.prim, 4, (host_t*[]){&x, &g, &b, &o}));
    CHECK_CLOSE("layer_norm (2,4,6) axes=[1,2] center=False", o.data, want, o.n, 1e-5);
    host_free(&x);
    host_free(&g);
    host_free(&b);
    host_free(&o);
  }
  int64_t s5[1] = {5};
  CHECK_ERR(build_op("relax.nn.layer_norm", 3,
                     (rlx_relax_var_t*[]){tparam_c("x", 3, sx), tparam_c("gamma", 1, s5), tparam_c("beta", 1, s6)}, at,
                     &oc),
            "relax.nn.layer_norm: gamma (5,) does not match the normalized dims of (2, 4, 6)");
  CHECK_ERR(build_op("relax.nn.layer_norm", 3,
                     (rlx_relax_var_t*[]){tparam_c("x", 3, sx), tparam_c("gamma", 1, s6), tparam_c("beta", 1, s6)},
                     at_ints(NOATTRS, "axes", 1, (int64_t[]){3}), &oc),
            "relax.nn.layer_norm: axis 3 is out of range for rank 3");
}

/* ---------------------------------------------------------------- batch_norm */
static void test_batch_norm(void) {
  int64_t sx[4] = {2, 3, 4, 5}, s3[1] = {3};
  rlx_relax_var_t* p[5] = {tparam("x", 4, (rlx_expr_t*[]){SYM_("n"), N_(3), N_(4), N_(5)}, F32_), tparam_c("gamma", 1, s3),
                           tparam_c("beta", 1, s3), tparam_c("mean", 1, s3), tparam_c("var", 1, s3)};
  rlx_attrs_t at = at_f(at_f(at_int(NOATTRS, "axis", 1), "epsilon", 1e-5), "momentum", 0.1);
  opcase_t oc;
  CHECK_OK(build_op("relax.nn.batch_norm", 5, p, at, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tuple(R.Tensor((n, 3, 4, 5), dtype=\"float32\"), R.Tensor((3,), dtype=\"float32\"), "
                             "R.Tensor((3,), dtype=\"float32\"))");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    /* (call_tir(batch_norm, ...), moving_mean, moving_var) */
    CHECK(oc.legal->kind == RLX_RELAX_TUPLE && ((rlx_relax_tuple_t*)oc.legal)->n_fields == 3 &&
          ((rlx_relax_tuple_t*)oc.legal)->fields[1] == &p[3]->hdr && ((rlx_relax_tuple_t*)oc.legal)->fields[2] == &p[4]->hdr);
    CHECK(rlx_sinfo_equal(C_, oc.legal->sinfo, oc.lv->hdr.sinfo));
    host_t x, g, b, m, v, o;
    host_init(&x, 4, sx);
    host_init(&o, 4, sx);
    host_init(&g, 1, s3);
    host_init(&b, 1, s3);
    host_init(&m, 1, s3);
    host_init(&v, 1, s3);
    host_rand(&x, 40, -2, 2);
    host_rand(&g, 41, 0.5f, 1.5f);
    host_rand(&b, 42, -1, 1);
    host_rand(&m, 43, -0.5f, 0.5f);
    host_rand(&v, 44, 0.2f, 2);
    double want[120];
    for (int64_t i = 0; i < 120; i++) {
      int64_t c = (i / 20) % 3;
      want[i] = (x.data[i] - m.data[c]) / sqrt(v.data[c] + 1e-5) * g.data[c] + b.data[c];
    }
    CHECK_OK(run_interp(oc.prim, 6, (host_t*[]){&x, &g, &b, &m, &v, &o}));
    CHECK_CLOSE("batch_norm (2,3,4,5) axis=1", o.data, want, o.n, 1e-5);
    host_free(&x);
    host_free(&g);
    host_free(&b);
    host_free(&m);
    host_free(&v);
    host_free(&o);
  }
  /* training=True: batch statistics, moving statistics updated with momentum 0.25 */
  rlx_attrs_t att = at_b(at_f(at, "momentum", 0.25), "training", true);
  rlx_relax_var_t* pt[5] = {tparam_c("x", 4, sx), tparam_c("gamma", 1, s3), tparam_c("beta", 1, s3),
                            tparam_c("mean", 1, s3), tparam_c("var", 1, s3)};
  CHECK_OK(build_op("relax.nn.batch_norm", 5, pt, att, &oc));
  CHECK_OK(legalize_op(&oc));
  rlx_relax_tuple_t* tt = oc.legal && oc.legal->kind == RLX_RELAX_TUPLE ? (rlx_relax_tuple_t*)oc.legal : NULL;
  CHECK(tt && tt->n_fields == 3 && find_call_tir(tt->fields[1]) && find_call_tir(tt->fields[2]));
  if (tt && find_call_tir(tt->fields[1]) && find_call_tir(tt->fields[2])) {
    host_t x, g, b, m, v, o, nm, nv;
    host_init(&x, 4, sx);
    host_init(&o, 4, sx);
    host_init(&g, 1, s3);
    host_init(&b, 1, s3);
    host_init(&m, 1, s3);
    host_init(&v, 1, s3);
    host_init(&nm, 1, s3);
    host_init(&nv, 1, s3);
    host_rand(&x, 45, -2, 3);
    host_rand(&g, 46, 0.5f, 1.5f);
    host_rand(&b, 47, -1, 1);
    host_rand(&m, 48, -0.5f, 0.5f);
    host_rand(&v, 49, 0.2f, 2);
    double bm[3] = {0}, bv[3] = {0}, want[120], wm[3], wv[3];
    for (int64_t i = 0; i < 120; i++) bm[(i / 20) % 3] += x.data[i] / 40.0;
    for (int64_t i = 0; i < 120; i++) bv[(i / 20) % 3] += (x.data[i] - bm[(i / 20) % 3]) * (x.data[i] - bm[(i / 20) % 3]) / 40.0;
    for (int64_t i = 0; i < 120; i++) {
      int64_t c = (i / 20) % 3;
      want[i] = (x.data[i] - bm[c]) / sqrt(bv[c] + 1e-5) * g.data[c] + b.data[c];
    }
    for (int c = 0; c < 3; c++) {
      wm[c] = 0.75 * m.data[c] + 0.25 * bm[c];
      wv[c] = 0.75 * v.data[c] + 0.25 * bv[c];
    }
    host_t* outs[3] = {&o, &nm, &nv};
    const double* wants[3] = {want, wm, wv};
    const char* what[3] = {"batch_norm training: output", "batch_norm training: moving mean", "batch_norm training: moving var"};
    for (int f = 0; f < 3; f++) {
      rlx_relax_call_t* ct = find_call_tir(tt->fields[f]);
      rlx_module_entry_t* e = rlx_module_find(rlx_bb_get(oc.bb), ((rlx_relax_global_var_t*)ct->args[0])->name);
      CHECK_OK(run_interp(e->func, 6, (host_t*[]){&x, &g, &b, &m, &v, outs[f]}));
      CHECK_CLOSE(what[f], outs[f]->data, wants[f], outs[f]->n, 1e-5);
    }
    host_t* all[8] = {&x, &g, &b, &m, &v, &o, &nm, &nv};
    for (int i = 0; i < 8; i++) host_free(all[i]);
  }
  int64_t s4[1] = {4};
  CHECK_ERR(build_op("relax.nn.batch_norm", 5,
                     (rlx_relax_var_t*[]){tparam_c("x", 4, sx), tparam_c("gamma", 1, s3), tparam_c("beta", 1, s3),
                                          tparam_c("mean", 1, s4), tparam_c("var", 1, s3)},
                     at, &oc),
            "relax.nn.batch_norm: moving_mean (4,) does not match axis 1 of data (2, 3, 4, 5)");
}

/* ---------------------------------------------------------------- rms_norm, group_norm, dropout */
static void test_rms_norm(void) {
  int64_t s8[1] = {8}, s7[1] = {7};
  rlx_attrs_t at = at_f(at_ints(NOATTRS, "axes", 1, (int64_t[]){-1}), "epsilon", 1e-6);
  rlx_relax_var_t* p[2] = {tparam("x", 3, (rlx_expr_t*[]){SYM_("n"), N_(3), N_(8)}, F32_), tparam_c("w", 1, s8)};
  opcase_t oc;
  CHECK_OK(build_op("relax.nn.rms_norm", 2, p, at, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((n, 3, 8), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    int64_t sx[3] = {2, 3, 8};
    host_t x, w, o;
    host_init(&x, 3, sx);
    host_init(&w, 1, s8);
    host_init(&o, 3, sx);
    host_rand(&x, 50, -2, 3);
    host_rand(&w, 51, 0.5f, 1.5f);
    double want[48];
    for (int r = 0; r < 6; r++) {
      double ms = 0;
      for (int k = 0; k < 8; k++) ms += (double)x.data[r * 8 + k] * x.data[r * 8 + k] / 8;
      for (int k = 0; k < 8; k++) want[r * 8 + k] = x.data[r * 8 + k] / sqrt(ms + 1e-6) * w.data[k];
    }
    CHECK_OK(run_interp(oc.prim, 3, (host_t*[]){&x, &w, &o}));
    CHECK_CLOSE("rms_norm (n=2,3,8)", o.data, want, o.n, 1e-5);
    host_free(&x);
    host_free(&w);
    host_free(&o);
  }
  int64_t sx[3] = {2, 3, 8};
  CHECK_ERR(build_op("relax.nn.rms_norm", 2, (rlx_relax_var_t*[]){tparam_c("x", 3, sx), tparam_c("w", 1, s7)}, at, &oc),
            "relax.nn.rms_norm: weight (7,) does not match the normalized dims of (2, 3, 8)");
}

static void test_group_norm(void) {
  int64_t sx[4] = {2, 6, 3, 4}, s6[1] = {6};
  for (int dflt = 0; dflt < 2; dflt++) {
    /* axes [2, 3] given, or absent (TVM's default: the axes after the channel axis) */
    rlx_attrs_t at = at_int(at_int(NOATTRS, "num_groups", 3), "channel_axis", 1);
    if (!dflt) at = at_ints(at, "axes", 2, (int64_t[]){2, 3});
    at = at_f(at, "epsilon", 1e-5);
    opcase_t oc;
    CHECK_OK(build_op("relax.nn.group_norm", 3,
                      (rlx_relax_var_t*[]){tparam_c("x", 4, sx), tparam_c("gamma", 1, s6), tparam_c("beta", 1, s6)}, at,
                      &oc));
    CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((2, 6, 3, 4), dtype=\"float32\")");
    CHECK_OK(legalize_op(&oc));
    if (!oc.prim) continue;
    host_t x, g, b, o;
    host_init(&x, 4, sx);
    host_init(&g, 1, s6);
    host_init(&b, 1, s6);
    host_init(&o, 4, sx);
    host_rand(&x, 60, -1, 4);
    host_rand(&g, 61, 0.5f, 1.5f);
    host_rand(&b, 62, -1, 1);
    double want[144];
    for (int n = 0; n < 2; n++)
      for (int gr = 0; gr < 3; gr++) {
        const float* v = x.data + (n * 6 + gr * 2) * 12; /* 2 channels x 12 pixels, contiguous */
        double mean = 0, var = 0;
        for (int i = 0; i < 24; i++) mean += v[i] / 24.0;
        for (int i = 0; i < 24; i++) var += (v[i] - mean) * (v[i] - mean) / 24.0;
        for (int i = 0; i < 24; i++) {
          int c = gr * 2 + i / 12;
          want[(n * 6 + gr * 2) * 12 + i] = (v[i] - mean) / sqrt(var + 1e-5) * g.data[c] + b.data[c];
        }
      }
    CHECK_OK(run_interp(oc.prim, 4, (host_t*[]){&x, &g, &b, &o}));
    CHECK_CLOSE(dflt ? "group_norm 3 groups, default axes" : "group_norm 3 groups, axes [2, 3]", o.data, want, o.n, 1e-5);
    host_free(&x);
    host_free(&g);
    host_free(&b);
    host_free(&o);
  }
  /* instance_norm = one group per channel: (2, 3, 4, 5) over axes [2, 3] */
  int64_t si[4] = {2, 3, 4, 5}, s3[1] = {3};
  opcase_t oc;
  CHECK_OK(build_op("relax.nn.instance_norm", 3,
                    (rlx_relax_var_t*[]){tparam_c("x", 4, si), tparam_c("gamma", 1, s3), tparam_c("beta", 1, s3)},
                    at_f(at_ints(at_int(NOATTRS, "channel_axis", 1), "axes", 2, (int64_t[]){2, 3}), "epsilon", 1e-5), &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((2, 3, 4, 5), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    host_t x, g, b, o;
    host_init(&x, 4, si);
    host_init(&g, 1, s3);
    host_init(&b, 1, s3);
    host_init(&o, 4, si);
    host_rand(&x, 63, -2, 2);
    host_rand(&g, 64, 0.5f, 1.5f);
    host_rand(&b, 65, -1, 1);
    double want[120];
    for (int q = 0; q < 6; q++) {
      const float* v = x.data + q * 20;
      double mean = 0, var = 0;
      for (int i = 0; i < 20; i++) mean += v[i] / 20.0;
      for (int i = 0; i < 20; i++) var += (v[i] - mean) * (v[i] - mean) / 20.0;
      for (int i = 0; i < 20; i++) want[q * 20 + i] = (v[i] - mean) / sqrt(var + 1e-5) * g.data[q % 3] + b.data[q % 3];
    }
    CHECK_OK(run_interp(oc.prim, 4, (host_t*[]){&x, &g, &b, &o}));
    CHECK_CLOSE("instance_norm (2,3,4,5)", o.data, want, o.n, 1e-5);
    host_free(&x);
    host_free(&g);
    host_free(&b);
    host_free(&o);
  }
  CHECK_ERR(build_op("relax.nn.group_norm", 3,
                     (rlx_relax_var_t*[]){tparam_c("x", 4, sx), tparam_c("gamma", 1, s6), tparam_c("beta", 1, s6)},
                     at_int(NOATTRS, "num_groups", 4), &oc),
            "relax.nn.group_norm: 6 channels are not divisible into 4 groups");
}

static void test_dropout(void) {
  int64_t s23[2] = {2, 3};
  rlx_relax_var_t* x = tparam_c("x", 2, s23);
  opcase_t oc;
  CHECK_OK(build_op("relax.nn.dropout", 1, &x, at_f(NOATTRS, "rate", 0.25), &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tuple(R.Tensor((2, 3), dtype=\"float32\"), R.Tensor((2, 3), dtype=\"float32\"))");
  rlx_relax_func_t* f = rlx_module_find(rlx_bb_get(oc.bb), "main")->func;
  rlx_relax_call_t* call = (rlx_relax_call_t*)((rlx_relax_seq_t*)f->body)->blocks[0]->bindings[0]->value;
  rlx_relax_expr_t* r = NULL;
  CHECK_OK(rlx_op_lookup("relax.nn.dropout")->legalize(oc.bb, call, &r));
  if (r) CHECK_OK(rlx_bb_normalize(oc.bb, r));
  /* (x, call_tir(ones_like, (x,))) */
  rlx_relax_tuple_t* t = r && r->kind == RLX_RELAX_TUPLE ? (rlx_relax_tuple_t*)r : NULL;
  CHECK(t && t->n_fields == 2 && t->fields[0] == &x->hdr);
  rlx_relax_call_t* ct = t ? find_call_tir(t->fields[1]) : NULL;
  CHECK(ct != NULL);
  if (ct) {
    rlx_module_entry_t* e = rlx_module_find(rlx_bb_get(oc.bb), ((rlx_relax_global_var_t*)ct->args[0])->name);
    host_t a, m;
    host_init(&a, 2, s23);
    host_init(&m, 2, s23);
    CHECK_OK(run_interp(e->func, 2, (host_t*[]){&a, &m}));
    int ones = 0;
    for (int i = 0; i < 6; i++) ones += m.data[i] == 1.0f;
    CHECK(ones == 6);
    host_free(&a);
    host_free(&m);
  }
  CHECK_ERR(build_op("relax.nn.dropout", 1, &x, at_f(NOATTRS, "rate", 1.5), &oc), "relax.nn.dropout: rate must be in [0, 1), got 1.5");
}

/* ---------------------------------------------------------------- attention */
/* softmax(q kᵀ * scale + bias) v per (batch, head); causal 0 none, 1 TopLeft, 2 BottomRight. */
static void ref_attention(const host_t* q, const host_t* k, const host_t* v, const host_t* bias, double scale, int causal,
                          double* out) {
  int64_t B = q->shape[0], S = q->shape[1], H = q->shape[2], D = q->shape[3], T = k->shape[1], E = v->shape[3];
  for (int64_t b = 0; b < B; b++)
    for (int64_t h = 0; h < H; h++)
      for (int64_t i = 0; i < S; i++) {
        double sc[64], mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < T; j++) {
          double acc = 0;
          for (int64_t d = 0; d < D; d++) acc += (double)q->data[((b * S + i) * H + h) * D + d] * k->data[((b * T + j) * H + h) * D + d];
          acc *= scale;
          if (bias) acc += bias->data[(h * S + i) * T + j]; /* bias (H, S, T) */
          bool hidden = (causal == 1 && j > i) || (causal == 2 && j > i + T - S);
          sc[j] = hidden ? -INFINITY : acc;
          mx = fmax(mx, sc[j]);
        }
        for (int64_t j = 0; j < T; j++) sum += sc[j] == -INFINITY ? 0 : exp(sc[j] - mx);
        for (int64_t e = 0; e < E; e++) {
          double acc = 0;
          for (int64_t j = 0; j < T; j++)
            if (sc[j] != -INFINITY) acc += exp(sc[j] - mx) / sum * v->data[((b * T + j) * H + h) * E + e];
          out[((b * S + i) * H + h) * E + e] = acc;
        }
      }
}

static void test_attention(void) {
  /* (2, 5, 3, 4) x (2, 6, 3, 4) x (2, 6, 3, 5) with a (3, 5, 6) bias, BottomRight mask, scale 0.7 */
  int64_t sq[4] = {2, 5, 3, 4}, sk[4] = {2, 6, 3, 4}, sv[4] = {2, 6, 3, 5}, sb[3] = {3, 5, 6}, so[4] = {2, 5, 3, 5};
  rlx_attrs_t at = at_s(at_f(NOATTRS, "scale", 0.7), "causal_mask", "BottomRight");
  opcase_t oc;
  CHECK_OK(build_op("relax.nn.attention", 4,
                    (rlx_relax_var_t*[]){tparam_c("q", 4, sq), tparam_c("k", 4, sk), tparam_c("v", 4, sv), tparam_c("bias", 3, sb)},
                    at, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((2, 5, 3, 5), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    host_t q, k, v, b, o;
    host_init(&q, 4, sq);
    host_init(&k, 4, sk);
    host_init(&v, 4, sv);
    host_init(&b, 3, sb);
    host_init(&o, 4, so);
    host_rand(&q, 70, -1, 1);
    host_rand(&k, 71, -1, 1);
    host_rand(&v, 72, -1, 1);
    host_rand(&b, 73, -1, 1);
    double want[150];
    ref_attention(&q, &k, &v, &b, 0.7, 2, want);
    host_t* args[5] = {&q, &k, &v, &b, &o};
    CHECK_OK(run_interp(oc.prim, 5, args));
    CHECK_CLOSE("attention bias + BottomRight", o.data, want, o.n, 1e-5);
    CHECK_OK(run_compiled(oc.prim, 5, args));
    CHECK_CLOSE("attention compiled", o.data, want, o.n, 1e-5);
    host_free(&q);
    host_free(&k);
    host_free(&v);
    host_free(&b);
    host_free(&o);
  }
  /* symbolic sequence, TopLeft, default scale 1/sqrt(4) */
  rlx_expr_t* s = SYM_("s");
  rlx_relax_var_t* p[3];
  for (int i = 0; i < 3; i++) p[i] = tparam(i == 0 ? "q" : i == 1 ? "k" : "v", 4, (rlx_expr_t*[]){N_(1), s, N_(2), N_(4)}, F32_);
  CHECK_OK(build_op("relax.nn.attention", 3, p, at_s(NOATTRS, "causal_mask", "TopLeft"), &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((1, s, 2, 4), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    int64_t sh[4] = {1, 7, 2, 4};
    host_t q, k, v, o;
    host_init(&q, 4, sh);
    host_init(&k, 4, sh);
    host_init(&v, 4, sh);
    host_init(&o, 4, sh);
    host_rand(&q, 74, -2, 2);
    host_rand(&k, 75, -2, 2);
    host_rand(&v, 76, -1, 1);
    double want[56];
    ref_attention(&q, &k, &v, NULL, 0.5, 1, want);
    CHECK_OK(run_interp(oc.prim, 4, (host_t*[]){&q, &k, &v, &o}));
    CHECK_CLOSE("attention s=7 TopLeft", o.data, want, o.n, 1e-5);
    host_free(&q);
    host_free(&k);
    host_free(&v);
    host_free(&o);
  }
  CHECK_ERR(build_op("relax.nn.attention_bias", 3,
                     (rlx_relax_var_t*[]){tparam_c("q", 4, sq), tparam_c("k", 4, sk), tparam_c("v", 4, sv)}, NOATTRS, &oc),
            "relax.nn.attention_bias: expects 4 arguments, got 3");
  CHECK_OK(build_op("relax.nn.attention_bias", 4,
                    (rlx_relax_var_t*[]){tparam_c("q", 4, sq), tparam_c("k", 4, sk), tparam_c("v", 4, sv), tparam_c("bias", 3, sb)},
                    NOATTRS, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((2, 5, 3, 5), dtype=\"float32\")");
  int64_t sk2[4] = {2, 6, 4, 4};
  CHECK_ERR(build_op("relax.nn.attention", 3, (rlx_relax_var_t*[]){tparam_c("q", 4, sq), tparam_c("k", 4, sk2), tparam_c("v", 4, sv)},
                     NOATTRS, &oc),
            "relax.nn.attention: heads differs: 3 vs 4");
  CHECK_ERR(build_op("relax.nn.attention", 3, (rlx_relax_var_t*[]){tparam_c("q", 4, sq), tparam_c("k", 4, sk), tparam_c("v", 4, sv)},
                     at_s(NOATTRS, "causal_mask", "Diagonal"), &oc),
            "relax.nn.attention: causal_mask \"Diagonal\" is not TopLeft or BottomRight");
}

int main(void) {
  C_ = rlx_ctx_create();
  test_matmul_broadcast();
  test_matmul_vectors();
  test_matmul_symbolic();
  test_matmul_errors();
  test_matmul_out_dtype();
  test_matmul_scheduled();
  test_linear();
  test_softmax();
  test_layer_norm();
  test_batch_norm();
  test_rms_norm();
  test_group_norm();
  test_dropout();
  test_attention();
  rlx_ctx_free(C_);
  TEST_MAIN_END();
}
