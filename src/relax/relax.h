/* Relax: the graph-level IR (modelled on TVM's Relax).
 *
 * Expressions, bindings, binding blocks (plain and dataflow), functions and struct info with
 * symbolic shapes; struct-info inference for the generic nodes and for the calls that connect
 * to TIR and to external code; traversal helpers; a well-formedness checker; structural
 * equality and hashing; and the BlockBuilder that builds functions the way TVM's
 * relax.BlockBuilder does (emit_te / call_te included).
 *
 * Files: expr.def (node kinds), expr.c (constructors, attrs), struct_info.c (struct info),
 * normalize.c (inference, purity), functor.c (traversal), well_formed.c, structural.c,
 * block_builder.c.
 *
 * Ownership and identity
 * - Every node lives in the rlx_ctx_t arena and is freed with it.
 * - Nodes are immutable, with one exception taken from TVM: an expression's struct info
 *   (hdr.sinfo) may be NULL when the node is built and is then filled in ONCE by
 *   normalization (rlx_relax_normalize / the BlockBuilder); likewise a Function's ret_sinfo.
 *   Function params must carry struct info; a var bound by a binding may be built with NULL
 *   struct info and gets the value's (a MatchCast: its sinfo) from normalization.
 * - Vars (Var, DataflowVar) have identity: the same variable iff the pointers are equal.
 *   Names are hints for printing only.
 * - Symbolic shape variables are rlx_var_t* (int64) PrimExpr vars with identity. A function
 *   defines one where it first appears as a whole dim of a param's struct info (or of a
 *   match_cast's); other uses must follow a definition. The PrimFuncs emit_te creates use
 *   their own fresh copies (as TVM), so no var is shared between the two IRs.
 *
 * The three calls that connect the IRs, in the exact form produced and expected:
 * - R.call_tir(gv, (a, b), out_sinfo=S[, tir_vars=R.shape([..])]):
 *     Call{op = Op "relax.call_tir", args = [GlobalVar, Tuple(a, b)[, ShapeExpr]],
 *          sinfo_args = [S]}   S is a Tensor or a Tuple of Tensors; the call's sinfo is S.
 * - R.call_dps_packed("f", (a, b), out_sinfo=S):
 *     Call{op = Op "relax.call_dps_packed", args = [ExternFunc "f", Tuple(a, b)], sinfo_args = [S]}
 * - R.call_packed("f", a, b, sinfo_args=(S...)):  (impure)
 *     Call{op = ExternFunc "f", args = [a, b], sinfo_args = [S...]}; sinfo = S0, a Tuple of
 *     them when several, Object when none.
 * - R.call_pure_packed("f", a, b, sinfo_args=(S...)):  (pure)
 *     Call{op = Op "relax.call_pure_packed", args = [ExternFunc "f", a, b], sinfo_args = [S...]}
 */
#ifndef RLX_RELAX_H
#define RLX_RELAX_H

#include "../ir/ir.h"
#include "../tir/te.h"
#include "../tir/tir.h"

/* ------------------------------------------------------------------ struct info */
typedef enum {
  RLX_SINFO_OBJECT,
  RLX_SINFO_PRIM,
  RLX_SINFO_SHAPE,
  RLX_SINFO_TENSOR,
  RLX_SINFO_TUPLE,
  RLX_SINFO_FUNC
} rlx_sinfo_kind_t;

typedef struct rlx_sinfo {
  rlx_sinfo_kind_t kind;
} rlx_sinfo_t;

/* R.Object: anything. */
typedef struct {
  rlx_sinfo_t hdr;
} rlx_sinfo_object_t;
/* R.Prim(dtype) or R.Prim(value=v): a scalar; value NULL = unknown. */
typedef struct {
  rlx_sinfo_t hdr;
  rlx_dtype_t dtype;
  rlx_expr_t* value;
} rlx_sinfo_prim_t;
/* R.Shape([..]) / R.Shape(ndim=k) / R.Shape: ndim -1 = unknown; values NULL = unknown
 * (values has ndim int64 PrimExprs when known). */
