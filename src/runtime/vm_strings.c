/* String tensors in the runtime and the VM builtins on them (ONNX StringNormalizer, casts to
 * and from strings, the string lookup of TfIdfVectorizer).
 *
 * A string tensor is an rlx_ndarray_t of dtype handle (kDLOpaqueHandle, 64 bits) whose
 * elements are `const char*`, NUL-terminated, pointing into the same allocation: one uint8
 * block holds the pointer table and then the bytes, and the string tensor is a view of it (so
 * releasing the view frees everything). Such a tensor is immutable: only these builtins and
 * the .pb reader make one, each a fresh block; in Relax it has struct info R.Object, so no
 * kernel, memory plan or copy ever sees it.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm_internal.h"

#define ERR(...) rlx_status_create(RLX_INVALID_ARGUMENT, __VA_ARGS__)

bool rlx_ndarray_is_strings(const DLTensor* t) {
  return t && t->dtype.code == kDLOpaqueHandle && t->dtype.bits == 64 && t->dtype.lanes == 1;
}

RLX_MUST_USE rlx_status_t* rlx_ndarray_strings_create(int ndim, const int64_t* shape, const char* const* strs, const size_t* lens,
                                         rlx_ndarray_t** out) {
  *out = NULL;
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) {
    if (shape[d] < 0 || (shape[d] > 0 && n > INT64_MAX / 8 / shape[d]))
      return rlx_status_create(RLX_INVALID_ARGUMENT, "string tensor: bad shape");
    n *= shape[d];
  }
  uint64_t total = (uint64_t)n * 8;
  for (int64_t i = 0; i < n; i++) {
    if (lens[i] > (uint64_t)1 << 40 || total > ((uint64_t)1 << 50)) return rlx_status_create(RLX_OUT_OF_MEMORY, "string tensor too large");
    total += lens[i] + 1;
  }
  int64_t bytes = (int64_t)(total > 0 ? total : 1);
  rlx_ndarray_t* block = NULL;
  RLX_RETURN_IF_ERROR(rlx_ndarray_create(1, &bytes, rlx_dldtype(kDLUInt, 8, 1), NULL, &block));
  char** table = (char**)block->dl.data;
  char* p = (char*)block->dl.data + (size_t)n * 8;
  for (int64_t i = 0; i < n; i++) {
    table[i] = p;
    if (lens[i]) memcpy(p, strs[i], lens[i]);
    p[lens[i]] = 0;
    p += lens[i] + 1;
  }
  rlx_status_t* st = rlx_ndarray_view(block, ndim, shape, rlx_dldtype(kDLOpaqueHandle, 64, 1), 0, out);
  rlx_ndarray_release(block);
  return st;
}

/* The strings of argument i (a string tensor). */
static RLX_MUST_USE rlx_status_t* want_strings(const char* who, int i, const rlx_vmv_t* v, const DLTensor** out) {
  if (v->kind != RLX_VMV_TENSOR || !rlx_ndarray_is_strings(&v->u.t->dl))
    return ERR("%s: argument %d must be a string tensor", who, i);
  *out = &v->u.t->dl;
  return NULL;
}

static const char* str_at(const DLTensor* t, int64_t i) {
  return ((const char* const*)((const char*)t->data + t->byte_offset))[i];
}

static bool same_text(const char* a, const char* b, bool case_sensitive) {
  if (case_sensitive) return strcmp(a, b) == 0;
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
  return *a == *b;
}

/* string_normalizer(x, action, case_sensitive, stopword...) → ONNX StringNormalizer of a 1-d
 * [C] or 2-d [1, C] string tensor: stopwords removed (compared ignoring ASCII case unless
 * case_sensitive), then changed to lower (action 1) or upper case (2) or left (0); nothing
 * left gives one empty string. */
