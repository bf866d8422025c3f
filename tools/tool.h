/* The rlx tool: what its files share. tools/rlx.c parses the options and dispatches to one
 * file per command (tools/cmd_*.c, each with its --help text); tool_util.c holds the helpers
 * several commands use and session.c the callable entry that run and bench share. Each
 * command returns a status; only main() prints it.
 *
 * The tool is a client of the public API only: it includes the headers of include/rlx/ and nothing
 * from src/ (the build compiles tools/ with include/ alone on the include path). */
#ifndef RLX_TOOL_H
#define RLX_TOOL_H

#include <stdbool.h>
#include <stdio.h>

#include "rlx/onnx.h"
#include "rlx/rlx.h"
#include "rlx/runtime.h"
#include "rlx/vm.h"

/* The parsed command line (tools/rlx.c: parse_options). */
enum { MAX_INPUTS = 64, MAX_LIBS = 16, MAX_EXTERNS = 64 };

typedef struct {
  const char* command;
  const char* file;
  const char* entry;
  const char* inputs[MAX_INPUTS];
  int n_inputs;
  const char* libs[MAX_LIBS];
  int n_libs;
  const char* externs[MAX_EXTERNS]; /* --extern X.o|.a|.c|.cc|.cpp|.cxx|.cu */
  int n_externs;
  const char* defer[MAX_EXTERNS]; /* --defer-extern NAME */
  int n_defer;
  const char* style; /* export-mlf --style */
  const char* name;  /* export-mlf --name */
  const char*** out_output_names; /* export-mlf: receives an ONNX model's output names */
  int* out_n_outputs;
  const char*** out_param_types;  /* run: receives the ONNX types of main's params ("seq(tensor)") */
  int* out_n_params;
  const char*** out_output_types; /* run: receives the ONNX types of the graph outputs */
  const char* output; /* -o: output directory (run) or model path (compile) */
  const char* after;
  const char* format; /* --format: "npy", "pb" or NULL (chosen from the files) */
  const char* binds[MAX_INPUTS]; /* --bind NAME=FILE (ONNX graph inputs made constants) */
  int n_binds;
  bool stats;
  bool show_meta;           /* print --show-meta */
  bool profile;             /* bench --profile */
  const char* profile_plot; /* bench --profile-plot FILE.png|svg */
  int repeat;
  int threads;
  const char* target; /* --target: TVM's target string (NULL: the host) */
} options_t;

/* ---- the commands: help text (usage lines) and entry point ---- */
extern const char tool_help_print[], tool_help_compile[], tool_help_run[], tool_help_bench[],
    tool_help_export_mlf[], tool_help_config[];
RLX_MUST_USE rlx_status_t* tool_cmd_print(const options_t* o);   /* cmd_print.c */
RLX_MUST_USE rlx_status_t* tool_cmd_compile(const options_t* o); /* cmd_compile.c */
RLX_MUST_USE rlx_status_t* tool_cmd_run(const options_t* o);     /* cmd_run.c */
RLX_MUST_USE rlx_status_t* tool_cmd_bench(const options_t* o);   /* cmd_bench.c */
/* rlx export-mlf FILE -o OUT.tar [--style S] [--name N] [--extern X]... cmd_export_mlf.c. */
RLX_MUST_USE rlx_status_t* tool_cmd_export_mlf(const options_t* o);
/* rlx config --cflags | --libs | --version (argv as main got it). cmd_config.c. */
RLX_MUST_USE rlx_status_t* tool_cmd_config(int argc, char** argv);

/* ---- helpers (tool_util.c) ---- */
bool tool_ends_with(const char* s, const char* suffix);
/* True for a compiled model (.so). */
bool tool_is_model(const char* path);
/* A tensor from a .pb TensorProto or a .npy file (the caller releases it). */
RLX_MUST_USE rlx_status_t* tool_load_tensor(const char* path, rlx_ndarray_t** out);
/* FILE as a module: TVMScript, or ONNX (.onnx, with o->binds; o->out_output_names, when set,
 * receives the graph output names). */
RLX_MUST_USE rlx_status_t* tool_load_module(rlx_ctx_t* ctx, const options_t* o, rlx_module_t** out);
/* True when m has a Relax function. */
bool tool_has_relax(const rlx_module_t* m);
/* mkdir -p path. */
RLX_MUST_USE rlx_status_t* tool_mkdirs(const char* path);
/* Runs argv[0] with argv, waiting for it; its output (stdout and stderr) goes into the error
 * when it fails. */
RLX_MUST_USE rlx_status_t* tool_run_process(char* const* argv);
/* A compiler context for the options: --target set (NULL *out when it cannot be made). */
RLX_MUST_USE rlx_status_t* tool_ctx(const options_t* o, rlx_ctx_t** out);
/* The options' --extern / --lib / --defer-extern as a build configuration in ctx. */
RLX_MUST_USE rlx_status_t* tool_build_config(rlx_ctx_t* ctx, const options_t* o, rlx_build_config_t** out);

/* Compiles m (a module with Relax functions) into the model out_path with the options'
 * externs and libraries; RLX_SCHED_DEBUG=1 first prints the schedule report on stderr.
 * cmd_compile.c. */
RLX_MUST_USE rlx_status_t* tool_compile_to(const options_t* o, rlx_ctx_t* ctx, rlx_module_t* m, const char* out_path);

/* ---- one callable entry with its arguments (session.c), for run and bench ----
 * Either a PrimFunc compiled on the fly (inputs and outputs are its parameters) or a Relax
 * function run by the VM (inputs only; outputs come back from each call). */
typedef struct {
  rlx_ctx_t* ctx;
  /* PrimFunc */
  rlx_library_t* lib;
  rlx_tir_func_t* func;
  rlx_packed_fn_t fn;
  /* VM */
  rlx_vm_t* vm;
  const char* vm_func;
  char tmp_dir[64];
  int n_outputs;
  rlx_ndarray_t** outputs;
  /* arguments */
  int n_args;
  rlx_ndarray_t* args[MAX_INPUTS];
  int n_given; /* args[0..n_given) came from -i */
  /* ONNX models with sequence or optional inputs or outputs: values kept as trees, read and
   * written by their declared types (rlx_onnx_value_load / _save) */
  const char** param_types;
  int n_param_types;
  const char** output_types;
  const char** output_names;
  int n_output_names;
  bool structured;
  rlx_vm_value_t vals[MAX_INPUTS];
  int n_vals;
  rlx_vm_value_t result;
} session_t;

/* Loads FILE (source or compiled model) and prepares the entry's arguments: from -i, and
 * for bench (random) the rest filled with random values when their shapes are constant. */
RLX_MUST_USE rlx_status_t* tool_session_prepare(const options_t* o, bool random, session_t* s);
/* One call of the entry (VM outputs replace the previous call's). */
RLX_MUST_USE rlx_status_t* tool_session_call(session_t* s);
void tool_session_free(session_t* s);

#endif
