/* The metadata section of printed modules (relax_script.h): large constants print as
 * metadata["relax.expr.Constant"][i], and the module text starts with
 *
 *   metadata = tvm.ir.load_json("""{ ...TVM's JSON object graph... }""")
 *
 * as TVM's printer writes it with show_meta=True. The JSON is TVM's serialized object graph
 * (what tvm.ir.save_json writes): "root" is the index of a Map node in "nodes" whose key
 * "relax.expr.Constant" maps to an Array of relax.expr.Constant nodes; a Constant's "data"
 * attr indexes "b64ndarrays", each the base64 of one NDArray in TVM's binary format (the
 * format of the params file: magic 0xDD5E40F096B4A13F, reserved u64, device i32 x 2, ndim
 * i32, dtype u8 u8 u16, shape i64[ndim], nbytes i64, data). The struct info nodes are written
 * so that TVM loads the section; the reader takes dtype and shape from the NDArray itself. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relax_script.h"

static const uint64_t NDARRAY_MAGIC = 0xDD5E40F096B4A13Full;

static void put(rlx_strbuf_t* sb, const void* p, size_t n) { rlx_strbuf_appendn(sb, p, n); }

void rlx_script_ndarray_bytes(const rlx_relax_constant_t* c, rlx_strbuf_t* out) {
  uint64_t u = NDARRAY_MAGIC, zero = 0;
  int32_t dev[2] = {1, 0}, ndim = c->ndim;
  uint8_t code = c->dtype.code, bits = c->dtype.bits;
  uint16_t lanes = c->dtype.lanes;
  int64_t nbytes = (int64_t)c->nbytes;
  put(out, &u, 8);
  put(out, &zero, 8);
  put(out, dev, 8);
  put(out, &ndim, 4);
  put(out, &code, 1);
  put(out, &bits, 1);
  put(out, &lanes, 2);
  put(out, c->shape, 8 * (size_t)(c->ndim > 0 ? c->ndim : 0));
  put(out, &nbytes, 8);
  if (c->nbytes) put(out, c->data, c->nbytes);
}

/* ------------------------------------------------------------------ base64 */
static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_encode(const unsigned char* p, size_t n, rlx_strbuf_t* out) {
  char q[4];
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    q[0] = B64[v >> 18 & 63], q[1] = B64[v >> 12 & 63];
    q[2] = i + 1 < n ? B64[v >> 6 & 63] : '=';
    q[3] = i + 2 < n ? B64[v & 63] : '=';
    rlx_strbuf_appendn(out, q, 4);
  }
}

/* Decodes s (whitespace ignored) into a heap buffer; false on a character outside base64. */
static bool b64_decode(const char* s, unsigned char** out, size_t* out_n) {
  size_t n = strlen(s), k = 0;
  unsigned char* d = malloc(n / 4 * 3 + 3);
  if (!d) return false;
  uint32_t acc = 0;
  int bitsn = 0;
  for (const char* c = s; *c; c++) {
    if (*c == '=' || *c == '\n' || *c == '\r' || *c == ' ') continue;
    const char* f = strchr(B64, *c);
    if (!f || !*c) {
      free(d);
      return false;
    }
    acc = acc << 6 | (uint32_t)(f - B64);
    bitsn += 6;
    if (bitsn >= 8) {
      bitsn -= 8;
      d[k++] = (unsigned char)(acc >> bitsn & 0xFF);
    }
  }
  *out = d;
  *out_n = k;
  return true;
}

/* ------------------------------------------------------------------ printing */
/* One node of the graph, written as TVM's JSON writer lays it out (two-space indent). */
static void node(rlx_strbuf_t* sb, int* count, const char* type_key, const char* body) {
  rlx_strbuf_printf(sb, "%s    {\n      \"type_key\": \"%s\"%s%s\n    }", *count ? ", \n" : "", type_key, *body ? ", \n" : "",
                    body);
  (*count)++;
}

