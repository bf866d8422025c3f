/* Generic TIR traversal: visitor, post-order mutator, variable substitution, buffer
 * replacement, block lookup. */
#include <string.h>

#include "tir.h"

/* ---------------------------------------------------------------- visitor */
static RLX_MUST_USE rlx_status_t* visit_expr(const rlx_expr_t* e, const rlx_tir_try_visitor_t* v) {
  return e && v->f_expr ? v->f_expr(e, v->user) : NULL;
}

static RLX_MUST_USE rlx_status_t* visit_region(const rlx_buffer_region_t* r, const rlx_tir_try_visitor_t* v) {
  for (int i = 0; i < r->ndim; i++) {
    RLX_RETURN_IF_ERROR(visit_expr(r->region[i].min, v));
    RLX_RETURN_IF_ERROR(visit_expr(r->region[i].extent, v));
  }
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_tir_stmt_try_visit(const rlx_tir_stmt_t* s, const rlx_tir_try_visitor_t* v) {
  if (!s) return NULL;
  if (v->f_stmt) RLX_RETURN_IF_ERROR(v->f_stmt(s, v->user));
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE: {
      const rlx_tir_store_t* st = RLX_AS(const rlx_tir_store_t, s);
      RLX_RETURN_IF_ERROR(visit_expr(st->value, v));
      for (int i = 0; i < st->n_indices; i++) RLX_RETURN_IF_ERROR(visit_expr(st->indices[i], v));
      return NULL;
    }
    case RLX_STMT_FOR: {
      const rlx_tir_for_t* f = RLX_AS(const rlx_tir_for_t, s);
      RLX_RETURN_IF_ERROR(visit_expr(f->min, v));
      RLX_RETURN_IF_ERROR(visit_expr(f->extent, v));
      return rlx_tir_stmt_try_visit(f->body, v);
    }
    case RLX_STMT_SEQ: {
      const rlx_tir_seq_t* q = RLX_AS(const rlx_tir_seq_t, s);
      for (int i = 0; i < q->n; i++) RLX_RETURN_IF_ERROR(rlx_tir_stmt_try_visit(q->stmts[i], v));
      return NULL;
    }
    case RLX_STMT_IF: {
      const rlx_tir_if_t* c = RLX_AS(const rlx_tir_if_t, s);
      RLX_RETURN_IF_ERROR(visit_expr(c->cond, v));
      RLX_RETURN_IF_ERROR(rlx_tir_stmt_try_visit(c->then_case, v));
      return rlx_tir_stmt_try_visit(c->else_case, v);
    }
    case RLX_STMT_LET: {
      const rlx_tir_let_t* l = RLX_AS(const rlx_tir_let_t, s);
      RLX_RETURN_IF_ERROR(visit_expr(l->value, v));
      return rlx_tir_stmt_try_visit(l->body, v);
    }
    case RLX_STMT_EVALUATE: return visit_expr(RLX_AS(const rlx_tir_evaluate_t, s)->value, v);
    case RLX_STMT_BLOCK_REALIZE: {
      const rlx_tir_block_realize_t* br = RLX_AS(const rlx_tir_block_realize_t, s);
      for (int i = 0; i < br->n_values; i++) RLX_RETURN_IF_ERROR(visit_expr(br->iter_values[i], v));
      RLX_RETURN_IF_ERROR(visit_expr(br->predicate, v));
      const rlx_tir_block_t* b = br->block;
      if (v->f_block) RLX_RETURN_IF_ERROR(v->f_block(b, v->user));
      for (int i = 0; i < b->n_iter_vars; i++) {
        RLX_RETURN_IF_ERROR(visit_expr(b->iter_vars[i]->dom.min, v));
        RLX_RETURN_IF_ERROR(visit_expr(b->iter_vars[i]->dom.extent, v));
      }
      for (int i = 0; i < b->n_reads; i++) RLX_RETURN_IF_ERROR(visit_region(&b->reads[i], v));
      for (int i = 0; i < b->n_writes; i++) RLX_RETURN_IF_ERROR(visit_region(&b->writes[i], v));
      RLX_RETURN_IF_ERROR(rlx_tir_stmt_try_visit(b->init, v));
      return rlx_tir_stmt_try_visit(b->body, v);
    }
    case RLX_STMT_ALLOCATE: return rlx_tir_stmt_try_visit(RLX_AS(const rlx_tir_allocate_t, s)->body, v);
    case RLX_STMT_KIND_COUNT: break;
  }
  return NULL;
}

