/* TIR lowering passes: lower_blocks (init condition, predicates, nested blocks, allocations),
 * flatten_buffers (1-D accesses, shared data vars), simplify (extent-1 loops, provable
 * conditions), and the rlx_tir_lower / rlx_tir_lower_module pipeline, checked by structure
 * and by running the reference interpreter against plain C. */
#include <dlpack/dlpack.h>
#include <stdlib.h>

#include "driver/driver.h"
#include "test.h"
#include "tir/interp.h"
#include "tir/schedule/schedule.h"
#include "tir/te.h"
#include "transform/tir/transform.h"

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

/* ------------------------------------------------------------------ IR queries */
typedef struct {
  int n_blocks, n_for, n_alloc, n_if, max_load_dims, max_store_dims;
  const rlx_tir_if_t* first_if;
} stats_t;

static void st_expr_node(const rlx_expr_t* e, void* user) {
  stats_t* s = user;
  if (e->kind == RLX_EXPR_BUFFER_LOAD && RLX_AS(const rlx_buffer_load_t, e)->n_indices > s->max_load_dims)
    s->max_load_dims = RLX_AS(const rlx_buffer_load_t, e)->n_indices;
}
static void st_expr(const rlx_expr_t* e, void* user) { rlx_expr_visit(e, st_expr_node, user); }
static void st_stmt(const rlx_tir_stmt_t* s, void* user) {
  stats_t* c = user;
  switch (s->kind) {
    case RLX_STMT_BLOCK_REALIZE: c->n_blocks++; break;
    case RLX_STMT_FOR: c->n_for++; break;
    case RLX_STMT_ALLOCATE: c->n_alloc++; break;
    case RLX_STMT_IF:
      if (!c->first_if) c->first_if = RLX_AS(const rlx_tir_if_t, s);
      c->n_if++;
      break;
    case RLX_STMT_BUFFER_STORE:
      if (RLX_AS(const rlx_tir_store_t, s)->n_indices > c->max_store_dims)
        c->max_store_dims = RLX_AS(const rlx_tir_store_t, s)->n_indices;
      break;
    default: break;
  }
}
static stats_t stats(const rlx_tir_func_t* f) {
  stats_t s;
  memset(&s, 0, sizeof(s));
  rlx_tir_visitor_t v = {st_stmt, st_expr, NULL, &s};
  rlx_tir_stmt_visit(f->body, &v);
  return s;
}

/* ------------------------------------------------------------------ TE matmul + bias + relu */
typedef struct {
  rlx_te_tensor_t *a, *b, *c;
  rlx_iter_var_t* k;
} mm_t;

static rlx_expr_t* mm_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  mm_t* m = user;
  rlx_expr_t* ia[2] = {&ix[0]->hdr, &m->k->var->hdr};
  rlx_expr_t* ib[2] = {&m->k->var->hdr, &ix[1]->hdr};
  return rlx_te_sum(ctx, rlx_ir_mul(ctx, rlx_te_load(ctx, m->a, 2, ia), rlx_te_load(ctx, m->b, 2, ib)), 1, &m->k);
}
static rlx_expr_t* relu_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  mm_t* m = user;
  rlx_expr_t* i[2] = {&ix[0]->hdr, &ix[1]->hdr};
  return rlx_ir_max(ctx, rlx_te_load(ctx, m->c, 2, i), rlx_ir_float(ctx, rlx_dt_float32(), 0.0));
}

enum { M = 24, K = 20, NN = 28 };

