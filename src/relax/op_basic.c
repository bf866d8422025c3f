/* Relax ops, family "basic" (see op.h): the op table, shared helpers, and the elementwise
 * ops — unary math, binary ops with numpy broadcasting (a tensor or a scalar R.prim_value
 * operand), where, astype, clip. Reductions are in op_basic_reduce.c, shape ops in
 * op_basic_shape.c, index ops (tile, flip, cumsum, gather_elements, arange, tril/triu,
 * one_hot, scatter_elements) in op_basic_index.c.
 *
 * Every op here is pure. Inference checks the attribute names and kinds (ob_check_attrs).
 * Struct info: symbolic dims broadcast when one is 1 or both are provably equal
 * (rlx_ir_prove_equal), else it is an error naming the op and both shapes; an unknown rank or
 * shape gives a result of unknown rank or shape instead of an error; result dims are
 * simplified knowing shape vars are >= 0. Legalization: R.call_tir of a TE function from
 * topi (basic.h) through rlx_bb_call_te (split builds its multi-output PrimFunc itself), named
 * as TVM's legalization names it ("add", "relu", "sum", "transpose" ...); it returns an
 * expression and emits no binding, and needs known shapes and dtypes (an error otherwise).
 */
#include <stdarg.h>
#include <string.h>

#include "op_basic_internal.h"

/* ------------------------------------------------------------------ helpers */
const char* ob_name(const rlx_relax_call_t* call) {
  return call->op && call->op->kind == RLX_RELAX_OP ? ((const rlx_relax_op_t*)call->op)->name : "relax.?";
}

rlx_status_t* ob_error(const rlx_relax_call_t* call, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rlx_status_t* st = rlx_status_createv(RLX_INVALID_ARGUMENT, fmt, ap);
  va_end(ap);
  return rlx_status_annotate(st, "%s", ob_name(call));
}

const char* ob_dtype_str(rlx_ctx_t* ctx, rlx_dtype_t t) {
  char b[32];
  return rlx_dtype_is_void(t) ? "void" : rlx_ctx_strdup(ctx, rlx_dtype_str(t, b));
}

