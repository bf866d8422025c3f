/* ONNX converters, family "text": TfIdfVectorizer; StringNormalizer (the VM builtin
 * vm.builtin.string_normalizer on the runtime's string tensors).
 *
 * The pool of n-grams is static (attributes), so it becomes constant tensors: the items of
 * each n-gram of a level in [min_gram_length, max_gram_length] (pool [K, N], padded), its
 * length and its output column. The count of column c is one TE reduction over (n-gram k,
 * skip s, start i): an n-gram k of column c matches at i with gaps of s tokens when
 * x[i + j * (s + 1)] == pool[k, j] for j < n_k, inside the row; 1-grams count once, not per
 * skip. IDF and TFIDF then weight the counts per column (weights default to 1). String
 * tokens (pool_strings) are first turned into integers at run time: each token becomes the
 * first position of an equal string in pool_strings, or -1 (vm.builtin.string_index), and
 * the pool becomes those positions, so the count is the same kernel.
 */
#include <string.h>

#include "ops_tensor_internal.h"

typedef struct {
  int64_t K, N, S, C;
  rlx_te_tensor_t* const* in; /* x, pool, nlen, col */
} tfidf_user_t;

static rlx_expr_t* tfidf_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  tfidf_user_t* u = user;
  rlx_te_tensor_t* x = u->in[0];
  int r = x->buffer->ndim;
  rlx_dtype_t i64 = rlx_dt_int64();
  rlx_expr_t* L = rlx_ir_cast(ctx, i64, x->buffer->shape[r - 1]);
  rlx_iter_var_t* rv[3] = {rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), rlx_ir_i64(ctx, u->K), "k"),
                           rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), rlx_ir_i64(ctx, u->S), "s"),
                           rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), L, "i")};
  rlx_expr_t *k = &rv[0]->var->hdr, *s = &rv[1]->var->hdr, *i = rlx_ir_cast(ctx, i64, &rv[2]->var->hdr);
  rlx_expr_t* nk = rlx_te_load(ctx, u->in[2], 1, &k);
  rlx_expr_t* col = rlx_te_load(ctx, u->in[3], 1, &k);
  rlx_expr_t* step = rlx_ir_add(ctx, s, rlx_ir_i64(ctx, 1));
  rlx_expr_t* c = rlx_ir_cast(ctx, i64, &idx[r - 1]->hdr);
  rlx_expr_t* last = rlx_ir_add(ctx, i, rlx_ir_mul(ctx, rlx_ir_sub(ctx, nk, rlx_ir_i64(ctx, 1)), step));
  rlx_expr_t* ok = rlx_ir_and(ctx, rlx_ir_cmp(ctx, RLX_EXPR_EQ, col, c), rlx_ir_cmp(ctx, RLX_EXPR_LT, last, L));
  ok = rlx_ir_and(ctx, ok,
                  rlx_ir_or(ctx, rlx_ir_cmp(ctx, RLX_EXPR_GT, nk, rlx_ir_i64(ctx, 1)),
                            rlx_ir_cmp(ctx, RLX_EXPR_EQ, s, rlx_ir_i64(ctx, 0))));
  for (int64_t j = 0; j < u->N; j++) {
    rlx_expr_t* pos = rlx_ir_min(ctx, rlx_ir_add(ctx, i, rlx_ir_mul(ctx, rlx_ir_i64(ctx, j), step)),
                                 rlx_ir_sub(ctx, L, rlx_ir_i64(ctx, 1)));
    rlx_expr_t* xi[2] = {r == 2 ? &idx[0]->hdr : pos, pos};
    rlx_expr_t* tok = rlx_ir_cast(ctx, i64, rlx_te_load(ctx, x, r, xi));
    rlx_expr_t* pi[2] = {k, rlx_ir_i64(ctx, j)};
    rlx_expr_t* want = rlx_te_load(ctx, u->in[1], 2, pi);
    ok = rlx_ir_and(ctx, ok, rlx_ir_or(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LE, nk, rlx_ir_i64(ctx, j)),
                                       rlx_ir_cmp(ctx, RLX_EXPR_EQ, tok, want)));
  }
  rlx_dtype_t f = rlx_dt_float32();
  rlx_expr_t* term = rlx_ir_select(ctx, ok, rlx_ir_float(ctx, f, 1), rlx_ir_float(ctx, f, 0));
  return rlx_te_sum(ctx, term, 3, rv);
}

