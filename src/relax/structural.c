/* Structural equality of Relax functions and expressions (TVM's StructuralEqual for Relax):
 * Relax vars map by definition, symbolic vars map on their first definition (a whole dim in
 * a param's or match_cast's struct info), struct info compares as trees under the map. */
#include <string.h>

#include "relax.h"

typedef struct {
  rlx_ptrmap_t vars;     /* relax var of a → relax var of b */
  rlx_ptrmap_t vars_rev; /* b → a (keeps the map one-to-one) */
  rlx_ptrmap_t sym;      /* symbolic var of a → of b */
  rlx_ptrmap_t sym_rev;
} eq_t;

/* ------------------------------------------------------------------ PrimExpr under the map */
static bool prim_eq(eq_t* q, const rlx_expr_t* a, const rlx_expr_t* b, bool can_define) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind || !rlx_dtype_eq(a->dtype, b->dtype)) return false;
  switch (a->kind) {
    case RLX_EXPR_VAR: {
      const void* m = rlx_ptrmap_get(&q->sym, a);
      if (m) return m == b;
      if (rlx_ptrmap_get(&q->sym_rev, b)) return false;
      if (!can_define) return a == b;
      rlx_ptrmap_put(&q->sym, a, (void*)b);
      rlx_ptrmap_put(&q->sym_rev, b, (void*)a);
      return true;
    }
    case RLX_EXPR_INT_IMM: return ((const rlx_int_imm_t*)a)->value == ((const rlx_int_imm_t*)b)->value;
    case RLX_EXPR_FLOAT_IMM: return ((const rlx_float_imm_t*)a)->value == ((const rlx_float_imm_t*)b)->value;
    case RLX_EXPR_STRING_IMM:
      return strcmp(((const rlx_string_imm_t*)a)->value, ((const rlx_string_imm_t*)b)->value) == 0;
    case RLX_EXPR_CALL:
      if (strcmp(((const rlx_call_t*)a)->op, ((const rlx_call_t*)b)->op) != 0) return false;
      break;
    case RLX_EXPR_BUFFER_LOAD:
      if (((const rlx_buffer_load_t*)a)->buffer != ((const rlx_buffer_load_t*)b)->buffer) return false;
      break;
    case RLX_EXPR_RAMP:
      if (((const rlx_ramp_t*)a)->lanes != ((const rlx_ramp_t*)b)->lanes) return false;
      break;
    case RLX_EXPR_BROADCAST:
      if (((const rlx_broadcast_t*)a)->lanes != ((const rlx_broadcast_t*)b)->lanes) return false;
      break;
    case RLX_EXPR_LET:
    case RLX_EXPR_REDUCE:
      /* bind their own vars: never part of shapes; compare with the IR's own equality */
      return rlx_expr_equal(a, b);
    default: break;
  }
  rlx_expr_t* ka[8];
  rlx_expr_t* kb[8];
  int na = rlx_expr_children(a, ka, 8), nb = rlx_expr_children(b, kb, 8);
  if (na != nb) return false;
  if (na > 8) return rlx_expr_equal(a, b);
  for (int i = 0; i < na; i++)
    if (!prim_eq(q, ka[i], kb[i], false)) return false;
  return true;
}

static bool dims_eq(eq_t* q, int n, rlx_expr_t* const* a, rlx_expr_t* const* b, bool can_define) {
  for (int i = 0; i < n; i++)
    if (!prim_eq(q, a[i], b[i], can_define && a[i]->kind == RLX_EXPR_VAR)) return false;
  return true;
}

