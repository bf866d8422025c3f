/* topi nn: neural-network operators in TE (TVM's topi.nn / topi.matmul), used by the
 * legalization of the Relax ops of op_nn.c / op_nn_conv.c. Files: nn_dense.c (matmul, dense),
 * nn_norm.c (softmax, log_softmax, layer_norm, rms_norm, group_norm, batch_norm), nn_conv.c
 * (pad, conv and transposed conv over 1-3 spatial dims), nn_pool.c (pools and adaptive
 * pools over 1-3 spatial dims), nn_attention.c (attention); nn_util.c / nn_internal.h hold
 * shared helpers.
 *
 * Conventions (topi.h): every function builds TE computes over its TE inputs, stores the
 * output tensor in *out and returns NULL, or returns an error on bad input (names the operator
 * and the shapes); it never crashes. Shapes may be symbolic (int64 PrimExprs); index arithmetic is int64.
 * The forms are kept simple for the default CPU schedule: contractions are single reduce
 * computes C[.., i, j] = sum_k A[.., i, k] * B[.., k, j] (or B[j, k]) with every operand
 * index an iter var where no broadcasting happens; padding is its own injective "pad_temp"
 * compute (if_then_else, lazily evaluated) that inlining removes.
 */
#ifndef RLX_TOPI_NN_H
#define RLX_TOPI_NN_H

#include "topi.h"

/* numpy.matmul(a, b) (TVM's relax matmul legalization): a 1-D operand is promoted (a: [K] →
 * [1, K], b: [K] → [K, 1]) and the promoted dim is dropped from the result; batch dims
 * broadcast (a dim of constant 1 takes the other's extent). Output "matmul" (reduce axis
 * "k"), elements cast to out_dtype before multiplying when out_dtype differs from the inputs'
 * dtype (void = a's dtype). Errors: dtypes differ, contraction dims provably different,
 * batch dims that cannot broadcast (symbolic dims must be provably equal or 1). */
RLX_MUST_USE rlx_status_t* rlx_topi_matmul(rlx_ctx_t* ctx, rlx_te_tensor_t* a, rlx_te_tensor_t* b,
                                           rlx_dtype_t out_dtype, rlx_te_tensor_t** out);

/* topi.nn.dense extended to any leading dims: out[.., j] = sum_k x[.., k] * w[j, k]
 * ("T_matmul_NT", reduce axis "k"), then, when bias is not NULL, "T_add" = out + bias with
 * numpy broadcasting of bias against the output. w: [N, K]; x: [.., K] (rank >= 1). out_dtype
 * as rlx_topi_matmul. */
RLX_MUST_USE rlx_status_t* rlx_topi_nn_dense(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* w,
                                             rlx_te_tensor_t* bias, rlx_dtype_t out_dtype, rlx_te_tensor_t** out);

/* Attention in TVM's relax.nn.attention layout: query (B, S, H, D), key (B, Skv, H, D), value
 * (B, Skv, H, Dv) → (B, S, H, Dv): softmax(q kᵀ * scale + bias) v per batch and head, with
 * scale <= 0 meaning 1 / sqrt(D) (D constant), bias NULL or broadcastable to (B, H, S, Skv),
 * causal_mask NULL, "TopLeft" (key j visible to query i when j <= i) or "BottomRight" (j <= i
 * + Skv - S). Computes "attn_scores" (a batched contraction), "attn_scaled", "attn_max" (over
 * visible keys), "attn_exp" (0 where masked), "attn_expsum", "attn_softmax", "attn_pv" (a
 * batched contraction in (B, H, S, Dv)) and "attn_out" (its transpose to (B, S, H, Dv)). */
RLX_MUST_USE rlx_status_t* rlx_topi_nn_attention(rlx_ctx_t* ctx, rlx_te_tensor_t* q, rlx_te_tensor_t* k,
                                                 rlx_te_tensor_t* v, rlx_te_tensor_t* bias, double scale,
                                                 const char* causal_mask, rlx_te_tensor_t** out);

/* Softmax along axis (negative counts from the end), numerically stable:
 * "T_softmax_maxelem" = max_axis x, "T_softmax_exp" = exp(x - max), "T_softmax_expsum" =
 * sum_axis exp, "T_softmax_norm" = exp / expsum. Float dtypes only. */
RLX_MUST_USE rlx_status_t* rlx_topi_nn_softmax(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int axis, rlx_te_tensor_t** out);
/* log_softmax along axis: x - max - log(sum exp(x - max)) ("T_log_softmax_norm"). */
RLX_MUST_USE rlx_status_t* rlx_topi_nn_log_softmax(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int axis, rlx_te_tensor_t** out);

