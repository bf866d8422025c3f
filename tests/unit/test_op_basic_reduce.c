/* Basic Relax ops, reductions: sum/mean/max/min/prod/variance/std over one axis, several axes (negative
 * included) and all axes, with and without keepdims; argmax/argmin over one axis and over all
 * (flattened); struct info with symbolic and unknown shapes; errors. Numbers from the TIR
 * interpreter against C loops (float32: |err| <= 1e-5 + 1e-5 |ref|; indices exact). */
#include "test_op_basic_util.h"

static const rlx_dtype_t F32 = {RLX_DT_FLOAT, 32, 1};
static const rlx_dtype_t I64 = {RLX_DT_INT, 64, 1};

static void ref_reduce(int op, const double* x, const bool* mask, double* out, int* out_n);

/* variance (op 7) / std (op 8): from the means (op 1) and the mean squares. */
static void ref_variance(int op, const double* x, const bool* mask, double* out, int* out_n) {
  double mean[24], sq[24], dev[24];
  ref_reduce(1, x, mask, mean, out_n);
  const int s[3] = {2, 3, 4};
  for (int i = 0; i < 24; i++) {
    int idx[3] = {i / 12, (i / 4) % 3, i % 4}, oi = 0;
    for (int d = 0; d < 3; d++)
      if (!mask[d]) oi = oi * s[d] + idx[d];
    dev[i] = (x[i] - mean[oi]) * (x[i] - mean[oi]);
  }
  ref_reduce(1, dev, mask, sq, out_n);
  for (int o = 0; o < *out_n; o++) out[o] = op == 8 ? sqrt(sq[o]) : sq[o];
}

/* reference reduction of a (2, 3, 4) array over mask; op 0 sum 1 mean 2 max 3 min 4 prod
 * 5 argmax 6 argmin 7 variance 8 std; out in row-major order of the kept dims. */
static void ref_reduce(int op, const double* x, const bool* mask, double* out, int* out_n) {
  if (op >= 7) {
    ref_variance(op, x, mask, out, out_n);
    return;
  }
  const int s[3] = {2, 3, 4};
  int on = 1;
  for (int d = 0; d < 3; d++)
    if (!mask[d]) on *= s[d];
  *out_n = on;
  for (int o = 0; o < on; o++) {
    double acc = op == 4 ? 1 : op == 2 || op == 5 ? -INFINITY : op == 3 || op == 6 ? INFINITY : 0;
    int64_t best = 0, cnt = 0;
    for (int i = 0; i < 24; i++) {
      int idx[3] = {i / 12, (i / 4) % 3, i % 4};
      int oi = 0, ri = 0;
      for (int d = 0; d < 3; d++) {
        if (mask[d])
          ri = ri * s[d] + idx[d];
        else
          oi = oi * s[d] + idx[d];
      }
      if (oi != o) continue;
      double v = x[i];
      switch (op) {
        case 0:
        case 1:
          acc += v;
          break;
        case 2:
          acc = fmax(acc, v);
          break;
        case 3:
          acc = fmin(acc, v);
          break;
        case 4:
          acc *= v;
          break;
        case 5:
          if (v > acc) acc = v, best = ri;
          break;
        default:
          if (v < acc) acc = v, best = ri;
          break;
      }
      cnt++;
    }
    out[o] = op == 1 ? acc / (double)cnt : op >= 5 ? (double)best : acc;
  }
}

static const char* const reduce_ops[9] = {"relax.sum",    "relax.mean",   "relax.max",      "relax.min", "relax.prod",
                                          "relax.argmax", "relax.argmin", "relax.variance", "relax.std"};

