/* topi shape and index ops: transpose, reshape, expand_dims, squeeze, concat, strided_slice,
 * take, pad (see basic.h). */
#include <stdint.h>
#include <string.h>

#include "basic.h"

static bool is_const(const rlx_expr_t* e, int64_t v) {
  int64_t x;
  return rlx_expr_is_const_int(e, &x) && x == v;
}

static rlx_expr_t* idx_const(rlx_ctx_t* ctx, const rlx_expr_t* like, int64_t v) {
  return rlx_ir_int(ctx, like->dtype, v);
}

/* ------------------------------------------------------------------ transpose */
typedef struct {
  rlx_te_tensor_t* x;
  int64_t* axes;
} perm_user_t;

static rlx_expr_t* transpose_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  perm_user_t* u = user;
  int n = u->x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int i = 0; i < n; i++) ix[u->axes[i]] = &idx[i]->hdr;
  return rlx_te_load(ctx, u->x, n, ix);
}

RLX_MUST_USE rlx_status_t* rlx_topi_transpose(rlx_ctx_t* ctx, rlx_te_tensor_t* x, const int64_t* axes,
                                              rlx_te_tensor_t** out) {
  if (!x) return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.transpose: NULL input");
  int n = x->buffer->ndim;
  perm_user_t* u = RLX_NEW(ctx, perm_user_t);
  u->x = x;
  u->axes = RLX_NEW_ARRAY(ctx, int64_t, n);
  bool* seen = RLX_NEW_ARRAY(ctx, bool, n);
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int i = 0; i < n; i++) {
    int64_t a = axes ? axes[i] : n - 1 - i;
    if (a < -n || a >= n || seen[a < 0 ? a + n : a])
      return rlx_status_create(RLX_INVALID_ARGUMENT,
                               "topi.transpose: axes are not a permutation of rank %d (axis %lld)", n, (long long)a);
    if (a < 0) a += n;
    seen[a] = true;
    u->axes[i] = a;
    shape[i] = x->buffer->shape[a];
  }
  *out = rlx_te_compute_named(ctx, n, shape, transpose_body, u, "T_transpose", "injective",
                              rlx_topi_axis_names(ctx, n, "ax"));
  return NULL;
}

/* ------------------------------------------------------------------ reshape */
typedef struct {
  rlx_te_tensor_t* x;
  int ndim;
  rlx_expr_t** shape;
  const int64_t* axes; /* expand_dims: output positions that are new; squeeze: input dims dropped */
  bool* mask;
} reshape_user_t;

static rlx_expr_t* reshape_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  reshape_user_t* u = user;
  rlx_dtype_t i64 = rlx_dt_int64();
  rlx_expr_t* lin = rlx_ir_i64(ctx, 0);
  for (int d = 0; d < u->ndim; d++)
    lin =
        rlx_ir_add(ctx, rlx_ir_mul(ctx, lin, rlx_ir_cast(ctx, i64, u->shape[d])), rlx_ir_cast(ctx, i64, &idx[d]->hdr));
  int n = u->x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = n - 1; d >= 0; d--) {
    rlx_expr_t* ext = rlx_ir_cast(ctx, i64, u->x->buffer->shape[d]);
    rlx_expr_t* v = d == 0 ? lin : rlx_ir_floormod(ctx, lin, ext);
    ix[d] = rlx_ir_cast(ctx, u->x->buffer->shape[d]->dtype, v);
    if (d) lin = rlx_ir_floordiv(ctx, lin, ext);
  }
  return rlx_te_load(ctx, u->x, n, ix);
}

