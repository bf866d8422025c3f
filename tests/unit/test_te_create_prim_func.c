/* TE → create_prim_func: structure of the PrimFunc (params, root block, block names, iter var
 * kinds, init, reads/writes) and numbers through the reference interpreter, before lowering,
 * after lower_blocks and after flatten_buffers; symbolic shapes; max and two-axis sum
 * reductions; errors. */
#include <float.h>
#include <dlpack/dlpack.h>
#include <stdlib.h>

#include "test.h"
#include "tir/interp.h"
#include "tir/te.h"
#include "transform/tir/transform.h"

/* ------------------------------------------------------------------ helpers */
static DLTensor dl(void* data, int ndim, int64_t* shape, uint8_t code, uint8_t bits) {
  DLTensor t;
  memset(&t, 0, sizeof(t));
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = ndim;
  t.dtype.code = code;
  t.dtype.bits = bits;
  t.dtype.lanes = 1;
  t.shape = shape;
  return t;
}

static float frand(unsigned* s) {
  *s = *s * 1103515245u + 12345u;
  return (float)((*s >> 8) % 2001) / 1000.0f - 1.0f;
}

static bool is_var(const rlx_expr_t* e, const rlx_var_t* v) { return e == &v->hdr; }
static bool is_one(const rlx_expr_t* e) {
  int64_t v;
  return rlx_expr_is_const_int(e, &v) && v == 1;
}

typedef struct {
  int n_blocks, n_for, n_alloc;
} counts_t;
static void count_stmt(const rlx_tir_stmt_t* s, void* user) {
  counts_t* c = user;
  if (s->kind == RLX_STMT_BLOCK_REALIZE) c->n_blocks++;
  if (s->kind == RLX_STMT_FOR) c->n_for++;
  if (s->kind == RLX_STMT_ALLOCATE) c->n_alloc++;
}
static counts_t count(const rlx_tir_func_t* f) {
  counts_t c = {0, 0, 0};
  rlx_tir_visitor_t v = {count_stmt, NULL, NULL, &c};
  rlx_tir_stmt_visit(f->body, &v);
  return c;
}

/* ------------------------------------------------------------------ matmul + relu */
typedef struct {
  rlx_te_tensor_t *a, *b, *c;
  rlx_iter_var_t* k;
} mm_t;

static rlx_expr_t* mm_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  mm_t* m = user;
  rlx_expr_t* ia[2] = {&ix[0]->hdr, &m->k->var->hdr};
  rlx_expr_t* ib[2] = {&m->k->var->hdr, &ix[1]->hdr};
  rlx_expr_t* prod = rlx_ir_mul(ctx, rlx_te_load(ctx, m->a, 2, ia), rlx_te_load(ctx, m->b, 2, ib));
  return rlx_te_sum(ctx, prod, 1, &m->k);
}

static rlx_expr_t* relu_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  mm_t* m = user;
  rlx_expr_t* i[2] = {&ix[0]->hdr, &ix[1]->hdr};
  return rlx_ir_max(ctx, rlx_te_load(ctx, m->c, 2, i), rlx_ir_float(ctx, rlx_dt_float32(), 0.0));
}

#define N 128

static void check_matmul_numbers(const rlx_tir_func_t* f, const char* stage) {
  static float a[N * N], b[N * N], d[N * N], ref[N * N];
  unsigned seed = 7;
  for (int i = 0; i < N * N; i++) a[i] = frand(&seed), b[i] = frand(&seed), d[i] = 12345.0f;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      float s = 0;
      for (int k = 0; k < N; k++) s += a[i * N + k] * b[k * N + j];
      ref[i * N + j] = s > 0 ? s : 0;
    }
  int64_t shape[2] = {N, N};
  DLTensor ta = dl(a, 2, shape, kDLFloat, 32), tb = dl(b, 2, shape, kDLFloat, 32), td = dl(d, 2, shape, kDLFloat, 32);
  DLTensor* args[3] = {&ta, &tb, &td};
  rlx_status_t* st = rlx_tir_interpret(f, args, 3);
  CHECK_MSG(!st, "%s: %s", stage, rlx_status_message(st));
  rlx_status_free(st);
  double max_err = 0;
  for (int i = 0; i < N * N; i++) max_err = fmax(max_err, fabs((double)d[i] - ref[i]));
  CHECK_MSG(max_err < 1e-3, "%s: max abs error %g", stage, max_err);
}

