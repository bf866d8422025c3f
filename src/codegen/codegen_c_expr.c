/* C code generation for expressions.
 *
 * Scalars become plain C expressions. Vectors (lanes > 1) use GCC vector extensions:
 * `typedef float rlx_f32x16 __attribute__((vector_size(64), aligned(4)))` per used
 * (element type, lanes); arithmetic maps to the vector operators, a contiguous load or store
 * (index Ramp(b, 1, L)) goes through the unaligned vector type, and everything else
 * (gathers, selects on non-32-bit lanes, intrinsics, floor division) is computed lane by
 * lane inside a GNU statement expression, which GCC still vectorizes in most cases.
 * Boolean vectors are masks with int32 lanes (-1 true, 0 false), as GCC comparisons give.
 * Float32 vector math (exp, log, tanh, erf, sigmoid, ...) goes through RLX_MVn, glibc's libmvec
 * variant of the target's ISA (n = 16 AVX-512, 8 AVX2, 4 SSE; the prelude declares them).
 *
 * The dispatch switch (cg_expr) lists every kind; the small classification helpers
 * (cg_const_eval, cg_nonneg, c_op) switch over a few kinds and use `default` on purpose:
 * everything else simply is "not constant" / "not known non-negative".
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "codegen_c_internal.h"

#define P(s) rlx_strbuf_append(g->out, (s))
#define PF(...) rlx_strbuf_printf(g->out, __VA_ARGS__)

/* ------------------------------------------------------------------ types */
static bool is_bf16(rlx_dtype_t t) { return t.code == RLX_DT_BFLOAT; }

const char* cg_scalar_ctype(rlx_dtype_t t) {
  if (rlx_dtype_is_bool(t)) return "int32_t";
  switch (t.code) {
    case RLX_DT_INT:
      return t.bits == 8 ? "int8_t" : t.bits == 16 ? "int16_t" : t.bits == 32 ? "int32_t" : "int64_t";
    case RLX_DT_UINT:
      return t.bits == 8 ? "uint8_t" : t.bits == 16 ? "uint16_t" : t.bits == 32 ? "uint32_t" : "uint64_t";
    case RLX_DT_FLOAT: return t.bits == 16 ? "_Float16" : t.bits == 64 ? "double" : "float";
    case RLX_DT_BFLOAT: return "float"; /* computed in float, stored as 16 bits */
    case RLX_DT_HANDLE: return "void*";
    default: return "int64_t";
  }
}

const char* cg_storage_ctype(rlx_dtype_t t) {
  if (rlx_dtype_is_bool(t)) return "uint8_t";
  if (is_bf16(t)) return "uint16_t";
  return cg_scalar_ctype(rlx_dtype_with_lanes(t, 1));
}

/* Short tag of an element type: f32, i64, u8 ... (bool masks are i32, bf16 values f32). */
static const char* elem_tag(rlx_dtype_t t) {
  if (rlx_dtype_is_bool(t)) return "i32";
  switch (t.code) {
    case RLX_DT_INT: return t.bits == 8 ? "i8" : t.bits == 16 ? "i16" : t.bits == 32 ? "i32" : "i64";
    case RLX_DT_UINT: return t.bits == 8 ? "u8" : t.bits == 16 ? "u16" : t.bits == 32 ? "u32" : "u64";
    case RLX_DT_FLOAT: return t.bits == 16 ? "f16" : t.bits == 64 ? "f64" : "f32";
    case RLX_DT_BFLOAT: return "f32";
    default: return "i64";
  }
}

/* Element dtype of the C vector that holds values of dtype t. */
static rlx_dtype_t vec_elem(rlx_dtype_t t) {
  if (rlx_dtype_is_bool(t)) return rlx_dt_int32();
  if (is_bf16(t)) return rlx_dt_float32();
  return rlx_dtype_with_lanes(t, 1);
}

const char* cg_vec_ctype(cg_t* g, rlx_dtype_t t) {
  rlx_dtype_t e = vec_elem(t);
  int lanes = t.lanes;
  if (lanes & (lanes - 1)) cg_fail(g, RLX_UNSUPPORTED, "%s: vectors of %d lanes are not supported (powers of two only)", g->fname, lanes);
  bool found = false;
  for (int i = 0; i < g->vtypes->len; i++)
    if (rlx_dtype_eq(g->vtypes->data[i].elem, e) && g->vtypes->data[i].lanes == lanes) found = true;
  if (!found) {
    cg_vtype_t v = {e, lanes};
    rlx_vec_push(g->vtypes, v);
  }
  return rlx_ctx_sprintf(g->ctx, "rlx_%sx%d", elem_tag(e), lanes);
}

const char* cg_value_ctype(cg_t* g, rlx_dtype_t t) {
  return t.lanes > 1 ? cg_vec_ctype(g, t) : cg_scalar_ctype(t);
}

