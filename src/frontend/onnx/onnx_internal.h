/* Private to the ONNX frontend's core (reader.c, importer.c, tensor_pb.c, ops_core.c): the
 * protobuf-c view of a model, dtype mapping, TensorProto decoding and the importer state;
 * control.c (If, Loop, Scan) uses the import's pieces declared at the end.
 * Converters in ops_*.c use only onnx_import.h.
 */
#ifndef RLX_FRONTEND_ONNX_INTERNAL_H
#define RLX_FRONTEND_ONNX_INTERNAL_H

#include "onnx.pb-c.h"
#include "onnx_import.h"

enum { RLX_ONNX_MAX_DIMS = 32 };

/* ---- string-keyed map (heap table, keys and values owned by the caller) ---- */
typedef struct {
  const char* key;
  void* val;
} rlx_onnx_strmap_slot_t;
typedef struct {
  rlx_onnx_strmap_slot_t* slots;
  int cap; /* power of two */
  int len;
} rlx_onnx_strmap_t;
/* Sets key (not copied: it must outlive the map) to val. */
void rlx_onnx_strmap_put(rlx_onnx_strmap_t* m, const char* key, void* val);
/* True when key is present; *out gets its value (out may be NULL). */
bool rlx_onnx_strmap_get(const rlx_onnx_strmap_t* m, const char* key, void** out);
void rlx_onnx_strmap_free(rlx_onnx_strmap_t* m);

/* ---- reading (reader.c) ---- */
/* Unpacks a serialized ModelProto. Every string and bytes field of the result is
 * NUL-terminated (the allocator adds a zero byte). Errors name `name`: malformed or
 * truncated data, a model without a graph. Free with rlx_onnx_model_free. */
RLX_MUST_USE rlx_status_t* rlx_onnx_model_unpack(const void* data, size_t n, const char* name, Onnx__ModelProto** out);
void rlx_onnx_model_free(Onnx__ModelProto* m);
/* As above for one TensorProto (a .pb file of the test data). Free with rlx_onnx_tensor_proto_free. */
RLX_MUST_USE rlx_status_t* rlx_onnx_tensor_proto_unpack(const void* data, size_t n, const char* name, Onnx__TensorProto** out);
void rlx_onnx_tensor_proto_free(Onnx__TensorProto* t);
/* As above for any message of descriptor d (SequenceProto, OptionalProto of the test data);
 * free with rlx_onnx_message_free. */
RLX_MUST_USE rlx_status_t* rlx_onnx_message_unpack(const ProtobufCMessageDescriptor* d, const void* data, size_t n,
                                                   const char* name, ProtobufCMessage** out);
void rlx_onnx_message_free(ProtobufCMessage* m);
/* The opset the model imports for domain ("" and "ai.onnx" are the default domain); -1 when
 * the model does not import it. */
int rlx_onnx_model_opset(const Onnx__ModelProto* m, const char* domain);

/* ONNX TensorProto.DataType → rlx dtype; false for types rlx does not support (string,
 * complex). */
bool rlx_onnx_dtype_from_elem(int32_t elem_type, rlx_dtype_t* out);
/* rlx dtype → ONNX DataType; 0 (UNDEFINED) when ONNX has none. */
int32_t rlx_onnx_elem_from_dtype(rlx_dtype_t t);
/* "FLOAT", "INT64", ... ("type 42" for unknown codes, in buf). */
const char* rlx_onnx_elem_name(int32_t elem_type, char buf[32]);

/* A decoded tensor: dense C-order data in a heap buffer (free(data)). */
typedef struct {
  rlx_dtype_t dtype;
  int ndim;
  int64_t shape[RLX_ONNX_MAX_DIMS];
  void* data;
  size_t nbytes;
} rlx_onnx_decoded_t;
/* Decodes t from raw_data or its typed field (float_data, int32_data, int64_data,
 * double_data, uint64_data). Errors (naming `what`, e.g. "initializer 'w'"): unsupported
 * dtype, external data, a value count that does not match the shape, negative dims. */
RLX_MUST_USE rlx_status_t* rlx_onnx_tensor_decode(const Onnx__TensorProto* t, const char* what, rlx_onnx_decoded_t* out);

/* A valid identifier for the printer made from an ONNX name ("input.1" → input_1, "0" → _0);
 * arena string. */
const char* rlx_onnx_ident(rlx_ctx_t* ctx, const char* s);

