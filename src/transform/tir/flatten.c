/* flatten_buffers: N-D buffer accesses → 1-D accesses.
 *
 * Requires: no blocks (run rlx_tir_lower_blocks first); at most one vector (Ramp) index per
 * access.
 * Produces: every BufferLoad/BufferStore/Allocate refers to a 1-D buffer without strides or
 * elem_offset. The flat buffer of an N-D buffer B has B's name, dtype, scope and data var, and
 * shape (product of B's shape) — or (shape[0] * strides[0]) when B has strides; a 1-D compact
 * buffer is its own flat buffer. Index = elem_offset + sum_d idx_d * stride_d, with row-major
 * strides (products of the later dims, constants folded) unless B gives strides. The buffer_map
 * keeps the original N-D buffers.
 */
#include <stdint.h>

#include "transform.h"

typedef struct {
  rlx_ptrmap_t flat; /* original buffer → flat buffer */
} fl_t;

static rlx_tir_buffer_t* flat_buffer(rlx_ctx_t* ctx, fl_t* fl, rlx_tir_buffer_t* b) {
  if (b->ndim == 1 && !b->strides && !b->elem_offset) return b;
  rlx_tir_buffer_t* f = rlx_ptrmap_get(&fl->flat, b);
  if (f) return f;
  rlx_expr_t* size;
  if (b->ndim == 0) {
    size = rlx_ir_i32(ctx, 1);
  } else if (b->strides) {
    size = rlx_ir_mul(ctx, b->shape[0], b->strides[0]);
  } else {
    size = b->shape[0];
    for (int d = 1; d < b->ndim; d++) size = rlx_ir_mul(ctx, size, b->shape[d]);
  }
  f = RLX_NEW(ctx, rlx_tir_buffer_t);
  f->name = b->name;
  f->data = b->data;
  f->dtype = b->dtype;
  f->ndim = 1;
  f->shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, 1);
  f->shape[0] = size;
  f->scope = b->scope;
  rlx_ptrmap_put(&fl->flat, b, f);
  return f;
}

/* The flat index of idx into b. A Ramp index (base, stride) in dim d gives
 * Ramp(flat(base), stride * stride_d). */
/* True when flat indices into b need int64: an int64 shape/stride/offset, or a constant size
 * of 2^31 elements or more. */
static bool needs_int64(const rlx_tir_buffer_t* b) {
  int64_t size = 1;
  bool const_size = true;
  for (int d = 0; d < b->ndim; d++) {
    if (b->shape[d]->dtype.bits == 64) return true;
    if (b->strides && b->strides[d]->dtype.bits == 64) return true;
    int64_t v;
    if (const_size && rlx_expr_is_const_int(b->shape[d], &v) && v >= 0 && (v == 0 || size <= INT64_MAX / v / 2))
      size *= v;
    else
      const_size = false;
  }
  if (b->elem_offset && b->elem_offset->dtype.bits == 64) return true;
  return const_size && size >= ((int64_t)1 << 31);
}

static rlx_expr_t* flat_index(rlx_ctx_t* ctx, const rlx_tir_buffer_t* b, int n, rlx_expr_t* const* idx) {
  if (n == 0) return b->elem_offset ? b->elem_offset : rlx_ir_i32(ctx, 0);
  if (needs_int64(b)) {
    rlx_expr_t** wide = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
    for (int d = 0; d < n; d++) {
      rlx_dtype_t t = rlx_dtype_with_lanes(rlx_dt_int64(), idx[d]->dtype.lanes);
      if (idx[d]->kind == RLX_EXPR_RAMP) {
        rlx_ramp_t* r = RLX_AS(rlx_ramp_t, idx[d]);
        wide[d] = rlx_ir_ramp(ctx, rlx_ir_cast(ctx, rlx_dt_int64(), r->base), rlx_ir_cast(ctx, rlx_dt_int64(), r->stride),
                              r->lanes);
      } else {
        wide[d] = rlx_ir_cast(ctx, t, idx[d]);
      }
    }
    idx = wide;
  }
  rlx_expr_t** strides = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n); /* NULL = 1 */
  rlx_expr_t* stride = NULL;
  for (int d = n - 1; d >= 0; d--) {
    strides[d] = b->strides ? b->strides[d] : stride;
    if (!b->strides && d > 0) stride = stride ? rlx_ir_mul(ctx, b->shape[d], stride) : b->shape[d];
  }
  rlx_ramp_t* ramp = NULL;
  rlx_expr_t* ramp_stride = NULL;
  rlx_expr_t* sum = NULL;
  for (int d = 0; d < n; d++) {
    rlx_expr_t* st = strides[d];
    rlx_expr_t* x = idx[d];
    if (x->kind == RLX_EXPR_RAMP && !ramp) {
      ramp = RLX_AS(rlx_ramp_t, x);
      ramp_stride = st ? rlx_ir_mul(ctx, ramp->stride, st) : ramp->stride;
      x = ramp->base;
    }
    rlx_expr_t* term = st ? rlx_ir_mul(ctx, x, st) : x;
    sum = sum ? rlx_ir_add(ctx, sum, term) : term;
  }
  if (b->elem_offset) sum = rlx_ir_add(ctx, b->elem_offset, sum);
  return ramp ? rlx_ir_ramp(ctx, sum, ramp_stride, ramp->lanes) : sum;
}

