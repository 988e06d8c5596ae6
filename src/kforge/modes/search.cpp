// The search driver: replayable decisions, waves of expansions run by a pool of threads, each
// expansion an auto run recorded as nodes of the run.
#include "kforge/modes/search.h"

#include "kforge/eval/paired_decision.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace kforge::modes {
namespace {

class Driver {
 public:
  // Only the strategies for what the task computes are offered (no GEMM micro-kernels for a norm).
  Driver(const SearchEnv& env, const SearchOptions& o)
      : env_(env), o_(o), rng_(o.seed), offered_(strategies_for(env.strategies, env.ctx->spec().tags)) {}

  SearchResult result;

  Status load() {
    auto journal = RunJournal::open(env_.state_dir, env_.run_id);
    if (!journal) return journal.error();
    auto nodes = store::nodes_of_run(journal->db(), env_.run_id);
    if (!nodes) return nodes.error();
    nodes_.clear();
    done_.clear();
    for (auto& n : *nodes) {
      auto extra = nlohmann::json::parse(n.extra, nullptr, false);
      std::string key = extra.is_object() ? extra.value("expansion", "") : "";
      bool last_of_expansion = extra.is_object() && extra.value("expansion_result", false);
      if (n.state == "done" && !key.empty() && last_of_expansion) done_[key] = n.id;
      nodes_[n.id] = std::move(n);
    }
    for (const auto& [id, n] : nodes_)
      if (n.depth == 0 && n.strategy == "root") root_ = id;
    if (!root_) return Error{fmt::format("run {} has no root node", env_.run_id)};
    auto run = store::find_run(journal->db(), env_.run_id);
    // Resuming: the best as the search recorded it (during a run the driver's own is the truth).
    if (!best_ && run && *run && (*run)->best_node && nodes_.count(*(*run)->best_node)) {
      best_ = *(*run)->best_node;
      best_source_ = nodes_.at(*best_).source;
    }
    return ok_status();
  }

  std::int64_t root() const { return *root_; }
  const store::NodeRecord& node(std::int64_t id) const { return nodes_.at(id); }
  std::mt19937_64& rng() { return rng_; }
  bool stopped() const { return stopped_; }

  bool correct(std::int64_t id) const {
    const auto& n = node(id);
    return n.verdict && *n.verdict == "correct" && n.median_ms;
  }
  // A node's speedup over its parent, measured side by side in one run (see paired_decision.h);
  // absent for the root and for nodes that failed or were never compared.
  std::optional<double> ratio_to_parent(std::int64_t id) const {
    auto extra = nlohmann::json::parse(node(id).extra, nullptr, false);
    if (!extra.is_object() || !extra.contains("vs_parent")) return std::nullopt;
    const auto& r = extra["vs_parent"]["ratio"];
    if (!r.is_object() || !r["median"].is_number()) return std::nullopt;
    return r["median"].get<double>();
  }
  // How a node ranks: the product of the paired ratios along its path from the root (each factor
  // measured side by side with the node's parent), times the root's own paired speedup over the
  // baseline. No two absolute medians from different runs are ever compared. Invalid nodes: 0.
  double score_of(std::int64_t id) const {
    if (id == root()) {
      const auto& r = node(id);
      return r.speedup && *r.speedup > 0 ? *r.speedup : 1.0;
    }
    auto ratio = ratio_to_parent(id);
    if (!correct(id) || !ratio || !node(id).parent_id) return 0.0;
    return score_of(*node(id).parent_id) * *ratio;
  }
  std::optional<std::int64_t> best() const { return best_; }
  std::string strategy_id(std::int64_t id) const {
    auto extra = nlohmann::json::parse(node(id).extra, nullptr, false);
    return extra.is_object() ? extra.value("strategy_id", "") : "";
  }
  std::set<std::string> path_strategies(std::int64_t id) const {
    std::set<std::string> used;
    std::set<std::int64_t> seen;  // a damaged graph (a cycle) must not hang the search
    for (std::optional<std::int64_t> cur = id; cur && nodes_.count(*cur) && seen.insert(*cur).second; cur = node(*cur).parent_id)
      used.insert(strategy_id(*cur));
    return used;
  }
  std::vector<std::string> unused_strategies(std::int64_t id) const {
    auto used = path_strategies(id);
    std::vector<std::string> out;
    for (const auto& s : offered_)
      if (!used.count(s.id)) out.push_back(s.id);
    return out;
  }
  const Strategy* strategy(const std::string& id) const {
    for (const auto& s : env_.strategies)
      if (s.id == id) return &s;
    return nullptr;
  }

