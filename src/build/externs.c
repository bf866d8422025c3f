/* External code linked into a model and compile-time resolution of extern calls (see
 * externs.h). */
#include "externs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../relax/relax.h"
#include "build.h"
#include "rlx/runtime.h"

#ifndef RLX_SOURCE_INCLUDE_DIR
#define RLX_SOURCE_INCLUDE_DIR "include"
#endif

enum { MAX_WORDS = 16 };

static const char* const builtin_names[] = {
#define X(c, name, doc) name,
#include "../runtime/vm_builtins.def"
#undef X
};

/* Headers an extern source may include; their text is part of the cache key. */
static const char* const rlx_headers[] = {
    "rlx/abi.h", "rlx/extern.h", "rlx/runtime.h", "rlx/status.h", "tvm/runtime/packed_func.h",
    "tvm/runtime/data_type.h", "tvm/runtime/ndarray.h", "tvm/runtime/logging.h", "tvm/runtime/c_runtime_api.h",
};

const char* rlx_extern_include_dir(void) {
  const char* d = getenv("RLX_INCLUDE_DIR");
  return d && *d ? d : RLX_SOURCE_INCLUDE_DIR;
}

static bool ends_with(const char* s, const char* suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n > k && strcmp(s + n - k, suffix) == 0;
}

RLX_MUST_USE rlx_status_t* rlx_extern_kind_of(const char* path, rlx_extern_kind_t* out_kind) {
  static const struct {
    const char* ext;
    rlx_extern_kind_t kind;
  } table[] = {{".o", RLX_EXTERN_OBJECT},  {".a", RLX_EXTERN_ARCHIVE}, {".c", RLX_EXTERN_C},
               {".cc", RLX_EXTERN_CXX},    {".cpp", RLX_EXTERN_CXX},   {".cxx", RLX_EXTERN_CXX},
               {".cu", RLX_EXTERN_CUDA}};
  for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
    if (ends_with(path, table[i].ext)) {
      *out_kind = table[i].kind;
      return NULL;
    }
  }
  return rlx_status_create(RLX_INVALID_ARGUMENT,
                           "--extern '%s': unknown extension (expected an object .o, an archive .a, or a source "
                           ".c, .cc, .cpp, .cxx or .cu)",
                           path);
}

/* The compiler for a source kind: words of $CC / $CXX / $NVCC (or cc / c++ / nvcc); for a
 * target of another architecture, its cross compiler (<triple>-gcc / -g++): $CC names the
 * host's. The C compiler follows the pass context's when it names one. */
static int compiler_words(const rlx_ctx_t* ctx, rlx_extern_kind_t kind, char** words, char** out_copy) {
  const char* env = kind == RLX_EXTERN_C ? "CC" : kind == RLX_EXTERN_CXX ? "CXX" : "NVCC";
  const char* dflt = kind == RLX_EXTERN_C ? "cc" : kind == RLX_EXTERN_CXX ? "c++" : "nvcc";
  const char* v = getenv(env);
  const rlx_target_t* t = ctx ? rlx_ctx_target_of(ctx) : NULL;
  const char* cross = t ? rlx_target_default_cc(t) : NULL;
  char cross_cxx[96];
  if (cross && kind == RLX_EXTERN_CXX) {
    snprintf(cross_cxx, sizeof(cross_cxx), "%.*sg++", (int)(strlen(cross) - 3), cross);
    cross = cross_cxx;
  }
  if (cross && kind != RLX_EXTERN_CUDA) v = cross;
  if (kind == RLX_EXTERN_C && ctx && ctx->pass.cc) v = ctx->pass.cc;
  *out_copy = strdup(v && *v ? v : dflt);
  int nw = 0;
  for (char* tok = strtok(*out_copy, " \t"); tok && nw < MAX_WORDS; tok = strtok(NULL, " \t")) words[nw++] = tok;
  if (nw == 0) words[nw++] = (char*)dflt;
  return nw;
}

