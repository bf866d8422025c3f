/* The whole way: TVMScript text with high-level ops → the full Relax pipeline (legalize,
 * fold, fuse, schedule, call_tir_rewrite, plan_memory, lower_shapes) → VM codegen → one model
 * .so → rlx_vm_load → rlx_vm_invoke, against a plain C reference (tolerance 1e-4 relative).
 * The batch dimension is symbolic and the model runs on two batch sizes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/vm_build.h"
#include "rlx/vm.h"
#include "script/script.h"
#include "test.h"

static const char* mlp_src =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "# from tvm.script import relax as R\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\", 16), dtype=\"float32\"), w0: R.Tensor((32, 16), dtype=\"float32\"), "
    "b0: R.Tensor((32,), dtype=\"float32\"), w1: R.Tensor((8, 32), dtype=\"float32\")) -> "
    "R.Tensor((\"n\", 8), dtype=\"float32\"):\n"
    "        n = T.int64()\n"
    "        with R.dataflow():\n"
    "            lv: R.Tensor((16, 32), dtype=\"float32\") = R.permute_dims(w0)\n"
    "            lv1: R.Tensor((n, 32), dtype=\"float32\") = R.matmul(x, lv, out_dtype=\"void\")\n"
    "            lv2: R.Tensor((n, 32), dtype=\"float32\") = R.add(lv1, b0)\n"
    "            lv3: R.Tensor((n, 32), dtype=\"float32\") = R.nn.relu(lv2)\n"
    "            lv4: R.Tensor((32, 8), dtype=\"float32\") = R.permute_dims(w1)\n"
    "            lv5: R.Tensor((n, 8), dtype=\"float32\") = R.matmul(lv3, lv4, out_dtype=\"void\")\n"
    "            gv: R.Tensor((n, 8), dtype=\"float32\") = R.multiply(lv5, R.const(0.5, \"float32\"))\n"
    "            R.output(gv)\n"
    "        return gv\n";

static const char* if_src =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "# from tvm.script import relax as R\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\",), dtype=\"float32\"), c: R.Tensor((), dtype=\"bool\")) -> R.Tuple(R.Tensor((\"n\",), dtype=\"float32\"), R.Tensor((3,), dtype=\"float32\")):\n"
    "        n = T.int64()\n"
    "        if c:\n"
    "            lv: R.Tensor((n,), dtype=\"float32\") = R.add(x, x)\n"
    "            r: R.Tensor((n,), dtype=\"float32\") = lv\n"
    "        else:\n"
    "            lv1: R.Tensor((n,), dtype=\"float32\") = R.multiply(x, R.const(3.0, \"float32\"))\n"
    "            r: R.Tensor((n,), dtype=\"float32\") = lv1\n"
    "        k: R.Tensor((3,), dtype=\"float32\") = R.const([1.0, 2.0, 3.5], \"float32\")\n"
    "        t: R.Tuple(R.Tensor((n,), dtype=\"float32\"), R.Tensor((3,), dtype=\"float32\")) = (r, k)\n"
    "        return t\n";

static const char* call_src =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "# from tvm.script import relax as R\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function(private=True)\n"
    "    def helper(x: R.Tensor((\"n\",), dtype=\"float32\"), y: R.Tensor((\"n\",), dtype=\"float32\")) -> R.Tuple(R.Tensor((\"n\",), dtype=\"float32\"), R.Tensor((\"n\",), dtype=\"float32\")):\n"
    "        n = T.int64()\n"
    "        lv: R.Tensor((n,), dtype=\"float32\") = R.add(x, y)\n"
    "        lv1: R.Tensor((n,), dtype=\"float32\") = R.multiply(x, y)\n"
    "        t: R.Tuple(R.Tensor((n,), dtype=\"float32\"), R.Tensor((n,), dtype=\"float32\")) = (lv, lv1)\n"
    "        return t\n"
    "\n"
    "    @R.function(private=True)\n"
    "    def helper2(p: R.Tuple(R.Tensor((\"n\",), dtype=\"float32\"), R.Tensor((\"n\",), dtype=\"float32\"))) -> R.Tensor((\"n\",), dtype=\"float32\"):\n"
    "        n = T.int64()\n"
    "        lv: R.Tensor((n,), dtype=\"float32\") = p[0]\n"
    "        lv1: R.Tensor((n,), dtype=\"float32\") = p[1]\n"
    "        lv2: R.Tensor((n,), dtype=\"float32\") = R.add(lv, lv1)\n"
    "        return lv2\n"
    "\n"
    "    @R.function(private=True)\n"
    "    def helper3(x: R.Tensor((\"n\",), dtype=\"float32\"), k: R.Prim(value=\"n\")) -> R.Tensor((\"n\",), dtype=\"float32\"):\n"
    "        n = T.int64()\n"
    "        return x\n"
    "\n"
    "    @R.function\n"
    "    def bad(a: R.Tensor((\"m\",), dtype=\"float32\")) -> R.Tensor((\"m\",), dtype=\"float32\"):\n"
    "        m = T.int64()\n"
    "        cls = Module\n"
    "        lv: R.Tensor((m,), dtype=\"float32\") = cls.helper3(a, R.prim_value(m + 1))\n"
    "        return lv\n"
    "\n"
    "    @R.function\n"
    "    def main(a: R.Tensor((\"m\",), dtype=\"float32\")) -> R.Tensor((\"m\",), dtype=\"float32\"):\n"
    "        m = T.int64()\n"
    "        cls = Module\n"
    "        lv: R.Tuple(R.Tensor((m,), dtype=\"float32\"), R.Tensor((m,), dtype=\"float32\")) = cls.helper(a, a)\n"
    "        lv1: R.Tensor((m,), dtype=\"float32\") = lv[0]\n"
    "        lv2: R.Tensor((m,), dtype=\"float32\") = lv[1]\n"
    "        lv3: R.Tensor((m,), dtype=\"float32\") = R.subtract(lv2, lv1)\n"
    "        lv4: R.Tensor((m,), dtype=\"float32\") = cls.helper2((lv3, a))\n"
    "        lv5: R.Tensor((m,), dtype=\"float32\") = cls.helper3(lv4, R.prim_value(m))\n"
    "        return lv5\n";

static const char* cond_src =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "# from tvm.script import relax as R\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\",), dtype=\"float32\")) -> R.Tensor((\"n\",), dtype=\"float32\"):\n"
    "        n = T.int64()\n"
    "        c: R.Prim(\"bool\") = R.prim_value(n > 3)\n"
    "        if c:\n"
    "            lv: R.Tensor((n,), dtype=\"float32\") = R.add(x, x)\n"
    "            r: R.Tensor((n,), dtype=\"float32\") = lv\n"
    "        else:\n"
    "            lv1: R.Tensor((n,), dtype=\"float32\") = R.multiply(x, x)\n"
    "            r: R.Tensor((n,), dtype=\"float32\") = lv1\n"
    "        return r\n";

static const char* shape_src =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "# from tvm.script import relax as R\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\",), dtype=\"float32\")) -> R.Tuple(R.Tensor((\"n\",), dtype=\"float32\"), R.Shape([\"n * 2\", 3])):\n"
    "        n = T.int64()\n"
    "        t: R.Tuple(R.Tensor((n,), dtype=\"float32\"), R.Shape([n * 2, 3])) = (x, R.shape([n * 2, 3]))\n"
    "        return t\n";

static rlx_ndarray_t* rand_tensor(int nd, const int64_t* s, uint64_t seed) {
  rlx_ndarray_t* a = NULL;
  rlx_status_free(rlx_ndarray_create(nd, s, rlx_dldtype(kDLFloat, 32, 1), NULL, &a));
  rlx_status_free(rlx_ndarray_fill_random(&a->dl, seed));
  return a;
}

static void reference(int64_t n, const float* x, const float* w0, const float* b0, const float* w1, double* out) {
  double h[32];
  for (int64_t i = 0; i < n; i++) {
    for (int j = 0; j < 32; j++) {
      double acc = b0[j];
      for (int q = 0; q < 16; q++) acc += (double)x[i * 16 + q] * w0[j * 16 + q];
      h[j] = acc > 0 ? acc : 0;
    }
    for (int j = 0; j < 8; j++) {
      double acc = 0;
      for (int q = 0; q < 32; q++) acc += h[q] * w1[j * 32 + q];
      out[i * 8 + j] = 0.5 * acc;
    }
  }
}

static void test_mlp(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* mod = NULL;
  CHECK_OK(rlx_script_parse(ctx, mlp_src, "mlp.py", &mod));
  if (!mod) {
    rlx_ctx_free(ctx);
    return;
  }
  char dir[] = "/tmp/rlx_vmp_XXXXXX";
  if (!mkdtemp(dir)) return;
  char so[128];
  snprintf(so, sizeof(so), "%s/mlp.so", dir);
  rlx_vm_compile_options_t o = {0};
  o.check_well_formed = true;
  CHECK_OK(rlx_vm_compile(ctx, mod, &o, so));
  rlx_vm_t* vm = NULL;
  if (access(so, R_OK) == 0) CHECK_OK(rlx_vm_load(so, 0, NULL, &vm));
  if (vm) {
    int64_t sw0[2] = {32, 16}, sb0[1] = {32}, sw1[2] = {8, 32};
    rlx_ndarray_t* w0 = rand_tensor(2, sw0, 2);
    rlx_ndarray_t* b0 = rand_tensor(1, sb0, 3);
    rlx_ndarray_t* w1 = rand_tensor(2, sw1, 4);
    int64_t batches[2] = {1, 37};
    for (int t = 0; t < 2; t++) {
      int64_t sx[2] = {batches[t], 16};
      rlx_ndarray_t* x = rand_tensor(2, sx, 10 + (uint64_t)t);
      int n_out = 0;
      rlx_ndarray_t** outs = NULL;
      CHECK_OK(rlx_vm_invoke(vm, "main", 4, (DLTensor*[]){&x->dl, &w0->dl, &b0->dl, &w1->dl}, &n_out, &outs));
      CHECK(n_out == 1);
      if (n_out == 1 && outs[0]->dl.ndim == 2 && outs[0]->dl.shape[0] == batches[t] && outs[0]->dl.shape[1] == 8) {
        double* ref = malloc(sizeof(double) * (size_t)batches[t] * 8);
        reference(batches[t], x->dl.data, w0->dl.data, b0->dl.data, w1->dl.data, ref);
        double max_abs = 0, max_ref = 0;
        for (int64_t i = 0; i < batches[t] * 8; i++) {
          double d = fabs(((float*)outs[0]->dl.data)[i] - ref[i]);
          if (d > max_abs) max_abs = d;
          if (fabs(ref[i]) > max_ref) max_ref = fabs(ref[i]);
        }
        printf("mlp batch %lld: max abs err %.3g (max |ref| %.3g)\n", (long long)batches[t], max_abs, max_ref);
        CHECK_MSG(max_abs <= 1e-4 * (max_ref + 1), "max abs err %g", max_abs);
        free(ref);
      } else {
        CHECK_MSG(false, "unexpected output shape");
      }
      for (int i = 0; i < n_out; i++) rlx_ndarray_release(outs[i]);
      free(outs);
      rlx_ndarray_release(x);
    }
    int64_t sbad[2] = {2, 15};
    rlx_ndarray_t* xb = rand_tensor(2, sbad, 1);
    int n_out = 0;
    rlx_ndarray_t** outs = NULL;
    CHECK_ERR(rlx_vm_invoke(vm, "main", 4, (DLTensor*[]){&xb->dl, &w0->dl, &b0->dl, &w1->dl}, &n_out, &outs),
              "main: parameter x: expected shape (n, 16) with n bound to 2, got (2, 15)");
    rlx_ndarray_release(xb);
    rlx_ndarray_release(w0);
    rlx_ndarray_release(b0);
    rlx_ndarray_release(w1);
    rlx_vm_free(vm);
  }
  if (!getenv("RLX_VM_KEEP")) {
    unlink(so);
    rmdir(dir);
  } else {
    printf("kept %s\n", so);
  }
  rlx_ctx_free(ctx);
}

/* If on a 0-d bool tensor, constants, a tuple result (two outputs). */
static void test_if(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* mod = NULL;
  CHECK_OK(rlx_script_parse(ctx, if_src, "if.py", &mod));
  char dir[] = "/tmp/rlx_vmp_XXXXXX";
  if (!mod || !mkdtemp(dir)) {
    rlx_ctx_free(ctx);
    return;
  }
  char so[128];
  snprintf(so, sizeof(so), "%s/if.so", dir);
  rlx_vm_compile_options_t o = {0};
  o.check_well_formed = true;
  CHECK_OK(rlx_vm_compile(ctx, mod, &o, so));
  rlx_vm_t* vm = NULL;
  if (access(so, R_OK) == 0) CHECK_OK(rlx_vm_load(so, 0, NULL, &vm));
  if (vm) {
    int64_t five = 5;
    rlx_ndarray_t* x = rand_tensor(1, &five, 7);
    rlx_ndarray_t* c = NULL;
    CHECK_OK(rlx_ndarray_create(0, NULL, rlx_dldtype(kDLUInt, 1, 1), NULL, &c));
    for (int flag = 0; flag < 2; flag++) {
      *(uint8_t*)c->dl.data = (uint8_t)flag;
      int n_out = 0;
      rlx_ndarray_t** outs = NULL;
      CHECK_OK(rlx_vm_invoke(vm, "main", 2, (DLTensor*[]){&x->dl, &c->dl}, &n_out, &outs));
      CHECK(n_out == 2);
      if (n_out == 2) {
        float scale = flag ? 2.0f : 3.0f;
        double max_abs = 0;
        for (int i = 0; i < 5; i++) {
          double d = fabs(((float*)outs[0]->dl.data)[i] - scale * ((float*)x->dl.data)[i]);
          if (d > max_abs) max_abs = d;
        }
        CHECK_MSG(max_abs <= 1e-6, "if branch %d: max abs err %g", flag, max_abs);
        CHECK(outs[1]->dl.shape[0] == 3 && ((float*)outs[1]->dl.data)[2] == 3.5f);
      }
      for (int i = 0; i < n_out; i++) rlx_ndarray_release(outs[i]);
      free(outs);
    }
    rlx_ndarray_release(x);
    rlx_ndarray_release(c);
    rlx_vm_free(vm);
  }
  unlink(so);
  rmdir(dir);
  rlx_ctx_free(ctx);
}

