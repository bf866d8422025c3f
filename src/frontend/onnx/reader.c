/* ONNX reader: unpacks ModelProto / TensorProto with the protobuf-c code generated at build
 * time from the system's onnx.proto, maps ONNX data types to rlx dtypes, decodes tensors
 * (raw_data or the typed fields) and turns ValueInfos into struct info. Malformed data is an
 * error naming the file, never a crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

/* ------------------------------------------------------------------ string map */
static uint64_t str_hash(const char* s) { return rlx_hash_bytes(s, strlen(s), 0x6f6e6e78); }

static void strmap_grow(rlx_onnx_strmap_t* m) {
  int cap = m->cap ? m->cap * 2 : 64;
  rlx_onnx_strmap_slot_t* slots = calloc((size_t)cap, sizeof(*slots));
  if (!slots) { /* the old table stays valid; the import fails with out of memory (rlx_ctx_check) */
    rlx_alloc_failed();
    return;
  }
  for (int i = 0; i < m->cap; i++) {
    if (!m->slots[i].key) continue;
    uint64_t h = str_hash(m->slots[i].key);
    int k = (int)(h & (uint64_t)(cap - 1));
    while (slots[k].key) k = (k + 1) & (cap - 1);
    slots[k] = m->slots[i];
  }
  free(m->slots);
  m->slots = slots;
  m->cap = cap;
}

void rlx_onnx_strmap_put(rlx_onnx_strmap_t* m, const char* key, void* val) {
  if ((m->len + 1) * 4 >= m->cap * 3) strmap_grow(m);
  if (!m->cap) return;
  int k = (int)(str_hash(key) & (uint64_t)(m->cap - 1));
  while (m->slots[k].key) {
    if (strcmp(m->slots[k].key, key) == 0) {
      m->slots[k].val = val;
      return;
    }
    k = (k + 1) & (m->cap - 1);
  }
  if ((m->len + 1) * 8 > m->cap * 7) { /* growth failed and the table is full */
    rlx_alloc_failed();
    return;
  }
  m->slots[k].key = key;
  m->slots[k].val = val;
  m->len++;
}

bool rlx_onnx_strmap_get(const rlx_onnx_strmap_t* m, const char* key, void** out) {
  if (!m->cap) return false;
  int k = (int)(str_hash(key) & (uint64_t)(m->cap - 1));
  while (m->slots[k].key) {
    if (strcmp(m->slots[k].key, key) == 0) {
      if (out) *out = m->slots[k].val;
      return true;
    }
    k = (k + 1) & (m->cap - 1);
  }
  return false;
}

void rlx_onnx_strmap_free(rlx_onnx_strmap_t* m) {
  free(m->slots);
  memset(m, 0, sizeof(*m));
}

/* ------------------------------------------------------------------ unpacking */
/* Every allocation gets one extra zero byte, so bytes fields (attribute strings) are
 * NUL-terminated C strings. A failed one sets *user (a bool, when given): protobuf-c then
 * returns NULL as for malformed data, and the caller reports out of memory instead. */
static void* pb_alloc(void* user, size_t size) {
  void* p = calloc(1, size + 1);
  if (!p && user) *(bool*)user = true;
  return p;
}
static void pb_free(void* user, void* p) { free(p); }
static ProtobufCAllocator pb_allocator(void) {
  ProtobufCAllocator a = {pb_alloc, pb_free, NULL};
  return a;
}
/* The allocator for unpacking (*failed set when an allocation fails). */
static ProtobufCAllocator pb_unpack_allocator(bool* failed) {
  *failed = false;
  ProtobufCAllocator a = {pb_alloc, pb_free, failed};
  return a;
}
#define UNPACK_OOM(name) rlx_status_create(RLX_OUT_OF_MEMORY, "%s: out of memory unpacking the protobuf data", name)

/* Every name the importer looks up (in its string maps, by strcmp) present, in g and in the
 * subgraphs of its nodes' attributes: proto2 leaves an absent string field NULL. `where`
 * says which graph ("the graph", "subgraph 'then_branch' of node #3 in the graph", ...).
 * Recursion is bounded: nesting was checked (MAX_MESSAGE_DEPTH) before unpacking. */
static RLX_MUST_USE rlx_status_t* check_nodes(Onnx__NodeProto* const* nodes, size_t n, const char* name, const char* where);