/* ------------------------------------------------------------------ analysis helpers */
bool cg_const_eval(const rlx_expr_t* e, int64_t* out) {
  int64_t a, b;
  switch (e->kind) {
    case RLX_EXPR_INT_IMM: *out = RLX_AS(const rlx_int_imm_t, e)->value; return true;
    case RLX_EXPR_CAST:
      if (!rlx_dtype_is_int(e->dtype) || e->dtype.lanes != 1) return false;
      return cg_const_eval(RLX_AS(const rlx_cast_t, e)->value, out);
    case RLX_EXPR_ADD:
    case RLX_EXPR_SUB:
    case RLX_EXPR_MUL:
    case RLX_EXPR_DIV:
    case RLX_EXPR_MOD:
    case RLX_EXPR_FLOOR_DIV:
    case RLX_EXPR_FLOOR_MOD:
    case RLX_EXPR_MIN:
    case RLX_EXPR_MAX: {
      const rlx_binary_t* bn = RLX_AS(const rlx_binary_t, e);
      if (e->dtype.lanes != 1 || !cg_const_eval(bn->a, &a) || !cg_const_eval(bn->b, &b)) return false;
      switch (e->kind) {
        case RLX_EXPR_ADD: *out = a + b; return true;
        case RLX_EXPR_SUB: *out = a - b; return true;
        case RLX_EXPR_MUL: *out = a * b; return true;
        case RLX_EXPR_MIN: *out = a < b ? a : b; return true;
        case RLX_EXPR_MAX: *out = a > b ? a : b; return true;
        default: break;
      }
      if (b == 0) return false;
      int64_t q = a / b, r = a % b;
      if ((e->kind == RLX_EXPR_FLOOR_DIV || e->kind == RLX_EXPR_FLOOR_MOD) && r != 0 && ((r < 0) != (b < 0))) {
        q--;
        r += b;
      }
      *out = (e->kind == RLX_EXPR_DIV || e->kind == RLX_EXPR_FLOOR_DIV) ? q : r;
      return true;
    }
    default: return false;
  }
}

bool cg_nonneg(cg_t* g, const rlx_expr_t* e) {
  if (e->dtype.code == RLX_DT_UINT) return true;
  switch (e->kind) {
    case RLX_EXPR_INT_IMM: return RLX_AS(const rlx_int_imm_t, e)->value >= 0;
    case RLX_EXPR_VAR: return rlx_ptrmap_has(&g->nonneg, e);
    case RLX_EXPR_CAST:
      return rlx_dtype_is_int(e->dtype) && rlx_dtype_is_int(RLX_AS(const rlx_cast_t, e)->value->dtype) &&
             e->dtype.bits >= RLX_AS(const rlx_cast_t, e)->value->dtype.bits &&
             cg_nonneg(g, RLX_AS(const rlx_cast_t, e)->value);
    case RLX_EXPR_ADD:
    case RLX_EXPR_MUL:
    case RLX_EXPR_DIV:
    case RLX_EXPR_MOD:
    case RLX_EXPR_FLOOR_DIV:
    case RLX_EXPR_FLOOR_MOD:
    case RLX_EXPR_MIN:
      return cg_nonneg(g, RLX_AS(const rlx_binary_t, e)->a) && cg_nonneg(g, RLX_AS(const rlx_binary_t, e)->b);
    case RLX_EXPR_MAX:
      return cg_nonneg(g, RLX_AS(const rlx_binary_t, e)->a) || cg_nonneg(g, RLX_AS(const rlx_binary_t, e)->b);
    case RLX_EXPR_RAMP:
      return cg_nonneg(g, RLX_AS(const rlx_ramp_t, e)->base) && cg_nonneg(g, RLX_AS(const rlx_ramp_t, e)->stride);
    case RLX_EXPR_BROADCAST: return cg_nonneg(g, RLX_AS(const rlx_broadcast_t, e)->value);
    default: return false;
  }
}

rlx_expr_t* cg_flat_index(cg_t* g, const rlx_tir_buffer_t* b, int n, rlx_expr_t* const* idx) {
  rlx_ctx_t* ctx = g->ctx;
  rlx_expr_t* flat = NULL;
  if (n == 1 && !b->strides) {
    flat = idx[0];
  } else if (b->strides) {
    for (int d = 0; d < n; d++) {
      rlx_expr_t* term = rlx_ir_mul(ctx, idx[d], b->strides[d]);
      flat = flat ? rlx_ir_add(ctx, flat, term) : term;
    }
  } else {
    for (int d = 0; d < n; d++) flat = flat ? rlx_ir_add(ctx, rlx_ir_mul(ctx, flat, b->shape[d]), idx[d]) : idx[d];
  }
  if (!flat) flat = rlx_ir_i64(ctx, 0);
  if (b->elem_offset) flat = rlx_ir_add(ctx, flat, b->elem_offset);
  return flat;
}

/* ------------------------------------------------------------------ literals */
static void emit_int(cg_t* g, rlx_dtype_t t, int64_t v) {
  if (rlx_dtype_is_bool(t)) {
    P(v ? "1" : "0");
  } else if (t.code == RLX_DT_UINT) {
    PF("((%s)UINT64_C(%llu))", cg_scalar_ctype(t), (unsigned long long)v);
  } else if (t.code == RLX_DT_INT && t.bits == 64) {
    if (v == INT64_MIN) P("INT64_MIN");
    else PF("INT64_C(%lld)", (long long)v);
  } else if (rlx_dtype_is_float(t)) {
    PF("((%s)%lld)", cg_scalar_ctype(t), (long long)v);
  } else if (t.code == RLX_DT_INT && t.bits == 32) {
    if (v == INT32_MIN) P("INT32_MIN");
    else PF("%lld", (long long)v);
  } else {
    PF("((%s)%lld)", cg_scalar_ctype(t), (long long)v);
  }
}

static void emit_float(cg_t* g, rlx_dtype_t t, double v) {
  const char* ct = cg_scalar_ctype(t);
  if (isnan(v)) {
    PF("((%s)NAN)", ct);
    return;
  }
  if (isinf(v)) {
    PF("(%s(%s)INFINITY)", v < 0 ? "-" : "", ct);
    return;
  }
  char buf[64];
  bool single = t.bits != 64;
  snprintf(buf, sizeof(buf), single ? "%.9g" : "%.17g", v);
  if (!strpbrk(buf, ".eE")) strcat(buf, ".0");
  if (t.bits == 64) PF("%s", buf);
  else if (t.bits == 16 && !is_bf16(t)) PF("((_Float16)%sf)", buf);
  else PF("%sf", buf);
}

