/* Fuzz target: the ONNX reader and importer (rlx_onnx_import_bytes) on arbitrary bytes. Any
 * input must give a module or an error status, never a crash, a leak or undefined
 * behaviour. Imported modules are also printed (the printer must accept whatever the
 * importer builds). */
#include "fuzz.h"
#include "frontend/onnx/onnx_import.h"
#include "rlx/rlx.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  rlx_status_t* st = rlx_onnx_import_bytes(ctx, data, size, "fuzz.onnx", &m);
  if (!st) free(rlx_script_print_module(m));
  fuzz_ignore(st);
  rlx_ctx_free(ctx);
  return 0;
}
