/* The default schedule of matmul-like contractions (part of rlx_tir_default_schedule).
 *
 * Recognized: a block with one reduce iter var k, init `C[idx] = 0` and body
 * `C[idx] = C[idx] + A[..] * B[..]` (float32), where idx are the spatial iter vars. Axes of
 * extent 1 are squeezed out (bound to loops or to the constant 0, anywhere: a (128,1,256) x
 * (256,768) or a batch-1 (1,128,256) x (256,1024) matmul is a plain 128-row matmul). Of the
 * other axes, j (N) is the innermost output axis that exactly one operand (B) uses, i (M) the
 * innermost one only A uses (none: M = 1), and the rest are batch axes, used by A, B or both
 * (attention's batched matmuls, shared weights). Any M, N, K: tails are masked. M, N, K and
 * the batch extents may be symbolic. A contraction that does not fit says why (*out_why).
 *
 * Produced, with the numbers of the context's target (machine.c): an MR x NR register tile
 * of NV vectors of VL lanes (AVX-512: 8 x 32, 16 lanes; AVX2: 6 x 16 or 4 x 24, 8 lanes;
 * SSE: 4 x 8; NEON: 8 x 12, 4 lanes), MR = min(MR, M) (fewer rows get more vectors), NR
 * rounded down to N's vectors when N is narrower; NO = ceil(N/NR) panels; row blocks of MC = MR*MB rows with MB = min(8,
 * ceil(M/MR)) micro-tiles, fewer when their A rows would take more than a quarter of L2:
 *
 *   [only when B is big (> 2 x L2) and reused by >= 4 row tiles, or N has a tail, or is symbolic]
 *   Bp = alloc [batchB..., NO, K, NR]                      (root block, global)
 *   for b.., jo (parallel), k, ji (vectorized):            block "<B>_pack"
 *       Bp[b.., jo, k, ji] = B[.., k, jo*NR+ji]            (0 beyond N)
 *   for t in batch*MO*NO (parallel above 1M MACs):          b.., io_block, jo from t
 *      for ib in min(MB, ceil(M/MR) - io_block*MB):         io = io_block*MB + ib
 *       block "<C>_tile" alloc C_local[MR, NR] "local":
 *         for ii (unrolled), jv (unrolled), jl (vectorized VL):  block "<C>_init"
 *             C_local[ii, jv*VL+jl] = 0
 *         for k:
 *           [B >= L2 / 8, several panels, MB > 1] T.prefetch(T.address_of(<B of panel jo+1,
 *               element (ib*K + k)*NR // MB>), 0, 2, 1)
 *           for ii (unrolled), jv (unrolled), jl (vectorized):   block "<C>_update"
 *             C_local[ii, jv*VL+jl] += A[.., min(io*MR+ii, M-1), k] * Bp[.., jo, k, jv*VL+jl]
 *                                       (or B[.., k, jo*NR+jv*VL+jl] in place)
 *         for ii (unrolled), jv (unrolled), jl (vectorized):     block "<C>_store"
 *             where row < M and col < N (only when there is a tail):
 *             C[.., io*MR+ii, jo*NR+jv*VL+jl] = epilogue(C_local[ii, jv*VL+jl])
 *
 * With a symbolic M, N or K all of this sits under `if M >= 16 and N >= NR and K >= 16` (for
 * the symbolic ones); the else branch keeps the original matmul (and folded consumer) nests
 * for the generic schedules. Threads are used above 1M multiply-adds only; batch, row blocks
 * and panels are one fused parallel loop, so a few rows still split over threads.
 *
 * The blocks are opaque (no iter vars; they use the loop vars directly). Rows beyond M read a
 * clamped row of A and are never stored; columns beyond N multiply the zero padding of Bp.
 * Elementwise consumers of C that read it at the same index (0 on unit dims) are folded into
 * the "<C>_store" block and disappear with their intermediate buffers; since elementwise
 * chains are inlined into their last consumer first, any number of fused ops (bias + GELU,
 * bias + residual) ends up as one epilogue expression.
 */
#include <stdlib.h>
#include <string.h>

#include "sched_internal.h"

#define MB 8 /* micro-tiles per row block at most (MC = MR * MB rows) */
#define PAR_MACS (1 << 20)
#define MIN_ROWS 16 /* symbolic M: below this the plain reduction schedule runs */
#define PAR_ELEMS 65536
#define PACK_MIN_TILES 4 /* row tiles per panel of B from which B is packed */
#define MAX_ABSORB 8

typedef struct {
  rlx_tir_block_realize_t* br;
  rlx_tir_stmt_t* nest; /* the loop nest holding only the block */
  rlx_tir_buffer_t* c;
  rlx_buffer_load_t* a;
  rlx_buffer_load_t* b;
  int n_sp;             /* spatial iter vars = C indices */
  rlx_iter_var_t* k;
  rlx_iter_var_t* i;    /* NULL: M = 1 (every A-only axis has extent 1) */
  rlx_iter_var_t* j;
  int nb;               /* batch axes: the other spatial axes of extent != 1 */
  rlx_iter_var_t** batch;
  int nu;               /* unit axes (extent 1): replaced by 0 */
  rlx_iter_var_t** unit;
} mm_t;

static bool is_zero(const rlx_expr_t* e) {
  if (e->kind == RLX_EXPR_FLOAT_IMM) return RLX_AS(const rlx_float_imm_t, e)->value == 0.0;
  if (e->kind == RLX_EXPR_INT_IMM) return RLX_AS(const rlx_int_imm_t, e)->value == 0;
  return false;
}

static rlx_iter_var_t* iv_of(const rlx_tir_block_t* b, const rlx_expr_t* e) {
  int k = sched_iter_index(b, e);
  return k < 0 ? NULL : b->iter_vars[k];
}

static bool load_uses(const rlx_buffer_load_t* l, const rlx_iter_var_t* iv) {
  for (int d = 0; d < l->n_indices; d++)
    if (l->indices[d] == &iv->var->hdr) return true;
  return false;
}

static bool is_unit(const rlx_iter_var_t* iv) {
  int64_t e;
  return rlx_expr_is_const_int(iv->dom.extent, &e) && e == 1;
}

static bool is_unit_index(const mm_t* m, const rlx_expr_t* e) {
  for (int i = 0; i < m->nu; i++)
    if (e == &m->unit[i]->var->hdr) return true;
  return false;
}

static bool same_indices(const rlx_tir_store_t* s, int n, rlx_expr_t* const* idx) {
  if (s->n_indices != n) return false;
  for (int d = 0; d < n; d++)
    if (s->indices[d] != idx[d]) return false;
  return true;
}

const char* const sched_no_n_axis = "no output axis is used by exactly one operand (N = 1: a row reduction)";

/* The block's update is `C[idx] = C[idx] + X * Y` (either order) under an init, where some
 * spatial axis indexes one factor and not the other (a matmul's N or M; not a sum of squares
 * like LayerNorm's variance): a contraction, which the matmul rule must take or explain why
 * not. */
