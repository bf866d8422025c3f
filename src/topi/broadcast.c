/* topi broadcast ops: broadcast shapes, binary ops, where, broadcast_to (see basic.h). */
#include "basic.h"

static bool is_one(const rlx_expr_t* e) {
  int64_t v;
  return rlx_expr_is_const_int(e, &v) && v == 1;
}

typedef struct {
  rlx_analyzer_t* an;
} nonneg_t;

static void bind_nonneg(const rlx_expr_t* e, void* user) {
  if (e->kind == RLX_EXPR_VAR && rlx_dtype_is_int(e->dtype))
    rlx_analyzer_bind_nonneg(((nonneg_t*)user)->an, (rlx_var_t*)e);
}

rlx_expr_t* rlx_topi_simplify_dim(rlx_ctx_t* ctx, rlx_expr_t* e) {
  if (!e || e->kind == RLX_EXPR_INT_IMM || e->kind == RLX_EXPR_VAR) return e;
  nonneg_t nn = {rlx_analyzer_create(ctx)};
  rlx_expr_visit(e, bind_nonneg, &nn);
  return rlx_analyzer_simplify(nn.an, e);
}

void rlx_topi_broadcast_dim(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b, rlx_expr_t** out) {
  int64_t x, y;
  *out = NULL;
  if (is_one(a))
    *out = b;
  else if (is_one(b))
    *out = a;
  else if (rlx_expr_is_const_int(a, &x) && rlx_expr_is_const_int(b, &y))
    *out = x == y ? a : NULL;
  else if (a == b || rlx_ir_prove_equal(ctx, a, b))
    *out = a;
}

static void print_dim(rlx_strbuf_t* sb, const rlx_expr_t* e) {
  int64_t v;
  if (rlx_expr_is_const_int(e, &v))
    rlx_strbuf_printf(sb, "%lld", (long long)v);
  else if (e->kind == RLX_EXPR_VAR)
    rlx_strbuf_append(sb, RLX_AS(const rlx_var_t, e)->name);
  else
    rlx_strbuf_append(sb, "<expr>");
}

const char* rlx_topi_shape_str(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape) {
  rlx_strbuf_t sb = {0};
  rlx_strbuf_append(&sb, "(");
  for (int i = 0; i < ndim; i++) {
    if (i) rlx_strbuf_append(&sb, ", ");
    print_dim(&sb, shape[i]);
  }
  rlx_strbuf_append(&sb, ndim == 1 ? ",)" : ")");
  const char* s = rlx_ctx_strdup(ctx, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return s;
}

RLX_MUST_USE rlx_status_t* rlx_topi_broadcast_shape(rlx_ctx_t* ctx, const char* op, int na, rlx_expr_t* const* a, int nb,
                                       rlx_expr_t* const* b, int* out_ndim, rlx_expr_t*** out_shape) {
  int n = na > nb ? na : nb;
  rlx_expr_t** s = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int i = 0; i < n; i++) {
    int ia = i - (n - na), ib = i - (n - nb);
    if (ia < 0)
      s[i] = b[ib];
    else if (ib < 0)
      s[i] = a[ia];
    else {
      rlx_topi_broadcast_dim(ctx, a[ia], b[ib], &s[i]);
      if (!s[i])
        return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: cannot broadcast %s and %s", op,
                                 rlx_topi_shape_str(ctx, na, a), rlx_topi_shape_str(ctx, nb, b));
    }
  }
  *out_ndim = n;
  *out_shape = s;
  return NULL;
}

rlx_expr_t* rlx_topi_broadcast_load(rlx_ctx_t* ctx, rlx_te_tensor_t* t, int out_ndim, rlx_expr_t* const* out_shape,
                                    rlx_var_t* const* idx) {
  int n = t->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) {
    int od = d + out_ndim - n;
    bool bcast = is_one(t->buffer->shape[d]) && !(out_shape && is_one(out_shape[od]));
    ix[d] = bcast ? rlx_ir_int(ctx, idx[od]->hdr.dtype, 0) : &idx[od]->hdr;
  }
  return rlx_te_load(ctx, t, n, ix);
}

const char* const* rlx_topi_axis_names(rlx_ctx_t* ctx, int ndim, const char* prefix) {
  const char** names = RLX_NEW_ARRAY(ctx, const char*, ndim);
  for (int d = 0; d < ndim; d++) names[d] = rlx_ctx_sprintf(ctx, "%s%d", prefix, d);
  return names;
}

/* ------------------------------------------------------------------ binary */
static const char* const binary_names[] = {
#define X(E, N, B) N,
    RLX_TOPI_BINARY_OPS(X)
#undef X
};
static const bool binary_bool[] = {
#define X(E, N, B) B,
    RLX_TOPI_BINARY_OPS(X)
#undef X
};
_Static_assert(sizeof(binary_names) / sizeof(binary_names[0]) == RLX_TOPI_BINARY_COUNT, "binary table");