  // Runs the expansions not yet done; returns each expansion's resulting node (0 if none).
  std::vector<std::int64_t> run_wave(const std::vector<Expansion>& wave) {
    std::vector<std::int64_t> out(wave.size(), 0);
    std::vector<std::size_t> pending;
    for (std::size_t i = 0; i < wave.size(); ++i) {
      if (auto it = done_.find(wave[i].key); it != done_.end()) {
        out[i] = it->second;
        ++result.expansions_replayed;
      } else {
        pending.push_back(i);
      }
    }
    std::atomic<std::size_t> next{0};
    std::mutex mu;
    auto worker = [&] {
      for (std::size_t k; (k = next++) < pending.size();) {
        if (stopped_) return;
        std::size_t i = pending[k];
        auto node = expand(wave[i]);
        std::lock_guard lock(mu);
        out[i] = node;
        ++result.expansions_run;
      }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < std::max(1, std::min<int>(o_.jobs, static_cast<int>(pending.size()))); ++t) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
    (void)load();
    return out;
  }

  void set_baseline(double ms) { baseline_ms_ = ms; }
  void stop(const std::string& reason, const std::string& state) {
    std::lock_guard lock(stop_mu_);
    if (stopped_) return;
    stopped_ = true;
    result.stop_reason = reason;
    result.state = state;
  }

 private:
  std::int64_t expand(const Expansion& x) {
    if (auto b = env_.agents->llm->check_budget(); !b) {
      stop(b.error().message, b.error().kind == llm::ErrorKind::cancelled ? "interrupted" : "stopped");
      return 0;
    }
    auto journal = RunJournal::open(env_.state_dir, env_.run_id);
    if (!journal) {
      stop(journal.error().message, "failed");
      return 0;
    }
    const auto& parent = node(x.parent);
    AutoOptions ao = o_.expansion;
    ao.iterations = o_.iterations_per_expansion;
    ao.patience = o_.iterations_per_expansion;
    ao.start_source = parent.source;
    ao.parent_node = x.parent;
    ao.depth = parent.depth + 1;
    ao.baseline_ms = baseline_ms_;
    ao.node_extra = {{"expansion", x.key}, {"strategy_id", x.strategy}};
    if (x.strategy == "crossover" && x.partner) {
      const auto& other = node(*x.partner);
      ao.strategy = "Crossover: combine the ideas of the current kernel with those of a second kernel from another line of the search, "
                    "keeping what makes each fast. The second kernel:\n```cpp\n" + other.source + "```";
      ao.coder_instruction = "Combine the current kernel with this second kernel, taking the better idea of each:\n```cpp\n" + other.source + "```";
      ao.node_extra["partner"] = *x.partner;
    } else if (const Strategy* s = strategy(x.strategy)) {
      ao.strategy = s->text;
    }
    AutoEnv ae{env_.ctx, env_.machine, env_.agents, &*journal, env_.run_id, env_.eval,
               [&](std::string_view m) {
                 if (env_.say) env_.say(fmt::format("[{}] {}", x.key, m));
               }};
    if (env_.say) env_.say(fmt::format("[{}] expanding node {} with {}", x.key, x.parent, x.strategy));
    auto r = run_auto(ae, ao);
    if (r.state == "interrupted" || r.state == "stopped" || r.state == "failed") stop(r.stop_reason, r.state);
    std::int64_t node = r.best_node ? *r.best_node : (r.iterations.empty() ? 0 : r.iterations.back().node);
    nlohmann::json decisions = nlohmann::json::object();
    if (node && r.best && !stopped_) {
      decisions["vs_parent"] = compare_with_parent(x, r.best->source, r.best->evaluation);
      decisions["vs_best"] = contend_for_best(x, node, r.best->source);
    }
    if (node) mark_result(*journal, node, r.state == "finished" || !r.iterations.empty(), decisions);
    return node;
  }

  // The child against its parent, side by side. A root without a kernel is the baseline itself:
  // the child's own paired speedup over the baseline is that comparison.
  nlohmann::json compare_with_parent(const Expansion& x, const std::string& source, const eval::Evaluation& child) {
    const auto& parent = node(x.parent);
    if (parent.source.empty()) {
      eval::PairedDecision d;
      d.against = "the baseline";
      d.ratio = child.speedup;
      d.busy = child.machine_busy;
      d.winner = child.speedup ? eval::read_interval(*child.speedup) : eval::Winner::undecided;
      return d.to_json();
    }
    if (env_.say) env_.say(fmt::format("[{}] timing the child against its parent (node {}) side by side", x.key, x.parent));
    return eval::decide_paired(*env_.ctx, source, parent.source, fmt::format("node {}", x.parent), paired_options()).to_json();
  }

