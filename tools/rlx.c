/* rlx — command-line tool.
 *
 *   rlx print FILE [--after PASS|all]        parse and print (after a pass); a compiled
 *                                            model (.so) prints as VM bytecode
 *   rlx compile FILE -o MODEL.so [--lib L.so]... [--stats]
 *   rlx run FILE|MODEL.so [-e FUNC] [-i IN.npy|IN.pb]... [-o OUTDIR] [--format npy|pb] [--lib L.so]...
 *           [--threads N] [--bind NAME=IN.pb]...
 *   rlx bench FILE|MODEL.so [-e FUNC] [-i IN.npy]... [--lib L.so]... [--repeat N] [--threads N]
 *
 * FILE is TVMScript text, or an ONNX model when it ends in .onnx (imported into a Relax module
 * with one function "main"). Inputs are .npy files or ONNX TensorProto files (.pb).
 *
 * This is the only place that turns a status into a message and an exit code: every
 * error prints one line "rlx: error: ..." and exits with status 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "codegen/codegen.h"
#include "codegen/externs.h"
#include "codegen/vm_build.h"
#include "frontend/onnx/onnx_import.h"
#include "ir/ir.h"
#include "relax/relax.h"
#include "rlx/runtime.h"
#include "rlx/vm.h"
#include "script/script.h"
#include "tir/tir.h"
#include "tir/transform.h"
#include "transform/memory.h"
#include "transform/pass.h"

#include "tool.h"


/* One help text per command: `rlx COMMAND --help` prints it, `rlx --help` prints them all. */
static const struct {
  const char* name;
  const char* help;
} commands[] = {
    {"print",
     "  rlx print FILE [--after PASS|all] [--show-meta] [--extern X]...\n"
     "                                         print a TVMScript file or an imported ONNX model,\n"
     "                                         or print it after a pass; --show-meta: with the\n"
     "                                         metadata section (the data of large constants)\n"
     "                                         (Relax modules: the Relax pipeline; PrimFunc-only\n"
     "                                         files: the TIR lowering passes); a compiled model\n"
     "                                         (.so) prints as VM bytecode\n"},
    {"compile",
     "  rlx compile FILE -o MODEL.so [--extern X]... [--lib L.so]... [--defer-extern NAME]... [--stats]\n"
     "                                         compile a Relax module into one shared object\n"
     "                                         (kernels + bytecode + constants + externs); --stats\n"
     "                                         prints the memory planned vs unplanned and every\n"
     "                                         block the default schedule left unscheduled, and why\n"
     "                                         (RLX_SCHED_DEBUG=1 prints those on stderr whenever a\n"
     "                                         model is compiled)\n"
     "      --extern X          link X into the model: an object .o, an archive .a, or a source\n"
     "                          .c ($CC), .cc/.cpp/.cxx ($CXX), .cu ($NVCC), compiled with\n"
     "                          `rlx config --cflags` (TVM-compatible headers included)\n"
     "      --lib L.so          a library the model will be loaded with\n"
     "      --defer-extern NAME a name the loading program provides (not checked now)\n"
     "                          every other name called with R.call_packed/R.call_dps_packed must\n"
     "                          be found: --extern, --lib, VM builtins, registry\n"},
    {"run",
     "  rlx run FILE|MODEL.so [-e FUNC] [-i IN.npy|IN.pb]... [-o OUTDIR] [--format npy|pb]\n"
     "          [--bind NAME=IN.pb]... [--extern X]... [--lib L.so]... [--defer-extern NAME]... [--threads N]\n"
     "                                         run a function (default main); outputs are\n"
     "                                         written as OUTDIR/output_0.npy, ... (.pb TensorProtos\n"
     "                                         when FILE is .onnx or an input is .pb; --format\n"
     "                                         chooses); --bind makes an ONNX graph input a\n"
     "                                         constant (print/compile/run/bench)\n"},
    {"bench",
     "  rlx bench FILE|MODEL.so [-e FUNC] [-i IN.npy]... [--extern X]... [--lib L.so]... [--repeat N] [--threads N]\n"
     "          [--profile] [--profile-plot FILE.png|svg]\n"
     "                                         time a function (random inputs when none given);\n"
     "                                         --profile then runs it --repeat times more with every\n"
     "                                         kernel call timed and prints a table (kernel, calls,\n"
     "                                         total ms, ms/run, %% of run, GFLOPS where the FLOPs are\n"
     "                                         known) sorted by time; --profile-plot also draws it as a\n"
     "                                         bar chart (python3 + matplotlib)\n"},
    {"export-mlf",
     "  rlx export-mlf FILE -o OUT.tar [--style full-model|operator] [--name NAME] [--extern X]...\n"
     "                                         export TVM's Model Library Format (version 7): plain C\n"
     "                                         sources (kernels, AOT entry point with a static memory\n"
     "                                         plan, constants), codegen/host/include/tvmgen_NAME.h,\n"
     "                                         metadata.json, src/relax.txt, src/tir-cpu.txt,\n"
     "                                         parameters/NAME.params; NAME defaults to 'default'\n"},
    {"config",
     "  rlx config --cflags|--libs|--version  compiler flags for extern sources (-I for rlx/*.h and\n"
     "                                         tvm/runtime/*.h), link flags for librlx_runtime\n"},
};

