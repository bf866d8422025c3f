/* Hand-written CPU kernels for convolutional networks, in the blocked NCHW16c layout.
 *
 * The compiler's layout pass (src/transform/layout_nchwc.c) rewrites R.nn.conv2d, pools,
 * channel means and their elementwise neighbours into R.call_dps_packed calls of the names
 * below; the VM finds them through the runtime registry's static kernel table (registry.c
 * falls back to rlx_kernel_lookup). Each kernel is a plain C function over raw pointers
 * (usable without the runtime, e.g. from Model Library Format sources) plus a packed-ABI
 * wrapper (kernels_packed.c) that checks its arguments.
 *
 * Layouts (float32 only):
 * - activation "NCHW16c": [N, C/16, H, W, 16], C padded up to a multiple of 16; padded
 *   channels hold finite values that every consumer ignores (their weights are zero).
 * - conv weight, packed: [OG, ICb, KH, KW, cbi, V*16] — V 16-channel output blocks per
 *   group (OG = OCb / V), cbi input channels per input block (16 for a blocked input, 1 for
 *   a plain NCHW input, then ICb = IC). Padded channels are zero.
 * - depthwise weight, packed: [Cb, KH, KW, 16].
 * - bias: [OCb * 16] (padded with zeros).
 */
#ifndef RLX_RUNTIME_KERNELS_NN_KERNELS_H
#define RLX_RUNTIME_KERNELS_NN_KERNELS_H

#include <stdint.h>

#include "rlx/abi.h"

enum { RLX_NN_BLOCK = 16 };

typedef enum { RLX_NN_ACT_NONE = 0, RLX_NN_ACT_CLIP = 1 } rlx_nn_act_t;

/* Geometry and epilogue of one 2-D convolution (also used by depthwise and pools). */
typedef struct {
  int64_t n, ic, h, w;        /* input: batch, real channels, height, width */
  int64_t oc, oh, ow;         /* output: real channels, height, width */
  int64_t kh, kw;             /* window */
  int64_t sh, sw, dh, dw;     /* strides, dilations */
  int64_t pt, pl;             /* padding top / left (bottom / right follow from oh, ow) */
  int64_t cbi;                /* input channels per block in memory: 16 (NCHW16c) or 1 (NCHW) */
  int64_t v;                  /* conv: 16-channel output blocks per weight group (1..3) */
  int act;                    /* rlx_nn_act_t: clip to [lo, hi] (relu: lo 0, hi +inf) */
  float lo, hi;
  int64_t y_cb, y_off;        /* conv: y holds y_cb channel blocks per image (0: its own) and this
                               * conv writes blocks y_off.. (concat in place; no residual then) */
} rlx_nn_conv_t;

/* y = act(conv(x, w) + bias + res). x is NCHW16c (cbi 16) or NCHW (cbi 1); w packed by
 * rlx_nn_conv_pack_weight with the same v and cbi; bias [OCb*16] or NULL; res NULL or an
 * NCHW16c tensor of y's shape; y NCHW16c. Runs on the OpenMP threads. Returns 0, or -1 when
 * the per-thread scratch could not be allocated. */
int rlx_nn_conv2d_nchwc(const rlx_nn_conv_t* p, const float* x, const float* w, const float* bias,
                        const float* res, float* y);

/* y = dw(act(conv(x, w) + bias)) without storing the first convolution's output: p is
 * that convolution (any window; no residual; y_cb/y_off unused), q a 3x3 depthwise
 * convolution over its output (q->h, q->w = p->oh, p->ow; q->ic = p->oc; stride 1 or 2,
 * dilation 1, q->w <= 512; its own bias bd and clip; no residual) with weight wd packed by
 * rlx_nn_dw_pack_weight; y NCHW16c [N, OCb, q->oh, q->ow, 16]. Returns 0, or -1 when the
 * scratch could not be allocated. */
int rlx_nn_conv2d_dw_nchwc(const rlx_nn_conv_t* p, const rlx_nn_conv_t* q, const float* x, const float* w,
                           const float* bias, const float* wd, const float* bd, float* y);
/* One output row of such a depthwise convolution: xr the three input rows of its window
 * (NULL: a row outside the image, read as zeros), wb the block's 9 weight vectors, bias its
 * 16 values or NULL. */
void rlx_nn_dw3_row(const rlx_nn_conv_t* p, const float* const xr[3], const float* wb, const float* bias, float* yr);

