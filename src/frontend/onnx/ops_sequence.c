/* ONNX converters, family "sequence": SequenceEmpty, SequenceConstruct, SequenceLength,
 * SequenceAt, SequenceInsert, SequenceErase, ConcatFromSequence, SplitToSequence.
 *
 * A sequence is a Relax tuple: every sequence op of a graph has a length known at import
 * time (the lengths of SequenceConstruct, SplitToSequence's parts, +1 / -1 per insert and
 * erase), so a sequence is a Tuple expression of its elements and ops with constant
 * positions are tuple manipulations that emit no code. A position that arrives at run time
 * (SequenceAt / Insert / Erase fed by a graph input) goes through a VM builtin on the
 * tuple (vm.builtin.sequence_at / _insert / _erase, which copy the elements); the result's
 * elements then have the join of the candidates' struct info, and an element whose dims
 * are not known is match_cast to fresh vars (named after the node's output) so what follows
 * is symbolic. A sequence whose length only the run decides (a graph input, a Loop's
 * accumulator, SequenceMap's outputs, an insert or erase on one) is a VM list (R.Object):
 * every op above, ConcatFromSequence included, is then a builtin on the list
 * (vm.builtin.sequence_at / _insert / _erase / _length / _concat).
 */
#include <string.h>

#include "onnx_internal.h"
#include "ops_tensor_internal.h"

/* The elements of sequence input i. */
static RLX_MUST_USE rlx_status_t* elems_of(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                              int i, int* out_n, rlx_relax_expr_t*** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_relax_expr_t* s = i < node->n_inputs ? inputs[i] : NULL;
  if (!s) return rlx_onnx_error(node, "input %d (a sequence) is missing", i);
  if (s->kind == RLX_RELAX_TUPLE) {
    rlx_relax_tuple_t* t = (rlx_relax_tuple_t*)s;
    *out_n = t->n_fields;
    *out = t->fields;
    return NULL;
  }
  if (!s->sinfo || s->sinfo->kind != RLX_SINFO_TUPLE)
    return rlx_onnx_error(node, "input %d ('%s') is not a sequence", i, node->inputs[i]);
  int n = ((rlx_sinfo_tuple_t*)s->sinfo)->n_fields;
  rlx_relax_expr_t** e = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n > 0 ? n : 1);
  for (int k = 0; k < n; k++) RLX_RETURN_IF_ERROR(rlx_onnx_emit(im, rlx_relax_tuple_get_item(ctx, s, k), &e[k]));
  *out_n = n;
  *out = e;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* with_dims(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* e,
                               rlx_relax_expr_t** out) {
  return rlx_onnx_with_dims(im, node, e, out);
}

/* ---- lists: sequences whose length is decided at run time (struct info R.Object) ---- */
/* The element type of list input i (a tensor type; an error when it is known not to be). */
static RLX_MUST_USE rlx_status_t* list_elem(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                               int i, const rlx_onnx_type_t** out) {
  const rlx_onnx_type_t* t = rlx_onnx_value_type(im, node->inputs[i], inputs[i]);
  if (t->kind == RLX_ONNX_T_OPT) t = t->elem; /* an optional sequence, known to hold one here */
  if (t->kind != RLX_ONNX_T_SEQ && t->kind != RLX_ONNX_T_UNKNOWN)
    return rlx_onnx_error(node, "input %d ('%s') is not a sequence", i, node->inputs[i]);
  const rlx_onnx_type_t* e = t->kind == RLX_ONNX_T_SEQ ? t->elem : NULL;
  if (e && e->kind != RLX_ONNX_T_TENSOR && e->kind != RLX_ONNX_T_UNKNOWN)
    return rlx_onnx_error(node, "sequences of sequences or optionals are not supported");
  *out = e ? e : rlx_onnx_type_tensor(rlx_onnx_ctx(im), rlx_dt_void(), -1);
  return NULL;
}

/* The result of an op on list input 0: a list (R.Object) of elements of type el, recorded. */
static RLX_MUST_USE rlx_status_t* list_result(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, const char* builtin, int n_args,
                                 rlx_relax_expr_t* const* args, const rlx_onnx_type_t* el, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  RLX_RETURN_IF_ERROR(rlx_onnx_call_builtin(im, builtin, n_args, args, rlx_sinfo_object(ctx), out));
  rlx_onnx_set_value_type(im, node->outputs[0], rlx_onnx_type_wrap(ctx, RLX_ONNX_T_SEQ, el));
  return NULL;
}