static rlx_tir_func_t* make_matmul_relu(rlx_ctx_t* ctx, const char* name) {
  rlx_expr_t* sa[2] = {rlx_ir_i32(ctx, M), rlx_ir_i32(ctx, K)};
  rlx_expr_t* sb[2] = {rlx_ir_i32(ctx, K), rlx_ir_i32(ctx, NN)};
  rlx_expr_t* sc[2] = {rlx_ir_i32(ctx, M), rlx_ir_i32(ctx, NN)};
  mm_t m;
  m.a = rlx_te_placeholder(ctx, 2, sa, rlx_dt_float32(), "A");
  m.b = rlx_te_placeholder(ctx, 2, sb, rlx_dt_float32(), "B");
  m.k = rlx_te_reduce_axis(ctx, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, K), "k");
  m.c = rlx_te_compute(ctx, 2, sc, mm_body, &m, "C", "");
  rlx_te_tensor_t* d = rlx_te_compute(ctx, 2, sc, relu_body, &m, "D", "elemwise");
  rlx_te_tensor_t* args[3] = {m.a, m.b, d};
  rlx_tir_func_t* f = NULL;
  rlx_status_t* st = rlx_te_create_prim_func(ctx, 3, args, name, &f);
  CHECK_OK(st);
  return f;
}

static void check_matmul(const rlx_tir_func_t* f, const char* stage) {
  static float a[M * K], b[K * NN], d[M * NN], ref[M * NN];
  for (int i = 0; i < M * K; i++) a[i] = (float)((i * 37) % 17) / 8.0f - 1.0f;
  for (int i = 0; i < K * NN; i++) b[i] = (float)((i * 11) % 13) / 6.0f - 1.0f;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < NN; j++) {
      float s = 0;
      for (int k = 0; k < K; k++) s += a[i * K + k] * b[k * NN + j];
      ref[i * NN + j] = s > 0 ? s : 0;
      d[i * NN + j] = -7;
    }
  int64_t sa[2] = {M, K}, sb[2] = {K, NN}, sd[2] = {M, NN};
  DLTensor ta = dl(a, 2, sa, kDLFloat, 32), tb = dl(b, 2, sb, kDLFloat, 32), td = dl(d, 2, sd, kDLFloat, 32);
  DLTensor* args[3] = {&ta, &tb, &td};
  rlx_status_t* st = rlx_tir_interpret(f, args, 3);
  CHECK_MSG(!st, "%s: %s", stage, rlx_status_message(st));
  rlx_status_free(st);
  double err = 0;
  for (int i = 0; i < M * NN; i++) err = fmax(err, fabs((double)d[i] - ref[i]));
  CHECK_MSG(err < 1e-4, "%s: max abs error %g", stage, err);
}

static void test_passes_on_matmul(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_tir_func_t* f = make_matmul_relu(ctx, "mm");
  if (!f) goto done;
  rlx_tir_func_t *lb = NULL, *fl = NULL, *sp = NULL;
  CHECK_OK(rlx_tir_lower_blocks(ctx, f, &lb));
  if (!lb) goto done;
  stats_t s = stats(lb);
  CHECK(s.n_blocks == 0 && s.n_alloc == 1 && s.n_for == 5 && s.n_if == 1);
  /* the init runs under `if k == 0` with k the reduction loop var */
  CHECK(s.first_if && s.first_if->cond->kind == RLX_EXPR_EQ);
  if (s.first_if && s.first_if->cond->kind == RLX_EXPR_EQ) {
    rlx_binary_t* eq = RLX_AS(rlx_binary_t, s.first_if->cond);
    CHECK(eq->a->kind == RLX_EXPR_VAR && strcmp(RLX_AS(rlx_var_t, eq->a)->name, "k") == 0);
    int64_t z;
    CHECK(rlx_expr_is_const_int(eq->b, &z) && z == 0);
  }
  CHECK(s.max_load_dims == 2);
  CHECK(f->body->kind == RLX_STMT_BLOCK_REALIZE); /* input unchanged */
  CHECK_OK(rlx_tir_verify(lb));
  check_matmul(lb, "lower_blocks");

  CHECK_ERR(rlx_tir_flatten_buffers(ctx, f, &fl), "lower_blocks first");
  fl = NULL;
  CHECK_OK(rlx_tir_flatten_buffers(ctx, lb, &fl));
  if (!fl) goto done;
  s = stats(fl);
  CHECK(s.max_load_dims == 1 && s.max_store_dims == 1);
  CHECK(fl->buffer_map[0]->ndim == 2 && fl->buffer_map[2]->ndim == 2);
  CHECK_OK(rlx_tir_verify(fl));
  check_matmul(fl, "flatten_buffers");

  CHECK_OK(rlx_tir_simplify(ctx, fl, &sp));
  if (sp) {
    CHECK_OK(rlx_tir_verify(sp));
    check_matmul(sp, "simplify");
  }
  rlx_tir_func_t* low = NULL;
  CHECK_OK(rlx_tir_lower(ctx, f, false, &low));
  if (low) {
    s = stats(low);
    CHECK(s.n_blocks == 0 && s.max_load_dims == 1);
    check_matmul(low, "rlx_tir_lower");
  }
  rlx_tir_func_t* sched = NULL;
  CHECK_OK(rlx_tir_lower(ctx, f, true, &sched));
  if (sched) {
    CHECK(stats(sched).n_blocks == 0);
    check_matmul(sched, "rlx_tir_lower + default schedule");
  }
done:
  rlx_ctx_free(ctx);
}

