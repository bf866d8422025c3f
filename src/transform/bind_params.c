/* BindParams (TVM's relax.transform.BindParams): parameters of one Relax function replaced
 * by constants.
 *
 * Requires: a module whose function func_name is a normalized Relax function; values are
 * Constants whose struct info fits the parameter each replaces.
 * Produces: a new module (the others' functions shared) where that function has those
 * parameters removed and every use of them reading the constant; attributes, purity and the
 * declared return kept. */
#include <stdlib.h>
#include <string.h>

#include "pass_util.h"

static const char* param_names(rlx_ctx_t* ctx, const rlx_relax_func_t* f) {
  rlx_strbuf_t sb = {0};
  for (int i = 0; i < f->n_params; i++) {
    if (i) rlx_strbuf_append(&sb, ", ");
    rlx_strbuf_append(&sb, f->params[i]->name);
  }
  const char* s = rlx_ctx_strdup(ctx, f->n_params ? rlx_strbuf_cstr(&sb) : "none");
  rlx_strbuf_free(&sb);
  return s;
}

RLX_MUST_USE rlx_status_t* rlx_relax_bind_params(rlx_ctx_t* ctx, rlx_module_t* m, const char* func_name, int n,
                                                 const char* const* names, rlx_relax_expr_t* const* values,
                                                 rlx_module_t** out) {
  if (!ctx || !m || !func_name || !out || n < 0 || (n > 0 && (!names || !values)))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "BindParams: NULL argument");
  rlx_relax_func_t* f = rlx_module_get_relax_func(m, func_name);
  if (!f) return rlx_status_create(RLX_NOT_FOUND, "BindParams: the module has no Relax function '%s'", func_name);
  rlx_ptrmap_t vmap = {0};
  bool* bound = calloc((size_t)(f->n_params > 0 ? f->n_params : 1), sizeof(bool));
  rlx_status_t* st = bound ? NULL : rlx_status_create(RLX_OUT_OF_MEMORY, "BindParams: out of memory");
  for (int i = 0; !st && i < n; i++) {
    int k = 0;
    while (k < f->n_params && (bound[k] || strcmp(f->params[k]->name, names[i]) != 0)) k++;
    if (k == f->n_params) {
      st = rlx_status_create(RLX_INVALID_ARGUMENT, "BindParams: function '%s' has no parameter '%s' (parameters: %s)",
                             func_name, names[i], param_names(ctx, f));
      break;
    }
    const rlx_relax_expr_t* v = values[i];
    if (!v || v->kind != RLX_RELAX_CONSTANT || !v->sinfo) {
      st = rlx_status_create(RLX_INVALID_ARGUMENT, "BindParams: the value of '%s' is not a constant", names[i]);
      break;
    }
    if (!rlx_sinfo_is_base_of(ctx, f->params[k]->hdr.sinfo, v->sinfo)) {
      st = rlx_status_create(RLX_INVALID_ARGUMENT, "BindParams: parameter '%s' is %s, the constant is %s", names[i],
                             rlx_sinfo_str(ctx, f->params[k]->hdr.sinfo), rlx_sinfo_str(ctx, v->sinfo));
      break;
    }
    bound[k] = true;
    if (!rlx_ptrmap_put(&vmap, f->params[k], (void*)v)) st = rlx_status_create(RLX_OUT_OF_MEMORY, "BindParams: out of memory");
  }
  if (!st) {
    rlx_relax_var_t** params = RLX_NEW_ARRAY(ctx, rlx_relax_var_t*, f->n_params > 0 ? f->n_params : 1);
    int np = 0;
    for (int i = 0; i < f->n_params; i++)
      if (!bound[i]) params[np++] = f->params[i];
    rlx_relax_expr_t* body = rlx_relax_expr_substitute(ctx, f->body, &vmap);
    rlx_relax_func_t* nf = rlx_relax_func(ctx, np, params, body, f->ret_sinfo, f->attrs, f->is_pure);
    rlx_module_t* nm = pass_module_copy(ctx, m);
    st = rlx_relax_normalize(ctx, nm, &nf->hdr);
    if (!st) {
      rlx_module_set(nm, func_name, RLX_FUNC_RELAX, nf);
      *out = nm;
    }
  }
  rlx_ptrmap_free(&vmap);
  free(bound);
  return st;
}
