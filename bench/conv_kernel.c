/* One convolution layer through the runtime's kernel table, in isolation: the variant the
 * running CPU gets (RLX_MAX_ISA caps it, so one machine times every level), one thread,
 * timed by the thread's CPU time (on a shared machine, preemption does not count), the
 * best and the median of REPS calls with the weights and the image in cache (COLD=1: out of
 * cache). V (output
 * blocks per weight group) is the layout pass's choice for the layer unless $V says.
 *
 *   cc -O2 -std=gnu11 -I src -I include bench/conv_kernel.c -L build/lib -lrlx_runtime \
 *      -Wl,-rpath,$PWD/build/lib -o /tmp/conv_kernel
 *   RLX_MAX_ISA=x86-64-v3 /tmp/conv_kernel IC H OC K STRIDE PAD [d|w2|w4] [REPS]
 *
 * d: the direct kernel, w2 / w4: Winograd F(2x2) / F(4x4), g: depthwise (OC = IC; groups =
 * channels). Prints GFLOPS of the direct
 * convolution's FLOPs (2 * OC * IC * K * K * OH * OW). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/kernels/nn_kernels.h"
#include "support/target.h"

static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  if (argc < 7) {
    fprintf(stderr, "usage: %s IC H OC K STRIDE PAD [d|w2|w4] [REPS]\n", argv[0]);
    return 2;
  }
  const int64_t ic = atoi(argv[1]), h = atoi(argv[2]), oc = atoi(argv[3]), k = atoi(argv[4]), s = atoi(argv[5]);
  const int64_t pad = atoi(argv[6]);
  const char* alg = argc > 7 ? argv[7] : "d";
  int reps = argc > 8 ? atoi(argv[8]) : 30;
  reps = reps < 1 ? 1 : reps > 1000 ? 1000 : reps;
  const rlx_isa_t isa = rlx_cpu_isa_level();
  const int64_t nb = rlx_isa_info(isa)->nchwc_block;
  const rlx_nn_kernels_t* kn = rlx_nn_kernels(nb, NULL);
  if (!kn) return fprintf(stderr, "no kernels for this CPU\n"), 1;
  rlx_nn_set_num_threads(1);
  const int64_t oh = (h + 2 * pad - k) / s + 1, icb = (ic + nb - 1) / nb, ocb = (oc + nb - 1) / nb;
  const int m = alg[0] == 'w' ? alg[1] - '0' : 0;
  const int64_t run = k == 1 && s == 1 && pad == 0 ? oh * oh : m ? (oh + 1) / 2 * ((oh + 1) / 2) : oh;
  const int64_t v = getenv("V") ? atoi(getenv("V")) : rlx_nn_pick_v(rlx_nn_tiles(isa), ocb, run);
  float* x = aligned_alloc(64, (size_t)(icb * h * h * nb) * 4);
  float* w = malloc((size_t)(oc * ic * k * k) * 4);
  float* y = aligned_alloc(64, (size_t)(((oc + nb * v - 1) / (nb * v)) * v * oh * oh * nb) * 4);
  for (int64_t i = 0; i < icb * h * h * nb; i++) x[i] = (float)(i % 7) * 0.1f;
  for (int64_t i = 0; i < oc * ic * k * k; i++) w[i] = (float)(i % 5) * 0.01f;
  rlx_nn_conv_t p;
  memset(&p, 0, sizeof(p));
  p.n = 1, p.ic = ic, p.h = p.w = h, p.oc = oc, p.oh = p.ow = oh, p.kh = p.kw = k, p.sh = p.sw = s;
  p.dh = p.dw = 1, p.pt = p.pl = pad, p.nb = p.cbi = nb, p.v = v;
  if (alg[0] == 'g') { /* depthwise: groups = channels (OC = IC) */
    p.oc = ic, p.v = 1;
    float* wd = aligned_alloc(64, (size_t)((icb * nb * k * k * 4 + 63) / 64 * 64));
    rlx_nn_dw_pack_weight(w, ic, k, k, nb, wd);
    static double td[1000];
    for (int r = 0; r < reps + 2; r++) {
      const double t0 = cpu_s();
      kn->dwconv2d(&p, x, wd, NULL, NULL, y);
      if (r >= 2) td[r - 2] = cpu_s() - t0;
    }
    qsort(td, (size_t)reps, sizeof(double), cmp);
    const double flop = 2.0 * (double)(ic * k * k * oh * oh);
    printf("%s NCHW%lldc dw %lldx%lld %lld ch k%lld s%lld: best %.3f ms (%.1f GFLOPS), median %.3f ms (%.1f)\n",
           kn->isa, (long long)nb, (long long)h, (long long)h, (long long)ic, (long long)k, (long long)s, td[0] * 1e3,
           flop / td[0] / 1e9, td[reps / 2] * 1e3, flop / td[reps / 2] / 1e9);
    free(x), free(w), free(y), free(wd);
    return 0;
  }
  const size_t n = (size_t)(m ? rlx_nn_winograd_packed_numel(oc, ic, m, v, nb) : rlx_nn_conv_packed_numel(oc, ic, k, k, nb, v, nb));
  float* wp = aligned_alloc(64, (n * 4 + 63) / 64 * 64);
  if (m) rlx_nn_winograd_pack_weight(w, oc, ic, v, m, nb, wp);
  else rlx_nn_conv_pack_weight(w, oc, ic, k, k, nb, v, nb, wp);
  static double t[1000];
  /* COLD=1: every call starts with its weights and image out of cache, as in a network whose
   * layers together exceed the caches (64 MB written between calls) */
  const size_t flush_n = getenv("COLD") && atoi(getenv("COLD")) ? (size_t)64 << 20 : 0;
  char* flush = flush_n ? malloc(flush_n) : NULL;
  for (int r = 0; r < reps + 2; r++) {
    if (flush) memset(flush, r, flush_n);
    const double t0 = cpu_s();
    if (m ? kn->winograd(&p, m, x, wp, NULL, NULL, y) : kn->conv2d(&p, x, wp, NULL, NULL, y))
      return fprintf(stderr, "out of memory\n"), 1;
    if (r >= 2) t[r - 2] = cpu_s() - t0; /* two calls to warm up */
  }
  qsort(t, (size_t)reps, sizeof(double), cmp);
  const double flop = 2.0 * (double)(oc * ic * k * k * oh * oh);
  printf("%s NCHW%lldc V%lld %s %lldx%lld %lld->%lld k%lld s%lld: best %.3f ms (%.1f GFLOPS), median %.3f ms (%.1f)\n",
         kn->isa, (long long)nb, (long long)v, alg, (long long)h, (long long)h, (long long)ic, (long long)oc,
         (long long)k, (long long)s, t[0] * 1e3, flop / t[0] / 1e9, t[reps / 2] * 1e3, flop / t[reps / 2] / 1e9);
  free(x), free(w), free(y), free(wp), free(flush);
  return 0;
}
