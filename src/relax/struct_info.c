/* Struct info: constructors, equality (with the arithmetic prover for symbolic dims),
 * base-of / LCA, TVMScript printing, symbolic-var traversal and erasure. */
#include <string.h>

#include "relax.h"

/* ------------------------------------------------------------------ constructors */
static rlx_expr_t* to_i64(rlx_ctx_t* ctx, rlx_expr_t* e) {
  int64_t v;
  if (rlx_dtype_eq(e->dtype, rlx_dt_int64())) return e;
  if (rlx_expr_is_const_int(e, &v)) return rlx_ir_i64(ctx, v);
  return rlx_ir_cast(ctx, rlx_dt_int64(), e);
}

static rlx_expr_t** copy_dims(rlx_ctx_t* ctx, int n, rlx_expr_t* const* dims) {
  if (!dims || n < 0) return NULL;
  rlx_expr_t** out = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int i = 0; i < n; i++) out[i] = to_i64(ctx, dims[i]);
  return out;
}

rlx_sinfo_t* rlx_sinfo_object(rlx_ctx_t* ctx) {
  rlx_sinfo_object_t* s = RLX_NEW(ctx, rlx_sinfo_object_t);
  s->hdr.kind = RLX_SINFO_OBJECT;
  return &s->hdr;
}

rlx_sinfo_t* rlx_sinfo_prim(rlx_ctx_t* ctx, rlx_dtype_t dtype, rlx_expr_t* value) {
  rlx_sinfo_prim_t* s = RLX_NEW(ctx, rlx_sinfo_prim_t);
  s->hdr.kind = RLX_SINFO_PRIM;
  s->dtype = value ? value->dtype : dtype;
  s->value = value;
  return &s->hdr;
}

rlx_sinfo_t* rlx_sinfo_shape(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* values) {
  rlx_sinfo_shape_t* s = RLX_NEW(ctx, rlx_sinfo_shape_t);
  s->hdr.kind = RLX_SINFO_SHAPE;
  s->ndim = ndim < 0 ? -1 : ndim;
  s->values = s->ndim >= 0 ? copy_dims(ctx, ndim, values) : NULL;
  return &s->hdr;
}

rlx_sinfo_t* rlx_sinfo_tensor(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_dtype_t dtype) {
  rlx_sinfo_tensor_t* s = RLX_NEW(ctx, rlx_sinfo_tensor_t);
  s->hdr.kind = RLX_SINFO_TENSOR;
  s->ndim = ndim < 0 ? -1 : ndim;
  s->shape = s->ndim >= 0 ? copy_dims(ctx, ndim, shape) : NULL;
  s->dtype = dtype;
  return &s->hdr;
}

rlx_sinfo_t* rlx_sinfo_tensor_const(rlx_ctx_t* ctx, int ndim, const int64_t* dims, rlx_dtype_t dtype) {
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, ndim);
  for (int i = 0; i < ndim; i++) shape[i] = rlx_ir_i64(ctx, dims[i]);
  return rlx_sinfo_tensor(ctx, ndim, shape, dtype);
}

rlx_sinfo_t* rlx_sinfo_tuple(rlx_ctx_t* ctx, int n, rlx_sinfo_t* const* fields) {
  rlx_sinfo_tuple_t* s = RLX_NEW(ctx, rlx_sinfo_tuple_t);
  s->hdr.kind = RLX_SINFO_TUPLE;
  s->n_fields = n;
  s->fields = RLX_NEW_ARRAY(ctx, rlx_sinfo_t*, n);
  for (int i = 0; i < n; i++) s->fields[i] = fields[i];
  return &s->hdr;
}

rlx_sinfo_t* rlx_sinfo_func(rlx_ctx_t* ctx, int n_params, rlx_sinfo_t* const* params, rlx_sinfo_t* ret,
                            bool is_pure) {
  rlx_sinfo_func_t* s = RLX_NEW(ctx, rlx_sinfo_func_t);
  s->hdr.kind = RLX_SINFO_FUNC;
  s->n_params = n_params < 0 ? -1 : n_params;
  s->params = RLX_NEW_ARRAY(ctx, rlx_sinfo_t*, n_params);
  for (int i = 0; i < n_params; i++) s->params[i] = params[i];
  s->ret = ret ? ret : rlx_sinfo_object(ctx);
  s->is_pure = is_pure;
  return &s->hdr;
}

