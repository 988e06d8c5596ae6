// Three copies of the same loops, for AVX-512, AVX2 with FMA and the x86-64 baseline (SSE2), each
// compiled for its set by a pragma rather than by per-file flags: a flag would also compile the
// inline functions of every header the file includes for that set, and the linker may keep that
// copy for the whole program (a SIGILL on a machine without it).
#include "kforge/eval/peak_isa.h"

// GCC's per-function target pragmas; clang (clang-tidy reads this file) does not know them and
// would compile all three copies for the baseline set, so kforge is built with GCC (CMake's c++).
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wunknown-pragmas"
#endif

namespace kforge::peak_isa {

#pragma GCC push_options
#pragma GCC target("avx512f,prefer-vector-width=512")
namespace avx512 {
constexpr int kLanes = 16;
#include "kforge/eval/peak_isa_kernels.inc"
}  // namespace avx512
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2 {
constexpr int kLanes = 8;
#include "kforge/eval/peak_isa_kernels.inc"
}  // namespace avx2
#pragma GCC pop_options

namespace sse2 {
constexpr int kLanes = 4;
#include "kforge/eval/peak_isa_kernels.inc"
}  // namespace sse2

namespace {

// __builtin_cpu_supports reads cpuid and, for AVX and AVX-512, whether the OS saves their
// registers (XCR0): a CPU that has AVX-512 under a kernel that disabled it counts as without.
bool has_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
}
bool has_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
bool always() { return true; }

constexpr Isa kIsas[] = {
    {"avx512", avx512::kLanes, has_avx512, avx512::fma_chains, avx512::triad},
    {"avx2", avx2::kLanes, has_avx2, avx2::fma_chains, avx2::triad},
    {"sse2", sse2::kLanes, always, sse2::fma_chains, sse2::triad},
};

}  // namespace

std::span<const Isa> all() { return kIsas; }

const Isa& widest() {
  for (const auto& isa : kIsas)
    if (isa.supported()) return isa;
  return all().back();  // sse2: every x86-64 CPU
}

const Isa* find_supported(std::string_view name) {
  for (const auto& isa : kIsas)
    if (name == isa.name) return isa.supported() ? &isa : nullptr;
  return nullptr;
}

}  // namespace kforge::peak_isa