static void test_matmul_relu(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* shape[2] = {rlx_ir_i32(ctx, N), rlx_ir_i32(ctx, N)};
  mm_t m = {0};
  m.a = rlx_te_placeholder(ctx, 2, shape, rlx_dt_float32(), "A");
  m.b = rlx_te_placeholder(ctx, 2, shape, rlx_dt_float32(), "B");
  m.k = rlx_te_reduce_axis(ctx, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, N), "k");
  m.c = rlx_te_compute(ctx, 2, shape, mm_body, &m, "C", "");
  rlx_te_tensor_t* d = rlx_te_compute(ctx, 2, shape, relu_body, &m, "D", "elemwise");
  CHECK(m.c->n_inputs == 2 && m.c->inputs[0] == m.a && m.c->inputs[1] == m.b);
  CHECK(d->n_inputs == 1 && d->inputs[0] == m.c);
  CHECK(rlx_te_tensor_of_buffer(m.c->buffer) == m.c);
  CHECK(strcmp(m.c->axis[0]->var->name, "i") == 0 && strcmp(m.c->axis[1]->var->name, "j") == 0);
  CHECK(rlx_dtype_eq(m.c->axis[0]->var->hdr.dtype, rlx_dt_int32()));

  rlx_te_tensor_t* args[3] = {m.a, m.b, d};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 3, args, "main", &f));
  if (!f) {
    rlx_ctx_free(ctx);
    return;
  }
  /* params and attrs */
  CHECK(strcmp(f->name, "main") == 0);
  CHECK(f->n_params == 3);
  CHECK(f->params[0] == m.a->buffer->data && f->buffer_map[0] == m.a->buffer);
  CHECK(f->params[2] == d->buffer->data && f->buffer_map[2] == d->buffer);
  CHECK(strcmp(f->params[1]->name, "B") == 0);
  CHECK(f->n_attrs == 1 && strcmp(f->attr_keys[0], "tir.noalias") == 0 && is_one(f->attr_values[0]) &&
        rlx_dtype_is_bool(f->attr_values[0]->dtype));
  /* root block */
  CHECK(f->body->kind == RLX_STMT_BLOCK_REALIZE);
  rlx_tir_block_realize_t* rr = RLX_AS(rlx_tir_block_realize_t, f->body);
  CHECK(strcmp(rr->block->name, "root") == 0 && rr->block->n_iter_vars == 0 && rr->n_values == 0);
  CHECK(rr->block->n_alloc_buffers == 1 && rr->block->alloc_buffers[0] == m.c->buffer);
  CHECK(rr->block->body->kind == RLX_STMT_SEQ && RLX_AS(rlx_tir_seq_t, rr->block->body)->n == 2);
  /* the matmul nest: for i, for j, for k, block C */
  rlx_tir_stmt_t* s = RLX_AS(rlx_tir_seq_t, rr->block->body)->stmts[0];
  rlx_var_t* loops[3] = {NULL, NULL, NULL};
  for (int l = 0; l < 3; l++) {
    CHECK(s->kind == RLX_STMT_FOR);
    if (s->kind != RLX_STMT_FOR) break;
    loops[l] = RLX_AS(rlx_tir_for_t, s)->var;
    CHECK(RLX_AS(rlx_tir_for_t, s)->for_kind == RLX_FOR_SERIAL);
    s = RLX_AS(rlx_tir_for_t, s)->body;
  }
  CHECK(loops[0] && strcmp(loops[0]->name, "i") == 0);
  CHECK(loops[1] && strcmp(loops[1]->name, "j") == 0);
  CHECK(loops[2] && strcmp(loops[2]->name, "k") == 0);
  CHECK(s->kind == RLX_STMT_BLOCK_REALIZE);
  rlx_tir_block_realize_t* bc = rlx_tir_find_block(f->body, "C");
  CHECK(bc && &bc->hdr == s);
  if (bc) {
    rlx_tir_block_t* b = bc->block;
    CHECK(b->n_iter_vars == 3);
    CHECK(strcmp(b->iter_vars[0]->var->name, "v_i") == 0 && b->iter_vars[0]->kind == RLX_ITER_SPATIAL);
    CHECK(strcmp(b->iter_vars[1]->var->name, "v_j") == 0 && b->iter_vars[1]->kind == RLX_ITER_SPATIAL);
    CHECK(strcmp(b->iter_vars[2]->var->name, "v_k") == 0 && b->iter_vars[2]->kind == RLX_ITER_REDUCE);
    for (int l = 0; l < 3; l++) CHECK(loops[l] && is_var(bc->iter_values[l], loops[l]));
    CHECK(b->init != NULL && b->init->kind == RLX_STMT_BUFFER_STORE);
    /* T.reads(A[v_i, v_k], B[v_k, v_j]), T.writes(C[v_i, v_j]) */
    CHECK(b->n_reads == 2 && b->n_writes == 1);
    if (b->n_reads == 2) {
      CHECK(b->reads[0].buffer == m.a->buffer && b->reads[1].buffer == m.b->buffer);
      CHECK(is_var(b->reads[0].region[0].min, b->iter_vars[0]->var) && is_one(b->reads[0].region[0].extent));
      CHECK(is_var(b->reads[0].region[1].min, b->iter_vars[2]->var) && is_one(b->reads[0].region[1].extent));
      CHECK(is_var(b->reads[1].region[0].min, b->iter_vars[2]->var));
      CHECK(is_var(b->reads[1].region[1].min, b->iter_vars[1]->var));
    }
    CHECK(b->writes[0].buffer == m.c->buffer && is_var(b->writes[0].region[1].min, b->iter_vars[1]->var));
    /* body: C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j] */
    CHECK(b->body->kind == RLX_STMT_BUFFER_STORE);
    rlx_tir_store_t* st = RLX_AS(rlx_tir_store_t, b->body);
    CHECK(st->buffer == m.c->buffer && st->value->kind == RLX_EXPR_ADD);
    CHECK(RLX_AS(rlx_binary_t, st->value)->a->kind == RLX_EXPR_BUFFER_LOAD);
    rlx_tir_store_t* in = RLX_AS(rlx_tir_store_t, b->init);
    CHECK(in->value->kind == RLX_EXPR_FLOAT_IMM && RLX_AS(rlx_float_imm_t, in->value)->value == 0.0);
  }
  rlx_tir_block_realize_t* bd = rlx_tir_find_block(f->body, "D");
  CHECK(bd && bd->block->n_iter_vars == 2 && bd->block->init == NULL);
  CHECK(bd && bd->block->n_reads == 1 && bd->block->reads[0].buffer == m.c->buffer);

  CHECK_OK(rlx_tir_verify(f));
  check_matmul_numbers(f, "create_prim_func");
  rlx_tir_func_t* lb = NULL;
  CHECK_OK(rlx_tir_lower_blocks(ctx, f, &lb));
  if (lb) {
    counts_t c = count(lb);
    CHECK(c.n_blocks == 0 && c.n_alloc == 1 && c.n_for == 5);
    CHECK(lb->body->kind == RLX_STMT_ALLOCATE);
    CHECK_OK(rlx_tir_verify(lb));
    check_matmul_numbers(lb, "lower_blocks");
    rlx_tir_func_t* fl = NULL;
    CHECK_OK(rlx_tir_flatten_buffers(ctx, lb, &fl));
    if (fl) {
      CHECK(fl->buffer_map[0] == m.a->buffer); /* params stay N-D */
      CHECK(fl->body->kind == RLX_STMT_ALLOCATE && RLX_AS(rlx_tir_allocate_t, fl->body)->buffer->ndim == 1);
      CHECK(RLX_AS(rlx_tir_allocate_t, fl->body)->buffer->data == m.c->buffer->data);
      CHECK_OK(rlx_tir_verify(fl));
      check_matmul_numbers(fl, "flatten_buffers");
    }
  }
  rlx_ctx_free(ctx);
}