/* The type of tensor input i. */
static const rlx_onnx_type_t* tensor_type(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                          rlx_relax_expr_t* const* inputs, int i) {
  return rlx_onnx_value_type(im, node->inputs[i], inputs[i]);
}

/* The struct info covering every candidate: theirs when all are equal, else a tensor of their
 * common rank and dtype with unknown dims. */
static RLX_MUST_USE rlx_status_t* join(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, int n, rlx_relax_expr_t* const* e,
                          rlx_sinfo_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  if (n < 1) return rlx_onnx_error(node, "the sequence is empty");
  bool same = true;
  for (int k = 0; k < n; k++) {
    if (!e[k]->sinfo || e[k]->sinfo->kind != RLX_SINFO_TENSOR)
      return rlx_onnx_error(node, "sequence elements must be tensors");
    same = same && rlx_sinfo_equal(ctx, e[0]->sinfo, e[k]->sinfo);
  }
  rlx_sinfo_tensor_t* a = (rlx_sinfo_tensor_t*)e[0]->sinfo;
  if (same) {
    *out = e[0]->sinfo;
    return NULL;
  }
  for (int k = 1; k < n; k++) {
    rlx_sinfo_tensor_t* b = (rlx_sinfo_tensor_t*)e[k]->sinfo;
    if (b->ndim != a->ndim || !rlx_dtype_eq(b->dtype, a->dtype))
      return rlx_onnx_error(node, "a run-time position needs elements of one rank and dtype");
  }
  *out = rlx_sinfo_tensor(ctx, a->ndim, NULL, a->dtype);
  return NULL;
}

/* Position input i: *is_const and its value normalized against len (ONNX: -len..len-1, or
 * -len..len when inserting); not constant: *is_const false. */
static RLX_MUST_USE rlx_status_t* position(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                              int i, int64_t len, bool insert, bool* is_const, int64_t* out) {
  rlx_onnx_tensor_t c;
  rlx_sinfo_tensor_t* t;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, i, false, &t));
  if (!rlx_dtype_is_int(t->dtype)) return rlx_onnx_error(node, "the position must be an integer");
  *is_const = rlx_onnx_const(im, inputs[i], &c);
  if (!*is_const) return NULL;
  if (ot_numel(&c) != 1) return rlx_onnx_error(node, "the position must be a single value");
  int64_t p = ot_elem_i64(&c, 0);
  if (p < -len || p > (insert ? len : len - 1))
    return rlx_onnx_error(node, "position %lld is out of range for a sequence of %lld", (long long)p, (long long)len);
  *out = p < 0 ? p + len : p;
  return NULL;
}

/* builtin(args) returning a sequence of n elements of struct info el. */
static RLX_MUST_USE rlx_status_t* call_seq(rlx_onnx_importer_t* im, const char* builtin, int n_args, rlx_relax_expr_t* const* args,
                              int n, rlx_sinfo_t* el, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_t** f = RLX_NEW_ARRAY(ctx, rlx_sinfo_t*, n > 0 ? n : 1);
  for (int k = 0; k < n; k++) f[k] = el;
  rlx_sinfo_t* s = rlx_sinfo_tuple(ctx, n, f);
  rlx_relax_var_t* v = NULL;
  RLX_RETURN_IF_ERROR(rlx_bb_emit(rlx_onnx_bb(im), rlx_relax_call_pure_packed(ctx, builtin, n_args, args, 1, &s), NULL, &v));
  *out = &v->hdr;
  return NULL;
}

static OT_CONVERTER(cv_sequence_empty) {
  (void)inputs;
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_dtype_t dt = rlx_dt_float32();
  int64_t elem = rlx_onnx_attr_int(node, "dtype", 1);
  if (!rlx_onnx_dtype_from_elem((int32_t)elem, &dt)) return rlx_onnx_error(node, "dtype %lld is not supported", (long long)elem);
  rlx_onnx_set_value_type(im, node->outputs[0], rlx_onnx_type_wrap(ctx, RLX_ONNX_T_SEQ, rlx_onnx_type_tensor(ctx, dt, RLX_ONNX_NDIM_NONE)));
  outputs[0] = rlx_relax_tuple(ctx, 0, NULL);
  return NULL;
}

