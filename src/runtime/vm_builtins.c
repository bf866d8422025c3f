/* VM builtins: allocation, shapes and the shape heap, checks, tuples, data-dependent ONNX
 * ops, loops (list in vm_builtins.def). Each checks its own arguments: a malformed executable gets an error,
 * never a crash. */
#include <stdio.h>
#include <string.h>

#include "vm_internal.h"

#define ERR(...) rlx_status_create(RLX_INVALID_ARGUMENT, __VA_ARGS__)
/* a value of another kind than the one expected (TVM raises TypeError) */
#define KIND_ERR(...) rlx_status_create(RLX_TYPE_MISMATCH, __VA_ARGS__)

enum { RLX_VM_MAX_NDIM_UNIQUE = 32 };

static RLX_MUST_USE rlx_status_t* want_n(const char* who, int n, int want) {
  if (n != want) return ERR("%s: expected %d arguments, got %d", who, want, n);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* want_kind(const char* who, int i, const rlx_vmv_t* v, rlx_vmv_kind_t k) {
  if (v->kind != k)
    return KIND_ERR("%s: argument %d must be %s, got %s", who, i, rlx_vmv_kind_name(k), rlx_vmv_kind_name(v->kind));
  return NULL;
}

/* The shape heap: an int64 tensor whose slots hold the symbolic dims of one call. */
static RLX_MUST_USE rlx_status_t* heap_arg(const char* who, int i, const rlx_vmv_t* v, int64_t** out, int64_t* out_n) {
  RLX_RETURN_IF_ERROR(want_kind(who, i, v, RLX_VMV_TENSOR));
  DLTensor* t = &v->u.t->dl;
  if (t->ndim != 1 || t->dtype.code != kDLInt || t->dtype.bits != 64)
    return ERR("%s: argument %d is not a shape heap (1-d int64 tensor)", who, i);
  *out = (int64_t*)t->data;
  *out_n = t->shape[0];
  return NULL;
}

static RLX_MUST_USE rlx_status_t* slot_ok(const char* who, int64_t slot, int64_t n) {
  if (slot < 0 || slot >= n) return ERR("%s: shape heap slot %lld out of range [0, %lld)", who, (long long)slot, (long long)n);
  return NULL;
}

/* alloc_shape_heap(i<size>) → int64 tensor of size slots, zeroed. */
static RLX_MUST_USE rlx_status_t* b_alloc_shape_heap(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.alloc_shape_heap";
  RLX_RETURN_IF_ERROR(want_n(who, n, 1));
  RLX_RETURN_IF_ERROR(want_kind(who, 0, &a[0], RLX_VMV_INT));
  int64_t size = a[0].u.i;
  if (size < 0 || size > (1 << 24)) return ERR("%s: bad size %lld", who, (long long)size);
  rlx_ndarray_t* t = NULL;
  RLX_RETURN_IF_ERROR(rlx_ndarray_create(1, &size, rlx_dldtype(kDLInt, 64, 1), NULL, &t));
  memset(t->dl.data, 0, (size_t)size * 8);
  out->kind = RLX_VMV_TENSOR;
  out->u.t = t;
  return NULL;
}

/* The dims of a tensor or shape value. */
static RLX_MUST_USE rlx_status_t* dims_of(const char* who, const rlx_vmv_t* v, int* ndim, const int64_t** dims) {
  switch (v->kind) {
    case RLX_VMV_TENSOR: *ndim = v->u.t->dl.ndim; *dims = v->u.t->dl.shape; return NULL;
    case RLX_VMV_SHAPE: *ndim = v->u.shape->ndim; *dims = v->u.shape->dims; return NULL;
    case RLX_VMV_NONE:
    case RLX_VMV_INT:
    case RLX_VMV_FLOAT:
    case RLX_VMV_DTYPE:
    case RLX_VMV_STR:
    case RLX_VMV_TUPLE:
    case RLX_VMV_FUNC: break;
  }
  return ERR("%s: expected a tensor or a shape, got %s", who, rlx_vmv_kind_name(v->kind));
}


/* Appends ", with n bound to 3, m bound to 4" for the heap dims of the pattern; names are
 * taken from `expected` ("(n, 4)") dim by dim. */
static void bound_names(rlx_strbuf_t* sb, const char* expected, int ndim, const int64_t* kinds,
                        const int64_t* vals, const int64_t* heap) {
  const char* p = expected;
  if (*p == '(') p++;
  bool first = true;
  for (int d = 0; d < ndim && *p; d++) {
    size_t len = strcspn(p, ",)");
    if (kinds[d] == RLX_VM_MATCH_STORE || kinds[d] == RLX_VM_MATCH_ASSERT_SLOT) {
      char name[64];
      snprintf(name, sizeof(name), "%.*s", (int)(len < 63 ? len : 63), p);
      /* the same var may appear twice: report once */
      bool seen = false;
      for (int e = 0; e < d; e++)
        if ((kinds[e] == RLX_VM_MATCH_STORE || kinds[e] == RLX_VM_MATCH_ASSERT_SLOT) && vals[e] == vals[d]) seen = true;
      if (!seen) {
        rlx_strbuf_printf(sb, "%s%s bound to %lld", first ? " with " : ", ", name, (long long)heap[vals[d]]);
        first = false;
      }
    }
    p += len;
    while (*p == ',' || *p == ' ') p++;
  }
}

/* match_shape(value, heap, i<ndim>, (i<kind>, i<v>) * ndim, c<context>, c<expected text>):
 * value is a tensor or shape of exactly ndim dims; per dim: kind 0 = must equal v, 1 =
 * store into heap slot v, 2 = must equal heap slot v, 3 = not checked. All stores happen
 * before the checks, so "(n, n)" works. Error: "<context>: expected shape <expected> with n
 * bound to 3, got (3, 5)". */
static RLX_MUST_USE rlx_status_t* b_match_shape(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.match_shape";
  if (n < 5) return ERR("%s: expected at least 5 arguments, got %d", who, n);
  RLX_RETURN_IF_ERROR(want_kind(who, 2, &a[2], RLX_VMV_INT));
  int64_t nd = a[2].u.i;
  if (nd < 0 || nd > RLX_VM_MAX_NDIM || n != 5 + 2 * nd) return ERR("%s: bad ndim %lld for %d arguments", who, (long long)nd, n);
  const char* ctx = a[n - 2].kind == RLX_VMV_STR ? a[n - 2].u.s : "value";
  const char* expected = a[n - 1].kind == RLX_VMV_STR ? a[n - 1].u.s : "?";
  int64_t* heap = NULL;
  int64_t hn = 0;
  RLX_RETURN_IF_ERROR(heap_arg(who, 1, &a[1], &heap, &hn));
  int ndim = 0;
  const int64_t* dims = NULL;
  rlx_status_t* st = dims_of(who, &a[0], &ndim, &dims);
  if (st) {
    rlx_status_free(st);
    return KIND_ERR("%s: expected a value of shape %s, got %s", ctx, expected, rlx_vmv_kind_name(a[0].kind));
  }
  char buf[256];
  if (ndim != nd)
    return ERR("%s: expected shape %s (ndim %lld), got %s (ndim %d)", ctx, expected, (long long)nd,
               rlx_shape_str(ndim, dims, buf, sizeof(buf)), ndim);
  int64_t kinds[RLX_VM_MAX_NDIM], vals[RLX_VM_MAX_NDIM];
  for (int d = 0; d < nd; d++) {
    RLX_RETURN_IF_ERROR(want_kind(who, 3 + 2 * d, &a[3 + 2 * d], RLX_VMV_INT));
    RLX_RETURN_IF_ERROR(want_kind(who, 4 + 2 * d, &a[4 + 2 * d], RLX_VMV_INT));
    kinds[d] = a[3 + 2 * d].u.i;
    vals[d] = a[4 + 2 * d].u.i;
    if (kinds[d] < RLX_VM_MATCH_ASSERT_IMM || kinds[d] > RLX_VM_MATCH_SKIP) return ERR("%s: bad match kind %lld", who, (long long)kinds[d]);
    if (kinds[d] == RLX_VM_MATCH_STORE || kinds[d] == RLX_VM_MATCH_ASSERT_SLOT) RLX_RETURN_IF_ERROR(slot_ok(who, vals[d], hn));
  }
  for (int d = 0; d < nd; d++)
    if (kinds[d] == RLX_VM_MATCH_STORE) heap[vals[d]] = dims[d];
  for (int d = 0; d < nd; d++) {
    bool ok = true;
    if (kinds[d] == RLX_VM_MATCH_ASSERT_IMM) ok = dims[d] == vals[d];
    else if (kinds[d] == RLX_VM_MATCH_ASSERT_SLOT || kinds[d] == RLX_VM_MATCH_STORE) ok = dims[d] == heap[vals[d]];
    if (!ok) {
      rlx_strbuf_t sb = {0};
      rlx_strbuf_printf(&sb, "%s: expected shape %s", ctx, expected);
      bound_names(&sb, expected, (int)nd, kinds, vals, heap);
      rlx_strbuf_printf(&sb, ", got %s", rlx_shape_str(ndim, dims, buf, sizeof(buf)));
      st = ERR("%s", rlx_strbuf_cstr(&sb));
      rlx_strbuf_free(&sb);
      return st;
    }
  }
  (void)out;
  return NULL;
}

/* make_shape(heap or i0, i<ndim>, (i<kind>, i<v>) * ndim): kind 0 = the value v, 1 = heap slot v. */
static RLX_MUST_USE rlx_status_t* b_make_shape(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.make_shape";
  if (n < 2) return ERR("%s: expected at least 2 arguments, got %d", who, n);
  RLX_RETURN_IF_ERROR(want_kind(who, 1, &a[1], RLX_VMV_INT));
  int64_t nd = a[1].u.i;
  if (nd < 0 || nd > RLX_VM_MAX_NDIM || n != 2 + 2 * nd) return ERR("%s: bad ndim %lld for %d arguments", who, (long long)nd, n);
  int64_t* heap = NULL;
  int64_t hn = 0;
  /* no heap (an immediate) when every dim is a constant */
  if (a[0].kind == RLX_VMV_TENSOR) RLX_RETURN_IF_ERROR(heap_arg(who, 0, &a[0], &heap, &hn));
  int64_t dims[RLX_VM_MAX_NDIM];
  for (int d = 0; d < nd; d++) {
    RLX_RETURN_IF_ERROR(want_kind(who, 2 + 2 * d, &a[2 + 2 * d], RLX_VMV_INT));
    RLX_RETURN_IF_ERROR(want_kind(who, 3 + 2 * d, &a[3 + 2 * d], RLX_VMV_INT));
    int64_t k = a[2 + 2 * d].u.i, v = a[3 + 2 * d].u.i;
    if (k == 0) {
      dims[d] = v;
    } else if (k == 1) {
      RLX_RETURN_IF_ERROR(slot_ok(who, v, hn));
      dims[d] = heap[v];
    } else {
      return ERR("%s: bad dim kind %lld", who, (long long)k);
    }
  }
  rlx_vm_shape_t* s = NULL;
  RLX_RETURN_IF_ERROR(rlx_vm_shape_new((int)nd, dims, &s));
  out->kind = RLX_VMV_SHAPE;
  out->u.shape = s;
  return NULL;
}

/* match_prim_value(value, heap, i<kind>, i<v>, c<context>, c<expected text>): value is an
 * int; kind as match_shape's. Error: "<context>: expected n (bound to 3), got 4". */
static RLX_MUST_USE rlx_status_t* b_match_prim_value(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.match_prim_value";
  RLX_RETURN_IF_ERROR(want_n(who, n, 6));
  const char* ctx = a[4].kind == RLX_VMV_STR ? a[4].u.s : "value";
  const char* expected = a[5].kind == RLX_VMV_STR ? a[5].u.s : "?";
  if (a[0].kind != RLX_VMV_INT) return KIND_ERR("%s: expected an int, got %s", ctx, rlx_vmv_kind_name(a[0].kind));
  RLX_RETURN_IF_ERROR(want_kind(who, 2, &a[2], RLX_VMV_INT));
  RLX_RETURN_IF_ERROR(want_kind(who, 3, &a[3], RLX_VMV_INT));
  int64_t k = a[2].u.i, v = a[3].u.i, x = a[0].u.i;
  if (k == RLX_VM_MATCH_ASSERT_IMM) {
    if (x != v) return ERR("%s: expected %lld, got %lld", ctx, (long long)v, (long long)x);
    return NULL;
  }
  if (k == RLX_VM_MATCH_SKIP) return NULL;
  if (k != RLX_VM_MATCH_STORE && k != RLX_VM_MATCH_ASSERT_SLOT) return ERR("%s: bad match kind %lld", who, (long long)k);
  int64_t* heap = NULL;
  int64_t hn = 0;
  RLX_RETURN_IF_ERROR(heap_arg(who, 1, &a[1], &heap, &hn));
  RLX_RETURN_IF_ERROR(slot_ok(who, v, hn));
  if (k == RLX_VM_MATCH_STORE) heap[v] = x;
  else if (heap[v] != x)
    return ERR("%s: expected %s (bound to %lld), got %lld", ctx, expected, (long long)heap[v], (long long)x);
  (void)out;
  return NULL;
}

/* make_prim_value(heap or i0, i<kind>, i<v>): kind 0 = the value v, 1 = heap slot v. */
static RLX_MUST_USE rlx_status_t* b_make_prim_value(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.make_prim_value";
  RLX_RETURN_IF_ERROR(want_n(who, n, 3));
  RLX_RETURN_IF_ERROR(want_kind(who, 1, &a[1], RLX_VMV_INT));
  RLX_RETURN_IF_ERROR(want_kind(who, 2, &a[2], RLX_VMV_INT));
  out->kind = RLX_VMV_INT;
  if (a[1].u.i == 0) {
    out->u.i = a[2].u.i;
    return NULL;
  }
  if (a[1].u.i != 1) return ERR("%s: bad kind %lld", who, (long long)a[1].u.i);
  int64_t* heap = NULL;
  int64_t hn = 0;
  RLX_RETURN_IF_ERROR(heap_arg(who, 0, &a[0], &heap, &hn));
  RLX_RETURN_IF_ERROR(slot_ok(who, a[2].u.i, hn));
  out->u.i = heap[a[2].u.i];
  return NULL;
}


static int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* shape_compute(heap, i<dst slot>, (i<op>, i<operand>)...): runs the postfix program (push
 * immediate / push slot / binary ops on int64: arithmetic, min/max, comparisons and logic
 * giving 0 or 1) and stores its one result in the slot. */
static RLX_MUST_USE rlx_status_t* b_shape_compute(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.shape_compute";
  if (n < 4 || (n - 2) % 2) return ERR("%s: bad argument count %d", who, n);
  int64_t* heap = NULL;
  int64_t hn = 0;
  RLX_RETURN_IF_ERROR(heap_arg(who, 0, &a[0], &heap, &hn));
  RLX_RETURN_IF_ERROR(want_kind(who, 1, &a[1], RLX_VMV_INT));
  RLX_RETURN_IF_ERROR(slot_ok(who, a[1].u.i, hn));
  int64_t stack[64];
  int sp = 0;
  for (int i = 2; i < n; i += 2) {
    RLX_RETURN_IF_ERROR(want_kind(who, i, &a[i], RLX_VMV_INT));
    RLX_RETURN_IF_ERROR(want_kind(who, i + 1, &a[i + 1], RLX_VMV_INT));
    int64_t op = a[i].u.i, v = a[i + 1].u.i;
    if (op == RLX_VM_SC_PUSH_IMM || op == RLX_VM_SC_PUSH_SLOT) {
      if (sp == 64) return ERR("%s: program too deep", who);
      if (op == RLX_VM_SC_PUSH_SLOT) RLX_RETURN_IF_ERROR(slot_ok(who, v, hn));
      stack[sp++] = op == RLX_VM_SC_PUSH_IMM ? v : heap[v];
      continue;
    }
    if (sp < 2) return ERR("%s: stack underflow", who);
    int64_t y = stack[--sp], x = stack[sp - 1], r;
    switch (op) {
      case RLX_VM_SC_ADD: r = (int64_t)((uint64_t)x + (uint64_t)y); break;
      case RLX_VM_SC_SUB: r = (int64_t)((uint64_t)x - (uint64_t)y); break;
      case RLX_VM_SC_MUL: r = (int64_t)((uint64_t)x * (uint64_t)y); break;
      case RLX_VM_SC_FLOORDIV:
      case RLX_VM_SC_FLOORMOD:
        if (y == 0) return ERR("%s: division by zero in a shape", who);
        r = floordiv(x, y);
        if (op == RLX_VM_SC_FLOORMOD) r = x - r * y;
        break;
      case RLX_VM_SC_MIN: r = x < y ? x : y; break;
      case RLX_VM_SC_MAX: r = x > y ? x : y; break;
      case RLX_VM_SC_EQ: r = x == y; break;
      case RLX_VM_SC_NE: r = x != y; break;
      case RLX_VM_SC_LT: r = x < y; break;
      case RLX_VM_SC_LE: r = x <= y; break;
      case RLX_VM_SC_GT: r = x > y; break;
      case RLX_VM_SC_GE: r = x >= y; break;
      case RLX_VM_SC_AND: r = x && y; break;
      case RLX_VM_SC_OR: r = x || y; break;
      default: return ERR("%s: bad opcode %lld", who, (long long)op);
    }
    stack[sp - 1] = r;
  }
  if (sp != 1) return ERR("%s: program leaves %d values", who, sp);
  heap[a[1].u.i] = stack[0];
  (void)out;
  return NULL;
}

/* check_tensor_info(value, i<ndim or -1>, dtype constant or i0 (unknown), c<context>). */
static RLX_MUST_USE rlx_status_t* b_check_tensor_info(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.check_tensor_info";
  RLX_RETURN_IF_ERROR(want_n(who, n, 4));
  RLX_RETURN_IF_ERROR(want_kind(who, 1, &a[1], RLX_VMV_INT));
  const char* ctx = a[3].kind == RLX_VMV_STR ? a[3].u.s : "value";
  char b1[32], b2[32];
  if (a[0].kind != RLX_VMV_TENSOR)
    return KIND_ERR("%s: expected a Tensor, got %s", ctx, rlx_vmv_kind_name(a[0].kind));
  DLTensor* t = &a[0].u.t->dl;
  if (a[1].u.i >= 0 && t->ndim != a[1].u.i)
    return ERR("%s: expected a tensor of ndim %lld, got ndim %d", ctx, (long long)a[1].u.i, t->ndim);
  if (a[2].kind == RLX_VMV_DTYPE && !rlx_dldtype_equal(a[2].u.dtype, t->dtype))
    return ERR("%s: expected dtype %s, got %s", ctx, rlx_dldtype_str(a[2].u.dtype, b1), rlx_dldtype_str(t->dtype, b2));
  (void)out;
  return NULL;
}

/* check_tuple_info(value, i<n fields>, c<context>). */
static RLX_MUST_USE rlx_status_t* b_check_tuple_info(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.check_tuple_info";
  RLX_RETURN_IF_ERROR(want_n(who, n, 3));
  RLX_RETURN_IF_ERROR(want_kind(who, 1, &a[1], RLX_VMV_INT));
  const char* ctx = a[2].kind == RLX_VMV_STR ? a[2].u.s : "value";
  if (a[0].kind != RLX_VMV_TUPLE) return KIND_ERR("%s: expected a Tuple, got %s", ctx, rlx_vmv_kind_name(a[0].kind));
  if (a[0].u.tuple->n != a[1].u.i)
    return ERR("%s: expected a tuple of %lld fields, got %d", ctx, (long long)a[1].u.i, a[0].u.tuple->n);
  (void)out;
  return NULL;
}

/* check_prim_value_info(value, c<dtype>, c<context>): an int, uint or bool dtype takes an int
 * (a bool is one), a float dtype an int or a float (as TVM's check converts an int to
 * double). Error: "<context>: expected an int (R.Prim("int64")), got float". */
static RLX_MUST_USE rlx_status_t* b_check_prim_value_info(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.check_prim_value_info";
  RLX_RETURN_IF_ERROR(want_n(who, n, 3));
  RLX_RETURN_IF_ERROR(want_kind(who, 1, &a[1], RLX_VMV_DTYPE));
  const char* ctx = a[2].kind == RLX_VMV_STR ? a[2].u.s : "value";
  DLDataType t = a[1].u.dtype;
  char b[32];
  bool is_float = t.code == kDLFloat || t.code == kDLBfloat;
  bool ok = a[0].kind == RLX_VMV_INT || (is_float && a[0].kind == RLX_VMV_FLOAT);
  if (!ok)
    return KIND_ERR("%s: expected %s (R.Prim(\"%s\")), got %s", ctx, is_float ? "a float" : "an int", rlx_dldtype_str(t, b),
               rlx_vmv_kind_name(a[0].kind));
  (void)vm;
  (void)out;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* shape_arg(const char* who, int i, const rlx_vmv_t* v, int* ndim, const int64_t** dims) {
  RLX_RETURN_IF_ERROR(want_kind(who, i, v, RLX_VMV_SHAPE));
  *ndim = v->u.shape->ndim;
  *dims = v->u.shape->dims;
  return NULL;
}

/* alloc_storage(shape (nbytes,), i<device index>, c<scope str>, c<dtype>) → a 1-d uint8
 * tensor of nbytes (the storage), from the VM's pool. */
static RLX_MUST_USE rlx_status_t* b_alloc_storage(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.alloc_storage";
  RLX_RETURN_IF_ERROR(want_n(who, n, 4));
  int nd = 0;
  const int64_t* dims = NULL;
  RLX_RETURN_IF_ERROR(shape_arg(who, 0, &a[0], &nd, &dims));
  if (nd != 1) return ERR("%s: size must be a 1-d shape, got ndim %d", who, nd);
  rlx_ndarray_t* t = NULL;
  rlx_allocator_t pool = rlx_vm_pool_allocator(vm->pool);
  RLX_RETURN_IF_ERROR(rlx_ndarray_create(1, dims, rlx_dldtype(kDLUInt, 8, 1), &pool, &t));
  out->kind = RLX_VMV_TENSOR;
  out->u.t = t;
  return NULL;
}

/* alloc_tensor(storage, i<byte offset>, shape, c<dtype>) → a view of the storage. */
static RLX_MUST_USE rlx_status_t* b_alloc_tensor(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.alloc_tensor";
  RLX_RETURN_IF_ERROR(want_n(who, n, 4));
  RLX_RETURN_IF_ERROR(want_kind(who, 0, &a[0], RLX_VMV_TENSOR));
  RLX_RETURN_IF_ERROR(want_kind(who, 1, &a[1], RLX_VMV_INT));
  RLX_RETURN_IF_ERROR(want_kind(who, 3, &a[3], RLX_VMV_DTYPE));
  int nd = 0;
  const int64_t* dims = NULL;
  RLX_RETURN_IF_ERROR(shape_arg(who, 2, &a[2], &nd, &dims));
  if (a[1].u.i < 0) return ERR("%s: negative offset", who);
  rlx_ndarray_t* t = NULL;
  RLX_RETURN_IF_ERROR(
      rlx_status_annotate(rlx_ndarray_view(a[0].u.t, nd, dims, a[3].u.dtype, (uint64_t)a[1].u.i, &t), "%s", who));
  out->kind = RLX_VMV_TENSOR;
  out->u.t = t;
  return NULL;
}

/* empty(shape, c<dtype>) → a fresh tensor (uninitialized), from the VM's pool. */
static RLX_MUST_USE rlx_status_t* b_empty(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.empty";
  RLX_RETURN_IF_ERROR(want_n(who, n, 2));
  RLX_RETURN_IF_ERROR(want_kind(who, 1, &a[1], RLX_VMV_DTYPE));
  int nd = 0;
  const int64_t* dims = NULL;
  RLX_RETURN_IF_ERROR(shape_arg(who, 0, &a[0], &nd, &dims));
  rlx_ndarray_t* t = NULL;
  rlx_allocator_t pool = rlx_vm_pool_allocator(vm->pool);
  RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_ndarray_create(nd, dims, a[1].u.dtype, &pool, &t), "%s", who));
  out->kind = RLX_VMV_TENSOR;
  out->u.t = t;
  return NULL;
}

