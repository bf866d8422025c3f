/* The machine the default schedules tile for: every number they take from the target (the
 * compile context's, rlx_ctx_target_of) is decided here, so that one table says what each
 * ISA gets.
 *
 * The register tile of the matmul kernel (default_matmul.c) is MR rows x NV vectors of
 * accumulators: every k step loads NV vectors of the B panel, broadcasts one element of A
 * per row and issues MR x NV multiply-adds. The tile must fit the register file beside the
 * NV B vectors and the broadcast (and, without FMA, the product temporary SSE's two-operand
 * mulps needs), and should be as large as that allows, since the multiply-adds per load grow
 * with it. GCC allocates the registers: a tile one register too large spills an accumulator
 * on every k step, which costs more than any shape gains.
 *
 *   ISA       regs lanes  tiles (MR x NR)  registers              1024^3 sgemm, 1 core (CPU time)
 *   AVX-512    32   16    8x32             16 acc + 2 B + 1 A     20.4 ms; 12x32: 23.5 (OpenBLAS
 *                                                                 SkylakeX kernel: 21.9)
 *   AVX2+FMA   16    8    6x16, 4x24       12 acc + 2|3 B + 1 A   6x16: 20.9 ms, 4x24: 23.0
 *                                                                 (OpenBLAS Haswell: 20.8)
 *   SSE (v2)   16    4    4x8              8 acc + 2 B + 1 A + 1  63 ms; 6x8: 63, 4x12: 73 (spills)
 *                                                                 (OpenBLAS Nehalem: 73)
 *   NEON       32    4    8x12             24 acc + 3 B + 1 A     (BLIS's armv8a shape; no
 *                                                                 aarch64 machine to measure)
 *   portable   16   16B   4x8              as SSE                 any 16-byte vector ISA
 *
 * (Zen 4 at x86-64-v4, v3 and v2, medians of 36 runs, the machine shared.) Where an ISA lists several tiles, a
 * matmul takes the one that computes the fewest padded elements, weighted by the tile's
 * efficiency (`pct`, its speed on a large matmul relative to the first): with AVX2, 16 rows
 * (a batch-16 MLP) are 4 tiles of 4 rows, not 3 tiles of 6 that compute 2 rows for nothing
 * (mlp_b16 -18 %), while 128 rows stay tiles of 6 (2 padded rows cost less than the 4x24
 * tile's 10 %). The SSE tile is the smaller of two equal ones: GCC keeps 6x8 in registers
 * with no register to spare, other compilers may not. A matmul of fewer rows than the tile
 * spreads the tile's accumulators over more vectors of its rows (widen): the MLP 784-128-10
 * at v3 went from 7.7 to 4.6 us.
 */
#include "sched_internal.h"

enum { MAX_TILES = 3 };

static const struct {
  int n;
  struct {
    sched_tile_t tile;
    int pct; /* speed relative to the first tile on a large matmul */
  } t[MAX_TILES];
} tiles[RLX_ISA_COUNT] = {
    [RLX_ISA_PORTABLE] = {1, {{{4, 2}, 100}}},
    [RLX_ISA_X86_V2] = {1, {{{4, 2}, 100}}},
    [RLX_ISA_X86_V3] = {2, {{{6, 2}, 100}, {{4, 3}, 95}}},
    [RLX_ISA_X86_V4] = {1, {{{8, 2}, 100}}},
    [RLX_ISA_NEON] = {1, {{{8, 3}, 100}}},
};

sched_machine_t sched_machine(const rlx_ctx_t* ctx) {
  const rlx_target_t* t = rlx_ctx_target_of(ctx);
  rlx_isa_t isa = rlx_target_isa_level(t);
  const rlx_isa_info_t* in = rlx_isa_info(isa);
  sched_machine_t m;
  m.isa = isa;
  m.vec_bytes = in->vector_bytes;
  m.vec_regs = in->vector_regs;
  m.fma = in->fma;
  for (int l = 0; l < 3; l++) m.cache[l] = rlx_target_cache_bytes(t, l + 1);
  /* a target without cache sizes (none in the CPU table is): the smallest common ones */
  if (m.cache[0] <= 0) m.cache[0] = 32 << 10;
  if (m.cache[1] <= 0) m.cache[1] = 256 << 10;
  if (m.cache[2] <= 0) m.cache[2] = m.cache[1];
  return m;
}

int sched_machine_lanes(const sched_machine_t* m, int elem_bytes) {
  if (elem_bytes <= 0) return 1;
  int l = m->vec_bytes / elem_bytes;
  return l > 1 ? l : 1;
}

/* Elements computed for an extent of n in steps of `step` (n itself when symbolic: -1). */
static int64_t padded(int64_t n, int64_t step) { return n < 0 ? 1 : (n + step - 1) / step * step; }

/* Fewer rows than the tile (a GEMV, a batch-4 dense): NV vectors per row hold only NV
 * chains of dependent FMAs over k, each waiting out the FMA's latency (4 cycles) per step;
 * the tile's accumulator budget spread over more vectors of the M rows keeps the FMA units
 * busy instead. Limited by the registers: M x NV accumulators + NV B vectors (none for one
 * row: each B vector feeds one FMA, a memory operand) + the broadcast; and by N's vectors,
 * the count that pads N least (then the most). */
static sched_tile_t widen(const sched_machine_t* m, sched_tile_t t, int64_t M, int64_t N) {
  int lanes = sched_machine_lanes(m, 4);
  int budget = t.mr * t.nv;
  t.mr = (int)M;
  if (N < 0) return t; /* a symbolic N: the guard N >= NR stays as low as the table's */
  int cap = M == 1 ? m->vec_regs - 2 : (m->vec_regs - 1) / (int)(M + 1);
  int most = budget / (int)M < cap ? budget / (int)M : cap;
  if (padded(N, lanes) / lanes < most) most = (int)(padded(N, lanes) / lanes);
  sched_tile_t best = t;
  int64_t best_pad = padded(N, (int64_t)t.nv * lanes);
  for (int nv = t.nv + 1; nv <= most; nv++) {
    int64_t pad = padded(N, (int64_t)nv * lanes);
    if (pad <= best_pad) {
      best.nv = nv;
      best_pad = pad;
    }
  }
  return best;
}

sched_tile_t sched_machine_tile(const sched_machine_t* m, int64_t M, int64_t N) {
  int lanes = sched_machine_lanes(m, 4);
  sched_tile_t best = tiles[m->isa].t[0].tile;
  double best_work = -1;
  for (int i = 0; i < tiles[m->isa].n; i++) {
    sched_tile_t c = tiles[m->isa].t[i].tile;
    int64_t mr = M >= 0 && M < c.mr ? M : c.mr;
    int64_t nr = (int64_t)c.nv * lanes;
    if (N >= 0 && N < nr) nr = padded(N, lanes);
    double work = (double)padded(M, mr) * (double)padded(N, nr) * 100.0 / tiles[m->isa].t[i].pct;
    if (best_work < 0 || work < best_work) {
      best = c;
      best_work = work;
    }
  }
  if (M >= 0 && M < best.mr) best = widen(m, best, M, N);
  return best;
}
