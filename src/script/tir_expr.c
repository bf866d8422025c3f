/* TIR script builder, expression half: Python AST expressions → PrimExprs (TVM's literal
 * typing: a plain int is int32, a float is float32, mixing with int64 promotes), buffer
 * loads/regions, and the read/write region inference TVM applies to blocks without
 * T.reads/T.writes. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tir_parse.h"

RLX_MUST_USE rlx_status_t* tp_err_at(tp_t* p, rlx_span_t sp, const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  (void)p;
  return rlx_error(RLX_PARSE_ERROR, sp, "%s", msg);
}

RLX_MUST_USE rlx_status_t* tp_err(tp_t* p, const py_expr_t* e, const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  rlx_span_t sp = e ? e->span : (rlx_span_t){p->file, 0, 0};
  return rlx_error(RLX_PARSE_ERROR, sp, "%s", msg);
}

void tp_define(tp_t* p, const char* name, sym_kind_t kind, void* ptr) {
  sym_t s = {name, kind, ptr, p->depth};
  rlx_vec_push(&p->syms, s);
}

sym_t* tp_lookup(tp_t* p, const char* name) {
  for (int i = p->syms.len - 1; i >= 0; i--)
    if (strcmp(p->syms.data[i].name, name) == 0) return &p->syms.data[i];
  return NULL;
}

void tp_frame_push(tp_t* p) { p->depth++; }
void tp_frame_pop(tp_t* p) {
  while (p->syms.len && p->syms.data[p->syms.len - 1].depth >= p->depth) p->syms.len--;
  p->depth--;
}

const char* tp_tname(tp_t* p, const py_expr_t* e) {
  const char* d = py_dotted_name(p->ast, e);
  if (!d) return NULL;
  size_t n = strlen(p->tir_alias);
  if (strncmp(d, p->tir_alias, n) == 0 && d[n] == '.') return d + n + 1;
  return NULL;
}

const py_expr_t* tp_arg(const py_expr_t* call, int i, const char* kw) {
  if (kw)
    for (int k = 0; k < call->n_kw; k++)
      if (strcmp(call->kw_names[k], kw) == 0) return call->kw_values[k];
  if (i >= 0 && i < call->n) return call->items[i];
  return NULL;
}

RLX_MUST_USE rlx_status_t* tp_dtype(tp_t* p, const py_expr_t* e, rlx_dtype_t* out) {
  const char* s = NULL;
  if (e->kind == PY_E_STR) s = e->str;
  else s = tp_tname(p, e);
  if (!s || !rlx_dtype_parse(s, out)) return tp_err(p, e, "expected a dtype such as \"float32\", got %s", s ? s : "an expression");
  return NULL;
}

bool tp_int_literal(const py_expr_t* e, int64_t* out) {
  if (e->kind == PY_E_INT) {
    *out = e->ival;
    return true;
  }
  if (e->kind == PY_E_UNARY && strcmp(e->op, "-") == 0 && e->a->kind == PY_E_INT) {
    *out = -e->a->ival;
    return true;
  }
  return false;
}

static bool float_literal(const py_expr_t* e, double* out) {
  int64_t iv;
  if (tp_int_literal(e, &iv)) {
    *out = (double)iv;
    return true;
  }
  if (e->kind == PY_E_FLOAT) {
    *out = e->fval;
    return true;
  }
  if (e->kind == PY_E_UNARY && strcmp(e->op, "-") == 0 && e->a->kind == PY_E_FLOAT) {
    *out = -e->a->fval;
    return true;
  }
  if (e->kind == PY_E_STR) {
    if (strcmp(e->str, "inf") == 0) return *out = INFINITY, true;
    if (strcmp(e->str, "-inf") == 0) return *out = -INFINITY, true;
    if (strcmp(e->str, "nan") == 0) return *out = NAN, true;
  }
  return false;
}

static RLX_MUST_USE rlx_status_t* arity(tp_t* p, const py_expr_t* call, const char* name, int lo, int hi) {
  if (call->n < lo || call->n > hi) {
    if (lo == hi) return tp_err(p, call, "expected %d argument%s to T.%s, got %d", lo, lo == 1 ? "" : "s", name, call->n);
    return tp_err(p, call, "expected %d to %d arguments to T.%s, got %d", lo, hi, name, call->n);
  }
  return NULL;
}

RLX_MUST_USE rlx_status_t* tp_buffer(tp_t* p, const py_expr_t* e, rlx_tir_buffer_t** out) {
  if (e->kind != PY_E_NAME) return tp_err(p, e, "expected a buffer name, got an expression");
  sym_t* s = tp_lookup(p, e->str);
  if (!s) return tp_err(p, e, "undefined buffer '%s'", e->str);
  if (s->kind != SYM_BUFFER) return tp_err(p, e, "expected a buffer, got variable '%s'", e->str);
  *out = s->ptr;
  return NULL;
}

/* Linear form: sum(coef[i] * atom[i]) + c, for simplifying extents and comparing bounds. */
typedef struct {
  int n;
  const rlx_expr_t* atom[16];
  int64_t coef[16];
  int64_t c;
  bool ok;
} lin_t;

static void lin_add_atom(lin_t* l, const rlx_expr_t* a, int64_t coef) {
  for (int i = 0; i < l->n; i++)
    if (rlx_expr_equal(l->atom[i], a)) {
      l->coef[i] += coef;
      return;
    }
  if (l->n == 16) {
    l->ok = false;
    return;
  }
  l->atom[l->n] = a;
  l->coef[l->n++] = coef;
}

