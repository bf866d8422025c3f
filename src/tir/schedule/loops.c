/* Loop primitives: split, fuse, reorder, and the loop-kind annotations parallel, vectorize,
 * unroll.
 *
 * split:   for i in [min, min+E)        →  for i_0 in [0,f0): for i_1 in [0,f1): ...
 *          i := min + (i_0*f1 + i_1)*f2 + ...; when prod(f) != E (or E symbolic) the blocks
 *          under the loop get the predicate `(i_0*f1 + i_1...) < E`.
 * fuse:    perfectly nested loops l0..ln (outermost first) → one loop of extent prod(E);
 *          l_k := floormod(floordiv(f, prod_{j>k} E_j), E_k) (+ min_k).
 * reorder: loops of one single-child chain take the order given.
 */
#include <stdlib.h>
#include <string.h>

#include "sched_internal.h"

static rlx_expr_t* ci(rlx_ctx_t* ctx, rlx_dtype_t t, int64_t v) { return rlx_ir_int(ctx, t, v); }

RLX_MUST_USE rlx_status_t* rlx_sched_split(rlx_schedule_t* s, rlx_var_t* loop, int n, const int64_t* factors,
                                           rlx_var_t** out_loops) {
  rlx_ctx_t* ctx = s->ctx;
  sched_path_t* p = malloc(sizeof(*p));
  if (!p) return rlx_status_create(RLX_OUT_OF_MEMORY, "split");
  rlx_tir_for_t* f;
  rlx_status_t* st = sched_get_loop(s, loop, "split", p, &f);
  free(p);
  if (st) return st;
  if (n < 1 || !factors) return rlx_status_create(RLX_INVALID_ARGUMENT, "split: loop '%s': no factors given", loop->name);
  int infer = -1;
  int64_t prod = 1;
  for (int i = 0; i < n; i++) {
    if (factors[i] == -1) {
      if (infer >= 0)
        return rlx_status_create(RLX_INVALID_ARGUMENT, "split: loop '%s': at most one factor may be -1", loop->name);
      infer = i;
    } else if (factors[i] <= 0) {
      return rlx_status_create(RLX_INVALID_ARGUMENT, "split: loop '%s': factor %lld is not positive", loop->name,
                               (long long)factors[i]);
    } else {
      prod *= factors[i];
    }
  }
  rlx_dtype_t t = loop->hdr.dtype;
  rlx_expr_t* ext = f->extent;
  int64_t e_const;
  bool is_const = rlx_expr_is_const_int(ext, &e_const);
  rlx_expr_t** fx = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int i = 0; i < n; i++) fx[i] = i == infer ? NULL : ci(ctx, t, factors[i]);
  bool need_pred;
  if (infer >= 0) {
    if (is_const) {
      int64_t q = (e_const + prod - 1) / prod;
      fx[infer] = ci(ctx, t, q);
      need_pred = q * prod != e_const;
    } else {
      fx[infer] = rlx_ir_simplify(ctx, rlx_ir_floordiv(ctx, rlx_ir_add(ctx, ext, ci(ctx, ext->dtype, prod - 1)),
                                                        ci(ctx, ext->dtype, prod)));
      if (!rlx_dtype_eq(fx[infer]->dtype, t)) fx[infer] = rlx_ir_cast(ctx, t, fx[infer]);
      need_pred = prod != 1;
    }
  } else {
    if (is_const && prod < e_const)
      return rlx_status_create(RLX_INVALID_ARGUMENT,
                               "split: loop '%s': product of factors %lld is smaller than the extent %lld", loop->name,
                               (long long)prod, (long long)e_const);
    need_pred = !is_const || prod != e_const;
  }
  rlx_var_t** nv = RLX_NEW_ARRAY(ctx, rlx_var_t*, n);
  for (int i = 0; i < n; i++) nv[i] = rlx_ir_var(ctx, rlx_ctx_sprintf(ctx, "%s_%d", loop->name, i), t);
  rlx_expr_t* fused = &nv[0]->hdr;
  for (int i = 1; i < n; i++) fused = rlx_ir_add(ctx, rlx_ir_mul(ctx, fused, fx[i]), &nv[i]->hdr);
  rlx_ptrmap_t vm = {0};
  rlx_ptrmap_put(&vm, loop, rlx_ir_add(ctx, f->min, fused));
  rlx_tir_stmt_t* body = rlx_tir_stmt_substitute(ctx, f->body, &vm);
  rlx_ptrmap_free(&vm);
  if (need_pred) {
    rlx_expr_t* e2 = rlx_dtype_eq(ext->dtype, t) ? ext : rlx_ir_cast(ctx, t, ext);
    body = sched_add_predicate(ctx, body, rlx_ir_cmp(ctx, RLX_EXPR_LT, fused, e2));
  }
  for (int i = n - 1; i >= 0; i--) body = rlx_tir_for(ctx, nv[i], ci(ctx, t, 0), fx[i], RLX_FOR_SERIAL, body);
  sched_set_body(s, sched_replace(ctx, s->func->body, &f->hdr, body));
  if (out_loops)
    for (int i = 0; i < n; i++) out_loops[i] = nv[i];
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_sched_fuse(rlx_schedule_t* s, int n, rlx_var_t* const* loops, rlx_var_t** out_loop) {
  rlx_ctx_t* ctx = s->ctx;
  if (n < 1 || !loops) return rlx_status_create(RLX_INVALID_ARGUMENT, "fuse: no loops given");
  sched_path_t* p = malloc(sizeof(*p));
  if (!p) return rlx_status_create(RLX_OUT_OF_MEMORY, "fuse");
  rlx_tir_for_t* outer;
  rlx_status_t* st = sched_get_loop(s, loops[0], "fuse", p, &outer);
  free(p);
  if (st) return st;
  rlx_tir_for_t** fs = RLX_NEW_ARRAY(ctx, rlx_tir_for_t*, n);
  fs[0] = outer;
  for (int i = 1; i < n; i++) {
    rlx_tir_stmt_t* b = fs[i - 1]->body;
    if (!b || b->kind != RLX_STMT_FOR || RLX_AS(rlx_tir_for_t, b)->var != loops[i])
      return rlx_status_create(RLX_INVALID_ARGUMENT,
                               "fuse: loop '%s' is not the only child of loop '%s' (loops must be perfectly nested, "
                               "outermost first)",
                               loops[i]->name, loops[i - 1]->name);
    fs[i] = RLX_AS(rlx_tir_for_t, b);
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if (rlx_expr_uses_var(fs[i]->extent, loops[j]) || rlx_expr_uses_var(fs[i]->min, loops[j]))
        return rlx_status_create(RLX_INVALID_ARGUMENT, "fuse: the range of loop '%s' depends on loop '%s'",
                                 loops[i]->name, loops[j]->name);
  rlx_dtype_t t = loops[0]->hdr.dtype;
  rlx_strbuf_t nm = {0};
  for (int i = 0; i < n; i++) {
    rlx_strbuf_append(&nm, loops[i]->name);
    rlx_strbuf_append(&nm, "_");
  }
  rlx_strbuf_append(&nm, "fused");
  rlx_var_t* fv = rlx_ir_var(ctx, rlx_strbuf_cstr(&nm), t);
  rlx_strbuf_free(&nm);
  rlx_expr_t** ext = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int i = 0; i < n; i++) ext[i] = rlx_dtype_eq(fs[i]->extent->dtype, t) ? fs[i]->extent : rlx_ir_cast(ctx, t, fs[i]->extent);
  rlx_ptrmap_t vm = {0};
  rlx_expr_t* stride = ci(ctx, t, 1);
  for (int i = n - 1; i >= 0; i--) {
    rlx_expr_t* v = &fv->hdr;
    if (i < n - 1) v = rlx_ir_floordiv(ctx, v, stride);
    if (i > 0) v = rlx_ir_floormod(ctx, v, ext[i]);
    rlx_expr_t* lt = loops[i]->hdr.dtype.bits == t.bits ? v : rlx_ir_cast(ctx, loops[i]->hdr.dtype, v);
    rlx_ptrmap_put(&vm, loops[i], rlx_ir_simplify(ctx, rlx_ir_add(ctx, fs[i]->min, lt)));
    stride = rlx_ir_mul(ctx, stride, ext[i]);
  }
  rlx_tir_stmt_t* body = rlx_tir_stmt_substitute(ctx, fs[n - 1]->body, &vm);
  rlx_ptrmap_free(&vm);
  rlx_expr_t* total = rlx_ir_simplify(ctx, stride);
  rlx_tir_stmt_t* nf = rlx_tir_for(ctx, fv, ci(ctx, t, 0), total, RLX_FOR_SERIAL, body);
  sched_set_body(s, sched_replace(ctx, s->func->body, &outer->hdr, nf));
  if (out_loop) *out_loop = fv;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_sched_reorder(rlx_schedule_t* s, int n, rlx_var_t* const* loops) {
  rlx_ctx_t* ctx = s->ctx;
  if (n < 1 || !loops) return rlx_status_create(RLX_INVALID_ARGUMENT, "reorder: no loops given");
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (loops[i] == loops[j]) return rlx_status_create(RLX_INVALID_ARGUMENT, "reorder: loop '%s' given twice", loops[i]->name);
  /* the outermost of the given loops: the one with the shortest path */
  sched_path_t* p = malloc(sizeof(*p));
  if (!p) return rlx_status_create(RLX_OUT_OF_MEMORY, "reorder");
  int best = -1, best_depth = 1 << 30;
  for (int i = 0; i < n; i++) {
    rlx_tir_for_t* f;
    rlx_status_t* st = sched_get_loop(s, loops[i], "reorder", p, &f);
    if (st) {
      free(p);
      return st;
    }
    if (p->n < best_depth) {
      best_depth = p->n;
      best = i;
    }
  }
  rlx_tir_for_t* top;
  rlx_status_t* st = sched_get_loop(s, loops[best], "reorder", p, &top);
  free(p);
  if (st) return st;
  /* walk the single-child chain from top until every given loop was seen */
  RLX_VEC(rlx_tir_for_t*) chain = {0};
  int seen = 0;
  rlx_tir_stmt_t* cur = &top->hdr;
  for (;;) {
    if (!cur || cur->kind != RLX_STMT_FOR) break;
    rlx_tir_for_t* f = RLX_AS(rlx_tir_for_t, cur);
    rlx_vec_push(&chain, f);
    for (int i = 0; i < n; i++) seen += loops[i] == f->var;
    if (seen == n) break;
    cur = f->body;
  }
  if (seen != n) {
    rlx_vec_free(&chain);
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "reorder: loops are not in one chain of singly nested loops below loop '%s'",
                             loops[best]->name);
  }
  /* positions in the chain that hold given loops get them in the requested order */
  rlx_tir_for_t** nc = RLX_NEW_ARRAY(ctx, rlx_tir_for_t*, chain.len);
  int k = 0;
  for (int i = 0; i < chain.len; i++) {
    bool given = false;
    for (int j = 0; j < n; j++) given = given || loops[j] == chain.data[i]->var;
    if (!given) {
      nc[i] = chain.data[i];
      continue;
    }
    for (int j = 0; j < chain.len; j++)
      if (chain.data[j]->var == loops[k]) nc[i] = chain.data[j];
    k++;
  }
  for (int i = 0; i < chain.len; i++)
    for (int j = 0; j < chain.len; j++)
      if (rlx_expr_uses_var(chain.data[i]->extent, chain.data[j]->var) ||
          rlx_expr_uses_var(chain.data[i]->min, chain.data[j]->var)) {
        const char* a = chain.data[i]->var->name;
        const char* b = chain.data[j]->var->name;
        rlx_vec_free(&chain);
        return rlx_status_create(RLX_INVALID_ARGUMENT, "reorder: the range of loop '%s' depends on loop '%s'", a, b);
      }
  rlx_tir_stmt_t* body = chain.data[chain.len - 1]->body;
  for (int i = chain.len - 1; i >= 0; i--)
    body = rlx_tir_for(ctx, nc[i]->var, nc[i]->min, nc[i]->extent, nc[i]->for_kind, body);
  rlx_vec_free(&chain);
  sched_set_body(s, sched_replace(ctx, s->func->body, &top->hdr, body));
  return NULL;
}