const char* ob_shape_str(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape) {
  if (ndim < 0) return "(ndim=-1)";
  if (!shape) return rlx_ctx_sprintf(ctx, "(ndim=%d)", ndim);
  rlx_strbuf_t sb = {0};
  rlx_strbuf_append(&sb, "(");
  for (int i = 0; i < ndim; i++) {
    if (i) rlx_strbuf_append(&sb, ", ");
    rlx_relax_prim_print(shape[i], &sb);
  }
  rlx_strbuf_append(&sb, ndim == 1 ? ",)" : ")");
  const char* s = rlx_ctx_strdup(ctx, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return s;
}

rlx_expr_t** ob_simplify_shape(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape) {
  rlx_expr_t** s = RLX_NEW_ARRAY(ctx, rlx_expr_t*, ndim);
  for (int i = 0; i < ndim; i++) s[i] = rlx_topi_simplify_dim(ctx, rlx_ir_cast(ctx, rlx_dt_int64(), shape[i]));
  return s;
}

rlx_status_t* ob_nargs(const rlx_relax_call_t* call, int lo, int hi) {
  if (call->n_args >= lo && call->n_args <= hi) return NULL;
  if (lo == hi) return ob_error(call, "takes %d argument%s, got %d", lo, lo == 1 ? "" : "s", call->n_args);
  return ob_error(call, "takes %d to %d arguments, got %d", lo, hi, call->n_args);
}

rlx_status_t* ob_tensor_arg(rlx_ctx_t* ctx, const rlx_relax_call_t* call, int i, rlx_sinfo_tensor_t** out) {
  if (i >= call->n_args) return ob_error(call, "missing argument %d", i);
  rlx_sinfo_t* s = call->args[i]->sinfo;
  if (!s || s->kind != RLX_SINFO_TENSOR)
    return ob_error(call, "argument %d must be a tensor, got %s", i, rlx_sinfo_str(ctx, s));
  *out = (rlx_sinfo_tensor_t*)s;
  return NULL;
}

/* The attribute kinds a spec name accepts. */
static bool kind_ok(const char* want, rlx_attr_kind_t k) {
  if (strcmp(want, "int") == 0) return k == RLX_ATTR_INT;
  if (strcmp(want, "ints") == 0) return k == RLX_ATTR_INTS || k == RLX_ATTR_INT;
  if (strcmp(want, "bool") == 0) return k == RLX_ATTR_BOOL || k == RLX_ATTR_INT;
  if (strcmp(want, "float") == 0) return k == RLX_ATTR_FLOAT || k == RLX_ATTR_INT;
  if (strcmp(want, "str") == 0) return k == RLX_ATTR_STR;
  if (strcmp(want, "dtype") == 0) return k == RLX_ATTR_DTYPE || k == RLX_ATTR_STR;
  return false;
}

static const char* kind_desc(rlx_attr_kind_t k) {
  switch (k) {
    case RLX_ATTR_BOOL:
      return "a bool";
    case RLX_ATTR_INT:
      return "an int";
    case RLX_ATTR_FLOAT:
      return "a float";
    case RLX_ATTR_STR:
      return "a string";
    case RLX_ATTR_DTYPE:
      return "a dtype";
    case RLX_ATTR_INTS:
      return "a list of ints";
    case RLX_ATTR_EXPR:
      return "an expression";
  }
  return "?";
}

/* The kind that the registry signature params gives attribute key ("int" ...), copied
 * into buf; NULL when params has no attribute of that name (operands do not count). */
static const char* param_kind(const char* params, const char* key, char* buf, size_t cap) {
  size_t kl = strlen(key);
  for (const char* p = params; p && *p;) {
    while (*p == ' ') p++;
    const char* end = strchr(p, ',');
    if (!end) end = p + strlen(p);
    const char* colon = memchr(p, ':', (size_t)(end - p));
    if (colon && (size_t)(colon - p) == kl && strncmp(p, key, kl) == 0) {
      size_t wl = (size_t)(end - colon - 1);
      if (wl >= cap) wl = cap - 1;
      memcpy(buf, colon + 1, wl);
      buf[wl] = 0;
      return buf;
    }
    p = *end ? end + 1 : end;
  }
  return NULL;
}

rlx_status_t* ob_check_attrs(const rlx_relax_call_t* call) {
  const rlx_op_def_t* def = rlx_op_get(rlx_relax_call_op_id(call));
  for (int i = 0; i < call->attrs.n; i++) {
    const rlx_attr_t* a = &call->attrs.items[i];
    char buf[16];
    const char* want = param_kind(def ? def->params : NULL, a->key, buf, sizeof buf);
    if (!want) return ob_error(call, "unknown attribute '%s'", a->key);
    if (!kind_ok(want, a->kind))
      return ob_error(call, "attribute %s must be %s, got %s", a->key,
                      strcmp(want, "ints") == 0    ? "a list of ints"
                      : strcmp(want, "int") == 0   ? "an int"
                      : strcmp(want, "bool") == 0  ? "a bool"
                      : strcmp(want, "float") == 0 ? "a number"
                      : strcmp(want, "dtype") == 0 ? "a dtype"
                                                   : "a string",
                      kind_desc(a->kind));
  }
  return NULL;
}

bool ob_attr_int(const rlx_relax_call_t* call, const char* key, int64_t* out) {
  const rlx_attr_t* a = rlx_attrs_get(&call->attrs, key);
  if (!a) return false;
  if (a->kind == RLX_ATTR_INT)
    *out = a->u.i;
  else if (a->kind == RLX_ATTR_INTS && a->u.ints.n == 1)
    *out = a->u.ints.v[0];
  else if (a->kind == RLX_ATTR_BOOL)
    *out = a->u.b;
  else
    return false;
  return true;
}

bool ob_attr_ints(rlx_ctx_t* ctx, const rlx_relax_call_t* call, const char* key, int* out_n, int64_t** out_v) {
  const rlx_attr_t* a = rlx_attrs_get(&call->attrs, key);
  if (!a) return false;
  if (a->kind == RLX_ATTR_INTS) {
    *out_n = a->u.ints.n;
    *out_v = a->u.ints.v;
    return true;
  }
  if (a->kind == RLX_ATTR_INT) {
    *out_n = 1;
    *out_v = RLX_NEW(ctx, int64_t);
    **out_v = a->u.i;
    return true;
  }
  return false;
}

bool ob_attr_bool(const rlx_relax_call_t* call, const char* key, bool dflt) {
  const rlx_attr_t* a = rlx_attrs_get(&call->attrs, key);
  if (!a) return dflt;
  if (a->kind == RLX_ATTR_BOOL) return a->u.b;
  if (a->kind == RLX_ATTR_INT) return a->u.i != 0;
  return dflt;
}

bool ob_attr_float(const rlx_relax_call_t* call, const char* key, double* out) {
  const rlx_attr_t* a = rlx_attrs_get(&call->attrs, key);
  if (!a) return false;
  if (a->kind == RLX_ATTR_FLOAT)
    *out = a->u.f;
  else if (a->kind == RLX_ATTR_INT)
    *out = (double)a->u.i;
  else
    return false;
  return true;
}

const char* ob_attr_str(const rlx_relax_call_t* call, const char* key, const char* dflt) {
  const rlx_attr_t* a = rlx_attrs_get(&call->attrs, key);
  return a && a->kind == RLX_ATTR_STR ? a->u.s : dflt;
}

bool ob_attr_dtype(const rlx_relax_call_t* call, const char* key, rlx_dtype_t* out) {
  const rlx_attr_t* a = rlx_attrs_get(&call->attrs, key);
  if (!a) return false;
  if (a->kind == RLX_ATTR_DTYPE)
    *out = a->u.dtype;
  else if (a->kind == RLX_ATTR_STR)
    return rlx_dtype_parse(a->u.s, out);
  else
    return false;
  return true;
}

rlx_status_t* ob_shape_arg(const rlx_relax_call_t* call, int i, int* out_n, rlx_expr_t*** out_v) {
  if (i >= call->n_args) return ob_error(call, "missing shape argument %d", i);
  rlx_relax_expr_t* a = call->args[i];
  if (a->kind == RLX_RELAX_SHAPE_EXPR) {
    *out_n = ((rlx_relax_shape_expr_t*)a)->ndim;
    *out_v = ((rlx_relax_shape_expr_t*)a)->values;
    return NULL;
  }
  if (!a->sinfo || a->sinfo->kind != RLX_SINFO_SHAPE)
    return ob_error(call, "argument %d must be a shape (R.shape([...]) or a value of R.Shape struct info)", i);
  rlx_sinfo_shape_t* s = (rlx_sinfo_shape_t*)a->sinfo;
  *out_n = s->ndim;
  *out_v = s->values;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* need_known_sinfo(rlx_ctx_t* ctx, const rlx_relax_call_t* call, int i, const rlx_sinfo_t* s) {
  if (s->kind == RLX_SINFO_TUPLE) {
    const rlx_sinfo_tuple_t* t = (const rlx_sinfo_tuple_t*)s;
    for (int k = 0; k < t->n_fields; k++) RLX_RETURN_IF_ERROR(need_known_sinfo(ctx, call, i, t->fields[k]));
    return NULL;
  }
  if (s->kind != RLX_SINFO_TENSOR) return NULL;
  const rlx_sinfo_tensor_t* t = (const rlx_sinfo_tensor_t*)s;
  if (!t->shape || rlx_dtype_is_void(t->dtype))
    return ob_error(call, "legalization needs known shapes and dtypes; argument %d is %s", i, rlx_sinfo_str(ctx, s));
  return NULL;
}

rlx_status_t* ob_need_known(rlx_ctx_t* ctx, const rlx_relax_call_t* call) {
  for (int i = 0; i < call->n_args; i++)
    if (call->args[i]->sinfo) RLX_RETURN_IF_ERROR(need_known_sinfo(ctx, call, i, call->args[i]->sinfo));
  if (call->hdr.sinfo) RLX_RETURN_IF_ERROR(need_known_sinfo(ctx, call, -1, call->hdr.sinfo));
  return NULL;
}

/* Pairs the vars of relax-side expr r with those of the builder's copy t (same structure). */
static void pair_vars(rlx_ptrmap_t* map, rlx_expr_t* r, rlx_expr_t* t) {
  if (!r || !t || r->kind != t->kind) return;
  if (r->kind == RLX_EXPR_VAR) {
    if (!rlx_ptrmap_has(map, r)) rlx_ptrmap_put(map, r, t);
    return;
  }
  rlx_expr_t *rk[8], *tk[8];
  int nr = rlx_expr_children(r, rk, 8), nt = rlx_expr_children(t, tk, 8);
  if (nr != nt || nr > 8) return;
  for (int i = 0; i < nr; i++) pair_vars(map, rk[i], tk[i]);
}

rlx_expr_t** ob_to_te_shape(rlx_ctx_t* ctx, int n_args, rlx_relax_expr_t* const* args, rlx_te_tensor_t* const* ins,
                            int ndim, rlx_expr_t* const* shape) {
  rlx_ptrmap_t map = {0};
  for (int i = 0; i < n_args; i++) {
    rlx_sinfo_tensor_t* s = (rlx_sinfo_tensor_t*)args[i]->sinfo;
    if (!s || s->hdr.kind != RLX_SINFO_TENSOR || !s->shape || s->ndim != ins[i]->buffer->ndim) continue;
    for (int d = 0; d < s->ndim; d++) pair_vars(&map, s->shape[d], ins[i]->buffer->shape[d]);
  }
  rlx_expr_t** out = RLX_NEW_ARRAY(ctx, rlx_expr_t*, ndim);
  for (int d = 0; d < ndim; d++) out[d] = rlx_expr_substitute(ctx, shape[d], &map);
  rlx_ptrmap_free(&map);
  return out;
}

/* ------------------------------------------------------------------ unary */
/* The topi unary op of each unary Relax op, plus one (0: not unary); both from unary.def. */
static const signed char unary_topi[RLX_OP_COUNT] = {
#define RLX_TOPI_UNARY(E, N, F, RN, RP) [RLX_OP_##E] = RLX_TOPI_##E + 1,
#include "../topi/unary.def"
};

/* The topi unary op of a call's op, or -1. */
static int unary_of(const rlx_relax_call_t* call) {
  rlx_op_id_t id = rlx_relax_call_op_id(call);
  return id < RLX_OP_COUNT ? unary_topi[id] - 1 : -1;
}

rlx_status_t* ob_infer_unary(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  int op = unary_of(call);
  if (op < 0) return ob_error(call, "not a unary op");
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  if (rlx_topi_unary_float_only((rlx_topi_unary_t)op) && !rlx_dtype_is_void(x->dtype) && !rlx_dtype_is_float(x->dtype))
    return ob_error(call, "needs a float tensor, got %s", rlx_sinfo_str(ctx, &x->hdr));
  /* bitwise_not of a float tensor: inferred as TVM does (no dtype check); legalization fails */
  bool to_bool = op == RLX_TOPI_LOGICAL_NOT || op == RLX_TOPI_ISNAN || op == RLX_TOPI_ISINF || op == RLX_TOPI_ISFINITE;
  rlx_dtype_t t = to_bool ? rlx_dt_bool() : x->dtype;
  *out = rlx_sinfo_tensor(ctx, x->ndim, x->shape, t);
  return NULL;
}

typedef struct {
  const rlx_relax_call_t* call;
  int op;
  rlx_dtype_t dtype;
  double lo, hi;
} ew_user_t;

static RLX_MUST_USE rlx_status_t* te_unary(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                           rlx_te_tensor_t** out) {
  ew_user_t* u = user;
  return rlx_topi_unary(ctx, (rlx_topi_unary_t)u->op, in[0], out);
}

rlx_status_t* ob_legalize_unary(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  ew_user_t u = {call, unary_of(call), {0}, 0, 0};
  return rlx_bb_call_te(bb, te_unary, &u, 1, call->args, rlx_topi_unary_name((rlx_topi_unary_t)u.op), out);
}

/* ------------------------------------------------------------------ binary */
static int binary_of(const char* name) {
  const char* s = strncmp(name, "relax.", 6) == 0 ? name + 6 : name;
  for (int i = 0; i < RLX_TOPI_BINARY_COUNT; i++)
    if (strcmp(s, rlx_topi_binary_name((rlx_topi_binary_t)i)) == 0) return i;
  return -1;
}

/* Broadcast struct info of tensors a and b with result dtype t (unknown rank/shape kept
 * unknown). */
static RLX_MUST_USE rlx_status_t* broadcast_sinfo(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_tensor_t* a,
                                     rlx_sinfo_tensor_t* b, rlx_dtype_t t, rlx_sinfo_t** out) {
  if (a->ndim < 0 || b->ndim < 0) {
    *out = rlx_sinfo_tensor(ctx, -1, NULL, t);
    return NULL;
  }
  int n = a->ndim > b->ndim ? a->ndim : b->ndim;
  if (!a->shape || !b->shape) {
    *out = rlx_sinfo_tensor(ctx, n, NULL, t);
    return NULL;
  }
  rlx_expr_t** s = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int i = 0; i < n; i++) {
    int ia = i - (n - a->ndim), ib = i - (n - b->ndim);
    if (ia < 0)
      s[i] = b->shape[ib];
    else if (ib < 0)
      s[i] = a->shape[ia];
    else {
      rlx_topi_broadcast_dim(ctx, a->shape[ia], b->shape[ib], &s[i]);
      if (!s[i] && (!rlx_expr_is_const_int(a->shape[ia], NULL) || !rlx_expr_is_const_int(b->shape[ib], NULL))) {
        /* a symbolic pair the prover cannot decide ((5,) and (k,)): the rank is known, the
         * shape is not (TVM); the kernel checks the sizes at run time */
        *out = rlx_sinfo_tensor(ctx, n, NULL, t);
        return NULL;
      }
      if (!s[i])
        return ob_error(call, "cannot broadcast %s and %s", ob_shape_str(ctx, a->ndim, a->shape),
                        ob_shape_str(ctx, b->ndim, b->shape));
    }
  }
  *out = rlx_sinfo_tensor(ctx, n, ob_simplify_shape(ctx, n, s), t);
  return NULL;
}

/* The value of a scalar (R.Prim) operand of a binary op when it is a constant; NULL when the
 * arg is not a scalar or its value is not constant. */
static rlx_expr_t* const_scalar(const rlx_relax_expr_t* a) {
  rlx_expr_t* v = NULL;
  if (a->kind == RLX_RELAX_PRIM_VALUE)
    v = ((const rlx_relax_prim_value_t*)a)->value;
  else if (a->sinfo && a->sinfo->kind == RLX_SINFO_PRIM)
    v = ((const rlx_sinfo_prim_t*)a->sinfo)->value;
  return v && (v->kind == RLX_EXPR_INT_IMM || v->kind == RLX_EXPR_FLOAT_IMM) ? v : NULL;
}

/* The value of a rank-0 Constant of a number dtype as a TIR constant, or NULL. */
static rlx_expr_t* const_0d_scalar(rlx_ctx_t* ctx, const rlx_relax_expr_t* a) {
  if (a->kind != RLX_RELAX_CONSTANT) return NULL;
  const rlx_relax_constant_t* c = (const rlx_relax_constant_t*)a;
  if (c->ndim != 0 || !c->data || c->dtype.lanes != 1) return NULL;
  const void* d = c->data;
  rlx_dtype_t t = c->dtype;
  if (t.code == RLX_DT_FLOAT && t.bits == 32) return rlx_ir_float(ctx, t, *(const float*)d);
  if (t.code == RLX_DT_FLOAT && t.bits == 64) return rlx_ir_float(ctx, t, *(const double*)d);
  if (rlx_dtype_is_bool(t)) return rlx_ir_bool(ctx, *(const uint8_t*)d != 0);
  if (t.code == RLX_DT_INT && t.bits == 8) return rlx_ir_int(ctx, t, *(const int8_t*)d);
  if (t.code == RLX_DT_INT && t.bits == 16) return rlx_ir_int(ctx, t, *(const int16_t*)d);
  if (t.code == RLX_DT_INT && t.bits == 32) return rlx_ir_int(ctx, t, *(const int32_t*)d);
  if (t.code == RLX_DT_INT && t.bits == 64) return rlx_ir_int(ctx, t, *(const int64_t*)d);
  if (t.code == RLX_DT_UINT && t.bits == 8) return rlx_ir_int(ctx, t, *(const uint8_t*)d);
  if (t.code == RLX_DT_UINT && t.bits == 32) return rlx_ir_int(ctx, t, *(const uint32_t*)d);
  return NULL;
}

/* Operand i of a binary op as tensor struct info: a scalar (R.Prim) operand counts as a 0-d
 * tensor of its dtype (TVM's binary ops with a PrimValue). */
static RLX_MUST_USE rlx_status_t* binary_operand(rlx_ctx_t* ctx, const rlx_relax_call_t* call, int i, rlx_sinfo_tensor_t** out) {
  rlx_sinfo_t* s = call->args[i]->sinfo;
  if (s && s->kind == RLX_SINFO_PRIM) {
    *out = (rlx_sinfo_tensor_t*)rlx_sinfo_tensor(ctx, 0, RLX_NEW_ARRAY(ctx, rlx_expr_t*, 1),
                                                 ((rlx_sinfo_prim_t*)s)->dtype);
    return NULL;
  }
  return ob_tensor_arg(ctx, call, i, out);
}

rlx_status_t* ob_infer_binary(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  int op = binary_of(ob_name(call));
  if (op < 0) return ob_error(call, "not a binary op");
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 2, 2));
  rlx_sinfo_tensor_t *a, *b;
  RLX_RETURN_IF_ERROR(binary_operand(ctx, call, 0, &a));
  RLX_RETURN_IF_ERROR(binary_operand(ctx, call, 1, &b));
  bool pa = call->args[0]->sinfo->kind == RLX_SINFO_PRIM, pb = call->args[1]->sinfo->kind == RLX_SINFO_PRIM;
  if (pa && pb) return ob_error(call, "needs at least one tensor operand, got two scalars");
  /* a constant scalar takes the tensor's dtype */
  if (pa && const_scalar(call->args[0])) a = (rlx_sinfo_tensor_t*)rlx_sinfo_tensor(ctx, 0, a->shape, b->dtype);
  if (pb && const_scalar(call->args[1])) b = (rlx_sinfo_tensor_t*)rlx_sinfo_tensor(ctx, 0, b->shape, a->dtype);
  bool logical = op == RLX_TOPI_LOGICAL_AND || op == RLX_TOPI_LOGICAL_OR || op == RLX_TOPI_LOGICAL_XOR;
  if (rlx_topi_binary_int_only((rlx_topi_binary_t)op) && (rlx_dtype_is_float(a->dtype) || rlx_dtype_is_float(b->dtype)))
    return ob_error(call, "needs int or bool tensors, got %s and %s", ob_dtype_str(ctx, a->dtype),
                    ob_dtype_str(ctx, b->dtype));
  bool known = !rlx_dtype_is_void(a->dtype) && !rlx_dtype_is_void(b->dtype);
  if (!logical && known && !rlx_dtype_eq(a->dtype, b->dtype))
    return ob_error(call, "operand dtypes differ: %s and %s", ob_dtype_str(ctx, a->dtype), ob_dtype_str(ctx, b->dtype));
  rlx_dtype_t t = rlx_topi_binary_is_bool((rlx_topi_binary_t)op) ? rlx_dt_bool()
                  : rlx_dtype_is_void(a->dtype)                  ? b->dtype
                                                                 : a->dtype;
  return broadcast_sinfo(ctx, call, a, b, t, out);
}