/* null_value() → none (writing it into a register releases what the register held). */
static RLX_MUST_USE rlx_status_t* b_null_value(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  (void)a;
  (void)out;
  return want_n("vm.builtin.null_value", n, 0);
}

/* make_tuple(fields...) → tuple. */
static RLX_MUST_USE rlx_status_t* b_make_tuple(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  rlx_vm_tuple_t* t = malloc(sizeof(*t) + sizeof(rlx_vmv_t) * (size_t)n);
  if (!t) return rlx_status_create(RLX_OUT_OF_MEMORY, "vm.builtin.make_tuple");
  t->refcount = 1;
  t->n = n;
  for (int i = 0; i < n; i++) t->fields[i] = rlx_vmv_retain(a[i]);
  out->kind = RLX_VMV_TUPLE;
  out->u.tuple = t;
  return NULL;
}

/* tuple_getitem(tuple, i<index>) → field. */
static RLX_MUST_USE rlx_status_t* b_tuple_getitem(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.tuple_getitem";
  RLX_RETURN_IF_ERROR(want_n(who, n, 2));
  RLX_RETURN_IF_ERROR(want_kind(who, 0, &a[0], RLX_VMV_TUPLE));
  RLX_RETURN_IF_ERROR(want_kind(who, 1, &a[1], RLX_VMV_INT));
  if (a[1].u.i < 0 || a[1].u.i >= a[0].u.tuple->n)
    return ERR("%s: index %lld out of range for a tuple of %d", who, (long long)a[1].u.i, a[0].u.tuple->n);
  *out = rlx_vmv_retain(a[0].u.tuple->fields[a[1].u.i]);
  return NULL;
}

