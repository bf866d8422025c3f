/* topi, basic family: elementwise, broadcast, reductions and shape/index ops, written in TE
 * (as TVM's topi). Files: elemwise.c (unary ops, cast, clip, full), broadcast.c (broadcast
 * shapes, binary ops, where, broadcast_to), reduce.c (sum/mean/max/min/prod, argmax/argmin,
 * variance/std), transform.c (transpose, reshape, expand_dims, squeeze, concat,
 * strided_slice, take, pad, split), transform_index.c (tile, flip, cumsum,
 * gather_elements, arange, tril/triu, one_hot, scatter_elements).
 *
 * Conventions
 * - Every function builds new TE compute tensors from TE tensors; all nodes live in ctx.
 * - A function that can fail returns a status (NULL = success) and stores its result in *out,
 *   its last parameter, only on success (topi.h). On bad input (ranks, axes, dtypes,
 *   incompatible shapes) it returns an error naming the op ("topi.add: cannot broadcast (2, 3)
 *   and (4,)") and never crashes.
 * - Output tensors are named as TVM's topi names them (T_add, T_transpose, compute ...) and
 *   tagged "elemwise", "broadcast", "injective" or "comm_reduce".
 * - Axes are plain ints; negative axes count from the end. Shape dims are PrimExprs (int64
 *   for shapes coming from Relax); symbolic dims are compared with the arithmetic prover.
 */
#ifndef RLX_TOPI_BASIC_H
#define RLX_TOPI_BASIC_H

#include "topi.h"

/* ------------------------------------------------------------------ elemwise.c */
/* Unary ops: the list is topi/unary.def (shared with the Relax ops that legalize to them). */
typedef enum {
#define RLX_TOPI_UNARY(E, N, F, RN, RP) RLX_TOPI_##E,
#include "unary.def"
      RLX_TOPI_UNARY_COUNT
} rlx_topi_unary_t;

/* The op's name ("relu", "exp" ...) and whether it accepts only float inputs. */
const char* rlx_topi_unary_name(rlx_topi_unary_t op);
bool rlx_topi_unary_float_only(rlx_topi_unary_t op);
/* op(x) elementwise. Output dtype: x's, bool for logical_not, isnan, isinf and isfinite. gelu
 * is the erf form 0.5*x*(1+erf(x/sqrt(2))), gelu_tanh the tanh approximation; round rounds
 * half to even (the nearbyint intrinsic, as numpy and TVM's LLVM lowering); floor, ceil,
 * round and trunc of ints are the identity. Error: a float-only op on a non-float x. */
RLX_MUST_USE rlx_status_t* rlx_topi_unary(rlx_ctx_t* ctx, rlx_topi_unary_t op, rlx_te_tensor_t* x,
                                          rlx_te_tensor_t** out);
/* x cast to dtype elementwise (T_cast; TVM's topi.cast). */
RLX_MUST_USE rlx_status_t* rlx_topi_cast(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_dtype_t dtype, rlx_te_tensor_t** out);
/* ONNX's QuantizeLinear: saturate(round_half_even(x / scale) + zero_point) as out_dtype
 * (uint8 or int8), computed in float32; DequantizeLinear: (x - zero_point) * scale as
 * float32. scale and zp (NULL: 0) are 0-d or 1-d tensors; 1-d ones of more than one
 * element run along x's axis (negative: from the end). Errors: another out_dtype, a 2-d
 * scale, an axis out of range. */
RLX_MUST_USE rlx_status_t* rlx_topi_quantize(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* scale,
                                             rlx_te_tensor_t* zp, int axis, rlx_dtype_t out_dtype,
                                             rlx_te_tensor_t** out);
RLX_MUST_USE rlx_status_t* rlx_topi_dequantize(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* scale,
                                               rlx_te_tensor_t* zp, int axis, rlx_te_tensor_t** out);
