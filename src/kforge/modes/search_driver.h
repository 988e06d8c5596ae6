#pragma once
// What every search algorithm stands on: the graph in memory, one seeded generator, waves of
// expansions run by a pool of threads through an Expander, and the search's best, which changes
// only when a child beats it side by side. The store is read once, to resume: an expansion that
// finished before (its key on a node flagged expansion_result) is replayed, not run again, and
// since every decision depends only on the seed and on finished expansions the replay reaches the
// same graph.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "kforge/modes/expander.h"
#include "kforge/modes/run_ledger.h"
#include "kforge/modes/search_graph.h"
#include "kforge/modes/strategy_catalogue.h"

namespace kforge::modes {

// How a search under interpret-mode timing (pallas on a CPU backend) decides: on correctness
// only, never on those times; its first correct kernel is the best and ends the search. Said in the
// summary, report and --json.
inline constexpr const char* kDecidedByCorrectness =
    "correctness (interpret mode: times are not performance)";

// How the search ended and what it did (search.h turns it into the report).
struct SearchProgress {
  std::string stop_reason;
  store::RunState state = store::RunState::finished;
  int expansions_run = 0, expansions_replayed = 0;
  std::vector<std::vector<std::int64_t>> beams;  // beam: the beam after each depth
  bool decided_on_correctness = false;           // the best was chosen by kDecidedByCorrectness
};

struct DriverSetup {
  std::string run_id;
  std::vector<Strategy> strategies;    // the catalogue (crossover and families look up here)
  std::vector<std::string> task_tags;  // only the strategies for what the task computes are offered
  unsigned seed = 1;
  int jobs = 1;  // expansions in flight at once
  std::function<void(std::string_view)> say;
};

class SearchDriver {
 public:
  SearchDriver(DriverSetup setup, Expander& expander, RunLedger& ledger);

  // Reads the run's nodes and recorded best from the ledger (a new run has only its root).
  Status load();

  SearchProgress progress;

  std::int64_t root() const { return *graph_.root(); }
  const store::NodeRecord& node(std::int64_t id) const { return graph_.node(id); }
  const SearchGraph& graph() const { return graph_; }
  std::mt19937_64& rng() { return rng_; }
  bool stopped() const { return stopped_; }
  bool correct(std::int64_t id) const { return graph_.correct(id); }
  std::optional<double> ratio_to_parent(std::int64_t id) const {
    return graph_.ratio_to_parent(id);
  }
  double score_of(std::int64_t id) const { return graph_.score_of(id); }
  std::optional<std::int64_t> best() const { return best_; }
  // A node's number within the run: how progress lines and expansion keys name it.
  int number_of(std::int64_t id) const;
  // Strategies offered for the task and not yet used on the path to `id`, in catalogue order.
  std::vector<std::string> unused_strategies(std::int64_t id) const;
  const Strategy* strategy(const std::string& id) const;

  // What the algorithm plans, at most: expansions in all and the deepest level (0: none), told to
  // each expansion's agents as the budget left.
  void plan(int expansions, int max_depth) {
    planned_ = expansions;
    max_depth_ = max_depth;
  }

  // Runs the wave's expansions not yet done; returns each one's resulting node (0 if none).
  std::vector<std::int64_t> run_wave(const std::vector<Expansion>& wave);
  void stop(const std::string& reason, store::RunState state);

 private:
  std::int64_t expand(const Expansion& x);
  eval::PairedDecision compare_with_parent(const Expansion& x, const store::NodeRecord& parent,
                                           const ExpansionResult& r);
  nlohmann::json contend_for_best(const Expansion& x, std::int64_t child,
                                  const std::string& source);
  nlohmann::json take_first_correct(const Expansion& x, std::int64_t child,
                                    const std::string& source);
  void mark_result(std::int64_t id, bool finished,
                   const std::optional<eval::PairedDecision>& vs_parent,
                   const nlohmann::json& vs_best);
  void say(const std::string& m) const;

  DriverSetup setup_;
  Expander& expander_;
  RunLedger& ledger_;
  std::mt19937_64 rng_;
  std::vector<Strategy> offered_;
  mutable std::mutex
      graph_mu_;  // expansions add nodes from their threads; algorithms read between waves
  SearchGraph graph_;
  std::map<std::string, std::int64_t> done_;  // expansion key → its result node
  std::mutex best_mu_;
  std::optional<std::int64_t> best_;
  std::string best_source_;
  std::mutex stop_mu_;
  std::atomic<bool> stopped_{false};
  int planned_ = 0, max_depth_ = 0;
  std::atomic<int> started_{0};
};

}  // namespace kforge::modes
