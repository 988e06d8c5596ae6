// The run ledger against a real store in a temp folder: a run's life (start, best, end), nodes
// added and updated from several threads at once, the interrupted nodes of a killed run, and the
// one mapping from an evaluation to a node (roofline and its reason included); a hitl session's
// versions as nodes, and the migration of a state.json written before they were.
#include "kforge/modes/run_ledger.h"

#include <gtest/gtest.h>

#include <thread>

#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/modes/hitl_versions.h"
#include "kforge/store/store.h"
#include "kforge/store/store_test_util.h"

namespace kforge::modes {
namespace {

class RunLedgerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ledger = RunLedger::open(dir_.path());
    ASSERT_TRUE(ledger) << ledger.error().message;
    ledger_ = std::move(*ledger);
    ASSERT_TRUE(
        store::insert_session(ledger_->db(), {"r", store::now_iso8601(), "kforge auto", "/"}));
    ASSERT_TRUE(ledger_->start_run(
        {"r", "auto", "12p_rmsnorm", "ci", store::RunState::running, R"({"iterations":3})"}));
  }
  store::TempDir dir_;
  std::unique_ptr<RunLedger> ledger_;
};

TEST_F(RunLedgerTest, ARunFromStartToEnd) {
  ASSERT_TRUE(ledger_->set_best("r", 4));
  ASSERT_TRUE(ledger_->update_run("r", [](store::RunRecord& run) {
    run.state = store::RunState::stopped;
    run.stop_reason = "budget spent";
  }));
  auto run = ledger_->run("r");
  ASSERT_TRUE(run && *run);
  EXPECT_EQ((*run)->state, store::RunState::stopped);
  EXPECT_EQ((*run)->stop_reason, "budget spent");
  EXPECT_EQ((*run)->best_node, 4);  // kept by the later update
  EXPECT_EQ((*run)->options, R"({"iterations":3})");
  // A run that is not there is an error that names it, not a silent no-op.
  auto missing = ledger_->set_best("nope", 1);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("run nope"), std::string::npos) << missing.error().message;
  auto twice = ledger_->start_run({"r", "auto", "12p_rmsnorm", "ci"});
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message.find("recording run r"), std::string::npos)
      << twice.error().message;
}

TEST_F(RunLedgerTest, NodesFromSeveralThreadsAndTheInterruptedOnesOfAKilledRun) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        store::NodeRecord n;
        n.run_id = "r";
        n.iteration = i;
        n.expansion = "x" + std::to_string(t);
        n.state = store::NodeState::running;
        auto id = ledger_->add_node(n);
        ASSERT_TRUE(id) << id.error().message;
        n.id = *id;
        if (i % 2 == 0)
          n.state = store::NodeState::done;  // odd ones are "in flight" when the process dies
        ASSERT_TRUE(ledger_->update_node(n));
      }
    });
  for (auto& t : threads) t.join();
  auto nodes = ledger_->nodes("r");
  ASSERT_TRUE(nodes);
  EXPECT_EQ(nodes->size(), 20u);
  auto marked = ledger_->mark_interrupted("r");
  ASSERT_TRUE(marked);
  EXPECT_EQ(*marked, 8);
  nodes = ledger_->nodes("r");
  int interrupted = 0;
  for (const auto& n : *nodes) {
    EXPECT_NE(n.state, store::NodeState::running);
    interrupted += n.state == store::NodeState::interrupted;
  }
  EXPECT_EQ(interrupted, 8);
  store::NodeRecord ghost;
  ghost.id = 12345;
  ghost.run_id = "r";
  auto st = ledger_->update_node(ghost);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("node 12345"), std::string::npos) << st.error().message;
}