/* ------------------------------------------------------------------ lane-wise helper */
/* Emits a statement expression computing a vector of dtype rt lane by lane. tmpl is the
 * scalar C expression of one lane, where %0..%9 name the operands: a vector operand
 * becomes `t[rlx_l]`, a scalar one `t`. A bool result is turned into a mask. */
static void lanewise(cg_t* g, rlx_dtype_t rt, const char* tmpl, int n, const rlx_expr_t* const* ops) {
  int ids[10];
  P("({ ");
  for (int i = 0; i < n && i < 10; i++) {
    ids[i] = g->tmp++;
    PF("%s rlx_t%d = ", cg_value_ctype(g, ops[i]->dtype), ids[i]);
    cg_expr(g, ops[i]);
    P("; ");
  }
  int r = g->tmp++;
  PF("%s rlx_t%d; for (int rlx_l = 0; rlx_l < %d; ++rlx_l) rlx_t%d[rlx_l] = ", cg_vec_ctype(g, rt), r, rt.lanes, r);
  if (rlx_dtype_is_bool(rt)) P("-(int32_t)(");
  else PF("(%s)(", cg_scalar_ctype(rlx_dtype_with_lanes(rt, 1)));
  for (const char* p = tmpl; *p; p++) {
    if (*p == '%' && p[1] >= '0' && p[1] <= '9') {
      int k = p[1] - '0';
      p++;
      if (k >= n) continue;
      if (ops[k]->dtype.lanes > 1) PF("rlx_t%d[rlx_l]", ids[k]);
      else PF("rlx_t%d", ids[k]);
    } else {
      rlx_strbuf_appendn(g->out, p, 1);
    }
  }
  PF("); rlx_t%d; })", r);
}

void cg_expr_lanes(cg_t* g, const rlx_expr_t* e, int lanes) {
  if (lanes <= 1 || e->dtype.lanes == lanes) {
    cg_expr(g, e);
    return;
  }
  rlx_dtype_t vt = rlx_dtype_with_lanes(e->dtype, lanes);
  PF("rlx_bcast_%s(", cg_vec_ctype(g, vt) + 4);
  if (rlx_dtype_is_bool(e->dtype)) {
    P("-(int32_t)(");
    cg_expr(g, e);
    P(")");
  } else {
    cg_expr(g, e);
  }
  P(")");
}

/* ------------------------------------------------------------------ loads */
/* C expression of the data pointer of b, typed as b's storage. */
static void emit_ptr(cg_t* g, const rlx_tir_buffer_t* b) {
  cg_ptr_t* p = rlx_ptrmap_get(&g->ptrs, b->data);
  if (!p) {
    cg_fail(g, RLX_INVALID_ARGUMENT, "%s: buffer '%s' is neither a parameter nor allocated", g->fname, b->name);
    P("0");
    return;
  }
  rlx_dtype_t want = rlx_dtype_with_lanes(b->dtype, 1);
  if (rlx_dtype_eq(p->elem, want)) P(p->name);
  else PF("((%s*)%s)", cg_storage_ctype(want), p->name);
}

/* Offset and lanes of an access to a scalarized buffer; false when not constant. */
static bool scalar_access(const rlx_expr_t* idx, int64_t* off, int* lanes) {
  if (idx->kind == RLX_EXPR_RAMP) {
    const rlx_ramp_t* r = RLX_AS(const rlx_ramp_t, idx);
    int64_t s;
    if (!cg_const_eval(r->stride, &s) || s != 1 || !cg_const_eval(r->base, off)) return false;
    *lanes = r->lanes;
    return true;
  }
  *lanes = 1;
  return idx->dtype.lanes == 1 && cg_const_eval(idx, off);
}

static void emit_scalar_buf_load(cg_t* g, const cg_scalar_buf_t* sb, const rlx_expr_t* idx, rlx_dtype_t t) {
  int64_t off;
  int lanes;
  if (!scalar_access(idx, &off, &lanes)) {
    cg_fail(g, RLX_INTERNAL, "%s: non-constant access to scalarized buffer %s", g->fname, sb->base);
    P("0");
    return;
  }
  if (lanes == sb->chunk) {
    PF("%s_%lld", sb->base, (long long)off);
    return;
  }
  if (lanes == 1) { /* one lane of a vector variable */
    PF("%s_%lld[%lld]", sb->base, (long long)(off - off % sb->chunk), (long long)(off % sb->chunk));
    return;
  }
  int r = g->tmp++;
  PF("({ %s rlx_t%d; ", cg_value_ctype(g, t), r);
  size_t bytes = (size_t)rlx_dtype_bytes(vec_elem(sb->dtype)) * (size_t)sb->chunk;
  for (int64_t c = 0; c < lanes; c += sb->chunk)
    PF("__builtin_memcpy((char*)&rlx_t%d + %zu, &%s_%lld, %zu); ", r, (size_t)c / (size_t)sb->chunk * bytes, sb->base,
       (long long)(off + c), bytes);
  PF("rlx_t%d; })", r);
}

