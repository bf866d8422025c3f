/* The language-binding part of the public API (include/rlx/rlx.h, "Language bindings"):
 * accessors and by-name entry points over the internal layers, so that python/rlx needs
 * nothing but the public header. Most Relax constructors and the BlockBuilder are the
 * internal functions themselves, declared in both headers (this file includes both, so
 * the compiler checks that the declarations agree); what is here adapts the rest. */
#include <string.h>

#include "rlx/rlx.h"

#include "../relax/op.h"
#include "attr_list.h"
#include "../relax/relax.h"
#include "../script/script.h"
#include "../tir/te.h"
#include "../tir/tir.h"
#include "../driver/driver.h"

/* ------------------------------------------------------------------ PrimExprs, TE, PrimFuncs */
rlx_expr_t* rlx_ir_attr_list(rlx_ctx_t* ctx, int n, rlx_expr_t* const* items) {
  return rlx_ir_call(ctx, rlx_dt_int32(), RLX_TIR_ATTR_LIST, n, items);
}

rlx_expr_t* rlx_ir_attr_dict(rlx_ctx_t* ctx, int n, const char* const* keys, rlx_expr_t* const* values) {
  rlx_expr_t** items = RLX_NEW_ARRAY(ctx, rlx_expr_t*, 2 * n > 0 ? 2 * n : 1);
  for (int i = 0; i < n; i++) {
    items[2 * i] = rlx_ir_string(ctx, keys[i]);
    items[2 * i + 1] = values[i];
  }
  return rlx_ir_call(ctx, rlx_dt_int32(), RLX_TIR_ATTR_DICT, 2 * n, items);
}

rlx_dtype_t rlx_ir_expr_dtype(const rlx_expr_t* e) { return e->dtype; }

bool rlx_ir_expr_int_value(const rlx_expr_t* e, int64_t* out) {
  if (e->kind != RLX_EXPR_INT_IMM) return false;
  *out = ((const rlx_int_imm_t*)e)->value;
  return true;
}

rlx_var_t* rlx_ir_expr_as_var(rlx_expr_t* e) { return e->kind == RLX_EXPR_VAR ? (rlx_var_t*)e : NULL; }

const char* rlx_ir_var_name(const rlx_var_t* v) { return v->name; }

char* rlx_ir_expr_str(const rlx_expr_t* e) {
  rlx_strbuf_t sb = {0};
  rlx_relax_prim_print(e, &sb);
  return rlx_strbuf_take(&sb);
}

void rlx_te_tensor_set_layout_free(rlx_ctx_t* ctx, rlx_te_tensor_t* t, int n, rlx_te_tensor_t* const* inputs) {
  if (!t || n < 0 || (n > 0 && !inputs)) return;
  t->layout_free = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, n > 0 ? n : 1);
  t->n_layout_free = 0;
  for (int i = 0; i < n; i++)
    if (inputs[i]) t->layout_free[t->n_layout_free++] = inputs[i];
}

int rlx_te_tensor_ndim(const rlx_te_tensor_t* t) { return t->buffer->ndim; }
rlx_expr_t* rlx_te_tensor_dim(const rlx_te_tensor_t* t, int i) { return t->buffer->shape[i]; }
rlx_dtype_t rlx_te_tensor_dtype(const rlx_te_tensor_t* t) { return t->buffer->dtype; }
const char* rlx_te_tensor_name(const rlx_te_tensor_t* t) { return t->name; }

const char* rlx_tir_func_name(const rlx_tir_func_t* f) { return f->name; }

rlx_tir_func_t* rlx_tir_func_rename(rlx_ctx_t* ctx, const rlx_tir_func_t* f, const char* name) {
  rlx_tir_func_t* c = rlx_tir_func_copy(ctx, f);
  c->name = rlx_ctx_strdup(ctx, name);
  return c;
}

/* ------------------------------------------------------------------ modules */
int rlx_module_func_count(const rlx_module_t* m) { return m->n_funcs; }
const char* rlx_module_func_name(const rlx_module_t* m, int i) { return m->funcs[i].name; }
bool rlx_module_func_is_relax(const rlx_module_t* m, int i) { return m->funcs[i].kind == RLX_FUNC_RELAX; }

rlx_relax_func_t* rlx_module_get_relax_func(rlx_module_t* m, const char* name) {
  rlx_module_entry_t* e = rlx_module_find(m, name);
  return e && e->kind == RLX_FUNC_RELAX ? e->func : NULL;
}

void rlx_module_add_relax_func(rlx_module_t* m, const char* name, rlx_relax_func_t* f) {
  rlx_module_set(m, rlx_ctx_strdup(m->ctx, name), RLX_FUNC_RELAX, f);
}

