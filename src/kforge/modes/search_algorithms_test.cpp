// The search algorithms and their driver over a fake Expander and a real store in a temp folder:
// the decisions (paired ratios, the keep factor, the best changing only by a side-by-side win, a
// busy comparison deciding nothing), the graph held in memory, and a resume that replays finished
// expansions instead of running them again. Milliseconds each: no model, no compiler, no timing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <set>

#include "kforge/core/fs.h"
#include "kforge/eval/evaluation.h"
#include "kforge/modes/expansion_context.h"
#include "kforge/modes/search_algorithms.h"
#include "kforge/store/store.h"
#include "kforge/store/store_test_util.h"

namespace kforge::modes {
namespace {

// What a strategy does to its parent's kernel: the child's speed over its parent's, or wrong.
struct Effect {
  double factor = 1.0;
  bool correct = true;
  bool busy = false;     // comparisons involving the child are made on a busy machine
  double spread = 0.02;  // the half-width of its ratios' 95% intervals, relative
};

// A kernel's speed (relative to the baseline) is written in its source, so the fake can time
// any two kernels side by side without running them.
double speed_of(const std::string& source) {
  auto at = source.find("speed=");
  return at == std::string::npos ? 1.0 : std::stod(source.substr(at + 6));
}

// How wide a kernel's intervals are, also written in its source ("spread=0.1"; 0.02 when not).
double spread_of(const std::string& source) {
  auto at = source.find("spread=");
  return at == std::string::npos ? 0.02 : std::stod(source.substr(at + 7));
}

eval::SpeedupStats stats(double ratio, double spread = 0.02) {
  return {ratio, ratio * 0.97, ratio * 1.03, ratio * (1 - spread), ratio * (1 + spread)};
}

class FakeExpander : public Expander {
 public:
  FakeExpander(RunLedger& ledger, std::string run_id, std::map<std::string, Effect> effects)
      : ledger_(ledger), run_id_(std::move(run_id)), effects_(std::move(effects)) {}

  // After this many expansions the next one is killed in flight: its node stays running and the
  // expansion reports the run interrupted.
  int kill_after = -1;

  ExpansionResult expand(const Expansion& x, const store::NodeRecord& parent,
                         const store::NodeRecord* partner) override {
    std::lock_guard lock(mu_);
    keys.push_back(x.key);
    contexts[x.key] = x.context;
    const Effect e = x.strategy == "crossover" ? Effect{1.1} : effects_.at(x.strategy);
    store::NodeRecord n;
    n.run_id = run_id_;
    n.parent_id = x.parent;
    n.depth = parent.depth + 1;
    n.iteration = 1;
    n.strategy = "text of " + x.strategy;
    n.strategy_id = x.strategy;
    n.expansion = x.key;
    if (partner) n.partner = partner->id;
    const double speed = speed_of(parent.source) * e.factor;
    n.source =
        fmt::format("// {}{}\nspeed={} spread={}", x.key, e.busy ? " busy" : "", speed, e.spread);
    n.state = store::NodeState::running;
    auto id = ledger_.add_node(n);
    EXPECT_TRUE(id) << id.error().message;
    n.id = *id;
    if (kill_after >= 0 && static_cast<int>(keys.size()) > kill_after)
      return {store::RunState::interrupted, "killed", {n}, std::nullopt};
    eval::Evaluation ev;
    ev.verdict = e.correct ? eval::Verdict::correct : eval::Verdict::incorrect;
    if (e.correct) {
      ev.candidate = eval::TimingStats{};
      ev.candidate->median_ms = 10.0 / speed;
      ev.speedup = stats(speed, e.spread);
    }
    n.state = store::NodeState::done;
    record_evaluation(n, ev);
    EXPECT_TRUE(ledger_.update_node(n));
    ExpansionResult r{store::RunState::finished, "", {n}, n.id};
    if (e.correct) {
      r.best_source = n.source;
      r.best = ev;
    }
    return r;
  }