static void emit_load(cg_t* g, const rlx_buffer_load_t* l) {
  const rlx_tir_buffer_t* b = l->buffer;
  rlx_expr_t* idx = cg_flat_index(g, b, l->n_indices, l->indices);
  cg_scalar_buf_t* sb = rlx_ptrmap_get(&g->scalar, b->data);
  if (sb) {
    emit_scalar_buf_load(g, sb, idx, l->hdr.dtype);
    return;
  }
  rlx_dtype_t t = l->hdr.dtype;
  bool special = rlx_dtype_is_bool(b->dtype) || is_bf16(b->dtype);
  const char* conv_open = rlx_dtype_is_bool(b->dtype) ? "(" : is_bf16(b->dtype) ? "rlx_bf2f(" : "(";
  if (t.lanes == 1) {
    P(conv_open);
    emit_ptr(g, b);
    P("[");
    cg_expr(g, idx);
    P("])");
    return;
  }
  if (idx->kind == RLX_EXPR_RAMP && !special) {
    const rlx_ramp_t* r = RLX_AS(const rlx_ramp_t, idx);
    int64_t s;
    if (cg_const_eval(r->stride, &s) && s == 1) {
      PF("(*(const %s*)(", cg_vec_ctype(g, t));
      emit_ptr(g, b);
      P(" + ");
      cg_expr(g, r->base);
      P("))");
      return;
    }
  }
  /* gather: the pointer is a scalar operand of the lane-wise template */
  rlx_strbuf_t ptr = {0}, tmpl = {0};
  rlx_strbuf_t* saved = g->out;
  g->out = &ptr;
  emit_ptr(g, b);
  g->out = saved;
  const char* ne = rlx_dtype_is_bool(b->dtype) ? " != 0" : "";
  if (idx->kind == RLX_EXPR_RAMP && RLX_AS(const rlx_ramp_t, idx)->base->dtype.lanes == 1) {
    /* strided: index each lane from the scalar base and stride */
    const rlx_ramp_t* r = RLX_AS(const rlx_ramp_t, idx);
    rlx_strbuf_printf(&tmpl, "%s%s[%%0 + rlx_l * %%1])%s", conv_open, rlx_strbuf_cstr(&ptr), ne);
    const rlx_expr_t* ops[2] = {r->base, r->stride};
    lanewise(g, t, rlx_strbuf_cstr(&tmpl), 2, ops);
  } else {
    rlx_strbuf_printf(&tmpl, "%s%s[%%0])%s", conv_open, rlx_strbuf_cstr(&ptr), ne);
    const rlx_expr_t* ops[1] = {idx};
    lanewise(g, t, rlx_strbuf_cstr(&tmpl), 1, ops);
  }
  rlx_strbuf_free(&ptr);
  rlx_strbuf_free(&tmpl);
}

/* ------------------------------------------------------------------ intrinsics */
/* The scalar C template of an intrinsic call of dtype t with argument dtype at; NULL if
 * unknown. Heap string. */
static char* intrin_template(const rlx_call_t* c) {
  rlx_strbuf_t sb = {0};
  rlx_dtype_t t = rlx_dtype_with_lanes(c->hdr.dtype, 1);
  if (strcmp(c->op, "if_then_else") == 0 && c->n_args == 3) {
    rlx_strbuf_append(&sb, "(%0) ? (%1) : (%2)");
    return rlx_strbuf_take(&sb);
  }
  rlx_dtype_t at = c->n_args > 0 ? rlx_dtype_with_lanes(c->args[0]->dtype, 1) : t;
  /* integer bit operations: C's operators */
  static const char* const bitops[][2] = {{"shift_left", "((%0) << (%1))"}, {"shift_right", "((%0) >> (%1))"},
                                          {"bitwise_and", "((%0) & (%1))"}, {"bitwise_or", "((%0) | (%1))"},
                                          {"bitwise_xor", "((%0) ^ (%1))"}, {"bitwise_not", "(~(%0))"}};
  for (size_t i = 0; i < sizeof(bitops) / sizeof(bitops[0]); i++)
    if (strcmp(c->op, bitops[i][0]) == 0 && rlx_dtype_is_int(at)) {
      rlx_strbuf_append(&sb, bitops[i][1]);
      return rlx_strbuf_take(&sb);
    }
  if ((strcmp(c->op, "abs") == 0 || strcmp(c->op, "fabs") == 0) && rlx_dtype_is_int(at) && c->n_args == 1) {
    rlx_strbuf_append(&sb, at.code == RLX_DT_UINT ? "(%0)" : "((%0) < 0 ? -(%0) : (%0))");
    return rlx_strbuf_take(&sb);
  }
  const rlx_intrin_t* in = rlx_intrin_find(c->op);
  if (!in || !in->c_f32 || in->n_args != c->n_args) return NULL;
  bool dbl = at.code == RLX_DT_FLOAT && at.bits == 64;
  const char* fn = dbl ? in->c_f64 : in->c_f32;
  const char* argc = dbl ? "double" : "float";
  rlx_strbuf_printf(&sb, "%s(", fn);
  for (int a = 0; a < c->n_args; a++) rlx_strbuf_printf(&sb, "%s(%s)(%%%d)", a ? ", " : "", argc, a);
  rlx_strbuf_append(&sb, ")");
  return rlx_strbuf_take(&sb);
}

/* Emits f applied to the float32 vector expression arg (lanes a multiple of n), n lanes at a
 * time through RLX_MVn. */
