/* ONNX → Relax importer: the contract between the importer core (importer.c, reader.c) and
 * the per-op converters (ops_*.c).
 *
 * The importer reads a ModelProto (protobuf-c code generated at build time from the system's
 * onnx.proto), turns initializers into Relax constants and graph inputs into function params
 * (dim_param dims become symbolic int64 vars shared by name), then converts nodes in order
 * through a table of converters keyed by (op_type, since_version) for the default domain:
 * for a model importing opset V, the entry with the largest since_version <= V is used, so
 * each op's semantics follow the model's opset. Before anything is converted, every node
 * whose op has no converter for the model's opset is collected and reported at once.
 *
 * Converters see a plain view of the node and the Relax expressions of its inputs, and build
 * Relax through the BlockBuilder and the op registry (rlx_relax_op_call, src/relax/op.h) or
 * emit_te for ops without a Relax op. rlx_onnx_emit folds a call whose inputs are all
 * constants into a Constant right away (legalize + TIR interpreter), so shape-computing
 * subgraphs (Shape → Gather → Concat → Reshape) become static when input shapes are static;
 * converters that need a value at import time (Reshape's shape, Slice's starts, axes inputs)
 * read it with rlx_onnx_const and report an error naming the node when it is not constant.
 */
#ifndef RLX_FRONTEND_ONNX_IMPORT_H
#define RLX_FRONTEND_ONNX_IMPORT_H

#include "../../relax/op.h"
#include "../../relax/relax.h"

typedef struct rlx_onnx_importer rlx_onnx_importer_t;

/* A node as converters see it. Omitted optional inputs are "" in inputs[] and NULL in the
 * converter's inputs array. */
typedef struct {
  const char* name; /* "" when the node has none */
  const char* op_type;
  const char* domain; /* "" = ai.onnx */
  int n_inputs;
  const char* const* inputs;
  int n_outputs;
  const char* const* outputs;
  const void* proto; /* the Onnx__NodeProto, for the attribute helpers */
} rlx_onnx_node_t;

/* Converts one node: inputs[i] is the Relax expression of node->inputs[i] (NULL when
 * omitted); fill outputs[0..node->n_outputs) (an output may be left NULL only when its name
 * is "" or unused, e.g. Dropout's mask). */
typedef rlx_status_t* (*rlx_onnx_convert_t)(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                            rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);

typedef struct {
  const char* op_type;
  int since_version;
  rlx_onnx_convert_t convert;
} rlx_onnx_converter_t;

/* Converter families, each a table ending with {NULL, 0, NULL}; the list of families is
 * written once in importer.c. */
extern const rlx_onnx_converter_t rlx_onnx_ops_core[];   /* importer.c owner: Constant, Identity, ... */
extern const rlx_onnx_converter_t rlx_onnx_ops_math[];   /* elementwise, activations, reductions */
extern const rlx_onnx_converter_t rlx_onnx_ops_tensor[]; /* shape and index ops */
extern const rlx_onnx_converter_t rlx_onnx_ops_nn[];     /* conv, pool, gemm, matmul, norms */
extern const rlx_onnx_converter_t rlx_onnx_ops_loss[];   /* NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss */
/* ai.onnx.preview.training optimizers; entries of other domains are keyed "DOMAIN.Op" with
 * the domain's opset as since_version. */
extern const rlx_onnx_converter_t rlx_onnx_ops_training[];
extern const rlx_onnx_converter_t rlx_onnx_ops_sequence[]; /* Sequence*, SplitToSequence, ConcatFromSequence */
extern const rlx_onnx_converter_t rlx_onnx_ops_rnn[];      /* RNN, GRU, LSTM */
extern const rlx_onnx_converter_t rlx_onnx_ops_text[];     /* TfIdfVectorizer */
extern const rlx_onnx_converter_t rlx_onnx_ops_signal[];   /* DFT, STFT, Det */
extern const rlx_onnx_converter_t rlx_onnx_ops_random[];   /* RandomUniform/Normal(Like), Bernoulli */
/* Dropout-12 in training mode (training_mode input 2 given, not a constant false): random
 * drops with the seeded stream of ops_random.c; outputs[1], when named, is the mask. */
RLX_MUST_USE rlx_status_t* rlx_onnx_dropout_training(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                        rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);
/* The converter for op_type (default domain) at the model's opset: the entry with the largest
 * since_version <= opset over all families (earlier families win a tie); NULL when none. A
 * converter that also serves later revisions of its op reads rlx_onnx_opset (e.g. Split-18's
 * num_outputs in the Split-13 converter). */
const rlx_onnx_converter_t* rlx_onnx_find_converter(const char* op_type, int opset);
/* The family tables in lookup order (core, math, tensor, nn, loss, training, sequence, rnn, text, signal, random), for listings and tests. */
void rlx_onnx_converter_families(const rlx_onnx_converter_t* const** out, int* out_n);

