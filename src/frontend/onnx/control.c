/* ONNX control flow: If, Loop, Scan.
 *
 * A subgraph (an If branch, a Loop or Scan body) becomes a private Relax function whose
 * parameters are, in order: the values the construct hands it (Loop: iteration number,
 * condition, loop-carried values), the values it reads from the enclosing scope (constants
 * are used in place, the rest are passed), and for Scan the whole scan inputs. The function
 * is a scope of its own, so the converters run unchanged inside it.
 *
 * If: one R.If binding whose branches call the two functions (a constant condition imports
 * the branch taken in place).
 *
 * Loop and Scan: one call of the VM builtin `vm.builtin.loop` (vm_builtins.c), which calls
 * the body function once per iteration, feeds the loop-carried values back and stacks the
 * scan outputs along a new leading axis:
 *
 *   R.call_pure_packed("vm.builtin.loop", body, max_trip, cond, n_carried, n_scan,
 *                      (dtype, shape) per scan output, carried..., outer values...)
 *     -> (final carried..., stacked scan outputs...)
 *
 * The body returns (condition, carried..., scan outputs...). max_trip and cond are 0-d
 * tensors or ints (-1: no bound; a Scan's trip count is the length of its scan axis, an
 * int). The shapes are those of the scan outputs when the loop runs zero times (unknown
 * dims as 0). A loop-carried value is given the struct info of its initial value; when the
 * body returns it with other dims (a tensor that grows), the body is imported again with
 * fresh symbolic dims for it, and the loop's result is match_cast to fresh vars. Scan runs
 * the same builtin: the body function takes slice `iteration` of each scan input (inputs
 * scanned in reverse are flipped first, outputs flipped and moved to their axis after).
 */
#include <string.h>

#include "onnx_internal.h"

/* ------------------------------------------------------------------ subgraph functions */
/* The node's first output name, or dflt when it has none (functions are named after it). */
static const char* first_output(const rlx_onnx_node_t* node, const char* dflt) {
  return node->n_outputs > 0 && node->outputs[0] && node->outputs[0][0] ? node->outputs[0] : dflt;
}

/* The name of a subgraph input ("" when it has none). */
static const char* input_name(const Onnx__GraphProto* g, int i) {
  return g->input[i]->name ? g->input[i]->name : "";
}

/* Appends nm to the growing arena array *names (*n used of *cap). */
static void push_name(rlx_ctx_t* ctx, const char* nm, const char*** names, int* n, int* cap) {
  if (*n == *cap) {
    int nc = *cap ? 2 * *cap : 8;
    const char** bigger = RLX_NEW_ARRAY(ctx, const char*, nc);
    if (*n) memcpy(bigger, *names, sizeof(*bigger) * (size_t)*n);
    *names = bigger;
    *cap = nc;
  }
  (*names)[(*n)++] = nm;
}

/* Adds to `names` (in order, once each) the names g reads that neither g nor an enclosing
 * scope inside it defines (`defined` grows with g's definitions: ONNX names are unique). */
static void free_names(rlx_ctx_t* ctx, const Onnx__GraphProto* g, rlx_onnx_strmap_t* defined, rlx_onnx_strmap_t* seen,
                       const char*** names, int* n, int* cap) {
  for (size_t i = 0; i < g->n_initializer; i++) rlx_onnx_strmap_put(defined, g->initializer[i]->name, NULL);
  for (size_t i = 0; i < g->n_input; i++) rlx_onnx_strmap_put(defined, g->input[i]->name, NULL);
  for (size_t i = 0; i < g->n_node; i++) {
    const Onnx__NodeProto* p = g->node[i];
    for (size_t k = 0; k < p->n_attribute; k++) {
      if (p->attribute[k]->g) free_names(ctx, p->attribute[k]->g, defined, seen, names, n, cap);
      for (size_t j = 0; j < p->attribute[k]->n_graphs; j++)
        free_names(ctx, p->attribute[k]->graphs[j], defined, seen, names, n, cap);
    }
    for (size_t k = 0; k < p->n_input; k++) {
      const char* nm = p->input[k];
      if (!nm[0] || rlx_onnx_strmap_get(defined, nm, NULL) || rlx_onnx_strmap_get(seen, nm, NULL)) continue;
      rlx_onnx_strmap_put(seen, nm, NULL);
      push_name(ctx, nm, names, n, cap);
    }
    for (size_t k = 0; k < p->n_output; k++) rlx_onnx_strmap_put(defined, p->output[k], NULL);
  }
  for (size_t i = 0; i < g->n_output; i++)
    if (!rlx_onnx_strmap_get(defined, g->output[i]->name, NULL) && !rlx_onnx_strmap_get(seen, g->output[i]->name, NULL)) {
      rlx_onnx_strmap_put(seen, g->output[i]->name, NULL);
      push_name(ctx, g->output[i]->name, names, n, cap);
    }
}

/* A subgraph to import as a private function, and what the import found. */
typedef struct subfn subfn_t;
struct subfn {
  const char* fname;
  int n_lead; /* leading params: bound to lead_names ("" = to no name) */
  rlx_relax_var_t** lead;
  const char** lead_names;
  int n_tail; /* params after the outer values */
  rlx_relax_var_t** tail;
  /* binds more names in the function's importer before the nodes (Scan's slices) */
  rlx_status_t* (*prologue)(rlx_onnx_importer_t* sub, subfn_t* f);
  /* rewrites the subgraph's outputs outs[0..n) before they are returned (SequenceMap's appends) */
  rlx_status_t* (*epilogue)(rlx_onnx_importer_t* sub, subfn_t* f, rlx_relax_expr_t** outs, int n);
  void* user;
  bool cond_first;          /* the result starts with a constant true condition */
  bool tuple;               /* the result is a tuple even of one value */
  bool any_kind;            /* outputs may be tuples (sequences) */
  rlx_sinfo_t* const* want; /* per subgraph output: the struct info it must have (NULL: any) */
  const rlx_onnx_type_t* const* want_types; /* per output: a type it must fit in (NULL: any) */
  /* filled by subgraph_function */
  rlx_relax_expr_t* gv;
  int n_args; /* the outer values to pass between the lead and the tail params */
  rlx_relax_expr_t** args;
  rlx_sinfo_t** out_sinfo; /* per subgraph output (before the epilogue) */
  const rlx_onnx_type_t** out_types; /* per subgraph output: its ONNX type (before the epilogue) */
  bool mismatch;           /* an output differs from want: nothing was added to the module */
};

/* True when a and b are the same type. */
static bool type_eq(const rlx_onnx_type_t* a, const rlx_onnx_type_t* b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  if (a->kind == RLX_ONNX_T_TENSOR) return a->ndim == b->ndim && rlx_dtype_eq(a->dtype, b->dtype);
  return a->kind == RLX_ONNX_T_UNKNOWN || type_eq(a->elem, b->elem);
}

