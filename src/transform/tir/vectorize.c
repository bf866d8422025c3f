/* vectorize_loops: VECTORIZED loops → vector statements (Ramp / Broadcast expressions).
 *
 * Requires: no blocks; flat (1-D) buffer accesses (runs after flatten_buffers and
 * unroll_loops).
 * Produces: a VECTORIZED loop `for v in [min, min + L)` with constant L, 2 <= L <= N a power
 * of two, whose body is vectorizable, is replaced by its body with v → Ramp(min, 1, L)
 * pushed through the expressions. N is the target's native vector width in elements of the
 * widest data type the body loads or stores (rlx_target_vector_bytes: 16 float32 with
 * AVX-512, 8 with AVX2, 4 with SSE and NEON): GCC keeps a vector type wider than the ISA's
 * registers in memory and moves it piecewise, every operation a round trip through the
 * stack. A loop of L > N, L a multiple of N, is cut into L/N loops of N lanes first: an
 * unrolled sequence (constant offsets: a register-tile buffer indexed by them still becomes
 * vector variables in codegen) up to 16 chunks, else a serial loop over the chunks. Then:
 *   - index arithmetic stays in Ramp form where it is linear (Ramp ± s, Ramp * c, Ramp ± Ramp),
 *     so a contiguous access has index Ramp(base, 1, L); an invariant index stays scalar (the
 *     load is a scalar that is broadcast where it meets a vector);
 *   - other operations become vector-typed (lanes L), scalars meeting vectors are Broadcast;
 *   - loads with vector indices are vector loads (gathers when the index is not a unit Ramp).
 * Vectorizable bodies: stores, sequences, and ifs/lets/inner loops whose condition, value or
 * bounds do not depend on v. A store must write L distinct locations: its index must be a
 * Ramp with a non-zero constant stride (a store to a location invariant in v is a reduction
 * and keeps the loop). Anything else (Let expressions, Reduce, intrinsics with side effects,
 * allocations inside, already-vector code) leaves the loop unchanged: it stays a VECTORIZED
 * loop that codegen emits as a serial loop with a simd hint. Extent-1 loops are replaced by
 * their body with v → min.
 * A body `if (cond(v)) S` where cond is a conjunction of <, <=, >, >= between expressions
 * linear in v (the tail guard of a non-dividing split) becomes
 * `if (cond(min) && cond(min + L - 1)) <S vectorized> else <the original loop>`.
 */
#include "transform.h"

enum {
  VEC_MAX_UNROLL = 16 /* chunks of a wide loop emitted as a sequence (more: a serial loop) */
};

typedef struct {
  rlx_ctx_t* ctx;
  rlx_var_t* var;
  rlx_expr_t* base; /* value of var in lane 0 */
  int lanes;
  bool ok;
} vz_t;

static rlx_expr_t* bcast(vz_t* z, rlx_expr_t* e) {
  return e->dtype.lanes == z->lanes ? e : rlx_ir_broadcast(z->ctx, e, z->lanes);
}

static bool is_ramp(const rlx_expr_t* e) { return e->kind == RLX_EXPR_RAMP; }

static rlx_expr_t* vec_expr(vz_t* z, rlx_expr_t* e);

