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
#include "rlx/target.h"

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
/* NULL when out of memory. The context's target is the CPU this process runs on (capped by
 * RLX_MAX_ISA, include/rlx/target.h) until rlx_ctx_set_target. */
rlx_ctx_t* rlx_ctx_create(void);
void rlx_ctx_free(rlx_ctx_t* ctx);

/* ---- the compile context (TVM's PassContext) ----
 * What the context's compilations are for and how they run: the target (every
 * machine-specific decision: vector width, register tiles, the NCHWc block, cache sizes, the
 * C compiler and its flags, the kernel cache key), the C compiler, the kernel cache. */
/* Copies target (NULL: the host) into ctx. */
RLX_MUST_USE rlx_status_t* rlx_ctx_set_target(rlx_ctx_t* ctx, const rlx_target_t* target);
/* Parses text as rlx_target_parse does and sets it. */
RLX_MUST_USE rlx_status_t* rlx_ctx_set_target_str(rlx_ctx_t* ctx, const char* text);
const rlx_target_t* rlx_ctx_target(const rlx_ctx_t* ctx);
/* The C compiler's words ("ccache gcc"; NULL: $CC, else the target's cross compiler for a
 * foreign triple, else cc), the kernel cache directory (NULL: $RLX_CACHE_DIR, else
 * ~/.cache/rlx) and whether generated C stays beside its object. Copied. */
void rlx_ctx_set_cc(rlx_ctx_t* ctx, const char* cc);
void rlx_ctx_set_cache_dir(rlx_ctx_t* ctx, const char* dir);
void rlx_ctx_set_keep_source(rlx_ctx_t* ctx, bool keep);

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
/* Body callback: indices are the output index vars (int64 when the shape is int64, else
 * int32); returns the value expression (possibly rlx_te_sum(...) etc.). */
typedef rlx_expr_t* (*rlx_te_fcompute_t)(rlx_ctx_t* ctx, rlx_var_t* const* indices, void* user);
/* An input tensor (TVM's te.placeholder): a compact global buffer called name (the data var
 * too) with the given shape (exprs kept as given: int32 constants, int64 vars...). */
rlx_te_tensor_t* rlx_te_placeholder(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_dtype_t dtype,
                                    const char* name);
/* A computed tensor (TVM's te.compute): calls f once with fresh index vars (dtype of each
 * shape dim) and records the returned expression as the body; the tensor's dtype is the
 * body's. Output index vars are named i, j, k, l, m, n, o, p, q, r, s, t, then i12, i13, ...
 * in order. The TE tensors the body loads become t->inputs. */
rlx_te_tensor_t* rlx_te_compute(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_te_fcompute_t f,
                                void* user, const char* name, const char* tag);
/* Like rlx_te_compute, with the output index vars named axis_names[0..ndim) (TVM names them
 * after the lambda's parameters; axis_names NULL = the default names). Loops and block iter
 * vars created by create_prim_func take these names ("v_" + name for iter vars). */
rlx_te_tensor_t* rlx_te_compute_named(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_te_fcompute_t f,
                                      void* user, const char* name, const char* tag,
                                      const char* const* axis_names);
/* A compute whose function returns several values (TVM's te.compute with a lambda returning a
 * tuple): f fills out_bodies (at most max) and returns how many, or -1 after an error of its
 * own. One value gives one tensor as rlx_te_compute_named; n > 1 give n tensors "name.v0",
 * "name.v1", ... (*out_tensors in the arena) that create_prim_func computes in one loop
 * nest, one block each. INVALID_ARGUMENT when f fails or returns 0 or too many values,
 * UNSUPPORTED for a reduction among several values. */
#define RLX_TE_MAX_OUTPUTS 64
typedef int (*rlx_te_fcompute_multi_t)(rlx_ctx_t* ctx, rlx_var_t* const* indices, void* user, int max,
                                       rlx_expr_t** out_bodies);
RLX_MUST_USE rlx_status_t* rlx_te_compute_multi(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape,
                                                rlx_te_fcompute_multi_t f, void* user, const char* name,
                                                const char* tag, const char* const* axis_names, int* out_n,
                                                rlx_te_tensor_t*** out_tensors);
/* TVM's te.compute(..., attrs={"layout_free_placeholders": [B]}): the inputs of compute t
 * whose layout a later pass may change; create_prim_func lists those that are params in the
 * function attribute "layout_free_buffers". Replaces any earlier list (copied to ctx). */
void rlx_te_tensor_set_layout_free(rlx_ctx_t* ctx, rlx_te_tensor_t* t, int n, rlx_te_tensor_t* const* inputs);
/* Load of tensor t at indices (BufferLoad of t->buffer). */
rlx_expr_t* rlx_te_load(rlx_ctx_t* ctx, rlx_te_tensor_t* t, int n, rlx_expr_t* const* indices);
/* A reduce iter var over [min, min + extent); its var has extent's dtype and is named name
 * ("rv" when NULL). */
rlx_iter_var_t* rlx_te_reduce_axis(rlx_ctx_t* ctx, rlx_expr_t* min, rlx_expr_t* extent, const char* name);
rlx_expr_t* rlx_te_axis_expr(rlx_iter_var_t* axis);
/* Reductions over axis (RLX_EXPR_REDUCE, no condition). Identities: sum 0, max -inf (lowest int),
 * min +inf (highest int), in source's dtype. Valid only as the whole body of a compute. */
rlx_expr_t* rlx_te_sum(rlx_ctx_t* ctx, rlx_expr_t* source, int n_axis, rlx_iter_var_t* const* axis);
rlx_expr_t* rlx_te_max(rlx_ctx_t* ctx, rlx_expr_t* source, int n_axis, rlx_iter_var_t* const* axis);
rlx_expr_t* rlx_te_min(rlx_ctx_t* ctx, rlx_expr_t* source, int n_axis, rlx_iter_var_t* const* axis);
/* TVM's te.sum / te.max / te.min (combiner "sum", "prod", "max" or "min") with where= (cond:
 * elements where it is false are skipped; NULL = all) and init= (the accumulator's start;
 * NULL = the combiner's identity). NULL for an unknown combiner. */
rlx_expr_t* rlx_te_reduce_by_name(rlx_ctx_t* ctx, const char* combiner, rlx_expr_t* source, int n_axis,
                                  rlx_iter_var_t* const* axis, rlx_expr_t* cond, rlx_expr_t* init);
