/* Pass fuse_ops (TVM's FuseOps; fuse_tir, the next pass, merges the groups it makes).
 *
 * Requires: a well-formed module after legalize_ops: call_tir of PrimFuncs in block form.
 * Produces: inside every dataflow block, chains of call_tir are grouped and each group of
 * two or more calls becomes ONE call of a new private Relax function named
 * "fused_<callee names joined by _>" (TVM's naming) with the attribute "Primitive": 1,
 * bound to the var of the group's last call at its place; the other bindings of the group
 * disappear. The grouped function holds the group's call_tirs in one dataflow block; its
 * params are the group's external inputs (deduplicated, in first-use order), then, when a
 * symbolic var the calls use is not a whole dim of an input's shape, one R.Shape of those
 * vars (the caller passes R.shape([...]) of its own). The PrimFuncs stay (the grouped
 * functions call them).
 *
 * Grouping (a simplified form of TVM's dominator-based rule, in binding order): a call
 * joins the group of a producer (an earlier call_tir of the same dataflow block whose result
 * it takes) when every use of every var of that group lies inside the group or in this
 * call, and the patterns allow it (see fuse.h for the patterns):
 *   consumer elementwise/broadcast: after an elementwise/broadcast/injective group, or after
 *     a reduction / contraction (they absorb following elementwise ops: matmul + add + relu);
 *   consumer injective: after an elementwise/broadcast/injective group;
 *   consumer reduction: after an elementwise/broadcast group (exp + sum);
 *   consumer contraction or opaque: never.
 * A group holds at most one reduction or contraction. Calls with several outputs or unknown
 * shapes are left alone. A group FuseTIR cannot merge (rlx_fuse_tir, asked here) is left
 * ungrouped, so fuse_tir merges every group. Functions that are groups already ("Primitive")
 * are left to fuse_tir.
 */
#include <stdint.h>
#include <string.h>

#include "fuse.h"
#include "pass.h"
#include "pass_util.h"

/* ---------------------------------------------------------------- patterns */
const char* rlx_op_pattern_name(rlx_op_pattern_t p) {
  switch (p) {
    case RLX_PATTERN_ELEMWISE:
      return "elemwise";
    case RLX_PATTERN_BROADCAST:
      return "broadcast";
    case RLX_PATTERN_INJECTIVE:
      return "injective";
    case RLX_PATTERN_COMM_REDUCE:
      return "reduce";
    case RLX_PATTERN_OUT_EWISE_FUSABLE:
      return "out_ewise_fusable";
    case RLX_PATTERN_TUPLE:
      return "tuple";
    case RLX_PATTERN_OPAQUE:
      return "opaque";
  }
  return "opaque";
}

static rlx_op_pattern_t pmax(rlx_op_pattern_t a, rlx_op_pattern_t b) { return a > b ? a : b; }

typedef struct {
  rlx_op_pattern_t kind;
  int n_blocks;
  const rlx_tir_store_t* store; /* of the block being analyzed */
} pat_t;

/* TVM's IsBroadcastPattern: the load's indices, unit dims indexed by 0 skipped, appear in
 * the store's indices in order. */
static bool is_broadcast(const rlx_tir_store_t* st, const rlx_buffer_load_t* l) {
  int j = 0;
  for (int i = 0; i < l->n_indices; i++) {
    int64_t one = 0, zero = -1;
    if (rlx_expr_is_const_int(l->buffer->shape[i], &one) && one == 1 && rlx_expr_is_const_int(l->indices[i], &zero) &&
        zero == 0)
      continue;
    while (j < st->n_indices && !rlx_expr_same_value(st->indices[j], l->indices[i])) j++;
    if (j == st->n_indices) return false;
    j++;
  }
  return true;
}

