/* Well-formedness of Relax functions (TVM's relax.analysis.well_formed). The rules are
 * listed at rlx_relax_well_formed in relax.h. Tests run it after building and after every
 * pass. */
#include <stdarg.h>
#include <string.h>

#include "relax.h"

typedef struct {
  rlx_ctx_t* ctx;
  rlx_module_t* m;
  const char* fname;
  rlx_ptrmap_t visible; /* relax var → non-NULL while in scope */
  rlx_ptrmap_t ever;    /* relax var → non-NULL once defined */
  RLX_VEC(const void*) scope;
  rlx_ptrmap_t sym; /* symbolic var → non-NULL while defined */
  RLX_VEC(const void*) sym_scope;
  bool in_dataflow;
  bool check_pure;     /* inside a pure function without relax.force_pure */
  const char* binding; /* var name of the binding being checked (messages) */
} wf_t;

static RLX_MUST_USE rlx_status_t* err(wf_t* w, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static RLX_MUST_USE rlx_status_t* err(wf_t* w, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rlx_status_t* st = rlx_status_createv(RLX_INVALID_ARGUMENT, fmt, ap);
  va_end(ap);
  if (w->binding) st = rlx_status_annotate(st, "binding %s", w->binding);
  return rlx_status_annotate(st, "well-formed: function '%s'", w->fname);
}

/* ------------------------------------------------------------------ scopes */
static void hide_to(wf_t* w, int mark) {
  while (w->scope.len > mark) rlx_ptrmap_put(&w->visible, w->scope.data[--w->scope.len], NULL);
}
static void sym_hide_to(wf_t* w, int mark) {
  while (w->sym_scope.len > mark) rlx_ptrmap_put(&w->sym, w->sym_scope.data[--w->sym_scope.len], NULL);
}

static RLX_MUST_USE rlx_status_t* define_var(wf_t* w, rlx_relax_var_t* v) {
  if (!v) return err(w, "a binding without a variable");
  if (rlx_ptrmap_get(&w->ever, v)) return err(w, "variable %s is defined more than once", v->name);
  if (!v->hdr.sinfo) return err(w, "variable %s has no struct info", v->name);
  rlx_ptrmap_put(&w->ever, v, (void*)1);
  rlx_ptrmap_put(&w->visible, v, (void*)1);
  rlx_vec_push(&w->scope, (const void*)v);
  return NULL;
}

static void define_sym_cb(rlx_var_t* v, bool whole_dim, void* user) {
  wf_t* w = user;
  if (whole_dim && !rlx_ptrmap_get(&w->sym, v)) {
    rlx_ptrmap_put(&w->sym, v, (void*)1);
    rlx_vec_push(&w->sym_scope, (const void*)v);
  }
}

typedef struct {
  wf_t* w;
  rlx_var_t* missing;
} sym_use_t;

static void use_sym_cb(rlx_var_t* v, bool whole_dim, void* user) {
  sym_use_t* u = user;
  if (!u->missing && !rlx_ptrmap_get(&u->w->sym, v)) u->missing = v;
}
static void use_expr_cb(const rlx_expr_t* e, void* user) {
  if (e->kind == RLX_EXPR_VAR) use_sym_cb((rlx_var_t*)e, false, user);
}

static RLX_MUST_USE rlx_status_t* check_sinfo_uses(wf_t* w, const rlx_sinfo_t* s, const char* where) {
  sym_use_t u = {w, NULL};
  rlx_sinfo_visit_vars(s, use_sym_cb, &u);
  if (u.missing)
    return err(w, "symbolic variable %s is used in %s %s before it is defined", u.missing->name, where,
               rlx_sinfo_str(w->ctx, s));
  return NULL;
}

static RLX_MUST_USE rlx_status_t* check_prim_uses(wf_t* w, int n, rlx_expr_t* const* es, const char* where) {
  sym_use_t u = {w, NULL};
  for (int i = 0; i < n; i++) rlx_expr_visit(es[i], use_expr_cb, &u);
  if (u.missing) return err(w, "symbolic variable %s is used in %s before it is defined", u.missing->name, where);
  return NULL;
}

/* ------------------------------------------------------------------ traversal */
static RLX_MUST_USE rlx_status_t* wf_expr(wf_t* w, rlx_relax_expr_t* e);
static RLX_MUST_USE rlx_status_t* wf_func(wf_t* w, const rlx_relax_func_t* f);

static RLX_MUST_USE rlx_status_t* wf_call(wf_t* w, rlx_relax_call_t* c) {
  if (!c->op) return err(w, "a call without a callee");
  if (c->op->kind != RLX_RELAX_OP) RLX_RETURN_IF_ERROR(wf_expr(w, c->op));
  for (int i = 0; i < c->n_args; i++) RLX_RETURN_IF_ERROR(wf_expr(w, c->args[i]));
  for (int i = 0; i < c->n_sinfo_args; i++) {
    if (!c->sinfo_args[i]) return err(w, "%s has a NULL struct info argument", rlx_relax_expr_brief(w->ctx, &c->hdr));
    RLX_RETURN_IF_ERROR(check_sinfo_uses(w, c->sinfo_args[i], "the struct info argument"));
  }
  if (rlx_relax_is_op(c->op, RLX_OP_CALL_TIR)) {
    if (c->n_args < 2 || c->args[0]->kind != RLX_RELAX_GLOBAL_VAR)
      return err(w, "R.call_tir needs a GlobalVar callee and an argument tuple");
    const char* name = ((rlx_relax_global_var_t*)c->args[0])->name;
    rlx_module_entry_t* ent = w->m ? rlx_module_find(w->m, name) : NULL;
    if (w->m && (!ent || ent->kind != RLX_FUNC_TIR)) return err(w, "R.call_tir callee @%s is not a PrimFunc of the module", name);
  }
  if (!rlx_relax_call_is_pure(c)) {
    if (w->in_dataflow)
      return err(w, "impure call %s occurs within a dataflow block", rlx_relax_expr_brief(w->ctx, &c->hdr));
    if (w->check_pure)
      return err(w, "impure call %s in a function annotated as pure (use pure=False or relax.force_pure)",
                 rlx_relax_expr_brief(w->ctx, &c->hdr));
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* wf_binding(wf_t* w, rlx_relax_binding_t* b) {
  if (!b || !b->var) return err(w, "a binding without a variable");
  w->binding = b->var->name;
  RLX_RETURN_IF_ERROR(wf_expr(w, b->value));
  if (b->var->hdr.kind == RLX_RELAX_DATAFLOW_VAR && !w->in_dataflow)
    return err(w, "DataflowVar %s is bound outside a dataflow block", b->var->name);
  if (!b->var->hdr.sinfo) return err(w, "variable %s has no struct info", b->var->name);
  switch (b->kind) {
    case RLX_BINDING_MATCH_CAST:
      if (!b->sinfo) return err(w, "match_cast without struct info");
      rlx_sinfo_visit_vars(b->sinfo, define_sym_cb, w);
      RLX_RETURN_IF_ERROR(check_sinfo_uses(w, b->sinfo, "match_cast struct info"));
      if (!rlx_sinfo_struct_equal(b->var->hdr.sinfo, b->sinfo))
        return err(w, "the variable's struct info %s differs from the match_cast struct info %s",
                   rlx_sinfo_str(w->ctx, b->var->hdr.sinfo), rlx_sinfo_str(w->ctx, b->sinfo));
      break;
    case RLX_BINDING_VAR:
      RLX_RETURN_IF_ERROR(check_sinfo_uses(w, b->var->hdr.sinfo, "the struct info"));
      break;
  }
  RLX_RETURN_IF_ERROR(define_var(w, b->var));
  w->binding = NULL;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* wf_seq(wf_t* w, rlx_relax_seq_t* s) {
  int mark = w->scope.len;
  bool saved_df = w->in_dataflow;
  for (int bi = 0; bi < s->n_blocks; bi++) {
    rlx_relax_block_t* blk = s->blocks[bi];
    if (!blk) return err(w, "NULL binding block");
    if (blk->is_dataflow && saved_df) return err(w, "a dataflow block nested in a dataflow block");
    w->in_dataflow = blk->is_dataflow || saved_df;
    int blk_start = w->scope.len;
    for (int k = 0; k < blk->n_bindings; k++) RLX_RETURN_IF_ERROR(wf_binding(w, blk->bindings[k]));
    if (blk->is_dataflow) /* only the block's outputs (plain Vars) stay visible */
      for (int k = blk_start; k < w->scope.len; k++) {
        const rlx_relax_var_t* v = w->scope.data[k];
        if (v->hdr.kind == RLX_RELAX_DATAFLOW_VAR) rlx_ptrmap_put(&w->visible, v, NULL);
      }
    w->in_dataflow = saved_df;
  }
  RLX_RETURN_IF_ERROR(wf_expr(w, s->body));
  hide_to(w, mark);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* wf_expr(wf_t* w, rlx_relax_expr_t* e) {
  if (!e) return err(w, "NULL expression");
  if (e->kind != RLX_RELAX_OP && !e->sinfo) return err(w, "%s has no struct info", rlx_relax_expr_brief(w->ctx, e));
  switch (e->kind) {
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR: {
      rlx_relax_var_t* v = (rlx_relax_var_t*)e;
      if (rlx_ptrmap_get(&w->visible, v)) return NULL;
      if (rlx_ptrmap_get(&w->ever, v)) {
        if (e->kind == RLX_RELAX_DATAFLOW_VAR) return err(w, "DataflowVar %s is used outside its dataflow block", v->name);
        return err(w, "variable %s is used outside the scope that defines it", v->name);
      }
      return err(w, "variable %s is used before it is defined", v->name);
    }
    case RLX_RELAX_CONSTANT:
    case RLX_RELAX_STRING_IMM:
    case RLX_RELAX_DATA_TYPE_IMM:
    case RLX_RELAX_OP:
    case RLX_RELAX_EXTERN_FUNC:
      return NULL;
    case RLX_RELAX_SHAPE_EXPR: {
      rlx_relax_shape_expr_t* s = (rlx_relax_shape_expr_t*)e;
      return check_prim_uses(w, s->ndim, s->values, "a shape expression");
    }
    case RLX_RELAX_PRIM_VALUE: return check_prim_uses(w, 1, &((rlx_relax_prim_value_t*)e)->value, "a prim value");
    case RLX_RELAX_TUPLE: {
      rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)e;
      for (int i = 0; i < t->n_fields; i++) RLX_RETURN_IF_ERROR(wf_expr(w, t->fields[i]));
      return NULL;
    }
    case RLX_RELAX_TUPLE_GET_ITEM: return wf_expr(w, ((rlx_relax_tuple_get_item_t*)e)->tuple);
    case RLX_RELAX_CALL: return wf_call(w, (rlx_relax_call_t*)e);
    case RLX_RELAX_IF: {
      rlx_relax_if_t* i = (rlx_relax_if_t*)e;
      if (w->in_dataflow) return err(w, "an If inside a dataflow block");
      RLX_RETURN_IF_ERROR(wf_expr(w, i->cond));
      const char* saved = w->binding;
      RLX_RETURN_IF_ERROR(wf_expr(w, i->then_branch));
      w->binding = saved;
      RLX_RETURN_IF_ERROR(wf_expr(w, i->else_branch));
      w->binding = saved;
      return NULL;
    }
    case RLX_RELAX_SEQ: {
      const char* saved = w->binding;
      RLX_RETURN_IF_ERROR(wf_seq(w, (rlx_relax_seq_t*)e));
      w->binding = saved;
      return NULL;
    }
    case RLX_RELAX_FUNCTION: {
      bool df = w->in_dataflow, pure = w->check_pure;
      const char* saved = w->binding;
      w->in_dataflow = false;
      RLX_RETURN_IF_ERROR(wf_func(w, (const rlx_relax_func_t*)e));
      w->in_dataflow = df;
      w->check_pure = pure;
      w->binding = saved;
      return NULL;
    }
    case RLX_RELAX_GLOBAL_VAR: {
      const char* name = ((rlx_relax_global_var_t*)e)->name;
      if (w->m && !rlx_module_find(w->m, name)) return err(w, "GlobalVar @%s refers to no function of the module", name);
      return NULL;
    }
    case RLX_RELAX_KIND_COUNT: break;
  }
  return err(w, "bad expression kind %d", (int)e->kind);
}

static RLX_MUST_USE rlx_status_t* wf_func(wf_t* w, const rlx_relax_func_t* f) {
  int mark = w->scope.len, sym_mark = w->sym_scope.len;
  const rlx_attr_t* fp = rlx_attrs_get(&f->attrs, "relax.force_pure");
  bool force_pure = fp && ((fp->kind == RLX_ATTR_BOOL && fp->u.b) || (fp->kind == RLX_ATTR_INT && fp->u.i));
  if (force_pure && !f->is_pure) return err(w, "relax.force_pure is set but the function is not pure");
  if (!f->hdr.sinfo) return err(w, "the function has no struct info");
  w->check_pure = f->is_pure && !force_pure;
  w->binding = NULL;
  for (int i = 0; i < f->n_params; i++) {
    rlx_relax_var_t* p = f->params[i];
    if (!p) return err(w, "parameter %d is NULL", i);
    if (p->hdr.kind == RLX_RELAX_DATAFLOW_VAR) return err(w, "parameter %s is a DataflowVar", p->name);
    RLX_RETURN_IF_ERROR(define_var(w, p));
    rlx_sinfo_visit_vars(p->hdr.sinfo, define_sym_cb, w);
  }
  for (int i = 0; i < f->n_params; i++)
    RLX_RETURN_IF_ERROR(check_sinfo_uses(w, f->params[i]->hdr.sinfo, "the struct info of a parameter"));
  if (f->ret_sinfo) RLX_RETURN_IF_ERROR(check_sinfo_uses(w, f->ret_sinfo, "the return struct info"));
  if (!f->body) return err(w, "the function has no body");
  if (f->body->kind != RLX_RELAX_SEQ)
    return err(w, "the function body must be a SeqExpr, got %s", rlx_relax_kind_name(f->body->kind));
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
  if (!f->body->sinfo) return err(w, "the function body has no struct info");
  RLX_RETURN_IF_ERROR(wf_seq(w, seq));
  if (seq->body && seq->body->kind == RLX_RELAX_DATAFLOW_VAR)
    return err(w, "the function returns DataflowVar %s (emit it with emit_output)",
               ((rlx_relax_var_t*)seq->body)->name);
  hide_to(w, mark);
  sym_hide_to(w, sym_mark);
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_relax_func_well_formed(rlx_ctx_t* ctx, rlx_module_t* m, const char* name, const rlx_relax_func_t* f) {
  wf_t w;
  memset(&w, 0, sizeof(w));
  w.ctx = ctx;
  w.m = m;
  w.fname = name ? name : "?";
  rlx_status_t* st = f ? wf_func(&w, f) : err(&w, "NULL function");
  rlx_ptrmap_free(&w.visible);
  rlx_ptrmap_free(&w.ever);
  rlx_ptrmap_free(&w.sym);
  rlx_vec_free(&w.scope);
  rlx_vec_free(&w.sym_scope);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_relax_well_formed(rlx_ctx_t* ctx, rlx_module_t* m) {
  for (int i = 0; i < m->n_funcs; i++) {
    rlx_module_entry_t* e = &m->funcs[i];
    if (e->kind != RLX_FUNC_RELAX) continue;
    RLX_RETURN_IF_ERROR(rlx_relax_func_well_formed(ctx, m, e->name, e->func));
  }
  return NULL;
}
