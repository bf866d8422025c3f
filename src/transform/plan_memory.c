/* Pass plan_memory: static memory planning (TVM's StaticPlanBlockMemory, with the kills
 * its earlier versions inserted).
 *
 * Requires: the output of call_tir_rewrite (R.builtin.alloc_tensor + DPS calls, no dataflow
 * blocks: a dataflow block is left unplanned).
 *
 * Produces, for each SeqExpr of each Relax function (function bodies, If branches, nested
 * functions), planned separately:
 * - every `t = R.builtin.alloc_tensor(shape, dtype, dev)` that is planned becomes
 *     t = R.memory.alloc_tensor(storage, R.prim_value(0), shape, dtype)
 *   preceded, where the storage is first used, by
 *     storage = R.memory.alloc_storage(R.shape([nbytes]), dev, R.str("global"), R.dtype("uint8"));
 * - `_ = R.memory.kill_tensor(t)` right after t's last use (at the end of its block when it
 *   lives to the end), and `_ = R.memory.kill_storage(storage)` for every storage at the end
 *   of the SeqExpr's last block (the end of the function for the function body);
 * - relax.force_pure = True on pure functions that got kills (the kills are impure).
 *
 * Which tensors are planned (TVM's rules): a tensor is planned unless it escapes, i.e. it
 * (or an alias: `y = t`, a match_cast of t, a tuple holding t and items taken from it) is
 * returned or otherwise used outside the binding block that allocates it, used in an If,
 * a nested function or SeqExpr, or passed to anything but a PrimFunc of the module, an
 * external function (ExternFunc call, R.call_pure_packed) or a tuple. Function outputs thus
 * keep R.builtin.alloc_tensor.
 *
 * Lifetimes: from the allocating binding to the last binding of the same block that passes
 * the tensor to a PrimFunc or to a kernel of the runtime's library (rlx.nn.*, which keep no
 * reference); a tensor passed to any other external function lives to the end of its block
 * (it may be retained). A storage freed at binding i can hold a tensor allocated after
 * i. Storages are shared by all blocks of a SeqExpr.
 *
 * Sizes: prod(shape) * bytes(dtype). A symbolic dim with an upper bound from the function's
 * "tir_var_upper_bound" attribute (see memory.h) counts as its bound. Constant sizes reuse a
 * free storage best-fit (TVM): the smallest free storage of at least the size and at most 16
 * times it, else the largest free one of at least 1/16 of it, which then grows. Symbolic
 * sizes reuse a free symbolic storage whose size the prover shows equal. */
#include <string.h>

#include "../relax/op.h"
#include "../runtime/kernels/nn_kernels.h"
#include "memory.h"
#include "pass_util.h"

enum { TO_END = 1 << 30, MATCH_RANGE = 16 };

typedef struct storage {
  rlx_expr_t* bytes;
  int64_t const_bytes; /* -1 when symbolic */
  bool is_free;
  rlx_relax_expr_t* dev; /* device index PrimValue of the first tensor */
  rlx_relax_var_t* var;  /* set when emitted */
} storage_t;

typedef struct token {
  rlx_relax_var_t* var; /* the tensor */
  rlx_relax_call_t* alloc;
  rlx_expr_t* bytes;
  int64_t const_bytes; /* -1 when symbolic */
  int block, alloc_idx, last_use;
  bool discarded;
  storage_t* storage;
} token_t;

/* The tokens a value holds: a tensor (leaf), a tuple of them (fields), or none (NULL). */
typedef struct toks {
  token_t* leaf;
  int n;
  struct toks** fields;
} toks_t;

typedef struct {
  rlx_ctx_t* ctx;
  rlx_module_t* m;
  rlx_analyzer_t* bounds; /* upper bounds of the current function's vars */
  rlx_ptrmap_t var_toks;  /* relax var → toks_t* (current SeqExpr) */
  rlx_ptrmap_t alloc_tok; /* alloc binding → token_t* */
  bool inserted_kills;
} plan_t;

static RLX_MUST_USE rlx_status_t* plan_expr(plan_t* p, rlx_relax_expr_t* e, rlx_relax_expr_t** out);