static void pat_load(const rlx_expr_t* e, void* user) {
  pat_t* p = user;
  if (e->kind != RLX_EXPR_BUFFER_LOAD) return;
  const rlx_buffer_load_t* l = (const rlx_buffer_load_t*)e;
  const rlx_tir_store_t* st = p->store;
  if (l->buffer == st->buffer) return; /* the reduction's own accumulator */
  bool same = l->n_indices == st->n_indices;
  for (int i = 0; same && i < l->n_indices; i++) same = rlx_expr_same_value(l->indices[i], st->indices[i]);
  rlx_op_pattern_t k = same                  ? RLX_PATTERN_ELEMWISE
                       : is_broadcast(st, l) ? RLX_PATTERN_BROADCAST
                                             : RLX_PATTERN_INJECTIVE;
  p->kind = pmax(p->kind, k);
}

static const rlx_expr_t* strip_cast(const rlx_expr_t* e) {
  while (e->kind == RLX_EXPR_CAST) e = RLX_AS(const rlx_cast_t, e)->value;
  return e;
}

/* C[v] = C[v] + X * Y with X, Y loads (casts allowed): a multiply-accumulate contraction. */
static bool is_mac(const rlx_tir_store_t* st) {
  const rlx_expr_t* v = st->value;
  if (v->kind != RLX_EXPR_ADD) return false;
  const rlx_binary_t* add = RLX_AS(const rlx_binary_t, v);
  const rlx_expr_t* acc = add->a;
  const rlx_expr_t* prod = strip_cast(add->b);
  if (acc->kind != RLX_EXPR_BUFFER_LOAD || RLX_AS(const rlx_buffer_load_t, acc)->buffer != st->buffer) return false;
  if (prod->kind != RLX_EXPR_MUL) return false;
  const rlx_binary_t* mul = RLX_AS(const rlx_binary_t, prod);
  return strip_cast(mul->a)->kind == RLX_EXPR_BUFFER_LOAD && strip_cast(mul->b)->kind == RLX_EXPR_BUFFER_LOAD;
}

static rlx_op_pattern_t block_pattern(const rlx_tir_block_t* b) {
  const rlx_tir_stmt_t* body = b->body;
  if (body->kind == RLX_STMT_IF && !RLX_AS(const rlx_tir_if_t, body)->else_case) /* conditional reduction */
    body = RLX_AS(const rlx_tir_if_t, body)->then_case;
  if (body->kind != RLX_STMT_BUFFER_STORE) return RLX_PATTERN_OPAQUE;
  const rlx_tir_store_t* st = RLX_AS(const rlx_tir_store_t, body);
  bool has_reduce = false;
  for (int i = 0; i < b->n_iter_vars; i++) has_reduce |= b->iter_vars[i]->kind == RLX_ITER_REDUCE;
  /* the store must be at distinct spatial iter vars */
  for (int i = 0; i < st->n_indices; i++) {
    const rlx_expr_t* ix = st->indices[i];
    bool ok = false;
    for (int k = 0; k < b->n_iter_vars && !ok; k++)
      ok = ix == &b->iter_vars[k]->var->hdr && b->iter_vars[k]->kind == RLX_ITER_SPATIAL;
    for (int j = 0; j < i && ok; j++) ok = st->indices[j] != ix;
    if (!ok) return RLX_PATTERN_OPAQUE;
  }
  if (has_reduce) return is_mac(st) ? RLX_PATTERN_OUT_EWISE_FUSABLE : RLX_PATTERN_COMM_REDUCE;
  pat_t p = {RLX_PATTERN_ELEMWISE, 0, st};
  rlx_expr_visit(st->value, pat_load, &p);
  return p.kind;
}

static void pat_block(const rlx_tir_block_t* b, void* user) {
  pat_t* p = user;
  if (b->n_iter_vars == 0) { /* the root block: it may only hold other blocks */
    if (b->init) p->kind = RLX_PATTERN_OPAQUE;
    return;
  }
  p->n_blocks++;
  p->kind = pmax(p->kind, block_pattern(b));
}

