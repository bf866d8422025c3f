/* Targets (include/rlx/target.h, target.h): the CPU table, parsing TVM's target strings, the
 * canonical text, the kernel levels and the C compiler flags of a target. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target.h"

static const struct {
  const char* name;
  rlx_arch_t arch;
  const char* gcc;
} features[] = {
#define RLX_FEATURE(ID, name, arch, gcc) {name, RLX_ARCH_##arch, gcc},
#include "target.def"
#undef RLX_FEATURE
};

#define F(ID) RLX_FEAT(ID)
#define X86_V1 (F(SSE2))
#define X86_V2 (X86_V1 | F(SSE3) | F(SSSE3) | F(SSE41) | F(SSE42) | F(POPCNT))
#define X86_V3 (X86_V2 | F(AVX) | F(AVX2) | F(FMA) | F(F16C) | F(BMI) | F(BMI2) | F(LZCNT) | F(MOVBE))
#define X86_V4 (X86_V3 | F(AVX512F) | F(AVX512CD) | F(AVX512BW) | F(AVX512DQ) | F(AVX512VL))
#define A64_V82 (F(NEON) | F(FP16) | F(DOTPROD))

/* The CPUs -mcpu names. gcc_arch: aarch64's base -march (x86 derives it from the features);
 * gcc_tune: a -mtune GCC 12 knows ("" none); caches: L1d, L2 per core, L3. */
static const struct {
  const char* name;
  rlx_arch_t arch;
  uint64_t features;
  const char* gcc_arch;
  const char* gcc_tune;
  int64_t cache[3];
} cpus[] = {
    {"x86-64", RLX_ARCH_X86_64, X86_V1, "", "generic", {32 << 10, 512 << 10, 8 << 20}},
    {"x86-64-v2", RLX_ARCH_X86_64, X86_V2, "", "generic", {32 << 10, 512 << 10, 8 << 20}},
    {"x86-64-v3", RLX_ARCH_X86_64, X86_V3, "", "generic", {32 << 10, 512 << 10, 16 << 20}},
    {"x86-64-v4", RLX_ARCH_X86_64, X86_V4, "", "generic", {32 << 10, 1 << 20, 16 << 20}},
    {"haswell", RLX_ARCH_X86_64, X86_V3, "", "haswell", {32 << 10, 256 << 10, 8 << 20}},
    {"broadwell", RLX_ARCH_X86_64, X86_V3, "", "broadwell", {32 << 10, 256 << 10, 8 << 20}},
    {"skylake", RLX_ARCH_X86_64, X86_V3, "", "skylake", {32 << 10, 256 << 10, 8 << 20}},
    {"alderlake", RLX_ARCH_X86_64, X86_V3 | F(AVXVNNI), "", "alderlake", {48 << 10, 1280 << 10, 30 << 20}},
    {"skylake-avx512", RLX_ARCH_X86_64, X86_V4, "", "skylake-avx512", {32 << 10, 1 << 20, 32 << 20}},
    {"cascadelake", RLX_ARCH_X86_64, X86_V4 | F(AVX512VNNI), "", "cascadelake", {32 << 10, 1 << 20, 32 << 20}},
    {"icelake-client", RLX_ARCH_X86_64, X86_V4 | F(AVX512VNNI), "", "icelake-client", {48 << 10, 512 << 10, 8 << 20}},
    {"icelake-server", RLX_ARCH_X86_64, X86_V4 | F(AVX512VNNI), "", "icelake-server", {48 << 10, 1280 << 10, 48 << 20}},
    {"sapphirerapids", RLX_ARCH_X86_64, X86_V4 | F(AVX512VNNI) | F(AVX512BF16) | F(AVXVNNI), "", "sapphirerapids",
     {48 << 10, 2 << 20, 60 << 20}},
    {"znver1", RLX_ARCH_X86_64, X86_V3, "", "znver1", {32 << 10, 512 << 10, 8 << 20}},
    {"znver2", RLX_ARCH_X86_64, X86_V3, "", "znver2", {32 << 10, 512 << 10, 16 << 20}},
    {"znver3", RLX_ARCH_X86_64, X86_V3, "", "znver3", {32 << 10, 512 << 10, 32 << 20}},
    {"znver4", RLX_ARCH_X86_64, X86_V4 | F(AVX512VNNI) | F(AVX512BF16), "", "znver3", {32 << 10, 1 << 20, 32 << 20}},
    {"znver5", RLX_ARCH_X86_64, X86_V4 | F(AVX512VNNI) | F(AVX512BF16) | F(AVXVNNI), "", "znver3",
     {48 << 10, 1 << 20, 32 << 20}},
    {"generic", RLX_ARCH_AARCH64, F(NEON), "armv8-a", "generic", {32 << 10, 512 << 10, 4 << 20}},
    {"cortex-a53", RLX_ARCH_AARCH64, F(NEON), "armv8-a", "cortex-a53", {32 << 10, 512 << 10, 0}},
    {"cortex-a72", RLX_ARCH_AARCH64, F(NEON), "armv8-a", "cortex-a72", {32 << 10, 1 << 20, 0}},
    {"cortex-a55", RLX_ARCH_AARCH64, A64_V82, "armv8.2-a", "cortex-a55", {32 << 10, 256 << 10, 2 << 20}},
    {"cortex-a76", RLX_ARCH_AARCH64, A64_V82, "armv8.2-a", "cortex-a76", {64 << 10, 512 << 10, 4 << 20}},
    {"neoverse-n1", RLX_ARCH_AARCH64, A64_V82, "armv8.2-a", "neoverse-n1", {64 << 10, 1 << 20, 32 << 20}},
    {"neoverse-n2", RLX_ARCH_AARCH64, A64_V82 | F(I8MM) | F(BF16) | F(SVE), "armv8.5-a", "neoverse-n2",
     {64 << 10, 1 << 20, 32 << 20}},
    {"neoverse-v1", RLX_ARCH_AARCH64, A64_V82 | F(I8MM) | F(BF16) | F(SVE), "armv8.4-a", "neoverse-v1",
     {64 << 10, 1 << 20, 32 << 20}},
    {"apple-m1", RLX_ARCH_AARCH64, A64_V82, "armv8.4-a", "generic", {128 << 10, 4 << 20, 12 << 20}},
    {"apple-m2", RLX_ARCH_AARCH64, A64_V82 | F(I8MM) | F(BF16), "armv8.4-a", "generic", {128 << 10, 4 << 20, 16 << 20}},
};
enum { N_CPUS = sizeof(cpus) / sizeof(cpus[0]) };

