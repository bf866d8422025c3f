/* Relax → VM bytecode (vm_codegen.c): the emitter the build layer (src/build/vm_build.c)
 * packages into a model. */
#ifndef RLX_CODEGEN_VM_CODEGEN_H
#define RLX_CODEGEN_VM_CODEGEN_H

#include "../relax/relax.h"
#include "../runtime/vm_exec.h"
#include "codegen.h"

/* Bytecode for every Relax function of m, which must be in the form the pipeline produces
 * (after lower_shapes): calls of PrimFunc GlobalVars in DPS (outputs appended, then an
 * optional tir_vars shape), ExternFunc calls (call_packed and the DPS form of
 * call_dps_packed), R.call_pure_packed, R.builtin.alloc_tensor, R.memory.alloc_storage /
 * alloc_tensor / kill_tensor / kill_storage, calls of other Relax functions, the
 * vm.builtin.* calls of lower_shapes (a MatchCast left by it is a move), Tuple, TupleGetItem, Constant, ShapeExpr with
 * constant dims, PrimValue, StringImm, DataTypeImm, If, SeqExpr. Constants go to the
 * constant pool; PrimFuncs become packed functions named after them with symbol
 * rlx_codegen_symbol(name). *out_exec is heap-owned (rlx_vm_exec_free). UNSUPPORTED names
 * the function and the expression it cannot translate. */
RLX_MUST_USE rlx_status_t* rlx_vm_codegen(rlx_ctx_t* ctx, rlx_module_t* m, rlx_vm_exec_t** out_exec);

#endif
