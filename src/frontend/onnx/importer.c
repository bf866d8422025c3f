/* ONNX → Relax importer: the converter families, the importer services converters use
 * (emit with constant folding, constants, attributes, errors) and the entry points.
 *
 * Import, in order: unpack the model (reader.c); find a converter for every node (the
 * entry of the model's opset, see onnx_import.h) and report every node without one at once;
 * initializers → constants; graph inputs that are not initializers → params of "main";
 * nodes → bindings in one dataflow block, in graph order, through a name → expression map;
 * graph outputs → the function's result (a tuple when there are several).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../transform/fold.h"
#include "onnx_internal.h"

/* ------------------------------------------------------------------ converter families */
/* The list of families, written once. Earlier families win when two define the same
 * (op_type, since_version). */
static const rlx_onnx_converter_t* const families[] = {rlx_onnx_ops_core, rlx_onnx_ops_math, rlx_onnx_ops_tensor,
                                                       rlx_onnx_ops_nn, rlx_onnx_ops_loss, rlx_onnx_ops_training,
                                                       rlx_onnx_ops_sequence, rlx_onnx_ops_rnn, rlx_onnx_ops_text,
                                                       rlx_onnx_ops_signal, rlx_onnx_ops_random};
enum { N_FAMILIES = sizeof(families) / sizeof(families[0]) };

const rlx_onnx_converter_t* rlx_onnx_find_converter(const char* op_type, int opset) {
  const rlx_onnx_converter_t* best = NULL;
  for (int f = 0; f < N_FAMILIES; f++)
    for (const rlx_onnx_converter_t* c = families[f]; c->op_type; c++)
      if (strcmp(c->op_type, op_type) == 0 && c->since_version <= opset &&
          (!best || c->since_version > best->since_version))
        best = c;
  return best;
}

void rlx_onnx_converter_families(const rlx_onnx_converter_t* const** out, int* out_n) {
  *out = families;
  *out_n = N_FAMILIES;
}

/* ------------------------------------------------------------------ services */
rlx_ctx_t* rlx_onnx_ctx(rlx_onnx_importer_t* im) { return im->ctx; }
rlx_bb_t* rlx_onnx_bb(rlx_onnx_importer_t* im) { return im->bb; }
int rlx_onnx_opset(const rlx_onnx_importer_t* im) { return im->opset; }

