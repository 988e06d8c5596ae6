// bench --peers' arithmetic on made-up cells: the fastest peer is the one the candidate gains
// least over, among cells judged quietly; a failed or busy peer is never the fastest; fast_p is
// taken against the fastest peer and against eager PyTorch over the tasks where each was judged.
#include "kforge/eval/peer_table.h"

#include <gtest/gtest.h>

namespace kforge::eval {
namespace {

SuiteTaskResult cell(double speedup, bool busy = false, bool partner_failed = false) {
  Evaluation e;
  e.verdict = partner_failed ? Verdict::incorrect : Verdict::correct;
  e.partner_failed = partner_failed;
  e.machine_busy = busy;
  e.candidate = TimingStats{10, 1.0, 0.9, 1.1, 0.9};
  if (!partner_failed)
    e.speedup = SpeedupStats{speedup, speedup, speedup, speedup * 0.9, speedup * 1.1};
  return {"t", "evaluated", e};
}

const std::vector<std::string> kPeers = {"libtorch", "torch", "xla"};

}  // namespace

TEST(PeerTable, FastestPeerIsTheSmallestJudgedSpeedup) {
  PeerRow row{"t", {cell(3.0), cell(1.4), cell(0.8)}, std::nullopt};
  find_fastest(row);
  ASSERT_TRUE(row.fastest);
  EXPECT_EQ(kPeers[*row.fastest], "xla");
  EXPECT_DOUBLE_EQ(row.over_fastest()->median, 0.8);
}

TEST(PeerTable, BusyOrFailedPeersAreNeverTheFastest) {
  PeerRow row{
      "t", {cell(3.0), cell(0.5, /*busy=*/true), cell(0, false, /*failed=*/true)}, std::nullopt};
  find_fastest(row);
  ASSERT_TRUE(row.fastest);
  EXPECT_EQ(kPeers[*row.fastest], "libtorch");
  EXPECT_TRUE(peer_failed(row.cells[2]));
  EXPECT_FALSE(judged(row.cells[1]));
  // --json gives the busy cell no speedup: its reading is kept apart, as an evaluation's is.
  auto busy = to_json(row, kPeers)["peers"]["torch"];
  EXPECT_TRUE(busy["busy"].get<bool>());
  EXPECT_TRUE(busy["speedup"].is_null()) << busy.dump();
  EXPECT_TRUE(busy["speedup_ci95"].is_null()) << busy.dump();
  EXPECT_DOUBLE_EQ(busy["busy_speedup"]["median"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(to_json(row, kPeers)["peers"]["libtorch"]["speedup"].get<double>(), 3.0);
}

TEST(PeerTable, SummaryAgainstFastestAndEager) {
  std::vector<PeerRow> rows = {
      {"a", {cell(3.0), cell(2.0), cell(1.6)}, std::nullopt},  // beats all, > 1.5 over the fastest
      {"b", {cell(3.0), cell(1.2), cell(0.7)}, std::nullopt},  // beats eager, loses to xla
      {"c",
       {cell(2.0), cell(0.9, true), cell(0, false, true)},
       std::nullopt},  // eager busy, xla failed
  };
  for (auto& r : rows) find_fastest(r);
  auto s = summarize_peers(rows, kPeers);
  EXPECT_EQ(s.tasks, 3);
  EXPECT_EQ(s.with_fastest, 3);
  EXPECT_DOUBLE_EQ(*s.fast_1_fastest, 2.0 / 3);  // a (1.6) and c (libtorch 2.0)
  EXPECT_DOUBLE_EQ(*s.fast_1_5_fastest, 2.0 / 3);
  EXPECT_DOUBLE_EQ(*s.fast_1_eager, 1.0);  // a and b; c's eager cell was busy
  EXPECT_DOUBLE_EQ(*s.fast_1_5_eager, 0.5);
  EXPECT_EQ(s.busy_cells, 1);
  EXPECT_EQ(s.peer_errors, 1);
  auto j = to_json(rows[1], kPeers);
  EXPECT_EQ(j["fastest_peer"], "xla");
  EXPECT_DOUBLE_EQ(j["peers"]["torch"]["speedup"].get<double>(), 1.2);
  EXPECT_TRUE(to_json(rows[2], kPeers)["peers"]["xla"]["peer_failed"].get<bool>());
  EXPECT_TRUE(to_json(s)["fast_1_vs_eager"].is_number());
}

TEST(PeerTable, NothingJudgedIsNullNotZero) {
  std::vector<PeerRow> rows = {{"a", {cell(1.0, true), cell(1.0, true), cell(1.0, true)}, {}}};
  for (auto& r : rows) find_fastest(r);
  auto s = summarize_peers(rows, kPeers);
  EXPECT_FALSE(s.fast_1_fastest);
  EXPECT_FALSE(s.fast_1_eager);
  EXPECT_TRUE(to_json(s)["fast_1_vs_fastest_peer"].is_null());
}

}  // namespace kforge::eval
