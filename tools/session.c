/* The callable entry that rlx run and rlx bench share (tool.h: session_t): a compiled model,
 * a Relax function compiled into a temporary model, or a PrimFunc compiled on the fly, with
 * its arguments loaded from -i (and, for bench, random ones). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

static void release_outputs(session_t* s) {
  for (int i = 0; i < s->n_outputs; i++) rlx_ndarray_release(s->outputs[i]);
  free(s->outputs);
  s->outputs = NULL;
  s->n_outputs = 0;
}

void tool_session_free(session_t* s) {
  release_outputs(s);
  for (int i = 0; i < s->n_vals; i++) rlx_vm_value_clear(&s->vals[i]);
  rlx_vm_value_clear(&s->result);
  for (int i = 0; i < s->n_args; i++) rlx_ndarray_release(s->args[i]);
  if (s->lib) rlx_library_free(s->lib);
  if (s->vm) rlx_vm_free(s->vm);
  if (s->tmp_dir[0]) {
    char path[128];
    snprintf(path, sizeof(path), "%s/model.so", s->tmp_dir);
    unlink(path);
    rmdir(s->tmp_dir);
  }
  rlx_ctx_free(s->ctx);
}

/* The entry function's index: -e NAME, else "main", else the only function. */
static RLX_MUST_USE rlx_status_t* find_entry(const rlx_module_t* m, const char* name, int* out) {
  int n = rlx_module_func_count(m);
  const char* want = name ? name : "main";
  for (int i = 0; i < n; i++)
    if (strcmp(rlx_module_func_name(m, i), want) == 0) {
      *out = i;
      return NULL;
    }
  if (name) return rlx_status_create(RLX_NOT_FOUND, "no function '%s' in the module", name);
  if (n != 1) return rlx_status_create(RLX_NOT_FOUND, "the module has no 'main' function: choose one with -e");
  *out = 0;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* load_inputs(const options_t* o, session_t* s) {
  if (s->structured) { /* by the declared types */
    for (int i = 0; i < o->n_inputs; i++) {
      const char* type = i < s->n_param_types ? s->param_types[i] : "tensor";
      s->n_vals = i + 1;
      if (strcmp(type, "tensor") == 0 && !tool_ends_with(o->inputs[i], ".pb")) {
        s->vals[i].kind = RLX_VM_INPUT_TENSOR;
        RLX_RETURN_IF_ERROR(tool_load_tensor(o->inputs[i], &s->vals[i].tensor));
      } else {
        RLX_RETURN_IF_ERROR(rlx_onnx_value_load(o->inputs[i], type, &s->vals[i]));
      }
    }
    return NULL;
  }
  for (int i = 0; i < o->n_inputs; i++) {
    RLX_RETURN_IF_ERROR(tool_load_tensor(o->inputs[i], &s->args[i]));
    s->n_args = s->n_given = i + 1;
  }
  return NULL;
}

/* A PrimFunc entry: inputs bind to the first params; the rest are allocated outputs. */
static RLX_MUST_USE rlx_status_t* prepare_prim_func(const options_t* o, bool random, rlx_module_t* m, session_t* s) {
  rlx_tir_func_t* f = s->func;
  const char* name = rlx_tir_func_name(f);
  int n_params = rlx_tir_func_param_count(f);
  if (n_params > MAX_INPUTS) return rlx_status_create(RLX_UNSUPPORTED, "%s: too many parameters", name);
  for (int i = 0; i < n_params; i++)
    if (!rlx_tir_func_param_is_buffer(f, i))
      return rlx_status_create(RLX_UNSUPPORTED, "%s: scalar parameter '%s' cannot be given on the command line",
                               name, rlx_tir_func_param_name(f, i));
  if (o->n_inputs > n_params)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s takes %d parameters, got %d inputs", name, n_params,
                             o->n_inputs);
  RLX_RETURN_IF_ERROR(load_inputs(o, s));
  DLTensor* given[MAX_INPUTS];
  for (int i = 0; i < s->n_given; i++) given[i] = &s->args[i]->dl;
  RLX_RETURN_IF_ERROR(rlx_tir_func_alloc_outputs(f, s->n_given, given, &s->args[s->n_given]));
  s->n_args = n_params;
  for (int i = s->n_given; random && i < n_params; i++)
    RLX_RETURN_IF_ERROR(rlx_ndarray_fill_random(&s->args[i]->dl, 1234 + (uint64_t)i));
  RLX_RETURN_IF_ERROR(rlx_build(s->ctx, m, &s->lib));
  RLX_RETURN_IF_ERROR(rlx_library_get_function(s->lib, rlx_codegen_symbol(s->ctx, name), &s->fn));
  if (o->threads) rlx_library_set_num_threads(s->lib, o->threads);
  return NULL;
}

