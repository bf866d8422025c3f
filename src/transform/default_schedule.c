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
 * contraction left untiled with 65536 or more iterations is an error; scalar reductions (the
 * generic pools of the ONNX suite: up to 715K iterations) and symbolic counts are reported only.
 * Weights: a PrimFunc parameter that every call_tir passes a Constant is marked in
 * "rlx.const_params" for the schedule; a matmul whose B is such a parameter reads it in the
 * packed panel layout, and this pass replaces the constant at every call site by its packed
 * copy ("rlx.packed_params": param,kdim,jdim,NR; -- Bp[jo, k, ji] = B[..k.., ..jo*NR+ji..],
 * 0 beyond N), so no weight is repacked at run time. Both attributes are removed after.
 */
#include <stdlib.h>
#include <string.h>

#include "../tir/schedule/schedule.h"
#include "pass.h"
#include "pass_util.h"

/* below this many iterations a left-over block is "trivially small" (the size from which the
 * default schedule starts to use threads) */
enum { TRIVIAL_WORK = 65536 };

/* ---- constant parameters */
typedef struct {
  rlx_module_t* m;
  const rlx_tir_func_t* f;
  uint64_t mask; /* params passed a Constant at every call seen so far */
  int calls;
  const rlx_ptrmap_t* bound; /* var → the Constant it is bound to (fold_constants leaves those) */
} const_scan_t;

/* e itself when a Constant, the Constant a var is bound to (per bound), else NULL. */
static const rlx_relax_constant_t* constant_of(const rlx_ptrmap_t* bound, const rlx_relax_expr_t* e) {
  if (e->kind == RLX_RELAX_CONSTANT) return (const rlx_relax_constant_t*)e;
  return rlx_relax_is_var(e) && bound ? rlx_ptrmap_get(bound, e) : NULL;
}

static void collect_bound(const rlx_relax_expr_t* e, void* user) {
  if (e->kind != RLX_RELAX_SEQ) return;
  const rlx_relax_seq_t* s = (const rlx_relax_seq_t*)e;
  for (int i = 0; i < s->n_blocks; i++)
    for (int k = 0; k < s->blocks[i]->n_bindings; k++) {
      const rlx_relax_binding_t* b = s->blocks[i]->bindings[k];
      if (b->kind == RLX_BINDING_VAR && b->value->kind == RLX_RELAX_CONSTANT) rlx_ptrmap_put(user, b->var, b->value);
    }
}

/* Every var of m's Relax functions bound to a Constant. */
static void bound_constants(rlx_module_t* m, rlx_ptrmap_t* out) {
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].kind == RLX_FUNC_RELAX) rlx_relax_expr_visit(&((rlx_relax_func_t*)m->funcs[i].func)->hdr, collect_bound, out);
}

static rlx_relax_tuple_t* call_tir_args(const rlx_relax_call_t* c) {
  return c->n_args >= 2 && c->args[1]->kind == RLX_RELAX_TUPLE ? (rlx_relax_tuple_t*)c->args[1] : NULL;
}

static void scan_call(const rlx_relax_expr_t* e, void* user) {
  const_scan_t* cs = user;
  if (e->kind != RLX_RELAX_CALL) return;
  const rlx_relax_call_t* c = (const rlx_relax_call_t*)e;
  if (pass_call_tir_func(cs->m, c) != cs->f) return;
  rlx_relax_tuple_t* t = call_tir_args(c);
  uint64_t mask = 0;
  for (int i = 0; t && i < t->n_fields && i < 63; i++)
    if (constant_of(cs->bound, t->fields[i])) mask |= (uint64_t)1 << i;
  cs->mask &= mask;
  cs->calls++;
}

/* Params of f that every call_tir of it (at least one) passes a Constant, as a bit mask. */
static uint64_t const_params(rlx_module_t* m, const rlx_tir_func_t* f, const rlx_ptrmap_t* bound) {
  const_scan_t cs = {m, f, ~(uint64_t)0, 0, bound};
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].kind == RLX_FUNC_RELAX) rlx_relax_expr_visit(&((rlx_relax_func_t*)m->funcs[i].func)->hdr, scan_call, &cs);
  return cs.calls ? cs.mask : 0;
}

