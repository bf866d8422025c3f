/* lower_blocks: BlockRealize/Block → plain statements.
 *
 * Requires: a well-formed PrimFunc (blocks allowed anywhere, nested blocks included).
 * Produces: the same computation without any BlockRealize:
 *   - every block iter var is replaced by its bound value (inner values are expressed in
 *     loop vars: outer bindings are substituted into them first);
 *   - a block's init runs first, under `if (v_r0 == min0 && v_r1 == min1 ...)` over its reduce
 *     iter vars (unconditionally when it has none);
 *   - a predicate other than true becomes `if (predicate) { ... }` around init and body;
 *   - alloc_buffers become ALLOCATE statements around all of that, first buffer outermost
 *     (the root block's allocations therefore wrap the whole function body);
 *   - reads/writes regions and annotations are dropped.
 */
#include "transform.h"

typedef struct {
  rlx_ctx_t* ctx;
  rlx_ptrmap_t vmap; /* iter var → value in loop vars */
} lb_t;

static rlx_tir_stmt_t* lower(lb_t* lb, rlx_tir_stmt_t* s);

static rlx_tir_stmt_t* lower_realize(lb_t* lb, rlx_tir_block_realize_t* br) {
  rlx_ctx_t* ctx = lb->ctx;
  rlx_tir_block_t* b = br->block;
  /* Bind before visiting the body: inner iter values may use these iter vars. */
  for (int i = 0; i < b->n_iter_vars && i < br->n_values; i++)
    rlx_ptrmap_put(&lb->vmap, b->iter_vars[i]->var, rlx_expr_substitute(ctx, br->iter_values[i], &lb->vmap));
  rlx_tir_stmt_t* body = lower(lb, b->body);
  if (b->init) {
    rlx_tir_stmt_t* init = lower(lb, b->init);
    rlx_expr_t* cond = NULL;
    for (int i = 0; i < b->n_iter_vars; i++) {
      rlx_iter_var_t* iv = b->iter_vars[i];
      if (iv->kind != RLX_ITER_REDUCE) continue;
      rlx_expr_t* eq = rlx_ir_cmp(ctx, RLX_EXPR_EQ, &iv->var->hdr, iv->dom.min);
      cond = cond ? rlx_ir_and(ctx, cond, eq) : eq;
    }
    if (cond) init = rlx_tir_if(ctx, rlx_expr_substitute(ctx, cond, &lb->vmap), init, NULL);
    rlx_tir_stmt_t* both[2] = {init, body};
    body = rlx_tir_seq(ctx, 2, both);
  }
  int64_t pv;
  if (br->predicate && !(rlx_expr_is_const_int(br->predicate, &pv) && pv))
    body = rlx_tir_if(ctx, rlx_expr_substitute(ctx, br->predicate, &lb->vmap), body, NULL);
  for (int i = b->n_alloc_buffers - 1; i >= 0; i--) body = rlx_tir_allocate(ctx, b->alloc_buffers[i], body);
  return body;
}

/* Rebuilds s with its blocks lowered. Iter vars are left in place here and substituted once
 * over the whole body at the end (lb->vmap then holds every binding). */
static rlx_tir_stmt_t* lower(lb_t* lb, rlx_tir_stmt_t* s) {
  if (!s) return NULL;
  rlx_ctx_t* ctx = lb->ctx;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE:
    case RLX_STMT_EVALUATE: return s;
    case RLX_STMT_FOR: {
      rlx_tir_for_t* f = RLX_AS(rlx_tir_for_t, s);
      rlx_tir_stmt_t* body = lower(lb, f->body);
      return body == f->body ? s : rlx_tir_for(ctx, f->var, f->min, f->extent, f->for_kind, body);
    }
    case RLX_STMT_SEQ: {
      rlx_tir_seq_t* q = RLX_AS(rlx_tir_seq_t, s);
      rlx_tir_stmt_t** ns = RLX_NEW_ARRAY(ctx, rlx_tir_stmt_t*, q->n);
      bool changed = false;
      for (int i = 0; i < q->n; i++) {
        ns[i] = lower(lb, q->stmts[i]);
        changed = changed || ns[i] != q->stmts[i];
      }
      return changed ? rlx_tir_seq(ctx, q->n, ns) : s;
    }
    case RLX_STMT_IF: {
      rlx_tir_if_t* c = RLX_AS(rlx_tir_if_t, s);
      rlx_tir_stmt_t* t = lower(lb, c->then_case);
      rlx_tir_stmt_t* e = lower(lb, c->else_case);
      return t == c->then_case && e == c->else_case ? s : rlx_tir_if(ctx, c->cond, t, e);
    }
    case RLX_STMT_LET: {
      rlx_tir_let_t* l = RLX_AS(rlx_tir_let_t, s);
      rlx_tir_stmt_t* body = lower(lb, l->body);
      return body == l->body ? s : rlx_tir_let(ctx, l->var, l->value, body);
    }
    case RLX_STMT_BLOCK_REALIZE: return lower_realize(lb, RLX_AS(rlx_tir_block_realize_t, s));
    case RLX_STMT_ALLOCATE: {
      rlx_tir_allocate_t* a = RLX_AS(rlx_tir_allocate_t, s);
      rlx_tir_stmt_t* body = lower(lb, a->body);
      return body == a->body ? s : rlx_tir_allocate(ctx, a->buffer, body);
    }
    case RLX_STMT_KIND_COUNT: break;
  }
  return s;
}

RLX_MUST_USE rlx_status_t* rlx_tir_lower_blocks(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out) {
  lb_t lb = {ctx, {0}};
  rlx_tir_stmt_t* body = lower(&lb, f->body);
  body = rlx_tir_stmt_substitute(ctx, body, &lb.vmap);
  rlx_ptrmap_free(&lb.vmap);
  rlx_tir_func_t* r = rlx_tir_func_copy(ctx, f);
  r->body = body;
  *out = r;
  return NULL;
}
