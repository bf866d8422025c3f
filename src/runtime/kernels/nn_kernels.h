/* Hand-written CPU kernels for convolutional networks, in the blocked NCHWc layout.
 *
 * The compiler's layout pass (src/transform/layout_nchwc.c) rewrites R.nn.conv2d, pools,
 * channel means and their elementwise neighbours into R.call_dps_packed calls of the names
 * below; the VM finds them through the runtime registry's static kernel table (registry.c
 * falls back to rlx_kernel_lookup). Each kernel is a plain C function over raw pointers
 * (usable without the runtime, e.g. from Model Library Format sources) plus a packed-ABI
 * wrapper (kernels_packed.c) that checks its arguments.
 *
 * The vector kernels exist once per kernel level (nn_vec.h: x86-64-v2, v3, v4, NEON or
 * portable, each built with its own -march) and are reached through a table of function
 * pointers, rlx_nn_kernels_t; rlx_nn_kernels picks the table for a channel block on the
 * running CPU. Packing, layout transforms and sizes are plain C for any block.
 *
 * Layouts (float32 only), NB the channel block (8, or 16 with AVX-512; the tensors' last
 * dimension says which):
 * - activation "NCHWc": [N, C/NB, H, W, NB], C padded up to a multiple of NB; padded
 *   channels hold finite values that every consumer ignores (their weights are zero).
 * - conv weight, packed: [OG, ICb, KH, KW, cbi, V*NB] — V NB-channel output blocks per
 *   group (OG = ceil(OCb / V), V 1..3; where V does not divide OCb the last group is
 *   padded with zero blocks and the kernels run it with a narrower tile), cbi input
 *   channels per input block (NB for a blocked input, 1 for a plain NCHW input, then
 *   ICb = IC). Padded channels are zero.
 * - depthwise weight, packed: [Cb, KH, KW, NB].
 * - Winograd weight: [(m+2)^2, OG, ICb, NB, V*NB].
 * - bias: [OCb * NB] (padded with zeros).
 */
#ifndef RLX_RUNTIME_KERNELS_NN_KERNELS_H
#define RLX_RUNTIME_KERNELS_NN_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "nn_tiles.h"
#include "rlx/abi.h"

enum { RLX_NN_MAX_BLOCK = 16 };

typedef enum { RLX_NN_ACT_NONE = 0, RLX_NN_ACT_CLIP = 1 } rlx_nn_act_t;

/* Geometry and epilogue of one 2-D convolution (also used by depthwise and pools). */
typedef struct {
  int64_t n, ic, h, w;        /* input: batch, real channels, height, width */
  int64_t oc, oh, ow;         /* output: real channels, height, width */
  int64_t kh, kw;             /* window */
  int64_t sh, sw, dh, dw;     /* strides, dilations */
  int64_t pt, pl;             /* padding top / left (bottom / right follow from oh, ow) */
  int64_t nb;                 /* channels per block of the blocked tensors (the variant's NB) */
  int64_t cbi;                /* input channels per block in memory: nb (NCHWc) or 1 (NCHW) */
  int64_t v;                  /* conv: output blocks per weight group (1..3) */
  int act;                    /* rlx_nn_act_t: clip to [lo, hi] (relu: lo 0, hi +inf) */
  float lo, hi;
  int64_t y_cb, y_off;        /* conv: y holds y_cb channel blocks per image (0: its own) and this
                               * conv writes blocks y_off.. (concat in place; no residual then) */
} rlx_nn_conv_t;

