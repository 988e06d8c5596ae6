// kforge results [--task T] [--target T] [--command bench|eval] [--limit N] [--json]
// kforge results ID [--json]
// What `kforge bench` and `kforge eval` kept in the store, newest first: each bench run is one
// result (its rows, one per task), each eval one result of one row. With an id, that result's
// rows; --json of it reads like `kforge bench --json`, so it can be saved and compared.
#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "kforge/cli/colour.h"
#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/table.h"
#include "kforge/core/paths.h"
#include "kforge/store/result_json.h"
#include "kforge/store/results.h"
#include "kforge/store/store.h"

namespace kforge::cli {
namespace {

struct ResultsOptions {
  std::string id, task, target, command;
  int limit = 20;
  bool json = false;
};

std::int64_t parse_id(const std::string& text) {
  if (text.empty() || text.size() > 15 || text.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(fmt::format("'{}' is not a result id (a number from `kforge results`)", text));
  return std::stoll(text);
}

// "1.25x [1.10, 1.40]"; "busy" for a reading on a busy machine (no figure); "" when not timed.
std::string speedup_cell(const store::KeptResult& r) {
  if (r.busy && r.verdict == "correct") return "busy";
  if (!r.speedup) return "";
  if (!r.speedup_low || !r.speedup_high) return paint_ratio(*r.speedup);
  return fmt::format("{} [{:.2f}, {:.2f}]", paint_ratio(*r.speedup), *r.speedup_low,
                     *r.speedup_high);
}

std::string machine_cell(const store::ResultSet& s) {
  return fmt::format("{} {} {}t", s.hostname.empty() ? "?" : s.hostname,
                     s.isa.empty() ? "?" : s.isa, s.threads);
}

std::string commit_cell(const store::ResultSet& s) {
  const bool dirty = s.git_sha.ends_with("-dirty");
  return s.git_sha.substr(0, 10) + (dirty ? "-dirty" : "");
}

// A bench: its suite folder and how many tasks it holds (a --peers table has a row per peer);
// an eval: its task.
std::string subject_cell(const store::ResultSet& s, const std::vector<store::KeptResult>& rows) {
  if (s.command != "bench") return s.task;
  std::set<std::string> tasks;
  for (const auto& r : rows) tasks.insert(r.task);
  return fmt::format("{} ({})", std::filesystem::path(s.suite).filename().string(),
                     count_of(static_cast<long>(tasks.size()), "task"));
}

// A bench: "2/3 correct" (and its state unless finished); an eval: its verdict.
std::string outcome_cell(const store::ResultSet& s, const std::vector<store::KeptResult>& rows,
                         const store::SetSummary& sum) {
  const std::string state = store::effective_state(s);
  std::string out;
  if (s.command == "bench")
    out = fmt::format("{}/{} correct", sum.correct, sum.rows);
  else
    out = rows.empty() ? "" : paint_verdict(rows.front().verdict);
  if (state != "finished") out += (out.empty() ? "" : ", ") + state;
  return out;
}

std::string figure_cell(const store::ResultSet& s, const std::vector<store::KeptResult>& rows,
                        const store::SetSummary& sum) {
  if (s.command != "bench") return rows.empty() ? "" : speedup_cell(rows.front());
  return sum.geomean_speedup ? paint_ratio(*sum.geomean_speedup) + " geomean" : "";
}

std::unique_ptr<store::Database> open_kept() {
  const auto path = store::store_path(core::state_dir());
  if (!std::filesystem::exists(path)) return nullptr;
  auto db = store::open_store(path);
  if (!db) throw UsageError(db.error().message);
  return std::move(*db);
}

std::vector<store::KeptResult> rows_of(store::Database& db, std::int64_t id) {
  auto rows = store::results_of_set(db, id);
  if (!rows) throw UsageError(rows.error().message);
  return std::move(*rows);
}

int list_results(store::Database* db, const ResultsOptions& o) {
  std::vector<store::ResultSet> sets;
  if (db) {
    // One more than shown: whether to say that there are more.
    auto found =
        store::list_result_sets(*db, {o.command, o.task, o.target, o.limit > 0 ? o.limit + 1 : 0});
    if (!found) throw UsageError(found.error().message);
    sets = std::move(*found);
  }
  const bool more = o.limit > 0 && static_cast<int>(sets.size()) > o.limit;
  if (more) sets.pop_back();
  nlohmann::json out = nlohmann::json::array();
  Table t({"id", "when", "command", "task or suite", "target", "size", "outcome",
           "speedup [95% CI]", "machine", "commit"},
          {true, false, false, false, false, false, false, true, false, false});
  for (const auto& s : sets) {
    const auto rows = rows_of(*db, s.id);
    const auto sum = store::summarize(rows);
    out.push_back(store::result_set_json(s, rows, false));
    const std::string size = s.size.empty() && !rows.empty() ? rows.front().size : s.size;
    t.add({std::to_string(s.id), s.created_at, s.command, subject_cell(s, rows), s.target, size,
           outcome_cell(s, rows, sum), figure_cell(s, rows, sum), machine_cell(s), commit_cell(s)});
  }
  if (o.json) {
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  if (sets.empty()) {
    fmt::print("no results{} in {}: kforge bench and kforge eval keep theirs there\n",
               o.task.empty() && o.target.empty() && o.command.empty() ? "" : " match",
               store::store_path(core::state_dir()).string());
    return 0;
  }
  fmt::print("{}", t.render());
  if (more) fmt::print("the newest {} shown; --limit 0 shows all\n", count_of(o.limit, "result"));
  fmt::print("`kforge results ID` shows a result's rows; `kforge compare ID ID` compares two\n");
  return 0;
}

int show_result(store::Database* db, const ResultsOptions& o) {
  const std::int64_t id = parse_id(o.id);
  std::optional<store::ResultSet> set;
  if (db) {
    auto found = store::find_result_set(*db, id);
    if (!found) throw UsageError(found.error().message);
    set = *found;
  }
  if (!set) throw UsageError(fmt::format("no result {} (`kforge results` lists them)", id));
  const auto rows = rows_of(*db, id);
  if (o.json) {
    fmt::print("{}\n", store::result_set_json(*set, rows, true).dump(2));
    return 0;
  }
  const auto& s = *set;
  const std::string state = store::effective_state(s);
  std::vector<std::pair<std::string, std::string>> head = {
      {"result", fmt::format("{} (kforge {}, {})", s.id, s.command, state)},
      {"when", s.created_at == s.updated_at ? s.created_at
                                            : s.created_at + " (last row " + s.updated_at + ")"},
      {"machine",
       fmt::format(
           "{}: {}, {}, {} thread{}{}", s.hostname, s.cpu_model, s.isa, s.threads,
           s.threads == 1 ? "" : "s",
           s.openblas_coretype.empty() ? "" : ", OPENBLAS_CORETYPE=" + s.openblas_coretype)},
      {"kforge", fmt::format("{} ({})", s.kforge_version, s.git_sha)},
      {"what", fmt::format("{} {}, target {}, size {}, dtype {}, partner {}",
                           s.command == "bench" ? "impl" : "kernel", s.impl, s.target,
                           s.size.empty() ? "default" : s.size, s.dtype, s.partner)}};
  if (s.command == "bench") head.push_back({"suite", s.suite});
  fmt::print("{}", key_values(head));
  Table t({"task", "role", "partner", "verdict", "median ms", "speedup [95% CI]"},
          {false, false, false, false, true, true});
  for (const auto& r : rows)
    t.add({r.task, r.role, r.partner, r.verdict.empty() ? r.status : paint_verdict(r.verdict),
           r.median_ms ? format_ms(*r.median_ms) : "", speedup_cell(r)});
  fmt::print("\n{}", t.render());
  const auto sum = store::summarize(rows);
  fmt::print("{}, {} evaluated, {} correct; geomean speedup {}{}\n", count_of(sum.rows, "row"),
             sum.evaluated, sum.correct,
             sum.geomean_speedup ? format_ratio(*sum.geomean_speedup) : "n/a",
             sum.busy ? fmt::format(" (leaving out {} timed busy)", sum.busy) : "");
  if (s.command == "bench" && state == "interrupted")
    fmt::print(
        "interrupted: go on with `kforge bench --resume {}` (only the tasks without a row "
        "run)\n",
        s.id);
  return 0;
}

int run_results(const ResultsOptions& o) {
  auto db = open_kept();
  return o.id.empty() ? list_results(db.get(), o) : show_result(db.get(), o);
}

}  // namespace

void add_results(CommandLine& cmd) {
  auto o = std::make_shared<ResultsOptions>();
  cmd.bind("result-id", o->id);
  cmd.bind("results-task", o->task);
  cmd.bind("results-target", o->target);
  cmd.bind("results-command", o->command);
  cmd.bind("limit", o->limit);
  cmd.bind("json", o->json);
  cmd.on_run([o] { return run_results(*o); });
}

}  // namespace kforge::cli
