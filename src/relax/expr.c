/* Relax expression constructors, attrs, children access and short descriptions. */
#include <string.h>

#include "op.h"
#include "relax.h"

static const char* const kind_names[] = {
#define X(E, S) S,
#include "expr.def"
#undef X
};
_Static_assert(sizeof(kind_names) / sizeof(kind_names[0]) == RLX_RELAX_KIND_COUNT, "relax/expr.def table");

const char* rlx_relax_kind_name(rlx_relax_kind_t k) {
  return (unsigned)k < RLX_RELAX_KIND_COUNT ? kind_names[k] : "?";
}

static void* new_node(rlx_ctx_t* ctx, size_t size, rlx_relax_kind_t k, rlx_sinfo_t* sinfo) {
  rlx_relax_expr_t* e = rlx_ctx_alloc(ctx, size);
  e->kind = k;
  e->sinfo = sinfo;
  return e;
}
#define NEW_NODE(T, K, S) ((T*)new_node(ctx, sizeof(T), (K), (S)))

static void* copy_array(rlx_ctx_t* ctx, const void* src, int n, size_t elem) {
  if (n <= 0 || !src) return rlx_ctx_alloc(ctx, elem);
  void* p = rlx_ctx_alloc(ctx, elem * (size_t)n);
  memcpy(p, src, elem * (size_t)n);
  return p;
}

/* ------------------------------------------------------------------ attrs */
rlx_attrs_t rlx_attrs_set(rlx_ctx_t* ctx, rlx_attrs_t attrs, const char* key, rlx_attr_t v) {
  rlx_attrs_t out;
  int pos = -1;
  for (int i = 0; i < attrs.n; i++)
    if (strcmp(attrs.items[i].key, key) == 0) pos = i;
  out.n = pos >= 0 ? attrs.n : attrs.n + 1;
  out.items = RLX_NEW_ARRAY(ctx, rlx_attr_t, out.n);
  if (attrs.n) memcpy(out.items, attrs.items, sizeof(rlx_attr_t) * (size_t)attrs.n);
  if (v.kind == RLX_ATTR_STR) v.u.s = rlx_ctx_strdup(ctx, v.u.s ? v.u.s : "");
  if (v.kind == RLX_ATTR_INTS) v.u.ints.v = copy_array(ctx, v.u.ints.v, v.u.ints.n, sizeof(int64_t));
  v.key = rlx_ctx_strdup(ctx, key);
  out.items[pos >= 0 ? pos : attrs.n] = v;
  return out;
}

const rlx_attr_t* rlx_attrs_get(const rlx_attrs_t* attrs, const char* key) {
  for (int i = 0; i < attrs->n; i++)
    if (strcmp(attrs->items[i].key, key) == 0) return &attrs->items[i];
  return NULL;
}

bool rlx_attr_equal(const rlx_attr_t* a, const rlx_attr_t* b) {
  if (strcmp(a->key, b->key) != 0 || a->kind != b->kind) return false;
  switch (a->kind) {
    case RLX_ATTR_BOOL: return a->u.b == b->u.b;
    case RLX_ATTR_INT: return a->u.i == b->u.i;
    case RLX_ATTR_FLOAT: return a->u.f == b->u.f;
    case RLX_ATTR_STR: return strcmp(a->u.s, b->u.s) == 0;
    case RLX_ATTR_DTYPE: return rlx_dtype_eq(a->u.dtype, b->u.dtype);
    case RLX_ATTR_INTS:
      if (a->u.ints.n != b->u.ints.n) return false;
      for (int i = 0; i < a->u.ints.n; i++)
        if (a->u.ints.v[i] != b->u.ints.v[i]) return false;
      return true;
    case RLX_ATTR_EXPR: return rlx_expr_equal(a->u.expr, b->u.expr);
  }
  return false;
}