static void lin_of(const rlx_expr_t* e, int64_t scale, lin_t* l) {
  if (!l->ok) return;
  switch (e->kind) {
    case RLX_EXPR_INT_IMM: l->c += scale * RLX_AS(const rlx_int_imm_t, e)->value; return;
    case RLX_EXPR_ADD:
      lin_of(RLX_AS(const rlx_binary_t, e)->a, scale, l);
      lin_of(RLX_AS(const rlx_binary_t, e)->b, scale, l);
      return;
    case RLX_EXPR_SUB:
      lin_of(RLX_AS(const rlx_binary_t, e)->a, scale, l);
      lin_of(RLX_AS(const rlx_binary_t, e)->b, -scale, l);
      return;
    case RLX_EXPR_MUL: {
      const rlx_binary_t* b = RLX_AS(const rlx_binary_t, e);
      int64_t k;
      if (rlx_expr_is_const_int(b->b, &k)) {
        lin_of(b->a, scale * k, l);
        return;
      }
      if (rlx_expr_is_const_int(b->a, &k)) {
        lin_of(b->b, scale * k, l);
        return;
      }
      break;
    }
    default: break;
  }
  lin_add_atom(l, e, scale);
}

/* a - b as a constant, when the difference is constant. */
static bool const_diff(const rlx_expr_t* a, const rlx_expr_t* b, int64_t* out) {
  lin_t l = {0};
  l.ok = true;
  lin_of(a, 1, &l);
  lin_of(b, -1, &l);
  if (!l.ok) return false;
  for (int i = 0; i < l.n; i++)
    if (l.coef[i] != 0) return false;
  *out = l.c;
  return true;
}

rlx_expr_t* tp_extent(tp_t* p, rlx_expr_t* start, rlx_expr_t* stop) {
  int64_t d;
  /* The printer writes `start + extent`: take the extent back as written (a fixed point). */
  if (stop->kind == RLX_EXPR_ADD && rlx_expr_equal(RLX_AS(rlx_binary_t, stop)->a, start)) return RLX_AS(rlx_binary_t, stop)->b;
  if (rlx_dtype_is_int(start->dtype) && rlx_dtype_is_int(stop->dtype) && const_diff(stop, start, &d)) {
    rlx_dtype_t t = start->dtype.bits >= stop->dtype.bits ? start->dtype : stop->dtype;
    if (start->kind == RLX_EXPR_INT_IMM && stop->kind != RLX_EXPR_INT_IMM) t = stop->dtype;
    if (stop->kind == RLX_EXPR_INT_IMM && start->kind != RLX_EXPR_INT_IMM) t = start->dtype;
    return rlx_ir_int(p->ctx, t, d);
  }
  return rlx_ir_simplify(p->ctx, rlx_ir_sub(p->ctx, stop, start)); /* as TVM: Simplify(stop - start) */
}

/* ------------------------------------------------------------------ regions and indices */
static RLX_MUST_USE rlx_status_t* subscript_items(tp_t* p, const py_expr_t* sub, int* n, py_expr_t*** items) {
  *n = sub->n;
  *items = sub->items;
  /* A[()] → no indices; A[(i, j)] → i, j */
  if (sub->n == 1 && sub->items[0] && sub->items[0]->kind == PY_E_TUPLE) {
    *n = sub->items[0]->n;
    *items = sub->items[0]->items;
  }
  (void)p;
  return NULL;
}

RLX_MUST_USE rlx_status_t* tp_region(tp_t* p, const py_expr_t* e, rlx_buffer_region_t* out) {
  rlx_tir_buffer_t* b;
  if (e->kind == PY_E_NAME) {
    RLX_RETURN_IF_ERROR(tp_buffer(p, e, &b));
    out->buffer = b;
    out->ndim = b->ndim;
    out->region = RLX_NEW_ARRAY(p->ctx, rlx_range_t, b->ndim);
    for (int i = 0; i < b->ndim; i++) {
      out->region[i].min = rlx_ir_int(p->ctx, b->shape[i]->dtype, 0);
      out->region[i].extent = b->shape[i];
    }
    return NULL;
  }
  if (e->kind != PY_E_SUBSCRIPT) return tp_err(p, e, "expected a buffer region such as A[i, 0:4], got an expression");
  RLX_RETURN_IF_ERROR(tp_buffer(p, e->a, &b));
  int n;
  py_expr_t** items;
  RLX_RETURN_IF_ERROR(subscript_items(p, e, &n, &items));
  if (n != b->ndim)
    return tp_err(p, e, "expected %d indices for buffer '%s', got %d", b->ndim, b->name, n);
  out->buffer = b;
  out->ndim = n;
  out->region = RLX_NEW_ARRAY(p->ctx, rlx_range_t, n);
  for (int i = 0; i < n; i++) {
    const py_expr_t* it = items[i];
    if (it->kind == PY_E_SLICE) {
      if (!it->b) return tp_err(p, it, "expected a slice with an end in a buffer region, got an open slice");
      rlx_expr_t *lo, *hi;
      if (it->a) RLX_RETURN_IF_ERROR(tp_eval(p, it->a, &lo));
      RLX_RETURN_IF_ERROR(tp_eval(p, it->b, &hi));
      if (!it->a) lo = rlx_ir_int(p->ctx, hi->dtype, 0);
      if (!rlx_dtype_is_int(lo->dtype) || !rlx_dtype_is_int(hi->dtype))
        return tp_err(p, it, "expected integer slice bounds, got a non-integer");
      out->region[i].min = lo;
      out->region[i].extent = tp_extent(p, lo, hi);
    } else {
      rlx_expr_t* x;
      RLX_RETURN_IF_ERROR(tp_eval(p, it, &x));
      if (!rlx_dtype_is_int(x->dtype)) return tp_err(p, it, "expected an integer index, got a non-integer expression");
      out->region[i].min = x;
      out->region[i].extent = rlx_ir_int(p->ctx, x->dtype, 1);
    }
  }
  return NULL;
}

