/* Reference interpreter for TIR, before or after lowering. Slow and simple on purpose: it is
 * the oracle that schedule, lowering and codegen tests compare against.
 *
 * Values are vectors of up to MAX_LANES lanes (scalars have one); integers are held as
 * int64 wrapped to their dtype's width, floats as double rounded to float32 after every
 * operation on a float32 value (so results match C code computing in float). Variables live
 * in an environment keyed by rlx_var_t*; buffer storage is keyed by the buffer's data var, so
 * flattened views (other buffer objects sharing a param's data var) reach the same memory.
 * Every access is bounds-checked per dimension of the accessing buffer and against the bytes
 * of the storage. Blocks: iter vars are bound to their values, the predicate guards the block,
 * init runs when every reduce iter var is at its domain min, alloc_buffers live for the
 * block. Vectorized/unrolled/parallel loops run serially.
 */
#include "interp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LANES 64

typedef struct {
  rlx_dtype_t t; /* lanes = number of valid entries */
  union {
    int64_t i[MAX_LANES];
    double f[MAX_LANES];
  } u;
} val_t;

typedef struct {
  char* data;
  int64_t nbytes;
  const char* name;
  bool owned;
} storage_t;

typedef struct {
  const rlx_tir_func_t* f;
  /* the environment: a stack of bindings searched from the top (few live vars, LIFO
   * scopes: faster than hashing, and shadowing comes for free) */
  RLX_VEC(struct env_entry {
    const rlx_var_t* var;
    val_t* slot;
  }) env;
  rlx_ptrmap_t storage; /* data var → storage_t* */
  RLX_VEC(val_t*) spare; /* released environment slots, reused before malloc */
  const void* last_data;   /* one-entry cache of the storage lookup (cleared on alloc/free) */
  storage_t* last_storage;
} interp_t;