/* ------------------------------------------------------------------ constructors */
rlx_relax_var_t* rlx_relax_var(rlx_ctx_t* ctx, const char* name, rlx_sinfo_t* sinfo) {
  rlx_relax_var_t* v = NEW_NODE(rlx_relax_var_t, RLX_RELAX_VAR, sinfo);
  v->name = rlx_ctx_strdup(ctx, name ? name : "v");
  return v;
}

rlx_relax_var_t* rlx_relax_dataflow_var(rlx_ctx_t* ctx, const char* name, rlx_sinfo_t* sinfo) {
  rlx_relax_var_t* v = NEW_NODE(rlx_relax_var_t, RLX_RELAX_DATAFLOW_VAR, sinfo);
  v->name = rlx_ctx_strdup(ctx, name ? name : "lv");
  return v;
}

rlx_relax_expr_t* rlx_relax_constant(rlx_ctx_t* ctx, rlx_dtype_t dtype, int ndim, const int64_t* shape,
                                     const void* data, size_t nbytes) {
  if (ndim < 0) return NULL;
  size_t count = 1;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0) return NULL;
    count *= (size_t)shape[i];
  }
  if (count * (size_t)rlx_dtype_bytes(dtype) != nbytes) return NULL;
  rlx_relax_constant_t* c = NEW_NODE(rlx_relax_constant_t, RLX_RELAX_CONSTANT, NULL);
  c->dtype = dtype;
  c->ndim = ndim;
  c->shape = copy_array(ctx, shape, ndim, sizeof(int64_t));
  c->data = rlx_ctx_alloc(ctx, nbytes ? nbytes : 1);
  if (!c->data) return NULL; /* out of memory (a request over the arena's spare chunk) */
  if (nbytes) memcpy(c->data, data, nbytes);
  c->nbytes = nbytes;
  c->hdr.sinfo = rlx_sinfo_tensor_const(ctx, ndim, shape, dtype);
  return &c->hdr;
}

rlx_relax_expr_t* rlx_relax_tuple(rlx_ctx_t* ctx, int n, rlx_relax_expr_t* const* fields) {
  rlx_relax_tuple_t* t = NEW_NODE(rlx_relax_tuple_t, RLX_RELAX_TUPLE, NULL);
  t->n_fields = n;
  t->fields = copy_array(ctx, fields, n, sizeof(rlx_relax_expr_t*));
  return &t->hdr;
}

rlx_relax_expr_t* rlx_relax_tuple_get_item(rlx_ctx_t* ctx, rlx_relax_expr_t* tuple, int index) {
  rlx_relax_tuple_get_item_t* t = NEW_NODE(rlx_relax_tuple_get_item_t, RLX_RELAX_TUPLE_GET_ITEM, NULL);
  t->tuple = tuple;
  t->index = index;
  /* the field's struct info at once when the tuple's is known (TVM's TupleGetItem) */
  const rlx_sinfo_t* s = tuple ? tuple->sinfo : NULL;
  if (s && s->kind == RLX_SINFO_TUPLE && index >= 0 && index < ((const rlx_sinfo_tuple_t*)s)->n_fields)
    t->hdr.sinfo = ((const rlx_sinfo_tuple_t*)s)->fields[index];
  return &t->hdr;
}

rlx_relax_expr_t* rlx_relax_shape_expr(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* values) {
  rlx_relax_shape_expr_t* s = NEW_NODE(rlx_relax_shape_expr_t, RLX_RELAX_SHAPE_EXPR, NULL);
  rlx_sinfo_shape_t* si = (rlx_sinfo_shape_t*)rlx_sinfo_shape(ctx, ndim, values);
  s->ndim = ndim;
  s->values = si->values; /* int64-converted copy, shared with the struct info */
  s->hdr.sinfo = &si->hdr;
  return &s->hdr;
}

