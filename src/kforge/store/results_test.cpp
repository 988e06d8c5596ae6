// Kept results: a set and its rows round-trip through a real store file; a row measured again
// replaces its task's row (per partner); filters by command, task and target and the limit pick
// the newest sets; a set left running by a process that is gone reads as interrupted; the summary
// leaves busy rows out of the geomean; a task's history runs oldest first across bench sets.
#include "kforge/store/results.h"

#include <gtest/gtest.h>

#include "kforge/store/process_owner.h"
#include "kforge/store/result_json.h"
#include "kforge/store/store.h"
#include "kforge/store/store_test_util.h"

namespace kforge::store {
namespace {

ResultSet bench_set(const std::string& created_at, const std::string& target = "cpp") {
  ResultSet s;
  s.command = "bench";
  s.suite = "/suite";
  s.target = target;
  s.size = "ci";
  s.dtype = "f32";
  s.impl = "baseline";
  s.partner = "libtorch";
  s.settings = R"({"impl":"baseline"})";
  s.hostname = "box";
  s.cpu_model = "AMD EPYC";
  s.isa = "avx2";
  s.threads = 2;
  s.openblas_coretype = "ZEN";
  s.kforge_version = "0.1.0";
  s.git_sha = "abc123";
  s.created_at = created_at;
  return s;
}

KeptResult row(std::int64_t set, const std::string& task, const std::string& verdict,
               std::optional<double> speedup, bool busy = false) {
  KeptResult r;
  r.set_id = set;
  r.task = task;
  r.size = "ci";
  r.dtype = "f32";
  r.role = "baseline";
  r.kernel = "baseline";
  r.partner = "libtorch";
  r.status = verdict.empty() ? "skipped: no expert.cpp" : "evaluated";
  r.verdict = verdict;
  r.busy = busy;
  r.speedup = speedup;
  if (speedup) {
    r.speedup_low = *speedup * 0.9;
    r.speedup_high = *speedup * 1.1;
  }
  r.median_ms = 1.5;
  r.row = R"({"task":")" + task + R"("})";
  return r;
}

TEST(Results, SetAndRowsRoundTrip) {
  TempDir dir;
  auto db = open_store(store_path(dir.path()));
  ASSERT_TRUE(db) << db.error().message;
  auto id = insert_result_set(**db, bench_set("2026-01-01T00:00:00Z"));
  ASSERT_TRUE(id) << id.error().message;
  ASSERT_TRUE(put_result(**db, row(*id, "b_task", "correct", 1.25)));
  ASSERT_TRUE(put_result(**db, row(*id, "a_task", "incorrect", std::nullopt)));

  auto set = find_result_set(**db, *id);
  ASSERT_TRUE(set && *set);
  const ResultSet& s = **set;
  EXPECT_EQ(s.command, "bench");
  EXPECT_EQ(s.state, "running");
  EXPECT_EQ(effective_state(s), "running");  // this process owns it
  EXPECT_EQ(s.hostname, "box");
  EXPECT_EQ(s.isa, "avx2");
  EXPECT_EQ(s.threads, 2);
  EXPECT_EQ(s.openblas_coretype, "ZEN");
  EXPECT_EQ(s.git_sha, "abc123");
  EXPECT_EQ(s.settings, R"({"impl":"baseline"})");
  EXPECT_EQ(s.created_at, "2026-01-01T00:00:00Z");

  auto rows = results_of_set(**db, *id);
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].task, "a_task");  // by task
  EXPECT_FALSE((*rows)[0].speedup);
  EXPECT_EQ((*rows)[1].task, "b_task");
  EXPECT_EQ((*rows)[1].speedup, 1.25);
  EXPECT_DOUBLE_EQ(*(*rows)[1].speedup_low, 1.125);
  EXPECT_DOUBLE_EQ(*(*rows)[1].speedup_high, 1.375);
  EXPECT_EQ((*rows)[1].partner, "libtorch");
  EXPECT_EQ((*rows)[1].row, R"({"task":"b_task"})");

  ASSERT_TRUE(set_result_state(**db, *id, "finished"));
  EXPECT_EQ((*find_result_set(**db, *id))->state, "finished");
  EXPECT_FALSE(set_result_state(**db, 999, "finished"));  // no such set
  auto none = find_result_set(**db, 999);
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
}