/* ------------------------------------------------------------------ sizes */
rlx_expr_t* rlx_memory_tensor_bytes(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_dtype_t dtype) {
  rlx_expr_t* n = rlx_ir_i64(ctx, rlx_dtype_bytes(dtype));
  for (int i = 0; i < ndim; i++) n = rlx_ir_mul(ctx, n, rlx_ir_cast(ctx, rlx_dt_int64(), shape[i]));
  return rlx_ir_simplify(ctx, n);
}

typedef RLX_VEC(rlx_var_t*) var_vec_t;
typedef struct {
  var_vec_t vars;
  rlx_ptrmap_t seen;
} sig_vars_t;

static void collect_sig_var(rlx_var_t* v, bool whole_dim, void* user) {
  sig_vars_t* s = user;
  if (rlx_ptrmap_has(&s->seen, v)) return;
  rlx_ptrmap_put(&s->seen, v, v);
  rlx_vec_push(&s->vars, v);
}

RLX_MUST_USE rlx_status_t* rlx_memory_upper_bounds(rlx_ctx_t* ctx, const rlx_relax_func_t* f, rlx_analyzer_t** out,
                                                   int* out_n_bound) {
  rlx_analyzer_t* an = rlx_analyzer_create(ctx);
  int n_bound = 0;
  const rlx_attr_t* a = rlx_attrs_get(&f->attrs, "tir_var_upper_bound");
  if (a && a->kind != RLX_ATTR_STR)
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "attribute tir_var_upper_bound must be a string such as '{\"n\": 1024}'");
  if (a) {
    /* the bound names refer to the symbolic vars of the signature */
    sig_vars_t sv;
    memset(&sv, 0, sizeof(sv));
    for (int i = 0; i < f->n_params; i++) rlx_sinfo_visit_vars(f->params[i]->hdr.sinfo, collect_sig_var, &sv);
    rlx_ptrmap_free(&sv.seen);
    var_vec_t sig = sv.vars;
    const char* s = a->u.s;
    rlx_status_t* st = NULL;
    while (*s && !st) {
      while (*s && !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) s++;
      if (!*s) break;
      const char* name = s;
      while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_') s++;
      size_t len = (size_t)(s - name);
      while (*s == ' ' || *s == '"' || *s == '\'' || *s == ':' || *s == '=') s++;
      char* end = NULL;
      long long v = strtoll(s, &end, 10);
      if (end == s || v <= 0) {
        st = rlx_status_create(RLX_INVALID_ARGUMENT,
                               "attribute tir_var_upper_bound: '%.*s' needs a positive integer bound (\"%s\")",
                               (int)len, name, a->u.s);
        break;
      }
      s = end;
      for (int i = 0; i < sig.len; i++)
        if (strlen(sig.data[i]->name) == len && strncmp(sig.data[i]->name, name, len) == 0) {
          rlx_analyzer_bind(an, sig.data[i], rlx_ir_i64(ctx, 0), rlx_ir_i64(ctx, (int64_t)v + 1));
          n_bound++;
        }
    }
    rlx_vec_free(&sig);
    if (st) return st;
  }
  *out = an;
  if (out_n_bound) *out_n_bound = n_bound;
  return NULL;
}

/* Planning size of a tensor: bounded dims replaced by their upper bound. */
static rlx_expr_t* planning_bytes(plan_t* p, const rlx_relax_shape_expr_t* shape, rlx_dtype_t dt) {
  rlx_expr_t** dims = RLX_NEW_ARRAY(p->ctx, rlx_expr_t*, shape->ndim);
  for (int i = 0; i < shape->ndim; i++) {
    int64_t lo = 0, hi = 0;
    dims[i] = shape->values[i];
    if (!rlx_expr_is_const_int(dims[i], NULL) && rlx_analyzer_const_bound(p->bounds, dims[i], &lo, &hi))
      dims[i] = rlx_ir_i64(p->ctx, hi);
  }
  return rlx_memory_tensor_bytes(p->ctx, shape->ndim, dims, dt);
}

/* ------------------------------------------------------------------ tokens */
static void discard(toks_t* t) {
  if (!t) return;
  if (t->leaf) t->leaf->discarded = true;
  for (int i = 0; i < t->n; i++) discard(t->fields[i]);
}

