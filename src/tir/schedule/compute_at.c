/* compute_at and reverse_compute_at.
 *
 * compute_at(P, L): producer P (single store X[v_s...] = ..., store indices distinct spatial
 *   iter vars covering all of P's spatial vars) moves to the start of L's body, under new
 *   loops covering only the region of X that the consumers under L read in one iteration of
 *   L (reduction iter vars of P keep their whole domain, innermost). Every reader of X must be
 *   under L.
 * reverse_compute_at(C, L): consumer C (reads the intermediate X at one index made of distinct
 *   iter vars) moves to the end of L's body, under loops covering the region of X written under
 *   L in one iteration of L; C's other iter vars keep their whole domain. Every writer of X
 *   must be under L.
 * Both add predicates that keep the moved block's iter vars inside their domains when that
 * cannot be proven.
 */
#include <stdlib.h>

#include "sched_internal.h"

/* Analyzer with the loops above and inside L known. */
static rlx_analyzer_t* analyzer_for(rlx_ctx_t* ctx, const rlx_tir_func_t* f, const sched_path_t* lp) {
  rlx_analyzer_t* an = rlx_analyzer_create(ctx);
  for (int i = 0; i < f->n_params; i++) {
    const rlx_tir_buffer_t* b = f->buffer_map[i];
    for (int d = 0; b && d < b->ndim; d++)
      if (b->shape[d]->kind == RLX_EXPR_VAR) rlx_analyzer_bind_nonneg(an, RLX_AS(rlx_var_t, b->shape[d]));
  }
  for (int i = 0; i < lp->n; i++)
    if (lp->s[i]->kind == RLX_STMT_FOR) {
      const rlx_tir_for_t* fl = RLX_AS(const rlx_tir_for_t, lp->s[i]);
      rlx_analyzer_bind(an, fl->var, fl->min, fl->extent);
    }
  return an;
}

static bool is_ancestor(const sched_path_t* p, const rlx_tir_stmt_t* s) {
  for (int i = 0; i < p->n - 1; i++)
    if (p->s[i] == s) return true;
  return false;
}

/* The outermost loop chain holding only the block at path end (below its parent block). */
static rlx_tir_stmt_t* nest_root(const sched_path_t* p) {
  int top = sched_parent_block_index(p, p->n - 1);
  rlx_tir_stmt_t* r = p->s[p->n - 1];
  for (int i = p->n - 2; i > top; i--) {
    if (p->s[i]->kind == RLX_STMT_FOR && RLX_AS(rlx_tir_for_t, p->s[i])->body == r) r = p->s[i];
    else break;
  }
  return r;
}

