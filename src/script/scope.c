/* The Python scope around a TVMScript definition (rlx_script_parse_scope): TVM's parser
 * evaluates every name the script does not define in the enclosing Python scope (closure
 * variables, module globals: `relax_op(x, y)` with relax_op = R.add, `R.Tensor(shape,
 * dtype)` with both from a test's parameters). The caller (the Python package) hands those
 * values over as TVMScript expression text per name; this file parses each once and puts a
 * copy of it, with the span of the use, wherever the name is read. The caller only binds
 * names that the script never assigns, so no local variable is replaced. A binding's name may
 * be dotted ("relax.op.add", an attribute read through a module of the scope): the whole
 * attribute chain is replaced.
 *
 * After substitution, starred items (`T.grid(*shape)`, `[*dims, 1]`) whose value is now a
 * tuple or list literal are spliced into the enclosing call or list; a starred item left
 * (`*buf.shape`) is for the IR builder to expand. */
#include <string.h>

#include "tir_parse.h"

typedef struct {
  rlx_arena_t* arena;
  int n;
  const char* const* names;
  py_expr_t* const* values; /* NULL: the name is a symbolic var (not substituted) */
} sub_t;

static py_expr_t* clone(rlx_arena_t* a, const py_expr_t* e, rlx_span_t sp);

static py_expr_t** clone_items(rlx_arena_t* a, int n, py_expr_t* const* items, rlx_span_t sp) {
  if (!n) return NULL;
  py_expr_t** out = rlx_arena_alloc(a, sizeof(py_expr_t*) * (size_t)n);
  if (!out) return NULL;
  for (int i = 0; i < n; i++) out[i] = clone(a, items[i], sp);
  return out;
}

/* A deep copy of e whose every span is sp (errors point at the use, not at the value). */
static py_expr_t* clone(rlx_arena_t* a, const py_expr_t* e, rlx_span_t sp) {
  if (!e) return NULL;
  py_expr_t* c = rlx_arena_alloc(a, sizeof(py_expr_t));
  if (!c) return NULL;
  *c = *e;
  c->span = sp;
  c->a = clone(a, e->a, sp);
  c->b = clone(a, e->b, sp);
  c->c = clone(a, e->c, sp);
  c->items = clone_items(a, e->n, e->items, sp);
  c->kw_values = clone_items(a, e->n_kw, e->kw_values, sp);
  return c;
}

static py_expr_t* sub_expr(sub_t* s, py_expr_t* e);

static void sub_items(sub_t* s, int n, py_expr_t** items) {
  for (int i = 0; i < n; i++) items[i] = sub_expr(s, items[i]);
}

static bool is_star(const py_expr_t* e) { return e && e->kind == PY_E_UNARY && e->op && strcmp(e->op, "*") == 0; }

/* Splices `*(a, b)` / `*[a, b]` items of e (a call or a list) into its items. */
static void splice_stars(sub_t* s, py_expr_t* e) {
  int total = 0;
  bool any = false;
  for (int i = 0; i < e->n; i++) {
    const py_expr_t* x = e->items[i];
    if (is_star(x) && (x->a->kind == PY_E_TUPLE || x->a->kind == PY_E_LIST)) {
      total += x->a->n;
      any = true;
    } else {
      total++;
    }
  }
  if (!any) return;
  py_expr_t** items = rlx_arena_alloc(s->arena, sizeof(py_expr_t*) * (size_t)(total ? total : 1));
  if (!items) return;
  int k = 0;
  for (int i = 0; i < e->n; i++) {
    py_expr_t* x = e->items[i];
    if (is_star(x) && (x->a->kind == PY_E_TUPLE || x->a->kind == PY_E_LIST)) {
      for (int j = 0; j < x->a->n; j++) items[k++] = x->a->items[j];
    } else {
      items[k++] = x;
    }
  }
  e->items = items;
  e->n = total;
}

