/* NumPy .npy files: read versions 1.0-3.0, write 1.0 (2.0 when the header is long).
 *
 * Layout: "\x93NUMPY", major, minor, header length (u16 LE in 1.x, u32 LE after), then
 * a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 * padded with spaces and a newline so the data starts at a multiple of 64, then the data
 * in C order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/support.h"
#include "runtime_internal.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "rlx npy support assumes a little-endian host"
#endif

#define NPY_MAX_NDIM 32

/* What the header says. */
typedef struct {
  char descr[16];
  bool fortran_order;
  int ndim;
  int64_t shape[NPY_MAX_NDIM];
} npy_header_t;

/* A cursor over the header text; `name` is the file, for messages. */
typedef struct {
  const char* p;
  const char* end;
  const char* name;
} cursor_t;

static void skip_ws(cursor_t* c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
    c->p++;
}

/* Consumes `ch` after optional whitespace; false (consuming nothing) when it is not next. */
static bool accept(cursor_t* c, char ch) {
  skip_ws(c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return true;
  }
  return false;
}

static RLX_MUST_USE rlx_status_t* header_error(cursor_t* c, const char* what) {
  return rlx_status_create(RLX_PARSE_ERROR, "'%s': malformed .npy header: %s", c->name, what);
}

/* Parses a quoted string ('...' or "...") into out (capacity n). */
static RLX_MUST_USE rlx_status_t* parse_string(cursor_t* c, char* out, size_t n) {
  skip_ws(c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return header_error(c, "expected a string");
  char q = *c->p++;
  size_t len = 0;
  while (c->p < c->end && *c->p != q) {
    if (len + 1 >= n) return header_error(c, "string too long");
    out[len++] = *c->p++;
  }
  if (c->p >= c->end) return header_error(c, "unterminated string");
  c->p++;
  out[len] = 0;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_bool(cursor_t* c, bool* out) {
  skip_ws(c);
  size_t left = (size_t)(c->end - c->p);
  if (left >= 4 && memcmp(c->p, "True", 4) == 0) {
    c->p += 4;
    *out = true;
  } else if (left >= 5 && memcmp(c->p, "False", 5) == 0) {
    c->p += 5;
    *out = false;
  } else {
    return header_error(c, "fortran_order is not True or False");
  }
  return NULL;
}

/* Parses "(d0, d1, )" with non-negative decimal dims (a Python 2 'L' suffix is allowed). */
static RLX_MUST_USE rlx_status_t* parse_shape(cursor_t* c, npy_header_t* h) {
  if (!accept(c, '(')) return header_error(c, "shape is not a tuple");
  h->ndim = 0;
  while (!accept(c, ')')) {
    skip_ws(c);
    if (c->p >= c->end || *c->p < '0' || *c->p > '9') return header_error(c, "bad shape dimension");
    int64_t v = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
      if (v > (INT64_MAX - 9) / 10) return header_error(c, "shape dimension too large");
      v = v * 10 + (*c->p++ - '0');
    }
    if (c->p < c->end && *c->p == 'L') c->p++;
    if (h->ndim == NPY_MAX_NDIM) return header_error(c, "too many dimensions");
    h->shape[h->ndim++] = v;
    if (!accept(c, ',')) {
      if (!accept(c, ')')) return header_error(c, "expected ',' or ')' in shape");
      break;
    }
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* parse_header(cursor_t* c, npy_header_t* h) {
  bool seen_descr = false, seen_order = false, seen_shape = false;
  if (!accept(c, '{')) return header_error(c, "expected '{'");
  while (!accept(c, '}')) {
    char key[32];
    RLX_RETURN_IF_ERROR(parse_string(c, key, sizeof(key)));
    if (!accept(c, ':')) return header_error(c, "expected ':'");
    if (strcmp(key, "descr") == 0) {
      skip_ws(c);
      if (c->p < c->end && *c->p == '[')
        return rlx_status_create(RLX_UNSUPPORTED, "'%s': structured dtypes are not supported",
                                 c->name);
      RLX_RETURN_IF_ERROR(parse_string(c, h->descr, sizeof(h->descr)));
      seen_descr = true;
    } else if (strcmp(key, "fortran_order") == 0) {
      RLX_RETURN_IF_ERROR(parse_bool(c, &h->fortran_order));
      seen_order = true;
    } else if (strcmp(key, "shape") == 0) {
      RLX_RETURN_IF_ERROR(parse_shape(c, h));
      seen_shape = true;
    } else {
      return header_error(c, "unknown key");
    }
    if (!accept(c, ',')) {
      if (!accept(c, '}')) return header_error(c, "expected ',' or '}'");
      break;
    }
  }
  if (!seen_descr || !seen_order || !seen_shape)
    return header_error(c, "missing 'descr', 'fortran_order' or 'shape'");
  return NULL;
}

/* Maps a descr such as '<f4' or '|b1' to a dtype. */
static RLX_MUST_USE rlx_status_t* descr_to_dtype(const char* name, const char* descr, DLDataType* out) {
  static const struct { char kind; int size; uint8_t code; uint8_t bits; } table[] = {
      {'b', 1, kDLUInt, 1},   {'i', 1, kDLInt, 8},    {'i', 2, kDLInt, 16},
      {'i', 4, kDLInt, 32},   {'i', 8, kDLInt, 64},   {'u', 1, kDLUInt, 8},
      {'u', 2, kDLUInt, 16},  {'u', 4, kDLUInt, 32},  {'u', 8, kDLUInt, 64},
      {'f', 2, kDLFloat, 16}, {'f', 4, kDLFloat, 32}, {'f', 8, kDLFloat, 64}};
  char order = descr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') goto unsupported;
  char kind = descr[1];
  if (!kind || descr[2] < '1' || descr[2] > '9' || descr[3] != 0) goto unsupported;
  int size = descr[2] - '0';
  for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
    if (table[i].kind != kind || table[i].size != size) continue;
    if (order == '>' && size > 1)
      return rlx_status_create(RLX_UNSUPPORTED,
                               "'%s': big-endian data ('%s') is not supported", name, descr);
    *out = rlx_dldtype(table[i].code, table[i].bits, 1);
    return NULL;
  }
unsupported:
  return rlx_status_create(RLX_UNSUPPORTED, "'%s': dtype descr '%s' is not supported", name,
                           descr);
}

static uint32_t read_le(const unsigned char* p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

RLX_MUST_USE rlx_status_t* rlx_npy_load_from_memory(const void* data, size_t len, const char* name,
                                                    rlx_ndarray_t** out_arr) {
  const unsigned char* b = data;
  if (!name) name = "<memory>";
  if (!b && len) return rlx_status_create(RLX_INVALID_ARGUMENT, "'%s': data is NULL", name);
  if (len < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
    return rlx_status_create(RLX_PARSE_ERROR, "'%s': not a .npy file (bad magic)", name);
  int major = b[6];
  if (major < 1 || major > 3)
    return rlx_status_create(RLX_UNSUPPORTED, "'%s': .npy format version %d.%d is not supported",
                             name, major, b[7]);
  size_t len_bytes = major == 1 ? 2 : 4;
  size_t start = 8 + len_bytes;
  if (len < start) return rlx_status_create(RLX_PARSE_ERROR, "'%s': truncated .npy header", name);
  size_t header_len = read_le(b + 8, (int)len_bytes);
  if (header_len > len - start)
    return rlx_status_create(RLX_PARSE_ERROR,
                             "'%s': truncated .npy header (needs %zu bytes, file has %zu)", name,
                             start + header_len, len);
  npy_header_t h;
  memset(&h, 0, sizeof(h));
  cursor_t c = {(const char*)b + start, (const char*)b + start + header_len, name};
  RLX_RETURN_IF_ERROR(parse_header(&c, &h));
  if (h.fortran_order)
    return rlx_status_create(RLX_UNSUPPORTED,
                             "'%s': fortran_order True is not supported (save a C-order array)",
                             name);
  DLDataType dtype;
  RLX_RETURN_IF_ERROR(descr_to_dtype(name, h.descr, &dtype));
  size_t nbytes;
  RLX_RETURN_IF_ERROR(rlx_status_annotate(
      rlx_tensor_check_shape("shape", h.ndim, h.shape, dtype, &nbytes), "'%s'", name));
  size_t data_start = start + header_len;
  if (nbytes > len - data_start) {
    char sbuf[256], dbuf[32];
    return rlx_status_create(RLX_PARSE_ERROR,
                             "'%s': truncated data: %s %s needs %zu bytes, file has %zu", name,
                             rlx_shape_str(h.ndim, h.shape, sbuf, sizeof(sbuf)),
                             rlx_dldtype_str(dtype, dbuf), nbytes, len - data_start);
  }
  rlx_ndarray_t* arr;
  RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_ndarray_create(h.ndim, h.shape, dtype, NULL, &arr),
                                          "'%s'", name));
  if (nbytes) memcpy(arr->dl.data, b + data_start, nbytes);
  *out_arr = arr;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_npy_load(const char* path, rlx_ndarray_t** out_arr) {
  char* data;
  size_t len;
  RLX_RETURN_IF_ERROR(rlx_file_read(path, &data, &len));
  rlx_status_t* st = rlx_npy_load_from_memory(data, len, path, out_arr);
  free(data);
  return st;
}

/* The descr for a dtype, or NULL when .npy cannot hold it. */
static const char* dtype_to_descr(DLDataType t) {
  if (t.lanes != 1) return NULL;
  switch ((DLDataTypeCode)t.code) {
    case kDLInt:
      return t.bits == 8 ? "|i1" : t.bits == 16 ? "<i2" : t.bits == 32 ? "<i4" : t.bits == 64 ? "<i8" : NULL;
    case kDLUInt:
      return t.bits == 1 ? "|b1" : t.bits == 8 ? "|u1" : t.bits == 16 ? "<u2" : t.bits == 32 ? "<u4"
             : t.bits == 64 ? "<u8" : NULL;
    case kDLFloat:
      return t.bits == 16 ? "<f2" : t.bits == 32 ? "<f4" : t.bits == 64 ? "<f8" : NULL;
    case kDLOpaqueHandle:
    case kDLBfloat:
    case kDLComplex:
      return NULL;
  }
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_npy_save(const char* path, const DLTensor* t) {
  char dbuf[32];
  if (!path || !t) return rlx_status_create(RLX_INVALID_ARGUMENT, "npy save: NULL path or tensor");
  const char* descr = dtype_to_descr(t->dtype);
  if (!descr)
    return rlx_status_create(RLX_UNSUPPORTED, "'%s': cannot save dtype %s as .npy", path,
                             rlx_dldtype_str(t->dtype, dbuf));
  if (t->device.device_type != kDLCPU || !rlx_tensor_is_compact(t))
    return rlx_status_create(RLX_UNSUPPORTED, "'%s': only compact CPU tensors can be saved", path);
  size_t nbytes;
  RLX_RETURN_IF_ERROR(rlx_status_annotate(
      rlx_tensor_check_shape("shape", t->ndim, t->shape, t->dtype, &nbytes), "'%s'", path));

  rlx_strbuf_t hdr = {0};
  char shape[4096];
  if (strlen(rlx_shape_str(t->ndim, t->shape, shape, sizeof(shape))) + 1 >= sizeof(shape))
    return rlx_status_create(RLX_UNSUPPORTED, "'%s': too many dimensions to save", path);
  rlx_strbuf_printf(&hdr, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape);
  /* Pad with spaces and end with '\n' so that the data starts at a multiple of 64. */
  size_t prefix = 10; /* version 1.0: u16 header length */
  size_t total = (prefix + hdr.len + 1 + 63) / 64 * 64;
  if (total - prefix > 65535) {
    prefix = 12; /* version 2.0: u32 header length */
    total = (prefix + hdr.len + 1 + 63) / 64 * 64;
  }
  while (prefix + hdr.len + 1 < total) rlx_strbuf_append(&hdr, " ");
  rlx_strbuf_append(&hdr, "\n");
  if (!hdr.data) return rlx_status_create(RLX_OUT_OF_MEMORY, "'%s': building header", path);

  unsigned char pre[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', prefix == 10 ? 1 : 2, 0};
  for (size_t i = 0; i < prefix - 8; i++) pre[8 + i] = (unsigned char)(hdr.len >> (8 * i));
  FILE* f = fopen(path, "wb");
  rlx_status_t* st = NULL;
  if (!f) {
    st = rlx_status_create(RLX_IO_ERROR, "cannot create '%s': %s", path, strerror(errno));
  } else {
    bool ok = fwrite(pre, 1, prefix, f) == prefix && fwrite(hdr.data, 1, hdr.len, f) == hdr.len;
    if (ok && nbytes)
      ok = fwrite((const char*)t->data + t->byte_offset, 1, nbytes, f) == nbytes;
    if (fclose(f) != 0) ok = false;
    if (!ok) st = rlx_status_create(RLX_IO_ERROR, "cannot write '%s'", path);
  }
  rlx_strbuf_free(&hdr);
  return st;
}