bool sched_is_contraction(const rlx_tir_block_t* b) {
  if (!b->init || !b->body || b->body->kind != RLX_STMT_BUFFER_STORE) return false;
  rlx_tir_store_t* st = RLX_AS(rlx_tir_store_t, b->body);
  if (st->value->kind != RLX_EXPR_ADD) return false;
  rlx_binary_t* add = RLX_AS(rlx_binary_t, st->value);
  rlx_expr_t* prod = add->a->kind == RLX_EXPR_MUL ? add->a : add->b->kind == RLX_EXPR_MUL ? add->b : NULL;
  if (!prod) return false;
  rlx_binary_t* mul = RLX_AS(rlx_binary_t, prod);
  for (int i = 0; i < b->n_iter_vars; i++)
    if (b->iter_vars[i]->kind == RLX_ITER_SPATIAL &&
        rlx_expr_uses_var(mul->a, b->iter_vars[i]->var) != rlx_expr_uses_var(mul->b, b->iter_vars[i]->var))
      return true;
  return false;
}

/* Checks the block and its loop nest; false when it is not a matmul the kernel takes, with
 * *why saying what did not fit. Axes of extent 1 (unit dims) are squeezed out: any number of
 * them, anywhere. Of the other spatial axes, j is the innermost C axis that exactly one
 * operand (B) uses, i the innermost C axis that only the other operand (A) uses (none: M = 1),
 * and the rest are batch axes (used by A, by B or by both). */
static bool match_matmul(rlx_ctx_t* ctx, const sched_path_t* p, mm_t* m, const char** why) {
  rlx_tir_block_realize_t* br = RLX_AS(rlx_tir_block_realize_t, p->s[p->n - 1]);
  const rlx_tir_block_t* b = br->block;
  *why = NULL;
  if (!sched_is_contraction(b)) return false;
  if (br->predicate) return (*why = "the block has a predicate"), false;
  if (b->init->kind != RLX_STMT_BUFFER_STORE || b->n_alloc_buffers)
    return (*why = "the init is not a single store, or the block allocates"), false;
  rlx_tir_store_t* st = RLX_AS(rlx_tir_store_t, b->body);
  rlx_tir_store_t* in = RLX_AS(rlx_tir_store_t, b->init);
  if (!rlx_dtype_eq(st->buffer->dtype, rlx_dt_float32())) return (*why = "the output is not float32"), false;
  if (in->buffer != st->buffer || !same_indices(in, st->n_indices, st->indices) || !is_zero(in->value))
    return (*why = "the init is not C[idx] = 0"), false;
  /* iter vars: spatial ones are exactly the store indices, one reduce var */
  int n_red = 0;
  m->k = NULL;
  for (int i = 0; i < b->n_iter_vars; i++) {
    rlx_iter_var_t* iv = b->iter_vars[i];
    int64_t mn;
    if (!rlx_expr_is_const_int(iv->dom.min, &mn) || mn != 0) return (*why = "an axis does not start at 0"), false;
    if (iv->kind == RLX_ITER_REDUCE) {
      n_red++;
      m->k = iv;
    }
  }
  if (n_red != 1) return (*why = rlx_ctx_sprintf(ctx, "%d reduction axes (the kernel takes one)", n_red)), false;
  if (st->n_indices != b->n_iter_vars - 1 || st->n_indices < 1)
    return (*why = "the output is not indexed by every spatial axis"), false;
  for (int d = 0; d < st->n_indices; d++) {
    rlx_iter_var_t* iv = iv_of(b, st->indices[d]);
    if (!iv || iv->kind != RLX_ITER_SPATIAL) return (*why = "an output index is not a spatial axis"), false;
    for (int e = 0; e < d; e++)
      if (st->indices[e] == st->indices[d]) return (*why = "an axis indexes the output twice"), false;
  }
  /* value: C[idx] + X * Y (either order) */
  rlx_binary_t* add = RLX_AS(rlx_binary_t, st->value);
  rlx_expr_t *acc = add->a, *prod = add->b;
  if (prod->kind != RLX_EXPR_MUL) {
    rlx_expr_t* t = acc;
    acc = prod;
    prod = t;
  }
  if (acc->kind != RLX_EXPR_BUFFER_LOAD || prod->kind != RLX_EXPR_MUL)
    return (*why = "the update is not C + X * Y"), false;
  rlx_buffer_load_t* al = RLX_AS(rlx_buffer_load_t, acc);
  if (al->buffer != st->buffer || !same_indices(st, al->n_indices, al->indices))
    return (*why = "the update does not accumulate into C[idx]"), false;
  rlx_binary_t* mul = RLX_AS(rlx_binary_t, prod);
  if (mul->a->kind != RLX_EXPR_BUFFER_LOAD || mul->b->kind != RLX_EXPR_BUFFER_LOAD)
    return (*why = "a factor of the product is not a plain load (fused producer?)"), false;
  rlx_buffer_load_t* x = RLX_AS(rlx_buffer_load_t, mul->a);
  rlx_buffer_load_t* y = RLX_AS(rlx_buffer_load_t, mul->b);
  if (x->buffer == st->buffer || y->buffer == st->buffer) return (*why = "a factor reads C"), false;
  if (!rlx_dtype_eq(x->hdr.dtype, rlx_dt_float32()) || !rlx_dtype_eq(y->hdr.dtype, rlx_dt_float32()))
    return (*why = "a factor is not float32"), false;
  /* every index of the operands is an iter var or a constant */
  rlx_buffer_load_t* ops[2] = {x, y};
  for (int o = 0; o < 2; o++)
    for (int d = 0; d < ops[o]->n_indices; d++)
      if (!iv_of(b, ops[o]->indices[d]) && ops[o]->indices[d]->kind != RLX_EXPR_INT_IMM)
        return (*why = "an operand index is an expression, not an axis"), false;
  m->n_sp = st->n_indices;
  /* classify the spatial axes */
  m->j = m->i = NULL;
  rlx_buffer_load_t* bl = NULL;
  for (int d = m->n_sp - 1; d >= 0 && !m->j; d--) {
    rlx_iter_var_t* iv = iv_of(b, st->indices[d]);
    if (is_unit(iv)) continue;
    bool ux = load_uses(x, iv), uy = load_uses(y, iv);
    if (ux != uy) {
      m->j = iv;
      bl = uy ? y : x;
    }
  }
  if (!m->j) return (*why = sched_no_n_axis), false;
  rlx_buffer_load_t* alo = bl == x ? y : x;
  for (int d = m->n_sp - 1; d >= 0 && !m->i; d--) {
    rlx_iter_var_t* iv = iv_of(b, st->indices[d]);
    if (iv != m->j && !is_unit(iv) && load_uses(alo, iv) && !load_uses(bl, iv)) m->i = iv;
  }
  if (!is_unit(m->k) && (!load_uses(alo, m->k) || !load_uses(bl, m->k)))
    return (*why = "the reduction axis does not index both operands"), false;
  m->batch = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, m->n_sp);
  m->unit = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, m->n_sp + 1);
  m->nb = m->nu = 0;
  for (int d = 0; d < m->n_sp; d++) {
    rlx_iter_var_t* iv = iv_of(b, st->indices[d]);
    if (iv == m->i || iv == m->j) continue;
    if (is_unit(iv)) {
      m->unit[m->nu++] = iv;
      continue;
    }
    if (!load_uses(x, iv) && !load_uses(y, iv))
      return (*why = "an output axis indexes neither operand (a broadcast result)"), false;
    m->batch[m->nb++] = iv;
  }
  if (is_unit(m->k)) m->unit[m->nu++] = m->k;
  m->a = alo;
  m->b = bl;
  m->c = st->buffer;
  m->br = br;
  /* the loop nest: a chain of loops, each bound to exactly one iter var (value = loop var);
   * a unit axis may instead be bound to the constant 0 (its extent-1 loop simplified away or
   * left unused) */
  int top = sched_parent_block_index(p, p->n - 1);
  rlx_tir_stmt_t* r = p->s[p->n - 1];
  int nloops = 0;
  for (int i = p->n - 2; i > top; i--) {
    if (p->s[i]->kind != RLX_STMT_FOR || RLX_AS(rlx_tir_for_t, p->s[i])->body != r) break;
    r = p->s[i];
    nloops++;
  }
  int bound = 0;
  for (int i = 0; i < br->n_values; i++) {
    rlx_expr_t* val = br->iter_values[i];
    int64_t c;
    if (rlx_expr_is_const_int(val, &c) && c == 0 && is_unit(b->iter_vars[i])) continue;
    bool found = false;
    for (int q = p->n - 1 - nloops; q < p->n - 1; q++) {
      rlx_tir_for_t* f = RLX_AS(rlx_tir_for_t, p->s[q]);
      if (val == &f->var->hdr) {
        int64_t mn;
        found = rlx_expr_is_const_int(f->min, &mn) && mn == 0 && rlx_expr_equal(f->extent, b->iter_vars[i]->dom.extent);
      }
    }
    if (!found) return (*why = "an axis is not bound to its own loop"), false;
    bound++;
  }
  for (int q = p->n - 1 - nloops; q < p->n - 1; q++) {
    rlx_tir_for_t* f = RLX_AS(rlx_tir_for_t, p->s[q]);
    int64_t e;
    bool used = false;
    for (int i = 0; i < br->n_values && !used; i++) used = br->iter_values[i] == &f->var->hdr;
    if (!used && !(rlx_expr_is_const_int(f->extent, &e) && e == 1))
      return (*why = "the loop nest has a loop bound to no axis"), false;
  }
  if (bound > nloops) return (*why = "the loop nest is not one loop per axis (already transformed?)"), false;
  m->nest = r;
  return true;
}

