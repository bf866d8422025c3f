/* Fuzz target: the VM executable format (what rlx_vm_load reads from a compiled model's
 * rlx_vm_executable bytes: header, constants section, function table, bytecode). The
 * verifier must reject every malformed executable with a status; one it accepts must
 * disassemble, assemble back to the same bytes (when every tensor constant's data was
 * printed) and load into a VM against the builtins and the registry. */
#include "fuzz.h"
#include "rlx/vm.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char* text = NULL;
  rlx_status_t* st = rlx_vm_disassemble(data, size, &text);
  if (st) {
    fuzz_ignore(st);
    return 0;
  }
  if (!strstr(text, "not shown")) {
    void* bytes = NULL;
    size_t n = 0;
    st = rlx_vm_assemble(text, &bytes, &n);
    FUZZ_CHECK(!st, "the disassembly does not assemble: %s\n--- text:\n%s", rlx_status_message(st), text);
    FUZZ_CHECK(n == size && memcmp(bytes, data, size) == 0, "assemble(disassemble(x)) != x (%zu vs %zu bytes)", n,
               size);
    free(bytes);
  }
  free(text);
  rlx_vm_t* vm = NULL;
  st = rlx_vm_create(data, size, NULL, 0, NULL, &vm);
  fuzz_ignore(st);
  rlx_vm_free(vm);
  return 0;
}
