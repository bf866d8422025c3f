/* Helpers shared by the topi nn files (nn_*.c): error formatting, shape printing, int64
 * index arithmetic. Not part of the public topi API. */
#ifndef RLX_TOPI_NN_INTERNAL_H
#define RLX_TOPI_NN_INTERNAL_H

#include "nn.h"

/* "(2, n, 4)": constants and vars by name, other dims as "?" (for error messages). */
const char* nn_shape_str(rlx_ctx_t* ctx, const rlx_te_tensor_t* t);
/* One dim as nn_shape_str prints it. */
const char* nn_dim_str(rlx_ctx_t* ctx, const rlx_expr_t* e);
/* "float32" etc. as an arena string. */
const char* nn_dt(rlx_ctx_t* ctx, rlx_dtype_t t);
/* An invalid-argument error with a printf-style message. */
RLX_MUST_USE rlx_status_t* nn_fail(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
/* True when e is the integer constant v. */
bool nn_is_const(const rlx_expr_t* e, int64_t v);
/* The int64 form of an index or shape expression (casts int32 ones). */
rlx_expr_t* nn_i64(rlx_ctx_t* ctx, rlx_expr_t* e);
/* Index vars as expressions. */
static inline rlx_expr_t* nn_v(rlx_var_t* v) { return &v->hdr; }
/* Output extent of a sliding window: floor((in + pad - dil * (k - 1) - 1 + extra) / stride) + 1,
 * int64, simplified (pad = both sides together). */
rlx_expr_t* nn_out_dim(rlx_ctx_t* ctx, rlx_expr_t* in, rlx_expr_t* k, int64_t pad, int64_t dil, int64_t stride,
                       int64_t extra);
/* An axis in [-ndim, ndim) made non-negative; -1 when out of range. */
int nn_norm_axis(int axis, int ndim);

#endif
