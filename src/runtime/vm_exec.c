/* The VM executable: building it in memory, writing it as bytes, and reading bytes back
 * with full verification (format in vm_exec.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_internal.h"
#include "vm_exec.h"

/* ====================================================================== building */

rlx_vm_exec_t* rlx_vm_exec_create(void) { return calloc(1, sizeof(rlx_vm_exec_t)); }

static void free_func(rlx_vm_func_t* f) {
  free(f->name);
  free(f->symbol);
  for (int i = 0; i < f->n_params; i++) {
    if (f->param_names) free(f->param_names[i]);
    if (f->param_shapes) free(f->param_shapes[i]);
  }
  free(f->param_names);
  free(f->param_shapes);
  free(f->param_dtypes);
  free(f->param_ndims);
}

void rlx_vm_exec_free(rlx_vm_exec_t* e) {
  if (!e) return;
  for (int i = 0; i < e->consts.len; i++) {
    free(e->consts.data[i].s);
    free(e->consts.data[i].shape);
    free(e->consts.data[i].data);
  }
  for (int i = 0; i < e->funcs.len; i++) free_func(&e->funcs.data[i]);
  rlx_vec_free(&e->consts);
  rlx_vec_free(&e->funcs);
  rlx_vec_free(&e->instrs);
  rlx_vec_free(&e->args);
  free(e);
}

static char* dupstr(const char* s) {
  size_t n = strlen(s ? s : "");
  char* p = malloc(n + 1);
  if (p) memcpy(p, s ? s : "", n + 1);
  return p;
}

/* Every builder call that cannot allocate returns -1, adds nothing and marks the
 * executable (serializing it then fails with OUT_OF_MEMORY). */
static int oom(rlx_vm_exec_t* e) {
  e->oom = true;
  return -1;
}

static int push_const(rlx_vm_exec_t* e, rlx_vm_const_t c) {
  if (!rlx_vec_push(&e->consts, c)) {
    free(c.s);
    free(c.shape);
    free(c.data);
    return oom(e);
  }
  return e->consts.len - 1;
}

int rlx_vm_exec_add_tensor(rlx_vm_exec_t* e, DLDataType dtype, int ndim, const int64_t* shape,
                           const void* data, size_t nbytes) {
  rlx_vm_const_t c = {0};
  c.kind = RLX_VM_CONST_TENSOR;
  c.dtype = dtype;
  c.ndim = ndim;
  c.shape = malloc(sizeof(int64_t) * (size_t)(ndim > 0 ? ndim : 1));
  c.data = malloc(nbytes ? nbytes : 1);
  if (!c.shape || !c.data) {
    free(c.shape);
    free(c.data);
    return oom(e);
  }
  if (ndim > 0) memcpy(c.shape, shape, sizeof(int64_t) * (size_t)ndim);
  if (nbytes) memcpy(c.data, data, nbytes);
  c.nbytes = nbytes;
  return push_const(e, c);
}

int rlx_vm_exec_add_int(rlx_vm_exec_t* e, int64_t v) {
  rlx_vm_const_t c = {0};
  c.kind = RLX_VM_CONST_INT;
  c.i = v;
  return push_const(e, c);
}

int rlx_vm_exec_add_float(rlx_vm_exec_t* e, double v) {
  rlx_vm_const_t c = {0};
  c.kind = RLX_VM_CONST_FLOAT;
  c.f = v;
  return push_const(e, c);
}

int rlx_vm_exec_add_str(rlx_vm_exec_t* e, const char* s) {
  for (int i = 0; i < e->consts.len; i++)
    if (e->consts.data[i].kind == RLX_VM_CONST_STR && strcmp(e->consts.data[i].s, s) == 0) return i;
  rlx_vm_const_t c = {0};
  c.kind = RLX_VM_CONST_STR;
  c.s = dupstr(s);
  if (!c.s) return oom(e);
  return push_const(e, c);
}

int rlx_vm_exec_add_dtype(rlx_vm_exec_t* e, DLDataType dtype) {
  for (int i = 0; i < e->consts.len; i++)
    if (e->consts.data[i].kind == RLX_VM_CONST_DTYPE && rlx_dldtype_equal(e->consts.data[i].dtype, dtype)) return i;
  rlx_vm_const_t c = {0};
  c.kind = RLX_VM_CONST_DTYPE;
  c.dtype = dtype;
  return push_const(e, c);
}