rlx_sinfo_t* rlx_sinfo_func_opaque(rlx_ctx_t* ctx, rlx_sinfo_t* ret, bool is_pure) {
  return rlx_sinfo_func(ctx, -1, NULL, ret, is_pure);
}

/* ------------------------------------------------------------------ equality / base / lca */
static bool dim_equal(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b) {
  int64_t x, y;
  if (a == b) return true;
  if (rlx_expr_is_const_int(a, &x) && rlx_expr_is_const_int(b, &y)) return x == y;
  return rlx_ir_prove_equal(ctx, a, b);
}

static bool dims_equal(rlx_ctx_t* ctx, int n, rlx_expr_t* const* a, rlx_expr_t* const* b) {
  for (int i = 0; i < n; i++)
    if (!dim_equal(ctx, a[i], b[i])) return false;
  return true;
}

bool rlx_sinfo_equal(rlx_ctx_t* ctx, const rlx_sinfo_t* a, const rlx_sinfo_t* b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
    case RLX_SINFO_OBJECT: return true;
    case RLX_SINFO_PRIM: {
      const rlx_sinfo_prim_t *x = (const void*)a, *y = (const void*)b;
      if (!rlx_dtype_eq(x->dtype, y->dtype) || !x->value != !y->value) return false;
      return !x->value || dim_equal(ctx, x->value, y->value);
    }
    case RLX_SINFO_SHAPE: {
      const rlx_sinfo_shape_t *x = (const void*)a, *y = (const void*)b;
      if (x->ndim != y->ndim || !x->values != !y->values) return false;
      return !x->values || dims_equal(ctx, x->ndim, x->values, y->values);
    }
    case RLX_SINFO_TENSOR: {
      const rlx_sinfo_tensor_t *x = (const void*)a, *y = (const void*)b;
      if (x->ndim != y->ndim || !rlx_dtype_eq(x->dtype, y->dtype) || !x->shape != !y->shape) return false;
      return !x->shape || dims_equal(ctx, x->ndim, x->shape, y->shape);
    }
    case RLX_SINFO_TUPLE: {
      const rlx_sinfo_tuple_t *x = (const void*)a, *y = (const void*)b;
      if (x->n_fields != y->n_fields) return false;
      for (int i = 0; i < x->n_fields; i++)
        if (!rlx_sinfo_equal(ctx, x->fields[i], y->fields[i])) return false;
      return true;
    }
    case RLX_SINFO_FUNC: {
      const rlx_sinfo_func_t *x = (const void*)a, *y = (const void*)b;
      if (x->n_params != y->n_params || x->is_pure != y->is_pure) return false;
      for (int i = 0; i < x->n_params; i++)
        if (!rlx_sinfo_equal(ctx, x->params[i], y->params[i])) return false;
      return rlx_sinfo_equal(ctx, x->ret, y->ret);
    }
  }
  return false;
}

bool rlx_sinfo_is_base_of(rlx_ctx_t* ctx, const rlx_sinfo_t* base, const rlx_sinfo_t* derived) {
  if (!base || !derived) return false;
  if (base->kind == RLX_SINFO_OBJECT) return true;
  if (base->kind != derived->kind) return false;
  switch (base->kind) {
    case RLX_SINFO_OBJECT: return true;
    case RLX_SINFO_PRIM: {
      const rlx_sinfo_prim_t *b = (const void*)base, *d = (const void*)derived;
      if (!rlx_dtype_is_void(b->dtype) && !rlx_dtype_eq(b->dtype, d->dtype)) return false;
      if (!b->value) return true;
      return d->value && dim_equal(ctx, b->value, d->value);
    }
    case RLX_SINFO_SHAPE: {
      const rlx_sinfo_shape_t *b = (const void*)base, *d = (const void*)derived;
      if (b->ndim >= 0 && b->ndim != d->ndim) return false;
      if (!b->values) return true;
      return d->values && dims_equal(ctx, b->ndim, b->values, d->values);
    }
    case RLX_SINFO_TENSOR: {
      const rlx_sinfo_tensor_t *b = (const void*)base, *d = (const void*)derived;
      if (!rlx_dtype_is_void(b->dtype) && !rlx_dtype_eq(b->dtype, d->dtype)) return false;
      if (b->ndim >= 0 && b->ndim != d->ndim) return false;
      if (!b->shape) return true;
      return d->shape && dims_equal(ctx, b->ndim, b->shape, d->shape);
    }
    case RLX_SINFO_TUPLE: {
      const rlx_sinfo_tuple_t *b = (const void*)base, *d = (const void*)derived;
      if (b->n_fields != d->n_fields) return false;
      for (int i = 0; i < b->n_fields; i++)
        if (!rlx_sinfo_is_base_of(ctx, b->fields[i], d->fields[i])) return false;
      return true;
    }
    case RLX_SINFO_FUNC: {
      const rlx_sinfo_func_t *b = (const void*)base, *d = (const void*)derived;
      if (b->is_pure && !d->is_pure) return false; /* an impure function is no pure one */
      if (b->n_params < 0) return true;
      if (d->n_params != b->n_params) return false;
      for (int i = 0; i < b->n_params; i++) /* params are contravariant */
        if (!rlx_sinfo_is_base_of(ctx, d->params[i], b->params[i])) return false;
      return rlx_sinfo_is_base_of(ctx, b->ret, d->ret);
    }
  }
  return false;
}

