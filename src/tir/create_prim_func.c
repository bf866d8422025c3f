/* create_prim_func: a list of TE tensors → a PrimFunc with one block per compute, as TVM's
 * te.create_prim_func builds it (see te.h for the exact form).
 *
 * Requires: every tensor reachable from args is a TE tensor; placeholders among them are
 * in args; a reduction, if any, is the whole body of its compute.
 * Produces: a well-formed, unscheduled PrimFunc (attrs {"tir.noalias": True}).
 */
#include <string.h>

#include "te.h"

typedef struct {
  rlx_ctx_t* ctx;
  rlx_te_tensor_t* const* args;
  int n_args;
  RLX_VEC(rlx_te_tensor_t*) order;  /* computes in topological order */
  RLX_VEC(rlx_te_tensor_t*) seen;   /* every tensor visited */
  RLX_VEC(const char*) block_names; /* names used so far */
} cpf_t;

static bool in_list(rlx_te_tensor_t* const* list, int n, const rlx_te_tensor_t* t) {
  for (int i = 0; i < n; i++)
    if (list[i] == t) return true;
  return false;
}

/* Post-order DFS: inputs first, then the tensor itself. */
static RLX_MUST_USE rlx_status_t* visit(cpf_t* c, rlx_te_tensor_t* t, const rlx_te_tensor_t* user) {
  if (in_list(c->seen.data, c->seen.len, t)) return NULL;
  rlx_vec_push(&c->seen, t);
  if (t->kind == RLX_TE_PLACEHOLDER) {
    if (!in_list(c->args, c->n_args, t))
      return rlx_status_create(RLX_INVALID_ARGUMENT,
                               "create_prim_func: placeholder '%s' (read by compute '%s') is not in the "
                               "argument list; every placeholder must be passed as an argument",
                               t->name, user ? user->name : "?");
    return NULL;
  }
  if (!t->body)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "create_prim_func: compute '%s' has no body", t->name);
  if (t->n_group > 1) {
    /* a multi-output compute is one nest: after the inputs of every output, once (its first
     * output stands for the group in the order) */
    for (int g = 0; g < t->n_group; g++)
      if (!in_list(c->seen.data, c->seen.len, t->group[g])) rlx_vec_push(&c->seen, t->group[g]);
    for (int g = 0; g < t->n_group; g++)
      for (int i = 0; i < t->group[g]->n_inputs; i++) RLX_RETURN_IF_ERROR(visit(c, t->group[g]->inputs[i], t->group[g]));
    rlx_vec_push(&c->order, t->group[0]);
    return NULL;
  }
  for (int i = 0; i < t->n_inputs; i++) RLX_RETURN_IF_ERROR(visit(c, t->inputs[i], t));
  rlx_vec_push(&c->order, t);
  return NULL;
}

static const char* unique_block_name(cpf_t* c, const char* base) {
  const char* name = base;
  for (int k = 1;; k++) {
    bool used = strcmp(name, "root") == 0;
    for (int i = 0; i < c->block_names.len && !used; i++) used = strcmp(c->block_names.data[i], name) == 0;
    if (!used) break;
    name = rlx_ctx_sprintf(c->ctx, "%s_%d", base, k);
  }
  rlx_vec_push(&c->block_names, name);
  return name;
}

/* ------------------------------------------------------------------ body checks */
typedef struct {
  int n_reduce;
  const rlx_tir_buffer_t* bad_buffer; /* first load of a non-TE buffer */
  const rlx_buffer_load_t* bad_rank;  /* first load with a wrong number of indices */
} body_check_t;

static void check_node(const rlx_expr_t* e, void* user) {
  body_check_t* bc = user;
  if (e->kind == RLX_EXPR_REDUCE) bc->n_reduce++;
  if (e->kind == RLX_EXPR_BUFFER_LOAD && !bc->bad_buffer) {
    const rlx_tir_buffer_t* b = RLX_AS(const rlx_buffer_load_t, e)->buffer;
    if (!rlx_te_tensor_of_buffer(b)) bc->bad_buffer = b;
  }
  if (e->kind == RLX_EXPR_BUFFER_LOAD && !bc->bad_rank &&
      RLX_AS(const rlx_buffer_load_t, e)->n_indices != RLX_AS(const rlx_buffer_load_t, e)->buffer->ndim)
    bc->bad_rank = RLX_AS(const rlx_buffer_load_t, e);
}

