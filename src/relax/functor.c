/* Relax traversal: rebuild from children, post-order transform, var substitution, pre-order
 * visit, and symbolic substitution in struct info. */
#include <string.h>

#include "relax.h"

static int n_children(const rlx_relax_expr_t* e) { return rlx_relax_expr_children(e, NULL, 0); }

rlx_relax_expr_t* rlx_relax_expr_rebuild(rlx_ctx_t* ctx, rlx_relax_expr_t* e, rlx_relax_expr_t* const* kids) {
  int n = n_children(e);
  if (n == 0) return e;
  rlx_relax_expr_t** old = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n);
  rlx_relax_expr_children(e, old, n);
  bool same = true;
  for (int i = 0; i < n; i++) same &= old[i] == kids[i];
  if (same) return e;
  switch (e->kind) {
    case RLX_RELAX_TUPLE: return rlx_relax_tuple(ctx, n, kids);
    case RLX_RELAX_TUPLE_GET_ITEM: return rlx_relax_tuple_get_item(ctx, kids[0], ((rlx_relax_tuple_get_item_t*)e)->index);
    case RLX_RELAX_CALL: {
      rlx_relax_call_t* c = (rlx_relax_call_t*)e;
      return rlx_relax_call(ctx, kids[0], c->n_args, kids + 1, c->attrs, c->n_sinfo_args, c->sinfo_args);
    }
    case RLX_RELAX_IF: return rlx_relax_if(ctx, kids[0], kids[1], kids[2]);
    case RLX_RELAX_SEQ: {
      rlx_relax_seq_t* s = (rlx_relax_seq_t*)e;
      rlx_relax_block_t** blocks = RLX_NEW_ARRAY(ctx, rlx_relax_block_t*, s->n_blocks);
      int k = 0;
      for (int b = 0; b < s->n_blocks; b++) {
        rlx_relax_block_t* blk = s->blocks[b];
        rlx_relax_binding_t** bs = RLX_NEW_ARRAY(ctx, rlx_relax_binding_t*, blk->n_bindings);
        bool changed = false;
        for (int i = 0; i < blk->n_bindings; i++, k++) {
          rlx_relax_binding_t* bd = blk->bindings[i];
          if (kids[k] == bd->value) {
            bs[i] = bd;
            continue;
          }
          changed = true;
          bs[i] = bd->kind == RLX_BINDING_MATCH_CAST ? rlx_relax_match_cast(ctx, bd->var, kids[k], bd->sinfo)
                                                     : rlx_relax_var_binding(ctx, bd->var, kids[k]);
        }
        blocks[b] = changed ? rlx_relax_block(ctx, blk->is_dataflow, blk->n_bindings, bs) : blk;
      }
      return rlx_relax_seq(ctx, s->n_blocks, blocks, kids[k]);
    }
    case RLX_RELAX_FUNCTION: {
      rlx_relax_func_t* f = (rlx_relax_func_t*)e;
      return &rlx_relax_func(ctx, f->n_params, f->params, kids[0], f->ret_sinfo, f->attrs, f->is_pure)->hdr;
    }
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR:
    case RLX_RELAX_CONSTANT:
    case RLX_RELAX_SHAPE_EXPR:
    case RLX_RELAX_PRIM_VALUE:
    case RLX_RELAX_STRING_IMM:
    case RLX_RELAX_DATA_TYPE_IMM:
    case RLX_RELAX_OP:
    case RLX_RELAX_GLOBAL_VAR:
    case RLX_RELAX_EXTERN_FUNC:
    case RLX_RELAX_KIND_COUNT:
      break;
  }
  return e;
}

RLX_MUST_USE rlx_status_t* rlx_relax_expr_transform(rlx_ctx_t* ctx, rlx_relax_expr_t* e, rlx_relax_expr_fn_t f, void* user,
                                                    rlx_relax_expr_t** out) {
  *out = e;
  if (!e) return NULL;
  int n = n_children(e);
  rlx_relax_expr_t* node = e;
  if (n > 0) {
    rlx_relax_expr_t** kids = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n);
    rlx_relax_expr_children(e, kids, n);
    for (int i = 0; i < n; i++) RLX_RETURN_IF_ERROR(rlx_relax_expr_transform(ctx, kids[i], f, user, &kids[i]));
    node = rlx_relax_expr_rebuild(ctx, e, kids);
  }
  *out = node;
  return f ? f(ctx, node, user, out) : NULL;
}

/* Post-order substitution (cannot fail: a walk of its own rather than a transform whose
 * status would always be NULL). */
rlx_relax_expr_t* rlx_relax_expr_substitute(rlx_ctx_t* ctx, rlx_relax_expr_t* e, const rlx_ptrmap_t* vmap) {
  if (!e) return e;
  if (rlx_relax_is_var(e)) {
    rlx_relax_expr_t* r = rlx_ptrmap_get(vmap, e);
    return r ? r : e;
  }
  int n = n_children(e);
  if (n == 0) return e;
  rlx_relax_expr_t** kids = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n);
  rlx_relax_expr_children(e, kids, n);
  for (int i = 0; i < n; i++) kids[i] = rlx_relax_expr_substitute(ctx, kids[i], vmap);
  return rlx_relax_expr_rebuild(ctx, e, kids);
}

