/* Structural equality and hashing of TIR statements and PrimFuncs.
 *
 * Params, buffers (dtype, shape, scope, strides, offset), buffer data vars, loop vars, block
 * iter vars, let vars and allocated buffers are mapped by definition position; names of
 * variables, buffers and blocks are ignored (TVM's StructuralEqual skips Block.name_hint). Shape vars that first appear in buffer-map shapes are mapped on first occurrence, as
 * is any buffer met first at a use (flattened views of a param's data). Function and block
 * attributes are compared as key → value sets. The hash follows the same traversal, so equal
 * functions hash equally.
 */
#include <string.h>

#include "../ir/structural_internal.h"
#include "tir.h"

/* ------------------------------------------------------------------ equality */
static bool str_eq(const char* a, const char* b) { return strcmp(a ? a : "", b ? b : "") == 0; }

static bool buf_def_eq(rlx_eq_state_t* s, const rlx_tir_buffer_t* a, const rlx_tir_buffer_t* b) {
  if (!rlx_dtype_eq(a->dtype, b->dtype) || a->ndim != b->ndim || !str_eq(a->scope, b->scope)) return false;
  for (int i = 0; i < a->ndim; i++)
    if (!rlx_eq_expr(s, a->shape[i], b->shape[i])) return false;
  if (!a->strides != !b->strides) return false;
  if (a->strides)
    for (int i = 0; i < a->ndim; i++)
      if (!rlx_eq_expr(s, a->strides[i], b->strides[i])) return false;
  if (!rlx_eq_expr(s, a->elem_offset, b->elem_offset)) return false;
  if (!a->data != !b->data) return false;
  if (a->data && !rlx_eq_var(s, a->data, b->data)) return false;
  rlx_eq_define(s, a, b);
  return true;
}

static bool buf_use_eq(rlx_eq_state_t* s, const rlx_tir_buffer_t* a, const rlx_tir_buffer_t* b) {
  const void* fa = rlx_ptrmap_get(&s->fwd, a);
  if (fa) return fa == b;
  if (rlx_ptrmap_get(&s->bwd, b)) return false;
  return buf_def_eq(s, a, b);
}

static bool def_var_eq(rlx_eq_state_t* s, const rlx_var_t* a, const rlx_var_t* b) {
  if (!rlx_dtype_eq(a->hdr.dtype, b->hdr.dtype)) return false;
  rlx_eq_define(s, a, b);
  return true;
}

static bool region_eq(rlx_eq_state_t* s, const rlx_buffer_region_t* a, const rlx_buffer_region_t* b) {
  if (a->ndim != b->ndim || !buf_use_eq(s, a->buffer, b->buffer)) return false;
  for (int i = 0; i < a->ndim; i++)
    if (!rlx_eq_expr(s, a->region[i].min, b->region[i].min) || !rlx_eq_expr(s, a->region[i].extent, b->region[i].extent))
      return false;
  return true;
}

/* Key → value sets, order-insensitive; key `skip` (may be NULL) is left out. */
static bool attrs_eq(rlx_eq_state_t* s, int na, const char* const* ka, rlx_expr_t* const* va, int nb,
                     const char* const* kb, rlx_expr_t* const* vb, const char* skip) {
  int ca = 0, cb = 0;
  for (int i = 0; i < na; i++) ca += !(skip && str_eq(ka[i], skip));
  for (int j = 0; j < nb; j++) cb += !(skip && str_eq(kb[j], skip));
  if (ca != cb) return false;
  for (int i = 0; i < na; i++) {
    if (skip && str_eq(ka[i], skip)) continue;
    int j = 0;
    while (j < nb && !str_eq(ka[i], kb[j])) j++;
    if (j == nb || !rlx_eq_expr(s, va[i], vb[j])) return false;
  }
  return true;
}

