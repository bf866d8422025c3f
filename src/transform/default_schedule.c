/* Pass default_schedule.
 *
 * Requires: a well-formed module; PrimFuncs in block form (as TE / FuseTIR make them) or
 * already scheduled.
 * Produces: the same module where every PrimFunc without "tir.is_scheduled" (or
 * "rlx.no_default_schedule") set true is replaced by rlx_tir_default_schedule's result
 * (which sets "tir.is_scheduled"). Relax functions and names are unchanged; functions that
 * are not rescheduled are shared with the input.
 */
#include "../tir/schedule/schedule.h"
#include "pass.h"
#include "pass_util.h"

static bool attr_true(const rlx_tir_func_t* f, const char* key) {
  int64_t v = 0;
  return rlx_expr_is_const_int(rlx_tir_func_get_attr(f, key), &v) && v != 0;
}

rlx_status_t* rlx_pass_default_schedule(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out) {
  rlx_module_t* m = pass_module_copy(ctx, in);
  for (int i = 0; i < m->n_funcs; i++) {
    rlx_module_entry_t* e = &m->funcs[i];
    if (e->kind != RLX_FUNC_TIR) continue;
    rlx_tir_func_t* f = e->func;
    if (attr_true(f, "tir.is_scheduled") || attr_true(f, "rlx.no_default_schedule")) continue;
    rlx_tir_func_t* s = NULL;
    RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_tir_default_schedule(ctx, f, &s), "default_schedule of '%s'", e->name));
    e->func = s;
  }
  *out = m;
  return NULL;
}
