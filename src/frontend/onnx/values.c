/* Sequences and optionals in the importer: the ONNX types kept for values whose struct info
 * (R.Object) does not describe them, read from graph inputs' declared types, joined where
 * values meet (If branches, loop-carried values, inserts), and the services converters use
 * on such values (see onnx_import.h, "sequences and optionals").
 */
#include <string.h>

#include "onnx_internal.h"

static const rlx_onnx_type_t unknown_type = {RLX_ONNX_T_UNKNOWN, {0, 0, 0}, -1, NULL};

const rlx_onnx_type_t* rlx_onnx_type_tensor(rlx_ctx_t* ctx, rlx_dtype_t dtype, int ndim) {
  rlx_onnx_type_t* t = RLX_NEW(ctx, rlx_onnx_type_t);
  t->kind = RLX_ONNX_T_TENSOR;
  t->dtype = dtype;
  t->ndim = ndim;
  return t;
}

const rlx_onnx_type_t* rlx_onnx_type_wrap(rlx_ctx_t* ctx, rlx_onnx_type_kind_t kind, const rlx_onnx_type_t* elem) {
  rlx_onnx_type_t* t = RLX_NEW(ctx, rlx_onnx_type_t);
  t->kind = kind;
  t->ndim = -1;
  t->elem = elem ? elem : &unknown_type;
  return t;
}

const rlx_onnx_type_t* rlx_onnx_type_join(rlx_ctx_t* ctx, const rlx_onnx_type_t* a, const rlx_onnx_type_t* b) {
  if (!a || a->kind == RLX_ONNX_T_UNKNOWN) return b ? b : &unknown_type;
  if (!b || b->kind == RLX_ONNX_T_UNKNOWN) return a;
  if (a->kind == RLX_ONNX_T_OPT && b->kind != RLX_ONNX_T_OPT)
    return rlx_onnx_type_wrap(ctx, RLX_ONNX_T_OPT, rlx_onnx_type_join(ctx, a->elem, b));
  if (b->kind == RLX_ONNX_T_OPT && a->kind != RLX_ONNX_T_OPT) return rlx_onnx_type_join(ctx, b, a);
  if (a->kind != b->kind) return &unknown_type;
  if (a->kind == RLX_ONNX_T_TENSOR) {
    int an = a->ndim == RLX_ONNX_NDIM_NONE ? b->ndim : a->ndim, bn = b->ndim == RLX_ONNX_NDIM_NONE ? a->ndim : b->ndim;
    if (rlx_dtype_eq(a->dtype, b->dtype) && an == bn) return an == a->ndim ? a : b;
    return rlx_onnx_type_tensor(ctx, rlx_dtype_eq(a->dtype, b->dtype) ? a->dtype : rlx_dt_void(), an == bn ? an : -1);
  }
  return rlx_onnx_type_wrap(ctx, a->kind, rlx_onnx_type_join(ctx, a->elem, b->elem));
}

bool rlx_onnx_type_is_string(const rlx_onnx_type_t* t) {
  return t && t->kind == RLX_ONNX_T_TENSOR && t->dtype.code == RLX_DT_HANDLE;
}

rlx_sinfo_t* rlx_onnx_type_sinfo(rlx_ctx_t* ctx, const rlx_onnx_type_t* t) {
  if (t && t->kind == RLX_ONNX_T_TENSOR && t->dtype.code != RLX_DT_HANDLE)
    return rlx_sinfo_tensor(ctx, t->ndim < 0 ? -1 : t->ndim, NULL, t->dtype);
  return rlx_sinfo_object(ctx);
}

bool rlx_onnx_is_object(const rlx_relax_expr_t* e) { return e && e->sinfo && e->sinfo->kind == RLX_SINFO_OBJECT; }

/* The type of a value of struct info s (tensors and tuples; NULL otherwise). */
static const rlx_onnx_type_t* type_of_sinfo(rlx_ctx_t* ctx, const rlx_sinfo_t* s) {
  if (!s) return NULL;
  if (s->kind == RLX_SINFO_TENSOR) {
    const rlx_sinfo_tensor_t* t = (const rlx_sinfo_tensor_t*)s;
    return rlx_onnx_type_tensor(ctx, t->dtype, t->ndim);
  }
  if (s->kind != RLX_SINFO_TUPLE) return NULL;
  const rlx_sinfo_tuple_t* t = (const rlx_sinfo_tuple_t*)s;
  const rlx_onnx_type_t* e = &unknown_type;
  for (int i = 0; i < t->n_fields; i++) {
    const rlx_onnx_type_t* f = type_of_sinfo(ctx, t->fields[i]);
    e = rlx_onnx_type_join(ctx, e, f ? f : &unknown_type);
  }
  return rlx_onnx_type_wrap(ctx, RLX_ONNX_T_SEQ, e);
}

const rlx_onnx_type_t* rlx_onnx_value_type(rlx_onnx_importer_t* im, const char* name, const rlx_relax_expr_t* e) {
  void* v = NULL;
  const rlx_onnx_type_t* recorded = name && im->types && rlx_onnx_strmap_get(im->types, name, &v) ? v : NULL;
  const rlx_onnx_type_t* t = e ? type_of_sinfo(im->ctx, e->sinfo) : NULL;
  if (t && t->kind == RLX_ONNX_T_SEQ && t->elem->kind == RLX_ONNX_T_UNKNOWN && recorded) return recorded;
  if (t) return t;
  return recorded ? recorded : &unknown_type;
}

