/* The C compiler for a target, compiling generated C into shared objects (cached), and
 * building a module's PrimFuncs into a loaded library (build.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../codegen/codegen.h"
#include "../driver/driver.h"
#include "build.h"

/* Fixed flags of a kernel compile. -std=gnu11 (not c11) keeps GCC's default
 * -ffp-contract=fast, so that `acc + a * b` becomes an FMA; -fno-math-errno lets calls like
 * expf vectorize. -fno-tree-loop-if-convert: GCC 12.2 (Debian 12) with AVX-512 at -O3
 * miscompiles a loop nest with a short constant inner loop and a select whose branch loads
 * another buffer (`y[i][k] = x[i][k] < 0 ? s[i][k] : x[i][k]` for k < 3 or 5: wrong
 * elements; ONNX's PRelu and Trilu cases), through the masked loads of if-conversion. The
 * kernels' own vectors are explicit (vector types), so this costs only the auto-vectorization
 * of scalar loops with conditionals. The target's -march/-mtune come after these. */
static const char* const c_flags[] = {"-O3",      "-fPIC", "-fopenmp", "-std=gnu11", "-fno-math-errno",
                                      "-fno-tree-loop-if-convert", "-w"};
enum { N_C_FLAGS = sizeof(c_flags) / sizeof(c_flags[0]) };

/* The compiler's words: the context's, else $CC, else the target's cross compiler, else cc. */
static const char* cc_text(const rlx_ctx_t* ctx, const rlx_target_t* t) {
  if (ctx->pass.cc) return ctx->pass.cc;
  const char* cross = rlx_target_default_cc(t);
  if (cross) return cross; /* $CC names the host's compiler */
  const char* env = getenv("CC");
  return env && *env ? env : "cc";
}

/* "12.2.0 x86_64-linux-gnu": what the compiler says of its version and machine. */
static RLX_MUST_USE rlx_status_t* cc_version(char* const* words, int nw, char** out) {
  char* argv[RLX_CC_MAX_ARGS];
  for (int i = 0; i < nw; i++) argv[i] = words[i];
  argv[nw] = "-dumpfullversion";
  argv[nw + 1] = "-dumpmachine";
  argv[nw + 2] = NULL;
  return rlx_process_run(argv, out);
}

static bool have_libmvec(char* const* words, int nw) {
  char* argv[RLX_CC_MAX_ARGS];
  for (int i = 0; i < nw; i++) argv[i] = words[i];
  argv[nw] = "-print-file-name=libmvec.so";
  argv[nw + 1] = NULL;
  char* log = NULL;
  rlx_status_t* st = rlx_process_run(argv, &log);
  bool ok = !st && log && log[0] == '/';
  if (ok) {
    log[strcspn(log, "\r\n")] = 0;
    ok = access(log, R_OK) == 0;
  }
  rlx_status_free(st);
  free(log);
  return ok;
}

RLX_MUST_USE rlx_status_t* rlx_cc_init(rlx_ctx_t* ctx, const rlx_target_t* t, const char* lang, rlx_cc_t* out) {
  memset(out, 0, sizeof(*out));
  if (!t) t = rlx_ctx_target_of(ctx);
  out->target = t;
  const char* cc = cc_text(ctx, t);
  char tflags[512];
  rlx_target_cc_flags(t, tflags, sizeof(tflags));
  size_t n1 = strlen(cc) + 1, n2 = strlen(tflags) + 1;
  out->store = malloc(n1 + n2);
  if (!out->store) return rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (compiler command)");
  memcpy(out->store, cc, n1);
  memcpy(out->store + n1, tflags, n2);
  char* save = NULL;
  for (char* w = strtok_r(out->store, " \t", &save); w && out->n < RLX_CC_MAX_ARGS / 2; w = strtok_r(NULL, " \t", &save))
    out->argv[out->n++] = w;
  if (out->n == 0) {
    rlx_cc_free(out);
    return rlx_status_create(RLX_INVALID_ARGUMENT, "the C compiler is an empty command");
  }
  out->n_words = out->n;
  if (strcmp(lang, "c") == 0)
    for (int i = 0; i < N_C_FLAGS; i++) out->argv[out->n++] = (char*)c_flags[i];
  for (char* w = strtok_r(out->store + n1, " ", &save); w && out->n < RLX_CC_MAX_ARGS - 12; w = strtok_r(NULL, " ", &save))
    out->argv[out->n++] = w;
  char* version = NULL;
  rlx_status_t* st = NULL;
  bool cached = ctx->pass.cc_probe_for && strcmp(ctx->pass.cc_probe_for, cc) == 0;
  if (cached) version = strdup(ctx->pass.cc_version);
  else st = cc_version(out->argv, out->n_words, &version);
  if (!st && !version) st = rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (compiler version)");
  if (st) {
    const char* pkg = rlx_target_arch(t) == RLX_ARCH_AARCH64 && rlx_host_arch() != RLX_ARCH_AARCH64
                          ? " (Debian: apt-get install gcc-aarch64-linux-gnu)"
                          : "";
    st = rlx_status_annotate(st, "the C compiler '%s' for target '%s' cannot be run%s", cc, rlx_target_str(t), pkg);
    free(version);
    rlx_cc_free(out);
    return st;
  }
  uint64_t h = rlx_hash_bytes(version, strlen(version), 0x63630a);
  for (int i = 0; i < out->n; i++) h = rlx_hash_combine(h, rlx_hash_bytes(out->argv[i], strlen(out->argv[i]), 1));
  h = rlx_hash_combine(h, rlx_hash_bytes(rlx_target_str(t), strlen(rlx_target_str(t)), 2));
  out->hash = h;
  if (cached) {
    out->libmvec = ctx->pass.cc_libmvec;
  } else { /* probed once per context and compiler */
    out->libmvec = have_libmvec(out->argv, out->n_words);
    ctx->pass.cc_probe_for = rlx_arena_strdup(&ctx->arena, cc);
    ctx->pass.cc_version = rlx_arena_strdup(&ctx->arena, version);
    ctx->pass.cc_libmvec = out->libmvec;
  }
  free(version);
  return NULL;
}