static void print_usage(FILE* f) {
  fputs("usage: rlx <command> [options]        (rlx --version; rlx COMMAND --help)\n"
        "  FILE is a TVMScript file (.py) or an ONNX model (.onnx); inputs are .npy or ONNX .pb files\n",
        f);
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) fputs(commands[i].help, f);
}

/* The help of one command, or NULL. */
static const char* command_help(const char* name) {
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
    if (strcmp(commands[i].name, name) == 0) return commands[i].help;
  return NULL;
}

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
  if (argc < 2) return rlx_status_create(RLX_INVALID_ARGUMENT, "no command given (rlx --help lists the commands)");
  o->command = argv[1];
  for (int i = 2; i < argc; i++) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    bool takes = true;
    if (strcmp(a, "-e") == 0 || strcmp(a, "--entry") == 0) {
      if (v) o->entry = v;
    } else if (strcmp(a, "-i") == 0 || strcmp(a, "--input") == 0) {
      if (v && o->n_inputs == MAX_INPUTS) return rlx_status_create(RLX_INVALID_ARGUMENT, "too many inputs");
      if (v) o->inputs[o->n_inputs++] = v;
    } else if (strcmp(a, "--lib") == 0) {
      if (v && o->n_libs == MAX_LIBS) return rlx_status_create(RLX_INVALID_ARGUMENT, "too many --lib");
      if (v) o->libs[o->n_libs++] = v;
    } else if (strcmp(a, "--extern") == 0) {
      if (v && o->n_externs == MAX_EXTERNS) return rlx_status_create(RLX_INVALID_ARGUMENT, "too many --extern");
      if (v) o->externs[o->n_externs++] = v;
    } else if (strcmp(a, "--style") == 0) {
      if (v && strcmp(v, "full-model") != 0 && strcmp(v, "operator") != 0)
        return rlx_status_create(RLX_INVALID_ARGUMENT, "--style expects full-model or operator, got '%s'", v);
      if (v) o->style = v;
    } else if (strcmp(a, "--name") == 0) {
      if (v) o->name = v;
    } else if (strcmp(a, "--defer-extern") == 0) {
      if (v && o->n_defer == MAX_EXTERNS) return rlx_status_create(RLX_INVALID_ARGUMENT, "too many --defer-extern");
      if (v) o->defer[o->n_defer++] = v;
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
      if (v) o->output = v;
    } else if (strcmp(a, "--profile-plot") == 0) {
      if (v) o->profile_plot = v;
    } else if (strcmp(a, "--after") == 0) {
      if (v) o->after = v;
    } else if (strcmp(a, "--bind") == 0) {
      if (v && o->n_binds == MAX_INPUTS) return rlx_status_create(RLX_INVALID_ARGUMENT, "too many --bind");
      if (v && (!strchr(v, '=') || v[0] == '='))
        return rlx_status_create(RLX_INVALID_ARGUMENT, "--bind expects NAME=FILE (.pb or .npy), got '%s'", v);
      if (v) o->binds[o->n_binds++] = v;
    } else if (strcmp(a, "--format") == 0) {
      if (v && strcmp(v, "npy") != 0 && strcmp(v, "pb") != 0)
        return rlx_status_create(RLX_INVALID_ARGUMENT, "--format expects npy or pb, got '%s'", v);
      if (v) o->format = v;
    } else if (strcmp(a, "--repeat") == 0) {
      if (v) RLX_RETURN_IF_ERROR(parse_int_arg(a, v, 1, &o->repeat));
    } else if (strcmp(a, "--threads") == 0) {
      if (v) RLX_RETURN_IF_ERROR(parse_int_arg(a, v, 1, &o->threads));
    } else {
      takes = false;
      if (strcmp(a, "--stats") == 0) o->stats = true;
      else if (strcmp(a, "--profile") == 0) o->profile = true;
      else if (strcmp(a, "--show-meta") == 0) o->show_meta = true;
      else if (a[0] == '-' && a[1] != 0)
        return rlx_status_create(RLX_INVALID_ARGUMENT, "unknown option '%s'\n%s", a,
                                 command_help(o->command) ? command_help(o->command) : "");
      else if (!o->file) o->file = a;
      else return rlx_status_create(RLX_INVALID_ARGUMENT, "unexpected argument '%s'", a);
    }
    if (takes) {
      if (!v) return rlx_status_create(RLX_INVALID_ARGUMENT, "%s needs a value", a);
      i++;
    }
  }
  if (!o->file)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "'%s' needs a FILE\n%s", o->command,
                             command_help(o->command) ? command_help(o->command) : "");
  return NULL;
}