static rlx_expr_t* ci(rlx_ctx_t* ctx, rlx_dtype_t t, int64_t v) { return rlx_ir_int(ctx, t, v); }

static rlx_expr_t* as_t(rlx_ctx_t* ctx, rlx_dtype_t t, rlx_expr_t* e) {
  return rlx_dtype_eq(e->dtype, t) ? e : rlx_ir_cast(ctx, t, e);
}

/* An opaque block (no iter vars) around body, with regions recomputed. */
static rlx_tir_stmt_t* opaque(rlx_ctx_t* ctx, const char* name, rlx_tir_stmt_t* body, rlx_expr_t* pred, int n_alloc,
                              rlx_tir_buffer_t** allocs) {
  rlx_tir_block_t* b = RLX_NEW(ctx, rlx_tir_block_t);
  b->name = name;
  b->body = body;
  b->n_alloc_buffers = n_alloc;
  b->alloc_buffers = allocs;
  b = sched_block_recompute_regions(ctx, b);
  if (n_alloc) {
    /* the body has inner loops: whole-buffer regions, without the block's own buffers */
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
  }
  return rlx_tir_block_realize(ctx, 0, NULL, pred, b);
}

/* The epilogue: output buffer, its index expressions and the stored value. */
typedef struct {
  rlx_tir_buffer_t* out;
  int n;
  rlx_expr_t** idx;
  rlx_expr_t* value;
} epi_t;

static rlx_expr_t* epi_load(rlx_ctx_t* ctx, rlx_buffer_load_t* l, void* user) { return ((epi_t*)user)->value; }

/* Iter vars of the block bound to the constant 0 (unit axes whose loop was simplified). */
static int count_zero_bound(const rlx_tir_block_realize_t* br) {
  int n = 0;
  for (int v = 0; v < br->n_values; v++) {
    int64_t c;
    n += rlx_expr_is_const_int(br->iter_values[v], &c) && c == 0 && is_unit(br->block->iter_vars[v]);
  }
  return n;
}

/* Folds the single elementwise consumer of e->out (an intermediate buffer) into the epilogue.
 * self_reads: blocks other than the consumer known to read e->out (the matmul itself). Returns the consumer's nest root to delete, or NULL when there is none that fits. */
