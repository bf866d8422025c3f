/* compute_inline and reverse_compute_inline.
 *
 * compute_inline(P):  P is `X[v0, .., vn] = g(v)` (spatial, no init, the store indices are
 *   distinct iter vars of P), X is an intermediate buffer written only by P. Every load
 *   X[e0, .., en] elsewhere becomes g[v := e]; P, its loops and X's allocation are removed.
 * reverse_compute_inline(C):  C is `Y[h(v)] = f(X[v_p0, .., v_pn], ...)` (spatial, no init, every
 *   load of X uses the same indices, which are all of C's iter vars once each); X is an
 *   intermediate buffer written only by P, a non-reduction block storing `X[q] = g`, and read
 *   only by C. P's store becomes Y[h(v := q)] = f(v := q, X := g); C and X are removed.
 */
#include <stdlib.h>

#include "sched_internal.h"

/* The single store of a block body (possibly under nothing else); NULL otherwise. */
static rlx_tir_store_t* single_store(const rlx_tir_block_t* b) {
  if (!b->body || b->body->kind != RLX_STMT_BUFFER_STORE) return NULL;
  return RLX_AS(rlx_tir_store_t, b->body);
}

static bool has_reduce_iter(const rlx_tir_block_t* b) {
  for (int i = 0; i < b->n_iter_vars; i++)
    if (b->iter_vars[i]->kind == RLX_ITER_REDUCE) return true;
  return false;
}

typedef struct {
  int n;
  rlx_var_t** vars; /* producer's iter vars in store-index order */
  rlx_expr_t* value;
} inline_ctx_t;

static rlx_expr_t* inline_load(rlx_ctx_t* ctx, rlx_buffer_load_t* l, void* user) {
  inline_ctx_t* ic = user;
  rlx_ptrmap_t vm = {0};
  for (int i = 0; i < ic->n; i++) rlx_ptrmap_put(&vm, ic->vars[i], l->indices[i]);
  rlx_expr_t* r = rlx_expr_substitute(ctx, ic->value, &vm);
  rlx_ptrmap_free(&vm);
  return r;
}

typedef struct {
  const rlx_tir_buffer_t* buf;
  inline_ctx_t* ic;
} inline_stmt_ctx_t;

/* Rewrites loads of buf inside every block (and recomputes the regions of touched blocks). */
static rlx_tir_stmt_t* inline_block_stmt(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, void* user) {
  inline_stmt_ctx_t* c = user;
  if (s->kind != RLX_STMT_BLOCK_REALIZE) return s;
  rlx_tir_block_realize_t* br = RLX_AS(rlx_tir_block_realize_t, s);
  rlx_tir_block_t* b = br->block;
  bool reads = false;
  for (int i = 0; i < b->n_reads; i++) reads = reads || b->reads[i].buffer == c->buf;
  if (!reads) return s;
  rlx_tir_block_t* nb = rlx_tir_block_copy(ctx, b);
  nb->body = sched_stmt_replace_loads(ctx, b->body, c->buf, inline_load, c->ic);
  if (b->init) nb->init = sched_stmt_replace_loads(ctx, b->init, c->buf, inline_load, c->ic);
  nb = sched_block_recompute_regions(ctx, nb);
  return rlx_tir_block_realize(ctx, br->n_values, br->iter_values, br->predicate, nb);
}

/* Removes the loop nest that holds only the block realize at path end: the outermost
 * ancestor (below the parent block) whose subtree contains nothing else. */
static rlx_tir_stmt_t* removable_root(const sched_path_t* p) {
  int top = sched_parent_block_index(p, p->n - 1);
  rlx_tir_stmt_t* r = p->s[p->n - 1];
  for (int i = p->n - 2; i > top; i--) {
    rlx_tir_stmt_t* s = p->s[i];
    if (s->kind == RLX_STMT_FOR && RLX_AS(rlx_tir_for_t, s)->body == r) {
      r = s;
      continue;
    }
    break;
  }
  return r;
}

