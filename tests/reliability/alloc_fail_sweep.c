/* Allocation-failure sweep (issue 12): every heap allocation rlx's own code makes —
 * malloc, calloc, realloc, strdup, strndup, posix_memalign, aligned_alloc, called from
 * the runtime, the compiler (its arena's chunks included) and the hand-written kernels —
 * goes through the __wrap_ functions below (the executable links rlx's objects with
 * -Wl,--wrap=...; libc's and the system libraries' own allocations are not counted). A
 * scenario runs once to count its allocations, N; then, for every k in 1..N, a forked
 * child runs it again with the k-th allocation failing (only that one) and must end in
 * an error status or in the right result; a crash (signal), a wrong result or, in the
 * sanitizer build, a leak (LeakSanitizer, checked in the child after everything is
 * freed) fails the sweep, and the k is printed with the scenario so that
 *   alloc_fail_sweep SCENARIO K
 * reproduces it in the foreground.
 *
 * Scenarios of the runtime: "load_run" (rlx_vm_load of a model compiled at start, invoke,
 * release), "vm_text" (its executable disassembled and assembled back), "npy" (a .npy
 * read from memory), "cnn_run" (the CNN below compiled at start, run, against PyTorch).
 * Of the compiler: "parse" (rlx_script_parse of a Relax + TIR module and printing it back), "compile"
 * (parse, then every pass of the pipeline and the VM code generation, up to the C
 * sources and executable bytes; not the C compiler, a separate process), "fold"
 * (fold_constants evaluating a chain of constant calls), "mlf_ops" (rlx_export_mlf,
 * operator style). Of the small CNN that make_sweep_onnx.py writes (--onnx PATH): "onnx"
 * (rlx_onnx_import_bytes, printed back), "cnn" (imported with failures paused, then the
 * pipeline — layout_nchwc, the NCHW16c kernels' calls, a grouped convolution's
 * legalization — up to the C sources and executable bytes), "mlf" (rlx_export_mlf
 * full-model: AOT entry point, runtime kernel sources, parameters; the archive read back).
 *
 * A failure must end in the right result or in an error that says "out of memory" (code
 * OUT_OF_MEMORY, or a kernel's message): an error the failure caused, such as a parse
 * error about a string that lost its tail, is a bad point too. The compiler's results are
 * compared whole with those of a run without failures (the printed modules, the kernels'
 * C source, the executable's bytes).
 *
 * Usage: alloc_fail_sweep [--group G[,G...]] [--onnx SWEEP_CNN.onnx] [--stride S] [SCENARIO [K]]
 * (every k by default, every S-th with --stride; groups runtime, compiler, onnx, cnn, mlf —
 * one ctest each; --runtime / --compiler are --group runtime / compiler). */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/driver.h"
#include "rlx/onnx.h"
#include "rlx/rlx.h"
#include "rlx/vm.h"
#include "build/vm_build.h"
#include "support/support.h"
#include "test.h"
#include "transform/pass.h"

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_LSAN 1
#endif
#endif
#ifdef HAVE_LSAN
int __lsan_do_recoverable_leak_check(void);
#endif

/* ---------------------------------------------------------------- the failing allocator */

static atomic_llong seen;  /* allocations since arm() */
static long long fail_at;  /* the one to fail (1-based); 0 = none */
static atomic_bool armed;
static atomic_llong failed;
static atomic_bool paused; /* a scenario's preparation (importing the model it then compiles) */

void* __real_malloc(size_t n);
void* __real_calloc(size_t a, size_t b);
void* __real_realloc(void* p, size_t n);
char* __real_strdup(const char* s);
char* __real_strndup(const char* s, size_t n);
int __real_posix_memalign(void** p, size_t align, size_t n);
void* __real_aligned_alloc(size_t align, size_t n);

/* Called at the failing allocation: `break failing_here` in a debugger shows who made it. */
__attribute__((noinline)) void failing_here(void) { __asm__ volatile(""); }

static bool fail_now(void) {
  if (!atomic_load(&armed) || atomic_load(&paused)) return false;
  long long k = atomic_fetch_add(&seen, 1) + 1;
  if (k != fail_at) return false;
  atomic_fetch_add(&failed, 1);
  failing_here();
  return true;
}

