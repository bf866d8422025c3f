/* The build layer: above the driver (src/driver/) and the code emitters (src/codegen/), it
 * turns their C into shared objects and models — the C compiler, its flags for the target,
 * the kernel cache — and installs compiled constant folding in the pass context of what it
 * builds (the passes below it never call up).
 *
 * The C compiler for a target: the pass context's compiler words, else the target's cross
 * compiler when the target's machine is not the host's (aarch64-linux-gnu-gcc for an aarch64
 * target on x86-64: $CC names the host's compiler), else $CC, else cc;
 * then rlx's fixed flags, then the target's -march/-mtune (rlx_target_cc_flags), placed
 * after the user's words so that the target decides the instruction set. A compiled object
 * is cached under the hash of the source, every word of the command, the target's canonical
 * text and the compiler's version and machine: an object built for another target or by
 * another compiler is never served.
 */
#ifndef RLX_BUILD_BUILD_H
#define RLX_BUILD_BUILD_H

#include "../ir/ir.h"
#include "../tir/tir.h"
#include "rlx/runtime.h"

enum { RLX_CC_MAX_ARGS = 64 };

/* One compiler command: argv[0 .. n) are the compiler's words, the fixed flags and the
 * target's flags (the caller appends inputs, outputs and -shared / -c). */
typedef struct {
  char* store;                   /* heap: the words' text */
  char* argv[RLX_CC_MAX_ARGS];
  int n;
  int n_words;                   /* of which the compiler's own */
  const rlx_target_t* target;
  uint64_t hash;                 /* words, flags, target text, compiler version */
  bool libmvec;                  /* the compiler's libc has libmvec (glibc's vector math) */
} rlx_cc_t;

/* The command that compiles generated C for target t (NULL: the context's) with the
 * context's compiler; `lang` "c" (generated kernels: -O3 -fPIC -fopenmp -std=gnu11 ...) or
 * "link" (only the compiler's words and the target's flags). NOT_FOUND when the compiler
 * cannot be run (naming it, and the package for a cross compiler). */
RLX_MUST_USE rlx_status_t* rlx_cc_init(rlx_ctx_t* ctx, const rlx_target_t* t, const char* lang, rlx_cc_t* out);
void rlx_cc_free(rlx_cc_t* c);
/* The context's kernel cache directory (heap string). */
char* rlx_cc_cache_dir(const rlx_ctx_t* ctx);
/* Whether generated C stays beside its object (the context's keep_source or $RLX_KEEP_SOURCE). */
bool rlx_cc_keep_source(const rlx_ctx_t* ctx);

/* Compiles C source into a shared object for the context's target at *out_path (heap),
 * reusing the cached object when the key matches. Compiler errors are returned with the
 * compiler's output (the failing source is left in the cache as <hash>.c). */
RLX_MUST_USE rlx_status_t* rlx_compile_c(rlx_ctx_t* ctx, const char* src, char** out_path);
/* The same for target t. */
RLX_MUST_USE rlx_status_t* rlx_compile_c_for(rlx_ctx_t* ctx, const rlx_target_t* t, const char* src, char** out_path);

/* Runs the driver's TIR stage and codegen_c on the module's PrimFuncs (Relax functions are
 * left alone), compiles the C and loads it. The library exports one packed function per
 * PrimFunc. The context's target must run here (rlx_target_check_host). */
RLX_MUST_USE rlx_status_t* rlx_build_module(rlx_ctx_t* ctx, rlx_module_t* m, rlx_library_t** out_lib);

/* Runs one PrimFunc as compiled code for the host, whatever the context's target (constant
 * folding runs at compile time, here): args in parameter order, DLTensors for buffers and
 * 0-d int64 tensors for scalar parameters. The pass context's fold runner. */
RLX_MUST_USE rlx_status_t* rlx_build_run_func(rlx_ctx_t* ctx, const rlx_tir_func_t* f, DLTensor** args, int n);

/* Installs rlx_build_run_func as ctx's fold runner (when none is set): what every build entry
 * point does before it runs the driver, so large constants fold compiled. */
void rlx_build_use_compiled_folds(rlx_ctx_t* ctx);

#endif