RLX_MUST_USE rlx_status_t* rlx_topi_reshape(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int ndim, rlx_expr_t* const* shape,
                                            rlx_te_tensor_t** out) {
  if (!x || ndim < 0 || (ndim && !shape))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.reshape: NULL input or bad shape");
  int64_t a = 1, b = 1, v;
  bool ca = true, cb = true;
  for (int d = 0; d < x->buffer->ndim; d++) ca = ca && rlx_expr_is_const_int(x->buffer->shape[d], &v) && (a *= v, true);
  for (int d = 0; d < ndim; d++) cb = cb && rlx_expr_is_const_int(shape[d], &v) && (b *= v, true);
  if (ca && cb && a != b)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.reshape: cannot reshape %s (%lld elements) to %s",
                             rlx_topi_shape_str(ctx, x->buffer->ndim, x->buffer->shape), (long long)a,
                             rlx_topi_shape_str(ctx, ndim, shape));
  reshape_user_t* u = RLX_NEW(ctx, reshape_user_t);
  u->x = x;
  u->ndim = ndim;
  u->shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, ndim);
  for (int d = 0; d < ndim; d++) u->shape[d] = shape[d];
  *out = rlx_te_compute_named(ctx, ndim, u->shape, reshape_body, u, "T_reshape", "injective",
                              rlx_topi_axis_names(ctx, ndim, "ax"));
  return NULL;
}

/* ------------------------------------------------------------------ expand_dims / squeeze */
static rlx_expr_t* expand_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  reshape_user_t* u = user;
  int n = u->x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  int k = 0;
  for (int d = 0; d < u->ndim; d++)
    if (!u->mask[d]) ix[k++] = &idx[d]->hdr;
  return rlx_te_load(ctx, u->x, n, ix);
}

RLX_MUST_USE rlx_status_t* rlx_topi_expand_dims(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int n_axes, const int64_t* axes,
                                                rlx_te_tensor_t** out) {
  if (!x || n_axes < 0 || (n_axes && !axes))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.expand_dims: NULL input or axes");
  int n = x->buffer->ndim, on = n + n_axes;
  bool* mask = RLX_NEW_ARRAY(ctx, bool, on);
  for (int i = 0; i < n_axes; i++) {
    int64_t a = axes[i];
    if (a < -on || a >= on)
      return rlx_status_create(RLX_INVALID_ARGUMENT,
                               "topi.expand_dims: axis %lld is out of range for an output of rank %d", (long long)a,
                               on);
    if (a < 0) a += on;
    if (mask[a])
      return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.expand_dims: axis %lld is repeated", (long long)axes[i]);
    mask[a] = true;
  }
  reshape_user_t* u = RLX_NEW(ctx, reshape_user_t);
  u->x = x;
  u->ndim = on;
  u->mask = mask;
  u->shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, on);
  for (int d = 0, k = 0; d < on; d++) u->shape[d] = mask[d] ? rlx_ir_i64(ctx, 1) : x->buffer->shape[k++];
  *out = rlx_te_compute_named(ctx, on, u->shape, expand_body, u, "T_expand_dims", "injective",
                              rlx_topi_axis_names(ctx, on, "ax"));
  return NULL;
}

static rlx_expr_t* squeeze_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  reshape_user_t* u = user;
  int n = u->x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  int k = 0;
  for (int d = 0; d < n; d++) ix[d] = u->mask[d] ? idx_const(ctx, u->x->buffer->shape[d], 0) : &idx[k++]->hdr;
  return rlx_te_load(ctx, u->x, n, ix);
}

RLX_MUST_USE rlx_status_t* rlx_topi_squeeze(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int n_axes, const int64_t* axes,
                                            rlx_te_tensor_t** out) {
  if (!x) return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.squeeze: NULL input");
  int n = x->buffer->ndim;
  bool* mask = RLX_NEW_ARRAY(ctx, bool, n);
  if (axes) {
    rlx_status_t* st = rlx_topi_reduce_axes("topi.squeeze", n, n_axes, axes, mask);
    if (st) return st;
    for (int d = 0; d < n; d++)
      if (mask[d] && rlx_expr_is_const_int(x->buffer->shape[d], NULL) && !is_const(x->buffer->shape[d], 1))
        return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.squeeze: dim %d of %s is not 1", d,
                                 rlx_topi_shape_str(ctx, n, x->buffer->shape));
  } else
    for (int d = 0; d < n; d++) mask[d] = is_const(x->buffer->shape[d], 1);
  reshape_user_t* u = RLX_NEW(ctx, reshape_user_t);
  u->x = x;
  u->mask = mask;
  u->shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++)
    if (!mask[d]) u->shape[u->ndim++] = x->buffer->shape[d];
  *out = rlx_te_compute_named(ctx, u->ndim, u->shape, squeeze_body, u, "T_squeeze", "injective",
                              rlx_topi_axis_names(ctx, u->ndim, "ax"));
  return NULL;
}

