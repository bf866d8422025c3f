/* Helpers shared by the Relax passes of this folder (not a public API): copying a module,
 * finding which functions are referenced, dropping PrimFuncs a pass made unreachable. */
#ifndef RLX_TRANSFORM_PASS_UTIL_H
#define RLX_TRANSFORM_PASS_UTIL_H

#include "../relax/relax.h"

/* A new module holding the same entries as m (functions shared), in the same order. */
rlx_module_t* pass_module_copy(rlx_ctx_t* ctx, const rlx_module_t* m);

/* Marks (out_used[i] = true) every function of m named by a GlobalVar in any Relax function
 * of m. out_used has m->n_funcs entries. */
void pass_module_mark_used(rlx_module_t* m, bool* out_used);

/* A new module without the PrimFuncs that `before` referenced from its Relax functions and
 * `after` no longer references (TVM leaves those to DeadCodeElimination; the passes here
 * drop them at once). IRModule has no remove, so the module is rebuilt. Returns after
 * itself when nothing is dropped. */
rlx_module_t* pass_module_drop_dead_tir(rlx_ctx_t* ctx, rlx_module_t* before, rlx_module_t* after);

/* The PrimFunc that call_tir call c calls (its first argument names a TIR function of m);
 * NULL when c is not such a call. */
rlx_tir_func_t* pass_call_tir_func(rlx_module_t* m, const rlx_relax_call_t* c);

/* A copy of f with a new body (params, attrs, purity and declared return kept); the result
 * is normalized in m. */
RLX_MUST_USE rlx_status_t* pass_func_with_body(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_relax_func_t* f,
                                               rlx_relax_expr_t* body, rlx_relax_func_t** out);

/* Replaces every Relax function of m (in place, module order) by fn's result, renormalized
 * when it changed; stops at the first error, annotated "<pass>: function '<name>'". */
typedef rlx_status_t* (*pass_func_fn_t)(void* user, rlx_relax_func_t* f, rlx_relax_func_t** out);
RLX_MUST_USE rlx_status_t* pass_map_relax_funcs(rlx_ctx_t* ctx, rlx_module_t* m, const char* pass, pass_func_fn_t fn,
                                                void* user);

/* Calls fn(user, v) once for every distinct var v that e reads (in no particular order),
 * stopping at the first error. */
RLX_MUST_USE rlx_status_t* pass_each_var(const rlx_relax_expr_t* e, rlx_status_t* (*fn)(void* user, rlx_relax_var_t* v),
                                         void* user);

/* Rebuilds f binding by binding (layout_nchwc, quantize_integer): a pass that replaces some
 * bindings by others and defers some, recomputing a deferred var where something first reads
 * it. For each dataflow binding `binding` emits whatever replaces it into bb; before emitting
 * any other binding (outside dataflow blocks, and the function's result) `uses` is called on
 * its value so the pass can emit the vars it reads; at the end of each dataflow block
 * `leaving` is called on every non-dataflow var bound there. *out is the rebuilt function,
 * or NULL (nothing done) when `wanted` is false for every dataflow binding's value. */
typedef struct {
  bool (*wanted)(const rlx_relax_expr_t* value);
  rlx_status_t* (*binding)(void* user, rlx_relax_binding_t* b);
  rlx_status_t* (*uses)(void* user, const rlx_relax_expr_t* e);
  rlx_status_t* (*leaving)(void* user, rlx_relax_var_t* v);
} pass_rewriter_t;
RLX_MUST_USE rlx_status_t* pass_rewrite_blocks(rlx_ctx_t* ctx, rlx_bb_t* bb, rlx_module_t* m, const char* name,
                                               const rlx_relax_func_t* f, const pass_rewriter_t* r, void* user,
                                               rlx_relax_func_t** out);

#endif
