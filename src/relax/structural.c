/* Structural equality and hashing of Relax functions and expressions (TVM's StructuralEqual
 * and StructuralHash for Relax):
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

/* ------------------------------------------------------------------ hashing */
/* Consistent with the equality above: defined vars hash by definition index, free vars by
 * identity, names ignored. The traversal order mirrors expr_eq so that equal functions
 * define their vars in the same order. */
typedef struct {
  rlx_ptrmap_t vars; /* relax var → definition index + 1 */
  rlx_ptrmap_t sym;  /* symbolic var → definition index + 1 */
  uintptr_t n_vars, n_sym;
} hs_t;

#define MIX(h, v) ((h) = rlx_hash_combine((h), (uint64_t)(v)))

static uint64_t hash_str(const char* s) { return rlx_hash_bytes(s, strlen(s), 0x5eed); }
static uint64_t hash_dtype(rlx_dtype_t t) { return ((uint64_t)t.code << 24) | ((uint64_t)t.bits << 16) | t.lanes; }

static uint64_t prim_hash(hs_t* s, const rlx_expr_t* e, bool can_define) {
  if (!e) return 0x0;
  uint64_t h = 0x9e11 + (uint64_t)e->kind;
  MIX(h, hash_dtype(e->dtype));
  switch (e->kind) {
    case RLX_EXPR_VAR: {
      uintptr_t idx = (uintptr_t)rlx_ptrmap_get(&s->sym, e);
      if (!idx && can_define) {
        idx = ++s->n_sym;
        rlx_ptrmap_put(&s->sym, e, (void*)idx);
      }
      MIX(h, idx ? (uint64_t)idx : (uint64_t)(uintptr_t)e);
      MIX(h, idx != 0);
      return h;
    }
    case RLX_EXPR_INT_IMM: MIX(h, (uint64_t)((const rlx_int_imm_t*)e)->value); return h;
    case RLX_EXPR_FLOAT_IMM: {
      double v = ((const rlx_float_imm_t*)e)->value;
      MIX(h, rlx_hash_bytes(&v, sizeof(v), 0));
      return h;
    }
    case RLX_EXPR_STRING_IMM: MIX(h, hash_str(((const rlx_string_imm_t*)e)->value)); return h;
    case RLX_EXPR_CALL: MIX(h, hash_str(((const rlx_call_t*)e)->op)); break;
    case RLX_EXPR_LET:
    case RLX_EXPR_REDUCE: MIX(h, rlx_expr_hash(e)); return h;
    default: break;
  }
  rlx_expr_t* kids[8];
  int n = rlx_expr_children(e, kids, 8);
  MIX(h, n);
  for (int i = 0; i < n && i < 8; i++) MIX(h, prim_hash(s, kids[i], false));
  return h;
}

static uint64_t dims_hash(hs_t* s, int n, rlx_expr_t* const* d, bool can_define) {
  uint64_t h = (uint64_t)n;
  for (int i = 0; i < n; i++) MIX(h, prim_hash(s, d[i], can_define && d[i]->kind == RLX_EXPR_VAR));
  return h;
}

static uint64_t sinfo_hash(hs_t* s, const rlx_sinfo_t* si, bool can_define) {
  if (!si) return 0x51;
  uint64_t h = 0x5100 + (uint64_t)si->kind;
  switch (si->kind) {
    case RLX_SINFO_OBJECT: return h;
    case RLX_SINFO_PRIM: {
      const rlx_sinfo_prim_t* p = (const void*)si;
      MIX(h, hash_dtype(p->dtype));
      if (p->value) MIX(h, dims_hash(s, 1, &p->value, can_define));
      return h;
    }
    case RLX_SINFO_SHAPE: {
      const rlx_sinfo_shape_t* p = (const void*)si;
      MIX(h, (uint64_t)(p->ndim + 1));
      if (p->values) MIX(h, dims_hash(s, p->ndim, p->values, can_define));
      return h;
    }
    case RLX_SINFO_TENSOR: {
      const rlx_sinfo_tensor_t* t = (const void*)si;
      MIX(h, (uint64_t)(t->ndim + 1));
      MIX(h, hash_dtype(t->dtype));
      if (t->shape) MIX(h, dims_hash(s, t->ndim, t->shape, can_define));
      return h;
    }
    case RLX_SINFO_TUPLE: {
      const rlx_sinfo_tuple_t* t = (const void*)si;
      MIX(h, (uint64_t)t->n_fields);
      for (int i = 0; i < t->n_fields; i++) MIX(h, sinfo_hash(s, t->fields[i], can_define));
      return h;
    }
    case RLX_SINFO_FUNC: {
      const rlx_sinfo_func_t* f = (const void*)si;
      MIX(h, (uint64_t)(f->n_params + 1));
      MIX(h, f->is_pure);
      for (int i = 0; i < f->n_params; i++) MIX(h, sinfo_hash(s, f->params[i], true));
      MIX(h, sinfo_hash(s, f->ret, false));
      return h;
    }
  }
  return h;
}

