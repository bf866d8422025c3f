/* Packaging a compiled model: the driver (src/driver/driver.h) → kernels' C + bytecode → one shared object with the
 * executable embedded by `.incbin` (see vm_build.h). The kernels are compiled to an object
 * cached by content hash with build.c's compiler configuration (rlx_cc_*), then linked with
 * the executable and extern objects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../driver/driver.h"
#include "vm_build.h"

/* The driver's options for opts (Relax passes, well-formedness checks). */
static rlx_driver_options_t driver_options(const rlx_vm_compile_options_t* opts, const char* stop_after) {
  rlx_driver_options_t o = {opts && opts->check_well_formed, stop_after, opts ? opts->passes : NULL};
  return o;
}

RLX_MUST_USE rlx_status_t* rlx_vm_externs(rlx_ctx_t* ctx, const rlx_vm_compile_options_t* opts,
                                          rlx_extern_set_t* out_set) {
  memset(out_set, 0, sizeof(*out_set));
  if (!opts) return NULL;
  rlx_status_t* st = NULL;
  for (int i = 0; !st && i < opts->n_objects; i++) st = rlx_extern_set_add(ctx, out_set, opts->objects[i]);
  for (int i = 0; !st && i < opts->n_externs; i++) st = rlx_extern_set_add(ctx, out_set, opts->externs[i]);
  if (st) rlx_extern_set_free(out_set);
  return st;
}

static rlx_extern_lookup_t lookup_of(const rlx_vm_compile_options_t* opts) {
  rlx_extern_lookup_t lk = {0, NULL, 0, NULL};
  if (opts) {
    lk.n_libs = opts->n_libs;
    lk.libs = opts->libs;
    lk.n_defer = opts->n_defer;
    lk.defer = opts->defer;
  }
  return lk;
}

RLX_MUST_USE rlx_status_t* rlx_vm_unresolved(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_vm_compile_options_t* opts,
                                             const char*** out_names, int* out_n) {
  RLX_RETURN_IF_ERROR(rlx_ctx_target_check(ctx));
  rlx_build_use_compiled_folds(ctx);
  rlx_extern_set_t ext;
  RLX_RETURN_IF_ERROR(rlx_vm_externs(ctx, opts, &ext));
  rlx_module_t* lowered = NULL;
  rlx_driver_options_t o = driver_options(opts, NULL);
  rlx_status_t* st = rlx_driver_relax_stage(ctx, m, &o, &lowered);
  rlx_extern_lookup_t lk = lookup_of(opts);
  if (!st) st = rlx_extern_resolve(ctx, lowered, &ext, &lk, out_names, out_n);
  rlx_extern_set_free(&ext);
  return st;
}

/* Appends to the kernels' C source the table `rlx_vm_kernel_flops` ("SYMBOL FLOPS" lines) of
 * the kernels whose FLOPs the default schedule counted ("rlx.flops"), for the VM profiler. */
static RLX_MUST_USE rlx_status_t* append_flops_table(rlx_ctx_t* ctx, const rlx_module_t* m, char** src) {
  rlx_strbuf_t sb = {0};
  rlx_strbuf_append(&sb, *src);
  rlx_strbuf_append(&sb, "\n/* FLOPs per call of the kernels that have a count (rlx bench --profile) */\n"
                         "__attribute__((visibility(\"default\"))) const char rlx_vm_kernel_flops[] =\n");
  for (int i = 0; i < m->n_funcs; i++) {
    const rlx_module_entry_t* e = &m->funcs[i];
    int64_t fl;
    if (e->kind != RLX_FUNC_TIR || !rlx_expr_is_const_int(rlx_tir_func_get_attr(e->func, "rlx.flops"), &fl)) continue;
    rlx_strbuf_printf(&sb, "    \"%s %lld\\n\"\n", rlx_codegen_symbol(ctx, e->name), (long long)fl);
  }
  rlx_strbuf_append(&sb, "    \"\";\n");
  char* out = rlx_strbuf_take(&sb);
  if (!out) return rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (kernel source)");
  free(*src);
  *src = out;
  return NULL;
}

/* The driver (Relax stage, TIR stage, the kernels' C), the extern check (ext NULL: none),
 * and the executable. */
