/* Arena (bump) allocator and heap-backed containers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

struct rlx_arena_chunk {
  rlx_arena_chunk_t* next;
  size_t size;
  _Alignas(16) unsigned char data[];
};

enum { ARENA_CHUNK = 64 * 1024 };

static _Thread_local uint64_t n_failures;

uint64_t rlx_alloc_failures(void) { return n_failures; }

void rlx_alloc_failed(void) { n_failures++; }

void rlx_status_drop(rlx_status_t* st) {
  if (rlx_status_code(st) == RLX_OUT_OF_MEMORY) rlx_alloc_failed();
  rlx_status_free(st);
}

static rlx_arena_chunk_t* chunk_new(size_t cap) {
  rlx_arena_chunk_t* c = malloc(sizeof(*c) + cap);
  if (c) c->size = cap;
  return c;
}

bool rlx_arena_init(rlx_arena_t* a) {
  a->head = NULL;
  a->used = 0;
  a->spare = chunk_new(ARENA_CHUNK);
  a->failed = !a->spare;
  if (a->failed) rlx_alloc_failed();
  return !a->failed;
}

void* rlx_arena_alloc(rlx_arena_t* a, size_t size) {
  size = (size + 15) & ~(size_t)15;
  if (!a->head || a->used + size > a->head->size) {
    rlx_arena_chunk_t* c = chunk_new(size > ARENA_CHUNK ? size : ARENA_CHUNK);
    if (!c && size <= ARENA_CHUNK && a->spare) {
      c = a->spare;
      a->spare = NULL;
    }
    if (!c || !a->spare) { /* the spare is used (or gone): the arena has failed */
      rlx_alloc_failed();
      a->failed = true;
    }
    if (!c) return NULL;
    c->next = a->head;
    a->head = c;
    a->used = 0;
  }
  void* p = a->head->data + a->used;
  a->used += size;
  memset(p, 0, size);
  return p;
}

void* rlx_arena_memdup(rlx_arena_t* a, const void* p, size_t size) {
  void* q = rlx_arena_alloc(a, size ? size : 1);
  if (q && size) memcpy(q, p, size);
  return q;
}

char* rlx_arena_strndup(rlx_arena_t* a, const char* s, size_t n) {
  char* q = rlx_arena_alloc(a, n + 1);
  if (q) {
    memcpy(q, s, n);
    q[n] = 0;
  }
  return q;
}

char* rlx_arena_strdup(rlx_arena_t* a, const char* s) { return rlx_arena_strndup(a, s, strlen(s)); }

void rlx_arena_free(rlx_arena_t* a) {
  rlx_arena_chunk_t* c = a->head;
  while (c) {
    rlx_arena_chunk_t* n = c->next;
    free(c);
    c = n;
  }
  free(a->spare);
  a->head = a->spare = NULL;
  a->used = 0;
  a->failed = false;
}

bool rlx_vec_grow_(void** data, int* cap, int need, size_t elem) {
  int c = *cap ? *cap : 8;
  while (c < need) c *= 2;
  void* p = realloc(*data, (size_t)c * elem);
  if (!p) {
    rlx_alloc_failed();
    return false;
  }
  *data = p;
  *cap = c;
  return true;
}

static void sb_reserve(rlx_strbuf_t* sb, size_t extra) {
  if (sb->len + extra + 1 <= sb->cap) return;
  size_t c = sb->cap ? sb->cap : 256;
  while (c < sb->len + extra + 1) c *= 2;
  char* p = realloc(sb->data, c);
  if (!p) { /* keep old contents; this append is dropped, and take reports it */
    sb->failed = true;
    rlx_alloc_failed();
    return;
  }
  sb->data = p;
  sb->cap = c;
}

void rlx_strbuf_appendn(rlx_strbuf_t* sb, const char* s, size_t n) {
  sb_reserve(sb, n);
  if (sb->len + n + 1 > sb->cap) return;
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = 0;
}

void rlx_strbuf_append(rlx_strbuf_t* sb, const char* s) { rlx_strbuf_appendn(sb, s, strlen(s)); }

