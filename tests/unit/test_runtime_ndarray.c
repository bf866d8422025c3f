/* NDArray lifetime, allocators, views, copies, random filling, dtype and shape strings. */
#include <stdint.h>
#include <stdlib.h>

#include "rlx/runtime.h"
#include "test.h"

typedef struct {
  int allocs, frees;
  size_t last_bytes, last_align;
} counting_t;

static void* counting_alloc(void* self, size_t bytes, size_t align) {
  counting_t* c = self;
  c->allocs++;
  c->last_bytes = bytes;
  c->last_align = align;
  return rlx_allocator_default()->alloc(NULL, bytes, align);
}

static void counting_free(void* self, void* p) {
  ((counting_t*)self)->frees++;
  rlx_allocator_default()->free(NULL, p);
}

static void test_create(void) {
  int64_t shape[2] = {2, 3};
  rlx_ndarray_t* a = NULL;
  CHECK_OK(rlx_ndarray_create(2, shape, rlx_dldtype(kDLFloat, 32, 1), NULL, &a));
  if (!a) return;
  shape[0] = 99; /* the tensor owns a copy */
  CHECK(a->dl.ndim == 2 && a->dl.shape[0] == 2 && a->dl.shape[1] == 3);
  CHECK(a->dl.strides == NULL && a->dl.byte_offset == 0);
  CHECK(a->dl.device.device_type == kDLCPU);
  CHECK(((uintptr_t)a->dl.data % RLX_NDARRAY_ALIGN) == 0);
  CHECK(rlx_ndarray_numel(&a->dl) == 6);
  CHECK(rlx_ndarray_nbytes(&a->dl) == 24);
  /* an rlx_ndarray_t* is a DLTensor* */
  CHECK((void*)a == (void*)&a->dl);
  float* f = a->dl.data;
  for (int i = 0; i < 6; i++) f[i] = (float)i;
  CHECK(rlx_ndarray_retain(a) == a);
  rlx_ndarray_release(a);
  CHECK(f[5] == 5.0f); /* still alive: one reference left */
  rlx_ndarray_release(a);
  rlx_ndarray_release(NULL);

  /* 0-d and empty tensors */
  rlx_ndarray_t* s = NULL;
  CHECK_OK(rlx_ndarray_create(0, NULL, rlx_dldtype(kDLInt, 64, 1), NULL, &s));
  if (s) {
    CHECK(rlx_ndarray_numel(&s->dl) == 1 && rlx_ndarray_nbytes(&s->dl) == 8);
    rlx_ndarray_release(s);
  }
  int64_t empty_shape[2] = {0, 5};
  rlx_ndarray_t* e = NULL;
  CHECK_OK(rlx_ndarray_create(2, empty_shape, rlx_dldtype(kDLFloat, 32, 1), NULL, &e));
  if (e) {
    CHECK(e->dl.data != NULL && rlx_ndarray_nbytes(&e->dl) == 0);
    rlx_ndarray_release(e);
  }
  /* bool is stored one byte per element */
  int64_t n4 = 4;
  rlx_ndarray_t* b = NULL;
  CHECK_OK(rlx_ndarray_create(1, &n4, rlx_dldtype(kDLUInt, 1, 1), NULL, &b));
  if (b) {
    CHECK(rlx_ndarray_nbytes(&b->dl) == 4);
    rlx_ndarray_release(b);
  }

  /* bad input */
  rlx_ndarray_t* bad = NULL;
  int64_t neg[2] = {2, -1};
  CHECK_ERR(rlx_ndarray_create(2, neg, rlx_dldtype(kDLFloat, 32, 1), NULL, &bad), "negative");
  CHECK_ERR(rlx_ndarray_create(-1, NULL, rlx_dldtype(kDLFloat, 32, 1), NULL, &bad), "ndim");
  CHECK_ERR(rlx_ndarray_create(1, &n4, rlx_dldtype(kDLFloat, 0, 1), NULL, &bad), "dtype");
  int64_t huge[3] = {INT64_C(1) << 40, INT64_C(1) << 40, 16};
  CHECK_ERR(rlx_ndarray_create(3, huge, rlx_dldtype(kDLFloat, 32, 1), NULL, &bad), "too large");
  CHECK(bad == NULL);
}

