/* The kernels' thread pool (nn_kernels.h: rlx_nn_parallel).
 *
 * One process-wide pool of worker threads, made on first use. A call publishes a job (a
 * function over item indices), wakes the workers (they spin briefly, then sleep on a
 * condition variable), and the caller itself claims items from an atomic counter like any
 * worker. The caller waits only for items that were claimed: a worker that the OS has not
 * scheduled yet never holds the call back — the caller does its share — which keeps two
 * threads useful on a machine shared with other processes (an OpenMP barrier waits for
 * every thread to arrive). Each participant has its own scratch buffer, kept and grown
 * across calls, so kernels do not allocate per call.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nn_kernels.h"

enum { MAX_THREADS = 64 };
/* How long an idle worker spins for the next job before it sleeps: longer than the gap
 * between two kernel calls of a model (a few microseconds of VM work), so a network's
 * consecutive layers never pay a futex wake-up (tens of microseconds each). */
static const int64_t SPIN_NS_DEFAULT = 300000;
static atomic_llong spin_ns = -1; /* RLX_POOL_SPIN_US overrides the default (0: sleep at once) */

static int64_t spin_budget(void) {
  int64_t v = atomic_load(&spin_ns);
  if (v < 0) {
    const char* e = getenv("RLX_POOL_SPIN_US");
    v = e ? strtoll(e, NULL, 10) * 1000 : SPIN_NS_DEFAULT;
    v = v < 0 ? 0 : v;
    atomic_store(&spin_ns, v);
  }
  return v;
}

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

typedef struct {
  rlx_nn_task_fn_t fn;
  void* ctx;
  int64_t n_items;
  size_t scratch;
  int nt; /* participants: the caller (0) and workers 1 .. nt-1 */
  atomic_int_fast64_t next[MAX_THREADS]; /* next unclaimed item of each participant's range */
  atomic_int_fast64_t done;
  atomic_int failed;
  atomic_int refs; /* workers that picked the job up and have not let go */
} job_t;

typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t wake;
  int n_threads;  /* wanted, caller included */
  int n_workers;  /* started (detached; they live as long as the process) */
  atomic_uint gen; /* bumped per job */
  job_t* job;      /* current job or NULL; guarded by mu */
  void* scratch[MAX_THREADS];
  size_t scratch_size[MAX_THREADS];
  pthread_mutex_t call_mu; /* one job at a time */
} pool_t;

static pool_t pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, NULL, {0}, {0},
                      PTHREAD_MUTEX_INITIALIZER};

/* Participant i's scratch of at least n bytes, or NULL. */
static void* scratch_of(int i, size_t n) {
  if (n == 0) return NULL;
  if (pool.scratch_size[i] < n) {
    free(pool.scratch[i]);
    size_t sz = (n + 4095) / 4096 * 4096;
    pool.scratch[i] = aligned_alloc(64, sz);
    pool.scratch_size[i] = pool.scratch[i] ? sz : 0;
  }
  return pool.scratch[i];
}

/* Range r of a job's items: [range_start(r), range_start(r + 1)). */
static int64_t range_start(const job_t* j, int r) { return j->n_items * r / j->nt; }

/* Claims and runs items until none are left; s is the participant's scratch. Participant
 * `who` first claims the items of its own contiguous range, in order, then those left in
 * the others' ranges (a participant that the OS has not run yet is never waited for). A
 * kernel's consecutive items touch neighbouring data (rows of a plane, a group's weights),
 * and consecutive layers split their items alike, so each core mostly reads what it wrote
 * itself, from its own L2, instead of every other item's data crossing between cores.
 * Without scratch (allocation failed) items are still claimed, skipped and the job marked
 * failed, so that nobody waits for them. */
