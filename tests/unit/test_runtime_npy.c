/* .npy round trips for every supported dtype, hand-written files of other versions and
 * spellings, and malformed files that must fail with a clear error (never a crash). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rlx/runtime.h"
#include "support/support.h"
#include "test.h"

static char tmpdir[64];

static const char* tmp_path(const char* name) {
  static char path[256];
  snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
  return path;
}

/* Builds a .npy image in memory: version major.0 with the given header text, padded to
 * 64 bytes, followed by `data`. Caller frees. */
static unsigned char* make_npy(int major, const char* header, const void* data, size_t nbytes,
                               size_t* out_len) {
  size_t prefix = major == 1 ? 10 : 12;
  size_t hlen = strlen(header);
  size_t padded = (prefix + hlen + 1 + 63) / 64 * 64 - prefix;
  size_t len = prefix + padded + nbytes;
  unsigned char* b = malloc(len);
  memcpy(b, "\x93NUMPY", 6);
  b[6] = (unsigned char)major;
  b[7] = 0;
  for (size_t i = 0; i < prefix - 8; i++) b[8 + i] = (unsigned char)(padded >> (8 * i));
  memset(b + prefix, ' ', padded);
  memcpy(b + prefix, header, hlen);
  b[prefix + padded - 1] = '\n';
  if (nbytes) memcpy(b + prefix + padded, data, nbytes);
  *out_len = len;
  return b;
}

static void test_round_trip(void) {
  const char* dtypes[] = {"bool",   "int8",   "int16",   "int32",   "int64",   "uint8",
                          "uint16", "uint32", "uint64",  "float16", "float32", "float64"};
  struct { int ndim; int64_t shape[3]; } shapes[] = {{0, {0}}, {1, {5}}, {2, {2, 3}}, {3, {2, 0, 4}},
                                                     {3, {3, 4, 5}}};
  for (size_t d = 0; d < sizeof(dtypes) / sizeof(dtypes[0]); d++) {
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
      DLDataType t;
      CHECK_OK(rlx_dldtype_parse(dtypes[d], &t));
      rlx_ndarray_t *a = NULL, *b = NULL;
      CHECK_OK(rlx_ndarray_create(shapes[s].ndim, shapes[s].shape, t, NULL, &a));
      if (!a) continue;
      CHECK_OK(rlx_ndarray_fill_random(&a->dl, d * 100 + s));
      const char* path = tmp_path("rt.npy");
      CHECK_OK(rlx_npy_save(path, &a->dl));
      CHECK_OK(rlx_npy_load(path, &b));
      if (b) {
        char s1[64], s2[64], d1[32];
        CHECK_MSG(rlx_dldtype_equal(a->dl.dtype, b->dl.dtype) && a->dl.ndim == b->dl.ndim,
                  "%s %s", dtypes[d], rlx_shape_str(a->dl.ndim, a->dl.shape, s1, sizeof(s1)));
        bool same_shape = a->dl.ndim == b->dl.ndim;
        for (int i = 0; same_shape && i < a->dl.ndim; i++) same_shape = a->dl.shape[i] == b->dl.shape[i];
        CHECK_MSG(same_shape, "%s: %s vs %s", rlx_dldtype_str(t, d1),
                  rlx_shape_str(a->dl.ndim, a->dl.shape, s1, sizeof(s1)),
                  rlx_shape_str(b->dl.ndim, b->dl.shape, s2, sizeof(s2)));
        CHECK(same_shape && memcmp(a->dl.data, b->dl.data, rlx_ndarray_nbytes(&a->dl)) == 0);
        rlx_ndarray_release(b);
      }
      rlx_ndarray_release(a);
    }
  }
}

