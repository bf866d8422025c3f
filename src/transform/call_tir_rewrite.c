/* Pass call_tir_rewrite: explicit output allocation for the destination-passing calls
 * (TVM's ToNonDataflow + CallTIRRewrite, with RemovePurityChecking's force_pure marking).
 *
 * Requires: a well-formed module whose call_tir / call_dps_packed outputs have known shapes
 * and dtypes (R.Tensor((n, 4), "float32"), or a Tuple of such).
 *
 * Produces, in every Relax function (nested functions and If branches included):
 * - no dataflow blocks: each becomes an ordinary binding block, its DataflowVars plain Vars
 *   (same names and struct info);
 * - for `lv = R.call_tir(gv, (a, b), out_sinfo=S[, tir_vars])`:
 *     alloc = R.builtin.alloc_tensor(R.shape(S.shape), R.dtype(S.dtype), R.prim_value(0))
 *     _ = gv(a, b, alloc[, tir_vars])          (struct info R.Tuple(): void)
 *   and later uses of lv refer to alloc; for a Tuple out_sinfo one alloc per field, and
 *   `lv = (alloc, alloc1)` keeps lv. When the argument tuple is not a Tuple literal it is
 *   passed as one argument (TVM does the same);
 * - for `lv = R.call_dps_packed("f", (a,), out_sinfo=S)`: the same with
 *   `_ = R.ExternFunc("f")(a, alloc)`;
 * - every pure function gets the attribute relax.force_pure = True (TVM's
 *   RemovePurityChecking): the DPS calls write their outputs in place and are impure, and
 *   plan_memory adds impure kill_* calls. The function stays pure from its callers' view.
 * A call_tir nested inside another expression (not normalized) is emitted just before the
 * binding that contains it; one inside an If branch stays in that branch.
 * Errors: an output without a known shape or dtype, naming the binding. */
#include <string.h>

#include "../relax/op.h"
#include "pass.h"
#include "pass_util.h"

typedef struct {
  rlx_ctx_t* ctx;
  rlx_module_t* m;
  rlx_ptrmap_t vmap; /* old var → replacement expression */
  RLX_VEC(rlx_relax_binding_t*) out; /* bindings of the block being built */
  const char* binding;               /* name of the binding being rewritten (messages) */
} rw_t;

static RLX_MUST_USE rlx_status_t* rewrite(rw_t* w, rlx_relax_expr_t* e, rlx_relax_expr_t** out);

static rlx_relax_var_t* emit(rw_t* w, const char* name, rlx_relax_expr_t* value, rlx_sinfo_t* sinfo) {
  rlx_relax_var_t* v = rlx_relax_var(w->ctx, name, sinfo);
  rlx_vec_push(&w->out, rlx_relax_var_binding(w->ctx, v, value));
  return v;
}

static RLX_MUST_USE rlx_status_t* emit_alloc(rw_t* w, rlx_sinfo_t* s, int field, rlx_relax_var_t** out) {
  rlx_ctx_t* ctx = w->ctx;
  rlx_sinfo_tensor_t* t = s && s->kind == RLX_SINFO_TENSOR ? (rlx_sinfo_tensor_t*)s : NULL;
  if (!t || !t->shape || rlx_dtype_is_void(t->dtype)) {
    rlx_status_t* st = rlx_status_create(RLX_INVALID_ARGUMENT,
                                         "output %d of the DPS call has struct info %s; a known "
                                         "shape and dtype are needed to allocate it",
                                         field, rlx_sinfo_str(ctx, s));
    return w->binding ? rlx_status_annotate(st, "binding %s", w->binding) : st;
  }
  rlx_relax_expr_t* args[3] = {rlx_relax_shape_expr(ctx, t->ndim, t->shape), rlx_relax_dtype_imm(ctx, t->dtype),
                               rlx_relax_prim_value(ctx, rlx_ir_i64(ctx, 0))};
  rlx_relax_expr_t* call = rlx_relax_op_call(ctx, RLX_OP_BUILTIN_ALLOC_TENSOR, 3, args, (rlx_attrs_t){0});
  RLX_RETURN_IF_ERROR(rlx_relax_normalize(ctx, w->m, call));
  *out = emit(w, "alloc", call, call->sinfo);
  return NULL;
}

