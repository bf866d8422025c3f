/* Shared helpers of the schedule tests: TE workloads, running PrimFuncs through the reference
 * interpreter and comparing results, and a compact debug printer. */
#ifndef RLX_TEST_SCHEDULE_UTIL_H
#define RLX_TEST_SCHEDULE_UTIL_H

#include <dlpack/dlpack.h>
#include <stdlib.h>

#include "test.h"
#include "tir/interp.h"
#include "tir/schedule/schedule.h"
#include "tir/te.h"

/* ------------------------------------------------------------------ printer */
static void pr_expr(rlx_strbuf_t* sb, const rlx_expr_t* e);
static const char* binop(rlx_expr_kind_t k) {
  switch (k) {
    case RLX_EXPR_ADD: return "+";
    case RLX_EXPR_SUB: return "-";
    case RLX_EXPR_MUL: return "*";
    case RLX_EXPR_DIV: return "/";
    case RLX_EXPR_MOD: return "%";
    case RLX_EXPR_FLOOR_DIV: return "//";
    case RLX_EXPR_FLOOR_MOD: return "%%";
    case RLX_EXPR_EQ: return "==";
    case RLX_EXPR_NE: return "!=";
    case RLX_EXPR_LT: return "<";
    case RLX_EXPR_LE: return "<=";
    case RLX_EXPR_GT: return ">";
    case RLX_EXPR_GE: return ">=";
    case RLX_EXPR_AND: return "and";
    case RLX_EXPR_OR: return "or";
    default: return NULL;
  }
}
static void pr_expr(rlx_strbuf_t* sb, const rlx_expr_t* e) {
  if (!e) {
    rlx_strbuf_append(sb, "None");
    return;
  }
  const char* op = binop(e->kind);
  if (op) {
    rlx_strbuf_append(sb, "(");
    pr_expr(sb, RLX_AS(const rlx_binary_t, e)->a);
    rlx_strbuf_printf(sb, " %s ", op);
    pr_expr(sb, RLX_AS(const rlx_binary_t, e)->b);
    rlx_strbuf_append(sb, ")");
    return;
  }
  switch (e->kind) {
    case RLX_EXPR_INT_IMM: rlx_strbuf_printf(sb, "%lld", (long long)RLX_AS(const rlx_int_imm_t, e)->value); return;
    case RLX_EXPR_FLOAT_IMM: rlx_strbuf_printf(sb, "%g", RLX_AS(const rlx_float_imm_t, e)->value); return;
    case RLX_EXPR_VAR: rlx_strbuf_append(sb, RLX_AS(const rlx_var_t, e)->name); return;
    case RLX_EXPR_BUFFER_LOAD: {
      const rlx_buffer_load_t* l = RLX_AS(const rlx_buffer_load_t, e);
      rlx_strbuf_printf(sb, "%s[", l->buffer->name);
      for (int i = 0; i < l->n_indices; i++) {
        if (i) rlx_strbuf_append(sb, ", ");
        pr_expr(sb, l->indices[i]);
      }
      rlx_strbuf_append(sb, "]");
      return;
    }
    default: {
      rlx_strbuf_printf(sb, "%s(", e->kind == RLX_EXPR_CALL ? RLX_AS(const rlx_call_t, e)->op : rlx_expr_kind_name(e->kind));
      rlx_expr_t* kids[16];
      int n = rlx_expr_children(e, kids, 16);
      for (int i = 0; i < n && i < 16; i++) {
        if (i) rlx_strbuf_append(sb, ", ");
        pr_expr(sb, kids[i]);
      }
      rlx_strbuf_append(sb, ")");
    }
  }
}
__attribute__((unused)) static const char* expr_str(const rlx_expr_t* e) {
  static char buf[4][1024];
  static int k;
  rlx_strbuf_t sb = {0};
  pr_expr(&sb, e);
  char* out = buf[k++ % 4];
  snprintf(out, 1024, "%s", rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return out;
}
static void pr_stmt(rlx_strbuf_t* sb, const rlx_tir_stmt_t* s, int ind) {
  if (!s) return;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE: {
      const rlx_tir_store_t* st = RLX_AS(const rlx_tir_store_t, s);
      rlx_strbuf_indent(sb, ind);
      rlx_strbuf_printf(sb, "%s[", st->buffer->name);
      for (int i = 0; i < st->n_indices; i++) {
        if (i) rlx_strbuf_append(sb, ", ");
        pr_expr(sb, st->indices[i]);
      }
      rlx_strbuf_append(sb, "] = ");
      pr_expr(sb, st->value);
      rlx_strbuf_append(sb, "\n");
      return;
    }
    case RLX_STMT_FOR: {
      const rlx_tir_for_t* f = RLX_AS(const rlx_tir_for_t, s);
      static const char* kinds[] = {"serial", "parallel", "vectorized", "unroll"};
      rlx_strbuf_indent(sb, ind);
      rlx_strbuf_printf(sb, "for %s in %s(", f->var->name, kinds[f->for_kind]);
      pr_expr(sb, f->min);
      rlx_strbuf_append(sb, ", ");
      pr_expr(sb, f->extent);
      rlx_strbuf_append(sb, "):\n");
      pr_stmt(sb, f->body, ind + 2);
      return;
    }
    case RLX_STMT_SEQ: {
      const rlx_tir_seq_t* q = RLX_AS(const rlx_tir_seq_t, s);
      for (int i = 0; i < q->n; i++) pr_stmt(sb, q->stmts[i], ind);
      return;
    }
    case RLX_STMT_IF: {
      const rlx_tir_if_t* c = RLX_AS(const rlx_tir_if_t, s);
      rlx_strbuf_indent(sb, ind);
      rlx_strbuf_append(sb, "if ");
      pr_expr(sb, c->cond);
      rlx_strbuf_append(sb, ":\n");
      pr_stmt(sb, c->then_case, ind + 2);
      if (c->else_case) {
        rlx_strbuf_indent(sb, ind);
        rlx_strbuf_append(sb, "else:\n");
        pr_stmt(sb, c->else_case, ind + 2);
      }
      return;
    }
    case RLX_STMT_LET:
      rlx_strbuf_indent(sb, ind);
      rlx_strbuf_printf(sb, "let %s = ", RLX_AS(const rlx_tir_let_t, s)->var->name);
      pr_expr(sb, RLX_AS(const rlx_tir_let_t, s)->value);
      rlx_strbuf_append(sb, "\n");
      pr_stmt(sb, RLX_AS(const rlx_tir_let_t, s)->body, ind);
      return;
    case RLX_STMT_EVALUATE:
      rlx_strbuf_indent(sb, ind);
      pr_expr(sb, RLX_AS(const rlx_tir_evaluate_t, s)->value);
      rlx_strbuf_append(sb, "\n");
      return;
    case RLX_STMT_BLOCK_REALIZE: {
      const rlx_tir_block_realize_t* br = RLX_AS(const rlx_tir_block_realize_t, s);
      const rlx_tir_block_t* b = br->block;
      rlx_strbuf_indent(sb, ind);
      rlx_strbuf_printf(sb, "block %s(", b->name);
      for (int i = 0; i < b->n_iter_vars; i++) {
        if (i) rlx_strbuf_append(sb, ", ");
        rlx_strbuf_printf(sb, "%s%s=", b->iter_vars[i]->kind == RLX_ITER_REDUCE ? "R:" : "", b->iter_vars[i]->var->name);
        pr_expr(sb, br->iter_values[i]);
      }
      rlx_strbuf_append(sb, ")");
      if (br->predicate) {
        rlx_strbuf_append(sb, " where ");
        pr_expr(sb, br->predicate);
      }
      for (int i = 0; i < b->n_alloc_buffers; i++)
        rlx_strbuf_printf(sb, " alloc %s(%s)", b->alloc_buffers[i]->name, b->alloc_buffers[i]->scope);
      rlx_strbuf_append(sb, ":\n");
      if (b->init) {
        rlx_strbuf_indent(sb, ind + 2);
        rlx_strbuf_append(sb, "init:\n");
        pr_stmt(sb, b->init, ind + 4);
      }
      pr_stmt(sb, b->body, ind + 2);
      return;
    }
    case RLX_STMT_ALLOCATE:
      rlx_strbuf_indent(sb, ind);
      rlx_strbuf_printf(sb, "allocate %s\n", RLX_AS(const rlx_tir_allocate_t, s)->buffer->name);
      pr_stmt(sb, RLX_AS(const rlx_tir_allocate_t, s)->body, ind);
      return;
    case RLX_STMT_KIND_COUNT: return;
  }
}
__attribute__((unused)) static void dump_func(const rlx_tir_func_t* f) {
  rlx_strbuf_t sb = {0};
  pr_stmt(&sb, f->body, 0);
  fprintf(stderr, "%s\n", rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
}

/* ------------------------------------------------------------------ workloads (TE) */
static rlx_expr_t* c64(rlx_ctx_t* ctx, int64_t v) { return rlx_ir_i64(ctx, v); }

typedef struct {
  rlx_te_tensor_t *a, *b, *c;
  rlx_iter_var_t* k;
  bool trans_b;
  int batch; /* number of leading batch dims of C (0 or 1) */
  bool b_batched;
} mmw_t;

static rlx_expr_t* mmw_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  mmw_t* m = user;
  int nb = m->batch;
  rlx_expr_t* ia[3];
  rlx_expr_t* ib[3];
  int na = 0, nbb = 0;
  if (nb) ia[na++] = &ix[0]->hdr;
  ia[na++] = &ix[nb]->hdr;
  ia[na++] = &m->k->var->hdr;
  if (nb && m->b_batched) ib[nbb++] = &ix[0]->hdr;
  if (m->trans_b) {
    ib[nbb++] = &ix[nb + 1]->hdr;
    ib[nbb++] = &m->k->var->hdr;
  } else {
    ib[nbb++] = &m->k->var->hdr;
    ib[nbb++] = &ix[nb + 1]->hdr;
  }
  rlx_expr_t* prod = rlx_ir_mul(ctx, rlx_te_load(ctx, m->a, na, ia), rlx_te_load(ctx, m->b, nbb, ib));
  return rlx_te_sum(ctx, prod, 1, &m->k);
}