static rlx_expr_t* flat_load(rlx_ctx_t* ctx, rlx_expr_t* e, void* user) {
  if (e->kind != RLX_EXPR_BUFFER_LOAD) return e;
  rlx_buffer_load_t* l = RLX_AS(rlx_buffer_load_t, e);
  rlx_tir_buffer_t* fb = flat_buffer(ctx, user, l->buffer);
  if (fb == l->buffer && l->n_indices == 1) return e;
  rlx_expr_t* i = flat_index(ctx, l->buffer, l->n_indices, l->indices);
  return rlx_ir_load(ctx, fb, 1, &i);
}

static rlx_expr_t* flat_expr(rlx_ctx_t* ctx, rlx_expr_t* e, void* user) {
  return rlx_expr_transform(ctx, e, flat_load, user);
}

static rlx_tir_stmt_t* flat_stmt(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, void* user) {
  if (s->kind == RLX_STMT_BUFFER_STORE) {
    rlx_tir_store_t* st = RLX_AS(rlx_tir_store_t, s);
    rlx_tir_buffer_t* fb = flat_buffer(ctx, user, st->buffer);
    if (fb == st->buffer && st->n_indices == 1) return s;
    rlx_expr_t* i = flat_index(ctx, st->buffer, st->n_indices, st->indices);
    return rlx_tir_store(ctx, fb, st->value, 1, &i);
  }
  if (s->kind == RLX_STMT_ALLOCATE) {
    rlx_tir_allocate_t* a = RLX_AS(rlx_tir_allocate_t, s);
    rlx_tir_buffer_t* fb = flat_buffer(ctx, user, a->buffer);
    return fb == a->buffer ? s : rlx_tir_allocate(ctx, fb, a->body);
  }
  return s;
}

typedef struct {
  const char* block; /* first block found */
  int n_vector_dims;
} pre_check_t;

static void count_ramps(const rlx_expr_t* const* idx, int n, pre_check_t* pc) {
  int k = 0;
  for (int i = 0; i < n; i++) k += idx[i]->kind == RLX_EXPR_RAMP || idx[i]->dtype.lanes > 1;
  if (k > pc->n_vector_dims) pc->n_vector_dims = k;
}

static void check_load(const rlx_expr_t* e, void* user) {
  if (e->kind == RLX_EXPR_BUFFER_LOAD)
    count_ramps((const rlx_expr_t* const*)RLX_AS(const rlx_buffer_load_t, e)->indices,
                RLX_AS(const rlx_buffer_load_t, e)->n_indices, user);
}
static void check_expr(const rlx_expr_t* e, void* user) { rlx_expr_visit(e, check_load, user); }
static void check_stmt(const rlx_tir_stmt_t* s, void* user) {
  pre_check_t* pc = user;
  if (s->kind == RLX_STMT_BLOCK_REALIZE && !pc->block) pc->block = RLX_AS(const rlx_tir_block_realize_t, s)->block->name;
  if (s->kind == RLX_STMT_BUFFER_STORE)
    count_ramps((const rlx_expr_t* const*)RLX_AS(const rlx_tir_store_t, s)->indices,
                RLX_AS(const rlx_tir_store_t, s)->n_indices, pc);
}

RLX_MUST_USE rlx_status_t* rlx_tir_flatten_buffers(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out) {
  pre_check_t pc = {NULL, 0};
  rlx_tir_visitor_t v = {check_stmt, check_expr, NULL, &pc};
  rlx_tir_stmt_visit(f->body, &v);
  if (pc.block)
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "flatten_buffers on '%s': block '%s' is still present (run lower_blocks first)", f->name,
                             pc.block);
  if (pc.n_vector_dims > 1)
    return rlx_status_create(RLX_UNSUPPORTED, "flatten_buffers on '%s': an access has more than one vector index",
                             f->name);
  fl_t fl = {{0}};
  rlx_tir_mutator_t m = {flat_stmt, flat_expr, &fl};
  rlx_tir_stmt_t* body = rlx_tir_stmt_mutate(ctx, f->body, &m);
  rlx_ptrmap_free(&fl.flat);
  rlx_tir_func_t* r = rlx_tir_func_copy(ctx, f);
  r->body = body;
  *out = r;
  return NULL;
}