/* Relax functions calling others (a VM call returning a tuple; one taking a tuple, whose
 * fields' symbolic shapes are matched; one taking R.Prim(value="n") given a symbolic
 * PrimValue), TupleGetItem. */
static void test_call(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* mod = NULL;
  CHECK_OK(rlx_script_parse(ctx, call_src, "call.py", &mod));
  char dir[] = "/tmp/rlx_vmp_XXXXXX";
  if (!mod || !mkdtemp(dir)) {
    rlx_ctx_free(ctx);
    return;
  }
  char so[128];
  snprintf(so, sizeof(so), "%s/call.so", dir);
  rlx_vm_compile_options_t o = {0};
  o.check_well_formed = true;
  CHECK_OK(rlx_vm_compile(ctx, mod, &o, so));
  rlx_vm_t* vm = NULL;
  if (access(so, R_OK) == 0) CHECK_OK(rlx_vm_load(so, 0, NULL, &vm));
  if (vm) {
    int64_t six = 6;
    rlx_ndarray_t* a = rand_tensor(1, &six, 9);
    int n_out = 0;
    rlx_ndarray_t** outs = NULL;
    CHECK_OK(rlx_vm_invoke(vm, "main", 1, (DLTensor*[]){&a->dl}, &n_out, &outs));
    CHECK(n_out == 1);
    if (n_out == 1) {
      double max_abs = 0;
      for (int i = 0; i < 6; i++) {
        double x = ((float*)a->dl.data)[i];
        double d = fabs(((float*)outs[0]->dl.data)[i] - (x * x - x));
        if (d > max_abs) max_abs = d;
      }
      CHECK_MSG(max_abs <= 1e-6, "max abs err %g", max_abs);
    }
    for (int i = 0; i < n_out; i++) rlx_ndarray_release(outs[i]);
    free(outs);
    /* a symbolic PrimValue argument that contradicts the callee's R.Prim(value="n") */
    CHECK_ERR(rlx_vm_invoke(vm, "bad", 1, (DLTensor*[]){&a->dl}, &n_out, &outs),
              "helper3: parameter k: expected n (bound to 6), got 7");
    rlx_ndarray_release(a);
    rlx_vm_free(vm);
  }
  unlink(so);
  rmdir(dir);
  rlx_ctx_free(ctx);
}

