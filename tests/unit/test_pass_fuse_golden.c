/* fuse_ops golden test, TVM style: before (the legalized MLP layer, as TVMScript) -> pass ->
 * expected (as TVMScript), compared structurally; the fused module also prints and parses
 * back to a structurally equal module. */
#include <stdlib.h>

#include "pass_test_util.h"
#include "script/script.h"
#include "test.h"
#include "transform/pass.h"

static const char* BEFORE =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "# from tvm.script import relax as R\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func(private=True)\n"
    "    def add(var_lv1: T.handle, b: T.Buffer((T.int64(16),), \"float32\"), var_T_add: T.handle):\n"
    "        T.func_attr({\"tir.noalias\": T.bool(True)})\n"
    "        n = T.int64()\n"
    "        lv1 = T.match_buffer(var_lv1, (n, T.int64(16)))\n"
    "        T_add = T.match_buffer(var_T_add, (n, T.int64(16)))\n"
    "        # with T.block(\"root\"):\n"
    "        for i, j in T.grid(n, T.int64(16)):\n"
    "            with T.block(\"T_add\"):\n"
    "                v_i, v_j = T.axis.remap(\"SS\", [i, j])\n"
    "                T.reads(lv1[v_i, v_j], b[v_j])\n"
    "                T.writes(T_add[v_i, v_j])\n"
    "                T_add[v_i, v_j] = lv1[v_i, v_j] + b[v_j]\n"
    "\n"
    "    @T.prim_func(private=True)\n"
    "    def matmul(var_x: T.handle, lv0: T.Buffer((T.int64(8), T.int64(16)), \"float32\"), var_matmul: T.handle):\n"
    "        T.func_attr({\"tir.noalias\": T.bool(True)})\n"
    "        n = T.int64()\n"
    "        x = T.match_buffer(var_x, (n, T.int64(8)))\n"
    "        matmul = T.match_buffer(var_matmul, (n, T.int64(16)))\n"
    "        # with T.block(\"root\"):\n"
    "        for i, j, k in T.grid(n, T.int64(16), T.int64(8)):\n"
    "            with T.block(\"matmul\"):\n"
    "                v_i, v_j, v_k = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                T.reads(x[v_i, v_k], lv0[v_k, v_j])\n"
    "                T.writes(matmul[v_i, v_j])\n"
    "                with T.init():\n"
    "                    matmul[v_i, v_j] = T.float32(0.0)\n"
    "                matmul[v_i, v_j] = matmul[v_i, v_j] + x[v_i, v_k] * lv0[v_k, v_j]\n"
    "\n"
    "    @T.prim_func(private=True)\n"
    "    def relu(var_lv2: T.handle, var_compute: T.handle):\n"
    "        T.func_attr({\"tir.noalias\": T.bool(True)})\n"
    "        n = T.int64()\n"
    "        lv2 = T.match_buffer(var_lv2, (n, T.int64(16)))\n"
    "        compute = T.match_buffer(var_compute, (n, T.int64(16)))\n"
    "        # with T.block(\"root\"):\n"
    "        for i, j in T.grid(n, T.int64(16)):\n"
    "            with T.block(\"compute\"):\n"
    "                v_i, v_j = T.axis.remap(\"SS\", [i, j])\n"
    "                T.reads(lv2[v_i, v_j])\n"
    "                T.writes(compute[v_i, v_j])\n"
    "                compute[v_i, v_j] = T.max(lv2[v_i, v_j], T.float32(0.0))\n"
    "\n"
    "    @T.prim_func(private=True)\n"
    "    def transpose(w: T.Buffer((T.int64(16), T.int64(8)), \"float32\"), T_transpose: T.Buffer((T.int64(8), "
    "T.int64(16)), \"float32\")):\n"
    "        T.func_attr({\"tir.noalias\": T.bool(True)})\n"
    "        # with T.block(\"root\"):\n"
    "        for i, j in T.grid(T.int64(8), T.int64(16)):\n"
    "            with T.block(\"T_transpose\"):\n"
    "                v_i, v_j = T.axis.remap(\"SS\", [i, j])\n"
    "                T.reads(w[v_j, v_i])\n"
    "                T.writes(T_transpose[v_i, v_j])\n"
    "                T_transpose[v_i, v_j] = w[v_j, v_i]\n"
    "\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\", 8), dtype=\"float32\"), w: R.Tensor((16, 8), dtype=\"float32\"), b: "
    "R.Tensor((16,), dtype=\"float32\")) -> R.Tensor((\"n\", 16), dtype=\"float32\"):\n"
    "        n = T.int64()\n"
    "        cls = Module\n"
    "        with R.dataflow():\n"
    "            lv0 = R.call_tir(cls.transpose, (w,), out_sinfo=R.Tensor((8, 16), dtype=\"float32\"))\n"
    "            lv1 = R.call_tir(cls.matmul, (x, lv0), out_sinfo=R.Tensor((n, 16), dtype=\"float32\"))\n"
    "            lv2 = R.call_tir(cls.add, (lv1, b), out_sinfo=R.Tensor((n, 16), dtype=\"float32\"))\n"
    "            gv = R.call_tir(cls.relu, (lv2,), out_sinfo=R.Tensor((n, 16), dtype=\"float32\"))\n"
    "            R.output(gv)\n"
    "        return gv\n";