typedef struct {
  const rlx_relax_call_t* call;
  int op;
  rlx_expr_t* scalar; /* a constant scalar operand, or NULL */
  bool scalar_first;
} bin_user_t;

static RLX_MUST_USE rlx_status_t* te_binary(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                            rlx_te_tensor_t** out) {
  bin_user_t* u = user;
  if (u->scalar) return rlx_topi_binary_scalar(ctx, (rlx_topi_binary_t)u->op, in[0], u->scalar, u->scalar_first, out);
  return rlx_topi_binary(ctx, (rlx_topi_binary_t)u->op, in[0], in[1], out);
}

/* True for a float constant exponent equal to 2 that does not broadcast x to a bigger shape:
 * an R.Prim, or a constant tensor of rank <= x's whose dims are all 1. */
static bool exponent_is_two(const rlx_relax_call_t* call) {
  const rlx_relax_expr_t* e = call->args[1];
  rlx_expr_t* v = const_scalar(e);
  if (v) return v->kind == RLX_EXPR_FLOAT_IMM && RLX_AS(rlx_float_imm_t, v)->value == 2.0;
  if (e->kind != RLX_RELAX_CONSTANT) return false;
  const rlx_relax_constant_t* c = (const rlx_relax_constant_t*)e;
  const rlx_sinfo_t* xs = call->args[0]->sinfo;
  if (!xs || xs->kind != RLX_SINFO_TENSOR || ((const rlx_sinfo_tensor_t*)xs)->ndim < c->ndim) return false;
  for (int d = 0; d < c->ndim; d++)
    if (c->shape[d] != 1) return false;
  if (c->nbytes == 4 && rlx_dtype_eq(c->dtype, rlx_dt_float32())) return *(const float*)c->data == 2.0f;
  if (c->nbytes == 8 && rlx_dtype_eq(c->dtype, rlx_dt_float64())) return *(const double*)c->data == 2.0;
  return false;
}

