/* Model Library Format export (TVM's MLF, version 7): the archive layout, metadata.json
 * (cJSON), the parameters file and the tar (libarchive). The C comes from the code
 * generators: rlx_codegen_c_ex (kernels, standalone) and rlx_aot_codegen (entry point).
 *
 * Archive (full-model, NAME = the module name):
 *   metadata.json
 *   codegen/host/include/tvmgen_NAME.h          the AOT interface
 *   codegen/host/include/dlpack/dlpack.h        (only with runtime kernels) DLPack's types
 *   codegen/host/src/NAME_lib0.c                kernels + AOT entry point (static plan)
 *   codegen/host/src/NAME_lib1.c                constants
 *   codegen/host/lib/X.o, X.a                   extern objects, if any
 *   runtime/src/...                             runtime kernel sources, if any are called,
 *                                               with the standalone pool (no heap, OpenMP)
 *   src/relax.txt, src/tir-cpu.txt              the Relax module, the lowered PrimFuncs
 *   parameters/NAME.params                      the constants, TVM's NDArray-dict format
 * operator style: metadata.json, codegen/host/src/NAME_lib0.c (packed wrappers rlx_fn_F and
 * plain entries tvmgen_NAME_F), codegen/host/include/tvmgen_NAME.h, src/tir-cpu.txt.
 *
 * The archive is written to OUT.tmp.PID and renamed into place: an error leaves nothing.
 */
#include <archive.h>
#include <archive_entry.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../api/build_config.h"
#include "../codegen/aot.h"
#include "../build/externs.h"
#include "../build/vm_build.h"
#include "../script/script.h"
#include "../driver/driver.h"
#include "rlx/rlx.h"

/* ------------------------------------------------------------------ archive entries */
typedef struct {
  char* path;
  char* data; /* heap */
  size_t len;
} entry_t;

typedef struct {
  RLX_VEC(entry_t) entries;
  bool failed; /* an entry was left out: out of memory (rlx_export_mlf fails, no archive) */
} files_t;

/* Adds the entry path with data (heap, taken; NULL: its allocation failed) of len bytes;
 * false when out of memory (the entry left out, fs->failed set). */
static bool add_file(files_t* fs, const char* path, char* data, size_t len) {
  entry_t e = {strdup(path), data, len};
  if (e.path && data && rlx_vec_push(&fs->entries, e)) return true;
  free(e.path);
  free(data);
  fs->failed = true;
  return false;
}

/* A heap string (taken; NULL: its allocation failed). */
static bool add_str(files_t* fs, const char* path, char* text) { return add_file(fs, path, text, text ? strlen(text) : 0); }

/* A copy of text (NULL: a failed allocation of its maker). */
static bool add_text(files_t* fs, const char* path, const char* text) { return add_str(fs, path, text ? strdup(text) : NULL); }

static void files_free(files_t* fs) {
  for (int i = 0; i < fs->entries.len; i++) {
    free(fs->entries.data[i].path);
    free(fs->entries.data[i].data);
  }
  rlx_vec_free(&fs->entries);
}

static RLX_MUST_USE rlx_status_t* write_tar(const files_t* fs, const char* out_path) {
  size_t n = strlen(out_path) + 32;
  char* tmp = malloc(n);
  if (!tmp) return rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory writing '%s'", out_path);
  snprintf(tmp, n, "%s.tmp.%d", out_path, (int)getpid());
  struct archive* a = archive_write_new();
  rlx_status_t* st = NULL;
  if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK || archive_write_open_filename(a, tmp) != ARCHIVE_OK)
    st = rlx_status_create(RLX_IO_ERROR, "cannot write '%s': %s", out_path, archive_error_string(a));
  time_t now = time(NULL);
  for (int i = 0; !st && i < fs->entries.len; i++) {
    const entry_t* e = &fs->entries.data[i];
    struct archive_entry* ae = archive_entry_new();
    archive_entry_set_pathname(ae, e->path);
    archive_entry_set_size(ae, (la_int64_t)e->len);
    archive_entry_set_filetype(ae, AE_IFREG);
    archive_entry_set_perm(ae, 0644);
    archive_entry_set_mtime(ae, now, 0);
    if (archive_write_header(a, ae) != ARCHIVE_OK ||
        (e->len && archive_write_data(a, e->data, e->len) != (la_ssize_t)e->len))
      st = rlx_status_create(RLX_IO_ERROR, "writing '%s' into '%s': %s", e->path, out_path, archive_error_string(a));
    archive_entry_free(ae);
  }
  if (archive_write_close(a) != ARCHIVE_OK && !st)
    st = rlx_status_create(RLX_IO_ERROR, "cannot write '%s': %s", out_path, archive_error_string(a));
  archive_write_free(a);
  if (!st && rename(tmp, out_path) != 0) st = rlx_status_create(RLX_IO_ERROR, "cannot write '%s'", out_path);
  if (st) unlink(tmp);
  free(tmp);
  return st;
}

