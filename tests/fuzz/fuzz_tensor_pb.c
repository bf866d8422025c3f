/* Fuzz target: the ONNX TensorProto reader (.pb inputs of `rlx run`: unpack + decode, the
 * path of rlx_onnx_tensor_load). Decoded data must cover the bytes its shape says. */
#include "frontend/onnx/onnx_internal.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
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