static void emit_mvec(cg_t* g, const char* f, rlx_dtype_t t, const rlx_expr_t* arg, bool negate, int n) {
  const char* vt = cg_vec_ctype(g, t);
  int a = g->tmp++, r = g->tmp++;
  PF("({ %s rlx_t%d = ", vt, a);
  if (negate) P("-");
  cg_expr(g, arg);
  if (t.lanes == n) {
    PF("; rlx_mv%d rlx_x; __builtin_memcpy(&rlx_x, &rlx_t%d, %d); rlx_x = RLX_MV%d(%s, rlx_x); %s rlx_t%d; "
       "__builtin_memcpy(&rlx_t%d, &rlx_x, %d); rlx_t%d; })",
       n, a, 4 * n, n, f, vt, r, r, 4 * n, r);
    return;
  }
  PF("; %s rlx_t%d; for (int rlx_c = 0; rlx_c < %d; ++rlx_c) { rlx_mv%d rlx_x; "
     "__builtin_memcpy(&rlx_x, (char*)&rlx_t%d + %d * rlx_c, %d); rlx_x = RLX_MV%d(%s, rlx_x); "
     "__builtin_memcpy((char*)&rlx_t%d + %d * rlx_c, &rlx_x, %d); } rlx_t%d; })",
     vt, r, t.lanes / n, n, a, 4 * n, 4 * n, n, f, r, 4 * n, 4 * n, r);
}

/* Vector float32 calls that have a library version for the target; false when c has none. */
static bool emit_vector_math(cg_t* g, const rlx_call_t* c) {
  rlx_dtype_t t = c->hdr.dtype;
  int n = cg_mvec_lanes(rlx_ctx_target_of(g->ctx), t.lanes);
  if (t.code != RLX_DT_FLOAT || t.bits != 32 || n == 0 || c->n_args != 1 || !rlx_dtype_eq(c->args[0]->dtype, t))
    return false;
  if (strcmp(c->op, "sigmoid") == 0) { /* 1 / (1 + exp(-x)) */
    const char* vt = cg_vec_ctype(g, t);
    PF("(rlx_bcast_%s(1.0f) / (rlx_bcast_%s(1.0f) + ", vt + 4, vt + 4);
    emit_mvec(g, "expf", t, c->args[0], true, n);
    P("))");
    return true;
  }
  const rlx_intrin_t* in = rlx_intrin_find(c->op);
  if (!in || !in->mvec_f32) return false; /* no libmvec version (the prelude's RLX_MVn) */
  emit_mvec(g, in->mvec_f32, t, c->args[0], false, n);
  return true;
}

/* T.prefetch(T.address_of(B[i]), rw, locality, cache_type): __builtin_prefetch of the element's
 * address (rw and locality constants, as the builtin needs); a buffer held in registers has
 * no address to prefetch. */
static void emit_prefetch(cg_t* g, const rlx_call_t* c) {
  const rlx_call_t* a = c->args[0]->kind == RLX_EXPR_CALL ? RLX_AS(const rlx_call_t, c->args[0]) : NULL;
  int64_t rw, loc;
  if (!a || strcmp(a->op, "address_of") != 0 || a->n_args != 1 || a->args[0]->kind != RLX_EXPR_BUFFER_LOAD ||
      !cg_const_eval(c->args[1], &rw) || !cg_const_eval(c->args[2], &loc) || rw < 0 || rw > 1 || loc < 0 || loc > 3) {
    cg_fail(g, RLX_UNSUPPORTED, "%s: T.prefetch takes T.address_of(B[i]) and constant rw (0-1) and locality (0-3)", g->fname);
    P("0");
    return;
  }
  const rlx_buffer_load_t* l = RLX_AS(const rlx_buffer_load_t, a->args[0]);
  if (rlx_ptrmap_get(&g->scalar, l->buffer->data)) {
    P("0");
    return;
  }
  P("__builtin_prefetch(&");
  emit_ptr(g, l->buffer);
  P("[");
  cg_expr(g, cg_flat_index(g, l->buffer, l->n_indices, l->indices));
  PF("], %d, %d)", (int)rw, (int)loc);
}

static void emit_call(cg_t* g, const rlx_call_t* c) {
  if (strcmp(c->op, "prefetch") == 0 && c->n_args == 4) {
    emit_prefetch(g, c);
    return;
  }
  if (c->hdr.dtype.lanes > 1 && emit_vector_math(g, c)) return;
  char* tmpl = intrin_template(c);
  if (!tmpl) {
    cg_fail(g, RLX_UNSUPPORTED, "%s: intrinsic '%s' with %d arguments is not supported by the C backend", g->fname, c->op,
            c->n_args);
    P("0");
    return;
  }
  if (c->n_args > 10) {
    cg_fail(g, RLX_UNSUPPORTED, "%s: intrinsic '%s' has too many arguments", g->fname, c->op);
    free(tmpl);
    return;
  }
  if (c->hdr.dtype.lanes > 1) {
    lanewise(g, c->hdr.dtype, tmpl, c->n_args, (const rlx_expr_t* const*)c->args);
    free(tmpl);
    return;
  }
  /* scalar: substitute the argument expressions into the template */
  PF("((%s)(", cg_scalar_ctype(c->hdr.dtype));
  for (const char* p = tmpl; *p; p++) {
    if (*p == '%' && p[1] >= '0' && p[1] <= '9') {
      int k = p[1] - '0';
      p++;
      if (k < c->n_args) cg_expr(g, c->args[k]);
    } else {
      rlx_strbuf_appendn(g->out, p, 1);
    }
  }
  P("))");
  free(tmpl);
}

