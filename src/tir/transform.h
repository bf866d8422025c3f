/* TIR lowering passes, applied in this order by rlx_tir_lower():
 *   1. (optional) default schedule             -- schedule/schedule.h
 *   2. rlx_tir_lower_blocks: blocks → loops     -- lower_blocks.c
 *   3. rlx_tir_flatten_buffers: N-D → 1-D       -- flatten.c
 *   4. rlx_tir_unroll_loops                     -- unroll.c
 *   5. rlx_tir_vectorize_loops                  -- vectorize.c
 *   6. rlx_tir_simplify                         -- simplify_stmt.c
 * Each pass takes a PrimFunc and returns a new one (the input is unchanged).
 */
#ifndef RLX_TIR_TRANSFORM_H
#define RLX_TIR_TRANSFORM_H

#include "tir.h"

/* Removes BlockRealize/Block: iter vars are substituted by their bound values, predicates
 * become IfThenElse, a block's init runs under `if (all reduce iter vars == their min)`
 * (or was split off by decompose_reduction), alloc_buffers become ALLOCATE statements around
 * the block body (root block allocs around the whole body). Output has no blocks. */
rlx_status_t* rlx_tir_lower_blocks(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out);

/* Rewrites every N-D access into a 1-D access of a flat buffer that shares the original
 * buffer's data var (row-major, or the buffer's strides when given). The buffer_map keeps the
 * original N-D buffers (for argument checks); ALLOCATE statements get the flat buffers. */
rlx_status_t* rlx_tir_flatten_buffers(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out);

/* Expands UNROLLED loops with a constant extent (up to a size limit) into straight-line code. */
rlx_status_t* rlx_tir_unroll_loops(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out);

/* Turns VECTORIZED loops with a constant extent and a vectorizable body into Ramp/Broadcast
 * vector expressions; others become serial loops (codegen emits them with a simd pragma). */
rlx_status_t* rlx_tir_vectorize_loops(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out);

/* Simplifies every expression with loop ranges known; drops loops of extent 1 and
 * provably-true conditions. */
rlx_status_t* rlx_tir_simplify(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out);

/* The whole pipeline above. When apply_default_schedule is true and the function has no
 * "tir.is_scheduled" / "rlx.no_default_schedule" attribute set true, the default CPU schedule
 * runs first. */
rlx_status_t* rlx_tir_lower(rlx_ctx_t* ctx, const rlx_tir_func_t* f, bool apply_default_schedule,
                            rlx_tir_func_t** out);

/* Lowers every TIR function of module with rlx_tir_lower (same names, same order) into a new
 * module *out_module; other functions are carried over unchanged. The first error stops it. */
rlx_status_t* rlx_tir_lower_module(rlx_ctx_t* ctx, rlx_module_t* module, bool apply_default_schedule,
                                   rlx_module_t** out_module);

/* Like rlx_tir_lower / rlx_tir_lower_module but stop after the pass named stop_after
 * ("default_schedule", "lower_blocks", "flatten_buffers", "unroll_loops", "vectorize_loops",
 * "simplify" or "all"); for printing the IR after any pass. Unknown names are an error. */
rlx_status_t* rlx_tir_lower_until(rlx_ctx_t* ctx, const rlx_tir_func_t* f, bool apply_default_schedule,
                                  const char* stop_after, rlx_tir_func_t** out);
rlx_status_t* rlx_tir_lower_module_until(rlx_ctx_t* ctx, rlx_module_t* module, bool apply_default_schedule,
                                         const char* stop_after, rlx_module_t** out_module);

/* Well-formedness: every var used is defined (param, shape var bound by the buffer map,
 * loop var, iter var, let), block iter values only use loop vars in scope, buffers used are
 * in the buffer map or allocated. Error names the function and the first problem. */
rlx_status_t* rlx_tir_verify(const rlx_tir_func_t* f);

#endif
