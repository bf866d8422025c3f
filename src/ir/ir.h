/* rlx IR core: the compiler context (arena), data types, PrimExpr nodes over symbolic int64
 * variables, the arithmetic simplifier/prover, structural equality/hashing, and IRModule.
 *
 * Ownership: every node is allocated in an rlx_ctx_t arena and freed with the context.
 * Nodes are immutable once built: a pass that changes a node builds a new one.
 * Variables have identity: two rlx_var_t* are the same variable iff the pointers are equal
 * (names are for printing only). Structural equality maps variables by definition site.
 */
#ifndef RLX_IR_H
#define RLX_IR_H

#include <stdbool.h>
#include <stdint.h>

#include "../support/support.h"
#include "../support/target.h"
#include "rlx/dtype.h"
#include "rlx/rlx.h" /* the public API: its functions are declared there only */
#include "rlx/status.h"

/* ------------------------------------------------------------------ context */
/* Runs PrimFunc f on args (n DLTensors in parameter order; a scalar parameter is a 0-d
 * tensor holding its value) as compiled code: constant folding's way to run calls too large
 * for the TIR interpreter. The build layer (src/build/) installs its C backend's in the
 * pass context of what it compiles, so the passes do not depend on it. */
typedef rlx_status_t* (*rlx_fold_runner_t)(rlx_ctx_t* ctx, const rlx_tir_func_t* f, DLTensor** args, int n);

/* The compile context (TVM's PassContext): what the compilations of one rlx_ctx_t are for and
 * how they run. Every pass and code generator reads it through the context they are given;
 * nothing of it lives in process globals. Set through the public API (rlx_ctx_set_*). */
typedef struct {
  rlx_target_t target;           /* the host (detected when the context was made) unless set */
  const char* target_error;      /* arena: why the host could not be detected (RLX_MAX_ISA), or NULL */
  rlx_fold_runner_t fold_runner; /* NULL: the interpreter only, under its work limit */
  const char* cc;                /* arena: the C compiler's words; NULL: a foreign target's cross compiler, else $CC, else cc */
  const char* cache_dir;         /* arena: kernel cache; NULL: $RLX_CACHE_DIR, ~/.cache/rlx, /tmp/rlx-cache-UID */
  bool keep_source;              /* leave generated C beside its object in the cache ($RLX_KEEP_SOURCE too) */
  /* what the build layer learnt of the last compiler it ran (arena; cc_probe_for: its words):
   * its version and machine, and whether it links libmvec, asked once per context */
  const char* cc_probe_for;
  const char* cc_version;
  bool cc_libmvec;
} rlx_pass_context_t;

typedef struct rlx_ctx {
  rlx_arena_t arena;
  int next_id; /* for rlx_ctx_fresh_name */
  rlx_pass_context_t pass;
} rlx_ctx_t;

/* A context with the host as target and no fold runner; the public rlx_ctx_create
 * (src/api/api.c) also installs the build layer's. NULL when out of memory. */
rlx_ctx_t* rlx_ctx_new(void);
/* The context's target (never NULL). */
static inline const rlx_target_t* rlx_ctx_target_of(const rlx_ctx_t* ctx) { return &ctx->pass.target; }
/* NULL, or why the context has no valid target (a malformed RLX_MAX_ISA): the compile
 * entry points return it before they start. */
RLX_MUST_USE rlx_status_t* rlx_ctx_target_check(const rlx_ctx_t* ctx);

/* Allocation failure (docs/ARCHITECTURE.md, "Allocation failure"): a failed arena
 * allocation marks the context (sticky), and counts on the thread as a failed push, put or
 * append of a container does (rlx_alloc_failures). The drivers (the parser,
 * the pass pipeline, the code generators, the printers) read the count when they start a
 * stage and call rlx_ctx_check when it ends, so nothing built after a failure is used: the
 * failure reaches the caller as an OUT_OF_MEMORY status.
 * rlx_ctx_alloc CAN return NULL: after a failure it serves from the arena's spare chunk,
 * and returns NULL when that is gone too, and at once for one request over 64 KiB. Code
 * that asks for a size the data decides (a constant's bytes, a packed weight, a state
 * tensor) checks for NULL and returns OUT_OF_MEMORY (or NULL from a constructor that has no
 * status, as rlx_relax_constant); small fixed-size nodes and arrays are not checked one by
 * one (the spare serves them until the next check). */