static RLX_MUST_USE rlx_status_t* move_at(rlx_schedule_t* s, const char* block, rlx_var_t* loop, bool reverse) {
  rlx_ctx_t* ctx = s->ctx;
  const char* op = reverse ? "reverse_compute_at" : "compute_at";
  sched_path_t* bp = malloc(sizeof(*bp));
  sched_path_t* lp = malloc(sizeof(*lp));
  rlx_status_t* st = NULL;
  if (!bp || !lp) {
    st = rlx_status_create(RLX_OUT_OF_MEMORY, "%s", op);
    goto done;
  }
  rlx_tir_block_realize_t* br;
  rlx_tir_for_t* lf;
  if ((st = sched_get_block(s, block, bp, &br))) goto done;
  if ((st = sched_get_loop(s, loop, op, lp, &lf))) goto done;
  if (is_ancestor(bp, &lf->hdr)) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s: block '%s' is already under loop '%s'", op, block, loop->name);
    goto done;
  }
  int bpar = sched_parent_block_index(bp, bp->n - 1), lpar = sched_parent_block_index(lp, lp->n - 1);
  if (bpar < 0 || lpar < 0 || bp->s[bpar] != lp->s[lpar]) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s: block '%s' and loop '%s' are not in the same parent block", op,
                           block, loop->name);
    goto done;
  }
  const rlx_tir_block_t* b = br->block;
  if (br->predicate) {
    st = rlx_status_create(RLX_UNSUPPORTED, "%s: block '%s' has a predicate; move it before splitting its loops", op,
                           block);
    goto done;
  }
  /* the buffer X that links the block to the loop */
  rlx_tir_buffer_t* x = NULL;
  int* perm = NULL;         /* X dim d → iter var index of b */
  int ndim = 0;
  if (!reverse) {
    if (!b->body || b->body->kind != RLX_STMT_BUFFER_STORE) {
      st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s: block '%s' is not a single buffer store", op, block);
      goto done;
    }
    rlx_tir_store_t* store = RLX_AS(rlx_tir_store_t, b->body);
    x = store->buffer;
    ndim = store->n_indices;
    perm = RLX_NEW_ARRAY(ctx, int, ndim);
    for (int d = 0; d < ndim; d++) perm[d] = sched_iter_index(b, store->indices[d]);
  } else {
    for (int i = 0; i < b->n_reads && !x; i++) {
      rlx_tir_buffer_t* cand = b->reads[i].buffer;
      if (sched_is_param_buffer(s->func, cand)) continue;
      x = cand;
    }
    if (!x) {
      st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s: block '%s' reads no intermediate buffer", op, block);
      goto done;
    }
    /* all loads of x in b at the same indices */
    const rlx_buffer_load_t* first = NULL;
    bool differ = false;
    /* walk the body's expressions */
    RLX_VEC(const rlx_expr_t*) stack = {0};
    if (b->body->kind == RLX_STMT_BUFFER_STORE) rlx_vec_push(&stack, RLX_AS(rlx_tir_store_t, b->body)->value);
    while (stack.len > 0) {
      const rlx_expr_t* e = stack.data[--stack.len];
      if (e->kind == RLX_EXPR_BUFFER_LOAD && RLX_AS(const rlx_buffer_load_t, e)->buffer == x) {
        const rlx_buffer_load_t* l = RLX_AS(const rlx_buffer_load_t, e);
        if (!first) first = l;
        else
          for (int d = 0; d < l->n_indices; d++) differ = differ || !rlx_expr_equal(l->indices[d], first->indices[d]);
      }
      rlx_expr_t* kids[16];
      int nk = rlx_expr_children(e, kids, 16);
      for (int k = 0; k < nk && k < 16; k++) rlx_vec_push(&stack, kids[k]);
    }
    rlx_vec_free(&stack);
    if (!first || differ) {
      st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s: block '%s' must be a single store reading '%s' at one index",
                             op, block, x->name);
      goto done;
    }
    ndim = first->n_indices;
    perm = RLX_NEW_ARRAY(ctx, int, ndim);
    for (int d = 0; d < ndim; d++) perm[d] = sched_iter_index(b, first->indices[d]);
  }
  for (int d = 0; d < ndim; d++) {
    bool bad = perm[d] < 0 || b->iter_vars[perm[d]]->kind != RLX_ITER_SPATIAL;
    for (int e = 0; e < d && !bad; e++) bad = perm[e] == perm[d];
    if (bad) {
      st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s: block '%s': the indices of '%s' must be distinct spatial iter vars",
                             op, block, x->name);
      goto done;
    }
  }
  if (!reverse) {
    for (int i = 0; i < b->n_iter_vars; i++) {
      bool indexed = false;
      for (int d = 0; d < ndim; d++) indexed = indexed || perm[d] == i;
      if (!indexed && b->iter_vars[i]->kind == RLX_ITER_SPATIAL) {
        st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s: block '%s': spatial iter var '%s' does not index '%s'", op,
                               block, b->iter_vars[i]->var->name, x->name);
        goto done;
      }
    }
  }
  /* every reader (compute_at) / writer (reverse) of X must be under L */
  int total = reverse ? sched_count_writers(s->func->body, x) : sched_count_readers(s->func->body, x);
  /* a reduction producer reads its own accumulator: it is not a consumer */
  if (!reverse && sched_stmt_loads(b->body, x)) total--;
  int under = reverse ? sched_count_writers(lf->body, x) : sched_count_readers(lf->body, x);
  if (under == 0 || under != total) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s: not every %s of '%s' (of block '%s') is under loop '%s'", op,
                           reverse ? "producer" : "consumer", x->name, block, loop->name);
    goto done;
  }
  /* region of X touched by one iteration of L */
  rlx_analyzer_t* an = analyzer_for(ctx, s->func, lp);
  rlx_expr_t **rlo = NULL, **rhi = NULL;
  if (!sched_access_region(ctx, an, lf->body, x, reverse ? SCHED_STORES : SCHED_LOADS, false, &rlo, &rhi)) {
    st = rlx_status_create(RLX_UNSUPPORTED, "%s: cannot bound the region of '%s' under loop '%s' for block '%s'", op,
                           x->name, loop->name, block);
    goto done;
  }
  /* new loops for b's iter vars */
  int n = b->n_iter_vars;
  rlx_expr_t** vals = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  rlx_var_t** lv_vars = RLX_NEW_ARRAY(ctx, rlx_var_t*, n);
  rlx_expr_t** lmin = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  rlx_expr_t** lext = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  rlx_expr_t* pred = NULL;
  for (int i = 0; i < n; i++) {
    rlx_iter_var_t* iv = b->iter_vars[i];
    rlx_dtype_t t = iv->var->hdr.dtype;
    int dim = -1;
    for (int d = 0; d < ndim; d++)
      if (perm[d] == i) dim = d;
    lv_vars[i] = rlx_ir_var(ctx, rlx_ctx_sprintf(ctx, "ax%d", i), t);
    lmin[i] = rlx_ir_int(ctx, t, 0);
    if (dim < 0) {
      lext[i] = iv->dom.extent;
      vals[i] = rlx_ir_add(ctx, iv->dom.min, &lv_vars[i]->hdr);
      continue;
    }
    rlx_expr_t* lo = rlx_analyzer_simplify(an, rlo[dim]);
    rlx_expr_t* ext = rlx_analyzer_simplify(an, rlx_ir_add(ctx, rlx_ir_sub(ctx, rhi[dim], rlo[dim]), rlx_ir_int(ctx, rhi[dim]->dtype, 1)));
    if (!rlx_dtype_eq(lo->dtype, t)) lo = rlx_ir_cast(ctx, t, lo);
    if (!rlx_dtype_eq(ext->dtype, t)) ext = rlx_ir_cast(ctx, t, ext);
    lext[i] = ext;
    vals[i] = rlx_ir_add(ctx, lo, &lv_vars[i]->hdr);
    rlx_expr_t* lower = rlx_ir_cmp(ctx, RLX_EXPR_GE, vals[i], iv->dom.min);
    rlx_expr_t* upper = rlx_ir_cmp(ctx, RLX_EXPR_LT, vals[i], rlx_ir_add(ctx, iv->dom.min, iv->dom.extent));
    rlx_analyzer_bind(an, lv_vars[i], lmin[i], ext);
    if (!rlx_analyzer_can_prove(an, lower)) pred = pred ? rlx_ir_and(ctx, pred, lower) : lower;
    if (!rlx_analyzer_can_prove(an, upper)) pred = pred ? rlx_ir_and(ctx, pred, upper) : upper;
  }
  rlx_tir_stmt_t* nest = rlx_tir_block_realize(ctx, n, vals, pred, (rlx_tir_block_t*)b);
  /* spatial (indexed) loops outside, the others inside, in iter var order */
  for (int pass = 1; pass >= 0; pass--) {
    for (int i = n - 1; i >= 0; i--) {
      bool indexed = false;
      for (int d = 0; d < ndim; d++) indexed = indexed || perm[d] == i;
      if (indexed != (pass == 0)) continue;
      nest = rlx_tir_for(ctx, lv_vars[i], lmin[i], lext[i], RLX_FOR_SERIAL, nest);
    }
  }
  rlx_tir_stmt_t* body = sched_replace(ctx, s->func->body, nest_root(bp), NULL);
  if (!sched_path_to_loop(body, loop, lp)) {
    st = rlx_status_create(RLX_INTERNAL, "%s: lost loop '%s'", op, loop->name);
    goto done;
  }
  rlx_tir_for_t* nl = RLX_AS(rlx_tir_for_t, lp->s[lp->n - 1]);
  rlx_tir_stmt_t* pair[2] = {reverse ? nl->body : nest, reverse ? nest : nl->body};
  rlx_tir_stmt_t* nf = rlx_tir_for(ctx, nl->var, nl->min, nl->extent, nl->for_kind, rlx_tir_seq(ctx, 2, pair));
  sched_set_body(s, sched_replace(ctx, body, &nl->hdr, nf));
done:
  free(bp);
  free(lp);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_sched_compute_at(rlx_schedule_t* s, const char* block, rlx_var_t* loop) {
  return move_at(s, block, loop, false);
}

RLX_MUST_USE rlx_status_t* rlx_sched_reverse_compute_at(rlx_schedule_t* s, const char* block, rlx_var_t* loop) {
  return move_at(s, block, loop, true);
}
