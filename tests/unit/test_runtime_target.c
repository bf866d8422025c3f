/* Targets (include/rlx/target.h): parsing TVM's target strings, the canonical text and its
 * round trip, machine parameters per level, compiler flags, errors, the host and the
 * RLX_MAX_ISA cap (run again under each cap by the test suite). Runtime only. */
#include <stdlib.h>

#include "rlx/target.h"
#include "support/target.h"
#include "test.h"

static rlx_target_t* parse(const char* s) {
  rlx_target_t* t = NULL;
  rlx_status_t* st = rlx_target_parse(s, &t);
  if (st) {
    fprintf(stderr, "parse '%s': %s\n", s, rlx_status_message(st));
    rlx_status_free(st);
  }
  return t;
}

/* text parses, prints as canon, and canon parses to the same features */
static void canon(const char* text, const char* expected) {
  rlx_target_t* t = parse(text);
  CHECK_MSG(t != NULL, "%s", text);
  if (!t) return;
  CHECK_STREQ(rlx_target_str(t), expected);
  rlx_target_t* u = parse(rlx_target_str(t));
  CHECK(u && strcmp(rlx_target_str(u), rlx_target_str(t)) == 0 && u->features == t->features);
  rlx_target_free(u);
  rlx_target_free(t);
}

static void flags(const char* text, const char* expected) {
  rlx_target_t* t = parse(text);
  char buf[512];
  if (t) rlx_target_cc_flags(t, buf, sizeof(buf));
  CHECK_STREQ(t ? buf : NULL, expected);
  rlx_target_free(t);
}

static void levels(void) {
  struct {
    const char* text;
    const char* isa;
    int vbytes, regs, block;
  } cases[] = {
      {"c -mcpu=x86-64-v4", "x86-64-v4", 64, 32, 16},
      {"llvm -mcpu=skylake-avx512", "x86-64-v4", 64, 32, 16},
      {"c -mcpu=znver4", "x86-64-v4", 64, 32, 16},
      {"c -mcpu=x86-64-v3", "x86-64-v3", 32, 16, 8},
      {"c -mcpu=znver3", "x86-64-v3", 32, 16, 8},
      {"c -mcpu=znver4 -mattr=-avx512f", "x86-64-v3", 32, 16, 8},
      {"c -mcpu=x86-64-v2", "x86-64-v2", 16, 16, 8},
      {"c -mtriple=x86_64-linux-gnu", "x86-64-v2", 16, 16, 8},
      {"c -mtriple=aarch64-linux-gnu", "neon", 16, 32, 8},
      {"c -mcpu=neoverse-n1", "neon", 16, 32, 8},
      {"c -mtriple=aarch64-linux-gnu -mattr=-neon", "portable", 16, 16, 8},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    rlx_target_t* t = parse(cases[i].text);
    CHECK_MSG(t && strcmp(rlx_target_isa(t), cases[i].isa) == 0, "%s: isa %s", cases[i].text, t ? rlx_target_isa(t) : "-");
    CHECK_MSG(t && rlx_target_vector_bytes(t) == cases[i].vbytes && rlx_target_vector_regs(t) == cases[i].regs &&
                  rlx_target_nchwc_block(t) == cases[i].block,
              "%s", cases[i].text);
    rlx_target_free(t);
  }
  rlx_target_t* t = parse("c -mcpu=znver3");
  CHECK(t && rlx_target_cache_bytes(t, 2) == 512 << 10 && rlx_target_has_feature(t, "avx2") &&
        !rlx_target_has_feature(t, "avx512f") && rlx_target_arch(t) == RLX_ARCH_X86_64);
  rlx_target_free(t);
  t = parse("c -mcpu=cortex-a72");
  CHECK(t && rlx_target_arch(t) == RLX_ARCH_AARCH64 && strcmp(rlx_target_triple(t), "aarch64-linux-gnu") == 0);
  if (rlx_host_arch() == RLX_ARCH_AARCH64) CHECK(t && rlx_target_default_cc(t) == NULL); /* native */
  else CHECK(t && rlx_target_default_cc(t) && strcmp(rlx_target_default_cc(t), "aarch64-linux-gnu-gcc") == 0);
  rlx_target_free(t);
}

static void errors(void) {
  rlx_target_t* t = NULL;
  CHECK_ERR(rlx_target_parse("cuda", &t), "kind 'cuda' is not supported");
  CHECK_ERR(rlx_target_parse("c -mcpu=pentium2", &t), "unknown -mcpu 'pentium2'");
  CHECK_ERR(rlx_target_parse("c -mtriple=aarch64-linux-gnu -mcpu=bogus", &t), "known: generic, cortex-a53");
  CHECK_ERR(rlx_target_parse("c -mtriple=aarch64-linux-gnu -mcpu=znver3", &t), "-mcpu=znver3 is an x86-64 CPU");
  CHECK_ERR(rlx_target_parse("c -mcpu=x86-64-v3 -mattr=+neon", &t), "unknown x86-64 feature 'neon'");
  CHECK_ERR(rlx_target_parse("c -mcpu=x86-64-v3 -mattr=avx2", &t), "start with + or -");
  CHECK_ERR(rlx_target_parse("c -mtriple=riscv64-linux-gnu", &t), "triple 'riscv64-linux-gnu' is not supported");
  CHECK_ERR(rlx_target_parse("c -frobnicate=1", &t), "unknown option '-frobnicate=1'");
  CHECK_ERR(rlx_target_parse("c -num-cores=x", &t), "-num-cores must be a count");
  CHECK_ERR(rlx_target_parse("c mcpu", &t), "expected -option=value");
  CHECK_ERR(rlx_target_parse("host -mcpu=x86-64", &t), "takes no options");
}

