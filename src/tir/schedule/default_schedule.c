/* rlx_tir_default_schedule: the CPU schedule applied to unscheduled PrimFuncs.
 *
 * Requires: a PrimFunc in block form (root block whose body is a sequence of loop nests, each
 * ending in one block, as create_prim_func builds it). Other shapes are left alone.
 * Produces, per top-level block:
 *   - elementwise blocks writing an intermediate buffer that no reduction reads: inlined
 *     into their consumers (compute_inline);
 *   - matmul-like contractions: the packed, register-tiled kernel of default_matmul.c, with
 *     elementwise consumers folded into its write-back;
 *   - other reductions: leading spatial loops fused (parallel when the work is >= 64K
 *     elements); when the innermost spatial axis is contiguous in every access it is split by
 *     the vector width, moved inside the reduction loops and vectorized (the init is
 *     decomposed into its own block);
 *   - elementwise/injective blocks: innermost contiguous axis split by the vector width and
 *     vectorized, all other loops fused into one loop, parallel when >= 64K elements.
 * A block whose schedule fails any check keeps its previous form. The result carries
 * "tir.is_scheduled" = True.
 */
#include <stdlib.h>
#include <string.h>

#include "sched_internal.h"

#define PAR_MIN 65536
#define VEC_BYTES 64

static bool attr_true(const rlx_tir_func_t* f, const char* key) {
  rlx_expr_t* v = rlx_tir_func_get_attr(f, key);
  int64_t x;
  return v && rlx_expr_is_const_int(v, &x) && x != 0;
}

/* Names of the blocks at the end of each loop nest directly under the root block. */
static int top_blocks(rlx_ctx_t* ctx, const rlx_tir_func_t* f, const char*** out) {
  *out = NULL;
  if (!f->body || f->body->kind != RLX_STMT_BLOCK_REALIZE) return 0;
  rlx_tir_stmt_t* body = RLX_AS(rlx_tir_block_realize_t, f->body)->block->body;
  if (!body) return 0;
  rlx_tir_seq_t* seq = body->kind == RLX_STMT_SEQ ? RLX_AS(rlx_tir_seq_t, body) : NULL;
  int n = seq ? seq->n : 1;
  const char** names = RLX_NEW_ARRAY(ctx, const char*, n);
  int k = 0;
  for (int i = 0; i < n; i++) {
    rlx_tir_stmt_t* t = seq ? seq->stmts[i] : body;
    while (t->kind == RLX_STMT_FOR) t = RLX_AS(rlx_tir_for_t, t)->body;
    if (t->kind == RLX_STMT_BLOCK_REALIZE) names[k++] = RLX_AS(rlx_tir_block_realize_t, t)->block->name;
  }
  *out = names;
  return k;
}

typedef struct {
  rlx_tir_block_realize_t* br;
  int n;
  rlx_tir_for_t** loops; /* outermost first, the nest directly above the block */
} nest_t;

static rlx_status_t* get_nest(rlx_schedule_t* s, const char* name, nest_t* out) {
  sched_path_t* p = malloc(sizeof(*p));
  if (!p) return rlx_status_create(RLX_OUT_OF_MEMORY, "default schedule");
  rlx_status_t* st = sched_get_block(s, name, p, &out->br);
  if (st) {
    free(p);
    return st;
  }
  int top = sched_parent_block_index(p, p->n - 1);
  out->loops = RLX_NEW_ARRAY(s->ctx, rlx_tir_for_t*, p->n);
  out->n = 0;
  for (int i = top + 1; i < p->n - 1; i++)
    if (p->s[i]->kind == RLX_STMT_FOR) out->loops[out->n++] = RLX_AS(rlx_tir_for_t, p->s[i]);
  free(p);
  return NULL;
}

/* The iter var index bound exactly to loop var v; -1 if none. */
static int bound_iter(const rlx_tir_block_realize_t* br, const rlx_var_t* v) {
  for (int i = 0; i < br->n_values; i++)
    if (br->iter_values[i] == &v->hdr) return i;
  return -1;
}