/* "node 'name' (Op)", or "node (Op) producing 'y'" for a node without a name. */
static const char* node_label(const rlx_onnx_node_t* node, char* buf, size_t n) {
  if (node->name && node->name[0]) snprintf(buf, n, "node '%s' (%s)", node->name, node->op_type);
  else if (node->n_outputs > 0 && node->outputs[0][0])
    snprintf(buf, n, "node (%s) producing '%s'", node->op_type, node->outputs[0]);
  else snprintf(buf, n, "node (%s)", node->op_type);
  return buf;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_error(const rlx_onnx_node_t* node, const char* fmt, ...) {
  char label[512];
  va_list ap;
  va_start(ap, fmt);
  rlx_status_t* st = rlx_status_createv(RLX_INVALID_ARGUMENT, fmt, ap);
  va_end(ap);
  return rlx_status_annotate(st, "%s", node_label(node, label, sizeof(label)));
}

/* Folding limits (rlx_fold_limits_t). Import folds so that the next converter can read a
 * shape or an axis computed from constants: the ONNX suite's largest such fold is 80
 * elements. Anything larger is left to the fold_constants pass (which can run it compiled)
 * or to run time, so the limits are small: 64K output elements and 64K interpreter
 * statements per fold, 256K for the whole import (subgraphs included). Every import then
 * finishes quickly whatever the model (fuzz_onnx: a MaxUnpool of 736K zeros folded at
 * import took 29 s under its sanitizers and a loaded machine, over libFuzzer's limit). */
enum { FOLD_MAX_ELEMS = 64 * 1024, FOLD_MAX_WORK = 64 * 1024, FOLD_IMPORT_WORK = 256 * 1024 };

static rlx_fold_limits_t fold_limits(rlx_onnx_importer_t* im) {
  return (rlx_fold_limits_t){FOLD_MAX_ELEMS, FOLD_MAX_WORK, NULL, 0, 0, im->fold_work_left};
}

/* A constant argument: a Constant, a ShapeExpr / PrimValue of constants, an immediate, or a
 * Tuple of those. */
static bool is_const_arg(const rlx_relax_expr_t* a) {
  switch (a->kind) {
    case RLX_RELAX_CONSTANT:
    case RLX_RELAX_STRING_IMM:
    case RLX_RELAX_DATA_TYPE_IMM:
      return true;
    case RLX_RELAX_SHAPE_EXPR: {
      const rlx_relax_shape_expr_t* s = (const rlx_relax_shape_expr_t*)a;
      for (int i = 0; i < s->ndim; i++)
        if (!rlx_expr_is_const_int(s->values[i], NULL)) return false;
      return true;
    }
    case RLX_RELAX_PRIM_VALUE: {
      const rlx_expr_t* v = ((const rlx_relax_prim_value_t*)a)->value;
      return v->kind == RLX_EXPR_INT_IMM || v->kind == RLX_EXPR_FLOAT_IMM;
    }
    case RLX_RELAX_TUPLE: {
      const rlx_relax_tuple_t* t = (const rlx_relax_tuple_t*)a;
      for (int i = 0; i < t->n_fields; i++)
        if (!is_const_arg(t->fields[i])) return false;
      return true;
    }
    default:
      return false;
  }
}

static rlx_relax_constant_t* const_arg(rlx_relax_expr_t* e, void* user) {
  return e->kind == RLX_RELAX_CONSTANT ? (rlx_relax_constant_t*)e : NULL;
}

/* Runs call_tir c (a PrimFunc of m, all args constant) with the TIR interpreter; *out gets
 * the Constant, or NULL when it cannot be folded (too large, not interpretable). */
static RLX_MUST_USE rlx_status_t* fold_call_tir(rlx_onnx_importer_t* im, rlx_module_t* m, const rlx_relax_call_t* c,
                                                rlx_relax_expr_t** out) {
  rlx_fold_limits_t lim = fold_limits(im);
  return rlx_fold_call_tir(im->ctx, m, c, const_arg, NULL, &lim, out);
}

/* Folds a call of a registered op whose arguments are all constant: legalized in a scratch
 * module (so the main module gets no PrimFunc for it), then interpreted. */
static RLX_MUST_USE rlx_status_t* fold_op_call(rlx_onnx_importer_t* im, const rlx_relax_call_t* c, rlx_relax_expr_t** out) {
  *out = NULL;
  if (c->op->kind != RLX_RELAX_OP) return NULL;
  const rlx_op_def_t* def = ((const rlx_relax_op_t*)c->op)->def;
  if (!def || !def->legalize || !def->is_pure) return NULL;
  for (int i = 0; i < c->n_args; i++)
    if (!is_const_arg(c->args[i])) return NULL;
  int64_t* shape = NULL;
  int64_t numel = 0;
  if (!rlx_fold_static_shape(im->ctx, c->hdr.sinfo, FOLD_MAX_ELEMS, &shape, &numel)) return NULL;
  rlx_bb_t* sb = rlx_bb_create(im->ctx, NULL);
  rlx_relax_expr_t* lowered = NULL;
  rlx_status_t* st = def->legalize(sb, c, &lowered);
  if (st || !lowered) { /* left to the pipeline, which reports real problems */
    rlx_status_free(st);
    return NULL;
  }
  if (lowered->kind == RLX_RELAX_CONSTANT) {
    *out = lowered;
    return NULL;
  }
  if (lowered->kind != RLX_RELAX_CALL) return NULL;
  return fold_call_tir(im, rlx_bb_get(sb), (const rlx_relax_call_t*)lowered, out);
}

RLX_MUST_USE rlx_status_t* rlx_onnx_emit(rlx_onnx_importer_t* im, rlx_relax_expr_t* e, rlx_relax_expr_t** out) {
  *out = NULL;
  RLX_RETURN_IF_ERROR(rlx_bb_normalize(im->bb, e));
  switch (e->kind) {
    case RLX_RELAX_CONSTANT:
    case RLX_RELAX_VAR:
    case RLX_RELAX_DATAFLOW_VAR:
    case RLX_RELAX_SHAPE_EXPR:
    case RLX_RELAX_PRIM_VALUE:
    case RLX_RELAX_STRING_IMM:
    case RLX_RELAX_DATA_TYPE_IMM:
      *out = e; /* already a value: no binding */
      return NULL;
    case RLX_RELAX_TUPLE_GET_ITEM: {
      rlx_relax_tuple_get_item_t* g = (rlx_relax_tuple_get_item_t*)e;
      if (g->tuple->kind == RLX_RELAX_TUPLE && g->index >= 0 &&
          g->index < ((rlx_relax_tuple_t*)g->tuple)->n_fields) {
        *out = ((rlx_relax_tuple_t*)g->tuple)->fields[g->index];
        return NULL;
      }
      break;
    }
    case RLX_RELAX_CALL: {
      rlx_relax_call_t* c = (rlx_relax_call_t*)e;
      rlx_relax_expr_t* k = NULL;
      if (rlx_relax_is_op(c->op, RLX_OP_CALL_TIR)) {
        bool all_const = c->n_args >= 2 && is_const_arg(c->args[1]);
        if (all_const) RLX_RETURN_IF_ERROR(fold_call_tir(im, rlx_bb_get(im->bb), c, &k));
      } else {
        RLX_RETURN_IF_ERROR(fold_op_call(im, c, &k));
      }
      if (k) {
        *out = k;
        return NULL;
      }
      break;
    }
    default:
      break;
  }
  rlx_relax_var_t* v = NULL;
  RLX_RETURN_IF_ERROR(rlx_bb_emit(im->bb, e, NULL, &v));
  *out = &v->hdr;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_emit_te(rlx_onnx_importer_t* im, rlx_bb_te_fn_t f, void* user, int n_args,
                                            rlx_relax_expr_t* const* args, const char* name, rlx_relax_expr_t** out) {
  *out = NULL;
  bool all_const = true;
  for (int i = 0; i < n_args; i++) all_const &= args[i]->kind == RLX_RELAX_CONSTANT;
  if (all_const) { /* built in a scratch module and run now */
    rlx_bb_t* sb = rlx_bb_create(im->ctx, NULL);
    rlx_relax_expr_t* call = NULL;
    RLX_RETURN_IF_ERROR(rlx_bb_call_te(sb, f, user, n_args, args, name, &call));
    rlx_relax_expr_t* k = NULL;
    if (call->kind == RLX_RELAX_CALL)
      RLX_RETURN_IF_ERROR(fold_call_tir(im, rlx_bb_get(sb), (rlx_relax_call_t*)call, &k));
    if (k) {
      *out = k;
      return NULL;
    }
  }
  rlx_relax_var_t* v = NULL;
  RLX_RETURN_IF_ERROR(rlx_bb_emit_te(im->bb, f, user, n_args, args, name, NULL, &v));
  *out = &v->hdr;
  return NULL;
}

bool rlx_onnx_const(rlx_onnx_importer_t* im, rlx_relax_expr_t* e, rlx_onnx_tensor_t* out) {
  if (!e || e->kind != RLX_RELAX_CONSTANT) return false;
  const rlx_relax_constant_t* k = (const rlx_relax_constant_t*)e;
  out->dtype = k->dtype;
  out->ndim = k->ndim;
  out->shape = k->shape;
  out->data = k->data;
  return true;
}

static int64_t numel_of(int ndim, const int64_t* shape) {
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= shape[i];
  return n;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_const_ints(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, int input,
                                               rlx_relax_expr_t* e, int64_t** out_vals, int* out_n) {
  *out_vals = NULL;
  *out_n = 0;
  const char* iname = input >= 0 && input < node->n_inputs ? node->inputs[input] : "?";
  rlx_onnx_tensor_t t;
  if (!rlx_onnx_const(im, e, &t))
    return rlx_onnx_error(node, "input %d ('%s') must be a constant (computed at import time)", input, iname);
  if (t.dtype.lanes != 1 || (t.dtype.code != RLX_DT_INT && t.dtype.code != RLX_DT_UINT)) {
    char b[32];
    return rlx_onnx_error(node, "input %d ('%s') must be an integer tensor, got %s", input, iname,
                          rlx_dtype_str(t.dtype, b));
  }
  int64_t n = numel_of(t.ndim, t.shape);
  int64_t* v = RLX_NEW_ARRAY(im->ctx, int64_t, n);
  for (int64_t i = 0; i < n; i++) {
    bool s = t.dtype.code == RLX_DT_INT;
    switch (t.dtype.bits) {
      case 1:
      case 8: v[i] = s ? ((const int8_t*)t.data)[i] : ((const uint8_t*)t.data)[i]; break;
      case 16: v[i] = s ? ((const int16_t*)t.data)[i] : ((const uint16_t*)t.data)[i]; break;
      case 32: v[i] = s ? (int64_t)((const int32_t*)t.data)[i] : (int64_t)((const uint32_t*)t.data)[i]; break;
      default: v[i] = ((const int64_t*)t.data)[i]; break;
    }
  }
  *out_vals = v;
  *out_n = (int)n;
  return NULL;
}

rlx_relax_expr_t* rlx_onnx_make_const(rlx_onnx_importer_t* im, rlx_dtype_t dtype, int ndim, const int64_t* shape,
                                      const void* data) {
  size_t nbytes = (size_t)numel_of(ndim, shape) * (size_t)rlx_dtype_bytes(dtype);
  rlx_relax_expr_t* k = rlx_relax_constant(im->ctx, dtype, ndim, shape, data, nbytes);
  if (!k) return NULL;
  rlx_status_t* st = rlx_relax_normalize(im->ctx, NULL, k);
  if (st) { /* a constant always normalizes; keep the node without struct info otherwise */
    rlx_status_free(st);
  }
  return k;
}

/* ------------------------------------------------------------------ attributes */
static const Onnx__AttributeProto* find_attr(const rlx_onnx_node_t* node, const char* key) {
  const Onnx__NodeProto* p = node->proto;
  if (!p) return NULL;
  for (size_t i = 0; i < p->n_attribute; i++)
    if (p->attribute[i]->name && strcmp(p->attribute[i]->name, key) == 0) return p->attribute[i];
  return NULL;
}

bool rlx_onnx_has_attr(const rlx_onnx_node_t* node, const char* key) { return find_attr(node, key) != NULL; }

int64_t rlx_onnx_attr_int(const rlx_onnx_node_t* node, const char* key, int64_t dflt) {
  const Onnx__AttributeProto* a = find_attr(node, key);
  if (!a) return dflt;
  if (a->has_i) return a->i;
  /* a float given for an int attribute: out of int64's range (or NaN) is clamped, never a
   * cast with undefined behaviour (fuzz finding: RoiAlign with -2.7e36) */
  if (a->has_f) {
    if (!(a->f == a->f)) return dflt;
    if (a->f >= 9.2e18f) return INT64_MAX;
    if (a->f <= -9.2e18f) return INT64_MIN;
    return (int64_t)a->f;
  }
  return dflt;
}

double rlx_onnx_attr_float(const rlx_onnx_node_t* node, const char* key, double dflt) {
  const Onnx__AttributeProto* a = find_attr(node, key);
  if (!a) return dflt;
  if (a->has_f) return a->f;
  if (a->has_i) return (double)a->i;
  return dflt;
}

const char* rlx_onnx_attr_string(const rlx_onnx_node_t* node, const char* key, const char* dflt) {
  const Onnx__AttributeProto* a = find_attr(node, key);
  if (!a || !a->has_s) return dflt;
  return a->s.data ? (const char*)a->s.data : ""; /* NUL-terminated by the reader's allocator */
}

int rlx_onnx_attr_ints(const rlx_onnx_node_t* node, const char* key, const int64_t** out) {
  const Onnx__AttributeProto* a = find_attr(node, key);
  *out = NULL;
  if (!a) return -1;
  if (a->n_ints == 0 && a->has_i) { /* a single int where a list is expected */
    *out = &a->i;
    return 1;
  }
  *out = a->ints;
  return (int)a->n_ints;
}

int rlx_onnx_attr_strings_count(const rlx_onnx_node_t* node, const char* key) {
  const Onnx__AttributeProto* a = find_attr(node, key);
  return a ? (int)a->n_strings : -1;
}

const char* rlx_onnx_attr_string_at(const rlx_onnx_node_t* node, const char* key, int i) {
  const Onnx__AttributeProto* a = find_attr(node, key);
  if (!a || i < 0 || (size_t)i >= a->n_strings) return NULL;
  return a->strings[i].data ? (const char*)a->strings[i].data : "";
}

int rlx_onnx_attr_floats(const rlx_onnx_node_t* node, const char* key, const float** out) {
  const Onnx__AttributeProto* a = find_attr(node, key);
  *out = NULL;
  if (!a) return -1;
  if (a->n_floats == 0 && a->has_f) {
    *out = &a->f;
    return 1;
  }
  *out = a->floats;
  return (int)a->n_floats;
}

/* A decoded TensorProto as a Relax constant. */
static RLX_MUST_USE rlx_status_t* tensor_const(rlx_onnx_importer_t* im, const Onnx__TensorProto* t, const char* what,
                                               rlx_relax_expr_t** out) {
  rlx_onnx_decoded_t d;
  RLX_RETURN_IF_ERROR(rlx_onnx_tensor_decode(t, what, &d));
  *out = rlx_onnx_make_const(im, d.dtype, d.ndim, d.shape, d.data);
  free(d.data);
  if (!*out) return rlx_status_create(RLX_INTERNAL, "%s: constant could not be built", what);
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_attr_tensor(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, const char* key,
                                                rlx_relax_expr_t** out) {
  *out = NULL;
  const Onnx__AttributeProto* a = find_attr(node, key);
  if (!a) return rlx_onnx_error(node, "missing attribute '%s'", key);
  if (a->sparse_tensor) return rlx_onnx_error(node, "attribute '%s' is a sparse tensor, which is not supported", key);
  if (!a->t) return rlx_onnx_error(node, "attribute '%s' is not a tensor", key);
  rlx_status_t* st = tensor_const(im, a->t, rlx_ctx_sprintf(im->ctx, "attribute '%s'", key), out);
  if (st) {
    char label[512];
    return rlx_status_annotate(st, "%s", node_label(node, label, sizeof(label)));
  }
  return NULL;
}

/* ------------------------------------------------------------------ import */
/* A value name whose node declared it but whose converter does not produce it. */
static const int not_produced_tag = 0;
#define NOT_PRODUCED ((void*)&not_produced_tag)

bool rlx_onnx_value_get(rlx_onnx_importer_t* im, const char* name, rlx_relax_expr_t** out) {
  void* v = NULL;
  if (!rlx_onnx_strmap_get(&im->values, name, &v) || v == NOT_PRODUCED) return false;
  *out = v;
  return true;
}

const Onnx__GraphProto* rlx_onnx_attr_graph(const rlx_onnx_node_t* node, const char* key) {
  const Onnx__AttributeProto* a = find_attr(node, key);
  return a ? a->g : NULL;
}

static bool is_default_domain(const char* d) { return !d || !d[0] || strcmp(d, "ai.onnx") == 0; }

/* The converter of a node: by op type at the model's opset in the default domain, by
 * "DOMAIN.Op" at the opset the model imports for DOMAIN elsewhere. */
static const rlx_onnx_converter_t* converter_for(rlx_onnx_importer_t* im, const char* op_type, const char* domain) {
  if (is_default_domain(domain)) return rlx_onnx_find_converter(op_type, im->opset);
  int v = rlx_onnx_model_opset(im->model, domain);
  if (v < 0) return NULL;
  return rlx_onnx_find_converter(rlx_ctx_sprintf(im->ctx, "%s.%s", domain, op_type), v);
}

/* Every node without a converter for the model's opset, reported at once. */
RLX_MUST_USE rlx_status_t* rlx_onnx_check_supported(rlx_onnx_importer_t* im, const Onnx__GraphProto* g) {
  rlx_strbuf_t sb = {0};
  int n_bad = 0;
  for (size_t i = 0; i < g->n_node; i++) {
    const Onnx__NodeProto* p = g->node[i];
    bool dflt = is_default_domain(p->domain);
    if (converter_for(im, p->op_type, p->domain)) continue;
    if (n_bad++ < 100) {
      int v = dflt ? im->opset : rlx_onnx_model_opset(im->model, p->domain);
      rlx_strbuf_append(&sb, n_bad > 1 ? ", node " : "node ");
      if (p->name && p->name[0]) rlx_strbuf_printf(&sb, "'%s' ", p->name);
      else if (p->n_output > 0) rlx_strbuf_printf(&sb, "#%zu producing '%s' ", i, p->output[0]);
      else rlx_strbuf_printf(&sb, "#%zu ", i);
      if (dflt) rlx_strbuf_printf(&sb, "(%s, opset %d)", p->op_type, v);
      else if (v >= 0) rlx_strbuf_printf(&sb, "(%s.%s, opset %d)", p->domain, p->op_type, v);
      else rlx_strbuf_printf(&sb, "(%s.%s, domain not imported)", p->domain, p->op_type);
    }
  }
  if (n_bad > 100) rlx_strbuf_printf(&sb, ", and %d more", n_bad - 100);
  rlx_status_t* st = NULL;
  if (n_bad) st = rlx_status_create(RLX_UNSUPPORTED, "unsupported ONNX ops: %s", rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_add_initializers(rlx_onnx_importer_t* im, const Onnx__GraphProto* g) {
  for (size_t i = 0; i < g->n_initializer; i++) {
    const Onnx__TensorProto* t = g->initializer[i];
    rlx_relax_expr_t* k = NULL;
    RLX_RETURN_IF_ERROR(tensor_const(im, t, rlx_ctx_sprintf(im->ctx, "initializer '%s'", t->name), &k));
    rlx_onnx_strmap_put(&im->values, t->name, k);
  }
  if (g->n_sparse_initializer)
    return rlx_status_create(RLX_UNSUPPORTED, "sparse initializers are not supported");
  return NULL;
}

/* A bound graph input as a constant, checked against its declared type. */
static RLX_MUST_USE rlx_status_t* bind_input(rlx_onnx_importer_t* im, const char* name, const rlx_sinfo_tensor_t* s,
                                             const DLTensor* v, rlx_relax_expr_t** out) {
  rlx_dtype_t dt = rlx_dtype(v->dtype.code, v->dtype.bits, v->dtype.lanes);
  char a[32], b[32];
  if (dt.code != s->dtype.code || dt.bits != s->dtype.bits || dt.lanes != s->dtype.lanes)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "bound input '%s': expected dtype %s, got %s", name,
                             rlx_dtype_str(s->dtype, a), rlx_dtype_str(dt, b));
  if (s->ndim >= 0 && s->ndim != v->ndim)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "bound input '%s': expected rank %d, got %d", name, s->ndim,
                             v->ndim);
  for (int d = 0; s->shape && d < s->ndim; d++) {
    int64_t want = 0;
    if (rlx_expr_is_const_int(s->shape[d], &want) && want != v->shape[d])
      return rlx_status_create(RLX_INVALID_ARGUMENT, "bound input '%s': dimension %d is %lld, expected %lld", name, d,
                               (long long)v->shape[d], (long long)want);
  }
  *out = rlx_onnx_make_const(im, dt, v->ndim, v->shape, (const uint8_t*)v->data + v->byte_offset);
  if (!*out) return rlx_status_create(RLX_INTERNAL, "bound input '%s': constant could not be built", name);
  return NULL;
}

static bool is_string_type(const Onnx__TypeProto* tp) {
  return tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && tp->tensor_type && tp->tensor_type->has_elem_type &&
         tp->tensor_type->elem_type == ONNX__TENSOR_PROTO__DATA_TYPE__STRING;
}

/* Graph inputs that are not initializers (opset < 9 models list initializers as inputs too). */
static RLX_MUST_USE rlx_status_t* make_params(rlx_onnx_importer_t* im, int* out_n, rlx_relax_var_t*** out_params) {
  const Onnx__GraphProto* g = im->model->graph;
  rlx_relax_var_t** params = RLX_NEW_ARRAY(im->ctx, rlx_relax_var_t*, (int)g->n_input);
  int n = 0;
  for (size_t i = 0; i < g->n_input; i++) {
    const Onnx__ValueInfoProto* vi = g->input[i];
    if (rlx_onnx_strmap_get(&im->values, vi->name, NULL)) {
      bool is_init = false;
      for (size_t k = 0; k < g->n_initializer && !is_init; k++) is_init = strcmp(g->initializer[k]->name, vi->name) == 0;
      if (is_init) continue;
      return rlx_status_create(RLX_PARSE_ERROR, "graph input '%s' is listed twice", vi->name);
    }
    rlx_sinfo_t* s = NULL;
    const char* what = rlx_ctx_sprintf(im->ctx, "graph input '%s'", vi->name);
    const DLTensor* bound = NULL;
    for (int k = 0; im->opts && k < im->opts->n_bind; k++)
      if (strcmp(im->opts->bind_names[k], vi->name) == 0) bound = im->opts->bind_values[k];
    if (vi->type && (vi->type->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE ||
                     vi->type->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE || is_string_type(vi->type))) {
      /* a sequence (of a length only the run decides), an optional or a string tensor: an
       * R.Object param */
      const rlx_onnx_type_t* t = NULL;
      RLX_RETURN_IF_ERROR(rlx_onnx_type_from_proto(im, vi->type, what, 0, &t));
      if (bound) return rlx_status_create(RLX_UNSUPPORTED, "%s: only tensors can be bound", what);
      rlx_onnx_set_value_type(im, vi->name, t);
      s = rlx_sinfo_object(im->ctx);
    } else {
      RLX_RETURN_IF_ERROR(rlx_onnx_value_info_sinfo(im, vi, what, &s));
    }
    if (bound) {
      rlx_relax_expr_t* c = NULL;
      RLX_RETURN_IF_ERROR(bind_input(im, vi->name, (rlx_sinfo_tensor_t*)s, bound, &c));
      rlx_onnx_strmap_put(&im->values, vi->name, c);
      continue;
    }
    params[n] = rlx_relax_var(im->ctx, rlx_onnx_ident(im->ctx, vi->name), s);
    rlx_onnx_strmap_put(&im->values, vi->name, &params[n]->hdr);
    n++;
  }
  *out_n = n;
  *out_params = params;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_convert_node(rlx_onnx_importer_t* im, const Onnx__NodeProto* p) {
  rlx_ctx_t* ctx = im->ctx;
  rlx_onnx_node_t node;
  node.name = p->name ? p->name : "";
  node.op_type = p->op_type;
  node.domain = p->domain ? p->domain : "";
  node.n_inputs = (int)p->n_input;
  node.inputs = (const char* const*)p->input;
  node.n_outputs = (int)p->n_output;
  node.outputs = (const char* const*)p->output;
  node.proto = p;
  char label[512];
  node_label(&node, label, sizeof(label));
  rlx_relax_expr_t** ins = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, node.n_inputs);
  for (int i = 0; i < node.n_inputs; i++) {
    const char* nm = node.inputs[i];
    if (!nm[0]) continue; /* omitted optional input */
    void* v = NULL;
    if (!rlx_onnx_strmap_get(&im->values, nm, &v))
      return rlx_status_create(RLX_INVALID_ARGUMENT,
                               "%s: input %d '%s' is not defined (not a graph input, an initializer or an output of "
                               "an earlier node)",
                               label, i, nm);
    if (v == NOT_PRODUCED)
      return rlx_status_create(RLX_UNSUPPORTED, "%s: input %d '%s' is an output its producer does not compute", label,
                               i, nm);
    ins[i] = v;
  }
  /* every ONNX operator has at least one output, and converters name outputs[0] */
  if (node.n_outputs < 1)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: a %s node must have at least one output", label, node.op_type);
  const rlx_onnx_converter_t* conv = converter_for(im, node.op_type, node.domain);
  if (!conv) return rlx_status_create(RLX_INTERNAL, "%s: no converter", label); /* checked before */
  rlx_relax_expr_t** outs = RLX_NEW_ARRAY(ctx, rlx_relax_expr_t*, node.n_outputs);
  rlx_status_t* st = conv->convert(im, &node, ins, outs);
  if (st) { /* converters' own errors already name the node */
    if (strncmp(rlx_status_message(st), label, strlen(label)) != 0) st = rlx_status_annotate(st, "%s", label);
    return st;
  }
  for (int k = 0; k < node.n_outputs; k++) {
    const char* nm = node.outputs[k];
    if (!nm[0]) continue;
    rlx_relax_expr_t* e = outs[k];
    if (e && (!e->sinfo || e->kind == RLX_RELAX_CALL)) { /* not emitted by the converter */
      st = rlx_onnx_emit(im, e, &e);
      if (st) return rlx_status_annotate(st, "%s", label);
    }
    rlx_onnx_strmap_put(&im->values, nm, e ? (void*)e : NOT_PRODUCED);
  }
  return NULL;
}

/* The graph output `vi` as an expression, checked against its declared element type. */
RLX_MUST_USE rlx_status_t* rlx_onnx_graph_output(rlx_onnx_importer_t* im, const Onnx__ValueInfoProto* vi, bool any_kind,
                                                 rlx_relax_expr_t** out) {
  void* v = NULL;
  if (!rlx_onnx_strmap_get(&im->values, vi->name, &v) || v == NOT_PRODUCED)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "graph output '%s' is not computed by any node", vi->name);
  rlx_relax_expr_t* e = v;
  bool declared_other = vi->type && (vi->type->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE ||
                                     vi->type->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE ||
                                     is_string_type(vi->type));
  if ((any_kind || declared_other) && e->sinfo &&
      (e->sinfo->kind == RLX_SINFO_TUPLE || e->sinfo->kind == RLX_SINFO_OBJECT ||
       (declared_other && e->sinfo->kind == RLX_SINFO_TENSOR))) {
    *out = e;
    return NULL;
  }
  if (!e->sinfo || e->sinfo->kind != RLX_SINFO_TENSOR)
    return rlx_status_create(RLX_UNSUPPORTED, "graph output '%s' is not a tensor (%s)", vi->name,
                             rlx_sinfo_str(im->ctx, e->sinfo));
  rlx_dtype_t want;
  rlx_dtype_t got = ((rlx_sinfo_tensor_t*)e->sinfo)->dtype;
  if (vi->type && vi->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && vi->type->tensor_type &&
      vi->type->tensor_type->has_elem_type && rlx_onnx_dtype_from_elem(vi->type->tensor_type->elem_type, &want) &&
      !rlx_dtype_is_void(got) && (want.code != got.code || want.bits != got.bits)) {
    char a[32], b[32];
    return rlx_status_create(RLX_INVALID_ARGUMENT, "graph output '%s' is declared %s but computed as %s", vi->name,
                             rlx_dtype_str(want, a), rlx_dtype_str(got, b));
  }
  *out = e;
  return NULL;
}

/* The module with only the functions main reaches: PrimFuncs left unused by folded
 * call_tirs, and the private functions of a Loop body whose first import was abandoned. */
static void collect_gv(const rlx_relax_expr_t* e, void* user) {
  if (e->kind == RLX_RELAX_GLOBAL_VAR) rlx_onnx_strmap_put(user, ((const rlx_relax_global_var_t*)e)->name, NULL);
}

static rlx_module_t* drop_dead_funcs(rlx_ctx_t* ctx, rlx_module_t* m) {
  rlx_onnx_strmap_t used = {0}, visited = {0};
  rlx_onnx_strmap_put(&used, "main", NULL);
  for (bool grew = true; grew;) { /* visit every reached Relax function once */
    grew = false;
    for (int i = 0; i < m->n_funcs; i++) {
      const char* nm = m->funcs[i].name;
      if (m->funcs[i].kind != RLX_FUNC_RELAX || !rlx_onnx_strmap_get(&used, nm, NULL) ||
          rlx_onnx_strmap_get(&visited, nm, NULL))
        continue;
      rlx_onnx_strmap_put(&visited, nm, NULL);
      rlx_relax_expr_visit(&((rlx_relax_func_t*)m->funcs[i].func)->hdr, collect_gv, &used);
      grew = true;
    }
  }
  bool dead = false;
  for (int i = 0; i < m->n_funcs; i++) dead |= !rlx_onnx_strmap_get(&used, m->funcs[i].name, NULL);
  rlx_module_t* r = m;
  if (dead) {
    r = rlx_module_create(ctx);
    for (int i = 0; i < m->n_funcs; i++)
      if (rlx_onnx_strmap_get(&used, m->funcs[i].name, NULL))
        rlx_module_set(r, m->funcs[i].name, m->funcs[i].kind, m->funcs[i].func);
  }
  rlx_onnx_strmap_free(&used);
  rlx_onnx_strmap_free(&visited);
  return r;
}

/* True when a node of g is If, Loop or Scan (its function then has no dataflow block: an If
 * binding may not stand in one). */
bool rlx_onnx_has_control_flow(const Onnx__GraphProto* g) {
  for (size_t i = 0; i < g->n_node; i++) {
    const char* op = g->node[i]->op_type;
    if (strcmp(op, "If") == 0 || strcmp(op, "Loop") == 0 || strcmp(op, "Scan") == 0) return true;
  }
  return false;
}

/* The nodes and outputs of g as the body of the open function (in a dataflow block unless g
 * has control flow), ending with its result. out_n_out: the output count (may be NULL). */
static RLX_MUST_USE rlx_status_t* graph_body(rlx_onnx_importer_t* im, const Onnx__GraphProto* g, int* out_n_out) {
  bool dataflow = !rlx_onnx_has_control_flow(g);
  if (dataflow) RLX_RETURN_IF_ERROR(rlx_bb_dataflow_begin(im->bb));
  for (size_t i = 0; i < g->n_node; i++) RLX_RETURN_IF_ERROR(rlx_onnx_convert_node(im, g->node[i]));
  int n_out = (int)g->n_output;
  if (out_n_out) *out_n_out = n_out;
  rlx_relax_expr_t** outs = RLX_NEW_ARRAY(im->ctx, rlx_relax_expr_t*, n_out);
  for (int i = 0; i < n_out; i++) RLX_RETURN_IF_ERROR(rlx_onnx_graph_output(im, g->output[i], false, &outs[i]));
  if (im->opts && im->opts->out_output_types) { /* declared types (else what was computed) for the caller */
    const char** types = RLX_NEW_ARRAY(im->ctx, const char*, n_out);
    for (int i = 0; i < n_out; i++) {
      const rlx_onnx_type_t* t = NULL;
      const Onnx__TypeProto* tp = g->output[i]->type;
      if (!tp || tp->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET ||
          rlx_onnx_type_from_proto(im, tp, "graph output", 0, &t) != NULL) /* errors were reported above */
        t = rlx_onnx_value_type(im, g->output[i]->name, outs[i]);
      types[i] = rlx_onnx_type_text(im->ctx, t);
    }
    *im->opts->out_output_types = types;
  }
  return rlx_onnx_func_result(im, n_out == 1 ? outs[0] : rlx_relax_tuple(im->ctx, n_out, outs), dataflow);
}

RLX_MUST_USE rlx_status_t* rlx_onnx_func_result(rlx_onnx_importer_t* im, rlx_relax_expr_t* result, bool dataflow) {
  if (result->kind != RLX_RELAX_VAR) { /* a param is returned as it is */
    rlx_relax_var_t* gv = NULL;
    RLX_RETURN_IF_ERROR(dataflow ? rlx_bb_emit_output(im->bb, result, "gv", &gv) : rlx_bb_emit(im->bb, result, "gv", &gv));
    result = &gv->hdr;
  }
  if (dataflow) RLX_RETURN_IF_ERROR(rlx_bb_dataflow_end(im->bb));
  return rlx_bb_emit_func_output(im->bb, result, -1, NULL);
}

static RLX_MUST_USE rlx_status_t* import_graph(rlx_onnx_importer_t* im, rlx_module_t** out) {
  const Onnx__GraphProto* g = im->model->graph;
  RLX_RETURN_IF_ERROR(rlx_onnx_check_supported(im, g));
  RLX_RETURN_IF_ERROR(rlx_onnx_add_initializers(im, g));
  for (int k = 0; im->opts && k < im->opts->n_bind; k++) {
    bool found = false;
    for (size_t i = 0; i < g->n_input && !found; i++) found = strcmp(g->input[i]->name, im->opts->bind_names[k]) == 0;
    if (!found) return rlx_status_create(RLX_INVALID_ARGUMENT, "bound input '%s' is not a graph input", im->opts->bind_names[k]);
  }
  int n_params = 0;
  rlx_relax_var_t** params = NULL;
  RLX_RETURN_IF_ERROR(make_params(im, &n_params, &params));
  if (im->opts && im->opts->out_param_types && im->opts->out_n_params) {
    const char** types = RLX_NEW_ARRAY(im->ctx, const char*, n_params);
    for (int i = 0; i < n_params; i++) types[i] = "tensor";
    for (size_t i = 0, k = 0; i < g->n_input && (int)k < n_params; i++) { /* the inputs made params, in order */
      rlx_relax_expr_t* v = NULL;
      if (!rlx_onnx_value_get(im, g->input[i]->name, &v) || v != &params[k]->hdr) continue;
      void* t = NULL;
      if (rlx_onnx_strmap_get(im->types, g->input[i]->name, &t)) types[k] = rlx_onnx_type_text(im->ctx, t);
      k++;
    }
    *im->opts->out_param_types = types;
    *im->opts->out_n_params = n_params;
  }
  if (g->n_output == 0) return rlx_status_create(RLX_INVALID_ARGUMENT, "the graph has no outputs");
  im->bb = rlx_bb_create(im->ctx, NULL);
  RLX_RETURN_IF_ERROR(rlx_bb_function_begin(im->bb, "main", n_params, params));
  int n_out = 0;
  RLX_RETURN_IF_ERROR(graph_body(im, g, &n_out));
  RLX_RETURN_IF_ERROR(rlx_bb_function_end(im->bb, NULL));
  *out = drop_dead_funcs(im->ctx, rlx_bb_get(im->bb));
  if (im->opts && im->opts->out_output_names && im->opts->out_n_outputs) {
    const char** names = RLX_NEW_ARRAY(im->ctx, const char*, n_out);
    for (int i = 0; i < n_out; i++) names[i] = rlx_ctx_strdup(im->ctx, g->output[i]->name);
    *im->opts->out_output_names = names;
    *im->opts->out_n_outputs = n_out;
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* import_bytes(rlx_ctx_t* ctx, const void* data, size_t n, const char* name,
                                               const rlx_onnx_import_options_t* opts, rlx_module_t** out) {
  *out = NULL;
  uint64_t mark = rlx_alloc_failures();
  Onnx__ModelProto* model = NULL;
  RLX_RETURN_IF_ERROR(rlx_onnx_model_unpack(data, n, name, &model));
  rlx_onnx_importer_t im;
  memset(&im, 0, sizeof(im));
  im.ctx = ctx;
  im.file = name;
  im.model = model;
  im.opts = opts;
  rlx_onnx_strmap_t types = {0};
  im.types = &types;
  double fold_work_left = FOLD_IMPORT_WORK;
  im.fold_work_left = &fold_work_left;
  im.opset = rlx_onnx_model_opset(model, "");
  if (im.opset < 0) im.opset = 1; /* models of IR version 1 may not say; opset 1 then */
  rlx_status_t* st = import_graph(&im, out);
  rlx_onnx_strmap_free(&im.values);
  rlx_onnx_strmap_free(&im.dims);
  rlx_onnx_strmap_free(&types);
  rlx_onnx_model_free(model);
  /* a failed allocation (a lost map entry, a dropped push) fails the import, whatever it gave */
  st = rlx_ctx_check(ctx, mark, st);
  if (st) {
    *out = NULL;
    return rlx_status_annotate(st, "%s", name);
  }
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_import_bytes(rlx_ctx_t* ctx, const void* data, size_t n, const char* name, rlx_module_t** out) {
  return import_bytes(ctx, data, n, name, NULL, out);
}

RLX_MUST_USE rlx_status_t* rlx_onnx_import_file_ex(rlx_ctx_t* ctx, const char* path, const rlx_onnx_import_options_t* opts,
                                                   rlx_module_t** out) {
  *out = NULL;
  char* data = NULL;
  size_t n = 0;
  RLX_RETURN_IF_ERROR(rlx_file_read(path, &data, &n));
  rlx_status_t* st = import_bytes(ctx, data, n, path, opts, out);
  free(data);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_import_file(rlx_ctx_t* ctx, const char* path, rlx_module_t** out) {
  return rlx_onnx_import_file_ex(ctx, path, NULL, out);
}