rlx_status_t* ob_legalize_binary(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  bin_user_t u = {call, binary_of(ob_name(call)), NULL, false};
  if (u.op == RLX_TOPI_POWER && call->args[0]->sinfo && call->args[0]->sinfo->kind == RLX_SINFO_TENSOR &&
      exponent_is_two(call)) {
    /* x ** 2 as x * x: no powf call per element (LayerNorm's variance) */
    rlx_relax_expr_t* xx[2] = {call->args[0], call->args[0]};
    u.op = RLX_TOPI_MULTIPLY;
    return rlx_bb_call_te(bb, te_binary, &u, 2, xx, "multiply", out);
  }
  const char* name = rlx_topi_binary_name((rlx_topi_binary_t)u.op);
  for (int i = 0; i < 2; i++) {
    /* a rank-0 constant is inlined as a TIR constant, as TVM's call_te does with it */
    rlx_expr_t* c0 = const_0d_scalar(ctx, call->args[i]);
    if (c0 && !const_0d_scalar(ctx, call->args[1 - i])) {
      u.scalar = c0;
      u.scalar_first = i == 0;
      return rlx_bb_call_te(bb, te_binary, &u, 1, &call->args[1 - i], name, out);
    }
  }
  for (int i = 0; i < 2; i++) {
    if (call->args[i]->sinfo->kind != RLX_SINFO_PRIM) continue;
    u.scalar = const_scalar(call->args[i]);
    u.scalar_first = i == 0;
    if (u.scalar) return rlx_bb_call_te(bb, te_binary, &u, 1, &call->args[1 - i], name, out);
    /* an R.Prim value known only at run time: a scalar parameter of the PrimFunc */
    const rlx_relax_expr_t* a = call->args[i];
    const char* vn = rlx_relax_is_var(a) ? ((const rlx_relax_var_t*)a)->name : "scalar";
    rlx_var_t* v = rlx_ir_var(ctx, vn, ((const rlx_sinfo_prim_t*)a->sinfo)->dtype);
    rlx_var_t* scalars[2] = {NULL, NULL};
    scalars[i] = v;
    u.scalar = &v->hdr;
    return rlx_bb_call_te_scalars(bb, te_binary, &u, 2, call->args, scalars, name, out);
  }
  return rlx_bb_call_te(bb, te_binary, &u, 2, call->args, name, out);
}