char* rs_metadata_print(const rs_meta_t* meta) {
  rlx_strbuf_t sb = {0}, nodes = {0}, arrays = {0}, list = {0};
  int count = 0;
  node(&nodes, &count, "", "");
  node(&nodes, &count, "Map", "      \"keys\": [\n        \"relax.expr.Constant\"\n      ], \n      \"data\": [2]");
  /* node 2 (the Array of constants) is written once the constants' indices are known */
  rlx_strbuf_t rest = {0};
  int rest_count = 3; /* next free index */
  for (int k = 0; k < meta->consts.len; k++) {
    const rlx_relax_constant_t* c = meta->consts.data[k];
    char dt[32];
    rlx_dtype_str(c->dtype, dt);
    int ci = rest_count, ts = ci + 1, se = ci + 2, ar = ci + 3, ii = ci + 4, ss = ii + c->ndim, st = ss + 1, dy = st + 1;
    rlx_strbuf_printf(&list, "%s%d", k ? ", " : "", ci);
    char body[1024];
    int tmp = 1; /* never the first node here: always a separator */
    snprintf(body, sizeof(body),
             "      \"attrs\": {\n        \"_checked_type_\": \"%d\", \n        \"data\": \"%d\", \n        \"span\": \"0\", "
             "\n        \"struct_info_\": \"%d\"\n      }",
             dy, k, ts);
    node(&rest, &tmp, "relax.expr.Constant", body);
    snprintf(body, sizeof(body),
             "      \"attrs\": {\n        \"dtype\": \"%s\", \n        \"ndim\": \"%d\", \n        \"shape\": \"%d\", \n"
             "        \"span\": \"0\", \n        \"vdevice\": \"0\"\n      }",
             dt, c->ndim, se);
    node(&rest, &tmp, "relax.TensorStructInfo", body);
    snprintf(body, sizeof(body),
             "      \"attrs\": {\n        \"_checked_type_\": \"%d\", \n        \"span\": \"0\", \n        \"struct_info_\": "
             "\"%d\", \n        \"values\": \"%d\"\n      }",
             st, ss, ar);
    node(&rest, &tmp, "relax.expr.ShapeExpr", body);
    rlx_strbuf_t items = {0};
    for (int d = 0; d < c->ndim; d++) rlx_strbuf_printf(&items, "%s%d", d ? ", " : "", ii + d);
    rlx_strbuf_t ab = {0};
    rlx_strbuf_printf(&ab, "      \"data\": [%s]", rlx_strbuf_cstr(&items));
    node(&rest, &tmp, "Array", rlx_strbuf_cstr(&ab));
    rlx_strbuf_free(&ab);
    rlx_strbuf_free(&items);
    for (int d = 0; d < c->ndim; d++) {
      snprintf(body, sizeof(body),
               "      \"attrs\": {\n        \"dtype\": \"int64\", \n        \"span\": \"0\", \n        \"value\": \"%lld\"\n      }",
               (long long)c->shape[d]);
      node(&rest, &tmp, "IntImm", body);
    }
    snprintf(body, sizeof(body),
             "      \"attrs\": {\n        \"ndim\": \"%d\", \n        \"span\": \"0\", \n        \"values\": \"%d\"\n      }",
             c->ndim, ar);
    node(&rest, &tmp, "relax.ShapeStructInfo", body);
    snprintf(body, sizeof(body), "      \"attrs\": {\n        \"ndim\": \"%d\", \n        \"span\": \"0\"\n      }", c->ndim);
    node(&rest, &tmp, "relax.ShapeType", body);
    snprintf(body, sizeof(body),
             "      \"attrs\": {\n        \"dtype\": \"%s\", \n        \"ndim\": \"%d\", \n        \"span\": \"0\"\n      }", dt,
             c->ndim);
    node(&rest, &tmp, "relax.DynTensorType", body);
    rest_count = dy + 1;
    rlx_strbuf_t bytes = {0};
    rlx_script_ndarray_bytes(c, &bytes);
    rlx_strbuf_append(&arrays, k ? ", \n    \"" : "\n    \"");
    b64_encode((const unsigned char*)bytes.data, bytes.len, &arrays);
    rlx_strbuf_append(&arrays, "\"");
    rlx_strbuf_free(&bytes);
  }
  rlx_strbuf_t ab = {0};
  rlx_strbuf_printf(&ab, "      \"data\": [%s]", rlx_strbuf_cstr(&list));
  node(&nodes, &count, "Array", rlx_strbuf_cstr(&ab));
  rlx_strbuf_free(&ab);
  /* the JSON sits in a triple-quoted Python string: its quotes are escaped, as TVM does */
  rlx_strbuf_append(&sb, "metadata = tvm.ir.load_json(\"\"\"{\n  \\\"root\\\": 1, \n  \\\"nodes\\\": [\n");
  rlx_strbuf_t json = {0};
  rlx_strbuf_append(&json, rlx_strbuf_cstr(&nodes));
  rlx_strbuf_append(&json, rlx_strbuf_cstr(&rest));
  rlx_strbuf_append(&json, "\n  ], \n  \"b64ndarrays\": [");
  rlx_strbuf_append(&json, rlx_strbuf_cstr(&arrays));
  rlx_strbuf_append(&json, "\n  ], \n  \"attrs\": {\"tvm_version\": \"0.17.dev0\"}\n}");
  for (const char* p = rlx_strbuf_cstr(&json); *p; p++) {
    if (*p == '"' || *p == '\\') rlx_strbuf_append(&sb, "\\");
    rlx_strbuf_appendn(&sb, p, 1);
  }
  rlx_strbuf_append(&sb, "\"\"\")\n");
  rlx_strbuf_free(&json);
  rlx_strbuf_free(&nodes);
  rlx_strbuf_free(&rest);
  rlx_strbuf_free(&arrays);
  rlx_strbuf_free(&list);
  return rlx_strbuf_take(&sb);
}

int rs_meta_index(rs_meta_t* meta, const rlx_relax_constant_t* c) {
  for (int i = 0; i < meta->consts.len; i++)
    if (meta->consts.data[i] == c) return i;
  rlx_vec_push(&meta->consts, c);
  return meta->consts.len - 1;
}

