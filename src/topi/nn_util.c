/* Helpers shared by the topi nn files (see nn_internal.h). */
#include <stdarg.h>

#include "nn_internal.h"

const char* nn_dim_str(rlx_ctx_t* ctx, const rlx_expr_t* e) {
  int64_t v;
  if (rlx_expr_is_const_int(e, &v)) return rlx_ctx_sprintf(ctx, "%lld", (long long)v);
  if (e && e->kind == RLX_EXPR_VAR) return RLX_AS(const rlx_var_t, e)->name;
  return "?";
}

const char* nn_shape_str(rlx_ctx_t* ctx, const rlx_te_tensor_t* t) {
  rlx_strbuf_t sb = {0};
  rlx_strbuf_append(&sb, "(");
  for (int d = 0; d < t->buffer->ndim; d++)
    rlx_strbuf_printf(&sb, "%s%s", d ? ", " : "", nn_dim_str(ctx, t->buffer->shape[d]));
  rlx_strbuf_append(&sb, t->buffer->ndim == 1 ? ",)" : ")");
  const char* s = rlx_ctx_strdup(ctx, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return s;
}

RLX_MUST_USE rlx_status_t* nn_fail(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rlx_status_t* st = rlx_status_createv(RLX_INVALID_ARGUMENT, fmt, ap);
  va_end(ap);
  return st;
}

bool nn_is_const(const rlx_expr_t* e, int64_t v) {
  int64_t x;
  return rlx_expr_is_const_int(e, &x) && x == v;
}

rlx_expr_t* nn_i64(rlx_ctx_t* ctx, rlx_expr_t* e) { return rlx_ir_cast(ctx, rlx_dt_int64(), e); }

int nn_norm_axis(int axis, int ndim) {
  if (axis < -ndim || axis >= ndim) return -1;
  return axis < 0 ? axis + ndim : axis;
}

const char* nn_dt(rlx_ctx_t* ctx, rlx_dtype_t t) {
  char buf[32];
  return rlx_ctx_strdup(ctx, rlx_dtype_str(t, buf));
}

/* floor((in + pad - dil * (k - 1) - 1 + extra) / stride) + 1, simplified. */
rlx_expr_t* nn_out_dim(rlx_ctx_t* ctx, rlx_expr_t* in, rlx_expr_t* k, int64_t pad, int64_t dil, int64_t stride,
                       int64_t extra) {
  rlx_dtype_t t = rlx_dt_int64();
  rlx_expr_t* eff = rlx_ir_mul(ctx, rlx_ir_int(ctx, t, dil), rlx_ir_sub(ctx, nn_i64(ctx, k), rlx_ir_i64(ctx, 1)));
  rlx_expr_t* num = rlx_ir_sub(ctx, rlx_ir_add(ctx, nn_i64(ctx, in), rlx_ir_i64(ctx, pad + extra - 1)), eff);
  return rlx_ir_simplify(ctx, rlx_ir_add(ctx, rlx_ir_floordiv(ctx, num, rlx_ir_i64(ctx, stride)), rlx_ir_i64(ctx, 1)));
}