RLX_MUST_USE rlx_status_t* tp_indices(tp_t* p, const py_expr_t* sub, rlx_tir_buffer_t* b, int* out_n, rlx_expr_t*** out) {
  int n;
  py_expr_t** items;
  RLX_RETURN_IF_ERROR(subscript_items(p, sub, &n, &items));
  if (n != b->ndim) return tp_err(p, sub, "expected %d indices for buffer '%s', got %d", b->ndim, b->name, n);
  rlx_expr_t** idx = RLX_NEW_ARRAY(p->ctx, rlx_expr_t*, n);
  for (int i = 0; i < n; i++) {
    const py_expr_t* it = items[i];
    if (it->kind == PY_E_SLICE) {
      if (!it->a || !it->b) return tp_err(p, it, "expected a slice with start and end, got an open slice");
      rlx_expr_t *lo, *hi, *step = NULL;
      RLX_RETURN_IF_ERROR(tp_eval(p, it->a, &lo));
      RLX_RETURN_IF_ERROR(tp_eval(p, it->b, &hi));
      if (!rlx_dtype_is_int(lo->dtype) || !rlx_dtype_is_int(hi->dtype))
        return tp_err(p, it, "expected integer slice bounds, got a non-integer");
      if (it->c) RLX_RETURN_IF_ERROR(tp_eval(p, it->c, &step));
      int64_t st = 1, len;
      if (step && !rlx_expr_is_const_int(step, &st)) return tp_err(p, it->c, "expected a constant slice step, got an expression");
      rlx_expr_t* ext = tp_extent(p, lo, hi);
      if (!rlx_expr_is_const_int(ext, &len) || st <= 0 || len <= 0 || len % st != 0 || len / st > 65535)
        return tp_err(p, it, "expected a slice of constant length (a vector access), got a symbolic one");
      idx[i] = rlx_ir_ramp(p->ctx, lo, rlx_ir_int(p->ctx, lo->dtype, st), (int)(len / st));
      continue;
    }
    RLX_RETURN_IF_ERROR(tp_eval(p, it, &idx[i]));
    if (!rlx_dtype_is_int(idx[i]->dtype)) return tp_err(p, it, "expected an integer index, got a non-integer expression");
  }
  *out_n = n;
  *out = idx;
  return NULL;
}

RLX_MUST_USE rlx_status_t* tp_shape(tp_t* p, const py_expr_t* e, int* out_n, rlx_expr_t*** out) {
  if (e->kind == PY_E_TUPLE || e->kind == PY_E_LIST) {
    rlx_expr_t** s = RLX_NEW_ARRAY(p->ctx, rlx_expr_t*, e->n);
    for (int i = 0; i < e->n; i++) {
      RLX_RETURN_IF_ERROR(tp_eval(p, e->items[i], &s[i]));
      if (!rlx_dtype_is_int(s[i]->dtype)) return tp_err(p, e->items[i], "expected an integer shape, got a non-integer");
    }
    *out_n = e->n;
    *out = s;
    return NULL;
  }
  rlx_expr_t** s = RLX_NEW_ARRAY(p->ctx, rlx_expr_t*, 1);
  RLX_RETURN_IF_ERROR(tp_eval(p, e, &s[0]));
  if (!rlx_dtype_is_int(s[0]->dtype)) return tp_err(p, e, "expected a shape tuple, got a non-integer");
  *out_n = 1;
  *out = s;
  return NULL;
}

/* ------------------------------------------------------------------ expressions */
static rlx_expr_t* binop(tp_t* p, rlx_expr_kind_t k, rlx_expr_t* a, rlx_expr_t* b) {
  return rlx_ir_binary(p->ctx, k, a, b);
}

/* Evaluates e, which must be numeric (not a string). */
static RLX_MUST_USE rlx_status_t* eval_num(tp_t* p, const py_expr_t* e, rlx_expr_t** out) {
  RLX_RETURN_IF_ERROR(tp_eval(p, e, out));
  if ((*out)->kind == RLX_EXPR_STRING_IMM) return tp_err(p, e, "expected a numeric value, got a string");
  return NULL;
}

static RLX_MUST_USE rlx_status_t* eval_args(tp_t* p, const py_expr_t* call, int n, rlx_expr_t** out) {
  for (int i = 0; i < n; i++) RLX_RETURN_IF_ERROR(eval_num(p, call->items[i], &out[i]));
  return NULL;
}

static const struct {
  const char* name;
  rlx_expr_kind_t kind;
} binop_calls[] = {
    {"Add", RLX_EXPR_ADD},       {"Sub", RLX_EXPR_SUB},           {"Mul", RLX_EXPR_MUL},
    {"Div", RLX_EXPR_DIV},       {"Mod", RLX_EXPR_MOD},           {"truncdiv", RLX_EXPR_DIV},
    {"truncmod", RLX_EXPR_MOD},  {"FloorDiv", RLX_EXPR_FLOOR_DIV}, {"floordiv", RLX_EXPR_FLOOR_DIV},
    {"FloorMod", RLX_EXPR_FLOOR_MOD}, {"floormod", RLX_EXPR_FLOOR_MOD}, {"min", RLX_EXPR_MIN},
    {"Min", RLX_EXPR_MIN},       {"max", RLX_EXPR_MAX},           {"Max", RLX_EXPR_MAX},
    {"EQ", RLX_EXPR_EQ},         {"NE", RLX_EXPR_NE},             {"LT", RLX_EXPR_LT},
    {"LE", RLX_EXPR_LE},         {"GT", RLX_EXPR_GT},             {"GE", RLX_EXPR_GE},
    {"And", RLX_EXPR_AND},       {"Or", RLX_EXPR_OR},
};

/* Builds a binary node without constant folding (T.Add(1, 2) stays an Add, as in TVM). */
static rlx_expr_t* raw_binary(tp_t* p, rlx_expr_kind_t k, rlx_expr_t* a, rlx_expr_t* b) {
  if (!rlx_dtype_eq(a->dtype, b->dtype)) return binop(p, k, a, b);
  rlx_binary_t* e = RLX_NEW(p->ctx, rlx_binary_t);
  e->hdr.kind = k;
  e->hdr.dtype = (k >= RLX_EXPR_EQ && k <= RLX_EXPR_OR) ? rlx_dtype_with_lanes(rlx_dt_bool(), a->dtype.lanes) : a->dtype;
  e->a = a;
  e->b = b;
  return &e->hdr;
}