static const rlx_isa_info_t isas[RLX_ISA_COUNT] = {
    [RLX_ISA_PORTABLE] = {"portable", RLX_ARCH_OTHER, 0, 16, 16, 8, 0},
    [RLX_ISA_X86_V2] = {"x86-64-v2", RLX_ARCH_X86_64, X86_V1, 16, 16, 8, 0},
    [RLX_ISA_X86_V3] = {"x86-64-v3", RLX_ARCH_X86_64, F(AVX) | F(AVX2) | F(FMA), 32, 16, 8, 1},
    [RLX_ISA_X86_V4] = {"x86-64-v4", RLX_ARCH_X86_64, X86_V4, 64, 32, 16, 1},
    [RLX_ISA_NEON] = {"neon", RLX_ARCH_AARCH64, F(NEON), 16, 32, 8, 1},
};

const rlx_isa_info_t* rlx_isa_info(rlx_isa_t isa) { return &isas[isa]; }

rlx_isa_t rlx_isa_of(rlx_arch_t arch, uint64_t f) {
  switch (arch) {
    case RLX_ARCH_X86_64:
      if ((f & isas[RLX_ISA_X86_V4].requires) == isas[RLX_ISA_X86_V4].requires) return RLX_ISA_X86_V4;
      if ((f & isas[RLX_ISA_X86_V3].requires) == isas[RLX_ISA_X86_V3].requires) return RLX_ISA_X86_V3;
      return RLX_ISA_X86_V2;
    case RLX_ARCH_AARCH64:
      return f & F(NEON) ? RLX_ISA_NEON : RLX_ISA_PORTABLE;
    case RLX_ARCH_OTHER:
      return RLX_ISA_PORTABLE;
  }
  return RLX_ISA_PORTABLE;
}

static const char* arch_name(rlx_arch_t a) {
  return a == RLX_ARCH_X86_64 ? "x86-64" : a == RLX_ARCH_AARCH64 ? "aarch64" : "other";
}

static const char* default_triple(rlx_arch_t a) {
  return a == RLX_ARCH_X86_64 ? "x86_64-linux-gnu" : a == RLX_ARCH_AARCH64 ? "aarch64-linux-gnu" : "";
}

