/* compact_buffer(X): TVM's CompactBufferAllocation as a primitive. X, allocated by a block,
 * is replaced by a buffer holding only the region that one iteration of L touches, where L is
 * the innermost loop enclosing every access of X; the new buffer is allocated (ALLOCATE) as the
 * body of L and every access is rebased to the region start. The typical use is after
 * cache_write + reverse_compute_at, to turn a whole-size "local" cache into a register tile.
 * Requires: constant region extents, accesses in blocks directly under loops (bindings in
 * loop vars).
 */
#include <stdlib.h>
#include <string.h>

#include "sched_internal.h"

typedef struct {
  const char* name;
  rlx_tir_buffer_t* found;
} find_alloc_t;
static void find_alloc(const rlx_tir_block_t* b, void* user) {
  find_alloc_t* fa = user;
  for (int i = 0; i < b->n_alloc_buffers && !fa->found; i++)
    if (strcmp(b->alloc_buffers[i]->name, fa->name) == 0) fa->found = b->alloc_buffers[i];
}

/* Blocks whose own statements (not nested blocks) access x. */
typedef struct {
  const rlx_tir_buffer_t* x;
  RLX_VEC(rlx_tir_block_realize_t*) users;
} users_t;
static void find_users(const rlx_tir_stmt_t* s, void* user) {
  users_t* u = user;
  if (s->kind != RLX_STMT_BLOCK_REALIZE) return;
  rlx_tir_block_realize_t* br = (rlx_tir_block_realize_t*)s;
  if (sched_block_own_access(br->block, u->x)) rlx_vec_push(&u->users, br);
}

typedef struct {
  rlx_tir_buffer_t* x;
  rlx_tir_buffer_t* nx;
  rlx_expr_t** lo;
} rebase_t;

static rlx_expr_t** rebased(rlx_ctx_t* ctx, const rebase_t* rb, int n, rlx_expr_t* const* idx) {
  rlx_expr_t** out = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) {
    rlx_expr_t* lo = rb->lo[d];
    if (!rlx_dtype_eq(lo->dtype, idx[d]->dtype)) lo = rlx_ir_cast(ctx, idx[d]->dtype, lo);
    out[d] = rlx_ir_sub(ctx, idx[d], lo);
  }
  return out;
}
static rlx_expr_t* rebase_load(rlx_ctx_t* ctx, rlx_expr_t* e, void* user) {
  rebase_t* rb = user;
  if (e->kind != RLX_EXPR_BUFFER_LOAD || RLX_AS(rlx_buffer_load_t, e)->buffer != rb->x) return e;
  rlx_buffer_load_t* l = RLX_AS(rlx_buffer_load_t, e);
  return rlx_ir_load(ctx, rb->nx, l->n_indices, rebased(ctx, rb, l->n_indices, l->indices));
}
static rlx_expr_t* rebase_expr(rlx_ctx_t* ctx, rlx_expr_t* e, void* user) {
  return rlx_expr_transform(ctx, e, rebase_load, user);
}
static rlx_tir_stmt_t* rebase_stmt(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, void* user) {
  rebase_t* rb = user;
  if (s->kind == RLX_STMT_BUFFER_STORE && RLX_AS(rlx_tir_store_t, s)->buffer == rb->x) {
    rlx_tir_store_t* st = RLX_AS(rlx_tir_store_t, s);
    return rlx_tir_store(ctx, rb->nx, st->value, st->n_indices, rebased(ctx, rb, st->n_indices, st->indices));
  }
  if (s->kind == RLX_STMT_BLOCK_REALIZE) {
    /* regions of x: the whole compact buffer */
    rlx_tir_block_realize_t* br = RLX_AS(rlx_tir_block_realize_t, s);
    rlx_tir_block_t* b = br->block;
    bool touches = false;
    for (int i = 0; i < b->n_reads; i++) touches = touches || b->reads[i].buffer == rb->x;
    for (int i = 0; i < b->n_writes; i++) touches = touches || b->writes[i].buffer == rb->x;
    if (!touches) return s;
    rlx_tir_block_t* c = rlx_tir_block_copy(ctx, b);
    for (int i = 0; i < c->n_reads; i++)
      if (c->reads[i].buffer == rb->x) c->reads[i] = sched_full_region(ctx, rb->nx);
    for (int i = 0; i < c->n_writes; i++)
      if (c->writes[i].buffer == rb->x) c->writes[i] = sched_full_region(ctx, rb->nx);
    return rlx_tir_block_realize(ctx, br->n_values, br->iter_values, br->predicate, c);
  }
  return s;
}

