/* ONNX "tensor" converters on constant inputs: every input is an initializer, so the importer
 * folds the node (legalization + TIR interpreter) and main returns a constant, checked here
 * against numpy's results (computed with numpy and written out below; ints exact, floats
 * within 1e-5). Also the errors for bad or non-constant inputs. The compiled path (graph
 * inputs, VM) is in test_onnx_tensor_run.c. */
#include <stdint.h>

#include "test_onnx_tensor_util.h"

#define F32 rlx_dt_float32()
#define I64 rlx_dt_int64()
#define I32 rlx_dt_int32()
#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static float iota24[24];

static void test_reshape_flatten_transpose(void) {
  static const int64_t xs[3] = {2, 3, 4}, sh[3] = {0, -1, 2};
  double want[24];
  for (int i = 0; i < 24; i++) want[i] = i;
  mb_t m = mb_begin("Reshape", "x s", "y");
  mb_const(&m, "x", TF32, 3, xs, iota24);
  mb_const(&m, "s", TI64, 1, (int64_t[]){3}, sh);
  mb_output(&m, "y", TF32);
  pb_t b = mb_model(&m, 14);
  expect_folded("Reshape 0 and -1", &b, 0, F32, 3, (int64_t[]){2, 6, 2}, want);

  m = mb_begin("Reshape", "x", "y"); /* opset 1: shape attribute */
  mb_attr_ints(&m, "shape", 2, (int64_t[]){4, -1});
  mb_const(&m, "x", TF32, 3, xs, iota24);
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 1);
  expect_folded("Reshape-1 attribute", &b, 0, F32, 2, (int64_t[]){4, 6}, want);

  m = mb_begin("Flatten", "x", "y");
  mb_attr_int(&m, "axis", -1);
  mb_const(&m, "x", TF32, 3, xs, iota24);
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 13);
  expect_folded("Flatten axis -1", &b, 0, F32, 2, (int64_t[]){6, 4}, want);

  m = mb_begin("Flatten", "x", "y");
  mb_attr_int(&m, "axis", 0);
  mb_const(&m, "x", TF32, 3, xs, iota24);
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 9);
  expect_folded("Flatten axis 0", &b, 0, F32, 2, (int64_t[]){1, 24}, want);

  /* np.arange(24).reshape(2, 3, 4).transpose() */
  static const double tr[24] = {0, 12, 4, 16, 8, 20, 1, 13, 5, 17, 9, 21, 2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23};
  m = mb_begin("Transpose", "x", "y");
  mb_const(&m, "x", TF32, 3, xs, iota24);
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 13);
  expect_folded("Transpose default perm", &b, 0, F32, 3, (int64_t[]){4, 3, 2}, tr);
}

static void test_concat_split(void) {
  static const float a[4] = {1, 2, 3, 4}, c[2] = {5, 6};
  mb_t m = mb_begin("Concat", "a c", "y");
  mb_attr_int(&m, "axis", -1);
  mb_const(&m, "a", TF32, 2, (int64_t[]){2, 2}, a);
  mb_const(&m, "c", TF32, 2, (int64_t[]){2, 1}, c);
  mb_output(&m, "y", TF32);
  pb_t b = mb_model(&m, 11);
  expect_folded("Concat axis -1", &b, 0, F32, 2, (int64_t[]){2, 3}, (double[]){1, 2, 5, 3, 4, 6});

  /* opset 13: sizes as an input */
  static const float x8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  m = mb_begin("Split", "x s", "p q");
  mb_attr_int(&m, "axis", 1);
  mb_const(&m, "x", TF32, 2, (int64_t[]){2, 4}, x8);
  mb_const(&m, "s", TI64, 1, (int64_t[]){2}, (int64_t[]){1, 3});
  mb_output(&m, "p", TF32);
  mb_output(&m, "q", TF32);
  rlx_ctx_t* ctx = rlx_ctx_create();
  b = mb_model(&m, 13);
  rlx_module_t* mod = import_ok(ctx, &b, "Split-13");
  if (mod) {
    check_const("Split-13 part 0", folded_output(mod, 0), F32, 2, (int64_t[]){2, 1}, (double[]){0, 4});
    check_const("Split-13 part 1", folded_output(mod, 1), F32, 2, (int64_t[]){2, 3}, (double[]){1, 2, 3, 5, 6, 7});
  }
  rlx_ctx_free(ctx);

  /* opset 18: num_outputs with a smaller last part (7 = 3 + 3 + 1) */
  static const float x7[7] = {0, 1, 2, 3, 4, 5, 6};
  m = mb_begin("Split", "x", "p q r");
  mb_attr_int(&m, "num_outputs", 3);
  mb_const(&m, "x", TF32, 1, (int64_t[]){7}, x7);
  mb_output(&m, "p", TF32);
  mb_output(&m, "q", TF32);
  mb_output(&m, "r", TF32);
  ctx = rlx_ctx_create();
  b = mb_model(&m, 18);
  mod = import_ok(ctx, &b, "Split-18");
  if (mod) {
    check_const("Split-18 part 1", folded_output(mod, 1), F32, 1, (int64_t[]){3}, (double[]){3, 4, 5});
    check_const("Split-18 part 2", folded_output(mod, 2), F32, 1, (int64_t[]){1}, (double[]){6});
  }
  rlx_ctx_free(ctx);

  /* opset 2: the split attribute */
  m = mb_begin("Split", "x", "p q");
  mb_attr_ints(&m, "split", 2, (int64_t[]){5, 2});
  mb_const(&m, "x", TF32, 1, (int64_t[]){7}, x7);
  mb_output(&m, "p", TF32);
  mb_output(&m, "q", TF32);
  b = mb_model(&m, 2);
  expect_folded("Split-2 attribute", &b, 1, F32, 1, (int64_t[]){2}, (double[]){5, 6});
}