/* The nodes of g and its result, in the open function of sub->bb. */
static RLX_MUST_USE rlx_status_t* subgraph_body(rlx_onnx_importer_t* sub, const Onnx__GraphProto* g, subfn_t* f) {
  rlx_ctx_t* ctx = sub->ctx;
  bool dataflow = !rlx_onnx_has_control_flow(g);
  if (dataflow) RLX_RETURN_IF_ERROR(rlx_bb_dataflow_begin(sub->bb));
  if (f->prologue) RLX_RETURN_IF_ERROR(f->prologue(sub, f));
  for (size_t i = 0; i < g->n_node; i++) RLX_RETURN_IF_ERROR(rlx_onnx_convert_node(sub, g->node[i]));
  int n_out = (int)g->n_output, skip = f->cond_first ? 1 : 0;
  rlx_relax_expr_t** outs = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n_out + 1);
  f->out_sinfo = RLX_NEW_ARRAY(ctx, rlx_sinfo_t*, n_out + 1);
  f->out_types = RLX_NEW_ARRAY(ctx, const rlx_onnx_type_t*, n_out + 1);
  if (skip) outs[0] = rlx_onnx_make_const(sub, rlx_dt_bool(), 0, NULL, &(uint8_t){1});
  for (int i = 0; i < n_out; i++) {
    RLX_RETURN_IF_ERROR(rlx_onnx_graph_output(sub, g->output[i], f->any_kind, &outs[skip + i]));
    f->out_sinfo[i] = outs[skip + i]->sinfo;
    f->out_types[i] = rlx_onnx_value_type(sub, g->output[i]->name, outs[skip + i]);
    if (f->want && f->want[i] && !rlx_sinfo_equal(ctx, f->want[i], f->out_sinfo[i])) f->mismatch = true;
    if (f->want_types && f->want_types[i] &&
        !type_eq(f->want_types[i], rlx_onnx_type_join(ctx, f->want_types[i], f->out_types[i])))
      f->mismatch = true;
  }
  if (f->mismatch) return NULL;
  if (f->epilogue) RLX_RETURN_IF_ERROR(f->epilogue(sub, f, outs + skip, n_out));
  n_out += skip;
  return rlx_onnx_func_result(sub, n_out == 1 && !f->tuple ? outs[0] : rlx_relax_tuple(ctx, n_out, outs), dataflow);
}

/* Imports g as the private function f->fname (see subfn_t); f->gv then names it and
 * f->args are the outer values to pass. With f->mismatch set nothing was added. */
static RLX_MUST_USE rlx_status_t* subgraph_function(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, const Onnx__GraphProto* g,
                                                    subfn_t* f) {
  rlx_ctx_t* ctx = im->ctx;
  f->mismatch = false;
  rlx_onnx_strmap_t defined = {0}, seen = {0};
  const char** names = NULL;
  int n_free = 0, cap = 0;
  free_names(ctx, g, &defined, &seen, &names, &n_free, &cap);
  rlx_onnx_strmap_free(&defined);
  rlx_onnx_strmap_free(&seen);
  rlx_onnx_importer_t sub = *im;
  memset(&sub.values, 0, sizeof(sub.values));
  memset(&sub.dims, 0, sizeof(sub.dims));
  sub.bb = rlx_bb_create(ctx, rlx_bb_get(im->bb));
  int n_all = f->n_lead + n_free + f->n_tail;
  rlx_relax_var_t** params = RLX_NEW_ARRAY(ctx, rlx_relax_var_t*, n_all > 0 ? n_all : 1);
  f->args = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n_free > 0 ? n_free : 1);
  f->n_args = 0;
  int n_params = 0;
  for (int i = 0; i < f->n_lead; i++) {
    params[n_params++] = f->lead[i];
    if (f->lead_names[i][0]) rlx_onnx_strmap_put(&sub.values, f->lead_names[i], &f->lead[i]->hdr);
  }
  rlx_status_t* st = NULL;
  for (int i = 0; i < n_free && !st; i++) {
    rlx_relax_expr_t* e = NULL;
    if (!rlx_onnx_value_get(im, names[i], &e)) {
      st = rlx_onnx_error(node, "the subgraph '%s' reads '%s', which is not defined before it", f->fname, names[i]);
      break;
    }
    if (e->kind == RLX_RELAX_CONSTANT) {
      rlx_onnx_strmap_put(&sub.values, names[i], e);
      continue;
    }
    params[n_params] = rlx_relax_var(ctx, rlx_onnx_ident(ctx, names[i]), e->sinfo);
    f->args[f->n_args++] = e;
    rlx_onnx_strmap_put(&sub.values, names[i], &params[n_params]->hdr);
    n_params++;
  }
  for (int i = 0; i < f->n_tail; i++) params[n_params++] = f->tail[i];
  if (!st) st = rlx_onnx_check_supported(&sub, g);
  if (!st) st = rlx_onnx_add_initializers(&sub, g);
  if (!st) st = rlx_bb_function_begin(sub.bb, f->fname, n_params, params);
  if (!st) st = rlx_bb_function_set_private(sub.bb, true);
  if (!st) st = subgraph_body(&sub, g, f);
  if (!st && !f->mismatch) st = rlx_bb_function_end(sub.bb, &f->gv);
  rlx_onnx_strmap_free(&sub.values);
  rlx_onnx_strmap_free(&sub.dims);
  if (st || f->mismatch) rlx_bb_function_abandon(sub.bb);
  return st;
}

/* ------------------------------------------------------------------ If */
/* A SeqExpr binding e to a var, with that var as its body (an If branch). */
static rlx_relax_expr_t* seq_of(rlx_ctx_t* ctx, rlx_relax_expr_t* e, const char* name) {
  rlx_relax_var_t* v = rlx_relax_var(ctx, name, NULL);
  rlx_relax_binding_t* b = rlx_relax_var_binding(ctx, v, e);
  rlx_relax_block_t* blk = rlx_relax_block(ctx, false, 1, &b);
  return rlx_relax_seq(ctx, 1, &blk, &v->hdr);
}

/* A call of the branch function of g (named <output>_<suffix>). */
static RLX_MUST_USE rlx_status_t* branch_call(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, const Onnx__GraphProto* g,
                                              const char* suffix, rlx_relax_expr_t** out_call, const rlx_onnx_type_t*** out_types) {
  rlx_ctx_t* ctx = im->ctx;
  if (g->n_input) return rlx_onnx_error(node, "the %s branch must not have inputs", suffix);
  subfn_t f = {0};
  f.fname = rlx_ctx_sprintf(ctx, "%s_%s", rlx_onnx_ident(ctx, first_output(node, "if")), suffix);
  f.any_kind = true;
  RLX_RETURN_IF_ERROR(subgraph_function(im, node, g, &f));
  *out_call = rlx_relax_call(ctx, f.gv, f.n_args, f.args, (rlx_attrs_t){0}, 0, NULL);
  *out_types = f.out_types;
  return NULL;
}

/* If: a constant condition imports the chosen branch in place; otherwise each branch is a
 * private function and the node one R.If binding calling them (outputs: its fields). */
