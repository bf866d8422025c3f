/* TensorIR: buffers, statements, blocks and PrimFuncs; statement visitors/mutators.
 *
 * Nodes are arena-allocated in an rlx_ctx_t and immutable after construction (build a new
 * node to change one). Loops are identified by their loop var (unique pointer), blocks by
 * name (unique within a PrimFunc).
 *
 * Before lowering, computation lives in blocks (BlockRealize → Block) as TE and TVMScript
 * write it. Lowering (the driver's TIR stage, src/transform/tir/) turns blocks into plain loops, allocates block alloc_buffers
 * with ALLOCATE statements and flattens buffers to one dimension.
 */
#ifndef RLX_TIR_H
#define RLX_TIR_H

#include "../ir/ir.h"

/* ------------------------------------------------------------------ buffers */
typedef struct rlx_tir_buffer {
  const char* name;
  rlx_var_t* data; /* handle var; the param for buffers in a buffer map */
  rlx_dtype_t dtype;
  int ndim;
  rlx_expr_t** shape;   /* ndim exprs, int64 or int32 */
  rlx_expr_t** strides; /* NULL = compact row-major */
  rlx_expr_t* elem_offset; /* NULL = 0 */
  const char* scope;       /* "global" (default) or "local" */
} rlx_tir_buffer_t;

rlx_tir_buffer_t* rlx_tir_buffer_create(rlx_ctx_t* ctx, const char* name, rlx_dtype_t dtype, int ndim,
                                        rlx_expr_t* const* shape, const char* scope);

typedef struct {
  rlx_expr_t* min;
  rlx_expr_t* extent;
} rlx_range_t;

typedef enum { RLX_ITER_SPATIAL, RLX_ITER_REDUCE } rlx_iter_kind_t; /* "S", "R" in T.axis.remap */
typedef struct rlx_iter_var {
  rlx_var_t* var;
  rlx_range_t dom;
  rlx_iter_kind_t kind;
} rlx_iter_var_t;
rlx_iter_var_t* rlx_tir_iter_var(rlx_ctx_t* ctx, rlx_var_t* v, rlx_expr_t* min, rlx_expr_t* extent,
                                 rlx_iter_kind_t kind);

typedef struct {
  rlx_tir_buffer_t* buffer;
  int ndim;
  rlx_range_t* region; /* ndim ranges; extent 1 prints as a single index */
} rlx_buffer_region_t;

/* ------------------------------------------------------------------ statements */
typedef enum {
#define X(E, S) RLX_STMT_##E,
#include "stmt.def"
#undef X
  RLX_STMT_KIND_COUNT
} rlx_tir_stmt_kind_t;
const char* rlx_tir_stmt_kind_name(rlx_tir_stmt_kind_t k);

typedef struct rlx_tir_stmt {
  rlx_tir_stmt_kind_t kind;
} rlx_tir_stmt_t;

typedef struct {
  rlx_tir_stmt_t hdr;
  rlx_tir_buffer_t* buffer;
  rlx_expr_t* value;
  int n_indices;
  rlx_expr_t** indices; /* a RAMP index makes a vector store */
} rlx_tir_store_t;

typedef enum { RLX_FOR_SERIAL, RLX_FOR_PARALLEL, RLX_FOR_VECTORIZED, RLX_FOR_UNROLLED } rlx_for_kind_t;
typedef struct {
  rlx_tir_stmt_t hdr;
  rlx_var_t* var;
  rlx_expr_t* min;
  rlx_expr_t* extent;
  rlx_for_kind_t for_kind;
  rlx_tir_stmt_t* body;
} rlx_tir_for_t;

typedef struct {
  rlx_tir_stmt_t hdr;
  int n;
  rlx_tir_stmt_t** stmts;
} rlx_tir_seq_t;

typedef struct {
  rlx_tir_stmt_t hdr;
  rlx_expr_t* cond;
  rlx_tir_stmt_t* then_case;
  rlx_tir_stmt_t* else_case; /* NULL = none */
} rlx_tir_if_t;

typedef struct {
  rlx_tir_stmt_t hdr;
  rlx_var_t* var;
  rlx_expr_t* value;
  rlx_tir_stmt_t* body;
} rlx_tir_let_t;

typedef struct {
  rlx_tir_stmt_t hdr;
  rlx_expr_t* value;
} rlx_tir_evaluate_t;

