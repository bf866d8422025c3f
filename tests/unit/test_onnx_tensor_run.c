/* ONNX "tensor" converters compiled and run: the data and index tensors are graph inputs, so
 * the kernels go through the whole pipeline (legalize, schedule, C, VM). Oracles: numpy
 * results written out below (ints exact, floats within 1e-5 relative), and for Resize cubic
 * the ONNX suite's expected output (test_resize_upsample_scales_cubic, 6 digits). */
#include <stdint.h>

#include "test_onnx_tensor_util.h"

#define F32 rlx_dt_float32()
#define I64 rlx_dt_int64()

/* Gather with run-time indices (negative ones wrap) and GatherND with batch_dims. */
static void test_gather(void) {
  mb_t m = mb_begin("Gather", "x i", "y");
  mb_attr_int(&m, "axis", 1);
  mb_input(&m, "x", TF32, 2, (int64_t[]){2, 3});
  mb_input(&m, "i", TI64, 1, (int64_t[]){3});
  mb_output(&m, "y", TF32);
  pb_t b = mb_model(&m, 13);
  rlx_ndarray_t* in[2] = {nd_new(TF32, 2, (int64_t[]){2, 3}, (float[]){0, 1, 2, 3, 4, 5}),
                          nd_new(TI64, 1, (int64_t[]){3}, (int64_t[]){-1, 0, -2})};
  rlx_ndarray_t** o = run_model(&b, "Gather", 2, in, 1);
  if (o) check_nd("Gather run-time indices", o[0], F32, 2, (int64_t[]){2, 3}, (double[]){2, 0, 1, 5, 3, 4});
  release_all(o, 1);
  rlx_ndarray_release(in[0]);
  rlx_ndarray_release(in[1]);

  /* GatherElements with out-of-range run-time indices: clipped into [-3, 3), no stray read */
  m = mb_begin("GatherElements", "x i", "y");
  mb_input(&m, "x", TF32, 1, (int64_t[]){3});
  mb_input(&m, "i", TI64, 1, (int64_t[]){4});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 13);
  in[0] = nd_new(TF32, 1, (int64_t[]){3}, (float[]){10, 11, 12});
  in[1] = nd_new(TI64, 1, (int64_t[]){4}, (int64_t[]){7, -9, -1, 1});
  o = run_model(&b, "GatherElements", 2, in, 1);
  if (o) check_nd("GatherElements clipped indices", o[0], F32, 1, (int64_t[]){4}, (double[]){12, 10, 12, 11});
  release_all(o, 1);
  rlx_ndarray_release(in[0]);
  rlx_ndarray_release(in[1]);

  m = mb_begin("GatherND", "x i", "y");
  mb_attr_int(&m, "batch_dims", 1);
  mb_input(&m, "x", TF32, 3, (int64_t[]){2, 2, 2});
  mb_input(&m, "i", TI64, 2, (int64_t[]){2, 1});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 13);
  in[0] = nd_new(TF32, 3, (int64_t[]){2, 2, 2}, (float[]){0, 1, 2, 3, 4, 5, 6, 7});
  in[1] = nd_new(TI64, 2, (int64_t[]){2, 1}, (int64_t[]){1, -2});
  o = run_model(&b, "GatherND", 2, in, 1);
  if (o) check_nd("GatherND batch_dims 1", o[0], F32, 2, (int64_t[]){2, 2}, (double[]){2, 3, 4, 5});
  release_all(o, 1);
  rlx_ndarray_release(in[0]);
  rlx_ndarray_release(in[1]);
}

/* ScatterND without reduction: the last of duplicate indices wins. */
static void test_scatter_nd(void) {
  mb_t m = mb_begin("ScatterND", "x i u", "y");
  mb_input(&m, "x", TF32, 2, (int64_t[]){3, 2});
  mb_input(&m, "i", TI64, 2, (int64_t[]){3, 1});
  mb_input(&m, "u", TF32, 2, (int64_t[]){3, 2});
  mb_output(&m, "y", TF32);
  pb_t b = mb_model(&m, 13);
  rlx_ndarray_t* in[3] = {nd_new(TF32, 2, (int64_t[]){3, 2}, (float[]){0, 1, 2, 3, 4, 5}),
                          nd_new(TI64, 2, (int64_t[]){3, 1}, (int64_t[]){0, -1, 0}),
                          nd_new(TF32, 2, (int64_t[]){3, 2}, (float[]){10, 11, 20, 21, 30, 31})};
  rlx_ndarray_t** o = run_model(&b, "ScatterND", 3, in, 1);
  if (o) check_nd("ScatterND duplicates", o[0], F32, 2, (int64_t[]){3, 2}, (double[]){30, 31, 2, 3, 20, 21});
  release_all(o, 1);
  for (int i = 0; i < 3; i++) rlx_ndarray_release(in[i]);
}