static bool ends_with(const char* s, const char* suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n > k && strcmp(s + n - k, suffix) == 0;
}

bool tool_is_model(const char* path) { return ends_with(path, ".so"); }
static bool is_model(const char* path) { return tool_is_model(path); }

static rlx_status_t* load_tensor(const char* path, rlx_ndarray_t** out) {
  return ends_with(path, ".pb") ? rlx_onnx_tensor_load(path, out) : rlx_npy_load(path, out);
}

/* An ONNX model, with the --bind inputs made constants. */
static rlx_status_t* load_onnx(rlx_ctx_t* ctx, const options_t* o, rlx_module_t** out) {
  const char* names[MAX_INPUTS];
  const DLTensor* values[MAX_INPUTS];
  rlx_ndarray_t* arrs[MAX_INPUTS];
  int n = 0;
  rlx_status_t* st = NULL;
  for (; n < o->n_binds && !st; n++) {
    const char* eq = strchr(o->binds[n], '=');
    names[n] = rlx_ctx_sprintf(ctx, "%.*s", (int)(eq - o->binds[n]), o->binds[n]);
    st = load_tensor(eq + 1, &arrs[n]);
    if (st) break;
    values[n] = &arrs[n]->dl;
  }
  if (!st) {
    rlx_onnx_import_options_t io = {n,
                                    names,
                                    values,
                                    o->out_output_names,
                                    o->out_n_outputs,
                                    o->out_param_types,
                                    o->out_n_params,
                                    o->out_output_types};
    st = rlx_onnx_import_file_ex(ctx, o->file, &io, out);
  }
  for (int i = 0; i < n; i++) rlx_ndarray_release(arrs[i]);
  return st;
}

rlx_status_t* tool_load_module(rlx_ctx_t* ctx, const options_t* o, rlx_module_t** out) {
  const char* path = o->file;
  if (ends_with(path, ".onnx")) return load_onnx(ctx, o, out);
  if (o->n_binds) return rlx_status_create(RLX_INVALID_ARGUMENT, "--bind applies to ONNX models (.onnx)");
  char* text = NULL;
  RLX_RETURN_IF_ERROR(rlx_file_read(path, &text, NULL));
  rlx_status_t* st = rlx_script_parse(ctx, text, path, out);
  free(text);
  return st;
}

