/* Relax shape and index ops of the basic family (TVM's names, args and attrs):
 *   R.permute_dims(x, axes=None)            R.reshape(x, R.shape([...]))  (-1 inferred)
 *   R.flatten(x)  → 1-D                     R.expand_dims(x, axis=[..])
 *   R.squeeze(x, axis=None)                 R.concat((a, b, ...), axis=0)
 *   R.split(x, indices_or_sections, axis=0) (attr: int = sections, ints = indices) → Tuple
 *   R.strided_slice(x, axes, begin, end, strides=None)  (attrs as ints, or args as tuples of
 *       constant R.prim_value / R.shape)
 *   R.take(x, indices, axis=None, mode="fast")  R.broadcast_to(x, R.shape([...]))
 *   R.nn.pad(x, pad_width, pad_value=0.0, pad_mode="constant" | "edge" | "reflect")
 *   R.zeros(shape, dtype), R.ones(shape, dtype), R.full(shape, fill_value, dtype=None)
 */
#include <stdint.h>
#include <string.h>

#include "op_basic_internal.h"

/* User data of the TE callbacks of this file; each op uses the fields it needs. */
typedef struct {
  const rlx_relax_call_t* call;
  int n;                   /* length of v (and v2..v4) */
  int64_t* v;              /* axes (permute_dims, expand_dims, squeeze, strided_slice), pad_width */
  int64_t* v2;             /* strided_slice: begin */
  int64_t* v3;             /* strided_slice: end */
  int64_t* v4;             /* strided_slice: strides (NULL = 1) */
  int64_t k;               /* concat / take: axis */
  bool flag;               /* broadcast_to (vs reshape), squeeze (vs expand_dims), take: has an axis */
  int ndim;                /* target rank (reshape, broadcast_to, full) */
  rlx_expr_t** shape;      /* Relax-side target shape (mapped into the callback's vars) */
  const char* mode;        /* take */
  double value;            /* pad value; full's constant */
  rlx_dtype_t dtype;       /* full */
  rlx_relax_expr_t** args; /* the call's args, for mapping target shapes */
} sh_user_t;

static sh_user_t sh_user(rlx_ctx_t* ctx, const rlx_relax_call_t* call) {
  sh_user_t u;
  memset(&u, 0, sizeof(u));
  u.call = call;
  return u;
}

static rlx_sinfo_t* tensor_like(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_dtype_t t) {
  return rlx_sinfo_tensor(ctx, ndim, shape ? ob_simplify_shape(ctx, ndim, shape) : NULL, t);
}

static rlx_expr_t* prod(rlx_ctx_t* ctx, int n, rlx_expr_t* const* s) {
  rlx_expr_t* p = rlx_ir_i64(ctx, 1);
  for (int i = 0; i < n; i++) p = rlx_ir_mul(ctx, p, rlx_ir_cast(ctx, rlx_dt_int64(), s[i]));
  return rlx_topi_simplify_dim(ctx, p);
}

/* ------------------------------------------------------------------ permute_dims */
rlx_status_t* ob_infer_permute_dims(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  int na = 0;
  int64_t* axes = NULL;
  bool has = ob_attr_ints(ctx, call, "axes", &na, &axes);
  if (x->ndim < 0) {
    *out = rlx_sinfo_tensor(ctx, has ? na : -1, NULL, x->dtype);
    return NULL;
  }
  int n = x->ndim;
  if (has && na != n) return ob_error(call, "axes has %d values for a tensor of rank %d", na, n);
  bool* seen = RLX_NEW_ARRAY(ctx, bool, n);
  rlx_expr_t** s = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int i = 0; i < n; i++) {
    int64_t a = has ? axes[i] : n - 1 - i;
    if (a < -n || a >= n) return ob_error(call, "axis %lld is out of range for rank %d", (long long)a, n);
    if (a < 0) a += n;
    if (seen[a]) return ob_error(call, "axes are not a permutation (axis %lld repeated)", (long long)a);
    seen[a] = true;
    if (x->shape) s[i] = x->shape[a];
  }
  *out = tensor_like(ctx, n, x->shape ? s : NULL, x->dtype);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_transpose(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                               rlx_te_tensor_t** out) {
  sh_user_t* u = user;
  return rlx_topi_transpose(ctx, in[0], u->v, out);
}

rlx_status_t* ob_legalize_permute_dims(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  sh_user_t u = sh_user(ctx, call);
  if (!ob_attr_ints(ctx, call, "axes", &u.n, &u.v)) u.v = NULL;
  return rlx_bb_call_te(bb, te_transpose, &u, 1, call->args, "transpose", out);
}

