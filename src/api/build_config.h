/* The build configuration behind rlx_build_config_t (include/rlx/rlx.h), shared by the API
 * wrappers and the MLF exporter. Lives in its context's arena. */
#ifndef RLX_API_BUILD_CONFIG_H
#define RLX_API_BUILD_CONFIG_H

#include "../build/vm_build.h"

enum { RLX_BUILD_CONFIG_MAX = 64 };

struct rlx_build_config {
  rlx_ctx_t* ctx;
  const char* externs[RLX_BUILD_CONFIG_MAX];
  int n_externs;
  const char* libs[RLX_BUILD_CONFIG_MAX];
  int n_libs;
  const char* defer[RLX_BUILD_CONFIG_MAX];
  int n_defer;
};

/* vm compile options pointing into c (NULL: all empty). */
void rlx_build_config_vm_options(const struct rlx_build_config* c, rlx_vm_compile_options_t* o);

#endif
