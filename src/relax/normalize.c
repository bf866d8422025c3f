/* Struct-info inference (normalization) for generic nodes and for the bridge calls
 * (call_tir, call_dps_packed, call_packed, call_pure_packed), and call purity.
 *
 * Contract: after rlx_relax_normalize(e) succeeds, e and every sub-expression carry struct
 * info (Op nodes excepted: an Op has none). Nodes that already had struct info keep it.
 * Other ops are inferred by their op.def entry (op.h); a call of an op without an inference
 * rule and without struct info is an RLX_NOT_FOUND error. Purity is op.def's PURE/IMPURE
 * column. */
#include <string.h>

#include "op.h"
#include "relax.h"

typedef struct {
  rlx_ctx_t* ctx;
  rlx_module_t* m;
} norm_t;

static RLX_MUST_USE rlx_status_t* norm_expr(norm_t* n, rlx_relax_expr_t* e);

static RLX_MUST_USE rlx_status_t* fail(norm_t* n, const rlx_relax_expr_t* e, const char* fmt, const char* detail) {
  return rlx_status_create(RLX_INVALID_ARGUMENT, "struct info of %s: %s%s", rlx_relax_expr_brief(n->ctx, e), fmt,
                           detail ? detail : "");
}

/* A shape in s (a tensor's, an R.Shape's, within tuples) whose int64 arithmetic overflowed
 * (rlx_expr_is_int64_overflow: 4 * 2^62 is kept, not wrapped to 0): an error naming the call
 * and the dimension. */
static RLX_MUST_USE rlx_status_t* check_overflow(norm_t* n, const rlx_relax_expr_t* e, const rlx_sinfo_t* s, const char* what) {
  if (!s) return NULL;
  int nd = 0;
  rlx_expr_t* const* dims = NULL;
  if (s->kind == RLX_SINFO_TUPLE) {
    const rlx_sinfo_tuple_t* t = (const rlx_sinfo_tuple_t*)s;
    for (int i = 0; i < t->n_fields; i++)
      RLX_RETURN_IF_ERROR(check_overflow(n, e, t->fields[i], rlx_ctx_sprintf(n->ctx, "field %d of %s", i, what)));
    return NULL;
  }
  if (s->kind == RLX_SINFO_TENSOR) nd = ((const rlx_sinfo_tensor_t*)s)->ndim, dims = ((const rlx_sinfo_tensor_t*)s)->shape;
  if (s->kind == RLX_SINFO_SHAPE) nd = ((const rlx_sinfo_shape_t*)s)->ndim, dims = ((const rlx_sinfo_shape_t*)s)->values;
  for (int i = 0; dims && i < nd; i++) {
    if (!dims[i] || !rlx_expr_is_int64_overflow(dims[i])) continue;
    rlx_strbuf_t sb = {0};
    rlx_relax_prim_print(dims[i], &sb);
    rlx_status_t* st = fail(n, e, rlx_ctx_sprintf(n->ctx, "dimension %d of %s overflows int64: ", i, what),
                            rlx_strbuf_cstr(&sb));
    rlx_strbuf_free(&sb);
    return st;
  }
  return NULL;
}

/* ------------------------------------------------------------------ purity */
bool rlx_relax_call_is_pure(const rlx_relax_call_t* call) {
  const rlx_relax_expr_t* op = call->op;
  if (!op) return false;
  switch (op->kind) {
    case RLX_RELAX_OP: {
      const rlx_op_def_t* def = ((const rlx_relax_op_t*)op)->def;
      return def ? def->is_pure : true;
    }
    case RLX_RELAX_EXTERN_FUNC: return false;
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR:
    case RLX_RELAX_GLOBAL_VAR:
    case RLX_RELAX_CONSTANT:
    case RLX_RELAX_TUPLE:
    case RLX_RELAX_TUPLE_GET_ITEM:
    case RLX_RELAX_SHAPE_EXPR:
    case RLX_RELAX_PRIM_VALUE:
    case RLX_RELAX_STRING_IMM:
    case RLX_RELAX_DATA_TYPE_IMM:
    case RLX_RELAX_CALL:
    case RLX_RELAX_IF:
    case RLX_RELAX_SEQ:
    case RLX_RELAX_FUNCTION:
    case RLX_RELAX_KIND_COUNT:
      break;
  }
  if (op->sinfo && op->sinfo->kind == RLX_SINFO_FUNC) return ((const rlx_sinfo_func_t*)op->sinfo)->is_pure;
  return false;
}