static rlx_arch_t arch_of_triple(const char* t) {
  if (strncmp(t, "x86_64", 6) == 0 || strncmp(t, "amd64", 5) == 0) return RLX_ARCH_X86_64;
  if (strncmp(t, "aarch64", 7) == 0 || strncmp(t, "arm64", 5) == 0) return RLX_ARCH_AARCH64;
  return RLX_ARCH_OTHER;
}

static int find_cpu(const char* name) {
  for (int i = 0; i < N_CPUS; i++)
    if (strcmp(cpus[i].name, name) == 0) return i;
  return -1;
}

static int find_feature(const char* name, rlx_arch_t arch) {
  /* aliases GCC users write */
  if (strcmp(name, "fp16") == 0 && arch == RLX_ARCH_AARCH64) name = "fullfp16";
  if (strcmp(name, "simd") == 0 && arch == RLX_ARCH_AARCH64) name = "neon";
  if (strcmp(name, "avx512vnni") == 0 || strcmp(name, "avx512_vnni") == 0) name = "avx512vnni";
  for (int i = 0; i < RLX_FEAT_COUNT; i++)
    if (strcmp(features[i].name, name) == 0) return i;
  return -1;
}

static rlx_status_t* unknown_cpu(const char* name, rlx_arch_t arch) {
  char list[1024] = "";
  size_t n = 0;
  for (int i = 0; i < N_CPUS; i++)
    if (arch == RLX_ARCH_OTHER || cpus[i].arch == arch)
      n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", cpus[i].name);
  return rlx_status_create(RLX_INVALID_ARGUMENT, "target: unknown -mcpu '%s'%s%s (known: %s, native)", name,
                           arch != RLX_ARCH_OTHER ? " for " : "", arch != RLX_ARCH_OTHER ? arch_name(arch) : "", list);
}

/* The highest x86-64 level whose features all of f has (x86-64 when not even v2). */
static const char* x86_level(uint64_t f) {
  if ((f & X86_V4) == X86_V4) return "x86-64-v4";
  if ((f & X86_V3) == X86_V3) return "x86-64-v3";
  if ((f & X86_V2) == X86_V2) return "x86-64-v2";
  return "x86-64";
}

static void finish(rlx_target_t* t) {
  /* the feature list and the canonical text */
  size_t n = 0;
  t->feature_list[0] = 0;
  for (int i = 0; i < RLX_FEAT_COUNT; i++)
    if (t->features & (1ull << i))
      n += (size_t)snprintf(t->feature_list + n, sizeof(t->feature_list) - n, "%s%s", n ? "," : "", features[i].name);
  char mattr[256] = "";
  n = 0;
  for (int i = 0; i < RLX_FEAT_COUNT; i++) {
    uint64_t b = 1ull << i;
    if ((t->features & b) != (t->cpu_features & b))
      n += (size_t)snprintf(mattr + n, sizeof(mattr) - n, "%s%c%s", n ? "," : "", t->features & b ? '+' : '-',
                            features[i].name);
  }
  n = (size_t)snprintf(t->text, sizeof(t->text), "%s -keys=cpu", t->kind);
  if (mattr[0]) n += (size_t)snprintf(t->text + n, sizeof(t->text) - n, " -mattr=%s", mattr);
  n += (size_t)snprintf(t->text + n, sizeof(t->text) - n, " -mcpu=%s", t->mcpu);
  if (t->triple[0]) n += (size_t)snprintf(t->text + n, sizeof(t->text) - n, " -mtriple=%s", t->triple);
  if (t->num_cores) snprintf(t->text + n, sizeof(t->text) - n, " -num-cores=%d", t->num_cores);
}