/* ------------------------------------------------------------------ symbolic shape */
typedef struct {
  rlx_te_tensor_t *a, *b;
} add_t;

static rlx_expr_t* add_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  add_t* t = user;
  rlx_expr_t* i[2] = {&ix[0]->hdr, &ix[1]->hdr};
  return rlx_ir_add(ctx, rlx_te_load(ctx, t->a, 2, i), rlx_te_load(ctx, t->b, 2, i));
}

static void run_add(const rlx_tir_func_t* f, int n, const char* stage) {
  float* a = malloc(sizeof(float) * (size_t)n * 128);
  float* b = malloc(sizeof(float) * (size_t)n * 128);
  float* c = malloc(sizeof(float) * (size_t)n * 128);
  unsigned seed = (unsigned)n;
  for (int i = 0; i < n * 128; i++) a[i] = frand(&seed), b[i] = frand(&seed), c[i] = -99;
  int64_t shape[2] = {n, 128};
  DLTensor ta = dl(a, 2, shape, kDLFloat, 32), tb = dl(b, 2, shape, kDLFloat, 32), tc = dl(c, 2, shape, kDLFloat, 32);
  DLTensor* args[3] = {&ta, &tb, &tc};
  rlx_status_t* st = rlx_tir_interpret(f, args, 3);
  CHECK_MSG(!st, "%s n=%d: %s", stage, n, rlx_status_message(st));
  rlx_status_free(st);
  int bad = 0;
  for (int i = 0; i < n * 128; i++) bad += c[i] != a[i] + b[i];
  CHECK_MSG(bad == 0, "%s n=%d: %d wrong elements", stage, n, bad);
  free(a), free(b), free(c);
}

