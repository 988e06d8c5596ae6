// The search driver: the graph in memory, waves of expansions on a pool of threads, replay of
// finished expansions, and the best decided side by side.
#include "kforge/modes/search_driver.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "kforge/modes/expansion_context.h"

namespace kforge::modes {
namespace {

std::string final_reason(int best) {
  return fmt::format("the first correct kernel (node {}) is final: decided by {}", best,
                     kDecidedByCorrectness);
}

}  // namespace

SearchDriver::SearchDriver(DriverSetup setup, Expander& expander, RunLedger& ledger)
    : setup_(std::move(setup)),
      expander_(expander),
      ledger_(ledger),
      rng_(setup_.seed),
      offered_(strategies_for(setup_.strategies, setup_.task_tags)) {}

Status SearchDriver::load() {
  auto nodes = ledger_.nodes(setup_.run_id);
  if (!nodes) return nodes.error();
  for (auto& n : *nodes) {
    if (n.state == store::NodeState::done && !n.expansion.empty() && n.expansion_result)
      done_[n.expansion] = n.id;
    graph_.put(std::move(n));
  }
  if (!graph_.root()) return Error{fmt::format("run {} has no root node", setup_.run_id)};
  // Resuming: the best as the search recorded it.
  auto run = ledger_.run(setup_.run_id);
  if (!run) return run.error();
  if (*run && (*run)->best_node && graph_.contains(*(*run)->best_node)) {
    best_ = *(*run)->best_node;
    best_source_ = graph_.node(*best_).source;
    // A best chosen on correctness is final: the resumed search has nothing left to do.
    auto vs_best = nlohmann::json::parse(graph_.node(*best_).vs_best, nullptr, false);
    if (vs_best.is_object() && vs_best.contains("decided_by")) {
      progress.decided_on_correctness = true;
      stop(final_reason(graph_.node(*best_).number), store::RunState::finished);
    }
  }
  return ok_status();
}

std::vector<std::string> SearchDriver::unused_strategies(std::int64_t id) const {
  auto used = graph_.path_strategies(id);
  std::vector<std::string> out;
  for (const auto& s : offered_)
    if (!used.count(s.id)) out.push_back(s.id);
  return out;
}

const Strategy* SearchDriver::strategy(const std::string& id) const {
  for (const auto& s : setup_.strategies)
    if (s.id == id) return &s;
  return nullptr;
}

std::vector<std::int64_t> SearchDriver::run_wave(const std::vector<Expansion>& wave) {
  std::vector<std::int64_t> out(wave.size(), 0);
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < wave.size(); ++i) {
    if (auto it = done_.find(wave[i].key); it != done_.end()) {
      out[i] = it->second;
      ++progress.expansions_replayed;
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
      ++progress.expansions_run;
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(1, std::min<int>(setup_.jobs, static_cast<int>(pending.size())));
       ++t)
    threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  return out;
}

void SearchDriver::stop(const std::string& reason, store::RunState state) {
  std::lock_guard lock(stop_mu_);
  if (stopped_) return;
  stopped_ = true;
  progress.stop_reason = reason;
  progress.state = state;
}

std::int64_t SearchDriver::expand(const Expansion& x) {
  store::NodeRecord parent, partner;
  // What the expansion's agents are told of the search (expansion_context.h).
  Expansion full = x;
  std::optional<std::int64_t> best_now;
  {
    std::lock_guard lock(best_mu_);
    best_now = best_;
  }
  {
    std::lock_guard lock(graph_mu_);
    parent = graph_.node(x.parent);
    if (x.partner) partner = graph_.node(*x.partner);
    full.context = expansion_context(graph_, x.parent, best_now);
  }
  full.context.max_depth = max_depth_;
  const int started = ++started_ + progress.expansions_replayed;
  full.context.expansions_left = planned_ > 0 ? std::max(0, planned_ - started) : -1;
  say(fmt::format("[{}] expanding node {} with {}", x.key, parent.number, x.strategy));
  auto r = expander_.expand(full, parent, x.partner ? &partner : nullptr);
  if (r.state != store::RunState::finished) stop(r.stop_reason, r.state);
  // Every node as the user is shown it: an expander that did not number one has the store say.
  for (auto& n : r.nodes)
    if (!n.number)
      if (auto number = ledger_.number_of(setup_.run_id, n.id)) n.number = *number;
  {
    std::lock_guard lock(graph_mu_);
    for (auto& n : r.nodes) graph_.put(n);
    if (r.node && !graph_.contains(*r.node))
      r.node.reset();  // its row was never written: nothing to build on
  }
  if (!r.node) return 0;
  std::optional<eval::PairedDecision> vs_parent;
  nlohmann::json vs_best;
  if (r.best && !stopped_) {
    if (r.best->timing_is_performance()) {
      vs_parent = compare_with_parent(x, parent, r);
      vs_best = contend_for_best(x, *r.node, r.best_source);
    } else {
      vs_best = take_first_correct(x, *r.node, r.best_source);
    }
  }
  mark_result(*r.node, r.state == store::RunState::finished || !r.nodes.empty(), vs_parent,
              vs_best);
  return *r.node;
}

// The child against its parent, side by side. A root without a kernel is the baseline itself: the
// child's own paired speedup over the baseline is that comparison.
eval::PairedDecision SearchDriver::compare_with_parent(const Expansion& x,
                                                       const store::NodeRecord& parent,
                                                       const ExpansionResult& r) {
  if (parent.source.empty()) {
    eval::PairedDecision d;
    d.against = "the baseline";
    d.ratio = r.best->speedup;
    d.busy = r.best->machine_busy;
    d.winner = r.best->speedup ? eval::read_interval(*r.best->speedup) : eval::Winner::undecided;
    return d;
  }
  say(fmt::format("[{}] timing the child against its parent (node {}) side by side", x.key,
                  parent.number));
  return expander_.compare(r.best_source, parent.source, fmt::format("node {}", parent.number));
}

// The search's best changes only when a child beats it side by side (one contender at a time, so
// two children finishing together cannot both be compared with a best that is about to change).
nlohmann::json SearchDriver::contend_for_best(const Expansion& x, std::int64_t child,
                                              const std::string& source) {
  std::lock_guard lock(best_mu_);
  auto crown = [&] {
    best_ = child;
    best_source_ = source;
    // A failed write loses only a resumed search's memory of its best; the end of the run writes it
    // again.
    if (auto st = ledger_.set_best(setup_.run_id, child); !st)
      say(fmt::format("[{}] {}", x.key, st.error().message));
  };
  if (!best_) {
    crown();
    return nlohmann::json{{"method", "first correct kernel"}, {"winner", "challenger"}};
  }
  const int best = number_of(*best_);
  say(fmt::format("[{}] timing the child against the search's best (node {}) side by side", x.key,
                  best));
  auto d = expander_.compare(source, best_source_, fmt::format("node {}", best));
  if (d.challenger_won()) {
    crown();
    say(fmt::format("[{}] new best of the search: {}", x.key, d.describe()));
  }
  return d.to_json();
}

// Interpret-mode times say nothing of speed, so nothing is timed side by side: the first correct
// kernel is the best and is final (no later kernel could be shown faster), and the search stops.
nlohmann::json SearchDriver::take_first_correct(const Expansion& x, std::int64_t child,
                                                const std::string& source) {
  std::lock_guard lock(best_mu_);
  progress.decided_on_correctness = true;
  nlohmann::json j = {{"method", "first correct kernel"}, {"decided_by", kDecidedByCorrectness}};
  if (best_) {
    j["winner"] = "incumbent";
    j["reason"] =
        fmt::format("the first correct kernel (node {}) stays the best", number_of(*best_));
    return j;
  }
  best_ = child;
  best_source_ = source;
  if (auto st = ledger_.set_best(setup_.run_id, child); !st)
    say(fmt::format("[{}] {}", x.key, st.error().message));
  j["winner"] = "challenger";
  const int number = number_of(child);
  say(fmt::format("[{}] node {} is correct: the best, and final ({})", x.key, number,
                  kDecidedByCorrectness));
  stop(final_reason(number), store::RunState::finished);
  return j;
}

// Flags the node that stands for the whole expansion (a resume replays it), with how it compared.
void SearchDriver::mark_result(std::int64_t id, bool finished,
                               const std::optional<eval::PairedDecision>& vs_parent,
                               const nlohmann::json& vs_best) {
  store::NodeRecord n;
  {
    std::lock_guard lock(graph_mu_);
    if (!graph_.contains(id)) return;
    n = graph_.node(id);
    n.expansion_result = finished && n.state == store::NodeState::done;
    if (vs_parent) {
      n.vs_parent = vs_parent->to_json().dump();
      n.vs_parent_ratio =
          vs_parent->ratio ? std::optional<double>(vs_parent->ratio->median) : std::nullopt;
    }
    if (!vs_best.is_null()) n.vs_best = vs_best.dump();
    graph_.put(n);
    if (n.expansion_result && !n.expansion.empty()) done_[n.expansion] = id;
  }
  if (auto st = ledger_.update_node(n); !st)
    say(fmt::format("node {}: {}", n.number, st.error().message));
}

int SearchDriver::number_of(std::int64_t id) const {
  std::lock_guard lock(graph_mu_);
  return graph_.contains(id) ? graph_.node(id).number : 0;
}

void SearchDriver::say(const std::string& m) const {
  if (setup_.say) setup_.say(m);
}

}  // namespace kforge::modes