/* ---- importer services for converters ---- */
rlx_ctx_t* rlx_onnx_ctx(rlx_onnx_importer_t* im);
rlx_bb_t* rlx_onnx_bb(rlx_onnx_importer_t* im);
/* The model's opset for the default domain. */
int rlx_onnx_opset(const rlx_onnx_importer_t* im);
/* Normalizes e, folds it into a Constant when all its tensor inputs are constants (and it is
 * small enough), else binds it to a new var; *out gets the var or the constant. */
RLX_MUST_USE rlx_status_t* rlx_onnx_emit(rlx_onnx_importer_t* im, rlx_relax_expr_t* e, rlx_relax_expr_t** out);
/* emit_te for ops without a Relax op (see rlx_bb_emit_te); folded like rlx_onnx_emit. */
RLX_MUST_USE rlx_status_t* rlx_onnx_emit_te(rlx_onnx_importer_t* im, rlx_bb_te_fn_t f, void* user, int n_args,
                               rlx_relax_expr_t* const* args, const char* name, rlx_relax_expr_t** out);

/* A host view of a constant tensor (data in the arena, C order). */
typedef struct {
  rlx_dtype_t dtype;
  int ndim;
  const int64_t* shape;
  const void* data;
} rlx_onnx_tensor_t;
/* True when e is (or is bound to) a Constant; fills *out. */
bool rlx_onnx_const(rlx_onnx_importer_t* im, rlx_relax_expr_t* e, rlx_onnx_tensor_t* out);
/* Reads a constant integer tensor (any int dtype) as int64 values; error naming the node
 * and the input when it is not a constant ("Reshape 'r1': input 1 (shape) must be a
 * constant"). *out_vals is arena memory. */
RLX_MUST_USE rlx_status_t* rlx_onnx_const_ints(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, int input,
                                  rlx_relax_expr_t* e, int64_t** out_vals, int* out_n);
/* A Relax constant from host data (copied). */
rlx_relax_expr_t* rlx_onnx_make_const(rlx_onnx_importer_t* im, rlx_dtype_t dtype, int ndim, const int64_t* shape,
                                      const void* data);

/* ---- run-time values (dyn.c) ---- */
/* Value j of a list computed at run time, as a PrimExpr over ins: TE placeholders of the
 * args given to rlx_onnx_runtime_dims (loads of integer inputs: rlx_onnx_load_int; data
 * inputs' dims: ins[i]->buffer->shape). */
typedef rlx_expr_t* (*rlx_onnx_value_fn_t)(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, void* user);
/* k values f(ins, 0..k-1) computed at run time (one small kernel over args), returned as k
 * symbolic vars bound by R.tensor_to_shape + R.match_cast (named after the node's first
 * output); constants when every arg is a constant. Each value must be a dim (>= 0): the VM
 * reports a negative one. */
RLX_MUST_USE rlx_status_t* rlx_onnx_runtime_dims(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_onnx_value_fn_t f,
                                    void* user, int n_args, rlx_relax_expr_t* const* args, int k, rlx_expr_t*** out);
/* A fresh int64 symbolic var named after the node's first output and suffix ("y_count"). */
rlx_expr_t* rlx_onnx_fresh_dim(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, const char* suffix);
/* Emits a run-time check that the int64 PrimExpr actual equals expected (a match_cast of a
 * PrimValue; nothing when the prover shows them equal). */
RLX_MUST_USE rlx_status_t* rlx_onnx_runtime_check(rlx_onnx_importer_t* im, rlx_expr_t* actual, rlx_expr_t* expected);
/* ReduceSum over axes given at run time (input 1, a 1-d tensor of static length), with
 * keepdims or not (ops_tensor_dyn.c). */
RLX_MUST_USE rlx_status_t* rlx_onnx_reduce_sum_runtime(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                          rlx_relax_expr_t* const* inputs, bool keepdims, rlx_relax_expr_t** out);
/* Element j of an integer placeholder (0-d: its value) as int64. */
rlx_expr_t* rlx_onnx_load_int(rlx_ctx_t* ctx, rlx_te_tensor_t* t, int64_t j);

/* ---- sequences and optionals ----
 * A sequence whose length is known at import is a Relax Tuple of its elements; one whose
 * length is decided at run time (a graph input, a loop's accumulator, a run-time insert or
 * erase) is a VM list: a value of struct info R.Object that is a VM tuple at run time. An
 * optional is its value, or the null value when empty (R.Object when import cannot tell).
 * R.Object says nothing of the elements, so the importer keeps the ONNX type of such values
 * by name: */
