// kforge sessions [--json]: auto runs and searches, newest first, with their best speedup, cost
// and state.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "kforge/cli/colour.h"
#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/table.h"
#include "kforge/core/paths.h"
#include "kforge/modes/session_summary.h"
#include "kforge/store/store.h"

namespace kforge::cli {
namespace {

int run_sessions(bool json) {
  auto db = store::open_store(store::store_path(core::state_dir()));
  if (!db) throw UsageError(db.error().message);
  auto rows = modes::summarize_sessions(**db, core::state_dir());
  if (!rows) throw UsageError(rows.error().message);
  bool any_estimated = false;
  nlohmann::json out = nlohmann::json::array();
  Table t(
      {"session", "mode", "task", "size", "state", "nodes", "best", "tokens", "cost $", "started"},
      {false, false, false, false, false, true, true, true, true, false});
  for (const auto& s : *rows) {
    const auto& r = s.run;
    any_estimated = any_estimated || s.tokens_estimated;
    t.add({r.id, r.mode, r.task, r.size, s.state, std::to_string(s.nodes),
           s.best_speedup ? paint_ratio(*s.best_speedup) : "—",
           format_tokens(s.tokens, s.tokens_estimated), fmt::format("{:.4f}", s.cost_usd),
           r.created_at});
    out.push_back(s.to_json());
  }
  if (json) {
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  fmt::print("{}{} run(s) in {}\n", t.render(), rows->size(),
             store::store_path(core::state_dir()).string());
  if (any_estimated) fmt::print("{}\n", kEstimatedTokensNote);
  for (const auto& s : *rows)
    if (s.state == "interrupted" && (s.run.mode == "search" || s.run.mode == "hitl")) {
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
