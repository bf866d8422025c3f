/* Reading Relax nodes through the public API (include/rlx/rlx.h, "reading Relax nodes"):
 * the fields of each node under TVM's names, so that language bindings give Function.params,
 * Call.args, SeqExpr.blocks, Binding.var ... without knowing the structs. Every accessor
 * answers NULL / 0 / -1 for a node that has no such field, never crashes on one. */
#include <string.h>

#include "../relax/op.h"
#include "../relax/relax.h"
#include "attr_list.h"
#include "rlx/rlx.h"

/* The expressions of field `field` of e: *n of them (1 for a single one), or false when e
 * has no such field. */
static bool expr_field(const rlx_relax_expr_t* e, const char* field, int* n, rlx_relax_expr_t* const** items,
                       rlx_relax_expr_t** one) {
  *items = NULL;
  *one = NULL;
  *n = 1;
  switch (e->kind) {
    case RLX_RELAX_FUNCTION: {
      const rlx_relax_func_t* f = (const rlx_relax_func_t*)e;
      if (strcmp(field, "params") == 0) {
        *n = f->n_params;
        *items = (rlx_relax_expr_t* const*)f->params; /* a var's header comes first */
        return true;
      }
      if (strcmp(field, "body") == 0) {
        *one = f->body;
        return true;
      }
      return false;
    }
    case RLX_RELAX_CALL: {
      const rlx_relax_call_t* c = (const rlx_relax_call_t*)e;
      if (strcmp(field, "op") == 0) {
        *one = c->op;
        return true;
      }
      if (strcmp(field, "args") == 0) {
        *n = c->n_args;
        *items = c->args;
        return true;
      }
      return false;
    }
    case RLX_RELAX_TUPLE:
      if (strcmp(field, "fields") != 0) return false;
      *n = ((const rlx_relax_tuple_t*)e)->n_fields;
      *items = ((const rlx_relax_tuple_t*)e)->fields;
      return true;
    case RLX_RELAX_TUPLE_GET_ITEM:
      if (strcmp(field, "tuple_value") != 0) return false;
      *one = ((const rlx_relax_tuple_get_item_t*)e)->tuple;
      return true;
    case RLX_RELAX_IF: {
      const rlx_relax_if_t* x = (const rlx_relax_if_t*)e;
      if (strcmp(field, "cond") == 0) *one = x->cond;
      else if (strcmp(field, "true_branch") == 0) *one = x->then_branch;
      else if (strcmp(field, "false_branch") == 0) *one = x->else_branch;
      else return false;
      return true;
    }
    case RLX_RELAX_SEQ:
      if (strcmp(field, "body") != 0) return false;
      *one = ((const rlx_relax_seq_t*)e)->body;
      return true;
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
    case RLX_RELAX_KIND_COUNT:
      break;
  }
  return false;
}

int rlx_relax_expr_field_count(const rlx_relax_expr_t* e, const char* field) {
  int n;
  rlx_relax_expr_t* const* items;
  rlx_relax_expr_t* one;
  if (!e || !field || !expr_field(e, field, &n, &items, &one)) return -1;
  return items || one ? n : 0;
}

rlx_relax_expr_t* rlx_relax_expr_field(const rlx_relax_expr_t* e, const char* field, int i) {
  int n;
  rlx_relax_expr_t* const* items;
  rlx_relax_expr_t* one;
  if (!e || !field || !expr_field(e, field, &n, &items, &one) || i < 0 || i >= n) return NULL;
  return items ? items[i] : one;
}

int rlx_relax_expr_index(const rlx_relax_expr_t* e) {
  return e && e->kind == RLX_RELAX_TUPLE_GET_ITEM ? ((const rlx_relax_tuple_get_item_t*)e)->index : -1;
}

const char* rlx_relax_expr_name(const rlx_relax_expr_t* e) {
  if (!e) return NULL;
  switch (e->kind) {
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR: return ((const rlx_relax_var_t*)e)->name;
    case RLX_RELAX_GLOBAL_VAR: return ((const rlx_relax_global_var_t*)e)->name;
    case RLX_RELAX_OP: return ((const rlx_relax_op_t*)e)->name;
    case RLX_RELAX_EXTERN_FUNC: return ((const rlx_relax_extern_func_t*)e)->global_symbol;
    case RLX_RELAX_STRING_IMM: return ((const rlx_relax_string_imm_t*)e)->value;
    default: return NULL;
  }
}