static RLX_MUST_USE rlx_status_t* eval_call(tp_t* p, const py_expr_t* e, rlx_expr_t** out) {
  const char* fn = tp_tname(p, e->a);
  if (!fn) {
    const char* d = py_dotted_name(p->ast, e->a);
    return tp_err(p, e, "expected a T.* function call, got call to %s", d ? d : "an expression");
  }
  rlx_dtype_t dt;
  if (rlx_dtype_parse(fn, &dt)) {
    if (e->n == 0) return tp_err(p, e, "expected a value, got the variable declaration T.%s() (write `x = T.%s()`)", fn, fn);
    RLX_RETURN_IF_ERROR(arity(p, e, fn, 1, 1));
    const py_expr_t* a = e->items[0];
    double fv;
    int64_t iv;
    if (rlx_dtype_is_bool(dt) && a->kind == PY_E_CONST && strcmp(a->str, "None") != 0) {
      *out = rlx_ir_bool(p->ctx, strcmp(a->str, "True") == 0);
      return NULL;
    }
    if (rlx_dtype_is_float(dt) && float_literal(a, &fv)) {
      *out = rlx_ir_float(p->ctx, dt, fv);
      return NULL;
    }
    if ((dt.code == RLX_DT_INT || dt.code == RLX_DT_UINT) && tp_int_literal(a, &iv)) {
      *out = rlx_ir_int(p->ctx, dt, iv);
      return NULL;
    }
    rlx_expr_t* v;
    RLX_RETURN_IF_ERROR(eval_num(p, a, &v));
    *out = rlx_ir_cast(p->ctx, dt, v);
    return NULL;
  }
  rlx_expr_t* args[4];
  for (size_t i = 0; i < sizeof(binop_calls) / sizeof(binop_calls[0]); i++) {
    if (strcmp(fn, binop_calls[i].name) != 0) continue;
    RLX_RETURN_IF_ERROR(arity(p, e, fn, 2, 2));
    RLX_RETURN_IF_ERROR(eval_args(p, e, 2, args));
    bool is_call = fn[0] >= 'A' && fn[0] <= 'Z';
    *out = is_call ? raw_binary(p, binop_calls[i].kind, args[0], args[1]) : binop(p, binop_calls[i].kind, args[0], args[1]);
    return NULL;
  }
  if (strcmp(fn, "Not") == 0) {
    RLX_RETURN_IF_ERROR(arity(p, e, fn, 1, 1));
    RLX_RETURN_IF_ERROR(eval_args(p, e, 1, args));
    *out = rlx_ir_not(p->ctx, args[0]);
    return NULL;
  }
  if (strcmp(fn, "Cast") == 0 || strcmp(fn, "cast") == 0) {
    RLX_RETURN_IF_ERROR(arity(p, e, fn, 2, 2));
    /* T.Cast(dtype, value) (printer) or T.cast(value, dtype) (older scripts) */
    const py_expr_t* dte = e->items[0]->kind == PY_E_STR ? e->items[0] : e->items[1];
    const py_expr_t* ve = dte == e->items[0] ? e->items[1] : e->items[0];
    RLX_RETURN_IF_ERROR(tp_dtype(p, dte, &dt));
    rlx_expr_t* v;
    RLX_RETURN_IF_ERROR(eval_num(p, ve, &v));
    *out = rlx_ir_cast(p->ctx, dt, v);
    return NULL;
  }
  if (strcmp(fn, "Select") == 0 || strcmp(fn, "if_then_else") == 0) {
    RLX_RETURN_IF_ERROR(arity(p, e, fn, 3, 3));
    RLX_RETURN_IF_ERROR(eval_args(p, e, 3, args));
    if (!rlx_dtype_is_bool(args[0]->dtype)) return tp_err(p, e->items[0], "expected a boolean condition, got a non-boolean");
    if (fn[0] == 'S') {
      *out = rlx_ir_select(p->ctx, args[0], args[1], args[2]);
    } else {
      rlx_expr_t* sel = rlx_ir_select(p->ctx, args[0], args[1], args[2]); /* unifies t/f dtypes */
      rlx_select_t* s = RLX_AS(rlx_select_t, sel);
      rlx_expr_t* a3[3] = {args[0], s->t, s->f};
      *out = rlx_ir_call(p->ctx, s->t->dtype, "if_then_else", 3, a3);
    }
    return NULL;
  }
  if (strcmp(fn, "Ramp") == 0 || strcmp(fn, "Broadcast") == 0) {
    bool ramp = fn[0] == 'R';
    RLX_RETURN_IF_ERROR(arity(p, e, fn, ramp ? 3 : 2, ramp ? 3 : 2));
    int64_t lanes;
    const py_expr_t* le = e->items[ramp ? 2 : 1];
    if (!tp_int_literal(le, &lanes) || lanes < 1 || lanes > 65535)
      return tp_err(p, le, "expected a constant lane count, got an expression");
    RLX_RETURN_IF_ERROR(eval_args(p, e, ramp ? 2 : 1, args));
    *out = ramp ? rlx_ir_ramp(p->ctx, args[0], args[1], (int)lanes) : rlx_ir_broadcast(p->ctx, args[0], (int)lanes);
    return NULL;
  }
  if (strcmp(fn, "Let") == 0) {
    const py_expr_t* where = tp_arg(e, 1, "where");
    if (e->n < 1 || !where || where->kind != PY_E_DICT || where->n != 1)
      return tp_err(p, e, "expected T.Let(body, where={var: value}), got another form");
    if (where->items[0]->kind != PY_E_NAME) return tp_err(p, where->items[0], "expected a variable name, got an expression");
    sym_t* s = tp_lookup(p, where->items[0]->str);
    if (!s || s->kind != SYM_VAR) return tp_err(p, where->items[0], "undefined variable '%s'", where->items[0]->str);
    rlx_expr_t *body, *val;
    RLX_RETURN_IF_ERROR(eval_num(p, where->kw_values[0], &val));
    RLX_RETURN_IF_ERROR(eval_num(p, e->items[0], &body));
    *out = rlx_ir_let(p->ctx, s->ptr, val, body);
    return NULL;
  }
  if (strcmp(fn, "abs") == 0) fn = "fabs";
  const rlx_intrin_t* in = rlx_intrin_find(fn);
  if (in && in->parsed) {
    RLX_RETURN_IF_ERROR(arity(p, e, fn, in->n_args, in->n_args));
    RLX_RETURN_IF_ERROR(eval_args(p, e, in->n_args, args));
    if (in->n_args == 2 && !rlx_dtype_eq(args[0]->dtype, args[1]->dtype)) {
      rlx_expr_t* sel = rlx_ir_select(p->ctx, rlx_ir_bool(p->ctx, true), args[0], args[1]);
      args[0] = RLX_AS(rlx_select_t, sel)->t;
      args[1] = RLX_AS(rlx_select_t, sel)->f;
    }
    rlx_dtype_t rt = in->returns_bool ? rlx_dtype_with_lanes(rlx_dt_bool(), args[0]->dtype.lanes) : args[0]->dtype;
    if (strcmp(fn, "address_of") == 0) {
      if (args[0]->kind != RLX_EXPR_BUFFER_LOAD) return tp_err(p, e->items[0], "expected a buffer element B[i] in T.address_of, got an expression");
      rt = rlx_dt_handle();
    } else if (strcmp(fn, "prefetch") == 0) {
      rt = rlx_dt_int32();
    }
    *out = rlx_ir_call(p->ctx, rt, fn, in->n_args, args);
    return NULL;
  }
  return tp_err(p, e, "expected a known TIR function, got unknown function T.%s", fn);
}

