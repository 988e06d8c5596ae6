// A search from start to end: the expander and the driver set up, the algorithm run, the result
// (and its JSON) gathered; the options kept for --resume.
#include "kforge/modes/search.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>

#include "kforge/modes/auto_expander.h"
#include "kforge/modes/search_algorithms.h"
#include "kforge/modes/task_features.h"

namespace kforge::modes {
namespace {

void run_algorithm(SearchDriver& d, const SearchOptions& o) {
  if (o.algorithm == "parallel")
    run_parallel(d, o);
  else if (o.algorithm == "beam")
    run_beam(d, o);
  else if (o.algorithm == "evolve")
    run_evolve(d, o);
  else
    d.stop("unknown algorithm " + o.algorithm, store::RunState::failed);
}

nlohmann::json parsed_or_null(const std::string& json) {
  if (json.empty()) return nullptr;
  auto j = nlohmann::json::parse(json, nullptr, false);
  return j.is_discarded() ? nlohmann::json(nullptr) : j;
}

}  // namespace

std::string code_feature(const std::string& source) {
  std::string f =
      source.find("_mm256_") != std::string::npos || source.find("_mm512_") != std::string::npos
          ? "intrinsics"
      : source.find("omp simd") != std::string::npos ? "compiler-simd"
                                                     : "scalar";
  if (source.find("omp parallel") != std::string::npos) f += "+omp";
  return f;
}

SearchResult run_search(const SearchEnv& env, const SearchOptions& o) {
  auto start = std::chrono::steady_clock::now();
  SearchResult r;
  auto journal = RunJournal::open(env.state_dir, env.run_id);
  if (!journal) {
    r.state = store::RunState::failed;
    r.stop_reason = journal.error().message;
    return r;
  }
  AutoOptions expansion = o.expansion;
  expansion.iterations = o.iterations_per_expansion;
  expansion.patience = o.iterations_per_expansion;
  AutoExpander expander({AutoEnv{env.ctx, env.machine, env.agents, &*journal, env.run_id, env.eval,
                                 env.say, env.target},
                         expansion, env.strategies});
  const auto features = task_features(env.ctx->spec());
  // Said once, so that a strategy a user expected and never sees tried has its reason.
  if (const auto left_out = strategies_left_out(env.strategies, features);
      env.say && !left_out.empty())
    env.say(fmt::format("strategies left out: {}", fmt::join(left_out, "; ")));
  SearchDriver d({env.run_id, env.strategies, features, o.seed, o.jobs, env.say}, expander,
                 journal->ledger());
  if (auto st = d.load(); !st) {
    r.state = store::RunState::failed;
    r.stop_reason = st.error().message;
    return r;
  }
  run_algorithm(d, o);

  r.stop_reason = d.progress.stop_reason;
  r.state = d.progress.state;
  r.expansions_run = d.progress.expansions_run;
  r.expansions_replayed = d.progress.expansions_replayed;
  r.beams = d.progress.beams;
  r.nodes = d.graph().nodes();
  // The best is the correct kernel that won every side-by-side comparison for the title: never
  // the root, never an invalid node, never the one with the lowest median from some other run.
  r.best = d.best();
  if (d.progress.decided_on_correctness) r.decided_by = kDecidedByCorrectness;
  if (r.stop_reason.empty()) r.stop_reason = "the algorithm finished its schedule";
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (env.eval.machine_lock) r.lock_wait_s = env.eval.machine_lock->waited_seconds();
  return r;
}

nlohmann::json SearchOptions::to_json() const {
  return {{"algorithm", algorithm},
          {"jobs", jobs},
          {"seed", seed},
          {"width", width},
          {"beam_size", beam_size},
          {"branches", branches},
          {"depth", depth},
          {"keep_factor", keep_factor},
          {"generations", generations},
          {"population", population},
          {"islands", islands},
          {"migrate_every", migrate_every},
          {"exploit", exploit},
          {"crossover", crossover},
          {"iterations_per_expansion", iterations_per_expansion},
          {"debug_attempts", expansion.debug_attempts},
          {"tune_budget", expansion.tune.budget},
          {"tune_rounds", expansion.tune.rounds},
          {"time_budget_s", expansion.time_budget_s},
          {"profile_seconds", expansion.profile_seconds},
          {"model", model},
          {"strategies_file", strategies_file},
          {"target", target},
          {"dtype", dtype}};
}

Result<SearchOptions> SearchOptions::from_json(const nlohmann::json& j) {
  try {
    SearchOptions o;
    o.algorithm = j.at("algorithm");
    o.jobs = j.at("jobs");
    o.seed = j.at("seed");
    o.width = j.at("width");
    o.beam_size = j.at("beam_size");
    o.branches = j.at("branches");
    o.depth = j.at("depth");
    o.keep_factor = j.at("keep_factor");
    o.generations = j.at("generations");
    o.population = j.at("population");
    o.islands = j.at("islands");
    o.migrate_every = j.at("migrate_every");
    o.exploit = j.at("exploit");
    o.crossover = j.at("crossover");
    o.iterations_per_expansion = j.at("iterations_per_expansion");
    o.expansion.debug_attempts = j.at("debug_attempts");
    o.expansion.tune.budget = j.at("tune_budget");
    o.expansion.tune.rounds = j.value("tune_rounds", o.expansion.tune.rounds);
    o.expansion.time_budget_s = j.at("time_budget_s");
    o.expansion.profile_seconds = j.at("profile_seconds");
    o.model = j.value("model", "");
    o.strategies_file = j.value("strategies_file", "");
    o.target = j.value("target", "");
    o.dtype = j.value("dtype", "f32");
    return o;
  } catch (const std::exception& e) {
    return Error{fmt::format("the run's stored search options are unreadable: {}", e.what())};
  }
}

nlohmann::json to_json(const SearchResult& r) {
  nlohmann::json nodes = nlohmann::json::array();
  auto number = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  // Nodes, parents, the best and the beams by their numbers within the run, as `kforge export`
  // takes them; the store's id is "global_id".
  const store::NodeNumbers numbers(r.nodes);
  auto numbered = [&](std::optional<std::int64_t> id) {
    auto n = numbers.of(id);
    return n ? nlohmann::json(*n) : nlohmann::json(nullptr);
  };
  for (const auto& n : r.nodes) {
    nodes.push_back(
        {{"id", n.number},
         {"global_id", n.id},
         {"parent", numbered(n.parent_id)},
         {"depth", n.depth},
         {"strategy", n.strategy_id.empty() ? n.strategy : n.strategy_id},
         {"expansion", n.expansion},
         {"state", store::node_state_name(n.state)},
         {"verdict", n.verdict ? nlohmann::json(*n.verdict) : nlohmann::json(nullptr)},
         {"median_ms", number(n.median_ms)},
         {"speedup", number(n.speedup)},
         {"roofline", number(n.roofline)},
         {"roofline_reason", n.roofline_reason},
         {"source_hash", n.source_hash},
         {"cost_usd", n.cost_usd},
         {"timing_window", n.timing_start && n.timing_end
                               ? nlohmann::json{*n.timing_start, *n.timing_end}
                               : nlohmann::json(nullptr)},
         // How the node was ranked: side by side with its parent and with the search's best.
         {"vs_parent", parsed_or_null(n.vs_parent)},
         {"vs_best", parsed_or_null(n.vs_best)}});
  }
  nlohmann::json beams = nlohmann::json::array();
  for (const auto& beam : r.beams) {
    beams.push_back(nlohmann::json::array());
    for (auto id : beam) beams.back().push_back(numbered(id));
  }
  return {{"state", store::run_state_name(r.state)},
          {"stop_reason", r.stop_reason},
          {"best", numbered(r.best)},
          {"decided_by", r.decided_by},
          {"ranked_by", kRankingRule},  // how beam and evolve ranked nodes (search_algorithms.h)
          {"expansions_run", r.expansions_run},
          {"expansions_replayed", r.expansions_replayed},
          {"wall_s", r.wall_s},
          {"lock_wait_s", r.lock_wait_s},
          {"beams", beams},
          {"nodes", nodes}};
}

}  // namespace kforge::modes
