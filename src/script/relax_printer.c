/* TVMScript printer for Relax functions: writes what TVM's printer writes (see
 * relax_script.h for the exact conventions and rlx's choices for constants).
 *
 * Names are scoped like TVM's IRDocsifier: a Relax var or symbolic var is defined in a frame
 * (function, function body, if-branch) under a unique name (`lv`, `lv_1`, ...), released when
 * the frame closes. Function-level statements (`n = T.int64()`, R.func_attr, `cls = Module`)
 * collect in `head`, in the order TVM emits them, and precede the body. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relax_script.h"

typedef struct {
  const void* obj;
  const char* name;
  int depth;
} rdef_t;

/* A small string-keyed map (open addressing) of counts: live names and suffix hints. The
 * keys are arena strings that outlive the map. */
typedef struct {
  const char** keys;
  int* vals;
  size_t cap, len;
} strmap_t;

static int* sm_slot(strmap_t* m, const char* key, bool create) {
  if (create && (m->len + 1) * 2 > m->cap) {
    strmap_t g = {0};
    g.cap = m->cap ? m->cap * 2 : 64;
    g.keys = calloc(g.cap, sizeof(*g.keys));
    g.vals = calloc(g.cap, sizeof(*g.vals));
    if (!g.keys || !g.vals) {
      free(g.keys);
      free(g.vals);
      return NULL;
    }
    for (size_t i = 0; i < m->cap; i++)
      if (m->keys[i]) {
        size_t h = (size_t)rlx_hash_bytes(m->keys[i], strlen(m->keys[i]), 0) & (g.cap - 1);
        while (g.keys[h]) h = (h + 1) & (g.cap - 1);
        g.keys[h] = m->keys[i];
        g.vals[h] = m->vals[i];
        g.len++;
      }
    free(m->keys);
    free(m->vals);
    *m = g;
  }
  if (!m->cap) return NULL;
  size_t h = (size_t)rlx_hash_bytes(key, strlen(key), 0) & (m->cap - 1);
  while (m->keys[h]) {
    if (strcmp(m->keys[h], key) == 0) return &m->vals[h];
    h = (h + 1) & (m->cap - 1);
  }
  if (!create) return NULL;
  m->keys[h] = key;
  m->vals[h] = 0;
  m->len++;
  return &m->vals[h];
}

static int sm_get(strmap_t* m, const char* key) {
  int* v = sm_slot(m, key, false);
  return v ? *v : 0;
}

static void sm_clear(strmap_t* m) {
  if (m->keys) memset(m->keys, 0, m->cap * sizeof(*m->keys));
  m->len = 0;
}

static void sm_free(strmap_t* m) {
  free(m->keys);
  free(m->vals);
}

typedef struct {
  rlx_ctx_t* ctx; /* scratch: names */
  const rlx_module_t* m;
  RLX_VEC(rdef_t) defs;
  rlx_ptrmap_t names; /* obj → its name while defined (NULL after its frame closed) */
  strmap_t live;      /* name → number of live definitions */
  strmap_t hints;     /* base name → first suffix worth trying (cleared when names are released) */
  int depth;
  rlx_strbuf_t head; /* function-level statements */
  int head_indent;
  bool func_vars_mode;    /* printing the signature: dims with its vars print quoted */
  rlx_ptrmap_t func_vars; /* symbolic vars first defined by the signature */
  rlx_ptrmap_t used;      /* Relax vars used as expressions in the function */
  bool cls_printed;
  bool used_tir;
  rs_meta_t* meta; /* the module's large constants */
} rp_t;

/* ------------------------------------------------------------------ names */
static const char* lookup(rp_t* p, const void* obj) { return rlx_ptrmap_get(&p->names, obj); }

static bool name_used(rp_t* p, const char* name) {
  if (strcmp(name, "cls") == 0 || strcmp(name, "R") == 0 || strcmp(name, "T") == 0 || strcmp(name, "I") == 0 ||
      strcmp(name, "metadata") == 0)
    return true;
  return sm_get(&p->live, name) > 0;
}

