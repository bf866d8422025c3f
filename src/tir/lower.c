/* The TIR lowering pipeline: one table of passes, run in order, each result verified.
 *
 * Requires: a well-formed PrimFunc (rlx_tir_verify passes).
 * Produces: a function without blocks, with 1-D buffer accesses, unrolled/vectorized loops
 * expanded, expressions simplified; verified after every pass. An error names the pass and
 * the function.
 */
#include <string.h>

#include "schedule/schedule.h"
#include "transform.h"

typedef rlx_status_t* (*pass_fn_t)(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out);

typedef struct {
  const char* name;
  pass_fn_t fn;
} pass_t;

/* The pipeline after the (optional) default schedule, in order (see transform.h). */
static const pass_t passes[] = {
    {"lower_blocks", rlx_tir_lower_blocks},       {"flatten_buffers", rlx_tir_flatten_buffers},
    {"unroll_loops", rlx_tir_unroll_loops},       {"vectorize_loops", rlx_tir_vectorize_loops},
    {"simplify", rlx_tir_simplify},
};

static bool attr_true(const rlx_tir_func_t* f, const char* key) {
  int64_t v;
  rlx_expr_t* a = rlx_tir_func_get_attr(f, key);
  return a && rlx_expr_is_const_int(a, &v) && v != 0;
}

static rlx_status_t* run_pass(rlx_ctx_t* ctx, const char* name, pass_fn_t fn, const rlx_tir_func_t* f,
                              rlx_tir_func_t** out) {
  rlx_tir_func_t* r = NULL;
  rlx_status_t* st = fn(ctx, f, &r);
  if (st) return rlx_status_annotate(st, "lowering '%s': pass %s", f->name, name);
  st = rlx_tir_verify(r);
  if (st) return rlx_status_annotate(st, "lowering '%s': ill-formed after pass %s", f->name, name);
  *out = r;
  return NULL;
}

/* True when name is "all" or one of the pipeline's pass names. */
static bool known_pass(const char* name) {
  if (strcmp(name, "all") == 0 || strcmp(name, "default_schedule") == 0) return true;
  for (size_t i = 0; i < sizeof(passes) / sizeof(passes[0]); i++)
    if (strcmp(name, passes[i].name) == 0) return true;
  return false;
}

rlx_status_t* rlx_tir_lower_until(rlx_ctx_t* ctx, const rlx_tir_func_t* f, bool apply_default_schedule,
                                  const char* stop_after, rlx_tir_func_t** out) {
  if (!stop_after) stop_after = "all";
  if (!known_pass(stop_after))
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "unknown pass '%s' (passes: default_schedule, lower_blocks, flatten_buffers, "
                             "unroll_loops, vectorize_loops, simplify, all)",
                             stop_after);
  rlx_status_t* st = rlx_tir_verify(f);
  if (st) return rlx_status_annotate(st, "lowering '%s': ill-formed input", f->name);
  rlx_tir_func_t* cur = (rlx_tir_func_t*)f;
  if (apply_default_schedule && !attr_true(f, "tir.is_scheduled") && !attr_true(f, "rlx.no_default_schedule"))
    RLX_RETURN_IF_ERROR(run_pass(ctx, "default_schedule", rlx_tir_default_schedule, cur, &cur));
  for (size_t i = 0; i < sizeof(passes) / sizeof(passes[0]) && strcmp(stop_after, "default_schedule") != 0; i++) {
    RLX_RETURN_IF_ERROR(run_pass(ctx, passes[i].name, passes[i].fn, cur, &cur));
    if (strcmp(stop_after, passes[i].name) == 0) break;
  }
  *out = cur;
  return NULL;
}

rlx_status_t* rlx_tir_lower(rlx_ctx_t* ctx, const rlx_tir_func_t* f, bool apply_default_schedule,
                            rlx_tir_func_t** out) {
  return rlx_tir_lower_until(ctx, f, apply_default_schedule, "all", out);
}

rlx_status_t* rlx_tir_lower_module_until(rlx_ctx_t* ctx, rlx_module_t* module, bool apply_default_schedule,
                                         const char* stop_after, rlx_module_t** out_module) {
  rlx_module_t* m = rlx_module_create(ctx);
  for (int i = 0; i < module->n_funcs; i++) {
    rlx_module_entry_t* e = &module->funcs[i];
    void* fn = e->func;
    if (e->kind == RLX_FUNC_TIR) {
      rlx_tir_func_t* lowered = NULL;
      RLX_RETURN_IF_ERROR(rlx_tir_lower_until(ctx, e->func, apply_default_schedule, stop_after, &lowered));
      fn = lowered;
    }
    rlx_module_set(m, e->name, e->kind, fn);
  }
  *out_module = m;
  return NULL;
}

rlx_status_t* rlx_tir_lower_module(rlx_ctx_t* ctx, rlx_module_t* module, bool apply_default_schedule,
                                   rlx_module_t** out_module) {
  return rlx_tir_lower_module_until(ctx, module, apply_default_schedule, "all", out_module);
}
