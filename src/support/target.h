/* Targets inside rlx (include/rlx/target.h is the public side): the struct, the feature
 * bits, the kernel levels and the running CPU's features. Support layer: the runtime uses
 * it to pick kernels and check models, the compiler for every machine-specific decision. */
#ifndef RLX_SUPPORT_TARGET_H
#define RLX_SUPPORT_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rlx/target.h"

typedef enum {
#define RLX_FEATURE(ID, name, arch, gcc) RLX_FEAT_##ID,
#include "target.def"
#undef RLX_FEATURE
  RLX_FEAT_COUNT
} rlx_feature_t;
_Static_assert(RLX_FEAT_COUNT <= 64, "features are bits of a uint64_t");

#define RLX_FEAT(ID) (1ull << RLX_FEAT_##ID)

/* The levels the runtime's hand-written kernels are built for (one source, built once per
 * level: src/runtime/kernels/). Each has a vector width, a register count and the NCHWc
 * block its packed layouts use. */
typedef enum {
  RLX_ISA_PORTABLE, /* plain C over 16-byte vectors: any CPU */
  RLX_ISA_X86_V2,   /* x86-64 baseline to v2 (SSE): 4 lanes, 16 registers, no FMA */
  RLX_ISA_X86_V3,   /* AVX2 + FMA: 8 lanes, 16 registers */
  RLX_ISA_X86_V4,   /* AVX-512 F/BW/DQ/VL: 16 lanes, 32 registers */
  RLX_ISA_NEON,     /* aarch64 Advanced SIMD: 4 lanes, 32 registers, FMA */
  RLX_ISA_COUNT
} rlx_isa_t;

typedef struct {
  const char* name;   /* "x86-64-v3" ... as rlx_target_isa prints it */
  rlx_arch_t arch;    /* RLX_ARCH_OTHER: any */
  uint64_t requires;  /* features a CPU needs to run this level's code */
  int vector_bytes;   /* native vector width */
  int vector_regs;    /* architectural vector registers */
  int nchwc_block;    /* channels per block of the blocked layouts */
  int fma;            /* fused multiply-add in the ISA */
} rlx_isa_info_t;
const rlx_isa_info_t* rlx_isa_info(rlx_isa_t isa);
/* The best level a CPU (or target) with these features on this architecture runs. */
rlx_isa_t rlx_isa_of(rlx_arch_t arch, uint64_t features);

struct rlx_target {
  char kind[8];       /* "c" or "llvm" */
  rlx_arch_t arch;
  char triple[64];
  char mcpu[32];      /* the CPU table's name (or the detected one for a host target) */
  uint64_t features;  /* resolved: the CPU's, then -mattr */
  uint64_t cpu_features; /* the CPU's own (for the canonical -mattr difference) */
  int num_cores;      /* 0: not given */
  bool host;          /* detected from the running CPU */
  int64_t cache[3];   /* L1d, L2 per core; L3 in all (bytes) */
  char gcc_arch[64];  /* x86: -march=; aarch64: -march= without the extensions */
  char gcc_tune[32];  /* -mtune= ("" none) */
  char text[512];     /* canonical text */
  char feature_list[512];
};

/* Fills *t (no allocation); the public parse/host functions wrap these. */
RLX_MUST_USE rlx_status_t* rlx_target_parse_into(const char* text, rlx_target_t* t);
RLX_MUST_USE rlx_status_t* rlx_target_host_into(rlx_target_t* t);
rlx_isa_t rlx_target_isa_level(const rlx_target_t* t);

/* The C compiler flags that make GCC (or clang) generate code for t and nothing newer,
 * space-separated into buf (truncated at size): x86: -march=<x86-64 level> and -m<feature> /
 * -mno-<feature> for the differences from it (GCC 12 does not know every CPU the table
 * does), then -mtune; aarch64: -march=armv8.x-a+<extensions> and -mtune. */
void rlx_target_cc_flags(const rlx_target_t* t, char* buf, size_t size);
/* The C compiler for t when the user names none: "cc" for the host's architecture, else
 * "<triple>-gcc" (Debian's cross compilers: aarch64-linux-gnu-gcc). */
const char* rlx_target_default_cc(const rlx_target_t* t);
/* The architecture this process runs on. */
rlx_arch_t rlx_host_arch(void);

/* The running CPU's features, capped by RLX_MAX_ISA (*out_cap_error set, heap-free static
 * text, when the variable is malformed: the features are then not capped). */
uint64_t rlx_cpu_features(const char** out_cap_error);
/* The running CPU's best kernel level after RLX_MAX_ISA. */
rlx_isa_t rlx_cpu_isa_level(void);
/* The running CPU's microarchitecture as the CPU table names it ("znver4"), or "" when it
 * is not known or RLX_MAX_ISA caps the CPU; its data caches (level 1, 2: per core; 3). */
const char* rlx_cpu_uarch(void);
int64_t rlx_cpu_cache(int level);

#endif