static OT_CONVERTER(cv_sequence_construct) {
  for (int i = 0; i < node->n_inputs; i++) {
    rlx_sinfo_tensor_t* t;
    RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, i, false, &t));
  }
  outputs[0] = rlx_relax_tuple(rlx_onnx_ctx(im), node->n_inputs, inputs);
  return NULL;
}

static OT_CONVERTER(cv_sequence_length) {
  if (rlx_onnx_is_object(inputs[0])) {
    rlx_ctx_t* ctx = rlx_onnx_ctx(im);
    return rlx_onnx_call_builtin(im, "vm.builtin.sequence_length", 1, inputs,
                                 rlx_sinfo_tensor_const(ctx, 0, NULL, rlx_dt_int64()), &outputs[0]);
  }
  int n = 0;
  rlx_relax_expr_t** e = NULL;
  RLX_RETURN_IF_ERROR(elems_of(im, node, inputs, 0, &n, &e));
  int64_t len = n;
  outputs[0] = rlx_onnx_make_const(im, rlx_dt_int64(), 0, NULL, &len);
  return NULL;
}

static OT_CONVERTER(cv_sequence_at) {
  if (rlx_onnx_is_object(inputs[0])) {
    const rlx_onnx_type_t* el = NULL;
    RLX_RETURN_IF_ERROR(list_elem(im, node, inputs, 0, &el));
    rlx_sinfo_tensor_t* p;
    RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, false, &p));
    rlx_relax_expr_t* v = NULL;
    RLX_RETURN_IF_ERROR(rlx_onnx_call_builtin(im, "vm.builtin.sequence_at", 2, inputs,
                                              rlx_onnx_type_sinfo(rlx_onnx_ctx(im), el), &v));
    return with_dims(im, node, v, &outputs[0]);
  }
  int n = 0;
  rlx_relax_expr_t** e = NULL;
  RLX_RETURN_IF_ERROR(elems_of(im, node, inputs, 0, &n, &e));
  bool is_const = false;
  int64_t p = 0;
  RLX_RETURN_IF_ERROR(position(im, node, inputs, 1, n, false, &is_const, &p));
  if (is_const) return with_dims(im, node, e[p], &outputs[0]);
  rlx_sinfo_t* s = NULL;
  RLX_RETURN_IF_ERROR(join(im, node, n, e, &s));
  rlx_relax_var_t* v = NULL;
  rlx_relax_expr_t* args[2] = {inputs[0], inputs[1]};
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  RLX_RETURN_IF_ERROR(rlx_bb_emit(rlx_onnx_bb(im),
                                  rlx_relax_call_pure_packed(ctx, "vm.builtin.sequence_at", 2, args, 1, &s), NULL, &v));
  return with_dims(im, node, &v->hdr, &outputs[0]);
}

static OT_CONVERTER(cv_sequence_insert) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  if (rlx_onnx_is_object(inputs[0])) {
    const rlx_onnx_type_t* el = NULL;
    RLX_RETURN_IF_ERROR(list_elem(im, node, inputs, 0, &el));
    rlx_sinfo_tensor_t* t;
    RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, false, &t));
    bool pos = ot_has_input(node, inputs, 2);
    if (pos) RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 2, false, &t));
    return list_result(im, node, "vm.builtin.sequence_insert", pos ? 3 : 2, inputs,
                       rlx_onnx_type_join(ctx, el, tensor_type(im, node, inputs, 1)), &outputs[0]);
  }
  int n = 0;
  rlx_relax_expr_t** e = NULL;
  RLX_RETURN_IF_ERROR(elems_of(im, node, inputs, 0, &n, &e));
  rlx_sinfo_tensor_t* t;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, false, &t));
  bool is_const = true;
  int64_t p = n;
  if (ot_has_input(node, inputs, 2)) RLX_RETURN_IF_ERROR(position(im, node, inputs, 2, n, true, &is_const, &p));
  if (!is_const) {
    rlx_relax_expr_t** all = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n + 1);
    memcpy(all, e, sizeof(*all) * (size_t)n);
    all[n] = inputs[1];
    rlx_sinfo_t* s = NULL;
    RLX_RETURN_IF_ERROR(join(im, node, n + 1, all, &s));
    rlx_relax_expr_t* args[3] = {inputs[0], inputs[1], inputs[2]};
    return call_seq(im, "vm.builtin.sequence_insert", 3, args, n + 1, s, &outputs[0]);
  }
  rlx_relax_expr_t** r = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n + 1);
  for (int i = 0, k = 0; i <= n; i++) r[i] = i == p ? inputs[1] : e[k++];
  outputs[0] = rlx_relax_tuple(ctx, n + 1, r);
  return NULL;
}

