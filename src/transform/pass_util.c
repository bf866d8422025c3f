/* Helpers shared by the Relax passes (see pass_util.h). */
#include "pass_util.h"

#include <string.h>

rlx_module_t* pass_module_copy(rlx_ctx_t* ctx, const rlx_module_t* m) {
  rlx_module_t* out = rlx_module_create(ctx);
  for (int i = 0; i < m->n_funcs; i++) rlx_module_set(out, m->funcs[i].name, m->funcs[i].kind, m->funcs[i].func);
  return out;
}

typedef struct {
  rlx_module_t* m;
  bool* used;
} mark_t;

static void mark_cb(const rlx_relax_expr_t* e, void* user) {
  mark_t* mk = user;
  if (e->kind != RLX_RELAX_GLOBAL_VAR) return;
  rlx_module_entry_t* ent = rlx_module_find(mk->m, ((const rlx_relax_global_var_t*)e)->name);
  if (ent) mk->used[ent - mk->m->funcs] = true;
}

void pass_module_mark_used(rlx_module_t* m, bool* out_used) {
  mark_t mk = {m, out_used};
  for (int i = 0; i < m->n_funcs; i++) out_used[i] = false;
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].kind == RLX_FUNC_RELAX)
      rlx_relax_expr_visit(&((rlx_relax_func_t*)m->funcs[i].func)->hdr, mark_cb, &mk);
}

rlx_module_t* pass_module_drop_dead_tir(rlx_ctx_t* ctx, rlx_module_t* before, rlx_module_t* after) {
  bool* used_before = RLX_NEW_ARRAY(ctx, bool, before->n_funcs);
  bool* used_after = RLX_NEW_ARRAY(ctx, bool, after->n_funcs);
  pass_module_mark_used(before, used_before);
  pass_module_mark_used(after, used_after);
  bool any = false;
  bool* drop = RLX_NEW_ARRAY(ctx, bool, after->n_funcs);
  for (int i = 0; i < after->n_funcs; i++) {
    rlx_module_entry_t* e = &after->funcs[i];
    rlx_module_entry_t* old = rlx_module_find(before, e->name);
    drop[i] = e->kind == RLX_FUNC_TIR && !used_after[i] && old && used_before[old - before->funcs];
    any |= drop[i];
  }
  if (!any) return after;
  rlx_module_t* out = rlx_module_create(ctx);
  for (int i = 0; i < after->n_funcs; i++)
    if (!drop[i]) rlx_module_set(out, after->funcs[i].name, after->funcs[i].kind, after->funcs[i].func);
  return out;
}

rlx_tir_func_t* pass_call_tir_func(rlx_module_t* m, const rlx_relax_call_t* c) {
  if (!rlx_relax_is_op(c->op, RLX_OP_CALL_TIR) || c->n_args < 2 || c->args[0]->kind != RLX_RELAX_GLOBAL_VAR)
    return NULL;
  rlx_module_entry_t* e = rlx_module_find(m, ((rlx_relax_global_var_t*)c->args[0])->name);
  return e && e->kind == RLX_FUNC_TIR ? e->func : NULL;
}

RLX_MUST_USE rlx_status_t* pass_func_with_body(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_relax_func_t* f,
                                               rlx_relax_expr_t* body, rlx_relax_func_t** out) {
  rlx_relax_func_t* nf = rlx_relax_func(ctx, f->n_params, f->params, body, f->ret_sinfo, f->attrs, f->is_pure);
  RLX_RETURN_IF_ERROR(rlx_relax_normalize(ctx, m, &nf->hdr));
  *out = nf;
  return NULL;
}

RLX_MUST_USE rlx_status_t* pass_map_relax_funcs(rlx_ctx_t* ctx, rlx_module_t* m, const char* pass, pass_func_fn_t fn, void* user) {
  for (int i = 0; i < m->n_funcs; i++) {
    rlx_module_entry_t* ent = &m->funcs[i];
    if (ent->kind != RLX_FUNC_RELAX) continue;
    rlx_relax_func_t* f = NULL;
    rlx_status_t* st = fn(user, ent->func, &f);
    if (!st && f != ent->func) st = rlx_relax_normalize(ctx, m, &f->hdr);
    if (st) return rlx_status_annotate(st, "%s: function '%s'", pass, ent->name);
    ent->func = f;
  }
  return NULL;
}

rlx_status_t* pass_rewrite_blocks(rlx_ctx_t* ctx, rlx_bb_t* bb, rlx_module_t* m, const char* name, const rlx_relax_func_t* f,
                                  const pass_rewriter_t* r, void* user, rlx_relax_func_t** out) {
  *out = NULL;
  if (f->body->kind != RLX_RELAX_SEQ) return NULL;
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
  bool any = false;
  for (int i = 0; i < seq->n_blocks && !any; i++)
    for (int k = 0; k < seq->blocks[i]->n_bindings && !any; k++)
      any = seq->blocks[i]->is_dataflow && r->wanted(seq->blocks[i]->bindings[k]->value);
  if (!any) return NULL;
  rlx_relax_var_t* none[1] = {NULL};
  RLX_RETURN_IF_ERROR(rlx_bb_function_begin(bb, name, f->n_params, f->n_params ? f->params : none));
  RLX_RETURN_IF_ERROR(rlx_bb_function_set_pure(bb, f->is_pure));
  for (int i = 0; i < seq->n_blocks; i++) {
    rlx_relax_block_t* blk = seq->blocks[i];
    if (!blk->is_dataflow) {
      for (int k = 0; k < blk->n_bindings; k++) {
        RLX_RETURN_IF_ERROR(r->uses(user, blk->bindings[k]->value));
        RLX_RETURN_IF_ERROR(rlx_bb_emit_binding(bb, blk->bindings[k]));
      }
      continue;
    }
    RLX_RETURN_IF_ERROR(rlx_bb_dataflow_begin(bb));
    for (int k = 0; k < blk->n_bindings; k++) RLX_RETURN_IF_ERROR(r->binding(user, blk->bindings[k]));
    for (int k = 0; k < blk->n_bindings; k++) {
      rlx_relax_var_t* v = blk->bindings[k]->var;
      if (v->hdr.kind == RLX_RELAX_VAR) RLX_RETURN_IF_ERROR(r->leaving(user, v));
    }
    RLX_RETURN_IF_ERROR(rlx_bb_dataflow_end(bb));
  }
  RLX_RETURN_IF_ERROR(r->uses(user, seq->body));
  RLX_RETURN_IF_ERROR(rlx_bb_emit_func_output(bb, seq->body, 0, NULL));
  rlx_relax_func_t* built = NULL;
  RLX_RETURN_IF_ERROR(rlx_bb_function_finish(bb, &built));
  return pass_func_with_body(ctx, m, f, built->body, out);
}

static void collect_vars(const rlx_relax_expr_t* e, void* user) {
  rlx_ptrmap_t* m = user;
  if (rlx_relax_is_var(e)) rlx_ptrmap_put(m, e, (void*)1);
}

rlx_status_t* pass_each_var(const rlx_relax_expr_t* e, rlx_status_t* (*fn)(void* user, rlx_relax_var_t* v), void* user) {
  rlx_ptrmap_t seen = {0};
  rlx_relax_expr_visit(e, collect_vars, &seen);
  rlx_status_t* st = NULL;
  for (size_t k = 0; !st && k < seen.cap; k++)
    if (seen.keys[k]) st = fn(user, (rlx_relax_var_t*)seen.keys[k]);
  rlx_ptrmap_free(&seen);
  return st;
}
