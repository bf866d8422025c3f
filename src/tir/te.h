/* Tensor expressions (TE): placeholder, compute, reduce_axis, sum/max/min, and
 * create_prim_func with TVM's semantics (tensors listed become params in that order;
 * intermediate computes become alloc_buffers of the root block).
 *
 * Every TE tensor owns a TIR buffer from the start, so a compute body refers to another
 * tensor with rlx_te_load(), which is a BufferLoad of that buffer. All objects live in the
 * context arena.
 */
#ifndef RLX_TE_H
#define RLX_TE_H

#include "tir.h"

typedef enum { RLX_TE_PLACEHOLDER, RLX_TE_COMPUTE } rlx_te_kind_t;

typedef struct rlx_te_tensor {
  rlx_te_kind_t kind;
  const char* name;
  rlx_tir_buffer_t* buffer; /* name, dtype and shape of the tensor */
  /* compute only: */
  int n_axis;
  rlx_iter_var_t** axis; /* spatial iter vars, one per output dim */
  rlx_expr_t* body;      /* may be an RLX_EXPR_REDUCE at the top */
  const char* tag;       /* e.g. "elemwise", "broadcast", "injective", "" */
  int n_inputs;          /* tensors read by body (filled by rlx_te_compute) */
  struct rlx_te_tensor** inputs;
} rlx_te_tensor_t;

/* Body callback: indices are the output index vars (int64 when the shape is int64, else
 * int32); returns the value expression (possibly rlx_te_sum(...) etc.). */
typedef rlx_expr_t* (*rlx_te_fcompute_t)(rlx_ctx_t* ctx, rlx_var_t* const* indices, void* user);

rlx_te_tensor_t* rlx_te_placeholder(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_dtype_t dtype,
                                    const char* name);
rlx_te_tensor_t* rlx_te_compute(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_te_fcompute_t f,
                                void* user, const char* name, const char* tag);
/* Load of tensor t at indices (BufferLoad of t->buffer). */
rlx_expr_t* rlx_te_load(rlx_ctx_t* ctx, rlx_te_tensor_t* t, int n, rlx_expr_t* const* indices);
rlx_iter_var_t* rlx_te_reduce_axis(rlx_ctx_t* ctx, rlx_expr_t* min, rlx_expr_t* extent, const char* name);
rlx_expr_t* rlx_te_sum(rlx_ctx_t* ctx, rlx_expr_t* source, int n_axis, rlx_iter_var_t* const* axis);
rlx_expr_t* rlx_te_max(rlx_ctx_t* ctx, rlx_expr_t* source, int n_axis, rlx_iter_var_t* const* axis);
rlx_expr_t* rlx_te_min(rlx_ctx_t* ctx, rlx_expr_t* source, int n_axis, rlx_iter_var_t* const* axis);

/* TVM's te.create_prim_func(args): args become params (buffers in the buffer map) in order;
 * every other compute reachable from the outputs becomes an alloc_buffer of the root block;
 * attrs {"tir.noalias": T.bool(True)} (and "global_symbol" = name). Errors: a tensor used
 * but not reachable / a placeholder not in args. */
rlx_status_t* rlx_te_create_prim_func(rlx_ctx_t* ctx, int n_args, rlx_te_tensor_t* const* args, const char* name,
                                      rlx_tir_func_t** out);

#endif
