/* rlx — runtime API: tensors, packed functions, the global function registry, kernel
 * libraries and .npy files. Usable on its own: librlx_runtime contains no compiler code.
 *
 * Ownership in one paragraph: an rlx_ndarray_t is refcounted; every function that hands
 * one out (`out_arr`) gives the caller one reference, released with rlx_ndarray_release.
 * An rlx_library_t is owned by whoever loaded it and freed with rlx_library_free. Every
 * fallible call returns an rlx_status_t* (NULL = ok) that the caller frees.
 *
 * Thread safety: the registry and the last-error buffer (thread-local) are safe from any
 * thread; an ndarray's refcount is atomic but its contents are not guarded.
 */
#ifndef RLX_RUNTIME_H
#define RLX_RUNTIME_H

#include <dlpack/dlpack.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rlx/abi.h"
#include "rlx/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================================
 * Last error and calling packed functions
 * ==================================================================================== */

/* Sets the calling thread's last error message (copied; truncated at 4 KiB). Called by
 * packed functions before they return nonzero. Both names write the same buffer:
 * TVMAPISetLastError is there so that kernels written for TVM's C ABI link unchanged. */
void RLXAPISetLastError(const char* msg);
void TVMAPISetLastError(const char* msg);

/* The calling thread's last error message ("" when none). Valid until the next
 * RLXAPISetLastError on this thread. */
const char* rlx_last_error(void);

/* Calls `fn(args, codes, n, ret, ret_code, resource)`. The last error is cleared before
 * the call; a nonzero return becomes an RLX_INVALID_ARGUMENT status carrying the message
 * the function set (or a generic one naming the return value when it set none). `ret`
 * and `ret_code` may be NULL when the caller expects no return value. */
RLX_MUST_USE rlx_status_t* rlx_packed_call(rlx_packed_fn_t fn, void* resource, rlx_value_t* args,
                                           int* codes, int n, rlx_value_t* ret, int* ret_code);

/* Calls a packed function whose arguments are all tensors (destination-passing kernels:
 * inputs then outputs), passing each as RLX_ARG_DLTENSOR. The return value is ignored.
 * Errors as rlx_packed_call. */
RLX_MUST_USE rlx_status_t* rlx_packed_call_tensors(rlx_packed_fn_t fn, void* resource,
                                                   DLTensor** tensors, int n);

/* ======================================================================================
 * Data types and shapes
 * ==================================================================================== */

/* Writes the name of a dtype into buf and returns buf: "float32", "int64", "uint8",
 * "float16", "bfloat16", "bool" (uint1), "handle", and "float32x4" for 4 lanes. A code
 * rlx does not know prints as "unknown<code>_<bits>". */
const char* rlx_dldtype_str(DLDataType dtype, char buf[32]);

/* Parses a dtype name as printed by rlx_dldtype_str; also accepts "int" (int32), "float"
 * (float32) and "uint" (uint32). INVALID_ARGUMENT names the text when it is not a dtype. */
RLX_MUST_USE rlx_status_t* rlx_dldtype_parse(const char* s, DLDataType* out_dtype);

