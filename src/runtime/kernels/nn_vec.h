/* Native-width vectors and the compile-time configuration of one kernel variant.
 *
 * The vector kernels of this folder (conv2d*.c, pool_dw_nchwc.c, nn_variant.c) are one
 * source compiled once per kernel level (CMakeLists.txt), each time with that level's -march
 * and RLX_KERNEL_ISA set to its rlx_isa_t value (support/target.h):
 *
 *   RLX_KERNEL_ISA  level       flags              VL  NB  symbols
 *   0               portable    (none)              4   8  rlx_nn_..._portable
 *   1               x86-64-v2   -march=x86-64       4   8  rlx_nn_..._x86_64_v2
 *   2               x86-64-v3   -march=x86-64-v3    8   8  rlx_nn_..._x86_64_v3
 *   3               x86-64-v4   -march=x86-64-v4   16  16  rlx_nn_..._x86_64_v4
 *   4               neon        (aarch64 baseline)  4   8  rlx_nn_..._neon
 *
 * VL floats per native vector, NB channels per block of the blocked layout (NCHWc), KNBV =
 * NB / VL vectors per block; the register tiles come from the level's row of nn_tiles.h.
 * kernels_dispatch.c (built for the baseline) picks a variant per call.
 *
 * Without RLX_KERNEL_ISA (the sources a Model Library Format archive ships, built by a user
 * with the archive's cflags) there is one variant, named by the suffix _target: the level
 * follows the compiler's ISA macros and the block is RLX_NN_TARGET_BLOCK, which the archive
 * defines for its target (16 for AVX-512, else 8). Built with other flags the kernels stay
 * correct: a block wider than the vectors is several vectors.
 *
 * Vectors are only passed by value where the ISA holds them in one register (always, at the
 * variant's own width): no -Wpsabi. */
#ifndef RLX_RUNTIME_KERNELS_NN_VEC_H
#define RLX_RUNTIME_KERNELS_NN_VEC_H

#include <stdint.h>

#include "nn_tiles.h"

#define RLX_KSYM_CAT_(a, b) a##b
#define RLX_KSYM_CAT(a, b) RLX_KSYM_CAT_(a, b)

#if defined(RLX_KERNEL_ISA)
#if RLX_KERNEL_ISA == 0
#define KROW RLX_NN_TILES_PORTABLE
#define KSUFFIX _portable
#elif RLX_KERNEL_ISA == 1
#define KROW RLX_NN_TILES_X86_V2
#define KSUFFIX _x86_64_v2
#elif RLX_KERNEL_ISA == 2
#define KROW RLX_NN_TILES_X86_V3
#define KSUFFIX _x86_64_v3
#elif RLX_KERNEL_ISA == 3
#define KROW RLX_NN_TILES_X86_V4
#define KSUFFIX _x86_64_v4
#elif RLX_KERNEL_ISA == 4
#define KROW RLX_NN_TILES_NEON
#define KSUFFIX _neon
#else
#error "RLX_KERNEL_ISA: unknown kernel level"
#endif
#define NB RLX_NN_TILE(NB, KROW)
#define KVL_NATIVE RLX_NN_TILE(VL, KROW)
#else /* one variant, for the archive's target */
#if defined(__AVX512F__)
#define KROW RLX_NN_TILES_X86_V4
#elif defined(__AVX__)
#define KROW RLX_NN_TILES_X86_V3
#elif defined(__aarch64__)
#define KROW RLX_NN_TILES_NEON
#elif defined(__SSE2__)
#define KROW RLX_NN_TILES_X86_V2
#else
#define KROW RLX_NN_TILES_PORTABLE
#endif
#define KSUFFIX _target
#ifdef RLX_NN_TARGET_BLOCK
#define NB RLX_NN_TARGET_BLOCK
#else
#define NB RLX_NN_TILE(NB, KROW)
#endif
#define KVL_NATIVE RLX_NN_TILE(VL, KROW)
#endif

/* A vector never wider than a block. */
#if KVL_NATIVE > NB
#define VL NB
#else
#define VL KVL_NATIVE
#endif
#define KNBV (NB / VL)
#define KRW1 RLX_NN_TILE(RW1, KROW)
#define KRW2 RLX_NN_TILE(RW2, KROW)
#define KRW3 RLX_NN_TILE(RW3, KROW)
#define KDW_RW RLX_NN_TILE(DW, KROW)
/* The variant's name for a symbol: KSYM(rlx_nn_conv2d_nchwc) is rlx_nn_conv2d_nchwc_x86_64_v3. */
#define KSYM(name) RLX_KSYM_CAT(name, KSUFFIX)

typedef float vf __attribute__((vector_size(VL * 4)));
typedef float vfu __attribute__((vector_size(VL * 4), aligned(4))); /* unaligned access */
typedef int32_t vi __attribute__((vector_size(VL * 4)));

#define LD(p) (*(const vfu*)(const void*)(p))
#define ST(p, x) (*(vfu*)(void*)(p) = (x))

static inline vf vmax(vf a, vf b) {
  vi m = a < b;
  return (vf)(((vi)a & ~m) | ((vi)b & m));
}

static inline vf vmin(vf a, vf b) {
  vi m = b < a;
  return (vf)(((vi)a & ~m) | ((vi)b & m));
}

/* Clip to [lo, hi]; relu is lo 0, hi +inf. */
static inline vf vclip(vf a, float lo, float hi) {
  vf l = (vf){0} + lo, h = (vf){0} + hi;
  return vmin(vmax(a, l), h);
}

#endif