static void use(toks_t* t, int idx) {
  if (!t) return;
  if (t->leaf && !t->leaf->discarded && idx > t->leaf->last_use) t->leaf->last_use = idx;
  for (int i = 0; i < t->n; i++) use(t->fields[i], idx);
}

static void discard_var_cb(const rlx_relax_expr_t* e, void* user) {
  plan_t* p = user;
  if (rlx_relax_is_var(e)) discard(rlx_ptrmap_get(&p->var_toks, e));
}

/* Every token reachable from a var that e mentions (nested expressions included). */
static void discard_in(plan_t* p, const rlx_relax_expr_t* e) { rlx_relax_expr_visit(e, discard_var_cb, p); }

/* The tokens the value e holds; any token e uses in another way is discarded. */
static toks_t* toks_of(plan_t* p, rlx_relax_expr_t* e) {
  switch (e->kind) {
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR: return rlx_ptrmap_get(&p->var_toks, e);
    case RLX_RELAX_TUPLE: {
      rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)e;
      toks_t* r = RLX_NEW(p->ctx, toks_t);
      r->n = t->n_fields;
      r->fields = RLX_NEW_ARRAY(p->ctx, toks_t*, t->n_fields);
      bool any = false;
      for (int i = 0; i < t->n_fields; i++) any |= (r->fields[i] = toks_of(p, t->fields[i])) != NULL;
      return any ? r : NULL;
    }
    case RLX_RELAX_TUPLE_GET_ITEM: {
      rlx_relax_tuple_get_item_t* g = (rlx_relax_tuple_get_item_t*)e;
      toks_t* t = toks_of(p, g->tuple);
      if (!t) return NULL;
      if (t->leaf || g->index < 0 || g->index >= t->n) { /* not a tuple of the expected arity: be safe */
        discard(t);
        return NULL;
      }
      return t->fields[g->index];
    }
    case RLX_RELAX_CONSTANT:
    case RLX_RELAX_SHAPE_EXPR:
    case RLX_RELAX_PRIM_VALUE:
    case RLX_RELAX_STRING_IMM:
    case RLX_RELAX_DATA_TYPE_IMM:
    case RLX_RELAX_OP:
    case RLX_RELAX_GLOBAL_VAR:
    case RLX_RELAX_EXTERN_FUNC:
      return NULL;
    case RLX_RELAX_CALL:
    case RLX_RELAX_IF:
    case RLX_RELAX_SEQ:
    case RLX_RELAX_FUNCTION:
    case RLX_RELAX_KIND_COUNT:
      break;
  }
  discard_in(p, e);
  return NULL;
}

static bool is_prim_func(plan_t* p, const rlx_relax_expr_t* op) {
  if (!op || op->kind != RLX_RELAX_GLOBAL_VAR) return false;
  rlx_module_entry_t* ent = rlx_module_find(p->m, ((const rlx_relax_global_var_t*)op)->name);
  return ent && ent->kind == RLX_FUNC_TIR;
}

/* A kernel of the runtime's library (rlx.nn.*: layout_nchwc's convolutions, pools, layout
 * changes): destination-passing, it reads its inputs and writes its output during the call
 * and keeps no reference, so its arguments' lifetimes end there as for a PrimFunc. */
static bool is_library_kernel(const rlx_relax_expr_t* op) {
  return op && op->kind == RLX_RELAX_EXTERN_FUNC &&
         rlx_kernel_lookup(((const rlx_relax_extern_func_t*)op)->global_symbol) != NULL;
}

/* A planned allocation: alloc_tensor with a known shape (ShapeExpr) and dtype. */
static bool plannable_alloc(const rlx_relax_binding_t* b) {
  if (b->kind != RLX_BINDING_VAR || b->value->kind != RLX_RELAX_CALL) return false;
  const rlx_relax_call_t* c = (const rlx_relax_call_t*)b->value;
  if (!rlx_relax_is_op(c->op, RLX_OP_BUILTIN_ALLOC_TENSOR) || c->n_args < 3) return false;
  return c->args[0]->kind == RLX_RELAX_SHAPE_EXPR && c->args[1]->kind == RLX_RELAX_DATA_TYPE_IMM &&
         !rlx_dtype_is_void(((const rlx_relax_dtype_imm_t*)c->args[1])->value);
}