void* __wrap_malloc(size_t n) { return fail_now() ? NULL : __real_malloc(n); }
void* __wrap_calloc(size_t a, size_t b) { return fail_now() ? NULL : __real_calloc(a, b); }
void* __wrap_realloc(void* p, size_t n) { return fail_now() ? NULL : __real_realloc(p, n); }
char* __wrap_strdup(const char* s) { return fail_now() ? NULL : __real_strdup(s); }
char* __wrap_strndup(const char* s, size_t n) { return fail_now() ? NULL : __real_strndup(s, n); }
int __wrap_posix_memalign(void** p, size_t align, size_t n) {
  return fail_now() ? ENOMEM : __real_posix_memalign(p, align, n);
}
void* __wrap_aligned_alloc(size_t align, size_t n) { return fail_now() ? NULL : __real_aligned_alloc(align, n); }

static void arm(long long k) {
  atomic_store(&seen, 0);
  atomic_store(&failed, 0);
  fail_at = k;
  atomic_store(&armed, true);
}
static long long disarm(void) {
  atomic_store(&armed, false);
  atomic_store(&paused, false);
  return atomic_load(&seen);
}

/* ---------------------------------------------------------------- scenarios */

/* A model with a symbolic batch, a constant, a matmul, an elementwise chain and a
 * match_cast; and a hand-written PrimFunc called through call_tir. */
static const char* model_text =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "# from tvm.script import relax as R\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def scale(A: T.Buffer((T.int64(4),), \"float32\"), B: T.Buffer((T.int64(4),), \"float32\")):\n"
    "        for i in range(T.int64(4)):\n"
    "            with T.block(\"B\"):\n"
    "                vi = T.axis.spatial(T.int64(4), i)\n"
    "                B[vi] = A[vi] * T.float32(2)\n"
    "\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\", 4), dtype=\"float32\"), b: R.Tensor((4,), dtype=\"float32\")) -> "
    "R.Tensor((\"n\", 3), dtype=\"float32\"):\n"
    "        n = T.int64()\n"
    "        cls = Module\n"
    "        with R.dataflow():\n"
    "            b2 = R.call_tir(cls.scale, (b,), out_sinfo=R.Tensor((4,), dtype=\"float32\"))\n"
    "            lv: R.Tensor((n, 4), dtype=\"float32\") = R.add(x, b2)\n"
    "            lv1: R.Tensor((n, 3), dtype=\"float32\") = R.matmul(lv, R.const([[1, 0, 0], [0, 1, 0], [0, 0, 1], "
    "[1, 1, 1]], \"float32\"))\n"
    "            gv: R.Tensor((n, 3), dtype=\"float32\") = R.nn.relu(lv1)\n"
    "            R.output(gv)\n"
    "        return gv\n";

static char model_so[256];

/* The expected output of main for x = [[i + j/4]], b = [1, -1, 0.5, -2] (n = 3). */
static void inputs(rlx_ndarray_t** x, rlx_ndarray_t** b, rlx_status_t** st) {
  int64_t xs[2] = {3, 4}, bs[1] = {4};
  *st = rlx_ndarray_create(2, xs, rlx_dldtype(kDLFloat, 32, 1), NULL, x);
  if (!*st) *st = rlx_ndarray_create(1, bs, rlx_dldtype(kDLFloat, 32, 1), NULL, b);
  if (*st) return;
  float* xd = (*x)->dl.data;
  for (int i = 0; i < 12; i++) xd[i] = (float)(i / 4) + (float)(i % 4) / 4.0f - 1.0f;
  float* bd = (*b)->dl.data;
  bd[0] = 1, bd[1] = -1, bd[2] = 0.5f, bd[3] = -2;
}

static bool right_output(const rlx_ndarray_t* y) {
  if (y->dl.ndim != 2 || y->dl.shape[0] != 3 || y->dl.shape[1] != 3) return false;
  const float* yd = y->dl.data;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      float x[4], s = 0;
      const float b2[4] = {2, -2, 1, -4};
      for (int c = 0; c < 4; c++) x[c] = (float)i + (float)c / 4.0f - 1.0f + b2[c];
      s = x[j] + x[3];
      float want = s > 0 ? s : 0;
      if (fabsf(yd[i * 3 + j] - want) > 1e-5f) return false;
    }
  return true;
}

/* Each scenario returns its status; *ok_result is false when it succeeded with a wrong
 * result. Everything it allocates is freed before it returns. */