static RLX_MUST_USE rlx_status_t* eval_binop(tp_t* p, const py_expr_t* e, rlx_expr_t** out) {
  rlx_expr_t *a, *b;
  RLX_RETURN_IF_ERROR(tp_eval(p, e->a, &a));
  RLX_RETURN_IF_ERROR(tp_eval(p, e->b, &b));
  rlx_expr_kind_t k;
  const char* op = e->op;
  if (strcmp(op, "+") == 0) k = RLX_EXPR_ADD;
  else if (strcmp(op, "-") == 0) k = RLX_EXPR_SUB;
  else if (strcmp(op, "*") == 0) k = RLX_EXPR_MUL;
  else if (strcmp(op, "/") == 0) k = RLX_EXPR_DIV;
  else if (strcmp(op, "//") == 0) k = RLX_EXPR_FLOOR_DIV;
  else if (strcmp(op, "%") == 0) k = RLX_EXPR_FLOOR_MOD;
  else return tp_err(p, e, "expected an arithmetic operator (+ - * / // %%), got unsupported operator '%s'", op);
  if (a->kind == RLX_EXPR_STRING_IMM || b->kind == RLX_EXPR_STRING_IMM)
    return tp_err(p, e, "expected numeric operands to '%s', got a string", op);
  *out = binop(p, k, a, b);
  return NULL;
}

RLX_MUST_USE rlx_status_t* tp_eval_items(tp_t* p, const py_expr_t* call, int* out_n, rlx_expr_t*** out) {
  int n = 0;
  for (int i = 0; i < call->n; i++) {
    const py_expr_t* x = call->items[i];
    if (x->kind == PY_E_UNARY && strcmp(x->op, "*") == 0) {
      const py_expr_t* v = x->a;
      if (v->kind != PY_E_ATTR || strcmp(v->str, "shape") != 0)
        return tp_err(p, x, "expected *B.shape of a buffer B or *(a tuple), got another starred value");
      rlx_tir_buffer_t* b;
      RLX_RETURN_IF_ERROR(tp_buffer(p, v->a, &b));
      n += b->ndim;
    } else {
      n++;
    }
  }
  rlx_expr_t** xs = RLX_NEW_ARRAY(p->ctx, rlx_expr_t*, n ? n : 1);
  int k = 0;
  for (int i = 0; i < call->n; i++) {
    const py_expr_t* x = call->items[i];
    if (x->kind == PY_E_UNARY && strcmp(x->op, "*") == 0) {
      rlx_tir_buffer_t* b;
      RLX_RETURN_IF_ERROR(tp_buffer(p, x->a->a, &b));
      for (int d = 0; d < b->ndim; d++) xs[k++] = b->shape[d];
    } else {
      RLX_RETURN_IF_ERROR(tp_eval(p, x, &xs[k++]));
    }
  }
  *out_n = n;
  *out = xs;
  return NULL;
}