int rlx_relax_expr_prim_count(const rlx_relax_expr_t* e) {
  if (e && e->kind == RLX_RELAX_SHAPE_EXPR) return ((const rlx_relax_shape_expr_t*)e)->ndim;
  if (e && e->kind == RLX_RELAX_PRIM_VALUE) return 1;
  return -1;
}

rlx_expr_t* rlx_relax_expr_prim(const rlx_relax_expr_t* e, int i) {
  if (i < 0 || i >= rlx_relax_expr_prim_count(e)) return NULL;
  if (e->kind == RLX_RELAX_PRIM_VALUE) return ((const rlx_relax_prim_value_t*)e)->value;
  return ((const rlx_relax_shape_expr_t*)e)->values[i];
}

rlx_dtype_t rlx_relax_expr_dtype_value(const rlx_relax_expr_t* e) {
  return e && e->kind == RLX_RELAX_DATA_TYPE_IMM ? ((const rlx_relax_dtype_imm_t*)e)->value : rlx_dt_void();
}

const void* rlx_relax_constant_data(const rlx_relax_expr_t* e, rlx_dtype_t* out_dtype, int* out_ndim,
                                    const int64_t** out_shape, size_t* out_nbytes) {
  if (!e || e->kind != RLX_RELAX_CONSTANT) return NULL;
  const rlx_relax_constant_t* c = (const rlx_relax_constant_t*)e;
  if (out_dtype) *out_dtype = c->dtype;
  if (out_ndim) *out_ndim = c->ndim;
  if (out_shape) *out_shape = c->shape;
  if (out_nbytes) *out_nbytes = c->nbytes;
  return c->data;
}

bool rlx_relax_func_is_pure(const rlx_relax_func_t* f) { return f && f->is_pure; }

int rlx_relax_call_sinfo_arg_count(const rlx_relax_expr_t* e) {
  return e && e->kind == RLX_RELAX_CALL ? ((const rlx_relax_call_t*)e)->n_sinfo_args : -1;
}

rlx_sinfo_t* rlx_relax_call_sinfo_arg(const rlx_relax_expr_t* e, int i) {
  if (i < 0 || i >= rlx_relax_call_sinfo_arg_count(e)) return NULL;
  return ((const rlx_relax_call_t*)e)->sinfo_args[i];
}

static const rlx_attrs_t* attrs_of(const rlx_relax_expr_t* e) {
  if (e && e->kind == RLX_RELAX_CALL) return &((const rlx_relax_call_t*)e)->attrs;
  if (e && e->kind == RLX_RELAX_FUNCTION) return &((const rlx_relax_func_t*)e)->attrs;
  return NULL;
}

int rlx_relax_expr_attr_count(const rlx_relax_expr_t* e) {
  const rlx_attrs_t* a = attrs_of(e);
  return a ? a->n : -1;
}

const char* rlx_relax_expr_attr(const rlx_relax_expr_t* e, int i, rlx_attr_value_t* out) {
  const rlx_attrs_t* as = attrs_of(e);
  if (!as || i < 0 || i >= as->n || !out) return NULL;
  const rlx_attr_t* a = &as->items[i];
  memset(out, 0, sizeof(*out));
  switch (a->kind) {
    case RLX_ATTR_BOOL: out->kind = RLX_ATTR_VALUE_BOOL; out->b = a->u.b; break;
    case RLX_ATTR_INT: out->kind = RLX_ATTR_VALUE_INT; out->i = a->u.i; break;
    case RLX_ATTR_FLOAT: out->kind = RLX_ATTR_VALUE_FLOAT; out->f = a->u.f; break;
    case RLX_ATTR_STR: out->kind = RLX_ATTR_VALUE_STR; out->s = a->u.s; break;
    case RLX_ATTR_DTYPE: out->kind = RLX_ATTR_VALUE_DTYPE; out->dtype = a->u.dtype; break;
    case RLX_ATTR_INTS:
      out->kind = RLX_ATTR_VALUE_INTS;
      out->n = a->u.ints.n;
      out->ints = a->u.ints.v;
      break;
    case RLX_ATTR_EXPR: out->kind = RLX_ATTR_VALUE_EXPR; out->expr = a->u.expr; break;
  }
  return a->key;
}

