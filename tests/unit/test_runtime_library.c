/* Kernel libraries: compile a small C file that uses include/rlx/extern.h with the system
 * compiler, load it, call its packed functions on tensors, and check the error paths. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rlx/runtime.h"
#include "support/support.h"
#include "test.h"

static const char* kernel_src =
    "#include \"rlx/extern.h\"\n"
    "static int nthreads = 1;\n"
    "RLX_DLL_EXPORT void __rlx_set_num_threads(int n) { nthreads = n; }\n"
    "RLX_DLL_EXPORT const char rlx_test_blob[] = \"blob\";\n"
    "static int is_f32_vec(const DLTensor* t, int64_t n) {\n"
    "  return t->ndim == 1 && t->dtype.code == kDLFloat && t->dtype.bits == 32 &&\n"
    "         t->dtype.lanes == 1 && t->shape[0] == n;\n"
    "}\n"
    "static int vadd(DLTensor* a, DLTensor* b, DLTensor* c) {\n"
    "  int64_t n = a->shape[0];\n"
    "  if (!is_f32_vec(a, n) || !is_f32_vec(b, n) || !is_f32_vec(c, n)) {\n"
    "    rlx_extern_set_error(\"vadd: expected three float32 vectors of one length\");\n"
    "    return -1;\n"
    "  }\n"
    "  const float* x = a->data; const float* y = b->data; float* z = c->data;\n"
    "  for (int64_t i = 0; i < n; i++) z[i] = x[i] + y[i];\n"
    "  return 0;\n"
    "}\n"
    "RLX_EXPORT_DPS_3(rlx_vadd, vadd)\n"
    "static int negate(DLTensor* a) {\n"
    "  float* x = a->data;\n"
    "  for (int64_t i = 0; i < a->shape[0]; i++) x[i] = -x[i];\n"
    "  return 0;\n"
    "}\n"
    "RLX_EXPORT_DPS_1(rlx_negate, negate)\n"
    "static int copy(DLTensor* a, DLTensor* b) {\n"
    "  for (int64_t i = 0; i < a->shape[0]; i++) ((float*)b->data)[i] = ((float*)a->data)[i];\n"
    "  return 0;\n"
    "}\n"
    "RLX_EXPORT_DPS_2(rlx_copy, copy)\n"
    "static int fma4(DLTensor* a, DLTensor* b, DLTensor* c, DLTensor* d) {\n"
    "  for (int64_t i = 0; i < a->shape[0]; i++)\n"
    "    ((float*)d->data)[i] = ((float*)a->data)[i] * ((float*)b->data)[i] + ((float*)c->data)[i];\n"
    "  return 0;\n"
    "}\n"
    "RLX_EXPORT_DPS_4(rlx_fma, fma4)\n"
    "RLX_DLL_EXPORT int rlx_get_threads(rlx_value_t* args, int* codes, int n, rlx_value_t* ret,\n"
    "                                   int* ret_code, void* res) {\n"
    "  (void)args; (void)codes; (void)n; (void)res;\n"
    "  ret->v_int64 = nthreads;\n"
    "  *ret_code = RLX_ARG_INT;\n"
    "  return 0;\n"
    "}\n";

static char tmpdir[64];
static char so_path[256], src_path[256], junk_path[256];

/* The repository's include/ folder: next to tests/ when __FILE__ is absolute (CMake),
 * else relative to the working directory (ctest runs in the source root). */
static void include_dir(char* out, size_t n) {
  const char* suffix = "tests/unit/test_runtime_library.c";
  const char* file = __FILE__;
  size_t len = strlen(file), slen = strlen(suffix);
  if (file[0] == '/' && len > slen && strcmp(file + len - slen, suffix) == 0)
    snprintf(out, n, "%.*sinclude", (int)(len - slen), file);
  else
    snprintf(out, n, "include");
}