RLX_MUST_USE rlx_status_t* tp_eval(tp_t* p, const py_expr_t* e, rlx_expr_t** out) {
  switch (e->kind) {
    case PY_E_INT:
      *out = (e->ival >= INT32_MIN && e->ival <= INT32_MAX) ? rlx_ir_i32(p->ctx, e->ival) : rlx_ir_i64(p->ctx, e->ival);
      return NULL;
    case PY_E_FLOAT: *out = rlx_ir_float(p->ctx, rlx_dt_float32(), e->fval); return NULL;
    case PY_E_STR: *out = rlx_ir_string(p->ctx, e->str); return NULL;
    case PY_E_CONST:
      if (strcmp(e->str, "None") == 0) return tp_err(p, e, "expected a value, got None");
      *out = rlx_ir_bool(p->ctx, strcmp(e->str, "True") == 0);
      return NULL;
    case PY_E_NAME: {
      sym_t* s = tp_lookup(p, e->str);
      if (!s) return tp_err(p, e, "undefined variable '%s'", e->str);
      if (s->kind == SYM_BUFFER) return tp_err(p, e, "expected a value, got buffer '%s' (index it: %s[...])", e->str, e->str);
      *out = s->ptr;
      return NULL;
    }
    case PY_E_ATTR: {
      if (e->a->kind == PY_E_NAME && strcmp(e->str, "data") == 0) {
        rlx_tir_buffer_t* b;
        RLX_RETURN_IF_ERROR(tp_buffer(p, e->a, &b));
        *out = &b->data->hdr;
        return NULL;
      }
      const char* d = py_dotted_name(p->ast, e);
      return tp_err(p, e, "expected a value, got %s", d ? d : "an attribute");
    }
    case PY_E_CALL: return eval_call(p, e, out);
    case PY_E_SUBSCRIPT: {
      rlx_tir_buffer_t* b;
      RLX_RETURN_IF_ERROR(tp_buffer(p, e->a, &b));
      int n;
      rlx_expr_t** idx;
      RLX_RETURN_IF_ERROR(tp_indices(p, e, b, &n, &idx));
      *out = rlx_ir_load(p->ctx, b, n, idx);
      return NULL;
    }
    case PY_E_BINOP: return eval_binop(p, e, out);
    case PY_E_UNARY: {
      rlx_expr_t* a;
      RLX_RETURN_IF_ERROR(eval_num(p, e->a, &a));
      if (strcmp(e->op, "not") == 0) {
        *out = rlx_ir_not(p->ctx, a);
      } else if (strcmp(e->op, "-") == 0) {
        if (a->kind == RLX_EXPR_INT_IMM) *out = rlx_ir_int(p->ctx, a->dtype, -RLX_AS(rlx_int_imm_t, a)->value);
        else if (a->kind == RLX_EXPR_FLOAT_IMM) *out = rlx_ir_float(p->ctx, a->dtype, -RLX_AS(rlx_float_imm_t, a)->value);
        else if (rlx_dtype_is_float(a->dtype)) *out = rlx_ir_mul(p->ctx, a, rlx_ir_float(p->ctx, a->dtype, -1));
        else *out = rlx_ir_mul(p->ctx, a, rlx_ir_int(p->ctx, a->dtype, -1));
      } else if (strcmp(e->op, "+") == 0) {
        *out = a;
      } else {
        return tp_err(p, e, "expected an arithmetic operator, got unsupported operator '%s'", e->op);
      }
      return NULL;
    }
    case PY_E_COMPARE: {
      rlx_expr_t* result = NULL;
      rlx_expr_t* left;
      RLX_RETURN_IF_ERROR(eval_num(p, e->items[0], &left));
      for (int i = 1; i < e->n; i++) {
        rlx_expr_t* right;
        RLX_RETURN_IF_ERROR(eval_num(p, e->items[i], &right));
        const char* op = e->ops[i - 1];
        rlx_expr_kind_t k;
        if (strcmp(op, "<") == 0) k = RLX_EXPR_LT;
        else if (strcmp(op, "<=") == 0) k = RLX_EXPR_LE;
        else if (strcmp(op, ">") == 0) k = RLX_EXPR_GT;
        else if (strcmp(op, ">=") == 0) k = RLX_EXPR_GE;
        else if (strcmp(op, "==") == 0) k = RLX_EXPR_EQ;
        else if (strcmp(op, "!=") == 0) k = RLX_EXPR_NE;
        else return tp_err(p, e, "expected a comparison operator (< <= > >= == !=), got '%s'", op);
        rlx_expr_t* c = binop(p, k, left, right);
        result = result ? rlx_ir_binary(p->ctx, RLX_EXPR_AND, result, c) : c;
        left = right;
      }
      *out = result;
      return NULL;
    }
    case PY_E_BOOLOP: {
      rlx_expr_t *a, *b;
      RLX_RETURN_IF_ERROR(eval_num(p, e->a, &a));
      RLX_RETURN_IF_ERROR(eval_num(p, e->b, &b));
      *out = rlx_ir_binary(p->ctx, strcmp(e->op, "and") == 0 ? RLX_EXPR_AND : RLX_EXPR_OR, a, b);
      return NULL;
    }
    case PY_E_IFEXP: {
      rlx_expr_t *c, *t, *f;
      RLX_RETURN_IF_ERROR(eval_num(p, e->a, &c));
      RLX_RETURN_IF_ERROR(eval_num(p, e->b, &t));
      RLX_RETURN_IF_ERROR(eval_num(p, e->c, &f));
      if (!rlx_dtype_is_bool(c->dtype)) return tp_err(p, e->a, "expected a boolean condition, got a non-boolean");
      *out = rlx_ir_select(p->ctx, c, t, f);
      return NULL;
    }
    case PY_E_SLICE: return tp_err(p, e, "expected a value, got a slice");
    case PY_E_TUPLE:
    case PY_E_LIST: return tp_err(p, e, "expected a value, got a %s", e->kind == PY_E_TUPLE ? "tuple" : "list");
    case PY_E_DICT: return tp_err(p, e, "expected a value, got a dict");
  }
  return tp_err(p, e, "expected a value, got an unsupported expression");
}

/* ------------------------------------------------------------------ access inference */
typedef struct {
  rlx_tir_buffer_t* buffer;
  rlx_expr_t** lo; /* inclusive bounds per dim; NULL lo = whole dimension */
  rlx_expr_t** hi;
} access_t;
typedef RLX_VEC(access_t) access_vec_t;

typedef struct {
  tp_t* p;
  RLX_VEC(loop_dom_t) relax; /* loops inside the block */
  access_vec_t reads, writes;
  const rlx_ptrmap_t* subst; /* nested block iter var → value */
} acc_t;

static const loop_dom_t* relaxed(acc_t* a, const rlx_expr_t* v) {
  for (int i = a->relax.len - 1; i >= 0; i--)
    if (&a->relax.data[i].var->hdr == v) return &a->relax.data[i];
  return NULL;
}

static bool uses_relaxed(acc_t* a, const rlx_expr_t* e) {
  for (int i = 0; i < a->relax.len; i++)
    if (rlx_expr_uses_var(e, a->relax.data[i].var)) return true;
  return false;
}

