/* The operator registry: the list of op families, written once; lookup by name. */
#include <pthread.h>
#include <string.h>

#include "op.h"

static const rlx_op_def_t* const families[] = {rlx_ops_basic, rlx_ops_nn, rlx_ops_memory};

enum { MAX_OPS = 512 };
static const rlx_op_def_t* all_ops[MAX_OPS];
static int n_all_ops;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void collect(void) {
  for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++)
    for (const rlx_op_def_t* d = families[f]; d->name && n_all_ops < MAX_OPS; d++) all_ops[n_all_ops++] = d;
}

const rlx_op_def_t* rlx_op_lookup(const char* name) {
  pthread_once(&once, collect);
  for (int i = 0; i < n_all_ops; i++)
    if (strcmp(all_ops[i]->name, name) == 0) return all_ops[i];
  return NULL;
}

void rlx_op_list(const rlx_op_def_t* const** out_defs, int* out_n) {
  pthread_once(&once, collect);
  *out_defs = all_ops;
  *out_n = n_all_ops;
}

rlx_relax_expr_t* rlx_relax_op_call(rlx_ctx_t* ctx, const char* name, int n_args, rlx_relax_expr_t* const* args,
                                    rlx_attrs_t attrs) {
  return rlx_relax_call(ctx, rlx_relax_op(ctx, name), n_args, args, attrs, 0, NULL);
}
