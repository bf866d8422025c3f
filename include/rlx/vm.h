/* rlx — the virtual machine that runs compiled models (part of librlx_runtime).
 *
 * A compiled model is ONE shared object (made by the compiler's rlx_vm_compile / `rlx
 * compile`) holding the generated kernels and the VM executable (bytecode, function table,
 * constants) exported as the symbols `rlx_vm_executable` (bytes) and
 * `rlx_vm_executable_size` (uint64_t). The VM is a register machine like TVM's Relax VM:
 * instructions call / ret / goto / if; everything else is a call of a packed function — a
 * kernel, an external function, or a VM builtin ("vm.builtin.alloc_storage", ...).
 *
 * External names: rlx_vm_load resolves EVERY packed function the executable names before
 * it returns, looking in this order: the model's own shared object, the libraries given by
 * the caller (in order), the global registry (rlx_registry_register), the VM builtins. A
 * name found nowhere fails the load with a message listing the places searched.
 *
 * Ownership: an rlx_vm_t owns its executable, constants and loaded libraries; free it with
 * rlx_vm_free. Outputs of rlx_vm_invoke are references the caller releases. Every fallible
 * call returns an rlx_status_t* (NULL = ok) that the caller frees.
 *
 * Thread safety: a VM may be invoked from one thread at a time; separate VMs are
 * independent.
 */
#ifndef RLX_VM_H
#define RLX_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rlx/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rlx_vm rlx_vm_t;

/* Loads a compiled model: dlopens model_so (a file path: "model.so" is ./model.so), reads
 * and verifies its executable, loads the n_libs extra libraries `libs` (paths; a name
 * without '/' is searched by the loader) and resolves every external name (order above). The caller owns *out_vm. Errors: NOT_FOUND /
 * IO_ERROR for a missing or unloadable file; PARSE_ERROR for an object without
 * `rlx_vm_executable` or with a corrupted executable (bad magic, unsupported version,
 * out-of-range index, register or jump); NOT_FOUND naming a packed function missing from
 * every place searched, and listing them. */
RLX_MUST_USE rlx_status_t* rlx_vm_load(const char* model_so, int n_libs, const char* const* libs, rlx_vm_t** out_vm);

/* The target a compiled model was built for (*out_text, heap: its canonical target text,
 * include/rlx/target.h), read from the file without loading it. PARSE_ERROR for a file that
 * records none (not a model, or one built before models recorded their target). */
RLX_MUST_USE rlx_status_t* rlx_vm_model_target(const char* model_so, char** out_text);
/* NULL when the model's target runs on this CPU (capped by RLX_MAX_ISA); else the error of
 * rlx_target_check_host naming the model and the missing features. rlx_vm_load checks this
 * first, so a model built for a newer CPU or another architecture is refused with one line,
 * never run into an illegal instruction. */
RLX_MUST_USE rlx_status_t* rlx_vm_check_model_target(const char* model_so);

/* As rlx_vm_load, for an executable already in memory (`exec_bytes`, n bytes, copied):
 * kernel_lib (may be NULL) plays the role of the model's own shared object. For tools and
 * tests that assemble executables by hand. */
RLX_MUST_USE rlx_status_t* rlx_vm_create(const void* exec_bytes, size_t n, const char* kernel_lib, int n_libs,
                                         const char* const* libs, rlx_vm_t** out_vm);

/* Frees the VM, its constants and its libraries. NULL is ignored. Outputs handed out by
 * rlx_vm_invoke stay valid (they hold their own references) unless they are views of
 * constants, which also keep themselves alive. */
void rlx_vm_free(rlx_vm_t* vm);

/* Number of VM functions (entry points) and the name of function i (owned by the VM). */
int rlx_vm_function_count(const rlx_vm_t* vm);
const char* rlx_vm_function_name(const rlx_vm_t* vm, int i);

/* Describes a VM function's parameters. Arrays are owned by the VM and live as long as it.
 * param_ndims[i]: -1 unknown rank, -2 not a tensor. param_dtypes[i].bits == 0: unknown.
 * param_shapes[i]: the expected shape as text, "(n, 4)" ("" when unknown). */
typedef struct {
  const char* name;
  int n_params;
  const char* const* param_names;
  const char* const* param_shapes;
  const DLDataType* param_dtypes;
  const int32_t* param_ndims;
} rlx_vm_function_info_t;

/* Fills *out_info for the function `name`. NOT_FOUND lists the functions there are. */
RLX_MUST_USE rlx_status_t* rlx_vm_function_info(const rlx_vm_t* vm, const char* name, rlx_vm_function_info_t* out_info);

