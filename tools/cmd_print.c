/* rlx print: a TVMScript file or an ONNX model printed as TVMScript, after any compile stage
 * (rlx_module_print_after); a compiled model prints as VM bytecode. */
#include <stdlib.h>

#include "tool.h"

const char tool_help_print[] =
    "  rlx print FILE [--after PASS|all] [--target T] [--show-meta] [--extern X]...\n"
    "                                         print a TVMScript file or an imported ONNX model,\n"
    "                                         or print it after a pass; --show-meta: with the\n"
    "                                         metadata section (the data of large constants)\n"
    "                                         (Relax modules: the Relax pipeline; PrimFunc-only\n"
    "                                         files: the TIR lowering passes); a compiled model\n"
    "                                         (.so) prints as VM bytecode, after its target\n";

RLX_MUST_USE rlx_status_t* tool_cmd_print(const options_t* o) {
  rlx_ctx_t* ctx = NULL;
  RLX_RETURN_IF_ERROR(tool_ctx(o, &ctx));
  rlx_build_config_t* c = NULL; /* --extern is checked; linked only by compile / run / bench */
  rlx_status_t* st = tool_build_config(ctx, o, &c);
  char* text = NULL;
  if (!st && tool_is_model(o->file)) {
    if (o->after) st = rlx_status_create(RLX_INVALID_ARGUMENT, "--after applies to source files, not to a compiled model");
    else st = rlx_vm_disassemble_model(o->file, &text);
  } else if (!st) {
    rlx_module_t* m = NULL;
    st = tool_load_module(ctx, o, &m);
    if (!st) st = rlx_module_print_after(ctx, m, o->after, o->show_meta, &text);
  }
  if (!st) fputs(text, stdout);
  free(text);
  rlx_ctx_free(ctx);
  return st;
}
