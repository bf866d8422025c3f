/* The basic ops as TVMScript writes them (TVM's printed kwargs): a small graph with a symbolic
 * batch using multiply (broadcast), gelu, mean (keepdims), subtract, permute_dims, exp, max,
 * expand_dims, concat, clip (integer R.prim_value bounds: the parser reads no float
 * R.prim_value yet), less, negative, where, take (clip mode), reshape (symbolic target) is
 * parsed, printed back and re-parsed, then legalized, fused and default-scheduled, checking
 * well-formedness after every pass and the numbers after each against plain C (TIR
 * interpreter; tolerance 1e-5 absolute + 1e-5 relative). */
#include <stdlib.h>

#include "pass_test_util.h"
#include "relax/op.h"
#include "script/script.h"
#include "test.h"
#include "transform/pass.h"

static const char* SRC =
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\", 4), dtype=\"float32\"), w: R.Tensor((4,), dtype=\"float32\"),\n"
    "             idx: R.Tensor((3,), dtype=\"int64\")) -> R.Tensor((\"n\", 3), dtype=\"float32\"):\n"
    "        n = T.int64()\n"
    "        with R.dataflow():\n"
    "            lv0: R.Tensor((n, 4), dtype=\"float32\") = R.multiply(x, w)\n"
    "            lv1: R.Tensor((n, 4), dtype=\"float32\") = R.nn.gelu(lv0)\n"
    "            lv2: R.Tensor((n, 1), dtype=\"float32\") = R.mean(lv1, axis=[1], keepdims=True)\n"
    "            lv3: R.Tensor((n, 4), dtype=\"float32\") = R.subtract(lv1, lv2)\n"
    "            lv4: R.Tensor((4, n), dtype=\"float32\") = R.permute_dims(lv3, axes=[1, 0])\n"
    "            lv5: R.Tensor((4, n), dtype=\"float32\") = R.exp(lv4)\n"
    "            lv6: R.Tensor((n,), dtype=\"float32\") = R.max(lv5, axis=[0], keepdims=False)\n"
    "            lv7: R.Tensor((n, 1), dtype=\"float32\") = R.expand_dims(lv6, axis=[1])\n"
    "            lv8: R.Tensor((n, 5), dtype=\"float32\") = R.concat((lv7, lv3), axis=1)\n"
    "            lv9: R.Tensor((n, 5), dtype=\"float32\") = R.clip(lv8, R.prim_value(0), R.prim_value(1))\n"
    "            lv10: R.Tensor((n, 5), dtype=\"bool\") = R.less(lv9, lv8)\n"
    "            lv11: R.Tensor((n, 5), dtype=\"float32\") = R.negative(lv8)\n"
    "            lv12: R.Tensor((n, 5), dtype=\"float32\") = R.where(lv10, lv11, lv9)\n"
    "            lv13: R.Tensor((n, 3), dtype=\"float32\") = R.take(lv12, idx, axis=1, mode=\"clip\")\n"
    "            lv14: R.Tensor((n * 3,), dtype=\"float32\") = R.reshape(lv13, R.shape([n * 3]))\n"
    "            gv: R.Tensor((n, 3), dtype=\"float32\") = R.reshape(lv14, R.shape([n, 3]))\n"
    "            R.output(gv)\n"
    "        return gv\n";

/* The same graph in plain C (double). */
static void ref_graph(int n, const float* x, const float* w, const int64_t* idx, double* out) {
  for (int r = 0; r < n; r++) {
    double g[4], mean = 0, d[4], mx = -INFINITY, row[5], res[5];
    for (int j = 0; j < 4; j++) {
      double v = (double)x[r * 4 + j] * w[j];
      g[j] = 0.5 * v * (1 + erf(v / sqrt(2.0)));
      mean += g[j] / 4;
    }
    for (int j = 0; j < 4; j++) {
      d[j] = g[j] - mean;
      mx = fmax(mx, exp(d[j]));
    }
    row[0] = mx;
    for (int j = 0; j < 4; j++) row[j + 1] = d[j];
    for (int j = 0; j < 5; j++) {
      double c = fmin(fmax(row[j], 0.0), 1.0);
      res[j] = c < row[j] ? -row[j] : c;
    }
    for (int k = 0; k < 3; k++) {
      int64_t i = idx[k] < 0 ? 0 : idx[k] > 4 ? 4 : idx[k];
      out[r * 3 + k] = res[i];
    }
  }
}