/* y = act(conv1x1(dw(x)) + bias + res) without storing the depthwise output: q is a 3x3
 * depthwise convolution as in rlx_nn_conv2d_dw_nchwc (weight wd, bias bd, its own clip; no
 * residual), p a 1x1 stride-1 convolution over its output (p->ic = q->oc, p->h, p->w =
 * q->oh, q->ow; no concat offset) with weight w packed by rlx_nn_conv_pack_weight (cbi 16),
 * bias and residual res (NULL or y's shape); y NCHW16c [N, OCb, q->oh, q->ow, 16]. Returns
 * 0, or -1 when the scratch could not be allocated. */
int rlx_nn_dwconv_conv_nchwc(const rlx_nn_conv_t* q, const rlx_nn_conv_t* p, const float* x, const float* wd,
                             const float* bd, const float* w, const float* bias, const float* res, float* y);

/* The same convolution by Winograd F(m x m, 3x3), m = 2 or 4, for 3x3 windows with stride 1
 * and dilation 1 over an NCHW16c input: tiles of m x m outputs, (m+2)^2 batched GEMMs on
 * the same register tiles as the direct kernel, the output transform fused with the
 * epilogue. u is the transformed weight of rlx_nn_winograd_pack_weight (same v and m).
 * Returns 0, or -1 when the per-thread buffers could not be allocated. */
int rlx_nn_conv2d_winograd_nchwc(const rlx_nn_conv_t* p, int m, const float* x, const float* u, const float* bias,
                                 const float* res, float* y);
/* U = G g G^T of an OIHW 3x3 weight, packed [(m+2)^2, OG, ICb, 16, V*16]
 * (rlx_nn_winograd_packed_numel floats). */
int64_t rlx_nn_winograd_packed_numel(int64_t oc, int64_t ic, int m);
/* Bytes of the one buffer (rlx_nn_thread_buffer) that the staged form of the Winograd kernel
 * takes for a layer run on `threads` threads (every tile's transformed input and GEMM
 * result), or 0 when the layer runs in the chunked form (per-participant scratch of
 * rlx_nn_parallel). */
int64_t rlx_nn_winograd_staged_bytes(int m, int64_t icb, int64_t ocb, int64_t oh, int64_t ow, int threads);
void rlx_nn_winograd_pack_weight(const float* w, int64_t oc, int64_t ic, int64_t v, int m, float* dst);

/* Depthwise (groups = channels, one filter per channel): x, res, y NCHW16c, w packed by
 * rlx_nn_dw_pack_weight. */
void rlx_nn_dwconv2d_nchwc(const rlx_nn_conv_t* p, const float* x, const float* w, const float* bias,
                           const float* res, float* y);

/* Packs an OIHW weight [oc, ic, kh, kw] into dst (rlx_nn_conv_packed_numel floats). */
int64_t rlx_nn_conv_packed_numel(int64_t oc, int64_t ic, int64_t kh, int64_t kw, int64_t cbi);
void rlx_nn_conv_pack_weight(const float* w, int64_t oc, int64_t ic, int64_t kh, int64_t kw, int64_t cbi, int64_t v,
                             float* dst);
/* Packs a depthwise weight [c, 1, kh, kw] into dst [Cb, kh, kw, 16]. */
void rlx_nn_dw_pack_weight(const float* w, int64_t c, int64_t kh, int64_t kw, float* dst);

/* Max pool over NCHW16c (positions outside the image are ignored, as ONNX and PyTorch do;
 * ceil_mode only changes oh/ow). p->ic is the channel count; kh/kw the window. */
void rlx_nn_max_pool2d_nchwc(const rlx_nn_conv_t* p, const float* x, float* y);
/* Mean over H and W: x [N, Cb, H, W, 16] → y [N, Cb, 1, 1, 16]. */
void rlx_nn_global_mean_nchwc(int64_t n, int64_t cb, int64_t hw, const float* x, float* y);

/* Layout transforms: x [N, C, H, W] → y [N, ceil(C/16), H, W, 16] (padding zero), and back. */
void rlx_nn_nchw_to_nchwc(int64_t n, int64_t c, int64_t hw, const float* x, float* y);
void rlx_nn_nchwc_to_nchw(int64_t n, int64_t c, int64_t hw, const float* x, float* y);


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

#endif