void* rlx_ctx_alloc(rlx_ctx_t* ctx, size_t size); /* zeroed */
bool rlx_ctx_failed(const rlx_ctx_t* ctx);
/* st, or (freeing st) an OUT_OF_MEMORY status when the context has failed or an allocation
 * failed on this thread since `mark` (a value of rlx_alloc_failures(); the context is then
 * marked failed): out of memory takes precedence over an error it may have caused (a
 * lookup in a map that lost a put). */
RLX_MUST_USE rlx_status_t* rlx_ctx_check(rlx_ctx_t* ctx, uint64_t mark, rlx_status_t* st) __attribute__((warn_unused_result));
#define RLX_NEW(ctx, T) ((T*)rlx_ctx_alloc((ctx), sizeof(T)))
#define RLX_NEW_ARRAY(ctx, T, n) ((T*)rlx_ctx_alloc((ctx), sizeof(T) * (size_t)((n) > 0 ? (n) : 1)))
const char* rlx_ctx_strdup(rlx_ctx_t* ctx, const char* s);
const char* rlx_ctx_sprintf(rlx_ctx_t* ctx, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/* Source location for diagnostics. file NULL = unknown. */
typedef struct {
  const char* file;
  int line, col;
} rlx_span_t;
/* Error with location: "file:line:col: message" (location omitted when unknown). */
RLX_MUST_USE rlx_status_t* rlx_error(rlx_status_code_t code, rlx_span_t span, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------ dtypes */
static inline rlx_dtype_t rlx_dtype(int code, int bits, int lanes) {
  rlx_dtype_t t = {(uint8_t)code, (uint8_t)bits, (uint16_t)lanes};
  return t;
}
static inline rlx_dtype_t rlx_dt_bool(void) { return rlx_dtype(RLX_DT_UINT, 1, 1); }
static inline rlx_dtype_t rlx_dt_int32(void) { return rlx_dtype(RLX_DT_INT, 32, 1); }
static inline rlx_dtype_t rlx_dt_int64(void) { return rlx_dtype(RLX_DT_INT, 64, 1); }
static inline rlx_dtype_t rlx_dt_float32(void) { return rlx_dtype(RLX_DT_FLOAT, 32, 1); }
static inline rlx_dtype_t rlx_dt_float64(void) { return rlx_dtype(RLX_DT_FLOAT, 64, 1); }
static inline rlx_dtype_t rlx_dt_handle(void) { return rlx_dtype(RLX_DT_HANDLE, 64, 1); }
static inline bool rlx_dtype_eq(rlx_dtype_t a, rlx_dtype_t b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}
static inline rlx_dtype_t rlx_dtype_with_lanes(rlx_dtype_t t, int lanes) {
  t.lanes = (uint16_t)lanes;
  return t;
}
static inline bool rlx_dtype_is_bool(rlx_dtype_t t) { return t.code == RLX_DT_UINT && t.bits == 1; }
static inline bool rlx_dtype_is_float(rlx_dtype_t t) { return t.code == RLX_DT_FLOAT || t.code == RLX_DT_BFLOAT; }
static inline bool rlx_dtype_is_int(rlx_dtype_t t) {
  return (t.code == RLX_DT_INT || t.code == RLX_DT_UINT) && t.bits > 1;
}
/* "float32", "int64", "bool", "uint8", "float16", "handle", "float32x16" (lanes > 1).
 * buf must hold 32 bytes; returns buf. */
const char* rlx_dtype_str(rlx_dtype_t t, char buf[32]);
/* Parses the names above (and "void" → handle with bits 0). false when unknown. */
bool rlx_dtype_parse(const char* s, rlx_dtype_t* out);
/* Bytes per element (lanes included); bool is 1 byte. */
int rlx_dtype_bytes(rlx_dtype_t t);

/* ------------------------------------------------------------------ PrimExpr */
typedef enum {
#define X(E, S) RLX_EXPR_##E,
#include "expr.def"
#undef X
  RLX_EXPR_KIND_COUNT
} rlx_expr_kind_t;
const char* rlx_expr_kind_name(rlx_expr_kind_t k);

/* Common header of every expression node. */
typedef struct rlx_expr {
  rlx_expr_kind_t kind;
  rlx_dtype_t dtype;
} rlx_expr_t;

struct rlx_tir_buffer; /* defined in tir/tir.h */
struct rlx_iter_var;

typedef struct {
  rlx_expr_t hdr;
  int64_t value;
} rlx_int_imm_t;
typedef struct {
  rlx_expr_t hdr;
  double value;
} rlx_float_imm_t;
typedef struct {
  rlx_expr_t hdr;
  const char* value;
} rlx_string_imm_t;
/* A variable. dtype int64/int32 for shape and loop vars, handle for buffer data pointers. */
typedef struct rlx_var {
  rlx_expr_t hdr;
  const char* name;
} rlx_var_t;
/* ADD .. OR. DIV is C division (floats: true division). MOD is truncated (C %). */
typedef struct {
  rlx_expr_t hdr;
  rlx_expr_t* a;
  rlx_expr_t* b;
} rlx_binary_t;
typedef struct {
  rlx_expr_t hdr;
  rlx_expr_t* a;
} rlx_not_t;
typedef struct {
  rlx_expr_t hdr;
  rlx_expr_t* cond;
  rlx_expr_t* t;
  rlx_expr_t* f;
} rlx_select_t;
typedef struct {
  rlx_expr_t hdr; /* hdr.dtype is the target type */
  rlx_expr_t* value;
} rlx_cast_t;
typedef struct {
  rlx_expr_t hdr;
  rlx_var_t* var;
  rlx_expr_t* value;
  rlx_expr_t* body;
} rlx_let_t;
typedef struct {
  rlx_expr_t hdr;
  struct rlx_tir_buffer* buffer;
  int n_indices;
  rlx_expr_t** indices; /* a RAMP index makes a vector load (hdr.dtype has lanes) */
} rlx_buffer_load_t;
/* Intrinsic call. op is the bare name of an intrin.def line: "exp", "pow", "if_then_else"
 * ... (T.exp prints as T.exp). */
typedef struct {
  rlx_expr_t hdr;
  const char* op;
  int n_args;
  rlx_expr_t** args;
} rlx_call_t;
typedef enum { RLX_REDUCE_SUM, RLX_REDUCE_PROD, RLX_REDUCE_MAX, RLX_REDUCE_MIN } rlx_reduce_kind_t;
/* TE reduction, only valid as the body of a TE compute. */
typedef struct {
  rlx_expr_t hdr;
  rlx_reduce_kind_t combiner;
  rlx_expr_t* source;
  int n_axis;
  struct rlx_iter_var** axis;
  rlx_expr_t* condition; /* NULL = true */
  rlx_expr_t* init;      /* the accumulator's start (TVM's init=); NULL = the combiner's identity */
} rlx_reduce_t;
/* Vector of lanes values base, base+stride, ... (after vectorization). */
typedef struct {
  rlx_expr_t hdr;
  rlx_expr_t* base;
  rlx_expr_t* stride;
  int lanes;
} rlx_ramp_t;
typedef struct {
  rlx_expr_t hdr;
  rlx_expr_t* value;
  int lanes;
} rlx_broadcast_t;

static inline bool rlx_expr_is_binary(rlx_expr_kind_t k) { return k >= RLX_EXPR_ADD && k <= RLX_EXPR_OR; }

/* Constructors. They do only light folding: two constants of a binary op fold, x+0, x*1,
 * x*0 (ints) fold. Operand dtypes must agree; an int64 and an int constant mix by taking
 * the non-constant's dtype. Comparisons/logic return bool. */
rlx_expr_t* rlx_ir_binary(rlx_ctx_t* ctx, rlx_expr_kind_t k, rlx_expr_t* a, rlx_expr_t* b);
/* int64 constant arithmetic (+, -, *) whose result int64 cannot hold is not folded: the
 * node stays, and stays unsimplified, so that shape inference can report it instead of
 * wrapping (4 * 2^62 would fold to 0). True for such a node: an int64 +, - or * whose
 * operands are constants or such nodes themselves. */
bool rlx_expr_is_int64_overflow(const rlx_expr_t* e);
rlx_expr_t* rlx_ir_cmp(rlx_ctx_t* ctx, rlx_expr_kind_t k, rlx_expr_t* a, rlx_expr_t* b); /* EQ..GE */
rlx_expr_t* rlx_ir_let(rlx_ctx_t* ctx, rlx_var_t* var, rlx_expr_t* value, rlx_expr_t* body);
rlx_expr_t* rlx_ir_load(rlx_ctx_t* ctx, struct rlx_tir_buffer* buf, int n, rlx_expr_t* const* indices);

/* A TIR intrinsic: one line of intrin.def (the list, with what each column means). */
typedef struct {
  const char* name;
  int n_args;
  bool returns_bool;
  bool parsed;          /* the TIR parser accepts T.<name> */
  const char* c_f32;    /* C function for float32 arguments; NULL: not in the C backend */
  const char* c_f64;    /* the same for float64 */
  const char* mvec_f32; /* float32 function with libmvec versions (every x86 variant), or NULL */
  /* The interpreter's libm-style function (NULL when it evaluates the call otherwise). */
  double (*interp_d1)(double);
  float (*interp_f1)(float);
  double (*interp_d2)(double, double);
  float (*interp_f2)(float, float);
} rlx_intrin_t;

/* The intrinsic called name, or NULL. */
const rlx_intrin_t* rlx_intrin_find(const char* name);
rlx_expr_t* rlx_ir_reduce(rlx_ctx_t* ctx, rlx_reduce_kind_t comb, rlx_expr_t* src, int n_axis,
                          struct rlx_iter_var* const* axis, rlx_expr_t* cond);
rlx_expr_t* rlx_ir_ramp(rlx_ctx_t* ctx, rlx_expr_t* base, rlx_expr_t* stride, int lanes);
rlx_expr_t* rlx_ir_broadcast(rlx_ctx_t* ctx, rlx_expr_t* v, int lanes);
/* Children of e in a fixed order (binary: a,b; select: cond,t,f; cast/not/broadcast: value;
 * let: value, body; load: indices; call: args; reduce: source, condition?; ramp: base, stride).
 * Returns the count; writes at most max. Let's var and Reduce's axes are not children. */
int rlx_expr_children(const rlx_expr_t* e, rlx_expr_t** out, int max);
/* A node like e with the given children (same order as rlx_expr_children); e itself when
 * every child is pointer-equal to the old one. */
rlx_expr_t* rlx_expr_rebuild(rlx_ctx_t* ctx, rlx_expr_t* e, rlx_expr_t* const* kids);
/* Post-order rewrite: children are transformed first, the node is rebuilt, then f(node)
 * returns its replacement (return the node itself to keep it). f may be NULL (identity). */
typedef rlx_expr_t* (*rlx_expr_fn_t)(rlx_ctx_t* ctx, rlx_expr_t* e, void* user);
rlx_expr_t* rlx_expr_transform(rlx_ctx_t* ctx, rlx_expr_t* e, rlx_expr_fn_t f, void* user);

/* Value of an integer constant. */
static inline bool rlx_expr_is_const_int(const rlx_expr_t* e, int64_t* v) {
  if (e && e->kind == RLX_EXPR_INT_IMM) {
    if (v) *v = ((const rlx_int_imm_t*)e)->value;
    return true;
  }
  return false;
}
#define RLX_AS(T, e) ((T*)(e))

/* ------------------------------------------------------------------ analysis (simplify.c) */
/* An analyzer knows ranges of variables (loop vars, block iter vars, shape vars ≥ 0...). */
typedef struct rlx_analyzer rlx_analyzer_t;
rlx_analyzer_t* rlx_analyzer_create(rlx_ctx_t* ctx); /* arena-owned, no free needed */
/* Declares min <= v < min + extent (constants or expressions). */
void rlx_analyzer_bind(rlx_analyzer_t* an, rlx_var_t* v, rlx_expr_t* min, rlx_expr_t* extent);
/* Declares v >= 0 without an upper bound (shape variables). */
void rlx_analyzer_bind_nonneg(rlx_analyzer_t* an, rlx_var_t* v);
rlx_expr_t* rlx_analyzer_simplify(rlx_analyzer_t* an, rlx_expr_t* e);
/* True only if cond holds for every assignment consistent with the bindings. */
bool rlx_analyzer_can_prove(rlx_analyzer_t* an, rlx_expr_t* cond);
/* Constant bounds of an integer expression; false when unbounded. */
bool rlx_analyzer_const_bound(rlx_analyzer_t* an, rlx_expr_t* e, int64_t* out_min, int64_t* out_max);
/* Shorthands with an empty analyzer. */
rlx_expr_t* rlx_ir_simplify(rlx_ctx_t* ctx, rlx_expr_t* e);
bool rlx_ir_prove_equal(rlx_ctx_t* ctx, rlx_expr_t* a, rlx_expr_t* b);

/* ------------------------------------------------------------------ structural (structural.c) */
/* The two expression equalities; use one of them (no file-local copies):
 *  - rlx_expr_equal: equal as trees (same kinds, dtypes, constants; NaN equals NaN). Free
 *    variables are equal iff identical pointers, unless mapped by an enclosing definition
 *    (Let, Reduce axis). Index and extent comparisons in schedules, the parser and passes.
 *  - rlx_expr_same_value: integer constants equal by value whatever their int dtypes (an
 *    int32 4 and an int64 4: shapes and extents built by different code), else
 *    rlx_expr_equal.
 * (The simplifier's canonical ordering, rlx_arith_expr_cmp, is an order, not one of these;
 * proving two expressions equal under arithmetic is rlx_ir_prove_equal.) */
bool rlx_expr_equal(const rlx_expr_t* a, const rlx_expr_t* b);
bool rlx_expr_same_value(const rlx_expr_t* a, const rlx_expr_t* b);
uint64_t rlx_expr_hash(const rlx_expr_t* e);
/* Replaces variables per the map (rlx_var_t* → rlx_expr_t*). Returns e when unchanged. */
rlx_expr_t* rlx_expr_substitute(rlx_ctx_t* ctx, rlx_expr_t* e, const rlx_ptrmap_t* vmap);
/* Calls f on every sub-expression, pre-order (including e). */
void rlx_expr_visit(const rlx_expr_t* e, void (*f)(const rlx_expr_t*, void*), void* user);
/* rlx_expr_visit with a callback that can fail: the walk stops at the first error f returns
 * and returns it as it is (issue 13's convention for callbacks that can fail). */
typedef rlx_status_t* (*rlx_expr_try_fn_t)(const rlx_expr_t* e, void* user);
RLX_MUST_USE rlx_status_t* rlx_expr_try_visit(const rlx_expr_t* e, rlx_expr_try_fn_t f, void* user);
bool rlx_expr_uses_var(const rlx_expr_t* e, const rlx_var_t* v);

/* ------------------------------------------------------------------ evaluation (eval.c) */
/* Variable environment for evaluating integer expressions: var → value. */
typedef struct {
  rlx_ptrmap_t slots; /* rlx_var_t* → index into values (stored as index + 1) */
  RLX_VEC(int64_t) values;
} rlx_int_env_t;
void rlx_int_env_set(rlx_int_env_t* env, const rlx_var_t* v, int64_t value);
bool rlx_int_env_get(const rlx_int_env_t* env, const rlx_var_t* v, int64_t* out);
void rlx_int_env_free(rlx_int_env_t* env);
/* Evaluates an integer/bool expression (constants, vars from env, arithmetic, floor and
 * truncating division, min/max, comparisons, logic, select, casts between ints).
 * Errors: an unbound variable (named), division by zero, a non-integer node. */
RLX_MUST_USE rlx_status_t* rlx_ir_eval_int(const rlx_expr_t* e, const rlx_int_env_t* env, int64_t* out);

/* ------------------------------------------------------------------ IRModule (module.c) */
typedef enum { RLX_FUNC_TIR, RLX_FUNC_RELAX } rlx_func_kind_t;
typedef struct {
  const char* name; /* global symbol */
  rlx_func_kind_t kind;
  void* func; /* rlx_tir_func_t* (RLX_FUNC_TIR) or rlx_relax_func_t* (RLX_FUNC_RELAX) */
} rlx_module_entry_t;
typedef struct rlx_module {
  rlx_ctx_t* ctx;
  int n_funcs, cap_funcs;
  rlx_module_entry_t* funcs; /* arena-owned, in insertion order */
} rlx_module_t;

/* Adds or replaces the function called name. */
void rlx_module_set(rlx_module_t* m, const char* name, rlx_func_kind_t kind, void* func);
rlx_module_entry_t* rlx_module_find(rlx_module_t* m, const char* name);
/* A name not yet used in the module: base, base1, base2, ... */
const char* rlx_module_unique_name(rlx_module_t* m, const char* base);

#endif
