/* cache_write and cache_read.
 *
 * cache_write(B, i, scope): B's i-th written buffer X is replaced inside B by a new buffer
 *   X_<scope> (same shape), allocated by B's parent block; a copy block "X_<scope>" writing
 *   X[v] = X_<scope>[v] over the whole buffer follows B's loop nest.
 * cache_read(B, i, scope): B's i-th read buffer X is replaced inside B by X_<scope>, filled by
 *   a copy block "X_<scope>" (X_<scope>[v] = X[v]) placed before B's loop nest.
 * Shapes are not compacted: a later compute_at / reverse_compute_at narrows the copy loops.
 */
#include <stdlib.h>
#include <string.h>

#include "sched_internal.h"

/* A copy block dst[v] = src[v] over the whole shape, under fresh loops ax0..axn. */
static rlx_tir_stmt_t* copy_nest(rlx_ctx_t* ctx, const char* name, rlx_tir_buffer_t* dst, rlx_tir_buffer_t* src) {
  int n = dst->ndim;
  rlx_tir_block_t* b = RLX_NEW(ctx, rlx_tir_block_t);
  b->name = name;
  b->n_iter_vars = n;
  b->iter_vars = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, n);
  rlx_var_t** loops = RLX_NEW_ARRAY(ctx, rlx_var_t*, n);
  rlx_expr_t** idx = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) {
    rlx_dtype_t t = dst->shape[d]->dtype;
    rlx_var_t* v = rlx_ir_var(ctx, rlx_ctx_sprintf(ctx, "v%d", d), t);
    b->iter_vars[d] = rlx_tir_iter_var(ctx, v, rlx_ir_int(ctx, t, 0), dst->shape[d], RLX_ITER_SPATIAL);
    loops[d] = rlx_ir_var(ctx, rlx_ctx_sprintf(ctx, "ax%d", d), t);
    idx[d] = &v->hdr;
  }
  b->body = rlx_tir_store(ctx, dst, rlx_ir_load(ctx, src, n, idx), n, idx);
  b = sched_block_recompute_regions(ctx, b);
  rlx_tir_stmt_t* s = rlx_tir_block_realize(ctx, n, (rlx_expr_t* const*)loops, NULL, b);
  for (int d = n - 1; d >= 0; d--)
    s = rlx_tir_for(ctx, loops[d], rlx_ir_int(ctx, dst->shape[d]->dtype, 0), dst->shape[d], RLX_FOR_SERIAL, s);
  return s;
}

/* The statement of the parent block's body (seq element or the whole body) holding path end. */
static rlx_tir_stmt_t* top_stmt(const sched_path_t* p, int top) {
  if (top + 1 >= p->n) return NULL;
  if (p->s[top + 1]->kind == RLX_STMT_SEQ && top + 2 < p->n) return p->s[top + 2];
  return p->s[top + 1];
}

static rlx_tir_buffer_t* clone_buffer(rlx_ctx_t* ctx, const rlx_tir_buffer_t* x, const char* scope) {
  return rlx_tir_buffer_create(ctx, rlx_ctx_sprintf(ctx, "%s_%s", x->name, scope), x->dtype, x->ndim, x->shape, scope);
}

typedef enum { CACHE_READ, CACHE_WRITE } cache_kind_t;

