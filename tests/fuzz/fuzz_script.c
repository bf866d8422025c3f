/* Fuzz target: the TVMScript parser (TIR and Relax, with the metadata section). Any text
 * must parse or give an error status. On what parses, the printer's text with the metadata
 * section (every tensor constant is metadata, as TVM prints) must parse again and print the
 * same: print -> parse -> print is a fixed point. The text without the section (constants
 * elided) must parse or fail cleanly. */
#include "fuzz.h"
#include "rlx/rlx.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char* text = fuzz_cstr(data, size);
  if (!text) return 0;
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  rlx_status_t* st = rlx_script_parse(ctx, text, "fuzz.py", &m);
  if (!st) {
    char* p0 = rlx_script_print_module(m);
    rlx_module_t* m0 = NULL;
    fuzz_ignore(rlx_script_parse(ctx, p0, "elided.py", &m0));
    free(p0);
    char* p1 = rlx_script_print_module_ex(m, true);
    rlx_module_t* m2 = NULL;
    rlx_status_t* st2 = rlx_script_parse(ctx, p1, "printed.py", &m2);
    FUZZ_CHECK(!st2, "the printed module does not parse: %s\n--- printed:\n%s", rlx_status_message(st2), p1);
    char* p2 = rlx_script_print_module_ex(m2, true);
    FUZZ_CHECK(strcmp(p1, p2) == 0, "print -> parse -> print differs\n--- first:\n%s\n--- second:\n%s", p1, p2);
    free(p1);
    free(p2);
  }
  fuzz_ignore(st);
  rlx_ctx_free(ctx);
  free(text);
  return 0;
}
