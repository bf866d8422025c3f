/* BlockBuilder: builds Relax functions binding by binding (TVM's relax.BlockBuilder), and
 * emit_te, which turns a TE computation into a PrimFunc of the module plus an R.call_tir. */
#include <string.h>

#include "relax.h"

/* Arena-backed growable array of pointers (the builder is arena-owned and never freed). */
typedef struct {
  void** data;
  int len, cap;
} ptr_list_t;

static void list_push(rlx_ctx_t* ctx, ptr_list_t* l, void* p) {
  if (l->len == l->cap) {
    int cap = l->cap ? l->cap * 2 : 8;
    void** nd = RLX_NEW_ARRAY(ctx, void*, cap);
    if (l->len) memcpy(nd, l->data, sizeof(void*) * (size_t)l->len);
    l->data = nd;
    l->cap = cap;
  }
  l->data[l->len++] = p;
}

static bool list_has(const ptr_list_t* l, const void* p) {
  for (int i = 0; i < l->len; i++)
    if (l->data[i] == p) return true;
  return false;
}

/* Names used in the open function: an open-addressing set of strings, each with the next
 * numeric suffix to try when it is used as a hint again (TVM's NameSupply: lv, lv1, lv2). */
typedef struct {
  const char** keys;
  int* next;
  int cap, len;
} name_set_t;

static int ns_slot(const name_set_t* ns, const char* key) {
  int i = (int)(rlx_hash_bytes(key, strlen(key), 0) & (uint64_t)(ns->cap - 1));
  while (ns->keys[i] && strcmp(ns->keys[i], key) != 0) i = (i + 1) & (ns->cap - 1);
  return i;
}

static int ns_find(const name_set_t* ns, const char* key) {
  if (!ns->cap) return -1;
  int i = ns_slot(ns, key);
  return ns->keys[i] ? i : -1;
}

static void ns_add(rlx_ctx_t* ctx, name_set_t* ns, const char* key) {
  if ((ns->len + 1) * 2 > ns->cap) {
    name_set_t big = {NULL, NULL, ns->cap ? ns->cap * 2 : 64, 0};
    big.keys = RLX_NEW_ARRAY(ctx, const char*, big.cap);
    big.next = RLX_NEW_ARRAY(ctx, int, big.cap);
    for (int i = 0; i < ns->cap; i++) {
      if (!ns->keys[i]) continue;
      int j = ns_slot(&big, ns->keys[i]);
      big.keys[j] = ns->keys[i];
      big.next[j] = ns->next[i];
      big.len++;
    }
    *ns = big;
  }
  int i = ns_slot(ns, key);
  if (ns->keys[i]) return;
  ns->keys[i] = key;
  ns->next[i] = 1;
  ns->len++;
}

struct rlx_bb {
  rlx_ctx_t* ctx;
  rlx_module_t* m;
  /* the open function */
  bool in_func;
  const char* fname;
  bool params_at_begin;
  int n_params;
  rlx_relax_var_t** params;
  bool is_pure, is_private;
  rlx_attrs_t attrs;
  ptr_list_t blocks;   /* finished rlx_relax_block_t* */
  bool in_dataflow;
  ptr_list_t cur;      /* bindings of the current block */
  rlx_relax_expr_t* output;
  ptr_list_t sym_defined; /* symbolic vars known to be defined (params at begin, match_cast) */
  name_set_t names;       /* var names given so far, in any function (TVM: gv, then gv1 in the next) */
};

/* The hint itself when unused by the builder, else hint1, hint2, ... (a copy in the
 * context: the caller's string, a binding's temporary, may not outlive the call). */
static const char* fresh_name(rlx_bb_t* bb, const char* hint) {
  int h = ns_find(&bb->names, hint);
  if (h < 0) {
    hint = rlx_ctx_strdup(bb->ctx, hint);
    ns_add(bb->ctx, &bb->names, hint);
    return hint;
  }
  for (;;) {
    const char* name = rlx_ctx_sprintf(bb->ctx, "%s%d", hint, bb->names.next[h]++);
    if (ns_find(&bb->names, name) < 0) {
      ns_add(bb->ctx, &bb->names, name);
      return name;
    }
    h = ns_find(&bb->names, hint); /* the table may have grown */
  }
}

rlx_bb_t* rlx_bb_create(rlx_ctx_t* ctx, rlx_module_t* m) {
  rlx_bb_t* bb = RLX_NEW(ctx, rlx_bb_t);
  bb->ctx = ctx;
  bb->m = m ? m : rlx_module_create(ctx);
  return bb;
}

rlx_module_t* rlx_bb_get(rlx_bb_t* bb) { return bb->m; }

RLX_MUST_USE rlx_status_t* rlx_bb_normalize(rlx_bb_t* bb, rlx_relax_expr_t* expr) {
  return rlx_relax_normalize(bb->ctx, bb->m, expr);
}

static RLX_MUST_USE rlx_status_t* need_func(rlx_bb_t* bb, const char* what) {
  if (!bb->in_func) return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.%s: no function is open", what);
  return NULL;
}

static void define_sym_cb(rlx_var_t* v, bool whole_dim, void* user) {
  rlx_bb_t* bb = user;
  if (whole_dim && !list_has(&bb->sym_defined, v)) list_push(bb->ctx, &bb->sym_defined, v);
}