typedef struct {
  rlx_sinfo_t hdr;
  int ndim;
  rlx_expr_t** values;
} rlx_sinfo_shape_t;
/* R.Tensor((..), dtype=..): ndim -1 = unknown; shape NULL = unknown (ndim int64 PrimExprs
 * when known); dtype void (rlx_dt_void) = unknown. */
typedef struct {
  rlx_sinfo_t hdr;
  int ndim;
  rlx_expr_t** shape;
  rlx_dtype_t dtype;
} rlx_sinfo_tensor_t;
/* R.Tuple(f0, f1, ...). */
typedef struct {
  rlx_sinfo_t hdr;
  int n_fields;
  rlx_sinfo_t** fields;
} rlx_sinfo_tuple_t;
/* R.Callable((params), ret, purity). n_params -1 = opaque (params unknown). */
typedef struct {
  rlx_sinfo_t hdr;
  int n_params;
  rlx_sinfo_t** params;
  rlx_sinfo_t* ret;
  bool is_pure;
} rlx_sinfo_func_t;

/* The unknown dtype of Tensor struct info (TVM's DataType::Void()). */
static inline rlx_dtype_t rlx_dt_void(void) { return rlx_dtype(RLX_DT_HANDLE, 0, 1); }
static inline bool rlx_dtype_is_void(rlx_dtype_t t) { return t.code == RLX_DT_HANDLE && t.bits == 0; }

/* Shorthand for a tensor with constant dims. */
rlx_sinfo_t* rlx_sinfo_tensor_const(rlx_ctx_t* ctx, int ndim, const int64_t* dims, rlx_dtype_t dtype);
rlx_sinfo_t* rlx_sinfo_func(rlx_ctx_t* ctx, int n_params, rlx_sinfo_t* const* params, rlx_sinfo_t* ret,
                            bool is_pure);
/* A function whose params are unknown (ExternFunc, PrimFunc seen from Relax). */
rlx_sinfo_t* rlx_sinfo_func_opaque(rlx_ctx_t* ctx, rlx_sinfo_t* ret, bool is_pure);

/* Equality. Symbolic dims are compared with the arithmetic prover (n*m equals m*n); free
 * symbolic variables are equal only when identical. ctx holds the prover's scratch nodes. */
bool rlx_sinfo_equal(rlx_ctx_t* ctx, const rlx_sinfo_t* a, const rlx_sinfo_t* b);
/* True when every value described by derived is also described by base (TVM's
 * IsBaseOf): Object is the base of everything; R.Tensor(ndim=2) is the base of
 * R.Tensor((n, 4), "float32"); a Func with unknown params is the base of every Func of the
 * same purity or any pure Func when it is impure. Dims compare with the prover. */
bool rlx_sinfo_is_base_of(rlx_ctx_t* ctx, const rlx_sinfo_t* base, const rlx_sinfo_t* derived);
/* Least common ancestor (the most precise struct info that both a and b derive from);
 * used for the two branches of an If. */
rlx_sinfo_t* rlx_sinfo_lca(rlx_ctx_t* ctx, rlx_sinfo_t* a, rlx_sinfo_t* b);
/* Appends the TVMScript form, as TVM's printer writes it: R.Tensor((n, 4), dtype="float32"),
 * R.Tensor(dtype="float32", ndim=2), R.Tensor, R.Tuple(..), R.Tuple, R.Shape([n, 4]),
 * R.Shape(ndim=2), R.Shape(ndim=-1), R.Prim("int64"), R.Prim(value=n), R.Object,
 * R.Callable((..), ret, True), R.Callable (opaque, impure, Object ret),
 * R.Callable(ret=.., purity=True). NULL prints as "<none>". Symbolic vars print bare; the
 * script printer quotes them ("n") where TVM does (a function signature's first use). */
void rlx_sinfo_print(const rlx_sinfo_t* s, rlx_strbuf_t* sb);
/* The one struct-info printer, with each dim (and R.Prim value) printed by dim(user, e, sb)
 * (the TVMScript printer quotes signature vars) and NULL struct info printed as none. */