int rlx_vm_exec_add_packed(rlx_vm_exec_t* e, const char* name, const char* symbol) {
  if (!symbol) symbol = name;
  for (int i = 0; i < e->funcs.len; i++)
    if (e->funcs.data[i].kind == RLX_VM_FUNC_PACKED && strcmp(e->funcs.data[i].symbol, symbol) == 0) return i;
  rlx_vm_func_t f = {0};
  f.kind = RLX_VM_FUNC_PACKED;
  f.name = dupstr(name);
  f.symbol = dupstr(symbol);
  if (!f.name || !f.symbol || !rlx_vec_push(&e->funcs, f)) {
    free_func(&f);
    return oom(e);
  }
  return e->funcs.len - 1;
}

int rlx_vm_exec_begin_func(rlx_vm_exec_t* e, const char* name, int n_params, const char* const* param_names) {
  rlx_vm_func_t f = {0};
  f.kind = RLX_VM_FUNC_VM;
  f.name = dupstr(name);
  f.n_params = n_params;
  size_t np = (size_t)(n_params > 0 ? n_params : 1);
  f.param_names = calloc(np, sizeof(char*));
  f.param_shapes = calloc(np, sizeof(char*));
  f.param_dtypes = calloc(np, sizeof(DLDataType));
  f.param_ndims = calloc(np, sizeof(int32_t));
  bool ok = f.name && f.param_names && f.param_shapes && f.param_dtypes && f.param_ndims;
  for (int i = 0; i < n_params && ok; i++) {
    f.param_names[i] = dupstr(param_names ? param_names[i] : "");
    f.param_shapes[i] = dupstr("");
    f.param_ndims[i] = -1;
    ok = f.param_names[i] && f.param_shapes[i];
  }
  f.begin = f.end = e->instrs.len;
  f.n_regs = n_params;
  if (!ok || !rlx_vec_push(&e->funcs, f)) {
    if (!f.param_names || !f.param_shapes) f.n_params = 0;
    free_func(&f);
    return oom(e);
  }
  return e->funcs.len - 1;
}

void rlx_vm_exec_set_param_info(rlx_vm_exec_t* e, int f, int i, DLDataType dtype, int ndim, const char* shape) {
  rlx_vm_func_t* fn = &e->funcs.data[f];
  fn->param_dtypes[i] = dtype;
  fn->param_ndims[i] = ndim;
  char* s = dupstr(shape);
  if (!s) {
    oom(e);
    return;
  }
  free(fn->param_shapes[i]);
  fn->param_shapes[i] = s;
}

void rlx_vm_exec_end_func(rlx_vm_exec_t* e, int f, int n_regs) {
  e->funcs.data[f].end = e->instrs.len;
  e->funcs.data[f].n_regs = n_regs;
}

int rlx_vm_exec_find_func(const rlx_vm_exec_t* e, const char* name) {
  for (int i = 0; i < e->funcs.len; i++)
    if (e->funcs.data[i].kind == RLX_VM_FUNC_VM && strcmp(e->funcs.data[i].name, name) == 0) return i;
  return -1;
}

static int64_t push_instr(rlx_vm_exec_t* e, rlx_vm_instr_t in) {
  if (!rlx_vec_push(&e->instrs, in)) return oom(e);
  return e->instrs.len - 1;
}

int64_t rlx_vm_exec_emit_call(rlx_vm_exec_t* e, int dst, int func, int n_args, const rlx_vm_arg_t* args) {
  rlx_vm_instr_t in = {RLX_VM_OP_CALL, dst, func, n_args, e->args.len, 0};
  for (int i = 0; i < n_args; i++)
    if (!rlx_vec_push(&e->args, args[i])) return oom(e);
  return push_instr(e, in);
}

int64_t rlx_vm_exec_emit_ret(rlx_vm_exec_t* e, int reg) {
  rlx_vm_instr_t in = {RLX_VM_OP_RET, reg, 0, 0, 0, 0};
  return push_instr(e, in);
}

int64_t rlx_vm_exec_emit_goto(rlx_vm_exec_t* e, int64_t offset) {
  rlx_vm_instr_t in = {RLX_VM_OP_GOTO, 0, 0, 0, 0, offset};
  return push_instr(e, in);
}