rlx_sinfo_t* rlx_sinfo_lca(rlx_ctx_t* ctx, rlx_sinfo_t* a, rlx_sinfo_t* b) {
  if (!a || !b) return rlx_sinfo_object(ctx);
  if (rlx_sinfo_is_base_of(ctx, a, b)) return a;
  if (rlx_sinfo_is_base_of(ctx, b, a)) return b;
  if (a->kind != b->kind) return rlx_sinfo_object(ctx);
  switch (a->kind) {
    case RLX_SINFO_OBJECT: return a;
    case RLX_SINFO_PRIM: {
      rlx_sinfo_prim_t *x = (void*)a, *y = (void*)b;
      if (!rlx_dtype_eq(x->dtype, y->dtype)) return rlx_sinfo_object(ctx);
      return rlx_sinfo_prim(ctx, x->dtype, NULL);
    }
    case RLX_SINFO_SHAPE: {
      rlx_sinfo_shape_t *x = (void*)a, *y = (void*)b;
      return rlx_sinfo_shape(ctx, x->ndim == y->ndim ? x->ndim : -1, NULL);
    }
    case RLX_SINFO_TENSOR: {
      rlx_sinfo_tensor_t *x = (void*)a, *y = (void*)b;
      rlx_dtype_t dt = rlx_dtype_eq(x->dtype, y->dtype) ? x->dtype : rlx_dt_void();
      if (x->ndim != y->ndim) return rlx_sinfo_tensor(ctx, -1, NULL, dt);
      if (x->shape && y->shape && dims_equal(ctx, x->ndim, x->shape, y->shape))
        return rlx_sinfo_tensor(ctx, x->ndim, x->shape, dt);
      return rlx_sinfo_tensor(ctx, x->ndim, NULL, dt);
    }
    case RLX_SINFO_TUPLE: {
      rlx_sinfo_tuple_t *x = (void*)a, *y = (void*)b;
      if (x->n_fields != y->n_fields) return rlx_sinfo_object(ctx);
      rlx_sinfo_t** f = RLX_NEW_ARRAY(ctx, rlx_sinfo_t*, x->n_fields);
      for (int i = 0; i < x->n_fields; i++) f[i] = rlx_sinfo_lca(ctx, x->fields[i], y->fields[i]);
      return rlx_sinfo_tuple(ctx, x->n_fields, f);
    }
    case RLX_SINFO_FUNC: {
      rlx_sinfo_func_t *x = (void*)a, *y = (void*)b;
      return rlx_sinfo_func_opaque(ctx, rlx_sinfo_lca(ctx, x->ret, y->ret), x->is_pure && y->is_pure);
    }
  }
  return rlx_sinfo_object(ctx);
}