/* ------------------------------------------------------------------ functions */
RLX_MUST_USE rlx_status_t* rlx_bb_function_begin(rlx_bb_t* bb, const char* name, int n_params, rlx_relax_var_t* const* params) {
  if (bb->in_func)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.function('%s'): function '%s' is still open",
                             name ? name : "", bb->fname);
  if (!name || !*name) return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.function: empty name");
  if (params)
    for (int i = 0; i < n_params; i++)
      if (!params[i] || !params[i]->hdr.sinfo || params[i]->hdr.kind != RLX_RELAX_VAR)
        return rlx_status_create(RLX_INVALID_ARGUMENT,
                                 "BlockBuilder.function('%s'): parameter %d must be a Var with struct info", name, i);
  rlx_ctx_t* ctx = bb->ctx;
  bb->in_func = true; /* names stay taken across functions: TVM's name table is the builder's */
  bb->fname = rlx_ctx_strdup(ctx, name);
  bb->params_at_begin = params != NULL;
  bb->n_params = params ? n_params : 0;
  bb->params = RLX_NEW_ARRAY(ctx, rlx_relax_var_t*, bb->n_params);
  for (int i = 0; i < bb->n_params; i++) bb->params[i] = params[i];
  bb->is_pure = true;
  bb->is_private = false;
  bb->attrs.n = 0;
  bb->attrs.items = NULL;
  memset(&bb->blocks, 0, sizeof(bb->blocks));
  memset(&bb->cur, 0, sizeof(bb->cur));
  memset(&bb->sym_defined, 0, sizeof(bb->sym_defined));
  bb->in_dataflow = false;
  bb->output = NULL;
  for (int i = 0; i < bb->n_params; i++) rlx_sinfo_visit_vars(bb->params[i]->hdr.sinfo, define_sym_cb, bb);
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_bb_function_set_pure(rlx_bb_t* bb, bool is_pure) {
  RLX_RETURN_IF_ERROR(need_func(bb, "function(pure=...)"));
  bb->is_pure = is_pure;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_bb_function_set_private(rlx_bb_t* bb, bool is_private) {
  RLX_RETURN_IF_ERROR(need_func(bb, "function(private=...)"));
  bb->is_private = is_private;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_bb_function_set_attr(rlx_bb_t* bb, const char* key, rlx_attr_t value) {
  RLX_RETURN_IF_ERROR(need_func(bb, "function(attrs=...)"));
  bb->attrs = rlx_attrs_set(bb->ctx, bb->attrs, key, value);
  return NULL;
}

/* Closes the current block into bb->blocks (empty blocks are dropped, as TVM's normalizer). */
static void flush_block(rlx_bb_t* bb) {
  if (bb->cur.len)
    list_push(bb->ctx, &bb->blocks,
              rlx_relax_block(bb->ctx, bb->in_dataflow, bb->cur.len, (rlx_relax_binding_t* const*)bb->cur.data));
  memset(&bb->cur, 0, sizeof(bb->cur));
}

RLX_MUST_USE rlx_status_t* rlx_bb_dataflow_begin(rlx_bb_t* bb) {
  RLX_RETURN_IF_ERROR(need_func(bb, "dataflow"));
  if (bb->in_dataflow)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.dataflow: already inside a dataflow block of '%s'",
                             bb->fname);
  if (bb->output)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.dataflow: '%s' already emitted its output", bb->fname);
  flush_block(bb);
  bb->in_dataflow = true;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_bb_dataflow_end(rlx_bb_t* bb) {
  RLX_RETURN_IF_ERROR(need_func(bb, "dataflow"));
  if (!bb->in_dataflow)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.dataflow: no dataflow block is open in '%s'", bb->fname);
  flush_block(bb);
  bb->in_dataflow = false;
  return NULL;
}

/* ------------------------------------------------------------------ emit */
static RLX_MUST_USE rlx_status_t* bind(rlx_bb_t* bb, rlx_relax_expr_t* expr, const char* name, bool output, rlx_relax_var_t** out);

/* TVM's ANF rule: a call's arguments are leaves or tuples of leaves; anything else is bound
 * to a fresh var first. Returns e or a rebuilt node. */
static RLX_MUST_USE rlx_status_t* to_leaf(rlx_bb_t* bb, rlx_relax_expr_t* e, rlx_relax_expr_t** out) {
  if (rlx_relax_expr_is_leaf(e)) return *out = e, NULL;
  if (e->kind == RLX_RELAX_TUPLE) {
    rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)e;
    rlx_relax_expr_t** f = RLX_NEW_ARRAY(bb->ctx, rlx_relax_expr_t*, t->n_fields);
    bool changed = false;
    for (int i = 0; i < t->n_fields; i++) {
      RLX_RETURN_IF_ERROR(to_leaf(bb, t->fields[i], &f[i]));
      changed |= f[i] != t->fields[i];
    }
    *out = changed ? rlx_relax_tuple(bb->ctx, t->n_fields, f) : e;
    return NULL;
  }
  if (e->kind == RLX_RELAX_FUNCTION) return *out = e, NULL;
  rlx_relax_var_t* v = NULL;
  RLX_RETURN_IF_ERROR(bind(bb, e, NULL, false, &v));
  *out = &v->hdr;
  return NULL;
}

/* Makes the operands of e leaves (call args, tuple fields, the tuple of a TupleGetItem, the
 * condition of an If), binding nested non-leaf expressions first. */
RLX_MUST_USE rlx_status_t* rlx_bb_bind_operands(rlx_bb_t* bb, rlx_relax_expr_t* e, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = bb->ctx;
  *out = e;
  switch (e->kind) {
    case RLX_RELAX_CALL: {
      rlx_relax_call_t* c = (rlx_relax_call_t*)e;
      rlx_relax_expr_t** args = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, c->n_args);
      bool changed = false;
      for (int i = 0; i < c->n_args; i++) {
        if (!c->args[i]) return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.emit: NULL call argument %d", i);
        RLX_RETURN_IF_ERROR(to_leaf(bb, c->args[i], &args[i]));
        changed |= args[i] != c->args[i];
      }
      if (changed) {
        *out = rlx_relax_call(ctx, c->op, c->n_args, args, c->attrs, c->n_sinfo_args, c->sinfo_args);
        (*out)->sinfo = e->sinfo;
      }
      return NULL;
    }
    case RLX_RELAX_TUPLE: {
      rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)e;
      for (int i = 0; i < t->n_fields; i++)
        if (!t->fields[i]) return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.emit: NULL tuple field %d", i);
      return to_leaf(bb, e, out);
    }
    case RLX_RELAX_TUPLE_GET_ITEM: {
      rlx_relax_tuple_get_item_t* g = (rlx_relax_tuple_get_item_t*)e;
      rlx_relax_expr_t* t = NULL;
      if (!g->tuple) return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.emit: TupleGetItem of NULL");
      RLX_RETURN_IF_ERROR(to_leaf(bb, g->tuple, &t));
      if (t != g->tuple) *out = rlx_relax_tuple_get_item(ctx, t, g->index);
      return NULL;
    }
    case RLX_RELAX_IF: {
      rlx_relax_if_t* f = (rlx_relax_if_t*)e;
      rlx_relax_expr_t* c = NULL;
      if (!f->cond) return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.emit: If without a condition");
      RLX_RETURN_IF_ERROR(to_leaf(bb, f->cond, &c));
      if (c != f->cond) *out = rlx_relax_if(ctx, c, f->then_branch, f->else_branch);
      return NULL;
    }
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR:
    case RLX_RELAX_CONSTANT:
    case RLX_RELAX_SHAPE_EXPR:
    case RLX_RELAX_PRIM_VALUE:
    case RLX_RELAX_STRING_IMM:
    case RLX_RELAX_DATA_TYPE_IMM:
    case RLX_RELAX_OP:
    case RLX_RELAX_SEQ:
    case RLX_RELAX_FUNCTION:
    case RLX_RELAX_GLOBAL_VAR:
    case RLX_RELAX_EXTERN_FUNC:
    case RLX_RELAX_KIND_COUNT:
      return NULL;
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* bind(rlx_bb_t* bb, rlx_relax_expr_t* expr, const char* name, bool output, rlx_relax_var_t** out) {
  rlx_ctx_t* ctx = bb->ctx;
  if (!expr) return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.emit: NULL expression");
  RLX_RETURN_IF_ERROR(rlx_bb_bind_operands(bb, expr, &expr));
  RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_relax_normalize(ctx, bb->m, expr), "BlockBuilder.emit in '%s'", bb->fname));
  if (bb->in_dataflow && expr->kind == RLX_RELAX_CALL && !rlx_relax_call_is_pure((rlx_relax_call_t*)expr))
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "BlockBuilder.emit in '%s': impure call %s cannot be emitted inside a dataflow block",
                             bb->fname, rlx_relax_expr_brief(ctx, expr));
  if (bb->in_dataflow && expr->kind == RLX_RELAX_IF)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.emit in '%s': an If cannot be emitted inside a dataflow block",
                             bb->fname);
  /* TVM's default names: lv inside a dataflow block, gv for its outputs and outside one */
  name = fresh_name(bb, name ? name : (output || !bb->in_dataflow ? "gv" : "lv"));
  rlx_relax_var_t* v = bb->in_dataflow && !output ? rlx_relax_dataflow_var(ctx, name, expr->sinfo)
                                                  : rlx_relax_var(ctx, name, expr->sinfo);
  list_push(ctx, &bb->cur, rlx_relax_var_binding(ctx, v, expr));
  *out = v;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_bb_emit(rlx_bb_t* bb, rlx_relax_expr_t* expr, const char* name_hint, rlx_relax_var_t** out_var) {
  RLX_RETURN_IF_ERROR(need_func(bb, "emit"));
  if (bb->output)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.emit: '%s' already emitted its output", bb->fname);
  return bind(bb, expr, name_hint, false, out_var);
}

