/* Which kernel variant runs a call (nn_kernels.h: rlx_nn_kernels), and the register-tile
 * table the compiler reads (rlx_nn_tiles). Built once, for the baseline ISA, into
 * librlx_runtime; CMake defines RLX_KV_<LEVEL> for every variant it builds on this
 * architecture (x86-64: X86_V2, X86_V3, X86_V4; aarch64: NEON; else PORTABLE). Not shipped
 * in Model Library Format archives (nn_variant.c answers there). */
#include "../../support/target.h"
#include "nn_kernels.h"

#if defined(RLX_KV_X86_V2)
extern const rlx_nn_kernels_t rlx_nn_kernels_x86_64_v2;
#endif
#if defined(RLX_KV_X86_V3)
extern const rlx_nn_kernels_t rlx_nn_kernels_x86_64_v3;
#endif
#if defined(RLX_KV_X86_V4)
extern const rlx_nn_kernels_t rlx_nn_kernels_x86_64_v4;
#endif
#if defined(RLX_KV_NEON)
extern const rlx_nn_kernels_t rlx_nn_kernels_neon;
#endif
#if defined(RLX_KV_PORTABLE)
extern const rlx_nn_kernels_t rlx_nn_kernels_portable;
#endif

/* The variant built for level isa, or NULL when this build has none. */
static const rlx_nn_kernels_t* built(rlx_isa_t isa) {
  switch (isa) {
    case RLX_ISA_PORTABLE:
#if defined(RLX_KV_PORTABLE)
      return &rlx_nn_kernels_portable;
#else
      return NULL;
#endif
    case RLX_ISA_X86_V2:
#if defined(RLX_KV_X86_V2)
      return &rlx_nn_kernels_x86_64_v2;
#else
      return NULL;
#endif
    case RLX_ISA_X86_V3:
#if defined(RLX_KV_X86_V3)
      return &rlx_nn_kernels_x86_64_v3;
#else
      return NULL;
#endif
    case RLX_ISA_X86_V4:
#if defined(RLX_KV_X86_V4)
      return &rlx_nn_kernels_x86_64_v4;
#else
      return NULL;
#endif
    case RLX_ISA_NEON:
#if defined(RLX_KV_NEON)
      return &rlx_nn_kernels_neon;
#else
      return NULL;
#endif
    case RLX_ISA_COUNT:
      break;
  }
  return NULL;
}

const rlx_nn_kernels_t* rlx_nn_kernels(int64_t nb, const char** out_why) {
  const rlx_isa_t cpu = rlx_cpu_isa_level();
  const rlx_nn_kernels_t* k = NULL;
  if (nb == 16) {
    k = cpu == RLX_ISA_X86_V4 ? built(RLX_ISA_X86_V4) : NULL;
    if (!k && out_why)
      *out_why = cpu == RLX_ISA_X86_V3   ? "channel block 16 needs avx512f, which this CPU (x86-64-v3) lacks"
                 : cpu == RLX_ISA_X86_V2 ? "channel block 16 needs avx512f, which this CPU (x86-64-v2) lacks"
                                         : "channel block 16 needs avx512f (an x86-64-v4 CPU)";
    return k;
  }
  if (nb == 8) {
    /* the best level up to the CPU's that has block 8 (v4's kernels use 16) */
    for (int l = cpu; l >= 0 && !k; l--)
      if (l != RLX_ISA_X86_V4 && rlx_isa_info((rlx_isa_t)l)->arch == rlx_isa_info(cpu)->arch) k = built((rlx_isa_t)l);
    if (!k) k = built(RLX_ISA_PORTABLE);
  }
  if (!k && out_why) *out_why = "no kernels for this channel block (the blocked layouts use 8 or 16 channels)";
  return k;
}

int rlx_nn_cpu_vnni(void) {
  return rlx_cpu_isa_level() == RLX_ISA_X86_V4 && (rlx_cpu_features(NULL) & RLX_FEAT(AVX512VNNI)) != 0;
}