/* min(max(x, lo), hi) with lo/hi converted to x's dtype (compute, tag elemwise). */
RLX_MUST_USE rlx_status_t* rlx_topi_clip(rlx_ctx_t* ctx, rlx_te_tensor_t* x, double lo, double hi,
                                         rlx_te_tensor_t** out);
/* A tensor of the given shape filled with value (T_full); value NULL = fill from the 0-d
 * tensor fill (its value cast to dtype). */
RLX_MUST_USE rlx_status_t* rlx_topi_full(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_dtype_t dtype,
                                         const double* value, rlx_te_tensor_t* fill, rlx_te_tensor_t** out);

/* ------------------------------------------------------------------ broadcast.c */
/* A shape dim simplified knowing that every integer var in it (a shape var) is >= 0. */
rlx_expr_t* rlx_topi_simplify_dim(rlx_ctx_t* ctx, rlx_expr_t* e);
/* Numpy broadcasting of one pair of dims: 1 broadcasts, equal constants or provably equal
 * expressions give that dim; *out NULL when they are incompatible. */
void rlx_topi_broadcast_dim(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b, rlx_expr_t** out);
/* The broadcast shape of two shapes (right-aligned). Error: "<op>: cannot broadcast (2, 3)
 * and (4,)"; op names the caller in the message. out_shape is arena-allocated. */
RLX_MUST_USE rlx_status_t* rlx_topi_broadcast_shape(rlx_ctx_t* ctx, const char* op, int na, rlx_expr_t* const* a, int nb,
                                       rlx_expr_t* const* b, int* out_ndim, rlx_expr_t*** out_shape);
/* "(2, n, 4)" — a shape for messages (integer constants and vars print plainly). */
const char* rlx_topi_shape_str(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape);
/* Loads t at the output indices idx of a broadcast result of rank out_ndim (t right-aligned):
 * a constant-1 dim of t reads index 0 where it is broadcast, i.e. where the output's dim is
 * not also 1 (TVM's rule: equal dims read the output index); out_shape NULL = every
 * constant-1 dim is broadcast. */
rlx_expr_t* rlx_topi_broadcast_load(rlx_ctx_t* ctx, rlx_te_tensor_t* t, int out_ndim, rlx_expr_t* const* out_shape,
                                    rlx_var_t* const* idx);

/* Binary ops with numpy broadcasting; X(enum suffix, TVM name, result is bool). */
#define RLX_TOPI_BINARY_OPS(X)            \
  X(ADD, "add", false)                    \
  X(SUBTRACT, "subtract", false)          \
  X(MULTIPLY, "multiply", false)          \
  X(DIVIDE, "divide", false)              \
  X(FLOOR_DIVIDE, "floor_divide", false)  \
  X(POWER, "power", false)                \
  X(MAXIMUM, "maximum", false)            \
  X(MINIMUM, "minimum", false)            \
  X(EQUAL, "equal", true)                 \
  X(NOT_EQUAL, "not_equal", true)         \
  X(LESS, "less", true)                   \
  X(LESS_EQUAL, "less_equal", true)       \
  X(GREATER, "greater", true)             \
  X(GREATER_EQUAL, "greater_equal", true) \
  X(LOGICAL_AND, "logical_and", true)     \
  X(LOGICAL_OR, "logical_or", true)       \
  X(LOGICAL_XOR, "logical_xor", true)     \
  X(MOD, "mod", false)                    \
  X(FLOOR_MOD, "floor_mod", false)        \
  X(BITWISE_AND, "bitwise_and", false)    \
  X(BITWISE_OR, "bitwise_or", false)      \
  X(BITWISE_XOR, "bitwise_xor", false)    \
  X(LEFT_SHIFT, "left_shift", false)      \
  X(RIGHT_SHIFT, "right_shift", false)

typedef enum {
#define X(E, N, B) RLX_TOPI_##E,
  RLX_TOPI_BINARY_OPS(X)
#undef X
      RLX_TOPI_BINARY_COUNT
} rlx_topi_binary_t;