/* True when the program can be found: a path that exists, or a name on $PATH. */
static bool program_exists(const char* prog) {
  if (strchr(prog, '/')) return access(prog, X_OK) == 0;
  const char* path = getenv("PATH");
  if (!path) return false;
  char buf[4096];
  for (const char* p = path; *p;) {
    size_t len = strcspn(p, ":");
    snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, p, prog);
    if (access(buf, X_OK) == 0) return true;
    p += len;
    if (*p == ':') p++;
  }
  return false;
}

/* True when DIR holds the CUDA runtime's shared library. */
static bool has_cudart(const char* dir) {
  char lib[4400];
  snprintf(lib, sizeof(lib), "%.4300s/libcudart.so", dir);
  return access(lib, R_OK) == 0;
}

/* Asks nvcc where it links from: `nvcc --dryrun` prints its -L directories on a LIBRARIES= line.
 * Writes the first one holding libcudart.so into buf; false when there is none. */
static bool cudart_from_nvcc_dryrun(char* buf, size_t n) {
  char* copy = NULL;
  char* words[MAX_WORDS + 8];
  int nw = compiler_words(NULL, RLX_EXTERN_CUDA, words, &copy);
  const char* extra[] = {"--dryrun", "-c", "-x", "cu", "/dev/null", "-o", "/dev/null"};
  for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) words[nw++] = (char*)extra[i];
  words[nw] = NULL;
  char* log = NULL;
  rlx_status_free(rlx_process_run(words, &log));
  free(copy);
  bool found = false;
  const char* line = log ? strstr(log, "LIBRARIES=") : NULL;
  if (line) {
    size_t end = strcspn(line, "\n");
    for (const char* p = strstr(line, "-L"); p && p < line + end && !found; p = strstr(p + 2, "-L")) {
      size_t len = strcspn(p + 2, "\" \n");
      char dir[4300];
      snprintf(dir, sizeof(dir), "%.*s", (int)(len < 4200 ? len : 4200), p + 2);
      if (has_cudart(dir)) {
        snprintf(buf, n, "%s", dir);
        found = true;
      }
    }
  }
  free(log);
  return found;
}

RLX_MUST_USE rlx_status_t* rlx_extern_cuda_lib_dir(char* buf, size_t n) {
  if (cudart_from_nvcc_dryrun(buf, n)) return NULL;
  /* else nvcc's own directory (bin/) gives the toolkit: lib64, lib or targets/<arch>/lib beside it */
  const char* v = getenv("NVCC");
  char prog[4096];
  snprintf(prog, sizeof(prog), "%s", v && *v ? v : "nvcc");
  prog[strcspn(prog, " \t")] = 0;
  char found[4200] = "";
  if (strchr(prog, '/')) {
    snprintf(found, sizeof(found), "%s", prog);
  } else {
    const char* path = getenv("PATH");
    for (const char* p = path ? path : ""; *p && !found[0];) {
      size_t len = strcspn(p, ":");
      char cand[4200];
      snprintf(cand, sizeof(cand), "%.*s/%s", (int)(len < 4000 ? len : 4000), p, prog);
      if (access(cand, X_OK) == 0) snprintf(found, sizeof(found), "%s", cand);
      p += len;
      if (*p == ':') p++;
    }
  }
  char* slash = strrchr(found, '/');
  if (slash) *slash = 0; /* .../bin */
  const char* home = getenv("CUDA_HOME");
  char cands[6][4300];
  int nc = 0;
  if (found[0]) {
    snprintf(cands[nc++], sizeof(cands[0]), "%s/../lib64", found);
    snprintf(cands[nc++], sizeof(cands[0]), "%s/../lib", found);
    snprintf(cands[nc++], sizeof(cands[0]), "%s/../targets/x86_64-linux/lib", found);
  }
  if (home && *home) {
    snprintf(cands[nc++], sizeof(cands[0]), "%s/lib64", home);
    snprintf(cands[nc++], sizeof(cands[0]), "%s/lib", home);
  }
  snprintf(cands[nc++], sizeof(cands[0]), "/usr/lib/x86_64-linux-gnu");
  for (int i = 0; i < nc; i++) {
    if (has_cudart(cands[i])) {
      snprintf(buf, n, "%s", cands[i]);
      return NULL;
    }
  }
  return rlx_status_create(RLX_NOT_FOUND,
                           "a CUDA extern needs the CUDA runtime library libcudart.so, which is not among the "
                           "directories `%s --dryrun` links from, nor beside it (%s/../{lib64,lib,"
                           "targets/x86_64-linux/lib}), in $CUDA_HOME "
                           "(%s) or in /usr/lib/x86_64-linux-gnu; install the CUDA runtime or set $CUDA_HOME",
                           prog, found[0] ? found : "(nvcc not found)", home && *home ? home : "unset");
}

