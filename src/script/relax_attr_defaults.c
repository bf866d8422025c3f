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

#include "relax_script.h"

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
    {"relax.concat", {{"axis", "0"}}},
    {"relax.split", {{"indices_or_sections", NULL}, {"axis", "0"}}},
};

const rs_op_fields_t* rs_op_fields(const char* op) {
  for (size_t i = 0; op && i < sizeof(table) / sizeof(table[0]); i++)
    if (strcmp(table[i].op, op) == 0) return &table[i];
  return NULL;
}
