/* TensorProto files (.pb), the format of the ONNX test data (test_data_set_N/input_0.pb):
 * read into an NDArray (raw_data or the typed fields), written with raw_data. Values of
 * sequence and optional type (SequenceProto, OptionalProto: onnx_values.proto) are read into
 * and written from VM value trees (rlx_vm_value_t), led by the declared type ("seq(tensor)").
 */
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"
#include "onnx_values.pb-c.h"

/* A decoded TensorProto as a new NDArray. */
static RLX_MUST_USE rlx_status_t* tensor_from_proto(const Onnx__TensorProto* t, const char* path, rlx_ndarray_t** out) {
  *out = NULL;
  if (t->has_data_type && t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__STRING) { /* a string tensor */
    int64_t n = 1;
    if (t->n_dims > RLX_ONNX_MAX_DIMS) return rlx_status_create(RLX_UNSUPPORTED, "%s: too many dims", path);
    for (size_t d = 0; d < t->n_dims; d++) {
      if (t->dims[d] < 0 || (t->dims[d] > 0 && n > INT64_MAX / t->dims[d]))
        return rlx_status_create(RLX_PARSE_ERROR, "%s: bad dims", path);
      n *= t->dims[d];
    }
    if ((uint64_t)n != t->n_string_data)
      return rlx_status_create(RLX_PARSE_ERROR, "%s: %zu strings for %lld elements", path, t->n_string_data, (long long)n);
    const char** s = malloc(sizeof(char*) * (t->n_string_data ? t->n_string_data : 1));
    size_t* lens = malloc(sizeof(size_t) * (t->n_string_data ? t->n_string_data : 1));
    rlx_status_t* st = NULL;
    if (!s || !lens) st = rlx_status_create(RLX_OUT_OF_MEMORY, "%s", path);
    for (size_t i = 0; !st && i < t->n_string_data; i++) {
      s[i] = (const char*)t->string_data[i].data;
      lens[i] = t->string_data[i].len;
      if (lens[i] && memchr(s[i], 0, lens[i])) st = rlx_status_create(RLX_UNSUPPORTED, "%s: a string holds a NUL byte", path);
    }
    if (!st) st = rlx_ndarray_strings_create((int)t->n_dims, t->dims, s, lens, out);
    free(s);
    free(lens);
    return st ? rlx_status_annotate(st, "%s", path) : NULL;
  }
  rlx_onnx_decoded_t d;
  RLX_RETURN_IF_ERROR(rlx_onnx_tensor_decode(t, path, &d));
  rlx_status_t* st = NULL;
  DLDataType dt = {d.dtype.code, d.dtype.bits, d.dtype.lanes};
  rlx_ndarray_t* arr = NULL;
  st = rlx_ndarray_create(d.ndim, d.shape, dt, NULL, &arr);
  if (!st && d.nbytes) memcpy(arr->dl.data, d.data, d.nbytes);
  free(d.data);
  if (st) return rlx_status_annotate(st, "%s", path);
  *out = arr;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_tensor_load(const char* path, rlx_ndarray_t** out) {
  *out = NULL;
  char* bytes = NULL;
  size_t n = 0;
  RLX_RETURN_IF_ERROR(rlx_file_read(path, &bytes, &n));
  Onnx__TensorProto* t = NULL;
  rlx_status_t* st = rlx_onnx_tensor_proto_unpack(bytes, n, path, &t);
  free(bytes);
  if (st) return st;
  st = tensor_from_proto(t, path, out);
  rlx_onnx_tensor_proto_free(t);
  return st;
}

/* Fills p (a TensorProto pointing at t's data) for packing; a string tensor's list of strings
 * is allocated in ctx. */
static RLX_MUST_USE rlx_status_t* tensor_proto_of(rlx_ctx_t* ctx, const char* path, const DLTensor* t, const char* name,
                                                  Onnx__TensorProto* p) {
  if (rlx_ndarray_is_strings(t)) {
    Onnx__TensorProto init = ONNX__TENSOR_PROTO__INIT;
    *p = init;
    int64_t n = rlx_ndarray_numel(t);
    p->n_dims = (size_t)t->ndim;
    p->dims = t->shape;
    p->has_data_type = 1;
    p->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__STRING;
    p->name = name ? (char*)name : NULL;
    p->n_string_data = (size_t)n;
    p->string_data = RLX_NEW_ARRAY(ctx, ProtobufCBinaryData, n);
    const char* const* s = (const char* const*)((const char*)t->data + t->byte_offset);
    for (int64_t i = 0; i < n; i++) {
      p->string_data[i].data = (uint8_t*)s[i];
      p->string_data[i].len = strlen(s[i]);
    }
    return NULL;
  }
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
  Onnx__TensorProto init = ONNX__TENSOR_PROTO__INIT;
  *p = init;
  p->n_dims = (size_t)t->ndim;
  p->dims = t->shape;
  p->has_data_type = 1;
  p->data_type = elem;
  p->name = name ? (char*)name : NULL;
  p->has_raw_data = 1;
  p->raw_data.len = (size_t)rlx_ndarray_numel(t) * (size_t)rlx_dtype_bytes(dt);
  p->raw_data.data = (uint8_t*)t->data + t->byte_offset;
  return NULL;
}

/* Packs message m and writes it to path. */
static RLX_MUST_USE rlx_status_t* write_message(const char* path, const ProtobufCMessage* m) {
  size_t n = protobuf_c_message_get_packed_size(m);
  uint8_t* buf = malloc(n ? n : 1);
  if (!buf) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s: %zu bytes", path, n);
  protobuf_c_message_pack(m, buf);
  rlx_status_t* st = rlx_file_write(path, buf, n);
  free(buf);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_tensor_save(const char* path, const DLTensor* t, const char* name) {
  Onnx__TensorProto p;
  rlx_ctx_t* ctx = rlx_ctx_new();
  if (!ctx) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s", path);
  rlx_status_t* st = tensor_proto_of(ctx, path, t, name, &p);
  if (!st) st = write_message(path, &p.base);
  rlx_ctx_free(ctx);
  return st;
}

/* ------------------------------------------------------------------ sequences, optionals */
/* A declared value type: "tensor", "seq(T)" or "opt(T)". *out_inner: T's text (up to the
 * matching parenthesis, which the caller does not need: T ends where the nesting closes). */
typedef enum { VT_TENSOR, VT_SEQ, VT_OPT, VT_BAD } vt_kind_t;
static vt_kind_t type_kind(const char* type, const char** out_inner) {
  *out_inner = NULL;
  if (!type) return VT_BAD;
  if (strncmp(type, "tensor", 6) == 0 || strncmp(type, "string", 6) == 0) return VT_TENSOR;
  if (strncmp(type, "seq(", 4) == 0) {
    *out_inner = type + 4;
    return VT_SEQ;
  }
  if (strncmp(type, "opt(", 4) == 0) {
    *out_inner = type + 4;
    return VT_OPT;
  }
  return VT_BAD;
}

static RLX_MUST_USE rlx_status_t* seq_value(const Onnx__SequenceProto* m, const char* type, const char* path, int depth,
                                            rlx_vm_value_t* out);
static RLX_MUST_USE rlx_status_t* opt_value(const Onnx__OptionalProto* m, const char* type, const char* path, int depth,
                                            rlx_vm_value_t* out);

/* Element i of a sequence or the value of an optional, by its declared type. */
static RLX_MUST_USE rlx_status_t* elem_value(const char* type, const Onnx__TensorProto* t, const Onnx__SequenceProto* s,
                                             const Onnx__OptionalProto* o, const char* path, int depth, rlx_vm_value_t* out) {
  const char* inner = NULL;
  switch (type_kind(type, &inner)) {
    case VT_TENSOR:
      if (!t) return rlx_status_create(RLX_PARSE_ERROR, "%s: a tensor element is missing", path);
      RLX_RETURN_IF_ERROR(tensor_from_proto(t, path, &out->tensor));
      out->kind = RLX_VM_INPUT_TENSOR;
      return NULL;
    case VT_SEQ:
      if (!s) return rlx_status_create(RLX_PARSE_ERROR, "%s: a sequence element is missing", path);
      return seq_value(s, inner, path, depth + 1, out);
    case VT_OPT:
      if (!o) return rlx_status_create(RLX_PARSE_ERROR, "%s: an optional element is missing", path);
      return opt_value(o, inner, path, depth + 1, out);
    case VT_BAD: break;
  }
  return rlx_status_create(RLX_UNSUPPORTED, "%s: values of type '%s' are not supported", path, type ? type : "?");
}

static RLX_MUST_USE rlx_status_t* seq_value(const Onnx__SequenceProto* m, const char* type, const char* path, int depth,
                                            rlx_vm_value_t* out) {
  const char* inner = NULL;
  vt_kind_t k = type_kind(type, &inner);
  if (depth > 16) return rlx_status_create(RLX_UNSUPPORTED, "%s: values nested too deeply", path);
  size_t n = k == VT_TENSOR ? m->n_tensor_values : k == VT_SEQ ? m->n_sequence_values : m->n_optional_values;
  size_t others = m->n_tensor_values + m->n_sequence_values + m->n_optional_values - n;
  if (k == VT_BAD || others)
    return rlx_status_create(RLX_PARSE_ERROR, "%s: a SequenceProto whose elements are not of the declared type %s",
                             path, type);
  if (n > 1000000) return rlx_status_create(RLX_UNSUPPORTED, "%s: %zu sequence elements", path, n);
  out->kind = RLX_VM_INPUT_TUPLE;
  out->fields = calloc(n > 0 ? n : 1, sizeof(rlx_vm_value_t));
  if (!out->fields) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s: sequence", path);
  for (size_t i = 0; i < n; i++) {
    out->n_fields = (int)i + 1;
    out->fields[i].kind = RLX_VM_INPUT_NONE;
    RLX_RETURN_IF_ERROR(elem_value(inner ? inner : type, k == VT_TENSOR ? m->tensor_values[i] : NULL,
                                   k == VT_SEQ ? m->sequence_values[i] : NULL,
                                   k == VT_OPT ? m->optional_values[i] : NULL, path, depth, &out->fields[i]));
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* opt_value(const Onnx__OptionalProto* m, const char* type, const char* path, int depth,
                                            rlx_vm_value_t* out) {
  if (depth > 16) return rlx_status_create(RLX_UNSUPPORTED, "%s: values nested too deeply", path);
  out->kind = RLX_VM_INPUT_NONE;
  if (!m->tensor_value && !m->sequence_value && !m->optional_value) return NULL; /* empty */
  return elem_value(type, m->tensor_value, m->sequence_value, m->optional_value, path, depth, out);
}

RLX_MUST_USE rlx_status_t* rlx_onnx_value_load_bytes(const void* data, size_t n, const char* type, const char* name,
                                                     rlx_vm_value_t* out) {
  memset(out, 0, sizeof(*out));
  out->kind = RLX_VM_INPUT_NONE;
  const char* inner = NULL;
  ProtobufCMessage* m = NULL;
  rlx_status_t* st = NULL;
  switch (type_kind(type, &inner)) {
    case VT_TENSOR: {
      Onnx__TensorProto* t = NULL;
      RLX_RETURN_IF_ERROR(rlx_onnx_tensor_proto_unpack(data, n, name, &t));
      st = tensor_from_proto(t, name, &out->tensor);
      if (!st) out->kind = RLX_VM_INPUT_TENSOR;
      rlx_onnx_tensor_proto_free(t);
      return st;
    }
    case VT_SEQ:
      RLX_RETURN_IF_ERROR(rlx_onnx_message_unpack(&onnx__sequence_proto__descriptor, data, n, name, &m));
      st = seq_value((const Onnx__SequenceProto*)m, inner, name, 0, out);
      break;
    case VT_OPT:
      RLX_RETURN_IF_ERROR(rlx_onnx_message_unpack(&onnx__optional_proto__descriptor, data, n, name, &m));
      st = opt_value((const Onnx__OptionalProto*)m, inner, name, 0, out);
      break;
    case VT_BAD:
      return rlx_status_create(RLX_UNSUPPORTED, "%s: values of type '%s' are not supported", name, type ? type : "?");
  }
  rlx_onnx_message_free(m);
  if (st) rlx_vm_value_clear(out);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_value_load(const char* path, const char* type, rlx_vm_value_t* out) {
  memset(out, 0, sizeof(*out));
  out->kind = RLX_VM_INPUT_NONE;
  char* bytes = NULL;
  size_t n = 0;
  RLX_RETURN_IF_ERROR(rlx_file_read(path, &bytes, &n));
  rlx_status_t* st = rlx_onnx_value_load_bytes(bytes, n, type, path, out);
  free(bytes);
  return st;
}

/* Messages for v of declared type `type`, allocated in ctx (tensor data not copied). */
static RLX_MUST_USE rlx_status_t* seq_proto(rlx_ctx_t* ctx, const char* path, const char* type, const rlx_vm_value_t* v, int depth,
                                            Onnx__SequenceProto** out);
static RLX_MUST_USE rlx_status_t* opt_proto(rlx_ctx_t* ctx, const char* path, const char* type, const rlx_vm_value_t* v, int depth,
                                            Onnx__OptionalProto** out);

static RLX_MUST_USE rlx_status_t* tensor_proto(rlx_ctx_t* ctx, const char* path, const rlx_vm_value_t* v, Onnx__TensorProto** out) {
  if (v->kind != RLX_VM_INPUT_TENSOR || !v->tensor)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: expected a tensor value", path);
  *out = RLX_NEW(ctx, Onnx__TensorProto);
  return tensor_proto_of(ctx, path, &v->tensor->dl, NULL, *out);
}

/* Stores v (of declared type `type`) as element slot of the containers' arrays: tensor, sequence or optional. */
static RLX_MUST_USE rlx_status_t* elem_proto(rlx_ctx_t* ctx, const char* path, const char* type, const rlx_vm_value_t* v, int depth,
                                             Onnx__TensorProto** t, Onnx__SequenceProto** s, Onnx__OptionalProto** o,
                                             int32_t* out_elem) {
  const char* inner = NULL;
  switch (type_kind(type, &inner)) {
    case VT_TENSOR: *out_elem = 1; return tensor_proto(ctx, path, v, t);
    case VT_SEQ: *out_elem = 3; return seq_proto(ctx, path, inner, v, depth + 1, s);
    case VT_OPT: *out_elem = 5; return opt_proto(ctx, path, inner, v, depth + 1, o);
    case VT_BAD: break;
  }
  return rlx_status_create(RLX_UNSUPPORTED, "%s: values of type '%s' are not supported", path, type ? type : "?");
}

static RLX_MUST_USE rlx_status_t* seq_proto(rlx_ctx_t* ctx, const char* path, const char* type, const rlx_vm_value_t* v, int depth,
                                            Onnx__SequenceProto** out) {
  if (depth > 16) return rlx_status_create(RLX_UNSUPPORTED, "%s: values nested too deeply", path);
  if (v->kind != RLX_VM_INPUT_TUPLE) return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: expected a sequence value", path);
  Onnx__SequenceProto* m = RLX_NEW(ctx, Onnx__SequenceProto);
  Onnx__SequenceProto init = ONNX__SEQUENCE_PROTO__INIT;
  *m = init;
  int n = v->n_fields;
  const char* inner = NULL;
  vt_kind_t k = type_kind(type, &inner);
  m->has_elem_type = 1;
  m->elem_type = k == VT_SEQ ? 3 : k == VT_OPT ? 5 : 1;
  Onnx__TensorProto** ts = RLX_NEW_ARRAY(ctx, Onnx__TensorProto*, n > 0 ? n : 1);
  Onnx__SequenceProto** ss = RLX_NEW_ARRAY(ctx, Onnx__SequenceProto*, n > 0 ? n : 1);
  Onnx__OptionalProto** os = RLX_NEW_ARRAY(ctx, Onnx__OptionalProto*, n > 0 ? n : 1);
  for (int i = 0; i < n; i++)
    RLX_RETURN_IF_ERROR(elem_proto(ctx, path, type, &v->fields[i], depth, &ts[i], &ss[i], &os[i], &m->elem_type));
  if (k == VT_TENSOR) m->n_tensor_values = (size_t)n, m->tensor_values = ts;
  else if (k == VT_SEQ) m->n_sequence_values = (size_t)n, m->sequence_values = ss;
  else m->n_optional_values = (size_t)n, m->optional_values = os;
  *out = m;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* opt_proto(rlx_ctx_t* ctx, const char* path, const char* type, const rlx_vm_value_t* v, int depth,
                                            Onnx__OptionalProto** out) {
  if (depth > 16) return rlx_status_create(RLX_UNSUPPORTED, "%s: values nested too deeply", path);
  Onnx__OptionalProto* m = RLX_NEW(ctx, Onnx__OptionalProto);
  Onnx__OptionalProto init = ONNX__OPTIONAL_PROTO__INIT;
  *m = init;
  m->has_elem_type = 1;
  m->elem_type = 0;
  if (v->kind != RLX_VM_INPUT_NONE)
    RLX_RETURN_IF_ERROR(elem_proto(ctx, path, type, v, depth, &m->tensor_value, &m->sequence_value, &m->optional_value,
                                   &m->elem_type));
  *out = m;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_value_save(const char* path, const char* type, const rlx_vm_value_t* v) {
  const char* inner = NULL;
  vt_kind_t k = type_kind(type, &inner);
  if (k == VT_TENSOR) {
    if (v->kind != RLX_VM_INPUT_TENSOR || !v->tensor)
      return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: expected a tensor value", path);
    return rlx_onnx_tensor_save(path, &v->tensor->dl, NULL);
  }
  if (k == VT_BAD) return rlx_status_create(RLX_UNSUPPORTED, "%s: values of type '%s' are not supported", path, type ? type : "?");
  rlx_ctx_t* ctx = rlx_ctx_new();
  if (!ctx) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s", path);
  Onnx__SequenceProto* s = NULL;
  Onnx__OptionalProto* o = NULL;
  rlx_status_t* st = k == VT_SEQ ? seq_proto(ctx, path, inner, v, 0, &s) : opt_proto(ctx, path, inner, v, 0, &o);
  if (!st) st = write_message(path, s ? &s->base : &o->base);
  rlx_ctx_free(ctx);
  return st;
}