/* Stores outside any block make the function opaque. */
static bool stmt_has_stray_store(const rlx_tir_stmt_t* s) {
  if (!s) return false;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE:
      return true;
    case RLX_STMT_FOR:
      return stmt_has_stray_store(RLX_AS(const rlx_tir_for_t, s)->body);
    case RLX_STMT_SEQ: {
      const rlx_tir_seq_t* q = RLX_AS(const rlx_tir_seq_t, s);
      for (int i = 0; i < q->n; i++)
        if (stmt_has_stray_store(q->stmts[i])) return true;
      return false;
    }
    case RLX_STMT_IF:
      return stmt_has_stray_store(RLX_AS(const rlx_tir_if_t, s)->then_case) ||
             stmt_has_stray_store(RLX_AS(const rlx_tir_if_t, s)->else_case);
    case RLX_STMT_LET:
      return stmt_has_stray_store(RLX_AS(const rlx_tir_let_t, s)->body);
    case RLX_STMT_ALLOCATE:
      return stmt_has_stray_store(RLX_AS(const rlx_tir_allocate_t, s)->body);
    case RLX_STMT_BLOCK_REALIZE: {
      const rlx_tir_block_t* b = RLX_AS(const rlx_tir_block_realize_t, s)->block;
      return b->n_iter_vars == 0 && stmt_has_stray_store(b->body);
    }
    case RLX_STMT_EVALUATE:
      return true;
    case RLX_STMT_KIND_COUNT:
      return false;
  }
  return false;
}

rlx_op_pattern_t rlx_tir_func_pattern(const rlx_tir_func_t* f) {
  int64_t v = 0;
  if (rlx_expr_is_const_int(rlx_tir_func_get_attr(f, "op_pattern"), &v)) {
    switch (v) {
      case 0:
        return RLX_PATTERN_ELEMWISE;
      case 1:
        return RLX_PATTERN_BROADCAST;
      case 2:
        return RLX_PATTERN_INJECTIVE;
      case 3:
        return RLX_PATTERN_COMM_REDUCE;
      case 4:
        return RLX_PATTERN_OUT_EWISE_FUSABLE;
      case 7:
        return RLX_PATTERN_TUPLE;
      default:
        return RLX_PATTERN_OPAQUE;
    }
  }
  if (rlx_expr_is_const_int(rlx_tir_func_get_attr(f, "tir.is_scheduled"), &v) && v) return RLX_PATTERN_OPAQUE;
  if (!f->body || stmt_has_stray_store(f->body)) return RLX_PATTERN_OPAQUE;
  for (int i = 0; i < f->n_params; i++) /* FuseTIR makes compact buffers */
    if (f->buffer_map[i] && (f->buffer_map[i]->strides || f->buffer_map[i]->elem_offset)) return RLX_PATTERN_OPAQUE;
  pat_t p = {RLX_PATTERN_ELEMWISE, 0, NULL};
  rlx_tir_visitor_t vis = {NULL, NULL, pat_block, &p};
  rlx_tir_stmt_visit(f->body, &vis);
  return p.n_blocks ? p.kind : RLX_PATTERN_OPAQUE;
}

/* ---------------------------------------------------------------- grouping */
typedef struct {
  rlx_ctx_t* ctx;
  rlx_module_t* m;
  rlx_ptrmap_t uses; /* Relax var → number of uses in the function (as intptr) */
} fz_t;

static void count_use(const rlx_relax_expr_t* e, void* user) {
  fz_t* z = user;
  if (!rlx_relax_is_var(e)) return;
  intptr_t n = (intptr_t)rlx_ptrmap_get(&z->uses, e);
  rlx_ptrmap_put(&z->uses, e, (void*)(n + 1));
}

static bool is_anchor(rlx_op_pattern_t p) { return p == RLX_PATTERN_COMM_REDUCE || p == RLX_PATTERN_OUT_EWISE_FUSABLE; }