  // The search's best changes only when a child beats it side by side (one contender at a time, so
  // two children finishing together cannot both be compared with a best that is about to change).
  nlohmann::json contend_for_best(const Expansion& x, std::int64_t child, const std::string& source) {
    std::lock_guard lock(best_mu_);
    if (!best_) {
      best_ = child;
      best_source_ = source;  // the node map is reloaded only after the wave
      record_best(child);
      return nlohmann::json{{"method", "first correct kernel"}, {"winner", "challenger"}};
    }
    if (env_.say) env_.say(fmt::format("[{}] timing the child against the search's best (node {}) side by side", x.key, *best_));
    auto d = eval::decide_paired(*env_.ctx, source, best_source_, fmt::format("node {}", *best_), paired_options());
    if (d.challenger_won()) {
      best_ = child;
      best_source_ = source;
      record_best(child);
      if (env_.say) env_.say(fmt::format("[{}] new best of the search: {}", x.key, d.describe()));
    }
    return d.to_json();
  }

  eval::EvalOptions paired_options() const {
    eval::EvalOptions eo = env_.eval;
    eo.time_budget_s = o_.expansion.time_budget_s;
    return eo;
  }

  void record_best(std::int64_t id) {
    auto journal = RunJournal::open(env_.state_dir, env_.run_id);
    if (!journal) return;
    auto run = store::find_run(journal->db(), env_.run_id);
    if (!run || !*run) return;
    (*run)->best_node = id;
    // A failed write loses only the resumed search's memory of its best; it is rewritten at the end.
    (void)store::update_run(journal->db(), **run);
  }

  // Flags the node that stands for the whole expansion (replays look for it), with how it compared.
  void mark_result(RunJournal& journal, std::int64_t id, bool finished, const nlohmann::json& decisions) {
    auto nodes = store::nodes_of_run(journal.db(), env_.run_id);
    if (!nodes) return;
    for (auto& n : *nodes)
      if (n.id == id) {
        auto extra = nlohmann::json::parse(n.extra, nullptr, false);
        if (!extra.is_object()) extra = nlohmann::json::object();
        extra["expansion_result"] = finished && n.state == "done";
        extra.update(decisions);
        n.extra = extra.dump();
        (void)store::update_node(journal.db(), n);
      }
  }

