/* Helpers of the ONNX "tensor" converter tests (test_onnx_tensor*.c): a minimal protobuf
 * writer for one-node ModelProto bytes with typed initializers and graph inputs, an importer
 * run that reads back the folded constant results, and a compile-and-run path through the VM
 * for graphs with real inputs. */
#ifndef RLX_TEST_ONNX_TENSOR_UTIL_H
#define RLX_TEST_ONNX_TENSOR_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/vm_build.h"
#include "frontend/onnx/onnx_import.h"
#include "rlx/vm.h"
#include "test.h"

/* ---------------------------------------------------------------- protobuf writer */
typedef struct {
  uint8_t* p;
  size_t n, cap;
} pb_t;

static inline void pb_raw(pb_t* b, const void* d, size_t n) {
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2 + 64;
    b->p = realloc(b->p, b->cap);
  }
  if (n) memcpy(b->p + b->n, d, n);
  b->n += n;
}
static inline void pb_varint(pb_t* b, uint64_t v) {
  uint8_t t[10];
  int n = 0;
  do {
    t[n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
    v >>= 7;
  } while (v);
  pb_raw(b, t, (size_t)n);
}
static inline void pb_int(pb_t* b, int field, int64_t v) {
  pb_varint(b, (uint64_t)field << 3);
  pb_varint(b, (uint64_t)v);
}
static inline void pb_float(pb_t* b, int field, float f) {
  pb_varint(b, ((uint64_t)field << 3) | 5);
  pb_raw(b, &f, 4);
}
static inline void pb_bytes(pb_t* b, int field, const void* d, size_t n) {
  pb_varint(b, ((uint64_t)field << 3) | 2);
  pb_varint(b, n);
  pb_raw(b, d, n);
}
static inline void pb_str(pb_t* b, int field, const char* s) { pb_bytes(b, field, s, strlen(s)); }
static inline void pb_msg(pb_t* b, int field, pb_t* sub) {
  pb_bytes(b, field, sub->p, sub->n);
  free(sub->p);
  *sub = (pb_t){0};
}

/* TensorProto.DataType codes. */
enum { TF32 = 1, TU8 = 2, TI32 = 6, TI64 = 7, TBOOL = 9, TF64 = 11 };
static inline size_t elem_bytes(int t) { return t == TI64 || t == TF64 ? 8 : t == TU8 || t == TBOOL ? 1 : 4; }

/* A TensorProto (dims 1, data_type 2, name 8, raw_data 9). */
static inline void tensor_proto(pb_t* t, const char* name, int type, int nd, const int64_t* dims, const void* data) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) {
    pb_int(t, 1, dims[i]);
    n *= dims[i];
  }
  pb_int(t, 2, type);
  if (name) pb_str(t, 8, name);
  pb_bytes(t, 9, data, elem_bytes(type) * (size_t)n);
}

/* ---- a one-node model under construction ---- */
typedef struct {
  pb_t graph, node;
} mb_t;

