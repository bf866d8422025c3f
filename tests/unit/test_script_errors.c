/* Malformed TVMScript: every input gives a "file:line:col: expected ..., got ..." style
 * error naming what was expected; truncated and mutated inputs never crash. */
#include <stdlib.h>

#include "script/script.h"
#include "test.h"

static rlx_status_t* parse(const char* text) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  rlx_status_t* st = rlx_script_parse(ctx, text, "t.py", &m);
  rlx_ctx_free(ctx);
  return st;
}

#define HDR "@T.prim_func\ndef f(A: T.Buffer((4, 4), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"

typedef struct {
  const char* text;
  const char* needle1; /* location */
  const char* needle2; /* what was expected */
} case_t;

static const case_t cases[] = {
    {HDR "    B[0] = T.Cast(\"float32, 1)\n", "t.py:3:19:", "unterminated string"},
    {HDR "    for i in range(4):\n        B[i] = T.float32(0.0)\n      B[0] = T.float32(1.0)\n", "t.py:5:7:",
     "expected indentation matching"},
    {HDR "    B[0] = T.foo(1)\n", "t.py:3:12:", "unknown function T.foo"},
    {HDR "    B[0] = x\n", "t.py:3:12:", "undefined variable 'x'"},
    {HDR "    B[0] = T.max(A[0, 0])\n", "t.py:3:12:", "expected 2 arguments to T.max, got 1"},
    {HDR "    B[0] = A[0]\n", "t.py:3:12:", "expected 2 indices for buffer 'A', got 1"},
    {HDR "    B[0, 1] = T.float32(0.0)\n", "t.py:3:5:", "expected 1 indices for buffer 'B', got 2"},
    {HDR "    for i in range(4)\n        B[i] = T.float32(0.0)\n", "t.py:3:22:", "expected ':', got end of line"},
    {"@T.prim_func\ndef f(B: T.Buffer((4,), \"float32\")):\nB[0] = T.float32(0.0)\n", "t.py:3:1:", "expected an indented block"},
    {HDR "    B[0] = T.float32(0.0)\n        B[1] = T.float32(0.0)\n", "t.py:4:9:", "unexpected indent"},
    {"@T.prim_func\ndef f(A):\n    pass\n", "t.py:2:7:", "expected a type annotation for parameter 'A'"},
    {"@R.function\ndef f(A: T.handle):\n    pass\n", "t.py:2:10:", "expected struct info such as R.Tensor((n, 4), dtype=\"float32\"), got T.handle"},
    {"", "t.py:1:1:", "expected a @T.prim_func or @R.function function or an @I.ir_module class, got end of file"},
    {"x = 1\n", "t.py:1:1:", "expected a @T.prim_func or @R.function function or an @I.ir_module class, got an assignment"},
    {HDR "    T.reads(A[0, 0])\n", "t.py:3:5:", "expected T.reads directly inside a T.block"},
    {HDR "    for i in range(4):\n        with T.block(\"b\"):\n            vi, vj = T.axis.remap(\"SS\", [i, i + 1])\n"
         "            B[vi] = T.float32(0.0)\n",
     "t.py:5:45:", "expected a loop variable in T.axis.remap"},
    {HDR "    for i in range(4):\n        with T.block(\"b\"):\n            vi = T.axis.remap(\"SS\", [i])\n"
         "            B[vi] = T.float32(0.0)\n",
     "t.py:5:31:", "expected 1 iter kinds for 1 bindings, got 2"},
    {HDR "    for i in T.grid(4, 4):\n        B[i] = T.float32(0.0)\n", "t.py:3:9:", "expected 2 loop variables, got 1"},
    {HDR "    B[0] = T.max(A[0, 0], A[0, 1]\n", "t.py:4:1:", "expected ',' or ')', got end of file"},
    {HDR "    B[0] = $\n", "t.py:3:12:", "expected a token, got invalid character '$'"},
    {HDR "    a = T.match_buffer(B, (4,))\n", "t.py:3:24:", "expected a handle parameter of the function, got 'B'"},
    {"@T.prim_func\ndef f(A: T.Buffer((4,), \"float33\")):\n    pass\n", "t.py:2:25:", "expected a dtype such as \"float32\""},
    {HDR "    B[0] = \"s\"\n", "t.py:3:5:", "expected a numeric value to store, got a string"},
    {HDR "    if A[0, 0]:\n        B[0] = T.float32(0.0)\n", "t.py:3:8:", "expected a boolean condition"},
    {HDR "    B[0] = 99999999999999999999\n", "t.py:3:12:", "expected an integer that fits in 64 bits"},
    {"@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    pass\n\n@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    pass\n",
     "t.py:5:1:", "expected distinct function names, got 'f' twice"},
    {HDR "    B[0] = T.float32(0.0) +\n", "t.py:3:28:", "expected an expression, got end of line"},
    {HDR "    with T.init():\n        B[0] = T.float32(0.0)\n", "t.py:3:10:", "expected T.init() directly inside a T.block"},
    {HDR "    while True:\n        pass\n", "t.py:3:5:", "expected a TIR statement, got unsupported 'while'"},
    {"@I.ir_module\nclass M:\n    x = 1\n", "t.py:3:5:", "expected a @T.prim_func or @R.function function in the module, got an assignment"},
    {HDR "    B[0] = T.float32()\n", "t.py:3:12:", "expected a value, got the variable declaration T.float32()"},
    {HDR "    B[0] = A\n", "t.py:3:12:", "expected a value, got buffer 'A'"},
    {HDR "    B[0] = T.Ramp(0, 1, n)\n", "t.py:3:25:", "expected a constant lane count"},
    {HDR "    for i in T.thread_binding(4, thread=\"x\"):\n        pass\n", "t.py:3:14:", "unsupported T.thread_binding"},
    {HDR "    B[0] = 1 << 2\n", "t.py:3:12:", "unsupported operator '<<'"},
    {HDR "    B[0] = T.float32(0.0)\n  B[1] = T.float32(0.0)\n", "t.py:4:3:", "expected indentation matching"},
};

