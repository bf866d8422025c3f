/* Concurrent use of one compiled model: 8 threads, each with its own VM over the same
 * shared object (one dlopen handle, so one copy of the kernels), run its own inputs many
 * times and must get exactly the outputs of a serial run. The model (tests/data/
 * vm_threads.py) has a convolution (the hand-written NCHWc kernels and their thread
 * pool, 2 kernel threads per VM) and a matmul with a symbolic batch (generated C), each
 * thread using a different batch size.
 *
 *   test_vm_threads                 compiles the model into a temporary directory, runs
 *   test_vm_threads --compile OUT   only compiles it to OUT (needs the compiler)
 *   test_vm_threads MODEL.so        runs an already compiled model
 * Built with RLX_RUNTIME_ONLY (the runtime alone, e.g. under ThreadSanitizer as
 * test_vm_threads_tsan) only the last form exists. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rlx/vm.h"
#include "test.h"
#ifndef RLX_RUNTIME_ONLY
#include "rlx/rlx.h"
#include "support/support.h"
#endif

enum { N_THREADS = 8, ITERS = 12, KERNEL_THREADS = 2 };

typedef struct {
  const char* so;
  int id;
  rlx_ndarray_t* out[2]; /* conv, mlp: the first run's outputs */
  int mismatches;        /* later runs that differed from the first */
  char err[512];         /* first error */
} job_t;

static int64_t batch_of(int id) { return 1 + id % 5; }

/* Runs both functions once on the inputs of job `id`. */
static rlx_status_t* run_once(rlx_vm_t* vm, int id, rlx_ndarray_t* out[2]) {
  int64_t xs[4] = {1, 3, 16, 16}, ms[2] = {batch_of(id), 64};
  rlx_ndarray_t *x = NULL, *m = NULL;
  rlx_status_t* st = rlx_ndarray_create(4, xs, rlx_dldtype(kDLFloat, 32, 1), NULL, &x);
  if (!st) st = rlx_ndarray_create(2, ms, rlx_dldtype(kDLFloat, 32, 1), NULL, &m);
  if (!st) st = rlx_ndarray_fill_random(&x->dl, 1000 + (uint64_t)id);
  if (!st) st = rlx_ndarray_fill_random(&m->dl, 2000 + (uint64_t)id);
  const char* fn[2] = {"conv", "mlp"};
  DLTensor* in[2] = {x ? &x->dl : NULL, m ? &m->dl : NULL};
  for (int f = 0; f < 2 && !st; f++) {
    int n = 0;
    rlx_ndarray_t** outs = NULL;
    st = rlx_vm_invoke(vm, fn[f], 1, &in[f], &n, &outs);
    if (!st && n != 1) st = rlx_status_create(RLX_INTERNAL, "%s: %d outputs", fn[f], n);
    if (!st) out[f] = outs[0];
    else
      for (int i = 0; i < n; i++) rlx_ndarray_release(outs[i]);
    free(outs);
  }
  rlx_ndarray_release(x);
  rlx_ndarray_release(m);
  return st;
}

static bool same(const rlx_ndarray_t* a, const rlx_ndarray_t* b) {
  size_t n = rlx_ndarray_nbytes(&a->dl);
  return a->dl.ndim == b->dl.ndim && n == rlx_ndarray_nbytes(&b->dl) &&
         memcmp(a->dl.shape, b->dl.shape, sizeof(int64_t) * (size_t)a->dl.ndim) == 0 &&
         memcmp(a->dl.data, b->dl.data, n) == 0;
}

static void* worker(void* p) {
  job_t* j = p;
  rlx_vm_t* vm = NULL;
  rlx_status_t* st = rlx_vm_load(j->so, 0, NULL, &vm);
  if (!st) rlx_vm_set_num_threads(vm, KERNEL_THREADS);
  for (int it = 0; it < ITERS && !st; it++) {
    rlx_ndarray_t* out[2] = {NULL, NULL};
    st = run_once(vm, j->id, out);
    for (int f = 0; f < 2 && !st; f++) {
      if (!j->out[f]) j->out[f] = rlx_ndarray_retain(out[f]);
      else if (!same(j->out[f], out[f])) j->mismatches++;
    }
    rlx_ndarray_release(out[0]);
    rlx_ndarray_release(out[1]);
  }
  if (st) snprintf(j->err, sizeof j->err, "%s", rlx_status_message(st));
  rlx_status_free(st);
  rlx_vm_free(vm);
  return NULL;
}

static void run_model(const char* so) {
  /* serial reference: one VM, every job's inputs in turn */
  rlx_ndarray_t* ref[N_THREADS][2] = {{NULL}};
  rlx_vm_t* vm = NULL;
  CHECK_OK(rlx_vm_load(so, 0, NULL, &vm));
  if (!vm) return;
  rlx_vm_set_num_threads(vm, KERNEL_THREADS);
  for (int i = 0; i < N_THREADS; i++) CHECK_OK(run_once(vm, i, ref[i]));
  rlx_vm_free(vm);

  job_t jobs[N_THREADS];
  pthread_t th[N_THREADS];
  memset(jobs, 0, sizeof jobs);
  for (int i = 0; i < N_THREADS; i++) {
    jobs[i].so = so;
    jobs[i].id = i;
    CHECK(pthread_create(&th[i], NULL, worker, &jobs[i]) == 0);
  }
  for (int i = 0; i < N_THREADS; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < N_THREADS; i++) {
    CHECK_MSG(!jobs[i].err[0], "thread %d: %s", i, jobs[i].err);
    CHECK_MSG(jobs[i].mismatches == 0, "thread %d: %d runs differ from its first", i, jobs[i].mismatches);
    for (int f = 0; f < 2; f++) {
      CHECK_MSG(ref[i][f] && jobs[i].out[f] && same(ref[i][f], jobs[i].out[f]),
                "thread %d, %s: differs from the serial run", i, f ? "mlp" : "conv");
      rlx_ndarray_release(ref[i][f]);
      rlx_ndarray_release(jobs[i].out[f]);
    }
  }
}

#ifndef RLX_RUNTIME_ONLY
static rlx_status_t* compile_model(const char* out_so) {
  char* text = NULL;
  size_t n = 0;
  RLX_RETURN_IF_ERROR(rlx_file_read("tests/data/vm_threads.py", &text, &n));
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  rlx_status_t* st = rlx_script_parse(ctx, text, "tests/data/vm_threads.py", &m);
  if (!st) st = rlx_relax_build(ctx, m, NULL, out_so);
  rlx_ctx_free(ctx);
  free(text);
  return st;
}
#endif

int main(int argc, char** argv) {
#ifndef RLX_RUNTIME_ONLY
  if (argc == 3 && strcmp(argv[1], "--compile") == 0) {
    CHECK_OK(compile_model(argv[2]));
    TEST_MAIN_END();
  }
  if (argc < 2) {
    char dir[] = "/tmp/rlx-vm-threads-XXXXXX", so[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(so, sizeof so, "%s/model.so", dir);
    rlx_status_t* st = compile_model(so);
    CHECK_OK(st);
    if (!test_failed_) run_model(so);
    unlink(so);
    rmdir(dir);
    TEST_MAIN_END();
  }
#endif
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL.so\n", argv[0]);
    return 2;
  }
  run_model(argv[1]);
  TEST_MAIN_END();
}