typedef enum { RLX_ONNX_T_UNKNOWN, RLX_ONNX_T_TENSOR, RLX_ONNX_T_SEQ, RLX_ONNX_T_OPT } rlx_onnx_type_kind_t;
typedef struct rlx_onnx_type {
  rlx_onnx_type_kind_t kind;
  rlx_dtype_t dtype; /* TENSOR: void when unknown */
  int ndim;          /* TENSOR: -1 when unknown, RLX_ONNX_NDIM_NONE for an empty sequence's elements */
  const struct rlx_onnx_type* elem; /* SEQ, OPT: the element's type (UNKNOWN for an empty sequence) */
} rlx_onnx_type_t;
/* The rank of the elements of a sequence that has none yet (SequenceEmpty: only the dtype is
 * given): unknown like -1, but a join with a known rank gives that rank, so a Loop that
 * starts from an empty sequence and inserts rank-k tensors yields a list of rank-k tensors. */
enum { RLX_ONNX_NDIM_NONE = -2 };
/* The type of value `name` bound to e: a tensor's from its struct info, a tuple's from its
 * elements (joined), else the type recorded for the name; an UNKNOWN type when none is. */
const rlx_onnx_type_t* rlx_onnx_value_type(rlx_onnx_importer_t* im, const char* name, const rlx_relax_expr_t* e);
/* Records the type of value `name` (kept for the whole import, subgraphs included). */
void rlx_onnx_set_value_type(rlx_onnx_importer_t* im, const char* name, const rlx_onnx_type_t* t);
/* The narrowest type covering a and b (ranks or dtypes that differ become unknown). */
const rlx_onnx_type_t* rlx_onnx_type_join(rlx_ctx_t* ctx, const rlx_onnx_type_t* a, const rlx_onnx_type_t* b);
/* Constructors (arena). */
const rlx_onnx_type_t* rlx_onnx_type_tensor(rlx_ctx_t* ctx, rlx_dtype_t dtype, int ndim);
const rlx_onnx_type_t* rlx_onnx_type_wrap(rlx_ctx_t* ctx, rlx_onnx_type_kind_t kind, const rlx_onnx_type_t* elem);
/* The struct info of a value of type t: Tensor(ndim, dtype) with unknown dims, or R.Object. */
rlx_sinfo_t* rlx_onnx_type_sinfo(rlx_ctx_t* ctx, const rlx_onnx_type_t* t);
/* True for a string tensor's type: kind TENSOR with dtype handle. String tensors are
 * R.Object values (the runtime's string tensors, runtime.h) handled by VM builtins only. */
bool rlx_onnx_type_is_string(const rlx_onnx_type_t* t);
/* True when e is a run-time list or optional (struct info R.Object). */
bool rlx_onnx_is_object(const rlx_relax_expr_t* e);
/* e itself when it is not a tensor of unknown dims, else e match_cast to fresh dims named
 * after the node's output (what follows is symbolic again). */
RLX_MUST_USE rlx_status_t* rlx_onnx_with_dims(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* e,
                                 rlx_relax_expr_t** out);
/* A TypeProto attribute (Optional's `type`); an error naming the node when absent. */
RLX_MUST_USE rlx_status_t* rlx_onnx_attr_type(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, const char* key,
                                 const rlx_onnx_type_t** out);
/* Emits R.call_pure_packed(builtin, args) with result struct info s; *out: its var. */
RLX_MUST_USE rlx_status_t* rlx_onnx_call_builtin(rlx_onnx_importer_t* im, const char* builtin, int n_args,
                                    rlx_relax_expr_t* const* args, rlx_sinfo_t* s, rlx_relax_expr_t** out);

/* ---- attributes (defaults when absent) ---- */
bool rlx_onnx_has_attr(const rlx_onnx_node_t* node, const char* key);
int64_t rlx_onnx_attr_int(const rlx_onnx_node_t* node, const char* key, int64_t dflt);
double rlx_onnx_attr_float(const rlx_onnx_node_t* node, const char* key, double dflt);
const char* rlx_onnx_attr_string(const rlx_onnx_node_t* node, const char* key, const char* dflt);
/* Count of the ints attribute (-1 when absent); *out points into the proto. */
int rlx_onnx_attr_ints(const rlx_onnx_node_t* node, const char* key, const int64_t** out);
int rlx_onnx_attr_floats(const rlx_onnx_node_t* node, const char* key, const float** out);
/* Count of the strings attribute (-1 when absent) and its string i (NULL out of range). */
int rlx_onnx_attr_strings_count(const rlx_onnx_node_t* node, const char* key);
const char* rlx_onnx_attr_string_at(const rlx_onnx_node_t* node, const char* key, int i);
/* A tensor attribute (Constant's value, ConstantOfShape's value) as a Relax constant. */
RLX_MUST_USE rlx_status_t* rlx_onnx_attr_tensor(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, const char* key,
                                   rlx_relax_expr_t** out);

/* An error naming the node: "node 'conv1' (Conv): <message>". */
RLX_MUST_USE rlx_status_t* rlx_onnx_error(const rlx_onnx_node_t* node, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- entry points (importer.c, tensor_pb.c): the public API of include/rlx/onnx.h ---- */
#include "rlx/onnx.h"

#endif