static void run_items(job_t* j, int who, void* s) {
  bool ok = !j->scratch || s;
  if (!ok) atomic_store(&j->failed, 1);
  int64_t mine = 0;
  for (int k = 0; k < j->nt; k++) {
    const int r = (who + k) % j->nt;
    const int64_t end = range_start(j, r + 1);
    int64_t i;
    while ((i = atomic_fetch_add(&j->next[r], 1)) < end) {
      if (ok) j->fn(j->ctx, i, s);
      mine++;
    }
  }
  atomic_fetch_add(&j->done, mine); /* once: the caller waits for claimed items only */
}

static void* worker(void* arg) {
  int who = (int)(intptr_t)arg;
  unsigned seen = 0; /* a job published before this thread ran is still picked up */
  for (;;) {
    int64_t t0 = now_ns(), budget = spin_budget();
    for (int k = 0; budget > 0 && atomic_load_explicit(&pool.gen, memory_order_acquire) == seen; k++) {
      cpu_relax();
      if ((k & 63) == 63 && now_ns() - t0 > budget) break;
    }
    pthread_mutex_lock(&pool.mu);
    while (atomic_load(&pool.gen) == seen) pthread_cond_wait(&pool.wake, &pool.mu);
    seen = atomic_load(&pool.gen);
    job_t* j = pool.job;
    bool mine = j && who < j->nt;
    if (mine) atomic_fetch_add(&j->refs, 1);
    pthread_mutex_unlock(&pool.mu);
    if (!mine) continue;
    run_items(j, who, scratch_of(who, j->scratch));
    atomic_fetch_sub(&j->refs, 1);
  }
  return NULL;
}

static int default_threads(void) {
  const char* e = getenv("OMP_NUM_THREADS");
  long n = e ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

void rlx_nn_set_num_threads(int n) {
  pthread_mutex_lock(&pool.call_mu);
  pool.n_threads = n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : n;
  pthread_mutex_unlock(&pool.call_mu);
}

int rlx_nn_num_threads(void) {
  pthread_mutex_lock(&pool.call_mu);
  if (pool.n_threads == 0) pool.n_threads = default_threads();
  int n = pool.n_threads;
  pthread_mutex_unlock(&pool.call_mu);
  return n;
}

/* Waits until *v reaches n: the items still running were claimed by workers that are
 * running them, so it spins (pause) rather than yield. sched_yield on a core shared with a
 * low-priority process hands it that core for a whole scheduler tick (up to 4 ms), which
 * made two-thread runs slower than one thread on a busy machine; only a wait past a
 * millisecond (a worker preempted mid-item) yields. */
static void wait_for(atomic_int_fast64_t* v, int64_t n) {
  int64_t t0 = 0;
  for (int k = 0; atomic_load_explicit(v, memory_order_acquire) < n; k++) {
    cpu_relax();
    if ((k & 255) == 255) {
      if (!t0) t0 = now_ns();
      else if (now_ns() - t0 > 1000000) sched_yield();
    }
  }
}

int rlx_nn_parallel(int64_t n_items, size_t scratch_bytes, rlx_nn_task_fn_t fn, void* ctx) {
  if (n_items <= 0) return 0;
  if (pthread_mutex_trylock(&pool.call_mu) != 0) {
    /* another thread's job is running (one VM per thread): run this one alone */
    void* s = scratch_bytes ? aligned_alloc(64, (scratch_bytes + 63) / 64 * 64) : NULL;
    if (scratch_bytes && !s) return -1;
    for (int64_t i = 0; i < n_items; i++) fn(ctx, i, s);
    free(s);
    return 0;
  }
  if (pool.n_threads == 0) pool.n_threads = default_threads();
  int nt = pool.n_threads < n_items ? pool.n_threads : (int)n_items;
  while (pool.n_workers < nt - 1) { /* workers 1.. (the caller is participant 0) */
    pthread_t t;
    if (pthread_create(&t, NULL, worker, (void*)(intptr_t)(pool.n_workers + 1)) != 0) break;
    pthread_detach(t);
    pool.n_workers++;
  }
  nt = nt < pool.n_workers + 1 ? nt : pool.n_workers + 1;
  job_t j;
  j.fn = fn, j.ctx = ctx, j.n_items = n_items, j.scratch = scratch_bytes, j.nt = nt;
  for (int r = 0; r < nt; r++) atomic_init(&j.next[r], range_start(&j, r));
  atomic_init(&j.done, 0);
  atomic_init(&j.failed, 0);
  atomic_init(&j.refs, 0);
  if (nt > 1) {
    pthread_mutex_lock(&pool.mu);
    pool.job = &j;
    atomic_fetch_add_explicit(&pool.gen, 1, memory_order_release);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.mu);
  }
  run_items(&j, 0, scratch_of(0, scratch_bytes));
  if (nt > 1) {
    wait_for(&j.done, n_items); /* only claimed items remain */
    pthread_mutex_lock(&pool.mu);
    pool.job = NULL;
    pthread_mutex_unlock(&pool.mu);
    while (atomic_load(&j.refs) > 0) cpu_relax(); /* workers still holding &j let go (a few instructions) */
  }
  pthread_mutex_unlock(&pool.call_mu);
  return atomic_load(&j.failed) ? -1 : 0;
}

