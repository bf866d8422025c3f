/* Constant folding of one call_tir, shared by the fold_constants pass and the ONNX importer
 * (which folds while it imports, so shape computations on constants become constants the
 * next converter can read). One implementation; each caller states its limits. */
#ifndef RLX_TRANSFORM_FOLD_H
#define RLX_TRANSFORM_FOLD_H

#include "pass.h"

/* How much one fold may cost. A call whose output has more than max_elems elements, or
 * whose PrimFunc the interpreter would run for more than max_work innermost statements
 * (about 0.1 us each; 20 times that in a sanitizer build), or more than *work_left, is not
 * folded by the interpreter; with a runner (NULL: none) such
 * a call, or one above compiled_work statements, runs compiled instead, up to
 * max_elems_compiled elements. */
typedef struct {
  int64_t max_elems;
  double max_work;
  rlx_fold_runner_t runner;
  double compiled_work;
  int64_t max_elems_compiled;
  /* NULL, or the interpreter statements left for all the folds of one caller (the ONNX
   * importer's whole import): a fold above it is not done, a fold done subtracts its work. */
  double* work_left;
} rlx_fold_limits_t;

/* The Constant that argument e stands for (e itself, or what a var is bound to), or NULL
 * when e is not constant. */
typedef rlx_relax_constant_t* (*rlx_fold_const_fn_t)(rlx_relax_expr_t* e, void* user);

/* The static shape of tensor struct info s when it has at most max_elems elements:
 * *out_shape (in ctx) and *out_numel; false otherwise (not a tensor, symbolic, void dtype,
 * too large). */
bool rlx_fold_static_shape(rlx_ctx_t* ctx, const rlx_sinfo_t* s, int64_t max_elems, int64_t** out_shape,
                           int64_t* out_numel);

/* Runs call_tir c (its PrimFunc looked up in m) when every tensor argument is constant per
 * const_of and its tir_vars are constant ints, within lim. *out gets the normalized
 * Constant, or NULL when the call is not folded (not a call_tir of m, too large, or the
 * interpreter/runner cannot run it: left to run time). Errors: the Constant could not be
 * built. */
RLX_MUST_USE rlx_status_t* rlx_fold_call_tir(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_relax_call_t* c,
                                rlx_fold_const_fn_t const_of, void* user, const rlx_fold_limits_t* lim,
                                rlx_relax_expr_t** out);

#endif
