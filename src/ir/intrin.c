/* The TIR intrinsic table: intrin.def expanded once. */
#include <math.h>
#include <string.h>

#include "ir.h"

static double sigmoid_d(double x) { return 1.0 / (1.0 + exp(-x)); }
static float sigmoid_f(float x) { return 1.0f / (1.0f + expf(-x)); }
static double rsqrt_d(double x) { return 1.0 / sqrt(x); }
static float rsqrt_f(float x) { return 1.0f / sqrtf(x); }

#define MATH1(D, F) .interp_d1 = D, .interp_f1 = F
#define MATH2(D, F) .interp_d2 = D, .interp_f2 = F
#define SPECIAL .interp_d1 = NULL
#define NO_INTERP .interp_d1 = NULL
static const rlx_intrin_t intrins[] = {
#define RLX_INTRIN(NAME, N_ARGS, RETURNS_BOOL, PARSED, C_F32, C_F64, MVEC_F32, INTERP)                               \
  {.name = NAME, .n_args = N_ARGS, .returns_bool = RETURNS_BOOL, .parsed = PARSED, .c_f32 = C_F32, .c_f64 = C_F64, \
   .mvec_f32 = MVEC_F32, INTERP},
#include "intrin.def"
};
#undef MATH1
#undef MATH2
#undef SPECIAL
#undef NO_INTERP

const rlx_intrin_t* rlx_intrin_find(const char* name) {
  for (size_t i = 0; i < sizeof(intrins) / sizeof(intrins[0]); i++)
    if (strcmp(intrins[i].name, name) == 0) return &intrins[i];
  return NULL;
}