static void test_allocator(void) {
  counting_t c = {0};
  rlx_allocator_t alloc = {counting_alloc, counting_free, &c};
  int64_t shape[1] = {10};
  rlx_ndarray_t* a = NULL;
  CHECK_OK(rlx_ndarray_create(1, shape, rlx_dldtype(kDLFloat, 64, 1), &alloc, &a));
  CHECK(c.allocs == 1 && c.frees == 0 && c.last_bytes == 80 && c.last_align == RLX_NDARRAY_ALIGN);
  rlx_ndarray_release(a);
  CHECK(c.frees == 1);
}

static void test_from_data_and_view(void) {
  float buf[12];
  for (int i = 0; i < 12; i++) buf[i] = (float)i;
  int64_t shape[2] = {3, 4};
  rlx_ndarray_t* ext = NULL;
  CHECK_OK(rlx_ndarray_from_data(buf, 2, shape, rlx_dldtype(kDLFloat, 32, 1), &ext));
  if (!ext) return;
  CHECK(ext->dl.data == buf);
  rlx_ndarray_release(ext); /* must not free the stack buffer (ASan would catch it) */

  rlx_ndarray_t* base = NULL;
  CHECK_OK(rlx_ndarray_create(2, shape, rlx_dldtype(kDLFloat, 32, 1), NULL, &base));
  if (!base) return;
  for (int i = 0; i < 12; i++) ((float*)base->dl.data)[i] = (float)i;
  int64_t vshape[1] = {4};
  rlx_ndarray_t* row = NULL;
  CHECK_OK(rlx_ndarray_view(base, 1, vshape, rlx_dldtype(kDLFloat, 32, 1), 16, &row));
  rlx_ndarray_release(base); /* the view keeps the base alive */
  if (row) {
    CHECK(((float*)row->dl.data)[0] == 4.0f && ((float*)row->dl.data)[3] == 7.0f);
    rlx_ndarray_t* bad = NULL;
    int64_t big[1] = {5};
    CHECK_ERR(rlx_ndarray_view(row, 1, big, rlx_dldtype(kDLFloat, 32, 1), 0, &bad), "does not fit");
    CHECK_ERR(rlx_ndarray_view(row, 1, vshape, rlx_dldtype(kDLFloat, 32, 1), 4, &bad), "(4,) float32");
    /* a view of a view */
    int64_t two[1] = {2};
    rlx_ndarray_t* sub = NULL;
    CHECK_OK(rlx_ndarray_view(row, 1, two, rlx_dldtype(kDLInt, 32, 1), 8, &sub));
    rlx_ndarray_release(row);
    if (sub) {
      float v;
      memcpy(&v, sub->dl.data, 4);
      CHECK(v == 6.0f);
      rlx_ndarray_release(sub);
    }
  }
}

static void test_copy(void) {
  int64_t shape[2] = {2, 2};
  rlx_ndarray_t *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  CHECK_OK(rlx_ndarray_create(2, shape, rlx_dldtype(kDLInt, 32, 1), NULL, &a));
  CHECK_OK(rlx_ndarray_create(2, shape, rlx_dldtype(kDLInt, 32, 1), NULL, &b));
  CHECK_OK(rlx_ndarray_create(2, shape, rlx_dldtype(kDLFloat, 32, 1), NULL, &c));
  int64_t shape2[2] = {4, 1};
  CHECK_OK(rlx_ndarray_create(2, shape2, rlx_dldtype(kDLInt, 32, 1), NULL, &d));
  if (!a || !b || !c || !d) return;
  for (int i = 0; i < 4; i++) ((int32_t*)a->dl.data)[i] = 10 * i;
  CHECK_OK(rlx_ndarray_copy_from(&b->dl, &a->dl));
  CHECK(((int32_t*)b->dl.data)[3] == 30);
  CHECK_ERR(rlx_ndarray_copy_from(&c->dl, &a->dl), "destination is (2, 2) float32 but source is (2, 2) int32");
  CHECK_ERR(rlx_ndarray_copy_from(&d->dl, &a->dl), "(4, 1) int32");
  rlx_ndarray_release(a);
  rlx_ndarray_release(b);
  rlx_ndarray_release(c);
  rlx_ndarray_release(d);
}

