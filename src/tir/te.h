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
} rlx_te_tensor_t;

/* Body callback: indices are the output index vars (int64 when the shape is int64, else
 * int32); returns the value expression (possibly rlx_te_sum(...) etc.). */
typedef rlx_expr_t* (*rlx_te_fcompute_t)(rlx_ctx_t* ctx, rlx_var_t* const* indices, void* user);

/* An input tensor (TVM's te.placeholder): a compact global buffer called name (the data var
 * too) with the given shape (exprs kept as given: int32 constants, int64 vars...). */
rlx_te_tensor_t* rlx_te_placeholder(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_dtype_t dtype,
                                    const char* name);
/* A computed tensor (TVM's te.compute): calls f once with fresh index vars (dtype of each
 * shape dim) and records the returned expression as the body; the tensor's dtype is the
 * body's. Output index vars are named i, j, k, l, m, n, o, p, q, r, s, t, then i12, i13, ...
 * in order. The TE tensors the body loads become t->inputs. */
rlx_te_tensor_t* rlx_te_compute(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_te_fcompute_t f,
                                void* user, const char* name, const char* tag);
/* Like rlx_te_compute, with the output index vars named axis_names[0..ndim) (TVM names them
 * after the lambda's parameters; axis_names NULL = the default names). Loops and block iter
 * vars created by create_prim_func take these names ("v_" + name for iter vars). */
rlx_te_tensor_t* rlx_te_compute_named(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_te_fcompute_t f,
                                      void* user, const char* name, const char* tag,
                                      const char* const* axis_names);
/* The multi-output form, rlx_te_compute_multi, is declared in include/rlx/rlx.h (te.c includes
 * it): n bodies give n tensors "<name>.v0", ... sharing the index vars (see n_group). */
/* The TE tensor whose buffer is b (created by rlx_te_placeholder/compute); NULL for any other
 * buffer. */
rlx_te_tensor_t* rlx_te_tensor_of_buffer(const rlx_tir_buffer_t* b);
/* Load of tensor t at indices (BufferLoad of t->buffer). */
rlx_expr_t* rlx_te_load(rlx_ctx_t* ctx, rlx_te_tensor_t* t, int n, rlx_expr_t* const* indices);
/* A reduce iter var over [min, min + extent); its var has extent's dtype and is named name
 * ("rv" when NULL). */
rlx_iter_var_t* rlx_te_reduce_axis(rlx_ctx_t* ctx, rlx_expr_t* min, rlx_expr_t* extent, const char* name);
/* Reductions over axis (RLX_EXPR_REDUCE, no condition). Identities: sum 0, max -inf (lowest int),
 * min +inf (highest int), in source's dtype. Valid only as the whole body of a compute. */
rlx_expr_t* rlx_te_sum(rlx_ctx_t* ctx, rlx_expr_t* source, int n_axis, rlx_iter_var_t* const* axis);
rlx_expr_t* rlx_te_max(rlx_ctx_t* ctx, rlx_expr_t* source, int n_axis, rlx_iter_var_t* const* axis);
rlx_expr_t* rlx_te_min(rlx_ctx_t* ctx, rlx_expr_t* source, int n_axis, rlx_iter_var_t* const* axis);
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

/* TVM's te.create_prim_func(args): args become params (buffers in the buffer map) in order;
 * every other compute reachable from the outputs becomes an alloc_buffer of the root block;
 * attrs {"tir.noalias": T.bool(True)} only (as TVM >= 0.15; the function name is `name`).
 *
 * Form produced: params[i] = args[i]->buffer->data (handle var named after the tensor),
 * buffer_map[i] = args[i]->buffer. body = BlockRealize (no iter values) of a block "root"
 * (no iter vars, no reads/writes) whose alloc_buffers are the intermediate computes' buffers
 * and whose body is the seq of one loop nest per compute, in topological order. A nest is
 * `for <axis> in [dom.min, dom.min+extent)` per spatial axis then per reduce axis, around a
 * BlockRealize of a block named after the tensor (made unique with _1, _2...) with iter vars
 * "v_<axis>" (S then R) bound to the loop vars; reads = buffers loaded by the body, writes =
 * the output at the iter vars (a block without any axis gets one dummy
 * spatial iter var "vi" in [0, 1) bound to 0, as TVM does); the value is simplified
 * (rlx_ir_simplify); reductions get init `C[v] = identity` and body
 * `C[v] = combine(C[v], source)` (`if cond: ...` around it for a conditional reduction). Errors: a placeholder reached but not in args, a load of a
 * non-TE buffer, a reduction that is not the whole body, duplicate or NULL args. */
RLX_MUST_USE rlx_status_t* rlx_te_create_prim_func(rlx_ctx_t* ctx, int n_args, rlx_te_tensor_t* const* args, const char* name,
                                      rlx_tir_func_t** out);

#endif
