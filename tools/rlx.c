/* rlx — command-line tool.
 *
 *   rlx print FILE [--after PASS|all]   parse and print (after a lowering pass)
 *   rlx run FILE [-e FUNC] [-i IN.npy]... [-o OUTDIR] [--threads N]
 *   rlx bench FILE [-e FUNC] [-i IN.npy]... [--repeat N] [--threads N]
 *
 * This is the only place that turns a status into a message and an exit code:
 * every error prints one line "rlx: error: ..." and exits with status 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codegen/codegen.h"
#include "ir/ir.h"
#include "rlx/runtime.h"
#include "script/script.h"
#include "tir/tir.h"
#include "tir/transform.h"

enum { MAX_INPUTS = 64 };

typedef struct {
  const char* command;
  const char* file;
  const char* entry;
  const char* inputs[MAX_INPUTS];
  int n_inputs;
  const char* outdir;
  const char* after;
  int repeat;
  int threads;
} options_t;

static const char usage[] =
    "usage: rlx <command> [options]\n"
    "  rlx print FILE [--after PASS|all]      parse a TVMScript file and print it, or print it\n"
    "                                         after a lowering pass (default_schedule,\n"
    "                                         lower_blocks, flatten_buffers, unroll_loops,\n"
    "                                         vectorize_loops, simplify, all)\n"
    "  rlx run FILE [-e FUNC] [-i IN.npy]... [-o OUTDIR] [--threads N]\n"
    "                                         compile and run one function; outputs are\n"
    "                                         written as OUTDIR/output_0.npy, ...\n"
    "  rlx bench FILE [-e FUNC] [-i IN.npy]... [--repeat N] [--threads N]\n"
    "                                         time a function (random inputs when none given)\n";

static rlx_status_t* parse_int_arg(const char* flag, const char* s, int min, int* out) {
  char* end;
  long v = strtol(s, &end, 10);
  if (*s == 0 || *end || v < min || v > 1000000)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s expects an integer >= %d, got '%s'", flag, min, s);
  *out = (int)v;
  return NULL;
}

static rlx_status_t* parse_options(int argc, char** argv, options_t* o) {
  memset(o, 0, sizeof(*o));
  o->repeat = 10;
  if (argc < 2) return rlx_status_create(RLX_INVALID_ARGUMENT, "no command given\n%s", usage);
  o->command = argv[1];
  for (int i = 2; i < argc; i++) {
    const char* a = argv[i];
    bool has_value = i + 1 < argc;
    if (strcmp(a, "-e") == 0 || strcmp(a, "--entry") == 0) {
      if (!has_value) return rlx_status_create(RLX_INVALID_ARGUMENT, "%s needs a function name", a);
      o->entry = argv[++i];
    } else if (strcmp(a, "-i") == 0 || strcmp(a, "--input") == 0) {
      if (!has_value) return rlx_status_create(RLX_INVALID_ARGUMENT, "%s needs a file", a);
      if (o->n_inputs == MAX_INPUTS) return rlx_status_create(RLX_INVALID_ARGUMENT, "too many inputs");
      o->inputs[o->n_inputs++] = argv[++i];
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
      if (!has_value) return rlx_status_create(RLX_INVALID_ARGUMENT, "%s needs a directory", a);
      o->outdir = argv[++i];
    } else if (strcmp(a, "--after") == 0) {
      if (!has_value) return rlx_status_create(RLX_INVALID_ARGUMENT, "--after needs a pass name or 'all'");
      o->after = argv[++i];
    } else if (strcmp(a, "--repeat") == 0) {
      if (!has_value) return rlx_status_create(RLX_INVALID_ARGUMENT, "--repeat needs a number");
      RLX_RETURN_IF_ERROR(parse_int_arg(a, argv[++i], 1, &o->repeat));
    } else if (strcmp(a, "--threads") == 0) {
      if (!has_value) return rlx_status_create(RLX_INVALID_ARGUMENT, "--threads needs a number");
      RLX_RETURN_IF_ERROR(parse_int_arg(a, argv[++i], 1, &o->threads));
    } else if (a[0] == '-' && a[1] != 0) {
      return rlx_status_create(RLX_INVALID_ARGUMENT, "unknown option '%s'\n%s", a, usage);
    } else if (!o->file) {
      o->file = a;
    } else {
      return rlx_status_create(RLX_INVALID_ARGUMENT, "unexpected argument '%s'", a);
    }
  }
  if (!o->file) return rlx_status_create(RLX_INVALID_ARGUMENT, "'%s' needs a FILE\n%s", o->command, usage);
  return NULL;
}

static rlx_status_t* load_module(rlx_ctx_t* ctx, const char* path, rlx_module_t** out) {
  char* text = NULL;
  RLX_RETURN_IF_ERROR(rlx_file_read(path, &text, NULL));
  rlx_status_t* st = rlx_script_parse(ctx, text, path, out);
  free(text);
  return st;
}

static rlx_status_t* cmd_print(const options_t* o) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  rlx_status_t* st = load_module(ctx, o->file, &m);
  if (!st && o->after) st = rlx_tir_lower_module_until(ctx, m, true, o->after, &m);
  if (!st) {
    char* text = rlx_script_print_module(m);
    fputs(text, stdout);
    free(text);
  }
  rlx_ctx_free(ctx);
  return st;
}

/* The entry function: -e NAME, else "main", else the only function. */
static rlx_status_t* find_entry(rlx_module_t* m, const char* name, rlx_tir_func_t** out) {
  rlx_module_entry_t* e = NULL;
  if (name) {
    e = rlx_module_find(m, name);
    if (!e) return rlx_status_create(RLX_NOT_FOUND, "no function '%s' in the module", name);
  } else {
    e = rlx_module_find(m, "main");
    if (!e && m->n_funcs == 1) e = &m->funcs[0];
    if (!e) return rlx_status_create(RLX_NOT_FOUND, "the module has no 'main' function: choose one with -e");
  }
  if (e->kind != RLX_FUNC_TIR)
    return rlx_status_create(RLX_UNSUPPORTED, "function '%s' is not a PrimFunc", e->name);
  *out = e->func;
  return NULL;
}

