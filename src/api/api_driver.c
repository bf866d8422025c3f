/* Public API for driver programs (include/rlx/rlx.h, "what a driver program needs"): loading
 * a TVMScript file, printing a module after a compile stage, the memory-plan and schedule
 * reports of `rlx compile --stats`, and calling a PrimFunc on given inputs. Library code:
 * every report is returned as text, never printed. */
#include <stdlib.h>
#include <string.h>

#include "rlx/rlx.h"

#include "../build/build.h"
#include "../codegen/codegen.h"
#include "../ir/ir.h"
#include "../relax/relax.h"
#include "../script/script.h"
#include "../tir/tir.h"
#include "../driver/driver.h"
#include "../transform/memory.h"
#include "../transform/pass.h"

RLX_MUST_USE rlx_status_t* rlx_script_parse_file(rlx_ctx_t* ctx, const char* path, rlx_module_t** out) {
  char* text = NULL;
  RLX_RETURN_IF_ERROR(rlx_file_read(path, &text, NULL));
  rlx_status_t* st = rlx_script_parse(ctx, text, path, out);
  free(text);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_module_print_after(rlx_ctx_t* ctx, rlx_module_t* m, const char* pass, bool show_meta,
                                                  char** out_text) {
  rlx_driver_result_t r = {0};
  if (pass) {
    rlx_driver_options_t o = {true, pass, NULL};
    RLX_RETURN_IF_ERROR(rlx_driver_run(ctx, m, &o, &r));
    if (r.c_source) { /* codegen_c: the generated C */
      *out_text = r.c_source;
      return NULL;
    }
    m = r.module;
  }
  char* text = rlx_script_print_module_ex(m, show_meta);
  if (!text) return rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (printing the module)");
  *out_text = text;
  return NULL;
}

static void print_size(rlx_strbuf_t* sb, const char* what, const rlx_memory_size_t* s) {
  if (s->is_static) rlx_strbuf_printf(sb, "%s=%lld", what, (long long)s->bytes);
  else rlx_strbuf_printf(sb, "%s=%s", what, s->str);
}

/* The packed function a call binds (R.call_pure_packed or a direct extern call), or NULL. */
static const char* packed_callee(const rlx_relax_expr_t* v) {
  if (v->kind != RLX_RELAX_CALL) return NULL;
  const rlx_relax_call_t* c = (const rlx_relax_call_t*)v;
  const rlx_relax_expr_t* f = c->op;
  if (f->kind == RLX_RELAX_OP) {
    if (!rlx_relax_is_op(f, RLX_OP_CALL_PURE_PACKED) || c->n_args == 0) return NULL;
    f = c->args[0];
  }
  return f->kind == RLX_RELAX_EXTERN_FUNC ? ((const rlx_relax_extern_func_t*)f)->global_symbol : NULL;
}

/* One line per binding of e (a SeqExpr, If branches included) whose tensors a packed
 * function allocates when it runs: results whose size is known only then (vm.builtin.nonzero,
 * unique, the sequence builtins ...), outside the static plan. Returns how many. */
static int runtime_allocs(rlx_ctx_t* ctx, rlx_strbuf_t* sb, const char* fname, const rlx_relax_expr_t* e) {
  int n = 0;
  if (e->kind == RLX_RELAX_IF) {
    const rlx_relax_if_t* f = (const rlx_relax_if_t*)e;
    return runtime_allocs(ctx, sb, fname, f->then_branch) + runtime_allocs(ctx, sb, fname, f->else_branch);
  }
  if (e->kind != RLX_RELAX_SEQ) return 0;
  const rlx_relax_seq_t* s = (const rlx_relax_seq_t*)e;
  for (int b = 0; b < s->n_blocks; b++)
    for (int k = 0; k < s->blocks[b]->n_bindings; k++) {
      const rlx_relax_binding_t* bd = s->blocks[b]->bindings[k];
      n += runtime_allocs(ctx, sb, fname, bd->value);
      const char* callee = packed_callee(bd->value);
      const rlx_sinfo_t* si = bd->var->hdr.sinfo;
      bool list = si && si->kind == RLX_SINFO_OBJECT && callee && strstr(callee, "sequence"); /* a VM list */
      if (!callee || !si || (si->kind != RLX_SINFO_TENSOR && si->kind != RLX_SINFO_TUPLE && !list)) continue;
      /* R.Tuple(): a destination-passing call (the rlx.nn kernels) returns nothing */
      if (si->kind == RLX_SINFO_TUPLE && ((const rlx_sinfo_tuple_t*)si)->n_fields == 0) continue;
      if (strncmp(callee, "vm.builtin.", 11) == 0 && strncmp(callee, "vm.builtin.alloc", 16) == 0) continue;
      rlx_strbuf_printf(sb, "run-time allocation %s: %s = %s(...) -> %s (sized by the callee when it runs)\n", fname,
                        bd->var->name, callee, rlx_sinfo_str(ctx, si));
      n++;
    }
  return n;
}

/* Memory planning figures of every Relax function: the module before plan_memory against
 * the module after it. */
static RLX_MUST_USE rlx_status_t* memory_report(rlx_ctx_t* ctx, rlx_module_t* m, rlx_strbuf_t* sb) {
  rlx_pipeline_options_t po = {false, "call_tir_rewrite"};
  rlx_module_t* before = NULL;
  rlx_module_t* after = NULL;
  RLX_RETURN_IF_ERROR(rlx_pipeline_run(ctx, m, &po, &before));
  RLX_RETURN_IF_ERROR(rlx_pass_plan_memory(ctx, before, &after));
  for (int i = 0; i < after->n_funcs; i++) {
    if (after->funcs[i].kind != RLX_FUNC_RELAX) continue;
    rlx_memory_stats_t s;
    RLX_RETURN_IF_ERROR(rlx_memory_stats(ctx, before, after, after->funcs[i].name, &s));
    rlx_strbuf_printf(sb, "memory %s: ", after->funcs[i].name);
    print_size(sb, "unplanned_bytes", &s.unplanned);
    rlx_strbuf_printf(sb, " (%d tensors) ", s.n_tensors);
    print_size(sb, "planned_bytes", &s.planned);
    rlx_strbuf_printf(sb, " (%d storages for %d tensors, %d outputs)", s.n_storages, s.n_planned_tensors,
                      s.n_unplanned_tensors);
    if (s.unplanned.is_static && s.planned.is_static && s.unplanned.bytes > 0)
      rlx_strbuf_printf(sb, " saved=%.1f%%",
                        100.0 * (double)(s.unplanned.bytes - s.planned.bytes) / (double)s.unplanned.bytes);
    rlx_strbuf_printf(sb, "\n");
    const rlx_relax_func_t* f = after->funcs[i].func;
    int n_rt = runtime_allocs(ctx, sb, after->funcs[i].name, f->body);
    rlx_strbuf_printf(sb, "memory %s: %d run-time allocation(s) outside the plan\n", after->funcs[i].name, n_rt);
  }
  return NULL;
}

/* A report written by write into a heap string; the pipeline folds as compiling does. */
static RLX_MUST_USE rlx_status_t* report_text(rlx_status_t* (*write)(rlx_ctx_t*, rlx_module_t*, rlx_strbuf_t*), rlx_ctx_t* ctx,
                                              rlx_module_t* m, char** out_text) {
  rlx_build_use_compiled_folds(ctx);
  rlx_strbuf_t sb = {0};
  rlx_status_t* st = write(ctx, m, &sb);
  if (st) {
    rlx_strbuf_free(&sb);
    return st;
  }
  char* s = rlx_strbuf_take(&sb);
  if (!s) return rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (report text)");
  *out_text = s;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_relax_memory_report(rlx_ctx_t* ctx, rlx_module_t* m, char** out_text) {
  return report_text(memory_report, ctx, m, out_text);
}

static RLX_MUST_USE rlx_status_t* schedule_report(rlx_ctx_t* ctx, rlx_module_t* m, rlx_strbuf_t* sb) {
  rlx_pipeline_options_t po = {false, "fuse_tir"};
  rlx_module_t* fused = NULL;
  RLX_RETURN_IF_ERROR(rlx_pipeline_run(ctx, m, &po, &fused));
  rlx_module_t* sched = NULL;
  rlx_sched_func_report_t* reps = NULL;
  int n = 0;
  RLX_RETURN_IF_ERROR(rlx_pass_default_schedule_report(ctx, fused, &sched, &n, &reps));
  int blocks = 0;
  for (int i = 0; i < n; i++) blocks += reps[i].report.n;
  rlx_strbuf_printf(sb, "schedule: %d block(s) left unscheduled in %d function(s)\n", blocks, n);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < reps[i].report.n; k++) {
      const rlx_sched_miss_t* ms = &reps[i].report.misses[k];
      rlx_strbuf_printf(sb, "unscheduled %s block %s (%s, %lld iterations): %s\n", reps[i].func, ms->block, ms->kind,
                        (long long)ms->work, ms->reason);
    }
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_schedule_report(rlx_ctx_t* ctx, rlx_module_t* m, char** out_text) {
  return report_text(schedule_report, ctx, m, out_text);
}

int rlx_tir_func_param_count(const rlx_tir_func_t* f) { return f->n_params; }

const char* rlx_tir_func_param_name(const rlx_tir_func_t* f, int i) {
  return i >= 0 && i < f->n_params ? f->params[i]->name : NULL;
}

bool rlx_tir_func_param_is_buffer(const rlx_tir_func_t* f, int i) {
  return i >= 0 && i < f->n_params && f->buffer_map[i] != NULL;
}

static DLDataType to_dl(rlx_dtype_t t) {
  DLDataType d = {t.code, t.bits, t.lanes};
  return d;
}

/* Binds the shape variables of buffer b from tensor t; checks ndim, dtype, constant dims. */
static RLX_MUST_USE rlx_status_t* bind_input(const rlx_tir_func_t* f, int index, const rlx_tir_buffer_t* b, const DLTensor* t,
                                             rlx_int_env_t* env) {
  char want[32], got[32];
  if (!rlx_dldtype_equal(to_dl(b->dtype), t->dtype))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: input %d (%s): expected dtype %s, got %s", f->name, index,
                             b->name, rlx_dtype_str(b->dtype, want), rlx_dldtype_str(t->dtype, got));
  if (b->ndim != t->ndim)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: input %d (%s): expected ndim %d, got %d", f->name, index,
                             b->name, b->ndim, t->ndim);
  for (int d = 0; d < b->ndim; d++) {
    int64_t v;
    if (b->shape[d]->kind == RLX_EXPR_VAR && !rlx_int_env_get(env, RLX_AS(rlx_var_t, b->shape[d]), &v)) {
      rlx_int_env_set(env, RLX_AS(rlx_var_t, b->shape[d]), t->shape[d]);
      continue;
    }
    rlx_status_t* st = rlx_ir_eval_int(b->shape[d], env, &v);
    if (st) { /* a compound expression of unknown vars: left to the kernel's own check */
      rlx_status_free(st);
      continue;
    }
    if (v != t->shape[d]) {
      char s[128];
      return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: input %d (%s): dimension %d is %lld, expected %lld (shape %s)",
                               f->name, index, b->name, d, (long long)t->shape[d], (long long)v,
                               rlx_shape_str(t->ndim, t->shape, s, sizeof(s)));
    }
  }
  return NULL;
}