void rlx_strbuf_printf(rlx_strbuf_t* sb, const char* fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n > 0) {
    sb_reserve(sb, (size_t)n);
    if (sb->len + (size_t)n + 1 <= sb->cap) {
      vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
      sb->len += (size_t)n;
    }
  }
  va_end(ap2);
}

void rlx_strbuf_indent(rlx_strbuf_t* sb, int spaces) {
  for (int i = 0; i < spaces; i++) rlx_strbuf_appendn(sb, " ", 1);
}

const char* rlx_strbuf_cstr(rlx_strbuf_t* sb) { return sb->data ? sb->data : ""; }

char* rlx_strbuf_take(rlx_strbuf_t* sb) {
  char* s = sb->data;
  if (sb->failed) {
    free(s);
    s = NULL;
  } else if (!s) {
    s = malloc(1);
    if (s) s[0] = 0;
  }
  sb->data = NULL;
  sb->len = sb->cap = 0;
  sb->failed = false;
  return s;
}

void rlx_strbuf_free(rlx_strbuf_t* sb) {
  free(sb->data);
  sb->data = NULL;
  sb->len = sb->cap = 0;
  sb->failed = false;
}

uint64_t rlx_hash_bytes(const void* p, size_t n, uint64_t seed) {
  /* FNV-1a 64, mixed with the seed. */
  uint64_t h = 1469598103934665603ull ^ seed;
  const unsigned char* s = p;
  for (size_t i = 0; i < n; i++) {
    h ^= s[i];
    h *= 1099511628211ull;
  }
  return h;
}

static size_t ptr_slot(const void* k, size_t cap) {
  uint64_t h = (uint64_t)(uintptr_t)k * 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 17) & (cap - 1);
}

static bool ptr_grow(rlx_ptrmap_t* m) {
  size_t nc = m->cap ? m->cap * 2 : 16;
  const void** nk = calloc(nc, sizeof(*nk));
  void** nv = calloc(nc, sizeof(*nv));
  if (!nk || !nv) {
    free(nk);
    free(nv);
    return false;
  }
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->keys[i]) continue;
    size_t s = ptr_slot(m->keys[i], nc);
    while (nk[s]) s = (s + 1) & (nc - 1);
    nk[s] = m->keys[i];
    nv[s] = m->vals[i];
  }
  free(m->keys);
  free(m->vals);
  m->keys = nk;
  m->vals = nv;
  m->cap = nc;
  return true;
}

bool rlx_ptrmap_put(rlx_ptrmap_t* m, const void* key, void* val) {
  /* a table that cannot grow keeps taking entries while one slot stays free (the probe
   * loops end at an empty slot) */
  if ((m->len + 1) * 2 > m->cap && !ptr_grow(m) && m->len + 2 > m->cap) {
    rlx_alloc_failed();
    return false;
  }
  size_t s = ptr_slot(key, m->cap);
  while (m->keys[s] && m->keys[s] != key) s = (s + 1) & (m->cap - 1);
  if (!m->keys[s]) m->len++;
  m->keys[s] = key;
  m->vals[s] = val;
  return true;
}

static const void* const* ptr_find(const rlx_ptrmap_t* m, const void* key, size_t* out) {
  if (!m->cap || !key) return NULL;
  size_t s = ptr_slot(key, m->cap);
  while (m->keys[s]) {
    if (m->keys[s] == key) {
      *out = s;
      return &m->keys[s];
    }
    s = (s + 1) & (m->cap - 1);
  }
  return NULL;
}

void* rlx_ptrmap_get(const rlx_ptrmap_t* m, const void* key) {
  size_t s;
  return ptr_find(m, key, &s) ? m->vals[s] : NULL;
}

bool rlx_ptrmap_has(const rlx_ptrmap_t* m, const void* key) {
  size_t s;
  return ptr_find(m, key, &s) != NULL;
}

void rlx_ptrmap_free(rlx_ptrmap_t* m) {
  free(m->keys);
  free(m->vals);
  m->keys = NULL;
  m->vals = NULL;
  m->cap = m->len = 0;
}
