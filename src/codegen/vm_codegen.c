/* Relax → VM bytecode (TVM's CodeGenVM): one register per bound var, one call instruction
 * per binding, constants into the pool. Input contract in vm_build.h. */
#include <string.h>

#include "vm_codegen.h"

typedef struct {
  rlx_ctx_t* ctx;
  rlx_module_t* m;
  rlx_vm_exec_t* e;
  const char* fname;
  int n_regs;
  rlx_ptrmap_t regs;   /* rlx_relax_var_t* → reg + 1 */
  rlx_ptrmap_t consts; /* rlx_relax_constant_t* → const index + 1 */
  rlx_ptrmap_t funcs;  /* module name (arena string) → func index + 1, VM functions */
} cg_t;

static RLX_MUST_USE rlx_status_t* unsupported(cg_t* g, const rlx_relax_expr_t* e, const char* why) {
  return rlx_status_create(RLX_UNSUPPORTED, "vm codegen: function '%s': %s: %s", g->fname,
                           rlx_relax_expr_brief(g->ctx, e), why);
}

static DLDataType dl(rlx_dtype_t t) { return rlx_dldtype(t.code, t.bits, t.lanes); }

static int new_reg(cg_t* g) { return g->n_regs++; }

static int packed(cg_t* g, const char* name) { return rlx_vm_exec_add_packed(g->e, name, NULL); }

static void call(cg_t* g, int dst, int func, int n, const rlx_vm_arg_t* args) {
  rlx_vm_exec_emit_call(g->e, dst, func, n, args);
}

static RLX_MUST_USE rlx_status_t* compile_into(cg_t* g, rlx_relax_expr_t* e, int dst);

static RLX_MUST_USE rlx_status_t* var_reg(cg_t* g, const rlx_relax_expr_t* v, int* out) {
  intptr_t r = (intptr_t)rlx_ptrmap_get(&g->regs, v);
  if (!r) return unsupported(g, v, "variable used before it is bound");
  *out = (int)r - 1;
  return NULL;
}

/* An argument: registers for vars, immediates and constants where possible, else the
 * value is computed into a fresh register. */
