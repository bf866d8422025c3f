/* Bad input never crashes the nn ops: every op of the family is called with wrong arities,
 * non-tensor arguments, unknown ranks and shapes, ranks 0 to 5 with small and symbolic dims,
 * and attrs of the wrong kind or out of range. Inference either succeeds or returns an error
 * that names the op; when it succeeds with known shapes, legalization either succeeds (and the
 * PrimFunc is well-formed enough to be found in the module) or returns an error. Run under
 * ASan/UBSan this is the crash test. */
#include "relax/op.h"
#include "test.h"
#include "tir/tir.h"

static unsigned rnd_state = 12345;
static unsigned rnd(unsigned n) {
  rnd_state = rnd_state * 1103515245u + 12345u;
  return (rnd_state >> 8) % n;
}

static bool is_nn_op(const char* name) {
  return strncmp(name, "relax.nn.", 9) == 0 || strcmp(name, "relax.matmul") == 0 || strcmp(name, "relax.linear") == 0;
}

/* An op of our family? (relax.nn.* also holds ops of the basic family: relu, gelu, pad ...) */
static bool ours(const rlx_op_def_t* d) { return d->family == RLX_OP_FAMILY_NN; }

/* The usual number of arguments of an op (to reach deeper checks more often). */
static int usual_arity(const char* name) {
  if (strstr(name, "batch_norm")) return 5;
  if (strstr(name, "norm") || strcmp(name, "relax.linear") == 0) return 3;
  if (strstr(name, "conv") || strcmp(name, "relax.matmul") == 0 || strstr(name, "rms_norm")) return 2;
  return 1;
}

/* A float32 tensor of the given rank with small constant (sometimes symbolic) dims. */
static rlx_sinfo_t* plausible_sinfo(rlx_ctx_t* ctx, int nd, rlx_var_t* sym) {
  rlx_expr_t* dims[6];
  for (int d = 0; d < nd; d++) dims[d] = rnd(8) == 0 ? &sym->hdr : rlx_ir_i64(ctx, 1 + (int64_t)rnd(5));
  return rlx_sinfo_tensor(ctx, nd, dims, rlx_dt_float32());
}

static rlx_sinfo_t* random_sinfo(rlx_ctx_t* ctx, rlx_var_t* sym) {
  switch (rnd(10)) {
    case 0: return rlx_sinfo_shape(ctx, 2, NULL);
    case 1: return rlx_sinfo_object(ctx);
    case 2: return rlx_sinfo_tensor(ctx, -1, NULL, rlx_dt_float32());
    case 3: return rlx_sinfo_tensor(ctx, (int)rnd(6), NULL, rlx_dt_void());
    default: break;
  }
  int nd = (int)rnd(6);
  rlx_expr_t* dims[6];
  for (int d = 0; d < nd; d++) dims[d] = rnd(5) == 0 ? &sym->hdr : rlx_ir_i64(ctx, 1 + (int64_t)rnd(6));
  rlx_dtype_t dt = rnd(8) == 0 ? rlx_dt_int32() : rlx_dt_float32();
  return rlx_sinfo_tensor(ctx, nd, dims, dt);
}

static const char* const keys[] = {"axis", "axes", "strides", "padding", "dilation", "groups", "pool_size",
                                   "output_size", "epsilon", "ceil_mode", "out_dtype", "data_layout", "layout",
                                   "num_groups", "channel_axis", "rate", "output_padding", "kernel_layout"};

static rlx_attrs_t random_attrs(rlx_ctx_t* ctx) {
  rlx_attrs_t a = {0};
  int n = (int)rnd(4);
  for (int i = 0; i < n; i++) {
    const char* k = keys[rnd(sizeof keys / sizeof keys[0])];
    rlx_attr_t v;
    switch (rnd(6)) {
      case 0: v = rlx_attr_int((int64_t)rnd(9) - 4); break;
      case 1: v = rlx_attr_float(rnd(2) ? -1.0 : 0.5); break;
      case 2: v = rlx_attr_str(rnd(2) ? "NHWC" : "void"); break;
      case 3: v = rlx_attr_bool(rnd(2)); break;
      case 4: {
        int m = (int)rnd(7);
        int64_t* vals = RLX_NEW_ARRAY(ctx, int64_t, m);
        for (int j = 0; j < m; j++) vals[j] = (int64_t)rnd(6) - 1;
        v = rlx_attr_ints(m, vals);
        break;
      }
      default: v = rlx_attr_dtype(rnd(2) ? rlx_dt_float32() : rlx_dt_void()); break;
    }
    a = rlx_attrs_set(ctx, a, k, v);
  }
  return a;
}

int main(void) {
  const rlx_op_def_t* const* defs;
  int n_defs;
  rlx_op_list(&defs, &n_defs);
  int n_ops = 0, n_ok = 0, n_err = 0, n_legal = 0;
  for (int i = 0; i < n_defs; i++) {
    const rlx_op_def_t* d = defs[i];
    if (!ours(d)) continue;
    CHECK_MSG(is_nn_op(d->name), "%s is in the nn table", d->name);
    n_ops++;
    for (int trial = 0; trial < 300; trial++) {
      rlx_ctx_t* ctx = rlx_ctx_create();
      rlx_var_t* sym = rlx_ir_var(ctx, "n", rlx_dt_int64());
      bool plausible = rnd(2) == 0;
      int n_args = plausible ? usual_arity(d->name) : (int)rnd(6);
      int rank = 1 + (int)rnd(5);
      rlx_relax_expr_t* args[6];
      for (int a = 0; a < n_args; a++) {
        rlx_sinfo_t* s = plausible ? plausible_sinfo(ctx, a == 0 ? rank : (int)rnd(6), sym) : random_sinfo(ctx, sym);
        args[a] = &rlx_relax_var(ctx, "a", s)->hdr;
      }
      rlx_relax_call_t* call = (rlx_relax_call_t*)rlx_relax_op_call_named(ctx, d->name, n_args, args, random_attrs(ctx));
      rlx_sinfo_t* out = NULL;
      rlx_status_t* st = d->infer(ctx, call, &out);
      if (st) {
        n_err++;
        CHECK_MSG(strstr(rlx_status_message(st), d->name) != NULL, "%s: error without the op's name: %s", d->name,
                  rlx_status_message(st));
        rlx_status_free(st);
      } else {
        n_ok++;
        CHECK_MSG(out != NULL, "%s: inference succeeded without struct info", d->name);
        call->hdr.sinfo = out;
        rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
        rlx_relax_expr_t* r = NULL;
        st = d->legalize ? d->legalize(bb, call, &r) : NULL;
        if (st) rlx_status_free(st);
        else if (r && r != &call->hdr) {
          n_legal++;
          rlx_status_free(rlx_bb_normalize(bb, r));
        }
      }
      rlx_ctx_free(ctx);
    }
  }
  printf("%d ops, %d inferred, %d rejected, %d legalized\n", n_ops, n_ok, n_err, n_legal);
  CHECK(n_ops >= 20 && n_ok > 0 && n_err > 0 && n_legal > 0);
  TEST_MAIN_END();
}
