/* The VM executable: constants, function table and instruction stream, in memory and as
 * bytes (the versioned file format). Internal to rlx: the compiler's VM codegen builds an
 * rlx_vm_exec_t with the helpers below and serializes it; the VM parses and verifies bytes
 * back into one. Runtime code only (part of librlx_runtime).
 *
 * File format (little-endian; every count and index is checked on load):
 *
 *   "RLXEXEC\0"  u32 version (RLX_VM_FORMAT_VERSION)
 *   u32 n_consts, then per constant: u8 kind
 *     TENSOR: u8 code, u8 bits, u16 lanes, i32 ndim, i64 shape[ndim], u64 nbytes, bytes
 *     INT: i64   FLOAT: f64   STR: u32 len, bytes   DTYPE: u8 code, u8 bits, u16 lanes
 *   u32 n_funcs, then per function: str name, u8 kind
 *     VM:     u32 n_params, per param: str name, str shape text, u8 dtype code, u8 bits,
 *             u16 lanes, i32 ndim (-1 unknown rank, -2 not a tensor);
 *             u32 n_regs, u64 first instruction, u64 end instruction
 *     PACKED: str symbol (looked up in libraries; for kernels rlx_fn_<name>)
 *   u64 n_instrs, then per instruction: u8 opcode
 *     CALL: u32 dst, u32 func, u32 n_args, per arg: u8 kind, i64 value
 *     RET: u32 reg     GOTO: i64 offset     IF: u32 cond, i64 false offset
 *   (strings: u32 length, bytes, no NUL)
 *
 * Instructions (a register machine like Relax VM):
 *   %dst = call f(args)   f is a VM function (new frame) or a packed function (a kernel,
 *                         an extern function or a VM builtin "vm.builtin.*");
 *                         an argument is a register %r, an immediate int64 iN, a
 *                         constant c[k] or a function f[k]
 *   ret %r                returns register r's value from the function
 *   goto +k               pc += k
 *   if %c, +k             when %c is false (0, or a 0-d tensor holding 0): pc += k; else pc += 1
 * Registers 0..n_params-1 hold the arguments at function entry.
 */
#ifndef RLX_RUNTIME_VM_EXEC_H
#define RLX_RUNTIME_VM_EXEC_H

#include "../support/support.h"
#include "rlx/runtime.h"

#define RLX_VM_MAGIC "RLXEXEC"
#define RLX_VM_FORMAT_VERSION 1u
/* Limits checked by the verifier (a corrupted count never makes us allocate the moon). */
#define RLX_VM_MAX_NDIM 64
#define RLX_VM_MAX_REGS (1 << 20)
/* The disassembler prints tensor constants up to this many bytes in full (hex). */
#define RLX_VM_DISASM_MAX_DATA 4096

typedef enum { RLX_VM_OP_CALL, RLX_VM_OP_RET, RLX_VM_OP_GOTO, RLX_VM_OP_IF } rlx_vm_opcode_t;

typedef enum { RLX_VM_ARG_REG, RLX_VM_ARG_IMM, RLX_VM_ARG_CONST, RLX_VM_ARG_FUNC } rlx_vm_arg_kind_t;

typedef struct {
  rlx_vm_arg_kind_t kind;
  int64_t value;
} rlx_vm_arg_t;

/* One instruction. CALL: dst, func, args[first_arg .. first_arg + n_args) of the exec's
 * arg pool. RET: reg = dst. GOTO: offset. IF: cond register = dst, offset when false. */
typedef struct {
  rlx_vm_opcode_t op;
  int32_t dst;
  int32_t func;
  int32_t n_args;
  int64_t first_arg;
  int64_t offset;
} rlx_vm_instr_t;

typedef enum {
  RLX_VM_CONST_TENSOR,
  RLX_VM_CONST_INT,
  RLX_VM_CONST_FLOAT,
  RLX_VM_CONST_STR,
  RLX_VM_CONST_DTYPE
} rlx_vm_const_kind_t;

typedef struct {
  rlx_vm_const_kind_t kind;
  int64_t i;
  double f;
  char* s;          /* STR (heap, NUL-terminated) */
  DLDataType dtype; /* TENSOR, DTYPE */
  int ndim;         /* TENSOR */
  int64_t* shape;   /* TENSOR (heap) */
  void* data;       /* TENSOR (heap, nbytes) */
  size_t nbytes;
} rlx_vm_const_t;

typedef enum { RLX_VM_FUNC_VM, RLX_VM_FUNC_PACKED } rlx_vm_func_kind_t;

/* Parameter ndim marker for a parameter that is not a tensor. */
#define RLX_VM_PARAM_NOT_TENSOR (-2)

typedef struct {
  char* name;
  rlx_vm_func_kind_t kind;
  char* symbol; /* PACKED */
  /* VM */
  int n_params;
  char** param_names;
  char** param_shapes; /* printed expected shape, "(n, 4)"; "" when unknown */
  DLDataType* param_dtypes; /* bits 0 = unknown */
  int32_t* param_ndims;
  int n_regs;
  int64_t begin, end; /* instruction range [begin, end) */
} rlx_vm_func_t;