static void test_file_layout(void) {
  int64_t shape[2] = {2, 3};
  float v[6] = {1, 2, 3, 4, 5, 6};
  rlx_ndarray_t* a = NULL;
  CHECK_OK(rlx_ndarray_from_data(v, 2, shape, rlx_dldtype(kDLFloat, 32, 1), &a));
  if (!a) return;
  const char* path = tmp_path("layout.npy");
  CHECK_OK(rlx_npy_save(path, &a->dl));
  rlx_ndarray_release(a);
  char* data = NULL;
  size_t len = 0;
  CHECK_OK(rlx_file_read(path, &data, &len));
  if (!data) return;
  const char* want = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  /* as numpy writes it: 10 + 118 header bytes, data at offset 128 */
  CHECK(len == 128 + 24);
  CHECK(memcmp(data, "\x93NUMPY\x01\x00", 8) == 0);
  CHECK((unsigned char)data[8] == 118 && data[9] == 0);
  CHECK(memcmp(data + 10, want, strlen(want)) == 0);
  CHECK(data[127] == '\n' && data[126] == ' ');
  CHECK(memcmp(data + 128, v, 24) == 0);
  free(data);

  /* a shape long enough to need a version 2.0 header still round trips */
  int64_t big_shape[32];
  for (int i = 0; i < 32; i++) big_shape[i] = 1;
  big_shape[0] = INT64_C(1);
  rlx_ndarray_t *b = NULL, *c = NULL;
  CHECK_OK(rlx_ndarray_create(32, big_shape, rlx_dldtype(kDLInt, 8, 1), NULL, &b));
  if (!b) return;
  CHECK_OK(rlx_ndarray_fill_random(&b->dl, 1));
  CHECK_OK(rlx_npy_save(tmp_path("rank32.npy"), &b->dl));
  CHECK_OK(rlx_npy_load(tmp_path("rank32.npy"), &c));
  if (c) {
    CHECK(c->dl.ndim == 32 && ((int8_t*)c->dl.data)[0] == ((int8_t*)b->dl.data)[0]);
    rlx_ndarray_release(c);
  }
  rlx_ndarray_release(b);
}

static void test_other_writers(void) {
  /* version 2.0, double quotes, Python 2 long suffix, no trailing comma, spaces */
  int16_t v[4] = {1, -2, 3, -4};
  size_t len;
  unsigned char* f = make_npy(2, "{\"shape\": (2L, 2L), \"fortran_order\": False , \"descr\": \"<i2\"}", v,
                              sizeof(v), &len);
  rlx_ndarray_t* a = NULL;
  CHECK_OK(rlx_npy_load_from_memory(f, len, "v2.npy", &a));
  if (a) {
    CHECK(a->dl.ndim == 2 && a->dl.shape[0] == 2 && a->dl.shape[1] == 2);
    CHECK(rlx_dldtype_equal(a->dl.dtype, rlx_dldtype(kDLInt, 16, 1)));
    CHECK(((int16_t*)a->dl.data)[3] == -4);
    rlx_ndarray_release(a);
  }
  free(f);
  /* '|u1' and '=' (native order), a 1-d shape with a trailing comma, trailing bytes ignored */
  uint8_t bytes[5] = {9, 8, 7, 6, 5};
  f = make_npy(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (4,), }", bytes, 5, &len);
  CHECK_OK(rlx_npy_load_from_memory(f, len, "u1.npy", &a));
  if (a) {
    CHECK(a->dl.ndim == 1 && a->dl.shape[0] == 4 && ((uint8_t*)a->dl.data)[3] == 6);
    rlx_ndarray_release(a);
  }
  free(f);
  double d = 2.5;
  f = make_npy(3, "{'descr': '=f8', 'fortran_order': False, 'shape': (), }", &d, 8, &len);
  CHECK_OK(rlx_npy_load_from_memory(f, len, "f8.npy", &a));
  if (a) {
    CHECK(a->dl.ndim == 0 && ((double*)a->dl.data)[0] == 2.5);
    rlx_ndarray_release(a);
  }
  free(f);
}

/* Loading `header` (version 1) with 64 bytes of data must fail with `needle`. */
static void expect_header_error(const char* header, const char* needle) {
  char data[64] = {0};
  size_t len;
  unsigned char* f = make_npy(1, header, data, sizeof(data), &len);
  rlx_ndarray_t* a = NULL;
  CHECK_ERR(rlx_npy_load_from_memory(f, len, "bad.npy", &a), needle);
  CHECK(a == NULL);
  free(f);
}

