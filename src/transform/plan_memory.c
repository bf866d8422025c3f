/* Pass plan_memory: placeholder until the pass lands (see pass.h for its contract). It fails loudly
 * instead of passing the module through. */
#include "pass.h"

rlx_status_t* rlx_pass_plan_memory(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out) {
  (void)ctx;
  (void)in;
  (void)out;
  return rlx_status_create(RLX_UNSUPPORTED, "pass plan_memory is not implemented yet");
}
