/* NDArray: refcounted CPU tensors over an injectable allocator, views, copies and
 * random filling. */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime_internal.h"

/* ---- default allocator ---- */

static void* default_alloc(void* self, size_t bytes, size_t align) {
  (void)self;
  void* p = NULL;
  if (align < sizeof(void*)) align = sizeof(void*);
  return posix_memalign(&p, align, bytes ? bytes : 1) == 0 ? p : NULL;
}

static void default_free(void* self, void* p) {
  (void)self;
  free(p);
}

static const rlx_allocator_t default_allocator = {default_alloc, default_free, NULL};

const rlx_allocator_t* rlx_allocator_default(void) { return &default_allocator; }

/* ---- shapes ---- */

RLX_MUST_USE rlx_status_t* rlx_tensor_check_shape(const char* what, int ndim, const int64_t* shape,
                                                  DLDataType dtype, size_t* out_nbytes) {
  char dts[32];
  if (ndim < 0 || (ndim > 0 && !shape))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: bad ndim %d", what, ndim);
  if (dtype.bits == 0 || dtype.lanes == 0)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: bad dtype %s (lanes %u)", what,
                             rlx_dldtype_str(dtype, dts), (unsigned)dtype.lanes);
  size_t nbytes = rlx_dldtype_bytes(dtype);
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0)
      return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: dimension %d is negative (%lld)",
                               what, i, (long long)shape[i]);
    if (shape[i] > 0 && nbytes > (SIZE_MAX / 2) / (uint64_t)shape[i]) {
      char buf[256];
      return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: shape %s of %s is too large", what,
                               rlx_shape_str(ndim, shape, buf, sizeof(buf)),
                               rlx_dldtype_str(dtype, dts));
    }
    nbytes *= (size_t)shape[i];
  }
  *out_nbytes = nbytes;
  return NULL;
}

bool rlx_tensor_is_compact(const DLTensor* t) {
  if (!t->strides) return true;
  int64_t expect = 1;
  for (int i = t->ndim - 1; i >= 0; i--) {
    if (t->shape[i] != 1 && t->strides[i] != expect) return false;
    expect *= t->shape[i];
  }
  return true;
}

int64_t rlx_ndarray_numel(const DLTensor* t) {
  int64_t n = 1;
  for (int i = 0; i < t->ndim; i++) n *= t->shape[i];
  return n;
}

size_t rlx_ndarray_nbytes(const DLTensor* t) {
  return (size_t)rlx_ndarray_numel(t) * rlx_dldtype_bytes(t->dtype);
}

/* ---- lifetime ---- */

/* Allocates the struct with its shape storage right behind it; data is left NULL. */
static RLX_MUST_USE rlx_status_t* new_header(const char* what, int ndim, const int64_t* shape,
                                             DLDataType dtype, size_t* out_nbytes, rlx_ndarray_t** out) {
  RLX_RETURN_IF_ERROR(rlx_tensor_check_shape(what, ndim, shape, dtype, out_nbytes));
  rlx_ndarray_t* arr = calloc(1, sizeof(*arr) + sizeof(int64_t) * (size_t)ndim);
  if (!arr) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s: out of memory", what);
  arr->dl.shape = (int64_t*)(arr + 1);
  if (ndim > 0) memcpy(arr->dl.shape, shape, sizeof(int64_t) * (size_t)ndim);
  arr->dl.ndim = ndim;
  arr->dl.dtype = dtype;
  arr->dl.device.device_type = kDLCPU;
  arr->dl.device.device_id = 0;
  arr->refcount = 1;
  arr->allocator = default_allocator;
  *out = arr;
  return NULL;
}

/* ---- the allocation limit ---- */

static uint64_t max_alloc;
static pthread_once_t max_alloc_once = PTHREAD_ONCE_INIT;

/* "123", "64k", "512M", "2G" (powers of 1024); 0 when malformed. */
static uint64_t parse_size(const char* s) {
  char* end = NULL;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s) return 0;
  int shift = 0;
  switch (tolower((unsigned char)*end)) {
    case 'k': shift = 10, end++; break;
    case 'm': shift = 20, end++; break;
    case 'g': shift = 30, end++; break;
    case 't': shift = 40, end++; break;
    default: break;
  }
  if (*end || v > (UINT64_MAX >> shift)) return 0;
  return (uint64_t)v << shift;
}

static void init_max_alloc(void) {
  const char* env = getenv("RLX_MAX_ALLOC");
  uint64_t v = env && *env ? parse_size(env) : 0;
  if (!v) { /* default: three quarters of physical memory (no limit if unknown) */
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    v = pages > 0 && page > 0 ? (uint64_t)pages / 4 * 3 * (uint64_t)page : UINT64_MAX;
  }
  max_alloc = v;
}