static void test_symbolic(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_var_t* n = rlx_ir_var(ctx, "n", rlx_dt_int64());
  rlx_expr_t* shape[2] = {&n->hdr, rlx_ir_i32(ctx, 128)};
  add_t t;
  t.a = rlx_te_placeholder(ctx, 2, shape, rlx_dt_float32(), "A");
  t.b = rlx_te_placeholder(ctx, 2, shape, rlx_dt_float32(), "B");
  const char* names[2] = {"ax0", "ax1"};
  rlx_te_tensor_t* c = rlx_te_compute_named(ctx, 2, shape, add_body, &t, "T_add", "elemwise", names);
  CHECK(rlx_dtype_eq(c->axis[0]->var->hdr.dtype, rlx_dt_int64()));
  CHECK(rlx_dtype_eq(c->axis[1]->var->hdr.dtype, rlx_dt_int32()));
  rlx_te_tensor_t* args[3] = {t.a, t.b, c};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 3, args, "add", &f));
  if (!f) {
    rlx_ctx_free(ctx);
    return;
  }
  CHECK(f->buffer_map[0]->shape[0] == &n->hdr);
  rlx_tir_block_realize_t* br = rlx_tir_find_block(f->body, "T_add");
  CHECK(br && strcmp(br->block->iter_vars[0]->var->name, "v_ax0") == 0);
  CHECK(br && br->block->iter_vars[0]->dom.extent == &n->hdr);
  CHECK(RLX_AS(rlx_tir_block_realize_t, f->body)->block->n_alloc_buffers == 0);
  run_add(f, 3, "create_prim_func");
  run_add(f, 17, "create_prim_func");
  rlx_tir_func_t *lb = NULL, *fl = NULL;
  CHECK_OK(rlx_tir_lower_blocks(ctx, f, &lb));
  if (lb) CHECK_OK(rlx_tir_flatten_buffers(ctx, lb, &fl));
  if (fl) {
    run_add(fl, 3, "flatten_buffers");
    run_add(fl, 17, "flatten_buffers");
  }
  rlx_ctx_free(ctx);
}

/* ------------------------------------------------------------------ max and two-axis sum */
typedef struct {
  rlx_te_tensor_t* a;
  rlx_iter_var_t* ax[2];
} red_t;

static rlx_expr_t* max_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  red_t* r = user;
  rlx_expr_t* i[2] = {&ix[0]->hdr, &r->ax[0]->var->hdr};
  return rlx_te_max(ctx, rlx_te_load(ctx, r->a, 2, i), 1, r->ax);
}