  eval::PairedDecision compare(const std::string& challenger, const std::string& incumbent,
                               const std::string& label) override {
    std::lock_guard lock(mu_);
    ++comparisons;
    eval::PairedDecision d;
    d.against = label;
    d.ratio = stats(speed_of(challenger) / speed_of(incumbent),
                    std::max(spread_of(challenger), spread_of(incumbent)));
    d.busy = challenger.find(" busy") != std::string::npos ||
             incumbent.find(" busy") != std::string::npos;
    d.winner = d.busy ? eval::Winner::undecided : eval::read_interval(*d.ratio);
    if (d.busy) d.reason = "the machine was busy";
    return d;
  }

  std::vector<std::string> keys;
  std::map<std::string, ExpansionContext> contexts;  // what each expansion was told of the search
  int comparisons = 0;

 private:
  RunLedger& ledger_;
  std::string run_id_;
  std::map<std::string, Effect> effects_;
  std::mutex mu_;
};

std::vector<Strategy> catalogue(const std::map<std::string, Effect>& effects) {
  std::vector<Strategy> out;
  for (const auto& [id, e] : effects)
    out.push_back({id, id == "go_slow" ? "memory" : "compute", "STRATEGY " + id, {}});
  return out;
}

class SearchAlgorithms : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ledger = RunLedger::open(dir_.path());
    ASSERT_TRUE(ledger) << ledger.error().message;
    ledger_ = std::move(*ledger);
    ASSERT_TRUE(
        store::insert_session(ledger_->db(), {"run", store::now_iso8601(), "kforge search", "/"}));
    ASSERT_TRUE(ledger_->start_run({"run", "search", "12p_rmsnorm", "ci"}));
    store::NodeRecord root;
    root.run_id = "run";
    root.strategy = root.strategy_id = "root";
    root.state = store::NodeState::done;
    auto id = ledger_->add_node(root);
    ASSERT_TRUE(id);
    root_ = *id;
  }

  SearchDriver driver(FakeExpander& x, const std::map<std::string, Effect>& effects,
                      unsigned seed = 3, int jobs = 1) {
    return SearchDriver({"run", catalogue(effects), {}, seed, jobs, nullptr}, x, *ledger_);
  }

  store::TempDir dir_;
  std::unique_ptr<RunLedger> ledger_;
  std::int64_t root_ = 0;
};

const std::map<std::string, Effect> kThree = {
    {"go_fast", {2.0}}, {"go_slow", {0.5}}, {"go_wrong", {1.0, false}}};

// A search whose store already holds another run's nodes: its expansion keys, progress lines and
// JSON name its nodes 1, 2, 3 in the order made, not by the store's ids (which count across runs),
// and the nodes an expander hands back unnumbered are numbered from the store.
TEST_F(SearchAlgorithms, KeysAndProgressLinesNameNodesByTheirNumberInTheRun) {
  auto& db = ledger_->db();
  ASSERT_TRUE(store::insert_session(db, {"later", store::now_iso8601(), "kforge search", "/"}));
  ASSERT_TRUE(ledger_->start_run({"later", "search", "12p_rmsnorm", "ci"}));
  for (int k = 0; k < 3; ++k) {  // more of the fixture's run: store ids 2 to 4
    store::NodeRecord n;
    n.run_id = "run";
    ASSERT_TRUE(ledger_->add_node(n));
  }
  store::NodeRecord root;
  root.run_id = "later";
  root.strategy = root.strategy_id = "root";
  root.state = store::NodeState::done;
  auto root_id = ledger_->add_node(root);
  ASSERT_TRUE(root_id);
  ASSERT_EQ(*root_id, 5);

  const std::map<std::string, Effect> effects = {{"a", {2.0}}, {"b", {1.5}}};
  FakeExpander x(*ledger_, "later", effects);
  std::vector<std::string> lines;
  SearchDriver d(
      {"later", catalogue(effects), {}, 3, 1, [&](std::string_view m) { lines.emplace_back(m); }},
      x, *ledger_);
  ASSERT_TRUE(d.load());
  SearchOptions o;
  o.beam_size = 1;
  o.branches = 1;
  o.depth = 2;
  o.keep_factor = 100;
  run_beam(d, o);
  ASSERT_EQ(x.keys.size(), 2u);
  EXPECT_THAT(x.keys[0], ::testing::StartsWith("beam/d1/n1/"));
  EXPECT_THAT(x.keys[1], ::testing::StartsWith("beam/d2/n2/"));
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  EXPECT_THAT(all, ::testing::HasSubstr("expanding node 1 with"));
  EXPECT_THAT(all, ::testing::HasSubstr("expanding node 2 with"));
  EXPECT_THAT(all, ::testing::Not(::testing::HasSubstr("node 5")));
  EXPECT_THAT(all, ::testing::Not(::testing::HasSubstr("node 6")));
  auto nodes = d.graph().nodes();
  ASSERT_EQ(nodes.size(), 3u);
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    EXPECT_EQ(nodes[k].id, 5 + static_cast<std::int64_t>(k));
    EXPECT_EQ(nodes[k].number, static_cast<int>(k) + 1);
  }
  SearchResult r;
  r.nodes = nodes;
  r.best = d.best();
  r.beams = d.progress.beams;
  auto j = to_json(r);
  EXPECT_EQ(j["nodes"][2]["id"], 3);
  EXPECT_EQ(j["nodes"][2]["global_id"], 7);
  EXPECT_EQ(j["nodes"][2]["parent"], 2);
  EXPECT_EQ(j["best"], d.number_of(*d.best()));
  EXPECT_EQ(j["beams"][0][0], 2);
}