/* The packed copy of constant c for spec (kdim, jdim, nr): shape [ceil(N/nr), K, nr]. */
static rlx_relax_expr_t* pack_constant(rlx_ctx_t* ctx, const rlx_relax_constant_t* c, int kdim, int jdim, int64_t nr) {
  if (!rlx_dtype_eq(c->dtype, rlx_dt_float32()) || kdim >= c->ndim || jdim >= c->ndim || nr <= 0) return NULL;
  int64_t stride[16], st = 1;
  if (c->ndim > 16) return NULL;
  for (int d = c->ndim - 1; d >= 0; d--) {
    stride[d] = st;
    st *= c->shape[d];
  }
  int64_t K = c->shape[kdim], N = c->shape[jdim], NO = (N + nr - 1) / nr;
  size_t n = (size_t)(NO * K * nr);
  float* out = rlx_ctx_alloc(ctx, n * sizeof(float) + 1);
  if (!out) return NULL; /* out of memory: the caller's error, turned into OUT_OF_MEMORY by the check */
  const float* in = c->data;
  for (int64_t jo = 0; jo < NO; jo++)
    for (int64_t k = 0; k < K; k++)
      for (int64_t ji = 0; ji < nr; ji++) {
        int64_t col = jo * nr + ji;
        out[(jo * K + k) * nr + ji] = col < N ? in[k * stride[kdim] + col * stride[jdim]] : 0.0f;
      }
  int64_t shape[3] = {NO, K, nr};
  return rlx_relax_constant(ctx, c->dtype, 3, shape, out, n * sizeof(float));
}

typedef struct {
  rlx_module_t* m;
  const rlx_ptrmap_t* bound;
} repack_t;

/* A call_tir of a PrimFunc with "rlx.packed_params": its constant arguments packed. */
static RLX_MUST_USE rlx_status_t* repack_call(rlx_ctx_t* ctx, rlx_relax_expr_t* e, void* user, rlx_relax_expr_t** out) {
  repack_t* r = user;
  *out = e;
  if (e->kind != RLX_RELAX_CALL) return NULL;
  rlx_relax_call_t* c = (rlx_relax_call_t*)e;
  rlx_tir_func_t* f = pass_call_tir_func(r->m, c);
  rlx_expr_t* spec = f ? rlx_tir_func_get_attr(f, "rlx.packed_params") : NULL;
  rlx_relax_tuple_t* t = call_tir_args(c);
  if (!spec || spec->kind != RLX_EXPR_STRING_IMM || !t) return NULL;
  rlx_relax_expr_t** fields = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, t->n_fields);
  for (int i = 0; i < t->n_fields; i++) fields[i] = t->fields[i];
  for (const char* p = RLX_AS(rlx_string_imm_t, spec)->value; *p;) {
    char* end;
    long v[4];
    for (int q = 0; q < 4; q++) {
      v[q] = strtol(p, &end, 10);
      p = *end ? end + 1 : end;
    }
    rlx_relax_expr_t* packed = NULL;
    const rlx_relax_constant_t* k = v[0] >= 0 && v[0] < t->n_fields ? constant_of(r->bound, t->fields[v[0]]) : NULL;
    if (k) packed = pack_constant(ctx, k, (int)v[1], (int)v[2], v[3]);
    if (!packed)
      return rlx_status_create(RLX_INTERNAL, "default_schedule: cannot pack argument %ld of a call to '%s'", v[0],
                               f->name);
    fields[v[0]] = packed;
  }
  rlx_relax_expr_t** args = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, c->n_args);
  for (int i = 0; i < c->n_args; i++) args[i] = c->args[i];
  args[1] = rlx_relax_tuple(ctx, t->n_fields, fields);
  *out = rlx_relax_call(ctx, c->op, c->n_args, args, c->attrs, c->n_sinfo_args, c->sinfo_args);
  return NULL;
}

static rlx_tir_func_t* without_attr(rlx_ctx_t* ctx, const rlx_tir_func_t* f, const char* key) {
  rlx_tir_func_t* g = rlx_tir_func_copy(ctx, f);
  int k = 0;
  for (int i = 0; i < g->n_attrs; i++)
    if (strcmp(g->attr_keys[i], key) != 0) {
      g->attr_keys[k] = g->attr_keys[i];
      g->attr_values[k++] = g->attr_values[i];
    }
  g->n_attrs = k;
  return g;
}

static void count_use(const rlx_relax_expr_t* e, void* user) {
  if (rlx_relax_is_var(e)) rlx_ptrmap_put(user, e, (void*)((intptr_t)rlx_ptrmap_get(user, e) + 1));
}

/* body without the dataflow bindings of a Constant that nothing reads any more (the
 * unpacked copy of a weight whose calls now take the packed one). */