int64_t rlx_vm_exec_emit_if(rlx_vm_exec_t* e, int cond, int64_t false_offset) {
  rlx_vm_instr_t in = {RLX_VM_OP_IF, cond, 0, 0, 0, false_offset};
  return push_instr(e, in);
}

/* ====================================================================== writing */

static void put(rlx_strbuf_t* sb, const void* p, size_t n) { rlx_strbuf_appendn(sb, p, n); }
static void put_u8(rlx_strbuf_t* sb, uint8_t v) { put(sb, &v, 1); }
static void put_u16(rlx_strbuf_t* sb, uint16_t v) { put(sb, &v, 2); }
static void put_u32(rlx_strbuf_t* sb, uint32_t v) { put(sb, &v, 4); }
static void put_i32(rlx_strbuf_t* sb, int32_t v) { put(sb, &v, 4); }
static void put_u64(rlx_strbuf_t* sb, uint64_t v) { put(sb, &v, 8); }
static void put_i64(rlx_strbuf_t* sb, int64_t v) { put(sb, &v, 8); }
static void put_str(rlx_strbuf_t* sb, const char* s) {
  uint32_t n = (uint32_t)strlen(s ? s : "");
  put_u32(sb, n);
  if (n) put(sb, s, n);
}
static void put_dtype(rlx_strbuf_t* sb, DLDataType t) {
  put_u8(sb, t.code);
  put_u8(sb, t.bits);
  put_u16(sb, t.lanes);
}

RLX_MUST_USE rlx_status_t* rlx_vm_exec_serialize(const rlx_vm_exec_t* e, void** out_bytes, size_t* out_n) {
  if (e->oom) return rlx_status_create(RLX_OUT_OF_MEMORY, "building the executable");
  rlx_strbuf_t sb = {0};
  put(&sb, RLX_VM_MAGIC, 8); /* includes the NUL */
  put_u32(&sb, RLX_VM_FORMAT_VERSION);
  put_u32(&sb, (uint32_t)e->consts.len);
  for (int i = 0; i < e->consts.len; i++) {
    const rlx_vm_const_t* c = &e->consts.data[i];
    put_u8(&sb, (uint8_t)c->kind);
    switch (c->kind) {
      case RLX_VM_CONST_TENSOR:
        put_dtype(&sb, c->dtype);
        put_i32(&sb, c->ndim);
        for (int d = 0; d < c->ndim; d++) put_i64(&sb, c->shape[d]);
        put_u64(&sb, c->nbytes);
        put(&sb, c->data, c->nbytes);
        break;
      case RLX_VM_CONST_INT: put_i64(&sb, c->i); break;
      case RLX_VM_CONST_FLOAT: put(&sb, &c->f, 8); break;
      case RLX_VM_CONST_STR: put_str(&sb, c->s); break;
      case RLX_VM_CONST_DTYPE: put_dtype(&sb, c->dtype); break;
    }
  }
  put_u32(&sb, (uint32_t)e->funcs.len);
  for (int i = 0; i < e->funcs.len; i++) {
    const rlx_vm_func_t* f = &e->funcs.data[i];
    put_str(&sb, f->name);
    put_u8(&sb, (uint8_t)f->kind);
    switch (f->kind) {
      case RLX_VM_FUNC_VM:
        put_u32(&sb, (uint32_t)f->n_params);
        for (int p = 0; p < f->n_params; p++) {
          put_str(&sb, f->param_names[p]);
          put_str(&sb, f->param_shapes[p]);
          put_dtype(&sb, f->param_dtypes[p]);
          put_i32(&sb, f->param_ndims[p]);
        }
        put_u32(&sb, (uint32_t)f->n_regs);
        put_u64(&sb, (uint64_t)f->begin);
        put_u64(&sb, (uint64_t)f->end);
        break;
      case RLX_VM_FUNC_PACKED: put_str(&sb, f->symbol); break;
    }
  }
  put_u64(&sb, (uint64_t)e->instrs.len);
  for (int i = 0; i < e->instrs.len; i++) {
    const rlx_vm_instr_t* in = &e->instrs.data[i];
    put_u8(&sb, (uint8_t)in->op);
    switch (in->op) {
      case RLX_VM_OP_CALL:
        put_u32(&sb, (uint32_t)in->dst);
        put_u32(&sb, (uint32_t)in->func);
        put_u32(&sb, (uint32_t)in->n_args);
        for (int a = 0; a < in->n_args; a++) {
          put_u8(&sb, (uint8_t)e->args.data[in->first_arg + a].kind);
          put_i64(&sb, e->args.data[in->first_arg + a].value);
        }
        break;
      case RLX_VM_OP_RET: put_u32(&sb, (uint32_t)in->dst); break;
      case RLX_VM_OP_GOTO: put_i64(&sb, in->offset); break;
      case RLX_VM_OP_IF:
        put_u32(&sb, (uint32_t)in->dst);
        put_i64(&sb, in->offset);
        break;
    }
  }
  size_t len = sb.len;
  char* bytes = sb.data ? rlx_strbuf_take(&sb) : NULL;
  if (!bytes) return rlx_status_create(RLX_OUT_OF_MEMORY, "serializing the executable");
  *out_n = len;
  *out_bytes = bytes;
  return NULL;
}