/* Compiles a source extern into the cache; *out_obj is a heap path. */
static RLX_MUST_USE rlx_status_t* compile_source(rlx_ctx_t* ctx, const char* path, rlx_extern_kind_t kind, char** out_obj) {
  char* text = NULL;
  size_t len = 0;
  RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_file_read(path, &text, &len), "--extern '%s'", path));
  char* copy = NULL;
  char* words[MAX_WORDS];
  int nw = compiler_words(ctx, kind, words, &copy);
  if (kind == RLX_EXTERN_CUDA && !program_exists(words[0])) {
    rlx_status_t* st = rlx_status_create(RLX_NOT_FOUND,
                                         "--extern '%s': a CUDA source needs nvcc, and '%s' was not found (set $NVCC "
                                         "or install the CUDA toolkit)",
                                         path, words[0]);
    free(copy);
    free(text);
    return st;
  }
  const char* inc = rlx_extern_include_dir();
  char inc_flag[4200];
  snprintf(inc_flag, sizeof(inc_flag), "-I%s", inc);
  const char* flags[24];
  int nf = 0;
  flags[nf++] = "-c";
  flags[nf++] = "-O3";
  /* the target's instruction set (C and C++; nvcc's host side keeps its own) */
  char tflags[512];
  rlx_target_cc_flags(rlx_ctx_target_of(ctx), tflags, sizeof(tflags));
  char* tsave = NULL;
  for (char* w = strtok_r(tflags, " ", &tsave); w && kind != RLX_EXTERN_CUDA && nf < 16; w = strtok_r(NULL, " ", &tsave))
    flags[nf++] = w;
  if (kind == RLX_EXTERN_CUDA) {
    flags[nf++] = "-Xcompiler";
    flags[nf++] = "-fPIC";
  } else {
    flags[nf++] = "-fPIC";
  }
  if (kind == RLX_EXTERN_CXX) flags[nf++] = "-std=c++17";
  flags[nf++] = inc_flag;

  uint64_t h = rlx_hash_bytes(text, len, 0x657874);
  free(text);
  h = rlx_hash_combine(h, rlx_hash_bytes(path, strlen(path), 3));
  for (int i = 0; i < nw; i++) h = rlx_hash_combine(h, rlx_hash_bytes(words[i], strlen(words[i]), 1));
  for (int i = 0; i < nf; i++) h = rlx_hash_combine(h, rlx_hash_bytes(flags[i], strlen(flags[i]), 2));
  for (size_t i = 0; i < sizeof(rlx_headers) / sizeof(rlx_headers[0]); i++) {
    char hp[4300];
    snprintf(hp, sizeof(hp), "%s/%s", inc, rlx_headers[i]);
    char* ht = NULL;
    size_t hl = 0;
    rlx_status_t* hs = rlx_file_read(hp, &ht, &hl);
    if (hs) rlx_status_free(hs);
    else h = rlx_hash_combine(h, rlx_hash_bytes(ht, hl, 4));
    free(ht);
  }
  h = rlx_hash_combine(h, rlx_hash_bytes(rlx_target_str(rlx_ctx_target_of(ctx)), strlen(rlx_target_str(rlx_ctx_target_of(ctx))), 5));
  char* dir = rlx_cc_cache_dir(ctx);
  rlx_status_t* st = rlx_status_annotate(rlx_mkdirs(dir), "compile cache");
  size_t plen = strlen(dir) + 96;
  char* obj = malloc(plen);
  char* tmp = malloc(plen);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  snprintf(obj, plen, "%s/%016llx.ext.o", dir, (unsigned long long)h);
  snprintf(tmp, plen, "%s/%016llx.%d.%lx.ext.tmp.o", dir, (unsigned long long)h, (int)getpid(), (long)ts.tv_nsec);
  free(dir);
  if (!st && access(obj, R_OK) != 0) {
    char* argv[MAX_WORDS + 16];
    int na = 0;
    for (int i = 0; i < nw; i++) argv[na++] = words[i];
    for (int i = 0; i < nf; i++) argv[na++] = (char*)flags[i];
    argv[na++] = (char*)path;
    argv[na++] = "-o";
    argv[na++] = tmp;
    argv[na] = NULL;
    st = rlx_process_run(argv, NULL);
    if (st) st = rlx_status_annotate(st, "--extern '%s' does not compile", path);
    if (!st && rename(tmp, obj) != 0) st = rlx_status_create(RLX_IO_ERROR, "cannot write '%s'", obj);
    unlink(tmp);
  }
  free(tmp);
  free(copy);
  if (st) {
    free(obj);
    return st;
  }
  *out_obj = obj;
  return NULL;
}

