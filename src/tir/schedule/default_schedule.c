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
 *     decomposed into its own block); a single reduction axis that is innermost and contiguous
 *     is instead split into VL partial results kept in a vector (rfactor), combined at the end;
 *   - a function of row reductions and elementwise blocks ending in an elementwise block
 *     (softmax, LayerNorm): row fusion -- one (parallel) row loop, every block computed at
 *     it, the reductions rfactored and the elementwise loops vectorized under it;
 *   - elementwise/injective blocks: innermost contiguous axis split by the vector width and
 *     vectorized; at >= 64K elements the other loops are fused into one parallel loop,
 *     below it they stay nested and serial; the
 *     stored value simplified with the iter var ranges.
 * A block whose schedule fails any check keeps its previous form, and that is reported: every
 * contraction the matmul rule does not take and every reduction left scalar is listed with
 * the reason (rlx_tir_default_schedule_report). The result carries "tir.is_scheduled" = True.
 */
#include <stdlib.h>
#include <string.h>

#include "sched_internal.h"

#define PAR_MIN 65536
#define MAX_LANES 16 /* bool masks are int32 lanes: wider vectors of small types get wide masks */

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

static RLX_MUST_USE rlx_status_t* get_nest(rlx_schedule_t* s, const char* name, nest_t* out) {
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

static rlx_expr_t* as_dtype(rlx_ctx_t* ctx, rlx_dtype_t t, rlx_expr_t* e) {
  return rlx_dtype_eq(e->dtype, t) ? e : rlx_ir_cast(ctx, t, e);
}

/* An opaque block (no iter vars) around body. Regions: whole buffers, without its own. */
static rlx_tir_stmt_t* opaque_block(rlx_ctx_t* ctx, const char* name, rlx_tir_stmt_t* body, int n_alloc,
                                    rlx_tir_buffer_t** allocs) {
  rlx_tir_block_t* b = RLX_NEW(ctx, rlx_tir_block_t);
  b->name = name;
  b->body = body;
  b->n_alloc_buffers = n_alloc;
  b->alloc_buffers = allocs;
  b = sched_block_recompute_regions(ctx, b);
  rlx_buffer_region_t* lists[2] = {b->reads, b->writes};
  int* counts[2] = {&b->n_reads, &b->n_writes};
  for (int l = 0; l < 2; l++) {
    int k = 0;
    for (int i = 0; i < *counts[l]; i++) {
      bool own = false;
      for (int a = 0; a < n_alloc; a++) own = own || lists[l][i].buffer == allocs[a];
      if (!own) lists[l][k++] = sched_full_region(ctx, lists[l][i].buffer);
    }
    *counts[l] = k;
  }
  return rlx_tir_block_realize(ctx, 0, NULL, NULL, b);
}

/* Vector lanes for the block's stored type: the target's native vector (16 float32 with
 * AVX-512, 8 with AVX2, 4 with SSE / NEON), at most MAX_LANES. *out_min: the fewest lanes
 * worth a vector (4, or the native count when that is smaller: float64 on SSE). */
static int lanes_for(rlx_ctx_t* ctx, const rlx_tir_block_t* b, int* out_min) {
  *out_min = 4;
  if (!b->body || b->body->kind != RLX_STMT_BUFFER_STORE) return 1;
  int bytes = rlx_dtype_bytes(RLX_AS(rlx_tir_store_t, b->body)->buffer->dtype);
  if (bytes <= 0) return 1;
  sched_machine_t m = sched_machine(ctx);
  int l = sched_machine_lanes(&m, bytes);
  if (l > MAX_LANES) l = MAX_LANES;
  if (l < *out_min) *out_min = l > 1 ? l : 2;
  return l;
}

/* Partial results of a vectorized row reduction (rfactor): at least two native float32
 * vectors, as each vector is one chain of dependent adds whose latency (3-4 cycles) is
 * longer than the issue interval; one with AVX-512, where a 16-lane vector already covers
 * a LayerNorm row of 256 in 16 steps. */
static int rfactor_lanes(rlx_ctx_t* ctx) {
  sched_machine_t m = sched_machine(ctx);
  int l = sched_machine_lanes(&m, 4);
  return l < 16 ? 2 * l : l;
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

/* Fuses the outer loops into one parallel loop when par (one range of it per thread); serial
 * loops stay nested, which spares the division and modulo per element that recovering the
 * indices from a fused loop costs (a transpose's strided reads measured slower through a fused loop).
 * (Nested loops once made ONNX's PRelu and Trilu cases wrong: a GCC 12 miscompile, avoided
 * by -fno-tree-loop-if-convert in build/build.c.) */
static RLX_MUST_USE rlx_status_t* fuse_parallel(rlx_schedule_t* s, int n, rlx_var_t** outer, bool par) {
  if (n == 0 || !par) return NULL;
  rlx_var_t* fused = outer[0];
  if (n > 1) RLX_RETURN_IF_ERROR(rlx_sched_fuse(s, n, outer, &fused));
  if (par) RLX_RETURN_IF_ERROR(rlx_sched_parallel(s, fused));
  return NULL;
}

/* The block can run its spatial iterations in any order: a single store whose indices use
 * every spatial iter var (one iteration per element), and its own buffer is read back only
 * at the stored element. */
typedef struct {
  const rlx_tir_store_t* st;
  bool ok;
} selfdep_t;
static void selfdep_load(const rlx_expr_t* e, void* user) {
  selfdep_t* sd = user;
  if (e->kind != RLX_EXPR_BUFFER_LOAD || RLX_AS(const rlx_buffer_load_t, e)->buffer != sd->st->buffer) return;
  const rlx_buffer_load_t* l = RLX_AS(const rlx_buffer_load_t, e);
  if (l->n_indices != sd->st->n_indices) {
    sd->ok = false;
    return;
  }
  for (int d = 0; d < l->n_indices; d++)
    if (!rlx_expr_equal(l->indices[d], sd->st->indices[d])) sd->ok = false;
}
static bool order_free(const rlx_tir_block_t* b) {
  if (!b->body || b->body->kind != RLX_STMT_BUFFER_STORE) return false;
  const rlx_tir_store_t* st = RLX_AS(const rlx_tir_store_t, b->body);
  for (int i = 0; i < b->n_iter_vars; i++) {
    if (b->iter_vars[i]->kind != RLX_ITER_SPATIAL) continue;
    bool used = false;
    for (int d = 0; d < st->n_indices && !used; d++) used = rlx_expr_uses_var(st->indices[d], b->iter_vars[i]->var);
    if (!used) return false;
  }
  selfdep_t sd = {st, true};
  rlx_expr_visit(st->value, selfdep_load, &sd);
  for (int d = 0; d < st->n_indices; d++) rlx_expr_visit(st->indices[d], selfdep_load, &sd);
  if (b->init) {
    if (b->init->kind != RLX_STMT_BUFFER_STORE) return false;
    rlx_expr_visit(RLX_AS(const rlx_tir_store_t, b->init)->value, selfdep_load, &sd);
  }
  return sd.ok;
}

/* Simplifies the value stored by block `name` knowing its iter vars' ranges:
 * the index arithmetic of fused reshapes/transposes (`(i*64 + j) // 256` with i < 4, j < 64
 * is 0) would otherwise cost a division per element. */
static void simplify_block(rlx_schedule_t* s, const char* name) {
  rlx_ctx_t* ctx = s->ctx;
  rlx_tir_block_realize_t* br = rlx_tir_find_block(s->func->body, name);
  if (!br || !br->block->body || br->block->body->kind != RLX_STMT_BUFFER_STORE) return;
  const rlx_tir_block_t* b = br->block;
  rlx_analyzer_t* an = rlx_analyzer_create(ctx);
  for (int i = 0; i < b->n_iter_vars; i++)
    rlx_analyzer_bind(an, b->iter_vars[i]->var, b->iter_vars[i]->dom.min, b->iter_vars[i]->dom.extent);
  rlx_tir_store_t* st = RLX_AS(rlx_tir_store_t, b->body);
  /* the store keeps its indices: order_free needs every spatial iter var there */
  rlx_expr_t* v = rlx_analyzer_simplify(an, st->value);
  if (v == st->value) return;
  rlx_tir_block_t* nb = rlx_tir_block_copy(ctx, b);
  nb->body = rlx_tir_store(ctx, st->buffer, v, st->n_indices, st->indices);
  nb = sched_block_recompute_regions(ctx, nb);
  rlx_tir_stmt_t* nbr = rlx_tir_block_realize(ctx, br->n_values, br->iter_values, br->predicate, nb);
  sched_set_body(s, sched_replace(ctx, s->func->body, &br->hdr, nbr));
}

static RLX_MUST_USE rlx_status_t* sched_elementwise(rlx_schedule_t* s, const char* name) {
  nest_t nest;
  simplify_block(s, name);
  RLX_RETURN_IF_ERROR(get_nest(s, name, &nest));
  if (nest.n == 0 || !order_free(nest.br->block)) return NULL;
  const rlx_tir_block_t* b = nest.br->block;
  int64_t total = work(nest.loops, nest.n);
  bool par = total < 0 || total >= PAR_MIN;
  rlx_tir_for_t* inner = nest.loops[nest.n - 1];
  int iv = bound_iter(nest.br, inner->var);
  rlx_var_t** outer = RLX_NEW_ARRAY(s->ctx, rlx_var_t*, nest.n);
  int n_outer = 0;
  for (int i = 0; i + 1 < nest.n; i++) outer[n_outer++] = nest.loops[i]->var;
  int min_vl;
  int lanes = lanes_for(s->ctx, b, &min_vl);
  if (iv >= 0 && lanes >= min_vl && contiguous(s->ctx, b, b->iter_vars[iv]->var)) {
    int64_t w = const_extent(inner);
    int vl = lanes;
    if (w >= 0)
      while (vl > 1 && w % vl != 0) vl /= 2;
    if (vl >= min_vl && (w < 0 || w >= vl)) {
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

/* Row reductions over a contiguous innermost axis (sum/max/min, float): the reduce loop k of
 * extent K (a multiple of VL) becomes, at the same place,
 *   block "<S>_rf" alloc S_rf[VL] "local":
 *     for l (vectorized): S_rf[l] = init
 *     for ko in K/VL: for l (vectorized): S_rf[l] = combine(S_rf[l], x[k := ko*VL + l])
 *     S[idx] = combine(...combine(init, S_rf[0])..., S_rf[VL-1])
 * (TVM's rfactor followed by vectorization). The blocks are opaque. Changes the order of
 * the additions of a float sum. *out_done is false when the block does not fit. */
static RLX_MUST_USE rlx_status_t* row_reduce(rlx_schedule_t* s, const char* name, nest_t* nest, bool* out_done) {
  rlx_ctx_t* ctx = s->ctx;
  *out_done = false;
  rlx_tir_block_realize_t* br = nest->br;
  const rlx_tir_block_t* b = br->block;
  if (br->predicate || !b->init || b->n_alloc_buffers || !b->body || b->body->kind != RLX_STMT_BUFFER_STORE ||
      b->init->kind != RLX_STMT_BUFFER_STORE)
    return NULL;
  rlx_tir_store_t* st = RLX_AS(rlx_tir_store_t, b->body);
  rlx_tir_store_t* in = RLX_AS(rlx_tir_store_t, b->init);
  if (!rlx_dtype_eq(st->buffer->dtype, rlx_dt_float32()) || in->buffer != st->buffer || in->n_indices != st->n_indices)
    return NULL;
  for (int d = 0; d < st->n_indices; d++)
    if (in->indices[d] != st->indices[d]) return NULL;
  rlx_expr_kind_t comb = st->value->kind;
  if (comb != RLX_EXPR_ADD && comb != RLX_EXPR_MAX && comb != RLX_EXPR_MIN) return NULL;
  rlx_binary_t* v = RLX_AS(rlx_binary_t, st->value);
  rlx_expr_t* acc = v->a;
  rlx_expr_t* x = v->b;
  if (x->kind == RLX_EXPR_BUFFER_LOAD && RLX_AS(rlx_buffer_load_t, x)->buffer == st->buffer) {
    acc = v->b;
    x = v->a;
  }
  if (acc->kind != RLX_EXPR_BUFFER_LOAD || RLX_AS(rlx_buffer_load_t, acc)->buffer != st->buffer) return NULL;
  for (int d = 0; d < st->n_indices; d++)
    if (RLX_AS(rlx_buffer_load_t, acc)->indices[d] != st->indices[d]) return NULL;
  if (sched_expr_loads(x, st->buffer) || sched_expr_loads(in->value, st->buffer)) return NULL;
  /* one reduce iter var, bound to the innermost loop, contiguous in every load */
  rlx_tir_for_t* kl = nest->loops[nest->n - 1];
  int ki = bound_iter(br, kl->var);
  if (ki < 0 || b->iter_vars[ki]->kind != RLX_ITER_REDUCE) return NULL;
  for (int i = 0; i < b->n_iter_vars; i++)
    if (i != ki && (b->iter_vars[i]->kind == RLX_ITER_REDUCE || rlx_expr_uses_var(br->iter_values[i], kl->var)))
      return NULL;
  int64_t K, mn;
  if (!rlx_expr_is_const_int(kl->extent, &K) || !rlx_expr_is_const_int(kl->min, &mn) || mn != 0 ||
      !rlx_expr_is_const_int(b->iter_vars[ki]->dom.min, &mn) || mn != 0)
    return NULL;
  int vl = rfactor_lanes(ctx);
  if (K % vl != 0 || K < 2 * vl) return NULL;
  rlx_var_t* kv = b->iter_vars[ki]->var;
  contig_t c = {ctx, kv, true};
  rlx_expr_visit(x, contig_load, &c);
  if (!c.ok) return NULL;
  for (int d = 0; d < st->n_indices; d++)
    if (rlx_expr_uses_var(st->indices[d], kv)) return NULL;
  /* build */
  rlx_dtype_t t = kl->var->hdr.dtype;
  rlx_ptrmap_t vm = {0};
  for (int i = 0; i < b->n_iter_vars; i++)
    if (i != ki) rlx_ptrmap_put(&vm, b->iter_vars[i]->var, br->iter_values[i]);
  rlx_expr_t** idx = RLX_NEW_ARRAY(ctx, rlx_expr_t*, st->n_indices);
  for (int d = 0; d < st->n_indices; d++) idx[d] = rlx_expr_substitute(ctx, st->indices[d], &vm);
  rlx_expr_t* init = rlx_expr_substitute(ctx, in->value, &vm);
  rlx_var_t* l0 = rlx_ir_var(ctx, "l", t);
  rlx_var_t* l1 = rlx_ir_var(ctx, "l", t);
  rlx_var_t* ko = rlx_ir_var(ctx, "ko", t);
  rlx_ptrmap_put(&vm, kv, as_dtype(ctx, kv->hdr.dtype, rlx_ir_add(ctx, rlx_ir_mul(ctx, &ko->hdr, rlx_ir_int(ctx, t, vl)), &l1->hdr)));
  rlx_expr_t* xs = rlx_expr_substitute(ctx, x, &vm);
  rlx_ptrmap_free(&vm);
  rlx_expr_t* shp[1] = {rlx_ir_int(ctx, t, vl)};
  rlx_tir_buffer_t* rf = rlx_tir_buffer_create(ctx, rlx_ctx_sprintf(ctx, "%s_rf", st->buffer->name), rlx_dt_float32(),
                                               1, shp, "local");
  rlx_expr_t* i0[1] = {&l0->hdr};
  rlx_expr_t* i1[1] = {&l1->hdr};
  rlx_tir_stmt_t* s_init = rlx_tir_for(ctx, l0, rlx_ir_int(ctx, t, 0), rlx_ir_int(ctx, t, vl), RLX_FOR_VECTORIZED,
                                       opaque_block(ctx, sched_unique_block_name(s, rlx_ctx_sprintf(ctx, "%s_rf_init", name)),
                                                    rlx_tir_store(ctx, rf, init, 1, i0), 0, NULL));
  rlx_expr_t* upd = rlx_ir_binary(ctx, comb, rlx_ir_load(ctx, rf, 1, i1), xs);
  rlx_tir_stmt_t* s_upd = opaque_block(ctx, sched_unique_block_name(s, rlx_ctx_sprintf(ctx, "%s_rf_update", name)),
                                       rlx_tir_store(ctx, rf, upd, 1, i1), 0, NULL);
  s_upd = rlx_tir_for(ctx, l1, rlx_ir_int(ctx, t, 0), rlx_ir_int(ctx, t, vl), RLX_FOR_VECTORIZED, s_upd);
  s_upd = rlx_tir_for(ctx, ko, rlx_ir_int(ctx, t, 0), rlx_ir_int(ctx, t, K / vl), RLX_FOR_SERIAL, s_upd);
  rlx_expr_t* fin = init;
  for (int j = 0; j < vl; j++) {
    rlx_expr_t* ij[1] = {rlx_ir_int(ctx, t, j)};
    fin = rlx_ir_binary(ctx, comb, fin, rlx_ir_load(ctx, rf, 1, ij));
  }
  rlx_tir_stmt_t* s_fin = opaque_block(ctx, sched_unique_block_name(s, rlx_ctx_sprintf(ctx, "%s_rf_final", name)),
                                       rlx_tir_store(ctx, st->buffer, fin, st->n_indices, idx), 0, NULL);
  rlx_tir_stmt_t* parts[3] = {s_init, s_upd, s_fin};
  rlx_tir_buffer_t** al = RLX_NEW_ARRAY(ctx, rlx_tir_buffer_t*, 1);
  al[0] = rf;
  rlx_tir_stmt_t* tile = opaque_block(ctx, sched_unique_block_name(s, rlx_ctx_sprintf(ctx, "%s_rf", name)),
                                      rlx_tir_seq(ctx, 3, parts), 1, al);
  sched_set_body(s, sched_replace(ctx, s->func->body, &kl->hdr, tile));
  *out_done = true;
  return NULL;
}

/* *out_why: NULL when the block got a vectorized schedule, else why it stays scalar. */
static RLX_MUST_USE rlx_status_t* sched_reduction(rlx_schedule_t* s, const char* name, const char** out_why) {
  nest_t nest;
  *out_why = NULL;
  RLX_RETURN_IF_ERROR(get_nest(s, name, &nest));
  if (nest.n == 0 || !order_free(nest.br->block)) {
    *out_why = "its iterations are not independent (not one store per output element)";
    return NULL;
  }
  const rlx_tir_block_t* b = nest.br->block;
  int sp = 0;
  while (sp < nest.n && !binds_reduce(nest.br, nest.loops[sp]->var)) sp++;
  for (int i = sp; i < nest.n; i++)
    if (!binds_reduce(nest.br, nest.loops[i]->var)) sp = -1;
  if (sp == 0 && nest.n == 1) {
    /* a full reduction to one value: the row rule, without outer loops */
    bool done = false;
    RLX_RETURN_IF_ERROR(row_reduce(s, name, &nest, &done));
    if (!done)
      *out_why = rlx_ctx_sprintf(s->ctx, "a full reduction whose axis is not contiguous with extent a multiple of %d (>= %d)",
                                 rfactor_lanes(s->ctx), 2 * rfactor_lanes(s->ctx));
    return NULL;
  }
  if (sp <= 0) { /* no leading spatial loops, or mixed order: keep as is */
    *out_why = "the reduction loops are not all inside the spatial loops";
    return NULL;
  }
  int64_t sw = work(nest.loops, sp), rw = work(nest.loops + sp, nest.n - sp);
  bool par = sw < 0 || rw < 0 || (sw > 1 && sw * rw >= PAR_MIN);
  rlx_var_t** outer = RLX_NEW_ARRAY(s->ctx, rlx_var_t*, nest.n + 1);
  int n_outer = 0;
  for (int i = 0; i + 1 < sp; i++) outer[n_outer++] = nest.loops[i]->var;
  rlx_tir_for_t* ls = nest.loops[sp - 1];
  int iv = bound_iter(nest.br, ls->var);
  int min_vl;
  int lanes = lanes_for(s->ctx, b, &min_vl);
  int64_t w = const_extent(ls);
  int vl = lanes;
  if (w > 0)
    while (vl > 1 && w % vl != 0) vl /= 2;
  if (iv >= 0 && sp < nest.n && b->init && vl >= min_vl && w >= vl && contiguous(s->ctx, b, b->iter_vars[iv]->var)) {
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
    bool done = false;
    if (nest.n == sp + 1) RLX_RETURN_IF_ERROR(row_reduce(s, name, &nest, &done));
    if (!done)
      *out_why = rlx_ctx_sprintf(s->ctx,
                                 "the innermost spatial axis is not contiguous (or narrower than %d lanes) and the "
                                 "reduction is not one contiguous innermost axis with extent a multiple of %d (>= %d)",
                                 min_vl, rfactor_lanes(s->ctx), 2 * rfactor_lanes(s->ctx));
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
    rlx_status_drop(st);
    s->func = saved;
  }
}

/* Vectorizes the innermost loop of block `name` by the native lanes (or half, a quarter) when it walks memory
 * contiguously and its constant extent divides; no other loop is touched. */
static RLX_MUST_USE rlx_status_t* vectorize_inner(rlx_schedule_t* s, const char* name) {
  nest_t nest;
  RLX_RETURN_IF_ERROR(get_nest(s, name, &nest));
  if (nest.n == 0) return NULL;
  rlx_tir_for_t* inner = nest.loops[nest.n - 1];
  int iv = bound_iter(nest.br, inner->var);
  int64_t w = const_extent(inner);
  int min_vl;
  int vl = lanes_for(s->ctx, nest.br->block, &min_vl);
  while (vl > 1 && w > 0 && w % vl != 0) vl /= 2;
  if (iv < 0 || vl < min_vl || w < vl || !contiguous(s->ctx, nest.br->block, nest.br->block->iter_vars[iv]->var)) return NULL;
  int64_t factors[2] = {-1, vl};
  rlx_var_t* sp[2];
  RLX_RETURN_IF_ERROR(rlx_sched_split(s, inner->var, 2, factors, sp));
  return rlx_sched_vectorize(s, sp[1]);
}

/* Row fusion (softmax, LayerNorm, any chain of row reductions and elementwise ops ending in
 * an elementwise block): the last block's loops but the innermost are fused into one row
 * loop r, every other block is computed at r (compute_at: one row of each intermediate per
 * iteration), then under r each reduction gets the vectorized row rule (rfactor) and each
 * elementwise block its innermost loop vectorized. One pass per row over data in L1, and
 * one parallel loop (rows) for the whole function instead of one per block. *out_done is
 * false (and the schedule unchanged) when it does not apply. */
static RLX_MUST_USE rlx_status_t* row_fuse(rlx_schedule_t* s, int n, const char** names, bool* out_done) {
  *out_done = false;
  const char** live = RLX_NEW_ARRAY(s->ctx, const char*, n > 0 ? n : 1);
  int nl = 0;
  bool any_red = false;
  for (int i = 0; i < n; i++) {
    rlx_tir_block_realize_t* br = rlx_tir_find_block(s->func->body, names[i]);
    if (!br) continue;
    if (!br->block->body || br->block->body->kind != RLX_STMT_BUFFER_STORE) return NULL;
    if (!rlx_dtype_eq(RLX_AS(rlx_tir_store_t, br->block->body)->buffer->dtype, rlx_dt_float32())) return NULL;
    if (is_reduction(br->block)) any_red = true;
    live[nl++] = names[i];
  }
  if (nl < 2 || !any_red) return NULL;
  nest_t last;
  RLX_RETURN_IF_ERROR(get_nest(s, live[nl - 1], &last));
  if (last.n < 2 || is_reduction(last.br->block) || !order_free(last.br->block)) return NULL;
  for (int i = 0; i < last.n; i++)
    if (bound_iter(last.br, last.loops[i]->var) < 0 && const_extent(last.loops[i]) != 1) return NULL;
  int64_t rows = work(last.loops, last.n - 1), total = work(last.loops, last.n);
  if (rows < 0 || total < 0) return NULL;
  rlx_tir_func_t* saved = s->func;
  rlx_var_t** outer = RLX_NEW_ARRAY(s->ctx, rlx_var_t*, last.n);
  for (int i = 0; i + 1 < last.n; i++) outer[i] = last.loops[i]->var;
  rlx_var_t* r = outer[0];
  rlx_status_t* st = last.n > 2 ? rlx_sched_fuse(s, last.n - 1, outer, &r) : NULL;
  for (int i = nl - 2; i >= 0 && !st; i--) st = rlx_sched_compute_at(s, live[i], r);
  for (int i = 0; i < nl && !st; i++) {
    nest_t b;
    st = get_nest(s, live[i], &b);
    if (st) break;
    if (is_reduction(b.br->block)) {
      /* the row rule needs the reduction loop innermost: skip the extent-1 spatial loops */
      bool done = false;
      nest_t inner = b;
      while (inner.n > 1 && const_extent(inner.loops[0]) >= 0 && inner.loops[0]->var != r) {
        inner.loops++;
        inner.n--;
      }
      st = row_reduce(s, live[i], &inner, &done);
      if (!st && !done) st = rlx_status_create(RLX_UNSUPPORTED, "row fusion: reduction '%s' not vectorized", live[i]);
    } else {
      st = vectorize_inner(s, live[i]);
    }
  }
  if (!st && total >= PAR_MIN && rows > 1) st = rlx_sched_parallel(s, r);
  if (st) {
    rlx_status_drop(st);
    s->func = saved;
    return NULL;
  }
  *out_done = true;
  return NULL;
}

/* Iterations of the loop nest above a block (-1 when symbolic). */
static int64_t block_work(rlx_schedule_t* s, const char* name) {
  nest_t nest;
  rlx_status_t* st = get_nest(s, name, &nest);
  if (st) {
    rlx_status_drop(st);
    return -1;
  }
  return work(nest.loops, nest.n);
}

/* Floating-point operations of the contraction blocks (2 per multiply-add: 2 * the product
 * of the iter var extents); 0 when there is none or an extent is symbolic. */
static int64_t count_flops(rlx_schedule_t* s, int n, const char** names) {
  int64_t total = 0;
  for (int i = 0; i < n; i++) {
    rlx_tir_block_realize_t* br = rlx_tir_find_block(s->func->body, names[i]);
    if (!br || !sched_is_contraction(br->block) ||
        !rlx_dtype_is_float(RLX_AS(rlx_tir_store_t, br->block->body)->buffer->dtype))
      continue;
    int64_t w = 2;
    for (int k = 0; k < br->block->n_iter_vars; k++) {
      int64_t e;
      if (!rlx_expr_is_const_int(br->block->iter_vars[k]->dom.extent, &e)) return 0;
      w *= e;
    }
    total += w;
  }
  return total;
}

static void add_miss(rlx_ctx_t* ctx, rlx_sched_report_t* r, const char* block, const char* kind, const char* why,
                     int64_t w) {
  rlx_sched_miss_t* m = RLX_NEW_ARRAY(ctx, rlx_sched_miss_t, r->n + 1);
  for (int i = 0; i < r->n; i++) m[i] = r->misses[i];
  m[r->n].block = block;
  m[r->n].kind = kind;
  m[r->n].reason = why;
  m[r->n].work = w;
  r->misses = m;
  r->n++;
}

bool rlx_tir_func_needs_default_schedule(const rlx_tir_func_t* f) {
  return !attr_true(f, "tir.is_scheduled") && !attr_true(f, "rlx.no_default_schedule");
}

RLX_MUST_USE rlx_status_t* rlx_tir_default_schedule_report(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out,
                                                           rlx_sched_report_t* out_report) {
  rlx_sched_report_t rep = {0, NULL};
  if (out_report) *out_report = rep;
  if (!rlx_tir_func_needs_default_schedule(f)) {
    *out = (rlx_tir_func_t*)f;
    return NULL;
  }
  rlx_schedule_t* s = rlx_schedule_create(ctx, f);
  const char** names;
  int n = top_blocks(ctx, s->func, &names);
  int64_t flops = count_flops(s, n, names);
  bool* done = RLX_NEW_ARRAY(ctx, bool, n);
  const char** mm_why = RLX_NEW_ARRAY(ctx, const char*, n > 0 ? n : 1);
  int64_t* mm_work = RLX_NEW_ARRAY(ctx, int64_t, n > 0 ? n : 1);
  for (int i = n - 1; i >= 0; i--) try_inline(s, names[i]);
  for (int i = 0; i < n; i++) {
    if (!rlx_tir_find_block(s->func->body, names[i])) continue;
    rlx_tir_func_t* saved = s->func;
    bool applied = false;
    mm_work[i] = block_work(s, names[i]);
    rlx_status_t* st = sched_default_matmul(s, names[i], &applied, &mm_why[i]);
    if (st) {
      mm_why[i] = rlx_ctx_sprintf(ctx, "the matmul rule failed: %s", rlx_status_message(st));
      rlx_status_drop(st);
      s->func = saved;
      applied = false;
    }
    done[i] = applied;
  }
  bool any_done = false;
  for (int i = 0; i < n; i++) any_done = any_done || done[i] || mm_why[i];
  if (!any_done) {
    bool fused = false;
    RLX_RETURN_IF_ERROR(row_fuse(s, n, names, &fused));
    for (int i = 0; i < n && fused; i++) done[i] = true;
  }
  for (int i = 0; i < n; i++) {
    if (done[i] || !rlx_tir_find_block(s->func->body, names[i])) continue;
    rlx_tir_func_t* saved = s->func;
    rlx_tir_block_realize_t* br = rlx_tir_find_block(s->func->body, names[i]);
    bool red = is_reduction(br->block);
    int64_t w = block_work(s, names[i]);
    const char* why = NULL;
    rlx_status_t* st = red ? sched_reduction(s, names[i], &why) : sched_elementwise(s, names[i]);
    if (st) {
      why = rlx_ctx_sprintf(ctx, "the schedule failed: %s", rlx_status_message(st));
      rlx_status_drop(st);
      s->func = saved;
    }
    /* a contraction the matmul rule did not take is a miss, unless it has no N axis and the
     * row reduction rule vectorized it (a matrix-vector product) */
    if (mm_why[i] && (why || mm_why[i] != sched_no_n_axis)) add_miss(ctx, &rep, names[i], "matmul", mm_why[i], mm_work[i]);
    else if (red && why) add_miss(ctx, &rep, names[i], "reduction", why, w);
  }
  if (out_report) *out_report = rep;
  *out = rlx_tir_func_with_attr(ctx, s->func, "tir.is_scheduled", rlx_ir_bool(ctx, true));
  if (flops > 0) *out = rlx_tir_func_with_attr(ctx, *out, "rlx.flops", rlx_ir_i64(ctx, flops));
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_tir_default_schedule(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out) {
  return rlx_tir_default_schedule_report(ctx, f, out, NULL);
}