/* ---- the importer state (importer.c) ---- */
struct rlx_onnx_importer {
  rlx_ctx_t* ctx;
  rlx_bb_t* bb;
  const char* file; /* for messages */
  const Onnx__ModelProto* model;
  int opset;
  rlx_onnx_strmap_t values; /* ONNX value name → rlx_relax_expr_t* */
  rlx_onnx_strmap_t dims;   /* dim_param → rlx_var_t* (shared by name) */
  int n_fresh_dims;
  const rlx_onnx_import_options_t* opts; /* NULL = none */
  rlx_onnx_strmap_t* types; /* value name → rlx_onnx_type_t* of lists and optionals (shared by subgraphs) */
  double* fold_work_left;   /* interpreter statements import-time folding may still run (shared by subgraphs) */
};

/* The type a TypeProto declares (values.c); errors name `what`. */
RLX_MUST_USE rlx_status_t* rlx_onnx_type_from_proto(rlx_onnx_importer_t* im, const Onnx__TypeProto* tp, const char* what, int depth,
                                                    const rlx_onnx_type_t** out);
/* "tensor", "seq(T)", "opt(T)" (the texts rlx_onnx_value_load takes). */
const char* rlx_onnx_type_text(rlx_ctx_t* ctx, const rlx_onnx_type_t* t);

/* Struct info of a graph input/output: Tensor(shape, dtype); dim_param → a var shared by
 * name, dim_value → a constant, a missing dim → a fresh var. Errors name `what`. */
RLX_MUST_USE rlx_status_t* rlx_onnx_value_info_sinfo(rlx_onnx_importer_t* im, const Onnx__ValueInfoProto* vi, const char* what,
                                                     rlx_sinfo_t** out);

/* The model's main graph (Gradient differentiates its nodes). */
static inline const Onnx__GraphProto* rlx_onnx_model_graph(const rlx_onnx_importer_t* im) { return im->model->graph; }

/* ---- pieces of the import that control flow (control.c) reuses ---- */
/* Every node of g without a converter for the model's opset, reported at once. */
RLX_MUST_USE rlx_status_t* rlx_onnx_check_supported(rlx_onnx_importer_t* im, const Onnx__GraphProto* g);
/* g's initializers as constants in im->values. */
RLX_MUST_USE rlx_status_t* rlx_onnx_add_initializers(rlx_onnx_importer_t* im, const Onnx__GraphProto* g);
/* Converts node p, binding its outputs' names in im->values. */
RLX_MUST_USE rlx_status_t* rlx_onnx_convert_node(rlx_onnx_importer_t* im, const Onnx__NodeProto* p);
/* The value named by graph output vi, checked against its declared element type when it is a
 * tensor; any_kind: tuples (sequences) are accepted too, else only tensors. */
RLX_MUST_USE rlx_status_t* rlx_onnx_graph_output(rlx_onnx_importer_t* im, const Onnx__ValueInfoProto* vi, bool any_kind,
                                                 rlx_relax_expr_t** out);
/* Ends the open function with result (bound to a var first unless it is one; closes the
 * dataflow block when `dataflow`). */
RLX_MUST_USE rlx_status_t* rlx_onnx_func_result(rlx_onnx_importer_t* im, rlx_relax_expr_t* result, bool dataflow);
/* True when a node of g is If, Loop or Scan (the function holding it has no dataflow block). */
bool rlx_onnx_has_control_flow(const Onnx__GraphProto* g);
/* The expression bound to ONNX value `name`; false when it is undefined or its producer
 * does not compute it. */
bool rlx_onnx_value_get(rlx_onnx_importer_t* im, const char* name, rlx_relax_expr_t** out);
/* A graph attribute (If's branches, Loop's and Scan's body); NULL when absent. */
const Onnx__GraphProto* rlx_onnx_attr_graph(const rlx_onnx_node_t* node, const char* key);

/* ONNX If, Loop, Scan (control.c; listed in the core family's table). */
RLX_MUST_USE rlx_status_t* rlx_onnx_convert_if(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                               rlx_relax_expr_t** outputs);
RLX_MUST_USE rlx_status_t* rlx_onnx_convert_loop(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                 rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);
/* SequenceMap: the body applied to each element, as vm.builtin.loop over the first input's length. */
RLX_MUST_USE rlx_status_t* rlx_onnx_convert_sequence_map(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                         rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);
RLX_MUST_USE rlx_status_t* rlx_onnx_convert_scan(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                 rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);

#endif
