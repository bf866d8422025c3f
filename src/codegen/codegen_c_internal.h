/* Internal state shared by the C code generator's files:
 *   codegen_c.c          -- functions, statements, allocations, local scalarization
 *   codegen_c_expr.c     -- expressions (scalar and GCC vector extensions), C types
 *   codegen_c_wrapper.c  -- the self-contained prelude and the packed-ABI wrappers
 */
#ifndef RLX_CODEGEN_C_INTERNAL_H
#define RLX_CODEGEN_C_INTERNAL_H

#include "../tir/tir.h"

/* A local buffer turned into separate C variables `<base>_<offset>`, one per chunk of
 * `chunk` lanes (a vector variable when chunk > 1). */
typedef struct {
  const char* base;
  rlx_dtype_t dtype; /* element dtype (lanes 1) */
  int64_t size;      /* elements */
  int chunk;         /* lanes per variable */
} cg_scalar_buf_t;

/* A buffer's data pointer: C name and the element dtype it was declared with. */
typedef struct {
  const char* name;
  rlx_dtype_t elem;
} cg_ptr_t;

/* A vector type used by the generated code (emitted once in the prelude). */
typedef struct {
  rlx_dtype_t elem; /* lanes 1; bool masks are stored as int32 lanes */
  int lanes;
} cg_vtype_t;

typedef RLX_VEC(cg_vtype_t) cg_vtype_vec_t;

/* A C variable in scope at the current point of a kernel, for capture by an outlined
 * parallel loop: its name and C type (ctype NULL: it cannot be captured -- a buffer held in
 * registers). Pointers are captured as `ctype restrict`, values as `const ctype`. */
typedef struct {
  const char* name;
  const char* ctype;
  bool ptr;
} cg_scope_var_t;

typedef struct {
  rlx_ctx_t* ctx;
  const char* fname;    /* PrimFunc name, for messages */
  rlx_strbuf_t* out;    /* where text goes */
  int indent;
  int tmp;              /* counter for fresh temporaries */
  int parallel_depth;   /* > 0 inside a parallel loop */
  rlx_ptrmap_t names;   /* rlx_var_t* → const char* C name */
  RLX_VEC(const char*) used; /* C names taken in this function */
  rlx_ptrmap_t ptrs;    /* data var → cg_ptr_t* */
  rlx_ptrmap_t scalar;  /* data var → cg_scalar_buf_t* */
  rlx_ptrmap_t nonneg;  /* var → non-NULL when known >= 0 */
  rlx_ptrmap_t data_vars; /* let var → non-NULL when its value reads tensor data */
  cg_vtype_vec_t* vtypes; /* shared across functions */
  bool kws;             /* heap temporaries outside parallel loops come from rlx_kws */
  rlx_expr_t* kws_bytes; /* bytes of rlx_kws used so far (int64, the kernel's variables) */
  rlx_status_t* err;    /* first error; emission goes on harmlessly after it */
  bool pool;            /* parallel loops run on the runtime's pool (outlined), not OpenMP */
  const char* kernel;   /* C name of the kernel being emitted */
  int n_outlined;       /* outlined parallel loops of this kernel so far */
  rlx_strbuf_t* pre;    /* outlined functions, emitted before the kernel */
  RLX_VEC(cg_scope_var_t) scope; /* C variables in scope (see cg_scope_var_t) */
} cg_t;

/* Records an error (the first one wins). */
void cg_fail(cg_t* g, rlx_status_code_t code, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
/* A fresh, unique C identifier derived from hint. */
const char* cg_fresh_name(cg_t* g, const char* hint);
/* Name of a variable (binding a fresh one when bind is true and it has none). */
const char* cg_var_name(cg_t* g, const rlx_var_t* v, bool bind);
void cg_indent(cg_t* g);
void cg_line(cg_t* g, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/* C type of a scalar value / of buffer storage / of a vector (registers the vector type). */
const char* cg_scalar_ctype(rlx_dtype_t t);
const char* cg_storage_ctype(rlx_dtype_t t);
const char* cg_vec_ctype(cg_t* g, rlx_dtype_t t);
/* C type of a value of dtype t (scalar or vector). */
const char* cg_value_ctype(cg_t* g, rlx_dtype_t t);

/* Appends the C expression for e. */
void cg_expr(cg_t* g, const rlx_expr_t* e);
/* Appends e coerced to `lanes` lanes (a scalar is broadcast). */
void cg_expr_lanes(cg_t* g, const rlx_expr_t* e, int lanes);
/* Flat index of an access (multi-index accesses are flattened row-major). */
rlx_expr_t* cg_flat_index(cg_t* g, const rlx_tir_buffer_t* b, int n, rlx_expr_t* const* idx);
/* Value of an integer expression made of constants only. */
bool cg_const_eval(const rlx_expr_t* e, int64_t* out);
/* True when e is provably >= 0 (constants, non-negative vars, + * / % min max of such). */
bool cg_nonneg(cg_t* g, const rlx_expr_t* e);
/* True when e reads tensor data (a load, a call, a let variable bound to one): an integer
 * divisor that does may be zero at run time, so the division is guarded (it sets the
 * kernel's rlx_fault flag instead of trapping); index arithmetic keeps C's operators. */
bool cg_reads_data(cg_t* g, const rlx_expr_t* e);

/* Prelude: includes, ABI types, the error setter, scalar helpers (standalone: no dlopen, a
 * weak RLXAPISetLastError the program may replace); then vector typedefs and helpers. */
void cg_emit_prelude(rlx_strbuf_t* out, bool standalone, const rlx_target_t* t);
/* Lanes of the widest libmvec variant the target has that divides `lanes` (16 AVX-512, 8
 * AVX2, 4 SSE on x86-64), 0 when none (aarch64 and portable targets: lane by lane). */
int cg_mvec_lanes(const rlx_target_t* t, int lanes);
void cg_emit_error_setter(rlx_strbuf_t* out, bool standalone);
void cg_emit_vtypes(rlx_strbuf_t* out, const cg_vtype_t* v, int n);
/* Packed wrapper of f calling `kernel` (kernel params: buffer pointers in param order,
 * scalar params, then shape vars in first-use order, which this fills in). */
void cg_emit_wrapper(cg_t* g, const rlx_tir_func_t* f, const char* kernel, int n_shape_vars,
                     rlx_var_t* const* shape_vars);
/* Collects the shape vars of f's buffer map not bound by a scalar param, in first-use
 * order. */
int cg_shape_vars(const rlx_tir_func_t* f, rlx_var_t** out, int max);

#endif