static const rlx_nn_tiles_t tiles[RLX_ISA_COUNT] = {
    [RLX_ISA_PORTABLE] = RLX_NN_TILE_APPLY(RLX_NN_TILE_INIT, (RLX_NN_TILES_PORTABLE)),
    [RLX_ISA_X86_V2] = RLX_NN_TILE_APPLY(RLX_NN_TILE_INIT, (RLX_NN_TILES_X86_V2)),
    [RLX_ISA_X86_V3] = RLX_NN_TILE_APPLY(RLX_NN_TILE_INIT, (RLX_NN_TILES_X86_V3)),
    [RLX_ISA_X86_V4] = RLX_NN_TILE_APPLY(RLX_NN_TILE_INIT, (RLX_NN_TILES_X86_V4)),
    [RLX_ISA_NEON] = RLX_NN_TILE_APPLY(RLX_NN_TILE_INIT, (RLX_NN_TILES_NEON)),
};

const rlx_nn_tiles_t* rlx_nn_tiles(int isa) {
  return isa >= 0 && isa < RLX_ISA_COUNT ? &tiles[isa] : &tiles[RLX_ISA_PORTABLE];
}

/* The share of the FMA peak that tiles of u output blocks (u <= v) reach on runs of px
 * pixels, estimated: a tile keeps acc = u * NB/VL * px accumulators, and per reduction step
 * loads u * NB/VL weight vectors and px broadcast inputs. About 8 FMAs must be in flight to
 * hide their latency (4 cycles on two pipes, on Zen, Intel and Neoverse cores alike), and
 * the loads bound a step at 0.7 * acc / loads of the peak (calibrated on AVX2, Zen 4: 1x12
 * tiles, 13 loads for 12 FMAs, ran at 2/3 of 2x6's speed, 8 loads for 12). */
static double tile_eff(const rlx_nn_tiles_t* t, double u, double px) {
  const double knbv = (double)t->nb / t->vl, acc = u * knbv * px, loads = u * knbv + px;
  double e = acc / 8.0;
  if (0.7 * acc / loads < e) e = 0.7 * acc / loads;
  return e < 1.0 ? e : 1.0;
}

/* The estimated efficiency of V = v for ocb output blocks on runs of len pixels: the full
 * groups' tiles and the narrower last group's, weighted by their blocks. */
static double v_eff(const rlx_nn_tiles_t* t, int64_t v, int64_t ocb, int64_t len) {
  const int64_t rw = t->rw[v - 1], nt = len < 1 ? 1 : (len + rw - 1) / rw, full = ocb / v, rem = ocb % v;
  const double px = (double)(len < 1 ? 1 : len) / (double)nt;
  return ((double)(full * v) * tile_eff(t, (double)v, px) + (double)rem * tile_eff(t, (double)rem, px)) / (double)ocb;
}

int64_t rlx_nn_pick_v(const rlx_nn_tiles_t* t, int64_t ocb, int64_t len) {
  double best = 0;
  for (int i = 0; i < 3 && t->v_pref[i]; i++) {
    const double e = v_eff(t, t->v_pref[i], ocb, len);
    best = e > best ? e : best;
  }
  /* among the choices within 3 % of the best: the first that divides ocb (no narrower last
   * group), else the first, in the row's order */
  int64_t first = 0;
  for (int i = 0; i < 3 && t->v_pref[i]; i++) {
    const int64_t v = t->v_pref[i];
    if (v_eff(t, v, ocb, len) < 0.97 * best) continue;
    if (ocb % v == 0) return v;
    if (!first) first = v;
  }
  return first ? first : 1;
}

int64_t rlx_nn_winograd_chunk(const rlx_nn_tiles_t* t, int64_t v) { return t->rw[v >= 1 && v <= 3 ? v - 1 : 0]; }
