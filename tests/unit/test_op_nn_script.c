/* The nn ops as TVMScript writes them (TVM's printed kwargs): a small CNN (conv2d, relu,
 * max_pool2d, adaptive_avg_pool2d, reshape, linear, layer_norm, log_softmax) with a symbolic
 * batch is parsed, printed back, legalized, fused and default-scheduled, checking
 * well-formedness after every pass and, after each, the numbers against plain C loops
 * (TIR interpreter; tolerance 1e-4 absolute). */
#include <stdlib.h>

#include "pass_test_util.h"
#include "relax/op.h"
#include "script/script.h"
#include "test.h"
#include "transform/pass.h"

static const char* CNN =
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\", 3, 10, 10), dtype=\"float32\"), w: R.Tensor((8, 3, 3, 3), dtype=\"float32\"),\n"
    "             w2: R.Tensor((5, 8), dtype=\"float32\"), b2: R.Tensor((5,), dtype=\"float32\"),\n"
    "             g: R.Tensor((5,), dtype=\"float32\"), be: R.Tensor((5,), dtype=\"float32\")) -> R.Tensor((\"n\", 5), dtype=\"float32\"):\n"
    "        n = T.int64()\n"
    "        with R.dataflow():\n"
    "            lv0: R.Tensor((n, 8, 10, 10), dtype=\"float32\") = R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout=\"NCHW\", kernel_layout=\"OIHW\", out_layout=\"NCHW\", out_dtype=\"void\")\n"
    "            lv1: R.Tensor((n, 8, 10, 10), dtype=\"float32\") = R.nn.relu(lv0)\n"
    "            lv2: R.Tensor((n, 8, 5, 5), dtype=\"float32\") = R.nn.max_pool2d(lv1, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout=\"NCHW\", out_layout=\"NCHW\")\n"
    "            lv3: R.Tensor((n, 8, 1, 1), dtype=\"float32\") = R.nn.adaptive_avg_pool2d(lv2, output_size=[1, 1], layout=\"NCHW\", out_layout=\"NCHW\")\n"
    "            lv4: R.Tensor((n, 8), dtype=\"float32\") = R.reshape(lv3, R.shape([n, 8]))\n"
    "            lv5: R.Tensor((n, 5), dtype=\"float32\") = R.linear(lv4, w2, b2)\n"
    "            lv6: R.Tensor((n, 5), dtype=\"float32\") = R.nn.layer_norm(lv5, g, be, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)\n"
    "            gv: R.Tensor((n, 5), dtype=\"float32\") = R.nn.log_softmax(lv6, axis=-1)\n"
    "            R.output(gv)\n"
    "        return gv\n";

/* The inferred struct info of every binding equals the one written in the script (the
 * parser keeps the written one on the var). */
static void check_annotations(rlx_ctx_t* ctx, rlx_module_t* m) {
  rlx_relax_seq_t* s0 = (rlx_relax_seq_t*)((rlx_relax_func_t*)rlx_module_find(m, "main")->func)->body;
  for (int b = 0; b < s0->n_blocks; b++)
    for (int k = 0; k < s0->blocks[b]->n_bindings; k++) {
      rlx_relax_binding_t* bd = s0->blocks[b]->bindings[k];
      CHECK_MSG(rlx_sinfo_equal(ctx, bd->var->hdr.sinfo, bd->value->sinfo), "%s: written %s, inferred %s", bd->var->name,
                rlx_sinfo_str(ctx, bd->var->hdr.sinfo), rlx_sinfo_str(ctx, bd->value->sinfo));
    }
}