/* An If on a condition computed from a symbolic dim (R.prim_value(n > 3)). */
static void test_prim_cond(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* mod = NULL;
  CHECK_OK(rlx_script_parse(ctx, cond_src, "cond.py", &mod));
  char dir[] = "/tmp/rlx_vmp_XXXXXX";
  if (!mod || !mkdtemp(dir)) {
    rlx_ctx_free(ctx);
    return;
  }
  char so[128];
  snprintf(so, sizeof(so), "%s/cond.so", dir);
  rlx_vm_compile_options_t o = {0};
  o.check_well_formed = true;
  CHECK_OK(rlx_vm_compile(ctx, mod, &o, so));
  rlx_vm_t* vm = NULL;
  if (access(so, R_OK) == 0) CHECK_OK(rlx_vm_load(so, 0, NULL, &vm));
  for (int64_t n = 2; vm && n <= 5; n += 3) {
    rlx_ndarray_t* x = rand_tensor(1, &n, 3);
    int n_out = 0;
    rlx_ndarray_t** outs = NULL;
    CHECK_OK(rlx_vm_invoke(vm, "main", 1, (DLTensor*[]){&x->dl}, &n_out, &outs));
    if (n_out == 1) {
      double max_abs = 0;
      for (int64_t i = 0; i < n; i++) {
        double v = ((float*)x->dl.data)[i];
        double want = n > 3 ? v + v : v * v;
        double d = fabs(((float*)outs[0]->dl.data)[i] - want);
        if (d > max_abs) max_abs = d;
      }
      CHECK_MSG(max_abs <= 1e-6, "n=%lld: max abs err %g", (long long)n, max_abs);
    }
    CHECK(n_out == 1);
    for (int i = 0; i < n_out; i++) rlx_ndarray_release(outs[i]);
    free(outs);
    rlx_ndarray_release(x);
  }
  rlx_vm_free(vm);
  unlink(so);
  rmdir(dir);
  rlx_ctx_free(ctx);
}