RLX_MUST_USE rlx_status_t* rlx_bb_emit_output(rlx_bb_t* bb, rlx_relax_expr_t* expr, const char* name_hint,
                                              rlx_relax_var_t** out_var) {
  RLX_RETURN_IF_ERROR(need_func(bb, "emit_output"));
  if (!bb->in_dataflow)
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "BlockBuilder.emit_output in '%s': must be called inside a dataflow block", bb->fname);
  return bind(bb, expr, name_hint, true, out_var);
}

RLX_MUST_USE rlx_status_t* rlx_bb_match_cast(rlx_bb_t* bb, rlx_relax_expr_t* value, rlx_sinfo_t* sinfo,
                                             const char* name_hint, rlx_relax_var_t** out_var) {
  rlx_ctx_t* ctx = bb->ctx;
  RLX_RETURN_IF_ERROR(need_func(bb, "match_cast"));
  if (!value || !sinfo) return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.match_cast: NULL value or struct info");
  if (bb->output)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.match_cast: '%s' already emitted its output", bb->fname);
  if (!rlx_relax_expr_is_leaf(value)) {
    rlx_relax_var_t* tmp = NULL;
    RLX_RETURN_IF_ERROR(bind(bb, value, NULL, false, &tmp));
    value = &tmp->hdr;
  }
  RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_relax_normalize(ctx, bb->m, value), "BlockBuilder.match_cast in '%s'", bb->fname));
  /* A cast between kinds can never succeed (a Tensor is never a Shape). */
  if (value->sinfo->kind != RLX_SINFO_OBJECT && sinfo->kind != RLX_SINFO_OBJECT && value->sinfo->kind != sinfo->kind)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.match_cast in '%s': cannot cast %s to %s", bb->fname,
                             rlx_sinfo_str(ctx, value->sinfo), rlx_sinfo_str(ctx, sinfo));
  const char* name = fresh_name(bb, name_hint ? name_hint : bb->in_dataflow ? "lv" : "gv");
  rlx_relax_var_t* v = bb->in_dataflow ? rlx_relax_dataflow_var(ctx, name, sinfo) : rlx_relax_var(ctx, name, sinfo);
  list_push(ctx, &bb->cur, rlx_relax_match_cast(ctx, v, value, sinfo));
  rlx_sinfo_visit_vars(sinfo, define_sym_cb, bb);
  *out_var = v;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_bb_emit_binding(rlx_bb_t* bb, rlx_relax_binding_t* b) {
  rlx_ctx_t* ctx = bb->ctx;
  RLX_RETURN_IF_ERROR(need_func(bb, "emit_binding"));
  if (!b || !b->var || !b->value)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.emit_binding in '%s': incomplete binding", bb->fname);
  if (bb->output)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.emit_binding: '%s' already emitted its output", bb->fname);
  if (b->var->hdr.kind == RLX_RELAX_DATAFLOW_VAR && !bb->in_dataflow)
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "BlockBuilder.emit_binding in '%s': DataflowVar %s outside a dataflow block", bb->fname,
                             b->var->name);
  if (b->kind == RLX_BINDING_MATCH_CAST && !b->sinfo)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.emit_binding in '%s': match_cast %s without struct info",
                             bb->fname, b->var->name);
  RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_relax_normalize(ctx, bb->m, b->value), "BlockBuilder.emit_binding %s in '%s'",
                                          b->var->name, bb->fname));
  if (bb->in_dataflow && b->value->kind == RLX_RELAX_CALL && !rlx_relax_call_is_pure((rlx_relax_call_t*)b->value))
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "BlockBuilder.emit_binding in '%s': impure call %s cannot be bound to %s inside a dataflow block",
                             bb->fname, rlx_relax_expr_brief(ctx, b->value), b->var->name);
  if (!b->var->hdr.sinfo) b->var->hdr.sinfo = b->kind == RLX_BINDING_MATCH_CAST ? b->sinfo : b->value->sinfo;
  list_push(ctx, &bb->cur, b);
  if (b->kind == RLX_BINDING_MATCH_CAST) rlx_sinfo_visit_vars(b->sinfo, define_sym_cb, bb);
  return NULL;
}