static rlx_status_t* run_load_run(bool* ok_result) {
  rlx_vm_t* vm = NULL;
  rlx_ndarray_t *x = NULL, *b = NULL;
  rlx_status_t* st = rlx_vm_load(model_so, 0, NULL, &vm);
  if (!st) inputs(&x, &b, &st);
  int n = 0;
  rlx_ndarray_t** outs = NULL;
  if (!st) st = rlx_vm_invoke(vm, "main", 2, (DLTensor*[]){&x->dl, &b->dl}, &n, &outs);
  if (!st) *ok_result = n == 1 && right_output(outs[0]);
  for (int i = 0; i < n; i++) rlx_ndarray_release(outs[i]);
  free(outs);
  rlx_ndarray_release(x);
  rlx_ndarray_release(b);
  rlx_vm_free(vm);
  return st;
}

/* What the compiler's scenarios give without failures (computed by main, before the sweep):
 * the parsed module printed, the module after the pipeline printed, the kernels' C source
 * and the serialized executable. A run with a failure must give these or an error. */
static char* want_parse;

static bool verbose_run; /* one k in the foreground: show a wrong text */

static bool same_text(const char* got, const char* want) {
  bool same = got && (!want || strcmp(got, want) == 0);
  if (!same && verbose_run) fprintf(stderr, "---- got:\n%s\n---- want:\n%s\n", got ? got : "(null)", want);
  return same;
}

/* Parses the model and prints it back; *out_text (heap) is the text. */
static rlx_status_t* parse_print(char** out_text) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  if (!ctx) return rlx_status_create(RLX_OUT_OF_MEMORY, "context");
  rlx_module_t* m = NULL;
  rlx_status_t* st = rlx_script_parse(ctx, model_text, "model.py", &m);
  if (!st) {
    *out_text = rlx_script_print_module(m);
    if (!*out_text) st = rlx_status_create(RLX_OUT_OF_MEMORY, "printing");
  }
  rlx_ctx_free(ctx);
  return st;
}

static rlx_status_t* run_parse(bool* ok_result) {
  char* text = NULL;
  rlx_status_t* st = parse_print(&text);
  if (!st) *ok_result = same_text(text, want_parse);
  free(text);
  return st;
}

/* The model's executable printed as text and assembled back to the same bytes. */
static rlx_status_t* run_vm_text(bool* ok_result) {
  char* text = NULL;
  void* bytes = NULL;
  size_t n = 0;
  rlx_status_t* st = rlx_vm_disassemble_model(model_so, &text);
  if (!st) st = rlx_vm_assemble(text, &bytes, &n);
  if (!st) {
    char* again = NULL;
    st = rlx_vm_disassemble(bytes, n, &again);
    /* the same text but for the model's "; target: ..." line, which the bytes do not hold */
    const char* body = strncmp(text, "; target: ", 10) == 0 && strchr(text, '\n') ? strchr(text, '\n') + 1 : text;
    if (!st) *ok_result = strcmp(again, body) == 0;
    free(again);
  }
  free(bytes);
  free(text);
  return st;
}

/* A .npy tensor read from memory (2 x 3 float32, the fuzz corpus's seed). */
static char* npy_bytes;
static size_t npy_len;
static rlx_status_t* run_npy(bool* ok_result) {
  rlx_ndarray_t* t = NULL;
  rlx_status_t* st = rlx_npy_load_from_memory(npy_bytes, npy_len, "f32_2x3.npy", &t);
  if (!st) *ok_result = t->dl.ndim == 2 && t->dl.shape[0] == 2 && t->dl.shape[1] == 3;
  rlx_ndarray_release(t);
  return st;
}

/* ---------------------------------------------------------------- ONNX, layout_nchwc, folding, MLF */

/* The convolutional network of tests/reliability/make_sweep_onnx.py (written at test time:
 * --onnx PATH; its scenarios are skipped without it). */
static char* onnx_bytes;
static size_t onnx_len;
static char *want_onnx, *want_fold, *want_mlf, *want_mlf_ops;
static char work_dir[64]; /* the MLF archives are written there */

/* Imports the ONNX model into ctx with the failures paused (a scenario that compiles it). */
static rlx_status_t* import_paused(rlx_ctx_t* ctx, rlx_module_t** m) {
  bool was = atomic_exchange(&paused, true);
  rlx_status_t* st = rlx_onnx_import_bytes(ctx, onnx_bytes, onnx_len, "sweep_cnn.onnx", m);
  atomic_store(&paused, was);
  return st;
}

