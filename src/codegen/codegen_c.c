/* TIR → C99 (GNU dialect) source: one static kernel per PrimFunc plus its packed-ABI
 * wrapper (codegen_c_wrapper.c); expressions in codegen_c_expr.c.
 *
 * Requires lowered TIR (rlx_tir_lower): no blocks; accesses are 1-D on flat buffers that
 * share the data var of a parameter buffer or of an ALLOCATE (multi-index accesses are
 * flattened here row-major as a fallback).
 *
 * Statements:
 *   For PARALLEL    → the outermost one only (parallel loops nested inside become serial):
 *                     for a library the runtime loads, the loop is OUTLINED into a static
 *                     function over a range of iterations, with the variables in scope
 *                     captured in a struct, and run on the runtime's thread pool
 *                     (rlx_nn_parallel: one pool for generated and built-in kernels, work
 *                     items claimed dynamically, no barrier for threads that never
 *                     started); standalone code (Model Library Format) keeps
 *                     `#pragma omp parallel for schedule(static)`
 *   For VECTORIZED  → a serial loop (left over by the vectorizer), `#pragma GCC ivdep` when
 *                     every store's index depends on the loop var
 *   For UNROLLED    → `#pragma GCC unroll N` (left over by the unroller)
 *   ALLOCATE local  → LOCAL SCALARIZATION when the size is constant and every access has a
 *                     constant flat index: one C variable per chunk (`rlx_f32x16 C_0, C_16`;
 *                     the chunk is the gcd of the vector accesses' lanes and offsets, a
 *                     scalar access reads or writes one lane `C_16[3]`),
 *                     which GCC keeps in registers -- this is what makes register-tiled
 *                     micro-kernels fast
 *   other ALLOCATE  → 64-byte aligned stack array when constant and <= 64 KiB, else a
 *                     block from rlx_alloc freed (rlx_free) at the end of the scope: for a
 *                     loaded library the runtime's per-thread stack of blocks kept across
 *                     calls (rlx_kernel_alloc), standalone the heap (out of memory sets a
 *                     flag that makes the kernel return -1)
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "codegen_c_internal.h"

#define P(s) rlx_strbuf_append(g->out, (s))
#define PF(...) rlx_strbuf_printf(g->out, __VA_ARGS__)

enum { STACK_ALLOC_MAX_BYTES = 65536, SCALARIZE_MAX_VARS = 256 };

/* ------------------------------------------------------------------ names */
void cg_fail(cg_t* g, rlx_status_code_t code, const char* fmt, ...) {
  if (g->err) return;
  va_list ap;
  va_start(ap, fmt);
  g->err = rlx_status_createv(code, fmt, ap);
  va_end(ap);
}

static const char* const reserved[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
    "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
    "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "asm",
    "typeof", "bool", "true", "false", "main", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt",
    "tanh", "erf", "fabs", "abs", "pow", "floor", "ceil", "round", "nearbyint", "trunc", "sin", "cos", "tan",
    "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "atan2", "fmod", "hypot", "copysign",
    "fmin", "fmax", "isnan", "isinf", "isfinite", "malloc", "free", "aligned_alloc", "memcpy", "snprintf",
    "NAN", "INFINITY", "NULL", "INT64_MIN", "INT32_MIN", "INT64_C", "UINT64_C", "errno", "omp_set_num_threads",
    /* the packed wrapper's own parameters */
    "args", "type_codes", "nargs", "out_ret", "out_ret_code", "resource",
};

static bool name_ok(const char* s) {
  if (strncmp(s, "rlx_", 4) == 0 || strncmp(s, "__", 2) == 0 || strncmp(s, "RLX", 3) == 0) return false;
  size_t n = strlen(s);
  if (n >= 2 && strcmp(s + n - 2, "_t") == 0) return false;
  for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
    if (strcmp(reserved[i], s) == 0) return false;
  return true;
}

const char* cg_fresh_name(cg_t* g, const char* hint) {
  char base[96];
  size_t n = 0;
  for (const char* p = hint && *hint ? hint : "v"; *p && n < 64; p++) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    base[n++] = ok ? c : '_';
  }
  base[n] = 0;
  char pre[112];
  if ((base[0] >= '0' && base[0] <= '9') || !name_ok(base)) snprintf(pre, sizeof(pre), "v_%s", base);
  else snprintf(pre, sizeof(pre), "%s", base);
  char cand[128];
  snprintf(cand, sizeof(cand), "%s", pre);
  for (int k = 1;; k++) {
    bool taken = false;
    for (int i = 0; i < g->used.len && !taken; i++) taken = strcmp(g->used.data[i], cand) == 0;
    if (!taken) break;
    snprintf(cand, sizeof(cand), "%s_%d", pre, k);
  }
  const char* s = rlx_ctx_strdup(g->ctx, cand);
  rlx_vec_push(&g->used, s);
  return s;
}

const char* cg_var_name(cg_t* g, const rlx_var_t* v, bool bind) {
  const char* s = rlx_ptrmap_get(&g->names, v);
  if (s) return s;
  if (!bind) {
    cg_fail(g, RLX_INVALID_ARGUMENT, "%s: variable '%s' is used but not defined (not a parameter, shape variable, loop or let variable)",
            g->fname, v->name);
    return "0";
  }
  s = cg_fresh_name(g, v->name);
  rlx_ptrmap_put(&g->names, v, (void*)s);
  return s;
}