static rlx_relax_expr_t* drop_dead_constants(rlx_ctx_t* ctx, rlx_relax_expr_t* body) {
  if (body->kind != RLX_RELAX_SEQ) return body;
  rlx_relax_seq_t* s = (rlx_relax_seq_t*)body;
  rlx_ptrmap_t uses = {0};
  rlx_relax_expr_visit(body, count_use, &uses);
  rlx_relax_block_t** blocks = RLX_NEW_ARRAY(ctx, rlx_relax_block_t*, s->n_blocks);
  int nb = 0;
  for (int i = 0; i < s->n_blocks; i++) {
    rlx_relax_block_t* blk = s->blocks[i];
    rlx_relax_binding_t** keep = RLX_NEW_ARRAY(ctx, rlx_relax_binding_t*, blk->n_bindings > 0 ? blk->n_bindings : 1);
    int n = 0;
    for (int k = 0; k < blk->n_bindings; k++) {
      rlx_relax_binding_t* b = blk->bindings[k];
      bool dead = blk->is_dataflow && b->var->hdr.kind == RLX_RELAX_DATAFLOW_VAR && b->value->kind == RLX_RELAX_CONSTANT &&
                  !rlx_ptrmap_get(&uses, b->var);
      if (!dead) keep[n++] = b;
    }
    if (n) blocks[nb++] = n == blk->n_bindings ? blk : rlx_relax_block(ctx, blk->is_dataflow, n, keep);
  }
  rlx_ptrmap_free(&uses);
  return rlx_relax_seq(ctx, nb, blocks, s->body);
}

/* Packs the constants of every call_tir of a function with "rlx.packed_params", then drops
 * that attribute. */
static RLX_MUST_USE rlx_status_t* repack_calls(rlx_ctx_t* ctx, rlx_module_t* m, bool any, const rlx_ptrmap_t* bound) {
  if (!any) return NULL;
  repack_t r = {m, bound};
  for (int i = 0; i < m->n_funcs; i++) {
    rlx_module_entry_t* e = &m->funcs[i];
    if (e->kind != RLX_FUNC_RELAX) continue;
    rlx_relax_func_t* f = e->func;
    rlx_relax_expr_t* body = NULL;
    RLX_RETURN_IF_ERROR(rlx_relax_expr_transform(ctx, f->body, repack_call, &r, &body));
    if (body == f->body) continue;
    body = drop_dead_constants(ctx, body);
    rlx_relax_func_t* nf = NULL;
    RLX_RETURN_IF_ERROR(pass_func_with_body(ctx, m, f, body, &nf));
    e->func = nf;
  }
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].kind == RLX_FUNC_TIR && rlx_tir_func_get_attr(m->funcs[i].func, "rlx.packed_params"))
      m->funcs[i].func = without_attr(ctx, m->funcs[i].func, "rlx.packed_params");
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_pass_default_schedule_report(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out,
                                                            int* out_n, rlx_sched_func_report_t** out_reports) {
  rlx_module_t* m = pass_module_copy(ctx, in);
  int n_rep = 0;
  rlx_sched_func_report_t* reps = RLX_NEW_ARRAY(ctx, rlx_sched_func_report_t, m->n_funcs > 0 ? m->n_funcs : 1);
  bool any_packed = false;
  rlx_ptrmap_t bound = {0};
  bound_constants(in, &bound);
  rlx_status_t* st = NULL;
  for (int i = 0; !st && i < m->n_funcs; i++) {
    rlx_module_entry_t* e = &m->funcs[i];
    if (e->kind != RLX_FUNC_TIR) continue;
    rlx_tir_func_t* f = e->func;
    if (!rlx_tir_func_needs_default_schedule(f)) continue;
    rlx_tir_func_t* s = NULL;
    rlx_sched_report_t r;
    uint64_t cp = const_params(in, f, &bound);
    rlx_tir_func_t* fin = cp ? rlx_tir_func_with_attr(ctx, f, "rlx.const_params", rlx_ir_i64(ctx, (int64_t)cp)) : f;
    st = rlx_status_annotate(rlx_tir_default_schedule_report(ctx, fin, &s, &r), "default_schedule of '%s'", e->name);
    if (st) break;
    if (cp) s = without_attr(ctx, s, "rlx.const_params");
    any_packed = any_packed || rlx_tir_func_get_attr(s, "rlx.packed_params");
    e->func = s;
    if (r.n == 0) continue;
    reps[n_rep].func = e->name;
    reps[n_rep++].report = r;
#ifndef NDEBUG
    for (int k = 0; !st && k < r.n; k++)
      if (strcmp(r.misses[k].kind, "matmul") == 0 && r.misses[k].work >= TRIVIAL_WORK)
        st = rlx_status_create(RLX_UNSUPPORTED,
                               "default_schedule of '%s': block '%s' (%s, %lld iterations) left unscheduled: %s "
                               "(an error in Debug builds; `rlx compile --stats` lists every such block)",
                               e->name, r.misses[k].block, r.misses[k].kind, (long long)r.misses[k].work,
                               r.misses[k].reason);
#endif
  }
  if (!st) st = repack_calls(ctx, m, any_packed, &bound);
  rlx_ptrmap_free(&bound);
  if (st) return st;
  if (out_n) *out_n = n_rep;
  if (out_reports) *out_reports = reps;
  *out = m;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_pass_default_schedule(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out) {
  return rlx_pass_default_schedule_report(ctx, in, out, NULL, NULL);
}