/* can_define: whole-dim symbolic vars not yet mapped become mapped (definition sites). */
static bool sinfo_eq(eq_t* q, const rlx_sinfo_t* a, const rlx_sinfo_t* b, bool can_define) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case RLX_SINFO_OBJECT: return true;
    case RLX_SINFO_PRIM: {
      const rlx_sinfo_prim_t *x = (const void*)a, *y = (const void*)b;
      if (!rlx_dtype_eq(x->dtype, y->dtype) || !x->value != !y->value) return false;
      return !x->value || dims_eq(q, 1, &x->value, &y->value, can_define);
    }
    case RLX_SINFO_SHAPE: {
      const rlx_sinfo_shape_t *x = (const void*)a, *y = (const void*)b;
      if (x->ndim != y->ndim || !x->values != !y->values) return false;
      return !x->values || dims_eq(q, x->ndim, x->values, y->values, can_define);
    }
    case RLX_SINFO_TENSOR: {
      const rlx_sinfo_tensor_t *x = (const void*)a, *y = (const void*)b;
      if (x->ndim != y->ndim || !rlx_dtype_eq(x->dtype, y->dtype) || !x->shape != !y->shape) return false;
      return !x->shape || dims_eq(q, x->ndim, x->shape, y->shape, can_define);
    }
    case RLX_SINFO_TUPLE: {
      const rlx_sinfo_tuple_t *x = (const void*)a, *y = (const void*)b;
      if (x->n_fields != y->n_fields) return false;
      for (int i = 0; i < x->n_fields; i++)
        if (!sinfo_eq(q, x->fields[i], y->fields[i], can_define)) return false;
      return true;
    }
    case RLX_SINFO_FUNC: {
      const rlx_sinfo_func_t *x = (const void*)a, *y = (const void*)b;
      if (x->n_params != y->n_params || x->is_pure != y->is_pure) return false;
      /* a Func's params define the vars its ret uses */
      for (int i = 0; i < x->n_params; i++)
        if (!sinfo_eq(q, x->params[i], y->params[i], true)) return false;
      return sinfo_eq(q, x->ret, y->ret, false);
    }
  }
  return false;
}

/* Definition pass: maps the whole-dim vars of a definition site before its uses are compared. */
static bool sinfo_define(eq_t* q, const rlx_sinfo_t* a, const rlx_sinfo_t* b) {
  if (!a || !b || a->kind != b->kind) return true; /* the full comparison reports it */
  switch (a->kind) {
    case RLX_SINFO_OBJECT:
    case RLX_SINFO_FUNC: return true;
    case RLX_SINFO_PRIM: {
      const rlx_sinfo_prim_t *x = (const void*)a, *y = (const void*)b;
      if (x->value && y->value && x->value->kind == RLX_EXPR_VAR) return prim_eq(q, x->value, y->value, true);
      return true;
    }
    case RLX_SINFO_SHAPE: {
      const rlx_sinfo_shape_t *x = (const void*)a, *y = (const void*)b;
      if (x->values && y->values && x->ndim == y->ndim)
        for (int i = 0; i < x->ndim; i++)
          if (x->values[i]->kind == RLX_EXPR_VAR && !prim_eq(q, x->values[i], y->values[i], true)) return false;
      return true;
    }
    case RLX_SINFO_TENSOR: {
      const rlx_sinfo_tensor_t *x = (const void*)a, *y = (const void*)b;
      if (x->shape && y->shape && x->ndim == y->ndim)
        for (int i = 0; i < x->ndim; i++)
          if (x->shape[i]->kind == RLX_EXPR_VAR && !prim_eq(q, x->shape[i], y->shape[i], true)) return false;
      return true;
    }
    case RLX_SINFO_TUPLE: {
      const rlx_sinfo_tuple_t *x = (const void*)a, *y = (const void*)b;
      if (x->n_fields == y->n_fields)
        for (int i = 0; i < x->n_fields; i++)
          if (!sinfo_define(q, x->fields[i], y->fields[i])) return false;
      return true;
    }
  }
  return true;
}

/* ------------------------------------------------------------------ expressions */
static bool expr_eq(eq_t* q, const rlx_relax_expr_t* a, const rlx_relax_expr_t* b);