  const SearchEnv& env_;
  const SearchOptions& o_;
  std::mt19937_64 rng_;
  std::vector<Strategy> offered_;  // the catalogue's strategies that fit the task
  std::map<std::int64_t, store::NodeRecord> nodes_;
  std::map<std::string, std::int64_t> done_;
  std::optional<std::int64_t> root_;
  std::mutex best_mu_;
  std::optional<std::int64_t> best_;  // the search's best: changed only by a side-by-side win
  // Its kernel, kept beside the id: a best found in this wave is not among nodes_ until the wave
  // ends and load() runs again.
  std::string best_source_;
  double baseline_ms_ = 0;
  std::mutex stop_mu_;
  std::atomic<bool> stopped_{false};
};

// Picks `n` distinct items in a seeded order.
std::vector<std::string> sample(std::vector<std::string> items, std::size_t n, std::mt19937_64& rng) {
  std::shuffle(items.begin(), items.end(), rng);
  if (items.size() > n) items.resize(n);
  return items;
}

void run_parallel(Driver& d, const SearchOptions& o) {
  std::vector<Expansion> wave;
  for (const auto& sid : sample(d.unused_strategies(d.root()), static_cast<std::size_t>(o.width), d.rng()))
    wave.push_back({"parallel/" + sid, d.root(), sid, std::nullopt});
  d.run_wave(wave);
}

void run_beam(Driver& d, const SearchOptions& o) {
  std::vector<std::int64_t> beam = {d.root()};
  for (int depth = 1; depth <= o.depth && !d.stopped(); ++depth) {
    std::vector<Expansion> wave;
    for (auto b : beam)
      for (const auto& sid : sample(d.unused_strategies(b), static_cast<std::size_t>(o.branches), d.rng()))
        wave.push_back({fmt::format("beam/d{}/n{}/{}", depth, b, sid), b, sid, std::nullopt});
    auto children = d.run_wave(wave);
    std::vector<std::int64_t> admitted;
    for (std::size_t i = 0; i < children.size(); ++i) {
      auto c = children[i];
      // Only valid nodes enter the beam, and only if not much slower than their parent, side by side.
      auto ratio = c ? d.ratio_to_parent(c) : std::nullopt;
      if (c && d.correct(c) && ratio && *ratio * o.keep_factor >= 1.0) admitted.push_back(c);
    }
    std::stable_sort(admitted.begin(), admitted.end(), [&](auto a, auto b) { return d.score_of(a) > d.score_of(b); });
    if (admitted.size() > static_cast<std::size_t>(o.beam_size)) admitted.resize(static_cast<std::size_t>(o.beam_size));
    d.result.beams.push_back(admitted);
    if (admitted.empty()) {
      if (!d.stopped()) d.stop(fmt::format("no correct child good enough to keep at depth {}", depth), "finished");
      return;
    }
    beam = admitted;
  }
}

void run_evolve(Driver& d, const SearchOptions& o) {
  const int islands = std::max(1, o.islands);
  std::vector<std::vector<std::int64_t>> members(static_cast<std::size_t>(islands), {d.root()});
  std::map<std::string, std::int64_t> archive;  // cell → elite
  auto best_of = [&](const std::vector<std::int64_t>& ids) {
    std::int64_t best = d.root();
    for (auto id : ids)
      if (d.correct(id) && d.score_of(id) > d.score_of(best)) best = id;
    return best;
  };
  auto random_elite = [&]() -> std::int64_t {
    if (archive.empty()) return d.root();
    auto it = archive.begin();
    std::advance(it, static_cast<long>(std::uniform_int_distribution<std::size_t>(0, archive.size() - 1)(d.rng())));
    return it->second;
  };
  auto cell_of = [&](std::int64_t id, const std::string& sid) {
    std::string family = sid == "crossover" ? "crossover" : (d.strategy(sid) ? d.strategy(sid)->family : "other");
    return family + "×" + code_feature(d.node(id).source);
  };
  std::uniform_real_distribution<double> unit(0, 1);
  for (int g = 1; g <= o.generations && !d.stopped(); ++g) {
    std::vector<Expansion> wave;
    std::vector<int> island_of;
    for (int i = 0; i < islands; ++i)
      for (int p = 0; p < o.population; ++p) {
        double r = unit(d.rng());
        std::int64_t best = best_of(members[static_cast<std::size_t>(i)]);
        if (r < o.crossover && archive.size() >= 2) {
          std::int64_t other = random_elite();
          if (other != best) {
            wave.push_back({fmt::format("evolve/g{}/i{}/{}/x{}", g, i, p, other), best, "crossover", other});
            island_of.push_back(i);
            continue;
          }
        }
        std::int64_t parent = r < o.crossover + o.exploit ? best : random_elite();
        auto options = d.unused_strategies(parent);
        if (options.empty()) continue;
        std::string sid = options[std::uniform_int_distribution<std::size_t>(0, options.size() - 1)(d.rng())];
        wave.push_back({fmt::format("evolve/g{}/i{}/{}", g, i, p), parent, sid, std::nullopt});
        island_of.push_back(i);
      }
    auto children = d.run_wave(wave);
    for (std::size_t k = 0; k < children.size(); ++k) {
      auto c = children[k];
      if (!c || !d.correct(c)) continue;
      members[static_cast<std::size_t>(island_of[k])].push_back(c);
      std::string cell = cell_of(c, wave[k].strategy);
      if (!archive.count(cell) || d.score_of(c) > d.score_of(archive[cell])) archive[cell] = c;
    }
    if (o.migrate_every > 0 && g % o.migrate_every == 0 && islands > 1) {
      std::vector<std::int64_t> emigrants;
      for (const auto& m : members) emigrants.push_back(best_of(m));
      for (int i = 0; i < islands; ++i) members[static_cast<std::size_t>((i + 1) % islands)].push_back(emigrants[static_cast<std::size_t>(i)]);
    }
  }
}

}  // namespace

std::string code_feature(const std::string& source) {
  std::string f = source.find("_mm256_") != std::string::npos || source.find("_mm512_") != std::string::npos ? "intrinsics"
                : source.find("omp simd") != std::string::npos                                                ? "compiler-simd"
                                                                                                                : "scalar";
  if (source.find("omp parallel") != std::string::npos) f += "+omp";
  return f;
}

