/* TVMScript printer for TIR: writes exactly what TVM's printer (0.15+) writes.
 *
 * The printer walks the IR once and writes text directly. Names are scoped like TVM's
 * IRDocsifier: every var/buffer is defined in a frame (function, loop, block, let, ...), a
 * name already in use gets a `_1`, `_2`... suffix, and names are released when the frame
 * closes. A variable used without a definition is declared at function level
 * (`n = T.int64()`) just before the top-level statement that first uses it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relax_script.h"

typedef struct {
  const void* obj;
  const char* name;
  int depth;
} def_t;

/* A printer frame (function, loop, block, init, branch, let, decl_buffer). Definitions of
 * variables/buffers the IR uses without declaring go into the lowest open frame that holds
 * every use (TVM's FindLowestVarDef), just before the frame's statement being printed. */
typedef struct {
  const void* key;  /* the IR node that opened it */
  size_t cursor;    /* offset where the frame's statement being printed starts */
  int mode;         /* CUR_AT: cursor valid; CUR_END: end of output; CUR_HOLD: header not written */
  int indent;       /* indentation of the frame's statements */
  RLX_VEC(const char*) held; /* definitions waiting for the header (CUR_HOLD) */
} frame_t;
enum { CUR_AT, CUR_END, CUR_HOLD };

typedef struct {
  int len;
  const void** path;
} prefix_t;

typedef struct {
  rlx_ctx_t* ctx; /* scratch arena: temporary nodes and names */
  rlx_strbuf_t* out;
  RLX_VEC(def_t) defs;
  RLX_VEC(const rlx_tir_for_t*) loops; /* enclosing loops (for T.axis.remap) */
  RLX_VEC(frame_t) frames;
  rlx_ptrmap_t prefix;              /* var/buffer → common prefix of frame keys of its uses */
  RLX_VEC(const void*) kstack;      /* key stack while computing prefixes */
  int depth, fn_depth;
  int body_indent; /* indentation of function-level statements */
} pr_t;

/* ------------------------------------------------------------------ names */
static const char* lookup(pr_t* p, const void* obj) {
  for (int i = p->defs.len - 1; i >= 0; i--)
    if (p->defs.data[i].obj == obj) return p->defs.data[i].name;
  return NULL;
}

static bool name_used(pr_t* p, const char* name) {
  for (int i = 0; i < p->defs.len; i++)
    if (strcmp(p->defs.data[i].name, name) == 0) return true;
  return false;
}

