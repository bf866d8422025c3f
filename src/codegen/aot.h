/* Relax → AOT C: one Relax function (after plan_memory) as a plain C entry point with a
 * static memory plan, TVM's AOT interface (tvmgen_NAME_run, struct tvmgen_NAME_inputs /
 * _outputs) and the constants as C arrays. Used by the Model Library Format exporter
 * (src/export/mlf.c); contract and layout in docs/ARCHITECTURE.md, "Model Library Format".
 *
 * Requires the module after the pipeline up to plan_memory (no lower_shapes): bindings are
 * R.memory.alloc_storage / alloc_tensor / kill_*, R.builtin.alloc_tensor (outputs),
 * calls of PrimFuncs in DPS form (optional trailing tir_vars shape), DPS calls of
 * ExternFuncs, Var / Tuple / TupleGetItem / Constant aliases and MatchCasts that bind no new
 * variable. Produces:
 *   - entry_c: C appended after the kernels of rlx_codegen_c_ex (it calls the plain
 *     kernels `opts->kernel_prefix<name>` directly; shape variables come from the
 *     arguments' struct info) — storages are laid out one after the other in one workspace,
 *     each 64-byte aligned; outputs are written in place (the R.builtin.alloc_tensor that
 *     becomes output k is outputs->NAME_k; anything else returned is copied);
 *   - header: codegen/host/include/tvmgen_NAME.h;
 *   - consts_c: every Constant as `const uint8_t tvmgen_NAME_cK[]` (64-byte aligned, a
 *     string literal: compilers read those much faster than initializer lists).
 * Static shapes give tvmgen_NAME_run (workspace: a static array of
 * TVMGEN_NAME_WORKSPACE_SIZE bytes); symbolic shapes give struct tvmgen_NAME_shape_vars,
 * tvmgen_NAME_workspace_size(vars) and tvmgen_NAME_run_dynamic(in, out, vars, workspace),
 * which returns -1 for a NULL workspace, a variable outside [1, 2^31) or above its
 * tir_var_upper_bound, and values the function's shapes do not allow (a dim such as
 * n - 4 below 0, a match_cast dim that differs).
 *
 * ExternFunc calls go through the packed ABI by a direct C call: a runtime kernel of the
 * static table (rlx_kernel_table: its packed symbol, its source shipped in runtime/src/;
 * its scratch, rlx_nn_scratch_bytes for up to 8 threads, joins the kernels' scratch region,
 * which the entry point hands to the archive's standalone pool with
 * rlx_nn_standalone_arena) or a symbol of an extern object (shipped in codegen/host/lib/). UNSUPPORTED names what
 * cannot be expressed (call_packed returning a value, If, a variable bound inside the
 * function, an unknown extern).
 */
#ifndef RLX_CODEGEN_AOT_H
#define RLX_CODEGEN_AOT_H

#include "../relax/relax.h"
#include "codegen.h"

typedef struct {
  const char* name;          /* module name as given (sanitized into C identifiers here) */
  const char* kernel_prefix; /* the prefix given to rlx_codegen_c_ex */
  int n_output_names;        /* names of the outputs (ONNX graph outputs), may be 0 */
  const char* const* output_names;
  /* Whether an extern object linked into the program defines symbol `name` (NULL: none is):
   * the build layer's extern set, seen through this predicate so that codegen stays below it. */
  bool (*extern_defines)(const void* externs, const char* name);
  const void* externs;
  /* The lowered PrimFuncs (what the kernels were generated from), by name; NULL: the
   * module's own. */
  rlx_module_t* lowered;
  /* Kernels generated with kernel_workspace (codegen.h): the scratch bytes of each, by
   * PrimFunc name (n_kernel_ws of them); such kernels get a scratch pointer as their last
   * argument, carved from one region of the workspace sized for the largest call. */
  int n_kernel_ws;
  const char* const* kernel_ws_names;
  rlx_expr_t* const* kernel_ws;
} rlx_aot_options_t;

/* One input or output of the entry point. */
typedef struct {
  const char* name;   /* struct member (sanitized) */
  rlx_dtype_t dtype;
  int ndim;
  rlx_expr_t** shape; /* int64 PrimExprs */
  rlx_expr_t* bytes;  /* size in bytes (constant or a formula of the shape variables) */
} rlx_aot_tensor_t;

typedef struct {
  char* entry_c;  /* heap */
  char* header;   /* heap */
  char* consts_c; /* heap */
  const char* c_name; /* sanitized module name (arena) */
  int n_inputs, n_outputs;
  rlx_aot_tensor_t* inputs;
  rlx_aot_tensor_t* outputs;
  bool symbolic;
  int n_vars;
  const char** var_names; /* shape variables, sanitized, in order of first use */
  rlx_expr_t* workspace_bytes;
  int64_t constants_bytes;
  int n_consts;
  const rlx_relax_constant_t** consts; /* in the order of tvmgen_NAME_cK */
  int n_sources;
  const char** runtime_sources; /* runtime kernel source files used (file names) */
  int n_kernels;
  const char** kernels;         /* PrimFuncs called, in order of first call */
} rlx_aot_result_t;

/* Generates the entry point of Relax function `func` of `planned`. */
RLX_MUST_USE rlx_status_t* rlx_aot_codegen(rlx_ctx_t* ctx, rlx_module_t* planned, const char* func, const rlx_aot_options_t* opts,
                                           rlx_aot_result_t* out);

/* Frees the heap strings of r. */
void rlx_aot_result_free(rlx_aot_result_t* r);

/* name with every character that is not [A-Za-z0-9_] replaced by '_', and '_' prefixed when
 * it starts with a digit (arena). */
const char* rlx_aot_sanitize(rlx_ctx_t* ctx, const char* name);

#endif
