/* The interpreter as an oracle across the pipeline: a blocked function and its lowered form
 * (with and without the default schedule) give the same numbers, for constant and symbolic
 * shapes. Also checks the lowered functions are well-formed. */
#include <math.h>
#include <stdlib.h>

#include "driver/driver.h"
#include "test.h"
#include "test_tir_interp_builders.h"
#include "tir/interp.h"
#include "tir/schedule/schedule.h"
#include "transform/tir/transform.h"

static uint32_t rng = 99;
static float frand(void) {
  rng = rng * 1664525u + 1013904223u;
  return (float)((rng >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static void set_tensor(DLTensor* t, int64_t* shape, int d0, int d1, float* data) {
  memset(t, 0, sizeof(*t));
  shape[0] = d0;
  shape[1] = d1;
  t->data = data;
  t->device.device_type = kDLCPU;
  t->ndim = 2;
  t->dtype.code = kDLFloat;
  t->dtype.bits = 32;
  t->dtype.lanes = 1;
  t->shape = shape;
}

/* Runs f and g on the same random M x K, K x N inputs; returns the max abs difference. */
static double compare(const rlx_tir_func_t* f, const rlx_tir_func_t* g, int M, int N, int K) {
  float* a = malloc(sizeof(float) * (size_t)(M * K));
  float* b = malloc(sizeof(float) * (size_t)(K * N));
  float* d1 = calloc((size_t)(M * N), sizeof(float));
  float* d2 = calloc((size_t)(M * N), sizeof(float));
  for (int i = 0; i < M * K; i++) a[i] = frand();
  for (int i = 0; i < K * N; i++) b[i] = frand();
  DLTensor ta, tb, td;
  int64_t sa[2], sb[2], sd[2];
  set_tensor(&ta, sa, M, K, a);
  set_tensor(&tb, sb, K, N, b);
  set_tensor(&td, sd, M, N, d1);
  DLTensor* args[3] = {&ta, &tb, &td};
  double err = INFINITY;
  rlx_status_t* st = rlx_tir_interpret(f, args, 3);
  if (!st) {
    td.data = d2;
    st = rlx_tir_interpret(g, args, 3);
  }
  if (st) {
    fprintf(stderr, "interpret: %s\n", rlx_status_message(st));
    rlx_status_free(st);
  } else {
    err = 0;
    for (int i = 0; i < M * N; i++) err = fmax(err, fabs((double)d1[i] - (double)d2[i]));
  }
  free(a);
  free(b);
  free(d1);
  free(d2);
  return err;
}


typedef rlx_status_t* (*pass_fn_t)(rlx_ctx_t*, const rlx_tir_func_t*, rlx_tir_func_t**);

/* Every stage of the pipeline, one pass at a time: well-formed and numerically unchanged. */
static void test_stages(rlx_ctx_t* c, rlx_expr_t* M, int m) {
  rlx_tir_func_t* f = tb_matmul_relu(c, M, tb_i(c, 32), tb_i(c, 24), 0.0);
  static const struct {
    const char* name;
    pass_fn_t fn;
  } passes[] = {{"default_schedule", rlx_tir_default_schedule}, {"lower_blocks", rlx_tir_lower_blocks},
                {"flatten_buffers", rlx_tir_flatten_buffers},   {"unroll_loops", rlx_tir_unroll_loops},
                {"vectorize_loops", rlx_tir_vectorize_loops},   {"simplify", rlx_tir_simplify}};
  const rlx_tir_func_t* cur = f;
  for (size_t p = 0; p < sizeof(passes) / sizeof(passes[0]); p++) {
    rlx_tir_func_t* next = NULL;
    rlx_status_t* st = passes[p].fn(c, cur, &next);
    CHECK_MSG(!st, "%s: %s", passes[p].name, rlx_status_message(st));
    rlx_status_free(st);
    if (!next) return;
    st = rlx_tir_verify(next);
    CHECK_MSG(!st, "verify after %s: %s", passes[p].name, rlx_status_message(st));
    rlx_status_free(st);
    double e = compare(f, next, m, 32, 24);
    CHECK_MSG(e <= 1e-5, "after %s: max abs error %g", passes[p].name, e);
    cur = next;
  }
}

int main(void) {
  rlx_ctx_t* c = rlx_ctx_create();
  for (int sched = 0; sched < 2; sched++) {
    rlx_tir_func_t* f = tb_matmul_relu(c, tb_i(c, 20), tb_i(c, 24), tb_i(c, 12), 0.0);
    rlx_tir_func_t* g = NULL;
    CHECK_OK(rlx_tir_lower(c, f, sched == 1, &g));
    if (!g) continue;
    CHECK_OK(rlx_tir_verify(g));
    /* the schedule may reorder the reduction: allow float32 rounding differences */
    double e = compare(f, g, 20, 24, 12);
    CHECK_MSG(e <= 1e-5, "constant shapes, schedule=%d: max abs error %g", sched, e);
    rlx_var_t* M = rlx_ir_var(c, "M", rlx_dt_int64());
    rlx_var_t* N = rlx_ir_var(c, "N", rlx_dt_int64());
    rlx_tir_func_t* fs = tb_matmul_relu(c, tb_v(M), tb_v(N), tb_i(c, 16), 0.0);
    rlx_tir_func_t* gs = NULL;
    CHECK_OK(rlx_tir_lower(c, fs, sched == 1, &gs));
    if (!gs) continue;
    CHECK_OK(rlx_tir_verify(gs));
    e = compare(fs, gs, 7, 33, 16);
    CHECK_MSG(e <= 1e-5, "symbolic 7x33, schedule=%d: max abs error %g", sched, e);
    e = compare(fs, gs, 16, 64, 16);
    CHECK_MSG(e <= 1e-5, "symbolic 16x64, schedule=%d: max abs error %g", sched, e);
  }
  test_stages(c, tb_i(c, 20), 20);
  test_stages(c, &rlx_ir_var(c, "M", rlx_dt_int64())->hdr, 13);
  rlx_ctx_free(c);
  TEST_MAIN_END();
}
