/* topi basic family used directly: errors for bad input (named op, shapes), output names and
 * tags, topi.add through a BlockBuilder's emit_te (as model builders use it), and the
 * compiled path: PrimFuncs from legalizing one op of every kind are built with
 * rlx_build_module (default schedule, lowering, C, cc) and compared with the TIR interpreter
 * running the same PrimFunc (float32: |err| <= 1e-5 + 1e-5 |ref| — libm vs the interpreter;
 * ints, bools and moved values exact). */
#include "build/build.h"
#include "codegen/codegen.h"
#include "rlx/runtime.h"
#include "test_op_basic_util.h"

static const rlx_dtype_t F32 = {RLX_DT_FLOAT, 32, 1};
static const rlx_dtype_t I32 = {RLX_DT_INT, 32, 1};
static const rlx_dtype_t I64 = {RLX_DT_INT, 64, 1};

#define ARGS(...) ((rlx_relax_expr_t*[]){__VA_ARGS__})

static rlx_te_tensor_t* ph(rlx_ctx_t* ctx, const char* name, int ndim, const int64_t* dims, rlx_dtype_t t) {
  rlx_expr_t* s[8];
  for (int i = 0; i < ndim; i++) s[i] = rlx_ir_i64(ctx, dims[i]);
  return rlx_te_placeholder(ctx, ndim, s, t, name);
}

static void test_topi_errors(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t s23[2] = {2, 3}, s4[1] = {4};
  rlx_te_tensor_t* a = ph(ctx, "a", 2, s23, F32);
  rlx_te_tensor_t* b = ph(ctx, "b", 1, s4, F32);
  rlx_te_tensor_t* ai = ph(ctx, "ai", 2, s23, I32);
  rlx_te_tensor_t* t = NULL;
  CHECK_ERR(rlx_topi_add(ctx, a, b, &t), "topi.add: cannot broadcast (2, 3) and (4,)");
  CHECK_ERR(rlx_topi_binary(ctx, RLX_TOPI_MULTIPLY, a, ai, &t),
            "topi.multiply: operand dtypes differ: float32 and int32");
  CHECK_ERR(rlx_topi_unary(ctx, RLX_TOPI_EXP, ai, &t), "topi.exp: needs a float tensor, got int32");
  const int64_t ax[1] = {2};
  CHECK_ERR(rlx_topi_reduce(ctx, RLX_TOPI_REDUCE_SUM, a, 1, ax, false, &t),
            "topi.sum: axis 2 is out of range for a tensor of rank 2");
  CHECK(t == NULL); /* untouched on error */
  const int64_t perm[2] = {0, 0};
  CHECK_ERR(rlx_topi_transpose(ctx, a, perm, &t), "topi.transpose: axes are not a permutation");
  rlx_expr_t* bad[1] = {rlx_ir_i64(ctx, 7)};
  CHECK_ERR(rlx_topi_reshape(ctx, a, 1, bad, &t), "topi.reshape: cannot reshape (2, 3) (6 elements) to (7,)");
  CHECK_ERR(rlx_topi_take(ctx, a, a, true, 0, "fast", &t), "topi.take: indices must be int32 or int64, got float32");
  const int64_t pw[4] = {0, -1, 0, 0};
  CHECK_ERR(rlx_topi_pad(ctx, a, pw, 0, &t), "topi.pad: negative padding on axis 0");
  CHECK_ERR(rlx_topi_concat(ctx, 2, (rlx_te_tensor_t*[]){a, b}, 0, &t),
            "topi.concat: input 1 has another rank or dtype");
  int n = 0;
  rlx_te_tensor_t** pieces = NULL;
  CHECK_ERR(rlx_topi_split(ctx, a, 0, 0, NULL, 1, &n, &pieces), "split: the number of sections must be positive");
  /* names and tags */
  CHECK_OK(rlx_topi_add(ctx, a, a, &t));
  CHECK(t && strcmp(t->name, "T_add") == 0 && strcmp(t->tag, "broadcast") == 0);
  CHECK(strcmp(t->axis[0]->var->name, "ax0") == 0); /* TVM's C++ topi: ax0, ax1, ... */
  CHECK_OK(rlx_topi_unary(ctx, RLX_TOPI_EXP, a, &t)); /* TVM's topi/math.py: te.compute(lambda *i) */
  CHECK(t && strcmp(t->name, "compute") == 0 && strcmp(t->tag, "elemwise") == 0);
  CHECK(strcmp(t->axis[0]->var->name, "i0") == 0);
  CHECK_OK(rlx_topi_unary(ctx, RLX_TOPI_ERF, a, &t)); /* C++ in TVM */
  CHECK(t && strcmp(t->name, "T_erf") == 0 && strcmp(t->axis[0]->var->name, "ax0") == 0);
  CHECK_OK(rlx_topi_reduce(ctx, RLX_TOPI_REDUCE_MAX, a, 0, NULL, false, &t));
  CHECK(t && strcmp(t->tag, "comm_reduce") == 0 && t->buffer->ndim == 0);
  CHECK_OK(rlx_topi_transpose(ctx, a, NULL, &t));
  CHECK(t && strcmp(t->name, "T_transpose") == 0 && strcmp(t->tag, "injective") == 0);
  rlx_ctx_free(ctx);
}