/* ------------------------------------------------------------------ printing */
static int prec(const rlx_expr_t* e) {
  switch (e->kind) {
    case RLX_EXPR_OR: return 1;
    case RLX_EXPR_AND: return 2;
    case RLX_EXPR_EQ:
    case RLX_EXPR_NE:
    case RLX_EXPR_LT:
    case RLX_EXPR_LE:
    case RLX_EXPR_GT:
    case RLX_EXPR_GE: return 3;
    case RLX_EXPR_ADD:
    case RLX_EXPR_SUB: return 4;
    case RLX_EXPR_MUL:
    case RLX_EXPR_FLOOR_DIV:
    case RLX_EXPR_FLOOR_MOD: return 5;
    default: return 9; /* atoms and calls */
  }
}

static const char* infix(rlx_expr_kind_t k) {
  switch (k) {
    case RLX_EXPR_ADD: return " + ";
    case RLX_EXPR_SUB: return " - ";
    case RLX_EXPR_MUL: return " * ";
    case RLX_EXPR_FLOOR_DIV: return " // ";
    case RLX_EXPR_FLOOR_MOD: return " % ";
    case RLX_EXPR_EQ: return " == ";
    case RLX_EXPR_NE: return " != ";
    case RLX_EXPR_LT: return " < ";
    case RLX_EXPR_LE: return " <= ";
    case RLX_EXPR_GT: return " > ";
    case RLX_EXPR_GE: return " >= ";
    case RLX_EXPR_AND: return " and ";
    case RLX_EXPR_OR: return " or ";
    default: return NULL;
  }
}

static void prim_print(const rlx_expr_t* e, rlx_strbuf_t* sb, const rlx_prim_print_hooks_t* h);

static void print_operand(const rlx_expr_t* e, int min_prec, rlx_strbuf_t* sb, const rlx_prim_print_hooks_t* h) {
  bool paren = prec(e) < min_prec;
  if (paren) rlx_strbuf_append(sb, "(");
  prim_print(e, sb, h);
  if (paren) rlx_strbuf_append(sb, ")");
}

/* "T." forms note themselves in *h->used_tir. */
static void used_tir(const rlx_prim_print_hooks_t* h) {
  if (h->used_tir) *h->used_tir = true;
}

static void prim_print(const rlx_expr_t* e, rlx_strbuf_t* sb, const rlx_prim_print_hooks_t* h) {
  char buf[32];
  if (!e) {
    rlx_strbuf_append(sb, h->null_text ? h->null_text : "<null>");
    return;
  }
  const char* op = infix(e->kind);
  if (op) {
    const rlx_binary_t* b = (const rlx_binary_t*)e;
    int p = prec(e);
    print_operand(b->a, p, sb, h);
    rlx_strbuf_append(sb, op);
    /* left-associative: an equal-precedence right operand needs parentheses */
    print_operand(b->b, p + 1, sb, h);
    return;
  }
  switch (e->kind) {
    case RLX_EXPR_INT_IMM: {
      int64_t v = ((const rlx_int_imm_t*)e)->value;
      if (rlx_dtype_eq(e->dtype, rlx_dt_int64())) {
        rlx_strbuf_printf(sb, "%lld", (long long)v);
        return;
      }
      if (rlx_dtype_is_bool(e->dtype)) rlx_strbuf_append(sb, v ? "T.bool(True)" : "T.bool(False)");
      else rlx_strbuf_printf(sb, "T.%s(%lld)", rlx_dtype_str(e->dtype, buf), (long long)v);
      used_tir(h);
      return;
    }
    case RLX_EXPR_FLOAT_IMM:
      rlx_strbuf_printf(sb, "T.%s(", rlx_dtype_str(e->dtype, buf));
      if (h->put_float) h->put_float(sb, ((const rlx_float_imm_t*)e)->value);
      else rlx_strbuf_printf(sb, "%.17g", ((const rlx_float_imm_t*)e)->value);
      rlx_strbuf_append(sb, ")");
      used_tir(h);
      return;
    case RLX_EXPR_STRING_IMM:
      if (h->put_string) h->put_string(sb, ((const rlx_string_imm_t*)e)->value);
      else rlx_strbuf_printf(sb, "\"%s\"", ((const rlx_string_imm_t*)e)->value);
      return;
    case RLX_EXPR_VAR:
      rlx_strbuf_append(sb, h->var_name ? h->var_name(h->user, (const rlx_var_t*)e) : ((const rlx_var_t*)e)->name);
      return;
    case RLX_EXPR_DIV:
    case RLX_EXPR_MOD:
    case RLX_EXPR_MIN:
    case RLX_EXPR_MAX: {
      const rlx_binary_t* b = (const rlx_binary_t*)e;
      const char* name = e->kind == RLX_EXPR_DIV   ? "T.Div"
                         : e->kind == RLX_EXPR_MOD ? "T.truncmod"
                         : e->kind == RLX_EXPR_MIN ? "T.min"
                                                   : "T.max";
      rlx_strbuf_printf(sb, "%s(", name);
      prim_print(b->a, sb, h);
      rlx_strbuf_append(sb, ", ");
      prim_print(b->b, sb, h);
      rlx_strbuf_append(sb, ")");
      used_tir(h);
      return;
    }
    case RLX_EXPR_NOT:
      rlx_strbuf_append(sb, "not ");
      print_operand(((const rlx_not_t*)e)->a, 9, sb, h);
      return;
    case RLX_EXPR_SELECT: {
      const rlx_select_t* s = (const rlx_select_t*)e;
      rlx_strbuf_append(sb, "T.Select(");
      prim_print(s->cond, sb, h);
      rlx_strbuf_append(sb, ", ");
      prim_print(s->t, sb, h);
      rlx_strbuf_append(sb, ", ");
      prim_print(s->f, sb, h);
      rlx_strbuf_append(sb, ")");
      used_tir(h);
      return;
    }
    case RLX_EXPR_CAST:
      rlx_strbuf_printf(sb, "T.Cast(\"%s\", ", rlx_dtype_str(e->dtype, buf));
      prim_print(((const rlx_cast_t*)e)->value, sb, h);
      rlx_strbuf_append(sb, ")");
      used_tir(h);
      return;
    case RLX_EXPR_CALL: {
      const rlx_call_t* c = (const rlx_call_t*)e;
      rlx_strbuf_printf(sb, "T.%s(", c->op);
      for (int i = 0; i < c->n_args; i++) {
        if (i) rlx_strbuf_append(sb, ", ");
        prim_print(c->args[i], sb, h);
      }
      rlx_strbuf_append(sb, ")");
      used_tir(h);
      return;
    }
    default: rlx_strbuf_printf(sb, "<%s>", rlx_expr_kind_name(e->kind)); return;
  }
}