/* sum over even k only (a conditional reduction) */
static rlx_expr_t* even_sum_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  red_t* r = user;
  rlx_expr_t* k = &r->ax[0]->var->hdr;
  rlx_expr_t* i[2] = {&ix[0]->hdr, k};
  rlx_expr_t* cond = rlx_ir_cmp(ctx, RLX_EXPR_EQ, rlx_ir_floormod(ctx, k, rlx_ir_i32(ctx, 2)), rlx_ir_i32(ctx, 0));
  return rlx_te_reduce(ctx, RLX_REDUCE_SUM, rlx_te_load(ctx, r->a, 2, i), 1, r->ax, cond);
}

static rlx_expr_t* sum2_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  red_t* r = user;
  rlx_expr_t* i[3] = {&r->ax[0]->var->hdr, &ix[0]->hdr, &r->ax[1]->var->hdr};
  return rlx_te_sum(ctx, rlx_te_load(ctx, r->a, 3, i), 2, r->ax);
}

static void test_reductions(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  /* B[i] = max_k A[i, k], A all negative (the identity must be below every element) */
  enum { R = 5, K = 7 };
  red_t r;
  rlx_expr_t* sa[2] = {rlx_ir_i32(ctx, R), rlx_ir_i32(ctx, K)};
  r.a = rlx_te_placeholder(ctx, 2, sa, rlx_dt_float32(), "A");
  r.ax[0] = rlx_te_reduce_axis(ctx, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, K), "k");
  rlx_te_tensor_t* b = rlx_te_compute(ctx, 1, sa, max_body, &r, "B", "");
  rlx_te_tensor_t* args[2] = {r.a, b};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 2, args, "amax", &f));
  float a[R * K], out[R], ref[R];
  unsigned seed = 3;
  for (int i = 0; i < R; i++) {
    ref[i] = -INFINITY;
    for (int k = 0; k < K; k++) {
      a[i * K + k] = frand(&seed) - 5.0f;
      ref[i] = fmaxf(ref[i], a[i * K + k]);
    }
  }
  if (f) {
    rlx_tir_block_realize_t* br = rlx_tir_find_block(f->body, "B");
    CHECK(br && br->block->init && br->block->body->kind == RLX_STMT_BUFFER_STORE);
    if (br) {
      rlx_expr_t* v = RLX_AS(rlx_tir_store_t, br->block->body)->value;
      CHECK(v->kind == RLX_EXPR_MAX);
      rlx_expr_t* id = RLX_AS(rlx_tir_store_t, br->block->init)->value;
      /* TVM's te.max starts at min_value(float32), the lowest finite value */
      CHECK(id->kind == RLX_EXPR_FLOAT_IMM && RLX_AS(rlx_float_imm_t, id)->value == -FLT_MAX);
    }
    int64_t s2[2] = {R, K}, s1[1] = {R};
    DLTensor ta = dl(a, 2, s2, kDLFloat, 32), tb = dl(out, 1, s1, kDLFloat, 32);
    DLTensor* dargs[2] = {&ta, &tb};
    const rlx_tir_func_t* fs[2] = {f, NULL};
    CHECK_OK(rlx_tir_lower_blocks(ctx, f, (rlx_tir_func_t**)&fs[1]));
    for (int v = 0; v < 2 && fs[v]; v++) {
      for (int i = 0; i < R; i++) out[i] = 0;
      CHECK_OK(rlx_tir_interpret(fs[v], dargs, 2));
      int bad = 0;
      for (int i = 0; i < R; i++) bad += out[i] != ref[i];
      CHECK_MSG(bad == 0, "max variant %d: %d wrong", v, bad);
    }
  }

  /* E[i] = sum_{k even} A[i, k] */
  rlx_te_tensor_t* e = rlx_te_compute(ctx, 1, sa, even_sum_body, &r, "E", "");
  rlx_te_tensor_t* args_e[2] = {r.a, e};
  rlx_tir_func_t* fe = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 2, args_e, "even_sum", &fe));
  if (fe) {
    rlx_tir_block_realize_t* br = rlx_tir_find_block(fe->body, "E");
    CHECK(br && br->block->body->kind == RLX_STMT_IF);
    float eo[R], eref[R];
    for (int i = 0; i < R; i++) {
      eref[i] = 0;
      for (int k = 0; k < K; k += 2) eref[i] += a[i * K + k];
    }
    int64_t s2[2] = {R, K}, s1[1] = {R};
    DLTensor ta = dl(a, 2, s2, kDLFloat, 32), te = dl(eo, 1, s1, kDLFloat, 32);
    DLTensor* dargs[2] = {&ta, &te};
    rlx_tir_func_t* lb = NULL;
    CHECK_OK(rlx_tir_lower_blocks(ctx, fe, &lb));
    const rlx_tir_func_t* fs[2] = {fe, lb};
    for (int v = 0; v < 2 && fs[v]; v++) {
      for (int i = 0; i < R; i++) eo[i] = 77;
      CHECK_OK(rlx_tir_interpret(fs[v], dargs, 2));
      double err = 0;
      for (int i = 0; i < R; i++) err = fmax(err, fabs((double)eo[i] - eref[i]));
      CHECK_MSG(err < 1e-5, "even sum variant %d: error %g", v, err);
    }
  }

  /* C[j] = sum_{k0, k1} X[k0, j, k1] in int32 */
  enum { P = 3, Q = 4, S = 6 };
  red_t r2;
  rlx_expr_t* sx[3] = {rlx_ir_i32(ctx, P), rlx_ir_i32(ctx, Q), rlx_ir_i32(ctx, S)};
  r2.a = rlx_te_placeholder(ctx, 3, sx, rlx_dt_int32(), "X");
  r2.ax[0] = rlx_te_reduce_axis(ctx, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, P), "k0");
  r2.ax[1] = rlx_te_reduce_axis(ctx, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, S), "k1");
  rlx_expr_t* sc[1] = {sx[1]};
  rlx_te_tensor_t* c = rlx_te_compute(ctx, 1, sc, sum2_body, &r2, "C", "");
  rlx_te_tensor_t* args2[2] = {r2.a, c};
  rlx_tir_func_t* g = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 2, args2, "sum2", &g));
  if (g) {
    rlx_tir_block_realize_t* br = rlx_tir_find_block(g->body, "C");
    CHECK(br && br->block->n_iter_vars == 3 && br->block->iter_vars[1]->kind == RLX_ITER_REDUCE &&
          br->block->iter_vars[2]->kind == RLX_ITER_REDUCE);
    CHECK(br && strcmp(br->block->iter_vars[1]->var->name, "v_k0") == 0);
    int32_t x[P * Q * S], o[Q], ref2[Q] = {0};
    for (int i = 0; i < P * Q * S; i++) x[i] = i * 7 % 11 - 5;
    for (int k0 = 0; k0 < P; k0++)
      for (int j = 0; j < Q; j++)
        for (int k1 = 0; k1 < S; k1++) ref2[j] += x[(k0 * Q + j) * S + k1];
    int64_t s3[3] = {P, Q, S}, s1[1] = {Q};
    DLTensor tx = dl(x, 3, s3, kDLInt, 32), to = dl(o, 1, s1, kDLInt, 32);
    DLTensor* dargs[2] = {&tx, &to};
    rlx_tir_func_t *lb = NULL, *fl = NULL;
    CHECK_OK(rlx_tir_lower_blocks(ctx, g, &lb));
    if (lb) CHECK_OK(rlx_tir_flatten_buffers(ctx, lb, &fl));
    const rlx_tir_func_t* fs[3] = {g, lb, fl};
    for (int v = 0; v < 3 && fs[v]; v++) {
      for (int j = 0; j < Q; j++) o[j] = 999;
      CHECK_OK(rlx_tir_interpret(fs[v], dargs, 2));
      CHECK_MSG(memcmp(o, ref2, sizeof(o)) == 0, "sum2 variant %d", v);
    }
  }
  rlx_ctx_free(ctx);
}

