// What `kforge bench --tasks/--size` selects is checked before anything runs: an unknown task id
// or a size no selected task has is refused, naming it and suggesting the closest known one.
#include "kforge/eval/suite_run.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <stdexcept>

#include "kforge/eval/result_row.h"

namespace kforge::eval {
namespace {

class SuiteSelection : public ::testing::Test {
 protected:
  void SetUp() override {
    suite_ =
        std::filesystem::temp_directory_path() / ("kforge-suite-" + std::to_string(::getpid()));
    add_task("12p_rmsnorm", "[sizes.ci]\nN = 8\n[sizes.cpu]\nN = 64\n");
    add_task("8p_gemm", "[sizes.ci]\nN = 8\n[sizes.full]\nN = 512\n");
  }
  void TearDown() override { std::filesystem::remove_all(suite_); }

  void add_task(const std::string& id, const std::string& sizes) {
    auto dir = suite_ / id;
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "task.toml")
        << "id = \"" << id << "\"\n"
        << sizes
        << "[[inputs]]\nname = \"x\"\ndtype = \"f32\"\nshape = [\"N\"]\n"
           "init = { dist = \"normal\", mean = 0.0, std = 1.0 }\n"
           "[[outputs]]\nname = \"y\"\ndtype = \"f32\"\nshape = [\"N\"]\n"
           "[check]\nrtol = 1e-5\natol = 1e-6\n";
    std::ofstream(dir / "reference.cpp") << "// reference\n";
  }
  std::string error_of(std::vector<std::string> tasks, const std::string& size) const {
    SuiteRunOptions o;
    o.suite = suite_;
    o.tasks = std::move(tasks);
    o.size = size;
    auto st = check_selection(o);
    return st ? std::string("(no error)") : st.error().message;
  }