void rlx_relax_prim_print_ex(const rlx_expr_t* e, rlx_strbuf_t* sb, const rlx_prim_print_hooks_t* hooks) {
  static const rlx_prim_print_hooks_t none = {0};
  prim_print(e, sb, hooks ? hooks : &none);
}

void rlx_relax_prim_print(const rlx_expr_t* e, rlx_strbuf_t* sb) { rlx_relax_prim_print_ex(e, sb, NULL); }

/* The dims of a shape: through the caller's dim printer, else as Relax prints PrimExprs. */
typedef struct {
  rlx_sinfo_dim_fn_t dim;
  void* user;
  const char* none;
} sinfo_printer_t;

static void print_dim(const sinfo_printer_t* pr, const rlx_expr_t* e, rlx_strbuf_t* sb) {
  if (pr->dim) pr->dim(pr->user, e, sb);
  else rlx_relax_prim_print(e, sb);
}

static void print_dims(const sinfo_printer_t* pr, int n, rlx_expr_t* const* dims, rlx_strbuf_t* sb) {
  for (int i = 0; i < n; i++) {
    if (i) rlx_strbuf_append(sb, ", ");
    print_dim(pr, dims[i], sb);
  }
}

static void print_sinfo(const sinfo_printer_t* pr, const rlx_sinfo_t* s, rlx_strbuf_t* sb) {
  char buf[32];
  if (!s) {
    rlx_strbuf_append(sb, pr->none);
    return;
  }
  switch (s->kind) {
    case RLX_SINFO_OBJECT: rlx_strbuf_append(sb, "R.Object"); return;
    case RLX_SINFO_PRIM: {
      const rlx_sinfo_prim_t* p = (const void*)s;
      if (p->value) {
        rlx_strbuf_append(sb, "R.Prim(value=");
        print_dim(pr, p->value, sb);
        rlx_strbuf_append(sb, ")");
      } else {
        rlx_strbuf_printf(sb, "R.Prim(\"%s\")", rlx_dtype_is_void(p->dtype) ? "void" : rlx_dtype_str(p->dtype, buf));
      }
      return;
    }
    case RLX_SINFO_SHAPE: {
      const rlx_sinfo_shape_t* p = (const void*)s;
      if (p->values) {
        rlx_strbuf_append(sb, "R.Shape([");
        print_dims(pr, p->ndim, p->values, sb);
        rlx_strbuf_append(sb, "])");
      } else {
        rlx_strbuf_printf(sb, "R.Shape(ndim=%d)", p->ndim); /* TVM prints ndim=-1 too */
      }
      return;
    }
    case RLX_SINFO_TENSOR: {
      const rlx_sinfo_tensor_t* t = (const void*)s;
      bool any = false;
      rlx_strbuf_append(sb, "R.Tensor");
      if (t->shape) {
        rlx_strbuf_append(sb, "((");
        print_dims(pr, t->ndim, t->shape, sb);
        rlx_strbuf_append(sb, t->ndim == 1 ? ",)" : ")");
        any = true;
      }
      if (!rlx_dtype_is_void(t->dtype)) {
        rlx_strbuf_printf(sb, "%sdtype=\"%s\"", any ? ", " : "(", rlx_dtype_str(t->dtype, buf));
        any = true;
      }
      if (!t->shape && t->ndim >= 0) {
        rlx_strbuf_printf(sb, "%sndim=%d", any ? ", " : "(", t->ndim);
        any = true;
      }
      if (any) rlx_strbuf_append(sb, ")");
      return;
    }
    case RLX_SINFO_TUPLE: {
      const rlx_sinfo_tuple_t* t = (const void*)s;
      rlx_strbuf_append(sb, "R.Tuple");
      if (t->n_fields == 0) return;
      rlx_strbuf_append(sb, "(");
      for (int i = 0; i < t->n_fields; i++) {
        if (i) rlx_strbuf_append(sb, ", ");
        print_sinfo(pr, t->fields[i], sb);
      }
      rlx_strbuf_append(sb, ")");
      return;
    }
    case RLX_SINFO_FUNC: {
      const rlx_sinfo_func_t* f = (const void*)s;
      if (f->n_params < 0) { /* TVM: ret only when not Object, purity only when pure */
        bool has_ret = f->ret && f->ret->kind != RLX_SINFO_OBJECT;
        rlx_strbuf_append(sb, "R.Callable");
        if (!has_ret && !f->is_pure) return;
        rlx_strbuf_append(sb, "(");
        if (has_ret) {
          rlx_strbuf_append(sb, "ret=");
          print_sinfo(pr, f->ret, sb);
        }
        if (f->is_pure) rlx_strbuf_printf(sb, "%spurity=True", has_ret ? ", " : "");
        rlx_strbuf_append(sb, ")");
        return;
      }
      rlx_strbuf_append(sb, "R.Callable((");
      for (int i = 0; i < f->n_params; i++) {
        if (i) rlx_strbuf_append(sb, ", ");
        print_sinfo(pr, f->params[i], sb);
      }
      rlx_strbuf_append(sb, f->n_params == 1 ? ",), " : "), ");
      print_sinfo(pr, f->ret, sb);
      rlx_strbuf_printf(sb, ", %s)", f->is_pure ? "True" : "False");
      return;
    }
  }
}

