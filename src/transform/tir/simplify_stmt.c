/* simplify: statement-level simplification with the arithmetic analyzer (src/ir/simplify.c).
 *
 * Requires: a well-formed PrimFunc (blocks allowed; usually run after lowering).
 * Produces: the same computation where
 *   - shape vars of the buffer map are known >= 0, loop vars are known in [min, min+extent),
 *     block iter vars in their domain, let vars in the constant bounds of their value;
 *   - every expression is simplified under those ranges;
 *   - a loop of extent 1 is replaced by its body with the loop var := min; a loop of extent
 *     <= 0 or with an empty body is removed;
 *   - an `if` whose condition is provably true (false) is replaced by its then (else) branch;
 *   - blocks (when present): iter values, reads/writes regions and bodies are simplified, a
 *     provably-true predicate is removed;
 *   - no-op statements (Evaluate of a constant) are dropped from sequences; an empty body is
 *     Evaluate(0).
 */
#include "transform.h"

typedef struct {
  rlx_ctx_t* ctx;
  rlx_analyzer_t* an;
} sp_t;

static rlx_tir_stmt_t* noop(rlx_ctx_t* ctx) { return rlx_tir_evaluate(ctx, rlx_ir_i32(ctx, 0)); }

static bool is_noop(const rlx_tir_stmt_t* s) {
  if (!s) return true;
  if (s->kind == RLX_STMT_EVALUATE) {
    rlx_expr_kind_t k = RLX_AS(const rlx_tir_evaluate_t, s)->value->kind;
    return k == RLX_EXPR_INT_IMM || k == RLX_EXPR_FLOAT_IMM;
  }
  return s->kind == RLX_STMT_SEQ && RLX_AS(const rlx_tir_seq_t, s)->n == 0;
}

static rlx_expr_t* sx(sp_t* sp, rlx_expr_t* e) { return e ? rlx_analyzer_simplify(sp->an, e) : NULL; }

static rlx_expr_t** sx_array(sp_t* sp, int n, rlx_expr_t* const* es, bool* changed) {
  rlx_expr_t** out = RLX_NEW_ARRAY(sp->ctx, rlx_expr_t*, n);
  for (int i = 0; i < n; i++) {
    out[i] = sx(sp, es[i]);
    *changed = *changed || out[i] != es[i];
  }
  return out;
}

static rlx_tir_stmt_t* simp(sp_t* sp, rlx_tir_stmt_t* s);

static rlx_tir_stmt_t* simp_for(sp_t* sp, rlx_tir_for_t* f) {
  rlx_ctx_t* ctx = sp->ctx;
  rlx_expr_t* mn = sx(sp, f->min);
  rlx_expr_t* ex = sx(sp, f->extent);
  int64_t n;
  if (rlx_expr_is_const_int(ex, &n) && n <= 0) return noop(ctx);
  if (rlx_expr_is_const_int(ex, &n) && n == 1) {
    rlx_ptrmap_t vm = {0};
    rlx_ptrmap_put(&vm, f->var, rlx_ir_cast(ctx, f->var->hdr.dtype, mn));
    rlx_tir_stmt_t* body = rlx_tir_stmt_substitute(ctx, f->body, &vm);
    rlx_ptrmap_free(&vm);
    return simp(sp, body);
  }
  rlx_analyzer_bind(sp->an, f->var, mn, ex);
  rlx_tir_stmt_t* body = simp(sp, f->body);
  if (is_noop(body)) return noop(ctx);
  if (mn == f->min && ex == f->extent && body == f->body) return &f->hdr;
  return rlx_tir_for(ctx, f->var, mn, ex, f->for_kind, body);
}

static rlx_tir_stmt_t* simp_realize(sp_t* sp, rlx_tir_block_realize_t* br) {
  rlx_ctx_t* ctx = sp->ctx;
  bool changed = false;
  rlx_expr_t** vals = sx_array(sp, br->n_values, br->iter_values, &changed);
  rlx_expr_t* pred = sx(sp, br->predicate);
  int64_t pv;
  if (pred && (rlx_expr_is_const_int(pred, &pv) ? pv != 0 : rlx_analyzer_can_prove(sp->an, pred))) pred = NULL;
  changed = changed || pred != br->predicate;
  rlx_tir_block_t* b = br->block;
  for (int i = 0; i < b->n_iter_vars; i++)
    rlx_analyzer_bind(sp->an, b->iter_vars[i]->var, b->iter_vars[i]->dom.min, b->iter_vars[i]->dom.extent);
  bool regions_changed = false;
  rlx_buffer_region_t* rw[2] = {b->reads, b->writes};
  int nrw[2] = {b->n_reads, b->n_writes};
  for (int k = 0; k < 2; k++) {
    rlx_buffer_region_t* rs = RLX_NEW_ARRAY(ctx, rlx_buffer_region_t, nrw[k]);
    for (int i = 0; i < nrw[k]; i++) {
      rs[i] = rw[k][i];
      rs[i].region = RLX_NEW_ARRAY(ctx, rlx_range_t, rs[i].ndim);
      for (int d = 0; d < rs[i].ndim; d++) {
        rs[i].region[d].min = sx(sp, rw[k][i].region[d].min);
        rs[i].region[d].extent = sx(sp, rw[k][i].region[d].extent);
        regions_changed = regions_changed || rs[i].region[d].min != rw[k][i].region[d].min ||
                          rs[i].region[d].extent != rw[k][i].region[d].extent;
      }
    }
    rw[k] = rs;
  }
  rlx_tir_stmt_t* init = b->init ? simp(sp, b->init) : NULL;
  rlx_tir_stmt_t* body = simp(sp, b->body);
  if (init != b->init || body != b->body || regions_changed) {
    b = rlx_tir_block_copy(ctx, b);
    b->init = init;
    b->body = body;
    if (regions_changed) b->reads = rw[0], b->writes = rw[1];
    changed = true;
  }
  return changed ? rlx_tir_block_realize(ctx, br->n_values, vals, pred, b) : &br->hdr;
}

