/* rlx data types: the same layout and codes as DLPack's DLDataType. bool is uint1. */
#ifndef RLX_DTYPE_H
#define RLX_DTYPE_H

#include <stdint.h>

typedef struct rlx_dtype {
  uint8_t code;   /* RLX_DT_INT, RLX_DT_UINT, RLX_DT_FLOAT, RLX_DT_HANDLE, RLX_DT_BFLOAT */
  uint8_t bits;   /* 1 (bool), 8, 16, 32, 64 */
  uint16_t lanes; /* 1 for scalars */
} rlx_dtype_t;
enum { RLX_DT_INT = 0, RLX_DT_UINT = 1, RLX_DT_FLOAT = 2, RLX_DT_HANDLE = 3, RLX_DT_BFLOAT = 4 };

#endif