/* A PrimFunc's "global_symbol" attribute (a string), or NULL. */
static const char* global_symbol_attr(const rlx_tir_func_t* f) {
  for (int i = 0; i < f->n_attrs; i++)
    if (str_eq(f->attr_keys[i], "global_symbol") && f->attr_values[i]->kind == RLX_EXPR_STRING_IMM)
      return RLX_AS(const rlx_string_imm_t, f->attr_values[i])->value;
  return NULL;
}

/* The global symbols agree: TVM's PrimFunc carries it as the attribute "global_symbol" (its
 * name otherwise lives in the module), rlx's as its name (the parser drops an attribute equal
 * to the def name). When either function states one, the symbols (the attribute, else a
 * public function's name) must match; when neither does, names are ignored (and the hash
 * does not mix privacy in, so that it stays consistent with both rules). */
static bool global_symbol_eq(const rlx_tir_func_t* a, const rlx_tir_func_t* b) {
  const char *ga = global_symbol_attr(a), *gb = global_symbol_attr(b);
  if (!ga && !gb) return a->is_private == b->is_private;
  if (!ga) ga = a->is_private ? NULL : a->name;
  if (!gb) gb = b->is_private ? NULL : b->name;
  return ga && gb ? strcmp(ga, gb) == 0 : ga == gb;
}

static bool stmt_eq(rlx_eq_state_t* s, const rlx_tir_stmt_t* a, const rlx_tir_stmt_t* b);

static bool block_eq(rlx_eq_state_t* s, const rlx_tir_block_t* a, const rlx_tir_block_t* b) {
  if (a->n_iter_vars != b->n_iter_vars || a->n_reads != b->n_reads ||
      a->n_writes != b->n_writes || a->n_alloc_buffers != b->n_alloc_buffers || !a->init != !b->init)
    return false;
  for (int i = 0; i < a->n_iter_vars; i++) {
    const rlx_iter_var_t* x = a->iter_vars[i];
    const rlx_iter_var_t* y = b->iter_vars[i];
    if (x->kind != y->kind || !rlx_eq_expr(s, x->dom.min, y->dom.min) || !rlx_eq_expr(s, x->dom.extent, y->dom.extent))
      return false;
    if (!def_var_eq(s, x->var, y->var)) return false;
  }
  for (int i = 0; i < a->n_alloc_buffers; i++)
    if (!buf_def_eq(s, a->alloc_buffers[i], b->alloc_buffers[i])) return false;
  for (int i = 0; i < a->n_reads; i++)
    if (!region_eq(s, &a->reads[i], &b->reads[i])) return false;
  for (int i = 0; i < a->n_writes; i++)
    if (!region_eq(s, &a->writes[i], &b->writes[i])) return false;
  if (!attrs_eq(s, a->n_annotations, a->annotation_keys, a->annotation_values, b->n_annotations, b->annotation_keys,
                b->annotation_values, NULL))
    return false;
  return stmt_eq(s, a->init, b->init) && stmt_eq(s, a->body, b->body);
}