/* Tokens and lifetimes of block bi's bindings (TVM's StorageAllocatorInit). */
typedef RLX_VEC(token_t*) token_vec_t;
typedef RLX_VEC(storage_t*) storage_vec_t;

static void analyze_block(plan_t* p, const rlx_relax_block_t* blk, int bi, token_vec_t* tokens) {
  for (int i = 0; i < blk->n_bindings; i++) {
    rlx_relax_binding_t* b = blk->bindings[i];
    rlx_relax_expr_t* v = b->value;
    if (plannable_alloc(b)) {
      rlx_relax_call_t* c = (rlx_relax_call_t*)v;
      token_t* t = RLX_NEW(p->ctx, token_t);
      t->var = b->var;
      t->alloc = c;
      t->bytes = planning_bytes(p, (const rlx_relax_shape_expr_t*)c->args[0],
                                ((const rlx_relax_dtype_imm_t*)c->args[1])->value);
      t->const_bytes = rlx_expr_is_const_int(t->bytes, &t->const_bytes) ? t->const_bytes : -1;
      t->block = bi;
      t->alloc_idx = t->last_use = i;
      toks_t* leaf = RLX_NEW(p->ctx, toks_t);
      leaf->leaf = t;
      rlx_ptrmap_put(&p->var_toks, b->var, leaf);
      rlx_ptrmap_put(&p->alloc_tok, b, t);
      rlx_vec_push(tokens, t);
      continue;
    }
    if (v->kind == RLX_RELAX_CALL) {
      rlx_relax_call_t* c = (rlx_relax_call_t*)v;
      bool prim = is_prim_func(p, c->op) || is_library_kernel(c->op);
      bool ext = c->op->kind == RLX_RELAX_EXTERN_FUNC || rlx_relax_is_op(c->op, RLX_OP_CALL_PURE_PACKED);
      if (prim || ext) {
        if (c->op->kind != RLX_RELAX_OP) discard_in(p, c->op);
        for (int a = 0; a < c->n_args; a++) use(toks_of(p, c->args[a]), prim ? i : TO_END);
        continue;
      }
      discard_in(p, v);
      continue;
    }
    if (v->kind == RLX_RELAX_VAR || v->kind == RLX_RELAX_DATAFLOW_VAR || v->kind == RLX_RELAX_TUPLE ||
        v->kind == RLX_RELAX_TUPLE_GET_ITEM) {
      toks_t* t = toks_of(p, v); /* an alias: the var holds the same tensors */
      if (t) rlx_ptrmap_put(&p->var_toks, b->var, t);
      continue;
    }
    discard_in(p, v);
  }
}

/* ------------------------------------------------------------------ allocation */
static storage_t* request(plan_t* p, storage_vec_t* pool, token_t* t) {
  storage_t* best = NULL;
  if (t->const_bytes >= 0) {
    int64_t size = t->const_bytes;
    for (int i = 0; i < pool->len; i++) { /* smallest free storage in [size, size * 16] */
      storage_t* s = pool->data[i];
      if (!s->is_free || s->const_bytes < size || s->const_bytes > size * MATCH_RANGE) continue;
      if (!best || s->const_bytes < best->const_bytes) best = s;
    }
    if (!best)
      for (int i = 0; i < pool->len; i++) { /* else the largest in [size / 16, size), grown */
        storage_t* s = pool->data[i];
        if (!s->is_free || s->const_bytes < 0 || s->const_bytes >= size || s->const_bytes < size / MATCH_RANGE)
          continue;
        if (!best || s->const_bytes > best->const_bytes) best = s;
      }
    if (best && best->const_bytes < size) {
      best->const_bytes = size;
      best->bytes = rlx_ir_i64(p->ctx, size);
    }
  } else {
    for (int i = 0; i < pool->len && !best; i++) {
      storage_t* s = pool->data[i];
      if (s->is_free && s->const_bytes < 0 && rlx_ir_prove_equal(p->ctx, s->bytes, t->bytes)) best = s;
    }
  }
  if (!best) {
    best = RLX_NEW(p->ctx, storage_t);
    best->bytes = t->bytes;
    best->const_bytes = t->const_bytes;
    best->dev = t->alloc->args[2];
    rlx_vec_push(pool, best);
  }
  best->is_free = false;
  return best;
}