TEST_F(RunLedgerTest, AnEvaluationBecomesNodeColumnsInOnePlace) {
  eval::Evaluation e;
  e.verdict = eval::Verdict::correct;
  e.reason = "correct on 3 secret input sets";
  e.candidate = eval::TimingStats{9, 2.0};
  e.baseline = eval::TimingStats{9, 5.0};
  e.speedup = eval::SpeedupStats{2.5, 2.4, 2.6, 2.45, 2.55};
  e.roofline = 1.3;
  e.roofline_note = "the working set stays in L2";
  e.timing_start = 100;
  e.timing_end = 101.5;
  store::NodeRecord n;
  n.run_id = "r";
  record_evaluation(n, e);
  auto id = ledger_->add_node(n);
  ASSERT_TRUE(id);
  auto nodes = ledger_->nodes("r");
  ASSERT_TRUE(nodes);
  const auto& back = nodes->front();
  EXPECT_EQ(verdict_of(back), eval::Verdict::correct);
  EXPECT_TRUE(is_correct(back));
  EXPECT_EQ(back.median_ms, 2.0);
  EXPECT_EQ(back.baseline_ms, 5.0);
  EXPECT_EQ(back.speedup, 2.5);
  EXPECT_EQ(back.roofline, 1.3);
  EXPECT_EQ(back.roofline_reason, "the working set stays in L2");
  EXPECT_EQ(back.timing_start, 100);
  EXPECT_EQ(back.timing_end, 101.5);

  // A failed kernel has no time, so no roofline, and is never correct.
  eval::Evaluation failed;
  failed.verdict = eval::Verdict::incorrect;
  store::NodeRecord f;
  record_evaluation(f, failed);
  EXPECT_FALSE(f.median_ms || f.roofline);
  EXPECT_FALSE(is_correct(f));
  f.verdict = "correct";  // a verdict without a time is not a rankable kernel
  EXPECT_FALSE(is_correct(f));
}

// An interpret-mode ratio (pallas on a CPU backend) is no speedup: the node keeps its verdict and
// time, and no speedup for the graph, the sessions table or the web pages to quote. A GPU's is.
TEST_F(RunLedgerTest, AnInterpretModeRatioIsNoNodeSpeedup) {
  eval::Evaluation e;
  e.verdict = eval::Verdict::correct;
  e.candidate = eval::TimingStats{9, 80.0};
  e.baseline = eval::TimingStats{9, 0.4};
  e.speedup = eval::SpeedupStats{0.005, 0.004, 0.006, 0.0045, 0.0055};
  e.timing_basis = "interpret (cpu)";
  store::NodeRecord n;
  record_evaluation(n, e);
  EXPECT_TRUE(is_correct(n));
  EXPECT_FALSE(n.speedup);
  e.timing_basis = "gpu";
  store::NodeRecord g;
  record_evaluation(g, e);
  EXPECT_EQ(g.speedup, 0.005);
}

// A ratio timed on a busy machine is no result: the node keeps its verdict and time, and no
// speedup for the graph, the sessions table or the web pages to quote.
TEST_F(RunLedgerTest, ABusyRatioIsNoNodeSpeedup) {
  eval::Evaluation e;
  e.verdict = eval::Verdict::correct;
  e.candidate = eval::TimingStats{9, 8.8};
  e.baseline = eval::TimingStats{9, 0.3};
  e.speedup = eval::SpeedupStats{0.51, 0.01, 288.0, 0.21, 2.49};
  e.machine_busy = true;
  e.busy_reason = "load 11.0 on 2 CPUs";
  store::NodeRecord n;
  record_evaluation(n, e);
  EXPECT_TRUE(is_correct(n));
  EXPECT_EQ(n.median_ms, 8.8);
  EXPECT_FALSE(n.speedup);
}

// tests/hitl/state-before-nodes.json, for session `id`: four versions with their sources inline,
// v4 a revert to v2, v2 the best (timed), v4 passed its check.
HitlState state_before_nodes(const std::string& id) {
  auto text = core::read_text(core::source_dir() / "tests" / "hitl" / "state-before-nodes.json");
  EXPECT_TRUE(text) << text.error().message;
  auto j = nlohmann::json::parse(text ? *text : "{}");
  j["run_id"] = id;
  return HitlState::from_json(j);
}

