/* Pass lower_shapes (TVM's VMShapeLower): symbolic shapes become VM builtin calls.
 *
 * Requires: Relax functions after call_tir_rewrite / plan_memory (any call_tir or
 * call_dps_packed still present is rewritten here as call_tir_rewrite would: outputs
 * allocated with R.builtin.alloc_tensor, then the DPS call; this keeps the VM usable when
 * earlier passes are skipped). Symbolic vars are defined by param struct info and
 * match_cast, as well-formedness requires.
 *
 * Produces, per Relax function (a pure one is marked "relax.force_pure": the builtins are impure;
 * dataflow blocks become plain blocks and DataflowVars plain Vars):
 * - first, `shape_heap = R.call_packed("vm.builtin.alloc_shape_heap", R.prim_value(N))`, an
 *   int64 tensor of N slots, one per symbolic var and per composite dim (n * 2) in use;
 * - per tensor param: `vm.builtin.check_tensor_info(x, ndim, dtype, "f: parameter x")`, then
 *   `vm.builtin.match_shape(x, heap, ndim, (kind, value) per dim, "f: parameter x",
 *   "(n, 4)")` with kind 0 = equals the constant, 1 = store into slot (first definition),
 *   2 = equals slot, 3 = not checked here; composite dims are checked after every param is
 *   matched, once computed into their slots (vm.builtin.shape_compute: a postfix program
 *   over slots and immediates);
 * - a MatchCast is preceded by the same checks on its value (it stays, for the vars it
 *   defines; the VM codegen makes it a move);
 * - a param or match_cast of R.Prim(dtype): `vm.builtin.check_prim_value_info(x, dtype, "f: parameter
 *   x")` (an int for an int / bool dtype, an int or a float for a float one), then with a
 *   value (R.Prim(value=n)) vm.builtin.match_prim_value (same kinds);
 * - a PrimValue with a symbolic value: `vm.builtin.make_prim_value(heap, kind, value)`;
 * - a ShapeExpr with a non-constant dim (as the argument of a call, or a binding's value)
 *   becomes `s = R.call_packed("vm.builtin.make_shape", heap, ndim, (kind, value)...)` with
 *   kind 0 = constant, 1 = slot. The VM codegen turns a DPS kernel call whose last argument
 *   is such a shape (tir_vars) into vm.builtin.call_tir_dyn.
 * Opcodes and kinds: rlx_vm_match_kind_t and rlx_vm_shape_op_t (src/runtime/vm_exec.h).
 */
#include <string.h>

#include "../relax/op.h"
#include "../runtime/vm_exec.h"
#include "pass.h"


typedef RLX_VEC(rlx_relax_binding_t*) bindings_t;
typedef RLX_VEC(rlx_relax_expr_t*) exprs_t;

typedef struct {
  rlx_ctx_t* ctx;
  rlx_module_t* m;
  const char* fname;
  rlx_ptrmap_t slots;   /* rlx_var_t* → slot + 1 */
  rlx_ptrmap_t defined; /* rlx_var_t* → non-NULL once matched */
  rlx_ptrmap_t vmap;    /* DataflowVar → Var */
  int n_slots;
  rlx_relax_var_t* heap;
  bindings_t* out; /* bindings of the block being built */
  /* composite dims already computed into a slot, at the function's top level (a value
   * computed inside an If branch is not reused outside it) */
  RLX_VEC(rlx_expr_t*) comp_exprs;
  RLX_VEC(int) comp_slots;
  bindings_t* top;
} ls_t;

static rlx_relax_expr_t* i64v(ls_t* s, int64_t v) { return rlx_relax_prim_value(s->ctx, rlx_ir_i64(s->ctx, v)); }

static int slot_of_var(ls_t* s, rlx_var_t* v) {
  intptr_t k = (intptr_t)rlx_ptrmap_get(&s->slots, v);
  if (k) return (int)k - 1;
  rlx_ptrmap_put(&s->slots, v, (void*)(intptr_t)(s->n_slots + 1));
  return s->n_slots++;
}

