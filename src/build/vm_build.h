/* Relax → VM: bytecode generation (vm_codegen.c) and packaging a compiled model as one
 * shared object (vm_build.c).
 *
 * A compiled model is one .so holding the generated C kernels (packed functions named
 * rlx_codegen_symbol(prim func name)), any extern object files given in the options, and
 * the serialized executable embedded with an assembler `.incbin` as the exported symbols
 *   const uint8_t rlx_vm_executable[];  const uint64_t rlx_vm_executable_size;
 * Load it with rlx_vm_load (include/rlx/vm.h).
 */
#ifndef RLX_BUILD_VM_BUILD_H
#define RLX_BUILD_VM_BUILD_H

#include "../codegen/vm_codegen.h"
#include "build.h"
#include "externs.h"

typedef struct {
  /* Relax pipeline: NULL = all passes (rlx_pipeline_run); "none" = the module is already
   * lowered; or a comma-separated list of pass names to run in pipeline order
   * (e.g. "lower_shapes", for modules built directly in call_tir form). */
  const char* passes;
  bool check_well_formed; /* check the module after every pass */
  /* Libraries (--lib) the model will be loaded with: when n_libs > 0 every external name
   * is checked at compile time (as rlx_vm_load will), and a missing one is an error. */
  int n_libs;
  const char* const* libs;
  /* Object files (.o) or static archives linked into the model (extern kernels). */
  int n_objects;
  const char* const* objects;
  /* Externs linked into the model (--extern): objects, archives or C / C++ / CUDA sources,
   * compiled into the cache (externs.h). Every name the module calls is resolved before
   * the kernels are compiled: externs and objects, libs, VM builtins, registry, defer. */
  int n_externs;
  const char* const* externs;
  /* Names promised by the program that loads the model (--defer-extern). */
  int n_defer;
  const char* const* defer;
  bool keep_temps; /* leave the temporary kernels.c / exec.bin / exec.S (debugging) */
} rlx_vm_compile_options_t;

/* Compiles module m into the model shared object out_path: compiles the externs, runs the
 * Relax pipeline per opts->passes, resolves every extern call (a name found nowhere is a
 * NOT_FOUND error naming it, its caller and the places searched), lowers every PrimFunc
 * (default CPU schedule where unscheduled), generates their C (compiled with the flags of
 * rlx_compile_c into an object cached by content hash in the compile cache), generates
 * bytecode, and links kernels + extern objects + the embedded executable with $CC -shared
 * (plus the C++ / CUDA runtime when an extern needs it). Errors name the pass, function
 * or compiler output; no output file is left behind on error. */
RLX_MUST_USE rlx_status_t* rlx_vm_compile(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_vm_compile_options_t* opts,
                                          const char* out_path);

/* The steps of rlx_vm_compile before linking, in memory: pipeline, kernels' C source
 * (*out_kernels_c, heap) and serialized executable (*out_exec, heap, *out_n bytes). */
RLX_MUST_USE rlx_status_t* rlx_vm_build_parts(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_vm_compile_options_t* opts,
                                              char** out_kernels_c, void** out_exec, size_t* out_n);

/* The extern set of opts (objects + externs), compiled and checked for duplicate symbols.
 * Free with rlx_extern_set_free. */
RLX_MUST_USE rlx_status_t* rlx_vm_externs(rlx_ctx_t* ctx, const rlx_vm_compile_options_t* opts, rlx_extern_set_t* out_set);

/* The names m (before or after the pipeline) calls that are found nowhere (arena array),
 * resolved as rlx_vm_compile does; opts->passes decides the pipeline run first. */
RLX_MUST_USE rlx_status_t* rlx_vm_unresolved(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_vm_compile_options_t* opts,
                                             const char*** out_names, int* out_n);

#endif