TEST_F(RunLedgerTest, HitlVersionsOfAnOlderStateFileBecomeNodesOnce) {
  // A store from before hitl runs had rows: the session row only.
  ASSERT_TRUE(
      store::insert_session(ledger_->db(), {"h", store::now_iso8601(), "kforge hitl", "/"}));
  auto old = state_before_nodes("h");
  ASSERT_EQ(old.versions.size(), 4u);
  // Where each version came from, inferred: a revert from the version it names, the rest from
  // the one before.
  EXPECT_EQ(old.versions[1].parent, 1);
  EXPECT_EQ(old.versions[2].parent, 2);
  EXPECT_EQ(old.versions[3].parent, 2);
  const std::string v3_source = old.versions[2].source;

  auto state = old;
  auto recorded = restore_versions(state, *ledger_);
  ASSERT_TRUE(recorded) << recorded.error().message;
  EXPECT_EQ(*recorded, 4);
  auto run = ledger_->run("h");
  ASSERT_TRUE(run && *run);
  EXPECT_EQ((*run)->mode, "hitl");
  EXPECT_EQ((*run)->task, "12p_rmsnorm");
  auto nodes = ledger_->nodes("h");
  ASSERT_TRUE(nodes);
  ASSERT_EQ(nodes->size(), 4u);
  std::map<std::int64_t, store::NodeRecord> by_id;
  for (const auto& n : *nodes) by_id[n.id] = n;
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& v = state.versions[i];
    ASSERT_NE(v.node, 0) << "v" << v.number;
    const auto& n = by_id.at(v.node);
    EXPECT_EQ(n.iteration, v.number);
    EXPECT_EQ(n.source, old.versions[i].source) << "v" << v.number << "'s source was lost";
    EXPECT_EQ(n.strategy, old.versions[i].origin);
  }
  // Parents are the nodes of the versions they came from; v4 (a revert to v2) is v2's child.
  EXPECT_FALSE(by_id.at(state.versions[0].node).parent_id);
  EXPECT_EQ(by_id.at(state.versions[3].node).parent_id, state.versions[1].node);
  EXPECT_EQ(by_id.at(state.versions[2].node).depth, 2);
  // What the state file knew of the judge's word: v2's timing, v4's passed check.
  const auto& best = by_id.at(state.versions[1].node);
  EXPECT_TRUE(is_correct(best));
  EXPECT_EQ(best.median_ms, 0.0125);
  EXPECT_EQ(best.speedup, 2.0);
  EXPECT_EQ(verdict_of(by_id.at(state.versions[3].node)), eval::Verdict::correct);
  EXPECT_FALSE(verdict_of(by_id.at(state.versions[2].node)));
  EXPECT_EQ((*run)->best_node, state.versions[1].node);

  // The new state.json names nodes and no longer carries sources; read back, the sources come
  // from the nodes.
  auto saved = state.to_json();
  EXPECT_FALSE(saved["versions"][2].contains("source"));
  auto reopened = HitlState::from_json(saved);
  EXPECT_TRUE(reopened.versions[2].source.empty());
  auto again = restore_versions(reopened, *ledger_);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(*again, 0);
  EXPECT_EQ(reopened.versions[2].source, v3_source);
  EXPECT_EQ(reopened.versions[3].parent, 2);

  // An open whose state.json could not be rewritten migrates again without a second set of nodes.
  auto stale = old;
  auto matched = restore_versions(stale, *ledger_);
  ASSERT_TRUE(matched) << matched.error().message;
  EXPECT_EQ(*matched, 0);
  EXPECT_EQ(stale.versions[3].node, state.versions[3].node);
  EXPECT_EQ(ledger_->nodes("h")->size(), 4u);

  // A state file naming a node the store does not hold is an error naming both, not a silent
  // empty kernel.
  auto broken = HitlState::from_json(saved);
  broken.versions[2].node = 9999;
  auto refused = restore_versions(broken, *ledger_);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("v3 is the node of store id 9999"), std::string::npos)
      << refused.error().message;
}

}  // namespace
}  // namespace kforge::modes