static rlx_expr_t* relu_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  rlx_te_tensor_t* c = user;
  rlx_expr_t* i[4];
  for (int d = 0; d < c->buffer->ndim; d++) i[d] = &ix[d]->hdr;
  return rlx_ir_max(ctx, rlx_te_load(ctx, c, c->buffer->ndim, i), rlx_ir_float(ctx, rlx_dt_float32(), 0.0));
}

/* C = A(m, k) x B(k, n) [or B(n, k) when trans_b]; batch > 0 prepends a batch dim to A and C
 * (and to B when b_batched). m_expr may be symbolic. relu appends relu(C) as the output. */
__attribute__((unused)) static rlx_tir_func_t* make_matmul(rlx_ctx_t* ctx, rlx_expr_t* m_expr, int64_t n, int64_t k, int batch, bool trans_b,
                                   bool b_batched, bool relu) {
  mmw_t* w = RLX_NEW(ctx, mmw_t);
  w->batch = batch ? 1 : 0;
  w->trans_b = trans_b;
  w->b_batched = b_batched;
  rlx_expr_t* sa[3];
  rlx_expr_t* sb[3];
  rlx_expr_t* sc[3];
  int na = 0, nb = 0, nc = 0;
  if (batch) {
    sa[na++] = c64(ctx, batch);
    sc[nc++] = c64(ctx, batch);
    if (b_batched) sb[nb++] = c64(ctx, batch);
  }
  sa[na++] = m_expr;
  sa[na++] = c64(ctx, k);
  if (trans_b) {
    sb[nb++] = c64(ctx, n);
    sb[nb++] = c64(ctx, k);
  } else {
    sb[nb++] = c64(ctx, k);
    sb[nb++] = c64(ctx, n);
  }
  sc[nc++] = m_expr;
  sc[nc++] = c64(ctx, n);
  w->a = rlx_te_placeholder(ctx, na, sa, rlx_dt_float32(), "A");
  w->b = rlx_te_placeholder(ctx, nb, sb, rlx_dt_float32(), "B");
  w->k = rlx_te_reduce_axis(ctx, c64(ctx, 0), c64(ctx, k), "k");
  w->c = rlx_te_compute(ctx, nc, sc, mmw_body, w, "C", "matmul");
  rlx_te_tensor_t* args[4] = {w->a, w->b, w->c, NULL};
  if (relu) {
    args[3] = rlx_te_compute(ctx, nc, sc, relu_body, w->c, "R", "elemwise");
    args[2] = args[3];
  }
  rlx_tir_func_t* f = NULL;
  rlx_status_t* st = rlx_te_create_prim_func(ctx, 3, args, "mm", &f);
  if (st) {
    fprintf(stderr, "create_prim_func: %s\n", rlx_status_message(st));
    rlx_status_free(st);
  }
  return f;
}