static bool define_var(eq_t* q, const rlx_relax_var_t* a, const rlx_relax_var_t* b) {
  if (!a || !b || a->hdr.kind != b->hdr.kind) return false;
  if (rlx_ptrmap_get(&q->vars, a) || rlx_ptrmap_get(&q->vars_rev, b)) return false;
  if (!sinfo_eq(q, a->hdr.sinfo, b->hdr.sinfo, false)) return false;
  rlx_ptrmap_put(&q->vars, a, (void*)b);
  rlx_ptrmap_put(&q->vars_rev, b, (void*)a);
  return true;
}

static bool attrs_eq(const rlx_attrs_t* a, const rlx_attrs_t* b) {
  if (a->n != b->n) return false;
  for (int i = 0; i < a->n; i++) {
    const rlx_attr_t* y = rlx_attrs_get(b, a->items[i].key);
    if (!y || !rlx_attr_equal(&a->items[i], y)) return false;
  }
  return true;
}

static bool func_eq(eq_t* q, const rlx_relax_func_t* a, const rlx_relax_func_t* b) {
  if (a->n_params != b->n_params || a->is_pure != b->is_pure || !attrs_eq(&a->attrs, &b->attrs)) return false;
  for (int i = 0; i < a->n_params; i++)
    if (!sinfo_define(q, a->params[i]->hdr.sinfo, b->params[i]->hdr.sinfo)) return false;
  for (int i = 0; i < a->n_params; i++)
    if (!define_var(q, a->params[i], b->params[i])) return false;
  if (!a->ret_sinfo != !b->ret_sinfo) return false;
  if (a->ret_sinfo && !sinfo_eq(q, a->ret_sinfo, b->ret_sinfo, false)) return false;
  return expr_eq(q, a->body, b->body);
}

static bool binding_eq(eq_t* q, const rlx_relax_binding_t* a, const rlx_relax_binding_t* b) {
  if (a->kind != b->kind || !expr_eq(q, a->value, b->value)) return false;
  if (a->kind == RLX_BINDING_MATCH_CAST) {
    if (!sinfo_define(q, a->sinfo, b->sinfo) || !sinfo_eq(q, a->sinfo, b->sinfo, false)) return false;
  }
  return define_var(q, a->var, b->var);
}

