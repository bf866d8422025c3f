/* Evaluation of integer expressions under a variable environment (shape binding at run
 * time, constant folding of shapes). */
#include "ir.h"

void rlx_int_env_set(rlx_int_env_t* env, const rlx_var_t* v, int64_t value) {
  uintptr_t slot = (uintptr_t)rlx_ptrmap_get(&env->slots, v);
  if (slot) {
    env->values.data[slot - 1] = value;
    return;
  }
  if (!rlx_vec_push(&env->values, value)) return;
  rlx_ptrmap_put(&env->slots, v, (void*)(uintptr_t)env->values.len);
}

bool rlx_int_env_get(const rlx_int_env_t* env, const rlx_var_t* v, int64_t* out) {
  uintptr_t slot = (uintptr_t)rlx_ptrmap_get(&env->slots, v);
  if (!slot) return false;
  *out = env->values.data[slot - 1];
  return true;
}

void rlx_int_env_free(rlx_int_env_t* env) {
  rlx_ptrmap_free(&env->slots);
  rlx_vec_free(&env->values);
}

static int64_t floordiv64(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

RLX_MUST_USE rlx_status_t* rlx_ir_eval_int(const rlx_expr_t* e, const rlx_int_env_t* env, int64_t* out) {
  int64_t a = 0, b = 0, c = 0;
  switch (e->kind) {
    case RLX_EXPR_INT_IMM: *out = RLX_AS(const rlx_int_imm_t, e)->value; return NULL;
    case RLX_EXPR_VAR: {
      const rlx_var_t* v = RLX_AS(const rlx_var_t, e);
      if (!env || !rlx_int_env_get(env, v, out))
        return rlx_status_create(RLX_INVALID_ARGUMENT, "symbolic variable '%s' has no value", v->name);
      return NULL;
    }
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
    case RLX_EXPR_OR: {
      const rlx_binary_t* bin = RLX_AS(const rlx_binary_t, e);
      RLX_RETURN_IF_ERROR(rlx_ir_eval_int(bin->a, env, &a));
      RLX_RETURN_IF_ERROR(rlx_ir_eval_int(bin->b, env, &b));
      bool divides = e->kind == RLX_EXPR_DIV || e->kind == RLX_EXPR_MOD || e->kind == RLX_EXPR_FLOOR_DIV ||
                     e->kind == RLX_EXPR_FLOOR_MOD;
      if (divides && b == 0) return rlx_status_create(RLX_INVALID_ARGUMENT, "division by zero in a shape expression");
      switch (e->kind) {
        case RLX_EXPR_ADD: *out = a + b; break;
        case RLX_EXPR_SUB: *out = a - b; break;
        case RLX_EXPR_MUL: *out = a * b; break;
        case RLX_EXPR_DIV: *out = a / b; break;
        case RLX_EXPR_MOD: *out = a % b; break;
        case RLX_EXPR_FLOOR_DIV: *out = floordiv64(a, b); break;
        case RLX_EXPR_FLOOR_MOD: *out = a - floordiv64(a, b) * b; break;
        case RLX_EXPR_MIN: *out = a < b ? a : b; break;
        case RLX_EXPR_MAX: *out = a > b ? a : b; break;
        case RLX_EXPR_EQ: *out = a == b; break;
        case RLX_EXPR_NE: *out = a != b; break;
        case RLX_EXPR_LT: *out = a < b; break;
        case RLX_EXPR_LE: *out = a <= b; break;
        case RLX_EXPR_GT: *out = a > b; break;
        case RLX_EXPR_GE: *out = a >= b; break;
        case RLX_EXPR_AND: *out = a && b; break;
        case RLX_EXPR_OR: *out = a || b; break;
        default: break;
      }
      return NULL;
    }
    case RLX_EXPR_NOT:
      RLX_RETURN_IF_ERROR(rlx_ir_eval_int(RLX_AS(const rlx_not_t, e)->a, env, &a));
      *out = !a;
      return NULL;
    case RLX_EXPR_SELECT: {
      const rlx_select_t* s = RLX_AS(const rlx_select_t, e);
      RLX_RETURN_IF_ERROR(rlx_ir_eval_int(s->cond, env, &c));
      return rlx_ir_eval_int(c ? s->t : s->f, env, out);
    }
    case RLX_EXPR_CAST:
      if (!rlx_dtype_is_int(e->dtype) && !rlx_dtype_is_bool(e->dtype)) break;
      return rlx_ir_eval_int(RLX_AS(const rlx_cast_t, e)->value, env, out);
    case RLX_EXPR_FLOAT_IMM:
    case RLX_EXPR_STRING_IMM:
    case RLX_EXPR_LET:
    case RLX_EXPR_BUFFER_LOAD:
    case RLX_EXPR_CALL:
    case RLX_EXPR_REDUCE:
    case RLX_EXPR_RAMP:
    case RLX_EXPR_BROADCAST:
    case RLX_EXPR_KIND_COUNT: break;
  }
  return rlx_status_create(RLX_UNSUPPORTED, "cannot evaluate %s as an integer", rlx_expr_kind_name(e->kind));
}
