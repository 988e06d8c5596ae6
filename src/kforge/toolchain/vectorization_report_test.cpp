// The compiler's vectorization remarks: one per line, the vectorized remark winning; remarks on
// loops written with intrinsics are marked and left out of the text (only counted), while a plain
// loop next to them keeps its remark.
#include "kforge/toolchain/vectorization_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kforge::toolchain {

using ::testing::HasSubstr;
using ::testing::Not;

namespace {

const char* kSource = R"(#include <immintrin.h>
void f(const float* x, float* y, int n) {
  for (int r = 0; r < n; ++r) {
    __m256 acc = _mm256_setzero_ps();
    for (int d = 0; d < 64; d += 8)
      acc = _mm256_fmadd_ps(_mm256_loadu_ps(x + d), _mm256_loadu_ps(x + d), acc);
    _mm256_storeu_ps(y + 8 * r, acc);
  }
  for (int i = 0; i < n; ++i)  // left to the compiler
    y[i] = x[i] * 2.0f;
  for (int i = 0; i < n; ++i) {
    y[i] += y[i - 1];
  }
}
)";

const char* kRemarks =
    "kernel.cpp:3:21: missed: couldn't vectorize loop\n"
    "kernel.cpp:3:21: missed: not vectorized: complicated access pattern.\n"
    "kernel.cpp:5:23: missed: not vectorized: unsupported data-type\n"
    "kernel.cpp:9:21: optimized: loop vectorized using 32 byte vectors\n"
    "kernel.cpp:11:21: missed: not vectorized: loop-carried dependence\n"
    "other.h:3:1: missed: not vectorized: elsewhere\n";

}  // namespace

TEST(VectorRemarks, IntrinsicsLoopsAreLeftOut) {
  auto remarks = parse_vector_remarks(kRemarks, "kernel.cpp", kSource);
  ASSERT_EQ(remarks.size(), 4u);
  EXPECT_TRUE(remarks[0].intrinsics);   // line 3: its body uses intrinsics
  EXPECT_TRUE(remarks[1].intrinsics);   // line 5: an unbraced loop over an intrinsics statement
  EXPECT_FALSE(remarks[2].intrinsics);  // line 9: plain
  EXPECT_TRUE(remarks[2].vectorized);
  EXPECT_FALSE(remarks[3].intrinsics);  // line 11: plain, braced
  std::string text = format_vector_remarks(remarks);
  EXPECT_THAT(text, Not(HasSubstr("line    3")));
  EXPECT_THAT(text, Not(HasSubstr("line    5")));
  EXPECT_THAT(text, Not(HasSubstr("_mm256")));
  EXPECT_THAT(text, HasSubstr("line    9: vectorized"));
  EXPECT_THAT(text,
              HasSubstr("line   11: NOT vectorized — not vectorized: loop-carried dependence"));
  EXPECT_THAT(text, HasSubstr("(2 remark(s) on loops written with intrinsics left out"));
}

TEST(VectorRemarks, StatementExtent) {
  std::vector<std::string> lines = {"for (int i = 0; i < n; ++i)", "  for (int j = 0; j < n; ++j)",
                                    "    y[j] = x[j];", "_mm256_zeroupper();"};
  EXPECT_FALSE(uses_intrinsics(lines, 1));  // ends at line 3's ';', before the intrinsic on line 4
  EXPECT_TRUE(uses_intrinsics(lines, 4));
  EXPECT_FALSE(uses_intrinsics({"for (;;) { // _mm256 in a comment", "}"}, 1));
}

}  // namespace kforge::toolchain