static rlx_expr_t* vec_binary(vz_t* z, rlx_binary_t* b) {
  rlx_ctx_t* ctx = z->ctx;
  rlx_expr_t* a = vec_expr(z, b->a);
  rlx_expr_t* c = vec_expr(z, b->b);
  if (!z->ok) return &b->hdr;
  rlx_expr_kind_t k = b->hdr.kind;
  bool int_t = rlx_dtype_is_int(b->hdr.dtype);
  if (int_t && (k == RLX_EXPR_ADD || k == RLX_EXPR_SUB)) {
    bool ra = is_ramp(a), rc = is_ramp(c);
    rlx_ramp_t* A = RLX_AS(rlx_ramp_t, a);
    rlx_ramp_t* C = RLX_AS(rlx_ramp_t, c);
    if (ra && c->dtype.lanes == 1)
      return rlx_ir_ramp(ctx, rlx_ir_binary(ctx, k, A->base, c), A->stride, z->lanes);
    if (rc && a->dtype.lanes == 1) {
      rlx_expr_t* stride = k == RLX_EXPR_ADD ? C->stride : rlx_ir_sub(ctx, rlx_ir_int(ctx, C->stride->dtype, 0), C->stride);
      return rlx_ir_ramp(ctx, rlx_ir_binary(ctx, k, a, C->base), stride, z->lanes);
    }
    if (ra && rc)
      return rlx_ir_ramp(ctx, rlx_ir_binary(ctx, k, A->base, C->base), rlx_ir_binary(ctx, k, A->stride, C->stride),
                         z->lanes);
  }
  if (int_t && k == RLX_EXPR_MUL) {
    if (is_ramp(a) && c->dtype.lanes == 1)
      return rlx_ir_ramp(ctx, rlx_ir_mul(ctx, RLX_AS(rlx_ramp_t, a)->base, c), rlx_ir_mul(ctx, RLX_AS(rlx_ramp_t, a)->stride, c),
                         z->lanes);
    if (is_ramp(c) && a->dtype.lanes == 1)
      return rlx_ir_ramp(ctx, rlx_ir_mul(ctx, a, RLX_AS(rlx_ramp_t, c)->base), rlx_ir_mul(ctx, a, RLX_AS(rlx_ramp_t, c)->stride),
                         z->lanes);
  }
  /* Ramp(b, 1, L) // d and % d with d a multiple of L and b a multiple of L: the lanes never
   * cross a multiple of d, so the quotient is uniform and the remainder a unit Ramp. */
  int64_t d, r0;
  if (int_t && (k == RLX_EXPR_FLOOR_DIV || k == RLX_EXPR_FLOOR_MOD) && is_ramp(a) && rlx_expr_is_const_int(c, &d) &&
      d > 0 && d % z->lanes == 0) {
    rlx_ramp_t* A = RLX_AS(rlx_ramp_t, a);
    int64_t st;
    rlx_expr_t* base_mod = rlx_ir_simplify(ctx, rlx_ir_floormod(ctx, A->base, rlx_ir_int(ctx, A->base->dtype, z->lanes)));
    if (rlx_expr_is_const_int(A->stride, &st) && st == 1 && rlx_expr_is_const_int(base_mod, &r0) && r0 == 0) {
      rlx_expr_t* q = rlx_ir_binary(ctx, k, A->base, c);
      return k == RLX_EXPR_FLOOR_DIV ? rlx_ir_broadcast(ctx, q, z->lanes) : rlx_ir_ramp(ctx, q, A->stride, z->lanes);
    }
  }
  return rlx_ir_binary(ctx, k, bcast(z, a), bcast(z, c));
}