rlx_relax_expr_t* rlx_relax_prim_value(rlx_ctx_t* ctx, rlx_expr_t* value) {
  rlx_relax_prim_value_t* p = NEW_NODE(rlx_relax_prim_value_t, RLX_RELAX_PRIM_VALUE, NULL);
  p->value = value;
  p->hdr.sinfo = rlx_sinfo_prim(ctx, value->dtype, value);
  return &p->hdr;
}

rlx_relax_expr_t* rlx_relax_string_imm(rlx_ctx_t* ctx, const char* value) {
  rlx_relax_string_imm_t* s = NEW_NODE(rlx_relax_string_imm_t, RLX_RELAX_STRING_IMM, rlx_sinfo_object(ctx));
  s->value = rlx_ctx_strdup(ctx, value ? value : "");
  return &s->hdr;
}

rlx_relax_expr_t* rlx_relax_dtype_imm(rlx_ctx_t* ctx, rlx_dtype_t value) {
  rlx_relax_dtype_imm_t* d = NEW_NODE(rlx_relax_dtype_imm_t, RLX_RELAX_DATA_TYPE_IMM, rlx_sinfo_object(ctx));
  d->value = value;
  return &d->hdr;
}

rlx_relax_expr_t* rlx_relax_op(rlx_ctx_t* ctx, rlx_op_id_t id) {
  rlx_relax_op_t* o = NEW_NODE(rlx_relax_op_t, RLX_RELAX_OP, NULL);
  o->def = rlx_op_get(id);
  o->name = o->def ? o->def->name : "?";
  return &o->hdr;
}

rlx_relax_expr_t* rlx_relax_op_named(rlx_ctx_t* ctx, const char* name) {
  rlx_relax_op_t* o = NEW_NODE(rlx_relax_op_t, RLX_RELAX_OP, NULL);
  o->def = rlx_op_find(name);
  o->name = o->def ? o->def->name : rlx_ctx_strdup(ctx, name);
  return &o->hdr;
}

rlx_relax_expr_t* rlx_relax_call(rlx_ctx_t* ctx, rlx_relax_expr_t* op, int n_args, rlx_relax_expr_t* const* args,
                                 rlx_attrs_t attrs, int n_sinfo_args, rlx_sinfo_t* const* sinfo_args) {
  rlx_relax_call_t* c = NEW_NODE(rlx_relax_call_t, RLX_RELAX_CALL, NULL);
  c->op = op;
  c->n_args = n_args;
  c->args = copy_array(ctx, args, n_args, sizeof(rlx_relax_expr_t*));
  c->attrs.n = attrs.n;
  c->attrs.items = copy_array(ctx, attrs.items, attrs.n, sizeof(rlx_attr_t));
  c->n_sinfo_args = n_sinfo_args;
  c->sinfo_args = copy_array(ctx, sinfo_args, n_sinfo_args, sizeof(rlx_sinfo_t*));
  return &c->hdr;
}

rlx_relax_expr_t* rlx_relax_if(rlx_ctx_t* ctx, rlx_relax_expr_t* cond, rlx_relax_expr_t* then_branch,
                               rlx_relax_expr_t* else_branch) {
  rlx_relax_if_t* i = NEW_NODE(rlx_relax_if_t, RLX_RELAX_IF, NULL);
  i->cond = cond;
  i->then_branch = then_branch;
  i->else_branch = else_branch;
  return &i->hdr;
}

rlx_relax_binding_t* rlx_relax_var_binding(rlx_ctx_t* ctx, rlx_relax_var_t* var, rlx_relax_expr_t* value) {
  rlx_relax_binding_t* b = RLX_NEW(ctx, rlx_relax_binding_t);
  b->kind = RLX_BINDING_VAR;
  b->var = var;
  b->value = value;
  return b;
}

