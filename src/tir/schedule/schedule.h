/* Schedule primitives over a PrimFunc (TVM's tir.Schedule, functional style): the schedule
 * holds the current function; every primitive rewrites it into a new one. Blocks are named by
 * their (unique) name, loops by their loop var (rlx_var_t*, unique). Primitives check their
 * preconditions and return an error status (naming the block/loop) instead of producing wrong
 * code.
 */
#ifndef RLX_SCHEDULE_H
#define RLX_SCHEDULE_H

#include "../tir.h"

typedef struct rlx_schedule {
  rlx_ctx_t* ctx;
  rlx_tir_func_t* func; /* current state */
} rlx_schedule_t;

rlx_schedule_t* rlx_schedule_create(rlx_ctx_t* ctx, const rlx_tir_func_t* f);
/* Loops enclosing block `block`, outermost first. *out_loops is arena memory. */
RLX_MUST_USE rlx_status_t* rlx_sched_get_loops(rlx_schedule_t* s, const char* block, rlx_var_t*** out_loops, int* out_n);
/* Splits loop into len(factors) loops; one factor may be -1 (inferred). Non-divisible or
 * symbolic extents add a predicate. out_loops (may be NULL) gets the new loop vars. */
RLX_MUST_USE rlx_status_t* rlx_sched_split(rlx_schedule_t* s, rlx_var_t* loop, int n, const int64_t* factors,
                              rlx_var_t** out_loops);
RLX_MUST_USE rlx_status_t* rlx_sched_fuse(rlx_schedule_t* s, int n, rlx_var_t* const* loops, rlx_var_t** out_loop);
RLX_MUST_USE rlx_status_t* rlx_sched_reorder(rlx_schedule_t* s, int n, rlx_var_t* const* loops);
RLX_MUST_USE rlx_status_t* rlx_sched_parallel(rlx_schedule_t* s, rlx_var_t* loop);
RLX_MUST_USE rlx_status_t* rlx_sched_vectorize(rlx_schedule_t* s, rlx_var_t* loop);
RLX_MUST_USE rlx_status_t* rlx_sched_unroll(rlx_schedule_t* s, rlx_var_t* loop);
RLX_MUST_USE rlx_status_t* rlx_sched_compute_inline(rlx_schedule_t* s, const char* block);
RLX_MUST_USE rlx_status_t* rlx_sched_reverse_compute_inline(rlx_schedule_t* s, const char* block);
RLX_MUST_USE rlx_status_t* rlx_sched_compute_at(rlx_schedule_t* s, const char* block, rlx_var_t* loop);
RLX_MUST_USE rlx_status_t* rlx_sched_reverse_compute_at(rlx_schedule_t* s, const char* block, rlx_var_t* loop);
/* Adds a "local" cache block that `block` writes into, copied back to the original buffer;
 * out_block gets the new block's name. */
RLX_MUST_USE rlx_status_t* rlx_sched_cache_write(rlx_schedule_t* s, const char* block, int write_index, const char* scope,
                                    const char** out_block);
RLX_MUST_USE rlx_status_t* rlx_sched_cache_read(rlx_schedule_t* s, const char* block, int read_index, const char* scope,
                                   const char** out_block);
/* Moves the init of a reduction block into its own block placed above loop. */
RLX_MUST_USE rlx_status_t* rlx_sched_decompose_reduction(rlx_schedule_t* s, const char* block, rlx_var_t* loop,
                                            const char** out_init_block);

/* Shrinks the buffer called `buffer` (allocated by a block) to the region that one iteration
 * of the innermost loop enclosing all its accesses touches, allocated there (ALLOCATE) and
 * indexed from the region start -- TVM's CompactBufferAllocation as a primitive. Turns a
 * cache_write "local" buffer moved by reverse_compute_at into a register-sized tile. Errors when
 * no loop encloses every access or the region extent is not constant. */
RLX_MUST_USE rlx_status_t* rlx_sched_compact_buffer(rlx_schedule_t* s, const char* buffer);

/* The default CPU schedule, applied to any unscheduled PrimFunc: elementwise/injective blocks
 * get fused, parallel outer loops and vectorized inner loops; reductions get a parallel
 * spatial outer loop; matmul-like contractions get register blocking, cache tiling, packing,
 * vectorization and parallel outer loops. Sets "tir.is_scheduled" on the result. A function
 * with attribute "rlx.no_default_schedule" (or "tir.is_scheduled") true is returned as is.
 * Never fails on valid input: a block it cannot schedule is left as it is (and reported by
 * rlx_tir_default_schedule_report). */
RLX_MUST_USE rlx_status_t* rlx_tir_default_schedule(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out);
/* The one place that decides whether f gets the default schedule: neither "tir.is_scheduled"
 * nor "rlx.no_default_schedule" is set true. The default_schedule pass (Relax stage) and the
 * driver's TIR stage both ask it. */
bool rlx_tir_func_needs_default_schedule(const rlx_tir_func_t* f);

/* A block the default schedule left without its real schedule: a contraction ("matmul") the
 * register-tiled kernel did not take, or a reduction left scalar, with the reason and the
 * iterations of its loop nest (-1 when symbolic). Strings live in the context's arena. */
typedef struct {
  const char* block;
  const char* kind;
  const char* reason;
  int64_t work;
} rlx_sched_miss_t;

typedef struct {
  int n;
  rlx_sched_miss_t* misses; /* arena */
} rlx_sched_report_t;

/* rlx_tir_default_schedule, also filling *out_report (may be NULL) with the blocks it left
 * unscheduled. An already scheduled function reports nothing. */
RLX_MUST_USE rlx_status_t* rlx_tir_default_schedule_report(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out,
                                              rlx_sched_report_t* out_report);

#endif