typedef void (*rlx_sinfo_dim_fn_t)(void* user, const rlx_expr_t* e, rlx_strbuf_t* sb);
void rlx_sinfo_print_ex(const rlx_sinfo_t* s, rlx_strbuf_t* sb, rlx_sinfo_dim_fn_t dim, void* user,
                        const char* none);
/* Appends a shape PrimExpr as TVMScript writes it inside R.Tensor: 128, n, n * m, n // 2,
 * T.max(a, b) ... (int64 constants without T.int64). */
void rlx_relax_prim_print(const rlx_expr_t* e, rlx_strbuf_t* sb);
/* The same with the TVMScript printer's choices (NULL hooks, or a NULL field: the form
 * above): null_text for a NULL expression ("<null>"), a var's name (its name), a float's
 * digits (%.17g), a string literal ("%s" unescaped); *used_tir (may be NULL) is set when a
 * `T.` form is printed. One printer for both, so the two cannot drift apart. */
typedef struct {
  const char* null_text;
  const char* (*var_name)(void* user, const rlx_var_t* v);
  void (*put_float)(rlx_strbuf_t* sb, double v);
  void (*put_string)(rlx_strbuf_t* sb, const char* s);
  void* user;
  bool* used_tir;
} rlx_prim_print_hooks_t;
void rlx_relax_prim_print_ex(const rlx_expr_t* e, rlx_strbuf_t* sb, const rlx_prim_print_hooks_t* hooks);

/* Calls f on every symbolic variable used in s (each occurrence, in order). */
void rlx_sinfo_visit_vars(const rlx_sinfo_t* s, void (*f)(rlx_var_t* v, bool whole_dim, void* user),
                          void* user);
/* TVM's EraseToWellDefined: a copy of s where every dim / prim value that uses a symbolic var
 * for which is_defined(v) is false becomes unknown (the rank stays known). is_defined NULL =
 * no var is defined. Returns s itself when nothing changes. */
rlx_sinfo_t* rlx_sinfo_erase_undefined(rlx_ctx_t* ctx, rlx_sinfo_t* s, bool (*is_defined)(rlx_var_t* v, void* user),
                                       void* user);

/* ------------------------------------------------------------------ attrs */
typedef enum {
  RLX_ATTR_BOOL,
  RLX_ATTR_INT,
  RLX_ATTR_FLOAT,
  RLX_ATTR_STR,
  RLX_ATTR_DTYPE,
  RLX_ATTR_INTS, /* list of int64 (axes, strides, padding ...) */
  RLX_ATTR_EXPR  /* a PrimExpr */
} rlx_attr_kind_t;

typedef struct {
  const char* key;
  rlx_attr_kind_t kind;
  union {
    bool b;
    int64_t i;
    double f;
    const char* s;
    rlx_dtype_t dtype;
    struct {
      int n;
      int64_t* v;
    } ints;
    rlx_expr_t* expr;
  } u;
} rlx_attr_t;

/* A small key → value list, in insertion order (keys unique). */
typedef struct {
  int n;
  rlx_attr_t* items;
} rlx_attrs_t;

/* A copy of attrs with key set (replaced when present). The value is copied from v (its key
 * is ignored). */
rlx_attrs_t rlx_attrs_set(rlx_ctx_t* ctx, rlx_attrs_t attrs, const char* key, rlx_attr_t v);
const rlx_attr_t* rlx_attrs_get(const rlx_attrs_t* attrs, const char* key); /* NULL if absent */
static inline rlx_attr_t rlx_attr_bool(bool b) { rlx_attr_t a = {0}; a.kind = RLX_ATTR_BOOL; a.u.b = b; return a; }
static inline rlx_attr_t rlx_attr_int(int64_t i) { rlx_attr_t a = {0}; a.kind = RLX_ATTR_INT; a.u.i = i; return a; }
static inline rlx_attr_t rlx_attr_float(double f) { rlx_attr_t a = {0}; a.kind = RLX_ATTR_FLOAT; a.u.f = f; return a; }
static inline rlx_attr_t rlx_attr_str(const char* s) { rlx_attr_t a = {0}; a.kind = RLX_ATTR_STR; a.u.s = s; return a; }
static inline rlx_attr_t rlx_attr_dtype(rlx_dtype_t t) { rlx_attr_t a = {0}; a.kind = RLX_ATTR_DTYPE; a.u.dtype = t; return a; }
static inline rlx_attr_t rlx_attr_ints(int n, int64_t* v) { rlx_attr_t a = {0}; a.kind = RLX_ATTR_INTS; a.u.ints.n = n; a.u.ints.v = v; return a; }
static inline rlx_attr_t rlx_attr_expr(rlx_expr_t* e) { rlx_attr_t a = {0}; a.kind = RLX_ATTR_EXPR; a.u.expr = e; return a; }
bool rlx_attr_equal(const rlx_attr_t* a, const rlx_attr_t* b);

