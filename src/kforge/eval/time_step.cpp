// The statistics of a paired timing, every sample taken on kforge's clock.
#include <fmt/format.h>

#include "kforge/eval/steps.h"

namespace kforge::eval {

std::optional<Judgement> judge_timing(const PairedTiming& timed, const core::ResolvedTask& task, Evaluation& e) {
  if (timed.failure) return timed.failure;
  if (timed.candidate_ms.empty()) return Judgement{Verdict::runtime_error, "the timing produced no samples"};
  e.warmup_pairs = timed.warmup_pairs;
  e.idle_cpu_ms_max = timed.idle_cpu_ms_max;
  e.candidate = summarize(timed.candidate_ms);
  if (!timed.partner_ms.empty()) {
    e.baseline = summarize(timed.partner_ms);
    e.speedup = summarize_ratios(timed.candidate_ms, timed.partner_ms);
  }
  double seconds = e.candidate->median_ms / 1e3;
  if (seconds > 0) {
    e.gflops = task.flops / seconds / 1e9;
    e.gbps = task.bytes / seconds / 1e9;
  }
  return std::nullopt;
}

}  // namespace kforge::eval