/* The same network in plain C (double accumulation). */
static void ref_cnn(int n, const float* x, const float* w, const float* w2, const float* b2, const float* g,
                    const float* be, double* out) {
  for (int b = 0; b < n; b++) {
    double feat[8];
    for (int f = 0; f < 8; f++) {
      double conv[10][10];
      for (int y = 0; y < 10; y++)
        for (int xx = 0; xx < 10; xx++) {
          double s = 0;
          for (int c = 0; c < 3; c++)
            for (int ry = 0; ry < 3; ry++)
              for (int rx = 0; rx < 3; rx++) {
                int iy = y - 1 + ry, ix = xx - 1 + rx;
                if (iy >= 0 && iy < 10 && ix >= 0 && ix < 10)
                  s += (double)x[((b * 3 + c) * 10 + iy) * 10 + ix] * w[((f * 3 + c) * 3 + ry) * 3 + rx];
              }
          conv[y][xx] = s > 0 ? s : 0;
        }
      double sum = 0;
      for (int y = 0; y < 5; y++)
        for (int xx = 0; xx < 5; xx++)
          sum += fmax(fmax(conv[2 * y][2 * xx], conv[2 * y][2 * xx + 1]), fmax(conv[2 * y + 1][2 * xx], conv[2 * y + 1][2 * xx + 1]));
      feat[f] = sum / 25;
    }
    double z[5], mean = 0, var = 0;
    for (int j = 0; j < 5; j++) {
      z[j] = b2[j];
      for (int k = 0; k < 8; k++) z[j] += feat[k] * w2[j * 8 + k];
      mean += z[j] / 5;
    }
    for (int j = 0; j < 5; j++) var += (z[j] - mean) * (z[j] - mean) / 5;
    double mx = -INFINITY, se = 0;
    for (int j = 0; j < 5; j++) {
      z[j] = (z[j] - mean) / sqrt(var + 1e-5) * g[j] + be[j];
      mx = fmax(mx, z[j]);
    }
    for (int j = 0; j < 5; j++) se += exp(z[j] - mx);
    for (int j = 0; j < 5; j++) out[b * 5 + j] = z[j] - mx - log(se);
  }
}

static void check_numbers(rlx_ctx_t* ctx, rlx_module_t* m, const char* stage, int n) {
  rlx_dtype_t f32 = rlx_dt_float32();
  int64_t shapes[6][4] = {{n, 3, 10, 10}, {8, 3, 3, 3}, {5, 8}, {5}, {5}, {5}};
  int nd[6] = {4, 4, 2, 1, 1, 1};
  ht_t* in[6];
  for (int i = 0; i < 6; i++) {
    in[i] = ht_new(ctx, f32, nd[i], shapes[i]);
    ht_fill(in[i], (unsigned)(7 * i + n));
  }
  for (int i = 0; i < 5; i++) ht_f32(in[4])[i] += 1.5f; /* gamma away from 0 */
  double want[5 * 4];
  ref_cnn(n, ht_f32(in[0]), ht_f32(in[1]), ht_f32(in[2]), ht_f32(in[3]), ht_f32(in[4]), ht_f32(in[5]), want);
  ht_t* y = relax_eval(ctx, m, "main", in);
  CHECK_MSG(y != NULL, "%s: evaluation failed", stage);
  if (!y) return;
  CHECK(y->dl.ndim == 2 && y->shape[0] == n && y->shape[1] == 5);
  double e = 0;
  for (int i = 0; i < n * 5; i++) e = fmax(e, fabs(ht_f32(y)[i] - want[i]));
  CHECK_MSG(e < 1e-4, "%s, n=%d: max abs error %.3g vs C (tolerance 1e-4)", stage, n, e);
}

/* Every op of the family as TVM prints it: parses, prints back identically (structurally),
 * infers the written struct info (well-formed), and legalizes to call_tirs only. */