/* TVM's te.create_prim_func(args): args become params (buffers in the buffer map) in order;
 * every other compute reachable from the outputs becomes an alloc_buffer of the root block;
 * attrs {"tir.noalias": T.bool(True)} only (as TVM >= 0.15; the function name is `name`).
 *
 * Form produced: params[i] = args[i]->buffer->data (handle var named after the tensor),
 * buffer_map[i] = args[i]->buffer. body = BlockRealize (no iter values) of a block "root"
 * (no iter vars, no reads/writes) whose alloc_buffers are the intermediate computes' buffers
 * and whose body is the seq of one loop nest per compute, in topological order. A nest is
 * `for <axis> in [dom.min, dom.min+extent)` per spatial axis then per reduce axis, around a
 * BlockRealize of a block named after the tensor (made unique with _1, _2...) with iter vars
 * "v_<axis>" (S then R) bound to the loop vars; reads = buffers loaded by the body, writes =
 * the output at the iter vars (a block without any axis gets one dummy
 * spatial iter var "vi" in [0, 1) bound to 0, as TVM does); the value is simplified
 * (rlx_ir_simplify); reductions get init `C[v] = identity` and body
 * `C[v] = combine(C[v], source)` (`if cond: ...` around it for a conditional reduction). Errors: a placeholder reached but not in args, a load of a
 * non-TE buffer, a reduction that is not the whole body, duplicate or NULL args. */
RLX_MUST_USE rlx_status_t* rlx_te_create_prim_func(rlx_ctx_t* ctx, int n_args, rlx_te_tensor_t* const* args,
                                                   const char* name, rlx_tir_func_t** out);

/* ---- modules and TVMScript ---- */
rlx_module_t* rlx_module_create(rlx_ctx_t* ctx);
/* Adds (or replaces) a PrimFunc under its own name. */
void rlx_module_add_prim_func(rlx_module_t* m, rlx_tir_func_t* f);
/* The PrimFunc called name, or NULL. */
rlx_tir_func_t* rlx_module_get_prim_func(rlx_module_t* m, const char* name);
/* Parses a script (standalone @T.prim_func / @R.function defs, or an @I.ir_module class)
 * into a module. Relax functions are normalized and checked with rlx_relax_well_formed.
 * filename is used in error messages (file:line:col). */
RLX_MUST_USE rlx_status_t* rlx_script_parse(rlx_ctx_t* ctx, const char* text, const char* filename, rlx_module_t** out);
/* A value of the Python scope around a script, by name (TVM's parser evaluates the names a
 * script reads but does not define in the enclosing scope: closure variables, globals).
 * text: TVMScript expression text standing for the value ("R.add", "\"float32\"", "(2, 3)",
 * "T.float32"), read wherever the script reads name (a dotted name such as "relax.op.add": that
 * attribute chain); or text NULL: name is a symbolic
 * variable of integer dtype var_dtype (a tir.Var of the scope), defined in every function.
 * Bind only names the script never assigns. */
typedef struct {
  const char* name;
  const char* text;
  rlx_dtype_t var_dtype;
} rlx_script_binding_t;
/* rlx_script_parse with the values of the enclosing scope (n_bindings of them). A text that
 * does not parse is a PARSE_ERROR naming the binding. */
RLX_MUST_USE rlx_status_t* rlx_script_parse_scope(rlx_ctx_t* ctx, const char* text, const char* filename,
                                                  int n_bindings, const rlx_script_binding_t* bindings,
                                                  rlx_module_t** out);
/* Prints a module: a single PrimFunc module prints as a standalone @T.prim_func (named
 * after the function); any other module prints as `@I.ir_module class Module:` with TVM's
 * function order (PrimFuncs, then Relax functions, each by name; "main" last). Heap string. */
char* rlx_script_print_module(const rlx_module_t* m);
/* With show_meta, large constants come with TVM's metadata section at the top of the text
 * (IRModule.script(show_meta=True)), so that rlx_script_parse reads them back; without it
 * (rlx_script_print_module), TVM's "# Metadata omitted." comment, and a module parsed from
 * such text cannot be built. Heap string. */
char* rlx_script_print_module_ex(const rlx_module_t* m, bool show_meta);
/* Prints one PrimFunc as a standalone script (with the import header). Heap string. */
char* rlx_script_print_tir_func(const rlx_tir_func_t* f);

/* ---- schedules (TVM's tir.Schedule; loops are named by their loop var) ---- */
rlx_schedule_t* rlx_schedule_create(rlx_ctx_t* ctx, const rlx_tir_func_t* f);
rlx_tir_func_t* rlx_schedule_func(const rlx_schedule_t* s);
/* Loops enclosing block `block`, outermost first. *out_loops is arena memory. */
RLX_MUST_USE rlx_status_t* rlx_sched_get_loops(rlx_schedule_t* s, const char* block, rlx_var_t*** out_loops, int* out_n);
/* Splits loop into len(factors) loops; one factor may be -1 (inferred). Non-divisible or
 * symbolic extents add a predicate. out_loops (may be NULL) gets the new loop vars. */
RLX_MUST_USE rlx_status_t* rlx_sched_split(rlx_schedule_t* s, rlx_var_t* loop, int n, const int64_t* factors,
                                           rlx_var_t** out_loops);
RLX_MUST_USE rlx_status_t* rlx_sched_fuse(rlx_schedule_t* s, int n, rlx_var_t* const* loops, rlx_var_t** out_loop);
RLX_MUST_USE rlx_status_t* rlx_sched_reorder(rlx_schedule_t* s, int n, rlx_var_t* const* loops);
RLX_MUST_USE rlx_status_t* rlx_sched_parallel(rlx_schedule_t* s, rlx_var_t* loop);
RLX_MUST_USE rlx_status_t* rlx_sched_vectorize(rlx_schedule_t* s, rlx_var_t* loop);
RLX_MUST_USE rlx_status_t* rlx_sched_unroll(rlx_schedule_t* s, rlx_var_t* loop);
RLX_MUST_USE rlx_status_t* rlx_sched_compute_inline(rlx_schedule_t* s, const char* block);
RLX_MUST_USE rlx_status_t* rlx_sched_reverse_compute_inline(rlx_schedule_t* s, const char* block);
RLX_MUST_USE rlx_status_t* rlx_sched_compute_at(rlx_schedule_t* s, const char* block, rlx_var_t* loop);
RLX_MUST_USE rlx_status_t* rlx_sched_reverse_compute_at(rlx_schedule_t* s, const char* block, rlx_var_t* loop);
/* Adds a "local" cache block that `block` writes into, copied back to the original buffer;
 * out_block gets the new block's name. */