/* The vector kernels of one level, all for channel block nb (p->nb must equal it).
 *
 * conv2d: y = act(conv(x, w) + bias + res). x is NCHWc (cbi nb) or NCHW (cbi 1); w packed by
 *   rlx_nn_conv_pack_weight with the same v, cbi and nb; bias [OCb*nb] or NULL; res NULL or
 *   an NCHWc tensor of y's shape. Returns 0, or -1 when the scratch could not be allocated.
 * conv2d_dw: y = dw(act(conv(x, w) + bias)) without storing the first convolution's output:
 *   p is that convolution (any window; no residual; y_cb/y_off unused), q a 3x3 depthwise
 *   convolution over its output (q->h, q->w = p->oh, p->ow; q->ic = p->oc; stride 1 or 2,
 *   dilation 1, q->w <= 512; its own bias bd and clip; no residual) with weight wd packed by
 *   rlx_nn_dw_pack_weight. Returns 0 or -1 (scratch).
 * dwconv_conv: y = act(conv1x1(dw(x)) + bias + res) without storing the depthwise output: q
 *   a 3x3 depthwise convolution as above (weight wd, bias bd, its own clip), p a 1x1 stride-1
 *   convolution over its output (p->ic = q->oc, p->h, p->w = q->oh, q->ow; no concat
 *   offset) with weight w (cbi nb). Returns 0 or -1 (scratch).
 * winograd: the convolution by Winograd F(m x m, 3x3), m = 2 or 4, for 3x3 windows with
 *   stride 1 and dilation 1 over an NCHWc input: tiles of m x m outputs, (m+2)^2 batched
 *   GEMMs on the direct kernel's register tiles, the output transform fused with the
 *   epilogue; u from rlx_nn_winograd_pack_weight (same v, m, nb). Returns 0 or -1.
 * dwconv2d: depthwise (groups = channels); x, res, y NCHWc, w from rlx_nn_dw_pack_weight.
 * max_pool2d: max pool (positions outside the image ignored, as ONNX and PyTorch do;
 *   ceil_mode only changes oh/ow); p->ic the channels, kh/kw the window.
 * global_mean: mean over H and W, x [N, Cb, H, W, nb] -> y [N, Cb, 1, 1, nb].
 * All run on the kernels' pool (rlx_nn_parallel) except global_mean (the caller). */
/* Integer (int8) kernels (qconv_nchwc.c, qnn_nchwc.c): activations uint8 NCHWc with an
 * asymmetric per-tensor (scale, zero point); weights int8 in [-127, 127], per output channel.
 * g is the geometry as for the float kernels (cbi = nb); the zero points and the output's
 * clamp live in the quantized domain. */
typedef struct {
  rlx_nn_conv_t g;
  int32_t x_zp;       /* what padding reads */
  int32_t y_zp;       /* added after the rounding */
  int32_t y_lo, y_hi; /* clamp of the result: [0, 255] narrowed by a folded Relu / Clip */
  int vnni;           /* use AVX-512 VNNI (the dispatcher sets it from the CPU) */
} rlx_nn_qconv_t;

/* qadd's parameters: y = clamp(Q(((a - za) * sa + (b - zb) * sb) / sy) + zy, lo, hi). */
typedef struct {
  float sa, sb, sy;
  int32_t za, zb, zy, lo, hi;
} rlx_nn_qadd_t;

typedef struct {
  const char* isa; /* the level, as rlx_target_isa names it ("x86-64-v3"); "target" in an archive */
  int64_t nb;
  int (*conv2d)(const rlx_nn_conv_t* p, const float* x, const float* w, const float* bias, const float* res, float* y);
  int (*conv2d_dw)(const rlx_nn_conv_t* p, const rlx_nn_conv_t* q, const float* x, const float* w, const float* bias,
                   const float* wd, const float* bd, float* y);
  int (*dwconv_conv)(const rlx_nn_conv_t* q, const rlx_nn_conv_t* p, const float* x, const float* wd, const float* bd,
                     const float* w, const float* bias, const float* res, float* y);
  int (*winograd)(const rlx_nn_conv_t* p, int m, const float* x, const float* u, const float* bias, const float* res,
                  float* y);
  void (*dwconv2d)(const rlx_nn_conv_t* p, const float* x, const float* w, const float* bias, const float* res,
                   float* y);
  void (*max_pool2d)(const rlx_nn_conv_t* p, const float* x, float* y);
  void (*global_mean)(int64_t n, int64_t cb, int64_t hw, const float* x, float* y);
  /* int8: y = clamp(round_half_even((conv(x, w) + bias) * mult[c]) + y_zp, y_lo, y_hi) with
   * w packed by rlx_nn_qconv_pack_weight (quads: [OCb][ICb][KH][KW][NB/4][NB][4]), bias and
   * mult [OCb*nb] (bias already holds -x_zp * sum(w)); x has p->g.cbi channels per block
   * (nb, or 4 for a network's first layer); returns 0 or -1 (scratch). */
  int (*qconv2d)(const rlx_nn_qconv_t* p, const uint8_t* x, const int8_t* w, const int32_t* bias, const float* mult,
                 uint8_t* y);
  /* int8 depthwise: w int32 [Cb][KH][KW][nb] (int8 values), the same epilogue. */
  int (*qdwconv2d)(const rlx_nn_qconv_t* p, const uint8_t* x, const int32_t* w, const int32_t* bias, const float* mult,
                   uint8_t* y);
  /* int8 elementwise on n contiguous elements (the work items of qadd and quantize_nchwc):
   * qadd as rlx_nn_qadd_nchwc; quantize writes y[i * stride] = QuantizeLinear(x[i]). */
  void (*qadd_span)(const rlx_nn_qadd_t* q, const uint8_t* a, const uint8_t* b, uint8_t* y, int64_t n);
  void (*quantize_span)(const float* x, int64_t n, float scale, int32_t zp, uint8_t* y, int64_t stride);
} rlx_nn_kernels_t;

