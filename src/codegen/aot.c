/* Relax → AOT C with a static memory plan (see aot.h for the contract). */
#include "aot.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "../runtime/kernels/kernels_scratch.h"
#include "../runtime/kernels/nn_kernels.h"
#include "../transform/memory.h"
#include "codegen_c_internal.h"

enum { ALIGN = 64, MAX_VARS = 256, KERNEL_THREADS = 8 };

typedef enum { V_NONE, V_TENSOR, V_TUPLE, V_STORAGE } vkind_t;

/* The value a Relax variable holds at run time, as C. */
typedef struct val {
  vkind_t kind;
  const char* ptr;                 /* V_TENSOR: C expression of the data pointer */
  const rlx_sinfo_tensor_t* ti;    /* V_TENSOR: shape and dtype */
  const char* off;                 /* V_STORAGE: C expression of the byte offset in ws */
  int n;                           /* V_TUPLE */
  struct val** fields;
} val_t;

typedef RLX_VEC(const rlx_relax_expr_t*) expr_vec_t;
typedef RLX_VEC(rlx_var_t*) var_vec_t;

typedef struct {
  rlx_ctx_t* ctx;
  const rlx_aot_options_t* opts;
  rlx_module_t* m;
  const char* fname;
  const char* cname;    /* sanitized module name */
  cg_t g;               /* names of shape variables; cg_expr */
  rlx_strbuf_t body;    /* statements of the run function */
  rlx_strbuf_t decls;   /* extern declarations */
  rlx_ptrmap_t vals;    /* relax var -> val_t* */
  rlx_ptrmap_t outmap;  /* relax var (builtin.alloc_tensor) -> output index + 1 */
  rlx_ptrmap_t consts;  /* Constant -> index + 1 */
  RLX_VEC(const rlx_relax_constant_t*) const_list;
  RLX_VEC(const char*) syms;    /* packed symbols declared */
  RLX_VEC(const char*) sources; /* runtime kernel sources */
  RLX_VEC(const char*) kernels; /* PrimFuncs called */
  rlx_expr_t* ws_end;   /* bytes of workspace used so far */
  rlx_expr_t* scratch;  /* bytes of the kernels' shared scratch region (the largest call) */
  bool kernel_arena;    /* runtime kernels are called: their pool gets the scratch region */
  RLX_VEC(const char*) checks; /* C conditions the shape variables must satisfy (run_dynamic) */
  unsigned header_helpers;      /* HELPERS the header's size macros call (bit k) */
  rlx_analyzer_t* an;   /* shape variables are >= 0 */
  int tmp;
  rlx_status_t* err;
} aot_t;

