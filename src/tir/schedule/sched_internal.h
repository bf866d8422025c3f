/* Helpers shared by the schedule primitives (not a public API): statement paths, loop and
 * block lookup, subtree replacement/removal, binding simplification, access regions. */
#ifndef RLX_SCHED_INTERNAL_H
#define RLX_SCHED_INTERNAL_H

#include "schedule.h"

#define SCHED_MAX_DEPTH 256

/* Statements from the function body (index 0) down to a target statement (last). */
typedef struct {
  int n;
  rlx_tir_stmt_t* s[SCHED_MAX_DEPTH];
} sched_path_t;

/* Path to the For whose loop var is v; false when absent. */
bool sched_path_to_loop(rlx_tir_stmt_t* root, const rlx_var_t* v, sched_path_t* out);
/* Path to the BlockRealize of block `name`; false when absent. */
bool sched_path_to_block(rlx_tir_stmt_t* root, const char* name, sched_path_t* out);
/* Path to an exact statement pointer. */
bool sched_path_to_stmt(rlx_tir_stmt_t* root, const rlx_tir_stmt_t* target, sched_path_t* out);

/* Finds a block or returns an error naming it. */
RLX_MUST_USE rlx_status_t* sched_get_block(rlx_schedule_t* s, const char* name, sched_path_t* path,
                                           rlx_tir_block_realize_t** out_br);
/* Finds a loop or returns an error (op names the primitive in the message). */
RLX_MUST_USE rlx_status_t* sched_get_loop(rlx_schedule_t* s, rlx_var_t* loop, const char* op, sched_path_t* path,
                                          rlx_tir_for_t** out_for);

/* Index in path of the nearest BlockRealize strictly above position i; -1 if none. */
int sched_parent_block_index(const sched_path_t* p, int i);

/* Returns root with statement `old` (pointer identity) replaced by `repl`. repl NULL removes
 * it; loops / seqs that become empty are removed too. */
rlx_tir_stmt_t* sched_replace(rlx_ctx_t* ctx, rlx_tir_stmt_t* root, rlx_tir_stmt_t* old, rlx_tir_stmt_t* repl);

/* Simplifies block iter values and predicates (provably-true predicates are dropped) with the
 * ranges of the enclosing loops known. */
rlx_tir_stmt_t* sched_simplify_bindings(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_stmt_t* body);

/* Installs a new body in the schedule's function (simplifying bindings). */
void sched_set_body(rlx_schedule_t* s, rlx_tir_stmt_t* body);

/* Adds cond (AND) to the predicate of every BlockRealize in s that is not nested in another
 * block of s. */
rlx_tir_stmt_t* sched_add_predicate(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, rlx_expr_t* cond);

/* Recomputes reads (every loaded buffer) and writes (every stored buffer) of a block from its
 * body and init: one point region when all accesses to a buffer agree, the whole buffer
 * otherwise. Buffers written are left out of reads when the block has an init. */
rlx_tir_block_t* sched_block_recompute_regions(rlx_ctx_t* ctx, const rlx_tir_block_t* b);

/* Whole-buffer region. */
rlx_buffer_region_t sched_full_region(rlx_ctx_t* ctx, rlx_tir_buffer_t* buf);

/* True if the buffer is a parameter buffer of f. */
bool sched_is_param_buffer(const rlx_tir_func_t* f, const rlx_tir_buffer_t* buf);

/* Counts blocks writing / reading buf in s (blocks nested anywhere). */
int sched_count_writers(rlx_tir_stmt_t* s, const rlx_tir_buffer_t* buf);
int sched_count_readers(rlx_tir_stmt_t* s, const rlx_tir_buffer_t* buf);
/* True if the block's own statements (not nested blocks) load or store buf. */
bool sched_block_own_access(const rlx_tir_block_t* b, const rlx_tir_buffer_t* buf);
/* True if the expression or statement loads buf. */
bool sched_expr_loads(const rlx_expr_t* e, const rlx_tir_buffer_t* buf);
bool sched_stmt_loads(const rlx_tir_stmt_t* s, const rlx_tir_buffer_t* buf);

/* Returns the block with buf removed from its alloc_buffers (b itself when absent). */
rlx_tir_block_t* sched_block_remove_alloc(rlx_ctx_t* ctx, const rlx_tir_block_t* b, const rlx_tir_buffer_t* buf);
/* Removes buf from the alloc_buffers of whichever block allocates it. */
rlx_tir_stmt_t* sched_remove_alloc(rlx_ctx_t* ctx, rlx_tir_stmt_t* root, const rlx_tir_buffer_t* buf);

