/* External code linked into a model (`--extern X`) and compile-time resolution of every
 * name a module calls through R.call_packed / R.call_dps_packed.
 *
 * An extern is an object (.o), a static archive (.a), or a source: C (.c, $CC), C++
 * (.cc/.cpp/.cxx, $CXX) or CUDA (.cu, $NVCC), compiled with `-c -fPIC -O3` and rlx's include
 * flags (rlx_extern_include_dir: rlx/ headers and the TVM-compatible tvm/runtime/ headers) into the
 * compile cache, keyed by the hash of the source, the compiler, the flags and rlx's headers.
 * The global symbols each object defines are listed with `nm` (binutils, always beside the
 * compiler); two externs defining the same symbol is an error naming both files.
 *
 * Resolution (rlx_extern_resolve) looks for each called name in this order: the model's
 * externs, the --lib libraries, the VM builtins, the global registry, then the names
 * deferred with --defer-extern (promised by the program that loads the model). A name
 * found nowhere is an error naming it, the Relax function calling it and every place
 * searched.
 */
#ifndef RLX_BUILD_EXTERNS_H
#define RLX_BUILD_EXTERNS_H

#include "../ir/ir.h"
#include "rlx/status.h"

typedef enum {
  RLX_EXTERN_OBJECT,  /* .o */
  RLX_EXTERN_ARCHIVE, /* .a */
  RLX_EXTERN_C,       /* .c */
  RLX_EXTERN_CXX,     /* .cc .cpp .cxx */
  RLX_EXTERN_CUDA     /* .cu */
} rlx_extern_kind_t;

typedef struct {
  char* path;      /* as given (heap) */
  rlx_extern_kind_t kind;
  char* object;    /* the object or archive to link (heap): path itself, or the compiled source */
  int n_symbols;
  char** symbols;  /* global symbols it defines (heap) */
} rlx_extern_file_t;

/* The externs of one build, in the order given. Zero-initialize; free with
 * rlx_extern_set_free. */
typedef struct {
  int n;
  rlx_extern_file_t* files;
  bool has_cxx;  /* link with the C++ runtime */
  bool has_cuda; /* link with the CUDA runtime */
} rlx_extern_set_t;

/* The kind of an extern from its extension; INVALID_ARGUMENT naming the file and the
 * extensions accepted otherwise. */
RLX_MUST_USE rlx_status_t* rlx_extern_kind_of(const char* path, rlx_extern_kind_t* out_kind);

/* Adds one extern: checks it exists, compiles a source for the context's target into its
 * kernel cache (errors show the compiler's output, a .cu without nvcc says so), lists its
 * symbols and checks them against the externs already added. */
RLX_MUST_USE rlx_status_t* rlx_extern_set_add(rlx_ctx_t* ctx, rlx_extern_set_t* s, const char* path);

/* The extern defining symbol, or NULL. */
const rlx_extern_file_t* rlx_extern_set_find(const rlx_extern_set_t* s, const char* symbol);

void rlx_extern_set_free(rlx_extern_set_t* s);

/* The directory holding rlx/ headers and tvm/runtime/ headers: $RLX_INCLUDE_DIR, else the source
 * tree's include/ this library was built from. Static string. */
const char* rlx_extern_include_dir(void);

/* The directory holding the CUDA runtime's libcudart.so, written into buf: the toolkit of nvcc
 * ($NVCC or nvcc on $PATH: its ../lib64, ../lib, ../targets/x86_64-linux/lib), then $CUDA_HOME,
 * then the system's library directory. NOT_FOUND, naming where it looked, when none has it. */
RLX_MUST_USE rlx_status_t* rlx_extern_cuda_lib_dir(char* buf, size_t n);

/* Where names are looked up, besides the model's externs. */
typedef struct {
  int n_libs;
  const char* const* libs;  /* --lib shared objects */
  int n_defer;
  const char* const* defer; /* --defer-extern names */
} rlx_extern_lookup_t;

/* Every name m's Relax functions call as an ExternFunc, each once, with the first function
 * calling it. Arrays in the arena. */
int rlx_extern_calls(rlx_ctx_t* ctx, const rlx_module_t* m, const char*** out_names, const char*** out_callers);

/* Resolves every extern call of m (see the file comment). When out_missing is NULL a
 * missing name is a NOT_FOUND error listing every missing name with its caller and the
 * places searched; otherwise the missing names are returned (arena array) and the call
 * succeeds. */
RLX_MUST_USE rlx_status_t* rlx_extern_resolve(rlx_ctx_t* ctx, const rlx_module_t* m, const rlx_extern_set_t* externs,
                                              const rlx_extern_lookup_t* lookup, const char*** out_missing, int* out_n_missing);

#endif