/* Binds value (normalized here) to a new var and appends the binding. */
static RLX_MUST_USE rlx_status_t* emit(ls_t* s, rlx_relax_expr_t* value, const char* hint, rlx_relax_var_t** out) {
  RLX_RETURN_IF_ERROR(rlx_relax_normalize(s->ctx, s->m, value));
  rlx_relax_var_t* v = rlx_relax_var(s->ctx, hint, value->sinfo);
  rlx_vec_push(s->out, rlx_relax_var_binding(s->ctx, v, value));
  if (out) *out = v;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* emit_builtin(ls_t* s, const char* name, exprs_t* args, rlx_sinfo_t* ret, const char* hint,
                                               rlx_relax_var_t** out) {
  rlx_relax_expr_t* call = rlx_relax_call_packed(s->ctx, name, args->len, args->data, 1, &ret);
  rlx_vec_free(args);
  return emit(s, call, hint, out);
}

/* Postfix program of a shape expression over slots. */
static RLX_MUST_USE rlx_status_t* program(ls_t* s, const rlx_expr_t* e, exprs_t* out) {
  int op = -1;
  switch (e->kind) {
    case RLX_EXPR_INT_IMM:
      rlx_vec_push(out, i64v(s, RLX_VM_SC_PUSH_IMM));
      rlx_vec_push(out, i64v(s, ((const rlx_int_imm_t*)e)->value));
      return NULL;
    case RLX_EXPR_VAR: {
      rlx_var_t* v = (rlx_var_t*)e;
      if (!rlx_ptrmap_has(&s->slots, v))
        return rlx_status_create(RLX_INVALID_ARGUMENT, "lower_shapes: function '%s': symbolic var '%s' is used before "
                                 "it is defined", s->fname, v->name);
      rlx_vec_push(out, i64v(s, RLX_VM_SC_PUSH_SLOT));
      rlx_vec_push(out, i64v(s, slot_of_var(s, v)));
      return NULL;
    }
    case RLX_EXPR_CAST: return program(s, ((const rlx_cast_t*)e)->value, out);
    case RLX_EXPR_ADD: op = RLX_VM_SC_ADD; break;
    case RLX_EXPR_SUB: op = RLX_VM_SC_SUB; break;
    case RLX_EXPR_MUL: op = RLX_VM_SC_MUL; break;
    case RLX_EXPR_DIV: /* shapes are non-negative: C division is floor division */
    case RLX_EXPR_FLOOR_DIV: op = RLX_VM_SC_FLOORDIV; break;
    case RLX_EXPR_MOD:
    case RLX_EXPR_FLOOR_MOD: op = RLX_VM_SC_FLOORMOD; break;
    case RLX_EXPR_MIN: op = RLX_VM_SC_MIN; break;
    case RLX_EXPR_MAX: op = RLX_VM_SC_MAX; break;
    case RLX_EXPR_EQ: op = RLX_VM_SC_EQ; break;
    case RLX_EXPR_NE: op = RLX_VM_SC_NE; break;
    case RLX_EXPR_LT: op = RLX_VM_SC_LT; break;
    case RLX_EXPR_LE: op = RLX_VM_SC_LE; break;
    case RLX_EXPR_GT: op = RLX_VM_SC_GT; break;
    case RLX_EXPR_GE: op = RLX_VM_SC_GE; break;
    case RLX_EXPR_AND: op = RLX_VM_SC_AND; break;
    case RLX_EXPR_OR: op = RLX_VM_SC_OR; break;
    default: break; /* the other PrimExpr kinds do not occur in shapes */
  }
  if (op < 0) {
    rlx_strbuf_t sb = {0};
    rlx_relax_prim_print(e, &sb);
    rlx_status_t* st = rlx_status_create(RLX_UNSUPPORTED, "lower_shapes: function '%s': cannot compute shape dim %s",
                                         s->fname, rlx_strbuf_cstr(&sb));
    rlx_strbuf_free(&sb);
    return st;
  }
  const rlx_binary_t* b = (const rlx_binary_t*)e;
  RLX_RETURN_IF_ERROR(program(s, b->a, out));
  RLX_RETURN_IF_ERROR(program(s, b->b, out));
  rlx_vec_push(out, i64v(s, op));
  rlx_vec_push(out, i64v(s, 0));
  return NULL;
}

/* A dim as (kind, value) for make_shape: constant or slot (composite dims are computed
 * into a new slot first). */
static RLX_MUST_USE rlx_status_t* dim_ref(ls_t* s, rlx_expr_t* e, int64_t* kind, int64_t* val) {
  if (e->kind == RLX_EXPR_INT_IMM) {
    *kind = 0;
    *val = ((rlx_int_imm_t*)e)->value;
    return NULL;
  }
  if (e->kind == RLX_EXPR_VAR) {
    exprs_t dummy = {0};
    rlx_status_t* st = program(s, e, &dummy); /* checks it is defined */
    rlx_vec_free(&dummy);
    RLX_RETURN_IF_ERROR(st);
    *kind = 1;
    *val = slot_of_var(s, (rlx_var_t*)e);
    return NULL;
  }
  bool top = s->out == s->top;
  for (int i = 0; top && i < s->comp_exprs.len; i++) {
    if (rlx_expr_equal(s->comp_exprs.data[i], e)) {
      *kind = 1;
      *val = s->comp_slots.data[i];
      return NULL;
    }
  }
  int slot = s->n_slots++;
  exprs_t args = {0};
  rlx_vec_push(&args, &s->heap->hdr);
  rlx_vec_push(&args, i64v(s, slot));
  rlx_status_t* st = program(s, e, &args);
  if (st) {
    rlx_vec_free(&args);
    return st;
  }
  RLX_RETURN_IF_ERROR(emit_builtin(s, "vm.builtin.shape_compute", &args, rlx_sinfo_object(s->ctx), "_", NULL));
  if (top) {
    rlx_vec_push(&s->comp_exprs, e);
    rlx_vec_push(&s->comp_slots, slot);
  }
  *kind = 1;
  *val = slot;
  return NULL;
}

static bool shape_is_const(int ndim, rlx_expr_t* const* v) {
  for (int i = 0; i < ndim; i++)
    if (v[i]->kind != RLX_EXPR_INT_IMM) return false;
  return true;
}

/* make_shape for a symbolic ShapeExpr; a constant one stays as it is. */
static RLX_MUST_USE rlx_status_t* lower_shape_expr(ls_t* s, rlx_relax_shape_expr_t* se, rlx_relax_expr_t** out) {
  if (shape_is_const(se->ndim, se->values)) {
    *out = &se->hdr;
    return NULL;
  }
  exprs_t args = {0};
  rlx_vec_push(&args, &s->heap->hdr);
  rlx_vec_push(&args, i64v(s, se->ndim));
  for (int i = 0; i < se->ndim; i++) {
    int64_t k = 0, v = 0;
    rlx_status_t* st = dim_ref(s, se->values[i], &k, &v);
    if (st) {
      rlx_vec_free(&args);
      return st;
    }
    rlx_vec_push(&args, i64v(s, k));
    rlx_vec_push(&args, i64v(s, v));
  }
  rlx_relax_var_t* var = NULL;
  RLX_RETURN_IF_ERROR(emit_builtin(s, "vm.builtin.make_shape", &args,
                                   rlx_sinfo_shape(s->ctx, se->ndim, se->values), "shape", &var));
  *out = &var->hdr;
  return NULL;
}

static const char* shape_text(ls_t* s, int ndim, rlx_expr_t* const* dims) {
  rlx_strbuf_t sb = {0};
  rlx_strbuf_append(&sb, "(");
  for (int i = 0; i < ndim; i++) {
    if (i) rlx_strbuf_append(&sb, ", ");
    rlx_relax_prim_print(dims[i], &sb);
  }
  rlx_strbuf_append(&sb, ndim == 1 ? ",)" : ")");
  const char* r = rlx_ctx_strdup(s->ctx, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return r;
}

/* make_prim_value for a symbolic PrimValue; a constant one stays as it is. */
static RLX_MUST_USE rlx_status_t* lower_prim_value(ls_t* s, rlx_relax_prim_value_t* pv, rlx_relax_expr_t** out) {
  if (pv->value->kind == RLX_EXPR_INT_IMM || pv->value->kind == RLX_EXPR_FLOAT_IMM) {
    *out = &pv->hdr;
    return NULL;
  }
  int64_t k = 0, v = 0;
  RLX_RETURN_IF_ERROR(dim_ref(s, pv->value, &k, &v));
  exprs_t args = {0};
  rlx_vec_push(&args, &s->heap->hdr);
  rlx_vec_push(&args, i64v(s, k));
  rlx_vec_push(&args, i64v(s, v));
  rlx_relax_var_t* var = NULL;
  RLX_RETURN_IF_ERROR(emit_builtin(s, "vm.builtin.make_prim_value", &args, pv->hdr.sinfo, "prim", &var));
  *out = &var->hdr;
  return NULL;
}

/* The checks of value against sinfo (param or match_cast). composite: when non-NULL, a
 * second pass that checks only the composite dims (after every param is matched). */
static RLX_MUST_USE rlx_status_t* match(ls_t* s, rlx_relax_expr_t* value, rlx_sinfo_t* sinfo, const char* what, bool composite_pass,
                                        bool* out_has_composite) {
  int ndim = -1;
  rlx_expr_t** dims = NULL;
  rlx_relax_var_t* tmp = NULL;
  if (sinfo->kind == RLX_SINFO_TENSOR) {
    rlx_sinfo_tensor_t* t = (rlx_sinfo_tensor_t*)sinfo;
    ndim = t->ndim;
    dims = t->shape;
    if (!composite_pass) {
      exprs_t args = {0};
      rlx_vec_push(&args, value);
      rlx_vec_push(&args, i64v(s, t->ndim));
      rlx_vec_push(&args, rlx_dtype_is_void(t->dtype) ? i64v(s, -1) : rlx_relax_dtype_imm(s->ctx, t->dtype));
      rlx_vec_push(&args, rlx_relax_string_imm(s->ctx, what));
      RLX_RETURN_IF_ERROR(emit_builtin(s, "vm.builtin.check_tensor_info", &args, rlx_sinfo_object(s->ctx), "_", &tmp));
    }
  } else if (sinfo->kind == RLX_SINFO_SHAPE) {
    ndim = ((rlx_sinfo_shape_t*)sinfo)->ndim;
    dims = ((rlx_sinfo_shape_t*)sinfo)->values;
  } else if (sinfo->kind == RLX_SINFO_PRIM) {
    rlx_sinfo_prim_t* ps = (rlx_sinfo_prim_t*)sinfo;
    if (!composite_pass && !rlx_dtype_is_void(ps->dtype)) {
      exprs_t args = {0};
      rlx_vec_push(&args, value);
      rlx_vec_push(&args, rlx_relax_dtype_imm(s->ctx, ps->dtype));
      rlx_vec_push(&args, rlx_relax_string_imm(s->ctx, what));
      RLX_RETURN_IF_ERROR(
          emit_builtin(s, "vm.builtin.check_prim_value_info", &args, rlx_sinfo_object(s->ctx), "_", &tmp));
    }
    if (!ps->value) return NULL;
    rlx_expr_t* e = ps->value;
    int64_t k = RLX_VM_MATCH_SKIP, v = 0;
    if (composite_pass) {
      if (e->kind == RLX_EXPR_INT_IMM || e->kind == RLX_EXPR_VAR) return NULL;
      RLX_RETURN_IF_ERROR(dim_ref(s, e, &k, &v));
      k = RLX_VM_MATCH_ASSERT_SLOT;
    } else if (e->kind == RLX_EXPR_INT_IMM) {
      k = RLX_VM_MATCH_ASSERT_IMM;
      v = ((rlx_int_imm_t*)e)->value;
    } else if (e->kind == RLX_EXPR_VAR) {
      rlx_var_t* var = (rlx_var_t*)e;
      v = slot_of_var(s, var);
      k = rlx_ptrmap_has(&s->defined, var) ? RLX_VM_MATCH_ASSERT_SLOT : RLX_VM_MATCH_STORE;
      rlx_ptrmap_put(&s->defined, var, var);
    } else if (out_has_composite) {
      *out_has_composite = true;
    }
    rlx_strbuf_t sb = {0};
    rlx_relax_prim_print(e, &sb);
    const char* text = rlx_ctx_strdup(s->ctx, rlx_strbuf_cstr(&sb));
    rlx_strbuf_free(&sb);
    rlx_relax_expr_t* a[6] = {value, &s->heap->hdr, i64v(s, k), i64v(s, v), rlx_relax_string_imm(s->ctx, what),
                              rlx_relax_string_imm(s->ctx, text)};
    exprs_t args = {0};
    for (int i = 0; i < 6; i++) rlx_vec_push(&args, a[i]);
    return emit_builtin(s, "vm.builtin.match_prim_value", &args, rlx_sinfo_object(s->ctx), "_", &tmp);
  } else if (sinfo->kind == RLX_SINFO_TUPLE) {
    /* the fields, one by one, through TupleGetItem */
    rlx_sinfo_tuple_t* tu = (rlx_sinfo_tuple_t*)sinfo;
    if (!composite_pass) {
      exprs_t args = {0};
      rlx_vec_push(&args, value);
      rlx_vec_push(&args, i64v(s, tu->n_fields));
      rlx_vec_push(&args, rlx_relax_string_imm(s->ctx, what));
      RLX_RETURN_IF_ERROR(emit_builtin(s, "vm.builtin.check_tuple_info", &args, rlx_sinfo_object(s->ctx), "_", &tmp));
    }
    for (int i = 0; i < tu->n_fields; i++) {
      rlx_sinfo_kind_t k = tu->fields[i]->kind;
      if (k != RLX_SINFO_TENSOR && k != RLX_SINFO_SHAPE && k != RLX_SINFO_TUPLE && k != RLX_SINFO_PRIM) continue;
      rlx_relax_var_t* field = NULL;
      RLX_RETURN_IF_ERROR(emit(s, rlx_relax_tuple_get_item(s->ctx, value, i), "field", &field));
      RLX_RETURN_IF_ERROR(match(s, &field->hdr, tu->fields[i], rlx_ctx_sprintf(s->ctx, "%s, field %d", what, i),
                                composite_pass, out_has_composite));
    }
    return NULL;
  }
  if (!dims || ndim < 0) return NULL;
  exprs_t args = {0};
  rlx_vec_push(&args, value);
  rlx_vec_push(&args, &s->heap->hdr);
  rlx_vec_push(&args, i64v(s, ndim));
  bool any = false;
  for (int d = 0; d < ndim; d++) {
    rlx_expr_t* e = dims[d];
    int64_t k = RLX_VM_MATCH_SKIP, v = 0;
    if (composite_pass) {
      if (e->kind != RLX_EXPR_INT_IMM && e->kind != RLX_EXPR_VAR) {
        rlx_status_t* st = dim_ref(s, e, &k, &v);
        if (st) {
          rlx_vec_free(&args);
          return st;
        }
        k = RLX_VM_MATCH_ASSERT_SLOT;
        any = true;
      }
    } else if (e->kind == RLX_EXPR_INT_IMM) {
      k = RLX_VM_MATCH_ASSERT_IMM;
      v = ((rlx_int_imm_t*)e)->value;
    } else if (e->kind == RLX_EXPR_VAR) {
      rlx_var_t* var = (rlx_var_t*)e;
      v = slot_of_var(s, var);
      k = rlx_ptrmap_has(&s->defined, var) ? RLX_VM_MATCH_ASSERT_SLOT : RLX_VM_MATCH_STORE;
      rlx_ptrmap_put(&s->defined, var, var);
    } else {
      if (out_has_composite) *out_has_composite = true;
    }
    rlx_vec_push(&args, i64v(s, k));
    rlx_vec_push(&args, i64v(s, v));
  }
  if (composite_pass && !any) {
    rlx_vec_free(&args);
    return NULL;
  }
  rlx_vec_push(&args, rlx_relax_string_imm(s->ctx, what));
  rlx_vec_push(&args, rlx_relax_string_imm(s->ctx, shape_text(s, ndim, dims)));
  return emit_builtin(s, "vm.builtin.match_shape", &args, rlx_sinfo_object(s->ctx), "_", &tmp);
}

static rlx_relax_expr_t* subst(ls_t* s, rlx_relax_expr_t* e) {
  return s->vmap.len ? rlx_relax_expr_substitute(s->ctx, e, &s->vmap) : e;
}

static RLX_MUST_USE rlx_status_t* lower_seq(ls_t* s, rlx_relax_seq_t* seq, rlx_relax_expr_t** out);

/* Allocates the outputs of a leftover call_tir / call_dps_packed (as call_tir_rewrite). */
static RLX_MUST_USE rlx_status_t* alloc_outputs(ls_t* s, rlx_sinfo_t* out_sinfo, exprs_t* allocs) {
  int n = out_sinfo->kind == RLX_SINFO_TUPLE ? ((rlx_sinfo_tuple_t*)out_sinfo)->n_fields : 1;
  for (int i = 0; i < n; i++) {
    rlx_sinfo_t* si = out_sinfo->kind == RLX_SINFO_TUPLE ? ((rlx_sinfo_tuple_t*)out_sinfo)->fields[i] : out_sinfo;
    rlx_sinfo_tensor_t* t = (rlx_sinfo_tensor_t*)si;
    if (si->kind != RLX_SINFO_TENSOR || !t->shape || rlx_dtype_is_void(t->dtype))
      return rlx_status_create(RLX_INVALID_ARGUMENT, "lower_shapes: function '%s': a DPS output needs a known shape "
                               "and dtype, got %s", s->fname, rlx_sinfo_str(s->ctx, si));
    rlx_relax_expr_t* shape = rlx_relax_shape_expr(s->ctx, t->ndim, t->shape);
    RLX_RETURN_IF_ERROR(rlx_relax_normalize(s->ctx, s->m, shape));
    RLX_RETURN_IF_ERROR(lower_shape_expr(s, (rlx_relax_shape_expr_t*)shape, &shape));
    rlx_relax_expr_t* args[3] = {shape, rlx_relax_dtype_imm(s->ctx, t->dtype), i64v(s, 0)};
    rlx_relax_expr_t* call = rlx_relax_call(s->ctx, rlx_relax_op(s->ctx, RLX_OP_BUILTIN_ALLOC_TENSOR), 3, args,
                                            (rlx_attrs_t){0}, 0, NULL);
    call->sinfo = si; /* the shape argument may now be a var: keep the precise struct info */
    rlx_relax_var_t* v = NULL;
    RLX_RETURN_IF_ERROR(emit(s, call, "alloc", &v));
    rlx_vec_push(allocs, &v->hdr);
  }
  return NULL;
}

/* Lowers one binding value; may emit bindings before it. */
static RLX_MUST_USE rlx_status_t* lower_value(ls_t* s, rlx_relax_expr_t* value, rlx_relax_expr_t** out) {
  value = subst(s, value);
  switch (value->kind) {
    case RLX_RELAX_SHAPE_EXPR: return lower_shape_expr(s, (rlx_relax_shape_expr_t*)value, out);
    case RLX_RELAX_PRIM_VALUE: return lower_prim_value(s, (rlx_relax_prim_value_t*)value, out);
    case RLX_RELAX_IF: {
      rlx_relax_if_t* f = (rlx_relax_if_t*)value;
      rlx_relax_expr_t *t = f->then_branch, *e = f->else_branch;
      if (t->kind == RLX_RELAX_SEQ) RLX_RETURN_IF_ERROR(lower_seq(s, (rlx_relax_seq_t*)t, &t));
      if (e->kind == RLX_RELAX_SEQ) RLX_RETURN_IF_ERROR(lower_seq(s, (rlx_relax_seq_t*)e, &e));
      if (t == f->then_branch && e == f->else_branch) {
        *out = value;
        return NULL;
      }
      rlx_relax_expr_t* r = rlx_relax_if(s->ctx, f->cond, t, e);
      r->sinfo = value->sinfo;
      RLX_RETURN_IF_ERROR(rlx_relax_normalize(s->ctx, s->m, r));
      *out = r;
      return NULL;
    }
    case RLX_RELAX_CALL: break;
    case RLX_RELAX_TUPLE: {
      /* symbolic shapes and prim values among the fields */
      rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)value;
      rlx_relax_expr_t** fields = NULL;
      for (int i = 0; i < t->n_fields; i++) {
        rlx_relax_kind_t k = t->fields[i]->kind;
        if (k != RLX_RELAX_SHAPE_EXPR && k != RLX_RELAX_PRIM_VALUE && k != RLX_RELAX_TUPLE) continue;
        rlx_relax_expr_t* nf = NULL;
        RLX_RETURN_IF_ERROR(lower_value(s, t->fields[i], &nf));
        if (nf == t->fields[i]) continue;
        if (!fields) {
          fields = RLX_NEW_ARRAY(s->ctx, rlx_relax_expr_t*, t->n_fields);
          memcpy(fields, t->fields, sizeof(*fields) * (size_t)t->n_fields);
        }
        fields[i] = nf;
      }
      *out = value;
      if (fields) {
        *out = rlx_relax_tuple(s->ctx, t->n_fields, fields);
        RLX_RETURN_IF_ERROR(rlx_relax_normalize(s->ctx, s->m, *out));
      }
      return NULL;
    }
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR:
    case RLX_RELAX_CONSTANT:
    case RLX_RELAX_TUPLE_GET_ITEM:
    case RLX_RELAX_STRING_IMM:
    case RLX_RELAX_DATA_TYPE_IMM:
    case RLX_RELAX_OP:
    case RLX_RELAX_SEQ:
    case RLX_RELAX_FUNCTION:
    case RLX_RELAX_GLOBAL_VAR:
    case RLX_RELAX_EXTERN_FUNC:
    case RLX_RELAX_KIND_COUNT: *out = value; return NULL; /* nothing symbolic to lower */
  }
  rlx_relax_call_t* c = (rlx_relax_call_t*)value;
  bool is_tir = rlx_relax_is_op(c->op, RLX_OP_CALL_TIR);
  if (is_tir || rlx_relax_is_op(c->op, RLX_OP_CALL_DPS_PACKED)) {
    rlx_relax_tuple_t* in = (rlx_relax_tuple_t*)c->args[1];
    if (c->args[1]->kind != RLX_RELAX_TUPLE || c->n_sinfo_args != 1)
      return rlx_status_create(RLX_INVALID_ARGUMENT, "lower_shapes: function '%s': malformed %s", s->fname,
                               rlx_relax_expr_brief(s->ctx, value));
    exprs_t allocs = {0};
    rlx_status_t* st = alloc_outputs(s, c->sinfo_args[0], &allocs);
    exprs_t args = {0};
    for (int i = 0; !st && i < in->n_fields; i++) rlx_vec_push(&args, in->fields[i]);
    for (int i = 0; !st && i < allocs.len; i++) rlx_vec_push(&args, allocs.data[i]);
    if (!st && c->n_args == 3) {
      rlx_relax_expr_t* tv = c->args[2];
      if (tv->kind == RLX_RELAX_SHAPE_EXPR) st = lower_shape_expr(s, (rlx_relax_shape_expr_t*)tv, &tv);
      rlx_vec_push(&args, tv);
    }
    if (!st) {
      rlx_relax_expr_t* call =
          rlx_relax_call(s->ctx, c->args[0], args.len, args.data, (rlx_attrs_t){0}, 0, NULL);
      call->sinfo = rlx_sinfo_tuple(s->ctx, 0, NULL);
      st = emit(s, call, "_", NULL);
    }
    rlx_vec_free(&args);
    if (!st) {
      *out = allocs.len == 1 && c->sinfo_args[0]->kind != RLX_SINFO_TUPLE ? allocs.data[0]
                                                                           : rlx_relax_tuple(s->ctx, allocs.len, allocs.data);
      st = rlx_relax_normalize(s->ctx, s->m, *out);
    }
    rlx_vec_free(&allocs);
    return st;
  }
  /* symbolic ShapeExpr arguments → make_shape vars */
  rlx_relax_expr_t** args = NULL;
  for (int i = 0; i < c->n_args; i++) {
    rlx_relax_expr_t* a = c->args[i];
    rlx_relax_expr_t* na = NULL;
    if (a->kind == RLX_RELAX_SHAPE_EXPR) RLX_RETURN_IF_ERROR(lower_shape_expr(s, (rlx_relax_shape_expr_t*)a, &na));
    else if (a->kind == RLX_RELAX_PRIM_VALUE) RLX_RETURN_IF_ERROR(lower_prim_value(s, (rlx_relax_prim_value_t*)a, &na));
    else continue;
    if (na == a) continue;
    if (!args) {
      args = RLX_NEW_ARRAY(s->ctx, rlx_relax_expr_t*, c->n_args);
      memcpy(args, c->args, sizeof(*args) * (size_t)c->n_args);
    }
    args[i] = na;
  }
  if (!args) {
    *out = value;
    return NULL;
  }
  rlx_relax_expr_t* call = rlx_relax_call(s->ctx, c->op, c->n_args, args, c->attrs, c->n_sinfo_args, c->sinfo_args);
  call->sinfo = value->sinfo;
  RLX_RETURN_IF_ERROR(rlx_relax_normalize(s->ctx, s->m, call));
  *out = call;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* lower_binding(ls_t* s, rlx_relax_binding_t* b) {
  rlx_relax_var_t* var = b->var;
  if (var->hdr.kind == RLX_RELAX_DATAFLOW_VAR) {
    rlx_relax_var_t* nv = rlx_relax_var(s->ctx, var->name, var->hdr.sinfo);
    rlx_ptrmap_put(&s->vmap, var, nv);
    var = nv;
  }
  rlx_relax_expr_t* value = NULL;
  RLX_RETURN_IF_ERROR(lower_value(s, b->value, &value));
  switch (b->kind) {
    case RLX_BINDING_MATCH_CAST: {
      const char* what = rlx_ctx_sprintf(s->ctx, "%s: match_cast of %s", s->fname, var->name);
      if (!rlx_relax_is_var(value)) { /* the checks read the value several times: compute it once */
        rlx_relax_var_t* v = NULL;
        RLX_RETURN_IF_ERROR(emit(s, value, "value", &v));
        value = &v->hdr;
      }
      RLX_RETURN_IF_ERROR(match(s, value, b->sinfo, what, false, NULL));
      RLX_RETURN_IF_ERROR(match(s, value, b->sinfo, what, true, NULL));
      /* the binding stays a MatchCast (it still defines the vars for well-formedness); the
       * VM codegen turns it into a move, the checks being done */
      rlx_vec_push(s->out, rlx_relax_match_cast(s->ctx, var, value, b->sinfo));
      return NULL;
    }
    case RLX_BINDING_VAR: break;
  }
  if (b->kind == RLX_BINDING_VAR && value == b->value && var == b->var) {
    rlx_vec_push(s->out, b);
    return NULL;
  }
  rlx_vec_push(s->out, rlx_relax_var_binding(s->ctx, var, value));
  return NULL;
}

static RLX_MUST_USE rlx_status_t* lower_blocks(ls_t* s, int n, rlx_relax_block_t** blocks, bindings_t* out) {
  bindings_t* saved = s->out;
  s->out = out;
  rlx_status_t* st = NULL;
  for (int i = 0; !st && i < n; i++)
    for (int j = 0; !st && j < blocks[i]->n_bindings; j++) st = lower_binding(s, blocks[i]->bindings[j]);
  s->out = saved;
  return st;
}

/* A nested SeqExpr (If branch) as one plain block. */
static RLX_MUST_USE rlx_status_t* lower_seq(ls_t* s, rlx_relax_seq_t* seq, rlx_relax_expr_t** out) {
  bindings_t bs = {0};
  rlx_status_t* st = lower_blocks(s, seq->n_blocks, seq->blocks, &bs);
  rlx_relax_expr_t* body = NULL;
  if (!st) {
    bindings_t* saved = s->out;
    s->out = &bs;
    st = lower_value(s, seq->body, &body);
    s->out = saved;
  }
  if (!st) {
    rlx_relax_block_t* blk = rlx_relax_block(s->ctx, false, bs.len, bs.data);
    *out = rlx_relax_seq(s->ctx, bs.len ? 1 : 0, &blk, body);
    st = rlx_relax_normalize(s->ctx, s->m, *out);
  }
  rlx_vec_free(&bs);
  return st;
}

static RLX_MUST_USE rlx_status_t* lower_func(rlx_ctx_t* ctx, rlx_module_t* m, const char* name, rlx_relax_func_t* f,
                                             rlx_relax_func_t** out) {
  ls_t s = {0};
  s.ctx = ctx;
  s.m = m;
  s.fname = name;
  /* the heap var is created now; its binding, whose size is known only at the end, goes first */
  s.heap = rlx_relax_var(ctx, "shape_heap", rlx_sinfo_tensor(ctx, 1, NULL, rlx_dt_int64()));
  bindings_t bs = {0};
  s.out = &bs;
  s.top = &bs;
  rlx_status_t* st = NULL;
  bool composite = false;
  for (int i = 0; !st && i < f->n_params; i++) {
    const char* what = rlx_ctx_sprintf(ctx, "%s: parameter %s", name, f->params[i]->name);
    st = match(&s, &f->params[i]->hdr, f->params[i]->hdr.sinfo, what, false, &composite);
  }
  for (int i = 0; !st && composite && i < f->n_params; i++) {
    const char* what = rlx_ctx_sprintf(ctx, "%s: parameter %s", name, f->params[i]->name);
    st = match(&s, &f->params[i]->hdr, f->params[i]->hdr.sinfo, what, true, NULL);
  }
  rlx_relax_expr_t* body = f->body;
  if (!st && body->kind == RLX_RELAX_SEQ) {
    rlx_relax_seq_t* seq = (rlx_relax_seq_t*)body;
    st = lower_blocks(&s, seq->n_blocks, seq->blocks, &bs);
    if (!st) st = lower_value(&s, seq->body, &body);
  } else if (!st) {
    st = lower_value(&s, body, &body);
  }
  if (!st) {
    rlx_relax_expr_t* size = i64v(&s, s.n_slots);
    rlx_sinfo_t* hs = s.heap->hdr.sinfo;
    rlx_relax_expr_t* alloc = rlx_relax_call_packed(ctx, "vm.builtin.alloc_shape_heap", 1, &size, 1, &hs);
    st = rlx_relax_normalize(ctx, m, alloc);
    if (!st) {
      rlx_relax_binding_t** all = RLX_NEW_ARRAY(ctx, rlx_relax_binding_t*, bs.len + 1);
      all[0] = rlx_relax_var_binding(ctx, s.heap, alloc);
      for (int i = 0; i < bs.len; i++) all[i + 1] = bs.data[i];
      rlx_relax_block_t* blk = rlx_relax_block(ctx, false, bs.len + 1, all);
      rlx_relax_expr_t* seq = rlx_relax_seq(ctx, 1, &blk, body);
      rlx_attrs_t attrs = f->attrs;
      if (f->is_pure) attrs = rlx_attrs_set(ctx, attrs, "relax.force_pure", rlx_attr_bool(true));
      *out = rlx_relax_func(ctx, f->n_params, f->params, seq, f->ret_sinfo, attrs, f->is_pure);
      st = rlx_relax_normalize(ctx, m, &(*out)->hdr);
    }
  }
  rlx_vec_free(&bs);
  rlx_vec_free(&s.comp_exprs);
  rlx_vec_free(&s.comp_slots);
  rlx_ptrmap_free(&s.slots);
  rlx_ptrmap_free(&s.defined);
  rlx_ptrmap_free(&s.vmap);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_pass_lower_shapes(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out) {
  rlx_module_t* m = rlx_module_create(ctx);
  for (int i = 0; i < in->n_funcs; i++) rlx_module_set(m, in->funcs[i].name, in->funcs[i].kind, in->funcs[i].func);
  for (int i = 0; i < in->n_funcs; i++) {
    if (in->funcs[i].kind != RLX_FUNC_RELAX) continue;
    rlx_relax_func_t* nf = NULL;
    RLX_RETURN_IF_ERROR(lower_func(ctx, m, in->funcs[i].name, in->funcs[i].func, &nf));
    rlx_module_set(m, in->funcs[i].name, RLX_FUNC_RELAX, nf);
  }
  *out = m;
  return NULL;
}