/* ------------------------------------------------------------------ concat */
typedef struct {
  int n;
  rlx_te_tensor_t** xs;
  rlx_expr_t** offsets; /* start of each input along axis */
  int axis;
} concat_user_t;

static rlx_expr_t* concat_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  concat_user_t* u = user;
  int nd = u->xs[0]->buffer->ndim;
  rlx_expr_t* v = NULL;
  for (int k = u->n - 1; k >= 0; k--) {
    rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, nd);
    for (int d = 0; d < nd; d++) ix[d] = &idx[d]->hdr;
    rlx_expr_t* ia = &idx[u->axis]->hdr;
    ix[u->axis] = rlx_ir_sub(ctx, ia, rlx_ir_cast(ctx, ia->dtype, u->offsets[k]));
    rlx_expr_t* load = rlx_te_load(ctx, u->xs[k], nd, ix);
    if (!v)
      v = load;
    else {
      /* if_then_else evaluates only the taken branch: the other load may be out of range */
      rlx_expr_t* c = rlx_ir_cmp(ctx, RLX_EXPR_LT, ia, rlx_ir_cast(ctx, ia->dtype, u->offsets[k + 1]));
      v = rlx_ir_call(ctx, load->dtype, "if_then_else", 3, (rlx_expr_t*[]){c, load, v});
    }
  }
  return v;
}

RLX_MUST_USE rlx_status_t* rlx_topi_concat(rlx_ctx_t* ctx, int n, rlx_te_tensor_t* const* xs, int64_t axis,
                                           rlx_te_tensor_t** out) {
  if (n < 1 || !xs || !xs[0]) return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.concat: needs at least one tensor");
  int nd = xs[0]->buffer->ndim;
  if (axis < -nd || axis >= nd)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.concat: axis %lld is out of range for rank %d",
                             (long long)axis, nd);
  if (axis < 0) axis += nd;
  concat_user_t* u = RLX_NEW(ctx, concat_user_t);
  u->n = n;
  u->axis = (int)axis;
  u->xs = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, n);
  u->offsets = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n + 1);
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, nd);
  rlx_expr_t* off = rlx_ir_i64(ctx, 0);
  for (int k = 0; k < n; k++) {
    rlx_te_tensor_t* t = xs[k];
    if (!t || t->buffer->ndim != nd || !rlx_dtype_eq(t->buffer->dtype, xs[0]->buffer->dtype))
      return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.concat: input %d has another rank or dtype than input 0", k);
    for (int d = 0; d < nd; d++) {
      if (d == axis) continue;
      rlx_expr_t *a = xs[0]->buffer->shape[d], *b = t->buffer->shape[d];
      if (a != b && !rlx_ir_prove_equal(ctx, a, b))
        return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.concat: cannot join %s and %s on axis %d",
                                 rlx_topi_shape_str(ctx, nd, xs[0]->buffer->shape),
                                 rlx_topi_shape_str(ctx, nd, t->buffer->shape), (int)axis);
      shape[d] = a;
    }
    u->xs[k] = t;
    u->offsets[k] = off;
    off = rlx_topi_simplify_dim(ctx, rlx_ir_add(ctx, off, rlx_ir_cast(ctx, rlx_dt_int64(), t->buffer->shape[axis])));
  }
  u->offsets[n] = off;
  shape[axis] = off;
  *out =
      rlx_te_compute_named(ctx, nd, shape, concat_body, u, "T_concat", "injective", rlx_topi_axis_names(ctx, nd, "ax"));
  return NULL;
}