  std::filesystem::path suite_;
};

TEST_F(SuiteSelection, KnownTasksAndSizesPass) {
  EXPECT_EQ(error_of({}, ""), "(no error)");
  EXPECT_EQ(error_of({"12p_rmsnorm", "8p_gemm"}, "ci"), "(no error)");
  EXPECT_EQ(error_of({"8p_gemm"}, "full"), "(no error)");
  EXPECT_EQ(error_of({}, "cpu"), "(no error)");  // declared by one task: the others report it
}

TEST_F(SuiteSelection, UnknownTaskIsNamedWithASuggestion) {
  std::string e = error_of({"12p_rmsnorm", "foo"}, "");
  EXPECT_NE(e.find("--tasks: no task 'foo' in"), std::string::npos) << e;
  e = error_of({"rmsnorm"}, "");
  EXPECT_NE(e.find("no task 'rmsnorm'"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean '12p_rmsnorm'?"), std::string::npos) << e;
}

TEST_F(SuiteSelection, UnknownSizeIsNamedWithASuggestion) {
  std::string e = error_of({}, "small");
  EXPECT_NE(e.find("--size: no selected task has a size 'small' (they have: ci, cpu, full)"),
            std::string::npos)
      << e;
  EXPECT_EQ(e.find("did you mean"), std::string::npos) << e;
  e = error_of({"12p_rmsnorm"}, "full");  // only the selected tasks count
  EXPECT_NE(e.find("no selected task has a size 'full' (they have: ci, cpu)"), std::string::npos)
      << e;
  e = error_of({}, "cpuu");
  EXPECT_NE(e.find("did you mean 'cpu'?"), std::string::npos) << e;
}

// A fault in kforge while judging one task (here: the compiler throws) is that task's row; the
// suite goes on to the next task and returns every row.
class ThrowingCompiler : public toolchain::Compiler {
 public:
  toolchain::CompileResult compile(const toolchain::CompileRequest&) override {
    throw std::runtime_error("compiler exploded");
  }
  std::vector<std::string> flags_for(toolchain::Role) const override { return {}; }
};

TEST_F(SuiteSelection, AFaultWhileJudgingOneTaskIsThatTasksRow) {
  auto state = suite_ / "state";
  std::filesystem::create_directories(state);
  ::setenv("KFORGE_DIR", state.c_str(), 1);
  SuiteRunOptions o;
  o.suite = suite_;
  o.impl = "reference";
  o.size = "ci";
  o.eval.time = false;  // check only: the compile is the first thing it does
  ThrowingCompiler compiler;
  int seen = 0;
  auto results = run_suite(o, compiler, [&](const SuiteTaskResult&, int, int) { ++seen; });
  ::unsetenv("KFORGE_DIR");
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(seen, 2);
  for (const auto& r : results) {
    EXPECT_FALSE(r.evaluation.has_value()) << (r.evaluation ? r.evaluation->reason : "");
    EXPECT_NE(r.status.find("error: "), std::string::npos) << r.status;
    EXPECT_NE(r.status.find("compiler exploded"), std::string::npos) << r.status;
  }
}

// Nothing correct: the geometric mean and the fast_p shares are absent (null), not 0.
TEST(SuiteSummary, NothingToAverageIsNullNotZero) {
  std::vector<SuiteTaskResult> results = {{"a", "error: x", std::nullopt}};
  auto s = summarize_suite(results, 1.0);
  EXPECT_FALSE(s.geomean_speedup.has_value());
  auto j = to_json(s);
  EXPECT_TRUE(j["geomean_speedup"].is_null());
  EXPECT_TRUE(j["fast_1"].is_null());
}

// The flat row: every CSV column is a JSON key and the reverse, each row names its schema,
// version, commit and time, and a number that was not measured is empty or null, never 0.
TEST(ResultRow, CsvAndJsonHoldTheSameSelfDescribingColumns) {
  MachineProfile m;
  m.cpu_model = "Test CPU, 4 GHz";
  m.logical_cpus = 2;
  RunStamp stamp = stamp_run(m, "baseline", 2);
  SuiteTaskResult skipped{"12p_rmsnorm", "skipped: no expert.cpp", std::nullopt};
  ResultRow row = make_row(stamp, skipped, "ci");
  auto j = to_json(row);
  std::string header = csv_header();
  std::size_t commas = std::count(header.begin(), header.end(), ',');
  EXPECT_EQ(j.size(), commas + 1);
  for (const auto& [key, value] : j.items()) EXPECT_NE(header.find(key), std::string::npos) << key;
  EXPECT_EQ(j["schema"], kResultRowSchema);
  EXPECT_FALSE(j["git_sha"].get<std::string>().empty());
  EXPECT_EQ(j["timestamp"].get<std::string>().size(), 20u);  // 2026-12-01T17:00:00Z
  EXPECT_TRUE(j["median_ms"].is_null());
  EXPECT_TRUE(j["speedup"].is_null());
  std::string csv = to_csv(row);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), ','),
            static_cast<long>(commas) + 1);  // + the comma inside the quoted CPU name
  EXPECT_NE(csv.find("\"Test CPU, 4 GHz\""), std::string::npos) << csv;
  EXPECT_NE(csv.find(",,"), std::string::npos) << "unmeasured numbers are empty cells: " << csv;

  Evaluation e;
  e.verdict = Verdict::correct;
  e.size = "ci";
  e.candidate = TimingStats{41, 2.0, 1.9, 2.2, 1.8};
  e.speedup = SpeedupStats{1.5, 1.4, 1.6, 1.45, 1.55};
  auto timed = to_json(make_row(stamp, SuiteTaskResult{"12p_rmsnorm", "evaluated", e}, ""));
  EXPECT_EQ(timed["samples"], 41);
  EXPECT_EQ(timed["size"], "ci");
  EXPECT_DOUBLE_EQ(timed["speedup_ci_low"].get<double>(), 1.45);
  EXPECT_EQ(timed["verdict"], "correct");
  EXPECT_TRUE(timed["busy_speedup"].is_null());

