/* Code generation: lowered TIR → C source; compiling C into a shared object (cached by
 * content hash) and loading it through the runtime.
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
 * librlx_runtime; it uses OpenMP and, on glibc x86-64 with AVX-512, libmvec.
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

typedef struct {
  const char* cc;        /* NULL: $CC or "cc" */
  const char* cache_dir; /* NULL: $RLX_CACHE_DIR or $HOME/.cache/rlx or /tmp/rlx-cache-$UID */
  bool keep_source;      /* leave the .c next to the .so in the cache */
} rlx_compile_options_t;

/* Compiles C source into a shared object at *out_path (heap string), reusing the cached
 * object when the hash of (source, compiler, flags) matches. Flags: -O3 -march=native
 * -fPIC -shared -fopenmp. Compiler errors are returned with the compiler's output (the failing
 * source is left in the cache as <hash>.c). $RLX_KEEP_SOURCE=1 keeps every source (debugging). */
RLX_MUST_USE rlx_status_t* rlx_compile_c(const char* src, const rlx_compile_options_t* opts, char** out_path);

/* The C compiler configuration every compile step shares (build.c), so object files and
 * shared objects are built alike. rlx_cc_flags: the fixed flags of an object compile
 * (-O3 -march=native -fPIC -fopenmp ...; a shared object adds -shared). rlx_cc_words: cc
 * (NULL: $CC or "cc") split into words ("ccache gcc"), at most max; *out_copy owns them.
 * rlx_cc_cache_dir: dir, else $RLX_CACHE_DIR, else ~/.cache/rlx, else /tmp/rlx-cache-UID
 * (heap string). rlx_cc_have_libmvec: whether the compiler finds glibc's libmvec. */
const char* const* rlx_cc_flags(int* out_n);
int rlx_cc_words(const char* cc, char** words, int max, char** out_copy);
char* rlx_cc_cache_dir(const char* dir);
bool rlx_cc_have_libmvec(char* const* words, int nw);
/* $RLX_KEEP_SOURCE set (and not "0"): generated sources stay beside their objects (debugging). */
bool rlx_cc_keep_source(void);

/* Runs the driver's TIR stage and codegen_c on the module's PrimFuncs (src/driver/driver.h;
 * Relax functions are left alone), compiles the C and loads it. The library exports one
 * packed function per PrimFunc. */
RLX_MUST_USE rlx_status_t* rlx_build_module(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_compile_options_t* opts,
                                            rlx_library_t** out_lib);

/* Runs one PrimFunc as compiled code (built as rlx_build_module does, cached by source
 * hash): args in parameter order, DLTensors for buffers and 0-d int64 tensors for scalar
 * parameters. The runner fold_constants uses for large constant computations
 * (rlx_fold_set_runner). */
RLX_MUST_USE rlx_status_t* rlx_build_run_func(rlx_ctx_t* ctx, const rlx_tir_func_t* f, DLTensor** args, int n);

#endif