rlx_relax_binding_t* rlx_relax_match_cast(rlx_ctx_t* ctx, rlx_relax_var_t* var, rlx_relax_expr_t* value,
                                          rlx_sinfo_t* sinfo) {
  rlx_relax_binding_t* b = RLX_NEW(ctx, rlx_relax_binding_t);
  b->kind = RLX_BINDING_MATCH_CAST;
  b->var = var;
  b->value = value;
  b->sinfo = sinfo;
  return b;
}

rlx_relax_block_t* rlx_relax_block(rlx_ctx_t* ctx, bool is_dataflow, int n, rlx_relax_binding_t* const* bindings) {
  rlx_relax_block_t* b = RLX_NEW(ctx, rlx_relax_block_t);
  b->is_dataflow = is_dataflow;
  b->n_bindings = n;
  b->bindings = copy_array(ctx, bindings, n, sizeof(rlx_relax_binding_t*));
  return b;
}

rlx_relax_expr_t* rlx_relax_seq(rlx_ctx_t* ctx, int n_blocks, rlx_relax_block_t* const* blocks,
                                rlx_relax_expr_t* body) {
  rlx_relax_seq_t* s = NEW_NODE(rlx_relax_seq_t, RLX_RELAX_SEQ, NULL);
  s->n_blocks = n_blocks;
  s->blocks = copy_array(ctx, blocks, n_blocks, sizeof(rlx_relax_block_t*));
  s->body = body;
  return &s->hdr;
}

rlx_relax_func_t* rlx_relax_func(rlx_ctx_t* ctx, int n_params, rlx_relax_var_t* const* params,
                                 rlx_relax_expr_t* body, rlx_sinfo_t* ret_sinfo, rlx_attrs_t attrs, bool is_pure) {
  rlx_relax_func_t* f = NEW_NODE(rlx_relax_func_t, RLX_RELAX_FUNCTION, NULL);
  f->n_params = n_params;
  f->params = copy_array(ctx, params, n_params, sizeof(rlx_relax_var_t*));
  f->body = body;
  f->ret_sinfo = ret_sinfo;
  f->attrs.n = attrs.n;
  f->attrs.items = copy_array(ctx, attrs.items, attrs.n, sizeof(rlx_attr_t));
  f->is_pure = is_pure;
  if (ret_sinfo) {
    rlx_sinfo_t** ps = RLX_NEW_ARRAY(ctx, rlx_sinfo_t*, n_params);
    bool all = true;
    for (int i = 0; i < n_params; i++) {
      ps[i] = params[i]->hdr.sinfo;
      if (!ps[i]) all = false;
    }
    if (all) f->hdr.sinfo = rlx_sinfo_func(ctx, n_params, ps, ret_sinfo, is_pure);
  }
  return f;
}

rlx_relax_expr_t* rlx_relax_global_var(rlx_ctx_t* ctx, const char* name, rlx_sinfo_t* sinfo) {
  rlx_relax_global_var_t* g = NEW_NODE(rlx_relax_global_var_t, RLX_RELAX_GLOBAL_VAR, sinfo);
  g->name = rlx_ctx_strdup(ctx, name);
  return &g->hdr;
}

rlx_relax_expr_t* rlx_relax_extern_func(rlx_ctx_t* ctx, const char* global_symbol) {
  rlx_relax_extern_func_t* e = NEW_NODE(rlx_relax_extern_func_t, RLX_RELAX_EXTERN_FUNC,
                                        rlx_sinfo_func_opaque(ctx, rlx_sinfo_object(ctx), false));
  e->global_symbol = rlx_ctx_strdup(ctx, global_symbol);
  return &e->hdr;
}

/* ------------------------------------------------------------------ bridge calls */
static rlx_attrs_t no_attrs(void) {
  rlx_attrs_t a = {0, NULL};
  return a;
}

