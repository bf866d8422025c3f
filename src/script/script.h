/* TVMScript printer and parser for TIR and Relax.
 *
 * The printer writes exactly what TVM prints (`# from tvm.script import tir as T`,
 * `@T.prim_func`, `T.Buffer`, `T.grid`, `T.block`, `T.axis.remap`, ...). The parser reads that
 * syntax back (and the common variants TVM accepts), giving file:line:col errors.
 *
 * Conventions (details in the .c files of src/script):
 * - Printed text ends with one newline (TVM's script() strips it; print() adds it back).
 * - The function name is rlx's global symbol: the parser adds no "global_symbol" attr (and
 *   drops one equal to the def name); the printer hides it when it equals the printed name.
 *   `@T.prim_func(private=True)` <-> rlx_tir_func_t.is_private.
 * - Param buffers: printed inline (`A: T.Buffer(...)`) when their shape has no variables,
 *   otherwise `var_A: T.handle` + `A = T.match_buffer(var_A, ...)`; parsed buffers use the
 *   param var as buffer->data.
 * - Integer DIV prints as T.Div(a, b), MOD as T.truncmod(a, b) (as TVM); the parser also
 *   accepts T.truncdiv / T.floordiv / T.floormod. Float DIV prints as `/`.
 * - rlx's ALLOCATE (a buffer + body) prints as TVM's Allocate+DeclBuffer pair:
 *   `X = T.decl_buffer((64,), scope="local")`; buffers used but never declared print as
 *   `X = T.Buffer((n,), data=A.data)` in the lowest frame holding their uses.
 * - Blocks without T.reads/T.writes get regions inferred from the body as TVM does.
 * - Relax functions (@R.function) print and parse as TVM's printer writes them; the exact
 *   conventions (annotations, symbolic vars, void calls, constants) are in relax_script.h.
 * Layers: lexer.c + pyparse.c (Python subset → generic AST, pyast.h), parse.c (module
 * level), tir_parser.c + tir_expr.c (AST → TIR), tir_printer.c (TIR → text, and the module level),
 * relax_parser.c (AST → Relax), relax_printer.c (Relax → text).
 */
#ifndef RLX_SCRIPT_H
#define RLX_SCRIPT_H

#include "../ir/ir.h"
#include "../relax/relax.h"
#include "../tir/tir.h"

/* The same; with show_meta, constants printed as metadata["relax.expr.Constant"][i] come
 * with TVM's metadata section at the top (`metadata = tvm.ir.load_json("""...""")`), so
 * that the text parses back to the same module; without, TVM's "# Metadata omitted."
 * comment ends the text. Heap string. */
struct rlx_relax_func; /* relax/relax.h */
/* attrs of a call of op without the attributes equal to the value the printer shows for an
 * absent one (TVM's defaults, relax_attr_defaults.c), so a call built with explicit defaults
 * equals the one without them; attrs itself when op has no entry. */
rlx_attrs_t rs_attrs_drop_defaults(rlx_ctx_t* ctx, const char* op, rlx_attrs_t attrs);
/* attrs with TVM's short forms of op's list attributes widened (relax_attr_defaults.c):
 * axis=1 → [1]; conv / pool strides=1 → [1, 1], padding=(1, 1) → [1, 1, 1, 1]. */
rlx_attrs_t rs_attrs_normalize(rlx_ctx_t* ctx, const char* op, rlx_attrs_t attrs);
/* Appends constant c in TVM's binary NDArray format (what tvm.runtime.save_param_dict and
 * the metadata section's b64ndarrays hold; layout in metadata.c). */
void rlx_script_ndarray_bytes(const rlx_relax_constant_t* c, rlx_strbuf_t* out);

#endif