static void test_fill_random(void) {
  int64_t shape[1] = {1000};
  rlx_ndarray_t *a = NULL, *b = NULL;
  CHECK_OK(rlx_ndarray_create(1, shape, rlx_dldtype(kDLFloat, 32, 1), NULL, &a));
  CHECK_OK(rlx_ndarray_create(1, shape, rlx_dldtype(kDLFloat, 32, 1), NULL, &b));
  if (!a || !b) return;
  CHECK_OK(rlx_ndarray_fill_random(&a->dl, 42));
  CHECK_OK(rlx_ndarray_fill_random(&b->dl, 42));
  CHECK(memcmp(a->dl.data, b->dl.data, 4000) == 0);
  CHECK_OK(rlx_ndarray_fill_random(&b->dl, 43));
  CHECK(memcmp(a->dl.data, b->dl.data, 4000) != 0);
  float lo = 1, hi = -1;
  double sum = 0;
  for (int i = 0; i < 1000; i++) {
    float v = ((float*)a->dl.data)[i];
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
    sum += v;
  }
  CHECK(lo >= -1.0f && hi < 1.0f && lo < -0.9f && hi > 0.9f);
  CHECK(fabs(sum / 1000) < 0.1);
  rlx_ndarray_release(a);
  rlx_ndarray_release(b);

  struct { DLDataType t; } cases[] = {{{kDLFloat, 64, 1}}, {{kDLFloat, 16, 1}}, {{kDLBfloat, 16, 1}},
                                      {{kDLInt, 8, 1}},    {{kDLInt, 64, 1}},   {{kDLUInt, 8, 1}},
                                      {{kDLUInt, 1, 1}},   {{kDLInt, 16, 1}},   {{kDLUInt, 32, 1}}};
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
    DLDataType t = cases[k].t;
    rlx_ndarray_t* x = NULL;
    CHECK_OK(rlx_ndarray_create(1, shape, t, NULL, &x));
    if (!x) continue;
    CHECK_OK(rlx_ndarray_fill_random(&x->dl, k));
    bool ok = true;
    for (int i = 0; i < 1000; i++) {
      double v = 0;
      if (t.code == kDLFloat && t.bits == 64) v = ((double*)x->dl.data)[i];
      else if (t.code == kDLFloat && t.bits == 16) {
        uint16_t h = ((uint16_t*)x->dl.data)[i];
        int e = (h >> 10) & 31, m = h & 1023;
        v = (e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25)) * ((h & 0x8000) ? -1 : 1);
      } else if (t.code == kDLBfloat) {
        uint32_t u = (uint32_t)((uint16_t*)x->dl.data)[i] << 16;
        float f;
        memcpy(&f, &u, 4);
        v = f;
      } else if (t.code == kDLInt && t.bits == 8) v = ((int8_t*)x->dl.data)[i];
      else if (t.code == kDLInt && t.bits == 16) v = ((int16_t*)x->dl.data)[i];
      else if (t.code == kDLInt && t.bits == 64) v = (double)((int64_t*)x->dl.data)[i];
      else if (t.code == kDLUInt && t.bits == 32) v = ((uint32_t*)x->dl.data)[i];
      else v = ((uint8_t*)x->dl.data)[i];
      if (t.code == kDLFloat || t.code == kDLBfloat) ok = ok && v >= -1 && v < 1;
      else if (t.bits == 1) ok = ok && (v == 0 || v == 1);
      else if (t.code == kDLInt) ok = ok && v >= -8 && v < 8;
      else ok = ok && v >= 0 && v < 16;
    }
    char buf[32];
    CHECK_MSG(ok, "values out of range for %s", rlx_dldtype_str(t, buf));
    rlx_ndarray_release(x);
  }
  rlx_ndarray_t* h = NULL;
  CHECK_OK(rlx_ndarray_create(1, shape, rlx_dldtype(kDLOpaqueHandle, 64, 1), NULL, &h));
  if (h) {
    CHECK_ERR(rlx_ndarray_fill_random(&h->dl, 1), "dtype handle is not supported");
    rlx_ndarray_release(h);
  }
}

