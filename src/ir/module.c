/* IRModule: named functions of either IR, in insertion order. */
#include <string.h>

#include "ir.h"

rlx_module_t* rlx_module_create(rlx_ctx_t* ctx) {
  rlx_module_t* m = RLX_NEW(ctx, rlx_module_t);
  m->ctx = ctx;
  return m;
}

rlx_module_entry_t* rlx_module_find(rlx_module_t* m, const char* name) {
  for (int i = 0; i < m->n_funcs; i++)
    if (strcmp(m->funcs[i].name, name) == 0) return &m->funcs[i];
  return NULL;
}

void rlx_module_set(rlx_module_t* m, const char* name, rlx_func_kind_t kind, void* func) {
  rlx_module_entry_t* e = rlx_module_find(m, name);
  if (!e) {
    if (m->n_funcs == m->cap_funcs) {
      int cap = m->cap_funcs ? m->cap_funcs * 2 : 8;
      rlx_module_entry_t* nf = RLX_NEW_ARRAY(m->ctx, rlx_module_entry_t, cap);
      if (m->n_funcs) memcpy(nf, m->funcs, sizeof(*nf) * (size_t)m->n_funcs);
      m->funcs = nf;
      m->cap_funcs = cap;
    }
    e = &m->funcs[m->n_funcs++];
    e->name = rlx_ctx_strdup(m->ctx, name);
  }
  e->kind = kind;
  e->func = func;
}

const char* rlx_module_unique_name(rlx_module_t* m, const char* base) {
  if (!rlx_module_find(m, base)) return rlx_ctx_strdup(m->ctx, base);
  for (int i = 1;; i++) {
    const char* n = rlx_ctx_sprintf(m->ctx, "%s%d", base, i);
    if (!rlx_module_find(m, n)) return n;
  }
}