/* Layer normalization over axes (n_axes entries, negative from the end, distinct):
 * mean and population variance in two passes ("T_layer_norm_sum" = sum x, "T_layer_norm_sqsum"
 * = sum (x - mean)^2), out = (x - mean) / sqrt(var + epsilon) * gamma + beta ("T_layer_norm").
 * gamma and beta have the shape of x's dims at axes (in axes' order of x); either may be
 * NULL (scale / center off). Float dtypes only. */
RLX_MUST_USE rlx_status_t* rlx_topi_nn_layer_norm(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* gamma,
                                                  rlx_te_tensor_t* beta, int n_axes, const int* axes, double epsilon,
                                                  rlx_te_tensor_t** out);

/* RMS normalization over axes (TVM's rms_norm): out = x / sqrt(mean(x^2) + epsilon) * weight
 * ("T_rms_norm_sqsum", "T_rms_norm"); weight has x's dims at axes (NULL = none). */
RLX_MUST_USE rlx_status_t* rlx_topi_nn_rms_norm(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* weight, int n_axes,
                                                const int* axes, double epsilon, rlx_te_tensor_t** out);

/* Group normalization (TVM's group_norm): the channels (channel_axis, extent C divisible by
 * num_groups) are split into num_groups groups; mean and variance are taken per group over
 * its C / num_groups channels and the axes (e.g. [2, 3] for NCHW), then
 * out = (x - mean) / sqrt(var + epsilon) * gamma[c] + beta[c] ("T_group_norm_sum",
 * "T_group_norm_sqsum", "T_group_norm"); gamma, beta: (C,), either may be NULL. */
RLX_MUST_USE rlx_status_t* rlx_topi_nn_group_norm(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* gamma,
                                                  rlx_te_tensor_t* beta, int64_t num_groups, int channel_axis,
                                                  int n_axes, const int* axes, double epsilon, rlx_te_tensor_t** out);

/* Batch normalization, inference form: out = (x - mean[c]) / sqrt(var[c] + epsilon) *
 * gamma[c] + beta[c] with c = the index along axis ("T_batch_norm"); gamma / beta NULL =
 * scale / center off. mean, var, gamma, beta: 1-D of x's extent at axis. */
RLX_MUST_USE rlx_status_t* rlx_topi_nn_batch_norm(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* gamma,
                                                  rlx_te_tensor_t* beta, rlx_te_tensor_t* mean, rlx_te_tensor_t* var,
                                                  int axis, double epsilon, rlx_te_tensor_t** out);

/* Batch normalization, training form (TVM's training=True): the statistics are the data's
 * mean and population variance over every axis but axis ("T_batch_norm_sum",
 * "T_batch_norm_sqsum"); which = 0: the normalized data ("T_batch_norm"); 1: the updated
 * moving mean (1 - momentum) * mean + momentum * batch_mean ("T_moving_mean"); 2: the same
 * for the variance ("T_moving_var"). Operands as rlx_topi_nn_batch_norm. */
RLX_MUST_USE rlx_status_t* rlx_topi_nn_batch_norm_train(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* gamma,
                                                        rlx_te_tensor_t* beta, rlx_te_tensor_t* mean,
                                                        rlx_te_tensor_t* var, int axis, double epsilon, double momentum,
                                                        int which, rlx_te_tensor_t** out);

/* topi.nn.pad: out[i..] = x[i - before] inside, pad_value outside (one injective compute
 * named name, "pad_temp" when NULL). before/after: x's rank entries each, >= 0. Returns x
 * itself when all are 0. pad_value: an expression of x's dtype. */
rlx_te_tensor_t* rlx_topi_nn_pad(rlx_ctx_t* ctx, rlx_te_tensor_t* x, const int64_t* before, const int64_t* after,
                                 rlx_expr_t* pad_value, const char* name);

/* 2-D convolution, data NCHW, kernel OIHW: kernel [O, C / groups, KH, KW], out [N, O, OH,
 * OW] with OH = (H + pad_top + pad_bottom - dilation_h * (KH - 1) - 1) / stride_h + 1 (floor);
 * padding [top, left, bottom, right] by a "pad_temp" compute; groups >= 1 (depthwise when
 * groups == C); one reduce compute over rc, ry, rx ("conv2d_nchw", "group_conv2d_nchw" or
 * "depthwise_conv2d_nchw"). Elements are cast to out_dtype (void = data's dtype). */
RLX_MUST_USE rlx_status_t* rlx_topi_nn_conv2d_nchw(rlx_ctx_t* ctx, rlx_te_tensor_t* data, rlx_te_tensor_t* kernel,
                                                   const int64_t strides[2], const int64_t padding[4],
                                                   const int64_t dilation[2], int64_t groups, rlx_dtype_t out_dtype,
                                                   rlx_te_tensor_t** out);

