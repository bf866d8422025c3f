/* The Relax pipeline: one array, in order. VM bytecode generation follows it (codegen). */
#include <string.h>

#include "pass.h"

static const rlx_pass_t pipeline[] = {
    {"layout_nchwc", rlx_pass_layout_nchwc},
    {"legalize_ops", rlx_pass_legalize_ops},
    {"fold_constants", rlx_pass_fold_constants},
    {"fuse_ops", rlx_pass_fuse_ops},
    {"default_schedule", rlx_pass_default_schedule},
    {"call_tir_rewrite", rlx_pass_call_tir_rewrite},
    {"plan_memory", rlx_pass_plan_memory},
    {"lower_shapes", rlx_pass_lower_shapes},
};

void rlx_pipeline_passes(const rlx_pass_t** out_passes, int* out_n) {
  *out_passes = pipeline;
  *out_n = (int)(sizeof(pipeline) / sizeof(pipeline[0]));
}

static void note_elided(const rlx_relax_expr_t* e, void* user) {
  if (e->kind == RLX_RELAX_CONSTANT && !((const rlx_relax_constant_t*)e)->data) *(int*)user += 1;
}

/* A module parsed from text whose metadata section was left out has constants without
 * data (src/script/relax_script.h): nothing can be built from it. */
static rlx_status_t* check_no_elided(const rlx_module_t* m) {
  for (int i = 0; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != RLX_FUNC_RELAX) continue;
    const rlx_relax_func_t* f = m->funcs[i].func;
    int n = 0;
    if (f->body) rlx_relax_expr_visit(f->body, note_elided, &n);
    if (n)
      return rlx_status_create(RLX_INVALID_ARGUMENT,
                               "function '%s' uses %d constant(s) whose data was left out when the module was printed "
                               "(metadata[\"relax.expr.Constant\"][i] without the metadata section): print it with the "
                               "section (rlx print --show-meta, show_meta=True) to build it",
                               m->funcs[i].name, n);
  }
  return NULL;
}

rlx_status_t* rlx_pipeline_run(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_pipeline_options_t* opts,
                               rlx_module_t** out) {
  RLX_RETURN_IF_ERROR(check_no_elided(m));
  const char* stop = opts && opts->stop_after ? opts->stop_after : "all";
  int n = (int)(sizeof(pipeline) / sizeof(pipeline[0]));
  bool known = strcmp(stop, "all") == 0;
  for (int i = 0; i < n; i++) known = known || strcmp(stop, pipeline[i].name) == 0;
  if (!known) {
    rlx_strbuf_t sb = {0};
    for (int i = 0; i < n; i++) rlx_strbuf_printf(&sb, "%s, ", pipeline[i].name);
    rlx_status_t* st = rlx_status_create(RLX_INVALID_ARGUMENT, "unknown pass '%s' (passes: %sall)", stop,
                                         rlx_strbuf_cstr(&sb));
    rlx_strbuf_free(&sb);
    return st;
  }
  rlx_module_t* cur = m;
  for (int i = 0; i < n; i++) {
    rlx_module_t* next = NULL;
    rlx_status_t* st = pipeline[i].run(ctx, cur, &next);
    if (st) return rlx_status_annotate(st, "pass %s", pipeline[i].name);
    if (opts && opts->check_well_formed) {
      st = rlx_relax_well_formed(ctx, next);
      if (st) return rlx_status_annotate(st, "ill-formed after pass %s", pipeline[i].name);
    }
    cur = next;
    if (strcmp(stop, pipeline[i].name) == 0) break;
  }
  *out = cur;
  return NULL;
}
