// Reading a run for its page.
#include "kforge/web/run_view.h"

#include <fmt/format.h>

#include <map>

#include "kforge/modes/hitl_session.h"
#include "kforge/modes/run_graph.h"
#include "kforge/store/llm_calls.h"
#include "kforge/store/runs.h"

namespace kforge::web {
namespace {

nlohmann::json parsed(const std::string& text) {
  if (text.empty()) return nullptr;
  auto j = nlohmann::json::parse(text, nullptr, false);
  return j.is_discarded() ? nlohmann::json(text) : j;
}

template <typename T>
nlohmann::json maybe(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// A node as the page shows it and links to it (#/run/ID/N): by its number within the run, as
// every command names it; the store's id is "global_id".
nlohmann::json node_json(const store::NodeRecord& n, const store::NodeRecord* parent,
                         const std::filesystem::path& scratch) {
  std::string diff;
  if (parent && !parent->source.empty() && !n.source.empty())
    diff = modes::unified_diff(parent->source, n.source, fmt::format("node {}", parent->number),
                               fmt::format("node {}", n.number), scratch);
  return {{"id", n.number},
          {"global_id", n.id},
          {"parent", parent ? nlohmann::json(parent->number) : nlohmann::json(nullptr)},
          {"depth", n.depth},
          {"iteration", n.iteration},
          {"strategy", n.strategy_id.empty() ? n.strategy : n.strategy_id},
          {"strategy_text", n.strategy},
          {"state", store::node_state_name(n.state)},
          {"verdict", maybe(n.verdict)},
          {"reason", n.reason},
          {"plan", n.plan},
          {"source", n.source},
          {"diff", diff},
          {"median_ms", maybe(n.median_ms)},
          {"baseline_ms", maybe(n.baseline_ms)},
          {"speedup", maybe(n.speedup)},
          {"roofline", maybe(n.roofline)},
          {"roofline_reason", n.roofline_reason},
          {"profile", n.profile},
          {"diagnosis", n.diagnosis},
          {"needs_improvement", maybe(n.needs_improvement)},
          {"vs_parent", parsed(n.vs_parent)},
          {"vs_best", parsed(n.vs_best)},
          {"decision", parsed(n.decision)},
          {"extra", parsed(n.extra)},
          {"tokens_in", n.tokens_in},
          {"tokens_out", n.tokens_out},
          {"cost_usd", n.cost_usd},
          {"created_at", n.created_at},
          {"finished_at", maybe(n.finished_at)}};
}

}  // namespace

Result<nlohmann::json> run_view(store::Database& db, const std::string& run_id,
                                const std::filesystem::path& scratch) {
  auto run = store::find_run(db, run_id);
  if (!run) return run.error();
  if (!*run) return Error{fmt::format("no run {}", run_id)};
  auto nodes = store::nodes_of_run(db, run_id);
  if (!nodes) return nodes.error();
  std::map<std::int64_t, const store::NodeRecord*> by_id;
  for (const auto& n : *nodes) by_id[n.id] = &n;
  const auto& r = **run;
  const auto best = store::NodeNumbers(*nodes).of(r.best_node);
  nlohmann::json j = {{"run",
                       {{"id", r.id},
                        {"mode", r.mode},
                        {"task", r.task},
                        {"size", r.size},
                        {"state", store::run_state_name(store::effective_state(r))},
                        {"stop_reason", r.stop_reason},
                        {"best_node", maybe(best)},
                        {"options", parsed(r.options)},
                        {"created_at", r.created_at},
                        {"updated_at", r.updated_at}}},
                      {"nodes", nlohmann::json::array()},
                      {"calls", nlohmann::json::array()},
                      {"graph", modes::run_graph_json(r, *nodes)}};
  for (const auto& n : *nodes) {
    const store::NodeRecord* parent =
        n.parent_id && by_id.count(*n.parent_id) ? by_id[*n.parent_id] : nullptr;
    j["nodes"].push_back(node_json(n, parent, scratch));
  }
  if (auto calls = store::llm_calls_of(db, run_id))
    for (const auto& c : *calls)
      j["calls"].push_back({{"call", c.call},
                            {"time", c.time},
                            {"role", c.role},
                            {"model", c.provider + ":" + c.model},
                            {"input_tokens", c.input_tokens},
                            {"output_tokens", c.output_tokens},
                            {"tokens_estimated", c.tokens_estimated},
                            {"latency_ms", c.latency_ms},
                            {"cost_usd", c.cost_usd},
                            {"cached", c.cached},
                            {"error", c.error}});
  return j;
}

std::string ended_state(store::Database& db, const std::string& run_id) {
  auto run = store::find_run(db, run_id);
  if (!run || !*run) return "";
  const auto state = store::effective_state(**run);
  return state == store::RunState::running ? "" : std::string(store::run_state_name(state));
}

Result<std::string> run_fingerprint(store::Database& db, const std::string& run_id) {
  auto st = db.prepare(
      "SELECT (SELECT COALESCE(updated_at, '') || state FROM runs WHERE id = ?1), "
      "(SELECT COUNT(*) || ':' || COALESCE(SUM(LENGTH(state) + LENGTH(COALESCE(verdict, ''))), 0) "
      "|| ':' || COALESCE(MAX(finished_at), '') || ':' || COALESCE(SUM(speedup), 0) FROM nodes "
      "WHERE run_id = ?1)");
  if (!st) return st.error();
  st->bind(1, run_id);
  auto row = st->step();
  if (!row) return row.error();
  if (!*row) return std::string();
  return st->text(0) + "|" + st->text(1);
}

}  // namespace kforge::web