/* ------------------------------------------------------------------ strided_slice */
rlx_expr_t* rlx_topi_slice_extent(rlx_ctx_t* ctx, rlx_expr_t* n, int64_t begin, int64_t end, int64_t stride,
                                  rlx_expr_t** out_begin) {
  rlx_expr_t* n64 = rlx_ir_cast(ctx, rlx_dt_int64(), n);
  rlx_expr_t* zero = rlx_ir_i64(ctx, 0);
  rlx_expr_t* b;
  rlx_expr_t* e;
  if (stride > 0) {
    /* begin, end in [0, n] */
    b = begin < 0 ? rlx_ir_max(ctx, rlx_ir_add(ctx, n64, rlx_ir_i64(ctx, begin)), zero)
                  : rlx_ir_min(ctx, rlx_ir_i64(ctx, begin), n64);
    e = end == INT64_MAX ? n64
        : end < 0        ? rlx_ir_max(ctx, rlx_ir_add(ctx, n64, rlx_ir_i64(ctx, end)), zero)
                         : rlx_ir_min(ctx, rlx_ir_i64(ctx, end), n64);
  } else {
    /* begin in [-1, n-1], end in [-1, n-1] (-1 = before the start) */
    rlx_expr_t* m1 = rlx_ir_i64(ctx, -1);
    rlx_expr_t* last = rlx_ir_sub(ctx, n64, rlx_ir_i64(ctx, 1));
    b = begin == INT64_MAX ? last
        : begin < 0        ? rlx_ir_max(ctx, rlx_ir_add(ctx, n64, rlx_ir_i64(ctx, begin)), m1)
                           : rlx_ir_min(ctx, rlx_ir_i64(ctx, begin), last);
    e = end == INT64_MIN ? m1
        : end < 0        ? rlx_ir_max(ctx, rlx_ir_add(ctx, n64, rlx_ir_i64(ctx, end)), m1)
                         : rlx_ir_min(ctx, rlx_ir_i64(ctx, end), last);
  }
  b = rlx_topi_simplify_dim(ctx, b);
  e = rlx_topi_simplify_dim(ctx, e);
  rlx_expr_t* ext;
  if (stride > 0) /* ceil((e - b) / s), at least 0 */
    ext = rlx_ir_floordiv(ctx, rlx_ir_add(ctx, rlx_ir_sub(ctx, e, b), rlx_ir_i64(ctx, stride - 1)),
                          rlx_ir_i64(ctx, stride));
  else
    ext = rlx_ir_floordiv(ctx, rlx_ir_add(ctx, rlx_ir_sub(ctx, b, e), rlx_ir_i64(ctx, -stride - 1)),
                          rlx_ir_i64(ctx, -stride));
  ext = rlx_topi_simplify_dim(ctx, rlx_ir_max(ctx, ext, zero));
  if (out_begin) *out_begin = b;
  return ext;
}

typedef struct {
  rlx_te_tensor_t* x;
  rlx_expr_t** begin; /* per dim */
  int64_t* stride;    /* per dim */
} slice_user_t;

static rlx_expr_t* slice_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  slice_user_t* u = user;
  int n = u->x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) {
    rlx_expr_t* i = &idx[d]->hdr;
    if (!u->begin[d])
      ix[d] = i;
    else
      ix[d] =
          rlx_ir_cast(ctx, i->dtype,
                      rlx_ir_add(ctx, u->begin[d],
                                 rlx_ir_mul(ctx, rlx_ir_cast(ctx, rlx_dt_int64(), i), rlx_ir_i64(ctx, u->stride[d]))));
  }
  return rlx_te_load(ctx, u->x, n, ix);
}

RLX_MUST_USE rlx_status_t* rlx_topi_strided_slice(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int n_axes, const int64_t* axes,
                                                  const int64_t* begin, const int64_t* end, const int64_t* strides,
                                                  rlx_te_tensor_t** out) {
  if (!x || n_axes < 0 || (n_axes && (!axes || !begin || !end)))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.strided_slice: NULL input, axes, begin or end");
  int n = x->buffer->ndim;
  slice_user_t* u = RLX_NEW(ctx, slice_user_t);
  u->x = x;
  u->begin = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  u->stride = RLX_NEW_ARRAY(ctx, int64_t, n);
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) shape[d] = x->buffer->shape[d];
  for (int i = 0; i < n_axes; i++) {
    int64_t a = axes[i], s = strides ? strides[i] : 1;
    if (a < -n || a >= n)
      return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.strided_slice: axis %lld is out of range for rank %d",
                               (long long)a, n);
    if (a < 0) a += n;
    if (u->begin[a])
      return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.strided_slice: axis %lld is repeated", (long long)a);
    if (s == 0)
      return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.strided_slice: stride 0 on axis %lld", (long long)a);
    rlx_expr_t* ext = rlx_topi_slice_extent(ctx, x->buffer->shape[a], begin[i], end[i], s, &u->begin[a]);
    shape[a] = rlx_ir_cast(ctx, x->buffer->shape[a]->dtype, ext);
    u->stride[a] = s;
  }
  *out = rlx_te_compute_named(ctx, n, shape, slice_body, u, "T_strided_slice", "injective",
                              rlx_topi_axis_names(ctx, n, "ax"));
  return NULL;
}