/* Global symbols an object or archive defines, from `nm -P -g`; *out_cxx when it needs the
 * C++ runtime (an undefined C++ ABI symbol: operator new, typeinfo, __cxa_*, ...). */
static RLX_MUST_USE rlx_status_t* list_symbols(const rlx_ctx_t* ctx, const char* given, const char* obj,
                                               rlx_extern_file_t* f, bool* out_cxx) {
  /* objects of another architecture: that binutils' nm (aarch64-linux-gnu-nm) */
  const char* cross = rlx_target_default_cc(rlx_ctx_target_of(ctx));
  char nm[96] = "nm";
  if (cross) snprintf(nm, sizeof(nm), "%.*snm", (int)(strlen(cross) - 3), cross);
  char* argv[] = {nm, "-P", "-g", (char*)obj, NULL};
  char* log = NULL;
  rlx_status_t* st = rlx_process_run(argv, &log);
  if (st) {
    free(log);
    return rlx_status_annotate(st, "--extern '%s': not an object file or archive", given);
  }
  RLX_VEC(char*) syms = {0};
  for (char* line = strtok(log ? log : "", "\n"); line; line = strtok(NULL, "\n")) {
    size_t n = strlen(line);
    if (n == 0 || line[n - 1] == ':') continue; /* "lib.a[x.o]:" member headers */
    char name[1024], type[8];
    if (sscanf(line, "%1023s %7s", name, type) != 2 || type[1] != 0) continue;
    if (type[0] == 'U' && (strncmp(name, "_Z", 2) == 0 || strncmp(name, "__cxa_", 6) == 0 ||
                           strncmp(name, "__gxx_", 6) == 0))
      *out_cxx = true;
    /* strong definitions only: weak ones (C++ inline functions, templates) may repeat */
    if (type[0] == 'U' || type[0] == 'W' || type[0] == 'V' || type[0] == 'w' || type[0] == 'v' || type[0] == 'u')
      continue;
    rlx_vec_push(&syms, strdup(name));
  }
  free(log);
  f->symbols = syms.data;
  f->n_symbols = syms.len;
  return NULL;
}

static void file_free(rlx_extern_file_t* f) {
  for (int k = 0; k < f->n_symbols; k++) free(f->symbols[k]);
  free(f->symbols);
  free(f->path);
  free(f->object);
}