static rlx_expr_t* vec_expr(vz_t* z, rlx_expr_t* e) {
  if (!z->ok || !rlx_expr_uses_var(e, z->var)) return e;
  rlx_ctx_t* ctx = z->ctx;
  switch (e->kind) {
    case RLX_EXPR_VAR:
      return rlx_ir_ramp(ctx, rlx_ir_cast(ctx, e->dtype, z->base), rlx_ir_int(ctx, e->dtype, 1), z->lanes);
    case RLX_EXPR_ADD:
    case RLX_EXPR_SUB:
    case RLX_EXPR_MUL:
    case RLX_EXPR_DIV:
    case RLX_EXPR_MOD:
    case RLX_EXPR_FLOOR_DIV:
    case RLX_EXPR_FLOOR_MOD:
    case RLX_EXPR_MIN:
    case RLX_EXPR_MAX:
    case RLX_EXPR_EQ:
    case RLX_EXPR_NE:
    case RLX_EXPR_LT:
    case RLX_EXPR_LE:
    case RLX_EXPR_GT:
    case RLX_EXPR_GE:
    case RLX_EXPR_AND:
    case RLX_EXPR_OR: return vec_binary(z, RLX_AS(rlx_binary_t, e));
    case RLX_EXPR_NOT: return rlx_ir_not(ctx, vec_expr(z, RLX_AS(rlx_not_t, e)->a));
    case RLX_EXPR_SELECT: {
      rlx_select_t* s = RLX_AS(rlx_select_t, e);
      rlx_expr_t* c = vec_expr(z, s->cond);
      rlx_expr_t* t = bcast(z, vec_expr(z, s->t));
      rlx_expr_t* f = bcast(z, vec_expr(z, s->f));
      return rlx_ir_select(ctx, c, t, f);
    }
    case RLX_EXPR_CAST: {
      rlx_expr_t* v = vec_expr(z, RLX_AS(rlx_cast_t, e)->value);
      return rlx_ir_cast(ctx, rlx_dtype_with_lanes(e->dtype, z->lanes), bcast(z, v));
    }
    case RLX_EXPR_BUFFER_LOAD: {
      rlx_buffer_load_t* l = RLX_AS(rlx_buffer_load_t, e);
      rlx_expr_t** idx = RLX_NEW_ARRAY(ctx, rlx_expr_t*, l->n_indices);
      int n_vec = 0;
      for (int i = 0; i < l->n_indices; i++) {
        idx[i] = vec_expr(z, l->indices[i]);
        n_vec += idx[i]->dtype.lanes > 1;
      }
      if (n_vec > 1) z->ok = false;
      /* a uniform index (Broadcast) is a scalar load, broadcast */
      for (int i = 0; i < l->n_indices; i++) {
        if (idx[i]->kind != RLX_EXPR_BROADCAST) continue;
        idx[i] = RLX_AS(rlx_broadcast_t, idx[i])->value;
        return rlx_ir_broadcast(ctx, rlx_ir_load(ctx, l->buffer, l->n_indices, idx), z->lanes);
      }
      return rlx_ir_load(ctx, l->buffer, l->n_indices, idx);
    }
    case RLX_EXPR_CALL: {
      rlx_call_t* c = RLX_AS(rlx_call_t, e);
      rlx_expr_t** args = RLX_NEW_ARRAY(ctx, rlx_expr_t*, c->n_args);
      for (int i = 0; i < c->n_args; i++) args[i] = vec_expr(z, c->args[i]);
      return rlx_ir_call(ctx, rlx_dtype_with_lanes(e->dtype, z->lanes), c->op, c->n_args, args);
    }
    case RLX_EXPR_INT_IMM:
    case RLX_EXPR_FLOAT_IMM:
    case RLX_EXPR_STRING_IMM: return e;
    case RLX_EXPR_LET:
    case RLX_EXPR_REDUCE:
    case RLX_EXPR_RAMP:
    case RLX_EXPR_BROADCAST:
    case RLX_EXPR_KIND_COUNT: break;
  }
  z->ok = false;
  return e;
}