static void test_squeeze_slice(void) {
  static const float x6[6] = {0, 1, 2, 3, 4, 5};
  mb_t m = mb_begin("Squeeze", "x a", "y");
  mb_const(&m, "x", TF32, 4, (int64_t[]){2, 1, 3, 1}, x6);
  mb_const(&m, "a", TI64, 1, (int64_t[]){1}, (int64_t[]){-1});
  mb_output(&m, "y", TF32);
  pb_t b = mb_model(&m, 13);
  expect_folded("Squeeze-13 axes -1", &b, 0, F32, 3, (int64_t[]){2, 1, 3}, (double[]){0, 1, 2, 3, 4, 5});

  m = mb_begin("Unsqueeze", "x", "y"); /* opset 11: axes attribute, negative = from the output's end */
  mb_attr_ints(&m, "axes", 2, (int64_t[]){0, -1});
  mb_const(&m, "x", TF32, 2, (int64_t[]){2, 3}, x6);
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 11);
  expect_folded("Unsqueeze-11 axes 0, -1", &b, 0, F32, 4, (int64_t[]){1, 2, 3, 1}, (double[]){0, 1, 2, 3, 4, 5});

  /* x = arange(20).reshape(4, 5); x[-1:-1000:-2, 4:0:-2] */
  int64_t x20[20];
  for (int i = 0; i < 20; i++) x20[i] = i;
  m = mb_begin("Slice", "x s e a t", "y");
  mb_const(&m, "x", TI64, 2, (int64_t[]){4, 5}, x20);
  mb_const(&m, "s", TI64, 1, (int64_t[]){2}, (int64_t[]){-1, 4});
  mb_const(&m, "e", TI64, 1, (int64_t[]){2}, (int64_t[]){-1000, 0});
  mb_const(&m, "a", TI64, 1, (int64_t[]){2}, (int64_t[]){0, -1});
  mb_const(&m, "t", TI64, 1, (int64_t[]){2}, (int64_t[]){-2, -2});
  mb_output(&m, "y", TI64);
  b = mb_model(&m, 13);
  expect_folded("Slice negative steps", &b, 0, I64, 2, (int64_t[]){2, 2}, (double[]){19, 17, 9, 7});

  m = mb_begin("Slice", "x", "y"); /* opset 1: attributes, INT_MAX end */
  mb_attr_ints(&m, "starts", 1, (int64_t[]){3});
  mb_attr_ints(&m, "ends", 1, (int64_t[]){2147483647});
  mb_attr_ints(&m, "axes", 1, (int64_t[]){1});
  mb_const(&m, "x", TI64, 2, (int64_t[]){4, 5}, x20);
  mb_output(&m, "y", TI64);
  b = mb_model(&m, 1);
  expect_folded("Slice-1 attributes", &b, 0, I64, 2, (int64_t[]){4, 2}, (double[]){3, 4, 8, 9, 13, 14, 18, 19});
}