/* copy(x) → x (a register move). */
static RLX_MUST_USE rlx_status_t* b_copy(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  RLX_RETURN_IF_ERROR(want_n("vm.builtin.copy", n, 1));
  *out = rlx_vmv_retain(a[0]);
  return NULL;
}

/* shape_of(tensor) → shape. */
static RLX_MUST_USE rlx_status_t* b_shape_of(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.shape_of";
  RLX_RETURN_IF_ERROR(want_n(who, n, 1));
  RLX_RETURN_IF_ERROR(want_kind(who, 0, &a[0], RLX_VMV_TENSOR));
  rlx_vm_shape_t* s = NULL;
  RLX_RETURN_IF_ERROR(rlx_vm_shape_new(a[0].u.t->dl.ndim, a[0].u.t->dl.shape, &s));
  out->kind = RLX_VMV_SHAPE;
  out->u.shape = s;
  return NULL;
}

/* call_tir_dyn(f<kernel>, args..., shape) → calls the kernel with args followed by the
 * shape's dims as int64 arguments (a call_tir with tir_vars). */
static RLX_MUST_USE rlx_status_t* b_call_tir_dyn(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.call_tir_dyn";
  if (n < 2) return ERR("%s: expected at least 2 arguments, got %d", who, n);
  RLX_RETURN_IF_ERROR(want_kind(who, 0, &a[0], RLX_VMV_FUNC));
  int nd = 0;
  const int64_t* dims = NULL;
  RLX_RETURN_IF_ERROR(shape_arg(who, n - 1, &a[n - 1], &nd, &dims));
  int m = n - 2 + nd;
  rlx_vmv_t* args = calloc((size_t)(m > 0 ? m : 1), sizeof(rlx_vmv_t));
  if (!args) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s", who);
  for (int i = 1; i < n - 1; i++) args[i - 1] = a[i];
  for (int d = 0; d < nd; d++) {
    args[n - 2 + d].kind = RLX_VMV_INT;
    args[n - 2 + d].u.i = dims[d];
  }
  rlx_status_t* st = rlx_vm_call_index(vm, a[0].u.func, args, m, out);
  free(args);
  return st;
}