void rlx_onnx_set_value_type(rlx_onnx_importer_t* im, const char* name, const rlx_onnx_type_t* t) {
  if (im->types && name && name[0]) rlx_onnx_strmap_put(im->types, rlx_ctx_strdup(im->ctx, name), (void*)t);
}

RLX_MUST_USE rlx_status_t* rlx_onnx_type_from_proto(rlx_onnx_importer_t* im, const Onnx__TypeProto* tp, const char* what, int depth,
                                       const rlx_onnx_type_t** out) {
  rlx_ctx_t* ctx = im->ctx;
  if (!tp) return rlx_status_create(RLX_PARSE_ERROR, "%s has no type", what);
  if (depth > 16) return rlx_status_create(RLX_UNSUPPORTED, "%s: types nested too deeply", what);
  const rlx_onnx_type_t* inner = NULL;
  switch (tp->value_case) {
    case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE: {
      rlx_dtype_t dt = rlx_dt_void();
      const Onnx__TypeProto__Tensor* tt = tp->tensor_type;
      char b[32];
      if (tt && tt->has_elem_type && tt->elem_type == ONNX__TENSOR_PROTO__DATA_TYPE__STRING)
        dt = rlx_dt_handle(); /* a string tensor: an R.Object holding the runtime's string tensor */
      else if (tt && tt->has_elem_type && !rlx_onnx_dtype_from_elem(tt->elem_type, &dt))
        return rlx_status_create(RLX_UNSUPPORTED, "%s has element type %s, which is not supported", what,
                                 rlx_onnx_elem_name(tt->elem_type, b));
      *out = rlx_onnx_type_tensor(ctx, dt, tt && tt->shape ? (int)tt->shape->n_dim : -1);
      return NULL;
    }
    case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
      RLX_RETURN_IF_ERROR(rlx_onnx_type_from_proto(im, tp->sequence_type ? tp->sequence_type->elem_type : NULL, what,
                                                   depth + 1, &inner));
      *out = rlx_onnx_type_wrap(ctx, RLX_ONNX_T_SEQ, inner);
      return NULL;
    case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
      RLX_RETURN_IF_ERROR(rlx_onnx_type_from_proto(im, tp->optional_type ? tp->optional_type->elem_type : NULL, what,
                                                   depth + 1, &inner));
      *out = rlx_onnx_type_wrap(ctx, RLX_ONNX_T_OPT, inner);
      return NULL;
    case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
    case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
    case ONNX__TYPE_PROTO__VALUE__NOT_SET:
    default: break;
  }
  return rlx_status_create(RLX_UNSUPPORTED, "%s is a map, a sparse tensor or untyped, which is not supported", what);
}

const char* rlx_onnx_type_text(rlx_ctx_t* ctx, const rlx_onnx_type_t* t) {
  if (!t) return "tensor";
  switch (t->kind) {
    case RLX_ONNX_T_SEQ: return rlx_ctx_sprintf(ctx, "seq(%s)", rlx_onnx_type_text(ctx, t->elem));
    case RLX_ONNX_T_OPT: return rlx_ctx_sprintf(ctx, "opt(%s)", rlx_onnx_type_text(ctx, t->elem));
    case RLX_ONNX_T_TENSOR: return t->dtype.code == RLX_DT_HANDLE ? "string" : "tensor";
    case RLX_ONNX_T_UNKNOWN: break;
  }
  return "tensor";
}

RLX_MUST_USE rlx_status_t* rlx_onnx_with_dims(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* e,
                                 rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = im->ctx;
  *out = e;
  if (!e->sinfo || e->sinfo->kind != RLX_SINFO_TENSOR) return NULL;
  rlx_sinfo_tensor_t* t = (rlx_sinfo_tensor_t*)e->sinfo;
  if (t->shape || t->ndim < 0) return NULL;
  rlx_expr_t** dims = RLX_NEW_ARRAY(ctx, rlx_expr_t*, t->ndim > 0 ? t->ndim : 1);
  for (int d = 0; d < t->ndim; d++) dims[d] = rlx_onnx_fresh_dim(im, node, rlx_ctx_sprintf(ctx, "d%d", d));
  rlx_relax_var_t* m = NULL;
  RLX_RETURN_IF_ERROR(rlx_bb_match_cast(im->bb, e, rlx_sinfo_tensor(ctx, t->ndim, dims, t->dtype), NULL, &m));
  *out = &m->hdr;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_call_builtin(rlx_onnx_importer_t* im, const char* builtin, int n_args,
                                    rlx_relax_expr_t* const* args, rlx_sinfo_t* s, rlx_relax_expr_t** out) {
  rlx_relax_var_t* v = NULL;
  RLX_RETURN_IF_ERROR(
      rlx_bb_emit(im->bb, rlx_relax_call_pure_packed(im->ctx, builtin, n_args, args, 1, &s), NULL, &v));
  *out = &v->hdr;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_attr_type(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, const char* key,
                                 const rlx_onnx_type_t** out) {
  const Onnx__NodeProto* p = node->proto;
  for (size_t i = 0; i < p->n_attribute; i++)
    if (strcmp(p->attribute[i]->name, key) == 0 && p->attribute[i]->tp)
      return rlx_onnx_type_from_proto(im, p->attribute[i]->tp, rlx_ctx_sprintf(im->ctx, "attribute '%s'", key), 0, out);
  return rlx_onnx_error(node, "needs the type attribute '%s'", key);
}