/* ------------------------------------------------------------------ take */
typedef struct {
  rlx_te_tensor_t* x;
  rlx_te_tensor_t* indices;
  bool has_axis;
  int axis;
  int mode; /* 0 fast, 1 clip, 2 wrap */
} take_user_t;

static rlx_expr_t* take_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  take_user_t* u = user;
  int xn = u->x->buffer->ndim, in = u->indices->buffer->ndim;
  rlx_dtype_t i64 = rlx_dt_int64();
  int off = u->has_axis ? u->axis : 0;
  rlx_expr_t** ii = RLX_NEW_ARRAY(ctx, rlx_expr_t*, in);
  for (int d = 0; d < in; d++) ii[d] = &idx[off + d]->hdr;
  rlx_expr_t* k = rlx_ir_cast(ctx, i64, rlx_te_load(ctx, u->indices, in, ii));
  /* the extent k indexes: x's axis, or the flattened size */
  rlx_expr_t* ext = rlx_ir_i64(ctx, 1);
  if (u->has_axis)
    ext = rlx_ir_cast(ctx, i64, u->x->buffer->shape[u->axis]);
  else
    for (int d = 0; d < xn; d++) ext = rlx_ir_mul(ctx, ext, rlx_ir_cast(ctx, i64, u->x->buffer->shape[d]));
  if (u->mode == 1)
    k = rlx_ir_min(ctx, rlx_ir_max(ctx, k, rlx_ir_i64(ctx, 0)), rlx_ir_sub(ctx, ext, rlx_ir_i64(ctx, 1)));
  else if (u->mode == 2)
    k = rlx_ir_floormod(ctx, k, ext);
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, xn);
  if (u->has_axis) {
    for (int d = 0; d < u->axis; d++) ix[d] = &idx[d]->hdr;
    ix[u->axis] = rlx_ir_cast(ctx, u->x->buffer->shape[u->axis]->dtype, k);
    for (int d = u->axis + 1; d < xn; d++) ix[d] = &idx[d - 1 + in]->hdr;
  } else
    for (int d = xn - 1; d >= 0; d--) {
      rlx_expr_t* e = rlx_ir_cast(ctx, i64, u->x->buffer->shape[d]);
      ix[d] = rlx_ir_cast(ctx, u->x->buffer->shape[d]->dtype, d == 0 ? k : rlx_ir_floormod(ctx, k, e));
      if (d) k = rlx_ir_floordiv(ctx, k, e);
    }
  return rlx_te_load(ctx, u->x, xn, ix);
}

RLX_MUST_USE rlx_status_t* rlx_topi_take(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* indices, bool has_axis,
                                         int64_t axis, const char* mode, rlx_te_tensor_t** out) {
  if (!x || !indices) return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.take: NULL input");
  rlx_dtype_t it = indices->buffer->dtype;
  if (it.code != RLX_DT_INT || (it.bits != 32 && it.bits != 64)) {
    char b[32];
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.take: indices must be int32 or int64, got %s",
                             rlx_dtype_str(it, b));
  }
  int xn = x->buffer->ndim, in = indices->buffer->ndim;
  if (has_axis && (axis < -xn || axis >= xn))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.take: axis %lld is out of range for rank %d", (long long)axis,
                             xn);
  if (has_axis && axis < 0) axis += xn;
  int m = !mode || strcmp(mode, "fast") == 0 ? 0 : strcmp(mode, "clip") == 0 ? 1 : strcmp(mode, "wrap") == 0 ? 2 : -1;
  if (m < 0) return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.take: mode '%s' is not fast, clip or wrap", mode);
  take_user_t* u = RLX_NEW(ctx, take_user_t);
  u->x = x;
  u->indices = indices;
  u->has_axis = has_axis;
  u->axis = (int)axis;
  u->mode = m;
  int on = has_axis ? xn - 1 + in : in;
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, on);
  int k = 0;
  if (has_axis)
    for (int d = 0; d < axis; d++) shape[k++] = x->buffer->shape[d];
  for (int d = 0; d < in; d++) shape[k++] = indices->buffer->shape[d];
  if (has_axis)
    for (int d = (int)axis + 1; d < xn; d++) shape[k++] = x->buffer->shape[d];
  *out = rlx_te_compute_named(ctx, on, shape, take_body, u, "T_take", "injective", rlx_topi_axis_names(ctx, on, "ax"));
  return NULL;
}

