/* unroll_loops: expands UNROLLED loops into straight-line code.
 *
 * Requires: no blocks (runs after lower_blocks / flatten_buffers).
 * Produces: every UNROLLED loop with a constant extent E whose expansion stays within
 * UNROLL_MAX_STMTS statements (E times the statement count of its body, inner unrolled loops
 * already expanded) is replaced by E copies of its body with the loop var substituted by
 * min + i; the expressions of the copies are simplified (indices of a register tile become
 * constants, which codegen's local scalarization needs). Inner loops are expanded first.
 * Loops over the limit, or with a symbolic extent, stay UNROLLED loops (codegen emits
 * `#pragma GCC unroll`).
 */
#include "transform.h"

enum { UNROLL_MAX_STMTS = 512 };

/* Number of statements s stands for (loops count their body once). */
static int64_t count_stmts(const rlx_tir_stmt_t* s) {
  if (!s) return 0;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE:
    case RLX_STMT_EVALUATE:
    case RLX_STMT_BLOCK_REALIZE: return 1;
    case RLX_STMT_FOR: return 1 + count_stmts(RLX_AS(const rlx_tir_for_t, s)->body);
    case RLX_STMT_SEQ: {
      const rlx_tir_seq_t* q = RLX_AS(const rlx_tir_seq_t, s);
      int64_t n = 0;
      for (int i = 0; i < q->n; i++) n += count_stmts(q->stmts[i]);
      return n;
    }
    case RLX_STMT_IF: {
      const rlx_tir_if_t* c = RLX_AS(const rlx_tir_if_t, s);
      return 1 + count_stmts(c->then_case) + count_stmts(c->else_case);
    }
    case RLX_STMT_LET: return 1 + count_stmts(RLX_AS(const rlx_tir_let_t, s)->body);
    case RLX_STMT_ALLOCATE: return 1 + count_stmts(RLX_AS(const rlx_tir_allocate_t, s)->body);
    case RLX_STMT_KIND_COUNT: break;
  }
  return 1;
}

static rlx_expr_t* simplify_expr(rlx_ctx_t* ctx, rlx_expr_t* e, void* user) {
  (void)user;
  return rlx_ir_simplify(ctx, e);
}

static rlx_tir_stmt_t* unroll_stmt(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, void* user) {
  (void)user;
  if (s->kind != RLX_STMT_FOR) return s;
  rlx_tir_for_t* f = RLX_AS(rlx_tir_for_t, s);
  int64_t ext;
  if (f->for_kind != RLX_FOR_UNROLLED || !rlx_expr_is_const_int(f->extent, &ext) || ext < 0) return s;
  int64_t per = count_stmts(f->body);
  if (ext * per > UNROLL_MAX_STMTS) return s;
  if (ext == 0) return rlx_tir_seq(ctx, 0, NULL);
  rlx_tir_stmt_t** copies = RLX_NEW_ARRAY(ctx, rlx_tir_stmt_t*, ext);
  rlx_tir_mutator_t simp = {NULL, simplify_expr, NULL};
  for (int64_t i = 0; i < ext; i++) {
    rlx_ptrmap_t vmap = {0};
    rlx_expr_t* val = rlx_ir_add(ctx, f->min, rlx_ir_int(ctx, f->var->hdr.dtype, i));
    rlx_ptrmap_put(&vmap, f->var, rlx_ir_cast(ctx, f->var->hdr.dtype, val));
    rlx_tir_stmt_t* c = rlx_tir_stmt_substitute(ctx, f->body, &vmap);
    rlx_ptrmap_free(&vmap);
    copies[i] = rlx_tir_stmt_mutate(ctx, c, &simp);
  }
  return rlx_tir_seq(ctx, (int)ext, copies);
}

RLX_MUST_USE rlx_status_t* rlx_tir_unroll_loops(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out) {
  rlx_tir_mutator_t m = {unroll_stmt, NULL, NULL};
  rlx_tir_stmt_t* body = rlx_tir_stmt_mutate(ctx, f->body, &m);
  rlx_tir_func_t* r = rlx_tir_func_copy(ctx, f);
  r->body = body;
  *out = r;
  return NULL;
}