const char* rlx_topi_binary_name(rlx_topi_binary_t op) {
  return (unsigned)op < RLX_TOPI_BINARY_COUNT ? binary_names[op] : "?";
}
bool rlx_topi_binary_is_bool(rlx_topi_binary_t op) { return (unsigned)op < RLX_TOPI_BINARY_COUNT && binary_bool[op]; }
bool rlx_topi_binary_int_only(rlx_topi_binary_t op) {
  return op == RLX_TOPI_BITWISE_AND || op == RLX_TOPI_BITWISE_OR || op == RLX_TOPI_BITWISE_XOR ||
         op == RLX_TOPI_LEFT_SHIFT || op == RLX_TOPI_RIGHT_SHIFT;
}

typedef struct {
  rlx_topi_binary_t op;
  rlx_te_tensor_t* a;
  rlx_te_tensor_t* b;
  rlx_te_tensor_t* c;
  int ndim;
  rlx_expr_t** shape; /* the output's */
  rlx_expr_t* sa; /* binary with a scalar: used instead of a (or b) when set */
  rlx_expr_t* sb;
} bin_user_t;

static rlx_expr_t* truthy(rlx_ctx_t* ctx, rlx_expr_t* v) {
  if (rlx_dtype_is_bool(v->dtype)) return v;
  rlx_expr_t* zero = rlx_dtype_is_float(v->dtype) ? rlx_ir_float(ctx, v->dtype, 0) : rlx_ir_int(ctx, v->dtype, 0);
  return rlx_ir_cmp(ctx, RLX_EXPR_NE, v, zero);
}

static rlx_expr_t* binary_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  bin_user_t* u = user;
  rlx_expr_t* x = u->sa ? u->sa : rlx_topi_broadcast_load(ctx, u->a, u->ndim, u->shape, idx);
  rlx_expr_t* y = u->sb ? u->sb : rlx_topi_broadcast_load(ctx, u->b, u->ndim, u->shape, idx);
  bool fl = rlx_dtype_is_float(x->dtype);
  switch (u->op) {
    case RLX_TOPI_ADD:
      return rlx_ir_add(ctx, x, y);
    case RLX_TOPI_SUBTRACT:
      return rlx_ir_sub(ctx, x, y);
    case RLX_TOPI_MULTIPLY:
      return rlx_ir_mul(ctx, x, y);
    case RLX_TOPI_DIVIDE:
      return rlx_ir_div(ctx, x, y);
    case RLX_TOPI_FLOOR_DIVIDE: {
      if (!fl) return rlx_ir_floordiv(ctx, x, y);
      rlx_expr_t* q = rlx_ir_div(ctx, x, y);
      return rlx_ir_call(ctx, x->dtype, "floor", 1, &q);
    }
    case RLX_TOPI_POWER:
      return rlx_ir_call(ctx, x->dtype, "pow", 2, (rlx_expr_t*[]){x, y});
    case RLX_TOPI_MAXIMUM:
      return rlx_ir_max(ctx, x, y);
    case RLX_TOPI_MINIMUM:
      return rlx_ir_min(ctx, x, y);
    case RLX_TOPI_EQUAL:
      return rlx_ir_cmp(ctx, RLX_EXPR_EQ, x, y);
    case RLX_TOPI_NOT_EQUAL:
      return rlx_ir_cmp(ctx, RLX_EXPR_NE, x, y);
    case RLX_TOPI_LESS:
      return rlx_ir_cmp(ctx, RLX_EXPR_LT, x, y);
    case RLX_TOPI_LESS_EQUAL:
      return rlx_ir_cmp(ctx, RLX_EXPR_LE, x, y);
    case RLX_TOPI_GREATER: /* x > y written y < x, as TVM's topi builds it */
      return rlx_ir_cmp(ctx, RLX_EXPR_LT, y, x);
    case RLX_TOPI_GREATER_EQUAL:
      return rlx_ir_cmp(ctx, RLX_EXPR_LE, y, x);
    case RLX_TOPI_LOGICAL_AND:
      return rlx_ir_and(ctx, truthy(ctx, x), truthy(ctx, y));
    case RLX_TOPI_LOGICAL_OR:
      return rlx_ir_or(ctx, truthy(ctx, x), truthy(ctx, y));
    case RLX_TOPI_LOGICAL_XOR:
      return rlx_ir_cmp(ctx, RLX_EXPR_NE, truthy(ctx, x), truthy(ctx, y));
    case RLX_TOPI_MOD:
      if (fl) return rlx_ir_call(ctx, x->dtype, "fmod", 2, (rlx_expr_t*[]){x, y});
      return rlx_ir_binary(ctx, RLX_EXPR_MOD, x, y);
    case RLX_TOPI_FLOOR_MOD: {
      if (!fl) return rlx_ir_floormod(ctx, x, y);
      rlx_expr_t* q = rlx_ir_div(ctx, x, y);
      return rlx_ir_sub(ctx, x, rlx_ir_mul(ctx, rlx_ir_call(ctx, x->dtype, "floor", 1, &q), y));
    }
    case RLX_TOPI_BITWISE_AND:
    case RLX_TOPI_BITWISE_OR:
    case RLX_TOPI_BITWISE_XOR: {
      if (rlx_dtype_is_bool(x->dtype))
        return u->op == RLX_TOPI_BITWISE_AND  ? rlx_ir_and(ctx, x, y)
               : u->op == RLX_TOPI_BITWISE_OR ? rlx_ir_or(ctx, x, y)
                                              : rlx_ir_cmp(ctx, RLX_EXPR_NE, x, y);
      const char* f = u->op == RLX_TOPI_BITWISE_AND  ? "bitwise_and"
                      : u->op == RLX_TOPI_BITWISE_OR ? "bitwise_or"
                                                     : "bitwise_xor";
      return rlx_ir_call(ctx, x->dtype, f, 2, (rlx_expr_t*[]){x, y});
    }
    case RLX_TOPI_LEFT_SHIFT:
    case RLX_TOPI_RIGHT_SHIFT:
      return rlx_ir_call(ctx, x->dtype, u->op == RLX_TOPI_LEFT_SHIFT ? "shift_left" : "shift_right", 2,
                         (rlx_expr_t*[]){x, y});
    case RLX_TOPI_BINARY_COUNT:
      break;
  }
  return x;
}

