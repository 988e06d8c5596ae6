#include "kforge/eval/output_sample.h"

#include <gtest/gtest.h>

#include <set>

namespace kforge::eval {
namespace {

struct Outputs {
  std::vector<std::vector<unsigned char>> data;
  std::vector<const unsigned char*> ptrs;
  std::vector<std::size_t> bytes;
  explicit Outputs(std::vector<std::size_t> sizes) : bytes(std::move(sizes)) {
    for (std::size_t b : bytes) data.emplace_back(b, 7);
    for (auto& d : data) ptrs.push_back(d.data());
  }
};

TEST(OutputSample, DrawsTheAskedLinesOfALargeOutputAndAllOfASmallOne) {
  std::mt19937_64 rng{1};
  // 1 MiB (16384 lines) and 100 bytes (2 lines, the last one short).
  auto s = draw_sample({1 << 20, 100}, 32, rng);
  EXPECT_FALSE(s.full);
  ASSERT_EQ(s.lines.size(), 2u);
  EXPECT_EQ(s.lines[0].size(), 32u);
  for (std::size_t at : s.lines[0]) {
    EXPECT_EQ(at % kSampleLineBytes, 0u);
    EXPECT_LT(at, std::size_t{1} << 20);
  }
  EXPECT_EQ(std::set<std::size_t>(s.lines[1].begin(), s.lines[1].end()),
            (std::set<std::size_t>{0, 64}));
}

TEST(OutputSample, TheLinesDifferFromDrawToDraw) {
  std::mt19937_64 rng{2};
  auto a = draw_sample({1 << 20}, 16, rng), b = draw_sample({1 << 20}, 16, rng);
  EXPECT_NE(a.lines[0], b.lines[0]);
}

TEST(OutputSample, CopiesTheSampledBytesAndSeesAChangeInThem) {
  Outputs out({1 << 16, 100});
  std::mt19937_64 rng{3};
  auto s = draw_sample(out.bytes, 8, rng);
  OutputSnapshot taken;
  take_sample(out.ptrs, out.bytes, s, rng, taken);
  EXPECT_EQ(taken[0].size(), 8 * kSampleLineBytes);
  EXPECT_EQ(taken[1].size(), 100u);  // the short last line is cut at the end of the output
  EXPECT_TRUE(sample_unchanged(out.ptrs, out.bytes, s, taken));
  out.data[0][s.lines[0][5] + 63] = 8;  // the last byte of a sampled line
  EXPECT_FALSE(sample_unchanged(out.ptrs, out.bytes, s, taken));
  out.data[0][s.lines[0][5] + 63] = 7;
  out.data[1][99] = 8;
  EXPECT_FALSE(sample_unchanged(out.ptrs, out.bytes, s, taken));
}

TEST(OutputSample, AFullSampleCopiesAndChecksEveryByte) {
  Outputs out({1 << 16});
  std::mt19937_64 rng{4};
  OutputSample whole;  // full by default: an audited pair
  OutputSnapshot taken;
  take_sample(out.ptrs, out.bytes, whole, rng, taken);
  EXPECT_EQ(taken[0].size(), std::size_t{1} << 16);
  out.data[0][12345] = 9;
  EXPECT_FALSE(sample_unchanged(out.ptrs, out.bytes, whole, taken));
}

TEST(OutputSample, AuditsAboutOnePairInTheAskedNumber) {
  std::mt19937_64 rng{5};
  int audited = 0;
  for (int i = 0; i < 8000; ++i) audited += draw_audit(rng, 8) ? 1 : 0;
  EXPECT_GT(audited, 850);  // 1000 expected; 5 standard deviations is about 150
  EXPECT_LT(audited, 1150);
  EXPECT_TRUE(draw_audit(rng, 1));
}

}  // namespace
}  // namespace kforge::eval
