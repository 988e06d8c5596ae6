// The partner's quiet medians per machine and its slowdown as a load signal: the record keeps the
// latest quiet medians per task/size/threads/partner, the signal fires at 1.5x its median, and the
// store on disk survives processes, refuses a corrupt file with its name, and is keyed by machine.
// A peer is paced like the baseline, per release of its framework; a user's kernel never is.
#include "kforge/eval/partner_pace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "kforge/core/fs.h"
#include "kforge/eval/steps.h"

namespace kforge::eval {
namespace {

using ::testing::HasSubstr;

TEST(PartnerPace, TheRecordKeepsTheLatestQuietMediansPerEntry) {
  const auto a = partner_pace_entry("12p_rmsnorm", "ci", 2, "baseline"),
             b = partner_pace_entry("12p_rmsnorm", "ci", 1, "baseline");
  EXPECT_EQ(a, "12p_rmsnorm/ci/2t/baseline");
  nlohmann::json r;
  EXPECT_FALSE(quiet_pace(r, a));
  for (double ms : {10.0, 11.0, 30.0}) r = with_quiet_run(r, a, ms, 1000, 7);
  auto p = quiet_pace(r, a);
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->median_ms, 11.0);  // the median: one stray quiet run does not move it
  EXPECT_EQ(p->runs, 3);
  EXPECT_FALSE(quiet_pace(r, b));  // another thread count is another entry
  for (int i = 0; i < 10; ++i) r = with_quiet_run(r, a, 20.0, 1000 + i, 7);
  EXPECT_EQ(quiet_pace(r, a)->runs, 7);
  EXPECT_DOUBLE_EQ(quiet_pace(r, a)->median_ms, 20.0);  // the oldest were dropped
}

TEST(PartnerPace, ThePartnerFarSlowerThanItsQuietMedianMeansBusy) {
  const QuietPace quiet{10.0, 3};
  auto slow = judge_partner_pace(quiet, 21.0, "baseline");
  EXPECT_TRUE(slow.busy);
  EXPECT_DOUBLE_EQ(slow.slowdown, 2.1);
  EXPECT_THAT(
      slow.reason,
      HasSubstr("the baseline ran 2.10x slower than its quiet median (10 ms over 3 quiet runs)"));
  auto near = judge_partner_pace(quiet, 14.0, "baseline");
  EXPECT_FALSE(near.busy);
  EXPECT_DOUBLE_EQ(near.slowdown, 1.4);
  EXPECT_TRUE(near.reason.empty());
  auto unknown = judge_partner_pace(std::nullopt, 50.0, "baseline");  // nothing to compare with yet
  EXPECT_FALSE(unknown.busy);
  EXPECT_EQ(unknown.slowdown, 0);
  EXPECT_TRUE(unknown.to_json()["slowdown"].is_null());
}

class PartnerPaceFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("kforge-pace-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(PartnerPaceFile, LivesBesideThePeaksRecordAndSurvivesProcesses) {
  MachineProfile m;
  EXPECT_TRUE(partner_pace_file(m).empty());  // no peaks record: nowhere to keep it
  m.peak_file = dir_ / "peaks" / "host-abc.json";
  const auto file = partner_pace_file(m);
  EXPECT_EQ(file, dir_ / "partner-pace" / "host-abc.json");
  const auto entry = partner_pace_entry("1p", "cpu", 2, "baseline");
  ASSERT_TRUE(record_quiet_partner(file, entry, 5.0));
  ASSERT_TRUE(record_quiet_partner(file, entry, 7.0));
  auto read = read_partner_pace(file);
  ASSERT_TRUE(read);
  EXPECT_DOUBLE_EQ(quiet_pace(*read, entry)->median_ms, 6.0);
  EXPECT_EQ((*read)["schema"], "kforge.partner_pace/1");
}

TEST_F(PartnerPaceFile, ACorruptRecordIsAnErrorNamingItAndIsNotOverwritten) {
  const auto file = dir_ / "partner-pace" / "x.json";
  std::filesystem::create_directories(file.parent_path());
  ASSERT_TRUE(core::write_atomic(file, "{not json"));
  auto read = read_partner_pace(file);
  ASSERT_FALSE(read);
  EXPECT_THAT(read.error().message, HasSubstr(file.string()));
  EXPECT_FALSE(record_quiet_partner(file, "e", 1.0));
  EXPECT_EQ(*core::read_text(file), "{not json");
}

// An evaluation paired with `partner` whose partner ran `median_ms`.
Evaluation paired_with(const std::string& partner, const std::string& version, double median_ms) {
  Evaluation e;
  e.task_id = "12p_rmsnorm";
  e.size = "cpu";
  e.threads = 2;
  e.partner = partner;
  e.partner_version = version;
  e.baseline = TimingStats{.samples = 20, .median_ms = median_ms};
  return e;
}

TEST_F(PartnerPaceFile, APeerIsPacedPerReleaseAndAUsersKernelNever) {
  MachineProfile m;
  m.peak_file = dir_ / "peaks" / "host-abc.json";
  for (double ms : {10.0, 10.4, 9.8}) {  // three quiet runs of XLA teach kforge its pace
    auto quiet = paired_with("xla", "jax 0.10.2", ms);
    pace_the_partner(m, ms, quiet);
    EXPECT_FALSE(quiet.machine_busy);
  }
  auto slow = paired_with("xla", "jax 0.10.2", 25.0);
  pace_the_partner(m, 25.0, slow);
  EXPECT_TRUE(slow.machine_busy);  // the peer itself ran 2.5x slower: the machine was busy
  EXPECT_THAT(slow.busy_reason, HasSubstr("the xla ran 2.50x slower than its quiet median"));

  auto upgraded = paired_with("xla", "jax 0.11.0", 25.0);  // another release: no pace known yet
  pace_the_partner(m, 25.0, upgraded);
  EXPECT_FALSE(upgraded.machine_busy);
  EXPECT_EQ(upgraded.partner_pace.slowdown, 0);

  auto failed = paired_with("xla", "jax 0.10.2", 25.0);  // a peer that failed is not its pace
  failed.partner_failed = true;
  pace_the_partner(m, 25.0, failed);
  EXPECT_FALSE(failed.machine_busy);

  auto against = paired_with("against mine.cpp", "", 25.0);
  for (int i = 0; i < 3; ++i) pace_the_partner(m, 25.0, against);
  pace_the_partner(m, 25.0, against);
  EXPECT_FALSE(against.machine_busy);
  auto record = read_partner_pace(partner_pace_file(m));
  ASSERT_TRUE(record);
  EXPECT_EQ((*record)["entries"].size(), 2u);  // xla at two releases; nothing for a user's kernel
}

// A kernel that slowed its partner (it once pinned the partner's threads onto one CPU: 8.4x,
// `correct`, and the slowed time stored as the partner's quiet pace). The partner timed alone
// right after, with no candidate process alive, is the only pace kept; far faster alone than
// beside the kernel, the pairs measured a slowed partner and give no speedup.
TEST_F(PartnerPaceFile, OnlyAPartnerTimedAloneSetsItsPace) {
  MachineProfile m;
  m.peak_file = dir_ / "peaks" / "host-abc.json";
  auto slowed = paired_with("baseline", "", 29.7);
  pace_the_partner(m, 6.2, slowed);
  EXPECT_TRUE(slowed.machine_busy);
  EXPECT_THAT(slowed.busy_reason,
              HasSubstr("the baseline ran 4.79x slower beside the kernel (29.7 ms) than alone"));
  auto record = read_partner_pace(partner_pace_file(m));
  ASSERT_TRUE(record);
  EXPECT_FALSE(quiet_pace(*record, partner_pace_entry("12p_rmsnorm", "cpu", 2, "baseline")))
      << "nothing is recorded from a run whose partner was slowed";

  auto quiet = paired_with("baseline", "", 6.4);  // beside the kernel: a little slower, in noise
  pace_the_partner(m, 6.2, quiet);
  EXPECT_FALSE(quiet.machine_busy) << quiet.busy_reason;
  record = read_partner_pace(partner_pace_file(m));
  ASSERT_TRUE(record);
  auto kept = quiet_pace(*record, partner_pace_entry("12p_rmsnorm", "cpu", 2, "baseline"));
  ASSERT_TRUE(kept);
  EXPECT_DOUBLE_EQ(kept->median_ms, 6.2) << "the median timed alone, not the paired one";

  auto unknown = paired_with("baseline", "", 6.3);  // no alone timing: nothing kept
  pace_the_partner(m, std::nullopt, unknown);
  record = read_partner_pace(partner_pace_file(m));
  EXPECT_EQ(quiet_pace(*record, partner_pace_entry("12p_rmsnorm", "cpu", 2, "baseline"))->runs, 1);
}

}  // namespace
}  // namespace kforge::eval
