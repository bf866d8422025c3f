/* rlx compile: a Relax module (TVMScript or ONNX) into one model shared object (kernels +
 * bytecode + constants + externs); --stats prints the memory plan and the schedule report. */
#include <stdlib.h>
#include <string.h>

#include "tool.h"

const char tool_help_compile[] =
    "  rlx compile FILE -o MODEL.so [--target T] [--extern X]... [--lib L.so]... [--defer-extern NAME]... [--stats]\n"
    "                                         compile a Relax module into one shared object\n"
    "                                         (kernels + bytecode + constants + externs); --stats\n"
    "                                         prints the memory planned vs unplanned and every\n"
    "                                         block the default schedule left unscheduled, and why\n"
    "                                         (RLX_SCHED_DEBUG=1 prints those on stderr whenever a\n"
    "                                         model is compiled)\n"
    "      --target T          what to compile for, as TVM writes it: 'c -mcpu=x86-64-v3',\n"
    "                          'llvm -mcpu=znver4', 'c -mtriple=aarch64-linux-gnu' (cross compiler\n"
    "                          aarch64-linux-gnu-gcc); default: this machine's CPU\n"
    "      --extern X          link X into the model: an object .o, an archive .a, or a source\n"
    "                          .c ($CC), .cc/.cpp/.cxx ($CXX), .cu ($NVCC), compiled with\n"
    "                          `rlx config --cflags` (TVM-compatible headers included)\n"
    "      --lib L.so          a library the model will be loaded with\n"
    "      --defer-extern NAME a name the loading program provides (not checked now)\n"
    "                          every other name called with R.call_packed/R.call_dps_packed must\n"
    "                          be found: --extern, --lib, VM builtins, registry\n";

/* Prints a report (rlx_relax_memory_report, rlx_schedule_report) to f. */
static RLX_MUST_USE rlx_status_t* print_report(rlx_status_t* (*report)(rlx_ctx_t*, rlx_module_t*, char**), rlx_ctx_t* ctx,
                                               rlx_module_t* m, FILE* f) {
  char* text = NULL;
  RLX_RETURN_IF_ERROR(report(ctx, m, &text));
  fputs(text, f);
  free(text);
  return NULL;
}

RLX_MUST_USE rlx_status_t* tool_compile_to(const options_t* o, rlx_ctx_t* ctx, rlx_module_t* m, const char* out_path) {
  rlx_build_config_t* c = NULL;
  RLX_RETURN_IF_ERROR(tool_build_config(ctx, o, &c));
  const char* dbg = getenv("RLX_SCHED_DEBUG");
  if (dbg && *dbg && strcmp(dbg, "0") != 0) RLX_RETURN_IF_ERROR(print_report(rlx_schedule_report, ctx, m, stderr));
  return rlx_relax_build(ctx, m, c, out_path);
}

RLX_MUST_USE rlx_status_t* tool_cmd_compile(const options_t* o) {
  if (!o->output) return rlx_status_create(RLX_INVALID_ARGUMENT, "compile needs -o MODEL.so");
  rlx_ctx_t* ctx = NULL;
  RLX_RETURN_IF_ERROR(tool_ctx(o, &ctx));
  rlx_module_t* m = NULL;
  rlx_status_t* st = tool_load_module(ctx, o, &m);
  if (!st && o->stats) printf("target: %s\n", rlx_target_str(rlx_ctx_target(ctx)));
  if (!st && !tool_has_relax(m))
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s has no Relax function to compile (use rlx run for a PrimFunc)",
                           o->file);
  if (!st && o->stats) st = print_report(rlx_relax_memory_report, ctx, m, stdout);
  if (!st && o->stats) st = print_report(rlx_schedule_report, ctx, m, stdout);
  if (!st) st = tool_compile_to(o, ctx, m, o->output);
  rlx_ctx_free(ctx);
  return st;
}