/* ------------------------------------------------------------------ expressions */
typedef enum {
#define X(E, S) RLX_RELAX_##E,
#include "expr.def"
#undef X
  RLX_RELAX_KIND_COUNT
} rlx_relax_kind_t;
const char* rlx_relax_kind_name(rlx_relax_kind_t k);

/* Common header of every Relax expression. sinfo: see "Ownership" above. */
typedef struct rlx_relax_expr {
  rlx_relax_kind_t kind;
  rlx_sinfo_t* sinfo;
} rlx_relax_expr_t;

/* Var and DataflowVar (kind tells which). A DataflowVar is visible only inside its
 * dataflow block. */
typedef struct rlx_relax_var {
  rlx_relax_expr_t hdr;
  const char* name;
} rlx_relax_var_t;

/* A host tensor constant: data holds prod(shape) * dtype bytes, row-major, in the arena. */
typedef struct {
  rlx_relax_expr_t hdr;
  rlx_dtype_t dtype;
  int ndim;
  int64_t* shape;
  void* data;
  size_t nbytes;
} rlx_relax_constant_t;

typedef struct {
  rlx_relax_expr_t hdr;
  int n_fields;
  struct rlx_relax_expr** fields;
} rlx_relax_tuple_t;

typedef struct {
  rlx_relax_expr_t hdr;
  rlx_relax_expr_t* tuple;
  int index;
} rlx_relax_tuple_get_item_t;

/* R.shape([n, 4]): int64 PrimExprs. */
typedef struct {
  rlx_relax_expr_t hdr;
  int ndim;
  rlx_expr_t** values;
} rlx_relax_shape_expr_t;

/* R.prim_value(v): a PrimExpr as a Relax value. */
typedef struct {
  rlx_relax_expr_t hdr;
  rlx_expr_t* value;
} rlx_relax_prim_value_t;

/* R.str("..."). */
typedef struct {
  rlx_relax_expr_t hdr;
  const char* value;
} rlx_relax_string_imm_t;

/* R.dtype("float32"). */
typedef struct {
  rlx_relax_expr_t hdr;
  rlx_dtype_t value;
} rlx_relax_dtype_imm_t;

/* The Relax operators, one constant per line of op.def: RLX_OP_ADD, RLX_OP_CONV2D,
 * RLX_OP_CALL_TIR ... (the name without "relax." or "relax.nn."). Code names ops by these,
 * never by string, so a misspelt op is a compile error. */
typedef enum {
#define RLX_OP(ID, NAME, FAMILY, INFER, LEGALIZE, PURITY, PARAMS) RLX_OP_##ID,
#include "op.def"
  RLX_OP_COUNT
} rlx_op_id_t;

struct rlx_op_def;

/* An operator ("relax.call_tir", "relax.add" ...). def is its op.def entry (op.h), NULL for
 * a name that is no op (the parser and the C API make those; normalization rejects their
 * calls). Two Op nodes with the same name are the same operator. Ops have no struct info of
 * their own. */
typedef struct {
  rlx_relax_expr_t hdr;
  const char* name;
  const struct rlx_op_def* def;
} rlx_relax_op_t;

/* op(args...) with attrs and explicit struct info arguments (sinfo_args). op is an Op, a
 * GlobalVar, an ExternFunc, a Var of function struct info, or any expression of Func sinfo. */