static bool has_relax(const rlx_module_t* m) {
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].kind == RLX_FUNC_RELAX) return true;
  return false;
}

static rlx_status_t* cmd_print(const options_t* o) {
  for (int i = 0; i < o->n_externs; i++) { /* checked; linked only by compile / run / bench */
    rlx_extern_kind_t kind;
    RLX_RETURN_IF_ERROR(rlx_extern_kind_of(o->externs[i], &kind));
  }
  if (is_model(o->file)) {
    if (o->after) return rlx_status_create(RLX_INVALID_ARGUMENT, "--after applies to source files, not to a compiled model");
    char* text = NULL;
    RLX_RETURN_IF_ERROR(rlx_vm_disassemble_model(o->file, &text));
    fputs(text, stdout);
    free(text);
    return NULL;
  }
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  rlx_status_t* st = tool_load_module(ctx, o, &m);
  if (!st && o->after && has_relax(m)) {
    rlx_pipeline_options_t po = {true, o->after};
    st = rlx_pipeline_run(ctx, m, &po, &m);
  } else if (!st && o->after) {
    st = rlx_tir_lower_module_until(ctx, m, true, o->after, &m);
  }
  if (!st) {
    char* text = rlx_script_print_module_ex(m, o->show_meta);
    fputs(text, stdout);
    free(text);
  }
  rlx_ctx_free(ctx);
  return st;
}

/* The entry function: -e NAME, else "main", else the only function. */
static rlx_status_t* find_entry(rlx_module_t* m, const char* name, rlx_module_entry_t** out) {
  rlx_module_entry_t* e = NULL;
  if (name) {
    e = rlx_module_find(m, name);
    if (!e) return rlx_status_create(RLX_NOT_FOUND, "no function '%s' in the module", name);
  } else {
    e = rlx_module_find(m, "main");
    if (!e && m->n_funcs == 1) e = &m->funcs[0];
    if (!e) return rlx_status_create(RLX_NOT_FOUND, "the module has no 'main' function: choose one with -e");
  }
  *out = e;
  return NULL;
}

static void print_size(const char* what, const rlx_memory_size_t* s) {
  if (s->is_static) printf("%s=%lld", what, (long long)s->bytes);
  else printf("%s=%s", what, s->str);
}

/* The packed function a call binds (R.call_packed / R.call_pure_packed / a direct extern
 * call), or NULL. */
static const char* packed_callee(const rlx_relax_expr_t* v) {
  if (v->kind != RLX_RELAX_CALL) return NULL;
  const rlx_relax_call_t* c = (const rlx_relax_call_t*)v;
  const rlx_relax_expr_t* f = c->op;
  if (f->kind == RLX_RELAX_OP && c->n_args > 0) {
    const char* op = ((const rlx_relax_op_t*)f)->name;
    if (strcmp(op, "relax.call_pure_packed") != 0 && strcmp(op, "relax.call_packed") != 0) return NULL;
    f = c->args[0];
  }
  return f->kind == RLX_RELAX_EXTERN_FUNC ? ((const rlx_relax_extern_func_t*)f)->global_symbol : NULL;
}

/* Prints one line per binding of e (a SeqExpr, If branches included) whose tensors a packed
 * function allocates when it runs: results whose size is known only then (vm.builtin.nonzero,
 * unique, the sequence builtins ...), outside the static plan. */
