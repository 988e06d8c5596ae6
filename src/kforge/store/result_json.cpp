// Result sets and rows as JSON.
#include "kforge/store/result_json.h"

namespace kforge::store {
namespace {

nlohmann::json maybe(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json parsed(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  return j.is_discarded() ? nlohmann::json::object() : j;
}

}  // namespace

nlohmann::json kept_result_json(const KeptResult& r) {
  return {{"task", r.task},
          {"partner", r.partner},
          {"role", r.role},
          {"kernel", r.kernel},
          {"size", r.size},
          {"dtype", r.dtype},
          {"status", r.status},
          {"verdict", r.verdict},
          {"busy", r.busy},
          {"speedup", maybe(r.speedup)},
          {"speedup_ci95", {maybe(r.speedup_low), maybe(r.speedup_high)}},
          {"median_ms", maybe(r.median_ms)},
          {"created_at", r.created_at}};
}

nlohmann::json kept_json(const KeptResult& row) {
  auto j = parsed(row.row);
  return j.is_object() ? j : nlohmann::json::object();
}

nlohmann::json result_set_json(const ResultSet& s, const std::vector<KeptResult>& rows,
                               bool with_rows) {
  const SetSummary sum = summarize(rows);
  nlohmann::json j = {{"id", s.id},
                      {"command", s.command},
                      {"state", effective_state(s)},
                      {"suite", s.suite},
                      {"task", s.task},
                      {"target", s.target},
                      {"size", s.size},
                      {"dtype", s.dtype},
                      {"impl", s.impl},
                      {"partner", s.partner},
                      {"settings", parsed(s.settings)},
                      {"machine",
                       {{"hostname", s.hostname},
                        {"cpu_model", s.cpu_model},
                        {"isa", s.isa},
                        {"threads", s.threads},
                        {"openblas_coretype", s.openblas_coretype}}},
                      {"kforge_version", s.kforge_version},
                      {"git_sha", s.git_sha},
                      {"created_at", s.created_at},
                      {"updated_at", s.updated_at},
                      {"summary",
                       {{"rows", sum.rows},
                        {"evaluated", sum.evaluated},
                        {"correct", sum.correct},
                        {"busy", sum.busy},
                        {"geomean_speedup", maybe(sum.geomean_speedup)}}}};
  if (!with_rows) return j;
  nlohmann::json results = nlohmann::json::array(), flat = nlohmann::json::array(),
                 tasks = nlohmann::json::array();
  for (const auto& r : rows) {
    results.push_back(kept_result_json(r));
    const auto kept = kept_json(r);
    if (kept.contains("row")) flat.push_back(kept["row"]);
    tasks.push_back(kept.contains("task") ? kept["task"] : nlohmann::json{{"task", r.task}});
  }
  j["results"] = results;
  j["rows"] = flat;
  j["tasks"] = tasks;
  return j;
}

}  // namespace kforge::store