/* ------------------------------------------------------------------ pad */
typedef struct {
  rlx_te_tensor_t* x;
  const int64_t* pad;
  double value;
} pad_user_t;

static rlx_expr_t* pad_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  pad_user_t* u = user;
  int n = u->x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  rlx_expr_t* inside = NULL;
  for (int d = 0; d < n; d++) {
    rlx_expr_t* i = &idx[d]->hdr;
    int64_t before = u->pad[2 * d], after = u->pad[2 * d + 1];
    ix[d] = rlx_ir_sub(ctx, i, rlx_ir_int(ctx, i->dtype, before));
    rlx_expr_t* c = NULL;
    if (before > 0) c = rlx_ir_cmp(ctx, RLX_EXPR_GE, i, rlx_ir_int(ctx, i->dtype, before));
    if (after > 0) {
      rlx_expr_t* hi = rlx_ir_cmp(
          ctx, RLX_EXPR_LT, i,
          rlx_ir_add(ctx, rlx_ir_cast(ctx, i->dtype, u->x->buffer->shape[d]), rlx_ir_int(ctx, i->dtype, before)));
      c = c ? rlx_ir_and(ctx, c, hi) : hi;
    }
    if (c) inside = inside ? rlx_ir_and(ctx, inside, c) : c;
  }
  rlx_expr_t* v = rlx_te_load(ctx, u->x, n, ix);
  if (!inside) return v;
  rlx_dtype_t t = v->dtype;
  rlx_expr_t* pv = rlx_dtype_is_float(t)  ? rlx_ir_float(ctx, t, u->value)
                   : rlx_dtype_is_bool(t) ? rlx_ir_bool(ctx, u->value != 0)
                                          : rlx_ir_int(ctx, t, (int64_t)u->value);
  return rlx_ir_call(ctx, t, "if_then_else", 3, (rlx_expr_t*[]){inside, v, pv});
}

RLX_MUST_USE rlx_status_t* rlx_topi_pad(rlx_ctx_t* ctx, rlx_te_tensor_t* x, const int64_t* pad_width, double value,
                                        rlx_te_tensor_t** out) {
  if (!x || !pad_width) return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.pad: NULL input or pad_width");
  int n = x->buffer->ndim;
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) {
    if (pad_width[2 * d] < 0 || pad_width[2 * d + 1] < 0)
      return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.pad: negative padding on axis %d", d);
    rlx_expr_t* s = x->buffer->shape[d];
    shape[d] = rlx_topi_simplify_dim(
        ctx, rlx_ir_add(ctx, s, rlx_ir_int(ctx, s->dtype, pad_width[2 * d] + pad_width[2 * d + 1])));
  }
  pad_user_t* u = RLX_NEW(ctx, pad_user_t);
  u->x = x;
  int64_t* pw = RLX_NEW_ARRAY(ctx, int64_t, 2 * n);
  for (int i = 0; i < 2 * n; i++) pw[i] = pad_width[i];
  u->pad = pw;
  u->value = value;
  *out = rlx_te_compute_named(ctx, n, shape, pad_body, u, "T_pad", "injective", rlx_topi_axis_names(ctx, n, "ax"));
  return NULL;
}

