/* Relax ops, family "nn" (see op.h). */
#include "op.h"

const rlx_op_def_t rlx_ops_nn[] = {
    {NULL, NULL, NULL, false},
};
