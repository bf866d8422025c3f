/* FuseTIR: rlx_fuse_tir merges the PrimFuncs of a chain of call_tirs (one group) into one
 * PrimFunc (see fuse.h for the contract); the fuse_tir pass (TVM's FuseTIR, at the end) does
 * so for every grouped function fuse_ops made.
 *
 * Pass fuse_tir. Requires: a well-formed module; grouped functions are private Relax
 * functions with "Primitive": 1 whose bindings are call_tirs of PrimFuncs with one tensor
 * result, the last one returned (fuse_ops' form). Produces: each grouped function replaced
 * by one private PrimFunc of the same name; each binding that calls it is a call_tir of that
 * PrimFunc (the group's external inputs, the result's struct info and tir_vars in the
 * caller's values: symbolic vars of the params' struct info bound to the args'); PrimFuncs
 * only the grouped functions called are dropped. A grouped function that does not merge, or
 * is called other than as a binding's value, is an error. */
#include <stdlib.h>
#include <string.h>

#include "tir/transform.h"
#include "fuse.h"
#include "pass.h"
#include "pass_util.h"

/* A set of names with a next-suffix hint per base name, so making n names unique costs O(n)
 * hash probes rather than O(n^2) comparisons. Open addressing; heap memory. */
typedef struct {
  const char** keys;
  int* next_suffix;
  size_t cap, len;
} nameset_t;

typedef struct {
  rlx_ctx_t* ctx;
  rlx_ptrmap_t relax_sym;          /* Relax symbolic var → fused var */
  RLX_VEC(rlx_var_t*) relax_order; /* its keys, in creation order */
  rlx_ptrmap_t vm;                 /* member var → fused expr (shape vars of one member; definitions) */
  rlx_ptrmap_t bm;                 /* member buffer → fused buffer (one member) */
  nameset_t buf_names, block_names;
  RLX_VEC(rlx_relax_expr_t*) inputs; /* Relax exprs passed to the fused function */
  RLX_VEC(rlx_tir_buffer_t*) in_bufs;
  RLX_VEC(rlx_tir_buffer_t*) allocs;
  RLX_VEC(rlx_tir_stmt_t*) body;
  rlx_ptrmap_t inter;                 /* member binding var → intermediate buffer */
  RLX_VEC(rlx_tir_buffer_t*) pending; /* allocated buffers of the current member, to copy */
  RLX_VEC(rlx_var_t*) tir_vars;       /* Relax vars passed as scalars, in param order */
} ft_t;

static size_t ns_slot(const nameset_t* s, const char* k) {
  size_t i = (size_t)rlx_hash_bytes(k, strlen(k), 0) & (s->cap - 1);
  while (s->keys[i] && strcmp(s->keys[i], k) != 0) i = (i + 1) & (s->cap - 1);
  return i;
}

static bool ns_grow(nameset_t* s) {
  nameset_t n = {calloc(s->cap ? s->cap * 2 : 64, sizeof(char*)), calloc(s->cap ? s->cap * 2 : 64, sizeof(int)),
                 s->cap ? s->cap * 2 : 64, s->len};
  if (!n.keys || !n.next_suffix) {
    free(n.keys);
    free(n.next_suffix);
    rlx_alloc_failed(); /* the pass fails at the pipeline's check */
    return false;
  }
  for (size_t i = 0; i < s->cap; i++)
    if (s->keys[i]) {
      size_t j = ns_slot(&n, s->keys[i]);
      n.keys[j] = s->keys[i];
      n.next_suffix[j] = s->next_suffix[i];
    }
  free(s->keys);
  free(s->next_suffix);
  *s = n;
  return true;
}

static void ns_free(nameset_t* s) {
  free(s->keys);
  free(s->next_suffix);
  memset(s, 0, sizeof(*s));
}

/* base, or base_1, base_2 ... the first one not in the set; added to the set. */
static const char* ns_unique(rlx_ctx_t* ctx, nameset_t* s, const char* base) {
  /* a set that cannot grow takes names while two slots are free (the probes end at one) */
  if ((s->len + 2) * 2 > s->cap && !ns_grow(s) && s->len + 2 > s->cap) return rlx_ctx_strdup(ctx, base);
  size_t bi = ns_slot(s, base);
  const char* name = base;
  if (s->keys[bi]) {
    int k = s->next_suffix[bi] > 0 ? s->next_suffix[bi] : 1;
    for (;; k++) {
      name = rlx_ctx_sprintf(ctx, "%s_%d", base, k);
      if (!s->keys[ns_slot(s, name)]) break;
    }
    s->next_suffix[bi] = k + 1;
  } else {
    name = rlx_ctx_strdup(ctx, base);
  }
  size_t i = ns_slot(s, name);
  s->keys[i] = name;
  s->len++;
  return name;
}

static const char* unique_buf_name(ft_t* t, const char* base) { return ns_unique(t->ctx, &t->buf_names, base); }
static const char* unique_block_name(ft_t* t, const char* base) { return ns_unique(t->ctx, &t->block_names, base); }