TEST(Results, MeasuredAgainReplacesTheRowOfItsTaskAndPartner) {
  TempDir dir;
  auto db = open_store(store_path(dir.path()));
  ASSERT_TRUE(db);
  auto id = insert_result_set(**db, bench_set("2026-01-01T00:00:00Z"));
  ASSERT_TRUE(id);
  ASSERT_TRUE(put_result(**db, row(*id, "t", "correct", std::nullopt, /*busy=*/true)));
  ASSERT_TRUE(put_result(**db, row(*id, "t", "correct", 2.0)));
  auto peer = row(*id, "t", "correct", 0.5);
  peer.partner = "torch-compile";  // another partner of the same task is another row
  ASSERT_TRUE(put_result(**db, peer));
  auto rows = results_of_set(**db, *id);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].partner, "libtorch");
  EXPECT_FALSE((*rows)[0].busy);
  EXPECT_EQ((*rows)[0].speedup, 2.0);
  EXPECT_EQ((*rows)[1].partner, "torch-compile");
}

TEST(Results, FiltersPickTheNewestMatchingSets) {
  TempDir dir;
  auto db = open_store(store_path(dir.path()));
  ASSERT_TRUE(db);
  auto old_cpp = insert_result_set(**db, bench_set("2026-01-01T00:00:00Z"));
  auto new_cpp = insert_result_set(**db, bench_set("2026-01-03T00:00:00Z"));
  auto cuda = insert_result_set(**db, bench_set("2026-01-02T00:00:00Z", "cuda"));
  ResultSet eval = bench_set("2026-01-04T00:00:00Z");
  eval.command = "eval";
  eval.task = "12p_rmsnorm";
  auto one = insert_result_set(**db, eval);
  ASSERT_TRUE(old_cpp && new_cpp && cuda && one);
  ASSERT_TRUE(put_result(**db, row(*old_cpp, "12p_rmsnorm", "correct", 1.0)));
  ASSERT_TRUE(put_result(**db, row(*new_cpp, "8p_gemm", "correct", 1.0)));

  auto ids = [&](const ResultFilter& f) {
    std::vector<std::int64_t> out;
    auto sets = list_result_sets(**db, f);
    EXPECT_TRUE(sets) << sets.error().message;
    if (sets)
      for (const auto& s : *sets) out.push_back(s.id);
    return out;
  };
  EXPECT_EQ(ids({}), (std::vector<std::int64_t>{*one, *new_cpp, *cuda, *old_cpp}));
  EXPECT_EQ(ids({.limit = 2}), (std::vector<std::int64_t>{*one, *new_cpp}));
  EXPECT_EQ(ids({.command = "bench"}), (std::vector<std::int64_t>{*new_cpp, *cuda, *old_cpp}));
  // A bench set holding a row of the task, and an eval of it.
  EXPECT_EQ(ids({.task = "12p_rmsnorm"}), (std::vector<std::int64_t>{*one, *old_cpp}));
  EXPECT_EQ(ids({.target = "cuda"}), (std::vector<std::int64_t>{*cuda}));
  EXPECT_TRUE(ids({.task = "nothing"}).empty());
}

TEST(Results, ASetLeftRunningByAGoneProcessReadsInterrupted) {
  TempDir dir;
  auto db = open_store(store_path(dir.path()));
  ASSERT_TRUE(db);
  ResultSet s = bench_set("2026-01-01T00:00:00Z");
  // This host and boot, a pid that cannot be running (above pid_max).
  const std::string me = current_process_owner();
  const std::string host_boot = me.substr(0, me.find('|', me.find('|') + 1));
  s.owner = host_boot + "|99999999|1";
  auto id = insert_result_set(**db, s);
  ASSERT_TRUE(id);
  auto set = find_result_set(**db, *id);
  ASSERT_TRUE(set && *set);
  EXPECT_EQ((*set)->state, "running");
  EXPECT_EQ(effective_state(**set), "interrupted");
  // A resume owns it again.
  ASSERT_TRUE(set_result_state(**db, *id, "running"));
  EXPECT_EQ(effective_state(**find_result_set(**db, *id)), "running");
}