/* Convolution over nsp = 1, 2 or 3 spatial dims (NCW / NCHW / NCDHW data, OIW / OIHW / OIDHW
 * kernel): strides, dilation: nsp values; padding: 2 * nsp values, all "before" then all
 * "after" ([top, left, bottom, right] for 2-D). Computes "conv<nsp>d_<layout>" (with a
 * "group_" / "depthwise_" prefix when grouped) over rc and one reduce axis per spatial dim;
 * when groups is 1, O >= 64, C * prod(kernel) >= 64 (constants) and the output has >= 64
 * positions (or a symbolic count), as im2col + matmul instead: "data_col" [N, K, P] (no N
 * when N is 1), "kernel_flat" [O, K], "<name>_gemm" [N, O, P] (a contraction the default
 * schedule tiles) and "<name>" reading it back into [N, O, spatial...]. */
RLX_MUST_USE rlx_status_t* rlx_topi_nn_conv(rlx_ctx_t* ctx, rlx_te_tensor_t* data, rlx_te_tensor_t* kernel, int nsp,
                                            const int64_t* strides, const int64_t* padding, const int64_t* dilation,
                                            int64_t groups, rlx_dtype_t out_dtype, rlx_te_tensor_t** out);

/* Transposed convolution (TVM's conv<k>d_transpose) over nsp = 1, 2 or 3 spatial dims: data
 * NC..., kernel IO... = [C, O / groups, K...]; out [N, O, ...] with extent (in - 1) * stride -
 * pad_before - pad_after + dilation * (K - 1) + output_padding + 1 per spatial dim; padding
 * as rlx_topi_nn_conv. One conditional reduction ("conv<k>d_transpose_<layout>"): out[y]
 * gathers x[i] * w[r] where i * stride + r * dilation = y + pad_before (no dilated copy of the
 * input). output_padding must be smaller than the stride or the dilation. */
RLX_MUST_USE rlx_status_t* rlx_topi_nn_conv_transpose(rlx_ctx_t* ctx, rlx_te_tensor_t* data, rlx_te_tensor_t* kernel,
                                                      int nsp, const int64_t* strides, const int64_t* padding,
                                                      const int64_t* output_padding, const int64_t* dilation,
                                                      int64_t groups, rlx_dtype_t out_dtype, rlx_te_tensor_t** out);

typedef enum { RLX_TOPI_POOL_MAX, RLX_TOPI_POOL_AVG } rlx_topi_pool_kind_t;

/* 2-D pooling over NCHW (TVM's topi.nn.pool2d): padding [top, left, bottom, right] ("pad_temp"
 * with the lowest value for max, 0 for avg); ceil_mode adds stride - 1 at the bottom/right so
 * the output size rounds up: OH = (H + pt + pb - dh * (KH - 1) - 1 [+ sh - 1]) / sh + 1.
 * max: "pool_max". avg: "pool_sum" then "pool_avg" = sum / count where count is the number of
 * window positions inside the padded input without the ceil_mode extra (count_include_pad)
 * or inside the input (not count_include_pad), as TVM/PyTorch. */
RLX_MUST_USE rlx_status_t* rlx_topi_nn_pool2d(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_topi_pool_kind_t kind,
                                              const int64_t pool_size[2], const int64_t strides[2],
                                              const int64_t dilation[2], const int64_t padding[4], bool ceil_mode,
                                              bool count_include_pad, rlx_te_tensor_t** out);

/* Pooling over nsp = 1, 2 or 3 spatial dims (NCW / NCHW / NCDHW), as rlx_topi_nn_pool2d:
 * pool_size, strides, dilation: nsp values; padding: 2 * nsp values (all before, then all
 * after). */
RLX_MUST_USE rlx_status_t* rlx_topi_nn_pool(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_topi_pool_kind_t kind, int nsp,
                                            const int64_t* pool_size, const int64_t* strides, const int64_t* dilation,
                                            const int64_t* padding, bool ceil_mode, bool count_include_pad,
                                            rlx_te_tensor_t** out);

/* Adaptive pooling over nsp = 1, 2 or 3 spatial dims to out_size (nsp values > 0), as
 * rlx_topi_nn_adaptive_pool2d. */
RLX_MUST_USE rlx_status_t* rlx_topi_nn_adaptive_pool(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_topi_pool_kind_t kind,
                                                     int nsp, const int64_t* out_size, rlx_te_tensor_t** out);

/* Adaptive 2-D pooling over NCHW to out_h x out_w (> 0): output cell (i, j) covers rows
 * [floor(i*H/out_h), ceil((i+1)*H/out_h)) and the same for columns ("adaptive_pool_max" /
 * "adaptive_pool_sum" then "adaptive_pool_avg"). H, W may be symbolic when out is 1 x 1. */
RLX_MUST_USE rlx_status_t* rlx_topi_nn_adaptive_pool2d(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_topi_pool_kind_t kind,
                                                       int64_t out_h, int64_t out_w, rlx_te_tensor_t** out);

#endif
