// Run and node rows for every mode, written under one lock.
#include "kforge/modes/run_ledger.h"

#include <fmt/format.h>

#include "kforge/store/store.h"

namespace kforge::modes {

Result<std::unique_ptr<RunLedger>> RunLedger::open(const std::filesystem::path& state_dir) {
  auto db = store::open_store(store::store_path(state_dir));
  if (!db) return db.error();
  return std::make_unique<RunLedger>(std::move(*db));
}

RunLedger::RunLedger(std::unique_ptr<store::Database> db) : db_(std::move(db)) {}

Status RunLedger::start_run(const store::RunRecord& run) {
  std::lock_guard lock(mu_);
  if (auto st = store::insert_run(*db_, run); !st)
    return with_context(st.error(), fmt::format("recording run {}", run.id));
  return ok_status();
}

Status RunLedger::update_run(const std::string& run_id,
                             const std::function<void(store::RunRecord&)>& change) {
  std::lock_guard lock(mu_);
  auto run = store::find_run(*db_, run_id);
  if (!run) return with_context(run.error(), fmt::format("updating run {}", run_id));
  if (!*run)
    return Error{fmt::format("updating run {}: it is not in {}", run_id, db_->path().string())};
  change(**run);
  if (auto st = store::update_run(*db_, **run); !st)
    return with_context(st.error(), fmt::format("updating run {}", run_id));
  return ok_status();
}

Status RunLedger::set_best(const std::string& run_id, std::optional<std::int64_t> best) {
  return update_run(run_id, [&](store::RunRecord& r) { r.best_node = best; });
}

Result<std::optional<store::RunRecord>> RunLedger::run(const std::string& run_id) {
  std::lock_guard lock(mu_);
  return store::find_run(*db_, run_id);
}

Result<std::int64_t> RunLedger::add_node(const store::NodeRecord& node) {
  std::lock_guard lock(mu_);
  auto id = store::insert_node(*db_, node);
  if (!id) return with_context(id.error(), fmt::format("recording a node of run {}", node.run_id));
  return id;
}

Status RunLedger::update_node(const store::NodeRecord& node) {
  std::lock_guard lock(mu_);
  if (auto st = store::update_node(*db_, node); !st)
    return with_context(st.error(), fmt::format("updating node {}", node.id));
  return ok_status();
}

Result<std::vector<store::NodeRecord>> RunLedger::nodes(const std::string& run_id) {
  std::lock_guard lock(mu_);
  auto nodes = store::nodes_of_run(*db_, run_id);
  if (!nodes)
    return with_context(nodes.error(), fmt::format("reading the nodes of run {}", run_id));
  return nodes;
}

Result<int> RunLedger::number_of(const std::string& run_id, std::int64_t id) {
  std::lock_guard lock(mu_);
  auto number = store::node_number(*db_, run_id, id);
  if (!number) return with_context(number.error(), fmt::format("numbering node {}", id));
  if (!*number) return Error{fmt::format("node {} is not a node of run {}", id, run_id)};
  return **number;
}

Result<int> RunLedger::mark_interrupted(const std::string& run_id) {
  auto all = nodes(run_id);
  if (!all) return all.error();
  int marked = 0;
  for (auto& n : *all) {
    if (n.state != store::NodeState::running) continue;
    n.state = store::NodeState::interrupted;
    if (auto st = update_node(n); !st) return st.error();
    ++marked;
  }
  return marked;
}

void record_evaluation(store::NodeRecord& n, const eval::Evaluation& e) {
  n.verdict = std::string(eval::verdict_name(e.verdict));
  n.reason = e.reason;
  if (e.candidate) {
    n.median_ms = e.candidate->median_ms;
    n.roofline = e.roofline;
    n.roofline_reason = e.roofline_note;
  }
  if (e.baseline) n.baseline_ms = e.baseline->median_ms;
  // An interpret-mode ratio is no speedup, nor is one timed on a busy machine: graph, sessions
  // and the web pages read this field.
  if (e.speedup && e.timing_is_performance() && !e.machine_busy) n.speedup = e.speedup->median;
  if (e.profile) n.profile = e.profile->summary();
  if (e.timing_end > 0) {
    n.timing_start = e.timing_start;
    n.timing_end = e.timing_end;
  }
}

std::optional<eval::Verdict> verdict_of(const store::NodeRecord& node) {
  return node.verdict ? eval::parse_verdict(*node.verdict) : std::nullopt;
}

bool is_correct(const store::NodeRecord& node) {
  return verdict_of(node) == eval::Verdict::correct && node.median_ms.has_value();
}

}  // namespace kforge::modes
