// kforge compare A B [--json]: two bench results, task by task, each a result id from
// `kforge results` (kept in the store) or a saved `kforge bench --json` file: the ratio of B's
// speedup to A's (each measured side by side with its own baseline, so machine
// drift between the runs cancels), and whether their 95% intervals overlap (then the difference
// is not shown to be real). Verdict changes are named.
// Exit status: 0 when the --fail-on rule did not fire, 1 when it did, 2 on a usage error.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "kforge/cli/colour.h"
#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/table.h"
#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/eval/bench_compare.h"
#include "kforge/store/result_json.h"
#include "kforge/store/results.h"
#include "kforge/store/store.h"

namespace kforge::cli {
namespace {

struct CompareOptions {
  std::string a, b;
  bool json = false;
  std::string fail_on = "regression";
  double threshold_pct = 0;
};

// An argument that names no file and is all digits is a result id.
bool is_result_id(const std::string& arg) {
  return !arg.empty() && arg.size() <= 15 &&
         arg.find_first_not_of("0123456789") == std::string::npos && !std::filesystem::exists(arg);
}

// A result kept in the store, read as its bench --json would be; `what` says where it came from.
eval::BenchResults load_kept(const std::string& arg, std::string& what) {
  const auto path = store::store_path(core::state_dir());
  if (!std::filesystem::exists(path))
    throw UsageError(
        fmt::format("{}: no such file, and no results kept in {}", arg, path.string()));
  auto db = store::open_store(path);
  if (!db) throw UsageError(db.error().message);
  auto set = store::find_result_set(**db, std::stoll(arg));
  if (!set) throw UsageError(set.error().message);
  if (!*set)
    throw UsageError(
        fmt::format("{}: no such file, and no result {} (`kforge results` lists them)", arg, arg));
  auto rows = store::results_of_set(**db, (*set)->id);
  if (!rows) throw UsageError(rows.error().message);
  const auto& s = **set;
  for (const auto& r : *rows)
    if (r.partner != rows->front().partner)
      throw UsageError(fmt::format(
          "result {} is a bench --peers table (a row per peer): compare takes results of one "
          "partner each",
          arg));
  what =
      fmt::format("result {}: kforge {} of {}, {}, {} ({} {} {}t), commit {}", s.id, s.command,
                  s.command == "bench" ? count_of(static_cast<long>(rows->size()), "task") : s.task,
                  s.created_at, store::effective_state(s), s.hostname, s.isa, s.threads,
                  s.git_sha.substr(0, 10));
  auto r = eval::parse_bench_results(store::result_set_json(s, *rows, true), "result " + arg);
  if (!r) throw UsageError(r.error().message);
  return *r;
}

// task id → result, from a result id or a bench --json file (or a single eval --json evaluation).
eval::BenchResults load_results(const std::string& arg, std::string& what) {
  if (is_result_id(arg)) return load_kept(arg, what);
  auto text = core::read_text(arg);
  if (!text) throw UsageError(text.error().message);
  auto r = eval::parse_bench_results(nlohmann::json::parse(*text, nullptr, false), arg);
  if (!r) throw UsageError(r.error().message);
  what = arg;
  return *r;
}

std::string interval(const eval::BenchTaskResult& r) {
  if (r.busy && r.verdict == "correct") return "busy: no figure";
  if (!r.speedup) return r.verdict.empty() ? "—" : r.verdict;
  return r.low ? fmt::format("{:.2f}x [{:.2f}, {:.2f}]", *r.speedup, *r.low, *r.high)
               : format_ratio(*r.speedup);
}

int run_compare(const CompareOptions& o) {
  std::string what_a, what_b;
  auto a = load_results(o.a, what_a), b = load_results(o.b, what_b);
  auto c = eval::compare_bench(a, b);
  const auto rule = eval::parse_fail_rule(o.fail_on);
  if (!rule) throw UsageError(fmt::format("--fail-on: unknown rule '{}'", o.fail_on));
  const auto failures = eval::rule_failures(c, *rule, o.threshold_pct / 100);
  const int status = failures.empty() ? 0 : 1;
  if (o.json) {
    fmt::print("{}\n", nlohmann::json{{"a", o.a},
                                      {"b", o.b},
                                      {"a_source", what_a},
                                      {"b_source", what_b},
                                      {"tasks", c["tasks"]},
                                      {"summary", c["summary"]},
                                      {"fail_on", o.fail_on},
                                      {"threshold_pct", o.threshold_pct},
                                      {"failures", failures},
                                      {"exit_status", status}}
                           .dump(2));
    return status;
  }
  Table t({"task", "A", "B", "B/A", "verdict"}, {false, true, true, true, false});
  for (const auto& row : c["tasks"]) {
    const std::string id = row["task"], word = row["outcome"];
    const auto none = eval::BenchTaskResult{};
    const auto& ra = a.count(id) ? a.at(id) : none;
    const auto& rb = b.count(id) ? b.at(id) : none;
    // Painted only when the difference is shown to be real (the intervals do not overlap).
    const std::string shown = word == "B faster"   ? paint(word, Colour::green)
                              : word == "B slower" ? paint(word, Colour::red)
                                                   : word;
    t.add({id, interval(ra), interval(rb),
           row["ratio"].is_number() ? format_ratio(row["ratio"].get<double>()) : "—", shown});
  }
  const auto& s = c["summary"];
  // Which result is which, when one came from the store (a file's name says it already).
  if (what_a != o.a || what_b != o.b) fmt::print("A: {}\nB: {}\n", what_a, what_b);
  fmt::print(
      "{}\n{} correct in both: B faster on {}, slower on {}, within noise on {}; geomean B/A "
      "{}\n",
      t.render(), count_of(s["compared"].get<int>(), "task"), s["b_faster"].get<int>(),
      s["b_slower"].get<int>(), s["within_noise"].get<int>(),
      s["geomean_ratio"].is_number() ? format_ratio(s["geomean_ratio"].get<double>()) : "n/a");
  if (const int busy = s["busy"].get<int>())
    fmt::print(
        "{} not compared: timed on a busy machine, a reading is no result; bench them again on a "
        "quiet machine (bench --retries measures busy rows again)\n",
        count_of(busy, "task"));
  if (status)
    fmt::print("{} ({}): {}; exit 1 (--fail-on never only compares)\n",
               paint(o.fail_on == "any-worse" ? "worse" : "regression", Colour::red),
               count_of(static_cast<long>(failures.size()), "task"), fmt::join(failures, "; "));
  return status;
}

}  // namespace

void add_compare(CommandLine& cmd) {
  auto o = std::make_shared<CompareOptions>();
  cmd.bind("result-a", o->a);
  cmd.require("result-a");
  cmd.bind("result-b", o->b);
  cmd.require("result-b");
  cmd.bind("json", o->json);
  cmd.bind("fail-on", o->fail_on);
  cmd.bind("threshold", o->threshold_pct);
  cmd.on_run([o] { return run_compare(*o); });
}

}  // namespace kforge::cli