/* Parses "(2, 3)" into dims; false when a dim is not a literal integer (symbolic). */
static bool parse_const_shape(const char* s, int ndim, int64_t* dims) {
  const char* p = strchr(s, '(');
  if (!p) return false;
  p++;
  for (int d = 0; d < ndim; d++) {
    char* end;
    while (*p == ' ' || *p == ',') p++;
    long long v = strtoll(p, &end, 10);
    if (end == p) return false;
    dims[d] = v;
    p = end;
  }
  return true;
}

/* "x: (2, 3), y: (n,)": the parameters of a VM function, for an error (heap). */
static char* param_list(const rlx_vm_function_info_t* info) {
  size_t len = 1;
  for (int i = 0; i < info->n_params; i++) len += strlen(info->param_names[i]) + strlen(info->param_shapes[i]) + 4;
  char* s = malloc(len);
  if (!s) return NULL;
  size_t at = 0;
  s[0] = 0;
  for (int i = 0; i < info->n_params; i++)
    at += (size_t)snprintf(s + at, len - at, "%s%s: %s", i ? ", " : "", info->param_names[i], info->param_shapes[i]);
  return s;
}

/* A Relax entry: inputs from -i (or random for bench when the shapes are constant). */
static RLX_MUST_USE rlx_status_t* prepare_vm(const options_t* o, bool random, session_t* s) {
  rlx_vm_function_info_t info;
  RLX_RETURN_IF_ERROR(rlx_vm_function_info(s->vm, s->vm_func, &info));
  if (o->n_inputs > info.n_params || (!random && o->n_inputs != info.n_params)) {
    char* names = param_list(&info);
    rlx_status_t* st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s takes %d inputs, got %d (parameters: %s)",
                                         s->vm_func, info.n_params, o->n_inputs, names ? names : "?");
    free(names);
    return st;
  }
  if (info.n_params > MAX_INPUTS) return rlx_status_create(RLX_UNSUPPORTED, "%s: too many parameters", s->vm_func);
  if (s->structured && o->n_inputs != info.n_params)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s takes %d inputs, got %d", s->vm_func, info.n_params, o->n_inputs);
  RLX_RETURN_IF_ERROR(load_inputs(o, s));
  for (int i = 0; i < s->n_vals; i++) { /* bfloat16 bits, as below */
    rlx_ndarray_t* t = s->vals[i].kind == RLX_VM_INPUT_TENSOR ? s->vals[i].tensor : NULL;
    DLDataType want = info.param_dtypes[i];
    if (t && want.code == kDLBfloat && want.bits == 16 && t->dl.dtype.code == kDLUInt && t->dl.dtype.bits == 16)
      t->dl.dtype = want;
  }
  /* numpy has no bfloat16, so bfloat16 data comes as uint16 bit patterns (the ONNX test
   * data stores it so): a uint16 tensor given for a bfloat16 parameter is taken as its bits. */
  for (int i = 0; i < s->n_given; i++) {
    DLDataType* have = &s->args[i]->dl.dtype;
    DLDataType want = info.param_dtypes[i];
    if (want.code == kDLBfloat && want.bits == 16 && have->code == kDLUInt && have->bits == 16 &&
        have->lanes == want.lanes)
      *have = want;
  }
  for (int i = o->n_inputs; i < info.n_params; i++) {
    int64_t dims[16];
    if (info.param_ndims[i] < 0 || info.param_ndims[i] > 16 ||
        !parse_const_shape(info.param_shapes[i], info.param_ndims[i], dims))
      return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: parameter %s has shape %s: give it with -i", s->vm_func,
                               info.param_names[i], info.param_shapes[i]);
    RLX_RETURN_IF_ERROR(rlx_ndarray_create(info.param_ndims[i], dims, info.param_dtypes[i], NULL, &s->args[i]));
    s->n_args = i + 1;
    RLX_RETURN_IF_ERROR(rlx_ndarray_fill_random(&s->args[i]->dl, 1234 + (uint64_t)i));
  }
  if (o->threads) rlx_vm_set_num_threads(s->vm, o->threads);
  return NULL;
}

