/* Schedule state and helpers shared by the primitives: locating loops and blocks, replacing
 * subtrees, simplifying bindings, access regions, interval evaluation. */
#include <stdlib.h>
#include <string.h>

#include "sched_internal.h"

/* ------------------------------------------------------------------ paths */
typedef bool (*match_fn_t)(const rlx_tir_stmt_t* s, const void* user);

static bool walk_path(rlx_tir_stmt_t* s, match_fn_t m, const void* user, sched_path_t* p) {
  if (!s) return false;
  if (p->n >= SCHED_MAX_DEPTH) return false;
  p->s[p->n++] = s;
  if (m(s, user)) return true;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE:
    case RLX_STMT_EVALUATE: break;
    case RLX_STMT_FOR:
      if (walk_path(RLX_AS(rlx_tir_for_t, s)->body, m, user, p)) return true;
      break;
    case RLX_STMT_SEQ: {
      rlx_tir_seq_t* q = RLX_AS(rlx_tir_seq_t, s);
      for (int i = 0; i < q->n; i++)
        if (walk_path(q->stmts[i], m, user, p)) return true;
      break;
    }
    case RLX_STMT_IF: {
      rlx_tir_if_t* c = RLX_AS(rlx_tir_if_t, s);
      if (walk_path(c->then_case, m, user, p) || walk_path(c->else_case, m, user, p)) return true;
      break;
    }
    case RLX_STMT_LET:
      if (walk_path(RLX_AS(rlx_tir_let_t, s)->body, m, user, p)) return true;
      break;
    case RLX_STMT_BLOCK_REALIZE: {
      rlx_tir_block_t* b = RLX_AS(rlx_tir_block_realize_t, s)->block;
      if (walk_path(b->init, m, user, p) || walk_path(b->body, m, user, p)) return true;
      break;
    }
    case RLX_STMT_ALLOCATE:
      if (walk_path(RLX_AS(rlx_tir_allocate_t, s)->body, m, user, p)) return true;
      break;
    case RLX_STMT_KIND_COUNT: break;
  }
  p->n--;
  return false;
}

static bool match_loop(const rlx_tir_stmt_t* s, const void* user) {
  return s->kind == RLX_STMT_FOR && RLX_AS(const rlx_tir_for_t, s)->var == user;
}
static bool match_block(const rlx_tir_stmt_t* s, const void* user) {
  return s->kind == RLX_STMT_BLOCK_REALIZE &&
         strcmp(RLX_AS(const rlx_tir_block_realize_t, s)->block->name, (const char*)user) == 0;
}
static bool match_ptr(const rlx_tir_stmt_t* s, const void* user) { return s == user; }

bool sched_path_to_loop(rlx_tir_stmt_t* root, const rlx_var_t* v, sched_path_t* out) {
  out->n = 0;
  return walk_path(root, match_loop, v, out);
}
bool sched_path_to_block(rlx_tir_stmt_t* root, const char* name, sched_path_t* out) {
  out->n = 0;
  return walk_path(root, match_block, name, out);
}
bool sched_path_to_stmt(rlx_tir_stmt_t* root, const rlx_tir_stmt_t* target, sched_path_t* out) {
  out->n = 0;
  return walk_path(root, match_ptr, target, out);
}

RLX_MUST_USE rlx_status_t* sched_get_block(rlx_schedule_t* s, const char* name, sched_path_t* path,
                                           rlx_tir_block_realize_t** out_br) {
  if (!name || !sched_path_to_block(s->func->body, name, path))
    return rlx_status_create(RLX_NOT_FOUND, "schedule: no block named '%s' in function '%s'", name ? name : "(null)",
                             s->func->name);
  *out_br = RLX_AS(rlx_tir_block_realize_t, path->s[path->n - 1]);
  return NULL;
}

RLX_MUST_USE rlx_status_t* sched_get_loop(rlx_schedule_t* s, rlx_var_t* loop, const char* op, sched_path_t* path,
                                          rlx_tir_for_t** out_for) {
  if (!loop || !sched_path_to_loop(s->func->body, loop, path))
    return rlx_status_create(RLX_NOT_FOUND, "%s: loop '%s' is not in function '%s'", op,
                             loop ? loop->name : "(null)", s->func->name);
  *out_for = RLX_AS(rlx_tir_for_t, path->s[path->n - 1]);
  return NULL;
}

int sched_parent_block_index(const sched_path_t* p, int i) {
  for (int j = i - 1; j >= 0; j--)
    if (p->s[j]->kind == RLX_STMT_BLOCK_REALIZE) return j;
  return -1;
}

/* ------------------------------------------------------------------ schedule */
rlx_schedule_t* rlx_schedule_create(rlx_ctx_t* ctx, const rlx_tir_func_t* f) {
  rlx_schedule_t* s = RLX_NEW(ctx, rlx_schedule_t);
  s->ctx = ctx;
  s->func = rlx_tir_func_copy(ctx, f);
  return s;
}

RLX_MUST_USE rlx_status_t* rlx_sched_get_loops(rlx_schedule_t* s, const char* block, rlx_var_t*** out_loops, int* out_n) {
  sched_path_t* p = malloc(sizeof(*p));
  if (!p) return rlx_status_create(RLX_OUT_OF_MEMORY, "get_loops");
  rlx_tir_block_realize_t* br;
  rlx_status_t* st = sched_get_block(s, block, p, &br);
  if (st) {
    free(p);
    return st;
  }
  int top = sched_parent_block_index(p, p->n - 1);
  int n = 0;
  for (int i = top + 1; i < p->n - 1; i++) n += p->s[i]->kind == RLX_STMT_FOR;
  rlx_var_t** loops = RLX_NEW_ARRAY(s->ctx, rlx_var_t*, n);
  n = 0;
  for (int i = top + 1; i < p->n - 1; i++)
    if (p->s[i]->kind == RLX_STMT_FOR) loops[n++] = RLX_AS(rlx_tir_for_t, p->s[i])->var;
  free(p);
  *out_loops = loops;
  *out_n = n;
  return NULL;
}

