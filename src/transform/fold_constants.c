/* Pass fold_constants (TVM's FoldConstant, for call_tir).
 *
 * Requires: a well-formed module (after legalize_ops: computations are call_tir).
 * Produces: every binding `v = R.call_tir(f, (args...), out_sinfo=S)` whose args are all
 * Constants (given directly or as vars bound to a Constant earlier in the function), whose
 * tir_vars (if any) are constant, and whose S is one tensor of static shape with at most
 * 16M elements, and whose PrimFunc runs at most 32M statements (constant loop extents),
 * becomes `v = R.const(...)`: f is run at compile time by the TIR reference
 * interpreter, or, when it would run more than 4M statements and the driver installed a
 * runner (the pass context's fold_runner: the C backend), as compiled code; then the limits are 256M
 * elements and no statement limit. Folding repeats down chains (a folded var feeds the next call). Dataflow
 * bindings of a Constant to a DataflowVar that nothing uses any more are removed, and
 * PrimFuncs no longer called from any Relax function are dropped from the module (the
 * module is rebuilt without them). A call the interpreter cannot run is left as it is.
 */
#include <stdlib.h>
#include <string.h>

#include "../tir/interp.h"
#include "fold.h"
#include "pass_util.h"

/* Limits: output elements, and innermost statement executions the interpreter would run
 * (about 0.1 us each), so a constant matmul of large weights is not folded for minutes;
 * above FOLD_COMPILED_WORK a call runs compiled when a runner is installed (compiling costs
 * a C compiler run, about 0.2 s, cached by source hash), up to FOLD_MAX_ELEMS_COMPILED. */
enum { FOLD_MAX_ELEMS = 16 * 1024 * 1024, FOLD_MAX_ELEMS_COMPILED = 256 * 1024 * 1024 };
static const double FOLD_MAX_WORK = 32.0 * 1024 * 1024;
static const double FOLD_COMPILED_WORK = 4.0 * 1024 * 1024;



typedef struct {
  rlx_ctx_t* ctx;
  rlx_module_t* m;
  rlx_ptrmap_t consts; /* var → Constant it is bound to */
  rlx_ptrmap_t uses;   /* var → use count (intptr) */
} fc_t;

static DLTensor dl_of(void* data, rlx_dtype_t t, int ndim, int64_t* shape) {
  DLTensor d;
  memset(&d, 0, sizeof(d));
  d.data = data;
  d.device.device_type = kDLCPU;
  d.ndim = ndim;
  d.dtype.code = t.code;
  d.dtype.bits = t.bits;
  d.dtype.lanes = t.lanes;
  d.shape = shape;
  return d;
}

bool rlx_fold_static_shape(rlx_ctx_t* ctx, const rlx_sinfo_t* s, int64_t max_elems, int64_t** out_shape,
                           int64_t* out_numel) {
  if (!s || s->kind != RLX_SINFO_TENSOR) return false;
  const rlx_sinfo_tensor_t* t = (const rlx_sinfo_tensor_t*)s;
  if (!t->shape || rlx_dtype_is_void(t->dtype)) return false;
  int64_t* shape = RLX_NEW_ARRAY(ctx, int64_t, t->ndim);
  int64_t numel = 1;
  for (int d = 0; d < t->ndim; d++) {
    if (!rlx_expr_is_const_int(t->shape[d], &shape[d]) || shape[d] < 0) return false;
    if (shape[d] > 0 && numel > max_elems / shape[d]) return false;
    numel *= shape[d];
  }
  *out_shape = shape;
  *out_numel = numel;
  return true;
}