static bool expr_eq(eq_t* q, const rlx_relax_expr_t* a, const rlx_relax_expr_t* b) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR: {
      const void* m = rlx_ptrmap_get(&q->vars, a);
      if (m) return m == b;
      return a == b && !rlx_ptrmap_get(&q->vars_rev, b);
    }
    case RLX_RELAX_CONSTANT: {
      const rlx_relax_constant_t *x = (const void*)a, *y = (const void*)b;
      if (!rlx_dtype_eq(x->dtype, y->dtype) || x->ndim != y->ndim || x->nbytes != y->nbytes) return false;
      for (int i = 0; i < x->ndim; i++)
        if (x->shape[i] != y->shape[i]) return false;
      return memcmp(x->data, y->data, x->nbytes) == 0;
    }
    case RLX_RELAX_TUPLE: {
      const rlx_relax_tuple_t *x = (const void*)a, *y = (const void*)b;
      if (x->n_fields != y->n_fields) return false;
      for (int i = 0; i < x->n_fields; i++)
        if (!expr_eq(q, x->fields[i], y->fields[i])) return false;
      return true;
    }
    case RLX_RELAX_TUPLE_GET_ITEM: {
      const rlx_relax_tuple_get_item_t *x = (const void*)a, *y = (const void*)b;
      return x->index == y->index && expr_eq(q, x->tuple, y->tuple);
    }
    case RLX_RELAX_SHAPE_EXPR: {
      const rlx_relax_shape_expr_t *x = (const void*)a, *y = (const void*)b;
      return x->ndim == y->ndim && dims_eq(q, x->ndim, x->values, y->values, false);
    }
    case RLX_RELAX_PRIM_VALUE:
      return prim_eq(q, ((const rlx_relax_prim_value_t*)a)->value, ((const rlx_relax_prim_value_t*)b)->value, false);
    case RLX_RELAX_STRING_IMM:
      return strcmp(((const rlx_relax_string_imm_t*)a)->value, ((const rlx_relax_string_imm_t*)b)->value) == 0;
    case RLX_RELAX_DATA_TYPE_IMM:
      return rlx_dtype_eq(((const rlx_relax_dtype_imm_t*)a)->value, ((const rlx_relax_dtype_imm_t*)b)->value);
    case RLX_RELAX_OP: return strcmp(((const rlx_relax_op_t*)a)->name, ((const rlx_relax_op_t*)b)->name) == 0;
    case RLX_RELAX_CALL: {
      const rlx_relax_call_t *x = (const void*)a, *y = (const void*)b;
      if (x->n_args != y->n_args || x->n_sinfo_args != y->n_sinfo_args || !expr_eq(q, x->op, y->op) ||
          !attrs_eq(&x->attrs, &y->attrs))
        return false;
      for (int i = 0; i < x->n_args; i++)
        if (!expr_eq(q, x->args[i], y->args[i])) return false;
      for (int i = 0; i < x->n_sinfo_args; i++)
        if (!sinfo_eq(q, x->sinfo_args[i], y->sinfo_args[i], false)) return false;
      return true;
    }
    case RLX_RELAX_IF: {
      const rlx_relax_if_t *x = (const void*)a, *y = (const void*)b;
      return expr_eq(q, x->cond, y->cond) && expr_eq(q, x->then_branch, y->then_branch) &&
             expr_eq(q, x->else_branch, y->else_branch);
    }
    case RLX_RELAX_SEQ: {
      const rlx_relax_seq_t *x = (const void*)a, *y = (const void*)b;
      if (x->n_blocks != y->n_blocks) return false;
      for (int i = 0; i < x->n_blocks; i++) {
        const rlx_relax_block_t *p = x->blocks[i], *r = y->blocks[i];
        if (p->is_dataflow != r->is_dataflow || p->n_bindings != r->n_bindings) return false;
        for (int k = 0; k < p->n_bindings; k++)
          if (!binding_eq(q, p->bindings[k], r->bindings[k])) return false;
      }
      return expr_eq(q, x->body, y->body);
    }
    case RLX_RELAX_FUNCTION: return func_eq(q, (const rlx_relax_func_t*)a, (const rlx_relax_func_t*)b);
    case RLX_RELAX_GLOBAL_VAR:
      return strcmp(((const rlx_relax_global_var_t*)a)->name, ((const rlx_relax_global_var_t*)b)->name) == 0;
    case RLX_RELAX_EXTERN_FUNC:
      return strcmp(((const rlx_relax_extern_func_t*)a)->global_symbol,
                    ((const rlx_relax_extern_func_t*)b)->global_symbol) == 0;
    case RLX_RELAX_KIND_COUNT: break;
  }
  return false;
}

static void eq_free(eq_t* q) {
  rlx_ptrmap_free(&q->vars);
  rlx_ptrmap_free(&q->vars_rev);
  rlx_ptrmap_free(&q->sym);
  rlx_ptrmap_free(&q->sym_rev);
}

bool rlx_relax_expr_equal(const rlx_relax_expr_t* a, const rlx_relax_expr_t* b) {
  eq_t q;
  memset(&q, 0, sizeof(q));
  bool r = expr_eq(&q, a, b);
  eq_free(&q);
  return r;
}

bool rlx_relax_func_equal(const rlx_relax_func_t* a, const rlx_relax_func_t* b) {
  if (!a || !b) return a == b;
  return rlx_relax_expr_equal(&a->hdr, &b->hdr);
}

bool rlx_sinfo_struct_equal(const rlx_sinfo_t* a, const rlx_sinfo_t* b) {
  eq_t q;
  memset(&q, 0, sizeof(q));
  bool r = sinfo_eq(&q, a, b, false);
  eq_free(&q);
  return r;
}