rlx_module_t* rlx_module_copy(rlx_ctx_t* ctx, const rlx_module_t* m) {
  rlx_module_t* c = rlx_module_create(ctx);
  for (int i = 0; i < m->n_funcs; i++) rlx_module_set(c, m->funcs[i].name, m->funcs[i].kind, m->funcs[i].func);
  return c;
}

bool rlx_module_equal(const rlx_module_t* a, const rlx_module_t* b) {
  if (a->n_funcs != b->n_funcs) return false;
  for (int i = 0; i < a->n_funcs; i++) {
    const rlx_module_entry_t* x = &a->funcs[i];
    const rlx_module_entry_t* y = rlx_module_find((rlx_module_t*)b, x->name);
    if (!y || y->kind != x->kind) return false;
    bool eq = x->kind == RLX_FUNC_TIR ? rlx_tir_func_equal(x->func, y->func) : rlx_relax_func_equal(x->func, y->func);
    if (!eq) return false;
  }
  return true;
}

uint64_t rlx_module_hash(const rlx_module_t* m) {
  /* Order-independent: a sum of per-function hashes mixed with the name. */
  uint64_t h = (uint64_t)m->n_funcs * 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < m->n_funcs; i++) {
    const rlx_module_entry_t* e = &m->funcs[i];
    uint64_t fh = e->kind == RLX_FUNC_TIR ? rlx_tir_func_hash(e->func) : rlx_relax_func_hash(e->func);
    for (const char* s = e->name; *s; s++) fh = (fh ^ (unsigned char)*s) * 0x100000001b3ull;
    h += fh;
  }
  return h;
}

rlx_sinfo_t* rlx_relax_func_ret_sinfo(const rlx_relax_func_t* f) { return f->ret_sinfo; }

RLX_MUST_USE rlx_status_t* rlx_module_well_formed(rlx_ctx_t* ctx, rlx_module_t* m) { return rlx_relax_well_formed(ctx, m); }

/* ------------------------------------------------------------------ struct info */
rlx_sinfo_kind_code_t rlx_sinfo_kind_code(const rlx_sinfo_t* s) {
  switch (s->kind) {
    case RLX_SINFO_OBJECT: return RLX_SINFO_KIND_OBJECT;
    case RLX_SINFO_PRIM: return RLX_SINFO_KIND_PRIM;
    case RLX_SINFO_SHAPE: return RLX_SINFO_KIND_SHAPE;
    case RLX_SINFO_TENSOR: return RLX_SINFO_KIND_TENSOR;
    case RLX_SINFO_TUPLE: return RLX_SINFO_KIND_TUPLE;
    case RLX_SINFO_FUNC: return RLX_SINFO_KIND_FUNC;
  }
  return RLX_SINFO_KIND_OBJECT;
}

int rlx_sinfo_ndim(const rlx_sinfo_t* s) {
  if (s->kind == RLX_SINFO_TENSOR) return ((const rlx_sinfo_tensor_t*)s)->ndim;
  if (s->kind == RLX_SINFO_SHAPE) return ((const rlx_sinfo_shape_t*)s)->ndim;
  return -1;
}

rlx_expr_t* rlx_sinfo_dim(const rlx_sinfo_t* s, int i) {
  rlx_expr_t** dims = NULL;
  if (s->kind == RLX_SINFO_TENSOR) dims = ((const rlx_sinfo_tensor_t*)s)->shape;
  if (s->kind == RLX_SINFO_SHAPE) dims = ((const rlx_sinfo_shape_t*)s)->values;
  return dims && i >= 0 && i < rlx_sinfo_ndim(s) ? dims[i] : NULL;
}

rlx_dtype_t rlx_sinfo_dtype(const rlx_sinfo_t* s) {
  if (s->kind == RLX_SINFO_TENSOR) return ((const rlx_sinfo_tensor_t*)s)->dtype;
  if (s->kind == RLX_SINFO_PRIM) return ((const rlx_sinfo_prim_t*)s)->dtype;
  return rlx_dt_void();
}

int rlx_sinfo_n_fields(const rlx_sinfo_t* s) {
  return s->kind == RLX_SINFO_TUPLE ? ((const rlx_sinfo_tuple_t*)s)->n_fields : 0;
}

rlx_sinfo_t* rlx_sinfo_field(const rlx_sinfo_t* s, int i) {
  return i >= 0 && i < rlx_sinfo_n_fields(s) ? ((const rlx_sinfo_tuple_t*)s)->fields[i] : NULL;
}