/* ------------------------------------------------------------------ hand-built blocks */
/* for io in [0, 3): for j in [0, 4):
 *   block outer(vo = io): block inner(v = vo * 4 + j) where v < 10: Out[v] = In[v] * 2
 * with a predicate (only 10 of 12 points) and a nested block whose value uses the outer
 * block's iter var. Out has 12 elements; the last two keep their old value. */
static rlx_tir_func_t* make_nested(rlx_ctx_t* ctx) {
  rlx_expr_t* n12 = rlx_ir_i32(ctx, 12);
  rlx_tir_buffer_t* in = rlx_tir_buffer_create(ctx, "In", rlx_dt_float32(), 1, &n12, "global");
  rlx_tir_buffer_t* out = rlx_tir_buffer_create(ctx, "Out", rlx_dt_float32(), 1, &n12, "global");
  rlx_var_t* io = rlx_ir_var(ctx, "io", rlx_dt_int32());
  rlx_var_t* j = rlx_ir_var(ctx, "j", rlx_dt_int32());
  rlx_var_t* vo = rlx_ir_var(ctx, "vo", rlx_dt_int32());
  rlx_var_t* v = rlx_ir_var(ctx, "v", rlx_dt_int32());
  rlx_expr_t* vx = &v->hdr;
  rlx_tir_stmt_t* store =
      rlx_tir_store(ctx, out, rlx_ir_mul(ctx, rlx_ir_load(ctx, in, 1, &vx), rlx_ir_float(ctx, rlx_dt_float32(), 2.0)), 1,
                    &vx);
  rlx_tir_block_t* inner = RLX_NEW(ctx, rlx_tir_block_t);
  inner->name = "inner";
  inner->n_iter_vars = 1;
  inner->iter_vars = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, 1);
  inner->iter_vars[0] = rlx_tir_iter_var(ctx, v, rlx_ir_i32(ctx, 0), n12, RLX_ITER_SPATIAL);
  inner->body = store;
  rlx_expr_t* val = rlx_ir_add(ctx, rlx_ir_mul(ctx, &vo->hdr, rlx_ir_i32(ctx, 4)), &j->hdr);
  rlx_expr_t* pred = rlx_ir_cmp(ctx, RLX_EXPR_LT, rlx_ir_add(ctx, rlx_ir_mul(ctx, &vo->hdr, rlx_ir_i32(ctx, 4)), &j->hdr),
                                rlx_ir_i32(ctx, 10));
  rlx_tir_stmt_t* inner_r = rlx_tir_block_realize(ctx, 1, &val, pred, inner);
  rlx_tir_stmt_t* jl = rlx_tir_for(ctx, j, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, 4), RLX_FOR_SERIAL, inner_r);
  rlx_tir_block_t* outer = RLX_NEW(ctx, rlx_tir_block_t);
  outer->name = "outer";
  outer->n_iter_vars = 1;
  outer->iter_vars = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, 1);
  outer->iter_vars[0] = rlx_tir_iter_var(ctx, vo, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, 3), RLX_ITER_SPATIAL);
  outer->body = jl;
  rlx_expr_t* iov = &io->hdr;
  rlx_tir_stmt_t* body = rlx_tir_for(ctx, io, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, 3), RLX_FOR_SERIAL,
                                     rlx_tir_block_realize(ctx, 1, &iov, NULL, outer));
  rlx_var_t* params[2] = {in->data, out->data};
  rlx_tir_buffer_t* bm[2] = {in, out};
  return rlx_tir_func_create(ctx, "nested", 2, params, bm, body);
}

