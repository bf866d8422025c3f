/* rlx config: the flags for building code against rlx by hand.
 *
 *   rlx config --cflags    -I flags for extern sources: rlx/ headers and the TVM-compatible
 *                          tvm/runtime/ headers (dlpack/dlpack.h comes from libdlpack-dev)
 *   rlx config --libs      link flags for a program using librlx_runtime
 *   rlx config --version   the version
 *   rlx config --isa       the running CPU's kernel level after RLX_MAX_ISA (x86-64-v4 ...)
 *   rlx config --target-cflags [--target T]
 *                          the C flags for code built for a target (default: this machine):
 *                          what a Model Library Format archive's sources are built with
 *
 * Several flags print their values on one line, in the order given.
 */
#include <stdio.h>
#include <string.h>

#include "tool.h"

const char tool_help_config[] =
    "  rlx config --cflags|--libs|--version  compiler flags for extern sources (-I for rlx/*.h and\n"
    "                                         tvm/runtime/*.h), link flags for librlx_runtime\n"
    "  rlx config --isa                       this CPU's level (x86-64-v2/v3/v4, neon), after RLX_MAX_ISA\n"
    "  rlx config --target-cflags [--target T]  C flags for code built for target T (default: this\n"
    "                                         machine): -O3 -ffp-contract=fast -march=... -mtune=...\n";

RLX_MUST_USE rlx_status_t* tool_cmd_config(int argc, char** argv) {
  if (argc < 3)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "config needs --cflags, --libs or --version (rlx config --help)");
  char line[8192];
  size_t n = 0;
  line[0] = 0;
  const char* target = NULL;
  for (int i = 2; i + 1 < argc; i++)
    if (strcmp(argv[i], "--target") == 0) target = argv[i + 1];
  for (int i = 2; i < argc; i++) {
    const char* a = argv[i];
    char part[4200];
    if (strcmp(a, "--target") == 0) {
      if (i + 1 >= argc) return rlx_status_create(RLX_INVALID_ARGUMENT, "--target needs a value");
      i++;
      continue;
    }
    if (strcmp(a, "--target-cflags") == 0) {
      rlx_target_t* t = NULL;
      RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_target_parse(target, &t), "--target"));
      char flags[1024];
      RLX_RETURN_IF_ERROR(rlx_target_cflags(t, flags, sizeof(flags)));
      rlx_target_free(t);
      snprintf(part, sizeof(part), "%s", flags);
    } else if (strcmp(a, "--cflags") == 0) snprintf(part, sizeof(part), "-I%s", rlx_config_include_dir());
    else if (strcmp(a, "--libs") == 0)
      snprintf(part, sizeof(part), "-L%s -Wl,-rpath,%s -lrlx_runtime", rlx_config_lib_dir(), rlx_config_lib_dir());
    else if (strcmp(a, "--version") == 0) snprintf(part, sizeof(part), "%s", RLX_VERSION);
    else if (strcmp(a, "--isa") == 0) snprintf(part, sizeof(part), "%s", rlx_cpu_isa());
    else return rlx_status_create(RLX_INVALID_ARGUMENT, "config: unknown option '%s' (expected --cflags, --libs, --version, --isa or --target-cflags)", a);
    n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s", n ? " " : "", part);
    if (n >= sizeof(line)) return rlx_status_create(RLX_INVALID_ARGUMENT, "config: output too long");
  }
  printf("%s\n", line);
  return NULL;
}