/* ------------------------------------------------------------------ Relax expressions */
rlx_sinfo_t* rlx_relax_expr_sinfo(const rlx_relax_expr_t* e) { return e->sinfo; }
const char* rlx_relax_expr_kind_str(const rlx_relax_expr_t* e) { return rlx_relax_kind_name(e->kind); }
rlx_relax_expr_t* rlx_relax_var_expr(rlx_relax_var_t* v) { return &v->hdr; }
rlx_relax_var_t* rlx_relax_expr_as_var(rlx_relax_expr_t* e) { return rlx_relax_is_var(e) ? (rlx_relax_var_t*)e : NULL; }
const char* rlx_relax_var_name(const rlx_relax_var_t* v) { return v->name; }

const char* rlx_relax_global_var_name(const rlx_relax_expr_t* e) {
  return e->kind == RLX_RELAX_GLOBAL_VAR ? ((const rlx_relax_global_var_t*)e)->name : NULL;
}

RLX_MUST_USE rlx_status_t* rlx_relax_function_create(rlx_ctx_t* ctx, int n_params, rlx_relax_var_t* const* params,
                                                     rlx_relax_expr_t* body, rlx_sinfo_t* ret_sinfo, bool is_pure,
                                                     const char* name, rlx_relax_func_t** out) {
  for (int i = 0; i < n_params; i++)
    if (!params[i]->hdr.sinfo)
      return rlx_status_create(RLX_INVALID_ARGUMENT, "relax.Function: parameter %s has no struct info", params[i]->name);
  if (body->kind != RLX_RELAX_SEQ) body = rlx_relax_seq(ctx, 0, NULL, body);
  rlx_attrs_t attrs = {0};
  if (name) attrs = rlx_attrs_set(ctx, attrs, "global_symbol", rlx_attr_str(rlx_ctx_strdup(ctx, name)));
  rlx_relax_func_t* f = rlx_relax_func(ctx, n_params, params, body, ret_sinfo, attrs, is_pure);
  RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_relax_normalize(ctx, NULL, &f->hdr), "relax.Function"));
  *out = f;
  return NULL;
}

/* ------------------------------------------------------------------ attributes */
rlx_attr_list_t* rlx_attr_list_create(rlx_ctx_t* ctx) {
  rlx_attr_list_t* l = RLX_NEW(ctx, rlx_attr_list_t);
  l->ctx = ctx;
  return l;
}

static void set(rlx_attr_list_t* l, const char* key, rlx_attr_t v) {
  l->attrs = rlx_attrs_set(l->ctx, l->attrs, rlx_ctx_strdup(l->ctx, key), v);
}

void rlx_attr_list_set_bool(rlx_attr_list_t* l, const char* key, bool v) { set(l, key, rlx_attr_bool(v)); }
void rlx_attr_list_set_int(rlx_attr_list_t* l, const char* key, int64_t v) { set(l, key, rlx_attr_int(v)); }
void rlx_attr_list_set_float(rlx_attr_list_t* l, const char* key, double v) { set(l, key, rlx_attr_float(v)); }
void rlx_attr_list_set_str(rlx_attr_list_t* l, const char* key, const char* v) {
  set(l, key, rlx_attr_str(rlx_ctx_strdup(l->ctx, v)));
}
void rlx_attr_list_set_dtype(rlx_attr_list_t* l, const char* key, rlx_dtype_t v) { set(l, key, rlx_attr_dtype(v)); }
void rlx_attr_list_set_ints(rlx_attr_list_t* l, const char* key, int n, const int64_t* v) {
  int64_t* c = RLX_NEW_ARRAY(l->ctx, int64_t, n);
  if (n > 0) memcpy(c, v, sizeof(int64_t) * (size_t)n);
  set(l, key, rlx_attr_ints(n, c));
}
void rlx_attr_list_set_expr(rlx_attr_list_t* l, const char* key, rlx_expr_t* v) { set(l, key, rlx_attr_expr(v)); }

/* ------------------------------------------------------------------ TE reductions */
rlx_expr_t* rlx_te_reduce_by_name(rlx_ctx_t* ctx, const char* combiner, rlx_expr_t* source, int n_axis,
                                  rlx_iter_var_t* const* axis, rlx_expr_t* cond, rlx_expr_t* init) {
  static const struct {
    const char* name;
    rlx_reduce_kind_t kind;
  } kinds[] = {{"sum", RLX_REDUCE_SUM}, {"prod", RLX_REDUCE_PROD}, {"max", RLX_REDUCE_MAX}, {"min", RLX_REDUCE_MIN}};
  for (size_t i = 0; combiner && source && i < sizeof(kinds) / sizeof(kinds[0]); i++)
    if (strcmp(combiner, kinds[i].name) == 0)
      return rlx_te_reduce_init(ctx, kinds[i].kind, source, n_axis, axis, cond, init);
  return NULL;
}

