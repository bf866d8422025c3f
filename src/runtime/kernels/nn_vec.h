/* 16-float vectors for the kernels of this folder, as GCC vector types: with -march=native
 * on an AVX-512 machine each is one zmm register; elsewhere the compiler splits it. */
#ifndef RLX_RUNTIME_KERNELS_NN_VEC_H
#define RLX_RUNTIME_KERNELS_NN_VEC_H

#include <stdint.h>

typedef float v16 __attribute__((vector_size(64)));
typedef float v16u __attribute__((vector_size(64), aligned(4))); /* unaligned access */
typedef int32_t v16i __attribute__((vector_size(64)));

#define LD(p) (*(const v16u*)(const void*)(p))
#define ST(p, x) (*(v16u*)(void*)(p) = (x))

static inline v16 vmax(v16 a, v16 b) {
  v16i m = a < b;
  return (v16)(((v16i)a & ~m) | ((v16i)b & m));
}

static inline v16 vmin(v16 a, v16 b) {
  v16i m = b < a;
  return (v16)(((v16i)a & ~m) | ((v16i)b & m));
}

/* Clip to [lo, hi]; relu is lo 0, hi +inf. */
static inline v16 vclip(v16 a, float lo, float hi) {
  v16 l = (v16){0} + lo, h = (v16){0} + hi;
  return vmin(vmax(a, l), h);
}

#endif