static DLDataType to_dl(rlx_dtype_t t) {
  DLDataType d = {t.code, t.bits, t.lanes};
  return d;
}

/* Binds the shape variables of buffer b from tensor t; checks ndim, dtype, constant dims. */
static rlx_status_t* bind_input(const rlx_tir_func_t* f, int index, const rlx_tir_buffer_t* b, const DLTensor* t,
                                rlx_int_env_t* env) {
  char want[32], got[32];
  if (!rlx_dldtype_equal(to_dl(b->dtype), t->dtype))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: input %d (%s): expected dtype %s, got %s", f->name, index,
                             b->name, rlx_dtype_str(b->dtype, want), rlx_dldtype_str(t->dtype, got));
  if (b->ndim != t->ndim)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: input %d (%s): expected ndim %d, got %d", f->name, index,
                             b->name, b->ndim, t->ndim);
  for (int d = 0; d < b->ndim; d++) {
    int64_t v;
    if (b->shape[d]->kind == RLX_EXPR_VAR && !rlx_int_env_get(env, RLX_AS(rlx_var_t, b->shape[d]), &v)) {
      rlx_int_env_set(env, RLX_AS(rlx_var_t, b->shape[d]), t->shape[d]);
      continue;
    }
    rlx_status_t* st = rlx_ir_eval_int(b->shape[d], env, &v);
    if (st) { /* a compound expression of unknown vars: left to the kernel's own check */
      rlx_status_free(st);
      continue;
    }
    if (v != t->shape[d]) {
      char s[128];
      return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: input %d (%s): dimension %d is %lld, expected %lld (shape %s)",
                               f->name, index, b->name, d, (long long)t->shape[d], (long long)v,
                               rlx_shape_str(t->ndim, t->shape, s, sizeof(s)));
    }
  }
  return NULL;
}

/* Allocates a tensor for buffer b with its shape evaluated under env. */
static rlx_status_t* alloc_for(const rlx_tir_func_t* f, const rlx_tir_buffer_t* b, const rlx_int_env_t* env,
                               rlx_ndarray_t** out) {
  int64_t shape[16];
  if (b->ndim > 16) return rlx_status_create(RLX_UNSUPPORTED, "%s: buffer %s has more than 16 dims", f->name, b->name);
  for (int d = 0; d < b->ndim; d++) {
    rlx_status_t* st = rlx_ir_eval_int(b->shape[d], env, &shape[d]);
    if (st) return rlx_status_annotate(st, "%s: cannot size parameter %s", f->name, b->name);
    if (shape[d] < 0)
      return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: parameter %s has negative dimension %lld", f->name, b->name,
                               (long long)shape[d]);
  }
  return rlx_ndarray_create(b->ndim, shape, to_dl(b->dtype), NULL, out);
}

typedef struct {
  rlx_ctx_t* ctx;
  rlx_library_t* lib;
  rlx_tir_func_t* func;
  rlx_packed_fn_t fn;
  int n_args;
  rlx_ndarray_t* args[MAX_INPUTS];
  int n_given; /* args[0..n_given) came from -i */
} session_t;

static void session_free(session_t* s) {
  for (int i = 0; i < s->n_args; i++) rlx_ndarray_release(s->args[i]);
  if (s->lib) rlx_library_free(s->lib);
  rlx_ctx_free(s->ctx);
}

/* Parses, builds, loads inputs and allocates the remaining parameters. When random is
 * true, parameters without a given input are filled with random values. */