const char* rlx_topi_binary_name(rlx_topi_binary_t op);
/* True for comparisons and logical ops (bool result). */
bool rlx_topi_binary_is_bool(rlx_topi_binary_t op);
/* True for the bitwise ops (int and bool operands only). */
bool rlx_topi_binary_int_only(rlx_topi_binary_t op);
/* op(a, b) with broadcasting (T_<name>, tag "broadcast"). a and b must have the same dtype
 * (logical ops: any dtypes, nonzero is true). divide: true division for floats, truncating
 * for ints (TVM's tir.Div); floor_divide: floor(a / b) / floordiv; mod: the remainder with
 * a's sign (fmod, C %); floor_mod: with b's sign (numpy's mod); bitwise ops: ints and bools
 * only. */
RLX_MUST_USE rlx_status_t* rlx_topi_binary(rlx_ctx_t* ctx, rlx_topi_binary_t op, rlx_te_tensor_t* a, rlx_te_tensor_t* b,
                                           rlx_te_tensor_t** out);
/* op(x, scalar) (or op(scalar, x) when scalar_first) elementwise: the scalar is a PrimExpr
 * (TVM's binary ops with a PrimValue operand). A constant of another dtype is converted to
 * x's; a non-constant must have x's dtype (logical ops: any). Tag "elemwise". */
RLX_MUST_USE rlx_status_t* rlx_topi_binary_scalar(rlx_ctx_t* ctx, rlx_topi_binary_t op, rlx_te_tensor_t* x,
                                                  rlx_expr_t* scalar, bool scalar_first, rlx_te_tensor_t** out);
/* topi.add: a + b with broadcasting (for builders). */
RLX_MUST_USE rlx_status_t* rlx_topi_add(rlx_ctx_t* ctx, rlx_te_tensor_t* a, rlx_te_tensor_t* b, rlx_te_tensor_t** out);
/* where(cond, x, y), three-way broadcasting; cond nonzero selects x. x, y same dtype. */
RLX_MUST_USE rlx_status_t* rlx_topi_where(rlx_ctx_t* ctx, rlx_te_tensor_t* cond, rlx_te_tensor_t* x, rlx_te_tensor_t* y,
                                          rlx_te_tensor_t** out);
/* x broadcast to shape (x right-aligned; each dim of x is 1 or equals the target's). */
RLX_MUST_USE rlx_status_t* rlx_topi_broadcast_to(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int ndim, rlx_expr_t* const* shape,
                                                 rlx_te_tensor_t** out);

/* ------------------------------------------------------------------ reduce.c */
typedef enum {
  RLX_TOPI_REDUCE_SUM,
  RLX_TOPI_REDUCE_MEAN,
  RLX_TOPI_REDUCE_MAX,
  RLX_TOPI_REDUCE_MIN,
  RLX_TOPI_REDUCE_PROD,
  RLX_TOPI_REDUCE_ARGMAX,
  RLX_TOPI_REDUCE_ARGMIN
} rlx_topi_reduce_t;

/* Normalizes axes (negative from the end) into a per-dim mask of x's rank; axes NULL = all
 * dims. Error: an axis out of range or repeated. mask has ndim entries. */
RLX_MUST_USE rlx_status_t* rlx_topi_reduce_axes(const char* op, int ndim, int n_axes, const int64_t* axes, bool* mask);
/* Reduction of x over axes (NULL = all) with keepdims. sum/prod/max/min: tag comm_reduce,
 * x's dtype. mean: sum then divide by the count (two stages). argmax/argmin: the index of
 * the first extreme element along the reduced axes (row-major position when several axes),
 * int64. */
RLX_MUST_USE rlx_status_t* rlx_topi_reduce(rlx_ctx_t* ctx, rlx_topi_reduce_t op, rlx_te_tensor_t* x, int n_axes,
                                           const int64_t* axes, bool keepdims, rlx_te_tensor_t** out);

/* Variance over axes (NULL = all) with keepdims: mean((x - mean(x))^2), several stages;
 * std: its square root. Float tensors only. */