rlx_relax_expr_t* rlx_relax_call_tir(rlx_ctx_t* ctx, rlx_relax_expr_t* gv, int n_args, rlx_relax_expr_t* const* args,
                                     rlx_sinfo_t* out_sinfo, rlx_relax_expr_t* tir_vars) {
  rlx_relax_expr_t* cargs[3] = {gv, rlx_relax_tuple(ctx, n_args, args), tir_vars};
  return rlx_relax_call(ctx, rlx_relax_op(ctx, RLX_OP_CALL_TIR), tir_vars ? 3 : 2, cargs, no_attrs(), 1,
                        &out_sinfo);
}

rlx_relax_expr_t* rlx_relax_call_dps_packed(rlx_ctx_t* ctx, const char* name, int n_args,
                                            rlx_relax_expr_t* const* args, rlx_sinfo_t* out_sinfo) {
  rlx_relax_expr_t* cargs[2] = {rlx_relax_extern_func(ctx, name), rlx_relax_tuple(ctx, n_args, args)};
  return rlx_relax_call(ctx, rlx_relax_op(ctx, RLX_OP_CALL_DPS_PACKED), 2, cargs, no_attrs(), 1, &out_sinfo);
}

rlx_relax_expr_t* rlx_relax_call_packed(rlx_ctx_t* ctx, const char* name, int n_args, rlx_relax_expr_t* const* args,
                                        int n_sinfo_args, rlx_sinfo_t* const* sinfo_args) {
  return rlx_relax_call(ctx, rlx_relax_extern_func(ctx, name), n_args, args, no_attrs(), n_sinfo_args, sinfo_args);
}

rlx_relax_expr_t* rlx_relax_call_pure_packed(rlx_ctx_t* ctx, const char* name, int n_args,
                                             rlx_relax_expr_t* const* args, int n_sinfo_args,
                                             rlx_sinfo_t* const* sinfo_args) {
  rlx_relax_expr_t** cargs = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n_args + 1);
  cargs[0] = rlx_relax_extern_func(ctx, name);
  for (int i = 0; i < n_args; i++) cargs[i + 1] = args[i];
  return rlx_relax_call(ctx, rlx_relax_op(ctx, RLX_OP_CALL_PURE_PACKED), n_args + 1, cargs, no_attrs(),
                        n_sinfo_args, sinfo_args);
}

/* ------------------------------------------------------------------ access */
rlx_op_id_t rlx_relax_op_id(const rlx_relax_expr_t* e) {
  if (!e || e->kind != RLX_RELAX_OP || !((const rlx_relax_op_t*)e)->def) return RLX_OP_COUNT;
  return ((const rlx_relax_op_t*)e)->def->id;
}

rlx_op_id_t rlx_relax_call_op_id(const rlx_relax_call_t* c) { return rlx_relax_op_id(c->op); }

bool rlx_relax_is_op(const rlx_relax_expr_t* e, rlx_op_id_t id) { return rlx_relax_op_id(e) == id; }

int rlx_relax_expr_children(const rlx_relax_expr_t* e, rlx_relax_expr_t** out, int max) {
  int n = 0;
#define PUSH(x)                   \
  do {                            \
    if (n < max) out[n] = (x);    \
    n++;                          \
  } while (0)
  switch (e->kind) {
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
      break;
    case RLX_RELAX_TUPLE: {
      const rlx_relax_tuple_t* t = (const rlx_relax_tuple_t*)e;
      for (int i = 0; i < t->n_fields; i++) PUSH(t->fields[i]);
      break;
    }
    case RLX_RELAX_TUPLE_GET_ITEM: PUSH(((const rlx_relax_tuple_get_item_t*)e)->tuple); break;
    case RLX_RELAX_CALL: {
      const rlx_relax_call_t* c = (const rlx_relax_call_t*)e;
      PUSH(c->op);
      for (int i = 0; i < c->n_args; i++) PUSH(c->args[i]);
      break;
    }
    case RLX_RELAX_IF: {
      const rlx_relax_if_t* i = (const rlx_relax_if_t*)e;
      PUSH(i->cond);
      PUSH(i->then_branch);
      PUSH(i->else_branch);
      break;
    }
    case RLX_RELAX_SEQ: {
      const rlx_relax_seq_t* s = (const rlx_relax_seq_t*)e;
      for (int b = 0; b < s->n_blocks; b++)
        for (int i = 0; i < s->blocks[b]->n_bindings; i++) PUSH(s->blocks[b]->bindings[i]->value);
      PUSH(s->body);
      break;
    }
    case RLX_RELAX_FUNCTION: PUSH(((const rlx_relax_func_t*)e)->body); break;
    case RLX_RELAX_KIND_COUNT: break;
  }
#undef PUSH
  return n;
}