RLX_MUST_USE rlx_status_t* rlx_onnx_convert_if(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                               rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = im->ctx;
  const Onnx__GraphProto *tg = rlx_onnx_attr_graph(node, "then_branch"), *eg = rlx_onnx_attr_graph(node, "else_branch");
  if (!tg || !eg) return rlx_onnx_error(node, "needs then_branch and else_branch graphs");
  rlx_relax_expr_t* c = node->n_inputs > 0 ? inputs[0] : NULL;
  if (!c || !c->sinfo || c->sinfo->kind != RLX_SINFO_TENSOR || !rlx_dtype_is_bool(((rlx_sinfo_tensor_t*)c->sinfo)->dtype))
    return rlx_onnx_error(node, "the condition must be a bool tensor");
  if ((int)tg->n_output != node->n_outputs || (int)eg->n_output != node->n_outputs)
    return rlx_onnx_error(node, "both branches must have %d outputs", node->n_outputs);
  rlx_onnx_tensor_t k;
  if (rlx_onnx_const(im, c, &k)) { /* import the branch taken */
    const Onnx__GraphProto* g = ((const uint8_t*)k.data)[0] ? tg : eg;
    RLX_RETURN_IF_ERROR(rlx_onnx_check_supported(im, g));
    RLX_RETURN_IF_ERROR(rlx_onnx_add_initializers(im, g));
    for (size_t i = 0; i < g->n_node; i++) RLX_RETURN_IF_ERROR(rlx_onnx_convert_node(im, g->node[i]));
    for (int i = 0; i < node->n_outputs; i++)
      RLX_RETURN_IF_ERROR(rlx_onnx_graph_output(im, g->output[i], true, &outputs[i]));
    for (int i = 0; i < node->n_outputs; i++)
      rlx_onnx_set_value_type(im, node->outputs[i], rlx_onnx_value_type(im, g->output[i]->name, outputs[i]));
    return NULL;
  }
  rlx_sinfo_tensor_t* cs = (rlx_sinfo_tensor_t*)c->sinfo;
  if (cs->ndim != 0) {
    RLX_RETURN_IF_ERROR(rlx_onnx_emit(
        im, rlx_relax_op_call(ctx, RLX_OP_RESHAPE, 2, (rlx_relax_expr_t*[]){c, rlx_relax_shape_expr(ctx, 0, NULL)}, (rlx_attrs_t){0}),
        &c));
  }
  rlx_relax_expr_t *tc, *ec;
  const rlx_onnx_type_t **tt = NULL, **et = NULL;
  RLX_RETURN_IF_ERROR(branch_call(im, node, tg, "then", &tc, &tt));
  RLX_RETURN_IF_ERROR(branch_call(im, node, eg, "else", &ec, &et));
  for (int i = 0; i < node->n_outputs; i++) /* what either branch gives (R.Object when they differ in kind) */
    rlx_onnx_set_value_type(im, node->outputs[i], rlx_onnx_type_join(ctx, tt[i], et[i]));
  rlx_relax_var_t* v = NULL;
  RLX_RETURN_IF_ERROR(rlx_bb_emit(im->bb, rlx_relax_if(ctx, c, seq_of(ctx, tc, "then_result"), seq_of(ctx, ec, "else_result")),
                                  NULL, &v));
  for (int i = 0; i < node->n_outputs; i++) {
    if (node->n_outputs == 1) {
      outputs[0] = &v->hdr;
      break;
    }
    RLX_RETURN_IF_ERROR(rlx_onnx_emit(im, rlx_relax_tuple_get_item(ctx, &v->hdr, i), &outputs[i]));
  }
  return NULL;
}

/* ------------------------------------------------------------------ Loop and Scan */
/* A loop being built: the body function's lead params and how the call is made. */
typedef struct {
  int n_carried, n_scan;
  rlx_relax_expr_t** init; /* initial carried values */
  bool* general;           /* carried value k was given fresh dims (the body changes them), or made a list */
  const rlx_onnx_type_t** ctype; /* carried value k's ONNX type (what lists and optionals hold) */
  subfn_t f;
} loop_t;

static rlx_sinfo_tensor_t* as_tensor(const rlx_sinfo_t* s) {
  return s && s->kind == RLX_SINFO_TENSOR ? (rlx_sinfo_tensor_t*)s : NULL;
}

/* A sequence or optional: a tuple (static length) or an object (a list, an optional). */
static bool is_seq_like(const rlx_sinfo_t* s) {
  return s && (s->kind == RLX_SINFO_TUPLE || s->kind == RLX_SINFO_OBJECT);
}

/* Tensor struct info of the same rank and dtype as t with a fresh var per dim (name_d0 ...). */
static rlx_sinfo_t* fresh_dims(rlx_ctx_t* ctx, const rlx_sinfo_tensor_t* t, const char* name) {
  rlx_expr_t** dims = RLX_NEW_ARRAY(ctx, rlx_expr_t*, t->ndim > 0 ? t->ndim : 1);
  for (int d = 0; d < t->ndim; d++)
    dims[d] = &rlx_ir_var(ctx, rlx_ctx_sprintf(ctx, "%s_d%d", rlx_onnx_ident(ctx, name), d), rlx_dt_int64())->hdr;
  return rlx_sinfo_tensor(ctx, t->ndim, dims, t->dtype);
}

/* Imports the body (lead params: iteration, condition, carried values starting with the
 * initial values' struct info); when the body changes a carried tensor's dims, imports it
 * again with fresh dims for that value. carried_out: index of the first carried output. */
