/* One variant's table of kernels (nn_kernels.h: rlx_nn_kernels_t), and, in the sources a
 * Model Library Format archive ships (one variant, no dispatcher), rlx_nn_kernels itself. */
#include "nn_variant.h"

#if !defined(RLX_KERNEL_ISA)
#define KISA_NAME "target"
#elif RLX_KERNEL_ISA == 0
#define KISA_NAME "portable"
#elif RLX_KERNEL_ISA == 1
#define KISA_NAME "x86-64-v2"
#elif RLX_KERNEL_ISA == 2
#define KISA_NAME "x86-64-v3"
#elif RLX_KERNEL_ISA == 3
#define KISA_NAME "x86-64-v4"
#else
#define KISA_NAME "neon"
#endif

const rlx_nn_kernels_t KSYM(rlx_nn_kernels) = {
    KISA_NAME,
    NB,
    KSYM(rlx_nn_conv2d_nchwc),
    KSYM(rlx_nn_conv2d_dw_nchwc),
    KSYM(rlx_nn_dwconv_conv_nchwc),
    KSYM(rlx_nn_conv2d_winograd_nchwc),
    KSYM(rlx_nn_dwconv2d_nchwc),
    KSYM(rlx_nn_max_pool2d_nchwc),
    KSYM(rlx_nn_global_mean_nchwc),
    KSYM(rlx_nn_qconv2d_nchwc),
    KSYM(rlx_nn_qdwconv2d_nchwc),
    KSYM(rlx_nn_qadd_span),
    KSYM(rlx_nn_quantize_span),
};

#if !defined(RLX_KERNEL_ISA)
const rlx_nn_kernels_t* rlx_nn_kernels(int64_t nb, const char** out_why) {
  if (nb == NB) return &KSYM(rlx_nn_kernels);
  if (out_why) *out_why = "this archive's kernels were built for another channel block (RLX_NN_TARGET_BLOCK)";
  return NULL;
}

int rlx_nn_cpu_vnni(void) {
#if defined(__AVX512VNNI__)
  return 1;
#else
  return 0;
#endif
}
#endif
