/* TIR node constructors: buffers, iter vars, statements, blocks, PrimFuncs. */
#include <string.h>

#include "tir.h"

static const char* const stmt_names[] = {
#define X(E, S) S,
#include "stmt.def"
#undef X
};
_Static_assert(sizeof(stmt_names) / sizeof(stmt_names[0]) == RLX_STMT_KIND_COUNT, "stmt.def table");

const char* rlx_tir_stmt_kind_name(rlx_tir_stmt_kind_t k) {
  return (unsigned)k < RLX_STMT_KIND_COUNT ? stmt_names[k] : "?";
}

#define DUP(ctx, p, n) rlx_arena_memdup(&(ctx)->arena, (p), sizeof(*(p)) * (size_t)(n))

rlx_tir_buffer_t* rlx_tir_buffer_create(rlx_ctx_t* ctx, const char* name, rlx_dtype_t dtype, int ndim,
                                        rlx_expr_t* const* shape, const char* scope) {
  rlx_tir_buffer_t* b = RLX_NEW(ctx, rlx_tir_buffer_t);
  b->name = rlx_ctx_strdup(ctx, name);
  b->data = rlx_ir_var(ctx, name, rlx_dt_handle());
  b->dtype = dtype;
  b->ndim = ndim;
  b->shape = DUP(ctx, shape, ndim);
  b->scope = rlx_ctx_strdup(ctx, scope ? scope : "global");
  return b;
}

rlx_iter_var_t* rlx_tir_iter_var(rlx_ctx_t* ctx, rlx_var_t* v, rlx_expr_t* min, rlx_expr_t* extent,
                                 rlx_iter_kind_t kind) {
  rlx_iter_var_t* iv = RLX_NEW(ctx, rlx_iter_var_t);
  iv->var = v;
  iv->dom.min = min;
  iv->dom.extent = extent;
  iv->kind = kind;
  return iv;
}

#define NEW_STMT(T, K) ((T*)new_stmt(ctx, sizeof(T), (K)))
static void* new_stmt(rlx_ctx_t* ctx, size_t size, rlx_tir_stmt_kind_t k) {
  rlx_tir_stmt_t* s = rlx_ctx_alloc(ctx, size);
  s->kind = k;
  return s;
}

rlx_tir_stmt_t* rlx_tir_store(rlx_ctx_t* ctx, rlx_tir_buffer_t* b, rlx_expr_t* value, int n,
                              rlx_expr_t* const* indices) {
  rlx_tir_store_t* s = NEW_STMT(rlx_tir_store_t, RLX_STMT_BUFFER_STORE);
  s->buffer = b;
  s->value = value;
  s->n_indices = n;
  s->indices = DUP(ctx, indices, n);
  return &s->hdr;
}

rlx_tir_stmt_t* rlx_tir_for(rlx_ctx_t* ctx, rlx_var_t* v, rlx_expr_t* min, rlx_expr_t* extent,
                            rlx_for_kind_t kind, rlx_tir_stmt_t* body) {
  rlx_tir_for_t* s = NEW_STMT(rlx_tir_for_t, RLX_STMT_FOR);
  s->var = v;
  s->min = min;
  s->extent = extent;
  s->for_kind = kind;
  s->body = body;
  return &s->hdr;
}

rlx_tir_stmt_t* rlx_tir_seq(rlx_ctx_t* ctx, int n, rlx_tir_stmt_t* const* stmts) {
  int total = 0;
  for (int i = 0; i < n; i++) {
    if (!stmts[i]) continue;
    total += stmts[i]->kind == RLX_STMT_SEQ ? RLX_AS(rlx_tir_seq_t, stmts[i])->n : 1;
  }
  if (total == 1) {
    for (int i = 0; i < n; i++)
      if (stmts[i]) return stmts[i]->kind == RLX_STMT_SEQ ? RLX_AS(rlx_tir_seq_t, stmts[i])->stmts[0] : stmts[i];
  }
  rlx_tir_seq_t* s = NEW_STMT(rlx_tir_seq_t, RLX_STMT_SEQ);
  s->stmts = RLX_NEW_ARRAY(ctx, rlx_tir_stmt_t*, total);
  for (int i = 0; i < n; i++) {
    if (!stmts[i]) continue;
    if (stmts[i]->kind == RLX_STMT_SEQ) {
      rlx_tir_seq_t* in = RLX_AS(rlx_tir_seq_t, stmts[i]);
      for (int j = 0; j < in->n; j++) s->stmts[s->n++] = in->stmts[j];
    } else {
      s->stmts[s->n++] = stmts[i];
    }
  }
  return &s->hdr;
}

rlx_tir_stmt_t* rlx_tir_if(rlx_ctx_t* ctx, rlx_expr_t* cond, rlx_tir_stmt_t* then_case,
                           rlx_tir_stmt_t* else_case) {
  rlx_tir_if_t* s = NEW_STMT(rlx_tir_if_t, RLX_STMT_IF);
  s->cond = cond;
  s->then_case = then_case;
  s->else_case = else_case;
  return &s->hdr;
}