/* ====================================================================== reading */

typedef struct {
  const uint8_t* p;
  size_t n, pos;
} reader_t;

static RLX_MUST_USE rlx_status_t* truncated(const reader_t* r, const char* what) {
  return rlx_status_create(RLX_PARSE_ERROR, "executable is truncated at byte %zu (of %zu) reading %s", r->pos, r->n,
                           what);
}

static RLX_MUST_USE rlx_status_t* get(reader_t* r, void* out, size_t k, const char* what) {
  if (r->n - r->pos < k) return truncated(r, what);
  memcpy(out, r->p + r->pos, k);
  r->pos += k;
  return NULL;
}

#define GET(r, v, what) RLX_RETURN_IF_ERROR(get((r), &(v), sizeof(v), (what)))

static RLX_MUST_USE rlx_status_t* get_str(reader_t* r, char** out, const char* what) {
  uint32_t n = 0;
  GET(r, n, what);
  if (r->n - r->pos < n) return truncated(r, what);
  char* s = malloc((size_t)n + 1);
  if (!s) return rlx_status_create(RLX_OUT_OF_MEMORY, "reading %s", what);
  memcpy(s, r->p + r->pos, n);
  s[n] = 0;
  r->pos += n;
  if (strlen(s) != n) {
    free(s);
    return rlx_status_create(RLX_PARSE_ERROR, "executable: %s contains a NUL byte (at byte %zu)", what, r->pos);
  }
  *out = s;
  return NULL;
}

/* Reads a dtype the text form can name: one whose name parses back to it, or, where
 * unknown is allowed (a parameter's), all zero (printed "?"). */
static RLX_MUST_USE rlx_status_t* get_dtype_ex(reader_t* r, DLDataType* t, const char* what, bool unknown_ok) {
  GET(r, t->code, what);
  GET(r, t->bits, what);
  GET(r, t->lanes, what);
  if (unknown_ok && !t->code && !t->bits && !t->lanes) return NULL;
  char b[32];
  DLDataType back = {0, 0, 0};
  rlx_status_t* st = t->bits ? rlx_dldtype_parse(rlx_dldtype_str(*t, b), &back) : NULL;
  if (!st && t->bits && rlx_dldtype_equal(back, *t)) return NULL;
  rlx_status_free(st);
  return rlx_status_create(RLX_PARSE_ERROR, "executable is corrupted: %s has dtype code %u, bits %u, lanes %u", what,
                           (unsigned)t->code, (unsigned)t->bits, (unsigned)t->lanes);
}
static RLX_MUST_USE rlx_status_t* get_dtype(reader_t* r, DLDataType* t, const char* what) { return get_dtype_ex(r, t, what, false); }

static RLX_MUST_USE rlx_status_t* bad(const char* fmt, const char* what, long long v, long long limit) {
  (void)fmt;
  return rlx_status_create(RLX_PARSE_ERROR, "executable is corrupted: %s is %lld (limit %lld)", what, v, limit);
}