rlx_sinfo_t* rlx_relax_prim_func_sinfo(rlx_ctx_t* ctx, const rlx_tir_func_t* f) {
  (void)f;
  /* PrimFuncs write their outputs in place: seen from Relax they are impure and opaque. */
  return rlx_sinfo_func_opaque(ctx, rlx_sinfo_object(ctx), false);
}

/* ------------------------------------------------------------------ calls */
/* sinfo from explicit sinfo_args: one → it, several → Tuple of them, none → Object. */
static rlx_sinfo_t* by_sinfo_args(norm_t* n, const rlx_relax_call_t* c) {
  if (c->n_sinfo_args == 0) return rlx_sinfo_object(n->ctx);
  if (c->n_sinfo_args == 1) return c->sinfo_args[0];
  return rlx_sinfo_tuple(n->ctx, c->n_sinfo_args, c->sinfo_args);
}

static bool is_tensor_or_tensor_tuple(const rlx_sinfo_t* s) {
  if (!s) return false;
  if (s->kind == RLX_SINFO_TENSOR) return true;
  if (s->kind != RLX_SINFO_TUPLE) return false;
  const rlx_sinfo_tuple_t* t = (const void*)s;
  for (int i = 0; i < t->n_fields; i++)
    if (!t->fields[i] || t->fields[i]->kind != RLX_SINFO_TENSOR) return false;
  return true;
}

/* call_tir(gv, args, out)[, tir_vars] and call_dps_packed(f, args, out). */
static RLX_MUST_USE rlx_status_t* infer_dps(norm_t* n, rlx_relax_call_t* c, bool is_tir, rlx_sinfo_t** out) {
  const char* what = is_tir ? "R.call_tir" : "R.call_dps_packed";
  rlx_relax_expr_t* e = &c->hdr;
  if (c->n_args != 2 && !(is_tir && c->n_args == 3))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: expected %s arguments, got %d",
                             rlx_relax_expr_brief(n->ctx, e), is_tir ? "2 or 3" : "2", c->n_args);
  if (is_tir && c->args[0]->kind != RLX_RELAX_GLOBAL_VAR)
    return fail(n, e, "the callee of R.call_tir must be a GlobalVar, got ", rlx_relax_expr_brief(n->ctx, c->args[0]));
  if (!is_tir && c->args[0]->kind != RLX_RELAX_EXTERN_FUNC)
    return fail(n, e, "the callee of R.call_dps_packed must be an ExternFunc, got ",
                rlx_relax_expr_brief(n->ctx, c->args[0]));
  if (is_tir && n->m) {
    const char* name = ((rlx_relax_global_var_t*)c->args[0])->name;
    rlx_module_entry_t* ent = rlx_module_find(n->m, name);
    if (!ent) return fail(n, e, "no function in the module called ", name);
    if (ent->kind != RLX_FUNC_TIR) return fail(n, e, "R.call_tir needs a PrimFunc, got the Relax function ", name);
  }
  if (!c->args[1]->sinfo || c->args[1]->sinfo->kind != RLX_SINFO_TUPLE)
    return fail(n, e, "the arguments must be a tuple, got ", rlx_sinfo_str(n->ctx, c->args[1]->sinfo));
  if (c->n_args == 3 && c->args[2]->kind != RLX_RELAX_SHAPE_EXPR &&
      !(c->args[2]->sinfo && c->args[2]->sinfo->kind == RLX_SINFO_SHAPE))
    return fail(n, e, "tir_vars must be a shape, got ", rlx_relax_expr_brief(n->ctx, c->args[2]));
  if (c->n_sinfo_args != 1 || !is_tensor_or_tensor_tuple(c->sinfo_args[0]))
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "struct info of %s: out_sinfo must be one R.Tensor or an R.Tuple of R.Tensor (%s)",
                             rlx_relax_expr_brief(n->ctx, e), what);
  *out = c->sinfo_args[0];
  return NULL;
}