static void check_numbers(rlx_ctx_t* ctx, rlx_module_t* m, const char* stage, int n) {
  int64_t sx[2] = {n, 4}, sw[1] = {4}, si[1] = {3};
  ht_t* in[3] = {ht_new(ctx, rlx_dt_float32(), 2, sx), ht_new(ctx, rlx_dt_float32(), 1, sw),
                 ht_new(ctx, rlx_dt_int64(), 1, si)};
  ht_fill(in[0], (unsigned)n);
  ht_fill(in[1], 3);
  for (int i = 0; i < 4; i++) ht_f32(in[1])[i] *= 3; /* some values above the clip bound */
  int64_t* ip = in[2]->dl.data;
  ip[0] = 0;
  ip[1] = 7; /* clipped to 4 */
  ip[2] = 2;
  double want[3 * 8];
  ref_graph(n, ht_f32(in[0]), ht_f32(in[1]), ip, want);
  ht_t* y = relax_eval(ctx, m, "main", in);
  CHECK_MSG(y != NULL, "%s: evaluation failed", stage);
  if (!y) return;
  CHECK(y->dl.ndim == 2 && y->shape[0] == n && y->shape[1] == 3);
  double e = 0;
  bool ok = true;
  for (int i = 0; i < n * 3; i++) {
    double d = fabs(ht_f32(y)[i] - want[i]);
    e = fmax(e, d);
    ok = ok && d <= 1e-5 + 1e-5 * fabs(want[i]);
  }
  CHECK_MSG(ok, "%s, n=%d: max abs error %.3g vs C", stage, n, e);
}

int main(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  CHECK_OK(rlx_script_parse(ctx, SRC, "basic.py", &m));
  if (!m) {
    rlx_ctx_free(ctx);
    TEST_MAIN_END();
  }
  CHECK_OK(rlx_relax_well_formed(ctx, m));
  char* text = rlx_script_print_module(m);
  CHECK(text && strstr(text, "R.mean(lv1, axis=[1], keepdims=True)"));
  CHECK(text && strstr(text, "R.take(lv12, idx, axis=1, mode=\"clip\")"));
  rlx_module_t* m2 = NULL;
  if (text) CHECK_OK(rlx_script_parse(ctx, text, "printed.py", &m2));
  if (m2) CHECK(rlx_relax_func_equal(rlx_module_find(m, "main")->func, rlx_module_find(m2, "main")->func));
  free(text);

  rlx_module_t *lg = NULL, *fz = NULL, *sc = NULL;
  CHECK_OK(rlx_pass_legalize_ops(ctx, m, &lg));
  if (lg) {
    CHECK_OK(rlx_relax_well_formed(ctx, lg));
    const char* names[] = {"multiply",    "gelu", "mean", "subtract", "transpose", "exp",  "max",    "expand_dims",
                           "concatenate", "clip", "less", "negative", "where",     "take", "reshape"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
      CHECK_MSG(rlx_module_find(lg, names[i]) != NULL, "PrimFunc %s", names[i]);
    check_numbers(ctx, lg, "legalized", 2);
    CHECK_OK(pass_fuse(ctx, lg, &fz));
  }
  if (fz) {
    CHECK_OK(rlx_relax_well_formed(ctx, fz));
    check_numbers(ctx, fz, "legalized+fused", 3);
    CHECK_OK(rlx_pass_default_schedule(ctx, fz, &sc));
  }
  if (sc) {
    CHECK_OK(rlx_relax_well_formed(ctx, sc));
    check_numbers(ctx, sc, "legalized+fused+scheduled", 1);
  }
  rlx_ctx_free(ctx);
  TEST_MAIN_END();
}
