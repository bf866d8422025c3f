/* DLPack dtype names (TVM spelling) and shape printing. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rlx/runtime.h"

const char* rlx_dldtype_str(DLDataType dtype, char buf[32]) {
  const char* base = NULL;
  switch ((DLDataTypeCode)dtype.code) {
    case kDLInt: base = "int"; break;
    case kDLUInt: base = "uint"; break;
    case kDLFloat: base = "float"; break;
    case kDLBfloat: base = "bfloat"; break;
    case kDLComplex: base = "complex"; break;
    case kDLOpaqueHandle: base = "handle"; break;
  }
  int k;
  if (dtype.code == kDLUInt && dtype.bits == 1) k = snprintf(buf, 32, "bool");
  else if (dtype.code == kDLOpaqueHandle) k = snprintf(buf, 32, "handle");
  else if (base) k = snprintf(buf, 32, "%s%u", base, (unsigned)dtype.bits);
  else k = snprintf(buf, 32, "unknown%u_%u", (unsigned)dtype.code, (unsigned)dtype.bits);
  if (dtype.lanes != 1 && k > 0 && k < 32) snprintf(buf + k, (size_t)(32 - k), "x%u", (unsigned)dtype.lanes);
  return buf;
}

/* Parses an unsigned decimal of at most 5 digits at *s; -1 when there is none. */
static long parse_small_uint(const char** s) {
  const char* p = *s;
  long v = 0;
  int digits = 0;
  while (*p >= '0' && *p <= '9' && digits < 6) v = v * 10 + (*p++ - '0'), digits++;
  if (digits == 0 || digits > 5) return -1;
  *s = p;
  return v;
}

RLX_MUST_USE rlx_status_t* rlx_dldtype_parse(const char* s, DLDataType* out_dtype) {
  static const struct { const char* prefix; uint8_t code; int default_bits; } kinds[] = {
      /* longest prefix first: "uint" before "int", "bfloat" before "float" */
      {"bool", kDLUInt, 1},      {"handle", kDLOpaqueHandle, 64}, {"bfloat", kDLBfloat, 16},
      {"float", kDLFloat, 32},   {"uint", kDLUInt, 32},           {"int", kDLInt, 32},
      {"complex", kDLComplex, 64}};
  if (!s) return rlx_status_create(RLX_INVALID_ARGUMENT, "dtype is NULL");
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
    size_t plen = strlen(kinds[i].prefix);
    if (strncmp(s, kinds[i].prefix, plen) != 0) continue;
    const char* p = s + plen;
    long bits = kinds[i].default_bits, lanes = 1;
    bool fixed_bits = kinds[i].code == kDLOpaqueHandle || (kinds[i].code == kDLUInt && kinds[i].default_bits == 1);
    if (!fixed_bits && *p >= '0' && *p <= '9') bits = parse_small_uint(&p);
    if (*p == 'x') {
      p++;
      lanes = parse_small_uint(&p);
    }
    if (*p != 0 || bits <= 0 || bits > 255 || lanes <= 0 || lanes > 65535) break;
    *out_dtype = rlx_dldtype(kinds[i].code, (uint8_t)bits, (uint16_t)lanes);
    return NULL;
  }
  return rlx_status_create(RLX_INVALID_ARGUMENT,
                           "'%s' is not a dtype (expected e.g. float32, int64, uint8, bool)", s);
}

size_t rlx_dldtype_bytes(DLDataType dtype) {
  return ((size_t)dtype.bits * dtype.lanes + 7) / 8;
}

/* snprintf at buf+*used, advancing *used; stops quietly when the buffer is full. */
static void appendf(char* buf, size_t n, size_t* used, const char* fmt, ...) {
  if (*used >= n) return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(buf + *used, n - *used, fmt, ap);
  va_end(ap);
  *used = k < 0 ? n : *used + (size_t)k;
}

const char* rlx_shape_str(int ndim, const int64_t* shape, char* buf, size_t n) {
  if (n == 0) return buf;
  size_t used = 0;
  buf[0] = 0;
  appendf(buf, n, &used, "(");
  for (int i = 0; i < ndim; i++) appendf(buf, n, &used, i ? ", %lld" : "%lld", (long long)shape[i]);
  appendf(buf, n, &used, ndim == 1 ? ",)" : ")");
  return buf;
}