/* A fresh int64 tensor of the given shape from the VM's pool. */
static RLX_MUST_USE rlx_status_t* new_i64(rlx_vm_t* vm, int ndim, const int64_t* shape, rlx_ndarray_t** out) {
  rlx_allocator_t pool = rlx_vm_pool_allocator(vm->pool);
  return rlx_ndarray_create(ndim, shape, rlx_dldtype(kDLInt, 64, 1), &pool, out);
}

/* tensor_to_shape(t) → shape of t's values (t: 1-d integer tensor in host memory; every
 * value must be a dim, >= 0). */
static RLX_MUST_USE rlx_status_t* b_tensor_to_shape(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.tensor_to_shape";
  RLX_RETURN_IF_ERROR(want_n(who, n, 1));
  RLX_RETURN_IF_ERROR(want_kind(who, 0, &a[0], RLX_VMV_TENSOR));
  const DLTensor* t = &a[0].u.t->dl;
  bool is_int = t->dtype.code == kDLInt || t->dtype.code == kDLUInt;
  if (t->ndim != 1 || !is_int || (t->dtype.bits != 32 && t->dtype.bits != 64) || t->dtype.lanes != 1)
    return ERR("%s: expected a 1-d int32 or int64 tensor, got a %d-d tensor of type code %d, %d bits", who, t->ndim,
               t->dtype.code, t->dtype.bits);
  int64_t k = t->shape[0];
  int64_t* dims = calloc((size_t)(k > 0 ? k : 1), sizeof(int64_t));
  if (!dims) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s", who);
  const char* base = (const char*)t->data + t->byte_offset;
  for (int64_t i = 0; i < k; i++) {
    dims[i] = t->dtype.bits == 64 ? ((const int64_t*)base)[i] : ((const int32_t*)base)[i];
    if (dims[i] < 0) {
      rlx_status_t* st = ERR("%s: value %lld at position %lld is not a dim (>= 0)", who, (long long)dims[i], (long long)i);
      free(dims);
      return st;
    }
  }
  rlx_vm_shape_t* s = NULL;
  rlx_status_t* st = rlx_vm_shape_new((int)k, dims, &s);
  free(dims);
  RLX_RETURN_IF_ERROR(st);
  out->kind = RLX_VMV_SHAPE;
  out->u.shape = s;
  return NULL;
}

/* shape_to_tensor(s) → 1-d int64 tensor of s's dims. */
static RLX_MUST_USE rlx_status_t* b_shape_to_tensor(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.shape_to_tensor";
  RLX_RETURN_IF_ERROR(want_n(who, n, 1));
  int nd = 0;
  const int64_t* dims = NULL;
  RLX_RETURN_IF_ERROR(shape_arg(who, 0, &a[0], &nd, &dims));
  int64_t len = nd;
  rlx_ndarray_t* t = NULL;
  RLX_RETURN_IF_ERROR(rlx_status_annotate(new_i64(vm, 1, &len, &t), "%s", who));
  if (nd) memcpy(t->dl.data, dims, sizeof(int64_t) * (size_t)nd);
  out->kind = RLX_VMV_TENSOR;
  out->u.t = t;
  return NULL;
}

/* Whether element i of t is nonzero (floats by value: -0.0 is zero, NaN is not; other
 * types by their bytes). */
static bool elem_nonzero(const DLTensor* t, const char* base, int64_t i) {
  int bytes = (t->dtype.bits + 7) / 8;
  const char* p = base + i * bytes;
  if (t->dtype.code == kDLFloat && t->dtype.bits == 32) return *(const float*)p != 0.0f;
  if (t->dtype.code == kDLFloat && t->dtype.bits == 64) return *(const double*)p != 0.0;
  if ((t->dtype.code == kDLFloat || t->dtype.code == kDLBfloat) && t->dtype.bits == 16)
    return (*(const uint16_t*)p & 0x7fff) != 0;
  for (int b = 0; b < bytes; b++)
    if (p[b]) return true;
  return false;
}

/* nonzero(x) → int64 tensor (ndim, count): the indices of x's nonzero elements in row-major
 * order, one row per dim (ONNX NonZero, numpy.nonzero stacked). The output size is known
 * only after reading x: one pass counts, a second fills the tensor allocated in between. */
static RLX_MUST_USE rlx_status_t* b_nonzero(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.nonzero";
  RLX_RETURN_IF_ERROR(want_n(who, n, 1));
  RLX_RETURN_IF_ERROR(want_kind(who, 0, &a[0], RLX_VMV_TENSOR));
  const DLTensor* x = &a[0].u.t->dl;
  if (x->dtype.lanes != 1 || (x->dtype.bits % 8 != 0 && x->dtype.bits != 1) || x->dtype.bits == 0)
    return ERR("%s: unsupported element type (code %d, %d bits)", who, x->dtype.code, x->dtype.bits);
  const char* base = (const char*)x->data + x->byte_offset;
  int64_t numel = 1;
  for (int d = 0; d < x->ndim; d++) numel *= x->shape[d];
  int64_t count = 0;
  for (int64_t i = 0; i < numel; i++) count += elem_nonzero(x, base, i);
  int64_t shape[2] = {x->ndim, count};
  rlx_ndarray_t* t = NULL;
  RLX_RETURN_IF_ERROR(rlx_status_annotate(new_i64(vm, 2, shape, &t), "%s", who));
  int64_t* o = t->dl.data;
  int64_t k = 0;
  for (int64_t i = 0; i < numel; i++) {
    if (!elem_nonzero(x, base, i)) continue;
    int64_t rest = i;
    for (int d = x->ndim - 1; d >= 0; d--) {
      o[d * count + k] = rest % x->shape[d];
      rest /= x->shape[d];
    }
    k++;
  }
  out->kind = RLX_VMV_TENSOR;
  out->u.t = t;
  return NULL;
}

/* Element 0 of a float32/64 or integer tensor (a 0-d or 1-element one) as double. */
static RLX_MUST_USE rlx_status_t* scalar_of(const char* who, int i, const rlx_vmv_t* v, double* out) {
  RLX_RETURN_IF_ERROR(want_kind(who, i, v, RLX_VMV_TENSOR));
  const DLTensor* t = &v->u.t->dl;
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  if (n != 1) return ERR("%s: argument %d must hold one value, it has %lld", who, i, (long long)n);
  const char* p = (const char*)t->data + t->byte_offset;
  if (t->dtype.code == kDLFloat && t->dtype.bits == 32) *out = *(const float*)p;
  else if (t->dtype.code == kDLFloat && t->dtype.bits == 64) *out = *(const double*)p;
  else if (t->dtype.code == kDLInt && t->dtype.bits == 64) *out = (double)*(const int64_t*)p;
  else if (t->dtype.code == kDLInt && t->dtype.bits == 32) *out = *(const int32_t*)p;
  else return ERR("%s: argument %d has an unsupported element type", who, i);
  return NULL;
}

/* Box k of boxes[b] as (ymin, xmin, ymax, xmax). */
static void nms_box(const float* boxes, int64_t n_boxes, int64_t b, int64_t k, bool center, double out[4]) {
  const float* p = boxes + (b * n_boxes + k) * 4;
  if (center) { /* x_center, y_center, width, height */
    out[0] = p[1] - p[3] / 2.0;
    out[1] = p[0] - p[2] / 2.0;
    out[2] = p[1] + p[3] / 2.0;
    out[3] = p[0] + p[2] / 2.0;
    return;
  }
  out[0] = p[0] < p[2] ? p[0] : p[2];
  out[2] = p[0] < p[2] ? p[2] : p[0];
  out[1] = p[1] < p[3] ? p[1] : p[3];
  out[3] = p[1] < p[3] ? p[3] : p[1];
}

static double nms_iou(const double a[4], const double b[4]) {
  double area_a = (a[2] - a[0]) * (a[3] - a[1]), area_b = (b[2] - b[0]) * (b[3] - b[1]);
  if (area_a <= 0 || area_b <= 0) return 0;
  double h = (a[2] < b[2] ? a[2] : b[2]) - (a[0] > b[0] ? a[0] : b[0]);
  double w = (a[3] < b[3] ? a[3] : b[3]) - (a[1] > b[1] ? a[1] : b[1]);
  if (h <= 0 || w <= 0) return 0;
  double inter = h * w;
  return inter / (area_a + area_b - inter);
}