/* ------------------------------------------------------------------ op registry */
int rlx_relax_op_count(void) {
  const rlx_op_def_t* const* defs;
  int n;
  rlx_op_list(&defs, &n);
  return n;
}

const char* rlx_relax_op_name(int i) {
  const rlx_op_def_t* const* defs;
  int n;
  rlx_op_list(&defs, &n);
  return i >= 0 && i < n ? defs[i]->name : NULL;
}

const char* rlx_relax_op_params(int i) {
  const rlx_op_def_t* const* defs;
  int n;
  rlx_op_list(&defs, &n);
  return i >= 0 && i < n ? defs[i]->params : NULL;
}

RLX_MUST_USE rlx_status_t* rlx_relax_op_call_by_name(rlx_ctx_t* ctx, const char* name, int n_args, rlx_relax_expr_t* const* args,
                                                     const rlx_attr_list_t* attrs, int n_sinfo_args,
                                                     rlx_sinfo_t* const* sinfo_args, rlx_relax_expr_t** out) {
  if (!rlx_op_lookup(name)) return rlx_status_create(RLX_NOT_FOUND, "unknown op '%s'", name);
  for (int i = 0; i < n_args; i++)
    if (!args[i]) return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: argument %d is NULL", name, i);
  rlx_attrs_t a = rs_attrs_drop_defaults(ctx, name, attrs ? attrs->attrs : (rlx_attrs_t){0});
  *out = rlx_relax_call(ctx, rlx_relax_op_named(ctx, name), n_args, args, a, n_sinfo_args, sinfo_args);
  return NULL;
}

/* ------------------------------------------------------------------ BlockBuilder */
RLX_MUST_USE rlx_status_t* rlx_bb_function_set_attrs(rlx_bb_t* bb, const rlx_attr_list_t* l) {
  for (int i = 0; l && i < l->attrs.n; i++)
    RLX_RETURN_IF_ERROR(rlx_bb_function_set_attr(bb, l->attrs.items[i].key, l->attrs.items[i]));
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_bb_add_prim_func(rlx_bb_t* bb, rlx_tir_func_t* f, const char* name_hint, rlx_relax_expr_t** out_gv) {
  return rlx_bb_add_func(bb, RLX_FUNC_TIR, f, name_hint, out_gv);
}

RLX_MUST_USE rlx_status_t* rlx_bb_add_relax_func(rlx_bb_t* bb, rlx_relax_func_t* f, const char* name_hint,
                                                 rlx_relax_expr_t** out_gv) {
  return rlx_bb_add_func(bb, RLX_FUNC_RELAX, f, name_hint, out_gv);
}

RLX_MUST_USE rlx_status_t* rlx_bb_update_prim_func(rlx_bb_t* bb, const char* name, rlx_tir_func_t* f) {
  return rlx_bb_update_func(bb, name, RLX_FUNC_TIR, f);
}

RLX_MUST_USE rlx_status_t* rlx_bb_update_relax_func(rlx_bb_t* bb, const char* name, rlx_relax_func_t* f) {
  return rlx_bb_update_func(bb, name, RLX_FUNC_RELAX, f);
}

/* ------------------------------------------------------------------ passes */
/* The Relax stage's passes of the driver's table (src/driver/driver.c), in order. */
static int relax_passes(const rlx_driver_pass_t** out) {
  const rlx_driver_pass_t* all;
  int n, k = 0;
  rlx_driver_passes(&all, &n);
  while (k < n && all[k].stage == RLX_STAGE_RELAX) k++;
  *out = all;
  return k;
}

int rlx_transform_pass_count(void) {
  const rlx_driver_pass_t* passes;
  return relax_passes(&passes);
}

const char* rlx_transform_pass_name(int i) {
  const rlx_driver_pass_t* passes;
  int n = relax_passes(&passes);
  return i >= 0 && i < n ? passes[i].name : NULL;
}

RLX_MUST_USE rlx_status_t* rlx_transform_run(rlx_ctx_t* ctx, const char* pass, rlx_module_t* m, rlx_module_t** out) {
  const rlx_driver_pass_t* passes;
  int n = relax_passes(&passes);
  for (int i = 0; i < n; i++)
    if (strcmp(passes[i].name, pass) == 0) return rlx_status_annotate(passes[i].relax(ctx, m, out), "pass %s", pass);
  rlx_strbuf_t sb = {0};
  for (int i = 0; i < n; i++) rlx_strbuf_printf(&sb, "%s%s", i ? ", " : "", passes[i].name);
  rlx_status_t* st = rlx_status_create(RLX_NOT_FOUND, "unknown pass '%s' (passes: %s)", pass, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return st;
}
