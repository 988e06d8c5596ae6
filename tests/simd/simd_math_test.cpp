// bench/include/kforge/simd_math.h against double-precision std:: functions: each function's
// accuracy over a dense sample of its range (every 1021st float, plus the edges), and what it does
// with infinities and NaN, which the experts' copies did before the header and still do.
// This file is compiled twice (tests/CMakeLists.txt): as the experts are (-march=native: AVX-512
// where the machine has it) and for AVX2 only (-mavx2 -mfma -mno-avx512f), so that the AVX2 path
// is checked on an AVX-512 machine too; KFORGE_SIMD_SUITE names the test suite of each build.
#include "kforge/simd_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <vector>

#define SIMD_TEST_(suite, name) TEST(suite, name)
#define SIMD_TEST(name) SIMD_TEST_(KFORGE_SIMD_SUITE, name)

namespace {

namespace simd = kforge::simd;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

bool cpu_has_avx2_fma() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

// Every kStride-th float in [lo, hi] (both ends included), in order: about 2 million points over
// [-88, 88], every binade represented. (The bounds below were measured with a stride of 61, and
// for exp_ps with 1: every float.)
#ifndef KFORGE_SIMD_STRIDE
#define KFORGE_SIMD_STRIDE 1021
#endif
constexpr std::uint32_t kStride = KFORGE_SIMD_STRIDE;

std::vector<float> dense(float lo, float hi) {
  // Floats ordered by value are sign-magnitude bit patterns: walk the negative ones down to -0,
  // then the positive ones up from +0.
  std::vector<float> xs;
  const auto bits = [](float x) { return std::bit_cast<std::uint32_t>(x); };
  if (lo < 0)
    for (std::int64_t b = bits(lo); b > 0x80000000LL; b -= kStride)
      xs.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(b)));
  for (std::int64_t b = lo > 0 ? bits(lo) : 0; hi >= 0 && b < bits(hi); b += kStride)
    xs.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(b)));
  if (hi < 0)  // the walk down stopped at -0: drop what lies above hi
    std::erase_if(xs, [hi](float x) { return x > hi; });
  xs.push_back(hi);
  return xs;
}

// f over xs, eight lanes at a time (the last vector padded with xs' last value).
template <class F>
std::vector<float> apply(F f, const std::vector<float>& xs) {
  std::vector<float> out(xs.size());
  for (std::size_t i = 0; i < xs.size(); i += 8) {
    alignas(32) float in[8], got[8];
    for (std::size_t l = 0; l < 8; ++l) in[l] = xs[std::min(i + l, xs.size() - 1)];
    _mm256_store_ps(got, f(_mm256_load_ps(in)));
    for (std::size_t l = 0; l < 8 && i + l < xs.size(); ++l) out[i + l] = got[l];
  }
  return out;
}

float one(__m256 (*f)(__m256), float x) { return _mm256_cvtss_f32(f(_mm256_set1_ps(x))); }

// The error of got in units of the float ulp at want (the spacing of floats of want's binade).
double ulps(float got, double want) {
  int e = 0;
  std::frexp(want, &e);
  return std::fabs(got - want) / std::ldexp(1.0, std::max(e - 24, -149));
}

struct Worst {
  double err = 0;
  float at = 0;
  void see(double e, float x) {
    if (e > err || std::isnan(e)) err = std::isnan(e) ? kInf : e, at = x;
  }
};

// 0.5·v·(1 + tanh(u)) written as v/(1 + e^−2u), which does not cancel for v ≪ 0 in double either.
double gelu_tanh_ref(double v) {
  return v / (1 + std::exp(-2 * std::sqrt(2 / std::numbers::pi) * (v + 0.044715 * v * v * v)));
}
double mish_ref(double v) { return v * std::tanh(std::log1p(std::exp(v))); }
double swish_ref(double v) { return v / (1 + std::exp(-v)); }

}  // namespace

SIMD_TEST(BuildsForTheIntendedTarget) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
#ifdef KFORGE_SIMD_AVX2_ONLY
#ifdef __AVX512F__
  FAIL() << "the AVX2-only build was compiled with AVX-512 enabled";
#endif
#endif
  SUCCEED();
}

SIMD_TEST(ExpAccuracy) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  const auto xs = dense(-87.3f, 88.3f);
  const auto got = apply(simd::exp_ps, xs);
  Worst w;
  for (std::size_t i = 0; i < xs.size(); ++i)
    w.see(ulps(got[i], std::exp(static_cast<double>(xs[i]))), xs[i]);
  EXPECT_LE(w.err, 1.3) << "ulp at x = " << w.at;
  EXPECT_EQ(one(simd::exp_ps, 0.0f), 1.0f);
}

// Outside [-87.3, 88.3] the argument is clamped; NaN is lost to the clamp (as in every copy the
// experts had): callers keep NaN out or do not care.
SIMD_TEST(ExpClampsOutOfRangeInfiniteAndNaN) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  const float tiny = one(simd::exp_ps, -87.3f), huge = one(simd::exp_ps, 88.3f);
  EXPECT_GT(tiny, 0.0f);
  EXPECT_LT(tiny, 1.3e-38f);
  EXPECT_TRUE(std::isfinite(huge));
  EXPECT_GT(huge, 2.0e38f);
  for (float x : {-88.0f, -1000.0f, -kInf, kNaN}) EXPECT_EQ(one(simd::exp_ps, x), tiny) << x;
  for (float x : {89.0f, 1000.0f, kInf}) EXPECT_EQ(one(simd::exp_ps, x), huge) << x;
}

