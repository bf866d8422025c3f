/* Structural equality and hashing of PrimExprs (dtype-aware). Let variables and Reduce axis
 * variables are mapped by their definition; free variables compare by identity; float
 * constants compare exactly, with NaN equal to NaN and -0.0 equal to 0.0. */
#include <stdlib.h>
#include <string.h>

#include "structural_internal.h"

/* ------------------------------------------------------------------ equality */
void rlx_eq_define(rlx_eq_state_t* s, const void* a, const void* b) {
  rlx_ptrmap_put(&s->fwd, a, (void*)b);
  rlx_ptrmap_put(&s->bwd, b, (void*)a);
}

bool rlx_eq_ptr(rlx_eq_state_t* s, const void* a, const void* b) {
  const void* fa = rlx_ptrmap_get(&s->fwd, a);
  if (fa) return fa == b;
  if (rlx_ptrmap_get(&s->bwd, b)) return false;
  if (a == b || s->map_free) {
    rlx_eq_define(s, a, b);
    return true;
  }
  return false;
}

bool rlx_eq_var(rlx_eq_state_t* s, const rlx_var_t* a, const rlx_var_t* b) {
  return rlx_dtype_eq(a->hdr.dtype, b->hdr.dtype) && rlx_eq_ptr(s, a, b);
}

static bool float_eq(double x, double y) {
  if (x != x || y != y) return x != x && y != y;
  return x == y;
}

static bool eq_kids(rlx_eq_state_t* s, const rlx_expr_t* a, const rlx_expr_t* b) {
  rlx_expr_t* ka[8];
  rlx_expr_t* kb[8];
  int na = rlx_expr_children(a, ka, 8), nb = rlx_expr_children(b, kb, 8);
  if (na != nb) return false;
  if (na <= 8) {
    for (int i = 0; i < na; i++)
      if (!rlx_eq_expr(s, ka[i], kb[i])) return false;
    return true;
  }
  rlx_expr_t** xa = malloc(sizeof(*xa) * (size_t)na);
  rlx_expr_t** xb = malloc(sizeof(*xb) * (size_t)nb);
  bool ok = xa && xb;
  if (ok) {
    rlx_expr_children(a, xa, na);
    rlx_expr_children(b, xb, nb);
    for (int i = 0; i < na && ok; i++) ok = rlx_eq_expr(s, xa[i], xb[i]);
  }
  free(xa);
  free(xb);
  return ok;
}