/* ------------------------------------------------------------------ replace */
typedef struct {
  rlx_tir_stmt_t* old;
  rlx_tir_stmt_t* repl;
  bool removing;
} repl_ctx_t;

static rlx_tir_stmt_t* repl_stmt(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, void* user) {
  repl_ctx_t* rc = user;
  if (s == rc->old) return rc->repl;
  if (!rc->removing) return s;
  switch (s->kind) {
    case RLX_STMT_FOR:
      if (!RLX_AS(rlx_tir_for_t, s)->body) return NULL;
      break;
    case RLX_STMT_SEQ:
      if (RLX_AS(rlx_tir_seq_t, s)->n == 0) return NULL;
      break;
    case RLX_STMT_LET:
      if (!RLX_AS(rlx_tir_let_t, s)->body) return NULL;
      break;
    case RLX_STMT_ALLOCATE:
      if (!RLX_AS(rlx_tir_allocate_t, s)->body) return NULL;
      break;
    case RLX_STMT_IF: {
      rlx_tir_if_t* c = RLX_AS(rlx_tir_if_t, s);
      if (!c->then_case && !c->else_case) return NULL;
      if (!c->then_case) return rlx_tir_if(ctx, rlx_ir_not(ctx, c->cond), c->else_case, NULL);
      break;
    }
    case RLX_STMT_BLOCK_REALIZE: {
      rlx_tir_block_realize_t* br = RLX_AS(rlx_tir_block_realize_t, s);
      if (!br->block->body) {
        rlx_tir_block_t* b = rlx_tir_block_copy(ctx, br->block);
        b->body = rlx_tir_evaluate(ctx, rlx_ir_i32(ctx, 0));
        return rlx_tir_block_realize(ctx, br->n_values, br->iter_values, br->predicate, b);
      }
      break;
    }
    case RLX_STMT_BUFFER_STORE:
    case RLX_STMT_EVALUATE:
    case RLX_STMT_KIND_COUNT: break;
  }
  return s;
}

rlx_tir_stmt_t* sched_replace(rlx_ctx_t* ctx, rlx_tir_stmt_t* root, rlx_tir_stmt_t* old, rlx_tir_stmt_t* repl) {
  repl_ctx_t rc = {old, repl, repl == NULL};
  rlx_tir_mutator_t m = {repl_stmt, NULL, &rc};
  return rlx_tir_stmt_mutate(ctx, root, &m);
}

/* ------------------------------------------------------------------ simplify bindings */
typedef struct {
  rlx_ctx_t* ctx;
  rlx_analyzer_t* an;
} simp_ctx_t;

static rlx_tir_stmt_t* simp_stmt(simp_ctx_t* sc, rlx_tir_stmt_t* s);

static rlx_tir_block_t* simp_block(simp_ctx_t* sc, rlx_tir_block_t* b) {
  for (int i = 0; i < b->n_iter_vars; i++)
    rlx_analyzer_bind(sc->an, b->iter_vars[i]->var, b->iter_vars[i]->dom.min, b->iter_vars[i]->dom.extent);
  rlx_tir_stmt_t* init = b->init ? simp_stmt(sc, b->init) : NULL;
  rlx_tir_stmt_t* body = simp_stmt(sc, b->body);
  if (init == b->init && body == b->body) return b;
  rlx_tir_block_t* c = rlx_tir_block_copy(sc->ctx, b);
  c->init = init;
  c->body = body;
  return c;
}

static rlx_tir_stmt_t* simp_stmt(simp_ctx_t* sc, rlx_tir_stmt_t* s) {
  rlx_ctx_t* ctx = sc->ctx;
  if (!s) return NULL;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE:
    case RLX_STMT_EVALUATE: return s;
    case RLX_STMT_FOR: {
      rlx_tir_for_t* f = RLX_AS(rlx_tir_for_t, s);
      rlx_analyzer_bind(sc->an, f->var, f->min, f->extent);
      rlx_tir_stmt_t* body = simp_stmt(sc, f->body);
      return body == f->body ? s : rlx_tir_for(ctx, f->var, f->min, f->extent, f->for_kind, body);
    }
    case RLX_STMT_SEQ: {
      rlx_tir_seq_t* q = RLX_AS(rlx_tir_seq_t, s);
      rlx_tir_stmt_t** ns = RLX_NEW_ARRAY(ctx, rlx_tir_stmt_t*, q->n);
      bool changed = false;
      for (int i = 0; i < q->n; i++) {
        ns[i] = simp_stmt(sc, q->stmts[i]);
        changed = changed || ns[i] != q->stmts[i];
      }
      return changed ? rlx_tir_seq(ctx, q->n, ns) : s;
    }
    case RLX_STMT_IF: {
      rlx_tir_if_t* c = RLX_AS(rlx_tir_if_t, s);
      rlx_tir_stmt_t* t = simp_stmt(sc, c->then_case);
      rlx_tir_stmt_t* e = simp_stmt(sc, c->else_case);
      return t == c->then_case && e == c->else_case ? s : rlx_tir_if(ctx, c->cond, t, e);
    }
    case RLX_STMT_LET: {
      rlx_tir_let_t* l = RLX_AS(rlx_tir_let_t, s);
      rlx_tir_stmt_t* body = simp_stmt(sc, l->body);
      return body == l->body ? s : rlx_tir_let(ctx, l->var, l->value, body);
    }
    case RLX_STMT_ALLOCATE: {
      rlx_tir_allocate_t* a = RLX_AS(rlx_tir_allocate_t, s);
      rlx_tir_stmt_t* body = simp_stmt(sc, a->body);
      return body == a->body ? s : rlx_tir_allocate(ctx, a->buffer, body);
    }
    case RLX_STMT_BLOCK_REALIZE: {
      rlx_tir_block_realize_t* br = RLX_AS(rlx_tir_block_realize_t, s);
      rlx_expr_t** vals = RLX_NEW_ARRAY(ctx, rlx_expr_t*, br->n_values);
      for (int i = 0; i < br->n_values; i++) vals[i] = rlx_analyzer_simplify(sc->an, br->iter_values[i]);
      rlx_expr_t* pred = br->predicate;
      if (pred) {
        pred = rlx_analyzer_simplify(sc->an, pred);
        if (rlx_analyzer_can_prove(sc->an, pred)) pred = NULL;
      }
      rlx_tir_block_t* b = simp_block(sc, br->block);
      return rlx_tir_block_realize(ctx, br->n_values, vals, pred, b);
    }
    case RLX_STMT_KIND_COUNT: break;
  }
  return s;
}