void rlx_sinfo_print(const rlx_sinfo_t* s, rlx_strbuf_t* sb) {
  sinfo_printer_t pr = {NULL, NULL, "<none>"};
  print_sinfo(&pr, s, sb);
}

void rlx_sinfo_print_ex(const rlx_sinfo_t* s, rlx_strbuf_t* sb, rlx_sinfo_dim_fn_t dim, void* user,
                        const char* none) {
  sinfo_printer_t pr = {dim, user, none};
  print_sinfo(&pr, s, sb);
}

const char* rlx_sinfo_str(rlx_ctx_t* ctx, const rlx_sinfo_t* s) {
  rlx_strbuf_t sb = {0};
  rlx_sinfo_print(s, &sb);
  const char* out = rlx_ctx_strdup(ctx, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return out;
}

/* ------------------------------------------------------------------ symbolic vars */
typedef struct {
  void (*f)(rlx_var_t* v, bool whole_dim, void* user);
  void* user;
  const rlx_expr_t* top;
} var_visit_t;

static void visit_var_cb(const rlx_expr_t* e, void* user) {
  var_visit_t* vv = user;
  if (e->kind == RLX_EXPR_VAR) vv->f((rlx_var_t*)e, e == vv->top, vv->user);
}

static void visit_dim(rlx_expr_t* e, var_visit_t* vv) {
  vv->top = e;
  rlx_expr_visit(e, visit_var_cb, vv);
}

void rlx_sinfo_visit_vars(const rlx_sinfo_t* s, void (*f)(rlx_var_t* v, bool whole_dim, void* user), void* user) {
  var_visit_t vv = {f, user, NULL};
  if (!s) return;
  switch (s->kind) {
    case RLX_SINFO_OBJECT: return;
    case RLX_SINFO_PRIM: {
      const rlx_sinfo_prim_t* p = (const void*)s;
      if (p->value) visit_dim(p->value, &vv);
      return;
    }
    case RLX_SINFO_SHAPE: {
      const rlx_sinfo_shape_t* p = (const void*)s;
      if (p->values)
        for (int i = 0; i < p->ndim; i++) visit_dim(p->values[i], &vv);
      return;
    }
    case RLX_SINFO_TENSOR: {
      const rlx_sinfo_tensor_t* t = (const void*)s;
      if (t->shape)
        for (int i = 0; i < t->ndim; i++) visit_dim(t->shape[i], &vv);
      return;
    }
    case RLX_SINFO_TUPLE: {
      const rlx_sinfo_tuple_t* t = (const void*)s;
      for (int i = 0; i < t->n_fields; i++) rlx_sinfo_visit_vars(t->fields[i], f, user);
      return;
    }
    case RLX_SINFO_FUNC: {
      /* A Func's params/ret may mention vars bound by that function's own params; they are
       * not uses in the enclosing scope. */
      return;
    }
  }
}

typedef struct {
  bool (*is_defined)(rlx_var_t* v, void* user);
  void* user;
  bool ok;
} erase_check_t;

static void erase_check_cb(const rlx_expr_t* e, void* user) {
  erase_check_t* c = user;
  if (e->kind == RLX_EXPR_VAR && (!c->is_defined || !c->is_defined((rlx_var_t*)e, c->user))) c->ok = false;
}

static bool dims_defined(int n, rlx_expr_t* const* dims, bool (*is_defined)(rlx_var_t*, void*), void* user) {
  erase_check_t c = {is_defined, user, true};
  for (int i = 0; i < n; i++) rlx_expr_visit(dims[i], erase_check_cb, &c);
  return c.ok;
}

rlx_sinfo_t* rlx_sinfo_erase_undefined(rlx_ctx_t* ctx, rlx_sinfo_t* s, bool (*is_defined)(rlx_var_t* v, void* user),
                                       void* user) {
  if (!s) return s;
  switch (s->kind) {
    case RLX_SINFO_OBJECT: return s;
    case RLX_SINFO_PRIM: {
      rlx_sinfo_prim_t* p = (void*)s;
      if (!p->value || dims_defined(1, &p->value, is_defined, user)) return s;
      return rlx_sinfo_prim(ctx, p->dtype, NULL);
    }
    case RLX_SINFO_SHAPE: {
      rlx_sinfo_shape_t* p = (void*)s;
      if (!p->values || dims_defined(p->ndim, p->values, is_defined, user)) return s;
      return rlx_sinfo_shape(ctx, p->ndim, NULL);
    }
    case RLX_SINFO_TENSOR: {
      rlx_sinfo_tensor_t* t = (void*)s;
      if (!t->shape || dims_defined(t->ndim, t->shape, is_defined, user)) return s;
      return rlx_sinfo_tensor(ctx, t->ndim, NULL, t->dtype);
    }
    case RLX_SINFO_TUPLE: {
      rlx_sinfo_tuple_t* t = (void*)s;
      rlx_sinfo_t** f = RLX_NEW_ARRAY(ctx, rlx_sinfo_t*, t->n_fields);
      bool changed = false;
      for (int i = 0; i < t->n_fields; i++) {
        f[i] = rlx_sinfo_erase_undefined(ctx, t->fields[i], is_defined, user);
        changed |= f[i] != t->fields[i];
      }
      return changed ? rlx_sinfo_tuple(ctx, t->n_fields, f) : s;
    }
    case RLX_SINFO_FUNC: return s;
  }
  return s;
}