void cg_indent(cg_t* g) { rlx_strbuf_indent(g->out, g->indent * 2); }


void cg_line(cg_t* g, const char* fmt, ...) {
  cg_indent(g);
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char* buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (buf) {
    vsnprintf(buf, (size_t)n + 1, fmt, ap2);
    P(buf);
    free(buf);
  } else {
    rlx_alloc_failed(); /* the line is missing: the source must not be used */
  }
  va_end(ap2);
  P("\n");
}

/* ------------------------------------------------------------------ local scalarization */
typedef struct {
  const rlx_var_t* data;
  int64_t size;
  int64_t chunk; /* gcd of the lanes and offsets of vector accesses so far (0 = none yet) */
  bool ok;
  cg_t* g;
} scal_scan_t;

static int64_t gcd64(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static void scal_access(scal_scan_t* sc, const rlx_tir_buffer_t* b, int n, rlx_expr_t* const* idx) {
  if (b->data != sc->data || !sc->ok) return;
  if (n != 1) {
    sc->ok = false;
    return;
  }
  const rlx_expr_t* e = idx[0];
  int64_t off, stride = 1;
  int lanes = 1;
  if (e->kind == RLX_EXPR_RAMP) {
    const rlx_ramp_t* r = RLX_AS(const rlx_ramp_t, e);
    lanes = r->lanes;
    if (!cg_const_eval(r->base, &off) || !cg_const_eval(r->stride, &stride)) stride = 0;
  } else if (e->dtype.lanes != 1 || !cg_const_eval(e, &off)) {
    stride = 0;
  }
  if (stride != 1 || off < 0 || off + lanes > sc->size) {
    sc->ok = false;
    return;
  }
  /* scalar accesses read or write one lane of a chunk: only vector accesses set the chunk */
  if (lanes > 1) sc->chunk = gcd64(gcd64(sc->chunk, lanes), off);
}

static void scal_expr_node(const rlx_expr_t* e, void* user) {
  scal_scan_t* sc = user;
  if (e->kind == RLX_EXPR_VAR && e == &sc->data->hdr) sc->ok = false;
  if (e->kind == RLX_EXPR_BUFFER_LOAD) {
    const rlx_buffer_load_t* l = RLX_AS(const rlx_buffer_load_t, e);
    scal_access(sc, l->buffer, l->n_indices, l->indices);
  }
}

static void scal_expr(const rlx_expr_t* e, void* user) { rlx_expr_visit(e, scal_expr_node, user); }

static void scal_stmt(const rlx_tir_stmt_t* s, void* user) {
  if (s->kind != RLX_STMT_BUFFER_STORE) return;
  const rlx_tir_store_t* st = RLX_AS(const rlx_tir_store_t, s);
  scal_access(user, st->buffer, st->n_indices, st->indices);
}

/* Chunk size (lanes per variable) when the allocation can become separate variables;
 * 0 when it cannot. */
static int64_t scalarize_chunk(cg_t* g, const rlx_tir_allocate_t* a, int64_t size) {
  const rlx_tir_buffer_t* b = a->buffer;
  if (strcmp(b->scope, "local") != 0 || rlx_dtype_is_bool(b->dtype) || b->dtype.code == RLX_DT_BFLOAT ||
      b->dtype.code == RLX_DT_HANDLE || b->dtype.lanes != 1)
    return 0;
  scal_scan_t sc = {b->data, size, 0, true, g};
  rlx_tir_visitor_t v = {scal_stmt, scal_expr, NULL, &sc};
  rlx_tir_stmt_visit(a->body, &v);
  if (!sc.ok) return 0;
  if (sc.chunk == 0) sc.chunk = 1; /* scalar accesses only (or none) */
  if (sc.chunk <= 0 || size % sc.chunk != 0 || size / sc.chunk > SCALARIZE_MAX_VARS || sc.chunk > 64) return 0;
  return sc.chunk;
}

/* ------------------------------------------------------------------ statements */
static void emit_stmt(cg_t* g, const rlx_tir_stmt_t* s);

static void emit_body(cg_t* g, const rlx_tir_stmt_t* s) {
  g->indent++;
  emit_stmt(g, s);
  g->indent--;
}

typedef struct {
  const rlx_var_t* var;
  bool ok;
} ivdep_scan_t;

static void ivdep_stmt(const rlx_tir_stmt_t* s, void* user) {
  ivdep_scan_t* sc = user;
  if (s->kind != RLX_STMT_BUFFER_STORE) return;
  const rlx_tir_store_t* st = RLX_AS(const rlx_tir_store_t, s);
  bool uses = false;
  for (int i = 0; i < st->n_indices; i++) uses = uses || rlx_expr_uses_var(st->indices[i], sc->var);
  if (!uses) sc->ok = false;
}

static void reads_memory_node(const rlx_expr_t* e, void* user) {
  if (e->kind == RLX_EXPR_BUFFER_LOAD || e->kind == RLX_EXPR_CALL) *(bool*)user = true;
}

/* True when e loads from a buffer or calls an intrinsic. */
static bool reads_memory(const rlx_expr_t* e) {
  bool r = false;
  rlx_expr_visit(e, reads_memory_node, &r);
  return r;
}

static void scope_push(cg_t* g, const char* name, const char* ctype, bool ptr) {
  cg_scope_var_t v = {name, ctype, ptr};
  if (!rlx_vec_push(&g->scope, v)) cg_fail(g, RLX_OUT_OF_MEMORY, "codegen: out of memory");
}

/* Emits parallel loop f (loop var C name `name` of type ty, bounds already computed:
 * `end_name` or the expression end) as an outlined function run by rlx_nn_parallel. */
static void emit_outlined_for(cg_t* g, const rlx_tir_for_t* f, const char* name, const char* ty, const char* end_name,
                              const rlx_expr_t* end) {
  rlx_ctx_t* ctx = g->ctx;
  const char* fn = rlx_ctx_sprintf(ctx, "%s_par%d", g->kernel, g->n_outlined++);
  /* the outlined function, into g->pre */
  rlx_strbuf_t* saved_out = g->out;
  int saved_indent = g->indent;
  rlx_strbuf_t text = {0};
  g->out = &text;
  g->indent = 0;
  cg_line(g, "struct %s_ctx {", fn);
  cg_line(g, "  int64_t rlx_m_lo, rlx_m_ext, rlx_m_items; /* rlx_m_: not a buffer name */");
  cg_line(g, "  int *rlx_m_oom, *rlx_m_fault;");
  for (int i = 0; i < g->scope.len; i++)
    cg_line(g, "  %s %s;", g->scope.data[i].ctype, g->scope.data[i].name);
  cg_line(g, "};");
  cg_line(g, "static void %s(void* rlx_vc, int64_t rlx_it, void* rlx_s) {", fn);
  g->indent = 1;
  cg_line(g, "const struct %s_ctx* rlx_c = (const struct %s_ctx*)rlx_vc;", fn, fn);
  cg_line(g, "(void)rlx_s;");
  for (int i = 0; i < g->scope.len; i++) {
    const cg_scope_var_t* v = &g->scope.data[i];
    if (v->ptr) cg_line(g, "%s restrict %s = rlx_c->%s;", v->ctype, v->name, v->name);
    else cg_line(g, "const %s %s = rlx_c->%s;", v->ctype, v->name, v->name);
  }
  cg_line(g, "int rlx_oom = 0, rlx_fault = 0;");
  cg_line(g, "const int64_t rlx_lo = rlx_c->rlx_m_lo + rlx_it * rlx_c->rlx_m_ext / rlx_c->rlx_m_items;");
  cg_line(g, "const int64_t rlx_hi = rlx_c->rlx_m_lo + (rlx_it + 1) * rlx_c->rlx_m_ext / rlx_c->rlx_m_items;");
  cg_line(g, "for (%s %s = (%s)rlx_lo; %s < (%s)rlx_hi; ++%s) {", ty, name, ty, name, ty, name);
  g->parallel_depth++;
  int mark = g->scope.len;
  scope_push(g, name, ty, false);
  emit_body(g, f->body);
  g->scope.len = mark;
  g->parallel_depth--;
  cg_line(g, "}");
  cg_line(g, "if (rlx_oom) __atomic_store_n(rlx_c->rlx_m_oom, 1, __ATOMIC_RELAXED);");
  cg_line(g, "if (rlx_fault) __atomic_store_n(rlx_c->rlx_m_fault, 1, __ATOMIC_RELAXED);");
  g->indent = 0;
  cg_line(g, "}");
  P("\n");
  rlx_strbuf_append(g->pre, rlx_strbuf_cstr(&text));
  rlx_strbuf_free(&text);
  g->out = saved_out;
  g->indent = saved_indent;
  /* the call */
  cg_line(g, "{");
  g->indent++;
  cg_line(g, "struct %s_ctx rlx_pc;", fn);
  cg_indent(g);
  P("rlx_pc.rlx_m_lo = (int64_t)(");
  cg_expr(g, f->min);
  P(");\n");
  cg_indent(g);
  P("rlx_pc.rlx_m_ext = (int64_t)(");
  if (end_name) P(end_name);
  else cg_expr(g, end);
  P(") - rlx_pc.rlx_m_lo;\n");
  /* one contiguous range per thread, as OpenMP's static schedule: each core's cache keeps
   * the panels of its own range (finer items interleave the threads' iterations, and each
   * core then streams most of the operands: the transformer ran 8-11% slower at two
   * threads). A thread that has not started still never holds the call back: its range
   * goes to whoever finishes first. */
  cg_line(g, "rlx_pc.rlx_m_items = rlx_nn_num_threads();");
  cg_line(g, "if (rlx_pc.rlx_m_items > rlx_pc.rlx_m_ext) rlx_pc.rlx_m_items = rlx_pc.rlx_m_ext;");
  cg_line(g, "rlx_pc.rlx_m_oom = &rlx_oom, rlx_pc.rlx_m_fault = &rlx_fault;");
  for (int i = 0; i < g->scope.len; i++) cg_line(g, "rlx_pc.%s = %s;", g->scope.data[i].name, g->scope.data[i].name);
  cg_line(g, "if (rlx_pc.rlx_m_items > 0 && rlx_nn_parallel(rlx_pc.rlx_m_items, 0, %s, &rlx_pc) != 0) rlx_oom = 1;", fn);
  g->indent--;
  cg_line(g, "}");
}

static void emit_for(cg_t* g, const rlx_tir_for_t* f) {
  const char* name = cg_var_name(g, f->var, true);
  if (cg_nonneg(g, f->min)) rlx_ptrmap_put(&g->nonneg, f->var, (void*)1);
  const char* ty = cg_scalar_ctype(f->var->hdr.dtype);
  /* TIR evaluates the bounds once: hoist them when they read memory */
  rlx_expr_t* end = rlx_ir_add(g->ctx, f->min, f->extent);
  const char* end_name = NULL;
  if (reads_memory(end)) {
    end_name = cg_fresh_name(g, rlx_ctx_sprintf(g->ctx, "%s_end", f->var->name));
    /* in scope for the body only (a parallel loop computes its range from it outside) */
    cg_indent(g);
    PF("{ const %s %s = ", ty, end_name);
    cg_expr(g, end);
    P(";\n");
  }
  bool par = false;
  int64_t ext;
  switch (f->for_kind) {
    case RLX_FOR_PARALLEL:
      if (g->parallel_depth == 0) {
        bool capturable = true;
        for (int i = 0; i < g->scope.len; i++) capturable = capturable && g->scope.data[i].ctype;
        if (g->pool && capturable) {
          emit_outlined_for(g, f, name, ty, end_name, end);
          if (end_name) cg_line(g, "}");
          return;
        }
        cg_line(g, "#pragma omp parallel for schedule(static)");
        par = true;
      }
      break;
    case RLX_FOR_VECTORIZED: {
      ivdep_scan_t sc = {f->var, true};
      rlx_tir_visitor_t v = {ivdep_stmt, NULL, NULL, &sc};
      rlx_tir_stmt_visit(f->body, &v);
      if (sc.ok) cg_line(g, "#pragma GCC ivdep");
      break;
    }
    case RLX_FOR_UNROLLED:
      if (cg_const_eval(f->extent, &ext) && ext > 0) cg_line(g, "#pragma GCC unroll %lld", (long long)(ext < 64 ? ext : 64));
      else cg_line(g, "#pragma GCC unroll 8");
      break;
    case RLX_FOR_SERIAL: break;
  }
  cg_indent(g);
  PF("for (%s %s = ", ty, name);
  cg_expr(g, f->min);
  PF("; %s < ", name);
  if (end_name) P(end_name);
  else cg_expr(g, end);
  PF("; ++%s) {\n", name);
  if (par) g->parallel_depth++;
  int mark = g->scope.len;
  if (end_name) scope_push(g, end_name, ty, false);
  scope_push(g, name, ty, false);
  emit_body(g, f->body);
  g->scope.len = mark;
  if (par) g->parallel_depth--;
  cg_line(g, "}");
  if (end_name) cg_line(g, "}");
}

/* Writes `value` (lanes L) into the chunks of a scalarized buffer. */
static void emit_scalar_buf_store(cg_t* g, const cg_scalar_buf_t* sb, int64_t off, int lanes, const rlx_expr_t* value) {
  if (lanes == sb->chunk) {
    cg_indent(g);
    PF("%s_%lld = ", sb->base, (long long)off);
    cg_expr_lanes(g, value, lanes);
    P(";\n");
    return;
  }
  if (lanes == 1) { /* one lane of a vector variable */
    cg_indent(g);
    PF("%s_%lld[%lld] = ", sb->base, (long long)(off - off % sb->chunk), (long long)(off % sb->chunk));
    cg_expr(g, value);
    P(";\n");
    return;
  }
  int t = g->tmp++;
  cg_indent(g);
  PF("{ %s rlx_t%d = ", cg_value_ctype(g, rlx_dtype_with_lanes(sb->dtype, lanes)), t);
  cg_expr_lanes(g, value, lanes);
  P(";");
  size_t bytes = (size_t)rlx_dtype_bytes(sb->dtype) * (size_t)sb->chunk;
  for (int64_t c = 0; c < lanes; c += sb->chunk)
    PF(" __builtin_memcpy(&%s_%lld, (char*)&rlx_t%d + %zu, %zu);", sb->base, (long long)(off + c), t,
       (size_t)c / (size_t)sb->chunk * bytes, bytes);
  P(" }\n");
}

static void emit_store(cg_t* g, const rlx_tir_store_t* st) {
  const rlx_tir_buffer_t* b = st->buffer;
  rlx_expr_t* idx = cg_flat_index(g, b, st->n_indices, st->indices);
  int L = idx->dtype.lanes > st->value->dtype.lanes ? idx->dtype.lanes : st->value->dtype.lanes;
  cg_scalar_buf_t* sb = rlx_ptrmap_get(&g->scalar, b->data);
  if (sb) {
    int64_t off = 0;
    int lanes = 1;
    if (idx->kind == RLX_EXPR_RAMP) {
      lanes = RLX_AS(rlx_ramp_t, idx)->lanes;
      cg_const_eval(RLX_AS(rlx_ramp_t, idx)->base, &off);
    } else {
      cg_const_eval(idx, &off);
    }
    emit_scalar_buf_store(g, sb, off, lanes, st->value);
    return;
  }
  cg_ptr_t* p = rlx_ptrmap_get(&g->ptrs, b->data);
  if (!p) {
    cg_fail(g, RLX_INVALID_ARGUMENT, "%s: buffer '%s' is neither a parameter nor allocated", g->fname, b->name);
    return;
  }
  rlx_dtype_t et = rlx_dtype_with_lanes(b->dtype, 1);
  const char* ptr = rlx_dtype_eq(p->elem, et) ? p->name
                                                : rlx_ctx_sprintf(g->ctx, "((%s*)%s)", cg_storage_ctype(et), p->name);
  bool is_bool = rlx_dtype_is_bool(et), is_bf = et.code == RLX_DT_BFLOAT;
  const char* conv_open = is_bool ? "(uint8_t)((" : is_bf ? "rlx_f2bf((" : "((";
  const char* conv_close = is_bool ? ") != 0)" : "))";
  cg_indent(g);
  if (L == 1) {
    PF("%s[", ptr);
    cg_expr(g, idx);
    PF("] = %s", conv_open);
    cg_expr(g, st->value);
    PF("%s;\n", conv_close);
    return;
  }
  if (idx->kind == RLX_EXPR_RAMP && !is_bool && !is_bf) {
    const rlx_ramp_t* r = RLX_AS(const rlx_ramp_t, idx);
    int64_t s;
    if (cg_const_eval(r->stride, &s) && s == 1) {
      PF("*(%s*)(%s + ", cg_vec_ctype(g, rlx_dtype_with_lanes(et, L)), ptr);
      cg_expr(g, r->base);
      P(") = ");
      cg_expr_lanes(g, st->value, L);
      P(";\n");
      return;
    }
  }
  /* scatter, lane by lane in lane order (later lanes win, as the serial loop would) */
  int tv = g->tmp++, ti = g->tmp++;
  PF("{ %s rlx_t%d = ", cg_vec_ctype(g, rlx_dtype_with_lanes(st->value->dtype, L)), tv);
  cg_expr_lanes(g, st->value, L);
  if (idx->kind == RLX_EXPR_RAMP && RLX_AS(const rlx_ramp_t, idx)->base->dtype.lanes == 1) {
    /* strided: each lane's index from the scalar base and stride */
    const rlx_ramp_t* r = RLX_AS(const rlx_ramp_t, idx);
    const char* it = cg_scalar_ctype(r->base->dtype);
    PF("; const %s rlx_t%d = ", it, ti);
    cg_expr(g, r->base);
    PF("; const %s rlx_t%d_s = ", it, ti);
    cg_expr(g, r->stride);
    PF("; for (int rlx_l = 0; rlx_l < %d; ++rlx_l) %s[rlx_t%d + rlx_l * rlx_t%d_s] = %srlx_t%d[rlx_l]%s; }\n", L, ptr, ti, ti,
       conv_open, tv, conv_close);
    return;
  }
  PF("; %s rlx_t%d = ", cg_vec_ctype(g, rlx_dtype_with_lanes(idx->dtype, L)), ti);
  cg_expr_lanes(g, idx, L);
  PF("; for (int rlx_l = 0; rlx_l < %d; ++rlx_l) %s[rlx_t%d[rlx_l]] = %srlx_t%d[rlx_l]%s; }\n", L, ptr, ti, conv_open, tv,
     conv_close);
}

/* Emits the checks that multiply the factors of the int64 product e into size_t rlx_nbK:
 * a flattened buffer's one dim is t_d0 * t_d1 * t_d2, which must not be evaluated in
 * int64 (2^40 x 2^40 x 4 wrapped to 0, and the kernel wrote past a 64-byte buffer). */
static void emit_size_factors(cg_t* g, const rlx_expr_t* e, int k) {
  if (e->kind == RLX_EXPR_MUL && e->dtype.lanes == 1) {
    emit_size_factors(g, RLX_AS(const rlx_binary_t, e)->a, k);
    emit_size_factors(g, RLX_AS(const rlx_binary_t, e)->b, k);
    return;
  }
  cg_indent(g);
  PF("{ const int64_t rlx_d = (int64_t)(");
  cg_expr(g, e);
  PF("); rlx_ok%d = rlx_ok%d && rlx_d >= 0 && !__builtin_mul_overflow(rlx_nb%d, (size_t)rlx_d, &rlx_nb%d); }\n", k, k,
     k, k);
}

static void emit_allocate(cg_t* g, const rlx_tir_allocate_t* a) {
  const rlx_tir_buffer_t* b = a->buffer;
  rlx_ctx_t* ctx = g->ctx;
  rlx_expr_t* size = rlx_ir_i64(ctx, 1);
  for (int d = 0; d < b->ndim; d++) size = rlx_ir_mul(ctx, size, rlx_ir_cast(ctx, rlx_dt_int64(), b->shape[d]));
  int64_t n;
  bool is_const = cg_const_eval(size, &n);
  rlx_dtype_t et = rlx_dtype_with_lanes(b->dtype, 1);
  int64_t chunk = is_const ? scalarize_chunk(g, a, n) : 0;
  if (chunk > 0) {
    cg_scalar_buf_t* sb = RLX_NEW(ctx, cg_scalar_buf_t);
    sb->base = cg_fresh_name(g, b->name);
    sb->dtype = et;
    sb->size = n;
    sb->chunk = (int)chunk;
    const char* ty = cg_value_ctype(g, rlx_dtype_with_lanes(et, (int)chunk));
    cg_line(g, "{ /* %s: %lld x %s in registers */", b->name, (long long)(n / chunk), ty);
    g->indent++;
    for (int64_t o = 0; o < n; o += chunk) {
      /* reserve the per-chunk names so later fresh names cannot collide */
      rlx_vec_push(&g->used, rlx_ctx_sprintf(ctx, "%s_%lld", sb->base, (long long)o));
      cg_line(g, "%s %s_%lld = {0};", ty, sb->base, (long long)o);
    }
    rlx_ptrmap_put(&g->scalar, b->data, sb);
    int mark = g->scope.len;
    scope_push(g, sb->base, NULL, false); /* registers: a parallel loop inside stays OpenMP */
    emit_stmt(g, a->body);
    g->scope.len = mark;
    g->indent--;
    cg_line(g, "}");
    return;
  }
  const char* name = cg_fresh_name(g, b->name);
  const char* st = cg_storage_ctype(et);
  cg_ptr_t* p = RLX_NEW(ctx, cg_ptr_t);
  p->name = name;
  p->elem = et;
  rlx_ptrmap_put(&g->ptrs, b->data, p);
  int64_t esize = rlx_dtype_bytes(et);
  if (is_const && n * esize <= STACK_ALLOC_MAX_BYTES) {
    cg_line(g, "{");
    g->indent++;
    cg_line(g, "%s %s[%lld] __attribute__((aligned(64)));", st, name, (long long)(n > 0 ? n : 1));
    int mark = g->scope.len;
    scope_push(g, name, rlx_ctx_sprintf(ctx, "%s*", st), true);
    emit_stmt(g, a->body);
    g->scope.len = mark;
    g->indent--;
    cg_line(g, "}");
    return;
  }
  if (g->kws && g->parallel_depth == 0) { /* from the caller's scratch: no heap */
    rlx_expr_t* bytes = rlx_ir_mul(ctx, size, rlx_ir_i64(ctx, esize));
    cg_indent(g);
    PF("{ %s* %s = (%s*)(void*)(rlx_kws + (", st, name, st);
    cg_expr(g, g->kws_bytes);
    P("));\n");
    rlx_expr_t* al = rlx_ir_i64(ctx, 64);
    g->kws_bytes = rlx_ir_simplify(
        ctx, rlx_ir_add(ctx, g->kws_bytes,
                        rlx_ir_mul(ctx, rlx_ir_floordiv(ctx, rlx_ir_add(ctx, bytes, rlx_ir_i64(ctx, 63)), al), al)));
    g->indent++;
    int mark = g->scope.len;
    scope_push(g, name, rlx_ctx_sprintf(ctx, "%s*", st), true);
    emit_body(g, a->body);
    g->scope.len = mark;
    g->indent--;
    cg_line(g, "}");
    return;
  }
  /* the byte size from the dims with overflow checks: a symbolic shape bound at run time
   * (ConstantOfShape of 2^40 x 2^40 x 4) must not wrap into a small buffer */
  int nb = g->tmp++;
  cg_line(g, "{ size_t rlx_nb%d = sizeof(%s); int rlx_ok%d = 1;", nb, st, nb);
  g->indent++;
  for (int d = 0; d < b->ndim; d++) emit_size_factors(g, b->shape[d], nb);
  cg_line(g, "%s* %s = rlx_ok%d && rlx_nb%d <= (size_t)INT64_MAX ? (%s*)rlx_alloc(rlx_nb%d) : NULL;", st, name, nb, nb,
          st, nb);
  cg_line(g, "if (%s == NULL) {", name);
  cg_line(g, "  __atomic_store_n(&rlx_oom, 1, __ATOMIC_RELAXED);");
  cg_line(g, "} else {");
  int mark = g->scope.len;
  scope_push(g, name, rlx_ctx_sprintf(ctx, "%s*", st), true);
  emit_body(g, a->body);
  g->scope.len = mark;
  cg_line(g, "  rlx_free(%s);", name);
  cg_line(g, "}");
  g->indent--;
  cg_line(g, "}");
}

static void emit_stmt(cg_t* g, const rlx_tir_stmt_t* s) {
  if (!s || g->err) return;
  switch (s->kind) {
    case RLX_STMT_BUFFER_STORE: emit_store(g, RLX_AS(const rlx_tir_store_t, s)); return;
    case RLX_STMT_FOR: emit_for(g, RLX_AS(const rlx_tir_for_t, s)); return;
    case RLX_STMT_SEQ: {
      const rlx_tir_seq_t* q = RLX_AS(const rlx_tir_seq_t, s);
      for (int i = 0; i < q->n; i++) emit_stmt(g, q->stmts[i]);
      return;
    }
    case RLX_STMT_IF: {
      const rlx_tir_if_t* c = RLX_AS(const rlx_tir_if_t, s);
      cg_indent(g);
      P("if (");
      cg_expr(g, c->cond);
      P(") {\n");
      emit_body(g, c->then_case);
      if (c->else_case) {
        cg_line(g, "} else {");
        emit_body(g, c->else_case);
      }
      cg_line(g, "}");
      return;
    }
    case RLX_STMT_LET: {
      const rlx_tir_let_t* l = RLX_AS(const rlx_tir_let_t, s);
      const char* ty = cg_value_ctype(g, l->value->dtype);
      cg_line(g, "{");
      g->indent++;
      cg_indent(g);
      const char* name = cg_var_name(g, l->var, true);
      if (rlx_dtype_is_int(l->var->hdr.dtype) && cg_nonneg(g, l->value)) rlx_ptrmap_put(&g->nonneg, l->var, (void*)1);
      if (cg_reads_data(g, l->value)) rlx_ptrmap_put(&g->data_vars, l->var, (void*)1);
      PF("const %s %s = ", ty, name);
      cg_expr(g, l->value);
      P(";\n");
      int mark = g->scope.len;
      scope_push(g, name, ty, false);
      emit_stmt(g, l->body);
      g->scope.len = mark;
      g->indent--;
      cg_line(g, "}");
      return;
    }
    case RLX_STMT_EVALUATE:
      cg_indent(g);
      P("(void)(");
      cg_expr(g, RLX_AS(const rlx_tir_evaluate_t, s)->value);
      P(");\n");
      return;
    case RLX_STMT_BLOCK_REALIZE:
      cg_fail(g, RLX_INVALID_ARGUMENT, "%s: block '%s' reached codegen (lower the function with rlx_tir_lower first)",
              g->fname, RLX_AS(const rlx_tir_block_realize_t, s)->block->name);
      return;
    case RLX_STMT_ALLOCATE: emit_allocate(g, RLX_AS(const rlx_tir_allocate_t, s)); return;
    case RLX_STMT_KIND_COUNT: break;
  }
  cg_fail(g, RLX_INTERNAL, "%s: unknown statement kind", g->fname);
}

/* ------------------------------------------------------------------ functions */
static const char* c_ident(rlx_ctx_t* ctx, const char* name) {
  char* s = (char*)rlx_ctx_strdup(ctx, name);
  for (char* p = s; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) *p = '_';
  return s;
}

const char* rlx_codegen_symbol(rlx_ctx_t* ctx, const char* name) {
  return rlx_ctx_sprintf(ctx, "rlx_fn_%s", c_ident(ctx, name));
}

const char* rlx_codegen_kernel_name(rlx_ctx_t* ctx, const rlx_codegen_c_options_t* opts, const char* name) {
  const char* prefix = opts && opts->kernel_prefix ? opts->kernel_prefix : "rlx_kernel_";
  return rlx_ctx_sprintf(ctx, "%s%s", prefix, c_ident(ctx, name));
}

int rlx_codegen_kernel_vars(const rlx_tir_func_t* f, rlx_var_t** out, int max) { return cg_shape_vars(f, out, max); }

static void emit_func(cg_t* g, const rlx_tir_func_t* f, const rlx_codegen_c_options_t* opts) {
  rlx_ctx_t* ctx = g->ctx;
  const char* kernel = rlx_codegen_kernel_name(ctx, opts, f->name);
  rlx_strbuf_t sig = {0};
  for (int i = 0; i < f->n_params; i++) {
    const rlx_tir_buffer_t* b = f->buffer_map[i];
    if (i) rlx_strbuf_append(&sig, ", ");
    if (b) {
      cg_ptr_t* p = RLX_NEW(ctx, cg_ptr_t);
      p->name = cg_fresh_name(g, b->name);
      p->elem = rlx_dtype_with_lanes(b->dtype, 1);
      rlx_ptrmap_put(&g->ptrs, b->data, p);
      rlx_ptrmap_put(&g->ptrs, f->params[i], p);
      rlx_ptrmap_put(&g->names, f->params[i], (void*)p->name);
      rlx_strbuf_printf(&sig, "%s* restrict %s", cg_storage_ctype(p->elem), p->name);
      scope_push(g, p->name, rlx_ctx_sprintf(ctx, "%s*", cg_storage_ctype(p->elem)), true);
    } else {
      const char* name = cg_var_name(g, f->params[i], true);
      rlx_strbuf_printf(&sig, "%s %s", cg_scalar_ctype(f->params[i]->hdr.dtype), name);
      scope_push(g, name, cg_scalar_ctype(f->params[i]->hdr.dtype), false);
    }
  }
  rlx_var_t* sv[256];
  int nsv = cg_shape_vars(f, sv, 256);
  if (nsv > 256) {
    cg_fail(g, RLX_UNSUPPORTED, "%s: too many shape variables", g->fname);
    nsv = 256;
  }
  for (int i = 0; i < nsv; i++) {
    const char* name = cg_var_name(g, sv[i], true);
    rlx_ptrmap_put(&g->nonneg, sv[i], (void*)1);
    rlx_strbuf_printf(&sig, "%s%s %s", sig.len ? ", " : "", cg_scalar_ctype(sv[i]->hdr.dtype), name);
    scope_push(g, name, cg_scalar_ctype(sv[i]->hdr.dtype), false);
  }
  if (g->kws) {
    rlx_strbuf_printf(&sig, "%suint8_t* restrict rlx_kws", sig.len ? ", " : "");
    scope_push(g, "rlx_kws", "uint8_t*", true);
  }
  bool exported = opts && opts->kernel_prefix;
  /* the kernel goes to a buffer of its own: the parallel loops outlined while emitting it
   * (g->pre) must come first in the file */
  rlx_strbuf_t* file = g->out;
  rlx_strbuf_t kbody = {0}, pre = {0};
  g->out = &kbody;
  g->pre = &pre;
  g->kernel = kernel;
  cg_line(g, "%s %s(%s) {", exported ? "int" : "static int", kernel, sig.len ? rlx_strbuf_cstr(&sig) : "void");
  rlx_strbuf_free(&sig);
  g->indent++;
  cg_line(g, "int rlx_oom = 0, rlx_fault = 0;");
  emit_stmt(g, f->body);
  cg_line(g, "if (rlx_oom) {");
  cg_line(g, "  RLXAPISetLastError(\"%s: out of memory allocating a temporary buffer\");", c_ident(ctx, f->name));
  cg_line(g, "  return -1;");
  cg_line(g, "}");
  cg_line(g, "if (rlx_fault) {");
  cg_line(g, "  RLXAPISetLastError(\"%s: integer division by zero\");", c_ident(ctx, f->name));
  cg_line(g, "  return -1;");
  cg_line(g, "}");
  cg_line(g, "return 0;");
  g->indent--;
  cg_line(g, "}");
  P("\n");
  g->out = file;
  if (pre.len) P(rlx_strbuf_cstr(&pre));
  if (kbody.len) P(rlx_strbuf_cstr(&kbody));
  rlx_strbuf_free(&pre);
  rlx_strbuf_free(&kbody);
  g->pre = NULL;
  if (opts && opts->no_wrappers) return;
  cg_emit_wrapper(g, f, kernel, nsv, sv);
  P("\n");
}

static void cg_free(cg_t* g) {
  rlx_ptrmap_free(&g->names);
  rlx_ptrmap_free(&g->ptrs);
  rlx_ptrmap_free(&g->scalar);
  rlx_ptrmap_free(&g->nonneg);
  rlx_ptrmap_free(&g->data_vars);
  rlx_vec_free(&g->used);
  rlx_vec_free(&g->scope);
}

RLX_MUST_USE rlx_status_t* rlx_codegen_c(rlx_ctx_t* ctx, int n, rlx_tir_func_t* const* funcs, char** out_src) {
  return rlx_codegen_c_ex(ctx, n, funcs, NULL, out_src);
}

RLX_MUST_USE rlx_status_t* rlx_codegen_c_ex(rlx_ctx_t* ctx, int n, rlx_tir_func_t* const* funcs,
                                            const rlx_codegen_c_options_t* opts, char** out_src) {
  bool standalone = opts && opts->standalone;
  cg_vtype_vec_t vtypes = {0};
  rlx_strbuf_t body = {0};
  rlx_status_t* err = NULL;
  for (int i = 0; i < n && !err; i++) {
    for (int j = 0; j < i; j++)
      if (strcmp(c_ident(ctx, funcs[i]->name), c_ident(ctx, funcs[j]->name)) == 0)
        err = rlx_status_create(RLX_INVALID_ARGUMENT, "codegen: two functions are both named '%s'", funcs[i]->name);
    if (err) break;
    cg_t g = {0};
    g.ctx = ctx;
    g.fname = funcs[i]->name;
    g.out = &body;
    g.vtypes = &vtypes;
    g.kws = opts && opts->kernel_workspace;
    g.kws_bytes = rlx_ir_i64(ctx, 0);
    g.pool = !standalone;
    if (g.kws && !opts->no_wrappers) err = rlx_status_create(RLX_INVALID_ARGUMENT, "codegen: kernel_workspace needs no_wrappers");
    if (!err) emit_func(&g, funcs[i], opts);
    if (g.kws && opts->out_kernel_workspace) opts->out_kernel_workspace[i] = g.kws_bytes;
    if (!err) err = g.err;
    else rlx_status_free(g.err);
    cg_free(&g);
  }
  if (err) {
    rlx_strbuf_free(&body);
    rlx_vec_free(&vtypes);
    return err;
  }
  rlx_strbuf_t out = {0};
  cg_emit_prelude(&out, standalone, rlx_ctx_target_of(ctx));
  cg_emit_vtypes(&out, vtypes.data, vtypes.len);
  rlx_strbuf_append(&out, "\n");
  rlx_strbuf_append(&out, rlx_strbuf_cstr(&body));
  if (opts && opts->append) rlx_strbuf_append(&out, opts->append);
  if (!standalone)
    rlx_strbuf_append(&out,
                    "RLX_EXPORT void __rlx_set_num_threads(int n) {\n"
                    "#ifdef _OPENMP\n"
                    "  omp_set_num_threads(n > 0 ? n : 1);\n"
                    "#else\n"
                    "  (void)n;\n"
                    "#endif\n"
                    "}\n");
  rlx_strbuf_free(&body);
  rlx_vec_free(&vtypes);
  *out_src = rlx_strbuf_take(&out);
  return *out_src ? NULL : rlx_status_create(RLX_OUT_OF_MEMORY, "codegen: out of memory");
}