static rlx_tir_stmt_t* absorb_consumer(rlx_schedule_t* s, epi_t* e, rlx_tir_stmt_t* root_body, int self_reads) {
  rlx_ctx_t* ctx = s->ctx;
  if (sched_is_param_buffer(s->func, e->out)) return NULL;
  if (sched_count_readers(root_body, e->out) != 1 + self_reads || sched_count_writers(root_body, e->out) != 1)
    return NULL;
  /* find the reader among the root's nests */
  rlx_tir_stmt_t* body = root_body;
  rlx_tir_seq_t* seq = body->kind == RLX_STMT_SEQ ? RLX_AS(rlx_tir_seq_t, body) : NULL;
  int n = seq ? seq->n : 1;
  for (int si = 0; si < n; si++) {
    rlx_tir_stmt_t* nest = seq ? seq->stmts[si] : body;
    rlx_tir_stmt_t* t = nest;
    int depth = 0;
    while (t->kind == RLX_STMT_FOR) {
      t = RLX_AS(rlx_tir_for_t, t)->body;
      depth++;
    }
    if (t->kind != RLX_STMT_BLOCK_REALIZE) continue;
    rlx_tir_block_realize_t* br = RLX_AS(rlx_tir_block_realize_t, t);
    const rlx_tir_block_t* b = br->block;
    if (!sched_stmt_loads(b->body, e->out) || b->init) continue;
    /* elementwise: a single store, spatial iter vars bound 1:1 to the nest's loops (a unit
     * iter var may be bound to 0 instead, and its extent-1 loop bound to nothing) */
    if (b->init || br->predicate || b->n_alloc_buffers || !b->body || b->body->kind != RLX_STMT_BUFFER_STORE) return NULL;
    if (depth < b->n_iter_vars - count_zero_bound(br)) return NULL;
    rlx_tir_store_t* st = RLX_AS(rlx_tir_store_t, b->body);
    if (sched_count_writers(root_body, st->buffer) != 1 || st->buffer == e->out) return NULL;
    for (int i = 0; i < b->n_iter_vars; i++)
      if (b->iter_vars[i]->kind != RLX_ITER_SPATIAL) return NULL;
    {
      rlx_tir_stmt_t* f = nest;
      for (int i = 0; i < depth; i++) {
        rlx_tir_for_t* fl = RLX_AS(rlx_tir_for_t, f);
        bool bound = false;
        for (int v = 0; v < br->n_values; v++)
          bound = bound || (br->iter_values[v] == &fl->var->hdr &&
                            rlx_expr_equal(fl->extent, b->iter_vars[v]->dom.extent));
        int64_t mn, ext;
        if (!bound && !(rlx_expr_is_const_int(fl->extent, &ext) && ext == 1)) return NULL;
        if (!rlx_expr_is_const_int(fl->min, &mn) || mn != 0) return NULL;
        f = fl->body;
      }
      for (int v = 0; v < br->n_values; v++) {
        int64_t c;
        if (rlx_expr_is_const_int(br->iter_values[v], &c) && c == 0 && is_unit(b->iter_vars[v])) continue;
        if (br->iter_values[v]->kind != RLX_EXPR_VAR) return NULL;
      }
    }
    /* other buffers read must be parameters */
    for (int r = 0; r < b->n_reads; r++)
      if (b->reads[r].buffer != e->out && !sched_is_param_buffer(s->func, b->reads[r].buffer)) return NULL;
    /* every load of e->out at one index = all iter vars once, with matching domains */
    typedef struct {
      const rlx_buffer_load_t* first;
      bool differ;
    } li_t;
    li_t li = {NULL, false};
    RLX_VEC(const rlx_expr_t*) stack = {0};
    rlx_vec_push(&stack, st->value);
    while (stack.len) {
      const rlx_expr_t* x = stack.data[--stack.len];
      if (x->kind == RLX_EXPR_BUFFER_LOAD && RLX_AS(const rlx_buffer_load_t, x)->buffer == e->out) {
        const rlx_buffer_load_t* l = RLX_AS(const rlx_buffer_load_t, x);
        if (!li.first) li.first = l;
        else
          for (int d = 0; d < l->n_indices; d++)
            li.differ = li.differ || !rlx_expr_equal(l->indices[d], li.first->indices[d]);
      }
      rlx_expr_t* kids[16];
      int nk = rlx_expr_children(x, kids, 16);
      for (int k = 0; k < nk && k < 16; k++) rlx_vec_push(&stack, kids[k]);
    }
    rlx_vec_free(&stack);
    for (int d = 0; d < st->n_indices; d++)
      if (sched_expr_loads(st->indices[d], e->out)) return NULL;
    if (!li.first || li.differ || li.first->n_indices != e->n) return NULL;
    /* each index of the load: a distinct axis spanning that dimension, or 0 on a unit
     * dimension; the consumer's other axes must have extent 1 */
    rlx_ptrmap_t vm = {0};
    bool ok = true;
    for (int d = 0; d < e->n && ok; d++) {
      int64_t c, mn;
      if (rlx_expr_is_const_int(li.first->indices[d], &c)) {
        ok = c == 0 && rlx_expr_is_const_int(e->out->shape[d], &mn) && mn == 1;
        continue;
      }
      int k = sched_iter_index(b, li.first->indices[d]);
      for (int q = 0; q < d && k >= 0; q++)
        if (li.first->indices[q] == li.first->indices[d]) k = -1;
      if (k < 0 || !rlx_expr_same_value(b->iter_vars[k]->dom.extent, e->out->shape[d]) ||
          !rlx_expr_is_const_int(b->iter_vars[k]->dom.min, &mn) || mn != 0) {
        ok = false;
        break;
      }
      rlx_ptrmap_put(&vm, b->iter_vars[k]->var, as_t(ctx, b->iter_vars[k]->var->hdr.dtype, e->idx[d]));
    }
    for (int i = 0; i < b->n_iter_vars && ok; i++) {
      rlx_iter_var_t* iv = b->iter_vars[i];
      if (rlx_ptrmap_get(&vm, iv->var)) continue;
      if (!is_unit(iv)) ok = false;
      else rlx_ptrmap_put(&vm, iv->var, ci(ctx, iv->var->hdr.dtype, 0));
    }
    if (!ok) {
      rlx_ptrmap_free(&vm);
      return NULL;
    }
    rlx_expr_t* nv = rlx_expr_substitute(ctx, st->value, &vm);
    nv = sched_replace_loads(ctx, nv, e->out, epi_load, e);
    rlx_expr_t** nidx = RLX_NEW_ARRAY(ctx, rlx_expr_t*, st->n_indices);
    for (int d = 0; d < st->n_indices; d++) nidx[d] = rlx_expr_substitute(ctx, st->indices[d], &vm);
    rlx_ptrmap_free(&vm);
    e->out = st->buffer;
    e->n = st->n_indices;
    e->idx = nidx;
    e->value = nv;
    return nest;
  }
  return NULL;
}

/* Nest of loops (outermost first) around body. */
static rlx_tir_stmt_t* wrap(rlx_ctx_t* ctx, int n, rlx_var_t** v, rlx_expr_t** ext, rlx_for_kind_t* kind,
                            rlx_tir_stmt_t* body) {
  for (int i = n - 1; i >= 0; i--) body = rlx_tir_for(ctx, v[i], ci(ctx, v[i]->hdr.dtype, 0), ext[i], kind[i], body);
  return body;
}

/* B is parameter *out_param of the function, marked constant in "rlx.const_params" (a bit
 * mask), read by no other block, and indexed by k at *out_kdim, by j at *out_jdim and by 0
 * (or a unit axis) everywhere else: then it can be packed at compile time. */
static bool const_b_param(const rlx_tir_func_t* f, rlx_tir_stmt_t* root_body, const mm_t* m, int* out_param,
                          int* out_kdim, int* out_jdim) {
  int64_t mask;
  if (!rlx_expr_is_const_int(rlx_tir_func_get_attr(f, "rlx.const_params"), &mask)) return false;
  int p = -1;
  for (int i = 0; i < f->n_params && i < 63; i++)
    if (f->buffer_map[i] == m->b->buffer && (mask >> i & 1)) p = i;
  if (p < 0 || sched_count_readers(root_body, m->b->buffer) != 1) return false;
  int kd = -1, jd = -1;
  const rlx_buffer_load_t* l = m->b;
  for (int d = 0; d < l->n_indices; d++) {
    int64_t c, e;
    if (l->indices[d] == &m->k->var->hdr) kd = d;
    else if (l->indices[d] == &m->j->var->hdr) jd = d;
    else if (!rlx_expr_is_const_int(m->b->buffer->shape[d], &e) || e != 1 ||
             (rlx_expr_is_const_int(l->indices[d], &c) ? c != 0 : !is_unit_index(m, l->indices[d])))
      return false;
  }
  if (kd < 0 || jd < 0) return false;
  *out_param = p;
  *out_kdim = kd;
  *out_jdim = jd;
  return true;
}

/* Extent of an axis as an expression of dtype t; 1 for a missing axis. */
static rlx_expr_t* ext_of(rlx_ctx_t* ctx, rlx_dtype_t t, const rlx_iter_var_t* iv) {
  return iv ? as_t(ctx, t, iv->dom.extent) : ci(ctx, t, 1);
}

/* Where the update reads B: the constant parameter already packed (bpp: [NO, K, NR]), the
 * buffer packed at run time (bp: [batch of B.., NO, K, NR]), or B in place. */
typedef struct {
  const mm_t* m;
  rlx_dtype_t t;
  int64_t nr;
  rlx_tir_buffer_t* bpp;
  rlx_tir_buffer_t* bp;
  int nbb;                 /* batch axes of B (bp's leading dims) */
  rlx_iter_var_t** bbatch;
  rlx_expr_t** bexpr;      /* each batch axis of m as a function of the tile */
} b_src_t;