static RLX_MUST_USE rlx_status_t* err(interp_t* in, rlx_status_code_t code, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static RLX_MUST_USE rlx_status_t* err(interp_t* in, rlx_status_code_t code, const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return rlx_status_create(code, "interpreting PrimFunc '%s': %s", in->f->name, msg);
}

static const char* dts(rlx_dtype_t t, char buf[32]) { return rlx_dtype_str(t, buf); }

/* ------------------------------------------------------------------ scalars */
static int64_t wrap(rlx_dtype_t t, int64_t v) {
  if (t.bits >= 64 || t.bits == 0) return v;
  if (t.bits == 1) return v != 0;
  uint64_t m = (1ull << t.bits) - 1;
  uint64_t u = (uint64_t)v & m;
  if (t.code == RLX_DT_INT && (u >> (t.bits - 1))) u |= ~m;
  return (int64_t)u;
}

static double round_f(rlx_dtype_t t, double v) { return t.bits == 32 ? (double)(float)v : v; }

static bool is_float(rlx_dtype_t t) { return t.code == RLX_DT_FLOAT; }
static bool is_u64(rlx_dtype_t t) { return t.code == RLX_DT_UINT && t.bits == 64; }

static bool dtype_supported(rlx_dtype_t t) {
  if (t.code == RLX_DT_FLOAT) return t.bits == 32 || t.bits == 64;
  if (t.code == RLX_DT_INT || t.code == RLX_DT_UINT)
    return t.bits == 1 || t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
  return t.code == RLX_DT_HANDLE;
}

static RLX_MUST_USE rlx_status_t* check_dtype(interp_t* in, rlx_dtype_t t) {
  char b[32];
  if (t.lanes > MAX_LANES) return err(in, RLX_UNSUPPORTED, "vectors of %d lanes (at most %d)", t.lanes, MAX_LANES);
  if (dtype_supported(t)) return NULL;
  return err(in, RLX_UNSUPPORTED, "dtype %s is not supported by the interpreter", dts(t, b));
}

/* Converts lane value of `from` type into `to` type (C conversion rules). */
static void convert_lane(rlx_dtype_t from, const val_t* v, int k, rlx_dtype_t to, val_t* out, int ko) {
  if (is_float(to)) {
    double x;
    /* integers convert straight to float32 (through double could round twice) */
    if (is_float(from)) x = round_f(to, v->u.f[k]);
    else if (to.bits == 32) x = is_u64(from) ? (double)(float)(uint64_t)v->u.i[k] : (double)(float)v->u.i[k];
    else x = is_u64(from) ? (double)(uint64_t)v->u.i[k] : (double)v->u.i[k];
    out->u.f[ko] = x;
    return;
  }
  if (rlx_dtype_is_bool(to)) {
    out->u.i[ko] = is_float(from) ? (v->u.f[k] != 0) : (v->u.i[k] != 0);
    return;
  }
  int64_t x;
  if (is_float(from)) {
    double d = trunc(v->u.f[k]);
    if (d != d) x = 0;
    else if (d >= 9.2233720368547758e18) x = is_u64(to) && d < 1.8446744073709552e19 ? (int64_t)(uint64_t)d : INT64_MAX;
    else if (d < -9.2233720368547758e18) x = INT64_MIN;
    else x = (int64_t)d;
  } else {
    x = v->u.i[k];
  }
  out->u.i[ko] = wrap(to, x);
}

/* ------------------------------------------------------------------ environment */
static val_t* env_get(interp_t* in, const rlx_var_t* v) {
  for (int i = in->env.len - 1; i >= 0; i--)
    if (in->env.data[i].var == v) return in->env.data[i].slot;
  return NULL;
}

/* Copies the valid lanes only (values are large). */
static void val_copy(val_t* dst, const val_t* src) {
  dst->t = src->t;
  if (src->t.lanes <= 1) {
    dst->u.i[0] = src->u.i[0];
    return;
  }
  memcpy(dst->u.i, src->u.i, sizeof(int64_t) * (size_t)(src->t.lanes ? src->t.lanes : 1));
}

/* Binds v to a fresh slot holding x (*out_slot, NULL when out of memory). Bindings are
 * released in LIFO order with env_pop. The return value is unused (kept for symmetry). */
static val_t* env_push(interp_t* in, const rlx_var_t* v, const val_t* x, val_t** out_slot) {
  val_t* slot = in->spare.len ? in->spare.data[--in->spare.len] : malloc(sizeof(val_t));
  struct env_entry ent = {v, slot};
  if (slot && !rlx_vec_push(&in->env, ent)) {
    free(slot);
    slot = NULL;
  }
  if (slot) val_copy(slot, x);
  *out_slot = slot;
  return NULL;
}
static void env_pop(interp_t* in, const rlx_var_t* v, val_t* slot, val_t* old) {
  (void)old;
  if (!slot) return;
  if (in->env.len > 0 && in->env.data[in->env.len - 1].var == v) in->env.len--;
  if (!rlx_vec_push(&in->spare, slot)) free(slot);
}

static void set_int(val_t* v, rlx_dtype_t t, int64_t x) {
  v->t = rlx_dtype_with_lanes(t, 1);
  v->u.i[0] = wrap(t, x);
}

/* ------------------------------------------------------------------ expressions */
static RLX_MUST_USE rlx_status_t* eval(interp_t* in, const rlx_expr_t* e, val_t* out);

static RLX_MUST_USE rlx_status_t* eval_int(interp_t* in, const rlx_expr_t* e, int64_t* out, const char* what) {
  if (!e) return err(in, RLX_INVALID_ARGUMENT, "%s is missing", what);
  if (e->kind == RLX_EXPR_INT_IMM) { /* fast paths: shapes and loop bounds */
    *out = RLX_AS(const rlx_int_imm_t, e)->value;
    return NULL;
  }
  if (e->kind == RLX_EXPR_VAR) {
    const val_t* x = env_get(in, RLX_AS(const rlx_var_t, e));
    if (x && x->t.lanes == 1 && !is_float(x->t)) {
      *out = x->u.i[0];
      return NULL;
    }
  }
  val_t v;
  RLX_RETURN_IF_ERROR(eval(in, e, &v));
  if (v.t.lanes != 1 || is_float(v.t)) return err(in, RLX_INVALID_ARGUMENT, "%s is not an integer scalar", what);
  *out = v.u.i[0];
  return NULL;
}

/* Broadcasts a scalar value to n lanes in place. */
static void splat(val_t* v, int n) {
  if (v->t.lanes == 1 && n > 1) {
    for (int k = 1; k < n; k++) v->u.i[k] = v->u.i[0]; /* union: copies the bits of either */
    v->t.lanes = (uint16_t)n;
  }
}

__attribute__((noinline)) static rlx_status_t* eval_binary(interp_t* in, const rlx_expr_t* e, val_t* out) {
  const rlx_binary_t* b = RLX_AS(const rlx_binary_t, e);
  val_t x, y;
  RLX_RETURN_IF_ERROR(eval(in, b->a, &x));
  RLX_RETURN_IF_ERROR(eval(in, b->b, &y));
  int n = x.t.lanes > y.t.lanes ? x.t.lanes : y.t.lanes;
  if ((x.t.lanes != n && x.t.lanes != 1) || (y.t.lanes != n && y.t.lanes != 1))
    return err(in, RLX_INVALID_ARGUMENT, "%s of %d and %d lanes", rlx_expr_kind_name(e->kind), x.t.lanes, y.t.lanes);
  splat(&x, n);
  splat(&y, n);
  rlx_dtype_t t = x.t; /* operand type */
  rlx_dtype_t rt = rlx_dtype_with_lanes(e->dtype, n);
  out->t = rt;
  bool fl = is_float(t);
  bool u64 = is_u64(t);
  for (int k = 0; k < n; k++) {
    if (fl) {
      double a = x.u.f[k], c = is_float(y.t) ? y.u.f[k] : (double)y.u.i[k];
      double r = 0;
      int cmp = -1;
      switch (e->kind) {
        case RLX_EXPR_ADD: r = a + c; break;
        case RLX_EXPR_SUB: r = a - c; break;
        case RLX_EXPR_MUL: r = a * c; break;
        case RLX_EXPR_DIV: r = a / c; break;
        case RLX_EXPR_MOD: r = fmod(a, c); break;
        /* each step rounded to the dtype, as C code computing in float would */
        case RLX_EXPR_FLOOR_DIV: r = floor(round_f(t, a / c)); break;
        case RLX_EXPR_FLOOR_MOD: r = a - round_f(t, floor(round_f(t, a / c)) * c); break;
        case RLX_EXPR_MIN: r = a < c ? a : c; break;
        case RLX_EXPR_MAX: r = a > c ? a : c; break;
        case RLX_EXPR_EQ: cmp = a == c; break;
        case RLX_EXPR_NE: cmp = a != c; break;
        case RLX_EXPR_LT: cmp = a < c; break;
        case RLX_EXPR_LE: cmp = a <= c; break;
        case RLX_EXPR_GT: cmp = a > c; break;
        case RLX_EXPR_GE: cmp = a >= c; break;
        case RLX_EXPR_AND: cmp = a != 0 && c != 0; break;
        case RLX_EXPR_OR: cmp = a != 0 || c != 0; break;
        default: return err(in, RLX_INTERNAL, "not a binary op");
      }
      if (cmp >= 0) out->u.i[k] = cmp;
      else out->u.f[k] = round_f(t, r);
      continue;
    }
    int64_t a = x.u.i[k], c = y.u.i[k];
    uint64_t ua = (uint64_t)a, uc = (uint64_t)c;
    int64_t r = 0;
    int cmp = -1;
    switch (e->kind) {
      case RLX_EXPR_ADD: r = (int64_t)(ua + uc); break;
      case RLX_EXPR_SUB: r = (int64_t)(ua - uc); break;
      case RLX_EXPR_MUL: r = (int64_t)(ua * uc); break;
      case RLX_EXPR_DIV:
      case RLX_EXPR_MOD:
      case RLX_EXPR_FLOOR_DIV:
      case RLX_EXPR_FLOOR_MOD: {
        if (c == 0) return err(in, RLX_INVALID_ARGUMENT, "integer division by zero in %s", rlx_expr_kind_name(e->kind));
        if (u64) {
          r = (e->kind == RLX_EXPR_DIV || e->kind == RLX_EXPR_FLOOR_DIV) ? (int64_t)(ua / uc) : (int64_t)(ua % uc);
          break;
        }
        if (a == INT64_MIN && c == -1) {
          r = (e->kind == RLX_EXPR_DIV || e->kind == RLX_EXPR_FLOOR_DIV) ? INT64_MIN : 0;
          break;
        }
        int64_t q = a / c, m = a % c;
        if (e->kind == RLX_EXPR_DIV) r = q;
        else if (e->kind == RLX_EXPR_MOD) r = m;
        else {
          if (m != 0 && ((m < 0) != (c < 0))) {
            q--;
            m += c;
          }
          r = e->kind == RLX_EXPR_FLOOR_DIV ? q : m;
        }
        break;
      }
      case RLX_EXPR_MIN: r = u64 ? (int64_t)(ua < uc ? ua : uc) : (a < c ? a : c); break;
      case RLX_EXPR_MAX: r = u64 ? (int64_t)(ua > uc ? ua : uc) : (a > c ? a : c); break;
      case RLX_EXPR_EQ: cmp = a == c; break;
      case RLX_EXPR_NE: cmp = a != c; break;
      case RLX_EXPR_LT: cmp = u64 ? ua < uc : a < c; break;
      case RLX_EXPR_LE: cmp = u64 ? ua <= uc : a <= c; break;
      case RLX_EXPR_GT: cmp = u64 ? ua > uc : a > c; break;
      case RLX_EXPR_GE: cmp = u64 ? ua >= uc : a >= c; break;
      case RLX_EXPR_AND: cmp = a != 0 && c != 0; break;
      case RLX_EXPR_OR: cmp = a != 0 || c != 0; break;
      default: return err(in, RLX_INTERNAL, "not a binary op");
    }
    out->u.i[k] = cmp >= 0 ? cmp : wrap(t, r);
  }
  return NULL;
}

/* Address of element (lane k) of a buffer access; checks every bound. */
static RLX_MUST_USE rlx_status_t* locate(interp_t* in, const rlx_tir_buffer_t* b, int n_idx, const val_t* idx, int k,
                                         bool is_store, char** out_ptr) {
  const char* op = is_store ? "store to" : "load from";
  storage_t* st;
  if (b->data && b->data == in->last_data) {
    st = in->last_storage;
  } else {
    st = b->data ? rlx_ptrmap_get(&in->storage, b->data) : NULL;
    in->last_data = b->data;
    in->last_storage = st;
  }
  if (!st) return err(in, RLX_INVALID_ARGUMENT, "%s buffer '%s', which is not allocated", op, b->name);
  if (n_idx != b->ndim)
    return err(in, RLX_INVALID_ARGUMENT, "%s buffer '%s' with %d indices (it has %d dimensions)", op, b->name, n_idx, b->ndim);
  int64_t off = 0, stride = 1;
  if (b->elem_offset) RLX_RETURN_IF_ERROR(eval_int(in, b->elem_offset, &off, "elem_offset"));
  /* row-major strides computed from the innermost dimension out, unless given */
  int64_t flat = 0;
  for (int d = b->ndim - 1; d >= 0; d--) {
    int64_t ext;
    RLX_RETURN_IF_ERROR(eval_int(in, b->shape[d], &ext, "buffer shape"));
    int64_t i = idx[d].u.i[idx[d].t.lanes > 1 ? k : 0];
    if (i < 0 || i >= ext)
      return err(in, RLX_INVALID_ARGUMENT, "out-of-bounds %s buffer '%s': index %lld of dimension %d outside [0, %lld)",
                 op, b->name, (long long)i, d, (long long)ext);
    int64_t s = stride;
    if (b->strides) RLX_RETURN_IF_ERROR(eval_int(in, b->strides[d], &s, "buffer stride"));
    flat += i * s;
    stride *= ext;
  }
  int64_t esz = rlx_dtype_bytes(rlx_dtype_with_lanes(b->dtype, 1));
  int64_t byte = (off + flat) * esz;
  if (byte < 0 || byte + esz > st->nbytes)
    return err(in, RLX_INVALID_ARGUMENT, "out-of-bounds %s buffer '%s': element %lld outside its %lld-byte storage '%s'", op,
               b->name, (long long)(off + flat), (long long)st->nbytes, st->name);
  *out_ptr = st->data + byte;
  return NULL;
}

static void read_elem(rlx_dtype_t t, const char* p, val_t* v, int k) {
  switch (t.code) {
    case RLX_DT_FLOAT:
      if (t.bits == 32) {
        float x;
        memcpy(&x, p, 4);
        v->u.f[k] = x;
      } else {
        memcpy(&v->u.f[k], p, 8);
      }
      return;
    case RLX_DT_UINT:
      switch (t.bits) {
        case 1:
        case 8: v->u.i[k] = t.bits == 1 ? (*(const uint8_t*)p != 0) : *(const uint8_t*)p; return;
        case 16: { uint16_t x; memcpy(&x, p, 2); v->u.i[k] = x; return; }
        case 32: { uint32_t x; memcpy(&x, p, 4); v->u.i[k] = x; return; }
        default: { uint64_t x; memcpy(&x, p, 8); v->u.i[k] = (int64_t)x; return; }
      }
    default:
      switch (t.bits) {
        case 8: v->u.i[k] = *(const int8_t*)p; return;
        case 16: { int16_t x; memcpy(&x, p, 2); v->u.i[k] = x; return; }
        case 32: { int32_t x; memcpy(&x, p, 4); v->u.i[k] = x; return; }
        default: { int64_t x; memcpy(&x, p, 8); v->u.i[k] = x; return; }
      }
  }
}

static void write_elem(rlx_dtype_t t, char* p, const val_t* v, int k) {
  switch (t.code) {
    case RLX_DT_FLOAT:
      if (t.bits == 32) {
        float x = (float)v->u.f[k];
        memcpy(p, &x, 4);
      } else {
        memcpy(p, &v->u.f[k], 8);
      }
      return;
    default:
      switch (t.bits) {
        case 1:
        case 8: { uint8_t x = (uint8_t)v->u.i[k]; if (t.bits == 1) x = v->u.i[k] != 0; memcpy(p, &x, 1); return; }
        case 16: { uint16_t x = (uint16_t)v->u.i[k]; memcpy(p, &x, 2); return; }
        case 32: { uint32_t x = (uint32_t)v->u.i[k]; memcpy(p, &x, 4); return; }
        default: memcpy(p, &v->u.i[k], 8); return;
      }
  }
}

/* Evaluates n index expressions; *out_lanes is the vector width (1 when all scalar). */
static RLX_MUST_USE rlx_status_t* eval_indices(interp_t* in, int n, rlx_expr_t* const* exprs, val_t* idx, int* out_lanes) {
  int lanes = 1;
  for (int d = 0; d < n; d++) {
    RLX_RETURN_IF_ERROR(eval(in, exprs[d], &idx[d]));
    if (is_float(idx[d].t)) return err(in, RLX_INVALID_ARGUMENT, "buffer index %d is not an integer", d);
    if (idx[d].t.lanes > 1) {
      if (lanes > 1 && idx[d].t.lanes != lanes) return err(in, RLX_INVALID_ARGUMENT, "buffer indices of different lanes");
      lanes = idx[d].t.lanes;
    }
  }
  *out_lanes = lanes;
  return NULL;
}

__attribute__((noinline)) static rlx_status_t* eval_load(interp_t* in, const rlx_buffer_load_t* l, val_t* out) {
  if (!l->buffer) return err(in, RLX_INVALID_ARGUMENT, "load without a buffer");
  RLX_RETURN_IF_ERROR(check_dtype(in, l->buffer->dtype));
  val_t small[4];
  val_t* idx = l->n_indices <= 4 ? small : malloc(sizeof(val_t) * (size_t)l->n_indices);
  if (!idx) return err(in, RLX_OUT_OF_MEMORY, "out of memory");
  int lanes;
  rlx_status_t* st = eval_indices(in, l->n_indices, l->indices, idx, &lanes);
  int bl = l->buffer->dtype.lanes ? l->buffer->dtype.lanes : 1;
  if (!st && bl > 1) st = err(in, RLX_UNSUPPORTED, "buffers of vector dtype ('%s')", l->buffer->name);
  out->t = rlx_dtype_with_lanes(l->buffer->dtype, lanes);
  for (int k = 0; k < lanes && !st; k++) {
    char* p;
    st = locate(in, l->buffer, l->n_indices, idx, k, false, &p);
    if (!st) read_elem(l->buffer->dtype, p, out, k);
  }
  if (idx != small) free(idx);
  return st;
}

__attribute__((noinline)) static rlx_status_t* eval_call(interp_t* in, const rlx_call_t* c, val_t* out) {
  const char* op = c->op;
  rlx_dtype_t rt = c->hdr.dtype;
  if (strcmp(op, "if_then_else") == 0) {
    if (c->n_args != 3) return err(in, RLX_INVALID_ARGUMENT, "if_then_else takes 3 arguments, got %d", c->n_args);
    val_t cond;
    RLX_RETURN_IF_ERROR(eval(in, c->args[0], &cond));
    if (cond.t.lanes == 1) return eval(in, c->args[cond.u.i[0] ? 1 : 2], out);
    val_t a, b;
    RLX_RETURN_IF_ERROR(eval(in, c->args[1], &a));
    RLX_RETURN_IF_ERROR(eval(in, c->args[2], &b));
    splat(&a, cond.t.lanes);
    splat(&b, cond.t.lanes);
    *out = a;
    for (int k = 0; k < cond.t.lanes; k++) out->u.i[k] = cond.u.i[k] ? a.u.i[k] : b.u.i[k];
    return NULL;
  }
  if (strcmp(op, "prefetch") == 0) { /* a hint: nothing to do */
    out->t = rlx_dt_int32();
    out->u.i[0] = 0;
    return NULL;
  }
  val_t args[3];
  if (c->n_args > 3) return err(in, RLX_UNSUPPORTED, "intrinsic '%s' with %d arguments", op, c->n_args);
  int lanes = 1;
  for (int i = 0; i < c->n_args; i++) {
    RLX_RETURN_IF_ERROR(eval(in, c->args[i], &args[i]));
    if (args[i].t.lanes > lanes) lanes = args[i].t.lanes;
  }
  for (int i = 0; i < c->n_args; i++) splat(&args[i], lanes);
  out->t = rlx_dtype_with_lanes(rt, lanes);
  bool f32 = rt.code == RLX_DT_FLOAT && rt.bits == 32;
  /* argument lane i as double */
#define ARG(ai, ak) (is_float(args[ai].t) ? args[ai].u.f[ak] : (double)args[ai].u.i[ak])
  const rlx_intrin_t* in_def = rlx_intrin_find(op);
  if (in_def && in_def->interp_d1) {
    if (c->n_args != 1) return err(in, RLX_INVALID_ARGUMENT, "intrinsic '%s' takes 1 argument, got %d", op, c->n_args);
    for (int k = 0; k < lanes; k++) {
      double x = ARG(0, k);
      if (is_float(rt)) out->u.f[k] = f32 ? (double)in_def->interp_f1((float)x) : in_def->interp_d1(x);
      else {
        val_t tmp;
        tmp.u.f[0] = in_def->interp_d1(x);
        convert_lane(rlx_dt_float64(), &tmp, 0, rt, out, k);
      }
    }
    return NULL;
  }
  if (in_def && in_def->interp_d2) {
    if (c->n_args != 2) return err(in, RLX_INVALID_ARGUMENT, "intrinsic '%s' takes 2 arguments, got %d", op, c->n_args);
    for (int k = 0; k < lanes; k++) {
      double x = ARG(0, k), y = ARG(1, k);
      double r = f32 ? in_def->interp_f2((float)x, (float)y) : in_def->interp_d2(x, y);
      if (is_float(rt)) out->u.f[k] = round_f(rt, r);
      else {
        val_t tmp;
        tmp.u.f[0] = r;
        convert_lane(rlx_dt_float64(), &tmp, 0, rt, out, k);
      }
    }
    return NULL;
  }
  if (strcmp(op, "isnan") == 0 || strcmp(op, "isinf") == 0 || strcmp(op, "isfinite") == 0) {
    if (c->n_args != 1) return err(in, RLX_INVALID_ARGUMENT, "intrinsic '%s' takes 1 argument, got %d", op, c->n_args);
    for (int k = 0; k < lanes; k++) {
      double x = ARG(0, k);
      out->u.i[k] = op[2] == 'n' ? isnan(x) : op[2] == 'i' ? isinf(x) : isfinite(x);
    }
    return NULL;
  }
  if (strcmp(op, "abs") == 0 && c->n_args == 1) {
    for (int k = 0; k < lanes; k++) {
      if (is_float(rt)) out->u.f[k] = fabs(ARG(0, k));
      else out->u.i[k] = wrap(rt, args[0].u.i[k] < 0 ? (int64_t)(0 - (uint64_t)args[0].u.i[k]) : args[0].u.i[k]);
    }
    return NULL;
  }
  if ((strcmp(op, "shift_left") == 0 || strcmp(op, "shift_right") == 0 || strcmp(op, "bitwise_and") == 0 ||
       strcmp(op, "bitwise_or") == 0 || strcmp(op, "bitwise_xor") == 0) &&
      c->n_args == 2 && !is_float(args[0].t) && !is_float(args[1].t)) {
    for (int k = 0; k < lanes; k++) {
      uint64_t a = (uint64_t)args[0].u.i[k], b = (uint64_t)args[1].u.i[k];
      uint64_t r;
      if (op[0] == 's') {
        if (b >= 64) return err(in, RLX_INVALID_ARGUMENT, "shift by %llu", (unsigned long long)b);
        r = op[6] == 'l' ? a << b : (rt.code == RLX_DT_INT ? (uint64_t)(args[0].u.i[k] >> b) : a >> b);
      } else if (op[8] == 'a') r = a & b;
      else if (op[8] == 'o') r = a | b;
      else r = a ^ b;
      out->u.i[k] = wrap(rt, (int64_t)r);
    }
    return NULL;
  }
  if (strcmp(op, "bitwise_not") == 0 && c->n_args == 1 && !is_float(args[0].t)) {
    for (int k = 0; k < lanes; k++) out->u.i[k] = wrap(rt, ~args[0].u.i[k]);
    return NULL;
  }
#undef ARG
  return err(in, RLX_UNSUPPORTED, "unknown intrinsic '%s'", op);
}

/* Cases of eval with large locals, kept out of eval's own frame (it recurses). */
__attribute__((noinline)) static rlx_status_t* eval_select(interp_t* in, const rlx_expr_t* e, val_t* out) {
  const rlx_select_t* s = RLX_AS(const rlx_select_t, e);
  val_t c;
  RLX_RETURN_IF_ERROR(eval(in, s->cond, &c));
  if (c.t.lanes == 1) return eval(in, c.u.i[0] ? s->t : s->f, out);
  val_t a, b;
  RLX_RETURN_IF_ERROR(eval(in, s->t, &a));
  RLX_RETURN_IF_ERROR(eval(in, s->f, &b));
  splat(&a, c.t.lanes);
  splat(&b, c.t.lanes);
  *out = a;
  for (int k = 0; k < c.t.lanes; k++) out->u.i[k] = c.u.i[k] ? a.u.i[k] : b.u.i[k];
  return NULL;
}

__attribute__((noinline)) static rlx_status_t* eval_cast(interp_t* in, const rlx_expr_t* e, val_t* out) {
  RLX_RETURN_IF_ERROR(check_dtype(in, e->dtype));
  val_t v;
  RLX_RETURN_IF_ERROR(eval(in, RLX_AS(const rlx_cast_t, e)->value, &v));
  out->t = rlx_dtype_with_lanes(e->dtype, v.t.lanes);
  for (int k = 0; k < v.t.lanes; k++) convert_lane(v.t, &v, k, e->dtype, out, k);
  return NULL;
}

__attribute__((noinline)) static rlx_status_t* eval_let(interp_t* in, const rlx_expr_t* e, val_t* out) {
  const rlx_let_t* l = RLX_AS(const rlx_let_t, e);
  val_t v;
  RLX_RETURN_IF_ERROR(eval(in, l->value, &v));
  val_t* slot;
  val_t* old = env_push(in, l->var, &v, &slot);
  if (!slot) return err(in, RLX_OUT_OF_MEMORY, "out of memory");
  rlx_status_t* st = eval(in, l->body, out);
  env_pop(in, l->var, slot, old);
  return st;
}

static RLX_MUST_USE rlx_status_t* eval(interp_t* in, const rlx_expr_t* e, val_t* out) {
  if (!e) return err(in, RLX_INVALID_ARGUMENT, "missing expression");
  switch (e->kind) {
    case RLX_EXPR_INT_IMM:
      set_int(out, e->dtype, RLX_AS(const rlx_int_imm_t, e)->value);
      return NULL;
    case RLX_EXPR_FLOAT_IMM:
      RLX_RETURN_IF_ERROR(check_dtype(in, e->dtype));
      out->t = rlx_dtype_with_lanes(e->dtype, 1);
      out->u.f[0] = round_f(e->dtype, RLX_AS(const rlx_float_imm_t, e)->value);
      return NULL;
    case RLX_EXPR_STRING_IMM: return err(in, RLX_UNSUPPORTED, "string value '%s'", RLX_AS(const rlx_string_imm_t, e)->value);
    case RLX_EXPR_VAR: {
      val_t* v = env_get(in, RLX_AS(const rlx_var_t, e));
      if (!v) return err(in, RLX_INVALID_ARGUMENT, "variable '%s' is not bound", RLX_AS(const rlx_var_t, e)->name);
      val_copy(out, v);
      return NULL;
    }
    case RLX_EXPR_ADD:
    case RLX_EXPR_SUB:
    case RLX_EXPR_MUL:
    case RLX_EXPR_DIV:
    case RLX_EXPR_MOD:
    case RLX_EXPR_FLOOR_DIV:
    case RLX_EXPR_FLOOR_MOD:
    case RLX_EXPR_MIN:
    case RLX_EXPR_MAX:
    case RLX_EXPR_EQ:
    case RLX_EXPR_NE:
    case RLX_EXPR_LT:
    case RLX_EXPR_LE:
    case RLX_EXPR_GT:
    case RLX_EXPR_GE:
    case RLX_EXPR_AND:
    case RLX_EXPR_OR: return eval_binary(in, e, out); /* operand dtypes were checked where they were made */
    case RLX_EXPR_NOT: {
      RLX_RETURN_IF_ERROR(eval(in, RLX_AS(const rlx_not_t, e)->a, out));
      for (int k = 0; k < out->t.lanes; k++) out->u.i[k] = is_float(out->t) ? out->u.f[k] == 0 : out->u.i[k] == 0;
      out->t = rlx_dtype_with_lanes(rlx_dt_bool(), out->t.lanes);
      return NULL;
    }
    case RLX_EXPR_SELECT: return eval_select(in, e, out);
    case RLX_EXPR_CAST: return eval_cast(in, e, out);
    case RLX_EXPR_LET: return eval_let(in, e, out);
    case RLX_EXPR_BUFFER_LOAD: return eval_load(in, RLX_AS(const rlx_buffer_load_t, e), out);
    case RLX_EXPR_CALL: RLX_RETURN_IF_ERROR(check_dtype(in, e->dtype)); return eval_call(in, RLX_AS(const rlx_call_t, e), out);
    case RLX_EXPR_REDUCE: return err(in, RLX_UNSUPPORTED, "a Reduce expression outside a TE compute");
    case RLX_EXPR_RAMP: {
      const rlx_ramp_t* r = RLX_AS(const rlx_ramp_t, e);
      if (r->lanes > MAX_LANES) return err(in, RLX_UNSUPPORTED, "ramp of %d lanes", r->lanes);
      int64_t base, stride;
      RLX_RETURN_IF_ERROR(eval_int(in, r->base, &base, "ramp base"));
      RLX_RETURN_IF_ERROR(eval_int(in, r->stride, &stride, "ramp stride"));
      out->t = e->dtype;
      for (int k = 0; k < r->lanes; k++) out->u.i[k] = wrap(e->dtype, (int64_t)((uint64_t)base + (uint64_t)stride * (uint64_t)k));
      return NULL;
    }
    case RLX_EXPR_BROADCAST: {
      const rlx_broadcast_t* b = RLX_AS(const rlx_broadcast_t, e);
      if (b->lanes > MAX_LANES) return err(in, RLX_UNSUPPORTED, "broadcast of %d lanes", b->lanes);
      RLX_RETURN_IF_ERROR(eval(in, b->value, out));
      if (out->t.lanes != 1) return err(in, RLX_INVALID_ARGUMENT, "broadcast of a vector");
      splat(out, b->lanes);
      return NULL;
    }
    case RLX_EXPR_KIND_COUNT: break;
  }
  return err(in, RLX_INTERNAL, "unknown expression kind %d", (int)e->kind);
}

/* ------------------------------------------------------------------ statements */
static RLX_MUST_USE rlx_status_t* exec(interp_t* in, const rlx_tir_stmt_t* s);

/* Allocates zeroed storage for buffer b (its shape evaluated now) under b->data. */
static RLX_MUST_USE rlx_status_t* alloc_buffer(interp_t* in, const rlx_tir_buffer_t* b, storage_t** out_old, storage_t** out_new) {
  if (!b) return err(in, RLX_INVALID_ARGUMENT, "allocation without a buffer");
  if (!b->data) return err(in, RLX_INVALID_ARGUMENT, "allocated buffer '%s' has no data var", b->name);
  RLX_RETURN_IF_ERROR(check_dtype(in, b->dtype));
  int64_t n = 1;
  for (int d = 0; d < b->ndim; d++) {
    int64_t ext;
    RLX_RETURN_IF_ERROR(eval_int(in, b->shape[d], &ext, "allocation shape"));
    if (ext < 0 || (ext > 0 && n > INT64_MAX / 64 / ext))
      return err(in, RLX_INVALID_ARGUMENT, "allocation of buffer '%s' with extent %lld", b->name, (long long)ext);
    n *= ext;
  }
  int64_t bytes = n * rlx_dtype_bytes(b->dtype);
  if (bytes > ((int64_t)1 << 34)) return err(in, RLX_OUT_OF_MEMORY, "allocation of buffer '%s' (%lld bytes)", b->name, (long long)bytes);
  storage_t* st = calloc(1, sizeof(storage_t));
  char* data = calloc((size_t)(bytes > 0 ? bytes : 1), 1);
  if (!st || !data) {
    free(st);
    free(data);
    return err(in, RLX_OUT_OF_MEMORY, "allocation of buffer '%s' (%lld bytes)", b->name, (long long)bytes);
  }
  st->data = data;
  st->nbytes = bytes;
  st->name = b->name;
  st->owned = true;
  *out_old = rlx_ptrmap_get(&in->storage, b->data);
  rlx_ptrmap_put(&in->storage, b->data, st);
  in->last_data = NULL;
  *out_new = st;
  return NULL;
}

static void free_buffer(interp_t* in, const rlx_tir_buffer_t* b, storage_t* old, storage_t* st) {
  rlx_ptrmap_put(&in->storage, b->data, old);
  in->last_data = NULL;
  free(st->data);
  free(st);
}

static RLX_MUST_USE rlx_status_t* exec_store(interp_t* in, const rlx_tir_store_t* s) {
  if (!s->buffer) return err(in, RLX_INVALID_ARGUMENT, "store without a buffer");
  RLX_RETURN_IF_ERROR(check_dtype(in, s->buffer->dtype));
  val_t v;
  RLX_RETURN_IF_ERROR(eval(in, s->value, &v));
  val_t small[4];
  val_t* idx = s->n_indices <= 4 ? small : malloc(sizeof(val_t) * (size_t)s->n_indices);
  if (!idx) return err(in, RLX_OUT_OF_MEMORY, "out of memory");
  int lanes;
  rlx_status_t* st = eval_indices(in, s->n_indices, s->indices, idx, &lanes);
  if (!st && v.t.lanes != lanes && v.t.lanes != 1)
    st = err(in, RLX_INVALID_ARGUMENT, "store of %d lanes into buffer '%s' with %d-lane indices", v.t.lanes,
             s->buffer->name, lanes);
  if (!st && v.t.lanes == 1) splat(&v, lanes);
  /* the value is converted to the buffer's element type (C assignment) */
  val_t cv;
  for (int k = 0; k < lanes && !st; k++) {
    convert_lane(v.t, &v, k, s->buffer->dtype, &cv, k);
    char* p;
    st = locate(in, s->buffer, s->n_indices, idx, k, true, &p);
    if (!st) write_elem(s->buffer->dtype, p, &cv, k);
  }
  if (idx != small) free(idx);
  return st;
}

static RLX_MUST_USE rlx_status_t* exec_for(interp_t* in, const rlx_tir_for_t* f) {
  int64_t mn, ext;
  RLX_RETURN_IF_ERROR(eval_int(in, f->min, &mn, "loop min"));
  RLX_RETURN_IF_ERROR(eval_int(in, f->extent, &ext, "loop extent"));
  val_t v;
  set_int(&v, f->var->hdr.dtype, mn);
  val_t* slot;
  val_t* old = env_push(in, f->var, &v, &slot);
  if (!slot) return err(in, RLX_OUT_OF_MEMORY, "out of memory");
  rlx_status_t* st = NULL;
  for (int64_t i = 0; i < ext && !st; i++) {
    set_int(slot, f->var->hdr.dtype, mn + i);
    st = exec(in, f->body);
  }
  env_pop(in, f->var, slot, old);
  return st;
}

static RLX_MUST_USE rlx_status_t* exec_block(interp_t* in, const rlx_tir_block_realize_t* br) {
  const rlx_tir_block_t* b = br->block;
  if (!b) return err(in, RLX_INVALID_ARGUMENT, "block realize without a block");
  if (br->n_values != b->n_iter_vars)
    return err(in, RLX_INVALID_ARGUMENT, "block '%s' has %d iter values for %d iter vars", b->name, br->n_values, b->n_iter_vars);
  if (br->predicate) {
    val_t p;
    RLX_RETURN_IF_ERROR(eval(in, br->predicate, &p));
    if (p.t.lanes != 1) return err(in, RLX_INVALID_ARGUMENT, "block '%s' has a vector predicate", b->name);
    if (!p.u.i[0]) return NULL;
  }
  int n = b->n_iter_vars;
  /* small blocks (all in practice) use the stack */
  val_t vals_s[6];
  val_t *slots_s[6] = {0}, *olds_s[6] = {0};
  storage_t *allocs_s[4] = {0}, *old_allocs_s[4] = {0};
  bool big = n > 6, big_alloc = b->n_alloc_buffers > 4;
  val_t* vals = big ? malloc(sizeof(val_t) * (size_t)n) : vals_s;
  val_t** slots = big ? calloc((size_t)n, sizeof(val_t*)) : slots_s;
  val_t** olds = big ? calloc((size_t)n, sizeof(val_t*)) : olds_s;
  storage_t** allocs = big_alloc ? calloc((size_t)b->n_alloc_buffers, sizeof(storage_t*)) : allocs_s;
  storage_t** old_allocs = big_alloc ? calloc((size_t)b->n_alloc_buffers, sizeof(storage_t*)) : old_allocs_s;
  rlx_status_t* st = NULL;
  if (!vals || !slots || !olds || !allocs || !old_allocs) st = err(in, RLX_OUT_OF_MEMORY, "out of memory");
  for (int i = 0; i < n && !st; i++) {
    st = eval(in, br->iter_values[i], &vals[i]);
    if (!st && (vals[i].t.lanes != 1 || is_float(vals[i].t)))
      st = err(in, RLX_INVALID_ARGUMENT, "block '%s': iter value %d is not an integer scalar", b->name, i);
  }
  /* the block runs only when every reduce var is at its min: decide init before binding */
  bool run_init = b->init != NULL;
  for (int i = 0; i < n && !st && run_init; i++) {
    if (b->iter_vars[i]->kind != RLX_ITER_REDUCE) continue;
    int64_t mn;
    st = eval_int(in, b->iter_vars[i]->dom.min, &mn, "iter var domain");
    if (!st && vals[i].u.i[0] != mn) run_init = false;
  }
  int bound = 0;
  for (; bound < n && !st; bound++) {
    set_int(&vals[bound], b->iter_vars[bound]->var->hdr.dtype, vals[bound].u.i[0]);
    olds[bound] = env_push(in, b->iter_vars[bound]->var, &vals[bound], &slots[bound]);
    if (!slots[bound]) st = err(in, RLX_OUT_OF_MEMORY, "out of memory");
  }
  int n_alloc = 0;
  for (; n_alloc < b->n_alloc_buffers && !st; n_alloc++)
    st = alloc_buffer(in, b->alloc_buffers[n_alloc], &old_allocs[n_alloc], &allocs[n_alloc]);
  if (st && n_alloc > 0 && !allocs[n_alloc - 1]) n_alloc--;
  if (!st && run_init) st = exec(in, b->init);
  if (!st) st = exec(in, b->body);
  for (int i = n_alloc - 1; i >= 0; i--)
    if (allocs[i]) free_buffer(in, b->alloc_buffers[i], old_allocs[i], allocs[i]);
  for (int i = bound - 1; i >= 0; i--)
    if (slots[i]) env_pop(in, b->iter_vars[i]->var, slots[i], olds[i]);
  if (big) {
    free(vals);
    free(slots);
    free(olds);
  }
  if (big_alloc) {
    free(allocs);
    free(old_allocs);
  }
  return st;
}

static RLX_MUST_USE rlx_status_t* exec(interp_t* in, const rlx_tir_stmt_t* s) {
  if (!s) return NULL;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE: return exec_store(in, RLX_AS(const rlx_tir_store_t, s));
    case RLX_STMT_FOR: return exec_for(in, RLX_AS(const rlx_tir_for_t, s));
    case RLX_STMT_SEQ: {
      const rlx_tir_seq_t* q = RLX_AS(const rlx_tir_seq_t, s);
      for (int i = 0; i < q->n; i++) RLX_RETURN_IF_ERROR(exec(in, q->stmts[i]));
      return NULL;
    }
    case RLX_STMT_IF: {
      const rlx_tir_if_t* c = RLX_AS(const rlx_tir_if_t, s);
      val_t v;
      RLX_RETURN_IF_ERROR(eval(in, c->cond, &v));
      if (v.t.lanes != 1) return err(in, RLX_INVALID_ARGUMENT, "if condition is a vector");
      bool t = is_float(v.t) ? v.u.f[0] != 0 : v.u.i[0] != 0;
      return exec(in, t ? c->then_case : c->else_case);
    }
    case RLX_STMT_LET: {
      const rlx_tir_let_t* l = RLX_AS(const rlx_tir_let_t, s);
      val_t v;
      RLX_RETURN_IF_ERROR(eval(in, l->value, &v));
      val_t* slot;
      val_t* old = env_push(in, l->var, &v, &slot);
      if (!slot) return err(in, RLX_OUT_OF_MEMORY, "out of memory");
      rlx_status_t* st = exec(in, l->body);
      env_pop(in, l->var, slot, old);
      return st;
    }
    case RLX_STMT_EVALUATE: {
      val_t v;
      return eval(in, RLX_AS(const rlx_tir_evaluate_t, s)->value, &v);
    }
    case RLX_STMT_BLOCK_REALIZE: return exec_block(in, RLX_AS(const rlx_tir_block_realize_t, s));
    case RLX_STMT_ALLOCATE: {
      const rlx_tir_allocate_t* a = RLX_AS(const rlx_tir_allocate_t, s);
      storage_t *old, *st;
      RLX_RETURN_IF_ERROR(alloc_buffer(in, a->buffer, &old, &st));
      rlx_status_t* r = exec(in, a->body);
      free_buffer(in, a->buffer, old, st);
      return r;
    }
    case RLX_STMT_KIND_COUNT: break;
  }
  return err(in, RLX_INTERNAL, "unknown statement kind %d", (int)s->kind);
}

