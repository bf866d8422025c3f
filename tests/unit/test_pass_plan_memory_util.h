/* Helpers shared by the call_tir_rewrite / plan_memory tests: a one-line-per-binding summary
 * of a function (golden structure), op counts, and an independent checker of a memory plan
 * (the oracle: tensors sharing a storage never overlap in time and fit in it). */
#ifndef RLX_TEST_PASS_PLAN_MEMORY_UTIL_H
#define RLX_TEST_PASS_PLAN_MEMORY_UTIL_H

#include <stdio.h>
#include <string.h>

#include "relax/op.h"
#include "relax_test_util.h"
#include "test.h"
#include "transform/memory.h"
#include "transform/pass.h"

static inline rlx_relax_func_t* mem_func(rlx_module_t* m, const char* name) {
  rlx_module_entry_t* e = rlx_module_find(m, name);
  return e && e->kind == RLX_FUNC_RELAX ? e->func : NULL;
}

/* ---- summary: "alloc = R.builtin.alloc_tensor(R.shape([4, 8]), float32, 0)" per binding ---- */
typedef struct {
  rlx_ptrmap_t names; /* var → unique name */
  RLX_VEC(const char*) taken;
  rlx_ctx_t* ctx;
} namer_t;

static inline const char* mem_name(namer_t* nm, const rlx_relax_var_t* v) {
  const char* s = rlx_ptrmap_get(&nm->names, v);
  if (s) return s;
  for (int k = 0;; k++) {
    const char* cand = k ? rlx_ctx_sprintf(nm->ctx, "%s%d", v->name, k) : v->name;
    bool clash = false;
    for (int i = 0; i < nm->taken.len && !clash; i++) clash = strcmp(nm->taken.data[i], cand) == 0;
    if (!clash) {
      rlx_vec_push(&nm->taken, cand);
      rlx_ptrmap_put(&nm->names, v, (void*)cand);
      return cand;
    }
  }
}

static inline void mem_print_expr(namer_t* nm, const rlx_relax_expr_t* e, rlx_strbuf_t* sb) {
  char buf[32];
  switch (e->kind) {
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR: rlx_strbuf_append(sb, mem_name(nm, (const rlx_relax_var_t*)e)); return;
    case RLX_RELAX_SHAPE_EXPR: {
      const rlx_relax_shape_expr_t* s = (const void*)e;
      rlx_strbuf_append(sb, "R.shape([");
      for (int i = 0; i < s->ndim; i++) {
        if (i) rlx_strbuf_append(sb, ", ");
        rlx_relax_prim_print(s->values[i], sb);
      }
      rlx_strbuf_append(sb, "])");
      return;
    }
    case RLX_RELAX_PRIM_VALUE: rlx_relax_prim_print(((const rlx_relax_prim_value_t*)e)->value, sb); return;
    case RLX_RELAX_STRING_IMM: rlx_strbuf_printf(sb, "\"%s\"", ((const rlx_relax_string_imm_t*)e)->value); return;
    case RLX_RELAX_DATA_TYPE_IMM: rlx_strbuf_append(sb, rlx_dtype_str(((const rlx_relax_dtype_imm_t*)e)->value, buf)); return;
    case RLX_RELAX_OP: rlx_strbuf_printf(sb, "R.%s", ((const rlx_relax_op_t*)e)->name + strlen("relax.")); return;
    case RLX_RELAX_GLOBAL_VAR: rlx_strbuf_printf(sb, "@%s", ((const rlx_relax_global_var_t*)e)->name); return;
    case RLX_RELAX_EXTERN_FUNC:
      rlx_strbuf_printf(sb, "ExternFunc(\"%s\")", ((const rlx_relax_extern_func_t*)e)->global_symbol);
      return;
    case RLX_RELAX_TUPLE: {
      const rlx_relax_tuple_t* t = (const void*)e;
      rlx_strbuf_append(sb, "(");
      for (int i = 0; i < t->n_fields; i++) {
        if (i) rlx_strbuf_append(sb, ", ");
        mem_print_expr(nm, t->fields[i], sb);
      }
      rlx_strbuf_append(sb, t->n_fields == 1 ? ",)" : ")");
      return;
    }
    case RLX_RELAX_TUPLE_GET_ITEM: {
      const rlx_relax_tuple_get_item_t* g = (const void*)e;
      mem_print_expr(nm, g->tuple, sb);
      rlx_strbuf_printf(sb, "[%d]", g->index);
      return;
    }
    case RLX_RELAX_CALL: {
      const rlx_relax_call_t* c = (const void*)e;
      mem_print_expr(nm, c->op, sb);
      rlx_strbuf_append(sb, "(");
      for (int i = 0; i < c->n_args; i++) {
        if (i) rlx_strbuf_append(sb, ", ");
        mem_print_expr(nm, c->args[i], sb);
      }
      rlx_strbuf_append(sb, ")");
      return;
    }
    case RLX_RELAX_CONSTANT:
    case RLX_RELAX_IF:
    case RLX_RELAX_SEQ:
    case RLX_RELAX_FUNCTION:
    case RLX_RELAX_KIND_COUNT:
      rlx_strbuf_append(sb, rlx_relax_kind_name(e->kind));
      return;
  }
}