RLX_MUST_USE rlx_status_t* rlx_fold_call_tir(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_relax_call_t* c,
                                             rlx_fold_const_fn_t const_of, void* user, const rlx_fold_limits_t* lim,
                                             rlx_relax_expr_t** out) {
  *out = NULL;
  rlx_tir_func_t* f = pass_call_tir_func(m, c);
  if (!f || c->args[1]->kind != RLX_RELAX_TUPLE || c->n_sinfo_args != 1) return NULL;
  rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)c->args[1];
  rlx_fold_runner_t runner = lim->runner;
  int64_t* oshape = NULL;
  int64_t numel = 0;
  int64_t bound = lim->max_elems_compiled > lim->max_elems ? lim->max_elems_compiled : lim->max_elems;
  if (!rlx_fold_static_shape(ctx, c->sinfo_args[0], bound, &oshape, &numel) ||
      numel > (runner ? lim->max_elems_compiled : lim->max_elems))
    return NULL;
  rlx_sinfo_tensor_t* ts = (rlx_sinfo_tensor_t*)c->sinfo_args[0];
  int n_tv = 0;
  rlx_relax_shape_expr_t* tv = NULL;
  if (c->n_args == 3) {
    if (c->args[2]->kind != RLX_RELAX_SHAPE_EXPR) return NULL;
    tv = (rlx_relax_shape_expr_t*)c->args[2];
    n_tv = tv->ndim;
  }
  int n = t->n_fields + 1 + n_tv;
  if (f->n_params != n) return NULL;

  DLTensor* dl = RLX_NEW_ARRAY(ctx, DLTensor, n);
  DLTensor** args = RLX_NEW_ARRAY(ctx, DLTensor*, n);
  for (int i = 0; i < t->n_fields; i++) {
    rlx_relax_constant_t* k = const_of(t->fields[i], user);
    if (!k) return NULL;
    dl[i] = dl_of(k->data, k->dtype, k->ndim, k->shape);
  }
  int64_t* tv_vals = RLX_NEW_ARRAY(ctx, int64_t, n_tv);
  for (int i = 0; i < n_tv; i++) {
    if (!rlx_expr_is_const_int(tv->values[i], &tv_vals[i])) return NULL;
    dl[t->n_fields + 1 + i] = dl_of(&tv_vals[i], rlx_dt_int64(), 0, NULL);
  }
  dl[t->n_fields] = dl_of(NULL, ts->dtype, ts->ndim, oshape); /* data below */
  /* the work limit, with the PrimFunc's shape vars and scalars bound */
  rlx_int_env_t env;
  memset(&env, 0, sizeof(env));
  for (int i = 0; i < n; i++) {
    rlx_tir_buffer_t* b = f->buffer_map[i];
    if (!b) {
      if (i > t->n_fields) rlx_int_env_set(&env, f->params[i], tv_vals[i - t->n_fields - 1]);
      continue;
    }
    if (b->ndim != dl[i].ndim) continue; /* the interpreter reports it */
    for (int d = 0; d < b->ndim; d++)
      if (b->shape[d]->kind == RLX_EXPR_VAR) rlx_int_env_set(&env, (rlx_var_t*)b->shape[d], dl[i].shape[d]);
  }
  double work = rlx_tir_interp_work(f->body, &env);
  rlx_int_env_free(&env);
  bool compiled = runner && (work < 0 || work > lim->compiled_work || numel > lim->max_elems);
  if (!compiled && (work < 0 || work > lim->max_work || (lim->work_left && work > *lim->work_left))) return NULL;
  size_t nbytes = (size_t)numel * (size_t)rlx_dtype_bytes(ts->dtype);
  void* data = calloc(1, nbytes ? nbytes : 1);
  if (!data) { /* the call stays, and the stage fails with out of memory (rlx_ctx_check) */
    rlx_alloc_failed();
    return NULL;
  }
  dl[t->n_fields].data = data;
  for (int i = 0; i < n; i++) args[i] = &dl[i];
  rlx_status_t* st = compiled ? runner(ctx, f, args, n) : rlx_tir_interpret(f, args, n);
  if (!compiled && lim->work_left) *lim->work_left -= work;
  if (st) { /* it cannot run here: leave the call (a failed allocation of the interpreter was
             * counted: the stage fails with out of memory) */
    rlx_status_free(st);
    free(data);
    return NULL;
  }
  rlx_relax_expr_t* k = rlx_relax_constant(ctx, ts->dtype, ts->ndim, oshape, data, nbytes);
  free(data);
  if (!k) return rlx_status_create(RLX_INTERNAL, "constant of %zu bytes could not be built", nbytes);
  RLX_RETURN_IF_ERROR(rlx_relax_normalize(ctx, m, k));
  *out = k;
  return NULL;
}

/* The Constant that e is or that var e is bound to earlier in the function. */
static rlx_relax_constant_t* as_const(rlx_relax_expr_t* e, void* user) {
  fc_t* z = user;
  if (e->kind == RLX_RELAX_CONSTANT) return (rlx_relax_constant_t*)e;
  if (rlx_relax_is_var(e)) return rlx_ptrmap_get(&z->consts, e);
  return NULL;
}

/* The folded Constant of call c, or NULL (*out) when it cannot be folded. */
static RLX_MUST_USE rlx_status_t* try_fold(fc_t* z, rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  rlx_fold_limits_t lim = {FOLD_MAX_ELEMS, FOLD_MAX_WORK, z->ctx->pass.fold_runner, FOLD_COMPILED_WORK,
                           FOLD_MAX_ELEMS_COMPILED, NULL};
  return rlx_fold_call_tir(z->ctx, z->m, c, as_const, z, &lim, out);
}

