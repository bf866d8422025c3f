/* Relax TVMScript errors: malformed inputs each give a file:line:col message saying what was
 * expected; truncations and single-byte mutations of the Relax goldens never crash, every
 * error carries a location, and whatever parses prints and parses back stably. */
#include <stdlib.h>

#include "script/script.h"
#include "test.h"

#define HDR "# from tvm.script import relax as R\n@R.function\n"
#define F1 HDR "def f(x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), dtype=\"float32\"):\n"

static rlx_status_t* parse(const char* text) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  rlx_status_t* st = rlx_script_parse(ctx, text, "t.py", &m);
  rlx_ctx_free(ctx);
  return st;
}

static const struct {
  const char* text;
  const char* where;
  const char* what;
} cases[] = {
    /* signatures */
    {HDR "def f(x):\n    return x\n", "t.py:3:7:", "parameter x: expected struct info"},
    {HDR "def f(x: R.Tensr((4,), \"float32\")):\n    return x\n",
     "t.py:3:10:", "expected struct info (R.Tensor, R.Tuple, R.Shape, R.Prim, R.Object, R.Callable), got R.Tensr"},
    {HDR "def f(x: R.Object(1)):\n    return x\n", "t.py:3:10:", "R.Object() takes no arguments, got 1"},
    {HDR "def f(x: R.Tensor((4,), \"flot32\")):\n    return x\n",
     "t.py:3:25:", "expected a dtype such as \"float32\", got the string \"flot32\""},
    {HDR "def f(x: R.Tensor((4, m), \"float32\")):\n    return x\n", "t.py:3:23:", "undefined symbolic variable 'm'"},
    {HDR "def f(x: R.Tensor((4, 1.5), \"float32\")):\n    return x\n", "t.py:3:23:", "expected a dimension"},
    {HDR "def f(x: R.Tensor((\"n +\",), \"float32\")):\n    return x\n",
     "t.py:3:20:", "expected a symbolic dimension such as \"n\", got \"n +\""},
    {HDR "def f(x: R.Tensor(ndim=2, shape=(4,))):\n    return x\n",
     "t.py:3:24:", "R.Tensor: ndim=2 does not match the shape's 1 dims"},
    {"# from tvm.script import relax as R\n@R.function(pure=1)\ndef f(x: R.Object):\n    return x\n",
     "t.py:2:18:", "R.function: expected True or False for pure"},
    {"# from tvm.script import relax as R\n@R.function(inline=True)\ndef f(x: R.Object):\n    return x\n",
     "t.py:2:20:", "unexpected option 'inline'"},
    {HDR "def f(x: R.Object, x: R.Object):\n    return x\n", "t.py:3:20:", "parameter x: defined twice"},
    /* bodies */
    {F1 "    y = R.add(x, x)\n",
     "t.py:4:5:", "function f: expected the body to end with `return <value>`, got an assignment"},
    {F1 "    return y\n", "t.py:4:12:", "undefined variable 'y'"},
    {F1 "    y: R.Tensor((4,), dtype=\"float32\") = R.addd(x, x)\n    return y\n", "t.py:4:42:", "unknown op R.addd"},
    {F1 "    y: R.Tensor((5,), dtype=\"float32\") = R.add(x, x)\n    return y\n",
     "t.py:4:8:", "y: expected R.Tensor((5,), dtype=\"float32\"), got R.Tensor((4,), dtype=\"float32\")"},
    {F1 "    y: R.Shape = R.add(x, x)\n    return y\n",
     "t.py:4:8:", "y: expected R.Shape(ndim=-1), got R.Tensor((4,), dtype=\"float32\")"},
    {F1 "    y = R.nn.relu(x, x)\n    return y\n", "t.py:4:9:", "relax.nn.relu"},
    {F1 "    y = R.sum(x, axis=[1.5])\n    return y\n",
     "t.py:4:24:", "attribute axis: expected a list of integers, got a float literal"},
    {F1 "    y = R.add(x, {1: 2})\n    return y\n", "t.py:4:18:",
     "expected a Relax expression (a variable, a call such as R.add(x, y), a tuple), got a dict"},
    {F1 "    return R.add(x, x)[1.5]\n", "t.py:4:12:", "expected a tuple index such as lv[0], got a float literal"},
    {F1 "    y = R.match_cast(x)\n    return y\n", "t.py:4:9:", "R.match_cast: expected (value, struct info)"},
    {F1 "    y = R.match_cast(x, R.Shape([4]))\n    return y\n", "t.py:4:25:",
     "y: expected struct info that a value of R.Tensor((4,), dtype=\"float32\") can match, got R.Shape([4])"},
    {F1 "    y = R.match_cast(x, R.Tensor((5,), \"float32\"))\n    return y\n",
     "t.py:4:25:", "can match, got R.Tensor((5,), dtype=\"float32\")"},
    {F1 "    y = R.add(R.match_cast(x, R.Tensor), x)\n    return y\n",
     "t.py:4:15:", "R.match_cast is only allowed as the value of a binding"},
    {F1 "    return R.add(x, x, x)\n", "t.py:4:12:", "relax.add"},
    {F1 "    with R.dataflow():\n        y = R.add(x, x)\n    return y\n",
     "t.py:5:9:", "expected the dataflow block to end with R.output(...), got an assignment"},
    {F1 "    with R.dataflow():\n        y = R.add(x, x)\n        R.output(z)\n    return y\n",
     "t.py:6:18:", "R.output: 'z' is not bound in this dataflow block"},
    {F1 "    with R.dataflow():\n        y = R.add(x, x)\n        z = R.add(y, y)\n        R.output(z)\n    return y\n",
     "t.py:8:12:", "undefined variable 'y'"},
    {F1 "    with R.dataflow():\n        y = R.call_packed(\"p\", x, sinfo_args=(R.Object,))\n        R.output(y)\n    "
        "return y\n",
     "t.py:5:13:", "y: expected a pure call inside a dataflow block, got the impure a call of R.call_packed"},
    {F1
     "    with R.dataflow():\n        with R.dataflow():\n            R.output()\n        R.output()\n    return x\n",
     "t.py:5:14:", "expected R.dataflow() only at function level"},
    {F1 "    R.output(x)\n    return x\n",
     "t.py:4:5:", "R.output: expected only as the last statement of a dataflow block"},
    {F1 "    y = R.add(x, x)\n    R.func_attr({\"a\": 1})\n    return y\n",
     "t.py:5:5:", "R.func_attr: expected at the top of the function body"},
    {F1 "    def g(a: R.Object):\n        return a\n    return x\n",
     "t.py:4:5:", "expected a local function decorated @R.function"},
    {F1 "    @R.function(private=True)\n    def g(a: R.Object):\n        return a\n    return x\n",
     "t.py:4:5:", "g: expected no private= on a local function"},
    {F1 "    for i in range(4):\n        pass\n    return x\n",
     "t.py:4:5:", "expected a binding, `with R.dataflow():`, an if or a return in a Relax function, got 'for'"},
    {F1 "    return R.call_tir(cls.g, (x,), out_sinfo=R.Tensor((4,), dtype=\"float32\"))\n",
     "t.py:4:23:", "expected a module function such as cls.f, got cls.g"},
    {F1 "    return R.call_dps_packed(f, (x,), out_sinfo=R.Tensor((4,), \"float32\"))\n",
     "t.py:4:30:", "R.call_dps_packed: expected the function name as a string, got name 'f'"},
    {F1 "    return R.call_dps_packed(\"f\", {1: x}, out_sinfo=R.Tensor((4,), \"float32\"))\n",
     "t.py:4:35:", "got a dict"},
    {F1 "    return R.call_dps_packed(\"f\", (x,))\n",
     "t.py:4:12:", "R.call_dps_packed: expected out_sinfo=R.Tensor(...)"},
    {F1 "    return R.call_dps_packed(\"f\", (x,), out_sinfo=R.Shape)\n",
     "t.py:4:12:", "out_sinfo must be one R.Tensor or an R.Tuple of R.Tensor"},
    {F1 "    return R.call_packed(\"f\", x, sinfo_args=R.Tensor((4,), \"float32\"), foo=1)\n",
     "t.py:4:76:", "R.call_packed: unexpected keyword argument 'foo'"},
    {F1 "    return R.const([[1, 2], [3]], \"float32\")\n", "t.py:4:29:", "R.const: ragged nested list"},
    {F1 "    return R.shape([x])\n", "t.py:4:21:", "expected a symbolic dimension, got the Relax variable 'x'"},
    {F1 "    return R.str(1)\n", "t.py:4:12:", "R.str: expected one string literal"},
    {F1 "    if x:\n        y = x\n    return y\n", "t.py:4:5:", "expected an else branch"},
    {F1 "    if x:\n        y = x\n    else:\n        z = x\n    return y\n",
     "t.py:7:9:", "expected both branches to assign 'y', got 'z'"},
    {F1 "    if x:\n        y = x\n    else:\n        y = x\n    return y\n",
     "t.py:4:5:", "the condition must be a bool R.Prim or a rank-0 tensor"},
    /* metadata references: elided constants parse (building them is the error); a section
     * must hold what is referenced */
    {F1 "    y = metadata[\"relax.expr.Constant\"][0]\n    return y\n", "", ""},
    {F1 "    y = metadata[\"tir.StringImm\"][0]\n    return y\n",
     "t.py:4:9:", "expected metadata[\"relax.expr.Constant\"][i], got another metadata key"},
    {"metadata = tvm.ir.load_json(\"\"\"{\"root\": 1, \"nodes\": [{\"type_key\": \"\"}, {\"type_key\": \"Map\", \"keys\": "
     "[\"relax.expr.Constant\"], \"data\": [2]}, {\"type_key\": \"Array\", \"data\": []}], \"b64ndarrays\": []}\"\"\")\n" F1
     "    y = metadata[\"relax.expr.Constant\"][0]\n    return y\n",
     "t.py:5:9:", "metadata[\"relax.expr.Constant\"][0]: the metadata section has 0 constants"},
    {"metadata = tvm.ir.load_json(\"\"\"{not json\"\"\")\n" F1 "    return x\n",
     "t.py:1:29:", "metadata: expected TVM's JSON object graph, got text that is not JSON"},
    {"metadata = tvm.ir.load_json(\"\"\"{\"root\": 1, \"nodes\": [{\"type_key\": \"\"}, {\"type_key\": \"Map\", \"keys\": "
     "[\"relax.expr.Constant\"], \"data\": [2]}, {\"type_key\": \"Array\", \"data\": [3]}, {\"type_key\": "
     "\"relax.expr.Constant\", \"attrs\": {\"data\": \"0\"}}], \"b64ndarrays\": [\"AAAA\"]}\"\"\")\n" F1 "    return x\n",
     "t.py:1:29:", "expected a Constant node whose \"data\" is a base64 NDArray"},
    /* well-formedness after parsing (no crash, a message naming the function) */
    {"# from tvm.script import relax as R\n@R.function\ndef f(x: R.Object) -> R.Object:\n    y: R.Object = "
     "R.call_packed(\"p\", x)\n    return y\n",
     "t.py:2:1:", "well-formed: function 'f': binding y: impure call"},
    {F1 "    return R.add(x, x)\n", "", ""}, /* valid (the return value needs no binding) */
    /* module level */
    {"# from tvm.script import ir as I\n# from tvm.script import relax as R\n@I.ir_module\nclass Module:\n    "
     "@R.function\n    def f(x: R.Object) -> R.Object:\n        return x\n    @R.function\n    def f(x: R.Object) -> "
     "R.Object:\n        return x\n",
     "t.py:8:5:", "expected distinct function names, got 'f' twice"},
    {"# from tvm.script import ir as I\n# from tvm.script import relax as R\n@I.ir_module\nclass Module:\n    "
     "@R.function\n    def f(x: R.Object) -> R.Object:\n        return cls.g(x)\n",
     "t.py:7:16:", "expected a module function such as cls.f, got cls.g"},
    {"# from tvm.script import ir as I\n# from tvm.script import relax as R\n@I.ir_module\nclass Module:\n    "
     "@R.function\n    def f(x: R.Object) -> R.Object:\n        return Module.g(x)\n",
     "t.py:7:16:", "no function called 'g' in the module"},
};