/* ------------------------------------------------------------------ binary */
static const char* c_op(rlx_expr_kind_t k) {
  switch (k) {
    case RLX_EXPR_ADD: return "+";
    case RLX_EXPR_SUB: return "-";
    case RLX_EXPR_MUL: return "*";
    case RLX_EXPR_DIV: return "/";
    case RLX_EXPR_MOD: return "%";
    case RLX_EXPR_EQ: return "==";
    case RLX_EXPR_NE: return "!=";
    case RLX_EXPR_LT: return "<";
    case RLX_EXPR_LE: return "<=";
    case RLX_EXPR_GT: return ">";
    case RLX_EXPR_GE: return ">=";
    case RLX_EXPR_AND: return "&&";
    case RLX_EXPR_OR: return "||";
    default: return "?";
  }
}

static void find_data(const rlx_expr_t* e, void* user) {
  cg_t* g = ((void**)user)[0];
  bool* found = ((void**)user)[1];
  if (e->kind == RLX_EXPR_BUFFER_LOAD || e->kind == RLX_EXPR_CALL ||
      (e->kind == RLX_EXPR_VAR && rlx_ptrmap_has(&g->data_vars, e)))
    *found = true;
}

bool cg_reads_data(cg_t* g, const rlx_expr_t* e) {
  bool found = false;
  void* user[2] = {g, &found};
  rlx_expr_visit(e, find_data, user);
  return found;
}

/* An integer division or modulo whose divisor reads tensor data (see cg_reads_data):
 * through rlx_sdivmod / rlx_udivmod, lane by lane for vectors. */
static bool emit_guarded_divmod(cg_t* g, const rlx_binary_t* b) {
  rlx_dtype_t t = b->hdr.dtype;
  int k;
  switch (b->hdr.kind) {
    case RLX_EXPR_DIV: k = 0; break;
    case RLX_EXPR_MOD: k = 1; break;
    case RLX_EXPR_FLOOR_DIV: k = 2; break;
    case RLX_EXPR_FLOOR_MOD: k = 3; break;
    default: return false;
  }
  if ((t.code != RLX_DT_INT && t.code != RLX_DT_UINT) || rlx_dtype_is_bool(t) || !cg_reads_data(g, b->b)) return false;
  char tmpl[80];
  snprintf(tmpl, sizeof tmpl, "%s(%%0, %%1, %d, &rlx_fault)", t.code == RLX_DT_UINT ? "rlx_udivmod" : "rlx_sdivmod", k);
  const rlx_expr_t* ops[2] = {b->a, b->b};
  if (t.lanes > 1) {
    lanewise(g, t, tmpl, 2, ops);
    return true;
  }
  PF("((%s)%s(", cg_scalar_ctype(t), t.code == RLX_DT_UINT ? "rlx_udivmod" : "rlx_sdivmod");
  cg_expr(g, b->a);
  P(", ");
  cg_expr(g, b->b);
  PF(", %d, &rlx_fault))", k);
  return true;
}

static void emit_binary_scalar(cg_t* g, const rlx_binary_t* b) {
  rlx_dtype_t t = b->a->dtype;
  bool fl = rlx_dtype_is_float(t);
  bool dbl = t.code == RLX_DT_FLOAT && t.bits == 64;
  rlx_expr_kind_t k = b->hdr.kind;
  const char* fn = NULL;
  if (emit_guarded_divmod(g, b)) return;
  switch (k) {
    case RLX_EXPR_MIN: fn = "rlx_min_"; break;
    case RLX_EXPR_MAX: fn = "rlx_max_"; break;
    case RLX_EXPR_MOD:
      if (fl) fn = dbl ? "fmod" : "fmodf";
      break;
    case RLX_EXPR_FLOOR_DIV:
      if (fl) {
        P(dbl ? "floor(" : "floorf(");
        cg_expr(g, b->a);
        P(" / ");
        cg_expr(g, b->b);
        P(")");
        return;
      }
      if (cg_nonneg(g, b->a) && cg_nonneg(g, b->b)) k = RLX_EXPR_DIV;
      else fn = t.code == RLX_DT_UINT ? NULL : "rlx_floordiv_";
      if (!fn) k = RLX_EXPR_DIV;
      break;
    case RLX_EXPR_FLOOR_MOD:
      if (fl) {
        P(dbl ? "rlx_floormod_f64(" : "rlx_floormod_f32(");
        cg_expr(g, b->a);
        P(", ");
        cg_expr(g, b->b);
        P(")");
        return;
      }
      if (cg_nonneg(g, b->a) && cg_nonneg(g, b->b)) k = RLX_EXPR_MOD;
      else fn = t.code == RLX_DT_UINT ? NULL : "rlx_floormod_";
      if (!fn) k = RLX_EXPR_MOD;
      break;
    default: break;
  }
  if (fn) {
    bool tagged = strncmp(fn, "rlx_", 4) == 0;
    if (tagged && (k == RLX_EXPR_FLOOR_DIV || k == RLX_EXPR_FLOOR_MOD)) {
      /* integer floor helpers work on int64 */
      PF("((%s)%si64(", cg_scalar_ctype(b->hdr.dtype), fn);
      cg_expr(g, b->a);
      P(", ");
      cg_expr(g, b->b);
      P("))");
      return;
    }
    if (tagged) PF("%s%s(", fn, elem_tag(t));
    else PF("%s(", fn);
    cg_expr(g, b->a);
    P(", ");
    cg_expr(g, b->b);
    P(")");
    return;
  }
  /* Sub-int arithmetic promotes to int in C; cast back so results wrap like the dtype. */
  bool narrow = rlx_dtype_is_int(t) && t.bits < 32 && k >= RLX_EXPR_ADD && k <= RLX_EXPR_FLOOR_MOD;
  if (narrow) PF("((%s)", cg_scalar_ctype(t));
  P("(");
  cg_expr(g, b->a);
  PF(" %s ", c_op(k));
  cg_expr(g, b->b);
  P(")");
  if (narrow) P(")");
}

