/* The compile flow, top to bottom, in one place (driver.c), with the one table of passes:
 *
 *   import        TVMScript (script/) or ONNX (frontend/onnx/)                → IRModule
 *     │
 *   Relax stage   quantize_integer → layout_nchwc → legalize_ops → fold_constants → fuse_ops → fuse_tir
 *     │           → default_schedule → call_tir_rewrite → plan_memory → lower_shapes
 *     │           (module → module; skipped for a module of PrimFuncs only)
 *   TIR stage     [default_schedule of what is still unscheduled] → lower_blocks
 *     │           → flatten_buffers → unroll_loops → vectorize_loops → simplify
 *     │           (every PrimFunc of the module, verified after each pass)
 *   codegen       codegen_c: the kernels' C source; then VM bytecode + link (build/vm_build.c),
 *                 a loaded library (build/build.c) or AOT C (export/mlf.c)
 *
 * Every pass name is unique and `rlx print FILE --after NAME` stops after any of them
 * (rlx_module_print_after), NAME rlx's or TVM's (FuseOps, FuseTIR ...); "codegen_c" prints
 * the generated C. default_schedule is one
 * entry with two granularities: in a Relax module it runs as a module pass (weights packed
 * for the schedule), and the TIR stage schedules each PrimFunc still unscheduled (a module
 * of PrimFuncs only, or one built directly in call_tir form); whether a function gets it
 * is decided by rlx_tir_func_needs_default_schedule alone.
 */
#ifndef RLX_DRIVER_H
#define RLX_DRIVER_H

#include "../transform/tir/transform.h"
#include "../transform/pass.h"

typedef enum { RLX_STAGE_RELAX, RLX_STAGE_TIR, RLX_STAGE_CODEGEN } rlx_stage_t;

typedef rlx_status_t* (*rlx_tir_pass_fn_t)(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out);

typedef struct {
  const char* name;     /* unique */
  const char* tvm_name; /* TVM's name of the pass (NULL: none), accepted as stop_after too */
  rlx_stage_t stage;
  rlx_pass_fn_t relax;   /* the module pass (Relax stage) */
  rlx_tir_pass_fn_t tir; /* the per-PrimFunc pass (TIR stage) */
} rlx_driver_pass_t;

/* The table, in flow order. */
void rlx_driver_passes(const rlx_driver_pass_t** out_passes, int* out_n);

typedef struct {
  bool check_well_formed; /* Relax well-formedness after every Relax pass (TIR is always verified) */
  /* NULL or "all": every pass of both stages; "codegen_c": also the kernels' C; else the
   * name of the pass to stop after. */
  const char* stop_after;
  /* Relax stage: NULL = every pass (after the input checks of rlx_pipeline_prepare);
   * "none" = none (the module is lowered already); else a comma-separated list of names
   * run in table order without the input checks (modules built directly in call_tir form). */
  const char* relax_passes;
} rlx_driver_options_t;

typedef struct {
  rlx_module_t* module;   /* after the last pass that ran */
  rlx_module_t* relax;    /* after the Relax stage (what VM and AOT codegen translate) */
  int n_funcs;            /* the lowered PrimFuncs (TIR stage), in module order, each */
  rlx_tir_func_t** funcs; /* named as in the module; arena */
  char* c_source;         /* heap: the kernels' C (stop_after "codegen_c") */
} rlx_driver_result_t;

/* Runs the flow on m as opts say (NULL: everything but codegen_c), for the pass context's
 * target; constants fold compiled when the caller installed a fold runner there (the build
 * layer does). Errors name the pass (and the
 * function); an allocation failure during any stage makes it OUT_OF_MEMORY; an unknown
 * stop_after lists the pass names. */
RLX_MUST_USE rlx_status_t* rlx_driver_run(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_driver_options_t* opts,
                                          rlx_driver_result_t* out);

/* The Relax stage alone as opts->relax_passes says (stop_after ignored): what VM codegen and
 * extern resolution take. */
RLX_MUST_USE rlx_status_t* rlx_driver_relax_stage(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_driver_options_t* opts,
                                                  rlx_module_t** out);
/* The TIR stage alone on every PrimFunc of m (default schedule where needed): *out_module
 * with them lowered, and the lowered functions (arena array, module order, module names). */
RLX_MUST_USE rlx_status_t* rlx_driver_lower_prim_funcs(rlx_ctx_t* ctx, rlx_module_t* m, rlx_module_t** out_module,
                                                       rlx_tir_func_t*** out_funcs, int* out_n);

/* ---- the Relax stage alone ---- */
typedef struct {
  bool check_well_formed; /* run rlx_relax_well_formed after every pass (tests do) */
  const char* stop_after; /* NULL or "all" = run every Relax pass; else a Relax pass name */
} rlx_pipeline_options_t;
/* The input checks, then the Relax passes in order. An unknown stop_after is an error listing
 * the pass names; a pass error is annotated with the pass name. */
RLX_MUST_USE rlx_status_t* rlx_pipeline_run(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_pipeline_options_t* opts,
                                            rlx_module_t** out);

/* ---- the TIR stage alone, on one PrimFunc or every PrimFunc of a module ----
 * Requires: a well-formed PrimFunc (rlx_tir_verify passes). Produces: a function without
 * blocks, with 1-D buffer accesses, unrolled/vectorized loops expanded, expressions
 * simplified; verified after every pass. apply_default_schedule: first the default CPU
 * schedule when rlx_tir_func_needs_default_schedule(f). stop_after: NULL or "all", or
 * "default_schedule" or a TIR pass name (an unknown name is an error listing them). A
 * module keeps its names and order; other functions are carried over unchanged. */
RLX_MUST_USE rlx_status_t* rlx_tir_lower(rlx_ctx_t* ctx, const rlx_tir_func_t* f, bool apply_default_schedule,
                                         rlx_tir_func_t** out);
RLX_MUST_USE rlx_status_t* rlx_tir_lower_until(rlx_ctx_t* ctx, const rlx_tir_func_t* f, bool apply_default_schedule,
                                               const char* stop_after, rlx_tir_func_t** out);
RLX_MUST_USE rlx_status_t* rlx_tir_lower_module(rlx_ctx_t* ctx, rlx_module_t* module, bool apply_default_schedule,
                                                rlx_module_t** out_module);
RLX_MUST_USE rlx_status_t* rlx_tir_lower_module_until(rlx_ctx_t* ctx, rlx_module_t* module, bool apply_default_schedule,
                                                      const char* stop_after, rlx_module_t** out_module);

#endif