static void test_cases(void) {
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    rlx_status_t* st = parse(cases[i].text);
    const char* msg = rlx_status_message(st);
    CHECK_MSG(st && strstr(msg, cases[i].needle1) && strstr(msg, cases[i].needle2), "case %zu: got '%s', want '%s' and '%s'",
              i, st ? msg : "ok", cases[i].needle1, cases[i].needle2);
    rlx_status_free(st);
  }
}

static void test_deep_nesting(void) {
  size_t n = 5000;
  char* s = malloc(n * 2 + 200);
  strcpy(s, HDR "    B[0] = ");
  size_t k = strlen(s);
  for (size_t i = 0; i < n; i++) s[k++] = '(';
  s[k++] = '1';
  for (size_t i = 0; i < n; i++) s[k++] = ')';
  s[k++] = '\n';
  s[k] = 0;
  CHECK_ERR(parse(s), "levels of nesting");
  free(s);
  /* a 100000-term sum and 20000 chained lets: errors, not stack overflows */
  rlx_strbuf_t sb = {0};
  rlx_strbuf_append(&sb, HDR "    B[0] = A[0, 0]");
  for (int i = 0; i < 100000; i++) rlx_strbuf_append(&sb, " + A[0, 0]");
  rlx_strbuf_append(&sb, "\n");
  CHECK_ERR(parse(rlx_strbuf_cstr(&sb)), "t.py:3:12: expected an expression at most");
  rlx_strbuf_free(&sb);
  rlx_strbuf_append(&sb, HDR);
  for (int i = 0; i < 20000; i++) rlx_strbuf_printf(&sb, "    x%d = %d\n", i, i);
  CHECK_ERR(parse(rlx_strbuf_cstr(&sb)), "nested let/decl_buffer statements");
  rlx_strbuf_free(&sb);
}

/* Every prefix of a valid script and single-byte mutations: an error or success, never a
 * crash, and errors always carry a location. */
/* Parses text; when it parses, its printout must parse and print the same (no crash, no
 * printer/parser disagreement). Returns 1 for an error without a location. */
static int fuzz_one(const char* text, int* n_ok, int* n_unstable) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  rlx_status_t* e = rlx_script_parse(ctx, text, "t.py", &m);
  int bad = e && !strstr(rlx_status_message(e), "t.py:");
  if (!e) {
    (*n_ok)++;
    char* out = rlx_script_print_module(m);
    rlx_module_t* m2 = NULL;
    rlx_status_t* e2 = rlx_script_parse(ctx, out, "t.py", &m2);
    if (e2) {
      (*n_unstable)++;
      if (*n_unstable < 3) fprintf(stderr, "unstable: %s\n%s\n--- from\n%s\n", rlx_status_message(e2), out, text);
    } else {
      char* out2 = rlx_script_print_module(m2);
      if (strcmp(out, out2) != 0) {
        (*n_unstable)++;
        if (*n_unstable < 3) fprintf(stderr, "not a fixed point:\n%s\n---\n%s\n--- from\n%s\n", out, out2, text);
      }
      free(out2);
    }
    rlx_status_free(e2);
    free(out);
  }
  rlx_status_free(e);
  rlx_ctx_free(ctx);
  return bad;
}

static void fuzz_file(const char* path) {
  char* text = NULL;
  size_t len = 0;
  rlx_status_t* st = rlx_file_read(path, &text, &len);
  CHECK(!st);
  rlx_status_free(st);
  if (!text) return;
  char* buf = malloc(len + 1);
  int bad = 0, n_ok = 0, n_unstable = 0;
  for (size_t cut = 0; cut <= len; cut++) {
    memcpy(buf, text, cut);
    buf[cut] = 0;
    bad += fuzz_one(buf, &n_ok, &n_unstable);
  }
  static const char subst[] = "()[]:,.=\"' \n\tx0T#";
  unsigned seed = 1;
  for (int it = 0; it < 3000; it++) {
    memcpy(buf, text, len + 1);
    seed = seed * 1103515245u + 12345u;
    size_t pos = (seed >> 8) % len;
    seed = seed * 1103515245u + 12345u;
    buf[pos] = subst[(seed >> 8) % (sizeof(subst) - 1)];
    bad += fuzz_one(buf, &n_ok, &n_unstable);
  }
  CHECK_MSG(bad == 0, "%s: %d errors without a location", path, bad);
  CHECK_MSG(n_unstable == 0, "%s: %d of %d parsed mutants did not print/parse back stably", path, n_unstable, n_ok);
  free(buf);
  free(text);
}

int main(void) {
  test_cases();
  test_deep_nesting();
  fuzz_file("tests/golden/tir_exprs.py");
  fuzz_file("tests/golden/tir_matmul_relu.py");
  fuzz_file("tests/golden/tir_lowered.py");
  TEST_MAIN_END();
}