/* Binds the whole-dim symbolic vars of param against arg (for calls of known functions). */
static void match_params(rlx_ptrmap_t* map, const rlx_sinfo_t* param, const rlx_sinfo_t* arg) {
  if (!param || !arg || param->kind != arg->kind) return;
  switch (param->kind) {
    case RLX_SINFO_TENSOR: {
      const rlx_sinfo_tensor_t *p = (const void*)param, *a = (const void*)arg;
      if (p->shape && a->shape && p->ndim == a->ndim)
        for (int i = 0; i < p->ndim; i++)
          if (p->shape[i]->kind == RLX_EXPR_VAR && !rlx_ptrmap_has(map, p->shape[i]))
            rlx_ptrmap_put(map, p->shape[i], a->shape[i]);
      return;
    }
    case RLX_SINFO_SHAPE: {
      const rlx_sinfo_shape_t *p = (const void*)param, *a = (const void*)arg;
      if (p->values && a->values && p->ndim == a->ndim)
        for (int i = 0; i < p->ndim; i++)
          if (p->values[i]->kind == RLX_EXPR_VAR && !rlx_ptrmap_has(map, p->values[i]))
            rlx_ptrmap_put(map, p->values[i], a->values[i]);
      return;
    }
    case RLX_SINFO_PRIM: {
      const rlx_sinfo_prim_t *p = (const void*)param, *a = (const void*)arg;
      if (p->value && a->value && p->value->kind == RLX_EXPR_VAR && !rlx_ptrmap_has(map, p->value))
        rlx_ptrmap_put(map, p->value, a->value);
      return;
    }
    case RLX_SINFO_TUPLE: {
      const rlx_sinfo_tuple_t *p = (const void*)param, *a = (const void*)arg;
      if (p->n_fields == a->n_fields)
        for (int i = 0; i < p->n_fields; i++) match_params(map, p->fields[i], a->fields[i]);
      return;
    }
    case RLX_SINFO_OBJECT:
    case RLX_SINFO_FUNC: return;
  }
}