/* ------------------------------------------------------------------ reshape, flatten, broadcast_to */
/* True when a dim of target uses a symbolic var that no dim of x uses. */
static bool target_has_var_not_in(int n, rlx_expr_t* const* target, int xn, rlx_expr_t* const* xs) {
  for (int i = 0; i < n; i++) {
    if (target[i]->kind != RLX_EXPR_VAR) continue;
    bool found = false;
    for (int k = 0; k < xn && !found; k++) found = rlx_expr_uses_var(xs[k], (const rlx_var_t*)target[i]);
    if (!found) return true;
  }
  return false;
}

rlx_status_t* ob_infer_reshape(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 2, 2));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  int n = 0;
  rlx_expr_t** vals = NULL;
  RLX_RETURN_IF_ERROR(ob_shape_arg(call, 1, &n, &vals));
  if (!vals) {
    *out = rlx_sinfo_tensor(ctx, n, NULL, x->dtype);
    return NULL;
  }
  rlx_expr_t** s = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  int infer_at = -1;
  for (int i = 0; i < n; i++) {
    int64_t c;
    s[i] = vals[i];
    if (rlx_expr_is_const_int(vals[i], &c) && c < 0) {
      if (c != -1 || infer_at >= 0)
        return ob_error(call, "the new shape %s may hold one -1 and no other negative dim", ob_shape_str(ctx, n, vals));
      infer_at = i;
    }
  }
  if (infer_at >= 0 && !x->shape) {
    *out = rlx_sinfo_tensor(ctx, n, NULL, x->dtype);
    return NULL;
  }
  if (x->shape) {
    rlx_expr_t* total = prod(ctx, x->ndim, x->shape);
    if (infer_at >= 0) {
      s[infer_at] = rlx_ir_i64(ctx, 1);
      rlx_expr_t* rest = prod(ctx, n, s);
      int64_t a, b;
      if (rlx_expr_is_const_int(total, &a) && rlx_expr_is_const_int(rest, &b) && (b == 0 || a % b != 0))
        return ob_error(call, "cannot reshape %s to %s", ob_shape_str(ctx, x->ndim, x->shape),
                        ob_shape_str(ctx, n, vals));
      s[infer_at] = rlx_topi_simplify_dim(ctx, rlx_ir_floordiv(ctx, total, rest));
    }
    rlx_expr_t* nt = prod(ctx, n, s);
    int64_t a, b;
    bool both_const = rlx_expr_is_const_int(total, &a) && rlx_expr_is_const_int(nt, &b);
    /* a target of symbolic vars defined at run time (R.match_cast of a computed shape) may
     * not be provably of x's size: accepted, as in TVM; the producer checks it at run time */
    bool fresh = !both_const && target_has_var_not_in(n, s, x->ndim, x->shape);
    if ((both_const && a != b) || (!both_const && !fresh && !rlx_ir_prove_equal(ctx, total, nt)))
      return ob_error(call, "cannot reshape %s to %s: the element counts differ", ob_shape_str(ctx, x->ndim, x->shape),
                      ob_shape_str(ctx, n, s));
  }
  *out = tensor_like(ctx, n, s, x->dtype);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_reshape(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                             rlx_te_tensor_t** out) {
  sh_user_t* u = user;
  rlx_expr_t** s = ob_to_te_shape(ctx, 1, u->args, in, u->ndim, u->shape);
  if (u->flag) return rlx_topi_broadcast_to(ctx, in[0], u->ndim, s, out);
  return rlx_topi_reshape(ctx, in[0], u->ndim, s, out);
}

/* reshape / flatten / broadcast_to: the target is the call's inferred shape. */
static RLX_MUST_USE rlx_status_t* legalize_to_shape(rlx_bb_t* bb, const rlx_relax_call_t* call, bool broadcast, const char* name,
                                       rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  rlx_sinfo_tensor_t* o = (rlx_sinfo_tensor_t*)call->hdr.sinfo;
  if (!o || o->hdr.kind != RLX_SINFO_TENSOR || !o->shape)
    return ob_error(call, "legalization needs a known output shape");
  sh_user_t u = sh_user(ctx, call);
  u.ndim = o->ndim;
  u.shape = o->shape;
  u.flag = broadcast;
  u.args = call->args;
  return rlx_bb_call_te(bb, te_reshape, &u, 1, call->args, name, out);
}

rlx_status_t* ob_legalize_reshape(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  return legalize_to_shape(bb, call, false, "reshape", out);
}

rlx_status_t* ob_infer_flatten(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  if (!x->shape) {
    *out = rlx_sinfo_tensor(ctx, 1, NULL, x->dtype);
    return NULL;
  }
  rlx_expr_t* p = prod(ctx, x->ndim, x->shape);
  *out = rlx_sinfo_tensor(ctx, 1, &p, x->dtype);
  return NULL;
}

rlx_status_t* ob_legalize_flatten(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  return legalize_to_shape(bb, call, false, "reshape", out);
}

