/* TIR script builder, statement half: interprets the generic Python AST (pyast.h) as
 * TVMScript TIR — @T.prim_func functions (parse.c handles modules), buffers, loops, blocks —
 * and builds the IR with the constructors of tir/tir.h. Follows TVM's parser: params
 * `A: T.Buffer(...)` or `a: T.handle` + `T.match_buffer`, an implicit root block when the
 * body has blocks or root allocations, read/write regions inferred when omitted. The def
 * name is the function's name (= global symbol in rlx). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tir_parse.h"

typedef RLX_VEC(rlx_buffer_region_t) region_vec_t;
typedef RLX_VEC(rlx_tir_buffer_t*) buffer_vec_t;
typedef RLX_VEC(const char*) str_vec_t;
typedef RLX_VEC(rlx_expr_t*) expr_vec_t;

typedef struct {
  RLX_VEC(rlx_iter_var_t*) ivs;
  expr_vec_t vals;
  bool has_reads, has_writes;
  region_vec_t reads, writes;
  rlx_expr_t* pred;
  buffer_vec_t allocs;
  str_vec_t ann_keys;
  expr_vec_t ann_vals;
  rlx_tir_stmt_t* init;
  bool has_init;
} blk_t;

typedef struct {
  int n_params;
  rlx_var_t** params;
  rlx_tir_buffer_t** bmap;
  str_vec_t attr_keys;
  expr_vec_t attr_vals;
  buffer_vec_t allocs;
} fn_t;

typedef enum { CTX_FUNC, CTX_BLOCK, CTX_OTHER } ctx_kind_t;
typedef struct {
  ctx_kind_t kind;
  fn_t* fn;
  blk_t* blk;
} sctx_t;

static RLX_MUST_USE rlx_status_t* parse_stmts(tp_t* p, const py_block_t* b, int start, sctx_t c, rlx_tir_stmt_t** out);

static rlx_tir_stmt_t* or_nop(tp_t* p, rlx_tir_stmt_t* s) { return s ? s : rlx_tir_evaluate(p->ctx, rlx_ir_i32(p->ctx, 0)); }

const char* tp_stmt_desc(const py_stmt_t* s) {
  switch (s->kind) {
    case PY_S_EXPR: return "an expression statement";
    case PY_S_ASSIGN: return "an assignment";
    case PY_S_ANNASSIGN: return "an annotated assignment";
    case PY_S_AUGASSIGN: return "an augmented assignment";
    case PY_S_FOR: return "'for'";
    case PY_S_WITH: return "'with'";
    case PY_S_IF: return "'if'";
    case PY_S_WHILE: return "'while'";
    case PY_S_DEF: return "'def'";
    case PY_S_CLASS: return "'class'";
    case PY_S_RETURN: return "'return'";
    case PY_S_PASS: return "'pass'";
    case PY_S_IMPORT: return "'import'";
    case PY_S_ASSERT: return "'assert'";
  }
  return "a statement";
}

/* Buffer from T.Buffer / T.alloc_buffer / T.match_buffer / T.decl_buffer arguments,
 * starting at positional index `first` (shape, dtype) plus keywords. */
static RLX_MUST_USE rlx_status_t* make_buffer(tp_t* p, const py_expr_t* call, int first, const char* name, rlx_tir_buffer_t** out) {
  const py_expr_t* shape_e = tp_arg(call, first, "shape");
  if (!shape_e) return tp_err(p, call, "expected a shape argument, got none");
  int n;
  rlx_expr_t** shape;
  RLX_RETURN_IF_ERROR(tp_shape(p, shape_e, &n, &shape));
  rlx_dtype_t dt = rlx_dt_float32();
  const py_expr_t* dte = tp_arg(call, first + 1, "dtype");
  if (dte) RLX_RETURN_IF_ERROR(tp_dtype(p, dte, &dt));
  const char* scope = "global";
  const py_expr_t* sc = tp_arg(call, -1, "scope");
  if (sc) {
    if (sc->kind != PY_E_STR) return tp_err(p, sc, "expected a scope string such as \"local\", got an expression");
    scope = sc->str;
  }
  rlx_tir_buffer_t* b = rlx_tir_buffer_create(p->ctx, name, dt, n, shape, scope);
  const py_expr_t* strides = tp_arg(call, -1, "strides");
  if (strides) {
    int ns;
    rlx_expr_t** sv;
    RLX_RETURN_IF_ERROR(tp_shape(p, strides, &ns, &sv));
    if (ns != n) return tp_err(p, strides, "expected %d strides, got %d", n, ns);
    b->strides = sv;
  }
  const py_expr_t* off = tp_arg(call, -1, "elem_offset");
  if (off) RLX_RETURN_IF_ERROR(tp_eval(p, off, &b->elem_offset));
  const py_expr_t* data = tp_arg(call, -1, "data");
  if (data) {
    rlx_expr_t* d;
    RLX_RETURN_IF_ERROR(tp_eval(p, data, &d));
    if (d->kind != RLX_EXPR_VAR) return tp_err(p, data, "expected a data pointer variable, got an expression");
    b->data = RLX_AS(rlx_var_t, d);
  }
  for (int k = 0; k < call->n_kw; k++) {
    static const char* const known[] = {"shape", "dtype", "scope", "strides", "elem_offset", "data",
                                        "align", "offset_factor", "buffer_type", "axis_separators", NULL};
    bool ok = false;
    for (int j = 0; known[j]; j++) ok = ok || strcmp(call->kw_names[k], known[j]) == 0;
    if (!ok) return tp_err(p, call->kw_values[k], "expected a buffer keyword (dtype, scope, strides, ...), got '%s'", call->kw_names[k]);
  }
  *out = b;
  return NULL;
}

/* An attribute value: a PrimExpr, True/False, or (as TVM allows in T.func_attr and
 * T.block_attr) a list or a string-keyed dict of values, held as calls of the pseudo-ops
 * RLX_TIR_ATTR_LIST (the items) and RLX_TIR_ATTR_DICT (key, value, key, value, ...), or a
 * buffer (RLX_TIR_ATTR_BUFFER of its data var). */
