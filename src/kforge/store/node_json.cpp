#include "kforge/store/node_json.h"

namespace kforge::store {
namespace {

template <typename T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// A stored decision ("" when none) as the object it was written from.
nlohmann::json decision_json(const std::string& text) {
  if (text.empty()) return nullptr;
  auto j = nlohmann::json::parse(text, nullptr, false);
  return j.is_discarded() ? nlohmann::json(text) : j;
}

}  // namespace

nlohmann::json node_json(const NodeRecord& n, const NodeNumbers& numbers) {
  return {{"id", n.number},
          {"global_id", n.id},
          {"run", n.run_id},
          {"parent", or_null(numbers.of(n.parent_id))},
          {"depth", n.depth},
          {"iteration", n.iteration},
          {"strategy", n.strategy},
          {"strategy_id", n.strategy_id},
          {"expansion", n.expansion},
          {"partner", or_null(numbers.of(n.partner))},
          {"state", node_state_name(n.state)},
          {"verdict", or_null(n.verdict)},
          {"reason", n.reason},
          {"median_ms", or_null(n.median_ms)},
          {"baseline_ms", or_null(n.baseline_ms)},
          {"speedup", or_null(n.speedup)},
          {"roofline", or_null(n.roofline)},
          {"roofline_reason", n.roofline_reason},
          {"vs_parent_ratio", or_null(n.vs_parent_ratio)},
          {"vs_parent", decision_json(n.vs_parent)},
          {"vs_best", decision_json(n.vs_best)},
          {"decision", decision_json(n.decision)},
          {"diagnosis", n.diagnosis},
          {"needs_improvement", or_null(n.needs_improvement)},
          {"tokens_in", n.tokens_in},
          {"tokens_out", n.tokens_out},
          {"cost_usd", n.cost_usd},
          {"source_hash", n.source_hash},
          {"created_at", n.created_at},
          {"finished_at", or_null(n.finished_at)}};
}

}  // namespace kforge::store