RLX_MUST_USE rlx_status_t* rlx_sched_compute_inline(rlx_schedule_t* s, const char* block) {
  rlx_ctx_t* ctx = s->ctx;
  sched_path_t* p = malloc(sizeof(*p));
  if (!p) return rlx_status_create(RLX_OUT_OF_MEMORY, "compute_inline");
  rlx_tir_block_realize_t* br;
  rlx_status_t* st = sched_get_block(s, block, p, &br);
  if (st) goto done;
  const rlx_tir_block_t* b = br->block;
  rlx_tir_store_t* store = single_store(b);
  if (b->init || has_reduce_iter(b)) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "compute_inline: block '%s' is a reduction", block);
    goto done;
  }
  if (!store) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "compute_inline: block '%s' is not a single buffer store", block);
    goto done;
  }
  if (sched_is_param_buffer(s->func, store->buffer)) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "compute_inline: block '%s' writes output buffer '%s'", block,
                           store->buffer->name);
    goto done;
  }
  inline_ctx_t ic = {store->n_indices, RLX_NEW_ARRAY(ctx, rlx_var_t*, store->n_indices), store->value};
  for (int i = 0; i < store->n_indices; i++) {
    int k = sched_iter_index(b, store->indices[i]);
    for (int j = 0; j < i && k >= 0; j++)
      if (&ic.vars[j]->hdr == store->indices[i]) k = -1;
    if (k < 0) {
      st = rlx_status_create(RLX_INVALID_ARGUMENT,
                             "compute_inline: block '%s': store indices of '%s' must be distinct iter vars", block,
                             store->buffer->name);
      goto done;
    }
    ic.vars[i] = b->iter_vars[k]->var;
  }
  for (int i = 0; i < b->n_iter_vars; i++) {
    bool indexed = false;
    for (int j = 0; j < ic.n; j++) indexed = indexed || ic.vars[j] == b->iter_vars[i]->var;
    if (!indexed && rlx_expr_uses_var(store->value, b->iter_vars[i]->var)) {
      st = rlx_status_create(RLX_INVALID_ARGUMENT,
                             "compute_inline: block '%s': value uses iter var '%s' that is not a store index", block,
                             b->iter_vars[i]->var->name);
      goto done;
    }
  }
  if (sched_expr_loads(store->value, store->buffer)) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "compute_inline: block '%s' reads the buffer '%s' it writes", block,
                           store->buffer->name);
    goto done;
  }
  if (sched_count_writers(s->func->body, store->buffer) != 1) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "compute_inline: buffer '%s' of block '%s' has several writers",
                           store->buffer->name, block);
    goto done;
  }
  rlx_tir_stmt_t* body = sched_replace(ctx, s->func->body, removable_root(p), NULL);
  inline_stmt_ctx_t isc = {store->buffer, &ic};
  rlx_tir_mutator_t m = {inline_block_stmt, NULL, &isc};
  body = rlx_tir_stmt_mutate(ctx, body, &m);
  body = sched_remove_alloc(ctx, body, store->buffer);
  sched_set_body(s, body);
done:
  free(p);
  return st;
}

/* ------------------------------------------------------------------ reverse */
typedef struct {
  rlx_expr_t* g;
} rev_ctx_t;
static rlx_expr_t* rev_load(rlx_ctx_t* ctx, rlx_buffer_load_t* l, void* user) { return ((rev_ctx_t*)user)->g; }

typedef struct {
  const rlx_tir_buffer_t* buf;
  const rlx_expr_t* first_idx_owner; /* the first load seen */
  int n;
  rlx_expr_t** idx;
  bool differ;
} load_idx_t;
static void same_idx(const rlx_expr_t* e, void* user) {
  load_idx_t* li = user;
  if (e->kind != RLX_EXPR_BUFFER_LOAD || RLX_AS(const rlx_buffer_load_t, e)->buffer != li->buf) return;
  const rlx_buffer_load_t* l = RLX_AS(const rlx_buffer_load_t, e);
  if (!li->first_idx_owner) {
    li->first_idx_owner = e;
    li->n = l->n_indices;
    li->idx = l->indices;
    return;
  }
  for (int i = 0; i < l->n_indices; i++)
    if (!rlx_expr_equal(l->indices[i], li->idx[i])) li->differ = true;
}