/* The ONNX importer (its converters, constant folding of the Shape / Gather / Concat and
 * Mul parts) and the module printed back with its constants. */
static rlx_status_t* onnx_print(char** out_text) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  if (!ctx) return rlx_status_create(RLX_OUT_OF_MEMORY, "context");
  rlx_module_t* m = NULL;
  rlx_status_t* st = rlx_onnx_import_bytes(ctx, onnx_bytes, onnx_len, "sweep_cnn.onnx", &m);
  if (!st) {
    *out_text = rlx_script_print_module_ex(m, true);
    if (!*out_text) st = rlx_status_create(RLX_OUT_OF_MEMORY, "printing");
  }
  rlx_ctx_free(ctx);
  return st;
}

static rlx_status_t* run_onnx(bool* ok_result) {
  char* text = NULL;
  rlx_status_t* st = onnx_print(&text);
  if (!st) *ok_result = same_text(text, want_onnx);
  free(text);
  return st;
}

/* What a compile scenario gives: the module after the pipeline printed (with its
 * constants), the kernels' C source, the serialized executable. */
typedef struct {
  char *lowered, *kernels;
  void* exec;
  size_t n;
} parts_t;
static parts_t want_parts[2]; /* compile, cnn */

static void parts_free(parts_t* p) {
  free(p->lowered);
  free(p->kernels);
  free(p->exec);
}

/* The first model parsed (cnn false) or the network imported with failures paused (cnn:
 * layout_nchwc and its packed weights, the NCHW16c kernels' calls, the grouped
 * convolution's and the other ops' legalization and schedules), the whole pipeline, the
 * result printed, then rlx_vm_build_parts without passes: everything rlx_vm_compile does
 * before it starts the C compiler. */
static rlx_status_t* compile_parts(bool cnn, parts_t* out) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  if (!ctx) return rlx_status_create(RLX_OUT_OF_MEMORY, "context");
  rlx_module_t *m = NULL, *lowered = NULL;
  rlx_status_t* st = cnn ? import_paused(ctx, &m) : rlx_script_parse(ctx, model_text, "model.py", &m);
  if (!st) st = rlx_pipeline_run(ctx, m, NULL, &lowered);
  if (!st) {
    out->lowered = rlx_script_print_module_ex(lowered, true);
    if (!out->lowered) st = rlx_status_create(RLX_OUT_OF_MEMORY, "printing");
  }
  rlx_vm_compile_options_t opts = {.passes = "none"};
  if (!st) st = rlx_vm_build_parts(ctx, lowered, &opts, &out->kernels, &out->exec, &out->n);
  rlx_ctx_free(ctx);
  return st;
}

static rlx_status_t* run_parts(bool cnn, bool* ok_result) {
  parts_t got = {0};
  const parts_t* want = &want_parts[cnn];
  rlx_status_t* st = compile_parts(cnn, &got);
  if (!st)
    *ok_result = same_text(got.lowered, want->lowered) && same_text(got.kernels, want->kernels) && got.exec &&
                 (!want->exec || (got.n == want->n && memcmp(got.exec, want->exec, got.n) == 0));
  parts_free(&got);
  return st;
}

static rlx_status_t* run_compile(bool* ok_result) { return run_parts(false, ok_result); }
static rlx_status_t* run_cnn(bool* ok_result) { return run_parts(true, ok_result); }

/* fold_constants: a chain of calls on constants (add, permute_dims, relu, sum, matmul)
 * evaluated at compile time by the TIR interpreter; the module printed after the pass with
 * the folded constant's data. */
static const char* fold_text =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import relax as R\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), dtype=\"float32\"):\n"
    "        with R.dataflow():\n"
    "            a: R.Tensor((2, 3), dtype=\"float32\") = R.add(R.const([[1, 2, 3], [4, 5, 6]], \"float32\"), R.const([[0.5, -1, 2], [0, 3, -4]], \"float32\"))\n"
    "            b: R.Tensor((3, 2), dtype=\"float32\") = R.permute_dims(a, axes=[1, 0])\n"
    "            c: R.Tensor((3, 2), dtype=\"float32\") = R.nn.relu(b)\n"
    "            d: R.Tensor((1, 2), dtype=\"float32\") = R.sum(c, axis=[0], keepdims=True)\n"
    "            e: R.Tensor((2, 3), dtype=\"float32\") = R.matmul(R.permute_dims(d, axes=[1, 0]), R.const([[1, 0.5, 0.25]], \"float32\"))\n"
    "            f: R.Tensor((2, 3), dtype=\"float32\") = R.multiply(x, e)\n"
    "            g: R.Tensor((2, 3), dtype=\"float32\") = R.exp(f)\n"
    "            R.output(g)\n"
    "        return g\n";