static bool can_join(rlx_op_pattern_t group, rlx_op_pattern_t consumer) {
  switch (consumer) {
    case RLX_PATTERN_ELEMWISE:
    case RLX_PATTERN_BROADCAST:
      return group <= RLX_PATTERN_OUT_EWISE_FUSABLE;
    case RLX_PATTERN_INJECTIVE:
      return group <= RLX_PATTERN_INJECTIVE;
    case RLX_PATTERN_COMM_REDUCE:
      return group <= RLX_PATTERN_BROADCAST;
    case RLX_PATTERN_OUT_EWISE_FUSABLE:
    case RLX_PATTERN_TUPLE:
    case RLX_PATTERN_OPAQUE:
      return false;
  }
  return false;
}

typedef struct {
  int n;
  rlx_relax_binding_t** b;
  rlx_relax_call_t** call; /* fusible call_tir per binding, else NULL */
  rlx_tir_func_t** func;
  rlx_op_pattern_t* pat;   /* of the binding's own call */
  int* parent;             /* union-find */
  rlx_op_pattern_t* gpat;  /* group pattern (at the root) */
  int* ganchors;           /* reductions/contractions in the group (at the root) */
  int *head, *tail, *next; /* members of each group as a linked list (at the root) */
} blk_t;

static int find(blk_t* k, int i) {
  while (k->parent[i] != i) i = k->parent[i] = k->parent[k->parent[i]];
  return i;
}

static rlx_sinfo_tensor_t* known_tensor(const rlx_sinfo_t* s) {
  if (!s || s->kind != RLX_SINFO_TENSOR) return NULL;
  rlx_sinfo_tensor_t* ts = (rlx_sinfo_tensor_t*)s;
  return ts->shape && !rlx_dtype_is_void(ts->dtype) ? ts : NULL;
}

/* The call_tir of binding b when it can take part in fusion. */
static rlx_relax_call_t* fusible_call(fz_t* z, rlx_relax_binding_t* b, rlx_tir_func_t** out_f) {
  if (b->kind != RLX_BINDING_VAR || b->value->kind != RLX_RELAX_CALL) return NULL;
  rlx_relax_call_t* c = (rlx_relax_call_t*)b->value;
  rlx_tir_func_t* f = pass_call_tir_func(z->m, c);
  if (!f || c->args[1]->kind != RLX_RELAX_TUPLE || c->n_sinfo_args != 1) return NULL;
  if (c->n_args == 3 && c->args[2]->kind != RLX_RELAX_SHAPE_EXPR) return NULL;
  int n_tv = c->n_args == 3 ? ((rlx_relax_shape_expr_t*)c->args[2])->ndim : 0;
  if (!known_tensor(c->sinfo_args[0])) return NULL;
  rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)c->args[1];
  if (f->n_params != t->n_fields + 1 + n_tv) return NULL;
  for (int i = 0; i < t->n_fields; i++)
    if (!known_tensor(t->fields[i]->sinfo)) return NULL;
  for (int i = 0; i < f->n_params; i++)
    if ((i <= t->n_fields) != (f->buffer_map[i] != NULL)) return NULL;
  *out_f = f;
  return c;
}

/* Uses, by the calls of group `by`, of the vars of group `of`; with check set, false when one
 * of those users does not accept of's pattern (*out_ok). */
static int cross_uses(blk_t* k, const rlx_ptrmap_t* index, int of, int by, bool check, bool* out_ok) {
  int n = 0;
  for (int q = k->head[by]; q >= 0; q = k->next[q]) {
    rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)k->call[q]->args[1];
    int c = 0;
    for (int a = 0; a < t->n_fields; a++) {
      intptr_t p = (intptr_t)rlx_ptrmap_get(index, t->fields[a]) - 1;
      if (p >= 0 && k->call[p] && find(k, (int)p) == of) c++;
    }
    if (c && check && !can_join(k->gpat[of], k->pat[q])) *out_ok = false;
    n += c;
  }
  return n;
}

/* Joins group g into the group of call kk when every use of every var of g lies inside g or
 * kk's group and each consumer there accepts g's pattern. ext[root] = uses of the group's
 * vars from outside the group (kept up to date on every join). */
