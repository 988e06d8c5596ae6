// Fills the weights: N(0, σ²) with σ = weight_std·√(fan-in at the full size / fan-in here), so the
// activations keep the original's spread when the model dims are scaled down (exactly weight_std
// at the full size; see task.toml). Counter-based (SplitMix64 of seed, tensor and index, then
// Box–Muller), so every value depends only on the seed and its position.
#include <cmath>
#include <numbers>

#include "kforge_task.h"

namespace {

std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Uniform in (0, 1]: 53 random bits, never 0, so the logarithm below is finite.
double uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  const std::uint64_t bits = splitmix64(splitmix64(seed ^ splitmix64(stream)) + index) >> 11;
  return (static_cast<double>(bits) + 1.0) * 0x1.0p-53;
}

void fill_normal(float* w, std::int64_t n, std::int64_t fan_in, std::int64_t full_fan_in, std::uint64_t seed,
                 std::uint64_t stream) {
  const double sigma = task::f64::weight_std * std::sqrt(static_cast<double>(full_fan_in) / static_cast<double>(fan_in));
  for (std::int64_t i = 0; i < n; i += 2) {
    const double r = std::sqrt(-2.0 * std::log(uniform(seed, stream, i)));
    const double phi = 2.0 * std::numbers::pi * uniform(seed, stream, i + 1);
    w[i] = static_cast<float>(sigma * r * std::cos(phi));
    if (i + 1 < n) w[i + 1] = static_cast<float>(sigma * r * std::sin(phi));
  }
}

}  // namespace

extern "C" void generate(std::uint64_t seed, float* x, float* q_down, float* q_up, float* kv_down, float* k_up,
                         float* v_up, float* o_proj) {
  using namespace task;
  (void)x;  // drawn by kforge: N(0, 1)
  fill_normal(q_down, q_down_numel, E, full_E, seed, 1);
  fill_normal(q_up, q_up_numel, QL, full_QL, seed, 2);
  fill_normal(kv_down, kv_down_numel, E, full_E, seed, 3);
  fill_normal(k_up, k_up_numel, KVL, full_KVL, seed, 4);
  fill_normal(v_up, v_up_numel, KVL, full_KVL, seed, 5);
  fill_normal(o_proj, o_proj_numel, H * VD, full_HVD, seed, 6);
}