/* True when the two dtypes are the same (code, bits and lanes). */
static inline bool rlx_dldtype_equal(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

/* Shorthand constructor: rlx_dldtype(kDLFloat, 32, 1). */
static inline DLDataType rlx_dldtype(uint8_t code, uint8_t bits, uint16_t lanes) {
  DLDataType t;
  t.code = code;
  t.bits = bits;
  t.lanes = lanes;
  return t;
}

/* Bytes one element takes in memory: (bits * lanes + 7) / 8; bool (uint1) takes 1. */
size_t rlx_dldtype_bytes(DLDataType dtype);

/* Writes a shape as Python prints a tuple into buf (capacity n, always NUL-terminated,
 * truncated if short) and returns buf: "()", "(5,)", "(2, 3)". */
const char* rlx_shape_str(int ndim, const int64_t* shape, char* buf, size_t n);

/* ======================================================================================
 * NDArray
 * ==================================================================================== */

/* Allocator for tensor data. alloc returns memory aligned to `align` bytes (a power of
 * two) or NULL; free releases what alloc returned. `self` is passed back to both. */
typedef struct {
  void* (*alloc)(void* self, size_t bytes, size_t align);
  void (*free)(void* self, void* p);
  void* self;
} rlx_allocator_t;

/* The default allocator: posix_memalign / free. Static, never freed. */
const rlx_allocator_t* rlx_allocator_default(void);

/* The most bytes one tensor created by rlx_ndarray_create may take: $RLX_MAX_ALLOC read
 * once ("1000000", "64k", "512M", "2G"), by default three quarters of physical memory, so
 * that a huge shape is an error instead of a process the OS kills when it touches memory
 * it overcommitted. */
uint64_t rlx_max_alloc(void);

/* Data alignment used by rlx_ndarray_create, in bytes. */
#define RLX_NDARRAY_ALIGN 64

/* A refcounted CPU tensor. `dl` comes first, so an rlx_ndarray_t* may be passed wherever
 * a DLTensor* is expected (and as an RLX_ARG_NDARRAY handle). dl.shape points into the
 * ndarray's own storage; dl.strides is NULL (compact, row-major); dl.byte_offset is 0.
 * Callers read dl and may write through dl.data; every other field is private. */
typedef struct rlx_ndarray {
  DLTensor dl;
  /* private */
  int refcount;
  void* alloc_ptr;           /* data to free with `allocator`; NULL when not owned */
  rlx_allocator_t allocator; /* copied at creation */
  struct rlx_ndarray* base;  /* a view keeps its base alive; NULL otherwise */
} rlx_ndarray_t;

/* Creates a tensor of the given shape and dtype with uninitialized data aligned to
 * RLX_NDARRAY_ALIGN bytes, allocated with `alloc` (NULL = rlx_allocator_default(); the
 * struct is copied, `alloc->self` must outlive the tensor). `shape` is copied. The caller
 * owns the one reference in *out_arr. INVALID_ARGUMENT for a negative ndim or dimension,
 * zero bits or lanes, or a size that overflows; OUT_OF_MEMORY when allocation fails or
 * the data would take more than rlx_max_alloc() bytes. */
RLX_MUST_USE rlx_status_t* rlx_ndarray_create(int ndim, const int64_t* shape, DLDataType dtype,
                                              const rlx_allocator_t* alloc, rlx_ndarray_t** out_arr);

/* Wraps external CPU memory (`data`, at least nbytes long) as a tensor without taking
 * ownership: releasing the tensor never frees `data`, which must outlive it. `shape` is
 * copied. Errors as rlx_ndarray_create. */
RLX_MUST_USE rlx_status_t* rlx_ndarray_from_data(void* data, int ndim, const int64_t* shape,
                                                 DLDataType dtype, rlx_ndarray_t** out_arr);

/* A tensor of a new shape and dtype over base's memory, starting `byte_offset` bytes
 * into it (a reshape, or a tensor carved out of a storage buffer). The view holds a
 * reference to base. INVALID_ARGUMENT when the view does not fit inside base. */
RLX_MUST_USE rlx_status_t* rlx_ndarray_view(rlx_ndarray_t* base, int ndim, const int64_t* shape,
                                            DLDataType dtype, uint64_t byte_offset,
                                            rlx_ndarray_t** out_arr);

/* Adds a reference and returns arr (NULL passes through). */
rlx_ndarray_t* rlx_ndarray_retain(rlx_ndarray_t* arr);

/* Drops a reference; the last one frees the tensor, its owned data, and its reference to
 * its base. NULL is ignored. */
void rlx_ndarray_release(rlx_ndarray_t* arr);

/* Number of elements (1 for a 0-d tensor). */
int64_t rlx_ndarray_numel(const DLTensor* t);

/* Bytes of data: numel * rlx_dldtype_bytes(dtype). */
size_t rlx_ndarray_nbytes(const DLTensor* t);

/* Copies src's data into dst. Both must be CPU, compact (strides NULL or row-major) and
 * have the same dtype and shape; INVALID_ARGUMENT naming both otherwise. */
RLX_MUST_USE rlx_status_t* rlx_ndarray_copy_from(DLTensor* dst, const DLTensor* src);

/* String tensors (ONNX tensor(string)): an NDArray of dtype handle (kDLOpaqueHandle, 64 bits)
 * whose elements are NUL-terminated `const char*` pointing into the tensor's own allocation
 * (one block: the pointer table, then the bytes). Immutable: make a new one rather than
 * writing into it, and never copy one with rlx_ndarray_copy_from (the pointers would still
 * point into the source). rlx_ndarray_strings_create copies strs[i] (lens[i] bytes each, in
 * row-major order over shape) into a new one; the caller owns the reference. */
RLX_MUST_USE rlx_status_t* rlx_ndarray_strings_create(int ndim, const int64_t* shape, const char* const* strs, const size_t* lens,
                                                      rlx_ndarray_t** out_arr);
/* True for a string tensor's dtype (see above). */
bool rlx_ndarray_is_strings(const DLTensor* t);

/* Fills a CPU tensor with deterministic pseudo-random values from `seed` (for benchmarks
 * and tests): floats uniform in [-1, 1), signed ints in [-8, 8), unsigned ints in
 * [0, 16), bool 0 or 1. UNSUPPORTED for other dtypes. */
RLX_MUST_USE rlx_status_t* rlx_ndarray_fill_random(DLTensor* t, uint64_t seed);

/* ======================================================================================
 * Registry of global packed functions (thread-safe; lives for the whole process)
 * ==================================================================================== */

/* Registers `fn` under `name` (copied) with `resource` passed back on every call.
 * INVALID_ARGUMENT when the name is taken and override is false. */
RLX_MUST_USE rlx_status_t* rlx_registry_register(const char* name, rlx_packed_fn_t fn, void* resource,
                                                 bool override);

/* Looks a function up. NOT_FOUND names the function. Either output may be NULL, which
 * makes this a membership test. */
RLX_MUST_USE rlx_status_t* rlx_registry_get(const char* name, rlx_packed_fn_t* out_fn,
                                            void** out_resource);

/* Removes a registration; NOT_FOUND when there is none. */
RLX_MUST_USE rlx_status_t* rlx_registry_remove(const char* name);

/* ======================================================================================
 * Kernel libraries (shared objects holding packed functions)
 * ==================================================================================== */

typedef struct rlx_library rlx_library_t;

/* Loads a shared object with dlopen(RTLD_NOW | RTLD_LOCAL); the caller owns *out_lib.
 * NOT_FOUND when a path with a '/' does not exist; IO_ERROR carrying dlerror() and the
 * path for any other failure (missing symbols, wrong architecture). Undefined symbols in
 * the library (RLXAPISetLastError, ...) resolve against librlx_runtime when it is
 * loaded globally, as it is in any program linked against it. */
RLX_MUST_USE rlx_status_t* rlx_library_load(const char* path, rlx_library_t** out_lib);

/* Looks up a packed function. NOT_FOUND names the symbol and the library path. */
RLX_MUST_USE rlx_status_t* rlx_library_get_function(rlx_library_t* lib, const char* symbol,
                                                    rlx_packed_fn_t* out_fn);

/* Looks up any symbol (data such as embedded bytecode or constants). NOT_FOUND as above. */
RLX_MUST_USE rlx_status_t* rlx_library_get_symbol(rlx_library_t* lib, const char* symbol, void** out_ptr);

/* True when the library exports `symbol`. */
bool rlx_library_has_symbol(rlx_library_t* lib, const char* symbol);

/* The path the library was loaded from; owned by the library. */
const char* rlx_library_path(const rlx_library_t* lib);

/* Sets the number of threads the library's kernels use, by calling its exported
 * `void __rlx_set_num_threads(int)` (generated OpenMP kernels export it); does nothing
 * when the library has none. */
void rlx_library_set_num_threads(rlx_library_t* lib, int n);

/* Unloads the library. Function pointers taken from it become invalid. NULL is ignored. */
void rlx_library_free(rlx_library_t* lib);

/* ======================================================================================
 * .npy files (NumPy format 1.0 / 2.0 / 3.0 on read, written as 1.0 or 2.0)
 * ==================================================================================== */

/* Reads a .npy file into a new tensor (caller owns the reference). Supports bool,
 * int8/16/32/64, uint8/16/32/64, float16/32/64, little-endian, C order. Errors name the
 * file: IO_ERROR when it cannot be read; PARSE_ERROR for a bad magic, malformed header
 * or truncated data; UNSUPPORTED for fortran_order True, big-endian or other dtypes. */
RLX_MUST_USE rlx_status_t* rlx_npy_load(const char* path, rlx_ndarray_t** out_arr);

/* As rlx_npy_load, from `len` bytes in memory; `name` is used in error messages. */
RLX_MUST_USE rlx_status_t* rlx_npy_load_from_memory(const void* data, size_t len, const char* name,
                                                    rlx_ndarray_t** out_arr);

/* Writes a compact CPU tensor to `path` as .npy. UNSUPPORTED for dtypes listed above as
 * unsupported or lanes > 1; IO_ERROR naming the file when writing fails. */
RLX_MUST_USE rlx_status_t* rlx_npy_save(const char* path, const DLTensor* t);

#ifdef __cplusplus
}
#endif
#endif