/* Runs op over axes (n_axes -1 = attr absent) with keepdims on a random (2, 3, 4) tensor. */
static void run_case(int op, int n_axes, const int64_t* axes, bool keepdims) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t sx[3] = {2, 3, 4};
  rlx_relax_var_t* x = tvar(ctx, "x", 3, sx, F32);
  rlx_attrs_t at = attrs0();
  bool is_arg = op == 5 || op == 6;
  if (n_axes >= 0) at = attr1(ctx, at, "axis", is_arg ? rlx_attr_int(axes[0]) : ints_attr(ctx, n_axes, axes));
  at = attr1(ctx, at, "keepdims", rlx_attr_bool(keepdims));
  bool mask[3] = {n_axes < 0, n_axes < 0, n_axes < 0};
  for (int i = 0; i < n_axes; i++) mask[axes[i] < 0 ? axes[i] + 3 : axes[i]] = true;
  int64_t os[3];
  int on = 0;
  for (int d = 0; d < 3; d++)
    if (!mask[d])
      os[on++] = sx[d];
    else if (keepdims)
      os[on++] = 1;
  tens_t tx, to;
  tens_init(&tx, F32, 3, sx);
  tens_init(&to, is_arg ? I64 : F32, on, os);
  tens_rand(&tx, op == 4 ? 0.5 : -2, op == 4 ? 1.5 : 2);
  if (op == 5) tens_set(&tx, 5, tens_get(&tx, 4) + 10), tens_set(&tx, 6, tens_get(&tx, 4) + 10); /* tie: first wins */
  const char* fname = NULL;
  CHECK_OK(op_run(ctx, reduce_ops[op], 1, (rlx_relax_expr_t*[]){&x->hdr}, at, 1, &tx, 1, &to, &fname));
  double xv[24], ref[24], err = 0;
  for (int i = 0; i < 24; i++) xv[i] = tens_get(&tx, i);
  int rn = 0;
  ref_reduce(op, xv, mask, ref, &rn);
  CHECK(rn == to.n);
  CHECK_MSG(tens_close(&to, ref, is_arg ? 0 : 1e-5, is_arg ? 0 : 1e-5, &err), "%s axes=%d keepdims=%d: max err %g",
            reduce_ops[op], n_axes, keepdims, err);
  CHECK_MSG(fname && strcmp(fname, reduce_ops[op] + 6) == 0, "%s: PrimFunc %s", reduce_ops[op], fname ? fname : "-");
  tens_free(&tx);
  tens_free(&to);
  rlx_ctx_free(ctx);
}

static void test_reduce_numbers(void) {
  const int64_t a1[1] = {1}, a2[2] = {-1, 0}, am[1] = {-1};
  for (int op = 0; op < 5; op++) {
    run_case(op, 1, a1, false);
    run_case(op, 2, a2, true);
    run_case(op, -1, NULL, false);
  }
  for (int op = 7; op < 9; op++) {
    run_case(op, 1, a1, false);
    run_case(op, 2, a2, true);
    run_case(op, -1, NULL, false);
  }
  for (int op = 5; op < 7; op++) {
    run_case(op, 1, a1, false);
    run_case(op, 1, am, true);
    run_case(op, -1, NULL, false);
  }
}

