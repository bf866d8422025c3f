/* Private to src/script: a Python-subset lexer and parser producing a generic AST.
 *
 * The TVMScript front ends (TIR and Relax) share this layer: it knows Python syntax
 * (indentation, decorators, def/class/for/with/if, calls, attributes, subscripts, slices,
 * tuples, dicts, operators with Python precedence) and nothing about TVM. The IR builders
 * interpret the tree. All nodes live in the parser's arena; spans give file:line:col.
 */
#ifndef RLX_SCRIPT_PYAST_H
#define RLX_SCRIPT_PYAST_H

#include "../ir/ir.h"

/* ------------------------------------------------------------------ tokens */
typedef enum {
  PY_TOK_EOF,
  PY_TOK_NAME,
  PY_TOK_INT,
  PY_TOK_FLOAT,
  PY_TOK_STRING,
  PY_TOK_OP, /* punctuation / operator; text holds it */
  PY_TOK_NEWLINE,
  PY_TOK_INDENT,
  PY_TOK_DEDENT
} py_tok_kind_t;

typedef struct {
  py_tok_kind_t kind;
  const char* text; /* NAME / OP / STRING (decoded) */
  int64_t ival;
  double fval;
  rlx_span_t span;
} py_tok_t;

/* Tokenizes the whole text (arena-allocated tokens, ending with EOF). */
RLX_MUST_USE rlx_status_t* py_lex(rlx_arena_t* arena, const char* text, const char* filename, py_tok_t** out_toks,
                                  int* out_n);
/* "name 'foo'", "newline", "end of file", "'('" ... for error messages. */
const char* py_tok_describe(rlx_arena_t* arena, const py_tok_t* t);

/* ------------------------------------------------------------------ expressions */
typedef enum {
  PY_E_NAME,      /* str */
  PY_E_INT,       /* ival */
  PY_E_FLOAT,     /* fval */
  PY_E_STR,       /* str */
  PY_E_CONST,     /* True / False / None: str */
  PY_E_ATTR,      /* a.str */
  PY_E_CALL,      /* a(items..., kw_names[i]=kw_values[i]) */
  PY_E_SUBSCRIPT, /* a[items...] */
  PY_E_SLICE,     /* a:b:c (each may be NULL) */
  PY_E_TUPLE,     /* items */
  PY_E_LIST,      /* items */
  PY_E_DICT,      /* items (keys) : kw_values (values) */
  PY_E_BINOP,     /* a op b; op is the token text ("+", "//", ...) */
  PY_E_UNARY,     /* op a ("-", "+", "~", "not"; "*" is a starred call or list item, *args) */
  PY_E_COMPARE,   /* items[0] ops[0] items[1] ops[1] items[2] ... */
  PY_E_BOOLOP,    /* a op b ("and" / "or") */
  PY_E_IFEXP      /* b if a else c */
} py_expr_kind_t;

typedef struct py_expr {
  py_expr_kind_t kind;
  rlx_span_t span;
  const char* str;
  const char* op;
  int64_t ival;
  double fval;
  struct py_expr *a, *b, *c;
  int n;
  struct py_expr** items;
  const char** ops; /* compare operators, n - 1 of them */
  int n_kw;
  const char** kw_names;
  struct py_expr** kw_values;
  int height; /* tree height, bounded by the parser so later recursion stays shallow */
} py_expr_t;

/* ------------------------------------------------------------------ statements */
typedef enum {
  PY_S_EXPR,      /* value */
  PY_S_ASSIGN,    /* target = value (target may be a tuple) */
  PY_S_ANNASSIGN, /* target: annotation (= value)? */
  PY_S_AUGASSIGN, /* target op= value */
  PY_S_FOR,       /* for target in value: body */
  PY_S_WITH,      /* with value (as target)?: body */
  PY_S_IF,        /* if value: body else: orelse */
  PY_S_WHILE,     /* while value: body */
  PY_S_DEF,       /* decorators, name, params, returns, body */
  PY_S_CLASS,     /* decorators, name, body */
  PY_S_RETURN,    /* value (may be NULL) */
  PY_S_PASS,
  PY_S_IMPORT, /* import / from-import: names in params[].name, aliases in params[].alias */
  PY_S_ASSERT  /* value, annotation = message */
} py_stmt_kind_t;

typedef struct py_stmt py_stmt_t;
typedef struct {
  int n;
  py_stmt_t** items;
} py_block_t;

typedef struct {
  const char* name;
  const char* alias; /* imports only */
  py_expr_t* annotation;
  py_expr_t* default_value;
  rlx_span_t span;
} py_param_t;

struct py_stmt {
  py_stmt_kind_t kind;
  rlx_span_t span;
  py_expr_t* target;
  py_expr_t* value;
  py_expr_t* annotation;
  const char* op; /* augassign operator */
  py_block_t body, orelse;
  const char* name;
  const char* module; /* from-import module */
  int n_decorators;
  py_expr_t** decorators;
  int n_params;
  py_param_t* params;
  py_expr_t* returns;
};

/* Parses a whole file into a block of top-level statements. */
RLX_MUST_USE rlx_status_t* py_parse(rlx_arena_t* arena, const char* text, const char* filename, py_block_t* out);

/* Parses text as one expression (a tuple when it has top-level commas). */
RLX_MUST_USE rlx_status_t* py_parse_expression(rlx_arena_t* arena, const char* text, const char* filename,
                                              py_expr_t** out);

/* Dotted name of an expression ("T.axis.remap") or NULL when it is not a dotted name. */
const char* py_dotted_name(rlx_arena_t* arena, const py_expr_t* e);

#endif