static rlx_status_t* fold_print(char** out_text) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  if (!ctx) return rlx_status_create(RLX_OUT_OF_MEMORY, "context");
  rlx_module_t* m = NULL;
  rlx_status_t* st = rlx_script_parse(ctx, fold_text, "fold.py", &m);
  if (!st) st = rlx_module_print_after(ctx, m, "fold_constants", true, out_text);
  rlx_ctx_free(ctx);
  return st;
}

static rlx_status_t* run_fold(bool* ok_result) {
  char* text = NULL;
  rlx_status_t* st = fold_print(&text);
  if (!st) *ok_result = same_text(text, want_fold);
  free(text);
  return st;
}

/* The network compiled (at start, into work_dir) and run: the NCHW16c kernels' calls —
 * conv2d_nchwc with its bias / residual / relu epilogue, max_pool2d_nchwc, mean_hw_nchwc,
 * the layout conversion — their scratch and the VM's allocations, against PyTorch's output
 * (make_sweep_onnx.py writes it next to the model). */
static char cnn_so[128];
static float cnn_y[4];

static rlx_status_t* compile_cnn(const char* onnx_path) {
  snprintf(cnn_so, sizeof cnn_so, "%s/cnn.so", work_dir);
  char ypath[1024];
  snprintf(ypath, sizeof ypath, "%.*s_y.npy", (int)(strlen(onnx_path) - strlen(".onnx")), onnx_path);
  rlx_ndarray_t* y = NULL;
  rlx_status_t* st = rlx_npy_load(ypath, &y);
  if (!st && (y->dl.ndim != 2 || y->dl.shape[0] != 1 || y->dl.shape[1] != 4))
    st = rlx_status_create(RLX_INVALID_ARGUMENT, "%s: expected a 1 x 4 output", ypath);
  if (!st) memcpy(cnn_y, y->dl.data, sizeof cnn_y);
  rlx_ndarray_release(y);
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  if (!st) st = rlx_onnx_import_bytes(ctx, onnx_bytes, onnx_len, "sweep_cnn.onnx", &m);
  if (!st) st = rlx_relax_build(ctx, m, NULL, cnn_so);
  rlx_ctx_free(ctx);
  return st;
}

static rlx_status_t* run_cnn_run(bool* ok_result) {
  rlx_vm_t* vm = NULL;
  rlx_ndarray_t* x = NULL;
  int64_t xs[4] = {1, 3, 8, 8};
  rlx_status_t* st = rlx_vm_load(cnn_so, 0, NULL, &vm);
  if (!st) st = rlx_ndarray_create(4, xs, rlx_dldtype(kDLFloat, 32, 1), NULL, &x);
  int n = 0;
  rlx_ndarray_t** outs = NULL;
  if (!st) {
    float* xd = x->dl.data;
    for (int i = 0; i < 192; i++) xd[i] = (float)((i * 5) % 11 - 5) / 10.0f;
    st = rlx_vm_invoke(vm, "main", 1, (DLTensor*[]){&x->dl}, &n, &outs);
  }
  if (!st) {
    const rlx_ndarray_t* y = n == 1 ? outs[0] : NULL;
    *ok_result = y && y->dl.ndim == 2 && y->dl.shape[0] == 1 && y->dl.shape[1] == 4;
    for (int i = 0; i < 4 && *ok_result; i++) *ok_result = fabsf(((const float*)y->dl.data)[i] - cnn_y[i]) <= 1e-5f;
  }
  for (int i = 0; i < n; i++) rlx_ndarray_release(outs[i]);
  free(outs);
  rlx_ndarray_release(x);
  rlx_vm_free(vm);
  return st;
}