rlx_status_t* ob_infer_broadcast_to(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 2, 2));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  int n = 0;
  rlx_expr_t** vals = NULL;
  RLX_RETURN_IF_ERROR(ob_shape_arg(call, 1, &n, &vals));
  if (x->ndim >= 0 && n >= 0 && x->ndim > n)
    return ob_error(call, "cannot broadcast a tensor of rank %d to rank %d", x->ndim, n);
  if (x->shape && vals)
    for (int d = 0; d < x->ndim; d++) {
      rlx_expr_t *xd = x->shape[d], *td = vals[d + n - x->ndim];
      int64_t c;
      if ((rlx_expr_is_const_int(xd, &c) && c == 1) || xd == td || rlx_ir_prove_equal(ctx, xd, td)) continue;
      if (target_has_var_not_in(1, &td, x->ndim, x->shape)) continue; /* as reshape: checked by the producer */
      return ob_error(call, "cannot broadcast %s to %s", ob_shape_str(ctx, x->ndim, x->shape),
                      ob_shape_str(ctx, n, vals));
    }
  *out = tensor_like(ctx, n, vals, x->dtype);
  return NULL;
}

rlx_status_t* ob_legalize_broadcast_to(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  return legalize_to_shape(bb, call, true, "broadcast_to", out);
}

/* ------------------------------------------------------------------ expand_dims, squeeze */
rlx_status_t* ob_infer_expand_dims(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  int na = 0;
  int64_t* axes = NULL;
  if (!ob_attr_ints(ctx, call, "axis", &na, &axes)) return ob_error(call, "needs the axis attribute");
  if (x->ndim < 0) {
    *out = rlx_sinfo_tensor(ctx, -1, NULL, x->dtype);
    return NULL;
  }
  int on = x->ndim + na;
  bool* mask = RLX_NEW_ARRAY(ctx, bool, on);
  RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_topi_reduce_axes("axis", on, na, axes, mask), "%s", ob_name(call)));
  rlx_expr_t** s = RLX_NEW_ARRAY(ctx, rlx_expr_t*, on);
  for (int d = 0, k = 0; d < on; d++) s[d] = mask[d] ? rlx_ir_i64(ctx, 1) : x->shape ? x->shape[k++] : NULL;
  *out = tensor_like(ctx, on, x->shape ? s : NULL, x->dtype);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_expand(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                            rlx_te_tensor_t** out) {
  sh_user_t* u = user;
  if (u->flag) return rlx_topi_squeeze(ctx, in[0], u->n, u->v, out);
  return rlx_topi_expand_dims(ctx, in[0], u->n, u->v, out);
}

rlx_status_t* ob_legalize_expand_dims(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  sh_user_t u = sh_user(ctx, call);
  if (!ob_attr_ints(ctx, call, "axis", &u.n, &u.v)) return ob_error(call, "needs the axis attribute");
  return rlx_bb_call_te(bb, te_expand, &u, 1, call->args, "expand_dims", out);
}

rlx_status_t* ob_infer_squeeze(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  int na = 0;
  int64_t* axes = NULL;
  bool has = ob_attr_ints(ctx, call, "axis", &na, &axes);
  if (x->ndim < 0 || (!has && !x->shape)) {
    *out = rlx_sinfo_tensor(ctx, -1, NULL, x->dtype);
    return NULL;
  }
  bool* mask = RLX_NEW_ARRAY(ctx, bool, x->ndim);
  if (has) {
    RLX_RETURN_IF_ERROR(
        rlx_status_annotate(rlx_topi_reduce_axes("axis", x->ndim, na, axes, mask), "%s", ob_name(call)));
  }
  int on = 0;
  rlx_expr_t** s = RLX_NEW_ARRAY(ctx, rlx_expr_t*, x->ndim);
  for (int d = 0; d < x->ndim; d++) {
    int64_t c;
    bool one = x->shape && rlx_expr_is_const_int(x->shape[d], &c) && c == 1;
    if (has && mask[d] && x->shape && rlx_expr_is_const_int(x->shape[d], &c) && c != 1)
      return ob_error(call, "cannot squeeze axis %d of %s: its extent is not 1", d,
                      ob_shape_str(ctx, x->ndim, x->shape));
    if (has ? mask[d] : one) continue;
    s[on++] = x->shape ? x->shape[d] : NULL;
  }
  *out = tensor_like(ctx, on, x->shape ? s : NULL, x->dtype);
  return NULL;
}

rlx_status_t* ob_legalize_squeeze(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  sh_user_t u = sh_user(ctx, call);
  if (!ob_attr_ints(ctx, call, "axis", &u.n, &u.v)) u.v = NULL;
  u.flag = true;
  return rlx_bb_call_te(bb, te_expand, &u, 1, call->args, "squeeze", out);
}