/* The definition pass of sinfo_define: maps whole-dim vars in order. */
static void sinfo_define_hash(hs_t* s, const rlx_sinfo_t* si) {
  if (!si) return;
  switch (si->kind) {
    case RLX_SINFO_OBJECT:
    case RLX_SINFO_FUNC: return;
    case RLX_SINFO_PRIM: {
      const rlx_sinfo_prim_t* p = (const void*)si;
      if (p->value && p->value->kind == RLX_EXPR_VAR) prim_hash(s, p->value, true);
      return;
    }
    case RLX_SINFO_SHAPE: {
      const rlx_sinfo_shape_t* p = (const void*)si;
      if (p->values)
        for (int i = 0; i < p->ndim; i++)
          if (p->values[i]->kind == RLX_EXPR_VAR) prim_hash(s, p->values[i], true);
      return;
    }
    case RLX_SINFO_TENSOR: {
      const rlx_sinfo_tensor_t* t = (const void*)si;
      if (t->shape)
        for (int i = 0; i < t->ndim; i++)
          if (t->shape[i]->kind == RLX_EXPR_VAR) prim_hash(s, t->shape[i], true);
      return;
    }
    case RLX_SINFO_TUPLE: {
      const rlx_sinfo_tuple_t* t = (const void*)si;
      for (int i = 0; i < t->n_fields; i++) sinfo_define_hash(s, t->fields[i]);
      return;
    }
  }
}

static uint64_t define_var_hash(hs_t* s, const rlx_relax_var_t* v) {
  uint64_t h = 0xdef0 + (uint64_t)v->hdr.kind;
  MIX(h, sinfo_hash(s, v->hdr.sinfo, false));
  rlx_ptrmap_put(&s->vars, v, (void*)++s->n_vars);
  return h;
}

static uint64_t attrs_hash(const rlx_attrs_t* a) {
  uint64_t h = (uint64_t)a->n; /* order-insensitive, like attrs_eq */
  uint64_t sum = 0;
  for (int i = 0; i < a->n; i++) {
    const rlx_attr_t* t = &a->items[i];
    uint64_t x = hash_str(t->key) + (uint64_t)t->kind;
    switch (t->kind) {
      case RLX_ATTR_BOOL: x = rlx_hash_combine(x, t->u.b); break;
      case RLX_ATTR_INT: x = rlx_hash_combine(x, (uint64_t)t->u.i); break;
      case RLX_ATTR_FLOAT: x = rlx_hash_combine(x, rlx_hash_bytes(&t->u.f, sizeof(double), 0)); break;
      case RLX_ATTR_STR: x = rlx_hash_combine(x, hash_str(t->u.s)); break;
      case RLX_ATTR_DTYPE: x = rlx_hash_combine(x, hash_dtype(t->u.dtype)); break;
      case RLX_ATTR_INTS: x = rlx_hash_combine(x, rlx_hash_bytes(t->u.ints.v, sizeof(int64_t) * (size_t)t->u.ints.n, 1)); break;
      case RLX_ATTR_EXPR: x = rlx_hash_combine(x, rlx_expr_hash(t->u.expr)); break;
    }
    sum += x;
  }
  return rlx_hash_combine(h, sum);
}

