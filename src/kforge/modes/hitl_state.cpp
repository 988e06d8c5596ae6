// HitlState ⇄ JSON (state.json). A version is named by its node in the store, which holds its
// source; one not recorded there yet (a failed write) keeps its source inline, as every version
// did before versions were nodes, and restore_versions records it on the next open.
#include "kforge/modes/hitl_session.h"

#include "kforge/eval/evaluation_json.h"
#include "kforge/modes/hitl_versions.h"

namespace kforge::modes {

nlohmann::json HitlState::to_json(bool with_sources) const {
  nlohmann::json versions_json = nlohmann::json::array();
  for (const auto& v : versions) {
    nlohmann::json one = {
        {"number", v.number}, {"origin", v.origin}, {"parent", v.parent}, {"node", v.node}};
    if (!v.node || with_sources) one["source"] = v.source;
    versions_json.push_back(std::move(one));
  }
  nlohmann::json attempts_json = nlohmann::json::array();
  for (const auto& a : attempts)
    attempts_json.push_back({{"failure", a.failure},
                             {"error", a.fix.error},
                             {"cause", a.fix.cause},
                             {"fix", a.fix.fix}});
  return {{"run_id", run_id},
          {"task", task},
          {"size", size},
          {"model", model},
          {"plan", plan},
          {"rejected", rejected},
          {"versions", versions_json},
          {"current", current},
          {"last_failure", last_failure},
          {"attempts", attempts_json},
          {"best", best ? eval::to_json(*best) : nlohmann::json(nullptr)},
          {"best_version", best_version},
          {"passed_version", passed_version},
          {"partner", partner},
          {"target", target},
          {"dtype", dtype},
          {"baseline_ms", baseline_ms},
          {"baseline_when", baseline_when},
          {"history", history}};
}

HitlState HitlState::from_json(const nlohmann::json& j) {
  HitlState s;
  s.run_id = j.value("run_id", "");
  s.task = j.value("task", "");
  s.size = j.value("size", "");
  s.plan = j.value("plan", "");
  s.rejected = j.value("rejected", std::vector<std::string>{});
  for (const auto& v : j.value("versions", nlohmann::json::array())) {
    KernelVersion version{v.value("number", 0), v.value("source", ""), v.value("origin", "")};
    version.node = v.value("node", std::int64_t{0});
    // An older kforge's state.json does not say where a version came from.
    version.parent = v.contains("parent") ? v.value("parent", 0) : implied_parent(s, version);
    s.versions.push_back(std::move(version));
  }
  s.current = j.value("current", 0);
  s.last_failure = j.value("last_failure", "");
  for (const auto& a : j.value("attempts", nlohmann::json::array()))
    s.attempts.push_back(
        {a.value("failure", ""), {a.value("error", ""), a.value("cause", ""), a.value("fix", "")}});
  if (j.contains("best") && j["best"].is_object()) s.best = eval::evaluation_from_json(j["best"]);
  s.best_version = j.value("best_version", 0);
  s.passed_version = j.value("passed_version", 0);
  s.model = j.value("model", "");
  s.partner = j.value("partner", "");  // sessions saved before --beat were libtorch's
  s.target = j.value("target", "");    // sessions saved before --target were the cpp target's
  s.dtype = j.value("dtype", "f32");
  s.baseline_ms = j.value("baseline_ms", 0.0);
  s.baseline_when = j.value("baseline_when", "");
  s.history = j.value("history", std::vector<std::string>{});
  return s;
}

}  // namespace kforge::modes