RLX_MUST_USE rlx_status_t* rlx_topi_binary(rlx_ctx_t* ctx, rlx_topi_binary_t op, rlx_te_tensor_t* a, rlx_te_tensor_t* b,
                                           rlx_te_tensor_t** out) {
  if ((unsigned)op >= RLX_TOPI_BINARY_COUNT || !a || !b)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.binary: bad op or NULL input");
  const char* name = binary_names[op];
  bool logical = op == RLX_TOPI_LOGICAL_AND || op == RLX_TOPI_LOGICAL_OR || op == RLX_TOPI_LOGICAL_XOR;
  if (rlx_topi_binary_int_only(op) && rlx_dtype_is_float(a->buffer->dtype)) {
    char x[32];
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.%s: needs int or bool tensors, got %s", name,
                             rlx_dtype_str(a->buffer->dtype, x));
  }
  if (!logical && !rlx_dtype_eq(a->buffer->dtype, b->buffer->dtype)) {
    char x[32], y[32];
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.%s: operand dtypes differ: %s and %s", name,
                             rlx_dtype_str(a->buffer->dtype, x), rlx_dtype_str(b->buffer->dtype, y));
  }
  int n = 0;
  rlx_expr_t** shape = NULL;
  RLX_RETURN_IF_ERROR(rlx_topi_broadcast_shape(ctx, rlx_ctx_sprintf(ctx, "topi.%s", name), a->buffer->ndim,
                                               a->buffer->shape, b->buffer->ndim, b->buffer->shape, &n, &shape));
  bin_user_t* u = RLX_NEW(ctx, bin_user_t);
  u->op = op;
  u->a = a;
  u->b = b;
  u->ndim = n;
  u->shape = shape;
  *out = rlx_te_compute_named(ctx, n, shape, binary_body, u, rlx_ctx_sprintf(ctx, "T_%s", name), "broadcast",
                              rlx_topi_axis_names(ctx, n, "ax"));
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_topi_binary_scalar(rlx_ctx_t* ctx, rlx_topi_binary_t op, rlx_te_tensor_t* x,
                                                  rlx_expr_t* scalar, bool scalar_first, rlx_te_tensor_t** out) {
  if ((unsigned)op >= RLX_TOPI_BINARY_COUNT || !x || !scalar || scalar->dtype.lanes != 1)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.binary: bad op, NULL input or non-scalar value");
  rlx_dtype_t t = x->buffer->dtype;
  bool logical = op == RLX_TOPI_LOGICAL_AND || op == RLX_TOPI_LOGICAL_OR || op == RLX_TOPI_LOGICAL_XOR;
  if (rlx_topi_binary_int_only(op) && rlx_dtype_is_float(t)) {
    char b[32];
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.%s: needs int or bool tensors, got %s", binary_names[op],
                             rlx_dtype_str(t, b));
  }
  if (!logical && !rlx_dtype_eq(scalar->dtype, t)) {
    if (scalar->kind != RLX_EXPR_INT_IMM && scalar->kind != RLX_EXPR_FLOAT_IMM) {
      char a[32], b[32];
      return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.%s: operand dtypes differ: %s and %s", binary_names[op],
                               rlx_dtype_str(t, a), rlx_dtype_str(scalar->dtype, b));
    }
    scalar = rlx_ir_cast(ctx, t, scalar); /* a constant takes the tensor's dtype */
  }
  bin_user_t* u = RLX_NEW(ctx, bin_user_t);
  u->op = op;
  u->a = x;
  u->b = x;
  if (scalar_first)
    u->sa = scalar;
  else
    u->sb = scalar;
  u->ndim = x->buffer->ndim;
  u->shape = x->buffer->shape;
  *out = rlx_te_compute_named(ctx, u->ndim, x->buffer->shape, binary_body, u,
                              rlx_ctx_sprintf(ctx, "T_%s", binary_names[op]), "elemwise",
                              rlx_topi_axis_names(ctx, u->ndim, "ax"));
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_topi_add(rlx_ctx_t* ctx, rlx_te_tensor_t* a, rlx_te_tensor_t* b, rlx_te_tensor_t** out) {
  return rlx_topi_binary(ctx, RLX_TOPI_ADD, a, b, out);
}