/* Allocates a tensor for buffer b with its shape evaluated under env. */
static RLX_MUST_USE rlx_status_t* alloc_for(const rlx_tir_func_t* f, const rlx_tir_buffer_t* b, const rlx_int_env_t* env,
                                            rlx_ndarray_t** out) {
  int64_t shape[16];
  if (b->ndim > 16) return rlx_status_create(RLX_UNSUPPORTED, "%s: buffer %s has more than 16 dims", f->name, b->name);
  for (int d = 0; d < b->ndim; d++) {
    rlx_status_t* st = rlx_ir_eval_int(b->shape[d], env, &shape[d]);
    if (st) return rlx_status_annotate(st, "%s: cannot size parameter %s", f->name, b->name);
    if (shape[d] < 0)
      return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: parameter %s has negative dimension %lld", f->name, b->name,
                               (long long)shape[d]);
  }
  return rlx_ndarray_create(b->ndim, shape, to_dl(b->dtype), NULL, out);
}

RLX_MUST_USE rlx_status_t* rlx_tir_func_alloc_outputs(const rlx_tir_func_t* f, int n_inputs, DLTensor* const* inputs,
                                                      rlx_ndarray_t** out_outputs) {
  if (n_inputs < 0 || n_inputs > f->n_params)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s takes %d parameters, got %d inputs", f->name, f->n_params,
                             n_inputs);
  for (int i = 0; i < f->n_params; i++)
    if (!f->buffer_map[i])
      return rlx_status_create(RLX_UNSUPPORTED, "%s: scalar parameter '%s' cannot be given as a tensor", f->name,
                               f->params[i]->name);
  rlx_int_env_t env = {0};
  rlx_status_t* st = NULL;
  for (int i = 0; i < n_inputs && !st; i++) st = bind_input(f, i, f->buffer_map[i], inputs[i], &env);
  int n = 0;
  for (int i = n_inputs; i < f->n_params && !st; i++) {
    st = alloc_for(f, f->buffer_map[i], &env, &out_outputs[n]);
    if (!st) n++;
  }
  rlx_int_env_free(&env);
  if (st)
    for (int i = 0; i < n; i++) rlx_ndarray_release(out_outputs[i]);
  return st;
}