static void test_expand_tile_pad(void) {
  static const float x3[3] = {1, 2, 3};
  mb_t m = mb_begin("Expand", "x s", "y"); /* bidirectional: (3, 1) with (2, 1, 4) */
  mb_const(&m, "x", TF32, 2, (int64_t[]){3, 1}, x3);
  mb_const(&m, "s", TI64, 1, (int64_t[]){3}, (int64_t[]){2, 1, 4});
  mb_output(&m, "y", TF32);
  pb_t b = mb_model(&m, 13);
  static const double ex[24] = {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
  expect_folded("Expand bidirectional", &b, 0, F32, 3, (int64_t[]){2, 3, 4}, ex);

  m = mb_begin("Tile", "x r", "y");
  mb_const(&m, "x", TI32, 2, (int64_t[]){2, 2}, (int32_t[]){1, 2, 3, 4});
  mb_const(&m, "r", TI64, 1, (int64_t[]){2}, (int64_t[]){1, 2});
  mb_output(&m, "y", TI32);
  b = mb_model(&m, 13);
  expect_folded("Tile", &b, 0, I32, 2, (int64_t[]){2, 4}, (double[]){1, 2, 1, 2, 3, 4, 3, 4});

  /* np.pad(arange(4).reshape(1, 4), ((0, 0), (2, 1)), 'reflect') */
  m = mb_begin("Pad", "x p", "y");
  mb_attr_str(&m, "mode", "reflect");
  mb_const(&m, "x", TI64, 2, (int64_t[]){1, 4}, (int64_t[]){0, 1, 2, 3});
  mb_const(&m, "p", TI64, 1, (int64_t[]){4}, (int64_t[]){0, 2, 0, 1});
  mb_output(&m, "y", TI64);
  b = mb_model(&m, 13);
  expect_folded("Pad reflect", &b, 0, I64, 2, (int64_t[]){1, 7}, (double[]){2, 1, 0, 1, 2, 3, 2});

  /* negative pads crop: pads (0, -1, 1, 1) on (2, 4), value 9 */
  static const float x8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  m = mb_begin("Pad", "x p v", "y");
  mb_const(&m, "x", TF32, 2, (int64_t[]){2, 4}, x8);
  mb_const(&m, "p", TI64, 1, (int64_t[]){4}, (int64_t[]){0, -1, 1, 1});
  mb_const(&m, "v", TF32, 0, NULL, (float[]){9});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 11);
  expect_folded("Pad negative (crop)", &b, 0, F32, 2, (int64_t[]){3, 4}, (double[]){1, 2, 3, 9, 5, 6, 7, 9, 9, 9, 9, 9});

  /* opset 2: attributes, edge mode; np.pad(arange(6).reshape(2, 3), ((1, 0), (0, 2)), 'edge') */
  m = mb_begin("Pad", "x", "y");
  mb_attr_str(&m, "mode", "edge");
  mb_attr_ints(&m, "pads", 4, (int64_t[]){1, 0, 0, 2});
  mb_const(&m, "x", TF32, 2, (int64_t[]){2, 3}, x8);
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 2);
  expect_folded("Pad-2 edge", &b, 0, F32, 2, (int64_t[]){3, 5}, (double[]){0, 1, 2, 2, 2, 0, 1, 2, 2, 2, 3, 4, 5, 5, 5});
}

static void test_depth_space(void) {
  static const float x8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  static const char* const modes[2] = {"DCR", "CRD"};
  static const double want[2][8] = {{0, 2, 4, 6, 1, 3, 5, 7}, {0, 1, 2, 3, 4, 5, 6, 7}};
  for (int k = 0; k < 2; k++) {
    mb_t m = mb_begin("DepthToSpace", "x", "y");
    mb_attr_int(&m, "blocksize", 2);
    mb_attr_str(&m, "mode", modes[k]);
    mb_const(&m, "x", TF32, 4, (int64_t[]){1, 8, 1, 1}, x8);
    mb_output(&m, "y", TF32);
    pb_t b = mb_model(&m, 13);
    expect_folded(modes[k], &b, 0, F32, 4, (int64_t[]){1, 2, 2, 2}, want[k]);
  }
  float x16[16];
  for (int i = 0; i < 16; i++) x16[i] = (float)i;
  mb_t m = mb_begin("SpaceToDepth", "x", "y");
  mb_attr_int(&m, "blocksize", 2);
  mb_const(&m, "x", TF32, 4, (int64_t[]){1, 1, 4, 4}, x16);
  mb_output(&m, "y", TF32);
  pb_t b = mb_model(&m, 13);
  static const double s2d[16] = {0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15};
  expect_folded("SpaceToDepth", &b, 0, F32, 4, (int64_t[]){1, 4, 2, 2}, s2d);
}

