/* default_schedule: every unscheduled PrimFunc gets the default CPU schedule (marked
 * tir.is_scheduled) and still computes the same numbers; scheduled functions and ones marked
 * rlx.no_default_schedule are kept as they are (shared); Relax functions are untouched. */
#include "pass_test_util.h"
#include "test.h"
#include "transform/pass.h"

static bool scheduled(const rlx_tir_func_t* f) {
  int64_t v = 0;
  return rlx_expr_is_const_int(rlx_tir_func_get_attr(f, "tir.is_scheduled"), &v) && v;
}

static void test_schedule_module(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_dtype_t f32 = rlx_dt_float32();
  int64_t d[2] = {24, 40};
  rlx_relax_var_t* A = rlx_relax_var(ctx, "A", rlx_sinfo_tensor_const(ctx, 2, d, f32));
  rlx_relax_var_t* B = rlx_relax_var(ctx, "B", rlx_sinfo_tensor_const(ctx, 2, (int64_t[]){40, 24}, f32));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *lv0, *lv1, *lv2, *gv;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 2, (rlx_relax_var_t*[]){A, B}));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  CHECK_OK(rlx_bb_emit_te(bb, te_matmul, NULL, 2, (rlx_relax_expr_t*[]){&A->hdr, &B->hdr}, NULL, "lv0", &lv0));
  CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&lv0->hdr}, NULL, "lv1", &lv1));
  CHECK_OK(rlx_bb_emit_te(bb, te_exp, NULL, 1, (rlx_relax_expr_t*[]){&lv1->hdr}, NULL, "lv2", &lv2));
  CHECK_OK(rlx_bb_emit_output(bb, &lv2->hdr, "gv", &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, -1, NULL));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  rlx_module_t* m = rlx_bb_get(bb);
  /* exp opts out of the default schedule */
  rlx_module_entry_t* ex = rlx_module_find(m, "exp");
  CHECK(ex != NULL);
  if (!ex) return;
  ex->func = rlx_tir_func_with_attr(ctx, ex->func, "rlx.no_default_schedule", rlx_ir_bool(ctx, true));
  rlx_module_t* out = NULL;
  CHECK_OK(rlx_pass_default_schedule(ctx, m, &out));
  if (!out) return;
  CHECK_OK(rlx_relax_well_formed(ctx, out));
  CHECK(out->n_funcs == m->n_funcs);
  CHECK(main_of(out) == main_of(m));
  rlx_module_entry_t* mm = rlx_module_find(out, "matmul");
  rlx_module_entry_t* relu = rlx_module_find(out, "relu");
  CHECK(mm && scheduled(mm->func) && mm->func != rlx_module_find(m, "matmul")->func);
  CHECK(relu && scheduled(relu->func));
  CHECK(!scheduled(rlx_module_find(m, "matmul")->func)); /* input untouched */
  CHECK(rlx_module_find(out, "exp")->func == ex->func);
  CHECK_OK(rlx_tir_verify(mm->func));
  /* scheduled functions compute the same */
  ht_t* in[2] = {ht_new(ctx, f32, 2, d), ht_new(ctx, f32, 2, (int64_t[]){40, 24})};
  ht_fill(in[0], 1);
  ht_fill(in[1], 2);
  ht_t* y0 = relax_eval(ctx, m, "main", in);
  ht_t* y1 = relax_eval(ctx, out, "main", in);
  CHECK(y0 && y1);
  if (y0 && y1) {
    double e = ht_max_abs_diff(y1, ht_f32(y0));
    CHECK_MSG(e < 1e-4, "scheduled vs unscheduled: max abs err %g (tol 1e-4)", e);
  }
  /* a second run keeps everything (already scheduled) */
  rlx_module_t* again = NULL;
  CHECK_OK(rlx_pass_default_schedule(ctx, out, &again));
  CHECK(again && rlx_module_find(again, "matmul")->func == mm->func &&
        rlx_module_find(again, "relu")->func == relu->func);
  rlx_ctx_free(ctx);
}

int main(void) {
  test_schedule_module();
  TEST_MAIN_END();
}