/* True when a finished dataflow block publishes dataflow var v (`gv = v` by emit_output). A
 * function may then return v itself, as TVM's BlockBuilder allows and prints (the MLC course's
 * importer does `gv = bb.emit_output(lv); bb.emit_func_output(lv)`); the pipeline's first
 * step (rlx_relax_publish_returns) returns gv instead before anything else reads the body. */
static bool published(const rlx_bb_t* bb, const rlx_relax_expr_t* v) {
  for (int i = 0; i < bb->blocks.len; i++) {
    const rlx_relax_block_t* b = bb->blocks.data[i];
    for (int k = 0; b->is_dataflow && k < b->n_bindings; k++)
      if (b->bindings[k]->kind == RLX_BINDING_VAR && b->bindings[k]->value == v &&
          b->bindings[k]->var->hdr.kind == RLX_RELAX_VAR)
        return true;
  }
  return false;
}

RLX_MUST_USE rlx_status_t* rlx_bb_emit_func_output(rlx_bb_t* bb, rlx_relax_expr_t* output, int n_params,
                                                   rlx_relax_var_t* const* params) {
  rlx_ctx_t* ctx = bb->ctx;
  RLX_RETURN_IF_ERROR(need_func(bb, "emit_func_output"));
  if (bb->output)
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "BlockBuilder.emit_func_output: called twice for function '%s' (once per function)",
                             bb->fname);
  if (bb->in_dataflow)
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "BlockBuilder.emit_func_output in '%s': must be called outside a dataflow block", bb->fname);
  if (!output) return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.emit_func_output in '%s': NULL output", bb->fname);
  if (bb->params_at_begin && params)
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "BlockBuilder.emit_func_output in '%s': params were already given to function()", bb->fname);
  if (!bb->params_at_begin && !params)
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "BlockBuilder.emit_func_output in '%s': params must be given (function() had none)", bb->fname);
  if (params)
    for (int i = 0; i < n_params; i++)
      if (!params[i] || !params[i]->hdr.sinfo || params[i]->hdr.kind != RLX_RELAX_VAR)
        return rlx_status_create(RLX_INVALID_ARGUMENT,
                                 "BlockBuilder.emit_func_output in '%s': parameter %d must be a Var with struct info",
                                 bb->fname, i);
  if (output->kind == RLX_RELAX_DATAFLOW_VAR && !published(bb, output))
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "BlockBuilder.emit_func_output in '%s': output is DataflowVar %s, which is not visible "
                             "outside its dataflow block (use emit_output)",
                             bb->fname, ((rlx_relax_var_t*)output)->name);
  RLX_RETURN_IF_ERROR(rlx_bb_bind_operands(bb, output, &output)); /* nested operands are bound first */
  RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_relax_normalize(ctx, bb->m, output), "BlockBuilder.emit_func_output in '%s'",
                                          bb->fname));
  if (params) {
    bb->n_params = n_params;
    bb->params = RLX_NEW_ARRAY(ctx, rlx_relax_var_t*, n_params);
    for (int i = 0; i < n_params; i++) bb->params[i] = params[i];
  }
  bb->output = output;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* add_relax(rlx_bb_t* bb, rlx_relax_func_t* f, const char* name_hint, rlx_relax_expr_t** out_gv) {
  RLX_RETURN_IF_ERROR(rlx_relax_normalize(bb->ctx, bb->m, &f->hdr));
  const char* name = rlx_module_unique_name(bb->m, name_hint);
  rlx_module_set(bb->m, name, RLX_FUNC_RELAX, f);
  if (out_gv) *out_gv = rlx_relax_global_var(bb->ctx, name, f->hdr.sinfo);
  return NULL;
}

