/* Fuzz target: the VM assembler (rlx_vm_assemble, the text `rlx print MODEL.so` shows).
 * Text it accepts gives verified bytes; their disassembly assembles to the same bytes. */
#include "fuzz.h"
#include "rlx/vm.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char* text = fuzz_cstr(data, size);
  if (!text) return 0;
  void* bytes = NULL;
  size_t n = 0;
  rlx_status_t* st = rlx_vm_assemble(text, &bytes, &n);
  free(text);
  if (st) {
    fuzz_ignore(st);
    return 0;
  }
  char* dis = NULL;
  st = rlx_vm_disassemble(bytes, n, &dis);
  FUZZ_CHECK(!st, "assembled bytes do not verify: %s", rlx_status_message(st));
  if (!strstr(dis, "not shown")) {
    void* again = NULL;
    size_t n2 = 0;
    st = rlx_vm_assemble(dis, &again, &n2);
    FUZZ_CHECK(!st, "the disassembly does not assemble: %s\n--- text:\n%s", rlx_status_message(st), dis);
    FUZZ_CHECK(n2 == n && memcmp(again, bytes, n) == 0, "assemble(disassemble(x)) != x");
    free(again);
  }
  free(dis);
  free(bytes);
  return 0;
}