uint64_t rlx_max_alloc(void) {
  pthread_once(&max_alloc_once, init_max_alloc);
  return max_alloc;
}

RLX_MUST_USE rlx_status_t* rlx_ndarray_create(int ndim, const int64_t* shape, DLDataType dtype,
                                              const rlx_allocator_t* alloc, rlx_ndarray_t** out_arr) {
  size_t nbytes;
  rlx_ndarray_t* arr = NULL;
  RLX_RETURN_IF_ERROR(rlx_tensor_check_shape("ndarray create", ndim, shape, dtype, &nbytes));
  if (nbytes > rlx_max_alloc()) {
    char sh[256], dt[32];
    return rlx_status_create(RLX_OUT_OF_MEMORY,
                             "ndarray create: a tensor of shape %s %s needs %zu bytes, more than the limit of %llu "
                             "(RLX_MAX_ALLOC; default three quarters of physical memory)",
                             rlx_shape_str(ndim, shape, sh, sizeof(sh)), rlx_dldtype_str(dtype, dt), nbytes,
                             (unsigned long long)rlx_max_alloc());
  }
  RLX_RETURN_IF_ERROR(new_header("ndarray create", ndim, shape, dtype, &nbytes, &arr));
  if (alloc) arr->allocator = *alloc;
  /* Never allocate 0 bytes: data stays a valid, unique pointer for empty tensors. */
  arr->alloc_ptr = arr->allocator.alloc(arr->allocator.self, nbytes ? nbytes : 1, RLX_NDARRAY_ALIGN);
  if (!arr->alloc_ptr) {
    free(arr);
    return rlx_status_create(RLX_OUT_OF_MEMORY, "ndarray create: cannot allocate %zu bytes", nbytes);
  }
  arr->dl.data = arr->alloc_ptr;
  *out_arr = arr;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_ndarray_from_data(void* data, int ndim, const int64_t* shape,
                                                 DLDataType dtype, rlx_ndarray_t** out_arr) {
  size_t nbytes;
  rlx_ndarray_t* arr = NULL;
  if (!data) return rlx_status_create(RLX_INVALID_ARGUMENT, "ndarray from data: data is NULL");
  RLX_RETURN_IF_ERROR(new_header("ndarray from data", ndim, shape, dtype, &nbytes, &arr));
  arr->dl.data = data;
  *out_arr = arr;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_ndarray_view(rlx_ndarray_t* base, int ndim, const int64_t* shape,
                                            DLDataType dtype, uint64_t byte_offset,
                                            rlx_ndarray_t** out_arr) {
  size_t nbytes;
  rlx_ndarray_t* arr = NULL;
  if (!base) return rlx_status_create(RLX_INVALID_ARGUMENT, "ndarray view: base is NULL");
  RLX_RETURN_IF_ERROR(new_header("ndarray view", ndim, shape, dtype, &nbytes, &arr));
  size_t base_bytes = rlx_ndarray_nbytes(&base->dl);
  if (byte_offset > base_bytes || nbytes > base_bytes - byte_offset) {
    char s1[256], s2[256], d1[32], d2[32];
    rlx_status_t* st = rlx_status_create(
        RLX_INVALID_ARGUMENT,
        "ndarray view: %s %s at byte offset %llu does not fit in %s %s (%zu bytes)",
        rlx_shape_str(ndim, shape, s1, sizeof(s1)), rlx_dldtype_str(dtype, d1),
        (unsigned long long)byte_offset, rlx_shape_str(base->dl.ndim, base->dl.shape, s2, sizeof(s2)),
        rlx_dldtype_str(base->dl.dtype, d2), base_bytes);
    free(arr);
    return st;
  }
  arr->dl.data = (char*)base->dl.data + base->dl.byte_offset + byte_offset;
  arr->base = rlx_ndarray_retain(base);
  *out_arr = arr;
  return NULL;
}

rlx_ndarray_t* rlx_ndarray_retain(rlx_ndarray_t* arr) {
  if (arr) __atomic_fetch_add(&arr->refcount, 1, __ATOMIC_RELAXED);
  return arr;
}

void rlx_ndarray_release(rlx_ndarray_t* arr) {
  while (arr) {
    if (__atomic_sub_fetch(&arr->refcount, 1, __ATOMIC_ACQ_REL) != 0) return;
    rlx_ndarray_t* base = arr->base;
    if (arr->alloc_ptr) arr->allocator.free(arr->allocator.self, arr->alloc_ptr);
    free(arr);
    arr = base; /* iterate rather than recurse: chains of views stay shallow on the stack */
  }
}

/* ---- copying ---- */

RLX_MUST_USE rlx_status_t* rlx_ndarray_copy_from(DLTensor* dst, const DLTensor* src) {
  if (!dst || !src) return rlx_status_create(RLX_INVALID_ARGUMENT, "ndarray copy: NULL tensor");
  bool same = rlx_dldtype_equal(dst->dtype, src->dtype) && dst->ndim == src->ndim;
  for (int i = 0; same && i < dst->ndim; i++) same = dst->shape[i] == src->shape[i];
  if (!same) {
    char s1[256], s2[256], d1[32], d2[32];
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "ndarray copy: destination is %s %s but source is %s %s",
                             rlx_shape_str(dst->ndim, dst->shape, s1, sizeof(s1)),
                             rlx_dldtype_str(dst->dtype, d1),
                             rlx_shape_str(src->ndim, src->shape, s2, sizeof(s2)),
                             rlx_dldtype_str(src->dtype, d2));
  }
  if (dst->device.device_type != kDLCPU || src->device.device_type != kDLCPU)
    return rlx_status_create(RLX_UNSUPPORTED, "ndarray copy: only CPU tensors are supported");
  if (!rlx_tensor_is_compact(dst) || !rlx_tensor_is_compact(src))
    return rlx_status_create(RLX_UNSUPPORTED, "ndarray copy: strided tensors are not supported");
  size_t n = rlx_ndarray_nbytes(src);
  if (n > 0)
    memmove((char*)dst->data + dst->byte_offset, (const char*)src->data + src->byte_offset, n);
  return NULL;
}

/* ---- random filling ---- */

/* splitmix64: a tiny, good-enough generator whose whole state is one local. */
static uint64_t next_random(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* IEEE half bits of k / 1024 for k in [-1024, 1024): exact, so no rounding is needed. */
static uint16_t half_of_k1024(int k) {
  if (k == 0) return 0;
  uint16_t sign = k < 0 ? 0x8000 : 0;
  unsigned m = (unsigned)(k < 0 ? -k : k); /* 1 .. 1024 */
  int e = 0;                               /* m = 1.f * 2^e */
  while ((m >> e) > 1) e++;
  unsigned frac = (m << (10 - e)) & 0x3ff; /* 10 fraction bits */
  return (uint16_t)(sign | (unsigned)(e - 10 + 15) << 10 | frac);
}

RLX_MUST_USE rlx_status_t* rlx_ndarray_fill_random(DLTensor* t, uint64_t seed) {
  if (!t) return rlx_status_create(RLX_INVALID_ARGUMENT, "fill random: NULL tensor");
  if (t->device.device_type != kDLCPU || !rlx_tensor_is_compact(t))
    return rlx_status_create(RLX_UNSUPPORTED, "fill random: only compact CPU tensors are supported");
  uint64_t state = seed;
  int64_t n = rlx_ndarray_numel(t) * t->dtype.lanes;
  char* base = (char*)t->data + t->byte_offset;
  DLDataType dt = t->dtype;
  if (dt.code > kDLComplex) goto unsupported;
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = next_random(&state);
    int64_t small = (int64_t)(r >> 60); /* 0 .. 15 */
    switch ((DLDataTypeCode)dt.code) {
      case kDLFloat:
        if (dt.bits == 64) ((double*)base)[i] = (double)(r >> 11) * 0x1p-52 - 1.0;
        else if (dt.bits == 32) ((float*)base)[i] = (float)(r >> 40) * 0x1p-23f - 1.0f;
        else if (dt.bits == 16) ((uint16_t*)base)[i] = half_of_k1024((int)(r >> 53) - 1024);
        else goto unsupported;
        break;
      case kDLBfloat: {
        if (dt.bits != 16) goto unsupported;
        float f = (float)((int)(r >> 56) - 128) / 128.0f; /* 8 significant bits: exact */
        uint32_t u;
        memcpy(&u, &f, 4);
        ((uint16_t*)base)[i] = (uint16_t)(u >> 16);
        break;
      }
      case kDLInt:
      case kDLUInt: {
        int64_t v = dt.code == kDLInt ? small - 8 : small;
        if (dt.bits == 1) v = small & 1;
        switch (dt.bits) {
          case 1:
          case 8: ((int8_t*)base)[i] = (int8_t)v; break;
          case 16: ((int16_t*)base)[i] = (int16_t)v; break;
          case 32: ((int32_t*)base)[i] = (int32_t)v; break;
          case 64: ((int64_t*)base)[i] = v; break;
          default: goto unsupported;
        }
        break;
      }
      case kDLOpaqueHandle:
      case kDLComplex:
        goto unsupported;
    }
  }
  return NULL;
unsupported: {
  char d[32];
  return rlx_status_create(RLX_UNSUPPORTED, "fill random: dtype %s is not supported",
                           rlx_dldtype_str(dt, d));
}
}