/* ------------------------------------------------------------------ concat */
rlx_status_t* ob_infer_concat(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 1));
  rlx_sinfo_t* ts = call->args[0]->sinfo;
  if (!ts || ts->kind != RLX_SINFO_TUPLE)
    return ob_error(call, "takes a tuple of tensors, got %s", rlx_sinfo_str(ctx, ts));
  rlx_sinfo_tuple_t* tup = (rlx_sinfo_tuple_t*)ts;
  if (tup->n_fields == 0) return ob_error(call, "needs at least one tensor");
  int64_t axis = 0;
  ob_attr_int(call, "axis", &axis);
  int ndim = -1;
  rlx_dtype_t t = rlx_dt_void();
  bool all_shapes = true;
  for (int k = 0; k < tup->n_fields; k++) {
    if (tup->fields[k]->kind != RLX_SINFO_TENSOR)
      return ob_error(call, "field %d is not a tensor: %s", k, rlx_sinfo_str(ctx, tup->fields[k]));
    rlx_sinfo_tensor_t* f = (rlx_sinfo_tensor_t*)tup->fields[k];
    if (!rlx_dtype_is_void(f->dtype)) {
      if (!rlx_dtype_is_void(t) && !rlx_dtype_eq(t, f->dtype))
        return ob_error(call, "tensors have different dtypes: %s and %s", ob_dtype_str(ctx, t),
                        ob_dtype_str(ctx, f->dtype));
      t = f->dtype;
    }
    if (f->ndim >= 0) {
      if (ndim >= 0 && ndim != f->ndim) return ob_error(call, "tensors have different ranks: %d and %d", ndim, f->ndim);
      ndim = f->ndim;
    }
    all_shapes = all_shapes && f->shape;
  }
  if (ndim >= 0 && (axis < -ndim || axis >= ndim))
    return ob_error(call, "axis %lld is out of range for rank %d", (long long)axis, ndim);
  if (ndim < 0 || !all_shapes) {
    *out = rlx_sinfo_tensor(ctx, ndim, NULL, t);
    return NULL;
  }
  if (axis < 0) axis += ndim;
  rlx_sinfo_tensor_t* f0 = (rlx_sinfo_tensor_t*)tup->fields[0];
  rlx_expr_t** s = RLX_NEW_ARRAY(ctx, rlx_expr_t*, ndim);
  for (int d = 0; d < ndim; d++) s[d] = f0->shape[d];
  s[axis] = rlx_ir_i64(ctx, 0);
  for (int k = 0; k < tup->n_fields; k++) {
    rlx_sinfo_tensor_t* f = (rlx_sinfo_tensor_t*)tup->fields[k];
    for (int d = 0; d < ndim; d++) {
      if (d == axis) continue;
      if (f->shape[d] != s[d] && !rlx_ir_prove_equal(ctx, f->shape[d], s[d]))
        return ob_error(call, "cannot join %s and %s on axis %d", ob_shape_str(ctx, ndim, f0->shape),
                        ob_shape_str(ctx, ndim, f->shape), (int)axis);
    }
    s[axis] = rlx_ir_add(ctx, s[axis], rlx_ir_cast(ctx, rlx_dt_int64(), f->shape[axis]));
  }
  *out = tensor_like(ctx, ndim, s, t);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_concat(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                            rlx_te_tensor_t** out) {
  sh_user_t* u = user;
  return rlx_topi_concat(ctx, n, in, u->k, out);
}

rlx_status_t* ob_legalize_concat(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  sh_user_t u = sh_user(ctx, call);
  ob_attr_int(call, "axis", &u.k);
  rlx_relax_expr_t* a = call->args[0];
  int n = ((rlx_sinfo_tuple_t*)a->sinfo)->n_fields;
  rlx_relax_expr_t** fields = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n);
  for (int k = 0; k < n; k++) {
    fields[k] = a->kind == RLX_RELAX_TUPLE ? ((rlx_relax_tuple_t*)a)->fields[k] : rlx_relax_tuple_get_item(ctx, a, k);
    RLX_RETURN_IF_ERROR(rlx_bb_normalize(bb, fields[k]));
  }
  return rlx_bb_call_te(bb, te_concat, &u, n, fields, "concatenate", out);
}

/* ------------------------------------------------------------------ split */
/* indices_or_sections: an int attr (sections) or ints (indices). */
static RLX_MUST_USE rlx_status_t* split_attrs(rlx_ctx_t* ctx, const rlx_relax_call_t* call, int64_t* sections, int* n_idx,
                                 int64_t** idx, int64_t* axis) {
  const rlx_attr_t* a = rlx_attrs_get(&call->attrs, "indices_or_sections");
  *idx = NULL;
  *n_idx = 0;
  *axis = 0;
  ob_attr_int(call, "axis", axis);
  if (a && a->kind == RLX_ATTR_INT)
    *sections = a->u.i;
  else if (a && a->kind == RLX_ATTR_INTS) {
    *n_idx = a->u.ints.n;
    *idx = a->u.ints.v ? a->u.ints.v : RLX_NEW(ctx, int64_t);
  } else
    return ob_error(call, "needs indices_or_sections (an int or a list of ints)");
  return NULL;
}

