/* rlx export-mlf: a TVMScript file or an ONNX model as a Model Library Format archive
 * (rlx_export_mlf, include/rlx/rlx.h; layout in README.md and docs/ARCHITECTURE.md).
 *
 *   rlx export-mlf FILE -o OUT.tar [--style full-model|operator] [--name NAME] [--extern X]...
 *
 * An ONNX model's graph output names become the members of struct tvmgen_NAME_outputs.
 */
#include <string.h>

#include "tool.h"

const char tool_help_export_mlf[] =
    "  rlx export-mlf FILE -o OUT.tar [--target T] [--style full-model|operator] [--name NAME] [--extern X]...\n"
    "                                         export TVM's Model Library Format (version 7): plain C\n"
    "                                         sources (kernels, AOT entry point with a static memory\n"
    "                                         plan, constants), codegen/host/include/tvmgen_NAME.h,\n"
    "                                         metadata.json, src/relax.txt, src/tir-cpu.txt,\n"
    "                                         parameters/NAME.params; NAME defaults to 'default';\n"
    "                                         metadata.json names the target and its C flags\n"
    "                                         (rlx config --target-cflags [--target T])\n";

RLX_MUST_USE rlx_status_t* tool_cmd_export_mlf(const options_t* o) {
  if (!o->output) return rlx_status_create(RLX_INVALID_ARGUMENT, "export-mlf needs -o OUT.tar");
  if (tool_is_model(o->file))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "export-mlf exports a source file (TVMScript or ONNX), not a compiled model");
  rlx_ctx_t* ctx = NULL;
  RLX_RETURN_IF_ERROR(tool_ctx(o, &ctx));
  rlx_module_t* m = NULL;
  rlx_build_config_t* c = NULL;
  rlx_status_t* st = tool_build_config(ctx, o, &c);
  const char** out_names = NULL;
  int n_out = 0;
  options_t oo = *o;
  oo.out_output_names = &out_names;
  oo.out_n_outputs = &n_out;
  if (!st) st = tool_load_module(ctx, &oo, &m);
  if (!st) {
    rlx_mlf_options_t mo = {o->style, o->name, c, n_out, out_names};
    st = rlx_export_mlf(ctx, m, &mo, o->output);
  }
  rlx_ctx_free(ctx);
  return st;
}
