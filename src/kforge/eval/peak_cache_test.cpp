// The per-user peaks record and the rates that prove it low: a record is this machine's only
// under its key; it is re-measured when stale, implausible, or provisional and old; a rate above
// a peak (the libtorch baseline at 131 GFLOP/s against a peak of 46.6) marks it stale once, and a
// quiet re-measurement that still falls short explains that rate instead of chasing it forever;
// roofline fractions above 100% come with a reason. One test measures for real, through two
// "working directories" sharing one cache.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "kforge/core/fs.h"
#include "kforge/eval/machine.h"
#include "kforge/eval/peak_cache.h"
#include "kforge/eval/roofline.h"

namespace kforge::eval {
namespace {

class PeakCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kforge-peaks-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    described_ = describe_cpu();
    described_.logical_cpus = 2;
    described_.caches = {
        {1, "Data", 32 << 10, 1}, {2, "Unified", 1 << 20, 1}, {3, "Unified", 32 << 20, 2}};
    file_ = peak_file(dir_, described_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static PeakMeasurement measured(PeakRates best, bool provisional = false) {
    PeakMeasurement m;
    m.best = best;
    m.provisional = provisional;
    m.provisional_reason =
        provisional ? "the machine was busy (3.0 runnable tasks outside kforge)" : "";
    m.runs = {{best, {}}};
    m.details = {{"isa_used", "avx2"}};
    return m;
  }
  // Writes a record measured at `when` and returns the profile it gives.
  MachineProfile stored(PeakRates best, double when, bool provisional = false,
                        std::optional<nlohmann::json> previous = std::nullopt) {
    auto record = peak_record(machine_key(described_), described_, measured(best, provisional),
                              previous, when);
    EXPECT_TRUE(write_peak_record(file_, record));
    MachineProfile m = described_;
    apply_peak_record(m, record, file_);
    return m;
  }
  nlohmann::json read() const {
    return read_peak_record(file_, machine_key(described_)).value_or(nlohmann::json());
  }

  std::filesystem::path dir_, file_;
  MachineProfile described_;
};

TEST_F(PeakCache, ARecordIsOnlyThisMachines) {
  stored({53, 100, 10, 14}, 1000);
  ASSERT_TRUE(read().is_object());
  EXPECT_EQ(read()["peaks"]["fma_gflops_all"], 100);
  EXPECT_FALSE(read_peak_record(file_, "another machine's key"));
  EXPECT_EQ(file_.parent_path(), dir_ / "peaks");
  auto other = described_;
  other.cpu_model += " (another CPU)";
  EXPECT_NE(machine_key(other), machine_key(described_));
  other = described_;
  other.usable_cpus += 1;  // the same CPU with fewer CPUs allowed (a container) has other peaks
  EXPECT_NE(machine_key(other), machine_key(described_));
}

TEST_F(PeakCache, WhenToMeasureAgain) {
  stored({53, 100, 10, 14}, 1000);
  EXPECT_EQ(remeasure_reason(read(), 2, 1e9, 300), "") << "good peaks are kept for good";
  stored({53, 46.6, 10, 14}, 1000);
  EXPECT_NE(remeasure_reason(read(), 2, 1001, 300).find("below one CPU's"), std::string::npos);
  stored({53, 100, 10, 14}, 1000, /*provisional=*/true);
  EXPECT_EQ(remeasure_reason(read(), 2, 1100, 300), "")
      << "a provisional record is retried after a while, not on every run";
  EXPECT_NE(remeasure_reason(read(), 2, 1400, 300).find("provisional"), std::string::npos);
}

// The numbers: peaks measured under load (46.6 GFLOP/s for two threads), the baseline at
// 131. The baseline's rate marks the record stale; the next profile read re-measures.
TEST_F(PeakCache, ARateAboveThePeakMarksTheRecordStale) {
  auto m = stored({53, 60, 10, 14}, 1000);
  AchievedRates baseline{"the baseline", 2, 131, 1.0, 64 << 20};
  auto evidence = peak_evidence(baseline, m);
  ASSERT_TRUE(evidence);
  EXPECT_EQ((*evidence)["metric"], "fma_gflops_all");
  EXPECT_NE((*evidence)["reason"].get<std::string>().find("131.0 GFLOP/s"), std::string::npos);
  auto marked = note_achieved_rates(baseline, m);
  ASSERT_TRUE(marked && *marked);
  EXPECT_NE(remeasure_reason(read(), 2, 1001, 300).find("proved them low"), std::string::npos);
  // A mark names the measurement it is about: a newer record is not touched by it.
  auto newer = stored({53, 140, 10, 14}, 2000);
  auto late = mark_peaks_stale(file_, 1000, *evidence);
  ASSERT_TRUE(late);
  EXPECT_FALSE(*late);
  EXPECT_EQ(remeasure_reason(read(), 2, 2001, 300), "");
}

TEST_F(PeakCache, NoEvidenceFromCachesProvisionalPeaksOrSmallMargins) {
  auto m = stored({53, 100, 10, 14}, 1000);
  // 40 GB/s with 1 MiB of data: the caches served it, the triad peak is not wrong.
  EXPECT_FALSE(peak_evidence({"the kernel", 2, 1, 40, 1 << 20}, m));
  EXPECT_TRUE(peak_evidence({"the kernel", 2, 1, 40, 1 << 30}, m));
  EXPECT_FALSE(peak_evidence({"the kernel", 2, 102, 1, 1 << 30}, m)) << "2% over the peak is noise";
  m.provisional = true;
  EXPECT_FALSE(peak_evidence({"the kernel", 2, 131, 1, 1 << 30}, m));
}

// A kernel that does fewer operations than the cost formula counts beats the FMA peak every time.
// The first time marks the peaks stale; a quiet re-measurement that still reads below that rate
// records it as explained, and the same rate is no evidence any more.
TEST_F(PeakCache, AnExplainedRateIsNotChasedTwice) {
  auto m = stored({53, 100, 10, 14}, 1000);
  AchievedRates kernel{"the kernel", 2, 180, 1, 1 << 20};
  ASSERT_TRUE(*note_achieved_rates(kernel, m));
  auto remeasured = stored({53, 101, 10, 14}, 2000, false, read());
  EXPECT_DOUBLE_EQ(remeasured.explained.fma_gflops_all, 180);
  EXPECT_FALSE(peak_evidence(kernel, remeasured));
  EXPECT_TRUE(peak_evidence({"the kernel", 2, 250, 1, 1 << 20}, remeasured));
}

TEST_F(PeakCache, AProvisionalMeasurementKeepsTheBetterRatesItReplaces) {
  stored({53, 100, 10, 14}, 1000, true);
  auto m = stored({40, 110, 12, 9}, 2000, true, read());
  EXPECT_DOUBLE_EQ(m.fma_gflops_1, 53);
  EXPECT_DOUBLE_EQ(m.fma_gflops_all, 110);
  EXPECT_DOUBLE_EQ(m.triad_gbps_1, 12);
  EXPECT_DOUBLE_EQ(m.triad_gbps_all, 14);
  EXPECT_TRUE(m.provisional);
  // A quiet one stands on its own.
  auto quiet = stored({50, 90, 11, 13}, 3000, false, read());
  EXPECT_DOUBLE_EQ(quiet.fma_gflops_1, 50);
  EXPECT_FALSE(quiet.provisional);
}

// A run that read peaks measured under load (485.6 GFLOP/s) sees the quieter measurement that
// replaced them during the run (532.6), and only a newer one.
TEST_F(PeakCache, ARunSeesANewerMeasurementOfItsRecord) {
  MachineProfile loaded = stored({485.6, 485.6, 20, 20}, 1000, true);
  EXPECT_FALSE(newer_peaks(loaded)) << "nothing newer yet";
  stored({532.6, 532.6, 21, 21}, 2000);
  auto fresh = newer_peaks(loaded);
  ASSERT_TRUE(fresh);
  EXPECT_DOUBLE_EQ(fresh->peak_gflops(2), 532.6);
  EXPECT_DOUBLE_EQ(fresh->measured_unix, 2000);
  EXPECT_FALSE(fresh->provisional);
  EXPECT_FALSE(newer_peaks(*fresh)) << "the run now holds the latest";
  MachineProfile uncached = loaded;
  uncached.peak_file.clear();
  EXPECT_FALSE(newer_peaks(uncached));
}

TEST_F(PeakCache, RooflineAboveOneSaysWhy) {
  auto m = stored({53, 100, 10, 14}, 1000);
  EXPECT_EQ(roofline_note(0.9, {"the kernel", 2, 1, 13, 1 << 20}, m), "");
  EXPECT_EQ(roofline_note(1.7, {"the kernel", 2, 1, 24, 1 << 20}, m), "cache-resident working set");
  EXPECT_EQ(roofline_note(1.2, {"the kernel", 2, 1, 17, 1 << 30}, m),
            "fewer bytes moved than the cost formula counts");
  EXPECT_EQ(roofline_note(1.3, {"the kernel", 2, 130, 1, 1 << 20}, m),
            "fewer operations than the cost formula counts");
  m.provisional = true;
  EXPECT_EQ(roofline_note(1.3, {"the kernel", 2, 130, 1, 1 << 20}, m),
            "provisional peaks, measured on a busy machine");
}

// For real: kforge-peak runs (briefly), the record lands in the shared cache, and a second
// profile read (another working directory, the same user) takes it without measuring again.
TEST_F(PeakCache, MeasuredOnceAndSharedByEveryWorkingDirectory) {
  MachineProfileOptions o;
  o.measure.budget_s = 3;
  o.measure.wait_share = 0;
  o.measure.max_runs = 2;
  auto first = machine_profile(dir_, o);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_GT(first->fma_gflops_1, 0);
  EXPECT_GE(first->peak_runs.size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(first->peak_file));
  EXPECT_EQ(first->peak_file.parent_path(), dir_ / "peaks");
  auto second = machine_profile(dir_, o);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->measured_unix, first->measured_unix)
      << "measured again instead of reading the record";
  EXPECT_EQ(second->fma_gflops_all, first->fma_gflops_all);
}

}  // namespace
}  // namespace kforge::eval