rlx_status_t* ob_infer_split(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  int64_t sections = 0, axis = 0;
  int n_idx = 0;
  int64_t* idx = NULL;
  RLX_RETURN_IF_ERROR(split_attrs(ctx, call, &sections, &n_idx, &idx, &axis));
  if (!idx && (sections < 1 || sections > 1 << 20))
    return ob_error(call, "the number of sections must be in [1, 2^20], got %lld", (long long)sections);
  int count = idx ? n_idx + 1 : (int)sections;
  if (x->ndim >= 0 && (axis < -x->ndim || axis >= x->ndim))
    return ob_error(call, "axis %lld is out of range for rank %d", (long long)axis, x->ndim);
  rlx_sinfo_t** fields = RLX_NEW_ARRAY(ctx, rlx_sinfo_t*, count);
  if (!x->shape) {
    for (int k = 0; k < count; k++) fields[k] = rlx_sinfo_tensor(ctx, x->ndim, NULL, x->dtype);
  } else {
    if (axis < 0) axis += x->ndim;
    int nk = 0;
    rlx_expr_t **begins = NULL, **exts = NULL;
    RLX_RETURN_IF_ERROR(rlx_status_annotate(
        rlx_topi_split_ranges(ctx, x->shape[axis], sections, n_idx, idx, &nk, &begins, &exts), "%s", ob_name(call)));
    for (int k = 0; k < count; k++) {
      rlx_expr_t** s = RLX_NEW_ARRAY(ctx, rlx_expr_t*, x->ndim);
      for (int d = 0; d < x->ndim; d++) s[d] = x->shape[d];
      s[axis] = exts[k];
      fields[k] = tensor_like(ctx, x->ndim, s, x->dtype);
    }
  }
  *out = rlx_sinfo_tuple(ctx, count, fields);
  return NULL;
}

/* Split is a TE function with several outputs, which rlx_bb_call_te does not make: the
 * PrimFunc (x, T_split_0, T_split_1, ...) is created here, with fresh symbolic vars for x's
 * dims as call_te would, and called with a Tuple out_sinfo (TVM's legalization of split). */
rlx_status_t* ob_legalize_split(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  int64_t sections = 0, axis = 0;
  int n_idx = 0;
  int64_t* idx = NULL;
  RLX_RETURN_IF_ERROR(split_attrs(ctx, call, &sections, &n_idx, &idx, &axis));
  rlx_relax_expr_t* xa = call->args[0];
  rlx_sinfo_tensor_t* xs = (rlx_sinfo_tensor_t*)xa->sinfo;
  rlx_ptrmap_t fwd = {0}, inv = {0};
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, xs->ndim);
  rlx_status_t* st = NULL;
  for (int d = 0; d < xs->ndim && !st; d++) {
    rlx_expr_t* e = xs->shape[d];
    if (e->kind == RLX_EXPR_VAR) {
      if (!rlx_ptrmap_has(&fwd, e)) {
        rlx_var_t* v = rlx_ir_var(ctx, RLX_AS(rlx_var_t, e)->name, e->dtype);
        rlx_ptrmap_put(&fwd, e, v);
        rlx_ptrmap_put(&inv, v, e);
      }
      shape[d] = rlx_ptrmap_get(&fwd, e);
    } else if (rlx_expr_is_const_int(e, NULL))
      shape[d] = e;
    else
      st = ob_error(call, "legalization supports constant or single-variable dims, got %s",
                    ob_shape_str(ctx, xs->ndim, xs->shape));
  }
  rlx_te_tensor_t** pieces = NULL;
  int count = 0;
  if (!st) {
    const char* pname = rlx_relax_is_var(xa) ? ((rlx_relax_var_t*)xa)->name : "A";
    rlx_te_tensor_t* x = rlx_te_placeholder(ctx, xs->ndim, shape, xs->dtype, pname);
    st = rlx_topi_split(ctx, x, sections, n_idx, idx, axis, &count, &pieces);
    if (!st) {
      rlx_te_tensor_t** params = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, count + 1);
      params[0] = x;
      for (int k = 0; k < count; k++) params[k + 1] = pieces[k];
      rlx_tir_func_t* pf = NULL;
      st = rlx_te_create_prim_func(ctx, count + 1, params, "split", &pf);
      rlx_relax_expr_t* gv = NULL;
      if (!st) {
        pf->is_private = true;
        st = rlx_bb_add_func(bb, RLX_FUNC_TIR, pf, "split", &gv);
      }
      if (!st) {
        rlx_sinfo_t** fields = RLX_NEW_ARRAY(ctx, rlx_sinfo_t*, count);
        for (int k = 0; k < count; k++) {
          rlx_tir_buffer_t* b = pieces[k]->buffer;
          rlx_expr_t** s = RLX_NEW_ARRAY(ctx, rlx_expr_t*, b->ndim);
          for (int d = 0; d < b->ndim; d++) s[d] = rlx_expr_substitute(ctx, b->shape[d], &inv);
          fields[k] = tensor_like(ctx, b->ndim, s, b->dtype);
        }
        rlx_relax_expr_t* c = rlx_relax_call_tir(ctx, gv, 1, &xa, rlx_sinfo_tuple(ctx, count, fields), NULL);
        st = rlx_bb_normalize(bb, c);
        if (!st) *out = c;
      }
    }
  }
  rlx_ptrmap_free(&fwd);
  rlx_ptrmap_free(&inv);
  return st;
}