static void test_cases(void) {
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    rlx_status_t* st = parse(cases[i].text);
    const char* msg = st ? rlx_status_message(st) : "ok";
    if (!cases[i].where[0]) {
      CHECK_MSG(!st, "case %zu: expected success, got '%s'", i, msg);
    } else {
      CHECK_MSG(st && strstr(msg, cases[i].where) == msg && strstr(msg, cases[i].what),
                "case %zu: got '%s', want '%s' ... '%s'", i, msg, cases[i].where, cases[i].what);
    }
    rlx_status_free(st);
  }
}

/* Calls between Relax functions resolve in any order (signatures first), and a call's
 * arguments are checked against the callee's signature. */
static void test_module_calls(void) {
  const char* ok =
      "# from tvm.script import ir as I\n# from tvm.script import relax as R\n@I.ir_module\nclass Module:\n"
      "    @R.function\n    def main(x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), dtype=\"float32\"):\n"
      "        cls = Module\n        y: R.Tensor((4,), dtype=\"float32\") = cls.g(x)\n        return y\n"
      "    @R.function(private=True)\n    def g(x: R.Tensor((\"n\",), dtype=\"float32\")) -> R.Tensor((\"n\",), "
      "dtype=\"float32\"):\n"
      "        n = T.int64()\n        return x\n";
  rlx_status_t* st = parse(ok);
  CHECK_MSG(!st, "%s", st ? rlx_status_message(st) : "");
  rlx_status_free(st);
  rlx_strbuf_t sb = {0};
  rlx_strbuf_append(&sb, ok);
  char* bad = rlx_strbuf_take(&sb);
  char* p = strstr(bad, "cls.g(x)");
  rlx_strbuf_t b2 = {0};
  rlx_strbuf_appendn(&b2, bad, (size_t)(p - bad));
  rlx_strbuf_append(&b2, "cls.g(R.shape([4]))");
  rlx_strbuf_append(&b2, p + strlen("cls.g(x)"));
  CHECK_ERR(parse(rlx_strbuf_cstr(&b2)),
            "t.py:8:46: Call(GlobalVar @g): argument 0 has struct info R.Shape([4]), expected R.Tensor((n,), "
            "dtype=\"float32\")");
  rlx_strbuf_free(&b2);
  free(bad);
}