/* The CPU this process runs on, by its features (capped), into t's cpu fields. */
static rlx_status_t* host_cpu(rlx_target_t* t) {
  const char* cap_err = NULL;
  uint64_t f = rlx_cpu_features(&cap_err);
  if (cap_err) return rlx_status_create(RLX_INVALID_ARGUMENT, "%s (it is '%s')", cap_err, getenv("RLX_MAX_ISA"));
  t->arch = rlx_host_arch();
  t->host = true;
  snprintf(t->triple, sizeof(t->triple), "%s", default_triple(t->arch));
  const char* u = rlx_cpu_uarch();
  int k = u[0] ? find_cpu(u) : -1;
  if (k < 0) k = find_cpu(t->arch == RLX_ARCH_X86_64 ? x86_level(f) : t->arch == RLX_ARCH_AARCH64 ? "generic" : "");
  if (k >= 0) {
    snprintf(t->mcpu, sizeof(t->mcpu), "%s", cpus[k].name);
    t->cpu_features = cpus[k].features;
    snprintf(t->gcc_arch, sizeof(t->gcc_arch), "%s", cpus[k].gcc_arch);
    snprintf(t->gcc_tune, sizeof(t->gcc_tune), "%s", cpus[k].gcc_tune);
  } else {
    snprintf(t->mcpu, sizeof(t->mcpu), "generic");
    t->cpu_features = f;
  }
  t->features = f;
  for (int l = 0; l < 3; l++) t->cache[l] = rlx_cpu_cache(l + 1);
  return NULL;
}

static void named_cpu(rlx_target_t* t, int k) {
  t->arch = cpus[k].arch;
  snprintf(t->mcpu, sizeof(t->mcpu), "%s", cpus[k].name);
  t->features = t->cpu_features = cpus[k].features;
  snprintf(t->gcc_arch, sizeof(t->gcc_arch), "%s", cpus[k].gcc_arch);
  snprintf(t->gcc_tune, sizeof(t->gcc_tune), "%s", cpus[k].gcc_tune);
  memcpy(t->cache, cpus[k].cache, sizeof(t->cache));
  if (t->cache[2] == 0) t->cache[2] = t->cache[1];
}

static bool parse_int(const char* s, int* out) {
  char* end;
  long v = strtol(s, &end, 10);
  if (!*s || *end || v < 0 || v > 4096) return false;
  *out = (int)v;
  return true;
}