/* ------------------------------------------------------------------ strided_slice */
/* Constant ints of a Tuple of PrimValues or a ShapeExpr arg; false when not constant. */
static bool const_ints_arg(rlx_ctx_t* ctx, rlx_relax_expr_t* a, int* n, int64_t** v) {
  if (a->kind == RLX_RELAX_SHAPE_EXPR) {
    rlx_relax_shape_expr_t* s = (rlx_relax_shape_expr_t*)a;
    *n = s->ndim;
    *v = RLX_NEW_ARRAY(ctx, int64_t, s->ndim);
    for (int i = 0; i < s->ndim; i++)
      if (!rlx_expr_is_const_int(s->values[i], &(*v)[i])) return false;
    return true;
  }
  if (a->kind != RLX_RELAX_TUPLE) return false;
  rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)a;
  *n = t->n_fields;
  *v = RLX_NEW_ARRAY(ctx, int64_t, t->n_fields);
  for (int i = 0; i < t->n_fields; i++) {
    rlx_relax_expr_t* f = t->fields[i];
    if (f->kind != RLX_RELAX_PRIM_VALUE || !rlx_expr_is_const_int(((rlx_relax_prim_value_t*)f)->value, &(*v)[i]))
      return false;
  }
  return true;
}

/* axes, begin, end, strides (NULL = 1) from attrs or args 1..4. */
static RLX_MUST_USE rlx_status_t* slice_params(rlx_ctx_t* ctx, const rlx_relax_call_t* call, int* n, int64_t** axes, int64_t** begin,
                                  int64_t** end, int64_t** strides) {
  const char* keys[4] = {"axes", "begin", "end", "strides"};
  int64_t** outs[4] = {axes, begin, end, strides};
  *strides = NULL;
  *n = -1;
  for (int k = 0; k < 4; k++) {
    int m = 0;
    int64_t* v = NULL;
    bool ok;
    if (call->n_args > 1) {
      if (1 + k >= call->n_args) {
        if (k == 3) break;
        return ob_error(call, "missing the %s argument", keys[k]);
      }
      ok = const_ints_arg(ctx, call->args[1 + k], &m, &v);
      if (!ok) return ob_error(call, "%s must be a tuple of constant R.prim_value ints", keys[k]);
    } else {
      ok = ob_attr_ints(ctx, call, keys[k], &m, &v);
      if (!ok) {
        if (k == 3) break;
        return ob_error(call, "needs the %s attribute", keys[k]);
      }
    }
    if (*n >= 0 && m != *n) return ob_error(call, "axes, begin, end and strides must have the same length");
    *n = m;
    *outs[k] = v;
  }
  for (int i = 0; *strides && i < *n; i++)
    if ((*strides)[i] == 0) return ob_error(call, "stride 0 on axis %lld", (long long)(*axes)[i]);
  return NULL;
}

rlx_status_t* ob_infer_strided_slice(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 5));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  int n = 0;
  int64_t *axes, *begin, *end, *strides;
  RLX_RETURN_IF_ERROR(slice_params(ctx, call, &n, &axes, &begin, &end, &strides));
  if (x->ndim < 0) {
    *out = rlx_sinfo_tensor(ctx, -1, NULL, x->dtype);
    return NULL;
  }
  bool* mask = RLX_NEW_ARRAY(ctx, bool, x->ndim);
  RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_topi_reduce_axes("axes", x->ndim, n, axes, mask), "%s", ob_name(call)));
  if (!x->shape) {
    *out = rlx_sinfo_tensor(ctx, x->ndim, NULL, x->dtype);
    return NULL;
  }
  rlx_expr_t** s = RLX_NEW_ARRAY(ctx, rlx_expr_t*, x->ndim);
  for (int d = 0; d < x->ndim; d++) s[d] = x->shape[d];
  for (int i = 0; i < n; i++) {
    int a = (int)(axes[i] < 0 ? axes[i] + x->ndim : axes[i]);
    s[a] = rlx_topi_slice_extent(ctx, x->shape[a], begin[i], end[i], strides ? strides[i] : 1, NULL);
  }
  *out = tensor_like(ctx, x->ndim, s, x->dtype);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_slice(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                           rlx_te_tensor_t** out) {
  sh_user_t* u = user;
  return rlx_topi_strided_slice(ctx, in[0], u->n, u->v, u->v2, u->v3, u->v4, out);
}