static rlx_tir_stmt_t* vec_stmt(vz_t* z, rlx_tir_stmt_t* s) {
  if (!z->ok || !s) return s;
  rlx_ctx_t* ctx = z->ctx;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE: {
      rlx_tir_store_t* st = RLX_AS(rlx_tir_store_t, s);
      rlx_expr_t** idx = RLX_NEW_ARRAY(ctx, rlx_expr_t*, st->n_indices);
      int n_vec = 0;
      for (int i = 0; i < st->n_indices; i++) {
        idx[i] = vec_expr(z, st->indices[i]);
        if (idx[i]->dtype.lanes == 1) continue;
        n_vec++;
        int64_t stride;
        /* the store must hit L distinct locations in lane order */
        if (!is_ramp(idx[i]) || !rlx_expr_is_const_int(RLX_AS(rlx_ramp_t, idx[i])->stride, &stride) || stride == 0)
          z->ok = false;
      }
      if (n_vec != 1) z->ok = false;
      rlx_expr_t* value = bcast(z, vec_expr(z, st->value));
      return z->ok ? rlx_tir_store(ctx, st->buffer, value, st->n_indices, idx) : s;
    }
    case RLX_STMT_SEQ: {
      rlx_tir_seq_t* q = RLX_AS(rlx_tir_seq_t, s);
      rlx_tir_stmt_t** ns = RLX_NEW_ARRAY(ctx, rlx_tir_stmt_t*, q->n);
      for (int i = 0; i < q->n; i++) ns[i] = vec_stmt(z, q->stmts[i]);
      return rlx_tir_seq(ctx, q->n, ns);
    }
    case RLX_STMT_IF: {
      rlx_tir_if_t* c = RLX_AS(rlx_tir_if_t, s);
      if (rlx_expr_uses_var(c->cond, z->var)) break;
      return rlx_tir_if(ctx, c->cond, vec_stmt(z, c->then_case), c->else_case ? vec_stmt(z, c->else_case) : NULL);
    }
    case RLX_STMT_LET: {
      rlx_tir_let_t* l = RLX_AS(rlx_tir_let_t, s);
      if (rlx_expr_uses_var(l->value, z->var)) break;
      return rlx_tir_let(ctx, l->var, l->value, vec_stmt(z, l->body));
    }
    case RLX_STMT_FOR: {
      rlx_tir_for_t* f = RLX_AS(rlx_tir_for_t, s);
      if (rlx_expr_uses_var(f->min, z->var) || rlx_expr_uses_var(f->extent, z->var)) break;
      rlx_for_kind_t kind = f->for_kind == RLX_FOR_PARALLEL ? RLX_FOR_SERIAL : f->for_kind;
      return rlx_tir_for(ctx, f->var, f->min, f->extent, kind, vec_stmt(z, f->body));
    }
    case RLX_STMT_EVALUATE:
    case RLX_STMT_BLOCK_REALIZE:
    case RLX_STMT_ALLOCATE:
    case RLX_STMT_KIND_COUNT: break;
  }
  z->ok = false;
  return s;
}

/* The vector form of body for var in [base, base + lanes); NULL when not vectorizable. */
static rlx_tir_stmt_t* try_vectorize(rlx_ctx_t* ctx, rlx_var_t* var, rlx_expr_t* base, int lanes, rlx_tir_stmt_t* body) {
  vz_t z = {ctx, var, base, lanes, true};
  rlx_tir_stmt_t* r = vec_stmt(&z, body);
  return z.ok ? r : NULL;
}

/* True when cond is a conjunction of <, <=, >, >= whose sides are linear in var (Ramp or
 * invariant after vectorization): such a condition holds for every lane iff it holds for
 * the first and the last lane. */
static bool monotonic_cond(rlx_ctx_t* ctx, rlx_var_t* var, rlx_expr_t* base, int lanes, rlx_expr_t* cond) {
  if (cond->kind == RLX_EXPR_AND)
    return monotonic_cond(ctx, var, base, lanes, RLX_AS(rlx_binary_t, cond)->a) &&
           monotonic_cond(ctx, var, base, lanes, RLX_AS(rlx_binary_t, cond)->b);
  if (cond->kind != RLX_EXPR_LT && cond->kind != RLX_EXPR_LE && cond->kind != RLX_EXPR_GT && cond->kind != RLX_EXPR_GE)
    return false;
  rlx_binary_t* b = RLX_AS(rlx_binary_t, cond);
  if (!rlx_dtype_is_int(b->a->dtype)) return false;
  vz_t z = {ctx, var, base, lanes, true};
  rlx_expr_t* a = vec_expr(&z, b->a);
  rlx_expr_t* c = vec_expr(&z, b->b);
  return z.ok && (a->dtype.lanes == 1 || is_ramp(a)) && (c->dtype.lanes == 1 || is_ramp(c));
}

/* `for v vectorized L: if (cond(v)) body` with a monotonic cond (a tail guard of a split):
 * `if (cond(first) && cond(last)) <vector body> else <the loop>`. NULL when not applicable. */
