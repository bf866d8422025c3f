/* Internals of the VM shared by vm_interp.c (loading, interpreting) and vm_builtins.c. */
#ifndef RLX_RUNTIME_VM_INTERNAL_H
#define RLX_RUNTIME_VM_INTERNAL_H

#include "rlx/vm.h"
#include "vm_exec.h"

/* A register value. Registers own their values (tensors, shapes and tuples are
 * refcounted; strings point into the executable's constants). */
typedef enum {
  RLX_VMV_NONE,
  RLX_VMV_INT,
  RLX_VMV_FLOAT,
  RLX_VMV_DTYPE,
  RLX_VMV_STR,
  RLX_VMV_TENSOR,
  RLX_VMV_SHAPE,
  RLX_VMV_TUPLE,
  RLX_VMV_FUNC
} rlx_vmv_kind_t;

typedef struct rlx_vm_shape {
  int refcount;
  int ndim;
  int64_t dims[];
} rlx_vm_shape_t;

struct rlx_vm_tuple;

typedef struct {
  rlx_vmv_kind_t kind;
  union {
    int64_t i;
    double f;
    DLDataType dtype;
    const char* s;
    rlx_ndarray_t* t;
    rlx_vm_shape_t* shape;
    struct rlx_vm_tuple* tuple;
    int func;
  } u;
} rlx_vmv_t;

typedef struct rlx_vm_tuple {
  int refcount;
  int n;
  rlx_vmv_t fields[];
} rlx_vm_tuple_t;

/* A builtin: args are borrowed; *out starts as NONE and receives an owned value. */
typedef rlx_status_t* (*rlx_vm_builtin_fn_t)(rlx_vm_t* vm, rlx_vmv_t* args, int n, rlx_vmv_t* out);

/* Where a function index of the executable leads once resolved. */
typedef struct {
  rlx_vm_builtin_fn_t builtin; /* a VM builtin, or NULL */
  rlx_packed_fn_t packed;      /* a packed function, or NULL */
  void* resource;
} rlx_vm_target_t;

/* The VM's storage pool (vm_pool.c). */
typedef struct rlx_vm_pool rlx_vm_pool_t;
rlx_vm_pool_t* rlx_vm_pool_create(void);
/* Drops the VM's reference (cached blocks are freed; blocks in use stay valid). */
void rlx_vm_pool_release(rlx_vm_pool_t* p);
/* An allocator over the pool (each block holds a reference to it). */
rlx_allocator_t rlx_vm_pool_allocator(rlx_vm_pool_t* p);

struct rlx_vm {
  rlx_vm_exec_t* exec;
  rlx_vm_pool_t* pool; /* storages and fresh tensors */
  rlx_library_t* model; /* may be NULL */
  int n_libs;
  rlx_library_t** libs;
  rlx_vm_target_t* targets; /* per function index (packed ones) */
  rlx_vmv_t* consts;        /* per constant index */
  int depth;                /* call depth (recursion guard) */
  struct rlx_vm_prof* prof; /* per-function timings while profiling, else NULL (vm_profile.c) */
};

/* Profiling counters (vm_profile.c): per function index of the executable, the calls and the
 * nanoseconds spent in them; and the wall time of the invokes. */
typedef struct rlx_vm_prof {
  int64_t* calls;
  int64_t* ns;
  int64_t invoke_ns;
  int64_t invokes;
  /* Per call instruction (index into the executable's instructions) of the runtime's
   * built-in kernels (rlx.nn.*), which serve every layer of a network: calls, time, FLOPs
   * of one call and a label of the layer ("(1,4,56,56,16)->(1,8,28,28,16),3x3"), set at
   * the site's first call. */
  int64_t n_sites;
  int64_t* site_calls;
  int64_t* site_ns;
  double* site_flops;
  char** site_label;
} rlx_vm_prof_t;

/* Records one timed call of function f at instruction pc (vm_profile.c). */
void rlx_vm_prof_site(rlx_vm_t* vm, int64_t pc, int f, const rlx_vmv_t* args, int n, int64_t ns);
/* True when calls of f are profiled per call site (the runtime's rlx.nn.* kernels). */
bool rlx_vm_prof_by_site(const rlx_vm_t* vm, int f);

/* Monotonic clock in nanoseconds. */
int64_t rlx_vm_now_ns(void);
/* Frees the profiling counters (rlx_vm_free). */
void rlx_vm_prof_free(rlx_vm_prof_t* p);

rlx_vmv_t rlx_vmv_retain(rlx_vmv_t v);
void rlx_vmv_release(rlx_vmv_t* v);
RLX_MUST_USE rlx_status_t* rlx_vm_shape_new(int ndim, const int64_t* dims, rlx_vm_shape_t** out);
const char* rlx_vmv_kind_name(rlx_vmv_kind_t k);

/* String builtins (vm_strings.c). */
RLX_MUST_USE rlx_status_t* rlx_vm_b_string_normalizer(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out);
RLX_MUST_USE rlx_status_t* rlx_vm_b_string_from(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out);
RLX_MUST_USE rlx_status_t* rlx_vm_b_string_to(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out);
RLX_MUST_USE rlx_status_t* rlx_vm_b_string_index(rlx_vm_t* vm, rlx_vmv_t* a, int n, rlx_vmv_t* out);

/* The builtin called name, or NULL. */
rlx_vm_builtin_fn_t rlx_vm_builtin_lookup(const char* name);

/* Calls function index f of the executable with args (borrowed); *out receives an owned
 * value. Used by the interpreter and by builtins that call kernels. */
RLX_MUST_USE rlx_status_t* rlx_vm_call_index(rlx_vm_t* vm, int f, rlx_vmv_t* args, int n, rlx_vmv_t* out);

#endif