static py_expr_t* sub_expr(sub_t* s, py_expr_t* e) {
  if (!e) return NULL;
  if (e->kind == PY_E_ATTR) { /* a dotted binding: "relax.op.add" read through a module of the scope */
    const char* d = py_dotted_name(s->arena, e);
    for (int i = 0; d && i < s->n; i++)
      if (s->values[i] && strchr(s->names[i], '.') && strcmp(s->names[i], d) == 0) {
        py_expr_t* c = clone(s->arena, s->values[i], e->span);
        return c ? c : e;
      }
  }
  if (e->kind == PY_E_NAME) {
    for (int i = 0; i < s->n; i++)
      if (s->values[i] && strcmp(s->names[i], e->str) == 0) {
        py_expr_t* c = clone(s->arena, s->values[i], e->span);
        return c ? c : e;
      }
    return e;
  }
  e->a = sub_expr(s, e->a);
  e->b = sub_expr(s, e->b);
  e->c = sub_expr(s, e->c);
  sub_items(s, e->n, e->items);
  sub_items(s, e->n_kw, e->kw_values);
  if (e->kind == PY_E_CALL || e->kind == PY_E_LIST || e->kind == PY_E_TUPLE) splice_stars(s, e);
  return e;
}

static void sub_block(sub_t* s, py_block_t* b);

static void sub_stmt(sub_t* s, py_stmt_t* st) {
  st->target = sub_expr(s, st->target);
  st->value = sub_expr(s, st->value);
  st->annotation = sub_expr(s, st->annotation);
  st->returns = sub_expr(s, st->returns);
  sub_items(s, st->n_decorators, st->decorators);
  for (int i = 0; i < st->n_params; i++) {
    st->params[i].annotation = sub_expr(s, st->params[i].annotation);
    st->params[i].default_value = sub_expr(s, st->params[i].default_value);
  }
  sub_block(s, &st->body);
  sub_block(s, &st->orelse);
}

static void sub_block(sub_t* s, py_block_t* b) {
  for (int i = 0; i < b->n; i++) sub_stmt(s, b->items[i]);
}

RLX_MUST_USE rlx_status_t* tp_scope_apply(tp_t* p, int n, const rlx_script_binding_t* bindings, py_block_t* top) {
  if (n <= 0) {
    sub_t s = {p->ast, 0, NULL, NULL};
    sub_block(&s, top); /* star splicing of literal tuples still applies */
    return NULL;
  }
  const char** names = rlx_arena_alloc(p->ast, sizeof(char*) * (size_t)n);
  py_expr_t** values = rlx_arena_alloc(p->ast, sizeof(py_expr_t*) * (size_t)n);
  p->scope_vars = RLX_NEW_ARRAY(p->ctx, rlx_var_t*, n);
  if (!names || !values || !p->scope_vars) return rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (parsing)");
  p->n_scope_vars = 0;
  for (int i = 0; i < n; i++) {
    const rlx_script_binding_t* b = &bindings[i];
    if (!b->name || !b->name[0]) return rlx_status_create(RLX_INVALID_ARGUMENT, "scope binding %d: no name", i);
    names[i] = b->name;
    values[i] = NULL;
    if (!b->text) { /* a symbolic variable of the enclosing scope */
      if (!rlx_dtype_is_int(b->var_dtype))
        return rlx_status_create(RLX_INVALID_ARGUMENT, "scope binding '%s': a symbolic variable must be an integer",
                                 b->name);
      p->scope_vars[p->n_scope_vars++] = rlx_ir_var(p->ctx, rlx_ctx_strdup(p->ctx, b->name), b->var_dtype);
      continue;
    }
    char* where = rlx_arena_alloc(p->ast, strlen(b->name) + 32);
    if (!where) return rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (parsing)");
    strcpy(where, "<value of ");
    strcat(where, b->name);
    strcat(where, ">");
    RLX_RETURN_IF_ERROR(py_parse_expression(p->ast, b->text, where, &values[i]));
  }
  sub_t s = {p->ast, n, names, values};
  sub_block(&s, top);
  return NULL;
}

void tp_scope_define(tp_t* p) {
  for (int i = 0; i < p->n_scope_vars; i++) tp_define(p, p->scope_vars[i]->name, SYM_VAR, p->scope_vars[i]);
}
