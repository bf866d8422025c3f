/* The VM: loading a model (executable + libraries, every external name resolved up
 * front), the interpreter loop, invoking functions from C, and the register values. */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "../support/target.h"
#include "kernels/nn_kernels.h"
#include "vm_internal.h"

enum { MAX_DEPTH = 256 };

/* ====================================================================== values */

const char* rlx_vmv_kind_name(rlx_vmv_kind_t k) {
  switch (k) {
    case RLX_VMV_NONE: return "null";
    case RLX_VMV_INT: return "int";
    case RLX_VMV_FLOAT: return "float";
    case RLX_VMV_DTYPE: return "dtype";
    case RLX_VMV_STR: return "string";
    case RLX_VMV_TENSOR: return "Tensor";
    case RLX_VMV_SHAPE: return "Shape";
    case RLX_VMV_TUPLE: return "Tuple";
    case RLX_VMV_FUNC: return "function";
  }
  return "?";
}

rlx_vmv_t rlx_vmv_retain(rlx_vmv_t v) {
  switch (v.kind) {
    case RLX_VMV_TENSOR: rlx_ndarray_retain(v.u.t); break;
    case RLX_VMV_SHAPE: v.u.shape->refcount++; break;
    case RLX_VMV_TUPLE: v.u.tuple->refcount++; break;
    case RLX_VMV_NONE:
    case RLX_VMV_INT:
    case RLX_VMV_FLOAT:
    case RLX_VMV_DTYPE:
    case RLX_VMV_STR:
    case RLX_VMV_FUNC: break;
  }
  return v;
}

void rlx_vmv_release(rlx_vmv_t* v) {
  switch (v->kind) {
    case RLX_VMV_TENSOR: rlx_ndarray_release(v->u.t); break;
    case RLX_VMV_SHAPE:
      if (--v->u.shape->refcount == 0) free(v->u.shape);
      break;
    case RLX_VMV_TUPLE:
      if (--v->u.tuple->refcount == 0) {
        for (int i = 0; i < v->u.tuple->n; i++) rlx_vmv_release(&v->u.tuple->fields[i]);
        free(v->u.tuple);
      }
      break;
    case RLX_VMV_NONE:
    case RLX_VMV_INT:
    case RLX_VMV_FLOAT:
    case RLX_VMV_DTYPE:
    case RLX_VMV_STR:
    case RLX_VMV_FUNC: break;
  }
  v->kind = RLX_VMV_NONE;
}

RLX_MUST_USE rlx_status_t* rlx_vm_shape_new(int ndim, const int64_t* dims, rlx_vm_shape_t** out) {
  rlx_vm_shape_t* s = malloc(sizeof(*s) + sizeof(int64_t) * (size_t)(ndim > 0 ? ndim : 1));
  if (!s) return rlx_status_create(RLX_OUT_OF_MEMORY, "shape");
  s->refcount = 1;
  s->ndim = ndim;
  if (ndim > 0) memcpy(s->dims, dims, sizeof(int64_t) * (size_t)ndim);
  *out = s;
  return NULL;
}

/* ====================================================================== loading */

void rlx_vm_free(rlx_vm_t* vm) {
  if (!vm) return;
  if (vm->consts)
    for (int i = 0; i < vm->exec->consts.len; i++) rlx_vmv_release(&vm->consts[i]);
  free(vm->consts);
  free(vm->targets);
  rlx_vm_pool_release(vm->pool);
  rlx_vm_prof_free(vm->prof);
  rlx_vm_exec_free(vm->exec);
  for (int i = 0; i < vm->n_libs; i++) rlx_library_free(vm->libs[i]);
  free(vm->libs);
  rlx_library_free(vm->model);
  free(vm);
}

/* Finds a packed function's symbol: the model's object, the extra libraries, the
 * registry, the builtins; NOT_FOUND lists where it looked. */
