/* rlx support: arena allocation, growable arrays, string buffers, hashing, file I/O,
 * process spawning. Used by the runtime and the compiler alike; depends on libc only. */
#ifndef RLX_SUPPORT_H
#define RLX_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "rlx/status.h"

/* ---- allocation failures (docs/ARCHITECTURE.md, "Allocation failure") ----
 * How many allocations of rlx's containers (arena chunks, growable arrays, pointer maps,
 * string buffers) have failed on the calling thread: a count that only grows, kept per
 * thread as errno is (the one piece of mutable state outside a registry). A driver reads
 * it before a stage and checks it after (rlx_ctx_check): a change means some code of the
 * stage lost a push, a put or an append, whether or not it noticed, and the stage's result
 * is thrown away as out of memory. */
uint64_t rlx_alloc_failures(void);
/* Counts a failed allocation (the containers call it; so does code that handles a failed
 * malloc of its own by leaving something out). */
void rlx_alloc_failed(void);
/* Frees the error of a step that was tried and given up (a schedule primitive that does
 * not apply, a group that does not fuse); an out-of-memory one counts (rlx_alloc_failed):
 * the result would silently differ from the one with memory. */
void rlx_status_drop(rlx_status_t* st);

/* ---- arena: bump allocator; everything is freed at once by rlx_arena_free ----
 * Allocation failure (docs/ARCHITECTURE.md, "Allocation failure"): the arena keeps one
 * spare chunk, allocated by rlx_arena_init. When a chunk cannot be allocated, the arena
 * serves from the spare and sets `failed`, which stays set until rlx_arena_free; the
 * owner (the compiler context, the parser) turns it into an OUT_OF_MEMORY status at its
 * next check, so work done after the failure is thrown away, never used. NULL is returned
 * only when the spare is gone too, or for one request larger than a chunk. */
typedef struct rlx_arena_chunk rlx_arena_chunk_t;
typedef struct {
  rlx_arena_chunk_t* head;
  rlx_arena_chunk_t* spare; /* served from when a new chunk cannot be allocated */
  size_t used;              /* bytes used in head */
  bool failed;              /* an allocation failed (sticky) */
} rlx_arena_t;

/* Allocates the spare chunk; false (and `failed` set) when it cannot. */
bool rlx_arena_init(rlx_arena_t* a);
/* Returns zeroed, 16-byte aligned memory; NULL as above. */
void* rlx_arena_alloc(rlx_arena_t* a, size_t size);
char* rlx_arena_strdup(rlx_arena_t* a, const char* s);
char* rlx_arena_strndup(rlx_arena_t* a, const char* s, size_t n);
void* rlx_arena_memdup(rlx_arena_t* a, const void* p, size_t size);
void rlx_arena_free(rlx_arena_t* a);

/* ---- growable arrays (heap): RLX_VEC(int) v = {0}; rlx_vec_push(&v, 3); rlx_vec_free(&v); */
#define RLX_VEC(T) \
  struct {         \
    T* data;       \
    int len, cap;  \
  }
bool rlx_vec_grow_(void** data, int* cap, int need, size_t elem);
#define rlx_vec_push(v, x)                                                                   \
  (((v)->len < (v)->cap ||                                                                   \
    rlx_vec_grow_((void**)&(v)->data, &(v)->cap, (v)->len + 1, sizeof(*(v)->data))) &&       \
   ((v)->data[(v)->len++] = (x), true))
#define rlx_vec_free(v) (free((v)->data), (v)->data = NULL, (v)->len = (v)->cap = 0)

/* ---- string buffer (heap) ---- */
typedef struct {
  char* data; /* always NUL-terminated once anything was appended */
  size_t len, cap;
  bool failed; /* an append was dropped for want of memory: take gives NULL */
} rlx_strbuf_t;

void rlx_strbuf_append(rlx_strbuf_t* sb, const char* s);
void rlx_strbuf_appendn(rlx_strbuf_t* sb, const char* s, size_t n);
void rlx_strbuf_printf(rlx_strbuf_t* sb, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void rlx_strbuf_indent(rlx_strbuf_t* sb, int spaces);
/* Returns the contents ("" when empty); the buffer keeps ownership. */
const char* rlx_strbuf_cstr(rlx_strbuf_t* sb);
/* Hands the heap string to the caller (must free) and resets the buffer; NULL when an
 * allocation failed (an append was dropped, or nothing could be allocated). */
char* rlx_strbuf_take(rlx_strbuf_t* sb);
void rlx_strbuf_free(rlx_strbuf_t* sb);

/* ---- hashing ---- */
uint64_t rlx_hash_bytes(const void* p, size_t n, uint64_t seed);
static inline uint64_t rlx_hash_combine(uint64_t h, uint64_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
}

/* ---- pointer-keyed hash map (heap, open addressing) ---- */
typedef struct {
  const void** keys;
  void** vals;
  size_t cap, len;
} rlx_ptrmap_t;
/* false when the entry could not be stored (out of memory: the table was full and could
 * not grow; it grows at half full, and a failed growth leaves the free half in use) */
bool rlx_ptrmap_put(rlx_ptrmap_t* m, const void* key, void* val);
void* rlx_ptrmap_get(const rlx_ptrmap_t* m, const void* key); /* NULL when absent */
bool rlx_ptrmap_has(const rlx_ptrmap_t* m, const void* key);
void rlx_ptrmap_free(rlx_ptrmap_t* m);

/* ---- files and processes ---- */
/* Reads a whole file into a heap buffer (NUL-terminated; *out_len excludes the NUL). */
RLX_MUST_USE rlx_status_t* rlx_file_read(const char* path, char** out_data, size_t* out_len);
RLX_MUST_USE rlx_status_t* rlx_file_write(const char* path, const void* data, size_t len);
/* Creates the directory and its parents (like mkdir -p). */
RLX_MUST_USE rlx_status_t* rlx_mkdirs(const char* path);
/* Runs argv[0] with argv (NULL-terminated) and waits; stdout+stderr are captured into
 * *out_log (heap, may be NULL). Non-zero exit is an error that includes the log. */
RLX_MUST_USE rlx_status_t* rlx_process_run(char* const argv[], char** out_log);

#endif