/* True if every access of the block body uses iter var iv only as its last index (or not at
 * all) with unit stride, and the store uses it as its last index: then the loop bound to iv
 * walks memory contiguously. */
typedef struct {
  rlx_ctx_t* ctx;
  const rlx_var_t* iv;
  bool ok;
} contig_t;
/* idx is iv + (something without iv). */
static bool unit_stride(rlx_ctx_t* ctx, rlx_expr_t* idx, const rlx_var_t* iv) {
  if (idx == &iv->hdr) return true;
  rlx_expr_t* ivx = (rlx_expr_t*)&iv->hdr;
  if (!rlx_dtype_eq(idx->dtype, ivx->dtype)) return false;
  return !rlx_expr_uses_var(rlx_ir_simplify(ctx, rlx_ir_sub(ctx, idx, ivx)), iv);
}
static void contig_load(const rlx_expr_t* e, void* user) {
  contig_t* c = user;
  if (e->kind != RLX_EXPR_BUFFER_LOAD) return;
  const rlx_buffer_load_t* l = RLX_AS(const rlx_buffer_load_t, e);
  for (int d = 0; d + 1 < l->n_indices; d++)
    if (rlx_expr_uses_var(l->indices[d], c->iv)) c->ok = false;
  if (l->n_indices > 0 && rlx_expr_uses_var(l->indices[l->n_indices - 1], c->iv) &&
      !unit_stride(c->ctx, l->indices[l->n_indices - 1], c->iv))
    c->ok = false;
}
static bool contiguous(rlx_ctx_t* ctx, const rlx_tir_block_t* b, const rlx_var_t* iv) {
  if (!b->body || b->body->kind != RLX_STMT_BUFFER_STORE) return false;
  rlx_tir_store_t* st = RLX_AS(rlx_tir_store_t, b->body);
  if (st->n_indices == 0 || st->indices[st->n_indices - 1] != &iv->hdr) return false;
  for (int d = 0; d + 1 < st->n_indices; d++)
    if (rlx_expr_uses_var(st->indices[d], iv)) return false;
  contig_t c = {ctx, iv, true};
  rlx_expr_visit(st->value, contig_load, &c);
  return c.ok;
}

static int lanes_for(const rlx_tir_block_t* b) {
  if (!b->body || b->body->kind != RLX_STMT_BUFFER_STORE) return 1;
  int bytes = rlx_dtype_bytes(RLX_AS(rlx_tir_store_t, b->body)->buffer->dtype);
  if (bytes <= 0) return 1;
  int l = VEC_BYTES / bytes;
  return l > 16 ? 16 : l;
}

static int64_t const_extent(const rlx_tir_for_t* f) {
  int64_t v;
  return rlx_expr_is_const_int(f->extent, &v) ? v : -1;
}

/* Work of a set of loops; -1 when symbolic. */
static int64_t work(rlx_tir_for_t* const* loops, int n) {
  int64_t w = 1;
  for (int i = 0; i < n; i++) {
    int64_t e = const_extent(loops[i]);
    if (e < 0) return -1;
    w *= e;
  }
  return w;
}

static rlx_status_t* fuse_parallel(rlx_schedule_t* s, int n, rlx_var_t** outer, bool par) {
  if (n == 0) return NULL;
  rlx_var_t* fused = outer[0];
  if (n > 1) RLX_RETURN_IF_ERROR(rlx_sched_fuse(s, n, outer, &fused));
  if (par) RLX_RETURN_IF_ERROR(rlx_sched_parallel(s, fused));
  return NULL;
}