static int print_runtime_allocs(rlx_ctx_t* ctx, const char* fname, const rlx_relax_expr_t* e) {
  int n = 0;
  if (e->kind == RLX_RELAX_IF) {
    const rlx_relax_if_t* f = (const rlx_relax_if_t*)e;
    return print_runtime_allocs(ctx, fname, f->then_branch) + print_runtime_allocs(ctx, fname, f->else_branch);
  }
  if (e->kind != RLX_RELAX_SEQ) return 0;
  const rlx_relax_seq_t* s = (const rlx_relax_seq_t*)e;
  for (int b = 0; b < s->n_blocks; b++)
    for (int k = 0; k < s->blocks[b]->n_bindings; k++) {
      const rlx_relax_binding_t* bd = s->blocks[b]->bindings[k];
      n += print_runtime_allocs(ctx, fname, bd->value);
      const char* callee = packed_callee(bd->value);
      const rlx_sinfo_t* si = bd->var->hdr.sinfo;
      bool list = si && si->kind == RLX_SINFO_OBJECT && callee && strstr(callee, "sequence"); /* a VM list */
      if (!callee || !si || (si->kind != RLX_SINFO_TENSOR && si->kind != RLX_SINFO_TUPLE && !list)) continue;
      if (strncmp(callee, "vm.builtin.", 11) == 0 && strncmp(callee, "vm.builtin.alloc", 16) == 0) continue;
      printf("run-time allocation %s: %s = %s(...) -> %s (sized by the callee when it runs)\n", fname, bd->var->name,
             callee, rlx_sinfo_str(ctx, si));
      n++;
    }
  return n;
}

/* Memory planning figures of every Relax function: the module before plan_memory against
 * the module after it. */
static rlx_status_t* print_memory_stats(rlx_ctx_t* ctx, rlx_module_t* m) {
  rlx_pipeline_options_t po = {false, "call_tir_rewrite"};
  rlx_module_t* before = NULL;
  rlx_module_t* after = NULL;
  RLX_RETURN_IF_ERROR(rlx_pipeline_run(ctx, m, &po, &before));
  RLX_RETURN_IF_ERROR(rlx_pass_plan_memory(ctx, before, &after));
  for (int i = 0; i < after->n_funcs; i++) {
    if (after->funcs[i].kind != RLX_FUNC_RELAX) continue;
    rlx_memory_stats_t s;
    RLX_RETURN_IF_ERROR(rlx_memory_stats(ctx, before, after, after->funcs[i].name, &s));
    printf("memory %s: ", after->funcs[i].name);
    print_size("unplanned_bytes", &s.unplanned);
    printf(" (%d tensors) ", s.n_tensors);
    print_size("planned_bytes", &s.planned);
    printf(" (%d storages for %d tensors, %d outputs)", s.n_storages, s.n_planned_tensors, s.n_unplanned_tensors);
    if (s.unplanned.is_static && s.planned.is_static && s.unplanned.bytes > 0)
      printf(" saved=%.1f%%", 100.0 * (double)(s.unplanned.bytes - s.planned.bytes) / (double)s.unplanned.bytes);
    printf("\n");
    const rlx_relax_func_t* f = after->funcs[i].func;
    int n_rt = print_runtime_allocs(ctx, after->funcs[i].name, f->body);
    printf("memory %s: %d run-time allocation(s) outside the plan\n", after->funcs[i].name, n_rt);
  }
  return NULL;
}

static rlx_status_t* compile_to(const options_t* o, rlx_ctx_t* ctx, rlx_module_t* m, const char* out_path) {
  rlx_vm_compile_options_t vo;
  memset(&vo, 0, sizeof(vo));
  vo.n_libs = o->n_libs;
  vo.libs = o->libs;
  vo.n_externs = o->n_externs;
  vo.externs = o->externs;
  vo.n_defer = o->n_defer;
  vo.defer = o->defer;
  const char* dbg = getenv("RLX_SCHED_DEBUG");
  if (dbg && *dbg && strcmp(dbg, "0") != 0) RLX_RETURN_IF_ERROR(tool_sched_report(ctx, m, stderr));
  return rlx_vm_compile(ctx, m, &vo, out_path);
}