/* Defines obj in the frame at depth with a unique name derived from hint. */
static const char* define_at(pr_t* p, const void* obj, const char* hint, int depth) {
  char base[256];
  snprintf(base, sizeof(base), "%s", hint && *hint ? hint : "v");
  for (char* c = base; *c; c++)
    if (*c != '_' && !((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z'))) *c = '_';
  const char* name = rlx_ctx_strdup(p->ctx, base);
  for (int i = 1; name_used(p, name); i++) name = rlx_ctx_sprintf(p->ctx, "%s_%d", base, i);
  def_t d = {obj, name, depth};
  rlx_vec_push(&p->defs, d);
  return name;
}

static const char* define(pr_t* p, const void* obj, const char* hint) { return define_at(p, obj, hint, p->depth); }

/* Defines obj with a fixed doc text (e.g. "A.data") that does not reserve a name. */
static void define_alias(pr_t* p, const void* obj, const char* text) {
  def_t d = {obj, rlx_ctx_strdup(p->ctx, text), p->depth};
  /* an alias is not a plain name: mark it so name_used() never matches (contains '.') */
  rlx_vec_push(&p->defs, d);
}

static void sb_insert(rlx_strbuf_t* sb, size_t pos, const char* text) {
  size_t n = strlen(text), old = sb->len;
  rlx_strbuf_append(sb, text); /* grow */
  if (sb->len != old + n) return;
  memmove(sb->data + pos + n, sb->data + pos, old - pos);
  memcpy(sb->data + pos, text, n);
}

static frame_t* top_frame(pr_t* p) { return p->frames.len ? &p->frames.data[p->frames.len - 1] : NULL; }

static void frame_open(pr_t* p, const void* key, int indent, int mode) {
  frame_t f;
  memset(&f, 0, sizeof(f));
  f.key = key;
  f.indent = indent;
  f.mode = mode;
  rlx_vec_push(&p->frames, f);
  p->depth++;
}

/* The frame's header line is written: definitions held so far go first in its body. */
static void frame_started(pr_t* p) {
  frame_t* f = top_frame(p);
  if (!f) return;
  for (int i = 0; i < f->held.len; i++) rlx_strbuf_append(p->out, f->held.data[i]);
  f->held.len = 0;
  f->mode = CUR_END;
}

/* Writes a definition line into frame k (before the statement it is printing). */
static void frame_emit(pr_t* p, int k, const char* stmt) {
  frame_t* f = &p->frames.data[k];
  rlx_strbuf_t line = {0};
  rlx_strbuf_indent(&line, f->indent);
  rlx_strbuf_append(&line, stmt);
  rlx_strbuf_append(&line, "\n");
  const char* text = rlx_ctx_strdup(p->ctx, rlx_strbuf_cstr(&line));
  rlx_strbuf_free(&line);
  if (f->mode == CUR_HOLD) {
    rlx_vec_push(&f->held, text);
    return;
  }
  if (f->mode == CUR_END) {
    rlx_strbuf_append(p->out, text);
    return;
  }
  size_t pos = f->cursor, n = strlen(text);
  sb_insert(p->out, pos, text);
  for (int j = k; j < p->frames.len; j++)
    if (p->frames.data[j].mode == CUR_AT && p->frames.data[j].cursor >= pos) p->frames.data[j].cursor += n;
}

/* Index of the lowest open frame holding every use of obj (the function frame if none). */
static int def_frame(pr_t* p, const void* obj) {
  const prefix_t* pf = rlx_ptrmap_get(&p->prefix, obj);
  if (pf)
    for (int i = pf->len - 1; i >= 0; i--)
      for (int k = p->frames.len - 1; k >= 0; k--)
        if (p->frames.data[k].key == pf->path[i]) return k;
  return p->fn_depth - 1 >= 0 ? p->fn_depth - 1 : 0;
}

static void frame_pop(pr_t* p) {
  if (p->frames.len) {
    frame_t* f = top_frame(p);
    rlx_vec_free(&f->held);
    p->frames.len--;
  }
  /* Function-level definitions made late (undeclared vars/buffers) can sit above deeper
   * ones in the stack: filter instead of truncating. */
  int n = 0;
  for (int i = 0; i < p->defs.len; i++)
    if (p->defs.data[i].depth < p->depth) p->defs.data[n++] = p->defs.data[i];
  p->defs.len = n;
  p->depth--;
}

/* ------------------------------------------------------------------ literals */
static const char* dtype_name(rlx_dtype_t t, char buf[32]) { return rlx_dtype_str(t, buf); }

static void put_float(rlx_strbuf_t* sb, double v) {
  if (isnan(v)) rlx_strbuf_append(sb, "\"nan\"");
  else if (isinf(v)) rlx_strbuf_append(sb, v < 0 ? "\"-inf\"" : "\"inf\"");
  else if (nearbyint(v) == v) rlx_strbuf_printf(sb, "%.1f", v);
  else rlx_strbuf_printf(sb, "%.17g", v);
}

static void put_string(rlx_strbuf_t* sb, const char* s) {
  rlx_strbuf_append(sb, "\"");
  for (; *s; s++) {
    switch (*s) {
      case '"': rlx_strbuf_append(sb, "\\\""); break;
      case '\\': rlx_strbuf_append(sb, "\\\\"); break;
      case '\n': rlx_strbuf_append(sb, "\\n"); break;
      case '\t': rlx_strbuf_append(sb, "\\t"); break;
      case '\r': rlx_strbuf_append(sb, "\\r"); break;
      default: rlx_strbuf_appendn(sb, s, 1);
    }
  }
  rlx_strbuf_append(sb, "\"");
}

/* ------------------------------------------------------------------ expressions */
enum { P_OR = 3, P_AND = 4, P_NOT = 5, P_CMP = 6, P_ADD = 11, P_MUL = 12, P_ID = 15 };

static bool is_int_const(const rlx_expr_t* e, int64_t v) {
  return e->kind == RLX_EXPR_INT_IMM && RLX_AS(const rlx_int_imm_t, e)->value == v;
}
static bool is_num_const(const rlx_expr_t* e, double v) {
  if (e->kind == RLX_EXPR_INT_IMM) return (double)RLX_AS(const rlx_int_imm_t, e)->value == v;
  if (e->kind == RLX_EXPR_FLOAT_IMM) return RLX_AS(const rlx_float_imm_t, e)->value == v;
  return false;
}
static bool is_const(const rlx_expr_t* e) { return e->kind == RLX_EXPR_INT_IMM || e->kind == RLX_EXPR_FLOAT_IMM; }

/* Whether TVM would print the binary node with operator syntax: only when rebuilding it
 * with the operator would give the same node back (no constant folding, same dtypes). */
static bool sugar_ok(const rlx_expr_t* e) {
  const rlx_binary_t* b = RLX_AS(const rlx_binary_t, e);
  if (!rlx_dtype_eq(b->a->dtype, b->b->dtype)) return false;
  if (is_const(b->a) && is_const(b->b)) return false;
  switch (e->kind) {
    case RLX_EXPR_ADD: return !is_num_const(b->a, 0) && !is_num_const(b->b, 0);
    case RLX_EXPR_SUB: return !is_num_const(b->b, 0);
    case RLX_EXPR_MUL:
      return !is_num_const(b->a, 1) && !is_num_const(b->b, 1) && !is_num_const(b->a, 0) && !is_num_const(b->b, 0);
    case RLX_EXPR_DIV: return rlx_dtype_is_float(b->a->dtype) && !is_num_const(b->b, 1) && !is_num_const(b->a, 0);
    case RLX_EXPR_FLOOR_DIV:
    case RLX_EXPR_FLOOR_MOD: return !is_int_const(b->b, 1);
    case RLX_EXPR_AND:
    case RLX_EXPR_OR: return b->a->kind != RLX_EXPR_INT_IMM && b->b->kind != RLX_EXPR_INT_IMM;
    default: return true;
  }
}

static int prec_of(const rlx_expr_t* e) {
  switch (e->kind) {
    case RLX_EXPR_ADD:
    case RLX_EXPR_SUB: return sugar_ok(e) ? P_ADD : P_ID;
    case RLX_EXPR_MUL:
    case RLX_EXPR_DIV:
    case RLX_EXPR_FLOOR_DIV:
    case RLX_EXPR_FLOOR_MOD: return sugar_ok(e) ? P_MUL : P_ID;
    case RLX_EXPR_EQ:
    case RLX_EXPR_NE:
    case RLX_EXPR_LT:
    case RLX_EXPR_LE:
    case RLX_EXPR_GT:
    case RLX_EXPR_GE: return sugar_ok(e) ? P_CMP : P_ID;
    case RLX_EXPR_AND: return sugar_ok(e) ? P_AND : P_ID;
    case RLX_EXPR_OR: return sugar_ok(e) ? P_OR : P_ID;
    case RLX_EXPR_NOT: {
      const rlx_expr_t* a = RLX_AS(const rlx_not_t, e)->a;
      bool literal = (a->kind == RLX_EXPR_INT_IMM && rlx_dtype_eq(a->dtype, rlx_dt_int32())) ||
                     a->kind == RLX_EXPR_STRING_IMM;
      return literal ? P_ID : P_NOT;
    }
    default: return P_ID;
  }
}

static void pexpr(pr_t* p, const rlx_expr_t* e, rlx_strbuf_t* sb);

static void pchild(pr_t* p, const rlx_expr_t* e, int parent, bool paren_same, rlx_strbuf_t* sb) {
  int pr = prec_of(e);
  bool paren = pr < parent || (paren_same && pr == parent);
  if (paren) rlx_strbuf_append(sb, "(");
  pexpr(p, e, sb);
  if (paren) rlx_strbuf_append(sb, ")");
}

static void pcall(pr_t* p, const char* fn, int n, rlx_expr_t* const* args, rlx_strbuf_t* sb) {
  rlx_strbuf_printf(sb, "T.%s(", fn);
  for (int i = 0; i < n; i++) {
    if (i) rlx_strbuf_append(sb, ", ");
    pexpr(p, args[i], sb);
  }
  rlx_strbuf_append(sb, ")");
}

static const char* var_creation(pr_t* p, const rlx_var_t* v) {
  char buf[32];
  return rlx_ctx_sprintf(p->ctx, "T.%s()", dtype_name(v->hdr.dtype, buf));
}

static const char* var_name(pr_t* p, const rlx_var_t* v) {
  const char* n = lookup(p, v);
  if (n) return n;
  /* Undefined variable: declared in the lowest frame holding all its uses, as TVM does. */
  int k = def_frame(p, v);
  n = define_at(p, v, v->name, k + 1);
  frame_emit(p, k, rlx_ctx_sprintf(p->ctx, "%s = %s", n, var_creation(p, v)));
  return n;
}

/* Operator token and T.<Op> call name of each binary kind (indexed by kind). */
static const char* const binop_tokens[RLX_EXPR_KIND_COUNT] = {
    [RLX_EXPR_ADD] = "+",  [RLX_EXPR_SUB] = "-",  [RLX_EXPR_MUL] = "*",  [RLX_EXPR_DIV] = "/",
    [RLX_EXPR_FLOOR_DIV] = "//", [RLX_EXPR_FLOOR_MOD] = "%", [RLX_EXPR_EQ] = "==", [RLX_EXPR_NE] = "!=",
    [RLX_EXPR_LT] = "<",   [RLX_EXPR_LE] = "<=",  [RLX_EXPR_GT] = ">",   [RLX_EXPR_GE] = ">=",
    [RLX_EXPR_AND] = "and", [RLX_EXPR_OR] = "or",
};
static const char* const binop_calls[RLX_EXPR_KIND_COUNT] = {
    [RLX_EXPR_ADD] = "Add", [RLX_EXPR_SUB] = "Sub", [RLX_EXPR_MUL] = "Mul", [RLX_EXPR_DIV] = "Div",
    [RLX_EXPR_MOD] = "truncmod", [RLX_EXPR_FLOOR_DIV] = "FloorDiv", [RLX_EXPR_FLOOR_MOD] = "FloorMod",
    [RLX_EXPR_MIN] = "min", [RLX_EXPR_MAX] = "max", [RLX_EXPR_EQ] = "EQ", [RLX_EXPR_NE] = "NE",
    [RLX_EXPR_LT] = "LT", [RLX_EXPR_LE] = "LE", [RLX_EXPR_GT] = "GT", [RLX_EXPR_GE] = "GE",
    [RLX_EXPR_AND] = "And", [RLX_EXPR_OR] = "Or",
};
static const char* binop_token(rlx_expr_kind_t k) { return binop_tokens[k] ? binop_tokens[k] : "?"; }
static const char* binop_call(rlx_expr_kind_t k) { return binop_calls[k] ? binop_calls[k] : "?"; }

/* Buffer indices; a Ramp with a constant stride prints as a slice, as TVM does. */
static void pindices(pr_t* p, int n, rlx_expr_t* const* idx, rlx_strbuf_t* sb) {
  if (n == 0) {
    rlx_strbuf_append(sb, "[()]");
    return;
  }
  rlx_strbuf_append(sb, "[");
  for (int i = 0; i < n; i++) {
    if (i) rlx_strbuf_append(sb, ", ");
    const rlx_expr_t* e = idx[i];
    if (e->kind == RLX_EXPR_RAMP && RLX_AS(const rlx_ramp_t, e)->stride->kind == RLX_EXPR_INT_IMM) {
      const rlx_ramp_t* r = RLX_AS(const rlx_ramp_t, e);
      int64_t st = RLX_AS(const rlx_int_imm_t, r->stride)->value;
      rlx_expr_t* stop = rlx_ir_add(p->ctx, r->base, rlx_ir_int(p->ctx, r->base->dtype, st * r->lanes));
      pexpr(p, r->base, sb);
      rlx_strbuf_append(sb, ":");
      pexpr(p, stop, sb);
      if (st != 1) {
        rlx_strbuf_append(sb, ":");
        pexpr(p, r->stride, sb);
      }
      continue;
    }
    pexpr(p, e, sb);
  }
  rlx_strbuf_append(sb, "]");
}

static const char* buffer_name(pr_t* p, const rlx_tir_buffer_t* b);

static const char* reduce_name(rlx_reduce_kind_t k) {
  switch (k) {
    case RLX_REDUCE_SUM: return "sum";
    case RLX_REDUCE_PROD: return "prod";
    case RLX_REDUCE_MAX: return "max";
    case RLX_REDUCE_MIN: return "min";
  }
  return "?";
}

static void pexpr(pr_t* p, const rlx_expr_t* e, rlx_strbuf_t* sb) {
  char buf[32];
  switch (e->kind) {
    case RLX_EXPR_INT_IMM: {
      int64_t v = RLX_AS(const rlx_int_imm_t, e)->value;
      if (rlx_dtype_eq(e->dtype, rlx_dt_int32())) rlx_strbuf_printf(sb, "%lld", (long long)v);
      else if (rlx_dtype_is_bool(e->dtype)) rlx_strbuf_printf(sb, "T.bool(%s)", v ? "True" : "False");
      else rlx_strbuf_printf(sb, "T.%s(%lld)", dtype_name(e->dtype, buf), (long long)v);
      return;
    }
    case RLX_EXPR_FLOAT_IMM:
      rlx_strbuf_printf(sb, "T.%s(", dtype_name(e->dtype, buf));
      put_float(sb, RLX_AS(const rlx_float_imm_t, e)->value);
      rlx_strbuf_append(sb, ")");
      return;
    case RLX_EXPR_STRING_IMM: put_string(sb, RLX_AS(const rlx_string_imm_t, e)->value); return;
    case RLX_EXPR_VAR: rlx_strbuf_append(sb, var_name(p, RLX_AS(const rlx_var_t, e))); return;
    case RLX_EXPR_ADD:
    case RLX_EXPR_SUB:
    case RLX_EXPR_MUL:
    case RLX_EXPR_DIV:
    case RLX_EXPR_FLOOR_DIV:
    case RLX_EXPR_FLOOR_MOD:
    case RLX_EXPR_EQ:
    case RLX_EXPR_NE:
    case RLX_EXPR_LT:
    case RLX_EXPR_LE:
    case RLX_EXPR_GT:
    case RLX_EXPR_GE:
    case RLX_EXPR_AND:
    case RLX_EXPR_OR: {
      const rlx_binary_t* b = RLX_AS(const rlx_binary_t, e);
      if (!sugar_ok(e)) {
        rlx_expr_t* args[2] = {b->a, b->b};
        pcall(p, binop_call(e->kind), 2, args, sb);
        return;
      }
      int pr = prec_of(e);
      pchild(p, b->a, pr, false, sb);
      rlx_strbuf_printf(sb, " %s ", binop_token(e->kind));
      pchild(p, b->b, pr, true, sb);
      return;
    }
    case RLX_EXPR_MOD:
    case RLX_EXPR_MIN:
    case RLX_EXPR_MAX: {
      const rlx_binary_t* b = RLX_AS(const rlx_binary_t, e);
      rlx_expr_t* args[2] = {b->a, b->b};
      pcall(p, binop_call(e->kind), 2, args, sb);
      return;
    }
    case RLX_EXPR_NOT: {
      const rlx_expr_t* a = RLX_AS(const rlx_not_t, e)->a;
      if (prec_of(e) == P_ID) {
        rlx_expr_t* args[1] = {(rlx_expr_t*)a};
        pcall(p, "Not", 1, args, sb);
        return;
      }
      rlx_strbuf_append(sb, "not ");
      pchild(p, a, P_NOT, false, sb);
      return;
    }
    case RLX_EXPR_SELECT: {
      const rlx_select_t* s = RLX_AS(const rlx_select_t, e);
      rlx_expr_t* args[3] = {s->cond, s->t, s->f};
      pcall(p, "Select", 3, args, sb);
      return;
    }
    case RLX_EXPR_CAST:
      rlx_strbuf_printf(sb, "T.Cast(\"%s\", ", dtype_name(e->dtype, buf));
      pexpr(p, RLX_AS(const rlx_cast_t, e)->value, sb);
      rlx_strbuf_append(sb, ")");
      return;
    case RLX_EXPR_LET: {
      const rlx_let_t* l = RLX_AS(const rlx_let_t, e);
      rlx_strbuf_append(sb, "T.Let(");
      pexpr(p, l->body, sb);
      rlx_strbuf_append(sb, ", where={");
      pexpr(p, &l->var->hdr, sb);
      rlx_strbuf_append(sb, ": ");
      pexpr(p, l->value, sb);
      rlx_strbuf_append(sb, "})");
      return;
    }
    case RLX_EXPR_BUFFER_LOAD: {
      const rlx_buffer_load_t* l = RLX_AS(const rlx_buffer_load_t, e);
      rlx_strbuf_append(sb, buffer_name(p, l->buffer));
      pindices(p, l->n_indices, l->indices, sb);
      return;
    }
    case RLX_EXPR_CALL: {
      const rlx_call_t* c = RLX_AS(const rlx_call_t, e);
      pcall(p, c->op, c->n_args, c->args, sb);
      return;
    }
    case RLX_EXPR_REDUCE: {
      /* Not valid in a PrimFunc; printed readably (not parseable). */
      const rlx_reduce_t* r = RLX_AS(const rlx_reduce_t, e);
      rlx_strbuf_printf(sb, "T.reduce(\"%s\", ", reduce_name(r->combiner));
      pexpr(p, r->source, sb);
      rlx_strbuf_append(sb, ", [");
      for (int i = 0; i < r->n_axis; i++) {
        if (i) rlx_strbuf_append(sb, ", ");
        rlx_strbuf_append(sb, r->axis[i]->var->name);
      }
      rlx_strbuf_append(sb, "])");
      return;
    }
    case RLX_EXPR_RAMP: {
      const rlx_ramp_t* r = RLX_AS(const rlx_ramp_t, e);
      rlx_strbuf_append(sb, "T.Ramp(");
      pexpr(p, r->base, sb);
      rlx_strbuf_append(sb, ", ");
      pexpr(p, r->stride, sb);
      rlx_strbuf_printf(sb, ", %d)", r->lanes);
      return;
    }
    case RLX_EXPR_BROADCAST: {
      const rlx_broadcast_t* b = RLX_AS(const rlx_broadcast_t, e);
      rlx_strbuf_append(sb, "T.Broadcast(");
      pexpr(p, b->value, sb);
      rlx_strbuf_printf(sb, ", %d)", b->lanes);
      return;
    }
    case RLX_EXPR_KIND_COUNT: break;
  }
  rlx_strbuf_append(sb, "?");
}

static const char* expr_str(pr_t* p, const rlx_expr_t* e) {
  rlx_strbuf_t sb = {0};
  pexpr(p, e, &sb);
  const char* s = rlx_ctx_strdup(p->ctx, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return s;
}

/* ------------------------------------------------------------------ buffers */
typedef enum { BUF_ALLOC, BUF_MATCH, BUF_DECL } buf_method_t;

/* Writes `(shape), "dtype", kw=...` for a buffer declaration. Bare undefined vars in the
 * shape are declared (as TVM's MatchBuffer definition does) into out_defs. */
static void buffer_args(pr_t* p, const rlx_tir_buffer_t* b, bool declare_shape_vars, bool force_dtype,
                        rlx_strbuf_t* sb, rlx_strbuf_t* defs_lhs, rlx_strbuf_t* defs_rhs, int* n_defs) {
  char buf[32];
  rlx_strbuf_append(sb, "(");
  for (int i = 0; i < b->ndim; i++) {
    if (i) rlx_strbuf_append(sb, ", ");
    const rlx_expr_t* e = b->shape[i];
    if (declare_shape_vars && e->kind == RLX_EXPR_VAR && !lookup(p, e)) {
      const rlx_var_t* v = RLX_AS(const rlx_var_t, e);
      const char* n = define(p, v, v->name);
      if (*n_defs) {
        rlx_strbuf_append(defs_lhs, ", ");
        rlx_strbuf_append(defs_rhs, ", ");
      }
      rlx_strbuf_append(defs_lhs, n);
      rlx_strbuf_append(defs_rhs, var_creation(p, v));
      (*n_defs)++;
    }
    pexpr(p, e, sb);
  }
  rlx_strbuf_append(sb, b->ndim == 1 ? ",)" : ")");
  if (force_dtype || !rlx_dtype_eq(b->dtype, rlx_dt_float32()))
    rlx_strbuf_printf(sb, ", \"%s\"", dtype_name(b->dtype, buf));
  if (b->strides) {
    rlx_strbuf_append(sb, ", strides=(");
    for (int i = 0; i < b->ndim; i++) {
      if (i) rlx_strbuf_append(sb, ", ");
      pexpr(p, b->strides[i], sb);
    }
    rlx_strbuf_append(sb, b->ndim == 1 ? ",)" : ")");
  }
  if (b->elem_offset && !is_int_const(b->elem_offset, 0)) {
    rlx_strbuf_append(sb, ", elem_offset=");
    pexpr(p, b->elem_offset, sb);
  }
  if (b->scope && strcmp(b->scope, "global") != 0) {
    rlx_strbuf_append(sb, ", scope=");
    put_string(sb, b->scope);
  }
}

/* Defines buffer b in the current frame; its data var reads as `<name>.data`. */
static const char* define_buffer(pr_t* p, const rlx_tir_buffer_t* b) {
  const char* n = define(p, b, b->name && *b->name ? b->name : "buffer");
  if (b->data && !lookup(p, b->data)) define_alias(p, b->data, rlx_ctx_sprintf(p->ctx, "%s.data", n));
  return n;
}

/* A buffer used but never declared: `X = T.Buffer((...), data=...)` at function level. */
static const char* buffer_name(pr_t* p, const rlx_tir_buffer_t* b) {
  const char* n = lookup(p, b);
  if (n) return n;
  rlx_strbuf_t sb = {0}, dl = {0}, dr = {0};
  int nd = 0;
  rlx_strbuf_append(&sb, "T.Buffer(");
  buffer_args(p, b, false, false, &sb, &dl, &dr, &nd);
  const char* data = b->data ? lookup(p, b->data) : NULL;
  if (data) rlx_strbuf_printf(&sb, ", data=%s", data);
  rlx_strbuf_append(&sb, ")");
  int saved = p->depth;
  int k = def_frame(p, b);
  p->depth = k + 1;
  n = define(p, b, b->name && *b->name ? b->name : "buffer");
  if (b->data && !data) define_alias(p, b->data, rlx_ctx_sprintf(p->ctx, "%s.data", n));
  p->depth = saved;
  frame_emit(p, k, rlx_ctx_sprintf(p->ctx, "%s = %s", n, rlx_strbuf_cstr(&sb)));
  rlx_strbuf_free(&sb);
  rlx_strbuf_free(&dl);
  rlx_strbuf_free(&dr);
  return n;
}

static void line(pr_t* p, int indent, const char* s) {
  rlx_strbuf_indent(p->out, indent);
  rlx_strbuf_append(p->out, s);
  rlx_strbuf_append(p->out, "\n");
}

/* `name = T.<method>(shape, dtype, kw...)` for alloc_buffer / decl_buffer lines. */
static const char* buffer_decl(pr_t* p, const rlx_tir_buffer_t* b, const char* method) {
  rlx_strbuf_t sb = {0}, dl = {0}, dr = {0};
  int nd = 0;
  rlx_strbuf_printf(&sb, "T.%s(", method);
  buffer_args(p, b, false, false, &sb, &dl, &dr, &nd);
  rlx_strbuf_append(&sb, ")");
  const char* s = rlx_ctx_strdup(p->ctx, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  rlx_strbuf_free(&dl);
  rlx_strbuf_free(&dr);
  return s;
}

static void region_str(pr_t* p, const rlx_buffer_region_t* r, rlx_strbuf_t* sb) {
  rlx_strbuf_append(sb, buffer_name(p, r->buffer));
  if (r->ndim == 0) {
    rlx_strbuf_append(sb, "[()]");
    return;
  }
  rlx_strbuf_append(sb, "[");
  for (int i = 0; i < r->ndim; i++) {
    if (i) rlx_strbuf_append(sb, ", ");
    pexpr(p, r->region[i].min, sb);
    if (!is_int_const(r->region[i].extent, 1)) {
      rlx_strbuf_append(sb, ":");
      pexpr(p, rlx_ir_add(p->ctx, r->region[i].min, r->region[i].extent), sb);
    }
  }
  rlx_strbuf_append(sb, "]");
}

/* ------------------------------------------------------------------ statements */
static void pstmt(pr_t* p, const rlx_tir_stmt_t* s, int indent, bool concise);

static void pbody(pr_t* p, const rlx_tir_stmt_t* s, int indent) {
  size_t before = p->out->len;
  if (s && s->kind == RLX_STMT_SEQ) {
    const rlx_tir_seq_t* q = RLX_AS(const rlx_tir_seq_t, s);
    for (int i = 0; i < q->n; i++) pstmt(p, q->stmts[i], indent, i == q->n - 1);
  } else if (s) {
    pstmt(p, s, indent, true);
  }
  if (p->out->len == before) line(p, indent, "pass");
}

static bool loop_var_of(pr_t* p, const rlx_expr_t* v, const rlx_tir_for_t** out) {
  if (v->kind != RLX_EXPR_VAR) return false;
  for (int i = p->loops.len - 1; i >= 0; i--)
    if (&p->loops.data[i]->var->hdr == v) {
      *out = p->loops.data[i];
      return true;
    }
  return false;
}

/* Identical, or the same integer constant of one dtype (not an expression equality: other
 * expressions print as written). */
static bool same_int_const(const rlx_expr_t* a, const rlx_expr_t* b) {
  if (a == b) return true;
  if (a->kind == RLX_EXPR_INT_IMM && b->kind == RLX_EXPR_INT_IMM)
    return rlx_dtype_eq(a->dtype, b->dtype) && RLX_AS(const rlx_int_imm_t, a)->value == RLX_AS(const rlx_int_imm_t, b)->value;
  return false;
}

static void print_single_iter(pr_t* p, const rlx_tir_block_realize_t* br, int i, int indent) {
  const rlx_iter_var_t* iv = br->block->iter_vars[i];
  rlx_strbuf_t sb = {0};
  rlx_strbuf_printf(&sb, "T.axis.%s(", iv->kind == RLX_ITER_SPATIAL ? "spatial" : "reduce");
  if (is_int_const(iv->dom.min, 0)) {
    pexpr(p, iv->dom.extent, &sb);
  } else {
    rlx_strbuf_append(&sb, "(");
    pexpr(p, iv->dom.min, &sb);
    rlx_strbuf_append(&sb, ", ");
    pexpr(p, rlx_ir_add(p->ctx, iv->dom.min, iv->dom.extent), &sb);
    rlx_strbuf_append(&sb, ")");
  }
  if (i < br->n_values) {
    rlx_strbuf_append(&sb, ", ");
    pexpr(p, br->iter_values[i], &sb);
  }
  rlx_strbuf_append(&sb, ")");
  const char* n = define(p, iv->var, iv->var->name);
  rlx_strbuf_indent(p->out, indent);
  rlx_strbuf_printf(p->out, "%s = %s\n", n, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
}

static void flush_remap(pr_t* p, const rlx_tir_block_realize_t* br, int* idx, int* n, int indent) {
  if (*n == 0) return;
  if (*n == 1) {
    print_single_iter(p, br, idx[0], indent);
    *n = 0;
    return;
  }
  rlx_strbuf_t lhs = {0}, kinds = {0}, vals = {0};
  for (int k = 0; k < *n; k++) {
    const rlx_iter_var_t* iv = br->block->iter_vars[idx[k]];
    if (k) {
      rlx_strbuf_append(&lhs, ", ");
      rlx_strbuf_append(&vals, ", ");
    }
    rlx_strbuf_append(&lhs, define(p, iv->var, iv->var->name));
    pexpr(p, br->iter_values[idx[k]], &vals);
    rlx_strbuf_append(&kinds, iv->kind == RLX_ITER_SPATIAL ? "S" : "R");
  }
  rlx_strbuf_indent(p->out, indent);
  rlx_strbuf_printf(p->out, "%s = T.axis.remap(\"%s\", [%s])\n", rlx_strbuf_cstr(&lhs), rlx_strbuf_cstr(&kinds),
                    rlx_strbuf_cstr(&vals));
  rlx_strbuf_free(&lhs);
  rlx_strbuf_free(&kinds);
  rlx_strbuf_free(&vals);
  *n = 0;
}

static void annotations_str(pr_t* p, int n, const char* const* keys, rlx_expr_t* const* vals, rlx_strbuf_t* sb);

/* An attribute value: lists and dicts (RLX_TIR_ATTR_LIST / _DICT) as Python literals. */
static void pattr_value(pr_t* p, rlx_expr_t* v, rlx_strbuf_t* sb) {
  const rlx_call_t* c = v && v->kind == RLX_EXPR_CALL ? RLX_AS(const rlx_call_t, v) : NULL;
  if (c && strcmp(c->op, RLX_TIR_ATTR_LIST) == 0) {
    rlx_strbuf_append(sb, "[");
    for (int i = 0; i < c->n_args; i++) {
      if (i) rlx_strbuf_append(sb, ", ");
      pattr_value(p, c->args[i], sb);
    }
    rlx_strbuf_append(sb, "]");
    return;
  }
  if (c && strcmp(c->op, RLX_TIR_ATTR_BUFFER) == 0 && c->n_args == 1 && c->args[0]->kind == RLX_EXPR_VAR) {
    /* the buffer's name: its data var reads as `<name>.data` (define_buffer) */
    const char* n = lookup(p, c->args[0]);
    size_t len = n ? strlen(n) : 0;
    if (len > 5 && strcmp(n + len - 5, ".data") == 0)
      rlx_strbuf_printf(sb, "%.*s", (int)(len - 5), n);
    else
      pexpr(p, c->args[0], sb);
    return;
  }
  if (c && strcmp(c->op, RLX_TIR_ATTR_DICT) == 0) {
    int n = c->n_args / 2;
    const char** keys = calloc((size_t)(n + 1), sizeof(char*));
    rlx_expr_t** vals = calloc((size_t)(n + 1), sizeof(rlx_expr_t*));
    if (keys && vals) {
      for (int i = 0; i < n; i++) {
        keys[i] = RLX_AS(const rlx_string_imm_t, c->args[2 * i])->value;
        vals[i] = c->args[2 * i + 1];
      }
      annotations_str(p, n, keys, vals, sb);
    } else {
      rlx_alloc_failed();
    }
    free(keys);
    free(vals);
    return;
  }
  pexpr(p, v, sb);
}

static void annotations_str(pr_t* p, int n, const char* const* keys, rlx_expr_t* const* vals, rlx_strbuf_t* sb) {
  /* TVM prints string-keyed maps sorted by key. */
  int* order = malloc(sizeof(int) * (size_t)(n ? n : 1));
  if (!order) {
    rlx_alloc_failed();
    return;
  }
  for (int i = 0; i < n; i++) order[i] = i;
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && strcmp(keys[order[j - 1]], keys[order[j]]) > 0; j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  rlx_strbuf_append(sb, "{");
  for (int k = 0; k < n; k++) {
    if (k) rlx_strbuf_append(sb, ", ");
    put_string(sb, keys[order[k]]);
    rlx_strbuf_append(sb, ": ");
    pattr_value(p, vals[order[k]], sb);
  }
  rlx_strbuf_append(sb, "}");
  free(order);
}

static void pblock(pr_t* p, const rlx_tir_block_realize_t* br, int indent) {
  const rlx_tir_block_t* b = br->block;
  rlx_strbuf_indent(p->out, indent);
  rlx_strbuf_append(p->out, "with T.block(");
  put_string(p->out, b->name ? b->name : "");
  rlx_strbuf_append(p->out, "):\n");
  int* idx = malloc(sizeof(int) * (size_t)(b->n_iter_vars + 1));
  if (!idx) {
    rlx_alloc_failed();
    return;
  }
  frame_open(p, b, indent + 4, CUR_END);
  int in = indent + 4;
  int n = 0;
  for (int i = 0; i < b->n_iter_vars; i++) {
    const rlx_iter_var_t* iv = b->iter_vars[i];
    const rlx_tir_for_t* loop;
    if (i < br->n_values && loop_var_of(p, br->iter_values[i], &loop) && same_int_const(loop->min, iv->dom.min) &&
        same_int_const(loop->extent, iv->dom.extent)) {
      idx[n++] = i;
      continue;
    }
    flush_remap(p, br, idx, &n, in);
    print_single_iter(p, br, i, in);
  }
  flush_remap(p, br, idx, &n, in);
  free(idx);
  rlx_strbuf_t sb = {0};
  if (br->predicate && !is_int_const(br->predicate, 1)) {
    rlx_strbuf_append(&sb, "T.where(");
    pexpr(p, br->predicate, &sb);
    rlx_strbuf_append(&sb, ")");
    line(p, in, rlx_strbuf_cstr(&sb));
    sb.len = 0;
  }
  rlx_strbuf_append(&sb, "T.reads(");
  for (int i = 0; i < b->n_reads; i++) {
    if (i) rlx_strbuf_append(&sb, ", ");
    region_str(p, &b->reads[i], &sb);
  }
  rlx_strbuf_append(&sb, ")");
  line(p, in, rlx_strbuf_cstr(&sb));
  sb.len = 0;
  rlx_strbuf_append(&sb, "T.writes(");
  for (int i = 0; i < b->n_writes; i++) {
    if (i) rlx_strbuf_append(&sb, ", ");
    region_str(p, &b->writes[i], &sb);
  }
  rlx_strbuf_append(&sb, ")");
  line(p, in, rlx_strbuf_cstr(&sb));
  if (b->n_annotations) {
    sb.len = 0;
    rlx_strbuf_append(&sb, "T.block_attr(");
    annotations_str(p, b->n_annotations, b->annotation_keys, b->annotation_values, &sb);
    rlx_strbuf_append(&sb, ")");
    line(p, in, rlx_strbuf_cstr(&sb));
  }
  rlx_strbuf_free(&sb);
  for (int i = 0; i < b->n_alloc_buffers; i++) {
    const char* n2 = define_buffer(p, b->alloc_buffers[i]);
    const char* rhs = buffer_decl(p, b->alloc_buffers[i], "alloc_buffer");
    rlx_strbuf_indent(p->out, in);
    rlx_strbuf_printf(p->out, "%s = %s\n", n2, rhs);
  }
  if (b->init) {
    line(p, in, "with T.init():");
    frame_open(p, b->init, in + 4, CUR_END);
    pbody(p, b->init, in + 4);
    frame_pop(p);
  }
  pbody(p, b->body, in);
  frame_pop(p);
}

static void pfor(pr_t* p, const rlx_tir_for_t* f, int indent) {
  /* T.grid: perfectly nested serial loops from 0 whose extents do not use the grid vars. */
  const rlx_tir_for_t* grid[64];
  int ng = 0;
  for (const rlx_tir_for_t* l = f; l && ng < 64;) {
    if (l->for_kind != RLX_FOR_SERIAL || !is_int_const(l->min, 0)) break;
    bool dep = false;
    for (int k = 0; k < ng; k++) dep = dep || rlx_expr_uses_var(l->extent, grid[k]->var);
    if (dep) break;
    grid[ng++] = l;
    l = l->body && l->body->kind == RLX_STMT_FOR ? RLX_AS(const rlx_tir_for_t, l->body) : NULL;
  }
  frame_open(p, f, indent + 4, CUR_HOLD);
  rlx_strbuf_t sb = {0};
  int n_loops = p->loops.len; /* restored after the body (a push may have failed) */
  if (ng > 1) {
    rlx_strbuf_t lhs = {0};
    rlx_strbuf_append(&sb, "T.grid(");
    for (int k = 0; k < ng; k++) {
      if (k) {
        rlx_strbuf_append(&lhs, ", ");
        rlx_strbuf_append(&sb, ", ");
      }
      rlx_strbuf_append(&lhs, define(p, grid[k]->var, grid[k]->var->name));
      pexpr(p, grid[k]->extent, &sb);
      rlx_vec_push(&p->loops, grid[k]);
    }
    rlx_strbuf_append(&sb, ")");
    rlx_strbuf_indent(p->out, indent);
    rlx_strbuf_printf(p->out, "for %s in %s:\n", rlx_strbuf_cstr(&lhs), rlx_strbuf_cstr(&sb));
    frame_started(p);
    rlx_strbuf_free(&lhs);
    rlx_strbuf_free(&sb);
    pbody(p, grid[ng - 1]->body, indent + 4);
    p->loops.len = n_loops;
    frame_pop(p);
    return;
  }
  const char* n = define(p, f->var, f->var->name);
  const char* fn = "range";
  switch (f->for_kind) {
    case RLX_FOR_SERIAL: fn = "range"; break;
    case RLX_FOR_PARALLEL: fn = "T.parallel"; break;
    case RLX_FOR_VECTORIZED: fn = "T.vectorized"; break;
    case RLX_FOR_UNROLLED: fn = "T.unroll"; break;
  }
  rlx_strbuf_printf(&sb, "%s(", fn);
  if (is_int_const(f->min, 0)) {
    pexpr(p, f->extent, &sb);
  } else {
    pexpr(p, f->min, &sb);
    rlx_strbuf_append(&sb, ", ");
    pexpr(p, rlx_ir_add(p->ctx, f->min, f->extent), &sb);
  }
  rlx_strbuf_append(&sb, ")");
  rlx_strbuf_indent(p->out, indent);
  rlx_strbuf_printf(p->out, "for %s in %s:\n", n, rlx_strbuf_cstr(&sb));
  frame_started(p);
  rlx_strbuf_free(&sb);
  rlx_vec_push(&p->loops, f);
  pbody(p, f->body, indent + 4);
  p->loops.len = n_loops;
  frame_pop(p);
}

static void pstmt_inner(pr_t* p, const rlx_tir_stmt_t* s, int indent, bool concise) {
  char buf[32];
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE: {
      const rlx_tir_store_t* st = RLX_AS(const rlx_tir_store_t, s);
      rlx_strbuf_t sb = {0};
      rlx_strbuf_append(&sb, buffer_name(p, st->buffer));
      pindices(p, st->n_indices, st->indices, &sb);
      rlx_strbuf_append(&sb, " = ");
      pexpr(p, st->value, &sb);
      line(p, indent, rlx_strbuf_cstr(&sb));
      rlx_strbuf_free(&sb);
      return;
    }
    case RLX_STMT_FOR: pfor(p, RLX_AS(const rlx_tir_for_t, s), indent); return;
    case RLX_STMT_SEQ: {
      const rlx_tir_seq_t* q = RLX_AS(const rlx_tir_seq_t, s);
      for (int i = 0; i < q->n; i++) pstmt(p, q->stmts[i], indent, concise && i == q->n - 1);
      return;
    }
    case RLX_STMT_IF: {
      const rlx_tir_if_t* c = RLX_AS(const rlx_tir_if_t, s);
      rlx_strbuf_indent(p->out, indent);
      rlx_strbuf_printf(p->out, "if %s:\n", expr_str(p, c->cond));
      frame_open(p, c->then_case, indent + 4, CUR_END);
      pbody(p, c->then_case, indent + 4);
      frame_pop(p);
      if (c->else_case) {
        line(p, indent, "else:");
        frame_open(p, c->else_case, indent + 4, CUR_END);
        pbody(p, c->else_case, indent + 4);
        frame_pop(p);
      }
      return;
    }
    case RLX_STMT_LET: {
      const rlx_tir_let_t* l = RLX_AS(const rlx_tir_let_t, s);
      const char* rhs = expr_str(p, l->value);
      bool defined = lookup(p, l->var) != NULL;
      frame_open(p, s, defined || !concise ? indent + 4 : indent, CUR_HOLD);
      if (defined) {
        rlx_strbuf_indent(p->out, indent);
        rlx_strbuf_printf(p->out, "with T.LetStmt(%s, var=%s):\n", rhs, lookup(p, l->var));
        frame_started(p);
        pbody(p, l->body, indent + 4);
      } else {
        const char* n = define(p, l->var, l->var->name);
        rlx_strbuf_indent(p->out, indent);
        if (concise) {
          rlx_strbuf_printf(p->out, "%s: T.%s = %s\n", n, dtype_name(l->var->hdr.dtype, buf), rhs);
          frame_started(p);
          pbody(p, l->body, indent);
        } else {
          rlx_strbuf_printf(p->out, "with T.LetStmt(%s) as %s:\n", rhs, n);
          frame_started(p);
          pbody(p, l->body, indent + 4);
        }
      }
      frame_pop(p);
      return;
    }
    case RLX_STMT_EVALUATE: {
      const rlx_expr_t* v = RLX_AS(const rlx_tir_evaluate_t, s)->value;
      const char* e = expr_str(p, v);
      if (v->kind == RLX_EXPR_CALL) line(p, indent, e);
      else line(p, indent, rlx_ctx_sprintf(p->ctx, "T.evaluate(%s)", e));
      return;
    }
    case RLX_STMT_BLOCK_REALIZE: pblock(p, RLX_AS(const rlx_tir_block_realize_t, s), indent); return;
    case RLX_STMT_ALLOCATE: {
      /* rlx's Allocate carries a buffer: TVM's Allocate+DeclBuffer pair, printed as
       * T.decl_buffer. */
      const rlx_tir_allocate_t* a = RLX_AS(const rlx_tir_allocate_t, s);
      const char* rhs = buffer_decl(p, a->buffer, "decl_buffer");
      frame_open(p, s, concise ? indent : indent + 4, CUR_HOLD);
      const char* n = define_buffer(p, a->buffer);
      rlx_strbuf_indent(p->out, indent);
      if (concise) {
        rlx_strbuf_printf(p->out, "%s = %s\n", n, rhs);
        frame_started(p);
        pbody(p, a->body, indent);
      } else {
        rlx_strbuf_printf(p->out, "with %s as %s:\n", rhs, n);
        frame_started(p);
        pbody(p, a->body, indent + 4);
      }
      frame_pop(p);
      return;
    }
    case RLX_STMT_KIND_COUNT: break;
  }
}

static void pstmt(pr_t* p, const rlx_tir_stmt_t* s, int indent, bool concise) {
  if (!s || rlx_ctx_failed(p->ctx)) return; /* out of memory: the text is thrown away */
  /* Definitions this statement triggers for the current frame land just before it. */
  int k = p->frames.len - 1;
  if (k >= 0) {
    p->frames.data[k].cursor = p->out->len;
    p->frames.data[k].mode = CUR_AT;
  }
  pstmt_inner(p, s, indent, concise);
  if (k >= 0 && k < p->frames.len) p->frames.data[k].mode = CUR_END;
}

/* ------------------------------------------------------------------ use prefixes */
static void pf_use(pr_t* p, const void* obj) {
  prefix_t* pf = rlx_ptrmap_get(&p->prefix, obj);
  int n = p->kstack.len;
  if (!pf) {
    pf = RLX_NEW(p->ctx, prefix_t);
    pf->len = n;
    pf->path = rlx_arena_memdup(&p->ctx->arena, p->kstack.data, sizeof(void*) * (size_t)n);
    rlx_ptrmap_put(&p->prefix, obj, pf);
    return;
  }
  int i = 0;
  while (i < pf->len && i < n && pf->path[i] == p->kstack.data[i]) i++;
  pf->len = i;
}

static void pf_expr(pr_t* p, const rlx_expr_t* e) {
  if (!e) return;
  if (e->kind == RLX_EXPR_VAR) pf_use(p, e);
  if (e->kind == RLX_EXPR_BUFFER_LOAD) pf_use(p, RLX_AS(const rlx_buffer_load_t, e)->buffer);
  if (e->kind == RLX_EXPR_LET) pf_use(p, RLX_AS(const rlx_let_t, e)->var);
  rlx_expr_t* kids[8];
  int n = rlx_expr_children(e, kids, 8);
  if (n > 8) {
    rlx_expr_t** all = RLX_NEW_ARRAY(p->ctx, rlx_expr_t*, n);
    rlx_expr_children(e, all, n);
    for (int i = 0; i < n; i++) pf_expr(p, all[i]);
    return;
  }
  for (int i = 0; i < n; i++) pf_expr(p, kids[i]);
}

static void pf_region(pr_t* p, const rlx_buffer_region_t* r) {
  pf_use(p, r->buffer);
  for (int d = 0; d < r->ndim; d++) {
    pf_expr(p, r->region[d].min);
    pf_expr(p, r->region[d].extent);
  }
}

/* Records, for every var/buffer, the frame keys common to all its uses (TVM's common
 * prefix); the keys mirror the frames the printer opens. */
static void pf_stmt(pr_t* p, const rlx_tir_stmt_t* s) {
  if (!s) return;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE: {
      const rlx_tir_store_t* st = RLX_AS(const rlx_tir_store_t, s);
      pf_use(p, st->buffer);
      pf_expr(p, st->value);
      for (int i = 0; i < st->n_indices; i++) pf_expr(p, st->indices[i]);
      return;
    }
    case RLX_STMT_FOR: {
      const rlx_tir_for_t* f = RLX_AS(const rlx_tir_for_t, s);
      /* Bounds count as uses outside the loop (TVM counts them inside, which would put a
       * definition after the header that uses it). */
      pf_expr(p, f->min);
      pf_expr(p, f->extent);
      rlx_vec_push(&p->kstack, s);
      pf_stmt(p, f->body);
      if (p->kstack.len > 0) p->kstack.len--; /* unbalanced only after a failed push */
      return;
    }
    case RLX_STMT_SEQ: {
      const rlx_tir_seq_t* q = RLX_AS(const rlx_tir_seq_t, s);
      for (int i = 0; i < q->n; i++) pf_stmt(p, q->stmts[i]);
      return;
    }
    case RLX_STMT_IF: {
      const rlx_tir_if_t* c = RLX_AS(const rlx_tir_if_t, s);
      pf_expr(p, c->cond);
      const rlx_tir_stmt_t* br[2] = {c->then_case, c->else_case};
      for (int i = 0; i < 2; i++) {
        if (!br[i]) continue;
        rlx_vec_push(&p->kstack, br[i]);
        pf_stmt(p, br[i]);
        if (p->kstack.len > 0) p->kstack.len--; /* unbalanced only after a failed push */
      }
      return;
    }
    case RLX_STMT_LET: {
      const rlx_tir_let_t* l = RLX_AS(const rlx_tir_let_t, s);
      rlx_vec_push(&p->kstack, s);
      pf_expr(p, l->value);
      pf_stmt(p, l->body);
      if (p->kstack.len > 0) p->kstack.len--; /* unbalanced only after a failed push */
      return;
    }
    case RLX_STMT_EVALUATE: pf_expr(p, RLX_AS(const rlx_tir_evaluate_t, s)->value); return;
    case RLX_STMT_BLOCK_REALIZE: {
      const rlx_tir_block_realize_t* br = RLX_AS(const rlx_tir_block_realize_t, s);
      const rlx_tir_block_t* b = br->block;
      for (int i = 0; i < br->n_values; i++) pf_expr(p, br->iter_values[i]);
      pf_expr(p, br->predicate);
      rlx_vec_push(&p->kstack, b);
      for (int i = 0; i < b->n_iter_vars; i++) {
        pf_expr(p, b->iter_vars[i]->dom.min);
        pf_expr(p, b->iter_vars[i]->dom.extent);
      }
      for (int i = 0; i < b->n_reads; i++) pf_region(p, &b->reads[i]);
      for (int i = 0; i < b->n_writes; i++) pf_region(p, &b->writes[i]);
      for (int i = 0; i < b->n_alloc_buffers; i++) pf_use(p, b->alloc_buffers[i]);
      for (int i = 0; i < b->n_annotations; i++) pf_expr(p, b->annotation_values[i]);
      if (b->init) {
        rlx_vec_push(&p->kstack, b->init);
        pf_stmt(p, b->init);
        if (p->kstack.len > 0) p->kstack.len--; /* unbalanced only after a failed push */
      }
      pf_stmt(p, b->body);
      if (p->kstack.len > 0) p->kstack.len--; /* unbalanced only after a failed push */
      return;
    }
    case RLX_STMT_ALLOCATE: {
      const rlx_tir_allocate_t* a = RLX_AS(const rlx_tir_allocate_t, s);
      rlx_vec_push(&p->kstack, s);
      pf_use(p, a->buffer);
      pf_stmt(p, a->body);
      if (p->kstack.len > 0) p->kstack.len--; /* unbalanced only after a failed push */
      return;
    }
    case RLX_STMT_KIND_COUNT: return;
  }
}

static void pf_func(pr_t* p, const rlx_tir_func_t* f) {
  rlx_vec_push(&p->kstack, f);
  for (int i = 0; i < f->n_params; i++) {
    pf_use(p, f->params[i]);
    const rlx_tir_buffer_t* b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!b) continue;
    pf_use(p, b);
    for (int d = 0; d < b->ndim; d++) pf_expr(p, b->shape[d]);
  }
  for (int i = 0; i < f->n_attrs; i++) pf_expr(p, f->attr_values[i]);
  pf_stmt(p, f->body);
  if (p->kstack.len > 0) p->kstack.len--; /* unbalanced only after a failed push */
}

/* ------------------------------------------------------------------ functions */
typedef struct {
  const rlx_var_t* v;
  bool found;
} use_t;
static void use_expr(const rlx_expr_t* e, void* u) {
  use_t* x = u;
  if (!x->found && rlx_expr_uses_var(e, x->v)) x->found = true;
}
static void use_block(const rlx_tir_block_t* b, void* u) { (void)b, (void)u; }

static bool var_used_in_body(const rlx_tir_stmt_t* body, const rlx_var_t* v) {
  use_t u = {v, false};
  rlx_tir_visitor_t vis = {NULL, use_expr, use_block, &u};
  rlx_tir_stmt_visit(body, &vis);
  return u.found;
}

static bool expr_has_var(const rlx_expr_t* e) {
  if (!e) return false;
  if (e->kind == RLX_EXPR_VAR) return true;
  rlx_expr_t* kids[8];
  int n = rlx_expr_children(e, kids, 8);
  for (int i = 0; i < n && i < 8; i++)
    if (expr_has_var(kids[i])) return true;
  return false;
}

static bool simple_buffer(const rlx_tir_buffer_t* b) {
  if (b->strides) return false;
  for (int i = 0; i < b->ndim; i++)
    if (expr_has_var(b->shape[i])) return false;
  if (b->elem_offset && !is_int_const(b->elem_offset, 0)) return false;
  return !b->scope || strcmp(b->scope, "global") == 0;
}

typedef struct {
  bool found;
} any_block_t;
static void any_block(const rlx_tir_block_t* b, void* u) {
  (void)b;
  ((any_block_t*)u)->found = true;
}

/* TVM's implicit root block: printed as a comment, its alloc_buffers at function level. */
static const rlx_tir_block_t* root_block(const rlx_tir_stmt_t* body) {
  if (!body || body->kind != RLX_STMT_BLOCK_REALIZE) return NULL;
  const rlx_tir_block_realize_t* br = RLX_AS(const rlx_tir_block_realize_t, body);
  if (br->n_values || (br->predicate && !is_int_const(br->predicate, 1))) return NULL;
  const rlx_tir_block_t* b = br->block;
  if (b->n_iter_vars || b->n_annotations || b->n_reads || b->n_writes || b->init) return NULL;
  if (b->n_alloc_buffers) return b;
  if (b->body && b->body->kind == RLX_STMT_BLOCK_REALIZE)
    return RLX_AS(const rlx_tir_block_realize_t, b->body)->block->n_iter_vars ? b : NULL;
  any_block_t u = {false};
  rlx_tir_visitor_t vis = {NULL, NULL, any_block, &u};
  rlx_tir_stmt_visit(b->body, &vis);
  return u.found ? b : NULL;
}

static void print_func(pr_t* p, const rlx_tir_func_t* f, const char* name, int indent, rlx_strbuf_t* out) {
  char buf[32];
  bool* inlined = calloc((size_t)(f->n_params + 1), sizeof(bool));
  const char** pnames = calloc((size_t)(f->n_params + 1), sizeof(char*));
  if (!inlined || !pnames) {
    free(inlined);
    free(pnames);
    rlx_alloc_failed();
    return;
  }
  p->out = out;
  pf_func(p, f);
  frame_open(p, f, indent + 4, CUR_HOLD);
  p->fn_depth = p->depth;
  p->body_indent = indent + 4;
  rlx_strbuf_indent(out, indent);
  rlx_strbuf_append(out, f->is_private ? "@T.prim_func(private=True)\n" : "@T.prim_func\n");
  /* Step 1: params. */
  rlx_strbuf_t sig = {0};
  for (int i = 0; i < f->n_params; i++) {
    const rlx_var_t* v = f->params[i];
    const rlx_tir_buffer_t* b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (i) rlx_strbuf_append(&sig, ", ");
    if (b && simple_buffer(b) && !var_used_in_body(f->body, v)) {
      rlx_strbuf_t ann = {0}, dl = {0}, dr = {0};
      int nd = 0;
      const char* n = define_buffer(p, b);
      buffer_args(p, b, false, true, &ann, &dl, &dr, &nd);
      if (!lookup(p, v)) define_alias(p, v, rlx_ctx_sprintf(p->ctx, "%s.data", n));
      rlx_strbuf_printf(&sig, "%s: T.Buffer(%s)", n, rlx_strbuf_cstr(&ann));
      rlx_strbuf_free(&ann);
      rlx_strbuf_free(&dl);
      rlx_strbuf_free(&dr);
      inlined[i] = true;
      continue;
    }
    const char* hint = v->name;
    if (b && b->name && strcmp(v->name, b->name) == 0) hint = rlx_ctx_sprintf(p->ctx, "var_%s", b->name);
    pnames[i] = define(p, v, hint);
    if (b) rlx_strbuf_printf(&sig, "%s: T.handle", pnames[i]);
    else rlx_strbuf_printf(&sig, "%s: T.%s", pnames[i], dtype_name(v->hdr.dtype, buf));
  }
  rlx_strbuf_indent(out, indent);
  rlx_strbuf_printf(out, "def %s(%s):\n", name, rlx_strbuf_cstr(&sig));
  rlx_strbuf_free(&sig);
  frame_started(p);
  /* Step 2: attrs (global_symbol hidden when it equals the printed name). */
  int n_attr = 0;
  const char** keys = calloc((size_t)(f->n_attrs + 1), sizeof(char*));
  rlx_expr_t** vals = calloc((size_t)(f->n_attrs + 1), sizeof(rlx_expr_t*));
  if (!keys || !vals) rlx_alloc_failed();
  for (int i = 0; keys && vals && i < f->n_attrs; i++) {
    const rlx_expr_t* v = f->attr_values[i];
    if (strcmp(f->attr_keys[i], "global_symbol") == 0 && v && v->kind == RLX_EXPR_STRING_IMM &&
        strcmp(RLX_AS(const rlx_string_imm_t, v)->value, name) == 0)
      continue;
    keys[n_attr] = f->attr_keys[i];
    vals[n_attr++] = f->attr_values[i];
  }
  if (n_attr) {
    rlx_strbuf_t sb = {0};
    rlx_strbuf_append(&sb, "T.func_attr(");
    annotations_str(p, n_attr, keys, vals, &sb);
    rlx_strbuf_append(&sb, ")");
    line(p, indent + 4, rlx_strbuf_cstr(&sb));
    rlx_strbuf_free(&sb);
  }
  free(keys);
  free(vals);
  /* Step 3: match_buffer for buffers not inlined in the signature. */
  for (int i = 0; i < f->n_params; i++) {
    const rlx_tir_buffer_t* b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!b || inlined[i]) continue;
    rlx_strbuf_t sb = {0}, dl = {0}, dr = {0};
    int nd = 0;
    const char* bn = define(p, b, b->name && *b->name ? b->name : "buffer");
    if (b->data && !lookup(p, b->data)) define_alias(p, b->data, rlx_ctx_sprintf(p->ctx, "%s.data", bn));
    rlx_strbuf_printf(&sb, "T.match_buffer(%s, ", pnames[i]);
    buffer_args(p, b, true, false, &sb, &dl, &dr, &nd);
    rlx_strbuf_append(&sb, ")");
    if (nd) {
      rlx_strbuf_indent(out, indent + 4);
      rlx_strbuf_printf(out, "%s = %s\n", rlx_strbuf_cstr(&dl), rlx_strbuf_cstr(&dr));
    }
    rlx_strbuf_indent(out, indent + 4);
    rlx_strbuf_printf(out, "%s = %s\n", bn, rlx_strbuf_cstr(&sb));
    rlx_strbuf_free(&sb);
    rlx_strbuf_free(&dl);
    rlx_strbuf_free(&dr);
  }
  free(inlined);
  free(pnames);
  /* Step 4: body, eliding the implicit root block. */
  const rlx_tir_block_t* root = root_block(f->body);
  if (root) {
    line(p, indent + 4, "# with T.block(\"root\"):");
    for (int i = 0; i < root->n_alloc_buffers; i++) {
      const char* n = define_buffer(p, root->alloc_buffers[i]);
      const char* rhs = buffer_decl(p, root->alloc_buffers[i], "alloc_buffer");
        rlx_strbuf_indent(out, indent + 4);
      rlx_strbuf_printf(out, "%s = %s\n", n, rhs);
    }
    pbody(p, root->body, indent + 4);
  } else {
    pbody(p, f->body, indent + 4);
  }
  frame_pop(p);
}

/* false when out of memory (the printer's scratch context) */
static bool pr_init(pr_t* p) {
  memset(p, 0, sizeof(*p));
  p->ctx = rlx_ctx_new();
  return p->ctx != NULL;
}

static void pr_free(pr_t* p) {
  rlx_vec_free(&p->frames);
  rlx_vec_free(&p->kstack);
  rlx_ptrmap_free(&p->prefix);
  rlx_vec_free(&p->defs);
  rlx_vec_free(&p->loops);
  rlx_ctx_free(p->ctx);
}

/* Prints f into out with a scratch context; an allocation that failed fails out (take
 * gives NULL), so a text printed after a failure is never returned. */
static void print_func_into(const rlx_tir_func_t* f, const char* name, int indent, rlx_strbuf_t* out) {
  pr_t p;
  if (pr_init(&p)) print_func(&p, f, name, indent, out);
  if (!p.ctx || rlx_ctx_failed(p.ctx)) out->failed = true;
  pr_free(&p);
}


char* rlx_script_print_tir_func(const rlx_tir_func_t* f) {
  uint64_t mark = rlx_alloc_failures();
  rlx_strbuf_t out = {0};
  rlx_strbuf_append(&out, "# from tvm.script import tir as T\n\n");
  print_func_into(f, f->name && *f->name ? f->name : "main", 0, &out);
  if (rlx_alloc_failures() != mark) out.failed = true;
  return rlx_strbuf_take(&out);
}

static int func_priority(const rlx_module_entry_t* e) {
  if (strcmp(e->name, "main") == 0) return 1000;
  return e->kind == RLX_FUNC_TIR ? 1 : 3;
}

char* rlx_script_print_module(const rlx_module_t* m) { return rlx_script_print_module_ex(m, false); }

char* rlx_script_print_module_ex(const rlx_module_t* m, bool show_meta) {
  uint64_t mark = rlx_alloc_failures(); /* a text printed after a failed allocation is not returned */
  int n_tir = 0;
  for (int i = 0; i < m->n_funcs; i++) n_tir += m->funcs[i].kind == RLX_FUNC_TIR;
  if (m->n_funcs == 1 && n_tir == 1) {
    rlx_strbuf_t out = {0};
    rlx_strbuf_append(&out, "# from tvm.script import tir as T\n\n");
    print_func_into(m->funcs[0].func, m->funcs[0].name, 0, &out);
    if (rlx_alloc_failures() != mark) out.failed = true;
    return rlx_strbuf_take(&out);
  }
  /* TVM sorts: "main" last, PrimFuncs before Relax functions, then by name. */
  int nf = m->n_funcs > 0 ? m->n_funcs : 0;
  int* order = calloc((size_t)nf + 1, sizeof(int));
  if (!order) return NULL;
  for (int i = 0; i < nf; i++) order[i] = i;
  for (int i = 1; i < m->n_funcs; i++)
    for (int j = i; j > 0; j--) {
      const rlx_module_entry_t *a = &m->funcs[order[j - 1]], *b = &m->funcs[order[j]];
      int pa = func_priority(a), pb = func_priority(b);
      if (pa < pb || (pa == pb && strcmp(a->name, b->name) <= 0)) break;
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  /* Functions first (the import header depends on what they use: T., R.). */
  rlx_strbuf_t funcs = {0};
  bool used_tir = n_tir > 0;
  rs_meta_t meta = {{0}};
  for (int k = 0; k < m->n_funcs; k++) {
    const rlx_module_entry_t* e = &m->funcs[order[k]];
    if (k) rlx_strbuf_append(&funcs, "\n");
    if (e->kind == RLX_FUNC_RELAX) {
      rs_print_relax_func(m, e->func, e->name, 4, &funcs, &used_tir, &meta);
      continue;
    }
    print_func_into(e->func, e->name, 4, &funcs);
  }
  if (m->n_funcs == 0) rlx_strbuf_append(&funcs, "    pass\n");
  free(order);
  rlx_strbuf_t out = {0};
  for (int i = 0; i < meta.consts.len; i++) /* constants parsed without their data cannot be shown */
    if (!meta.consts.data[i]->data) show_meta = false;
  if (show_meta && meta.consts.len) { /* TVM writes the section first */
    char* section = rs_metadata_print(&meta);
    if (section) rlx_strbuf_append(&out, section);
    else out.failed = true;
    free(section);
  }
  rlx_strbuf_append(&out, "# from tvm.script import ir as I\n");
  if (used_tir) rlx_strbuf_append(&out, "# from tvm.script import tir as T\n");
  if (n_tir < m->n_funcs) rlx_strbuf_append(&out, "# from tvm.script import relax as R\n");
  rlx_strbuf_append(&out, "\n@I.ir_module\nclass Module:\n");
  rlx_strbuf_append(&out, rlx_strbuf_cstr(&funcs));
  if (funcs.failed) out.failed = true;
  if (!show_meta && meta.consts.len)
    rlx_strbuf_append(&out, "\n# Metadata omitted. Use show_meta=True in script() method to show it.\n");
  rlx_vec_free(&meta.consts);
  rlx_strbuf_free(&funcs);
  if (rlx_alloc_failures() != mark) out.failed = true;
  return rlx_strbuf_take(&out);
}