static RLX_MUST_USE rlx_status_t* build_parts(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_vm_compile_options_t* opts,
                                              const rlx_extern_set_t* ext, char** out_kernels_c, void** out_exec, size_t* out_n) {
  RLX_RETURN_IF_ERROR(rlx_ctx_target_check(ctx));
  rlx_build_use_compiled_folds(ctx);
  uint64_t mark = rlx_alloc_failures();
  rlx_driver_options_t o = driver_options(opts, "codegen_c");
  rlx_driver_result_t r;
  RLX_RETURN_IF_ERROR(rlx_driver_run(ctx, m, &o, &r));
  char* src = r.c_source;
  rlx_status_t* st = NULL;
  if (ext) {
    rlx_extern_lookup_t lk = lookup_of(opts);
    st = rlx_extern_resolve(ctx, r.relax, ext, &lk, NULL, NULL);
  }
  rlx_vm_exec_t* exec = NULL;
  void* bytes = NULL;
  size_t n_bytes = 0;
  /* each stage: out of memory in the context fails it (rlx_ctx_check) */
  if (!st) st = rlx_vm_codegen(ctx, r.relax, &exec);
  if (!st) st = rlx_vm_exec_serialize(exec, &bytes, &n_bytes);
  rlx_vm_exec_free(exec);
  if (!st) st = append_flops_table(ctx, r.relax, &src);
  st = rlx_ctx_check(ctx, mark, st);
  if (st) {
    free(src);
    free(bytes);
    return st;
  }
  *out_kernels_c = src;
  *out_exec = bytes;
  *out_n = n_bytes;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_vm_build_parts(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_vm_compile_options_t* opts,
                                              char** out_kernels_c, void** out_exec, size_t* out_n) {
  return build_parts(ctx, m, opts, NULL, out_kernels_c, out_exec, out_n);
}

/* Compiles the kernels' C into an object in the cache (reused when the key matches);
 * *out_obj is a heap path. */
static RLX_MUST_USE rlx_status_t* compile_kernels(rlx_ctx_t* ctx, const char* src, char** out_obj) {
  rlx_cc_t cc;
  RLX_RETURN_IF_ERROR(rlx_cc_init(ctx, NULL, "c", &cc));
  uint64_t h = rlx_hash_combine(rlx_hash_bytes(src, strlen(src), 0x766d6b), cc.hash);
  char* dir = rlx_cc_cache_dir(ctx);
  if (!dir) {
    rlx_cc_free(&cc);
    return rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (compile cache path)");
  }
  rlx_status_t* st = rlx_status_annotate(rlx_mkdirs(dir), "compile cache");
  size_t plen = strlen(dir) + 96;
  char* obj = malloc(plen);
  char* tmp_c = malloc(plen);
  char* tmp_o = malloc(plen);
  if (!st && (!obj || !tmp_c || !tmp_o)) st = rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (kernel paths)");
  if (st) {
    free(dir);
    rlx_cc_free(&cc);
    free(obj);
    free(tmp_c);
    free(tmp_o);
    return st;
  }
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  snprintf(obj, plen, "%s/%016llx.vmk.o", dir, (unsigned long long)h);
  snprintf(tmp_c, plen, "%s/%016llx.%d.%lx.vmk.c", dir, (unsigned long long)h, (int)getpid(), (long)ts.tv_nsec);
  snprintf(tmp_o, plen, "%s/%016llx.%d.%lx.vmk.tmp.o", dir, (unsigned long long)h, (int)getpid(), (long)ts.tv_nsec);
  if (!st && access(obj, R_OK) != 0) {
    st = rlx_file_write(tmp_c, src, strlen(src));
    if (!st) {
      int na = cc.n;
      cc.argv[na++] = "-c";
      cc.argv[na++] = tmp_c;
      cc.argv[na++] = "-o";
      cc.argv[na++] = tmp_o;
      cc.argv[na] = NULL;
      st = rlx_process_run(cc.argv, NULL);
      if (st) st = rlx_status_annotate(st, "compiling the model's kernels '%s'", tmp_c);
      else if (!rlx_cc_keep_source(ctx)) unlink(tmp_c); /* $RLX_KEEP_SOURCE: it stays */
      /* rename is atomic: a concurrent build of the same source produces the same object */
      if (!st && rename(tmp_o, obj) != 0) st = rlx_status_create(RLX_IO_ERROR, "cannot write '%s'", obj);
    }
    unlink(tmp_o);
  }
  free(dir);
  rlx_cc_free(&cc);
  free(tmp_c);
  free(tmp_o);
  if (st) {
    free(obj);
    return st;
  }
  *out_obj = obj;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* link_model(rlx_ctx_t* ctx, const char* dir, const char* kernels_o, const char* exec_s,
                                             const rlx_extern_set_t* ext, const char* out_path) {
  char cuda_dir[4300];
  if (ext->has_cuda) RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_extern_cuda_lib_dir(cuda_dir, sizeof(cuda_dir)),
                                                             "linking model '%s'", out_path));
  rlx_cc_t cc;
  RLX_RETURN_IF_ERROR(rlx_cc_init(ctx, NULL, "link", &cc));
  int n_obj = ext->n;
  char** argv = calloc((size_t)(cc.n + n_obj + 16), sizeof(char*));
  size_t plen = strlen(out_path) + 64;
  char* tmp_out = malloc(plen);
  if (!argv || !tmp_out) {
    free(argv);
    free(tmp_out);
    rlx_cc_free(&cc);
    return rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (linking model '%s')", out_path);
  }
  snprintf(tmp_out, plen, "%s.%d.tmp", out_path, (int)getpid());
  int na = 0;
  for (int i = 0; i < cc.n; i++) argv[na++] = cc.argv[i];
  argv[na++] = "-shared";
  argv[na++] = "-fopenmp";
  argv[na++] = "-w";
  argv[na++] = (char*)kernels_o;
  argv[na++] = (char*)exec_s;
  for (int i = 0; i < n_obj; i++) argv[na++] = ext->files[i].object;
  argv[na++] = "-o";
  argv[na++] = tmp_out;
  if (cc.libmvec) argv[na++] = "-lmvec";
  if (ext->has_cxx) argv[na++] = "-lstdc++";
  char cuda_l[4400], cuda_rpath[4500];
  if (ext->has_cuda) {
    /* cuda_dir names the directory holding libcudart.so (checked before the link) */
    snprintf(cuda_l, sizeof(cuda_l), "-L%s", cuda_dir);
    snprintf(cuda_rpath, sizeof(cuda_rpath), "-Wl,-rpath,%s", cuda_dir);
    argv[na++] = cuda_l;
    argv[na++] = cuda_rpath;
    argv[na++] = "-lcudart";
  }
  argv[na++] = "-lm";
  argv[na] = NULL;
  rlx_status_t* st = rlx_process_run(argv, NULL);
  if (st) {
    st = rlx_status_annotate(st, "linking model '%s' (files in %s)", out_path, dir);
  } else if (rename(tmp_out, out_path) != 0) {
    st = rlx_status_create(RLX_IO_ERROR, "cannot write model '%s'", out_path);
  }
  unlink(tmp_out);
  free(tmp_out);
  free(argv);
  rlx_cc_free(&cc);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_vm_compile(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_vm_compile_options_t* opts,
                                          const char* out_path) {
  if (!ctx || !m || !out_path) return rlx_status_create(RLX_INVALID_ARGUMENT, "rlx_vm_compile: NULL argument");
  char* src = NULL;
  void* exec = NULL;
  size_t n = 0;
  rlx_extern_set_t ext;
  RLX_RETURN_IF_ERROR(rlx_ctx_target_check(ctx));
  RLX_RETURN_IF_ERROR(rlx_vm_externs(ctx, opts, &ext));
  rlx_status_t* pst = build_parts(ctx, m, opts, &ext, &src, &exec, &n);
  if (pst) {
    rlx_extern_set_free(&ext);
    return pst;
  }
  char dir[] = "/tmp/rlx-vm-XXXXXX";
  if (!mkdtemp(dir)) {
    free(src);
    free(exec);
    rlx_extern_set_free(&ext);
    return rlx_status_create(RLX_IO_ERROR, "cannot create a temporary directory for '%s'", out_path);
  }
  char kc[64], eb[64], es[64];
  snprintf(kc, sizeof(kc), "%s/kernels.c", dir);
  snprintf(eb, sizeof(eb), "%s/exec.bin", dir);
  snprintf(es, sizeof(es), "%s/exec.s", dir);
  rlx_strbuf_t asm_src = {0};
  rlx_strbuf_printf(&asm_src,
                    "  .section .rodata.rlx_vm_executable,\"a\"\n"
                    "  .balign 64\n"
                    "  .globl rlx_vm_executable\n"
                    "  .type rlx_vm_executable, %%object\n"
                    "rlx_vm_executable:\n"
                    "  .incbin \"%s\"\n"
                    "  .size rlx_vm_executable, %zu\n"
                    "  .balign 8\n"
                    "  .globl rlx_vm_executable_size\n"
                    "  .type rlx_vm_executable_size, %%object\n"
                    "rlx_vm_executable_size:\n"
                    "  .quad %zu\n"
                    "  .size rlx_vm_executable_size, 8\n"
                    /* the target, read from the file before it is loaded (rlx_vm_model_target) */
                    "  .section .rlx_target,\"\"\n"
                    "  .asciz \"%s\"\n"
                    "  .section .note.GNU-stack,\"\",%%progbits\n",
                    eb, n, n, rlx_target_str(rlx_ctx_target_of(ctx)));
  bool keep = opts && opts->keep_temps;
  char* obj = NULL;
  rlx_status_t* st = keep ? rlx_file_write(kc, src, strlen(src)) : NULL;
  if (!st) st = rlx_file_write(eb, exec, n);
  if (!st) st = rlx_file_write(es, rlx_strbuf_cstr(&asm_src), asm_src.len);
  if (!st) st = compile_kernels(ctx, src, &obj);
  if (!st) st = link_model(ctx, dir, obj, es, &ext, out_path);
  rlx_extern_set_free(&ext);
  free(obj);
  rlx_strbuf_free(&asm_src);
  free(src);
  free(exec);
  if (!keep && !st) {
    unlink(kc);
    unlink(eb);
    unlink(es);
    rmdir(dir);
  }
  return st;
}
