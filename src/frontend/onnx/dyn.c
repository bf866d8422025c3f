/* Shape-deciding values that arrive at run time (see onnx_import.h, "run-time values").
 *
 * A converter whose output shape depends on an input that is not a constant (Reshape's
 * shape, Expand's shape, ConstantOfShape, Range's bounds, Tile's repeats ...) describes the
 * dims it needs as PrimExprs over placeholders of its inputs: loads of the integer inputs
 * and the data inputs' dims. rlx_onnx_runtime_dims emits one small kernel computing those
 * values into an int64 tensor, then R.tensor_to_shape and R.match_cast to a shape of fresh
 * symbolic vars, which the VM binds when the match_cast runs; from there on the program is
 * symbolic as if the dims had come from a graph input's shape.
 */
#include <string.h>

#include "onnx_internal.h"

typedef struct {
  rlx_onnx_value_fn_t f;
  void* user;
  int k;
  rlx_te_tensor_t* const* ins;
} dims_user_t;

static rlx_expr_t* dims_compute(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  dims_user_t* u = user;
  rlx_expr_t* i = &idx[0]->hdr;
  rlx_expr_t* e = rlx_ir_cast(ctx, rlx_dt_int64(), u->f(ctx, u->ins, u->k - 1, u->user));
  for (int j = u->k - 2; j >= 0; j--) {
    rlx_expr_t* v = rlx_ir_cast(ctx, rlx_dt_int64(), u->f(ctx, u->ins, j, u->user));
    e = rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_EQ, i, rlx_ir_i64(ctx, j)), v, e);
  }
  return e;
}

static RLX_MUST_USE rlx_status_t* dims_te(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                          rlx_te_tensor_t** out) {
  (void)n;
  dims_user_t* u = user;
  u->ins = in;
  rlx_expr_t* len = rlx_ir_i64(ctx, u->k);
  return *out = rlx_te_compute(ctx, 1, &len, dims_compute, u, "dims", "injective"), NULL;
}

rlx_expr_t* rlx_onnx_fresh_dim(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, const char* suffix) {
  const char* out = node->n_outputs > 0 && node->outputs[0][0] ? node->outputs[0] : "dim";
  const char* name = rlx_ctx_sprintf(im->ctx, "%s_%s", rlx_onnx_ident(im->ctx, out), suffix);
  return &rlx_ir_var(im->ctx, name, rlx_dt_int64())->hdr;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_runtime_dims(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                 rlx_onnx_value_fn_t f, void* user, int n_args,
                                                 rlx_relax_expr_t* const* args, int k, rlx_expr_t*** out) {
  rlx_ctx_t* ctx = im->ctx;
  rlx_expr_t** dims = RLX_NEW_ARRAY(ctx, rlx_expr_t*, k > 0 ? k : 1);
  *out = dims;
  if (k == 0) return NULL;
  dims_user_t u = {f, user, k, NULL};
  rlx_relax_expr_t* t = NULL;
  RLX_RETURN_IF_ERROR(rlx_onnx_emit_te(im, dims_te, &u, n_args, args, "shape_values", &t));
  rlx_onnx_tensor_t c;
  if (rlx_onnx_const(im, t, &c)) { /* every input was a constant: the dims are known now */
    for (int j = 0; j < k; j++) dims[j] = rlx_ir_i64(ctx, ((const int64_t*)c.data)[j]);
    return NULL;
  }
  rlx_relax_expr_t* s = NULL;
  RLX_RETURN_IF_ERROR(rlx_onnx_emit(im, rlx_relax_op_call(ctx, RLX_OP_TENSOR_TO_SHAPE, 1, &t, (rlx_attrs_t){0}), &s));
  for (int j = 0; j < k; j++) dims[j] = rlx_onnx_fresh_dim(im, node, rlx_ctx_sprintf(ctx, "d%d", j));
  rlx_relax_var_t* v = NULL;
  return rlx_bb_match_cast(im->bb, s, rlx_sinfo_shape(ctx, k, dims), NULL, &v);
}

RLX_MUST_USE rlx_status_t* rlx_onnx_runtime_check(rlx_onnx_importer_t* im, rlx_expr_t* actual, rlx_expr_t* expected) {
  rlx_ctx_t* ctx = im->ctx;
  if (rlx_ir_prove_equal(ctx, actual, expected)) return NULL;
  rlx_relax_var_t* v = NULL;
  return rlx_bb_match_cast(im->bb, rlx_relax_prim_value(ctx, actual), rlx_sinfo_prim(ctx, rlx_dt_int64(), expected),
                           NULL, &v);
}

rlx_expr_t* rlx_onnx_load_int(rlx_ctx_t* ctx, rlx_te_tensor_t* t, int64_t j) {
  rlx_expr_t* idx = rlx_ir_i64(ctx, j);
  rlx_expr_t* v = rlx_te_load(ctx, t, t->buffer->ndim, t->buffer->ndim ? &idx : NULL);
  return rlx_ir_cast(ctx, rlx_dt_int64(), v);
}