/* ---------------------------------------------------------------- shapes */
static void fresh_relax_sym(const rlx_expr_t* e, void* user) {
  ft_t* t = user;
  if (e->kind != RLX_EXPR_VAR || rlx_ptrmap_has(&t->relax_sym, e)) return;
  rlx_ptrmap_put(&t->relax_sym, e, rlx_ir_var(t->ctx, ((const rlx_var_t*)e)->name, e->dtype));
  rlx_vec_push(&t->relax_order, (rlx_var_t*)e);
}

/* A Relax shape dim in the fused function's vars. */
static rlx_expr_t* translate(ft_t* t, rlx_expr_t* dim) {
  rlx_expr_visit(dim, fresh_relax_sym, t);
  return rlx_expr_substitute(t->ctx, dim, &t->relax_sym);
}

static rlx_sinfo_tensor_t* known_tensor(const rlx_sinfo_t* s) {
  if (!s || s->kind != RLX_SINFO_TENSOR) return NULL;
  rlx_sinfo_tensor_t* ts = (rlx_sinfo_tensor_t*)s;
  return ts->shape && !rlx_dtype_is_void(ts->dtype) ? ts : NULL;
}

/* Binds the member buffer's var dims from the Relax struct info at the same position. */
static RLX_MUST_USE rlx_status_t* match_dims(ft_t* t, const rlx_tir_buffer_t* b, const rlx_sinfo_tensor_t* ts, const char* what) {
  if (b->ndim != ts->ndim)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "FuseTIR: %s: buffer %s has %d dims, the Relax value %d", what,
                             b->name, b->ndim, ts->ndim);
  for (int d = 0; d < b->ndim; d++) {
    rlx_expr_t* bd = b->shape[d];
    if (bd->kind != RLX_EXPR_VAR || rlx_ptrmap_has(&t->vm, bd)) continue;
    rlx_expr_t* v = translate(t, ts->shape[d]);
    rlx_ptrmap_put(&t->vm, bd, rlx_ir_cast(t->ctx, bd->dtype, v));
  }
  return NULL;
}

static rlx_tir_buffer_t* new_buffer(ft_t* t, const rlx_tir_buffer_t* like, const rlx_sinfo_tensor_t* ts) {
  rlx_expr_t** shape = RLX_NEW_ARRAY(t->ctx, rlx_expr_t*, ts->ndim);
  for (int d = 0; d < ts->ndim; d++) shape[d] = translate(t, ts->shape[d]);
  return rlx_tir_buffer_create(t->ctx, unique_buf_name(t, like->name), like->dtype, ts->ndim, shape, like->scope);
}

/* ---------------------------------------------------------------- copying a member body */
static void collect_defs_stmt(const rlx_tir_stmt_t* s, void* user) {
  ft_t* t = user;
  rlx_var_t* v = NULL;
  switch (s->kind) {
    case RLX_STMT_FOR:
      v = RLX_AS(const rlx_tir_for_t, s)->var;
      break;
    case RLX_STMT_LET:
      v = RLX_AS(const rlx_tir_let_t, s)->var;
      break;
    case RLX_STMT_ALLOCATE: {
      rlx_tir_buffer_t* b = RLX_AS(const rlx_tir_allocate_t, s)->buffer;
      if (!rlx_ptrmap_has(&t->bm, b)) {
        rlx_ptrmap_put(&t->bm, b, NULL); /* filled after the vars */
        rlx_vec_push(&t->pending, b);
      }
      break;
    }
    case RLX_STMT_BUFFER_STORE:
    case RLX_STMT_SEQ:
    case RLX_STMT_IF:
    case RLX_STMT_EVALUATE:
    case RLX_STMT_BLOCK_REALIZE:
    case RLX_STMT_KIND_COUNT:
      break;
  }
  if (v && !rlx_ptrmap_has(&t->vm, v)) rlx_ptrmap_put(&t->vm, v, rlx_ir_var(t->ctx, v->name, v->hdr.dtype));
}

static void collect_defs_block(const rlx_tir_block_t* b, void* user) {
  ft_t* t = user;
  for (int i = 0; i < b->n_iter_vars; i++) {
    rlx_var_t* v = b->iter_vars[i]->var;
    if (!rlx_ptrmap_has(&t->vm, v)) rlx_ptrmap_put(&t->vm, v, rlx_ir_var(t->ctx, v->name, v->hdr.dtype));
  }
  for (int i = 0; i < b->n_alloc_buffers; i++)
    if (!rlx_ptrmap_has(&t->bm, b->alloc_buffers[i])) {
      rlx_ptrmap_put(&t->bm, b->alloc_buffers[i], NULL);
      rlx_vec_push(&t->pending, b->alloc_buffers[i]);
    }
}

/* Every buffer the body touches must have a fused buffer (in t->bm, filled by the
 * collection above) before the copy below, which then cannot fail: checked by a walk of its
 * own rather than found inside the copy's callbacks, whose type returns a node. */
