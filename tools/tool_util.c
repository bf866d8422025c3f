/* Helpers several commands of the rlx tool use: file kinds, loading modules and tensors,
 * directories and child processes. */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tool.h"

bool tool_ends_with(const char* s, const char* suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n > k && strcmp(s + n - k, suffix) == 0;
}

bool tool_is_model(const char* path) { return tool_ends_with(path, ".so"); }

RLX_MUST_USE rlx_status_t* tool_load_tensor(const char* path, rlx_ndarray_t** out) {
  return tool_ends_with(path, ".pb") ? rlx_onnx_tensor_load(path, out) : rlx_npy_load(path, out);
}

/* An ONNX model, with the --bind inputs made constants. */
static RLX_MUST_USE rlx_status_t* load_onnx(rlx_ctx_t* ctx, const options_t* o, rlx_module_t** out) {
  char names[MAX_INPUTS][256];
  const char* name_ptrs[MAX_INPUTS];
  const DLTensor* values[MAX_INPUTS];
  rlx_ndarray_t* arrs[MAX_INPUTS];
  int n = 0;
  rlx_status_t* st = NULL;
  for (; n < o->n_binds && !st; n++) {
    const char* eq = strchr(o->binds[n], '=');
    snprintf(names[n], sizeof(names[n]), "%.*s", (int)(eq - o->binds[n]), o->binds[n]);
    name_ptrs[n] = names[n];
    st = tool_load_tensor(eq + 1, &arrs[n]);
    if (st) break;
    values[n] = &arrs[n]->dl;
  }
  if (!st) {
    rlx_onnx_import_options_t io = {n,
                                    name_ptrs,
                                    values,
                                    o->out_output_names,
                                    o->out_n_outputs,
                                    o->out_param_types,
                                    o->out_n_params,
                                    o->out_output_types};
    st = rlx_onnx_import_file_ex(ctx, o->file, &io, out);
  }
  for (int i = 0; i < n; i++) rlx_ndarray_release(arrs[i]);
  return st;
}

RLX_MUST_USE rlx_status_t* tool_load_module(rlx_ctx_t* ctx, const options_t* o, rlx_module_t** out) {
  if (tool_ends_with(o->file, ".onnx")) return load_onnx(ctx, o, out);
  if (o->n_binds) return rlx_status_create(RLX_INVALID_ARGUMENT, "--bind applies to ONNX models (.onnx)");
  return rlx_script_parse_file(ctx, o->file, out);
}

bool tool_has_relax(const rlx_module_t* m) {
  for (int i = 0; i < rlx_module_func_count(m); i++)
    if (rlx_module_func_is_relax(m, i)) return true;
  return false;
}

RLX_MUST_USE rlx_status_t* tool_mkdirs(const char* path) {
  if (mkdir(path, 0755) == 0 || errno == EEXIST) return NULL;
  if (errno == ENOENT) { /* make the parent first */
    char parent[4096];
    snprintf(parent, sizeof(parent), "%s", path);
    char* slash = strrchr(parent, '/');
    if (slash && slash != parent) {
      *slash = 0;
      RLX_RETURN_IF_ERROR(tool_mkdirs(parent));
      if (mkdir(path, 0755) == 0 || errno == EEXIST) return NULL;
    }
  }
  return rlx_status_create(RLX_IO_ERROR, "cannot create directory '%s': %s", path, strerror(errno));
}

RLX_MUST_USE rlx_status_t* tool_run_process(char* const* argv) {
  /* the child's output goes to our stderr, where the user sees it next to the error */
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, 2, 1);
  extern char** environ;
  pid_t pid;
  int err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (err != 0) return rlx_status_create(RLX_IO_ERROR, "cannot run '%s': %s", argv[0], strerror(err));
  int wst = 0;
  while (waitpid(pid, &wst, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(wst) && WEXITSTATUS(wst) == 0) return NULL;
  return rlx_status_create(RLX_IO_ERROR, "'%s' failed (exit status %d; its output is above)", argv[0],
                           WIFEXITED(wst) ? WEXITSTATUS(wst) : -1);
}

RLX_MUST_USE rlx_status_t* tool_ctx(const options_t* o, rlx_ctx_t** out) {
  *out = NULL;
  rlx_ctx_t* ctx = rlx_ctx_create();
  if (!ctx) return rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (compiler context)");
  rlx_status_t* st = o->target ? rlx_status_annotate(rlx_ctx_set_target_str(ctx, o->target), "--target") : NULL;
  if (st) {
    rlx_ctx_free(ctx);
    return st;
  }
  *out = ctx;
  return NULL;
}

RLX_MUST_USE rlx_status_t* tool_build_config(rlx_ctx_t* ctx, const options_t* o, rlx_build_config_t** out) {
  rlx_build_config_t* c = rlx_build_config_create(ctx);
  for (int i = 0; i < o->n_externs; i++) RLX_RETURN_IF_ERROR(rlx_build_config_add_extern(c, o->externs[i]));
  for (int i = 0; i < o->n_libs; i++) RLX_RETURN_IF_ERROR(rlx_build_config_add_lib(c, o->libs[i]));
  for (int i = 0; i < o->n_defer; i++) RLX_RETURN_IF_ERROR(rlx_build_config_defer(c, o->defer[i]));
  *out = c;
  return NULL;
}