TEST_F(SearchAlgorithms, BeamAdmitsOnlyCorrectChildrenNotMuchSlowerThanTheirParent) {
  FakeExpander x(*ledger_, "run", kThree);
  auto d = driver(x, kThree);
  ASSERT_TRUE(d.load());
  SearchOptions o;
  o.beam_size = 2;
  o.branches = 3;
  o.depth = 2;
  o.keep_factor = 1.2;  // go_slow (0.5x its parent) is too slow to keep
  run_beam(d, o);
  ASSERT_EQ(d.progress.beams.size(), 2u);
  for (const auto& beam : d.progress.beams)
    for (auto id : beam) {
      EXPECT_TRUE(d.correct(id)) << id;
      EXPECT_EQ(d.node(id).strategy_id, "go_fast") << "only the fast child is good enough to keep";
    }
  // Depth 2 grew the beam's node with the strategies not yet on its path.
  std::set<std::string> depth2;
  for (const auto& n : d.graph().nodes())
    if (n.depth == 2) depth2.insert(n.strategy_id);
  EXPECT_EQ(depth2, (std::set<std::string>{"go_slow", "go_wrong"}));
  // The best is the fast child, which won side by side; every correct child has its decisions.
  ASSERT_TRUE(d.best());
  EXPECT_EQ(d.node(*d.best()).strategy_id, "go_fast");
  EXPECT_EQ(d.node(*d.best()).depth, 1);
  for (const auto& n : d.graph().nodes())
    if (n.depth > 0 && is_correct(n)) {
      EXPECT_FALSE(n.vs_parent.empty()) << n.id;
      EXPECT_FALSE(n.vs_best.empty()) << n.id;
      ASSERT_TRUE(n.vs_parent_ratio) << n.id;
    }
}

TEST_F(SearchAlgorithms, TheBeamStopsWhenNoChildIsGoodEnough) {
  const std::map<std::string, Effect> effects = {{"go_slow", {0.5}}, {"go_wrong", {1.0, false}}};
  FakeExpander x(*ledger_, "run", effects);
  auto d = driver(x, effects);
  ASSERT_TRUE(d.load());
  SearchOptions o;
  o.keep_factor = 1.2;
  o.depth = 3;
  run_beam(d, o);
  EXPECT_EQ(d.progress.stop_reason, "no correct child good enough to keep at depth 1");
  EXPECT_EQ(d.progress.beams, (std::vector<std::vector<std::int64_t>>{{}}));
}