static RLX_MUST_USE rlx_status_t* known_buffer(const ft_t* t, const rlx_tir_buffer_t* b, const char* how) {
  return rlx_ptrmap_get(&t->bm, b) ? NULL
                                    : rlx_status_create(RLX_INVALID_ARGUMENT, "FuseTIR: %s unknown buffer %s", how, b->name);
}

static RLX_MUST_USE rlx_status_t* known_load(const rlx_expr_t* e, void* user) {
  return e->kind == RLX_EXPR_BUFFER_LOAD ? known_buffer(user, RLX_AS(const rlx_buffer_load_t, e)->buffer, "load of")
                                         : NULL;
}

static RLX_MUST_USE rlx_status_t* known_loads(const rlx_expr_t* e, void* user) { return rlx_expr_try_visit(e, known_load, user); }

static RLX_MUST_USE rlx_status_t* known_stmt(const rlx_tir_stmt_t* s, void* user) {
  if (s->kind == RLX_STMT_BUFFER_STORE) return known_buffer(user, RLX_AS(const rlx_tir_store_t, s)->buffer, "access to");
  if (s->kind == RLX_STMT_ALLOCATE) return known_buffer(user, RLX_AS(const rlx_tir_allocate_t, s)->buffer, "access to");
  return NULL;
}

static RLX_MUST_USE rlx_status_t* known_block(const rlx_tir_block_t* b, void* user) {
  for (int i = 0; i < b->n_reads; i++) RLX_RETURN_IF_ERROR(known_buffer(user, b->reads[i].buffer, "access to"));
  for (int i = 0; i < b->n_writes; i++) RLX_RETURN_IF_ERROR(known_buffer(user, b->writes[i].buffer, "access to"));
  for (int i = 0; i < b->n_alloc_buffers; i++) RLX_RETURN_IF_ERROR(known_buffer(user, b->alloc_buffers[i], "access to"));
  return NULL;
}

static rlx_expr_t* copy_leaf(rlx_ctx_t* ctx, rlx_expr_t* e, void* user) {
  ft_t* t = user;
  if (e->kind == RLX_EXPR_VAR) {
    rlx_expr_t* r = rlx_ptrmap_get(&t->vm, e);
    return r ? r : e;
  }
  if (e->kind == RLX_EXPR_BUFFER_LOAD) {
    rlx_buffer_load_t* l = RLX_AS(rlx_buffer_load_t, e);
    rlx_expr_t* r = rlx_ir_load(ctx, rlx_ptrmap_get(&t->bm, l->buffer), l->n_indices, l->indices); /* known_load */
    r->dtype = e->dtype; /* vector loads keep their lanes */
    return r;
  }
  return e;
}

static rlx_expr_t* copy_expr(rlx_ctx_t* ctx, rlx_expr_t* e, void* user) {
  return rlx_expr_transform(ctx, e, copy_leaf, user);
}

static rlx_tir_buffer_t* map_buf(ft_t* t, rlx_tir_buffer_t* b) { return rlx_ptrmap_get(&t->bm, b); /* known_buffer */ }

static rlx_var_t* map_var(ft_t* t, rlx_var_t* v) {
  rlx_expr_t* r = rlx_ptrmap_get(&t->vm, v);
  return r && r->kind == RLX_EXPR_VAR ? (rlx_var_t*)r : v;
}

static rlx_buffer_region_t* map_regions(ft_t* t, const rlx_buffer_region_t* rs, int n) {
  rlx_buffer_region_t* out = RLX_NEW_ARRAY(t->ctx, rlx_buffer_region_t, n);
  for (int i = 0; i < n; i++) {
    out[i] = rs[i];
    out[i].buffer = map_buf(t, rs[i].buffer);
  }
  return out;
}

/* Post-order: children were copied already; re-point definitions, buffers, block names. */
static rlx_tir_stmt_t* copy_stmt(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, void* user) {
  ft_t* t = user;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE: {
      rlx_tir_store_t* st = RLX_AS(rlx_tir_store_t, s);
      return rlx_tir_store(ctx, map_buf(t, st->buffer), st->value, st->n_indices, st->indices);
    }
    case RLX_STMT_FOR: {
      rlx_tir_for_t* f = RLX_AS(rlx_tir_for_t, s);
      return rlx_tir_for(ctx, map_var(t, f->var), f->min, f->extent, f->for_kind, f->body);
    }
    case RLX_STMT_LET: {
      rlx_tir_let_t* l = RLX_AS(rlx_tir_let_t, s);
      return rlx_tir_let(ctx, map_var(t, l->var), l->value, l->body);
    }
    case RLX_STMT_ALLOCATE: {
      rlx_tir_allocate_t* a = RLX_AS(rlx_tir_allocate_t, s);
      return rlx_tir_allocate(ctx, map_buf(t, a->buffer), a->body);
    }
    case RLX_STMT_BLOCK_REALIZE: {
      rlx_tir_block_realize_t* br = RLX_AS(rlx_tir_block_realize_t, s);
      rlx_tir_block_t* c = rlx_tir_block_copy(ctx, br->block);
      c->name = unique_block_name(t, br->block->name);
      for (int i = 0; i < c->n_iter_vars; i++) {
        rlx_iter_var_t* iv = c->iter_vars[i];
        c->iter_vars[i] = rlx_tir_iter_var(ctx, map_var(t, iv->var), iv->dom.min, iv->dom.extent, iv->kind);
      }
      c->reads = map_regions(t, c->reads, c->n_reads);
      c->writes = map_regions(t, c->writes, c->n_writes);
      for (int i = 0; i < c->n_alloc_buffers; i++) c->alloc_buffers[i] = map_buf(t, c->alloc_buffers[i]);
      return rlx_tir_block_realize(ctx, br->n_values, br->iter_values, br->predicate, c);
    }
    case RLX_STMT_SEQ:
    case RLX_STMT_IF:
    case RLX_STMT_EVALUATE:
    case RLX_STMT_KIND_COUNT:
      break;
  }
  return s;
}

