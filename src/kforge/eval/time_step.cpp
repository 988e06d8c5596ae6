// The timing report: the candidate's timed outputs matched the partner's on perturbed inputs,
// the inputs stayed intact, the runner's clock agrees with the parent's; then the statistics.
#include <fmt/format.h>

#include "kforge/eval/steps.h"

namespace kforge::eval {

std::optional<Judgement> judge_timing(const nlohmann::json& timed, double parent_wall_s, const core::ResolvedTask& task, Evaluation& e) {
  if (timed.value("inputs_modified", false))
    return Judgement{Verdict::input_modified, "the inputs changed during a timed call (inputs are read-only)"};
  if (const auto& m = timed.at("mismatch"); !m.is_null()) {
    return Judgement{Verdict::incorrect,
                     fmt::format("on timing pair {} (inputs perturbed since the previous call) output '{}' differs from the {} in {} of {} "
                                 "elements (got {:.7g}, {} gave {:.7g}): does the kernel reuse results across calls?",
                                 m.value("pair", 0), m.value("output", ""), e.partner, m.value("bad", 0), m.value("numel", 0),
                                 m.value("candidate", 0.0), e.partner, m.value("partner", 0.0))};
  }
  if (timed.value("background_cpu_ms", 0.0) > 10.0 && timed.value("threads", 0) > timed.value("threads_start", 0))
    return Judgement{Verdict::sandbox_violation,
                     fmt::format("threads started during timing kept running after the calls returned ({:.0f} ms of CPU in a 30 ms idle "
                                 "window): background work would slow the baseline and inflate the speedup",
                                 timed.value("background_cpu_ms", 0.0))};
  // The runner's loop must fit inside the parent's window, and not be much shorter than it.
  double loop_s = timed.value("loop_seconds", 0.0), timed_s = timed.value("timed_ms", 0.0) / 1e3;
  e.parent_wall_s = parent_wall_s;
  e.runner_loop_s = loop_s;
  if (loop_s > parent_wall_s + 0.002 || timed_s > loop_s + 0.002 || parent_wall_s - loop_s > 0.5 + 0.1 * parent_wall_s)
    return Judgement{Verdict::sandbox_violation,
                     fmt::format("the runner's clock disagrees with kforge's (runner loop {:.3f} s, timed calls {:.3f} s, kforge saw {:.3f} s): "
                                 "timings discarded",
                                 loop_s, timed_s, parent_wall_s)};

  std::vector<double> cand, partner;
  for (const auto& p : timed.at("pairs")) {
    cand.push_back(p.at(0).get<double>());
    if (p.size() > 1) partner.push_back(p.at(1).get<double>());
  }
  if (cand.empty()) return Judgement{Verdict::runtime_error, "the timing produced no samples"};
  e.warmup_pairs = timed.value("warmup_pairs", 0);
  e.candidate = summarize(cand);
  if (!partner.empty()) {
    e.baseline = summarize(partner);
    e.speedup = summarize_ratios(cand, partner);
  }
  double seconds = e.candidate->median_ms / 1e3;
  if (seconds > 0) {
    e.gflops = task.flops / seconds / 1e9;
    e.gbps = task.bytes / seconds / 1e9;
  }
  return std::nullopt;
}

}  // namespace kforge::eval
