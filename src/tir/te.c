/* Tensor expressions: placeholder, compute, reduce axes and reductions.
 *
 * Each TE tensor owns its TIR buffer. To find the tensor back from a buffer met in a compute
 * body (a BufferLoad), TE buffers are allocated inside a te_buffer_t that also holds the
 * tensor and stores the buffer's name inline: a buffer is a TE buffer iff its name pointer
 * points at that inline storage (a pointer comparison, made before anything beyond the
 * buffer is read) and the magic matches.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "rlx/rlx.h"
#include "te.h"

#define TE_MAGIC64 0x726c7854456275ull

typedef struct {
  rlx_tir_buffer_t buf;
  uint64_t magic;
  rlx_te_tensor_t* tensor;
  char name[]; /* buf.name points here */
} te_buffer_t;

rlx_te_tensor_t* rlx_te_tensor_of_buffer(const rlx_tir_buffer_t* b) {
  if (!b) return NULL;
  const te_buffer_t* tb = (const te_buffer_t*)b;
  if (b->name != tb->name) return NULL;
  if (tb->magic != TE_MAGIC64) return NULL;
  return tb->tensor;
}

/* A tensor with its TE buffer (compact, global scope, data var named after the tensor). */
static rlx_te_tensor_t* new_tensor(rlx_ctx_t* ctx, rlx_te_kind_t kind, const char* name, rlx_dtype_t dtype, int ndim,
                                   rlx_expr_t* const* shape) {
  if (!name) name = kind == RLX_TE_PLACEHOLDER ? "placeholder" : "compute";
  size_t len = strlen(name);
  te_buffer_t* tb = rlx_ctx_alloc(ctx, sizeof(te_buffer_t) + len + 1);
  memcpy(tb->name, name, len + 1);
  tb->magic = TE_MAGIC64;
  rlx_tir_buffer_t* b = &tb->buf;
  b->name = tb->name;
  b->data = rlx_ir_var(ctx, name, rlx_dt_handle());
  b->dtype = dtype;
  b->ndim = ndim;
  b->shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, ndim);
  for (int i = 0; i < ndim; i++) b->shape[i] = shape[i];
  b->scope = "global";
  rlx_te_tensor_t* t = RLX_NEW(ctx, rlx_te_tensor_t);
  t->kind = kind;
  t->name = b->name;
  t->buffer = b;
  t->tag = "";
  tb->tensor = t;
  return t;
}

rlx_te_tensor_t* rlx_te_placeholder(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_dtype_t dtype,
                                    const char* name) {
  return new_tensor(ctx, RLX_TE_PLACEHOLDER, name, dtype, ndim, shape);
}

static const char* default_axis_name(rlx_ctx_t* ctx, int d) {
  static const char* const names[] = {"i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t"};
  if (d < (int)(sizeof(names) / sizeof(names[0]))) return names[d];
  return rlx_ctx_sprintf(ctx, "i%d", d);
}

typedef struct {
  RLX_VEC(rlx_tir_buffer_t*) bufs;
} load_collect_t;

static void collect_load(const rlx_expr_t* e, void* user) {
  if (e->kind != RLX_EXPR_BUFFER_LOAD) return;
  load_collect_t* lc = user;
  rlx_tir_buffer_t* b = RLX_AS(const rlx_buffer_load_t, e)->buffer;
  for (int i = 0; i < lc->bufs.len; i++)
    if (lc->bufs.data[i] == b) return;
  rlx_vec_push(&lc->bufs, b);
}

/* The spatial axes of a compute: index vars named after axis_names (or the defaults), of
 * each shape dim's integer dtype (int32 for a non-integer dim). */
static void make_axes(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, const char* const* axis_names,
                      rlx_iter_var_t*** out_axis, rlx_var_t*** out_idx) {
  rlx_iter_var_t** axis = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, ndim);
  rlx_var_t** idx = RLX_NEW_ARRAY(ctx, rlx_var_t*, ndim);
  for (int d = 0; d < ndim; d++) {
    const char* an = axis_names && axis_names[d] ? axis_names[d] : default_axis_name(ctx, d);
    rlx_dtype_t t = rlx_dtype_is_int(shape[d]->dtype) ? shape[d]->dtype : rlx_dt_int32();
    idx[d] = rlx_ir_var(ctx, an, t);
    axis[d] = rlx_tir_iter_var(ctx, idx[d], rlx_ir_int(ctx, t, 0), shape[d], RLX_ITER_SPATIAL);
  }
  *out_axis = axis;
  *out_idx = idx;
}