/* Adds one member: its buffers bound to fused buffers, its body copied. */
static RLX_MUST_USE rlx_status_t* add_member(ft_t* t, const rlx_fuse_member_t* mb, bool last, rlx_tir_buffer_t** out_result) {
  rlx_ctx_t* ctx = t->ctx;
  const rlx_tir_func_t* f = mb->func;
  const char* what = rlx_ctx_sprintf(ctx, "PrimFunc '%s'", f->name);
  int nb = mb->n_args + 1;
  if (f->n_params != nb + mb->n_tir_vars)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "FuseTIR: %s has %d params for %d args, one result and %d tir_vars",
                             what, f->n_params, mb->n_args, mb->n_tir_vars);
  for (int p = 0; p < f->n_params; p++)
    if ((p < nb) != (f->buffer_map[p] != NULL))
      return rlx_status_create(RLX_INVALID_ARGUMENT, "FuseTIR: %s: param %d is not a %s", what, p,
                               p < nb ? "buffer" : "scalar");
  rlx_ptrmap_free(&t->vm);
  rlx_ptrmap_free(&t->bm);
  memset(&t->vm, 0, sizeof(t->vm));
  memset(&t->bm, 0, sizeof(t->bm));
  /* inputs */
  for (int p = 0; p < mb->n_args; p++) {
    rlx_relax_expr_t* a = mb->args[p];
    rlx_sinfo_tensor_t* ts = known_tensor(a->sinfo);
    if (!ts) return rlx_status_create(RLX_INVALID_ARGUMENT, "FuseTIR: %s: argument %d has no known shape", what, p);
    RLX_RETURN_IF_ERROR(match_dims(t, f->buffer_map[p], ts, what));
    rlx_tir_buffer_t* fb = rlx_ptrmap_get(&t->inter, a);
    if (!fb)
      for (int i = 0; i < t->inputs.len && !fb; i++)
        if (t->inputs.data[i] == a) fb = t->in_bufs.data[i];
    if (!fb) {
      fb = new_buffer(t, f->buffer_map[p], ts);
      rlx_vec_push(&t->inputs, a);
      rlx_vec_push(&t->in_bufs, fb);
    }
    rlx_ptrmap_put(&t->bm, f->buffer_map[p], fb);
  }
  /* result */
  rlx_sinfo_tensor_t* os = known_tensor(mb->out_sinfo);
  if (!os) return rlx_status_create(RLX_INVALID_ARGUMENT, "FuseTIR: %s: the result has no known shape", what);
  rlx_tir_buffer_t* ob = f->buffer_map[mb->n_args];
  RLX_RETURN_IF_ERROR(match_dims(t, ob, os, what));
  for (int i = 0; i < mb->n_tir_vars; i++) {
    rlx_var_t* pv = f->params[nb + i];
    if (!rlx_ptrmap_has(&t->vm, pv))
      rlx_ptrmap_put(&t->vm, pv, rlx_ir_cast(ctx, pv->hdr.dtype, translate(t, mb->tir_vars[i])));
  }
  rlx_tir_buffer_t* fo = new_buffer(t, ob, os);
  if (!last) rlx_vec_push(&t->allocs, fo);
  rlx_ptrmap_put(&t->inter, mb->var, fo);
  rlx_ptrmap_put(&t->bm, ob, fo);
  *out_result = fo;
  /* every var of a param shape must be bound by now */
  for (int p = 0; p < nb; p++)
    for (int d = 0; d < f->buffer_map[p]->ndim; d++) {
      rlx_expr_t* dim = f->buffer_map[p]->shape[d];
      rlx_expr_t* tr = rlx_expr_substitute(ctx, dim, &t->vm);
      for (int q = 0; q < nb; q++)
        for (int e = 0; e < f->buffer_map[q]->ndim; e++)
          if (f->buffer_map[q]->shape[e]->kind == RLX_EXPR_VAR &&
              rlx_expr_uses_var(tr, (rlx_var_t*)f->buffer_map[q]->shape[e]))
            return rlx_status_create(RLX_INVALID_ARGUMENT, "FuseTIR: %s: shape var %s is not bound by a whole dim",
                                     what, ((rlx_var_t*)f->buffer_map[q]->shape[e])->name);
    }
  /* the body, without its root block (its allocations join the fused root block) */
  rlx_tir_stmt_t* body = f->body;
  rlx_tir_block_t* root = NULL;
  if (body->kind == RLX_STMT_BLOCK_REALIZE && RLX_AS(rlx_tir_block_realize_t, body)->block->n_iter_vars == 0) {
    root = RLX_AS(rlx_tir_block_realize_t, body)->block;
    if (root->init) return rlx_status_create(RLX_INVALID_ARGUMENT, "FuseTIR: %s: the root block has an init", what);
    body = root->body;
  }
  t->pending.len = 0;
  if (root)
    for (int i = 0; i < root->n_alloc_buffers; i++) {
      rlx_ptrmap_put(&t->bm, root->alloc_buffers[i], NULL);
      rlx_vec_push(&t->pending, root->alloc_buffers[i]);
    }
  rlx_tir_visitor_t vis = {collect_defs_stmt, NULL, collect_defs_block, t};
  rlx_tir_stmt_visit(body, &vis);
  /* fresh copies of the allocated buffers, shapes in fused vars */
  for (int i = 0; i < t->pending.len; i++) {
    const rlx_tir_buffer_t* b = t->pending.data[i];
    rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, b->ndim);
    for (int d = 0; d < b->ndim; d++) shape[d] = rlx_expr_substitute(ctx, b->shape[d], &t->vm);
    rlx_ptrmap_put(&t->bm, b,
                   rlx_tir_buffer_create(ctx, unique_buf_name(t, b->name), b->dtype, b->ndim, shape, b->scope));
  }
  if (root)
    for (int i = 0; i < root->n_alloc_buffers; i++)
      rlx_vec_push(&t->allocs, rlx_ptrmap_get(&t->bm, root->alloc_buffers[i]));
  rlx_tir_try_visitor_t check = {known_stmt, known_loads, known_block, t};
  RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_tir_stmt_try_visit(body, &check), "in %s", what));
  rlx_tir_mutator_t mut = {copy_stmt, copy_expr, t};
  rlx_vec_push(&t->body, rlx_tir_stmt_mutate(ctx, body, &mut));
  return NULL;
}