static RLX_MUST_USE rlx_status_t* loop_body(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, const Onnx__GraphProto* g,
                                            const char* const* carried_names, int carried_out, loop_t* L) {
  rlx_ctx_t* ctx = im->ctx;
  subfn_t* f = &L->f;
  int n_out = (int)g->n_output;
  rlx_sinfo_t** want = RLX_NEW_ARRAY(ctx, rlx_sinfo_t*, n_out);
  const rlx_onnx_type_t** want_types = RLX_NEW_ARRAY(ctx, const rlx_onnx_type_t*, n_out);
  L->general = RLX_NEW_ARRAY(ctx, bool, L->n_carried > 0 ? L->n_carried : 1);
  L->ctype = RLX_NEW_ARRAY(ctx, const rlx_onnx_type_t*, L->n_carried > 0 ? L->n_carried : 1);
  bool is_loop = strcmp(node->op_type, "Loop") == 0; /* a Loop's carried inputs may be lists, named by the node */
  for (int k = 0; k < L->n_carried; k++)
    L->ctype[k] = rlx_onnx_value_type(im, is_loop ? node->inputs[2 + k] : NULL, L->init[k]);
  for (int attempt = 0; attempt < 2; attempt++) {
    for (int k = 0; k < L->n_carried; k++) {
      rlx_sinfo_t* s = L->init[k]->sinfo;
      if (attempt == 1 && L->general[k])
        s = as_tensor(s) ? fresh_dims(ctx, as_tensor(s), carried_names[k]) : rlx_sinfo_object(ctx);
      f->lead[2 + k] = rlx_relax_var(ctx, rlx_onnx_ident(ctx, carried_names[k][0] ? carried_names[k] : "carried"), s);
      want[carried_out + k] = attempt == 0 ? s : NULL;
      if (s->kind == RLX_SINFO_OBJECT) { /* a list or an optional: its type, kept by name */
        rlx_onnx_set_value_type(im, carried_names[k], L->ctype[k]);
        want_types[carried_out + k] = attempt == 0 ? L->ctype[k] : NULL;
      }
    }
    f->want = want;
    f->want_types = want_types;
    RLX_RETURN_IF_ERROR(subgraph_function(im, node, g, f));
    if (!f->mismatch) break;
    for (int k = 0; k < L->n_carried; k++) {
      rlx_sinfo_t* out_s = f->out_sinfo[carried_out + k];
      if (is_seq_like(L->init[k]->sinfo) && is_seq_like(out_s)) { /* a sequence: a list from now on */
        const rlx_onnx_type_t* j = rlx_onnx_type_join(ctx, L->ctype[k], f->out_types[carried_out + k]);
        if (!rlx_sinfo_equal(ctx, L->init[k]->sinfo, out_s) || !type_eq(j, L->ctype[k])) L->general[k] = true;
        L->ctype[k] = j;
        continue;
      }
      if (rlx_sinfo_equal(ctx, L->init[k]->sinfo, out_s)) continue;
      rlx_sinfo_tensor_t *a = as_tensor(L->init[k]->sinfo), *b = as_tensor(f->out_sinfo[carried_out + k]);
      if (!a || !b || a->ndim < 0 || a->ndim != b->ndim || !rlx_dtype_eq(a->dtype, b->dtype))
        return rlx_onnx_error(node, "loop-carried value %d ('%s') changes its type from %s to %s in the body", k,
                              carried_names[k], rlx_sinfo_str(ctx, L->init[k]->sinfo),
                              rlx_sinfo_str(ctx, f->out_sinfo[carried_out + k]));
      L->general[k] = true;
    }
  }
  for (int k = 0; k < L->n_carried; k++) { /* the generalized import keeps rank and dtype */
    if (!as_tensor(f->lead[2 + k]->hdr.sinfo) && L->general[k]) {
      if (!is_seq_like(f->out_sinfo[carried_out + k]))
        return rlx_onnx_error(node, "loop-carried value %d ('%s') changes its type from a sequence to %s in the body", k,
                              carried_names[k], rlx_sinfo_str(ctx, f->out_sinfo[carried_out + k]));
      continue;
    }
    rlx_sinfo_tensor_t *a = as_tensor(f->lead[2 + k]->hdr.sinfo), *b = as_tensor(f->out_sinfo[carried_out + k]);
    if (L->general[k] && (!b || b->ndim != a->ndim || !rlx_dtype_eq(a->dtype, b->dtype)))
      return rlx_onnx_error(node, "loop-carried value %d ('%s') changes its type from %s to %s in the body", k,
                            carried_names[k], rlx_sinfo_str(ctx, f->lead[2 + k]->hdr.sinfo),
                            rlx_sinfo_str(ctx, f->out_sinfo[carried_out + k]));
  }
  return NULL;
}

/* The scan output struct info of one iteration (scan output k of the body). */
static RLX_MUST_USE rlx_status_t* scan_elem(const rlx_onnx_node_t* node, const loop_t* L, int first_scan_out, int k,
                                            rlx_sinfo_tensor_t** out) {
  rlx_sinfo_tensor_t* t = as_tensor(L->f.out_sinfo[first_scan_out + k]);
  if (!t || t->ndim < 0 || rlx_dtype_is_void(t->dtype))
    return rlx_onnx_error(node, "scan output %d of the body must be a tensor of known rank and dtype", k);
  *out = t;
  return NULL;
}

/* Emits the vm.builtin.loop call and binds its fields, refined by one match_cast: carried
 * values keep their initial struct info unless generalized (fresh dims then); scan output k
 * is (count, one iteration's dims) — count: the trip count when known (Scan), else a fresh
 * var; an iteration's symbolic dims are fresh vars. out[i]: field i. */
static RLX_MUST_USE rlx_status_t* loop_call(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, loop_t* L, rlx_relax_expr_t* max_trip,
                                            rlx_relax_expr_t* cond, int first_scan_out, rlx_expr_t* count, int n_extra,
                                            rlx_relax_expr_t* const* extra, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = im->ctx;
  int nc = L->n_carried, ns = L->n_scan;
  int n_args = 5 + 2 * ns + nc + L->f.n_args + n_extra, a = 0;
  rlx_relax_expr_t** args = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n_args);
  args[a++] = L->f.gv;
  args[a++] = max_trip ? max_trip : rlx_relax_prim_value(ctx, rlx_ir_i64(ctx, -1));
  args[a++] = cond ? cond : rlx_relax_prim_value(ctx, rlx_ir_i64(ctx, 1));
  args[a++] = rlx_relax_prim_value(ctx, rlx_ir_i64(ctx, nc));
  args[a++] = rlx_relax_prim_value(ctx, rlx_ir_i64(ctx, ns));
  int n_res = nc + ns;
  rlx_sinfo_t** decl = RLX_NEW_ARRAY(ctx, rlx_sinfo_t*, n_res > 0 ? n_res : 1);
  rlx_sinfo_t** refined = RLX_NEW_ARRAY(ctx, rlx_sinfo_t*, n_res > 0 ? n_res : 1);
  for (int k = 0; k < nc; k++) {
    rlx_sinfo_t* s = L->init[k]->sinfo;
    rlx_sinfo_tensor_t* t = as_tensor(s);
    decl[k] = refined[k] = s;
    if (L->general[k] && !t) { /* a list */
      decl[k] = refined[k] = rlx_sinfo_object(ctx);
    } else if (L->general[k]) {
      decl[k] = rlx_sinfo_tensor(ctx, t->ndim, NULL, t->dtype);
      refined[k] = fresh_dims(ctx, t, rlx_ctx_sprintf(ctx, "%s_carried%d", first_output(node, "loop"), k));
    }
  }
  if (ns && !count) count = rlx_onnx_fresh_dim(im, node, "count");
  for (int k = 0; k < ns; k++) {
    rlx_sinfo_tensor_t* t = NULL;
    RLX_RETURN_IF_ERROR(scan_elem(node, L, first_scan_out, k, &t));
    rlx_expr_t** zero = RLX_NEW_ARRAY(ctx, rlx_expr_t*, t->ndim > 0 ? t->ndim : 1);
    rlx_expr_t** dims = RLX_NEW_ARRAY(ctx, rlx_expr_t*, t->ndim + 1);
    dims[0] = count;
    for (int d = 0; d < t->ndim; d++) {
      int64_t v = 0;
      bool known = t->shape && rlx_expr_is_const_int(t->shape[d], &v);
      zero[d] = rlx_ir_i64(ctx, known ? v : 0);
      dims[1 + d] = known ? zero[d] : rlx_onnx_fresh_dim(im, node, rlx_ctx_sprintf(ctx, "scan%d_d%d", k, d + 1));
    }
    args[a++] = rlx_relax_dtype_imm(ctx, t->dtype);
    args[a++] = rlx_relax_shape_expr(ctx, t->ndim, zero);
    decl[nc + k] = rlx_sinfo_tensor(ctx, t->ndim + 1, NULL, t->dtype);
    refined[nc + k] = rlx_sinfo_tensor(ctx, t->ndim + 1, dims, t->dtype);
  }
  for (int k = 0; k < nc; k++) args[a++] = L->init[k];
  for (int k = 0; k < L->f.n_args; k++) args[a++] = L->f.args[k];
  for (int k = 0; k < n_extra; k++) args[a++] = extra[k];
  rlx_sinfo_t* ds = rlx_sinfo_tuple(ctx, n_res, decl);
  rlx_relax_var_t *v = NULL, *m = NULL;
  RLX_RETURN_IF_ERROR(rlx_bb_emit(im->bb, rlx_relax_call_pure_packed(ctx, "vm.builtin.loop", n_args, args, 1, &ds), NULL, &v));
  RLX_RETURN_IF_ERROR(rlx_bb_match_cast(im->bb, &v->hdr, rlx_sinfo_tuple(ctx, n_res, refined), NULL, &m));
  for (int i = 0; i < n_res; i++) RLX_RETURN_IF_ERROR(rlx_onnx_emit(im, rlx_relax_tuple_get_item(ctx, &m->hdr, i), &out[i]));
  for (int k = 0; k < nc && k < node->n_outputs; k++)
    if (!as_tensor(decl[k]))
      rlx_onnx_set_value_type(im, node->outputs[k], rlx_onnx_type_join(ctx, L->ctype[k], L->f.out_types[first_scan_out - nc + k]));
  return NULL;
}

