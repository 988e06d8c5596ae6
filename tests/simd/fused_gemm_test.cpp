// bench/include/kforge/fused_gemm.h against a double-precision GEMM: shapes that leave partial
// tiles at the M and N edges and a partial last K block, on one thread and on several, and an
// epilogue that must see every element exactly once, after the whole K sum, at its own (i, j).
// Compiled twice with simd_math_test.cpp (tests/CMakeLists.txt): as the experts are and for AVX2
// only, so the 6x16 tile is checked on an AVX-512 machine too; KFORGE_GEMM_SUITE names the suite.
#include "kforge/fused_gemm.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#define GEMM_TEST_(suite, name) TEST(suite, name)
#define GEMM_TEST(name) GEMM_TEST_(KFORGE_GEMM_SUITE, name)

namespace {

namespace gemm = kforge::gemm;
using std::int64_t;

bool cpu_has_avx2_fma() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

std::vector<float> normal(int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(gen);
  return v;
}

// A·B in double, and Σ|a·b| per element (the scale of an f32 sum's rounding error).
struct Reference {
  std::vector<double> c, magnitude;
};

Reference reference(const std::vector<float>& a, const std::vector<float>& b, int64_t m, int64_t k,
                    int64_t n) {
  Reference r{std::vector<double>(m * n), std::vector<double>(m * n)};
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) {
        const double t = double(a[i * k + p]) * double(b[p * n + j]);
        r.c[i * n + j] += t, r.magnitude[i * n + j] += std::fabs(t);
      }
  return r;
}

// 2·v + 1: wrong if it sees a partial K sum, is applied twice, or not at all.
struct Affine {
  gemm::Vec operator()(gemm::Vec v, int64_t /*i*/, int64_t /*j*/) const {
    return gemm::vfmadd(v, gemm::vset1(2.0f), gemm::vset1(1.0f));
  }
  float operator()(float v, int64_t /*i*/, int64_t /*j*/) const { return 2.0f * v + 1.0f; }
};

// Replaces each element by its own linear index, as the epilogue's (i, j) name it.
template <int64_t N>
struct Position {
  gemm::Vec operator()(gemm::Vec /*v*/, int64_t i, int64_t j) const {
    alignas(64) float lanes[gemm::W];
    for (int l = 0; l < gemm::W; ++l) lanes[l] = float(i * N + j + l);
    return gemm::vload(lanes);
  }
  float operator()(float /*v*/, int64_t i, int64_t j) const { return float(i * N + j); }
};

// gemm<M, K, N> with epilogue e against scale·(A·B) + shift on `threads` threads.
template <int64_t M, int64_t K, int64_t N, class E>
void expect_gemm(int threads, const E& e, double scale, double shift) {
  const auto a = normal(M * K, 1), b = normal(K * N, 2);
  const Reference r = reference(a, b, M, K, N);
  std::vector<float> c(M * N, NAN);
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  gemm::gemm<M, K, N>(a.data(), b.data(), c.data(), e);
  omp_set_num_threads(before);
  int64_t bad = 0;
  for (int64_t x = 0; x < M * N; ++x) {
    const double want = scale * r.c[x] + shift;
    // An f32 sum of K terms in any order errs by at most ~K·2^-24·Σ|terms|; 4·sqrt(K) is ample
    // for a blocked sum and far below a missing or repeated K block (~Σ|terms|/sqrt(K)).
    const double tol = scale * 4.0 * std::sqrt(double(K)) * 0x1p-24 * r.magnitude[x] + 1e-6;
    if (!(std::fabs(c[x] - want) <= tol) && bad++ < 5)
      ADD_FAILURE() << "C[" << x / N << ", " << x % N << "] = " << c[x] << ", want " << want;
  }
  EXPECT_EQ(bad, 0) << M << "x" << K << "x" << N << " on " << threads << " threads";
}

}  // namespace

GEMM_TEST(IdentityMatchesADoubleGemmWithEdgeTilesAndAPartialKBlock) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  // M and N are not multiples of any tile; K = 2·KC + 88 ends with a partial block.
  expect_gemm<37, 600, 101>(1, gemm::Identity{}, 1.0, 0.0);
  expect_gemm<37, 600, 101>(3, gemm::Identity{}, 1.0, 0.0);
  // Big enough that the grid splits C over several threads in both directions.
  expect_gemm<301, 300, 333>(4, gemm::Identity{}, 1.0, 0.0);
  // A single row and a single column.
  expect_gemm<1, 40, 1>(1, gemm::Identity{}, 1.0, 0.0);
}

GEMM_TEST(EpilogueSeesTheWholeKSumOnce) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  expect_gemm<37, 600, 101>(1, Affine{}, 2.0, 1.0);
  expect_gemm<301, 300, 333>(4, Affine{}, 2.0, 1.0);
  // K within one block: the first block is also the last.
  expect_gemm<29, 64, 70>(2, Affine{}, 2.0, 1.0);
}

GEMM_TEST(EpilogueGetsEachElementsRowAndColumn) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  constexpr int64_t M = 301, K = 300, N = 333;
  const auto a = normal(M * K, 3), b = normal(K * N, 4);
  std::vector<float> c(M * N, NAN);
  omp_set_num_threads(4);
  gemm::gemm<M, K, N>(a.data(), b.data(), c.data(), Position<N>{});
  int64_t bad = 0;
  for (int64_t x = 0; x < M * N; ++x)
    if (c[x] != float(x) && bad++ < 5) ADD_FAILURE() << "C[" << x << "] = " << c[x];
  EXPECT_EQ(bad, 0);
}

GEMM_TEST(BlockWritesOnlyItsBlockOfC) {
  if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  constexpr int64_t M = 50, K = 300, N = 90;
  const auto a = normal(M * K, 5), b = normal(K * N, 6);
  const Reference r = reference(a, b, M, K, N);
  std::vector<float> c(M * N, -7.0f);
  std::vector<float> pool(gemm::a_block_floats(M, K) + gemm::b_panel_floats(N, K) + 16);
  float* ap = pool.data() + (16 - reinterpret_cast<std::uintptr_t>(pool.data()) / 4 % 16) % 16;
  // Rows 3..45, columns 5..77: edges inside tiles on every side.
  gemm::gemm_block<K, N>(a.data(), b.data(), c.data(), 3, 45, 5, 77, ap,
                         ap + gemm::a_block_floats(M, K), Affine{});
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      const bool inside = i >= 3 && i < 45 && j >= 5 && j < 77;
      const double want = inside ? 2.0 * r.c[i * N + j] + 1.0 : -7.0;
      const double tol = inside ? 8.0 * std::sqrt(double(K)) * 0x1p-24 * r.magnitude[i * N + j] : 0;
      ASSERT_LE(std::fabs(c[i * N + j] - want), tol + 1e-6) << "C[" << i << ", " << j << "]";
    }
}