TEST_F(SearchAlgorithms, TheBestChangesOnlyByASideBySideWin) {
  // Two children of the root, expanded one after the other: the first correct one is the best by
  // default; the second takes the title only if it wins side by side.
  const std::map<std::string, Effect> effects = {{"go_slow", {0.5}}, {"go_faster", {4.0}}};
  FakeExpander x(*ledger_, "run", effects);
  auto d = driver(x, effects);
  ASSERT_TRUE(d.load());
  SearchOptions o;
  o.beam_size = 1;
  o.branches = 2;
  o.depth = 1;
  o.keep_factor = 100;
  run_beam(d, o);
  ASSERT_EQ(x.keys.size(), 2u);
  ASSERT_TRUE(d.best());
  EXPECT_EQ(d.node(*d.best()).strategy_id, "go_faster");
  for (const auto& n : d.graph().nodes()) {
    if (n.depth == 0) continue;
    auto vs_best = nlohmann::json::parse(n.vs_best);
    if (n.expansion == x.keys[0]) {
      EXPECT_EQ(vs_best["method"], "first correct kernel");
    } else {
      EXPECT_EQ(vs_best["method"], "paired");
      EXPECT_EQ(vs_best["winner"], n.strategy_id == "go_faster" ? "challenger" : "incumbent")
          << n.vs_best;
    }
  }
  EXPECT_EQ(x.comparisons, 1) << "one side-by-side run against the best; the root's children need "
                                 "none against a kernelless root";
  // The run row holds the same best, for a resume.
  auto run = ledger_->run("run");
  ASSERT_TRUE(run && *run);
  EXPECT_EQ((*run)->best_node, d.best());
}

TEST_F(SearchAlgorithms, ABusyComparisonKeepsTheBest) {
  // The second child would win by its ratio, but the machine was busy: nothing is decided.
  const std::map<std::string, Effect> effects = {{"a_first", {1.5}}, {"b_busy", {3.0, true, true}}};
  FakeExpander x(*ledger_, "run", effects);
  auto d = driver(x, effects);
  ASSERT_TRUE(d.load());
  SearchOptions o;
  o.width = 2;
  run_parallel(d, o);
  ASSERT_EQ(x.keys.size(), 2u);
  ASSERT_TRUE(d.best());
  const std::string first = d.node(*d.best()).strategy_id;
  for (const auto& n : d.graph().nodes())
    if (n.depth == 1 && n.id != *d.best()) {
      auto vs_best = nlohmann::json::parse(n.vs_best);
      if (n.strategy_id == "b_busy") {
        EXPECT_EQ(vs_best["winner"], "undecided");
        EXPECT_TRUE(vs_best["busy"].get<bool>());
      }
    }
  // Whichever expansion came first is the best, and a busy ratio never crowned the other.
  EXPECT_EQ(d.node(*d.best()).expansion, "parallel/" + first);
  EXPECT_EQ(first, x.keys.front().substr(std::string("parallel/").size()));
}

TEST_F(SearchAlgorithms, ParallelTriesDistinctStrategiesFromTheRoot) {
  const std::map<std::string, Effect> effects = {
      {"s1", {1.1}}, {"s2", {1.2}}, {"s3", {1.3}}, {"s4", {1.4}}};
  FakeExpander x(*ledger_, "run", effects);
  auto d = driver(x, effects, 3, 3);
  ASSERT_TRUE(d.load());
  SearchOptions o;
  o.width = 3;
  run_parallel(d, o);
  std::set<std::string> keys(x.keys.begin(), x.keys.end());
  EXPECT_EQ(keys.size(), 3u);
  for (const auto& n : d.graph().nodes()) {
    if (n.depth == 1) {
      EXPECT_EQ(n.parent_id, root_);
    }
  }
  EXPECT_EQ(d.progress.expansions_run, 3);
}