static RLX_MUST_USE rlx_status_t* check_value_infos(Onnx__ValueInfoProto* const* v, size_t n, const char* name, const char* where,
                                                    const char* what) {
  for (size_t i = 0; i < n; i++)
    if (!v[i]->name || !v[i]->name[0])
      return rlx_status_create(RLX_PARSE_ERROR, "%s: %s: %s #%zu has no name", name, where, what, i);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* check_graph(const Onnx__GraphProto* g, const char* name, const char* where) {
  for (size_t i = 0; i < g->n_initializer; i++)
    if (!g->initializer[i]->name || !g->initializer[i]->name[0])
      return rlx_status_create(RLX_PARSE_ERROR, "%s: %s: initializer #%zu has no name", name, where, i);
  rlx_status_t* st = check_value_infos(g->input, g->n_input, name, where, "graph input");
  if (!st) st = check_value_infos(g->output, g->n_output, name, where, "graph output");
  if (!st) st = check_value_infos(g->value_info, g->n_value_info, name, where, "value_info");
  if (!st) st = check_nodes(g->node, g->n_node, name, where);
  return st;
}

static RLX_MUST_USE rlx_status_t* check_nodes(Onnx__NodeProto* const* nodes, size_t n, const char* name, const char* where) {
  for (size_t i = 0; i < n; i++) {
    const Onnx__NodeProto* p = nodes[i];
    if (!p->op_type || !p->op_type[0])
      return rlx_status_create(RLX_PARSE_ERROR, "%s: %s: node #%zu has no op_type", name, where, i);
    for (size_t k = 0; k < p->n_input + p->n_output; k++)
      if (!(k < p->n_input ? p->input[k] : p->output[k - p->n_input])) /* protobuf-c fills them; kept safe */
        return rlx_status_create(RLX_PARSE_ERROR, "%s: %s: node #%zu has a missing value name", name, where, i);
    for (size_t k = 0; k < p->n_attribute; k++) {
      const Onnx__AttributeProto* a = p->attribute[k];
      if (!a->name || !a->name[0])
        return rlx_status_create(RLX_PARSE_ERROR, "%s: %s: attribute #%zu of node #%zu (%s) has no name", name, where,
                                 k, i, p->op_type);
      size_t n_sub = (a->g ? 1 : 0) + a->n_graphs;
      for (size_t j = 0; j < n_sub; j++) {
        char sub[512];
        snprintf(sub, sizeof(sub), "subgraph '%s' of node #%zu (%s) in %s", a->name, i, p->op_type, where);
        rlx_status_t* st = check_graph(a->g && j == 0 ? a->g : a->graphs[j - (a->g ? 1 : 0)], name, sub);
        if (st) return st;
      }
    }
  }
  return NULL;
}

/* The model's graph and its local functions (which the importer does not expand, but whose
 * names must be there all the same). */
static RLX_MUST_USE rlx_status_t* check_model(const Onnx__ModelProto* m, const char* name) {
  rlx_status_t* st = check_graph(m->graph, name, "the graph");
  for (size_t i = 0; !st && i < m->n_functions; i++) {
    const Onnx__FunctionProto* f = m->functions[i];
    if (!f->name || !f->name[0]) return rlx_status_create(RLX_PARSE_ERROR, "%s: function #%zu has no name", name, i);
    char where[320];
    snprintf(where, sizeof(where), "function '%.256s'", f->name);
    st = check_nodes(f->node, f->n_node, name, where);
  }
  return st;
}

/* Messages nested deeper than this (a subgraph is three levels: graph, node, attribute) are
 * rejected before protobuf-c, whose unpacking recurses once per level, sees them. */
enum { MAX_MESSAGE_DEPTH = 96 };

static bool read_varint(const uint8_t** p, const uint8_t* end, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && *p < end; shift += 7) {
    uint8_t b = *(*p)++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return true;
    }
  }
  return false;
}

/* The depth of message nesting in the n bytes of a message of type d, walking the wire
 * format with the descriptors; stops counting past MAX_MESSAGE_DEPTH. Malformed bytes end
 * the walk: protobuf-c reports them. */