static const char* ALL =
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\", 4, 8, 8), dtype=\"float32\"), w: R.Tensor((4, 2, 3, 3), dtype=\"float32\"),\n"
    "             c: R.Tensor((4,), dtype=\"float32\"), x1: R.Tensor((2, 4, 9), dtype=\"float32\"), w1: R.Tensor((6, 4, 3), dtype=\"float32\"),\n"
    "             x3: R.Tensor((1, 2, 4, 4, 4), dtype=\"float32\"), w3: R.Tensor((2, 2, 1, 1, 1), dtype=\"float32\"),\n"
    "             q: R.Tensor((2, \"s\", 3, 8), dtype=\"float32\"), m: R.Tensor((8, 8), dtype=\"float32\"),\n"
    "             g8: R.Tensor((8,), dtype=\"float32\"), m38: R.Tensor((3, 8), dtype=\"float32\")) -> R.Tensor((2, \"s\", 3, 8), dtype=\"float32\"):\n"
    "        n = T.int64()\n"
    "        s = T.int64()\n"
    "        with R.dataflow():\n"
    "            a0: R.Tensor((n, 4, 8, 8), dtype=\"float32\") = R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=2, data_layout=\"NCHW\", kernel_layout=\"OIHW\", out_layout=\"NCHW\", out_dtype=\"void\")\n"
    "            a1: R.Tensor((n, 4, 17, 17), dtype=\"float32\") = R.nn.conv2d_transpose(a0, w, strides=[2, 2], padding=[0, 0, 0, 0], output_padding=[0, 0], dilation=[1, 1], groups=2, data_layout=\"NCHW\", kernel_layout=\"IOHW\", out_layout=\"NCHW\", out_dtype=\"void\")\n"
    "            a2: R.Tensor((n, 4, 9, 9), dtype=\"float32\") = R.nn.max_pool2d(a1, pool_size=[3, 3], strides=[2, 2], dilation=[1, 1], padding=[1, 1, 1, 1], ceil_mode=True, count_include_pad=False, layout=\"NCHW\", out_layout=\"NCHW\")\n"
    "            a3: R.Tensor((n, 4, 5, 5), dtype=\"float32\") = R.nn.avg_pool2d(a2, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[1, 1, 1, 1], ceil_mode=False, count_include_pad=True, layout=\"NCHW\", out_layout=\"NCHW\")\n"
    "            a4: R.Tensor((n, 4, 2, 3), dtype=\"float32\") = R.nn.adaptive_avg_pool2d(a3, output_size=[2, 3], layout=\"NCHW\", out_layout=\"NCHW\")\n"
    "            b0: R.Tuple(R.Tensor((n, 4, 8, 8), dtype=\"float32\"), R.Tensor((4,), dtype=\"float32\"), R.Tensor((4,), dtype=\"float32\")) = R.nn.batch_norm(x, c, c, c, c, axis=1, epsilon=1.0000000000000001e-05, center=True, scale=True, momentum=0.10000000000000001, training=False)\n"
    "            b1: R.Tensor((n, 4, 8, 8), dtype=\"float32\") = R.nn.group_norm(x, c, c, num_groups=2, channel_axis=1, axes=[2, 3], epsilon=1.0000000000000001e-05, center=True, scale=True)\n"
    "            b2: R.Tensor((n, 4, 8, 8), dtype=\"float32\") = R.nn.instance_norm(b1, c, c, channel_axis=1, axes=[2, 3], epsilon=1.0000000000000001e-05, center=True, scale=True)\n"
    "            b3: R.Tuple(R.Tensor((n, 4, 8, 8), dtype=\"float32\"), R.Tensor((n, 4, 8, 8), dtype=\"float32\")) = R.nn.dropout(b2, rate=0.5)\n"
    "            c0: R.Tensor((2, 6, 7), dtype=\"float32\") = R.nn.conv1d(x1, w1, strides=[1], padding=[0, 0], dilation=[1], groups=1, data_layout=\"NCW\", kernel_layout=\"OIW\", out_layout=\"NCW\", out_dtype=\"void\")\n"
    "            c1: R.Tensor((2, 6, 4), dtype=\"float32\") = R.nn.max_pool1d(c0, pool_size=[2], strides=[2], dilation=[1], padding=[0, 0], ceil_mode=True, count_include_pad=False, layout=\"NCW\", out_layout=\"NCW\")\n"
    "            c2: R.Tensor((2, 6, 1), dtype=\"float32\") = R.nn.adaptive_avg_pool1d(c1, output_size=[1], layout=\"NCW\", out_layout=\"NCW\")\n"
    "            d0: R.Tensor((1, 2, 4, 4, 4), dtype=\"float32\") = R.nn.conv3d(x3, w3, strides=[1, 1, 1], padding=[0, 0, 0, 0, 0, 0], dilation=[1, 1, 1], groups=1, data_layout=\"NCDHW\", kernel_layout=\"OIDHW\", out_layout=\"NCDHW\", out_dtype=\"void\")\n"
    "            d1: R.Tensor((1, 2, 2, 2, 2), dtype=\"float32\") = R.nn.avg_pool3d(d0, pool_size=[2, 2, 2], strides=[2, 2, 2], dilation=[1, 1, 1], padding=[0, 0, 0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout=\"NCDHW\", out_layout=\"NCDHW\")\n"
    "            e0: R.Tensor((2, s, 3, 8), dtype=\"float32\") = R.nn.attention(q, q, q, scale=0.25, causal_mask=\"TopLeft\")\n"
    "            e1: R.Tensor((2, s, 3, 8), dtype=\"float32\") = R.nn.rms_norm(e0, g8, axes=[-1], epsilon=1.0000000000000001e-05)\n"
    "            e2: R.Tensor((2, s, 3, 8), dtype=\"float32\") = R.nn.layer_norm(e1, m38, m38, axes=[-2, -1], epsilon=1.0000000000000001e-05, center=True, scale=True)\n"
    "            e3: R.Tensor((2, s, 3, 8), dtype=\"float32\") = R.matmul(e2, m, out_dtype=\"void\")\n"
    "            e4: R.Tensor((2, s, 3, 8), dtype=\"float32\") = R.linear(e3, m)\n"
    "            gv: R.Tensor((2, s, 3, 8), dtype=\"float32\") = R.nn.log_softmax(e4, axis=-1)\n"
    "            R.output(gv)\n"
    "        return gv\n";

