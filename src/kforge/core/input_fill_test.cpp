// Inputs are a pure function of the seed, differ between seeds, follow their distribution, and
// the timing perturbation changes every non-zero value while keeping signs and zeros.
#include "kforge/core/input_fill.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace kforge::core {
namespace {

ResolvedTensor tensor(Dist d, double a, double b, DType t = DType::f32, std::int64_t n = 100000) {
  ResolvedTensor r;
  r.name = "x";
  r.dtype = t;
  r.numel = n;
  r.bytes = static_cast<std::size_t>(n) * dtype_size(t);
  r.shape = {n};
  r.init = {d, a, b};
  return r;
}

}  // namespace

TEST(InputFill, DeterministicPerSeedAndDifferentAcrossSeeds) {
  auto t = tensor(Dist::normal, 0, 1);
  std::vector<float> a(t.numel), b(t.numel), c(t.numel);
  fill_input(t, 42, 0, a.data());
  fill_input(t, 42, 0, b.data());
  fill_input(t, 43, 0, c.data());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::vector<float> other_tensor(t.numel);
  fill_input(t, 42, 1, other_tensor.data());
  EXPECT_NE(a, other_tensor);
}

// The values are part of kforge's contract: references computed on them are cached by seed
// (task_context.cpp), so a generator that changed its numbers would pair new inputs with old
// outputs. This is its definition, written out element by element: splitmix64 counters, Box-Muller
// over element pairs (2k takes r·cos θ, 2k+1 takes r·sin θ).
std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double unit_at(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  std::uint64_t bits =
      mix(mix(seed ^ mix(stream + 0x9e3779b97f4a7c15ULL)) + index * 0x9e3779b97f4a7c15ULL);
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

double normal_by_definition(std::uint64_t seed, std::uint64_t stream, std::int64_t i) {
  const auto pair = static_cast<std::uint64_t>(i) / 2;
  double r = std::sqrt(-2.0 * std::log(1.0 - unit_at(seed, stream, 2 * pair)));
  double theta = 2.0 * M_PI * unit_at(seed, stream, 2 * pair + 1);
  return (i % 2 == 0) ? r * std::cos(theta) : r * std::sin(theta);
}

TEST(InputFill, NormalValuesAreTheDefinitionsBitForBit) {
  for (std::int64_t n : {1, 2, 7, 100001}) {  // odd lengths end on half a pair
    auto t = tensor(Dist::normal, 0.25, 1.5, DType::f32, n);
    std::vector<float> got(static_cast<std::size_t>(n));
    fill_input(t, 42, 3, got.data());
    const std::uint64_t stream = 3;  // the tensor index
    for (std::int64_t i = 0; i < n; ++i) {
      const auto want = static_cast<float>(0.25 + 1.5 * normal_by_definition(42, stream, i));
      ASSERT_EQ(got[static_cast<std::size_t>(i)], want) << "n " << n << ", element " << i;
    }
  }
}

TEST(InputFill, DistributionsHaveTheirMoments) {
  auto t = tensor(Dist::normal, 2.0, 0.5);
  std::vector<float> v(t.numel);
  fill_input(t, 7, 0, v.data());
  double mean = 0, var = 0;
  for (float x : v) mean += x;
  mean /= v.size();
  for (float x : v) var += (x - mean) * (x - mean);
  var /= v.size();
  EXPECT_NEAR(mean, 2.0, 0.01);
  EXPECT_NEAR(std::sqrt(var), 0.5, 0.01);

  auto u = tensor(Dist::uniform, -1, 3);
  fill_input(u, 7, 0, v.data());
  for (float x : v) ASSERT_TRUE(x >= -1 && x < 3);

  auto r = tensor(Dist::randint, 5, 9, DType::i32);
  std::vector<std::int32_t> ints(r.numel);
  fill_input(r, 7, 0, ints.data());
  int seen[4] = {};
  for (auto x : ints) {
    ASSERT_TRUE(x >= 5 && x < 9);
    seen[x - 5]++;
  }
  for (int k = 0; k < 4; ++k) EXPECT_GT(seen[k], 20000);

  auto ar = tensor(Dist::arange, 10, 2, DType::i64, 5);
  std::vector<std::int64_t> seq(5);
  fill_input(ar, 1, 0, seq.data());
  EXPECT_EQ(seq, (std::vector<std::int64_t>{10, 12, 14, 16, 18}));
}

TEST(InputFill, PerturbChangesEveryNonZeroValueKeepingSignsAndZeros) {
  std::vector<float> src = {1.0f, -2.0f, 0.0f, 3.5f, -0.25f}, dst(5), dst2(5);
  src.resize(10000, 1.0f);
  dst.resize(src.size());
  dst2.resize(src.size());
  perturb(DType::f32, src.data(), dst.data(), static_cast<std::int64_t>(src.size()), 11, 0.05);
  perturb(DType::f32, src.data(), dst2.data(), static_cast<std::int64_t>(src.size()), 12, 0.05);
  for (std::size_t i = 0; i < src.size(); ++i) {
    if (src[i] == 0) {
      EXPECT_EQ(dst[i], 0.0f);
      continue;
    }
    EXPECT_NE(dst[i], src[i]) << i;
    EXPECT_EQ(std::signbit(dst[i]), std::signbit(src[i]));
    EXPECT_LE(std::fabs(dst[i] / src[i] - 1), 0.05 + 1e-6);
  }
  EXPECT_NE(dst, dst2);
}

}  // namespace kforge::core
