/* Python-subset tokenizer with INDENT/DEDENT, implicit line joining inside brackets,
 * comments, string escapes and numeric literals. Errors carry file:line:col. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyast.h"

typedef struct {
  rlx_arena_t* arena;
  const char* src;
  const char* file;
  size_t pos;
  int line, col;
  RLX_VEC(py_tok_t) toks;
  int indents[128];
  int n_indents;
  int depth; /* bracket nesting */
} lx_t;

static rlx_span_t here(const lx_t* l) {
  rlx_span_t s = {l->file, l->line, l->col};
  return s;
}

static char cur(const lx_t* l) { return l->src[l->pos]; }
static char peekc(const lx_t* l, int k) {
  for (int i = 0; i < k; i++)
    if (!l->src[l->pos + (size_t)i]) return 0;
  return l->src[l->pos + (size_t)k];
}
static void adv(lx_t* l) {
  if (!l->src[l->pos]) return;
  if (l->src[l->pos] == '\n') {
    l->line++;
    l->col = 1;
  } else {
    l->col++;
  }
  l->pos++;
}

static RLX_MUST_USE rlx_status_t* push(lx_t* l, py_tok_kind_t k, const char* text, rlx_span_t sp) {
  py_tok_t t = {k, text, 0, 0, sp};
  if (!rlx_vec_push(&l->toks, t)) return rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory while lexing");
  return NULL;
}