/* ---- per-thread state of kernel callers (freed when the thread exits): the buffer of
 * rlx_nn_thread_buffer and the stack of blocks of rlx_kernel_alloc */
enum { KSTACK_DEPTH = 32 };
typedef struct {
  void* p; /* rlx_nn_thread_buffer */
  size_t size;
  void* blk[KSTACK_DEPTH]; /* rlx_kernel_alloc: one block per nesting depth */
  size_t cap[KSTACK_DEPTH];
  int depth;
} tls_t;

static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;

static void tls_free(void* v) {
  tls_t* t = v;
  free(t->p);
  for (int i = 0; i < KSTACK_DEPTH; i++) free(t->blk[i]);
  free(t);
}

static void tls_init(void) { pthread_key_create(&tls_key, tls_free); }

/* This thread's state, made on first use; NULL when it cannot be. */
static tls_t* tls_get(void) {
  pthread_once(&tls_once, tls_init);
  tls_t* t = pthread_getspecific(tls_key);
  if (!t) {
    t = calloc(1, sizeof(*t));
    if (t && pthread_setspecific(tls_key, t) != 0) {
      free(t);
      t = NULL;
    }
  }
  return t;
}

void* rlx_nn_thread_buffer(size_t n) {
  tls_t* b = tls_get();
  if (!b) return NULL;
  if (b->size < n) {
    free(b->p);
    size_t sz = (n + 4095) / 4096 * 4096;
    b->p = aligned_alloc(64, sz);
    b->size = b->p ? sz : 0;
  }
  return b->p;
}

/* A generated kernel's temporaries are scoped blocks, allocated and freed last-in first-out
 * on one thread: each depth of this thread's stack keeps its block (grown when a larger one
 * is asked for) across calls, so a model run again allocates nothing. Past the stack's depth,
 * or where the thread's state cannot be made, the heap serves. */
void* rlx_kernel_alloc(size_t bytes) {
  size_t sz = bytes ? (bytes + 4095) / 4096 * 4096 : 4096;
  tls_t* k = tls_get();
  if (!k || k->depth >= KSTACK_DEPTH) return aligned_alloc(64, sz);
  int d = k->depth;
  if (k->cap[d] < sz) {
    free(k->blk[d]);
    k->blk[d] = aligned_alloc(64, sz);
    k->cap[d] = k->blk[d] ? sz : 0;
    if (!k->blk[d]) return NULL;
  }
  k->depth++;
  return k->blk[d];
}

void rlx_kernel_free(void* p) {
  if (!p) return;
  tls_t* k = pthread_getspecific(tls_key);
  if (k && k->depth > 0 && k->blk[k->depth - 1] == p) {
    k->depth--;
    return;
  }
  free(p); /* a heap block (past the stack's depth) */
}