static void bind_shape_vars(rlx_analyzer_t* an, const rlx_tir_buffer_t* b) {
  if (!b) return;
  for (int d = 0; d < b->ndim; d++)
    if (b->shape[d]->kind == RLX_EXPR_VAR) rlx_analyzer_bind_nonneg(an, RLX_AS(rlx_var_t, b->shape[d]));
}

rlx_tir_stmt_t* sched_simplify_bindings(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_stmt_t* body) {
  simp_ctx_t sc = {ctx, rlx_analyzer_create(ctx)};
  for (int i = 0; i < f->n_params; i++) bind_shape_vars(sc.an, f->buffer_map[i]);
  return simp_stmt(&sc, body);
}

void sched_set_body(rlx_schedule_t* s, rlx_tir_stmt_t* body) {
  rlx_tir_func_t* f = rlx_tir_func_copy(s->ctx, s->func);
  f->body = sched_simplify_bindings(s->ctx, f, body);
  s->func = f;
}

/* ------------------------------------------------------------------ predicates */
static rlx_tir_stmt_t* addpred(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, rlx_expr_t* cond) {
  if (!s) return NULL;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE:
    case RLX_STMT_EVALUATE: return s;
    case RLX_STMT_FOR: {
      rlx_tir_for_t* f = RLX_AS(rlx_tir_for_t, s);
      return rlx_tir_for(ctx, f->var, f->min, f->extent, f->for_kind, addpred(ctx, f->body, cond));
    }
    case RLX_STMT_SEQ: {
      rlx_tir_seq_t* q = RLX_AS(rlx_tir_seq_t, s);
      rlx_tir_stmt_t** ns = RLX_NEW_ARRAY(ctx, rlx_tir_stmt_t*, q->n);
      for (int i = 0; i < q->n; i++) ns[i] = addpred(ctx, q->stmts[i], cond);
      return rlx_tir_seq(ctx, q->n, ns);
    }
    case RLX_STMT_IF: {
      rlx_tir_if_t* c = RLX_AS(rlx_tir_if_t, s);
      return rlx_tir_if(ctx, c->cond, addpred(ctx, c->then_case, cond), addpred(ctx, c->else_case, cond));
    }
    case RLX_STMT_LET: {
      rlx_tir_let_t* l = RLX_AS(rlx_tir_let_t, s);
      return rlx_tir_let(ctx, l->var, l->value, addpred(ctx, l->body, cond));
    }
    case RLX_STMT_ALLOCATE: {
      rlx_tir_allocate_t* a = RLX_AS(rlx_tir_allocate_t, s);
      return rlx_tir_allocate(ctx, a->buffer, addpred(ctx, a->body, cond));
    }
    case RLX_STMT_BLOCK_REALIZE: {
      rlx_tir_block_realize_t* br = RLX_AS(rlx_tir_block_realize_t, s);
      rlx_expr_t* p = br->predicate ? rlx_ir_and(ctx, br->predicate, cond) : cond;
      return rlx_tir_block_realize(ctx, br->n_values, br->iter_values, p, br->block);
    }
    case RLX_STMT_KIND_COUNT: break;
  }
  return s;
}

rlx_tir_stmt_t* sched_add_predicate(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, rlx_expr_t* cond) {
  return addpred(ctx, s, cond);
}

/* ------------------------------------------------------------------ buffers and regions */
bool sched_is_param_buffer(const rlx_tir_func_t* f, const rlx_tir_buffer_t* buf) {
  for (int i = 0; i < f->n_params; i++)
    if (f->buffer_map[i] == buf) return true;
  return false;
}

rlx_buffer_region_t sched_full_region(rlx_ctx_t* ctx, rlx_tir_buffer_t* buf) {
  rlx_buffer_region_t r;
  r.buffer = buf;
  r.ndim = buf->ndim;
  r.region = RLX_NEW_ARRAY(ctx, rlx_range_t, buf->ndim);
  for (int d = 0; d < buf->ndim; d++) {
    r.region[d].min = rlx_ir_int(ctx, buf->shape[d]->dtype, 0);
    r.region[d].extent = buf->shape[d];
  }
  return r;
}

