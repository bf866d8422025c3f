/* topi: the operator library, written in TE (src/tir/te.h). Each function builds TE compute
 * tensors from TE inputs; Relax legalization calls them inside rlx_bb_call_te callbacks.
 * Families: basic.h (elementwise, broadcast, reductions, shape/index ops) and nn.h (dense,
 * matmul, conv, pool, softmax, norms). Functions return NULL and set *out_st on bad input
 * (e.g. incompatible shapes), never crash. */
#ifndef RLX_TOPI_H
#define RLX_TOPI_H

#include "../tir/te.h"

/* Output index names as TVM's topi gives them: prefix "ax" → ax0, ax1, ... (computes written
 * in C++ in TVM: broadcast ops, transforms), "i" → i0, i1, ... (Python `lambda *i` computes:
 * elementwise math, dense). For rlx_te_compute_named. */
const char* const* rlx_topi_axis_names(rlx_ctx_t* ctx, int ndim, const char* prefix);

#endif