static RLX_MUST_USE rlx_status_t* fuse_impl(ft_t* t, int n, const rlx_fuse_member_t* members, const char* name,
                                            rlx_tir_func_t** out_func) {
  rlx_ctx_t* ctx = t->ctx;
  (void)unique_block_name(t, "root");
  rlx_tir_buffer_t* result = NULL;
  for (int i = 0; i < n; i++) RLX_RETURN_IF_ERROR(add_member(t, &members[i], i == n - 1, &result));
  /* fused vars that no param buffer binds as a whole dim become scalar params, passed as
   * tir_vars (TVM's rule) */
  int nbuf = (int)t->in_bufs.len + 1;
  for (int i = 0; i < t->relax_order.len; i++) {
    rlx_var_t* rv = t->relax_order.data[i];
    rlx_expr_t* fv = rlx_ptrmap_get(&t->relax_sym, rv);
    bool bound = false;
    for (int b = 0; b < nbuf && !bound; b++) {
      rlx_tir_buffer_t* buf = b < nbuf - 1 ? t->in_bufs.data[b] : result;
      for (int d = 0; d < buf->ndim && !bound; d++) bound = buf->shape[d] == fv;
    }
    if (!bound) rlx_vec_push(&t->tir_vars, rv);
  }
  int np = nbuf + t->tir_vars.len;
  rlx_var_t** params = RLX_NEW_ARRAY(ctx, rlx_var_t*, np);
  rlx_tir_buffer_t** bmap = RLX_NEW_ARRAY(ctx, rlx_tir_buffer_t*, np);
  for (int i = 0; i < nbuf - 1; i++) {
    bmap[i] = t->in_bufs.data[i];
    params[i] = bmap[i]->data;
  }
  bmap[nbuf - 1] = result;
  params[nbuf - 1] = result->data;
  for (int i = 0; i < t->tir_vars.len; i++)
    params[nbuf + i] = (rlx_var_t*)rlx_ptrmap_get(&t->relax_sym, t->tir_vars.data[i]);
  rlx_tir_block_t* root = RLX_NEW(ctx, rlx_tir_block_t);
  root->name = "root";
  root->body = rlx_tir_seq(ctx, (int)t->body.len, t->body.data);
  root->n_alloc_buffers = (int)t->allocs.len;
  root->alloc_buffers = RLX_NEW_ARRAY(ctx, rlx_tir_buffer_t*, root->n_alloc_buffers);
  for (int i = 0; i < root->n_alloc_buffers; i++) root->alloc_buffers[i] = t->allocs.data[i];
  rlx_tir_stmt_t* body = rlx_tir_block_realize(ctx, 0, NULL, NULL, root);
  rlx_tir_func_t* f = rlx_tir_func_create(ctx, name, np, params, bmap, body);
  f = rlx_tir_func_with_attr(ctx, f, "tir.noalias", rlx_ir_bool(ctx, true));
  f->is_private = true;
  RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_tir_verify(f), "FuseTIR: fused function '%s'", name));
  *out_func = f;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_fuse_tir(rlx_ctx_t* ctx, int n_members, const rlx_fuse_member_t* members, const char* name,
                                        rlx_tir_func_t** out_func, int* out_n_inputs, rlx_relax_expr_t*** out_inputs,
                                        int* out_n_tir_vars, rlx_expr_t*** out_tir_vars) {
  if (n_members < 1 || !members || !name)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "FuseTIR: empty group or no name");
  ft_t t;
  memset(&t, 0, sizeof(t));
  t.ctx = ctx;
  rlx_status_t* st = fuse_impl(&t, n_members, members, name, out_func);
  if (!st) {
    *out_n_inputs = (int)t.inputs.len;
    *out_inputs = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, t.inputs.len);
    for (int i = 0; i < t.inputs.len; i++) (*out_inputs)[i] = t.inputs.data[i];
    *out_n_tir_vars = t.tir_vars.len;
    *out_tir_vars = RLX_NEW_ARRAY(ctx, rlx_expr_t*, t.tir_vars.len);
    for (int i = 0; i < t.tir_vars.len; i++) (*out_tir_vars)[i] = &t.tir_vars.data[i]->hdr;
  }
  rlx_ptrmap_free(&t.relax_sym);
  rlx_ptrmap_free(&t.vm);
  rlx_ptrmap_free(&t.bm);
  rlx_ptrmap_free(&t.inter);
  ns_free(&t.buf_names);
  ns_free(&t.block_names);
  rlx_vec_free(&t.inputs);
  rlx_vec_free(&t.in_bufs);
  rlx_vec_free(&t.allocs);
  rlx_vec_free(&t.body);
  rlx_vec_free(&t.pending);
  rlx_vec_free(&t.tir_vars);
  rlx_vec_free(&t.relax_order);
  return st;
}

