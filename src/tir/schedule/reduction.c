/* decompose_reduction(B, L): the init of reduction block B becomes its own block "<B>_init",
 * placed right before loop L (an ancestor of B) under copies of the loops between L and B that
 * are not bound to reduction iter vars (kinds are kept). B loses its init. L must not be
 * inside a loop bound to a reduction iter var of B.
 */
#include <stdlib.h>

#include "sched_internal.h"

static bool binds_reduce(const rlx_tir_block_realize_t* br, const rlx_var_t* v) {
  for (int i = 0; i < br->n_values; i++)
    if (br->block->iter_vars[i]->kind == RLX_ITER_REDUCE && rlx_expr_uses_var(br->iter_values[i], v)) return true;
  return false;
}

/* Conjuncts of pred that use none of the vars in skip (n). */
static rlx_expr_t* keep_conjuncts(rlx_ctx_t* ctx, rlx_expr_t* pred, rlx_var_t* const* skip, int n) {
  if (!pred) return NULL;
  if (pred->kind == RLX_EXPR_AND) {
    rlx_expr_t* a = keep_conjuncts(ctx, RLX_AS(rlx_binary_t, pred)->a, skip, n);
    rlx_expr_t* b = keep_conjuncts(ctx, RLX_AS(rlx_binary_t, pred)->b, skip, n);
    if (!a) return b;
    if (!b) return a;
    return rlx_ir_and(ctx, a, b);
  }
  for (int i = 0; i < n; i++)
    if (rlx_expr_uses_var(pred, skip[i])) return NULL;
  return pred;
}