static rlx_status_t* te_add_cb(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user, rlx_te_tensor_t** out) {
  (void)user;
  return rlx_topi_add(ctx, in[0], in[1], out);
}

/* bb.emit_te(topi.add, x, y) with x: (n, 4), y: (4,). */
static void test_emit_te_add(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_expr_t* n = symv(ctx, "n");
  int64_t s4[1] = {4};
  rlx_relax_var_t* x = tvar_sym(ctx, "x", 2, (rlx_expr_t*[]){n, c64(ctx, 4)}, F32);
  rlx_relax_var_t* y = tvar(ctx, "y", 1, s4, F32);
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  rlx_status_t* st = NULL;
  rlx_relax_var_t* lv = NULL;
  CHECK_OK(rlx_bb_function_begin(bb, "main", 2, (rlx_relax_var_t*[]){x, y}));
  st = rlx_bb_emit_te(bb, te_add_cb, NULL, 2, ARGS(&x->hdr, &y->hdr), "add", NULL, &lv);
  CHECK_OK(st);
  if (lv) {
    CHECK_OK(rlx_bb_emit_func_output(bb, &lv->hdr, -1, NULL));
    CHECK_OK(rlx_bb_function_end(bb, NULL));
    CHECK_STREQ(rlx_sinfo_str(ctx, lv->hdr.sinfo), "R.Tensor((n, 4), dtype=\"float32\")");
    CHECK_OK(rlx_relax_well_formed(ctx, rlx_bb_get(bb)));
  }
  CHECK(st == NULL);
  rlx_ctx_free(ctx);
}

/* ------------------------------------------------------------------ compiled path */
typedef struct {
  const char* op;
  int n_args;
  rlx_relax_expr_t* args[3];
  rlx_attrs_t attrs;
  double lo, hi; /* input range */
} comp_case_t;

/* Legalizes each case into one module, builds it, runs every PrimFunc compiled and
 * interpreted on the same random inputs and compares all outputs. */