/* ------------------------------------------------------------------ running */
typedef struct {
  int ndim;
  int64_t shape[4];
} tshape_t;

static int64_t numel(const tshape_t* s) {
  int64_t n = 1;
  for (int d = 0; d < s->ndim; d++) n *= s->shape[d];
  return n;
}

static DLTensor mk_tensor(float* data, tshape_t* s) {
  DLTensor t;
  memset(&t, 0, sizeof(t));
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = s->ndim;
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = s->shape;
  return t;
}

static float frand_s(unsigned* s) {
  *s = *s * 1103515245u + 12345u;
  return (float)((*s >> 8) % 2001) / 1000.0f - 1.0f;
}

/* The interpreter's outputs of functions already run, by structural hash, shapes and input
 * seed: the default schedule's cases run once per target level the CPU has against the same
 * unscheduled function, and the interpreter is most of those tests' time (minutes under
 * ASan). */
enum { REF_MAX = 96 };
static struct {
  uint64_t key;
  int n;
  float* out[8];
} ref_cache[REF_MAX];
static int ref_n;

__attribute__((unused)) static void ref_cache_free(void) {
  for (int k = 0; k < ref_n; k++)
    for (int i = 0; i < ref_cache[k].n; i++) free(ref_cache[k].out[i]);
  ref_n = 0;
}