static bool try_join(blk_t* k, const rlx_ptrmap_t* index, int* ext, int g, int kk) {
  int gk = find(k, kk);
  if (g == gk || k->ganchors[g] + k->ganchors[gk] > 1) return false;
  bool ok = true;
  int in_gk = cross_uses(k, index, g, gk, true, &ok);
  if (!ok || in_gk != ext[g]) return false;
  int in_g = cross_uses(k, index, gk, g, false, &ok);
  k->parent[g] = gk;
  k->gpat[gk] = pmax(k->gpat[gk], k->gpat[g]);
  k->ganchors[gk] += k->ganchors[g];
  k->next[k->tail[gk]] = k->head[g];
  k->tail[gk] = k->tail[g];
  ext[gk] = ext[gk] + ext[g] - in_gk - in_g;
  return true;
}

static const char* fused_name(rlx_ctx_t* ctx, blk_t* k, const int* members, int n) {
  rlx_strbuf_t sb = {0};
  rlx_strbuf_append(&sb, "fused");
  for (int i = 0; i < n; i++)
    rlx_strbuf_printf(&sb, "_%s", ((rlx_relax_global_var_t*)k->call[members[i]]->args[0])->name);
  const char* s = rlx_strbuf_cstr(&sb);
  if (strlen(s) > 80) /* TVM also shortens long fused names */
    s = rlx_ctx_sprintf(ctx, "%.60s_%016llx", s, (unsigned long long)rlx_hash_bytes(s, strlen(s), 0));
  else
    s = rlx_ctx_strdup(ctx, s);
  rlx_strbuf_free(&sb);
  return s;
}

/* ---------------------------------------------------------------- grouped functions */
typedef struct {
  rlx_ptrmap_t defined; /* symbolic vars that are a whole dim of an input's shape */
  rlx_ptrmap_t seen;
  RLX_VEC(rlx_var_t*) missing; /* used, not defined: passed in one R.Shape param */
} syms_t;

static void sym_define(rlx_var_t* v, bool whole_dim, void* user) {
  if (whole_dim) rlx_ptrmap_put(&((syms_t*)user)->defined, v, v);
}

static void sym_use(rlx_var_t* v, bool whole_dim, void* user) {
  syms_t* y = user;
  if (rlx_ptrmap_has(&y->defined, v) || rlx_ptrmap_has(&y->seen, v)) return;
  rlx_ptrmap_put(&y->seen, v, v);
  rlx_vec_push(&y->missing, v);
}

static void sym_use_expr(const rlx_expr_t* e, void* user) {
  if (e->kind == RLX_EXPR_VAR) sym_use((rlx_var_t*)e, false, user);
}

/* The private Relax function of one group (see the top of this file) added to the module,
 * and the call of it that replaces the group: *out_call, normalized. ins (n_in): the
 * group's external inputs as rlx_fuse_tir orders them. */
