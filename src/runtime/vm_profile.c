/* VM profiling: per packed function call counts and time (the hooks are in vm_interp.c's
 * call_packed and rlx_vm_invoke), FLOP counts from the model's table, and the sorted figures
 * for `rlx bench --profile`. */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

#include "kernels/nn_kernels.h"

#include "vm_internal.h"

int64_t rlx_vm_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void rlx_vm_prof_free(rlx_vm_prof_t* p) {
  if (!p) return;
  free(p->calls);
  free(p->ns);
  for (int64_t i = 0; p->site_label && i < p->n_sites; i++) free(p->site_label[i]);
  free(p->site_calls);
  free(p->site_ns);
  free(p->site_flops);
  free(p->site_label);
  free(p);
}

bool rlx_vm_prof_by_site(const rlx_vm_t* vm, int f) {
  const rlx_vm_func_t* fn = &vm->exec->funcs.data[f];
  return fn->kind == RLX_VM_FUNC_PACKED && vm->targets[f].packed && strncmp(fn->name, "rlx.nn.", 7) == 0;
}

/* "(1,4,56,56,16)->(1,8,28,28,16),3x3": input and output shapes, the window of a
 * convolution's packed weight, 3x3F2 / 3x3F4 for Winograd, every part's for a concat of
 * convolutions ("1x1+3x3F4"); no spaces: the profile table splits on white space. */
static char* site_label(const DLTensor* const* t, int nt, bool concat) {
  char buf[160];
  int o = 0;
  for (int k = 0; k < 2 && nt > 0; k++) {
    const DLTensor* d = t[k ? nt - 1 : 0];
    o += snprintf(buf + o, sizeof(buf) - (size_t)o, "%s(", k ? "->" : "");
    for (int i = 0; i < d->ndim && o < (int)sizeof(buf) - 24; i++)
      o += snprintf(buf + o, sizeof(buf) - (size_t)o, "%s%lld", i ? "," : "", (long long)d->shape[i]);
    o += snprintf(buf + o, sizeof(buf) - (size_t)o, ")");
    if (o >= (int)sizeof(buf) - 24) break;
  }
  /* a concat of convolutions (x, (w, bias) per part, y): every part's window */
  for (int i = 1; concat && i + 1 < nt && o < (int)sizeof(buf) - 24; i += 2) {
    const DLTensor* w = t[i];
    if (w->ndim == 6)
      o += snprintf(buf + o, sizeof(buf) - (size_t)o, "%s%lldx%lld", i == 1 ? "," : "+", (long long)w->shape[2],
                    (long long)w->shape[3]);
    else if (w->ndim == 5)
      o += snprintf(buf + o, sizeof(buf) - (size_t)o, "%s3x3F%d", i == 1 ? "," : "+", w->shape[0] == 16 ? 2 : 4);
  }
  if (concat && nt > 4) return strdup(buf);
  if (nt > 2 && (t[1]->ndim == 6 || t[1]->ndim == 4) && o < (int)sizeof(buf) - 24)
    snprintf(buf + o, sizeof(buf) - (size_t)o, ",%lldx%lld", (long long)t[1]->shape[t[1]->ndim == 6 ? 2 : 1],
             (long long)t[1]->shape[t[1]->ndim == 6 ? 3 : 2]);
  else if (nt > 2 && t[1]->ndim == 5 && o < (int)sizeof(buf) - 24)
    snprintf(buf + o, sizeof(buf) - (size_t)o, ",3x3F%d", t[1]->shape[0] == 16 ? 2 : 4);
  return strdup(buf);
}

void rlx_vm_prof_site(rlx_vm_t* vm, int64_t pc, int f, const rlx_vmv_t* args, int n, int64_t ns) {
  rlx_vm_prof_t* p = vm->prof;
  if (!p->site_calls) {
    int64_t m = vm->exec->instrs.len;
    p->site_calls = calloc((size_t)m, sizeof(int64_t));
    p->site_ns = calloc((size_t)m, sizeof(int64_t));
    p->site_flops = calloc((size_t)m, sizeof(double));
    p->site_label = calloc((size_t)m, sizeof(char*));
    p->n_sites = m;
    if (!p->site_calls || !p->site_ns || !p->site_flops || !p->site_label) {
      free(p->site_calls), free(p->site_ns), free(p->site_flops), free(p->site_label);
      p->site_calls = NULL, p->site_ns = NULL, p->site_flops = NULL, p->site_label = NULL;
      p->n_sites = 0;
      return; /* the per-function figures still count the call */
    }
  }
  if (pc < 0 || pc >= p->n_sites) return;
  if (p->site_calls[pc] == 0) {
    const DLTensor* t[64];
    int nt = 0;
    for (int i = 0; i < n && nt < 64; i++)
      if (args[i].kind == RLX_VMV_TENSOR) t[nt++] = &args[i].u.t->dl;
    p->site_flops[pc] = rlx_nn_kernel_flops(vm->exec->funcs.data[f].name, t, nt);
    p->site_label[pc] = site_label(t, nt, strstr(vm->exec->funcs.data[f].name, "concat") != NULL);
  }
  p->site_calls[pc]++;
  p->site_ns[pc] += ns;
}