static RLX_MUST_USE rlx_status_t* infer_call(norm_t* n, rlx_relax_call_t* c, rlx_sinfo_t** out) {
  rlx_relax_expr_t* op = c->op;
  if (op->kind == RLX_RELAX_OP) {
    if (rlx_relax_is_op(op, RLX_OP_CALL_TIR)) return infer_dps(n, c, true, out);
    if (rlx_relax_is_op(op, RLX_OP_CALL_DPS_PACKED)) return infer_dps(n, c, false, out);
    if (rlx_relax_is_op(op, RLX_OP_CALL_PURE_PACKED)) {
      if (c->n_args < 1 || c->args[0]->kind != RLX_RELAX_EXTERN_FUNC)
        return fail(n, &c->hdr, "the first argument of R.call_pure_packed must be an ExternFunc", NULL);
      *out = by_sinfo_args(n, c);
      return NULL;
    }
    const rlx_op_def_t* def = ((rlx_relax_op_t*)op)->def;
    if (def && def->infer) return def->infer(n->ctx, c, out);
    return rlx_status_create(RLX_NOT_FOUND, "struct info of %s: no inference rule for op '%s'",
                             rlx_relax_expr_brief(n->ctx, &c->hdr), ((rlx_relax_op_t*)op)->name);
  }
  if (op->kind == RLX_RELAX_EXTERN_FUNC) {
    *out = by_sinfo_args(n, c);
    return NULL;
  }
  if (!op->sinfo || op->sinfo->kind != RLX_SINFO_FUNC)
    return fail(n, &c->hdr, "the callee is not a function: ", rlx_sinfo_str(n->ctx, op->sinfo));
  rlx_sinfo_func_t* fs = (rlx_sinfo_func_t*)op->sinfo;
  if (fs->n_params < 0) {
    *out = c->n_sinfo_args ? by_sinfo_args(n, c) : fs->ret;
    return NULL;
  }
  if (fs->n_params != c->n_args)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: expected %d arguments, got %d",
                             rlx_relax_expr_brief(n->ctx, &c->hdr), fs->n_params, c->n_args);
  /* Bind the params' symbolic vars from the arguments, then check each argument against
   * its param with those values: an argument that can never match is an error; one that may
   * match at run time (less precise) is accepted, as TVM does. */
  rlx_ptrmap_t map = {0};
  for (int i = 0; i < c->n_args; i++) match_params(&map, fs->params[i], c->args[i]->sinfo);
  for (int i = 0; i < c->n_args; i++) {
    rlx_sinfo_t* want = map.len ? rlx_sinfo_substitute(n->ctx, fs->params[i], &map) : fs->params[i];
    if (!rlx_sinfo_is_base_of(n->ctx, want, c->args[i]->sinfo) &&
        !rlx_sinfo_is_base_of(n->ctx, rlx_sinfo_erase_undefined(n->ctx, c->args[i]->sinfo, NULL, NULL),
                              rlx_sinfo_erase_undefined(n->ctx, want, NULL, NULL))) {
      rlx_ptrmap_free(&map);
      return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: argument %d has struct info %s, expected %s",
                               rlx_relax_expr_brief(n->ctx, &c->hdr), i, rlx_sinfo_str(n->ctx, c->args[i]->sinfo),
                               rlx_sinfo_str(n->ctx, want));
    }
  }
  *out = map.len ? rlx_sinfo_substitute(n->ctx, fs->ret, &map) : fs->ret;
  rlx_ptrmap_free(&map);
  return NULL;
}

/* ------------------------------------------------------------------ generic nodes */
static void define_whole_dims(rlx_var_t* v, bool whole_dim, void* user) {
  if (whole_dim) rlx_ptrmap_put(user, v, v);
}
static bool in_map(rlx_var_t* v, void* user) { return rlx_ptrmap_has(user, v); }

