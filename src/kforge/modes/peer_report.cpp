#include "kforge/modes/peer_report.h"

#include <fmt/format.h>

#include "kforge/core/shorten.h"
#include "kforge/eval/python_kernel.h"

namespace kforge::modes {

namespace {

eval::EvalOptions paired_with(const eval::EvalOptions& base, const std::string& peer) {
  eval::EvalOptions o = base;
  o.partner = eval::EvalOptions::Partner::baseline;
  o.peer = peer == "libtorch" ? "" : peer;
  o.against_source.clear();
  o.against_name.clear();
  o.profile_seconds = 0;
  o.dump_dir.clear();
  return o;
}

std::string describe(const std::string& peer) {
  return peer == "libtorch" ? "PyTorch eager, libtorch" : eval::peer_description(peer);
}

// What a row's speedup cell says: a figure only when both sides were correct, timed and quiet.
std::string speedup_cell(const eval::Evaluation& e) {
  if (e.partner_failed) return "peer error: " + core::shorten(e.reason, 120, "…");
  if (!e.correct())
    return fmt::format("{}: {}", eval::verdict_name(e.verdict), core::shorten(e.reason, 120, "…"));
  if (!e.speedup) return "not timed";
  if (e.machine_busy)
    return fmt::format("no result (busy: read {:.2f}x; {})", e.speedup->median, e.busy_reason);
  return fmt::format("{:.2f}x (95% CI {:.2f}–{:.2f})", e.speedup->median, e.speedup->ci_low,
                     e.speedup->ci_high);
}

}  // namespace

std::vector<PeerComparison> compare_with_peers(const eval::TaskContext& ctx,
                                               const std::string& source,
                                               const eval::EvalOptions& base,
                                               const std::vector<std::string>& peers,
                                               const std::function<void(std::string_view)>& say) {
  std::vector<PeerComparison> rows;
  for (const auto& peer : peers) {
    if (base.cancel && base.cancel->load()) break;
    if (say) say(fmt::format("the best kernel against {}", describe(peer)));
    rows.push_back({peer, eval::evaluate(ctx, source, "best.cpp", paired_with(base, peer))});
  }
  return rows;
}

std::string peers_section(const std::vector<PeerComparison>& rows, int threads) {
  if (rows.empty()) return "";
  std::string s = fmt::format(
      "\n## The best kernel against every peer\n\nEach peer timed side by side with the best "
      "kernel in a paired run of its own ({} thread(s)); a peer's compile is untimed.\n\n"
      "| peer | peer ms | kernel ms | kernel's speedup |\n|---|---|---|---|\n",
      threads);
  for (const auto& r : rows) {
    const auto& e = r.evaluation;
    s += fmt::format("| {} | {} | {} | {} |\n", describe(r.peer),
                     e.baseline ? fmt::format("{:.4g}", e.baseline->median_ms) : "–",
                     e.candidate ? fmt::format("{:.4g}", e.candidate->median_ms) : "–",
                     speedup_cell(e));
  }
  return s;
}

nlohmann::json to_json(const std::vector<PeerComparison>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rows) {
    const auto& e = r.evaluation;
    const bool judged = e.correct() && e.speedup && !e.machine_busy;
    out.push_back(
        {{"peer", r.peer},
         {"verdict", eval::verdict_name(e.verdict)},
         {"peer_failed", e.partner_failed},
         {"peer_version", e.partner_version},
         {"peer_ms", e.baseline ? nlohmann::json(e.baseline->median_ms) : nlohmann::json(nullptr)},
         {"kernel_ms",
          e.candidate ? nlohmann::json(e.candidate->median_ms) : nlohmann::json(nullptr)},
         {"speedup", judged ? nlohmann::json(e.speedup->median) : nlohmann::json(nullptr)},
         {"speedup_ci95", judged ? nlohmann::json({e.speedup->ci_low, e.speedup->ci_high})
                                 : nlohmann::json(nullptr)},
         {"busy", e.machine_busy},
         {"reason", e.reason}});
  }
  return out;
}

}  // namespace kforge::modes