/* The lead params' first two: the iteration number and the condition (0-d int64, bool). */
static void loop_counters(rlx_ctx_t* ctx, const char* iter_name, const char* cond_name, rlx_relax_var_t** lead) {
  lead[0] = rlx_relax_var(ctx, rlx_onnx_ident(ctx, iter_name[0] ? iter_name : "iteration"),
                          rlx_sinfo_tensor_const(ctx, 0, NULL, rlx_dt_int64()));
  lead[1] = rlx_relax_var(ctx, rlx_onnx_ident(ctx, cond_name[0] ? cond_name : "cond"),
                          rlx_sinfo_tensor_const(ctx, 0, NULL, rlx_dt_bool()));
}

/* A tensor input that holds one value of the given dtype (Loop's M and cond). */
static RLX_MUST_USE rlx_status_t* scalar_input(const rlx_onnx_node_t* node, rlx_relax_expr_t* e, int i, rlx_dtype_t want,
                                               const char* what) {
  rlx_sinfo_tensor_t* t = e ? as_tensor(e->sinfo) : NULL;
  if (!t || !rlx_dtype_eq(t->dtype, want)) return rlx_onnx_error(node, "input %d (%s) must be a %s tensor", i, what,
                                                                 rlx_dtype_is_bool(want) ? "bool" : "int64");
  for (int d = 0; t->shape && d < t->ndim; d++) {
    int64_t v = 0;
    if (rlx_expr_is_const_int(t->shape[d], &v) && v != 1)
      return rlx_onnx_error(node, "input %d (%s) must hold one value", i, what);
  }
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_convert_loop(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                 rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = im->ctx;
  const Onnx__GraphProto* g = rlx_onnx_attr_graph(node, "body");
  if (!g) return rlx_onnx_error(node, "needs a body graph");
  if (node->n_inputs < 2) return rlx_onnx_error(node, "needs the inputs M and cond (either may be empty)");
  int nc = node->n_inputs - 2;
  if ((int)g->n_input != nc + 2)
    return rlx_onnx_error(node, "the body has %zu inputs, expected %d (iteration number, condition, %d loop-carried)",
                          g->n_input, nc + 2, nc);
  if ((int)g->n_output < nc + 1)
    return rlx_onnx_error(node, "the body has %zu outputs, expected at least %d (condition, %d loop-carried)",
                          g->n_output, nc + 1, nc);
  int ns = (int)g->n_output - 1 - nc;
  if (node->n_outputs > nc + ns)
    return rlx_onnx_error(node, "has %d outputs; the body gives %d loop-carried and %d scan outputs", node->n_outputs,
                          nc, ns);
  if (inputs[0]) RLX_RETURN_IF_ERROR(scalar_input(node, inputs[0], 0, rlx_dt_int64(), "M"));
  if (inputs[1]) RLX_RETURN_IF_ERROR(scalar_input(node, inputs[1], 1, rlx_dt_bool(), "cond"));
  loop_t L = {0};
  L.n_carried = nc;
  L.n_scan = ns;
  L.init = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, nc > 0 ? nc : 1);
  const char** names = RLX_NEW_ARRAY(ctx, const char*, nc + 2);
  for (int i = 0; i < nc + 2; i++) names[i] = input_name(g, i);
  for (int k = 0; k < nc; k++) {
    L.init[k] = inputs[2 + k];
    if (!L.init[k]) return rlx_onnx_error(node, "loop-carried input %d is empty, which is not supported", k);
    if (!L.init[k]->sinfo || (!as_tensor(L.init[k]->sinfo) && !is_seq_like(L.init[k]->sinfo)))
      return rlx_onnx_error(node, "loop-carried input %d ('%s') must be a tensor, a sequence or an optional", k,
                            node->inputs[2 + k]);
  }
  L.f.fname = rlx_ctx_sprintf(ctx, "%s_body", rlx_onnx_ident(ctx, first_output(node, "loop")));
  L.f.n_lead = nc + 2;
  L.f.lead = RLX_NEW_ARRAY(ctx, rlx_relax_var_t*, nc + 2);
  L.f.lead_names = names;
  L.f.tuple = true;
  L.f.any_kind = true;
  loop_counters(ctx, names[0], names[1], L.f.lead);
  RLX_RETURN_IF_ERROR(loop_body(im, node, g, names + 2, 1, &L));
  rlx_sinfo_tensor_t* c = as_tensor(L.f.out_sinfo[0]);
  if (!c || !rlx_dtype_is_bool(c->dtype)) return rlx_onnx_error(node, "the body's first output (the condition) must be a bool tensor");
  rlx_relax_expr_t** res = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, nc + ns > 0 ? nc + ns : 1);
  RLX_RETURN_IF_ERROR(loop_call(im, node, &L, inputs[0], inputs[1], 1 + nc, NULL, 0, NULL, res));
  for (int i = 0; i < node->n_outputs; i++) outputs[i] = res[i];
  return NULL;
}

/* Scan's prologue: slice `iteration` of each whole scan input (the tail params) along its
 * axis, bound to the body's scan input names. */
typedef struct {
  const Onnx__GraphProto* g;
  int n_state, n_in;
  const int64_t* axes;
} scan_user_t;