/* The host: detected, runs here, and its level agrees with the runtime's. Under RLX_MAX_ISA
 * the host is capped, a target above the cap is refused naming what is missing. */
static void host(void) {
  rlx_target_t* h = NULL;
  const char* cap = getenv("RLX_MAX_ISA");
  CHECK_OK(rlx_target_host(&h));
  if (!h) return;
  CHECK(h->host);
  CHECK_OK(rlx_target_check_host(h));
  CHECK_STREQ(rlx_target_isa(h), rlx_cpu_isa());
  rlx_target_t* again = parse(rlx_target_str(h));
  CHECK(again && again->features == h->features);
  rlx_target_free(again);
  rlx_target_t* same = parse("llvm");
  CHECK(same && same->features == h->features && strcmp(rlx_target_kind(same), "llvm") == 0);
  rlx_target_free(same);
  printf("host target: %s (kernels: %s%s%s)\n", rlx_target_str(h), rlx_cpu_isa(), cap ? ", RLX_MAX_ISA=" : "",
         cap ? cap : "");
  if (rlx_target_arch(h) == RLX_ARCH_X86_64) {
    rlx_target_t* v4 = parse("c -mcpu=x86-64-v4");
    if (strcmp(rlx_cpu_isa(), "x86-64-v4") == 0) CHECK_OK(rlx_target_check_host(v4));
    else CHECK_ERR(rlx_target_check_host(v4), "avx512f");
    rlx_target_free(v4);
    rlx_target_t* a64 = parse("c -mtriple=aarch64-linux-gnu");
    CHECK_ERR(rlx_target_check_host(a64), "is for aarch64; this machine is x86-64");
    rlx_target_free(a64);
    rlx_target_t* v2 = parse("c -mcpu=x86-64-v2");
    CHECK_OK(rlx_target_check_host(v2));
    rlx_target_free(v2);
  }
  if (cap && strcmp(cap, "x86-64-v3") == 0) {
    CHECK(!rlx_target_has_feature(h, "avx512f"));
    CHECK(strcmp(rlx_target_isa(h), "x86-64-v3") == 0 || strcmp(rlx_target_isa(h), "x86-64-v2") == 0);
  }
  if (cap && strcmp(cap, "x86-64-v2") == 0) CHECK(!rlx_target_has_feature(h, "avx") && rlx_target_vector_bytes(h) == 16);
  rlx_target_free(h);
}

int main(void) {
  canon("llvm -mcpu=skylake-avx512", "llvm -keys=cpu -mcpu=skylake-avx512 -mtriple=x86_64-linux-gnu");
  canon("c -mtriple=x86_64-linux-gnu -mcpu=x86-64-v3 -num-cores=4",
        "c -keys=cpu -mcpu=x86-64-v3 -mtriple=x86_64-linux-gnu -num-cores=4");
  canon("c -mcpu=x86-64-v4 -mattr=-avx512f,+avx512vnni",
        "c -keys=cpu -mattr=-avx512f,+avx512vnni -mcpu=x86-64-v4 -mtriple=x86_64-linux-gnu");
  canon("c -mtriple=aarch64-linux-gnu", "c -keys=cpu -mcpu=generic -mtriple=aarch64-linux-gnu");
  canon("c -mtriple=aarch64-linux-gnu -mattr=+dotprod,+fp16",
        "c -keys=cpu -mattr=+fullfp16,+dotprod -mcpu=generic -mtriple=aarch64-linux-gnu");
  canon("llvm -mcpu=apple-m1", "llvm -keys=cpu -mcpu=apple-m1 -mtriple=aarch64-linux-gnu");
  canon("c -keys=cpu -device=arm_cpu -mcpu=cortex-a72", "c -keys=cpu -mcpu=cortex-a72 -mtriple=aarch64-linux-gnu");
  flags("c -mcpu=x86-64-v3", "-march=x86-64-v3 -mtune=generic");
  flags("c -mcpu=znver4", "-march=x86-64-v4 -mavx512vnni -mavx512bf16 -mtune=znver3");
  flags("c -mcpu=x86-64-v4 -mattr=-avx512bw", "-march=x86-64-v3 -mavx512f -mavx512cd -mavx512dq -mavx512vl -mtune=generic");
  flags("c -mcpu=x86-64-v3 -mattr=-fma", "-march=x86-64-v2 -mavx -mavx2 -mf16c -mbmi -mbmi2 -mlzcnt -mmovbe -mtune=generic");
  flags("c -mtriple=aarch64-linux-gnu", "-march=armv8-a+simd -mtune=generic");
  flags("c -mcpu=neoverse-n1", "-march=armv8.2-a+simd+fp16+dotprod -mtune=neoverse-n1");
  levels();
  errors();
  host();
  TEST_MAIN_END();
}
