/* Glue for the public API (include/rlx/rlx.h): small wrappers over the internal layers.
 * Including the public header next to the internal ones makes the compiler check that the
 * two sets of declarations agree. */
#include "rlx/rlx.h"

#include "../build/build.h"
#include "../codegen/codegen.h"
#include "../ir/ir.h"
#include "../script/script.h"
#include "../tir/schedule/schedule.h"
#include "../tir/te.h"
#include "../tir/tir.h"

rlx_expr_t* rlx_ir_var_expr(rlx_var_t* v) { return &v->hdr; }
rlx_expr_t* rlx_ir_eq(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_cmp(ctx, RLX_EXPR_EQ, a, b); }
rlx_expr_t* rlx_ir_ne(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_cmp(ctx, RLX_EXPR_NE, a, b); }
rlx_expr_t* rlx_ir_lt(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_cmp(ctx, RLX_EXPR_LT, a, b); }
rlx_expr_t* rlx_ir_le(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_cmp(ctx, RLX_EXPR_LE, a, b); }
rlx_expr_t* rlx_ir_gt(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_cmp(ctx, RLX_EXPR_GT, a, b); }
rlx_expr_t* rlx_ir_ge(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) { return rlx_ir_cmp(ctx, RLX_EXPR_GE, a, b); }

rlx_expr_t* rlx_te_axis_expr(rlx_iter_var_t* axis) { return &axis->var->hdr; }

void rlx_module_add_prim_func(rlx_module_t* m, rlx_tir_func_t* f) { rlx_module_set(m, f->name, RLX_FUNC_TIR, f); }

rlx_tir_func_t* rlx_module_get_prim_func(rlx_module_t* m, const char* name) {
  rlx_module_entry_t* e = rlx_module_find(m, name);
  return e && e->kind == RLX_FUNC_TIR ? e->func : NULL;
}

rlx_tir_func_t* rlx_schedule_func(const rlx_schedule_t* s) { return s->func; }

RLX_MUST_USE rlx_status_t* rlx_build(rlx_ctx_t* ctx, rlx_module_t* m, rlx_library_t** out_lib) {
  return rlx_build_module(ctx, m, out_lib);
}

rlx_ctx_t* rlx_ctx_create(void) {
  rlx_ctx_t* ctx = rlx_ctx_new();
  if (ctx) rlx_build_use_compiled_folds(ctx); /* large constants fold compiled, as when building */
  return ctx;
}