/* ---------------------------------------------------------------- the fuse_tir pass */
static bool is_primitive(const rlx_module_entry_t* e) {
  if (e->kind != RLX_FUNC_RELAX) return false;
  const rlx_attrs_t* attrs = &((const rlx_relax_func_t*)e->func)->attrs;
  const rlx_attr_t* a = rlx_attrs_get(attrs, "Primitive");
  return a && ((a->kind == RLX_ATTR_INT && a->u.i) || (a->kind == RLX_ATTR_BOOL && a->u.b)) &&
         !rlx_attrs_get(attrs, "global_symbol"); /* private */
}

/* A grouped function merged: its PrimFunc's GlobalVar, inputs and scalar args (the function's
 * params and symbolic vars), and the result's struct info. */
typedef struct {
  const char* name;
  const rlx_relax_func_t* f;
  rlx_relax_expr_t* gv;
  int n_in, n_tv;
  rlx_relax_expr_t** ins;
  rlx_expr_t** tv;
  rlx_sinfo_t* out_sinfo;
} group_t;

/* The members of grouped function f: its bindings, each a call_tir of a PrimFunc of m with
 * one tensor result. */
static RLX_MUST_USE rlx_status_t* group_members(rlx_ctx_t* ctx, rlx_module_t* m, const char* name,
                                                const rlx_relax_func_t* f, int* out_n, rlx_fuse_member_t** out) {
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
  int n = 0;
  for (int b = 0; b < seq->n_blocks; b++) n += seq->blocks[b]->n_bindings;
  rlx_fuse_member_t* fm = RLX_NEW_ARRAY(ctx, rlx_fuse_member_t, n > 0 ? n : 1);
  int k = 0;
  for (int b = 0; b < seq->n_blocks; b++)
    for (int i = 0; i < seq->blocks[b]->n_bindings; i++) {
      rlx_relax_binding_t* bd = seq->blocks[b]->bindings[i];
      rlx_relax_call_t* c = bd->kind == RLX_BINDING_VAR && bd->value->kind == RLX_RELAX_CALL
                                ? (rlx_relax_call_t*)bd->value
                                : NULL;
      const rlx_tir_func_t* pf = c ? pass_call_tir_func(m, c) : NULL;
      if (!pf || c->args[1]->kind != RLX_RELAX_TUPLE || c->n_sinfo_args != 1 ||
          (c->n_args == 3 && c->args[2]->kind != RLX_RELAX_SHAPE_EXPR))
        return rlx_status_create(RLX_INVALID_ARGUMENT,
                                 "fuse_tir: grouped function '%s': binding %s is not a call_tir of a PrimFunc "
                                 "with one result",
                                 name, bd->var->name);
      rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)c->args[1];
      fm[k] = (rlx_fuse_member_t){pf, t->n_fields, t->fields, bd->var, c->sinfo_args[0], 0, NULL};
      if (c->n_args == 3) {
        fm[k].n_tir_vars = ((rlx_relax_shape_expr_t*)c->args[2])->ndim;
        fm[k].tir_vars = ((rlx_relax_shape_expr_t*)c->args[2])->values;
      }
      k++;
    }
  if (n == 0 || seq->body != &fm[n - 1].var->hdr)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "fuse_tir: grouped function '%s' does not return its last binding",
                             name);
  *out_n = n;
  *out = fm;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* merge_group(rlx_ctx_t* ctx, rlx_module_t* m, rlx_bb_t* bb, group_t* g) {
  const rlx_relax_func_t* f = g->f;
  if (f->body->kind != RLX_RELAX_SEQ || ((rlx_relax_seq_t*)f->body)->n_blocks == 0)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "fuse_tir: grouped function '%s' has no bindings", g->name);
  int n = 0;
  rlx_fuse_member_t* fm = NULL;
  RLX_RETURN_IF_ERROR(group_members(ctx, m, g->name, f, &n, &fm));
  rlx_tir_func_t* ff = NULL;
  RLX_RETURN_IF_ERROR(rlx_fuse_tir(ctx, n, fm, g->name, &ff, &g->n_in, &g->ins, &g->n_tv, &g->tv));
  g->out_sinfo = fm[n - 1].out_sinfo;
  return rlx_bb_add_func(bb, RLX_FUNC_TIR, ff, g->name, &g->gv);
}