/* ------------------------------------------------------------------ where, astype, clip */
rlx_status_t* ob_infer_where(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 3, 3));
  rlx_sinfo_tensor_t *c = NULL, *x = NULL, *y = NULL;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &c));
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 1, &x));
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 2, &y));
  if (!rlx_dtype_is_void(x->dtype) && !rlx_dtype_is_void(y->dtype) && !rlx_dtype_eq(x->dtype, y->dtype))
    return ob_error(call, "x and y dtypes differ: %s and %s", ob_dtype_str(ctx, x->dtype), ob_dtype_str(ctx, y->dtype));
  rlx_dtype_t t = rlx_dtype_is_void(x->dtype) ? y->dtype : x->dtype;
  rlx_sinfo_t* xy;
  RLX_RETURN_IF_ERROR(broadcast_sinfo(ctx, call, x, y, t, &xy));
  return broadcast_sinfo(ctx, call, c, (rlx_sinfo_tensor_t*)xy, t, out);
}

static RLX_MUST_USE rlx_status_t* te_where(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                           rlx_te_tensor_t** out) {
  (void)user;
  return rlx_topi_where(ctx, in[0], in[1], in[2], out);
}

rlx_status_t* ob_legalize_where(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  ew_user_t u = {call, 0, {0}, 0, 0};
  return rlx_bb_call_te(bb, te_where, &u, 3, call->args, "where", out);
}

