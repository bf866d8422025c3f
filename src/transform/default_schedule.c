/* Pass default_schedule.
 *
 * Requires: a well-formed module; PrimFuncs in block form (as TE / FuseTIR make them) or
 * already scheduled.
 * Produces: the same module where every PrimFunc without "tir.is_scheduled" (or
 * "rlx.no_default_schedule") set true is replaced by rlx_tir_default_schedule's result
 * (which sets "tir.is_scheduled"). Relax functions and names are unchanged; functions that
 * are not rescheduled are shared with the input.
 * Reports: the blocks the default schedule left without their real schedule (untiled
 * contractions, scalar reductions), per function (rlx_pass_default_schedule_report; `rlx
 * compile --stats` and RLX_SCHED_DEBUG=1 print them). In Debug builds (NDEBUG undefined) a
 * left-over block with 4096 or more iterations (or a symbolic count) is an error.
 */
#include "../tir/schedule/schedule.h"
#include "pass.h"
#include "pass_util.h"

enum { TRIVIAL_WORK = 4096 };

static bool attr_true(const rlx_tir_func_t* f, const char* key) {
  int64_t v = 0;
  return rlx_expr_is_const_int(rlx_tir_func_get_attr(f, key), &v) && v != 0;
}

rlx_status_t* rlx_pass_default_schedule_report(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out, int* out_n,
                                               rlx_sched_func_report_t** out_reports) {
  rlx_module_t* m = pass_module_copy(ctx, in);
  int n_rep = 0;
  rlx_sched_func_report_t* reps = RLX_NEW_ARRAY(ctx, rlx_sched_func_report_t, m->n_funcs > 0 ? m->n_funcs : 1);
  for (int i = 0; i < m->n_funcs; i++) {
    rlx_module_entry_t* e = &m->funcs[i];
    if (e->kind != RLX_FUNC_TIR) continue;
    rlx_tir_func_t* f = e->func;
    if (attr_true(f, "tir.is_scheduled") || attr_true(f, "rlx.no_default_schedule")) continue;
    rlx_tir_func_t* s = NULL;
    rlx_sched_report_t r;
    RLX_RETURN_IF_ERROR(
        rlx_status_annotate(rlx_tir_default_schedule_report(ctx, f, &s, &r), "default_schedule of '%s'", e->name));
    e->func = s;
    if (r.n == 0) continue;
    reps[n_rep].func = e->name;
    reps[n_rep++].report = r;
#ifndef NDEBUG
    for (int k = 0; k < r.n; k++)
      if (r.misses[k].work < 0 || r.misses[k].work >= TRIVIAL_WORK)
        return rlx_status_create(RLX_UNSUPPORTED,
                                 "default_schedule of '%s': block '%s' (%s, %lld iterations) left unscheduled: %s "
                                 "(an error in Debug builds; `rlx compile --stats` lists every such block)",
                                 e->name, r.misses[k].block, r.misses[k].kind, (long long)r.misses[k].work,
                                 r.misses[k].reason);
#endif
  }
  if (out_n) *out_n = n_rep;
  if (out_reports) *out_reports = reps;
  *out = m;
  return NULL;
}

rlx_status_t* rlx_pass_default_schedule(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out) {
  return rlx_pass_default_schedule_report(ctx, in, out, NULL, NULL);
}