RLX_MUST_USE rlx_status_t* rlx_sched_cache_write(rlx_schedule_t* s, const char* block, int write_index,
                                                 const char* scope, const char** out_block);
RLX_MUST_USE rlx_status_t* rlx_sched_cache_read(rlx_schedule_t* s, const char* block, int read_index, const char* scope,
                                                const char** out_block);
/* Moves the init of a reduction block into its own block placed above loop. */
RLX_MUST_USE rlx_status_t* rlx_sched_decompose_reduction(rlx_schedule_t* s, const char* block, rlx_var_t* loop,
                                                         const char** out_init_block);
/* The default CPU schedule, applied to any unscheduled PrimFunc: elementwise/injective blocks
 * get fused, parallel outer loops and vectorized inner loops; reductions get a parallel
 * spatial outer loop; matmul-like contractions get register blocking, cache tiling, packing,
 * vectorization and parallel outer loops. Sets "tir.is_scheduled" on the result. A function
 * with attribute "rlx.no_default_schedule" (or "tir.is_scheduled") true is returned as is.
 * Never fails on valid input: a block it cannot schedule is left as it is (and reported by
 * rlx_tir_default_schedule_report). */
RLX_MUST_USE rlx_status_t* rlx_tir_default_schedule(rlx_ctx_t* ctx, const rlx_tir_func_t* f, rlx_tir_func_t** out);

/* ---- building ---- */
/* Lowers every PrimFunc (default schedule where not scheduled), generates C, compiles it with
 * $CC (cached by content hash) and loads it. Free the library with rlx_library_free. */
RLX_MUST_USE rlx_status_t* rlx_build(rlx_ctx_t* ctx, rlx_module_t* m, rlx_library_t** out_lib);
/* Symbol of the packed wrapper for a PrimFunc named name ("main" → "rlx_fn_main"). Arena. */
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
RLX_MUST_USE rlx_status_t* rlx_build_config_add_extern(rlx_build_config_t* c, const char* path);
RLX_MUST_USE rlx_status_t* rlx_build_config_add_lib(rlx_build_config_t* c, const char* path);
RLX_MUST_USE rlx_status_t* rlx_build_config_defer(rlx_build_config_t* c, const char* name);
/* Compiles a module with Relax functions into the model shared object out_so (load it with
 * rlx_vm_load, include/rlx/vm.h). c may be NULL (no externs). */
