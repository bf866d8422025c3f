/* TensorProto files (.pb), the format of the ONNX test data (test_data_set_N/input_0.pb):
 * read into an NDArray (raw_data or the typed fields), written with raw_data.
 */
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

rlx_status_t* rlx_onnx_tensor_load(const char* path, rlx_ndarray_t** out) {
  *out = NULL;
  char* bytes = NULL;
  size_t n = 0;
  RLX_RETURN_IF_ERROR(rlx_file_read(path, &bytes, &n));
  Onnx__TensorProto* t = NULL;
  rlx_status_t* st = rlx_onnx_tensor_proto_unpack(bytes, n, path, &t);
  free(bytes);
  if (st) return st;
  rlx_onnx_decoded_t d;
  st = rlx_onnx_tensor_decode(t, path, &d);
  rlx_onnx_tensor_proto_free(t);
  if (st) return st;
  DLDataType dt = {d.dtype.code, d.dtype.bits, d.dtype.lanes};
  rlx_ndarray_t* arr = NULL;
  st = rlx_ndarray_create(d.ndim, d.shape, dt, NULL, &arr);
  if (!st && d.nbytes) memcpy(arr->dl.data, d.data, d.nbytes);
  free(d.data);
  if (st) return rlx_status_annotate(st, "%s", path);
  *out = arr;
  return NULL;
}

rlx_status_t* rlx_onnx_tensor_save(const char* path, const DLTensor* t, const char* name) {
  rlx_dtype_t dt = rlx_dtype(t->dtype.code, t->dtype.bits, t->dtype.lanes);
  int32_t elem = rlx_onnx_elem_from_dtype(dt);
  char b[32];
  if (!elem)
    return rlx_status_create(RLX_UNSUPPORTED, "%s: dtype %s has no ONNX equivalent", path, rlx_dtype_str(dt, b));
  if (t->strides) { /* compact tensors only, as the runtime's .npy writer */
    int64_t expect = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
      if (t->shape[d] != 1 && t->strides[d] != expect)
        return rlx_status_create(RLX_UNSUPPORTED, "%s: the tensor is not compact", path);
      expect *= t->shape[d];
    }
  }
  Onnx__TensorProto p = ONNX__TENSOR_PROTO__INIT;
  p.n_dims = (size_t)t->ndim;
  p.dims = t->shape;
  p.has_data_type = 1;
  p.data_type = elem;
  p.name = name ? (char*)name : NULL;
  p.has_raw_data = 1;
  p.raw_data.len = (size_t)rlx_ndarray_numel(t) * (size_t)rlx_dtype_bytes(dt);
  p.raw_data.data = (uint8_t*)t->data + t->byte_offset;
  size_t n = onnx__tensor_proto__get_packed_size(&p);
  uint8_t* buf = malloc(n ? n : 1);
  if (!buf) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s: %zu bytes", path, n);
  onnx__tensor_proto__pack(&p, buf);
  rlx_status_t* st = rlx_file_write(path, buf, n);
  free(buf);
  return st;
}
