/* TVMScript parser for Relax functions: the generic AST of pyast.h → Relax IR built with the
 * constructors of relax/relax.h, normalized (struct info) binding by binding and checked by
 * rlx_relax_func_well_formed at the end. Accepts what relax_printer.c prints (see
 * relax_script.h) and the common variants TVM accepts (R.Tensor((n, 4), "float32"),
 * `_ = cls.f(x, y)`, R.ExternFunc("f")(x)).
 *
 * Two passes per module: signatures first (so calls between Relax functions resolve in any
 * order), then bodies. Errors are "file:line:col: what: expected X, got Y". Attr values of op
 * calls: True/False → bool, int → int, float → float, a list of ints → ints, None → attr
 * omitted, a string → dtype when the key ends in "dtype" (TVM's DataType attrs), else a
 * string; anything else → a PrimExpr. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relax_parse_internal.h"

/* ------------------------------------------------------------------ helpers */
RLX_MUST_USE rlx_status_t* rs_err(rs_t* r, const py_expr_t* e, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
RLX_MUST_USE rlx_status_t* rs_err(rs_t* r, const py_expr_t* e, const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  rlx_span_t sp = e ? e->span : (rlx_span_t){r->p->file, 0, 0};
  return rlx_error(RLX_PARSE_ERROR, sp, "%s", msg);
}

static RLX_MUST_USE rlx_status_t* err_at(rlx_span_t sp, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static RLX_MUST_USE rlx_status_t* err_at(rlx_span_t sp, const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return rlx_error(RLX_PARSE_ERROR, sp, "%s", msg);
}

/* Wraps a status from the IR layer (no location) with the span of the statement. */
static RLX_MUST_USE rlx_status_t* at_span(rlx_status_t* st, rlx_span_t sp) {
  if (!st) return NULL;
  rlx_status_t* e = rlx_error(RLX_PARSE_ERROR, sp, "%s", rlx_status_message(st));
  rlx_status_free(st);
  return e;
}

const char* rs_desc(rs_t* r, const py_expr_t* e) {
  if (!e) return "nothing";
  switch (e->kind) {
    case PY_E_NAME:
      return rlx_ctx_sprintf(r->ctx, "name '%s'", e->str);
    case PY_E_INT:
      return rlx_ctx_sprintf(r->ctx, "the integer %lld", (long long)e->ival);
    case PY_E_FLOAT:
      return "a float literal";
    case PY_E_STR:
      return rlx_ctx_sprintf(r->ctx, "the string \"%s\"", e->str);
    case PY_E_CONST:
      return e->str;
    case PY_E_ATTR:
    case PY_E_CALL: {
      const char* d = py_dotted_name(r->p->ast, e->kind == PY_E_CALL ? e->a : e);
      if (d) return rlx_ctx_sprintf(r->ctx, e->kind == PY_E_CALL ? "a call of %s" : "%s", d);
      return e->kind == PY_E_CALL ? "a call" : "an attribute";
    }
    case PY_E_SUBSCRIPT:
      return "a subscript";
    case PY_E_SLICE:
      return "a slice";
    case PY_E_TUPLE:
      return "a tuple";
    case PY_E_LIST:
      return "a list";
    case PY_E_DICT:
      return "a dict";
    case PY_E_BINOP:
    case PY_E_UNARY:
    case PY_E_COMPARE:
    case PY_E_BOOLOP:
    case PY_E_IFEXP:
      return "an operator expression";
  }
  return "an expression";
}

/* "R.foo.bar" → "foo.bar" when e is a dotted name under the Relax alias. */
const char* rs_rname(rs_t* r, const py_expr_t* e) {
  const char* d = py_dotted_name(r->p->ast, e);
  if (!d) return NULL;
  size_t n = strlen(r->R);
  if (strncmp(d, r->R, n) == 0 && d[n] == '.') return d + n + 1;
  return NULL;
}

static bool is_rcall(rs_t* r, const py_expr_t* e, const char* name) {
  if (!e || e->kind != PY_E_CALL) return false;
  const char* n = rs_rname(r, e->a);
  return n && strcmp(n, name) == 0;
}

const py_expr_t* rs_arg(const py_expr_t* call, int i, const char* kw) { return tp_arg(call, i, kw); }

static void define(rs_t* r, const char* name, rs_sym_kind_t kind, void* ptr) {
  rs_sym_t s = {name, kind, ptr, r->depth};
  rlx_vec_push(&r->syms, s);
}

rs_sym_t* rs_lookup(rs_t* r, const char* name) {
  for (int i = r->syms.len - 1; i >= 0; i--)
    if (strcmp(r->syms.data[i].name, name) == 0) return &r->syms.data[i];
  return NULL;
}

static void scope_push(rs_t* r) { r->depth++; }
static void scope_pop(rs_t* r) {
  while (r->syms.len && r->syms.data[r->syms.len - 1].depth >= r->depth) r->syms.len--;
  r->depth--;
}

bool rs_int_lit(const py_expr_t* e, int64_t* out) { return tp_int_literal(e, out); }

/* ------------------------------------------------------------------ PrimExprs (int64 shapes) */
RLX_MUST_USE rlx_status_t* rs_prim(rs_t* r, const py_expr_t* e, rlx_expr_t** out);

static RLX_MUST_USE rlx_status_t* sym_from_string(rs_t* r, const py_expr_t* e, rlx_expr_t** out) {
  const char* s = e->str;
  bool ident = s[0] && !(s[0] >= '0' && s[0] <= '9');
  for (const char* c = s; *c && ident; c++)
    ident = *c == '_' || (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z');
  if (!ident) {
    /* a quoted expression ("n * 2"): parse it as Python, names must be defined */
    py_block_t blk;
    rlx_status_t* st = py_parse(r->p->ast, s, NULL, &blk); /* no file: inner errors carry no location */
    if (st || blk.n != 1 || blk.items[0]->kind != PY_S_EXPR) {
      rlx_status_free(st);
      return rs_err(r, e, "expected a symbolic dimension such as \"n\", got \"%s\"", s);
    }
    r->quoted = true;
    st = rs_prim(r, blk.items[0]->value, out);
    r->quoted = false;
    if (!st) return NULL;
    rlx_status_t* w = rs_err(r, e, "in \"%s\": %s", s, rlx_status_message(st));
    rlx_status_free(st);
    return w;
  }
  rs_sym_t* y = rs_lookup(r, s);
  if (y && y->kind == RS_SYM) {
    *out = y->ptr;
    return NULL;
  }
  if (y) return rs_err(r, e, "expected a symbolic dimension, got the Relax variable '%s'", s);
  rlx_var_t* v = rlx_ir_var(r->ctx, s, rlx_dt_int64());
  define(r, rlx_ctx_strdup(r->ctx, s), RS_SYM, v);
  *out = &v->hdr;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rs_prim(rs_t* r, const py_expr_t* e, rlx_expr_t** out) {
  rlx_ctx_t* ctx = r->ctx;
  int64_t iv;
  if (rs_int_lit(e, &iv)) {
    *out = rlx_ir_i64(ctx, iv);
    return NULL;
  }
  switch (e->kind) {
    case PY_E_STR:
      return sym_from_string(r, e, out);
    case PY_E_NAME: {
      rs_sym_t* y = rs_lookup(r, e->str);
      if (y && y->kind == RS_SYM) {
        *out = y->ptr;
        return NULL;
      }
      if (y) return rs_err(r, e, "expected a symbolic dimension, got the Relax variable '%s'", e->str);
      if (r->sig_mode && r->quoted) {
        /* a name first used in a quoted signature dimension ("m * 2") is declared there, as a
         * plain "m" is; a later parameter may define its value (TVM) */
        rlx_var_t* v = rlx_ir_var(ctx, rlx_ctx_strdup(ctx, e->str), rlx_dt_int64());
        define(r, v->name, RS_SYM, v);
        *out = &v->hdr;
        return NULL;
      }
      return rs_err(r, e, "undefined symbolic variable '%s' (declare it with `%s = T.int64()`)", e->str, e->str);
    }
    case PY_E_CONST:
      if (strcmp(e->str, "True") == 0 || strcmp(e->str, "False") == 0) {
        *out = rlx_ir_bool(ctx, strcmp(e->str, "True") == 0);
        return NULL;
      }
      return rs_err(r, e, "expected a dimension, got None");
    case PY_E_BINOP: {
      rlx_expr_t *a, *b;
      RLX_RETURN_IF_ERROR(rs_prim(r, e->a, &a));
      RLX_RETURN_IF_ERROR(rs_prim(r, e->b, &b));
      if (!rlx_dtype_eq(a->dtype, b->dtype) && !(rlx_expr_is_const_int(a, NULL) || rlx_expr_is_const_int(b, NULL)))
        return rs_err(r, e, "operands of '%s' have different dtypes", e->op);
      const char* o = e->op;
      if (strcmp(o, "+") == 0)
        *out = rlx_ir_add(ctx, a, b);
      else if (strcmp(o, "-") == 0)
        *out = rlx_ir_sub(ctx, a, b);
      else if (strcmp(o, "*") == 0)
        *out = rlx_ir_mul(ctx, a, b);
      else if (strcmp(o, "//") == 0)
        *out = rlx_ir_floordiv(ctx, a, b);
      else if (strcmp(o, "%") == 0)
        *out = rlx_ir_floormod(ctx, a, b);
      else
        return rs_err(r, e, "expected one of + - * // %% in a dimension, got '%s'", o);
      return NULL;
    }
    case PY_E_UNARY:
      if (strcmp(e->op, "-") == 0) {
        rlx_expr_t* a;
        RLX_RETURN_IF_ERROR(rs_prim(r, e->a, &a));
        *out = rlx_ir_mul(ctx, a, rlx_ir_int(ctx, a->dtype, -1));
        return NULL;
      }
      return rs_err(r, e, "expected a dimension, got unary '%s'", e->op);
    case PY_E_COMPARE:
      if (e->n == 2) {
        static const char* const ops[] = {"==", "!=", "<", "<=", ">", ">="};
        static const rlx_expr_kind_t kinds[] = {RLX_EXPR_EQ, RLX_EXPR_NE, RLX_EXPR_LT,
                                                RLX_EXPR_LE, RLX_EXPR_GT, RLX_EXPR_GE};
        for (int k = 0; k < 6; k++)
          if (strcmp(e->ops[0], ops[k]) == 0) {
            rlx_expr_t *a, *b;
            RLX_RETURN_IF_ERROR(rs_prim(r, e->items[0], &a));
            RLX_RETURN_IF_ERROR(rs_prim(r, e->items[1], &b));
            *out = rlx_ir_cmp(ctx, kinds[k], a, b);
            return NULL;
          }
      }
      return rs_err(r, e, "expected a dimension, got a comparison chain");
    case PY_E_CALL: {
      const char* t = tp_tname(r->p, e->a);
      if (!t) break;
      rlx_dtype_t dt;
      if (rlx_dtype_parse(t, &dt) && e->n == 1 && e->n_kw == 0) {
        if ((dt.code == RLX_DT_INT || dt.code == RLX_DT_UINT) && rs_int_lit(e->items[0], &iv)) {
          *out = rlx_ir_int(ctx, dt, iv);
          return NULL;
        }
        if (dt.code == RLX_DT_FLOAT && (e->items[0]->kind == PY_E_FLOAT || rs_int_lit(e->items[0], &iv))) {
          *out = rlx_ir_float(ctx, dt, e->items[0]->kind == PY_E_FLOAT ? e->items[0]->fval : (double)iv);
          return NULL;
        }
        if (rlx_dtype_is_bool(dt) && e->items[0]->kind == PY_E_CONST) {
          *out = rlx_ir_bool(ctx, strcmp(e->items[0]->str, "True") == 0);
          return NULL;
        }
      }
      if (e->n == 2 && e->n_kw == 0) {
        rlx_expr_t *a, *b;
        rlx_expr_t* (*f)(rlx_ctx_t*, rlx_expr_t*, rlx_expr_t*) = NULL;
        if (strcmp(t, "max") == 0)
          f = rlx_ir_max;
        else if (strcmp(t, "min") == 0)
          f = rlx_ir_min;
        else if (strcmp(t, "floordiv") == 0)
          f = rlx_ir_floordiv;
        else if (strcmp(t, "floormod") == 0)
          f = rlx_ir_floormod;
        else if (strcmp(t, "Div") == 0 || strcmp(t, "truncdiv") == 0)
          f = rlx_ir_div;
        if (f) {
          RLX_RETURN_IF_ERROR(rs_prim(r, e->items[0], &a));
          RLX_RETURN_IF_ERROR(rs_prim(r, e->items[1], &b));
          *out = f(ctx, a, b);
          return NULL;
        }
        if (strcmp(t, "truncmod") == 0) {
          RLX_RETURN_IF_ERROR(rs_prim(r, e->items[0], &a));
          RLX_RETURN_IF_ERROR(rs_prim(r, e->items[1], &b));
          *out = rlx_ir_binary(ctx, RLX_EXPR_MOD, a, b);
          return NULL;
        }
      }
      break;
    }
    default:
      break;
  }
  return rs_err(r, e, "expected a dimension (an integer, a symbolic variable or an expression of them), got %s",
             rs_desc(r, e));
}

RLX_MUST_USE rlx_status_t* rs_prim_list(rs_t* r, const py_expr_t* e, int* n, rlx_expr_t*** out) {
  if (e->kind != PY_E_TUPLE && e->kind != PY_E_LIST)
    return rs_err(r, e, "expected a tuple or list of dimensions, got %s", rs_desc(r, e));
  rlx_expr_t** v = RLX_NEW_ARRAY(r->ctx, rlx_expr_t*, e->n);
  for (int i = 0; i < e->n; i++) RLX_RETURN_IF_ERROR(rs_prim(r, e->items[i], &v[i]));
  *n = e->n;
  *out = v;
  return NULL;
}

/* ------------------------------------------------------------------ struct info */
RLX_MUST_USE rlx_status_t* rs_dtype_of(rs_t* r, const py_expr_t* e, rlx_dtype_t* out) {
  const char* s = e->kind == PY_E_STR ? e->str : tp_tname(r->p, e);
  if (!s || !rlx_dtype_parse(s, out)) return rs_err(r, e, "expected a dtype such as \"float32\", got %s", rs_desc(r, e));
  return NULL;
}

static const char* const no_kw[] = {NULL};
static RLX_MUST_USE rlx_status_t* op_arg(rs_t* r, const py_expr_t* e, rlx_relax_expr_t** out);

/* True when every item of a tuple or list reads as a dimension (integers, symbolic
 * variables, T.int64(..), arithmetic of those): TVM's op wrappers turn such a Python
 * sequence into a ShapeExpr (R.reshape(x, (2, 3)), R.tile(x, [2, 1])). */
static bool is_dim(rs_t* r, const py_expr_t* e) {
  int64_t iv;
  if (rs_int_lit(e, &iv)) return true;
  switch (e->kind) {
    case PY_E_NAME: {
      rs_sym_t* y = rs_lookup(r, e->str);
      return y && y->kind == RS_SYM;
    }
    case PY_E_BINOP: return is_dim(r, e->a) && is_dim(r, e->b);
    case PY_E_UNARY: return strcmp(e->op, "-") == 0 && is_dim(r, e->a);
    case PY_E_CALL: {
      const char* t = tp_tname(r->p, e->a);
      rlx_dtype_t dt;
      return t && rlx_dtype_parse(t, &dt) && rlx_dtype_is_int(dt);
    }
    default: return false;
  }
}

static bool is_dim_list(rs_t* r, const py_expr_t* e) {
  for (int i = 0; i < e->n; i++)
    if (!is_dim(r, e->items[i])) return false;
  return true;
}

/* TVM's Relax operators on expressions: x + y is R.add(x, y), -x R.negative(x), ... */
static const char* binop_name(const char* op) {
  static const char* const map[][2] = {{"+", "relax.add"},          {"-", "relax.subtract"},
                                       {"*", "relax.multiply"},     {"/", "relax.divide"},
                                       {"//", "relax.floor_divide"}, {"**", "relax.power"},
                                       {"%", "relax.floor_mod"},    {"<", "relax.less"},
                                       {"<=", "relax.less_equal"},  {">", "relax.greater"},
                                       {">=", "relax.greater_equal"}, {"==", "relax.equal"},
                                       {"!=", "relax.not_equal"},   {"&", "relax.bitwise_and"},
                                       {"|", "relax.bitwise_or"},   {"^", "relax.bitwise_xor"}};
  for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
    if (strcmp(op, map[i][0]) == 0) return map[i][1];
  return NULL;
}

/* Whether the names of e are all symbolic variables or literals (no Relax variable): such an
 * operator expression is a PrimExpr, R.prim_value(N % 16 == 0). */
static bool is_prim_expr(rs_t* r, const py_expr_t* e) {
  if (!e) return true;
  switch (e->kind) {
    case PY_E_NAME: {
      rs_sym_t* y = rs_lookup(r, e->str);
      return y && y->kind == RS_SYM;
    }
    case PY_E_INT:
    case PY_E_FLOAT:
    case PY_E_CONST: return true;
    case PY_E_BINOP:
    case PY_E_BOOLOP: return is_prim_expr(r, e->a) && is_prim_expr(r, e->b);
    case PY_E_UNARY: return is_prim_expr(r, e->a);
    case PY_E_COMPARE:
      for (int i = 0; i < e->n; i++)
        if (!is_prim_expr(r, e->items[i])) return false;
      return true;
    case PY_E_CALL: return tp_tname(r->p, e->a) != NULL;
    default: return false;
  }
}

static RLX_MUST_USE rlx_status_t* operator_expr(rs_t* r, const py_expr_t* e, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = r->ctx;
  if (is_prim_expr(r, e)) {
    rlx_expr_t* x;
    RLX_RETURN_IF_ERROR(rs_prim(r, e, &x));
    *out = rlx_relax_prim_value(ctx, x);
    return NULL;
  }
  const char* opname = NULL;
  rlx_relax_expr_t* args[2];
  int n = 2;
  if (e->kind == PY_E_BINOP) {
    opname = binop_name(e->op);
    if (opname) {
      RLX_RETURN_IF_ERROR(op_arg(r, e->a, &args[0]));
      RLX_RETURN_IF_ERROR(op_arg(r, e->b, &args[1]));
    }
  } else if (e->kind == PY_E_COMPARE && e->n == 2) {
    opname = binop_name(e->ops[0]);
    if (opname) {
      RLX_RETURN_IF_ERROR(op_arg(r, e->items[0], &args[0]));
      RLX_RETURN_IF_ERROR(op_arg(r, e->items[1], &args[1]));
    }
  } else if (e->kind == PY_E_UNARY) {
    n = 1;
    opname = strcmp(e->op, "-") == 0 ? "relax.negative" : strcmp(e->op, "~") == 0 ? "relax.bitwise_not"
             : strcmp(e->op, "not") == 0                ? "relax.logical_not"
                                                         : NULL;
    if (opname) RLX_RETURN_IF_ERROR(op_arg(r, e->a, &args[0]));
  }
  if (!opname || !rlx_op_lookup(opname))
    return rs_err(r, e, "expected a Relax expression (a variable, a call such as R.add(x, y), a tuple), got %s",
               rs_desc(r, e));
  *out = rlx_relax_call(ctx, rlx_relax_op_named(ctx, opname), n, args, (rlx_attrs_t){0}, 0, NULL);
  return NULL;
}

/* A positional op argument. Besides Relax expressions, TVM's Python op wrappers accept plain
 * values: a string naming a dtype → R.dtype(..), another string → R.str(..), an integer →
 * R.prim_value(..) (int64). The printer always writes the explicit forms. */
static RLX_MUST_USE rlx_status_t* op_arg(rs_t* r, const py_expr_t* e, rlx_relax_expr_t** out) {
  int64_t iv;
  rlx_dtype_t t;
  if (e->kind == PY_E_STR) {
    if (rlx_dtype_parse(e->str, &t))
      *out = rlx_relax_dtype_imm(r->ctx, t);
    else
      *out = rlx_relax_string_imm(r->ctx, rlx_ctx_strdup(r->ctx, e->str));
    return NULL;
  }
  if (rs_int_lit(e, &iv)) {
    *out = rlx_relax_prim_value(r->ctx, rlx_ir_i64(r->ctx, iv));
    return NULL;
  }
  if ((e->kind == PY_E_TUPLE || e->kind == PY_E_LIST) && e->n > 0 && is_dim_list(r, e)) {
    int n;
    rlx_expr_t** dims;
    RLX_RETURN_IF_ERROR(rs_prim_list(r, e, &n, &dims));
    *out = rlx_relax_shape_expr(r->ctx, n, dims);
    return NULL;
  }
  return rs_expr(r, e, out);
}

/* The args of R.call_tir / R.call_dps_packed: a tuple, an expression of tuple struct info, or
 * (as TVM's call_tir and call_dps_packed take it) one tensor, which becomes a 1-tuple. */
static RLX_MUST_USE rlx_status_t* dps_args(rs_t* r, const py_expr_t* a, rlx_relax_expr_t** out) {
  RLX_RETURN_IF_ERROR(rs_expr(r, a, out));
  if ((*out)->kind == RLX_RELAX_TUPLE) return NULL;
  RLX_RETURN_IF_ERROR(at_span(rlx_relax_normalize(r->ctx, r->m, *out), a->span));
  if ((*out)->sinfo && rlx_sinfo_kind_code((*out)->sinfo) != RLX_SINFO_KIND_TUPLE)
    *out = rlx_relax_tuple(r->ctx, 1, (rlx_relax_expr_t* const[]){*out});
  return NULL;
}

/* Whether e is written as an attribute value (a number, string, True/False/None, a tuple or
 * list of those, T.<dtype>): a Relax value in an attribute's place (R.clip(x, R.prim_value(0),
 * ...)) stays an operand. */
static bool attr_literal(const py_expr_t* e) {
  switch (e->kind) {
    case PY_E_INT:
    case PY_E_FLOAT:
    case PY_E_STR:
    case PY_E_CONST: return true;
    case PY_E_UNARY: return strcmp(e->op, "-") == 0 && attr_literal(e->a);
    case PY_E_TUPLE:
    case PY_E_LIST:
      for (int i = 0; i < e->n; i++)
        if (!attr_literal(e->items[i])) return false;
      return true;
    default: return false;
  }
}

/* The attribute name of positional parameter i of an op's signature ("x, axis:ints, ..."), or
 * NULL when parameter i is an operand or past the end. */
static const char* positional_attr(rlx_ctx_t* ctx, const char* params, int i) {
  const char* p = params ? params : "";
  for (int k = 0; *p; k++) {
    while (*p == ' ' || *p == ',') p++;
    const char* end = p;
    while (*end && *end != ',') end++;
    if (k == i) {
      const char* colon = memchr(p, ':', (size_t)(end - p));
      if (!colon) return NULL;
      const char* nm_end = colon;
      while (nm_end > p && (nm_end[-1] == '?' || nm_end[-1] == ' ')) nm_end--;
      return rlx_ctx_sprintf(ctx, "%.*s", (int)(nm_end - p), p);
    }
    p = end;
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* packed_name(rs_t* r, const py_expr_t* call, const char* what, const char** out) {
  const py_expr_t* f = call->n ? call->items[0] : NULL;
  if (!f || f->kind != PY_E_STR)
    return rs_err(r, f ? f : call, "%s: expected the function name as a string, got %s", what, rs_desc(r, f));
  *out = rlx_ctx_strdup(r->ctx, f->str);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* rcall(rs_t* r, const char* k, const py_expr_t* e, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = r->ctx;
  if (strcmp(k, "call_tir") == 0) {
    static const char* const kws[] = {"out_sinfo", "tir_vars", "args", NULL};
    RLX_RETURN_IF_ERROR(rs_check_kwargs(r, e, "R.call_tir", kws));
    const py_expr_t* f = rs_arg(e, 0, NULL);
    const py_expr_t* a = rs_arg(e, 1, "args");
    if (!f || !a) return rs_err(r, e, "R.call_tir: expected (cls.f, (args...), out_sinfo=...)");
    rlx_relax_expr_t* gv;
    bool is_tir = false;
    RLX_RETURN_IF_ERROR(rs_global_var(r, f, &gv, &is_tir));
    if (!is_tir) return rs_err(r, f, "R.call_tir: expected a PrimFunc, got the Relax function '%s'", f->str);
    rlx_relax_expr_t* args; /* a tuple expression, or any expression of tuple struct info */
    RLX_RETURN_IF_ERROR(dps_args(r, a, &args));
    rlx_sinfo_t* o;
    RLX_RETURN_IF_ERROR(rs_out_sinfo(r, e, "R.call_tir", &o));
    rlx_relax_expr_t* tv = NULL;
    const py_expr_t* tve = rs_arg(e, 3, "tir_vars");
    if (tve) {
      RLX_RETURN_IF_ERROR(rs_expr(r, tve, &tv));
      if (tv->kind != RLX_RELAX_SHAPE_EXPR)
        return rs_err(r, tve, "R.call_tir: expected tir_vars=R.shape([...]), got %s", rs_desc(r, tve));
    }
    rlx_relax_expr_t* cargs[3] = {gv, args, tv};
    *out = rlx_relax_call(ctx, rlx_relax_op(ctx, RLX_OP_CALL_TIR), tv ? 3 : 2, cargs, (rlx_attrs_t){0}, 1, &o);
    return NULL;
  }
  if (strcmp(k, "call_dps_packed") == 0) {
    static const char* const kws[] = {"out_sinfo", "args", NULL};
    RLX_RETURN_IF_ERROR(rs_check_kwargs(r, e, "R.call_dps_packed", kws));
    const char* name = NULL;
    RLX_RETURN_IF_ERROR(packed_name(r, e, "R.call_dps_packed", &name));
    const py_expr_t* a = rs_arg(e, 1, "args");
    if (!a) return rs_err(r, e, "R.call_dps_packed: expected (\"name\", (args...), out_sinfo=...)");
    rlx_relax_expr_t* args;
    RLX_RETURN_IF_ERROR(dps_args(r, a, &args));
    rlx_sinfo_t* o;
    RLX_RETURN_IF_ERROR(rs_out_sinfo(r, e, "R.call_dps_packed", &o));
    rlx_relax_expr_t* cargs[2] = {rlx_relax_extern_func(ctx, name), args};
    *out = rlx_relax_call(ctx, rlx_relax_op(ctx, RLX_OP_CALL_DPS_PACKED), 2, cargs, (rlx_attrs_t){0}, 1, &o);
    return NULL;
  }
  if (strcmp(k, "call_packed") == 0 || strcmp(k, "call_pure_packed") == 0) {
    static const char* const kws[] = {"sinfo_args", NULL};
    bool pure = strcmp(k, "call_pure_packed") == 0;
    const char* what = pure ? "R.call_pure_packed" : "R.call_packed";
    RLX_RETURN_IF_ERROR(rs_check_kwargs(r, e, what, kws));
    const char* name = NULL;
    RLX_RETURN_IF_ERROR(packed_name(r, e, what, &name));
    rlx_relax_expr_t** args = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, e->n);
    for (int i = 1; i < e->n; i++) RLX_RETURN_IF_ERROR(rs_expr(r, e->items[i], &args[i - 1]));
    int ns;
    rlx_sinfo_t** ss;
    RLX_RETURN_IF_ERROR(rs_sinfo_args(r, rs_arg(e, -1, "sinfo_args"), &ns, &ss));
    *out = pure ? rlx_relax_call_pure_packed(ctx, name, e->n - 1, args, ns, ss)
                : rlx_relax_call_packed(ctx, name, e->n - 1, args, ns, ss);
    return NULL;
  }
  if (strcmp(k, "shape") == 0) {
    RLX_RETURN_IF_ERROR(rs_check_kwargs(r, e, "R.shape", no_kw));
    if (e->n != 1) return rs_err(r, e, "R.shape: expected one list of dimensions");
    int n;
    rlx_expr_t** dims;
    RLX_RETURN_IF_ERROR(rs_prim_list(r, e->items[0], &n, &dims));
    for (int i = 0; i < n; i++)
      if (!rlx_dtype_is_int(dims[i]->dtype))
        return rs_err(r, e->items[0]->items[i], "R.shape: expected an integer dimension");
    *out = rlx_relax_shape_expr(ctx, n, dims);
    return NULL;
  }
  if (strcmp(k, "prim_value") == 0) {
    RLX_RETURN_IF_ERROR(rs_check_kwargs(r, e, "R.prim_value", no_kw));
    if (e->n != 1) return rs_err(r, e, "R.prim_value: expected one value");
    rlx_expr_t* x;
    if (e->items[0]->kind == PY_E_FLOAT)
      x = rlx_ir_float(ctx, rlx_dt_float64(), e->items[0]->fval);
    else
      RLX_RETURN_IF_ERROR(rs_prim(r, e->items[0], &x));
    *out = rlx_relax_prim_value(ctx, x);
    return NULL;
  }
  if (strcmp(k, "str") == 0) {
    if (e->n != 1 || e->n_kw || e->items[0]->kind != PY_E_STR) return rs_err(r, e, "R.str: expected one string literal");
    *out = rlx_relax_string_imm(ctx, rlx_ctx_strdup(ctx, e->items[0]->str));
    return NULL;
  }
  if (strcmp(k, "dtype") == 0) {
    if (e->n != 1 || e->n_kw) return rs_err(r, e, "R.dtype: expected one dtype string");
    rlx_dtype_t t;
    RLX_RETURN_IF_ERROR(rs_dtype_of(r, e->items[0], &t));
    *out = rlx_relax_dtype_imm(ctx, t);
    return NULL;
  }
  if (strcmp(k, "const") == 0) return rs_parse_const(r, e, out);
  if (strcmp(k, "tuple") == 0) {
    RLX_RETURN_IF_ERROR(rs_check_kwargs(r, e, "R.tuple", no_kw));
    rlx_relax_expr_t** f = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, e->n);
    for (int i = 0; i < e->n; i++) RLX_RETURN_IF_ERROR(rs_expr(r, e->items[i], &f[i]));
    *out = rlx_relax_tuple(ctx, e->n, f);
    return NULL;
  }
  if (strcmp(k, "TupleGetItem") == 0) { /* R.TupleGetItem(t, i): t[i] */
    int64_t i;
    RLX_RETURN_IF_ERROR(rs_check_kwargs(r, e, "R.TupleGetItem", no_kw));
    if (e->n != 2 || !rs_int_lit(e->items[1], &i)) return rs_err(r, e, "R.TupleGetItem: expected (tuple, integer index)");
    rlx_relax_expr_t* t;
    RLX_RETURN_IF_ERROR(rs_expr(r, e->items[0], &t));
    *out = rlx_relax_tuple_get_item(ctx, t, (int)i);
    return NULL;
  }
  if (strcmp(k, "ExternFunc") == 0) {
    const char* name = NULL;
    RLX_RETURN_IF_ERROR(rs_check_kwargs(r, e, "R.ExternFunc", no_kw));
    RLX_RETURN_IF_ERROR(packed_name(r, e, "R.ExternFunc", &name));
    if (e->n != 1) return rs_err(r, e, "R.ExternFunc: expected one name");
    *out = rlx_relax_extern_func(ctx, name);
    return NULL;
  }
  if (strcmp(k, "match_cast") == 0) return rs_err(r, e, "R.match_cast is only allowed as the value of a binding");
  if (strcmp(k, "output") == 0) return rs_err(r, e, "R.output is only allowed at the end of a dataflow block");
  if (strcmp(k, "func_attr") == 0) return rs_err(r, e, "R.func_attr is only allowed at the top of a function");
  if (strcmp(k, "dataflow") == 0) return rs_err(r, e, "R.dataflow is only allowed as `with R.dataflow():`");
  /* a registered operator */
  const char* opname = rlx_ctx_sprintf(ctx, "relax.%s", k);
  const rlx_op_def_t* def = rlx_op_lookup(opname);
  if (!def) return rs_err(r, e->a, "unknown op R.%s", k);
  rlx_relax_expr_t** args = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, e->n);
  rlx_attrs_t attrs = {0};
  int n_args = 0;
  for (int i = 0; i < e->n; i++) {
    /* a positional argument in the place of an attribute of TVM's signature is that
     * attribute (R.tile(x, (2, 1)) is repeats=(2, 1), R.astype(x, "float16") dtype=) */
    const char* akey = attr_literal(e->items[i]) ? positional_attr(ctx, def->params, i) : NULL;
    if (akey) {
      bool keep;
      rlx_attr_t a;
      RLX_RETURN_IF_ERROR(rs_attr_value(r, akey, e->items[i], false, &keep, &a));
      if (keep) attrs = rlx_attrs_set(ctx, attrs, akey, a);
      continue;
    }
    RLX_RETURN_IF_ERROR(op_arg(r, e->items[i], &args[n_args++]));
  }
  int ns = 0;
  rlx_sinfo_t** ss = NULL;
  for (int i = 0; i < e->n_kw; i++) {
    if (strcmp(e->kw_names[i], "sinfo_args") == 0) {
      RLX_RETURN_IF_ERROR(rs_sinfo_args(r, e->kw_values[i], &ns, &ss));
      continue;
    }
    if (rlx_attrs_get(&attrs, e->kw_names[i]))
      return rs_err(r, e->kw_values[i], "R.%s: keyword argument '%s' given twice", k, e->kw_names[i]);
    bool keep;
    rlx_attr_t a;
    RLX_RETURN_IF_ERROR(rs_attr_value(r, e->kw_names[i], e->kw_values[i], false, &keep, &a));
    if (keep) attrs = rlx_attrs_set(ctx, attrs, rlx_ctx_strdup(ctx, e->kw_names[i]), a);
  }
  *out = rlx_relax_call(ctx, rlx_relax_op_named(ctx, opname), n_args, args, rs_attrs_drop_defaults(ctx, opname, attrs), ns,
                        ss);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* call_args(rs_t* r, const py_expr_t* e, int* n, rlx_relax_expr_t*** out) {
  if (e->n_kw) return rs_err(r, e->kw_values[0], "unexpected keyword argument '%s' in a function call", e->kw_names[0]);
  return rs_expr_list(r, &(py_expr_t){.kind = PY_E_TUPLE, .span = e->span, .n = e->n, .items = e->items}, "call", n, out);
}

/* metadata["relax.expr.Constant"][i]: constant i of the script's metadata section; without
 * a section, an elided constant (no data, unknown shape: relax_script.h). */
static RLX_MUST_USE rlx_status_t* metadata_ref(rs_t* r, const py_expr_t* e, rlx_relax_expr_t** out) {
  int64_t idx;
  const py_expr_t* key = e->a->n == 1 ? e->a->items[0] : NULL;
  if (!key || key->kind != PY_E_STR || strcmp(key->str, "relax.expr.Constant") != 0)
    return rs_err(r, e, "expected metadata[\"relax.expr.Constant\"][i], got another metadata key");
  if (e->n != 1 || !rs_int_lit(e->items[0], &idx) || idx < 0)
    return rs_err(r, e, "expected metadata[\"relax.expr.Constant\"][i] with an index i >= 0");
  if (r->p->has_meta) {
    if (idx >= r->p->n_meta)
      return rs_err(r, e, "metadata[\"relax.expr.Constant\"][%lld]: the metadata section has %d constants", (long long)idx,
                 r->p->n_meta);
    *out = (rlx_relax_expr_t*)&r->p->meta[idx]->hdr;
    return NULL;
  }
  rlx_relax_constant_t* c = (rlx_relax_constant_t*)rlx_relax_constant(r->ctx, rlx_dt_void(), 0, NULL, NULL, 0);
  c->data = NULL;
  c->ndim = -1;
  c->hdr.sinfo = rlx_sinfo_tensor(r->ctx, -1, NULL, rlx_dt_void());
  *out = &c->hdr;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rs_expr(rs_t* r, const py_expr_t* e, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = r->ctx;
  switch (e->kind) {
    case PY_E_NAME: {
      rs_sym_t* y = rs_lookup(r, e->str);
      if (y && y->kind == RS_RELAX) {
        *out = y->ptr;
        return NULL;
      }
      if (y && y->kind == RS_SYM)
        return rs_err(r, e, "expected a Relax expression, got the symbolic variable '%s' (use R.prim_value(%s))", e->str,
                   e->str);
      return rs_err(r, e, "undefined variable '%s'", e->str);
    }
    case PY_E_TUPLE: {
      rlx_relax_expr_t** f = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, e->n);
      for (int i = 0; i < e->n; i++) RLX_RETURN_IF_ERROR(rs_expr(r, e->items[i], &f[i]));
      *out = rlx_relax_tuple(ctx, e->n, f);
      return NULL;
    }
    case PY_E_SUBSCRIPT: {
      int64_t idx;
      if (e->a->kind == PY_E_SUBSCRIPT && e->a->a->kind == PY_E_NAME && strcmp(e->a->a->str, "metadata") == 0 &&
          !rs_lookup(r, "metadata"))
        return metadata_ref(r, e, out);
      if (e->n != 1 || !rs_int_lit(e->items[0], &idx) || idx < 0 || idx > 1000000)
        return rs_err(r, e, "expected a tuple index such as lv[0], got %s", e->n ? rs_desc(r, e->items[0]) : "nothing");
      rlx_relax_expr_t* t;
      RLX_RETURN_IF_ERROR(rs_expr(r, e->a, &t));
      *out = rlx_relax_tuple_get_item(ctx, t, (int)idx);
      return NULL;
    }
    case PY_E_ATTR: {
      if (e->a->kind == PY_E_NAME && !rs_rname(r, e)) return rs_global_var(r, e, out, NULL);
      return rs_err(r, e, "expected a Relax expression, got %s", rs_desc(r, e));
    }
    case PY_E_CALL: {
      const char* k = rs_rname(r, e->a);
      if (k) return rcall(r, k, e, out);
      if (is_rcall(r, e->a, "ExternFunc")) { /* R.ExternFunc("f")(args): the lowered call_dps_packed */
        rlx_relax_expr_t* f;
        RLX_RETURN_IF_ERROR(rcall(r, "ExternFunc", e->a, &f));
        int n;
        rlx_relax_expr_t** args;
        RLX_RETURN_IF_ERROR(call_args(r, e, &n, &args));
        *out = rlx_relax_call(ctx, f, n, args, (rlx_attrs_t){0}, 0, NULL);
        (*out)->sinfo = rlx_sinfo_tuple(ctx, 0, NULL);
        return NULL;
      }
      rlx_relax_expr_t* f;
      bool is_tir = false;
      if (e->a->kind == PY_E_ATTR)
        RLX_RETURN_IF_ERROR(rs_global_var(r, e->a, &f, &is_tir));
      else
        RLX_RETURN_IF_ERROR(rs_expr(r, e->a, &f));
      int n;
      rlx_relax_expr_t** args;
      RLX_RETURN_IF_ERROR(call_args(r, e, &n, &args));
      *out = rlx_relax_call(ctx, f, n, args, (rlx_attrs_t){0}, 0, NULL);
      /* a PrimFunc returns nothing: its call (DPS, after call_tir_rewrite) is void (TVM) */
      if (is_tir) (*out)->sinfo = rlx_sinfo_tuple(ctx, 0, NULL);
      return NULL;
    }
    case PY_E_INT: /* TVM converts Python values where a Relax expression is expected */
      *out = rlx_relax_prim_value(ctx, rlx_ir_i64(ctx, e->ival));
      return NULL;
    case PY_E_FLOAT:
      *out = rlx_relax_prim_value(ctx, rlx_ir_float(ctx, rlx_dt_float64(), e->fval));
      return NULL;
    case PY_E_STR:
      *out = rlx_relax_string_imm(ctx, rlx_ctx_strdup(ctx, e->str));
      return NULL;
    case PY_E_CONST:
      if (strcmp(e->str, "None") == 0) break;
      *out = rlx_relax_prim_value(ctx, rlx_ir_bool(ctx, strcmp(e->str, "True") == 0));
      return NULL;
    case PY_E_LIST: {
      rlx_relax_expr_t** f = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, e->n);
      for (int i = 0; i < e->n; i++) RLX_RETURN_IF_ERROR(rs_expr(r, e->items[i], &f[i]));
      *out = rlx_relax_tuple(ctx, e->n, f);
      return NULL;
    }
    case PY_E_BINOP:
    case PY_E_UNARY:
    case PY_E_COMPARE:
    case PY_E_BOOLOP:
      return operator_expr(r, e, out);
    case PY_E_SLICE:
    case PY_E_DICT:
    case PY_E_IFEXP:
      break;
  }
  return rs_err(r, e, "expected a Relax expression (a variable, a call such as R.add(x, y), a tuple), got %s", rs_desc(r, e));
}

static bool compatible(rlx_ctx_t* ctx, rlx_sinfo_t* ann, rlx_sinfo_t* val) {
  return rlx_sinfo_is_base_of(ctx, ann, val) ||
         rlx_sinfo_is_base_of(ctx, rlx_sinfo_erase_undefined(ctx, val, NULL, NULL),
                              rlx_sinfo_erase_undefined(ctx, ann, NULL, NULL));
}

/* ------------------------------------------------------------------ bindings */
typedef struct {
  RLX_VEC(rlx_relax_block_t*) blocks;
  RLX_VEC(rlx_relax_binding_t*) cur; /* bindings of the open plain block */
} seq_b_t;

static void flush(rs_t* r, seq_b_t* sq, bool dataflow) {
  if (!sq->cur.len) return;
  rlx_vec_push(&sq->blocks, rlx_relax_block(r->ctx, dataflow, sq->cur.len, sq->cur.data));
  sq->cur.len = 0;
}

static rlx_relax_var_t* new_var(rs_t* r, const char* name, rlx_sinfo_t* s) {
  bool is_out = !r->in_dataflow;
  for (int i = 0; i < r->n_outs && !is_out; i++) is_out = strcmp(r->outs[i], name) == 0;
  name = rlx_ctx_strdup(r->ctx, name);
  rlx_relax_var_t* v = is_out ? rlx_relax_var(r->ctx, name, s) : rlx_relax_dataflow_var(r->ctx, name, s);
  return v;
}

static RLX_MUST_USE rlx_status_t* normalize(rs_t* r, rlx_relax_expr_t* v, rlx_span_t sp) {
  return at_span(rlx_relax_normalize(r->ctx, r->m, v), sp);
}

/* A-normal form, as TVM's normalizer makes it: a call's argument that is not a leaf (a
 * variable, constant, shape, prim value, string, op, global, extern function or function,
 * or a tuple of leaves) is bound to a fresh variable in the current block first, innermost
 * first and left to right, so `R.add(x, R.multiply(y, z))` becomes two bindings (the rule
 * of the BlockBuilder's rlx_bb_bind_operands, over the parser's own blocks). */
static bool is_leaf(const rlx_relax_expr_t* e) {
  if (e->kind == RLX_RELAX_FUNCTION) return true;
  if (e->kind != RLX_RELAX_TUPLE) return rlx_relax_expr_is_leaf(e);
  const rlx_relax_tuple_t* t = (const rlx_relax_tuple_t*)e;
  for (int i = 0; i < t->n_fields; i++)
    if (!is_leaf(t->fields[i])) return false;
  return true;
}

static RLX_MUST_USE rlx_status_t* bind_nested(rs_t* r, rlx_relax_expr_t* e, rlx_span_t sp, seq_b_t* sq,
                                              rlx_relax_expr_t** out);

/* e in an argument position: a leaf as it is, a tuple field by field, anything else bound. */
static RLX_MUST_USE rlx_status_t* as_arg(rs_t* r, rlx_relax_expr_t* e, rlx_span_t sp, seq_b_t* sq,
                                         rlx_relax_expr_t** out) {
  *out = e;
  if (is_leaf(e)) return NULL;
  if (e->kind == RLX_RELAX_TUPLE) {
    const rlx_relax_tuple_t* t = (const rlx_relax_tuple_t*)e;
    rlx_relax_expr_t** f = RLX_NEW_ARRAY(r->ctx, rlx_relax_expr_t*, t->n_fields ? t->n_fields : 1);
    for (int i = 0; i < t->n_fields; i++) RLX_RETURN_IF_ERROR(as_arg(r, t->fields[i], sp, sq, &f[i]));
    *out = rlx_relax_tuple(r->ctx, t->n_fields, f);
    return NULL;
  }
  if (e->kind == RLX_RELAX_IF || e->kind == RLX_RELAX_SEQ) return NULL; /* kept as written */
  rlx_relax_expr_t* v;
  RLX_RETURN_IF_ERROR(bind_nested(r, e, sp, sq, &v));
  RLX_RETURN_IF_ERROR(at_span(rlx_relax_normalize(r->ctx, r->m, v), sp));
  rlx_relax_var_t* var = r->in_dataflow ? rlx_relax_dataflow_var(r->ctx, "lv", v->sinfo)
                                        : rlx_relax_var(r->ctx, "lv", v->sinfo);
  rlx_vec_push(&sq->cur, rlx_relax_var_binding(r->ctx, var, v));
  *out = &var->hdr;
  return NULL;
}

/* e with its non-leaf arguments bound (e itself is not). */
static RLX_MUST_USE rlx_status_t* bind_nested(rs_t* r, rlx_relax_expr_t* e, rlx_span_t sp, seq_b_t* sq,
                                              rlx_relax_expr_t** out) {
  *out = e;
  if (e->kind == RLX_RELAX_CALL) {
    rlx_relax_call_t* c = (rlx_relax_call_t*)e;
    bool leaves = true;
    for (int i = 0; i < c->n_args && leaves; i++) leaves = is_leaf(c->args[i]);
    if (leaves) return NULL;
    rlx_relax_expr_t** a = RLX_NEW_ARRAY(r->ctx, rlx_relax_expr_t*, c->n_args);
    for (int i = 0; i < c->n_args; i++) RLX_RETURN_IF_ERROR(as_arg(r, c->args[i], sp, sq, &a[i]));
    *out = rlx_relax_call(r->ctx, c->op, c->n_args, a, c->attrs, c->n_sinfo_args, c->sinfo_args);
  } else if (e->kind == RLX_RELAX_TUPLE_GET_ITEM) {
    rlx_relax_tuple_get_item_t* g = (rlx_relax_tuple_get_item_t*)e;
    rlx_relax_expr_t* t;
    RLX_RETURN_IF_ERROR(as_arg(r, g->tuple, sp, sq, &t));
    if (t != g->tuple) *out = rlx_relax_tuple_get_item(r->ctx, t, g->index);
  } else if (e->kind == RLX_RELAX_TUPLE) {
    return as_arg(r, e, sp, sq, out);
  }
  return NULL;
}

/* target (: ann) = value. */
static RLX_MUST_USE rlx_status_t* bind(rs_t* r, const py_stmt_t* s, const py_expr_t* target, const py_expr_t* ann_e,
                                       const py_expr_t* value, seq_b_t* sq) {
  rlx_ctx_t* ctx = r->ctx;
  const char* name = "_";
  if (target) {
    if (target->kind != PY_E_NAME)
      return rs_err(r, target, "expected a variable name on the left of '=', got %s", rs_desc(r, target));
    name = target->str;
  }
  rlx_sinfo_t* ann = NULL;
  if (ann_e) RLX_RETURN_IF_ERROR(rs_sinfo(r, ann_e, &ann));
  if (is_rcall(r, value, "match_cast")) {
    if (value->n != 2 || value->n_kw) return rs_err(r, value, "R.match_cast: expected (value, struct info)");
    rlx_relax_expr_t* v;
    RLX_RETURN_IF_ERROR(rs_expr(r, value->items[0], &v));
    RLX_RETURN_IF_ERROR(normalize(r, v, value->items[0]->span));
    rlx_sinfo_t* si;
    r->sig_mode = true; /* new symbolic vars are defined by the match */
    rlx_status_t* st = rs_sinfo(r, value->items[1], &si);
    r->sig_mode = false;
    RLX_RETURN_IF_ERROR(st);
    if (!compatible(ctx, si, v->sinfo))
      return rs_err(r, value->items[1], "%s: expected struct info that a value of %s can match, got %s", name,
                 rlx_sinfo_str(ctx, v->sinfo), rlx_sinfo_str(ctx, si));
    if (ann && !rlx_sinfo_is_base_of(ctx, ann, si))
      return rs_err(r, ann_e, "%s: the annotation %s does not match R.match_cast's %s", name, rlx_sinfo_str(ctx, ann),
                 rlx_sinfo_str(ctx, si));
    rlx_relax_var_t* var = new_var(r, name, si);
    rlx_vec_push(&sq->cur, rlx_relax_match_cast(ctx, var, v, si));
    define(r, var->name, RS_RELAX, var);
    return NULL;
  }
  rlx_relax_expr_t* v;
  RLX_RETURN_IF_ERROR(rs_expr(r, value, &v));
  RLX_RETURN_IF_ERROR(bind_nested(r, v, value->span, sq, &v));
  RLX_RETURN_IF_ERROR(normalize(r, v, value->span));
  if (r->in_dataflow && v->kind == RLX_RELAX_CALL && !rlx_relax_call_is_pure((rlx_relax_call_t*)v))
    return rs_err(r, value, "%s: expected a pure call inside a dataflow block, got the impure %s", name, rs_desc(r, value));
  if (ann && !compatible(ctx, ann, v->sinfo))
    return rs_err(r, ann_e, "%s: expected %s, got %s", name, rlx_sinfo_str(ctx, ann), rlx_sinfo_str(ctx, v->sinfo));
  (void)s;
  rlx_relax_var_t* var = new_var(r, name, ann ? ann : v->sinfo);
  rlx_vec_push(&sq->cur, rlx_relax_var_binding(ctx, var, v));
  define(r, var->name, RS_RELAX, var);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* stmts(rs_t* r, const py_block_t* b, seq_b_t* sq, int end, bool in_branch);

/* The last statement of an if-branch: `v (: ann) = value`. */
static RLX_MUST_USE rlx_status_t* branch(rs_t* r, const py_block_t* b, rlx_span_t sp, const char** name, const py_expr_t** ann,
                                         rlx_relax_expr_t** out) {
  if (b->n == 0) return err_at(sp, "expected a branch ending in an assignment");
  const py_stmt_t* last = b->items[b->n - 1];
  if ((last->kind != PY_S_ASSIGN && last->kind != PY_S_ANNASSIGN) || !last->value || last->target->kind != PY_E_NAME)
    return err_at(last->span, "expected the branch to end with an assignment `v = ...`, got %s", tp_stmt_desc(last));
  scope_push(r);
  seq_b_t sq = {0};
  bool was_df = r->in_dataflow;
  r->in_dataflow = false;
  rlx_status_t* st = stmts(r, b, &sq, b->n - 1, true);
  rlx_relax_expr_t* v = NULL;
  if (!st) st = rs_expr(r, last->value, &v);
  if (!st) st = bind_nested(r, v, last->value->span, &sq, &v);
  if (!st) st = normalize(r, v, last->value->span);
  r->in_dataflow = was_df;
  if (!st) {
    flush(r, &sq, false);
    *out = rlx_relax_seq(r->ctx, sq.blocks.len, sq.blocks.data, v);
    *name = last->target->str;
    *ann = last->kind == PY_S_ANNASSIGN ? last->annotation : NULL;
  }
  rlx_vec_free(&sq.blocks);
  rlx_vec_free(&sq.cur);
  scope_pop(r);
  return st;
}

static RLX_MUST_USE rlx_status_t* if_stmt(rs_t* r, const py_stmt_t* s, seq_b_t* sq) {
  rlx_relax_expr_t* cond;
  RLX_RETURN_IF_ERROR(rs_expr(r, s->value, &cond));
  RLX_RETURN_IF_ERROR(normalize(r, cond, s->value->span));
  if (s->orelse.n == 0) return err_at(s->span, "expected an else branch (a Relax if is an expression)");
  const char *n1, *n2;
  const py_expr_t *a1, *a2;
  rlx_relax_expr_t *t, *f;
  RLX_RETURN_IF_ERROR(branch(r, &s->body, s->span, &n1, &a1, &t));
  RLX_RETURN_IF_ERROR(branch(r, &s->orelse, s->span, &n2, &a2, &f));
  if (strcmp(n1, n2) != 0)
    return err_at(s->orelse.items[s->orelse.n - 1]->span, "expected both branches to assign '%s', got '%s'", n1, n2);
  rlx_relax_expr_t* v = rlx_relax_if(r->ctx, cond, t, f);
  RLX_RETURN_IF_ERROR(normalize(r, v, s->span));
  rlx_sinfo_t* ann = NULL;
  const py_expr_t* ae = a1 ? a1 : a2;
  if (ae) {
    RLX_RETURN_IF_ERROR(rs_sinfo(r, ae, &ann));
    if (!compatible(r->ctx, ann, v->sinfo))
      return rs_err(r, ae, "%s: expected %s, got %s", n1, rlx_sinfo_str(r->ctx, ann), rlx_sinfo_str(r->ctx, v->sinfo));
  }
  if (r->in_dataflow) return err_at(s->span, "expected no if inside a dataflow block");
  rlx_relax_var_t* var = new_var(r, n1, ann ? ann : v->sinfo);
  rlx_vec_push(&sq->cur, rlx_relax_var_binding(r->ctx, var, v));
  define(r, var->name, RS_RELAX, var);
  return NULL;
}

static bool is_tint_decl(rs_t* r, const py_expr_t* v) {
  if (!v || v->kind != PY_E_CALL || v->n || v->n_kw) return false;
  const char* t = tp_tname(r->p, v->a);
  return t && (strcmp(t, "int64") == 0 || strcmp(t, "int32") == 0);
}

static RLX_MUST_USE rlx_status_t* dataflow(rs_t* r, const py_stmt_t* s, seq_b_t* sq) {
  if (r->in_dataflow) return err_at(s->span, "expected no nested R.dataflow()");
  if (s->target) return rs_err(r, s->target, "expected `with R.dataflow():` without `as`");
  const py_block_t* b = &s->body;
  const py_stmt_t* last = b->n ? b->items[b->n - 1] : NULL;
  if (!last || last->kind != PY_S_EXPR || !is_rcall(r, last->value, "output"))
    return err_at(last ? last->span : s->span, "expected the dataflow block to end with R.output(...), got %s",
                  last ? tp_stmt_desc(last) : "an empty block");
  const py_expr_t* oc = last->value;
  const char** outs = RLX_NEW_ARRAY(r->ctx, const char*, oc->n);
  for (int i = 0; i < oc->n; i++) {
    if (oc->items[i]->kind != PY_E_NAME)
      return rs_err(r, oc->items[i], "R.output: expected variable names, got %s", rs_desc(r, oc->items[i]));
    outs[i] = oc->items[i]->str;
  }
  flush(r, sq, false);
  r->in_dataflow = true;
  r->outs = outs;
  r->n_outs = oc->n;
  int mark = r->syms.len;
  rlx_status_t* st = stmts(r, b, sq, b->n - 1, true);
  r->in_dataflow = false;
  r->outs = NULL;
  r->n_outs = 0;
  RLX_RETURN_IF_ERROR(st);
  for (int i = 0; i < oc->n; i++) {
    rs_sym_t* y = rs_lookup(r, outs[i]);
    if (!y || y->kind != RS_RELAX || (int)(y - r->syms.data) < mark)
      return rs_err(r, oc->items[i], "R.output: '%s' is not bound in this dataflow block", outs[i]);
  }
  /* dataflow vars are not visible after the block */
  int n = mark;
  for (int i = mark; i < r->syms.len; i++) {
    rs_sym_t* y = &r->syms.data[i];
    if (y->kind == RS_RELAX && ((rlx_relax_expr_t*)y->ptr)->kind == RLX_RELAX_DATAFLOW_VAR) continue;
    r->syms.data[n++] = *y;
  }
  r->syms.len = n;
  if (sq->cur.len) {
    rlx_vec_push(&sq->blocks, rlx_relax_block(r->ctx, true, sq->cur.len, sq->cur.data));
    sq->cur.len = 0;
  } else {
    rlx_vec_push(&sq->blocks, rlx_relax_block(r->ctx, true, 0, NULL));
  }
  return NULL;
}

/* `a, b = v`: a tuple of T.int64() declarations declares each; a tuple of values binds
 * each name to its value; any other value is bound once and each name to its item (v[0],
 * v[1], ...). */
static RLX_MUST_USE rlx_status_t* unpack(rs_t* r, const py_stmt_t* s, seq_b_t* sq) {
  const py_expr_t* t = s->target;
  const py_expr_t* v = s->value;
  for (int i = 0; i < t->n; i++)
    if (t->items[i]->kind != PY_E_NAME)
      return rs_err(r, t->items[i], "expected a variable name on the left of '=', got %s", rs_desc(r, t->items[i]));
  if (v->kind == PY_E_TUPLE || v->kind == PY_E_LIST) {
    if (v->n != t->n) return rs_err(r, v, "expected %d values to unpack, got %d", t->n, v->n);
    for (int i = 0; i < t->n; i++) {
      if (is_tint_decl(r, v->items[i])) {
        rs_sym_t* y = rs_lookup(r, t->items[i]->str);
        if (y && y->kind == RS_SYM) continue;
        rlx_dtype_t dt;
        rlx_dtype_parse(tp_tname(r->p, v->items[i]->a), &dt);
        rlx_var_t* var = rlx_ir_var(r->ctx, rlx_ctx_strdup(r->ctx, t->items[i]->str), dt);
        define(r, var->name, RS_SYM, var);
        continue;
      }
      RLX_RETURN_IF_ERROR(bind(r, s, t->items[i], NULL, v->items[i], sq));
    }
    return NULL;
  }
  rlx_relax_expr_t* val;
  RLX_RETURN_IF_ERROR(rs_expr(r, v, &val));
  RLX_RETURN_IF_ERROR(normalize(r, val, v->span));
  if (val->kind != RLX_RELAX_VAR && val->kind != RLX_RELAX_DATAFLOW_VAR) {
    rlx_relax_var_t* tmp = new_var(r, r->in_dataflow ? "lv" : "gv", val->sinfo);
    rlx_vec_push(&sq->cur, rlx_relax_var_binding(r->ctx, tmp, val));
    val = &tmp->hdr;
  }
  for (int i = 0; i < t->n; i++) {
    rlx_relax_expr_t* item = rlx_relax_tuple_get_item(r->ctx, val, i);
    RLX_RETURN_IF_ERROR(normalize(r, item, t->items[i]->span));
    rlx_relax_var_t* var = new_var(r, t->items[i]->str, item->sinfo);
    rlx_vec_push(&sq->cur, rlx_relax_var_binding(r->ctx, var, item));
    define(r, var->name, RS_RELAX, var);
  }
  return NULL;
}

/* Statements b[0..end) of a function body, branch or dataflow block. */
static RLX_MUST_USE rlx_status_t* decorator(rs_t* r, const py_stmt_t* s, rs_sig_t* sig);
static RLX_MUST_USE rlx_status_t* func_body(rs_t* r, const py_stmt_t* s, rs_sig_t* sig, rlx_relax_func_t** out);

/* A local function (`@R.function def g(...)` inside a body): bound to a var named g. */
static RLX_MUST_USE rlx_status_t* local_func(rs_t* r, const py_stmt_t* s, seq_b_t* sq) {
  rs_sig_t sig;
  memset(&sig, 0, sizeof(sig));
  sig.s = s;
  sig.name = s->name;
  RLX_RETURN_IF_ERROR(decorator(r, s, &sig));
  if (sig.is_private) return err_at(s->span, "%s: expected no private= on a local function", s->name);
  sig.is_private = true; /* no global_symbol */
  rs_t inner = *r;       /* same scope (closures), fresh function state */
  memset(&inner.syms, 0, sizeof(inner.syms));
  for (int i = 0; i < r->syms.len; i++) rlx_vec_push(&inner.syms, r->syms.data[i]);
  inner.in_dataflow = false;
  inner.outs = NULL;
  inner.n_outs = 0;
  inner.fattrs = (rlx_attrs_t){0};
  scope_push(&inner);
  inner.sig_mode = true;
  rlx_status_t* st = NULL;
  sig.n_params = s->n_params;
  sig.params = RLX_NEW_ARRAY(r->ctx, rlx_relax_var_t*, s->n_params);
  for (int i = 0; !st && i < s->n_params; i++) {
    const py_param_t* pa = &s->params[i];
    rlx_sinfo_t* si = NULL;
    if (!pa->annotation)
      st = err_at(pa->span, "parameter %s: expected struct info such as R.Tensor((n, 4), dtype=\"float32\")", pa->name);
    if (!st) st = rs_sinfo(&inner, pa->annotation, &si);
    if (!st) sig.params[i] = rlx_relax_var(r->ctx, rlx_ctx_strdup(r->ctx, pa->name), si);
  }
  if (!st && s->returns) st = rs_sinfo(&inner, s->returns, &sig.ret);
  inner.sig_mode = false;
  rlx_relax_func_t* f = NULL;
  if (!st) st = func_body(&inner, s, &sig, &f);
  rlx_vec_free(&inner.syms);
  RLX_RETURN_IF_ERROR(st);
  rlx_relax_var_t* var = new_var(r, s->name, f->hdr.sinfo);
  rlx_vec_push(&sq->cur, rlx_relax_var_binding(r->ctx, var, &f->hdr));
  define(r, var->name, RS_RELAX, var);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* stmts(rs_t* r, const py_block_t* b, seq_b_t* sq, int end, bool in_branch) {
  for (int i = 0; i < end; i++) {
    const py_stmt_t* s = b->items[i];
    bool top = !in_branch && !r->in_dataflow;
    switch (s->kind) {
      case PY_S_PASS:
        continue;
      case PY_S_ASSIGN:
      case PY_S_ANNASSIGN: {
        if (!s->value) return err_at(s->span, "expected a value after the annotation");
        if (s->kind == PY_S_ASSIGN && s->target->kind == PY_E_TUPLE) {
          RLX_RETURN_IF_ERROR(unpack(r, s, sq));
          r->attrs_allowed = false;
          continue;
        }
        if (s->kind == PY_S_ASSIGN && s->target->kind == PY_E_NAME && is_tint_decl(r, s->value)) {
          rs_sym_t* y = rs_lookup(r, s->target->str);
          if (y && y->kind == RS_SYM) continue;
          rlx_dtype_t dt;
          rlx_dtype_parse(tp_tname(r->p, s->value->a), &dt);
          rlx_var_t* v = rlx_ir_var(r->ctx, rlx_ctx_strdup(r->ctx, s->target->str), dt);
          define(r, v->name, RS_SYM, v);
          continue;
        }
        if (s->kind == PY_S_ASSIGN && s->target->kind == PY_E_NAME && s->value->kind == PY_E_NAME &&
            r->p->module_name && strcmp(s->value->str, r->p->module_name) == 0 && !rs_lookup(r, s->value->str)) {
          define(r, rlx_ctx_strdup(r->ctx, s->target->str), RS_MODULE, NULL);
          continue;
        }
        RLX_RETURN_IF_ERROR(bind(r, s, s->target, s->kind == PY_S_ANNASSIGN ? s->annotation : NULL, s->value, sq));
        r->attrs_allowed = false;
        continue;
      }
      case PY_S_EXPR: {
        const py_expr_t* v = s->value;
        if (v->kind == PY_E_STR) continue;
        if (is_rcall(r, v, "func_attr")) {
          if (!top || !r->attrs_allowed) return rs_err(r, v, "R.func_attr: expected at the top of the function body");
          if (v->n != 1 || v->items[0]->kind != PY_E_DICT)
            return rs_err(r, v, "R.func_attr: expected one dict {\"key\": value}");
          const py_expr_t* d = v->items[0];
          for (int k = 0; k < d->n; k++) {
            if (d->items[k]->kind != PY_E_STR)
              return rs_err(r, d->items[k], "R.func_attr: expected string keys, got %s", rs_desc(r, d->items[k]));
            bool keep;
            rlx_attr_t a;
            RLX_RETURN_IF_ERROR(rs_attr_value(r, d->items[k]->str, d->kw_values[k], true, &keep, &a));
            if (keep) r->fattrs = rlx_attrs_set(r->ctx, r->fattrs, rlx_ctx_strdup(r->ctx, d->items[k]->str), a);
          }
          continue;
        }
        if (is_rcall(r, v, "output"))
          return rs_err(r, v, "R.output: expected only as the last statement of a dataflow block");
        RLX_RETURN_IF_ERROR(bind(r, s, NULL, NULL, v, sq));
        /* TVM: only a void value (R.Tuple()) may stand unassigned */
        rlx_sinfo_t* vs = sq->cur.len ? sq->cur.data[sq->cur.len - 1]->var->hdr.sinfo : NULL;
        if (vs && !(vs->kind == RLX_SINFO_TUPLE && ((rlx_sinfo_tuple_t*)vs)->n_fields == 0))
          return rs_err(r, v, "%s gives %s: a value that is not void (R.Tuple()) must be assigned to a variable",
                     rs_desc(r, v), rlx_sinfo_str(r->ctx, vs));
        r->attrs_allowed = false;
        continue;
      }
      case PY_S_WITH:
        if (!is_rcall(r, s->value, "dataflow"))
          return rs_err(r, s->value, "expected `with R.dataflow():`, got %s", rs_desc(r, s->value));
        if (in_branch || r->in_dataflow) return rs_err(r, s->value, "expected R.dataflow() only at function level");
        RLX_RETURN_IF_ERROR(dataflow(r, s, sq));
        r->attrs_allowed = false;
        continue;
      case PY_S_IF:
        RLX_RETURN_IF_ERROR(if_stmt(r, s, sq));
        r->attrs_allowed = false;
        continue;
      case PY_S_RETURN:
        return err_at(s->span, "expected return only as the last statement of the function");
      case PY_S_DEF:
        if (!rs_is_relax_def(r->p, r->R, s)) return err_at(s->span, "expected a local function decorated @R.function");
        RLX_RETURN_IF_ERROR(local_func(r, s, sq));
        r->attrs_allowed = false;
        continue;
      case PY_S_AUGASSIGN:
      case PY_S_FOR:
      case PY_S_WHILE:
      case PY_S_CLASS:
      case PY_S_IMPORT:
      case PY_S_ASSERT:
        break;
    }
    return err_at(s->span, "expected a binding, `with R.dataflow():`, an if or a return in a Relax function, got %s",
                  tp_stmt_desc(s));
  }
  return NULL;
}

/* ------------------------------------------------------------------ functions */
bool rs_is_relax_def(tp_t* p, const char* relax_alias, const py_stmt_t* s) {
  if (s->kind != PY_S_DEF) return false;
  for (int i = 0; i < s->n_decorators; i++) {
    const py_expr_t* d = s->decorators[i];
    const char* n = py_dotted_name(p->ast, d->kind == PY_E_CALL ? d->a : d);
    if (!n) continue;
    size_t k = strlen(relax_alias);
    if (strncmp(n, relax_alias, k) == 0 && strcmp(n + k, ".function") == 0) return true;
  }
  return false;
}

static RLX_MUST_USE rlx_status_t* decorator(rs_t* r, const py_stmt_t* s, rs_sig_t* sig) {
  sig->is_pure = true;
  for (int i = 0; i < s->n_decorators; i++) {
    const py_expr_t* d = s->decorators[i];
    if (d->kind != PY_E_CALL) continue;
    const char* n = rs_rname(r, d->a);
    if (!n || strcmp(n, "function") != 0) continue;
    if (d->n)
      return rs_err(r, d->items[0], "R.function: expected keyword options (pure=, private=), got %s",
                 rs_desc(r, d->items[0]));
    for (int k = 0; k < d->n_kw; k++) {
      const py_expr_t* v = d->kw_values[k];
      bool is_bool = v->kind == PY_E_CONST && strcmp(v->str, "None") != 0;
      if (!is_bool) return rs_err(r, v, "R.function: expected True or False for %s, got %s", d->kw_names[k], rs_desc(r, v));
      bool b = strcmp(v->str, "True") == 0;
      if (strcmp(d->kw_names[k], "pure") == 0)
        sig->is_pure = b;
      else if (strcmp(d->kw_names[k], "private") == 0)
        sig->is_private = b;
      else
        return rs_err(r, v, "R.function: unexpected option '%s' (expected pure= or private=)", d->kw_names[k]);
    }
  }
  return NULL;
}

static void rs_init(rs_t* r, tp_t* p, const char* relax_alias, rlx_module_t* m) {
  memset(r, 0, sizeof(*r));
  r->p = p;
  r->ctx = p->ctx;
  r->R = relax_alias;
  r->m = m;
}

RLX_MUST_USE rlx_status_t* rs_parse_signature(tp_t* p, const char* relax_alias, rlx_module_t* m, const py_stmt_t* s,
                                              rs_sig_t** out_sig) {
  rs_t r;
  rs_init(&r, p, relax_alias, m);
  rs_sig_t* sig = RLX_NEW(p->ctx, rs_sig_t);
  sig->s = s;
  sig->name = s->name;
  sig->relax_alias = relax_alias;
  rlx_status_t* st = decorator(&r, s, sig);
  for (int i = 0; i < p->n_scope_vars; i++) define(&r, p->scope_vars[i]->name, RS_SYM, p->scope_vars[i]);
  r.sig_mode = true;
  sig->n_params = s->n_params;
  sig->params = RLX_NEW_ARRAY(p->ctx, rlx_relax_var_t*, s->n_params);
  for (int i = 0; !st && i < s->n_params; i++) {
    const py_param_t* pa = &s->params[i];
    if (!pa->annotation) {
      st = err_at(pa->span, "parameter %s: expected struct info such as R.Tensor((n, 4), dtype=\"float32\")", pa->name);
      break;
    }
    for (int j = 0; j < i && !st; j++)
      if (strcmp(s->params[j].name, pa->name) == 0) st = err_at(pa->span, "parameter %s: defined twice", pa->name);
    rlx_sinfo_t* si = NULL;
    if (!st) st = rs_sinfo(&r, pa->annotation, &si);
    if (st) break;
    sig->params[i] = rlx_relax_var(p->ctx, rlx_ctx_strdup(p->ctx, pa->name), si);
  }
  if (!st && s->returns) st = rs_sinfo(&r, s->returns, &sig->ret);
  if (!st) {
    sig->n_syms = r.syms.len;
    sig->syms = RLX_NEW_ARRAY(p->ctx, rs_sym_t, r.syms.len);
    if (r.syms.len) memcpy(sig->syms, r.syms.data, sizeof(rs_sym_t) * (size_t)r.syms.len);
    /* placeholder so GlobalVars to this function resolve while bodies are parsed */
    rlx_relax_func_t* ph =
        rlx_relax_func(p->ctx, sig->n_params, sig->params, NULL, sig->ret, (rlx_attrs_t){0}, sig->is_pure);
    if (sig->ret) {
      rlx_sinfo_t** ps = RLX_NEW_ARRAY(p->ctx, rlx_sinfo_t*, sig->n_params);
      for (int i = 0; i < sig->n_params; i++) ps[i] = sig->params[i]->hdr.sinfo;
      ph->hdr.sinfo = rlx_sinfo_func(p->ctx, sig->n_params, ps, sig->ret, sig->is_pure);
    }
    rlx_module_set(m, s->name, RLX_FUNC_RELAX, ph);
    *out_sig = sig;
  }
  rlx_vec_free(&r.syms);
  return st;
}

/* Params are defined in r; parses the body of s into a normalized function (global_symbol
 * added unless private). */
static RLX_MUST_USE rlx_status_t* func_body(rs_t* r, const py_stmt_t* s, rs_sig_t* sig, rlx_relax_func_t** out) {
  rlx_ctx_t* ctx = r->ctx;
  for (int i = 0; i < sig->n_params; i++) define(r, sig->params[i]->name, RS_RELAX, sig->params[i]);
  scope_push(r);
  r->attrs_allowed = true;
  seq_b_t sq = {0};
  const py_block_t* b = &s->body;
  const py_stmt_t* last = b->n ? b->items[b->n - 1] : NULL;
  rlx_status_t* st = NULL;
  if (!last || last->kind != PY_S_RETURN || !last->value)
    st = err_at(last ? last->span : s->span, "function %s: expected the body to end with `return <value>`, got %s",
                s->name, last ? tp_stmt_desc(last) : "an empty body");
  if (!st) st = stmts(r, b, &sq, b->n - 1, false);
  rlx_relax_expr_t* ret = NULL;
  if (!st) st = rs_expr(r, last->value, &ret);
  if (!st) st = bind_nested(r, ret, last->value->span, &sq, &ret);
  if (!st) st = normalize(r, ret, last->value->span);
  if (!st && ret->kind == RLX_RELAX_DATAFLOW_VAR)
    st = rs_err(r, last->value, "return: expected a value visible outside dataflow blocks, got a dataflow variable");
  if (!st && sig->ret && !compatible(ctx, sig->ret, ret->sinfo))
    st = rs_err(r, last->value, "return: expected %s, got %s", rlx_sinfo_str(ctx, sig->ret),
             rlx_sinfo_str(ctx, ret->sinfo));
  rlx_relax_func_t* f = NULL;
  if (!st) {
    flush(r, &sq, false);
    rlx_relax_expr_t* seq = rlx_relax_seq(ctx, sq.blocks.len, sq.blocks.data, ret);
    rlx_attrs_t attrs = r->fattrs;
    if (sig->is_private && rlx_attrs_get(&attrs, "global_symbol"))
      st = err_at(s->span, "function %s: a private function cannot have a global_symbol", s->name);
    if (!sig->is_private && !rlx_attrs_get(&attrs, "global_symbol"))
      attrs = rlx_attrs_set(ctx, attrs, "global_symbol", rlx_attr_str(rlx_ctx_strdup(ctx, s->name)));
    if (!st) {
      f = rlx_relax_func(ctx, sig->n_params, sig->params, seq, sig->ret, attrs, sig->is_pure);
      st = at_span(rlx_relax_normalize(ctx, r->m, &f->hdr), s->span);
    }
  }
  rlx_vec_free(&sq.blocks);
  rlx_vec_free(&sq.cur);
  if (!st) *out = f;
  return st;
}

RLX_MUST_USE rlx_status_t* rs_parse_body(tp_t* p, rlx_module_t* m, rs_sig_t* sig) {
  rs_t r;
  rs_init(&r, p, sig->relax_alias, m);
  for (int i = 0; i < sig->n_syms; i++) rlx_vec_push(&r.syms, sig->syms[i]);
  rlx_relax_func_t* f = NULL;
  rlx_status_t* st = func_body(&r, sig->s, sig, &f);
  if (!st) {
    rlx_module_set(m, sig->s->name, RLX_FUNC_RELAX, f);
    st = at_span(rlx_relax_func_well_formed(p->ctx, m, sig->s->name, f), sig->s->span);
  }
  rlx_vec_free(&r.syms);
  return st;
}
