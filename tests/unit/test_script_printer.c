/* Printer on hand-built IR: TVM's name de-duplication, T.axis.remap grouping, loop forms
 * with non-zero mins, typed constants, undeclared variables, LetStmt scoping, and that the
 * output parses back to an equal function. */
#include <stdlib.h>

#include "script/script.h"
#include "test.h"

/* equal=false when f uses free variables (they never compare equal to re-parsed ones). */
static void check_print(rlx_ctx_t* ctx, const rlx_tir_func_t* f, const char* want, bool equal) {
  char* out = rlx_script_print_tir_func(f);
  CHECK_STREQ(out, want);
  rlx_module_t* m = NULL;
  rlx_status_t* st = rlx_script_parse(ctx, out, "printed", &m);
  CHECK_MSG(!st, "%s", rlx_status_message(st));
  rlx_status_free(st);
  if (m) {
    if (equal) CHECK(rlx_tir_func_equal(f, m->funcs[0].func));
    char* out2 = rlx_script_print_module(m);
    CHECK_STREQ(out2, out);
    free(out2);
  }
  free(out);
}

static void test_names_and_loops(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* sh[2] = {rlx_ir_i32(ctx, 16), rlx_ir_i32(ctx, 16)};
  rlx_tir_buffer_t* a = rlx_tir_buffer_create(ctx, "A", rlx_dt_float32(), 2, sh, NULL);
  rlx_tir_buffer_t* b = rlx_tir_buffer_create(ctx, "i", rlx_dt_int64(), 1, sh, NULL);
  rlx_var_t* i0 = rlx_ir_var(ctx, "i", rlx_dt_int32());
  rlx_var_t* i1 = rlx_ir_var(ctx, "i", rlx_dt_int32());
  rlx_var_t* anon = rlx_ir_var(ctx, "", rlx_dt_int32());
  rlx_var_t* n = rlx_ir_var(ctx, "n", rlx_dt_int32());
  /* A[i, i_1] = A[i, i_1] * 2.0 + float(n) inside for i: for i_1 in range(2, 10) */
  rlx_expr_t* idx[2] = {&i0->hdr, &i1->hdr};
  rlx_expr_t* v = rlx_ir_add(ctx, rlx_ir_mul(ctx, rlx_ir_load(ctx, a, 2, idx), rlx_ir_float(ctx, rlx_dt_float32(), 2.0)),
                             rlx_ir_cast(ctx, rlx_dt_float32(), &n->hdr));
  rlx_tir_stmt_t* st = rlx_tir_store(ctx, a, v, 2, idx);
  rlx_tir_stmt_t* inner = rlx_tir_for(ctx, i1, rlx_ir_i32(ctx, 2), rlx_ir_i32(ctx, 8), RLX_FOR_SERIAL, st);
  rlx_tir_stmt_t* outer = rlx_tir_for(ctx, i0, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, 16), RLX_FOR_PARALLEL, inner);
  /* i[v] = T.int64(7) for v in T.unroll(4, 8), then a let chain */
  rlx_expr_t* bidx[1] = {&anon->hdr};
  rlx_tir_stmt_t* st2 = rlx_tir_store(ctx, b, rlx_ir_i64(ctx, 7), 1, bidx);
  rlx_tir_stmt_t* l2 = rlx_tir_for(ctx, anon, rlx_ir_i32(ctx, 4), rlx_ir_i32(ctx, 4), RLX_FOR_UNROLLED, st2);
  rlx_var_t* x = rlx_ir_var(ctx, "x", rlx_dt_int32());
  rlx_expr_t* xi[1] = {&x->hdr};
  rlx_tir_stmt_t* use_x = rlx_tir_store(ctx, b, rlx_ir_cast(ctx, rlx_dt_int64(), &x->hdr), 1, xi);
  rlx_tir_stmt_t* let_mid = rlx_tir_let(ctx, x, rlx_ir_i32(ctx, 3), use_x);
  rlx_var_t* x2 = rlx_ir_var(ctx, "x", rlx_dt_int32());
  rlx_expr_t* xi2[1] = {&x2->hdr};
  rlx_tir_stmt_t* let_last =
      rlx_tir_let(ctx, x2, rlx_ir_add(ctx, &n->hdr, rlx_ir_i32(ctx, 1)),
                  rlx_tir_store(ctx, b, rlx_ir_i64(ctx, -1), 1, xi2));
  rlx_tir_stmt_t* body_s[4] = {outer, l2, let_mid, let_last};
  rlx_tir_stmt_t* body = rlx_tir_seq(ctx, 4, body_s);
  rlx_var_t* params[2] = {a->data, b->data};
  rlx_tir_buffer_t* bm[2] = {a, b};
  rlx_tir_func_t* f = rlx_tir_func_create(ctx, "names", 2, params, bm, body);
  check_print(ctx, f,
              "# from tvm.script import tir as T\n\n"
              "@T.prim_func\n"
              "def names(A: T.Buffer((16, 16), \"float32\"), i: T.Buffer((16,), \"int64\")):\n"
              "    n = T.int32()\n"
              "    for i_1 in T.parallel(16):\n"
              "        for i_2 in range(2, 10):\n"
              "            A[i_1, i_2] = A[i_1, i_2] * T.float32(2.0) + T.Cast(\"float32\", n)\n"
              "    for v in T.unroll(4, 8):\n"
              "        i[v] = T.int64(7)\n"
              "    with T.LetStmt(3) as x:\n"
              "        i[x] = T.Cast(\"int64\", x)\n"
              "    x: T.int32 = n + 1\n"
              "    i[x] = T.int64(-1)\n",
              false);
  rlx_ctx_free(ctx);
}