static rlx_status_t* sched_elementwise(rlx_schedule_t* s, const char* name) {
  nest_t nest;
  RLX_RETURN_IF_ERROR(get_nest(s, name, &nest));
  if (nest.n == 0) return NULL;
  const rlx_tir_block_t* b = nest.br->block;
  int64_t total = work(nest.loops, nest.n);
  bool par = total < 0 || total >= PAR_MIN;
  rlx_tir_for_t* inner = nest.loops[nest.n - 1];
  int iv = bound_iter(nest.br, inner->var);
  rlx_var_t** outer = RLX_NEW_ARRAY(s->ctx, rlx_var_t*, nest.n);
  int n_outer = 0;
  for (int i = 0; i + 1 < nest.n; i++) outer[n_outer++] = nest.loops[i]->var;
  int lanes = lanes_for(b);
  if (iv >= 0 && lanes >= 4 && contiguous(s->ctx, b, b->iter_vars[iv]->var)) {
    int64_t w = const_extent(inner);
    int vl = lanes;
    if (w >= 0)
      while (vl > 1 && w % vl != 0) vl /= 2;
    if (vl >= 4 && (w < 0 || w >= vl)) {
      int64_t factors[2] = {-1, vl};
      rlx_var_t* sp[2];
      RLX_RETURN_IF_ERROR(rlx_sched_split(s, inner->var, 2, factors, sp));
      RLX_RETURN_IF_ERROR(rlx_sched_vectorize(s, sp[1]));
      outer[n_outer++] = sp[0];
      return fuse_parallel(s, n_outer, outer, par);
    }
  }
  outer[n_outer++] = inner->var;
  return fuse_parallel(s, n_outer, outer, par);
}

static bool binds_reduce(const rlx_tir_block_realize_t* br, const rlx_var_t* v) {
  for (int i = 0; i < br->n_values; i++)
    if (br->block->iter_vars[i]->kind == RLX_ITER_REDUCE && rlx_expr_uses_var(br->iter_values[i], v)) return true;
  return false;
}

static rlx_status_t* sched_reduction(rlx_schedule_t* s, const char* name) {
  nest_t nest;
  RLX_RETURN_IF_ERROR(get_nest(s, name, &nest));
  if (nest.n == 0) return NULL;
  const rlx_tir_block_t* b = nest.br->block;
  int sp = 0;
  while (sp < nest.n && !binds_reduce(nest.br, nest.loops[sp]->var)) sp++;
  for (int i = sp; i < nest.n; i++)
    if (!binds_reduce(nest.br, nest.loops[i]->var)) sp = -1;
  if (sp <= 0) return NULL; /* no leading spatial loops, or mixed order: keep as is */
  int64_t sw = work(nest.loops, sp), rw = work(nest.loops + sp, nest.n - sp);
  bool par = sw < 0 || rw < 0 || (sw > 1 && sw * rw >= PAR_MIN);
  rlx_var_t** outer = RLX_NEW_ARRAY(s->ctx, rlx_var_t*, nest.n + 1);
  int n_outer = 0;
  for (int i = 0; i + 1 < sp; i++) outer[n_outer++] = nest.loops[i]->var;
  rlx_tir_for_t* ls = nest.loops[sp - 1];
  int iv = bound_iter(nest.br, ls->var);
  int lanes = lanes_for(b);
  int64_t w = const_extent(ls);
  int vl = lanes;
  if (w > 0)
    while (vl > 1 && w % vl != 0) vl /= 2;
  if (iv >= 0 && sp < nest.n && b->init && vl >= 4 && w >= vl && contiguous(s->ctx, b, b->iter_vars[iv]->var)) {
    int64_t factors[2] = {-1, vl};
    rlx_var_t* sv[2];
    RLX_RETURN_IF_ERROR(rlx_sched_split(s, ls->var, 2, factors, sv));
    int nr = nest.n - sp;
    rlx_var_t** order = RLX_NEW_ARRAY(s->ctx, rlx_var_t*, nr + 1);
    for (int i = 0; i < nr; i++) {
      order[i] = nest.loops[sp + i]->var;
    }
    order[nr] = sv[1];
    RLX_RETURN_IF_ERROR(rlx_sched_reorder(s, nr + 1, order));
    const char* init_name;
    RLX_RETURN_IF_ERROR(rlx_sched_decompose_reduction(s, name, nest.loops[sp]->var, &init_name));
    RLX_RETURN_IF_ERROR(rlx_sched_vectorize(s, sv[1]));
    rlx_var_t** il;
    int nil;
    RLX_RETURN_IF_ERROR(rlx_sched_get_loops(s, init_name, &il, &nil));
    if (nil > 0) RLX_RETURN_IF_ERROR(rlx_sched_vectorize(s, il[nil - 1]));
    outer[n_outer++] = sv[0];
  } else {
    outer[n_outer++] = ls->var;
  }
  return fuse_parallel(s, n_outer, outer, par);
}

