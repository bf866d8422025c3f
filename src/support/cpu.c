/* The running CPU: its features (cpuid and xgetbv on x86-64, HWCAP on aarch64), its caches,
 * its microarchitecture where we know it, and the RLX_MAX_ISA cap (target.h). Detection
 * runs once per process (pthread_once); the cap is read then too. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

rlx_arch_t rlx_host_arch(void) {
#if defined(__x86_64__)
  return RLX_ARCH_X86_64;
#elif defined(__aarch64__)
  return RLX_ARCH_AARCH64;
#else
  return RLX_ARCH_OTHER;
#endif
}

#if defined(__x86_64__)
static uint64_t xgetbv0(void) {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((uint64_t)hi << 32) | lo;
}

static uint64_t detect(char* uarch, size_t n) {
  unsigned a, b, c, d, max;
  uint64_t f = 0;
  if (!__get_cpuid(0, &max, &b, &c, &d)) return RLX_FEAT(SSE2);
  bool amd = b == 0x68747541; /* "Auth" */
  __cpuid(1, a, b, c, d);
  unsigned family = (a >> 8) & 0xf, model = (a >> 4) & 0xf;
  if (family == 0xf) family += (a >> 20) & 0xff;
  if (family >= 6) model |= ((a >> 16) & 0xf) << 4;
  if (d & (1u << 26)) f |= RLX_FEAT(SSE2);
  if (c & (1u << 0)) f |= RLX_FEAT(SSE3);
  if (c & (1u << 9)) f |= RLX_FEAT(SSSE3);
  if (c & (1u << 19)) f |= RLX_FEAT(SSE41);
  if (c & (1u << 20)) f |= RLX_FEAT(SSE42);
  if (c & (1u << 22)) f |= RLX_FEAT(MOVBE);
  if (c & (1u << 23)) f |= RLX_FEAT(POPCNT);
  /* AVX state must be enabled by the OS (OSXSAVE, XCR0 bits 1-2), AVX-512 state too (5-7) */
  bool os_avx = false, os_avx512 = false;
  if ((c & (1u << 27)) && (c & (1u << 28))) {
    uint64_t xcr0 = xgetbv0();
    os_avx = (xcr0 & 0x6) == 0x6;
    os_avx512 = os_avx && (xcr0 & 0xe0) == 0xe0;
  }
  if (os_avx) {
    f |= RLX_FEAT(AVX);
    if (c & (1u << 12)) f |= RLX_FEAT(FMA);
    if (c & (1u << 29)) f |= RLX_FEAT(F16C);
  }
  if (max >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    if (b & (1u << 3)) f |= RLX_FEAT(BMI);
    if (b & (1u << 8)) f |= RLX_FEAT(BMI2);
    if (os_avx && (b & (1u << 5))) f |= RLX_FEAT(AVX2);
    if (os_avx512) {
      if (b & (1u << 16)) f |= RLX_FEAT(AVX512F);
      if (b & (1u << 17)) f |= RLX_FEAT(AVX512DQ);
      if (b & (1u << 28)) f |= RLX_FEAT(AVX512CD);
      if (b & (1u << 30)) f |= RLX_FEAT(AVX512BW);
      if (b & (1u << 31)) f |= RLX_FEAT(AVX512VL);
      if (c & (1u << 11)) f |= RLX_FEAT(AVX512VNNI);
    }
    unsigned a1 = 0, b1, c1, d1;
    if (a >= 1) __cpuid_count(7, 1, a1, b1, c1, d1);
    if (os_avx && (a1 & (1u << 4))) f |= RLX_FEAT(AVXVNNI);
    if (os_avx512 && (a1 & (1u << 5))) f |= RLX_FEAT(AVX512BF16);
  }
  if (__get_cpuid(0x80000001, &a, &b, &c, &d) && (c & (1u << 5))) f |= RLX_FEAT(LZCNT);
  /* the microarchitecture, where the tuning tables know it (AMD Zen; Intel by level) */
  const char* name = NULL;
  if (amd && family == 0x17) name = model >= 0x30 ? "znver2" : "znver1";
  if (amd && family == 0x19)
    name = (model >= 0x10 && model <= 0x1f) || (model >= 0x60 && model <= 0x7f) || (model >= 0xa0 && model <= 0xaf)
               ? "znver4"
               : "znver3";
  if (amd && family == 0x1a) name = "znver5";
  if (name) snprintf(uarch, n, "%s", name);
  return f;
}
#elif defined(__aarch64__) && defined(__linux__)
static uint64_t detect(char* uarch, size_t n) {
  unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
  uint64_t f = 0;
  if (hw & (1ul << 1)) f |= RLX_FEAT(NEON);    /* HWCAP_ASIMD */
  if (hw & (1ul << 10)) f |= RLX_FEAT(FP16);   /* HWCAP_ASIMDHP */
  if (hw & (1ul << 20)) f |= RLX_FEAT(DOTPROD); /* HWCAP_ASIMDDP */
  if (hw & (1ul << 22)) f |= RLX_FEAT(SVE);    /* HWCAP_SVE */
  if (hw2 & (1ul << 13)) f |= RLX_FEAT(I8MM);  /* HWCAP2_I8MM */
  if (hw2 & (1ul << 14)) f |= RLX_FEAT(BF16);  /* HWCAP2_BF16 */
  (void)uarch, (void)n;
  return f;
}
#else
static uint64_t detect(char* uarch, size_t n) {
  (void)uarch, (void)n;
  return 0;
}
#endif