static int message_depth(const ProtobufCMessageDescriptor* d, const uint8_t* p, size_t n, int depth) {
  const uint8_t* end = p + n;
  int deepest = depth;
  while (p < end && deepest <= MAX_MESSAGE_DEPTH) {
    uint64_t key, len;
    if (!read_varint(&p, end, &key)) break;
    switch (key & 7) {
      case 0:
        if (!read_varint(&p, end, &len)) return deepest;
        break;
      case 1:
      case 5: {
        size_t w = (key & 7) == 1 ? 8 : 4;
        if ((size_t)(end - p) < w) return deepest;
        p += w;
        break;
      }
      case 2: {
        if (!read_varint(&p, end, &len) || len > (uint64_t)(end - p)) return deepest;
        const ProtobufCFieldDescriptor* f = protobuf_c_message_descriptor_get_field(d, (unsigned)(key >> 3));
        if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
          int sub = message_depth(f->descriptor, p, (size_t)len, depth + 1);
          if (sub > deepest) deepest = sub;
        }
        p += len;
        break;
      }
      default: return deepest;
    }
  }
  return deepest;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_model_unpack(const void* data, size_t n, const char* name, Onnx__ModelProto** out) {
  *out = NULL;
  if (n == 0) return rlx_status_create(RLX_PARSE_ERROR, "%s: empty file, not an ONNX model", name);
  if (message_depth(&onnx__model_proto__descriptor, data, n, 0) > MAX_MESSAGE_DEPTH)
    return rlx_status_create(RLX_PARSE_ERROR, "%s: messages nested more than %d levels deep (subgraphs in subgraphs)",
                             name, MAX_MESSAGE_DEPTH);
  bool failed;
  ProtobufCAllocator a = pb_unpack_allocator(&failed);
  Onnx__ModelProto* m = onnx__model_proto__unpack(&a, n, data);
  if (!m && failed) return UNPACK_OOM(name);
  if (!m)
    return rlx_status_create(RLX_PARSE_ERROR,
                             "%s: not a valid ONNX model (the protobuf data is malformed or truncated)", name);
  rlx_status_t* st = NULL;
  if (!m->graph)
    st = rlx_status_create(RLX_PARSE_ERROR, "%s: not a valid ONNX model (no graph; truncated or not a ModelProto)",
                           name);
  if (!st) st = check_model(m, name);
  if (st) {
    onnx__model_proto__free_unpacked(m, &a);
    return st;
  }
  *out = m;
  return NULL;
}

void rlx_onnx_model_free(Onnx__ModelProto* m) {
  ProtobufCAllocator a = pb_allocator();
  if (m) onnx__model_proto__free_unpacked(m, &a);
}

RLX_MUST_USE rlx_status_t* rlx_onnx_tensor_proto_unpack(const void* data, size_t n, const char* name, Onnx__TensorProto** out) {
  *out = NULL;
  if (message_depth(&onnx__tensor_proto__descriptor, data, n, 0) > MAX_MESSAGE_DEPTH)
    return rlx_status_create(RLX_PARSE_ERROR, "%s: messages nested more than %d levels deep", name, MAX_MESSAGE_DEPTH);
  bool failed;
  ProtobufCAllocator a = pb_unpack_allocator(&failed);
  *out = onnx__tensor_proto__unpack(&a, n, data);
  if (!*out && failed) return UNPACK_OOM(name);
  if (!*out)
    return rlx_status_create(RLX_PARSE_ERROR,
                             "%s: not a valid TensorProto (the protobuf data is malformed or truncated)", name);
  if (!(*out)->has_data_type) {
    onnx__tensor_proto__free_unpacked(*out, &a);
    *out = NULL;
    return rlx_status_create(RLX_PARSE_ERROR, "%s: not a valid TensorProto (no data_type)", name);
  }
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_message_unpack(const ProtobufCMessageDescriptor* d, const void* data, size_t n,
                                                   const char* name, ProtobufCMessage** out) {
  *out = NULL;
  if (message_depth(d, data, n, 0) > MAX_MESSAGE_DEPTH)
    return rlx_status_create(RLX_PARSE_ERROR, "%s: messages nested more than %d levels deep", name, MAX_MESSAGE_DEPTH);
  bool failed;
  ProtobufCAllocator a = pb_unpack_allocator(&failed);
  *out = protobuf_c_message_unpack(d, &a, n, data);
  if (!*out && failed) return UNPACK_OOM(name);
  if (!*out)
    return rlx_status_create(RLX_PARSE_ERROR, "%s: not a valid %s (the protobuf data is malformed or truncated)", name,
                             d->short_name);
  return NULL;
}

void rlx_onnx_message_free(ProtobufCMessage* m) {
  ProtobufCAllocator a = pb_allocator();
  if (m) protobuf_c_message_free_unpacked(m, &a);
}

void rlx_onnx_tensor_proto_free(Onnx__TensorProto* t) {
  ProtobufCAllocator a = pb_allocator();
  if (t) onnx__tensor_proto__free_unpacked(t, &a);
}

int rlx_onnx_model_opset(const Onnx__ModelProto* m, const char* domain) {
  bool want_default = !domain || !domain[0] || strcmp(domain, "ai.onnx") == 0;
  for (size_t i = 0; i < m->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto* o = m->opset_import[i];
    const char* d = o->domain ? o->domain : "";
    bool is_default = !d[0] || strcmp(d, "ai.onnx") == 0;
    if ((want_default && is_default) || (!want_default && strcmp(d, domain) == 0))
      return o->has_version ? (int)o->version : 1;
  }
  return -1;
}

/* ------------------------------------------------------------------ dtypes */
bool rlx_onnx_dtype_from_elem(int32_t elem_type, rlx_dtype_t* out) {
  switch (elem_type) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: *out = rlx_dt_float32(); return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8: *out = rlx_dtype(RLX_DT_UINT, 8, 1); return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8: *out = rlx_dtype(RLX_DT_INT, 8, 1); return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16: *out = rlx_dtype(RLX_DT_UINT, 16, 1); return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT16: *out = rlx_dtype(RLX_DT_INT, 16, 1); return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: *out = rlx_dt_int32(); return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: *out = rlx_dt_int64(); return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL: *out = rlx_dt_bool(); return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16: *out = rlx_dtype(RLX_DT_FLOAT, 16, 1); return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: *out = rlx_dt_float64(); return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32: *out = rlx_dtype(RLX_DT_UINT, 32, 1); return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64: *out = rlx_dtype(RLX_DT_UINT, 64, 1); return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16: *out = rlx_dtype(RLX_DT_BFLOAT, 16, 1); return true;
    default: return false; /* UNDEFINED, STRING, COMPLEX64/128, and codes of newer ONNX versions */
  }
}