TEST(Results, SummaryLeavesBusyAndWrongRowsOutOfTheGeomean) {
  std::vector<KeptResult> rows = {row(1, "a", "correct", 2.0), row(1, "b", "correct", 0.5),
                                  row(1, "c", "correct", std::nullopt, true),
                                  row(1, "d", "incorrect", std::nullopt),
                                  row(1, "e", "", std::nullopt)};
  rows[1].speedup = 8.0;  // geomean of 2 and 8 is 4
  auto s = summarize(rows);
  EXPECT_EQ(s.rows, 5);
  EXPECT_EQ(s.evaluated, 4);
  EXPECT_EQ(s.correct, 3);
  EXPECT_EQ(s.busy, 1);
  ASSERT_TRUE(s.geomean_speedup);
  EXPECT_DOUBLE_EQ(*s.geomean_speedup, 4.0);
  EXPECT_FALSE(summarize({}).geomean_speedup);
}

TEST(Results, TaskHistoryRunsOldestFirstAcrossBenchSets) {
  TempDir dir;
  auto db = open_store(store_path(dir.path()));
  ASSERT_TRUE(db);
  auto second = insert_result_set(**db, bench_set("2026-02-01T00:00:00Z"));
  auto first = insert_result_set(**db, bench_set("2026-01-01T00:00:00Z"));
  ResultSet eval = bench_set("2026-03-01T00:00:00Z");
  eval.command = "eval";
  auto one = insert_result_set(**db, eval);
  ASSERT_TRUE(first && second && one);
  ASSERT_TRUE(put_result(**db, row(*second, "t", "correct", 1.5)));
  ASSERT_TRUE(put_result(**db, row(*first, "t", "correct", 1.0)));
  ASSERT_TRUE(put_result(**db, row(*first, "other", "correct", 9.0)));
  ASSERT_TRUE(put_result(**db, row(*one, "t", "correct", 3.0)));
  auto h = task_history(**db, "t");
  ASSERT_TRUE(h) << h.error().message;
  ASSERT_EQ(h->size(), 2u);
  EXPECT_EQ((*h)[0].set.id, *first);
  EXPECT_EQ((*h)[0].result.speedup, 1.0);
  EXPECT_EQ((*h)[0].result.task, "t");
  EXPECT_EQ((*h)[0].set.git_sha, "abc123");
  EXPECT_EQ((*h)[1].set.id, *second);
  EXPECT_EQ((*h)[1].result.speedup, 1.5);
  auto all = task_history(**db, "t", "");
  ASSERT_TRUE(all);
  EXPECT_EQ(all->size(), 3u);  // the eval too
}

TEST(Results, ASetAsJsonReadsLikeBenchJson) {
  ResultSet s = bench_set("2026-01-01T00:00:00Z");
  s.id = 3;
  auto kept = row(3, "a", "correct", 1.5);
  kept.row = R"({"row": {"schema": "kforge.result_row/2", "task": "a"},
                 "task": {"task": "a", "evaluation": {"verdict": "correct"}}})";
  auto by_hand = row(3, "b", "incorrect", std::nullopt);
  by_hand.row = "not json";  // still listed, as a bare task
  auto j = result_set_json(s, {kept, by_hand}, true);
  EXPECT_EQ(j["id"], 3);
  EXPECT_EQ(j["settings"]["impl"], "baseline");
  EXPECT_EQ(j["machine"]["openblas_coretype"], "ZEN");
  EXPECT_EQ(j["summary"]["correct"], 1);
  EXPECT_EQ(j["summary"]["geomean_speedup"], 1.5);
  ASSERT_EQ(j["tasks"].size(), 2u);
  EXPECT_EQ(j["tasks"][0]["evaluation"]["verdict"], "correct");
  EXPECT_EQ(j["tasks"][1], (nlohmann::json{{"task", "b"}}));
  ASSERT_EQ(j["rows"].size(), 1u);
  EXPECT_EQ(j["rows"][0]["schema"], "kforge.result_row/2");
  EXPECT_EQ(j["results"][0]["speedup_ci95"][0], 1.35);
  EXPECT_FALSE(result_set_json(s, {kept}, false).contains("tasks"));
}

}  // namespace
}  // namespace kforge::store
