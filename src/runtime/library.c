/* Kernel libraries: shared objects opened with dlopen, their packed functions looked up
 * by symbol. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernels/nn_kernels.h"
#include "rlx/runtime.h"

_Static_assert(sizeof(void*) == sizeof(rlx_packed_fn_t), "dlsym results must fit a function pointer");

struct rlx_library {
  void* handle;
  char* path;
  void (*set_num_threads)(int); /* the library's __rlx_set_num_threads, or NULL */
};

/* Generated kernels use OpenMP; the built-in kernels use their own pool. libgomp's idle
 * threads spin for a long time after each parallel region (GOMP_SPINCOUNT 300000), taking
 * the core that the pool's worker needs for the next layer (MobileNetV2 at 2 threads: 6.3
 * ms spinning by default, 3.6 ms with 10000, transformer unchanged). Unless the user chose
 * a wait policy, a shorter spin is set before the first model library loads libgomp (once
 * libgomp is loaded the environment no longer matters, so this only ever sets a default). */
static pthread_once_t omp_once = PTHREAD_ONCE_INIT;

static void omp_defaults(void) {
  if (!getenv("GOMP_SPINCOUNT") && !getenv("OMP_WAIT_POLICY")) setenv("GOMP_SPINCOUNT", "10000", 0);
}

RLX_MUST_USE rlx_status_t* rlx_library_load(const char* path, rlx_library_t** out_lib) {
  pthread_once(&omp_once, omp_defaults);
  if (!path || !*path) return rlx_status_create(RLX_INVALID_ARGUMENT, "library path is empty");
  /* A path without '/' is searched for by the loader, so only check real paths. */
  struct stat sb;
  if (strchr(path, '/') && stat(path, &sb) != 0)
    return rlx_status_create(RLX_NOT_FOUND, "library '%s' does not exist", path);
  dlerror(); /* clear a stale message */
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    return rlx_status_create(RLX_IO_ERROR, "cannot load library '%s': %s", path,
                             why ? why : "unknown dlopen error");
  }
  rlx_library_t* lib = calloc(1, sizeof(*lib));
  size_t n = strlen(path);
  char* copy = malloc(n + 1);
  if (!lib || !copy) {
    free(lib);
    free(copy);
    dlclose(handle);
    return rlx_status_create(RLX_OUT_OF_MEMORY, "loading library '%s'", path);
  }
  memcpy(copy, path, n + 1);
  lib->handle = handle;
  lib->path = copy;
  /* POSIX guarantees a data pointer from dlsym converts to a function pointer; memcpy
   * says so without a cast ISO C frowns on. */
  void* sym = dlsym(handle, "__rlx_set_num_threads");
  if (sym) memcpy(&lib->set_num_threads, &sym, sizeof(sym));
  *out_lib = lib;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_library_get_symbol(rlx_library_t* lib, const char* symbol, void** out_ptr) {
  if (!lib || !symbol)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "library lookup: NULL library or symbol");
  dlerror();
  void* p = dlsym(lib->handle, symbol);
  if (!p) /* a symbol whose value is NULL is useless to us; treat it as missing */
    return rlx_status_create(RLX_NOT_FOUND, "symbol '%s' not found in library '%s'", symbol,
                             lib->path);
  *out_ptr = p;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_library_get_function(rlx_library_t* lib, const char* symbol,
                                                    rlx_packed_fn_t* out_fn) {
  void* p = NULL;
  RLX_RETURN_IF_ERROR(rlx_library_get_symbol(lib, symbol, &p));
  memcpy(out_fn, &p, sizeof(p));
  return NULL;
}

bool rlx_library_has_symbol(rlx_library_t* lib, const char* symbol) {
  return lib && symbol && dlsym(lib->handle, symbol) != NULL;
}

const char* rlx_library_path(const rlx_library_t* lib) { return lib ? lib->path : NULL; }

void rlx_library_set_num_threads(rlx_library_t* lib, int n) {
  if (lib && lib->set_num_threads) lib->set_num_threads(n);
  /* generated parallel loops run on the kernels' pool (one per process) */
  if (lib) rlx_nn_set_num_threads(n);
}

void rlx_library_free(rlx_library_t* lib) {
  if (!lib) return;
  dlclose(lib->handle);
  free(lib->path);
  free(lib);
}