TEST_F(SearchAlgorithms, EvolveWithAFixedSeedIsReproducible) {
  const std::map<std::string, Effect> effects = {
      {"go_fast", {2.0}}, {"go_slow", {0.5}}, {"go_wrong", {1.0, false}}, {"tile", {1.3}}};
  auto sequence = [&](std::unique_ptr<RunLedger>& ledger) {
    FakeExpander x(*ledger, "run", effects);
    SearchDriver d({"run", catalogue(effects), {}, 11, 1, nullptr}, x, *ledger);
    EXPECT_TRUE(d.load());
    SearchOptions o;
    o.generations = 3;
    o.population = 2;
    o.islands = 2;
    o.crossover = 0.3;
    run_evolve(d, o);
    std::vector<std::string> seq;
    for (const auto& n : d.graph().nodes())
      if (n.depth > 0)
        seq.push_back(n.expansion + " <- " + std::to_string(n.parent_id.value_or(0) - root_) +
                      " : " + n.strategy_id);
    return seq;
  };
  auto first = sequence(ledger_);
  // The same search on a fresh store.
  auto ledger = RunLedger::open(dir_.path() / "again");
  ASSERT_TRUE(ledger);
  ASSERT_TRUE(
      store::insert_session((*ledger)->db(), {"run", store::now_iso8601(), "kforge search", "/"}));
  ASSERT_TRUE((*ledger)->start_run({"run", "search", "12p_rmsnorm", "ci"}));
  store::NodeRecord root;
  root.run_id = "run";
  root.strategy = root.strategy_id = "root";
  root.state = store::NodeState::done;
  ASSERT_TRUE((*ledger)->add_node(root));
  auto second = sequence(*ledger);
  EXPECT_GE(first.size(), 8u);
  EXPECT_EQ(first, second);
}

TEST_F(SearchAlgorithms, AResumeReplaysFinishedExpansionsFromTheLedger) {
  FakeExpander killed(*ledger_, "run", kThree);
  killed.kill_after = 1;  // the second expansion is in flight when the process dies
  {
    auto d = driver(killed, kThree);
    ASSERT_TRUE(d.load());
    SearchOptions o;
    o.width = 3;
    run_parallel(d, o);
    EXPECT_TRUE(d.stopped());
    EXPECT_EQ(d.progress.state, store::RunState::interrupted);
  }
  ASSERT_EQ(killed.keys.size(), 2u);
  auto marked = ledger_->mark_interrupted("run");
  ASSERT_TRUE(marked);
  EXPECT_EQ(*marked, 1);

  FakeExpander resumed(*ledger_, "run", kThree);
  auto d = driver(resumed, kThree);
  ASSERT_TRUE(d.load());
  SearchOptions o;
  o.width = 3;
  run_parallel(d, o);
  EXPECT_EQ(d.progress.expansions_replayed, 1);
  EXPECT_EQ(d.progress.expansions_run, 2);
  // The finished expansion was not run again; the interrupted one was.
  EXPECT_EQ(std::count(resumed.keys.begin(), resumed.keys.end(), killed.keys[0]), 0);
  EXPECT_EQ(std::count(resumed.keys.begin(), resumed.keys.end(), killed.keys[1]), 1);
  // Every expansion has exactly one finished result in the store.
  auto nodes = ledger_->nodes("run");
  ASSERT_TRUE(nodes);
  std::map<std::string, int> results;
  for (const auto& n : *nodes)
    if (n.expansion_result) results[n.expansion]++;
  EXPECT_EQ(results.size(), 3u);
  for (const auto& [key, count] : results) EXPECT_EQ(count, 1) << key;
}

TEST_F(SearchAlgorithms, AResumeKeepsTheRecordedBest) {
  FakeExpander first(*ledger_, "run", kThree);
  {
    auto d = driver(first, kThree);
    ASSERT_TRUE(d.load());
    SearchOptions o;
    o.width = 3;
    run_parallel(d, o);
    ASSERT_TRUE(d.best());
  }
  auto run = ledger_->run("run");
  ASSERT_TRUE(run && *run && (*run)->best_node);
  FakeExpander again(*ledger_, "run", kThree);
  auto d = driver(again, kThree);
  ASSERT_TRUE(d.load());
  EXPECT_EQ(d.best(), (*run)->best_node);
  EXPECT_EQ(d.node(*d.best()).strategy_id, "go_fast");
}

