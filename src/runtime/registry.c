/* The global registry of packed functions: a chained hash table behind one mutex.
 * The table and the mutex are the runtime's only process-wide mutable state. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../support/support.h"
#include "kernels/nn_kernels.h"
#include "rlx/runtime.h"

typedef struct entry {
  struct entry* next;
  rlx_packed_fn_t fn;
  void* resource;
  char name[]; /* NUL-terminated, allocated with the entry */
} entry_t;

static struct {
  pthread_once_t once;
  pthread_mutex_t mu;
  entry_t** buckets; /* guarded by mu */
  size_t nbuckets, count;
} registry = {.once = PTHREAD_ONCE_INIT};

static void registry_init(void) { pthread_mutex_init(&registry.mu, NULL); }

static void lock(void) {
  pthread_once(&registry.once, registry_init);
  pthread_mutex_lock(&registry.mu);
}

static void unlock(void) { pthread_mutex_unlock(&registry.mu); }

/* The slot holding the entry for `name`, or the empty slot where it would go. Requires
 * the lock and a table with buckets. */
static entry_t** find_slot(const char* name) {
  size_t h = (size_t)rlx_hash_bytes(name, strlen(name), 0) & (registry.nbuckets - 1);
  entry_t** slot = &registry.buckets[h];
  while (*slot && strcmp((*slot)->name, name) != 0) slot = &(*slot)->next;
  return slot;
}

/* Doubles the bucket array (a power of two) when the load exceeds 1; false on OOM. */
static bool maybe_grow(void) {
  if (registry.buckets && registry.count < registry.nbuckets) return true;
  size_t n = registry.nbuckets ? registry.nbuckets * 2 : 64;
  entry_t** b = calloc(n, sizeof(*b));
  if (!b) return registry.buckets != NULL; /* an old, fuller table still works */
  for (size_t i = 0; i < registry.nbuckets; i++) {
    for (entry_t* e = registry.buckets[i]; e;) {
      entry_t* next = e->next;
      size_t h = (size_t)rlx_hash_bytes(e->name, strlen(e->name), 0) & (n - 1);
      e->next = b[h];
      b[h] = e;
      e = next;
    }
  }
  free(registry.buckets);
  registry.buckets = b;
  registry.nbuckets = n;
  return true;
}

RLX_MUST_USE rlx_status_t* rlx_registry_register(const char* name, rlx_packed_fn_t fn, void* resource,
                                                 bool override) {
  if (!name || !*name || !fn)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "registry: name and function are required");
  rlx_status_t* st = NULL;
  lock();
  if (!maybe_grow()) {
    st = rlx_status_create(RLX_OUT_OF_MEMORY, "registry: registering '%s'", name);
  } else {
    entry_t** slot = find_slot(name);
    if (*slot && !override) {
      st = rlx_status_create(RLX_INVALID_ARGUMENT,
                             "registry: function '%s' is already registered", name);
    } else if (*slot) {
      (*slot)->fn = fn;
      (*slot)->resource = resource;
    } else {
      size_t n = strlen(name);
      entry_t* e = malloc(sizeof(*e) + n + 1);
      if (!e) {
        st = rlx_status_create(RLX_OUT_OF_MEMORY, "registry: registering '%s'", name);
      } else {
        memcpy(e->name, name, n + 1);
        e->fn = fn;
        e->resource = resource;
        e->next = NULL;
        *slot = e;
        registry.count++;
      }
    }
  }
  unlock();
  return st;
}

RLX_MUST_USE rlx_status_t* rlx_registry_get(const char* name, rlx_packed_fn_t* out_fn,
                                            void** out_resource) {
  if (!name) return rlx_status_create(RLX_INVALID_ARGUMENT, "registry: name is NULL");
  bool found = false;
  lock();
  if (registry.buckets) {
    entry_t* e = *find_slot(name);
    if (e) {
      found = true;
      if (out_fn) *out_fn = e->fn;
      if (out_resource) *out_resource = e->resource;
    }
  }
  unlock();
  if (!found) { /* the built-in kernels (kernels/nn_kernels.h) come after what users registered */
    rlx_packed_fn_t k = rlx_kernel_lookup(name);
    if (k) {
      if (out_fn) *out_fn = k;
      if (out_resource) *out_resource = NULL;
      found = true;
    }
  }
  return found ? NULL
               : rlx_status_create(RLX_NOT_FOUND, "no global function '%s' is registered", name);
}

RLX_MUST_USE rlx_status_t* rlx_registry_remove(const char* name) {
  if (!name) return rlx_status_create(RLX_INVALID_ARGUMENT, "registry: name is NULL");
  entry_t* e = NULL;
  lock();
  if (registry.buckets) {
    entry_t** slot = find_slot(name);
    e = *slot;
    if (e) {
      *slot = e->next;
      registry.count--;
    }
  }
  unlock();
  bool found = e != NULL;
  free(e);
  return found ? NULL
               : rlx_status_create(RLX_NOT_FOUND, "no global function '%s' is registered", name);
}