/* Starts a graph with one node op(ins) -> outs ("a b -" style lists; "-" = omitted). */
static inline mb_t mb_begin(const char* op, const char* ins, const char* outs) {
  mb_t m = {{0}, {0}};
  const char* lists[2] = {ins, outs};
  for (int l = 0; l < 2; l++) {
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", lists[l]);
    for (char* t = strtok(buf, " "); t; t = strtok(NULL, " ")) pb_str(&m.node, 1 + l, strcmp(t, "-") == 0 ? "" : t);
  }
  pb_str(&m.node, 3, "n0");
  pb_str(&m.node, 4, op);
  return m;
}
/* AttributeProto: name 1, f 2, i 3, s 4, t 5, floats 7, ints 8, type 20. */
static inline void mb_attr_int(mb_t* m, const char* name, int64_t v) {
  pb_t a = {0};
  pb_str(&a, 1, name);
  pb_int(&a, 3, v);
  pb_int(&a, 20, 2);
  pb_msg(&m->node, 5, &a);
}
static inline void mb_attr_float(mb_t* m, const char* name, float v) {
  pb_t a = {0};
  pb_str(&a, 1, name);
  pb_float(&a, 2, v);
  pb_int(&a, 20, 1);
  pb_msg(&m->node, 5, &a);
}
static inline void mb_attr_str(mb_t* m, const char* name, const char* v) {
  pb_t a = {0};
  pb_str(&a, 1, name);
  pb_str(&a, 4, v);
  pb_int(&a, 20, 3);
  pb_msg(&m->node, 5, &a);
}
static inline void mb_attr_ints(mb_t* m, const char* name, int n, const int64_t* v) {
  pb_t a = {0};
  pb_str(&a, 1, name);
  for (int i = 0; i < n; i++) pb_int(&a, 8, v[i]);
  pb_int(&a, 20, 7);
  pb_msg(&m->node, 5, &a);
}
static inline void mb_attr_tensor(mb_t* m, const char* name, int type, int nd, const int64_t* dims, const void* data) {
  pb_t a = {0}, t = {0};
  pb_str(&a, 1, name);
  tensor_proto(&t, NULL, type, nd, dims, data);
  pb_msg(&a, 5, &t);
  pb_int(&a, 20, 4);
  pb_msg(&m->node, 5, &a);
}
/* A constant input (initializer). */
static inline void mb_const(mb_t* m, const char* name, int type, int nd, const int64_t* dims, const void* data) {
  pb_t t = {0};
  tensor_proto(&t, name, type, nd, dims, data);
  pb_msg(&m->graph, 5, &t);
}
/* ValueInfoProto (graph input field 11 / output field 12); nd < 0 = no shape; a dim < 0 is
 * the symbolic dim_param "N". */
static inline void mb_value(mb_t* m, int field, const char* name, int type, int nd, const int64_t* dims) {
  pb_t shape = {0}, tt = {0}, ty = {0}, vi = {0};
  for (int i = 0; i < nd; i++) { /* a negative dim is the symbolic dim "N" */
    pb_t d = {0};
    if (dims[i] < 0) pb_str(&d, 2, "N");
    else pb_int(&d, 1, dims[i]);
    pb_msg(&shape, 1, &d);
  }
  pb_int(&tt, 1, type);
  if (nd >= 0) pb_msg(&tt, 2, &shape);
  pb_msg(&ty, 1, &tt);
  pb_str(&vi, 1, name);
  pb_msg(&vi, 2, &ty);
  pb_msg(&m->graph, field, &vi);
}
static inline void mb_input(mb_t* m, const char* name, int type, int nd, const int64_t* dims) {
  mb_value(m, 11, name, type, nd, dims);
}
static inline void mb_output(mb_t* m, const char* name, int type) { mb_value(m, 12, name, type, -1, NULL); }
/* ModelProto bytes (ir_version 1, graph 7, opset_import 8). Frees the builder. */
static inline pb_t mb_model(mb_t* m, int opset) {
  pb_t out = {0}, o = {0};
  pb_msg(&m->graph, 1, &m->node);
  pb_int(&out, 1, 8);
  pb_str(&o, 1, "");
  pb_int(&o, 2, opset);
  pb_msg(&out, 8, &o);
  pb_str(&m->graph, 2, "g");
  pb_msg(&out, 7, &m->graph);
  return out;
}

/* ---------------------------------------------------------------- importing */
/* The value bound to var v in f's body (or v itself). */
static inline rlx_relax_expr_t* bound_value(const rlx_relax_func_t* f, rlx_relax_expr_t* v) {
  if (!rlx_relax_is_var(v) || f->body->kind != RLX_RELAX_SEQ) return v;
  const rlx_relax_seq_t* s = (const rlx_relax_seq_t*)f->body;
  for (int b = 0; b < s->n_blocks; b++)
    for (int i = 0; i < s->blocks[b]->n_bindings; i++)
      if (&s->blocks[b]->bindings[i]->var->hdr == v) return bound_value(f, s->blocks[b]->bindings[i]->value);
  return v;
}