/* One line per binding ("block:" / "dataflow:" before each block), then "return x". */
static inline const char* mem_summary(rlx_ctx_t* ctx, const rlx_relax_func_t* f) {
  namer_t nm;
  memset(&nm, 0, sizeof(nm));
  nm.ctx = ctx;
  for (int i = 0; i < f->n_params; i++) mem_name(&nm, f->params[i]);
  rlx_strbuf_t sb = {0};
  const rlx_relax_seq_t* s = (const rlx_relax_seq_t*)f->body;
  for (int b = 0; b < s->n_blocks; b++) {
    rlx_strbuf_append(&sb, s->blocks[b]->is_dataflow ? "dataflow:\n" : "block:\n");
    for (int k = 0; k < s->blocks[b]->n_bindings; k++) {
      const rlx_relax_binding_t* bd = s->blocks[b]->bindings[k];
      rlx_strbuf_printf(&sb, "  %s = ", mem_name(&nm, bd->var));
      mem_print_expr(&nm, bd->value, &sb);
      rlx_strbuf_append(&sb, "\n");
    }
  }
  rlx_strbuf_append(&sb, "return ");
  mem_print_expr(&nm, s->body, &sb);
  const char* out = rlx_ctx_strdup(ctx, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  rlx_ptrmap_free(&nm.names);
  rlx_vec_free(&nm.taken);
  return out;
}

typedef struct {
  const char* name;
  int n;
} op_count_t;

/* True when e is the Op called name (tests name ops by string). */
static inline bool mem_is_op(const rlx_relax_expr_t* e, const char* name) {
  return e->kind == RLX_RELAX_OP && strcmp(((const rlx_relax_op_t*)e)->name, name) == 0;
}

static inline void mem_count_cb(const rlx_relax_expr_t* e, void* user) {
  op_count_t* c = user;
  if (e->kind == RLX_RELAX_CALL && mem_is_op(((const rlx_relax_call_t*)e)->op, c->name)) c->n++;
}

/* Calls of op name anywhere in f. */
static inline int mem_count(const rlx_relax_func_t* f, const char* name) {
  op_count_t c = {name, 0};
  rlx_relax_expr_visit(&f->hdr, mem_count_cb, &c);
  return c.n;
}

static inline bool mem_has_dataflow(const rlx_relax_func_t* f) {
  const rlx_relax_seq_t* s = (const rlx_relax_seq_t*)f->body;
  for (int b = 0; b < s->n_blocks; b++)
    if (s->blocks[b]->is_dataflow) return true;
  return false;
}

/* ---- the plan oracle ---- */
typedef struct {
  const rlx_relax_var_t* v;
  bool found;
} uses_t;
static inline void mem_uses_cb(const rlx_relax_expr_t* e, void* user) {
  uses_t* u = user;
  if (e == &u->v->hdr) u->found = true;
}
static inline bool mem_mentions(const rlx_relax_expr_t* e, const rlx_relax_var_t* v) {
  uses_t u = {v, false};
  rlx_relax_expr_visit(e, mem_uses_cb, &u);
  return u.found;
}

static inline const rlx_relax_call_t* mem_call_of(const rlx_relax_binding_t* b, const char* op) {
  if (b->value->kind != RLX_RELAX_CALL) return NULL;
  const rlx_relax_call_t* c = (const rlx_relax_call_t*)b->value;
  return mem_is_op(c->op, op) ? c : NULL;
}

/* Checks the plan of f's body (all blocks flattened, in order), independently of the pass:
 * - each storage is allocated before its tensors and killed after their last use;
 * - each memory.alloc_tensor is killed exactly once, after its last use;
 * - two tensors of one storage have disjoint [alloc, kill] intervals;
 * - a constant-size storage holds each of its tensors (tensor bytes <= storage bytes).
 * Returns the number of violations (printed). */
static inline int mem_check_plan(rlx_ctx_t* ctx, const rlx_relax_func_t* f) {
  const rlx_relax_seq_t* s = (const rlx_relax_seq_t*)f->body;
  RLX_VEC(const rlx_relax_binding_t*) bs = {0};
  for (int b = 0; b < s->n_blocks; b++)
    for (int k = 0; k < s->blocks[b]->n_bindings; k++) rlx_vec_push(&bs, s->blocks[b]->bindings[k]);
  int bad = 0;
  for (int i = 0; i < bs.len; i++) {
    const rlx_relax_call_t* at = mem_call_of(bs.data[i], "relax.memory.alloc_tensor");
    if (!at) continue;
    const rlx_relax_var_t* t = bs.data[i]->var;
    const rlx_relax_var_t* sv = (const rlx_relax_var_t*)at->args[0];
    int s_alloc = -1, s_kill = -1, t_kill = -1, t_last = i, n_kills = 0;
    int64_t s_bytes = -1;
    for (int j = 0; j < bs.len; j++) {
      const rlx_relax_binding_t* b = bs.data[j];
      const rlx_relax_call_t* c;
      if (b->var == sv && (c = mem_call_of(b, "relax.memory.alloc_storage"))) {
        s_alloc = j;
        rlx_expr_is_const_int(((const rlx_relax_shape_expr_t*)c->args[0])->values[0], &s_bytes);
      } else if ((c = mem_call_of(b, "relax.memory.kill_storage")) && c->args[0] == &sv->hdr) {
        s_kill = j;
      } else if ((c = mem_call_of(b, "relax.memory.kill_tensor")) && c->args[0] == &t->hdr) {
        t_kill = j;
        n_kills++;
      } else if (j > i && mem_mentions(b->value, t)) {
        t_last = j;
      }
    }
    if (mem_mentions(s->body, t)) t_last = bs.len;
    if (s_alloc < 0 || s_alloc > i) bad++, fprintf(stderr, "plan: storage of %s not allocated before it\n", t->name);
    if (n_kills != 1 || t_kill < t_last)
      bad++, fprintf(stderr, "plan: %s killed %d times, at %d, last use %d\n", t->name, n_kills, t_kill, t_last);
    if (s_kill < t_last) bad++, fprintf(stderr, "plan: storage of %s killed at %d before its use %d\n", t->name, s_kill, t_last);
    const rlx_relax_shape_expr_t* shape = (const rlx_relax_shape_expr_t*)at->args[2];
    rlx_expr_t* tb = rlx_memory_tensor_bytes(ctx, shape->ndim, shape->values, ((const rlx_relax_dtype_imm_t*)at->args[3])->value);
    int64_t tbytes = 0;
    if (s_bytes >= 0 && rlx_expr_is_const_int(tb, &tbytes) && tbytes > s_bytes)
      bad++, fprintf(stderr, "plan: %s needs %lld bytes, its storage has %lld\n", t->name, (long long)tbytes,
                     (long long)s_bytes);
    /* overlap with later tensors of the same storage */
    for (int j = i + 1; j < bs.len; j++) {
      const rlx_relax_call_t* at2 = mem_call_of(bs.data[j], "relax.memory.alloc_tensor");
      if (at2 && at2->args[0] == &sv->hdr && j <= t_kill)
        bad++, fprintf(stderr, "plan: %s (alloc %d) overlaps %s (alloc %d, killed %d)\n", bs.data[j]->var->name, j,
                       t->name, i, t_kill);
    }
  }
  rlx_vec_free(&bs);
  return bad;
}

/* The binding whose var is v (in f's body), or NULL. */
static inline const rlx_relax_binding_t* mem_binding_of(const rlx_relax_func_t* f, const rlx_relax_expr_t* v) {
  const rlx_relax_seq_t* s = (const rlx_relax_seq_t*)f->body;
  for (int b = 0; b < s->n_blocks; b++)
    for (int k = 0; k < s->blocks[b]->n_bindings; k++)
      if (&s->blocks[b]->bindings[k]->var->hdr == v) return s->blocks[b]->bindings[k];
  return NULL;
}

/* ---- TE functions for the tests ---- */
typedef struct {
  rlx_te_tensor_t* a;
  rlx_te_tensor_t* b;
} pair_user_t;

static inline rlx_expr_t* add_first_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  pair_user_t* u = user;
  rlx_expr_t* zero = rlx_ir_i64(ctx, 0);
  return rlx_ir_add(ctx, rlx_te_load(ctx, u->a, 1, &zero), rlx_te_load(ctx, u->b, 1, &zero));
}

/* te_add_first(A, B) with the 1-d output length user (an rlx_expr_t*): out[i] = A[0] + B[0]. */
static inline rlx_status_t* te_add_first(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                         rlx_te_tensor_t** out) {
  if (n != 2) return NULL;
  pair_user_t* u = RLX_NEW(ctx, pair_user_t);
  u->a = in[0];
  u->b = in[1];
  rlx_expr_t* len = user;
  return *out = rlx_te_compute(ctx, 1, &len, add_first_body, u, "add_first", ""), NULL;
}

#endif