static RLX_MUST_USE rlx_status_t* resolve(rlx_vm_t* vm, const rlx_vm_func_t* f, rlx_vm_target_t* out) {
  rlx_library_t* libs[1 + 64];
  int nl = 0;
  if (vm->model) libs[nl++] = vm->model;
  for (int i = 0; i < vm->n_libs && nl < 65; i++) libs[nl++] = vm->libs[i];
  for (int i = 0; i < nl; i++) {
    if (rlx_library_has_symbol(libs[i], f->symbol)) {
      RLX_RETURN_IF_ERROR(rlx_library_get_function(libs[i], f->symbol, &out->packed));
      return NULL;
    }
  }
  rlx_status_t* st = rlx_registry_get(f->symbol, &out->packed, &out->resource);
  if (!st) return NULL;
  rlx_status_free(st);
  out->builtin = rlx_vm_builtin_lookup(f->symbol);
  if (out->builtin) return NULL;
  rlx_strbuf_t sb = {0};
  rlx_strbuf_printf(&sb, "packed function '%s'", f->name);
  if (strcmp(f->name, f->symbol) != 0) rlx_strbuf_printf(&sb, " (symbol '%s')", f->symbol);
  rlx_strbuf_append(&sb, " was not found; searched: ");
  if (vm->model) rlx_strbuf_printf(&sb, "the model library '%s', ", rlx_library_path(vm->model));
  else rlx_strbuf_append(&sb, "no model library, ");
  for (int i = 0; i < vm->n_libs; i++) rlx_strbuf_printf(&sb, "library '%s', ", rlx_library_path(vm->libs[i]));
  if (vm->n_libs == 0) rlx_strbuf_append(&sb, "no extra libraries (--lib), ");
  rlx_strbuf_append(&sb, "the global registry, the VM builtins");
  st = rlx_status_create(RLX_NOT_FOUND, "%s", rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return st;
}

static RLX_MUST_USE rlx_status_t* make_consts(rlx_vm_t* vm) {
  rlx_vm_exec_t* e = vm->exec;
  vm->consts = calloc((size_t)(e->consts.len ? e->consts.len : 1), sizeof(rlx_vmv_t));
  if (!vm->consts) return rlx_status_create(RLX_OUT_OF_MEMORY, "VM constants");
  for (int i = 0; i < e->consts.len; i++) {
    rlx_vm_const_t* c = &e->consts.data[i];
    rlx_vmv_t* v = &vm->consts[i];
    switch (c->kind) {
      case RLX_VM_CONST_TENSOR: {
        rlx_ndarray_t* t = NULL;
        RLX_RETURN_IF_ERROR(rlx_ndarray_create(c->ndim, c->shape, c->dtype, NULL, &t));
        if (c->nbytes) memcpy(t->dl.data, c->data, c->nbytes);
        v->kind = RLX_VMV_TENSOR;
        v->u.t = t;
        /* the executable's copy is no longer needed */
        free(c->data);
        c->data = NULL;
        break;
      }
      case RLX_VM_CONST_INT: v->kind = RLX_VMV_INT; v->u.i = c->i; break;
      case RLX_VM_CONST_FLOAT: v->kind = RLX_VMV_FLOAT; v->u.f = c->f; break;
      case RLX_VM_CONST_STR: v->kind = RLX_VMV_STR; v->u.s = c->s; break;
      case RLX_VM_CONST_DTYPE: v->kind = RLX_VMV_DTYPE; v->u.dtype = c->dtype; break;
    }
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* create(const void* bytes, size_t n, rlx_library_t* model, int n_libs, const char* const* libs,
                                         rlx_vm_t** out_vm) {
  rlx_vm_t* vm = calloc(1, sizeof(*vm));
  if (!vm) {
    rlx_library_free(model);
    return rlx_status_create(RLX_OUT_OF_MEMORY, "VM");
  }
  vm->model = model;
  vm->pool = rlx_vm_pool_create();
  rlx_status_t* st = vm->pool ? NULL : rlx_status_create(RLX_OUT_OF_MEMORY, "VM");
  if (!st) st = rlx_vm_exec_parse(bytes, n, &vm->exec);
  if (!st && n_libs > 64) st = rlx_status_create(RLX_INVALID_ARGUMENT, "at most 64 libraries, got %d", n_libs);
  if (!st && n_libs > 0) {
    vm->libs = calloc((size_t)n_libs, sizeof(rlx_library_t*));
    if (!vm->libs) st = rlx_status_create(RLX_OUT_OF_MEMORY, "VM");
    for (int i = 0; !st && i < n_libs; i++) {
      st = rlx_library_load(libs[i], &vm->libs[i]);
      if (!st) vm->n_libs++;
    }
  }
  if (!st) {
    vm->targets = calloc((size_t)(vm->exec->funcs.len ? vm->exec->funcs.len : 1), sizeof(rlx_vm_target_t));
    if (!vm->targets) st = rlx_status_create(RLX_OUT_OF_MEMORY, "VM");
  }
  for (int i = 0; !st && i < vm->exec->funcs.len; i++)
    if (vm->exec->funcs.data[i].kind == RLX_VM_FUNC_PACKED) st = resolve(vm, &vm->exec->funcs.data[i], &vm->targets[i]);
  if (!st) st = make_consts(vm);
  if (st) {
    rlx_vm_free(vm);
    return st;
  }
  *out_vm = vm;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_vm_create(const void* exec_bytes, size_t n, const char* kernel_lib, int n_libs,
                                         const char* const* libs, rlx_vm_t** out_vm) {
  if (!out_vm || (n_libs > 0 && !libs)) return rlx_status_create(RLX_INVALID_ARGUMENT, "rlx_vm_create: NULL argument");
  rlx_library_t* model = NULL;
  if (kernel_lib) RLX_RETURN_IF_ERROR(rlx_library_load(kernel_lib, &model));
  return create(exec_bytes, n, model, n_libs, libs, out_vm);
}

/* The executable embedded in a model object. */
static RLX_MUST_USE rlx_status_t* embedded_exec(rlx_library_t* lib, const void** out_bytes, size_t* out_n) {
  void *bytes = NULL, *size = NULL;
  if (rlx_library_has_symbol(lib, "rlx_vm_executable") && rlx_library_has_symbol(lib, "rlx_vm_executable_size")) {
    RLX_RETURN_IF_ERROR(rlx_library_get_symbol(lib, "rlx_vm_executable", &bytes));
    RLX_RETURN_IF_ERROR(rlx_library_get_symbol(lib, "rlx_vm_executable_size", &size));
    uint64_t n;
    memcpy(&n, size, sizeof(n));
    /* a corrupted size must not make us read past the symbol: compare with its ELF size */
    Dl_info info;
    const ElfW(Sym)* sym = NULL;
    if (dladdr1(bytes, &info, (void**)&sym, RTLD_DL_SYMENT) && sym && sym->st_size != 0 && sym->st_size != n)
      return rlx_status_create(RLX_PARSE_ERROR,
                               "'%s' is corrupted: rlx_vm_executable_size says %llu bytes, the symbol has %llu",
                               rlx_library_path(lib), (unsigned long long)n, (unsigned long long)sym->st_size);
    *out_bytes = bytes;
    *out_n = (size_t)n;
    return NULL;
  }
  return rlx_status_create(RLX_PARSE_ERROR,
                           "'%s' is not a compiled rlx model: it has no rlx_vm_executable / rlx_vm_executable_size",
                           rlx_library_path(lib));
}

/* A model is a file: "model.so" means ./model.so, not a search of the loader's path. */
static RLX_MUST_USE rlx_status_t* load_model_file(const char* path, rlx_library_t** out) {
  if (strchr(path, '/')) return rlx_library_load(path, out);
  size_t n = strlen(path) + 3;
  char* local = malloc(n);
  if (!local) return rlx_status_create(RLX_OUT_OF_MEMORY, "loading '%s'", path);
  snprintf(local, n, "./%s", path);
  rlx_status_t* st = rlx_library_load(local, out);
  free(local);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_vm_load(const char* model_so, int n_libs, const char* const* libs, rlx_vm_t** out_vm) {
  if (!model_so || !out_vm || (n_libs > 0 && !libs))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "rlx_vm_load: NULL argument");
  RLX_RETURN_IF_ERROR(rlx_vm_check_model_target(model_so));
  rlx_library_t* model = NULL;
  RLX_RETURN_IF_ERROR(load_model_file(model_so, &model));
  const void* bytes;
  size_t n;
  rlx_status_t* st = embedded_exec(model, &bytes, &n);
  if (st) {
    rlx_library_free(model);
    return st;
  }
  return rlx_status_annotate(create(bytes, n, model, n_libs, libs, out_vm), "loading '%s'", model_so);
}

RLX_MUST_USE rlx_status_t* rlx_vm_disassemble_model(const char* model_so, char** out_text) {
  char* target = NULL;
  RLX_RETURN_IF_ERROR(rlx_vm_model_target(model_so, &target));
  /* a model for this architecture can be loaded to read its bytecode even when this CPU
   * could not run it (nothing of it runs) */
  rlx_target_t* t = NULL;
  rlx_status_t* st = rlx_target_parse(target, &t);
  if (!st && rlx_target_arch(t) != rlx_host_arch())
    st = rlx_status_create(RLX_UNSUPPORTED, "'%s' is a model for %s ('%s'); its bytecode is read on such a machine",
                           model_so, rlx_target_triple(t), target);
  rlx_target_free(t);
  rlx_library_t* model = NULL;
  if (!st) st = load_model_file(model_so, &model);
  const void* bytes;
  size_t n;
  char* text = NULL;
  if (!st) st = embedded_exec(model, &bytes, &n);
  if (!st) st = rlx_vm_disassemble(bytes, n, &text);
  rlx_library_free(model);
  if (!st) {
    rlx_strbuf_t sb = {0};
    rlx_strbuf_printf(&sb, "; target: %s\n%s", target, text);
    *out_text = rlx_strbuf_take(&sb);
    if (!*out_text) st = rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (disassembly)");
  }
  free(text);
  free(target);
  return st;
}

/* ====================================================================== functions */

int rlx_vm_function_count(const rlx_vm_t* vm) {
  int n = 0;
  for (int i = 0; i < vm->exec->funcs.len; i++) n += vm->exec->funcs.data[i].kind == RLX_VM_FUNC_VM;
  return n;
}

const char* rlx_vm_function_name(const rlx_vm_t* vm, int i) {
  for (int k = 0; k < vm->exec->funcs.len; k++)
    if (vm->exec->funcs.data[k].kind == RLX_VM_FUNC_VM && i-- == 0) return vm->exec->funcs.data[k].name;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* not_found(const rlx_vm_t* vm, const char* name) {
  rlx_strbuf_t sb = {0};
  for (int i = 0; i < rlx_vm_function_count(vm); i++)
    rlx_strbuf_printf(&sb, "%s%s", i ? ", " : "", rlx_vm_function_name(vm, i));
  rlx_status_t* st =
      rlx_status_create(RLX_NOT_FOUND, "the model has no function '%s' (functions: %s)", name, rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_vm_function_info(const rlx_vm_t* vm, const char* name, rlx_vm_function_info_t* out_info) {
  int f = rlx_vm_exec_find_func(vm->exec, name);
  if (f < 0) return not_found(vm, name);
  const rlx_vm_func_t* fn = &vm->exec->funcs.data[f];
  out_info->name = fn->name;
  out_info->n_params = fn->n_params;
  out_info->param_names = (const char* const*)fn->param_names;
  out_info->param_shapes = (const char* const*)fn->param_shapes;
  out_info->param_dtypes = fn->param_dtypes;
  out_info->param_ndims = fn->param_ndims;
  return NULL;
}

void rlx_vm_set_num_threads(rlx_vm_t* vm, int n) {
  rlx_library_set_num_threads(vm->model, n);
  for (int i = 0; i < vm->n_libs; i++) rlx_library_set_num_threads(vm->libs[i], n);
  rlx_nn_set_num_threads(n); /* the built-in kernels' pool */
}

/* ====================================================================== calls */

static RLX_MUST_USE rlx_status_t* run(rlx_vm_t* vm, int f, rlx_vmv_t* args, int n, rlx_vmv_t* out);

/* Converts VM values to packed arguments; objects travel as RLX_ARG_OBJECT handles. */
static RLX_MUST_USE rlx_status_t* to_packed(const char* who, const rlx_vmv_t* v, rlx_value_t* out, int* code) {
  switch (v->kind) {
    case RLX_VMV_NONE: out->v_handle = NULL; *code = RLX_ARG_NULLPTR; return NULL;
    case RLX_VMV_INT: out->v_int64 = v->u.i; *code = RLX_ARG_INT; return NULL;
    case RLX_VMV_FLOAT: out->v_float64 = v->u.f; *code = RLX_ARG_FLOAT; return NULL;
    case RLX_VMV_DTYPE: out->v_type = v->u.dtype; *code = RLX_ARG_DATATYPE; return NULL;
    case RLX_VMV_STR: out->v_str = v->u.s; *code = RLX_ARG_STR; return NULL;
    case RLX_VMV_TENSOR: out->v_handle = &v->u.t->dl; *code = RLX_ARG_DLTENSOR; return NULL;
    case RLX_VMV_SHAPE: out->v_handle = v->u.shape; *code = RLX_ARG_OBJECT; return NULL;
    case RLX_VMV_TUPLE: out->v_handle = v->u.tuple; *code = RLX_ARG_OBJECT; return NULL;
    case RLX_VMV_FUNC: break;
  }
  return rlx_status_create(RLX_UNSUPPORTED, "%s: a function cannot be passed to a packed function", who);
}

static RLX_MUST_USE rlx_status_t* call_packed_untimed(rlx_vm_t* vm, int f, rlx_vmv_t* args, int n, rlx_vmv_t* out);

/* Calls a packed function or builtin; while profiling, the call is timed and counted under
 * its function index (one pointer test when profiling is off). */
static RLX_MUST_USE rlx_status_t* call_packed(rlx_vm_t* vm, int f, rlx_vmv_t* args, int n, rlx_vmv_t* out) {
  if (!vm->prof) return call_packed_untimed(vm, f, args, n, out);
  int64_t t0 = rlx_vm_now_ns();
  rlx_status_t* st = call_packed_untimed(vm, f, args, n, out);
  vm->prof->ns[f] += rlx_vm_now_ns() - t0;
  vm->prof->calls[f]++;
  return st;
}

static RLX_MUST_USE rlx_status_t* call_packed_untimed(rlx_vm_t* vm, int f, rlx_vmv_t* args, int n, rlx_vmv_t* out) {
  const rlx_vm_func_t* fn = &vm->exec->funcs.data[f];
  rlx_vm_target_t* t = &vm->targets[f];
  if (t->builtin) return rlx_status_annotate(t->builtin(vm, args, n, out), "in %s", fn->name);
  rlx_value_t small_v[16];
  int small_c[16];
  rlx_value_t* pv = n <= 16 ? small_v : malloc(sizeof(rlx_value_t) * (size_t)n);
  int* pc = n <= 16 ? small_c : malloc(sizeof(int) * (size_t)n);
  rlx_status_t* st = (!pv || !pc) ? rlx_status_create(RLX_OUT_OF_MEMORY, "calling %s", fn->name) : NULL;
  for (int i = 0; !st && i < n; i++) st = to_packed(fn->name, &args[i], &pv[i], &pc[i]);
  rlx_value_t ret;
  int ret_code = RLX_ARG_NULLPTR;
  ret.v_handle = NULL;
  if (!st) st = rlx_packed_call(t->packed, t->resource, pv, pc, n, &ret, &ret_code);
  if (pv != small_v) free(pv);
  if (pc != small_c) free(pc);
  if (st) return rlx_status_annotate(st, "calling %s", fn->name);
  switch (ret_code) {
    case RLX_ARG_INT:
    case RLX_ARG_UINT: out->kind = RLX_VMV_INT; out->u.i = ret.v_int64; return NULL;
    case RLX_ARG_FLOAT: out->kind = RLX_VMV_FLOAT; out->u.f = ret.v_float64; return NULL;
    case RLX_ARG_NULLPTR: return NULL;
    case RLX_ARG_DATATYPE: out->kind = RLX_VMV_DTYPE; out->u.dtype = ret.v_type; return NULL;
    case RLX_ARG_NDARRAY: /* the callee handed us one reference */
      if (!ret.v_handle) return NULL;
      out->kind = RLX_VMV_TENSOR;
      out->u.t = ret.v_handle;
      return NULL;
    default: break;
  }
  return rlx_status_create(RLX_UNSUPPORTED,
                           "%s returned a value of type code %d; packed functions called by the VM return "
                           "nothing, an int, a float, a dtype or an NDArray (RLX_ARG_NDARRAY, one reference)",
                           fn->name, ret_code);
}

RLX_MUST_USE rlx_status_t* rlx_vm_call_index(rlx_vm_t* vm, int f, rlx_vmv_t* args, int n, rlx_vmv_t* out) {
  if (f < 0 || f >= vm->exec->funcs.len) return rlx_status_create(RLX_INVALID_ARGUMENT, "bad function index %d", f);
  switch (vm->exec->funcs.data[f].kind) {
    case RLX_VM_FUNC_VM: return run(vm, f, args, n, out);
    case RLX_VM_FUNC_PACKED: return call_packed(vm, f, args, n, out);
  }
  return NULL;
}

static bool truthy(const rlx_vmv_t* v, bool* out) {
  switch (v->kind) {
    case RLX_VMV_INT: *out = v->u.i != 0; return true;
    case RLX_VMV_FLOAT: *out = v->u.f != 0; return true;
    case RLX_VMV_TENSOR: {
      DLTensor* t = &v->u.t->dl;
      if (rlx_ndarray_numel(t) != 1 || t->dtype.lanes != 1) return false;
      const char* p = (const char*)t->data + t->byte_offset;
      switch (t->dtype.bits) {
        case 1:
        case 8: *out = *(const uint8_t*)p != 0; return true;
        case 16: *out = *(const uint16_t*)p != 0; return true;
        case 32: *out = t->dtype.code == kDLFloat ? *(const float*)p != 0 : *(const uint32_t*)p != 0; return true;
        case 64: *out = t->dtype.code == kDLFloat ? *(const double*)p != 0 : *(const uint64_t*)p != 0; return true;
        default: return false;
      }
    }
    case RLX_VMV_NONE:
    case RLX_VMV_DTYPE:
    case RLX_VMV_STR:
    case RLX_VMV_SHAPE:
    case RLX_VMV_TUPLE:
    case RLX_VMV_FUNC: return false;
  }
  return false;
}

/* Runs VM function f on args (borrowed; retained into the frame). */
static RLX_MUST_USE rlx_status_t* run(rlx_vm_t* vm, int f, rlx_vmv_t* args, int n, rlx_vmv_t* out) {
  const rlx_vm_exec_t* e = vm->exec;
  const rlx_vm_func_t* fn = &e->funcs.data[f];
  if (n != fn->n_params)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: expected %d arguments, got %d", fn->name, fn->n_params, n);
  if (vm->depth >= MAX_DEPTH)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: call depth exceeds %d", fn->name, MAX_DEPTH);
  rlx_vmv_t* regs = calloc((size_t)(fn->n_regs ? fn->n_regs : 1), sizeof(rlx_vmv_t));
  if (!regs) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s: registers", fn->name);
  for (int i = 0; i < n; i++) regs[i] = rlx_vmv_retain(args[i]);
  vm->depth++;
  rlx_status_t* st = NULL;
  rlx_vmv_t small[16];
  int64_t pc = fn->begin;
  for (;;) {
    if (pc < fn->begin || pc >= fn->end) {
      st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s: pc %lld left the function", fn->name, (long long)pc);
      break;
    }
    const rlx_vm_instr_t* in = &e->instrs.data[pc];
    switch (in->op) {
      case RLX_VM_OP_CALL: {
        rlx_vmv_t* a = in->n_args <= 16 ? small : malloc(sizeof(rlx_vmv_t) * (size_t)in->n_args);
        if (!a) {
          st = rlx_status_create(RLX_OUT_OF_MEMORY, "%s: arguments", fn->name);
          break;
        }
        for (int i = 0; i < in->n_args; i++) {
          const rlx_vm_arg_t* arg = &e->args.data[in->first_arg + i];
          switch (arg->kind) {
            case RLX_VM_ARG_REG: a[i] = regs[arg->value]; break;
            case RLX_VM_ARG_IMM: a[i].kind = RLX_VMV_INT; a[i].u.i = arg->value; break;
            case RLX_VM_ARG_CONST: a[i] = vm->consts[arg->value]; break;
            case RLX_VM_ARG_FUNC: a[i].kind = RLX_VMV_FUNC; a[i].u.func = (int)arg->value; break;
          }
        }
        rlx_vmv_t res = {RLX_VMV_NONE, {0}};
        const bool site = vm->prof && rlx_vm_prof_by_site(vm, in->func);
        const int64_t t0 = site ? rlx_vm_now_ns() : 0;
        st = rlx_vm_call_index(vm, in->func, a, in->n_args, &res);
        if (site && !st) rlx_vm_prof_site(vm, pc, in->func, a, in->n_args, rlx_vm_now_ns() - t0);
        if (a != small) free(a);
        if (st) {
          rlx_vmv_release(&res);
          st = rlx_status_annotate(st, "%s, instruction %lld", fn->name, (long long)(pc - fn->begin));
          break;
        }
        rlx_vmv_release(&regs[in->dst]);
        regs[in->dst] = res;
        pc++;
        continue;
      }
      case RLX_VM_OP_RET:
        *out = regs[in->dst];
        regs[in->dst].kind = RLX_VMV_NONE;
        break;
      case RLX_VM_OP_GOTO: pc += in->offset; continue;
      case RLX_VM_OP_IF: {
        bool c;
        if (!truthy(&regs[in->dst], &c)) {
          st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s: if condition %%%d is a %s, not a scalar", fn->name, in->dst,
                                 rlx_vmv_kind_name(regs[in->dst].kind));
          break;
        }
        pc += c ? 1 : in->offset;
        continue;
      }
    }
    break;
  }
  vm->depth--;
  for (int i = 0; i < fn->n_regs; i++) rlx_vmv_release(&regs[i]);
  free(regs);
  return st;
}

/* ====================================================================== invoke */

static RLX_MUST_USE rlx_status_t* check_param(const rlx_vm_func_t* fn, int i, const DLTensor* t) {
  char b1[32], b2[32], sh[256];
  const char* pname = fn->param_names[i];
  if (!t || (t->ndim > 0 && !t->shape) || (!t->data && t->ndim >= 0 && rlx_ndarray_numel(t) > 0))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: parameter %s: NULL tensor", fn->name, pname);
  if (t->device.device_type != kDLCPU)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: parameter %s: not a CPU tensor", fn->name, pname);
  if (fn->param_dtypes[i].bits != 0 && !rlx_dldtype_equal(fn->param_dtypes[i], t->dtype))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: parameter %s: expected dtype %s, got %s", fn->name, pname,
                             rlx_dldtype_str(fn->param_dtypes[i], b1), rlx_dldtype_str(t->dtype, b2));
  if (fn->param_ndims[i] >= 0 && fn->param_ndims[i] != t->ndim)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: parameter %s: expected shape %s (ndim %d), got %s (ndim %d)",
                             fn->name, pname, fn->param_shapes[i][0] ? fn->param_shapes[i] : "?", fn->param_ndims[i],
                             rlx_shape_str(t->ndim, t->shape, sh, sizeof(sh)), t->ndim);
  if (t->strides) {
    int64_t expect = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
      if (t->shape[d] != 1 && t->strides[d] != expect)
        return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: parameter %s: tensor is not compact", fn->name, pname);
      expect *= t->shape[d];
    }
  }
  return NULL;
}

/* A non-tensor value from its input, the forms results take (see flatten): a 0-d integer
 * or bool (uint1, a byte) tensor is an int (R.Prim("int64")), a 0-d float tensor a float, a
 * 1-d int64 tensor a shape (R.Shape). The function's own checks then match it against the
 * parameter's struct info. who names it in errors ("main: parameter x"). */
static RLX_MUST_USE rlx_status_t* value_of(const char* who, const DLTensor* t, rlx_vmv_t* out) {
  char b[32];
  int code = t->dtype.code, bits = t->dtype.bits;
  const char* data = (const char*)t->data + t->byte_offset;
  if (t->dtype.lanes == 1 && t->ndim == 0 && (code == kDLInt || code == kDLUInt) &&
      (bits == 8 || bits == 16 || bits == 32 || bits == 64 || bits == 1)) {
    int64_t v = 0;
    if (bits == 64) memcpy(&v, data, 8);
    else if (bits == 32) v = code == kDLUInt ? (int64_t) * (const uint32_t*)data : *(const int32_t*)data;
    else if (bits == 16) v = code == kDLUInt ? (int64_t) * (const uint16_t*)data : *(const int16_t*)data;
    else v = code == kDLInt ? *(const int8_t*)data : *(const uint8_t*)data;
    out->kind = RLX_VMV_INT;
    out->u.i = v;
    return NULL;
  }
  if (t->dtype.lanes == 1 && t->ndim == 0 && code == kDLFloat && (bits == 32 || bits == 64)) {
    out->kind = RLX_VMV_FLOAT;
    out->u.f = bits == 64 ? *(const double*)data : (double)*(const float*)data;
    return NULL;
  }
  if (t->ndim == 1 && code == kDLInt && bits == 64 && t->dtype.lanes == 1 && (!t->strides || t->strides[0] == 1)) {
    RLX_RETURN_IF_ERROR(rlx_vm_shape_new((int)t->shape[0], (const int64_t*)data, &out->u.shape));
    out->kind = RLX_VMV_SHAPE;
    return NULL;
  }
  return rlx_status_create(RLX_INVALID_ARGUMENT,
                           "%s is not a tensor: pass a scalar (a 0-d int, bool or float tensor) for an R.Prim, a "
                           "1-d int64 tensor for an R.Shape or a tuple for an R.Tuple, got %s of ndim %d",
                           who, rlx_dldtype_str(t->dtype, b), t->ndim);
}

/* A tensor argument (not copied: the VM's tensor points at the caller's data). */
static RLX_MUST_USE rlx_status_t* tensor_of(const DLTensor* t, rlx_vmv_t* out) {
  rlx_ndarray_t* nd = NULL;
  RLX_RETURN_IF_ERROR(rlx_ndarray_from_data((char*)t->data + t->byte_offset, t->ndim, t->shape, t->dtype, &nd));
  out->kind = RLX_VMV_TENSOR;
  out->u.t = nd;
  return NULL;
}

/* A field of a tuple argument (who: "main: parameter x, field 1"), by the kind the caller
 * gives: a tensor, a value (as value_of reads it) or a nested tuple. */
static RLX_MUST_USE rlx_status_t* arg_value(const char* who, const rlx_vm_input_t* a, int depth, rlx_vmv_t* out) {
  char sh[64];
  if (depth > 64) return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: tuples nested too deeply", who);
  switch (a->kind) {
    case RLX_VM_INPUT_TUPLE: {
      if (a->n_fields < 0 || (a->n_fields > 0 && !a->fields))
        return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: bad tuple (%d fields)", who, a->n_fields);
      rlx_vm_tuple_t* t = calloc(1, sizeof(*t) + sizeof(rlx_vmv_t) * (size_t)(a->n_fields > 0 ? a->n_fields : 1));
      if (!t) return rlx_status_create(RLX_OUT_OF_MEMORY, "tuple argument");
      t->refcount = 1;
      out->kind = RLX_VMV_TUPLE;
      out->u.tuple = t;
      for (int i = 0; i < a->n_fields; i++) {
        rlx_strbuf_t sb = {0};
        rlx_strbuf_printf(&sb, "%s, field %d", who, i);
        rlx_status_t* st = arg_value(rlx_strbuf_cstr(&sb), &a->fields[i], depth + 1, &t->fields[i]);
        rlx_strbuf_free(&sb);
        t->n = i + 1;
        if (st) return st;
      }
      return NULL;
    }
    case RLX_VM_INPUT_TENSOR:
    case RLX_VM_INPUT_VALUE: {
      const DLTensor* t = a->tensor;
      if (!t || (t->ndim > 0 && !t->shape) || (!t->data && t->ndim >= 0 && rlx_ndarray_numel(t) > 0))
        return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: NULL tensor", who);
      if (t->device.device_type != kDLCPU)
        return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: not a CPU tensor", who);
      if (t->strides) {
        int64_t expect = 1;
        for (int d = t->ndim - 1; d >= 0; d--) {
          if (t->shape[d] != 1 && t->strides[d] != expect)
            return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: tensor of shape %s is not compact", who,
                                     rlx_shape_str(t->ndim, t->shape, sh, sizeof(sh)));
          expect *= t->shape[d];
        }
      }
      return a->kind == RLX_VM_INPUT_VALUE ? value_of(who, t, out) : tensor_of(t, out);
    }
    case RLX_VM_INPUT_NONE: out->kind = RLX_VMV_NONE; return NULL;
  }
  return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: bad argument kind %d", who, (int)a->kind);
}

/* Appends the tensors of v (tuples flattened) to outs. */
typedef RLX_VEC(rlx_ndarray_t*) outvec_t;

/* A result that is not a tuple as a tensor (a new reference): ints, floats and shapes in
 * their tensor form. */
static RLX_MUST_USE rlx_status_t* result_tensor(const char* fname, const rlx_vmv_t* v, rlx_ndarray_t** out) {
  rlx_ndarray_t* t = NULL;
  switch (v->kind) {
    case RLX_VMV_TENSOR: t = rlx_ndarray_retain(v->u.t); break;
    case RLX_VMV_TUPLE: return rlx_status_create(RLX_INTERNAL, "%s: a tuple is not a tensor", fname);
    case RLX_VMV_INT:
    case RLX_VMV_FLOAT: {
      bool is_int = v->kind == RLX_VMV_INT;
      RLX_RETURN_IF_ERROR(rlx_ndarray_create(0, NULL, rlx_dldtype(is_int ? kDLInt : kDLFloat, 64, 1), NULL, &t));
      if (is_int) memcpy(t->dl.data, &v->u.i, 8);
      else memcpy(t->dl.data, &v->u.f, 8);
      break;
    }
    case RLX_VMV_SHAPE: {
      int64_t n = v->u.shape->ndim;
      RLX_RETURN_IF_ERROR(rlx_ndarray_create(1, &n, rlx_dldtype(kDLInt, 64, 1), NULL, &t));
      if (n) memcpy(t->dl.data, v->u.shape->dims, (size_t)n * 8);
      break;
    }
    case RLX_VMV_NONE:
    case RLX_VMV_DTYPE:
    case RLX_VMV_STR:
    case RLX_VMV_FUNC:
      return rlx_status_create(RLX_UNSUPPORTED, "%s returned a %s, which is not a tensor output", fname,
                               rlx_vmv_kind_name(v->kind));
  }
  *out = t;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* flatten(const char* fname, rlx_vmv_t* v, outvec_t* outs) {
  if (v->kind == RLX_VMV_TUPLE) {
    for (int i = 0; i < v->u.tuple->n; i++) RLX_RETURN_IF_ERROR(flatten(fname, &v->u.tuple->fields[i], outs));
    return NULL;
  }
  rlx_ndarray_t* t = NULL;
  RLX_RETURN_IF_ERROR(result_tensor(fname, v, &t));
  if (!rlx_vec_push(outs, t)) {
    rlx_ndarray_release(t);
    return rlx_status_create(RLX_OUT_OF_MEMORY, "outputs");
  }
  return NULL;
}

/* One top-level argument: tensors are checked against the parameter's ndim / dtype (a
 * non-tensor parameter reads its value from the tensor form), tuples field by field. */
static RLX_MUST_USE rlx_status_t* param_value(const rlx_vm_func_t* fn, int i, const rlx_vm_input_t* a, bool strict,
                                              rlx_vmv_t* out) {
  rlx_strbuf_t sb = {0};
  rlx_strbuf_printf(&sb, "%s: parameter %s", fn->name, fn->param_names[i]);
  rlx_status_t* st = NULL;
  bool not_tensor = fn->param_ndims[i] == RLX_VM_PARAM_NOT_TENSOR;
  if (strict && not_tensor && a->kind != RLX_VM_INPUT_TUPLE) { /* read by the kind given */
    st = arg_value(rlx_strbuf_cstr(&sb), a, 0, out);
  } else if (a->kind == RLX_VM_INPUT_NONE) {
    st = rlx_status_create(RLX_TYPE_MISMATCH, "%s: expected a tensor, got nothing", rlx_strbuf_cstr(&sb));
  } else if (a->kind == RLX_VM_INPUT_TUPLE) {
    if (fn->param_ndims[i] != RLX_VM_PARAM_NOT_TENSOR)
      st = rlx_status_create(RLX_TYPE_MISMATCH, "%s: expected a tensor, got a tuple", rlx_strbuf_cstr(&sb));
    else
      st = arg_value(rlx_strbuf_cstr(&sb), a, 0, out);
  } else if (a->kind == RLX_VM_INPUT_TENSOR || a->kind == RLX_VM_INPUT_VALUE) {
    st = check_param(fn, i, a->tensor);
    if (!st && fn->param_ndims[i] == RLX_VM_PARAM_NOT_TENSOR) {
      st = value_of(rlx_strbuf_cstr(&sb), a->tensor, out);
      /* a tensor that is no value's form stays a tensor: the parameter may be an R.Object,
       * and the function's own checks reject it for an R.Prim / R.Shape one */
      if (st && a->kind == RLX_VM_INPUT_TENSOR) {
        rlx_status_free(st);
        st = tensor_of(a->tensor, out);
      }
    } else if (!st) {
      st = tensor_of(a->tensor, out);
    }
  } else {
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s: bad argument kind %d", rlx_strbuf_cstr(&sb), (int)a->kind);
  }
  rlx_strbuf_free(&sb);
  return st;
}

/* Runs function `name` on the inputs; *out_res receives the result (owned); *out_fn the
 * function. strict: top-level inputs are read by their kind (rlx_vm_invoke_values). */
static RLX_MUST_USE rlx_status_t* invoke(rlx_vm_t* vm, const char* name, int n_inputs, const rlx_vm_input_t* inputs, bool strict,
                                         const rlx_vm_func_t** out_fn, rlx_vmv_t* out_res) {
  int f = rlx_vm_exec_find_func(vm->exec, name);
  if (f < 0) return not_found(vm, name);
  const rlx_vm_func_t* fn = &vm->exec->funcs.data[f];
  if (n_inputs != fn->n_params) {
    rlx_strbuf_t sb = {0};
    for (int i = 0; i < fn->n_params; i++) rlx_strbuf_printf(&sb, "%s%s", i ? ", " : "", fn->param_names[i]);
    rlx_status_t* st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s takes %d inputs, got %d (parameters: %s)", fn->name,
                                         fn->n_params, n_inputs, rlx_strbuf_cstr(&sb));
    rlx_strbuf_free(&sb);
    return st;
  }
  rlx_vmv_t* args = calloc((size_t)(n_inputs ? n_inputs : 1), sizeof(rlx_vmv_t));
  if (!args) return rlx_status_create(RLX_OUT_OF_MEMORY, "inputs");
  rlx_status_t* st = NULL;
  for (int i = 0; !st && i < n_inputs; i++) st = param_value(fn, i, &inputs[i], strict, &args[i]);
  int64_t t0 = vm->prof ? rlx_vm_now_ns() : 0;
  if (!st) st = run(vm, f, args, n_inputs, out_res);
  if (vm->prof) {
    vm->prof->invoke_ns += rlx_vm_now_ns() - t0;
    vm->prof->invokes++;
  }
  for (int i = 0; i < n_inputs; i++) rlx_vmv_release(&args[i]);
  free(args);
  *out_fn = fn;
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_vm_invoke_args(rlx_vm_t* vm, const char* name, int n_inputs, const rlx_vm_input_t* inputs, int* out_n,
                                              rlx_ndarray_t*** out_outputs) {
  if (!vm || !name || !out_n || !out_outputs || (n_inputs > 0 && !inputs))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "rlx_vm_invoke: NULL argument");
  const rlx_vm_func_t* fn = NULL;
  rlx_vmv_t res = {RLX_VMV_NONE, {0}};
  rlx_status_t* st = invoke(vm, name, n_inputs, inputs, false, &fn, &res);
  if (st) return st;
  outvec_t outs = {0};
  st = flatten(fn->name, &res, &outs);
  rlx_vmv_release(&res);
  if (st) {
    for (int i = 0; i < outs.len; i++) rlx_ndarray_release(outs.data[i]);
    rlx_vec_free(&outs);
    return st;
  }
  *out_n = outs.len;
  *out_outputs = outs.data ? outs.data : calloc(1, sizeof(rlx_ndarray_t*));
  return NULL;
}

void rlx_vm_value_clear(rlx_vm_value_t* v) {
  if (!v) return;
  rlx_ndarray_release(v->tensor);
  for (int i = 0; i < v->n_fields && v->fields; i++) rlx_vm_value_clear(&v->fields[i]);
  free(v->fields);
  memset(v, 0, sizeof(*v));
  v->kind = RLX_VM_INPUT_NONE;
}

/* The result v as a value tree (see rlx_vm_value_t). */
static RLX_MUST_USE rlx_status_t* to_value(const char* fname, const rlx_vmv_t* v, int depth, rlx_vm_value_t* out) {
  memset(out, 0, sizeof(*out));
  out->kind = RLX_VM_INPUT_NONE;
  if (depth > 64) return rlx_status_create(RLX_UNSUPPORTED, "%s: result nested too deeply", fname);
  if (v->kind == RLX_VMV_NONE) return NULL;
  if (v->kind != RLX_VMV_TUPLE) {
    RLX_RETURN_IF_ERROR(result_tensor(fname, v, &out->tensor));
    out->kind = RLX_VM_INPUT_TENSOR;
    return NULL;
  }
  int n = v->u.tuple->n;
  out->kind = RLX_VM_INPUT_TUPLE;
  out->fields = calloc((size_t)(n > 0 ? n : 1), sizeof(rlx_vm_value_t));
  if (!out->fields) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s: result tuple", fname);
  for (int i = 0; i < n; i++) {
    out->n_fields = i + 1;
    RLX_RETURN_IF_ERROR(to_value(fname, &v->u.tuple->fields[i], depth + 1, &out->fields[i]));
  }
  out->n_fields = n;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_vm_invoke_values(rlx_vm_t* vm, const char* name, int n_inputs, const rlx_vm_input_t* inputs,
                                                rlx_vm_value_t* out_result) {
  if (!vm || !name || !out_result || (n_inputs > 0 && !inputs))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "rlx_vm_invoke_values: NULL argument");
  memset(out_result, 0, sizeof(*out_result));
  out_result->kind = RLX_VM_INPUT_NONE;
  const rlx_vm_func_t* fn = NULL;
  rlx_vmv_t res = {RLX_VMV_NONE, {0}};
  rlx_status_t* st = invoke(vm, name, n_inputs, inputs, true, &fn, &res);
  if (st) return st;
  st = to_value(fn->name, &res, 0, out_result);
  rlx_vmv_release(&res);
  if (st) rlx_vm_value_clear(out_result);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_vm_invoke(rlx_vm_t* vm, const char* name, int n_inputs, DLTensor* const* inputs, int* out_n,
                                         rlx_ndarray_t*** out_outputs) {
  if (n_inputs > 0 && !inputs) return rlx_status_create(RLX_INVALID_ARGUMENT, "rlx_vm_invoke: NULL argument");
  rlx_vm_input_t small[8] = {{0}};
  rlx_vm_input_t* a = n_inputs <= 8 ? small : calloc((size_t)n_inputs, sizeof(rlx_vm_input_t));
  if (!a) return rlx_status_create(RLX_OUT_OF_MEMORY, "inputs");
  for (int i = 0; i < n_inputs; i++) a[i] = (rlx_vm_input_t){RLX_VM_INPUT_TENSOR, inputs[i], 0, NULL};
  rlx_status_t* st = rlx_vm_invoke_args(vm, name, n_inputs, a, out_n, out_outputs);
  if (a != small) free(a);
  return st;
}