static void emit_binary_vector(cg_t* g, const rlx_binary_t* b) {
  int L = b->hdr.dtype.lanes;
  rlx_dtype_t t = rlx_dtype_with_lanes(b->a->dtype.lanes > 1 ? b->a->dtype : b->b->dtype, L);
  bool fl = rlx_dtype_is_float(t);
  rlx_expr_kind_t k = b->hdr.kind;
  const rlx_expr_t* ops[2] = {b->a, b->b};
  if (emit_guarded_divmod(g, b)) return;
  switch (k) {
    case RLX_EXPR_ADD:
    case RLX_EXPR_SUB:
    case RLX_EXPR_MUL:
    case RLX_EXPR_DIV:
      P("(");
      cg_expr_lanes(g, b->a, L);
      PF(" %s ", c_op(k));
      cg_expr_lanes(g, b->b, L);
      P(")");
      return;
    case RLX_EXPR_MOD:
      if (fl) {
        lanewise(g, t, t.bits == 64 ? "fmod(%0, %1)" : "fmodf(%0, %1)", 2, ops);
        return;
      }
      P("(");
      cg_expr_lanes(g, b->a, L);
      P(" % ");
      cg_expr_lanes(g, b->b, L);
      P(")");
      return;
    case RLX_EXPR_FLOOR_DIV:
    case RLX_EXPR_FLOOR_MOD: {
      bool div = k == RLX_EXPR_FLOOR_DIV;
      if (!fl && (t.code == RLX_DT_UINT || (cg_nonneg(g, b->a) && cg_nonneg(g, b->b)))) {
        P("(");
        cg_expr_lanes(g, b->a, L);
        P(div ? " / " : " % ");
        cg_expr_lanes(g, b->b, L);
        P(")");
        return;
      }
      if (fl)
        lanewise(g, t, div ? (t.bits == 64 ? "floor(%0 / %1)" : "floorf(%0 / %1)")
                           : (t.bits == 64 ? "rlx_floormod_f64(%0, %1)" : "rlx_floormod_f32(%0, %1)"),
                 2, ops);
      else lanewise(g, t, div ? "rlx_floordiv_i64(%0, %1)" : "rlx_floormod_i64(%0, %1)", 2, ops);
      return;
    }
    case RLX_EXPR_MIN:
    case RLX_EXPR_MAX: {
      const char* vt = cg_vec_ctype(g, t);
      PF("rlx_v%s_%s(", k == RLX_EXPR_MIN ? "min" : "max", vt + 4);
      cg_expr_lanes(g, b->a, L);
      P(", ");
      cg_expr_lanes(g, b->b, L);
      P(")");
      return;
    }
    case RLX_EXPR_EQ:
    case RLX_EXPR_NE:
    case RLX_EXPR_LT:
    case RLX_EXPR_LE:
    case RLX_EXPR_GT:
    case RLX_EXPR_GE: {
      rlx_dtype_t e = vec_elem(t);
      bool conv = e.bits != 32;
      if (conv) PF("__builtin_convertvector(");
      P("(");
      cg_expr_lanes(g, b->a, L);
      PF(" %s ", c_op(k));
      cg_expr_lanes(g, b->b, L);
      P(")");
      if (conv) PF(", %s)", cg_vec_ctype(g, rlx_dtype_with_lanes(rlx_dt_bool(), L)));
      return;
    }
    case RLX_EXPR_AND:
    case RLX_EXPR_OR:
      P("(");
      cg_expr_lanes(g, b->a, L);
      P(k == RLX_EXPR_AND ? " & " : " | ");
      cg_expr_lanes(g, b->b, L);
      P(")");
      return;
    default: break;
  }
  lanewise(g, t, "%0 / %1", 2, ops);
}

/* ------------------------------------------------------------------ casts, selects */
static void emit_cast(cg_t* g, const rlx_cast_t* c) {
  rlx_dtype_t to = c->hdr.dtype, from = c->value->dtype;
  if (to.lanes == 1) {
    if (rlx_dtype_is_bool(to)) {
      P("((");
      cg_expr(g, c->value);
      P(") != 0)");
    } else if (is_bf16(to)) {
      P("rlx_bf16_round((float)(");
      cg_expr(g, c->value);
      P("))");
    } else {
      PF("((%s)(", cg_scalar_ctype(to));
      cg_expr(g, c->value);
      P("))");
    }
    return;
  }
  if (from.lanes == 1) {
    /* scalar → vector: cast the scalar, then broadcast */
    rlx_cast_t sc = *c;
    sc.hdr.dtype = rlx_dtype_with_lanes(to, 1);
    PF("rlx_bcast_%s(", cg_vec_ctype(g, to) + 4);
    if (rlx_dtype_is_bool(to)) P("-(int32_t)");
    emit_cast(g, &sc);
    P(")");
    return;
  }
  const rlx_expr_t* ops[1] = {c->value};
  if (rlx_dtype_is_bool(to)) {
    lanewise(g, to, "%0 != 0", 1, ops);
    return;
  }
  if (rlx_dtype_is_bool(from)) {
    lanewise(g, to, "%0 != 0", 1, ops);
    return;
  }
  const char* vt_to = cg_vec_ctype(g, to);
  const char* vt_from = cg_vec_ctype(g, from);
  if (strcmp(vt_to, vt_from) == 0) {
    cg_expr(g, c->value);
    return;
  }
  P("__builtin_convertvector(");
  cg_expr(g, c->value);
  PF(", %s)", vt_to);
}