/* A block: the unit of computation that schedules work on (TVM's Block). */
typedef struct rlx_tir_block {
  const char* name;
  int n_iter_vars;
  rlx_iter_var_t** iter_vars;
  int n_reads;
  rlx_buffer_region_t* reads;
  int n_writes;
  rlx_buffer_region_t* writes;
  rlx_tir_stmt_t* init; /* NULL = none (reduction init, runs when all reduce vars are at min) */
  rlx_tir_stmt_t* body;
  int n_alloc_buffers;
  rlx_tir_buffer_t** alloc_buffers;
  int n_annotations; /* key → value (IntImm / StringImm) */
  const char** annotation_keys;
  rlx_expr_t** annotation_values;
} rlx_tir_block_t;

/* Binds the block's iter vars to values (expressions of the surrounding loop vars). */
typedef struct {
  rlx_tir_stmt_t hdr;
  int n_values; /* == block->n_iter_vars */
  rlx_expr_t** iter_values;
  rlx_expr_t* predicate; /* NULL = true */
  rlx_tir_block_t* block;
} rlx_tir_block_realize_t;

/* Allocates buffer (scope global → heap/stack array, local → registers) for body. */
typedef struct {
  rlx_tir_stmt_t hdr;
  rlx_tir_buffer_t* buffer;
  rlx_tir_stmt_t* body;
} rlx_tir_allocate_t;

rlx_tir_stmt_t* rlx_tir_store(rlx_ctx_t* ctx, rlx_tir_buffer_t* b, rlx_expr_t* value, int n,
                              rlx_expr_t* const* indices);
rlx_tir_stmt_t* rlx_tir_for(rlx_ctx_t* ctx, rlx_var_t* v, rlx_expr_t* min, rlx_expr_t* extent,
                            rlx_for_kind_t kind, rlx_tir_stmt_t* body);
/* Flattens nested seqs; a seq of one statement is that statement. */
rlx_tir_stmt_t* rlx_tir_seq(rlx_ctx_t* ctx, int n, rlx_tir_stmt_t* const* stmts);
rlx_tir_stmt_t* rlx_tir_if(rlx_ctx_t* ctx, rlx_expr_t* cond, rlx_tir_stmt_t* then_case,
                           rlx_tir_stmt_t* else_case);
rlx_tir_stmt_t* rlx_tir_let(rlx_ctx_t* ctx, rlx_var_t* v, rlx_expr_t* value, rlx_tir_stmt_t* body);
rlx_tir_stmt_t* rlx_tir_evaluate(rlx_ctx_t* ctx, rlx_expr_t* value);
rlx_tir_stmt_t* rlx_tir_block_realize(rlx_ctx_t* ctx, int n, rlx_expr_t* const* values,
                                      rlx_expr_t* predicate, rlx_tir_block_t* block);
rlx_tir_stmt_t* rlx_tir_allocate(rlx_ctx_t* ctx, rlx_tir_buffer_t* b, rlx_tir_stmt_t* body);
/* A shallow copy of a block (arrays copied too), for building a modified block. */
rlx_tir_block_t* rlx_tir_block_copy(rlx_ctx_t* ctx, const rlx_tir_block_t* b);

/* ------------------------------------------------------------------ PrimFunc */
typedef struct rlx_tir_func {
  const char* name; /* global symbol */
  int n_params;
  rlx_var_t** params;            /* handle vars for buffers, int vars for scalars */
  rlx_tir_buffer_t** buffer_map; /* parallel to params; NULL entry for scalar params */
  rlx_tir_stmt_t* body;
  int n_attrs; /* T.func_attr: key → IntImm (bool/int), FloatImm, StringImm, or a list / dict
                * (a call of RLX_TIR_ATTR_LIST / RLX_TIR_ATTR_DICT, below) */
  const char** attr_keys;
  rlx_expr_t** attr_values;
  bool is_private; /* @T.prim_func(private=True) */
} rlx_tir_func_t;

/* Pseudo-ops holding list and dict attribute values ({"layout_free_buffers": [1]}): a call of
 * RLX_TIR_ATTR_LIST has the items as arguments, of RLX_TIR_ATTR_DICT key (StringImm), value,
 * key, value... They only appear as attribute values, never in a body. */
#define RLX_TIR_ATTR_LIST "tir.attr_list"
#define RLX_TIR_ATTR_DICT "tir.attr_dict"
/* A buffer as an attribute value (TVM's T.block_attr({"layout_free_placeholders": [B]})): a
 * call of RLX_TIR_ATTR_BUFFER with the buffer's data var as its one argument. */
