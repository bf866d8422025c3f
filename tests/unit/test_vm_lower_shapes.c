/* lower_shapes golden: a symbolic module after plan_memory (match_cast, a composite storage
 * size n * m * 4, memory and builtin allocations, a DPS kernel and a DPS extern call) →
 * the pass → compared structurally with the expected module (parsed from TVMScript); the
 * printed output is shown on a mismatch. */
#include <stdlib.h>
#include <string.h>

#include "script/script.h"
#include "test.h"
#include "transform/pass.h"

static const char* before_src =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "# from tvm.script import relax as R\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func(private=True)\n"
    "    def mm(var_A: T.handle, var_B: T.handle, var_C: T.handle):\n"
    "        T.func_attr({\"tir.noalias\": T.bool(True)})\n"
    "        n, k = T.int64(), T.int64()\n"
    "        A = T.match_buffer(var_A, (n, k))\n"
    "        m = T.int64()\n"
    "        B = T.match_buffer(var_B, (k, m))\n"
    "        C = T.match_buffer(var_C, (n, m))\n"
    "        # with T.block(\"root\"):\n"
    "        for i, j, q in T.grid(n, m, k):\n"
    "            with T.block(\"C\"):\n"
    "                v_i, v_j, v_q = T.axis.remap(\"SSR\", [i, j, q])\n"
    "                T.reads(A[v_i, v_q], B[v_q, v_j])\n"
    "                T.writes(C[v_i, v_j])\n"
    "                with T.init():\n"
    "                    C[v_i, v_j] = T.float32(0.0)\n"
    "                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_q] * B[v_q, v_j]\n"
    "\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\", \"k\"), dtype=\"float32\"), w: R.Tensor((\"k\", \"m\"), dtype=\"float32\"), z: R.Tensor(dtype=\"float32\", ndim=1)) -> R.Tensor((\"n\", \"m\"), dtype=\"float32\"):\n"
    "        n = T.int64()\n"
    "        k = T.int64()\n"
    "        m = T.int64()\n"
    "        R.func_attr({\"relax.force_pure\": True})\n"
    "        cls = Module\n"
    "        p = T.int64()\n"
    "        lv: R.Tensor((p,), dtype=\"float32\") = R.match_cast(z, R.Tensor((p,), dtype=\"float32\"))\n"
    "        storage: R.Object = R.memory.alloc_storage(R.shape([n * m * 4]), R.prim_value(0), R.str(\"global\"), R.dtype(\"uint8\"))\n"
    "        alloc: R.Tensor((n, m), dtype=\"float32\") = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([n, m]), R.dtype(\"float32\"))\n"
    "        cls.mm(x, w, alloc)\n"
    "        alloc1: R.Tensor((n, m), dtype=\"float32\") = R.builtin.alloc_tensor(R.shape([n, m]), R.dtype(\"float32\"), R.prim_value(0))\n"
    "        R.ExternFunc(\"my_relu\")(alloc, alloc1)\n"
    "        R.memory.kill_tensor(alloc)\n"
    "        R.memory.kill_storage(storage)\n"
    "        return alloc1\n";

