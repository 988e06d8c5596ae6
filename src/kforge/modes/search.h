#pragma once
// `kforge search`: a graph of candidate kernels. Each node is a kernel; each edge the strategy
// that turned the parent into the child; each expansion is an auto run (usually one iteration)
// started from the parent's kernel with that strategy (auto_expander.h). The algorithms
// (search_algorithms.h) rank nodes by paired measurements only, and the search's best changes
// only when a child beats it side by side (search_driver.h). Every random choice comes from one
// seeded generator, and every decision depends only on the seed and on finished expansions, which
// are in the store: resuming replays the decisions and runs only the expansions that had not
// finished.

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/modes/auto_loop.h"
#include "kforge/modes/expander.h"
#include "kforge/modes/search_driver.h"
#include "kforge/modes/strategy_catalogue.h"
#include "kforge/store/runs.h"

namespace kforge::modes {

struct SearchOptions {
  std::string algorithm = "beam";  // parallel | beam | evolve
  int jobs =
      1;  // expansions in flight at once (model calls and compiles overlap; timing never does)
  unsigned seed = 1;
  int width = 4;  // parallel: expansions from the root
  int beam_size = 2, branches = 3, depth = 2;
  double keep_factor = 1.2;  // beam: a child must reach ≥ 1/keep_factor of its parent's speed, side
                             // by side (the baseline's for the root)
  int generations = 3, population = 2, islands = 2,
      migrate_every = 2;  // evolve (population per island per generation)
  double exploit = 0.6, crossover = 0.2;
  int iterations_per_expansion = 1;
  AutoOptions expansion;        // debug attempts, tuning, timing budget, … for each expansion
  std::string start_source;     // the root's kernel ("" = start from scratch)
  std::string model;            // --model, kept so --resume talks to the same model
  std::string strategies_file;  // --strategies, kept for --resume
  // --target and --dtype, kept for --resume (a resume cannot change them): "" is the cpp target.
  std::string target;
  std::string dtype = "f32";

  nlohmann::json to_json() const;
  static Result<SearchOptions> from_json(const nlohmann::json& j);
};

struct SearchEnv {
  const eval::TaskContext* ctx = nullptr;
  const eval::MachineProfile* machine = nullptr;
  agents::AgentEnv* agents = nullptr;
  std::filesystem::path state_dir;
  std::string run_id;
  eval::EvalOptions eval;  // threads, machine, machine_lock
  std::vector<Strategy> strategies;
  std::function<void(std::string_view)> say;
  // The target the kernels are written for, bound (default: cpp on the task's compiler).
  target::BoundTarget target;
};

struct SearchResult {
  std::vector<store::NodeRecord> nodes;
  std::optional<std::int64_t> best;  // the correct node that won its side-by-side comparisons;
                                     // never the root, never an invalid node
  std::string stop_reason;
  store::RunState state = store::RunState::finished;
  int expansions_run = 0, expansions_replayed = 0;
  double wall_s = 0, lock_wait_s = 0;
  std::vector<std::vector<std::int64_t>> beams;  // beam: the beam after each depth
  // How the best was chosen: "side by side" (paired timings), or kDecidedByCorrectness.
  std::string decided_by = "side by side";
};

// Runs (or resumes: the run row and the root node exist) the search.
SearchResult run_search(const SearchEnv& env, const SearchOptions& options);

// Code features for the MAP-Elites cells: "intrinsics", "compiler-simd" or "scalar", with "+omp"
// when it uses OpenMP threads.
std::string code_feature(const std::string& source);

nlohmann::json to_json(const SearchResult& r);

}  // namespace kforge::modes