int rlx_relax_seq_block_count(const rlx_relax_expr_t* e) {
  return e && e->kind == RLX_RELAX_SEQ ? ((const rlx_relax_seq_t*)e)->n_blocks : -1;
}

rlx_relax_block_t* rlx_relax_seq_block(const rlx_relax_expr_t* e, int i) {
  if (i < 0 || i >= rlx_relax_seq_block_count(e)) return NULL;
  return ((const rlx_relax_seq_t*)e)->blocks[i];
}

bool rlx_relax_block_is_dataflow(const rlx_relax_block_t* b) { return b && b->is_dataflow; }
int rlx_relax_block_binding_count(const rlx_relax_block_t* b) { return b ? b->n_bindings : 0; }
rlx_relax_binding_t* rlx_relax_block_binding(const rlx_relax_block_t* b, int i) {
  return b && i >= 0 && i < b->n_bindings ? b->bindings[i] : NULL;
}

bool rlx_relax_binding_is_match_cast(const rlx_relax_binding_t* b) { return b && b->kind == RLX_BINDING_MATCH_CAST; }
rlx_relax_var_t* rlx_relax_binding_var(const rlx_relax_binding_t* b) { return b ? b->var : NULL; }
rlx_relax_expr_t* rlx_relax_binding_value(const rlx_relax_binding_t* b) { return b ? b->value : NULL; }
rlx_sinfo_t* rlx_relax_binding_sinfo(const rlx_relax_binding_t* b) {
  return b && b->kind == RLX_BINDING_MATCH_CAST ? b->sinfo : NULL;
}

rlx_expr_t* rlx_sinfo_prim_value(const rlx_sinfo_t* s) {
  return s && s->kind == RLX_SINFO_PRIM ? ((const rlx_sinfo_prim_t*)s)->value : NULL;
}

int rlx_sinfo_func_param_count(const rlx_sinfo_t* s) {
  return s && s->kind == RLX_SINFO_FUNC ? ((const rlx_sinfo_func_t*)s)->n_params : -1;
}

rlx_sinfo_t* rlx_sinfo_func_param(const rlx_sinfo_t* s, int i) {
  if (i < 0 || i >= rlx_sinfo_func_param_count(s)) return NULL;
  return ((const rlx_sinfo_func_t*)s)->params[i];
}

rlx_sinfo_t* rlx_sinfo_func_ret(const rlx_sinfo_t* s) {
  return s && s->kind == RLX_SINFO_FUNC ? ((const rlx_sinfo_func_t*)s)->ret : NULL;
}

bool rlx_sinfo_func_is_pure(const rlx_sinfo_t* s) {
  return s && s->kind == RLX_SINFO_FUNC && ((const rlx_sinfo_func_t*)s)->is_pure;
}

rlx_relax_expr_t* rlx_relax_call_create(rlx_ctx_t* ctx, rlx_relax_expr_t* callee, int n_args,
                                        rlx_relax_expr_t* const* args, const rlx_attr_list_t* attrs,
                                        int n_sinfo_args, rlx_sinfo_t* const* sinfo_args) {
  if (!ctx || !callee || n_args < 0 || (n_args > 0 && !args) || n_sinfo_args < 0 || (n_sinfo_args > 0 && !sinfo_args))
    return NULL;
  rlx_attrs_t a = attrs ? attrs->attrs : (rlx_attrs_t){0};
  return rlx_relax_call(ctx, callee, n_args, args, a, n_sinfo_args, sinfo_args);
}

rlx_relax_expr_t* rlx_relax_op_get(rlx_ctx_t* ctx, const char* name) {
  if (!ctx || !name || !rlx_op_lookup(name)) return NULL;
  return rlx_relax_op_named(ctx, name);
}
