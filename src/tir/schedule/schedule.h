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


/* Shrinks the buffer called `buffer` (allocated by a block) to the region that one iteration
 * of the innermost loop enclosing all its accesses touches, allocated there (ALLOCATE) and
 * indexed from the region start -- TVM's CompactBufferAllocation as a primitive. Turns a
 * cache_write "local" buffer moved by reverse_compute_at into a register-sized tile. Errors when
 * no loop encloses every access or the region extent is not constant. */
RLX_MUST_USE rlx_status_t* rlx_sched_compact_buffer(rlx_schedule_t* s, const char* buffer);

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