static RLX_MUST_USE rlx_status_t* parse_consts(reader_t* r, rlx_vm_exec_t* e) {
  uint32_t n = 0;
  GET(r, n, "the constant count");
  if (n > r->n - r->pos) return bad(NULL, "the constant count", n, (long long)(r->n - r->pos));
  char what[64];
  for (uint32_t i = 0; i < n; i++) {
    snprintf(what, sizeof(what), "constant %u", i);
    rlx_vm_const_t c = {0};
    uint8_t kind = 0;
    GET(r, kind, what);
    if (kind > RLX_VM_CONST_DTYPE) return bad(NULL, "a constant kind", kind, RLX_VM_CONST_DTYPE);
    c.kind = (rlx_vm_const_kind_t)kind;
    /* push first so that an error below frees whatever was read */
    if (!rlx_vec_push(&e->consts, c)) return rlx_status_create(RLX_OUT_OF_MEMORY, "reading %s", what);
    rlx_vm_const_t* cp = &e->consts.data[e->consts.len - 1];
    switch (cp->kind) {
      case RLX_VM_CONST_TENSOR: {
        RLX_RETURN_IF_ERROR(get_dtype(r, &cp->dtype, what));
        int32_t ndim = 0;
        GET(r, ndim, what);
        if (ndim < 0 || ndim > RLX_VM_MAX_NDIM) return bad(NULL, "a constant's ndim", ndim, RLX_VM_MAX_NDIM);
        cp->shape = calloc((size_t)(ndim ? ndim : 1), sizeof(int64_t));
        if (!cp->shape) return rlx_status_create(RLX_OUT_OF_MEMORY, "reading %s", what);
        cp->ndim = ndim;
        for (int d = 0; d < ndim; d++) GET(r, cp->shape[d], what);
        size_t want = 0;
        rlx_status_t* st = rlx_tensor_check_shape(what, ndim, cp->shape, cp->dtype, &want);
        if (st) return rlx_status_annotate(st, "executable is corrupted");
        uint64_t nbytes = 0;
        GET(r, nbytes, what);
        if (nbytes != want)
          return rlx_status_create(RLX_PARSE_ERROR, "executable is corrupted: %s holds %llu bytes, its shape needs %zu",
                                   what, (unsigned long long)nbytes, want);
        if (r->n - r->pos < nbytes) return truncated(r, what);
        cp->data = malloc(nbytes ? nbytes : 1);
        if (!cp->data) return rlx_status_create(RLX_OUT_OF_MEMORY, "reading %s", what);
        memcpy(cp->data, r->p + r->pos, nbytes);
        cp->nbytes = nbytes;
        r->pos += nbytes;
        break;
      }
      case RLX_VM_CONST_INT: GET(r, cp->i, what); break;
      case RLX_VM_CONST_FLOAT: GET(r, cp->f, what); break;
      case RLX_VM_CONST_STR: RLX_RETURN_IF_ERROR(get_str(r, &cp->s, what)); break;
      case RLX_VM_CONST_DTYPE: RLX_RETURN_IF_ERROR(get_dtype(r, &cp->dtype, what)); break;
    }
  }
  return NULL;
}

/* Function names, packed symbols and parameter names are tokens of the text form
 * (rlx_vm_assemble's names): [A-Za-z0-9_.-]+. */
static RLX_MUST_USE rlx_status_t* check_name(const char* s, const char* what) {
  size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-");
  if (n && !s[n]) return NULL;
  return rlx_status_create(RLX_PARSE_ERROR, "executable is corrupted: %s has a name with character 0x%02x at %zu",
                           what, (unsigned)(unsigned char)s[n], n);
}