SIMD_TEST(Exp2Accuracy) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  const auto xs = dense(-126.0f, 0.0f);
  const auto got = apply(simd::exp2_ps, xs);
  Worst w;
  for (std::size_t i = 0; i < xs.size(); ++i)
    w.see(ulps(got[i], std::exp2(static_cast<double>(xs[i]))), xs[i]);
  EXPECT_LE(w.err, 1.0) << "ulp at x = " << w.at;
  EXPECT_EQ(one(simd::exp2_ps, 0.0f), 1.0f);
  EXPECT_EQ(one(simd::exp2_ps, -1.0f), 0.5f);
}

// Masked scores are -inf: they, anything below -126, and NaN give exactly 0.
SIMD_TEST(Exp2GivesZeroBelowTheNormalRangeAndForNaN) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  EXPECT_GT(one(simd::exp2_ps, -126.0f), 0.0f);
  for (float x : {-126.001f, -127.0f, -1000.0f, -kInf, kNaN})
    EXPECT_EQ(std::bit_cast<std::uint32_t>(one(simd::exp2_ps, x)), 0u) << x;
}

SIMD_TEST(TanhAccuracy) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  const auto xs = dense(-20.0f, 20.0f);
  const auto got = apply(simd::tanh_ps, xs);
  Worst w;
  for (std::size_t i = 0; i < xs.size(); ++i)
    w.see(std::fabs(got[i] - std::tanh(static_cast<double>(xs[i]))), xs[i]);
  EXPECT_LE(w.err, 1.5e-7) << "absolute at x = " << w.at;
}

SIMD_TEST(TanhSaturatesExactly) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  for (float x : {9.0f, 50.0f, 1e30f, kInf}) {
    EXPECT_EQ(one(simd::tanh_ps, x), 1.0f) << x;
    EXPECT_EQ(one(simd::tanh_ps, -x), -1.0f) << -x;
  }
  EXPECT_EQ(one(simd::tanh_ps, 0.0f), 0.0f);
  EXPECT_EQ(one(simd::tanh_ps, kNaN), -1.0f);  // NaN is lost in exp_ps's clamp
}

SIMD_TEST(SwishAccuracy) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  const auto xs = dense(-87.0f, 88.0f);
  const auto got = apply(simd::swish_ps, xs);
  Worst w;
  for (std::size_t i = 0; i < xs.size(); ++i) w.see(ulps(got[i], swish_ref(xs[i])), xs[i]);
  EXPECT_LE(w.err, 3.5) << "ulp at x = " << w.at;
  // Below the clamp the result is ≈ 0, off by less than 1e-36 absolute.
  for (float x : {-88.0f, -100.0f, -1000.0f})
    EXPECT_LT(std::fabs(one(simd::swish_ps, x) - swish_ref(x)), 1e-35) << x;
  EXPECT_EQ(one(simd::swish_ps, kInf), kInf);
  EXPECT_TRUE(std::isnan(one(simd::swish_ps, kNaN)));
}

SIMD_TEST(GeluTanhAccuracy) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  const auto xs = dense(-20.0f, 20.0f);
  const auto got = apply(simd::gelu_tanh_ps, xs);
  Worst rel, abs;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double want = gelu_tanh_ref(xs[i]);
    abs.see(std::fabs(got[i] - want), xs[i]);
    // Below -5 the relative error grows: e^−2u's argument (up to 87) carries its own rounding.
    if (xs[i] >= -5.0f)
      rel.see(std::fabs(got[i] - want) / std::max(std::fabs(want), 0x1p-126), xs[i]);
  }
  EXPECT_LE(abs.err, 6e-7) << "absolute at x = " << abs.at;
  EXPECT_LE(rel.err, 2.5e-6) << "relative at x = " << rel.at;
  EXPECT_EQ(one(simd::gelu_tanh_ps, kInf), kInf);
  EXPECT_TRUE(std::isnan(one(simd::gelu_tanh_ps, kNaN)));
  for (float x : xs)
    ASSERT_NEAR(simd::gelu_tanh(x), gelu_tanh_ref(x), 1e-6 + 1e-6 * std::fabs(x)) << x;
}

SIMD_TEST(MishAccuracy) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  const auto xs = dense(-87.0f, 30.0f);
  const auto got = apply(simd::mish_ps, xs);
  Worst w, tail;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    w.see(ulps(got[i], mish_ref(xs[i])), xs[i]);
    tail.see(ulps(simd::mish(xs[i]), mish_ref(xs[i])), xs[i]);
  }
  EXPECT_LE(w.err, 4.5) << "ulp at x = " << w.at;
  EXPECT_LE(tail.err, 4.5) << "ulp at x = " << tail.at;
  EXPECT_EQ(one(simd::mish_ps, 25.0f), 25.0f);
  EXPECT_EQ(one(simd::mish_ps, kInf), kInf);
  EXPECT_TRUE(std::isnan(one(simd::mish_ps, kNaN)));
}

SIMD_TEST(HorizontalSumAndMax) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  const __m256 v = _mm256_setr_ps(1, 2, 4, 8, 16, 32, 64, -128);
  EXPECT_EQ(simd::hsum(v), -1.0f);
  EXPECT_EQ(simd::hmax(v), 64.0f);
  for (int lane = 0; lane < 8; ++lane) {  // the maximum found wherever it stands, -inf included
    alignas(32) float x[8];
    std::fill(x, x + 8, -kInf);
    x[lane] = -3.0f;
    EXPECT_EQ(simd::hmax(_mm256_load_ps(x)), -3.0f) << lane;
  }
  __m256 rows[8];
  for (int h = 0; h < 8; ++h) rows[h] = _mm256_setr_ps(h, 10 * h, 100 * h, 1000 * h, 1, 2, 3, 4);
  alignas(32) float sums[8];
  _mm256_store_ps(sums, simd::hsum8(rows));
  for (int h = 0; h < 8; ++h) EXPECT_EQ(sums[h], 1111.0f * h + 10.0f) << h;
}