/* The kernels for channel block nb on this CPU (after RLX_MAX_ISA): block 16 needs the
 * AVX-512 variant, block 8 takes the best of the others the CPU runs (x86-64-v3, else v2;
 * NEON; portable). NULL when there is none; then *out_why (if given) says why in a static
 * text ("channel block 16 needs avx512f ..."). Built for a Model Library Format archive, the
 * one variant of its target (nb must be its block). */
const rlx_nn_kernels_t* rlx_nn_kernels(int64_t nb, const char** out_why);
/* Whether the int8 kernels may use AVX-512 VNNI: the CPU (after RLX_MAX_ISA) has it; in an
 * archive's one variant, whether it was built with it. */
int rlx_nn_cpu_vnni(void);

/* The register tiles of kernel level isa (an rlx_isa_t, support/target.h), for the
 * compiler: the layout pass packs weights with rlx_nn_pick_v's V and sizes Winograd chunks
 * by the tile width. */
const rlx_nn_tiles_t* rlx_nn_tiles(int isa);
/* V for a convolution with ocb output blocks whose register tiles run along len pixels (an
 * output row; a 1x1 stride-1 plane or the Winograd tiles: all of them): among the row's
 * preferences whose estimated efficiency is within 3 % of the best, the first that divides
 * ocb, else the first (the last weight group then holds fewer blocks). On AVX2, 7-pixel
 * rows take V = 3 (tiles of 12 and 9 accumulators) over V = 2 (8 and 6: too few FMAs in
 * flight). */
int64_t rlx_nn_pick_v(const rlx_nn_tiles_t* t, int64_t ocb, int64_t len);
/* Tiles per Winograd chunk for V (one register tile row: the row's widest tile for V). */
int64_t rlx_nn_winograd_chunk(const rlx_nn_tiles_t* t, int64_t v);

/* ---- packing and sizes (plain C, any block; kernels_pack.c) */
/* Packs an OIHW weight [oc, ic, kh, kw] into dst (rlx_nn_conv_packed_numel floats). */
int64_t rlx_nn_conv_packed_numel(int64_t oc, int64_t ic, int64_t kh, int64_t kw, int64_t cbi, int64_t v, int64_t nb);
void rlx_nn_conv_pack_weight(const float* w, int64_t oc, int64_t ic, int64_t kh, int64_t kw, int64_t cbi, int64_t v,
                             int64_t nb, float* dst);
/* Packs a depthwise weight [c, 1, kh, kw] into dst [Cb, kh, kw, nb]. */
void rlx_nn_dw_pack_weight(const float* w, int64_t c, int64_t kh, int64_t kw, int64_t nb, float* dst);
/* U = G g G^T of an OIHW 3x3 weight, packed [(m+2)^2, OG, ICb, nb, V*nb]
 * (rlx_nn_winograd_packed_numel floats). */