/* ------------------------------------------------------------------ JSON helpers */
static const char* dtype_name(rlx_dtype_t t, char buf[32]) { return rlx_dtype_str(t, buf); }

/* A size: a number when constant, else the formula as text ("n * 2088 + 813056"). */
static cJSON* size_json(const rlx_expr_t* e) {
  int64_t v;
  if (rlx_expr_is_const_int(e, &v)) return cJSON_CreateNumber((double)v);
  rlx_strbuf_t sb = {0};
  rlx_relax_prim_print(e, &sb);
  cJSON* j = cJSON_CreateString(rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return j;
}

static cJSON* shape_json(int ndim, rlx_expr_t* const* shape) {
  cJSON* arr = cJSON_CreateArray();
  for (int d = 0; d < ndim; d++) cJSON_AddItemToArray(arr, size_json(shape[d]));
  return arr;
}

static cJSON* tensors_json(const rlx_aot_tensor_t* ts, int n) {
  cJSON* o = cJSON_CreateObject();
  char buf[32];
  for (int i = 0; i < n; i++) {
    cJSON* t = cJSON_CreateObject();
    cJSON_AddItemToObject(t, "size", size_json(ts[i].bytes));
    cJSON_AddStringToObject(t, "dtype", dtype_name(ts[i].dtype, buf));
    cJSON_AddItemToObject(t, "shape", shape_json(ts[i].ndim, ts[i].shape));
    cJSON_AddItemToObject(o, ts[i].name, t);
  }
  return o;
}

static cJSON* module_json(rlx_ctx_t* ctx, const char* name, const char* style) {
  cJSON* mod = cJSON_CreateObject();
  cJSON_AddStringToObject(mod, "model_name", name);
  char when[64];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%SZ", &tm);
  cJSON_AddStringToObject(mod, "export_datetime", when);
  cJSON_AddStringToObject(mod, "style", style);
  /* the full target, and the C flags its sources are built with (rlx config --cflags) */
  const rlx_target_t* t = rlx_ctx_target_of(ctx);
  cJSON* target = cJSON_AddArrayToObject(mod, "target");
  cJSON_AddItemToArray(target, cJSON_CreateString(rlx_target_str(t)));
  char cflags[600];
  rlx_status_free(rlx_target_cflags(t, cflags, sizeof(cflags))); /* 600 bytes hold any target's */
  cJSON_AddStringToObject(mod, "cflags", cflags);
  return mod;
}

/* TVM's layout: full-model metadata nests the module under "modules": {NAME: {...}}; operator
 * style writes the same keys at the top level ("the same format as full-model with different
 * values": version, model_name, style, memory, target, executors, ...). */
static char* metadata_text(const char* name, cJSON* mod) {
  cJSON* root = cJSON_CreateObject();
  cJSON_AddNumberToObject(root, "version", 7);
  cJSON* style = cJSON_GetObjectItemCaseSensitive(mod, "style");
  if (cJSON_IsString(style) && strcmp(style->valuestring, "operator") == 0) {
    while (mod->child) {
      cJSON* it = cJSON_DetachItemViaPointer(mod, mod->child);
      char* key = it->string; /* AddItemToObject sets a copy of the key */
      it->string = NULL;
      cJSON_AddItemToObject(root, key, it);
      cJSON_free(key);
    }
    cJSON_Delete(mod);
  } else {
    cJSON* mods = cJSON_AddObjectToObject(root, "modules");
    cJSON_AddItemToObject(mods, name, mod);
  }
  char* text = cJSON_Print(root);
  cJSON_Delete(root);
  return text;
}

/* ------------------------------------------------------------------ parameters */
/* TVM's NDArray-dict format (tvm.runtime.save_param_dict), little-endian:
 *   u64 0xF7E58D4F05049CB7, u64 0, u64 count, count x (u64 len, name bytes),
 *   u64 count, count x NDArray: u64 0xDD5E40F096B4A13F, u64 0, i32 device_type (1),
 *   i32 device_id (0), i32 ndim, u8 code, u8 bits, u16 lanes, i64 shape[ndim],
 *   i64 data bytes, data. Names are p0, p1, ... (tvmgen_NAME_c0, c1, ... in the C). */
static void put(rlx_strbuf_t* sb, const void* p, size_t n) { rlx_strbuf_appendn(sb, p, n); }
static void put_u64(rlx_strbuf_t* sb, uint64_t v) { put(sb, &v, 8); }

static void params_file(const rlx_aot_result_t* r, char** out, size_t* out_len) {
  rlx_strbuf_t sb = {0};
  put_u64(&sb, 0xF7E58D4F05049CB7ull);
  put_u64(&sb, 0);
  put_u64(&sb, (uint64_t)r->n_consts);
  for (int i = 0; i < r->n_consts; i++) {
    char name[32];
    int n = snprintf(name, sizeof(name), "p%d", i);
    put_u64(&sb, (uint64_t)n);
    put(&sb, name, (size_t)n);
  }
  put_u64(&sb, (uint64_t)r->n_consts);
  for (int i = 0; i < r->n_consts; i++) rlx_script_ndarray_bytes(r->consts[i], &sb);
  *out_len = sb.len;
  *out = rlx_strbuf_take(&sb);
}

/* ------------------------------------------------------------------ runtime sources */
/* DLPack's types, declared for the runtime kernel sources (self-contained archive). */
static const char dlpack_shim[] =
    "/* The DLPack tensor types the runtime kernel sources use (same layout as DLPack 0.8),\n"
    " * declared here so that the archive compiles without DLPack installed. */\n"
    "#ifndef DLPACK_DLPACK_H_\n#define DLPACK_DLPACK_H_\n#include <stdint.h>\n"
    "#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
    "typedef enum { kDLCPU = 1 } DLDeviceType;\n"
    "typedef struct { DLDeviceType device_type; int32_t device_id; } DLDevice;\n"
    "typedef enum { kDLInt = 0U, kDLUInt = 1U, kDLFloat = 2U, kDLOpaqueHandle = 3U, kDLBfloat = 4U, kDLComplex = 5U,\n"
    "               kDLBool = 6U } DLDataTypeCode;\n"
    "typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;\n"
    "typedef struct { void* data; DLDevice device; int32_t ndim; DLDataType dtype; int64_t* shape; int64_t* strides;\n"
    "                 uint64_t byte_offset; } DLTensor;\n"
    "#ifdef __cplusplus\n}\n#endif\n#endif\n";

/* What the runtime kernels need of rlx/runtime.h, in a program without librlx_runtime. */
static const char runtime_shim[] =
    "/* The part of rlx's runtime API the runtime kernel sources use, for a program without\n"
    " * librlx_runtime: the packed ABI and the error setter (runtime/src/rlx_error.c). */\n"
    "#ifndef RLX_RUNTIME_H\n#define RLX_RUNTIME_H\n#include \"abi.h\"\n"
    "void RLXAPISetLastError(const char* msg);\n"
    "/* The message of the last failing kernel on this thread (\"\" when none). */\n"
    "const char* rlx_last_error(void);\n#endif\n";

static const char error_c[] =
    "/* The error setter the kernels call, for a program without librlx_runtime: the message of\n"
    " * the last failing kernel, per thread (rlx_last_error). */\n"
    "#include <string.h>\n\n#include \"rlx/runtime.h\"\n\n"
    "static _Thread_local char rlx_error_buf[1024];\n\n"
    "void RLXAPISetLastError(const char* msg) {\n"
    "  strncpy(rlx_error_buf, msg ? msg : \"\", sizeof(rlx_error_buf) - 1);\n"
    "  rlx_error_buf[sizeof(rlx_error_buf) - 1] = 0;\n}\n\n"
    "const char* rlx_last_error(void) { return rlx_error_buf; }\n";

static bool has_suffix(const char* s, const char* suf) {
  size_t n = strlen(s), k = strlen(suf);
  return n > k && strcmp(s + n - k, suf) == 0;
}

static RLX_MUST_USE rlx_status_t* add_disk_file(files_t* fs, const char* arc_path, const char* disk_path) {
  char* data = NULL;
  size_t len = 0;
  RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_file_read(disk_path, &data, &len), "export"));
  return add_file(fs, arc_path, data, len) ? NULL : rlx_status_create(RLX_OUT_OF_MEMORY, "export: out of memory");
}

