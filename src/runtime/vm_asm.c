/* The assembler: the disassembler's text (vm_disasm.c) back into an executable, so that
 * bytecode can be written, read and diffed as text. Line-based:
 *
 *   ; comment                          (also after any statement)
 *   c[K] = tensor float32 (2, 3), 24 bytes 0x<hex>   | int 5 | float 1.5 | str "s" | dtype int64
 *          (a NaN float: `float nan bits 0x7ff8000000000001`, its sign and payload kept)
 *   packed NAME [symbol SYMBOL]
 *   function NAME(x: float32 ndim=2 "(n, 4)", s: object) registers=N
 *     0: %3 = call NAME(%0, i-1, c[2], c[3]:"text", c[4]:float32, f[NAME])
 *     1: if %3 else goto +2
 *     2: goto -1
 *     3: ret %3
 *
 * Constants are numbered in order; the function table is the `packed` lines and
 * `function` blocks in order (calls refer to entries by name, also forward). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlx/vm.h"
#include "vm_exec.h"

typedef struct {
  const char* p; /* cursor in the current line */
  const char* end;
  int line;
} cur_t;

static RLX_MUST_USE rlx_status_t* nomem(void) { return rlx_status_create(RLX_OUT_OF_MEMORY, "assembling"); }

static RLX_MUST_USE rlx_status_t* fail(const cur_t* c, const char* what) {
  int n = (int)(c->end - c->p);
  if (n > 40) n = 40;
  return rlx_status_create(RLX_PARSE_ERROR, "bytecode text line %d: expected %s at '%.*s'", c->line, what, n, c->p);
}

static void skip_ws(cur_t* c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r')) c->p++;
}

static bool at_end(cur_t* c) {
  skip_ws(c);
  return c->p >= c->end || *c->p == ';';
}

static bool eat(cur_t* c, const char* s) {
  skip_ws(c);
  size_t n = strlen(s);
  if ((size_t)(c->end - c->p) >= n && strncmp(c->p, s, n) == 0) {
    c->p += n;
    return true;
  }
  return false;
}

/* A token of name characters (identifiers, dotted names, dtypes). Heap string. */
static RLX_MUST_USE rlx_status_t* name(cur_t* c, char** out, const char* what) {
  skip_ws(c);
  const char* b = c->p;
  while (c->p < c->end && (isalnum((unsigned char)*c->p) || *c->p == '_' || *c->p == '.' || *c->p == '-')) c->p++;
  if (c->p == b) return fail(c, what);
  *out = strndup(b, (size_t)(c->p - b));
  return *out ? NULL : nomem();
}

static RLX_MUST_USE rlx_status_t* integer(cur_t* c, int64_t* out, const char* what) {
  skip_ws(c);
  char* e = NULL;
  errno = 0;
  long long v = strtoll(c->p, &e, 10);
  if (e == c->p || e > c->end || errno) return fail(c, what);
  c->p = e;
  *out = v;
  return NULL;
}

