/* Private to src/script: the Relax halves of the TVMScript printer (relax_printer.c) and
 * parser (relax_parser.c), called by the module-level code of tir_printer.c and parse.c.
 *
 * Printed form (TVM's, `show_all_struct_info` on, as mod.script() writes it):
 * - `@R.function`, `@R.function(pure=False, private=True)`; private = no "global_symbol"
 *   attr; "global_symbol" equal to the name is hidden; other attrs as R.func_attr({...}).
 * - Symbolic vars of the signature print quoted ("n") in the signature; every symbolic var
 *   gets `n = T.int64()` at the top of the body (signature ones first, then the ones first
 *   used in the body, e.g. defined by R.match_cast), then R.func_attr, then `cls = Module`
 *   (when the function refers to module functions), then the body.
 * - Bindings are annotated (`x: R.Tensor(...) = ...`) except R.call_tir / R.call_dps_packed
 *   values; a binding whose var and value are void (R.Tuple()) prints as a bare expression
 *   statement (`cls.f(x, alloc)`, `R.memory.kill_tensor(a)`).
 * - Calls: R.call_tir / R.call_dps_packed / R.call_pure_packed as TVM; a call of an
 *   ExternFunc prints R.call_packed("f", ..., sinfo_args=(..)) — except a call without
 *   sinfo_args whose struct info is void, which prints R.ExternFunc("f")(...) (the lowered
 *   call_dps_packed of the issue-3 hand-off; the parser gives that form void struct info).
 *   Op calls print R.<name without "relax.">(args, key=value...): the fields TVM prints for
 *   the op in TVM's order, absent ones at their defaults (rs_op_fields), then any other
 *   attrs in stored order.
 * - Local functions (a Function bound to a var) print as a nested `@R.function def <var>`;
 *   their symbolic vars are declared at the top of the enclosing module-level function (TVM).
 * - Constants: scalars (0-d) as R.const(1.5, "float32"); every other tensor as TVM prints
 *   it, `metadata["relax.expr.Constant"][i]` (i numbers the module's distinct
 *   constants in order of first use). With show_meta the text starts with TVM's section
 *   `metadata = tvm.ir.load_json("""...""")` holding their data (metadata.c); without it,
 *   TVM's "# Metadata omitted." comment ends the text, the parser reads each reference as
 *   an elided constant (data NULL, ndim -1, struct info a tensor of unknown shape and
 *   dtype; an annotated binding's var takes the annotation), and rlx_pipeline_run refuses
 *   a module holding one, so building it is a clear error.
 */
#ifndef RLX_SCRIPT_RELAX_SCRIPT_H
#define RLX_SCRIPT_RELAX_SCRIPT_H

#include "../relax/relax.h"
#include "tir_parse.h"

/* The constants a printed module refers to as metadata["relax.expr.Constant"][i]. */
typedef struct {
  RLX_VEC(const rlx_relax_constant_t*) consts;
} rs_meta_t;
/* The index of c in meta (added when new). */
int rs_meta_index(rs_meta_t* meta, const rlx_relax_constant_t* c);
/* The section `metadata = tvm.ir.load_json("""...""")` (with its newline) for meta. Heap. */
char* rs_metadata_print(const rs_meta_t* meta);
/* Reads the JSON text of a section (the string given to tvm.ir.load_json) into out->consts
 * (constants in ctx); errors at sp. */
RLX_MUST_USE rlx_status_t* rs_metadata_load(rlx_ctx_t* ctx, const char* json, rlx_span_t sp, rs_meta_t* out);

/* Appends function f of module m (named name) at the given indentation (4 inside a class).
 * Sets *used_tir when the text uses the T. prefix; large constants are numbered in meta. */
void rs_print_relax_func(const rlx_module_t* m, const rlx_relax_func_t* f, const char* name, int indent,
                         rlx_strbuf_t* out, bool* used_tir, rs_meta_t* meta);

/* The attribute fields TVM prints for an op call, in order, with their defaults
 * (relax_attr_defaults.c): a default is TVMScript text, "@key" the value of attribute key,
 * NULL none. */
#define RS_MAX_OP_FIELDS 10
typedef struct {
  const char* key;
  const char* dflt;
} rs_field_t;
typedef struct {
  const char* op;
  rs_field_t fields[RS_MAX_OP_FIELDS]; /* ends at the first NULL key */
} rs_op_fields_t;
/* The entry of op ("relax.nn.conv2d"), or NULL when the op prints the attributes it has. */
const rs_op_fields_t* rs_op_fields(const char* op);

/* Parser state for one script: the TIR parser's state plus the Relax alias. */
typedef struct rs_sig rs_sig_t;

/* True when the def statement is decorated @R.function (or @R.function(...)). */
bool rs_is_relax_def(tp_t* p, const char* relax_alias, const py_stmt_t* s);
/* Pass 1: parses the signature of a @R.function def (params, return struct info, decorator
 * options) and registers a placeholder function under its name in m so GlobalVars to it
 * resolve. *out_sig is kept for pass 2. */
RLX_MUST_USE rlx_status_t* rs_parse_signature(tp_t* p, const char* relax_alias, rlx_module_t* m, const py_stmt_t* s,
                                              rs_sig_t** out_sig);
/* Pass 2: parses the body, normalizes the function and replaces the placeholder. */
RLX_MUST_USE rlx_status_t* rs_parse_body(tp_t* p, rlx_module_t* m, rs_sig_t* sig);

#endif