/* The executable, heap-owned; free with rlx_vm_exec_free. */
typedef struct rlx_vm_exec {
  RLX_VEC(rlx_vm_const_t) consts;
  RLX_VEC(rlx_vm_func_t) funcs;
  RLX_VEC(rlx_vm_instr_t) instrs;
  RLX_VEC(rlx_vm_arg_t) args;
  bool oom; /* a builder call could not allocate (it returned -1): serializing fails */
} rlx_vm_exec_t;

rlx_vm_exec_t* rlx_vm_exec_create(void);
void rlx_vm_exec_free(rlx_vm_exec_t* e);

/* ---- conventions of the shape builtins, shared by the VM and lower_shapes ---- */
/* Per-dim kinds of vm.builtin.match_shape / match_prim_value (and 0/1 of make_shape). */
typedef enum {
  RLX_VM_MATCH_ASSERT_IMM = 0, /* equals the immediate */
  RLX_VM_MATCH_STORE = 1,      /* stored into the heap slot (make_shape: read from it) */
  RLX_VM_MATCH_ASSERT_SLOT = 2, /* equals the heap slot */
  RLX_VM_MATCH_SKIP = 3        /* not checked */
} rlx_vm_match_kind_t;
/* Opcodes of vm.builtin.shape_compute programs (postfix, int64). */
typedef enum {
  RLX_VM_SC_PUSH_IMM = 0,
  RLX_VM_SC_PUSH_SLOT,
  RLX_VM_SC_ADD,
  RLX_VM_SC_SUB,
  RLX_VM_SC_MUL,
  RLX_VM_SC_FLOORDIV,
  RLX_VM_SC_FLOORMOD,
  RLX_VM_SC_MIN,
  RLX_VM_SC_MAX,
  RLX_VM_SC_EQ,
  RLX_VM_SC_NE,
  RLX_VM_SC_LT,
  RLX_VM_SC_LE,
  RLX_VM_SC_GT,
  RLX_VM_SC_GE,
  RLX_VM_SC_AND,
  RLX_VM_SC_OR
} rlx_vm_shape_op_t;

/* ---- building (compiler side and hand-assembled tests). Indices are returned. ---- */
int rlx_vm_exec_add_tensor(rlx_vm_exec_t* e, DLDataType dtype, int ndim, const int64_t* shape,
                           const void* data, size_t nbytes);
int rlx_vm_exec_add_int(rlx_vm_exec_t* e, int64_t v);
int rlx_vm_exec_add_float(rlx_vm_exec_t* e, double v);
/* Strings and dtypes are shared: the same value gives the same index. */
int rlx_vm_exec_add_str(rlx_vm_exec_t* e, const char* s);
int rlx_vm_exec_add_dtype(rlx_vm_exec_t* e, DLDataType dtype);
/* A packed function by display name and symbol (symbol NULL = name); shared by symbol. */
int rlx_vm_exec_add_packed(rlx_vm_exec_t* e, const char* name, const char* symbol);
/* A VM function with params (names copied); its instruction range starts at the current
 * end of the stream; call rlx_vm_exec_end_func after emitting its body. */
int rlx_vm_exec_begin_func(rlx_vm_exec_t* e, const char* name, int n_params, const char* const* param_names);
/* Describes parameter i of VM function f (for checks, rlx_vm_function_info). */
void rlx_vm_exec_set_param_info(rlx_vm_exec_t* e, int f, int i, DLDataType dtype, int ndim, const char* shape);
void rlx_vm_exec_end_func(rlx_vm_exec_t* e, int f, int n_regs);
/* Index of the function called name, or -1. */
int rlx_vm_exec_find_func(const rlx_vm_exec_t* e, const char* name);

/* Instructions; each returns its index (pc). */
int64_t rlx_vm_exec_emit_call(rlx_vm_exec_t* e, int dst, int func, int n_args, const rlx_vm_arg_t* args);
int64_t rlx_vm_exec_emit_ret(rlx_vm_exec_t* e, int reg);
int64_t rlx_vm_exec_emit_goto(rlx_vm_exec_t* e, int64_t offset);
int64_t rlx_vm_exec_emit_if(rlx_vm_exec_t* e, int cond, int64_t false_offset);
static inline rlx_vm_arg_t rlx_vm_reg(int64_t r) { rlx_vm_arg_t a = {RLX_VM_ARG_REG, r}; return a; }
static inline rlx_vm_arg_t rlx_vm_imm(int64_t v) { rlx_vm_arg_t a = {RLX_VM_ARG_IMM, v}; return a; }
static inline rlx_vm_arg_t rlx_vm_const(int64_t k) { rlx_vm_arg_t a = {RLX_VM_ARG_CONST, k}; return a; }
static inline rlx_vm_arg_t rlx_vm_func(int64_t f) { rlx_vm_arg_t a = {RLX_VM_ARG_FUNC, f}; return a; }

/* ---- bytes ---- */
/* Serializes e; *out_bytes is heap-owned by the caller. */
RLX_MUST_USE rlx_status_t* rlx_vm_exec_serialize(const rlx_vm_exec_t* e, void** out_bytes, size_t* out_n);
/* Parses and verifies bytes (magic, version, every count, index, register and jump
 * target). PARSE_ERROR naming the byte offset and what was being read. */
RLX_MUST_USE rlx_status_t* rlx_vm_exec_parse(const void* bytes, size_t n, rlx_vm_exec_t** out_exec);

#endif