typedef struct {
  rlx_tir_buffer_t* buf;
  int n;
  rlx_expr_t** idx; /* first access */
  bool differ;
} access_t;
typedef struct {
  RLX_VEC(access_t) acc;
  bool ok;
} access_list_t;

static void note_access(access_list_t* al, rlx_tir_buffer_t* buf, int n, rlx_expr_t** idx) {
  for (int i = 0; i < al->acc.len; i++) {
    access_t* a = &al->acc.data[i];
    if (a->buf != buf) continue;
    if (a->n != n) {
      a->differ = true;
      return;
    }
    for (int d = 0; d < n; d++)
      if (!rlx_expr_equal(a->idx[d], idx[d])) a->differ = true;
    return;
  }
  access_t a = {buf, n, idx, false};
  if (!rlx_vec_push(&al->acc, a)) al->ok = false;
}

static void collect_load(const rlx_expr_t* e, void* user) {
  if (e->kind != RLX_EXPR_BUFFER_LOAD) return;
  const rlx_buffer_load_t* l = RLX_AS(const rlx_buffer_load_t, e);
  note_access(user, l->buffer, l->n_indices, l->indices);
}
static void collect_loads_expr(const rlx_expr_t* e, void* user) { rlx_expr_visit(e, collect_load, user); }

static void collect_store(const rlx_tir_stmt_t* s, void* user) {
  if (s->kind != RLX_STMT_BUFFER_STORE) return;
  const rlx_tir_store_t* st = RLX_AS(const rlx_tir_store_t, s);
  note_access(user, st->buffer, st->n_indices, st->indices);
}

static rlx_buffer_region_t* regions_of(rlx_ctx_t* ctx, access_list_t* al, int* out_n, const access_list_t* skip) {
  rlx_buffer_region_t* rs = RLX_NEW_ARRAY(ctx, rlx_buffer_region_t, al->acc.len);
  int n = 0;
  for (int i = 0; i < al->acc.len; i++) {
    access_t* a = &al->acc.data[i];
    bool skipped = false;
    for (int j = 0; skip && j < skip->acc.len; j++) skipped = skipped || skip->acc.data[j].buf == a->buf;
    if (skipped) continue;
    if (a->differ || a->n != a->buf->ndim) {
      rs[n++] = sched_full_region(ctx, a->buf);
      continue;
    }
    rs[n].buffer = a->buf;
    rs[n].ndim = a->n;
    rs[n].region = RLX_NEW_ARRAY(ctx, rlx_range_t, a->n);
    for (int d = 0; d < a->n; d++) {
      rs[n].region[d].min = a->idx[d];
      rs[n].region[d].extent = rlx_ir_int(ctx, a->idx[d]->dtype, 1);
    }
    n++;
  }
  *out_n = n;
  return rs;
}

rlx_tir_block_t* sched_block_recompute_regions(rlx_ctx_t* ctx, const rlx_tir_block_t* b) {
  access_list_t loads = {{0}, true}, stores = {{0}, true};
  rlx_tir_visitor_t vl = {NULL, collect_loads_expr, NULL, &loads};
  rlx_tir_visitor_t vs = {collect_store, NULL, NULL, &stores};
  rlx_tir_stmt_visit(b->body, &vl);
  rlx_tir_stmt_visit(b->body, &vs);
  if (b->init) {
    rlx_tir_stmt_visit(b->init, &vl);
    rlx_tir_stmt_visit(b->init, &vs);
  }
  rlx_tir_block_t* c = rlx_tir_block_copy(ctx, b);
  c->reads = regions_of(ctx, &loads, &c->n_reads, b->init ? &stores : NULL);
  c->writes = regions_of(ctx, &stores, &c->n_writes, NULL);
  rlx_vec_free(&loads.acc);
  rlx_vec_free(&stores.acc);
  return c;
}

/* ------------------------------------------------------------------ readers / writers */
typedef struct {
  const rlx_tir_buffer_t* buf;
  int count;
  bool found;
} count_ctx_t;

static void count_writer(const rlx_tir_block_t* b, void* user) {
  count_ctx_t* cc = user;
  for (int i = 0; i < b->n_writes; i++)
    if (b->writes[i].buffer == cc->buf) {
      cc->count++;
      return;
    }
}
/* Loads of buf in s outside nested blocks. */
static bool own_loads(const rlx_tir_stmt_t* s, const rlx_tir_buffer_t* buf) {
  if (!s) return false;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE: {
      const rlx_tir_store_t* st = RLX_AS(const rlx_tir_store_t, s);
      if (sched_expr_loads(st->value, buf)) return true;
      for (int i = 0; i < st->n_indices; i++)
        if (sched_expr_loads(st->indices[i], buf)) return true;
      return false;
    }
    case RLX_STMT_FOR: {
      const rlx_tir_for_t* f = RLX_AS(const rlx_tir_for_t, s);
      return sched_expr_loads(f->min, buf) || sched_expr_loads(f->extent, buf) || own_loads(f->body, buf);
    }
    case RLX_STMT_SEQ: {
      const rlx_tir_seq_t* q = RLX_AS(const rlx_tir_seq_t, s);
      for (int i = 0; i < q->n; i++)
        if (own_loads(q->stmts[i], buf)) return true;
      return false;
    }
    case RLX_STMT_IF: {
      const rlx_tir_if_t* c = RLX_AS(const rlx_tir_if_t, s);
      return sched_expr_loads(c->cond, buf) || own_loads(c->then_case, buf) || own_loads(c->else_case, buf);
    }
    case RLX_STMT_LET:
      return sched_expr_loads(RLX_AS(const rlx_tir_let_t, s)->value, buf) || own_loads(RLX_AS(const rlx_tir_let_t, s)->body, buf);
    case RLX_STMT_EVALUATE: return sched_expr_loads(RLX_AS(const rlx_tir_evaluate_t, s)->value, buf);
    case RLX_STMT_ALLOCATE: return own_loads(RLX_AS(const rlx_tir_allocate_t, s)->body, buf);
    case RLX_STMT_BLOCK_REALIZE: {
      const rlx_tir_block_realize_t* br = RLX_AS(const rlx_tir_block_realize_t, s);
      for (int i = 0; i < br->n_values; i++)
        if (sched_expr_loads(br->iter_values[i], buf)) return true;
      return br->predicate && sched_expr_loads(br->predicate, buf);
    }
    case RLX_STMT_KIND_COUNT: break;
  }
  return false;
}