RLX_MUST_USE rlx_status_t* rlx_vm_b_string_normalizer(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  (void)vm;
  const char* who = "vm.builtin.string_normalizer";
  if (n < 3) return ERR("%s: expected at least 3 arguments, got %d", who, n);
  const DLTensor* x = NULL;
  RLX_RETURN_IF_ERROR(want_strings(who, 0, &a[0], &x));
  if (a[1].kind != RLX_VMV_INT || a[2].kind != RLX_VMV_INT) return ERR("%s: arguments 1 and 2 must be ints", who);
  for (int k = 3; k < n; k++)
    if (a[k].kind != RLX_VMV_STR) return ERR("%s: argument %d must be a string", who, k);
  if (!(x->ndim == 1 || (x->ndim == 2 && x->shape[0] == 1)))
    return ERR("%s: the input must be [C] or [1, C], got ndim %d", who, x->ndim);
  int64_t c = x->shape[x->ndim - 1];
  const char** keep = malloc(sizeof(char*) * (size_t)(c > 0 ? c : 1));
  size_t* lens = malloc(sizeof(size_t) * (size_t)(c > 0 ? c : 1));
  char** owned = calloc((size_t)(c > 0 ? c : 1), sizeof(char*));
  if (!keep || !lens || !owned) {
    free(keep), free(lens), free(owned);
    return rlx_status_create(RLX_OUT_OF_MEMORY, "%s", who);
  }
  int64_t m = 0;
  rlx_status_t* st = NULL;
  for (int64_t i = 0; i < c && !st; i++) {
    const char* s = str_at(x, i);
    bool stop = false;
    for (int k = 3; k < n && !stop; k++) stop = same_text(s, a[k].u.s, a[2].u.i != 0);
    if (stop) continue;
    size_t len = strlen(s);
    owned[m] = malloc(len + 1);
    if (!owned[m]) {
      st = rlx_status_create(RLX_OUT_OF_MEMORY, "%s", who);
      break;
    }
    for (size_t j = 0; j <= len; j++) {
      unsigned char ch = (unsigned char)s[j];
      owned[m][j] = (char)(a[1].u.i == 1 ? tolower(ch) : a[1].u.i == 2 ? toupper(ch) : ch);
    }
    keep[m] = owned[m];
    lens[m] = len;
    m++;
  }
  if (!st && m == 0) {
    keep[0] = "";
    lens[0] = 0;
    m = 1;
  }
  int64_t shape[2] = {1, m};
  if (!st) {
    rlx_ndarray_t* r = NULL;
    st = rlx_ndarray_strings_create(x->ndim, x->ndim == 1 ? shape + 1 : shape, keep, lens, &r);
    if (!st) {
      out->kind = RLX_VMV_TENSOR;
      out->u.t = r;
    }
  }
  for (int64_t i = 0; i < c; i++) free(owned[i]);
  free(owned), free(keep), free(lens);
  return st;
}

/* The shortest decimal text that reads back as v in float32 (float) or float64 (double), in
 * %g's form with ".0" after an integer, which is how numpy prints its scalars ("0.039187793",
 * "1e-05", "3.0", "nan", "inf") except for large values numpy writes in scientific form
 * earlier than %g does. */
static int format_real(double v, bool single, char* buf, size_t n) {
  if (isnan(v)) return snprintf(buf, n, "nan");
  if (isinf(v)) return snprintf(buf, n, v < 0 ? "-inf" : "inf");
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, n, "%.*g", p, v);
    double back = strtod(buf, NULL);
    if (single ? (float)back == (float)v : back == v) break;
  }
  if (!strpbrk(buf, ".e")) strncat(buf, ".0", n - strlen(buf) - 1); /* numpy writes 3.0, not 3 */
  return (int)strlen(buf);
}

/* string_from(x) → the string tensor of x's elements as text (ONNX Cast to STRING): floats
 * in their shortest round-trip form, integers in decimal, bools as "1" / "0". */