static RLX_MUST_USE rlx_status_t* group_call(fz_t* z, rlx_bb_t* bb, int cnt, const rlx_fuse_member_t* fm,
                                             rlx_relax_call_t* const* calls, const int* members, int n_in,
                                             rlx_relax_expr_t* const* ins, const char* name,
                                             rlx_relax_expr_t** out_call) {
  rlx_ctx_t* ctx = z->ctx;
  syms_t y = {0};
  for (int i = 0; i < n_in; i++) rlx_sinfo_visit_vars(ins[i]->sinfo, sym_define, &y);
  for (int i = 0; i < n_in; i++) rlx_sinfo_visit_vars(ins[i]->sinfo, sym_use, &y);
  for (int j = 0; j < cnt; j++) {
    rlx_sinfo_visit_vars(fm[j].out_sinfo, sym_use, &y);
    for (int t = 0; t < fm[j].n_tir_vars; t++) rlx_expr_visit(fm[j].tir_vars[t], sym_use_expr, &y);
  }
  int n_sym = (int)y.missing.len;
  rlx_expr_t** sym = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n_sym > 0 ? n_sym : 1);
  for (int i = 0; i < n_sym; i++) sym[i] = &y.missing.data[i]->hdr;
  rlx_ptrmap_free(&y.defined);
  rlx_ptrmap_free(&y.seen);
  rlx_vec_free(&y.missing);
  /* params: the inputs, then the symbolic vars; the caller's args the same */
  int n_params = n_in + (n_sym > 0);
  rlx_relax_var_t** params = RLX_NEW_ARRAY(ctx, rlx_relax_var_t*, n_params);
  rlx_relax_expr_t** args = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n_params);
  rlx_ptrmap_t vmap = {0}; /* caller's value → the grouped function's var */
  for (int i = 0; i < n_in; i++) {
    const char* pname = rlx_relax_is_var(ins[i]) ? ((rlx_relax_var_t*)ins[i])->name : rlx_ctx_sprintf(ctx, "p%d", i);
    params[i] = rlx_relax_var(ctx, pname, ins[i]->sinfo);
    args[i] = ins[i];
    rlx_ptrmap_put(&vmap, ins[i], params[i]);
  }
  if (n_sym > 0) {
    args[n_in] = rlx_relax_shape_expr(ctx, n_sym, sym);
    params[n_in] = rlx_relax_var(ctx, "shape", rlx_sinfo_shape(ctx, n_sym, sym));
  }
  /* body: the group's calls, each bound to a new var (the last one the function's result) */
  rlx_relax_binding_t** bs = RLX_NEW_ARRAY(ctx, rlx_relax_binding_t*, cnt);
  rlx_relax_var_t* res = NULL;
  for (int j = 0; j < cnt; j++) {
    rlx_relax_call_t* c = calls[members[j]];
    rlx_relax_expr_t** a = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, fm[j].n_args > 0 ? fm[j].n_args : 1);
    for (int i = 0; i < fm[j].n_args; i++) {
      rlx_relax_expr_t* v = rlx_ptrmap_get(&vmap, fm[j].args[i]);
      a[i] = v ? v : fm[j].args[i];
    }
    rlx_relax_expr_t* inner = rlx_relax_call_tir(ctx, c->args[0], fm[j].n_args, a, fm[j].out_sinfo,
                                                 c->n_args == 3 ? c->args[2] : NULL);
    rlx_relax_var_t* v = j < cnt - 1 ? rlx_relax_dataflow_var(ctx, fm[j].var->name, fm[j].var->hdr.sinfo)
                                     : rlx_relax_var(ctx, fm[j].var->name, fm[j].var->hdr.sinfo);
    rlx_ptrmap_put(&vmap, fm[j].var, v);
    bs[j] = rlx_relax_var_binding(ctx, v, inner);
    res = v;
  }
  rlx_ptrmap_free(&vmap);
  rlx_relax_block_t* blk = rlx_relax_block(ctx, true, cnt, bs);
  rlx_relax_expr_t* body = rlx_relax_seq(ctx, 1, &blk, &res->hdr);
  rlx_attrs_t attrs = rlx_attrs_set(ctx, (rlx_attrs_t){0}, "Primitive", rlx_attr_int(1));
  rlx_relax_func_t* gf = rlx_relax_func(ctx, n_params, params, body, NULL, attrs, true);
  RLX_RETURN_IF_ERROR(rlx_relax_normalize(ctx, z->m, &gf->hdr));
  rlx_relax_expr_t* gv = NULL;
  RLX_RETURN_IF_ERROR(rlx_bb_add_func(bb, RLX_FUNC_RELAX, gf, name, &gv));
  rlx_relax_expr_t* call = rlx_relax_call(ctx, gv, n_params, args, (rlx_attrs_t){0}, 0, NULL);
  RLX_RETURN_IF_ERROR(rlx_relax_normalize(ctx, z->m, call));
  *out_call = call;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* fuse_block(fz_t* z, rlx_bb_t* bb, rlx_relax_block_t* blk, rlx_relax_block_t** out) {
  rlx_ctx_t* ctx = z->ctx;
  int n = blk->n_bindings;
  blk_t k = {n,
             blk->bindings,
             RLX_NEW_ARRAY(ctx, rlx_relax_call_t*, n),
             RLX_NEW_ARRAY(ctx, rlx_tir_func_t*, n),
             RLX_NEW_ARRAY(ctx, rlx_op_pattern_t, n),
             RLX_NEW_ARRAY(ctx, int, n),
             RLX_NEW_ARRAY(ctx, rlx_op_pattern_t, n),
             RLX_NEW_ARRAY(ctx, int, n),
             RLX_NEW_ARRAY(ctx, int, n),
             RLX_NEW_ARRAY(ctx, int, n),
             RLX_NEW_ARRAY(ctx, int, n)};
  rlx_ptrmap_t index = {0}; /* binding var → index + 1 */
  int* ext = RLX_NEW_ARRAY(ctx, int, n);
  for (int i = 0; i < n; i++) {
    k.parent[i] = i;
    k.head[i] = k.tail[i] = i;
    k.next[i] = -1;
    ext[i] = (int)(intptr_t)rlx_ptrmap_get(&z->uses, blk->bindings[i]->var);
    k.call[i] = fusible_call(z, blk->bindings[i], &k.func[i]);
    k.pat[i] = k.call[i] ? rlx_tir_func_pattern(k.func[i]) : RLX_PATTERN_OPAQUE;
    if (k.pat[i] == RLX_PATTERN_OPAQUE || k.pat[i] == RLX_PATTERN_TUPLE) k.call[i] = NULL;
    k.gpat[i] = k.pat[i];
    k.ganchors[i] = is_anchor(k.pat[i]);
    rlx_ptrmap_put(&index, blk->bindings[i]->var, (void*)(intptr_t)(i + 1));
  }
  for (int i = 0; i < n; i++) {
    if (!k.call[i]) continue;
    /* producers of any call of i's group; repeated, since joining one producer can make
     * another one's uses internal (diamonds: a -> b, a -> c, d = f(b, c)) */
    for (bool progress = true; progress;) {
      progress = false;
      for (int q = k.head[find(&k, i)]; q >= 0 && !progress; q = k.next[q]) {
        rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)k.call[q]->args[1];
        for (int a = 0; a < t->n_fields && !progress; a++) {
          intptr_t p = (intptr_t)rlx_ptrmap_get(&index, t->fields[a]) - 1;
          if (p < 0 || p >= i || !k.call[p]) continue;
          progress = try_join(&k, &index, ext, find(&k, (int)p), i);
        }
      }
    }
  }
  rlx_ptrmap_free(&index);
  /* one fused call per group of two or more */
  rlx_relax_binding_t** nb = RLX_NEW_ARRAY(ctx, rlx_relax_binding_t*, n);
  bool* drop = RLX_NEW_ARRAY(ctx, bool, n);
  int* members = RLX_NEW_ARRAY(ctx, int, n);
  for (int i = 0; i < n; i++) nb[i] = blk->bindings[i];
  /* members of each group in binding order (bucketed by root in one pass) */
  int* start = RLX_NEW_ARRAY(ctx, int, n + 1);
  int* order = RLX_NEW_ARRAY(ctx, int, n);
  for (int i = 0; i < n; i++)
    if (k.call[i]) start[find(&k, i) + 1]++;
  for (int r = 0; r < n; r++) start[r + 1] += start[r];
  int* fill = RLX_NEW_ARRAY(ctx, int, n);
  for (int i = 0; i < n; i++)
    if (k.call[i]) {
      int r = find(&k, i);
      order[start[r] + fill[r]++] = i;
    }
  for (int r = 0; r < n; r++) {
    int cnt = start[r + 1] - start[r];
    if (cnt < 2) continue;
    for (int j = 0; j < cnt; j++) members[j] = order[start[r] + j];
    rlx_fuse_member_t* fm = RLX_NEW_ARRAY(ctx, rlx_fuse_member_t, cnt);
    for (int j = 0; j < cnt; j++) {
      rlx_relax_call_t* c = k.call[members[j]];
      rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)c->args[1];
      fm[j].func = k.func[members[j]];
      fm[j].n_args = t->n_fields;
      fm[j].args = t->fields;
      fm[j].var = blk->bindings[members[j]]->var;
      fm[j].out_sinfo = c->sinfo_args[0];
      if (c->n_args == 3) {
        fm[j].n_tir_vars = ((rlx_relax_shape_expr_t*)c->args[2])->ndim;
        fm[j].tir_vars = ((rlx_relax_shape_expr_t*)c->args[2])->values;
      }
    }
    const char* name = fused_name(ctx, &k, members, cnt);
    rlx_tir_func_t* ff = NULL;
    int n_in = 0, n_tv = 0;
    rlx_relax_expr_t** ins = NULL;
    rlx_expr_t** tv = NULL;
    rlx_status_t* st = rlx_fuse_tir(ctx, cnt, fm, name, &ff, &n_in, &ins, &n_tv, &tv);
    if (st) { /* not mergeable: the group stays as it is */
      rlx_status_drop(st);
      continue;
    }
    rlx_relax_expr_t* call = NULL;
    RLX_RETURN_IF_ERROR(group_call(z, bb, cnt, fm, k.call, members, n_in, ins, name, &call));
    int last = members[cnt - 1];
    nb[last] = rlx_relax_var_binding(ctx, blk->bindings[last]->var, call);
    for (int j = 0; j < cnt - 1; j++) drop[members[j]] = true;
  }
  int m = 0;
  for (int i = 0; i < n; i++)
    if (!drop[i]) nb[m++] = nb[i];
  *out = m == n && memcmp(nb, blk->bindings, sizeof(*nb) * (size_t)n) == 0 ? blk : rlx_relax_block(ctx, true, m, nb);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* fuse_func(fz_t* z, rlx_bb_t* bb, const rlx_relax_func_t* f, rlx_relax_func_t** out) {
  rlx_ctx_t* ctx = z->ctx;
  *out = (rlx_relax_func_t*)f;
  if (f->body->kind != RLX_RELAX_SEQ) return NULL;
  memset(&z->uses, 0, sizeof(z->uses));
  rlx_relax_expr_visit(&f->hdr, count_use, z);
  rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
  rlx_relax_block_t** blocks = RLX_NEW_ARRAY(ctx, rlx_relax_block_t*, seq->n_blocks);
  bool changed = false;
  rlx_status_t* st = NULL;
  for (int i = 0; i < seq->n_blocks && !st; i++) {
    blocks[i] = seq->blocks[i];
    if (seq->blocks[i]->is_dataflow) st = fuse_block(z, bb, seq->blocks[i], &blocks[i]);
    changed |= blocks[i] != seq->blocks[i];
  }
  rlx_ptrmap_free(&z->uses);
  if (st || !changed) return st;
  rlx_relax_expr_t* body = rlx_relax_seq(ctx, seq->n_blocks, blocks, seq->body);
  return pass_func_with_body(ctx, z->m, f, body, out);
}

RLX_MUST_USE rlx_status_t* rlx_pass_fuse_ops(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out) {
  rlx_module_t* m = pass_module_copy(ctx, in);
  rlx_bb_t* bb = rlx_bb_create(ctx, m);
  fz_t z = {ctx, m, {0}};
  int n = in->n_funcs;
  for (int i = 0; i < n; i++) {
    /* a grouped function (fuse_ops' own output, TVM's "Primitive") is fuse_tir's to merge */
    if (m->funcs[i].kind != RLX_FUNC_RELAX || rlx_attrs_get(&((rlx_relax_func_t*)m->funcs[i].func)->attrs, "Primitive"))
      continue;
    rlx_relax_func_t* nf = NULL;
    RLX_RETURN_IF_ERROR(
        rlx_status_annotate(fuse_func(&z, bb, m->funcs[i].func, &nf), "fuse_ops: function '%s'", m->funcs[i].name));
    m->funcs[i].func = nf;
  }
  *out = pass_module_drop_dead_tir(ctx, in, m);
  return NULL;
}