/* Stores to buf in s outside nested blocks. */
static bool own_stores(const rlx_tir_stmt_t* s, const rlx_tir_buffer_t* buf) {
  if (!s) return false;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE: return RLX_AS(const rlx_tir_store_t, s)->buffer == buf;
    case RLX_STMT_FOR: return own_stores(RLX_AS(const rlx_tir_for_t, s)->body, buf);
    case RLX_STMT_SEQ: {
      const rlx_tir_seq_t* q = RLX_AS(const rlx_tir_seq_t, s);
      for (int i = 0; i < q->n; i++)
        if (own_stores(q->stmts[i], buf)) return true;
      return false;
    }
    case RLX_STMT_IF:
      return own_stores(RLX_AS(const rlx_tir_if_t, s)->then_case, buf) ||
             own_stores(RLX_AS(const rlx_tir_if_t, s)->else_case, buf);
    case RLX_STMT_LET: return own_stores(RLX_AS(const rlx_tir_let_t, s)->body, buf);
    case RLX_STMT_ALLOCATE: return own_stores(RLX_AS(const rlx_tir_allocate_t, s)->body, buf);
    case RLX_STMT_EVALUATE:
    case RLX_STMT_BLOCK_REALIZE:
    case RLX_STMT_KIND_COUNT: break;
  }
  return false;
}

bool sched_block_own_access(const rlx_tir_block_t* b, const rlx_tir_buffer_t* buf) {
  return own_loads(b->body, buf) || own_loads(b->init, buf) || own_stores(b->body, buf) || own_stores(b->init, buf);
}

static void count_reader(const rlx_tir_block_t* b, void* user) {
  count_ctx_t* cc = user;
  if (own_loads(b->body, cc->buf) || own_loads(b->init, cc->buf)) cc->count++;
}

int sched_count_writers(rlx_tir_stmt_t* s, const rlx_tir_buffer_t* buf) {
  count_ctx_t cc = {buf, 0, false};
  rlx_tir_visitor_t v = {NULL, NULL, count_writer, &cc};
  rlx_tir_stmt_visit(s, &v);
  return cc.count;
}
int sched_count_readers(rlx_tir_stmt_t* s, const rlx_tir_buffer_t* buf) {
  count_ctx_t cc = {buf, 0, false};
  rlx_tir_visitor_t v = {NULL, NULL, count_reader, &cc};
  rlx_tir_stmt_visit(s, &v);
  return cc.count;
}

static void find_load(const rlx_expr_t* e, void* user) {
  count_ctx_t* cc = user;
  if (e->kind == RLX_EXPR_BUFFER_LOAD && RLX_AS(const rlx_buffer_load_t, e)->buffer == cc->buf) cc->found = true;
}
static void find_load_top(const rlx_expr_t* e, void* user) { rlx_expr_visit(e, find_load, user); }

bool sched_expr_loads(const rlx_expr_t* e, const rlx_tir_buffer_t* buf) {
  count_ctx_t cc = {buf, 0, false};
  rlx_expr_visit(e, find_load, &cc);
  return cc.found;
}
bool sched_stmt_loads(const rlx_tir_stmt_t* s, const rlx_tir_buffer_t* buf) {
  count_ctx_t cc = {buf, 0, false};
  rlx_tir_visitor_t v = {NULL, find_load_top, NULL, &cc};
  rlx_tir_stmt_visit(s, &v);
  return cc.found;
}

rlx_tir_block_t* sched_block_remove_alloc(rlx_ctx_t* ctx, const rlx_tir_block_t* b, const rlx_tir_buffer_t* buf) {
  int at = -1;
  for (int i = 0; i < b->n_alloc_buffers; i++)
    if (b->alloc_buffers[i] == buf) at = i;
  if (at < 0) return (rlx_tir_block_t*)b;
  rlx_tir_block_t* c = rlx_tir_block_copy(ctx, b);
  for (int i = at; i + 1 < c->n_alloc_buffers; i++) c->alloc_buffers[i] = c->alloc_buffers[i + 1];
  c->n_alloc_buffers--;
  return c;
}

static rlx_tir_stmt_t* rm_alloc_stmt(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, void* user) {
  if (s->kind != RLX_STMT_BLOCK_REALIZE) return s;
  rlx_tir_block_realize_t* br = RLX_AS(rlx_tir_block_realize_t, s);
  rlx_tir_block_t* b = sched_block_remove_alloc(ctx, br->block, user);
  if (b == br->block) return s;
  return rlx_tir_block_realize(ctx, br->n_values, br->iter_values, br->predicate, b);
}