static rlx_tir_stmt_t* simp(sp_t* sp, rlx_tir_stmt_t* s) {
  if (!s) return NULL;
  rlx_ctx_t* ctx = sp->ctx;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE: {
      rlx_tir_store_t* st = RLX_AS(rlx_tir_store_t, s);
      rlx_expr_t* value = sx(sp, st->value);
      bool changed = value != st->value;
      rlx_expr_t** idx = sx_array(sp, st->n_indices, st->indices, &changed);
      return changed ? rlx_tir_store(ctx, st->buffer, value, st->n_indices, idx) : s;
    }
    case RLX_STMT_FOR: return simp_for(sp, RLX_AS(rlx_tir_for_t, s));
    case RLX_STMT_SEQ: {
      rlx_tir_seq_t* q = RLX_AS(rlx_tir_seq_t, s);
      rlx_tir_stmt_t** ns = RLX_NEW_ARRAY(ctx, rlx_tir_stmt_t*, q->n);
      int k = 0;
      bool changed = false;
      for (int i = 0; i < q->n; i++) {
        rlx_tir_stmt_t* x = simp(sp, q->stmts[i]);
        changed = changed || x != q->stmts[i];
        if (is_noop(x)) {
          changed = true;
          continue;
        }
        ns[k++] = x;
      }
      if (!changed) return s;
      return k ? rlx_tir_seq(ctx, k, ns) : noop(ctx);
    }
    case RLX_STMT_IF: {
      rlx_tir_if_t* c = RLX_AS(rlx_tir_if_t, s);
      rlx_expr_t* cond = sx(sp, c->cond);
      int64_t v;
      bool known = rlx_expr_is_const_int(cond, &v);
      if (!known && rlx_analyzer_can_prove(sp->an, cond)) known = true, v = 1;
      if (!known && rlx_analyzer_can_prove(sp->an, rlx_ir_not(ctx, cond))) known = true, v = 0;
      if (known) {
        rlx_tir_stmt_t* branch = v ? c->then_case : c->else_case;
        return branch ? simp(sp, branch) : noop(ctx);
      }
      rlx_tir_stmt_t* t = simp(sp, c->then_case);
      rlx_tir_stmt_t* e = c->else_case ? simp(sp, c->else_case) : NULL;
      if (e && is_noop(e)) e = NULL;
      if (is_noop(t) && !e) return noop(ctx);
      if (cond == c->cond && t == c->then_case && e == c->else_case) return s;
      return rlx_tir_if(ctx, cond, t, e);
    }
    case RLX_STMT_LET: {
      rlx_tir_let_t* l = RLX_AS(rlx_tir_let_t, s);
      rlx_expr_t* value = sx(sp, l->value);
      int64_t lo, hi;
      if (rlx_dtype_is_int(value->dtype) && value->dtype.lanes == 1 &&
          rlx_analyzer_const_bound(sp->an, value, &lo, &hi) && hi >= lo)
        rlx_analyzer_bind(sp->an, l->var, rlx_ir_int(ctx, value->dtype, lo), rlx_ir_int(ctx, value->dtype, hi - lo + 1));
      rlx_tir_stmt_t* body = simp(sp, l->body);
      if (value == l->value && body == l->body) return s;
      return rlx_tir_let(ctx, l->var, value, body);
    }
    case RLX_STMT_EVALUATE: {
      rlx_tir_evaluate_t* ev = RLX_AS(rlx_tir_evaluate_t, s);
      rlx_expr_t* value = sx(sp, ev->value);
      return value == ev->value ? s : rlx_tir_evaluate(ctx, value);
    }
    case RLX_STMT_BLOCK_REALIZE: return simp_realize(sp, RLX_AS(rlx_tir_block_realize_t, s));
    case RLX_STMT_ALLOCATE: {
      rlx_tir_allocate_t* a = RLX_AS(rlx_tir_allocate_t, s);
      rlx_tir_stmt_t* body = simp(sp, a->body);
      return body == a->body ? s : rlx_tir_allocate(ctx, a->buffer, body);
    }
    case RLX_STMT_KIND_COUNT: break;
  }
  return s;
}

static void bind_shape_var(rlx_analyzer_t* an, rlx_expr_t* e) {
  if (e && e->kind == RLX_EXPR_VAR && rlx_dtype_is_int(e->dtype)) rlx_analyzer_bind_nonneg(an, RLX_AS(rlx_var_t, e));
}

RLX_MUST_USE rlx_status_t* rlx_tir_simplify(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out) {
  sp_t sp = {ctx, rlx_analyzer_create(ctx)};
  for (int i = 0; i < f->n_params; i++) {
    const rlx_tir_buffer_t* b = f->buffer_map[i];
    if (!b) continue;
    for (int d = 0; d < b->ndim; d++) bind_shape_var(sp.an, b->shape[d]);
  }
  rlx_tir_func_t* r = rlx_tir_func_copy(ctx, f);
  r->body = simp(&sp, f->body);
  if (!r->body) r->body = noop(ctx);
  *out = r;
  return NULL;
}