int64_t rlx_nn_winograd_packed_numel(int64_t oc, int64_t ic, int m, int64_t v, int64_t nb);
void rlx_nn_winograd_pack_weight(const float* w, int64_t oc, int64_t ic, int64_t v, int m, int64_t nb, float* dst);
/* Bytes of the one buffer (rlx_nn_thread_buffer) that the staged form of the Winograd kernel
 * takes for a layer run on `threads` threads (every tile's transformed input and GEMM
 * result), or 0 when the layer runs in the chunked form (per-participant scratch of
 * rlx_nn_parallel) of `chunk` tiles per item. */
int64_t rlx_nn_winograd_staged_bytes(int m, int64_t icb, int64_t ocb, int64_t oh, int64_t ow, int threads, int64_t nb,
                                     int64_t chunk);
/* Layout transforms: x [N, C, H, W] -> y [N, ceil(C/nb), H, W, nb] (padding zero), and back. */
void rlx_nn_nchw_to_nchwc(int64_t n, int64_t c, int64_t hw, int64_t nb, const float* x, float* y);
void rlx_nn_nchwc_to_nchw(int64_t n, int64_t c, int64_t hw, int64_t nb, const float* x, float* y);

/* int8 kernels on uint8 NCHWc tensors of block nb (qnn_nchwc.c, any ISA). Padded channels
 * of a quantized tensor hold the zero point or anything finite: they only meet zero weights.
 * quantize and qadd run their spans on k's vector code (k: rlx_nn_kernels of the block).
 *   quantize_nchwc   float NCHW [n, c, hw] -> uint8 NCHWc, QuantizeLinear(x, scale, zp) (block
 *                    nb, or 4 for a first convolution's input)
 *   qnchwc_to_nchw   uint8 NCHWc -> uint8 NCHW (the first c channels)
 *   qmax_pool2d      max over the window (outside the image ignored), then lut (NULL: none:
 *                    requantization to other parameters commutes with max, being monotone)
 *   qmean_hw         Q((mean(x) - zx) * sx) with (sy, zy): GlobalAveragePool between DQ and Q
 *   qadd             y = clamp(Q(((a - za) * sa + (b - zb) * sb) / sy) + zy, lo, hi)
 *   qlut             y = lut[x], for requantization and monotone activations
 *   qconcat          k parts (cb[p] channel blocks each, planes of `plane` bytes) side by side
 *                    over channel blocks, each through its lut (NULL: copied) */
void rlx_nn_quantize_nchwc(const rlx_nn_kernels_t* k, int64_t n, int64_t c, int64_t hw, int64_t nb, const float* x,
                           float scale, int32_t zp, uint8_t* y);
void rlx_nn_qnchwc_to_nchw(int64_t n, int64_t c, int64_t hw, int64_t nb, const uint8_t* x, uint8_t* y);
int rlx_nn_qmax_pool2d_nchwc(const rlx_nn_conv_t* p, const uint8_t* lut, const uint8_t* x, uint8_t* y);
void rlx_nn_qmean_hw_nchwc(int64_t n, int64_t cb, int64_t hw, int64_t nb, const uint8_t* x, float sx, int32_t zx,
                           float sy, int32_t zy, uint8_t* y);
int rlx_nn_qadd_nchwc(const rlx_nn_kernels_t* k, const rlx_nn_qadd_t* q, int64_t numel, const uint8_t* a, const uint8_t* b,
                      uint8_t* y);
int rlx_nn_qlut_nchwc(int64_t numel, const uint8_t* lut, const uint8_t* x, uint8_t* y);
int rlx_nn_qconcat_nchwc(int k, const uint8_t* const* x, const uint8_t* const* lut, const int64_t* cb, int64_t n,
                         int64_t plane, uint8_t* y);
/* Packing of int8 weights (kernels_pack.c): OIHW int8 -> quads [OCb][ICb][KH][KW][cbi/4][nb][4]
 * (rlx_nn_qconv_packed_bytes bytes) for an input of cbi channels per block (nb, or 4 for a
 * network's first layer), padded channels zero; depthwise [C,1,KH,KW] -> int32 [Cb][KH][KW][nb]. */
int64_t rlx_nn_qconv_packed_bytes(int64_t oc, int64_t ic, int64_t kh, int64_t kw, int64_t cbi, int64_t nb);
void rlx_nn_qconv_pack_weight(const int8_t* w, int64_t oc, int64_t ic, int64_t kh, int64_t kw, int64_t cbi, int64_t nb,
                              int8_t* dst);