#define RLX_TIR_ATTR_BUFFER "tir.attr_buffer"

rlx_tir_func_t* rlx_tir_func_create(rlx_ctx_t* ctx, const char* name, int n_params, rlx_var_t* const* params,
                                    rlx_tir_buffer_t* const* buffer_map, rlx_tir_stmt_t* body);
/* A shallow copy (arrays copied) for building a modified function. */
rlx_tir_func_t* rlx_tir_func_copy(rlx_ctx_t* ctx, const rlx_tir_func_t* f);
/* Returns a copy with attribute key set (replaced if present). */
rlx_expr_t* rlx_tir_func_get_attr(const rlx_tir_func_t* f, const char* key); /* NULL if absent */

/* ------------------------------------------------------------------ traversal (functor.c) */
/* Pre-order visit of every statement (f_stmt) and every expression inside statements,
 * including loop bounds, indices, block iter values/doms, regions (f_expr; each top-level
 * expression tree once, not its sub-expressions). Either callback may be NULL. */
typedef struct {
  void (*f_stmt)(const rlx_tir_stmt_t* s, void* user);
  void (*f_expr)(const rlx_expr_t* e, void* user);
  void (*f_block)(const rlx_tir_block_t* b, void* user);
  void* user;
} rlx_tir_visitor_t;
void rlx_tir_stmt_visit(const rlx_tir_stmt_t* s, const rlx_tir_visitor_t* v);
/* The same walk with callbacks that can fail: it stops at the first error a callback returns
 * and returns it as it is (issue 13's convention). rlx_tir_stmt_visit is this walk. */
typedef struct {
  rlx_status_t* (*f_stmt)(const rlx_tir_stmt_t* s, void* user);
  rlx_status_t* (*f_expr)(const rlx_expr_t* e, void* user);
  rlx_status_t* (*f_block)(const rlx_tir_block_t* b, void* user);
  void* user;
} rlx_tir_try_visitor_t;
RLX_MUST_USE rlx_status_t* rlx_tir_stmt_try_visit(const rlx_tir_stmt_t* s, const rlx_tir_try_visitor_t* v);

/* Post-order statement rewrite: children first, then f_stmt(rebuilt) returns the replacement.
 * f_expr (may be NULL) is applied to every top-level expression (via rlx_expr_transform by the
 * caller's choice: f_expr receives the whole tree and returns its replacement). */
typedef struct {
  rlx_tir_stmt_t* (*f_stmt)(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, void* user);
  rlx_expr_t* (*f_expr)(rlx_ctx_t* ctx, rlx_expr_t* e, void* user);
  void* user;
} rlx_tir_mutator_t;
rlx_tir_stmt_t* rlx_tir_stmt_mutate(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, const rlx_tir_mutator_t* m);

/* Substitutes variables (rlx_var_t* → rlx_expr_t*) in every expression of s. Buffers whose
 * shape uses a substituted var are not rewritten. */
rlx_tir_stmt_t* rlx_tir_stmt_substitute(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, const rlx_ptrmap_t* vmap);
/* Replaces buffers (rlx_tir_buffer_t* → rlx_tir_buffer_t*) in loads, stores, regions and
 * alloc lists. Indices are unchanged. */
rlx_tir_stmt_t* rlx_tir_stmt_replace_buffers(rlx_ctx_t* ctx, rlx_tir_stmt_t* s, const rlx_ptrmap_t* bmap);

/* Finds the BlockRealize of the block called name; NULL if none. */
rlx_tir_block_realize_t* rlx_tir_find_block(rlx_tir_stmt_t* body, const char* name);

/* ------------------------------------------------------------------ structural (structural.c) */
/* Structural equality of PrimFuncs / statements: params, buffers, loop vars, iter vars and
 * let vars are mapped by definition position; names are ignored. */
bool rlx_tir_stmt_equal(const rlx_tir_stmt_t* a, const rlx_tir_stmt_t* b);

/* ------------------------------------------------------------------ verify (verify.c) */
/* Well-formedness: every var used is defined (param, shape var bound by the buffer map,
 * loop var, iter var, let), block iter values only use loop vars in scope, buffers used are
 * in the buffer map or allocated. Error names the function and the first problem. */
RLX_MUST_USE rlx_status_t* rlx_tir_verify(const rlx_tir_func_t* f);

#endif