/* ------------------------------------------------------------------ annotations */
typedef struct {
  const rlx_var_t* loop;
  const char* bad_block;
  const char* bad_iter;
} reduce_check_t;

/* Blocks directly bound to the loop (values use the loop var) must bind it to spatial vars. */
static void check_block(const rlx_tir_stmt_t* s, void* user) {
  reduce_check_t* rc = user;
  if (rc->bad_block || s->kind != RLX_STMT_BLOCK_REALIZE) return;
  const rlx_tir_block_realize_t* br = RLX_AS(const rlx_tir_block_realize_t, s);
  for (int i = 0; i < br->n_values; i++) {
    if (br->block->iter_vars[i]->kind == RLX_ITER_REDUCE && rlx_expr_uses_var(br->iter_values[i], rc->loop)) {
      rc->bad_block = br->block->name;
      rc->bad_iter = br->block->iter_vars[i]->var->name;
    }
  }
}

static RLX_MUST_USE rlx_status_t* set_kind(rlx_schedule_t* s, rlx_var_t* loop, rlx_for_kind_t kind, const char* op) {
  rlx_ctx_t* ctx = s->ctx;
  sched_path_t* p = malloc(sizeof(*p));
  if (!p) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s", op);
  rlx_tir_for_t* f;
  rlx_status_t* st = sched_get_loop(s, loop, op, p, &f);
  free(p);
  if (st) return st;
  if (kind == RLX_FOR_PARALLEL || kind == RLX_FOR_VECTORIZED) {
    reduce_check_t rc = {loop, NULL, NULL};
    rlx_tir_visitor_t v = {check_block, NULL, NULL, &rc};
    rlx_tir_stmt_visit(f->body, &v);
    if (rc.bad_block)
      return rlx_status_create(RLX_INVALID_ARGUMENT,
                               "%s: loop '%s' is bound to reduction iter var '%s' of block '%s'", op, loop->name,
                               rc.bad_iter, rc.bad_block);
  }
  if (f->for_kind == kind) return NULL;
  rlx_tir_stmt_t* nf = rlx_tir_for(ctx, f->var, f->min, f->extent, kind, f->body);
  rlx_tir_func_t* fn = rlx_tir_func_copy(ctx, s->func);
  fn->body = sched_replace(ctx, s->func->body, &f->hdr, nf);
  s->func = fn;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_sched_parallel(rlx_schedule_t* s, rlx_var_t* loop) {
  return set_kind(s, loop, RLX_FOR_PARALLEL, "parallel");
}
RLX_MUST_USE rlx_status_t* rlx_sched_vectorize(rlx_schedule_t* s, rlx_var_t* loop) {
  return set_kind(s, loop, RLX_FOR_VECTORIZED, "vectorize");
}
RLX_MUST_USE rlx_status_t* rlx_sched_unroll(rlx_schedule_t* s, rlx_var_t* loop) {
  return set_kind(s, loop, RLX_FOR_UNROLLED, "unroll");
}