/* ------------------------------------------------------------------ 0-d outputs */
static rlx_expr_t* total_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  red_t* r = user;
  rlx_expr_t* i[1] = {&r->ax[0]->var->hdr};
  return rlx_te_sum(ctx, rlx_te_load(ctx, r->a, 1, i), 1, r->ax);
}
static rlx_expr_t* twice_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  rlx_te_tensor_t* s = user;
  return rlx_ir_mul(ctx, rlx_te_load(ctx, s, 0, NULL), rlx_ir_float(ctx, rlx_dt_float32(), 2.0));
}

static void test_scalar_outputs(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* n5 = rlx_ir_i32(ctx, 5);
  red_t r;
  r.a = rlx_te_placeholder(ctx, 1, &n5, rlx_dt_float32(), "A");
  r.ax[0] = rlx_te_reduce_axis(ctx, rlx_ir_i32(ctx, 0), n5, "k");
  rlx_te_tensor_t* total = rlx_te_compute(ctx, 0, NULL, total_body, &r, "S", "");
  rlx_te_tensor_t* twice = rlx_te_compute(ctx, 0, NULL, twice_body, total, "T", "");
  rlx_te_tensor_t* args[2] = {r.a, twice};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 2, args, "scalar", &f));
  if (f) {
    rlx_tir_block_realize_t* bs = rlx_tir_find_block(f->body, "S");
    rlx_tir_block_realize_t* bt = rlx_tir_find_block(f->body, "T");
    CHECK(bs && bs->block->n_iter_vars == 1 && bs->block->iter_vars[0]->kind == RLX_ITER_REDUCE);
    CHECK(bt && bt->block->n_iter_vars == 1 && strcmp(bt->block->iter_vars[0]->var->name, "vi") == 0);
    CHECK(bt && bt->block->writes[0].ndim == 0);
    float a[5] = {1, 2, 3, 4, 5.5f}, out = 0;
    int64_t s5[1] = {5};
    DLTensor ta = dl(a, 1, s5, kDLFloat, 32), to = dl(&out, 0, NULL, kDLFloat, 32);
    DLTensor* dargs[2] = {&ta, &to};
    rlx_tir_func_t *lb = NULL, *fl = NULL;
    CHECK_OK(rlx_tir_lower_blocks(ctx, f, &lb));
    if (lb) CHECK_OK(rlx_tir_flatten_buffers(ctx, lb, &fl));
    const rlx_tir_func_t* fs[3] = {f, lb, fl};
    for (int v = 0; v < 3 && fs[v]; v++) {
      out = 0;
      CHECK_OK(rlx_tir_interpret(fs[v], dargs, 2));
      CHECK_MSG(out == 31.0f, "scalar variant %d: %g", v, out);
    }
  }
  rlx_ctx_free(ctx);
}

