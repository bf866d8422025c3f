/* TVMScript module level: imports (ir/tir/relax aliases), standalone functions and
 * `@I.ir_module class` bodies, dispatched by decorator to the TIR front end (tir_parser.c)
 * or the Relax one (relax_parser.c). Relax functions are parsed in two passes (all
 * signatures, then bodies) so calls between module functions resolve in any order. */
#include <string.h>

#include "relax_script.h"

static void handle_import(tp_t* p, const py_stmt_t* s) {
  if (!s->module) return;
  if (strcmp(s->module, "tvm.script") != 0 && strcmp(s->module, "tvm") != 0) return;
  for (int i = 0; i < s->n_params; i++) {
    const char* alias = s->params[i].alias ? s->params[i].alias : s->params[i].name;
    if (strcmp(s->params[i].name, "tir") == 0) p->tir_alias = alias;
    else if (strcmp(s->params[i].name, "ir") == 0) p->ir_alias = alias;
    else if (strcmp(s->params[i].name, "relax") == 0) p->relax_alias = alias;
  }
}

typedef RLX_VEC(rs_sig_t*) sig_vec_t;

/* Pass 1 for one def: a PrimFunc is parsed whole; a Relax function's signature is. */
static RLX_MUST_USE rlx_status_t* add_func(tp_t* p, rlx_module_t* m, const py_stmt_t* s, sig_vec_t* sigs) {
  if (rlx_module_find(m, s->name)) return tp_err_at(p, s->span, "expected distinct function names, got '%s' twice", s->name);
  if (rs_is_relax_def(p, p->relax_alias, s)) {
    rs_sig_t* sig;
    RLX_RETURN_IF_ERROR(rs_parse_signature(p, p->relax_alias, m, s, &sig));
    rlx_vec_push(sigs, sig);
    return NULL;
  }
  rlx_tir_func_t* f;
  RLX_RETURN_IF_ERROR(tp_parse_prim_func(p, s, &f));
  rlx_module_set(m, s->name, RLX_FUNC_TIR, f);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_bodies(tp_t* p, rlx_module_t* m, sig_vec_t* sigs) {
  for (int i = 0; i < sigs->len; i++) RLX_RETURN_IF_ERROR(rs_parse_body(p, m, sigs->data[i]));
  sigs->len = 0;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_class(tp_t* p, rlx_module_t* m, const py_stmt_t* s) {
  bool ok = false;
  for (int i = 0; i < s->n_decorators; i++) {
    const char* d = py_dotted_name(p->ast, s->decorators[i]);
    if (!d) continue;
    size_t n = strlen(p->ir_alias);
    if ((strncmp(d, p->ir_alias, n) == 0 && strcmp(d + n, ".ir_module") == 0) || strcmp(d, "tvm.script.ir_module") == 0 ||
        strcmp(d, "ir_module") == 0)
      ok = true;
  }
  if (!ok) return tp_err_at(p, s->span, "expected @I.ir_module on class '%s', got %s", s->name, s->n_decorators ? "another decorator" : "none");
  p->module_name = s->name;
  sig_vec_t sigs = {0};
  rlx_status_t* st = NULL;
  for (int i = 0; !st && i < s->body.n; i++) {
    const py_stmt_t* x = s->body.items[i];
    if (x->kind == PY_S_PASS || (x->kind == PY_S_EXPR && x->value->kind == PY_E_STR)) continue;
    if (x->kind != PY_S_DEF) {
      st = tp_err_at(p, x->span, "expected a @T.prim_func or @R.function function in the module, got %s", tp_stmt_desc(x));
      break;
    }
    st = add_func(p, m, x, &sigs);
  }
  if (!st) st = parse_bodies(p, m, &sigs);
  rlx_vec_free(&sigs);
  p->module_name = NULL;
  return st;
}

/* `metadata = tvm.ir.load_json("""...""")` (TVM prints it first; accepted anywhere at the
 * top level): true when s is that statement. */
static bool is_metadata(tp_t* p, const py_stmt_t* s) {
  if (s->kind != PY_S_ASSIGN || !s->target || s->target->kind != PY_E_NAME || strcmp(s->target->str, "metadata") != 0)
    return false;
  const py_expr_t* v = s->value;
  const char* callee = v && v->kind == PY_E_CALL ? py_dotted_name(p->ast, v->a) : NULL;
  return callee && strcmp(callee, "tvm.ir.load_json") == 0;
}

static RLX_MUST_USE rlx_status_t* load_metadata(tp_t* p, const py_stmt_t* s) {
  if (p->has_meta) return tp_err_at(p, s->span, "expected one metadata section, got a second");
  const py_expr_t* v = s->value;
  if (v->n != 1 || v->n_kw || v->items[0]->kind != PY_E_STR)
    return tp_err_at(p, s->span, "tvm.ir.load_json: expected one string (the JSON of the metadata)");
  rs_meta_t meta = {{0}};
  rlx_status_t* st = rs_metadata_load(p->ctx, v->items[0]->str, v->items[0]->span, &meta);
  if (!st) {
    p->n_meta = meta.consts.len;
    p->meta = RLX_NEW_ARRAY(p->ctx, const rlx_relax_constant_t*, meta.consts.len > 0 ? meta.consts.len : 1);
    for (int i = 0; i < meta.consts.len; i++) p->meta[i] = meta.consts.data[i];
    p->has_meta = true;
  }
  rlx_vec_free(&meta.consts);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_script_parse(rlx_ctx_t* ctx, const char* text, const char* filename, rlx_module_t** out) {
  return rlx_script_parse_scope(ctx, text, filename, 0, NULL, out);
}

RLX_MUST_USE rlx_status_t* rlx_script_parse_scope(rlx_ctx_t* ctx, const char* text, const char* filename,
                                                  int n_bindings, const rlx_script_binding_t* bindings,
                                                  rlx_module_t** out) {
  if (!ctx || !out || (n_bindings > 0 && !bindings))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "rlx_script_parse: NULL argument");
  uint64_t mark = rlx_alloc_failures(); /* the parse fails when an allocation did */
  rlx_arena_t arena;
  if (!rlx_arena_init(&arena)) return rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (parsing)");
  py_block_t top;
  const char* file = filename ? filename : "<string>";
  rlx_status_t* st = py_parse(&arena, text ? text : "", file, &top);
  tp_t p = {0};
  p.ctx = ctx;
  p.ast = &arena;
  p.file = file;
  p.tir_alias = "T";
  p.ir_alias = "I";
  p.relax_alias = "R";
  if (!st) st = tp_scope_apply(&p, n_bindings, bindings, &top);
  rlx_module_t* m = rlx_module_create(ctx);
  sig_vec_t sigs = {0};
  int n_defs = 0;
  for (int i = 0; !st && i < top.n; i++)
    if (is_metadata(&p, top.items[i])) st = load_metadata(&p, top.items[i]);
  for (int i = 0; !st && i < top.n; i++) {
    const py_stmt_t* s = top.items[i];
    if (is_metadata(&p, s)) continue;
    switch (s->kind) {
      case PY_S_IMPORT: handle_import(&p, s); break;
      case PY_S_DEF:
        st = add_func(&p, m, s, &sigs);
        n_defs++;
        break;
      case PY_S_CLASS:
        st = parse_class(&p, m, s);
        n_defs++;
        break;
      case PY_S_PASS: break;
      case PY_S_EXPR:
        if (s->value->kind == PY_E_STR) break;
        /* fallthrough */
      default:
        st = tp_err_at(&p, s->span, "expected a @T.prim_func or @R.function function or an @I.ir_module class, got %s",
                       tp_stmt_desc(s));
        break;
    }
  }
  if (!st) st = parse_bodies(&p, m, &sigs);
  if (!st && n_defs == 0) {
    rlx_span_t sp = {file, 1, 1};
    st = rlx_error(RLX_PARSE_ERROR, sp, "expected a @T.prim_func or @R.function function or an @I.ir_module class, got end of file");
  }
  rlx_vec_free(&sigs);
  rlx_vec_free(&p.syms);
  rlx_vec_free(&p.loops);
  rlx_arena_free(&arena);
  st = rlx_ctx_check(ctx, mark, st);
  if (st) return st;
  *out = m;
  return NULL;
}