RLX_MUST_USE rlx_status_t* rlx_sched_reverse_compute_inline(rlx_schedule_t* s, const char* block) {
  rlx_ctx_t* ctx = s->ctx;
  sched_path_t* p = malloc(sizeof(*p));
  sched_path_t* pp = malloc(sizeof(*pp));
  rlx_status_t* st = NULL;
  if (!p || !pp) {
    st = rlx_status_create(RLX_OUT_OF_MEMORY, "reverse_compute_inline");
    goto done;
  }
  rlx_tir_block_realize_t* br;
  st = sched_get_block(s, block, p, &br);
  if (st) goto done;
  const rlx_tir_block_t* c = br->block;
  rlx_tir_store_t* store = single_store(c);
  if (c->init || has_reduce_iter(c)) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "reverse_compute_inline: block '%s' is a reduction", block);
    goto done;
  }
  if (!store) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "reverse_compute_inline: block '%s' is not a single buffer store",
                           block);
    goto done;
  }
  /* the intermediate buffer X: the one read buffer that is not a parameter */
  rlx_tir_buffer_t* x = NULL;
  for (int i = 0; i < c->n_reads; i++) {
    rlx_tir_buffer_t* b = c->reads[i].buffer;
    if (sched_is_param_buffer(s->func, b) || b == store->buffer) continue;
    if (x && x != b) {
      st = rlx_status_create(RLX_INVALID_ARGUMENT,
                             "reverse_compute_inline: block '%s' reads several intermediate buffers ('%s', '%s')",
                             block, x->name, b->name);
      goto done;
    }
    x = b;
  }
  if (!x) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "reverse_compute_inline: block '%s' reads no intermediate buffer",
                           block);
    goto done;
  }
  load_idx_t li = {x, NULL, 0, NULL, false};
  rlx_expr_visit(store->value, same_idx, &li);
  if (!li.first_idx_owner || li.differ || li.n != c->n_iter_vars) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT,
                           "reverse_compute_inline: block '%s' must read '%s' at one index that uses each iter var once",
                           block, x->name);
    goto done;
  }
  for (int i = 0; i < li.n; i++) {
    int k = sched_iter_index(c, li.idx[i]);
    int64_t mn;
    bool whole = k >= 0 && rlx_expr_is_const_int(c->iter_vars[k]->dom.min, &mn) && mn == 0 &&
                 rlx_expr_same_value(c->iter_vars[k]->dom.extent, x->shape[i]);
    if (!whole || br->predicate) {
      st = rlx_status_create(RLX_INVALID_ARGUMENT,
                             "reverse_compute_inline: block '%s' must read all of '%s' (one iteration per element)",
                             block, x->name);
      goto done;
    }
  }
  int* perm = RLX_NEW_ARRAY(ctx, int, li.n);
  for (int i = 0; i < li.n; i++) {
    perm[i] = sched_iter_index(c, li.idx[i]);
    for (int j = 0; j < i && perm[i] >= 0; j++)
      if (perm[j] == perm[i]) perm[i] = -1;
    if (perm[i] < 0) {
      st = rlx_status_create(RLX_INVALID_ARGUMENT,
                             "reverse_compute_inline: block '%s': the indices of '%s' must be distinct iter vars",
                             block, x->name);
      goto done;
    }
  }
  /* find the producer */
  rlx_tir_block_realize_t* pbr = NULL;
  {
    /* walk blocks: the one whose writes contain x */
    sched_path_t* q = pp;
    q->n = 0;
    rlx_tir_stmt_t* stack[SCHED_MAX_DEPTH];
    int sp = 0;
    stack[sp++] = s->func->body;
    while (sp > 0 && !pbr) {
      rlx_tir_stmt_t* t = stack[--sp];
      if (!t) continue;
      switch (t->kind) {
        case RLX_STMT_BUFFER_STORE:
        case RLX_STMT_EVALUATE: break;
        case RLX_STMT_FOR: stack[sp++] = RLX_AS(rlx_tir_for_t, t)->body; break;
        case RLX_STMT_SEQ: {
          rlx_tir_seq_t* sq = RLX_AS(rlx_tir_seq_t, t);
          for (int i = 0; i < sq->n && sp < SCHED_MAX_DEPTH; i++) stack[sp++] = sq->stmts[i];
          break;
        }
        case RLX_STMT_IF:
          stack[sp++] = RLX_AS(rlx_tir_if_t, t)->then_case;
          stack[sp++] = RLX_AS(rlx_tir_if_t, t)->else_case;
          break;
        case RLX_STMT_LET: stack[sp++] = RLX_AS(rlx_tir_let_t, t)->body; break;
        case RLX_STMT_ALLOCATE: stack[sp++] = RLX_AS(rlx_tir_allocate_t, t)->body; break;
        case RLX_STMT_BLOCK_REALIZE: {
          rlx_tir_block_realize_t* r = RLX_AS(rlx_tir_block_realize_t, t);
          for (int i = 0; i < r->block->n_writes; i++)
            if (r->block->writes[i].buffer == x) pbr = r;
          stack[sp++] = r->block->body;
          break;
        }
        case RLX_STMT_KIND_COUNT: break;
      }
      if (sp >= SCHED_MAX_DEPTH - 2) break;
    }
  }
  if (!pbr) {
    st = rlx_status_create(RLX_NOT_FOUND, "reverse_compute_inline: no producer of '%s' for block '%s'", x->name, block);
    goto done;
  }
  const rlx_tir_block_t* pb = pbr->block;
  rlx_tir_store_t* pstore = single_store(pb);
  if (pb->init || has_reduce_iter(pb)) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT,
                           "reverse_compute_inline: producer '%s' of block '%s' is a reduction (use reverse_compute_at)",
                           pb->name, block);
    goto done;
  }
  if (!pstore || pstore->buffer != x) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT,
                           "reverse_compute_inline: producer '%s' of block '%s' is not a single store to '%s'", pb->name,
                           block, x->name);
    goto done;
  }
  if (sched_count_readers(s->func->body, x) != 1 || sched_count_writers(s->func->body, x) != 1) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT,
                           "reverse_compute_inline: buffer '%s' must have exactly one producer and block '%s' as its "
                           "only consumer",
                           x->name, block);
    goto done;
  }
  /* C's iter var perm[d] := producer store index d */
  rlx_ptrmap_t vm = {0};
  for (int d = 0; d < li.n; d++) rlx_ptrmap_put(&vm, c->iter_vars[perm[d]]->var, pstore->indices[d]);
  rev_ctx_t rc = {pstore->value};
  rlx_expr_t* nv = rlx_expr_substitute(ctx, store->value, &vm);
  nv = sched_replace_loads(ctx, nv, x, rev_load, &rc);
  rlx_expr_t** nidx = RLX_NEW_ARRAY(ctx, rlx_expr_t*, store->n_indices);
  for (int i = 0; i < store->n_indices; i++) nidx[i] = rlx_ir_simplify(ctx, rlx_expr_substitute(ctx, store->indices[i], &vm));
  rlx_ptrmap_free(&vm);
  rlx_tir_block_t* npb = rlx_tir_block_copy(ctx, pb);
  npb->body = rlx_tir_store(ctx, store->buffer, nv, store->n_indices, nidx);
  npb = sched_block_recompute_regions(ctx, npb);
  rlx_tir_stmt_t* body = sched_replace(ctx, s->func->body, removable_root(p), NULL);
  body = sched_replace(ctx, body, &pbr->hdr,
                       rlx_tir_block_realize(ctx, pbr->n_values, pbr->iter_values, pbr->predicate, npb));
  body = sched_remove_alloc(ctx, body, x);
  sched_set_body(s, body);
done:
  free(p);
  free(pp);
  return st;
}