static uint64_t expr_hash(hs_t* s, const rlx_relax_expr_t* e) {
  if (!e) return 0xe0;
  uint64_t h = 0xe000 + (uint64_t)e->kind;
  switch (e->kind) {
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR: {
      uintptr_t idx = (uintptr_t)rlx_ptrmap_get(&s->vars, e);
      MIX(h, idx ? (uint64_t)idx : (uint64_t)(uintptr_t)e);
      return h;
    }
    case RLX_RELAX_CONSTANT: {
      const rlx_relax_constant_t* c = (const void*)e;
      MIX(h, hash_dtype(c->dtype));
      MIX(h, rlx_hash_bytes(c->shape, sizeof(int64_t) * (size_t)c->ndim, 2));
      MIX(h, rlx_hash_bytes(c->data, c->nbytes, 3));
      return h;
    }
    case RLX_RELAX_TUPLE: {
      const rlx_relax_tuple_t* t = (const void*)e;
      MIX(h, (uint64_t)t->n_fields);
      for (int i = 0; i < t->n_fields; i++) MIX(h, expr_hash(s, t->fields[i]));
      return h;
    }
    case RLX_RELAX_TUPLE_GET_ITEM:
      MIX(h, (uint64_t)((const rlx_relax_tuple_get_item_t*)e)->index);
      MIX(h, expr_hash(s, ((const rlx_relax_tuple_get_item_t*)e)->tuple));
      return h;
    case RLX_RELAX_SHAPE_EXPR: {
      const rlx_relax_shape_expr_t* p = (const void*)e;
      MIX(h, dims_hash(s, p->ndim, p->values, false));
      return h;
    }
    case RLX_RELAX_PRIM_VALUE: MIX(h, prim_hash(s, ((const rlx_relax_prim_value_t*)e)->value, false)); return h;
    case RLX_RELAX_STRING_IMM: MIX(h, hash_str(((const rlx_relax_string_imm_t*)e)->value)); return h;
    case RLX_RELAX_DATA_TYPE_IMM: MIX(h, hash_dtype(((const rlx_relax_dtype_imm_t*)e)->value)); return h;
    case RLX_RELAX_OP: MIX(h, hash_str(((const rlx_relax_op_t*)e)->name)); return h;
    case RLX_RELAX_CALL: {
      const rlx_relax_call_t* c = (const void*)e;
      MIX(h, expr_hash(s, c->op));
      MIX(h, (uint64_t)c->n_args);
      for (int i = 0; i < c->n_args; i++) MIX(h, expr_hash(s, c->args[i]));
      MIX(h, attrs_hash(&c->attrs));
      for (int i = 0; i < c->n_sinfo_args; i++) MIX(h, sinfo_hash(s, c->sinfo_args[i], false));
      return h;
    }
    case RLX_RELAX_IF: {
      const rlx_relax_if_t* i = (const void*)e;
      MIX(h, expr_hash(s, i->cond));
      MIX(h, expr_hash(s, i->then_branch));
      MIX(h, expr_hash(s, i->else_branch));
      return h;
    }
    case RLX_RELAX_SEQ: {
      const rlx_relax_seq_t* q = (const void*)e;
      for (int b = 0; b < q->n_blocks; b++) {
        const rlx_relax_block_t* blk = q->blocks[b];
        MIX(h, blk->is_dataflow);
        MIX(h, (uint64_t)blk->n_bindings);
        for (int k = 0; k < blk->n_bindings; k++) {
          const rlx_relax_binding_t* bd = blk->bindings[k];
          MIX(h, bd->kind);
          MIX(h, expr_hash(s, bd->value));
          if (bd->kind == RLX_BINDING_MATCH_CAST) {
            sinfo_define_hash(s, bd->sinfo);
            MIX(h, sinfo_hash(s, bd->sinfo, false));
          }
          MIX(h, define_var_hash(s, bd->var));
        }
      }
      MIX(h, expr_hash(s, q->body));
      return h;
    }
    case RLX_RELAX_FUNCTION: {
      const rlx_relax_func_t* f = (const void*)e;
      MIX(h, (uint64_t)f->n_params);
      MIX(h, f->is_pure);
      MIX(h, attrs_hash(&f->attrs));
      for (int i = 0; i < f->n_params; i++) sinfo_define_hash(s, f->params[i]->hdr.sinfo);
      for (int i = 0; i < f->n_params; i++) MIX(h, define_var_hash(s, f->params[i]));
      MIX(h, sinfo_hash(s, f->ret_sinfo, false));
      MIX(h, expr_hash(s, f->body));
      return h;
    }
    case RLX_RELAX_GLOBAL_VAR: MIX(h, hash_str(((const rlx_relax_global_var_t*)e)->name)); return h;
    case RLX_RELAX_EXTERN_FUNC: MIX(h, hash_str(((const rlx_relax_extern_func_t*)e)->global_symbol)); return h;
    case RLX_RELAX_KIND_COUNT: break;
  }
  return h;
}

uint64_t rlx_relax_expr_hash(const rlx_relax_expr_t* e) {
  hs_t s;
  memset(&s, 0, sizeof(s));
  uint64_t h = expr_hash(&s, e);
  rlx_ptrmap_free(&s.vars);
  rlx_ptrmap_free(&s.sym);
  return h;
}

uint64_t rlx_relax_func_hash(const rlx_relax_func_t* f) { return f ? rlx_relax_expr_hash(&f->hdr) : 0; }