static RLX_MUST_USE rlx_status_t* scan_prologue(rlx_onnx_importer_t* sub, subfn_t* f) {
  rlx_ctx_t* ctx = sub->ctx;
  scan_user_t* u = f->user;
  for (int j = 0; j < u->n_in; j++) {
    rlx_relax_expr_t* args[2] = {&f->tail[j]->hdr, &f->lead[0]->hdr};
    rlx_relax_expr_t* s = NULL;
    RLX_RETURN_IF_ERROR(rlx_onnx_emit(
        sub, rlx_relax_op_call(ctx, RLX_OP_TAKE, 2, args, rlx_attrs_set(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_int(u->axes[j]))),
        &s));
    const char* nm = input_name(u->g, u->n_state + j);
    if (nm[0]) rlx_onnx_strmap_put(&sub->values, nm, s);
  }
  return NULL;
}

/* An op call with one int attribute, emitted. */
static RLX_MUST_USE rlx_status_t* op1(rlx_onnx_importer_t* im, rlx_op_id_t op, rlx_relax_expr_t* x, const char* key, rlx_attr_t v,
                                      rlx_relax_expr_t** out) {
  rlx_attrs_t at = key ? rlx_attrs_set(im->ctx, (rlx_attrs_t){0}, key, v) : (rlx_attrs_t){0};
  return rlx_onnx_emit(im, rlx_relax_op_call(im->ctx, op, 1, &x, at), out);
}

/* An axis attribute list of n entries (absent: zeros), each normalized against ranks[i]. */
static RLX_MUST_USE rlx_status_t* scan_axes(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, const char* key, int n,
                                            const int* ranks, int64_t** out) {
  const int64_t* v = NULL;
  int got = rlx_onnx_attr_ints(node, key, &v);
  if (got >= 0 && got != n) return rlx_onnx_error(node, "%s has %d entries, expected %d", key, got, n);
  int64_t* r = RLX_NEW_ARRAY(im->ctx, int64_t, n > 0 ? n : 1);
  for (int i = 0; i < n; i++) {
    int64_t a = got > 0 ? v[i] : 0;
    if (ranks) {
      if (a < -ranks[i] || a >= ranks[i])
        return rlx_onnx_error(node, "%s[%d] = %lld is out of range for rank %d", key, i, (long long)a, ranks[i]);
      if (a < 0) a += ranks[i];
    } else if (a != 0 && a != 1) {
      return rlx_onnx_error(node, "%s[%d] = %lld is not 0 (forward) or 1 (reverse)", key, i, (long long)a);
    }
    r[i] = a;
  }
  *out = r;
  return NULL;
}

/* Scan over states[0..ns) and scan inputs xs[0..m) (already flipped where reversed; axes
 * normalized), as the loop builtin; the body function is imported once into *L (L->f.gv set
 * on the first call) and reused. res: final states then the K stacked scan outputs (axis 0,
 * in iteration order). */
static RLX_MUST_USE rlx_status_t* scan_run(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, const Onnx__GraphProto* g,
                                           loop_t* L, scan_user_t* u, rlx_relax_expr_t* const* states, rlx_relax_expr_t* const* xs,
                                           rlx_relax_expr_t** res) {
  rlx_ctx_t* ctx = im->ctx;
  int n_state = u->n_state, m = u->n_in;
  rlx_expr_t* len = NULL;
  for (int j = 0; j < m; j++) {
    rlx_sinfo_tensor_t* t = as_tensor(xs[j]->sinfo);
    rlx_expr_t* d = t->shape[u->axes[j]];
    if (!len) len = d;
    else RLX_RETURN_IF_ERROR(rlx_onnx_runtime_check(im, d, len));
  }
  if (!len) return rlx_onnx_error(node, "needs at least one scan input");
  for (int k = 0; k < n_state; k++) L->init[k] = states[k];
  if (!L->f.gv) {
    const char** names = RLX_NEW_ARRAY(ctx, const char*, n_state + 2);
    names[0] = names[1] = "";
    for (int k = 0; k < n_state; k++) names[2 + k] = input_name(g, k);
    L->f.fname = rlx_ctx_sprintf(ctx, "%s_body", rlx_onnx_ident(ctx, first_output(node, "scan")));
    L->f.n_lead = n_state + 2;
    L->f.lead = RLX_NEW_ARRAY(ctx, rlx_relax_var_t*, n_state + 2);
    L->f.lead_names = names;
    L->f.n_tail = m;
    L->f.tail = RLX_NEW_ARRAY(ctx, rlx_relax_var_t*, m > 0 ? m : 1);
    for (int j = 0; j < m; j++)
      L->f.tail[j] = rlx_relax_var(ctx, rlx_ctx_sprintf(ctx, "%s_all", rlx_onnx_ident(ctx, input_name(g, n_state + j))),
                                   xs[j]->sinfo);
    L->f.prologue = scan_prologue;
    L->f.user = u;
    L->f.cond_first = true;
    L->f.tuple = true;
    loop_counters(ctx, "", "", L->f.lead);
    RLX_RETURN_IF_ERROR(loop_body(im, node, g, names + 2, 0, L));
  }
  return loop_call(im, node, L, rlx_relax_prim_value(ctx, len), NULL, n_state, len, m, xs, res);
}