static RLX_MUST_USE rlx_status_t* norm_func(norm_t* n, rlx_relax_func_t* f) {
  for (int i = 0; i < f->n_params; i++)
    if (!f->params[i]->hdr.sinfo)
      return rlx_status_create(RLX_INVALID_ARGUMENT, "function parameter %s has no struct info", f->params[i]->name);
  RLX_RETURN_IF_ERROR(norm_expr(n, f->body));
  /* TVM: the inferred return struct info may only mention the params' symbolic vars; an
   * annotation coarser than what the body gives (R.Tensor for R.Tensor((32, 32), "float32"))
   * gives way to the body's, as TVM's Function does. */
  rlx_ptrmap_t defined = {0};
  for (int i = 0; i < f->n_params; i++) rlx_sinfo_visit_vars(f->params[i]->hdr.sinfo, define_whole_dims, &defined);
  rlx_sinfo_t* body = rlx_sinfo_erase_undefined(n->ctx, f->body->sinfo, in_map, &defined);
  rlx_ptrmap_free(&defined);
  if (!f->ret_sinfo) {
    f->ret_sinfo = body;
  } else if (body && !rlx_sinfo_equal(n->ctx, f->ret_sinfo, body) && rlx_sinfo_is_base_of(n->ctx, f->ret_sinfo, body)) {
    f->ret_sinfo = body;
    f->hdr.sinfo = NULL;
  }
  if (!f->hdr.sinfo) {
    rlx_sinfo_t** ps = RLX_NEW_ARRAY(n->ctx, rlx_sinfo_t*, f->n_params);
    for (int i = 0; i < f->n_params; i++) ps[i] = f->params[i]->hdr.sinfo;
    f->hdr.sinfo = rlx_sinfo_func(n->ctx, f->n_params, ps, f->ret_sinfo, f->is_pure);
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* norm_global_var(norm_t* n, rlx_relax_global_var_t* g) {
  rlx_module_entry_t* ent = n->m ? rlx_module_find(n->m, g->name) : NULL;
  if (!ent) return rlx_status_create(RLX_NOT_FOUND, "GlobalVar @%s: no such function in the module", g->name);
  switch (ent->kind) {
    case RLX_FUNC_TIR: g->hdr.sinfo = rlx_relax_prim_func_sinfo(n->ctx, ent->func); return NULL;
    case RLX_FUNC_RELAX: {
      rlx_relax_func_t* f = ent->func;
      if (!f->hdr.sinfo) {
        if (!f->ret_sinfo) {
          g->hdr.sinfo = rlx_sinfo_func_opaque(n->ctx, rlx_sinfo_object(n->ctx), f->is_pure);
          return NULL;
        }
        rlx_sinfo_t** ps = RLX_NEW_ARRAY(n->ctx, rlx_sinfo_t*, f->n_params);
        for (int i = 0; i < f->n_params; i++) ps[i] = f->params[i]->hdr.sinfo;
        f->hdr.sinfo = rlx_sinfo_func(n->ctx, f->n_params, ps, f->ret_sinfo, f->is_pure);
      }
      g->hdr.sinfo = f->hdr.sinfo;
      return NULL;
    }
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* norm_expr(norm_t* n, rlx_relax_expr_t* e) {
  if (!e) return rlx_status_create(RLX_INVALID_ARGUMENT, "struct info: NULL expression");
  rlx_ctx_t* ctx = n->ctx;
  switch (e->kind) {
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR:
      if (!e->sinfo) return fail(n, e, "a variable must carry struct info", NULL);
      return NULL;
    case RLX_RELAX_CONSTANT:
    case RLX_RELAX_SHAPE_EXPR:
    case RLX_RELAX_PRIM_VALUE:
    case RLX_RELAX_STRING_IMM:
    case RLX_RELAX_DATA_TYPE_IMM:
    case RLX_RELAX_OP:
      return NULL; /* struct info set by the constructor (none for Op) */
    case RLX_RELAX_EXTERN_FUNC:
      if (!e->sinfo) e->sinfo = rlx_sinfo_func_opaque(ctx, rlx_sinfo_object(ctx), false);
      return NULL;
    case RLX_RELAX_GLOBAL_VAR:
      if (e->sinfo) return NULL;
      return norm_global_var(n, (rlx_relax_global_var_t*)e);
    case RLX_RELAX_TUPLE: {
      rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)e;
      rlx_sinfo_t** f = RLX_NEW_ARRAY(ctx, rlx_sinfo_t*, t->n_fields);
      for (int i = 0; i < t->n_fields; i++) {
        RLX_RETURN_IF_ERROR(norm_expr(n, t->fields[i]));
        f[i] = t->fields[i]->sinfo;
      }
      if (!e->sinfo) e->sinfo = rlx_sinfo_tuple(ctx, t->n_fields, f);
      return NULL;
    }
    case RLX_RELAX_TUPLE_GET_ITEM: {
      rlx_relax_tuple_get_item_t* g = (rlx_relax_tuple_get_item_t*)e;
      RLX_RETURN_IF_ERROR(norm_expr(n, g->tuple));
      if (e->sinfo) return NULL;
      rlx_sinfo_t* ts = g->tuple->sinfo;
      if (ts->kind == RLX_SINFO_OBJECT) {
        e->sinfo = rlx_sinfo_object(ctx);
        return NULL;
      }
      if (ts->kind != RLX_SINFO_TUPLE)
        return fail(n, e, "indexing a value that is not a tuple: ", rlx_sinfo_str(ctx, ts));
      rlx_sinfo_tuple_t* tt = (rlx_sinfo_tuple_t*)ts;
      if (g->index < 0 || g->index >= tt->n_fields)
        return rlx_status_create(RLX_INVALID_ARGUMENT, "struct info of TupleGetItem: index %d out of range for %s",
                                 g->index, rlx_sinfo_str(ctx, ts));
      e->sinfo = tt->fields[g->index];
      return NULL;
    }
    case RLX_RELAX_CALL: {
      rlx_relax_call_t* c = (rlx_relax_call_t*)e;
      if (!c->op) return fail(n, e, "call without a callee", NULL);
      RLX_RETURN_IF_ERROR(norm_expr(n, c->op));
      for (int i = 0; i < c->n_args; i++) RLX_RETURN_IF_ERROR(norm_expr(n, c->args[i]));
      for (int i = 0; i < c->n_sinfo_args; i++)
        if (!c->sinfo_args[i]) return fail(n, e, "NULL struct info argument", NULL);
      if (e->sinfo) return NULL;
      rlx_sinfo_t* s = NULL;
      RLX_RETURN_IF_ERROR(infer_call(n, c, &s));
      RLX_RETURN_IF_ERROR(check_overflow(n, e, s, "the result"));
      e->sinfo = s;
      return NULL;
    }
    case RLX_RELAX_IF: {
      rlx_relax_if_t* i = (rlx_relax_if_t*)e;
      RLX_RETURN_IF_ERROR(norm_expr(n, i->cond));
      RLX_RETURN_IF_ERROR(norm_expr(n, i->then_branch));
      RLX_RETURN_IF_ERROR(norm_expr(n, i->else_branch));
      rlx_sinfo_t* cs = i->cond->sinfo;
      bool ok = (cs->kind == RLX_SINFO_PRIM && rlx_dtype_is_bool(((rlx_sinfo_prim_t*)cs)->dtype)) ||
                (cs->kind == RLX_SINFO_TENSOR && ((rlx_sinfo_tensor_t*)cs)->ndim <= 0);
      if (!ok) return fail(n, e, "the condition must be a bool R.Prim or a rank-0 tensor, got ", rlx_sinfo_str(ctx, cs));
      if (!e->sinfo) e->sinfo = rlx_sinfo_lca(ctx, i->then_branch->sinfo, i->else_branch->sinfo);
      return NULL;
    }
    case RLX_RELAX_SEQ: {
      rlx_relax_seq_t* s = (rlx_relax_seq_t*)e;
      for (int b = 0; b < s->n_blocks; b++) {
        rlx_relax_block_t* blk = s->blocks[b];
        for (int k = 0; k < blk->n_bindings; k++) {
          rlx_relax_binding_t* bd = blk->bindings[k];
          if (!bd->var) return rlx_status_create(RLX_INVALID_ARGUMENT, "binding without a variable");
          RLX_RETURN_IF_ERROR(rlx_status_annotate(norm_expr(n, bd->value), "binding %s", bd->var->name));
          if (!bd->var->hdr.sinfo)
            bd->var->hdr.sinfo = bd->kind == RLX_BINDING_MATCH_CAST ? bd->sinfo : bd->value->sinfo;
        }
      }
      RLX_RETURN_IF_ERROR(norm_expr(n, s->body));
      if (!e->sinfo) e->sinfo = s->body->sinfo;
      return NULL;
    }
    case RLX_RELAX_FUNCTION: return norm_func(n, (rlx_relax_func_t*)e);
    case RLX_RELAX_KIND_COUNT: break;
  }
  return rlx_status_create(RLX_INTERNAL, "struct info: bad expression kind %d", (int)e->kind);
}

RLX_MUST_USE rlx_status_t* rlx_relax_normalize(rlx_ctx_t* ctx, rlx_module_t* m, rlx_relax_expr_t* e) {
  norm_t n = {ctx, m};
  return norm_expr(&n, e);
}
