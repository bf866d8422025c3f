/* Printer on functions built by TE create_prim_func: the text is exactly TVM's (golden
 * files), and parsing the golden text gives a structurally equal function. */
#include <stdlib.h>

#include "script/script.h"
#include "test.h"
#include "tir/schedule/schedule.h"
#include "tir/te.h"

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

static char* read_golden(const char* path) {
  char* text = NULL;
  size_t len;
  rlx_status_t* st = rlx_file_read(path, &text, &len);
  CHECK_MSG(!st, "%s", rlx_status_message(st));
  rlx_status_free(st);
  return text;
}

static void check_against_golden(rlx_ctx_t* ctx, rlx_tir_func_t* f, const char* path) {
  char* golden = read_golden(path);
  if (!golden || !f) {
    free(golden);
    return;
  }
  char* out = rlx_script_print_tir_func(f);
  CHECK_STREQ(out, golden);
  rlx_module_t* m = NULL;
  rlx_status_t* st = rlx_script_parse(ctx, golden, path, &m);
  CHECK_MSG(!st, "%s", rlx_status_message(st));
  if (!st) {
    CHECK(m->n_funcs == 1);
    rlx_tir_func_t* g = m->funcs[0].func;
    CHECK_MSG(rlx_tir_func_equal(f, g), "%s: parsed function differs structurally from TE's", path);
  }
  rlx_status_free(st);
  free(out);
  free(golden);
}

static void test_matmul_relu(bool i64) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* shape[2] = {i64 ? rlx_ir_i64(ctx, 128) : rlx_ir_i32(ctx, 128), i64 ? rlx_ir_i64(ctx, 128) : rlx_ir_i32(ctx, 128)};
  mm_t m = {0};
  m.a = rlx_te_placeholder(ctx, 2, shape, rlx_dt_float32(), "A");
  m.b = rlx_te_placeholder(ctx, 2, shape, rlx_dt_float32(), "B");
  m.k = rlx_te_reduce_axis(ctx, i64 ? rlx_ir_i64(ctx, 0) : rlx_ir_i32(ctx, 0), shape[0], "k");
  m.c = rlx_te_compute(ctx, 2, shape, mm_body, &m, "C", "");
  rlx_te_tensor_t* d = rlx_te_compute(ctx, 2, shape, relu_body, &m, "compute", "elemwise");
  rlx_te_tensor_t* args[3] = {m.a, m.b, d};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 3, args, "main", &f));
  check_against_golden(ctx, f, i64 ? "tests/golden/tir_matmul_relu_i64.py" : "tests/golden/tir_matmul_relu.py");
  rlx_ctx_free(ctx);
}

typedef struct {
  rlx_te_tensor_t *a, *b;
} add_t;
static rlx_expr_t* add_body(rlx_ctx_t* ctx, rlx_var_t* const* ix, void* user) {
  add_t* t = user;
  rlx_expr_t* i2[2] = {&ix[0]->hdr, &ix[1]->hdr};
  rlx_expr_t* i1[1] = {&ix[1]->hdr};
  return rlx_ir_add(ctx, rlx_te_load(ctx, t->a, 2, i2), rlx_te_load(ctx, t->b, 1, i1));
}

static void test_symbolic(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_var_t* n = rlx_ir_var(ctx, "n", rlx_dt_int64());
  rlx_expr_t* sa[2] = {&n->hdr, rlx_ir_i64(ctx, 128)};
  rlx_expr_t* sb[1] = {rlx_ir_i32(ctx, 128)};
  add_t t;
  t.a = rlx_te_placeholder(ctx, 2, sa, rlx_dt_float32(), "A");
  t.b = rlx_te_placeholder(ctx, 1, sb, rlx_dt_float32(), "B");
  rlx_te_tensor_t* c = rlx_te_compute(ctx, 2, sa, add_body, &t, "C", "");
  rlx_te_tensor_t* args[3] = {t.a, t.b, c};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 3, args, "main", &f));
  check_against_golden(ctx, f, "tests/golden/tir_symbolic_te.py");
  rlx_ctx_free(ctx);
}

/* A scheduled function (split with a predicate, reorder, parallel, vectorize, cache_write,
 * default schedule) prints, parses back structurally equal, and prints identically. */
static void check_reparse(rlx_ctx_t* ctx, const rlx_tir_func_t* f, const char* what, bool show) {
  char* out = rlx_script_print_tir_func(f);
  if (show) printf("%s", out);
  rlx_module_t* m = NULL;
  rlx_status_t* st = rlx_script_parse(ctx, out, what, &m);
  CHECK_MSG(!st, "%s: %s\n%s", what, rlx_status_message(st), out);
  rlx_status_free(st);
  if (m) {
    CHECK_MSG(rlx_tir_func_equal(f, m->funcs[0].func), "%s: reparsed function differs\n%s", what, out);
    char* out2 = rlx_script_print_module(m);
    CHECK_STREQ(out2, out);
    free(out2);
  }
  free(out);
}

static void test_scheduled(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* shape[2] = {rlx_ir_i32(ctx, 128), rlx_ir_i32(ctx, 128)};
  mm_t m = {0};
  m.a = rlx_te_placeholder(ctx, 2, shape, rlx_dt_float32(), "A");
  m.b = rlx_te_placeholder(ctx, 2, shape, rlx_dt_float32(), "B");
  m.k = rlx_te_reduce_axis(ctx, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, 128), "k");
  m.c = rlx_te_compute(ctx, 2, shape, mm_body, &m, "C", "");
  rlx_te_tensor_t* d = rlx_te_compute(ctx, 2, shape, relu_body, &m, "compute", "elemwise");
  rlx_te_tensor_t* args[3] = {m.a, m.b, d};
  rlx_tir_func_t* f = NULL;
  CHECK_OK(rlx_te_create_prim_func(ctx, 3, args, "main", &f));
  if (!f) {
    rlx_ctx_free(ctx);
    return;
  }
  rlx_schedule_t* s = rlx_schedule_create(ctx, f);
  rlx_var_t** loops;
  int n;
  CHECK_OK(rlx_sched_get_loops(s, "C", &loops, &n));
  rlx_var_t* sp[2];
  int64_t fac[2] = {-1, 5};
  CHECK_OK(rlx_sched_split(s, loops[0], 2, fac, sp));
  CHECK_OK(rlx_sched_parallel(s, sp[0]));
  const char* cw = NULL;
  CHECK_OK(rlx_sched_cache_write(s, "compute", 0, "local", &cw));
  check_reparse(ctx, s->func, "scheduled", false);
  rlx_tir_func_t* ds = NULL;
  CHECK_OK(rlx_tir_default_schedule(ctx, f, &ds));
  if (ds) check_reparse(ctx, ds, "default_schedule", false);
  rlx_ctx_free(ctx);
}

int main(void) {
  test_scheduled();
  test_matmul_relu(false);
  test_matmul_relu(true);
  test_symbolic();
  TEST_MAIN_END();
}