static OT_CONVERTER(cv_sequence_erase) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  if (rlx_onnx_is_object(inputs[0])) {
    const rlx_onnx_type_t* el = NULL;
    RLX_RETURN_IF_ERROR(list_elem(im, node, inputs, 0, &el));
    bool pos = ot_has_input(node, inputs, 1);
    rlx_sinfo_tensor_t* t;
    if (pos) RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, false, &t));
    return list_result(im, node, "vm.builtin.sequence_erase", pos ? 2 : 1, inputs, el, &outputs[0]);
  }
  int n = 0;
  rlx_relax_expr_t** e = NULL;
  RLX_RETURN_IF_ERROR(elems_of(im, node, inputs, 0, &n, &e));
  if (n < 1) return rlx_onnx_error(node, "the sequence is empty");
  bool is_const = true;
  int64_t p = n - 1;
  if (ot_has_input(node, inputs, 1)) RLX_RETURN_IF_ERROR(position(im, node, inputs, 1, n, false, &is_const, &p));
  if (!is_const) {
    rlx_sinfo_t* s = NULL;
    RLX_RETURN_IF_ERROR(join(im, node, n, e, &s));
    rlx_relax_expr_t* args[2] = {inputs[0], inputs[1]};
    return call_seq(im, "vm.builtin.sequence_erase", 2, args, n - 1, s, &outputs[0]);
  }
  rlx_relax_expr_t** r = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n);
  int m = 0;
  for (int i = 0; i < n; i++)
    if (i != p) r[m++] = e[i];
  outputs[0] = rlx_relax_tuple(ctx, m, r);
  return NULL;
}

/* ConcatFromSequence of a list: vm.builtin.sequence_concat, whose result (rank r, or r + 1
 * with new_axis) is match_cast to fresh dims. The elements' rank must be known here (to check
 * the axis and type the result); the builtin checks their dims when it runs. */
static RLX_MUST_USE rlx_status_t* concat_list(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                              int64_t axis, bool new_axis, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  const rlx_onnx_type_t* el = NULL;
  RLX_RETURN_IF_ERROR(list_elem(im, node, inputs, 0, &el));
  if (el->ndim < 0 || rlx_dtype_is_void(el->dtype))
    return rlx_onnx_error(node, "the dtype and rank of the sequence's elements are not known at import");
  int ro = el->ndim + (new_axis ? 1 : 0);
  int64_t a = 0;
  RLX_RETURN_IF_ERROR(ot_axis(node, "axis", axis, ro, &a));
  rlx_relax_expr_t* args[3] = {inputs[0], rlx_relax_prim_value(ctx, rlx_ir_i64(ctx, a)),
                               rlx_relax_prim_value(ctx, rlx_ir_i64(ctx, new_axis))};
  rlx_relax_expr_t* v = NULL;
  RLX_RETURN_IF_ERROR(rlx_onnx_call_builtin(im, "vm.builtin.sequence_concat", 3, args,
                                            rlx_sinfo_tensor(ctx, ro, NULL, el->dtype), &v));
  return with_dims(im, node, v, out);
}