static void test_bad_files(void) {
  rlx_ndarray_t* a = NULL;
  /* file-level problems name the file */
  CHECK_ERR(rlx_npy_load(tmp_path("missing.npy"), &a), "missing.npy");
  CHECK_OK(rlx_file_write(tmp_path("magic.npy"), "\x93NUMPX\x01\x00\x10\x00{}", 12));
  CHECK_ERR(rlx_npy_load(tmp_path("magic.npy"), &a), "magic.npy': not a .npy file (bad magic)");
  CHECK_OK(rlx_file_write(tmp_path("empty.npy"), "", 0));
  CHECK_ERR(rlx_npy_load(tmp_path("empty.npy"), &a), "bad magic");

  /* header problems */
  expect_header_error("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", "fortran_order True");
  expect_header_error("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", "big-endian");
  expect_header_error("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", "'<c8' is not supported");
  expect_header_error("{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }", "not supported");
  expect_header_error("{'descr': '<f4x', 'fortran_order': False, 'shape': (2,), }", "not supported");
  expect_header_error("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", "structured");
  expect_header_error("{'descr': '<f4', 'shape': (2,), }", "missing");
  expect_header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", "bad shape dimension");
  expect_header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", "too large");
  expect_header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", "too large");
  expect_header_error("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }", "True or False");
  expect_header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3 }", "expected ',' or ')'");
  expect_header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", "unknown key");
  expect_header_error("{'descr: '<f4'", "malformed");
  expect_header_error("not a dict", "expected '{'");
  expect_header_error("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 3), }", "truncated data");

  /* version 4 does not exist */
  char data[8] = {0};
  size_t len;
  unsigned char* f = make_npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", data, 8, &len);
  f[6] = 4;
  CHECK_ERR(rlx_npy_load_from_memory(f, len, "v4.npy", &a), "version 4.0");
  f[6] = 1;

  /* every truncation of a valid file is an error, never a crash or an over-read */
  int errors = 0;
  for (size_t cut = 0; cut < len; cut++) {
    unsigned char* part = malloc(cut ? cut : 1); /* exact size: ASan sees any over-read */
    memcpy(part, f, cut);
    rlx_status_t* st = rlx_npy_load_from_memory(part, cut, "cut.npy", &a);
    if (st && strstr(rlx_status_message(st), "cut.npy")) errors++;
    rlx_status_free(st);
    free(part);
  }
  CHECK_MSG(errors == (int)len, "%d of %zu truncations failed cleanly", errors, len);
  CHECK_OK(rlx_file_write(tmp_path("trunc.npy"), f, len - 3));
  CHECK_ERR(rlx_npy_load(tmp_path("trunc.npy"), &a), "trunc.npy': truncated data");

  /* flipping any header byte to any of a few values never crashes */
  unsigned char vals[] = {0, '\'', '(', ')', ',', '{', '}', '9', 0xff};
  for (size_t i = 0; i < 64; i++) {
    for (size_t k = 0; k < sizeof(vals); k++) {
      unsigned char* g = malloc(len);
      memcpy(g, f, len);
      g[i] = vals[k];
      rlx_ndarray_t* b = NULL;
      rlx_status_t* st = rlx_npy_load_from_memory(g, len, "fuzz.npy", &b);
      rlx_status_free(st);
      rlx_ndarray_release(b);
      free(g);
    }
  }
  free(f);

  /* saving what .npy cannot hold */
  int64_t n = 2;
  rlx_ndarray_t* bf = NULL;
  CHECK_OK(rlx_ndarray_create(1, &n, rlx_dldtype(kDLBfloat, 16, 1), NULL, &bf));
  if (bf) {
    CHECK_ERR(rlx_npy_save(tmp_path("bf.npy"), &bf->dl), "cannot save dtype bfloat16");
    rlx_ndarray_release(bf);
  }
  float x[2] = {1, 2};
  DLTensor t = {x, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &n, NULL, 0};
  CHECK_ERR(rlx_npy_save("/nonexistent-dir/x.npy", &t), "/nonexistent-dir/x.npy");
}

static void remove_tmpdir(void) {
  const char* names[] = {"rt.npy", "layout.npy", "rank32.npy", "magic.npy", "empty.npy", "trunc.npy"};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) unlink(tmp_path(names[i]));
  rmdir(tmpdir);
}

int main(void) {
  snprintf(tmpdir, sizeof(tmpdir), "/tmp/rlx_npy_XXXXXX");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  test_round_trip();
  test_file_layout();
  test_other_writers();
  test_bad_files();
  remove_tmpdir();
  TEST_MAIN_END();
}