/* Runs function `name` on n_inputs CPU tensors (compact; not copied — kernels read them in
 * place, and must not be freed during the call). A parameter that is not a tensor takes the
 * form such a result has: a 0-d int / bool / float tensor for an R.Prim, a 1-d int64 tensor
 * for an R.Shape (the function's checks then match it against the parameter's struct info;
 * R.Tuple parameters take rlx_vm_invoke_args). On success *out_n outputs are returned in
 * *out_outputs, a heap array the caller frees with free() after releasing each tensor with
 * rlx_ndarray_release. A Tuple result is flattened (nested tuples depth-first); a tensor
 * result is one output; an int / float result is a 0-d int64 / float64 tensor and a shape
 * a 1-d int64 tensor. An output may share memory with an input or a constant when the
 * function returns it unchanged. Errors: NOT_FOUND for an unknown function;
 * INVALID_ARGUMENT for a wrong input count ("main takes 2 inputs, got 1 (parameters: x, w)"), or a wrong shape or dtype, naming the function,
 * the parameter, the expected and the actual shape ("main: parameter x: expected shape
 * (n, 4) with n bound to 3, got (3, 5)"); errors of kernels and external functions carry
 * their message and the function name. */
RLX_MUST_USE rlx_status_t* rlx_vm_invoke(rlx_vm_t* vm, const char* name, int n_inputs, DLTensor* const* inputs, int* out_n,
                                         rlx_ndarray_t*** out_outputs);

/* An argument of rlx_vm_invoke_args: a tensor, a non-tensor value in the tensor form that
 * rlx_vm_invoke describes (a 0-d int / bool / float tensor for an R.Prim, a 1-d int64
 * tensor for an R.Shape), or a tuple of arguments (an R.Tuple parameter; nested tuples
 * allowed). At the top level a tensor and a value are read alike, by the parameter's kind;
 * inside a tuple the kind given decides. Nothing is copied. */
typedef enum { RLX_VM_INPUT_TENSOR, RLX_VM_INPUT_VALUE, RLX_VM_INPUT_TUPLE, RLX_VM_INPUT_NONE } rlx_vm_input_kind_t;
typedef struct rlx_vm_input {
  rlx_vm_input_kind_t kind;
  DLTensor* tensor;                /* TENSOR / VALUE */
  int n_fields;                    /* TUPLE: fields[0..n_fields) */
  const struct rlx_vm_input* fields;
} rlx_vm_input_t;

/* As rlx_vm_invoke, with arguments that may be tuples (R.Tuple parameters). Errors as
 * rlx_vm_invoke's; a tuple for a tensor parameter, or a field of the wrong kind, is
 * INVALID_ARGUMENT naming the parameter and the field ("main: parameter t, field 1: expected
 * a Tensor, got Tuple"). */
RLX_MUST_USE rlx_status_t* rlx_vm_invoke_args(rlx_vm_t* vm, const char* name, int n_inputs, const rlx_vm_input_t* inputs, int* out_n,
                                              rlx_ndarray_t*** out_outputs);

/* A result of rlx_vm_invoke_values, kept as the function returned it: a tensor (kind
 * RLX_VM_INPUT_TENSOR; ints, floats and shapes in the tensor form rlx_vm_invoke gives them),
 * a tuple (RLX_VM_INPUT_TUPLE: a static-length Relax tuple or a list whose length was decided
 * at run time, e.g. an ONNX sequence) or nothing (RLX_VM_INPUT_NONE: an empty ONNX optional).
 * Owns its tensor reference and its fields (a heap array); release with rlx_vm_value_clear. */
typedef struct rlx_vm_value {
  rlx_vm_input_kind_t kind;
  rlx_ndarray_t* tensor;
  int n_fields;
  struct rlx_vm_value* fields;
} rlx_vm_value_t;

/* Releases what v owns (recursively) and leaves it an empty NONE. NULL is ignored. */
void rlx_vm_value_clear(rlx_vm_value_t* v);

/* As rlx_vm_invoke_args, but the result keeps its structure (a tuple result is one TUPLE
 * value, nested tuples nested) in *out_result, which the caller clears with
 * rlx_vm_value_clear; and every argument is read by the kind given, at the top level too: a
 * TENSOR for a non-tensor parameter (R.Object: an ONNX optional holding a tensor) stays a
 * tensor, NONE passes the null value (an empty optional). Errors as rlx_vm_invoke_args'. */
