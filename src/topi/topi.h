/* topi: the operator library, written in TE (src/tir/te.h). Each function builds TE compute
 * tensors from TE inputs; Relax legalization calls them inside rlx_bb_call_te callbacks.
 * Families: basic.h (elementwise, broadcast, reductions, shape/index ops) and nn.h (dense,
 * matmul, conv, pool, softmax, norms).
 *
 * Convention: a function that can fail has the house form of a fallible call,
 *   RLX_MUST_USE rlx_status_t* rlx_topi_X(rlx_ctx_t* ctx, inputs..., rlx_te_tensor_t** out);
 * it returns NULL and stores the result in *out on success, or returns an error naming the
 * op and the offending shapes/dtypes (e.g. incompatible shapes) and leaves *out untouched;
 * it never crashes. Functions with several results take an out count and an out array (split:
 * int* out_n, rlx_te_tensor_t*** out). A TE callback (rlx_bb_te_fn_t, same form) can return
 * a topi call directly: `return rlx_topi_add(ctx, in[0], in[1], out);`; a chain propagates
 * with RLX_RETURN_IF_ERROR. Infallible helpers (rlx_topi_nn_pad, shape helpers) return their
 * result. */
#ifndef RLX_TOPI_H
#define RLX_TOPI_H

#include "../tir/te.h"

/* Output index names as TVM's topi gives them: prefix "ax" → ax0, ax1, ... (computes written
 * in C++ in TVM: broadcast ops, transforms), "i" → i0, i1, ... (Python `lambda *i` computes:
 * elementwise math, dense). For rlx_te_compute_named. */
const char* const* rlx_topi_axis_names(rlx_ctx_t* ctx, int ndim, const char* prefix);

#endif