static RLX_MUST_USE rlx_status_t* parse_funcs(reader_t* r, rlx_vm_exec_t* e) {
  uint32_t n = 0;
  GET(r, n, "the function count");
  if (n > r->n - r->pos) return bad(NULL, "the function count", n, (long long)(r->n - r->pos));
  char what[64];
  for (uint32_t i = 0; i < n; i++) {
    snprintf(what, sizeof(what), "function %u", i);
    rlx_vm_func_t f = {0};
    if (!rlx_vec_push(&e->funcs, f)) return rlx_status_create(RLX_OUT_OF_MEMORY, "reading %s", what);
    rlx_vm_func_t* fp = &e->funcs.data[e->funcs.len - 1];
    RLX_RETURN_IF_ERROR(get_str(r, &fp->name, what));
    RLX_RETURN_IF_ERROR(check_name(fp->name, what));
    uint8_t kind = 0;
    GET(r, kind, what);
    if (kind > RLX_VM_FUNC_PACKED) return bad(NULL, "a function kind", kind, RLX_VM_FUNC_PACKED);
    fp->kind = (rlx_vm_func_kind_t)kind;
    switch (fp->kind) {
      case RLX_VM_FUNC_VM: {
        uint32_t np = 0;
        GET(r, np, what);
        if (np > r->n - r->pos || np > RLX_VM_MAX_REGS) return bad(NULL, "a parameter count", np, RLX_VM_MAX_REGS);
        size_t k = np ? np : 1;
        fp->param_names = calloc(k, sizeof(char*));
        fp->param_shapes = calloc(k, sizeof(char*));
        fp->param_dtypes = calloc(k, sizeof(DLDataType));
        fp->param_ndims = calloc(k, sizeof(int32_t));
        if (!fp->param_names || !fp->param_shapes || !fp->param_dtypes || !fp->param_ndims)
          return rlx_status_create(RLX_OUT_OF_MEMORY, "reading %s", what);
        for (uint32_t p = 0; p < np; p++) {
          fp->n_params = (int)p + 1; /* what is read so far is freed on error */
          RLX_RETURN_IF_ERROR(get_str(r, &fp->param_names[p], what));
          RLX_RETURN_IF_ERROR(check_name(fp->param_names[p], what));
          RLX_RETURN_IF_ERROR(get_str(r, &fp->param_shapes[p], what));
          RLX_RETURN_IF_ERROR(get_dtype_ex(r, &fp->param_dtypes[p], what, true));
          GET(r, fp->param_ndims[p], what);
          if (fp->param_ndims[p] < RLX_VM_PARAM_NOT_TENSOR || fp->param_ndims[p] > RLX_VM_MAX_NDIM)
            return bad(NULL, "a parameter's ndim", fp->param_ndims[p], RLX_VM_MAX_NDIM);
          /* an object parameter prints as `object`: nothing else of it may be set */
          const DLDataType pt = fp->param_dtypes[p];
          if (fp->param_ndims[p] == RLX_VM_PARAM_NOT_TENSOR && (fp->param_shapes[p][0] || pt.code || pt.bits || pt.lanes))
            return rlx_status_create(RLX_PARSE_ERROR,
                                     "executable is corrupted: %s parameter '%s' is not a tensor but has a shape or dtype",
                                     what, fp->param_names[p]);
        }
        uint32_t nregs = 0;
        uint64_t b = 0, en = 0;
        GET(r, nregs, what);
        GET(r, b, what);
        GET(r, en, what);
        if (nregs > RLX_VM_MAX_REGS || nregs < np) return bad(NULL, "a register count", nregs, RLX_VM_MAX_REGS);
        if (b > en || en > (uint64_t)INT32_MAX)
          return rlx_status_create(RLX_PARSE_ERROR, "executable is corrupted: %s has instruction range [%llu, %llu)",
                                   what, (unsigned long long)b, (unsigned long long)en);
        fp->n_regs = (int)nregs;
        fp->begin = (int64_t)b;
        fp->end = (int64_t)en;
        break;
      }
      case RLX_VM_FUNC_PACKED:
        RLX_RETURN_IF_ERROR(get_str(r, &fp->symbol, what));
        RLX_RETURN_IF_ERROR(check_name(fp->symbol, what));
        break;
    }
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_instrs(reader_t* r, rlx_vm_exec_t* e) {
  uint64_t n = 0;
  GET(r, n, "the instruction count");
  if (n > r->n - r->pos) return bad(NULL, "the instruction count", (long long)n, (long long)(r->n - r->pos));
  char what[64];
  for (uint64_t i = 0; i < n; i++) {
    snprintf(what, sizeof(what), "instruction %llu", (unsigned long long)i);
    rlx_vm_instr_t in = {0};
    uint8_t op = 0;
    GET(r, op, what);
    if (op > RLX_VM_OP_IF) return bad(NULL, "an opcode", op, RLX_VM_OP_IF);
    in.op = (rlx_vm_opcode_t)op;
    uint32_t u = 0;
    switch (in.op) {
      case RLX_VM_OP_CALL: {
        uint32_t f = 0, na = 0;
        GET(r, u, what);
        GET(r, f, what);
        GET(r, na, what);
        if (u > RLX_VM_MAX_REGS) return bad(NULL, "a register", u, RLX_VM_MAX_REGS);
        if (f >= (uint32_t)e->funcs.len) return bad(NULL, "a called function index", f, e->funcs.len);
        if (na > (r->n - r->pos) / 9) return truncated(r, what);
        in.dst = (int32_t)u;
        in.func = (int32_t)f;
        in.n_args = (int32_t)na;
        in.first_arg = e->args.len;
        for (uint32_t a = 0; a < na; a++) {
          uint8_t k = 0;
          rlx_vm_arg_t arg = {RLX_VM_ARG_IMM, 0};
          GET(r, k, what);
          GET(r, arg.value, what);
          if (k > RLX_VM_ARG_FUNC) return bad(NULL, "an argument kind", k, RLX_VM_ARG_FUNC);
          arg.kind = (rlx_vm_arg_kind_t)k;
          switch (arg.kind) {
            case RLX_VM_ARG_REG:
              if (arg.value < 0 || arg.value >= RLX_VM_MAX_REGS) return bad(NULL, "a register", arg.value, RLX_VM_MAX_REGS);
              break;
            case RLX_VM_ARG_IMM: break;
            case RLX_VM_ARG_CONST:
              if (arg.value < 0 || arg.value >= e->consts.len)
                return bad(NULL, "a constant index", arg.value, e->consts.len);
              break;
            case RLX_VM_ARG_FUNC:
              if (arg.value < 0 || arg.value >= e->funcs.len)
                return bad(NULL, "a function index", arg.value, e->funcs.len);
              break;
          }
          if (!rlx_vec_push(&e->args, arg)) return rlx_status_create(RLX_OUT_OF_MEMORY, "reading %s", what);
        }
        break;
      }
      case RLX_VM_OP_RET:
        GET(r, u, what);
        in.dst = (int32_t)(u > RLX_VM_MAX_REGS ? RLX_VM_MAX_REGS : u);
        if (u > RLX_VM_MAX_REGS) return bad(NULL, "a register", u, RLX_VM_MAX_REGS);
        break;
      case RLX_VM_OP_GOTO: GET(r, in.offset, what); break;
      case RLX_VM_OP_IF:
        GET(r, u, what);
        GET(r, in.offset, what);
        if (u > RLX_VM_MAX_REGS) return bad(NULL, "a register", u, RLX_VM_MAX_REGS);
        in.dst = (int32_t)u;
        break;
    }
    if (!rlx_vec_push(&e->instrs, in)) return rlx_status_create(RLX_OUT_OF_MEMORY, "reading %s", what);
  }
  return NULL;
}

/* Every register an instruction names is below its function's register count; every jump
 * lands inside the function; a VM function's last instruction does not fall through. */
static int cmp_str(const void* a, const void* b) { return strcmp(*(const char* const*)a, *(const char* const*)b); }

/* Calls name functions, so two of one name would be ambiguous (the text form rejects it). */
static RLX_MUST_USE rlx_status_t* check_unique_names(const rlx_vm_exec_t* e) {
  if (e->funcs.len < 2) return NULL;
  const char** names = malloc(sizeof(char*) * (size_t)e->funcs.len);
  if (!names) return rlx_status_create(RLX_OUT_OF_MEMORY, "verifying the executable");
  for (int i = 0; i < e->funcs.len; i++) names[i] = e->funcs.data[i].name;
  qsort(names, (size_t)e->funcs.len, sizeof(char*), cmp_str);
  rlx_status_t* st = NULL;
  for (int i = 1; i < e->funcs.len && !st; i++)
    if (strcmp(names[i - 1], names[i]) == 0)
      st = rlx_status_create(RLX_PARSE_ERROR, "executable is corrupted: two functions are named '%s'", names[i]);
  free(names);
  return st;
}

static RLX_MUST_USE rlx_status_t* verify(const rlx_vm_exec_t* e) {
  RLX_RETURN_IF_ERROR(check_unique_names(e));
  /* the VM functions' instructions, in table order, are the instruction list: no
   * instruction outside a function, none in two (what the text form can say) */
  int64_t next = 0;
  for (int fi = 0; fi < e->funcs.len; fi++) {
    const rlx_vm_func_t* f = &e->funcs.data[fi];
    if (f->kind != RLX_VM_FUNC_VM) continue;
    if (f->begin != next)
      return rlx_status_create(RLX_PARSE_ERROR, "executable is corrupted: function '%s' begins at instruction %lld, not %lld",
                               f->name, (long long)f->begin, (long long)next);
    next = f->end;
  }
  if (next != e->instrs.len)
    return rlx_status_create(RLX_PARSE_ERROR, "executable is corrupted: instructions %lld to %d belong to no function",
                             (long long)next, e->instrs.len);
  for (int fi = 0; fi < e->funcs.len; fi++) {
    const rlx_vm_func_t* f = &e->funcs.data[fi];
    if (f->kind != RLX_VM_FUNC_VM) continue;
    if (f->end > e->instrs.len)
      return rlx_status_create(RLX_PARSE_ERROR,
                               "executable is corrupted: function '%s' ends at instruction %lld of %d", f->name,
                               (long long)f->end, e->instrs.len);
    if (f->begin == f->end)
      return rlx_status_create(RLX_PARSE_ERROR, "executable is corrupted: function '%s' has no instructions", f->name);
    for (int64_t pc = f->begin; pc < f->end; pc++) {
      const rlx_vm_instr_t* in = &e->instrs.data[pc];
      int64_t target = -1;
      int64_t reg_max = in->dst;
      switch (in->op) {
        case RLX_VM_OP_CALL:
          for (int a = 0; a < in->n_args; a++) {
            const rlx_vm_arg_t* arg = &e->args.data[in->first_arg + a];
            if (arg->kind == RLX_VM_ARG_REG && arg->value > reg_max) reg_max = arg->value;
          }
          break;
        case RLX_VM_OP_RET: break;
        case RLX_VM_OP_GOTO:
          reg_max = 0;
          target = pc + in->offset;
          if (in->offset == 0)
            return rlx_status_create(RLX_PARSE_ERROR, "executable is corrupted: function '%s' instruction %lld jumps to itself",
                                     f->name, (long long)pc);
          break;
        case RLX_VM_OP_IF: target = pc + in->offset; break;
      }
      if (reg_max >= f->n_regs && !(in->op == RLX_VM_OP_GOTO))
        return rlx_status_create(RLX_PARSE_ERROR,
                                 "executable is corrupted: function '%s' instruction %lld uses register %lld of %d",
                                 f->name, (long long)pc, (long long)reg_max, f->n_regs);
      if ((in->op == RLX_VM_OP_GOTO || in->op == RLX_VM_OP_IF) &&
          (in->offset > INT32_MAX || in->offset < -(int64_t)INT32_MAX || target < f->begin || target >= f->end))
        return rlx_status_create(RLX_PARSE_ERROR,
                                 "executable is corrupted: function '%s' instruction %lld jumps by %lld, outside the "
                                 "function [%lld, %lld)",
                                 f->name, (long long)pc, (long long)in->offset, (long long)f->begin, (long long)f->end);
    }
    rlx_vm_opcode_t last = e->instrs.data[f->end - 1].op;
    if (last != RLX_VM_OP_RET && last != RLX_VM_OP_GOTO)
      return rlx_status_create(RLX_PARSE_ERROR,
                               "executable is corrupted: function '%s' does not end with ret or goto", f->name);
  }
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_vm_exec_parse(const void* bytes, size_t n, rlx_vm_exec_t** out_exec) {
  if (!bytes) return rlx_status_create(RLX_INVALID_ARGUMENT, "executable: NULL bytes");
  reader_t r = {bytes, n, 0};
  char magic[8];
  RLX_RETURN_IF_ERROR(get(&r, magic, 8, "the magic number"));
  if (memcmp(magic, RLX_VM_MAGIC, 8) != 0)
    return rlx_status_create(RLX_PARSE_ERROR, "not an rlx executable: bad magic (expected \"RLXEXEC\\0\")");
  uint32_t version = 0;
  GET(&r, version, "the format version");
  if (version != RLX_VM_FORMAT_VERSION)
    return rlx_status_create(RLX_PARSE_ERROR, "rlx executable format version %u is not supported (this VM reads %u)",
                             version, RLX_VM_FORMAT_VERSION);
  rlx_vm_exec_t* e = rlx_vm_exec_create();
  if (!e) return rlx_status_create(RLX_OUT_OF_MEMORY, "reading an executable");
  rlx_status_t* st = parse_consts(&r, e);
  if (!st) st = parse_funcs(&r, e);
  if (!st) st = parse_instrs(&r, e);
  if (!st && r.pos != r.n)
    st = rlx_status_create(RLX_PARSE_ERROR, "executable is corrupted: %zu bytes of trailing data after byte %zu",
                           r.n - r.pos, r.pos);
  if (!st) st = verify(e);
  if (st) {
    rlx_vm_exec_free(e);
    return st;
  }
  *out_exec = e;
  return NULL;
}