/* non_max_suppression(boxes f32 (B, N, 4), scores f32 (B, C, N), max_per_class, iou_threshold,
 * score_threshold (one-value tensors), i<center_point_box>, i<has_score_threshold>) →
 * int64 (count, 3) rows (batch, class, box): per batch and class, boxes with a score above
 * the threshold in decreasing score order (lower index first on ties), each kept unless its
 * IoU with a box kept before exceeds iou_threshold, at most max_per_class. */
static RLX_MUST_USE rlx_status_t* b_non_max_suppression(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.non_max_suppression";
  RLX_RETURN_IF_ERROR(want_n(who, n, 7));
  RLX_RETURN_IF_ERROR(want_kind(who, 0, &a[0], RLX_VMV_TENSOR));
  RLX_RETURN_IF_ERROR(want_kind(who, 1, &a[1], RLX_VMV_TENSOR));
  RLX_RETURN_IF_ERROR(want_kind(who, 5, &a[5], RLX_VMV_INT));
  RLX_RETURN_IF_ERROR(want_kind(who, 6, &a[6], RLX_VMV_INT));
  const DLTensor *bx = &a[0].u.t->dl, *sc = &a[1].u.t->dl;
  bool f32 = bx->dtype.code == kDLFloat && bx->dtype.bits == 32 && sc->dtype.code == kDLFloat && sc->dtype.bits == 32;
  if (!f32 || bx->ndim != 3 || sc->ndim != 3 || bx->shape[2] != 4 || sc->shape[0] != bx->shape[0] ||
      sc->shape[2] != bx->shape[1])
    return ERR("%s: expects float32 boxes (B, N, 4) and scores (B, C, N)", who);
  double max_out = 0, iou_thr = 0, score_thr = 0;
  RLX_RETURN_IF_ERROR(scalar_of(who, 2, &a[2], &max_out));
  RLX_RETURN_IF_ERROR(scalar_of(who, 3, &a[3], &iou_thr));
  RLX_RETURN_IF_ERROR(scalar_of(who, 4, &a[4], &score_thr));
  int64_t nb = bx->shape[0], nbox = bx->shape[1], nc = sc->shape[1];
  const float* boxes = (const float*)((const char*)bx->data + bx->byte_offset);
  const float* scores = (const float*)((const char*)sc->data + sc->byte_offset);
  int64_t cap = nb * nc * (nbox > 0 ? nbox : 1);
  int64_t* sel = malloc(sizeof(int64_t) * 3 * (size_t)(cap > 0 ? cap : 1));
  int64_t* order = malloc(sizeof(int64_t) * (size_t)(nbox > 0 ? nbox : 1));
  double(*kept)[4] = malloc(sizeof(double[4]) * (size_t)(nbox > 0 ? nbox : 1));
  if (!sel || !order || !kept) {
    free(sel);
    free(order);
    free(kept);
    return rlx_status_create(RLX_OUT_OF_MEMORY, "%s", who);
  }
  int64_t count = 0;
  for (int64_t b = 0; b < nb; b++)
    for (int64_t c = 0; c < nc; c++) {
      const float* s = scores + (b * nc + c) * nbox;
      int64_t m = 0;
      for (int64_t k = 0; k < nbox; k++)
        if (!a[6].u.i || s[k] > score_thr) order[m++] = k;
      for (int64_t i = 1; i < m; i++) { /* insertion sort: score down, index up (stable) */
        int64_t k = order[i], j = i;
        while (j > 0 && s[order[j - 1]] < s[k]) {
          order[j] = order[j - 1];
          j--;
        }
        order[j] = k;
      }
      int64_t n_kept = 0;
      for (int64_t i = 0; i < m && (double)n_kept < max_out; i++) {
        double box[4];
        nms_box(boxes, nbox, b, order[i], a[5].u.i != 0, box);
        bool keep = true;
        for (int64_t j = 0; j < n_kept && keep; j++) keep = !(nms_iou(box, kept[j]) > iou_thr);
        if (!keep) continue;
        memcpy(kept[n_kept++], box, sizeof(box));
        sel[count * 3] = b;
        sel[count * 3 + 1] = c;
        sel[count * 3 + 2] = order[i];
        count++;
      }
    }
  free(order);
  free(kept);
  int64_t shape[2] = {count, 3};
  rlx_ndarray_t* t = NULL;
  rlx_status_t* st = new_i64(vm, 2, shape, &t);
  if (!st && count) memcpy(t->dl.data, sel, sizeof(int64_t) * 3 * (size_t)count);
  free(sel);
  RLX_RETURN_IF_ERROR(rlx_status_annotate(st, "%s", who));
  out->kind = RLX_VMV_TENSOR;
  out->u.t = t;
  return NULL;
}

/* Element k of t's data as double (float32/64, integer types). */
static double elem_f64(const DLTensor* t, const char* base, int64_t k) {
  int bytes = (t->dtype.bits + 7) / 8;
  const char* p = base + k * bytes;
  if (t->dtype.code == kDLFloat) return t->dtype.bits == 64 ? *(const double*)p : *(const float*)p;
  bool s = t->dtype.code == kDLInt;
  switch (bytes) {
    case 1: return s ? *(const int8_t*)p : *(const uint8_t*)p;
    case 2: return s ? *(const int16_t*)p : *(const uint16_t*)p;
    case 4: return s ? (double)*(const int32_t*)p : (double)*(const uint32_t*)p;
    default: return s ? (double)*(const int64_t*)p : (double)*(const uint64_t*)p;
  }
}

typedef struct {
  const DLTensor* t;
  const char* base;
  int64_t outer, n, inner; /* slice i: elements (o, k) at (o * n + i) * inner + k */
} uq_t;

/* Lexicographic comparison of slices i and j. */
static int uq_cmp(const uq_t* q, int64_t i, int64_t j) {
  for (int64_t o = 0; o < q->outer; o++)
    for (int64_t k = 0; k < q->inner; k++) {
      double a = elem_f64(q->t, q->base, (o * q->n + i) * q->inner + k);
      double b = elem_f64(q->t, q->base, (o * q->n + j) * q->inner + k);
      if (a != b) return a < b ? -1 : 1;
    }
  return 0;
}

/* unique(x, i<axis> (-1: flattened), i<sorted>) → tuple (y, indices, inverse_indices,
 * counts) as ONNX Unique: the distinct slices of x along axis (elements when flattened), in
 * ascending order or in order of first occurrence; the first index of each, the position in
 * y of each slice of x, and how often each occurs. Quadratic in the slice count. */
