/* The attributes TVM prints for an op call: every field of the op's attrs node, in the node's
 * order, those the call does not give at the value TVM's op constructor fills in. A TVM call
 * always carries every field (the Python op functions and the parser pass the defaults), so
 * `R.nn.conv2d(x, w)` prints as
 *   R.nn.conv2d(x, w, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1,
 *               data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")
 * rlx keeps only the attributes given (an absent one means this default to every op's
 * inference and legalization), and the printer fills the rest in from this table; the parser
 * and the binding drop a given attribute equal to its default, so print → parse keeps the
 * call structurally equal (rs_attrs_drop_defaults in relax_printer.c).
 *
 * A default is TVMScript text; "@key" means "the value of attribute key" (out_layout takes
 * the data layout); NULL means no default (the field prints only when given). Ops not listed
 * print the attributes they carry, in the order given.
 */
#include <string.h>

#include "../relax/op.h"
#include "relax_script.h"
#include "script.h"

#define CONV(op, k, pad, opad, dl, kl)                                                                        \
  {op,                                                                                                        \
   {{"strides", k}, {"padding", pad}, {"dilation", k}, {"groups", "1"}, {"data_layout", dl},                \
    {"kernel_layout", kl}, {"out_layout", "@data_layout"}, {"out_dtype", "\"void\""}}}
#define CONV_T(op, k, pad, opad, dl, kl)                                                                      \
  {op,                                                                                                        \
   {{"strides", k}, {"padding", pad}, {"output_padding", opad}, {"dilation", k}, {"groups", "1"},           \
    {"data_layout", dl}, {"kernel_layout", kl}, {"out_layout", "@data_layout"}, {"out_dtype", "\"void\""}}}
#define POOL(op, k, pad, l)                                                                                   \
  {op,                                                                                                        \
   {{"pool_size", k}, {"strides", k}, {"dilation", k}, {"padding", pad}, {"ceil_mode", "False"},            \
    {"count_include_pad", "False"}, {"layout", l}, {"out_layout", "@layout"}}}
#define ADAPTIVE(op, l) {op, {{"output_size", "None"}, {"layout", l}, {"out_layout", "@layout"}}}
#define REDUCE(op) {op, {{"axis", "None"}, {"keepdims", "False"}}}

static const rs_op_fields_t table[] = {
    CONV("relax.nn.conv1d", "[1]", "[0, 0]", NULL, "\"NCW\"", "\"OIW\""),
    CONV("relax.nn.conv2d", "[1, 1]", "[0, 0, 0, 0]", NULL, "\"NCHW\"", "\"OIHW\""),
    CONV("relax.nn.conv3d", "[1, 1, 1]", "[0, 0, 0, 0, 0, 0]", NULL, "\"NCDHW\"", "\"OIDHW\""),
    CONV_T("relax.nn.conv1d_transpose", "[1]", "[0, 0]", "[0]", "\"NCW\"", "\"IOW\""),
    CONV_T("relax.nn.conv2d_transpose", "[1, 1]", "[0, 0, 0, 0]", "[0, 0]", "\"NCHW\"", "\"IOHW\""),
    POOL("relax.nn.max_pool1d", "[1]", "[0, 0]", "\"NCW\""),
    POOL("relax.nn.max_pool2d", "[1, 1]", "[0, 0, 0, 0]", "\"NCHW\""),
    POOL("relax.nn.max_pool3d", "[1, 1, 1]", "[0, 0, 0, 0, 0, 0]", "\"NCDHW\""),
    POOL("relax.nn.avg_pool1d", "[1]", "[0, 0]", "\"NCW\""),
    POOL("relax.nn.avg_pool2d", "[1, 1]", "[0, 0, 0, 0]", "\"NCHW\""),
    POOL("relax.nn.avg_pool3d", "[1, 1, 1]", "[0, 0, 0, 0, 0, 0]", "\"NCDHW\""),
    ADAPTIVE("relax.nn.adaptive_avg_pool1d", "\"NCW\""),
    ADAPTIVE("relax.nn.adaptive_avg_pool2d", "\"NCHW\""),
    ADAPTIVE("relax.nn.adaptive_avg_pool3d", "\"NCDHW\""),
    {"relax.nn.softmax", {{"axis", "-1"}}},
    {"relax.nn.log_softmax", {{"axis", "-1"}}},
    {"relax.nn.layer_norm",
     {{"axes", NULL}, {"epsilon", "1.0000000000000001e-05"}, {"center", "True"}, {"scale", "True"}}},
    {"relax.nn.batch_norm",
     {{"axis", NULL},
      {"epsilon", "1.0000000000000001e-05"},
      {"center", "True"},
      {"scale", "True"},
      {"momentum", "0.10000000000000001"},
      {"training", NULL}}},
    {"relax.nn.group_norm",
     {{"num_groups", NULL},
      {"channel_axis", NULL},
      {"axes", NULL},
      {"epsilon", "1.0000000000000001e-05"},
      {"center", "True"},
      {"scale", "True"}}},
    {"relax.nn.rms_norm", {{"axes", "[-1]"}, {"epsilon", "1.0000000000000001e-05"}}},
    {"relax.nn.dropout", {{"rate", "0.5"}}},
    REDUCE("relax.sum"),
    REDUCE("relax.mean"),
    REDUCE("relax.max"),
    REDUCE("relax.min"),
    REDUCE("relax.prod"),
    REDUCE("relax.variance"),
    REDUCE("relax.std"),
    REDUCE("relax.argmax"),
    REDUCE("relax.argmin"),
    {"relax.permute_dims", {{"axes", "None"}}},
    {"relax.squeeze", {{"axis", "None"}}},
    {"relax.matmul", {{"out_dtype", "\"void\""}}},
    {"relax.zeros_like", {{"dtype", "\"void\""}}},
    {"relax.ones_like", {{"dtype", "\"void\""}}},
    {"relax.full_like", {{"dtype", "\"void\""}}},
    {"relax.concat", {{"axis", "0"}}},
    {"relax.split", {{"indices_or_sections", NULL}, {"axis", "0"}}},
    {"relax.expand_dims", {{"axis", NULL}}},
    {"relax.tile", {{"repeats", NULL}}},
    {"relax.flip", {{"axis", NULL}}},
    {"relax.take", {{"axis", "None"}}},
    {"relax.gather_elements", {{"axis", "0"}}},
    {"relax.scatter_elements", {{"axis", "0"}, {"reduction", "\"update\""}}},
    {"relax.one_hot", {{"depth", NULL}, {"axis", "-1"}}},
    {"relax.tril", {{"k", "0"}}},
    {"relax.triu", {{"k", "0"}}},
    {"relax.cumsum", {{"axis", "None"}, {"dtype", "\"void\""}, {"exclusive", "False"}}},
    {"relax.strided_slice",
     {{"axes", NULL}, {"begin", NULL}, {"end", NULL}, {"strides", "None"}, {"assume_inbound", "False"}}},
    {"relax.nn.instance_norm",
     {{"channel_axis", NULL},
      {"axes", NULL},
      {"epsilon", "1.0000000000000001e-05"},
      {"center", "True"},
      {"scale", "True"}}},
    {"relax.nn.attention", {{"scale", "None"}, {"causal_mask", "None"}, {"window_size", "None"}}},
    {"relax.nn.attention_bias", {{"scale", "None"}, {"causal_mask", "None"}, {"window_size", "None"}}},
};