/* A symbolic shape in a returned tuple: a 1-d int64 output. */
static void test_shape_output(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* mod = NULL;
  CHECK_OK(rlx_script_parse(ctx, shape_src, "shape.py", &mod));
  char dir[] = "/tmp/rlx_vmp_XXXXXX";
  if (!mod || !mkdtemp(dir)) {
    rlx_ctx_free(ctx);
    return;
  }
  char so[128];
  snprintf(so, sizeof(so), "%s/shape.so", dir);
  rlx_vm_compile_options_t o = {0};
  o.check_well_formed = true;
  CHECK_OK(rlx_vm_compile(ctx, mod, &o, so));
  rlx_vm_t* vm = NULL;
  if (access(so, R_OK) == 0) CHECK_OK(rlx_vm_load(so, 0, NULL, &vm));
  if (vm) {
    int64_t n = 7;
    rlx_ndarray_t* x = rand_tensor(1, &n, 3);
    int n_out = 0;
    rlx_ndarray_t** outs = NULL;
    CHECK_OK(rlx_vm_invoke(vm, "main", 1, (DLTensor*[]){&x->dl}, &n_out, &outs));
    CHECK(n_out == 2);
    if (n_out == 2) {
      CHECK(outs[0]->dl.data == x->dl.data);
      const int64_t* v = outs[1]->dl.data;
      CHECK(outs[1]->dl.ndim == 1 && outs[1]->dl.shape[0] == 2 && outs[1]->dl.dtype.code == kDLInt && v[0] == 14 &&
            v[1] == 3);
    }
    for (int i = 0; i < n_out; i++) rlx_ndarray_release(outs[i]);
    free(outs);
    rlx_ndarray_release(x);
    rlx_vm_free(vm);
  }
  unlink(so);
  rmdir(dir);
  rlx_ctx_free(ctx);
}

int main(void) {
  test_mlp();
  test_if();
  test_call();
  test_prim_cond();
  test_shape_output();
  TEST_MAIN_END();
}