RLX_MUST_USE rlx_status_t* rlx_topi_variance(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int n_axes, const int64_t* axes,
                                             bool keepdims, bool std, rlx_te_tensor_t** out);

/* ------------------------------------------------------------------ transform.c */
/* x with its dims permuted: out.shape[i] = x.shape[axes[i]] (axes NULL = reversed);
 * T_transpose. */
RLX_MUST_USE rlx_status_t* rlx_topi_transpose(rlx_ctx_t* ctx, rlx_te_tensor_t* x, const int64_t* axes,
                                              rlx_te_tensor_t** out);
/* x in row-major order with a new shape of the same element count (T_reshape). The caller
 * states the shape; the count is checked when both are constant. */
RLX_MUST_USE rlx_status_t* rlx_topi_reshape(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int ndim, rlx_expr_t* const* shape,
                                            rlx_te_tensor_t** out);
/* New dims of extent 1 at the given output positions (negative: from the end of the
 * output); T_expand_dims. */
RLX_MUST_USE rlx_status_t* rlx_topi_expand_dims(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int n_axes, const int64_t* axes,
                                                rlx_te_tensor_t** out);
/* x without the given dims (axes NULL = every dim that is constant 1); each must be 1
 * (error otherwise); T_squeeze. */
RLX_MUST_USE rlx_status_t* rlx_topi_squeeze(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int n_axes, const int64_t* axes,
                                            rlx_te_tensor_t** out);
/* xs joined along axis (all other dims equal; same dtype); T_concat. */
RLX_MUST_USE rlx_status_t* rlx_topi_concat(rlx_ctx_t* ctx, int n, rlx_te_tensor_t* const* xs, int64_t axis,
                                           rlx_te_tensor_t** out);
/* Numpy slicing on the listed axes: begin/end clamped like numpy (negative from the end,
 * INT64_MAX/INT64_MIN mean "to the end" for positive/negative strides), strides nonzero
 * (NULL = 1). Symbolic dims give clamped symbolic extents. T_strided_slice. */
RLX_MUST_USE rlx_status_t* rlx_topi_strided_slice(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int n_axes, const int64_t* axes,
                                                  const int64_t* begin, const int64_t* end, const int64_t* strides,
                                                  rlx_te_tensor_t** out);
/* The extent numpy gives x[begin:end:stride] on a dim of extent n (clamping as above);
 * *out_begin gets the normalized start. Symbolic n gives a min/max expression. */
rlx_expr_t* rlx_topi_slice_extent(rlx_ctx_t* ctx, rlx_expr_t* n, int64_t begin, int64_t end, int64_t stride,
                                  rlx_expr_t** out_begin);
/* TVM's take: elements of x at indices (int32/int64) along axis (has_axis false = x
 * flattened). mode: "fast" (indices assumed in range), "clip" (clamped), "wrap" (modulo, so
 * negative indices count from the end). Output shape: x.shape[:axis] + indices.shape +
 * x.shape[axis+1:]. T_take. */
RLX_MUST_USE rlx_status_t* rlx_topi_take(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* indices, bool has_axis,
                                         int64_t axis, const char* mode, rlx_te_tensor_t** out);
/* Constant padding: pad_width holds 2 * ndim values (before0, after0, before1, ...), each
 * >= 0; elements outside x are value (converted to x's dtype). T_pad. */
RLX_MUST_USE rlx_status_t* rlx_topi_pad(rlx_ctx_t* ctx, rlx_te_tensor_t* x, const int64_t* pad_width, double value,
                                        rlx_te_tensor_t** out);
/* Padding that repeats x: mode "edge" (the nearest element) or "reflect" (mirrored without
 * repeating the edge, each pad smaller than the extent: numpy's reflect). */
RLX_MUST_USE rlx_status_t* rlx_topi_pad_mode(rlx_ctx_t* ctx, rlx_te_tensor_t* x, const int64_t* pad_width,
                                             const char* mode, rlx_te_tensor_t** out);