/* c: a call_tir / call_dps_packed whose children are already rewritten. Emits the
 * allocations and the DPS call; *out gets the value that replaces c. */
static RLX_MUST_USE rlx_status_t* lower_dps(rw_t* w, rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = w->ctx;
  if (c->n_args < 2 || c->n_sinfo_args != 1)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "call_tir_rewrite: malformed %s",
                             rlx_relax_expr_brief(ctx, &c->hdr));
  rlx_sinfo_t* os = c->sinfo_args[0];
  int n_out = os->kind == RLX_SINFO_TUPLE ? ((rlx_sinfo_tuple_t*)os)->n_fields : 1;
  rlx_relax_var_t** allocs = RLX_NEW_ARRAY(ctx, rlx_relax_var_t*, n_out);
  for (int i = 0; i < n_out; i++)
    RLX_RETURN_IF_ERROR(emit_alloc(w, os->kind == RLX_SINFO_TUPLE ? ((rlx_sinfo_tuple_t*)os)->fields[i] : os, i,
                                   &allocs[i]));
  rlx_relax_expr_t* callee = c->args[0];
  rlx_relax_expr_t* in = c->args[1];
  int n_in = in->kind == RLX_RELAX_TUPLE ? ((rlx_relax_tuple_t*)in)->n_fields : 1;
  int n_extra = c->n_args > 2 ? 1 : 0; /* tir_vars */
  int n = n_in + n_out + n_extra;
  rlx_relax_expr_t** args = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n);
  for (int i = 0; i < n_in; i++) args[i] = in->kind == RLX_RELAX_TUPLE ? ((rlx_relax_tuple_t*)in)->fields[i] : in;
  for (int i = 0; i < n_out; i++) args[n_in + i] = &allocs[i]->hdr;
  if (n_extra) args[n - 1] = c->args[2];
  rlx_relax_expr_t* call = rlx_relax_call(ctx, callee, n, args, (rlx_attrs_t){0}, 0, NULL);
  rlx_sinfo_t* void_sinfo = rlx_sinfo_tuple(ctx, 0, NULL);
  call->sinfo = void_sinfo; /* a DPS call returns nothing (TVM: R.Tuple()) */
  emit(w, "_", call, void_sinfo);
  if (n_out == 1) {
    *out = &allocs[0]->hdr;
    return NULL;
  }
  rlx_relax_expr_t** fields = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n_out);
  for (int i = 0; i < n_out; i++) fields[i] = &allocs[i]->hdr;
  *out = rlx_relax_tuple(ctx, n_out, fields);
  return rlx_relax_normalize(ctx, w->m, *out);
}

static bool is_dps_call(const rlx_relax_expr_t* e) {
  if (!e || e->kind != RLX_RELAX_CALL) return false;
  const rlx_relax_call_t* c = (const rlx_relax_call_t*)e;
  return rlx_relax_is_op(c->op, RLX_OP_CALL_TIR) || rlx_relax_is_op(c->op, RLX_OP_CALL_DPS_PACKED);
}

/* e evaluated in a scope of its own (an If branch): bindings it emits go into a SeqExpr. */
static RLX_MUST_USE rlx_status_t* rewrite_scoped(rw_t* w, rlx_relax_expr_t* e, rlx_relax_expr_t** out) {
  RLX_VEC(rlx_relax_binding_t*) saved = {w->out.data, w->out.len, w->out.cap};
  memset(&w->out, 0, sizeof(w->out));
  rlx_relax_expr_t* v = NULL;
  rlx_status_t* st = rewrite(w, e, &v);
  if (!st && w->out.len) {
    rlx_relax_block_t* blk = rlx_relax_block(w->ctx, false, w->out.len, w->out.data);
    v = rlx_relax_seq(w->ctx, 1, &blk, v);
  }
  rlx_vec_free(&w->out);
  w->out.data = saved.data;
  w->out.len = saved.len;
  w->out.cap = saved.cap;
  *out = v;
  return st;
}

