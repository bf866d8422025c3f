/* Memory passes' extras: the statistics `rlx compile --stats` prints about memory planning,
 * and the helpers the passes share (sizes of allocations, the planner's upper bounds).
 *
 * The passes themselves are declared in pass.h (rlx_pass_call_tir_rewrite,
 * rlx_pass_plan_memory); their contracts are at the top of call_tir_rewrite.c and
 * plan_memory.c.
 *
 * Upper bounds of symbolic variables (TVM's "tir_var_upper_bound" function attribute):
 * plan_memory reads the attribute "tir_var_upper_bound" of a Relax function as a string
 * attr (RLX_ATTR_STR) listing name/bound pairs, e.g. `{"n": 1024, "m": 64}` or `n=1024,m=64`
 * (quotes, braces, ':' and '=' are all accepted). Only variables of the function signature
 * are bounded, as in TVM. A tensor whose size is symbolic but bounded gets a storage of its
 * upper-bound size.
 */
#ifndef RLX_TRANSFORM_MEMORY_H
#define RLX_TRANSFORM_MEMORY_H

#include "pass.h"

/* A byte count: a constant when is_static, else a symbolic int64 expression (expr, printed
 * in str as TVMScript writes shapes: "n * 512"). For a constant, expr is the constant too. */
typedef struct {
  bool is_static;
  int64_t bytes;     /* valid when is_static */
  rlx_expr_t* expr;  /* always set (arena-owned) */
  const char* str;   /* always set (arena-owned) */
} rlx_memory_size_t;

/* Memory figures of one function before and after plan_memory. */
typedef struct {
  /* before planning: every R.builtin.alloc_tensor of the function */
  rlx_memory_size_t unplanned;
  int n_tensors; /* alloc_tensor calls before planning */
  /* after planning: every R.memory.alloc_storage plus every remaining R.builtin.alloc_tensor */
  rlx_memory_size_t planned;
  int n_storages;          /* R.memory.alloc_storage calls */
  int n_planned_tensors;   /* R.memory.alloc_tensor calls (tensors placed in a storage) */
  int n_unplanned_tensors; /* R.builtin.alloc_tensor calls left (function outputs, escaping tensors) */
} rlx_memory_stats_t;

/* Fills *out with the memory figures of the Relax function func in before_plan (the module
 * given to plan_memory) and after_plan (its result). Sizes are summed over the whole
 * function (nested blocks and branches included), each allocation counted once; a size is
 * symbolic when any allocation is. Errors: func is not a Relax function of both modules
 * (RLX_NOT_FOUND); an allocation whose size cannot be read (unknown shape or dtype). */
RLX_MUST_USE rlx_status_t* rlx_memory_stats(rlx_ctx_t* ctx, rlx_module_t* before_plan, rlx_module_t* after_plan, const char* func,
                                            rlx_memory_stats_t* out);

/* The bytes of a tensor of the given shape and dtype: prod(shape) * bytes(dtype), simplified
 * (int64). */
rlx_expr_t* rlx_memory_tensor_bytes(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_dtype_t dtype);

/* Reads the function's "tir_var_upper_bound" attribute (format above) into an analyzer that
 * binds each named signature variable to [0, bound]; *out_n_bound gets how many were bound
 * (may be NULL). An attribute of another kind or a malformed entry is an error naming it. */
RLX_MUST_USE rlx_status_t* rlx_memory_upper_bounds(rlx_ctx_t* ctx, const rlx_relax_func_t* f, rlx_analyzer_t** out,
                                                   int* out_n_bound);

#endif