rlx_status_t* ob_legalize_strided_slice(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  sh_user_t u = sh_user(ctx, call);
  RLX_RETURN_IF_ERROR(slice_params(ctx, call, &u.n, &u.v, &u.v2, &u.v3, &u.v4));
  return rlx_bb_call_te(bb, te_slice, &u, 1, call->args, "strided_slice", out);
}

/* ------------------------------------------------------------------ take */
rlx_status_t* ob_infer_take(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 2, 2));
  rlx_sinfo_tensor_t *x, *ind;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 1, &ind));
  if (!rlx_dtype_is_void(ind->dtype) &&
      (ind->dtype.code != RLX_DT_INT || (ind->dtype.bits != 32 && ind->dtype.bits != 64)))
    return ob_error(call, "indices must be int32 or int64, got %s", ob_dtype_str(ctx, ind->dtype));
  const char* mode = ob_attr_str(call, "mode", "fast");
  if (strcmp(mode, "fast") && strcmp(mode, "clip") && strcmp(mode, "wrap"))
    return ob_error(call, "mode '%s' is not fast, clip or wrap", mode);
  int64_t axis = 0;
  bool has_axis = ob_attr_int(call, "axis", &axis);
  if (x->ndim >= 0 && has_axis && (axis < -x->ndim || axis >= x->ndim))
    return ob_error(call, "axis %lld is out of range for rank %d", (long long)axis, x->ndim);
  if (ind->ndim < 0 || (has_axis && x->ndim < 0)) {
    *out = rlx_sinfo_tensor(ctx, -1, NULL, x->dtype);
    return NULL;
  }
  if (axis < 0) axis += x->ndim;
  int on = has_axis ? x->ndim - 1 + ind->ndim : ind->ndim;
  if (!ind->shape || (has_axis && !x->shape)) {
    *out = rlx_sinfo_tensor(ctx, on, NULL, x->dtype);
    return NULL;
  }
  rlx_expr_t** s = RLX_NEW_ARRAY(ctx, rlx_expr_t*, on);
  int k = 0;
  if (has_axis)
    for (int d = 0; d < axis; d++) s[k++] = x->shape[d];
  for (int d = 0; d < ind->ndim; d++) s[k++] = ind->shape[d];
  if (has_axis)
    for (int d = (int)axis + 1; d < x->ndim; d++) s[k++] = x->shape[d];
  *out = tensor_like(ctx, on, s, x->dtype);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_take(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                          rlx_te_tensor_t** out) {
  sh_user_t* u = user;
  return rlx_topi_take(ctx, in[0], in[1], u->flag, u->k, u->mode, out);
}

rlx_status_t* ob_legalize_take(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  sh_user_t u = sh_user(ctx, call);
  u.flag = ob_attr_int(call, "axis", &u.k);
  u.mode = ob_attr_str(call, "mode", "fast");
  return rlx_bb_call_te(bb, te_take, &u, 2, call->args, "take", out);
}