/* ------------------------------------------------------------------ access regions */
typedef struct {
  rlx_tir_buffer_t* buffer;
  RLX_VEC(const rlx_buffer_load_t*) loads;
} access_t;
typedef struct {
  RLX_VEC(access_t) acc;
} access_list_t;

static void collect_access(const rlx_expr_t* e, void* user) {
  if (e->kind != RLX_EXPR_BUFFER_LOAD) return;
  access_list_t* al = user;
  const rlx_buffer_load_t* l = RLX_AS(const rlx_buffer_load_t, e);
  for (int i = 0; i < al->acc.len; i++) {
    if (al->acc.data[i].buffer == l->buffer) {
      rlx_vec_push(&al->acc.data[i].loads, l);
      return;
    }
  }
  access_t a = {l->buffer, {0}};
  /* a failed push is counted (rlx_alloc_failures): the caller's stage fails; an access
   * without loads is never kept */
  if (!rlx_vec_push(&a.loads, l)) return;
  if (!rlx_vec_push(&al->acc, a)) rlx_vec_free(&a.loads);
}

static void free_access(access_list_t* al) {
  for (int i = 0; i < al->acc.len; i++) rlx_vec_free(&al->acc.data[i].loads);
  rlx_vec_free(&al->acc);
}

/* The region of dimension d covering every load of a: a single point when all loads agree,
 * [first + lo, first + hi] when they differ by constants, else the whole dimension. */
static rlx_range_t dim_region(rlx_ctx_t* ctx, const access_t* a, int d) {
  rlx_expr_t* first = a->loads.data[0]->indices[d];
  int64_t lo = 0, hi = 0;
  bool all_const_offset = true;
  for (int i = 1; i < a->loads.len && all_const_offset; i++) {
    rlx_expr_t* x = a->loads.data[i]->indices[d];
    if (rlx_expr_equal(x, first)) continue;
    int64_t off;
    if (rlx_expr_is_const_int(rlx_ir_simplify(ctx, rlx_ir_sub(ctx, x, first)), &off)) {
      if (off < lo) lo = off;
      if (off > hi) hi = off;
    } else {
      all_const_offset = false;
    }
  }
  rlx_range_t r;
  if (all_const_offset && first->dtype.lanes == 1) {
    r.min = lo ? rlx_ir_simplify(ctx, rlx_ir_add(ctx, first, rlx_ir_int(ctx, first->dtype, lo))) : first;
    r.extent = rlx_ir_int(ctx, first->dtype, hi - lo + 1);
  } else {
    rlx_expr_t* ext = a->buffer->shape[d];
    r.min = rlx_ir_int(ctx, ext->dtype, 0);
    r.extent = ext;
  }
  return r;
}

static rlx_buffer_region_t point_region(rlx_ctx_t* ctx, rlx_tir_buffer_t* b, int n, rlx_expr_t* const* idx) {
  rlx_buffer_region_t r = {b, n, RLX_NEW_ARRAY(ctx, rlx_range_t, n)};
  for (int d = 0; d < n; d++) {
    r.region[d].min = idx[d];
    r.region[d].extent = rlx_ir_int(ctx, idx[d]->dtype, 1);
  }
  return r;
}

/* ------------------------------------------------------------------ one compute → one nest */
/* The block of compute t, bound to loop vars: shared (the spatial loops of a multi-output
 * compute, which has no reduction) or, when NULL, fresh ones named after the axes, returned
 * in *out_loops with their iter vars (*out_ivs, *out_n of them) for build_nest to wrap. */
