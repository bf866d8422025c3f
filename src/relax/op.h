/* The Relax operator registry: every high-level op ("relax.add", "relax.nn.conv2d", ...) has
 * one definition with its struct-info inference and its legalization to TE (via topi).
 *
 * Ops are grouped in families, one table per file (op_basic.c: elementwise, broadcast,
 * reductions, shape ops; op_nn.c: matmul, linear, conv, pool, softmax, norms; op_memory.c:
 * allocation builtins used after lowering). The list of families is written once, in
 * op_registry.c. A table ends with an entry whose name is NULL.
 *
 * Conventions (TVM's): attrs use TVM's names and order (axis, keepdims, axes, strides,
 * padding, dilation, groups, data_layout, ...), so the printer can print them generically as
 * key=value; positional args are Relax expressions (a shape argument is a ShapeExpr).
 */
#ifndef RLX_RELAX_OP_H
#define RLX_RELAX_OP_H

#include "relax.h"

typedef struct rlx_op_def {
  const char* name; /* "relax.add"; prints as R.add */
  /* Struct info of a call (args already normalized). Errors name the op and what is wrong:
   * "relax.add: cannot broadcast (2, 3) with (4,)". */
  rlx_status_t* (*infer)(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out);
  /* Replacement for the call, usually R.call_tir of a TE function made with rlx_bb_call_te.
   * NULL when the op is not legalized (builtins handled by later passes). */
  rlx_status_t* (*legalize)(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out);
  bool is_pure;
  /* TVM's Python signature of the op, in order: "x, axis:ints, keepdims:bool". A name alone
   * is an operand (a Relax arg; "bias?" an optional one), "name:kind" an attribute (kinds:
   * int, ints (an int too), bool, float (an int too), str, dtype (a string too), expr).
   * The Python wrappers take their parameters from here (relax.op.sum(x, 1) is axis=1), and
   * the basic family checks a call's attributes against it (ob_check_attrs). */
  const char* params;
} rlx_op_def_t;

/* The definition of op name, or NULL when unknown. Thread-safe; no allocation. */
const rlx_op_def_t* rlx_op_lookup(const char* name);
/* All registered ops in registry order; *out_n gets the count (for listings and tests). */
void rlx_op_list(const rlx_op_def_t* const** out_defs, int* out_n);

/* A call of the registered op name with args and attrs (attrs may be {0}); struct info is
 * filled later by normalization. */
rlx_relax_expr_t* rlx_relax_op_call(rlx_ctx_t* ctx, const char* name, int n_args, rlx_relax_expr_t* const* args,
                                    rlx_attrs_t attrs);

/* Family tables (each ends with {NULL}). */
extern const rlx_op_def_t rlx_ops_basic[];
extern const rlx_op_def_t rlx_ops_nn[];
extern const rlx_op_def_t rlx_ops_memory[];

#endif