static bool build_kernel_library(void) {
  char inc[1024];
  include_dir(inc, sizeof(inc));
  snprintf(src_path, sizeof(src_path), "%s/kernels.c", tmpdir);
  snprintf(so_path, sizeof(so_path), "%s/libkernels.so", tmpdir);
  rlx_status_t* st = rlx_file_write(src_path, kernel_src, strlen(kernel_src));
  if (st) {
    fprintf(stderr, "%s\n", rlx_status_message(st));
    rlx_status_free(st);
    return false;
  }
  const char* cc = getenv("CC");
  if (!cc || !*cc || strchr(cc, ' ')) cc = "cc";
  /* strict flags: extern.h must compile cleanly as plain C99 */
  char* argv[] = {(char*)cc, "-shared", "-fPIC", "-O1", "-std=c99", "-Wall", "-Wextra", "-Werror",
                  "-I", inc, "-o", so_path, src_path, NULL};
  char* log = NULL;
  st = rlx_process_run(argv, &log);
  bool ok = st == NULL;
  if (st) fprintf(stderr, "compiling the test kernels failed: %s\n", rlx_status_message(st));
  rlx_status_free(st);
  free(log);
  return ok;
}

static rlx_ndarray_t* vec(int64_t n, float start) {
  rlx_ndarray_t* a = NULL;
  rlx_status_t* st = rlx_ndarray_create(1, &n, rlx_dldtype(kDLFloat, 32, 1), NULL, &a);
  rlx_status_free(st);
  if (a)
    for (int64_t i = 0; i < n; i++) ((float*)a->dl.data)[i] = start + (float)i;
  return a;
}

static void test_calls(rlx_library_t* lib) {
  rlx_packed_fn_t vadd = NULL, negate = NULL, copy = NULL, fma = NULL, threads = NULL;
  CHECK_OK(rlx_library_get_function(lib, "rlx_vadd", &vadd));
  CHECK_OK(rlx_library_get_function(lib, "rlx_negate", &negate));
  CHECK_OK(rlx_library_get_function(lib, "rlx_copy", &copy));
  CHECK_OK(rlx_library_get_function(lib, "rlx_fma", &fma));
  CHECK_OK(rlx_library_get_function(lib, "rlx_get_threads", &threads));
  if (!vadd || !negate || !copy || !fma || !threads) return;

  rlx_ndarray_t *a = vec(100, 1), *b = vec(100, 1000), *c = vec(100, 0), *d = vec(100, 0);
  if (!a || !b || !c || !d) return;
  float* cv = c->dl.data;
  DLTensor* abc[3] = {&a->dl, &b->dl, &c->dl};
  CHECK_OK(rlx_packed_call_tensors(vadd, NULL, abc, 3));
  CHECK(cv[0] == 1001 && cv[99] == 100 + 1099);

  /* NDArray handles (type code 13) are accepted too */
  rlx_value_t args[4];
  int codes[4];
  for (int i = 0; i < 3; i++) codes[i] = RLX_ARG_NDARRAY;
  args[0].v_handle = b;
  args[1].v_handle = b;
  args[2].v_handle = c;
  CHECK_OK(rlx_packed_call(vadd, NULL, args, codes, 3, NULL, NULL));
  CHECK(cv[5] == 2 * 1005);

  DLTensor* one[1] = {&c->dl};
  CHECK_OK(rlx_packed_call_tensors(negate, NULL, one, 1));
  CHECK(cv[5] == -2010);
  DLTensor* two[2] = {&a->dl, &c->dl};
  CHECK_OK(rlx_packed_call_tensors(copy, NULL, two, 2));
  CHECK(cv[7] == 8);
  DLTensor* four[4] = {&a->dl, &a->dl, &b->dl, &d->dl};
  CHECK_OK(rlx_packed_call_tensors(fma, NULL, four, 4));
  CHECK(((float*)d->dl.data)[2] == 3 * 3 + 1002);

  /* errors set by the export macro and by the kernel reach the caller */
  CHECK_ERR(rlx_packed_call_tensors(vadd, NULL, abc, 2), "rlx_vadd: expected 3 tensor arguments, got 2");
  args[0].v_handle = a;
  args[1].v_int64 = 3;
  args[2].v_handle = c;
  codes[0] = RLX_ARG_DLTENSOR;
  codes[1] = RLX_ARG_INT;
  codes[2] = RLX_ARG_DLTENSOR;
  CHECK_ERR(rlx_packed_call(vadd, NULL, args, codes, 3, NULL, NULL),
            "rlx_vadd: argument 1 is not a tensor (type code 0)");
  args[1].v_handle = NULL;
  codes[1] = RLX_ARG_DLTENSOR;
  CHECK_ERR(rlx_packed_call(vadd, NULL, args, codes, 3, NULL, NULL), "argument 1 is a NULL tensor");
  rlx_ndarray_t* short_vec = vec(3, 0);
  DLTensor* mismatched[3] = {&a->dl, &short_vec->dl, &c->dl};
  CHECK_ERR(rlx_packed_call_tensors(vadd, NULL, mismatched, 3), "vadd: expected three float32 vectors");

  /* threads: the library's __rlx_set_num_threads is called */
  rlx_value_t ret;
  int ret_code = -1;
  CHECK_OK(rlx_packed_call(threads, NULL, NULL, NULL, 0, &ret, &ret_code));
  CHECK(ret_code == RLX_ARG_INT && ret.v_int64 == 1);
  rlx_library_set_num_threads(lib, 6);
  CHECK_OK(rlx_packed_call(threads, NULL, NULL, NULL, 0, &ret, &ret_code));
  CHECK(ret.v_int64 == 6);

  rlx_ndarray_release(short_vec);
  rlx_ndarray_release(a);
  rlx_ndarray_release(b);
  rlx_ndarray_release(c);
  rlx_ndarray_release(d);
}