RLX_MUST_USE rlx_status_t* rlx_vm_invoke_values(rlx_vm_t* vm, const char* name, int n_inputs, const rlx_vm_input_t* inputs,
                                                rlx_vm_value_t* out_result);

/* Sets the number of threads the model's kernels (and the extra libraries) use. */
void rlx_vm_set_num_threads(rlx_vm_t* vm, int n);

/* ---- profiling ----
 * While profiling is on, every call the VM makes to a packed function (kernels, external
 * functions, VM builtins) is timed with a monotonic clock and counted, and so is the wall
 * time of each rlx_vm_invoke. Off by default; off costs one pointer test per call. */

/* Turns profiling on (counters reset to zero) or off (counters dropped). Errors:
 * OUT_OF_MEMORY. */
RLX_MUST_USE rlx_status_t* rlx_vm_profile_enable(rlx_vm_t* vm, bool on);

/* One packed function's figures since profiling was turned on. */
typedef struct {
  const char* name;      /* the function's name (owned by the VM) */
  const char* symbol;    /* its symbol, e.g. rlx_fn_fused_matmul_add (owned by the VM) */
  bool builtin;          /* a VM builtin (allocation, shape checks ...) */
  int64_t calls;
  double total_ms;
  double flops_per_call; /* floating-point operations of one call when the compiler counted
                            them (contractions: 2 * the product of the loop extents; the
                            runtime's rlx.nn.* kernels: from their shapes); -1 unknown */
  const char* layer;     /* the runtime's rlx.nn.* kernels serve every layer and have one entry
                            per call site: the layer's shapes, "(1,4,56,56,16)->(1,8,28,28,16),3x3"
                            (owned by the VM); NULL for the other functions */
} rlx_vm_profile_entry_t;

/* The figures of every packed function called at least once (the runtime's kernels once per
 * call site), sorted by total time (largest first), in *out_entries (a heap array the caller frees with free(); *out_n entries);
 * *out_run_ms: the wall time of the invokes (so 100 * total_ms / run_ms is a share of the
 * run; the rest is the interpreter itself), *out_runs: how many. FLOP counts come from the
 * model's `rlx_vm_kernel_flops` table ("SYMBOL FLOPS" lines) when it has one. Errors:
 * INVALID_ARGUMENT when profiling is off. */
RLX_MUST_USE rlx_status_t* rlx_vm_profile_get(const rlx_vm_t* vm, rlx_vm_profile_entry_t** out_entries, int* out_n,
                                              double* out_run_ms, int64_t* out_runs);

/* Prints an executable as text: a header with the format version, the constants
 * (c[k] = tensor float32 (2, 3), 24 bytes 0x<hex> | int 5 | float 1.5 | str "s" | dtype
 * int64; a NaN float as `float nan bits 0x<16 hex digits>`; tensor data over 4096 bytes is
 * not shown), then the function table in order:
 * packed functions as `packed NAME [symbol SYMBOL]` lines, VM functions as
 *   function main(x: float32 ndim=2 "(n, 4)", w: float32 ndim=2 "(4, m)") registers=9  ; ...
 *        0: %2 = call vm.builtin.alloc_shape_heap(i2)
 *        3: %5 = call matmul(%0, %1, %4)  ; symbol rlx_fn_matmul
 *        4: if %5 else goto +2  ; to 6
 *        8: ret %5
 * (arguments: %r register, iN immediate, c[k] constant, with its value after ':' when
 * short, f[name] function). The bytes are verified first (errors as rlx_vm_load).
 * *out_text is a heap string the caller frees. The text reads back with rlx_vm_assemble. */
RLX_MUST_USE rlx_status_t* rlx_vm_disassemble(const void* exec_bytes, size_t n, char** out_text);

/* The same for a compiled model shared object (reads its `rlx_vm_executable`). */
RLX_MUST_USE rlx_status_t* rlx_vm_disassemble_model(const char* model_so, char** out_text);

/* The inverse of rlx_vm_disassemble: reads the text (comments after ';' ignored; tensor
 * constants need their hex data, which the disassembler prints up to 4096 bytes) and
 * returns the executable's bytes (*out_bytes heap, the caller frees), verified as
 * rlx_vm_load would. assemble(disassemble(bytes)) gives back the same bytes. PARSE_ERROR
 * names the line and what was expected there. */
RLX_MUST_USE rlx_status_t* rlx_vm_assemble(const char* text, void** out_bytes, size_t* out_n);

#ifdef __cplusplus
}
#endif
#endif