/* Closes the open function into a normalized Function; global_symbol = symbol unless private. */
static RLX_MUST_USE rlx_status_t* close_func(rlx_bb_t* bb, const char* symbol, rlx_relax_func_t** out) {
  rlx_ctx_t* ctx = bb->ctx;
  RLX_RETURN_IF_ERROR(need_func(bb, "function end"));
  if (bb->in_dataflow)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder: function '%s' ends inside a dataflow block", bb->fname);
  if (!bb->output)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder: function '%s' ends without emit_func_output",
                             bb->fname);
  flush_block(bb);
  rlx_relax_expr_t* seq = rlx_relax_seq(ctx, bb->blocks.len, (rlx_relax_block_t* const*)bb->blocks.data, bb->output);
  rlx_attrs_t attrs = bb->attrs;
  if (!bb->is_private && !rlx_attrs_get(&attrs, "global_symbol"))
    attrs = rlx_attrs_set(ctx, attrs, "global_symbol", rlx_attr_str(symbol));
  rlx_relax_func_t* f = rlx_relax_func(ctx, bb->n_params, bb->params, seq, NULL, attrs, bb->is_pure);
  RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_relax_normalize(ctx, bb->m, &f->hdr), "BlockBuilder: function '%s'", bb->fname));
  *out = f;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_bb_function_end(rlx_bb_t* bb, rlx_relax_expr_t** out_gv) {
  RLX_RETURN_IF_ERROR(need_func(bb, "function end"));
  const char* name = rlx_module_unique_name(bb->m, bb->fname);
  rlx_relax_func_t* f = NULL;
  RLX_RETURN_IF_ERROR(close_func(bb, name, &f));
  rlx_module_set(bb->m, name, RLX_FUNC_RELAX, f);
  if (out_gv) *out_gv = rlx_relax_global_var(bb->ctx, name, f->hdr.sinfo);
  bb->in_func = false;
  return NULL;
}

void rlx_bb_function_abandon(rlx_bb_t* bb) {
  bb->in_func = false; /* its lists live in the arena: nothing to free */
  bb->in_dataflow = false;
}

