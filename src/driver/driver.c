/* The compile flow (driver.h): the one table of passes and the function that runs it, top to
 * bottom — Relax stage, TIR stage, codegen. */
#include <string.h>

#include "../codegen/codegen.h"
#include "../tir/schedule/schedule.h"
#include "driver.h"

static const rlx_driver_pass_t passes[] = {
    /* Relax stage: module → module (src/transform/, one file per pass) */
    {"quantize_integer", "FakeQuantizationToInteger", RLX_STAGE_RELAX, rlx_pass_quantize_integer, NULL},
    {"layout_nchwc", "ConvertLayout", RLX_STAGE_RELAX, rlx_pass_layout_nchwc, NULL},
    {"legalize_ops", "LegalizeOps", RLX_STAGE_RELAX, rlx_pass_legalize_ops, NULL},
    {"fold_constants", "FoldConstant", RLX_STAGE_RELAX, rlx_pass_fold_constants, NULL},
    {"fuse_ops", "FuseOps", RLX_STAGE_RELAX, rlx_pass_fuse_ops, NULL},
    {"fuse_tir", "FuseTIR", RLX_STAGE_RELAX, rlx_pass_fuse_tir, NULL},
    {"default_schedule", "DefaultSchedule", RLX_STAGE_RELAX, rlx_pass_default_schedule, rlx_tir_default_schedule},
    {"call_tir_rewrite", "CallTIRRewrite", RLX_STAGE_RELAX, rlx_pass_call_tir_rewrite, NULL},
    {"plan_memory", "StaticPlanBlockMemory", RLX_STAGE_RELAX, rlx_pass_plan_memory, NULL},
    {"lower_shapes", "VMShapeLower", RLX_STAGE_RELAX, rlx_pass_lower_shapes, NULL},
    /* TIR stage: PrimFunc → PrimFunc, on every PrimFunc (src/transform/tir/) */
    {"lower_blocks", "LowerOpaqueBlock", RLX_STAGE_TIR, NULL, rlx_tir_lower_blocks},
    {"flatten_buffers", "FlattenBuffer", RLX_STAGE_TIR, NULL, rlx_tir_flatten_buffers},
    {"unroll_loops", "UnrollLoop", RLX_STAGE_TIR, NULL, rlx_tir_unroll_loops},
    {"vectorize_loops", "VectorizeLoop", RLX_STAGE_TIR, NULL, rlx_tir_vectorize_loops},
    {"simplify", "Simplify", RLX_STAGE_TIR, NULL, rlx_tir_simplify},
    /* codegen: the kernels' C source (src/codegen/) */
    {"codegen_c", NULL, RLX_STAGE_CODEGEN, NULL, NULL},
};
enum { N_PASSES = sizeof(passes) / sizeof(passes[0]) };

void rlx_driver_passes(const rlx_driver_pass_t** out_passes, int* out_n) {
  *out_passes = passes;
  *out_n = N_PASSES;
}

/* The pass called name, by its rlx or its TVM name. */
static const rlx_driver_pass_t* find(const char* name) {
  for (int i = 0; i < N_PASSES; i++)
    if (strcmp(passes[i].name, name) == 0 || (passes[i].tvm_name && strcmp(passes[i].tvm_name, name) == 0))
      return &passes[i];
  return NULL;
}

/* "unknown pass 'x' (passes: a, b, all)": the passes whose stage is in stages (a mask of 1 <<
 * stage), and the TIR stage's default_schedule when tir_schedule. */
