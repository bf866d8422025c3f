/* Variable substitution and simple expression queries. */
#include <stdlib.h>

#include "ir.h"

static rlx_expr_t* subst_one(rlx_ctx_t* ctx, rlx_expr_t* e, void* user) {
  if (e->kind != RLX_EXPR_VAR) return e;
  rlx_expr_t* r = rlx_ptrmap_get((const rlx_ptrmap_t*)user, e);
  return r ? r : e;
}

rlx_expr_t* rlx_expr_substitute(rlx_ctx_t* ctx, rlx_expr_t* e, const rlx_ptrmap_t* vmap) {
  if (!e || !vmap->len) return e;
  return rlx_expr_transform(ctx, e, subst_one, (void*)vmap);
}

void rlx_expr_visit(const rlx_expr_t* e, void (*f)(const rlx_expr_t*, void*), void* user) {
  if (!e) return;
  f(e, user);
  rlx_expr_t* small[8];
  int n = rlx_expr_children(e, small, 8);
  if (n <= 8) {
    for (int i = 0; i < n; i++) rlx_expr_visit(small[i], f, user);
    return;
  }
  rlx_expr_t** kids = malloc(sizeof(*kids) * (size_t)n);
  if (!kids) { /* the children go unvisited: counted, so the stage fails (rlx_ctx_check) */
    rlx_alloc_failed();
    return;
  }
  rlx_expr_children(e, kids, n);
  for (int i = 0; i < n; i++) rlx_expr_visit(kids[i], f, user);
  free(kids);
}

typedef struct {
  const rlx_var_t* v;
  bool found;
} uses_t;

static void uses_one(const rlx_expr_t* e, void* user) {
  uses_t* u = user;
  if (e == &u->v->hdr) u->found = true;
}

bool rlx_expr_uses_var(const rlx_expr_t* e, const rlx_var_t* v) {
  uses_t u = {v, false};
  rlx_expr_visit(e, uses_one, &u);
  return u.found;
}