RLX_MUST_USE rlx_status_t* rlx_vm_b_string_from(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  (void)vm;
  const char* who = "vm.builtin.string_from";
  if (n != 1 || a[0].kind != RLX_VMV_TENSOR) return ERR("%s: expected one tensor", who);
  const DLTensor* x = &a[0].u.t->dl;
  DLDataType dt = x->dtype;
  bool ok = dt.lanes == 1 && ((dt.code == kDLFloat && (dt.bits == 32 || dt.bits == 64)) ||
                              ((dt.code == kDLInt || dt.code == kDLUInt) && (dt.bits == 1 || dt.bits == 8 || dt.bits == 16 || dt.bits == 32 || dt.bits == 64)));
  if (!ok) return ERR("%s: a cast of this dtype to strings is not supported", who);
  int64_t count = rlx_ndarray_numel(x);
  size_t elem = rlx_dldtype_bytes(dt);
  char* text = malloc((size_t)(count > 0 ? count : 1) * 32);
  const char** strs = malloc(sizeof(char*) * (size_t)(count > 0 ? count : 1));
  size_t* lens = malloc(sizeof(size_t) * (size_t)(count > 0 ? count : 1));
  if (!text || !strs || !lens) {
    free(text), free(strs), free(lens);
    return rlx_status_create(RLX_OUT_OF_MEMORY, "%s", who);
  }
  const uint8_t* p = (const uint8_t*)x->data + x->byte_offset;
  for (int64_t i = 0; i < count; i++) {
    char* b = text + i * 32;
    const uint8_t* e = p + (size_t)i * elem;
    int len = 0;
    if (dt.code == kDLFloat) {
      len = format_real(dt.bits == 32 ? (double)*(const float*)e : *(const double*)e, dt.bits == 32, b, 32);
    } else {
      long long iv = 0;
      unsigned long long uv = 0;
      switch (elem) {
        case 1: iv = dt.code == kDLInt ? *(const int8_t*)e : *(const uint8_t*)e; break;
        case 2: iv = dt.code == kDLInt ? *(const int16_t*)e : *(const uint16_t*)e; break;
        case 4: iv = dt.code == kDLInt ? *(const int32_t*)e : (long long)*(const uint32_t*)e; break;
        default: memcpy(&uv, e, 8), iv = (long long)uv; break;
      }
      len = dt.code == kDLUInt && elem == 8 ? snprintf(b, 32, "%llu", uv) : snprintf(b, 32, "%lld", iv);
    }
    strs[i] = b;
    lens[i] = (size_t)len;
  }
  rlx_ndarray_t* r = NULL;
  rlx_status_t* st = rlx_ndarray_strings_create(x->ndim, x->shape, strs, lens, &r);
  free(text), free(strs), free(lens);
  if (st) return st;
  out->kind = RLX_VMV_TENSOR;
  out->u.t = r;
  return NULL;
}

/* string_to(x, dtype) → a tensor of dtype (float32/64, an int) read from x's strings (ONNX
 * Cast from STRING): an element that is not a number is a run-time error naming it. */
