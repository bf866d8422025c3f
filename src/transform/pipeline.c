/* The Relax stage's input checks (rlx_pipeline_prepare, pass.h). The passes themselves and
 * their order are the driver's table (src/driver/driver.c). */
#include <string.h>

#include "pass.h"

static void note_elided(const rlx_relax_expr_t* e, void* user) {
  if (e->kind == RLX_RELAX_CONSTANT && !((const rlx_relax_constant_t*)e)->data) *(int*)user += 1;
}

/* A module parsed from text whose metadata section was left out has constants without
 * data (src/script/relax_script.h): nothing can be built from it. */
/* A tensor whose static shape has more elements, or bytes, than int64 counts cannot be
 * compiled: every pass and kernel computes sizes and flat indices in int64 (an overflow
 * there wrapped, and the kernel wrote outside its buffer). The error names the tensor. */
static RLX_MUST_USE rlx_status_t* check_sinfo_size(const char* fname, const char* var, const rlx_sinfo_t* s) {
  if (!s) return NULL;
  if (s->kind == RLX_SINFO_TUPLE) {
    const rlx_sinfo_tuple_t* t = (const rlx_sinfo_tuple_t*)s;
    for (int i = 0; i < t->n_fields; i++) RLX_RETURN_IF_ERROR(check_sinfo_size(fname, var, t->fields[i]));
    return NULL;
  }
  if (s->kind != RLX_SINFO_TENSOR) return NULL;
  const rlx_sinfo_tensor_t* t = (const rlx_sinfo_tensor_t*)s;
  if (!t->shape || t->ndim <= 0) return NULL;
  int64_t n = 1, d = 0;
  bool over = false;
  for (int i = 0; i < t->ndim; i++) {
    if (rlx_expr_is_int64_overflow(t->shape[i])) { /* an annotation's constant arithmetic */
      rlx_strbuf_t sb = {0};
      rlx_relax_prim_print(t->shape[i], &sb);
      rlx_status_t* st = rlx_status_create(RLX_INVALID_ARGUMENT,
                                           "function '%s': dimension %d of tensor '%s' overflows int64: %s", fname, i,
                                           var, rlx_strbuf_cstr(&sb));
      rlx_strbuf_free(&sb);
      return st;
    }
  }
  for (int i = 0; i < t->ndim; i++) {
    if (!rlx_expr_is_const_int(t->shape[i], &d) || d < 0) return NULL; /* symbolic: checked when run */
    over = over || __builtin_mul_overflow(n, d, &n);
  }
  int64_t bytes = 0;
  int eb = rlx_dtype_bytes(t->dtype);
  over = over || __builtin_mul_overflow(n, (int64_t)(eb > 0 ? eb : 1), &bytes);
  if (!over) return NULL;
  rlx_strbuf_t sb = {0};
  for (int i = 0; i < t->ndim; i++) {
    rlx_expr_is_const_int(t->shape[i], &d);
    rlx_strbuf_printf(&sb, i ? ", %lld" : "%lld", (long long)d);
  }
  char dt[32];
  rlx_status_t* st = rlx_status_create(RLX_INVALID_ARGUMENT,
                                       "function '%s': tensor '%s' of shape (%s) %s has more elements or bytes than "
                                       "int64 can count (2^63 - 1)",
                                       fname, var, rlx_strbuf_cstr(&sb), rlx_dtype_str(t->dtype, dt));
  rlx_strbuf_free(&sb);
  return st;
}

static RLX_MUST_USE rlx_status_t* check_sizes(const rlx_module_t* m) {
  for (int i = 0; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != RLX_FUNC_RELAX) continue;
    const rlx_relax_func_t* f = m->funcs[i].func;
    const char* fn = m->funcs[i].name;
    for (int p = 0; p < f->n_params; p++)
      RLX_RETURN_IF_ERROR(check_sinfo_size(fn, f->params[p]->name, f->params[p]->hdr.sinfo));
    if (!f->body || f->body->kind != RLX_RELAX_SEQ) continue;
    const rlx_relax_seq_t* seq = (const rlx_relax_seq_t*)f->body;
    for (int b = 0; b < seq->n_blocks; b++)
      for (int k = 0; k < seq->blocks[b]->n_bindings; k++) {
        const rlx_relax_var_t* v = seq->blocks[b]->bindings[k]->var;
        RLX_RETURN_IF_ERROR(check_sinfo_size(fn, v->name, v->hdr.sinfo));
      }
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* check_no_elided(const rlx_module_t* m) {
  for (int i = 0; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != RLX_FUNC_RELAX) continue;
    const rlx_relax_func_t* f = m->funcs[i].func;
    int n = 0;
    if (f->body) rlx_relax_expr_visit(f->body, note_elided, &n);
    if (n)
      return rlx_status_create(RLX_INVALID_ARGUMENT,
                               "function '%s' uses %d constant(s) whose data was left out when the module was printed "
                               "(metadata[\"relax.expr.Constant\"][i] without the metadata section): print it with the "
                               "section (rlx print --show-meta, show_meta=True) to build it",
                               m->funcs[i].name, n);
  }
  return NULL;
}

/* A function that returns a dataflow var its dataflow block publishes (`gv = lv` ... `return
 * lv`, which TVM's BlockBuilder builds and prints when an importer passes lv to
 * emit_func_output) returns the published var instead, so that every pass sees a well-formed
 * body. The module is copied only when a function changes. */
static rlx_module_t* publish_returns(rlx_ctx_t* ctx, rlx_module_t* m) {
  rlx_module_t* out = m;
  for (int i = 0; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != RLX_FUNC_RELAX) continue;
    const rlx_relax_func_t* f = m->funcs[i].func;
    if (!f->body || f->body->kind != RLX_RELAX_SEQ) continue;
    const rlx_relax_seq_t* seq = (const rlx_relax_seq_t*)f->body;
    if (!seq->body || seq->body->kind != RLX_RELAX_DATAFLOW_VAR) continue;
    rlx_relax_var_t* gv = NULL;
    for (int b = 0; b < seq->n_blocks && !gv; b++)
      for (int k = 0; seq->blocks[b]->is_dataflow && k < seq->blocks[b]->n_bindings && !gv; k++) {
        const rlx_relax_binding_t* bd = seq->blocks[b]->bindings[k];
        if (bd->kind == RLX_BINDING_VAR && bd->value == seq->body && bd->var->hdr.kind == RLX_RELAX_VAR) gv = bd->var;
      }
    if (!gv) continue; /* the well-formedness check reports it */
    rlx_relax_seq_t* ns = RLX_NEW(ctx, rlx_relax_seq_t);
    *ns = *seq;
    ns->body = &gv->hdr;
    rlx_relax_func_t* nf = RLX_NEW(ctx, rlx_relax_func_t);
    *nf = *f;
    nf->body = &ns->hdr;
    if (out == m) {
      out = rlx_module_create(ctx);
      for (int j = 0; j < m->n_funcs; j++) rlx_module_set(out, m->funcs[j].name, m->funcs[j].kind, m->funcs[j].func);
    }
    rlx_module_set(out, m->funcs[i].name, RLX_FUNC_RELAX, nf);
  }
  return out;
}

RLX_MUST_USE rlx_status_t* rlx_pipeline_prepare(rlx_ctx_t* ctx, rlx_module_t* m, rlx_module_t** out) {
  RLX_RETURN_IF_ERROR(check_no_elided(m));
  RLX_RETURN_IF_ERROR(check_sizes(m));
  *out = publish_returns(ctx, m);
  return NULL;
}
