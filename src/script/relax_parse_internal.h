/* Internal to the Relax TVMScript parser: the parser state and the helpers its files share
 * (relax_parser.c: helpers, expressions, statements, functions; relax_parser_values.c:
 * struct info, op attributes and constants). */
#ifndef RLX_SCRIPT_RELAX_PARSE_INTERNAL_H
#define RLX_SCRIPT_RELAX_PARSE_INTERNAL_H

#include <stdlib.h>
#include <string.h>

#include "../relax/op.h"
#include "relax_script.h"
#include "script.h"

typedef enum { RS_RELAX, RS_SYM, RS_MODULE } rs_sym_kind_t;
typedef struct {
  const char* name;
  rs_sym_kind_t kind;
  void* ptr;
  int depth;
} rs_sym_t;

struct rs_sig {
  const py_stmt_t* s;
  const char* name;
  const char* relax_alias;
  int n_params;
  rlx_relax_var_t** params;
  rlx_sinfo_t* ret;
  bool is_pure, is_private;
  int n_syms; /* the signature's symbolic vars */
  rs_sym_t* syms;
};

typedef struct {
  tp_t* p;
  rlx_ctx_t* ctx;
  const char* R;
  rlx_module_t* m;
  RLX_VEC(rs_sym_t) syms;
  int depth;
  bool sig_mode; /* strings in struct info define symbolic vars */
  bool quoted;   /* inside a quoted dimension ("n * 2") */
  bool in_dataflow;
  const char** outs; /* R.output names of the open dataflow block */
  int n_outs;
  rlx_attrs_t fattrs;
  bool attrs_allowed;
} rs_t;

__attribute__((format(printf, 3, 4))) RLX_MUST_USE rlx_status_t* rs_err(rs_t* r, const py_expr_t* e, const char* fmt, ...);
const char* rs_desc(rs_t* r, const py_expr_t* e);
const char* rs_rname(rs_t* r, const py_expr_t* e);
const py_expr_t* rs_arg(const py_expr_t* call, int i, const char* kw);
rs_sym_t* rs_lookup(rs_t* r, const char* name);
bool rs_int_lit(const py_expr_t* e, int64_t* out);
RLX_MUST_USE rlx_status_t* rs_prim(rs_t* r, const py_expr_t* e, rlx_expr_t** out);
RLX_MUST_USE rlx_status_t* rs_prim_list(rs_t* r, const py_expr_t* e, int* n, rlx_expr_t*** out);
RLX_MUST_USE rlx_status_t* rs_dtype_of(rs_t* r, const py_expr_t* e, rlx_dtype_t* out);
RLX_MUST_USE rlx_status_t* rs_sinfo(rs_t* r, const py_expr_t* e, rlx_sinfo_t** out);
RLX_MUST_USE rlx_status_t* rs_global_var(rs_t* r, const py_expr_t* e, rlx_relax_expr_t** out, bool* is_tir);
RLX_MUST_USE rlx_status_t* rs_expr_list(rs_t* r, const py_expr_t* e, const char* what, int* n, rlx_relax_expr_t*** out);
RLX_MUST_USE rlx_status_t* rs_sinfo_args(rs_t* r, const py_expr_t* e, int* n, rlx_sinfo_t*** out);
RLX_MUST_USE rlx_status_t* rs_check_kwargs(rs_t* r, const py_expr_t* e, const char* what, const char* const* allowed);
RLX_MUST_USE rlx_status_t* rs_out_sinfo(rs_t* r, const py_expr_t* call, const char* what, rlx_sinfo_t** out);
RLX_MUST_USE rlx_status_t* rs_attr_value(rs_t* r, const char* key, const py_expr_t* v, bool nested, bool* keep,
                                             rlx_attr_t* out);
RLX_MUST_USE rlx_status_t* rs_parse_const(rs_t* r, const py_expr_t* e, rlx_relax_expr_t** out);
RLX_MUST_USE rlx_status_t* rs_expr(rs_t* r, const py_expr_t* e, rlx_relax_expr_t** out);

#endif