static const char* EXPECTED =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "# from tvm.script import relax as R\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func(private=True)\n"
    "    def fused_matmul_add_relu(var_x: T.handle, lv0: T.Buffer((T.int64(8), T.int64(16)), \"float32\"), b: "
    "T.Buffer((T.int64(16),), \"float32\"), var_compute: T.handle):\n"
    "        T.func_attr({\"tir.noalias\": T.bool(True)})\n"
    "        n = T.int64()\n"
    "        x = T.match_buffer(var_x, (n, T.int64(8)))\n"
    "        compute = T.match_buffer(var_compute, (n, T.int64(16)))\n"
    "        # with T.block(\"root\"):\n"
    "        matmul = T.alloc_buffer((n, T.int64(16)))\n"
    "        T_add = T.alloc_buffer((n, T.int64(16)))\n"
    "        for i, j, k in T.grid(n, T.int64(16), T.int64(8)):\n"
    "            with T.block(\"matmul\"):\n"
    "                v_i, v_j, v_k = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                T.reads(x[v_i, v_k], lv0[v_k, v_j])\n"
    "                T.writes(matmul[v_i, v_j])\n"
    "                with T.init():\n"
    "                    matmul[v_i, v_j] = T.float32(0.0)\n"
    "                matmul[v_i, v_j] = matmul[v_i, v_j] + x[v_i, v_k] * lv0[v_k, v_j]\n"
    "        for i, j in T.grid(n, T.int64(16)):\n"
    "            with T.block(\"T_add\"):\n"
    "                v_i, v_j = T.axis.remap(\"SS\", [i, j])\n"
    "                T.reads(matmul[v_i, v_j], b[v_j])\n"
    "                T.writes(T_add[v_i, v_j])\n"
    "                T_add[v_i, v_j] = matmul[v_i, v_j] + b[v_j]\n"
    "        for i, j in T.grid(n, T.int64(16)):\n"
    "            with T.block(\"compute\"):\n"
    "                v_i, v_j = T.axis.remap(\"SS\", [i, j])\n"
    "                T.reads(T_add[v_i, v_j])\n"
    "                T.writes(compute[v_i, v_j])\n"
    "                compute[v_i, v_j] = T.max(T_add[v_i, v_j], T.float32(0.0))\n"
    "\n"
    "    @T.prim_func(private=True)\n"
    "    def transpose(w: T.Buffer((T.int64(16), T.int64(8)), \"float32\"), T_transpose: T.Buffer((T.int64(8), "
    "T.int64(16)), \"float32\")):\n"
    "        T.func_attr({\"tir.noalias\": T.bool(True)})\n"
    "        # with T.block(\"root\"):\n"
    "        for i, j in T.grid(T.int64(8), T.int64(16)):\n"
    "            with T.block(\"T_transpose\"):\n"
    "                v_i, v_j = T.axis.remap(\"SS\", [i, j])\n"
    "                T.reads(w[v_j, v_i])\n"
    "                T.writes(T_transpose[v_i, v_j])\n"
    "                T_transpose[v_i, v_j] = w[v_j, v_i]\n"
    "\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\", 8), dtype=\"float32\"), w: R.Tensor((16, 8), dtype=\"float32\"), b: "
    "R.Tensor((16,), dtype=\"float32\")) -> R.Tensor((\"n\", 16), dtype=\"float32\"):\n"
    "        n = T.int64()\n"
    "        cls = Module\n"
    "        with R.dataflow():\n"
    "            lv0 = R.call_tir(cls.transpose, (w,), out_sinfo=R.Tensor((8, 16), dtype=\"float32\"))\n"
    "            gv = R.call_tir(cls.fused_matmul_add_relu, (x, lv0, b), out_sinfo=R.Tensor((n, 16), "
    "dtype=\"float32\"))\n"
    "            R.output(gv)\n"
    "        return gv\n";

