/* Private to the Relax nn op files (op_nn.c, op_nn_conv.c): argument and attr helpers,
 * error formatting, legalization through TE, and the op definitions op_nn_conv.c provides to
 * the table in op_nn.c. */
#ifndef RLX_RELAX_OP_NN_INTERNAL_H
#define RLX_RELAX_OP_NN_INTERNAL_H

#include "../topi/nn.h"
#include "op.h"

/* "<op>: <message>" as an invalid-argument status. */
RLX_MUST_USE rlx_status_t* onn_fail(const char* op, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/* The called op's name ("relax.nn.conv2d"). */
const char* onn_op_name(const rlx_relax_call_t* c);
/* "(n, 3, 224, 224)" / "(ndim=4)" / "(?)", one dim, a dtype: arena strings for messages. */
const char* onn_shape_str(rlx_ctx_t* ctx, const rlx_sinfo_tensor_t* t);
const char* onn_dim_str(rlx_ctx_t* ctx, rlx_expr_t* e);
const char* onn_dt_str(rlx_ctx_t* ctx, rlx_dtype_t t);
/* Error unless lo <= number of args <= hi. */
RLX_MUST_USE rlx_status_t* onn_check_arity(const rlx_relax_call_t* c, int lo, int hi);
/* Argument i as Tensor struct info (error naming the op and the index otherwise). */
RLX_MUST_USE rlx_status_t* onn_tensor_arg(rlx_ctx_t* ctx, const rlx_relax_call_t* c, int i, rlx_sinfo_tensor_t** out);
/* True when a != b is provable (constants that differ, or the prover says so). */
bool onn_provably_ne(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);
bool onn_is_one(const rlx_expr_t* e);
/* Common dtype of two operands (void when unknown); error when both known and different. */
RLX_MUST_USE rlx_status_t* onn_same_dtype(rlx_ctx_t* ctx, const char* op, rlx_dtype_t a, rlx_dtype_t b, rlx_dtype_t* out);
/* Attr getters; an absent attr (or one of another kind) gives def. */
int64_t onn_attr_int(const rlx_relax_call_t* c, const char* key, int64_t def);
double onn_attr_float(const rlx_relax_call_t* c, const char* key, double def);
bool onn_attr_bool(const rlx_relax_call_t* c, const char* key, bool def);
const char* onn_attr_str(const rlx_relax_call_t* c, const char* key, const char* def);
/* out_dtype: a dtype, or a string ("" / "void" = void); absent = void. */
RLX_MUST_USE rlx_status_t* onn_attr_out_dtype(const rlx_relax_call_t* c, rlx_dtype_t* out);
/* An ints attr (or a single int) expanded to want values: 1 value → all; want / 2 values when
 * want is even → those values twice (symmetric padding: [h, w] → [h, w, h, w]); absent = def
 * everywhere; any other count is an error naming the op and the key. */
RLX_MUST_USE rlx_status_t* onn_attr_ints(const rlx_relax_call_t* c, const char* key, int want, int64_t def, int64_t* out);
/* R.Tensor of the given rank, shape (NULL = unknown) and dtype. */
rlx_sinfo_t* onn_tensor_like(rlx_ctx_t* ctx, int ndim, rlx_expr_t** shape, rlx_dtype_t dt);

/* ---- legalization through TE: fn builds the TE output from the inputs and the call's attrs. */
typedef rlx_status_t* (*onn_te_fn_t)(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, const rlx_relax_call_t* c,
                                     rlx_te_tensor_t** out);
typedef struct {
  const rlx_relax_call_t* call;
  onn_te_fn_t fn;
} onn_te_user_t;

/* R.call_tir of the TE function fn over args; the call itself when an operand's shape or
 * dtype is unknown (as TVM, which leaves such calls alone). Errors of fn are annotated with
 * the op's name. */
RLX_MUST_USE rlx_status_t* onn_legalize_te(rlx_bb_t* bb, const rlx_relax_call_t* c, onn_te_fn_t fn, int n_args,
                                           rlx_relax_expr_t* const* args, const char* name, rlx_relax_expr_t** out);

/* op_nn_conv.c: conv1d/2d/3d, conv1d/2d/3d_transpose, max/avg_pool1d/2d/3d and
 * adaptive_avg_pool1d/2d/3d (one infer and one legalize function per group; the rank and the
 * kind come from the op's name). */
RLX_MUST_USE rlx_status_t* onn_infer_conv(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out);
RLX_MUST_USE rlx_status_t* onn_legalize_conv(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out);
RLX_MUST_USE rlx_status_t* onn_infer_conv_transpose(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out);
RLX_MUST_USE rlx_status_t* onn_legalize_conv_transpose(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out);
RLX_MUST_USE rlx_status_t* onn_infer_pool(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out);
RLX_MUST_USE rlx_status_t* onn_legalize_pool(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out);
RLX_MUST_USE rlx_status_t* onn_infer_adaptive_pool(rlx_ctx_t* ctx, const rlx_relax_call_t* c, rlx_sinfo_t** out);
RLX_MUST_USE rlx_status_t* onn_legalize_adaptive_pool(rlx_bb_t* bb, const rlx_relax_call_t* c, rlx_relax_expr_t** out);

#endif