static RLX_MUST_USE rlx_status_t* te_tfidf(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                           rlx_te_tensor_t** out) {
  (void)n;
  tfidf_user_t* u = user;
  u->in = in;
  int r = in[0]->buffer->ndim;
  rlx_expr_t* shape[2] = {in[0]->buffer->shape[0], rlx_ir_i64(ctx, u->C)};
  if (r == 1) shape[0] = shape[1];
  return *out = rlx_te_compute(ctx, r, shape, tfidf_body, u, "T_tfidf", "reduction"), NULL;
}

/* String tokens: the pool's strings as ids (each string's first position in pool_strings,
 * *out_pool) and X as the int64 tensor of those ids (vm.builtin.string_index; -1 for a
 * token outside the pool), *out_x. */
static RLX_MUST_USE rlx_status_t* tfidf_string_ids(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                   rlx_relax_expr_t* x, const rlx_onnx_type_t* xt, int np,
                                                   int64_t** out_pool, rlx_relax_expr_t** out_x) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  if (xt->ndim != 1 && xt->ndim != 2) return rlx_onnx_error(node, "X must be 1-d or 2-d");
  int64_t* ids = RLX_NEW_ARRAY(ctx, int64_t, np > 0 ? np : 1);
  rlx_relax_expr_t** args = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, np + 1);
  args[0] = x;
  for (int k = 0; k < np; k++) {
    const char* p = rlx_onnx_attr_string_at(node, "pool_strings", k);
    ids[k] = k;
    for (int j = 0; j < k; j++)
      if (strcmp(p, rlx_onnx_attr_string_at(node, "pool_strings", j)) == 0) {
        ids[k] = j;
        break;
      }
    args[k + 1] = rlx_relax_string_imm(ctx, p);
  }
  rlx_relax_expr_t* v;
  RLX_RETURN_IF_ERROR(rlx_onnx_call_builtin(im, "vm.builtin.string_index", np + 1, args,
                                            rlx_sinfo_tensor(ctx, xt->ndim, NULL, rlx_dt_int64()), &v));
  *out_pool = ids;
  return rlx_onnx_with_dims(im, node, v, out_x);
}