typedef struct {
  rlx_relax_expr_t hdr;
  rlx_relax_expr_t* op;
  int n_args;
  rlx_relax_expr_t** args;
  rlx_attrs_t attrs;
  int n_sinfo_args;
  rlx_sinfo_t** sinfo_args;
} rlx_relax_call_t;

typedef struct {
  rlx_relax_expr_t hdr;
  rlx_relax_expr_t* cond; /* a Prim("bool") value or a Tensor of bool of rank 0 */
  rlx_relax_expr_t* then_branch;
  rlx_relax_expr_t* else_branch;
} rlx_relax_if_t;

typedef enum { RLX_BINDING_VAR, RLX_BINDING_MATCH_CAST } rlx_binding_kind_t;

/* var = value (VarBinding) or var = R.match_cast(value, sinfo) (MatchCast). A MatchCast
 * defines the symbolic vars that appear as whole dims of sinfo and are not yet defined,
 * and checks the rest at run time; var's struct info is sinfo. */
typedef struct rlx_relax_binding {
  rlx_binding_kind_t kind;
  rlx_relax_var_t* var;
  rlx_relax_expr_t* value;
  rlx_sinfo_t* sinfo; /* MatchCast only */
} rlx_relax_binding_t;

/* A binding block; a dataflow block (R.dataflow()) holds only pure bindings and only its
 * non-dataflow vars are visible after it. */
typedef struct rlx_relax_block {
  bool is_dataflow;
  int n_bindings;
  rlx_relax_binding_t** bindings;
} rlx_relax_block_t;

/* Blocks run in order, then body is the value. */
typedef struct {
  rlx_relax_expr_t hdr;
  int n_blocks;
  rlx_relax_block_t** blocks;
  rlx_relax_expr_t* body;
} rlx_relax_seq_t;

/* A Relax function (the module stores rlx_relax_func_t* as RLX_FUNC_RELAX entries).
 * body is a SeqExpr after normalization; ret_sinfo is the declared or inferred return struct
 * info; is_pure false for functions with side effects (R.function(pure=False)). Attributes
 * TVM uses: "global_symbol" (str), "relax.force_pure" (bool). */
typedef struct rlx_relax_func {
  rlx_relax_expr_t hdr; /* sinfo: Func(params' sinfo, ret_sinfo, is_pure) */
  int n_params;
  rlx_relax_var_t** params;
  rlx_relax_expr_t* body;
  rlx_sinfo_t* ret_sinfo;
  rlx_attrs_t attrs;
  bool is_pure;
} rlx_relax_func_t;

/* A reference to a function of the module by name (TVM's GlobalVar). */
typedef struct {
  rlx_relax_expr_t hdr;
  const char* name;
} rlx_relax_global_var_t;

/* An external (packed) function by symbol name. Opaque, impure Func sinfo; a call's struct
 * info comes from its sinfo_args. */
typedef struct {
  rlx_relax_expr_t hdr;
  const char* global_symbol;
} rlx_relax_extern_func_t;

rlx_relax_expr_t* rlx_relax_dtype_imm(rlx_ctx_t* ctx, rlx_dtype_t value);
/* The Op node of op id. */
rlx_relax_expr_t* rlx_relax_op(rlx_ctx_t* ctx, rlx_op_id_t id);
/* The Op node called name, for parsers and the C API (def NULL when no op has that name). */
rlx_relax_expr_t* rlx_relax_op_named(rlx_ctx_t* ctx, const char* name);
rlx_relax_expr_t* rlx_relax_call(rlx_ctx_t* ctx, rlx_relax_expr_t* op, int n_args, rlx_relax_expr_t* const* args,
                                 rlx_attrs_t attrs, int n_sinfo_args, rlx_sinfo_t* const* sinfo_args);
/* rlx_relax_if, rlx_relax_var_binding, rlx_relax_match_cast, rlx_relax_block, rlx_relax_seq:
 * public (include/rlx/rlx.h, "reading Relax nodes"). */