void rlx_nn_qdw_pack_weight(const int8_t* w, int64_t c, int64_t kh, int64_t kw, int64_t nb, int32_t* dst);

/* The kernels' thread pool (nn_pool.c). rlx_nn_parallel runs fn(ctx, i, scratch) for every
 * i in [0, n_items) on the pool's threads and the caller's, each with its own scratch of
 * scratch_bytes (64-byte aligned, kept across calls; NULL when 0), and returns when all
 * are done: 0, or -1 when a scratch could not be allocated (some items did not run). When
 * another thread's job is running, the call runs alone on its caller. */
typedef void (*rlx_nn_task_fn_t)(void* ctx, int64_t item, void* scratch);
int rlx_nn_parallel(int64_t n_items, size_t scratch_bytes, rlx_nn_task_fn_t fn, void* ctx);
/* A buffer of at least n bytes (64-byte aligned) owned by the calling thread, kept and grown
 * across calls and freed when the thread exits; NULL when out of memory. For temporaries a
 * kernel needs before it dispatches work (the padded image of a convolution). */
void* rlx_nn_thread_buffer(size_t n);
/* Threads the pool uses, caller included (default: OMP_NUM_THREADS, else the CPU count). */
void rlx_nn_set_num_threads(int n);

/* Temporaries of generated kernels (the C backend's rlx_alloc in a library the runtime
 * loads): 64-byte aligned, freed with rlx_kernel_free in reverse order of allocation on the
 * same thread; kept per thread and depth across calls, so no allocation per call after the
 * first. NULL when out of memory. */
void* rlx_kernel_alloc(size_t bytes);
void rlx_kernel_free(void* p);
int rlx_nn_num_threads(void);

/* Name, packed-ABI C symbol and source file of every kernel, for exporters that ship the
 * sources (Model Library Format: the files of this folder compile as plain C11 + OpenMP). */
typedef struct {
  const char* name;   /* registered name */
  const char* symbol; /* packed-ABI C symbol */
  const char* source; /* file under src/runtime/kernels/ that defines it */
  rlx_packed_fn_t fn;
} rlx_kernel_info_t;
const rlx_kernel_info_t* rlx_kernel_table(int* out_n);

/* Floating-point operations of one call of kernel `name` given its tensor arguments in
 * order (t[0] the input, t[nt-1] the output), counted on whole channel blocks as the
 * kernel computes them (Winograd counted as the direct convolution); -1 for kernels that
 * do no arithmetic worth counting (pools, layout transforms) or unknown names. */
double rlx_nn_kernel_flops(const char* name, const DLTensor* const* t, int nt);

/* The packed-ABI wrapper of a kernel by its registered name ("rlx.nn.conv2d_nchwc" ...),
 * or NULL. The table is static: nothing to initialize. */
rlx_packed_fn_t rlx_kernel_lookup(const char* name);

/* The packed-ABI wrappers (kernels_packed.c); calling conventions are listed there. */
int rlx_nn_packed_conv2d_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh);
int rlx_nn_packed_conv2d_winograd_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code,
                                         void* rh);
int rlx_nn_packed_conv2d_concat_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh);
int rlx_nn_packed_conv2d_dw_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh);
int rlx_nn_packed_dwconv_conv_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh);
int rlx_nn_packed_dwconv2d_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh);
int rlx_nn_packed_max_pool2d_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh);
int rlx_nn_packed_mean_hw_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh);
int rlx_nn_packed_nchw_to_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh);
int rlx_nn_packed_nchwc_to_nchw(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh);
/* int8 (kernels_packed_int8.c) */
int rlx_nn_packed_quantize_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh);
int rlx_nn_packed_qnchwc_to_nchw(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh);
int rlx_nn_packed_qconv2d_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh);
int rlx_nn_packed_qdwconv2d_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh);
int rlx_nn_packed_qmax_pool2d_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh);
int rlx_nn_packed_qmean_hw_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh);
int rlx_nn_packed_qadd_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh);
int rlx_nn_packed_qlut_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh);
int rlx_nn_packed_qconcat_nchwc(rlx_value_t* a, int* codes, int n, rlx_value_t* ret, int* ret_code, void* rh);

#endif
