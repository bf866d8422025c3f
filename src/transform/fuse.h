/* Operator fusion helpers (TVM's OpPatternKind analysis and FuseTIR for one group), used by
 * the fuse_ops pass (which groups only what rlx_fuse_tir merges) and the fuse_tir pass, and
 * available to other passes (e.g. to ask whether a PrimFunc is elementwise).
 */
#ifndef RLX_TRANSFORM_FUSE_H
#define RLX_TRANSFORM_FUSE_H

#include "../relax/relax.h"

/* TVM's OpPatternKind, same numbering (the "op_pattern" PrimFunc attribute uses it). Larger
 * is less fusible; combining two patterns takes the max. */
typedef enum {
  RLX_PATTERN_ELEMWISE = 0,          /* out[i] = f(a[i], b[i]) */
  RLX_PATTERN_BROADCAST = 1,         /* loads index a subsequence of the output indices */
  RLX_PATTERN_INJECTIVE = 2,         /* any other index map (transpose, reshape, concat) */
  RLX_PATTERN_COMM_REDUCE = 3,       /* has reduce iter vars (sum, max ...) */
  RLX_PATTERN_OUT_EWISE_FUSABLE = 4, /* multiply-accumulate contraction (matmul, conv) */
  RLX_PATTERN_TUPLE = 7,
  RLX_PATTERN_OPAQUE = 8 /* anything the analysis does not understand */
} rlx_op_pattern_t;

/* "elemwise", "broadcast", "injective", "reduce", "out_ewise_fusable", "tuple", "opaque". */
const char* rlx_op_pattern_name(rlx_op_pattern_t p);

/* The pattern of a PrimFunc in block form (as TE makes them), from its blocks: each block
 * whose body is one store at its spatial iter vars is elementwise when every load uses the
 * same indices, broadcast when each load's indices are a subsequence of them (unit dims
 * indexed by 0 skipped), injective otherwise; a block with reduce iter vars is a reduction,
 * or out_ewise_fusable when its update is C[v] = C[v] + X * Y. The function's pattern is the
 * max over its blocks. An "op_pattern" attribute (TVM's numbering) wins; a scheduled function
 * ("tir.is_scheduled"), one without blocks, with a block of another shape, or with a strided
 * or offset param buffer is opaque. */
rlx_op_pattern_t rlx_tir_func_pattern(const rlx_tir_func_t* f);

/* One call of a fusion group, in binding order: var = R.call_tir(func, (args...),
 * out_sinfo=..., tir_vars=R.shape([...])) with a single tensor output (shape known). */
typedef struct {
  const rlx_tir_func_t* func;
  int n_args;
  rlx_relax_expr_t* const* args; /* Relax args, each a Tensor with a known shape */
  rlx_relax_var_t* var;          /* the binding var (intermediate or group result) */
  rlx_sinfo_t* out_sinfo;
  int n_tir_vars;
  rlx_expr_t* const* tir_vars; /* Relax PrimExprs for the func's trailing scalar params */
} rlx_fuse_member_t;

/* TVM's FuseTIR for one group: one private PrimFunc named name that computes what the chain
 * of members computes. Params: the group's external inputs (Relax args that are not the var
 * of an earlier member, deduplicated by identity, in first-use order), then the result of
 * the last member. Intermediates become alloc_buffers of the root block; member bodies are
 * copied with fresh loop/iter vars and buffers (a PrimFunc called twice appears twice),
 * block names made unique. Symbolic shape vars of the members are unified through the
 * callers' struct info: a member buffer dim that is a var takes the fused expression of the
 * Relax dim at that position, so vars of different members that stand for the same Relax
 * dim become one var (named after the Relax var); a member's scalar params take the fused
 * form of its tir_vars. Fused vars that no param buffer has as a whole dim become trailing
 * scalar params, to be passed as the fused call's tir_vars: *out_tir_vars (Relax vars, in
 * param order; *out_n_tir_vars of them, 0 = no tir_vars). *out_inputs (arena) gets the Relax
 * expressions to pass, *out_n_inputs their count. Errors (the caller leaves the group
 * unfused): param counts that do not match, unknown shapes, a dim var that cannot be bound,
 * a result that fails rlx_tir_verify. */
RLX_MUST_USE rlx_status_t* rlx_fuse_tir(rlx_ctx_t* ctx, int n_members, const rlx_fuse_member_t* members, const char* name,
                                        rlx_tir_func_t** out_func, int* out_n_inputs, rlx_relax_expr_t*** out_inputs,
                                        int* out_n_tir_vars, rlx_expr_t*** out_tir_vars);

#endif