rlx_status_t* ob_infer_astype(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  rlx_dtype_t t;
  if (!ob_attr_dtype(call, "dtype", &t) || rlx_dtype_is_void(t) || t.code == RLX_DT_HANDLE)
    return ob_error(call, "needs a dtype attribute naming a tensor element type");
  *out = rlx_sinfo_tensor(ctx, x->ndim, x->shape, t);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_cast(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                          rlx_te_tensor_t** out) {
  ew_user_t* u = user;
  return rlx_topi_cast(ctx, in[0], u->dtype, out);
}

rlx_status_t* ob_legalize_astype(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  ew_user_t u = {call, 0, {0}, 0, 0};
  if (!ob_attr_dtype(call, "dtype", &u.dtype)) return ob_error(call, "needs a dtype attribute");
  return rlx_bb_call_te(bb, te_cast, &u, 1, call->args, "cast", out);
}

/* clip bounds: PrimValue args 1 and 2 (TVM's R.clip(x, min, max)) or attrs min/max. */
static RLX_MUST_USE rlx_status_t* clip_bounds(const rlx_relax_call_t* call, double* lo, double* hi) {
  const char* keys[2] = {"min", "max"};
  double* outs[2] = {lo, hi};
  for (int k = 0; k < 2; k++) {
    if (call->n_args > 1 + k) {
      rlx_relax_expr_t* a = call->args[1 + k];
      rlx_expr_t* v = a->kind == RLX_RELAX_PRIM_VALUE ? ((rlx_relax_prim_value_t*)a)->value : NULL;
      int64_t iv;
      if (v && v->kind == RLX_EXPR_FLOAT_IMM)
        *outs[k] = ((rlx_float_imm_t*)v)->value;
      else if (v && rlx_expr_is_const_int(v, &iv))
        *outs[k] = (double)iv;
      else
        return ob_error(call, "argument %d (%s) must be a constant R.prim_value", 1 + k, keys[k]);
    } else if (!ob_attr_float(call, keys[k], outs[k]))
      return ob_error(call, "needs %s as an argument or attribute", keys[k]);
  }
  return NULL;
}

rlx_status_t* ob_infer_clip(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 3));
  if (call->n_args == 2) return ob_error(call, "takes x, min and max (or x with min/max attributes)");
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  double lo, hi;
  RLX_RETURN_IF_ERROR(clip_bounds(call, &lo, &hi));
  *out = rlx_sinfo_tensor(ctx, x->ndim, x->shape, x->dtype);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_clip(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                          rlx_te_tensor_t** out) {
  ew_user_t* u = user;
  return rlx_topi_clip(ctx, in[0], u->lo, u->hi, out);
}

rlx_status_t* ob_legalize_clip(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  ew_user_t u = {call, 0, {0}, 0, 0};
  RLX_RETURN_IF_ERROR(clip_bounds(call, &u.lo, &u.hi));
  return rlx_bb_call_te(bb, te_clip, &u, 1, call->args, "clip", out);
}