/* ------------------------------------------------------------------ identities */
static void test_identities(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t v;
  CHECK(rlx_expr_is_const_int(rlx_te_reduce_identity(ctx, RLX_REDUCE_MAX, rlx_dt_int32()), &v) && v == INT32_MIN);
  CHECK(rlx_expr_is_const_int(rlx_te_reduce_identity(ctx, RLX_REDUCE_MIN, rlx_dt_int32()), &v) && v == INT32_MAX);
  CHECK(rlx_expr_is_const_int(rlx_te_reduce_identity(ctx, RLX_REDUCE_MAX, rlx_dt_int64()), &v) && v == INT64_MIN);
  CHECK(rlx_expr_is_const_int(rlx_te_reduce_identity(ctx, RLX_REDUCE_MIN, rlx_dtype(RLX_DT_UINT, 8, 1)), &v) &&
        v == 255);
  CHECK(rlx_expr_is_const_int(rlx_te_reduce_identity(ctx, RLX_REDUCE_SUM, rlx_dt_int64()), &v) && v == 0);
  /* float max / min start at TVM's min_value / max_value (finite), per width */
  rlx_expr_t* e = rlx_te_reduce_identity(ctx, RLX_REDUCE_MIN, rlx_dt_float32());
  CHECK(e->kind == RLX_EXPR_FLOAT_IMM && RLX_AS(rlx_float_imm_t, e)->value == FLT_MAX);
  e = rlx_te_reduce_identity(ctx, RLX_REDUCE_MAX, rlx_dtype(RLX_DT_FLOAT, 16, 1));
  CHECK(e->kind == RLX_EXPR_FLOAT_IMM && RLX_AS(rlx_float_imm_t, e)->value == -65504.0);
  e = rlx_te_reduce_identity(ctx, RLX_REDUCE_MAX, rlx_dtype(RLX_DT_FLOAT, 64, 1));
  CHECK(e->kind == RLX_EXPR_FLOAT_IMM && RLX_AS(rlx_float_imm_t, e)->value == -DBL_MAX);
  rlx_ctx_free(ctx);
}

