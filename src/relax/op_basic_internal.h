/* Shared helpers of the "basic" op family (op_basic.c: table, helpers, elementwise and
 * broadcast ops; op_basic_reduce.c: reductions; op_basic_shape.c: shape ops;
 * op_basic_index.c: tile, flip, cumsum, gather_elements; op_basic_dyn.c: shape_of,
 * tensor_to_shape, shape_to_tensor).
 * Private to those files. */
#ifndef RLX_RELAX_OP_BASIC_INTERNAL_H
#define RLX_RELAX_OP_BASIC_INTERNAL_H

#include "../topi/basic.h"
#include "op.h"

/* The op's name ("relax.add"). */
const char* ob_name(const rlx_relax_call_t* call);
/* An error prefixed with the op's name: "relax.add: <message>". */
RLX_MUST_USE rlx_status_t* ob_error(const rlx_relax_call_t* call, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/* The Tensor struct info of args[i], or an error naming the op and what was found. */
RLX_MUST_USE rlx_status_t* ob_tensor_arg(rlx_ctx_t* ctx, const rlx_relax_call_t* call, int i, rlx_sinfo_tensor_t** out);
/* Checks the number of args. */
RLX_MUST_USE rlx_status_t* ob_nargs(const rlx_relax_call_t* call, int lo, int hi);
/* "(2, n, 4)" as TVMScript writes shapes; "(ndim=-1)" style for unknown shapes. */
const char* ob_shape_str(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape);
const char* ob_dtype_str(rlx_ctx_t* ctx, rlx_dtype_t t);
/* Simplified copy of a shape. */
rlx_expr_t** ob_simplify_shape(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape);

/* Checks call's attrs against the attributes of the op's registry signature (rlx_op_def_t
 * params, "x, axis:ints, keepdims:bool"; kinds: int, ints (an int too), bool, float (an int
 * too), str, dtype (a string too)): an unknown key or a value of another kind is an error
 * naming the op and the attribute. */
RLX_MUST_USE rlx_status_t* ob_check_attrs(const rlx_relax_call_t* call);
/* Attributes (missing → false / default). INT attrs also read as a one-element INTS. */
bool ob_attr_int(const rlx_relax_call_t* call, const char* key, int64_t* out);
bool ob_attr_ints(rlx_ctx_t* ctx, const rlx_relax_call_t* call, const char* key, int* out_n, int64_t** out_v);
bool ob_attr_bool(const rlx_relax_call_t* call, const char* key, bool dflt);
bool ob_attr_float(const rlx_relax_call_t* call, const char* key, double* out);
const char* ob_attr_str(const rlx_relax_call_t* call, const char* key, const char* dflt);
bool ob_attr_dtype(const rlx_relax_call_t* call, const char* key, rlx_dtype_t* out);

/* The values of a shape argument (a ShapeExpr or anything with Shape struct info); *out_v
 * NULL when the values are unknown; *out_n -1 when the rank is unknown. */
RLX_MUST_USE rlx_status_t* ob_shape_arg(const rlx_relax_call_t* call, int i, int* out_n, rlx_expr_t*** out_v);

/* Every tensor arg (and tensor tuple fields) has a known shape and dtype, else an error
 * "relax.x: legalization needs known shapes and dtypes". */
RLX_MUST_USE rlx_status_t* ob_need_known(rlx_ctx_t* ctx, const rlx_relax_call_t* call);
/* Maps Relax-side shape exprs (in the caller's vars) into a TE callback's vars: pairs the
 * vars of the Relax struct-info shapes of the args with those of the placeholders the
 * builder made from them; vars not found stay. */
rlx_expr_t** ob_to_te_shape(rlx_ctx_t* ctx, int n_args, rlx_relax_expr_t* const* args, rlx_te_tensor_t* const* ins,
                            int ndim, rlx_expr_t* const* shape);

/* Infer / legalize entry points, listed in op_basic.c's table. */
RLX_MUST_USE rlx_status_t* ob_infer_reduce(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out);
RLX_MUST_USE rlx_status_t* ob_legalize_reduce(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out);

/* clang-format off */
#define OB_SHAPE_OPS(X)                                                                         \
  X(permute_dims) X(reshape) X(flatten) X(expand_dims) X(squeeze) X(concat) X(split)           \
  X(strided_slice) X(take) X(pad) X(broadcast_to) X(full) X(tile) X(flip) X(cumsum)            \
  X(gather_elements) X(arange) X(trilu) X(one_hot) X(scatter_elements) X(shape_of)            \
  X(tensor_to_shape) X(shape_to_tensor)
/* clang-format on */
#define X(n)                                                                                   \
  RLX_MUST_USE rlx_status_t* ob_infer_##n(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out); \
  RLX_MUST_USE rlx_status_t* ob_legalize_##n(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out);
OB_SHAPE_OPS(X)
#undef X

#endif
