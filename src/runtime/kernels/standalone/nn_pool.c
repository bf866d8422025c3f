/* The kernels' pool API (nn_kernels.h: rlx_nn_parallel, rlx_nn_thread_buffer,
 * rlx_nn_num_threads) for a plain C program: what a Model Library Format archive ships as
 * runtime/src/nn_pool.c in place of the pthread pool. No threads of its own and no heap:
 *
 * - Scratch comes from an arena the AOT entry point hands over before its first kernel
 *   call (rlx_nn_standalone_arena: a region of the model's workspace, sized at export time
 *   by rlx_nn_scratch_bytes for `max_threads` participants). A kernel's
 *   rlx_nn_thread_buffer takes the front of it, its rlx_nn_parallel the per-participant
 *   buffers after that; the next kernel starts over. A call that does not fit returns -1
 *   (NULL), which the kernel's wrapper reports — never an overrun.
 * - Work items run on OpenMP threads (at most max_threads, dynamically claimed) when the
 *   program is built with -fopenmp, and in order on the caller otherwise.
 *
 * The arena is per calling thread (_Thread_local), so two threads may run two models. */
#include <stddef.h>
#include <stdint.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "nn_kernels.h"

typedef struct {
  uint8_t* base;
  size_t size;
  size_t used; /* bytes taken by rlx_nn_thread_buffer for the running kernel */
  int max_threads;
} arena_t;

static _Thread_local arena_t arena;

/* Hands the caller's kernels `size` bytes at `base` (64-byte aligned) for at most
 * `max_threads` participants. Called by the AOT entry point (tvmgen_NAME_run). */
void rlx_nn_standalone_arena(void* base, size_t size, int max_threads) {
  arena.base = base;
  arena.size = base ? size : 0;
  arena.used = 0;
  arena.max_threads = max_threads < 1 ? 1 : max_threads;
}

static size_t round64(size_t n) { return (n + 63) / 64 * 64; }

void rlx_nn_set_num_threads(int n) { (void)n; /* OMP_NUM_THREADS / omp_set_num_threads decide */ }

int rlx_nn_num_threads(void) {
  int n = 1;
#ifdef _OPENMP
  if (!omp_in_parallel()) n = omp_get_max_threads();
#endif
  int cap = arena.max_threads < 1 ? 1 : arena.max_threads;
  return n < cap ? n : cap;
}

void* rlx_nn_thread_buffer(size_t n) {
  arena.used = 0;
  if (!arena.base || round64(n) > arena.size) return NULL;
  arena.used = round64(n);
  return arena.base;
}

int rlx_nn_parallel(int64_t n_items, size_t scratch_bytes, rlx_nn_task_fn_t fn, void* ctx) {
  uint8_t* base = arena.base ? arena.base + arena.used : NULL;
  size_t room = arena.base ? arena.size - arena.used : 0;
  arena.used = 0; /* this kernel's dispatch: the next one starts over */
  if (n_items <= 0) return 0;
  const size_t per = round64(scratch_bytes);
  int nt = rlx_nn_num_threads();
  if (nt > n_items) nt = (int)n_items;
  if (per && (!base || (size_t)nt * per > room)) {
    if (!base || per > room) return -1;
    nt = (int)(room / per); /* fewer participants fit */
  }
#ifdef _OPENMP
  if (nt > 1) {
#pragma omp parallel num_threads(nt)
    {
      void* s = per ? base + (size_t)omp_get_thread_num() * per : NULL;
#pragma omp for schedule(dynamic, 1)
      for (int64_t i = 0; i < n_items; i++) fn(ctx, i, s);
    }
    return 0;
  }
#endif
  for (int64_t i = 0; i < n_items; i++) fn(ctx, i, per ? base : NULL);
  return 0;
}