RLX_MUST_USE rlx_status_t* rlx_vm_b_string_to(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.string_to";
  if (n != 2 || a[1].kind != RLX_VMV_DTYPE) return ERR("%s: expected a string tensor and a dtype", who);
  const DLTensor* x = NULL;
  RLX_RETURN_IF_ERROR(want_strings(who, 0, &a[0], &x));
  DLDataType dt = a[1].u.dtype;
  bool ok = dt.lanes == 1 && ((dt.code == kDLFloat && (dt.bits == 32 || dt.bits == 64)) ||
                              ((dt.code == kDLInt || dt.code == kDLUInt) && (dt.bits == 8 || dt.bits == 16 || dt.bits == 32 || dt.bits == 64)));
  if (!ok) return ERR("%s: a cast of strings to this dtype is not supported", who);
  rlx_allocator_t pool = rlx_vm_pool_allocator(vm->pool);
  rlx_ndarray_t* r = NULL;
  RLX_RETURN_IF_ERROR(rlx_ndarray_create(x->ndim, x->shape, dt, &pool, &r));
  int64_t count = rlx_ndarray_numel(x);
  size_t elem = rlx_dldtype_bytes(dt);
  for (int64_t i = 0; i < count; i++) {
    const char* s = str_at(x, i);
    char* end = NULL;
    errno = 0;
    uint8_t* e = (uint8_t*)r->dl.data + (size_t)i * elem;
    if (dt.code == kDLFloat) {
      double v = strtod(s, &end);
      if (dt.bits == 32) *(float*)e = (float)v;
      else *(double*)e = v;
    } else {
      long long v = strtoll(s, &end, 10);
      switch (elem) {
        case 1: *(int8_t*)e = (int8_t)v; break;
        case 2: *(int16_t*)e = (int16_t)v; break;
        case 4: *(int32_t*)e = (int32_t)v; break;
        default: *(int64_t*)e = v; break;
      }
    }
    if (end == s || (end && *end)) {
      rlx_ndarray_release(r);
      return ERR("%s: element %lld (\"%.64s\") is not a number", who, (long long)i, s);
    }
  }
  out->kind = RLX_VMV_TENSOR;
  out->u.t = r;
  return NULL;
}

/* qsort / bsearch over the argument strings, by index into the argument array. */
typedef struct {
  const char* s;
  int64_t index;
} keyed_t;

static int keyed_cmp(const void* a, const void* b) {
  const keyed_t *x = a, *y = b;
  int c = strcmp(x->s, y->s);
  return c ? c : (x->index > y->index) - (x->index < y->index); /* the first of equal strings first */
}

/* string_index(x, s_0, ..., s_{V-1}) → an int64 tensor of x's shape: for each string of x the
 * smallest k with s_k equal to it, or -1 (ONNX TfIdfVectorizer over strings: the tokens become
 * the indices of a string pool, and the n-gram count runs on integers). The strings are sorted
 * once, so the cost is (V + numel(x)) log V comparisons. */
RLX_MUST_USE rlx_status_t* rlx_vm_b_string_index(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out) {
  const char* who = "vm.builtin.string_index";
  if (n < 1) return ERR("%s: expected a string tensor and strings", who);
  const DLTensor* x = NULL;
  RLX_RETURN_IF_ERROR(want_strings(who, 0, &a[0], &x));
  for (int k = 1; k < n; k++)
    if (a[k].kind != RLX_VMV_STR) return ERR("%s: argument %d must be a string", who, k);
  keyed_t* keys = malloc(sizeof(keyed_t) * (size_t)(n > 1 ? n - 1 : 1));
  if (!keys) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s", who);
  for (int k = 1; k < n; k++) keys[k - 1] = (keyed_t){a[k].u.s, k - 1};
  if (n > 1) qsort(keys, (size_t)(n - 1), sizeof(keyed_t), keyed_cmp);
  rlx_allocator_t pool = rlx_vm_pool_allocator(vm->pool);
  rlx_ndarray_t* r = NULL;
  rlx_status_t* st = rlx_ndarray_create(x->ndim, x->shape, rlx_dldtype(kDLInt, 64, 1), &pool, &r);
  if (st) {
    free(keys);
    return st;
  }
  int64_t count = rlx_ndarray_numel(x);
  int64_t* y = (int64_t*)r->dl.data;
  for (int64_t i = 0; i < count; i++) {
    const char* t = str_at(x, i);
    int64_t lo = 0, hi = n - 1; /* the first key >= t */
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (strcmp(keys[mid].s, t) < 0) lo = mid + 1;
      else hi = mid;
    }
    y[i] = lo < n - 1 && strcmp(keys[lo].s, t) == 0 ? keys[lo].index : -1;
  }
  free(keys);
  out->kind = RLX_VMV_TENSOR;
  out->u.t = r;
  return NULL;
}
