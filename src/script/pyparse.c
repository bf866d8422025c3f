/* Recursive-descent parser for the Python subset TVMScript uses, producing the generic AST
 * of pyast.h. Operator precedence follows Python's grammar. Every error is
 * "file:line:col: expected X, got Y". Nesting is bounded so hostile input cannot overflow
 * the stack. */
#include <stdio.h>
#include <string.h>

#include "pyast.h"

enum { MAX_DEPTH = 200 };

typedef struct {
  rlx_arena_t* arena;
  py_tok_t* toks;
  int n, pos;
  int depth;
  bool no_in; /* parsing a for target: `in` ends the expression */
} ps_t;

static py_tok_t* tok(ps_t* p) { return &p->toks[p->pos]; }
static py_tok_t* tok_at(ps_t* p, int k) {
  int i = p->pos + k;
  return &p->toks[i < p->n ? i : p->n - 1];
}
static void next(ps_t* p) {
  if (p->pos < p->n - 1) p->pos++;
}
static bool is_op(ps_t* p, const char* op) { return tok(p)->kind == PY_TOK_OP && strcmp(tok(p)->text, op) == 0; }
static bool is_kw(ps_t* p, const char* kw) { return tok(p)->kind == PY_TOK_NAME && strcmp(tok(p)->text, kw) == 0; }
static bool accept_op(ps_t* p, const char* op) {
  if (!is_op(p, op)) return false;
  next(p);
  return true;
}
static bool accept_kw(ps_t* p, const char* kw) {
  if (!is_kw(p, kw)) return false;
  next(p);
  return true;
}

static RLX_MUST_USE rlx_status_t* expected(ps_t* p, const char* what) {
  return rlx_error(RLX_PARSE_ERROR, tok(p)->span, "expected %s, got %s", what, py_tok_describe(p->arena, tok(p)));
}
static RLX_MUST_USE rlx_status_t* expect_op(ps_t* p, const char* op) {
  if (accept_op(p, op)) return NULL;
  char buf[32];
  snprintf(buf, sizeof(buf), "'%s'", op);
  return expected(p, buf);
}

static bool is_keyword(const char* s) {
  static const char* const kws[] = {"def",  "class", "for", "in",     "if",    "else",   "elif",  "with",
                                    "as",   "return", "pass", "and",  "or",    "not",    "import", "from",
                                    "while", "assert", "lambda", "is", "break", "continue", "del", NULL};
  for (int i = 0; kws[i]; i++)
    if (strcmp(s, kws[i]) == 0) return true;
  return false;
}

static py_expr_t* new_expr(ps_t* p, py_expr_kind_t k, rlx_span_t sp) {
  py_expr_t* e = rlx_arena_alloc(p->arena, sizeof(py_expr_t));
  if (e) {
    e->kind = k;
    e->span = sp;
  }
  return e;
}

typedef RLX_VEC(py_expr_t*) expr_vec_t;
typedef RLX_VEC(const char*) str_vec_t;

static py_expr_t** freeze(ps_t* p, expr_vec_t* v) {
  py_expr_t** a = rlx_arena_memdup(p->arena, v->data, sizeof(py_expr_t*) * (size_t)v->len);
  return a;
}

static RLX_MUST_USE rlx_status_t* parse_expr(ps_t* p, py_expr_t** out);
static RLX_MUST_USE rlx_status_t* parse_exprlist(ps_t* p, py_expr_t** out);

enum { MAX_HEIGHT = 400 };
static int hgt(const py_expr_t* e) { return e ? e->height : 0; }
/* Sets e's height from its (already sealed) children; errors when the tree gets too deep
 * (e.g. a 100000-term sum) so that every later recursive pass is safe. */
static RLX_MUST_USE rlx_status_t* seal(ps_t* p, py_expr_t* e) {
  if (!e) return NULL;
  int h = hgt(e->a);
  if (hgt(e->b) > h) h = hgt(e->b);
  if (hgt(e->c) > h) h = hgt(e->c);
  for (int i = 0; i < e->n; i++)
    if (hgt(e->items[i]) > h) h = hgt(e->items[i]);
  for (int i = 0; i < e->n_kw; i++)
    if (hgt(e->kw_values[i]) > h) h = hgt(e->kw_values[i]);
  e->height = h + 1;
  if (e->height > MAX_HEIGHT)
    return rlx_error(RLX_PARSE_ERROR, e->span, "expected an expression at most %d levels deep, got a deeper one", MAX_HEIGHT);
  return NULL;
}