RLX_MUST_USE rlx_status_t* tool_session_prepare(const options_t* o, bool random, session_t* s) {
  memset(s, 0, sizeof(*s));
  RLX_RETURN_IF_ERROR(tool_ctx(o, &s->ctx));
  s->vm_func = o->entry ? o->entry : "main";
  if (tool_is_model(o->file)) {
    if (o->n_externs)
      return rlx_status_create(RLX_INVALID_ARGUMENT,
                               "--extern links code into a model when it is compiled; '%s' is compiled already "
                               "(give --extern to rlx compile)", o->file);
    RLX_RETURN_IF_ERROR(rlx_vm_load(o->file, o->n_libs, o->libs, &s->vm));
    return prepare_vm(o, random, s);
  }
  rlx_module_t* m = NULL;
  int e = 0;
  options_t lo = *o; /* an ONNX model's declared input and output types */
  lo.out_output_names = &s->output_names;
  lo.out_n_outputs = &s->n_output_names;
  lo.out_param_types = &s->param_types;
  lo.out_n_params = &s->n_param_types;
  lo.out_output_types = &s->output_types;
  RLX_RETURN_IF_ERROR(tool_load_module(s->ctx, &lo, &m));
  for (int i = 0; i < s->n_param_types; i++) s->structured |= strcmp(s->param_types[i], "tensor") != 0;
  for (int i = 0; s->output_types && i < s->n_output_names; i++) s->structured |= strcmp(s->output_types[i], "tensor") != 0;
  RLX_RETURN_IF_ERROR(find_entry(m, o->entry, &e));
  const char* name = rlx_module_func_name(m, e);
  if (!rlx_module_func_is_relax(m, e)) {
    s->func = rlx_module_get_prim_func(m, name);
    return prepare_prim_func(o, random, m, s);
  }
  /* A Relax entry: compile the module into a temporary model and run it with the VM. */
  s->vm_func = name;
  snprintf(s->tmp_dir, sizeof(s->tmp_dir), "/tmp/rlx-run-XXXXXX");
  if (!mkdtemp(s->tmp_dir)) {
    s->tmp_dir[0] = 0;
    return rlx_status_create(RLX_IO_ERROR, "cannot create a temporary directory");
  }
  char path[128];
  snprintf(path, sizeof(path), "%s/model.so", s->tmp_dir);
  RLX_RETURN_IF_ERROR(tool_compile_to(o, s->ctx, m, path));
  RLX_RETURN_IF_ERROR(rlx_vm_load(path, o->n_libs, o->libs, &s->vm));
  return prepare_vm(o, random, s);
}

/* v as a VM argument (fields: heap arrays freed by free_input). */
static RLX_MUST_USE rlx_status_t* to_input(const rlx_vm_value_t* v, rlx_vm_input_t* out) {
  memset(out, 0, sizeof(*out));
  out->kind = v->kind;
  if (v->kind == RLX_VM_INPUT_TENSOR) out->tensor = &v->tensor->dl;
  if (v->kind != RLX_VM_INPUT_TUPLE) return NULL;
  rlx_vm_input_t* f = calloc((size_t)(v->n_fields > 0 ? v->n_fields : 1), sizeof(*f));
  if (!f) return rlx_status_create(RLX_OUT_OF_MEMORY, "inputs");
  out->fields = f;
  for (int i = 0; i < v->n_fields; i++) {
    out->n_fields = i + 1;
    RLX_RETURN_IF_ERROR(to_input(&v->fields[i], &f[i]));
  }
  out->n_fields = v->n_fields;
  return NULL;
}

static void free_input(rlx_vm_input_t* in) {
  for (int i = 0; i < in->n_fields; i++) free_input((rlx_vm_input_t*)&in->fields[i]);
  free((void*)in->fields);
}

RLX_MUST_USE rlx_status_t* tool_session_call(session_t* s) {
  if (s->structured) {
    rlx_vm_input_t in[MAX_INPUTS];
    rlx_status_t* st = NULL;
    int n = 0;
    for (; n < s->n_vals && !st; n++) st = to_input(&s->vals[n], &in[n]);
    rlx_vm_value_clear(&s->result);
    if (!st) st = rlx_vm_invoke_values(s->vm, s->vm_func, s->n_vals, in, &s->result);
    for (int i = 0; i < n; i++) free_input(&in[i]);
    return st;
  }
  DLTensor* ts[MAX_INPUTS];
  for (int i = 0; i < s->n_args; i++) ts[i] = &s->args[i]->dl;
  if (!s->vm) return rlx_packed_call_tensors(s->fn, NULL, ts, s->n_args);
  release_outputs(s);
  return rlx_vm_invoke(s->vm, s->vm_func, s->n_args, ts, &s->n_outputs, &s->outputs);
}