static OT_CONVERTER(cv_tfidf) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  if (!ot_has_input(node, inputs, 0)) return rlx_onnx_error(node, "input 0 is missing");
  const rlx_onnx_type_t* xt = rlx_onnx_value_type(im, node->inputs[0], inputs[0]);
  bool strings = rlx_onnx_is_object(inputs[0]) && rlx_onnx_type_is_string(xt);
  bool has_ps = rlx_onnx_has_attr(node, "pool_strings"), has_pi = rlx_onnx_has_attr(node, "pool_int64s");
  if (has_ps == has_pi) return rlx_onnx_error(node, "needs exactly one of pool_strings and pool_int64s");
  if (strings != has_ps)
    return rlx_onnx_error(node, strings ? "string tokens need pool_strings" : "pool_strings needs string tokens");
  const int64_t *pool = NULL, *counts, *indexes;
  int np = has_ps ? rlx_onnx_attr_strings_count(node, "pool_strings") : rlx_onnx_attr_ints(node, "pool_int64s", &pool);
  rlx_relax_expr_t* xv = inputs[0];
  if (strings) {
    int64_t* ids = NULL;
    RLX_RETURN_IF_ERROR(tfidf_string_ids(im, node, inputs[0], xt, np, &ids, &xv));
    pool = ids;
  }
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, (rlx_relax_expr_t* const[]){xv}, 0, true, &x));
  if (!rlx_dtype_is_int(x->dtype)) return rlx_onnx_error(node, "X must be a tensor of integers or strings");
  if (x->ndim != 1 && x->ndim != 2) return rlx_onnx_error(node, "X must be 1-d or 2-d");
  const char* mode = rlx_onnx_attr_string(node, "mode", "");
  int m = strcmp(mode, "TF") == 0 ? 0 : strcmp(mode, "IDF") == 0 ? 1 : strcmp(mode, "TFIDF") == 0 ? 2 : -1;
  if (m < 0) return rlx_onnx_error(node, "mode \"%s\" is not TF, IDF or TFIDF", mode);
  int64_t lo = rlx_onnx_attr_int(node, "min_gram_length", 1), hi = rlx_onnx_attr_int(node, "max_gram_length", 1);
  int64_t skip = rlx_onnx_attr_int(node, "max_skip_count", 0);
  if (lo < 1 || hi < lo || hi > 16 || skip < 0 || skip > 1024)
    return rlx_onnx_error(node, "bad n-gram lengths [%lld, %lld] or skip count %lld", (long long)lo, (long long)hi,
                          (long long)skip);
  int nc = rlx_onnx_attr_ints(node, "ngram_counts", &counts);
  int ni = rlx_onnx_attr_ints(node, "ngram_indexes", &indexes);
  if (np < 0 || nc < 1 || ni < 0) return rlx_onnx_error(node, "needs a pool, ngram_counts and ngram_indexes");
  const float* weights = NULL;
  int nw = rlx_onnx_attr_floats(node, "weights", &weights);
  if (nw >= 0 && nw != ni) return rlx_onnx_error(node, "%d weights for %d n-grams", nw, ni);
  int64_t C = 0;
  for (int k = 0; k < ni; k++) {
    if (indexes[k] < 0 || indexes[k] > (1 << 24)) return rlx_onnx_error(node, "bad ngram index %lld", (long long)indexes[k]);
    if (indexes[k] + 1 > C) C = indexes[k] + 1;
  }
  /* the n-grams of the levels in [lo, hi] */
  int64_t* gp = RLX_NEW_ARRAY(ctx, int64_t, (np > 0 ? np : 1) * hi);
  int64_t *gl = RLX_NEW_ARRAY(ctx, int64_t, np > 0 ? np : 1), *gc = RLX_NEW_ARRAY(ctx, int64_t, np > 0 ? np : 1);
  int64_t K = 0, g = 0;
  for (int lev = 1; lev <= nc; lev++) {
    int64_t start = counts[lev - 1], end = lev < nc ? counts[lev] : np;
    if (start < 0 || end < start || end > np || (end - start) % lev)
      return rlx_onnx_error(node, "ngram_counts do not describe the pool");
    for (int64_t p = start; p < end; p += lev, g++) {
      if (g >= ni) return rlx_onnx_error(node, "more n-grams in the pool than ngram_indexes");
      if (lev < lo || lev > hi) continue;
      for (int64_t j = 0; j < hi; j++) gp[K * hi + j] = j < lev ? pool[p + j] : 0;
      gl[K] = lev;
      gc[K] = indexes[g];
      K++;
    }
  }
  if (K == 0) { /* no n-gram of these lengths: all zeros */
    gp[0] = 0;
    gl[0] = 1;
    gc[0] = -1;
    K = 1;
  }
  int64_t ps[2] = {K, hi};
  rlx_relax_expr_t* args[4] = {xv, rlx_onnx_make_const(im, rlx_dt_int64(), 2, ps, gp),
                               rlx_onnx_make_const(im, rlx_dt_int64(), 1, &K, gl),
                               rlx_onnx_make_const(im, rlx_dt_int64(), 1, &K, gc)};
  tfidf_user_t u = {K, hi, skip + 1, C, NULL};
  rlx_relax_expr_t* cnt;
  RLX_RETURN_IF_ERROR(rlx_onnx_emit_te(im, te_tfidf, &u, 4, args, "tfidf", &cnt));
  if (m == 0) {
    outputs[0] = cnt;
    return NULL;
  }
  float* wc = RLX_NEW_ARRAY(ctx, float, C);
  for (int64_t c = 0; c < C; c++) wc[c] = 0;
  for (int k = 0; k < ni; k++) wc[indexes[k]] = weights ? weights[k] : 1.0f;
  rlx_relax_expr_t* w = rlx_onnx_make_const(im, rlx_dt_float32(), 1, &C, wc);
  rlx_relax_expr_t* a2[2] = {cnt, w};
  if (m == 2) return ot_op(im, RLX_OP_MULTIPLY, 2, a2, (rlx_attrs_t){0}, &outputs[0]);
  float zero = 0;
  rlx_relax_expr_t *pos, *z = rlx_onnx_make_const(im, rlx_dt_float32(), 0, NULL, &zero);
  rlx_relax_expr_t* g2[2] = {cnt, z};
  RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_GREATER, 2, g2, (rlx_attrs_t){0}, &pos));
  rlx_relax_expr_t* a3[3] = {pos, w, z};
  return ot_op(im, RLX_OP_WHERE, 3, a3, (rlx_attrs_t){0}, &outputs[0]);
}

