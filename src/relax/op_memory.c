/* Relax ops, family "memory" (see op.h). */
#include "op.h"

const rlx_op_def_t rlx_ops_memory[] = {
    {NULL, NULL, NULL, false},
};