static RLX_MUST_USE rlx_status_t* b_unique(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.unique";
  RLX_RETURN_IF_ERROR(want_n(who, n, 3));
  RLX_RETURN_IF_ERROR(want_kind(who, 0, &a[0], RLX_VMV_TENSOR));
  RLX_RETURN_IF_ERROR(want_kind(who, 1, &a[1], RLX_VMV_INT));
  RLX_RETURN_IF_ERROR(want_kind(who, 2, &a[2], RLX_VMV_INT));
  const DLTensor* x = &a[0].u.t->dl;
  int64_t axis = a[1].u.i;
  if (axis < -1 || axis >= x->ndim || x->dtype.lanes != 1 || (x->dtype.bits % 8 && x->dtype.bits != 1))
    return ERR("%s: bad axis %lld or element type", who, (long long)axis);
  uq_t q = {x, (const char*)x->data + x->byte_offset, 1, 1, 1};
  for (int d = 0; d < x->ndim; d++) {
    if (axis < 0) q.n *= x->shape[d];
    else if (d < axis) q.outer *= x->shape[d];
    else if (d > axis) q.inner *= x->shape[d];
  }
  if (axis >= 0) q.n = x->shape[axis];
  int64_t cnt = q.n > 0 ? q.n : 1;
  int64_t *first = malloc(sizeof(int64_t) * (size_t)cnt), *count = calloc((size_t)cnt, sizeof(int64_t));
  int64_t *inv = malloc(sizeof(int64_t) * (size_t)cnt), *rank = malloc(sizeof(int64_t) * (size_t)cnt);
  rlx_status_t* st = NULL;
  if (!first || !count || !inv || !rank) st = rlx_status_create(RLX_OUT_OF_MEMORY, "%s", who);
  int64_t m = 0;
  for (int64_t i = 0; !st && i < q.n; i++) {
    int64_t u = 0;
    while (u < m && uq_cmp(&q, first[u], i) != 0) u++;
    if (u == m) first[m++] = i;
    inv[i] = u;
    count[u]++;
  }
  if (!st && a[2].u.i) { /* order the uniques by value (stable), then renumber */
    int64_t* ord = rank; /* ord[p] = unique at position p */
    for (int64_t u = 0; u < m; u++) {
      int64_t p = u;
      while (p > 0 && uq_cmp(&q, first[ord[p - 1]], first[u]) > 0) {
        ord[p] = ord[p - 1];
        p--;
      }
      ord[p] = u;
    }
    int64_t *f2 = malloc(sizeof(int64_t) * (size_t)cnt), *c2 = malloc(sizeof(int64_t) * (size_t)cnt),
            *pos = malloc(sizeof(int64_t) * (size_t)cnt);
    if (!f2 || !c2 || !pos) st = rlx_status_create(RLX_OUT_OF_MEMORY, "%s", who);
    for (int64_t p = 0; !st && p < m; p++) {
      f2[p] = first[ord[p]];
      c2[p] = count[ord[p]];
      pos[ord[p]] = p;
    }
    for (int64_t i = 0; !st && i < q.n; i++) inv[i] = pos[inv[i]];
    if (!st) {
      memcpy(first, f2, sizeof(int64_t) * (size_t)m);
      memcpy(count, c2, sizeof(int64_t) * (size_t)m);
    }
    free(f2);
    free(c2);
    free(pos);
  }
  rlx_ndarray_t* r[4] = {NULL, NULL, NULL, NULL};
  if (!st) { /* y: x's slices first[0..m) */
    int64_t shape[RLX_VM_MAX_NDIM_UNIQUE];
    int nd = axis < 0 ? 1 : x->ndim;
    for (int d = 0; d < nd; d++) shape[d] = axis < 0 ? m : d == axis ? m : x->shape[d];
    rlx_allocator_t pool = rlx_vm_pool_allocator(vm->pool);
    st = nd <= RLX_VM_MAX_NDIM_UNIQUE ? rlx_ndarray_create(nd, shape, x->dtype, &pool, &r[0])
                                      : ERR("%s: rank %d is too large", who, nd);
    int bytes = (x->dtype.bits + 7) / 8;
    for (int64_t o = 0; !st && o < q.outer; o++)
      for (int64_t p = 0; p < m; p++)
        memcpy((char*)r[0]->dl.data + ((o * m + p) * q.inner) * bytes,
               q.base + ((o * q.n + first[p]) * q.inner) * bytes, (size_t)(q.inner * bytes));
  }
  if (!st) st = new_i64(vm, 1, &m, &r[1]);
  if (!st) st = new_i64(vm, 1, &q.n, &r[2]);
  if (!st) st = new_i64(vm, 1, &m, &r[3]);
  if (!st) {
    if (m) memcpy(r[1]->dl.data, first, sizeof(int64_t) * (size_t)m);
    if (q.n) memcpy(r[2]->dl.data, inv, sizeof(int64_t) * (size_t)q.n);
    if (m) memcpy(r[3]->dl.data, count, sizeof(int64_t) * (size_t)m);
  }
  free(first);
  free(count);
  free(inv);
  free(rank);
  rlx_vm_tuple_t* t = st ? NULL : malloc(sizeof(*t) + sizeof(rlx_vmv_t) * 4);
  if (!st && !t) st = rlx_status_create(RLX_OUT_OF_MEMORY, "%s", who);
  if (st) {
    for (int i = 0; i < 4; i++)
      if (r[i]) rlx_ndarray_release(r[i]);
    return st;
  }
  t->refcount = 1;
  t->n = 4;
  for (int i = 0; i < 4; i++) {
    t->fields[i].kind = RLX_VMV_TENSOR;
    t->fields[i].u.t = r[i];
  }
  out->kind = RLX_VMV_TUPLE;
  out->u.tuple = t;
  return NULL;
}

/* ------------------------------------------------------------------ sequences */
/* ONNX sequences are tuples of static length; these take a position computed at run time.
 * Elements are copied into fresh tensors: a field of the argument may live in planned
 * storage that is reused once the argument is dead, while the result lives on. */

/* The position held by a 0-d or 1-element integer tensor, normalized against a sequence of
 * n (ONNX: -n..n-1, or -n..n when inserting). */
static RLX_MUST_USE rlx_status_t* seq_pos(const char* who, int i, const rlx_vmv_t* v, int64_t n, bool insert, int64_t* out) {
  RLX_RETURN_IF_ERROR(want_kind(who, i, v, RLX_VMV_TENSOR));
  const DLTensor* t = &v->u.t->dl;
  int64_t numel = 1;
  for (int d = 0; d < t->ndim; d++) numel *= t->shape[d];
  if (numel != 1 || t->dtype.code != kDLInt || (t->dtype.bits != 32 && t->dtype.bits != 64) || t->dtype.lanes != 1)
    return ERR("%s: argument %d must be one int32 or int64 position", who, i);
  const char* p = (const char*)t->data + t->byte_offset;
  int64_t pos = t->dtype.bits == 32 ? *(const int32_t*)p : *(const int64_t*)p;
  int64_t hi = insert ? n : n - 1;
  if (pos < -n || pos > hi)
    return ERR("%s: position %lld is out of range for a sequence of %lld", who, (long long)pos, (long long)n);
  *out = pos < 0 ? pos + n : pos;
  return NULL;
}

/* A copy of tensor v (argument i) from the VM's pool. */
static RLX_MUST_USE rlx_status_t* seq_copy(rlx_vm_t* vm, const char* who, int i, const rlx_vmv_t* v, rlx_vmv_t* out) {
  RLX_RETURN_IF_ERROR(want_kind(who, i, v, RLX_VMV_TENSOR));
  const DLTensor* t = &v->u.t->dl;
  rlx_allocator_t pool = rlx_vm_pool_allocator(vm->pool);
  rlx_ndarray_t* r = NULL;
  RLX_RETURN_IF_ERROR(rlx_ndarray_create(t->ndim, t->shape, t->dtype, &pool, &r));
  rlx_status_t* st = rlx_ndarray_copy_from(&r->dl, t);
  if (st) {
    rlx_ndarray_release(r);
    return st;
  }
  out->kind = RLX_VMV_TENSOR;
  out->u.t = r;
  return NULL;
}

/* A tuple of copies of the tensors src[0..n). */
static RLX_MUST_USE rlx_status_t* seq_tuple(rlx_vm_t* vm, const char* who, const rlx_vmv_t* const* src, int n, rlx_vmv_t* out) {
  rlx_vm_tuple_t* t = malloc(sizeof(*t) + sizeof(rlx_vmv_t) * (size_t)(n > 0 ? n : 1));
  if (!t) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s", who);
  t->refcount = 1;
  t->n = n;
  for (int i = 0; i < n; i++) {
    rlx_status_t* st = seq_copy(vm, who, i, src[i], &t->fields[i]);
    if (st) {
      for (int k = 0; k < i; k++) rlx_vmv_release(&t->fields[k]);
      free(t);
      return st;
    }
  }
  out->kind = RLX_VMV_TUPLE;
  out->u.tuple = t;
  return NULL;
}

/* sequence_at(tuple, pos) → a copy of field pos (ONNX SequenceAt). */
static RLX_MUST_USE rlx_status_t* b_sequence_at(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.sequence_at";
  RLX_RETURN_IF_ERROR(want_n(who, n, 2));
  RLX_RETURN_IF_ERROR(want_kind(who, 0, &a[0], RLX_VMV_TUPLE));
  int64_t p = 0;
  RLX_RETURN_IF_ERROR(seq_pos(who, 1, &a[1], a[0].u.tuple->n, false, &p));
  return seq_copy(vm, who, 0, &a[0].u.tuple->fields[p], out);
}

/* sequence_insert(tuple, tensor, pos) → the tuple with the tensor inserted before pos
 * (ONNX SequenceInsert; pos == length appends). */
static RLX_MUST_USE rlx_status_t* b_sequence_insert(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.sequence_insert";
  if (n != 2) RLX_RETURN_IF_ERROR(want_n(who, n, 3)); /* without a position: append */
  RLX_RETURN_IF_ERROR(want_kind(who, 0, &a[0], RLX_VMV_TUPLE));
  int len = a[0].u.tuple->n;
  if (len >= INT32_MAX - 1) return ERR("%s: the sequence is too long", who);
  int64_t p = len;
  if (n == 3) RLX_RETURN_IF_ERROR(seq_pos(who, 2, &a[2], len, true, &p));
  const rlx_vmv_t** src = malloc(sizeof(*src) * (size_t)(len + 1));
  if (!src) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s", who);
  for (int i = 0, k = 0; i <= len; i++) src[i] = i == p ? &a[1] : &a[0].u.tuple->fields[k++];
  rlx_status_t* st = seq_tuple(vm, who, src, len + 1, out);
  free(src);
  return st;
}

/* sequence_erase(tuple, pos) → the tuple without field pos (ONNX SequenceErase). */
static RLX_MUST_USE rlx_status_t* b_sequence_erase(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.sequence_erase";
  if (n != 1) RLX_RETURN_IF_ERROR(want_n(who, n, 2)); /* without a position: the last one */
  RLX_RETURN_IF_ERROR(want_kind(who, 0, &a[0], RLX_VMV_TUPLE));
  int len = a[0].u.tuple->n;
  if (len == 0) return ERR("%s: the sequence is empty", who);
  int64_t p = len - 1;
  if (n == 2) RLX_RETURN_IF_ERROR(seq_pos(who, 1, &a[1], len, false, &p));
  const rlx_vmv_t** src = malloc(sizeof(*src) * (size_t)(len > 0 ? len : 1));
  if (!src) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s", who);
  int m = 0;
  for (int i = 0; i < len; i++)
    if (i != p) src[m++] = &a[0].u.tuple->fields[i];
  rlx_status_t* st = seq_tuple(vm, who, src, m, out);
  free(src);
  return st;
}

