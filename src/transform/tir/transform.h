/* TIR lowering passes (src/transform/tir/), applied in this order by the driver's TIR stage
 * (src/driver/driver.h: rlx_tir_lower, the table in driver.c):
 *   1. (optional) default schedule             -- src/tir/schedule/schedule.h
 *   2. rlx_tir_lower_blocks: blocks → loops     -- lower_blocks.c
 *   3. rlx_tir_flatten_buffers: N-D → 1-D       -- flatten.c
 *   4. rlx_tir_unroll_loops                     -- unroll.c
 *   5. rlx_tir_vectorize_loops                  -- vectorize.c
 *   6. rlx_tir_simplify                         -- simplify_stmt.c
 * Each pass takes a PrimFunc and returns a new one (the input is unchanged).
 */
#ifndef RLX_TIR_TRANSFORM_H
#define RLX_TIR_TRANSFORM_H

#include "../../tir/tir.h"

/* Removes BlockRealize/Block: iter vars are substituted by their bound values, predicates
 * become IfThenElse, a block's init runs under `if (all reduce iter vars == their min)`
 * (or was split off by decompose_reduction), alloc_buffers become ALLOCATE statements around
 * the block body (root block allocs around the whole body). Output has no blocks. */
RLX_MUST_USE rlx_status_t* rlx_tir_lower_blocks(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out);

/* Rewrites every N-D access into a 1-D access of a flat buffer that shares the original
 * buffer's data var (row-major, or the buffer's strides when given). The buffer_map keeps the
 * original N-D buffers (for argument checks); ALLOCATE statements get the flat buffers. */
RLX_MUST_USE rlx_status_t* rlx_tir_flatten_buffers(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out);

/* Expands UNROLLED loops with a constant extent (up to a size limit) into straight-line code. */
RLX_MUST_USE rlx_status_t* rlx_tir_unroll_loops(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out);

/* Turns VECTORIZED loops with a constant extent and a vectorizable body into Ramp/Broadcast
 * vector expressions; others become serial loops (codegen emits them with a simd pragma). */
RLX_MUST_USE rlx_status_t* rlx_tir_vectorize_loops(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out);

/* Simplifies every expression with loop ranges known; drops loops of extent 1 and
 * provably-true conditions. */
RLX_MUST_USE rlx_status_t* rlx_tir_simplify(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out);

#endif