// The graph's JSON (graph.json, `kforge search --json`) carries each node's decisions and the
// roofline's reason from the typed columns.
TEST_F(SearchAlgorithms, TheGraphJsonCarriesDecisionsAndTheRooflineReason) {
  FakeExpander x(*ledger_, "run", kThree);
  auto d = driver(x, kThree);
  ASSERT_TRUE(d.load());
  SearchOptions o;
  o.width = 3;
  run_parallel(d, o);
  SearchResult r;
  r.nodes = d.graph().nodes();
  r.best = d.best();
  for (auto& n : r.nodes)
    if (n.strategy_id == "go_fast") {
      n.roofline = 1.2;
      n.roofline_reason = "the working set stays in L2";
      n.timing_start = 5;
      n.timing_end = 6;
    }
  auto j = to_json(r);
  ASSERT_EQ(j["nodes"].size(), 4u);
  int checked = 0;
  for (const auto& n : j["nodes"]) {
    if (n["depth"] == 0) {
      EXPECT_EQ(n["strategy"], "root");
      continue;
    }
    EXPECT_EQ(n["expansion"], "parallel/" + n["strategy"].get<std::string>());
    if (n["strategy"] == "go_wrong") {
      EXPECT_TRUE(n["vs_parent"].is_null());
      EXPECT_TRUE(n["vs_best"].is_null());
      continue;
    }
    EXPECT_EQ(n["vs_parent"]["against"], "the baseline");
    EXPECT_TRUE(n["vs_best"].is_object());
    if (n["strategy"] == "go_fast") {
      EXPECT_EQ(n["roofline_reason"], "the working set stays in L2");
      EXPECT_EQ(n["timing_window"], (nlohmann::json{5.0, 6.0}));
      EXPECT_EQ(j["best"], n["id"]);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 2);
  EXPECT_EQ(j["state"], "finished");
}

// Each expansion is told where the search stands as it starts: the path to its parent, the
// parent's children that finished before it, the search's best, the deepest level and the
// expansions left; and its standing reads the parent's kept evaluation (the interval with it).
TEST_F(SearchAlgorithms, EachExpansionIsToldTheParentSiblingsBestAndBudget) {
  const std::map<std::string, Effect> effects = {{"a", {2.0}}, {"b", {1.5}}, {"c", {1.2}}};
  FakeExpander x(*ledger_, "run", effects);
  auto d = driver(x, effects);
  ASSERT_TRUE(d.load());
  SearchOptions o;
  o.beam_size = 1;
  o.branches = 2;
  o.depth = 2;
  o.keep_factor = 100;
  run_beam(d, o);
  ASSERT_EQ(x.keys.size(), 4u);
  std::vector<ExpansionContext> seen;
  for (const auto& k : x.keys) seen.push_back(x.contexts.at(k));
  // At most 2 + 1·2 expansions: each is told how many are left after it.
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].expansions_left, 3 - static_cast<int>(i)) << x.keys[i];
    EXPECT_EQ(seen[i].max_depth, 2);
  }
  // Depth 1: the second child of the root sees the first as its sibling, and as the best.
  EXPECT_TRUE(seen[0].siblings.empty());
  EXPECT_FALSE(seen[0].best);
  ASSERT_EQ(seen[1].siblings.size(), 1u);
  EXPECT_EQ(seen[1].siblings[0].expansion, x.keys[0]);
  ASSERT_TRUE(seen[1].best);
  EXPECT_EQ(seen[1].best->expansion, x.keys[0]);
  // Depth 2: the path is the root; the beam's node is the parent; the second sees the first.
  const auto beam_node = d.progress.beams.at(0).at(0);
  ASSERT_EQ(seen[2].path.size(), 1u);
  EXPECT_EQ(seen[2].path[0].id, root_);
  EXPECT_TRUE(seen[2].siblings.empty());
  ASSERT_EQ(seen[3].siblings.size(), 1u);
  EXPECT_EQ(seen[3].siblings[0].parent_id, beam_node);
  ASSERT_TRUE(seen[3].best);

  // The standing an expansion's agents read: the parent with its kept evaluation.
  eval::Evaluation kept;
  kept.verdict = eval::Verdict::correct;
  kept.candidate = eval::TimingStats{40, 5.0, 4.8, 5.2, 4.7};
  kept.speedup = eval::SpeedupStats{2.05, 1.9, 2.2, 1.80, 2.30};
  // Kept, and named, by the node's number within the run.
  const int beam_number = d.node(beam_node).number;
  ASSERT_GT(beam_number, 0);
  ASSERT_TRUE(
      core::write_atomic(dir_.path() / fmt::format("node-{}", beam_number) / "evaluation.json",
                         eval::to_json(kept).dump())
          .ok());
  Expansion grow{"beam/d2/x", beam_node, "c", std::nullopt, seen[3]};
  auto standing = search_standing(grow, d.node(beam_node), dir_.path());
  EXPECT_EQ(standing.parent.label, node_label(beam_number));
  EXPECT_TRUE(standing.parent.correct);
  ASSERT_TRUE(standing.parent.evaluation && standing.parent.evaluation->speedup);
  EXPECT_DOUBLE_EQ(standing.parent.evaluation->speedup->ci_low, 1.80);
  EXPECT_EQ(standing.parent_source, d.node(beam_node).source);
  EXPECT_EQ(standing.depth, 2);
  EXPECT_EQ(standing.expansions_left, 0);
  ASSERT_EQ(standing.siblings.size(), 1u);
  EXPECT_EQ(standing.siblings[0].strategy, d.node(seen[3].siblings[0].id).strategy_id);
  EXPECT_THAT(standing.siblings[0].vs_parent, ::testing::HasSubstr("side by side"));
  EXPECT_EQ(standing.best_is_parent, seen[3].best->id == beam_node);
}