/* Binds each symbolic var of param sinfo p (a whole dim / shape value) to the caller's
 * expression at the same place in a. */
static void bind_syms(const rlx_sinfo_t* p, const rlx_sinfo_t* a, rlx_ptrmap_t* map) {
  if (!p || !a || p->kind != a->kind) return;
  int n = 0;
  rlx_expr_t *const *pd = NULL, *const *ad = NULL;
  if (p->kind == RLX_SINFO_TENSOR) {
    const rlx_sinfo_tensor_t *pt = (const rlx_sinfo_tensor_t*)p, *at = (const rlx_sinfo_tensor_t*)a;
    if (!pt->shape || !at->shape || pt->ndim != at->ndim) return;
    n = pt->ndim, pd = pt->shape, ad = at->shape;
  } else if (p->kind == RLX_SINFO_SHAPE) {
    const rlx_sinfo_shape_t *ps = (const rlx_sinfo_shape_t*)p, *as = (const rlx_sinfo_shape_t*)a;
    if (!ps->values || !as->values || ps->ndim != as->ndim) return;
    n = ps->ndim, pd = ps->values, ad = as->values;
  }
  for (int i = 0; i < n; i++)
    if (pd[i]->kind == RLX_EXPR_VAR && !rlx_ptrmap_has(map, pd[i])) rlx_ptrmap_put(map, pd[i], ad[i]);
}

/* call (of grouped function g) as the call_tir of g's PrimFunc, in the caller's values. */
static RLX_MUST_USE rlx_status_t* group_call_tir(rlx_ctx_t* ctx, rlx_module_t* m, const group_t* g,
                                                 const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  const rlx_relax_func_t* f = g->f;
  if (call->n_args != f->n_params)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "fuse_tir: a call of '%s' passes %d args for %d params", g->name,
                             call->n_args, f->n_params);
  rlx_ptrmap_t args = {0}, syms = {0};
  for (int i = 0; i < f->n_params; i++) {
    rlx_ptrmap_put(&args, f->params[i], call->args[i]);
    bind_syms(f->params[i]->hdr.sinfo, call->args[i]->sinfo, &syms);
  }
  rlx_relax_expr_t** ins = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, g->n_in > 0 ? g->n_in : 1);
  for (int i = 0; i < g->n_in && ins; i++) {
    ins[i] = rlx_relax_is_var(g->ins[i]) ? rlx_ptrmap_get(&args, g->ins[i]) : g->ins[i]; /* a constant stays */
    if (!ins[i]) ins = NULL;
  }
  rlx_expr_t** tv = RLX_NEW_ARRAY(ctx, rlx_expr_t*, g->n_tv > 0 ? g->n_tv : 1);
  for (int i = 0; i < g->n_tv; i++) tv[i] = rlx_expr_substitute(ctx, g->tv[i], &syms);
  rlx_sinfo_t* out_sinfo = rlx_sinfo_substitute(ctx, g->out_sinfo, &syms);
  rlx_ptrmap_free(&args);
  rlx_ptrmap_free(&syms);
  if (!ins)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "fuse_tir: grouped function '%s' uses a variable it does not define",
                             g->name);
  rlx_relax_expr_t* c =
      rlx_relax_call_tir(ctx, g->gv, g->n_in, ins, out_sinfo, g->n_tv ? rlx_relax_shape_expr(ctx, g->n_tv, tv) : NULL);
  RLX_RETURN_IF_ERROR(rlx_relax_normalize(ctx, m, c));
  *out = c;
  return NULL;
}