void rlx_cc_free(rlx_cc_t* c) {
  free(c->store);
  memset(c, 0, sizeof(*c));
}

char* rlx_cc_cache_dir(const rlx_ctx_t* ctx) {
  const char* d = ctx && ctx->pass.cache_dir ? ctx->pass.cache_dir : getenv("RLX_CACHE_DIR");
  char buf[4096];
  if (d && *d) {
    snprintf(buf, sizeof(buf), "%s", d);
  } else {
    const char* home = getenv("HOME");
    if (home && *home) snprintf(buf, sizeof(buf), "%s/.cache/rlx", home);
    else snprintf(buf, sizeof(buf), "/tmp/rlx-cache-%d", (int)getuid());
  }
  return strdup(buf);
}

bool rlx_cc_keep_source(const rlx_ctx_t* ctx) {
  if (ctx && ctx->pass.keep_source) return true;
  const char* v = getenv("RLX_KEEP_SOURCE");
  return v && *v && strcmp(v, "0") != 0;
}

void rlx_build_use_compiled_folds(rlx_ctx_t* ctx) {
  if (!ctx->pass.fold_runner) ctx->pass.fold_runner = rlx_build_run_func;
}

RLX_MUST_USE rlx_status_t* rlx_compile_c_for(rlx_ctx_t* ctx, const rlx_target_t* t, const char* src, char** out_path) {
  if (!src || !out_path) return rlx_status_create(RLX_INVALID_ARGUMENT, "rlx_compile_c: NULL source or output");
  rlx_cc_t cc;
  RLX_RETURN_IF_ERROR(rlx_cc_init(ctx, t, "c", &cc));
  uint64_t h = rlx_hash_combine(rlx_hash_bytes(src, strlen(src), 0x726c78), cc.hash);
  char* dir = rlx_cc_cache_dir(ctx);
  rlx_status_t* st = dir ? rlx_mkdirs(dir) : rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (cache path)");
  if (st) {
    rlx_cc_free(&cc);
    free(dir);
    return rlx_status_annotate(st, "compile cache");
  }
  size_t plen = strlen(dir) + 96;
  char* so = malloc(plen);
  char* c_final = malloc(plen);
  char* tmp_c = malloc(plen);
  char* tmp_so = malloc(plen);
  if (!so || !c_final || !tmp_c || !tmp_so) {
    st = rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (cache paths)");
    free(dir);
    goto done;
  }
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  unsigned long long nonce = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)(uintptr_t)&ts << 7);
  snprintf(so, plen, "%s/%016llx.so", dir, (unsigned long long)h);
  snprintf(c_final, plen, "%s/%016llx.c", dir, (unsigned long long)h);
  snprintf(tmp_c, plen, "%s/%016llx.%d.%llx.tmp.c", dir, (unsigned long long)h, (int)getpid(), nonce);
  snprintf(tmp_so, plen, "%s/%016llx.%d.%llx.tmp.so", dir, (unsigned long long)h, (int)getpid(), nonce);
  free(dir);

  bool keep = rlx_cc_keep_source(ctx);
  if (access(so, R_OK) == 0) {
    if (keep && access(c_final, R_OK) != 0) rlx_status_free(rlx_file_write(c_final, src, strlen(src)));
    goto done;
  }
  st = rlx_file_write(tmp_c, src, strlen(src));
  if (st) goto done;
  int na = cc.n;
  cc.argv[na++] = "-shared";
  cc.argv[na++] = tmp_c;
  cc.argv[na++] = "-o";
  cc.argv[na++] = tmp_so;
  if (cc.libmvec) cc.argv[na++] = "-lmvec";
  cc.argv[na++] = "-lm";
  cc.argv[na] = NULL;
  st = rlx_process_run(cc.argv, NULL);
  if (st) {
    /* keep the failing source next to the cache for inspection */
    rename(tmp_c, c_final);
    unlink(tmp_so);
    st = rlx_status_annotate(st, "compiling generated C '%s'", c_final);
    goto done;
  }
  /* rename is atomic: a concurrent builder of the same source produces the same bytes */
  if (rename(tmp_so, so) != 0) {
    unlink(tmp_so);
    unlink(tmp_c);
    st = rlx_status_create(RLX_IO_ERROR, "cannot move compiled object into '%s'", so);
    goto done;
  }
  if (keep) rename(tmp_c, c_final);
  else unlink(tmp_c);
