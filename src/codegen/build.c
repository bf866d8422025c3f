/* Compiling generated C into shared objects (cached by content hash) and building a whole
 * IRModule: lower every PrimFunc, generate C, compile, load. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../driver/driver.h"
#include "codegen.h"

/* Fixed flags of an object compile. -std=gnu11 (not c11) keeps GCC's default
 * -ffp-contract=fast, so that `acc + a * b` becomes an FMA; -fno-math-errno lets calls like
 * expf vectorize. -fno-tree-loop-if-convert: GCC 12.2 (Debian 12) with AVX-512 at -O3
 * miscompiles a loop nest with a short constant inner loop and a select whose branch loads
 * another buffer (`y[i][k] = x[i][k] < 0 ? s[i][k] : x[i][k]` for k < 3 or 5: wrong
 * elements; ONNX's PRelu and Trilu cases), through the masked loads of if-conversion. The
 * kernels' own vectors are explicit (vector types), so this costs only the auto-vectorization
 * of scalar loops with conditionals. */
static const char* const cc_flags[] = {"-O3",           "-march=native",    "-fPIC",
                                       "-fopenmp",      "-std=gnu11",       "-fno-math-errno",
                                       "-fno-tree-loop-if-convert", "-w"};
enum { N_FLAGS = sizeof(cc_flags) / sizeof(cc_flags[0]), MAX_CC_WORDS = 16 };

const char* const* rlx_cc_flags(int* out_n) {
  *out_n = N_FLAGS;
  return cc_flags;
}

int rlx_cc_words(const char* cc, char** words, int max, char** out_copy) {
  if (!cc) cc = getenv("CC");
  if (!cc || !*cc) cc = "cc";
  *out_copy = strdup(cc);
  int nw = 0;
  for (char* tok = strtok(*out_copy, " \t"); tok && nw < max; tok = strtok(NULL, " \t")) words[nw++] = tok;
  if (nw == 0) words[nw++] = "cc";
  return nw;
}

char* rlx_cc_cache_dir(const char* dir) {
  const char* d = dir ? dir : getenv("RLX_CACHE_DIR");
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

bool rlx_cc_keep_source(void) {
  const char* v = getenv("RLX_KEEP_SOURCE");
  return v && *v && strcmp(v, "0") != 0;
}

bool rlx_cc_have_libmvec(char* const* cc_words, int nw) {
  char* argv[MAX_CC_WORDS + 2];
  for (int i = 0; i < nw; i++) argv[i] = cc_words[i];
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

RLX_MUST_USE rlx_status_t* rlx_compile_c(const char* src, const rlx_compile_options_t* opts, char** out_path) {
  if (!src || !out_path) return rlx_status_create(RLX_INVALID_ARGUMENT, "rlx_compile_c: NULL source or output");
  char* cc_copy = NULL;
  char* words[MAX_CC_WORDS];
  int nw = rlx_cc_words(opts ? opts->cc : NULL, words, MAX_CC_WORDS, &cc_copy);

  uint64_t h = rlx_hash_bytes(src, strlen(src), 0x726c78);
  for (int i = 0; i < nw; i++) h = rlx_hash_combine(h, rlx_hash_bytes(words[i], strlen(words[i]), 1));
  for (int i = 0; i < N_FLAGS; i++) h = rlx_hash_combine(h, rlx_hash_bytes(cc_flags[i], strlen(cc_flags[i]), 2));

  char* dir = rlx_cc_cache_dir(opts ? opts->cache_dir : NULL);
  rlx_status_t* st = rlx_mkdirs(dir);
  if (st) {
    free(cc_copy);
    free(dir);
    return rlx_status_annotate(st, "compile cache");
  }
  size_t plen = strlen(dir) + 96;
  char* so = malloc(plen);
  char* c_final = malloc(plen);
  char* tmp_c = malloc(plen);
  char* tmp_so = malloc(plen);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  unsigned long long nonce = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)(uintptr_t)&ts << 7);
  snprintf(so, plen, "%s/%016llx.so", dir, (unsigned long long)h);
  snprintf(c_final, plen, "%s/%016llx.c", dir, (unsigned long long)h);
  snprintf(tmp_c, plen, "%s/%016llx.%d.%llx.tmp.c", dir, (unsigned long long)h, (int)getpid(), nonce);
  snprintf(tmp_so, plen, "%s/%016llx.%d.%llx.tmp.so", dir, (unsigned long long)h, (int)getpid(), nonce);
  free(dir);

  bool keep = (opts && opts->keep_source) || rlx_cc_keep_source();
  if (access(so, R_OK) == 0) {
    if (keep && access(c_final, R_OK) != 0) rlx_status_free(rlx_file_write(c_final, src, strlen(src)));
    goto done;
  }
  st = rlx_file_write(tmp_c, src, strlen(src));
  if (st) goto done;
  char* argv[MAX_CC_WORDS + N_FLAGS + 8];
  int na = 0;
  for (int i = 0; i < nw; i++) argv[na++] = words[i];
  for (int i = 0; i < N_FLAGS; i++) argv[na++] = (char*)cc_flags[i];
  argv[na++] = "-shared";
  argv[na++] = tmp_c;
  argv[na++] = "-o";
  argv[na++] = tmp_so;
  if (rlx_cc_have_libmvec(words, nw)) argv[na++] = "-lmvec";
  argv[na++] = "-lm";
  argv[na] = NULL;
  st = rlx_process_run(argv, NULL);
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
  free(cc_copy);
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

RLX_MUST_USE rlx_status_t* rlx_build_module(rlx_ctx_t* ctx, rlx_module_t* m, const rlx_compile_options_t* opts,
                                            rlx_library_t** out_lib) {
  rlx_driver_options_t o = {false, "codegen_c", "none"}; /* PrimFuncs only: no Relax stage */
  rlx_driver_result_t r;
  RLX_RETURN_IF_ERROR(rlx_driver_run(ctx, m, &o, &r));
  char* src = r.c_source;
  char* path = NULL;
  rlx_status_t* st = rlx_compile_c(src, opts, &path);
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
  RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_build_module(ctx, m, NULL, &lib), "compiling '%s'", f->name));
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