static int hexval(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

/* "..." with \\ \" \xNN escapes. Heap string. */
static RLX_MUST_USE rlx_status_t* quoted(cur_t* c, char** out) {
  skip_ws(c);
  if (c->p >= c->end || *c->p != '"') return fail(c, "a quoted string");
  c->p++;
  rlx_strbuf_t sb = {0};
  rlx_strbuf_append(&sb, "");
  while (c->p < c->end && *c->p != '"') {
    char ch = *c->p++;
    if (ch == '\\' && c->p < c->end) {
      char e = *c->p++;
      if (e == 'x' && c->end - c->p >= 2 && hexval(c->p[0]) >= 0 && hexval(c->p[1]) >= 0) {
        ch = (char)(hexval(c->p[0]) * 16 + hexval(c->p[1]));
        c->p += 2;
      } else {
        ch = e;
      }
    }
    rlx_strbuf_appendn(&sb, &ch, 1);
  }
  if (c->p >= c->end) {
    rlx_strbuf_free(&sb);
    return fail(c, "a closing quote");
  }
  c->p++;
  *out = rlx_strbuf_take(&sb);
  return *out ? NULL : nomem();
}

static RLX_MUST_USE rlx_status_t* dtype(cur_t* c, DLDataType* out) {
  char* s = NULL;
  RLX_RETURN_IF_ERROR(name(c, &s, "a dtype"));
  rlx_status_t* st = rlx_dldtype_parse(s, out);
  free(s);
  if (st) {
    rlx_status_free(st);
    return fail(c, "a dtype");
  }
  return NULL;
}

/* "(2, 3)", "(5,)", "()". */
static RLX_MUST_USE rlx_status_t* shape(cur_t* c, int* ndim, int64_t* dims) {
  if (!eat(c, "(")) return fail(c, "a shape '('");
  *ndim = 0;
  while (!eat(c, ")")) {
    if (*ndim == RLX_VM_MAX_NDIM) return fail(c, "fewer dims");
    RLX_RETURN_IF_ERROR(integer(c, &dims[(*ndim)++], "a dim"));
    if (!eat(c, ",")) {
      if (!eat(c, ")")) return fail(c, "',' or ')'");
      break;
    }
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* constant(cur_t* c, rlx_vm_exec_t* e) {
  int64_t k = 0;
  RLX_RETURN_IF_ERROR(integer(c, &k, "a constant index"));
  if (k != e->consts.len) return fail(c, "constants numbered in order");
  if (!eat(c, "]") || !eat(c, "=")) return fail(c, "'] ='");
  if (eat(c, "tensor")) {
    DLDataType t;
    int ndim = 0;
    int64_t dims[RLX_VM_MAX_NDIM], nbytes = 0;
    RLX_RETURN_IF_ERROR(dtype(c, &t));
    RLX_RETURN_IF_ERROR(shape(c, &ndim, dims));
    if (!eat(c, ",")) return fail(c, "','");
    RLX_RETURN_IF_ERROR(integer(c, &nbytes, "a byte count"));
    if (!eat(c, "bytes")) return fail(c, "'bytes'");
    if (eat(c, "(data not shown)"))
      return rlx_status_create(RLX_UNSUPPORTED, "bytecode text line %d: the data of constant c[%lld] is not shown",
                               c->line, (long long)k);
    if (!eat(c, "0x")) return fail(c, "hex data 0x...");
    if (nbytes < 0 || c->end - c->p < 2 * nbytes) return fail(c, "as many hex digits as bytes");
    uint8_t* data = malloc((size_t)(nbytes ? nbytes : 1));
    if (!data) return nomem();
    for (int64_t i = 0; i < nbytes; i++) {
      int hi = hexval(c->p[2 * i]), lo = hexval(c->p[2 * i + 1]);
      if (hi < 0 || lo < 0) {
        free(data);
        return fail(c, "hex digits");
      }
      data[i] = (uint8_t)(hi * 16 + lo);
    }
    c->p += 2 * nbytes;
    int k2 = rlx_vm_exec_add_tensor(e, t, ndim, dims, data, (size_t)nbytes);
    free(data);
    return k2 < 0 ? nomem() : NULL;
  }
  rlx_vm_const_t cst = {0};
  if (eat(c, "int")) {
    cst.kind = RLX_VM_CONST_INT;
    RLX_RETURN_IF_ERROR(integer(c, &cst.i, "an int"));
  } else if (eat(c, "float")) {
    cst.kind = RLX_VM_CONST_FLOAT;
    if (eat(c, "nan bits 0x")) { /* a NaN by its bits (sign and payload) */
      uint64_t bits = 0;
      int nd = 0;
      for (; nd < 16 && c->p < c->end && hexval(*c->p) >= 0; nd++) bits = bits * 16 + (uint64_t)hexval(*c->p++);
      memcpy(&cst.f, &bits, 8);
      if (nd != 16 || cst.f == cst.f) return fail(c, "the 16 hex digits of a NaN");
    } else {
      skip_ws(c);
      char* end = NULL;
      cst.f = strtod(c->p, &end);
      if (end == c->p || end > c->end) return fail(c, "a float");
      c->p = end;
    }
  } else if (eat(c, "str")) {
    cst.kind = RLX_VM_CONST_STR;
    RLX_RETURN_IF_ERROR(quoted(c, &cst.s));
  } else if (eat(c, "dtype")) {
    cst.kind = RLX_VM_CONST_DTYPE;
    RLX_RETURN_IF_ERROR(dtype(c, &cst.dtype));
  } else {
    return fail(c, "tensor, int, float, str or dtype");
  }
  /* pushed directly: the add_* helpers share equal strings and dtypes, the text may not */
  if (!rlx_vec_push(&e->consts, cst)) {
    free(cst.s);
    return nomem();
  }
  return NULL;
}

static int find(const rlx_vm_exec_t* e, const char* name) {
  int found = -1;
  for (int i = 0; i < e->funcs.len; i++)
    if (strcmp(e->funcs.data[i].name, name) == 0) {
      if (found >= 0) return -2; /* ambiguous */
      found = i;
    }
  return found;
}

static RLX_MUST_USE rlx_status_t* func_ref(cur_t* c, const rlx_vm_exec_t* e, const char* nm, int* out) {
  int f = find(e, nm);
  if (f == -1) return rlx_status_create(RLX_PARSE_ERROR, "bytecode text line %d: unknown function '%s'", c->line, nm);
  if (f == -2) return rlx_status_create(RLX_PARSE_ERROR, "bytecode text line %d: function name '%s' is ambiguous", c->line, nm);
  *out = f;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* reg(cur_t* c, int* out) {
  if (!eat(c, "%")) return fail(c, "a register %N");
  int64_t r = 0;
  RLX_RETURN_IF_ERROR(integer(c, &r, "a register number"));
  if (r < 0 || r >= RLX_VM_MAX_REGS) return fail(c, "a register in range");
  *out = (int)r;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* arg(cur_t* c, const rlx_vm_exec_t* e, rlx_vm_arg_t* out) {
  skip_ws(c);
  if (c->p < c->end && *c->p == '%') {
    int r = 0;
    RLX_RETURN_IF_ERROR(reg(c, &r));
    *out = rlx_vm_reg(r);
    return NULL;
  }
  if (eat(c, "i")) {
    int64_t v = 0;
    RLX_RETURN_IF_ERROR(integer(c, &v, "an immediate"));
    *out = rlx_vm_imm(v);
    return NULL;
  }
  if (eat(c, "c[")) {
    int64_t k = 0;
    RLX_RETURN_IF_ERROR(integer(c, &k, "a constant index"));
    if (!eat(c, "]")) return fail(c, "']'");
    if (c->p < c->end && *c->p == ':') { /* an annotation that shows the value: skipped */
      c->p++;
      char* tmp = NULL;
      rlx_status_t* st = (c->p < c->end && *c->p == '"') ? quoted(c, &tmp) : name(c, &tmp, "an annotation");
      free(tmp);
      RLX_RETURN_IF_ERROR(st);
    }
    *out = rlx_vm_const(k);
    return NULL;
  }
  if (eat(c, "f[")) {
    skip_ws(c);
    const char* b = c->p;
    while (c->p < c->end && *c->p != ']') c->p++;
    if (c->p >= c->end) return fail(c, "']'");
    char* nm = strndup(b, (size_t)(c->p - b));
    if (!nm) return nomem();
    c->p++;
    int f = 0;
    rlx_status_t* st = func_ref(c, e, nm, &f);
    free(nm);
    RLX_RETURN_IF_ERROR(st);
    *out = rlx_vm_func(f);
    return NULL;
  }
  return fail(c, "an argument (%r, iN, c[k], f[name])");
}

static RLX_MUST_USE rlx_status_t* instr(cur_t* c, rlx_vm_exec_t* e) {
  int64_t idx = 0;
  RLX_RETURN_IF_ERROR(integer(c, &idx, "an instruction number"));
  if (!eat(c, ":")) return fail(c, "':'");
  if (eat(c, "ret")) {
    int r = 0;
    RLX_RETURN_IF_ERROR(reg(c, &r));
    if (rlx_vm_exec_emit_ret(e, r) < 0) return nomem();
  } else if (eat(c, "goto")) {
    int64_t off = 0;
    eat(c, "+");
    RLX_RETURN_IF_ERROR(integer(c, &off, "an offset"));
    if (rlx_vm_exec_emit_goto(e, off) < 0) return nomem();
  } else if (eat(c, "if")) {
    int r = 0;
    int64_t off = 0;
    RLX_RETURN_IF_ERROR(reg(c, &r));
    if (!eat(c, "else") || !eat(c, "goto")) return fail(c, "'else goto'");
    eat(c, "+");
    RLX_RETURN_IF_ERROR(integer(c, &off, "an offset"));
    if (rlx_vm_exec_emit_if(e, r, off) < 0) return nomem();
  } else {
    int dst = 0, f = 0;
    char* nm = NULL;
    RLX_RETURN_IF_ERROR(reg(c, &dst));
    if (!eat(c, "=") || !eat(c, "call")) return fail(c, "'= call'");
    RLX_RETURN_IF_ERROR(name(c, &nm, "a function name"));
    rlx_status_t* st = func_ref(c, e, nm, &f);
    free(nm);
    RLX_RETURN_IF_ERROR(st);
    if (!eat(c, "(")) return fail(c, "'('");
    RLX_VEC(rlx_vm_arg_t) args = {0};
    st = NULL;
    if (!eat(c, ")")) {
      for (;;) {
        rlx_vm_arg_t a;
        st = arg(c, e, &a);
        if (st) break;
        if (!rlx_vec_push(&args, a)) {
          st = nomem();
          break;
        }
        if (eat(c, ")")) break;
        if (!eat(c, ",")) {
          st = fail(c, "',' or ')'");
          break;
        }
      }
    }
    if (!st && rlx_vm_exec_emit_call(e, dst, f, args.len, args.data) < 0) st = nomem();
    rlx_vec_free(&args);
    RLX_RETURN_IF_ERROR(st);
  }
  if (!at_end(c)) return fail(c, "the end of the instruction");
  return NULL;
}

/* `function NAME(params) registers=N` (pass 1): adds the function-table entry. */
static RLX_MUST_USE rlx_status_t* func_header(cur_t* c, rlx_vm_exec_t* e) {
  char* nm = NULL;
  RLX_RETURN_IF_ERROR(name(c, &nm, "a function name"));
  int fi = rlx_vm_exec_begin_func(e, nm, 0, NULL);
  free(nm);
  if (fi < 0) return nomem();
  rlx_vm_func_t* f = &e->funcs.data[fi];
  if (!eat(c, "(")) return fail(c, "'('");
  rlx_status_t* st = NULL;
  if (!eat(c, ")")) {
    for (;;) {
      char *pn = NULL, *shape_txt = NULL;
      DLDataType t = {0, 0, 0};
      int64_t ndim = RLX_VM_PARAM_NOT_TENSOR;
      st = name(c, &pn, "a parameter name");
      if (!st && !eat(c, ":")) st = fail(c, "':'");
      if (!st && !eat(c, "object")) {
        if (!eat(c, "?")) st = dtype(c, &t);
        if (!st && !eat(c, "ndim=")) st = fail(c, "'ndim='");
        if (!st) st = integer(c, &ndim, "an ndim");
        if (!st) st = quoted(c, &shape_txt);
      }
      if (st) {
        free(pn);
        free(shape_txt);
        break;
      }
      /* grow the param arrays by one (each realloc keeps the old array on failure) */
      int np = f->n_params + 1;
      void* p;
      bool ok = (p = realloc(f->param_names, sizeof(char*) * (size_t)np)) && (f->param_names = p, true);
      ok = ok && (p = realloc(f->param_shapes, sizeof(char*) * (size_t)np)) && (f->param_shapes = p, true);
      ok = ok && (p = realloc(f->param_dtypes, sizeof(DLDataType) * (size_t)np)) && (f->param_dtypes = p, true);
      ok = ok && (p = realloc(f->param_ndims, sizeof(int32_t) * (size_t)np)) && (f->param_ndims = p, true);
      if (ok && !shape_txt) ok = (shape_txt = strdup("")) != NULL;
      if (!ok) {
        free(pn);
        free(shape_txt);
        st = nomem();
        break;
      }
      f->param_names[np - 1] = pn;
      f->param_shapes[np - 1] = shape_txt;
      f->param_dtypes[np - 1] = t;
      f->param_ndims[np - 1] = (int32_t)ndim;
      f->n_params = np;
      if (eat(c, ")")) break;
      if (!eat(c, ",")) {
        st = fail(c, "',' or ')'");
        break;
      }
    }
  }
  RLX_RETURN_IF_ERROR(st);
  int64_t nregs = 0;
  if (!eat(c, "registers=")) return fail(c, "'registers='");
  RLX_RETURN_IF_ERROR(integer(c, &nregs, "a register count"));
  if (nregs < f->n_params || nregs > RLX_VM_MAX_REGS) return fail(c, "a register count >= the parameter count");
  f->n_regs = (int)nregs;
  if (!at_end(c)) return fail(c, "the end of the line");
  return NULL;
}

static RLX_MUST_USE rlx_status_t* assemble(const char* text, rlx_vm_exec_t* e) {
  /* pass 1: the function table (calls may refer forward); pass 2: constants and code */
  for (int pass = 1; pass <= 2; pass++) {
    int fi = -1, seen_funcs = 0;
    int line = 0;
    for (const char* p = text; *p;) {
      const char* nl = strchr(p, '\n');
      const char* end = nl ? nl : p + strlen(p);
      cur_t c = {p, end, ++line};
      p = nl ? nl + 1 : end;
      if (at_end(&c)) continue;
      if (eat(&c, "packed")) {
        seen_funcs++;
        if (pass == 2) {
          if (fi >= 0) e->funcs.data[fi].end = e->instrs.len;
          fi = -1;
          continue;
        }
        char *nm = NULL, *sym = NULL;
        RLX_RETURN_IF_ERROR(name(&c, &nm, "a packed function name"));
        rlx_status_t* st = NULL;
        if (eat(&c, "symbol")) st = name(&c, &sym, "a symbol");
        if (!st && !at_end(&c)) st = fail(&c, "the end of the line");
        if (!st) {
          /* not rlx_vm_exec_add_packed: two entries may share a symbol in a hand-made table */
          rlx_vm_func_t f = {0};
          f.kind = RLX_VM_FUNC_PACKED;
          f.name = nm;
          f.symbol = sym ? sym : strdup(nm);
          nm = sym = NULL;
          if (!f.symbol || !rlx_vec_push(&e->funcs, f)) {
            free(f.name);
            free(f.symbol);
            st = nomem();
          }
        }
        free(nm);
        free(sym);
        RLX_RETURN_IF_ERROR(st);
        continue;
      }
      if (eat(&c, "function")) {
        seen_funcs++;
        if (pass == 1) {
          RLX_RETURN_IF_ERROR(func_header(&c, e));
        } else {
          if (fi >= 0) e->funcs.data[fi].end = e->instrs.len;
          fi = seen_funcs - 1;
          e->funcs.data[fi].begin = e->funcs.data[fi].end = e->instrs.len;
        }
        continue;
      }
      if (eat(&c, "c[")) {
        if (pass == 2) {
          RLX_RETURN_IF_ERROR(constant(&c, e));
          if (!at_end(&c)) return fail(&c, "the end of the constant");
        }
        continue;
      }
      if (isdigit((unsigned char)*c.p)) {
        if (pass == 2) {
          if (fi < 0) return fail(&c, "an instruction inside a function");
          RLX_RETURN_IF_ERROR(instr(&c, e));
        }
        continue;
      }
      return fail(&c, "a constant, packed, function or instruction line");
    }
    if (pass == 2 && fi >= 0) e->funcs.data[fi].end = e->instrs.len;
    if (pass == 1) {
      /* begin_func placed every range at 0; pass 2 sets them */
      for (int i = 0; i < e->funcs.len; i++) e->funcs.data[i].begin = e->funcs.data[i].end = 0;
    }
  }
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_vm_assemble(const char* text, void** out_bytes, size_t* out_n) {
  if (!text || !out_bytes || !out_n) return rlx_status_create(RLX_INVALID_ARGUMENT, "rlx_vm_assemble: NULL argument");
  rlx_vm_exec_t* e = rlx_vm_exec_create();
  if (!e) return nomem();
  rlx_status_t* st = assemble(text, e);
  void* bytes = NULL;
  size_t n = 0;
  if (!st) st = rlx_vm_exec_serialize(e, &bytes, &n);
  rlx_vm_exec_free(e);
  /* what the text says must also verify */
  if (!st) {
    rlx_vm_exec_t* check = NULL;
    st = rlx_vm_exec_parse(bytes, n, &check);
    rlx_vm_exec_free(check);
    if (st) {
      free(bytes);
      st = rlx_status_annotate(st, "assembled bytecode");
    }
  }
  if (st) return st;
  *out_bytes = bytes;
  *out_n = n;
  return NULL;
}