/* ------------------------------------------------------------------ arguments */
/* Binds var v (if unbound) to x, or checks that its value is x. */
static RLX_MUST_USE rlx_status_t* bind_or_check(interp_t* in, const rlx_expr_t* e, int64_t x, const char* pname, const char* what,
                                                int dim, val_t** slots, int* n_slots, const rlx_var_t** vars) {
  if (e->kind == RLX_EXPR_VAR && !env_get(in, RLX_AS(const rlx_var_t, e))) {
    val_t v;
    set_int(&v, e->dtype, x);
    val_t* slot;
    env_push(in, RLX_AS(const rlx_var_t, e), &v, &slot);
    if (!slot) return err(in, RLX_OUT_OF_MEMORY, "out of memory");
    vars[*n_slots] = RLX_AS(const rlx_var_t, e);
    slots[(*n_slots)++] = slot;
    if (x < 0) return err(in, RLX_INVALID_ARGUMENT, "parameter '%s': %s[%d] = %lld is negative", pname, what, dim, (long long)x);
    return NULL;
  }
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_tir_interpret(const rlx_tir_func_t* f, DLTensor* const* args, int n_args) {
  if (!f) return rlx_status_create(RLX_INVALID_ARGUMENT, "rlx_tir_interpret: no function");
  interp_t in = {0};
  in.f = f;
  char b1[32], b2[32];
  if (n_args != f->n_params)
    return err(&in, RLX_INVALID_ARGUMENT, "expected %d arguments, got %d", f->n_params, n_args);
  /* every shape var is bound at most once per dim: bound the slot count */
  int max_slots = 0;
  for (int i = 0; i < f->n_params; i++) max_slots += f->buffer_map[i] ? 2 * f->buffer_map[i]->ndim + 2 : 1;
  val_t** slots = calloc((size_t)(max_slots + 1), sizeof(val_t*));
  const rlx_var_t** vars = calloc((size_t)(max_slots + 1), sizeof(rlx_var_t*));
  storage_t* stores = calloc((size_t)(f->n_params + 1), sizeof(storage_t));
  int n_slots = 0;
  rlx_status_t* st = NULL;
  if (!slots || !vars || !stores) st = err(&in, RLX_OUT_OF_MEMORY, "out of memory");
  /* pass 0: scalar params (no buffer) come as 0-d tensors holding their value */
  for (int i = 0; i < f->n_params && !st; i++) {
    if (f->buffer_map[i]) continue;
    const rlx_var_t* p = f->params[i];
    const DLTensor* t = args ? args[i] : NULL;
    rlx_dtype_t pt = p->hdr.dtype;
    if (!t || !t->data || t->ndim != 0 || t->device.device_type != kDLCPU) {
      st = err(&in, RLX_INVALID_ARGUMENT, "scalar parameter '%s': expected a 0-d CPU tensor holding its value", p->name);
      break;
    }
    rlx_dtype_t tt = rlx_dtype(t->dtype.code, t->dtype.bits, t->dtype.lanes);
    if (tt.lanes != 1 || pt.lanes != 1 || !dtype_supported(tt) || !dtype_supported(pt) || tt.code == RLX_DT_HANDLE ||
        pt.code == RLX_DT_HANDLE || is_float(tt) != is_float(pt)) {
      st = err(&in, RLX_INVALID_ARGUMENT, "scalar parameter '%s': expected a %s value, got a %s tensor", p->name,
               dts(pt, b1), dts(tt, b2));
      break;
    }
    val_t v;
    read_elem(tt, (const char*)t->data + t->byte_offset, &v, 0);
    v.t = tt;
    val_t cv;
    convert_lane(tt, &v, 0, pt, &cv, 0);
    cv.t = pt;
    val_t* slot;
    env_push(&in, p, &cv, &slot);
    if (!slot) {
      st = err(&in, RLX_OUT_OF_MEMORY, "out of memory");
      break;
    }
    vars[n_slots] = p;
    slots[n_slots++] = slot;
  }
  /* pass 1: types, ranks, devices; bind shape vars that are plain variables */
  for (int i = 0; i < f->n_params && !st; i++) {
    const rlx_tir_buffer_t* b = f->buffer_map[i];
    const char* pname = f->params[i]->name;
    if (!b) continue;
    const DLTensor* t = args ? args[i] : NULL;
    if (!b->data) {
      st = err(&in, RLX_INVALID_ARGUMENT, "parameter '%s' (buffer '%s') has no data var", pname, b->name);
      break;
    }
    if (!t) {
      st = err(&in, RLX_INVALID_ARGUMENT, "parameter '%s' (buffer '%s'): no tensor given", pname, b->name);
      break;
    }
    if (t->device.device_type != kDLCPU) {
      st = err(&in, RLX_INVALID_ARGUMENT, "parameter '%s' (buffer '%s'): tensor is not on the CPU", pname, b->name);
      break;
    }
    st = check_dtype(&in, b->dtype);
    if (st) break;
    rlx_dtype_t tt = rlx_dtype(t->dtype.code, t->dtype.bits, t->dtype.lanes);
    if (!rlx_dtype_eq(tt, b->dtype)) {
      st = err(&in, RLX_INVALID_ARGUMENT, "parameter '%s' (buffer '%s'): expected dtype %s, got %s", pname, b->name,
               dts(b->dtype, b1), dts(tt, b2));
      break;
    }
    if (t->ndim > 0 && !t->shape) {
      st = err(&in, RLX_INVALID_ARGUMENT, "parameter '%s' (buffer '%s'): tensor has no shape", pname, b->name);
      break;
    }
    if (t->ndim != b->ndim) {
      st = err(&in, RLX_INVALID_ARGUMENT, "parameter '%s' (buffer '%s'): expected %d dimensions, got %d", pname, b->name,
               b->ndim, t->ndim);
      break;
    }
    for (int d = 0; d < b->ndim && !st; d++)
      st = bind_or_check(&in, b->shape[d], t->shape[d], pname, "shape", d, slots, &n_slots, vars);
  }
  /* pass 2: every dimension (and stride) must now evaluate to the argument's */
  for (int i = 0; i < f->n_params && !st; i++) {
    const rlx_tir_buffer_t* b = f->buffer_map[i];
    if (!b) continue;
    const DLTensor* t = args[i];
    const char* pname = f->params[i]->name;
    int64_t max_off = 0;
    bool empty = false, ovf = false;
    for (int d = 0; d < b->ndim && !st; d++) {
      int64_t want;
      st = eval_int(&in, b->shape[d], &want, "buffer shape");
      if (st) break;
      if (want != t->shape[d]) {
        st = err(&in, RLX_INVALID_ARGUMENT, "parameter '%s' (buffer '%s'): expected shape[%d] = %lld, got %lld", pname,
                 b->name, d, (long long)want, (long long)t->shape[d]);
        break;
      }
      if (t->shape[d] == 0) empty = true;
    }
    if (st) break;
    /* strides: compact unless the buffer declares strides (bound or checked like shapes) */
    int64_t expect = 1;
    for (int d = b->ndim - 1; d >= 0 && !st; d--) {
      int64_t got = t->strides ? t->strides[d] : expect;
      if (b->strides) {
        st = bind_or_check(&in, b->strides[d], got, pname, "strides", d, slots, &n_slots, vars);
        int64_t want;
        if (!st) st = eval_int(&in, b->strides[d], &want, "buffer stride");
        if (!st && want != got && t->shape[d] != 1)
          st = err(&in, RLX_INVALID_ARGUMENT, "parameter '%s' (buffer '%s'): expected strides[%d] = %lld, got %lld", pname,
                   b->name, d, (long long)want, (long long)got);
      } else if (got != expect && t->shape[d] != 1) {
        st = err(&in, RLX_INVALID_ARGUMENT, "parameter '%s' (buffer '%s'): tensor is not compact (strides[%d] = %lld)", pname,
                 b->name, d, (long long)got);
      }
      int64_t span = 0; /* an empty tensor's other dims may be anything: no wrapped sizes */
      if (t->shape[d] > 0)
        ovf |= __builtin_mul_overflow(t->shape[d] - 1, got, &span) || __builtin_add_overflow(max_off, span, &max_off);
      ovf |= __builtin_mul_overflow(expect, t->shape[d], &expect);
    }
    if (st) break;
    int64_t esz = rlx_dtype_bytes(b->dtype), nbytes = 0;
    if (!empty && (ovf || __builtin_add_overflow(max_off, 1, &nbytes) || __builtin_mul_overflow(nbytes, esz, &nbytes))) {
      st = err(&in, RLX_INVALID_ARGUMENT, "parameter '%s' (buffer '%s'): the tensor's extent in bytes overflows int64",
               pname, b->name);
      break;
    }
    if (!t->data && !empty) {
      st = err(&in, RLX_INVALID_ARGUMENT, "parameter '%s' (buffer '%s'): tensor has no data", pname, b->name);
      break;
    }
    stores[i].data = (char*)t->data + t->byte_offset;
    stores[i].nbytes = empty ? 0 : nbytes;
    stores[i].name = b->name;
    if (b->elem_offset) {
      /* the buffer's elem_offset is the tensor's byte_offset in elements (bound or checked);
       * accesses add it, so the storage starts at the data pointer itself */
      if (t->byte_offset % (uint64_t)esz != 0) {
        st = err(&in, RLX_INVALID_ARGUMENT, "parameter '%s' (buffer '%s'): byte_offset %llu is not a multiple of %lld",
                 pname, b->name, (unsigned long long)t->byte_offset, (long long)esz);
        break;
      }
      int64_t off = (int64_t)(t->byte_offset / (uint64_t)esz), want;
      st = bind_or_check(&in, b->elem_offset, off, pname, "elem_offset", 0, slots, &n_slots, vars);
      if (!st) st = eval_int(&in, b->elem_offset, &want, "elem_offset");
      if (!st && want != off)
        st = err(&in, RLX_INVALID_ARGUMENT, "parameter '%s' (buffer '%s'): expected elem_offset %lld, got %lld", pname,
                 b->name, (long long)want, (long long)off);
      if (st) break;
      stores[i].data = (char*)t->data;
      stores[i].nbytes += (int64_t)t->byte_offset;
    }
    if (rlx_ptrmap_get(&in.storage, b->data) || (f->params[i] != b->data && rlx_ptrmap_get(&in.storage, f->params[i]))) {
      st = err(&in, RLX_INVALID_ARGUMENT, "parameter '%s' (buffer '%s'): data var shared with another parameter", pname, b->name);
      break;
    }
    rlx_ptrmap_put(&in.storage, b->data, &stores[i]);
    if (f->params[i] != b->data) rlx_ptrmap_put(&in.storage, f->params[i], &stores[i]);
  }
  if (!st) st = exec(&in, f->body);
  for (int i = 0; i < n_slots; i++) free(slots[i]);
  free(slots);
  free(vars);
  free(stores);
  for (int i = 0; i < in.spare.len; i++) free(in.spare.data[i]);
  rlx_vec_free(&in.spare);
  rlx_vec_free(&in.env);
  rlx_ptrmap_free(&in.storage);
  return st;
}

double rlx_tir_interp_work(const rlx_tir_stmt_t* s, const rlx_int_env_t* env) {
  if (!s) return 0;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE:
    case RLX_STMT_EVALUATE: return 1;
    case RLX_STMT_FOR: {
      const rlx_tir_for_t* f = RLX_AS(const rlx_tir_for_t, s);
      int64_t ext = 0;
      double w = rlx_tir_interp_work(f->body, env);
      rlx_status_t* st = rlx_ir_eval_int(f->extent, env, &ext);
      bool known = st == NULL;
      rlx_status_free(st);
      if (w < 0 || !known) return -1;
      return (double)(ext > 0 ? ext : 0) * w;
    }
    case RLX_STMT_SEQ: {
      const rlx_tir_seq_t* q = RLX_AS(const rlx_tir_seq_t, s);
      double w = 0;
      for (int i = 0; i < q->n; i++) {
        double x = rlx_tir_interp_work(q->stmts[i], env);
        if (x < 0) return -1;
        w += x;
      }
      return w;
    }
    case RLX_STMT_IF: {
      const rlx_tir_if_t* c = RLX_AS(const rlx_tir_if_t, s);
      double a = rlx_tir_interp_work(c->then_case, env), b = rlx_tir_interp_work(c->else_case, env);
      return a < 0 || b < 0 ? -1 : a + b;
    }
    case RLX_STMT_LET: return rlx_tir_interp_work(RLX_AS(const rlx_tir_let_t, s)->body, env);
    case RLX_STMT_ALLOCATE: return rlx_tir_interp_work(RLX_AS(const rlx_tir_allocate_t, s)->body, env);
    case RLX_STMT_BLOCK_REALIZE: {
      const rlx_tir_block_t* b = RLX_AS(const rlx_tir_block_realize_t, s)->block;
      double a = rlx_tir_interp_work(b->init, env), w = rlx_tir_interp_work(b->body, env);
      return a < 0 || w < 0 ? -1 : a + w;
    }
    case RLX_STMT_KIND_COUNT: return -1;
  }
  return -1;
}