static void test_gather_scatter(void) {
  static const float x6[6] = {0, 1, 2, 3, 4, 5};
  mb_t m = mb_begin("Gather", "x i", "y");
  mb_attr_int(&m, "axis", 1);
  mb_const(&m, "x", TF32, 2, (int64_t[]){2, 3}, x6);
  mb_const(&m, "i", TI64, 2, (int64_t[]){1, 2}, (int64_t[]){-1, 0});
  mb_output(&m, "y", TF32);
  pb_t b = mb_model(&m, 13);
  expect_folded("Gather negative indices", &b, 0, F32, 3, (int64_t[]){2, 1, 2}, (double[]){2, 0, 5, 3});

  m = mb_begin("GatherElements", "x i", "y");
  mb_const(&m, "x", TF32, 2, (int64_t[]){2, 3}, x6);
  mb_const(&m, "i", TI32, 2, (int64_t[]){1, 3}, (int32_t[]){-1, 0, 1});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 13);
  expect_folded("GatherElements int32 negative", &b, 0, F32, 2, (int64_t[]){1, 3}, (double[]){3, 1, 5});

  int32_t d8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  m = mb_begin("GatherND", "x i", "y");
  mb_attr_int(&m, "batch_dims", 1);
  mb_const(&m, "x", TI32, 3, (int64_t[]){2, 2, 2}, d8);
  mb_const(&m, "i", TI64, 2, (int64_t[]){2, 1}, (int64_t[]){1, 0});
  mb_output(&m, "y", TI32);
  b = mb_model(&m, 13);
  expect_folded("GatherND batch_dims 1", &b, 0, I32, 2, (int64_t[]){2, 2}, (double[]){2, 3, 4, 5});

  /* ScatterElements axis 1, indices (1, 1, -1): the last duplicate wins (none), or adds */
  static const float zeros8[8] = {0}, upd[3] = {5, 6, 7};
  static const char* const reds[2] = {"none", "add"};
  static const double want[2][8] = {{0, 6, 0, 7, 0, 0, 0, 0}, {0, 12, 2, 10, 4, 5, 6, 7}};
  float x8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  for (int k = 0; k < 2; k++) {
    m = mb_begin("ScatterElements", "x i u", "y");
    mb_attr_int(&m, "axis", 1);
    mb_attr_str(&m, "reduction", reds[k]);
    mb_const(&m, "x", TF32, 2, (int64_t[]){2, 4}, k == 0 ? zeros8 : x8);
    mb_const(&m, "i", TI64, 2, (int64_t[]){1, 3}, (int64_t[]){1, 1, -1});
    mb_const(&m, "u", TF32, 2, (int64_t[]){1, 3}, upd);
    mb_output(&m, "y", TF32);
    b = mb_model(&m, 16);
    expect_folded(reds[k], &b, 0, F32, 2, (int64_t[]){2, 4}, want[k]);
  }

  /* ScatterND mul: rows 0, 0, 1 of (2, 4) multiplied by 2, 3, -1 */
  float x18[8] = {1, 2, 3, 4, 5, 6, 7, 8}, u12[12];
  for (int i = 0; i < 12; i++) u12[i] = i < 4 ? 2.0f : i < 8 ? 3.0f : -1.0f;
  m = mb_begin("ScatterND", "x i u", "y");
  mb_attr_str(&m, "reduction", "mul");
  mb_const(&m, "x", TF32, 2, (int64_t[]){2, 4}, x18);
  mb_const(&m, "i", TI64, 2, (int64_t[]){3, 1}, (int64_t[]){0, 0, 1});
  mb_const(&m, "u", TF32, 2, (int64_t[]){3, 4}, u12);
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 16);
  expect_folded("ScatterND mul", &b, 0, F32, 2, (int64_t[]){2, 4}, (double[]){6, 12, 18, 24, -5, -6, -7, -8});
}