static rlx_expr_t* where_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  bin_user_t* u = user;
  rlx_expr_t* c = truthy(ctx, rlx_topi_broadcast_load(ctx, u->c, u->ndim, u->shape, idx));
  return rlx_ir_select(ctx, c, rlx_topi_broadcast_load(ctx, u->a, u->ndim, u->shape, idx),
                       rlx_topi_broadcast_load(ctx, u->b, u->ndim, u->shape, idx));
}

RLX_MUST_USE rlx_status_t* rlx_topi_where(rlx_ctx_t* ctx, rlx_te_tensor_t* cond, rlx_te_tensor_t* x, rlx_te_tensor_t* y,
                                          rlx_te_tensor_t** out) {
  if (!cond || !x || !y) return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.where: NULL input");
  if (!rlx_dtype_eq(x->buffer->dtype, y->buffer->dtype)) {
    char a[32], b[32];
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.where: x and y dtypes differ: %s and %s",
                             rlx_dtype_str(x->buffer->dtype, a), rlx_dtype_str(y->buffer->dtype, b));
  }
  int n1 = 0, n = 0;
  rlx_expr_t **s1 = NULL, **s = NULL;
  rlx_status_t* st = rlx_topi_broadcast_shape(ctx, "topi.where", x->buffer->ndim, x->buffer->shape, y->buffer->ndim,
                                              y->buffer->shape, &n1, &s1);
  if (!st) st = rlx_topi_broadcast_shape(ctx, "topi.where", cond->buffer->ndim, cond->buffer->shape, n1, s1, &n, &s);
  if (st) return st;
  bin_user_t* u = RLX_NEW(ctx, bin_user_t);
  u->a = x;
  u->b = y;
  u->c = cond;
  u->ndim = n;
  u->shape = s;
  *out = rlx_te_compute_named(ctx, n, s, where_body, u, "T_where", "broadcast", rlx_topi_axis_names(ctx, n, "ax"));
  return NULL;
}

static rlx_expr_t* bto_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  bin_user_t* u = user;
  return rlx_topi_broadcast_load(ctx, u->a, u->ndim, u->shape, idx);
}

RLX_MUST_USE rlx_status_t* rlx_topi_broadcast_to(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int ndim, rlx_expr_t* const* shape,
                                                 rlx_te_tensor_t** out) {
  if (!x || ndim < x->buffer->ndim)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.broadcast_to: cannot broadcast rank %d to rank %d",
                             x ? x->buffer->ndim : -1, ndim);
  int xn = x->buffer->ndim;
  for (int d = 0; d < xn; d++) {
    rlx_expr_t* xd = x->buffer->shape[d];
    rlx_expr_t* td = shape[d + ndim - xn];
    if (is_one(xd) || xd == td || rlx_ir_prove_equal(ctx, xd, td)) continue;
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.broadcast_to: cannot broadcast %s to %s",
                             rlx_topi_shape_str(ctx, xn, x->buffer->shape), rlx_topi_shape_str(ctx, ndim, shape));
  }
  bin_user_t* u = RLX_NEW(ctx, bin_user_t);
  u->a = x;
  u->ndim = ndim;
  u->shape = (rlx_expr_t**)shape;
  *out = rlx_te_compute_named(ctx, ndim, shape, bto_body, u, "T_broadcast_to", "broadcast",
                              rlx_topi_axis_names(ctx, ndim, "ax"));
  return NULL;
}
