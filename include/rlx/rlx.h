/* rlx — public compiler API (C11).
 *
 * Build tensor programs with tensor expressions (TE), turn them into TensorIR PrimFuncs
 * (TVM's te.create_prim_func), print/parse them as TVMScript, schedule them, and compile
 * them into a loaded library of packed functions (see runtime.h to call them).
 *
 * Ownership: every compiler object (expressions, tensors, functions, modules, schedules)
 * lives in an rlx_ctx_t and is freed with it by rlx_ctx_free; none is freed alone. Handles
 * are opaque. Strings returned as `char*` are heap-allocated and the caller frees them.
 * Fallible calls return rlx_status_t* (NULL = success; see status.h).
 */
#ifndef RLX_RLX_H
#define RLX_RLX_H

#include <stdbool.h>
#include <stdint.h>

#include "rlx/dtype.h"
#include "rlx/runtime.h"
#include "rlx/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rlx_ctx rlx_ctx_t;
typedef struct rlx_expr rlx_expr_t;
typedef struct rlx_var rlx_var_t;
typedef struct rlx_iter_var rlx_iter_var_t;
typedef struct rlx_te_tensor rlx_te_tensor_t;
typedef struct rlx_tir_func rlx_tir_func_t;
typedef struct rlx_module rlx_module_t;
typedef struct rlx_schedule rlx_schedule_t;

#define RLX_DTYPE(code, bits, lanes) ((rlx_dtype_t){(uint8_t)(code), (uint8_t)(bits), (uint16_t)(lanes)})
#define RLX_FLOAT32 RLX_DTYPE(RLX_DT_FLOAT, 32, 1)
#define RLX_FLOAT64 RLX_DTYPE(RLX_DT_FLOAT, 64, 1)
#define RLX_INT32 RLX_DTYPE(RLX_DT_INT, 32, 1)
#define RLX_INT64 RLX_DTYPE(RLX_DT_INT, 64, 1)
#define RLX_BOOL RLX_DTYPE(RLX_DT_UINT, 1, 1)

/* ---- context ---- */
rlx_ctx_t* rlx_ctx_create(void);
void rlx_ctx_free(rlx_ctx_t* ctx);

/* ---- expressions (PrimExpr) ----
 * Integer constants, float constants, symbolic variables (e.g. rlx_ir_var(ctx, "n", RLX_INT64)
 * for a dynamic dimension) and arithmetic. Operands of a binary op must have the same dtype
 * (a constant adopts the other side's). */
rlx_expr_t* rlx_ir_int(rlx_ctx_t* ctx, rlx_dtype_t t, int64_t v);
rlx_expr_t* rlx_ir_i64(rlx_ctx_t* ctx, int64_t v);
rlx_expr_t* rlx_ir_i32(rlx_ctx_t* ctx, int64_t v);
rlx_expr_t* rlx_ir_float(rlx_ctx_t* ctx, rlx_dtype_t t, double v);
rlx_var_t* rlx_ir_var(rlx_ctx_t* ctx, const char* name, rlx_dtype_t t);
rlx_expr_t* rlx_ir_var_expr(rlx_var_t* v);
rlx_expr_t* rlx_ir_add(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);
rlx_expr_t* rlx_ir_sub(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);
rlx_expr_t* rlx_ir_mul(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);
rlx_expr_t* rlx_ir_div(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);
rlx_expr_t* rlx_ir_floordiv(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);
rlx_expr_t* rlx_ir_floormod(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);
rlx_expr_t* rlx_ir_min(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);
rlx_expr_t* rlx_ir_max(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);
rlx_expr_t* rlx_ir_eq(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);
rlx_expr_t* rlx_ir_ne(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);
rlx_expr_t* rlx_ir_lt(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);
rlx_expr_t* rlx_ir_le(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);
rlx_expr_t* rlx_ir_gt(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);
rlx_expr_t* rlx_ir_ge(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);
rlx_expr_t* rlx_ir_and(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);
rlx_expr_t* rlx_ir_or(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);
rlx_expr_t* rlx_ir_not(rlx_ctx_t* ctx, rlx_expr_t* a);
rlx_expr_t* rlx_ir_select(rlx_ctx_t* ctx, rlx_expr_t* c, rlx_expr_t* t, rlx_expr_t* f);
rlx_expr_t* rlx_ir_cast(rlx_ctx_t* ctx, rlx_dtype_t t, rlx_expr_t* v);
/* Math intrinsic by name: "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "fabs",
 * "pow", "floor", "ceil", "round", ... (printed as T.exp, ...). */
