/* rlx bench: times a function (random inputs when none given); --profile then times every
 * kernel call and prints a table (kernel, calls, total ms, ms per run, % of run, GFLOPS where
 * the compiler counted the FLOPs), sorted by time; --profile-plot draws it with python3 and
 * matplotlib (a small script given on its command line), never by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

const char tool_help_bench[] =
    "  rlx bench FILE|MODEL.so [-e FUNC] [-i IN.npy]... [--extern X]... [--lib L.so]... [--repeat N] [--threads N]\n"
    "          [--profile] [--profile-plot FILE.png|svg] [--target T]\n"
    "                                         time a function (random inputs when none given);\n"
    "                                         --profile then runs it --repeat times more with every\n"
    "                                         kernel call timed and prints a table (kernel, calls,\n"
    "                                         total ms, ms/run, %% of run, GFLOPS where the FLOPs are\n"
    "                                         known) sorted by time; --profile-plot also draws it as a\n"
    "                                         bar chart (python3 + matplotlib)\n";

/* Draws the table rows (name, ms per run, GFLOPS or -1) as a horizontal bar chart. */
static const char plot_script[] =
    "import sys\n"
    "import matplotlib\n"
    "matplotlib.use('Agg')\n"
    "import matplotlib.pyplot as plt\n"
    "rows = [l.rstrip('\\n').split('\\t') for l in open(sys.argv[1]) if l.strip()]\n"
    "title = rows[0][0]\n"
    "rows = rows[1:][::-1]\n"
    "names = [r[0] if len(r[0]) <= 60 else r[0][:57] + '...' for r in rows]\n"
    "ms = [float(r[1]) for r in rows]\n"
    "fig, ax = plt.subplots(figsize=(10, 0.3 * len(rows) + 1.5))\n"
    "bars = ax.barh(range(len(rows)), ms, color=['#4c72b0' if float(r[2]) >= 0 else '#999999' for r in rows])\n"
    "ax.set_yticks(range(len(rows)))\n"
    "ax.set_yticklabels(names, fontsize=8)\n"
    "for b, r in zip(bars, rows):\n"
    "    label = '%.3f ms  %s%%' % (float(r[1]), r[3]) + ('  %.1f GFLOPS' % float(r[2]) if float(r[2]) >= 0 else '')\n"
    "    ax.text(b.get_width(), b.get_y() + b.get_height() / 2, ' ' + label, va='center', fontsize=7)\n"
    "ax.set_xlabel('ms per run')\n"
    "ax.set_title(title, fontsize=9)\n"
    "ax.set_xlim(0, max(ms + [1e-9]) * 1.45)\n"
    "fig.tight_layout()\n"
    "fig.savefig(sys.argv[2])\n";

static RLX_MUST_USE rlx_status_t* plot(const char* path, const char* tsv) {
  size_t n = strlen(path);
  if (n < 5 || (strcmp(path + n - 4, ".png") != 0 && strcmp(path + n - 4, ".svg") != 0))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "--profile-plot expects a .png or .svg file, got '%s'", path);
  char dir[] = "/tmp/rlx-prof-XXXXXX";
  if (!mkdtemp(dir)) return rlx_status_create(RLX_IO_ERROR, "cannot create a temporary directory");
  char data[64];
  snprintf(data, sizeof(data), "%s/profile.tsv", dir);
  FILE* f = fopen(data, "w");
  rlx_status_t* st = NULL;
  if (!f || fputs(tsv, f) < 0) st = rlx_status_create(RLX_IO_ERROR, "cannot write '%s'", data);
  if (f && fclose(f) != 0 && !st) st = rlx_status_create(RLX_IO_ERROR, "cannot write '%s'", data);
  /* the system's python3 (where Debian's python3-matplotlib goes) unless RLX_PYTHON says */
  const char* py = getenv("RLX_PYTHON") ? getenv("RLX_PYTHON")
                   : access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3"
                                                           : "python3";
  char* argv[] = {(char*)py, "-c", (char*)plot_script, data, (char*)path, NULL};
  if (!st) st = tool_run_process(argv);
  if (st) st = rlx_status_annotate(st, "drawing %s with %s and matplotlib (Debian: python3-matplotlib)", path, py);
  unlink(data);
  rmdir(dir);
  return st;
}