static RLX_MUST_USE rlx_status_t* arg_of(cg_t* g, rlx_relax_expr_t* e, rlx_vm_arg_t* out) {
  switch (e->kind) {
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR: {
      int r = 0;
      RLX_RETURN_IF_ERROR(var_reg(g, e, &r));
      *out = rlx_vm_reg(r);
      return NULL;
    }
    case RLX_RELAX_CONSTANT: {
      intptr_t k = (intptr_t)rlx_ptrmap_get(&g->consts, e);
      if (!k) {
        rlx_relax_constant_t* c = (rlx_relax_constant_t*)e;
        k = rlx_vm_exec_add_tensor(g->e, dl(c->dtype), c->ndim, c->shape, c->data, c->nbytes) + 1;
        rlx_ptrmap_put(&g->consts, e, (void*)k);
      }
      *out = rlx_vm_const(k - 1);
      return NULL;
    }
    case RLX_RELAX_PRIM_VALUE: {
      rlx_expr_t* v = ((rlx_relax_prim_value_t*)e)->value;
      if (v->kind == RLX_EXPR_INT_IMM) {
        *out = rlx_vm_imm(((rlx_int_imm_t*)v)->value);
        return NULL;
      }
      if (v->kind == RLX_EXPR_FLOAT_IMM) {
        *out = rlx_vm_const(rlx_vm_exec_add_float(g->e, ((rlx_float_imm_t*)v)->value));
        return NULL;
      }
      return unsupported(g, e, "a symbolic PrimValue (run lower_shapes)");
    }
    case RLX_RELAX_STRING_IMM:
      *out = rlx_vm_const(rlx_vm_exec_add_str(g->e, ((rlx_relax_string_imm_t*)e)->value));
      return NULL;
    case RLX_RELAX_DATA_TYPE_IMM:
      *out = rlx_vm_const(rlx_vm_exec_add_dtype(g->e, dl(((rlx_relax_dtype_imm_t*)e)->value)));
      return NULL;
    case RLX_RELAX_GLOBAL_VAR: { /* a VM function passed to a builtin (vm.builtin.loop's body) */
      rlx_module_entry_t* ent = rlx_module_find(g->m, ((rlx_relax_global_var_t*)e)->name);
      intptr_t f = ent ? (intptr_t)rlx_ptrmap_get(&g->funcs, ent->name) : 0;
      if (!f) return unsupported(g, e, "only Relax functions of the module can be passed as values");
      *out = rlx_vm_func(f - 1);
      return NULL;
    }
    case RLX_RELAX_TUPLE:
    case RLX_RELAX_TUPLE_GET_ITEM:
    case RLX_RELAX_SHAPE_EXPR:
    case RLX_RELAX_OP:
    case RLX_RELAX_CALL:
    case RLX_RELAX_IF:
    case RLX_RELAX_SEQ:
    case RLX_RELAX_FUNCTION:
    case RLX_RELAX_EXTERN_FUNC:
    case RLX_RELAX_KIND_COUNT: break; /* computed into a register below */
  }
  int r = new_reg(g);
  RLX_RETURN_IF_ERROR(compile_into(g, e, r));
  *out = rlx_vm_reg(r);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* args_of(cg_t* g, int n, rlx_relax_expr_t* const* es, rlx_vm_arg_t* out) {
  for (int i = 0; i < n; i++) RLX_RETURN_IF_ERROR(arg_of(g, es[i], &out[i]));
  return NULL;
}

/* A call of a packed function `func` with the expressions as arguments. */
static RLX_MUST_USE rlx_status_t* call_exprs(cg_t* g, int dst, int func, int n, rlx_relax_expr_t* const* es) {
  rlx_vm_arg_t* a = RLX_NEW_ARRAY(g->ctx, rlx_vm_arg_t, n);
  RLX_RETURN_IF_ERROR(args_of(g, n, es, a));
  call(g, dst, func, n, a);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* compile_global_call(cg_t* g, rlx_relax_call_t* c, int dst) {
  const char* name = ((rlx_relax_global_var_t*)c->op)->name;
  rlx_module_entry_t* ent = rlx_module_find(g->m, name);
  if (!ent) return unsupported(g, &c->hdr, "calls a function that is not in the module");
  if (ent->kind == RLX_FUNC_RELAX) {
    intptr_t f = (intptr_t)rlx_ptrmap_get(&g->funcs, ent->name);
    return call_exprs(g, dst, (int)f - 1, c->n_args, c->args);
  }
  int k = rlx_vm_exec_add_packed(g->e, name, rlx_codegen_symbol(g->ctx, name));
  int n = c->n_args;
  rlx_relax_expr_t* last = n ? c->args[n - 1] : NULL;
  bool dyn = last && last->sinfo && last->sinfo->kind == RLX_SINFO_SHAPE;
  if (dyn && last->kind == RLX_RELAX_SHAPE_EXPR) {
    rlx_relax_shape_expr_t* se = (rlx_relax_shape_expr_t*)last;
    rlx_vm_arg_t* a = RLX_NEW_ARRAY(g->ctx, rlx_vm_arg_t, n - 1 + se->ndim);
    RLX_RETURN_IF_ERROR(args_of(g, n - 1, c->args, a));
    for (int i = 0; i < se->ndim; i++) {
      if (se->values[i]->kind != RLX_EXPR_INT_IMM) return unsupported(g, last, "symbolic tir_vars (run lower_shapes)");
      a[n - 1 + i] = rlx_vm_imm(((rlx_int_imm_t*)se->values[i])->value);
    }
    call(g, dst, k, n - 1 + se->ndim, a);
    return NULL;
  }
  if (dyn) {
    rlx_vm_arg_t* a = RLX_NEW_ARRAY(g->ctx, rlx_vm_arg_t, n + 1);
    a[0] = rlx_vm_func(k);
    RLX_RETURN_IF_ERROR(args_of(g, n, c->args, a + 1));
    call(g, dst, packed(g, "vm.builtin.call_tir_dyn"), n + 1, a);
    return NULL;
  }
  return call_exprs(g, dst, k, n, c->args);
}

static RLX_MUST_USE rlx_status_t* compile_call(cg_t* g, rlx_relax_call_t* c, int dst) {
  rlx_relax_expr_t* op = c->op;
  switch (op->kind) {
    case RLX_RELAX_EXTERN_FUNC:
      return call_exprs(g, dst, packed(g, ((rlx_relax_extern_func_t*)op)->global_symbol), c->n_args, c->args);
    case RLX_RELAX_GLOBAL_VAR: return compile_global_call(g, c, dst);
    case RLX_RELAX_OP: break;
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR:
    case RLX_RELAX_CONSTANT:
    case RLX_RELAX_TUPLE:
    case RLX_RELAX_TUPLE_GET_ITEM:
    case RLX_RELAX_SHAPE_EXPR:
    case RLX_RELAX_PRIM_VALUE:
    case RLX_RELAX_STRING_IMM:
    case RLX_RELAX_DATA_TYPE_IMM:
    case RLX_RELAX_CALL:
    case RLX_RELAX_IF:
    case RLX_RELAX_SEQ:
    case RLX_RELAX_FUNCTION:
    case RLX_RELAX_KIND_COUNT: return unsupported(g, &c->hdr, "calls of function values are not supported");
  }
  rlx_op_id_t id = rlx_relax_op_id(op);
  if (id == RLX_OP_BUILTIN_ALLOC_TENSOR) {
    if (c->n_args < 2) return unsupported(g, &c->hdr, "malformed alloc_tensor");
    return call_exprs(g, dst, packed(g, "vm.builtin.empty"), 2, c->args);
  }
  if (id == RLX_OP_MEMORY_ALLOC_STORAGE) {
    if (c->n_args != 4) return unsupported(g, &c->hdr, "malformed alloc_storage");
    return call_exprs(g, dst, packed(g, "vm.builtin.alloc_storage"), 4, c->args);
  }
  if (id == RLX_OP_MEMORY_ALLOC_TENSOR) {
    if (c->n_args != 4) return unsupported(g, &c->hdr, "malformed memory.alloc_tensor");
    return call_exprs(g, dst, packed(g, "vm.builtin.alloc_tensor"), 4, c->args);
  }
  if (id == RLX_OP_MEMORY_KILL_TENSOR || id == RLX_OP_MEMORY_KILL_STORAGE) {
    if (c->n_args != 1 || !rlx_relax_is_var(c->args[0])) return unsupported(g, &c->hdr, "kill of a non-variable");
    int r = 0;
    RLX_RETURN_IF_ERROR(var_reg(g, c->args[0], &r));
    call(g, r, packed(g, "vm.builtin.null_value"), 0, NULL);
    return NULL; /* dst stays null */
  }
  if (id == RLX_OP_CALL_PURE_PACKED) {
    if (c->n_args < 1 || c->args[0]->kind != RLX_RELAX_EXTERN_FUNC)
      return unsupported(g, &c->hdr, "malformed call_pure_packed");
    return call_exprs(g, dst, packed(g, ((rlx_relax_extern_func_t*)c->args[0])->global_symbol), c->n_args - 1,
                      c->args + 1);
  }
  return unsupported(g, &c->hdr, "operator not lowered (run the pipeline: legalize_ops, call_tir_rewrite, lower_shapes)");
}

static RLX_MUST_USE rlx_status_t* compile_bindings(cg_t* g, rlx_relax_seq_t* seq) {
  for (int i = 0; i < seq->n_blocks; i++) {
    rlx_relax_block_t* b = seq->blocks[i];
    for (int j = 0; j < b->n_bindings; j++) {
      rlx_relax_binding_t* bd = b->bindings[j];
      /* a MatchCast is a move: lower_shapes emitted its checks before it */
      int r = new_reg(g);
      RLX_RETURN_IF_ERROR(compile_into(g, bd->value, r));
      rlx_ptrmap_put(&g->regs, bd->var, (void*)(intptr_t)(r + 1));
    }
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* compile_into(cg_t* g, rlx_relax_expr_t* e, int dst) {
  switch (e->kind) {
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR:
    case RLX_RELAX_CONSTANT:
    case RLX_RELAX_PRIM_VALUE:
    case RLX_RELAX_STRING_IMM:
    case RLX_RELAX_DATA_TYPE_IMM: {
      rlx_vm_arg_t a;
      RLX_RETURN_IF_ERROR(arg_of(g, e, &a));
      call(g, dst, packed(g, "vm.builtin.copy"), 1, &a);
      return NULL;
    }
    case RLX_RELAX_SHAPE_EXPR: {
      rlx_relax_shape_expr_t* se = (rlx_relax_shape_expr_t*)e;
      rlx_vm_arg_t* a = RLX_NEW_ARRAY(g->ctx, rlx_vm_arg_t, 2 + 2 * se->ndim);
      a[0] = rlx_vm_imm(0);
      a[1] = rlx_vm_imm(se->ndim);
      for (int i = 0; i < se->ndim; i++) {
        if (se->values[i]->kind != RLX_EXPR_INT_IMM) return unsupported(g, e, "a symbolic shape (run lower_shapes)");
        a[2 + 2 * i] = rlx_vm_imm(0);
        a[3 + 2 * i] = rlx_vm_imm(((rlx_int_imm_t*)se->values[i])->value);
      }
      call(g, dst, packed(g, "vm.builtin.make_shape"), 2 + 2 * se->ndim, a);
      return NULL;
    }
    case RLX_RELAX_TUPLE: {
      rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)e;
      return call_exprs(g, dst, packed(g, "vm.builtin.make_tuple"), t->n_fields, t->fields);
    }
    case RLX_RELAX_TUPLE_GET_ITEM: {
      rlx_relax_tuple_get_item_t* t = (rlx_relax_tuple_get_item_t*)e;
      rlx_vm_arg_t a[2];
      RLX_RETURN_IF_ERROR(arg_of(g, t->tuple, &a[0]));
      a[1] = rlx_vm_imm(t->index);
      call(g, dst, packed(g, "vm.builtin.tuple_getitem"), 2, a);
      return NULL;
    }
    case RLX_RELAX_CALL: return compile_call(g, (rlx_relax_call_t*)e, dst);
    case RLX_RELAX_IF: {
      rlx_relax_if_t* f = (rlx_relax_if_t*)e;
      rlx_vm_arg_t c;
      RLX_RETURN_IF_ERROR(arg_of(g, f->cond, &c));
      if (c.kind != RLX_VM_ARG_REG) {
        int r = new_reg(g);
        call(g, r, packed(g, "vm.builtin.copy"), 1, &c);
        c = rlx_vm_reg(r);
      }
      int64_t if_pc = rlx_vm_exec_emit_if(g->e, (int)c.value, 0);
      RLX_RETURN_IF_ERROR(compile_into(g, f->then_branch, dst));
      int64_t goto_pc = rlx_vm_exec_emit_goto(g->e, 0);
      g->e->instrs.data[if_pc].offset = g->e->instrs.len - if_pc;
      RLX_RETURN_IF_ERROR(compile_into(g, f->else_branch, dst));
      /* the join point needs an instruction: the function always continues with one */
      g->e->instrs.data[goto_pc].offset = g->e->instrs.len - goto_pc;
      return NULL;
    }
    case RLX_RELAX_SEQ: {
      rlx_relax_seq_t* s = (rlx_relax_seq_t*)e;
      RLX_RETURN_IF_ERROR(compile_bindings(g, s));
      return compile_into(g, s->body, dst);
    }
    case RLX_RELAX_OP:
    case RLX_RELAX_FUNCTION:
    case RLX_RELAX_GLOBAL_VAR:
    case RLX_RELAX_EXTERN_FUNC: break; /* function values (closures) are not supported */
    case RLX_RELAX_KIND_COUNT: break;
  }
  return unsupported(g, e, "expression kind not supported by the VM");
}

/* "(n, 4)" for a param's struct info ("" when unknown). */
static const char* shape_text(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* dims) {
  if (!dims || ndim < 0) return "";
  rlx_strbuf_t sb = {0};
  rlx_strbuf_append(&sb, "(");
  for (int i = 0; i < ndim; i++) {
    if (i) rlx_strbuf_append(&sb, ", ");
    rlx_relax_prim_print(dims[i], &sb);
  }
  rlx_strbuf_append(&sb, ndim == 1 ? ",)" : ")");
  const char* r = rlx_ctx_strdup(ctx, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return r;
}

static RLX_MUST_USE rlx_status_t* compile_func(cg_t* g, int fi, const char* name, rlx_relax_func_t* f) {
  g->fname = name;
  g->n_regs = f->n_params;
  rlx_ptrmap_free(&g->regs);
  g->e->funcs.data[fi].begin = g->e->instrs.len;
  for (int i = 0; i < f->n_params; i++) {
    rlx_ptrmap_put(&g->regs, f->params[i], (void*)(intptr_t)(i + 1));
    rlx_sinfo_t* s = f->params[i]->hdr.sinfo;
    if (s && s->kind == RLX_SINFO_TENSOR) {
      rlx_sinfo_tensor_t* t = (rlx_sinfo_tensor_t*)s;
      rlx_vm_exec_set_param_info(g->e, fi, i, rlx_dtype_is_void(t->dtype) ? rlx_dldtype(0, 0, 0) : dl(t->dtype), t->ndim,
                                 shape_text(g->ctx, t->ndim, t->shape));
    } else {
      rlx_vm_exec_set_param_info(g->e, fi, i, rlx_dldtype(0, 0, 0), RLX_VM_PARAM_NOT_TENSOR, "");
    }
  }
  rlx_relax_expr_t* body = f->body;
  int ret = 0;
  if (body->kind == RLX_RELAX_SEQ) {
    rlx_relax_seq_t* s = (rlx_relax_seq_t*)body;
    RLX_RETURN_IF_ERROR(compile_bindings(g, s));
    body = s->body;
  }
  if (rlx_relax_is_var(body)) {
    RLX_RETURN_IF_ERROR(var_reg(g, body, &ret));
  } else {
    ret = new_reg(g);
    RLX_RETURN_IF_ERROR(compile_into(g, body, ret));
  }
  rlx_vm_exec_emit_ret(g->e, ret);
  rlx_vm_exec_end_func(g->e, fi, g->n_regs);
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_vm_codegen(rlx_ctx_t* ctx, rlx_module_t* m, rlx_vm_exec_t** out_exec) {
  cg_t g = {0};
  g.ctx = ctx;
  g.m = m;
  g.e = rlx_vm_exec_create();
  if (!g.e) return rlx_status_create(RLX_OUT_OF_MEMORY, "vm codegen");
  /* every Relax function gets its index first, so that calls may go forward */
  for (int i = 0; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != RLX_FUNC_RELAX) continue;
    rlx_relax_func_t* f = m->funcs[i].func;
    const char** names = RLX_NEW_ARRAY(ctx, const char*, f->n_params);
    for (int p = 0; p < f->n_params; p++) names[p] = f->params[p]->name;
    int fi = rlx_vm_exec_begin_func(g.e, m->funcs[i].name, f->n_params, names);
    rlx_ptrmap_put(&g.funcs, m->funcs[i].name, (void*)(intptr_t)(fi + 1));
  }
  rlx_status_t* st = NULL;
  for (int i = 0; !st && i < m->n_funcs; i++) {
    if (m->funcs[i].kind != RLX_FUNC_RELAX) continue;
    int fi = (int)(intptr_t)rlx_ptrmap_get(&g.funcs, m->funcs[i].name) - 1;
    if (fi < 0) { /* begin_func or the put failed */
      st = rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (vm codegen)");
      break;
    }
    st = compile_func(&g, fi, m->funcs[i].name, m->funcs[i].func);
  }
  rlx_ptrmap_free(&g.regs);
  rlx_ptrmap_free(&g.consts);
  rlx_ptrmap_free(&g.funcs);
  if (st) {
    rlx_vm_exec_free(g.e);
    return st;
  }
  *out_exec = g.e;
  return NULL;
}