/* The visitor that cannot fail: the one walk above, through callbacks that return NULL. */
static RLX_MUST_USE rlx_status_t* all_stmt(const rlx_tir_stmt_t* s, void* user) {
  const rlx_tir_visitor_t* v = user;
  v->f_stmt(s, v->user);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* all_expr(const rlx_expr_t* e, void* user) {
  const rlx_tir_visitor_t* v = user;
  v->f_expr(e, v->user);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* all_block(const rlx_tir_block_t* b, void* user) {
  const rlx_tir_visitor_t* v = user;
  v->f_block(b, v->user);
  return NULL;
}

void rlx_tir_stmt_visit(const rlx_tir_stmt_t* s, const rlx_tir_visitor_t* v) {
  rlx_tir_try_visitor_t t = {v->f_stmt ? all_stmt : NULL, v->f_expr ? all_expr : NULL, v->f_block ? all_block : NULL,
                             (void*)v};
  rlx_status_free(rlx_tir_stmt_try_visit(s, &t)); /* NULL: the callbacks cannot fail */
}

/* ---------------------------------------------------------------- mutator */
static rlx_expr_t* mut_expr(rlx_ctx_t* ctx, rlx_expr_t* e, const rlx_tir_mutator_t* m) {
  return e && m->f_expr ? m->f_expr(ctx, e, m->user) : e;
}

/* Mutates the expressions of n regions; returns a new array when anything changed. */
static rlx_buffer_region_t* mut_regions(rlx_ctx_t* ctx, rlx_buffer_region_t* rs, int n, const rlx_tir_mutator_t* m,
                                        bool* changed) {
  rlx_buffer_region_t* out = rs;
  for (int i = 0; i < n; i++) {
    for (int d = 0; d < rs[i].ndim; d++) {
      rlx_expr_t* mn = mut_expr(ctx, rs[i].region[d].min, m);
      rlx_expr_t* ex = mut_expr(ctx, rs[i].region[d].extent, m);
      if (mn == rs[i].region[d].min && ex == rs[i].region[d].extent) continue;
      if (out == rs) {
        out = rlx_arena_memdup(&ctx->arena, rs, sizeof(*rs) * (size_t)n);
        for (int j = 0; j < n; j++)
          out[j].region = rlx_arena_memdup(&ctx->arena, rs[j].region, sizeof(rlx_range_t) * (size_t)rs[j].ndim);
      }
      out[i].region[d].min = mn;
      out[i].region[d].extent = ex;
      *changed = true;
    }
  }
  return out;
}

static rlx_tir_block_t* mut_block(rlx_ctx_t* ctx, rlx_tir_block_t* b, const rlx_tir_mutator_t* m) {
  bool changed = false;
  rlx_iter_var_t** ivs = b->iter_vars;
  for (int i = 0; i < b->n_iter_vars; i++) {
    rlx_iter_var_t* iv = b->iter_vars[i];
    rlx_expr_t* mn = mut_expr(ctx, iv->dom.min, m);
    rlx_expr_t* ex = mut_expr(ctx, iv->dom.extent, m);
    if (mn == iv->dom.min && ex == iv->dom.extent) continue;
    if (ivs == b->iter_vars)
      ivs = rlx_arena_memdup(&ctx->arena, b->iter_vars, sizeof(*ivs) * (size_t)b->n_iter_vars);
    ivs[i] = rlx_tir_iter_var(ctx, iv->var, mn, ex, iv->kind);
    changed = true;
  }
  rlx_buffer_region_t* reads = mut_regions(ctx, b->reads, b->n_reads, m, &changed);
  rlx_buffer_region_t* writes = mut_regions(ctx, b->writes, b->n_writes, m, &changed);
  rlx_tir_stmt_t* init = b->init ? rlx_tir_stmt_mutate(ctx, b->init, m) : NULL;
  rlx_tir_stmt_t* body = rlx_tir_stmt_mutate(ctx, b->body, m);
  if (!changed && init == b->init && body == b->body) return b;
  rlx_tir_block_t* c = rlx_tir_block_copy(ctx, b);
  c->iter_vars = ivs;
  c->reads = reads;
  c->writes = writes;
  c->init = init;
  c->body = body;
  return c;
}

rlx_tir_stmt_t* rlx_tir_stmt_mutate(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, const rlx_tir_mutator_t* m) {
  if (!s) return NULL;
  rlx_tir_stmt_t* r = s;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE: {
      rlx_tir_store_t* st = RLX_AS(rlx_tir_store_t, s);
      rlx_expr_t* value = mut_expr(ctx, st->value, m);
      bool changed = value != st->value;
      rlx_expr_t* idx_small[8];
      rlx_expr_t** idx = st->n_indices > 8 ? RLX_NEW_ARRAY(ctx, rlx_expr_t*, st->n_indices) : idx_small;
      for (int i = 0; i < st->n_indices; i++) {
        idx[i] = mut_expr(ctx, st->indices[i], m);
        changed = changed || idx[i] != st->indices[i];
      }
      if (changed) r = rlx_tir_store(ctx, st->buffer, value, st->n_indices, idx);
      break;
    }
    case RLX_STMT_FOR: {
      rlx_tir_for_t* f = RLX_AS(rlx_tir_for_t, s);
      rlx_expr_t* mn = mut_expr(ctx, f->min, m);
      rlx_expr_t* ex = mut_expr(ctx, f->extent, m);
      rlx_tir_stmt_t* body = rlx_tir_stmt_mutate(ctx, f->body, m);
      if (mn != f->min || ex != f->extent || body != f->body) r = rlx_tir_for(ctx, f->var, mn, ex, f->for_kind, body);
      break;
    }
    case RLX_STMT_SEQ: {
      rlx_tir_seq_t* q = RLX_AS(rlx_tir_seq_t, s);
      rlx_tir_stmt_t** ns = RLX_NEW_ARRAY(ctx, rlx_tir_stmt_t*, q->n);
      bool changed = false;
      for (int i = 0; i < q->n; i++) {
        ns[i] = rlx_tir_stmt_mutate(ctx, q->stmts[i], m);
        changed = changed || ns[i] != q->stmts[i];
      }
      if (changed) r = rlx_tir_seq(ctx, q->n, ns);
      break;
    }
    case RLX_STMT_IF: {
      rlx_tir_if_t* c = RLX_AS(rlx_tir_if_t, s);
      rlx_expr_t* cond = mut_expr(ctx, c->cond, m);
      rlx_tir_stmt_t* t = rlx_tir_stmt_mutate(ctx, c->then_case, m);
      rlx_tir_stmt_t* e = rlx_tir_stmt_mutate(ctx, c->else_case, m);
      if (cond != c->cond || t != c->then_case || e != c->else_case) r = rlx_tir_if(ctx, cond, t, e);
      break;
    }
    case RLX_STMT_LET: {
      rlx_tir_let_t* l = RLX_AS(rlx_tir_let_t, s);
      rlx_expr_t* value = mut_expr(ctx, l->value, m);
      rlx_tir_stmt_t* body = rlx_tir_stmt_mutate(ctx, l->body, m);
      if (value != l->value || body != l->body) r = rlx_tir_let(ctx, l->var, value, body);
      break;
    }
    case RLX_STMT_EVALUATE: {
      rlx_tir_evaluate_t* ev = RLX_AS(rlx_tir_evaluate_t, s);
      rlx_expr_t* value = mut_expr(ctx, ev->value, m);
      if (value != ev->value) r = rlx_tir_evaluate(ctx, value);
      break;
    }
    case RLX_STMT_BLOCK_REALIZE: {
      rlx_tir_block_realize_t* br = RLX_AS(rlx_tir_block_realize_t, s);
      rlx_expr_t** vals = RLX_NEW_ARRAY(ctx, rlx_expr_t*, br->n_values);
      bool changed = false;
      for (int i = 0; i < br->n_values; i++) {
        vals[i] = mut_expr(ctx, br->iter_values[i], m);
        changed = changed || vals[i] != br->iter_values[i];
      }
      rlx_expr_t* pred = mut_expr(ctx, br->predicate, m);
      rlx_tir_block_t* b = mut_block(ctx, br->block, m);
      if (changed || pred != br->predicate || b != br->block) r = rlx_tir_block_realize(ctx, br->n_values, vals, pred, b);
      break;
    }
    case RLX_STMT_ALLOCATE: {
      rlx_tir_allocate_t* a = RLX_AS(rlx_tir_allocate_t, s);
      rlx_tir_stmt_t* body = rlx_tir_stmt_mutate(ctx, a->body, m);
      if (body != a->body) r = rlx_tir_allocate(ctx, a->buffer, body);
      break;
    }
    case RLX_STMT_KIND_COUNT: break;
  }
  return m->f_stmt ? m->f_stmt(ctx, r, m->user) : r;
}

/* ---------------------------------------------------------------- substitute */
static rlx_expr_t* subst_expr(rlx_ctx_t* ctx, rlx_expr_t* e, void* user) {
  return rlx_expr_substitute(ctx, e, (const rlx_ptrmap_t*)user);
}

rlx_tir_stmt_t* rlx_tir_stmt_substitute(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, const rlx_ptrmap_t* vmap) {
  if (!vmap->len) return s;
  rlx_tir_mutator_t m = {NULL, subst_expr, (void*)vmap};
  return rlx_tir_stmt_mutate(ctx, s, &m);
}

/* ---------------------------------------------------------------- buffer replacement */
static rlx_expr_t* repl_load(rlx_ctx_t* ctx, rlx_expr_t* e, void* user) {
  if (e->kind != RLX_EXPR_BUFFER_LOAD) return e;
  rlx_buffer_load_t* l = RLX_AS(rlx_buffer_load_t, e);
  rlx_tir_buffer_t* nb = rlx_ptrmap_get((const rlx_ptrmap_t*)user, l->buffer);
  return nb ? rlx_ir_load(ctx, nb, l->n_indices, l->indices) : e;
}

static rlx_expr_t* repl_expr(rlx_ctx_t* ctx, rlx_expr_t* e, void* user) {
  return rlx_expr_transform(ctx, e, repl_load, user);
}

static rlx_buffer_region_t* repl_regions(rlx_ctx_t* ctx, rlx_buffer_region_t* rs, int n, const rlx_ptrmap_t* bm) {
  rlx_buffer_region_t* out = rs;
  for (int i = 0; i < n; i++) {
    rlx_tir_buffer_t* nb = rlx_ptrmap_get(bm, rs[i].buffer);
    if (!nb) continue;
    if (out == rs) out = rlx_arena_memdup(&ctx->arena, rs, sizeof(*rs) * (size_t)n);
    out[i].buffer = nb;
  }
  return out;
}

static rlx_tir_stmt_t* repl_stmt(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, void* user) {
  const rlx_ptrmap_t* bm = user;
  if (s->kind == RLX_STMT_BUFFER_STORE) {
    rlx_tir_store_t* st = RLX_AS(rlx_tir_store_t, s);
    rlx_tir_buffer_t* nb = rlx_ptrmap_get(bm, st->buffer);
    return nb ? rlx_tir_store(ctx, nb, st->value, st->n_indices, st->indices) : s;
  }
  if (s->kind == RLX_STMT_ALLOCATE) {
    rlx_tir_allocate_t* a = RLX_AS(rlx_tir_allocate_t, s);
    rlx_tir_buffer_t* nb = rlx_ptrmap_get(bm, a->buffer);
    return nb ? rlx_tir_allocate(ctx, nb, a->body) : s;
  }
  if (s->kind != RLX_STMT_BLOCK_REALIZE) return s;
  rlx_tir_block_realize_t* br = RLX_AS(rlx_tir_block_realize_t, s);
  rlx_tir_block_t* b = br->block;
  rlx_buffer_region_t* reads = repl_regions(ctx, b->reads, b->n_reads, bm);
  rlx_buffer_region_t* writes = repl_regions(ctx, b->writes, b->n_writes, bm);
  bool alloc_changed = false;
  for (int i = 0; i < b->n_alloc_buffers; i++) alloc_changed = alloc_changed || rlx_ptrmap_has(bm, b->alloc_buffers[i]);
  if (reads == b->reads && writes == b->writes && !alloc_changed) return s;
  rlx_tir_block_t* c = rlx_tir_block_copy(ctx, b);
  c->reads = reads;
  c->writes = writes;
  for (int i = 0; i < c->n_alloc_buffers; i++) {
    rlx_tir_buffer_t* nb = rlx_ptrmap_get(bm, c->alloc_buffers[i]);
    if (nb) c->alloc_buffers[i] = nb;
  }
  return rlx_tir_block_realize(ctx, br->n_values, br->iter_values, br->predicate, c);
}

rlx_tir_stmt_t* rlx_tir_stmt_replace_buffers(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, const rlx_ptrmap_t* bmap) {
  if (!bmap->len) return s;
  rlx_tir_mutator_t m = {repl_stmt, repl_expr, (void*)bmap};
  return rlx_tir_stmt_mutate(ctx, s, &m);
}

/* ---------------------------------------------------------------- find block */
typedef struct {
  const char* name;
  rlx_tir_block_realize_t* found;
} find_ctx_t;

static void find_stmt(const rlx_tir_stmt_t* s, void* user) {
  find_ctx_t* fc = user;
  if (fc->found || s->kind != RLX_STMT_BLOCK_REALIZE) return;
  rlx_tir_block_realize_t* br = (rlx_tir_block_realize_t*)s;
  if (strcmp(br->block->name, fc->name) == 0) fc->found = br;
}

rlx_tir_block_realize_t* rlx_tir_find_block(rlx_tir_stmt_t* body, const char* name) {
  find_ctx_t fc = {name, NULL};
  rlx_tir_visitor_t v = {find_stmt, NULL, NULL, &fc};
  rlx_tir_stmt_visit(body, &v);
  return fc.found;
}