/* ret_sinfo NULL = inferred from the body by normalization. */
rlx_relax_func_t* rlx_relax_func(rlx_ctx_t* ctx, int n_params, rlx_relax_var_t* const* params,
                                 rlx_relax_expr_t* body, rlx_sinfo_t* ret_sinfo, rlx_attrs_t attrs, bool is_pure);

/* The bridge calls, in the forms listed at the top of this header. out_sinfo: a Tensor or a
 * Tuple of Tensors. tir_vars NULL = none (else a ShapeExpr). */
/* rlx_relax_call_pure_packed: public (include/rlx/rlx.h). */

static inline bool rlx_relax_is_var(const rlx_relax_expr_t* e) {
  return e && (e->kind == RLX_RELAX_VAR || e->kind == RLX_RELAX_DATAFLOW_VAR);
}
/* TVM's leaf expressions, the operands A-normal form allows: a variable, constant, shape,
 * prim value, string, dtype, op, global var or extern function (a tuple's fields, a
 * function: the callers decide). */
bool rlx_relax_expr_is_leaf(const rlx_relax_expr_t* e);
/* True when e is the Op id. */
bool rlx_relax_is_op(const rlx_relax_expr_t* e, rlx_op_id_t id);
/* The op id of e when e is a known Op, else RLX_OP_COUNT. */
rlx_op_id_t rlx_relax_op_id(const rlx_relax_expr_t* e);
/* The op id of call c's callee (rlx_relax_op_id(c->op)). */
rlx_op_id_t rlx_relax_call_op_id(const rlx_relax_call_t* c);
/* Sub-expressions of e in a fixed order (Tuple: fields; TupleGetItem: tuple; Call: op, args;
 * If: cond, then, else; SeqExpr: binding values in order, then body; Function: body). Vars
 * bound by SeqExpr/Function are not children. Returns the count; writes at most max. */
int rlx_relax_expr_children(const rlx_relax_expr_t* e, rlx_relax_expr_t** out, int max);
/* A short description for error messages: "Call(relax.call_tir)", "Var lv0", ... */
const char* rlx_relax_expr_brief(rlx_ctx_t* ctx, const rlx_relax_expr_t* e);

/* ------------------------------------------------------------------ traversal (functor.c) */
/* A node like e with the given children (same order as rlx_relax_expr_children); e itself
 * when every child is pointer-equal to the old one. A rebuilt node has NULL struct info
 * (normalize it), except a Function, which keeps its params and declared ret_sinfo. A
 * rebuilt SeqExpr keeps every binding var (only values change). */
rlx_relax_expr_t* rlx_relax_expr_rebuild(rlx_ctx_t* ctx, rlx_relax_expr_t* e, rlx_relax_expr_t* const* kids);
/* Post-order rewrite: children are transformed first, the node is rebuilt, then f(node)
 * sets *out to its replacement (the node itself to keep it) or returns an error, which
 * stops the walk and is returned as it is (the callback convention: a callback that can
 * fail returns a status and its result through its last parameter; no side channel in
 * user). f may be NULL (identity). */
typedef rlx_status_t* (*rlx_relax_expr_fn_t)(rlx_ctx_t* ctx, rlx_relax_expr_t* e, void* user, rlx_relax_expr_t** out);
RLX_MUST_USE rlx_status_t* rlx_relax_expr_transform(rlx_ctx_t* ctx, rlx_relax_expr_t* e, rlx_relax_expr_fn_t f, void* user,
                                                    rlx_relax_expr_t** out);
/* Replaces uses of Relax vars per vmap (rlx_relax_var_t* → rlx_relax_expr_t*). Definitions
 * (params, binding vars) are not touched. Returns e when unchanged; rebuilt nodes need
 * normalization. */
rlx_relax_expr_t* rlx_relax_expr_substitute(rlx_ctx_t* ctx, rlx_relax_expr_t* e, const rlx_ptrmap_t* vmap);
/* Calls f on e and every sub-expression, pre-order (binding values and nested function
 * bodies included; binding vars and params are not visited as expressions). */
void rlx_relax_expr_visit(const rlx_relax_expr_t* e, void (*f)(const rlx_relax_expr_t* e, void* user), void* user);
/* The same walk with a callback that can fail: it stops at the first error f returns and
 * returns it as it is (issue 13's convention). */