RLX_MUST_USE rlx_status_t* rlx_relax_build(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_build_config_t* c, const char* out_so);
/* The names m calls that c does not resolve (*out_names in the arena, *out_n of them). */
RLX_MUST_USE rlx_status_t* rlx_relax_unresolved(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_build_config_t* c,
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
RLX_MUST_USE rlx_status_t* rlx_export_mlf(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_mlf_options_t* opts, const char* out_tar);

/* ---- what a driver program needs (the rlx tool uses these) ---- */
/* Reads the TVMScript file path (Relax functions and/or PrimFuncs) into a new module in ctx.
 * IO_ERROR when the file cannot be read; PARSE_ERROR names path:line:col. */
RLX_MUST_USE rlx_status_t* rlx_script_parse_file(rlx_ctx_t* ctx, const char* path, rlx_module_t** out);
/* m compiled up to and including the stage `pass` and printed as TVMScript (*out_text, heap;
 * show_meta: with the metadata section holding large constants' data). A module with Relax
 * functions goes through the Relax pipeline, a module of PrimFuncs only through the TIR
 * lowering passes; "all" runs everything. An unknown pass is INVALID_ARGUMENT listing the
 * pass names; a pass error names the pass. The fold runner is the C backend's (as when the
 * module is compiled), so large constants fold the same way. */
RLX_MUST_USE rlx_status_t* rlx_module_print_after(rlx_ctx_t* ctx, rlx_module_t* m, const char* pass, bool show_meta,
                                                  char** out_text);
/* The memory plan of every Relax function of m as text (*out_text, heap; `rlx compile
 * --stats`): per function one line "memory F: unplanned_bytes=... planned_bytes=..." (sizes
 * as formulas when symbolic), one line per tensor a packed function allocates when it runs
 * (outside the plan), and a count of those. Runs the pipeline up to plan_memory. */
RLX_MUST_USE rlx_status_t* rlx_relax_memory_report(rlx_ctx_t* ctx, rlx_module_t* m, char** out_text);
/* The blocks the default schedule leaves without their real schedule as text (*out_text,
 * heap): a count line, then "unscheduled FUNC block BLOCK (KIND, N iterations): WHY" per
 * block. Runs the pipeline up to fuse_ops, then the default schedule. */
RLX_MUST_USE rlx_status_t* rlx_schedule_report(rlx_ctx_t* ctx, rlx_module_t* m, char** out_text);
/* PrimFunc parameters: how many, the name of parameter i, whether it is a buffer (a tensor)
 * rather than a scalar. */
int rlx_tir_func_param_count(const rlx_tir_func_t* f);
const char* rlx_tir_func_param_name(const rlx_tir_func_t* f, int i);
bool rlx_tir_func_param_is_buffer(const rlx_tir_func_t* f, int i);
/* For a call of f on its first n_inputs parameters given as inputs (every parameter a
 * buffer): checks each input's dtype, rank and constant dims against its buffer, binding
 * the buffer's symbolic dims, and allocates one NDArray per remaining parameter (the
 * outputs) shaped by those bindings; out_outputs[0 .. count - n_inputs) receive them (the
 * caller releases each). INVALID_ARGUMENT names the function, the input and what differs;
 * nothing is left allocated on error. */
RLX_MUST_USE rlx_status_t* rlx_tir_func_alloc_outputs(const rlx_tir_func_t* f, int n_inputs, DLTensor* const* inputs,
                                                      rlx_ndarray_t** out_outputs);

/* ======================================================================================
 * Language bindings (python/rlx uses exactly these): inspecting expressions, TE tensors
 * and modules; Relax struct info, expressions, ops by name, the BlockBuilder, passes by
 * name. Everything lives in the ctx arena like the rest of this header; `char*` results
 * are heap strings the caller frees.
 * ==================================================================================== */
typedef struct rlx_sinfo rlx_sinfo_t;
typedef struct rlx_relax_expr rlx_relax_expr_t;
typedef struct rlx_relax_var rlx_relax_var_t;
typedef struct rlx_relax_func rlx_relax_func_t;
typedef struct rlx_bb rlx_bb_t;
typedef struct rlx_attr_list rlx_attr_list_t;

/* ---- inspecting PrimExprs, TE tensors and PrimFuncs ---- */
rlx_expr_t* rlx_ir_bool(rlx_ctx_t* ctx, bool v);
/* A string constant (attribute values such as T.func_attr({"key": "text"})). */
rlx_expr_t* rlx_ir_string(rlx_ctx_t* ctx, const char* s);
/* List and dict attribute values ({"layout_free_buffers": [1]}, {"opt": {"a": [1, 2]}}) for
 * rlx_tir_func_with_attr and rlx_attr_list_set_expr: the items (ints, floats, strings, bools,
 * PrimExprs and nested lists / dicts), keys[i] → values[i] for a dict. Printed as Python
 * literals (a dict's keys sorted), as T.func_attr / R.func_attr write them. */
rlx_expr_t* rlx_ir_attr_list(rlx_ctx_t* ctx, int n, rlx_expr_t* const* items);
rlx_expr_t* rlx_ir_attr_dict(rlx_ctx_t* ctx, int n, const char* const* keys, rlx_expr_t* const* values);
rlx_dtype_t rlx_ir_expr_dtype(const rlx_expr_t* e);
/* True (and *out set) when e is an integer constant. */
bool rlx_ir_expr_int_value(const rlx_expr_t* e, int64_t* out);
/* e as a variable, or NULL when it is not one. */
rlx_var_t* rlx_ir_expr_as_var(rlx_expr_t* e);
const char* rlx_ir_var_name(const rlx_var_t* v);
/* e as TVMScript writes it in a shape (n * 2, T.max(a, b), ...). */
char* rlx_ir_expr_str(const rlx_expr_t* e);
int rlx_te_tensor_ndim(const rlx_te_tensor_t* t);
rlx_expr_t* rlx_te_tensor_dim(const rlx_te_tensor_t* t, int i);
rlx_dtype_t rlx_te_tensor_dtype(const rlx_te_tensor_t* t);
const char* rlx_te_tensor_name(const rlx_te_tensor_t* t);
const char* rlx_tir_func_name(const rlx_tir_func_t* f);
/* A copy of f under another name / with T.func_attr key set to value (replaced if present). */
rlx_tir_func_t* rlx_tir_func_rename(rlx_ctx_t* ctx, const rlx_tir_func_t* f, const char* name);
rlx_tir_func_t* rlx_tir_func_with_attr(rlx_ctx_t* ctx, const rlx_tir_func_t* f, const char* key, rlx_expr_t* value);
/* Structural equality (vars mapped by definition, names ignored) and a consistent hash. */
bool rlx_tir_func_equal(const rlx_tir_func_t* a, const rlx_tir_func_t* b);
uint64_t rlx_tir_func_hash(const rlx_tir_func_t* f);

/* ---- modules ---- */
int rlx_module_func_count(const rlx_module_t* m);
const char* rlx_module_func_name(const rlx_module_t* m, int i);
bool rlx_module_func_is_relax(const rlx_module_t* m, int i);
/* The Relax function called name, or NULL. */
rlx_relax_func_t* rlx_module_get_relax_func(rlx_module_t* m, const char* name);
/* Adds (or replaces) a Relax function under name. */
void rlx_module_add_relax_func(rlx_module_t* m, const char* name, rlx_relax_func_t* f);
/* A new module (in ctx) holding the same functions. */
rlx_module_t* rlx_module_copy(rlx_ctx_t* ctx, const rlx_module_t* m);
/* Same function names, each pair structurally equal; a hash consistent with it. */
bool rlx_module_equal(const rlx_module_t* a, const rlx_module_t* b);
uint64_t rlx_module_hash(const rlx_module_t* m);
/* Relax well-formedness of every function (error names the function and the problem). */
RLX_MUST_USE rlx_status_t* rlx_module_well_formed(rlx_ctx_t* ctx, rlx_module_t* m);
/* Prints one Relax function of module m (m may be NULL) as a standalone @R.function named
 * name, with the import header; for diffs and debugging. References to module functions
 * print as cls.f. Heap string. */
char* rlx_script_print_relax_func(const rlx_module_t* m, const rlx_relax_func_t* f, const char* name);
/* The function's return struct info. */
rlx_sinfo_t* rlx_relax_func_ret_sinfo(const rlx_relax_func_t* f);
bool rlx_relax_func_equal(const rlx_relax_func_t* a, const rlx_relax_func_t* b);
uint64_t rlx_relax_func_hash(const rlx_relax_func_t* f);

/* ---- Relax struct info (R.Object, R.Prim, R.Shape, R.Tensor, R.Tuple) ----
 * ndim -1 = unknown rank; shape/values NULL = unknown dims; dtype with bits 0 = unknown. */
typedef enum {
  RLX_SINFO_KIND_OBJECT,
  RLX_SINFO_KIND_PRIM,
  RLX_SINFO_KIND_SHAPE,
  RLX_SINFO_KIND_TENSOR,
  RLX_SINFO_KIND_TUPLE,
  RLX_SINFO_KIND_FUNC
} rlx_sinfo_kind_code_t;
/* Constructors (arena-owned; arrays are copied). Shapes are int64: integer constants of
 * another width are converted. */
rlx_sinfo_t* rlx_sinfo_object(rlx_ctx_t* ctx);
rlx_sinfo_t* rlx_sinfo_prim(rlx_ctx_t* ctx, rlx_dtype_t dtype, rlx_expr_t* value /* NULL ok */);
rlx_sinfo_t* rlx_sinfo_shape(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* values);
/* shape NULL = unknown shape with ndim dims (ndim -1 = unknown rank); dtype may be void. */
rlx_sinfo_t* rlx_sinfo_tensor(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_dtype_t dtype);
rlx_sinfo_t* rlx_sinfo_tuple(rlx_ctx_t* ctx, int n, rlx_sinfo_t* const* fields);
rlx_sinfo_kind_code_t rlx_sinfo_kind_code(const rlx_sinfo_t* s);
/* Tensor / Shape: rank (-1 unknown); dim i (NULL when unknown); Tensor / Prim: dtype. */
int rlx_sinfo_ndim(const rlx_sinfo_t* s);
rlx_expr_t* rlx_sinfo_dim(const rlx_sinfo_t* s, int i);
rlx_dtype_t rlx_sinfo_dtype(const rlx_sinfo_t* s);
/* Tuple: its fields. */
int rlx_sinfo_n_fields(const rlx_sinfo_t* s);
rlx_sinfo_t* rlx_sinfo_field(const rlx_sinfo_t* s, int i);
/* TVMScript form (R.Tensor((n, 4), dtype="float32")), an arena string. */
const char* rlx_sinfo_str(rlx_ctx_t* ctx, const rlx_sinfo_t* s);

/* ---- Relax expressions ----
 * Struct info (sinfo) may be NULL where the BlockBuilder fills it in by normalization. */
/* Constructors. Arrays are copied into the arena. sinfo may be NULL where noted: the node's
 * struct info is then filled by normalization. */
rlx_relax_var_t* rlx_relax_var(rlx_ctx_t* ctx, const char* name, rlx_sinfo_t* sinfo);
rlx_relax_var_t* rlx_relax_dataflow_var(rlx_ctx_t* ctx, const char* name, rlx_sinfo_t* sinfo);
/* Copies nbytes of row-major data (must equal prod(shape) * dtype bytes, else NULL). NULL
 * too when the copy cannot be allocated (the arena has failed; callers report OUT_OF_MEMORY). */
rlx_relax_expr_t* rlx_relax_constant(rlx_ctx_t* ctx, rlx_dtype_t dtype, int ndim, const int64_t* shape,
                                     const void* data, size_t nbytes);
rlx_relax_expr_t* rlx_relax_tuple(rlx_ctx_t* ctx, int n, rlx_relax_expr_t* const* fields);
rlx_relax_expr_t* rlx_relax_tuple_get_item(rlx_ctx_t* ctx, rlx_relax_expr_t* tuple, int index);
rlx_relax_expr_t* rlx_relax_shape_expr(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* values);
rlx_relax_expr_t* rlx_relax_prim_value(rlx_ctx_t* ctx, rlx_expr_t* value);
rlx_relax_expr_t* rlx_relax_string_imm(rlx_ctx_t* ctx, const char* value);
/* A module function by name (sinfo NULL: taken from the module when normalized). */
rlx_relax_expr_t* rlx_relax_global_var(rlx_ctx_t* ctx, const char* name, rlx_sinfo_t* sinfo);
rlx_relax_expr_t* rlx_relax_extern_func(rlx_ctx_t* ctx, const char* global_symbol);
/* R.call_tir(gv, (args), out_sinfo[, tir_vars]) / R.call_dps_packed / R.call_packed. */
rlx_relax_expr_t* rlx_relax_call_tir(rlx_ctx_t* ctx, rlx_relax_expr_t* gv, int n_args, rlx_relax_expr_t* const* args,
                                     rlx_sinfo_t* out_sinfo, rlx_relax_expr_t* tir_vars);
rlx_relax_expr_t* rlx_relax_call_dps_packed(rlx_ctx_t* ctx, const char* name, int n_args,
                                            rlx_relax_expr_t* const* args, rlx_sinfo_t* out_sinfo);
rlx_relax_expr_t* rlx_relax_call_packed(rlx_ctx_t* ctx, const char* name, int n_args, rlx_relax_expr_t* const* args,
                                        int n_sinfo_args, rlx_sinfo_t* const* sinfo_args);
/* R.call_pure_packed("name", args..., sinfo_args=...): call_packed of a function known to be
 * free of side effects. */
rlx_relax_expr_t* rlx_relax_call_pure_packed(rlx_ctx_t* ctx, const char* name, int n_args,
                                             rlx_relax_expr_t* const* args, int n_sinfo_args,
                                             rlx_sinfo_t* const* sinfo_args);
/* A call of any callee (an Op from rlx_relax_op_get, a GlobalVar, an ExternFunc, a function
 * value) with attributes (may be NULL) and struct info arguments; TVM's relax.Call. */
rlx_relax_expr_t* rlx_relax_call_create(rlx_ctx_t* ctx, rlx_relax_expr_t* callee, int n_args,
                                        rlx_relax_expr_t* const* args, const rlx_attr_list_t* attrs,
                                        int n_sinfo_args, rlx_sinfo_t* const* sinfo_args);
/* The Op node called name ("relax.add"; TVM's tvm.ir.Op.get), NULL when no op has that name. */
rlx_relax_expr_t* rlx_relax_op_get(rlx_ctx_t* ctx, const char* name);
rlx_sinfo_t* rlx_relax_expr_sinfo(const rlx_relax_expr_t* e);
/* "Var", "Call", "Tuple", ... */
const char* rlx_relax_expr_kind_str(const rlx_relax_expr_t* e);
rlx_relax_expr_t* rlx_relax_var_expr(rlx_relax_var_t* v);
/* e as a Var / DataflowVar, or NULL. */
rlx_relax_var_t* rlx_relax_expr_as_var(rlx_relax_expr_t* e);
const char* rlx_relax_var_name(const rlx_relax_var_t* v);
/* The function name a GlobalVar refers to, or NULL when e is not a GlobalVar. */
const char* rlx_relax_global_var_name(const rlx_relax_expr_t* e);
/* A Relax function built from params and a body (normalized: ret_sinfo NULL = inferred);
 * public under name (global_symbol) unless name is NULL. */
RLX_MUST_USE rlx_status_t* rlx_relax_function_create(rlx_ctx_t* ctx, int n_params, rlx_relax_var_t* const* params,
                                                     rlx_relax_expr_t* body, rlx_sinfo_t* ret_sinfo, bool is_pure,
                                                     const char* name, rlx_relax_func_t** out);

/* ---- reading Relax nodes (TVM's fields; for language bindings) ----
 * A node without the field asked answers NULL, -1 or void. */
typedef struct rlx_relax_binding rlx_relax_binding_t;
typedef struct rlx_relax_block rlx_relax_block_t;
/* Expression fields by TVM's name: Function "params" (its Vars), "body"; Call "op", "args";
 * Tuple "fields"; TupleGetItem "tuple_value"; If "cond", "true_branch", "false_branch";
 * SeqExpr "body". The count is the number of expressions (1 for a single one, 0 when it is
 * absent), -1 when e has no such field. */
int rlx_relax_expr_field_count(const rlx_relax_expr_t* e, const char* field);
rlx_relax_expr_t* rlx_relax_expr_field(const rlx_relax_expr_t* e, const char* field, int i);
/* TupleGetItem's index (-1 otherwise). */
int rlx_relax_expr_index(const rlx_relax_expr_t* e);
/* The name of a Var, GlobalVar, Op ("relax.add"), ExternFunc (its symbol), the value of a
 * StringImm; NULL for others. */
const char* rlx_relax_expr_name(const rlx_relax_expr_t* e);
/* ShapeExpr's values / PrimValue's value (count 1); count -1 for others. */
int rlx_relax_expr_prim_count(const rlx_relax_expr_t* e);
rlx_expr_t* rlx_relax_expr_prim(const rlx_relax_expr_t* e, int i);
/* DataTypeImm's value (void for others). */
rlx_dtype_t rlx_relax_expr_dtype_value(const rlx_relax_expr_t* e);
/* A Constant's data (row-major, arena-owned) and layout; NULL for other nodes and for an
 * elided constant (a script printed without its metadata). */
const void* rlx_relax_constant_data(const rlx_relax_expr_t* e, rlx_dtype_t* out_dtype, int* out_ndim,
                                    const int64_t** out_shape, size_t* out_nbytes);
bool rlx_relax_func_is_pure(const rlx_relax_func_t* f);
int rlx_relax_call_sinfo_arg_count(const rlx_relax_expr_t* e);
rlx_sinfo_t* rlx_relax_call_sinfo_arg(const rlx_relax_expr_t* e, int i);
/* The attributes of a Call or a Function: count (-1 for other nodes); attribute i's key
 * (returned) and value (*out; strings and arrays stay the node's). */
typedef enum {
  RLX_ATTR_VALUE_BOOL,
  RLX_ATTR_VALUE_INT,
  RLX_ATTR_VALUE_FLOAT,
  RLX_ATTR_VALUE_STR,
  RLX_ATTR_VALUE_DTYPE,
  RLX_ATTR_VALUE_INTS,
  RLX_ATTR_VALUE_EXPR /* a PrimExpr, or a list / dict value (rlx_ir_attr_list / _dict) */
} rlx_attr_value_kind_t;
typedef struct {
  rlx_attr_value_kind_t kind;
  bool b;
  int64_t i;
  double f;
  const char* s;
  rlx_dtype_t dtype;
  int n;
  const int64_t* ints;
  rlx_expr_t* expr;
} rlx_attr_value_t;
int rlx_relax_expr_attr_count(const rlx_relax_expr_t* e);
const char* rlx_relax_expr_attr(const rlx_relax_expr_t* e, int i, rlx_attr_value_t* out);
/* SeqExpr's binding blocks; a block's bindings; a binding's parts (sinfo: a MatchCast's). */
int rlx_relax_seq_block_count(const rlx_relax_expr_t* e);
rlx_relax_block_t* rlx_relax_seq_block(const rlx_relax_expr_t* e, int i);
bool rlx_relax_block_is_dataflow(const rlx_relax_block_t* b);
int rlx_relax_block_binding_count(const rlx_relax_block_t* b);
rlx_relax_binding_t* rlx_relax_block_binding(const rlx_relax_block_t* b, int i);
bool rlx_relax_binding_is_match_cast(const rlx_relax_binding_t* b);
rlx_relax_var_t* rlx_relax_binding_var(const rlx_relax_binding_t* b);
rlx_relax_expr_t* rlx_relax_binding_value(const rlx_relax_binding_t* b);
rlx_sinfo_t* rlx_relax_binding_sinfo(const rlx_relax_binding_t* b);
/* Struct info parts: R.Prim's value (NULL unknown); R.Callable's params (count -1 opaque),
 * result and purity. */
rlx_expr_t* rlx_sinfo_prim_value(const rlx_sinfo_t* s);
int rlx_sinfo_func_param_count(const rlx_sinfo_t* s);
rlx_sinfo_t* rlx_sinfo_func_param(const rlx_sinfo_t* s, int i);
rlx_sinfo_t* rlx_sinfo_func_ret(const rlx_sinfo_t* s);
bool rlx_sinfo_func_is_pure(const rlx_sinfo_t* s);
/* Building them (TVM's relax.VarBinding, MatchCast, BindingBlock / DataflowBlock, SeqExpr,
 * If); arrays are copied. Struct info is filled by normalization. */
rlx_relax_binding_t* rlx_relax_var_binding(rlx_ctx_t* ctx, rlx_relax_var_t* var, rlx_relax_expr_t* value);
rlx_relax_binding_t* rlx_relax_match_cast(rlx_ctx_t* ctx, rlx_relax_var_t* var, rlx_relax_expr_t* value,
                                          rlx_sinfo_t* sinfo);
rlx_relax_block_t* rlx_relax_block(rlx_ctx_t* ctx, bool is_dataflow, int n, rlx_relax_binding_t* const* bindings);
rlx_relax_expr_t* rlx_relax_seq(rlx_ctx_t* ctx, int n_blocks, rlx_relax_block_t* const* blocks,
                                rlx_relax_expr_t* body);
rlx_relax_expr_t* rlx_relax_if(rlx_ctx_t* ctx, rlx_relax_expr_t* cond, rlx_relax_expr_t* then_branch,
                               rlx_relax_expr_t* else_branch);

/* Structural equality of Relax expressions (vars mapped by definition, names ignored), a
 * hash consistent with it, and of struct info (free symbolic vars equal iff identical). */
bool rlx_relax_expr_equal(const rlx_relax_expr_t* a, const rlx_relax_expr_t* b);
uint64_t rlx_relax_expr_hash(const rlx_relax_expr_t* e);
bool rlx_sinfo_struct_equal(const rlx_sinfo_t* a, const rlx_sinfo_t* b);

/* ---- attributes of op calls and functions (key → value, insertion order) ---- */
rlx_attr_list_t* rlx_attr_list_create(rlx_ctx_t* ctx);
void rlx_attr_list_set_bool(rlx_attr_list_t* l, const char* key, bool v);
void rlx_attr_list_set_int(rlx_attr_list_t* l, const char* key, int64_t v);
void rlx_attr_list_set_float(rlx_attr_list_t* l, const char* key, double v);
void rlx_attr_list_set_str(rlx_attr_list_t* l, const char* key, const char* v);
void rlx_attr_list_set_dtype(rlx_attr_list_t* l, const char* key, rlx_dtype_t v);
void rlx_attr_list_set_ints(rlx_attr_list_t* l, const char* key, int n, const int64_t* v);
void rlx_attr_list_set_expr(rlx_attr_list_t* l, const char* key, rlx_expr_t* v);

/* ---- the op registry ---- */
int rlx_relax_op_count(void);
/* Name of op i ("relax.add", "relax.nn.conv2d", ...). */
const char* rlx_relax_op_name(int i);
/* TVM's Python signature of op i, in order, as the registry records it:
 * "x, axis:ints, keepdims:bool" — a name alone is an operand ("bias?" optional), name:kind
 * an attribute (int, ints, bool, float, str, dtype, expr). NULL when i is out of range. */
const char* rlx_relax_op_params(int i);
/* A call of the registered op name (attrs may be NULL; sinfo_args for ops that take them).
 * NOT_FOUND for an unknown op. Struct info is inferred when the call is emitted. */
RLX_MUST_USE rlx_status_t* rlx_relax_op_call_by_name(rlx_ctx_t* ctx, const char* name, int n_args,
                                                     rlx_relax_expr_t* const* args, const rlx_attr_list_t* attrs,
                                                     int n_sinfo_args, rlx_sinfo_t* const* sinfo_args,
                                                     rlx_relax_expr_t** out);

/* ---- BlockBuilder (TVM's relax.BlockBuilder; see src/relax/relax.h for the details) ---- */
/* m NULL = a new empty module. */
rlx_bb_t* rlx_bb_create(rlx_ctx_t* ctx, rlx_module_t* m /* NULL = new module */);
/* Opens a function. params may be given here (n_params >= 0, params non-NULL) or at
 * rlx_bb_emit_func_output (pass params NULL here). The function is pure and public
 * ("global_symbol" = name) unless changed below. Error when a function is already open. */
RLX_MUST_USE rlx_status_t* rlx_bb_function_begin(rlx_bb_t* bb, const char* name, int n_params, rlx_relax_var_t* const* params);
RLX_MUST_USE rlx_status_t* rlx_bb_function_set_pure(rlx_bb_t* bb, bool is_pure);
RLX_MUST_USE rlx_status_t* rlx_bb_function_set_private(rlx_bb_t* bb, bool is_private);
/* Sets every attribute of l on the open function. */
RLX_MUST_USE rlx_status_t* rlx_bb_function_set_attrs(rlx_bb_t* bb, const rlx_attr_list_t* l);
/* Opens / closes a dataflow block in the open function (no nesting). */
RLX_MUST_USE rlx_status_t* rlx_bb_dataflow_begin(rlx_bb_t* bb);
RLX_MUST_USE rlx_status_t* rlx_bb_dataflow_end(rlx_bb_t* bb);
/* Normalizes expr (fills struct info; an impure call inside a dataflow block is an error
 * naming it) and binds it to a new var (a DataflowVar inside a dataflow block) named
 * name_hint ("lv" when NULL). */
RLX_MUST_USE rlx_status_t* rlx_bb_emit(rlx_bb_t* bb, rlx_relax_expr_t* expr, const char* name_hint, rlx_relax_var_t** out_var);
/* Inside a dataflow block: binds expr to a (non-dataflow) Var that stays visible after the
 * block ("gv" when name_hint NULL). Error outside a dataflow block (as TVM). */
RLX_MUST_USE rlx_status_t* rlx_bb_emit_output(rlx_bb_t* bb, rlx_relax_expr_t* expr, const char* name_hint,
                                              rlx_relax_var_t** out_var);
/* Binds var = R.match_cast(value, sinfo): symbolic vars appearing as whole dims of sinfo that
 * are not yet defined become defined. */
RLX_MUST_USE rlx_status_t* rlx_bb_match_cast(rlx_bb_t* bb, rlx_relax_expr_t* value, rlx_sinfo_t* sinfo,
                                             const char* name_hint, rlx_relax_var_t** out_var);
/* Sets the function's result (outside any dataflow block; once per function). params: the
 * function's params when they were not given at begin (n_params >= 0), else NULL. */
RLX_MUST_USE rlx_status_t* rlx_bb_emit_func_output(rlx_bb_t* bb, rlx_relax_expr_t* output, int n_params,
                                                   rlx_relax_var_t* const* params);
/* Closes the function: normalizes it and adds it to the module under its name (made unique
 * when taken). out_gv may be NULL. */
RLX_MUST_USE rlx_status_t* rlx_bb_function_end(rlx_bb_t* bb, rlx_relax_expr_t** out_gv);
/* Drops the open function (after an error in it: TVM's `with bb.function()` left by an
 * exception); the module is unchanged and a new function may begin. */
void rlx_bb_function_abandon(rlx_bb_t* bb);
/* The module built so far. */
rlx_module_t* rlx_bb_get(rlx_bb_t* bb);
/* Normalizes expr in the builder's module (see rlx_relax_normalize). */
RLX_MUST_USE rlx_status_t* rlx_bb_normalize(rlx_bb_t* bb, rlx_relax_expr_t* expr);
/* Adds a function under a unique name from name_hint (a PrimFunc equal to one already in
 * the module is not added twice); *out_gv is its GlobalVar. */
RLX_MUST_USE rlx_status_t* rlx_bb_add_prim_func(rlx_bb_t* bb, rlx_tir_func_t* f, const char* name_hint, rlx_relax_expr_t** out_gv);
RLX_MUST_USE rlx_status_t* rlx_bb_add_relax_func(rlx_bb_t* bb, rlx_relax_func_t* f, const char* name_hint,
                                                 rlx_relax_expr_t** out_gv);
/* Replaces the function called name; NOT_FOUND when there is none. */
RLX_MUST_USE rlx_status_t* rlx_bb_update_prim_func(rlx_bb_t* bb, const char* name, rlx_tir_func_t* f);
RLX_MUST_USE rlx_status_t* rlx_bb_update_relax_func(rlx_bb_t* bb, const char* name, rlx_relax_func_t* f);
/* emit_te: f gets one TE placeholder per arg and sets *out to the output tensor, or returns
 * an error of its own, which the call returns as it is (f leaving *out NULL without an error
 * fails the call with INVALID_ARGUMENT). */
typedef rlx_status_t* (*rlx_bb_te_fn_t)(rlx_ctx_t* ctx, rlx_te_tensor_t* const* inputs, int n, void* user,
                                        rlx_te_tensor_t** out);
/* TVM's bb.emit_te: makes one TE placeholder per arg (each arg must be a Tensor with known
 * shape and dtype; its shape becomes the placeholder's shape, with every symbolic var
 * replaced by a fresh PrimFunc-side var of the same name, so the PrimFunc shares no vars
 * with the caller; a placeholder is named after the arg's var (x, x_1 when repeated), else
 * A, B, C ... by position), runs f (vars that f takes from elsewhere, e.g. through user,
 * stay as they are), creates
 * a private PrimFunc over [inputs..., output] (plus scalar params for tir_vars), adds it under
 * a unique name (primfunc_name, or the output tensor's name when NULL) and emits
 *   R.call_tir(gv, (args...), out_sinfo=R.Tensor(out shape, out dtype)[, tir_vars=R.shape([...])])
 * where tir_vars are the symbolic vars used in the output's or inputs' shapes that are not a
 * whole dim of any of those shapes (TVM's rule), mapped back to the caller's vars. A PrimFunc
 * structurally equal to one already in the module is reused (TVM's dedup). Bound to a new
 * var named name_hint. f returns one tensor; rlx_bb_emit_te_multi (rlx.h) takes a function
 * returning several, called with a tuple out_sinfo (R.Tuple of the outputs' tensors). */
RLX_MUST_USE rlx_status_t* rlx_bb_emit_te(rlx_bb_t* bb, rlx_bb_te_fn_t f, void* user, int n_args,
                                          rlx_relax_expr_t* const* args, const char* primfunc_name,
                                          const char* name_hint, rlx_relax_var_t** out_var);
/* Appends an existing binding unchanged (its var is kept), for passes that rebuild a
 * function binding by binding (TVM's EmitNormalized). The value is normalized; a
 * DataflowVar outside a dataflow block and an impure call inside one are errors. */
RLX_MUST_USE rlx_status_t* rlx_bb_emit_binding(rlx_bb_t* bb, rlx_relax_binding_t* binding);
/* TVM's bb.call_te: emit_te without the binding: adds the PrimFunc and returns the
 * normalized R.call_tir expression (for passes such as legalization, which bind it to an
 * existing var with rlx_bb_emit_binding). Needs no open function. */
RLX_MUST_USE rlx_status_t* rlx_bb_call_te(rlx_bb_t* bb, rlx_bb_te_fn_t f, void* user, int n_args,
                                          rlx_relax_expr_t* const* args, const char* primfunc_name,
                                          rlx_relax_expr_t** out_call);
/* emit_te / call_te of a TE function with several outputs (TVM's emit_te of a function
 * returning a list): f stores in *outs an array of its outputs (read before the call returns;
 * the array stays f's) and their number in *out_n, or returns an error of its own (returned
 * by the call as it is). One output gives R.call_tir with a tensor out_sinfo, several a
 * tuple (out_sinfo=[...]). */
typedef rlx_status_t* (*rlx_bb_te_multi_fn_t)(rlx_ctx_t* ctx, rlx_te_tensor_t* const* inputs, int n, void* user,
                                              int* out_n, rlx_te_tensor_t*** outs);
RLX_MUST_USE rlx_status_t* rlx_bb_emit_te_multi(rlx_bb_t* bb, rlx_bb_te_multi_fn_t f, void* user, int n_args,
                                                rlx_relax_expr_t* const* args, const char* primfunc_name,
                                                const char* name_hint, rlx_relax_var_t** out_var);
RLX_MUST_USE rlx_status_t* rlx_bb_call_te_multi(rlx_bb_t* bb, rlx_bb_te_multi_fn_t f, void* user, int n_args,
                                                rlx_relax_expr_t* const* args, const char* primfunc_name,
                                                rlx_relax_expr_t** out_call);

/* ---- topi by name (TVM's names: "add", "nn.dense", "nn.conv2d_nchw", ...) ----
 * params(i): TVM's parameter names in order with kinds, "data:t weight:t bias:t? out_dtype:dtype?"
 * (t tensor, te tensor or scalar, ts tuple of tensors, int, ints (a list, or one int), bool,
 * float, str, expr (a scalar PrimExpr), dtype; ? optional).
 * rlx_topi_call takes one tensor slot per tensor parameter in order (NULL for an absent optional
 * one or a scalar given as an attribute; a ts parameter takes all the slots) and the other
 * parameters as attributes keyed by name. NOT_FOUND for an unknown name. */
int rlx_topi_count(void);
const char* rlx_topi_name(int i);
const char* rlx_topi_params(int i);
RLX_MUST_USE rlx_status_t* rlx_topi_call(rlx_ctx_t* ctx, const char* name, int n_tensors,
                                         rlx_te_tensor_t* const* tensors, const rlx_attr_list_t* attrs,
                                         rlx_te_tensor_t** out);
/* True when function i returns a list of tensors (TVM's split): call it with
 * rlx_topi_call_multi (rlx_topi_call refuses it with INVALID_ARGUMENT). */
bool rlx_topi_returns_list(int i);
/* rlx_topi_call for any function: *out_n output tensors in *out, an array in ctx's arena (one
 * tensor for a function that returns one; a list function may also give one, e.g. split into
 * one section). Errors as rlx_topi_call. */
RLX_MUST_USE rlx_status_t* rlx_topi_call_multi(rlx_ctx_t* ctx, const char* name, int n_tensors,
                                               rlx_te_tensor_t* const* tensors, const rlx_attr_list_t* attrs,
                                               int* out_n, rlx_te_tensor_t*** out);

/* ---- passes by name (the pipeline's names: legalize_ops, fold_constants, fuse_ops, ...) ---- */
int rlx_transform_pass_count(void);
const char* rlx_transform_pass_name(int i);
/* Runs one pass on m; NOT_FOUND lists the pass names. */
RLX_MUST_USE rlx_status_t* rlx_transform_run(rlx_ctx_t* ctx, const char* pass, rlx_module_t* m, rlx_module_t** out);

/* TVM's relax.transform.BindParams: a new module where the Relax function func_name has its
 * parameters names[i] replaced by the constants values[i] (Constants whose struct info fits
 * the parameter) and removed from its parameters. NOT_FOUND: no such function;
 * INVALID_ARGUMENT: a name that is no parameter (the message lists them), a value that is no
 * constant or does not fit. */
RLX_MUST_USE rlx_status_t* rlx_relax_bind_params(rlx_ctx_t* ctx, rlx_module_t* m, const char* func_name, int n,
                                                 const char* const* names, rlx_relax_expr_t* const* values,
                                                 rlx_module_t** out);

/* Where rlx's headers (rlx/ headers, tvm/runtime/ headers) and librlx_runtime are (static strings). */
const char* rlx_config_include_dir(void);
const char* rlx_config_lib_dir(void);

#ifdef __cplusplus
}
#endif
#endif