/* TopK on a run-time input (smallest, axis 0), both outputs; Split into two outputs. */
static void test_topk_split(void) {
  mb_t m = mb_begin("TopK", "x k", "v i");
  mb_attr_int(&m, "axis", 0);
  mb_attr_int(&m, "largest", 0);
  mb_input(&m, "x", TF32, 2, (int64_t[]){4, 2});
  mb_const(&m, "k", TI64, 1, (int64_t[]){1}, (int64_t[]){3});
  mb_output(&m, "v", TF32);
  mb_output(&m, "i", TI64);
  pb_t b = mb_model(&m, 11);
  /* columns (3, 1, 3, 2) and (0, 5, -1, 5) */
  rlx_ndarray_t* x = nd_new(TF32, 2, (int64_t[]){4, 2}, (float[]){3, 0, 1, 5, 3, -1, 2, 5});
  rlx_ndarray_t** o = run_model(&b, "TopK", 1, &x, 2);
  if (o) {
    check_nd("TopK values", o[0], F32, 2, (int64_t[]){3, 2}, (double[]){1, -1, 2, 0, 3, 5});
    check_nd("TopK indices", o[1], I64, 2, (int64_t[]){3, 2}, (double[]){1, 2, 3, 0, 0, 1});
  }
  release_all(o, 2);

  m = mb_begin("Split", "x", "p q");
  mb_attr_int(&m, "axis", -1);
  mb_input(&m, "x", TF32, 2, (int64_t[]){4, 2});
  mb_output(&m, "p", TF32);
  mb_output(&m, "q", TF32);
  b = mb_model(&m, 13);
  o = run_model(&b, "Split", 1, &x, 2);
  if (o) {
    check_nd("Split part 0", o[0], F32, 2, (int64_t[]){4, 1}, (double[]){3, 1, 3, 2});
    check_nd("Split part 1", o[1], F32, 2, (int64_t[]){4, 1}, (double[]){0, 5, -1, 5});
  }
  release_all(o, 2);
  rlx_ndarray_release(x);
}

/* Trilu with k as a graph input; ReverseSequence with run-time lengths. */
static void test_trilu_reverse(void) {
  mb_t m = mb_begin("Trilu", "x k", "y");
  mb_input(&m, "x", TF32, 2, (int64_t[]){3, 3});
  mb_input(&m, "k", TI64, 0, NULL);
  mb_output(&m, "y", TF32);
  pb_t b = mb_model(&m, 14);
  rlx_ndarray_t* in[2] = {nd_new(TF32, 2, (int64_t[]){3, 3}, (float[]){1, 2, 3, 4, 5, 6, 7, 8, 9}),
                          nd_new(TI64, 0, NULL, (int64_t[]){1})};
  rlx_ndarray_t** o = run_model(&b, "Trilu", 2, in, 1);
  if (o) check_nd("Trilu run-time k=1", o[0], F32, 2, (int64_t[]){3, 3}, (double[]){0, 2, 3, 0, 0, 6, 0, 0, 0});
  release_all(o, 1);
  rlx_ndarray_release(in[1]);

  m = mb_begin("ReverseSequence", "x l", "y"); /* time axis 0, batch axis 1 (the defaults) */
  mb_input(&m, "x", TF32, 2, (int64_t[]){3, 3});
  mb_input(&m, "l", TI64, 1, (int64_t[]){3});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 10);
  in[1] = nd_new(TI64, 1, (int64_t[]){3}, (int64_t[]){3, 2, 1});
  o = run_model(&b, "ReverseSequence", 2, in, 1);
  if (o) check_nd("ReverseSequence", o[0], F32, 2, (int64_t[]){3, 3}, (double[]){7, 5, 3, 4, 2, 6, 1, 8, 9});
  release_all(o, 1);
  rlx_ndarray_release(in[0]);
  rlx_ndarray_release(in[1]);
}