bool rlx_onnx_dtype_from_attr(int64_t code, rlx_dtype_t* out) {
  return code >= INT32_MIN && code <= INT32_MAX && rlx_onnx_dtype_from_elem((int32_t)code, out);
}

int32_t rlx_onnx_elem_from_dtype(rlx_dtype_t t) {
  if (t.lanes != 1) return 0;
  switch (t.code) {
    case RLX_DT_FLOAT:
      return t.bits == 32   ? ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT
             : t.bits == 64 ? ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE
             : t.bits == 16 ? ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16
                            : 0;
    case RLX_DT_INT:
      return t.bits == 8    ? ONNX__TENSOR_PROTO__DATA_TYPE__INT8
             : t.bits == 16 ? ONNX__TENSOR_PROTO__DATA_TYPE__INT16
             : t.bits == 32 ? ONNX__TENSOR_PROTO__DATA_TYPE__INT32
             : t.bits == 64 ? ONNX__TENSOR_PROTO__DATA_TYPE__INT64
                            : 0;
    case RLX_DT_UINT:
      return t.bits == 1    ? ONNX__TENSOR_PROTO__DATA_TYPE__BOOL
             : t.bits == 8  ? ONNX__TENSOR_PROTO__DATA_TYPE__UINT8
             : t.bits == 16 ? ONNX__TENSOR_PROTO__DATA_TYPE__UINT16
             : t.bits == 32 ? ONNX__TENSOR_PROTO__DATA_TYPE__UINT32
             : t.bits == 64 ? ONNX__TENSOR_PROTO__DATA_TYPE__UINT64
                            : 0;
    case RLX_DT_BFLOAT:
      return t.bits == 16 ? ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16 : 0;
    default:
      return 0;
  }
}

const char* rlx_onnx_elem_name(int32_t elem_type, char buf[32]) {
  static const char* const names[] = {"UNDEFINED", "FLOAT",  "UINT8",  "INT8",      "UINT16",     "INT16",
                                      "INT32",     "INT64",  "STRING", "BOOL",      "FLOAT16",    "DOUBLE",
                                      "UINT32",    "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16"};
  if (elem_type >= 0 && elem_type < (int32_t)(sizeof(names) / sizeof(names[0]))) return names[elem_type];
  snprintf(buf, 32, "type %d", (int)elem_type);
  return buf;
}

/* ------------------------------------------------------------------ tensors */
static const char* dims_str(const int64_t* dims, int n, char* buf, size_t cap) {
  size_t k = 0;
  k += (size_t)snprintf(buf + k, cap - k, "(");
  for (int i = 0; i < n && k < cap; i++) k += (size_t)snprintf(buf + k, cap - k, i ? ", %lld" : "%lld", (long long)dims[i]);
  if (k < cap) snprintf(buf + k, cap - k, n == 1 ? ",)" : ")");
  return buf;
}

