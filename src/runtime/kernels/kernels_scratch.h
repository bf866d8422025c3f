/* Scratch sizes of the runtime kernels, for exporters that run them without the kernels'
 * thread pool (Model Library Format: standalone/nn_pool.c carves every kernel's scratch out
 * of the AOT workspace instead of the heap). Not shipped in archives. */
#ifndef RLX_RUNTIME_KERNELS_KERNELS_SCRATCH_H
#define RLX_RUNTIME_KERNELS_KERNELS_SCRATCH_H

#include <stdint.h>

#include "nn_tiles.h"
#include "rlx/abi.h"

/* Bytes of scratch one call of the kernel registered as `name` needs when at most `threads`
 * participants run it with the register tiles `tiles` (the target's row, rlx_nn_tiles), for
 * the packed arguments (a, codes, n) of that call: only the
 * tensors' shapes and the integer arguments are read (data pointers may be NULL). The
 * bound follows the buffers of conv2d_nchwc.c (the padded image of rlx_nn_thread_buffer,
 * the per-participant scratch of rlx_nn_parallel, each rounded up to 64 bytes); 0 for
 * kernels without scratch; -1 when the arguments do not follow the kernel's convention. */
int64_t rlx_nn_scratch_bytes(const char* name, const rlx_value_t* a, const int* codes, int n, int threads,
                             const rlx_nn_tiles_t* tiles);

#endif
