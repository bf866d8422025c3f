/* rlx — compilation targets and the running CPU. Part of librlx_runtime (the runtime checks a
 * model's target against the CPU it runs on), used by the compiler for every machine-specific
 * decision.
 *
 * A target is parsed from TVM's target strings:
 *
 *   c|llvm [-mtriple=TRIPLE] [-mcpu=CPU] [-mattr=+f1,-f2,...] [-num-cores=N] [-keys=cpu]
 *
 * kind "c" and "llvm" are the same target (rlx emits C either way). CPU is one of GCC's names
 * (x86-64, x86-64-v2, x86-64-v3, x86-64-v4, haswell, skylake, skylake-avx512, cascadelake,
 * icelake-client, icelake-server, sapphirerapids, alderlake, znver1 ... znver5; generic,
 * cortex-a53, cortex-a55, cortex-a72, cortex-a76, neoverse-n1, neoverse-n2, neoverse-v1,
 * apple-m1, apple-m2) or "native"; -mattr adds (+) or removes (-) features on top of the CPU's
 * (names as LLVM spells them: sse4.2, avx2, fma, avx512f, avx512vnni, neon, dotprod, i8mm
 * ...). No -mcpu and no -mtriple, "host", "native" or an empty string mean the CPU this
 * process runs on, detected with cpuid / HWCAP; a triple without a CPU means the triple's
 * baseline (x86-64: SSE2; aarch64: NEON).
 *
 * The environment variable RLX_MAX_ISA (x86-64, x86-64-v2, x86-64-v3, x86-64-v4) caps what
 * the running CPU is taken to have, like oneDNN's ONEDNN_MAX_CPU_ISA: the host target, the
 * runtime's choice of kernels and the check of a model's target all see at most that level,
 * so every code path can be tested on a newer CPU.
 *
 * Ownership: rlx_target_parse / rlx_target_host give a heap object freed with
 * rlx_target_free; strings returned by the accessors live as long as the target.
 */
#ifndef RLX_TARGET_H
#define RLX_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "rlx/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rlx_target rlx_target_t;

typedef enum { RLX_ARCH_OTHER = 0, RLX_ARCH_X86_64 = 1, RLX_ARCH_AARCH64 = 2 } rlx_arch_t;

/* Parses text (see above). INVALID_ARGUMENT names an unknown CPU (listing the known ones for
 * its architecture), feature or option; UNSUPPORTED a kind rlx cannot generate (cuda ...). */
RLX_MUST_USE rlx_status_t* rlx_target_parse(const char* text, rlx_target_t** out);
/* The CPU this process runs on (capped by RLX_MAX_ISA). INVALID_ARGUMENT for a malformed
 * RLX_MAX_ISA. */
RLX_MUST_USE rlx_status_t* rlx_target_host(rlx_target_t** out);
void rlx_target_free(rlx_target_t* t);

/* The canonical text: "c -keys=cpu [-mattr=...] -mcpu=CPU -mtriple=TRIPLE [-num-cores=N]",
 * options in TVM's (alphabetical) order; -mattr lists only the differences from the CPU's
 * own features. rlx_target_parse of it gives the same target. A host target names the CPU
 * detected (its microarchitecture when known, else its x86-64 level). */
const char* rlx_target_str(const rlx_target_t* t);
const char* rlx_target_kind(const rlx_target_t* t);   /* "c" or "llvm", as given */
const char* rlx_target_mcpu(const rlx_target_t* t);   /* the CPU name */
const char* rlx_target_triple(const rlx_target_t* t); /* e.g. "x86_64-linux-gnu" */
rlx_arch_t rlx_target_arch(const rlx_target_t* t);
/* Every feature the target has, comma-separated in a fixed order ("sse2,sse3,...,avx2"). */
const char* rlx_target_features(const rlx_target_t* t);
bool rlx_target_has_feature(const rlx_target_t* t, const char* name);
int rlx_target_num_cores(const rlx_target_t* t); /* -num-cores, 0 when not given */
/* The level the runtime's kernels are built for that code for t uses: "x86-64-v2",
 * "x86-64-v3", "x86-64-v4", "neon" or "portable". */
const char* rlx_target_isa(const rlx_target_t* t);
/* Machine parameters the compiler decides by: native vector width in bytes, vector
 * registers, the channel block of the blocked convolution layout (NCHWc: 16 with AVX-512,
 * else 8), and the data cache sizes in bytes per core (level 1, 2) or in all (3). */
int rlx_target_vector_bytes(const rlx_target_t* t);
int rlx_target_vector_regs(const rlx_target_t* t);
int rlx_target_nchwc_block(const rlx_target_t* t);
int64_t rlx_target_cache_bytes(const rlx_target_t* t, int level);
/* The flags a C compiler (GCC or clang) builds code for t with, space-separated into buf:
 * "-O3 -ffp-contract=fast -march=... [-m<feature>...] -mtune=..." (what a Model Library
 * Format archive's sources are built with; FMA contraction on). INVALID_ARGUMENT when buf is
 * too small. */
RLX_MUST_USE rlx_status_t* rlx_target_cflags(const rlx_target_t* t, char* buf, size_t size);
/* NULL when code built for t runs on this CPU (capped by RLX_MAX_ISA); else UNSUPPORTED:
 * "target 'T' needs avx512f, avx512bw, which this CPU (x86-64-v3) lacks", or names the
 * architecture when it differs. */
RLX_MUST_USE rlx_status_t* rlx_target_check_host(const rlx_target_t* t);

/* The running CPU's kernel level after RLX_MAX_ISA, as rlx_target_isa names them. */
const char* rlx_cpu_isa(void);

#ifdef __cplusplus
}
#endif

#endif