static OT_CONVERTER(cv_concat_from_sequence) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  if (!rlx_onnx_has_attr(node, "axis")) return rlx_onnx_error(node, "needs the axis attribute");
  int64_t axis = rlx_onnx_attr_int(node, "axis", 0);
  bool new_axis = rlx_onnx_attr_int(node, "new_axis", 0) != 0;
  if (ot_has_input(node, inputs, 0) && rlx_onnx_is_object(inputs[0]))
    return concat_list(im, node, inputs, axis, new_axis, &outputs[0]);
  int n = 0;
  rlx_relax_expr_t** e = NULL;
  RLX_RETURN_IF_ERROR(elems_of(im, node, inputs, 0, &n, &e));
  if (n < 1) return rlx_onnx_error(node, "the sequence is empty");
  rlx_relax_expr_t** parts = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, n);
  for (int k = 0; k < n; k++) {
    if (!e[k]->sinfo || e[k]->sinfo->kind != RLX_SINFO_TENSOR || ((rlx_sinfo_tensor_t*)e[k]->sinfo)->ndim < 0)
      return rlx_onnx_error(node, "sequence elements must be tensors of known rank");
    int r = ((rlx_sinfo_tensor_t*)e[k]->sinfo)->ndim;
    int64_t a = 0;
    RLX_RETURN_IF_ERROR(ot_axis(node, "axis", axis, new_axis ? r + 1 : r, &a));
    if (k == 0) axis = a;
    parts[k] = e[k];
    if (new_axis) {
      rlx_attrs_t at = ot_attr(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_ints(1, ot_copy_ints(ctx, 1, &a)));
      RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_EXPAND_DIMS, 1, &e[k], at, &parts[k]));
    }
  }
  if (n == 1) {
    outputs[0] = parts[0];
    return NULL;
  }
  rlx_relax_expr_t* tup = rlx_relax_tuple(ctx, n, parts);
  rlx_attrs_t attrs = ot_attr(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_int(axis));
  return ot_op(im, RLX_OP_CONCAT, 1, &tup, attrs, &outputs[0]);
}

/* SplitToSequence: the Split converter (opset 13) on a node with one output per part, then
 * (without a split input and keepdims 0) each part squeezed along the axis. */
static OT_CONVERTER(cv_split_to_sequence) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  int64_t axis = 0;
  RLX_RETURN_IF_ERROR(ot_axis(node, "axis", rlx_onnx_attr_int(node, "axis", 0), x->ndim, &axis));
  bool has_split = ot_has_input(node, inputs, 1);
  int64_t ext = -1, parts = 0;
  bool static_ext = rlx_expr_is_const_int(x->shape[axis], &ext);
  rlx_relax_expr_t* split_in[2] = {inputs[0], NULL};
  if (!has_split) {
    if (!static_ext) return rlx_onnx_error(node, "without a split input the axis extent must be static");
    parts = ext;
  } else {
    rlx_sinfo_tensor_t* s;
    RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, true, &s));
    rlx_onnx_tensor_t c;
    if (s->ndim == 0) { /* one chunk size: equal chunks, the last one smaller */
      if (!rlx_onnx_const(im, inputs[1], &c)) return rlx_onnx_error(node, "a scalar split must be a constant");
      if (!static_ext) return rlx_onnx_error(node, "a scalar split needs a static axis extent");
      int64_t chunk = ot_elem_i64(&c, 0);
      if (chunk < 1) return rlx_onnx_error(node, "split %lld must be positive", (long long)chunk);
      parts = ext == 0 ? 0 : (ext + chunk - 1) / chunk;
      int64_t* sizes = RLX_NEW_ARRAY(ctx, int64_t, parts > 0 ? parts : 1);
      for (int64_t k = 0; k < parts; k++) sizes[k] = k + 1 < parts ? chunk : ext - chunk * (parts - 1);
      int64_t dims = parts;
      split_in[1] = rlx_onnx_make_const(im, rlx_dt_int64(), 1, &dims, sizes);
    } else if (s->ndim == 1 && rlx_expr_is_const_int(s->shape[0], &parts)) {
      split_in[1] = inputs[1];
    } else {
      return rlx_onnx_error(node, "split must be a scalar or a 1-d tensor of static length");
    }
  }
  if (parts < 1 || parts > 65536) return rlx_onnx_error(node, "splits into %lld parts", (long long)parts);
  const char** names = RLX_NEW_ARRAY(ctx, const char*, parts);
  for (int64_t k = 0; k < parts; k++) names[k] = node->outputs[0];
  rlx_onnx_node_t split = *node;
  split.op_type = "Split";
  split.n_inputs = split_in[1] ? 2 : 1;
  split.n_outputs = (int)parts;
  split.outputs = names;
  const char* in_names[2] = {node->inputs[0], has_split ? node->inputs[1] : "split"}; /* for messages */
  split.inputs = in_names;
  const rlx_onnx_converter_t* conv = rlx_onnx_find_converter("Split", 13);
  if (!conv) return rlx_onnx_error(node, "no Split converter");
  rlx_relax_expr_t** out = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, parts);
  RLX_RETURN_IF_ERROR(conv->convert(im, &split, split_in, out));
  if (!has_split && rlx_onnx_attr_int(node, "keepdims", 1) == 0) {
    rlx_attrs_t at = ot_attr(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_ints(1, ot_copy_ints(ctx, 1, &axis)));
    for (int64_t k = 0; k < parts; k++) RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_SQUEEZE, 1, &out[k], at, &out[k]));
  }
  for (int64_t k = 0; k < parts; k++)
    if (out[k]->kind == RLX_RELAX_CALL || !out[k]->sinfo) RLX_RETURN_IF_ERROR(rlx_onnx_emit(im, out[k], &out[k]));
  outputs[0] = rlx_relax_tuple(ctx, (int)parts, out);
  return NULL;
}