rlx_tir_stmt_t* rlx_tir_let(rlx_ctx_t* ctx, rlx_var_t* v, rlx_expr_t* value, rlx_tir_stmt_t* body) {
  rlx_tir_let_t* s = NEW_STMT(rlx_tir_let_t, RLX_STMT_LET);
  s->var = v;
  s->value = value;
  s->body = body;
  return &s->hdr;
}

rlx_tir_stmt_t* rlx_tir_evaluate(rlx_ctx_t* ctx, rlx_expr_t* value) {
  rlx_tir_evaluate_t* s = NEW_STMT(rlx_tir_evaluate_t, RLX_STMT_EVALUATE);
  s->value = value;
  return &s->hdr;
}

rlx_tir_stmt_t* rlx_tir_block_realize(rlx_ctx_t* ctx, int n, rlx_expr_t* const* values,
                                      rlx_expr_t* predicate, rlx_tir_block_t* block) {
  rlx_tir_block_realize_t* s = NEW_STMT(rlx_tir_block_realize_t, RLX_STMT_BLOCK_REALIZE);
  s->n_values = n;
  s->iter_values = DUP(ctx, values, n);
  s->predicate = predicate;
  s->block = block;
  return &s->hdr;
}

rlx_tir_stmt_t* rlx_tir_allocate(rlx_ctx_t* ctx, rlx_tir_buffer_t* b, rlx_tir_stmt_t* body) {
  rlx_tir_allocate_t* s = NEW_STMT(rlx_tir_allocate_t, RLX_STMT_ALLOCATE);
  s->buffer = b;
  s->body = body;
  return &s->hdr;
}

rlx_tir_block_t* rlx_tir_block_copy(rlx_ctx_t* ctx, const rlx_tir_block_t* b) {
  rlx_tir_block_t* c = RLX_NEW(ctx, rlx_tir_block_t);
  *c = *b;
  c->iter_vars = DUP(ctx, b->iter_vars, b->n_iter_vars);
  c->reads = DUP(ctx, b->reads, b->n_reads);
  c->writes = DUP(ctx, b->writes, b->n_writes);
  c->alloc_buffers = DUP(ctx, b->alloc_buffers, b->n_alloc_buffers);
  c->annotation_keys = DUP(ctx, b->annotation_keys, b->n_annotations);
  c->annotation_values = DUP(ctx, b->annotation_values, b->n_annotations);
  return c;
}

rlx_tir_func_t* rlx_tir_func_create(rlx_ctx_t* ctx, const char* name, int n_params, rlx_var_t* const* params,
                                    rlx_tir_buffer_t* const* buffer_map, rlx_tir_stmt_t* body) {
  rlx_tir_func_t* f = RLX_NEW(ctx, rlx_tir_func_t);
  f->name = rlx_ctx_strdup(ctx, name);
  f->n_params = n_params;
  f->params = DUP(ctx, params, n_params);
  f->buffer_map = RLX_NEW_ARRAY(ctx, rlx_tir_buffer_t*, n_params);
  if (buffer_map)
    for (int i = 0; i < n_params; i++) f->buffer_map[i] = buffer_map[i];
  f->body = body;
  return f;
}

rlx_tir_func_t* rlx_tir_func_copy(rlx_ctx_t* ctx, const rlx_tir_func_t* f) {
  rlx_tir_func_t* c = RLX_NEW(ctx, rlx_tir_func_t);
  *c = *f;
  c->params = DUP(ctx, f->params, f->n_params);
  c->buffer_map = DUP(ctx, f->buffer_map, f->n_params);
  c->attr_keys = DUP(ctx, f->attr_keys, f->n_attrs);
  c->attr_values = DUP(ctx, f->attr_values, f->n_attrs);
  return c;
}

rlx_expr_t* rlx_tir_func_get_attr(const rlx_tir_func_t* f, const char* key) {
  for (int i = 0; i < f->n_attrs; i++)
    if (strcmp(f->attr_keys[i], key) == 0) return f->attr_values[i];
  return NULL;
}

rlx_tir_func_t* rlx_tir_func_with_attr(rlx_ctx_t* ctx, const rlx_tir_func_t* f, const char* key, rlx_expr_t* v) {
  rlx_tir_func_t* c = rlx_tir_func_copy(ctx, f);
  for (int i = 0; i < c->n_attrs; i++) {
    if (strcmp(c->attr_keys[i], key) == 0) {
      c->attr_values[i] = v;
      return c;
    }
  }
  const char** keys = RLX_NEW_ARRAY(ctx, const char*, c->n_attrs + 1);
  rlx_expr_t** vals = RLX_NEW_ARRAY(ctx, rlx_expr_t*, c->n_attrs + 1);
  for (int i = 0; i < c->n_attrs; i++) {
    keys[i] = c->attr_keys[i];
    vals[i] = c->attr_values[i];
  }
  keys[c->n_attrs] = rlx_ctx_strdup(ctx, key);
  vals[c->n_attrs] = v;
  c->attr_keys = keys;
  c->attr_values = vals;
  c->n_attrs++;
  return c;
}