/* The archive's entries as one text: per entry its path, size and bytes (not the mtime). */
static rlx_status_t* read_tar(const char* path, char** out_text) {
  struct archive* a = archive_read_new();
  archive_read_support_format_tar(a);
  rlx_status_t* st = NULL;
  if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK) {
    st = rlx_status_create(RLX_IO_ERROR, "cannot read '%s': %s", path, archive_error_string(a));
  } else {
    rlx_strbuf_t sb = {0};
    struct archive_entry* e;
    char buf[8192];
    while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
      rlx_strbuf_printf(&sb, "==== %s %lld\n", archive_entry_pathname(e), (long long)archive_entry_size(e));
      la_ssize_t r;
      while ((r = archive_read_data(a, buf, sizeof buf)) > 0) rlx_strbuf_appendn(&sb, buf, (size_t)r);
    }
    *out_text = rlx_strbuf_take(&sb);
    /* metadata.json's export_datetime is the time of the run */
    char* when = strstr(*out_text, "\"export_datetime\":");
    for (char* q = when ? strchr(when + 18, '"') + 1 : NULL; q && *q && *q != '"'; q++) *q = 'T';
  }
  archive_read_free(a);
  return st;
}

/* rlx_export_mlf of the network (full-model: the pipeline up to plan_memory, lowering, the
 * kernels' C, the AOT entry point, the runtime kernels' sources, metadata.json, the
 * parameters) or of the first model's PrimFunc (operator style); the archive read back. An
 * error must leave no archive. */
static rlx_status_t* mlf_text(bool operator_style, char** out_text) {
  rlx_ctx_t* ctx = rlx_ctx_create();
  if (!ctx) return rlx_status_create(RLX_OUT_OF_MEMORY, "context");
  rlx_module_t* m = NULL;
  rlx_status_t* st;
  if (operator_style) {
    bool was = atomic_exchange(&paused, true);
    st = rlx_script_parse(ctx, model_text, "model.py", &m);
    atomic_store(&paused, was);
  } else {
    st = import_paused(ctx, &m);
  }
  char tar[128];
  snprintf(tar, sizeof tar, "%s/sweep.tar", work_dir);
  rlx_mlf_options_t o = {.style = operator_style ? "operator" : NULL, .name = "sweep"};
  if (!st) st = rlx_export_mlf(ctx, m, &o, tar);
  if (!st) { /* reading it back is the test's, not rlx's */
    bool was = atomic_exchange(&paused, true);
    st = read_tar(tar, out_text);
    atomic_store(&paused, was);
  }
  else if (access(tar, F_OK) == 0) st = rlx_status_create(RLX_INTERNAL, "an archive was left behind after: %s", rlx_status_message(st));
  unlink(tar);
  rlx_ctx_free(ctx);
  return st;
}

static rlx_status_t* run_mlf(bool* ok_result) {
  char* text = NULL;
  rlx_status_t* st = mlf_text(false, &text);
  if (!st) *ok_result = same_text(text, want_mlf);
  free(text);
  return st;
}

static rlx_status_t* run_mlf_ops(bool* ok_result) {
  char* text = NULL;
  rlx_status_t* st = mlf_text(true, &text);
  if (!st) *ok_result = same_text(text, want_mlf_ops);
  free(text);
  return st;
}

typedef struct {
  const char* name;
  rlx_status_t* (*run)(bool* ok_result);
  const char* group; /* --group NAME runs a group's scenarios (one ctest each) */
  bool needs_onnx;   /* needs --onnx */
} scenario_t;

static const scenario_t scenarios[] = {
    {"load_run", run_load_run, "runtime", false},
    {"vm_text", run_vm_text, "runtime", false},
    {"npy", run_npy, "runtime", false},
    {"cnn_run", run_cnn_run, "runtime", true},
    {"parse", run_parse, "compiler", false},
    {"compile", run_compile, "compiler", false},
    {"fold", run_fold, "compiler", false},
    {"onnx", run_onnx, "onnx", true},
    {"cnn", run_cnn, "cnn", true},
    {"mlf", run_mlf, "mlf", true},
    {"mlf_ops", run_mlf_ops, "compiler", false},
};
enum { N_SCENARIOS = sizeof(scenarios) / sizeof(scenarios[0]) };

enum { CHILD_OK = 0, CHILD_WRONG = 3, CHILD_LEAK = 4, CHILD_NOT_OOM = 5 };

