/* Relax passes and the pass manager.
 *
 * A pass takes a module and returns a new module (the input is left as it is; functions it
 * does not change are shared). Each pass lives in its own file named after it, which starts
 * with its contract (what it requires, what it produces). The order is the driver's one
 * table (src/driver/driver.c: Relax stage, TIR stage, codegen); rlx_pipeline_run there
 * checks well-formedness after every pass when asked and can stop after any pass for
 * printing (`rlx print FILE --after PASS`).
 */
#ifndef RLX_TRANSFORM_PASS_H
#define RLX_TRANSFORM_PASS_H

#include "../relax/relax.h"
#include "../tir/schedule/schedule.h"
#include "dlpack/dlpack.h"

typedef rlx_status_t* (*rlx_pass_fn_t)(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out);

typedef struct {
  const char* name;
  rlx_pass_fn_t run;
} rlx_pass_t;

/* ---- the passes, in pipeline order ---- */
/* Quantized (QDQ) regions onto the int8 NCHWc kernels: DQ -> conv / add / pool / mean /
 * concat -> Q become integer calls, activations stay uint8 between them. */
RLX_MUST_USE rlx_status_t* rlx_pass_quantize_integer(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out);
/* Convolutional networks onto the NCHWc kernels (conv + epilogue, pools, means, concat). */
RLX_MUST_USE rlx_status_t* rlx_pass_layout_nchwc(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out);
/* High-level ops (R.add, R.matmul, R.nn.conv2d ...) → R.call_tir of TE PrimFuncs (registry). */
RLX_MUST_USE rlx_status_t* rlx_pass_legalize_ops(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out);
/* call_tir whose args are all constants → evaluated at compile time into a Constant. */
RLX_MUST_USE rlx_status_t* rlx_pass_fold_constants(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out);
/* TVM's FuseOps: groups call_tirs (elementwise/injective consumers into their producers),
 * each group a private Relax function with "Primitive": 1 that the caller calls (fuse_ops.c). */
RLX_MUST_USE rlx_status_t* rlx_pass_fuse_ops(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out);
/* TVM's FuseTIR: each grouped ("Primitive") Relax function becomes one PrimFunc of the same
 * name (rlx_fuse_tir), its calls call_tirs of it; the grouped functions, and PrimFuncs only
 * they called, are gone (fuse_tir.c). A module without grouped functions is returned as is. */
RLX_MUST_USE rlx_status_t* rlx_pass_fuse_tir(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out);
/* Applies the default CPU schedule to every unscheduled PrimFunc. */
RLX_MUST_USE rlx_status_t* rlx_pass_default_schedule(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out);
/* The blocks default_schedule left without their real schedule in one PrimFunc. */
typedef struct {
  const char* func;
  rlx_sched_report_t report;
} rlx_sched_func_report_t;
/* rlx_pass_default_schedule, also listing (arena array, *out_n entries; both may be NULL)
 * every PrimFunc with blocks left unscheduled and why. */
RLX_MUST_USE rlx_status_t* rlx_pass_default_schedule_report(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out, int* out_n,
                                                            rlx_sched_func_report_t** out_reports);
/* call_tir / call_dps_packed → explicit R.builtin.alloc_tensor + DPS call. */
RLX_MUST_USE rlx_status_t* rlx_pass_call_tir_rewrite(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out);
/* Static memory planning: alloc_tensor → storages reused across tensors with disjoint
 * lifetimes (symbolic sizes included). */
RLX_MUST_USE rlx_status_t* rlx_pass_plan_memory(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out);
/* Shape computations, match_cast and argument checks → VM builtin calls. */
RLX_MUST_USE rlx_status_t* rlx_pass_lower_shapes(rlx_ctx_t* ctx, rlx_module_t* in, rlx_module_t** out);

/* The Relax stage's input checks, run before its first pass (pipeline.c): no constant whose
 * data was left out when the module was printed, no static tensor shape whose elements or
 * bytes overflow int64; then a function returning a dataflow var its block publishes
 * returns the published var. *out is m or a copy with such functions changed. */
RLX_MUST_USE rlx_status_t* rlx_pipeline_prepare(rlx_ctx_t* ctx, rlx_module_t* m, rlx_module_t** out);

#endif