static void test_all_ops_script(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  CHECK_OK(rlx_script_parse(ctx, ALL, "all.py", &m));
  if (m) {
    CHECK_OK(rlx_relax_well_formed(ctx, m));
    check_annotations(ctx, m);
    char* text = rlx_script_print_module(m);
    rlx_module_t* m2 = NULL;
    if (text) CHECK_OK(rlx_script_parse(ctx, text, "printed.py", &m2));
    if (m2) CHECK(rlx_relax_func_equal(rlx_module_find(m, "main")->func, rlx_module_find(m2, "main")->func));
    free(text);
    rlx_module_t* lg = NULL;
    CHECK_OK(rlx_pass_legalize_ops(ctx, m, &lg));
    if (lg) {
      CHECK_OK(rlx_relax_well_formed(ctx, lg));
      /* only call_tir (and tuples of their results) remain */
      rlx_relax_seq_t* seq = (rlx_relax_seq_t*)((rlx_relax_func_t*)rlx_module_find(lg, "main")->func)->body;
      int high = 0;
      for (int b = 0; b < seq->n_blocks; b++)
        for (int k = 0; k < seq->blocks[b]->n_bindings; k++) {
          rlx_relax_expr_t* v = seq->blocks[b]->bindings[k]->value;
          if (v->kind == RLX_RELAX_CALL && !rlx_relax_is_op(((rlx_relax_call_t*)v)->op, RLX_OP_CALL_TIR)) high++;
        }
      CHECK_MSG(high == 0, "%d high-level calls left after legalize_ops", high);
    }
  }
  rlx_ctx_free(ctx);
}

int main(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  CHECK_OK(rlx_script_parse(ctx, CNN, "cnn.py", &m));
  if (!m) {
    test_all_ops_script();
    TEST_MAIN_END();
  }
  CHECK_OK(rlx_relax_well_formed(ctx, m));
  check_annotations(ctx, m);
  /* printed back with the attrs in the order given */
  char* text = rlx_script_print_module(m);
  CHECK(text && strstr(text, "R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, "
                             "data_layout=\"NCHW\", kernel_layout=\"OIHW\", out_layout=\"NCHW\", out_dtype=\"void\")"));
  CHECK(text && strstr(text, "R.linear(lv4, w2, b2)"));
  rlx_module_t* m2 = NULL;
  if (text) CHECK_OK(rlx_script_parse(ctx, text, "printed.py", &m2));
  if (m2)
    CHECK(rlx_relax_func_equal(rlx_module_find(m, "main")->func, rlx_module_find(m2, "main")->func));
  free(text);

  rlx_module_t *lg = NULL, *fz = NULL, *sc = NULL;
  CHECK_OK(rlx_pass_legalize_ops(ctx, m, &lg));
  if (lg) {
    CHECK_OK(rlx_relax_well_formed(ctx, lg));
    CHECK(rlx_module_find(lg, "conv2d") && rlx_module_find(lg, "max_pool2d") && rlx_module_find(lg, "adaptive_avg_pool2d") &&
          rlx_module_find(lg, "linear") && rlx_module_find(lg, "layer_norm") && rlx_module_find(lg, "log_softmax"));
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
  test_all_ops_script();
  TEST_MAIN_END();
}
