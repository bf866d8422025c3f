/* Code generation: lowered TIR → C source (compiling and loading it is the build layer's,
 * src/build/build.h).
 *
 * Per PrimFunc `name` the C source has:
 *   static int rlx_kernel_<name>(float* restrict A, ..., int64_t n, ...)  -- plain pointers
 *   int <symbol>(rlx_value_t* args, int* type_codes, int nargs, rlx_value_t* ret,
 *                int* ret_code, void* resource)                          -- packed ABI wrapper
 * where <symbol> = rlx_codegen_symbol(name). The wrapper checks nargs, type codes, ndim, dtype,
 * shape (constants must match; symbolic dims bind vars, repeated vars must agree) and
 * compactness, and reports errors with RLXAPISetLastError naming the function and parameter.
 * Every library also exports `void __rlx_set_num_threads(int)`.
 *
 * Input: lowered TIR (rlx_tir_lower): no blocks, 1-D accesses to flat buffers sharing the data
 * var of a parameter or an ALLOCATE, vector expressions from rlx_tir_vectorize_loops. A local
 * ALLOCATE whose accesses all have constant indices (unrolled register tiles) becomes separate
 * C variables, one per vector chunk. The source is self-contained (GNU C: vector extensions,
 * statement expressions; no rlx headers) and needs, at load time, RLXAPISetLastError from
 * librlx_runtime; it uses OpenMP and, on glibc x86-64, the libmvec variant of the context's
 * target (SSE, AVX2 or AVX-512). Vector types are at most the target's native width.
 */
#ifndef RLX_CODEGEN_H
#define RLX_CODEGEN_H

#include "../ir/ir.h"
#include "../tir/tir.h"
#include "rlx/runtime.h"


/* C source for lowered PrimFuncs (output of rlx_tir_lower). Heap string in *out_src. */
RLX_MUST_USE rlx_status_t* rlx_codegen_c(rlx_ctx_t* ctx, int n, rlx_tir_func_t* const* funcs, char** out_src);

/* Variants for sources that leave rlx (Model Library Format). */
typedef struct {
  /* No dlopen and no __rlx_set_num_threads; RLXAPISetLastError is a weak no-op the program
   * may replace: the source needs only libc and libm (and OpenMP when compiled with it). */
  bool standalone;
  /* NULL: kernels are `static int rlx_kernel_<name>`; else exported `int <prefix><name>`
   * (plain pointers, then scalar params, then shape variables: rlx_codegen_kernel_vars). */
  const char* kernel_prefix;
  bool no_wrappers; /* omit the packed-ABI wrappers */
  /* C text appended at the end (the AOT entry point can see the static helpers). */
  const char* append;
  /* No heap: every temporary a kernel would allocate outside its parallel loops is carved
   * from a scratch buffer passed as the kernel's last parameter `uint8_t* rlx_kws`; its
   * size (a PrimExpr over the kernel's shape variables) goes to out_kernel_workspace[i]
   * for funcs[i] (array of n, filled). Requires no_wrappers. */
  bool kernel_workspace;
  rlx_expr_t** out_kernel_workspace;
} rlx_codegen_c_options_t;
RLX_MUST_USE rlx_status_t* rlx_codegen_c_ex(rlx_ctx_t* ctx, int n, rlx_tir_func_t* const* funcs,
                                            const rlx_codegen_c_options_t* opts, char** out_src);

/* The C name of a kernel in the source of rlx_codegen_c_ex (arena). */
const char* rlx_codegen_kernel_name(rlx_ctx_t* ctx, const rlx_codegen_c_options_t* opts, const char* name);

/* The shape variables a lowered PrimFunc's plain kernel takes after its parameters, in
 * order (at most max; returns how many there are). */
int rlx_codegen_kernel_vars(const rlx_tir_func_t* f, rlx_var_t** out, int max);

#endif