/* Every source and header of the runtime kernels' folder, with the shims they need. The
 * vector kernels are built once, for the archive's target: each .c file starts by fixing
 * the channel block of the target's layouts (RLX_NN_TARGET_BLOCK, nn_vec.h), and the
 * compiler's ISA macros under the metadata's "cflags" pick the register tiles; the runtime's
 * dispatcher between variants (kernels_dispatch.c) stays behind. */
static RLX_MUST_USE rlx_status_t* add_runtime_sources(files_t* fs, int nb) {
  const char* inc = rlx_extern_include_dir();
  char dir[4200], path[4600], arc[512];
  snprintf(dir, sizeof(dir), "%s/../src/runtime/kernels", inc);
  DIR* d = opendir(dir);
  if (!d) return rlx_status_create(RLX_NOT_FOUND, "export: the runtime kernel sources are not in '%s'", dir);
  rlx_status_t* st = NULL;
  for (struct dirent* de; !st && (de = readdir(d)) != NULL;) {
    if (!has_suffix(de->d_name, ".c") && !has_suffix(de->d_name, ".h")) continue;
    /* the pthread pool stays behind (standalone/nn_pool.c replaces it), and so do the
     * exporter's scratch bounds */
    if (strcmp(de->d_name, "kernels_scratch.c") == 0 || strcmp(de->d_name, "kernels_scratch.h") == 0 ||
        strcmp(de->d_name, "kernels_dispatch.c") == 0)
      continue;
    if (strcmp(de->d_name, "nn_pool.c") == 0) snprintf(path, sizeof(path), "%s/standalone/%s", dir, de->d_name);
    else snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
    snprintf(arc, sizeof(arc), "runtime/src/%s", de->d_name);
    st = add_disk_file(fs, arc, path);
    if (!st && has_suffix(de->d_name, ".c")) {
      /* rlx builds these with _GNU_SOURCE; under -std=c11 POSIX declarations need the
       * feature macro before any header */
      char pre[256];
      const int np = snprintf(pre, sizeof(pre),
                              "/* (exported by rlx: POSIX interfaces under -std=c11; the target's channel block) */\n"
                              "#ifndef _POSIX_C_SOURCE\n#define _POSIX_C_SOURCE 200809L\n#endif\n"
                              "#define RLX_NN_TARGET_BLOCK %d\n",
                              nb);
      entry_t* e = &fs->entries.data[fs->entries.len - 1];
      char* data = malloc((size_t)np + e->len + 1);
      if (!data) {
        st = rlx_status_create(RLX_OUT_OF_MEMORY, "export: out of memory");
        break;
      }
      memcpy(data, pre, (size_t)np);
      memcpy(data + np, e->data, e->len + 1);
      free(e->data);
      e->data = data;
      e->len += (size_t)np;
    }
  }
  closedir(d);
  if (st) return st;
  snprintf(path, sizeof(path), "%s/rlx/abi.h", inc);
  RLX_RETURN_IF_ERROR(add_disk_file(fs, "runtime/src/rlx/abi.h", path));
  add_text(fs, "runtime/src/rlx/runtime.h", runtime_shim);
  add_text(fs, "runtime/src/rlx_error.c", error_c);
  add_text(fs, "codegen/host/include/dlpack/dlpack.h", dlpack_shim);
  return NULL;
}