bool rlx_eq_expr(rlx_eq_state_t* s, const rlx_expr_t* a, const rlx_expr_t* b) {
  if (!a || !b) return !a && !b;
  if (a->kind != b->kind || !rlx_dtype_eq(a->dtype, b->dtype)) return false;
  switch (a->kind) {
    case RLX_EXPR_INT_IMM: return RLX_AS(const rlx_int_imm_t, a)->value == RLX_AS(const rlx_int_imm_t, b)->value;
    case RLX_EXPR_FLOAT_IMM:
      return float_eq(RLX_AS(const rlx_float_imm_t, a)->value, RLX_AS(const rlx_float_imm_t, b)->value);
    case RLX_EXPR_STRING_IMM:
      return strcmp(RLX_AS(const rlx_string_imm_t, a)->value, RLX_AS(const rlx_string_imm_t, b)->value) == 0;
    case RLX_EXPR_VAR: return rlx_eq_var(s, RLX_AS(const rlx_var_t, a), RLX_AS(const rlx_var_t, b));
    case RLX_EXPR_LET: {
      const rlx_let_t* x = RLX_AS(const rlx_let_t, a);
      const rlx_let_t* y = RLX_AS(const rlx_let_t, b);
      if (!rlx_dtype_eq(x->var->hdr.dtype, y->var->hdr.dtype) || !rlx_eq_expr(s, x->value, y->value)) return false;
      rlx_eq_define(s, x->var, y->var);
      return rlx_eq_expr(s, x->body, y->body);
    }
    case RLX_EXPR_REDUCE: {
      const rlx_reduce_t* x = RLX_AS(const rlx_reduce_t, a);
      const rlx_reduce_t* y = RLX_AS(const rlx_reduce_t, b);
      if (x->combiner != y->combiner || x->n_axis != y->n_axis) return false;
      for (int i = 0; i < x->n_axis; i++) {
        const rlx_iter_var_view_t* p = (const rlx_iter_var_view_t*)x->axis[i];
        const rlx_iter_var_view_t* q = (const rlx_iter_var_view_t*)y->axis[i];
        if (p->kind != q->kind || !rlx_dtype_eq(p->var->hdr.dtype, q->var->hdr.dtype)) return false;
        if (!rlx_eq_expr(s, p->min, q->min) || !rlx_eq_expr(s, p->extent, q->extent)) return false;
        rlx_eq_define(s, p->var, q->var);
      }
      return rlx_eq_expr(s, x->source, y->source) && rlx_eq_expr(s, x->condition, y->condition) &&
             rlx_eq_expr(s, x->init, y->init);
    }
    case RLX_EXPR_BUFFER_LOAD: {
      const rlx_buffer_load_t* x = RLX_AS(const rlx_buffer_load_t, a);
      const rlx_buffer_load_t* y = RLX_AS(const rlx_buffer_load_t, b);
      if (x->n_indices != y->n_indices) return false;
      if (s->buf_eq ? !s->buf_eq(s, x->buffer, y->buffer) : x->buffer != y->buffer) return false;
      return eq_kids(s, a, b);
    }
    case RLX_EXPR_CALL:
      if (strcmp(RLX_AS(const rlx_call_t, a)->op, RLX_AS(const rlx_call_t, b)->op) != 0) return false;
      return eq_kids(s, a, b);
    case RLX_EXPR_RAMP:
      if (RLX_AS(const rlx_ramp_t, a)->lanes != RLX_AS(const rlx_ramp_t, b)->lanes) return false;
      return eq_kids(s, a, b);
    case RLX_EXPR_BROADCAST:
      if (RLX_AS(const rlx_broadcast_t, a)->lanes != RLX_AS(const rlx_broadcast_t, b)->lanes) return false;
      return eq_kids(s, a, b);
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
    case RLX_EXPR_NOT:
    case RLX_EXPR_SELECT:
    case RLX_EXPR_CAST: return eq_kids(s, a, b);
    case RLX_EXPR_KIND_COUNT: break;
  }
  return false;
}

void rlx_eq_state_free(rlx_eq_state_t* s) {
  rlx_ptrmap_free(&s->fwd);
  rlx_ptrmap_free(&s->bwd);
}

bool rlx_expr_equal(const rlx_expr_t* a, const rlx_expr_t* b) {
  if (a == b) return true;
  rlx_eq_state_t s = {0};
  bool r = rlx_eq_expr(&s, a, b);
  rlx_eq_state_free(&s);
  return r;
}

bool rlx_expr_same_value(const rlx_expr_t* a, const rlx_expr_t* b) {
  int64_t x, y;
  if (rlx_expr_is_const_int(a, &x) && rlx_expr_is_const_int(b, &y)) return x == y;
  return rlx_expr_equal(a, b);
}

/* ------------------------------------------------------------------ hashing */
uint64_t rlx_hash_define(rlx_hash_state_t* s, const void* p) {
  s->next++;
  rlx_ptrmap_put(&s->ids, p, (void*)s->next);
  return rlx_hash_combine(0x5eed, (uint64_t)s->next);
}

uint64_t rlx_hash_ptr(rlx_hash_state_t* s, const void* p) {
  void* id = rlx_ptrmap_get(&s->ids, p);
  if (id) return rlx_hash_combine(0x5eed, (uint64_t)(intptr_t)id);
  if (s->map_free) return rlx_hash_define(s, p);
  return rlx_hash_combine(0xf4ee, (uint64_t)(uintptr_t)p);
}

uint64_t rlx_hash_dtype(rlx_dtype_t t) {
  return ((uint64_t)t.code << 24) ^ ((uint64_t)t.bits << 16) ^ (uint64_t)t.lanes;
}

uint64_t rlx_hash_str(const char* str) { return str ? rlx_hash_bytes(str, strlen(str), 0x57) : 0; }

static uint64_t hash_double(double v) {
  if (v != v) return 0x7ff8;
  if (v == 0) return 0;
  uint64_t u;
  memcpy(&u, &v, sizeof(u));
  return u;
}

static uint64_t hash_kids(rlx_hash_state_t* s, const rlx_expr_t* e, uint64_t h) {
  rlx_expr_t* k[8];
  int n = rlx_expr_children(e, k, 8);
  if (n <= 8) {
    for (int i = 0; i < n; i++) h = rlx_hash_combine(h, rlx_hash_expr_state(s, k[i]));
    return h;
  }
  rlx_expr_t** xs = malloc(sizeof(*xs) * (size_t)n);
  if (!xs) return h;
  rlx_expr_children(e, xs, n);
  for (int i = 0; i < n; i++) h = rlx_hash_combine(h, rlx_hash_expr_state(s, xs[i]));
  free(xs);
  return h;
}