static void test_library(void) {
  if (!build_kernel_library()) {
    CHECK_MSG(false, "no C compiler to build the test kernels");
    return;
  }
  rlx_library_t* lib = NULL;
  CHECK_OK(rlx_library_load(so_path, &lib));
  if (!lib) return;
  CHECK_STREQ(rlx_library_path(lib), so_path);
  CHECK(rlx_library_has_symbol(lib, "rlx_vadd"));
  CHECK(rlx_library_has_symbol(lib, "__rlx_set_num_threads"));
  CHECK(!rlx_library_has_symbol(lib, "vadd")); /* static impl is not exported */
  void* blob = NULL;
  CHECK_OK(rlx_library_get_symbol(lib, "rlx_test_blob", &blob));
  CHECK(blob && strcmp(blob, "blob") == 0);
  test_calls(lib);

  rlx_packed_fn_t fn = NULL;
  rlx_status_t* st = rlx_library_get_function(lib, "rlx_nope", &fn);
  CHECK(rlx_status_code(st) == RLX_NOT_FOUND);
  CHECK(st && strstr(rlx_status_message(st), "'rlx_nope'") && strstr(rlx_status_message(st), so_path));
  rlx_status_free(st);
  rlx_library_free(lib);
  rlx_library_free(NULL);
}

static void test_load_errors(void) {
  rlx_library_t* lib = NULL;
  char missing[256];
  snprintf(missing, sizeof(missing), "%s/libmissing.so", tmpdir);
  rlx_status_t* st = rlx_library_load(missing, &lib);
  CHECK(rlx_status_code(st) == RLX_NOT_FOUND);
  CHECK(st && strstr(rlx_status_message(st), missing));
  rlx_status_free(st);
  snprintf(junk_path, sizeof(junk_path), "%s/libjunk.so", tmpdir);
  CHECK_OK(rlx_file_write(junk_path, "not an ELF file", 15));
  st = rlx_library_load(junk_path, &lib);
  CHECK(rlx_status_code(st) == RLX_IO_ERROR);
  CHECK(st && strstr(rlx_status_message(st), "cannot load library") &&
        strstr(rlx_status_message(st), junk_path));
  rlx_status_free(st);
  CHECK_ERR(rlx_library_load("librlx-no-such-library.so", &lib), "librlx-no-such-library.so");
  CHECK(lib == NULL);
}

int main(void) {
  snprintf(tmpdir, sizeof(tmpdir), "/tmp/rlx_lib_XXXXXX");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  test_library();
  test_load_errors();
  unlink(so_path);
  unlink(src_path);
  unlink(junk_path);
  rmdir(tmpdir);
  TEST_MAIN_END();
}