RLX_MUST_USE rlx_status_t* rlx_target_host_into(rlx_target_t* t) {
  memset(t, 0, sizeof(*t));
  snprintf(t->kind, sizeof(t->kind), "c");
  RLX_RETURN_IF_ERROR(host_cpu(t));
  finish(t);
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_target_parse_into(const char* text, rlx_target_t* t) {
  memset(t, 0, sizeof(*t));
  if (!text) text = "";
  char buf[1024];
  if (strlen(text) >= sizeof(buf)) return rlx_status_create(RLX_INVALID_ARGUMENT, "target: the string is too long");
  snprintf(buf, sizeof(buf), "%s", text);
  char* save = NULL;
  char* tok = strtok_r(buf, " \t\n", &save);
  if (!tok || strcmp(tok, "host") == 0 || strcmp(tok, "native") == 0) {
    if (tok && strtok_r(NULL, " \t\n", &save))
      return rlx_status_create(RLX_INVALID_ARGUMENT, "target: '%s' takes no options (use 'c -mcpu=native ...')", tok);
    return rlx_target_host_into(t);
  }
  if (strcmp(tok, "c") != 0 && strcmp(tok, "llvm") != 0)
    return rlx_status_create(RLX_UNSUPPORTED,
                             "target: kind '%s' is not supported: rlx generates C for CPUs (kinds 'c' and 'llvm', "
                             "or 'host')",
                             tok);
  snprintf(t->kind, sizeof(t->kind), "%s", tok);
  const char* mcpu = NULL;
  const char* triple = NULL;
  const char* mattr = NULL;
  while ((tok = strtok_r(NULL, " \t\n", &save))) {
    const char* opt = tok[0] == '-' ? tok + (tok[1] == '-' ? 2 : 1) : NULL;
    const char* eq = opt ? strchr(opt, '=') : NULL;
    if (!eq) return rlx_status_create(RLX_INVALID_ARGUMENT, "target: expected -option=value, got '%s'", tok);
    size_t kl = (size_t)(eq - opt);
    const char* v = eq + 1;
#define IS(k) (kl == strlen(k) && strncmp(opt, k, kl) == 0)
    if (IS("mcpu")) mcpu = v;
    else if (IS("mtriple")) triple = v;
    else if (IS("mattr")) mattr = v;
    else if (IS("num-cores")) {
      if (!parse_int(v, &t->num_cores))
        return rlx_status_create(RLX_INVALID_ARGUMENT, "target: -num-cores must be a count, got '%s'", v);
    } else if (IS("keys") || IS("device") || IS("model") || IS("tag") || IS("opt-level") || IS("mabi") ||
               IS("mfloat-abi") || IS("link-params") || IS("system-lib")) {
      /* TVM's options that do not change the CPU code */
    } else {
      return rlx_status_create(RLX_INVALID_ARGUMENT,
                               "target: unknown option '%s' (known: -mcpu, -mtriple, -mattr, -num-cores, -keys)", tok);
    }
#undef IS
  }
  rlx_arch_t tarch = triple ? arch_of_triple(triple) : RLX_ARCH_OTHER;
  if (triple && tarch == RLX_ARCH_OTHER)
    return rlx_status_create(RLX_UNSUPPORTED, "target: triple '%s' is not supported (x86_64-linux-gnu, aarch64-linux-gnu)",
                             triple);
  if (mcpu && strcmp(mcpu, "native") == 0) {
    RLX_RETURN_IF_ERROR(host_cpu(t));
    if (triple && tarch != t->arch)
      return rlx_status_create(RLX_INVALID_ARGUMENT, "target: -mcpu=native on this %s machine with triple '%s'",
                               arch_name(t->arch), triple);
  } else if (mcpu) {
    int k = find_cpu(mcpu);
    if (k < 0) return unknown_cpu(mcpu, tarch);
    if (triple && cpus[k].arch != tarch)
      return rlx_status_create(RLX_INVALID_ARGUMENT, "target: -mcpu=%s is an %s CPU, but the triple '%s' is %s", mcpu,
                               arch_name(cpus[k].arch), triple, arch_name(tarch));
    named_cpu(t, k);
  } else if (triple) {
    named_cpu(t, find_cpu(tarch == RLX_ARCH_X86_64 ? "x86-64" : "generic"));
  } else {
    RLX_RETURN_IF_ERROR(host_cpu(t));
  }
  snprintf(t->triple, sizeof(t->triple), "%s", triple ? triple : default_triple(t->arch));
  if (mattr) {
    char ab[512];
    snprintf(ab, sizeof(ab), "%s", mattr);
    char* s2 = NULL;
    for (char* a = strtok_r(ab, ",", &s2); a; a = strtok_r(NULL, ",", &s2)) {
      while (isspace((unsigned char)*a)) a++;
      if (*a != '+' && *a != '-')
        return rlx_status_create(RLX_INVALID_ARGUMENT, "target: -mattr entries start with + or -, got '%s'", a);
      int k = find_feature(a + 1, t->arch);
      if (k < 0 || features[k].arch != t->arch) {
        char known[768] = "";
        size_t n = 0;
        for (int i = 0; i < RLX_FEAT_COUNT; i++)
          if (features[i].arch == t->arch)
            n += (size_t)snprintf(known + n, sizeof(known) - n, "%s%s", n ? ", " : "", features[i].name);
        return rlx_status_create(RLX_INVALID_ARGUMENT, "target: unknown %s feature '%s' in -mattr (known: %s)",
                                 arch_name(t->arch), a + 1, known);
      }
      if (*a == '+') t->features |= 1ull << k;
      else t->features &= ~(1ull << k);
    }
  }
  finish(t);
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_target_parse(const char* text, rlx_target_t** out) {
  rlx_target_t* t = malloc(sizeof(*t));
  if (!t) return rlx_status_create(RLX_OUT_OF_MEMORY, "out of memory for a target");
  rlx_status_t* st = rlx_target_parse_into(text, t);
  if (st) {
    free(t);
    return st;
  }
  *out = t;
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_target_host(rlx_target_t** out) { return rlx_target_parse(NULL, out); }

void rlx_target_free(rlx_target_t* t) { free(t); }
const char* rlx_target_str(const rlx_target_t* t) { return t->text; }
const char* rlx_target_kind(const rlx_target_t* t) { return t->kind; }
const char* rlx_target_mcpu(const rlx_target_t* t) { return t->mcpu; }
const char* rlx_target_triple(const rlx_target_t* t) { return t->triple; }
rlx_arch_t rlx_target_arch(const rlx_target_t* t) { return t->arch; }
const char* rlx_target_features(const rlx_target_t* t) { return t->feature_list; }
int rlx_target_num_cores(const rlx_target_t* t) { return t->num_cores; }

bool rlx_target_has_feature(const rlx_target_t* t, const char* name) {
  int k = find_feature(name, t->arch);
  return k >= 0 && (t->features & (1ull << k));
}

rlx_isa_t rlx_target_isa_level(const rlx_target_t* t) { return rlx_isa_of(t->arch, t->features); }
const char* rlx_target_isa(const rlx_target_t* t) { return isas[rlx_target_isa_level(t)].name; }
int rlx_target_vector_bytes(const rlx_target_t* t) { return isas[rlx_target_isa_level(t)].vector_bytes; }
int rlx_target_vector_regs(const rlx_target_t* t) { return isas[rlx_target_isa_level(t)].vector_regs; }
int rlx_target_nchwc_block(const rlx_target_t* t) { return isas[rlx_target_isa_level(t)].nchwc_block; }

int64_t rlx_target_cache_bytes(const rlx_target_t* t, int level) {
  return level >= 1 && level <= 3 ? t->cache[level - 1] : 0;
}

RLX_MUST_USE rlx_status_t* rlx_target_check_host(const rlx_target_t* t) {
  const char* cap_err = NULL;
  uint64_t have = rlx_cpu_features(&cap_err);
  if (cap_err) return rlx_status_create(RLX_INVALID_ARGUMENT, "%s (it is '%s')", cap_err, getenv("RLX_MAX_ISA"));
  rlx_arch_t arch = rlx_host_arch();
  if (t->arch != arch)
    return rlx_status_create(RLX_UNSUPPORTED, "target '%s' is for %s; this machine is %s", t->text, arch_name(t->arch),
                             arch_name(arch));
  uint64_t missing = t->features & ~have;
  if (!missing) return NULL;
  char list[512] = "";
  size_t n = 0;
  for (int i = 0; i < RLX_FEAT_COUNT; i++)
    if (missing & (1ull << i)) n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", features[i].name);
  const char* cap = getenv("RLX_MAX_ISA");
  return rlx_status_create(RLX_UNSUPPORTED, "target '%s' needs %s, which this CPU (%s%s%s) lacks", t->text, list,
                           rlx_cpu_isa(), cap && *cap ? ", capped by RLX_MAX_ISA=" : "", cap && *cap ? cap : "");
}

const char* rlx_target_default_cc(const rlx_target_t* t) {
  if (t->arch == rlx_host_arch()) return NULL;
  return t->arch == RLX_ARCH_AARCH64 ? "aarch64-linux-gnu-gcc" : t->arch == RLX_ARCH_X86_64 ? "x86_64-linux-gnu-gcc"
                                                                                             : NULL;
}

void rlx_target_cc_flags(const rlx_target_t* t, char* buf, size_t size) {
  size_t n = 0;
#define PUT(...) (n += (size_t)snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__))
  buf[0] = 0;
  if (t->arch == RLX_ARCH_X86_64) {
    const char* level = x86_level(t->features);
    uint64_t base = strcmp(level, "x86-64-v4") == 0   ? X86_V4
                    : strcmp(level, "x86-64-v3") == 0 ? X86_V3
                    : strcmp(level, "x86-64-v2") == 0 ? X86_V2
                                                      : X86_V1;
    PUT("-march=%s", level);
    for (int i = 0; i < RLX_FEAT_COUNT; i++) {
      uint64_t b = 1ull << i;
      if (features[i].arch == RLX_ARCH_X86_64 && (t->features & b) != (base & b))
        PUT(" -m%s%s", t->features & b ? "" : "no-", features[i].gcc);
    }
  } else if (t->arch == RLX_ARCH_AARCH64) {
    const char* base = t->gcc_arch[0] ? t->gcc_arch : "armv8-a";
    if (strcmp(base, "armv8-a") == 0 && (t->features & (F(FP16) | F(DOTPROD) | F(I8MM) | F(BF16) | F(SVE))))
      base = "armv8.2-a"; /* the extensions need 8.2 */
    PUT("-march=%s", base);
    for (int i = 0; i < RLX_FEAT_COUNT; i++)
      if (features[i].arch == RLX_ARCH_AARCH64 && (t->features & (1ull << i))) PUT("+%s", features[i].gcc);
    if (!(t->features & F(NEON))) PUT("+nosimd");
  }
  if (t->gcc_tune[0]) PUT("%s-mtune=%s", n ? " " : "", t->gcc_tune);
#undef PUT
}

RLX_MUST_USE rlx_status_t* rlx_target_cflags(const rlx_target_t* t, char* buf, size_t size) {
  char flags[512];
  rlx_target_cc_flags(t, flags, sizeof(flags));
  if ((size_t)snprintf(buf, size, "-O3 -ffp-contract=fast %s", flags) >= size)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "rlx_target_cflags: buffer too small");
  return NULL;
}