static rlx_status_t* cmd_compile(const options_t* o) {
  if (!o->output) return rlx_status_create(RLX_INVALID_ARGUMENT, "compile needs -o MODEL.so");
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  rlx_status_t* st = tool_load_module(ctx, o, &m);
  if (!st && !has_relax(m))
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s has no Relax function to compile (use rlx run for a PrimFunc)",
                           o->file);
  if (!st && o->stats) st = print_memory_stats(ctx, m);
  if (!st && o->stats) st = tool_sched_report(ctx, m, stdout);
  if (!st) st = compile_to(o, ctx, m, o->output);
  rlx_ctx_free(ctx);
  return st;
}

/* ------------------------------------------------------------------ sessions */
/* One callable entry with its arguments: either a PrimFunc compiled on the fly (inputs and
 * outputs are its parameters) or a Relax function run by the VM (inputs only; outputs come
 * back from each call). */
typedef struct {
  rlx_ctx_t* ctx;
  /* PrimFunc */
  rlx_library_t* lib;
  rlx_tir_func_t* func;
  rlx_packed_fn_t fn;
  /* VM */
  rlx_vm_t* vm;
  const char* vm_func;
  char tmp_dir[64];
  int n_outputs;
  rlx_ndarray_t** outputs;
  /* arguments */
  int n_args;
  rlx_ndarray_t* args[MAX_INPUTS];
  int n_given; /* args[0..n_given) came from -i */
  /* ONNX models with sequence or optional inputs or outputs: values kept as trees, read and
   * written by their declared types (rlx_onnx_value_load / _save) */
  const char** param_types;
  int n_param_types;
  const char** output_types;
  const char** output_names;
  int n_output_names;
  bool structured;
  rlx_vm_value_t vals[MAX_INPUTS];
  int n_vals;
  rlx_vm_value_t result;
} session_t;

static void release_outputs(session_t* s) {
  for (int i = 0; i < s->n_outputs; i++) rlx_ndarray_release(s->outputs[i]);
  free(s->outputs);
  s->outputs = NULL;
  s->n_outputs = 0;
}