static RLX_MUST_USE rlx_status_t* cache(rlx_schedule_t* s, const char* block, int index, const char* scope, cache_kind_t kind,
                                        const char** out_block) {
  rlx_ctx_t* ctx = s->ctx;
  const char* op = kind == CACHE_READ ? "cache_read" : "cache_write";
  sched_path_t* p = malloc(sizeof(*p));
  rlx_status_t* st = NULL;
  if (!p) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s", op);
  rlx_tir_block_realize_t* br;
  st = sched_get_block(s, block, p, &br);
  if (st) goto done;
  const rlx_tir_block_t* b = br->block;
  int nreg = kind == CACHE_READ ? b->n_reads : b->n_writes;
  if (index < 0 || index >= nreg) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s: block '%s' has %d %s buffers, index %d is out of range", op,
                           block, nreg, kind == CACHE_READ ? "read" : "written", index);
    goto done;
  }
  rlx_tir_buffer_t* x = kind == CACHE_READ ? b->reads[index].buffer : b->writes[index].buffer;
  int top = sched_parent_block_index(p, p->n - 1);
  if (top < 0) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s: block '%s' has no parent block to allocate the cache in", op, block);
    goto done;
  }
  if (kind == CACHE_WRITE &&
      (!b->body || b->body->kind != RLX_STMT_BUFFER_STORE || RLX_AS(rlx_tir_store_t, b->body)->buffer != x ||
       !sched_store_covers_buffer(b, RLX_AS(rlx_tir_store_t, b->body)))) {
    st = rlx_status_create(RLX_UNSUPPORTED,
                           "%s: block '%s' must be a single store covering all of '%s' (the copy-back writes the "
                           "whole buffer)",
                           op, block, x->name);
    goto done;
  }
  if (kind == CACHE_WRITE && sched_count_writers(s->func->body, x) != 1) {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s: buffer '%s' of block '%s' has several writers", op, x->name,
                           block);
    goto done;
  }
  if (kind == CACHE_READ) {
    for (int i = 0; i < b->n_writes; i++)
      if (b->writes[i].buffer == x) {
        st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s: block '%s' also writes buffer '%s'", op, block, x->name);
        goto done;
      }
  }
  const char* parent_name = RLX_AS(rlx_tir_block_realize_t, p->s[top])->block->name;
  rlx_tir_buffer_t* c = clone_buffer(ctx, x, scope ? scope : "global");
  const char* cname = sched_unique_block_name(s, c->name);
  rlx_ptrmap_t bm = {0};
  rlx_ptrmap_put(&bm, x, c);
  rlx_tir_stmt_t* nbr = rlx_tir_stmt_replace_buffers(ctx, &br->hdr, &bm);
  rlx_ptrmap_free(&bm);
  rlx_tir_stmt_t* copy = kind == CACHE_READ ? copy_nest(ctx, cname, c, x) : copy_nest(ctx, cname, x, c);
  rlx_tir_stmt_t* body = sched_replace(ctx, s->func->body, &br->hdr, nbr);
  /* the top statement changed (it contains B): find the new one by B's new realize */
  sched_path_t* q = p;
  if (!sched_path_to_stmt(body, nbr, q)) {
    st = rlx_status_create(RLX_INTERNAL, "%s: lost block '%s'", op, block);
    goto done;
  }
  rlx_tir_stmt_t* ts = top_stmt(q, sched_parent_block_index(q, q->n - 1));
  rlx_tir_stmt_t* pair[2] = {kind == CACHE_READ ? copy : ts, kind == CACHE_READ ? ts : copy};
  body = sched_replace(ctx, body, ts, rlx_tir_seq(ctx, 2, pair));
  /* allocate in the parent block */
  if (!sched_path_to_block(body, parent_name, q)) {
    st = rlx_status_create(RLX_INTERNAL, "%s: lost parent block '%s'", op, parent_name);
    goto done;
  }
  rlx_tir_block_realize_t* pbr = RLX_AS(rlx_tir_block_realize_t, q->s[q->n - 1]);
  rlx_tir_block_t* pb = rlx_tir_block_copy(ctx, pbr->block);
  pb->alloc_buffers = RLX_NEW_ARRAY(ctx, rlx_tir_buffer_t*, pb->n_alloc_buffers + 1);
  for (int i = 0; i < pbr->block->n_alloc_buffers; i++) pb->alloc_buffers[i] = pbr->block->alloc_buffers[i];
  pb->alloc_buffers[pb->n_alloc_buffers++] = c;
  body = sched_replace(ctx, body, &pbr->hdr,
                       rlx_tir_block_realize(ctx, pbr->n_values, pbr->iter_values, pbr->predicate, pb));
  sched_set_body(s, body);
  if (out_block) *out_block = cname;
done:
  free(p);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_sched_cache_write(rlx_schedule_t* s, const char* block, int write_index, const char* scope,
                                                 const char** out_block) {
  return cache(s, block, write_index, scope, CACHE_WRITE, out_block);
}

RLX_MUST_USE rlx_status_t* rlx_sched_cache_read(rlx_schedule_t* s, const char* block, int read_index, const char* scope,
                                                const char** out_block) {
  return cache(s, block, read_index, scope, CACHE_READ, out_block);
}