/* Runs a scenario with allocation k failing (0: none); returns a CHILD_ code. With
 * `verbose`, prints the status. *out_seen: allocations counted. */
static int run_one(const scenario_t* s, long long k, bool verbose, long long* out_seen) {
  bool ok_result = true;
  arm(k);
  rlx_status_t* st = s->run(&ok_result);
  long long n = disarm();
  if (out_seen) *out_seen = n;
  if (verbose) fprintf(stderr, "%s, allocation %lld of %lld failing: %s\n", s->name, k, n, rlx_status_message(st));
  int rc = CHILD_OK;
  if (!st && !ok_result) rc = CHILD_WRONG;
  /* an error must say so (a kernel's failure reaches the VM's caller as its message), not
   * be an error the failure caused (a lookup in a map that lost an entry) */
  if (st && rlx_status_code(st) != RLX_OUT_OF_MEMORY && !strstr(rlx_status_message(st), "out of memory"))
    rc = CHILD_NOT_OOM;
  rlx_status_free(st);
#ifdef HAVE_LSAN
  if (rc == CHILD_OK && __lsan_do_recoverable_leak_check()) rc = CHILD_LEAK;
#endif
  return rc;
}

/* Runs the scenario in a child (k = 0: counting) with a time limit, so that the parent
 * never starts threads (libgomp's pool does not survive a fork) nor holds any state of a
 * run. Returns waitpid's status; *out_seen (may be NULL) from the child through a pipe. */
static int run_child(const scenario_t* s, long long k, long long* out_seen) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    alarm(120); /* a hang is a failure too (SIGALRM) */
    long long n = 0;
    int rc = run_one(s, k, false, &n);
    ssize_t w = write(fds[1], &n, sizeof n);
    _exit(w == (ssize_t)sizeof n ? rc : 1);
  }
  close(fds[1]);
  long long n = 0;
  if (pid > 0 && read(fds[0], &n, sizeof n) == (ssize_t)sizeof n && out_seen) *out_seen = n;
  close(fds[0]);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return status;
}

/* Sweeps one scenario; returns the number of failing k. */
static int sweep(const scenario_t* s, long long stride, long long* out_points) {
  long long n = 0;
  int status = run_child(s, 0, &n);
  CHECK_MSG(status == 0 && n > 0, "%s without failures: wait status %d, %lld allocations", s->name, status, n);
  *out_points = 0;
  int bad = 0;
  for (long long k = 1; k <= n; k += stride) {
    status = run_child(s, k, NULL);
    if (status == -1) {
      CHECK_MSG(false, "fork/wait failed");
      return bad + 1;
    }
    (*out_points)++;
    const char* what = NULL;
    if (WIFSIGNALED(status)) what = strsignal(WTERMSIG(status));
    else if (WEXITSTATUS(status) == CHILD_WRONG) what = "succeeded with a wrong result";
    else if (WEXITSTATUS(status) == CHILD_LEAK) what = "leaked";
    else if (WEXITSTATUS(status) == CHILD_NOT_OOM) what = "failed with an error other than out of memory";
    else if (WEXITSTATUS(status) != CHILD_OK) what = "exited with an unexpected code";
    if (what) {
      bad++;
      if (bad <= 200) fprintf(stderr, "FAIL: %s, allocation %lld of %lld failing: %s (rerun: alloc_fail_sweep %s %lld)\n",
                             s->name, k, n, what, s->name, k);
    }
  }
  printf("%s: %lld allocations, %lld failure points run, %d bad\n", s->name, n, *out_points, bad);
  CHECK_MSG(bad == 0, "%s: %d of %lld failure points crashed, leaked or gave a wrong result", s->name, bad,
            *out_points);
  return bad;
}

static rlx_status_t* compile_model(void) {
  char dir[] = "/tmp/rlx-alloc-sweep-XXXXXX";
  if (!mkdtemp(dir)) return rlx_status_create(RLX_IO_ERROR, "mkdtemp");
  snprintf(model_so, sizeof model_so, "%s/model.so", dir);
  rlx_ctx_t* ctx = rlx_ctx_create();
  rlx_module_t* m = NULL;
  rlx_status_t* st = rlx_script_parse(ctx, model_text, "model.py", &m);
  if (!st) st = rlx_relax_build(ctx, m, NULL, model_so);
  rlx_ctx_free(ctx);
  return st;
}