static rlx_tir_stmt_t* vectorize_guarded(rlx_ctx_t* ctx, rlx_tir_for_t* f, rlx_expr_t* base, int lanes) {
  if (f->body->kind != RLX_STMT_IF) return NULL;
  rlx_tir_if_t* g = RLX_AS(rlx_tir_if_t, f->body);
  if (g->else_case || !monotonic_cond(ctx, f->var, base, lanes, g->cond)) return NULL;
  rlx_tir_stmt_t* vec = try_vectorize(ctx, f->var, base, lanes, g->then_case);
  if (!vec) return NULL;
  rlx_dtype_t t = f->var->hdr.dtype;
  rlx_expr_t* ends[2] = {rlx_ir_cast(ctx, t, base), rlx_ir_add(ctx, rlx_ir_cast(ctx, t, base), rlx_ir_int(ctx, t, lanes - 1))};
  rlx_expr_t* all = NULL;
  for (int e = 0; e < 2; e++) {
    rlx_ptrmap_t vmap = {0};
    rlx_ptrmap_put(&vmap, f->var, ends[e]);
    rlx_expr_t* c = rlx_expr_substitute(ctx, g->cond, &vmap);
    rlx_ptrmap_free(&vmap);
    all = all ? rlx_ir_and(ctx, all, c) : c;
  }
  return rlx_tir_if(ctx, all, vec, &f->hdr);
}

/* Bytes of the widest data element a statement moves: buffer elements loaded or stored and
 * values cast (not the index arithmetic, which stays scalar or in Ramp form); bool masks
 * count as the int32 lanes codegen keeps them in. */
static int elem_bytes(rlx_dtype_t t) {
  if (t.code == RLX_DT_HANDLE) return 0;
  int b = t.bits == 1 ? 4 : rlx_dtype_bytes(rlx_dtype_with_lanes(t, 1));
  return b > 0 ? b : 0;
}
static int widest_expr(const rlx_expr_t* e) {
  if (e->kind == RLX_EXPR_BUFFER_LOAD) return elem_bytes(RLX_AS(const rlx_buffer_load_t, e)->buffer->dtype);
  int w = e->kind == RLX_EXPR_CAST ? elem_bytes(e->dtype) : 0;
  rlx_expr_t* kids[16];
  int n = rlx_expr_children(e, kids, 16);
  for (int i = 0; i < n && i < 16; i++) {
    int c = widest_expr(kids[i]);
    if (c > w) w = c;
  }
  return w;
}
static void widest_stmt(const rlx_tir_stmt_t* s, void* user) {
  int* w = user;
  int c = 0;
  if (s->kind == RLX_STMT_BUFFER_STORE) {
    const rlx_tir_store_t* st = RLX_AS(const rlx_tir_store_t, s);
    c = elem_bytes(st->buffer->dtype);
    int v = widest_expr(st->value);
    if (v > c) c = v;
  }
  if (c > *w) *w = c;
}

/* Native lanes of the target for the body's widest element (at least 2). */
static int native_lanes(rlx_ctx_t* ctx, const rlx_tir_stmt_t* body) {
  int w = 0;
  rlx_tir_visitor_t v = {widest_stmt, NULL, NULL, &w};
  rlx_tir_stmt_visit(body, &v);
  int bytes = rlx_target_vector_bytes(rlx_ctx_target_of(ctx));
  int n = w > 0 ? bytes / w : bytes / 4;
  return n >= 2 ? n : 2;
}

static rlx_tir_stmt_t* vectorize_stmt(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, void* user);

/* The vectorizer gave up on a chunk: it is still a VECTORIZED loop. */
static bool still_loop(const rlx_tir_stmt_t* s) {
  return s->kind == RLX_STMT_FOR && RLX_AS(const rlx_tir_for_t, s)->for_kind == RLX_FOR_VECTORIZED;
}

/* for v vectorized [min, min + ext) with ext = c * lanes: c loops of `lanes` lanes (fresh
 * vars), vectorized each; a sequence up to VEC_MAX_UNROLL chunks, else a serial loop over
 * them. NULL when a chunk does not vectorize (the loop is then left whole). */
