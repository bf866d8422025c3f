/* Relax ops, family "basic" (see op.h). */
#include "op.h"

const rlx_op_def_t rlx_ops_basic[] = {
    {NULL, NULL, NULL, false},
};