rlx_tir_stmt_t* sched_remove_alloc(rlx_ctx_t* ctx, rlx_tir_stmt_t* root, const rlx_tir_buffer_t* buf) {
  rlx_tir_mutator_t m = {rm_alloc_stmt, NULL, (void*)buf};
  return rlx_tir_stmt_mutate(ctx, root, &m);
}

/* ------------------------------------------------------------------ load replacement */
typedef struct {
  const rlx_tir_buffer_t* buf;
  sched_load_fn_t fn;
  void* user;
} rl_ctx_t;

static rlx_expr_t* rl_one(rlx_ctx_t* ctx, rlx_expr_t* e, void* user) {
  rl_ctx_t* rc = user;
  if (e->kind == RLX_EXPR_BUFFER_LOAD && RLX_AS(rlx_buffer_load_t, e)->buffer == rc->buf)
    return rc->fn(ctx, RLX_AS(rlx_buffer_load_t, e), rc->user);
  return e;
}

rlx_expr_t* sched_replace_loads(rlx_ctx_t* ctx, rlx_expr_t* e, const rlx_tir_buffer_t* buf, sched_load_fn_t fn,
                                void* user) {
  if (!e || !sched_expr_loads(e, buf)) return e;
  rl_ctx_t rc = {buf, fn, user};
  return rlx_expr_transform(ctx, e, rl_one, &rc);
}

static rlx_expr_t* rl_top(rlx_ctx_t* ctx, rlx_expr_t* e, void* user) {
  rl_ctx_t* rc = user;
  return sched_replace_loads(ctx, e, rc->buf, rc->fn, rc->user);
}

rlx_tir_stmt_t* sched_stmt_replace_loads(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, const rlx_tir_buffer_t* buf,
                                         sched_load_fn_t fn, void* user) {
  rl_ctx_t rc = {buf, fn, user};
  rlx_tir_mutator_t m = {NULL, rl_top, &rc};
  return rlx_tir_stmt_mutate(ctx, s, &m);
}

/* ------------------------------------------------------------------ misc */
const char* sched_unique_block_name(rlx_schedule_t* s, const char* base) {
  if (!rlx_tir_find_block(s->func->body, base)) return rlx_ctx_strdup(s->ctx, base);
  for (int i = 1;; i++) {
    const char* n = rlx_ctx_sprintf(s->ctx, "%s_%d", base, i);
    if (!rlx_tir_find_block(s->func->body, n)) return n;
  }
}

bool sched_store_covers_buffer(const rlx_tir_block_t* b, const rlx_tir_store_t* st) {
  if (st->n_indices != st->buffer->ndim) return false;
  for (int d = 0; d < st->n_indices; d++) {
    int k = sched_iter_index(b, st->indices[d]);
    if (k < 0) return false;
    for (int e = 0; e < d; e++)
      if (st->indices[e] == st->indices[d]) return false;
    int64_t mn;
    if (!rlx_expr_is_const_int(b->iter_vars[k]->dom.min, &mn) || mn != 0) return false;
    if (!rlx_expr_same_value(b->iter_vars[k]->dom.extent, st->buffer->shape[d])) return false;
  }
  return true;
}

int sched_iter_index(const rlx_tir_block_t* b, const rlx_expr_t* v) {
  for (int i = 0; i < b->n_iter_vars; i++)
    if (&b->iter_vars[i]->var->hdr == v) return i;
  return -1;
}

/* ------------------------------------------------------------------ intervals */
static int dom_find(const sched_dom_t* d, const rlx_expr_t* v) {
  for (int i = 0; i < d->n; i++)
    if (&d->vars[i]->hdr == v) return i;
  return -1;
}

