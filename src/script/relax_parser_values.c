/* The Relax TVMScript parser's values: struct info annotations (R.Tensor, R.Tuple, R.Shape,
 * R.Prim, R.Object, R.Callable), op attributes and constants; the rest of the parser is
 * relax_parser.c (relax_parse_internal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relax_parse_internal.h"


static RLX_MUST_USE rlx_status_t* sinfo_call(rs_t* r, const char* k, const py_expr_t* e, rlx_sinfo_t** out) {
  rlx_ctx_t* ctx = r->ctx;
  if (strcmp(k, "Object") == 0) { /* R.Object() is R.Object, as TVM accepts both */
    if (e->n != 0) return rs_err(r, e, "R.Object() takes no arguments, got %d", e->n);
    *out = rlx_sinfo_object(ctx);
    return NULL;
  }
  if (strcmp(k, "Tensor") == 0) {
    const py_expr_t* shape = rs_arg(e, 0, "shape");
    const py_expr_t* dt = rs_arg(e, 1, "dtype");
    const py_expr_t* nd = rs_arg(e, -1, "ndim");
    if (shape && shape->kind == PY_E_STR && !dt) {
      dt = shape;
      shape = NULL;
    }
    if (shape && shape->kind == PY_E_CONST && strcmp(shape->str, "None") == 0) shape = NULL;
    rlx_dtype_t t = rlx_dt_void();
    if (dt && !(dt->kind == PY_E_CONST && strcmp(dt->str, "None") == 0)) RLX_RETURN_IF_ERROR(rs_dtype_of(r, dt, &t));
    int64_t ndim = -1;
    if (nd && !rs_int_lit(nd, &ndim)) return rs_err(r, nd, "R.Tensor: expected an integer ndim, got %s", rs_desc(r, nd));
    if (ndim < -1 || ndim > 64)
      return rs_err(r, nd, "R.Tensor: expected ndim between -1 and 64, got %lld", (long long)ndim);
    if (shape) {
      int n;
      rlx_expr_t** dims;
      RLX_RETURN_IF_ERROR(rs_prim_list(r, shape, &n, &dims));
      if (nd && ndim != n)
        return rs_err(r, nd, "R.Tensor: ndim=%lld does not match the shape's %d dims", (long long)ndim, n);
      for (int i = 0; i < n; i++)
        if (!rlx_dtype_is_int(dims[i]->dtype))
          return rs_err(r, shape->items[i], "R.Tensor: expected an integer dimension");
      *out = rlx_sinfo_tensor(ctx, n, dims, t);
    } else {
      *out = rlx_sinfo_tensor(ctx, (int)ndim, NULL, t);
    }
    return NULL;
  }
  if (strcmp(k, "Tuple") == 0) {
    if (e->n_kw) return rs_err(r, e, "R.Tuple: expected struct info arguments only");
    const py_expr_t* const* items = (const py_expr_t* const*)e->items;
    int n = e->n;
    if (n == 1 && (e->items[0]->kind == PY_E_LIST || e->items[0]->kind == PY_E_TUPLE)) {
      items = (const py_expr_t* const*)e->items[0]->items;
      n = e->items[0]->n;
    }
    rlx_sinfo_t** f = RLX_NEW_ARRAY(ctx, rlx_sinfo_t*, n);
    for (int i = 0; i < n; i++) RLX_RETURN_IF_ERROR(rs_sinfo(r, items[i], &f[i]));
    *out = rlx_sinfo_tuple(ctx, n, f);
    return NULL;
  }
  if (strcmp(k, "Shape") == 0) {
    const py_expr_t* v = rs_arg(e, 0, "values");
    const py_expr_t* nd = rs_arg(e, -1, "ndim");
    if (v && !(v->kind == PY_E_CONST && strcmp(v->str, "None") == 0)) {
      int n;
      rlx_expr_t** dims;
      RLX_RETURN_IF_ERROR(rs_prim_list(r, v, &n, &dims));
      *out = rlx_sinfo_shape(ctx, n, dims);
      return NULL;
    }
    int64_t ndim = -1;
    if (nd && !rs_int_lit(nd, &ndim)) return rs_err(r, nd, "R.Shape: expected an integer ndim, got %s", rs_desc(r, nd));
    if (ndim < -1 || ndim > 64)
      return rs_err(r, nd, "R.Shape: expected ndim between -1 and 64, got %lld", (long long)ndim);
    *out = rlx_sinfo_shape(ctx, (int)ndim, NULL);
    return NULL;
  }
  if (strcmp(k, "Prim") == 0) {
    const py_expr_t* v = rs_arg(e, -1, "value");
    if (v) {
      rlx_expr_t* x;
      RLX_RETURN_IF_ERROR(rs_prim(r, v, &x));
      *out = rlx_sinfo_prim(ctx, x->dtype, x);
      return NULL;
    }
    const py_expr_t* dt = rs_arg(e, 0, "dtype");
    if (!dt) return rs_err(r, e, "R.Prim: expected a dtype or value=");
    rlx_dtype_t t;
    RLX_RETURN_IF_ERROR(rs_dtype_of(r, dt, &t));
    *out = rlx_sinfo_prim(ctx, t, NULL);
    return NULL;
  }
  if (strcmp(k, "Callable") == 0) {
    const py_expr_t* ps = rs_arg(e, 0, "params");
    const py_expr_t* ret = rs_arg(e, 1, "ret");
    const py_expr_t* pur = rs_arg(e, 2, "purity");
    bool pure = true;
    if (pur) {
      if (pur->kind != PY_E_CONST || strcmp(pur->str, "None") == 0)
        return rs_err(r, pur, "R.Callable: expected True or False for purity, got %s", rs_desc(r, pur));
      pure = strcmp(pur->str, "True") == 0;
    }
    rlx_sinfo_t* rs = rlx_sinfo_object(ctx);
    if (ret) RLX_RETURN_IF_ERROR(rs_sinfo(r, ret, &rs));
    if (!ps || (ps->kind == PY_E_CONST && strcmp(ps->str, "None") == 0)) {
      *out = rlx_sinfo_func_opaque(ctx, rs, pure);
      return NULL;
    }
    if (ps->kind != PY_E_TUPLE && ps->kind != PY_E_LIST)
      return rs_err(r, ps, "R.Callable: expected a tuple of parameter struct info, got %s", rs_desc(r, ps));
    rlx_sinfo_t** f = RLX_NEW_ARRAY(ctx, rlx_sinfo_t*, ps->n);
    for (int i = 0; i < ps->n; i++) RLX_RETURN_IF_ERROR(rs_sinfo(r, ps->items[i], &f[i]));
    *out = rlx_sinfo_func(ctx, ps->n, f, rs, pure);
    return NULL;
  }
  return rs_err(r, e, "expected struct info (R.Tensor, R.Tuple, R.Shape, R.Prim, R.Object, R.Callable), got R.%s", k);
}