static void count_use(const rlx_relax_expr_t* e, void* user) {
  fc_t* z = user;
  if (!rlx_relax_is_var(e)) return;
  rlx_ptrmap_put(&z->uses, e, (void*)((intptr_t)rlx_ptrmap_get(&z->uses, e) + 1));
}

static RLX_MUST_USE rlx_status_t* fold_func(fc_t* z, const rlx_relax_func_t* f, rlx_relax_func_t** out) {
  rlx_ctx_t* ctx = z->ctx;
  *out = (rlx_relax_func_t*)f;
  if (f->body->kind != RLX_RELAX_SEQ) return NULL;
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
  rlx_relax_block_t** blocks = RLX_NEW_ARRAY(ctx, rlx_relax_block_t*, seq->n_blocks);
  bool changed = false;
  for (int i = 0; i < seq->n_blocks; i++) {
    rlx_relax_block_t* blk = seq->blocks[i];
    rlx_relax_binding_t** nb = RLX_NEW_ARRAY(ctx, rlx_relax_binding_t*, blk->n_bindings);
    bool bchanged = false;
    for (int k = 0; k < blk->n_bindings; k++) {
      rlx_relax_binding_t* b = blk->bindings[k];
      nb[k] = b;
      if (b->kind != RLX_BINDING_VAR) continue;
      rlx_relax_expr_t* v = b->value;
      if (v->kind == RLX_RELAX_CALL) {
        rlx_relax_expr_t* folded = NULL;
        RLX_RETURN_IF_ERROR(
            rlx_status_annotate(try_fold(z, (rlx_relax_call_t*)v, &folded), "binding '%s'", b->var->name));
        if (folded) {
          nb[k] = rlx_relax_var_binding(ctx, b->var, folded);
          v = folded;
          bchanged = true;
        }
      }
      if (v->kind == RLX_RELAX_CONSTANT) rlx_ptrmap_put(&z->consts, b->var, v);
    }
    blocks[i] = bchanged ? rlx_relax_block(ctx, blk->is_dataflow, blk->n_bindings, nb) : blk;
    changed |= bchanged;
  }
  if (!changed) return NULL;
  /* drop dataflow bindings of constants nothing uses any more */
  rlx_relax_expr_t* body = rlx_relax_seq(ctx, seq->n_blocks, blocks, seq->body);
  memset(&z->uses, 0, sizeof(z->uses));
  rlx_relax_expr_visit(body, count_use, z);
  for (int i = 0; i < seq->n_blocks; i++) {
    rlx_relax_block_t* blk = blocks[i];
    rlx_relax_binding_t** nb = RLX_NEW_ARRAY(ctx, rlx_relax_binding_t*, blk->n_bindings);
    int m = 0;
    for (int k = 0; k < blk->n_bindings; k++) {
      rlx_relax_binding_t* b = blk->bindings[k];
      bool dead = blk->is_dataflow && b->var->hdr.kind == RLX_RELAX_DATAFLOW_VAR &&
                  b->value->kind == RLX_RELAX_CONSTANT && !rlx_ptrmap_get(&z->uses, b->var);
      if (!dead) nb[m++] = b;
    }
    if (m != blk->n_bindings) blocks[i] = rlx_relax_block(ctx, true, m, nb);
  }
  rlx_ptrmap_free(&z->uses);
  /* empty blocks are dropped, as TVM's normalizer does */
  int nb = 0;
  for (int i = 0; i < seq->n_blocks; i++)
    if (blocks[i]->n_bindings) blocks[nb++] = blocks[i];
  body = rlx_relax_seq(ctx, nb, blocks, seq->body);
  return pass_func_with_body(ctx, z->m, f, body, out);
}

RLX_MUST_USE rlx_status_t* rlx_pass_fold_constants(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out) {
  rlx_module_t* m = pass_module_copy(ctx, in);
  fc_t z;
  memset(&z, 0, sizeof(z));
  z.ctx = ctx;
  z.m = m;
  for (int i = 0; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != RLX_FUNC_RELAX) continue;
    rlx_relax_func_t* nf = NULL;
    rlx_status_t* st = fold_func(&z, m->funcs[i].func, &nf);
    rlx_ptrmap_free(&z.consts);
    memset(&z.consts, 0, sizeof(z.consts));
    if (st) return rlx_status_annotate(st, "fold_constants: function '%s'", m->funcs[i].name);
    m->funcs[i].func = nf;
  }
  *out = pass_module_drop_dead_tir(ctx, in, m);
  return NULL;
}