static const char* expected_src =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "# from tvm.script import relax as R\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func(private=True)\n"
    "    def mm(var_A: T.handle, var_B: T.handle, var_C: T.handle):\n"
    "        T.func_attr({\"tir.noalias\": T.bool(True)})\n"
    "        n, k = T.int64(), T.int64()\n"
    "        A = T.match_buffer(var_A, (n, k))\n"
    "        m = T.int64()\n"
    "        B = T.match_buffer(var_B, (k, m))\n"
    "        C = T.match_buffer(var_C, (n, m))\n"
    "        # with T.block(\"root\"):\n"
    "        for i, j, q in T.grid(n, m, k):\n"
    "            with T.block(\"C\"):\n"
    "                v_i, v_j, v_q = T.axis.remap(\"SSR\", [i, j, q])\n"
    "                T.reads(A[v_i, v_q], B[v_q, v_j])\n"
    "                T.writes(C[v_i, v_j])\n"
    "                with T.init():\n"
    "                    C[v_i, v_j] = T.float32(0.0)\n"
    "                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_q] * B[v_q, v_j]\n"
    "\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\", \"k\"), dtype=\"float32\"), w: R.Tensor((\"k\", \"m\"), dtype=\"float32\"), z: R.Tensor(dtype=\"float32\", ndim=1)) -> R.Tensor((\"n\", \"m\"), dtype=\"float32\"):\n"
    "        n = T.int64()\n"
    "        m = T.int64()\n"
    "        k = T.int64()\n"
    "        R.func_attr({\"relax.force_pure\": True})\n"
    "        p = T.int64()\n"
    "        cls = Module\n"
    "        shape_heap: R.Tensor(dtype=\"int64\", ndim=1) = R.call_packed(\"vm.builtin.alloc_shape_heap\", R.prim_value(5), sinfo_args=(R.Tensor(dtype=\"int64\", ndim=1),))\n"
    "        _: R.Object = R.call_packed(\"vm.builtin.check_tensor_info\", x, R.prim_value(2), R.dtype(\"float32\"), R.str(\"main: parameter x\"), sinfo_args=(R.Object,))\n"
    "        __1: R.Object = R.call_packed(\"vm.builtin.match_shape\", x, shape_heap, R.prim_value(2), R.prim_value(1), R.prim_value(0), R.prim_value(1), R.prim_value(1), R.str(\"main: parameter x\"), R.str(\"(n, k)\"), sinfo_args=(R.Object,))\n"
    "        __2: R.Object = R.call_packed(\"vm.builtin.check_tensor_info\", w, R.prim_value(2), R.dtype(\"float32\"), R.str(\"main: parameter w\"), sinfo_args=(R.Object,))\n"
    "        __3: R.Object = R.call_packed(\"vm.builtin.match_shape\", w, shape_heap, R.prim_value(2), R.prim_value(2), R.prim_value(1), R.prim_value(1), R.prim_value(2), R.str(\"main: parameter w\"), R.str(\"(k, m)\"), sinfo_args=(R.Object,))\n"
    "        __4: R.Object = R.call_packed(\"vm.builtin.check_tensor_info\", z, R.prim_value(1), R.dtype(\"float32\"), R.str(\"main: parameter z\"), sinfo_args=(R.Object,))\n"
    "        __5: R.Object = R.call_packed(\"vm.builtin.check_tensor_info\", z, R.prim_value(1), R.dtype(\"float32\"), R.str(\"main: match_cast of lv\"), sinfo_args=(R.Object,))\n"
    "        __6: R.Object = R.call_packed(\"vm.builtin.match_shape\", z, shape_heap, R.prim_value(1), R.prim_value(1), R.prim_value(3), R.str(\"main: match_cast of lv\"), R.str(\"(p,)\"), sinfo_args=(R.Object,))\n"
    "        lv: R.Tensor((p,), dtype=\"float32\") = R.match_cast(z, R.Tensor((p,), dtype=\"float32\"))\n"
    "        __7: R.Object = R.call_packed(\"vm.builtin.shape_compute\", shape_heap, R.prim_value(4), R.prim_value(1), R.prim_value(0), R.prim_value(1), R.prim_value(2), R.prim_value(4), R.prim_value(0), R.prim_value(0), R.prim_value(4), R.prim_value(4), R.prim_value(0), sinfo_args=(R.Object,))\n"
    "        shape: R.Shape([n * m * 4]) = R.call_packed(\"vm.builtin.make_shape\", shape_heap, R.prim_value(1), R.prim_value(1), R.prim_value(4), sinfo_args=(R.Shape([n * m * 4]),))\n"
    "        storage: R.Object = R.memory.alloc_storage(shape, R.prim_value(0), R.str(\"global\"), R.dtype(\"uint8\"))\n"
    "        shape_1: R.Shape([n, m]) = R.call_packed(\"vm.builtin.make_shape\", shape_heap, R.prim_value(2), R.prim_value(1), R.prim_value(0), R.prim_value(1), R.prim_value(2), sinfo_args=(R.Shape([n, m]),))\n"
    "        alloc: R.Tensor((n, m), dtype=\"float32\") = R.memory.alloc_tensor(storage, R.prim_value(0), shape_1, R.dtype(\"float32\"))\n"
    "        cls.mm(x, w, alloc)\n"
    "        shape_2: R.Shape([n, m]) = R.call_packed(\"vm.builtin.make_shape\", shape_heap, R.prim_value(2), R.prim_value(1), R.prim_value(0), R.prim_value(1), R.prim_value(2), sinfo_args=(R.Shape([n, m]),))\n"
    "        alloc1: R.Tensor((n, m), dtype=\"float32\") = R.builtin.alloc_tensor(shape_2, R.dtype(\"float32\"), R.prim_value(0))\n"
    "        R.ExternFunc(\"my_relu\")(alloc, alloc1)\n"
    "        R.memory.kill_tensor(alloc)\n"
    "        R.memory.kill_storage(storage)\n"
    "        return alloc1\n";