static void emit_select(cg_t* g, const rlx_select_t* s) {
  int L = s->hdr.dtype.lanes;
  if (L == 1 || s->cond->dtype.lanes == 1) {
    P("(");
    cg_expr(g, s->cond);
    P(" ? ");
    cg_expr_lanes(g, s->t, L);
    P(" : ");
    cg_expr_lanes(g, s->f, L);
    P(")");
    return;
  }
  rlx_dtype_t e = vec_elem(s->hdr.dtype);
  if (e.bits == 32) {
    /* bit select on 32-bit lanes: (t & m) | (f & ~m) */
    const char* vt = cg_vec_ctype(g, s->hdr.dtype);
    const char* mt = cg_vec_ctype(g, rlx_dtype_with_lanes(rlx_dt_bool(), L));
    int m = g->tmp++;
    PF("({ %s rlx_t%d = ", mt, m);
    cg_expr(g, s->cond);
    PF("; (%s)(((%s)", vt, mt);
    cg_expr_lanes(g, s->t, L);
    PF(" & rlx_t%d) | ((%s)", m, mt);
    cg_expr_lanes(g, s->f, L);
    PF(" & ~rlx_t%d)); })", m);
    return;
  }
  const rlx_expr_t* ops[3] = {s->cond, s->t, s->f};
  lanewise(g, s->hdr.dtype, "%0 ? %1 : %2", 3, ops);
}

/* ------------------------------------------------------------------ dispatch */
void cg_expr(cg_t* g, const rlx_expr_t* e) {
  int L = e->dtype.lanes;
  switch (e->kind) {
    case RLX_EXPR_INT_IMM:
      if (L > 1) cg_fail(g, RLX_INTERNAL, "%s: vector integer constant", g->fname);
      emit_int(g, e->dtype, RLX_AS(const rlx_int_imm_t, e)->value);
      return;
    case RLX_EXPR_FLOAT_IMM: emit_float(g, e->dtype, RLX_AS(const rlx_float_imm_t, e)->value); return;
    case RLX_EXPR_STRING_IMM: {
      P("\"");
      for (const char* s = RLX_AS(const rlx_string_imm_t, e)->value; *s; s++) {
        if (*s == '"' || *s == '\\') PF("\\%c", *s);
        else if ((unsigned char)*s < 32) PF("\\%03o", (unsigned char)*s);
        else rlx_strbuf_appendn(g->out, s, 1);
      }
      P("\"");
      return;
    }
    case RLX_EXPR_VAR: P(cg_var_name(g, RLX_AS(const rlx_var_t, e), false)); return;
    case RLX_EXPR_ADD:
    case RLX_EXPR_SUB:
    case RLX_EXPR_MUL:
    case RLX_EXPR_DIV:
    case RLX_EXPR_MOD:
    case RLX_EXPR_FLOOR_DIV:
    case RLX_EXPR_FLOOR_MOD:
    case RLX_EXPR_MIN:
    case RLX_EXPR_MAX:
    case RLX_EXPR_EQ:
    case RLX_EXPR_NE:
    case RLX_EXPR_LT:
    case RLX_EXPR_LE:
    case RLX_EXPR_GT:
    case RLX_EXPR_GE:
    case RLX_EXPR_AND:
    case RLX_EXPR_OR:
      if (L > 1) emit_binary_vector(g, RLX_AS(const rlx_binary_t, e));
      else emit_binary_scalar(g, RLX_AS(const rlx_binary_t, e));
      return;
    case RLX_EXPR_NOT:
      P(L > 1 ? "(~" : "(!");
      cg_expr(g, RLX_AS(const rlx_not_t, e)->a);
      P(")");
      return;
    case RLX_EXPR_SELECT: emit_select(g, RLX_AS(const rlx_select_t, e)); return;
    case RLX_EXPR_CAST: emit_cast(g, RLX_AS(const rlx_cast_t, e)); return;
    case RLX_EXPR_LET: {
      const rlx_let_t* l = RLX_AS(const rlx_let_t, e);
      P("({ ");
      const char* ty = cg_value_ctype(g, l->value->dtype);
      const char* name = cg_var_name(g, l->var, true);
      if (cg_reads_data(g, l->value)) rlx_ptrmap_put(&g->data_vars, l->var, (void*)1);
      PF("%s %s = ", ty, name);
      cg_expr(g, l->value);
      P("; ");
      cg_expr(g, l->body);
      P("; })");
      return;
    }
    case RLX_EXPR_BUFFER_LOAD: emit_load(g, RLX_AS(const rlx_buffer_load_t, e)); return;
    case RLX_EXPR_CALL: emit_call(g, RLX_AS(const rlx_call_t, e)); return;
    case RLX_EXPR_REDUCE:
      cg_fail(g, RLX_INVALID_ARGUMENT, "%s: a Reduce expression reached codegen (lower the function first)", g->fname);
      P("0");
      return;
    case RLX_EXPR_RAMP: {
      const rlx_ramp_t* r = RLX_AS(const rlx_ramp_t, e);
      PF("rlx_ramp_%s(", cg_vec_ctype(g, e->dtype) + 4);
      cg_expr(g, r->base);
      P(", ");
      cg_expr(g, r->stride);
      P(")");
      return;
    }
    case RLX_EXPR_BROADCAST: cg_expr_lanes(g, RLX_AS(const rlx_broadcast_t, e)->value, L); return;
    case RLX_EXPR_KIND_COUNT: break;
  }
  cg_fail(g, RLX_INTERNAL, "%s: unknown expression kind", g->fname);
}