RLX_MUST_USE rlx_status_t* rs_sinfo(rs_t* r, const py_expr_t* e, rlx_sinfo_t** out) {
  if (!e) return rs_err(r, e, "expected struct info");
  rlx_ctx_t* ctx = r->ctx;
  if (e->kind == PY_E_ATTR && strcmp(e->str, "struct_info") == 0 && e->a->kind == PY_E_NAME) {
    rs_sym_t* y = rs_lookup(r, e->a->str); /* x.struct_info: a variable's struct info (TVM) */
    if (y && y->kind == RS_RELAX && ((rlx_relax_expr_t*)y->ptr)->sinfo) {
      *out = ((rlx_relax_expr_t*)y->ptr)->sinfo;
      return NULL;
    }
  }
  const char* k = rs_rname(r, e->kind == PY_E_CALL ? e->a : e);
  if (!k) return rs_err(r, e, "expected struct info such as R.Tensor((n, 4), dtype=\"float32\"), got %s", rs_desc(r, e));
  if (e->kind == PY_E_CALL) return sinfo_call(r, k, e, out);
  if (strcmp(k, "Tensor") == 0)
    *out = rlx_sinfo_tensor(ctx, -1, NULL, rlx_dt_void());
  else if (strcmp(k, "Tuple") == 0)
    *out = rlx_sinfo_tuple(ctx, 0, NULL);
  else if (strcmp(k, "Shape") == 0)
    *out = rlx_sinfo_shape(ctx, -1, NULL);
  else if (strcmp(k, "Object") == 0)
    *out = rlx_sinfo_object(ctx);
  else if (strcmp(k, "Callable") == 0)
    *out = rlx_sinfo_func_opaque(ctx, rlx_sinfo_object(ctx), false);
  else
    return rs_err(r, e, "expected struct info (R.Tensor, R.Tuple, R.Shape, R.Prim, R.Object, R.Callable), got R.%s", k);
  return NULL;
}

