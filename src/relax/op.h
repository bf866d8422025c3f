/* The Relax operator registry: every op ("relax.add", "relax.nn.conv2d", ...) is one line of
 * op.def with its struct-info inference, its legalization to TE (via topi), its purity and
 * its Python signature. op_registry.c expands the list into one table indexed by
 * rlx_op_id_t (relax.h) and a hashed name lookup; this header declares the inference and
 * legalization functions the list names (defined in op_basic*.c, op_nn*.c, op_memory.c).
 *
 * Conventions (TVM's): attrs use TVM's names and order (axis, keepdims, axes, strides,
 * padding, dilation, groups, data_layout, ...), so the printer can print them generically as
 * key=value; positional args are Relax expressions (a shape argument is a ShapeExpr).
 */
#ifndef RLX_RELAX_OP_H
#define RLX_RELAX_OP_H

#include "relax.h"

/* The op's family: which file group implements it (op.def's FAMILY column). */
typedef enum { RLX_OP_FAMILY_BASIC, RLX_OP_FAMILY_NN, RLX_OP_FAMILY_MEMORY, RLX_OP_FAMILY_BRIDGE } rlx_op_family_t;

typedef struct rlx_op_def {
  rlx_op_id_t id;
  const char* name; /* "relax.add"; prints as R.add */
  rlx_op_family_t family;
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

/* The definition of op id (id < RLX_OP_COUNT). */
const rlx_op_def_t* rlx_op_get(rlx_op_id_t id);
/* The definition of the registered op name, or NULL when unknown; bridge ops (call_tir ...)
 * are not registered. Hashed; thread-safe; no allocation. */
const rlx_op_def_t* rlx_op_lookup(const char* name);
/* The same, bridge ops included (for Op nodes). */
const rlx_op_def_t* rlx_op_find(const char* name);
/* All registered ops in op.def order; *out_n gets the count (for listings and tests). */
void rlx_op_list(const rlx_op_def_t* const** out_defs, int* out_n);

/* A call of op id with args and attrs (attrs may be {0}); struct info is filled later by
 * normalization. */
rlx_relax_expr_t* rlx_relax_op_call(rlx_ctx_t* ctx, rlx_op_id_t id, int n_args, rlx_relax_expr_t* const* args,
                                    rlx_attrs_t attrs);
/* The same by name, for the C API and tests (an unknown name gives an Op without def). */
rlx_relax_expr_t* rlx_relax_op_call_named(rlx_ctx_t* ctx, const char* name, int n_args,
                                          rlx_relax_expr_t* const* args, rlx_attrs_t attrs);

/* The inference and legalization functions op.def names. */
#define RLX_OP(ID, NAME, FAMILY, INFER, LEGALIZE, PURITY, PARAMS)                            \
  RLX_MUST_USE rlx_status_t* INFER(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out); \
  RLX_MUST_USE rlx_status_t* LEGALIZE(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out);
#define RLX_OP_INFER_ONLY(ID, NAME, FAMILY, INFER, PURITY, PARAMS) \
  RLX_MUST_USE rlx_status_t* INFER(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out);
#define RLX_OP_BRIDGE(ID, NAME, PURITY)
#include "op.def"

#endif
