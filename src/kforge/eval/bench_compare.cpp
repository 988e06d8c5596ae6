// Reading saved bench results and comparing two of them.
#include "kforge/eval/bench_compare.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

namespace kforge::eval {
namespace {

nlohmann::json maybe(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

Result<BenchResults> parse_bench_results(const nlohmann::json& j, const std::string& name) {
  if (j.is_discarded() || !j.is_object())
    return Error{
        fmt::format("{}: not JSON from `kforge bench --json` or `kforge eval --json`", name)};
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
    return Error{fmt::format("{}: has neither \"tasks\" (bench) nor \"task\" (eval)", name)};
  }
  BenchResults out;
  for (const auto& e : evaluations) {
    if (!e.is_object() || !e.contains("task") || !e["task"].is_string()) continue;
    BenchTaskResult r;
    if (auto v = e.find("verdict"); v != e.end() && v->is_string())
      r.verdict = v->get<std::string>();
    // Busy: the load verdict, or a reading kept apart under busy_speedup.
    if (auto load = e.find("machine_load"); load != e.end() && load->is_object())
      r.busy = load->value("busy", false);
    if (auto b = e.find("busy_speedup"); b != e.end() && b->is_object()) r.busy = true;
    // A file written before busy readings were kept apart still holds one under "speedup".
    if (r.busy) {
      out[e["task"].get<std::string>()] = r;
      continue;
    }
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

nlohmann::json compare_bench(const BenchResults& a, const BenchResults& b) {
  nlohmann::json rows = nlohmann::json::array();
  double log_sum = 0;
  int compared = 0, faster = 0, slower = 0, same = 0, busy = 0;
  std::map<std::string, bool> ids;
  for (const auto& [id, r] : a) ids[id] = true;
  for (const auto& [id, r] : b) ids[id] = true;
  for (const auto& [id, present] : ids) {
    const BenchTaskResult ra = a.count(id) ? a.at(id) : BenchTaskResult{},
                          rb = b.count(id) ? b.at(id) : BenchTaskResult{};
    nlohmann::json row = {{"task", id},
                          {"a", maybe(ra.speedup)},
                          {"a_ci95", {maybe(ra.low), maybe(ra.high)}},
                          {"b", maybe(rb.speedup)},
                          {"b_ci95", {maybe(rb.low), maybe(rb.high)}},
                          {"a_verdict", ra.verdict},
                          {"b_verdict", rb.verdict},
                          {"a_busy", ra.busy},
                          {"b_busy", rb.busy}};
    std::string word;
    if (ra.verdict == "correct" && rb.verdict == "correct" && (ra.busy || rb.busy)) {
      row["ratio"] = nullptr;
      word = fmt::format("not compared: {} timed busy", ra.busy && rb.busy ? "both"
                                                        : ra.busy          ? "A"
                                                                           : "B");
      ++busy;
    } else if (ra.speedup && rb.speedup && ra.verdict == "correct" && rb.verdict == "correct") {
      const double q = *rb.speedup / *ra.speedup;
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
  }
  return {{"tasks", rows},
          {"summary",
           {{"compared", compared},
            {"b_faster", faster},
            {"b_slower", slower},
            {"within_noise", same},
            {"busy", busy},
            {"geomean_ratio",
             compared ? nlohmann::json(std::exp(log_sum / compared)) : nlohmann::json(nullptr)}}}};
}

std::optional<FailRule> parse_fail_rule(const std::string& name) {
  if (name == "regression") return FailRule::regression;
  if (name == "any-worse") return FailRule::any_worse;
  if (name == "never") return FailRule::never;
  return std::nullopt;
}

std::vector<std::string> rule_failures(const nlohmann::json& comparison, FailRule rule,
                                       double threshold) {
  std::vector<std::string> out;
  if (rule == FailRule::never) return out;
  for (const auto& row : comparison.value("tasks", nlohmann::json::array())) {
    const std::string id = row.value("task", ""), a = row.value("a_verdict", ""),
                      b = row.value("b_verdict", "");
    if (a == "correct" && b != "correct" && (!b.empty() || rule == FailRule::any_worse)) {
      out.push_back(fmt::format("{}: correct → {}", id, b.empty() ? "absent" : b));
      continue;
    }
    if (!row.contains("ratio") || !row["ratio"].is_number()) continue;
    const double q = row["ratio"].get<double>();
    if (q >= 1 - threshold) continue;
    const bool shown = row.value("outcome", "") == "B slower";
    if (shown || rule == FailRule::any_worse)
      out.push_back(
          fmt::format("{}: B/A {:.2f}x, {}", id, q, shown ? "intervals apart" : "within noise"));
  }
  return out;
}

nlohmann::json bench_speedups(const BenchResults& r) {
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& [id, t] : r)
    tasks.push_back({{"task", id},
                     {"verdict", t.verdict},
                     {"busy", t.busy},
                     {"speedup", maybe(t.speedup)},
                     {"low", maybe(t.low)},
                     {"high", maybe(t.high)}});
  return {{"tasks", tasks}};
}

}  // namespace kforge::eval
