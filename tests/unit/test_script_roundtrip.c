/* Golden TVMScript files (tests/golden/tir_*.py) parse and print back byte-identical, and
 * print → parse → print is a fixed point. */
#include <stdlib.h>

#include "script/script.h"
#include "test.h"

static void check_golden(const char* path) {
  char* text = NULL;
  size_t len = 0;
  rlx_status_t* st = rlx_file_read(path, &text, &len);
  CHECK_MSG(st == NULL, "%s: %s", path, rlx_status_message(st));
  if (st) {
    rlx_status_free(st);
    return;
  }
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  st = rlx_script_parse(ctx, text, path, &m);
  CHECK_MSG(st == NULL, "%s: %s", path, rlx_status_message(st));
  if (!st) {
    char* out = rlx_script_print_module(m);
    CHECK_STREQ(out, text);
    rlx_module_t* m2 = NULL;
    st = rlx_script_parse(ctx, out, "printed", &m2);
    CHECK_MSG(st == NULL, "%s reparse: %s", path, rlx_status_message(st));
    if (!st) {
      char* out2 = rlx_script_print_module(m2);
      CHECK_STREQ(out2, out);
      CHECK(m2->n_funcs == m->n_funcs);
      for (int i = 0; i < m->n_funcs && i < m2->n_funcs; i++)
        CHECK_MSG(rlx_tir_func_equal(m->funcs[i].func, m2->funcs[i].func), "%s: function %s differs after print/parse",
                  path, m->funcs[i].name);
      free(out2);
    }
    free(out);
  }
  rlx_status_free(st);
  rlx_ctx_free(ctx);
  free(text);
}

int main(void) {
  static const char* const files[] = {
      "tests/golden/tir_matmul_relu.py", "tests/golden/tir_matmul_relu_i64.py", "tests/golden/tir_symbolic.py",
      "tests/golden/tir_loops.py",       "tests/golden/tir_exprs.py", "tests/golden/tir_symbolic_te.py", "tests/golden/tir_lowered.py",
  };
  for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) check_golden(files[i]);
  TEST_MAIN_END();
}
