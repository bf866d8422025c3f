/* The public build API (include/rlx/rlx.h): a build configuration with externs, libraries
 * and deferred names; rlx_relax_unresolved lists what a module calls that nothing provides;
 * rlx_relax_build links a C source extern into a model the VM runs without --lib. */
#include <stdlib.h>
#include <unistd.h>

#include "rlx/rlx.h"
#include "rlx/vm.h"
#include "test.h"

static const char* const model_text =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import relax as R\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), dtype=\"float32\"):\n"
    "        y = R.call_dps_packed(\"api_twice\", (x,), out_sinfo=R.Tensor((4,), dtype=\"float32\"))\n"
    "        z = R.call_dps_packed(\"api_promised\", (y,), out_sinfo=R.Tensor((4,), dtype=\"float32\"))\n"
    "        return y\n";

static const char* const kernel_src =
    "#include \"rlx/extern.h\"\n"
    "static int twice(DLTensor* a, DLTensor* o) {\n"
    "  for (int i = 0; i < 4; i++) ((float*)o->data)[i] = 2 * ((float*)a->data)[i];\n"
    "  return 0;\n"
    "}\n"
    "RLX_EXPORT_DPS_2(api_twice, twice)\n";

static void test_build(void) {
  char dir[] = "/tmp/rlx-api-build-XXXXXX";
  if (!mkdtemp(dir)) return;
  char src[128], so[128];
  snprintf(src, sizeof(src), "%s/twice.c", dir);
  snprintf(so, sizeof(so), "%s/m.so", dir);
  FILE* f = fopen(src, "w");
  fputs(kernel_src, f);
  fclose(f);

  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  CHECK_OK(rlx_script_parse(ctx, model_text, "model.py", &m));
  rlx_build_config_t* c = rlx_build_config_create(ctx);
  CHECK_ERR(rlx_build_config_add_extern(c, "k.java"), "unknown extension");
  const char** names = NULL;
  int n = -1;
  CHECK_OK(rlx_relax_unresolved(ctx, m, c, &names, &n));
  CHECK(n == 2 && strcmp(names[0], "api_twice") == 0 && strcmp(names[1], "api_promised") == 0);
  CHECK_OK(rlx_build_config_add_extern(c, src));
  CHECK_OK(rlx_relax_unresolved(ctx, m, c, &names, &n));
  CHECK(n == 1 && strcmp(names[0], "api_promised") == 0);
  CHECK_ERR(rlx_relax_build(ctx, m, c, so), "extern function 'api_promised' called by 'main' was not found");
  CHECK(access(so, F_OK) != 0);
  CHECK_OK(rlx_build_config_defer(c, "api_promised"));
  CHECK_OK(rlx_relax_unresolved(ctx, m, c, &names, &n));
  CHECK(n == 0);
  CHECK_OK(rlx_relax_build(ctx, m, c, so));
  /* the deferred name must be provided by the loading program: here, the registry */
  rlx_vm_t* vm = NULL;
  CHECK_ERR(rlx_vm_load(so, 0, NULL, &vm), "'api_promised' was not found");
  rlx_ctx_free(ctx);
  unlink(so);
  unlink(src);
  rmdir(dir);
}

int main(void) {
  test_build();
  TEST_MAIN_END();
}