static void check_nested(const rlx_tir_func_t* f, const char* stage) {
  float in[12], out[12];
  for (int i = 0; i < 12; i++) in[i] = (float)i, out[i] = -1;
  int64_t s[1] = {12};
  DLTensor ti = dl(in, 1, s, kDLFloat, 32), to = dl(out, 1, s, kDLFloat, 32);
  DLTensor* args[2] = {&ti, &to};
  rlx_status_t* st = rlx_tir_interpret(f, args, 2);
  CHECK_MSG(!st, "%s: %s", stage, rlx_status_message(st));
  rlx_status_free(st);
  int bad = 0;
  for (int i = 0; i < 12; i++) bad += out[i] != (i < 10 ? 2.0f * (float)i : -1.0f);
  CHECK_MSG(bad == 0, "%s: %d wrong", stage, bad);
}

static void test_nested_blocks(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_tir_func_t* f = make_nested(ctx);
  CHECK_OK(rlx_tir_verify(f));
  check_nested(f, "nested, blocks");
  rlx_tir_func_t* lb = NULL;
  CHECK_OK(rlx_tir_lower_blocks(ctx, f, &lb));
  if (lb) {
    stats_t s = stats(lb);
    CHECK(s.n_blocks == 0 && s.n_if == 1 && s.n_for == 2);
    CHECK_OK(rlx_tir_verify(lb));
    check_nested(lb, "nested, lower_blocks");
  }
  rlx_tir_func_t* low = NULL;
  CHECK_OK(rlx_tir_lower(ctx, f, false, &low));
  if (low) check_nested(low, "nested, rlx_tir_lower");
  rlx_ctx_free(ctx);
}

/* ------------------------------------------------------------------ simplify */
/* for i in [0, 1): for j in [0, 8): if j < 8: for t in [2, 3): A[i * 8 + j + t - 2] = 1.0
 * → for j in [0, 8): A[j] = 1.0 */