static const group_t* called_group(const rlx_relax_expr_t* v, const group_t* gs, int n) {
  if (v->kind != RLX_RELAX_CALL) return NULL;
  const rlx_relax_expr_t* op = ((const rlx_relax_call_t*)v)->op;
  if (op->kind != RLX_RELAX_GLOBAL_VAR) return NULL;
  for (int i = 0; i < n; i++)
    if (strcmp(gs[i].name, ((const rlx_relax_global_var_t*)op)->name) == 0) return &gs[i];
  return NULL;
}

/* Function f with every binding that calls a grouped function rewritten. */
static RLX_MUST_USE rlx_status_t* rewrite_calls(rlx_ctx_t* ctx, rlx_module_t* m, const group_t* gs, int ng,
                                                const rlx_relax_func_t* f, rlx_relax_func_t** out) {
  *out = (rlx_relax_func_t*)f;
  if (f->body->kind != RLX_RELAX_SEQ) return NULL;
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
  rlx_relax_block_t** blocks = RLX_NEW_ARRAY(ctx, rlx_relax_block_t*, seq->n_blocks > 0 ? seq->n_blocks : 1);
  bool changed = false;
  for (int b = 0; b < seq->n_blocks; b++) {
    rlx_relax_block_t* blk = seq->blocks[b];
    blocks[b] = blk;
    rlx_relax_binding_t** nb = NULL;
    for (int i = 0; i < blk->n_bindings; i++) {
      rlx_relax_binding_t* bd = blk->bindings[i];
      const group_t* g = bd->kind == RLX_BINDING_VAR ? called_group(bd->value, gs, ng) : NULL;
      if (!g) continue;
      if (!nb) {
        nb = RLX_NEW_ARRAY(ctx, rlx_relax_binding_t*, blk->n_bindings);
        memcpy(nb, blk->bindings, sizeof(*nb) * (size_t)blk->n_bindings);
      }
      rlx_relax_expr_t* c = NULL;
      RLX_RETURN_IF_ERROR(group_call_tir(ctx, m, g, (rlx_relax_call_t*)bd->value, &c));
      nb[i] = rlx_relax_var_binding(ctx, bd->var, c);
    }
    if (nb) {
      blocks[b] = rlx_relax_block(ctx, blk->is_dataflow, blk->n_bindings, nb);
      changed = true;
    }
  }
  if (!changed) return NULL;
  return pass_func_with_body(ctx, m, f, rlx_relax_seq(ctx, seq->n_blocks, blocks, seq->body), out);
}

typedef struct {
  const group_t* gs;
  int ng;
  const char* name;
} stray_t;

static void stray_cb(const rlx_relax_expr_t* e, void* user) {
  stray_t* sc = user;
  const group_t* g = called_group(e, sc->gs, sc->ng);
  if (g && !sc->name) sc->name = g->name;
}

RLX_MUST_USE rlx_status_t* rlx_pass_fuse_tir(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out) {
  /* the module without its grouped functions: their PrimFuncs take their names */
  rlx_module_t* m = rlx_module_create(ctx);
  group_t* gs = RLX_NEW_ARRAY(ctx, group_t, in->n_funcs > 0 ? in->n_funcs : 1);
  int ng = 0;
  for (int i = 0; i < in->n_funcs; i++) {
    rlx_module_entry_t* e = &in->funcs[i];
    if (is_primitive(e)) gs[ng++] = (group_t){.name = e->name, .f = e->func};
    else rlx_module_set(m, e->name, e->kind, e->func);
  }
  if (ng == 0) {
    *out = in;
    return NULL;
  }
  rlx_bb_t* bb = rlx_bb_create(ctx, m);
  for (int i = 0; i < ng; i++) RLX_RETURN_IF_ERROR(merge_group(ctx, in, bb, &gs[i]));
  for (int i = 0; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != RLX_FUNC_RELAX) continue;
    rlx_relax_func_t* nf = NULL;
    RLX_RETURN_IF_ERROR(rlx_status_annotate(rewrite_calls(ctx, m, gs, ng, m->funcs[i].func, &nf),
                                            "fuse_tir: function '%s'", m->funcs[i].name));
    m->funcs[i].func = nf;
  }
  /* a grouped function called other than as a binding's value is an error (its name is the
   * merged PrimFunc's now) */
  stray_t sc = {gs, ng, NULL};
  for (int i = 0; i < m->n_funcs && !sc.name; i++)
    if (m->funcs[i].kind == RLX_FUNC_RELAX) rlx_relax_expr_visit(&((rlx_relax_func_t*)m->funcs[i].func)->hdr, stray_cb, &sc);
  if (sc.name)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "fuse_tir: grouped function '%s' is called other than as a binding's value",
                             sc.name);
  *out = pass_module_drop_dead_tir(ctx, in, m);
  return NULL;
}