/* ------------------------------------------------------------------ rewriting */
typedef RLX_VEC(rlx_relax_binding_t*) bindings_t;

static RLX_MUST_USE rlx_status_t* emit_call(plan_t* p, bindings_t* out, const char* name, rlx_op_id_t op, int n,
                                            rlx_relax_expr_t* const* args, rlx_relax_var_t** out_var) {
  rlx_relax_expr_t* call = rlx_relax_op_call(p->ctx, op, n, args, (rlx_attrs_t){0});
  RLX_RETURN_IF_ERROR(rlx_relax_normalize(p->ctx, p->m, call));
  rlx_relax_var_t* v = rlx_relax_var(p->ctx, name, call->sinfo);
  rlx_vec_push(out, rlx_relax_var_binding(p->ctx, v, call));
  if (out_var) *out_var = v;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* emit_kill_tensor(plan_t* p, bindings_t* out, token_t* t) {
  rlx_relax_expr_t* arg = &t->var->hdr;
  p->inserted_kills = true;
  return emit_call(p, out, "_", RLX_OP_MEMORY_KILL_TENSOR, 1, &arg, NULL);
}

static RLX_MUST_USE rlx_status_t* rewrite_binding(plan_t* p, rlx_relax_binding_t* b, bindings_t* out) {
  rlx_ctx_t* ctx = p->ctx;
  token_t* t = rlx_ptrmap_get(&p->alloc_tok, b);
  if (t && !t->discarded) {
    storage_t* s = t->storage;
    if (!s->var) {
      rlx_relax_expr_t* args[4] = {rlx_relax_shape_expr(ctx, 1, &s->bytes), s->dev, rlx_relax_string_imm(ctx, "global"),
                                   rlx_relax_dtype_imm(ctx, rlx_dtype(RLX_DT_UINT, 8, 1))};
      RLX_RETURN_IF_ERROR(emit_call(p, out, "storage", RLX_OP_MEMORY_ALLOC_STORAGE, 4, args, &s->var));
    }
    rlx_relax_expr_t* args[4] = {&s->var->hdr, rlx_relax_prim_value(ctx, rlx_ir_i64(ctx, 0)), t->alloc->args[0],
                                 t->alloc->args[1]};
    rlx_relax_expr_t* call = rlx_relax_op_call(ctx, RLX_OP_MEMORY_ALLOC_TENSOR, 4, args, (rlx_attrs_t){0});
    RLX_RETURN_IF_ERROR(rlx_relax_normalize(ctx, p->m, call));
    rlx_vec_push(out, rlx_relax_var_binding(ctx, b->var, call)); /* the tensor keeps its var */
    return NULL;
  }
  rlx_relax_expr_t* v = NULL;
  RLX_RETURN_IF_ERROR(plan_expr(p, b->value, &v));
  if (v == b->value) rlx_vec_push(out, b);
  else
    rlx_vec_push(out, b->kind == RLX_BINDING_MATCH_CAST ? rlx_relax_match_cast(ctx, b->var, v, b->sinfo)
                                                        : rlx_relax_var_binding(ctx, b->var, v));
  return NULL;
}

static RLX_MUST_USE rlx_status_t* plan_seq(plan_t* p, rlx_relax_seq_t* s, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = p->ctx;
  storage_vec_t pool = {0};
  token_vec_t tokens = {0};
  RLX_VEC(rlx_relax_block_t*) blocks = {0};
  bindings_t bs = {0};
  rlx_status_t* st = NULL;
  bool changed = false;
  rlx_ptrmap_t saved_vt = p->var_toks;
  memset(&p->var_toks, 0, sizeof(p->var_toks));
  for (int bi = 0; bi < s->n_blocks && !st; bi++) {
    rlx_relax_block_t* blk = s->blocks[bi];
    tokens.len = 0;
    bs.len = 0;
    if (!blk->is_dataflow) {
      analyze_block(p, blk, bi, &tokens);
      /* uses after the block (later blocks, the body) make a tensor escape */
      for (int bj = bi + 1; bj < s->n_blocks; bj++)
        for (int k = 0; k < s->blocks[bj]->n_bindings; k++) discard_in(p, s->blocks[bj]->bindings[k]->value);
      discard_in(p, s->body);
    }
    /* allocation, binding by binding (TVM's StorageAllocator) */
    for (int i = 0; i < blk->n_bindings; i++) {
      token_t* t = rlx_ptrmap_get(&p->alloc_tok, blk->bindings[i]);
      if (t && !t->discarded) t->storage = request(p, &pool, t);
      for (int k = 0; k < tokens.len; k++)
        /* no storage: its binding was lost from alloc_tok by a failed put (the pass fails at
         * the pipeline's check) */
        if (!tokens.data[k]->discarded && tokens.data[k]->last_use == i && tokens.data[k]->storage)
          tokens.data[k]->storage->is_free = true;
    }
    /* rewriting */
    for (int i = 0; i < blk->n_bindings && !st; i++) {
      st = rewrite_binding(p, blk->bindings[i], &bs);
      for (int k = 0; k < tokens.len && !st; k++)
        if (!tokens.data[k]->discarded && tokens.data[k]->last_use == i) st = emit_kill_tensor(p, &bs, tokens.data[k]);
    }
    for (int k = 0; k < tokens.len && !st; k++)
      if (!tokens.data[k]->discarded && tokens.data[k]->last_use == TO_END)
        st = emit_kill_tensor(p, &bs, tokens.data[k]);
    bool same = bs.len == blk->n_bindings;
    for (int i = 0; same && i < bs.len; i++) same = bs.data[i] == blk->bindings[i];
    rlx_vec_push(&blocks, same ? blk : rlx_relax_block(ctx, blk->is_dataflow, bs.len, bs.data));
    changed |= !same;
  }
  if (!st && pool.len) { /* kill every storage at the end of the last block */
    bs.len = 0;
    rlx_relax_block_t* last = blocks.len ? blocks.data[blocks.len - 1] : NULL;
    bool append = last && !last->is_dataflow;
    if (append)
      for (int i = 0; i < last->n_bindings; i++) rlx_vec_push(&bs, last->bindings[i]);
    for (int i = 0; i < pool.len && !st; i++) {
      rlx_relax_expr_t* arg = &pool.data[i]->var->hdr;
      st = emit_call(p, &bs, "_", RLX_OP_MEMORY_KILL_STORAGE, 1, &arg, NULL);
    }
    p->inserted_kills = true;
    rlx_relax_block_t* nb = rlx_relax_block(ctx, false, bs.len, bs.data);
    if (append) blocks.data[blocks.len - 1] = nb;
    else rlx_vec_push(&blocks, nb);
    changed = true;
  }
  rlx_relax_expr_t* body = s->body;
  if (!st) st = plan_expr(p, s->body, &body);
  if (!st) *out = changed || body != s->body ? rlx_relax_seq(ctx, blocks.len, blocks.data, body) : &s->hdr;
  rlx_ptrmap_free(&p->var_toks);
  p->var_toks = saved_vt;
  rlx_vec_free(&pool);
  rlx_vec_free(&tokens);
  rlx_vec_free(&blocks);
  rlx_vec_free(&bs);
  return st;
}

static RLX_MUST_USE rlx_status_t* plan_func(plan_t* p, rlx_relax_func_t* f, rlx_relax_func_t** out) {
  rlx_analyzer_t* saved_bounds = p->bounds;
  bool saved_kills = p->inserted_kills;
  p->inserted_kills = false;
  rlx_status_t* st = rlx_memory_upper_bounds(p->ctx, f, &p->bounds, NULL);
  rlx_relax_expr_t* body = f->body;
  if (!st) st = plan_expr(p, f->body, &body);
  *out = f;
  if (!st && body != f->body) {
    rlx_attrs_t attrs = f->attrs;
    const rlx_attr_t* fp = rlx_attrs_get(&f->attrs, "relax.force_pure");
    if (p->inserted_kills && f->is_pure && !(fp && fp->kind == RLX_ATTR_BOOL && fp->u.b))
      attrs = rlx_attrs_set(p->ctx, attrs, "relax.force_pure", rlx_attr_bool(true));
    *out = rlx_relax_func(p->ctx, f->n_params, f->params, body, f->ret_sinfo, attrs, f->is_pure);
  }
  p->bounds = saved_bounds;
  p->inserted_kills = saved_kills;
  return st;
}

/* Plans every SeqExpr inside e (If branches, nested functions). */
static RLX_MUST_USE rlx_status_t* plan_expr(plan_t* p, rlx_relax_expr_t* e, rlx_relax_expr_t** out) {
  *out = e;
  switch (e->kind) {
    case RLX_RELAX_SEQ: return plan_seq(p, (rlx_relax_seq_t*)e, out);
    case RLX_RELAX_FUNCTION: {
      rlx_relax_func_t* f = NULL;
      RLX_RETURN_IF_ERROR(plan_func(p, (rlx_relax_func_t*)e, &f));
      *out = &f->hdr;
      return NULL;
    }
    case RLX_RELAX_TUPLE:
    case RLX_RELAX_TUPLE_GET_ITEM:
    case RLX_RELAX_CALL:
    case RLX_RELAX_IF: {
      int n = rlx_relax_expr_children(e, NULL, 0);
      rlx_relax_expr_t** kids = RLX_NEW_ARRAY(p->ctx, rlx_relax_expr_t*, n);
      rlx_relax_expr_children(e, kids, n);
      for (int k = 0; k < n; k++) RLX_RETURN_IF_ERROR(plan_expr(p, kids[k], &kids[k]));
      *out = rlx_relax_expr_rebuild(p->ctx, e, kids);
      return NULL;
    }
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR:
    case RLX_RELAX_CONSTANT:
    case RLX_RELAX_SHAPE_EXPR:
    case RLX_RELAX_PRIM_VALUE:
    case RLX_RELAX_STRING_IMM:
    case RLX_RELAX_DATA_TYPE_IMM:
    case RLX_RELAX_OP:
    case RLX_RELAX_GLOBAL_VAR:
    case RLX_RELAX_EXTERN_FUNC:
      return NULL;
    case RLX_RELAX_KIND_COUNT: break;
  }
  return rlx_status_create(RLX_INTERNAL, "plan_memory: bad expression kind %d", (int)e->kind);
}

static RLX_MUST_USE rlx_status_t* plan_entry(void* user, rlx_relax_func_t* f, rlx_relax_func_t** out) {
  return plan_func(user, f, out);
}

RLX_MUST_USE rlx_status_t* rlx_pass_plan_memory(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out) {
  rlx_module_t* m = pass_module_copy(ctx, in);
  plan_t p;
  memset(&p, 0, sizeof(p));
  p.ctx = ctx;
  p.m = m;
  rlx_status_t* st = pass_map_relax_funcs(ctx, m, "plan_memory", plan_entry, &p);
  rlx_ptrmap_free(&p.var_toks);
  rlx_ptrmap_free(&p.alloc_tok);
  if (st) return st;
  *out = m;
  return NULL;
}

/* ------------------------------------------------------------------ statistics */
typedef struct {
  rlx_ctx_t* ctx;
  int64_t static_sum;
  rlx_expr_t* sym_sum; /* NULL = 0 */
  int n_builtin, n_storage, n_mem_tensor;
} stats_acc_t;

static void add_bytes(stats_acc_t* a, rlx_expr_t* bytes) {
  int64_t c = 0;
  if (rlx_expr_is_const_int(bytes, &c)) a->static_sum += c;
  else a->sym_sum = a->sym_sum ? rlx_ir_add(a->ctx, a->sym_sum, bytes) : bytes;
}

static RLX_MUST_USE rlx_status_t* stats_cb(const rlx_relax_expr_t* e, void* user) {
  stats_acc_t* a = user;
  if (e->kind != RLX_RELAX_CALL) return NULL;
  const rlx_relax_call_t* c = (const rlx_relax_call_t*)e;
  if (rlx_relax_is_op(c->op, RLX_OP_BUILTIN_ALLOC_TENSOR)) {
    if (c->n_args < 2 || c->args[0]->kind != RLX_RELAX_SHAPE_EXPR || c->args[1]->kind != RLX_RELAX_DATA_TYPE_IMM)
      return rlx_status_create(RLX_INVALID_ARGUMENT, "memory stats: %s has no known shape and dtype",
                               rlx_relax_expr_brief(a->ctx, e));
    const rlx_relax_shape_expr_t* s = (const rlx_relax_shape_expr_t*)c->args[0];
    add_bytes(a, rlx_memory_tensor_bytes(a->ctx, s->ndim, s->values, ((const rlx_relax_dtype_imm_t*)c->args[1])->value));
    a->n_builtin++;
  } else if (rlx_relax_is_op(c->op, RLX_OP_MEMORY_ALLOC_STORAGE)) {
    if (c->n_args < 1 || c->args[0]->kind != RLX_RELAX_SHAPE_EXPR ||
        ((const rlx_relax_shape_expr_t*)c->args[0])->ndim != 1)
      return rlx_status_create(RLX_INVALID_ARGUMENT, "memory stats: %s has no known size",
                               rlx_relax_expr_brief(a->ctx, e));
    add_bytes(a, ((const rlx_relax_shape_expr_t*)c->args[0])->values[0]);
    a->n_storage++;
  } else if (rlx_relax_is_op(c->op, RLX_OP_MEMORY_ALLOC_TENSOR)) {
    a->n_mem_tensor++;
  }
  return NULL;
}

static rlx_memory_size_t size_of(stats_acc_t* a) {
  rlx_ctx_t* ctx = a->ctx;
  rlx_memory_size_t r;
  memset(&r, 0, sizeof(r));
  rlx_expr_t* e = rlx_ir_i64(ctx, a->static_sum);
  if (a->sym_sum) e = rlx_ir_simplify(ctx, rlx_ir_add(ctx, a->sym_sum, e));
  r.expr = e;
  r.is_static = rlx_expr_is_const_int(e, &r.bytes);
  rlx_strbuf_t sb = {0};
  rlx_relax_prim_print(e, &sb);
  r.str = rlx_ctx_strdup(ctx, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return r;
}

static RLX_MUST_USE rlx_status_t* find_relax_func(rlx_module_t* m, const char* func, const char* which, rlx_relax_func_t** out) {
  rlx_module_entry_t* ent = func ? rlx_module_find(m, func) : NULL;
  if (!ent || ent->kind != RLX_FUNC_RELAX)
    return rlx_status_create(RLX_NOT_FOUND, "memory stats: no Relax function '%s' in the module %s",
                             func ? func : "(null)", which);
  *out = ent->func;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_memory_stats(rlx_ctx_t* ctx, rlx_module_t* before_plan, rlx_module_t* after_plan, const char* func,
                                            rlx_memory_stats_t* out) {
  rlx_relax_func_t *fb = NULL, *fa = NULL;
  RLX_RETURN_IF_ERROR(find_relax_func(before_plan, func, "before planning", &fb));
  RLX_RETURN_IF_ERROR(find_relax_func(after_plan, func, "after planning", &fa));
  stats_acc_t before = {ctx, 0, NULL, 0, 0, 0}, after = {ctx, 0, NULL, 0, 0, 0};
  RLX_RETURN_IF_ERROR(rlx_relax_expr_try_visit(&fb->hdr, stats_cb, &before));
  RLX_RETURN_IF_ERROR(rlx_relax_expr_try_visit(&fa->hdr, stats_cb, &after));
  memset(out, 0, sizeof(*out));
  out->unplanned = size_of(&before);
  out->n_tensors = before.n_builtin + before.n_mem_tensor;
  out->planned = size_of(&after);
  out->n_storages = after.n_storage;
  out->n_planned_tensors = after.n_mem_tensor;
  out->n_unplanned_tensors = after.n_builtin;
  return NULL;
}
