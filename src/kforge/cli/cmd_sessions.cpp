// kforge sessions [--json]: auto runs and searches, newest first, with their best speedup, cost
// and state.
#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "kforge/cli/colour.h"
#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/table.h"
#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/store/store.h"

namespace kforge::cli {
namespace {

// A hitl session keeps its best in its own state file (its versions are not graph nodes).
std::optional<double> hitl_best_speedup(const std::string& id) {
  auto text = core::read_text(core::state_dir() / "sessions" / id / "state.json");
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("best") || !j["best"].is_object()) return std::nullopt;
  auto it = j["best"].find("speedup");
  return it != j["best"].end() && it->is_number() ? std::optional<double>(it->get<double>())
                                                  : std::nullopt;
}

int run_sessions(bool json) {
  auto db = store::open_store(store::store_path(core::state_dir()));
  if (!db) throw UsageError(db.error().message);
  auto runs = store::list_runs(**db);
  if (!runs) throw UsageError(runs.error().message);
  auto usage = store::llm_usage(**db);
  std::map<std::string, double> cost;
  std::map<std::string, std::int64_t> tokens;
  std::map<std::string, bool> estimated;
  if (usage)
    for (const auto& u : *usage) {
      cost[u.session_id] += u.cost_usd;
      tokens[u.session_id] += u.input_tokens + u.output_tokens;
      if (u.estimated) estimated[u.session_id] = true;
    }
  bool any_estimated = false;
  nlohmann::json out = nlohmann::json::array();
  Table t(
      {"session", "mode", "task", "size", "state", "nodes", "best", "tokens", "cost $", "started"},
      {false, false, false, false, false, true, true, true, true, false});
  for (const auto& r : *runs) {
    auto nodes = store::nodes_of_run(**db, r.id);
    std::optional<double> best;
    std::size_t count = 0;
    if (nodes) {
      count = nodes->size();
      for (const auto& n : *nodes)
        if (r.best_node && n.id == *r.best_node && n.speedup) best = n.speedup;
    }
    if (r.mode == "hitl") best = hitl_best_speedup(r.id);
    const std::string state(store::run_state_name(store::effective_state(r)));
    any_estimated = any_estimated || estimated[r.id];
    t.add({r.id, r.mode, r.task, r.size, state, std::to_string(count),
           best ? paint_ratio(*best) : "—", format_tokens(tokens[r.id], estimated[r.id]),
           fmt::format("{:.4f}", cost[r.id]), r.created_at});
    out.push_back(
        {{"session", r.id},
         {"mode", r.mode},
         {"task", r.task},
         {"size", r.size},
         {"state", state},
         {"stop_reason", r.stop_reason},
         {"nodes", count},
         {"best_node", r.best_node ? nlohmann::json(*r.best_node) : nlohmann::json(nullptr)},
         {"best_speedup", best ? nlohmann::json(*best) : nlohmann::json(nullptr)},
         {"tokens", tokens[r.id]},
         {"tokens_estimated", estimated[r.id]},
         {"cost_usd", cost[r.id]},
         {"created_at", r.created_at},
         {"updated_at", r.updated_at}});
  }
  if (json) {
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  fmt::print("{}{} run(s) in {}\n", t.render(), runs->size(),
             store::store_path(core::state_dir()).string());
  if (any_estimated) fmt::print("{}\n", kEstimatedTokensNote);
  for (const auto& r : *runs)
    if (store::effective_state(r) == store::RunState::interrupted &&
        (r.mode == "search" || r.mode == "hitl")) {
      fmt::print(
          "interrupted runs go on with `kforge search --resume ID` or `kforge hitl --resume ID`\n");
      break;
    }
  return 0;
}

}  // namespace

void add_sessions(CommandLine& cmd) {
  auto json = std::make_shared<bool>(false);
  cmd.bind("json", *json);
  cmd.on_run([json] { return run_sessions(*json); });
}

}  // namespace kforge::cli
