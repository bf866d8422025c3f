/* Helpers of the ONNX "nn" converter tests: a minimal protobuf writer that builds ModelProto
 * bytes (only the fields the tests need, numbers from onnx.proto), and a runner that imports
 * the bytes, compiles the module and runs it through the VM. */
#ifndef RLX_TEST_ONNX_NN_UTIL_H
#define RLX_TEST_ONNX_NN_UTIL_H

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

static void pb_raw(pb_t* b, const void* d, size_t n) {
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2 + 64;
    b->p = realloc(b->p, b->cap);
  }
  memcpy(b->p + b->n, d, n);
  b->n += n;
}
static void pb_varint(pb_t* b, uint64_t v) {
  uint8_t t[10];
  int n = 0;
  do {
    t[n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
    v >>= 7;
  } while (v);
  pb_raw(b, t, (size_t)n);
}
static void pb_int(pb_t* b, int field, int64_t v) {
  pb_varint(b, (uint64_t)field << 3);
  pb_varint(b, (uint64_t)v);
}
static void pb_float(pb_t* b, int field, float f) {
  pb_varint(b, ((uint64_t)field << 3) | 5);
  pb_raw(b, &f, 4);
}
static void pb_bytes(pb_t* b, int field, const void* d, size_t n) {
  pb_varint(b, ((uint64_t)field << 3) | 2);
  pb_varint(b, n);
  pb_raw(b, d, n);
}
static void pb_str(pb_t* b, int field, const char* s) { pb_bytes(b, field, s, strlen(s)); }
/* Appends sub as a message field and frees it. */
static void pb_msg(pb_t* b, int field, pb_t* sub) {
  pb_bytes(b, field, sub->p, sub->n);
  free(sub->p);
  *sub = (pb_t){0};
}

/* ---- ONNX messages ---- */
/* AttributeProto: name 1, f 2, i 3, s 4, ints 8, type 20 (FLOAT 1, INT 2, STRING 3, INTS 7). */
static void attr_int(pb_t* node, const char* name, int64_t v) {
  pb_t a = {0};
  pb_str(&a, 1, name);
  pb_int(&a, 3, v);
  pb_int(&a, 20, 2);
  pb_msg(node, 5, &a);
}
static void attr_float(pb_t* node, const char* name, float v) {
  pb_t a = {0};
  pb_str(&a, 1, name);
  pb_float(&a, 2, v);
  pb_int(&a, 20, 1);
  pb_msg(node, 5, &a);
}
static void attr_str(pb_t* node, const char* name, const char* v) {
  pb_t a = {0};
  pb_str(&a, 1, name);
  pb_str(&a, 4, v);
  pb_int(&a, 20, 3);
  pb_msg(node, 5, &a);
}
static void attr_ints(pb_t* node, const char* name, int n, const int64_t* v) {
  pb_t a = {0};
  pb_str(&a, 1, name);
  for (int i = 0; i < n; i++) pb_int(&a, 8, v[i]);
  pb_int(&a, 20, 7);
  pb_msg(node, 5, &a);
}
/* NodeProto: input 1, output 2, name 3, op_type 4, attribute 5. Inputs / outputs are
 * space-separated names; "-" is an omitted one (""). The node is left open for attributes;
 * finish it with pb_msg(graph, 1, node). */
static pb_t node_begin(const char* op, const char* name, const char* ins, const char* outs) {
  pb_t n = {0};
  const char* lists[2] = {ins, outs};
  for (int l = 0; l < 2; l++) {
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", lists[l]);
    for (char* t = strtok(buf, " "); t; t = strtok(NULL, " ")) pb_str(&n, 1 + l, strcmp(t, "-") == 0 ? "" : t);
  }
  pb_str(&n, 3, name);
  pb_str(&n, 4, op);
  return n;
}
/* ValueInfoProto of a tensor of ONNX elem type elem (graph input field 11 / output field 12);
 * a negative dim is symbolic. */
static void value_info_typed(pb_t* g, int field, const char* name, int nd, const int64_t* dims, int elem) {
  pb_t shape = {0}, tt = {0}, ty = {0}, vi = {0};
  for (int i = 0; i < nd; i++) { /* Dimension: dim_value 1, dim_param 2 (a dim < 0 is "d<i>") */
    pb_t d = {0};
    char nm[16];
    snprintf(nm, sizeof(nm), "d%d", i);
    if (dims[i] >= 0) pb_int(&d, 1, dims[i]);
    else pb_str(&d, 2, nm);
    pb_msg(&shape, 1, &d);
  }
  pb_int(&tt, 1, elem);
  pb_msg(&tt, 2, &shape);
  pb_msg(&ty, 1, &tt);
  pb_str(&vi, 1, name);
  pb_msg(&vi, 2, &ty);
  pb_msg(g, field, &vi);
}
/* The same for a float tensor (FLOAT = 1). */
static void value_info(pb_t* g, int field, const char* name, int nd, const int64_t* dims) {
  value_info_typed(g, field, name, nd, dims, 1);
}
/* A float initializer (TensorProto: dims 1, data_type 2, name 8, raw_data 9). */
static void initializer(pb_t* g, const char* name, int nd, const int64_t* dims, const float* data) {
  pb_t t = {0};
  int64_t n = 1;
  for (int i = 0; i < nd; i++) {
    pb_int(&t, 1, dims[i]);
    n *= dims[i];
  }
  pb_int(&t, 2, 1);
  pb_str(&t, 8, name);
  pb_bytes(&t, 9, data, sizeof(float) * (size_t)n);
  pb_msg(g, 5, &t);
}
/* ModelProto: ir_version 1, graph 7, opset_import 8 (domain 1, version 2). Frees g. */
static pb_t model(pb_t* g, int opset) {
  pb_t m = {0}, o = {0};
  pb_int(&m, 1, 8);
  pb_str(&o, 1, "");
  pb_int(&o, 2, opset);
  pb_msg(&m, 8, &o);
  pb_str(g, 2, "g");
  pb_msg(&m, 7, g);
  return m;
}

/* ---------------------------------------------------------------- data and running */
static void fill(float* p, int64_t n, uint32_t seed) {
  uint32_t s = seed * 2654435761u + 1;
  for (int64_t i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    p[i] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
  }
}

static rlx_ndarray_t* tensor(int nd, const int64_t* dims, uint32_t seed) {
  rlx_ndarray_t* a = NULL;
  rlx_status_free(rlx_ndarray_create(nd, dims, rlx_dldtype(kDLFloat, 32, 1), NULL, &a));
  if (a) {
    int64_t n = 1;
    for (int i = 0; i < nd; i++) n *= dims[i];
    fill(a->dl.data, n, seed);
  }
  return a;
}

/* Imports, compiles and runs model bytes m on inputs; *out_outs gets n_out outputs (NULL
 * and a failed check when anything fails). Frees m. */
static rlx_ndarray_t** run_model(pb_t* m, const char* name, int n_in, rlx_ndarray_t* const* inputs, int n_out) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* mod = NULL;
  rlx_ndarray_t** outs = NULL;
  CHECK_OK(rlx_onnx_import_bytes(ctx, m->p, m->n, name, &mod));
  free(m->p);
  *m = (pb_t){0};
  char dir[] = "/tmp/rlx_onnxnn_XXXXXX";
  if (mod && mkdtemp(dir)) {
    char so[128];
    snprintf(so, sizeof(so), "%s/m.so", dir);
    rlx_vm_compile_options_t o = {0};
    o.check_well_formed = true;
    rlx_status_t* st = rlx_vm_compile(ctx, mod, &o, so);
    CHECK_OK(st);
    rlx_vm_t* vm = NULL;
    if (access(so, R_OK) == 0) CHECK_OK(rlx_vm_load(so, 0, NULL, &vm));
    if (vm) {
      DLTensor* args[16];
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

/* Imports model bytes m and returns the status (for error tests). Frees m. */
static rlx_status_t* import_only(pb_t* m, const char* name) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* mod = NULL;
  rlx_status_t* st = rlx_onnx_import_bytes(ctx, m->p, m->n, name, &mod);
  free(m->p);
  *m = (pb_t){0};
  rlx_ctx_free(ctx);
  return st;
}

/* Checks out's shape and |out - ref| <= atol + rtol * |ref| everywhere; prints the max errors. */
static void check_close(const char* what, const rlx_ndarray_t* out, int nd, const int64_t* dims, const double* ref,
                        double rtol, double atol) {
  bool shape_ok = out && out->dl.ndim == nd;
  for (int i = 0; shape_ok && i < nd; i++) shape_ok = out->dl.shape[i] == dims[i];
  CHECK_MSG(shape_ok, "%s: wrong output shape", what);
  if (!shape_ok) return;
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  const float* o = out->dl.data;
  double max_abs = 0, max_rel = 0;
  int64_t bad = -1;
  for (int64_t i = 0; i < n; i++) {
    double d = fabs((double)o[i] - ref[i]);
    if (d > max_abs) max_abs = d;
    if (ref[i] != 0 && d / fabs(ref[i]) > max_rel) max_rel = d / fabs(ref[i]);
    if (!(d <= atol + rtol * fabs(ref[i])) && bad < 0) bad = i;
  }
  printf("%-32s max abs err %.3g, max rel err %.3g\n", what, max_abs, max_rel);
  CHECK_MSG(bad < 0, "%s: element %lld is %g, expected %g", what, (long long)bad, bad >= 0 ? o[bad] : 0.0,
            bad >= 0 ? ref[bad] : 0.0);
}

#endif
