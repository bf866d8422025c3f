/* Well-formedness after schedule primitives: matmul+relu (symbolic M) through split with a
 * tail, reorder, cache_write + reverse_compute_at, decompose_reduction, compute_at of the relu,
 * parallel/vectorize/unroll, then lowering. Every intermediate function must verify and
 * compute the same numbers as the original (reference interpreter). */
#include <math.h>
#include <stdlib.h>

#include "driver/driver.h"
#include "test.h"
#include "test_tir_interp_builders.h"
#include "tir/interp.h"
#include "tir/schedule/schedule.h"
#include "transform/tir/transform.h"

static uint32_t rng = 5;
static float frand(void) {
  rng = rng * 1664525u + 1013904223u;
  return (float)((rng >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static void tensor2(DLTensor* t, int64_t* shape, int d0, int d1, float* data) {
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

/* max |f - g| on random inputs of M x 24 @ 24 x 20; INFINITY when either fails. */
static double diff(const rlx_tir_func_t* f, const rlx_tir_func_t* g, int M) {
  enum { N = 20, K = 24 };
  float* a = malloc(sizeof(float) * (size_t)(M * K));
  float* b = malloc(sizeof(float) * (size_t)(K * N));
  float* d1 = calloc((size_t)(M * N), sizeof(float));
  float* d2 = calloc((size_t)(M * N), sizeof(float));
  for (int i = 0; i < M * K; i++) a[i] = frand();
  for (int i = 0; i < K * N; i++) b[i] = frand();
  DLTensor ta, tb, td;
  int64_t sa[2], sb[2], sd[2];
  tensor2(&ta, sa, M, K, a);
  tensor2(&tb, sb, K, N, b);
  tensor2(&td, sd, M, N, d1);
  DLTensor* args[3] = {&ta, &tb, &td};
  double e = INFINITY;
  rlx_status_t* st = rlx_tir_interpret(f, args, 3);
  if (!st) {
    td.data = d2;
    st = rlx_tir_interpret(g, args, 3);
  }
  if (st) {
    fprintf(stderr, "interpret: %s\n", rlx_status_message(st));
    rlx_status_free(st);
  } else {
    e = 0;
    for (int i = 0; i < M * N; i++) e = fmax(e, fabs((double)d1[i] - (double)d2[i]));
  }
  free(a);
  free(b);
  free(d1);
  free(d2);
  return e;
}

static int step;
static void check_stage(const rlx_tir_func_t* ref, const rlx_tir_func_t* f, const char* what) {
  step++;
  rlx_status_t* st = rlx_tir_verify(f);
  CHECK_MSG(!st, "step %d (%s): %s", step, what, rlx_status_message(st));
  rlx_status_free(st);
  double e1 = diff(ref, f, 13), e2 = diff(ref, f, 32);
  CHECK_MSG(e1 <= 1e-5 && e2 <= 1e-5, "step %d (%s): max abs error %g / %g", step, what, e1, e2);
}

#define STEP(expr, what)                     \
  do {                                       \
    CHECK_OK(expr);                          \
    check_stage(ref, s->func, what);         \
  } while (0)

int main(void) {
  rlx_ctx_t* c = rlx_ctx_create();
  rlx_var_t* M = rlx_ir_var(c, "M", rlx_dt_int64());
  rlx_tir_func_t* ref = tb_matmul_relu(c, tb_v(M), tb_i(c, 20), tb_i(c, 24), 0.0);
  check_stage(ref, ref, "original");
  rlx_schedule_t* s = rlx_schedule_create(c, ref);
  rlx_var_t** loops;
  int n;
  CHECK_OK(rlx_sched_get_loops(s, "C", &loops, &n));
  if (n != 3) {
    rlx_ctx_free(c);
    TEST_MAIN_END();
  }
  rlx_var_t *i = loops[0], *j = loops[1], *k = loops[2];
  rlx_var_t* io_ii[2];
  STEP(rlx_sched_split(s, i, 2, (int64_t[]){-1, 8}, io_ii), "split i by 8 (symbolic tail)");
  rlx_var_t* ko_ki[2];
  STEP(rlx_sched_split(s, k, 2, (int64_t[]){-1, 4}, ko_ki), "split k by 4");
  STEP(rlx_sched_reorder(s, 4, (rlx_var_t*[]){io_ii[0], ko_ki[0], io_ii[1], j}), "reorder io, ko, ii, j");
  const char* wb = NULL;
  STEP(rlx_sched_cache_write(s, "C", 0, "local", &wb), "cache_write C");
  if (wb) STEP(rlx_sched_reverse_compute_at(s, wb, io_ii[0]), "reverse_compute_at write-back");
  const char* ib = NULL;
  STEP(rlx_sched_decompose_reduction(s, "C", ko_ki[0], &ib), "decompose_reduction");
  STEP(rlx_sched_vectorize(s, j), "vectorize j");
  STEP(rlx_sched_unroll(s, ko_ki[1]), "unroll ki");
  STEP(rlx_sched_parallel(s, io_ii[0]), "parallel io");
  rlx_var_t** dl;
  int nd;
  CHECK_OK(rlx_sched_get_loops(s, "D", &dl, &nd));
  if (nd == 2) {
    rlx_var_t* f1;
    STEP(rlx_sched_fuse(s, 2, dl, &f1), "fuse relu loops");
    rlx_var_t* fo_fi[2];
    STEP(rlx_sched_split(s, f1, 2, (int64_t[]){-1, 16}, fo_fi), "split fused by 16");
    STEP(rlx_sched_vectorize(s, fo_fi[1]), "vectorize relu");
  }
  rlx_tir_func_t* low = NULL;
  CHECK_OK(rlx_tir_lower(c, s->func, false, &low));
  if (low) check_stage(ref, low, "lowered");
  rlx_ctx_free(c);
  TEST_MAIN_END();
}