/* Interval [lo, hi] (inclusive) of e; false when unknown. */
static bool ival(rlx_ctx_t* ctx, rlx_analyzer_t* an, const rlx_expr_t* e, const sched_dom_t* dom, rlx_expr_t** lo,
                 rlx_expr_t** hi) {
  switch (e->kind) {
    case RLX_EXPR_INT_IMM:
      *lo = *hi = (rlx_expr_t*)e;
      return true;
    case RLX_EXPR_VAR: {
      int i = dom_find(dom, e);
      if (i < 0) {
        *lo = *hi = (rlx_expr_t*)e;
        return true;
      }
      *lo = dom->ranges[i].min;
      *hi = rlx_ir_sub(ctx, rlx_ir_add(ctx, dom->ranges[i].min, dom->ranges[i].extent), rlx_ir_int(ctx, e->dtype, 1));
      return true;
    }
    case RLX_EXPR_CAST: {
      rlx_expr_t *a, *b;
      if (!rlx_dtype_is_int(e->dtype)) return false;
      if (!ival(ctx, an, RLX_AS(const rlx_cast_t, e)->value, dom, &a, &b)) return false;
      *lo = rlx_ir_cast(ctx, e->dtype, a);
      *hi = rlx_ir_cast(ctx, e->dtype, b);
      return true;
    }
    case RLX_EXPR_ADD:
    case RLX_EXPR_SUB:
    case RLX_EXPR_MUL:
    case RLX_EXPR_FLOOR_DIV:
    case RLX_EXPR_DIV:
    case RLX_EXPR_FLOOR_MOD:
    case RLX_EXPR_MIN:
    case RLX_EXPR_MAX: {
      const rlx_binary_t* bn = RLX_AS(const rlx_binary_t, e);
      rlx_expr_t *al, *ah, *bl, *bh;
      if (!ival(ctx, an, bn->a, dom, &al, &ah) || !ival(ctx, an, bn->b, dom, &bl, &bh)) return false;
      int64_t c;
      switch (e->kind) {
        case RLX_EXPR_ADD:
          *lo = rlx_ir_add(ctx, al, bl);
          *hi = rlx_ir_add(ctx, ah, bh);
          return true;
        case RLX_EXPR_SUB:
          *lo = rlx_ir_sub(ctx, al, bh);
          *hi = rlx_ir_sub(ctx, ah, bl);
          return true;
        case RLX_EXPR_MUL:
          if (rlx_expr_is_const_int(bl, &c) && bl == bh) {
            if (c >= 0) {
              *lo = rlx_ir_mul(ctx, al, bl);
              *hi = rlx_ir_mul(ctx, ah, bl);
            } else {
              *lo = rlx_ir_mul(ctx, ah, bl);
              *hi = rlx_ir_mul(ctx, al, bl);
            }
            return true;
          }
          if (rlx_expr_is_const_int(al, &c) && al == ah && c >= 0) {
            *lo = rlx_ir_mul(ctx, al, bl);
            *hi = rlx_ir_mul(ctx, al, bh);
            return true;
          }
          /* both sides non-negative symbolic: monotone */
          if (rlx_expr_equal(al, ah) && rlx_analyzer_can_prove(an, rlx_ir_cmp(ctx, RLX_EXPR_GE, al, rlx_ir_int(ctx, al->dtype, 0)))) {
            *lo = rlx_ir_mul(ctx, al, bl);
            *hi = rlx_ir_mul(ctx, al, bh);
            return true;
          }
          if (rlx_expr_equal(bl, bh) && rlx_analyzer_can_prove(an, rlx_ir_cmp(ctx, RLX_EXPR_GE, bl, rlx_ir_int(ctx, bl->dtype, 0)))) {
            *lo = rlx_ir_mul(ctx, al, bl);
            *hi = rlx_ir_mul(ctx, ah, bl);
            return true;
          }
          return false;
        case RLX_EXPR_FLOOR_DIV:
        case RLX_EXPR_DIV:
          if (rlx_expr_is_const_int(bl, &c) && bl == bh && c > 0) {
            if (e->kind == RLX_EXPR_DIV &&
                !rlx_analyzer_can_prove(an, rlx_ir_cmp(ctx, RLX_EXPR_GE, al, rlx_ir_int(ctx, al->dtype, 0))))
              return false;
            *lo = rlx_ir_floordiv(ctx, al, bl);
            *hi = rlx_ir_floordiv(ctx, ah, bl);
            return true;
          }
          return false;
        case RLX_EXPR_FLOOR_MOD:
          if (rlx_expr_is_const_int(bl, &c) && bl == bh && c > 0) {
            /* exact when the whole range stays within one period */
            rlx_expr_t* same = rlx_ir_cmp(ctx, RLX_EXPR_EQ, rlx_ir_floordiv(ctx, al, bl), rlx_ir_floordiv(ctx, ah, bl));
            if (rlx_analyzer_can_prove(an, same)) {
              *lo = rlx_ir_floormod(ctx, al, bl);
              *hi = rlx_ir_floormod(ctx, ah, bl);
            } else {
              *lo = rlx_ir_int(ctx, e->dtype, 0);
              *hi = rlx_ir_int(ctx, e->dtype, c - 1);
            }
            return true;
          }
          return false;
        case RLX_EXPR_MIN:
          *lo = rlx_ir_min(ctx, al, bl);
          *hi = rlx_ir_min(ctx, ah, bh);
          return true;
        case RLX_EXPR_MAX:
          *lo = rlx_ir_max(ctx, al, bl);
          *hi = rlx_ir_max(ctx, ah, bh);
          return true;
        case RLX_EXPR_INT_IMM:
        case RLX_EXPR_FLOAT_IMM:
        case RLX_EXPR_STRING_IMM:
        case RLX_EXPR_VAR:
        case RLX_EXPR_MOD:
        case RLX_EXPR_EQ:
        case RLX_EXPR_NE:
        case RLX_EXPR_LT:
        case RLX_EXPR_LE:
        case RLX_EXPR_GT:
        case RLX_EXPR_GE:
        case RLX_EXPR_AND:
        case RLX_EXPR_OR:
        case RLX_EXPR_NOT:
        case RLX_EXPR_SELECT:
        case RLX_EXPR_CAST:
        case RLX_EXPR_LET:
        case RLX_EXPR_BUFFER_LOAD:
        case RLX_EXPR_CALL:
        case RLX_EXPR_REDUCE:
        case RLX_EXPR_RAMP:
        case RLX_EXPR_BROADCAST:
        case RLX_EXPR_KIND_COUNT:
          return false;
      }
      return false;
    }
    case RLX_EXPR_FLOAT_IMM:
    case RLX_EXPR_STRING_IMM:
    case RLX_EXPR_MOD:
    case RLX_EXPR_EQ:
    case RLX_EXPR_NE:
    case RLX_EXPR_LT:
    case RLX_EXPR_LE:
    case RLX_EXPR_GT:
    case RLX_EXPR_GE:
    case RLX_EXPR_AND:
    case RLX_EXPR_OR:
    case RLX_EXPR_NOT:
    case RLX_EXPR_SELECT:
    case RLX_EXPR_LET:
    case RLX_EXPR_BUFFER_LOAD:
    case RLX_EXPR_CALL:
    case RLX_EXPR_REDUCE:
    case RLX_EXPR_RAMP:
    case RLX_EXPR_BROADCAST:
    case RLX_EXPR_KIND_COUNT:
      return false;
  }
  return false;
}