/* ------------------------------------------------------------------ reading */
static cJSON* node_at(cJSON* nodes, const cJSON* ref) {
  int i = cJSON_IsNumber(ref) ? ref->valueint : cJSON_IsString(ref) ? atoi(ref->valuestring) : -1;
  return i >= 0 && i < cJSON_GetArraySize(nodes) ? cJSON_GetArrayItem(nodes, i) : NULL;
}

static const char* type_key(const cJSON* n) {
  const cJSON* t = cJSON_GetObjectItemCaseSensitive(n, "type_key");
  return cJSON_IsString(t) ? t->valuestring : "";
}

/* One NDArray of TVM's binary format as a constant; NULL when malformed. */
static rlx_relax_expr_t* ndarray_constant(rlx_ctx_t* ctx, const unsigned char* b, size_t n) {
  uint64_t magic;
  int32_t ndim;
  if (n < 28) return NULL;
  memcpy(&magic, b, 8);
  memcpy(&ndim, b + 24, 4);
  if (magic != NDARRAY_MAGIC || ndim < 0 || ndim > 64 || n < 32 + 8 * (size_t)ndim + 8) return NULL;
  rlx_dtype_t t = {0};
  t.code = b[28];
  t.bits = b[29];
  uint16_t lanes;
  memcpy(&lanes, b + 30, 2);
  t.lanes = lanes;
  int64_t shape[64], nbytes;
  memcpy(shape, b + 32, 8 * (size_t)ndim);
  memcpy(&nbytes, b + 32 + 8 * (size_t)ndim, 8);
  size_t off = 40 + 8 * (size_t)ndim;
  if (nbytes < 0 || (size_t)nbytes > n - off) return NULL;
  return rlx_relax_constant(ctx, t, ndim, shape, b + off, (size_t)nbytes);
}

RLX_MUST_USE rlx_status_t* rs_metadata_load(rlx_ctx_t* ctx, const char* json, rlx_span_t sp, rs_meta_t* out) {
  cJSON* root = cJSON_Parse(json);
  if (!root) return rlx_error(RLX_PARSE_ERROR, sp, "metadata: expected TVM's JSON object graph, got text that is not JSON");
  rlx_status_t* st = NULL;
  cJSON* nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
  cJSON* arrays = cJSON_GetObjectItemCaseSensitive(root, "b64ndarrays");
  cJSON* map = cJSON_IsArray(nodes) ? node_at(nodes, cJSON_GetObjectItemCaseSensitive(root, "root")) : NULL;
  if (!map || strcmp(type_key(map), "Map") != 0) {
    st = rlx_error(RLX_PARSE_ERROR, sp, "metadata: expected a \"root\" Map node in \"nodes\"");
    goto done;
  }
  cJSON* keys = cJSON_GetObjectItemCaseSensitive(map, "keys");
  cJSON* data = cJSON_GetObjectItemCaseSensitive(map, "data");
  for (int k = 0; !st && k < cJSON_GetArraySize(keys); k++) {
    cJSON* key = cJSON_GetArrayItem(keys, k);
    if (!cJSON_IsString(key) || strcmp(key->valuestring, "relax.expr.Constant") != 0) {
      st = rlx_error(RLX_PARSE_ERROR, sp, "metadata: only \"relax.expr.Constant\" entries are supported, got \"%s\"",
                     cJSON_IsString(key) ? key->valuestring : "?");
      break;
    }
    cJSON* arr = node_at(nodes, cJSON_GetArrayItem(data, k));
    cJSON* items = arr ? cJSON_GetObjectItemCaseSensitive(arr, "data") : NULL;
    for (int i = 0; !st && i < cJSON_GetArraySize(items); i++) {
      cJSON* c = node_at(nodes, cJSON_GetArrayItem(items, i));
      cJSON* attrs = c ? cJSON_GetObjectItemCaseSensitive(c, "attrs") : NULL;
      cJSON* di = attrs ? cJSON_GetObjectItemCaseSensitive(attrs, "data") : NULL;
      cJSON* b64 = di ? node_at(arrays, di) : NULL;
      unsigned char* bytes = NULL;
      size_t nb = 0;
      rlx_relax_expr_t* e = NULL;
      if (c && strcmp(type_key(c), "relax.expr.Constant") == 0 && cJSON_IsString(b64) &&
          b64_decode(b64->valuestring, &bytes, &nb))
        e = ndarray_constant(ctx, bytes, nb);
      free(bytes);
      if (!e) {
        st = rlx_error(RLX_PARSE_ERROR, sp, "metadata[\"relax.expr.Constant\"][%d]: expected a Constant node whose "
                       "\"data\" is a base64 NDArray of \"b64ndarrays\"", i);
        break;
      }
      rlx_vec_push(&out->consts, (const rlx_relax_constant_t*)e);
    }
  }
done:
  cJSON_Delete(root);
  return st;
}
