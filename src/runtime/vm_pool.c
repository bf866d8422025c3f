/* The VM's storage pool: tensors the VM allocates (storages, fresh tensors) come from a
 * per-VM cache of freed blocks, so that a model run again with the same shapes does not go
 * back to malloc / mmap (and page faults) for every intermediate buffer.
 *
 * A block has a 64-byte header holding its size; a freed block goes to the free list
 * (bounded by RLX_VM_POOL_MAX_BYTES of cached memory) and is reused for a request of the
 * same size. The pool is refcounted: the VM holds one reference and every block handed out
 * one more, so tensors that outlive the VM (outputs) still free safely. Thread-safe. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "vm_internal.h"

enum { HEADER = 64 };
#define RLX_VM_POOL_MAX_BYTES ((size_t)1 << 30)

struct rlx_vm_pool {
  pthread_mutex_t mu;
  int refs;
  size_t cached;
  RLX_VEC(void*) free_blocks; /* block starts (header) */
};

static size_t block_size(void* block) {
  size_t n;
  memcpy(&n, block, sizeof(n));
  return n;
}

static void destroy(rlx_vm_pool_t* p) {
  for (int i = 0; i < p->free_blocks.len; i++) free(p->free_blocks.data[i]);
  rlx_vec_free(&p->free_blocks);
  pthread_mutex_destroy(&p->mu);
  free(p);
}

static void* pool_alloc(void* self, size_t bytes, size_t align) {
  rlx_vm_pool_t* p = self;
  if (align > HEADER || bytes > SIZE_MAX - HEADER) return NULL;
  void* block = NULL;
  pthread_mutex_lock(&p->mu);
  for (int i = p->free_blocks.len - 1; i >= 0; i--) {
    if (block_size(p->free_blocks.data[i]) == bytes) {
      block = p->free_blocks.data[i];
      p->free_blocks.data[i] = p->free_blocks.data[--p->free_blocks.len];
      p->cached -= bytes;
      break;
    }
  }
  if (block || posix_memalign(&block, HEADER, bytes + HEADER) == 0) {
    memcpy(block, &bytes, sizeof(bytes));
    p->refs++;
  } else {
    block = NULL;
  }
  pthread_mutex_unlock(&p->mu);
  return block ? (char*)block + HEADER : NULL;
}

static void pool_free(void* self, void* ptr) {
  rlx_vm_pool_t* p = self;
  void* block = (char*)ptr - HEADER;
  size_t n = block_size(block);
  pthread_mutex_lock(&p->mu);
  /* keep it while the VM lives and the cache has room */
  if (p->refs > 1 && p->cached + n <= RLX_VM_POOL_MAX_BYTES && rlx_vec_push(&p->free_blocks, block)) {
    p->cached += n;
    block = NULL;
  }
  bool last = --p->refs == 0;
  pthread_mutex_unlock(&p->mu);
  free(block);
  if (last) destroy(p);
}

rlx_vm_pool_t* rlx_vm_pool_create(void) {
  rlx_vm_pool_t* p = calloc(1, sizeof(*p));
  if (!p) return NULL;
  pthread_mutex_init(&p->mu, NULL);
  p->refs = 1;
  return p;
}

void rlx_vm_pool_release(rlx_vm_pool_t* p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  /* the VM goes away: the cache is emptied; outstanding blocks keep the pool alive */
  for (int i = 0; i < p->free_blocks.len; i++) free(p->free_blocks.data[i]);
  p->free_blocks.len = 0;
  p->cached = 0;
  bool last = --p->refs == 0;
  pthread_mutex_unlock(&p->mu);
  if (last) destroy(p);
}

rlx_allocator_t rlx_vm_pool_allocator(rlx_vm_pool_t* p) {
  rlx_allocator_t a = {pool_alloc, pool_free, p};
  return a;
}