static void fail(aot_t* a, rlx_status_code_t code, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(aot_t* a, rlx_status_code_t code, const char* fmt, ...) {
  if (a->err) return;
  va_list ap;
  va_start(ap, fmt);
  rlx_status_t* st = rlx_status_createv(code, fmt, ap);
  va_end(ap);
  a->err = rlx_status_annotate(st, "export of '%s'", a->fname);
}

const char* rlx_aot_sanitize(rlx_ctx_t* ctx, const char* name) {
  size_t n = strlen(name);
  char* s = rlx_ctx_alloc(ctx, n + 2);
  size_t k = 0;
  if (n == 0 || isdigit((unsigned char)name[0])) s[k++] = '_';
  for (size_t i = 0; i < n; i++) s[k++] = isalnum((unsigned char)name[i]) || name[i] == '_' ? name[i] : '_';
  s[k] = 0;
  return s;
}

static const char* upper(rlx_ctx_t* ctx, const char* s) {
  char* u = (char*)rlx_ctx_strdup(ctx, s);
  for (char* p = u; *p; p++) *p = (char)toupper((unsigned char)*p);
  return u;
}

/* e as C (int64 arithmetic over the shape variables' C names). */
static const char* cexpr(aot_t* a, const rlx_expr_t* e) {
  rlx_strbuf_t sb = {0};
  rlx_strbuf_t* saved = a->g.out;
  a->g.out = &sb;
  cg_expr(&a->g, e);
  a->g.out = saved;
  if (a->g.err && !a->err) {
    a->err = rlx_status_annotate(a->g.err, "export of '%s': a shape uses a variable the function's parameters do not "
                                            "define (data-dependent shapes cannot be exported)", a->fname);
    a->g.err = NULL;
  }
  const char* r = rlx_ctx_strdup(a->ctx, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return r;
}

static const char* sinfo_text(const rlx_sinfo_t* s) {
  switch (s ? s->kind : RLX_SINFO_OBJECT) {
    case RLX_SINFO_OBJECT: return "Object";
    case RLX_SINFO_PRIM: return "Prim";
    case RLX_SINFO_SHAPE: return "Shape";
    case RLX_SINFO_TENSOR: return "Tensor";
    case RLX_SINFO_TUPLE: return "Tuple";
    case RLX_SINFO_FUNC: return "Callable";
  }
  return "?";
}

/* Simplified knowing that every shape variable is >= 0. */
static rlx_expr_t* simp(aot_t* a, rlx_expr_t* e) {
  return a->an ? rlx_analyzer_simplify(a->an, e) : rlx_ir_simplify(a->ctx, e);
}

/* Bytes of a tensor of struct info ti. */
static rlx_expr_t* tensor_bytes(aot_t* a, const rlx_sinfo_tensor_t* ti) {
  rlx_expr_t* n = rlx_ir_i64(a->ctx, rlx_dtype_bytes(ti->dtype));
  for (int d = 0; d < ti->ndim; d++) n = rlx_ir_mul(a->ctx, n, ti->shape[d]);
  return simp(a, n);
}

/* e rounded up to ALIGN (left alone when provably a multiple). */
static rlx_expr_t* align_up(aot_t* a, rlx_expr_t* e) {
  int64_t v;
  if (rlx_expr_is_const_int(e, &v)) return rlx_ir_i64(a->ctx, (v + ALIGN - 1) / ALIGN * ALIGN);
  rlx_expr_t* al = rlx_ir_i64(a->ctx, ALIGN);
  rlx_expr_t* mod = simp(a, rlx_ir_floormod(a->ctx, e, al));
  if (rlx_expr_is_const_int(mod, &v) && v == 0) return e;
  return simp(a, rlx_ir_mul(a->ctx, rlx_ir_floordiv(a->ctx, rlx_ir_add(a->ctx, e, rlx_ir_i64(a->ctx, ALIGN - 1)), al), al));
}

/* A new region of the workspace: its offset as C. */
static const char* ws_region(aot_t* a, rlx_expr_t* bytes) {
  const char* off = cexpr(a, a->ws_end);
  a->ws_end = simp(a, rlx_ir_add(a->ctx, a->ws_end, align_up(a, bytes)));
  return off;
}

static val_t* new_val(aot_t* a, vkind_t k) {
  val_t* v = RLX_NEW(a->ctx, val_t);
  v->kind = k;
  return v;
}

static const rlx_sinfo_tensor_t* tensor_info(aot_t* a, const rlx_sinfo_t* s, const char* what) {
  if (!s || s->kind != RLX_SINFO_TENSOR) {
    fail(a, RLX_UNSUPPORTED, "%s is a %s, not a tensor", what, sinfo_text(s));
    return NULL;
  }
  const rlx_sinfo_tensor_t* t = (const rlx_sinfo_tensor_t*)s;
  if (t->ndim < 0 || !t->shape) {
    fail(a, RLX_UNSUPPORTED, "%s has an unknown shape", what);
    return NULL;
  }
  return t;
}

/* The value of an argument expression. */
static val_t* value_of(aot_t* a, const rlx_relax_expr_t* e) {
  switch (e->kind) {
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR: {
      val_t* v = rlx_ptrmap_get(&a->vals, e);
      if (!v) fail(a, RLX_INTERNAL, "variable '%s' used before its binding", ((const rlx_relax_var_t*)e)->name);
      return v;
    }
    case RLX_RELAX_CONSTANT: {
      const rlx_relax_constant_t* c = (const rlx_relax_constant_t*)e;
      intptr_t k = (intptr_t)rlx_ptrmap_get(&a->consts, c);
      if (!k) {
        rlx_vec_push(&a->const_list, c);
        k = a->const_list.len;
        rlx_ptrmap_put(&a->consts, c, (void*)k);
      }
      val_t* v = new_val(a, V_TENSOR);
      v->ptr = rlx_ctx_sprintf(a->ctx, "(void*)tvmgen_%s_c%d", a->cname, (int)k - 1);
      v->ti = tensor_info(a, e->sinfo, "a constant");
      return v;
    }
    case RLX_RELAX_TUPLE: {
      const rlx_relax_tuple_t* t = (const rlx_relax_tuple_t*)e;
      val_t* v = new_val(a, V_TUPLE);
      v->n = t->n_fields;
      v->fields = RLX_NEW_ARRAY(a->ctx, val_t*, t->n_fields);
      for (int i = 0; i < t->n_fields; i++) v->fields[i] = value_of(a, t->fields[i]);
      return v;
    }
    case RLX_RELAX_TUPLE_GET_ITEM: {
      const rlx_relax_tuple_get_item_t* g = (const rlx_relax_tuple_get_item_t*)e;
      val_t* t = value_of(a, g->tuple);
      if (t && t->kind == V_TUPLE && g->index >= 0 && g->index < t->n) return t->fields[g->index];
      fail(a, RLX_UNSUPPORTED, "TupleGetItem of something that is not a tuple");
      return NULL;
    }
    case RLX_RELAX_IF:
      fail(a, RLX_UNSUPPORTED, "an If (control flow in the function) cannot be exported: the AOT entry point runs a "
                               "straight sequence of calls");
      return NULL;
    default: fail(a, RLX_UNSUPPORTED, "a %s cannot be exported as a value", rlx_relax_kind_name(e->kind)); return NULL;
  }
}

static const char* ptr_cast(aot_t* a, const val_t* v) {
  rlx_dtype_t el = v->ti->dtype;
  el.lanes = 1;
  return rlx_ctx_sprintf(a->ctx, "(%s*)(void*)(%s)", cg_storage_ctype(el), v->ptr);
}

/* ------------------------------------------------------------------ calls */
static const rlx_tir_func_t* prim_func(aot_t* a, const char* name) {
  rlx_module_entry_t* e = rlx_module_find(a->opts->lowered ? a->opts->lowered : a->m, name);
  if (!e || e->kind != RLX_FUNC_TIR) {
    fail(a, RLX_UNSUPPORTED, "call of '%s', which is not a PrimFunc of the module", name);
    return NULL;
  }
  return e->func;
}

/* A PrimFunc call: cls.f(buffers..., [R.shape(tir_vars)]). */
static void emit_tir_call(aot_t* a, const rlx_relax_call_t* c, const char* name) {
  const rlx_tir_func_t* f = prim_func(a, name);
  if (!f) return;
  int n_buf = 0, n_scalar = 0;
  for (int i = 0; i < f->n_params; i++) f->buffer_map[i] ? n_buf++ : n_scalar++;
  int n_args = c->n_args;
  const rlx_relax_shape_expr_t* tir_vars = NULL;
  if (n_args > 0 && c->args[n_args - 1]->kind == RLX_RELAX_SHAPE_EXPR) {
    tir_vars = (const rlx_relax_shape_expr_t*)c->args[n_args - 1];
    n_args--;
  }
  if (n_args != n_buf || (n_scalar && (!tir_vars || tir_vars->ndim != n_scalar))) {
    fail(a, RLX_UNSUPPORTED, "call of '%s' with %d tensors for %d buffer parameters", name, n_args, n_buf);
    return;
  }
  bool seen = false;
  for (int i = 0; i < a->kernels.len && !seen; i++) seen = strcmp(a->kernels.data[i], name) == 0;
  if (!seen) rlx_vec_push(&a->kernels, name);
  rlx_strbuf_t call = {0};
  const val_t** argv = RLX_NEW_ARRAY(a->ctx, const val_t*, f->n_params);
  int bi = 0, si = 0;
  for (int i = 0; i < f->n_params && !a->err; i++) {
    if (i) rlx_strbuf_append(&call, ", ");
    if (f->buffer_map[i]) {
      const val_t* v = value_of(a, c->args[bi++]);
      if (!v || v->kind != V_TENSOR) {
        fail(a, RLX_UNSUPPORTED, "argument %d of '%s' is not a tensor", i, name);
        break;
      }
      argv[i] = v;
      rlx_strbuf_append(&call, ptr_cast(a, v));
    } else {
      rlx_strbuf_printf(&call, "(%s)(%s)", cg_scalar_ctype(f->params[i]->hdr.dtype), cexpr(a, tir_vars->values[si++]));
    }
  }
  /* shape variables: the arguments' dims where the buffers name them */
  rlx_ptrmap_t vmap = {0}; /* kernel variable -> value in the function's variables */
  rlx_var_t* sv[MAX_VARS];
  int nsv = rlx_codegen_kernel_vars(f, sv, MAX_VARS);
  for (int k = 0; k < nsv && k < MAX_VARS && !a->err; k++) {
    const char* val = NULL;
    for (int i = 0; i < f->n_params && !val; i++) {
      const rlx_tir_buffer_t* b = f->buffer_map[i];
      if (!b) continue;
      const rlx_sinfo_tensor_t* ti = argv[i]->ti;
      if (ti->ndim != b->ndim) {
        fail(a, RLX_UNSUPPORTED, "argument %d of '%s' has rank %d, the buffer %d", i, name, ti->ndim, b->ndim);
        break;
      }
      for (int d = 0; d < b->ndim && !val; d++) {
        if (b->shape[d] == &sv[k]->hdr) {
          val = cexpr(a, ti->shape[d]);
          rlx_ptrmap_put(&vmap, sv[k], ti->shape[d]);
        } else if (b->strides && b->strides[d] == &sv[k]->hdr) { /* compact strides */
          rlx_expr_t* s = rlx_ir_i64(a->ctx, 1);
          for (int j = d + 1; j < b->ndim; j++) s = rlx_ir_mul(a->ctx, s, ti->shape[j]);
          val = cexpr(a, simp(a, s));
          rlx_ptrmap_put(&vmap, sv[k], simp(a, s));
        }
      }
    }
    if (!val && !a->err) fail(a, RLX_UNSUPPORTED, "'%s': shape variable '%s' is not a buffer dimension", name, sv[k]->name);
    if (val) rlx_strbuf_printf(&call, "%s(int64_t)(%s)", call.len ? ", " : "", val);
  }
  /* the kernel's scratch, in this call's sizes */
  for (int i = 0; i < a->opts->n_kernel_ws && !a->err; i++) {
    if (strcmp(a->opts->kernel_ws_names[i], name) != 0) continue;
    for (int p = 0; p < f->n_params; p++) /* scalar params (tir_vars) by their values */
      if (!f->buffer_map[p] && tir_vars) {
        int si2 = 0;
        for (int q = 0; q < p; q++) si2 += !f->buffer_map[q];
        rlx_ptrmap_put(&vmap, f->params[p], tir_vars->values[si2]);
      }
    rlx_expr_t* need = simp(a, rlx_expr_substitute(a->ctx, a->opts->kernel_ws[i], &vmap));
    int64_t c0;
    if (rlx_expr_is_const_int(a->scratch, &c0) && c0 == 0) a->scratch = need;
    else if (!rlx_expr_is_const_int(need, &c0) || c0 != 0) a->scratch = simp(a, rlx_ir_max(a->ctx, a->scratch, need));
    rlx_strbuf_printf(&call, "%srlx_kscratch", call.len ? ", " : "");
  }
  rlx_ptrmap_free(&vmap);
  if (!a->err)
    rlx_strbuf_printf(&a->body, "  if (%s(%s) != 0) return -1;\n", rlx_codegen_kernel_name(a->ctx, &(rlx_codegen_c_options_t){.kernel_prefix = a->opts->kernel_prefix}, name),
                      rlx_strbuf_cstr(&call));
  rlx_strbuf_free(&call);
}

/* The C symbol of an extern name: a runtime kernel (its source is shipped) or an extern
 * object's symbol; NULL after an error. */
static const char* extern_symbol(aot_t* a, const char* name) {
  int n = 0;
  const rlx_kernel_info_t* table = rlx_kernel_table(&n);
  for (int i = 0; i < n; i++) {
    if (strcmp(table[i].name, name) != 0) continue;
    bool seen = false;
    for (int k = 0; k < a->sources.len && !seen; k++) seen = strcmp(a->sources.data[k], table[i].source) == 0;
    if (!seen) rlx_vec_push(&a->sources, table[i].source);
    return table[i].symbol;
  }
  if (a->opts->extern_defines && a->opts->extern_defines(a->opts->externs, name)) {
    if (strcmp(rlx_aot_sanitize(a->ctx, name), name) != 0) {
      fail(a, RLX_UNSUPPORTED, "extern '%s' is not a C identifier", name);
      return NULL;
    }
    return name;
  }
  fail(a, RLX_UNSUPPORTED,
       "extern function '%s' is neither a runtime kernel nor defined by an --extern object: a plain C program cannot "
       "call it",
       name);
  return NULL;
}

static void dl_code(rlx_dtype_t t, int* code, int* bits, int* lanes) {
  *code = t.code;
  *bits = t.bits;
  *lanes = t.lanes;
}

/* A runtime kernel's scratch for this call (its shapes are static: the layout pass only
 * rewrites static convolutions) joins the kernels' shared scratch region, which the
 * standalone pool of the archive (runtime/src/nn_pool.c) takes its buffers from. */
static void kernel_scratch(aot_t* a, const rlx_relax_call_t* c, const char* name) {
  int n = c->n_args;
  rlx_value_t* args = RLX_NEW_ARRAY(a->ctx, rlx_value_t, n > 0 ? n : 1);
  int* codes = RLX_NEW_ARRAY(a->ctx, int, n > 0 ? n : 1);
  DLTensor* ts = RLX_NEW_ARRAY(a->ctx, DLTensor, n > 0 ? n : 1);
  for (int i = 0; i < n && !a->err; i++) {
    const rlx_relax_expr_t* e = c->args[i];
    codes[i] = RLX_ARG_NULLPTR;
    if (e->kind == RLX_RELAX_PRIM_VALUE) {
      const rlx_expr_t* pv = ((const rlx_relax_prim_value_t*)e)->value;
      codes[i] = rlx_dtype_is_float(pv->dtype) ? RLX_ARG_FLOAT : RLX_ARG_INT;
      if (codes[i] == RLX_ARG_INT && !rlx_expr_is_const_int(pv, &args[i].v_int64)) codes[i] = RLX_ARG_NULLPTR;
      continue;
    }
    if (!e->sinfo || e->sinfo->kind != RLX_SINFO_TENSOR) continue;
    const rlx_sinfo_tensor_t* ti = (const rlx_sinfo_tensor_t*)e->sinfo;
    int64_t* shape = RLX_NEW_ARRAY(a->ctx, int64_t, ti->ndim > 0 ? ti->ndim : 1);
    for (int d = 0; d < ti->ndim; d++)
      if (!rlx_expr_is_const_int(ti->shape[d], &shape[d])) {
        fail(a, RLX_UNSUPPORTED, "runtime kernel '%s' is called with a symbolic shape: its scratch cannot be sized", name);
        return;
      }
    ts[i].ndim = ti->ndim;
    ts[i].shape = shape;
    args[i].v_handle = &ts[i];
    codes[i] = RLX_ARG_DLTENSOR;
  }
  /* the tiles of the target's kernel level: the archive's kernels are built for it */
  const rlx_nn_tiles_t* tiles = rlx_nn_tiles(rlx_target_isa_level(rlx_ctx_target_of(a->ctx)));
  int64_t need = rlx_nn_scratch_bytes(name, args, codes, n, KERNEL_THREADS, tiles);
  if (need < 0) {
    fail(a, RLX_INTERNAL, "runtime kernel '%s': the call's arguments do not follow its convention", name);
    return;
  }
  if (need > 0) a->scratch = simp(a, rlx_ir_max(a->ctx, a->scratch, rlx_ir_i64(a->ctx, need)));
  a->kernel_arena = true;
}

/* A DPS call of an ExternFunc through the packed ABI: tensors as DLTensors, PrimValues as
 * ints / floats, strings and dtypes as such. */
static void emit_extern_call(aot_t* a, const rlx_relax_call_t* c, const char* name) {
  const char* sym = extern_symbol(a, name);
  if (!sym) return;
  bool declared = false;
  for (int i = 0; i < a->syms.len && !declared; i++) declared = strcmp(a->syms.data[i], sym) == 0;
  if (!declared) {
    rlx_vec_push(&a->syms, sym);
    rlx_strbuf_printf(&a->decls, "extern int %s(rlx_value_t* args, int* codes, int n, rlx_value_t* ret, int* ret_code, void* res);\n", sym);
  }
  int n = c->n_args;
  rlx_strbuf_printf(&a->body, "  { /* %s */\n", name);
  rlx_strbuf_printf(&a->body, "    rlx_value_t rlx_a[%d]; int rlx_c[%d]; rlx_value_t rlx_rv; int rlx_rc = 0;\n", n > 0 ? n : 1, n > 0 ? n : 1);
  for (int i = 0; i < n && !a->err; i++) {
    const rlx_relax_expr_t* e = c->args[i];
    if (e->kind == RLX_RELAX_PRIM_VALUE) {
      const rlx_expr_t* pv = ((const rlx_relax_prim_value_t*)e)->value;
      if (rlx_dtype_is_float(pv->dtype))
        rlx_strbuf_printf(&a->body, "    rlx_a[%d].v_float64 = (double)(%s); rlx_c[%d] = 2;\n", i, cexpr(a, pv), i);
      else rlx_strbuf_printf(&a->body, "    rlx_a[%d].v_int64 = (int64_t)(%s); rlx_c[%d] = 0;\n", i, cexpr(a, pv), i);
      continue;
    }
    if (e->kind == RLX_RELAX_STRING_IMM) {
      rlx_strbuf_t q = {0};
      rlx_strbuf_append(&q, "\"");
      for (const char* p = ((const rlx_relax_string_imm_t*)e)->value; *p; p++) {
        if (*p == '"' || *p == '\\') rlx_strbuf_printf(&q, "\\%c", *p);
        else if ((unsigned char)*p < 32 || (unsigned char)*p >= 127) rlx_strbuf_printf(&q, "\\%03o", (unsigned char)*p);
        else rlx_strbuf_appendn(&q, p, 1);
      }
      rlx_strbuf_append(&q, "\"");
      rlx_strbuf_printf(&a->body, "    rlx_a[%d].v_str = %s; rlx_c[%d] = 11;\n", i, rlx_strbuf_cstr(&q), i);
      rlx_strbuf_free(&q);
      continue;
    }
    if (e->kind == RLX_RELAX_DATA_TYPE_IMM) {
      int code, bits, lanes;
      dl_code(((const rlx_relax_dtype_imm_t*)e)->value, &code, &bits, &lanes);
      rlx_strbuf_printf(&a->body, "    rlx_a[%d].v_type = (rlx_dldtype_t){%d, %d, %d}; rlx_c[%d] = 5;\n", i, code, bits, lanes, i);
      continue;
    }
    const val_t* v = value_of(a, e);
    if (!v || v->kind != V_TENSOR) {
      fail(a, RLX_UNSUPPORTED, "argument %d of extern '%s' is not a tensor, an int, a float, a string or a dtype", i, name);
      break;
    }
    int code, bits, lanes;
    dl_code(v->ti->dtype, &code, &bits, &lanes);
    rlx_strbuf_printf(&a->body, "    int64_t rlx_s%d[%d] = {", i, v->ti->ndim > 0 ? v->ti->ndim : 1);
    for (int d = 0; d < v->ti->ndim; d++) rlx_strbuf_printf(&a->body, "%s(int64_t)(%s)", d ? ", " : "", cexpr(a, v->ti->shape[d]));
    if (v->ti->ndim == 0) rlx_strbuf_append(&a->body, "0");
    rlx_strbuf_printf(&a->body, "};\n    rlx_dltensor_t rlx_t%d = {(void*)(%s), {1, 0}, %d, {%d, %d, %d}, rlx_s%d, NULL, 0};\n", i,
                      v->ptr, v->ti->ndim, code, bits, lanes, i);
    rlx_strbuf_printf(&a->body, "    rlx_a[%d].v_handle = &rlx_t%d; rlx_c[%d] = 7;\n", i, i, i);
  }
  rlx_strbuf_printf(&a->body, "    if (%s(rlx_a, rlx_c, %d, &rlx_rv, &rlx_rc, NULL) != 0) return -1;\n  }\n", sym, n);
  if (rlx_kernel_lookup(name)) kernel_scratch(a, c, name);
}

/* ------------------------------------------------------------------ shape checks */
/* Records `cond` (C text) as a condition run_dynamic checks before running; duplicates once. */
static void add_check(aot_t* a, const char* cond) {
  for (int i = 0; i < a->checks.len; i++)
    if (strcmp(a->checks.data[i], cond) == 0) return;
  rlx_vec_push(&a->checks, cond);
}

/* Every dim of a tensor the function computes must be >= 0 for the given variables (a
 * slice's `n - 4` needs n >= 4); dims the analyzer proves so need no check. */
static void check_dims(aot_t* a, const rlx_sinfo_t* s) {
  if (s && s->kind == RLX_SINFO_TUPLE) { /* the declared return value */
    const rlx_sinfo_tuple_t* t = (const rlx_sinfo_tuple_t*)s;
    for (int i = 0; i < t->n_fields; i++) check_dims(a, t->fields[i]);
    return;
  }
  if (!s || s->kind != RLX_SINFO_TENSOR) return;
  const rlx_sinfo_tensor_t* t = (const rlx_sinfo_tensor_t*)s;
  for (int d = 0; d < t->ndim && t->shape && !a->err; d++) {
    rlx_expr_t* e = t->shape[d];
    int64_t c;
    if (rlx_expr_is_const_int(e, &c) || e->kind == RLX_EXPR_VAR) continue;
    if (rlx_analyzer_can_prove(a->an, rlx_ir_cmp(a->ctx, RLX_EXPR_GE, e, rlx_ir_i64(a->ctx, 0)))) continue;
    add_check(a, rlx_ctx_sprintf(a->ctx, "(%s) >= 0", cexpr(a, simp(a, e))));
  }
}

/* R.match_cast(value, sinfo) binds no new variable here (the exporter refuses those), so
 * each of its dims is a check: the value's dim equals the cast's (`n` == 4). */
static void check_match_cast(aot_t* a, const rlx_relax_binding_t* b) {
  const rlx_sinfo_t *from = b->value->sinfo, *to = b->sinfo;
  if (!from || !to || from->kind != RLX_SINFO_TENSOR || to->kind != RLX_SINFO_TENSOR) return;
  const rlx_sinfo_tensor_t *f = (const rlx_sinfo_tensor_t*)from, *t = (const rlx_sinfo_tensor_t*)to;
  if (!f->shape || !t->shape || f->ndim != t->ndim) return;
  for (int d = 0; d < f->ndim && !a->err; d++) {
    rlx_expr_t* diff = simp(a, rlx_ir_sub(a->ctx, f->shape[d], t->shape[d]));
    int64_t c;
    if (rlx_expr_is_const_int(diff, &c)) {
      if (c != 0) add_check(a, "0 /* a match_cast to a different static shape */");
      continue;
    }
    add_check(a, rlx_ctx_sprintf(a->ctx, "(%s) == (%s)", cexpr(a, f->shape[d]), cexpr(a, t->shape[d])));
  }
}

/* ------------------------------------------------------------------ bindings */
static void bind(aot_t* a, const rlx_relax_binding_t* b) {
  const rlx_relax_expr_t* e = b->value;
  const char* vname = b->var->name;
  val_t* v = NULL;
  check_dims(a, b->var->hdr.sinfo);
  if (b->kind == RLX_BINDING_MATCH_CAST) {
    check_match_cast(a, b);
    v = value_of(a, e); /* a variable it would bind is caught when a shape uses it */
  } else if (e->kind == RLX_RELAX_CALL) {
    const rlx_relax_call_t* c = (const rlx_relax_call_t*)e;
    if (rlx_relax_is_op(c->op, RLX_OP_MEMORY_ALLOC_STORAGE)) {
      const rlx_relax_shape_expr_t* se = (const rlx_relax_shape_expr_t*)c->args[0];
      if (c->args[0]->kind != RLX_RELAX_SHAPE_EXPR || se->ndim != 1) {
        fail(a, RLX_UNSUPPORTED, "alloc_storage '%s' without a size", vname);
        return;
      }
      v = new_val(a, V_STORAGE);
      v->off = ws_region(a, se->values[0]);
    } else if (rlx_relax_is_op(c->op, RLX_OP_MEMORY_ALLOC_TENSOR)) {
      const val_t* s = value_of(a, c->args[0]);
      const rlx_relax_expr_t* off = c->args[1];
      if (!s || s->kind != V_STORAGE || off->kind != RLX_RELAX_PRIM_VALUE) {
        fail(a, RLX_UNSUPPORTED, "alloc_tensor '%s' outside a storage", vname);
        return;
      }
      v = new_val(a, V_TENSOR);
      v->ti = tensor_info(a, b->var->hdr.sinfo, vname);
      v->ptr = rlx_ctx_sprintf(a->ctx, "(rlx_ws + (%s) + (%s))", s->off, cexpr(a, ((const rlx_relax_prim_value_t*)off)->value));
    } else if (rlx_relax_is_op(c->op, RLX_OP_BUILTIN_ALLOC_TENSOR)) {
      v = new_val(a, V_TENSOR);
      v->ti = tensor_info(a, b->var->hdr.sinfo, vname);
      intptr_t k = (intptr_t)rlx_ptrmap_get(&a->outmap, b->var);
      if (!a->err && v->ti) {
        /* "rlx_out->@K" becomes output K's member name once all names are known */
        if (k) v->ptr = rlx_ctx_sprintf(a->ctx, "rlx_out->@%d", (int)k - 1);
        else v->ptr = rlx_ctx_sprintf(a->ctx, "(rlx_ws + (%s))", ws_region(a, tensor_bytes(a, v->ti)));
      }
    } else if (rlx_relax_is_op(c->op, RLX_OP_MEMORY_KILL_TENSOR) || rlx_relax_is_op(c->op, RLX_OP_MEMORY_KILL_STORAGE)) {
      v = new_val(a, V_NONE);
    } else if (c->op->kind == RLX_RELAX_GLOBAL_VAR) {
      emit_tir_call(a, c, ((const rlx_relax_global_var_t*)c->op)->name);
      v = new_val(a, V_NONE);
    } else if (c->op->kind == RLX_RELAX_EXTERN_FUNC) {
      const rlx_sinfo_t* rs = e->sinfo;
      bool returns = rs && (rs->kind == RLX_SINFO_TENSOR || (rs->kind == RLX_SINFO_TUPLE && ((const rlx_sinfo_tuple_t*)rs)->n_fields > 0));
      if (returns) {
        fail(a, RLX_UNSUPPORTED, "R.call_packed(\"%s\") returns a value the callee allocates: a plain C program has no "
             "allocator (use R.call_dps_packed)", ((const rlx_relax_extern_func_t*)c->op)->global_symbol);
        return;
      }
      emit_extern_call(a, c, ((const rlx_relax_extern_func_t*)c->op)->global_symbol);
      v = new_val(a, V_NONE);
    } else if (c->op->kind == RLX_RELAX_OP) {
      fail(a, RLX_UNSUPPORTED, "operator %s is left in the function", ((const rlx_relax_op_t*)c->op)->name);
      return;
    } else {
      fail(a, RLX_UNSUPPORTED, "a call of a %s", rlx_relax_kind_name(c->op->kind));
      return;
    }
  } else {
    v = value_of(a, e);
  }
  if (v) rlx_ptrmap_put(&a->vals, b->var, v);
}

/* ------------------------------------------------------------------ outputs */
/* The expression a variable is bound to, following plain aliases. */
static const rlx_relax_expr_t* bound(const rlx_ptrmap_t* defs, const rlx_relax_expr_t* e) {
  for (int guard = 0; guard < 100000; guard++) {
    if (e->kind == RLX_RELAX_TUPLE_GET_ITEM) {
      const rlx_relax_tuple_get_item_t* g = (const rlx_relax_tuple_get_item_t*)e;
      const rlx_relax_expr_t* t = bound(defs, g->tuple);
      if (t->kind != RLX_RELAX_TUPLE || g->index >= ((const rlx_relax_tuple_t*)t)->n_fields) return e;
      e = ((const rlx_relax_tuple_t*)t)->fields[g->index];
      continue;
    }
    if (e->kind != RLX_RELAX_VAR && e->kind != RLX_RELAX_DATAFLOW_VAR) return e;
    const rlx_relax_expr_t* d = rlx_ptrmap_get(defs, e);
    if (!d || (d->kind != RLX_RELAX_VAR && d->kind != RLX_RELAX_DATAFLOW_VAR && d->kind != RLX_RELAX_TUPLE &&
               d->kind != RLX_RELAX_TUPLE_GET_ITEM))
      return e;
    e = d;
  }
  return e;
}

/* Flattens the returned expression into its leaves (depth-first). */
static void leaves(const rlx_ptrmap_t* defs, const rlx_relax_expr_t* e, expr_vec_t* out) {
  const rlx_relax_expr_t* r = bound(defs, e);
  if (r->kind == RLX_RELAX_TUPLE) {
    const rlx_relax_tuple_t* t = (const rlx_relax_tuple_t*)r;
    for (int i = 0; i < t->n_fields; i++) leaves(defs, t->fields[i], out);
    return;
  }
  rlx_vec_push(out, r);
}

/* ------------------------------------------------------------------ driver */
static void add_var(rlx_var_t* v, var_vec_t* vars) {
  for (int i = 0; i < vars->len; i++)
    if (vars->data[i] == v) return;
  rlx_vec_push(vars, v);
}

static const char* size_text(rlx_ctx_t* ctx, const rlx_expr_t* e) {
  rlx_strbuf_t sb = {0};
  rlx_relax_prim_print(e, &sb);
  const char* s = rlx_ctx_strdup(ctx, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return s;
}

/* Replaces "outputs->@K" placeholders by the output member names. */
static char* fill_outputs(const char* text, const rlx_aot_tensor_t* outs) {
  rlx_strbuf_t sb = {0};
  for (const char* p = text; *p;) {
    const char* q = strstr(p, "rlx_out->@");
    if (!q) {
      rlx_strbuf_append(&sb, p);
      break;
    }
    rlx_strbuf_appendn(&sb, p, (size_t)(q - p));
    char* end;
    long k = strtol(q + 10, &end, 10);
    rlx_strbuf_printf(&sb, "rlx_out->%s", outs[k].name);
    p = end;
  }
  return rlx_strbuf_take(&sb);
}

static void emit_consts(aot_t* a, rlx_aot_result_t* r) {
  rlx_strbuf_t sb = {0};
  rlx_strbuf_printf(&sb,
                    "/* Constants of model '%s' (generated by rlx): the weights, as 64-byte aligned byte arrays. */\n"
                    "#include <stdint.h>\n\n",
                    a->cname);
  int64_t total = 0;
  for (int k = 0; k < a->const_list.len; k++) {
    const rlx_relax_constant_t* c = a->const_list.data[k];
    const unsigned char* p = c->data;
    size_t n = c->nbytes;
    total += (int64_t)n;
    if (n == 0) {
      rlx_strbuf_printf(&sb, "_Alignas(64) const uint8_t tvmgen_%s_c%d[1] = {0};\n", a->cname, k);
      continue;
    }
    rlx_strbuf_printf(&sb, "_Alignas(64) const uint8_t tvmgen_%s_c%d[%zu] =\n", a->cname, k, n);
    char line[4 * 256 + 8];
    for (size_t i = 0; i < n;) {
      size_t len = 0;
      line[len++] = '"';
      for (size_t j = 0; j < 256 && i < n; j++, i++) {
        unsigned char ch = p[i];
        if (ch >= 32 && ch < 127 && ch != '"' && ch != '\\' && ch != '?') line[len++] = (char)ch;
        else len += (size_t)snprintf(line + len, 5, "\\%03o", ch);
      }
      line[len++] = '"';
      line[len++] = '\n';
      rlx_strbuf_appendn(&sb, line, len);
    }
    rlx_strbuf_append(&sb, ";\n");
  }
  r->constants_bytes = total;
  r->consts_c = rlx_strbuf_take(&sb);
}

/* Integer helpers the size formulas may call (codegen_c's prelude), and their definitions
 * for the header, where they are named tvmgen_NAME_<helper without "rlx_">. */
static const char* const HELPERS[] = {"rlx_max_i64", "rlx_min_i64", "rlx_floordiv_i64", "rlx_floormod_i64"};
enum { N_HELPERS = 4 };
static const char* const HELPER_BODIES[] = {
    "(int64_t a, int64_t b) { return a > b ? a : b; }",
    "(int64_t a, int64_t b) { return a < b ? a : b; }",
    "(int64_t a, int64_t b) {\n  int64_t q = a / b;\n  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;\n}",
    "(int64_t a, int64_t b) {\n  int64_t r = a % b;\n  return (r != 0 && (r < 0) != (b < 0)) ? r + b : r;\n}"};

/* e as C over the members of a `vars` struct pointer (for the header's size macros). */
static const char* vars_cexpr(aot_t* a, const rlx_expr_t* e, int nv, rlx_var_t* const* vars, const char* const* names) {
  cg_t g;
  memset(&g, 0, sizeof(g));
  cg_vtype_vec_t vt = {0};
  rlx_strbuf_t sb = {0};
  g.ctx = a->ctx;
  g.fname = a->fname;
  g.vtypes = &vt;
  g.out = &sb;
  for (int i = 0; i < nv; i++) rlx_ptrmap_put(&g.names, vars[i], (void*)rlx_ctx_sprintf(a->ctx, "(vars)->%s", names[i]));
  cg_expr(&g, e);
  /* the integer helpers of the kernels' prelude, under the header's own names */
  rlx_strbuf_t fixed = {0};
  for (const char* p = rlx_strbuf_cstr(&sb); *p;) {
    int k = 0;
    while (k < N_HELPERS && strncmp(p, HELPERS[k], strlen(HELPERS[k])) != 0) k++;
    if (k == N_HELPERS) {
      rlx_strbuf_appendn(&fixed, p++, 1);
      continue;
    }
    rlx_strbuf_printf(&fixed, "tvmgen_%s_%s", a->cname, HELPERS[k] + 4);
    p += strlen(HELPERS[k]);
    a->header_helpers |= 1u << k;
  }
  const char* r = rlx_ctx_strdup(a->ctx, rlx_strbuf_cstr(&fixed));
  rlx_strbuf_free(&fixed);
  rlx_status_free(g.err);
  rlx_strbuf_free(&sb);
  rlx_ptrmap_free(&g.names);
  rlx_vec_free(&g.used);
  rlx_vec_free(&vt);
  return r;
}

static void emit_header(aot_t* a, rlx_aot_result_t* r, int nv, rlx_var_t* const* vars) {
  const char* N = a->cname;
  const char* U = upper(a->ctx, N);
  rlx_strbuf_t h = {0};
  rlx_strbuf_printf(&h,
                    "/* Interface of model '%s' (generated by rlx): TVM's AOT interface (Model Library Format). */\n"
                    "#ifndef TVMGEN_%s_H_\n#define TVMGEN_%s_H_\n\n#include <stddef.h>\n#include <stdint.h>\n\n"
                    "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
                    N, U, U);
  if (r->symbolic) {
    rlx_strbuf_printf(&h, "/* Values of the model's symbolic dimensions. */\nstruct tvmgen_%s_shape_vars {\n", N);
    for (int i = 0; i < nv; i++) rlx_strbuf_printf(&h, "  int64_t %s;\n", r->var_names[i]);
    rlx_strbuf_append(&h, "};\n\n");
  }
  const char* arg = r->symbolic ? "(vars)" : "";
  for (int io = 0; io < 2; io++) {
    const rlx_aot_tensor_t* t = io ? r->outputs : r->inputs;
    int n = io ? r->n_outputs : r->n_inputs;
    for (int i = 0; i < n; i++) {
      const rlx_expr_t* bytes = t[i].bytes;
      int64_t c;
      rlx_strbuf_printf(&h, "/* %s %s: %s bytes */\n", io ? "Output" : "Input", t[i].name, size_text(a->ctx, bytes));
      /* a model with symbolic dimensions: every size macro takes the variables, for uniformity */
      if (rlx_expr_is_const_int(bytes, &c))
        rlx_strbuf_printf(&h, "#define TVMGEN_%s_%s_SIZE%s %lld\n", U, upper(a->ctx, t[i].name), arg, (long long)c);
      else
        rlx_strbuf_printf(&h, "#define TVMGEN_%s_%s_SIZE%s ((size_t)(%s))\n", U, upper(a->ctx, t[i].name), arg,
                          vars_cexpr(a, bytes, nv, vars, r->var_names));
    }
  }
  for (int k = 0; k < N_HELPERS; k++) /* what the size macros above call */
    if (a->header_helpers & (1u << k))
      rlx_strbuf_printf(&h, "static inline int64_t tvmgen_%s_%s%s\n", N, HELPERS[k] + 4, HELPER_BODIES[k]);
  int64_t ws;
  if (!r->symbolic && rlx_expr_is_const_int(r->workspace_bytes, &ws))
    rlx_strbuf_printf(&h, "/* Bytes of the static workspace (activations). */\n#define TVMGEN_%s_WORKSPACE_SIZE %lld\n", U,
                      (long long)ws);
  rlx_strbuf_printf(&h, "\n/* Input tensors, in parameter order: data pointers (compact, row-major). */\nstruct tvmgen_%s_inputs {\n", N);
  for (int i = 0; i < r->n_inputs; i++) rlx_strbuf_printf(&h, "  void* %s;\n", r->inputs[i].name);
  if (r->n_inputs == 0) rlx_strbuf_append(&h, "  void* unused;\n");
  rlx_strbuf_printf(&h, "};\n\n/* Output tensors: buffers the caller provides. */\nstruct tvmgen_%s_outputs {\n", N);
  for (int i = 0; i < r->n_outputs; i++) rlx_strbuf_printf(&h, "  void* %s;\n", r->outputs[i].name);
  rlx_strbuf_append(&h, "};\n\n");
  if (r->symbolic) {
    rlx_strbuf_printf(&h,
                      "/* Bytes of workspace the model needs for these dimensions (the exact planned size). */\n"
                      "size_t tvmgen_%s_workspace_size(const struct tvmgen_%s_shape_vars* vars);\n\n"
                      "/* Runs the model; workspace: tvmgen_%s_workspace_size(vars) bytes, 64-byte aligned.\n"
                      " * Returns 0, or nonzero when the sizes do not satisfy the model or a kernel fails. */\n"
                      "int32_t tvmgen_%s_run_dynamic(struct tvmgen_%s_inputs* inputs, struct tvmgen_%s_outputs* outputs,\n"
                      "                              const struct tvmgen_%s_shape_vars* vars, void* workspace);\n",
                      N, N, N, N, N, N, N);
  } else {
    rlx_strbuf_printf(&h,
                      "/* Runs the model (workspace: a static array). Returns 0, or nonzero when a kernel fails. */\n"
                      "int32_t tvmgen_%s_run(struct tvmgen_%s_inputs* inputs, struct tvmgen_%s_outputs* outputs);\n",
                      N, N, N);
  }
  rlx_strbuf_append(&h, "\n#ifdef __cplusplus\n}\n#endif\n#endif\n");
  r->header = rlx_strbuf_take(&h);
}

RLX_MUST_USE rlx_status_t* rlx_aot_codegen(rlx_ctx_t* ctx, rlx_module_t* planned, const char* func, const rlx_aot_options_t* opts,
                                           rlx_aot_result_t* out) {
  memset(out, 0, sizeof(*out));
  rlx_module_entry_t* fe = rlx_module_find(planned, func);
  if (!fe || fe->kind != RLX_FUNC_RELAX)
    return rlx_status_create(RLX_NOT_FOUND, "export: no Relax function '%s' in the module", func);
  const rlx_relax_func_t* f = fe->func;
  if (f->body->kind != RLX_RELAX_SEQ)
    return rlx_status_create(RLX_UNSUPPORTED, "export of '%s': the body is not a sequence of bindings", func);
  aot_t a;
  memset(&a, 0, sizeof(a));
  a.ctx = ctx;
  a.opts = opts;
  a.m = planned;
  a.fname = func;
  a.cname = rlx_aot_sanitize(ctx, opts->name ? opts->name : "default");
  a.ws_end = rlx_ir_i64(ctx, 0);
  a.scratch = rlx_ir_i64(ctx, 0);
  cg_vtype_vec_t vtypes = {0};
  a.g.ctx = ctx;
  a.g.fname = func;
  a.g.vtypes = &vtypes;
  out->c_name = a.cname;

  /* inputs and shape variables */
  var_vec_t vars = {0};
  out->n_inputs = f->n_params;
  out->inputs = RLX_NEW_ARRAY(ctx, rlx_aot_tensor_t, f->n_params);
  for (int i = 0; i < f->n_params && !a.err; i++) {
    rlx_relax_var_t* p = f->params[i];
    const rlx_sinfo_tensor_t* ti = tensor_info(&a, p->hdr.sinfo, rlx_ctx_sprintf(ctx, "parameter '%s'", p->name));
    if (!ti) break;
    for (int d = 0; d < ti->ndim; d++)
      if (ti->shape[d]->kind == RLX_EXPR_VAR) add_var(RLX_AS(rlx_var_t, ti->shape[d]), &vars);
    const char* nm = rlx_aot_sanitize(ctx, p->name);
    for (int k = 0; k < i; k++)
      if (strcmp(out->inputs[k].name, nm) == 0) nm = rlx_ctx_sprintf(ctx, "%s_%d", nm, i);
    out->inputs[i] = (rlx_aot_tensor_t){nm, ti->dtype, ti->ndim, ti->shape, NULL};
    val_t* v = new_val(&a, V_TENSOR);
    v->ti = ti;
    v->ptr = rlx_ctx_sprintf(ctx, "rlx_in->%s", nm);
    rlx_ptrmap_put(&a.vals, p, v);
  }
  out->symbolic = vars.len > 0;
  out->n_vars = vars.len;
  out->var_names = RLX_NEW_ARRAY(ctx, const char*, vars.len);
  a.an = rlx_analyzer_create(ctx);
  for (int i = 0; i < vars.len; i++) {
    out->var_names[i] = rlx_aot_sanitize(ctx, vars.data[i]->name);
    cg_var_name(&a.g, vars.data[i], true);
    rlx_analyzer_bind_nonneg(a.an, vars.data[i]);
  }
  for (int i = 0; i < f->n_params && !a.err; i++) out->inputs[i].bytes = tensor_bytes(&a, (const rlx_sinfo_tensor_t*)f->params[i]->hdr.sinfo);

  /* outputs: the leaves of the returned value */
  const rlx_relax_seq_t* seq = (const rlx_relax_seq_t*)f->body;
  rlx_ptrmap_t defs = {0};
  for (int bi = 0; bi < seq->n_blocks; bi++)
    for (int k = 0; k < seq->blocks[bi]->n_bindings; k++) {
      const rlx_relax_binding_t* b = seq->blocks[bi]->bindings[k];
      if (b->kind == RLX_BINDING_VAR) rlx_ptrmap_put(&defs, b->var, b->value);
    }
  expr_vec_t outs = {0};
  leaves(&defs, seq->body, &outs);
  out->n_outputs = outs.len;
  out->outputs = RLX_NEW_ARRAY(ctx, rlx_aot_tensor_t, outs.len);
  for (int i = 0; i < outs.len && !a.err; i++) {
    const char* nm = opts->n_output_names == outs.len ? rlx_aot_sanitize(ctx, opts->output_names[i])
                     : outs.len == 1                 ? "output"
                                                     : rlx_ctx_sprintf(ctx, "output%d", i);
    for (int k = 0; k < i; k++)
      if (strcmp(out->outputs[k].name, nm) == 0) nm = rlx_ctx_sprintf(ctx, "%s_%d", nm, i);
    const rlx_sinfo_tensor_t* ti = tensor_info(&a, outs.data[i]->sinfo, rlx_ctx_sprintf(ctx, "output %d", i));
    if (!ti) break;
    out->outputs[i] = (rlx_aot_tensor_t){nm, ti->dtype, ti->ndim, ti->shape, tensor_bytes(&a, ti)};
    const rlx_relax_expr_t* d = rlx_ptrmap_get(&defs, outs.data[i]);
    if (d && d->kind == RLX_RELAX_CALL && rlx_relax_is_op(((const rlx_relax_call_t*)d)->op, RLX_OP_BUILTIN_ALLOC_TENSOR) &&
        !rlx_ptrmap_has(&a.outmap, outs.data[i]))
      rlx_ptrmap_put(&a.outmap, outs.data[i], (void*)(intptr_t)(i + 1));
  }
  rlx_ptrmap_free(&defs);

  /* the body */
  check_dims(&a, f->ret_sinfo);
  for (int bi = 0; bi < seq->n_blocks && !a.err; bi++)
    for (int k = 0; k < seq->blocks[bi]->n_bindings && !a.err; k++) bind(&a, seq->blocks[bi]->bindings[k]);
  /* returned values that are not computed in place are copied */
  for (int i = 0; i < outs.len && !a.err; i++) {
    intptr_t k = (intptr_t)rlx_ptrmap_get(&a.outmap, outs.data[i]);
    if (k == i + 1) continue;
    const val_t* v = value_of(&a, outs.data[i]);
    if (!v || v->kind != V_TENSOR) {
      fail(&a, RLX_UNSUPPORTED, "output %d is not a tensor", i);
      break;
    }
    rlx_strbuf_printf(&a.body, "  memcpy(rlx_out->@%d, %s, (size_t)(%s));\n", i, v->ptr, cexpr(&a, out->outputs[i].bytes));
  }
  /* the kernels' scratch region goes last */
  const char* scratch_off = a.err ? "0" : ws_region(&a, a.scratch);
  out->workspace_bytes = a.ws_end;
  if (!a.err) {
    const char* N = a.cname;
    rlx_strbuf_t c = {0};
    rlx_strbuf_printf(&c, "\n/* ---- AOT entry point of model '%s' (function '%s'): static memory plan ---- */\n", N, func);
    rlx_strbuf_printf(&c, "#include \"tvmgen_%s.h\"\n", N);
    for (int k = 0; k < a.const_list.len; k++) rlx_strbuf_printf(&c, "extern const uint8_t tvmgen_%s_c%d[];\n", N, k);
    rlx_strbuf_append(&c, rlx_strbuf_cstr(&a.decls));
    if (a.kernel_arena) /* runtime/src/nn_pool.c */
      rlx_strbuf_append(&c, "extern void rlx_nn_standalone_arena(void* base, size_t size, int max_threads);\n");
    rlx_strbuf_printf(&c, "\nstatic int32_t tvmgen_%s_body(struct tvmgen_%s_inputs* rlx_in, struct tvmgen_%s_outputs* rlx_out",
                      N, N, N);
    if (out->symbolic) rlx_strbuf_printf(&c, ", const struct tvmgen_%s_shape_vars* rlx_vars", N);
    rlx_strbuf_append(&c, ", uint8_t* rlx_ws) {\n");
    for (int i = 0; i < vars.len; i++)
      rlx_strbuf_printf(&c, "  const int64_t %s = rlx_vars->%s;\n", cg_var_name(&a.g, vars.data[i], false), out->var_names[i]);
    rlx_strbuf_printf(&c, "  uint8_t* rlx_kscratch = rlx_ws + (%s); /* the kernels' temporaries */\n", scratch_off);
    rlx_strbuf_append(&c, "  (void)rlx_in; (void)rlx_out; (void)rlx_ws; (void)rlx_kscratch;\n");
    if (a.kernel_arena)
      rlx_strbuf_printf(&c, "  rlx_nn_standalone_arena(rlx_kscratch, (size_t)(%s), %d); /* runtime kernels: up to %d threads */\n",
                        cexpr(&a, a.scratch), KERNEL_THREADS, KERNEL_THREADS);
    rlx_strbuf_append(&c, rlx_strbuf_cstr(&a.body));
    rlx_strbuf_append(&c, "  return 0;\n}\n\n");
    if (out->symbolic) {
      rlx_strbuf_printf(&c, "size_t tvmgen_%s_workspace_size(const struct tvmgen_%s_shape_vars* rlx_vars) {\n", N, N);
      for (int i = 0; i < vars.len; i++)
        rlx_strbuf_printf(&c, "  const int64_t %s = rlx_vars->%s;\n", cg_var_name(&a.g, vars.data[i], false), out->var_names[i]);
      rlx_strbuf_printf(&c, "  return (size_t)(%s);\n}\n\n", cexpr(&a, a.ws_end));
      rlx_strbuf_printf(&c,
                        "int32_t tvmgen_%s_run_dynamic(struct tvmgen_%s_inputs* inputs, struct tvmgen_%s_outputs* outputs,\n"
                        "                              const struct tvmgen_%s_shape_vars* vars, void* workspace) {\n"
                        "  if (!inputs || !outputs || !vars || !workspace) return -1;\n",
                        N, N, N, N);
      /* the planned sizes assume tir_var_upper_bound: a larger value does not fit */
      rlx_analyzer_t* an = NULL;
      rlx_status_t* bs = rlx_memory_upper_bounds(ctx, f, &an, NULL);
      if (bs) rlx_status_free(bs), an = NULL;
      /* every variable in [1, 2^31): sizes are int64 products of a few of them */
      for (int i = 0; i < vars.len; i++) {
        rlx_strbuf_printf(&c, "  if (vars->%s < 1 || vars->%s > INT32_MAX) return -1;\n", out->var_names[i], out->var_names[i]);
        int64_t lo, hi;
        if (an && rlx_analyzer_const_bound(an, &vars.data[i]->hdr, &lo, &hi) && hi < INT64_MAX / 2)
          rlx_strbuf_printf(&c, "  if (vars->%s > %lld) return -1; /* tir_var_upper_bound */\n", out->var_names[i], (long long)hi);
      }
      if (a.checks.len) {
        rlx_strbuf_append(&c, "  {\n");
        for (int i = 0; i < vars.len; i++)
          rlx_strbuf_printf(&c, "    const int64_t %s = vars->%s;\n", cg_var_name(&a.g, vars.data[i], false), out->var_names[i]);
        for (int i = 0; i < vars.len; i++) rlx_strbuf_printf(&c, "    (void)%s;\n", cg_var_name(&a.g, vars.data[i], false));
        rlx_strbuf_append(&c, "    /* what the function's shapes require of the variables */\n");
        for (int i = 0; i < a.checks.len; i++) rlx_strbuf_printf(&c, "    if (!(%s)) return -1;\n", a.checks.data[i]);
        rlx_strbuf_append(&c, "  }\n");
      }
      rlx_strbuf_printf(&c, "  return tvmgen_%s_body(inputs, outputs, vars, (uint8_t*)workspace);\n}\n", N);
    } else {
      int64_t ws = 0;
      rlx_expr_is_const_int(a.ws_end, &ws);
      rlx_strbuf_printf(&c,
                        "static _Alignas(64) uint8_t tvmgen_%s_workspace[%lld];\n\n"
                        "int32_t tvmgen_%s_run(struct tvmgen_%s_inputs* inputs, struct tvmgen_%s_outputs* outputs) {\n"
                        "  if (!inputs || !outputs) return -1;\n"
                        "  return tvmgen_%s_body(inputs, outputs, tvmgen_%s_workspace);\n}\n",
                        N, (long long)(ws > 0 ? ws : 1), N, N, N, N, N);
    }
    out->entry_c = fill_outputs(rlx_strbuf_cstr(&c), out->outputs);
    rlx_strbuf_free(&c);
    emit_consts(&a, out);
    emit_header(&a, out, vars.len, vars.data);
    if (!a.err && (!out->entry_c || !out->consts_c || !out->header)) /* a text's buffer could not grow */
      a.err = rlx_status_create(RLX_OUT_OF_MEMORY, "export: out of memory generating the AOT entry point");
    if (a.err) rlx_aot_result_free(out);
  }
  out->n_consts = a.const_list.len;
  out->consts = RLX_NEW_ARRAY(ctx, const rlx_relax_constant_t*, a.const_list.len);
  for (int i = 0; i < a.const_list.len; i++) out->consts[i] = a.const_list.data[i];
  out->n_sources = a.sources.len;
  out->runtime_sources = RLX_NEW_ARRAY(ctx, const char*, a.sources.len);
  for (int i = 0; i < a.sources.len; i++) out->runtime_sources[i] = a.sources.data[i];
  out->n_kernels = a.kernels.len;
  out->kernels = RLX_NEW_ARRAY(ctx, const char*, a.kernels.len);
  for (int i = 0; i < a.kernels.len; i++) out->kernels[i] = a.kernels.data[i];
  rlx_strbuf_free(&a.body);
  rlx_strbuf_free(&a.decls);
  rlx_ptrmap_free(&a.vals);
  rlx_ptrmap_free(&a.outmap);
  rlx_ptrmap_free(&a.consts);
  rlx_vec_free(&a.const_list);
  rlx_vec_free(&a.syms);
  rlx_vec_free(&a.sources);
  rlx_vec_free(&a.kernels);
  rlx_vec_free(&a.checks);
  rlx_vec_free(&vars);
  rlx_vec_free(&outs);
  rlx_ptrmap_free(&a.g.names);
  rlx_vec_free(&a.g.used);
  rlx_vec_free(&vtypes);
  return a.err;
}

void rlx_aot_result_free(rlx_aot_result_t* r) {
  free(r->entry_c);
  free(r->header);
  free(r->consts_c);
  r->entry_c = r->header = r->consts_c = NULL;
}
