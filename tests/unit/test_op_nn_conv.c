/* Relax nn ops, part 2: conv2d (stride, padding, dilation, groups, depthwise), max_pool2d,
 * avg_pool2d (padding, ceil_mode, count_include_pad), adaptive_avg_pool2d, their 1-D and 3-D
 * variants, and conv1d/conv2d_transpose (stride, padding, output_padding, dilation, groups). Struct info
 * (symbolic batch, errors), legalization, and the PrimFunc run by the TIR interpreter (two
 * also compiled through the default schedule) against plain C loops. Tolerances: 1e-5
 * absolute (float32 sums of at most 36 products of values in [-1, 1]). */
#include "test_op_nn_util.h"

static rlx_attrs_t NOATTRS;

/* ---------------------------------------------------------------- references */
typedef struct {
  int64_t s[2], pad[4], d[2], groups;
} conv_p;

static void ref_conv(const host_t* x, const host_t* w, const host_t* o, const conv_p* p, double* out) {
  int64_t C = x->shape[1], H = x->shape[2], W = x->shape[3];
  int64_t O = w->shape[0], Cg = w->shape[1], KH = w->shape[2], KW = w->shape[3];
  int64_t N = o->shape[0], OH = o->shape[2], OW = o->shape[3];
  for (int64_t n = 0; n < N; n++)
    for (int64_t f = 0; f < O; f++)
      for (int64_t y = 0; y < OH; y++)
        for (int64_t xx = 0; xx < OW; xx++) {
          int64_t g = f / (O / p->groups);
          double s = 0;
          for (int64_t rc = 0; rc < Cg; rc++)
            for (int64_t ry = 0; ry < KH; ry++)
              for (int64_t rx = 0; rx < KW; rx++) {
                int64_t iy = y * p->s[0] - p->pad[0] + ry * p->d[0], ix = xx * p->s[1] - p->pad[1] + rx * p->d[1];
                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                s += (double)x->data[((n * C + g * Cg + rc) * H + iy) * W + ix] * w->data[((f * Cg + rc) * KH + ry) * KW + rx];
              }
          out[((n * O + f) * OH + y) * OW + xx] = s;
        }
}

typedef struct {
  bool is_max, include_pad;
  int64_t k[2], s[2], d[2], pad[4];
} pool_p;

/* TVM's pool2d: taps outside the input are skipped (max) or count as 0 (avg); the avg divisor
 * counts taps inside [-pad_top, H + pad_bottom - 1] (include_pad) or inside the input. */
static void ref_pool(const host_t* x, const host_t* o, const pool_p* p, double* out) {
  int64_t NC = x->shape[0] * x->shape[1], H = x->shape[2], W = x->shape[3], OH = o->shape[2], OW = o->shape[3];
  for (int64_t q = 0; q < NC; q++)
    for (int64_t y = 0; y < OH; y++)
      for (int64_t xx = 0; xx < OW; xx++) {
        double acc = p->is_max ? -INFINITY : 0;
        int64_t cnt = 0;
        for (int64_t ry = 0; ry < p->k[0]; ry++)
          for (int64_t rx = 0; rx < p->k[1]; rx++) {
            int64_t iy = y * p->s[0] - p->pad[0] + ry * p->d[0], ix = xx * p->s[1] - p->pad[1] + rx * p->d[1];
            bool in = iy >= 0 && iy < H && ix >= 0 && ix < W;
            bool in_pad = iy >= -p->pad[0] && iy <= H + p->pad[2] - 1 && ix >= -p->pad[1] && ix <= W + p->pad[3] - 1;
            if (p->include_pad ? in_pad : in) cnt++;
            if (!in) continue;
            double v = x->data[(q * H + iy) * W + ix];
            acc = p->is_max ? fmax(acc, v) : acc + v;
          }
        out[(q * OH + y) * OW + xx] = p->is_max ? acc : acc / (double)(cnt ? cnt : 1);
      }
}

static void ref_adaptive(const host_t* x, int64_t oh, int64_t ow, double* out) {
  int64_t NC = x->shape[0] * x->shape[1], H = x->shape[2], W = x->shape[3];
  for (int64_t q = 0; q < NC; q++)
    for (int64_t i = 0; i < oh; i++)
      for (int64_t j = 0; j < ow; j++) {
        int64_t h0 = i * H / oh, h1 = ((i + 1) * H + oh - 1) / oh, w0 = j * W / ow, w1 = ((j + 1) * W + ow - 1) / ow;
        double s = 0;
        for (int64_t y = h0; y < h1; y++)
          for (int64_t xx = w0; xx < w1; xx++) s += x->data[(q * H + y) * W + xx];
        out[(q * oh + i) * ow + j] = s / (double)((h1 - h0) * (w1 - w0));
      }
}

/* Runs oc's PrimFunc on (x[, w]) → out of shape os and checks it against want. */
static void run_check(opcase_t* oc, const char* what, host_t* x, host_t* w, int ondim, const int64_t* os,
                      void (*ref)(const host_t*, const host_t*, const host_t*, const void*, double*), const void* p,
                      bool compiled) {
  host_t o;
  host_init(&o, ondim, os);
  double* want = malloc(sizeof(double) * (size_t)o.n);
  ref(x, w, &o, p, want);
  host_t* args[3] = {x, w ? w : &o, &o};
  int n = w ? 3 : 2;
  CHECK_OK(compiled ? run_compiled(oc->prim, n, args) : run_interp(oc->prim, n, args));
  CHECK_CLOSE(what, o.data, want, o.n, 1e-5);
  free(want);
  host_free(&o);
}

static void conv_ref_cb(const host_t* x, const host_t* w, const host_t* o, const void* p, double* out) {
  ref_conv(x, w, o, p, out);
}
static void pool_ref_cb(const host_t* x, const host_t* w, const host_t* o, const void* p, double* out) {
  (void)w;
  ref_pool(x, o, p, out);
}