/* A compute tensor over axis with body (NULL: dtype float32, create_prim_func reports it). */
static rlx_te_tensor_t* compute_tensor(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_iter_var_t** axis,
                                       rlx_expr_t* body, const char* name, const char* tag) {
  rlx_dtype_t dtype = body ? body->dtype : rlx_dt_float32();
  rlx_te_tensor_t* t = new_tensor(ctx, RLX_TE_COMPUTE, name, dtype, ndim, shape);
  t->n_axis = ndim;
  t->axis = axis;
  t->body = body;
  t->tag = rlx_ctx_strdup(ctx, tag ? tag : "");
  /* Inputs: the TE tensors loaded by the body, in order of first use. Loads of non-TE
   * buffers are reported by create_prim_func. */
  load_collect_t lc = {{0}};
  if (body) rlx_expr_visit(body, collect_load, &lc);
  t->inputs = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, lc.bufs.len);
  for (int i = 0; i < lc.bufs.len; i++) {
    rlx_te_tensor_t* in = rlx_te_tensor_of_buffer(lc.bufs.data[i]);
    if (in) t->inputs[t->n_inputs++] = in;
  }
  rlx_vec_free(&lc.bufs);
  return t;
}

rlx_te_tensor_t* rlx_te_compute_named(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_te_fcompute_t f,
                                      void* user, const char* name, const char* tag,
                                      const char* const* axis_names) {
  rlx_iter_var_t** axis;
  rlx_var_t** idx;
  make_axes(ctx, ndim, shape, axis_names, &axis, &idx);
  return compute_tensor(ctx, ndim, shape, axis, f(ctx, idx, user), name, tag);
}

static void count_reduce(const rlx_expr_t* e, void* user) {
  if (e->kind == RLX_EXPR_REDUCE) (*(int*)user)++;
}

RLX_MUST_USE rlx_status_t* rlx_te_compute_multi(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape,
                                                rlx_te_fcompute_multi_t f, void* user, const char* name,
                                                const char* tag, const char* const* axis_names, int* out_n,
                                                rlx_te_tensor_t*** out_tensors) {
  if (!name) name = "compute";
  rlx_iter_var_t** axis;
  rlx_var_t** idx;
  make_axes(ctx, ndim, shape, axis_names, &axis, &idx);
  rlx_expr_t* bodies[RLX_TE_MAX_OUTPUTS] = {0};
  int n = f(ctx, idx, user, RLX_TE_MAX_OUTPUTS, bodies);
  if (n < 0) return rlx_status_create(RLX_INVALID_ARGUMENT, "te.compute '%s': the compute function failed", name);
  if (n == 0 || n > RLX_TE_MAX_OUTPUTS)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "te.compute '%s': the compute function returned %d values (1 to %d)",
                             name, n, RLX_TE_MAX_OUTPUTS);
  for (int i = 0; i < n; i++) {
    if (!bodies[i])
      return rlx_status_create(RLX_INVALID_ARGUMENT, "te.compute '%s': value %d of the compute function is NULL", name, i);
    int n_reduce = 0;
    if (n > 1) rlx_expr_visit(bodies[i], count_reduce, &n_reduce);
    if (n_reduce)
      return rlx_status_create(RLX_UNSUPPORTED,
                               "te.compute '%s': value %d is a reduction; a compute returning several values "
                               "cannot reduce (compute each reduction separately)",
                               name, i);
  }
  rlx_te_tensor_t** ts = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, n);
  for (int i = 0; i < n; i++) {
    const char* tn = n == 1 ? name : rlx_ctx_sprintf(ctx, "%s.v%d", name, i);
    ts[i] = compute_tensor(ctx, ndim, shape, axis, bodies[i], tn, tag);
  }
  if (n > 1)
    for (int i = 0; i < n; i++) {
      ts[i]->n_group = n;
      ts[i]->value_index = i;
      ts[i]->group = ts;
    }
  *out_n = n;
  *out_tensors = ts;
  return NULL;
}

rlx_te_tensor_t* rlx_te_compute(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_te_fcompute_t f,
                                void* user, const char* name, const char* tag) {
  return rlx_te_compute_named(ctx, ndim, shape, f, user, name, tag, NULL);
}

rlx_expr_t* rlx_te_load(rlx_ctx_t* ctx, rlx_te_tensor_t* t, int n, rlx_expr_t* const* indices) {
  return rlx_ir_load(ctx, t->buffer, n, indices);
}

rlx_iter_var_t* rlx_te_reduce_axis(rlx_ctx_t* ctx, rlx_expr_t* min, rlx_expr_t* extent, const char* name) {
  rlx_dtype_t t = rlx_dtype_is_int(extent->dtype) ? extent->dtype : rlx_dt_int32();
  rlx_var_t* v = rlx_ir_var(ctx, name ? name : "rv", t);
  return rlx_tir_iter_var(ctx, v, rlx_ir_cast(ctx, t, min), extent, RLX_ITER_REDUCE);
}

rlx_expr_t* rlx_te_reduce(rlx_ctx_t* ctx, rlx_reduce_kind_t combiner, rlx_expr_t* source, int n_axis,
                          rlx_iter_var_t* const* axis, rlx_expr_t* cond) {
  return rlx_ir_reduce(ctx, combiner, source, n_axis, axis, cond);
}

