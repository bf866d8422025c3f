/* TVMScript printer and parser (TIR for now; Relax in the next issue).
 *
 * The printer writes exactly what TVM prints (`# from tvm.script import tir as T`,
 * `@T.prim_func`, `T.Buffer`, `T.grid`, `T.block`, `T.axis.remap`, ...). The parser reads that
 * syntax back (and the common variants TVM accepts), giving file:line:col errors.
 */
#ifndef RLX_SCRIPT_H
#define RLX_SCRIPT_H

#include "../ir/ir.h"
#include "../tir/tir.h"

/* Prints one PrimFunc as a standalone script (with the import header). Heap string. */
char* rlx_script_print_tir_func(const rlx_tir_func_t* f);
/* Prints a module: a single PrimFunc module prints as a standalone @T.prim_func (named
 * after the function); more functions print as `@I.ir_module class Module:`. Heap string. */
char* rlx_script_print_module(const rlx_module_t* m);
/* Parses a script (a standalone @T.prim_func, several of them, or an @I.ir_module class)
 * into a module. filename is used in error messages. */
rlx_status_t* rlx_script_parse(rlx_ctx_t* ctx, const char* text, const char* filename, rlx_module_t** out);

#endif