RLX_MUST_USE rlx_status_t* rlx_vm_profile_enable(rlx_vm_t* vm, bool on) {
  if (!vm) return rlx_status_create(RLX_INVALID_ARGUMENT, "rlx_vm_profile_enable: NULL vm");
  rlx_vm_prof_free(vm->prof);
  vm->prof = NULL;
  if (!on) return NULL;
  size_t n = (size_t)(vm->exec->funcs.len > 0 ? vm->exec->funcs.len : 1);
  rlx_vm_prof_t* p = calloc(1, sizeof(*p));
  if (p) {
    p->calls = calloc(n, sizeof(int64_t));
    p->ns = calloc(n, sizeof(int64_t));
  }
  if (!p || !p->calls || !p->ns) {
    rlx_vm_prof_free(p);
    return rlx_status_create(RLX_OUT_OF_MEMORY, "profiling counters");
  }
  vm->prof = p;
  return NULL;
}

/* FLOPs of symbol in the model's table ("SYMBOL FLOPS\n" lines); -1 when absent. */
static double table_flops(const char* table, const char* symbol) {
  if (!table) return -1;
  size_t n = strlen(symbol);
  for (const char* p = table; *p;) {
    const char* eol = strchr(p, '\n');
    if (!eol) eol = p + strlen(p);
    if ((size_t)(eol - p) > n && strncmp(p, symbol, n) == 0 && p[n] == ' ') return strtod(p + n + 1, NULL);
    p = *eol ? eol + 1 : eol;
  }
  return -1;
}

static int by_time(const void* a, const void* b) {
  const rlx_vm_profile_entry_t *x = a, *y = b;
  return (x->total_ms < y->total_ms) - (x->total_ms > y->total_ms);
}

RLX_MUST_USE rlx_status_t* rlx_vm_profile_get(const rlx_vm_t* vm, rlx_vm_profile_entry_t** out_entries, int* out_n,
                                              double* out_run_ms, int64_t* out_runs) {
  if (!vm || !out_entries || !out_n) return rlx_status_create(RLX_INVALID_ARGUMENT, "rlx_vm_profile_get: NULL argument");
  if (!vm->prof) return rlx_status_create(RLX_INVALID_ARGUMENT, "profiling is off (rlx_vm_profile_enable)");
  const char* table = NULL;
  if (vm->model && rlx_library_has_symbol(vm->model, "rlx_vm_kernel_flops")) {
    void* sym = NULL;
    rlx_status_t* st = rlx_library_get_symbol(vm->model, "rlx_vm_kernel_flops", &sym);
    if (st) rlx_status_free(st);
    else table = sym;
  }
  int len = vm->exec->funcs.len;
  const rlx_vm_prof_t* pr = vm->prof;
  int64_t sites = 0;
  for (int64_t i = 0; i < pr->n_sites; i++) sites += pr->site_calls[i] > 0;
  rlx_vm_profile_entry_t* e = calloc((size_t)(len + sites > 0 ? len + sites : 1), sizeof(*e));
  if (!e) return rlx_status_create(RLX_OUT_OF_MEMORY, "profile");
  int n = 0;
  for (int64_t i = 0; i < pr->n_sites; i++) {
    if (pr->site_calls[i] == 0) continue;
    const rlx_vm_func_t* fn = &vm->exec->funcs.data[vm->exec->instrs.data[i].func];
    e[n].name = fn->name;
    e[n].symbol = fn->symbol ? fn->symbol : fn->name;
    e[n].calls = pr->site_calls[i];
    e[n].total_ms = (double)pr->site_ns[i] * 1e-6;
    e[n].flops_per_call = pr->site_flops[i];
    e[n].layer = pr->site_label[i];
    n++;
  }
  for (int f = 0; f < len; f++) {
    if (vm->prof->calls[f] == 0 || (sites > 0 && rlx_vm_prof_by_site(vm, f))) continue;
    const rlx_vm_func_t* fn = &vm->exec->funcs.data[f];
    e[n].name = fn->name;
    e[n].symbol = fn->symbol ? fn->symbol : fn->name;
    e[n].builtin = vm->targets[f].builtin != NULL;
    e[n].calls = vm->prof->calls[f];
    e[n].total_ms = (double)vm->prof->ns[f] * 1e-6;
    e[n].flops_per_call = e[n].builtin ? -1 : table_flops(table, e[n].symbol);
    n++;
  }
  qsort(e, (size_t)n, sizeof(*e), by_time);
  *out_entries = e;
  *out_n = n;
  if (out_run_ms) *out_run_ms = (double)vm->prof->invoke_ns * 1e-6;
  if (out_runs) *out_runs = vm->prof->invokes;
  return NULL;
}