static void remove_model(void) {
  unlink(model_so);
  char* slash = strrchr(model_so, '/');
  if (slash) {
    *slash = 0;
    rmdir(model_so);
  }
}

static bool in_group(const char* groups, const char* g) {
  size_t n = strlen(g);
  for (const char* p = groups; (p = strstr(p, g)) != NULL; p += n)
    if ((p == groups || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return true;
  return false;
}

int main(int argc, char** argv) {
  long long stride = 1;
  const char* groups = NULL; /* comma-separated; NULL: all */
  const char* onnx_path = NULL;
  int a = 1;
  for (; a < argc && strncmp(argv[a], "--", 2) == 0; a++) {
    if (strcmp(argv[a], "--runtime") == 0) groups = "runtime";
    else if (strcmp(argv[a], "--compiler") == 0) groups = "compiler";
    else if (strcmp(argv[a], "--group") == 0 && a + 1 < argc) groups = argv[++a];
    else if (strcmp(argv[a], "--onnx") == 0 && a + 1 < argc) onnx_path = argv[++a];
    else if (strcmp(argv[a], "--stride") == 0 && a + 1 < argc) stride = atoll(argv[++a]);
    else {
      fprintf(stderr,
              "usage: %s [--group runtime|compiler|onnx|cnn|mlf[,...]] [--runtime | --compiler] [--onnx "
              "SWEEP_CNN.onnx] [--stride S] [SCENARIO [K]]\n",
              argv[0]);
      return 2;
    }
  }
  if (stride < 1) stride = 1;
  const char* only = a < argc ? argv[a] : NULL;
  bool want_group[N_SCENARIOS], any_runtime = false, any_compiler = false;
  for (int i = 0; i < N_SCENARIOS; i++) {
    const scenario_t* s = &scenarios[i];
    want_group[i] = (!groups || in_group(groups, s->group)) && (!only || strcmp(only, s->name) == 0);
    if (want_group[i] && s->needs_onnx && !onnx_path) {
      printf("%s: skipped (no --onnx)\n", s->name);
      want_group[i] = false;
    }
    if (want_group[i] && strcmp(s->group, "runtime") == 0) any_runtime = true;
    else if (want_group[i]) any_compiler = true;
  }
  if (any_runtime) CHECK_OK(compile_model());
  CHECK_OK(rlx_file_read("tests/fuzz/corpus/npy/f32_2x3.npy", &npy_bytes, &npy_len));
  if (onnx_path) CHECK_OK(rlx_file_read(onnx_path, &onnx_bytes, &onnx_len));
  snprintf(work_dir, sizeof work_dir, "/tmp/rlx-alloc-sweep-w-XXXXXX");
  CHECK(mkdtemp(work_dir) != NULL);
  if (any_runtime && onnx_path) CHECK_OK(compile_cnn(onnx_path));
  if (any_compiler) { /* the compiler scenarios' results without failures */
    CHECK_OK(parse_print(&want_parse));
    CHECK_OK(compile_parts(false, &want_parts[0]));
    CHECK_OK(fold_print(&want_fold));
    CHECK_OK(mlf_text(true, &want_mlf_ops));
    if (onnx_path) {
      CHECK_OK(onnx_print(&want_onnx));
      CHECK_OK(compile_parts(true, &want_parts[1]));
      CHECK_OK(mlf_text(false, &want_mlf));
    }
  }
  if (test_failed_) TEST_MAIN_END();
  for (int i = 0; i < N_SCENARIOS; i++) {
    const scenario_t* s = &scenarios[i];
    if (!want_group[i]) continue;
    if (only && a + 1 < argc) { /* one k in the foreground, for a debugger */
      verbose_run = true;
      int rc = run_one(s, atoll(argv[a + 1]), true, NULL);
      CHECK_MSG(rc == CHILD_OK, "code %d", rc);
      continue;
    }
    long long points = 0;
    sweep(s, stride, &points);
  }
  if (any_runtime) remove_model();
  if (cnn_so[0]) unlink(cnn_so);
  rmdir(work_dir);
  free(npy_bytes);
  free(onnx_bytes);
  free(want_parse);
  parts_free(&want_parts[0]);
  parts_free(&want_parts[1]);
  free(want_fold);
  free(want_mlf_ops);
  free(want_onnx);
  free(want_mlf);
  TEST_MAIN_END();
}