done:
  rlx_cc_free(&cc);
  free(c_final);
  free(tmp_c);
  free(tmp_so);
  if (st) {
    free(so);
    return st;
  }
  *out_path = so;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_compile_c(rlx_ctx_t* ctx, const char* src, char** out_path) {
  return rlx_compile_c_for(ctx, NULL, src, out_path);
}

RLX_MUST_USE rlx_status_t* rlx_build_module(rlx_ctx_t* ctx, rlx_module_t* m, rlx_library_t** out_lib) {
  RLX_RETURN_IF_ERROR(rlx_ctx_target_check(ctx));
  RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_target_check_host(rlx_ctx_target_of(ctx)),
                                          "a module built to be loaded here"));
  rlx_build_use_compiled_folds(ctx);
  rlx_driver_options_t o = {false, "codegen_c", "none"}; /* PrimFuncs only: no Relax stage */
  rlx_driver_result_t r;
  RLX_RETURN_IF_ERROR(rlx_driver_run(ctx, m, &o, &r));
  char* src = r.c_source;
  char* path = NULL;
  rlx_status_t* st = rlx_compile_c(ctx, src, &path);
  free(src);
  if (st) return st;
  st = rlx_library_load(path, out_lib);
  free(path);
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_build_run_func(rlx_ctx_t* ctx, const rlx_tir_func_t* f, DLTensor** args, int n) {
  if (n != f->n_params) return rlx_status_create(RLX_INVALID_ARGUMENT, "'%s' takes %d arguments, got %d", f->name,
                                                 f->n_params, n);
  rlx_module_t* m = rlx_module_create(ctx);
  rlx_module_set(m, f->name, RLX_FUNC_TIR, (void*)f);
  rlx_library_t* lib = NULL;
  /* compiled for the host, with the host's schedules: this runs here, now, whatever the
   * module is compiled for */
  rlx_target_t target = ctx->pass.target;
  rlx_status_t* hs = rlx_target_host_into(&ctx->pass.target);
  if (!hs) hs = rlx_build_module(ctx, m, &lib);
  ctx->pass.target = target;
  RLX_RETURN_IF_ERROR(rlx_status_annotate(hs, "compiling '%s'", f->name));
  rlx_packed_fn_t fn = NULL;
  rlx_status_t* st = rlx_library_get_function(lib, rlx_codegen_symbol(ctx, f->name), &fn);
  rlx_value_t* vals = RLX_NEW_ARRAY(ctx, rlx_value_t, n > 0 ? n : 1);
  int* codes = RLX_NEW_ARRAY(ctx, int, n > 0 ? n : 1);
  for (int i = 0; i < n && !st; i++) {
    if (f->buffer_map[i]) {
      vals[i].v_handle = args[i];
      codes[i] = RLX_ARG_DLTENSOR;
    } else if (args[i]->ndim == 0 && args[i]->dtype.code == kDLInt && args[i]->dtype.bits == 64) {
      vals[i].v_int64 = *(const int64_t*)args[i]->data;
      codes[i] = RLX_ARG_INT;
    } else {
      st = rlx_status_create(RLX_UNSUPPORTED, "'%s': scalar parameter %d is not an int64", f->name, i);
    }
  }
  if (!st) st = rlx_packed_call(fn, NULL, vals, codes, n, NULL, NULL);
  rlx_library_free(lib);
  return st;
}