static bool stmt_eq(rlx_eq_state_t* s, const rlx_tir_stmt_t* a, const rlx_tir_stmt_t* b) {
  if (!a || !b) return !a && !b;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case RLX_STMT_BUFFER_STORE: {
      const rlx_tir_store_t* x = RLX_AS(const rlx_tir_store_t, a);
      const rlx_tir_store_t* y = RLX_AS(const rlx_tir_store_t, b);
      if (x->n_indices != y->n_indices || !buf_use_eq(s, x->buffer, y->buffer)) return false;
      if (!rlx_eq_expr(s, x->value, y->value)) return false;
      for (int i = 0; i < x->n_indices; i++)
        if (!rlx_eq_expr(s, x->indices[i], y->indices[i])) return false;
      return true;
    }
    case RLX_STMT_FOR: {
      const rlx_tir_for_t* x = RLX_AS(const rlx_tir_for_t, a);
      const rlx_tir_for_t* y = RLX_AS(const rlx_tir_for_t, b);
      if (x->for_kind != y->for_kind || !rlx_eq_expr(s, x->min, y->min) || !rlx_eq_expr(s, x->extent, y->extent))
        return false;
      return def_var_eq(s, x->var, y->var) && stmt_eq(s, x->body, y->body);
    }
    case RLX_STMT_SEQ: {
      const rlx_tir_seq_t* x = RLX_AS(const rlx_tir_seq_t, a);
      const rlx_tir_seq_t* y = RLX_AS(const rlx_tir_seq_t, b);
      if (x->n != y->n) return false;
      for (int i = 0; i < x->n; i++)
        if (!stmt_eq(s, x->stmts[i], y->stmts[i])) return false;
      return true;
    }
    case RLX_STMT_IF: {
      const rlx_tir_if_t* x = RLX_AS(const rlx_tir_if_t, a);
      const rlx_tir_if_t* y = RLX_AS(const rlx_tir_if_t, b);
      return rlx_eq_expr(s, x->cond, y->cond) && stmt_eq(s, x->then_case, y->then_case) &&
             stmt_eq(s, x->else_case, y->else_case);
    }
    case RLX_STMT_LET: {
      const rlx_tir_let_t* x = RLX_AS(const rlx_tir_let_t, a);
      const rlx_tir_let_t* y = RLX_AS(const rlx_tir_let_t, b);
      return rlx_eq_expr(s, x->value, y->value) && def_var_eq(s, x->var, y->var) && stmt_eq(s, x->body, y->body);
    }
    case RLX_STMT_EVALUATE:
      return rlx_eq_expr(s, RLX_AS(const rlx_tir_evaluate_t, a)->value, RLX_AS(const rlx_tir_evaluate_t, b)->value);
    case RLX_STMT_BLOCK_REALIZE: {
      const rlx_tir_block_realize_t* x = RLX_AS(const rlx_tir_block_realize_t, a);
      const rlx_tir_block_realize_t* y = RLX_AS(const rlx_tir_block_realize_t, b);
      if (x->n_values != y->n_values) return false;
      for (int i = 0; i < x->n_values; i++)
        if (!rlx_eq_expr(s, x->iter_values[i], y->iter_values[i])) return false;
      return rlx_eq_expr(s, x->predicate, y->predicate) && block_eq(s, x->block, y->block);
    }
    case RLX_STMT_ALLOCATE: {
      const rlx_tir_allocate_t* x = RLX_AS(const rlx_tir_allocate_t, a);
      const rlx_tir_allocate_t* y = RLX_AS(const rlx_tir_allocate_t, b);
      return buf_def_eq(s, x->buffer, y->buffer) && stmt_eq(s, x->body, y->body);
    }
    case RLX_STMT_KIND_COUNT: break;
  }
  return false;
}

static bool buf_use_eq_cb(rlx_eq_state_t* s, const struct rlx_tir_buffer* a, const struct rlx_tir_buffer* b) {
  return buf_use_eq(s, a, b);
}

bool rlx_tir_stmt_equal(const rlx_tir_stmt_t* a, const rlx_tir_stmt_t* b) {
  rlx_eq_state_t s = {0};
  s.map_free = true;
  s.buf_eq = buf_use_eq_cb;
  bool r = stmt_eq(&s, a, b);
  rlx_eq_state_free(&s);
  return r;
}

bool rlx_tir_func_equal(const rlx_tir_func_t* a, const rlx_tir_func_t* b) {
  if (a == b) return true;
  if (!a || !b || a->n_params != b->n_params || !global_symbol_eq(a, b)) return false;
  rlx_eq_state_t s = {0};
  s.map_free = true;
  s.buf_eq = buf_use_eq_cb;
  bool r = true;
  for (int i = 0; i < a->n_params && r; i++) {
    r = def_var_eq(&s, a->params[i], b->params[i]);
    if (r && (!a->buffer_map[i] != !b->buffer_map[i])) r = false;
    if (r && a->buffer_map[i]) r = buf_def_eq(&s, a->buffer_map[i], b->buffer_map[i]);
  }
  r = r && attrs_eq(&s, a->n_attrs, a->attr_keys, a->attr_values, b->n_attrs, b->attr_keys, b->attr_values,
                    "global_symbol");
  r = r && stmt_eq(&s, a->body, b->body);
  rlx_eq_state_free(&s);
  return r;
}

