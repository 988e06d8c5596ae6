// kforge compare A.json B.json [--json]: two saved `kforge bench --json` results, task by task:
// the ratio of B's speedup to A's (each measured side by side with its own baseline, so machine
// drift between the runs cancels), and whether their 95% intervals overlap (then the difference
// is not shown to be real). Verdict changes are named.
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "kforge/cli/colour.h"
#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/table.h"
#include "kforge/core/fs.h"

namespace kforge::cli {
namespace {

struct CompareOptions {
  std::string a, b;
  bool json = false;
};

struct TaskResult {
  std::string verdict;  // "" when the task was not evaluated
  std::optional<double> speedup, low, high;
};

// task id → result, from a bench --json file (or a single eval --json evaluation).
std::map<std::string, TaskResult> load_results(const std::string& path) {
  auto text = core::read_text(path);
  if (!text) throw UsageError(text.error().message);
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw UsageError(
        fmt::format("{}: not JSON from `kforge bench --json` or `kforge eval --json`", path));
  std::vector<nlohmann::json> evaluations;
  if (j.contains("tasks") && j["tasks"].is_array()) {
    for (const auto& t : j["tasks"])
      if (t.is_object())
        evaluations.push_back(t.contains("evaluation")
                                  ? t["evaluation"]
                                  : nlohmann::json{{"task", t.value("task", "")}});
  } else if (j.contains("task")) {
    evaluations.push_back(j);
  } else {
    throw UsageError(fmt::format("{}: has neither \"tasks\" (bench) nor \"task\" (eval)", path));
  }
  std::map<std::string, TaskResult> out;
  for (const auto& e : evaluations) {
    if (!e.is_object() || !e.contains("task") || !e["task"].is_string()) continue;
    TaskResult r;
    if (auto v = e.find("verdict"); v != e.end() && v->is_string())
      r.verdict = v->get<std::string>();
    if (auto s = e.find("speedup"); s != e.end() && s->is_number()) r.speedup = s->get<double>();
    if (auto ci = e.find("speedup_ci95"); ci != e.end() && ci->is_array() && ci->size() == 2 &&
                                          (*ci)[0].is_number() && (*ci)[1].is_number()) {
      r.low = (*ci)[0].get<double>();
      r.high = (*ci)[1].get<double>();
    }
    out[e["task"].get<std::string>()] = r;
  }
  return out;
}

std::string interval(const TaskResult& r) {
  if (!r.speedup) return r.verdict.empty() ? "—" : r.verdict;
  return r.low ? fmt::format("{:.2f}x [{:.2f}, {:.2f}]", *r.speedup, *r.low, *r.high)
               : format_ratio(*r.speedup);
}

int run_compare(const CompareOptions& o) {
  auto a = load_results(o.a), b = load_results(o.b);
  Table t({"task", "A", "B", "B/A", "verdict"}, {false, true, true, true, false});
  nlohmann::json rows = nlohmann::json::array();
  double log_sum = 0;
  int compared = 0, faster = 0, slower = 0, same = 0;
  std::map<std::string, bool> ids;
  for (const auto& [id, r] : a) ids[id] = true;
  for (const auto& [id, r] : b) ids[id] = true;
  for (const auto& [id, present] : ids) {
    const TaskResult ra = a.count(id) ? a[id] : TaskResult{},
                     rb = b.count(id) ? b[id] : TaskResult{};
    nlohmann::json row = {{"task", id},
                          {"a", ra.speedup ? nlohmann::json(*ra.speedup) : nlohmann::json(nullptr)},
                          {"b", rb.speedup ? nlohmann::json(*rb.speedup) : nlohmann::json(nullptr)},
                          {"a_verdict", ra.verdict},
                          {"b_verdict", rb.verdict}};
    std::string ratio = "—", word;
    if (ra.speedup && rb.speedup && ra.verdict == "correct" && rb.verdict == "correct") {
      const double q = *rb.speedup / *ra.speedup;
      ratio = format_ratio(q);
      row["ratio"] = q;
      log_sum += std::log(q);
      ++compared;
      const bool overlap = ra.low && rb.low && !(*rb.low > *ra.high || *ra.low > *rb.high);
      row["intervals_overlap"] = overlap;
      word = overlap || !ra.low || !rb.low ? "within noise" : q > 1 ? "B faster" : "B slower";
      (word == "B faster" ? faster : word == "B slower" ? slower : same)++;
    } else {
      row["ratio"] = nullptr;
      word = ra.verdict == rb.verdict
                 ? ra.verdict
                 : fmt::format("{} → {}", ra.verdict.empty() ? "absent" : ra.verdict,
                               rb.verdict.empty() ? "absent" : rb.verdict);
    }
    row["outcome"] = word;
    rows.push_back(row);
    // Painted only when the difference is shown to be real (the intervals do not overlap).
    const std::string shown = word == "B faster"   ? paint(word, Colour::green)
                              : word == "B slower" ? paint(word, Colour::red)
                                                   : word;
    t.add({id, interval(ra), interval(rb), ratio, shown});
  }
  nlohmann::json summary = {
      {"compared", compared},
      {"b_faster", faster},
      {"b_slower", slower},
      {"within_noise", same},
      {"geomean_ratio",
       compared ? nlohmann::json(std::exp(log_sum / compared)) : nlohmann::json(nullptr)}};
  if (o.json) {
    fmt::print(
        "{}\n",
        nlohmann::json{{"a", o.a}, {"b", o.b}, {"tasks", rows}, {"summary", summary}}.dump(2));
    return 0;
  }
  fmt::print(
      "{}\n{} tasks correct in both: B faster on {}, slower on {}, within noise on {}; geomean B/A "
      "{}\n",
      t.render(), compared, faster, slower, same,
      compared ? format_ratio(std::exp(log_sum / compared)) : "n/a");
  return 0;
}

}  // namespace

void add_compare(CommandLine& cmd) {
  auto o = std::make_shared<CompareOptions>();
  cmd.bind("result-a", o->a);
  cmd.require("result-a");
  cmd.bind("result-b", o->b);
  cmd.require("result-b");
  cmd.bind("json", o->json);
  cmd.on_run([o] { return run_compare(*o); });
}

}  // namespace kforge::cli
