/* Two reports of the rlx tool:
 *   - `rlx bench --profile [--profile-plot FILE.png|svg]`: the VM's per-kernel profile as a
 *     table (kernel, calls, total ms, ms per run, % of run, GFLOPS where the compiler counted
 *     the FLOPs), sorted by time; the plot is drawn by python3 with matplotlib (a small
 *     script given on its command line), never by hand;
 *   - `rlx compile --stats` and RLX_SCHED_DEBUG=1: the blocks the default schedule left
 *     without their real schedule, and why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"
#include "transform/pass.h"

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

static rlx_status_t* plot(const char* path, rlx_strbuf_t* tsv) {
  size_t n = strlen(path);
  if (n < 5 || (strcmp(path + n - 4, ".png") != 0 && strcmp(path + n - 4, ".svg") != 0))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "--profile-plot expects a .png or .svg file, got '%s'", path);
  char dir[] = "/tmp/rlx-prof-XXXXXX";
  if (!mkdtemp(dir)) return rlx_status_create(RLX_IO_ERROR, "cannot create a temporary directory");
  char data[64];
  snprintf(data, sizeof(data), "%s/profile.tsv", dir);
  rlx_status_t* st = rlx_file_write(data, rlx_strbuf_cstr(tsv), tsv->len);
  /* the system's python3 (where Debian's python3-matplotlib goes) unless RLX_PYTHON says */
  const char* py = getenv("RLX_PYTHON") ? getenv("RLX_PYTHON")
                   : access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3"
                                                           : "python3";
  char* argv[] = {(char*)py, "-c", (char*)plot_script, data, (char*)path, NULL};
  char* log = NULL;
  if (!st) st = rlx_process_run(argv, &log);
  if (st) st = rlx_status_annotate(st, "drawing %s with %s and matplotlib (Debian: python3-matplotlib)", path, py);
  free(log);
  unlink(data);
  rmdir(dir);
  return st;
}

rlx_status_t* tool_profile_print(rlx_vm_t* vm, const char* plot_path) {
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
  rlx_strbuf_t tsv = {0};
  rlx_strbuf_printf(&tsv, "rlx bench --profile: %lld runs, %.4f ms per run\n", (long long)runs, run_ms * per);
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
    rlx_strbuf_printf(&tsv, "%s\t%.6f\t%.3f\t%.1f\n", name, ms * per, gflops, pct);
  }
  free(e);
  rlx_status_t* st = plot_path ? plot(plot_path, &tsv) : NULL;
  rlx_strbuf_free(&tsv);
  return st;
}

rlx_status_t* tool_sched_report(rlx_ctx_t* ctx, rlx_module_t* m, FILE* out) {
  rlx_pipeline_options_t po = {false, "fuse_ops"};
  rlx_module_t* fused = NULL;
  RLX_RETURN_IF_ERROR(rlx_pipeline_run(ctx, m, &po, &fused));
  rlx_module_t* sched = NULL;
  rlx_sched_func_report_t* reps = NULL;
  int n = 0;
  RLX_RETURN_IF_ERROR(rlx_pass_default_schedule_report(ctx, fused, &sched, &n, &reps));
  int blocks = 0;
  for (int i = 0; i < n; i++) blocks += reps[i].report.n;
  fprintf(out, "schedule: %d block(s) left unscheduled in %d function(s)\n", blocks, n);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < reps[i].report.n; k++) {
      const rlx_sched_miss_t* ms = &reps[i].report.misses[k];
      fprintf(out, "unscheduled %s block %s (%s, %lld iterations): %s\n", reps[i].func, ms->block, ms->kind,
              (long long)ms->work, ms->reason);
    }
  return NULL;
}
