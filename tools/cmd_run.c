/* rlx run: one call of a function (default main) of a source file or a compiled model; the
 * outputs are written as .npy or .pb files. */
#include <string.h>

#include "tool.h"

const char tool_help_run[] =
    "  rlx run FILE|MODEL.so [-e FUNC] [-i IN.npy|IN.pb]... [-o OUTDIR] [--format npy|pb]\n"
    "          [--bind NAME=IN.pb]... [--extern X]... [--lib L.so]... [--defer-extern NAME]... [--threads N] [--target T]\n"
    "                                         run a function (default main); outputs are\n"
    "                                         written as OUTDIR/output_0.npy, ... (.pb TensorProtos\n"
    "                                         when FILE is .onnx or an input is .pb; --format\n"
    "                                         chooses); --bind makes an ONNX graph input a\n"
    "                                         constant (print/compile/run/bench)\n";

/* Output format: --format, else .pb when the model is ONNX or an input is a .pb file, else .npy. */
static bool outputs_as_pb(const options_t* o) {
  if (o->format) return strcmp(o->format, "pb") == 0;
  if (tool_ends_with(o->file, ".onnx")) return true;
  for (int i = 0; i < o->n_inputs; i++)
    if (tool_ends_with(o->inputs[i], ".pb")) return true;
  return false;
}

RLX_MUST_USE rlx_status_t* tool_cmd_run(const options_t* o) {
  bool pb = outputs_as_pb(o);
  session_t s;
  rlx_status_t* st = tool_session_prepare(o, false, &s);
  if (!st) st = tool_session_call(&s);
  if (!st && o->output) st = tool_mkdirs(o->output);
  if (s.structured) { /* an ONNX model's outputs by their declared types (sequences, optionals) */
    int n = s.n_output_names;
    if (!st && n > 1 && (s.result.kind != RLX_VM_INPUT_TUPLE || s.result.n_fields != n))
      st = rlx_status_create(RLX_INTERNAL, "%s: expected %d outputs", s.vm_func, n);
    for (int k = 0; !st && k < n; k++) {
      char path[4096];
      snprintf(path, sizeof(path), "%s/output_%d.pb", o->output ? o->output : ".", k);
      st = rlx_onnx_value_save(path, s.output_types[k], n > 1 ? &s.result.fields[k] : &s.result);
    }
    tool_session_free(&s);
    return st;
  }
  /* PrimFunc: the parameters after the inputs; VM: the returned values. */
  int n_out = s.vm ? s.n_outputs : s.n_args - s.n_given;
  for (int k = 0; !st && k < n_out; k++) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/output_%d.%s", o->output ? o->output : ".", k, pb ? "pb" : "npy");
    const DLTensor* t = s.vm ? &s.outputs[k]->dl : &s.args[s.n_given + k]->dl;
    st = pb ? rlx_onnx_tensor_save(path, t, NULL) : rlx_npy_save(path, t);
  }
  tool_session_free(&s);
  return st;
}