static void test_reduce_sinfo(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* n = symv(ctx, "n");
  rlx_relax_var_t* x = tvar_sym(ctx, "x", 3, (rlx_expr_t*[]){n, c64(ctx, 3), c64(ctx, 4)}, F32);
  rlx_relax_expr_t* args[1] = {&x->hdr};
  const int64_t a1[1] = {1}, a0[1] = {0};
  rlx_attrs_t ax1 = attr1(ctx, attrs0(), "axis", ints_attr(ctx, 1, a1));
  CHECK_STREQ(op_sinfo(ctx, "relax.sum", 1, args, ax1), "R.Tensor((n, 4), dtype=\"float32\")");
  CHECK_STREQ(op_sinfo(ctx, "relax.mean", 1, args, attr1(ctx, ax1, "keepdims", rlx_attr_bool(true))),
              "R.Tensor((n, 1, 4), dtype=\"float32\")");
  CHECK_STREQ(op_sinfo(ctx, "relax.max", 1, args, attrs0()), "R.Tensor((), dtype=\"float32\")");
  CHECK_STREQ(op_sinfo(ctx, "relax.argmax", 1, args, attr1(ctx, attrs0(), "axis", rlx_attr_int(0))),
              "R.Tensor((3, 4), dtype=\"int64\")");
  CHECK_STREQ(op_sinfo(ctx, "relax.argmin", 1, args, attr1(ctx, attrs0(), "keepdims", rlx_attr_bool(true))),
              "R.Tensor((1, 1, 1), dtype=\"int64\")");
  rlx_relax_var_t* u = rlx_relax_var(ctx, "u", rlx_sinfo_tensor(ctx, -1, NULL, F32));
  CHECK_STREQ(op_sinfo(ctx, "relax.sum", 1, (rlx_relax_expr_t*[]){&u->hdr}, attrs0()),
              "R.Tensor((), dtype=\"float32\")");
  CHECK_STREQ(op_sinfo(ctx, "relax.sum", 1, (rlx_relax_expr_t*[]){&u->hdr}, ax1),
              rlx_sinfo_str(ctx, rlx_sinfo_tensor(ctx, -1, NULL, F32)));
  rlx_relax_var_t* u3 = rlx_relax_var(ctx, "u3", rlx_sinfo_tensor(ctx, 3, NULL, F32));
  CHECK_STREQ(op_sinfo(ctx, "relax.prod", 1, (rlx_relax_expr_t*[]){&u3->hdr}, ax1),
              "R.Tensor(dtype=\"float32\", ndim=2)");
  /* errors */
  rlx_relax_call_t* c = NULL;
  const int64_t a3[1] = {3}, rep[2] = {0, -3};
  CHECK_ERR(op_call(ctx, "relax.sum", 1, args, attr1(ctx, attrs0(), "axis", ints_attr(ctx, 1, a3)), &c),
            "relax.sum: axis: axis 3 is out of range for a tensor of rank 3");
  CHECK_ERR(op_call(ctx, "relax.min", 1, args, attr1(ctx, attrs0(), "axis", ints_attr(ctx, 2, rep)), &c),
            "relax.min: axis: axis -3 is repeated");
  CHECK_ERR(op_call(ctx, "relax.argmax", 1, args, attr1(ctx, attrs0(), "axis", ints_attr(ctx, 2, rep)), &c),
            "relax.argmax: attribute axis must be an int, got a list of ints");
  int64_t s2[1] = {2};
  rlx_relax_var_t* xi = tvar(ctx, "xi", 1, s2, I64);
  CHECK_ERR(op_call(ctx, "relax.variance", 1, (rlx_relax_expr_t*[]){&xi->hdr}, attrs0(), &c),
            "relax.variance: needs a float tensor");
  CHECK_STREQ(op_sinfo(ctx, "relax.std", 1, args, ax1), "R.Tensor((n, 4), dtype=\"float32\")");
  CHECK_ERR(op_call(ctx, "relax.sum", 1, args, attr1(ctx, attrs0(), "axis", rlx_attr_str("1")), &c),
            "relax.sum: attribute axis must be a list of ints, got a string");
  CHECK_ERR(op_call(ctx, "relax.sum", 1, args, attr1(ctx, attrs0(), "axes", ints_attr(ctx, 1, a0)), &c),
            "relax.sum: unknown attribute 'axes'");
  rlx_ctx_free(ctx);
}

/* sum over a symbolic dim, run for n = 2 and n = 5. */
static void test_reduce_symbolic_run(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* n = symv(ctx, "n");
  rlx_relax_var_t* x = tvar_sym(ctx, "x", 2, (rlx_expr_t*[]){c64(ctx, 3), n}, F32);
  const int64_t a1[1] = {1};
  rlx_attrs_t at = attr1(ctx, attrs0(), "axis", ints_attr(ctx, 1, a1));
  for (int64_t cols = 2; cols <= 5; cols += 3) {
    int64_t sx[2] = {3, cols}, so[1] = {3};
    tens_t tx, to;
    tens_init(&tx, F32, 2, sx);
    tens_init(&to, F32, 1, so);
    tens_rand(&tx, -1, 1);
    CHECK_OK(op_run(ctx, "relax.mean", 1, (rlx_relax_expr_t*[]){&x->hdr}, at, 1, &tx, 1, &to, NULL));
    double ref[3] = {0, 0, 0};
    for (int r = 0; r < 3; r++) {
      for (int k = 0; k < cols; k++) ref[r] += tens_get(&tx, r * cols + k);
      ref[r] /= (double)cols;
    }
    CHECK(tens_close(&to, ref, 1e-6, 1e-5, NULL));
    tens_free(&tx);
    tens_free(&to);
  }
  rlx_ctx_free(ctx);
}

int main(void) {
  test_reduce_numbers();
  test_reduce_sinfo();
  test_reduce_symbolic_run();
  TEST_MAIN_END();
}
