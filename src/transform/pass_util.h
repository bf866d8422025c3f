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

#endif