uint64_t rlx_hash_expr_state(rlx_hash_state_t* s, const rlx_expr_t* e) {
  if (!e) return 0x11;
  uint64_t h = rlx_hash_combine((uint64_t)e->kind * 0x100000001b3ull, rlx_hash_dtype(e->dtype));
  switch (e->kind) {
    case RLX_EXPR_INT_IMM: return rlx_hash_combine(h, (uint64_t)RLX_AS(const rlx_int_imm_t, e)->value);
    case RLX_EXPR_FLOAT_IMM: return rlx_hash_combine(h, hash_double(RLX_AS(const rlx_float_imm_t, e)->value));
    case RLX_EXPR_STRING_IMM: return rlx_hash_combine(h, rlx_hash_str(RLX_AS(const rlx_string_imm_t, e)->value));
    case RLX_EXPR_VAR: return rlx_hash_combine(h, rlx_hash_ptr(s, e));
    case RLX_EXPR_LET: {
      const rlx_let_t* x = RLX_AS(const rlx_let_t, e);
      h = rlx_hash_combine(h, rlx_hash_dtype(x->var->hdr.dtype));
      h = rlx_hash_combine(h, rlx_hash_expr_state(s, x->value));
      h = rlx_hash_combine(h, rlx_hash_define(s, x->var));
      return rlx_hash_combine(h, rlx_hash_expr_state(s, x->body));
    }
    case RLX_EXPR_REDUCE: {
      const rlx_reduce_t* x = RLX_AS(const rlx_reduce_t, e);
      h = rlx_hash_combine(h, (uint64_t)x->combiner);
      h = rlx_hash_combine(h, (uint64_t)x->n_axis);
      for (int i = 0; i < x->n_axis; i++) {
        const rlx_iter_var_view_t* p = (const rlx_iter_var_view_t*)x->axis[i];
        h = rlx_hash_combine(h, (uint64_t)p->kind);
        h = rlx_hash_combine(h, rlx_hash_dtype(p->var->hdr.dtype));
        h = rlx_hash_combine(h, rlx_hash_expr_state(s, p->min));
        h = rlx_hash_combine(h, rlx_hash_expr_state(s, p->extent));
        h = rlx_hash_combine(h, rlx_hash_define(s, p->var));
      }
      h = rlx_hash_combine(h, rlx_hash_expr_state(s, x->source));
      h = rlx_hash_combine(h, rlx_hash_expr_state(s, x->init));
      return rlx_hash_combine(h, rlx_hash_expr_state(s, x->condition));
    }
    case RLX_EXPR_BUFFER_LOAD: {
      const rlx_buffer_load_t* x = RLX_AS(const rlx_buffer_load_t, e);
      h = rlx_hash_combine(h, (uint64_t)x->n_indices);
      h = rlx_hash_combine(h, s->buf_hash ? s->buf_hash(s, x->buffer) : (uint64_t)(uintptr_t)x->buffer);
      return hash_kids(s, e, h);
    }
    case RLX_EXPR_CALL: return hash_kids(s, e, rlx_hash_combine(h, rlx_hash_str(RLX_AS(const rlx_call_t, e)->op)));
    case RLX_EXPR_RAMP: return hash_kids(s, e, rlx_hash_combine(h, (uint64_t)RLX_AS(const rlx_ramp_t, e)->lanes));
    case RLX_EXPR_BROADCAST:
      return hash_kids(s, e, rlx_hash_combine(h, (uint64_t)RLX_AS(const rlx_broadcast_t, e)->lanes));
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
    case RLX_EXPR_NOT:
    case RLX_EXPR_SELECT:
    case RLX_EXPR_CAST: return hash_kids(s, e, h);
    case RLX_EXPR_KIND_COUNT: break;
  }
  return h;
}

void rlx_hash_state_free(rlx_hash_state_t* s) { rlx_ptrmap_free(&s->ids); }

uint64_t rlx_expr_hash(const rlx_expr_t* e) {
  rlx_hash_state_t s = {0};
  uint64_t h = rlx_hash_expr_state(&s, e);
  rlx_hash_state_free(&s);
  return h;
}