static RLX_MUST_USE rlx_status_t* attr_value(tp_t* p, const py_expr_t* v, rlx_expr_t** out) {
  sym_t* bs = v->kind == PY_E_NAME ? tp_lookup(p, v->str) : NULL;
  if (bs && bs->kind == SYM_BUFFER) { /* a buffer: {"layout_free_placeholders": [B]} */
    rlx_tir_buffer_t* b = bs->ptr;
    *out = rlx_ir_call(p->ctx, rlx_dt_int32(), RLX_TIR_ATTR_BUFFER, 1, (rlx_expr_t*[]){&b->data->hdr});
    return NULL;
  }
  if (v->kind == PY_E_CONST && strcmp(v->str, "None") != 0) {
    *out = rlx_ir_bool(p->ctx, strcmp(v->str, "True") == 0);
    return NULL;
  }
  if (v->kind == PY_E_LIST || v->kind == PY_E_TUPLE || v->kind == PY_E_DICT) {
    bool dict = v->kind == PY_E_DICT;
    int n = dict ? 2 * v->n : v->n;
    rlx_expr_t** items = RLX_NEW_ARRAY(p->ctx, rlx_expr_t*, n > 0 ? n : 1);
    for (int i = 0; i < v->n; i++) {
      if (!dict) {
        RLX_RETURN_IF_ERROR(attr_value(p, v->items[i], &items[i]));
        continue;
      }
      if (v->items[i]->kind != PY_E_STR) return tp_err(p, v->items[i], "expected a string key, got an expression");
      items[2 * i] = rlx_ir_string(p->ctx, v->items[i]->str);
      RLX_RETURN_IF_ERROR(attr_value(p, v->kw_values[i], &items[2 * i + 1]));
    }
    *out = rlx_ir_call(p->ctx, rlx_dt_int32(), dict ? RLX_TIR_ATTR_DICT : RLX_TIR_ATTR_LIST, n, items);
    return NULL;
  }
  return tp_eval(p, v, out);
}

static RLX_MUST_USE rlx_status_t* parse_dict_attrs(tp_t* p, const py_expr_t* call, const char* fn, str_vec_t* keys, expr_vec_t* vals) {
  if (call->n != 1 || call->items[0]->kind != PY_E_DICT)
    return tp_err(p, call, "expected a dict argument to T.%s, got %d argument%s of another form", fn, call->n,
                  call->n == 1 ? "" : "s");
  const py_expr_t* d = call->items[0];
  for (int i = 0; i < d->n; i++) {
    if (d->items[i]->kind != PY_E_STR) return tp_err(p, d->items[i], "expected a string key, got an expression");
    rlx_expr_t* v;
    RLX_RETURN_IF_ERROR(attr_value(p, d->kw_values[i], &v));
    const char* k = rlx_ctx_strdup(p->ctx, d->items[i]->str);
    bool replaced = false;
    for (int j = 0; j < keys->len; j++)
      if (strcmp(keys->data[j], k) == 0) {
        vals->data[j] = v;
        replaced = true;
      }
    if (!replaced) {
      rlx_vec_push(keys, k);
      rlx_vec_push(vals, v);
    }
  }
  return NULL;
}

