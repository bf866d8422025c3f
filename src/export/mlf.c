#include "rlx/rlx.h"
rlx_status_t* rlx_export_mlf(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_mlf_options_t* opts, const char* out_tar) {
  (void)ctx; (void)m; (void)opts; (void)out_tar;
  return rlx_status_create(RLX_UNSUPPORTED, "export-mlf: not implemented yet");
}