typedef rlx_status_t* (*rlx_relax_expr_try_fn_t)(const rlx_relax_expr_t* e, void* user);
RLX_MUST_USE rlx_status_t* rlx_relax_expr_try_visit(const rlx_relax_expr_t* e, rlx_relax_expr_try_fn_t f, void* user);
/* Struct info with symbolic vars replaced per map (rlx_var_t* → rlx_expr_t*), dims
 * simplified; s itself when nothing changes. */
rlx_sinfo_t* rlx_sinfo_substitute(rlx_ctx_t* ctx, rlx_sinfo_t* s, const rlx_ptrmap_t* map);

/* ------------------------------------------------------------------ inference (normalize.c) */
/* True when the call is free of side effects: a call of an Op other than the impure ones
 * (relax.print, relax.assert_op, relax.call_builtin_with_ctx, relax.memory.kill_*,
 * relax.vm.kill_object, relax.call_inplace_packed; the op registry will own this list), or
 * of a function value whose Func struct info is pure. call_tir, call_dps_packed and
 * call_pure_packed are pure; a call of an ExternFunc (call_packed) is impure. */
bool rlx_relax_call_is_pure(const rlx_relax_call_t* call);
/* Fills the struct info of e and every sub-expression that lacks it (post-order) and
 * checks the call forms above. Vars must already carry struct info. GlobalVars without
 * struct info take it from m (may be NULL). Function: ret_sinfo is inferred from the body
 * when NULL. Errors name the offending expression. Does not insert bindings (TVM's
 * Normalize also flattens nested calls into bindings; here the BlockBuilder's emit does). */
RLX_MUST_USE rlx_status_t* rlx_relax_normalize(rlx_ctx_t* ctx, rlx_module_t* m, rlx_relax_expr_t* e);
/* The struct info a PrimFunc has when seen from Relax: opaque Func, impure. */
rlx_sinfo_t* rlx_relax_prim_func_sinfo(rlx_ctx_t* ctx, const rlx_tir_func_t* f);

/* ------------------------------------------------------------------ well-formedness (well_formed.c) */
/* Checks every Relax function of m (TIR functions are not checked):
 * - every Relax var is defined before use and defined once (params, bindings);
 * - DataflowVars are bound only inside a dataflow block and used only inside it;
 * - dataflow blocks contain only pure calls; a pure function (without "relax.force_pure")
 *   contains no impure call;
 * - every expression carries struct info; a MatchCast's var has its sinfo;
 * - symbolic vars are defined (as a whole dim of a param's struct info or of a
 *   match_cast's struct info) before use;
 * - GlobalVars name functions of m;
 * - the function body is a SeqExpr whose value is not a DataflowVar.
 * Error: "well-formed: function 'main': <problem>" naming the binding or expression. */
RLX_MUST_USE rlx_status_t* rlx_relax_well_formed(rlx_ctx_t* ctx, rlx_module_t* m);
/* The same for one function (name used in messages; m may be NULL: GlobalVars unchecked). */
RLX_MUST_USE rlx_status_t* rlx_relax_func_well_formed(rlx_ctx_t* ctx, rlx_module_t* m, const char* name,
                                                      const rlx_relax_func_t* f);

/* ------------------------------------------------------------------ structural equality (structural.c) */
/* Structural equality of two Relax functions / expressions: Relax vars are mapped by their
 * definition (params, bindings), symbolic shape vars are mapped on their first definition
 * (a whole dim in a param's or a match_cast's struct info), struct info is compared
 * structurally (under the var map; no prover), GlobalVars by name, constants by bytes.
 * Names of vars are ignored. */
/* rlx_relax_expr_equal, rlx_relax_expr_hash (equal => same hash) and rlx_sinfo_struct_equal
 * (struct info equal as trees; free symbolic vars equal iff identical) are public
 * (include/rlx/rlx.h). */