/* Slice with negative steps and Pad reflect + DepthToSpace on run-time data. */
static void test_slice_pad(void) {
  float x20[20];
  for (int i = 0; i < 20; i++) x20[i] = (float)i;
  mb_t m = mb_begin("Slice", "x s e a t", "y");
  mb_input(&m, "x", TF32, 2, (int64_t[]){4, 5});
  mb_const(&m, "s", TI64, 1, (int64_t[]){2}, (int64_t[]){-1, 4});
  mb_const(&m, "e", TI64, 1, (int64_t[]){2}, (int64_t[]){INT64_MIN, 0});
  mb_const(&m, "a", TI64, 1, (int64_t[]){2}, (int64_t[]){0, 1});
  mb_const(&m, "t", TI64, 1, (int64_t[]){2}, (int64_t[]){-3, -2});
  mb_output(&m, "y", TF32);
  pb_t b = mb_model(&m, 13);
  rlx_ndarray_t* x = nd_new(TF32, 2, (int64_t[]){4, 5}, x20);
  rlx_ndarray_t** o = run_model(&b, "Slice", 1, &x, 1);
  /* x[-1::-3, 4:0:-2] */
  if (o) check_nd("Slice negative steps", o[0], F32, 2, (int64_t[]){2, 2}, (double[]){19, 17, 4, 2});
  release_all(o, 1);

  m = mb_begin("Pad", "x p", "y");
  mb_attr_str(&m, "mode", "reflect");
  mb_input(&m, "x", TF32, 2, (int64_t[]){4, 5});
  mb_const(&m, "p", TI64, 1, (int64_t[]){4}, (int64_t[]){1, 0, 0, 2});
  mb_output(&m, "y", TF32);
  b = mb_model(&m, 13);
  o = run_model(&b, "Pad", 1, &x, 1);
  if (o) { /* np.pad(x, ((1, 0), (0, 2)), 'reflect'): rows 1, 0, 1, 2, 3; columns 0..4, 3, 2 */
    double want[35];
    static const int rows[5] = {1, 0, 1, 2, 3}, cols[7] = {0, 1, 2, 3, 4, 3, 2};
    for (int r = 0; r < 5; r++)
      for (int c = 0; c < 7; c++) want[r * 7 + c] = rows[r] * 5 + cols[c];
    check_nd("Pad reflect", o[0], F32, 2, (int64_t[]){5, 7}, want);
  }
  release_all(o, 1);
  rlx_ndarray_release(x);
}

static void test_resize_cubic(void) {
  mb_t m = mb_begin("Resize", "x - s", "y");
  mb_attr_str(&m, "mode", "cubic");
  mb_input(&m, "x", TF32, 4, (int64_t[]){1, 1, 4, 4});
  mb_const(&m, "s", TF32, 1, (int64_t[]){4}, (float[]){1, 1, 2, 2});
  mb_output(&m, "y", TF32);
  pb_t b = mb_model(&m, 13);
  float x16[16];
  for (int i = 0; i < 16; i++) x16[i] = (float)(i + 1);
  rlx_ndarray_t* x = nd_new(TF32, 4, (int64_t[]){1, 1, 4, 4}, x16);
  rlx_ndarray_t** o = run_model(&b, "Resize cubic", 1, &x, 1);
  static const double want[64] = {
      0.472656, 0.769531, 1.24609, 1.875,   2.28125, 2.91016, 3.38672, 3.68359, 1.66016, 1.95703, 2.43359,
      3.0625,   3.46875,  4.09766, 4.57422, 4.87109, 3.56641, 3.86328, 4.33984, 4.96875, 5.375,   6.00391,
      6.48047,  6.77734,  6.08203, 6.37891, 6.85547, 7.48438, 7.89062, 8.51953, 8.99609, 9.29297, 7.70703,
      8.00391,  8.48047,  9.10938, 9.51562, 10.1445, 10.6211, 10.918,  10.2227, 10.5195, 10.9961, 11.625,
      12.0312,  12.6602,  13.1367, 13.4336, 12.1289, 12.4258, 12.9023, 13.5312, 13.9375, 14.5664, 15.043,
      15.3398,  13.3164,  13.6133, 14.0898, 14.7188, 15.125,  15.7539, 16.2305, 16.5273};
  if (o && o[0]) { /* the reference has 6 significant digits */
    const float* y = o[0]->dl.data;
    bool shape_ok = o[0]->dl.ndim == 4 && o[0]->dl.shape[2] == 8 && o[0]->dl.shape[3] == 8;
    CHECK_MSG(shape_ok, "Resize cubic: wrong shape");
    double max_rel = 0;
    for (int i = 0; shape_ok && i < 64; i++) {
      double e = fabs(y[i] - want[i]) / fabs(want[i]);
      if (e > max_rel) max_rel = e;
    }
    printf("Resize cubic: max rel err %.3g\n", max_rel);
    CHECK_MSG(shape_ok && max_rel < 1e-5, "Resize cubic: max rel err %g", max_rel);
  }
  release_all(o, 1);
  rlx_ndarray_release(x);
}

int main(void) {
  test_gather();
  test_scatter_nd();
  test_topk_split();
  test_trilu_reverse();
  test_slice_pad();
  test_resize_cubic();
  TEST_MAIN_END();
}