/* ---- optionals: the value itself, or the null value when empty ---- */
static OT_CONVERTER(cv_optional) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  if (ot_has_input(node, inputs, 0)) {
    outputs[0] = inputs[0];
    rlx_onnx_set_value_type(im, node->outputs[0],
                            rlx_onnx_type_wrap(ctx, RLX_ONNX_T_OPT, rlx_onnx_value_type(im, node->inputs[0], inputs[0])));
    return NULL;
  }
  const rlx_onnx_type_t* t = NULL;
  RLX_RETURN_IF_ERROR(rlx_onnx_attr_type(im, node, "type", &t));
  rlx_onnx_set_value_type(im, node->outputs[0], rlx_onnx_type_wrap(ctx, RLX_ONNX_T_OPT, t));
  return rlx_onnx_call_builtin(im, "vm.builtin.null_value", 0, NULL, rlx_sinfo_object(ctx), &outputs[0]);
}

static OT_CONVERTER(cv_optional_has_element) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  bool has = ot_has_input(node, inputs, 0);
  if (has && rlx_onnx_is_object(inputs[0]))
    return rlx_onnx_call_builtin(im, "vm.builtin.optional_has_element", 1, inputs,
                                 rlx_sinfo_tensor_const(ctx, 0, NULL, rlx_dt_bool()), &outputs[0]);
  uint8_t v = has; /* a value import can see: present */
  outputs[0] = rlx_onnx_make_const(im, rlx_dt_bool(), 0, NULL, &v);
  return NULL;
}

static OT_CONVERTER(cv_optional_get_element) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  if (!ot_has_input(node, inputs, 0)) return rlx_onnx_error(node, "needs an input");
  if (!rlx_onnx_is_object(inputs[0])) {
    outputs[0] = inputs[0];
    return NULL;
  }
  const rlx_onnx_type_t* t = rlx_onnx_value_type(im, node->inputs[0], inputs[0]);
  if (t->kind == RLX_ONNX_T_OPT) t = t->elem;
  if (t->kind != RLX_ONNX_T_TENSOR && t->kind != RLX_ONNX_T_SEQ)
    return rlx_onnx_error(node, "the type of input '%s' is not known (a tensor or a sequence)", node->inputs[0]);
  rlx_relax_expr_t* v = NULL;
  RLX_RETURN_IF_ERROR(rlx_onnx_call_builtin(im, "vm.builtin.optional_get_element", 1, inputs, rlx_onnx_type_sinfo(ctx, t), &v));
  rlx_onnx_set_value_type(im, node->outputs[0], t);
  return with_dims(im, node, v, &outputs[0]);
}

const rlx_onnx_converter_t rlx_onnx_ops_sequence[] = {
    {"SequenceEmpty", 11, cv_sequence_empty},
    {"SequenceConstruct", 11, cv_sequence_construct},
    {"SequenceLength", 11, cv_sequence_length},
    {"SequenceAt", 11, cv_sequence_at},
    {"SequenceInsert", 11, cv_sequence_insert},
    {"SequenceErase", 11, cv_sequence_erase},
    {"ConcatFromSequence", 11, cv_concat_from_sequence},
    {"SplitToSequence", 11, cv_split_to_sequence},
    {"Optional", 15, cv_optional},
    {"OptionalHasElement", 15, cv_optional_has_element},
    {"OptionalGetElement", 15, cv_optional_get_element},
    {NULL, 0, NULL},
};
