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

RLX_MUST_USE rlx_status_t* rlx_expr_try_visit(const rlx_expr_t* e, rlx_expr_try_fn_t f, void* user) {
  if (!e) return NULL;
  RLX_RETURN_IF_ERROR(f(e, user));
  rlx_expr_t* small[8];
  int n = rlx_expr_children(e, small, 8);
  rlx_expr_t** kids = small;
  if (n > 8) {
    kids = malloc(sizeof(*kids) * (size_t)n);
    if (!kids) {
      rlx_alloc_failed(); /* the children are not visited; the pipeline's check fails */
      return NULL;
    }
    rlx_expr_children(e, kids, n);
  }
  rlx_status_t* st = NULL;
  for (int i = 0; i < n && !st; i++) st = rlx_expr_try_visit(kids[i], f, user);
  if (kids != small) free(kids);
  return st;
}

typedef struct {
  void (*f)(const rlx_expr_t*, void*);
  void* user;
} visit_all_t;

static RLX_MUST_USE rlx_status_t* visit_all(const rlx_expr_t* e, void* user) {
  const visit_all_t* v = user;
  v->f(e, v->user);
  return NULL;
}

void rlx_expr_visit(const rlx_expr_t* e, void (*f)(const rlx_expr_t*, void*), void* user) {
  visit_all_t v = {f, user};
  rlx_status_free(rlx_expr_try_visit(e, visit_all, &v)); /* NULL: visit_all cannot fail */
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