#define OOM() rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory while parsing")
#define DEPTH_IN()                                                                                   \
  do {                                                                                               \
    if (++p->depth > MAX_DEPTH)                                                                      \
      return rlx_error(RLX_PARSE_ERROR, tok(p)->span, "expected at most %d levels of nesting, got more", \
                       MAX_DEPTH);                                                                   \
  } while (0)

/* Parses comma-separated items until `close`; kw=true allows name=value (calls). */
static RLX_MUST_USE rlx_status_t* parse_items(ps_t* p, const char* close, bool kw, bool slices, py_expr_t* into, bool* trailing_comma) {
  expr_vec_t items = {0}, kwv = {0};
  str_vec_t kwn = {0};
  rlx_status_t* st = NULL;
  bool comma = false;
  while (!is_op(p, close)) {
    comma = false;
    py_expr_t* e = NULL;
    if (kw && tok(p)->kind == PY_TOK_NAME && tok_at(p, 1)->kind == PY_TOK_OP && strcmp(tok_at(p, 1)->text, "=") == 0) {
      const char* name = tok(p)->text;
      next(p);
      next(p);
      st = parse_expr(p, &e);
      if (st) break;
      if (!rlx_vec_push(&kwn, name) || !rlx_vec_push(&kwv, e)) { /* the two stay the same length */
        st = OOM();
        break;
      }
    } else {
      if (kwn.len && kw) {
        st = expected(p, "a keyword argument (positional argument follows keyword argument)");
        break;
      }
      if (!slices && is_op(p, "*")) { /* *args: a unary "*" the IR builders expand (pyast.h) */
        rlx_span_t sp = tok(p)->span;
        next(p);
        py_expr_t* inner;
        if ((st = parse_expr(p, &inner))) break;
        if (!(e = new_expr(p, PY_E_UNARY, sp))) {
          st = OOM();
          break;
        }
        e->op = "*";
        e->a = inner;
        if ((st = seal(p, e))) break;
        rlx_vec_push(&items, e);
        if (!accept_op(p, ",")) break;
        comma = true;
        continue;
      }
      if (slices && (is_op(p, ":"))) {
        e = NULL;
      } else {
        st = parse_expr(p, &e);
        if (st) break;
      }
      if (slices && is_op(p, ":")) {
        py_expr_t* s = new_expr(p, PY_E_SLICE, tok(p)->span);
        if (!s) {
          st = OOM();
          break;
        }
        s->a = e;
        next(p);
        if (!is_op(p, ":") && !is_op(p, ",") && !is_op(p, close)) {
          st = parse_expr(p, &s->b);
          if (st) break;
        }
        if (accept_op(p, ":")) {
          if (!is_op(p, ",") && !is_op(p, close)) {
            st = parse_expr(p, &s->c);
            if (st) break;
          }
        }
        e = s;
        if ((st = seal(p, e))) break;
      }
      rlx_vec_push(&items, e);
    }
    if (!accept_op(p, ",")) break;
    comma = true;
  }
  if (!st && !is_op(p, close)) {
    char buf[48];
    snprintf(buf, sizeof(buf), "',' or '%s'", close);
    st = expected(p, buf);
  }
  if (!st) {
    next(p);
    into->n = items.len;
    into->items = freeze(p, &items);
    into->n_kw = kwn.len;
    into->kw_names = rlx_arena_memdup(p->arena, kwn.data, sizeof(char*) * (size_t)kwn.len);
    into->kw_values = freeze(p, &kwv);
    if (trailing_comma) *trailing_comma = comma;
  }
  rlx_vec_free(&items);
  rlx_vec_free(&kwv);
  rlx_vec_free(&kwn);
  return st;
}

static RLX_MUST_USE rlx_status_t* parse_dict(ps_t* p, py_expr_t* d) {
  expr_vec_t keys = {0}, vals = {0};
  rlx_status_t* st = NULL;
  while (!is_op(p, "}")) {
    py_expr_t *k = NULL, *v = NULL;
    if ((st = parse_expr(p, &k))) break;
    if ((st = expect_op(p, ":"))) break;
    if ((st = parse_expr(p, &v))) break;
    if (!rlx_vec_push(&keys, k) || !rlx_vec_push(&vals, v)) { /* the two stay the same length */
      st = OOM();
      break;
    }
    if (!accept_op(p, ",")) break;
  }
  if (!st && !accept_op(p, "}")) st = expected(p, "',' or '}'");
  if (!st) {
    d->n = keys.len;
    d->items = freeze(p, &keys);
    d->n_kw = vals.len;
    d->kw_values = freeze(p, &vals);
  }
  rlx_vec_free(&keys);
  rlx_vec_free(&vals);
  return st;
}