static rlx_status_t* session_prepare(const options_t* o, bool random, session_t* s) {
  memset(s, 0, sizeof(*s));
  s->ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  RLX_RETURN_IF_ERROR(load_module(s->ctx, o->file, &m));
  RLX_RETURN_IF_ERROR(find_entry(m, o->entry, &s->func));
  rlx_tir_func_t* f = s->func;
  if (f->n_params > MAX_INPUTS) return rlx_status_create(RLX_UNSUPPORTED, "%s: too many parameters", f->name);
  for (int i = 0; i < f->n_params; i++)
    if (!f->buffer_map[i])
      return rlx_status_create(RLX_UNSUPPORTED, "%s: scalar parameter '%s' cannot be given on the command line",
                               f->name, f->params[i]->name);
  if (o->n_inputs > f->n_params)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s takes %d parameters, got %d inputs", f->name, f->n_params,
                             o->n_inputs);
  rlx_int_env_t env = {0};
  rlx_status_t* st = NULL;
  for (int i = 0; i < o->n_inputs && !st; i++) {
    st = rlx_npy_load(o->inputs[i], &s->args[i]);
    if (st) break;
    s->n_args = s->n_given = i + 1;
    st = bind_input(f, i, f->buffer_map[i], &s->args[i]->dl, &env);
  }
  for (int i = o->n_inputs; i < f->n_params && !st; i++) {
    st = alloc_for(f, f->buffer_map[i], &env, &s->args[i]);
    if (st) break;
    s->n_args = i + 1;
    if (random) st = rlx_ndarray_fill_random(&s->args[i]->dl, 1234 + (uint64_t)i);
  }
  rlx_int_env_free(&env);
  RLX_RETURN_IF_ERROR(st);
  RLX_RETURN_IF_ERROR(rlx_build_module(s->ctx, m, NULL, &s->lib));
  RLX_RETURN_IF_ERROR(rlx_library_get_function(s->lib, rlx_codegen_symbol(s->ctx, f->name), &s->fn));
  if (o->threads) rlx_library_set_num_threads(s->lib, o->threads);
  return NULL;
}

static rlx_status_t* session_call(session_t* s) {
  DLTensor* ts[MAX_INPUTS];
  for (int i = 0; i < s->n_args; i++) ts[i] = &s->args[i]->dl;
  return rlx_packed_call_tensors(s->fn, NULL, ts, s->n_args);
}

static rlx_status_t* cmd_run(const options_t* o) {
  session_t s;
  rlx_status_t* st = session_prepare(o, false, &s);
  if (!st) st = session_call(&s);
  if (!st && o->outdir) st = rlx_mkdirs(o->outdir);
  for (int i = s.n_given, k = 0; !st && i < s.n_args; i++, k++) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/output_%d.npy", o->outdir ? o->outdir : ".", k);
    st = rlx_npy_save(path, &s.args[i]->dl);
  }
  session_free(&s);
  return st;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static rlx_status_t* cmd_bench(const options_t* o) {
  session_t s;
  rlx_status_t* st = session_prepare(o, true, &s);
  double* times = calloc((size_t)o->repeat, sizeof(double));
  if (!st && !times) st = rlx_status_create(RLX_OUT_OF_MEMORY, "bench");
  /* Warm up: at least two calls and at least ~100 ms, so caches and threads are settled. */
  double t0 = now_ms();
  for (int w = 0; !st && (w < 2 || now_ms() - t0 < 100) && w < 1000; w++) st = session_call(&s);
  for (int r = 0; !st && r < o->repeat; r++) {
    double a = now_ms();
    st = session_call(&s);
    times[r] = now_ms() - a;
  }
  if (!st) {
    qsort(times, (size_t)o->repeat, sizeof(double), cmp_double);
    double med = o->repeat % 2 ? times[o->repeat / 2] : 0.5 * (times[o->repeat / 2 - 1] + times[o->repeat / 2]);
    printf("median_ms=%.4f\n", med);
    printf("min_ms=%.4f repeat=%d threads=%d\n", times[0], o->repeat, o->threads);
  }
  free(times);
  session_free(&s);
  return st;
}

int main(int argc, char** argv) {
  if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0)) {
    fputs(usage, stdout);
    return 0;
  }
  options_t o;
  rlx_status_t* st = parse_options(argc, argv, &o);
  if (!st) {
    if (strcmp(o.command, "print") == 0) st = cmd_print(&o);
    else if (strcmp(o.command, "run") == 0) st = cmd_run(&o);
    else if (strcmp(o.command, "bench") == 0) st = cmd_bench(&o);
    else st = rlx_status_create(RLX_INVALID_ARGUMENT, "unknown command '%s'\n%s", o.command, usage);
  }
  if (st) {
    fprintf(stderr, "rlx: error: %s\n", rlx_status_message(st));
    rlx_status_free(st);
    return 1;
  }
  return 0;
}