static void test_value_ops(void) {
  /* OneHot: float indices (1, -1, 2), depth 3, values (off 0, on 5), axis 0 */
  mb_t m = mb_begin("OneHot", "i d v", "y");
  mb_attr_int(&m, "axis", 0);
  mb_const(&m, "i", TF32, 1, (int64_t[]){3}, (float[]){1, -1, 2});
  mb_const(&m, "d", TF32, 0, NULL, (float[]){3});
  mb_const(&m, "v", TI64, 1, (int64_t[]){2}, (int64_t[]){0, 5});
  mb_output(&m, "y", TI64);
  pb_t b = mb_model(&m, 11);
  expect_folded("OneHot", &b, 0, I64, 2, (int64_t[]){3, 3}, (double[]){0, 0, 0, 5, 0, 0, 0, 5, 5});

  m = mb_begin("Trilu", "x k", "y");
  mb_attr_int(&m, "upper", 0);
  mb_const(&m, "x", TI64, 2, (int64_t[]){3, 3}, (int64_t[]){1, 2, 3, 4, 5, 6, 7, 8, 9});
  mb_const(&m, "k", TI64, 0, NULL, (int64_t[]){-1});
  mb_output(&m, "y", TI64);
  b = mb_model(&m, 14);
  expect_folded("Trilu lower k=-1", &b, 0, I64, 2, (int64_t[]){3, 3}, (double[]){0, 0, 0, 4, 0, 0, 7, 8, 0});

  int32_t z12[12] = {0};
  m = mb_begin("EyeLike", "x", "y");
  mb_attr_int(&m, "k", 1);
  mb_attr_int(&m, "dtype", TI64);
  mb_const(&m, "x", TI32, 2, (int64_t[]){3, 4}, z12);
  mb_output(&m, "y", TI64);
  b = mb_model(&m, 9);
  expect_folded("EyeLike k=1 int64", &b, 0, I64, 2, (int64_t[]){3, 4}, (double[]){0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});

  m = mb_begin("Range", "s l d", "y");
  mb_const(&m, "s", TI32, 0, NULL, (int32_t[]){10});
  mb_const(&m, "l", TI32, 0, NULL, (int32_t[]){4});
  mb_const(&m, "d", TI32, 0, NULL, (int32_t[]){-3});
  mb_output(&m, "y", TI32);
  b = mb_model(&m, 11);
  expect_folded("Range int32 negative delta", &b, 0, I32, 1, (int64_t[]){2}, (double[]){10, 7});

  m = mb_begin("Range", "s l d", "y");
  mb_const(&m, "s", TF32, 0, NULL, (float[]){1});
  mb_const(&m, "l", TF32, 0, NULL, (float[]){5});
  mb_const(&m, "d", TF32, 0, NULL, (float[]){1.5f});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 11);
  expect_folded("Range float", &b, 0, F32, 1, (int64_t[]){3}, (double[]){1, 2.5, 4});

  m = mb_begin("Size", "x", "y");
  mb_const(&m, "x", TF32, 3, (int64_t[]){2, 3, 4}, iota24);
  mb_output(&m, "y", TI64);
  b = mb_model(&m, 13);
  expect_folded("Size", &b, 0, I64, 0, NULL, (double[]){24});

  m = mb_begin("ConstantOfShape", "s", "y");
  mb_attr_tensor(&m, "value", TI32, 1, (int64_t[]){1}, (int32_t[]){7});
  mb_const(&m, "s", TI64, 1, (int64_t[]){2}, (int64_t[]){2, 3});
  mb_output(&m, "y", TI32);
  b = mb_model(&m, 9);
  expect_folded("ConstantOfShape int32 7", &b, 0, I32, 2, (int64_t[]){2, 3}, (double[]){7, 7, 7, 7, 7, 7});

  m = mb_begin("ConstantOfShape", "s", "y");
  mb_const(&m, "s", TI64, 1, (int64_t[]){1}, (int64_t[]){2});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 9);
  expect_folded("ConstantOfShape default", &b, 0, F32, 1, (int64_t[]){2}, (double[]){0, 0});

  /* Compress without axis: the flattened input */
  static const float x6[6] = {0, 1, 2, 3, 4, 5};
  m = mb_begin("Compress", "x c", "y");
  mb_const(&m, "x", TF32, 2, (int64_t[]){2, 3}, x6);
  mb_const(&m, "c", TBOOL, 1, (int64_t[]){5}, (uint8_t[]){0, 1, 0, 0, 1});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 11);
  expect_folded("Compress flattened", &b, 0, F32, 1, (int64_t[]){2}, (double[]){1, 4});

  m = mb_begin("NonZero", "x", "y");
  mb_const(&m, "x", TI32, 2, (int64_t[]){2, 2}, (int32_t[]){3, 0, 0, -1});
  mb_output(&m, "y", TI64);
  b = mb_model(&m, 13);
  expect_folded("NonZero", &b, 0, I64, 2, (int64_t[]){2, 2}, (double[]){0, 1, 0, 1});
}