rlx_expr_t* rlx_ir_call(rlx_ctx_t* ctx, rlx_dtype_t t, const char* op, int n, rlx_expr_t* const* args);

/* ---- tensor expressions (TE) ---- */
typedef rlx_expr_t* (*rlx_te_fcompute_t)(rlx_ctx_t* ctx, rlx_var_t* const* indices, void* user);
rlx_te_tensor_t* rlx_te_placeholder(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_dtype_t dtype,
                                    const char* name);
/* compute: out[indices] = f(indices); axis vars are named i, j, k, ... */
rlx_te_tensor_t* rlx_te_compute(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_te_fcompute_t f,
                                void* user, const char* name, const char* tag);
/* The same with explicit axis names (one per dimension). */
rlx_te_tensor_t* rlx_te_compute_named(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_te_fcompute_t f,
                                      void* user, const char* name, const char* tag,
                                      const char* const* axis_names);
rlx_expr_t* rlx_te_load(rlx_ctx_t* ctx, rlx_te_tensor_t* t, int n, rlx_expr_t* const* indices);
rlx_iter_var_t* rlx_te_reduce_axis(rlx_ctx_t* ctx, rlx_expr_t* min, rlx_expr_t* extent, const char* name);
rlx_expr_t* rlx_te_axis_expr(rlx_iter_var_t* axis);
rlx_expr_t* rlx_te_sum(rlx_ctx_t* ctx, rlx_expr_t* source, int n_axis, rlx_iter_var_t* const* axis);
rlx_expr_t* rlx_te_max(rlx_ctx_t* ctx, rlx_expr_t* source, int n_axis, rlx_iter_var_t* const* axis);
rlx_expr_t* rlx_te_min(rlx_ctx_t* ctx, rlx_expr_t* source, int n_axis, rlx_iter_var_t* const* axis);
/* TVM's te.create_prim_func: args become the params in order, other computes become
 * intermediate buffers. */
rlx_status_t* rlx_te_create_prim_func(rlx_ctx_t* ctx, int n_args, rlx_te_tensor_t* const* args, const char* name,
                                      rlx_tir_func_t** out);

/* ---- modules and TVMScript ---- */
rlx_module_t* rlx_module_create(rlx_ctx_t* ctx);
/* Adds (or replaces) a PrimFunc under its own name. */
void rlx_module_add_prim_func(rlx_module_t* m, rlx_tir_func_t* f);
/* The PrimFunc called name, or NULL. */
rlx_tir_func_t* rlx_module_get_prim_func(rlx_module_t* m, const char* name);
rlx_status_t* rlx_script_parse(rlx_ctx_t* ctx, const char* text, const char* filename, rlx_module_t** out);
char* rlx_script_print_module(const rlx_module_t* m);
char* rlx_script_print_tir_func(const rlx_tir_func_t* f);

/* ---- schedules (TVM's tir.Schedule; loops are named by their loop var) ---- */
rlx_schedule_t* rlx_schedule_create(rlx_ctx_t* ctx, const rlx_tir_func_t* f);
rlx_tir_func_t* rlx_schedule_func(const rlx_schedule_t* s);
rlx_status_t* rlx_sched_get_loops(rlx_schedule_t* s, const char* block, rlx_var_t*** out_loops, int* out_n);
rlx_status_t* rlx_sched_split(rlx_schedule_t* s, rlx_var_t* loop, int n, const int64_t* factors,
                              rlx_var_t** out_loops);
rlx_status_t* rlx_sched_fuse(rlx_schedule_t* s, int n, rlx_var_t* const* loops, rlx_var_t** out_loop);
rlx_status_t* rlx_sched_reorder(rlx_schedule_t* s, int n, rlx_var_t* const* loops);
rlx_status_t* rlx_sched_parallel(rlx_schedule_t* s, rlx_var_t* loop);
rlx_status_t* rlx_sched_vectorize(rlx_schedule_t* s, rlx_var_t* loop);
rlx_status_t* rlx_sched_unroll(rlx_schedule_t* s, rlx_var_t* loop);
rlx_status_t* rlx_sched_compute_inline(rlx_schedule_t* s, const char* block);
rlx_status_t* rlx_sched_reverse_compute_inline(rlx_schedule_t* s, const char* block);
rlx_status_t* rlx_sched_compute_at(rlx_schedule_t* s, const char* block, rlx_var_t* loop);
rlx_status_t* rlx_sched_reverse_compute_at(rlx_schedule_t* s, const char* block, rlx_var_t* loop);
rlx_status_t* rlx_sched_cache_write(rlx_schedule_t* s, const char* block, int write_index, const char* scope,
                                    const char** out_block);