/* ---------------------------------------------------------------- conv2d */
static rlx_attrs_t conv_attrs(const conv_p* p, int n_pad) {
  rlx_attrs_t a = at_ints(NOATTRS, "strides", 2, p->s);
  int64_t pad2[2] = {p->pad[0], p->pad[1]};
  a = at_ints(a, "padding", n_pad, n_pad == 4 ? p->pad : pad2);
  a = at_ints(a, "dilation", 2, p->d);
  a = at_int(a, "groups", p->groups);
  a = at_s(a, "data_layout", "NCHW");
  a = at_s(a, "kernel_layout", "OIHW");
  a = at_s(a, "out_layout", "NCHW");
  return rlx_attrs_set(C_, a, "out_dtype", rlx_attr_dtype(rlx_dt_void()));
}

static void test_conv2d_strided_symbolic(void) {
  /* (n, 4, 9, 9) * (6, 4, 3, 3), stride 2, padding 1 (one value) → (n, 6, 5, 5) */
  conv_p p = {{2, 2}, {1, 1, 1, 1}, {1, 1}, 1};
  rlx_attrs_t at = at_ints(at_ints(NOATTRS, "strides", 2, p.s), "padding", 1, p.pad);
  int64_t sw[4] = {6, 4, 3, 3};
  rlx_relax_var_t* prm[2] = {tparam("x", 4, (rlx_expr_t*[]){SYM_("n"), N_(4), N_(9), N_(9)}, F32_), tparam_c("w", 4, sw)};
  opcase_t oc;
  CHECK_OK(build_op("relax.nn.conv2d", 2, prm, at, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((n, 6, 5, 5), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (!oc.prim) return;
  CHECK(rlx_tir_find_block(oc.prim->body, "pad_temp") != NULL && rlx_tir_find_block(oc.prim->body, "conv2d_nchw") != NULL);
  int64_t sx[4] = {2, 4, 9, 9}, so[4] = {2, 6, 5, 5};
  host_t x, w;
  host_init(&x, 4, sx);
  host_init(&w, 4, sw);
  host_rand(&x, 1, -1, 1);
  host_rand(&w, 2, -1, 1);
  run_check(&oc, "conv2d n=2 stride 2 pad 1", &x, &w, 4, so, conv_ref_cb, &p, false);
  host_free(&x);
  host_free(&w);
}

static void test_conv2d_grouped_dilated(void) {
  /* (1, 4, 8, 7) * (6, 2, 3, 3), padding [1, 0, 2, 1], dilation 2, groups 2 → (1, 6, 7, 4) */
  conv_p p = {{1, 1}, {1, 0, 2, 1}, {2, 2}, 2};
  int64_t sx[4] = {1, 4, 8, 7}, sw[4] = {6, 2, 3, 3}, so[4] = {1, 6, 7, 4};
  opcase_t oc;
  CHECK_OK(build_op("relax.nn.conv2d", 2, (rlx_relax_var_t*[]){tparam_c("x", 4, sx), tparam_c("w", 4, sw)},
                    conv_attrs(&p, 4), &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((1, 6, 7, 4), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (!oc.prim) return;
  CHECK(rlx_tir_find_block(oc.prim->body, "group_conv2d_nchw") != NULL);
  host_t x, w;
  host_init(&x, 4, sx);
  host_init(&w, 4, sw);
  host_rand(&x, 3, -1, 1);
  host_rand(&w, 4, -1, 1);
  run_check(&oc, "conv2d groups=2 dilation 2 pad [1,0,2,1]", &x, &w, 4, so, conv_ref_cb, &p, false);
  host_free(&x);
  host_free(&w);
}

static void test_conv2d_depthwise(void) {
  /* (2, 4, 6, 6) * (8, 1, 3, 3), groups 4 (channel multiplier 2), padding [1, 1] → (2, 8, 6, 6) */
  conv_p p = {{1, 1}, {1, 1, 1, 1}, {1, 1}, 4};
  int64_t sx[4] = {2, 4, 6, 6}, sw[4] = {8, 1, 3, 3}, so[4] = {2, 8, 6, 6};
  opcase_t oc;
  CHECK_OK(build_op("relax.nn.conv2d", 2, (rlx_relax_var_t*[]){tparam_c("x", 4, sx), tparam_c("w", 4, sw)},
                    conv_attrs(&p, 2), &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((2, 8, 6, 6), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (!oc.prim) return;
  CHECK(rlx_tir_find_block(oc.prim->body, "depthwise_conv2d_nchw") != NULL);
  host_t x, w;
  host_init(&x, 4, sx);
  host_init(&w, 4, sw);
  host_rand(&x, 5, -1, 1);
  host_rand(&w, 6, -1, 1);
  run_check(&oc, "depthwise conv2d interpreted", &x, &w, 4, so, conv_ref_cb, &p, false);
  run_check(&oc, "depthwise conv2d compiled", &x, &w, 4, so, conv_ref_cb, &p, true);
  host_free(&x);
  host_free(&w);
}

static void test_conv2d_errors(void) {
  int64_t sx[4] = {1, 4, 8, 8}, sw3[4] = {6, 3, 3, 3}, sw[4] = {6, 4, 3, 3}, sx2[4] = {1, 4, 2, 2}, sw5[4] = {5, 2, 3, 3};
  opcase_t oc;
  CHECK_ERR(build_op("relax.nn.conv2d", 2, (rlx_relax_var_t*[]){tparam_c("x", 4, sx), tparam_c("w", 4, sw3)}, NOATTRS, &oc),
            "relax.nn.conv2d: data channels 4 != weight in-channels 3 * groups 1 (shapes (1, 4, 8, 8) and (6, 3, 3, 3))");
  CHECK_ERR(build_op("relax.nn.conv2d", 2, (rlx_relax_var_t*[]){tparam_c("x", 4, sx), tparam_c("w", 4, sw)},
                     at_s(NOATTRS, "data_layout", "NHWC"), &oc),
            "relax.nn.conv2d: data_layout \"NHWC\" is not supported (only \"NCHW\")");
  CHECK_ERR(build_op("relax.nn.conv2d", 2, (rlx_relax_var_t*[]){tparam_c("x", 4, sx2), tparam_c("w", 4, sw)}, NOATTRS, &oc),
            "relax.nn.conv2d: the window does not fit the padded input (1, 4, 2, 2)");
  CHECK_ERR(build_op("relax.nn.conv2d", 2, (rlx_relax_var_t*[]){tparam_c("x", 4, sx), tparam_c("w", 4, sw5)},
                     at_int(NOATTRS, "groups", 2), &oc),
            "relax.nn.conv2d: out channels 5 are not divisible by groups 2");
  CHECK_ERR(build_op("relax.nn.conv2d", 2, (rlx_relax_var_t*[]){tparam_c("x", 4, sx), tparam_c("w", 4, sw)},
                     at_ints(NOATTRS, "padding", 3, (int64_t[]){1, 1, 1}), &oc),
            "relax.nn.conv2d: padding takes 1, 2 or 4 values, got 3");
}

/* ---------------------------------------------------------------- pools */
static rlx_attrs_t pool_attrs(const pool_p* p, bool ceil_mode) {
  rlx_attrs_t a = at_ints(NOATTRS, "pool_size", 2, p->k);
  a = at_ints(a, "strides", 2, p->s);
  a = at_ints(a, "dilation", 2, p->d);
  a = at_ints(a, "padding", 4, p->pad);
  a = at_b(a, "ceil_mode", ceil_mode);
  if (!p->is_max) a = at_b(a, "count_include_pad", p->include_pad);
  return at_s(a, "layout", "NCHW");
}

static void test_max_pool(void) {
  /* (n, 2, 7, 7), 3x3, stride 2, padding 1, ceil_mode → (n, 2, 4, 4) */
  pool_p p = {true, false, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}};
  opcase_t oc;
  CHECK_OK(build_op("relax.nn.max_pool2d", 1,
                    (rlx_relax_var_t*[]){tparam("x", 4, (rlx_expr_t*[]){SYM_("n"), N_(2), N_(7), N_(7)}, F32_)},
                    pool_attrs(&p, true), &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((n, 2, 4, 4), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    int64_t sx[4] = {1, 2, 7, 7}, so[4] = {1, 2, 4, 4};
    host_t x;
    host_init(&x, 4, sx);
    host_rand(&x, 7, -3, -1); /* all negative: a padded 0 would win */
    run_check(&oc, "max_pool2d ceil_mode pad 1 interpreted", &x, NULL, 4, so, pool_ref_cb, &p, false);
    run_check(&oc, "max_pool2d ceil_mode pad 1 compiled", &x, NULL, 4, so, pool_ref_cb, &p, true);
    host_free(&x);
  }
  /* dilation 2, no padding: (1, 2, 9, 8), 2x2 stride 1 → (1, 2, 7, 6) */
  pool_p q = {true, false, {2, 2}, {1, 1}, {2, 2}, {0, 0, 0, 0}};
  int64_t sx[4] = {1, 2, 9, 8}, so[4] = {1, 2, 7, 6};
  CHECK_OK(build_op("relax.nn.max_pool2d", 1, (rlx_relax_var_t*[]){tparam_c("x", 4, sx)}, pool_attrs(&q, false), &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((1, 2, 7, 6), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    host_t x;
    host_init(&x, 4, sx);
    host_rand(&x, 8, -1, 1);
    run_check(&oc, "max_pool2d dilation 2", &x, NULL, 4, so, pool_ref_cb, &q, false);
    host_free(&x);
  }
}

static void test_avg_pool(void) {
  /* (1, 2, 7, 6), 3x3, stride 2, padding 1, ceil_mode → (1, 2, 4, 4), with and without pads counted */
  int64_t sx[4] = {1, 2, 7, 6}, so[4] = {1, 2, 4, 4};
  for (int inc = 0; inc < 2; inc++) {
    pool_p p = {false, inc == 1, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}};
    opcase_t oc;
    CHECK_OK(build_op("relax.nn.avg_pool2d", 1, (rlx_relax_var_t*[]){tparam_c("x", 4, sx)}, pool_attrs(&p, true), &oc));
    CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((1, 2, 4, 4), dtype=\"float32\")");
    CHECK_OK(legalize_op(&oc));
    if (!oc.prim) continue;
    host_t x;
    host_init(&x, 4, sx);
    host_rand(&x, 9, -1, 1);
    run_check(&oc, inc ? "avg_pool2d ceil_mode count_include_pad" : "avg_pool2d ceil_mode", &x, NULL, 4, so, pool_ref_cb,
              &p, false);
    host_free(&x);
  }
  /* no padding, floor mode: every window full → plain mean */
  pool_p p = {false, false, {2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}};
  int64_t so2[4] = {1, 2, 3, 3};
  opcase_t oc;
  CHECK_OK(build_op("relax.nn.avg_pool2d", 1, (rlx_relax_var_t*[]){tparam_c("x", 4, sx)}, pool_attrs(&p, false), &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((1, 2, 3, 3), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    host_t x;
    host_init(&x, 4, sx);
    host_rand(&x, 10, -1, 1);
    run_check(&oc, "avg_pool2d 2x2 stride 2", &x, NULL, 4, so2, pool_ref_cb, &p, false);
    host_free(&x);
  }
}

static void adaptive_ref_cb(const host_t* x, const host_t* w, const host_t* o, const void* p, double* out) {
  (void)w;
  (void)p;
  ref_adaptive(x, o->shape[2], o->shape[3], out);
}

static void test_adaptive_avg_pool(void) {
  opcase_t oc;
  /* symbolic batch and spatial dims to 1x1 */
  rlx_relax_var_t* x = tparam("x", 4, (rlx_expr_t*[]){SYM_("n"), N_(3), SYM_("h"), SYM_("w")}, F32_);
  CHECK_OK(build_op("relax.nn.adaptive_avg_pool2d", 1, &x, at_ints(NOATTRS, "output_size", 1, (int64_t[]){1}), &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((n, 3, 1, 1), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    int64_t sx[4] = {2, 3, 7, 5}, so[4] = {2, 3, 1, 1};
    host_t h;
    host_init(&h, 4, sx);
    host_rand(&h, 11, -1, 1);
    run_check(&oc, "adaptive_avg_pool2d (2,3,7,5) → 1x1", &h, NULL, 4, so, adaptive_ref_cb, NULL, false);
    host_free(&h);
  }
  /* non-divisible (7, 5) → (3, 2) and divisible (4, 6) → (2, 3) */
  int64_t shapes[2][4] = {{1, 2, 7, 5}, {1, 1, 4, 6}}, outs[2][2] = {{3, 2}, {2, 3}};
  for (int c = 0; c < 2; c++) {
    CHECK_OK(build_op("relax.nn.adaptive_avg_pool2d", 1, (rlx_relax_var_t*[]){tparam_c("x", 4, shapes[c])},
                      at_ints(NOATTRS, "output_size", 2, outs[c]), &oc));
    int64_t so[4] = {shapes[c][0], shapes[c][1], outs[c][0], outs[c][1]};
    CHECK_STREQ(lv_sinfo(&oc), rlx_ctx_sprintf(C_, "R.Tensor((%lld, %lld, %lld, %lld), dtype=\"float32\")", (long long)so[0],
                                                (long long)so[1], (long long)so[2], (long long)so[3]));
    CHECK_OK(legalize_op(&oc));
    if (!oc.prim) continue;
    host_t h;
    host_init(&h, 4, shapes[c]);
    host_rand(&h, 12 + (unsigned)c, -1, 1);
    run_check(&oc, c ? "adaptive_avg_pool2d (4,6) → (2,3)" : "adaptive_avg_pool2d (7,5) → (3,2)", &h, NULL, 4, so,
              adaptive_ref_cb, NULL, false);
    host_free(&h);
  }
  /* symbolic spatial dims need output 1 on that dim to legalize; inference still works */
  CHECK_OK(build_op("relax.nn.adaptive_avg_pool2d", 1, &x, at_ints(NOATTRS, "output_size", 2, (int64_t[]){2, 2}), &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((n, 3, 2, 2), dtype=\"float32\")");
  CHECK_ERR(legalize_op(&oc), "symbolic input size (n, 3, h, w) needs output size 1");
}

static void test_pool_errors(void) {
  int64_t s3[3] = {2, 7, 7}, s4[4] = {1, 1, 2, 2};
  opcase_t oc;
  CHECK_ERR(build_op("relax.nn.max_pool2d", 1, (rlx_relax_var_t*[]){tparam_c("x", 3, s3)}, NOATTRS, &oc),
            "relax.nn.max_pool2d: data must be 4-D (NCHW), got (2, 7, 7)");
  rlx_relax_var_t* xi = rlx_relax_var(C_, "x", rlx_sinfo_tensor_const(C_, 4, s4, rlx_dt_int32()));
  CHECK_ERR(build_op("relax.nn.avg_pool2d", 1, &xi, NOATTRS, &oc), "relax.nn.avg_pool2d: input dtype must be float, got int32");
  CHECK_ERR(build_op("relax.nn.max_pool2d", 1, (rlx_relax_var_t*[]){tparam_c("x", 4, s4)},
                     at_ints(NOATTRS, "pool_size", 1, (int64_t[]){3}), &oc),
            "relax.nn.max_pool2d: the window does not fit the padded input (1, 1, 2, 2)");
  CHECK_ERR(build_op("relax.nn.max_pool2d", 1, (rlx_relax_var_t*[]){tparam_c("x", 4, s4)}, at_s(NOATTRS, "layout", "NHWC"), &oc),
            "relax.nn.max_pool2d: layout \"NHWC\" is not supported");
}

/* ---------------------------------------------------------------- 1-D and 3-D */
/* N-D references (k spatial dims, channels first): odometer over the output's spatial index. */
static bool next_index(int k, const int64_t* ext, int64_t* ix) {
  for (int d = k - 1; d >= 0; d--) {
    if (++ix[d] < ext[d]) return true;
    ix[d] = 0;
  }
  return false;
}

static int64_t flat(int k, const int64_t* ext, const int64_t* ix) {
  int64_t f = 0;
  for (int d = 0; d < k; d++) f = f * ext[d] + ix[d];
  return f;
}

typedef struct {
  int k;
  int64_t s[3], pad[6], d[3], groups;
} convn_p;

static void ref_conv_nd(const host_t* x, const host_t* w, const host_t* o, const void* pp, double* out) {
  const convn_p* p = pp;
  int k = p->k;
  int64_t C = x->shape[1], O = w->shape[0], Cg = w->shape[1], N = o->shape[0];
  const int64_t *xs = x->shape + 2, *ks = w->shape + 2, *os = o->shape + 2;
  int64_t xsz = 1, ksz = 1, osz = 1;
  for (int d = 0; d < k; d++) xsz *= xs[d], ksz *= ks[d], osz *= os[d];
  for (int64_t n = 0; n < N; n++)
    for (int64_t f = 0; f < O; f++) {
      int64_t oi[3] = {0, 0, 0};
      do {
        double acc = 0;
        int64_t g = f / (O / p->groups);
        for (int64_t rc = 0; rc < Cg; rc++) {
          int64_t ki[3] = {0, 0, 0};
          do {
            int64_t xi[3];
            bool in = true;
            for (int d = 0; d < k; d++) {
              xi[d] = oi[d] * p->s[d] - p->pad[d] + ki[d] * p->d[d];
              in = in && xi[d] >= 0 && xi[d] < xs[d];
            }
            if (in)
              acc += (double)x->data[(n * C + g * Cg + rc) * xsz + flat(k, xs, xi)] *
                     w->data[(f * Cg + rc) * ksz + flat(k, ks, ki)];
          } while (next_index(k, ks, ki));
        }
        out[(n * O + f) * osz + flat(k, os, oi)] = acc;
      } while (next_index(k, os, oi));
    }
}

typedef struct {
  int k;
  bool is_max, include_pad;
  int64_t ks[3], s[3], d[3], pad[6];
} pooln_p;

static void ref_pool_nd(const host_t* x, const host_t* w, const host_t* o, const void* pp, double* out) {
  (void)w;
  const pooln_p* p = pp;
  int k = p->k;
  const int64_t *xs = x->shape + 2, *os = o->shape + 2;
  int64_t xsz = 1, osz = 1;
  for (int d = 0; d < k; d++) xsz *= xs[d], osz *= os[d];
  for (int64_t q = 0; q < x->shape[0] * x->shape[1]; q++) {
    int64_t oi[3] = {0, 0, 0};
    do {
      double acc = p->is_max ? -INFINITY : 0;
      int64_t cnt = 0, ki[3] = {0, 0, 0};
      do {
        int64_t xi[3];
        bool in = true, in_pad = true;
        for (int d = 0; d < k; d++) {
          xi[d] = oi[d] * p->s[d] - p->pad[d] + ki[d] * p->d[d];
          in = in && xi[d] >= 0 && xi[d] < xs[d];
          in_pad = in_pad && xi[d] >= -p->pad[d] && xi[d] <= xs[d] + p->pad[k + d] - 1;
        }
        if (p->include_pad ? in_pad : in) cnt++;
        if (!in) continue;
        double v = x->data[q * xsz + flat(k, xs, xi)];
        acc = p->is_max ? fmax(acc, v) : acc + v;
      } while (next_index(k, p->ks, ki));
      out[q * osz + flat(k, os, oi)] = p->is_max ? acc : acc / (double)(cnt ? cnt : 1);
    } while (next_index(k, os, oi));
  }
}

static void test_conv1d_conv3d(void) {
  opcase_t oc;
  /* conv1d: (n, 4, 11) * (6, 2, 3), stride 2, padding [1, 2], dilation 2, groups 2 → (n, 6, 5) */
  convn_p p1 = {1, {2}, {1, 2}, {2}, 2};
  rlx_attrs_t a1 = at_int(at_ints(at_ints(at_ints(NOATTRS, "strides", 1, p1.s), "padding", 2, p1.pad), "dilation", 1, p1.d),
                          "groups", 2);
  a1 = at_s(at_s(a1, "data_layout", "NCW"), "kernel_layout", "OIW");
  int64_t w1[3] = {6, 2, 3};
  CHECK_OK(build_op("relax.nn.conv1d", 2,
                    (rlx_relax_var_t*[]){tparam("x", 3, (rlx_expr_t*[]){SYM_("n"), N_(4), N_(11)}, F32_), tparam_c("w", 3, w1)},
                    a1, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((n, 6, 5), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    CHECK(rlx_tir_find_block(oc.prim->body, "group_conv1d_ncw") != NULL);
    int64_t sx[3] = {2, 4, 11}, so[3] = {2, 6, 5};
    host_t x, w;
    host_init(&x, 3, sx);
    host_init(&w, 3, w1);
    host_rand(&x, 20, -1, 1);
    host_rand(&w, 21, -1, 1);
    run_check(&oc, "conv1d stride 2 pad [1,2] dilation 2 groups 2", &x, &w, 3, so, ref_conv_nd, &p1, false);
    host_free(&x);
    host_free(&w);
  }
  /* conv3d: (1, 2, 5, 6, 4) * (3, 2, 3, 3, 2), padding 1 (one value), strides [1, 2, 1] → (1, 3, 5, 3, 5) */
  convn_p p3 = {3, {1, 2, 1}, {1, 1, 1, 1, 1, 1}, {1, 1, 1}, 1};
  int64_t sx[5] = {1, 2, 5, 6, 4}, w3[5] = {3, 2, 3, 3, 2}, so[5] = {1, 3, 5, 3, 5};
  rlx_attrs_t a3 = at_ints(at_ints(NOATTRS, "strides", 3, p3.s), "padding", 1, p3.pad);
  CHECK_OK(build_op("relax.nn.conv3d", 2, (rlx_relax_var_t*[]){tparam_c("x", 5, sx), tparam_c("w", 5, w3)}, a3, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((1, 3, 5, 3, 5), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    host_t x, w;
    host_init(&x, 5, sx);
    host_init(&w, 5, w3);
    host_rand(&x, 22, -1, 1);
    host_rand(&w, 23, -1, 1);
    run_check(&oc, "conv3d pad 1 strides [1,2,1]", &x, &w, 5, so, ref_conv_nd, &p3, false);
    host_free(&x);
    host_free(&w);
  }
  CHECK_ERR(build_op("relax.nn.conv3d", 2, (rlx_relax_var_t*[]){tparam_c("x", 5, sx), tparam_c("w", 5, w3)},
                     at_s(NOATTRS, "data_layout", "NDHWC"), &oc),
            "relax.nn.conv3d: data_layout \"NDHWC\" is not supported (only \"NCDHW\")");
  CHECK_ERR(build_op("relax.nn.conv1d", 2, (rlx_relax_var_t*[]){tparam_c("x", 5, sx), tparam_c("w", 3, w1)}, NOATTRS, &oc),
            "relax.nn.conv1d: data must be 3-D (NCW), got (1, 2, 5, 6, 4)");
}

static void test_pool1d_pool3d(void) {
  opcase_t oc;
  /* max_pool1d: (1, 2, 10), size 3, stride 2, padding [1, 0], ceil_mode → (1, 2, 5) */
  pooln_p m1 = {1, true, false, {3}, {2}, {1}, {1, 0}};
  rlx_attrs_t a = at_ints(at_ints(at_ints(NOATTRS, "pool_size", 1, m1.ks), "strides", 1, m1.s), "padding", 2, m1.pad);
  a = at_s(at_b(a, "ceil_mode", true), "layout", "NCW");
  int64_t sx1[3] = {1, 2, 10}, so1[3] = {1, 2, 5};
  CHECK_OK(build_op("relax.nn.max_pool1d", 1, (rlx_relax_var_t*[]){tparam_c("x", 3, sx1)}, a, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((1, 2, 5), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    host_t x;
    host_init(&x, 3, sx1);
    host_rand(&x, 30, -3, -1);
    run_check(&oc, "max_pool1d ceil_mode", &x, NULL, 3, so1, ref_pool_nd, &m1, false);
    host_free(&x);
  }
  /* avg_pool3d: (n, 1, 4, 5, 3), size 2, stride 2, padding 1, count_include_pad → (n, 1, 3, 3, 2) */
  pooln_p a3 = {3, false, true, {2, 2, 2}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}};
  rlx_attrs_t at = at_ints(at_ints(at_ints(NOATTRS, "pool_size", 1, a3.ks), "strides", 1, a3.s), "padding", 1, a3.pad);
  at = at_b(at, "count_include_pad", true);
  CHECK_OK(build_op("relax.nn.avg_pool3d", 1,
                    (rlx_relax_var_t*[]){tparam("x", 5, (rlx_expr_t*[]){SYM_("n"), N_(1), N_(4), N_(5), N_(3)}, F32_)}, at, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((n, 1, 3, 3, 2), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    int64_t sx[5] = {2, 1, 4, 5, 3}, so[5] = {2, 1, 3, 3, 2};
    host_t x;
    host_init(&x, 5, sx);
    host_rand(&x, 31, -1, 1);
    run_check(&oc, "avg_pool3d count_include_pad", &x, NULL, 5, so, ref_pool_nd, &a3, false);
    a3.include_pad = false;
    CHECK_OK(build_op("relax.nn.avg_pool3d", 1, (rlx_relax_var_t*[]){tparam_c("x", 5, sx)},
                      at_b(at, "count_include_pad", false), &oc));
    CHECK_OK(legalize_op(&oc));
    if (oc.prim) run_check(&oc, "avg_pool3d", &x, NULL, 5, so, ref_pool_nd, &a3, false);
    host_free(&x);
  }
  /* adaptive_avg_pool1d (1, 2, 7) → 3 and adaptive_avg_pool3d (1, 1, 4, 5, 6) → (2, 2, 3) */
  int64_t s1[3] = {1, 2, 7}, s3[5] = {1, 1, 4, 5, 6};
  CHECK_OK(build_op("relax.nn.adaptive_avg_pool1d", 1, (rlx_relax_var_t*[]){tparam_c("x", 3, s1)},
                    at_ints(NOATTRS, "output_size", 1, (int64_t[]){3}), &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((1, 2, 3), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    host_t x, o;
    int64_t so[3] = {1, 2, 3};
    host_init(&x, 3, s1);
    host_init(&o, 3, so);
    host_rand(&x, 32, -1, 1);
    double want[6];
    for (int q = 0; q < 2; q++)
      for (int i = 0; i < 3; i++) {
        int a0 = i * 7 / 3, a1 = ((i + 1) * 7 + 2) / 3;
        double sum = 0;
        for (int t = a0; t < a1; t++) sum += x.data[q * 7 + t];
        want[q * 3 + i] = sum / (a1 - a0);
      }
    CHECK_OK(run_interp(oc.prim, 2, (host_t*[]){&x, &o}));
    CHECK_CLOSE("adaptive_avg_pool1d 7 → 3", o.data, want, 6, 1e-5);
    host_free(&x);
    host_free(&o);
  }
  CHECK_OK(build_op("relax.nn.adaptive_avg_pool3d", 1, (rlx_relax_var_t*[]){tparam_c("x", 5, s3)},
                    at_ints(NOATTRS, "output_size", 3, (int64_t[]){2, 2, 3}), &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((1, 1, 2, 2, 3), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    host_t x, o;
    int64_t so[5] = {1, 1, 2, 2, 3};
    host_init(&x, 5, s3);
    host_init(&o, 5, so);
    host_rand(&x, 33, -1, 1);
    double want[12];
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++)
        for (int l = 0; l < 3; l++) {
          int d0 = i * 4 / 2, d1 = ((i + 1) * 4 + 1) / 2, h0 = j * 5 / 2, h1 = ((j + 1) * 5 + 1) / 2, w0 = l * 6 / 3,
              w1 = ((l + 1) * 6 + 2) / 3;
          double sum = 0;
          for (int a = d0; a < d1; a++)
            for (int b = h0; b < h1; b++)
              for (int c = w0; c < w1; c++) sum += x.data[(a * 5 + b) * 6 + c];
          want[(i * 2 + j) * 3 + l] = sum / ((d1 - d0) * (h1 - h0) * (w1 - w0));
        }
    CHECK_OK(run_interp(oc.prim, 2, (host_t*[]){&x, &o}));
    CHECK_CLOSE("adaptive_avg_pool3d (4,5,6) → (2,2,3)", o.data, want, 12, 1e-5);
    host_free(&x);
    host_free(&o);
  }
  CHECK_ERR(build_op("relax.nn.avg_pool1d", 1, (rlx_relax_var_t*[]){tparam_c("x", 3, s1)},
                     at_ints(NOATTRS, "padding", 3, (int64_t[]){1, 1, 1}), &oc),
            "relax.nn.avg_pool1d: padding takes 1 or 2 values, got 3");
}

/* ---------------------------------------------------------------- transposed conv */
typedef struct {
  int k;
  int64_t s[3], pad[6], d[3], groups;
} convt_p;

/* Scatter form: x[n, c, i] * w[c, o, r] adds to out[n, g * Og + o, i * s - pad + r * d]. */
static void ref_conv_transpose(const host_t* x, const host_t* w, const host_t* o, const void* pp, double* out) {
  const convt_p* p = pp;
  int k = p->k;
  int64_t N = x->shape[0], C = x->shape[1], Og = w->shape[1], O = o->shape[1], Cg = C / p->groups;
  const int64_t *xs = x->shape + 2, *ks = w->shape + 2, *os = o->shape + 2;
  int64_t xsz = 1, ksz = 1, osz = 1;
  for (int d = 0; d < k; d++) xsz *= xs[d], ksz *= ks[d], osz *= os[d];
  for (int64_t i = 0; i < N * O * osz; i++) out[i] = 0;
  for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++) {
      int64_t xi[3] = {0, 0, 0};
      do {
        double xv = x->data[(n * C + c) * xsz + flat(k, xs, xi)];
        for (int64_t oo = 0; oo < Og; oo++) {
          int64_t ki[3] = {0, 0, 0};
          do {
            int64_t yi[3];
            bool in = true;
            for (int d = 0; d < k; d++) {
              yi[d] = xi[d] * p->s[d] - p->pad[d] + ki[d] * p->d[d];
              in = in && yi[d] >= 0 && yi[d] < os[d];
            }
            if (in)
              out[(n * O + (c / Cg) * Og + oo) * osz + flat(k, os, yi)] +=
                  xv * w->data[(c * Og + oo) * ksz + flat(k, ks, ki)];
          } while (next_index(k, ks, ki));
        }
      } while (next_index(k, xs, xi));
    }
}

static void test_conv_transpose(void) {
  opcase_t oc;
  /* (n, 4, 5, 5) x (4, 3, 3, 3), stride 2, padding 1, output_padding 1 → (n, 3, 10, 10) */
  convt_p p = {2, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1};
  rlx_attrs_t at = at_ints(at_ints(at_ints(NOATTRS, "strides", 2, p.s), "padding", 2, p.pad), "output_padding", 2,
                           (int64_t[]){1, 1});
  at = at_s(at_s(at, "data_layout", "NCHW"), "kernel_layout", "IOHW");
  int64_t sw[4] = {4, 3, 3, 3};
  CHECK_OK(build_op("relax.nn.conv2d_transpose", 2,
                    (rlx_relax_var_t*[]){tparam("x", 4, (rlx_expr_t*[]){SYM_("n"), N_(4), N_(5), N_(5)}, F32_), tparam_c("w", 4, sw)},
                    at, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((n, 3, 10, 10), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    int64_t sx[4] = {2, 4, 5, 5}, so[4] = {2, 3, 10, 10};
    host_t x, w;
    host_init(&x, 4, sx);
    host_init(&w, 4, sw);
    host_rand(&x, 40, -1, 1);
    host_rand(&w, 41, -1, 1);
    run_check(&oc, "conv2d_transpose stride 2 pad 1 output_padding 1", &x, &w, 4, so, ref_conv_transpose, &p, false);
    run_check(&oc, "conv2d_transpose compiled", &x, &w, 4, so, ref_conv_transpose, &p, true);
    host_free(&x);
    host_free(&w);
  }
  /* groups 2, dilation [2, 1], strides [1, 2], padding [0, 1, 1, 0]: (1, 4, 4, 3) x (4, 2, 2, 3) → (1, 4, 5, 6) */
  convt_p q = {2, {1, 2}, {0, 1, 1, 0}, {2, 1}, 2};
  rlx_attrs_t aq = at_ints(at_ints(at_ints(NOATTRS, "strides", 2, q.s), "padding", 4, q.pad), "dilation", 2, q.d);
  aq = at_int(aq, "groups", 2);
  int64_t sx[4] = {1, 4, 4, 3}, swq[4] = {4, 2, 2, 3}, so[4] = {1, 4, 5, 6};
  CHECK_OK(build_op("relax.nn.conv2d_transpose", 2, (rlx_relax_var_t*[]){tparam_c("x", 4, sx), tparam_c("w", 4, swq)}, aq,
                    &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((1, 4, 5, 6), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    host_t x, w;
    host_init(&x, 4, sx);
    host_init(&w, 4, swq);
    host_rand(&x, 42, -1, 1);
    host_rand(&w, 43, -1, 1);
    run_check(&oc, "conv2d_transpose groups 2 dilation [2,1]", &x, &w, 4, so, ref_conv_transpose, &q, false);
    host_free(&x);
    host_free(&w);
  }
  /* conv1d_transpose: (1, 2, 5) x (2, 3, 4), stride 3 → (1, 3, 16) */
  convt_p r = {1, {3}, {0, 0}, {1}, 1};
  int64_t sx1[3] = {1, 2, 5}, sw1[3] = {2, 3, 4}, so1[3] = {1, 3, 16};
  CHECK_OK(build_op("relax.nn.conv1d_transpose", 2, (rlx_relax_var_t*[]){tparam_c("x", 3, sx1), tparam_c("w", 3, sw1)},
                    at_ints(NOATTRS, "strides", 1, r.s), &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((1, 3, 16), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    host_t x, w;
    host_init(&x, 3, sx1);
    host_init(&w, 3, sw1);
    host_rand(&x, 44, -1, 1);
    host_rand(&w, 45, -1, 1);
    run_check(&oc, "conv1d_transpose stride 3", &x, &w, 3, so1, ref_conv_transpose, &r, false);
    host_free(&x);
    host_free(&w);
  }
  int64_t sw5[4] = {5, 3, 3, 3};
  CHECK_ERR(build_op("relax.nn.conv2d_transpose", 2, (rlx_relax_var_t*[]){tparam_c("x", 4, sx), tparam_c("w", 4, sw5)},
                     NOATTRS, &oc),
            "relax.nn.conv2d_transpose: data channels 4 != weight in-channels 5");
  CHECK_ERR(build_op("relax.nn.conv2d_transpose", 2, (rlx_relax_var_t*[]){tparam_c("x", 4, sx), tparam_c("w", 4, swq)},
                     at_ints(NOATTRS, "output_padding", 1, (int64_t[]){1}), &oc),
            "relax.nn.conv2d_transpose: output_padding 1 must be >= 0 and smaller than the stride or the dilation");
}

/* Large enough convolutions (groups 1, >= 64 output channels, C * kernel >= 64, >= 64 output
 * positions) go through im2col + matmul ("<name>_gemm", tiled by the default schedule). */
static void test_conv_gemm_path(void) {
  opcase_t oc;
  /* conv2d (n, 8, 12, 17) * (64, 8, 3, 3), stride [1, 2], padding [1, 0, 2, 1], dilation [2, 1] → (n, 64, 11, 8) */
  convn_p p2 = {2, {1, 2}, {1, 0, 2, 1}, {2, 1}, 1};
  rlx_attrs_t a2 = at_ints(at_ints(at_ints(NOATTRS, "strides", 2, p2.s), "padding", 4, p2.pad), "dilation", 2, p2.d);
  int64_t w2[4] = {64, 8, 3, 3};
  CHECK_OK(build_op("relax.nn.conv2d", 2,
                    (rlx_relax_var_t*[]){tparam("x", 4, (rlx_expr_t*[]){SYM_("n"), N_(8), N_(12), N_(17)}, F32_), tparam_c("w", 4, w2)},
                    a2, &oc));
  CHECK_STREQ(lv_sinfo(&oc), "R.Tensor((n, 64, 11, 8), dtype=\"float32\")");
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    CHECK(rlx_tir_find_block(oc.prim->body, "conv2d_nchw_gemm") != NULL && rlx_tir_find_block(oc.prim->body, "data_col") != NULL);
    for (int64_t n = 1; n <= 2; n++) {
      int64_t sx[4] = {n, 8, 12, 17}, so[4] = {n, 64, 11, 8};
      host_t x, w;
      host_init(&x, 4, sx);
      host_init(&w, 4, w2);
      host_rand(&x, 50 + (unsigned)n, -1, 1);
      host_rand(&w, 52, -1, 1);
      run_check(&oc, rlx_ctx_sprintf(C_, "conv2d via im2col, n=%lld", (long long)n), &x, &w, 4, so, ref_conv_nd, &p2, false);
      if (n == 2) run_check(&oc, "conv2d via im2col, compiled", &x, &w, 4, so, ref_conv_nd, &p2, true);
      host_free(&x);
      host_free(&w);
    }
  }
  /* batch 1 (constant): col and gemm without the batch dim, kernel tiled by the default schedule */
  int64_t sx1[4] = {1, 8, 12, 17};
  CHECK_OK(build_op("relax.nn.conv2d", 2, (rlx_relax_var_t*[]){tparam_c("x", 4, sx1), tparam_c("w", 4, w2)}, a2, &oc));
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    rlx_tir_func_t* sch = NULL;
    CHECK_OK(rlx_tir_default_schedule(C_, oc.prim, &sch));
    CHECK_MSG(sch && rlx_tir_find_block(sch->body, "conv2d_nchw_gemm_tile") != NULL, "im2col gemm not tiled");
    int64_t so[4] = {1, 64, 11, 8};
    host_t x, w;
    host_init(&x, 4, sx1);
    host_init(&w, 4, w2);
    host_rand(&x, 53, -1, 1);
    host_rand(&w, 54, -1, 1);
    run_check(&oc, "conv2d via im2col, batch 1, compiled", &x, &w, 4, so, ref_conv_nd, &p2, true);
    host_free(&x);
    host_free(&w);
  }
  /* conv1d (1, 16, 80) * (64, 16, 5), stride 1 → (1, 64, 76); conv3d (2, 8, 5, 5, 5) * (64, 8, 2, 2, 2) → (2, 64, 4, 4, 4) */
  convn_p p1 = {1, {1}, {0, 0}, {1}, 1}, p3 = {3, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, {1, 1, 1}, 1};
  int64_t x1[3] = {1, 16, 80}, k1[3] = {64, 16, 5}, o1[3] = {1, 64, 76};
  int64_t x3[5] = {2, 8, 5, 5, 5}, k3[5] = {64, 8, 2, 2, 2}, o3[5] = {2, 64, 4, 4, 4};
  CHECK_OK(build_op("relax.nn.conv1d", 2, (rlx_relax_var_t*[]){tparam_c("x", 3, x1), tparam_c("w", 3, k1)}, NOATTRS, &oc));
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    CHECK(rlx_tir_find_block(oc.prim->body, "conv1d_ncw_gemm") != NULL);
    host_t x, w;
    host_init(&x, 3, x1);
    host_init(&w, 3, k1);
    host_rand(&x, 55, -1, 1);
    host_rand(&w, 56, -1, 1);
    run_check(&oc, "conv1d via im2col", &x, &w, 3, o1, ref_conv_nd, &p1, false);
    host_free(&x);
    host_free(&w);
  }
  CHECK_OK(build_op("relax.nn.conv3d", 2, (rlx_relax_var_t*[]){tparam_c("x", 5, x3), tparam_c("w", 5, k3)}, NOATTRS, &oc));
  CHECK_OK(legalize_op(&oc));
  if (oc.prim) {
    CHECK(rlx_tir_find_block(oc.prim->body, "conv3d_ncdhw_gemm") != NULL);
    host_t x, w;
    host_init(&x, 5, x3);
    host_init(&w, 5, k3);
    host_rand(&x, 57, -1, 1);
    host_rand(&w, 58, -1, 1);
    run_check(&oc, "conv3d via im2col", &x, &w, 5, o3, ref_conv_nd, &p3, false);
    host_free(&x);
    host_free(&w);
  }
}

int main(void) {
  C_ = rlx_ctx_create();
  test_conv2d_strided_symbolic();
  test_conv2d_grouped_dilated();
  test_conv2d_depthwise();
  test_conv2d_errors();
  test_max_pool();
  test_avg_pool();
  test_adaptive_avg_pool();
  test_pool_errors();
  test_conv1d_conv3d();
  test_pool1d_pool3d();
  test_conv_transpose();
  test_conv_gemm_path();
  rlx_ctx_free(C_);
  TEST_MAIN_END();
}