/* Replaces every load of buf (in e) by fn(load). */
typedef rlx_expr_t* (*sched_load_fn_t)(rlx_ctx_t* ctx, rlx_buffer_load_t* load, void* user);
rlx_expr_t* sched_replace_loads(rlx_ctx_t* ctx, rlx_expr_t* e, const rlx_tir_buffer_t* buf, sched_load_fn_t fn,
                                void* user);
/* Same over every expression of a statement (store values, indices, loop bounds...). */
rlx_tir_stmt_t* sched_stmt_replace_loads(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, const rlx_tir_buffer_t* buf,
                                         sched_load_fn_t fn, void* user);

/* A name not used by any block of the function: base, base_1, base_2 ... */
const char* sched_unique_block_name(rlx_schedule_t* s, const char* base);

/* True if the store's indices are distinct iter vars of b whose domains are [0, shape[d]) of
 * the stored buffer: one iteration of b per element of the whole buffer. */
bool sched_store_covers_buffer(const rlx_tir_block_t* b, const rlx_tir_store_t* st);

/* Index of the iter var of b that is exactly variable v; -1 if none. */
int sched_iter_index(const rlx_tir_block_t* b, const rlx_expr_t* v);

/* The interval a (integer) expression spans when the vars in `inner` range over their
 * ranges (min, extent) and every other var is fixed. Returns false if it cannot tell.
 * out_min / out_extent are simplified expressions. */
typedef struct {
  int n;
  rlx_var_t** vars;
  rlx_range_t* ranges;
} sched_dom_t;
bool sched_eval_interval(rlx_ctx_t* ctx, rlx_analyzer_t* an, const rlx_expr_t* e, const sched_dom_t* dom,
                         rlx_expr_t** out_min, rlx_expr_t** out_max);

/* The region of buffer x (per dimension, lo..hi inclusive, *out_lo / *out_hi in ctx) that
 * the accesses under s touch in one iteration of the loops enclosing s: the loops inside s
 * are bound in an (the caller has bound the enclosing ones) and range over their domains,
 * each access's block bindings are substituted. which: SCHED_LOADS, SCHED_STORES or both.
 * simplify: simplify the running min / max after each access (else the caller simplifies
 * the result). False when there is no such access or one cannot be bounded (an index count
 * that is not x's rank, a load outside any block, an index sched_eval_interval cannot tell). */
enum { SCHED_LOADS = 1, SCHED_STORES = 2 };
bool sched_access_region(rlx_ctx_t* ctx, rlx_analyzer_t* an, const rlx_tir_stmt_t* s, const rlx_tir_buffer_t* x,
                         unsigned which, bool simplify, rlx_expr_t*** out_lo, rlx_expr_t*** out_hi);

/* The machine numbers the default schedules decide by, all from the context's target
 * (machine.c has the table and why). */
typedef struct {
  rlx_isa_t isa;
  int vec_bytes;    /* native vector width: no schedule makes wider vectors */
  int vec_regs;     /* architectural vector registers */
  bool fma;
  int64_t cache[3]; /* data cache bytes: L1, L2 per core, L3 */
} sched_machine_t;
sched_machine_t sched_machine(const rlx_ctx_t* ctx);
/* Lanes of a native vector of elements of elem_bytes (1 when not a vector type). */
int sched_machine_lanes(const sched_machine_t* m, int elem_bytes);
/* A float32 matmul register tile: mr rows x nv native vectors of accumulators. */
typedef struct {
  int mr, nv;
} sched_tile_t;
/* The ISA's tile for an M x N output (-1: symbolic) that pads M and N least. */
sched_tile_t sched_machine_tile(const sched_machine_t* m, int64_t M, int64_t N);

/* Default schedule of one matmul-like block (default_matmul.c). *out_applied is false (and
 * the schedule unchanged, or a run-time fallback installed for symbolic extents) when the
 * block does not fit the pattern; then *out_why says why when the block is a contraction
 * (C += X * Y under an init) and is NULL otherwise. */
RLX_MUST_USE rlx_status_t* sched_default_matmul(rlx_schedule_t* s, const char* block, bool* out_applied, const char** out_why);
/* True for a contraction block: init, and an update C[idx] = C[idx] + X * Y. */
bool sched_is_contraction(const rlx_tir_block_t* b);
/* The reason (pointer identity) given for a contraction without an N axis (C[i] = sum A*x). */
extern const char* const sched_no_n_axis;

#endif