/* B's element of panel jo, row k, panel column lcol, in whichever layout the update reads. */
static rlx_expr_t* b_element(rlx_ctx_t* ctx, const b_src_t* s, rlx_expr_t* jo, rlx_expr_t* k, rlx_expr_t* lcol) {
  const mm_t* m = s->m;
  if (s->bpp) {
    rlx_expr_t* idx[3] = {jo, k, lcol};
    return rlx_ir_load(ctx, s->bpp, 3, idx);
  }
  if (s->bp) {
    rlx_expr_t** idx = RLX_NEW_ARRAY(ctx, rlx_expr_t*, s->nbb + 3);
    for (int d = 0; d < s->nbb; d++) {
      int q = 0;
      while (m->batch[q] != s->bbatch[d]) q++;
      idx[d] = s->bexpr[q];
    }
    idx[s->nbb] = jo;
    idx[s->nbb + 1] = k;
    idx[s->nbb + 2] = lcol;
    return rlx_ir_load(ctx, s->bp, s->nbb + 3, idx);
  }
  rlx_ptrmap_t vm = {0};
  for (int d = 0; d < m->nb; d++) rlx_ptrmap_put(&vm, m->batch[d]->var, as_t(ctx, m->batch[d]->var->hdr.dtype, s->bexpr[d]));
  for (int d = 0; d < m->nu; d++) rlx_ptrmap_put(&vm, m->unit[d]->var, ci(ctx, m->unit[d]->var->hdr.dtype, 0));
  rlx_ptrmap_put(&vm, m->k->var, as_t(ctx, m->k->var->hdr.dtype, k));
  rlx_expr_t* col = rlx_ir_add(ctx, rlx_ir_mul(ctx, jo, ci(ctx, s->t, s->nr)), lcol);
  rlx_ptrmap_put(&vm, m->j->var, as_t(ctx, m->j->var->hdr.dtype, col));
  rlx_expr_t* v = rlx_expr_substitute(ctx, &m->b->hdr, &vm);
  rlx_ptrmap_free(&vm);
  return v;
}

static rlx_expr_t* ceil_div(rlx_ctx_t* ctx, rlx_dtype_t t, rlx_expr_t* a, int64_t b) {
  int64_t v;
  if (rlx_expr_is_const_int(a, &v)) return ci(ctx, t, (v + b - 1) / b);
  return rlx_ir_simplify(ctx, rlx_ir_floordiv(ctx, rlx_ir_add(ctx, a, ci(ctx, t, b - 1)), ci(ctx, t, b)));
}