/* StringNormalizer: the builtin with the case action (0 none, 1 lower, 2 upper), case
 * sensitivity and the stopwords as string immediates. Its output's length depends on the
 * data (stopwords removed): an R.Object string tensor of the input's rank. */
static OT_CONVERTER(cv_string_normalizer) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  const rlx_onnx_type_t* t = ot_has_input(node, inputs, 0) ? rlx_onnx_value_type(im, node->inputs[0], inputs[0]) : NULL;
  if (!t || !rlx_onnx_type_is_string(t) || !rlx_onnx_is_object(inputs[0]))
    return rlx_onnx_error(node, "input 0 must be a string tensor");
  if (t->ndim != 1 && t->ndim != 2) return rlx_onnx_error(node, "input 0 must be [C] or [1, C]");
  const char* act = rlx_onnx_attr_string(node, "case_change_action", "NONE");
  int64_t action = strcmp(act, "LOWER") == 0 ? 1 : strcmp(act, "UPPER") == 0 ? 2 : 0;
  if (!action && strcmp(act, "NONE") != 0) return rlx_onnx_error(node, "case_change_action \"%s\" is not LOWER, UPPER or NONE", act);
  const char* locale = rlx_onnx_attr_string(node, "locale", "");
  if (locale[0] && strncmp(locale, "en", 2) != 0 && strcmp(locale, "C") != 0)
    return rlx_onnx_error(node, "locale \"%s\" is not supported (ASCII case rules only)", locale);
  int n_stop = rlx_onnx_attr_strings_count(node, "stopwords");
  if (n_stop < 0) n_stop = 0;
  rlx_relax_expr_t** args = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, 3 + n_stop);
  args[0] = inputs[0];
  args[1] = rlx_relax_prim_value(ctx, rlx_ir_i64(ctx, action));
  args[2] = rlx_relax_prim_value(ctx, rlx_ir_i64(ctx, rlx_onnx_attr_int(node, "is_case_sensitive", 0) != 0));
  for (int k = 0; k < n_stop; k++) args[3 + k] = rlx_relax_string_imm(ctx, rlx_onnx_attr_string_at(node, "stopwords", k));
  RLX_RETURN_IF_ERROR(rlx_onnx_call_builtin(im, "vm.builtin.string_normalizer", 3 + n_stop, args, rlx_sinfo_object(ctx),
                                            &outputs[0]));
  rlx_onnx_set_value_type(im, node->outputs[0], t);
  return NULL;
}

const rlx_onnx_converter_t rlx_onnx_ops_text[] = {
    {"TfIdfVectorizer", 9, cv_tfidf},
    {"StringNormalizer", 10, cv_string_normalizer},
    {NULL, 0, NULL},
};