/* Inclusive bounds of e over the relaxed loops; false when unknown. */
static bool bounds(acc_t* a, rlx_expr_t* e, rlx_expr_t** lo, rlx_expr_t** hi) {
  rlx_ctx_t* ctx = a->p->ctx;
  if (!uses_relaxed(a, e)) {
    *lo = *hi = e;
    return true;
  }
  if (e->kind == RLX_EXPR_VAR) {
    const loop_dom_t* d = relaxed(a, e);
    *lo = d->min;
    *hi = rlx_ir_sub(ctx, rlx_ir_add(ctx, d->min, d->extent), rlx_ir_int(ctx, d->extent->dtype, 1));
    return true;
  }
  if (e->kind == RLX_EXPR_ADD || e->kind == RLX_EXPR_SUB) {
    rlx_binary_t* b = RLX_AS(rlx_binary_t, e);
    rlx_expr_t *al, *ah, *bl, *bh;
    if (!bounds(a, b->a, &al, &ah) || !bounds(a, b->b, &bl, &bh)) return false;
    if (e->kind == RLX_EXPR_ADD) {
      *lo = rlx_ir_add(ctx, al, bl);
      *hi = rlx_ir_add(ctx, ah, bh);
    } else {
      *lo = rlx_ir_sub(ctx, al, bh);
      *hi = rlx_ir_sub(ctx, ah, bl);
    }
    return true;
  }
  if (e->kind == RLX_EXPR_MUL) {
    rlx_binary_t* b = RLX_AS(rlx_binary_t, e);
    int64_t k;
    rlx_expr_t* x = b->a;
    rlx_expr_t* c = b->b;
    if (!rlx_expr_is_const_int(c, &k)) {
      x = b->b;
      c = b->a;
      if (!rlx_expr_is_const_int(c, &k)) return false;
    }
    rlx_expr_t *xl, *xh;
    if (!bounds(a, x, &xl, &xh)) return false;
    *lo = rlx_ir_mul(ctx, k >= 0 ? xl : xh, c);
    *hi = rlx_ir_mul(ctx, k >= 0 ? xh : xl, c);
    return true;
  }
  return false;
}

static void record(acc_t* a, bool write, rlx_tir_buffer_t* buf, int n, rlx_expr_t* const* lo_in, rlx_expr_t* const* hi_in) {
  rlx_ctx_t* ctx = a->p->ctx;
  access_vec_t* list = write ? &a->writes : &a->reads;
  access_t* found = NULL;
  for (int i = 0; i < list->len; i++)
    if (list->data[i].buffer == buf) found = &list->data[i];
  if (!found) {
    access_t acc = {buf, RLX_NEW_ARRAY(ctx, rlx_expr_t*, n), RLX_NEW_ARRAY(ctx, rlx_expr_t*, n)};
    for (int d = 0; d < n; d++) {
      acc.lo[d] = lo_in[d];
      acc.hi[d] = hi_in[d];
    }
    rlx_vec_push(list, acc);
    return;
  }
  for (int d = 0; d < n && d < buf->ndim; d++) {
    if (!found->lo[d] || !lo_in[d]) {
      found->lo[d] = found->hi[d] = NULL;
      continue;
    }
    int64_t diff;
    if (const_diff(lo_in[d], found->lo[d], &diff)) {
      if (diff < 0) found->lo[d] = lo_in[d];
    } else {
      found->lo[d] = found->hi[d] = NULL;
      continue;
    }
    if (const_diff(hi_in[d], found->hi[d], &diff)) {
      if (diff > 0) found->hi[d] = hi_in[d];
    } else {
      found->lo[d] = found->hi[d] = NULL;
    }
  }
}

static void access_point(acc_t* a, bool write, rlx_tir_buffer_t* buf, int n, rlx_expr_t* const* idx) {
  rlx_ctx_t* ctx = a->p->ctx;
  rlx_expr_t** lo = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  rlx_expr_t** hi = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) {
    rlx_expr_t* e = a->subst ? rlx_expr_substitute(ctx, idx[d], a->subst) : idx[d];
    if (e->kind == RLX_EXPR_RAMP) {
      rlx_ramp_t* r = RLX_AS(rlx_ramp_t, e);
      int64_t st;
      rlx_expr_t *bl, *bh;
      if (rlx_expr_is_const_int(r->stride, &st) && st >= 0 && bounds(a, r->base, &bl, &bh)) {
        lo[d] = bl;
        hi[d] = rlx_ir_add(ctx, bh, rlx_ir_int(ctx, bh->dtype, st * (r->lanes - 1)));
      }
      continue;
    }
    if (!bounds(a, e, &lo[d], &hi[d])) lo[d] = hi[d] = NULL;
  }
  record(a, write, buf, n, lo, hi);
}

static void acc_expr(acc_t* a, const rlx_expr_t* e) {
  if (!e) return;
  if (e->kind == RLX_EXPR_BUFFER_LOAD) {
    const rlx_buffer_load_t* l = RLX_AS(const rlx_buffer_load_t, e);
    access_point(a, false, l->buffer, l->n_indices, l->indices);
  }
  rlx_expr_t* kids[8];
  int n = rlx_expr_children(e, kids, 8);
  if (n > 8) {
    rlx_expr_t** all = RLX_NEW_ARRAY(a->p->ctx, rlx_expr_t*, n);
    rlx_expr_children(e, all, n);
    for (int i = 0; i < n; i++) acc_expr(a, all[i]);
    return;
  }
  for (int i = 0; i < n; i++) acc_expr(a, kids[i]);
}

static void acc_region(acc_t* a, bool write, const rlx_buffer_region_t* r, const rlx_ptrmap_t* vmap) {
  rlx_ctx_t* ctx = a->p->ctx;
  rlx_expr_t** lo = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r->ndim);
  rlx_expr_t** hi = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r->ndim);
  for (int d = 0; d < r->ndim; d++) {
    rlx_expr_t* mn = rlx_expr_substitute(ctx, r->region[d].min, vmap);
    rlx_expr_t* mx = rlx_ir_sub(ctx, rlx_ir_add(ctx, mn, rlx_expr_substitute(ctx, r->region[d].extent, vmap)),
                                rlx_ir_int(ctx, r->region[d].extent->dtype, 1));
    rlx_expr_t *l1, *h1, *l2, *h2;
    if (bounds(a, mn, &l1, &h1) && bounds(a, mx, &l2, &h2)) {
      lo[d] = l1;
      hi[d] = h2;
    } else {
      lo[d] = hi[d] = NULL;
    }
  }
  record(a, write, r->buffer, r->ndim, lo, hi);
}

