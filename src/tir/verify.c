/* rlx_tir_verify: well-formedness of a PrimFunc.
 *
 * Checks, in one walk with a scope of defined variables and buffers:
 *   - every variable used is defined: a param, a var of a buffer-map shape/stride/offset,
 *     a buffer data var, a loop var, a block iter var (inside its block), a let var;
 *   - block iter values and predicates only use variables of the enclosing scope (not the
 *     block's own iter vars);
 *   - every buffer used (load, store, region) is in the buffer map, allocated by an enclosing
 *     block or ALLOCATE, or is a view sharing the data var of such a buffer (flattened form);
 *   - loads and stores have one index per buffer dimension; store values have the buffer's
 *     element type; loop extents are integers;
 *   - block names are unique (schedules address blocks by name).
 * Requires nothing; produces nothing (pure check). The error names the function and the first
 * problem.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tir.h"

typedef struct {
  const rlx_tir_func_t* f;
  rlx_ptrmap_t vars;    /* var → definition count */
  rlx_ptrmap_t buffers; /* buffer → definition count */
  RLX_VEC(const char*) block_names;
  const char* where; /* block name for messages, NULL at the top */
} vstate_t;

static void push(rlx_ptrmap_t* m, const void* p, int d) {
  intptr_t c = (intptr_t)rlx_ptrmap_get(m, p) + d;
  rlx_ptrmap_put(m, p, (void*)c);
}
static bool defined(const rlx_ptrmap_t* m, const void* p) { return (intptr_t)rlx_ptrmap_get(m, p) > 0; }

/* The error: fmt with a and b, prefixed with the function and the block being checked. The
 * walk stops at the first one (every check returns it as it is). */
static RLX_MUST_USE rlx_status_t* fail(const vstate_t* st, const char* fmt, const char* a, const char* b) {
  char msg[512];
  snprintf(msg, sizeof(msg), fmt, a, b);
  if (st->where)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "PrimFunc '%s', block '%s': %s", st->f->name, st->where, msg);
  return rlx_status_create(RLX_INVALID_ARGUMENT, "PrimFunc '%s': %s", st->f->name, msg);
}

static RLX_MUST_USE rlx_status_t* check_buffer(const vstate_t* st, const rlx_tir_buffer_t* b) {
  if (!b) return fail(st, "an access without a buffer%s%s", "", "");
  if (defined(&st->buffers, b)) return NULL;
  if (b->data && defined(&st->vars, b->data)) return NULL; /* a view of a defined buffer's data */
  return fail(st, "buffer '%s' is used but is not in the buffer map or allocated%s", b->name, "");
}

static RLX_MUST_USE rlx_status_t* check_expr(vstate_t* st, const rlx_expr_t* e) {
  if (!e) return NULL;
  switch (e->kind) {
    case RLX_EXPR_VAR:
      if (!defined(&st->vars, e))
        return fail(st, "variable '%s' is used but not defined%s", RLX_AS(const rlx_var_t, e)->name, "");
      return NULL;
    case RLX_EXPR_LET: {
      const rlx_let_t* l = RLX_AS(const rlx_let_t, e);
      RLX_RETURN_IF_ERROR(check_expr(st, l->value));
      push(&st->vars, l->var, 1);
      RLX_RETURN_IF_ERROR(check_expr(st, l->body));
      push(&st->vars, l->var, -1);
      return NULL;
    }
    case RLX_EXPR_REDUCE: {
      const rlx_reduce_t* r = RLX_AS(const rlx_reduce_t, e);
      for (int i = 0; i < r->n_axis; i++) {
        RLX_RETURN_IF_ERROR(check_expr(st, r->axis[i]->dom.min));
        RLX_RETURN_IF_ERROR(check_expr(st, r->axis[i]->dom.extent));
      }
      for (int i = 0; i < r->n_axis; i++) push(&st->vars, r->axis[i]->var, 1);
      RLX_RETURN_IF_ERROR(check_expr(st, r->source));
      RLX_RETURN_IF_ERROR(check_expr(st, r->condition));
      for (int i = 0; i < r->n_axis; i++) push(&st->vars, r->axis[i]->var, -1);
      return NULL;
    }
    case RLX_EXPR_BUFFER_LOAD: {
      const rlx_buffer_load_t* l = RLX_AS(const rlx_buffer_load_t, e);
      RLX_RETURN_IF_ERROR(check_buffer(st, l->buffer));
      if (l->n_indices != l->buffer->ndim) {
        char msg[64];
        snprintf(msg, sizeof(msg), "%d indices for %d dimensions", l->n_indices, l->buffer->ndim);
        return fail(st, "load from buffer '%s' has %s", l->buffer->name, msg);
      }
      break;
    }
    case RLX_EXPR_INT_IMM:
    case RLX_EXPR_FLOAT_IMM:
    case RLX_EXPR_STRING_IMM:
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
    case RLX_EXPR_OR:
    case RLX_EXPR_NOT:
    case RLX_EXPR_SELECT:
    case RLX_EXPR_CAST:
    case RLX_EXPR_CALL:
    case RLX_EXPR_RAMP:
    case RLX_EXPR_BROADCAST:
    case RLX_EXPR_KIND_COUNT: break;
  }
  rlx_expr_t* small[8];
  int n = rlx_expr_children(e, small, 8);
  rlx_expr_t** kids = small;
  if (n > 8) {
    kids = malloc(sizeof(*kids) * (size_t)n);
    if (!kids) return NULL;
    rlx_expr_children(e, kids, n);
  }
  rlx_status_t* err = NULL;
  for (int i = 0; i < n && !err; i++) err = check_expr(st, kids[i]);
  if (kids != small) free(kids);
  return err;
}

