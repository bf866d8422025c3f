/* Internal to src/api: the adapter table behind "topi by name" (api_topi.c: the table, the
 * elementwise / reduce / shape entries and rlx_topi_call*; api_topi_nn.c: the topi.nn entries
 * beyond dense/relu/softmax/pad and the index entries gather, one_hot, ...). An adapter
 * reads TVM's parameters (tensors by position in x->t, the rest from the attribute list keyed
 * by parameter name), applies TVM's defaults and calls the C topi function. */
#ifndef RLX_API_TOPI_H
#define RLX_API_TOPI_H

#include <string.h>

#include "../topi/basic.h"
#include "../topi/nn.h"
#include "attr_list.h"
#include "rlx/rlx.h"

typedef struct {
  rlx_ctx_t* ctx;
  int n;                          /* tensors given */
  rlx_te_tensor_t* const* t;      /* one slot per tensor parameter (ts: all of them) */
  const rlx_attrs_t* a;
  int code;                       /* the unary / binary / reduce op of generic entries */
} targs_t;

/* An adapter returns a status (NULL = ok) and stores its tensor in *out on success. */
typedef rlx_status_t* (*adapter_t)(const targs_t* x, rlx_te_tensor_t** out);
/* Several outputs: *out_n tensors in the (arena) array *out. */
typedef rlx_status_t* (*multi_adapter_t)(const targs_t* x, int* out_n, rlx_te_tensor_t*** out);

typedef struct {
  const char* name;
  const char* params;
  adapter_t fn;
  int code;
  multi_adapter_t multi; /* set (and fn NULL) for functions returning a list */
} topi_entry_t;

/* ------------------------------------------------------------------ argument readers */
static inline const rlx_attr_t* attr(const targs_t* x, const char* key) { return x->a ? rlx_attrs_get(x->a, key) : NULL; }

static inline int64_t get_int(const targs_t* x, const char* key, int64_t dflt) {
  const rlx_attr_t* a = attr(x, key);
  return a && a->kind == RLX_ATTR_INT ? a->u.i : a && a->kind == RLX_ATTR_BOOL ? a->u.b : dflt;
}

static inline bool get_bool(const targs_t* x, const char* key, bool dflt) { return get_int(x, key, dflt) != 0; }

static inline double get_float(const targs_t* x, const char* key, double dflt) {
  const rlx_attr_t* a = attr(x, key);
  if (!a) return dflt;
  return a->kind == RLX_ATTR_FLOAT ? a->u.f : a->kind == RLX_ATTR_INT ? (double)a->u.i : dflt;
}

static inline rlx_dtype_t get_dtype(const targs_t* x, const char* key) {
  const rlx_attr_t* a = attr(x, key);
  return a && a->kind == RLX_ATTR_DTYPE ? a->u.dtype : rlx_dt_void();
}

/* ints attribute: *n (-1 when absent) and the values. */
static inline const int64_t* get_ints(const targs_t* x, const char* key, int* n) {
  const rlx_attr_t* a = attr(x, key);
  if (a && a->kind == RLX_ATTR_INTS) {
    *n = a->u.ints.n;
    return a->u.ints.v;
  }
  if (a && a->kind == RLX_ATTR_INT) {
    *n = 1;
    return &a->u.i;
  }
  *n = -1;
  return NULL;
}

static inline const char* get_str(const targs_t* x, const char* key, const char* dflt) {
  const rlx_attr_t* a = attr(x, key);
  return a && a->kind == RLX_ATTR_STR ? a->u.s : dflt;
}

/* The bound on sizes, strides, paddings, groups, axes and counts the adapters pass on: TVM
 * keeps them in int32, and beyond it the C library's int64 shape arithmetic could overflow. */
#define RLX_API_TOPI_LIMIT ((int64_t)1 << 31)

static inline bool in_limit(int64_t v) { return v >= -RLX_API_TOPI_LIMIT && v <= RLX_API_TOPI_LIMIT; }

/* False when the constant dim dim * mul + add would not fit dim's dtype (int32 dims stay
 * int32 in TE); a symbolic dim passes. mul, add within RLX_API_TOPI_LIMIT. */
static inline bool dim_fits(const rlx_expr_t* dim, int64_t mul, int64_t add) {
  int64_t v;
  if (!rlx_expr_is_const_int(dim, &v)) return true;
  int64_t max = dim->dtype.bits <= 32 ? INT32_MAX : INT64_MAX / 4;
  return v <= (max - add) / (mul > 0 ? mul : 1);
}

static inline RLX_MUST_USE rlx_status_t* fail(const char* fmt, const char* what) {
  return rlx_status_create(RLX_INVALID_ARGUMENT, fmt, what);
}

/* A scalar PrimExpr attribute as a constant (or cast) of dtype t. */
static inline rlx_expr_t* scalar_as(rlx_ctx_t* ctx, const rlx_attr_t* a, rlx_dtype_t t, double dflt) {
  double v = dflt;
  if (a && a->kind == RLX_ATTR_EXPR) {
    int64_t i;
    if (rlx_expr_is_const_int(a->u.expr, &i)) {
      v = (double)i;
    } else if (a->u.expr->kind == RLX_EXPR_FLOAT_IMM) {
      v = ((const rlx_float_imm_t*)a->u.expr)->value;
    } else {
      return rlx_ir_cast(ctx, t, a->u.expr);
    }
  } else if (a && (a->kind == RLX_ATTR_FLOAT || a->kind == RLX_ATTR_INT || a->kind == RLX_ATTR_BOOL)) {
    v = a->kind == RLX_ATTR_FLOAT ? a->u.f : a->kind == RLX_ATTR_INT ? (double)a->u.i : a->u.b;
  }
  if (rlx_dtype_is_float(t)) return rlx_ir_float(ctx, t, v);
  if (rlx_dtype_is_bool(t)) return rlx_ir_bool(ctx, v != 0);
  return rlx_ir_int(ctx, t, (int64_t)v);
}

static inline rlx_expr_t* copy_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rlx_te_tensor_t* t = user;
  return rlx_te_load(ctx, t, t->buffer->ndim, (rlx_expr_t* const*)idx);
}

/* The entries of api_topi_nn.c (merged into the table by api_topi.c; a static assertion there
 * keeps the count right). */
#define RLX_API_TOPI_NN_COUNT 33
extern const topi_entry_t rlx_api_topi_nn_entries[];
extern const int rlx_api_topi_nn_count;

#endif