static RLX_MUST_USE rlx_status_t* count_error(const char* what, const char* field, size_t got, int64_t numel, const int64_t* dims,
                                              int ndim) {
  char s[256];
  return rlx_status_create(RLX_PARSE_ERROR, "%s: %s has %zu values, expected %lld for shape %s", what, field, got,
                           (long long)numel, dims_str(dims, ndim, s, sizeof(s)));
}

RLX_MUST_USE rlx_status_t* rlx_onnx_tensor_decode(const Onnx__TensorProto* t, const char* what, rlx_onnx_decoded_t* out) {
  memset(out, 0, sizeof(*out));
  char tb[32];
  if (!t->has_data_type) return rlx_status_create(RLX_PARSE_ERROR, "%s: tensor has no data_type", what);
  if (!rlx_onnx_dtype_from_elem(t->data_type, &out->dtype))
    return rlx_status_create(RLX_UNSUPPORTED, "%s: data type %s is not supported", what,
                             rlx_onnx_elem_name(t->data_type, tb));
  if ((t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) ||
      t->n_external_data > 0)
    return rlx_status_create(RLX_UNSUPPORTED,
                             "%s: the tensor's data is stored in an external file, which is not supported "
                             "(save the model with its data inside)",
                             what);
  if (t->segment) return rlx_status_create(RLX_UNSUPPORTED, "%s: segmented tensors are not supported", what);
  if (t->n_dims > RLX_ONNX_MAX_DIMS)
    return rlx_status_create(RLX_UNSUPPORTED, "%s: %zu dimensions (at most %d are supported)", what, t->n_dims,
                             RLX_ONNX_MAX_DIMS);
  out->ndim = (int)t->n_dims;
  int64_t numel = 1;
  for (int i = 0; i < out->ndim; i++) {
    int64_t d = t->dims[i];
    if (d < 0) return rlx_status_create(RLX_PARSE_ERROR, "%s: negative dimension %lld", what, (long long)d);
    if (d > 0 && numel > ((int64_t)1 << 40) / d)
      return rlx_status_create(RLX_UNSUPPORTED, "%s: tensor too large", what);
    numel *= d;
    out->shape[i] = d;
  }
  size_t el = (size_t)rlx_dtype_bytes(out->dtype);
  size_t nbytes = (size_t)numel * el;
  /* Dims alone may claim terabytes: allocate only when the tensor holds that many values
   * (otherwise every branch below fails its count check, naming the field, unwritten). */
  size_t held = (el ? t->raw_data.len / el : 0) + t->n_float_data + t->n_int32_data + t->n_int64_data +
                t->n_double_data + t->n_uint64_data;
  uint8_t* data = (size_t)numel <= held ? malloc(nbytes ? nbytes : 1) : NULL;
  if (!data && (size_t)numel <= held) return rlx_status_create(RLX_OUT_OF_MEMORY, "%s: %zu bytes", what, nbytes);
  rlx_status_t* st = NULL;
  int32_t dt = t->data_type;
  if (t->has_raw_data && (t->raw_data.len > 0 || numel == 0)) {
    if (t->raw_data.len != nbytes) {
      char s[256];
      st = rlx_status_create(RLX_PARSE_ERROR, "%s: raw_data has %zu bytes, expected %zu for %s of shape %s", what,
                             t->raw_data.len, nbytes, rlx_onnx_elem_name(dt, tb),
                             dims_str(out->shape, out->ndim, s, sizeof(s)));
    } else if (nbytes) {
      memcpy(data, t->raw_data.data, nbytes); /* little-endian, as the host */
    }
  } else if (numel == 0) {
    /* no values to read */
  } else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT) {
    if (t->n_float_data != (size_t)numel) st = count_error(what, "float_data", t->n_float_data, numel, out->shape, out->ndim);
    else memcpy(data, t->float_data, nbytes);
  } else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT64) {
    if (t->n_int64_data != (size_t)numel) st = count_error(what, "int64_data", t->n_int64_data, numel, out->shape, out->ndim);
    else memcpy(data, t->int64_data, nbytes);
  } else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE) {
    if (t->n_double_data != (size_t)numel) st = count_error(what, "double_data", t->n_double_data, numel, out->shape, out->ndim);
    else memcpy(data, t->double_data, nbytes);
  } else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__UINT32 || dt == ONNX__TENSOR_PROTO__DATA_TYPE__UINT64) {
    if (t->n_uint64_data != (size_t)numel) {
      st = count_error(what, "uint64_data", t->n_uint64_data, numel, out->shape, out->ndim);
    } else {
      for (int64_t i = 0; i < numel; i++) {
        if (el == 4) ((uint32_t*)data)[i] = (uint32_t)t->uint64_data[i];
        else ((uint64_t*)data)[i] = t->uint64_data[i];
      }
    }
  } else { /* int32_data: INT32, INT16, INT8, UINT16, UINT8, BOOL, FLOAT16, BFLOAT16 (bit patterns) */
    if (t->n_int32_data != (size_t)numel) {
      st = count_error(what, "int32_data", t->n_int32_data, numel, out->shape, out->ndim);
    } else {
      for (int64_t i = 0; i < numel; i++) {
        int32_t v = t->int32_data[i];
        if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL) data[i] = v != 0;
        else if (el == 1) data[i] = (uint8_t)v;
        else if (el == 2) ((uint16_t*)data)[i] = (uint16_t)v;
        else ((int32_t*)data)[i] = v;
      }
    }
  }
  if (st) {
    free(data);
    return st;
  }
  out->data = data;
  out->nbytes = nbytes;
  return NULL;
}