rlx_status_t* rlx_sched_cache_read(rlx_schedule_t* s, const char* block, int read_index, const char* scope,
                                   const char** out_block);
rlx_status_t* rlx_sched_decompose_reduction(rlx_schedule_t* s, const char* block, rlx_var_t* loop,
                                            const char** out_init_block);
/* The automatic CPU schedule that builds apply to unscheduled functions. */
rlx_status_t* rlx_tir_default_schedule(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out);

/* ---- building ---- */
/* Lowers every PrimFunc (default schedule where not scheduled), generates C, compiles it with
 * $CC (cached by content hash) and loads it. Free the library with rlx_library_free. */
rlx_status_t* rlx_build(rlx_ctx_t* ctx, rlx_module_t* m, rlx_library_t** out_lib);
/* Symbol of the packed function for the PrimFunc called name in a built library. */
const char* rlx_codegen_symbol(rlx_ctx_t* ctx, const char* name);

/* ---- compiling Relax modules with external code ----
 * A build configuration (in ctx's arena) lists the externs linked into the model (objects
 * .o, archives .a, sources .c / .cc .cpp .cxx / .cu compiled with $CC / $CXX / $NVCC and
 * rlx_config_include_dir()), the libraries the model will be loaded with, and the names
 * the loading program promises (deferred). Every name the module calls through
 * R.call_packed / R.call_dps_packed is resolved when it is built: externs, libraries, VM
 * builtins, registry, deferred names; a name found nowhere is a NOT_FOUND error naming it,
 * its caller and every place searched. */
#define RLX_VERSION "0.2.0"
typedef struct rlx_build_config rlx_build_config_t;
rlx_build_config_t* rlx_build_config_create(rlx_ctx_t* ctx);
/* Adds an extern; INVALID_ARGUMENT for an unknown extension, NOT_FOUND for a missing file
 * (a source that does not compile fails the build, with the compiler's output). */
rlx_status_t* rlx_build_config_add_extern(rlx_build_config_t* c, const char* path);
rlx_status_t* rlx_build_config_add_lib(rlx_build_config_t* c, const char* path);
rlx_status_t* rlx_build_config_defer(rlx_build_config_t* c, const char* name);
/* Compiles a module with Relax functions into the model shared object out_so (load it with
 * rlx_vm_load, include/rlx/vm.h). c may be NULL (no externs). */
rlx_status_t* rlx_relax_build(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_build_config_t* c, const char* out_so);
/* The names m calls that c does not resolve (*out_names in the arena, *out_n of them). */
rlx_status_t* rlx_relax_unresolved(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_build_config_t* c,
                                   const char*** out_names, int* out_n);

/* ---- Model Library Format (TVM's MLF, version 7) ----
 * Writes the tar archive out_tar: metadata.json, codegen/host/src/ C files (plain C11 needing only
 * libc and libm), codegen/host/include/tvmgen_NAME.h, src/relax.txt, src/tir-cpu.txt,
 * parameters/NAME.params, codegen/host/lib/ (extern objects) and runtime/src/ (runtime
 * kernel sources) when needed. style "full-model" (default; a Relax function "main", or the
 * only one) gives TVM's AOT interface tvmgen_NAME_run (static shapes) or
 * tvmgen_NAME_run_dynamic + tvmgen_NAME_workspace_size (symbolic shapes); "operator" exports
 * the PrimFuncs (packed ABI + plain-pointer entries). UNSUPPORTED names what the exporter
 * cannot express; on any error no archive is left behind. */
typedef struct {
  const char* style;               /* "full-model" (NULL) or "operator" */
  const char* name;                /* module name, NULL = "default" */
  const rlx_build_config_t* build; /* externs (objects go to codegen/host/lib), may be NULL */
  int n_output_names;              /* names of the outputs (struct tvmgen_NAME_outputs members); */
  const char* const* output_names; /* 0: "output", or "output0", "output1", ... for a tuple */
} rlx_mlf_options_t;
rlx_status_t* rlx_export_mlf(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_mlf_options_t* opts, const char* out_tar);

/* Where rlx's headers (rlx/ headers, tvm/runtime/ headers) and librlx_runtime are (static strings). */
const char* rlx_config_include_dir(void);
const char* rlx_config_lib_dir(void);

#ifdef __cplusplus
}
#endif
#endif