static RLX_MUST_USE rlx_status_t* profile_print(rlx_vm_t* vm, const char* plot_path) {
  rlx_vm_profile_entry_t* e = NULL;
  int n = 0;
  double run_ms = 0;
  int64_t runs = 0;
  RLX_RETURN_IF_ERROR(rlx_vm_profile_get(vm, &e, &n, &run_ms, &runs));
  double per = runs > 0 ? 1.0 / (double)runs : 1.0;
  double kernels_ms = 0;
  for (int i = 0; i < n; i++) kernels_ms += e[i].total_ms;
  double other = run_ms - kernels_ms;
  if (other < 0) other = 0;
  double whole = kernels_ms + other > 0 ? kernels_ms + other : 1;
  char* tsv_text = NULL;
  size_t tsv_len = 0;
  FILE* tsv = open_memstream(&tsv_text, &tsv_len); /* the plot's data */
  if (!tsv) {
    free(e);
    return rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory (profile table)");
  }
  fprintf(tsv, "rlx bench --profile: %lld runs, %.4f ms per run\n", (long long)runs, run_ms * per);
  printf("profile: runs=%lld run_ms=%.4f\n", (long long)runs, run_ms * per);
  printf("%-72s %7s %10s %10s %6s %8s\n", "kernel", "calls", "total_ms", "ms/run", "pct", "GFLOPS");
  for (int i = 0; i <= n; i++) {
    bool last = i == n;
    const char* name = last ? "(vm_interpreter_and_other)" : e[i].name;
    char lname[160];
    if (!last && e[i].layer) { /* a built-in kernel's call site: the layer it ran */
      snprintf(lname, sizeof(lname), "%s:%s", e[i].name + (strncmp(e[i].name, "rlx.nn.", 7) ? 0 : 7), e[i].layer);
      name = lname;
    }
    double ms = last ? other : e[i].total_ms;
    double gflops = -1;
    if (!last && e[i].flops_per_call > 0 && e[i].total_ms > 0)
      gflops = e[i].flops_per_call * (double)e[i].calls / (e[i].total_ms * 1e6);
    char calls[32], gf[32];
    snprintf(calls, sizeof(calls), last ? "-" : "%lld", last ? 0LL : (long long)e[i].calls);
    snprintf(gf, sizeof(gf), gflops >= 0 ? "%.1f" : "-", gflops);
    double pct = 100.0 * ms / whole;
    printf("%-72s %7s %10.4f %10.4f %6.2f %8s\n", name, calls, ms, ms * per, pct, gf);
    fprintf(tsv, "%s\t%.6f\t%.3f\t%.1f\n", name, ms * per, gflops, pct);
  }
  free(e);
  fclose(tsv);
  rlx_status_t* st = plot_path ? plot(plot_path, tsv_text) : NULL;
  free(tsv_text);
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

RLX_MUST_USE rlx_status_t* tool_cmd_bench(const options_t* o) {
  session_t s;
  rlx_status_t* st = tool_session_prepare(o, true, &s);
  double* times = calloc((size_t)o->repeat, sizeof(double));
  if (!st && !times) st = rlx_status_create(RLX_OUT_OF_MEMORY, "bench");
  /* Warm up: at least two calls and at least ~100 ms, so caches and threads are settled. */
  double t0 = now_ms();
  for (int w = 0; !st && (w < 2 || now_ms() - t0 < 100) && w < 1000; w++) st = tool_session_call(&s);
  for (int r = 0; !st && r < o->repeat; r++) {
    double a = now_ms();
    st = tool_session_call(&s);
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
    for (int r = 0; !st && r < o->repeat; r++) st = tool_session_call(&s);
    if (!st) st = profile_print(s.vm, o->profile_plot);
  }
  free(times);
  tool_session_free(&s);
  return st;
}