/* Vars of a buffer's shape/strides/offset must be in scope; then the buffer is defined. */
static RLX_MUST_USE rlx_status_t* define_buffer(vstate_t* st, const rlx_tir_buffer_t* b, int d) {
  if (d > 0) {
    for (int i = 0; i < b->ndim; i++) {
      RLX_RETURN_IF_ERROR(check_expr(st, b->shape[i]));
      if (b->strides) RLX_RETURN_IF_ERROR(check_expr(st, b->strides[i]));
    }
    RLX_RETURN_IF_ERROR(check_expr(st, b->elem_offset));
  }
  push(&st->buffers, b, d);
  if (b->data) push(&st->vars, b->data, d);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* check_region(vstate_t* st, const rlx_buffer_region_t* r) {
  RLX_RETURN_IF_ERROR(check_buffer(st, r->buffer));
  if (r->ndim != r->buffer->ndim)
    return fail(st, "region of buffer '%s' has the wrong number of dimensions%s", r->buffer->name, "");
  for (int i = 0; i < r->ndim; i++) {
    RLX_RETURN_IF_ERROR(check_expr(st, r->region[i].min));
    RLX_RETURN_IF_ERROR(check_expr(st, r->region[i].extent));
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* check_stmt(vstate_t* st, const rlx_tir_stmt_t* s) {
  if (!s) return NULL;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE: {
      const rlx_tir_store_t* x = RLX_AS(const rlx_tir_store_t, s);
      RLX_RETURN_IF_ERROR(check_buffer(st, x->buffer));
      if (!x->value) return fail(st, "store to buffer '%s' without a value%s", x->buffer->name, "");
      if (x->n_indices != x->buffer->ndim) {
        char msg[64];
        snprintf(msg, sizeof(msg), "%d indices for %d dimensions", x->n_indices, x->buffer->ndim);
        return fail(st, "store to buffer '%s' has %s", x->buffer->name, msg);
      }
      RLX_RETURN_IF_ERROR(check_expr(st, x->value));
      for (int i = 0; i < x->n_indices; i++) RLX_RETURN_IF_ERROR(check_expr(st, x->indices[i]));
      if (x->value->dtype.code != x->buffer->dtype.code || x->value->dtype.bits != x->buffer->dtype.bits) {
        char a[32], b[32];
        rlx_dtype_str(x->value->dtype, a);
        rlx_dtype_str(x->buffer->dtype, b);
        char msg[96];
        snprintf(msg, sizeof(msg), "%s into %s", a, b);
        return fail(st, "store into buffer '%s' has a value of the wrong type (%s)", x->buffer->name, msg);
      }
      return NULL;
    }
    case RLX_STMT_FOR: {
      const rlx_tir_for_t* x = RLX_AS(const rlx_tir_for_t, s);
      if (!x->min || !x->extent || !x->var) return fail(st, "a loop without %s%s", "var, min or extent", "");
      RLX_RETURN_IF_ERROR(check_expr(st, x->min));
      RLX_RETURN_IF_ERROR(check_expr(st, x->extent));
      if (!rlx_dtype_is_int(x->extent->dtype)) return fail(st, "loop '%s' has a non-integer extent%s", x->var->name, "");
      push(&st->vars, x->var, 1);
      RLX_RETURN_IF_ERROR(check_stmt(st, x->body));
      push(&st->vars, x->var, -1);
      return NULL;
    }
    case RLX_STMT_SEQ: {
      const rlx_tir_seq_t* x = RLX_AS(const rlx_tir_seq_t, s);
      for (int i = 0; i < x->n; i++) RLX_RETURN_IF_ERROR(check_stmt(st, x->stmts[i]));
      return NULL;
    }
    case RLX_STMT_IF: {
      const rlx_tir_if_t* x = RLX_AS(const rlx_tir_if_t, s);
      RLX_RETURN_IF_ERROR(check_expr(st, x->cond));
      RLX_RETURN_IF_ERROR(check_stmt(st, x->then_case));
      return check_stmt(st, x->else_case);
    }
    case RLX_STMT_LET: {
      const rlx_tir_let_t* x = RLX_AS(const rlx_tir_let_t, s);
      RLX_RETURN_IF_ERROR(check_expr(st, x->value));
      push(&st->vars, x->var, 1);
      RLX_RETURN_IF_ERROR(check_stmt(st, x->body));
      push(&st->vars, x->var, -1);
      return NULL;
    }
    case RLX_STMT_EVALUATE: return check_expr(st, RLX_AS(const rlx_tir_evaluate_t, s)->value);
    case RLX_STMT_BLOCK_REALIZE: {
      const rlx_tir_block_realize_t* br = RLX_AS(const rlx_tir_block_realize_t, s);
      const rlx_tir_block_t* b = br->block;
      if (!b) return fail(st, "a block realize without a block%s%s", "", "");
      const char* outer = st->where;
      for (int i = 0; i < st->block_names.len; i++)
        if (strcmp(st->block_names.data[i], b->name) == 0) return fail(st, "block name '%s' is not unique%s", b->name, "");
      rlx_vec_push(&st->block_names, b->name);
      st->where = b->name;
      if (br->n_values != b->n_iter_vars)
        return fail(st, "block has %s iter values for its iter vars%s", "a different number of", "");
      for (int i = 0; i < br->n_values; i++) RLX_RETURN_IF_ERROR(check_expr(st, br->iter_values[i]));
      RLX_RETURN_IF_ERROR(check_expr(st, br->predicate));
      for (int i = 0; i < b->n_iter_vars; i++) {
        RLX_RETURN_IF_ERROR(check_expr(st, b->iter_vars[i]->dom.min));
        RLX_RETURN_IF_ERROR(check_expr(st, b->iter_vars[i]->dom.extent));
      }
      for (int i = 0; i < b->n_iter_vars; i++) push(&st->vars, b->iter_vars[i]->var, 1);
      for (int i = 0; i < b->n_alloc_buffers; i++) RLX_RETURN_IF_ERROR(define_buffer(st, b->alloc_buffers[i], 1));
      for (int i = 0; i < b->n_reads; i++) RLX_RETURN_IF_ERROR(check_region(st, &b->reads[i]));
      for (int i = 0; i < b->n_writes; i++) RLX_RETURN_IF_ERROR(check_region(st, &b->writes[i]));
      RLX_RETURN_IF_ERROR(check_stmt(st, b->init));
      RLX_RETURN_IF_ERROR(check_stmt(st, b->body));
      for (int i = 0; i < b->n_alloc_buffers; i++) RLX_RETURN_IF_ERROR(define_buffer(st, b->alloc_buffers[i], -1));
      for (int i = 0; i < b->n_iter_vars; i++) push(&st->vars, b->iter_vars[i]->var, -1);
      st->where = outer;
      return NULL;
    }
    case RLX_STMT_ALLOCATE: {
      const rlx_tir_allocate_t* x = RLX_AS(const rlx_tir_allocate_t, s);
      if (!x->buffer) return fail(st, "an allocation without a buffer%s%s", "", "");
      RLX_RETURN_IF_ERROR(define_buffer(st, x->buffer, 1));
      RLX_RETURN_IF_ERROR(check_stmt(st, x->body));
      return define_buffer(st, x->buffer, -1);
    }
    case RLX_STMT_KIND_COUNT: return NULL;
  }
  return NULL;
}

static void define_shape_var(const rlx_expr_t* e, void* user) {
  if (e->kind == RLX_EXPR_VAR) push(&((vstate_t*)user)->vars, e, 1);
}

RLX_MUST_USE rlx_status_t* rlx_tir_verify(const rlx_tir_func_t* f) {
  if (!f) return rlx_status_create(RLX_INVALID_ARGUMENT, "rlx_tir_verify: no function");
  vstate_t st = {0};
  st.f = f;
  for (int i = 0; i < f->n_params; i++) {
    push(&st.vars, f->params[i], 1);
    const rlx_tir_buffer_t* b = f->buffer_map[i];
    if (!b) continue;
    push(&st.buffers, b, 1);
    if (b->data) push(&st.vars, b->data, 1);
    for (int d = 0; d < b->ndim; d++) {
      rlx_expr_visit(b->shape[d], define_shape_var, &st);
      if (b->strides) rlx_expr_visit(b->strides[d], define_shape_var, &st);
    }
    rlx_expr_visit(b->elem_offset, define_shape_var, &st);
  }
  rlx_status_t* err = f->body ? check_stmt(&st, f->body) : fail(&st, "the function has no body%s%s", "", "");
  rlx_ptrmap_free(&st.vars);
  rlx_ptrmap_free(&st.buffers);
  rlx_vec_free(&st.block_names);
  return err;
}