static rlx_tir_stmt_t* split_wide(rlx_ctx_t* ctx, rlx_tir_for_t* f, int64_t ext, int lanes) {
  rlx_dtype_t t = f->var->hdr.dtype;
  int64_t chunks = ext / lanes;
  rlx_expr_t* min = rlx_ir_cast(ctx, t, f->min);
  if (chunks <= VEC_MAX_UNROLL) {
    rlx_tir_stmt_t** parts = RLX_NEW_ARRAY(ctx, rlx_tir_stmt_t*, chunks);
    for (int64_t c = 0; c < chunks; c++) {
      rlx_var_t* v = rlx_ir_var(ctx, f->var->name, t);
      rlx_ptrmap_t vmap = {0};
      rlx_ptrmap_put(&vmap, f->var, &v->hdr);
      rlx_tir_stmt_t* body = rlx_tir_stmt_substitute(ctx, f->body, &vmap);
      rlx_ptrmap_free(&vmap);
      rlx_expr_t* lo = rlx_ir_simplify(ctx, rlx_ir_add(ctx, min, rlx_ir_int(ctx, t, c * lanes)));
      parts[c] = vectorize_stmt(ctx, rlx_tir_for(ctx, v, lo, rlx_ir_int(ctx, t, lanes), RLX_FOR_VECTORIZED, body), NULL);
      if (still_loop(parts[c])) return NULL;
    }
    return rlx_tir_seq(ctx, (int)chunks, parts);
  }
  rlx_var_t* o = rlx_ir_var(ctx, rlx_ctx_sprintf(ctx, "%s_o", f->var->name), t);
  rlx_var_t* v = rlx_ir_var(ctx, f->var->name, t);
  rlx_ptrmap_t vmap = {0};
  rlx_ptrmap_put(&vmap, f->var, &v->hdr);
  rlx_tir_stmt_t* body = rlx_tir_stmt_substitute(ctx, f->body, &vmap);
  rlx_ptrmap_free(&vmap);
  rlx_expr_t* lo = rlx_ir_add(ctx, min, rlx_ir_mul(ctx, &o->hdr, rlx_ir_int(ctx, t, lanes)));
  rlx_tir_stmt_t* inner = vectorize_stmt(ctx, rlx_tir_for(ctx, v, lo, rlx_ir_int(ctx, t, lanes), RLX_FOR_VECTORIZED, body), NULL);
  if (still_loop(inner)) return NULL;
  return rlx_tir_for(ctx, o, rlx_ir_int(ctx, t, 0), rlx_ir_int(ctx, t, chunks), RLX_FOR_SERIAL, inner);
}

static rlx_tir_stmt_t* vectorize_stmt(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, void* user) {
  (void)user;
  if (s->kind != RLX_STMT_FOR) return s;
  rlx_tir_for_t* f = RLX_AS(rlx_tir_for_t, s);
  int64_t ext;
  if (f->for_kind != RLX_FOR_VECTORIZED || !rlx_expr_is_const_int(f->extent, &ext)) return s;
  if (ext == 1) {
    rlx_ptrmap_t vmap = {0};
    rlx_ptrmap_put(&vmap, f->var, rlx_ir_cast(ctx, f->var->hdr.dtype, f->min));
    rlx_tir_stmt_t* r = rlx_tir_stmt_substitute(ctx, f->body, &vmap);
    rlx_ptrmap_free(&vmap);
    return r;
  }
  int lanes = native_lanes(ctx, f->body);
  if (ext > lanes && ext % lanes == 0) {
    rlx_tir_stmt_t* r = split_wide(ctx, f, ext, lanes);
    return r ? r : s;
  }
  if (ext >= 2 && ext <= lanes && (ext & (ext - 1)) == 0) {
    rlx_tir_stmt_t* r = try_vectorize(ctx, f->var, f->min, (int)ext, f->body);
    if (!r) r = vectorize_guarded(ctx, f, f->min, (int)ext);
    return r ? r : s;
  }
  return s;
}

RLX_MUST_USE rlx_status_t* rlx_tir_vectorize_loops(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out) {
  rlx_tir_mutator_t m = {vectorize_stmt, NULL, NULL};
  rlx_tir_stmt_t* body = rlx_tir_stmt_mutate(ctx, f->body, &m);
  rlx_tir_func_t* r = rlx_tir_func_copy(ctx, f);
  r->body = body;
  *out = r;
  return NULL;
}