static RLX_MUST_USE rlx_status_t* unknown_pass(const char* name, unsigned stages, bool tir_schedule) {
  rlx_strbuf_t sb = {0};
  if (tir_schedule) rlx_strbuf_printf(&sb, "default_schedule, ");
  for (int i = 0; i < N_PASSES; i++)
    if (stages & (1u << passes[i].stage)) rlx_strbuf_printf(&sb, "%s, ", passes[i].name);
  rlx_status_t* st = rlx_status_create(RLX_INVALID_ARGUMENT, "unknown pass '%s' (passes: %sall)", name,
                                       rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return st;
}

static bool listed(const char* list, const char* name) {
  size_t n = strlen(name);
  for (const char* p = list; *p;) {
    size_t len = strcspn(p, ", ");
    if (len == n && strncmp(p, name, n) == 0) return true;
    p += len;
    while (*p == ',' || *p == ' ') p++;
  }
  return false;
}

/* ------------------------------------------------------------------ Relax stage */
/* The Relax passes of the table (all, or those in `only`), stopping after `stop` (NULL: none). */
static RLX_MUST_USE rlx_status_t* relax_stage(rlx_ctx_t* ctx, rlx_module_t* m, bool wf, const char* only, const char* stop,
                                              rlx_module_t** out) {
  uint64_t mark = rlx_alloc_failures();
  rlx_module_t* cur = m;
  if (!only) {
    RLX_RETURN_IF_ERROR(rlx_pipeline_prepare(ctx, m, &cur));
    RLX_RETURN_IF_ERROR(rlx_ctx_check(ctx, mark, NULL));
  }
  int found = 0;
  for (int i = 0; i < N_PASSES; i++) {
    if (passes[i].stage != RLX_STAGE_RELAX || (only && !listed(only, passes[i].name))) continue;
    found++;
    rlx_module_t* next = NULL;
    /* a pass that ran out of memory fails the compile, whatever it returned */
    rlx_status_t* st = rlx_ctx_check(ctx, mark, passes[i].relax(ctx, cur, &next));
    if (st) return rlx_status_annotate(st, "pass %s", passes[i].name);
    if (wf) {
      st = rlx_ctx_check(ctx, mark, rlx_relax_well_formed(ctx, next));
      if (st) return rlx_status_annotate(st, "ill-formed after pass %s", passes[i].name);
    }
    cur = next;
    if (stop && strcmp(stop, passes[i].name) == 0) break;
  }
  if (only && found == 0) return rlx_status_create(RLX_INVALID_ARGUMENT, "no known pass in '%s'", only);
  *out = cur;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_pipeline_run(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_pipeline_options_t* opts,
                                            rlx_module_t** out) {
  const char* stop = opts && opts->stop_after && strcmp(opts->stop_after, "all") != 0 ? opts->stop_after : NULL;
  const rlx_driver_pass_t* p = stop ? find(stop) : NULL;
  if (stop && (!p || p->stage != RLX_STAGE_RELAX)) {
    RLX_RETURN_IF_ERROR(rlx_pipeline_prepare(ctx, m, &m)); /* input errors first, as always */
    return unknown_pass(stop, 1u << RLX_STAGE_RELAX, false);
  }
  return relax_stage(ctx, m, opts && opts->check_well_formed, NULL, p ? p->name : NULL, out);
}

/* ------------------------------------------------------------------ TIR stage */
static RLX_MUST_USE rlx_status_t* run_tir_pass(rlx_ctx_t* ctx, const char* name, rlx_tir_pass_fn_t fn, const rlx_tir_func_t* f,
                                               rlx_tir_func_t** out) {
  rlx_tir_func_t* r = NULL;
  rlx_status_t* st = fn(ctx, f, &r);
  if (st) return rlx_status_annotate(st, "lowering '%s': pass %s", f->name, name);
  st = rlx_tir_verify(r);
  if (st) return rlx_status_annotate(st, "lowering '%s': ill-formed after pass %s", f->name, name);
  *out = r;
  return NULL;
}

/* stop_after as a TIR-stage stop: NULL for "all"; an error for a name the stage lacks. */
static RLX_MUST_USE rlx_status_t* tir_stop(const char* stop_after, const char** out) {
  *out = NULL;
  if (!stop_after || strcmp(stop_after, "all") == 0) return NULL;
  const rlx_driver_pass_t* p = find(stop_after);
  if (!p || !p->tir) return unknown_pass(stop_after, 1u << RLX_STAGE_TIR, true);
  *out = p->name;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* lower_func(rlx_ctx_t* ctx, const rlx_tir_func_t* f, bool sched, const char* stop,
                                             rlx_tir_func_t** out) {
  rlx_status_t* st = rlx_tir_verify(f);
  if (st) return rlx_status_annotate(st, "lowering '%s': ill-formed input", f->name);
  rlx_tir_func_t* cur = (rlx_tir_func_t*)f;
  for (int i = 0; i < N_PASSES; i++) {
    if (!passes[i].tir) continue;
    bool is_sched = passes[i].stage == RLX_STAGE_RELAX; /* default_schedule, per function */
    if (!is_sched || (sched && rlx_tir_func_needs_default_schedule(cur)))
      RLX_RETURN_IF_ERROR(run_tir_pass(ctx, passes[i].name, passes[i].tir, cur, &cur));
    if (stop && strcmp(stop, passes[i].name) == 0) break;
  }
  *out = cur;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_tir_lower_until(rlx_ctx_t* ctx, const rlx_tir_func_t* f, bool apply_default_schedule,
                                               const char* stop_after, rlx_tir_func_t** out) {
  const char* stop = NULL;
  RLX_RETURN_IF_ERROR(tir_stop(stop_after, &stop));
  return lower_func(ctx, f, apply_default_schedule, stop, out);
}

RLX_MUST_USE rlx_status_t* rlx_tir_lower(rlx_ctx_t* ctx, const rlx_tir_func_t* f, bool apply_default_schedule,
                                         rlx_tir_func_t** out) {
  return lower_func(ctx, f, apply_default_schedule, NULL, out);
}

/* Every PrimFunc of m lowered (each keeping its module name) into a new module, and the
 * lowered functions in module order. */
static RLX_MUST_USE rlx_status_t* tir_stage(rlx_ctx_t* ctx, rlx_module_t* m, bool sched, const char* stop, rlx_module_t** out,
                                            rlx_tir_func_t*** out_funcs, int* out_n) {
  rlx_module_t* lm = rlx_module_create(ctx);
  rlx_tir_func_t** funcs = RLX_NEW_ARRAY(ctx, rlx_tir_func_t*, m->n_funcs > 0 ? m->n_funcs : 1);
  int n = 0;
  for (int i = 0; i < m->n_funcs; i++) {
    rlx_module_entry_t* e = &m->funcs[i];
    void* fn = e->func;
    if (e->kind == RLX_FUNC_TIR) {
      rlx_tir_func_t* low = NULL;
      rlx_status_t* st = lower_func(ctx, e->func, sched, stop, &low);
      if (st && strcmp(((rlx_tir_func_t*)e->func)->name, e->name) != 0)
        st = rlx_status_annotate(st, "lowering '%s'", e->name);
      RLX_RETURN_IF_ERROR(st);
      if (strcmp(low->name, e->name) != 0) {
        low = rlx_tir_func_copy(ctx, low);
        low->name = rlx_ctx_strdup(ctx, e->name);
      }
      funcs[n++] = low;
      fn = low;
    }
    rlx_module_set(lm, e->name, e->kind, fn);
  }
  *out = lm;
  if (out_funcs) *out_funcs = funcs;
  if (out_n) *out_n = n;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_tir_lower_module_until(rlx_ctx_t* ctx, rlx_module_t* module, bool apply_default_schedule,
                                                      const char* stop_after, rlx_module_t** out_module) {
  const char* stop = NULL;
  RLX_RETURN_IF_ERROR(tir_stop(stop_after, &stop));
  return tir_stage(ctx, module, apply_default_schedule, stop, out_module, NULL, NULL);
}

RLX_MUST_USE rlx_status_t* rlx_tir_lower_module(rlx_ctx_t* ctx, rlx_module_t* module, bool apply_default_schedule,
                                                rlx_module_t** out_module) {
  return tir_stage(ctx, module, apply_default_schedule, NULL, out_module, NULL, NULL);
}

/* ------------------------------------------------------------------ the whole flow */
static bool has_relax(const rlx_module_t* m) {
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].kind == RLX_FUNC_RELAX) return true;
  return false;
}

static const char* relax_only(const rlx_driver_options_t* opts) { return opts ? opts->relax_passes : NULL; }

RLX_MUST_USE rlx_status_t* rlx_driver_relax_stage(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_driver_options_t* opts,
                                                  rlx_module_t** out) {
  const char* only = relax_only(opts);
  if (only && strcmp(only, "none") == 0) {
    *out = m;
    return NULL;
  }
  return relax_stage(ctx, m, opts && opts->check_well_formed, only, NULL, out);
}

RLX_MUST_USE rlx_status_t* rlx_driver_lower_prim_funcs(rlx_ctx_t* ctx, rlx_module_t* m, rlx_module_t** out_module,
                                                       rlx_tir_func_t*** out_funcs, int* out_n) {
  return tir_stage(ctx, m, true, NULL, out_module, out_funcs, out_n);
}

RLX_MUST_USE rlx_status_t* rlx_driver_run(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_driver_options_t* opts,
                                          rlx_driver_result_t* out) {
  memset(out, 0, sizeof(*out));
  const char* stop = opts && opts->stop_after && strcmp(opts->stop_after, "all") != 0 ? opts->stop_after : NULL;
  const rlx_driver_pass_t* sp = stop ? find(stop) : NULL;
  if (stop && !sp) return unknown_pass(stop, ~0u, false);
  if (sp) stop = sp->name; /* a TVM name as rlx's */
  const char* only = relax_only(opts);
  uint64_t mark = rlx_alloc_failures();
  /* (import is the caller's) 1. Relax stage */
  rlx_module_t* cur = m;
  if (has_relax(m) && !(only && strcmp(only, "none") == 0)) {
    const char* rstop = sp && sp->stage == RLX_STAGE_RELAX ? stop : NULL;
    RLX_RETURN_IF_ERROR(relax_stage(ctx, m, opts && opts->check_well_formed, only, rstop, &cur));
    if (rstop) {
      out->module = out->relax = cur;
      return NULL;
    }
  } else if (sp && sp->stage == RLX_STAGE_RELAX && !sp->tir) {
    return rlx_status_create(RLX_INVALID_ARGUMENT, "pass '%s' runs on Relax functions; this module has none", stop);
  }
  out->relax = cur;
  /* 2. TIR stage: what is still unscheduled gets the default schedule first */
  const char* tstop = sp && sp->stage != RLX_STAGE_CODEGEN ? stop : NULL;
  RLX_RETURN_IF_ERROR(rlx_ctx_check(ctx, mark, tir_stage(ctx, cur, true, tstop, &cur, &out->funcs, &out->n_funcs)));
  out->module = cur;
  if (!sp || sp->stage != RLX_STAGE_CODEGEN) return NULL;
  /* 3. codegen: the kernels' C */
  rlx_status_t* st = rlx_ctx_check(ctx, mark, rlx_codegen_c(ctx, out->n_funcs, out->funcs, &out->c_source));
  if (st) { /* an allocation failed earlier: the source may be wrong, and is the caller's no more */
    free(out->c_source);
    out->c_source = NULL;
  }
  return st;
}
