/* VM profiling: per packed function call counts and time (the hooks are in vm_interp.c's
 * call_packed and rlx_vm_invoke), FLOP counts from the model's table, and the sorted figures
 * for `rlx bench --profile`. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
  free(p);
}

rlx_status_t* rlx_vm_profile_enable(rlx_vm_t* vm, bool on) {
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

rlx_status_t* rlx_vm_profile_get(const rlx_vm_t* vm, rlx_vm_profile_entry_t** out_entries, int* out_n,
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
  rlx_vm_profile_entry_t* e = calloc((size_t)(len > 0 ? len : 1), sizeof(*e));
  if (!e) return rlx_status_create(RLX_OUT_OF_MEMORY, "profile");
  int n = 0;
  for (int f = 0; f < len; f++) {
    if (vm->prof->calls[f] == 0) continue;
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