/* ------------------------------------------------------------------ lowering */
static RLX_MUST_USE rlx_status_t* lower_all(rlx_ctx_t* ctx, rlx_module_t* m, rlx_tir_func_t*** out, int* out_n,
                                            rlx_module_t** out_mod) {
  rlx_module_t* all = NULL;
  RLX_RETURN_IF_ERROR(rlx_driver_lower_prim_funcs(ctx, m, &all, out, out_n));
  rlx_module_t* lm = rlx_module_create(ctx);
  for (int i = 0; i < *out_n; i++) rlx_module_set(lm, (*out)[i]->name, RLX_FUNC_TIR, (*out)[i]);
  *out_mod = lm;
  return NULL;
}

static bool extern_defines(const void* ext, const char* name) { return rlx_extern_set_find(ext, name) != NULL; }

static RLX_MUST_USE rlx_status_t* add_externs(rlx_ctx_t* ctx, const rlx_build_config_t* c, rlx_extern_set_t* ext,
                                              files_t* fs, cJSON* deps) {
  rlx_vm_compile_options_t o;
  rlx_build_config_vm_options(c, &o);
  RLX_RETURN_IF_ERROR(rlx_vm_externs(ctx, &o, ext));
  for (int i = 0; i < ext->n; i++) {
    const rlx_extern_file_t* f = &ext->files[i];
    const char* base = strrchr(f->path, '/');
    base = base ? base + 1 : f->path;
    char arc[512];
    bool archive_kind = f->kind == RLX_EXTERN_ARCHIVE;
    snprintf(arc, sizeof(arc), "codegen/host/lib/%s%s", base,
             f->kind == RLX_EXTERN_OBJECT || archive_kind ? "" : ".o");
    RLX_RETURN_IF_ERROR(add_disk_file(fs, arc, f->object));
    cJSON* dep = cJSON_CreateObject();
    cJSON_AddStringToObject(dep, "short_name", base);
    cJSON_AddStringToObject(dep, "kind", "extern-object");
    cJSON_AddStringToObject(dep, "path", arc + 0);
    cJSON_AddBoolToObject(dep, "needs_cxx_runtime", f->kind == RLX_EXTERN_CXX);
    cJSON_AddItemToArray(deps, dep);
  }
  return NULL;
}