static bool is_ident_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static RLX_MUST_USE rlx_status_t* lex_string(lx_t* l) {
  rlx_span_t sp = here(l);
  char q = cur(l);
  bool triple = peekc(l, 1) == q && peekc(l, 2) == q;
  adv(l);
  if (triple) adv(l), adv(l);
  rlx_strbuf_t sb = {0};
  for (;;) {
    char c = cur(l);
    if (!c || (!triple && c == '\n')) {
      rlx_strbuf_free(&sb);
      return rlx_error(RLX_PARSE_ERROR, sp, "expected closing %s, got %s (unterminated string literal)",
                       triple ? "triple quote" : (q == '"' ? "'\"'" : "\"'\""), c ? "end of line" : "end of file");
    }
    if (c == q && (!triple || (peekc(l, 1) == q && peekc(l, 2) == q))) {
      adv(l);
      if (triple) adv(l), adv(l);
      break;
    }
    if (c == '\\') {
      adv(l);
      char e = cur(l);
      if (!e) continue;
      const char* rep = NULL;
      char one[2] = {e, 0};
      switch (e) {
        case 'n': rep = "\n"; break;
        case 't': rep = "\t"; break;
        case 'r': rep = "\r"; break;
        case '0': rep = ""; break;
        case '\\': rep = "\\"; break;
        case '\'': rep = "'"; break;
        case '"': rep = "\""; break;
        case '\n': rep = ""; break;
        default: rep = one; rlx_strbuf_append(&sb, "\\"); break;
      }
      rlx_strbuf_append(&sb, rep);
      adv(l);
      continue;
    }
    rlx_strbuf_appendn(&sb, &c, 1);
    adv(l);
  }
  const char* text = rlx_arena_strdup(l->arena, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return push(l, PY_TOK_STRING, text, sp);
}

static RLX_MUST_USE rlx_status_t* lex_number(lx_t* l) {
  rlx_span_t sp = here(l);
  size_t start = l->pos;
  bool is_float = false;
  if (cur(l) == '0' && (peekc(l, 1) == 'x' || peekc(l, 1) == 'X')) {
    adv(l), adv(l);
    while (is_digit(cur(l)) || (cur(l) >= 'a' && cur(l) <= 'f') || (cur(l) >= 'A' && cur(l) <= 'F') || cur(l) == '_')
      adv(l);
  } else {
    while (is_digit(cur(l)) || cur(l) == '_') adv(l);
    if (cur(l) == '.' && !is_ident_start(peekc(l, 1))) {
      is_float = true;
      adv(l);
      while (is_digit(cur(l)) || cur(l) == '_') adv(l);
    }
    if (cur(l) == 'e' || cur(l) == 'E') {
      char n1 = peekc(l, 1), n2 = peekc(l, 2);
      if (is_digit(n1) || ((n1 == '+' || n1 == '-') && is_digit(n2))) {
        is_float = true;
        adv(l), adv(l);
        while (is_digit(cur(l))) adv(l);
      }
    }
  }
  if (is_ident_start(cur(l)))
    return rlx_error(RLX_PARSE_ERROR, here(l), "expected a number, got invalid literal character '%c'", cur(l));
  char buf[128];
  size_t n = 0;
  for (size_t i = start; i < l->pos && n + 1 < sizeof(buf); i++)
    if (l->src[i] != '_') buf[n++] = l->src[i];
  buf[n] = 0;
  py_tok_t t = {is_float ? PY_TOK_FLOAT : PY_TOK_INT, rlx_arena_strdup(l->arena, buf), 0, 0, sp};
  if (is_float) {
    t.fval = strtod(buf, NULL);
  } else {
    errno = 0;
    char* end;
    unsigned long long v = strtoull(buf, &end, 0);
    if (errno || v > (unsigned long long)INT64_MAX)
      return rlx_error(RLX_PARSE_ERROR, sp, "expected an integer that fits in 64 bits, got %s", buf);
    t.ival = (int64_t)v;
  }
  if (!rlx_vec_push(&l->toks, t)) return rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory while lexing");
  return NULL;
}

static const char* const ops3[] = {"**=", "//=", ">>=", "<<=", "...", NULL};
static const char* const ops2[] = {"**", "//", "==", "!=", "<=", ">=", "->", "+=", "-=", "*=", "/=", "%=",
                                   "&=", "|=", "^=", "<<", ">>", ":=", NULL};
static const char ops1[] = "()[]{},:.;@=+-*/%<>&|^~";

/* Handles indentation at the start of a logical line; returns true when the line is blank. */
static RLX_MUST_USE rlx_status_t* line_start(lx_t* l, bool* blank) {
  int width = 0;
  rlx_span_t sp = here(l);
  for (;;) {
    char c = cur(l);
    if (c == ' ') width++;
    else if (c == '\t') width = (width / 8 + 1) * 8;
    else if (c == '\f') width = 0;
    else break;
    adv(l);
  }
  char c = cur(l);
  if (c == '\n' || c == '#' || c == '\r' || !c) {
    *blank = true;
    return NULL;
  }
  *blank = false;
  sp = here(l);
  int top = l->indents[l->n_indents - 1];
  if (width > top) {
    if (l->n_indents >= 128) return rlx_error(RLX_PARSE_ERROR, sp, "expected at most 127 indentation levels, got more");
    l->indents[l->n_indents++] = width;
    return push(l, PY_TOK_INDENT, "", sp);
  }
  while (width < l->indents[l->n_indents - 1]) {
    l->n_indents--;
    RLX_RETURN_IF_ERROR(push(l, PY_TOK_DEDENT, "", sp));
  }
  if (width != l->indents[l->n_indents - 1])
    return rlx_error(RLX_PARSE_ERROR, sp, "expected indentation matching an outer level (%d spaces), got %d",
                     l->indents[l->n_indents - 1], width);
  return NULL;
}

RLX_MUST_USE rlx_status_t* py_lex(rlx_arena_t* arena, const char* text, const char* filename, py_tok_t** out_toks, int* out_n) {
  lx_t l = {0};
  l.arena = arena;
  l.src = text ? text : "";
  l.file = filename ? filename : "<string>";
  l.line = 1;
  l.col = 1;
  l.indents[0] = 0;
  l.n_indents = 1;
  rlx_status_t* st = NULL;
  bool at_line_start = true;
  while (!st) {
    if (at_line_start && l.depth == 0) {
      bool blank;
      st = line_start(&l, &blank);
      if (st) break;
      at_line_start = false;
      if (blank) {
        while (cur(&l) && cur(&l) != '\n') adv(&l);
        if (!cur(&l)) break;
        adv(&l);
        at_line_start = true;
        continue;
      }
    }
    char c = cur(&l);
    if (!c) break;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
      adv(&l);
      continue;
    }
    if (c == '#') {
      while (cur(&l) && cur(&l) != '\n') adv(&l);
      continue;
    }
    if (c == '\\' && (peekc(&l, 1) == '\n' || (peekc(&l, 1) == '\r' && peekc(&l, 2) == '\n'))) {
      adv(&l);
      if (cur(&l) == '\r') adv(&l);
      adv(&l);
      continue;
    }
    if (c == '\n') {
      if (l.depth == 0) {
        st = push(&l, PY_TOK_NEWLINE, "", here(&l));
        at_line_start = true;
      }
      adv(&l);
      continue;
    }
    if (c == '"' || c == '\'') {
      st = lex_string(&l);
      continue;
    }
    if (is_digit(c) || (c == '.' && is_digit(peekc(&l, 1)))) {
      st = lex_number(&l);
      continue;
    }
    if (is_ident_start(c)) {
      rlx_span_t sp = here(&l);
      size_t s0 = l.pos;
      while (is_ident_start(cur(&l)) || is_digit(cur(&l))) adv(&l);
      /* string prefixes r"..." / b"..." are not supported: treat as names */
      st = push(&l, PY_TOK_NAME, rlx_arena_strndup(arena, l.src + s0, l.pos - s0), sp);
      continue;
    }
    rlx_span_t sp = here(&l);
    const char* op = NULL;
    for (int i = 0; ops3[i] && !op; i++)
      if (strncmp(l.src + l.pos, ops3[i], 3) == 0) op = ops3[i];
    for (int i = 0; ops2[i] && !op; i++)
      if (strncmp(l.src + l.pos, ops2[i], 2) == 0) op = ops2[i];
    if (!op && strchr(ops1, c)) {
      char one[2] = {c, 0};
      op = rlx_arena_strdup(arena, one);
    }
    if (!op) {
      if ((unsigned char)c < 32 || (unsigned char)c >= 127)
        st = rlx_error(RLX_PARSE_ERROR, sp, "expected a token, got invalid character 0x%02x", (unsigned char)c);
      else
        st = rlx_error(RLX_PARSE_ERROR, sp, "expected a token, got invalid character '%c'", c);
      break;
    }
    size_t n = strlen(op);
    for (size_t i = 0; i < n; i++) adv(&l);
    if (strchr("([{", op[0]) && n == 1) l.depth++;
    if (strchr(")]}", op[0]) && n == 1 && l.depth > 0) l.depth--;
    st = push(&l, PY_TOK_OP, op, sp);
  }
  if (!st) {
    if (l.depth == 0 && l.toks.len && l.toks.data[l.toks.len - 1].kind != PY_TOK_NEWLINE &&
        l.toks.data[l.toks.len - 1].kind != PY_TOK_DEDENT)
      st = push(&l, PY_TOK_NEWLINE, "", here(&l));
    while (!st && l.depth == 0 && l.n_indents > 1) {
      l.n_indents--;
      st = push(&l, PY_TOK_DEDENT, "", here(&l));
    }
    if (!st) st = push(&l, PY_TOK_EOF, "", here(&l));
  }
  if (st) {
    rlx_vec_free(&l.toks);
    return st;
  }
  *out_n = l.toks.len;
  *out_toks = rlx_arena_memdup(arena, l.toks.data, sizeof(py_tok_t) * (size_t)l.toks.len);
  rlx_vec_free(&l.toks);
  return NULL;
}

const char* py_tok_describe(rlx_arena_t* arena, const py_tok_t* t) {
  char buf[160];
  switch (t->kind) {
    case PY_TOK_EOF: return "end of file";
    case PY_TOK_NEWLINE: return "end of line";
    case PY_TOK_INDENT: return "an indented block";
    case PY_TOK_DEDENT: return "end of indented block";
    case PY_TOK_NAME: snprintf(buf, sizeof(buf), "'%.60s'", t->text); break;
    case PY_TOK_INT:
    case PY_TOK_FLOAT: snprintf(buf, sizeof(buf), "number %.60s", t->text); break;
    case PY_TOK_STRING: snprintf(buf, sizeof(buf), "string \"%.60s\"", t->text); break;
    case PY_TOK_OP: snprintf(buf, sizeof(buf), "'%s'", t->text); break;
  }
  return rlx_arena_strdup(arena, buf);
}