const char* rlx_relax_expr_brief(rlx_ctx_t* ctx, const rlx_relax_expr_t* e) {
  if (!e) return "<null>";
  switch (e->kind) {
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR:
      return rlx_ctx_sprintf(ctx, "%s %s", rlx_relax_kind_name(e->kind), ((const rlx_relax_var_t*)e)->name);
    case RLX_RELAX_OP: return rlx_ctx_sprintf(ctx, "Op %s", ((const rlx_relax_op_t*)e)->name);
    case RLX_RELAX_GLOBAL_VAR: return rlx_ctx_sprintf(ctx, "GlobalVar @%s", ((const rlx_relax_global_var_t*)e)->name);
    case RLX_RELAX_EXTERN_FUNC:
      return rlx_ctx_sprintf(ctx, "ExternFunc \"%s\"", ((const rlx_relax_extern_func_t*)e)->global_symbol);
    case RLX_RELAX_CALL: {
      const rlx_relax_call_t* c = (const rlx_relax_call_t*)e;
      const rlx_relax_expr_t* op = c->op;
      if (op && op->kind == RLX_RELAX_OP && c->n_args > 0 &&
          (rlx_relax_is_op(op, RLX_OP_CALL_TIR) || rlx_relax_is_op(op, RLX_OP_CALL_DPS_PACKED) ||
           rlx_relax_is_op(op, RLX_OP_CALL_PURE_PACKED)))
        return rlx_ctx_sprintf(ctx, "Call(%s, %s)", ((const rlx_relax_op_t*)op)->name,
                               rlx_relax_expr_brief(ctx, c->args[0]));
      if (op && op->kind == RLX_RELAX_OP) return rlx_ctx_sprintf(ctx, "Call(%s)", ((const rlx_relax_op_t*)op)->name);
      if (op && op->kind == RLX_RELAX_EXTERN_FUNC)
        return rlx_ctx_sprintf(ctx, "Call(R.call_packed \"%s\")", ((const rlx_relax_extern_func_t*)op)->global_symbol);
      return rlx_ctx_sprintf(ctx, "Call(%s)", rlx_relax_expr_brief(ctx, op));
    }
    case RLX_RELAX_CONSTANT:
    case RLX_RELAX_TUPLE:
    case RLX_RELAX_TUPLE_GET_ITEM:
    case RLX_RELAX_SHAPE_EXPR:
    case RLX_RELAX_PRIM_VALUE:
    case RLX_RELAX_STRING_IMM:
    case RLX_RELAX_DATA_TYPE_IMM:
    case RLX_RELAX_IF:
    case RLX_RELAX_SEQ:
    case RLX_RELAX_FUNCTION:
    case RLX_RELAX_KIND_COUNT:
      break;
  }
  return rlx_relax_kind_name(e->kind);
}

bool rlx_relax_expr_is_leaf(const rlx_relax_expr_t* e) {
  switch (e->kind) {
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
      return true;
    case RLX_RELAX_TUPLE:
    case RLX_RELAX_TUPLE_GET_ITEM:
    case RLX_RELAX_CALL:
    case RLX_RELAX_IF:
    case RLX_RELAX_SEQ:
    case RLX_RELAX_FUNCTION:
    case RLX_RELAX_KIND_COUNT:
      break;
  }
  return false;
}