/* The rank of tensor input e (an error naming input i when it has none). */
static RLX_MUST_USE rlx_status_t* ranked(const rlx_onnx_node_t* node, rlx_relax_expr_t* e, int i, int* out) {
  rlx_sinfo_tensor_t* t = e ? as_tensor(e->sinfo) : NULL;
  if (!t || !t->shape) return rlx_onnx_error(node, "input %d must be a tensor of known shape", i);
  *out = t->ndim;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_convert_scan(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                 rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = im->ctx;
  const Onnx__GraphProto* g = rlx_onnx_attr_graph(node, "body");
  if (!g) return rlx_onnx_error(node, "needs a body graph");
  bool v8 = im->opset < 9; /* Scan-8: input 0 is sequence_lens, every input has a batch axis 0 */
  int first = v8 ? 1 : 0;
  int64_t m = rlx_onnx_attr_int(node, "num_scan_inputs", -1);
  if (m < 1 || m > node->n_inputs - first) return rlx_onnx_error(node, "num_scan_inputs must be in [1, %d]", node->n_inputs - first);
  int n_state = node->n_inputs - first - (int)m, n_in = (int)m;
  if ((int)g->n_input != n_state + n_in)
    return rlx_onnx_error(node, "the body has %zu inputs, expected %d (%d states, %d scan inputs)", g->n_input,
                          n_state + n_in, n_state, n_in);
  if ((int)g->n_output < n_state) return rlx_onnx_error(node, "the body has fewer outputs than the %d states", n_state);
  int n_scan = (int)g->n_output - n_state;
  if (node->n_outputs > n_state + n_scan) return rlx_onnx_error(node, "has more outputs than its body");
  if (v8 && inputs[0]) return rlx_onnx_error(node, "sequence_lens is not supported (every sequence runs its full length)");
  int* ranks = RLX_NEW_ARRAY(ctx, int, n_in + n_state + 1);
  for (int i = 0; i < n_state + n_in; i++) RLX_RETURN_IF_ERROR(ranked(node, inputs[first + i], first + i, &ranks[i]));
  int64_t *in_axes = NULL, *in_dirs = NULL, *out_axes = NULL, *out_dirs = NULL;
  int* in_ranks = ranks + n_state;
  int* out_ranks = RLX_NEW_ARRAY(ctx, int, n_scan > 0 ? n_scan : 1);
  rlx_relax_expr_t** x = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n_in);
  rlx_relax_expr_t** st = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n_state > 0 ? n_state : 1);
  for (int k = 0; k < n_state; k++) st[k] = inputs[first + k];
  for (int j = 0; j < n_in; j++) x[j] = inputs[first + n_state + j];
  loop_t L = {0};
  L.n_carried = n_state;
  L.n_scan = n_scan;
  L.init = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n_state > 0 ? n_state : 1);
  scan_user_t u = {g, n_state, n_in, NULL};
  rlx_relax_expr_t** res = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n_state + n_scan > 0 ? n_state + n_scan : 1);
  if (!v8) {
    RLX_RETURN_IF_ERROR(scan_axes(im, node, "scan_input_axes", n_in, in_ranks, &in_axes));
    RLX_RETURN_IF_ERROR(scan_axes(im, node, "scan_input_directions", n_in, NULL, &in_dirs));
    for (int j = 0; j < n_in; j++)
      if (in_dirs[j]) RLX_RETURN_IF_ERROR(op1(im, RLX_OP_FLIP, x[j], "axis", rlx_attr_int(in_axes[j]), &x[j]));
    u.axes = in_axes;
    RLX_RETURN_IF_ERROR(scan_run(im, node, g, &L, &u, st, x, res));
    for (int k = 0; k < n_scan; k++) out_ranks[k] = as_tensor(res[n_state + k]->sinfo)->ndim;
    RLX_RETURN_IF_ERROR(scan_axes(im, node, "scan_output_axes", n_scan, out_ranks, &out_axes));
    RLX_RETURN_IF_ERROR(scan_axes(im, node, "scan_output_directions", n_scan, NULL, &out_dirs));
  } else {
    /* per batch element b: the scan of slice b of every input, then the results stacked */
    RLX_RETURN_IF_ERROR(scan_axes(im, node, "directions", n_in, NULL, &in_dirs));
    int64_t batch = -1;
    for (int i = 0; i < n_state + n_in; i++) {
      rlx_sinfo_tensor_t* t = as_tensor(inputs[first + i]->sinfo);
      int64_t b = 0;
      if (t->ndim < 1 + (i >= n_state) || !rlx_expr_is_const_int(t->shape[0], &b))
        return rlx_onnx_error(node, "input %d needs a batch axis of static length (and a sequence axis for a scan input)", first + i);
      if (batch >= 0 && b != batch) return rlx_onnx_error(node, "the inputs' batch sizes differ (%lld, %lld)", (long long)batch, (long long)b);
      batch = b;
    }
    if (batch < 1 || batch > 256) return rlx_onnx_error(node, "batch size %lld is not supported (1 to 256)", (long long)batch);
    int64_t* zeros = RLX_NEW_ARRAY(ctx, int64_t, n_in);
    for (int j = 0; j < n_in; j++) zeros[j] = 0;
    u.axes = zeros;
    int n_res = n_state + n_scan;
    rlx_relax_expr_t*** per = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t**, n_res > 0 ? n_res : 1);
    for (int r = 0; r < n_res; r++) per[r] = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, batch);
    rlx_relax_expr_t** sb = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n_state > 0 ? n_state : 1);
    rlx_relax_expr_t** xb = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n_in);
    rlx_relax_expr_t** rb = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n_res > 0 ? n_res : 1);
    for (int64_t b = 0; b < batch; b++) {
      rlx_relax_expr_t* idx = rlx_onnx_make_const(im, rlx_dt_int64(), 0, NULL, &b);
      for (int k = 0; k < n_state; k++)
        RLX_RETURN_IF_ERROR(rlx_onnx_emit(im, rlx_relax_op_call(ctx, RLX_OP_TAKE, 2, (rlx_relax_expr_t*[]){st[k], idx},
                                                                rlx_attrs_set(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_int(0))),
                                          &sb[k]));
      for (int j = 0; j < n_in; j++) {
        RLX_RETURN_IF_ERROR(rlx_onnx_emit(im, rlx_relax_op_call(ctx, RLX_OP_TAKE, 2, (rlx_relax_expr_t*[]){x[j], idx},
                                                                rlx_attrs_set(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_int(0))),
                                          &xb[j]));
        if (in_dirs[j]) RLX_RETURN_IF_ERROR(op1(im, RLX_OP_FLIP, xb[j], "axis", rlx_attr_int(0), &xb[j]));
      }
      RLX_RETURN_IF_ERROR(scan_run(im, node, g, &L, &u, sb, xb, rb));
      for (int r = 0; r < n_res; r++) per[r][b] = rb[r];
    }
    for (int r = 0; r < n_res; r++) { /* stack along a new batch axis */
      for (int64_t b = 0; b < batch; b++) RLX_RETURN_IF_ERROR(op1(im, RLX_OP_EXPAND_DIMS, per[r][b], "axis",
                                                                  rlx_attr_ints(1, (int64_t[]){0}), &per[r][b]));
      RLX_RETURN_IF_ERROR(rlx_onnx_emit(im, rlx_relax_op_call(ctx, RLX_OP_CONCAT, 1,
                                                              (rlx_relax_expr_t*[]){rlx_relax_tuple(ctx, (int)batch, per[r])},
                                                              rlx_attrs_set(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_int(0))),
                                        &res[r]));
    }
    out_axes = RLX_NEW_ARRAY(ctx, int64_t, n_scan > 0 ? n_scan : 1);
    out_dirs = RLX_NEW_ARRAY(ctx, int64_t, n_scan > 0 ? n_scan : 1);
    for (int k = 0; k < n_scan; k++) { /* Scan-8 stacks along axis 1, after the batch */
      out_axes[k] = 1;
      out_dirs[k] = 0;
    }
  }
  for (int k = 0; k < n_scan; k++) {
    rlx_relax_expr_t** y = &res[n_state + k];
    int r = as_tensor((*y)->sinfo)->ndim, from = v8 ? 1 : 0;
    if (out_dirs[k]) RLX_RETURN_IF_ERROR(op1(im, RLX_OP_FLIP, *y, "axis", rlx_attr_int(from), y));
    if (out_axes[k] != from) { /* move the scan axis `from` to out_axes[k] */
      int64_t* perm = RLX_NEW_ARRAY(ctx, int64_t, r);
      for (int d = 0, s = 0; d < r; d++) {
        if (s == from) s++;
        perm[d] = d == out_axes[k] ? from : s++;
      }
      RLX_RETURN_IF_ERROR(op1(im, RLX_OP_PERMUTE_DIMS, *y, "axes", rlx_attr_ints(r, perm), y));
    }
  }
  for (int i = 0; i < node->n_outputs; i++) outputs[i] = res[i];
  return NULL;
}