static void test_compiled(void) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  int64_t s34[2] = {3, 4}, s4[1] = {4}, s3[1] = {3}, s2[1] = {2};
  rlx_relax_var_t* x = tvar(ctx, "x", 2, s34, F32);
  rlx_relax_var_t* y = tvar(ctx, "y", 1, s4, F32);
  rlx_relax_var_t* xi = tvar(ctx, "xi", 2, s34, I32);
  rlx_relax_var_t* yi = tvar(ctx, "yi", 1, s4, I32);
  rlx_relax_var_t* ind = tvar(ctx, "ind", 1, s2, I64);
  rlx_relax_var_t* gi = tvar(ctx, "gi", 2, s34, I64);
  const int64_t rep2[2] = {2, 3};
  rlx_relax_var_t* cnd = tvar(ctx, "cnd", 1, s4, rlx_dt_bool());
  (void)s3;
  const int64_t ax1[1] = {1}, pw[4] = {1, 1, 0, 2}, axes2[2] = {0, 1}, b2[2] = {-1, 3}, e2[2] = {INT64_MIN, 0},
                st2[2] = {-1, -2};
  rlx_attrs_t slice = attrs0();
  slice = attr1(ctx, slice, "axes", ints_attr(ctx, 2, axes2));
  slice = attr1(ctx, slice, "begin", ints_attr(ctx, 2, b2));
  slice = attr1(ctx, slice, "end", ints_attr(ctx, 2, e2));
  slice = attr1(ctx, slice, "strides", ints_attr(ctx, 2, st2));
  comp_case_t cases[] = {
      {"relax.nn.gelu", 1, {&x->hdr}, attrs0(), -3, 3},
      {"relax.round", 1, {&x->hdr}, attrs0(), -3, 3},
      {"relax.isnan", 1, {&x->hdr}, attrs0(), -3, 3},
      {"relax.sigmoid", 1, {&x->hdr}, attrs0(), -3, 3},
      {"relax.power", 2, {&x->hdr, &y->hdr}, attrs0(), 0.5, 2},
      {"relax.floor_divide", 2, {&xi->hdr, &yi->hdr}, attrs0(), 1, 9},
      {"relax.less_equal", 2, {&x->hdr, &y->hdr}, attrs0(), -1, 1},
      {"relax.argmax", 1, {&x->hdr}, attr1(ctx, attrs0(), "axis", rlx_attr_int(1)), -1, 1},
      {"relax.mean", 1, {&x->hdr}, attr1(ctx, attrs0(), "axis", ints_attr(ctx, 1, ax1)), -1, 1},
      {"relax.prod", 1, {&x->hdr}, attrs0(), 0.8, 1.2},
      {"relax.concat", 1, {rlx_relax_tuple(ctx, 2, ARGS(&x->hdr, &x->hdr))}, attrs0(), -1, 1},
      {"relax.strided_slice", 1, {&x->hdr}, slice, -1, 1},
      {"relax.take", 2, {&x->hdr, &ind->hdr}, attr1(ctx, attrs0(), "axis", rlx_attr_int(1)), 0, 4},
      {"relax.nn.pad", 1, {&x->hdr}, attr1(ctx, attrs0(), "pad_width", ints_attr(ctx, 4, pw)), -1, 1},
      {"relax.split", 1, {&x->hdr}, attr1(ctx, attrs0(), "indices_or_sections", rlx_attr_int(2)), -1, 1},
      {"relax.where", 3, {&cnd->hdr, &x->hdr, &x->hdr}, attrs0(), -1, 1},
      {"relax.mod", 2, {&x->hdr, &y->hdr}, attrs0(), 0.5, 3},
      {"relax.floor_mod", 2, {&xi->hdr, &yi->hdr}, attrs0(), 1, 9},
      {"relax.logical_xor", 2, {&x->hdr, &y->hdr}, attrs0(), -1, 1},
      {"relax.isfinite", 1, {&x->hdr}, attrs0(), -3, 3},
      {"relax.atanh", 1, {&x->hdr}, attrs0(), -0.9, 0.9},
      {"relax.variance", 1, {&x->hdr}, attr1(ctx, attrs0(), "axis", ints_attr(ctx, 1, ax1)), -1, 1},
      {"relax.cumsum", 1, {&x->hdr}, attr1(ctx, attrs0(), "axis", rlx_attr_int(0)), -1, 1},
      {"relax.tile", 1, {&x->hdr}, attr1(ctx, attrs0(), "repeats", ints_attr(ctx, 2, rep2)), -1, 1},
      {"relax.flip", 1, {&x->hdr}, attr1(ctx, attrs0(), "axis", rlx_attr_int(0)), -1, 1},
      {"relax.gather_elements", 2, {&x->hdr, &gi->hdr}, attrs0(), 0, 3},
      {"relax.scatter_elements", 3, {&x->hdr, &gi->hdr, &x->hdr}, attrs0(), 0, 3},
      {"relax.scatter_elements",
       3,
       {&x->hdr, &gi->hdr, &x->hdr},
       attr1(ctx, attrs0(), "reduction", rlx_attr_str("add")),
       0,
       3},
      {"relax.nn.pad",
       1,
       {&x->hdr},
       attr1(ctx, attr1(ctx, attrs0(), "pad_width", ints_attr(ctx, 4, pw)), "pad_mode", rlx_attr_str("reflect")),
       -1,
       1},
  };
  enum { NC = sizeof(cases) / sizeof(cases[0]) };
  rlx_bb_t* bb = rlx_bb_create(ctx, NULL);
  const char* names[NC];
  rlx_tir_func_t* funcs[NC];
  for (int k = 0; k < NC; k++) {
    names[k] = NULL;
    funcs[k] = NULL;
    comp_case_t* c = &cases[k];
    rlx_relax_call_t* call = NULL;
    CHECK_OK(op_call(ctx, c->op, c->n_args, c->args, c->attrs, &call));
    if (!call) continue;
    const rlx_op_def_t* def = rlx_op_lookup(c->op);
    rlx_relax_expr_t* e = NULL;
    CHECK_OK(def->legalize(bb, call, &e));
    funcs[k] = call_tir_func(rlx_bb_get(bb), e);
    CHECK_MSG(funcs[k] != NULL, "%s", c->op);
    if (funcs[k]) names[k] = ((rlx_relax_global_var_t*)((rlx_relax_call_t*)e)->args[0])->name;
  }
  rlx_library_t* lib = NULL;
  CHECK_OK(rlx_build_module(ctx, rlx_bb_get(bb), &lib));
  for (int k = 0; lib && k < NC; k++) {
    rlx_tir_func_t* f = funcs[k];
    if (!f) continue;
    rlx_packed_fn_t fn = NULL;
    CHECK_OK(rlx_library_get_function(lib, rlx_codegen_symbol(ctx, names[k]), &fn));
    if (!fn) continue;
    /* one tensor per PrimFunc param, shaped from the buffer map (all constant here) */
    tens_t t[2][8];
    DLTensor* p[2][8];
    for (int i = 0; i < f->n_params; i++) {
      rlx_tir_buffer_t* b = f->buffer_map[i];
      int64_t dims[8];
      for (int d = 0; d < b->ndim; d++) rlx_expr_is_const_int(b->shape[d], &dims[d]);
      for (int r = 0; r < 2; r++) {
        tens_init(&t[r][i], b->dtype, b->ndim, dims);
        p[r][i] = &t[r][i].t;
      }
      ob_rng_ = 777u + (uint32_t)i;
      tens_rand(&t[0][i], cases[k].lo, cases[k].hi);
      if ((strcmp(cases[k].op, "relax.isnan") == 0 || strcmp(cases[k].op, "relax.isfinite") == 0) && i == 0)
        tens_set(&t[0][i], 5, NAN), tens_set(&t[0][i], 6, INFINITY);
      if (strcmp(cases[k].op, "relax.round") == 0 && i == 0)
        for (int e = 0; e < 6; e++) tens_set(&t[0][i], e, -2.5 + e); /* halves: to even in both */
      memcpy(t[1][i].data, t[0][i].data, (size_t)(t[0][i].n * rlx_dtype_bytes(b->dtype)));
    }
    CHECK_OK(rlx_tir_interpret(f, p[0], f->n_params));
    CHECK_OK(rlx_packed_call_tensors(fn, NULL, p[1], f->n_params));
    int n_in = f->n_params - (strcmp(cases[k].op, "relax.split") == 0 ? 2 : 1);
    for (int i = n_in; i < f->n_params; i++) {
      double* ref = malloc(sizeof(double) * (size_t)(t[0][i].n ? t[0][i].n : 1));
      for (int64_t e = 0; e < t[0][i].n; e++) ref[e] = tens_get(&t[0][i], e);
      double err = 0;
      CHECK_MSG(tens_close(&t[1][i], ref, 1e-5, 1e-5, &err), "%s compiled vs interpreted: max abs err %g", cases[k].op,
                err);
      free(ref);
    }
    for (int i = 0; i < f->n_params; i++)
      for (int r = 0; r < 2; r++) tens_free(&t[r][i]);
  }
  if (lib) rlx_library_free(lib);
  rlx_ctx_free(ctx);
}

int main(void) {
  test_topi_errors();
  test_emit_te_add();
  test_compiled();
  TEST_MAIN_END();
}