/* ------------------------------------------------------------------ pad */
rlx_status_t* ob_infer_pad(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  int np = 0;
  int64_t* pw = NULL;
  if (!ob_attr_ints(ctx, call, "pad_width", &np, &pw)) return ob_error(call, "needs the pad_width attribute");
  const char* mode = ob_attr_str(call, "pad_mode", "constant");
  bool reflect = strcmp(mode, "reflect") == 0;
  if (strcmp(mode, "constant") != 0 && strcmp(mode, "edge") != 0 && !reflect)
    return ob_error(call, "pad_mode '%s' is not constant, edge or reflect", mode);
  for (int i = 0; i < np; i++)
    if (pw[i] < 0) return ob_error(call, "negative padding %lld", (long long)pw[i]);
  if (x->ndim >= 0 && np != 2 * x->ndim)
    return ob_error(call, "pad_width has %d values; a tensor of rank %d needs %d", np, x->ndim, 2 * x->ndim);
  int n = x->ndim >= 0 ? x->ndim : np / 2;
  if (!x->shape) {
    *out = rlx_sinfo_tensor(ctx, n, NULL, x->dtype);
    return NULL;
  }
  rlx_expr_t** s = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) {
    int64_t ext;
    bool padded = pw[2 * d] || pw[2 * d + 1];
    if (strcmp(mode, "constant") != 0 && padded && rlx_expr_is_const_int(x->shape[d], &ext) &&
        (ext == 0 || (reflect && (pw[2 * d] >= ext || pw[2 * d + 1] >= ext))))
      return ob_error(call, "%s padding (%lld, %lld) on axis %d of extent %lld", mode, (long long)pw[2 * d],
                      (long long)pw[2 * d + 1], d, (long long)ext);
    s[d] = rlx_ir_add(ctx, x->shape[d], rlx_ir_i64(ctx, pw[2 * d] + pw[2 * d + 1]));
  }
  *out = tensor_like(ctx, n, s, x->dtype);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_pad(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                         rlx_te_tensor_t** out) {
  sh_user_t* u = user;
  if (u->mode && strcmp(u->mode, "constant") != 0) return rlx_topi_pad_mode(ctx, in[0], u->v, u->mode, out);
  return rlx_topi_pad(ctx, in[0], u->v, u->value, out);
}

rlx_status_t* ob_legalize_pad(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  sh_user_t u = sh_user(ctx, call);
  if (!ob_attr_ints(ctx, call, "pad_width", &u.n, &u.v)) return ob_error(call, "needs the pad_width attribute");
  u.value = 0;
  ob_attr_float(call, "pad_value", &u.value);
  u.mode = ob_attr_str(call, "pad_mode", "constant");
  return rlx_bb_call_te(bb, te_pad, &u, 1, call->args, "pad", out);
}

/* ------------------------------------------------------------------ zeros, ones, full */
rlx_status_t* ob_infer_full(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  bool is_full = rlx_relax_call_op_id(call) == RLX_OP_FULL;
  RLX_RETURN_IF_ERROR(ob_nargs(call, is_full ? 2 : 1, is_full ? 2 : 1));
  int n = 0;
  rlx_expr_t** vals = NULL;
  RLX_RETURN_IF_ERROR(ob_shape_arg(call, 0, &n, &vals));
  rlx_dtype_t t = rlx_dt_void();
  bool has_dtype = ob_attr_dtype(call, "dtype", &t);
  if (is_full) {
    rlx_sinfo_tensor_t* f;
    RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 1, &f));
    if (f->ndim > 0) return ob_error(call, "fill_value must be a 0-d tensor, got %s", rlx_sinfo_str(ctx, &f->hdr));
    if (!has_dtype) t = f->dtype;
  } else if (!has_dtype)
    return ob_error(call, "needs the dtype attribute");
  *out = tensor_like(ctx, n, vals, t);
  return NULL;
}

/* zeros_like / ones_like / full_like(x[, fill_value], dtype=): x's shape, the given dtype or x's. */
rlx_status_t* ob_infer_full_like(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  bool is_full = rlx_relax_call_op_id(call) == RLX_OP_FULL_LIKE;
  RLX_RETURN_IF_ERROR(ob_nargs(call, is_full ? 2 : 1, is_full ? 2 : 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  if (is_full) {
    rlx_sinfo_tensor_t* f;
    RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 1, &f));
    if (f->ndim > 0) return ob_error(call, "fill_value must be a 0-d tensor, got %s", rlx_sinfo_str(ctx, &f->hdr));
  }
  rlx_dtype_t t = x->dtype;
  ob_attr_dtype(call, "dtype", &t);
  *out = x->shape ? tensor_like(ctx, x->ndim, x->shape, t) : rlx_sinfo_tensor(ctx, x->ndim, NULL, t);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_full(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                          rlx_te_tensor_t** out) {
  sh_user_t* u = user;
  return rlx_topi_full(ctx, u->ndim, u->shape, u->dtype, n ? NULL : &u->value, n ? in[0] : NULL, out);
}

rlx_status_t* ob_legalize_full(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  rlx_sinfo_tensor_t* o = (rlx_sinfo_tensor_t*)call->hdr.sinfo;
  if (!o || o->hdr.kind != RLX_SINFO_TENSOR || !o->shape)
    return ob_error(call, "legalization needs a known output shape");
  sh_user_t u = sh_user(ctx, call);
  u.ndim = o->ndim;
  u.shape = o->shape;
  u.dtype = o->dtype;
  const char* name = ob_name(call) + 6;
  u.value = strncmp(name, "ones", 4) == 0 ? 1.0 : 0.0;
  bool is_full = strncmp(name, "full", 4) == 0;
  return rlx_bb_call_te(bb, te_full, &u, is_full ? 1 : 0, is_full ? call->args + 1 : NULL, name, out);
}