/* ------------------------------------------------------------------ SequenceMap */
/* The body runs as a loop over the first input's length (vm.builtin.loop with one carried
 * list per output, starting empty): its prologue takes element `iteration` of each sequence
 * input (the tail params; other inputs are passed whole), its epilogue appends each output
 * to its list. */
typedef struct {
  const Onnx__GraphProto* g;
  const rlx_onnx_node_t* node;
  int n_in;
  const rlx_onnx_type_t** elem; /* per input: the element type of a sequence, NULL for a tensor */
} map_user_t;

static RLX_MUST_USE rlx_status_t* map_prologue(rlx_onnx_importer_t* sub, subfn_t* f) {
  map_user_t* u = f->user;
  for (int j = 0; j < u->n_in; j++) {
    rlx_relax_expr_t* v = &f->tail[j]->hdr;
    if (u->elem[j]) {
      rlx_relax_expr_t* args[2] = {v, &f->lead[0]->hdr};
      RLX_RETURN_IF_ERROR(rlx_onnx_call_builtin(sub, "vm.builtin.sequence_at", 2, args,
                                                rlx_onnx_type_sinfo(sub->ctx, u->elem[j]), &v));
      RLX_RETURN_IF_ERROR(rlx_onnx_with_dims(sub, u->node, v, &v));
    }
    const char* nm = input_name(u->g, j);
    if (nm[0]) rlx_onnx_strmap_put(&sub->values, nm, v);
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* map_epilogue(rlx_onnx_importer_t* sub, subfn_t* f, rlx_relax_expr_t** outs, int n) {
  map_user_t* u = f->user;
  for (int i = 0; i < n; i++) {
    if (!as_tensor(outs[i]->sinfo))
      return rlx_onnx_error(u->node, "body output %d must be a tensor (sequences of sequences are not supported)", i);
    rlx_relax_expr_t* args[2] = {&f->lead[2 + i]->hdr, outs[i]};
    RLX_RETURN_IF_ERROR(rlx_onnx_call_builtin(sub, "vm.builtin.sequence_insert", 2, args, rlx_sinfo_object(sub->ctx), &outs[i]));
  }
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_convert_sequence_map(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                         rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = im->ctx;
  const Onnx__GraphProto* g = rlx_onnx_attr_graph(node, "body");
  if (!g) return rlx_onnx_error(node, "needs a body graph");
  int n_in = node->n_inputs, n_out = node->n_outputs;
  if (n_in < 1 || (int)g->n_input != n_in)
    return rlx_onnx_error(node, "the body has %zu inputs, expected %d (one per input)", g->n_input, n_in);
  if (n_out < 1 || (int)g->n_output != n_out)
    return rlx_onnx_error(node, "the body has %zu outputs, expected %d (one per output)", g->n_output, n_out);
  map_user_t u = {g, node, n_in, RLX_NEW_ARRAY(ctx, const rlx_onnx_type_t*, n_in)};
  for (int j = 0; j < n_in; j++) {
    if (!inputs[j]) return rlx_onnx_error(node, "input %d is missing", j);
    if (as_tensor(inputs[j]->sinfo)) {
      if (j == 0) return rlx_onnx_error(node, "input 0 must be a sequence");
      continue;
    }
    const rlx_onnx_type_t* t = rlx_onnx_value_type(im, node->inputs[j], inputs[j]);
    if (t->kind != RLX_ONNX_T_SEQ || (t->elem->kind != RLX_ONNX_T_TENSOR && t->elem->kind != RLX_ONNX_T_UNKNOWN))
      return rlx_onnx_error(node, "input %d ('%s') must be a tensor or a sequence of tensors", j, node->inputs[j]);
    u.elem[j] = t->elem->kind == RLX_ONNX_T_TENSOR ? t->elem : rlx_onnx_type_tensor(ctx, rlx_dt_void(), -1);
  }
  rlx_relax_expr_t* len = NULL;
  if (inputs[0]->sinfo->kind == RLX_SINFO_TUPLE)
    len = rlx_relax_prim_value(ctx, rlx_ir_i64(ctx, ((rlx_sinfo_tuple_t*)inputs[0]->sinfo)->n_fields));
  else
    RLX_RETURN_IF_ERROR(rlx_onnx_call_builtin(im, "vm.builtin.sequence_length", 1, inputs,
                                              rlx_sinfo_tensor_const(ctx, 0, NULL, rlx_dt_int64()), &len));
  loop_t L = {0};
  L.n_carried = n_out;
  L.init = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n_out);
  L.general = RLX_NEW_ARRAY(ctx, bool, n_out);
  L.ctype = RLX_NEW_ARRAY(ctx, const rlx_onnx_type_t*, n_out);
  const char** names = RLX_NEW_ARRAY(ctx, const char*, n_out + 2);
  L.f.lead = RLX_NEW_ARRAY(ctx, rlx_relax_var_t*, n_out + 2);
  loop_counters(ctx, "", "", L.f.lead);
  names[0] = names[1] = "";
  for (int k = 0; k < n_out; k++) {
    L.init[k] = rlx_relax_tuple(ctx, 0, NULL);
    L.general[k] = true; /* starts as an empty tuple, returned as a list */
    names[2 + k] = "";
    L.f.lead[2 + k] = rlx_relax_var(ctx, rlx_ctx_sprintf(ctx, "acc%d", k), rlx_sinfo_object(ctx));
  }
  L.f.fname = rlx_ctx_sprintf(ctx, "%s_body", rlx_onnx_ident(ctx, first_output(node, "sequence_map")));
  L.f.n_lead = n_out + 2;
  L.f.lead_names = names;
  L.f.n_tail = n_in;
  L.f.tail = RLX_NEW_ARRAY(ctx, rlx_relax_var_t*, n_in);
  for (int j = 0; j < n_in; j++)
    L.f.tail[j] = rlx_relax_var(ctx, rlx_ctx_sprintf(ctx, "%s_all", rlx_onnx_ident(ctx, input_name(g, j))), inputs[j]->sinfo);
  L.f.prologue = map_prologue;
  L.f.epilogue = map_epilogue;
  L.f.user = &u;
  L.f.cond_first = true;
  L.f.tuple = true;
  RLX_RETURN_IF_ERROR(subgraph_function(im, node, g, &L.f));
  for (int k = 0; k < n_out; k++) L.ctype[k] = rlx_onnx_type_wrap(ctx, RLX_ONNX_T_SEQ, L.f.out_types[k]);
  rlx_relax_expr_t** res = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n_out);
  RLX_RETURN_IF_ERROR(loop_call(im, node, &L, len, NULL, n_out, NULL, n_in, inputs, res));
  for (int k = 0; k < n_out; k++) {
    outputs[k] = res[k];
    rlx_onnx_set_value_type(im, node->outputs[k], L.ctype[k]);
  }
  return NULL;
}