/* ------------------------------------------------------------------ split */
RLX_MUST_USE rlx_status_t* rlx_topi_split_ranges(rlx_ctx_t* ctx, rlx_expr_t* dim, int64_t sections, int n_indices,
                                    const int64_t* indices, int* out_n, rlx_expr_t*** out_begins,
                                    rlx_expr_t*** out_extents) {
  rlx_expr_t* n = rlx_ir_cast(ctx, rlx_dt_int64(), dim);
  int count = indices ? n_indices + 1 : (int)sections;
  if (!indices && (sections < 1 || sections > 1 << 20))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "split: the number of sections must be positive, got %lld",
                             (long long)sections);
  for (int i = 1; indices && i < n_indices; i++)
    if (indices[i] < indices[i - 1]) return rlx_status_create(RLX_INVALID_ARGUMENT, "split: indices must be ascending");
  rlx_expr_t** begins = RLX_NEW_ARRAY(ctx, rlx_expr_t*, count);
  rlx_expr_t** exts = RLX_NEW_ARRAY(ctx, rlx_expr_t*, count);
  rlx_expr_t* zero = rlx_ir_i64(ctx, 0);
  if (!indices) {
    /* numpy-style ceil-sized pieces: size = ceil(n / s), the last one takes the rest */
    rlx_expr_t* size = rlx_topi_simplify_dim(
        ctx, rlx_ir_floordiv(ctx, rlx_ir_add(ctx, n, rlx_ir_i64(ctx, sections - 1)), rlx_ir_i64(ctx, sections)));
    for (int k = 0; k < count; k++) {
      rlx_expr_t* b = rlx_ir_mul(ctx, size, rlx_ir_i64(ctx, k));
      rlx_expr_t* e = k == count - 1 ? rlx_ir_sub(ctx, n, b) : size;
      int64_t c;
      if (!rlx_expr_is_const_int(rlx_topi_simplify_dim(ctx, n), &c))
        e = rlx_ir_max(ctx, rlx_ir_min(ctx, e, rlx_ir_sub(ctx, n, b)), zero);
      begins[k] = rlx_topi_simplify_dim(ctx, b);
      exts[k] = rlx_topi_simplify_dim(ctx, e);
      if (rlx_expr_is_const_int(exts[k], &c) && c < 0) exts[k] = zero;
    }
  } else {
    for (int k = 0; k < count; k++) {
      rlx_expr_t* b = k == 0 ? zero : rlx_ir_min(ctx, rlx_ir_i64(ctx, indices[k - 1] < 0 ? 0 : indices[k - 1]), n);
      rlx_expr_t* e = k == count - 1 ? n : rlx_ir_min(ctx, rlx_ir_i64(ctx, indices[k] < 0 ? 0 : indices[k]), n);
      begins[k] = rlx_topi_simplify_dim(ctx, b);
      exts[k] = rlx_topi_simplify_dim(ctx, rlx_ir_max(ctx, rlx_ir_sub(ctx, e, b), zero));
    }
  }
  *out_n = count;
  *out_begins = begins;
  *out_extents = exts;
  return NULL;
}

typedef struct {
  rlx_te_tensor_t* x;
  int axis;
  rlx_expr_t* begin;
} piece_user_t;

static rlx_expr_t* piece_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  piece_user_t* u = user;
  int n = u->x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) ix[d] = &idx[d]->hdr;
  rlx_expr_t* i = ix[u->axis];
  ix[u->axis] = rlx_ir_add(ctx, i, rlx_ir_cast(ctx, i->dtype, u->begin));
  return rlx_te_load(ctx, u->x, n, ix);
}

RLX_MUST_USE rlx_status_t* rlx_topi_split(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int64_t sections, int n_indices,
                                          const int64_t* indices, int64_t axis, int* out_n, rlx_te_tensor_t*** out) {
  if (!x) return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.split: NULL input");
  int nd = x->buffer->ndim;
  if (axis < -nd || axis >= nd)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.split: axis %lld is out of range for rank %d", (long long)axis,
                             nd);
  if (axis < 0) axis += nd;
  int count = 0;
  rlx_expr_t **begins = NULL, **exts = NULL;
  rlx_status_t* st =
      rlx_topi_split_ranges(ctx, x->buffer->shape[axis], sections, n_indices, indices, &count, &begins, &exts);
  if (st) return rlx_status_annotate(st, "topi");
  rlx_te_tensor_t** outs = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, count);
  for (int k = 0; k < count; k++) {
    piece_user_t* u = RLX_NEW(ctx, piece_user_t);
    u->x = x;
    u->axis = (int)axis;
    u->begin = begins[k];
    rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, nd);
    for (int d = 0; d < nd; d++) shape[d] = x->buffer->shape[d];
    shape[axis] = rlx_ir_cast(ctx, x->buffer->shape[axis]->dtype, exts[k]);
    /* TVM's topi: every piece is "T_split_sections" (or "T_split" for indices); the PrimFunc
     * makes the buffer and block names unique (T_split_sections_1, ...) */
    outs[k] = rlx_te_compute_named(ctx, nd, shape, piece_body, u, n_indices > 0 ? "T_split" : "T_split_sections", "injective",
                                   rlx_topi_axis_names(ctx, nd, "ax"));
  }
  *out_n = count;
  *out = outs;
  return NULL;
}