/* ------------------------------------------------------------------ hashing */
#define MIX(h, v) ((h) = rlx_hash_combine((h), (uint64_t)(v)))

static uint64_t buf_def_hash(rlx_hash_state_t* s, const rlx_tir_buffer_t* b) {
  uint64_t h = 0xb0f;
  MIX(h, rlx_hash_dtype(b->dtype));
  MIX(h, b->ndim);
  MIX(h, rlx_hash_str(b->scope ? b->scope : ""));
  for (int i = 0; i < b->ndim; i++) MIX(h, rlx_hash_expr_state(s, b->shape[i]));
  MIX(h, b->strides != NULL);
  if (b->strides)
    for (int i = 0; i < b->ndim; i++) MIX(h, rlx_hash_expr_state(s, b->strides[i]));
  MIX(h, rlx_hash_expr_state(s, b->elem_offset));
  MIX(h, b->data != NULL);
  if (b->data) {
    MIX(h, rlx_hash_dtype(b->data->hdr.dtype));
    MIX(h, rlx_hash_ptr(s, b->data));
  }
  MIX(h, rlx_hash_define(s, b));
  return h;
}

static uint64_t buf_use_hash(rlx_hash_state_t* s, const struct rlx_tir_buffer* b) {
  if (rlx_ptrmap_get(&s->ids, b)) return rlx_hash_ptr(s, b);
  return buf_def_hash(s, b);
}

static uint64_t def_var_hash(rlx_hash_state_t* s, const rlx_var_t* v) {
  return rlx_hash_combine(rlx_hash_dtype(v->hdr.dtype), rlx_hash_define(s, v));
}

static uint64_t attrs_hash(rlx_hash_state_t* s, int n, const char* const* k, rlx_expr_t* const* v) {
  uint64_t h = 0;
  for (int i = 0; i < n; i++)
    if (!str_eq(k[i], "global_symbol")) /* compared apart, against the name (global_symbol_eq) */
      h += rlx_hash_combine(rlx_hash_str(k[i]), rlx_hash_expr_state(s, v[i]));
  return h;
}

static uint64_t stmt_hash(rlx_hash_state_t* s, const rlx_tir_stmt_t* st);

static uint64_t block_hash(rlx_hash_state_t* s, const rlx_tir_block_t* b) {
  uint64_t h = 0x5bd1e995u; /* the name is not hashed: equality ignores it */
  MIX(h, b->n_iter_vars);
  MIX(h, b->n_reads);
  MIX(h, b->n_writes);
  MIX(h, b->n_alloc_buffers);
  MIX(h, b->init != NULL);
  for (int i = 0; i < b->n_iter_vars; i++) {
    const rlx_iter_var_t* x = b->iter_vars[i];
    MIX(h, x->kind);
    MIX(h, rlx_hash_expr_state(s, x->dom.min));
    MIX(h, rlx_hash_expr_state(s, x->dom.extent));
    MIX(h, def_var_hash(s, x->var));
  }
  for (int i = 0; i < b->n_alloc_buffers; i++) MIX(h, buf_def_hash(s, b->alloc_buffers[i]));
  for (int r = 0; r < 2; r++) {
    const rlx_buffer_region_t* rs = r ? b->writes : b->reads;
    int n = r ? b->n_writes : b->n_reads;
    for (int i = 0; i < n; i++) {
      MIX(h, rs[i].ndim);
      MIX(h, buf_use_hash(s, rs[i].buffer));
      for (int d = 0; d < rs[i].ndim; d++) {
        MIX(h, rlx_hash_expr_state(s, rs[i].region[d].min));
        MIX(h, rlx_hash_expr_state(s, rs[i].region[d].extent));
      }
    }
  }
  MIX(h, attrs_hash(s, b->n_annotations, b->annotation_keys, b->annotation_values));
  MIX(h, stmt_hash(s, b->init));
  MIX(h, stmt_hash(s, b->body));
  return h;
}

