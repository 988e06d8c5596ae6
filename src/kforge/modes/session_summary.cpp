// The sessions table's rows, from the runs, their nodes, the model calls (and the state file of a
// hitl session an older kforge saved).
#include "kforge/modes/session_summary.h"

#include <map>

#include "kforge/core/fs.h"
#include "kforge/store/llm_calls.h"

namespace kforge::modes {
namespace {

// A hitl session saved before its versions were nodes, and not opened since, has its best in its
// state file only (opening it records the versions as nodes: restore_versions).
std::optional<double> hitl_best_speedup(const std::filesystem::path& state_dir,
                                        const std::string& id) {
  auto text = core::read_text(state_dir / "sessions" / id / "state.json");
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("best") || !j["best"].is_object()) return std::nullopt;
  // An interpret-mode best (pallas on a CPU backend) has no speedup to quote.
  if (j["best"].value("timing_basis", "").rfind("interpret", 0) == 0) return std::nullopt;
  auto it = j["best"].find("speedup");
  return it != j["best"].end() && it->is_number() ? std::optional<double>(it->get<double>())
                                                  : std::nullopt;
}

}  // namespace

nlohmann::json SessionSummary::to_json() const {
  return {{"session", run.id},
          {"mode", run.mode},
          {"task", run.task},
          {"size", run.size},
          {"state", state},
          {"stop_reason", run.stop_reason},
          {"nodes", nodes},
          {"best_node", best_node ? nlohmann::json(*best_node) : nlohmann::json(nullptr)},
          {"best_speedup", best_speedup ? nlohmann::json(*best_speedup) : nlohmann::json(nullptr)},
          {"tokens", tokens},
          {"tokens_estimated", tokens_estimated},
          {"cost_usd", cost_usd},
          {"created_at", run.created_at},
          {"updated_at", run.updated_at}};
}

Result<std::vector<SessionSummary>> summarize_sessions(store::Database& db,
                                                       const std::filesystem::path& state_dir) {
  auto runs = store::list_runs(db);
  if (!runs) return runs.error();
  auto usage = store::llm_usage(db);
  std::map<std::string, double> cost;
  std::map<std::string, std::int64_t> tokens;
  std::map<std::string, bool> estimated;
  if (usage)
    for (const auto& u : *usage) {
      cost[u.session_id] += u.cost_usd;
      tokens[u.session_id] += u.input_tokens + u.output_tokens;
      if (u.estimated) estimated[u.session_id] = true;
    }
  std::vector<SessionSummary> out;
  for (const auto& r : *runs) {
    SessionSummary s;
    s.run = r;
    s.state = std::string(store::run_state_name(store::effective_state(r)));
    if (auto nodes = store::nodes_of_run(db, r.id)) {
      s.nodes = nodes->size();
      for (const auto& n : *nodes)
        if (r.best_node && n.id == *r.best_node) {
          s.best_node = n.number;
          s.best_speedup = n.speedup;
        }
    }
    if (r.mode == "hitl" && s.nodes == 0) s.best_speedup = hitl_best_speedup(state_dir, r.id);
    s.tokens = tokens[r.id];
    s.tokens_estimated = estimated[r.id];
    s.cost_usd = cost[r.id];
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace kforge::modes