static void test_golden(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t *m = NULL, *out = NULL, *expected = NULL;
  CHECK_OK(rlx_script_parse(ctx, before_src, "before.py", &m));
  CHECK_OK(rlx_script_parse(ctx, expected_src, "expected.py", &expected));
  if (m) CHECK_OK(rlx_pass_lower_shapes(ctx, m, &out));
  if (out && expected) {
    CHECK_OK(rlx_relax_well_formed(ctx, out));
    bool eq = rlx_relax_func_equal(rlx_module_find(out, "main")->func, rlx_module_find(expected, "main")->func);
    CHECK(eq);
    char* text = rlx_script_print_module(out);
    if (!eq) fprintf(stderr, "--- got\n%s--- expected\n%s", text, expected_src);
    /* the printed form is the expected text itself */
    CHECK_STREQ(text, expected_src);
    free(text);
    /* the PrimFunc is shared, untouched */
    CHECK(rlx_module_find(out, "mm")->func == rlx_module_find(m, "mm")->func);
    /* the input module is left as it is */
    rlx_relax_func_t* f = rlx_module_find(m, "main")->func;
    CHECK(rlx_attrs_get(&f->attrs, "relax.force_pure") != NULL && ((rlx_relax_seq_t*)f->body)->blocks[0]->n_bindings == 8);
  }
  rlx_ctx_free(ctx);
}

/* A dataflow block becomes a plain block with plain Vars; an impure function gets no
 * relax.force_pure. */
static void test_dataflow(void) {
  const char* src =
      "# from tvm.script import ir as I\n"
      "# from tvm.script import tir as T\n"
      "# from tvm.script import relax as R\n"
      "\n"
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function(pure=False)\n"
      "    def main(x: R.Tensor((\"n\",), dtype=\"float32\")) -> R.Tensor((\"n\",), dtype=\"float32\"):\n"
      "        n = T.int64()\n"
      "        with R.dataflow():\n"
      "            lv: R.Tensor((n,), dtype=\"float32\") = R.call_dps_packed(\"f\", (x,), out_sinfo=R.Tensor((n,), dtype=\"float32\"))\n"
      "            gv: R.Tensor((n,), dtype=\"float32\") = lv\n"
      "            R.output(gv)\n"
      "        return gv\n";
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t *m = NULL, *out = NULL;
  CHECK_OK(rlx_script_parse(ctx, src, "df.py", &m));
  if (m) CHECK_OK(rlx_pass_lower_shapes(ctx, m, &out));
  if (out) {
    CHECK_OK(rlx_relax_well_formed(ctx, out));
    rlx_relax_func_t* f = rlx_module_find(out, "main")->func;
    CHECK(rlx_attrs_get(&f->attrs, "relax.force_pure") == NULL);
    rlx_relax_seq_t* seq = (rlx_relax_seq_t*)f->body;
    CHECK(seq->n_blocks == 1 && !seq->blocks[0]->is_dataflow);
    bool plain = true;
    for (int i = 0; i < seq->blocks[0]->n_bindings; i++)
      plain = plain && seq->blocks[0]->bindings[i]->var->hdr.kind == RLX_RELAX_VAR;
    CHECK(plain);
    /* the leftover call_dps_packed became alloc_tensor + the DPS extern call */
    char* text = rlx_script_print_module(out);
    CHECK_MSG(strstr(text, "R.builtin.alloc_tensor(shape, R.dtype(\"float32\"), R.prim_value(0))") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "R.ExternFunc(\"f\")(x, alloc)") != NULL, "%s", text);
    free(text);
  }
  rlx_ctx_free(ctx);
}

int main(void) {
  test_golden();
  test_dataflow();
  TEST_MAIN_END();
}