typedef struct {
  uint64_t features;   /* detected */
  uint64_t capped;     /* after RLX_MAX_ISA */
  const char* cap_err; /* malformed RLX_MAX_ISA */
  char uarch[32];
  int64_t cache[3];
} cpu_t;

static cpu_t cpu;
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

/* RLX_MAX_ISA: the features a level keeps (x86). */
static bool cap_mask(const char* v, uint64_t* out) {
  static const struct {
    const char* name;
    rlx_isa_t isa;
  } levels[] = {{"x86-64", RLX_ISA_X86_V2}, {"x86-64-v2", RLX_ISA_X86_V2}, {"x86-64-v3", RLX_ISA_X86_V3},
                {"x86-64-v4", RLX_ISA_X86_V4}};
  const uint64_t v2 = RLX_FEAT(SSE2) | RLX_FEAT(SSE3) | RLX_FEAT(SSSE3) | RLX_FEAT(SSE41) | RLX_FEAT(SSE42) |
                      RLX_FEAT(POPCNT);
  const uint64_t v3 = v2 | RLX_FEAT(AVX) | RLX_FEAT(AVX2) | RLX_FEAT(FMA) | RLX_FEAT(F16C) | RLX_FEAT(BMI) |
                      RLX_FEAT(BMI2) | RLX_FEAT(LZCNT) | RLX_FEAT(MOVBE);
  for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
    if (strcmp(v, levels[i].name) != 0) continue;
    *out = levels[i].isa == RLX_ISA_X86_V2 ? v2 : levels[i].isa == RLX_ISA_X86_V3 ? v3 : ~0ull;
    if (strcmp(v, "x86-64") == 0) *out = RLX_FEAT(SSE2);
    return true;
  }
  return false;
}

static int64_t sys_cache(int name, int64_t fallback) {
  long v = sysconf(name);
  return v > 0 ? v : fallback;
}

static void cpu_init(void) {
  cpu.features = detect(cpu.uarch, sizeof(cpu.uarch));
  cpu.capped = cpu.features;
  const char* v = getenv("RLX_MAX_ISA");
  if (v && *v) {
    uint64_t mask;
    if (cap_mask(v, &mask)) cpu.capped &= mask;
    else cpu.cap_err = "RLX_MAX_ISA must be x86-64, x86-64-v2, x86-64-v3 or x86-64-v4";
    if (cpu.capped != cpu.features) cpu.uarch[0] = 0; /* capped: named by its level */
  }
#ifdef _SC_LEVEL1_DCACHE_SIZE
  cpu.cache[0] = sys_cache(_SC_LEVEL1_DCACHE_SIZE, 32 << 10);
  cpu.cache[1] = sys_cache(_SC_LEVEL2_CACHE_SIZE, 512 << 10);
  cpu.cache[2] = sys_cache(_SC_LEVEL3_CACHE_SIZE, 8 << 20);
#else
  cpu.cache[0] = 32 << 10, cpu.cache[1] = 512 << 10, cpu.cache[2] = 8 << 20;
#endif
}

uint64_t rlx_cpu_features(const char** out_cap_error) {
  pthread_once(&cpu_once, cpu_init);
  if (out_cap_error) *out_cap_error = cpu.cap_err;
  return cpu.capped;
}

rlx_isa_t rlx_cpu_isa_level(void) { return rlx_isa_of(rlx_host_arch(), rlx_cpu_features(NULL)); }

const char* rlx_cpu_isa(void) { return rlx_isa_info(rlx_cpu_isa_level())->name; }

/* For target.c: the detected microarchitecture ("" unknown or capped) and caches. */
const char* rlx_cpu_uarch(void) {
  pthread_once(&cpu_once, cpu_init);
  return cpu.uarch;
}

int64_t rlx_cpu_cache(int level) {
  pthread_once(&cpu_once, cpu_init);
  return cpu.cache[level - 1];
}