static void test_simplify(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* n8 = rlx_ir_i32(ctx, 8);
  rlx_tir_buffer_t* a = rlx_tir_buffer_create(ctx, "A", rlx_dt_float32(), 1, &n8, "global");
  rlx_var_t* i = rlx_ir_var(ctx, "i", rlx_dt_int32());
  rlx_var_t* j = rlx_ir_var(ctx, "j", rlx_dt_int32());
  rlx_var_t* t = rlx_ir_var(ctx, "t", rlx_dt_int32());
  rlx_expr_t* idx = rlx_ir_sub(
      ctx, rlx_ir_add(ctx, rlx_ir_add(ctx, rlx_ir_mul(ctx, &i->hdr, n8), &j->hdr), &t->hdr), rlx_ir_i32(ctx, 2));
  rlx_tir_stmt_t* s = rlx_tir_store(ctx, a, rlx_ir_float(ctx, rlx_dt_float32(), 1.0), 1, &idx);
  s = rlx_tir_for(ctx, t, rlx_ir_i32(ctx, 2), rlx_ir_i32(ctx, 1), RLX_FOR_SERIAL, s);
  s = rlx_tir_if(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, &j->hdr, n8), s, NULL);
  s = rlx_tir_for(ctx, j, rlx_ir_i32(ctx, 0), n8, RLX_FOR_SERIAL, s);
  s = rlx_tir_for(ctx, i, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, 1), RLX_FOR_SERIAL, s);
  rlx_tir_func_t* f = rlx_tir_func_create(ctx, "simp", 1, &a->data, &a, s);
  rlx_tir_func_t* g = NULL;
  CHECK_OK(rlx_tir_simplify(ctx, f, &g));
  if (g) {
    CHECK(g->body->kind == RLX_STMT_FOR && RLX_AS(rlx_tir_for_t, g->body)->var == j);
    rlx_tir_stmt_t* b = g->body->kind == RLX_STMT_FOR ? RLX_AS(rlx_tir_for_t, g->body)->body : NULL;
    CHECK(b && b->kind == RLX_STMT_BUFFER_STORE);
    if (b && b->kind == RLX_STMT_BUFFER_STORE) CHECK(RLX_AS(rlx_tir_store_t, b)->indices[0] == &j->hdr);
  }
  /* a provably false condition removes the statement; an empty loop disappears */
  rlx_tir_stmt_t* s2 = rlx_tir_store(ctx, a, rlx_ir_float(ctx, rlx_dt_float32(), 1.0), 1, (rlx_expr_t* const*)&j);
  s2 = rlx_tir_if(ctx, rlx_ir_cmp(ctx, RLX_EXPR_GE, &j->hdr, n8), s2, NULL);
  s2 = rlx_tir_for(ctx, j, rlx_ir_i32(ctx, 0), n8, RLX_FOR_SERIAL, s2);
  rlx_tir_func_t* f2 = rlx_tir_func_create(ctx, "simp2", 1, &a->data, &a, s2);
  g = NULL;
  CHECK_OK(rlx_tir_simplify(ctx, f2, &g));
  CHECK(g && g->body->kind == RLX_STMT_EVALUATE);
  /* a block predicate provable from the loop range is dropped */
  rlx_var_t* v = rlx_ir_var(ctx, "v", rlx_dt_int32());
  rlx_expr_t* vx = &v->hdr;
  rlx_tir_block_t* blk = RLX_NEW(ctx, rlx_tir_block_t);
  blk->name = "B";
  blk->n_iter_vars = 1;
  blk->iter_vars = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, 1);
  blk->iter_vars[0] = rlx_tir_iter_var(ctx, v, rlx_ir_i32(ctx, 0), n8, RLX_ITER_SPATIAL);
  blk->body = rlx_tir_store(ctx, a, rlx_ir_float(ctx, rlx_dt_float32(), 1.0), 1, &vx);
  rlx_expr_t* jv = &j->hdr;
  rlx_tir_stmt_t* s3 = rlx_tir_block_realize(ctx, 1, &jv, rlx_ir_cmp(ctx, RLX_EXPR_LT, jv, n8), blk);
  s3 = rlx_tir_for(ctx, j, rlx_ir_i32(ctx, 0), n8, RLX_FOR_SERIAL, s3);
  rlx_tir_func_t* f3 = rlx_tir_func_create(ctx, "simp3", 1, &a->data, &a, s3);
  g = NULL;
  CHECK_OK(rlx_tir_simplify(ctx, f3, &g));
  rlx_tir_block_realize_t* br = g ? rlx_tir_find_block(g->body, "B") : NULL;
  CHECK(br && br->predicate == NULL);
  rlx_ctx_free(ctx);
}

/* ------------------------------------------------------------------ scheduled, then lowered */
/* Schedule primitives leave forms lower_blocks must handle: predicates from non-divisible
 * splits (on a spatial and on a reduction loop), split reduce iter values in the init
 * condition, an init block split off by decompose_reduction, a local cache block with its
 * alloc_buffer, parallel/vectorized/unrolled loops. */