/* Defines obj with a unique name derived from hint (TVM: hint, hint_1, hint_2, ...). */
static const char* define_at(rp_t* p, const void* obj, const char* hint, int depth) {
  char base[256], cand[300];
  snprintf(base, sizeof(base), "%s", hint && *hint ? hint : "v");
  for (char* c = base; *c; c++)
    if (*c != '_' && !((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z'))) *c = '_';
  if (base[0] >= '0' && base[0] <= '9') base[0] = '_';
  snprintf(cand, sizeof(cand), "%s", base);
  if (name_used(p, cand)) {
    int i = sm_get(&p->hints, base);
    if (i < 1) i = 1;
    for (;; i++) {
      snprintf(cand, sizeof(cand), "%s_%d", base, i);
      if (!name_used(p, cand)) break;
    }
    int* h = sm_slot(&p->hints, rlx_ctx_strdup(p->ctx, base), true);
    if (h) *h = i + 1;
  }
  const char* name = rlx_ctx_strdup(p->ctx, cand);
  rdef_t d = {obj, name, depth};
  int* live = name ? sm_slot(&p->live, name, true) : NULL;
  if (!live) { /* out of memory (the push and the put below count theirs): the text is thrown away */
    rlx_alloc_failed();
    return name ? name : "v";
  }
  rlx_vec_push(&p->defs, d);
  rlx_ptrmap_put(&p->names, obj, (void*)name);
  (*live)++;
  return name;
}

static void frame_push(rp_t* p) { p->depth++; }
static void frame_pop(rp_t* p) {
  int n = 0;
  bool released = false;
  for (int i = 0; i < p->defs.len; i++) {
    rdef_t* d = &p->defs.data[i];
    if (d->depth < p->depth) {
      p->defs.data[n++] = *d;
      continue;
    }
    rlx_ptrmap_put(&p->names, d->obj, NULL);
    int* live = sm_slot(&p->live, d->name, false);
    if (live && *live > 0) (*live)--;
    released = true;
  }
  p->defs.len = n;
  if (released) sm_clear(&p->hints);
  p->depth--;
}

static void head_line(rp_t* p, const char* text) {
  rlx_strbuf_indent(&p->head, p->head_indent);
  rlx_strbuf_append(&p->head, text);
  rlx_strbuf_append(&p->head, "\n");
}

/* A symbolic var's name; the first use defines it at function level (`n = T.int64()`). */
static const char* sym_name(rp_t* p, const rlx_var_t* v) {
  const char* n = lookup(p, v);
  if (n) return n;
  n = define_at(p, v, v->name, 1);
  char buf[32];
  head_line(p, rlx_ctx_sprintf(p->ctx, "%s = T.%s()", n, rlx_dtype_str(v->hdr.dtype, buf)));
  p->used_tir = true;
  if (p->func_vars_mode) rlx_ptrmap_put(&p->func_vars, v, (void*)v);
  return n;
}

/* ------------------------------------------------------------------ literals */
static void put_string(rlx_strbuf_t* sb, const char* s) {
  rlx_strbuf_append(sb, "\"");
  for (; *s; s++) {
    switch (*s) {
      case '"':
        rlx_strbuf_append(sb, "\\\"");
        break;
      case '\\':
        rlx_strbuf_append(sb, "\\\\");
        break;
      case '\n':
        rlx_strbuf_append(sb, "\\n");
        break;
      case '\t':
        rlx_strbuf_append(sb, "\\t");
        break;
      case '\r':
        rlx_strbuf_append(sb, "\\r");
        break;
      default:
        rlx_strbuf_appendn(sb, s, 1);
    }
  }
  rlx_strbuf_append(sb, "\"");
}

/* TVM's LiteralDoc::Float: precision 17, shortest form (1.0 prints as 1). */
static void put_float(rlx_strbuf_t* sb, double v) {
  if (isnan(v))
    rlx_strbuf_append(sb, "\"nan\"");
  else if (isinf(v))
    rlx_strbuf_append(sb, v < 0 ? "\"-inf\"" : "\"inf\"");
  else
    rlx_strbuf_printf(sb, "%.17g", v);
}

static void put_dtype(rlx_strbuf_t* sb, rlx_dtype_t t) {
  char buf[32];
  rlx_strbuf_printf(sb, "\"%s\"", rlx_dtype_is_void(t) ? "void" : rlx_dtype_str(t, buf));
}

/* ------------------------------------------------------------------ PrimExprs */
static const char* hook_sym_name(void* user, const rlx_var_t* v) { return sym_name(user, v); }

/* As rlx_relax_prim_print writes it, with TVMScript's literals and the function's symbolic
 * var names (defined at first use). */
static void pprim(rp_t* p, const rlx_expr_t* e, rlx_strbuf_t* sb) {
  const rlx_prim_print_hooks_t hooks = {"None", hook_sym_name, put_float, put_string, p, &p->used_tir};
  rlx_relax_prim_print_ex(e, sb, &hooks);
}

static bool uses_func_var(rp_t* p, const rlx_expr_t* e) {
  if (!e) return false;
  if (e->kind == RLX_EXPR_VAR) return rlx_ptrmap_has(&p->func_vars, e);
  rlx_expr_t* kids[8];
  int n = rlx_expr_children(e, kids, 8);
  for (int i = 0; i < n && i < 8; i++)
    if (uses_func_var(p, kids[i])) return true;
  return false;
}

/* A dim of struct info: quoted when printing the signature and it uses a signature var
 * (TVM's PrintShapeVar). */
static void pdim(rp_t* p, const rlx_expr_t* e, rlx_strbuf_t* sb) {
  rlx_strbuf_t t = {0};
  pprim(p, e, &t);
  if (p->func_vars_mode && uses_func_var(p, e))
    put_string(sb, rlx_strbuf_cstr(&t));
  else
    rlx_strbuf_append(sb, rlx_strbuf_cstr(&t));
  rlx_strbuf_free(&t);
}

/* ------------------------------------------------------------------ struct info */
static void pdim_cb(void* p, const rlx_expr_t* e, rlx_strbuf_t* sb) { pdim(p, e, sb); }

static void psinfo(rp_t* p, const rlx_sinfo_t* s, rlx_strbuf_t* sb) {
  rlx_sinfo_print_ex(s, sb, pdim_cb, p, "R.Object");
}

/* ------------------------------------------------------------------ attrs */
/* A list or dict attribute value (RLX_TIR_ATTR_LIST / _DICT, see the parser's attr_item) as
 * a Python literal, dict keys sorted as TVM prints string-keyed maps; True / False and
 * strings as Python writes them, other leaves as PrimExprs. */
static int cmp_key_index(const void* a, const void* b) {
  const rlx_expr_t* const* x = a;
  const rlx_expr_t* const* y = b;
  return strcmp(((const rlx_string_imm_t*)x[0])->value, ((const rlx_string_imm_t*)y[0])->value);
}

static void pattr_expr(rp_t* p, const rlx_expr_t* e, rlx_strbuf_t* sb) {
  const rlx_call_t* c = e && e->kind == RLX_EXPR_CALL ? (const rlx_call_t*)e : NULL;
  bool list = c && strcmp(c->op, RLX_TIR_ATTR_LIST) == 0, dict = c && strcmp(c->op, RLX_TIR_ATTR_DICT) == 0;
  if (list || dict) {
    int n = dict ? c->n_args / 2 : c->n_args;
    /* dict: (key, value) pairs sorted by key */
    const rlx_expr_t** kv = calloc((size_t)(2 * (n ? n : 1)), sizeof(*kv));
    if (!kv) {
      rlx_alloc_failed();
      return;
    }
    for (int i = 0; i < n; i++) {
      kv[2 * i] = dict ? c->args[2 * i] : NULL;
      kv[2 * i + 1] = dict ? c->args[2 * i + 1] : c->args[i];
    }
    if (dict) qsort(kv, (size_t)n, 2 * sizeof(*kv), cmp_key_index);
    rlx_strbuf_append(sb, dict ? "{" : "[");
    for (int i = 0; i < n; i++) {
      if (i) rlx_strbuf_append(sb, ", ");
      if (dict) {
        put_string(sb, ((const rlx_string_imm_t*)kv[2 * i])->value);
        rlx_strbuf_append(sb, ": ");
      }
      pattr_expr(p, kv[2 * i + 1], sb);
    }
    rlx_strbuf_append(sb, dict ? "}" : "]");
    free(kv);
    return;
  }
  if (e && e->kind == RLX_EXPR_INT_IMM && rlx_dtype_is_bool(e->dtype)) {
    rlx_strbuf_append(sb, ((const rlx_int_imm_t*)e)->value ? "True" : "False");
    return;
  }
  if (e && e->kind == RLX_EXPR_INT_IMM && rlx_dtype_eq(e->dtype, rlx_dt_int32())) { /* a Python int, as TVM */
    rlx_strbuf_printf(sb, "%lld", (long long)((const rlx_int_imm_t*)e)->value);
    return;
  }
  if (e && e->kind == RLX_EXPR_STRING_IMM) {
    put_string(sb, ((const rlx_string_imm_t*)e)->value);
    return;
  }
  pprim(p, e, sb);
}

static void pattr(rp_t* p, const rlx_attr_t* a, rlx_strbuf_t* sb) {
  switch (a->kind) {
    case RLX_ATTR_BOOL:
      rlx_strbuf_append(sb, a->u.b ? "True" : "False");
      return;
    case RLX_ATTR_INT:
      rlx_strbuf_printf(sb, "%lld", (long long)a->u.i);
      return;
    case RLX_ATTR_FLOAT:
      put_float(sb, a->u.f);
      return;
    case RLX_ATTR_STR:
      put_string(sb, a->u.s ? a->u.s : "");
      return;
    case RLX_ATTR_DTYPE:
      put_dtype(sb, a->u.dtype);
      return;
    case RLX_ATTR_INTS:
      rlx_strbuf_append(sb, "[");
      for (int i = 0; i < a->u.ints.n; i++) rlx_strbuf_printf(sb, "%s%lld", i ? ", " : "", (long long)a->u.ints.v[i]);
      rlx_strbuf_append(sb, "]");
      return;
    case RLX_ATTR_EXPR:
      pattr_expr(p, a->u.expr, sb);
      return;
  }
}

/* ------------------------------------------------------------------ op attribute defaults */
static int field_index(const rs_op_fields_t* f, const char* key) {
  for (int i = 0; i < RS_MAX_OP_FIELDS && f->fields[i].key; i++)
    if (strcmp(f->fields[i].key, key) == 0) return i;
  return -1;
}

/* Appends to out the text field i of f takes when attrs lacks it ("@key": attribute key's
 * value, given or default); false when the field has no default. */
static bool field_default(rp_t* p, const rs_op_fields_t* f, int i, const rlx_attrs_t* attrs, rlx_strbuf_t* out) {
  const char* d = f->fields[i].dflt;
  for (int hops = 0; d && d[0] == '@' && hops < RS_MAX_OP_FIELDS; hops++) {
    const rlx_attr_t* a = rlx_attrs_get(attrs, d + 1);
    if (a) {
      pattr(p, a, out);
      return true;
    }
    int j = field_index(f, d + 1);
    d = j >= 0 ? f->fields[j].dflt : NULL;
  }
  if (!d || d[0] == '@') return false;
  rlx_strbuf_append(out, d);
  return true;
}

rlx_attrs_t rs_attrs_drop_defaults(rlx_ctx_t* ctx, const char* op, rlx_attrs_t attrs) {
  attrs = rs_attrs_normalize(ctx, op, attrs);
  const rs_op_fields_t* f = rs_op_fields(op);
  if (!f) return attrs;
  rp_t p = {0};
  rlx_attrs_t out = {0};
  for (int i = 0; i < attrs.n; i++) {
    const rlx_attr_t* a = &attrs.items[i];
    int k = field_index(f, a->key);
    bool drop = false;
    if (k >= 0 && a->kind != RLX_ATTR_EXPR) {
      rlx_strbuf_t given = {0}, dflt = {0};
      pattr(&p, a, &given);
      drop = field_default(&p, f, k, &attrs, &dflt) && strcmp(rlx_strbuf_cstr(&given), rlx_strbuf_cstr(&dflt)) == 0;
      rlx_strbuf_free(&given);
      rlx_strbuf_free(&dflt);
    }
    if (!drop) out = rlx_attrs_set(ctx, out, a->key, *a);
  }
  return out;
}

/* ------------------------------------------------------------------ constants */
static void pelem(const rlx_relax_constant_t* c, size_t i, rlx_strbuf_t* sb) {
  const unsigned char* d = c->data;
  rlx_dtype_t t = c->dtype;
  if (rlx_dtype_is_bool(t)) {
    rlx_strbuf_append(sb, d[i] ? "True" : "False");
  } else if (t.code == RLX_DT_FLOAT && t.bits == 32) {
    float v;
    memcpy(&v, d + i * 4, 4);
    put_float(sb, v);
  } else if (t.code == RLX_DT_FLOAT && t.bits == 64) {
    double v;
    memcpy(&v, d + i * 8, 8);
    put_float(sb, v);
  } else if (t.code == RLX_DT_INT) {
    int64_t v = 0;
    if (t.bits == 8)
      v = (int8_t)d[i];
    else if (t.bits == 16) {
      int16_t x;
      memcpy(&x, d + i * 2, 2);
      v = x;
    } else if (t.bits == 32) {
      int32_t x;
      memcpy(&x, d + i * 4, 4);
      v = x;
    } else {
      memcpy(&v, d + i * 8, 8);
    }
    rlx_strbuf_printf(sb, "%lld", (long long)v);
  } else {
    uint64_t v = 0;
    if (t.bits == 8)
      v = d[i];
    else if (t.bits == 16) {
      uint16_t x;
      memcpy(&x, d + i * 2, 2);
      v = x;
    } else if (t.bits == 32) {
      uint32_t x;
      memcpy(&x, d + i * 4, 4);
      v = x;
    } else {
      memcpy(&v, d + i * 8, 8);
    }
    rlx_strbuf_printf(sb, "%llu", (unsigned long long)v);
  }
}

static bool printable_dtype(rlx_dtype_t t) {
  if (t.lanes != 1) return false;
  if (rlx_dtype_is_bool(t)) return true;
  if (t.code == RLX_DT_FLOAT) return t.bits == 32 || t.bits == 64;
  if (t.code == RLX_DT_INT || t.code == RLX_DT_UINT) return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
  return false;
}

static void pnested(const rlx_relax_constant_t* c, int dim, size_t* idx, rlx_strbuf_t* sb) {
  if (dim == c->ndim) {
    pelem(c, (*idx)++, sb);
    return;
  }
  rlx_strbuf_append(sb, "[");
  for (int64_t i = 0; i < c->shape[dim]; i++) {
    if (i) rlx_strbuf_append(sb, ", ");
    pnested(c, dim + 1, idx, sb);
  }
  rlx_strbuf_append(sb, "]");
}

static void pconst(rp_t* p, const rlx_relax_constant_t* c, rlx_strbuf_t* sb) {
  size_t numel = 1;
  for (int i = 0; i < c->ndim; i++) numel *= (size_t)(c->shape[i] > 0 ? c->shape[i] : 0);
  if (!printable_dtype(c->dtype) || c->ndim != 0 || (size_t)rlx_dtype_bytes(c->dtype) * numel > c->nbytes) {
    rlx_strbuf_printf(sb, "metadata[\"relax.expr.Constant\"][%d]", rs_meta_index(p->meta, c));
    return;
  }
  rlx_strbuf_append(sb, "R.const(");
  size_t idx = 0;
  pnested(c, 0, &idx, sb);
  rlx_strbuf_append(sb, ", ");
  put_dtype(sb, c->dtype);
  rlx_strbuf_append(sb, ")");
}

/* ------------------------------------------------------------------ expressions */
static void pexpr(rp_t* p, const rlx_relax_expr_t* e, rlx_strbuf_t* sb);

static const char* gv_name(rp_t* p, const char* name) {
  if (!p->cls_printed) {
    head_line(p, "cls = Module");
    p->cls_printed = true;
  }
  return rlx_ctx_sprintf(p->ctx, "cls.%s", name);
}

static bool is_void(const rlx_sinfo_t* s) {
  return s && s->kind == RLX_SINFO_TUPLE && ((const rlx_sinfo_tuple_t*)s)->n_fields == 0;
}

/* TVM's PrintCallee: an ExternFunc argument prints as its name. */
static void pcallee(rp_t* p, const rlx_relax_expr_t* e, rlx_strbuf_t* sb) {
  if (e && e->kind == RLX_RELAX_EXTERN_FUNC)
    put_string(sb, ((const rlx_relax_extern_func_t*)e)->global_symbol);
  else
    pexpr(p, e, sb);
}

static void psinfo_args(rp_t* p, const rlx_relax_call_t* c, rlx_strbuf_t* sb) {
  rlx_strbuf_append(sb, "sinfo_args=(");
  for (int i = 0; i < c->n_sinfo_args; i++) {
    if (i) rlx_strbuf_append(sb, ", ");
    psinfo(p, c->sinfo_args[i], sb);
  }
  rlx_strbuf_append(sb, c->n_sinfo_args == 1 ? ",)" : ")");
}

static void pcall(rp_t* p, const rlx_relax_call_t* c, rlx_strbuf_t* sb) {
  const rlx_relax_expr_t* op = c->op;
  bool tir = rlx_relax_is_op(op, RLX_OP_CALL_TIR), dps = rlx_relax_is_op(op, RLX_OP_CALL_DPS_PACKED);
  if ((tir || dps) && c->n_args >= 2 && c->n_sinfo_args == 1) {
    rlx_strbuf_append(sb, tir ? "R.call_tir(" : "R.call_dps_packed(");
    pcallee(p, c->args[0], sb);
    rlx_strbuf_append(sb, ", ");
    pexpr(p, c->args[1], sb);
    rlx_strbuf_append(sb, ", out_sinfo=");
    const rlx_sinfo_t* o = c->sinfo_args[0];
    if (o && o->kind == RLX_SINFO_TUPLE) {
      const rlx_sinfo_tuple_t* t = (const void*)o;
      rlx_strbuf_append(sb, "[");
      for (int i = 0; i < t->n_fields; i++) {
        if (i) rlx_strbuf_append(sb, ", ");
        psinfo(p, t->fields[i], sb);
      }
      rlx_strbuf_append(sb, "]");
    } else {
      psinfo(p, o, sb);
    }
    if (tir && c->n_args == 3) {
      rlx_strbuf_append(sb, ", tir_vars=");
      pexpr(p, c->args[2], sb);
    }
    rlx_strbuf_append(sb, ")");
    return;
  }
  bool first = true;
  int arg0 = 0;
  if (op && op->kind == RLX_RELAX_EXTERN_FUNC) {
    const char* sym = ((const rlx_relax_extern_func_t*)op)->global_symbol;
    if (c->n_sinfo_args == 0 && is_void(c->hdr.sinfo)) {
      rlx_strbuf_append(sb, "R.ExternFunc(");
      put_string(sb, sym);
      rlx_strbuf_append(sb, ")(");
    } else {
      rlx_strbuf_append(sb, "R.call_packed(");
      put_string(sb, sym);
      first = false;
    }
  } else if (op && op->kind == RLX_RELAX_OP) {
    const char* name = ((const rlx_relax_op_t*)op)->name;
    if (strncmp(name, "relax.", 6) == 0)
      rlx_strbuf_printf(sb, "R.%s(", name + 6);
    else
      rlx_strbuf_printf(sb, "%s(", name);
  } else {
    pexpr(p, op, sb);
    rlx_strbuf_append(sb, "(");
  }
  for (int i = arg0; i < c->n_args; i++) {
    if (!first) rlx_strbuf_append(sb, ", ");
    first = false;
    if (i == 0)
      pcallee(p, c->args[i], sb);
    else
      pexpr(p, c->args[i], sb);
  }
  /* the fields TVM prints, in its order, absent ones at their defaults (relax_attr_defaults.c);
   * then any other attribute the call carries */
  const rs_op_fields_t* fields = op && op->kind == RLX_RELAX_OP ? rs_op_fields(((const rlx_relax_op_t*)op)->name) : NULL;
  for (int i = 0; fields && i < RS_MAX_OP_FIELDS && fields->fields[i].key; i++) {
    const rlx_attr_t* a = rlx_attrs_get(&c->attrs, fields->fields[i].key);
    rlx_strbuf_t d = {0};
    if (!a && !field_default(p, fields, i, &c->attrs, &d)) continue;
    if (!first) rlx_strbuf_append(sb, ", ");
    first = false;
    rlx_strbuf_printf(sb, "%s=", fields->fields[i].key);
    if (a)
      pattr(p, a, sb);
    else
      rlx_strbuf_append(sb, rlx_strbuf_cstr(&d));
    rlx_strbuf_free(&d);
  }
  for (int i = 0; i < c->attrs.n; i++) {
    if (fields && field_index(fields, c->attrs.items[i].key) >= 0) continue;
    if (!first) rlx_strbuf_append(sb, ", ");
    first = false;
    rlx_strbuf_printf(sb, "%s=", c->attrs.items[i].key);
    pattr(p, &c->attrs.items[i], sb);
  }
  if (c->n_sinfo_args > 0) {
    if (!first) rlx_strbuf_append(sb, ", ");
    psinfo_args(p, c, sb);
  }
  rlx_strbuf_append(sb, ")");
}

static void pexpr(rp_t* p, const rlx_relax_expr_t* e, rlx_strbuf_t* sb) {
  char buf[32];
  if (!e) {
    rlx_strbuf_append(sb, "None");
    return;
  }
  switch (e->kind) {
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR: {
      const char* n = lookup(p, e);
      rlx_strbuf_append(sb, n ? n : ((const rlx_relax_var_t*)e)->name);
      return;
    }
    case RLX_RELAX_CONSTANT:
      pconst(p, (const rlx_relax_constant_t*)e, sb);
      return;
    case RLX_RELAX_TUPLE: {
      const rlx_relax_tuple_t* t = (const void*)e;
      if (t->n_fields == 0) {
        rlx_strbuf_append(sb, "R.tuple()");
        return;
      }
      rlx_strbuf_append(sb, "(");
      for (int i = 0; i < t->n_fields; i++) {
        if (i) rlx_strbuf_append(sb, ", ");
        pexpr(p, t->fields[i], sb);
      }
      rlx_strbuf_append(sb, t->n_fields == 1 ? ",)" : ")");
      return;
    }
    case RLX_RELAX_TUPLE_GET_ITEM: {
      const rlx_relax_tuple_get_item_t* g = (const void*)e;
      pexpr(p, g->tuple, sb);
      rlx_strbuf_printf(sb, "[%d]", g->index);
      return;
    }
    case RLX_RELAX_SHAPE_EXPR: {
      const rlx_relax_shape_expr_t* s = (const void*)e;
      rlx_strbuf_append(sb, "R.shape([");
      for (int i = 0; i < s->ndim; i++) {
        if (i) rlx_strbuf_append(sb, ", ");
        pprim(p, s->values[i], sb);
      }
      rlx_strbuf_append(sb, "])");
      return;
    }
    case RLX_RELAX_PRIM_VALUE:
      rlx_strbuf_append(sb, "R.prim_value(");
      pprim(p, ((const rlx_relax_prim_value_t*)e)->value, sb);
      rlx_strbuf_append(sb, ")");
      return;
    case RLX_RELAX_STRING_IMM:
      rlx_strbuf_append(sb, "R.str(");
      put_string(sb, ((const rlx_relax_string_imm_t*)e)->value);
      rlx_strbuf_append(sb, ")");
      return;
    case RLX_RELAX_DATA_TYPE_IMM:
      rlx_strbuf_append(sb, "R.dtype(");
      put_dtype(sb, ((const rlx_relax_dtype_imm_t*)e)->value);
      rlx_strbuf_append(sb, ")");
      return;
    case RLX_RELAX_OP: {
      const char* name = ((const rlx_relax_op_t*)e)->name;
      rlx_strbuf_printf(sb, "R.%s", strncmp(name, "relax.", 6) == 0 ? name + 6 : name);
      return;
    }
    case RLX_RELAX_CALL:
      pcall(p, (const rlx_relax_call_t*)e, sb);
      return;
    case RLX_RELAX_GLOBAL_VAR:
      rlx_strbuf_append(sb, gv_name(p, ((const rlx_relax_global_var_t*)e)->name));
      return;
    case RLX_RELAX_EXTERN_FUNC:
      rlx_strbuf_append(sb, "R.ExternFunc(");
      put_string(sb, ((const rlx_relax_extern_func_t*)e)->global_symbol);
      rlx_strbuf_append(sb, ")");
      return;
    case RLX_RELAX_IF:
    case RLX_RELAX_SEQ:
    case RLX_RELAX_FUNCTION:
    case RLX_RELAX_KIND_COUNT:
      /* only valid as binding values / bodies; printed there */
      rlx_strbuf_printf(sb, "<%s>", rlx_relax_kind_name(e->kind));
      (void)buf;
      return;
  }
}

/* ------------------------------------------------------------------ statements */
static void stmt(rlx_strbuf_t* out, int indent, const char* text) {
  rlx_strbuf_indent(out, indent);
  rlx_strbuf_append(out, text);
  rlx_strbuf_append(out, "\n");
}

static void pseq(rp_t* p, const rlx_relax_seq_t* s, int indent, rlx_strbuf_t* out, const char* assign);
static void pfunction(rp_t* p, const rlx_relax_func_t* f, const char* name, int indent, rlx_strbuf_t* out, bool top);

static void pbinding(rp_t* p, const rlx_relax_binding_t* b, int indent, rlx_strbuf_t* out) {
  const rlx_relax_var_t* v = b->var;
  rlx_strbuf_t line = {0}, rhs = {0}, ann = {0};
  if (b->kind == RLX_BINDING_MATCH_CAST) {
    rlx_strbuf_append(&rhs, "R.match_cast(");
    pexpr(p, b->value, &rhs);
    rlx_strbuf_append(&rhs, ", ");
    psinfo(p, b->sinfo, &rhs);
    rlx_strbuf_append(&rhs, ")");
    psinfo(p, v->hdr.sinfo, &ann);
    const char* n = define_at(p, v, v->name, p->depth);
    rlx_strbuf_printf(&line, "%s: %s = %s", n, rlx_strbuf_cstr(&ann), rlx_strbuf_cstr(&rhs));
    stmt(out, indent, rlx_strbuf_cstr(&line));
  } else if (b->value && b->value->kind == RLX_RELAX_FUNCTION) {
    const char* n = define_at(p, v, v->name, p->depth);
    pfunction(p, (const rlx_relax_func_t*)b->value, n, indent, out, false);
  } else if (b->value && b->value->kind == RLX_RELAX_IF) {
    const rlx_relax_if_t* i = (const void*)b->value;
    psinfo(p, v->hdr.sinfo, &ann);
    const char* n = define_at(p, v, v->name, p->depth);
    rlx_strbuf_t cond = {0};
    pexpr(p, i->cond, &cond);
    rlx_strbuf_printf(&line, "if %s:", rlx_strbuf_cstr(&cond));
    stmt(out, indent, rlx_strbuf_cstr(&line));
    rlx_strbuf_free(&cond);
    const char* assign = rlx_ctx_sprintf(p->ctx, "%s: %s = ", n, rlx_strbuf_cstr(&ann));
    const rlx_relax_expr_t* br[2] = {i->then_branch, i->else_branch};
    for (int k = 0; k < 2; k++) {
      if (k) stmt(out, indent, "else:");
      if (br[k] && br[k]->kind == RLX_RELAX_SEQ) {
        pseq(p, (const rlx_relax_seq_t*)br[k], indent + 4, out, assign);
      } else {
        rlx_strbuf_t t = {0};
        rlx_strbuf_append(&t, assign);
        pexpr(p, br[k], &t);
        stmt(out, indent + 4, rlx_strbuf_cstr(&t));
        rlx_strbuf_free(&t);
      }
    }
  } else if (b->value && b->value->kind == RLX_RELAX_CALL && is_void(b->value->sinfo) && is_void(v->hdr.sinfo) &&
             !rlx_ptrmap_has(&p->used, v)) {
    /* TVM's sugar for void calls; rlx keeps the binding when its var is used later */
    pexpr(p, b->value, &rhs);
    stmt(out, indent, rlx_strbuf_cstr(&rhs));
  } else {
    pexpr(p, b->value, &rhs);
    bool hide = b->value && b->value->kind == RLX_RELAX_CALL &&
                (rlx_relax_is_op(((const rlx_relax_call_t*)b->value)->op, RLX_OP_CALL_TIR) ||
                 rlx_relax_is_op(((const rlx_relax_call_t*)b->value)->op, RLX_OP_CALL_DPS_PACKED));
    if (!hide) psinfo(p, v->hdr.sinfo, &ann);
    const char* n = define_at(p, v, v->name, p->depth);
    if (hide)
      rlx_strbuf_printf(&line, "%s = %s", n, rlx_strbuf_cstr(&rhs));
    else
      rlx_strbuf_printf(&line, "%s: %s = %s", n, rlx_strbuf_cstr(&ann), rlx_strbuf_cstr(&rhs));
    stmt(out, indent, rlx_strbuf_cstr(&line));
  }
  rlx_strbuf_free(&line);
  rlx_strbuf_free(&rhs);
  rlx_strbuf_free(&ann);
}

/* A SeqExpr: blocks, then `return body` (assign NULL) or `<assign>body` (if-branches). */
static void pseq(rp_t* p, const rlx_relax_seq_t* s, int indent, rlx_strbuf_t* out, const char* assign) {
  frame_push(p);
  for (int b = 0; b < s->n_blocks; b++) {
    const rlx_relax_block_t* blk = s->blocks[b];
    if (!blk->is_dataflow) {
      for (int k = 0; k < blk->n_bindings; k++) pbinding(p, blk->bindings[k], indent, out);
      continue;
    }
    stmt(out, indent, "with R.dataflow():");
    rlx_strbuf_t outs = {0};
    int n_out = 0;
    for (int k = 0; k < blk->n_bindings; k++) {
      const rlx_relax_binding_t* bd = blk->bindings[k];
      pbinding(p, bd, indent + 4, out);
      if (bd->var && bd->var->hdr.kind == RLX_RELAX_VAR) {
        const char* n = lookup(p, bd->var);
        rlx_strbuf_printf(&outs, "%s%s", n_out++ ? ", " : "", n ? n : bd->var->name);
      }
    }
    rlx_strbuf_t t = {0};
    rlx_strbuf_printf(&t, "R.output(%s)", rlx_strbuf_cstr(&outs));
    stmt(out, indent + 4, rlx_strbuf_cstr(&t));
    rlx_strbuf_free(&t);
    rlx_strbuf_free(&outs);
  }
  rlx_strbuf_t t = {0};
  rlx_strbuf_append(&t, assign ? assign : "return ");
  pexpr(p, s->body, &t);
  stmt(out, indent, rlx_strbuf_cstr(&t));
  rlx_strbuf_free(&t);
  frame_pop(p);
}

/* ------------------------------------------------------------------ functions */
static int cmp_attr(const void* a, const void* b) {
  return strcmp((*(const rlx_attr_t* const*)a)->key, (*(const rlx_attr_t* const*)b)->key);
}

static void note_use(const rlx_relax_expr_t* e, void* user) {
  if (rlx_relax_is_var(e)) rlx_ptrmap_put(user, e, (void*)e);
}

/* A function: decorator, def line, its own statements, body. top: a module-level function
 * (its signature's symbolic vars print quoted; global_symbol equal to the name is hidden and
 * its absence prints private=True; function-level statements are p->head). A local function
 * (a binding value) keeps its attrs and defines its symbolic vars in the enclosing top-level
 * function, as TVM's printer does. */
static void pfunction(rp_t* p, const rlx_relax_func_t* f, const char* name, int indent, rlx_strbuf_t* out, bool top) {
  frame_push(p);
  /* Step 1: return struct info, then params. */
  p->func_vars_mode = top;
  rlx_strbuf_t ret = {0}, sig = {0}, own = {0};
  const rlx_sinfo_t* rs = f->ret_sinfo;
  if (!rs && f->hdr.sinfo && f->hdr.sinfo->kind == RLX_SINFO_FUNC) rs = ((const rlx_sinfo_func_t*)f->hdr.sinfo)->ret;
  if (rs) psinfo(p, rs, &ret);
  for (int i = 0; i < f->n_params; i++) {
    const rlx_relax_var_t* v = f->params[i];
    const char* n = define_at(p, v, v->name, p->depth);
    rlx_strbuf_printf(&sig, "%s%s: ", i ? ", " : "", n);
    psinfo(p, v->hdr.sinfo, &sig);
  }
  p->func_vars_mode = false;
  /* Step 2: attributes. */
  bool has_symbol = false;
  const rlx_attr_t** keep = calloc((size_t)f->attrs.n + 1, sizeof(*keep));
  if (!keep) rlx_alloc_failed();
  int n_keep = 0;
  for (int i = 0; keep && i < f->attrs.n; i++) {
    const rlx_attr_t* a = &f->attrs.items[i];
    if (strcmp(a->key, "global_symbol") == 0) {
      has_symbol = true;
      if (top && a->kind == RLX_ATTR_STR && a->u.s && strcmp(a->u.s, name) == 0) continue;
    }
    keep[n_keep++] = a;
  }
  if (n_keep) {
    qsort(keep, (size_t)n_keep, sizeof(*keep), cmp_attr);
    rlx_strbuf_t t = {0};
    rlx_strbuf_append(&t, "R.func_attr({");
    for (int i = 0; i < n_keep; i++) {
      if (i) rlx_strbuf_append(&t, ", ");
      put_string(&t, keep[i]->key);
      rlx_strbuf_append(&t, ": ");
      pattr(p, keep[i], &t);
    }
    rlx_strbuf_append(&t, "})");
    if (top)
      head_line(p, rlx_strbuf_cstr(&t));
    else
      stmt(&own, indent + 4, rlx_strbuf_cstr(&t));
    rlx_strbuf_free(&t);
  }
  free(keep);
  /* Step 3: body. */
  rlx_strbuf_t body = {0};
  if (f->body && f->body->kind == RLX_RELAX_SEQ) {
    pseq(p, (const rlx_relax_seq_t*)f->body, indent + 4, &body, NULL);
  } else {
    rlx_strbuf_t t = {0};
    rlx_strbuf_append(&t, "return ");
    pexpr(p, f->body, &t);
    stmt(&body, indent + 4, rlx_strbuf_cstr(&t));
    rlx_strbuf_free(&t);
  }
  /* Decorator (TVM: pure=False first, then private=True). */
  bool priv = top && !has_symbol;
  rlx_strbuf_indent(out, indent);
  if (!f->is_pure && priv)
    rlx_strbuf_append(out, "@R.function(pure=False, private=True)\n");
  else if (!f->is_pure)
    rlx_strbuf_append(out, "@R.function(pure=False)\n");
  else if (priv)
    rlx_strbuf_append(out, "@R.function(private=True)\n");
  else
    rlx_strbuf_append(out, "@R.function\n");
  rlx_strbuf_indent(out, indent);
  rlx_strbuf_printf(out, "def %s(%s)", name, rlx_strbuf_cstr(&sig));
  if (rs) rlx_strbuf_printf(out, " -> %s", rlx_strbuf_cstr(&ret));
  rlx_strbuf_append(out, ":\n");
  rlx_strbuf_append(out, top ? rlx_strbuf_cstr(&p->head) : rlx_strbuf_cstr(&own));
  rlx_strbuf_append(out, rlx_strbuf_cstr(&body));
  rlx_strbuf_free(&ret);
  rlx_strbuf_free(&sig);
  rlx_strbuf_free(&own);
  rlx_strbuf_free(&body);
  frame_pop(p);
}

void rs_print_relax_func(const rlx_module_t* m, const rlx_relax_func_t* f, const char* name, int indent,
                         rlx_strbuf_t* out, bool* used_tir, rs_meta_t* meta) {
  rp_t p;
  memset(&p, 0, sizeof(p));
  p.meta = meta;
  p.ctx = rlx_ctx_new();
  p.m = m;
  p.head_indent = indent + 4;
  if (p.ctx) {
    if (f->body) rlx_relax_expr_visit(f->body, note_use, &p.used);
    pfunction(&p, f, name, indent, out, true);
  }
  /* a text printed after an allocation failed is never returned (the callers also check
   * rlx_alloc_failures) */
  if (!p.ctx || rlx_ctx_failed(p.ctx) || p.head.failed) out->failed = true;
  if (used_tir && p.used_tir) *used_tir = true;
  rlx_strbuf_free(&p.head);
  rlx_vec_free(&p.defs);
  rlx_ptrmap_free(&p.func_vars);
  rlx_ptrmap_free(&p.used);
  rlx_ptrmap_free(&p.names);
  sm_free(&p.live);
  sm_free(&p.hints);
  rlx_ctx_free(p.ctx);
}

char* rlx_script_print_relax_func(const rlx_module_t* m, const rlx_relax_func_t* f, const char* name) {
  uint64_t mark = rlx_alloc_failures(); /* a text printed after a failed allocation is not returned */
  rlx_strbuf_t body = {0}, out = {0};
  bool used_tir = false;
  rs_meta_t meta = {{0}};
  rs_print_relax_func(m, f, name && *name ? name : "main", 0, &body, &used_tir, &meta);
  if (used_tir) rlx_strbuf_append(&out, "# from tvm.script import tir as T\n");
  rlx_strbuf_append(&out, "# from tvm.script import relax as R\n\n");
  rlx_strbuf_append(&out, rlx_strbuf_cstr(&body));
  if (body.failed || rlx_alloc_failures() != mark) out.failed = true;
  if (meta.consts.len) rlx_strbuf_append(&out, "\n# Metadata omitted. Use show_meta=True in script() method to show it.\n");
  rlx_vec_free(&meta.consts);
  rlx_strbuf_free(&body);
  return rlx_strbuf_take(&out);
}