/* Output k of main when it was folded to a constant; NULL (and a failed check) otherwise. */
static const rlx_relax_constant_t* folded_output(rlx_module_t* mod, int k) {
  const rlx_relax_func_t* f = NULL;
  for (int i = 0; mod && i < mod->n_funcs; i++)
    if (mod->funcs[i].kind == RLX_FUNC_RELAX && strcmp(mod->funcs[i].name, "main") == 0) f = mod->funcs[i].func;
  CHECK_MSG(f != NULL, "no main function");
  if (!f) return NULL;
  rlx_relax_expr_t* r = bound_value(f, ((const rlx_relax_seq_t*)f->body)->body);
  if (r->kind == RLX_RELAX_TUPLE) r = bound_value(f, ((rlx_relax_tuple_t*)r)->fields[k]);
  CHECK_MSG(r->kind == RLX_RELAX_CONSTANT, "output %d is not folded (%s)", k, rlx_relax_kind_name(r->kind));
  return r->kind == RLX_RELAX_CONSTANT ? (const rlx_relax_constant_t*)r : NULL;
}

/* Imports model bytes (frees them); NULL module on error (the status is checked). */
static inline rlx_module_t* import_ok(rlx_ctx_t* ctx, pb_t* m, const char* name) {
  rlx_module_t* mod = NULL;
  CHECK_OK(rlx_onnx_import_bytes(ctx, m->p, m->n, name, &mod));
  free(m->p);
  *m = (pb_t){0};
  return mod;
}

/* The import error of model bytes (frees them). */
static inline rlx_status_t* import_err(pb_t* m, const char* name) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* mod = NULL;
  rlx_status_t* st = rlx_onnx_import_bytes(ctx, m->p, m->n, name, &mod);
  free(m->p);
  *m = (pb_t){0};
  rlx_ctx_free(ctx);
  return st;
}

/* Element i of a constant / of a DLTensor as double (float, int and bool dtypes). */
static inline double elem_at(rlx_dtype_t t, const void* data, int64_t i) {
  if (t.code == RLX_DT_FLOAT) return t.bits == 64 ? ((const double*)data)[i] : ((const float*)data)[i];
  if (t.code == RLX_DT_INT) return t.bits == 64 ? (double)((const int64_t*)data)[i] : ((const int32_t*)data)[i];
  return ((const uint8_t*)data)[i];
}

/* Checks shape, dtype (code and bits) and values (|d| <= 1e-5 + 1e-5 |ref|; exact for ints). */
static inline void check_values(const char* what, rlx_dtype_t t, int nd, const int64_t* shape, const void* data,
                         rlx_dtype_t want_t, int want_nd, const int64_t* want_shape, const double* want) {
  bool ok = t.code == want_t.code && t.bits == want_t.bits && nd == want_nd;
  for (int d = 0; ok && d < nd; d++) ok = shape[d] == want_shape[d];
  CHECK_MSG(ok, "%s: wrong dtype or shape", what);
  if (!ok) return;
  int64_t n = 1;
  for (int d = 0; d < nd; d++) n *= shape[d];
  double max_err = 0;
  int64_t bad = -1;
  for (int64_t i = 0; i < n; i++) {
    double g = elem_at(t, data, i), e = fabs(g - want[i]);
    if (e > max_err) max_err = e;
    bool good = t.code == RLX_DT_FLOAT ? e <= 1e-5 + 1e-5 * fabs(want[i]) : g == want[i];
    if (!good && bad < 0) bad = i;
  }
  CHECK_MSG(bad < 0, "%s: element %lld is %g, expected %g (max abs err %g)", what, (long long)bad,
            bad >= 0 ? elem_at(t, data, bad) : 0.0, bad >= 0 ? want[bad] : 0.0, max_err);
}