/* The pieces of a dim of extent dim split into sections (indices NULL; ceil-sized, the last
 * takes the rest, as numpy's array_split for divisible sizes) or at indices (ascending,
 * clamped to the extent). *out_n pieces; begins/extents are simplified int64 exprs. */
RLX_MUST_USE rlx_status_t* rlx_topi_split_ranges(rlx_ctx_t* ctx, rlx_expr_t* dim, int64_t sections, int n_indices,
                                    const int64_t* indices, int* out_n, rlx_expr_t*** out_begins,
                                    rlx_expr_t*** out_extents);
/* x split along axis per rlx_topi_split_ranges: *out_n tensors all named T_split_sections (T_split
 * when split at indices), as TVM's topi names them
 * (a multi-output TE function: pass them all to create_prim_func). */
RLX_MUST_USE rlx_status_t* rlx_topi_split(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int64_t sections, int n_indices,
                                          const int64_t* indices, int64_t axis, int* out_n, rlx_te_tensor_t*** out);

/* ------------------------------------------------------------------ transform_index.c */
/* numpy's tile: x repeated reps[i] times along each dim (shorter reps are padded with 1s in
 * front; more reps than dims add leading dims); T_tile. */
RLX_MUST_USE rlx_status_t* rlx_topi_tile(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int n_reps, const int64_t* reps,
                                         rlx_te_tensor_t** out);
/* x reversed along axis. */
RLX_MUST_USE rlx_status_t* rlx_topi_flip(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int64_t axis, rlx_te_tensor_t** out);
/* Running sum along axis in dtype (exclusive: the element itself left out); a conditional
 * reduction, quadratic in the axis length. T_cumsum. */
RLX_MUST_USE rlx_status_t* rlx_topi_cumsum(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int64_t axis, rlx_dtype_t dtype,
                                           bool exclusive, rlx_te_tensor_t** out);
/* ONNX GatherElements / torch.gather: out[i..] = x[.. indices[i..] ..] with the index on axis
 * (negative indices count from the end); indices has x's rank; output has its shape. */
RLX_MUST_USE rlx_status_t* rlx_topi_gather_elements(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* indices,
                                                    int64_t axis, rlx_te_tensor_t** out);
/* start + i * step for i in [0, length) in dtype (the caller computes length; TVM's
 * topi.arange); start, step and length are PrimExprs (constants or vars of the caller). */
RLX_MUST_USE rlx_status_t* rlx_topi_arange(rlx_ctx_t* ctx, rlx_expr_t* start, rlx_expr_t* step, rlx_expr_t* length,
                                           rlx_dtype_t dtype, rlx_te_tensor_t** out);
/* Lower (tril: keeps j - i <= k) or upper (triu: keeps j - i >= k) triangle over the last two
 * dims; the rest is 0. */
RLX_MUST_USE rlx_status_t* rlx_topi_trilu(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int64_t k, bool upper,
                                          rlx_te_tensor_t** out);

/* One-hot encoding: a new dim of extent depth at axis (-1 = last) holding on where it equals
 * the index (negative indices count from the end) and off elsewhere; on/off are scalars of
 * the output dtype. T_one_hot. */
RLX_MUST_USE rlx_status_t* rlx_topi_one_hot(rlx_ctx_t* ctx, rlx_te_tensor_t* indices, rlx_expr_t* on, rlx_expr_t* off,
                                            int64_t depth, int64_t axis, rlx_te_tensor_t** out);

/* ONNX ScatterElements / TVM scatter_elements: a copy of x where, for every position j of
 * indices, out[j with indices[j] on axis] is updates[j] ("update": the last such j wins) or
 * combined with it ("add", "mul", "max", "min"); negative indices count from the end.
 * indices and updates have x's rank (and equal shapes), updates x's dtype. Two stages. */
RLX_MUST_USE rlx_status_t* rlx_topi_scatter_elements(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* indices,
                                                     rlx_te_tensor_t* updates, int64_t axis, const char* reduction,
                                                     rlx_te_tensor_t** out);

#endif