RLX_MUST_USE rlx_status_t* sched_default_matmul(rlx_schedule_t* s, const char* block, bool* out_applied, const char** out_why) {
  rlx_ctx_t* ctx = s->ctx;
  *out_applied = false;
  *out_why = NULL;
  sched_path_t* p = malloc(sizeof(*p));
  if (!p) return rlx_status_create(RLX_OUT_OF_MEMORY, "default schedule");
  mm_t m;
  memset(&m, 0, sizeof(m));
  if (!sched_path_to_block(s->func->body, block, p) || !match_matmul(ctx, p, &m, out_why)) {
    free(p);
    return NULL;
  }
  int top = sched_parent_block_index(p, p->n - 1);
  rlx_tir_block_realize_t* root_br = top >= 0 ? RLX_AS(rlx_tir_block_realize_t, p->s[top]) : NULL;
  free(p);
  if (!root_br) {
    *out_why = "the block is not under a root block";
    return NULL;
  }
  const rlx_tir_block_t* b = m.br->block;
  int64_t N = -1, K = -1, M = 1;
  bool n_const = rlx_expr_is_const_int(m.j->dom.extent, &N);
  bool k_const = rlx_expr_is_const_int(m.k->dom.extent, &K);
  bool m_const = !m.i || rlx_expr_is_const_int(m.i->dom.extent, &M);
  bool all_const = m_const && n_const && k_const;
  rlx_dtype_t t = m.j->var->hdr.dtype;
  int nb = m.nb;
  /* register tile from the target (machine.c): MR rows (fewer when M is smaller), NR = NV
   * vectors of VL lanes (fewer vectors when N is narrower) */
  const sched_machine_t mach = sched_machine(ctx);
  const sched_tile_t tl = sched_machine_tile(&mach, m_const ? M : -1, n_const ? N : -1);
  const int64_t VL = sched_machine_lanes(&mach, 4), MR = tl.mr, NR = (int64_t)tl.nv * VL;
  const int64_t L2 = mach.cache[1];
  int64_t mr = m_const && M < MR ? M : MR;
  int64_t nr = n_const && N < NR ? (N + VL - 1) / VL * VL : NR;

  rlx_expr_t* Nx = as_t(ctx, t, m.j->dom.extent);
  rlx_expr_t* Kx = as_t(ctx, t, m.k->dom.extent);
  rlx_expr_t* Mx = ext_of(ctx, t, m.i);
  rlx_expr_t* NOx = ceil_div(ctx, t, Nx, nr);
  /* rows are walked in blocks of up to MB micro-tiles so that the A rows of a block stay in
   * L2 while the block sweeps the panels of B, and each panel is reused by the block's tiles:
   * the block's A rows take at most a quarter of the target's L2 (the rest holds the panel,
   * C and the next panel's prefetch), and there are 2 tiles per block at least */
  int64_t mt_const = m_const ? (M + mr - 1) / mr : -1;
  int64_t mb_max = MB;
  if (k_const && mb_max * mr * K * 4 > L2 / 4) mb_max = L2 / 4 / (mr * K * 4) > 2 ? L2 / 4 / (mr * K * 4) : 2;
  int64_t mb = m_const && mt_const < mb_max ? mt_const : mb_max;
  int64_t mc = mr * mb;
  rlx_expr_t* MO = ceil_div(ctx, t, Mx, mc);
  bool m_tail = !m_const || M % mc != 0;
  bool row_clamp = !m_const || M % mr != 0;
  bool n_tail = !n_const || N % nr != 0;
  rlx_iter_var_t** batch = m.batch;
  int64_t macs = all_const ? M * N * K : -1;
  int64_t a_tiles = m_const ? mt_const : -1; /* row tiles that reuse each panel of B */
  for (int d = 0; d < nb; d++) {
    int64_t e;
    bool c = rlx_expr_is_const_int(batch[d]->dom.extent, &e);
    if (!c) macs = -1;
    else if (macs >= 0) macs *= e;
    if (!load_uses(m.b, batch[d]) && a_tiles >= 0) a_tiles = c ? a_tiles * e : -1;
  }
  /* Packing B into NR-wide panels pays off when B is much bigger than L2 (twice the target's)
   * and many row tiles reuse each panel (1024^3: +30 %); otherwise the tiles read B in place,
   * which saves the packing pass and its buffer (the transformer's 256x1024 weights: -30 % at
   * 2 threads).
   * Without packing, columns beyond N would read out of bounds, so N must divide into panels. */
  int64_t b_bytes = n_const && k_const ? N * K * 4 : -1;
  bool pack = n_tail || a_tiles < 0 || b_bytes < 0 || (a_tiles >= PACK_MIN_TILES && b_bytes > 2 * L2);
  /* threads only pay off above ~1M multiply-adds (and 64K packed elements) */
  bool par = macs < 0 || macs >= PAR_MACS;

  /* ---- packing of B */
  int nbb = 0;
  rlx_iter_var_t** bbatch = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, nb + 1);
  for (int d = 0; d < nb; d++)
    if (load_uses(m.b, batch[d])) bbatch[nbb++] = batch[d];
  int npl = nbb + 3;
  /* B a constant (the caller marks the parameter in "rlx.const_params"): the kernel reads a
   * parameter already in the packed layout, and the caller packs the constant at compile time
   * (listed in "rlx.packed_params"); no packing at run time whatever the sizes. */
  int bparam = -1, kdim = -1, jdim = -1;
  if (all_const && nbb == 0 && const_b_param(s->func, root_br->block->body, &m, &bparam, &kdim, &jdim)) pack = false;
  rlx_tir_buffer_t* bpp = NULL;
  if (bparam >= 0) {
    rlx_expr_t* shp[3] = {NOx, Kx, ci(ctx, t, nr)};
    bpp = rlx_tir_buffer_create(ctx, rlx_ctx_sprintf(ctx, "%s_packed", m.b->buffer->name), rlx_dt_float32(), 3, shp,
                                "global");
  }
  rlx_tir_buffer_t* bp = NULL;
  rlx_tir_stmt_t* pack_nest = NULL;
  if (pack) {
    rlx_expr_t** bp_shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, nbb + 3);
    for (int d = 0; d < nbb; d++) bp_shape[d] = bbatch[d]->dom.extent;
    bp_shape[nbb] = NOx;
    bp_shape[nbb + 1] = Kx;
    bp_shape[nbb + 2] = ci(ctx, t, nr);
    bp = rlx_tir_buffer_create(ctx, rlx_ctx_sprintf(ctx, "%s_packed", m.b->buffer->name), rlx_dt_float32(), nbb + 3,
                               bp_shape, "global");
    rlx_var_t** pl = RLX_NEW_ARRAY(ctx, rlx_var_t*, npl);
    rlx_expr_t** pext = RLX_NEW_ARRAY(ctx, rlx_expr_t*, npl);
    rlx_for_kind_t* pkind = RLX_NEW_ARRAY(ctx, rlx_for_kind_t, npl);
    for (int d = 0; d < nbb; d++) {
      pl[d] = rlx_ir_var(ctx, rlx_ctx_sprintf(ctx, "p_%s", bbatch[d]->var->name), t);
      pext[d] = as_t(ctx, t, bbatch[d]->dom.extent);
      pkind[d] = RLX_FOR_SERIAL;
    }
    pl[nbb] = rlx_ir_var(ctx, "p_jo", t);
    pl[nbb + 1] = rlx_ir_var(ctx, "p_k", t);
    pl[nbb + 2] = rlx_ir_var(ctx, "p_ji", t);
    pext[nbb] = NOx;
    pext[nbb + 1] = Kx;
    pext[nbb + 2] = ci(ctx, t, nr);
    pkind[nbb] = pkind[nbb + 1] = RLX_FOR_SERIAL;
    pkind[nbb + 2] = n_tail ? RLX_FOR_SERIAL : RLX_FOR_VECTORIZED;
    int64_t packed = n_const && k_const ? N * K : -1;
    for (int d = 0; d < nbb; d++) {
      int64_t e;
      if (!rlx_expr_is_const_int(bbatch[d]->dom.extent, &e)) packed = -1;
      else if (packed >= 0) packed *= e;
    }
    if (par && (packed < 0 || packed >= PAR_ELEMS)) pkind[0] = RLX_FOR_PARALLEL;
    rlx_expr_t* pcol = rlx_ir_add(ctx, rlx_ir_mul(ctx, &pl[nbb]->hdr, ci(ctx, t, nr)), &pl[nbb + 2]->hdr);
    rlx_ptrmap_t vm = {0};
    for (int d = 0; d < nbb; d++) rlx_ptrmap_put(&vm, bbatch[d]->var, as_t(ctx, bbatch[d]->var->hdr.dtype, &pl[d]->hdr));
    for (int d = 0; d < m.nu; d++) rlx_ptrmap_put(&vm, m.unit[d]->var, ci(ctx, m.unit[d]->var->hdr.dtype, 0));
    rlx_ptrmap_put(&vm, m.k->var, as_t(ctx, m.k->var->hdr.dtype, &pl[nbb + 1]->hdr));
    rlx_ptrmap_put(&vm, m.j->var, as_t(ctx, m.j->var->hdr.dtype, pcol));
    rlx_expr_t* bval = rlx_expr_substitute(ctx, &m.b->hdr, &vm);
    rlx_ptrmap_free(&vm);
    if (n_tail) {
      rlx_expr_t* args[3] = {rlx_ir_cmp(ctx, RLX_EXPR_LT, pcol, Nx), bval, rlx_ir_float(ctx, rlx_dt_float32(), 0)};
      bval = rlx_ir_call(ctx, rlx_dt_float32(), "if_then_else", 3, args);
    }
    rlx_expr_t** pidx = RLX_NEW_ARRAY(ctx, rlx_expr_t*, npl);
    for (int d = 0; d < npl; d++) pidx[d] = &pl[d]->hdr;
    pack_nest = opaque(ctx, sched_unique_block_name(s, rlx_ctx_sprintf(ctx, "%s_pack", m.b->buffer->name)),
                       rlx_tir_store(ctx, bp, bval, npl, pidx), NULL, 0, NULL);
    pack_nest = wrap(ctx, npl, pl, pext, pkind, pack_nest);
  }

  /* ---- outer loop: (batch x MO row blocks) x NO panels fused into one loop (parallel), so
   * that threads split the work even when there are few row blocks */
  rlx_expr_t* bo_ext = MO;
  for (int d = 0; d < nb; d++) bo_ext = rlx_ir_mul(ctx, as_t(ctx, t, batch[d]->dom.extent), bo_ext);
  bo_ext = rlx_ir_simplify(ctx, bo_ext);
  rlx_var_t* tv_out = rlx_ir_var(ctx, "tile", t);
  rlx_expr_t* out_ext = rlx_ir_simplify(ctx, rlx_ir_mul(ctx, bo_ext, NOx));
  int64_t no_c;
  bool one_panel = rlx_expr_is_const_int(NOx, &no_c) && no_c == 1;
  rlx_expr_t* bo = one_panel ? &tv_out->hdr : rlx_ir_floordiv(ctx, &tv_out->hdr, NOx);
  rlx_expr_t* jo = one_panel ? ci(ctx, t, 0) : rlx_ir_floormod(ctx, &tv_out->hdr, NOx);
  int64_t mo_c;
  bool one_block = rlx_expr_is_const_int(MO, &mo_c) && mo_c == 1;
  rlx_expr_t* io = nb && !one_block ? rlx_ir_floormod(ctx, bo, MO) : (one_block ? ci(ctx, t, 0) : bo);
  rlx_expr_t** bexpr = RLX_NEW_ARRAY(ctx, rlx_expr_t*, nb + 1);
  {
    rlx_expr_t* stride = MO;
    for (int d = nb - 1; d >= 0; d--) {
      rlx_expr_t* v = one_block && stride == MO ? bo : rlx_ir_floordiv(ctx, bo, stride);
      if (d > 0) v = rlx_ir_floormod(ctx, v, as_t(ctx, t, batch[d]->dom.extent));
      bexpr[d] = v;
      stride = rlx_ir_mul(ctx, stride, as_t(ctx, t, batch[d]->dom.extent));
    }
  }
  rlx_var_t* ib = rlx_ir_var(ctx, "ib", t);
  /* micro-tiles in this row block: mb, fewer in the last block of a tail (ceil(M/mr) in all) */
  rlx_expr_t* ib_ext = ci(ctx, t, mb);
  if (m_tail && mb > 1) {
    rlx_expr_t* mt = ceil_div(ctx, t, Mx, mr);
    ib_ext = rlx_ir_min(ctx, ib_ext, rlx_ir_sub(ctx, mt, rlx_ir_mul(ctx, io, ci(ctx, t, mb))));
  }
  io = rlx_ir_add(ctx, rlx_ir_mul(ctx, io, ci(ctx, t, mb)), &ib->hdr);
  rlx_var_t* kk = rlx_ir_var(ctx, "k", t);
  /* tile loops (three copies: init, update, store) */
  rlx_tir_buffer_t* cl;
  {
    rlx_expr_t* shp[2] = {ci(ctx, t, mr), ci(ctx, t, nr)};
    cl = rlx_tir_buffer_create(ctx, rlx_ctx_sprintf(ctx, "%s_local", m.c->name), rlx_dt_float32(), 2, shp, "local");
  }
  const b_src_t be = {&m, t, nr, bpp, pack ? bp : NULL, nbb, bbatch, bexpr};
  rlx_tir_stmt_t* stage[3];
  const char* stage_name[3] = {"init", "update", "store"};
  rlx_tir_stmt_t* absorbed[MAX_ABSORB];
  int n_absorbed = 0;
  for (int sg = 0; sg < 3; sg++) {
    rlx_var_t* tv[3] = {rlx_ir_var(ctx, "ii", t), rlx_ir_var(ctx, "jv", t), rlx_ir_var(ctx, "jl", t)};
    rlx_expr_t* text[3] = {ci(ctx, t, mr), ci(ctx, t, nr / VL), ci(ctx, t, VL)};
    rlx_for_kind_t tk[3] = {RLX_FOR_UNROLLED, RLX_FOR_UNROLLED, RLX_FOR_VECTORIZED};
    rlx_expr_t* lcol = rlx_ir_add(ctx, rlx_ir_mul(ctx, &tv[1]->hdr, ci(ctx, t, VL)), &tv[2]->hdr);
    rlx_expr_t* lidx[2] = {&tv[0]->hdr, lcol};
    rlx_expr_t* row = rlx_ir_add(ctx, rlx_ir_mul(ctx, io, ci(ctx, t, mr)), &tv[0]->hdr);
    rlx_expr_t* col = rlx_ir_add(ctx, rlx_ir_mul(ctx, jo, ci(ctx, t, nr)), lcol);
    rlx_tir_stmt_t* body = NULL;
    rlx_expr_t* pred = NULL;
    if (sg == 0) {
      body = rlx_tir_store(ctx, cl, rlx_ir_float(ctx, rlx_dt_float32(), 0), 2, lidx);
    } else if (sg == 1) {
      rlx_expr_t* arow = row_clamp ? rlx_ir_min(ctx, row, rlx_ir_sub(ctx, Mx, ci(ctx, t, 1))) : row;
      rlx_ptrmap_t am = {0};
      for (int d = 0; d < nb; d++) rlx_ptrmap_put(&am, batch[d]->var, as_t(ctx, batch[d]->var->hdr.dtype, bexpr[d]));
      for (int d = 0; d < m.nu; d++) rlx_ptrmap_put(&am, m.unit[d]->var, ci(ctx, m.unit[d]->var->hdr.dtype, 0));
      if (m.i) rlx_ptrmap_put(&am, m.i->var, as_t(ctx, m.i->var->hdr.dtype, arow));
      rlx_ptrmap_put(&am, m.k->var, as_t(ctx, m.k->var->hdr.dtype, &kk->hdr));
      rlx_expr_t* aval = rlx_expr_substitute(ctx, &m.a->hdr, &am);
      rlx_ptrmap_free(&am);
      rlx_expr_t* prod = rlx_ir_mul(ctx, aval, b_element(ctx, &be, jo, &kk->hdr, lcol));
      body = rlx_tir_store(ctx, cl, rlx_ir_add(ctx, rlx_ir_load(ctx, cl, 2, lidx), prod), 2, lidx);
    } else {
      epi_t e;
      e.out = m.c;
      e.n = m.n_sp;
      e.idx = RLX_NEW_ARRAY(ctx, rlx_expr_t*, m.n_sp);
      rlx_tir_store_t* st = RLX_AS(rlx_tir_store_t, b->body);
      for (int d = 0; d < m.n_sp; d++) {
        rlx_iter_var_t* iv = iv_of(b, st->indices[d]);
        rlx_expr_t* v = ci(ctx, t, 0);
        if (iv == m.i) v = row;
        else if (iv == m.j) v = col;
        else
          for (int q = 0; q < nb; q++)
            if (iv == batch[q]) v = bexpr[q];
        e.idx[d] = as_t(ctx, iv->var->hdr.dtype, v);
      }
      e.value = rlx_ir_load(ctx, cl, 2, lidx);
      rlx_tir_stmt_t* root_body = root_br->block->body;
      while (n_absorbed < MAX_ABSORB) {
        /* the matmul block itself reads C (accumulation) */
        rlx_tir_stmt_t* nest = absorb_consumer(s, &e, root_body, n_absorbed == 0 ? 1 : 0);
        if (!nest) break;
        absorbed[n_absorbed++] = nest;
      }
      body = rlx_tir_store(ctx, e.out, e.value, e.n, e.idx);
      if (m_tail) pred = rlx_ir_cmp(ctx, RLX_EXPR_LT, row, Mx);
      if (n_tail) {
        rlx_expr_t* c2 = rlx_ir_cmp(ctx, RLX_EXPR_LT, col, Nx);
        pred = pred ? rlx_ir_and(ctx, pred, c2) : c2;
      }
    }
    const char* nm = sched_unique_block_name(s, rlx_ctx_sprintf(ctx, "%s_%s", b->name, stage_name[sg]));
    stage[sg] = wrap(ctx, 3, tv, text, tk, opaque(ctx, nm, body, pred, 0, NULL));
  }
  /* Prefetch of the next panel of B: a tile's row blocks read its panel from L1/L2 after the
   * first, but the first waits on L3 or memory for every line, as weights do not stay in L2
   * between a network's layers. So each k step of every row tile also prefetches (into L2)
   * one line of the panel the next tile reads: over the mb x K steps of a tile, the element
   * floor((ib*K + k) * nr / mb) of the next panel, which covers it. Only for weights that
   * are not in L2 anyway (>= L2 / 8: 128 KB with 1 MB; one matrix for all batches) and tiles
   * of several row blocks; M <= MR (a GEMV) reads each panel once, and the hardware
   * prefetcher follows. */
  int64_t no_n;
  if (all_const && mb >= 2 && nbb == 0 && b_bytes >= L2 / 8 && rlx_expr_is_const_int(NOx, &no_n) && no_n > 1) {
    rlx_expr_t* jn = rlx_ir_floormod(ctx, rlx_ir_add(ctx, jo, ci(ctx, t, 1)), NOx);
    rlx_expr_t* q = rlx_ir_add(ctx, rlx_ir_mul(ctx, &ib->hdr, Kx), &kk->hdr);
    rlx_expr_t* f = rlx_ir_floordiv(ctx, rlx_ir_mul(ctx, q, ci(ctx, t, nr)), ci(ctx, t, mb));
    rlx_expr_t* el = b_element(ctx, &be, jn, rlx_ir_floordiv(ctx, f, ci(ctx, t, nr)), rlx_ir_floormod(ctx, f, ci(ctx, t, nr)));
    rlx_expr_t* addr = rlx_ir_call(ctx, rlx_dt_handle(), "address_of", 1, &el);
    rlx_expr_t* args[4] = {addr, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, 2), rlx_ir_i32(ctx, 1)};
    rlx_tir_stmt_t* two[2] = {rlx_tir_evaluate(ctx, rlx_ir_call(ctx, rlx_dt_int32(), "prefetch", 4, args)), stage[1]};
    stage[1] = rlx_tir_seq(ctx, 2, two);
  }
  stage[1] = rlx_tir_for(ctx, kk, ci(ctx, t, 0), Kx, RLX_FOR_SERIAL, stage[1]);
  rlx_tir_buffer_t** allocs = RLX_NEW_ARRAY(ctx, rlx_tir_buffer_t*, 1);
  allocs[0] = cl;
  rlx_tir_stmt_t* tile = opaque(ctx, sched_unique_block_name(s, rlx_ctx_sprintf(ctx, "%s_tile", b->name)),
                                rlx_tir_seq(ctx, 3, stage), NULL, 1, allocs);
  rlx_tir_stmt_t* compute = rlx_tir_for(ctx, ib, ci(ctx, t, 0), ib_ext, RLX_FOR_SERIAL, tile);
  compute = rlx_tir_for(ctx, tv_out, ci(ctx, t, 0), out_ext, par ? RLX_FOR_PARALLEL : RLX_FOR_SERIAL, compute);

  /* ---- install: replace the matmul nest, drop absorbed nests and buffers, allocate Bp.
   * With a symbolic M the kernel runs only when M >= MIN_ROWS; otherwise the original nests
   * (matmul and absorbed consumers) run, scheduled later as a plain reduction / elementwise. */
  rlx_tir_stmt_t* kernel = compute;
  if (pack) {
    rlx_tir_stmt_t* both[2] = {pack_nest, compute};
    kernel = rlx_tir_seq(ctx, 2, both);
  }
  rlx_tir_stmt_t* body = s->func->body;
  rlx_tir_buffer_t* dropped[MAX_ABSORB + 1];
  int n_dropped = 0;
  if (n_absorbed && all_const) dropped[n_dropped++] = m.c;
  rlx_tir_stmt_t* fallback[MAX_ABSORB + 1];
  int n_fallback = 0;
  fallback[n_fallback++] = m.nest;
  for (int i = 0; i < n_absorbed; i++) {
    rlx_tir_block_realize_t* cbr;
    rlx_tir_stmt_t* t2 = absorbed[i];
    while (t2->kind == RLX_STMT_FOR) t2 = RLX_AS(rlx_tir_for_t, t2)->body;
    cbr = RLX_AS(rlx_tir_block_realize_t, t2);
    if (i + 1 < n_absorbed && all_const) dropped[n_dropped++] = RLX_AS(rlx_tir_store_t, cbr->block->body)->buffer;
    body = sched_replace(ctx, body, absorbed[i], NULL);
    fallback[n_fallback++] = absorbed[i];
  }
  if (!all_const) {
    rlx_expr_t* big = rlx_ir_bool(ctx, true);
    if (!m_const) big = rlx_ir_and(ctx, big, rlx_ir_cmp(ctx, RLX_EXPR_GE, Mx, ci(ctx, t, MIN_ROWS)));
    if (!n_const) big = rlx_ir_and(ctx, big, rlx_ir_cmp(ctx, RLX_EXPR_GE, Nx, ci(ctx, t, NR)));
    if (!k_const) big = rlx_ir_and(ctx, big, rlx_ir_cmp(ctx, RLX_EXPR_GE, Kx, ci(ctx, t, MIN_ROWS)));
    kernel = rlx_tir_if(ctx, big, kernel, rlx_tir_seq(ctx, n_fallback, fallback));
  }
  body = sched_replace(ctx, body, m.nest, kernel);
  for (int i = 0; i < n_dropped; i++) body = sched_remove_alloc(ctx, body, dropped[i]);
  if (pack) {
    sched_path_t* q = malloc(sizeof(*q));
    if (!q) return rlx_status_create(RLX_OUT_OF_MEMORY, "default schedule");
    if (!sched_path_to_block(body, root_br->block->name, q)) {
      free(q);
      return rlx_status_create(RLX_INTERNAL, "default schedule: lost block '%s'", root_br->block->name);
    }
    rlx_tir_block_realize_t* rbr = RLX_AS(rlx_tir_block_realize_t, q->s[q->n - 1]);
    rlx_tir_block_t* rb = rlx_tir_block_copy(ctx, rbr->block);
    rb->alloc_buffers = RLX_NEW_ARRAY(ctx, rlx_tir_buffer_t*, rb->n_alloc_buffers + 1);
    for (int i = 0; i < rbr->block->n_alloc_buffers; i++) rb->alloc_buffers[i] = rbr->block->alloc_buffers[i];
    rb->alloc_buffers[rb->n_alloc_buffers++] = bp;
    body = sched_replace(ctx, body, &rbr->hdr, rlx_tir_block_realize(ctx, rbr->n_values, rbr->iter_values, rbr->predicate, rb));
    free(q);
  }
  sched_set_body(s, body);
  if (bpp) {
    /* the parameter's buffer becomes the packed one; the caller learns how to pack it */
    rlx_tir_func_t* nf = rlx_tir_func_copy(ctx, s->func);
    nf->buffer_map[bparam] = bpp;
    rlx_expr_t* prev = rlx_tir_func_get_attr(nf, "rlx.packed_params");
    const char* spec = rlx_ctx_sprintf(ctx, "%s%d,%d,%d,%lld;",
                                       prev && prev->kind == RLX_EXPR_STRING_IMM ? RLX_AS(rlx_string_imm_t, prev)->value : "",
                                       bparam, kdim, jdim, (long long)nr);
    s->func = rlx_tir_func_with_attr(ctx, nf, "rlx.packed_params", rlx_ir_string(ctx, spec));
  }
  /* with a fallback the original blocks are still there for the generic schedules */
  *out_applied = all_const;
  return NULL;
}