typedef struct {
  rlx_te_tensor_t* x;
  const int64_t* pad;
  bool reflect;
} pad_mode_user_t;

static rlx_expr_t* pad_mode_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  pad_mode_user_t* u = user;
  int n = u->x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) {
    rlx_expr_t* i = &idx[d]->hdr;
    rlx_dtype_t t = i->dtype;
    rlx_expr_t* ext = rlx_ir_cast(ctx, t, u->x->buffer->shape[d]);
    rlx_expr_t* last = rlx_ir_sub(ctx, ext, rlx_ir_int(ctx, t, 1));
    rlx_expr_t* j = rlx_ir_sub(ctx, i, rlx_ir_int(ctx, t, u->pad[2 * d]));
    if (u->pad[2 * d] == 0 && u->pad[2 * d + 1] == 0) {
      ix[d] = i;
      continue;
    }
    if (!u->reflect) { /* edge: the nearest element */
      ix[d] = rlx_ir_min(ctx, rlx_ir_max(ctx, j, rlx_ir_int(ctx, t, 0)), last);
      continue;
    }
    /* reflect (no edge repeat): -j before the start, 2 (n - 1) - j after the end */
    rlx_expr_t* zero = rlx_ir_int(ctx, t, 0);
    rlx_expr_t* a = rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, j, zero), rlx_ir_sub(ctx, zero, j), j);
    ix[d] = rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_GT, a, last),
                          rlx_ir_sub(ctx, rlx_ir_mul(ctx, last, rlx_ir_int(ctx, t, 2)), a), a);
  }
  return rlx_te_load(ctx, u->x, n, ix);
}

RLX_MUST_USE rlx_status_t* rlx_topi_pad_mode(rlx_ctx_t* ctx, rlx_te_tensor_t* x, const int64_t* pad_width,
                                             const char* mode, rlx_te_tensor_t** out) {
  bool reflect = mode && strcmp(mode, "reflect") == 0;
  if (!x || !pad_width || !mode || (!reflect && strcmp(mode, "edge") != 0))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.pad: mode '%s' is not edge or reflect",
                             mode ? mode : "(null)");
  int n = x->buffer->ndim;
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  int64_t* pw = RLX_NEW_ARRAY(ctx, int64_t, 2 * n);
  for (int d = 0; d < n; d++) {
    int64_t b = pad_width[2 * d], a = pad_width[2 * d + 1], ext;
    if (b < 0 || a < 0) return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.pad: negative padding on axis %d", d);
    bool known = rlx_expr_is_const_int(x->buffer->shape[d], &ext);
    if ((b || a) && known && (ext == 0 || (reflect && (b >= ext || a >= ext))))
      return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.pad: %s padding (%lld, %lld) on axis %d of extent %lld",
                               mode, (long long)b, (long long)a, d, (long long)ext);
    pw[2 * d] = b;
    pw[2 * d + 1] = a;
    rlx_expr_t* s = x->buffer->shape[d];
    shape[d] = rlx_topi_simplify_dim(ctx, rlx_ir_add(ctx, s, rlx_ir_int(ctx, s->dtype, a + b)));
  }
  pad_mode_user_t* u = RLX_NEW(ctx, pad_mode_user_t);
  u->x = x;
  u->pad = pw;
  u->reflect = reflect;
  *out = rlx_te_compute_named(ctx, n, shape, pad_mode_body, u, "T_pad", "injective", rlx_topi_axis_names(ctx, n, "ax"));
  return NULL;
}