  // Timed busy: the speedup is kept under busy_speedup and never published as the row's speedup.
  e.machine_busy = true;
  e.busy_reason = "the baseline ran 2.00x slower than its quiet median";
  e.partner_pace.slowdown = 2.0;
  SuiteTaskResult busy{"12p_rmsnorm", "evaluated", e};
  busy.remeasured = 2;
  auto b = to_json(make_row(stamp, busy, ""));
  EXPECT_TRUE(b["speedup"].is_null());
  EXPECT_TRUE(b["speedup_ci_low"].is_null());
  EXPECT_DOUBLE_EQ(b["busy_speedup"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(b["busy_speedup_ci_high"].get<double>(), 1.55);
  EXPECT_DOUBLE_EQ(b["partner_slowdown"].get<double>(), 2.0);
  EXPECT_EQ(b["remeasured"], 2);
  EXPECT_EQ(b["busy"], true);
}

namespace {

SuiteTaskResult timed_row(const std::string& id, double speedup, bool busy) {
  Evaluation e;
  e.verdict = Verdict::correct;
  e.candidate = TimingStats{41, 2.0, 1.9, 2.2, 1.8};
  e.speedup = SpeedupStats{speedup, speedup, speedup, speedup * 0.9, speedup * 1.1};
  e.machine_busy = busy;
  return {id, "evaluated", e};
}

}  // namespace

// A busy speedup is no result: it is left out of fast_p and the geomean (numerator and
// denominator), and counted as busy.
TEST(SuiteSummary, BusyRowsAreLeftOutOfTheSharesAndTheMean) {
  std::vector<SuiteTaskResult> results = {timed_row("a", 2.0, false), timed_row("b", 0.5, false),
                                          timed_row("c", 9.0, true)};
  auto s = summarize_suite(results, 1.0);
  EXPECT_EQ(s.evaluated, 3);
  EXPECT_EQ(s.correct, 3);
  EXPECT_EQ(s.busy, 1);
  EXPECT_DOUBLE_EQ(*s.fast_1, 0.5);
  EXPECT_DOUBLE_EQ(*s.geomean_speedup, 1.0);
  EXPECT_EQ(to_json(s)["busy"], 1);
}

// bench re-measures busy rows: a quiet re-measurement replaces the row; one still busy after the
// retries stays busy and says how often it was measured again; quiet rows are never re-run, nor
// are busy ones timed in an interpreter (no performance figure either way); a re-measurement that
// could not evaluate the task keeps the busy one.
TEST(SuiteRemeasure, BusyRowsAreMeasuredAgainBoundedly) {
  auto interpreted = timed_row("interpreted", 9.0, true);
  interpreted.evaluation->timing_basis = "interpret (cpu)";
  std::vector<SuiteTaskResult> results = {
      timed_row("quiet", 2.0, false), timed_row("calms", 9.0, true), timed_row("stays", 9.0, true),
      timed_row("fails", 9.0, true), interpreted};
  std::map<std::string, int> calls;
  remeasure_busy(results, 2, [&](const SuiteTaskResult& r) {
    ++calls[r.id];
    if (r.id == "calms") return timed_row(r.id, 3.0, false);
    if (r.id == "fails")
      return SuiteTaskResult{r.id, "error: the task folder vanished", std::nullopt};
    return timed_row(r.id, 8.0, true);
  });
  EXPECT_EQ(calls.count("quiet"), 0u);
  EXPECT_EQ(calls.count("interpreted"), 0u);
  EXPECT_TRUE(results[4].busy());
  EXPECT_EQ(results[4].remeasured, 0);
  EXPECT_EQ(calls["calms"], 1);
  EXPECT_FALSE(results[1].busy());
  EXPECT_EQ(results[1].remeasured, 1);
  EXPECT_DOUBLE_EQ(results[1].evaluation->speedup->median, 3.0);
  EXPECT_EQ(calls["stays"], 2);
  EXPECT_TRUE(results[2].busy());
  EXPECT_EQ(results[2].remeasured, 2);
  EXPECT_DOUBLE_EQ(results[2].evaluation->speedup->median, 8.0);
  EXPECT_EQ(calls["fails"], 2);
  EXPECT_TRUE(results[3].busy());
  EXPECT_DOUBLE_EQ(results[3].evaluation->speedup->median, 9.0);
  EXPECT_EQ(results[3].remeasured, 2);
  EXPECT_EQ(to_json(results[2])["remeasured"], 2);
}

}  // namespace
}  // namespace kforge::eval