/* TopK with ties (the lower index first) on a constant input, both outputs. */
static void test_topk(void) {
  static const float x[8] = {3, 1, 3, 2, 0, 5, -1, 5};
  static const double vals[2][4] = {{3, 3, 5, 5}, {1, 2, -1, 0}}, inds[2][4] = {{0, 2, 1, 3}, {1, 3, 2, 0}};
  for (int largest = 1; largest >= 0; largest--) {
    mb_t m = mb_begin("TopK", "x k", "v i");
    mb_attr_int(&m, "largest", largest);
    mb_const(&m, "x", TF32, 2, (int64_t[]){2, 4}, x);
    mb_const(&m, "k", TI64, 1, (int64_t[]){1}, (int64_t[]){2});
    mb_output(&m, "v", TF32);
    mb_output(&m, "i", TI64);
    rlx_ctx_t* ctx = rlx_ctx_create();
    pb_t b = mb_model(&m, 11);
    rlx_module_t* mod = import_ok(ctx, &b, "TopK");
    if (mod) {
      check_const("TopK values", folded_output(mod, 0), F32, 2, (int64_t[]){2, 2}, vals[1 - largest]);
      check_const("TopK indices", folded_output(mod, 1), I64, 2, (int64_t[]){2, 2}, inds[1 - largest]);
    }
    rlx_ctx_free(ctx);
  }
  /* int input: the rank-counting form (floats with small k use selection rounds) */
  mb_t mi = mb_begin("TopK", "x k", "v i");
  mb_const(&mi, "x", TI32, 2, (int64_t[]){2, 4}, (int32_t[]){3, 1, 3, 2, 0, 5, -1, 5});
  mb_const(&mi, "k", TI64, 1, (int64_t[]){1}, (int64_t[]){3});
  mb_output(&mi, "v", TI32);
  mb_output(&mi, "i", TI64);
  pb_t bi = mb_model(&mi, 11);
  expect_folded("TopK int32 indices", &bi, 1, rlx_dt_int64(), 2, (int64_t[]){2, 3}, (double[]){0, 2, 3, 1, 3, 0});
  /* opset 1: k attribute */
  mb_t m = mb_begin("TopK", "x", "v i");
  mb_attr_int(&m, "k", 1);
  mb_const(&m, "x", TF32, 2, (int64_t[]){2, 4}, x);
  mb_output(&m, "v", TF32);
  mb_output(&m, "i", TI64);
  pb_t b = mb_model(&m, 1);
  expect_folded("TopK-1 k attribute", &b, 1, I64, 2, (int64_t[]){2, 1}, (double[]){0, 1});
}

static void test_resize_reverse(void) {
  /* the ONNX suite's upsample_scales_linear_align_corners: (2, 2) -> (4, 4) */
  mb_t m = mb_begin("Resize", "x - s", "y");
  mb_attr_str(&m, "mode", "linear");
  mb_attr_str(&m, "coordinate_transformation_mode", "align_corners");
  mb_const(&m, "x", TF32, 4, (int64_t[]){1, 1, 2, 2}, (float[]){1, 2, 3, 4});
  mb_const(&m, "s", TF32, 1, (int64_t[]){4}, (float[]){1, 1, 2, 2});
  mb_output(&m, "y", TF32);
  pb_t b = mb_model(&m, 13);
  static const double lin[16] = {1,        1.333333, 1.666667, 2,        1.666667, 2,        2.333333, 2.666667,
                                 2.333333, 2.666667, 3,        3.333333, 3,        3.333333, 3.666667, 4};
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* mod = import_ok(ctx, &b, "Resize linear");
  const rlx_relax_constant_t* c = mod ? folded_output(mod, 0) : NULL;
  if (c) { /* the reference values are rounded to 1e-6 */
    bool ok = c->ndim == 4 && c->shape[2] == 4 && c->shape[3] == 4;
    for (int i = 0; ok && i < 16; i++) ok = fabs(((const float*)c->data)[i] - lin[i]) < 1e-5;
    CHECK_MSG(ok, "Resize linear align_corners differs from the reference");
  }
  rlx_ctx_free(ctx);

  /* nearest, asymmetric, ceil: x index ceil(i / 2.5) clamped; sizes (1, 5) */
  m = mb_begin("Resize", "x - - s", "y");
  mb_attr_str(&m, "coordinate_transformation_mode", "asymmetric");
  mb_attr_str(&m, "nearest_mode", "ceil");
  mb_const(&m, "x", TF32, 2, (int64_t[]){1, 2}, (float[]){10, 20});
  mb_const(&m, "s", TI64, 1, (int64_t[]){2}, (int64_t[]){1, 5});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 13);
  expect_folded("Resize nearest ceil", &b, 0, F32, 2, (int64_t[]){1, 5}, (double[]){10, 20, 20, 20, 20});

  /* Upsample-9, nearest, integer scales: np.repeat */
  m = mb_begin("Upsample", "x s", "y");
  mb_const(&m, "x", TF32, 2, (int64_t[]){2, 1}, (float[]){1, 2});
  mb_const(&m, "s", TF32, 1, (int64_t[]){2}, (float[]){2, 3});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 9);
  expect_folded("Upsample nearest", &b, 0, F32, 2, (int64_t[]){4, 3}, (double[]){1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2});

  /* Upsample-7, linear, scales attribute: asymmetric coordinates i / 2 */
  m = mb_begin("Upsample", "x", "y");
  mb_attr_str(&m, "mode", "linear");
  pb_t a = {0};
  pb_str(&a, 1, "scales");
  pb_float(&a, 7, 1);
  pb_float(&a, 7, 2);
  pb_int(&a, 20, 6); /* FLOATS */
  pb_msg(&m.node, 5, &a);
  mb_const(&m, "x", TF32, 2, (int64_t[]){1, 2}, (float[]){1, 3});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 7);
  expect_folded("Upsample-7 linear", &b, 0, F32, 2, (int64_t[]){1, 4}, (double[]){1, 2, 3, 3});

  float x12[12];
  for (int i = 0; i < 12; i++) x12[i] = (float)i;
  m = mb_begin("ReverseSequence", "x l", "y");
  mb_attr_int(&m, "batch_axis", 0);
  mb_attr_int(&m, "time_axis", 1);
  mb_const(&m, "x", TF32, 2, (int64_t[]){3, 4}, x12);
  mb_const(&m, "l", TI64, 1, (int64_t[]){3}, (int64_t[]){4, 1, 2});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 10);
  expect_folded("ReverseSequence", &b, 0, F32, 2, (int64_t[]){3, 4}, (double[]){3, 2, 1, 0, 4, 5, 6, 7, 9, 8, 10, 11});
}

