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
  /* TVM's compute attr "layout_free_placeholders": inputs whose layout a later pass may
   * change (a dense weight); create_prim_func lists the params among them in the function
   * attribute "layout_free_buffers". Set after rlx_te_compute; NULL when none. */
  int n_layout_free;
  struct rlx_te_tensor** layout_free;
  /* A multi-output compute (TVM's te.compute whose function returns a tuple): its outputs
   * share `axis`, each has its own body; group[value_index] is this tensor, n_group > 1.
   * create_prim_func gives them one loop nest with one block per output. n_group is 0 for a
   * single-output tensor. */
  int n_group;
  int value_index;
  struct rlx_te_tensor** group;
  /* TVM's te.compute(..., attrs=): annotations create_prim_func gives the tensor's block
   * (T.block_attr), e.g. softmax's {"axis": 2}. Set with rlx_te_tensor_set_attr. */
  int n_attrs;
  const char** attr_keys;
  rlx_expr_t** attr_values;
} rlx_te_tensor_t;

/* Adds the block annotation key = value (an IntImm or StringImm) to compute t. */
void rlx_te_tensor_set_attr(rlx_ctx_t* ctx, rlx_te_tensor_t* t, const char* key, rlx_expr_t* value);

/* The public TE calls (rlx_te_placeholder, compute, load, reduce_axis, sum/max/min,
 * create_prim_func) and the body callback type are declared in include/rlx/rlx.h only. */

/* The multi-output form, rlx_te_compute_multi (rlx.h): n bodies give n tensors "<name>.v0",
 * ... sharing the index vars (see n_group). */
/* The TE tensor whose buffer is b (created by rlx_te_placeholder/compute); NULL for any other
 * buffer. */
rlx_te_tensor_t* rlx_te_tensor_of_buffer(const rlx_tir_buffer_t* b);
/* Any combiner, with an optional condition (NULL = true): elements where cond is false are
 * skipped (the identity is combined instead). */
rlx_expr_t* rlx_te_reduce(rlx_ctx_t* ctx, rlx_reduce_kind_t combiner, rlx_expr_t* source, int n_axis,
                          rlx_iter_var_t* const* axis, rlx_expr_t* cond);
/* rlx_te_reduce whose accumulator starts at init (TVM's te.sum(..., init=)) instead of the
 * combiner's identity; init NULL = the identity. */
rlx_expr_t* rlx_te_reduce_init(rlx_ctx_t* ctx, rlx_reduce_kind_t combiner, rlx_expr_t* source, int n_axis,
                               rlx_iter_var_t* const* axis, rlx_expr_t* cond, rlx_expr_t* init);
/* The identity element of combiner in dtype t (see rlx_te_sum). */
rlx_expr_t* rlx_te_reduce_identity(rlx_ctx_t* ctx, rlx_reduce_kind_t combiner, rlx_dtype_t t);
/* combiner(acc, x): acc + x, acc * x, max(acc, x), min(acc, x). */
rlx_expr_t* rlx_te_reduce_combine(rlx_ctx_t* ctx, rlx_reduce_kind_t combiner, rlx_expr_t* acc, rlx_expr_t* x);


#endif
