/* Commands of the rlx tool that live in their own files (tools/cmd_*.c) and what they share
 * with tools/rlx.c, which parses the options and dispatches. Each returns a status; only
 * main() prints it. */
#ifndef RLX_TOOL_H
#define RLX_TOOL_H

#include <stdbool.h>
#include <stdio.h>

#include "ir/ir.h"
#include "rlx/rlx.h"
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
} options_t;

/* FILE as a module: TVMScript, or ONNX (.onnx, with o->binds; o->out_output_names, when set,
 * receives the graph output names). rlx.c. */
rlx_status_t* tool_load_module(rlx_ctx_t* ctx, const options_t* o, rlx_module_t** out);

/* True for a compiled model (.so). rlx.c. */
bool tool_is_model(const char* path);

/* rlx config --cflags | --libs | --version (argv as main got it). cmd_config.c. */
rlx_status_t* tool_cmd_config(int argc, char** argv);

/* rlx export-mlf FILE -o OUT.tar [--style S] [--name N] [--extern X]... cmd_export_mlf.c. */
rlx_status_t* tool_cmd_export_mlf(const options_t* o);

/* Prints the VM's profile (rlx_vm_profile_get) as a table sorted by time, with a last row
 * "(vm_interpreter_and_other)" so the pct column sums to 100; plot_path (NULL: none), a .png
 * or .svg, gets the table drawn as a horizontal bar chart by python3 + matplotlib
 * ($RLX_PYTHON, default python3). profile.c. */
rlx_status_t* tool_profile_print(rlx_vm_t* vm, const char* plot_path);

/* Runs the pipeline up to the default schedule on m and prints to out every block left
 * without its real schedule ("unscheduled FUNC block BLOCK (KIND, N iterations): WHY"),
 * after a count line. profile.c. */
rlx_status_t* tool_sched_report(rlx_ctx_t* ctx, rlx_module_t* m, FILE* out);

#endif