RLX_MUST_USE rlx_status_t* rlx_extern_set_add(rlx_ctx_t* ctx, rlx_extern_set_t* s, const char* path) {
  rlx_extern_kind_t kind;
  RLX_RETURN_IF_ERROR(rlx_extern_kind_of(path, &kind));
  struct stat sb;
  if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
    return rlx_status_create(RLX_NOT_FOUND, "--extern '%s': no such file", path);
  rlx_extern_file_t f = {0};
  f.path = strdup(path);
  f.kind = kind;
  rlx_status_t* st = NULL;
  if (kind == RLX_EXTERN_OBJECT || kind == RLX_EXTERN_ARCHIVE) f.object = strdup(path);
  else st = compile_source(ctx, path, kind, &f.object);
  bool cxx = kind == RLX_EXTERN_CXX;
  if (!st) st = list_symbols(ctx, path, f.object, &f, &cxx);
  for (int i = 0; !st && i < f.n_symbols; i++) {
    const rlx_extern_file_t* other = rlx_extern_set_find(s, f.symbols[i]);
    if (other)
      st = rlx_status_create(RLX_INVALID_ARGUMENT, "duplicate symbol '%s': defined by --extern '%s' and by --extern '%s'",
                             f.symbols[i], other->path, path);
  }
  if (!st) {
    rlx_extern_file_t* files = realloc(s->files, sizeof(*files) * (size_t)(s->n + 1));
    if (!files) st = rlx_status_create(RLX_OUT_OF_MEMORY, "--extern '%s'", path);
    else s->files = files;
  }
  if (st) {
    file_free(&f);
    return st;
  }
  s->files[s->n++] = f;
  if (cxx) s->has_cxx = true;
  if (kind == RLX_EXTERN_CUDA) s->has_cuda = true;
  return NULL;
}

const rlx_extern_file_t* rlx_extern_set_find(const rlx_extern_set_t* s, const char* symbol) {
  for (int i = 0; s && i < s->n; i++)
    for (int k = 0; k < s->files[i].n_symbols; k++)
      if (strcmp(s->files[i].symbols[k], symbol) == 0) return &s->files[i];
  return NULL;
}

void rlx_extern_set_free(rlx_extern_set_t* s) {
  for (int i = 0; i < s->n; i++) file_free(&s->files[i]);
  free(s->files);
  s->files = NULL;
  s->n = 0;
}

/* ------------------------------------------------------------------ resolution */
typedef struct {
  rlx_ctx_t* ctx;
  const char* caller;
  RLX_VEC(const char*) names;
  RLX_VEC(const char*) callers;
} calls_t;

static void visit_call(const rlx_relax_expr_t* e, void* user) {
  calls_t* c = user;
  if (e->kind != RLX_RELAX_CALL) return;
  const rlx_relax_call_t* call = (const rlx_relax_call_t*)e;
  const char* name = NULL;
  if (call->op->kind == RLX_RELAX_EXTERN_FUNC) {
    name = ((const rlx_relax_extern_func_t*)call->op)->global_symbol;
  } else if (call->op->kind == RLX_RELAX_OP && call->n_args >= 1 && call->args[0]->kind == RLX_RELAX_EXTERN_FUNC) {
    /* R.call_dps_packed / R.call_pure_packed before lowering: the callee is argument 0 */
    name = ((const rlx_relax_extern_func_t*)call->args[0])->global_symbol;
  }
  if (!name) return;
  for (int i = 0; i < c->names.len; i++)
    if (strcmp(c->names.data[i], name) == 0) return;
  rlx_vec_push(&c->names, name);
  rlx_vec_push(&c->callers, c->caller);
}

int rlx_extern_calls(rlx_ctx_t* ctx, const rlx_module_t* m, const char*** out_names, const char*** out_callers) {
  calls_t c = {ctx, NULL, {0}, {0}};
  for (int i = 0; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != RLX_FUNC_RELAX) continue;
    const rlx_relax_func_t* f = m->funcs[i].func;
    c.caller = m->funcs[i].name;
    rlx_relax_expr_visit(f->body, visit_call, &c);
  }
  int n = c.names.len;
  *out_names = RLX_NEW_ARRAY(ctx, const char*, n);
  *out_callers = RLX_NEW_ARRAY(ctx, const char*, n);
  for (int i = 0; i < n; i++) {
    (*out_names)[i] = c.names.data[i];
    (*out_callers)[i] = c.callers.data[i];
  }
  rlx_vec_free(&c.names);
  rlx_vec_free(&c.callers);
  return n;
}