/* ------------------------------------------------------------------ blocks */
static RLX_MUST_USE rlx_status_t* axis_single(tp_t* p, const py_expr_t* target, const py_expr_t* call, const char* fn, blk_t* bk) {
  rlx_iter_kind_t kind;
  if (strcmp(fn, "axis.spatial") == 0 || strcmp(fn, "axis.S") == 0) kind = RLX_ITER_SPATIAL;
  else if (strcmp(fn, "axis.reduce") == 0 || strcmp(fn, "axis.R") == 0) kind = RLX_ITER_REDUCE;
  else return tp_err(p, call, "expected T.axis.spatial, T.axis.reduce or T.axis.remap, got T.%s", fn);
  if (target->kind != PY_E_NAME) return tp_err(p, target, "expected a variable name, got an expression");
  const py_expr_t* dom = tp_arg(call, 0, "dom");
  const py_expr_t* bind = tp_arg(call, 1, "binding");
  if (!dom || !bind || call->n > 2) return tp_err(p, call, "expected 2 arguments to T.%s (dom, binding), got %d", fn, call->n + call->n_kw);
  rlx_expr_t *mn, *ext, *val;
  if (dom->kind == PY_E_TUPLE || dom->kind == PY_E_LIST) {
    if (dom->n != 2) return tp_err(p, dom, "expected a (min, max) pair as the domain, got %d elements", dom->n);
    rlx_expr_t* mx;
    RLX_RETURN_IF_ERROR(tp_eval(p, dom->items[0], &mn));
    RLX_RETURN_IF_ERROR(tp_eval(p, dom->items[1], &mx));
    ext = tp_extent(p, mn, mx);
  } else {
    RLX_RETURN_IF_ERROR(tp_eval(p, dom, &ext));
    mn = rlx_ir_int(p->ctx, ext->dtype, 0);
  }
  if (!rlx_dtype_is_int(ext->dtype)) return tp_err(p, dom, "expected an integer domain, got a non-integer");
  RLX_RETURN_IF_ERROR(tp_eval(p, bind, &val));
  int bits = 32;
  if (mn->dtype.bits > bits) bits = mn->dtype.bits;
  if (ext->dtype.bits > bits) bits = ext->dtype.bits;
  const py_expr_t* dte = tp_arg(call, -1, "dtype");
  if (dte) {
    rlx_dtype_t d;
    RLX_RETURN_IF_ERROR(tp_dtype(p, dte, &d));
    if (d.bits > bits) bits = d.bits;
  }
  rlx_var_t* v = rlx_ir_var(p->ctx, target->str, rlx_dtype(RLX_DT_INT, bits, 1));
  rlx_vec_push(&bk->ivs, rlx_tir_iter_var(p->ctx, v, mn, ext, kind));
  rlx_vec_push(&bk->vals, val);
  tp_define(p, target->str, SYM_VAR, v);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* axis_remap(tp_t* p, const py_expr_t* target, const py_expr_t* call, blk_t* bk) {
  if (call->n != 2 || call->items[0]->kind != PY_E_STR ||
      (call->items[1]->kind != PY_E_LIST && call->items[1]->kind != PY_E_TUPLE))
    return tp_err(p, call, "expected T.axis.remap(\"SR...\", [loop vars]), got another form");
  const char* kinds = call->items[0]->str;
  const py_expr_t* binds = call->items[1];
  int nt = target->kind == PY_E_TUPLE ? target->n : 1;
  if ((int)strlen(kinds) != binds->n)
    return tp_err(p, call->items[0], "expected %d iter kinds for %d bindings, got %d", binds->n, binds->n, (int)strlen(kinds));
  if (nt != binds->n) return tp_err(p, target, "expected %d variables on the left of T.axis.remap, got %d", binds->n, nt);
  for (int i = 0; i < binds->n; i++) {
    const py_expr_t* t = target->kind == PY_E_TUPLE ? target->items[i] : target;
    if (t->kind != PY_E_NAME) return tp_err(p, t, "expected a variable name, got an expression");
    char k = kinds[i];
    if (k != 'S' && k != 'R') return tp_err(p, call->items[0], "expected iter kind 'S' or 'R', got '%c'", k);
    rlx_expr_t* bv;
    RLX_RETURN_IF_ERROR(tp_eval(p, binds->items[i], &bv));
    const loop_dom_t* dom = NULL;
    for (int j = p->loops.len - 1; j >= 0 && !dom; j--)
      if (&p->loops.data[j].var->hdr == bv) dom = &p->loops.data[j];
    if (!dom) return tp_err(p, binds->items[i], "expected a loop variable in T.axis.remap, got an expression that is not one");
    rlx_var_t* v = rlx_ir_var(p->ctx, t->str, bv->dtype);
    rlx_vec_push(&bk->ivs, rlx_tir_iter_var(p->ctx, v, dom->min, dom->extent, k == 'S' ? RLX_ITER_SPATIAL : RLX_ITER_REDUCE));
    rlx_vec_push(&bk->vals, bv);
    tp_define(p, t->str, SYM_VAR, v);
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* regions(tp_t* p, const py_expr_t* call, region_vec_t* out) {
  for (int i = 0; i < call->n; i++) {
    const py_expr_t* a = call->items[i];
    int n = (a->kind == PY_E_LIST || a->kind == PY_E_TUPLE) ? a->n : 1;
    for (int j = 0; j < n; j++) {
      const py_expr_t* r = (a->kind == PY_E_LIST || a->kind == PY_E_TUPLE) ? a->items[j] : a;
      rlx_buffer_region_t reg;
      RLX_RETURN_IF_ERROR(tp_region(p, r, &reg));
      rlx_vec_push(out, reg);
    }
  }
  return NULL;
}

static void blk_free(blk_t* b) {
  rlx_vec_free(&b->ivs);
  rlx_vec_free(&b->vals);
  rlx_vec_free(&b->reads);
  rlx_vec_free(&b->writes);
  rlx_vec_free(&b->allocs);
  rlx_vec_free(&b->ann_keys);
  rlx_vec_free(&b->ann_vals);
}

#define DUPV(v) rlx_arena_memdup(&p->ctx->arena, (v).data, sizeof(*(v).data) * (size_t)(v).len)

static RLX_MUST_USE rlx_status_t* parse_block(tp_t* p, const py_stmt_t* w, const py_expr_t* call, sctx_t c, rlx_tir_stmt_t** out) {
  const py_expr_t* ne = tp_arg(call, 0, "name_hint");
  if (ne && ne->kind != PY_E_STR) return tp_err(p, ne, "expected a block name string, got an expression");
  const char* name = ne ? ne->str : "";
  p->contains_block = true;
  blk_t bk = {0};
  tp_frame_push(p);
  rlx_tir_stmt_t* body = NULL;
  sctx_t inner = {CTX_BLOCK, c.fn, &bk};
  rlx_status_t* st = parse_stmts(p, &w->body, 0, inner, &body);
  if (!st) {
    rlx_tir_block_t* b = RLX_NEW(p->ctx, rlx_tir_block_t);
    b->name = rlx_ctx_strdup(p->ctx, name);
    b->n_iter_vars = bk.ivs.len;
    b->iter_vars = DUPV(bk.ivs);
    b->init = bk.init;
    b->body = or_nop(p, body);
    b->n_alloc_buffers = bk.allocs.len;
    b->alloc_buffers = DUPV(bk.allocs);
    b->n_annotations = bk.ann_keys.len;
    b->annotation_keys = DUPV(bk.ann_keys);
    b->annotation_values = DUPV(bk.ann_vals);
    bool is_root = strcmp(name, "root") == 0 && bk.ivs.len == 0;
    int nr = 0, nw = 0;
    rlx_buffer_region_t *rr = NULL, *ww = NULL;
    if ((!bk.has_reads || !bk.has_writes) && !is_root)
      tp_infer_access(p, b->body, b->init, b->n_alloc_buffers, b->alloc_buffers, &nr, &rr, &nw, &ww);
    if (bk.has_reads) {
      b->n_reads = bk.reads.len;
      b->reads = DUPV(bk.reads);
    } else if (!is_root) {
      b->n_reads = nr;
      b->reads = rr;
    }
    if (bk.has_writes) {
      b->n_writes = bk.writes.len;
      b->writes = DUPV(bk.writes);
    } else if (!is_root) {
      b->n_writes = nw;
      b->writes = ww;
    }
    *out = rlx_tir_block_realize(p->ctx, bk.vals.len, bk.vals.data, bk.pred, b);
  }
  tp_frame_pop(p);
  blk_free(&bk);
  return st;
}

/* ------------------------------------------------------------------ loops */
static RLX_MUST_USE rlx_status_t* parse_for(tp_t* p, const py_stmt_t* s, sctx_t c, rlx_tir_stmt_t** out) {
  const py_expr_t* it = s->value;
  if (it->kind != PY_E_CALL) return tp_err(p, it, "expected range(...) or T.grid/serial/parallel/vectorized/unroll(...), got an expression");
  const char* d = py_dotted_name(p->ast, it->a);
  const char* fn = tp_tname(p, it->a);
  rlx_for_kind_t kind = RLX_FOR_SERIAL;
  bool grid = false;
  if (d && strcmp(d, "range") == 0) kind = RLX_FOR_SERIAL;
  else if (fn && strcmp(fn, "serial") == 0) kind = RLX_FOR_SERIAL;
  else if (fn && strcmp(fn, "parallel") == 0) kind = RLX_FOR_PARALLEL;
  else if (fn && strcmp(fn, "vectorized") == 0) kind = RLX_FOR_VECTORIZED;
  else if (fn && strcmp(fn, "unroll") == 0) kind = RLX_FOR_UNROLLED;
  else if (fn && strcmp(fn, "grid") == 0) grid = true;
  else if (fn && strcmp(fn, "thread_binding") == 0) return tp_err(p, it, "expected a CPU loop kind, got unsupported T.thread_binding");
  else return tp_err(p, it, "expected range(...) or T.grid/serial/parallel/vectorized/unroll(...), got %s(...)", d ? d : "a call");
  if (it->n_kw) return tp_err(p, it, "expected no keyword arguments to the loop (annotations are not supported), got '%s'", it->kw_names[0]);
  int n_items = it->n;
  rlx_expr_t** items = NULL; /* evaluated T.grid extents, `*B.shape` expanded */
  if (grid) RLX_RETURN_IF_ERROR(tp_eval_items(p, it, &n_items, &items));
  int n = grid ? n_items : 1;
  int nt = s->target->kind == PY_E_TUPLE ? s->target->n : 1;
  if (grid && n == 0) return tp_err(p, it, "expected at least 1 extent in T.grid, got 0");
  if (!grid && (it->n < 1 || it->n > 2)) return tp_err(p, it, "expected 1 or 2 arguments to the loop range, got %d", it->n);
  if (nt != n) return tp_err(p, s->target, "expected %d loop variable%s, got %d", n, n == 1 ? "" : "s", nt);
  loop_dom_t* doms = RLX_NEW_ARRAY(p->ctx, loop_dom_t, n);
  for (int i = 0; i < n; i++) {
    const py_expr_t* t = s->target->kind == PY_E_TUPLE ? s->target->items[i] : s->target;
    if (t->kind != PY_E_NAME) return tp_err(p, t, "expected a loop variable name, got an expression");
    rlx_expr_t *mn, *ext;
    if (grid || it->n == 1) {
      if (grid)
        ext = items[i];
      else
        RLX_RETURN_IF_ERROR(tp_eval(p, it->items[0], &ext));
      if (!rlx_dtype_is_int(ext->dtype)) return tp_err(p, it, "expected an integer loop extent, got a non-integer");
      mn = rlx_ir_int(p->ctx, ext->dtype, 0);
    } else {
      rlx_expr_t* stop;
      RLX_RETURN_IF_ERROR(tp_eval(p, it->items[0], &mn));
      RLX_RETURN_IF_ERROR(tp_eval(p, it->items[1], &stop));
      if (!rlx_dtype_is_int(mn->dtype) || !rlx_dtype_is_int(stop->dtype))
        return tp_err(p, it, "expected integer loop bounds, got a non-integer");
      int bits = mn->dtype.bits > stop->dtype.bits ? mn->dtype.bits : stop->dtype.bits;
      rlx_dtype_t t2 = rlx_dtype(RLX_DT_INT, bits, 1);
      mn = rlx_ir_cast(p->ctx, t2, mn);
      stop = rlx_ir_cast(p->ctx, t2, stop);
      ext = tp_extent(p, mn, stop);
    }
    doms[i].var = rlx_ir_var(p->ctx, t->str, ext->dtype);
    doms[i].min = rlx_ir_cast(p->ctx, ext->dtype, mn);
    doms[i].extent = ext;
  }
  tp_frame_push(p);
  int n_loops = p->loops.len; /* restored after the body (a push may have failed) */
  for (int i = 0; i < n; i++) {
    tp_define(p, doms[i].var->name, SYM_VAR, doms[i].var);
    rlx_vec_push(&p->loops, doms[i]);
  }
  rlx_tir_stmt_t* body = NULL;
  sctx_t inner = {CTX_OTHER, c.fn, NULL};
  rlx_status_t* st = parse_stmts(p, &s->body, 0, inner, &body);
  p->loops.len = n_loops;
  tp_frame_pop(p);
  if (st) return st;
  if (s->orelse.n) return tp_err_at(p, s->span, "expected a loop without 'else', got for-else");
  body = or_nop(p, body);
  for (int i = n - 1; i >= 0; i--) body = rlx_tir_for(p->ctx, doms[i].var, doms[i].min, doms[i].extent, kind, body);
  *out = body;
  return NULL;
}

/* ------------------------------------------------------------------ statements */
static bool is_call_to(tp_t* p, const py_expr_t* e, const char* fn) {
  if (!e || e->kind != PY_E_CALL) return false;
  const char* n = tp_tname(p, e->a);
  return n && strcmp(n, fn) == 0;
}

/* Rest of the block as the body of a scoping statement (LetStmt, decl_buffer). */
static RLX_MUST_USE rlx_status_t* rest_body(tp_t* p, const py_block_t* b, int i, sctx_t c, rlx_tir_stmt_t** out) {
  enum { MAX_SCOPE_NEST = 1000 }; /* bounds recursion here and in every pass over the IR */
  if (p->scope_nest >= MAX_SCOPE_NEST)
    return tp_err_at(p, b->items[i]->span, "expected at most %d nested let/decl_buffer statements in one block, got more",
                     MAX_SCOPE_NEST);
  rlx_tir_stmt_t* body = NULL;
  p->scope_nest++;
  rlx_status_t* st = parse_stmts(p, b, i + 1, c, &body);
  p->scope_nest--;
  RLX_RETURN_IF_ERROR(st);
  *out = or_nop(p, body);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* store(tp_t* p, const py_expr_t* target, rlx_expr_t* value, rlx_tir_stmt_t** out) {
  rlx_tir_buffer_t* b;
  RLX_RETURN_IF_ERROR(tp_buffer(p, target->a, &b));
  int n;
  rlx_expr_t** idx;
  RLX_RETURN_IF_ERROR(tp_indices(p, target, b, &n, &idx));
  if (value->kind == RLX_EXPR_STRING_IMM) return tp_err(p, target, "expected a numeric value to store, got a string");
  if (value->dtype.code != b->dtype.code || value->dtype.bits != b->dtype.bits)
    value = rlx_ir_cast(p->ctx, rlx_dtype_with_lanes(b->dtype, value->dtype.lanes), value);
  *out = rlx_tir_store(p->ctx, b, value, n, idx);
  return NULL;
}

/* `name = <rhs>` where rhs may declare something; *consumed when the rest of the block
 * became the body of the produced statement. */
static RLX_MUST_USE rlx_status_t* assign_name(tp_t* p, const py_block_t* blk, int i, const py_expr_t* target, const py_expr_t* v,
                                              sctx_t c, rlx_tir_stmt_t** out, bool* consumed) {
  const char* name = target->str;
  const char* fn = v->kind == PY_E_CALL ? tp_tname(p, v->a) : NULL;
  rlx_dtype_t dt;
  if (fn && strncmp(fn, "axis.", 5) == 0) {
    if (c.kind != CTX_BLOCK) return tp_err(p, v, "expected T.%s directly inside a T.block, got it elsewhere", fn);
    if (strcmp(fn, "axis.remap") == 0) return axis_remap(p, target, v, c.blk);
    return axis_single(p, target, v, fn, c.blk);
  }
  if (fn && ((rlx_dtype_parse(fn, &dt) && v->n == 0) || strcmp(fn, "var") == 0)) {
    if (strcmp(fn, "var") == 0) {
      if (v->n != 1) return tp_err(p, v, "expected 1 argument to T.var (the dtype), got %d", v->n);
      RLX_RETURN_IF_ERROR(tp_dtype(p, v->items[0], &dt));
    }
    tp_define(p, name, SYM_VAR, rlx_ir_var(p->ctx, name, dt));
    return NULL;
  }
  if (fn && strcmp(fn, "match_buffer") == 0) {
    if (c.kind != CTX_FUNC) return tp_err(p, v, "expected T.match_buffer at function level, got it inside a statement");
    const py_expr_t* src = tp_arg(v, 0, "param");
    if (!src || src->kind != PY_E_NAME) return tp_err(p, v, "expected a handle parameter as the first argument of T.match_buffer, got %s", src ? "an expression" : "none");
    sym_t* s = tp_lookup(p, src->str);
    int idx = -1;
    for (int k = 0; s && k < c.fn->n_params; k++)
      if (s->kind == SYM_VAR && s->ptr == c.fn->params[k]) idx = k;
    if (idx < 0) return tp_err(p, src, "expected a handle parameter of the function, got '%s'", src->str);
    if (c.fn->params[idx]->hdr.dtype.code != RLX_DT_HANDLE) return tp_err(p, src, "expected a T.handle parameter, got scalar '%s'", src->str);
    if (c.fn->bmap[idx]) return tp_err(p, src, "expected one T.match_buffer per parameter, got a second one for '%s'", src->str);
    rlx_tir_buffer_t* b;
    RLX_RETURN_IF_ERROR(make_buffer(p, v, 1, name, &b));
    b->data = c.fn->params[idx];
    c.fn->bmap[idx] = b;
    tp_define(p, name, SYM_BUFFER, b);
    return NULL;
  }
  if (fn && strcmp(fn, "alloc_buffer") == 0) {
    rlx_tir_buffer_t* b;
    RLX_RETURN_IF_ERROR(make_buffer(p, v, 0, name, &b));
    if (c.kind == CTX_FUNC) rlx_vec_push(&c.fn->allocs, b);
    else if (c.kind == CTX_BLOCK) rlx_vec_push(&c.blk->allocs, b);
    else return tp_err(p, v, "expected T.alloc_buffer at function or block level, got it inside a loop or branch");
    tp_define(p, name, SYM_BUFFER, b);
    return NULL;
  }
  if (fn && strcmp(fn, "Buffer") == 0) {
    rlx_tir_buffer_t* b;
    RLX_RETURN_IF_ERROR(make_buffer(p, v, 0, name, &b));
    tp_define(p, name, SYM_BUFFER, b);
    return NULL;
  }
  if (fn && strcmp(fn, "allocate") == 0) {
    /* TVM's lowered `X = T.allocate([n], "float32", "global")`: X is the data pointer, read
     * through `X_1 = T.Buffer((n,), data=X)`. Becomes an rlx Allocate of a buffer over X. */
    const py_expr_t* ext = tp_arg(v, 0, "extents");
    const py_expr_t* dte = tp_arg(v, 1, "dtype");
    const py_expr_t* sce = tp_arg(v, 2, "scope");
    if (!ext || !dte) return tp_err(p, v, "expected T.allocate(extents, dtype, scope), got %d arguments", v->n + v->n_kw);
    int n;
    rlx_expr_t** shape;
    RLX_RETURN_IF_ERROR(tp_shape(p, ext, &n, &shape));
    RLX_RETURN_IF_ERROR(tp_dtype(p, dte, &dt));
    if (sce && sce->kind != PY_E_STR) return tp_err(p, sce, "expected a scope string such as \"local\", got an expression");
    rlx_tir_buffer_t* b = rlx_tir_buffer_create(p->ctx, name, dt, n, shape, sce ? sce->str : "global");
    tp_frame_push(p);
    tp_define(p, name, SYM_VAR, b->data);
    rlx_tir_stmt_t* body = NULL;
    rlx_status_t* st = rest_body(p, blk, i, c, &body);
    tp_frame_pop(p);
    if (st) return st;
    *out = rlx_tir_allocate(p->ctx, b, body);
    *consumed = true;
    return NULL;
  }
  if (fn && strcmp(fn, "decl_buffer") == 0) {
    rlx_tir_buffer_t* b;
    RLX_RETURN_IF_ERROR(make_buffer(p, v, 0, name, &b));
    tp_frame_push(p);
    tp_define(p, name, SYM_BUFFER, b);
    rlx_tir_stmt_t* body = NULL;
    rlx_status_t* st = rest_body(p, blk, i, c, &body);
    tp_frame_pop(p);
    if (st) return st;
    *out = rlx_tir_allocate(p->ctx, b, body);
    *consumed = true;
    return NULL;
  }
  /* x = value: a LetStmt over the rest of the block (as TVM's parser does). */
  rlx_expr_t* val;
  RLX_RETURN_IF_ERROR(tp_eval(p, v, &val));
  rlx_var_t* var = rlx_ir_var(p->ctx, name, val->dtype);
  tp_frame_push(p);
  tp_define(p, name, SYM_VAR, var);
  rlx_tir_stmt_t* body = NULL;
  rlx_status_t* st = rest_body(p, blk, i, c, &body);
  tp_frame_pop(p);
  if (st) return st;
  *out = rlx_tir_let(p->ctx, var, val, body);
  *consumed = true;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_with(tp_t* p, const py_stmt_t* s, sctx_t c, rlx_tir_stmt_t** out) {
  const py_expr_t* v = s->value;
  const char* fn = v->kind == PY_E_CALL ? tp_tname(p, v->a) : NULL;
  if (fn && strcmp(fn, "block") == 0) {
    if (s->target) return tp_err(p, s->target, "expected `with T.block(...):` without 'as', got a target");
    return parse_block(p, s, v, c, out);
  }
  if (fn && strcmp(fn, "init") == 0) {
    if (c.kind != CTX_BLOCK) return tp_err(p, v, "expected T.init() directly inside a T.block, got it elsewhere");
    if (c.blk->has_init) return tp_err(p, v, "expected one T.init() per block, got a second one");
    tp_frame_push(p);
    rlx_tir_stmt_t* body = NULL;
    sctx_t inner = {CTX_OTHER, c.fn, NULL};
    rlx_status_t* st = parse_stmts(p, &s->body, 0, inner, &body);
    tp_frame_pop(p);
    if (st) return st;
    c.blk->init = or_nop(p, body);
    c.blk->has_init = true;
    *out = NULL;
    return NULL;
  }
  if (fn && (strcmp(fn, "LetStmt") == 0 || strcmp(fn, "decl_buffer") == 0)) {
    const py_expr_t* var_kw = tp_arg(v, -1, "var");
    const py_expr_t* t = s->target ? s->target : var_kw;
    if (!t || t->kind != PY_E_NAME) return tp_err(p, v, "expected `with T.%s(...) as name:`, got no name", fn);
    tp_frame_push(p);
    rlx_status_t* st = NULL;
    rlx_var_t* var = NULL;
    rlx_tir_buffer_t* b = NULL;
    if (fn[0] == 'L') {
      rlx_expr_t* val = NULL;
      if (v->n < 1) st = tp_err(p, v, "expected 1 argument to T.LetStmt (the value), got 0");
      if (!st) st = tp_eval(p, v->items[0], &val);
      if (!st) {
        sym_t* sym = var_kw ? tp_lookup(p, var_kw->str) : NULL;
        var = sym && sym->kind == SYM_VAR ? sym->ptr : rlx_ir_var(p->ctx, t->str, val->dtype);
        tp_define(p, t->str, SYM_VAR, var);
        rlx_tir_stmt_t* body = NULL;
        sctx_t inner = {CTX_OTHER, c.fn, NULL};
        st = parse_stmts(p, &s->body, 0, inner, &body);
        if (!st) *out = rlx_tir_let(p->ctx, var, val, or_nop(p, body));
      }
    } else {
      st = make_buffer(p, v, 0, t->str, &b);
      if (!st) {
        tp_define(p, t->str, SYM_BUFFER, b);
        rlx_tir_stmt_t* body = NULL;
        sctx_t inner = {CTX_OTHER, c.fn, NULL};
        st = parse_stmts(p, &s->body, 0, inner, &body);
        if (!st) *out = rlx_tir_allocate(p->ctx, b, or_nop(p, body));
      }
    }
    tp_frame_pop(p);
    return st;
  }
  const char* d = py_dotted_name(p->ast, v->kind == PY_E_CALL ? v->a : v);
  return tp_err(p, v, "expected T.block, T.init, T.LetStmt or T.decl_buffer after 'with', got %s", d ? d : "an expression");
}

static RLX_MUST_USE rlx_status_t* parse_expr_stmt(tp_t* p, const py_stmt_t* s, sctx_t c, rlx_tir_stmt_t** out) {
  const py_expr_t* v = s->value;
  const char* fn = v->kind == PY_E_CALL ? tp_tname(p, v->a) : NULL;
  *out = NULL;
  if (v->kind == PY_E_STR) return NULL; /* docstring */
  if (fn && strcmp(fn, "func_attr") == 0) {
    if (c.kind != CTX_FUNC) return tp_err(p, v, "expected T.func_attr at function level, got it inside a statement");
    return parse_dict_attrs(p, v, fn, &c.fn->attr_keys, &c.fn->attr_vals);
  }
  if (fn && (strcmp(fn, "reads") == 0 || strcmp(fn, "writes") == 0 || strcmp(fn, "where") == 0 ||
             strcmp(fn, "block_attr") == 0)) {
    if (c.kind != CTX_BLOCK) return tp_err(p, v, "expected T.%s directly inside a T.block, got it elsewhere", fn);
    blk_t* bk = c.blk;
    if (fn[0] == 'r') {
      bk->has_reads = true;
      return regions(p, v, &bk->reads);
    }
    if (fn[0] == 'w' && fn[1] == 'r') {
      bk->has_writes = true;
      return regions(p, v, &bk->writes);
    }
    if (fn[0] == 'w') {
      if (v->n != 1) return tp_err(p, v, "expected 1 argument to T.where, got %d", v->n);
      RLX_RETURN_IF_ERROR(tp_eval(p, v->items[0], &bk->pred));
      if (!rlx_dtype_is_bool(bk->pred->dtype)) return tp_err(p, v->items[0], "expected a boolean predicate, got a non-boolean");
      return NULL;
    }
    return parse_dict_attrs(p, v, fn, &bk->ann_keys, &bk->ann_vals);
  }
  if (fn && strcmp(fn, "evaluate") == 0) {
    if (v->n != 1) return tp_err(p, v, "expected 1 argument to T.evaluate, got %d", v->n);
    rlx_expr_t* e;
    RLX_RETURN_IF_ERROR(tp_eval(p, v->items[0], &e));
    *out = rlx_tir_evaluate(p->ctx, e);
    return NULL;
  }
  rlx_expr_t* e;
  RLX_RETURN_IF_ERROR(tp_eval(p, v, &e));
  if (e->kind != RLX_EXPR_CALL) return tp_err(p, v, "expected a statement, got an expression (wrap it in T.evaluate)");
  *out = rlx_tir_evaluate(p->ctx, e);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_one(tp_t* p, const py_block_t* b, int i, sctx_t c, rlx_tir_stmt_t** out, bool* consumed) {
  const py_stmt_t* s = b->items[i];
  *out = NULL;
  switch (s->kind) {
    case PY_S_PASS: return NULL;
    case PY_S_EXPR: return parse_expr_stmt(p, s, c, out);
    case PY_S_FOR: return parse_for(p, s, c, out);
    case PY_S_WITH: return parse_with(p, s, c, out);
    case PY_S_IF: {
      rlx_expr_t* cond;
      RLX_RETURN_IF_ERROR(tp_eval(p, s->value, &cond));
      if (!rlx_dtype_is_bool(cond->dtype)) return tp_err(p, s->value, "expected a boolean condition, got a non-boolean");
      rlx_tir_stmt_t *t = NULL, *e = NULL;
      sctx_t inner = {CTX_OTHER, c.fn, NULL};
      tp_frame_push(p);
      rlx_status_t* st = parse_stmts(p, &s->body, 0, inner, &t);
      tp_frame_pop(p);
      if (st) return st;
      if (s->orelse.n) {
        tp_frame_push(p);
        st = parse_stmts(p, &s->orelse, 0, inner, &e);
        tp_frame_pop(p);
        if (st) return st;
        e = or_nop(p, e);
      }
      *out = rlx_tir_if(p->ctx, cond, or_nop(p, t), e);
      return NULL;
    }
    case PY_S_ASSIGN: {
      const py_expr_t* t = s->target;
      const py_expr_t* v = s->value;
      if (t->kind == PY_E_SUBSCRIPT) {
        rlx_expr_t* val;
        RLX_RETURN_IF_ERROR(tp_eval(p, v, &val));
        return store(p, t, val, out);
      }
      if (t->kind == PY_E_NAME) return assign_name(p, b, i, t, v, c, out, consumed);
      if (t->kind == PY_E_TUPLE) {
        if (is_call_to(p, v, "axis.remap")) {
          if (c.kind != CTX_BLOCK) return tp_err(p, v, "expected T.axis.remap directly inside a T.block, got it elsewhere");
          return axis_remap(p, t, v, c.blk);
        }
        if (v->kind == PY_E_TUPLE && v->n == t->n) {
          for (int k = 0; k < t->n; k++) {
            if (t->items[k]->kind != PY_E_NAME) return tp_err(p, t->items[k], "expected a name, got an expression");
            const char* fn = v->items[k]->kind == PY_E_CALL ? tp_tname(p, v->items[k]->a) : NULL;
            rlx_dtype_t dt;
            if (!fn || !((rlx_dtype_parse(fn, &dt) && v->items[k]->n == 0) || strcmp(fn, "var") == 0))
              return tp_err(p, v->items[k], "expected a variable declaration such as T.int64(), got another expression");
            bool cons = false;
            RLX_RETURN_IF_ERROR(assign_name(p, b, i, t->items[k], v->items[k], c, out, &cons));
          }
          return NULL;
        }
        return tp_err(p, v, "expected T.axis.remap(...) or a tuple of declarations on the right, got another expression");
      }
      return tp_err(p, t, "expected a name, tuple or buffer element on the left of '=', got an expression");
    }
    case PY_S_ANNASSIGN: {
      if (s->target->kind != PY_E_NAME) return tp_err(p, s->target, "expected a variable name, got an expression");
      rlx_dtype_t dt;
      RLX_RETURN_IF_ERROR(tp_dtype(p, s->annotation, &dt));
      if (!s->value) {
        tp_define(p, s->target->str, SYM_VAR, rlx_ir_var(p->ctx, s->target->str, dt));
        return NULL;
      }
      rlx_expr_t* val;
      RLX_RETURN_IF_ERROR(tp_eval(p, s->value, &val));
      val = rlx_ir_cast(p->ctx, dt, val);
      rlx_var_t* var = rlx_ir_var(p->ctx, s->target->str, dt);
      tp_frame_push(p);
      tp_define(p, s->target->str, SYM_VAR, var);
      rlx_tir_stmt_t* body = NULL;
      rlx_status_t* st = rest_body(p, b, i, c, &body);
      tp_frame_pop(p);
      if (st) return st;
      *out = rlx_tir_let(p->ctx, var, val, body);
      *consumed = true;
      return NULL;
    }
    case PY_S_AUGASSIGN: {
      if (s->target->kind != PY_E_SUBSCRIPT) return tp_err(p, s->target, "expected a buffer element before '%s=', got an expression", s->op);
      py_expr_t bin = {0};
      bin.kind = PY_E_BINOP;
      bin.span = s->span;
      bin.op = s->op;
      bin.a = s->target;
      bin.b = s->value;
      rlx_expr_t* val;
      RLX_RETURN_IF_ERROR(tp_eval(p, &bin, &val));
      return store(p, s->target, val, out);
    }
    case PY_S_WHILE:
    case PY_S_DEF:
    case PY_S_CLASS:
    case PY_S_RETURN:
    case PY_S_IMPORT:
    case PY_S_ASSERT: return tp_err_at(p, s->span, "expected a TIR statement, got unsupported %s", tp_stmt_desc(s));
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_stmts(tp_t* p, const py_block_t* b, int start, sctx_t c, rlx_tir_stmt_t** out) {
  RLX_VEC(rlx_tir_stmt_t*) list = {0};
  rlx_status_t* st = NULL;
  for (int i = start; i < b->n && !st; i++) {
    rlx_tir_stmt_t* s = NULL;
    bool consumed = false;
    st = parse_one(p, b, i, c, &s, &consumed);
    if (!st && s) rlx_vec_push(&list, s);
    if (consumed) break;
  }
  if (!st) *out = list.len ? rlx_tir_seq(p->ctx, list.len, list.data) : NULL;
  rlx_vec_free(&list);
  return st;
}

/* ------------------------------------------------------------------ functions */
static RLX_MUST_USE rlx_status_t* parse_param(tp_t* p, const py_param_t* prm, rlx_var_t** out_var, rlx_tir_buffer_t** out_buf) {
  const py_expr_t* a = prm->annotation;
  *out_buf = NULL;
  if (!a) return tp_err_at(p, prm->span, "expected a type annotation for parameter '%s' (T.Buffer, T.handle, T.int32...), got none", prm->name);
  const char* fn = tp_tname(p, a->kind == PY_E_CALL || a->kind == PY_E_SUBSCRIPT ? a->a : a);
  if (fn && strcmp(fn, "Buffer") == 0 && (a->kind == PY_E_CALL || a->kind == PY_E_SUBSCRIPT)) {
    py_expr_t call = *a; /* T.Buffer[(shape), "dtype"] is the older spelling of the call */
    rlx_tir_buffer_t* b;
    RLX_RETURN_IF_ERROR(make_buffer(p, &call, 0, prm->name, &b));
    *out_buf = b;
    *out_var = b->data;
    return NULL;
  }
  rlx_dtype_t dt;
  if (fn && rlx_dtype_parse(fn, &dt) && (a->kind != PY_E_CALL || a->n == 0 || strcmp(fn, "handle") == 0)) {
    *out_var = rlx_ir_var(p->ctx, prm->name, dt);
    return NULL;
  }
  return tp_err(p, a, "expected T.Buffer(...), T.handle or a scalar type such as T.int32 for parameter '%s', got another annotation",
                prm->name);
}

static RLX_MUST_USE rlx_status_t* prim_func_decorator(tp_t* p, const py_stmt_t* s, bool* is_private) {
  *is_private = false;
  if (s->n_decorators != 1) return tp_err_at(p, s->span, "expected one @T.prim_func decorator on '%s', got %d", s->name, s->n_decorators);
  const py_expr_t* d = s->decorators[0];
  const py_expr_t* callee = d->kind == PY_E_CALL ? d->a : d;
  const char* fn = tp_tname(p, callee);
  if (!fn || strcmp(fn, "prim_func") != 0) {
    const char* dn = py_dotted_name(p->ast, callee);
    if (dn && strstr(dn, "function")) return tp_err(p, d, "expected @T.prim_func, got @%s (Relax functions are not supported yet)", dn);
    return tp_err(p, d, "expected @T.prim_func, got @%s", dn ? dn : "an expression");
  }
  if (d->kind == PY_E_CALL) {
    const py_expr_t* pv = tp_arg(d, -1, "private");
    if (pv) {
      if (pv->kind != PY_E_CONST || strcmp(pv->str, "None") == 0) return tp_err(p, pv, "expected True or False for private, got an expression");
      *is_private = strcmp(pv->str, "True") == 0;
    }
  }
  return NULL;
}

RLX_MUST_USE rlx_status_t* tp_parse_prim_func(tp_t* p, const py_stmt_t* s, rlx_tir_func_t** out) {
  bool is_private;
  RLX_RETURN_IF_ERROR(prim_func_decorator(p, s, &is_private));
  fn_t fn = {0};
  fn.n_params = s->n_params;
  fn.params = RLX_NEW_ARRAY(p->ctx, rlx_var_t*, s->n_params);
  fn.bmap = RLX_NEW_ARRAY(p->ctx, rlx_tir_buffer_t*, s->n_params);
  p->contains_block = false;
  p->loops.len = 0;
  tp_frame_push(p);
  tp_scope_define(p);
  rlx_status_t* st = NULL;
  for (int i = 0; i < s->n_params && !st; i++) {
    for (int j = 0; j < i && !st; j++)
      if (strcmp(s->params[i].name, s->params[j].name) == 0)
        st = tp_err_at(p, s->params[i].span, "expected distinct parameter names, got '%s' twice", s->params[i].name);
    if (!st) st = parse_param(p, &s->params[i], &fn.params[i], &fn.bmap[i]);
    if (!st) tp_define(p, s->params[i].name, fn.bmap[i] ? SYM_BUFFER : SYM_VAR, fn.bmap[i] ? (void*)fn.bmap[i] : fn.params[i]);
  }
  rlx_tir_stmt_t* body = NULL;
  sctx_t c = {CTX_FUNC, &fn, NULL};
  if (!st) st = parse_stmts(p, &s->body, 0, c, &body);
  if (!st) {
    body = or_nop(p, body);
    bool contain_root = fn.allocs.len == 0 && body->kind == RLX_STMT_BLOCK_REALIZE &&
                        RLX_AS(rlx_tir_block_realize_t, body)->block->n_iter_vars == 0;
    if ((p->contains_block || fn.allocs.len) && !contain_root) {
      rlx_tir_block_t* root = RLX_NEW(p->ctx, rlx_tir_block_t);
      root->name = "root";
      root->body = body;
      root->n_alloc_buffers = fn.allocs.len;
      root->alloc_buffers = DUPV(fn.allocs);
      body = rlx_tir_block_realize(p->ctx, 0, NULL, NULL, root);
    }
    rlx_tir_func_t* f = rlx_tir_func_create(p->ctx, s->name, fn.n_params, fn.params, fn.bmap, body);
    /* In rlx the function name is the global symbol (rlx_tir_func_t.name), so unlike TVM the
     * parser does not add a "global_symbol" attr, and drops one equal to the def name: the
     * parsed function then equals what create_prim_func builds. A different global symbol
     * is kept (and printed back). */
    for (int i = 0; i < fn.attr_keys.len; i++) {
      const rlx_expr_t* v = fn.attr_vals.data[i];
      if (strcmp(fn.attr_keys.data[i], "global_symbol") == 0 && v->kind == RLX_EXPR_STRING_IMM &&
          strcmp(RLX_AS(const rlx_string_imm_t, v)->value, s->name) == 0)
        continue;
      f = rlx_tir_func_with_attr(p->ctx, f, fn.attr_keys.data[i], fn.attr_vals.data[i]);
    }
    f->is_private = is_private;
    *out = f;
  }
  tp_frame_pop(p);
  rlx_vec_free(&fn.attr_keys);
  rlx_vec_free(&fn.attr_vals);
  rlx_vec_free(&fn.allocs);
  return st;
}