/* ------------------------------------------------------------------ errors */
static rlx_expr_t* nested_reduce_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  red_t* r = user;
  rlx_expr_t* i[2] = {&ix[0]->hdr, &r->ax[0]->var->hdr};
  rlx_expr_t* s = rlx_te_sum(ctx, rlx_te_load(ctx, r->a, 2, i), 1, r->ax);
  return rlx_ir_add(ctx, s, rlx_ir_float(ctx, rlx_dt_float32(), 1.0));
}

static rlx_expr_t* foreign_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  rlx_tir_buffer_t* b = user;
  rlx_expr_t* i[1] = {&ix[0]->hdr};
  return rlx_ir_load(ctx, b, 1, i);
}

static void test_errors(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* shape[2] = {rlx_ir_i32(ctx, 4), rlx_ir_i32(ctx, 4)};
  mm_t m = {0};
  m.a = rlx_te_placeholder(ctx, 2, shape, rlx_dt_float32(), "A");
  m.b = rlx_te_placeholder(ctx, 2, shape, rlx_dt_float32(), "B");
  m.k = rlx_te_reduce_axis(ctx, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, 4), "k");
  m.c = rlx_te_compute(ctx, 2, shape, mm_body, &m, "C", "");
  rlx_tir_func_t* f = NULL;
  rlx_te_tensor_t* missing[2] = {m.b, m.c};
  CHECK_ERR(rlx_te_create_prim_func(ctx, 2, missing, "main", &f), "placeholder 'A'");
  CHECK_ERR(rlx_te_create_prim_func(ctx, 2, missing, "main", &f), "not in the argument list");
  rlx_te_tensor_t* dup[3] = {m.a, m.a, m.c};
  CHECK_ERR(rlx_te_create_prim_func(ctx, 3, dup, "main", &f), "listed twice");

  red_t r;
  r.a = m.a;
  r.ax[0] = rlx_te_reduce_axis(ctx, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, 4), "k");
  rlx_te_tensor_t* bad = rlx_te_compute(ctx, 1, shape, nested_reduce_body, &r, "Bad", "");
  rlx_te_tensor_t* a2[2] = {m.a, bad};
  CHECK_ERR(rlx_te_create_prim_func(ctx, 2, a2, "main", &f), "whole body");

  rlx_tir_buffer_t* foreign = rlx_tir_buffer_create(ctx, "Foreign", rlx_dt_float32(), 1, shape, "global");
  CHECK(rlx_te_tensor_of_buffer(foreign) == NULL);
  rlx_te_tensor_t* fc = rlx_te_compute(ctx, 1, shape, foreign_body, foreign, "F", "");
  CHECK(fc->n_inputs == 0);
  rlx_te_tensor_t* a3[1] = {fc};
  CHECK_ERR(rlx_te_create_prim_func(ctx, 1, a3, "main", &f), "'Foreign', which is not a TE tensor");

  /* a load with the wrong number of indices */
  rlx_te_tensor_t* rank = rlx_te_compute(ctx, 1, shape, foreign_body, m.a->buffer, "R", "");
  rlx_te_tensor_t* a5[2] = {m.a, rank};
  CHECK_ERR(rlx_te_create_prim_func(ctx, 2, a5, "main", &f), "loads 'A' with 1 indices, but it has 2 dimensions");

  /* two computes with the same name get unique block names: C → T (relu C) → T (relu T) */
  rlx_te_tensor_t* d1 = rlx_te_compute(ctx, 2, shape, relu_body, &m, "T", "");
  mm_t m2 = m;
  m2.c = d1;
  rlx_te_tensor_t* d2 = rlx_te_compute(ctx, 2, shape, relu_body, &m2, "T", "");
  rlx_te_tensor_t* a4[3] = {m.a, m.b, d2};
  f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 3, a4, "main", &f));
  CHECK(f && rlx_tir_find_block(f->body, "T") && rlx_tir_find_block(f->body, "T_1"));
  CHECK(f && RLX_AS(rlx_tir_block_realize_t, f->body)->block->n_alloc_buffers == 2);
  rlx_ctx_free(ctx);
}

int main(void) {
  test_identities();
  test_errors();
  test_reductions();
  test_scalar_outputs();
  test_symbolic();
  test_matmul_relu();
  TEST_MAIN_END();
}