static bool is_builtin(const char* name) {
  for (size_t i = 0; i < sizeof(builtin_names) / sizeof(builtin_names[0]); i++)
    if (strcmp(builtin_names[i], name) == 0) return true;
  return false;
}

/* Where we looked, for the error message. */
static void searched(rlx_strbuf_t* sb, const rlx_extern_set_t* externs, const rlx_extern_lookup_t* lk) {
  rlx_strbuf_append(sb, "searched: the model's externs (");
  if (!externs || externs->n == 0) rlx_strbuf_append(sb, "none given with --extern");
  for (int i = 0; externs && i < externs->n; i++) rlx_strbuf_printf(sb, "%s'%s'", i ? ", " : "", externs->files[i].path);
  rlx_strbuf_append(sb, "), the --lib libraries (");
  if (!lk || lk->n_libs == 0) rlx_strbuf_append(sb, "none given");
  for (int i = 0; lk && i < lk->n_libs; i++) rlx_strbuf_printf(sb, "%s'%s'", i ? ", " : "", lk->libs[i]);
  rlx_strbuf_append(sb, "), the VM builtins, the global registry; link it with --extern FILE, load it with "
                        "--lib LIB.so, or promise it with --defer-extern NAME");
}

RLX_MUST_USE rlx_status_t* rlx_extern_resolve(rlx_ctx_t* ctx, const rlx_module_t* m, const rlx_extern_set_t* externs,
                                              const rlx_extern_lookup_t* lookup, const char*** out_missing, int* out_n_missing) {
  const char** names;
  const char** callers;
  int n = rlx_extern_calls(ctx, m, &names, &callers);
  int n_libs = lookup ? lookup->n_libs : 0;
  rlx_library_t** libs = RLX_NEW_ARRAY(ctx, rlx_library_t*, n_libs);
  rlx_status_t* st = NULL;
  for (int i = 0; i < n_libs && !st; i++)
    st = rlx_status_annotate(rlx_library_load(lookup->libs[i], &libs[i]), "--lib");
  const char** missing = RLX_NEW_ARRAY(ctx, const char*, n);
  const char** missing_callers = RLX_NEW_ARRAY(ctx, const char*, n);
  int n_missing = 0;
  for (int i = 0; i < n && !st; i++) {
    const char* name = names[i];
    if (rlx_extern_set_find(externs, name)) continue;
    bool found = false;
    for (int k = 0; k < n_libs && !found; k++) found = rlx_library_has_symbol(libs[k], name);
    if (found || is_builtin(name)) continue;
    rlx_status_t* rs = rlx_registry_get(name, NULL, NULL);
    if (!rs) continue;
    rlx_status_free(rs);
    for (int k = 0; lookup && k < lookup->n_defer && !found; k++) found = strcmp(lookup->defer[k], name) == 0;
    if (found) continue;
    missing_callers[n_missing] = callers[i];
    missing[n_missing++] = name;
  }
  for (int i = 0; i < n_libs; i++)
    if (libs[i]) rlx_library_free(libs[i]);
  if (st) return st;
  if (out_missing) {
    *out_missing = missing;
    *out_n_missing = n_missing;
    return NULL;
  }
  if (n_missing == 0) return NULL;
  rlx_strbuf_t sb = {0};
  for (int i = 0; i < n_missing; i++)
    rlx_strbuf_printf(&sb, "%sextern function '%s' called by '%s' was not found", i ? "; " : "", missing[i],
                      missing_callers[i]);
  rlx_strbuf_append(&sb, "; ");
  searched(&sb, externs, lookup);
  st = rlx_status_create(RLX_NOT_FOUND, "%s", rlx_strbuf_cstr(&sb));
  rlx_strbuf_free(&sb);
  return st;
}