static RLX_MUST_USE rlx_status_t* rewrite_binding(rw_t* w, rlx_relax_binding_t* b) {
  rlx_ctx_t* ctx = w->ctx;
  w->binding = b->var->name;
  rlx_relax_expr_t* value = NULL;
  bool direct_dps = is_dps_call(b->value);
  RLX_RETURN_IF_ERROR(rewrite(w, b->value, &value));
  w->binding = NULL;
  if (direct_dps && b->kind == RLX_BINDING_VAR && rlx_relax_is_var(value)) {
    rlx_ptrmap_put(&w->vmap, b->var, value); /* lv's uses now refer to alloc */
    return NULL;
  }
  rlx_relax_var_t* var = b->var;
  if (var->hdr.kind == RLX_RELAX_DATAFLOW_VAR) {
    var = rlx_relax_var(ctx, b->var->name, b->var->hdr.sinfo);
    rlx_ptrmap_put(&w->vmap, b->var, &var->hdr);
  }
  if (var == b->var && value == b->value) {
    rlx_vec_push(&w->out, b);
    return NULL;
  }
  rlx_vec_push(&w->out, b->kind == RLX_BINDING_MATCH_CAST ? rlx_relax_match_cast(ctx, var, value, b->sinfo)
                                                          : rlx_relax_var_binding(ctx, var, value));
  return NULL;
}

static RLX_MUST_USE rlx_status_t* rewrite_seq(rw_t* w, rlx_relax_seq_t* s, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = w->ctx;
  RLX_VEC(rlx_relax_binding_t*) saved = {w->out.data, w->out.len, w->out.cap};
  RLX_VEC(rlx_relax_block_t*) blocks = {0};
  rlx_status_t* st = NULL;
  bool changed = false;
  for (int bi = 0; bi < s->n_blocks && !st; bi++) {
    rlx_relax_block_t* blk = s->blocks[bi];
    memset(&w->out, 0, sizeof(w->out));
    for (int k = 0; k < blk->n_bindings && !st; k++) st = rewrite_binding(w, blk->bindings[k]);
    bool same = !blk->is_dataflow && w->out.len == blk->n_bindings;
    for (int k = 0; same && k < blk->n_bindings; k++) same = w->out.data[k] == blk->bindings[k];
    rlx_vec_push(&blocks, same ? blk : rlx_relax_block(ctx, false, w->out.len, w->out.data));
    changed |= !same;
    rlx_vec_free(&w->out);
  }
  rlx_relax_expr_t* body = NULL;
  if (!st) {
    memset(&w->out, 0, sizeof(w->out));
    st = rewrite(w, s->body, &body);
    if (w->out.len) rlx_vec_push(&blocks, rlx_relax_block(ctx, false, w->out.len, w->out.data));
    changed |= w->out.len > 0 || body != s->body;
    rlx_vec_free(&w->out);
  }
  if (!st) *out = changed ? rlx_relax_seq(ctx, blocks.len, blocks.data, body) : &s->hdr;
  rlx_vec_free(&blocks);
  w->out.data = saved.data;
  w->out.len = saved.len;
  w->out.cap = saved.cap;
  return st;
}

static rlx_attrs_t force_pure_attrs(rlx_ctx_t* ctx, const rlx_relax_func_t* f) {
  if (!f->is_pure) return f->attrs;
  const rlx_attr_t* fp = rlx_attrs_get(&f->attrs, "relax.force_pure");
  if (fp && fp->kind == RLX_ATTR_BOOL && fp->u.b) return f->attrs;
  return rlx_attrs_set(ctx, f->attrs, "relax.force_pure", rlx_attr_bool(true));
}