/* ------------------------------------------------------------------ full model */
static RLX_MUST_USE rlx_status_t* export_full_model(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_mlf_options_t* opts,
                                                    const char* name, files_t* fs) {
  const char* func = NULL;
  int n_relax = 0;
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].kind == RLX_FUNC_RELAX) {
      n_relax++;
      if (!func || strcmp(m->funcs[i].name, "main") == 0) func = m->funcs[i].name;
    }
  if (!func)
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "export-mlf --style full-model needs a Relax function (this module has only PrimFuncs: use "
                             "--style operator)");
  if (n_relax > 1 && strcmp(func, "main") != 0)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "export-mlf: the module has several Relax functions and none is 'main'");
  rlx_pipeline_options_t po = {false, "plan_memory"};
  rlx_module_t* planned = NULL;
  rlx_build_use_compiled_folds(ctx); /* large constant folds run compiled */
  RLX_RETURN_IF_ERROR(rlx_pipeline_run(ctx, m, &po, &planned)); /* the driver's Relax stage */
  rlx_tir_func_t** funcs = NULL;
  int n = 0;
  rlx_module_t* lowered = NULL;
  RLX_RETURN_IF_ERROR(lower_all(ctx, planned, &funcs, &n, &lowered));

  cJSON* deps = cJSON_CreateArray();
  rlx_extern_set_t ext = {0};
  rlx_status_t* st = add_externs(ctx, opts->build, &ext, fs, deps);
  /* the kernels first (their scratch sizes), then the entry point that calls them */
  char* kernels = NULL;
  rlx_expr_t** kws = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  const char** kws_names = RLX_NEW_ARRAY(ctx, const char*, n);
  for (int i = 0; i < n; i++) kws_names[i] = funcs[i]->name;
  rlx_codegen_c_options_t co = {true, NULL, true, NULL, true, kws};
  if (!st) st = rlx_codegen_c_ex(ctx, n, funcs, &co, &kernels);
  if (!st && !kernels) st = rlx_status_create(RLX_OUT_OF_MEMORY, "export: out of memory generating the kernels");
  rlx_aot_options_t ao = {name,    NULL, opts->n_output_names, opts->output_names, extern_defines, &ext, lowered, n,
                         kws_names, kws};
  rlx_aot_result_t r;
  memset(&r, 0, sizeof(r));
  if (!st) st = rlx_aot_codegen(ctx, planned, func, &ao, &r);
  rlx_extern_set_free(&ext);
  if (st) {
    free(kernels);
    cJSON_Delete(deps);
    return st;
  }
  rlx_strbuf_t all = {0};
  rlx_strbuf_append(&all, kernels);
  rlx_strbuf_append(&all, r.entry_c);
  free(kernels);
  char* src = rlx_strbuf_take(&all);
  if (r.n_sources) st = add_runtime_sources(fs, rlx_target_nchwc_block(rlx_ctx_target_of(ctx)));
  if (st) {
    free(src);
    rlx_aot_result_free(&r);
    cJSON_Delete(deps);
    return st;
  }
  const char* cn = r.c_name;
  char path[512];
  snprintf(path, sizeof(path), "codegen/host/src/%s_lib0.c", cn);
  add_str(fs, path, src);
  snprintf(path, sizeof(path), "codegen/host/src/%s_lib1.c", cn);
  add_str(fs, path, r.consts_c);
  r.consts_c = NULL;
  snprintf(path, sizeof(path), "codegen/host/include/tvmgen_%s.h", cn);
  add_text(fs, path, r.header);
  for (int i = 0; i < r.n_sources; i++) {
    cJSON* dep = cJSON_CreateObject();
    cJSON_AddStringToObject(dep, "short_name", r.runtime_sources[i]);
    cJSON_AddStringToObject(dep, "kind", "runtime-source");
    cJSON_AddStringToObject(dep, "path", "runtime/src");
    cJSON_AddItemToArray(deps, dep);
  }
  char* pdata = NULL;
  size_t plen = 0;
  params_file(&r, &pdata, &plen);
  snprintf(path, sizeof(path), "parameters/%s.params", cn);
  add_file(fs, path, pdata, plen);
  add_str(fs, "src/relax.txt", rlx_script_print_module_ex(m, true)); /* with the metadata section: it parses back */
  add_str(fs, "src/tir-cpu.txt", rlx_script_print_module(lowered));

  /* metadata.json */
  cJSON* mod = module_json(ctx, name, "full-model");
  cJSON* ex = cJSON_AddArrayToObject(mod, "executors");
  cJSON_AddItemToArray(ex, cJSON_CreateString("aot"));
  cJSON* memory = cJSON_AddObjectToObject(mod, "memory");
  cJSON* functions = cJSON_AddObjectToObject(memory, "functions");
  cJSON* mains = cJSON_AddArrayToObject(functions, "main");
  cJSON* mj = cJSON_CreateObject();
  cJSON_AddNumberToObject(mj, "device", 1);
  cJSON_AddItemToObject(mj, "inputs", tensors_json(r.inputs, r.n_inputs));
  cJSON_AddItemToObject(mj, "outputs", tensors_json(r.outputs, r.n_outputs));
  cJSON_AddItemToObject(mj, "workspace_size_bytes", size_json(r.workspace_bytes));
  cJSON_AddNumberToObject(mj, "constants_size_bytes", (double)r.constants_bytes);
  rlx_expr_t* io = rlx_ir_i64(ctx, 0);
  for (int i = 0; i < r.n_inputs; i++) io = rlx_ir_add(ctx, io, r.inputs[i].bytes);
  for (int i = 0; i < r.n_outputs; i++) io = rlx_ir_add(ctx, io, r.outputs[i].bytes);
  cJSON_AddItemToObject(mj, "io_size_bytes", size_json(rlx_ir_simplify(ctx, io)));
  if (r.symbolic) {
    cJSON* sv = cJSON_AddArrayToObject(mj, "shape_vars");
    for (int i = 0; i < r.n_vars; i++) cJSON_AddItemToArray(sv, cJSON_CreateString(r.var_names[i]));
  }
  cJSON_AddItemToArray(mains, mj);
  cJSON* ops = cJSON_AddArrayToObject(functions, "operator_functions");
  for (int i = 0; i < r.n_kernels; i++) {
    cJSON* op = cJSON_CreateObject();
    cJSON_AddStringToObject(op, "function_name", r.kernels[i]);
    cJSON* ws = cJSON_AddArrayToObject(op, "workspace");
    cJSON* w = cJSON_CreateObject();
    cJSON_AddNumberToObject(w, "device", 1);
    /* the kernel's scratch (heap temporaries moved to the workspace), in its own variables */
    rlx_expr_t* kb = rlx_ir_i64(ctx, 0);
    for (int k = 0; k < n; k++)
      if (strcmp(kws_names[k], r.kernels[i]) == 0 && kws[k]) kb = kws[k];
    cJSON_AddItemToObject(w, "workspace_size_bytes", size_json(kb));
    cJSON_AddItemToArray(ws, w);
    cJSON_AddItemToArray(ops, op);
  }
  cJSON_AddItemToObject(mod, "external_dependencies", deps);
  add_str(fs, "metadata.json", metadata_text(name, mod));
  rlx_aot_result_free(&r);
  return NULL;
}

