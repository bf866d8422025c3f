/* Public API for building Relax modules with external code (include/rlx/rlx.h): the build
 * configuration and thin wrappers over vm_build.c / externs.c. */
#include <string.h>

#include "../build/externs.h"
#include "../build/vm_build.h"
#include "build_config.h"
#include "rlx/rlx.h"

#ifndef RLX_BUILD_LIB_DIR
#define RLX_BUILD_LIB_DIR "lib"
#endif

rlx_build_config_t* rlx_build_config_create(rlx_ctx_t* ctx) {
  rlx_build_config_t* c = RLX_NEW(ctx, rlx_build_config_t);
  c->ctx = ctx;
  return c;
}

static RLX_MUST_USE rlx_status_t* push(rlx_build_config_t* c, const char** list, int* n, const char* what, const char* s) {
  if (*n == RLX_BUILD_CONFIG_MAX) return rlx_status_create(RLX_INVALID_ARGUMENT, "too many %s (at most %d)", what, RLX_BUILD_CONFIG_MAX);
  list[(*n)++] = rlx_ctx_strdup(c->ctx, s);
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_build_config_add_extern(rlx_build_config_t* c, const char* path) {
  rlx_extern_kind_t kind;
  RLX_RETURN_IF_ERROR(rlx_extern_kind_of(path, &kind));
  return push(c, c->externs, &c->n_externs, "externs", path);
}

RLX_MUST_USE rlx_status_t* rlx_build_config_add_lib(rlx_build_config_t* c, const char* path) {
  return push(c, c->libs, &c->n_libs, "libraries", path);
}

RLX_MUST_USE rlx_status_t* rlx_build_config_defer(rlx_build_config_t* c, const char* name) {
  return push(c, c->defer, &c->n_defer, "deferred names", name);
}

void rlx_build_config_vm_options(const rlx_build_config_t* c, rlx_vm_compile_options_t* o) {
  memset(o, 0, sizeof(*o));
  if (!c) return;
  o->n_libs = c->n_libs;
  o->libs = c->libs;
  o->n_externs = c->n_externs;
  o->externs = c->externs;
  o->n_defer = c->n_defer;
  o->defer = c->defer;
}

RLX_MUST_USE rlx_status_t* rlx_relax_build(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_build_config_t* c, const char* out_so) {
  rlx_vm_compile_options_t o;
  rlx_build_config_vm_options(c, &o);
  return rlx_vm_compile(ctx, m, &o, out_so);
}

RLX_MUST_USE rlx_status_t* rlx_relax_unresolved(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_build_config_t* c,
                                                const char*** out_names, int* out_n) {
  rlx_vm_compile_options_t o;
  rlx_build_config_vm_options(c, &o);
  return rlx_vm_unresolved(ctx, m, &o, out_names, out_n);
}

const char* rlx_config_include_dir(void) { return rlx_extern_include_dir(); }

const char* rlx_config_lib_dir(void) { return RLX_BUILD_LIB_DIR; }
