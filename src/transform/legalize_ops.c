/* Pass legalize_ops (TVM's LegalizeOps).
 *
 * Requires: a well-formed module whose high-level op calls (R.add, R.matmul, R.nn.conv2d ...)
 * have known argument shapes where their legalization needs them.
 * Produces: every Call of a registered op that has a legalize function is replaced by what
 * that function returns (an R.call_tir of a TE PrimFunc made with rlx_bb_call_te), binding by
 * binding: each binding keeps its var (name and identity); nested operands of a returned
 * expression are bound to fresh vars just before it. New PrimFuncs are added to the module
 * (structurally equal ones are shared: the BlockBuilder deduplicates). Calls of call_tir,
 * call_dps_packed, call_pure_packed, of ops without a legalize function (builtins), of
 * functions and of extern functions stay as they are. Declared return struct info, params,
 * attributes and purity of every function are kept.
 * Errors: an unknown op names the op, the function and the binding; a legalization error
 * is annotated the same way.
 * Note for op authors: a legalize function should return an expression (call_te) and not
 * emit bindings itself, because calls inside If branches are legalized in place.
 */
#include <string.h>

#include "../relax/op.h"
#include "pass.h"
#include "pass_util.h"

typedef struct {
  rlx_bb_t* bb;
  rlx_module_t* m;
  const char* fname;
  const char* where; /* "binding lv0" / "the function result" */
} lg_t;

static bool is_bridge_op(rlx_op_id_t id) {
  return id == RLX_OP_CALL_TIR || id == RLX_OP_CALL_DPS_PACKED || id == RLX_OP_CALL_PURE_PACKED;
}

/* Post-order callback: legalizes one call (its operands are already legalized). */
static RLX_MUST_USE rlx_status_t* lg_expr(rlx_ctx_t* ctx, rlx_relax_expr_t* e, void* user, rlx_relax_expr_t** out) {
  lg_t* lg = user;
  *out = e;
  if (e->kind != RLX_RELAX_CALL) return NULL;
  rlx_relax_call_t* c = (rlx_relax_call_t*)e;
  if (c->op->kind != RLX_RELAX_OP) return NULL;
  const char* name = ((rlx_relax_op_t*)c->op)->name;
  if (is_bridge_op(rlx_relax_call_op_id(c))) return NULL;
  const rlx_op_def_t* def = ((rlx_relax_op_t*)c->op)->def;
  if (def && def->family == RLX_OP_FAMILY_BRIDGE) def = NULL; /* print, assert_op ...: not legalizable */
  if (!def)
    return rlx_status_create(RLX_NOT_FOUND, "legalize_ops: function '%s', %s: unknown op '%s'", lg->fname, lg->where,
                             name);
  if (!def->legalize) return NULL;
  rlx_status_t* st = rlx_relax_normalize(ctx, lg->m, e); /* a rebuilt call has no struct info yet */
  rlx_relax_expr_t* r = NULL;
  if (!st) st = def->legalize(lg->bb, c, &r);
  if (!st && !r) st = rlx_status_create(RLX_INTERNAL, "the legalize function returned nothing");
  if (!st) st = rlx_relax_normalize(ctx, lg->m, r);
  if (st) return rlx_status_annotate(st, "legalize_ops: function '%s', %s: op '%s'", lg->fname, lg->where, name);
  *out = r;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* legalize_binding(lg_t* lg, rlx_ctx_t* ctx, rlx_relax_binding_t* b) {
  lg->where = rlx_ctx_sprintf(ctx, "binding '%s'", b->var->name);
  rlx_relax_expr_t* v = NULL;
  RLX_RETURN_IF_ERROR(rlx_relax_expr_transform(ctx, b->value, lg_expr, lg, &v));
  if (v == b->value) return rlx_bb_emit_binding(lg->bb, b);
  RLX_RETURN_IF_ERROR(rlx_bb_bind_operands(lg->bb, v, &v)); /* what a legalization returned can need it */
  rlx_relax_binding_t* nb = b->kind == RLX_BINDING_MATCH_CAST ? rlx_relax_match_cast(ctx, b->var, v, b->sinfo)
                                                              : rlx_relax_var_binding(ctx, b->var, v);
  return rlx_bb_emit_binding(lg->bb, nb);
}

static RLX_MUST_USE rlx_status_t* legalize_func(rlx_ctx_t* ctx, rlx_bb_t* bb, rlx_module_t* m, const char* name,
                                                const rlx_relax_func_t* f, rlx_relax_func_t** out) {
  if (f->body->kind != RLX_RELAX_SEQ)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "legalize_ops: function '%s': body is not a SeqExpr (normalize it)",
                             name);
  lg_t lg = {bb, m, name, NULL};
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
  rlx_relax_var_t* none[1] = {NULL}; /* params given at begin, even when there are none */
  RLX_RETURN_IF_ERROR(rlx_bb_function_begin(bb, name, f->n_params, f->n_params ? f->params : none));
  RLX_RETURN_IF_ERROR(rlx_bb_function_set_pure(bb, f->is_pure));
  for (int i = 0; i < seq->n_blocks; i++) {
    rlx_relax_block_t* blk = seq->blocks[i];
    if (blk->is_dataflow) RLX_RETURN_IF_ERROR(rlx_bb_dataflow_begin(bb));
    for (int k = 0; k < blk->n_bindings; k++) RLX_RETURN_IF_ERROR(legalize_binding(&lg, ctx, blk->bindings[k]));
    if (blk->is_dataflow) RLX_RETURN_IF_ERROR(rlx_bb_dataflow_end(bb));
  }
  lg.where = "the function result";
  rlx_relax_expr_t* body = NULL;
  RLX_RETURN_IF_ERROR(rlx_relax_expr_transform(ctx, seq->body, lg_expr, &lg, &body));
  RLX_RETURN_IF_ERROR(rlx_bb_emit_func_output(bb, body, 0, NULL));
  rlx_relax_func_t* built = NULL;
  RLX_RETURN_IF_ERROR(rlx_bb_function_finish(bb, &built));
  /* keep the declared signature and attributes of the original */
  return pass_func_with_body(ctx, m, f, built->body, out);
}

RLX_MUST_USE rlx_status_t* rlx_pass_legalize_ops(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out) {
  rlx_module_t* m = pass_module_copy(ctx, in);
  rlx_bb_t* bb = rlx_bb_create(ctx, m);
  int n = in->n_funcs; /* legalization appends PrimFuncs; only the original functions are visited */
  for (int i = 0; i < n; i++) {
    if (m->funcs[i].kind != RLX_FUNC_RELAX) continue;
    const char* name = m->funcs[i].name;
    rlx_relax_func_t* nf = NULL;
    RLX_RETURN_IF_ERROR(legalize_func(ctx, bb, m, name, m->funcs[i].func, &nf));
    rlx_module_set(m, name, RLX_FUNC_RELAX, nf);
  }
  *out = m;
  return NULL;
}