const rs_op_fields_t* rs_op_fields(const char* op) {
  for (size_t i = 0; op && i < sizeof(table) / sizeof(table[0]); i++)
    if (strcmp(table[i].op, op) == 0) return &table[i];
  return NULL;
}

/* ------------------------------------------------------------------ short forms
 * TVM's op constructors widen short attribute values before the call exists, so the printed
 * (and compared) call always has the long form: an int for a list attribute is a one-element
 * list (R.sum(x, axis=1) prints axis=[1]; not split's indices_or_sections, where an int counts
 * sections); for convolutions and pools an int stride, dilation,
 * pool size, output size or output padding is repeated once per spatial dim, and a padding
 * given as one int or one value per spatial dim becomes before-and-after values
 * ((1, 1) for conv2d is [1, 1, 1, 1]; GetCompletePadding2D). Other lengths are left for the
 * op's inference to reject. */

/* The spatial rank of a convolution or pool op (relax.nn.conv2d → 2), else 0. */
static int spatial_rank(const char* op) {
  if (strncmp(op, "relax.nn.", 9) != 0) return 0;
  const char* n = op + 9;
  if (strncmp(n, "conv", 4) != 0 && !strstr(n, "pool")) return 0;
  for (const char* q = n; *q; q++)
    if ((q[0] == '1' || q[0] == '2' || q[0] == '3') && q[1] == 'd') return q[0] - '0';
  return 0;
}

/* True when params (the registry signature) lists key as an "ints" attribute. */
static bool is_ints_param(const char* params, const char* key) {
  size_t kl = strlen(key);
  for (const char* p = params; p && *p;) {
    while (*p == ' ' || *p == ',') p++;
    const char* e = p;
    while (*e && *e != ',') e++;
    if ((size_t)(e - p) == kl + 5 && strncmp(p, key, kl) == 0 && strncmp(p + kl, ":ints", 5) == 0) return true;
    p = e;
  }
  return false;
}

static rlx_attr_t ints_attr(int n, int64_t* v) {
  rlx_attr_t a = {0};
  a.kind = RLX_ATTR_INTS;
  a.u.ints.n = n;
  a.u.ints.v = v;
  return a;
}

static bool is_spatial_key(const char* k) {
  return strcmp(k, "strides") == 0 || strcmp(k, "dilation") == 0 || strcmp(k, "pool_size") == 0 ||
         strcmp(k, "output_size") == 0 || strcmp(k, "output_padding") == 0;
}

rlx_attrs_t rs_attrs_normalize(rlx_ctx_t* ctx, const char* op, rlx_attrs_t attrs) {
  const rlx_op_def_t* def = op ? rlx_op_lookup(op) : NULL;
  if (!def) return attrs;
  int s = spatial_rank(op);
  rlx_attrs_t out = attrs;
  for (int i = 0; i < attrs.n; i++) {
    const rlx_attr_t* a = &attrs.items[i];
    /* split's indices_or_sections: an int is a number of sections, not an index */
    if (!is_ints_param(def->params, a->key) || strcmp(a->key, "indices_or_sections") == 0) continue;
    int n = a->kind == RLX_ATTR_INT ? 1 : a->kind == RLX_ATTR_INTS ? a->u.ints.n : -1;
    const int64_t* v = a->kind == RLX_ATTR_INT ? &a->u.i : a->kind == RLX_ATTR_INTS ? a->u.ints.v : NULL;
    if (n < 1) continue;
    int want = n;
    if (s && is_spatial_key(a->key) && n == 1)
      want = s;
    else if (s && strcmp(a->key, "padding") == 0 && (n == 1 || n == s))
      want = 2 * s;
    if (want == n && a->kind == RLX_ATTR_INTS) continue;
    int64_t* w = RLX_NEW_ARRAY(ctx, int64_t, want);
    for (int k = 0; k < want; k++) w[k] = v[k % n];
    out = rlx_attrs_set(ctx, out, a->key, ints_attr(want, w));
  }
  return out;
}