static RLX_MUST_USE rlx_status_t* build_block(cpf_t* c, rlx_te_tensor_t* t, rlx_var_t* const* shared, rlx_tir_stmt_t** out,
                                              rlx_var_t*** out_loops, rlx_iter_var_t*** out_ivs, int* out_n) {
  rlx_ctx_t* ctx = c->ctx;
  rlx_expr_t* body = t->body;
  body_check_t bc = {0, NULL, NULL};
  rlx_expr_visit(body, check_node, &bc);
  if (bc.bad_rank)
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "create_prim_func: compute '%s' loads '%s' with %d indices, but it has %d dimensions",
                             t->name, bc.bad_rank->buffer->name, bc.bad_rank->n_indices, bc.bad_rank->buffer->ndim);
  if (bc.bad_buffer)
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "create_prim_func: compute '%s' reads buffer '%s', which is not a TE tensor "
                             "(use rlx_te_load on a placeholder or compute)",
                             t->name, bc.bad_buffer->name);
  rlx_reduce_t* red = body->kind == RLX_EXPR_REDUCE ? RLX_AS(rlx_reduce_t, body) : NULL;
  if (bc.n_reduce > (red ? 1 : 0))
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "create_prim_func: compute '%s': a reduction must be the whole body of a compute",
                             t->name);
  if (red && red->hdr.dtype.lanes != 1)
    return rlx_status_create(RLX_UNSUPPORTED, "create_prim_func: compute '%s': vector reduction", t->name);

  int n_sp = t->n_axis, n_rd = red ? red->n_axis : 0, n = n_sp + n_rd;
  rlx_iter_var_t** ivs = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, n);
  rlx_var_t** loops = RLX_NEW_ARRAY(ctx, rlx_var_t*, n);
  rlx_expr_t** values = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  rlx_ptrmap_t vmap = {0};
  for (int a = 0; a < n; a++) {
    rlx_iter_var_t* ax = a < n_sp ? t->axis[a] : red->axis[a - n_sp];
    rlx_var_t* bv = rlx_ir_var(ctx, rlx_ctx_sprintf(ctx, "v_%s", ax->var->name), ax->var->hdr.dtype);
    ivs[a] = rlx_tir_iter_var(ctx, bv, ax->dom.min, ax->dom.extent, a < n_sp ? RLX_ITER_SPATIAL : RLX_ITER_REDUCE);
    loops[a] = shared && a < n_sp ? shared[a] : rlx_ir_var(ctx, ax->var->name, ax->var->hdr.dtype);
    values[a] = &loops[a]->hdr;
    rlx_ptrmap_put(&vmap, ax->var, bv);
  }
  /* TVM simplifies the value (not the reduction's accumulator). */
  rlx_expr_t* src = rlx_ir_simplify(ctx, rlx_expr_substitute(ctx, red ? red->source : body, &vmap));
  rlx_expr_t* cond = red && red->condition ? rlx_expr_substitute(ctx, red->condition, &vmap) : NULL;
  rlx_expr_t* init = red && red->init ? rlx_expr_substitute(ctx, red->init, &vmap) : NULL;
  rlx_ptrmap_free(&vmap);

  rlx_tir_buffer_t* out_buf = t->buffer;
  rlx_expr_t** out_idx = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n_sp);
  for (int d = 0; d < n_sp; d++) out_idx[d] = &ivs[d]->var->hdr;

  rlx_tir_block_t* blk = RLX_NEW(ctx, rlx_tir_block_t);
  blk->name = unique_block_name(c, t->name);
  blk->n_iter_vars = n;
  blk->iter_vars = ivs;
  rlx_expr_t* zero = rlx_ir_i32(ctx, 0);
  if (n == 0) { /* as TVM: a block has at least one iter var (a dummy "vi" bound to 0) */
    blk->n_iter_vars = 1;
    blk->iter_vars = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, 1);
    blk->iter_vars[0] =
        rlx_tir_iter_var(ctx, rlx_ir_var(ctx, "vi", rlx_dt_int32()), zero, rlx_ir_i32(ctx, 1), RLX_ITER_SPATIAL);
    values = &zero;
  }
  if (red) {
    rlx_expr_t* acc = rlx_ir_load(ctx, out_buf, n_sp, out_idx);
    rlx_tir_stmt_t* upd =
        rlx_tir_store(ctx, out_buf, rlx_te_reduce_combine(ctx, red->combiner, acc, src), n_sp, out_idx);
    blk->body = cond ? rlx_tir_if(ctx, cond, upd, NULL) : upd;
    blk->init = rlx_tir_store(ctx, out_buf,
                              init ? rlx_ir_cast(ctx, out_buf->dtype, init)
                                   : rlx_te_reduce_identity(ctx, red->combiner, out_buf->dtype),
                              n_sp, out_idx);
  } else {
    blk->body = rlx_tir_store(ctx, out_buf, src, n_sp, out_idx);
  }

  access_list_t al = {{0}};
  if (cond) rlx_expr_visit(cond, collect_access, &al);
  rlx_expr_visit(src, collect_access, &al);
  blk->n_reads = al.acc.len;
  blk->reads = RLX_NEW_ARRAY(ctx, rlx_buffer_region_t, al.acc.len);
  for (int i = 0; i < al.acc.len; i++) {
    access_t* a = &al.acc.data[i];
    rlx_buffer_region_t* r = &blk->reads[i];
    r->buffer = a->buffer;
    r->ndim = a->loads.data[0]->n_indices;
    r->region = RLX_NEW_ARRAY(ctx, rlx_range_t, r->ndim);
    for (int d = 0; d < r->ndim; d++) r->region[d] = dim_region(ctx, a, d);
  }
  free_access(&al);
  blk->n_writes = 1;
  blk->writes = RLX_NEW(ctx, rlx_buffer_region_t);
  blk->writes[0] = point_region(ctx, out_buf, n_sp, out_idx);

  /* TVM keeps the layout-free placeholders that are not parameters (intermediate tensors) as
   * the block's annotation {"layout_free_placeholders": [buffers]}; parameters become the
   * function attribute layout_free_buffers (create()). */
  rlx_expr_t** lfb = RLX_NEW_ARRAY(ctx, rlx_expr_t*, t->n_layout_free + 1);
  int n_lfb = 0;
  for (int j = 0; j < t->n_layout_free; j++)
    if (!in_list(c->args, c->n_args, t->layout_free[j]) && t->layout_free[j]->buffer)
      lfb[n_lfb++] = rlx_ir_call(ctx, rlx_dt_int32(), RLX_TIR_ATTR_BUFFER, 1, (rlx_expr_t*[]){&t->layout_free[j]->buffer->data->hdr});
  int n_ann = t->n_attrs + (n_lfb ? 1 : 0);
  if (n_ann) {
    blk->annotation_keys = RLX_NEW_ARRAY(ctx, const char*, n_ann);
    blk->annotation_values = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n_ann);
    for (int j = 0; j < t->n_attrs; j++) {
      blk->annotation_keys[j] = t->attr_keys[j];
      blk->annotation_values[j] = t->attr_values[j];
    }
    if (n_lfb) {
      blk->annotation_keys[t->n_attrs] = "layout_free_placeholders";
      blk->annotation_values[t->n_attrs] = rlx_ir_call(ctx, rlx_dt_int32(), RLX_TIR_ATTR_LIST, n_lfb, lfb);
    }
    blk->n_annotations = n_ann;
  }
  *out = rlx_tir_block_realize(ctx, blk->n_iter_vars, values, NULL, blk);
  *out_loops = loops;
  *out_ivs = ivs;
  *out_n = n;
  return NULL;
}