static RLX_MUST_USE rlx_status_t* loop_scalar(rlx_vm_t* vm, DLDataType dt, int64_t v, rlx_vmv_t* out);

/* sequence_length(tuple) → a 0-d int64 tensor holding its length (ONNX SequenceLength of a
 * sequence whose length is decided at run time). */
static RLX_MUST_USE rlx_status_t* b_sequence_length(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.sequence_length";
  RLX_RETURN_IF_ERROR(want_n(who, n, 1));
  RLX_RETURN_IF_ERROR(want_kind(who, 0, &a[0], RLX_VMV_TUPLE));
  return loop_scalar(vm, rlx_dldtype(kDLInt, 64, 1), a[0].u.tuple->n, out);
}

/* sequence_concat(tuple, i<axis>, i<new_axis>) → ONNX ConcatFromSequence of a sequence whose
 * length is decided at run time: the fields (tensors of one dtype and rank r) joined along
 * axis (-r..r-1; with new_axis, stacked along a new axis, -r-1..r, and all of one shape).
 * Every other dim must agree; an empty sequence is an error. */
static RLX_MUST_USE rlx_status_t* b_sequence_concat(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.sequence_concat";
  RLX_RETURN_IF_ERROR(want_n(who, n, 3));
  RLX_RETURN_IF_ERROR(want_kind(who, 0, &a[0], RLX_VMV_TUPLE));
  RLX_RETURN_IF_ERROR(want_kind(who, 1, &a[1], RLX_VMV_INT));
  RLX_RETURN_IF_ERROR(want_kind(who, 2, &a[2], RLX_VMV_INT));
  const rlx_vm_tuple_t* t = a[0].u.tuple;
  if (t->n == 0) return ERR("%s: the sequence is empty", who);
  for (int k = 0; k < t->n; k++) RLX_RETURN_IF_ERROR(want_kind(who, 0, &t->fields[k], RLX_VMV_TENSOR));
  const DLTensor* f0 = &t->fields[0].u.t->dl;
  int r = f0->ndim, ro = r + (a[2].u.i != 0);
  if (ro > RLX_VM_MAX_NDIM_UNIQUE) return ERR("%s: rank %d is too large", who, r);
  int64_t axis = a[1].u.i;
  if (axis < -ro || axis >= ro) return ERR("%s: axis %lld is out of range for rank %d", who, (long long)axis, ro);
  if (axis < 0) axis += ro;
  /* each field as (outer, its extent along axis, inner); the output's extent is their sum */
  int64_t oshape[RLX_VM_MAX_NDIM_UNIQUE], total = 0;
  for (int k = 0; k < t->n; k++) {
    const DLTensor* f = &t->fields[k].u.t->dl;
    if (f->ndim != r || f->dtype.code != f0->dtype.code || f->dtype.bits != f0->dtype.bits || f->dtype.lanes != f0->dtype.lanes)
      return ERR("%s: element %d's dtype or rank differs from element 0's", who, k);
    if (f->strides) return ERR("%s: element %d is not contiguous", who, k);
    for (int d = 0, e = 0; d < ro; d++) {
      bool at_axis = d == axis;
      if (at_axis && a[2].u.i) continue; /* the new axis */
      int64_t ext = f->shape[e], want = f0->shape[e];
      e++;
      if (at_axis) {
        if (total > INT64_MAX - ext) return ERR("%s: the result is too large", who);
        total += ext;
      } else if (ext != want) {
        return ERR("%s: element %d has dim %lld where element 0 has %lld (axis %d)", who, k, (long long)ext,
                   (long long)want, d);
      } else {
        oshape[d] = ext;
      }
    }
  }
  oshape[axis] = a[2].u.i ? t->n : total;
  rlx_allocator_t pool = rlx_vm_pool_allocator(vm->pool);
  rlx_ndarray_t* y = NULL;
  RLX_RETURN_IF_ERROR(rlx_ndarray_create(ro, oshape, f0->dtype, &pool, &y));
  int64_t outer = 1, inner = (int64_t)rlx_dldtype_bytes(f0->dtype); /* bytes after the axis, per unit of it */
  for (int d = 0; d < axis; d++) outer *= oshape[d];
  for (int d = (int)axis + 1; d < ro; d++) inner *= oshape[d];
  int64_t row = oshape[axis] * inner, at = 0; /* bytes per outer index in y; this field's offset in a row */
  for (int k = 0; k < t->n; k++) {
    const DLTensor* f = &t->fields[k].u.t->dl;
    int64_t part = (a[2].u.i ? 1 : f->shape[axis]) * inner;
    const uint8_t* src = (const uint8_t*)f->data + f->byte_offset;
    uint8_t* dst = (uint8_t*)y->dl.data;
    for (int64_t o = 0; o < outer && part > 0; o++) memcpy(dst + o * row + at, src + o * part, (size_t)part);
    at += part;
  }
  out->kind = RLX_VMV_TENSOR;
  out->u.t = y;
  return NULL;
}

/* optional_has_element(v) → a 0-d bool tensor: false for the null value (an empty ONNX
 * optional), true for anything else. */
static RLX_MUST_USE rlx_status_t* b_optional_has_element(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.optional_has_element";
  RLX_RETURN_IF_ERROR(want_n(who, n, 1));
  return loop_scalar(vm, rlx_dldtype(kDLUInt, 1, 1), a[0].kind != RLX_VMV_NONE, out);
}

/* optional_get_element(v) → v itself; an error for the null value (ONNX OptionalGetElement
 * of an empty optional). */
static RLX_MUST_USE rlx_status_t* b_optional_get_element(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  (void)vm;
  const char* who = "vm.builtin.optional_get_element";
  RLX_RETURN_IF_ERROR(want_n(who, n, 1));
  if (a[0].kind == RLX_VMV_NONE) return ERR("%s: the optional is empty", who);
  *out = rlx_vmv_retain(a[0]);
  return NULL;
}

/* ------------------------------------------------------------------ strings (vm_strings.c) */
static RLX_MUST_USE rlx_status_t* b_string_normalizer(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  return rlx_vm_b_string_normalizer(vm, a, n, out);
}
static RLX_MUST_USE rlx_status_t* b_string_from(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  return rlx_vm_b_string_from(vm, a, n, out);
}
static RLX_MUST_USE rlx_status_t* b_string_to(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  return rlx_vm_b_string_to(vm, a, n, out);
}
static RLX_MUST_USE rlx_status_t* b_string_index(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  return rlx_vm_b_string_index(vm, a, n, out);
}

/* ------------------------------------------------------------------ loops */
/* The truth of a loop condition: an int, or a tensor holding one value. */
static RLX_MUST_USE rlx_status_t* loop_truth(const char* who, const char* what, const rlx_vmv_t* v, bool* out) {
  if (v->kind == RLX_VMV_INT) {
    *out = v->u.i != 0;
    return NULL;
  }
  if (v->kind == RLX_VMV_TENSOR) {
    const DLTensor* t = &v->u.t->dl;
    if (rlx_ndarray_numel(t) == 1 && t->dtype.lanes == 1 && t->dtype.bits <= 64 && t->dtype.code != kDLFloat) {
      const uint8_t* p = (const uint8_t*)t->data + t->byte_offset;
      bool any = false;
      for (int i = 0; i < (t->dtype.bits + 7) / 8; i++) any |= p[i] != 0; /* bool (1 byte), int: nonzero bytes */
      *out = any;
      return NULL;
    }
  }
  return ERR("%s: %s must be an int or a one-element tensor, got %s", who, what, rlx_vmv_kind_name(v->kind));
}

/* A 0-d tensor of dtype dt holding v (int64 or bool). */
static RLX_MUST_USE rlx_status_t* loop_scalar(rlx_vm_t* vm, DLDataType dt, int64_t v, rlx_vmv_t* out) {
  rlx_allocator_t pool = rlx_vm_pool_allocator(vm->pool);
  rlx_ndarray_t* t = NULL;
  RLX_RETURN_IF_ERROR(rlx_ndarray_create(0, NULL, dt, &pool, &t));
  if (dt.bits == 64) *(int64_t*)t->dl.data = v;
  else *(uint8_t*)t->dl.data = (uint8_t)(v != 0);
  out->kind = RLX_VMV_TENSOR;
  out->u.t = t;
  return NULL;
}

/* One scan output being stacked: the first iteration's shape, the bytes so far. */
typedef struct {
  DLDataType dtype;
  int ndim;
  int64_t shape[RLX_VM_MAX_NDIM_UNIQUE];
  size_t elem_bytes; /* one iteration's */
  uint8_t* data;
  size_t len, cap;
} loop_stack_t;