static void test_dtype_and_shape_strings(void) {
  char buf[32];
  CHECK_STREQ(rlx_dldtype_str(rlx_dldtype(kDLFloat, 32, 1), buf), "float32");
  CHECK_STREQ(rlx_dldtype_str(rlx_dldtype(kDLInt, 64, 1), buf), "int64");
  CHECK_STREQ(rlx_dldtype_str(rlx_dldtype(kDLUInt, 1, 1), buf), "bool");
  CHECK_STREQ(rlx_dldtype_str(rlx_dldtype(kDLUInt, 8, 1), buf), "uint8");
  CHECK_STREQ(rlx_dldtype_str(rlx_dldtype(kDLFloat, 16, 1), buf), "float16");
  CHECK_STREQ(rlx_dldtype_str(rlx_dldtype(kDLBfloat, 16, 1), buf), "bfloat16");
  CHECK_STREQ(rlx_dldtype_str(rlx_dldtype(kDLFloat, 32, 4), buf), "float32x4");
  CHECK_STREQ(rlx_dldtype_str(rlx_dldtype(kDLOpaqueHandle, 64, 1), buf), "handle");
  CHECK_STREQ(rlx_dldtype_str(rlx_dldtype(77, 8, 1), buf), "unknown77_8");

  const char* names[] = {"float32", "float64", "float16", "bfloat16", "int8", "int16", "int32",
                         "int64", "uint8", "uint16", "uint32", "uint64", "bool", "handle",
                         "float32x4", "int8x16"};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    DLDataType t = {0, 0, 0};
    CHECK_OK(rlx_dldtype_parse(names[i], &t));
    CHECK_STREQ(rlx_dldtype_str(t, buf), names[i]);
  }
  DLDataType t;
  CHECK_OK(rlx_dldtype_parse("int", &t));
  CHECK(rlx_dldtype_equal(t, rlx_dldtype(kDLInt, 32, 1)));
  CHECK_OK(rlx_dldtype_parse("float", &t));
  CHECK(rlx_dldtype_equal(t, rlx_dldtype(kDLFloat, 32, 1)));
  const char* bad[] = {"", "floaty", "float3x", "int999", "bool8", "x4", "int32x0", "Float32"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    CHECK_ERR(rlx_dldtype_parse(bad[i], &t), "is not a dtype");
  CHECK(rlx_dldtype_bytes(rlx_dldtype(kDLUInt, 1, 1)) == 1);
  CHECK(rlx_dldtype_bytes(rlx_dldtype(kDLFloat, 32, 4)) == 16);

  char s[64];
  int64_t sh[3] = {2, 3, 4};
  CHECK_STREQ(rlx_shape_str(0, NULL, s, sizeof(s)), "()");
  CHECK_STREQ(rlx_shape_str(1, sh, s, sizeof(s)), "(2,)");
  CHECK_STREQ(rlx_shape_str(2, sh, s, sizeof(s)), "(2, 3)");
  CHECK_STREQ(rlx_shape_str(3, sh, s, sizeof(s)), "(2, 3, 4)");
  char tiny[5];
  CHECK_STREQ(rlx_shape_str(3, sh, tiny, sizeof(tiny)), "(2, ");
}

int main(void) {
  test_create();
  test_allocator();
  test_from_data_and_view();
  test_copy();
  test_fill_random();
  test_dtype_and_shape_strings();
  TEST_MAIN_END();
}