static inline void check_const(const char* what, const rlx_relax_constant_t* c, rlx_dtype_t want_t, int want_nd,
                        const int64_t* want_shape, const double* want) {
  if (!c) return;
  check_values(what, c->dtype, c->ndim, c->shape, c->data, want_t, want_nd, want_shape, want);
}

/* Imports model bytes whose inputs are all constants and checks folded output k. */
static inline void expect_folded(const char* what, pb_t* m, int k, rlx_dtype_t t, int nd, const int64_t* shape,
                          const double* want) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* mod = import_ok(ctx, m, what);
  if (mod) check_const(what, folded_output(mod, k), t, nd, shape, want);
  rlx_ctx_free(ctx);
}

/* Imports, compiles and runs model bytes on inputs; returns n_out outputs (NULL and a failed
 * check when anything fails). Frees m. */
static inline rlx_ndarray_t** run_model(pb_t* m, const char* name, int n_in, rlx_ndarray_t* const* inputs, int n_out) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_ndarray_t** outs = NULL;
  rlx_module_t* mod = import_ok(ctx, m, name);
  char dir[] = "/tmp/rlx_onnxtensor_XXXXXX";
  if (mod && mkdtemp(dir)) {
    char so[128];
    snprintf(so, sizeof(so), "%s/m.so", dir);
    rlx_vm_compile_options_t o = {0};
    o.check_well_formed = true;
    CHECK_OK(rlx_vm_compile(ctx, mod, &o, so));
    rlx_vm_t* vm = NULL;
    if (access(so, R_OK) == 0) CHECK_OK(rlx_vm_load(so, 0, NULL, &vm));
    if (vm) {
      DLTensor* args[8];
      for (int i = 0; i < n_in; i++) args[i] = &inputs[i]->dl;
      int got = 0;
      CHECK_OK(rlx_vm_invoke(vm, "main", n_in, args, &got, &outs));
      CHECK_MSG(got == n_out, "%s: %d outputs, expected %d", name, got, n_out);
      if (got != n_out && outs) {
        for (int i = 0; i < got; i++) rlx_ndarray_release(outs[i]);
        free(outs);
        outs = NULL;
      }
      rlx_vm_free(vm);
    }
    unlink(so);
    rmdir(dir);
  }
  rlx_ctx_free(ctx);
  return outs;
}

/* A new NDArray of ONNX type `type` holding data. */
static inline rlx_ndarray_t* nd_new(int type, int nd, const int64_t* dims, const void* data) {
  DLDataType t = type == TF32   ? rlx_dldtype(kDLFloat, 32, 1)
                 : type == TI64 ? rlx_dldtype(kDLInt, 64, 1)
                 : type == TI32 ? rlx_dldtype(kDLInt, 32, 1)
                                : rlx_dldtype(kDLUInt, 8, 1);
  rlx_ndarray_t* a = NULL;
  CHECK_OK(rlx_ndarray_create(nd, dims, t, NULL, &a));
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  if (a && n) memcpy(a->dl.data, data, elem_bytes(type) * (size_t)n);
  return a;
}

static inline rlx_dtype_t dl_to_rlx(DLDataType t) {
  return rlx_dtype(t.code == kDLFloat ? RLX_DT_FLOAT : t.code == kDLInt ? RLX_DT_INT : RLX_DT_UINT, t.bits, 1);
}

static inline void check_nd(const char* what, const rlx_ndarray_t* a, rlx_dtype_t want_t, int nd, const int64_t* shape,
                     const double* want) {
  CHECK_MSG(a != NULL, "%s: no output", what);
  if (!a) return;
  check_values(what, dl_to_rlx(a->dl.dtype), a->dl.ndim, a->dl.shape, a->dl.data, want_t, nd, shape, want);
}

static inline void release_all(rlx_ndarray_t** outs, int n) {
  if (!outs) return;
  for (int i = 0; i < n; i++) rlx_ndarray_release(outs[i]);
  free(outs);
}

#endif
