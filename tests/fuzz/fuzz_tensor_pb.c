/* Fuzz target: the ONNX value readers (.pb inputs of `rlx run`): TensorProto (unpack +
 * decode, the path of rlx_onnx_tensor_load; decoded data must cover the bytes its shape says),
 * and the same bytes as a SequenceProto / OptionalProto of a few declared types
 * (rlx_onnx_value_load_bytes), whose value trees are walked and cleared. */
#include "frontend/onnx/onnx_internal.h"
#include "fuzz.h"

/* Reads every byte of every tensor in v. */
static uint8_t touch(const rlx_vm_value_t* v) {
  uint8_t sum = 0;
  if (v->kind == RLX_VM_INPUT_TENSOR) {
    size_t n = rlx_ndarray_nbytes(&v->tensor->dl);
    for (size_t i = 0; i < n; i++) sum += ((const uint8_t*)v->tensor->dl.data)[i];
  }
  for (int i = 0; i < v->n_fields; i++) sum += touch(&v->fields[i]);
  return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* const types[] = {"seq(tensor)", "opt(tensor)", "opt(seq(tensor))", "seq(seq(tensor))"};
  for (int k = 0; k < 4; k++) {
    rlx_vm_value_t v;
    rlx_status_t* vs = rlx_onnx_value_load_bytes(data, size, types[k], "fuzz.pb", &v);
    if (vs) {
      fuzz_ignore(vs);
      continue;
    }
    volatile uint8_t s = touch(&v);
    (void)s;
    rlx_vm_value_clear(&v);
  }
  Onnx__TensorProto* t = NULL;
  rlx_status_t* st = rlx_onnx_tensor_proto_unpack(data, size, "fuzz.pb", &t);
  if (st) {
    fuzz_ignore(st);
    return 0;
  }
  rlx_onnx_decoded_t d;
  st = rlx_onnx_tensor_decode(t, "fuzz.pb", &d);
  rlx_onnx_tensor_proto_free(t);
  if (st) {
    fuzz_ignore(st);
    return 0;
  }
  volatile uint8_t sum = 0;
  for (size_t i = 0; i < d.nbytes; i++) sum += ((const uint8_t*)d.data)[i];
  (void)sum;
  free(d.data);
  return 0;
}