/* ------------------------------------------------------------------ operator style */
static RLX_MUST_USE rlx_status_t* export_operators(rlx_ctx_t* ctx, rlx_module_t* m, const char* name, files_t* fs) {
  rlx_tir_func_t** funcs = NULL;
  int n = 0;
  rlx_module_t* lowered = NULL;
  RLX_RETURN_IF_ERROR(lower_all(ctx, m, &funcs, &n, &lowered));
  if (n == 0)
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "export-mlf --style operator exports PrimFuncs, and the module has none (use --style "
                             "full-model for a Relax function)");
  const char* cn = rlx_aot_sanitize(ctx, name);
  const char* prefix = rlx_ctx_sprintf(ctx, "tvmgen_%s_", cn);
  rlx_codegen_c_options_t co = {true, prefix, false, NULL, false, NULL};
  char* src = NULL;
  RLX_RETURN_IF_ERROR(rlx_codegen_c_ex(ctx, n, funcs, &co, &src));
  char path[512];
  snprintf(path, sizeof(path), "codegen/host/src/%s_lib0.c", cn);
  add_str(fs, path, src);
  add_str(fs, "src/tir-cpu.txt", rlx_script_print_module(m));

  rlx_strbuf_t h = {0};
  char* U = (char*)rlx_ctx_strdup(ctx, cn);
  for (char* p = U; *p; p++)
    if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
  rlx_strbuf_printf(&h,
                    "/* Operators of module '%s' (generated by rlx). Each PrimFunc F has a packed-ABI entry\n"
                    " * rlx_fn_F (TVM's C backend ABI: DLTensor arguments, checked) and a plain entry\n"
                    " * tvmgen_%s_F (data pointers in parameter order, then the symbolic dimensions). */\n"
                    "#ifndef TVMGEN_%s_OPS_H_\n#define TVMGEN_%s_OPS_H_\n#include <stdint.h>\n"
                    "#ifdef __cplusplus\nextern \"C\" {\n#endif\n",
                    name, cn, U, U);
  cJSON* mod = module_json(ctx, name, "operator");
  cJSON_AddArrayToObject(mod, "executors");
  cJSON* memory = cJSON_AddObjectToObject(mod, "memory");
  char buf[32];
  for (int i = 0; i < n; i++) {
    const rlx_tir_func_t* f = funcs[i];
    rlx_strbuf_printf(&h, "int rlx_fn_%s(void* args, int* type_codes, int nargs, void* ret, int* ret_code, void* resource);\n",
                      rlx_aot_sanitize(ctx, f->name));
    rlx_strbuf_printf(&h, "int %s(", rlx_codegen_kernel_name(ctx, &co, f->name));
    cJSON* params = cJSON_AddArrayToObject(memory, f->name);
    for (int k = 0; k < f->n_params; k++) {
      const rlx_tir_buffer_t* b = f->buffer_map[k];
      if (b) {
        rlx_dtype_t el = b->dtype;
        el.lanes = 1;
        rlx_strbuf_printf(&h, "%s%s* %s", k ? ", " : "", rlx_dtype_str(el, buf), rlx_aot_sanitize(ctx, b->name));
        cJSON* p = cJSON_CreateObject();
        /* dims in order, then the element size ("n * k * 4"); folded when constant */
        rlx_expr_t* bytes = b->ndim ? b->shape[0] : rlx_ir_i64(ctx, 1);
        for (int d = 1; d < b->ndim; d++) bytes = rlx_ir_mul(ctx, bytes, b->shape[d]);
        bytes = rlx_ir_mul(ctx, bytes, rlx_ir_i64(ctx, rlx_dtype_bytes(b->dtype)));
        rlx_expr_t* folded = rlx_ir_simplify(ctx, bytes);
        int64_t cv;
        cJSON_AddItemToObject(p, "size_bytes", size_json(rlx_expr_is_const_int(folded, &cv) ? folded : bytes));
        cJSON_AddItemToObject(p, "shape", shape_json(b->ndim, b->shape));
        cJSON_AddStringToObject(p, "dtype", rlx_dtype_str(b->dtype, buf));
        cJSON_AddStringToObject(p, "input_binding", b->name);
        cJSON_AddItemToArray(params, p);
      } else {
        rlx_strbuf_printf(&h, "%s%s %s", k ? ", " : "", rlx_dtype_str(f->params[k]->hdr.dtype, buf),
                          rlx_aot_sanitize(ctx, f->params[k]->name));
      }
    }
    rlx_var_t* sv[256];
    int nsv = rlx_codegen_kernel_vars(f, sv, 256);
    for (int k = 0; k < nsv && k < 256; k++)
      rlx_strbuf_printf(&h, "%sint64_t %s", f->n_params || k ? ", " : "", rlx_aot_sanitize(ctx, sv[k]->name));
    rlx_strbuf_append(&h, ");\n");
  }
  rlx_strbuf_append(&h, "#ifdef __cplusplus\n}\n#endif\n#endif\n");
  /* C type names: rlx_dtype_str gives float32; the header needs C types */
  char* ht = rlx_strbuf_take(&h);
  if (!ht) { /* out of memory: rlx_export_mlf fails */
    cJSON_Delete(mod);
    fs->failed = true;
    return NULL;
  }
  rlx_strbuf_t fixed = {0};
  static const char* const map[][2] = {{"float32*", "float*"},   {"float64*", "double*"}, {"int32*", "int32_t*"},
                                       {"int64*", "int64_t*"},   {"int8*", "int8_t*"},    {"uint8*", "uint8_t*"},
                                       {"int16*", "int16_t*"},   {"uint16*", "uint16_t*"}, {"uint32*", "uint32_t*"},
                                       {"uint64*", "uint64_t*"}, {"bool*", "int8_t*"},    {"float16*", "uint16_t*"},
                                       {"int32 ", "int32_t "},   {"int64 ", "int64_t "},  {"float32 ", "float "},
                                       {"float64 ", "double "}};
  for (const char* p = ht; *p;) {
    bool done = false;
    for (size_t k = 0; k < sizeof(map) / sizeof(map[0]) && !done; k++) {
      size_t l = strlen(map[k][0]);
      if (strncmp(p, map[k][0], l) == 0 && (p == ht || p[-1] == ' ' || p[-1] == '(')) {
        rlx_strbuf_append(&fixed, map[k][1]);
        p += l;
        done = true;
      }
    }
    if (!done) rlx_strbuf_appendn(&fixed, p++, 1);
  }
  free(ht);
  snprintf(path, sizeof(path), "codegen/host/include/tvmgen_%s.h", cn);
  add_text(fs, path, rlx_strbuf_cstr(&fixed));
  rlx_strbuf_free(&fixed);
  cJSON_AddItemToObject(mod, "external_dependencies", cJSON_CreateArray());
  add_str(fs, "metadata.json", metadata_text(name, mod));
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_export_mlf(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_mlf_options_t* opts, const char* out_tar) {
  if (!ctx || !m || !opts || !out_tar) return rlx_status_create(RLX_INVALID_ARGUMENT, "rlx_export_mlf: NULL argument");
  const char* style = opts->style ? opts->style : "full-model";
  const char* name = opts->name ? opts->name : "default";
  if (!*name) return rlx_status_create(RLX_INVALID_ARGUMENT, "export-mlf: --name is empty");
  RLX_RETURN_IF_ERROR(rlx_ctx_target_check(ctx));
  files_t fs = {{0}, false};
  uint64_t mark = rlx_alloc_failures();
  rlx_status_t* st = NULL;
  if (strcmp(style, "full-model") == 0) st = export_full_model(ctx, m, opts, name, &fs);
  else if (strcmp(style, "operator") == 0) st = export_operators(ctx, m, name, &fs);
  else st = rlx_status_create(RLX_INVALID_ARGUMENT, "export-mlf: unknown style '%s' (full-model or operator)", style);
  /* an entry left out or anything built after a failed allocation: no archive */
  if (!st && fs.failed) st = rlx_status_create(RLX_OUT_OF_MEMORY, "export-mlf: out of memory");
  st = rlx_ctx_check(ctx, mark, st);
  if (!st) st = write_tar(&fs, out_tar);
  files_free(&fs);
  return st;
}