rlx_expr_t* rlx_te_reduce_init(rlx_ctx_t* ctx, rlx_reduce_kind_t combiner, rlx_expr_t* source, int n_axis,
                               rlx_iter_var_t* const* axis, rlx_expr_t* cond, rlx_expr_t* init) {
  rlx_expr_t* e = rlx_ir_reduce(ctx, combiner, source, n_axis, axis, cond);
  RLX_AS(rlx_reduce_t, e)->init = init;
  return e;
}

rlx_expr_t* rlx_te_sum(rlx_ctx_t* ctx, rlx_expr_t* source, int n_axis, rlx_iter_var_t* const* axis) {
  return rlx_ir_reduce(ctx, RLX_REDUCE_SUM, source, n_axis, axis, NULL);
}
rlx_expr_t* rlx_te_max(rlx_ctx_t* ctx, rlx_expr_t* source, int n_axis, rlx_iter_var_t* const* axis) {
  return rlx_ir_reduce(ctx, RLX_REDUCE_MAX, source, n_axis, axis, NULL);
}
rlx_expr_t* rlx_te_min(rlx_ctx_t* ctx, rlx_expr_t* source, int n_axis, rlx_iter_var_t* const* axis) {
  return rlx_ir_reduce(ctx, RLX_REDUCE_MIN, source, n_axis, axis, NULL);
}

/* Lowest (want_max false) or highest value of an integer dtype, as int64. */
static int64_t int_limit(rlx_dtype_t t, bool want_max) {
  int bits = t.bits > 64 ? 64 : t.bits;
  if (t.code == RLX_DT_UINT) {
    if (!want_max) return 0;
    return bits >= 64 ? -1 /* wraps to UINT64_MAX */ : (int64_t)((1ull << bits) - 1);
  }
  if (bits >= 64) return want_max ? INT64_MAX : INT64_MIN;
  int64_t hi = (int64_t)((1ull << (bits - 1)) - 1);
  return want_max ? hi : -hi - 1;
}

void rlx_te_tensor_set_attr(rlx_ctx_t* ctx, rlx_te_tensor_t* t, const char* key, rlx_expr_t* value) {
  const char** k = RLX_NEW_ARRAY(ctx, const char*, t->n_attrs + 1);
  rlx_expr_t** v = RLX_NEW_ARRAY(ctx, rlx_expr_t*, t->n_attrs + 1);
  for (int i = 0; i < t->n_attrs; i++) k[i] = t->attr_keys[i], v[i] = t->attr_values[i];
  k[t->n_attrs] = rlx_ctx_strdup(ctx, key);
  v[t->n_attrs] = value;
  t->attr_keys = k;
  t->attr_values = v;
  t->n_attrs++;
}

/* The lowest / highest finite value of float dtype t: TVM's min_value / max_value, the
 * identity TVM's max / min reductions start from. */
static double float_limit(rlx_dtype_t t, bool lowest) {
  double m = t.bits == 16 ? (t.code == RLX_DT_BFLOAT ? 3.3895313892515355e+38 : 65504.0)
             : t.bits == 32 ? 3.4028234663852886e+38 : DBL_MAX;
  return lowest ? -m : m;
}

rlx_expr_t* rlx_te_reduce_identity(rlx_ctx_t* ctx, rlx_reduce_kind_t combiner, rlx_dtype_t t) {
  bool is_float = rlx_dtype_is_float(t);
  switch (combiner) {
    case RLX_REDUCE_SUM: return is_float ? rlx_ir_float(ctx, t, 0.0) : rlx_ir_int(ctx, t, 0);
    case RLX_REDUCE_PROD: return is_float ? rlx_ir_float(ctx, t, 1.0) : rlx_ir_int(ctx, t, 1);
    case RLX_REDUCE_MAX:
      if (rlx_dtype_is_bool(t)) return rlx_ir_bool(ctx, false);
      return is_float ? rlx_ir_float(ctx, t, float_limit(t, true)) : rlx_ir_int(ctx, t, int_limit(t, false));
    case RLX_REDUCE_MIN:
      if (rlx_dtype_is_bool(t)) return rlx_ir_bool(ctx, true);
      return is_float ? rlx_ir_float(ctx, t, float_limit(t, false)) : rlx_ir_int(ctx, t, int_limit(t, true));
  }
  return rlx_ir_int(ctx, t, 0);
}

rlx_expr_t* rlx_te_reduce_combine(rlx_ctx_t* ctx, rlx_reduce_kind_t combiner, rlx_expr_t* acc, rlx_expr_t* x) {
  switch (combiner) {
    case RLX_REDUCE_SUM: return rlx_ir_add(ctx, acc, x);
    case RLX_REDUCE_PROD: return rlx_ir_mul(ctx, acc, x);
    case RLX_REDUCE_MAX: return rlx_ir_max(ctx, acc, x);
    case RLX_REDUCE_MIN: return rlx_ir_min(ctx, acc, x);
  }
  return acc;
}