static void check_same_module(rlx_module_t* got, rlx_module_t* want, const char* what) {
  CHECK_MSG(got->n_funcs == want->n_funcs, "%s: %d functions, expected %d", what, got->n_funcs, want->n_funcs);
  for (int i = 0; i < want->n_funcs; i++) {
    rlx_module_entry_t* w = &want->funcs[i];
    rlx_module_entry_t* g = rlx_module_find(got, w->name);
    CHECK_MSG(g && g->kind == w->kind, "%s: function %s missing", what, w->name);
    if (!g || g->kind != w->kind) continue;
    bool eq = w->kind == RLX_FUNC_TIR ? rlx_tir_func_equal(g->func, w->func) : rlx_relax_func_equal(g->func, w->func);
    if (!eq) {
      char* s = rlx_script_print_module(got);
      fprintf(stderr, "%s: function %s differs; got module:\n%s\n", what, w->name, s);
      free(s);
    }
    CHECK_MSG(eq, "%s: function %s structurally equal", what, w->name);
  }
}

static void test_golden(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t *before = NULL, *want = NULL, *got = NULL;
  CHECK_OK(rlx_script_parse(ctx, BEFORE, "before.py", &before));
  CHECK_OK(rlx_script_parse(ctx, EXPECTED, "expected.py", &want));
  if (!before || !want) return;
  CHECK_OK(pass_fuse(ctx, before, &got));
  if (!got) return;
  CHECK_OK(rlx_relax_well_formed(ctx, got));
  check_same_module(got, want, "fuse_ops");
  /* a changed expectation must fail: the unfused module is not the expected one */
  CHECK(!rlx_relax_func_equal(main_of(before), main_of(want)));
  /* print -> parse round trip of the fused module */
  char* text = rlx_script_print_module(got);
  rlx_module_t* again = NULL;
  CHECK_OK(rlx_script_parse(ctx, text, "printed.py", &again));
  if (again) check_same_module(again, got, "round trip");
  free(text);
  /* numbers: fused == unfused */
  ht_t* in[3] = {ht_new(ctx, rlx_dt_float32(), 2, (int64_t[]){5, 8}),
                 ht_new(ctx, rlx_dt_float32(), 2, (int64_t[]){16, 8}),
                 ht_new(ctx, rlx_dt_float32(), 1, (int64_t[]){16})};
  for (int i = 0; i < 3; i++) ht_fill(in[i], (unsigned)i + 1);
  ht_t* y0 = relax_eval(ctx, before, "main", in);
  ht_t* y1 = relax_eval(ctx, got, "main", in);
  CHECK(y0 && y1 && ht_max_abs_diff(y1, ht_f32(y0)) == 0);
  rlx_ctx_free(ctx);
}

int main(void) {
  test_golden();
  TEST_MAIN_END();
}