static RLX_MUST_USE rlx_status_t* loop_append(const char* who, int k, loop_stack_t* s, int64_t iter, const rlx_vmv_t* v) {
  if (v->kind != RLX_VMV_TENSOR) return ERR("%s: scan output %d is a %s, not a tensor", who, k, rlx_vmv_kind_name(v->kind));
  const DLTensor* t = &v->u.t->dl;
  if (t->dtype.code != s->dtype.code || t->dtype.bits != s->dtype.bits || t->dtype.lanes != s->dtype.lanes)
    return ERR("%s: scan output %d has another dtype than the body declares", who, k);
  if (t->ndim > RLX_VM_MAX_NDIM_UNIQUE) return ERR("%s: scan output %d has rank %d", who, k, t->ndim);
  bool same = iter == 0 || t->ndim == s->ndim;
  for (int d = 0; same && d < t->ndim; d++) same = iter == 0 || t->shape[d] == s->shape[d];
  if (!same) return ERR("%s: scan output %d changes shape at iteration %lld", who, k, (long long)iter);
  if (iter == 0) {
    s->ndim = t->ndim;
    memcpy(s->shape, t->shape, sizeof(int64_t) * (size_t)t->ndim);
    s->elem_bytes = (size_t)rlx_ndarray_numel(t) * ((size_t)(t->dtype.bits * t->dtype.lanes + 7) / 8);
  }
  if (s->len + s->elem_bytes > s->cap) {
    size_t nc = s->cap ? 2 * s->cap : 64;
    while (nc < s->len + s->elem_bytes) nc *= 2;
    uint8_t* p = realloc(s->data, nc);
    if (!p) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s: scan output %d", who, k);
    s->data = p;
    s->cap = nc;
  }
  DLTensor dst = *t; /* a compact view of the next slot */
  dst.data = s->data + s->len;
  dst.byte_offset = 0;
  dst.strides = NULL;
  RLX_RETURN_IF_ERROR(rlx_ndarray_copy_from(&dst, t));
  s->len += s->elem_bytes;
  return NULL;
}

/* loop(f<body>, max_trip, cond, i<n_carried>, i<n_scan>, (c<dtype>, shape) per scan output,
 * carried..., extra...) → tuple(final carried..., stacked scan outputs...) (ONNX Loop and
 * Scan). While (max_trip < 0 or i < max_trip) and cond: calls body(i, cond, carried...,
 * extra...) (i: 0-d int64, cond: 0-d bool), which returns (cond, carried..., scan
 * outputs...); the carried values are fed back and scan output k of every iteration is
 * stacked along a new axis 0 (its shape must not change; zero iterations give the shape
 * argument with 0 in front). max_trip and cond: ints or one-element tensors. */
static RLX_MUST_USE rlx_status_t* b_loop(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.loop";
  if (n < 5) return ERR("%s: expected at least 5 arguments, got %d", who, n);
  RLX_RETURN_IF_ERROR(want_kind(who, 0, &a[0], RLX_VMV_FUNC));
  RLX_RETURN_IF_ERROR(want_kind(who, 3, &a[3], RLX_VMV_INT));
  RLX_RETURN_IF_ERROR(want_kind(who, 4, &a[4], RLX_VMV_INT));
  int64_t nc = a[3].u.i, ns = a[4].u.i;
  if (nc < 0 || ns < 0 || 5 + 2 * ns + nc > n) return ERR("%s: bad counts %lld carried, %lld scan outputs for %d arguments", who, (long long)nc, (long long)ns, n);
  int64_t max_trip = -1;
  if (a[1].kind == RLX_VMV_INT) {
    max_trip = a[1].u.i;
  } else {
    RLX_RETURN_IF_ERROR(want_kind(who, 1, &a[1], RLX_VMV_TENSOR));
    const DLTensor* t = &a[1].u.t->dl;
    if (rlx_ndarray_numel(t) != 1 || t->dtype.code != kDLInt || t->dtype.bits != 64)
      return ERR("%s: the trip count must be one int64", who);
    max_trip = *(const int64_t*)((const char*)t->data + t->byte_offset);
    if (max_trip < 0) max_trip = 0; /* a negative M runs no iteration */
  }
  bool cond = true;
  RLX_RETURN_IF_ERROR(loop_truth(who, "the condition", &a[2], &cond));
  int first_carried = 5 + 2 * (int)ns, n_extra = n - first_carried - (int)nc;
  int n_body = 2 + (int)nc + n_extra;
  rlx_vmv_t* args = calloc((size_t)n_body, sizeof(rlx_vmv_t));
  loop_stack_t* stacks = calloc((size_t)(ns > 0 ? ns : 1), sizeof(loop_stack_t));
  if (!args || !stacks) {
    free(args);
    free(stacks);
    return rlx_status_create(RLX_OUT_OF_MEMORY, "%s", who);
  }
  for (int k = 0; k < nc; k++) args[2 + k] = rlx_vmv_retain(a[first_carried + k]);
  for (int k = 0; k < n_extra; k++) args[2 + nc + k] = rlx_vmv_retain(a[first_carried + nc + k]);
  rlx_status_t* st = NULL;
  for (int k = 0; k < ns && !st; k++) {
    st = want_kind(who, 5 + 2 * k, &a[5 + 2 * k], RLX_VMV_DTYPE);
    if (!st) stacks[k].dtype = a[5 + 2 * k].u.dtype;
  }
  int64_t iter = 0;
  for (; !st && (max_trip < 0 || iter < max_trip) && cond; iter++) {
    rlx_vmv_release(&args[0]);
    rlx_vmv_release(&args[1]);
    st = loop_scalar(vm, rlx_dldtype(kDLInt, 64, 1), iter, &args[0]);
    if (!st) st = loop_scalar(vm, rlx_dldtype(kDLUInt, 1, 1), 1, &args[1]);
    rlx_vmv_t res = {RLX_VMV_NONE, {0}};
    if (!st) st = rlx_vm_call_index(vm, a[0].u.func, args, n_body, &res);
    if (!st && (res.kind != RLX_VMV_TUPLE || res.u.tuple->n != 1 + nc + ns))
      st = ERR("%s: the body must return a tuple of %lld values, got %s", who, (long long)(1 + nc + ns),
               rlx_vmv_kind_name(res.kind));
    if (!st) st = loop_truth(who, "the body's condition", &res.u.tuple->fields[0], &cond);
    for (int k = 0; k < nc && !st; k++) {
      rlx_vmv_release(&args[2 + k]);
      args[2 + k] = rlx_vmv_retain(res.u.tuple->fields[1 + k]);
    }
    for (int k = 0; k < ns && !st; k++) st = loop_append(who, k, &stacks[k], iter, &res.u.tuple->fields[1 + nc + k]);
    rlx_vmv_release(&res);
    if (st) st = rlx_status_annotate(st, "%s: iteration %lld", who, (long long)iter);
  }
  rlx_vm_tuple_t* t = NULL;
  if (!st) {
    t = calloc(1, sizeof(*t) + sizeof(rlx_vmv_t) * (size_t)(nc + ns > 0 ? nc + ns : 1));
    if (!t) st = rlx_status_create(RLX_OUT_OF_MEMORY, "%s", who);
  }
  if (t) {
    t->refcount = 1;
    t->n = (int)(nc + ns);
    for (int k = 0; k < nc; k++) t->fields[k] = rlx_vmv_retain(args[2 + k]);
    rlx_allocator_t pool = rlx_vm_pool_allocator(vm->pool);
    for (int k = 0; k < ns && !st; k++) {
      loop_stack_t* s = &stacks[k];
      int64_t dims[RLX_VM_MAX_NDIM_UNIQUE + 1];
      dims[0] = iter;
      if (iter == 0) { /* the declared shape, after 0 */
        int nd = 0;
        const int64_t* sd = NULL;
        st = shape_arg(who, 6 + 2 * k, &a[6 + 2 * k], &nd, &sd);
        if (!st && nd > RLX_VM_MAX_NDIM_UNIQUE) st = ERR("%s: scan output %d has rank %d", who, k, nd);
        if (st) break;
        s->ndim = nd;
        memcpy(s->shape, sd, sizeof(int64_t) * (size_t)nd);
      }
      memcpy(dims + 1, s->shape, sizeof(int64_t) * (size_t)s->ndim);
      rlx_ndarray_t* r = NULL;
      st = rlx_ndarray_create(s->ndim + 1, dims, s->dtype, &pool, &r);
      if (st) break;
      if (s->len) memcpy(r->dl.data, s->data, s->len);
      t->fields[nc + k].kind = RLX_VMV_TENSOR;
      t->fields[nc + k].u.t = r;
    }
    out->kind = RLX_VMV_TUPLE;
    out->u.tuple = t;
    if (st) rlx_vmv_release(out);
  }
  for (int k = 0; k < n_body; k++) rlx_vmv_release(&args[k]);
  for (int k = 0; k < ns; k++) free(stacks[k].data);
  free(args);
  free(stacks);
  return st;
}

static const struct {
  const char* name;
  rlx_vm_builtin_fn_t fn;
} builtins[] = {
#define X(c, name, doc) {name, b_##c},
#include "vm_builtins.def"
#undef X
};

rlx_vm_builtin_fn_t rlx_vm_builtin_lookup(const char* name) {
  for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
    if (strcmp(builtins[i].name, name) == 0) return builtins[i].fn;
  return NULL;
}
