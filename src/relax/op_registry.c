/* The operator registry: op.def expanded into one table indexed by op id, and a hashed
 * lookup by name built once. */
#include <pthread.h>
#include <string.h>

#include "op.h"

#define PURE true
#define IMPURE false
static const rlx_op_def_t defs[RLX_OP_COUNT] = {
#define RLX_OP(ID, NAME, FAMILY, INFER, LEGALIZE, PURITY, PARAMS) \
  [RLX_OP_##ID] = {RLX_OP_##ID, NAME, RLX_OP_FAMILY_##FAMILY, INFER, LEGALIZE, PURITY, PARAMS},
#include "op.def"
};
#undef PURE
#undef IMPURE

/* Registered ops (all but the bridge ops) form a prefix of the table: rlx_op_list hands it
 * out as is. Checked per op at compile time. */
enum {
  N_REGISTERED = 0
#define RLX_OP(ID, NAME, FAMILY, INFER, LEGALIZE, PURITY, PARAMS) +(RLX_OP_FAMILY_##FAMILY != RLX_OP_FAMILY_BRIDGE)
#include "op.def"
};
#define RLX_OP(ID, NAME, FAMILY, INFER, LEGALIZE, PURITY, PARAMS)                                      \
  _Static_assert((RLX_OP_FAMILY_##FAMILY == RLX_OP_FAMILY_BRIDGE) == ((int)RLX_OP_##ID >= (int)N_REGISTERED), \
                 "op.def: bridge ops come last (" NAME ")");
#include "op.def"

/* Open addressing over the names (slot = index + 1; 0 empty), at most half full. */
enum { N_SLOTS = 512 };
_Static_assert(2 * RLX_OP_COUNT <= N_SLOTS, "op name hash table too small for op.def");
static unsigned short slots[N_SLOTS];
static const rlx_op_def_t* registered[RLX_OP_COUNT];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static unsigned hash(const char* s) {
  unsigned h = 2166136261u; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static void build(void) {
  for (int i = 0; i < RLX_OP_COUNT; i++) {
    unsigned h = hash(defs[i].name) & (N_SLOTS - 1);
    while (slots[h]) h = (h + 1) & (N_SLOTS - 1);
    slots[h] = (unsigned short)(i + 1);
    registered[i] = &defs[i];
  }
}

const rlx_op_def_t* rlx_op_get(rlx_op_id_t id) { return (unsigned)id < RLX_OP_COUNT ? &defs[id] : NULL; }

const rlx_op_def_t* rlx_op_find(const char* name) {
  pthread_once(&once, build);
  for (unsigned h = hash(name) & (N_SLOTS - 1); slots[h]; h = (h + 1) & (N_SLOTS - 1))
    if (strcmp(defs[slots[h] - 1].name, name) == 0) return &defs[slots[h] - 1];
  return NULL;
}

const rlx_op_def_t* rlx_op_lookup(const char* name) {
  const rlx_op_def_t* d = rlx_op_find(name);
  return d && d->family != RLX_OP_FAMILY_BRIDGE ? d : NULL;
}

void rlx_op_list(const rlx_op_def_t* const** out_defs, int* out_n) {
  pthread_once(&once, build);
  *out_defs = registered;
  *out_n = N_REGISTERED;
}

rlx_relax_expr_t* rlx_relax_op_call(rlx_ctx_t* ctx, rlx_op_id_t id, int n_args, rlx_relax_expr_t* const* args,
                                    rlx_attrs_t attrs) {
  return rlx_relax_call(ctx, rlx_relax_op(ctx, id), n_args, args, attrs, 0, NULL);
}

rlx_relax_expr_t* rlx_relax_op_call_named(rlx_ctx_t* ctx, const char* name, int n_args,
                                          rlx_relax_expr_t* const* args, rlx_attrs_t attrs) {
  return rlx_relax_call(ctx, rlx_relax_op_named(ctx, name), n_args, args, attrs, 0, NULL);
}
