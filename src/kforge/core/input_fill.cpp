// Counter-based generation (splitmix64 of seed, stream and index): no sequential state, so each
// element is computed independently and OpenMP can split the work.
#include "kforge/core/input_fill.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kforge::core {
namespace {

inline std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

inline std::uint64_t counter_bits(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  return mix(mix(seed ^ mix(stream + 0x9e3779b97f4a7c15ULL)) + index * 0x9e3779b97f4a7c15ULL);
}

inline double to_unit(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// Box–Muller over element pairs: elements 2k and 2k+1 share (u1, u2), 2k taking r·cos θ and 2k+1
// r·sin θ. Computed a pair at a time: half the hashing and logarithms of one element at a time, and
// the same bits (the reference cache is keyed by seed: input_fill_test.cpp holds the definition).
struct NormalPair {
  double even, odd;
};
inline NormalPair normal_pair(std::uint64_t seed, std::uint64_t stream, std::uint64_t pair) {
  double u1 = to_unit(counter_bits(seed, stream, 2 * pair));
  double u2 = to_unit(counter_bits(seed, stream, 2 * pair + 1));
  double r = std::sqrt(-2.0 * std::log(1.0 - u1));  // 1-u1 is in (0, 1]
  double theta = 2.0 * M_PI * u2;
  return {r * std::cos(theta), r * std::sin(theta)};
}

template <typename T>
void fill_typed(const ResolvedTensor& t, std::uint64_t seed, std::uint64_t stream, T* out) {
  const InitSpec& init = t.init;
  const std::int64_t n = t.numel;
  // The branches differ; bugprone-branch-clone compares OpenMP directives without their loops, so
  // the first two look alike to it.
  switch (init.dist) {
    case Dist::normal:  // NOLINT(bugprone-branch-clone)
#pragma omp parallel for schedule(static) if (n > 65536)
      for (std::int64_t k = 0; k < (n + 1) / 2; ++k) {
        const auto z = normal_pair(seed, stream, static_cast<std::uint64_t>(k));
        out[2 * k] = static_cast<T>(init.a + init.b * z.even);
        if (2 * k + 1 < n) out[2 * k + 1] = static_cast<T>(init.a + init.b * z.odd);
      }
      break;
    case Dist::uniform:
#pragma omp parallel for schedule(static) if (n > 65536)
      for (std::int64_t i = 0; i < n; ++i)
        out[i] =
            static_cast<T>(init.a + (init.b - init.a) * to_unit(counter_bits(seed, stream, i)));
      break;
    case Dist::randint: {
      const auto span = static_cast<std::uint64_t>(init.b - init.a);
#pragma omp parallel for schedule(static) if (n > 65536)
      for (std::int64_t i = 0; i < n; ++i)
        out[i] = static_cast<T>(init.a + static_cast<double>(counter_bits(seed, stream, i) % span));
      break;
    }
    case Dist::constant:
      for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(init.a);
      break;
    case Dist::arange:
      for (std::int64_t i = 0; i < n; ++i)
        out[i] = static_cast<T>(init.a + init.b * static_cast<double>(i));
      break;
    case Dist::custom:
      break;
  }
}

// One random factor per element would cost two hash rounds per element; instead a table of
// 4096 factors (fresh for every seed) is applied cyclically from a random rotation, so every
// element changes, differently on every pair, at the speed of a multiply.
template <typename T>
std::vector<std::byte> table_typed(std::uint64_t seed, double spread) {
  std::vector<std::byte> bytes(kPerturbTable * sizeof(T));
  T* table = reinterpret_cast<T*>(bytes.data());
  const std::uint64_t rotation = counter_bits(seed, 0x726f74617465ULL, 0) % kPerturbTable;
  for (std::int64_t k = 0; k < kPerturbTable; ++k) {
    double u =
        to_unit(counter_bits(seed, 0x7065727475726250ULL, static_cast<std::uint64_t>(k))) * 2.0 -
        1.0;
    table[(k + rotation) % kPerturbTable] = static_cast<T>(1.0 + spread * u);
  }
  return bytes;
}

template <typename T>
void apply_typed(const T* src, T* dst, std::int64_t n, const T* table) {
  const std::int64_t blocks = (n + kPerturbTable - 1) / kPerturbTable;
#pragma omp parallel for schedule(static) if (n > (1 << 16))
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::int64_t start = b * kPerturbTable, len = std::min(kPerturbTable, n - start);
#pragma omp simd
    for (std::int64_t k = 0; k < len; ++k) dst[start + k] = src[start + k] * table[k];
  }
}

}  // namespace

void fill_input(const ResolvedTensor& t, std::uint64_t seed, std::uint32_t tensor_index,
                void* data) {
  switch (t.dtype) {
    case DType::f32:
      fill_typed(t, seed, tensor_index, static_cast<float*>(data));
      break;
    case DType::f64:
      fill_typed(t, seed, tensor_index, static_cast<double*>(data));
      break;
    case DType::i32:
      fill_typed(t, seed, tensor_index, static_cast<std::int32_t*>(data));
      break;
    case DType::i64:
      fill_typed(t, seed, tensor_index, static_cast<std::int64_t*>(data));
      break;
  }
}

std::vector<std::byte> perturb_table(DType dtype, std::uint64_t seed, double spread) {
  if (dtype == DType::f32) return table_typed<float>(seed, spread);
  if (dtype == DType::f64) return table_typed<double>(seed, spread);
  return {};
}

void apply_perturb_table(DType dtype, const void* src, void* dst, std::int64_t numel,
                         const std::vector<std::byte>& table) {
  if (dtype == DType::f32 && !table.empty())
    apply_typed(static_cast<const float*>(src), static_cast<float*>(dst), numel,
                reinterpret_cast<const float*>(table.data()));
  else if (dtype == DType::f64 && !table.empty())
    apply_typed(static_cast<const double*>(src), static_cast<double*>(dst), numel,
                reinterpret_cast<const double*>(table.data()));
  else
    std::memcpy(dst, src, static_cast<std::size_t>(numel) * dtype_size(dtype));
}

void perturb(DType dtype, const void* src, void* dst, std::int64_t numel, std::uint64_t seed,
             double spread) {
  apply_perturb_table(dtype, src, dst, numel, perturb_table(dtype, seed, spread));
}

}  // namespace kforge::core
