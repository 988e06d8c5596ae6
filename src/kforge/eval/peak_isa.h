#pragma once
// kforge-peak's two inner loops (f32 FMA chains, the STREAM triad), compiled once per x86 vector
// instruction set, and the choice among them by what this CPU and its OS support (cpuid and
// XCR0, through __builtin_cpu_supports): the release runs on any x86-64-v2 CPU, and the peak is
// still measured with the widest vectors a kernel compiled here with -march=native would get.
// The per-ISA code is in namespace kforge::peak_isa::<name> and nowhere else
// (scripts/check-portable-isa holds the release to that).

#include <cstddef>
#include <span>
#include <string_view>

namespace kforge::peak_isa {

struct Isa {
  const char* name;  // "avx512", "avx2", "sse2"
  int lanes;         // f32 lanes per vector
  bool (*supported)();
  // 12 independent chains of a = a * m + c over `iters` steps; returns their sum (kept live).
  float (*fma_chains)(long iters, float seed);
  // a[i] = b[i] + 3 * c[i] for i in [begin, end).
  void (*triad)(float* a, const float* b, const float* c, std::size_t begin, std::size_t end);
};

// Every path, widest first.
std::span<const Isa> all();
// The widest this machine runs: what `-march=native` gives a candidate here.
const Isa& widest();
// The path named `name` if this machine runs it; nullptr otherwise.
const Isa* find_supported(std::string_view name);

}  // namespace kforge::peak_isa