RLX_MUST_USE rlx_status_t* rlx_sched_compact_buffer(rlx_schedule_t* s, const char* buffer) {
  rlx_ctx_t* ctx = s->ctx;
  rlx_status_t* st = NULL;
  find_alloc_t fa = {buffer ? buffer : "", NULL};
  rlx_tir_visitor_t fv = {NULL, NULL, find_alloc, &fa};
  rlx_tir_stmt_visit(s->func->body, &fv);
  if (!fa.found) return rlx_status_create(RLX_NOT_FOUND, "compact_buffer: no block allocates a buffer named '%s'", fa.name);
  rlx_tir_buffer_t* x = fa.found;
  users_t u = {x, {0}};
  rlx_tir_visitor_t uv = {find_users, NULL, NULL, &u};
  rlx_tir_stmt_visit(s->func->body, &uv);
  sched_path_t* p = malloc(sizeof(*p));
  sched_path_t* q = malloc(sizeof(*q));
  if (!p || !q) {
    st = rlx_status_create(RLX_OUT_OF_MEMORY, "compact_buffer");
    goto done;
  }
  if (u.users.len == 0) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "compact_buffer: buffer '%s' is never accessed", x->name);
    goto done;
  }
  /* longest common prefix of the paths to the users */
  int common = 0;
  for (int i = 0; i < u.users.len; i++) {
    if (!sched_path_to_stmt(s->func->body, &u.users.data[i]->hdr, i == 0 ? p : q)) {
      st = rlx_status_create(RLX_INTERNAL, "compact_buffer: lost a block");
      goto done;
    }
    if (i == 0) {
      common = p->n - 1;
      continue;
    }
    int c = 0;
    while (c < common && c < q->n - 1 && p->s[c] == q->s[c]) c++;
    common = c;
  }
  int li = -1;
  for (int i = common - 1; i >= 0 && li < 0; i--) {
    if (p->s[i]->kind == RLX_STMT_BLOCK_REALIZE) break; /* stop at the enclosing block */
    if (p->s[i]->kind == RLX_STMT_FOR) li = i;
  }
  if (li < 0) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "compact_buffer: no loop encloses every access of '%s'", x->name);
    goto done;
  }
  rlx_tir_for_t* lf = RLX_AS(rlx_tir_for_t, p->s[li]);
  /* region over one iteration of L */
  rlx_analyzer_t* an = rlx_analyzer_create(ctx);
  for (int i = 0; i < s->func->n_params; i++) {
    const rlx_tir_buffer_t* b = s->func->buffer_map[i];
    for (int d = 0; b && d < b->ndim; d++)
      if (b->shape[d]->kind == RLX_EXPR_VAR) rlx_analyzer_bind_nonneg(an, RLX_AS(rlx_var_t, b->shape[d]));
  }
  for (int i = 0; i <= li; i++)
    if (p->s[i]->kind == RLX_STMT_FOR)
      rlx_analyzer_bind(an, RLX_AS(rlx_tir_for_t, p->s[i])->var, RLX_AS(rlx_tir_for_t, p->s[i])->min,
                        RLX_AS(rlx_tir_for_t, p->s[i])->extent);
  /* the running union simplified: its extents must come out constant */
  rlx_expr_t **rlo = NULL, **rhi = NULL;
  if (!sched_access_region(ctx, an, lf->body, x, SCHED_LOADS | SCHED_STORES, true, &rlo, &rhi)) {
    st = rlx_status_create(RLX_UNSUPPORTED, "compact_buffer: cannot bound the accesses of '%s' under loop '%s'", x->name,
                           lf->var->name);
    goto done;
  }
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, x->ndim);
  for (int d = 0; d < x->ndim; d++) {
    rlx_expr_t* ext = rlx_analyzer_simplify(
        an, rlx_ir_add(ctx, rlx_ir_sub(ctx, rhi[d], rlo[d]), rlx_ir_int(ctx, rhi[d]->dtype, 1)));
    int64_t e;
    if (!rlx_expr_is_const_int(ext, &e) || e <= 0) {
      st = rlx_status_create(RLX_UNSUPPORTED,
                             "compact_buffer: the region of '%s' under loop '%s' has a non-constant extent in dim %d",
                             x->name, lf->var->name, d);
      goto done;
    }
    shape[d] = rlx_ir_int(ctx, x->shape[d]->dtype, e);
  }
  rlx_tir_buffer_t* nx = rlx_tir_buffer_create(ctx, x->name, x->dtype, x->ndim, shape, x->scope);
  rebase_t rb = {x, nx, rlo};
  rlx_tir_mutator_t m = {rebase_stmt, rebase_expr, &rb};
  rlx_tir_stmt_t* nbody = rlx_tir_stmt_mutate(ctx, lf->body, &m);
  rlx_tir_stmt_t* nf = rlx_tir_for(ctx, lf->var, lf->min, lf->extent, lf->for_kind, rlx_tir_allocate(ctx, nx, nbody));
  rlx_tir_stmt_t* body = sched_replace(ctx, s->func->body, &lf->hdr, nf);
  body = sched_remove_alloc(ctx, body, x);
  sched_set_body(s, body);
done:
  rlx_vec_free(&u.users);
  free(p);
  free(q);
  return st;
}
