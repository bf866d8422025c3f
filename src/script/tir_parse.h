/* Private to src/script: state shared by the TIR script builder (tir_parser.c: statements,
 * functions, modules) and its expression half (tir_expr.c: PrimExpr evaluation, buffer
 * regions, access-region inference). */
#ifndef RLX_SCRIPT_TIR_PARSE_H
#define RLX_SCRIPT_TIR_PARSE_H

#include "pyast.h"
#include "script.h"

typedef enum { SYM_VAR, SYM_BUFFER } sym_kind_t;
typedef struct {
  const char* name;
  sym_kind_t kind;
  void* ptr;
  int depth;
} sym_t;

typedef struct {
  rlx_var_t* var;
  rlx_expr_t* min;
  rlx_expr_t* extent;
} loop_dom_t;

typedef struct {
  rlx_ctx_t* ctx;
  rlx_arena_t* ast;
  const char* file;
  const char* tir_alias; /* "T" */
  const char* ir_alias;  /* "I" */
  const char* relax_alias; /* "R" */
  const char* module_name; /* the @I.ir_module class being parsed (NULL outside one) */
  RLX_VEC(sym_t) syms;
  int depth;
  RLX_VEC(loop_dom_t) loops; /* enclosing loops, for T.axis.remap */
  bool contains_block;
  int scope_nest; /* statements nesting the rest of their block (let, decl_buffer) */
  /* metadata["relax.expr.Constant"][i]: the script's metadata section (has_meta), read
   * before any function; without one the references are elided constants */
  bool has_meta;
  int n_meta;
  const rlx_relax_constant_t** meta;
  /* symbolic variables of the enclosing Python scope (rlx_script_parse_scope), defined in
   * every function */
  int n_scope_vars;
  rlx_var_t** scope_vars;
} tp_t;

RLX_MUST_USE rlx_status_t* tp_err(tp_t* p, const py_expr_t* e, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
RLX_MUST_USE rlx_status_t* tp_err_at(tp_t* p, rlx_span_t sp, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

/* The enclosing Python scope's values (scope.c): substitutes the bound names in top and
 * records the symbolic variables; tp_scope_define defines those in the current frame. */
RLX_MUST_USE rlx_status_t* tp_scope_apply(tp_t* p, int n, const rlx_script_binding_t* bindings, py_block_t* top);
void tp_scope_define(tp_t* p);

/* A `@T.prim_func def ...` statement → PrimFunc (tir_parser.c). */
RLX_MUST_USE rlx_status_t* tp_parse_prim_func(tp_t* p, const py_stmt_t* s, rlx_tir_func_t** out);
/* Short description of a statement kind for error messages ("'for'", "an assignment"). */
const char* tp_stmt_desc(const py_stmt_t* s);

/* Symbols (scoped by frame depth). */
void tp_define(tp_t* p, const char* name, sym_kind_t kind, void* ptr);
sym_t* tp_lookup(tp_t* p, const char* name);
void tp_frame_push(tp_t* p);
void tp_frame_pop(tp_t* p);

/* "T.max" → "max" when e is a dotted name under the TIR alias; NULL otherwise. */
const char* tp_tname(tp_t* p, const py_expr_t* e);
/* A dtype given as "float32" or T.float32. */
RLX_MUST_USE rlx_status_t* tp_dtype(tp_t* p, const py_expr_t* e, rlx_dtype_t* out);
/* Python expression → PrimExpr. */
RLX_MUST_USE rlx_status_t* tp_eval(tp_t* p, const py_expr_t* e, rlx_expr_t** out);
/* The positional arguments of a call, evaluated; `*B.shape` of a buffer B gives its dims. */
RLX_MUST_USE rlx_status_t* tp_eval_items(tp_t* p, const py_expr_t* call, int* out_n, rlx_expr_t*** out);
/* Integer literal (possibly negative) → value. */
bool tp_int_literal(const py_expr_t* e, int64_t* out);
/* A shape: tuple/list of PrimExprs or a single one. */
RLX_MUST_USE rlx_status_t* tp_shape(tp_t* p, const py_expr_t* e, int* out_n, rlx_expr_t*** out);
/* The buffer a name refers to. */
RLX_MUST_USE rlx_status_t* tp_buffer(tp_t* p, const py_expr_t* e, rlx_tir_buffer_t** out);
/* `A[i, 0:4]` → buffer region (T.reads / T.writes). */
RLX_MUST_USE rlx_status_t* tp_region(tp_t* p, const py_expr_t* e, rlx_buffer_region_t* out);
/* Indices of a subscript (slices with constant length become Ramps). */
RLX_MUST_USE rlx_status_t* tp_indices(tp_t* p, const py_expr_t* sub, rlx_tir_buffer_t* b, int* out_n, rlx_expr_t*** out);
/* stop - start, simplified for the common `a + c` stop. */
rlx_expr_t* tp_extent(tp_t* p, rlx_expr_t* start, rlx_expr_t* stop);
/* Finds call argument i or keyword `kw` (either may be absent). */
const py_expr_t* tp_arg(const py_expr_t* call, int i, const char* kw);
/* Reads/writes of a block body as TVM infers them when T.reads/T.writes are omitted. */
void tp_infer_access(tp_t* p, const rlx_tir_stmt_t* body, const rlx_tir_stmt_t* init, int n_alloc,
                     rlx_tir_buffer_t* const* allocs, int* n_reads, rlx_buffer_region_t** reads, int* n_writes,
                     rlx_buffer_region_t** writes);

#endif