/* ------------------------------------------------------------------ expressions */

RLX_MUST_USE rlx_status_t* rs_global_var(rs_t* r, const py_expr_t* e, rlx_relax_expr_t** out, bool* is_tir) {
  if (e->kind != PY_E_ATTR || e->a->kind != PY_E_NAME)
    return rs_err(r, e, "expected a module function such as cls.f, got %s", rs_desc(r, e));
  rs_sym_t* y = rs_lookup(r, e->a->str);
  bool is_mod = (y && y->kind == RS_MODULE) || (!y && r->p->module_name && strcmp(e->a->str, r->p->module_name) == 0);
  if (!is_mod) return rs_err(r, e, "expected a module function such as cls.f, got %s", rs_desc(r, e));
  rlx_module_entry_t* ent = rlx_module_find(r->m, e->str);
  if (!ent) return rs_err(r, e, "no function called '%s' in the module", e->str);
  if (is_tir) *is_tir = ent->kind == RLX_FUNC_TIR;
  *out = rlx_relax_global_var(r->ctx, e->str, NULL);
  return NULL;
}

RLX_MUST_USE rlx_status_t* rs_expr_list(rs_t* r, const py_expr_t* e, const char* what, int* n, rlx_relax_expr_t*** out) {
  if (e->kind != PY_E_TUPLE && e->kind != PY_E_LIST)
    return rs_err(r, e, "%s: expected a tuple of arguments such as (x, y), got %s", what, rs_desc(r, e));
  rlx_relax_expr_t** v = RLX_NEW_ARRAY(r->ctx, rlx_relax_expr_t*, e->n);
  for (int i = 0; i < e->n; i++) RLX_RETURN_IF_ERROR(rs_expr(r, e->items[i], &v[i]));
  *n = e->n;
  *out = v;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rs_sinfo_args(rs_t* r, const py_expr_t* e, int* n, rlx_sinfo_t*** out) {
  if (!e) {
    *n = 0;
    *out = NULL;
    return NULL;
  }
  const py_expr_t* const* items = (const py_expr_t* const*)&e;
  int k = 1;
  if (e->kind == PY_E_TUPLE || e->kind == PY_E_LIST) {
    items = (const py_expr_t* const*)e->items;
    k = e->n;
  }
  rlx_sinfo_t** v = RLX_NEW_ARRAY(r->ctx, rlx_sinfo_t*, k);
  for (int i = 0; i < k; i++) RLX_RETURN_IF_ERROR(rs_sinfo(r, items[i], &v[i]));
  *n = k;
  *out = v;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rs_check_kwargs(rs_t* r, const py_expr_t* e, const char* what, const char* const* allowed) {
  for (int k = 0; k < e->n_kw; k++) {
    bool ok = false;
    for (int i = 0; allowed[i]; i++) ok = ok || strcmp(e->kw_names[k], allowed[i]) == 0;
    if (!ok) return rs_err(r, e->kw_values[k], "%s: unexpected keyword argument '%s'", what, e->kw_names[k]);
  }
  return NULL;
}

RLX_MUST_USE rlx_status_t* rs_out_sinfo(rs_t* r, const py_expr_t* call, const char* what, rlx_sinfo_t** out) {
  const py_expr_t* o = rs_arg(call, 2, "out_sinfo");
  if (!o) return rs_err(r, call, "%s: expected out_sinfo=R.Tensor(...)", what);
  if (o->kind == PY_E_LIST || o->kind == PY_E_TUPLE) {
    int n;
    rlx_sinfo_t** f;
    RLX_RETURN_IF_ERROR(rs_sinfo_args(r, o, &n, &f));
    *out = rlx_sinfo_tuple(r->ctx, n, f);
  } else {
    RLX_RETURN_IF_ERROR(rs_sinfo(r, o, out));
  }
  return NULL;
}

/* An item of a list or dict attribute value (R.func_attr({"opt": {"a": [1, 2]}})), held as
 * TIR's attribute pseudo-calls (RLX_TIR_ATTR_LIST / RLX_TIR_ATTR_DICT): ints, floats,
 * strings, True/False, PrimExprs, and nested lists and string-keyed dicts. */
static RLX_MUST_USE rlx_status_t* attr_item(rs_t* r, const char* key, const py_expr_t* v, rlx_expr_t** out) {
  int64_t iv;
  if (v->kind == PY_E_CONST && strcmp(v->str, "None") != 0) {
    *out = rlx_ir_bool(r->ctx, strcmp(v->str, "True") == 0);
    return NULL;
  }
  if (rs_int_lit(v, &iv)) {
    *out = iv == (int32_t)iv ? rlx_ir_i32(r->ctx, (int32_t)iv) : rlx_ir_i64(r->ctx, iv);
    return NULL;
  }
  if (v->kind == PY_E_FLOAT || (v->kind == PY_E_UNARY && strcmp(v->op, "-") == 0 && v->a->kind == PY_E_FLOAT)) {
    *out = rlx_ir_float(r->ctx, rlx_dt_float32(), v->kind == PY_E_FLOAT ? v->fval : -v->a->fval);
    return NULL;
  }
  if (v->kind == PY_E_STR) {
    *out = rlx_ir_string(r->ctx, v->str);
    return NULL;
  }
  if (v->kind == PY_E_LIST || v->kind == PY_E_TUPLE || v->kind == PY_E_DICT) {
    bool dict = v->kind == PY_E_DICT;
    int n = dict ? 2 * v->n : v->n;
    rlx_expr_t** items = RLX_NEW_ARRAY(r->ctx, rlx_expr_t*, n);
    for (int i = 0; i < v->n; i++) {
      if (!dict) {
        RLX_RETURN_IF_ERROR(attr_item(r, key, v->items[i], &items[i]));
        continue;
      }
      if (v->items[i]->kind != PY_E_STR)
        return rs_err(r, v->items[i], "attribute %s: expected string keys, got %s", key, rs_desc(r, v->items[i]));
      items[2 * i] = rlx_ir_string(r->ctx, v->items[i]->str);
      RLX_RETURN_IF_ERROR(attr_item(r, key, v->kw_values[i], &items[2 * i + 1]));
    }
    *out = rlx_ir_call(r->ctx, rlx_dt_int32(), dict ? RLX_TIR_ATTR_DICT : RLX_TIR_ATTR_LIST, n, items);
    return NULL;
  }
  return rs_prim(r, v, out);
}

/* An attribute value of an op call (nested false: lists hold ints) or of R.func_attr (nested:
 * also lists and dicts of any values, as attr_item holds them). */
RLX_MUST_USE rlx_status_t* rs_attr_value(rs_t* r, const char* key, const py_expr_t* v, bool nested, bool* keep,
                                             rlx_attr_t* out) {
  int64_t iv;
  *keep = true;
  if (v->kind == PY_E_CONST) {
    if (strcmp(v->str, "None") == 0) {
      *keep = false;
      return NULL;
    }
    *out = rlx_attr_bool(strcmp(v->str, "True") == 0);
    return NULL;
  }
  if (rs_int_lit(v, &iv)) {
    *out = rlx_attr_int(iv);
    return NULL;
  }
  if (v->kind == PY_E_FLOAT || (v->kind == PY_E_UNARY && strcmp(v->op, "-") == 0 && v->a->kind == PY_E_FLOAT)) {
    *out = rlx_attr_float(v->kind == PY_E_FLOAT ? v->fval : -v->a->fval);
    return NULL;
  }
  if (v->kind == PY_E_STR) {
    size_t n = strlen(key);
    rlx_dtype_t t;
    if (n >= 5 && strcmp(key + n - 5, "dtype") == 0 && rlx_dtype_parse(v->str, &t))
      *out = rlx_attr_dtype(t);
    else
      *out = rlx_attr_str(rlx_ctx_strdup(r->ctx, v->str));
    return NULL;
  }
  if (v->kind == PY_E_LIST || v->kind == PY_E_TUPLE) {
    int64_t* xs = RLX_NEW_ARRAY(r->ctx, int64_t, v->n);
    bool all_ints = true;
    for (int i = 0; i < v->n && all_ints; i++) {
      all_ints = rs_int_lit(v->items[i], &xs[i]);
      if (!all_ints && !nested)
        return rs_err(r, v->items[i], "attribute %s: expected a list of integers, got %s", key, rs_desc(r, v->items[i]));
    }
    if (all_ints) {
      *out = rlx_attr_ints(v->n, xs);
      return NULL;
    }
  }
  rlx_expr_t* x;
  if (nested && (v->kind == PY_E_LIST || v->kind == PY_E_TUPLE || v->kind == PY_E_DICT)) {
    RLX_RETURN_IF_ERROR(attr_item(r, key, v, &x));
    *out = rlx_attr_expr(x);
    return NULL;
  }
  RLX_RETURN_IF_ERROR(rs_prim(r, v, &x));
  *out = rlx_attr_expr(x);
  return NULL;
}

typedef RLX_VEC(int64_t) i64_vec_t;
typedef RLX_VEC(double) f64_vec_t;

static RLX_MUST_USE rlx_status_t* const_value(rs_t* r, const py_expr_t* e, int depth, i64_vec_t* shape, f64_vec_t* vals,
                                              bool* is_first) {
  if (e->kind == PY_E_LIST || e->kind == PY_E_TUPLE) {
    if (depth >= 32) return rs_err(r, e, "R.const: nesting too deep");
    if (*is_first) {
      if (shape->len != depth) return rs_err(r, e, "R.const: ragged nested list");
      rlx_vec_push(shape, (int64_t)e->n);
    } else if (depth >= shape->len || shape->data[depth] != e->n) {
      return rs_err(r, e, "R.const: ragged nested list (expected %lld elements)",
                 depth < shape->len ? (long long)shape->data[depth] : 0LL);
    }
    if (e->n == 0) *is_first = false;
    for (int i = 0; i < e->n; i++) RLX_RETURN_IF_ERROR(const_value(r, e->items[i], depth + 1, shape, vals, is_first));
    return NULL;
  }
  if (*is_first)
    *is_first = false;
  else if (depth != shape->len)
    return rs_err(r, e, "R.const: ragged nested list");
  int64_t iv;
  double d;
  if (rs_int_lit(e, &iv))
    d = (double)iv;
  else if (e->kind == PY_E_FLOAT)
    d = e->fval;
  else if (e->kind == PY_E_UNARY && strcmp(e->op, "-") == 0 && e->a->kind == PY_E_FLOAT)
    d = -e->a->fval;
  else if (e->kind == PY_E_CONST && strcmp(e->str, "None") != 0)
    d = strcmp(e->str, "True") == 0;
  else if (e->kind == PY_E_STR && strcmp(e->str, "nan") == 0)
    d = NAN; /* TVM quotes non-finite floats */
  else if (e->kind == PY_E_STR && strcmp(e->str, "inf") == 0)
    d = INFINITY;
  else if (e->kind == PY_E_STR && strcmp(e->str, "-inf") == 0)
    d = -INFINITY;
  else
    return rs_err(r, e, "R.const: expected a number, got %s", rs_desc(r, e));
  rlx_vec_push(vals, d);
  return NULL;
}

RLX_MUST_USE rlx_status_t* rs_parse_const(rs_t* r, const py_expr_t* e, rlx_relax_expr_t** out) {
  const py_expr_t* v = rs_arg(e, 0, "value");
  const py_expr_t* dt = rs_arg(e, 1, "dtype");
  if (!v) return rs_err(r, e, "R.const: expected a value");
  rlx_dtype_t t = rlx_dt_float32();
  int64_t iv;
  if (dt)
    RLX_RETURN_IF_ERROR(rs_dtype_of(r, dt, &t));
  else if (rs_int_lit(v, &iv))
    t = rlx_dt_int32(); /* TVM's relax.const: a Python int is int32 */
  else if (v->kind == PY_E_CONST)
    t = rlx_dt_bool();
  bool ok = t.lanes == 1 && (rlx_dtype_is_bool(t) || (t.code == RLX_DT_FLOAT && (t.bits == 32 || t.bits == 64)) ||
                             ((t.code == RLX_DT_INT || t.code == RLX_DT_UINT) &&
                              (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64)));
  char buf[32];
  if (!ok) return rs_err(r, dt ? dt : e, "R.const: unsupported dtype %s", rlx_dtype_str(t, buf));
  i64_vec_t shape = {0};
  f64_vec_t vals = {0};
  bool first = true;
  rlx_status_t* st = const_value(r, v, 0, &shape, &vals, &first);
  size_t numel = 1;
  for (int i = 0; !st && i < shape.len; i++) numel *= (size_t)shape.data[i];
  if (!st && numel != (size_t)vals.len) st = rs_err(r, v, "R.const: ragged nested list");
  if (st) {
    rlx_vec_free(&shape);
    rlx_vec_free(&vals);
    return st;
  }
  int eb = rlx_dtype_bytes(t);
  unsigned char* data = calloc(numel ? numel : 1, (size_t)eb);
  if (!data) {
    rlx_vec_free(&shape);
    rlx_vec_free(&vals);
    return rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (R.const)");
  }
  for (size_t i = 0; i < numel; i++) {
    double d = vals.data[i];
    unsigned char* p = data + i * (size_t)eb;
    if (rlx_dtype_is_bool(t))
      *p = d != 0;
    else if (t.code == RLX_DT_FLOAT && t.bits == 32) {
      float f = (float)d;
      memcpy(p, &f, 4);
    } else if (t.code == RLX_DT_FLOAT)
      memcpy(p, &d, 8);
    else {
      int64_t x = (int64_t)d;
      if (v->kind != PY_E_LIST && v->kind != PY_E_TUPLE && rs_int_lit(v, &x)) { /* exact for big ints */
      }
      memcpy(p, &x, (size_t)eb); /* little-endian truncation */
    }
  }
  *out = rlx_relax_constant(r->ctx, t, shape.len, shape.data, data, numel * (size_t)eb);
  free(data);
  rlx_vec_free(&shape);
  rlx_vec_free(&vals);
  if (!*out) return rs_err(r, e, "R.const: bad constant");
  return NULL;
}