static void test_axis_forms(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* sh[2] = {rlx_ir_i32(ctx, 16), rlx_ir_i32(ctx, 32)};
  rlx_tir_buffer_t* a = rlx_tir_buffer_create(ctx, "A", rlx_dt_float32(), 2, sh, NULL);
  rlx_var_t* i = rlx_ir_var(ctx, "i", rlx_dt_int32());
  rlx_var_t* j = rlx_ir_var(ctx, "j", rlx_dt_int32());
  rlx_var_t* k = rlx_ir_var(ctx, "k", rlx_dt_int32());
  rlx_var_t* vi = rlx_ir_var(ctx, "vi", rlx_dt_int32());
  rlx_var_t* vj = rlx_ir_var(ctx, "vj", rlx_dt_int32());
  rlx_var_t* vk = rlx_ir_var(ctx, "vk", rlx_dt_int32());
  rlx_tir_block_t* blk = RLX_NEW(ctx, rlx_tir_block_t);
  blk->name = "b";
  blk->n_iter_vars = 3;
  blk->iter_vars = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, 3);
  blk->iter_vars[0] = rlx_tir_iter_var(ctx, vi, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, 16), RLX_ITER_SPATIAL);
  blk->iter_vars[1] = rlx_tir_iter_var(ctx, vj, rlx_ir_i32(ctx, 8), rlx_ir_i32(ctx, 24), RLX_ITER_SPATIAL);
  blk->iter_vars[2] = rlx_tir_iter_var(ctx, vk, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, 4), RLX_ITER_REDUCE);
  rlx_expr_t* widx[2] = {&vi->hdr, &vj->hdr};
  blk->n_writes = 1;
  blk->writes = RLX_NEW_ARRAY(ctx, rlx_buffer_region_t, 1);
  blk->writes[0].buffer = a;
  blk->writes[0].ndim = 2;
  blk->writes[0].region = RLX_NEW_ARRAY(ctx, rlx_range_t, 2);
  blk->writes[0].region[0] = (rlx_range_t){&vi->hdr, rlx_ir_i32(ctx, 1)};
  blk->writes[0].region[1] = (rlx_range_t){rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, 32)};
  blk->body = rlx_tir_store(ctx, a, rlx_ir_float(ctx, rlx_dt_float32(), 0.5), 2, widx);
  rlx_expr_t* vals[3] = {&i->hdr, rlx_ir_add(ctx, &j->hdr, rlx_ir_i32(ctx, 8)), &k->hdr};
  rlx_expr_t* pred = rlx_ir_cmp(ctx, RLX_EXPR_LT, &j->hdr, rlx_ir_i32(ctx, 20));
  rlx_tir_stmt_t* br = rlx_tir_block_realize(ctx, 3, vals, pred, blk);
  rlx_tir_stmt_t* lk = rlx_tir_for(ctx, k, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, 4), RLX_FOR_SERIAL, br);
  rlx_tir_stmt_t* lj = rlx_tir_for(ctx, j, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, 24), RLX_FOR_SERIAL, lk);
  rlx_tir_stmt_t* li = rlx_tir_for(ctx, i, rlx_ir_i32(ctx, 0), rlx_ir_i32(ctx, 16), RLX_FOR_VECTORIZED, lj);
  rlx_tir_block_t* root = RLX_NEW(ctx, rlx_tir_block_t);
  root->name = "root";
  root->body = li;
  rlx_tir_stmt_t* body = rlx_tir_block_realize(ctx, 0, NULL, NULL, root);
  rlx_var_t* params[1] = {a->data};
  rlx_tir_func_t* f = rlx_tir_func_create(ctx, "axes", 1, params, &a, body);
  f = rlx_tir_func_with_attr(ctx, f, "a.flag", rlx_ir_bool(ctx, false));
  f->is_private = true;
  const char* want =
              "# from tvm.script import tir as T\n\n"
              "@T.prim_func(private=True)\n"
              "def axes(A: T.Buffer((16, 32), \"float32\")):\n"
              "    T.func_attr({\"a.flag\": T.bool(False)})\n"
              "    # with T.block(\"root\"):\n"
              "    for i in T.vectorized(16):\n"
              "        for j, k in T.grid(24, 4):\n"
              "            with T.block(\"b\"):\n"
              "                vi = T.axis.spatial(16, i)\n"
              "                vj = T.axis.spatial((8, 32), j + 8)\n"
              "                vk = T.axis.reduce(4, k)\n"
              "                T.where(j < 20)\n"
              "                T.reads()\n"
              "                T.writes(A[vi, 0:32])\n"
              "                A[vi, vj] = T.float32(0.5)\n";
  check_print(ctx, f, want, true);
  /* a global_symbol equal to the name is not printed; a different one is */
  rlx_tir_func_t* g = rlx_tir_func_with_attr(ctx, f, "global_symbol", rlx_ir_string(ctx, "axes"));
  char* out = rlx_script_print_tir_func(g);
  CHECK_STREQ(out, want);
  free(out);
  g = rlx_tir_func_with_attr(ctx, f, "global_symbol", rlx_ir_string(ctx, "axes_kernel"));
  out = rlx_script_print_tir_func(g);
  CHECK(strstr(out, "    T.func_attr({\"a.flag\": T.bool(False), \"global_symbol\": \"axes_kernel\"})\n") != NULL);
  free(out);
  rlx_ctx_free(ctx);
}

int main(void) {
  test_names_and_loops();
  test_axis_forms();
  TEST_MAIN_END();
}