RLX_MUST_USE rlx_status_t* rlx_bb_function_finish(rlx_bb_t* bb, rlx_relax_func_t** out_func) {
  RLX_RETURN_IF_ERROR(need_func(bb, "function end"));
  RLX_RETURN_IF_ERROR(close_func(bb, bb->fname, out_func));
  bb->in_func = false;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_bb_update_func(rlx_bb_t* bb, const char* name, rlx_func_kind_t kind, void* func) {
  if (!name || !func) return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.update_func: NULL name or function");
  rlx_module_entry_t* e = rlx_module_find(bb->m, name);
  if (!e) return rlx_status_create(RLX_NOT_FOUND, "BlockBuilder.update_func: no function '%s' in the module", name);
  if (kind == RLX_FUNC_RELAX) RLX_RETURN_IF_ERROR(rlx_relax_normalize(bb->ctx, bb->m, &((rlx_relax_func_t*)func)->hdr));
  rlx_module_set(bb->m, name, kind, func);
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_bb_add_func(rlx_bb_t* bb, rlx_func_kind_t kind, void* func, const char* name_hint,
                                           rlx_relax_expr_t** out_gv) {
  rlx_ctx_t* ctx = bb->ctx;
  if (!func || !name_hint || !*name_hint)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.add_func: NULL function or empty name");
  switch (kind) {
    case RLX_FUNC_RELAX: return add_relax(bb, func, name_hint, out_gv);
    case RLX_FUNC_TIR: {
      rlx_tir_func_t* tf = func;
      /* TVM deduplicates structurally equal functions: the existing one is returned. */
      for (int i = 0; i < bb->m->n_funcs; i++) {
        rlx_module_entry_t* e = &bb->m->funcs[i];
        if (e->kind == RLX_FUNC_TIR && rlx_tir_func_equal(e->func, tf)) {
          if (out_gv) *out_gv = rlx_relax_global_var(ctx, e->name, rlx_relax_prim_func_sinfo(ctx, e->func));
          return NULL;
        }
      }
      const char* name = rlx_module_unique_name(bb->m, name_hint);
      rlx_tir_func_t* copy = rlx_tir_func_copy(ctx, tf);
      copy->name = name;
      rlx_module_set(bb->m, name, RLX_FUNC_TIR, copy);
      if (out_gv) *out_gv = rlx_relax_global_var(ctx, name, rlx_relax_prim_func_sinfo(ctx, copy));
      return NULL;
    }
  }
  return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.add_func: bad function kind %d", (int)kind);
}

/* ------------------------------------------------------------------ emit_te */
typedef struct {
  rlx_ctx_t* ctx;
  ptr_list_t bound; /* vars that are a whole dim of some shape */
  ptr_list_t used;  /* every var, first-appearance order */
} te_vars_t;

static void te_used_cb(const rlx_expr_t* e, void* user) {
  te_vars_t* t = user;
  if (e->kind == RLX_EXPR_VAR && !list_has(&t->used, e)) list_push(t->ctx, &t->used, (void*)e);
}

static void te_collect(te_vars_t* t, const rlx_tir_buffer_t* b) {
  for (int i = 0; i < b->ndim; i++) {
    if (b->shape[i]->kind == RLX_EXPR_VAR && !list_has(&t->bound, b->shape[i])) list_push(t->ctx, &t->bound, b->shape[i]);
    rlx_expr_visit(b->shape[i], te_used_cb, t);
  }
}

/* Symbolic-var maps of one emit_te: Relax-side var → fresh PrimFunc-side var and back. */
typedef struct {
  rlx_ctx_t* ctx;
  rlx_ptrmap_t fwd, inv;
  rlx_var_t* const* scalars; /* per argument: the TIR var standing for an R.Prim one, or NULL */
} te_map_t;

static void te_fresh_cb(const rlx_expr_t* e, void* user) {
  te_map_t* tm = user;
  if (e->kind != RLX_EXPR_VAR || rlx_ptrmap_has(&tm->fwd, e)) return;
  rlx_var_t* nv = rlx_ir_var(tm->ctx, ((const rlx_var_t*)e)->name, e->dtype);
  rlx_ptrmap_put(&tm->fwd, e, nv);
  rlx_ptrmap_put(&tm->inv, nv, (void*)e);
}

static RLX_MUST_USE rlx_status_t* call_te_impl(rlx_bb_t* bb, te_map_t* tm, rlx_bb_te_multi_fn_t f, void* user,
                                               int n_args, rlx_relax_expr_t* const* args, const char* primfunc_name,
                                               rlx_relax_expr_t** out_call) {
  rlx_ctx_t* ctx = bb->ctx;
  rlx_te_tensor_t** ins = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, n_args + 1);
  int nt = 0; /* tensor arguments (the TE inputs); the others are scalars */
  for (int i = 0; i < n_args; i++) {
    rlx_relax_expr_t* a = args[i];
    if (!a) return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.emit_te: argument %d is NULL", i);
    RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_relax_normalize(ctx, bb->m, a), "BlockBuilder.emit_te argument %d", i));
    if (tm->scalars && tm->scalars[i]) {
      if (a->sinfo->kind != RLX_SINFO_PRIM)
        return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.emit_te: argument %d (%s) must be an R.Prim value, got %s",
                                 i, rlx_relax_expr_brief(ctx, a), rlx_sinfo_str(ctx, a->sinfo));
      continue;
    }
    rlx_sinfo_tensor_t* ts = a->sinfo->kind == RLX_SINFO_TENSOR ? (rlx_sinfo_tensor_t*)a->sinfo : NULL;
    if (!ts || !ts->shape || rlx_dtype_is_void(ts->dtype))
      return rlx_status_create(RLX_INVALID_ARGUMENT,
                               "BlockBuilder.emit_te: argument %d (%s) must be a tensor with a known shape and dtype, "
                               "got %s (unknown dims would need new symbolic vars: match_cast it first)",
                               i, rlx_relax_expr_brief(ctx, a), rlx_sinfo_str(ctx, a->sinfo));
    /* TVM: named after the Relax var, else A, B, C ... by position */
    const char* pname = rlx_relax_is_var(a) ? ((rlx_relax_var_t*)a)->name
                        : i < 26           ? rlx_ctx_sprintf(ctx, "%c", 'A' + i)
                                           : rlx_ctx_sprintf(ctx, "tensor_input_%d", i);
    const char* uname = pname; /* unique within the PrimFunc: x, x_1, ... */
    for (int k = 1;; k++) {
      bool clash = false;
      for (int j = 0; j < nt; j++) clash |= strcmp(ins[j]->name, uname) == 0;
      if (!clash) break;
      uname = rlx_ctx_sprintf(ctx, "%s_%d", pname, k);
    }
    /* The PrimFunc gets its own symbolic vars (TVM's tir_var_map), so it does not share
     * variables with the calling function. */
    rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, ts->ndim);
    for (int d = 0; d < ts->ndim; d++) {
      rlx_expr_visit(ts->shape[d], te_fresh_cb, tm);
      shape[d] = rlx_expr_substitute(ctx, ts->shape[d], &tm->fwd);
    }
    ins[nt++] = rlx_te_placeholder(ctx, ts->ndim, shape, ts->dtype, uname);
  }
  rlx_te_tensor_t** got = NULL;
  int n_out = 0;
  RLX_RETURN_IF_ERROR(f(ctx, ins, nt, user, &n_out, &got));
  if (n_out <= 0 || !got) return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.emit_te: the TE function returned no tensor");
  rlx_te_tensor_t** outs = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, n_out); /* the callback's array is its own */
  for (int k = 0; k < n_out; k++) {
    outs[k] = got[k];
    if (!outs[k]) return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.emit_te: output %d of the TE function is NULL", k);
    for (int i = 0; i < nt; i++)
      if (outs[k] == ins[i])
        return rlx_status_create(RLX_INVALID_ARGUMENT,
                                 "BlockBuilder.emit_te: the TE function returned its input %d instead of a computed tensor", i);
    for (int j = 0; j < k; j++)
      if (outs[j] == outs[k])
        return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.emit_te: the TE function returned tensor '%s' twice",
                                 outs[k]->name);
  }

  /* tir_vars (TVM's _get_unbound_tir_vars): vars used in the shapes that are not themselves
   * a dim of the inputs' or the output's shape. */
  te_vars_t tv = {ctx, {0}, {0}};
  for (int i = 0; i < nt; i++) te_collect(&tv, ins[i]->buffer);
  for (int k = 0; k < n_out; k++) te_collect(&tv, outs[k]->buffer);
  ptr_list_t tir_vars = {0};
  for (int i = 0; i < tv.used.len; i++)
    if (!list_has(&tv.bound, tv.used.data[i])) list_push(ctx, &tir_vars, tv.used.data[i]);
  /* The output shapes, in the caller's vars. A var the TE function introduced itself (not
   * from an input shape) must be defined in the calling function. */
  rlx_sinfo_t** fields = RLX_NEW_ARRAY(ctx, rlx_sinfo_t*, n_out);
  for (int k = 0; k < n_out; k++) {
    rlx_te_tensor_t* out = outs[k];
    int ndim = out->buffer->ndim;
    rlx_expr_t** out_shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, ndim);
    for (int d = 0; d < ndim; d++) out_shape[d] = rlx_expr_substitute(ctx, out->buffer->shape[d], &tm->inv);
    if (bb->in_func && bb->params_at_begin)
      for (int d = 0; d < ndim; d++) {
        te_vars_t ov = {ctx, {0}, {0}};
        rlx_expr_visit(out_shape[d], te_used_cb, &ov);
        for (int j = 0; j < ov.used.len; j++) {
          rlx_var_t* v = ov.used.data[j];
          if (!rlx_ptrmap_has(&tm->fwd, v) && !list_has(&bb->sym_defined, v))
            return rlx_status_create(RLX_INVALID_ARGUMENT,
                                     "BlockBuilder.emit_te: the output shape of '%s' uses symbolic var %s, which is "
                                     "defined neither by the inputs nor in function '%s'",
                                     out->name, v->name, bb->fname);
        }
      }
    fields[k] = rlx_sinfo_tensor(ctx, ndim, out_shape, out->buffer->dtype);
  }

  rlx_te_tensor_t** params = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, nt + n_out);
  for (int i = 0; i < nt; i++) params[i] = ins[i];
  for (int k = 0; k < n_out; k++) params[nt + k] = outs[k];
  const char* fname = primfunc_name ? primfunc_name : outs[0]->name;
  rlx_tir_func_t* pf = NULL;
  RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_te_create_prim_func(ctx, nt + n_out, params, fname, &pf),
                                          "BlockBuilder.emit_te '%s'", fname));
  if (nt < n_args) { /* scalar parameters at their arguments' positions, before the outputs (TVM) */
    rlx_tir_func_t* c = rlx_tir_func_copy(ctx, pf);
    c->n_params = pf->n_params + n_args - nt;
    c->params = RLX_NEW_ARRAY(ctx, rlx_var_t*, c->n_params);
    c->buffer_map = RLX_NEW_ARRAY(ctx, rlx_tir_buffer_t*, c->n_params);
    int ti = 0, k = 0;
    for (int i = 0; i < n_args; i++) {
      if (tm->scalars && tm->scalars[i]) {
        c->params[k++] = tm->scalars[i];
        continue;
      }
      c->params[k] = pf->params[ti];
      c->buffer_map[k++] = pf->buffer_map[ti++];
    }
    for (; ti < pf->n_params; ti++, k++) {
      c->params[k] = pf->params[ti];
      c->buffer_map[k] = pf->buffer_map[ti];
    }
    pf = c;
  }
  if (tir_vars.len) {
    rlx_tir_func_t* c = rlx_tir_func_copy(ctx, pf);
    c->n_params = pf->n_params + tir_vars.len;
    c->params = RLX_NEW_ARRAY(ctx, rlx_var_t*, c->n_params);
    c->buffer_map = RLX_NEW_ARRAY(ctx, rlx_tir_buffer_t*, c->n_params);
    for (int i = 0; i < pf->n_params; i++) {
      c->params[i] = pf->params[i];
      c->buffer_map[i] = pf->buffer_map[i];
    }
    for (int i = 0; i < tir_vars.len; i++) c->params[pf->n_params + i] = tir_vars.data[i];
    pf = c;
  }
  pf->is_private = true; /* TVM drops global_symbol from emit_te PrimFuncs */
  rlx_relax_expr_t* gv = NULL;
  RLX_RETURN_IF_ERROR(rlx_bb_add_func(bb, RLX_FUNC_TIR, pf, fname, &gv));

  /* TVM's call_tir: one output is a tensor, several a tuple (out_sinfo=[...]) */
  rlx_sinfo_t* out_sinfo = n_out == 1 ? fields[0] : rlx_sinfo_tuple(ctx, n_out, fields);
  rlx_relax_expr_t* tv_shape = NULL;
  if (tir_vars.len) {
    rlx_expr_t** vals = RLX_NEW_ARRAY(ctx, rlx_expr_t*, tir_vars.len);
    for (int i = 0; i < tir_vars.len; i++) vals[i] = rlx_expr_substitute(ctx, tir_vars.data[i], &tm->inv);
    tv_shape = rlx_relax_shape_expr(ctx, tir_vars.len, vals);
  }
  rlx_relax_expr_t* call = rlx_relax_call_tir(ctx, gv, n_args, args, out_sinfo, tv_shape);
  RLX_RETURN_IF_ERROR(rlx_relax_normalize(ctx, bb->m, call));
  *out_call = call;
  return NULL;
}