bool sched_eval_interval(rlx_ctx_t* ctx, rlx_analyzer_t* an, const rlx_expr_t* e, const sched_dom_t* dom,
                         rlx_expr_t** out_min, rlx_expr_t** out_max) {
  rlx_expr_t *lo, *hi;
  if (!ival(ctx, an, e, dom, &lo, &hi)) return false;
  *out_min = rlx_analyzer_simplify(an, lo);
  *out_max = rlx_analyzer_simplify(an, hi);
  return true;
}

/* ------------------------------------------------------------------ the region one loop iteration touches */
typedef struct {
  RLX_VEC(rlx_var_t*) vars;
  RLX_VEC(rlx_range_t) ranges;
} loops_t;

static void collect_inner_loop(const rlx_tir_stmt_t* s, void* user) {
  loops_t* d = user;
  if (s->kind != RLX_STMT_FOR) return;
  const rlx_tir_for_t* f = RLX_AS(const rlx_tir_for_t, s);
  rlx_range_t r = {f->min, f->extent};
  rlx_vec_push(&d->vars, f->var);
  rlx_vec_push(&d->ranges, r);
}

typedef struct {
  rlx_ctx_t* ctx;
  rlx_analyzer_t* an;
  sched_dom_t dom;
  const rlx_tir_buffer_t* x;
  unsigned which;
  bool simplify;
  const rlx_tir_block_realize_t* cur; /* the block of the statements being visited */
  rlx_expr_t** lo;
  rlx_expr_t** hi;
  int count;
  bool fail;
} span_t;

/* Widens the region by one access at idx (in the iter vars of rc->cur). */
static void span_access(span_t* rc, int n, rlx_expr_t* const* idx) {
  if (rc->fail) return;
  if (n != rc->x->ndim || !rc->cur) {
    rc->fail = true;
    return;
  }
  rlx_ptrmap_t vm = {0};
  const rlx_tir_block_realize_t* br = rc->cur;
  for (int i = 0; i < br->n_values; i++) rlx_ptrmap_put(&vm, br->block->iter_vars[i]->var, br->iter_values[i]);
  for (int d = 0; d < n; d++) {
    rlx_expr_t *lo, *hi;
    if (!sched_eval_interval(rc->ctx, rc->an, rlx_expr_substitute(rc->ctx, idx[d], &vm), &rc->dom, &lo, &hi)) {
      rc->fail = true;
      break;
    }
    if (rc->count) {
      lo = rlx_ir_min(rc->ctx, rc->lo[d], lo);
      hi = rlx_ir_max(rc->ctx, rc->hi[d], hi);
      if (rc->simplify) {
        lo = rlx_analyzer_simplify(rc->an, lo);
        hi = rlx_analyzer_simplify(rc->an, hi);
      }
    }
    rc->lo[d] = lo;
    rc->hi[d] = hi;
  }
  rlx_ptrmap_free(&vm);
  rc->count++;
}

static void span_load(const rlx_expr_t* e, void* user) {
  span_t* rc = user;
  if (e->kind != RLX_EXPR_BUFFER_LOAD || RLX_AS(const rlx_buffer_load_t, e)->buffer != rc->x) return;
  const rlx_buffer_load_t* l = RLX_AS(const rlx_buffer_load_t, e);
  span_access(rc, l->n_indices, l->indices);
}

static void span_expr(const rlx_expr_t* e, void* user) {
  if (((span_t*)user)->which & SCHED_LOADS) rlx_expr_visit(e, span_load, user);
}

static void span_stmt(const rlx_tir_stmt_t* s, void* user) {
  span_t* rc = user;
  if (s->kind == RLX_STMT_BLOCK_REALIZE) rc->cur = RLX_AS(const rlx_tir_block_realize_t, s);
  if ((rc->which & SCHED_STORES) && s->kind == RLX_STMT_BUFFER_STORE && rc->cur &&
      RLX_AS(const rlx_tir_store_t, s)->buffer == rc->x) {
    const rlx_tir_store_t* st = RLX_AS(const rlx_tir_store_t, s);
    span_access(rc, st->n_indices, st->indices);
  }
}

bool sched_access_region(rlx_ctx_t* ctx, rlx_analyzer_t* an, const rlx_tir_stmt_t* s, const rlx_tir_buffer_t* x,
                         unsigned which, bool simplify, rlx_expr_t*** out_lo, rlx_expr_t*** out_hi) {
  loops_t ld = {{0}, {0}};
  rlx_tir_visitor_t lv = {collect_inner_loop, NULL, NULL, &ld};
  rlx_tir_stmt_visit(s, &lv);
  for (int i = 0; i < ld.vars.len; i++) rlx_analyzer_bind(an, ld.vars.data[i], ld.ranges.data[i].min, ld.ranges.data[i].extent);
  span_t rc = {ctx,   an,   {ld.vars.len, ld.vars.data, ld.ranges.data}, x, which, simplify, NULL,
                 RLX_NEW_ARRAY(ctx, rlx_expr_t*, x->ndim), RLX_NEW_ARRAY(ctx, rlx_expr_t*, x->ndim), 0, false};
  rlx_tir_visitor_t rv = {span_stmt, span_expr, NULL, &rc};
  rlx_tir_stmt_visit(s, &rv);
  rlx_vec_free(&ld.vars);
  rlx_vec_free(&ld.ranges);
  *out_lo = rc.lo;
  *out_hi = rc.hi;
  return !rc.fail && rc.count > 0;
}
