/* rlx-run — runs a compiled model with the runtime alone (librlx_runtime: no compiler, no
 * ONNX, no protobuf), as a program deployed on a device would: what the aarch64 build runs
 * under qemu, and the smallest complete example of the runtime API.
 *
 *   rlx-run MODEL.so [-e FUNC] [-i IN.npy]... [-o OUTDIR] [--threads N] [--repeat N]
 *
 * Loads the model (its recorded target is checked against this CPU first), calls FUNC
 * (default main) on the .npy inputs, writes OUTDIR/output_0.npy ... (default: the current
 * directory); --repeat N times N more calls and prints median_ms=. Errors print one line
 * "rlx-run: error: ..." and exit 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rlx/runtime.h"
#include "rlx/vm.h"

enum { MAX_INPUTS = 64 };

typedef struct {
  const char* model;
  const char* func;
  const char* outdir;
  const char* inputs[MAX_INPUTS];
  int n_inputs, threads, repeat;
} args_t;

static RLX_MUST_USE rlx_status_t* parse(int argc, char** argv, args_t* a) {
  memset(a, 0, sizeof(*a));
  a->func = "main";
  a->outdir = ".";
  for (int i = 1; i < argc; i++) {
    const char* s = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(s, "-e") == 0 || strcmp(s, "-i") == 0 || strcmp(s, "-o") == 0 || strcmp(s, "--threads") == 0 ||
        strcmp(s, "--repeat") == 0) {
      if (!v) return rlx_status_create(RLX_INVALID_ARGUMENT, "%s needs a value", s);
      i++;
      if (strcmp(s, "-e") == 0) a->func = v;
      else if (strcmp(s, "-o") == 0) a->outdir = v;
      else if (strcmp(s, "-i") == 0) {
        if (a->n_inputs == MAX_INPUTS) return rlx_status_create(RLX_INVALID_ARGUMENT, "too many inputs");
        a->inputs[a->n_inputs++] = v;
      } else {
        char* end;
        long n = strtol(v, &end, 10);
        if (*end || n < 1 || n > 100000) return rlx_status_create(RLX_INVALID_ARGUMENT, "%s expects a count, got '%s'", s, v);
        if (strcmp(s, "--threads") == 0) a->threads = (int)n;
        else a->repeat = (int)n;
      }
    } else if (s[0] == '-') {
      return rlx_status_create(RLX_INVALID_ARGUMENT, "unknown option '%s'", s);
    } else if (!a->model) {
      a->model = s;
    } else {
      return rlx_status_create(RLX_INVALID_ARGUMENT, "unexpected argument '%s'", s);
    }
  }
  if (!a->model)
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "usage: rlx-run MODEL.so [-e FUNC] [-i IN.npy]... [-o OUTDIR] [--threads N] [--repeat N]");
  return NULL;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void* x, const void* y) {
  double a = *(const double*)x, b = *(const double*)y;
  return a < b ? -1 : a > b;
}

/* One call; outputs released unless out_* are given. */
static RLX_MUST_USE rlx_status_t* call(rlx_vm_t* vm, const args_t* a, DLTensor** ins, int* out_n, rlx_ndarray_t*** out) {
  int n = 0;
  rlx_ndarray_t** outs = NULL;
  RLX_RETURN_IF_ERROR(rlx_vm_invoke(vm, a->func, a->n_inputs, ins, &n, &outs));
  if (out) {
    *out_n = n;
    *out = outs;
    return NULL;
  }
  for (int i = 0; i < n; i++) rlx_ndarray_release(outs[i]);
  free(outs);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* run(const args_t* a) {
  rlx_vm_t* vm = NULL;
  RLX_RETURN_IF_ERROR(rlx_vm_load(a->model, 0, NULL, &vm));
  if (a->threads) rlx_vm_set_num_threads(vm, a->threads);
  rlx_ndarray_t* in[MAX_INPUTS] = {0};
  DLTensor* ins[MAX_INPUTS];
  rlx_status_t* st = NULL;
  for (int i = 0; i < a->n_inputs && !st; i++) {
    st = rlx_npy_load(a->inputs[i], &in[i]);
    if (!st) ins[i] = &in[i]->dl;
  }
  int n = 0;
  rlx_ndarray_t** outs = NULL;
  if (!st) st = call(vm, a, ins, &n, &outs);
  for (int i = 0; i < n && !st; i++) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/output_%d.npy", a->outdir, i);
    st = rlx_npy_save(path, &outs[i]->dl);
  }
  for (int i = 0; i < n; i++) rlx_ndarray_release(outs[i]);
  free(outs);
  if (!st && a->repeat) {
    double* t = malloc(sizeof(double) * (size_t)a->repeat);
    if (!t) st = rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory");
    for (int r = 0; r < a->repeat && !st; r++) {
      double t0 = now_ms();
      st = call(vm, a, ins, NULL, NULL);
      t[r] = now_ms() - t0;
    }
    if (!st) {
      qsort(t, (size_t)a->repeat, sizeof(double), cmp_double);
      double med = a->repeat % 2 ? t[a->repeat / 2] : 0.5 * (t[a->repeat / 2 - 1] + t[a->repeat / 2]);
      printf("median_ms=%.4f\n", med);
    }
    free(t);
  }
  for (int i = 0; i < a->n_inputs; i++) rlx_ndarray_release(in[i]);
  rlx_vm_free(vm);
  return st;
}

int main(int argc, char** argv) {
  args_t a;
  rlx_status_t* st = parse(argc, argv, &a);
  if (!st) st = run(&a);
  if (st) {
    fprintf(stderr, "rlx-run: error: %s\n", rlx_status_message(st));
    rlx_status_free(st);
    return 1;
  }
  return 0;
}