static bool is_reduction(const rlx_tir_block_t* b) {
  if (b->init) return true;
  for (int i = 0; i < b->n_iter_vars; i++)
    if (b->iter_vars[i]->kind == RLX_ITER_REDUCE) return true;
  return false;
}

typedef struct {
  const rlx_tir_buffer_t* buf;
  bool reduction_reader;
} rr_t;
static void reduction_reader(const rlx_tir_block_t* b, void* user) {
  rr_t* r = user;
  if (is_reduction(b) && (sched_stmt_loads(b->body, r->buf) || (b->init && sched_stmt_loads(b->init, r->buf))))
    r->reduction_reader = true;
}

/* Inlines an elementwise block producing an intermediate buffer that no reduction reads
 * (reductions keep plain operand loads, which the matmul and vectorization checks need). */
static void try_inline(rlx_schedule_t* s, const char* name) {
  rlx_tir_block_realize_t* br = rlx_tir_find_block(s->func->body, name);
  if (!br || is_reduction(br->block) || !br->block->body || br->block->body->kind != RLX_STMT_BUFFER_STORE) return;
  rlx_tir_buffer_t* buf = RLX_AS(rlx_tir_store_t, br->block->body)->buffer;
  if (sched_is_param_buffer(s->func, buf)) return;
  rr_t r = {buf, false};
  rlx_tir_visitor_t v = {NULL, NULL, reduction_reader, &r};
  rlx_tir_stmt_visit(s->func->body, &v);
  if (r.reduction_reader) return;
  rlx_tir_func_t* saved = s->func;
  rlx_status_t* st = rlx_sched_compute_inline(s, name);
  if (st) {
    rlx_status_free(st);
    s->func = saved;
  }
}

rlx_status_t* rlx_tir_default_schedule(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out) {
  if (attr_true(f, "tir.is_scheduled") || attr_true(f, "rlx.no_default_schedule")) {
    *out = (rlx_tir_func_t*)f;
    return NULL;
  }
  rlx_schedule_t* s = rlx_schedule_create(ctx, f);
  const char** names;
  int n = top_blocks(ctx, s->func, &names);
  bool* done = RLX_NEW_ARRAY(ctx, bool, n);
  for (int i = n - 1; i >= 0; i--) try_inline(s, names[i]);
  for (int i = 0; i < n; i++) {
    if (!rlx_tir_find_block(s->func->body, names[i])) continue;
    rlx_tir_func_t* saved = s->func;
    bool applied = false;
    rlx_status_t* st = sched_default_matmul(s, names[i], &applied);
    if (st) {
      rlx_status_free(st);
      s->func = saved;
      applied = false;
    }
    done[i] = applied;
  }
  for (int i = 0; i < n; i++) {
    if (done[i] || !rlx_tir_find_block(s->func->body, names[i])) continue;
    rlx_tir_func_t* saved = s->func;
    rlx_tir_block_realize_t* br = rlx_tir_find_block(s->func->body, names[i]);
    rlx_status_t* st = is_reduction(br->block) ? sched_reduction(s, names[i]) : sched_elementwise(s, names[i]);
    if (st) {
      rlx_status_free(st);
      s->func = saved;
    }
  }
  *out = rlx_tir_func_with_attr(ctx, s->func, "tir.is_scheduled", rlx_ir_bool(ctx, true));
  return NULL;
}