RLX_MUST_USE rlx_status_t* rlx_sched_decompose_reduction(rlx_schedule_t* s, const char* block, rlx_var_t* loop,
                                                         const char** out_init_block) {
  rlx_ctx_t* ctx = s->ctx;
  sched_path_t* p = malloc(sizeof(*p));
  rlx_status_t* st = NULL;
  if (!p) return rlx_status_create(RLX_OUT_OF_MEMORY, "decompose_reduction");
  rlx_tir_block_realize_t* br;
  st = sched_get_block(s, block, p, &br);
  if (st) goto done;
  const rlx_tir_block_t* b = br->block;
  if (!b->init) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "decompose_reduction: block '%s' has no init", block);
    goto done;
  }
  int top = sched_parent_block_index(p, p->n - 1);
  int at = -1;
  for (int i = top + 1; i < p->n - 1; i++)
    if (p->s[i]->kind == RLX_STMT_FOR && RLX_AS(rlx_tir_for_t, p->s[i])->var == loop) at = i;
  if (at < 0) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "decompose_reduction: loop '%s' is not an ancestor of block '%s'",
                           loop ? loop->name : "(null)", block);
    goto done;
  }
  for (int i = top + 1; i < at; i++) {
    if (p->s[i]->kind != RLX_STMT_FOR) continue;
    rlx_tir_for_t* f = RLX_AS(rlx_tir_for_t, p->s[i]);
    if (binds_reduce(br, f->var)) {
      st = rlx_status_create(RLX_INVALID_ARGUMENT,
                             "decompose_reduction: loop '%s' is inside reduction loop '%s' of block '%s'", loop->name,
                             f->var->name, block);
      goto done;
    }
  }
  /* loops from `at` down to the block */
  int nl = 0;
  rlx_tir_for_t** kept = RLX_NEW_ARRAY(ctx, rlx_tir_for_t*, p->n);
  rlx_var_t** skipped = RLX_NEW_ARRAY(ctx, rlx_var_t*, p->n);
  int ns = 0;
  rlx_ptrmap_t lm = {0};
  for (int i = at; i < p->n - 1; i++) {
    if (p->s[i]->kind != RLX_STMT_FOR) continue;
    rlx_tir_for_t* f = RLX_AS(rlx_tir_for_t, p->s[i]);
    if (binds_reduce(br, f->var)) {
      skipped[ns++] = f->var;
      continue;
    }
    kept[nl++] = f;
    if (!rlx_ptrmap_put(&lm, f->var, rlx_ir_var(ctx, rlx_ctx_sprintf(ctx, "%s_init", f->var->name), f->var->hdr.dtype))) {
      st = rlx_status_create(RLX_OUT_OF_MEMORY, "decompose_reduction: out of memory"); /* the init loop needs its var */
      rlx_ptrmap_free(&lm);
      goto done;
    }
  }
  /* init block: spatial iter vars only */
  rlx_tir_block_t* ib = RLX_NEW(ctx, rlx_tir_block_t);
  ib->name = sched_unique_block_name(s, rlx_ctx_sprintf(ctx, "%s_init", b->name));
  ib->iter_vars = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, b->n_iter_vars);
  rlx_expr_t** vals = RLX_NEW_ARRAY(ctx, rlx_expr_t*, b->n_iter_vars);
  rlx_ptrmap_t ivm = {0};
  for (int i = 0; i < b->n_iter_vars; i++) {
    rlx_iter_var_t* iv = b->iter_vars[i];
    if (iv->kind != RLX_ITER_SPATIAL) continue;
    for (int k = 0; k < ns; k++) {
      if (rlx_expr_uses_var(br->iter_values[i], skipped[k])) {
        st = rlx_status_create(RLX_INVALID_ARGUMENT,
                               "decompose_reduction: spatial iter var '%s' of block '%s' depends on reduction loop '%s'",
                               iv->var->name, block, skipped[k]->name);
        rlx_ptrmap_free(&lm);
        rlx_ptrmap_free(&ivm);
        goto done;
      }
    }
    rlx_var_t* nv = rlx_ir_var(ctx, iv->var->name, iv->var->hdr.dtype);
    rlx_ptrmap_put(&ivm, iv->var, nv);
    vals[ib->n_iter_vars] = rlx_expr_substitute(ctx, br->iter_values[i], &lm);
    ib->iter_vars[ib->n_iter_vars++] = rlx_tir_iter_var(ctx, nv, iv->dom.min, iv->dom.extent, RLX_ITER_SPATIAL);
  }
  ib->body = rlx_tir_stmt_substitute(ctx, b->init, &ivm);
  ib = sched_block_recompute_regions(ctx, ib);
  rlx_expr_t* pred = keep_conjuncts(ctx, br->predicate, skipped, ns);
  if (pred) pred = rlx_expr_substitute(ctx, pred, &lm);
  rlx_tir_stmt_t* init = rlx_tir_block_realize(ctx, ib->n_iter_vars, vals, pred, ib);
  for (int i = nl - 1; i >= 0; i--) {
    rlx_tir_for_t* f = kept[i];
    init = rlx_tir_for(ctx, rlx_ptrmap_get(&lm, f->var), rlx_expr_substitute(ctx, f->min, &lm),
                       rlx_expr_substitute(ctx, f->extent, &lm), f->for_kind, init);
  }
  rlx_ptrmap_free(&lm);
  rlx_ptrmap_free(&ivm);
  /* B without init */
  rlx_tir_block_t* nb = rlx_tir_block_copy(ctx, b);
  nb->init = NULL;
  rlx_tir_stmt_t* nbr = rlx_tir_block_realize(ctx, br->n_values, br->iter_values, br->predicate, nb);
  rlx_tir_stmt_t* body = sched_replace(ctx, s->func->body, &br->hdr, nbr);
  /* the loop node itself is unchanged by the replacement above only if B is not under it,
   * which cannot be: find it again in the new body */
  sched_path_t* q = p;
  if (!sched_path_to_loop(body, loop, q)) {
    st = rlx_status_create(RLX_INTERNAL, "decompose_reduction: lost loop '%s'", loop->name);
    goto done;
  }
  rlx_tir_stmt_t* lnode = q->s[q->n - 1];
  rlx_tir_stmt_t* pair[2] = {init, lnode};
  body = sched_replace(ctx, body, lnode, rlx_tir_seq(ctx, 2, pair));
  sched_set_body(s, body);
  if (out_init_block) *out_init_block = ib->name;
done:
  free(p);
  return st;
}