/* The one-output callback of rlx_bb_call_te behind the several-output one. */
typedef struct {
  rlx_bb_te_fn_t f;
  void* user;
  rlx_te_tensor_t* out;
} te_single_t;

static RLX_MUST_USE rlx_status_t* te_single(rlx_ctx_t* ctx, rlx_te_tensor_t* const* inputs, int n, void* user,
                                            int* out_n, rlx_te_tensor_t*** outs) {
  te_single_t* s = user;
  *outs = &s->out;
  RLX_RETURN_IF_ERROR(s->f(ctx, inputs, n, s->user, &s->out));
  *out_n = s->out ? 1 : 0;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_bb_call_te_multi(rlx_bb_t* bb, rlx_bb_te_multi_fn_t f, void* user, int n_args,
                                                rlx_relax_expr_t* const* args, const char* primfunc_name,
                                                rlx_relax_expr_t** out_call) {
  if (!f || n_args < 0 || (n_args > 0 && !args))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.call_te: NULL function or arguments");
  te_map_t tm;
  memset(&tm, 0, sizeof(tm));
  tm.ctx = bb->ctx;
  rlx_status_t* st = call_te_impl(bb, &tm, f, user, n_args, args, primfunc_name, out_call);
  rlx_ptrmap_free(&tm.fwd);
  rlx_ptrmap_free(&tm.inv);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_bb_call_te_scalars(rlx_bb_t* bb, rlx_bb_te_fn_t f, void* user, int n_args,
                                                  rlx_relax_expr_t* const* args, rlx_var_t* const* scalars,
                                                  const char* primfunc_name, rlx_relax_expr_t** out_call) {
  if (!f || n_args < 0 || (n_args > 0 && !args))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.call_te: NULL function or arguments");
  te_single_t s = {f, user, NULL};
  te_map_t tm;
  memset(&tm, 0, sizeof(tm));
  tm.ctx = bb->ctx;
  tm.scalars = scalars;
  rlx_status_t* st = call_te_impl(bb, &tm, te_single, &s, n_args, args, primfunc_name, out_call);
  rlx_ptrmap_free(&tm.fwd);
  rlx_ptrmap_free(&tm.inv);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_bb_call_te(rlx_bb_t* bb, rlx_bb_te_fn_t f, void* user, int n_args,
                                          rlx_relax_expr_t* const* args, const char* primfunc_name,
                                          rlx_relax_expr_t** out_call) {
  if (!f) return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.call_te: NULL function or arguments");
  te_single_t s = {f, user, NULL};
  return rlx_bb_call_te_multi(bb, te_single, &s, n_args, args, primfunc_name, out_call);
}

RLX_MUST_USE rlx_status_t* rlx_bb_emit_te_multi(rlx_bb_t* bb, rlx_bb_te_multi_fn_t f, void* user, int n_args,
                                                rlx_relax_expr_t* const* args, const char* primfunc_name,
                                                const char* name_hint, rlx_relax_var_t** out_var) {
  RLX_RETURN_IF_ERROR(need_func(bb, "emit_te"));
  rlx_relax_expr_t* call = NULL;
  RLX_RETURN_IF_ERROR(rlx_bb_call_te_multi(bb, f, user, n_args, args, primfunc_name, &call));
  return rlx_bb_emit(bb, call, name_hint, out_var);
}

RLX_MUST_USE rlx_status_t* rlx_bb_emit_te(rlx_bb_t* bb, rlx_bb_te_fn_t f, void* user, int n_args,
                                          rlx_relax_expr_t* const* args, const char* primfunc_name,
                                          const char* name_hint, rlx_relax_var_t** out_var) {
  if (!f) return rlx_status_create(RLX_INVALID_ARGUMENT, "BlockBuilder.emit_te: NULL function or arguments");
  te_single_t s = {f, user, NULL};
  return rlx_bb_emit_te_multi(bb, te_single, &s, n_args, args, primfunc_name, name_hint, out_var);
}