/* rlx_tir_interpret(f, ps, n) on tensors whose inputs (the first n_in) were drawn from seed,
 * or its remembered outputs. */
static rlx_status_t* interpret_cached(const rlx_tir_func_t* f, DLTensor** ps, int n, int n_in, const tshape_t* shapes,
                                      unsigned seed) {
  uint64_t key = rlx_tir_func_hash(f) ^ ((uint64_t)seed << 32) ^ (uint64_t)n;
  for (int i = 0; i < n; i++)
    for (int d = 0; d < shapes[i].ndim; d++) key = key * 1099511628211ULL + (uint64_t)shapes[i].shape[d];
  for (int k = 0; k < ref_n; k++)
    if (ref_cache[k].key == key && ref_cache[k].n == n) {
      for (int i = n_in; i < n; i++) memcpy(ps[i]->data, ref_cache[k].out[i], sizeof(float) * (size_t)numel(&shapes[i]));
      return NULL;
    }
  rlx_status_t* st = rlx_tir_interpret(f, ps, n);
  if (st || ref_n == REF_MAX) return st;
  bool all = true;
  ref_cache[ref_n].key = key, ref_cache[ref_n].n = n;
  for (int i = 0; i < n; i++) {
    const size_t bytes = sizeof(float) * (size_t)numel(&shapes[i]);
    ref_cache[ref_n].out[i] = i < n_in ? NULL : malloc(bytes ? bytes : 1);
    if (ref_cache[ref_n].out[i]) memcpy(ref_cache[ref_n].out[i], ps[i]->data, bytes);
    else all = all && i < n_in;
  }
  if (all) ref_n++;
  else
    for (int i = 0; i < n; i++) free(ref_cache[ref_n].out[i]);
  return NULL;
}

/* Runs f and g (float32 params, shapes given, the first n_in are inputs) on the same random
 * inputs through the interpreter (f's outputs remembered: interpret_cached); returns the max abs difference of the outputs (-1 when a
 * run failed). */
__attribute__((unused)) static double compare_funcs(const rlx_tir_func_t* f, const rlx_tir_func_t* g, int n, tshape_t* shapes, int n_in) {
  float* bufs[2][8];
  DLTensor ts[2][8];
  DLTensor* ps[2][8];
  unsigned seed = 1234;
  for (int i = 0; i < n; i++) {
    int64_t m = numel(&shapes[i]);
    for (int r = 0; r < 2; r++) {
      bufs[r][i] = malloc(sizeof(float) * (size_t)(m ? m : 1));
      ts[r][i] = mk_tensor(bufs[r][i], &shapes[i]);
      ps[r][i] = &ts[r][i];
    }
    for (int64_t e = 0; e < m; e++) {
      float v = i < n_in ? frand_s(&seed) : 777.0f;
      bufs[0][i][e] = bufs[1][i][e] = v;
    }
  }
  double diff = 0;
  rlx_status_t* st = interpret_cached(f, ps[0], n, n_in, shapes, 1234);
  if (!st) st = rlx_tir_interpret(g, ps[1], n);
  if (st) {
    fprintf(stderr, "interpret: %s\n", rlx_status_message(st));
    rlx_status_free(st);
    diff = -1;
  } else {
    for (int i = n_in; i < n; i++)
      for (int64_t e = 0; e < numel(&shapes[i]); e++) {
        double d = fabs((double)bufs[0][i][e] - (double)bufs[1][i][e]);
        if (d > diff || d != d) diff = d != d ? 1e30 : d;
      }
  }
  for (int i = 0; i < n; i++) {
    free(bufs[0][i]);
    free(bufs[1][i]);
  }
  return diff;
}

/* Counts loops of each kind and blocks. */
typedef struct {
  int n_for[4], n_blocks, n_pred;
} census_t;
static void census_stmt(const rlx_tir_stmt_t* s, void* user) {
  census_t* c = user;
  if (s->kind == RLX_STMT_FOR) c->n_for[RLX_AS(const rlx_tir_for_t, s)->for_kind]++;
  if (s->kind == RLX_STMT_BLOCK_REALIZE) {
    c->n_blocks++;
    if (RLX_AS(const rlx_tir_block_realize_t, s)->predicate) c->n_pred++;
  }
}
__attribute__((unused)) static census_t census(const rlx_tir_func_t* f) {
  census_t c;
  memset(&c, 0, sizeof(c));
  rlx_tir_visitor_t v = {census_stmt, NULL, NULL, &c};
  rlx_tir_stmt_visit(f->body, &v);
  return c;
}

#endif