RLX_MUST_USE rlx_status_t* rlx_relax_expr_try_visit(const rlx_relax_expr_t* e, rlx_relax_expr_try_fn_t f, void* user) {
  if (!e) return NULL;
  RLX_RETURN_IF_ERROR(f(e, user));
  int n = n_children(e);
  if (n == 0) return NULL;
  rlx_relax_expr_t* small[8];
  rlx_relax_expr_t** kids = n <= 8 ? small : malloc(sizeof(*kids) * (size_t)n);
  if (!kids) {
    rlx_alloc_failed(); /* the children are not visited; the pipeline's check fails */
    return NULL;
  }
  rlx_relax_expr_children(e, kids, n);
  rlx_status_t* st = NULL;
  for (int i = 0; i < n && !st; i++) st = rlx_relax_expr_try_visit(kids[i], f, user);
  if (kids != small) free(kids);
  return st;
}

typedef struct {
  void (*f)(const rlx_relax_expr_t* e, void* user);
  void* user;
} visit_all_t;

static RLX_MUST_USE rlx_status_t* visit_all(const rlx_relax_expr_t* e, void* user) {
  const visit_all_t* v = user;
  v->f(e, v->user);
  return NULL;
}

void rlx_relax_expr_visit(const rlx_relax_expr_t* e, void (*f)(const rlx_relax_expr_t* e, void* user), void* user) {
  visit_all_t v = {f, user};
  rlx_status_free(rlx_relax_expr_try_visit(e, visit_all, &v)); /* NULL: visit_all cannot fail */
}

static rlx_expr_t** subst_dims(rlx_ctx_t* ctx, int n, rlx_expr_t* const* dims, const rlx_ptrmap_t* map, bool* changed) {
  rlx_expr_t** out = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int i = 0; i < n; i++) {
    rlx_expr_t* d = rlx_expr_substitute(ctx, dims[i], map);
    if (d != dims[i]) {
      d = rlx_ir_simplify(ctx, d);
      *changed = true;
    }
    out[i] = d;
  }
  return out;
}

rlx_sinfo_t* rlx_sinfo_substitute(rlx_ctx_t* ctx, rlx_sinfo_t* s, const rlx_ptrmap_t* map) {
  bool changed = false;
  if (!s) return s;
  switch (s->kind) {
    case RLX_SINFO_OBJECT: return s;
    case RLX_SINFO_PRIM: {
      rlx_sinfo_prim_t* p = (void*)s;
      if (!p->value) return s;
      rlx_expr_t** v = subst_dims(ctx, 1, &p->value, map, &changed);
      return changed ? rlx_sinfo_prim(ctx, p->dtype, v[0]) : s;
    }
    case RLX_SINFO_SHAPE: {
      rlx_sinfo_shape_t* p = (void*)s;
      if (!p->values) return s;
      rlx_expr_t** v = subst_dims(ctx, p->ndim, p->values, map, &changed);
      return changed ? rlx_sinfo_shape(ctx, p->ndim, v) : s;
    }
    case RLX_SINFO_TENSOR: {
      rlx_sinfo_tensor_t* t = (void*)s;
      if (!t->shape) return s;
      rlx_expr_t** v = subst_dims(ctx, t->ndim, t->shape, map, &changed);
      return changed ? rlx_sinfo_tensor(ctx, t->ndim, v, t->dtype) : s;
    }
    case RLX_SINFO_TUPLE: {
      rlx_sinfo_tuple_t* t = (void*)s;
      rlx_sinfo_t** f = RLX_NEW_ARRAY(ctx, rlx_sinfo_t*, t->n_fields);
      for (int i = 0; i < t->n_fields; i++) {
        f[i] = rlx_sinfo_substitute(ctx, t->fields[i], map);
        changed |= f[i] != t->fields[i];
      }
      return changed ? rlx_sinfo_tuple(ctx, t->n_fields, f) : s;
    }
    case RLX_SINFO_FUNC: {
      rlx_sinfo_func_t* fn = (void*)s;
      rlx_sinfo_t** ps = RLX_NEW_ARRAY(ctx, rlx_sinfo_t*, fn->n_params);
      for (int i = 0; i < fn->n_params; i++) {
        ps[i] = rlx_sinfo_substitute(ctx, fn->params[i], map);
        changed |= ps[i] != fn->params[i];
      }
      rlx_sinfo_t* ret = rlx_sinfo_substitute(ctx, fn->ret, map);
      changed |= ret != fn->ret;
      return changed ? rlx_sinfo_func(ctx, fn->n_params, ps, ret, fn->is_pure) : s;
    }
  }
  return s;
}