/* ------------------------------------------------------------------ BlockBuilder (block_builder.c) */
/* Builds Relax functions binding by binding, as TVM's relax.BlockBuilder:
 *
 *   rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
 *   rlx_bb_function_begin(bb, "main", 0, NULL);          // params given at the end
 *   rlx_bb_dataflow_begin(bb);
 *   rlx_bb_emit_te(bb, te_matmul, NULL, 2, (rlx_relax_expr_t*[]){&A->hdr, &B->hdr}, NULL, NULL, &lv0);
 *   rlx_bb_emit_te(bb, te_relu, NULL, 1, (rlx_relax_expr_t*[]){&lv0->hdr}, NULL, NULL, &lv1);
 *   rlx_bb_emit_output(bb, &lv1->hdr, "gv", &gv);
 *   rlx_bb_dataflow_end(bb);
 *   rlx_bb_emit_func_output(bb, &gv->hdr, 2, (rlx_relax_var_t*[]){A, B});
 *   rlx_bb_function_end(bb, &main_gv);
 *   rlx_module_t* m = rlx_bb_get(bb);
 *
 * The builder is arena-owned (no free). After an error the builder stays usable: the failed
 * call had no effect. */
typedef struct rlx_bb rlx_bb_t;

/* Options of the open function: purity (R.function(pure=False)), privacy (no
 * global_symbol), extra attributes. */
RLX_MUST_USE rlx_status_t* rlx_bb_function_set_attr(rlx_bb_t* bb, const char* key, rlx_attr_t value);
/* rlx_bb_emit_binding: public (include/rlx/rlx.h). */
/* e with its operands made leaves (TVM's ANF rule, what emit does before binding): call
 * arguments, tuple fields, the tuple of a TupleGetItem and the condition of an If that are
 * not leaves or tuples of leaves are bound to fresh vars first; e itself when nothing
 * changes. For passes that rebuild a binding's value before rlx_bb_emit_binding. */
RLX_MUST_USE rlx_status_t* rlx_bb_bind_operands(rlx_bb_t* bb, rlx_relax_expr_t* e, rlx_relax_expr_t** out);
/* Closes the function like rlx_bb_function_end but returns it without adding it to the
 * module (global_symbol = the name given at begin unless private); for passes, with: */
RLX_MUST_USE rlx_status_t* rlx_bb_function_finish(rlx_bb_t* bb, rlx_relax_func_t** out_func);
/* Replaces the function called name (TVM's UpdateFunction); error when there is none. Note:
 * GlobalVars in the module keep their struct info; replace a function only by one with the
 * same signature, or renormalize the callers. */
RLX_MUST_USE rlx_status_t* rlx_bb_update_func(rlx_bb_t* bb, const char* name, rlx_func_kind_t kind, void* func);
/* Adds a function (kind RLX_FUNC_TIR: rlx_tir_func_t*, RLX_FUNC_RELAX: rlx_relax_func_t*)
 * under a unique name derived from name_hint; returns its GlobalVar (with struct info). A
 * TIR function is added as a copy whose name field is the module name; one structurally
 * equal to a PrimFunc already in the module is not added again (TVM's dedup): the existing
 * function's GlobalVar is returned. */
RLX_MUST_USE rlx_status_t* rlx_bb_add_func(rlx_bb_t* bb, rlx_func_kind_t kind, void* func, const char* name_hint,
                                           rlx_relax_expr_t** out_gv);

/* The public builder calls (rlx_bb_create, emit, emit_te, call_te ...) and the TE callback
 * types are declared in include/rlx/rlx.h only. */

/* rlx_bb_call_te where arguments with scalars[i] non-NULL are R.Prim values, not tensors:
 * the TE function gets only the tensor arguments and uses scalars[i] (a TIR var of the
 * value's dtype) for the scalar; the PrimFunc takes it as a scalar parameter at the
 * argument's position, and the call passes the R.Prim value there (TVM's emit_te with a
 * PrimValue argument). */
RLX_MUST_USE rlx_status_t* rlx_bb_call_te_scalars(rlx_bb_t* bb, rlx_bb_te_fn_t f, void* user, int n_args,
                                                  rlx_relax_expr_t* const* args, rlx_var_t* const* scalars,
                                                  const char* primfunc_name, rlx_relax_expr_t** out_call);

#endif