static RLX_MUST_USE rlx_status_t* rewrite_func(rw_t* w, rlx_relax_func_t* f, rlx_relax_func_t** out) {
  rlx_relax_expr_t* body = NULL;
  RLX_RETURN_IF_ERROR(rewrite_scoped(w, f->body, &body));
  rlx_attrs_t attrs = force_pure_attrs(w->ctx, f);
  if (body == f->body && attrs.items == f->attrs.items) {
    *out = f;
    return NULL;
  }
  *out = rlx_relax_func(w->ctx, f->n_params, f->params, body, f->ret_sinfo, attrs, f->is_pure);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* rewrite(rw_t* w, rlx_relax_expr_t* e, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = w->ctx;
  *out = e;
  switch (e->kind) {
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR: {
      rlx_relax_expr_t* r = rlx_ptrmap_get(&w->vmap, e);
      if (r) *out = r;
      return NULL;
    }
    case RLX_RELAX_CONSTANT:
    case RLX_RELAX_SHAPE_EXPR:
    case RLX_RELAX_PRIM_VALUE:
    case RLX_RELAX_STRING_IMM:
    case RLX_RELAX_DATA_TYPE_IMM:
    case RLX_RELAX_OP:
    case RLX_RELAX_GLOBAL_VAR:
    case RLX_RELAX_EXTERN_FUNC:
      return NULL;
    case RLX_RELAX_SEQ: return rewrite_seq(w, (rlx_relax_seq_t*)e, out);
    case RLX_RELAX_FUNCTION: {
      rlx_relax_func_t* f = NULL;
      RLX_RETURN_IF_ERROR(rewrite_func(w, (rlx_relax_func_t*)e, &f));
      *out = &f->hdr;
      return NULL;
    }
    case RLX_RELAX_IF: {
      rlx_relax_if_t* i = (rlx_relax_if_t*)e;
      rlx_relax_expr_t* kids[3];
      RLX_RETURN_IF_ERROR(rewrite(w, i->cond, &kids[0]));
      RLX_RETURN_IF_ERROR(rewrite_scoped(w, i->then_branch, &kids[1]));
      RLX_RETURN_IF_ERROR(rewrite_scoped(w, i->else_branch, &kids[2]));
      *out = rlx_relax_expr_rebuild(ctx, e, kids);
      return NULL;
    }
    case RLX_RELAX_TUPLE:
    case RLX_RELAX_TUPLE_GET_ITEM:
    case RLX_RELAX_CALL: {
      int n = rlx_relax_expr_children(e, NULL, 0);
      rlx_relax_expr_t** kids = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n);
      rlx_relax_expr_children(e, kids, n);
      for (int k = 0; k < n; k++) RLX_RETURN_IF_ERROR(rewrite(w, kids[k], &kids[k]));
      rlx_relax_expr_t* r = rlx_relax_expr_rebuild(ctx, e, kids);
      if (r != e) RLX_RETURN_IF_ERROR(rlx_relax_normalize(ctx, w->m, r));
      if (is_dps_call(r)) return lower_dps(w, (rlx_relax_call_t*)r, out);
      *out = r;
      return NULL;
    }
    case RLX_RELAX_KIND_COUNT: break;
  }
  return rlx_status_create(RLX_INTERNAL, "call_tir_rewrite: bad expression kind %d", (int)e->kind);
}

static RLX_MUST_USE rlx_status_t* rewrite_entry(void* user, rlx_relax_func_t* f, rlx_relax_func_t** out) {
  return rewrite_func(user, f, out);
}

RLX_MUST_USE rlx_status_t* rlx_pass_call_tir_rewrite(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out) {
  rlx_module_t* m = pass_module_copy(ctx, in);
  rw_t w;
  memset(&w, 0, sizeof(w));
  w.ctx = ctx;
  w.m = m;
  rlx_status_t* st = pass_map_relax_funcs(ctx, m, "call_tir_rewrite", rewrite_entry, &w);
  rlx_ptrmap_free(&w.vmap);
  rlx_vec_free(&w.out);
  if (st) return st;
  *out = m;
  return NULL;
}