static int fuzz_one(const char* text, int* n_ok, int* n_unstable) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  rlx_status_t* e = rlx_script_parse(ctx, text, "t.py", &m);
  int bad = e && !strstr(rlx_status_message(e), "t.py:");
  if (bad && bad < 3) fprintf(stderr, "no location: %s\n", rlx_status_message(e));
  if (!e) {
    (*n_ok)++;
    char* out = rlx_script_print_module_ex(m, true); /* tensor constants' data in the section */
    rlx_module_t* m2 = NULL;
    rlx_status_t* e2 = rlx_script_parse(ctx, out, "t.py", &m2);
    if (e2) {
      (*n_unstable)++;
      if (*n_unstable < 3) fprintf(stderr, "unstable: %s\n%s\n--- from\n%s\n", rlx_status_message(e2), out, text);
    } else {
      char* out2 = rlx_script_print_module_ex(m2, true);
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

static void fuzz_file(const char* path, int n_mut) {
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
  static const char subst[] = "()[]:,.=\"' \n\txn0R#-";
  unsigned seed = 7;
  for (int it = 0; it < n_mut; it++) {
    memcpy(buf, text, len + 1);
    seed = seed * 1103515245u + 12345u;
    size_t pos = (seed >> 8) % len;
    seed = seed * 1103515245u + 12345u;
    buf[pos] = subst[(seed >> 8) % (sizeof(subst) - 1)];
    bad += fuzz_one(buf, &n_ok, &n_unstable);
  }
  CHECK_MSG(bad == 0, "%s: %d errors without a location", path, bad);
  CHECK_MSG(n_unstable == 0, "%s: %d of %d parsed mutants did not print/parse back stably", path, n_unstable, n_ok);
  CHECK_MSG(n_ok > 0, "%s: at least the whole file parses", path);
  free(buf);
  free(text);
}

int main(void) {
  test_cases();
  test_module_calls();
  fuzz_file("tests/golden/relax_mlp.py", 2000);
  fuzz_file("tests/golden/relax_symbolic.py", 2000);
  fuzz_file("tests/golden/relax_lowered.py", 2000);
  fuzz_file("tests/golden/relax_misc.py", 3000);
  fuzz_file("tests/golden/relax_local.py", 1500);
  TEST_MAIN_END();
}