/* The loop nest of compute t: one block, or for a multi-output compute one block per output
 * ("B.v0", "B.v1", ...) in one nest, as TVM's create_prim_func builds it. */
static RLX_MUST_USE rlx_status_t* build_nest(cpf_t* c, rlx_te_tensor_t* t, rlx_tir_stmt_t** out) {
  rlx_var_t** loops = NULL;
  rlx_iter_var_t** ivs = NULL;
  int n = 0;
  rlx_tir_stmt_t* s = NULL;
  if (t->n_group > 1) {
    rlx_tir_stmt_t** blocks = RLX_NEW_ARRAY(c->ctx, rlx_tir_stmt_t*, t->n_group);
    for (int g = 0; g < t->n_group; g++) {
      rlx_var_t** l = NULL;
      rlx_iter_var_t** iv = NULL;
      int k = 0;
      RLX_RETURN_IF_ERROR(build_block(c, t->group[g], loops, &blocks[g], &l, &iv, &k));
      if (g == 0) {
        loops = l;
        ivs = iv;
        n = k;
      }
    }
    s = rlx_tir_seq(c->ctx, t->n_group, blocks);
  } else {
    RLX_RETURN_IF_ERROR(build_block(c, t, NULL, &s, &loops, &ivs, &n));
  }
  for (int a = n - 1; a >= 0; a--) s = rlx_tir_for(c->ctx, loops[a], ivs[a]->dom.min, ivs[a]->dom.extent, RLX_FOR_SERIAL, s);
  *out = s;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* create(cpf_t* c, const char* name, rlx_tir_func_t** out) {
  rlx_ctx_t* ctx = c->ctx;
  for (int i = 0; i < c->n_args; i++) {
    if (!c->args[i]) return rlx_status_create(RLX_INVALID_ARGUMENT, "create_prim_func: argument %d is NULL", i);
    for (int j = 0; j < i; j++)
      if (c->args[j] == c->args[i])
        return rlx_status_create(RLX_INVALID_ARGUMENT, "create_prim_func: tensor '%s' is listed twice (arguments %d and %d)",
                                 c->args[i]->name, j, i);
  }
  for (int i = 0; i < c->n_args; i++) RLX_RETURN_IF_ERROR(visit(c, c->args[i], NULL));

  int n = c->order.len;
  rlx_tir_stmt_t** nests = RLX_NEW_ARRAY(ctx, rlx_tir_stmt_t*, n);
  int n_bufs = 0;
  for (int i = 0; i < n; i++) n_bufs += c->order.data[i]->n_group > 1 ? c->order.data[i]->n_group : 1;
  rlx_tir_buffer_t** allocs = RLX_NEW_ARRAY(ctx, rlx_tir_buffer_t*, n_bufs);
  int n_allocs = 0;
  for (int i = 0; i < n; i++) {
    rlx_te_tensor_t* t = c->order.data[i];
    RLX_RETURN_IF_ERROR(build_nest(c, t, &nests[i]));
    int n_out = t->n_group > 1 ? t->n_group : 1;
    for (int g = 0; g < n_out; g++) {
      rlx_te_tensor_t* o = t->n_group > 1 ? t->group[g] : t;
      if (!in_list(c->args, c->n_args, o)) allocs[n_allocs++] = o->buffer;
    }
  }
  rlx_tir_block_t* root = RLX_NEW(ctx, rlx_tir_block_t);
  root->name = "root";
  root->body = n ? rlx_tir_seq(ctx, n, nests) : rlx_tir_evaluate(ctx, rlx_ir_i32(ctx, 0));
  root->n_alloc_buffers = n_allocs;
  root->alloc_buffers = allocs;
  rlx_tir_stmt_t* body = rlx_tir_block_realize(ctx, 0, NULL, NULL, root);

  rlx_var_t** params = RLX_NEW_ARRAY(ctx, rlx_var_t*, c->n_args);
  rlx_tir_buffer_t** bmap = RLX_NEW_ARRAY(ctx, rlx_tir_buffer_t*, c->n_args);
  for (int i = 0; i < c->n_args; i++) {
    params[i] = c->args[i]->buffer->data;
    bmap[i] = c->args[i]->buffer;
  }
  rlx_tir_func_t* f = rlx_tir_func_create(ctx, name ? name : "main", c->n_args, params, bmap, body);
  /* layout_free_buffers: the param indices of the computes' layout-free placeholders, each
   * once, ascending (TVM's create_prim_func). */
  rlx_expr_t** lf = RLX_NEW_ARRAY(ctx, rlx_expr_t*, c->n_args);
  bool* seen = RLX_NEW_ARRAY(ctx, bool, c->n_args);
  int n_lf = 0;
  for (int i = 0; i < n; i++) {
    rlx_te_tensor_t* t = c->order.data[i];
    for (int j = 0; j < t->n_layout_free; j++)
      for (int a = 0; a < c->n_args; a++)
        if (c->args[a] == t->layout_free[j]) seen[a] = true;
  }
  for (int a = 0; a < c->n_args; a++) /* ascending, as TVM's set of indices */
    if (seen[a]) lf[n_lf++] = rlx_ir_i32(ctx, a);
  if (n_lf) f = rlx_tir_func_with_attr(ctx, f, "layout_free_buffers", rlx_ir_call(ctx, rlx_dt_int32(), RLX_TIR_ATTR_LIST, n_lf, lf));
  *out = rlx_tir_func_with_attr(ctx, f, "tir.noalias", rlx_ir_bool(ctx, true));
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_te_create_prim_func(rlx_ctx_t* ctx, int n_args, rlx_te_tensor_t* const* args, const char* name,
                                                   rlx_tir_func_t** out) {
  if (n_args < 0 || (n_args > 0 && !args))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "create_prim_func: bad argument list");
  cpf_t c = {ctx, args, n_args, {0}, {0}, {0}};
  rlx_status_t* st = create(&c, name, out);
  rlx_vec_free(&c.order);
  rlx_vec_free(&c.seen);
  rlx_vec_free(&c.block_names);
  return st;
}