static void test_scheduled(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_tir_func_t* f = make_matmul_relu(ctx, "mm");
  if (!f) goto done;
  for (int variant = 0; variant < 2; variant++) {
    rlx_schedule_t* s = rlx_schedule_create(ctx, f);
    rlx_var_t** loops = NULL;
    int n = 0;
    rlx_status_t* st = rlx_sched_get_loops(s, "C", &loops, &n);
    CHECK_OK(st);
    if (n != 3) continue;
    rlx_var_t *lj[2], *lk[2];
    int64_t fj[2] = {-1, 8}, fk[2] = {-1, 3};
    CHECK_OK(rlx_sched_split(s, loops[1], 2, fj, lj)); /* 28 = 4 x 8 - 4 */
    CHECK_OK(rlx_sched_split(s, loops[2], 2, fk, lk)); /* 20 = 7 x 3 - 1 */
    CHECK_OK(rlx_sched_parallel(s, loops[0]));
    if (variant == 0) {
      CHECK_OK(rlx_sched_unroll(s, lk[1]));
    } else {
      const char* init = NULL;
      CHECK_OK(rlx_sched_decompose_reduction(s, "C", lk[0], &init));
      const char* cw = NULL;
      CHECK_OK(rlx_sched_cache_write(s, "D", 0, "local", &cw));
    }
    CHECK_OK(rlx_tir_verify(s->func));
    check_matmul(s->func, variant ? "scheduled (decompose, cache_write)" : "scheduled (unroll)");
    rlx_tir_func_t *lb = NULL, *low = NULL, *sim = NULL;
    CHECK_OK(rlx_tir_simplify(ctx, s->func, &sim)); /* simplify works on blocks too */
    if (sim) {
      CHECK(stats(sim).n_blocks == stats(s->func).n_blocks);
      CHECK_OK(rlx_tir_verify(sim));
      check_matmul(sim, "scheduled, simplify");
    }
    CHECK_OK(rlx_tir_lower_blocks(ctx, s->func, &lb));
    if (lb) {
      CHECK(stats(lb).n_blocks == 0 && stats(lb).n_if >= 1);
      check_matmul(lb, variant ? "scheduled 1, lower_blocks" : "scheduled 0, lower_blocks");
    }
    CHECK_OK(rlx_tir_lower(ctx, s->func, false, &low));
    if (low) check_matmul(low, variant ? "scheduled 1, rlx_tir_lower" : "scheduled 0, rlx_tir_lower");
  }
done:
  rlx_ctx_free(ctx);
}

/* ------------------------------------------------------------------ module */
static void test_module(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = rlx_module_create(ctx);
  rlx_tir_func_t* f1 = make_matmul_relu(ctx, "mm");
  rlx_tir_func_t* f2 = make_nested(ctx);
  if (f1) rlx_module_set(m, "mm", RLX_FUNC_TIR, f1);
  rlx_module_set(m, "nested", RLX_FUNC_TIR, f2);
  rlx_module_t* out = NULL;
  CHECK_OK(rlx_tir_lower_module(ctx, m, false, &out));
  if (out) {
    CHECK(out->n_funcs == m->n_funcs);
    rlx_module_entry_t* e = rlx_module_find(out, "nested");
    CHECK(e && e->func != f2 && stats(e->func).n_blocks == 0);
    if (e) check_nested(e->func, "module nested");
    e = rlx_module_find(out, "mm");
    if (e) check_matmul(e->func, "module mm");
  }
  CHECK(rlx_module_find(m, "nested")->func == f2); /* input unchanged */
  rlx_ctx_free(ctx);
}

int main(void) {
  test_simplify();
  test_nested_blocks();
  test_passes_on_matmul();
  test_scheduled();
  test_module();
  TEST_MAIN_END();
}