static RLX_MUST_USE rlx_status_t* parse_atom(ps_t* p, py_expr_t** out) {
  py_tok_t* t = tok(p);
  py_expr_t* e = NULL;
  switch (t->kind) {
    case PY_TOK_NAME:
      if (strcmp(t->text, "True") == 0 || strcmp(t->text, "False") == 0 || strcmp(t->text, "None") == 0) {
        e = new_expr(p, PY_E_CONST, t->span);
      } else if (is_keyword(t->text)) {
        return expected(p, "an expression");
      } else {
        e = new_expr(p, PY_E_NAME, t->span);
      }
      if (!e) return OOM();
      e->str = t->text;
      next(p);
      break;
    case PY_TOK_INT:
      if (!(e = new_expr(p, PY_E_INT, t->span))) return OOM();
      e->ival = t->ival;
      e->str = t->text;
      next(p);
      break;
    case PY_TOK_FLOAT:
      if (!(e = new_expr(p, PY_E_FLOAT, t->span))) return OOM();
      e->fval = t->fval;
      e->str = t->text;
      next(p);
      break;
    case PY_TOK_STRING: {
      if (!(e = new_expr(p, PY_E_STR, t->span))) return OOM();
      rlx_strbuf_t sb = {0};
      while (tok(p)->kind == PY_TOK_STRING) {
        rlx_strbuf_append(&sb, tok(p)->text);
        next(p);
      }
      e->str = rlx_arena_strdup(p->arena, rlx_strbuf_cstr(&sb));
      rlx_strbuf_free(&sb);
      break;
    }
    case PY_TOK_OP:
      if (is_op(p, "(")) {
        rlx_span_t sp = t->span;
        next(p);
        if (accept_op(p, ")")) {
          if (!(e = new_expr(p, PY_E_TUPLE, sp))) return OOM();
          break;
        }
        py_expr_t* inner;
        RLX_RETURN_IF_ERROR(parse_exprlist(p, &inner));
        RLX_RETURN_IF_ERROR(expect_op(p, ")"));
        e = inner;
        break;
      }
      if (is_op(p, "[")) {
        if (!(e = new_expr(p, PY_E_LIST, t->span))) return OOM();
        next(p);
        RLX_RETURN_IF_ERROR(parse_items(p, "]", false, false, e, NULL));
        RLX_RETURN_IF_ERROR(seal(p, e));
        break;
      }
      if (is_op(p, "{")) {
        if (!(e = new_expr(p, PY_E_DICT, t->span))) return OOM();
        next(p);
        RLX_RETURN_IF_ERROR(parse_dict(p, e));
        RLX_RETURN_IF_ERROR(seal(p, e));
        break;
      }
      return expected(p, "an expression");
    case PY_TOK_EOF:
    case PY_TOK_NEWLINE:
    case PY_TOK_INDENT:
    case PY_TOK_DEDENT: return expected(p, "an expression");
  }
  /* trailers */
  for (;;) {
    if (is_op(p, "(")) {
      py_expr_t* c = new_expr(p, PY_E_CALL, tok(p)->span);
      if (!c) return OOM();
      c->span = e->span;
      c->a = e;
      next(p);
      RLX_RETURN_IF_ERROR(parse_items(p, ")", true, false, c, NULL));
      RLX_RETURN_IF_ERROR(seal(p, c));
      e = c;
    } else if (is_op(p, "[")) {
      py_expr_t* s = new_expr(p, PY_E_SUBSCRIPT, e->span);
      if (!s) return OOM();
      s->a = e;
      next(p);
      RLX_RETURN_IF_ERROR(parse_items(p, "]", false, true, s, NULL));
      RLX_RETURN_IF_ERROR(seal(p, s));
      e = s;
    } else if (is_op(p, ".")) {
      next(p);
      if (tok(p)->kind != PY_TOK_NAME) return expected(p, "an attribute name after '.'");
      py_expr_t* a = new_expr(p, PY_E_ATTR, e->span);
      if (!a) return OOM();
      a->a = e;
      a->str = tok(p)->text;
      next(p);
      RLX_RETURN_IF_ERROR(seal(p, a));
      e = a;
    } else {
      break;
    }
  }
  *out = e;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_unary(ps_t* p, py_expr_t** out);

static RLX_MUST_USE rlx_status_t* parse_power(ps_t* p, py_expr_t** out) {
  RLX_RETURN_IF_ERROR(parse_atom(p, out));
  if (is_op(p, "**")) {
    py_expr_t* b = new_expr(p, PY_E_BINOP, tok(p)->span);
    if (!b) return OOM();
    b->op = "**";
    next(p);
    b->a = *out;
    RLX_RETURN_IF_ERROR(parse_unary(p, &b->b));
    b->span = b->a->span;
    RLX_RETURN_IF_ERROR(seal(p, b));
    *out = b;
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_unary(ps_t* p, py_expr_t** out) {
  DEPTH_IN();
  rlx_status_t* st;
  if (is_op(p, "-") || is_op(p, "+") || is_op(p, "~")) {
    py_expr_t* u = new_expr(p, PY_E_UNARY, tok(p)->span);
    if (!u) return OOM();
    u->op = tok(p)->text;
    next(p);
    st = parse_unary(p, &u->a);
    if (!st) st = seal(p, u);
    *out = u;
  } else {
    st = parse_power(p, out);
  }
  p->depth--;
  return st;
}

/* Binary levels, lowest to highest inside arithmetic. */
static const char* const level_ops[][5] = {
    {"|", NULL}, {"^", NULL}, {"&", NULL}, {"<<", ">>", NULL}, {"+", "-", NULL}, {"*", "/", "//", "%", NULL},
};
enum { N_LEVELS = 6 };

static RLX_MUST_USE rlx_status_t* parse_level(ps_t* p, int level, py_expr_t** out) {
  if (level == N_LEVELS) return parse_unary(p, out);
  RLX_RETURN_IF_ERROR(parse_level(p, level + 1, out));
  for (;;) {
    const char* op = NULL;
    for (int i = 0; level_ops[level][i]; i++)
      if (is_op(p, level_ops[level][i])) op = level_ops[level][i];
    if (!op) return NULL;
    py_expr_t* b = new_expr(p, PY_E_BINOP, (*out)->span);
    if (!b) return OOM();
    b->op = op;
    next(p);
    b->a = *out;
    RLX_RETURN_IF_ERROR(parse_level(p, level + 1, &b->b));
    RLX_RETURN_IF_ERROR(seal(p, b));
    *out = b;
  }
}

static const char* compare_op(ps_t* p) {
  static const char* const ops[] = {"<", ">", "==", ">=", "<=", "!=", NULL};
  for (int i = 0; ops[i]; i++)
    if (is_op(p, ops[i])) return ops[i];
  if (is_kw(p, "in") && !p->no_in) return "in";
  if (is_kw(p, "is")) return tok_at(p, 1)->kind == PY_TOK_NAME && strcmp(tok_at(p, 1)->text, "not") == 0 ? "is not" : "is";
  if (is_kw(p, "not") && tok_at(p, 1)->kind == PY_TOK_NAME && strcmp(tok_at(p, 1)->text, "in") == 0) return "not in";
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_comparison(ps_t* p, py_expr_t** out) {
  py_expr_t* first;
  RLX_RETURN_IF_ERROR(parse_level(p, 0, &first));
  const char* op = compare_op(p);
  if (!op) {
    *out = first;
    return NULL;
  }
  expr_vec_t items = {0};
  str_vec_t ops = {0};
  rlx_status_t* st = rlx_vec_push(&items, first) ? NULL : OOM();
  while (!st && (op = compare_op(p))) {
    next(p);
    if (strcmp(op, "is not") == 0 || strcmp(op, "not in") == 0) next(p);
    py_expr_t* e;
    if ((st = parse_level(p, 0, &e))) break;
    if (!rlx_vec_push(&items, e) || !rlx_vec_push(&ops, op)) { /* one op between two items */
      st = OOM();
      break;
    }
  }
  py_expr_t* c = st ? NULL : new_expr(p, PY_E_COMPARE, first->span);
  if (!st && !c) st = OOM();
  if (!st) {
    c->n = items.len;
    c->items = freeze(p, &items);
    c->ops = rlx_arena_memdup(p->arena, ops.data, sizeof(char*) * (size_t)ops.len);
    *out = c;
    st = seal(p, c);
  }
  rlx_vec_free(&items);
  rlx_vec_free(&ops);
  return st;
}

static RLX_MUST_USE rlx_status_t* parse_not(ps_t* p, py_expr_t** out) {
  DEPTH_IN();
  rlx_status_t* st;
  if (is_kw(p, "not")) {
    py_expr_t* u = new_expr(p, PY_E_UNARY, tok(p)->span);
    if (!u) return OOM();
    u->op = "not";
    next(p);
    st = parse_not(p, &u->a);
    if (!st) st = seal(p, u);
    *out = u;
  } else {
    st = parse_comparison(p, out);
  }
  p->depth--;
  return st;
}

static RLX_MUST_USE rlx_status_t* parse_and(ps_t* p, py_expr_t** out) {
  RLX_RETURN_IF_ERROR(parse_not(p, out));
  while (is_kw(p, "and")) {
    py_expr_t* b = new_expr(p, PY_E_BOOLOP, (*out)->span);
    if (!b) return OOM();
    b->op = "and";
    next(p);
    b->a = *out;
    RLX_RETURN_IF_ERROR(parse_not(p, &b->b));
    RLX_RETURN_IF_ERROR(seal(p, b));
    *out = b;
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_or(ps_t* p, py_expr_t** out) {
  RLX_RETURN_IF_ERROR(parse_and(p, out));
  while (is_kw(p, "or")) {
    py_expr_t* b = new_expr(p, PY_E_BOOLOP, (*out)->span);
    if (!b) return OOM();
    b->op = "or";
    next(p);
    b->a = *out;
    RLX_RETURN_IF_ERROR(parse_and(p, &b->b));
    RLX_RETURN_IF_ERROR(seal(p, b));
    *out = b;
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_expr(ps_t* p, py_expr_t** out) {
  DEPTH_IN();
  rlx_status_t* st = parse_or(p, out);
  if (!st && is_kw(p, "if")) {
    py_expr_t* c = new_expr(p, PY_E_IFEXP, (*out)->span);
    if (!c) return OOM();
    next(p);
    c->b = *out;
    st = parse_or(p, &c->a);
    if (!st && !accept_kw(p, "else")) st = expected(p, "'else' in conditional expression");
    if (!st) st = parse_expr(p, &c->c);
    if (!st) st = seal(p, c);
    *out = c;
  }
  p->depth--;
  return st;
}

/* expr (',' expr)* [','] — a tuple when a comma appears. */
static RLX_MUST_USE rlx_status_t* parse_exprlist(ps_t* p, py_expr_t** out) {
  py_expr_t* first;
  RLX_RETURN_IF_ERROR(parse_expr(p, &first));
  if (!is_op(p, ",")) {
    *out = first;
    return NULL;
  }
  expr_vec_t items = {0};
  rlx_vec_push(&items, first);
  rlx_status_t* st = NULL;
  while (accept_op(p, ",")) {
    if (is_op(p, ")") || is_op(p, "=") || is_op(p, ":") || tok(p)->kind == PY_TOK_NEWLINE || is_kw(p, "in") ||
        is_op(p, "]"))
      break;
    py_expr_t* e;
    if ((st = parse_expr(p, &e))) break;
    rlx_vec_push(&items, e);
  }
  if (!st) {
    py_expr_t* t = new_expr(p, PY_E_TUPLE, first->span);
    if (!t) st = OOM();
    else {
      t->n = items.len;
      t->items = freeze(p, &items);
      *out = t;
      st = seal(p, t);
    }
  }
  rlx_vec_free(&items);
  return st;
}

/* ------------------------------------------------------------------ statements */
static RLX_MUST_USE rlx_status_t* parse_stmt(ps_t* p, py_block_t* into);

static py_stmt_t* new_stmt(ps_t* p, py_stmt_kind_t k, rlx_span_t sp) {
  py_stmt_t* s = rlx_arena_alloc(p->arena, sizeof(py_stmt_t));
  if (s) {
    s->kind = k;
    s->span = sp;
  }
  return s;
}

static RLX_MUST_USE rlx_status_t* add_stmt(ps_t* p, py_block_t* b, py_stmt_t* s) {
  py_stmt_t** items = rlx_arena_alloc(p->arena, sizeof(py_stmt_t*) * (size_t)(b->n + 1));
  if (!items) return OOM();
  if (b->n) memcpy(items, b->items, sizeof(py_stmt_t*) * (size_t)b->n);
  items[b->n++] = s;
  b->items = items;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_simple(ps_t* p, py_block_t* into);

/* ':' then either simple statements on the same line or an indented block. */
static RLX_MUST_USE rlx_status_t* parse_suite(ps_t* p, py_block_t* out) {
  RLX_RETURN_IF_ERROR(expect_op(p, ":"));
  DEPTH_IN();
  out->n = 0;
  out->items = NULL;
  if (tok(p)->kind != PY_TOK_NEWLINE) {
    RLX_RETURN_IF_ERROR(parse_simple(p, out));
    p->depth--;
    return NULL;
  }
  next(p);
  if (tok(p)->kind != PY_TOK_INDENT) return expected(p, "an indented block");
  next(p);
  while (tok(p)->kind != PY_TOK_DEDENT && tok(p)->kind != PY_TOK_EOF) RLX_RETURN_IF_ERROR(parse_stmt(p, out));
  if (tok(p)->kind == PY_TOK_DEDENT) next(p);
  p->depth--;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_small(ps_t* p, py_block_t* into) {
  rlx_span_t sp = tok(p)->span;
  py_stmt_t* s = NULL;
  if (accept_kw(p, "pass")) {
    s = new_stmt(p, PY_S_PASS, sp);
  } else if (accept_kw(p, "return")) {
    s = new_stmt(p, PY_S_RETURN, sp);
    if (s && tok(p)->kind != PY_TOK_NEWLINE && !is_op(p, ";")) RLX_RETURN_IF_ERROR(parse_exprlist(p, &s->value));
  } else if (accept_kw(p, "assert")) {
    s = new_stmt(p, PY_S_ASSERT, sp);
    if (!s) return OOM();
    RLX_RETURN_IF_ERROR(parse_expr(p, &s->value));
    if (accept_op(p, ",")) RLX_RETURN_IF_ERROR(parse_expr(p, &s->annotation));
  } else if (is_kw(p, "import") || is_kw(p, "from")) {
    s = new_stmt(p, PY_S_IMPORT, sp);
    if (!s) return OOM();
    bool from = accept_kw(p, "from");
    if (!from) next(p);
    rlx_strbuf_t mod = {0};
    RLX_VEC(py_param_t) names = {0};
    rlx_status_t* st = NULL;
    for (;;) {
      if (tok(p)->kind != PY_TOK_NAME) {
        st = expected(p, "a module name");
        break;
      }
      py_param_t prm = {0};
      rlx_strbuf_t dotted = {0};
      rlx_strbuf_append(&dotted, tok(p)->text);
      prm.span = tok(p)->span;
      next(p);
      while (accept_op(p, ".")) {
        if (tok(p)->kind != PY_TOK_NAME) {
          st = expected(p, "a module name after '.'");
          break;
        }
        rlx_strbuf_printf(&dotted, ".%s", tok(p)->text);
        next(p);
      }
      prm.name = rlx_arena_strdup(p->arena, rlx_strbuf_cstr(&dotted));
      rlx_strbuf_free(&dotted);
      if (st) break;
      if (from && !mod.len) {
        rlx_strbuf_append(&mod, prm.name);
        if (!accept_kw(p, "import")) {
          st = expected(p, "'import'");
          break;
        }
        continue;
      }
      if (accept_kw(p, "as")) {
        if (tok(p)->kind != PY_TOK_NAME) {
          st = expected(p, "a name after 'as'");
          break;
        }
        prm.alias = tok(p)->text;
        next(p);
      }
      rlx_vec_push(&names, prm);
      if (!accept_op(p, ",")) break;
    }
    if (!st) {
      s->module = from ? rlx_arena_strdup(p->arena, rlx_strbuf_cstr(&mod)) : NULL;
      s->n_params = names.len;
      s->params = rlx_arena_memdup(p->arena, names.data, sizeof(py_param_t) * (size_t)names.len);
    }
    rlx_strbuf_free(&mod);
    rlx_vec_free(&names);
    if (st) return st;
  } else {
    py_expr_t* lhs;
    RLX_RETURN_IF_ERROR(parse_exprlist(p, &lhs));
    if (accept_op(p, "=")) {
      s = new_stmt(p, PY_S_ASSIGN, sp);
      if (!s) return OOM();
      s->target = lhs;
      RLX_RETURN_IF_ERROR(parse_exprlist(p, &s->value));
      if (is_op(p, "=")) return expected(p, "end of statement (chained assignment is not supported)");
    } else if (accept_op(p, ":")) {
      s = new_stmt(p, PY_S_ANNASSIGN, sp);
      if (!s) return OOM();
      s->target = lhs;
      RLX_RETURN_IF_ERROR(parse_expr(p, &s->annotation));
      if (accept_op(p, "=")) RLX_RETURN_IF_ERROR(parse_exprlist(p, &s->value));
    } else if (tok(p)->kind == PY_TOK_OP && strlen(tok(p)->text) >= 2 && tok(p)->text[strlen(tok(p)->text) - 1] == '=' &&
               strcmp(tok(p)->text, "==") != 0 && strcmp(tok(p)->text, "<=") != 0 && strcmp(tok(p)->text, ">=") != 0 &&
               strcmp(tok(p)->text, "!=") != 0) {
      s = new_stmt(p, PY_S_AUGASSIGN, sp);
      if (!s) return OOM();
      s->target = lhs;
      s->op = rlx_arena_strndup(p->arena, tok(p)->text, strlen(tok(p)->text) - 1);
      next(p);
      RLX_RETURN_IF_ERROR(parse_exprlist(p, &s->value));
    } else {
      s = new_stmt(p, PY_S_EXPR, sp);
      if (!s) return OOM();
      s->value = lhs;
    }
  }
  if (!s) return OOM();
  return add_stmt(p, into, s);
}

static RLX_MUST_USE rlx_status_t* parse_simple(ps_t* p, py_block_t* into) {
  for (;;) {
    RLX_RETURN_IF_ERROR(parse_small(p, into));
    if (!accept_op(p, ";")) break;
    if (tok(p)->kind == PY_TOK_NEWLINE) break;
  }
  if (tok(p)->kind != PY_TOK_NEWLINE) return expected(p, "end of line");
  next(p);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_params(ps_t* p, py_stmt_t* s) {
  RLX_RETURN_IF_ERROR(expect_op(p, "("));
  RLX_VEC(py_param_t) prm = {0};
  rlx_status_t* st = NULL;
  while (!is_op(p, ")")) {
    if (tok(p)->kind != PY_TOK_NAME || is_keyword(tok(p)->text)) {
      st = expected(p, "a parameter name");
      break;
    }
    py_param_t x = {0};
    x.name = tok(p)->text;
    x.span = tok(p)->span;
    next(p);
    if (accept_op(p, ":") && (st = parse_expr(p, &x.annotation))) break;
    if (accept_op(p, "=") && (st = parse_expr(p, &x.default_value))) break;
    rlx_vec_push(&prm, x);
    if (!accept_op(p, ",")) break;
  }
  if (!st) st = expect_op(p, ")");
  if (!st) {
    s->n_params = prm.len;
    s->params = rlx_arena_memdup(p->arena, prm.data, sizeof(py_param_t) * (size_t)prm.len);
  }
  rlx_vec_free(&prm);
  return st;
}

static RLX_MUST_USE rlx_status_t* parse_if_tail(ps_t* p, py_stmt_t* s) {
  RLX_RETURN_IF_ERROR(parse_expr(p, &s->value));
  RLX_RETURN_IF_ERROR(parse_suite(p, &s->body));
  if (is_kw(p, "elif")) {
    py_stmt_t* e = new_stmt(p, PY_S_IF, tok(p)->span);
    if (!e) return OOM();
    next(p);
    DEPTH_IN();
    RLX_RETURN_IF_ERROR(parse_if_tail(p, e));
    p->depth--;
    return add_stmt(p, &s->orelse, e);
  }
  if (accept_kw(p, "else")) return parse_suite(p, &s->orelse);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_stmt(ps_t* p, py_block_t* into) {
  rlx_span_t sp = tok(p)->span;
  if (tok(p)->kind == PY_TOK_INDENT) return expected(p, "a statement (unexpected indent)");
  if (tok(p)->kind == PY_TOK_NEWLINE) {
    next(p);
    return NULL;
  }
  expr_vec_t decos = {0};
  while (is_op(p, "@")) {
    next(p);
    py_expr_t* d;
    rlx_status_t* st = parse_expr(p, &d);
    if (!st && tok(p)->kind != PY_TOK_NEWLINE) st = expected(p, "end of line after decorator");
    if (st) {
      rlx_vec_free(&decos);
      return st;
    }
    next(p);
    rlx_vec_push(&decos, d);
  }
  if (decos.len && !is_kw(p, "def") && !is_kw(p, "class")) {
    rlx_vec_free(&decos);
    return expected(p, "'def' or 'class' after decorator");
  }
  py_stmt_t* s = NULL;
  rlx_status_t* st = NULL;
  if (is_kw(p, "def") || is_kw(p, "class")) {
    bool is_def = is_kw(p, "def");
    next(p);
    s = new_stmt(p, is_def ? PY_S_DEF : PY_S_CLASS, sp);
    if (!s) st = OOM();
    if (!st && (tok(p)->kind != PY_TOK_NAME || is_keyword(tok(p)->text)))
      st = expected(p, is_def ? "a function name" : "a class name");
    if (!st) {
      s->name = tok(p)->text;
      s->n_decorators = decos.len;
      s->decorators = freeze(p, &decos);
      next(p);
      if (is_def) {
        st = parse_params(p, s);
        if (!st && accept_op(p, "->")) st = parse_expr(p, &s->returns);
      } else if (is_op(p, "(")) {
        py_expr_t dummy = {0};
        next(p);
        st = parse_items(p, ")", true, false, &dummy, NULL);
      }
      if (!st) st = parse_suite(p, &s->body);
    }
  } else if (accept_kw(p, "for")) {
    s = new_stmt(p, PY_S_FOR, sp);
    if (!s) st = OOM();
    p->no_in = true;
    if (!st) st = parse_exprlist(p, &s->target);
    p->no_in = false;
    if (!st && !accept_kw(p, "in")) st = expected(p, "'in'");
    if (!st) st = parse_exprlist(p, &s->value);
    if (!st) st = parse_suite(p, &s->body);
    if (!st && accept_kw(p, "else")) st = parse_suite(p, &s->orelse);
  } else if (accept_kw(p, "while")) {
    s = new_stmt(p, PY_S_WHILE, sp);
    if (!s) st = OOM();
    if (!st) st = parse_expr(p, &s->value);
    if (!st) st = parse_suite(p, &s->body);
  } else if (accept_kw(p, "if")) {
    s = new_stmt(p, PY_S_IF, sp);
    if (!s) st = OOM();
    if (!st) st = parse_if_tail(p, s);
  } else if (accept_kw(p, "with")) {
    /* `with a as x, b as y:` nests: the first item is the outer statement. */
    py_stmt_t* outer = NULL;
    py_stmt_t* last = NULL;
    for (;;) {
      py_stmt_t* w = new_stmt(p, PY_S_WITH, tok(p)->span);
      if (!w) {
        st = OOM();
        break;
      }
      if ((st = parse_expr(p, &w->value))) break;
      if (accept_kw(p, "as") && (st = parse_expr(p, &w->target))) break;
      if (!outer) outer = w;
      else if ((st = add_stmt(p, &last->body, w))) break;
      last = w;
      if (!accept_op(p, ",")) break;
    }
    if (!st) {
      py_block_t body = {0};
      st = parse_suite(p, &body);
      if (!st) {
        for (int i = 0; i < body.n && !st; i++) st = add_stmt(p, &last->body, body.items[i]);
      }
    }
    s = outer;
    if (s) s->span = sp;
  } else {
    rlx_vec_free(&decos);
    return parse_simple(p, into);
  }
  rlx_vec_free(&decos);
  if (st) return st;
  return add_stmt(p, into, s);
}

RLX_MUST_USE rlx_status_t* py_parse(rlx_arena_t* arena, const char* text, const char* filename, py_block_t* out) {
  ps_t p = {0};
  p.arena = arena;
  RLX_RETURN_IF_ERROR(py_lex(arena, text, filename, &p.toks, &p.n));
  out->n = 0;
  out->items = NULL;
  while (tok(&p)->kind != PY_TOK_EOF) {
    if (tok(&p)->kind == PY_TOK_DEDENT) {
      next(&p);
      continue;
    }
    RLX_RETURN_IF_ERROR(parse_stmt(&p, out));
  }
  return NULL;
}

RLX_MUST_USE rlx_status_t* py_parse_expression(rlx_arena_t* arena, const char* text, const char* filename,
                                              py_expr_t** out) {
  ps_t p = {0};
  p.arena = arena;
  RLX_RETURN_IF_ERROR(py_lex(arena, text, filename, &p.toks, &p.n));
  RLX_RETURN_IF_ERROR(parse_exprlist(&p, out));
  while (tok(&p)->kind == PY_TOK_NEWLINE || tok(&p)->kind == PY_TOK_DEDENT) next(&p);
  if (tok(&p)->kind != PY_TOK_EOF) return expected(&p, "end of the expression");
  return NULL;
}

const char* py_dotted_name(rlx_arena_t* arena, const py_expr_t* e) {
  if (!e) return NULL;
  if (e->kind == PY_E_NAME) return e->str;
  if (e->kind != PY_E_ATTR) return NULL;
  const char* base = py_dotted_name(arena, e->a);
  if (!base) return NULL;
  size_t n = strlen(base) + strlen(e->str) + 2;
  char* s = rlx_arena_alloc(arena, n);
  if (!s) return NULL;
  snprintf(s, n, "%s.%s", base, e->str);
  return s;
}
