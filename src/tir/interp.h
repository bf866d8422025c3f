/* A reference interpreter for TIR (before or after lowering): the oracle for schedule and
 * lowering tests. Slow and simple on purpose. Supports every expression and statement kind,
 * all dtypes of rlx_dtype_t (vector lanes included), symbolic shapes (bound from the
 * arguments' shapes), blocks with init, predicates and alloc_buffers. */
#ifndef RLX_TIR_INTERP_H
#define RLX_TIR_INTERP_H

#include <dlpack/dlpack.h>

#include "tir.h"

/* Runs f on args (one DLTensor per param, in order; a scalar param, one without a buffer,
 * takes a 0-d tensor holding its value).
 * Checks ndim/dtype/shape against the buffer map and binds shape vars. Errors name the
 * parameter; an out-of-bounds access is an error, never a crash. */
RLX_MUST_USE rlx_status_t* rlx_tir_interpret(const rlx_tir_func_t* f, DLTensor* const* args, int n_args);

/* How many statements the interpreter would execute for s, with loop extents evaluated in env
 * (shape vars and scalar params bound): the cost estimate constant folding uses to leave large
 * computations to run time (about 0.1 us per statement). -1 when an extent cannot be
 * evaluated. */
double rlx_tir_interp_work(const rlx_tir_stmt_t* s, const rlx_int_env_t* env);

#endif