// The beam ranked node 7 over node 6 by ratios from separate runs (2.05x vs 1.88x) though their
// intervals overlap: side by side they tie. Overlapping intervals are now a tie, broken by depth
// and then by the node made first; only a node whose interval lies clear above ranks above.
TEST_F(SearchAlgorithms, OverlappingIntervalsTieAndTheTieGoesToTheNodeMadeFirst) {
  const std::map<std::string, Effect> effects = {{"a_lower", {1.88, true, false, 0.1}},
                                                 {"b_higher", {2.05, true, false, 0.1}},
                                                 {"c_slow", {1.0, true, false, 0.02}}};
  FakeExpander x(*ledger_, "run", effects);
  auto d = driver(x, effects, 5);
  ASSERT_TRUE(d.load());
  SearchOptions o;
  o.beam_size = 2;
  o.branches = 3;
  o.depth = 1;
  o.keep_factor = 100;
  run_beam(d, o);
  ASSERT_EQ(x.keys.size(), 3u);
  std::map<std::string, std::int64_t> node_of;
  for (const auto& n : d.graph().nodes())
    if (n.depth == 1) node_of[n.strategy_id] = n.id;
  // The seed makes the lower median first: a ranking by medians would put b_higher first.
  ASSERT_LT(node_of["a_lower"], node_of["b_higher"]) << "seed 5 no longer expands a_lower first";
  ASSERT_EQ(d.progress.beams.size(), 1u);
  EXPECT_EQ(d.progress.beams[0],
            (std::vector<std::int64_t>{node_of["a_lower"], node_of["b_higher"]}));
  EXPECT_FALSE(clearly_above(d, node_of["b_higher"], node_of["a_lower"]));
  EXPECT_TRUE(clearly_above(d, node_of["a_lower"], node_of["c_slow"]));
  EXPECT_EQ(
      rank_nodes(d, {node_of["c_slow"], node_of["b_higher"], node_of["a_lower"]}),
      (std::vector<std::int64_t>{node_of["a_lower"], node_of["b_higher"], node_of["c_slow"]}));
}

}  // namespace
}  // namespace kforge::modes
