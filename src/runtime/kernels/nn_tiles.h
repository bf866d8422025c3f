/* Register tiles of the blocked-layout kernels, per kernel level: the one table that the
 * kernels (built once per level, nn_vec.h picks their row at compile time) and the compiler
 * (the layout pass picks V, the output blocks of a weight group, and the Winograd chunk from
 * the target's row, rlx_nn_tiles) both read. Plain macros, so the kernel sources that a Model
 * Library Format archive ships need nothing else.
 *
 * A row: VL floats per native vector, NB channels per block (the NCHWc block), the widest
 * direct-convolution tile RW (output pixels) for V = 1, 2, 3 output blocks, the layout
 * pass's order of preference for V (the first that divides the output blocks; 0 ends), and
 * the pixels of a depthwise tile. A Winograd work item is one register tile row (RW tiles):
 * on AVX2 two rows per item (12 tiles, each transformed weight read half as often) measured
 * the same in isolation, and the larger buffers failed F(4x4)'s L2 bound for 28x28x128. A tile holds V * NB/VL * RW accumulators, and each step of
 * its reduction V * NB/VL weight vectors and one broadcast input:
 * - AVX-512 (32 zmm): V=2 x RW=14 = 28 accumulators + 2 weights + 1 broadcast; V=3 x 9 = 27.
 * - AVX2 (16 ymm, block 8 = one vector): accumulators + V + 1 <= 16: V=2 x 6 (12 + 3),
 *   V=3 x 4 (12 + 4), V=1 x 12; V=2 first (ResNet's and MobileNet's channel counts are powers
 *   of two times 8: V=3 rarely divides them).
 * - NEON (32 registers, block 8 = two vectors): accumulators + 2V weights + one register per
 *   pixel (GCC loads each broadcast input into its own register and multiplies by lane 0)
 *   <= 32: V=1 x 9 (18 + 2 + 9), V=2 x 5 (20 + 4 + 5), V=3 x 3 (18 + 6 + 3). With 24
 *   accumulators (2 x 6) GCC 12 spilled two of them on every step.
 * - SSE and portable (16 registers, block 8 = two vectors, no FMA: each product needs a
 *   temporary): V=1 x 6 = 12 accumulators + 2 weights + broadcast + temporary.
 * Depthwise tiles are 4 pixels on every ISA: the nine 3x3 weights of one vector, 4
 * accumulators and the input vector fit 16 registers, so AVX2 keeps its weights in
 * registers too (with 8 pixels they were memory operands), and the 7- and 14-pixel rows of a
 * network's deep layers leave fewer pixels to the one-at-a-time remainder. One thread,
 * Zen 4, best of 40 (bench/conv_kernel.c g): AVX2 14x14x576 57 -> 71 GFLOPS, 7x7x960 41 -> 46,
 * 56x56x144 90 -> 95; AVX-512 70 -> 76, 55 -> 61, 88 -> 90; stride 2 unchanged.
 */
#ifndef RLX_RUNTIME_KERNELS_NN_TILES_H
#define RLX_RUNTIME_KERNELS_NN_TILES_H

/*                               VL  NB  RW(V=1,2,3)  V order   DW */
#define RLX_NN_TILES_PORTABLE     4,  8,  6,  2, 1,   1, 0, 0,   4
#define RLX_NN_TILES_X86_V2       4,  8,  6,  2, 1,   1, 0, 0,   4
#define RLX_NN_TILES_X86_V3       8,  8, 12,  6, 4,   2, 3, 1,   4
#define RLX_NN_TILES_X86_V4      16, 16, 14, 14, 9,   2, 3, 1,   4
#define RLX_NN_TILES_NEON         4,  8,  9,  5, 3,   2, 3, 1,   4

/* Fields of a row (RLX_NN_TILE(VL, RLX_NN_TILES_X86_V3) is 8): usable in #if. */
#define RLX_NN_TILE_VL(vl, nb, r1, r2, r3, p1, p2, p3, dw) vl
#define RLX_NN_TILE_NB(vl, nb, r1, r2, r3, p1, p2, p3, dw) nb
#define RLX_NN_TILE_RW1(vl, nb, r1, r2, r3, p1, p2, p3, dw) r1
#define RLX_NN_TILE_RW2(vl, nb, r1, r2, r3, p1, p2, p3, dw) r2
#define RLX_NN_TILE_RW3(vl, nb, r1, r2, r3, p1, p2, p3, dw) r3
#define RLX_NN_TILE_DW(vl, nb, r1, r2, r3, p1, p2, p3, dw) dw
#define RLX_NN_TILE_INIT(vl, nb, r1, r2, r3, p1, p2, p3, dw) {vl, nb, {r1, r2, r3}, {p1, p2, p3}, dw}
#define RLX_NN_TILE_APPLY(f, args) f args
#define RLX_NN_TILE(field, row) RLX_NN_TILE_APPLY(RLX_NN_TILE_##field, (row))

typedef struct {
  int vl, nb;    /* floats per vector, channels per block */
  int rw[3];     /* widest direct tile for V = 1, 2, 3 */
  int v_pref[3]; /* V in order of preference (0: none) */
  int dw_rw;     /* pixels per depthwise tile */
} rlx_nn_tiles_t;

#endif