/* ------------------------------------------------------------------ value infos */
const char* rlx_onnx_ident(rlx_ctx_t* ctx, const char* s) {
  size_t n = strlen(s);
  char* r = rlx_ctx_alloc(ctx, n + 2);
  size_t k = 0;
  if (!(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) r[k++] = '_';
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    bool ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    r[k++] = ok ? c : '_';
  }
  r[k] = 0;
  return r;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_value_info_sinfo(rlx_onnx_importer_t* im, const Onnx__ValueInfoProto* vi, const char* what,
                                                     rlx_sinfo_t** out) {
  rlx_ctx_t* ctx = im->ctx;
  const Onnx__TypeProto* tp = vi->type;
  if (!tp) return rlx_status_create(RLX_PARSE_ERROR, "%s has no type", what);
  if (tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
    return rlx_status_create(RLX_UNSUPPORTED, "%s is not a tensor (sequences, maps, optionals and sparse tensors are not supported)",
                             what);
  const Onnx__TypeProto__Tensor* tt = tp->tensor_type;
  rlx_dtype_t dt;
  char tb[32];
  if (!tt->has_elem_type) return rlx_status_create(RLX_PARSE_ERROR, "%s has no element type", what);
  if (!rlx_onnx_dtype_from_elem(tt->elem_type, &dt))
    return rlx_status_create(RLX_UNSUPPORTED, "%s has element type %s, which is not supported", what,
                             rlx_onnx_elem_name(tt->elem_type, tb));
  if (!tt->shape) {
    *out = rlx_sinfo_tensor(ctx, -1, NULL, dt);
    return NULL;
  }
  int nd = (int)tt->shape->n_dim;
  if (tt->shape->n_dim > RLX_ONNX_MAX_DIMS)
    return rlx_status_create(RLX_UNSUPPORTED, "%s has %zu dimensions (at most %d)", what, tt->shape->n_dim,
                             RLX_ONNX_MAX_DIMS);
  rlx_expr_t** dims = RLX_NEW_ARRAY(ctx, rlx_expr_t*, nd);
  for (int i = 0; i < nd; i++) {
    const Onnx__TensorShapeProto__Dimension* d = tt->shape->dim[i];
    if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
      if (d->dim_value < 0)
        return rlx_status_create(RLX_PARSE_ERROR, "%s: dimension %d is negative (%lld)", what, i,
                                 (long long)d->dim_value);
      dims[i] = rlx_ir_i64(ctx, d->dim_value);
    } else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param &&
               d->dim_param[0]) {
      void* v = NULL;
      if (!rlx_onnx_strmap_get(&im->dims, d->dim_param, &v)) {
        const char* key = rlx_ctx_strdup(ctx, d->dim_param);
        v = rlx_ir_var(ctx, rlx_onnx_ident(ctx, key), rlx_dt_int64());
        rlx_onnx_strmap_put(&im->dims, key, v);
      }
      dims[i] = v;
    } else { /* unknown: a var of its own */
      dims[i] = &rlx_ir_var(ctx, rlx_ctx_sprintf(ctx, "_d%d", im->n_fresh_dims++), rlx_dt_int64())->hdr;
    }
  }
  *out = rlx_sinfo_tensor(ctx, nd, dims, dt);
  return NULL;
}
