/* Shared by the runtime kernels' tests (test_runtime_nn_kernels.c, test_runtime_qnn_kernels.c):
 * the kernel variant a call takes follows the CPU's level after RLX_MAX_ISA, which a process
 * reads once, so a test checks every variant the CPU runs by running itself again under each
 * lower cap. */
#ifndef RLX_TESTS_KERNEL_TEST_UTIL_H
#define RLX_TESTS_KERNEL_TEST_UTIL_H

#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "support/target.h"
#include "test.h"

extern char** environ;

/* Runs this test again with RLX_MAX_ISA=cap and "--capped"; true when it passes. */
static inline bool run_capped(const char* self, const char* cap) {
  char var[64];
  snprintf(var, sizeof(var), "RLX_MAX_ISA=%s", cap);
  int n = 0;
  while (environ[n]) n++;
  char** env = calloc((size_t)n + 2, sizeof(char*));
  int k = 0;
  for (int i = 0; i < n; i++)
    if (strncmp(environ[i], "RLX_MAX_ISA=", 12) != 0) env[k++] = environ[i];
  env[k++] = var;
  char* argv[] = {(char*)self, (char*)"--capped", NULL};
  pid_t pid;
  int status = -1;
  bool ok = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, env) == 0 && waitpid(pid, &status, 0) == pid &&
            WIFEXITED(status) && WEXITSTATUS(status) == 0;
  free(env);
  return ok;
}

/* Unless this run is itself capped: runs the test under every lower x86-64 level the CPU
 * allows (x86-64-v3, x86-64-v2), each in a process of its own, and checks each passed. */
static inline void run_lower_levels(int argc, char** argv, const char* what) {
  if ((argc > 1 && strcmp(argv[1], "--capped") == 0) || rlx_host_arch() != RLX_ARCH_X86_64) return;
  static const char* caps[] = {"x86-64-v3", "x86-64-v2"};
  for (int i = 0; i < 2; i++) {
    if (rlx_cpu_isa_level() <= (i == 0 ? RLX_ISA_X86_V3 : RLX_ISA_X86_V2)) continue; /* already this level */
    printf("== RLX_MAX_ISA=%s\n", caps[i]);
    fflush(stdout);
    CHECK_MSG(run_capped(argv[0], caps[i]), "%s under RLX_MAX_ISA=%s", what, caps[i]);
  }
}

#endif