/* GridSample: bilinear with align_corners at corners and the center; nearest with
 * reflection for a point beyond the right edge (x = 2 reflects to column 1). */
static void test_grid_sample(void) {
  mb_t m = mb_begin("GridSample", "x g", "y");
  mb_attr_int(&m, "align_corners", 1);
  mb_const(&m, "x", TF32, 4, (int64_t[]){1, 1, 2, 2}, (float[]){1, 2, 3, 4});
  mb_const(&m, "g", TF32, 4, (int64_t[]){1, 1, 3, 2}, (float[]){-1, -1, 0, 0, 1, -1});
  mb_output(&m, "y", TF32);
  pb_t b = mb_model(&m, 16);
  expect_folded("GridSample bilinear", &b, 0, F32, 4, (int64_t[]){1, 1, 1, 3}, (double[]){1, 2.5, 2});

  m = mb_begin("GridSample", "x g", "y");
  mb_attr_str(&m, "mode", "nearest");
  mb_attr_str(&m, "padding_mode", "reflection");
  mb_const(&m, "x", TF32, 4, (int64_t[]){1, 1, 2, 2}, (float[]){1, 2, 3, 4});
  mb_const(&m, "g", TF32, 4, (int64_t[]){1, 1, 2, 2}, (float[]){1.5f, -1, -0.9f, 0.9f});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 16);
  expect_folded("GridSample nearest reflection", &b, 0, F32, 4, (int64_t[]){1, 1, 1, 2}, (double[]){2, 3});
}

/* Symbolic dims: main's result struct info (printed) for an input of shape (N, 2, 4). */
static void expect_sinfo(const char* what, pb_t* b, const char* want) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* mod = import_ok(ctx, b, what);
  const rlx_relax_func_t* f = NULL;
  for (int i = 0; mod && i < mod->n_funcs; i++)
    if (mod->funcs[i].kind == RLX_FUNC_RELAX) f = mod->funcs[i].func;
  if (f) CHECK_STREQ(rlx_sinfo_str(ctx, f->ret_sinfo), want);
  rlx_ctx_free(ctx);
}