SearchResult run_search(const SearchEnv& env, const SearchOptions& o) {
  auto start = std::chrono::steady_clock::now();
  Driver d(env, o);
  if (auto st = d.load(); !st) {
    d.result.state = "failed";
    d.result.stop_reason = st.error().message;
    return d.result;
  }
  d.set_baseline(o.expansion.baseline_ms);
  if (o.algorithm == "parallel") run_parallel(d, o);
  else if (o.algorithm == "beam") run_beam(d, o);
  else if (o.algorithm == "evolve") run_evolve(d, o);
  else d.stop("unknown algorithm " + o.algorithm, "failed");
  (void)d.load();

  SearchResult r = d.result;
  auto journal = RunJournal::open(env.state_dir, env.run_id);
  if (journal)
    if (auto nodes = store::nodes_of_run(journal->db(), env.run_id)) r.nodes = *nodes;
  // The best is the correct kernel that won every side-by-side comparison for the title: never
  // the root, never an invalid node, never the one with the lowest median from some other run.
  r.best = d.best();
  if (r.stop_reason.empty()) r.stop_reason = "the algorithm finished its schedule";
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (env.eval.machine_lock) r.lock_wait_s = env.eval.machine_lock->waited_seconds();
  return r;
}


nlohmann::json SearchOptions::to_json() const {
  return {{"algorithm", algorithm},     {"jobs", jobs},       {"seed", seed},
          {"width", width},             {"beam_size", beam_size}, {"branches", branches},
          {"depth", depth},             {"keep_factor", keep_factor}, {"generations", generations},
          {"population", population},   {"islands", islands}, {"migrate_every", migrate_every},
          {"exploit", exploit},         {"crossover", crossover}, {"iterations_per_expansion", iterations_per_expansion},
          {"debug_attempts", expansion.debug_attempts},      {"tune_budget", expansion.tune.budget},
          {"time_budget_s", expansion.time_budget_s},         {"profile_seconds", expansion.profile_seconds},
          {"model", model},                                   {"strategies_file", strategies_file}};
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
    o.expansion.time_budget_s = j.at("time_budget_s");
    o.expansion.profile_seconds = j.at("profile_seconds");
    o.model = j.value("model", "");
    o.strategies_file = j.value("strategies_file", "");
    return o;
  } catch (const std::exception& e) {
    return Error{fmt::format("the run's stored search options are unreadable: {}", e.what())};
  }
}

nlohmann::json to_json(const SearchResult& r) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& n : r.nodes) {
    auto extra = nlohmann::json::parse(n.extra, nullptr, false);
    nodes.push_back({{"id", n.id},
                     {"parent", n.parent_id ? nlohmann::json(*n.parent_id) : nlohmann::json(nullptr)},
                     {"depth", n.depth},
                     {"strategy", extra.is_object() ? extra.value("strategy_id", n.strategy) : n.strategy},
                     {"expansion", extra.is_object() ? extra.value("expansion", "") : ""},
                     {"state", n.state},
                     {"verdict", n.verdict ? nlohmann::json(*n.verdict) : nlohmann::json(nullptr)},
                     {"median_ms", n.median_ms ? nlohmann::json(*n.median_ms) : nlohmann::json(nullptr)},
                     {"speedup", n.speedup ? nlohmann::json(*n.speedup) : nlohmann::json(nullptr)},
                     {"roofline", n.roofline ? nlohmann::json(*n.roofline) : nlohmann::json(nullptr)},
                     {"source_hash", n.source_hash},
                     {"cost_usd", n.cost_usd},
                     {"timing_window", extra.is_object() && extra.contains("timing_window") ? extra["timing_window"] : nlohmann::json(nullptr)},
                     // How the node was ranked: side by side with its parent and with the search's best.
                     {"vs_parent", extra.is_object() && extra.contains("vs_parent") ? extra["vs_parent"] : nlohmann::json(nullptr)},
                     {"vs_best", extra.is_object() && extra.contains("vs_best") ? extra["vs_best"] : nlohmann::json(nullptr)}});
  }
  return {{"state", r.state},
          {"stop_reason", r.stop_reason},
          {"best", r.best ? nlohmann::json(*r.best) : nlohmann::json(nullptr)},
          {"expansions_run", r.expansions_run},
          {"expansions_replayed", r.expansions_replayed},
          {"wall_s", r.wall_s},
          {"lock_wait_s", r.lock_wait_s},
          {"beams", r.beams},
          {"nodes", nodes}};
}

}  // namespace kforge::modes
