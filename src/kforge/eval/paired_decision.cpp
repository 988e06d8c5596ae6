#include "kforge/eval/paired_decision.h"

#include <fmt/format.h>

namespace kforge::eval {

std::string_view winner_name(Winner w) {
  switch (w) {
    case Winner::challenger: return "challenger";
    case Winner::incumbent: return "incumbent";
    case Winner::tie: return "tie";
    case Winner::undecided: return "undecided";
  }
  return "undecided";
}

Winner read_interval(const SpeedupStats& r) {
  if (r.ci_low > 1.0) return Winner::challenger;
  if (r.ci_high < 1.0) return Winner::incumbent;
  return Winner::tie;
}

PairedDecision decide_paired(const TaskContext& ctx, const std::string& challenger, const std::string& incumbent,
                             const std::string& incumbent_label, EvalOptions o) {
  PairedDecision d;
  d.against = incumbent_label;
  o.time = true;
  o.profile_seconds = 0;
  o.role = toolchain::Role::candidate;
  o.against_source = incumbent;
  o.against_name = incumbent_label;
  o.against_role = toolchain::Role::candidate;
  o.dump_dir.clear();
  auto e = evaluate(ctx, challenger, "kernel.cpp", o);
  d.busy = e.machine_busy;
  if (!e.correct()) {
    d.reason = fmt::format("the side-by-side run was {}: {}", verdict_name(e.verdict), e.reason.substr(0, 300));
  } else if (!e.speedup) {
    d.reason = "the side-by-side run has no paired ratio";
  } else {
    d.ratio = e.speedup;
    d.winner = e.machine_busy ? Winner::undecided : read_interval(*e.speedup);
    if (e.machine_busy) d.reason = fmt::format("the machine was busy (load {:.1f}) while they were timed", e.load_average);
  }
  d.evaluation = std::move(e);
  return d;
}

std::string PairedDecision::describe() const {
  std::string ratio_text =
      ratio ? fmt::format("{:.3f}x {} (95% CI {:.3f}–{:.3f}), side by side", ratio->median, against, ratio->ci_low, ratio->ci_high) : "";
  switch (winner) {
    case Winner::challenger: return "faster than " + ratio_text;
    case Winner::incumbent: return "slower than " + ratio_text;
    case Winner::tie: return fmt::format("no faster than {} (a tie keeps it): {}", against, ratio_text);
    case Winner::undecided:
      return fmt::format("not compared with {}: {}{}", against, reason, ratio ? " (" + ratio_text + ")" : "");
  }
  return "";
}

nlohmann::json PairedDecision::to_json() const {
  nlohmann::json j = {{"method", "paired"}, {"against", against}, {"winner", winner_name(winner)}, {"busy", busy}, {"reason", reason}};
  if (ratio) j["ratio"] = {{"median", ratio->median}, {"ci95", {ratio->ci_low, ratio->ci_high}}};
  else j["ratio"] = nullptr;
  return j;
}

}  // namespace kforge::eval