static uint64_t stmt_hash(rlx_hash_state_t* s, const rlx_tir_stmt_t* st) {
  if (!st) return 0x5717;
  uint64_t h = (uint64_t)st->kind * 0x9e3779b1u + 1;
  switch (st->kind) {
    case RLX_STMT_BUFFER_STORE: {
      const rlx_tir_store_t* x = RLX_AS(const rlx_tir_store_t, st);
      MIX(h, x->n_indices);
      MIX(h, buf_use_hash(s, x->buffer));
      MIX(h, rlx_hash_expr_state(s, x->value));
      for (int i = 0; i < x->n_indices; i++) MIX(h, rlx_hash_expr_state(s, x->indices[i]));
      return h;
    }
    case RLX_STMT_FOR: {
      const rlx_tir_for_t* x = RLX_AS(const rlx_tir_for_t, st);
      MIX(h, x->for_kind);
      MIX(h, rlx_hash_expr_state(s, x->min));
      MIX(h, rlx_hash_expr_state(s, x->extent));
      MIX(h, def_var_hash(s, x->var));
      MIX(h, stmt_hash(s, x->body));
      return h;
    }
    case RLX_STMT_SEQ: {
      const rlx_tir_seq_t* x = RLX_AS(const rlx_tir_seq_t, st);
      MIX(h, x->n);
      for (int i = 0; i < x->n; i++) MIX(h, stmt_hash(s, x->stmts[i]));
      return h;
    }
    case RLX_STMT_IF: {
      const rlx_tir_if_t* x = RLX_AS(const rlx_tir_if_t, st);
      MIX(h, rlx_hash_expr_state(s, x->cond));
      MIX(h, stmt_hash(s, x->then_case));
      MIX(h, stmt_hash(s, x->else_case));
      return h;
    }
    case RLX_STMT_LET: {
      const rlx_tir_let_t* x = RLX_AS(const rlx_tir_let_t, st);
      MIX(h, rlx_hash_expr_state(s, x->value));
      MIX(h, def_var_hash(s, x->var));
      MIX(h, stmt_hash(s, x->body));
      return h;
    }
    case RLX_STMT_EVALUATE: MIX(h, rlx_hash_expr_state(s, RLX_AS(const rlx_tir_evaluate_t, st)->value)); return h;
    case RLX_STMT_BLOCK_REALIZE: {
      const rlx_tir_block_realize_t* x = RLX_AS(const rlx_tir_block_realize_t, st);
      MIX(h, x->n_values);
      for (int i = 0; i < x->n_values; i++) MIX(h, rlx_hash_expr_state(s, x->iter_values[i]));
      MIX(h, rlx_hash_expr_state(s, x->predicate));
      MIX(h, block_hash(s, x->block));
      return h;
    }
    case RLX_STMT_ALLOCATE: {
      const rlx_tir_allocate_t* x = RLX_AS(const rlx_tir_allocate_t, st);
      MIX(h, buf_def_hash(s, x->buffer));
      MIX(h, stmt_hash(s, x->body));
      return h;
    }
    case RLX_STMT_KIND_COUNT: break;
  }
  return h;
}

uint64_t rlx_tir_func_hash(const rlx_tir_func_t* f) {
  if (!f) return 0;
  rlx_hash_state_t s = {0};
  s.map_free = true;
  s.buf_hash = buf_use_hash;
  uint64_t h = (uint64_t)f->n_params;
  for (int i = 0; i < f->n_params; i++) {
    MIX(h, def_var_hash(&s, f->params[i]));
    MIX(h, f->buffer_map[i] != NULL);
    if (f->buffer_map[i]) MIX(h, buf_def_hash(&s, f->buffer_map[i]));
  }
  MIX(h, attrs_hash(&s, f->n_attrs, f->attr_keys, f->attr_values));
  MIX(h, stmt_hash(&s, f->body));
  rlx_hash_state_free(&s);
  return h;
}