static void session_free(session_t* s) {
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

static rlx_status_t* load_inputs(const options_t* o, session_t* s) {
  if (s->structured) {
    for (int i = 0; i < o->n_inputs; i++) {
      const char* type = i < s->n_param_types ? s->param_types[i] : "tensor";
      s->n_vals = i + 1;
      if (strcmp(type, "tensor") == 0 && !ends_with(o->inputs[i], ".pb")) {
        s->vals[i].kind = RLX_VM_INPUT_TENSOR;
        RLX_RETURN_IF_ERROR(load_tensor(o->inputs[i], &s->vals[i].tensor));
      } else {
        RLX_RETURN_IF_ERROR(rlx_onnx_value_load(o->inputs[i], type, &s->vals[i]));
      }
    }
    return NULL;
  }
  for (int i = 0; i < o->n_inputs; i++) {
    RLX_RETURN_IF_ERROR(load_tensor(o->inputs[i], &s->args[i]));
    s->n_args = s->n_given = i + 1;
  }
  return NULL;
}

/* A PrimFunc entry: inputs bind to the first params; the rest are allocated outputs. */
static rlx_status_t* prepare_prim_func(const options_t* o, bool random, rlx_module_t* m, session_t* s) {
  rlx_tir_func_t* f = s->func;
  if (f->n_params > MAX_INPUTS) return rlx_status_create(RLX_UNSUPPORTED, "%s: too many parameters", f->name);
  for (int i = 0; i < f->n_params; i++)
    if (!f->buffer_map[i])
      return rlx_status_create(RLX_UNSUPPORTED, "%s: scalar parameter '%s' cannot be given on the command line",
                               f->name, f->params[i]->name);
  if (o->n_inputs > f->n_params)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s takes %d parameters, got %d inputs", f->name, f->n_params,
                             o->n_inputs);
  RLX_RETURN_IF_ERROR(load_inputs(o, s));
  rlx_int_env_t env = {0};
  rlx_status_t* st = NULL;
  for (int i = 0; i < s->n_given && !st; i++) st = bind_input(f, i, f->buffer_map[i], &s->args[i]->dl, &env);
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

/* A Relax entry: inputs from -i (or random for bench when the shapes are constant). */
static rlx_status_t* prepare_vm(const options_t* o, bool random, session_t* s) {
  rlx_vm_function_info_t info;
  RLX_RETURN_IF_ERROR(rlx_vm_function_info(s->vm, s->vm_func, &info));
  if (o->n_inputs > info.n_params || (!random && o->n_inputs != info.n_params)) {
    rlx_strbuf_t names = {0};
    for (int i = 0; i < info.n_params; i++)
      rlx_strbuf_printf(&names, "%s%s: %s", i ? ", " : "", info.param_names[i], info.param_shapes[i]);
    rlx_status_t* st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s takes %d inputs, got %d (parameters: %s)",
                                         s->vm_func, info.n_params, o->n_inputs, rlx_strbuf_cstr(&names));
    rlx_strbuf_free(&names);
    return st;
  }
  if (info.n_params > MAX_INPUTS) return rlx_status_create(RLX_UNSUPPORTED, "%s: too many parameters", s->vm_func);
  RLX_RETURN_IF_ERROR(load_inputs(o, s));
  for (int i = 0; i < s->n_vals; i++) { /* bfloat16 bits, as below */
    rlx_ndarray_t* t = s->vals[i].kind == RLX_VM_INPUT_TENSOR ? s->vals[i].tensor : NULL;
    DLDataType want = info.param_dtypes[i];
    if (t && want.code == kDLBfloat && want.bits == 16 && t->dl.dtype.code == kDLUInt && t->dl.dtype.bits == 16)
      t->dl.dtype = want;
  }
  if (s->structured && o->n_inputs != info.n_params)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s takes %d inputs, got %d", s->vm_func, info.n_params, o->n_inputs);
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

static rlx_status_t* session_prepare(const options_t* o, bool random, session_t* s) {
  memset(s, 0, sizeof(*s));
  s->ctx = rlx_ctx_create();
  s->vm_func = o->entry ? o->entry : "main";
  if (is_model(o->file)) {
    if (o->n_externs)
      return rlx_status_create(RLX_INVALID_ARGUMENT,
                               "--extern links code into a model when it is compiled; '%s' is compiled already "
                               "(give --extern to rlx compile)", o->file);
    RLX_RETURN_IF_ERROR(rlx_vm_load(o->file, o->n_libs, o->libs, &s->vm));
    return prepare_vm(o, random, s);
  }
  rlx_module_t* m = NULL;
  rlx_module_entry_t* e = NULL;
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
  if (e->kind == RLX_FUNC_TIR) {
    s->func = e->func;
    return prepare_prim_func(o, random, m, s);
  }
  /* A Relax entry: compile the module into a temporary model and run it with the VM. */
  s->vm_func = e->name;
  snprintf(s->tmp_dir, sizeof(s->tmp_dir), "/tmp/rlx-run-XXXXXX");
  if (!mkdtemp(s->tmp_dir)) {
    s->tmp_dir[0] = 0;
    return rlx_status_create(RLX_IO_ERROR, "cannot create a temporary directory");
  }
  char path[128];
  snprintf(path, sizeof(path), "%s/model.so", s->tmp_dir);
  RLX_RETURN_IF_ERROR(compile_to(o, s->ctx, m, path));
  RLX_RETURN_IF_ERROR(rlx_vm_load(path, o->n_libs, o->libs, &s->vm));
  return prepare_vm(o, random, s);
}

/* v as a VM argument (fields: heap arrays freed by free_input). */
static rlx_status_t* to_input(const rlx_vm_value_t* v, rlx_vm_input_t* out) {
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

static rlx_status_t* session_call(session_t* s) {
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

/* Output format: --format, else .pb when the model is ONNX or an input is a .pb file, else .npy. */
static bool outputs_as_pb(const options_t* o) {
  if (o->format) return strcmp(o->format, "pb") == 0;
  if (ends_with(o->file, ".onnx")) return true;
  for (int i = 0; i < o->n_inputs; i++)
    if (ends_with(o->inputs[i], ".pb")) return true;
  return false;
}

static rlx_status_t* cmd_run(const options_t* o) {
  bool pb = outputs_as_pb(o);
  session_t s;
  rlx_status_t* st = session_prepare(o, false, &s);
  if (!st) st = session_call(&s);
  if (!st && o->output) st = rlx_mkdirs(o->output);
  if (s.structured) { /* the graph outputs by their declared types */
    int n = s.n_output_names;
    if (!st && n > 1 && (s.result.kind != RLX_VM_INPUT_TUPLE || s.result.n_fields != n))
      st = rlx_status_create(RLX_INTERNAL, "%s: expected %d outputs", s.vm_func, n);
    for (int k = 0; !st && k < n; k++) {
      char path[4096];
      snprintf(path, sizeof(path), "%s/output_%d.pb", o->output ? o->output : ".", k);
      st = rlx_onnx_value_save(path, s.output_types[k], n > 1 ? &s.result.fields[k] : &s.result);
    }
    session_free(&s);
    return st;
  }
  /* PrimFunc: the parameters after the inputs; VM: the returned values. */
  int n_out = s.vm ? s.n_outputs : s.n_args - s.n_given;
  for (int k = 0; !st && k < n_out; k++) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/output_%d.%s", o->output ? o->output : ".", k, pb ? "pb" : "npy");
    const DLTensor* t = s.vm ? &s.outputs[k]->dl : &s.args[s.n_given + k]->dl;
    st = pb ? rlx_onnx_tensor_save(path, t, NULL) : rlx_npy_save(path, t);
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
  if (!st && (o->profile || o->profile_plot)) {
    /* a separate set of runs, so the timer calls do not touch the figures above */
    if (!s.vm) st = rlx_status_create(RLX_INVALID_ARGUMENT, "--profile needs a Relax function (a model), not a PrimFunc");
    if (!st) st = rlx_vm_profile_enable(s.vm, true);
    for (int r = 0; !st && r < o->repeat; r++) st = session_call(&s);
    if (!st) st = tool_profile_print(s.vm, o->profile_plot);
  }
  free(times);
  session_free(&s);
  return st;
}

int main(int argc, char** argv) {
  rlx_fold_set_runner(rlx_build_run_func); /* print --after and --stats fold as compile does */
  if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0)) {
    print_usage(stdout);
    return 0;
  }
  if (argc >= 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0)) {
    printf("rlx %s\n", RLX_VERSION);
    return 0;
  }
  for (int i = 2; argc >= 2 && i < argc; i++) {
    if (strcmp(argv[i], "--help") != 0 && strcmp(argv[i], "-h") != 0) continue;
    const char* help = command_help(argv[1]);
    if (!help) break;
    printf("usage:\n%s", help);
    return 0;
  }
  options_t o;
  rlx_status_t* st = NULL;
  if (argc >= 2 && strcmp(argv[1], "config") == 0) st = tool_cmd_config(argc, argv);
  else st = parse_options(argc, argv, &o);
  if (!st && strcmp(argv[1], "config") != 0) {
    if (strcmp(o.command, "print") == 0) st = cmd_print(&o);
    else if (strcmp(o.command, "compile") == 0) st = cmd_compile(&o);
    else if (strcmp(o.command, "run") == 0) st = cmd_run(&o);
    else if (strcmp(o.command, "bench") == 0) st = cmd_bench(&o);
    else if (strcmp(o.command, "export-mlf") == 0) st = tool_cmd_export_mlf(&o);
    else st = rlx_status_create(RLX_INVALID_ARGUMENT, "unknown command '%s' (rlx --help lists the commands)", o.command);
  }
  if (st) {
    fprintf(stderr, "rlx: error: %s\n", rlx_status_message(st));
    rlx_status_free(st);
    return 1;
  }
  return 0;
}