static void acc_stmt(acc_t* a, const rlx_tir_stmt_t* s) {
  if (!s) return;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE: {
      const rlx_tir_store_t* st = RLX_AS(const rlx_tir_store_t, s);
      access_point(a, true, st->buffer, st->n_indices, st->indices);
      acc_expr(a, st->value);
      for (int i = 0; i < st->n_indices; i++) acc_expr(a, st->indices[i]);
      return;
    }
    case RLX_STMT_FOR: {
      const rlx_tir_for_t* f = RLX_AS(const rlx_tir_for_t, s);
      loop_dom_t d = {f->var, f->min, f->extent};
      bool pushed = rlx_vec_push(&a->relax, d); /* a failed one is counted: the parse fails */
      acc_stmt(a, f->body);
      if (pushed) a->relax.len--;
      return;
    }
    case RLX_STMT_SEQ: {
      const rlx_tir_seq_t* q = RLX_AS(const rlx_tir_seq_t, s);
      for (int i = 0; i < q->n; i++) acc_stmt(a, q->stmts[i]);
      return;
    }
    case RLX_STMT_IF: {
      const rlx_tir_if_t* c = RLX_AS(const rlx_tir_if_t, s);
      acc_expr(a, c->cond);
      acc_stmt(a, c->then_case);
      acc_stmt(a, c->else_case);
      return;
    }
    case RLX_STMT_LET:
      acc_expr(a, RLX_AS(const rlx_tir_let_t, s)->value);
      acc_stmt(a, RLX_AS(const rlx_tir_let_t, s)->body);
      return;
    case RLX_STMT_EVALUATE: acc_expr(a, RLX_AS(const rlx_tir_evaluate_t, s)->value); return;
    case RLX_STMT_BLOCK_REALIZE: {
      const rlx_tir_block_realize_t* br = RLX_AS(const rlx_tir_block_realize_t, s);
      rlx_ptrmap_t vmap = {0};
      for (int i = 0; i < br->n_values && i < br->block->n_iter_vars; i++)
        rlx_ptrmap_put(&vmap, br->block->iter_vars[i]->var, br->iter_values[i]);
      for (int i = 0; i < br->block->n_reads; i++) acc_region(a, false, &br->block->reads[i], &vmap);
      for (int i = 0; i < br->block->n_writes; i++) acc_region(a, true, &br->block->writes[i], &vmap);
      rlx_ptrmap_free(&vmap);
      return;
    }
    case RLX_STMT_ALLOCATE: acc_stmt(a, RLX_AS(const rlx_tir_allocate_t, s)->body); return;
    case RLX_STMT_KIND_COUNT: return;
  }
}

static void to_regions(acc_t* a, access_vec_t* list, int n_ex, rlx_tir_buffer_t* const* excluded, int* out_n,
                       rlx_buffer_region_t** out) {
  rlx_ctx_t* ctx = a->p->ctx;
  rlx_buffer_region_t* rs = RLX_NEW_ARRAY(ctx, rlx_buffer_region_t, list->len);
  int n = 0;
  for (int i = 0; i < list->len; i++) {
    access_t* ac = &list->data[i];
    bool skip = false;
    for (int k = 0; k < n_ex; k++) skip = skip || excluded[k] == ac->buffer;
    if (skip) continue;
    rlx_buffer_region_t* r = &rs[n++];
    r->buffer = ac->buffer;
    r->ndim = ac->buffer->ndim;
    r->region = RLX_NEW_ARRAY(ctx, rlx_range_t, r->ndim);
    for (int d = 0; d < r->ndim; d++) {
      if (!ac->lo[d]) {
        r->region[d].min = rlx_ir_int(ctx, ac->buffer->shape[d]->dtype, 0);
        r->region[d].extent = ac->buffer->shape[d];
        continue;
      }
      r->region[d].min = ac->lo[d];
      int64_t diff;
      if (const_diff(ac->hi[d], ac->lo[d], &diff)) r->region[d].extent = rlx_ir_int(ctx, ac->lo[d]->dtype, diff + 1);
      else
        r->region[d].extent =
            rlx_ir_add(ctx, rlx_ir_sub(ctx, ac->hi[d], ac->lo[d]), rlx_ir_int(ctx, ac->lo[d]->dtype, 1));
    }
  }
  *out_n = n;
  *out = rs;
}

void tp_infer_access(tp_t* p, const rlx_tir_stmt_t* body, const rlx_tir_stmt_t* init, int n_alloc,
                     rlx_tir_buffer_t* const* allocs, int* n_reads, rlx_buffer_region_t** reads, int* n_writes,
                     rlx_buffer_region_t** writes) {
  acc_t a = {0};
  a.p = p;
  acc_stmt(&a, init);
  acc_stmt(&a, body);
  /* With an init block, written buffers are not reads (the reduction update). */
  int n_ex = n_alloc;
  rlx_tir_buffer_t** ex = RLX_NEW_ARRAY(p->ctx, rlx_tir_buffer_t*, n_alloc + a.writes.len);
  for (int i = 0; i < n_alloc; i++) ex[i] = allocs[i];
  if (init)
    for (int i = 0; i < a.writes.len; i++) ex[n_ex++] = a.writes.data[i].buffer;
  to_regions(&a, &a.reads, n_ex, ex, n_reads, reads);
  to_regions(&a, &a.writes, n_alloc, allocs, n_writes, writes);
  rlx_vec_free(&a.relax);
  rlx_vec_free(&a.reads);
  rlx_vec_free(&a.writes);
}