static void test_symbolic(void) {
  static const int64_t xs[3] = {-1, 2, 4};
  mb_t m = mb_begin("Reshape", "x s", "y"); /* -1 is N * 8 / N = 8 */
  mb_input(&m, "x", TF32, 3, xs);
  mb_const(&m, "s", TI64, 1, (int64_t[]){2}, (int64_t[]){0, -1});
  mb_output(&m, "y", TF32);
  pb_t b = mb_model(&m, 13);
  expect_sinfo("Reshape (N, 2, 4) to (0, -1)", &b, "R.Tensor((N, 8), dtype=\"float32\")");

  m = mb_begin("Reshape", "x s", "y");
  mb_input(&m, "x", TF32, 3, xs);
  mb_const(&m, "s", TI64, 1, (int64_t[]){3}, (int64_t[]){-1, 4, 2});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 13);
  expect_sinfo("Reshape (N, 2, 4) to (-1, 4, 2)", &b, "R.Tensor((N, 4, 2), dtype=\"float32\")");

  m = mb_begin("Flatten", "x", "y");
  mb_input(&m, "x", TF32, 3, xs);
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 13);
  expect_sinfo("Flatten (N, 2, 4)", &b, "R.Tensor((N, 8), dtype=\"float32\")");

  m = mb_begin("Slice", "x s e a", "y");
  mb_input(&m, "x", TF32, 3, xs);
  mb_const(&m, "s", TI64, 1, (int64_t[]){1}, (int64_t[]){1});
  mb_const(&m, "e", TI64, 1, (int64_t[]){1}, (int64_t[]){INT64_MAX});
  mb_const(&m, "a", TI64, 1, (int64_t[]){1}, (int64_t[]){2});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 13);
  expect_sinfo("Slice (N, 2, 4)[:, :, 1:]", &b, "R.Tensor((N, 2, 3), dtype=\"float32\")");
}

/* Bad input: each gives an error naming the node ("n0") and the problem. */
static void test_errors(void) {
  static const int64_t xs[2] = {2, 3};
  /* a shape that is a graph input is read at run time (tests/python/test_onnx_dynamic.py), but
   * its length must be static */
  mb_t m = mb_begin("Reshape", "x s", "y");
  mb_input(&m, "x", TF32, 2, xs);
  mb_input(&m, "s", TI64, 2, (int64_t[]){1, 2});
  mb_output(&m, "y", TF32);
  pb_t b = mb_model(&m, 13);
  CHECK_ERR(import_err(&b, "m"), "node 'n0' (Reshape): input 1 ('s') must be a 1-d tensor of static length");

  m = mb_begin("Reshape", "x s", "y");
  mb_input(&m, "x", TF32, 2, xs);
  mb_const(&m, "s", TI64, 1, (int64_t[]){2}, (int64_t[]){-1, -1});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 13);
  CHECK_ERR(import_err(&b, "m"), "more than one -1");

  m = mb_begin("Gather", "x i", "y");
  mb_input(&m, "x", TF32, 2, xs);
  mb_const(&m, "i", TI64, 1, (int64_t[]){1}, (int64_t[]){-3});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 13);
  CHECK_ERR(import_err(&b, "m"), "index -3 is out of range for axis 0 of extent 2");

  m = mb_begin("Pad", "x p", "y");
  mb_attr_str(&m, "mode", "wrap");
  mb_input(&m, "x", TF32, 2, xs);
  mb_const(&m, "p", TI64, 1, (int64_t[]){4}, (int64_t[]){0, 1, 0, 1});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 19);
  CHECK_ERR(import_err(&b, "m"), "mode 'wrap' is not supported");

  m = mb_begin("Split", "x s", "p q");
  mb_input(&m, "x", TF32, 2, xs);
  mb_const(&m, "s", TI64, 1, (int64_t[]){2}, (int64_t[]){2, 2});
  mb_output(&m, "p", TF32);
  mb_output(&m, "q", TF32);
  b = mb_model(&m, 13);
  CHECK_ERR(import_err(&b, "m"), "split sizes add up to 4, the axis has extent 2");

  m = mb_begin("Transpose", "x", "y");
  mb_attr_ints(&m, "perm", 3, (int64_t[]){0, 1, 2});
  mb_input(&m, "x", TF32, 2, xs);
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 13);
  CHECK_ERR(import_err(&b, "m"), "perm has 3 values for an input of rank 2");

  m = mb_begin("Resize", "x - s", "y");
  mb_attr_int(&m, "antialias", 1);
  mb_input(&m, "x", TF32, 2, xs);
  mb_const(&m, "s", TF32, 1, (int64_t[]){2}, (float[]){1, 2});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 18);
  CHECK_ERR(import_err(&b, "m"), "antialias is not supported");

  m = mb_begin("DepthToSpace", "x", "y");
  mb_attr_int(&m, "blocksize", 2);
  mb_input(&m, "x", TF32, 4, (int64_t[]){1, 6, 2, 2});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 13);
  CHECK_ERR(import_err(&b, "m"), "channels 6 are not divisible by blocksize^2 = 4");
}

int main(void) {
  for (int i = 0; i < 24; i++) iota24[i] = (float)i;
  test_reshape_flatten_transpose();
  test_concat_split();
  test_squeeze_slice();
  test_expand_tile_pad();
  test_depth_space();
  test_gather_scatter();
  test_value_ops();
  test_topk();
  test_resize_reverse();
  test_grid_sample();
  test_symbolic();
  test_errors();
  TEST_MAIN_END();
}
